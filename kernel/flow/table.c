/* kernel/flow/table.c — large tables in huge pages; see table.h. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, madvise() */
#include "flow/table.h"

#ifdef __linux__
#include <sys/mman.h>
#endif

void *insee_flow_table_new0(size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    /* Anonymous mappings come zeroed; the advice is a hint the kernel may
       ignore (THP off), never an error that matters. */
    void *p = mmap(NULL, MAX(bytes, 1), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    (void)madvise(p, MAX(bytes, 1), MADV_HUGEPAGE);
    return p;
#else
    return g_try_malloc0(bytes);
#endif
}

void insee_flow_table_free(void *table, size_t bytes)
{
    if (!table)
        return;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    munmap(table, MAX(bytes, 1));
#else
    (void)bytes;
    g_free(table);
#endif
}
