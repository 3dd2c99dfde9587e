/* kernel/flow/table.h — the flow engines' large per-port and per-router
 * tables (link loads, where each port leads).
 *
 * Contract
 * --------
 * insee_flow_table_new0() returns `bytes` zeroed bytes, or NULL when they
 * cannot be had; the caller frees them with insee_flow_table_free() and the
 * same size. On Linux the memory is asked for in transparent huge pages: a
 * flow walk reads these tables at random, one line per hop, and with 4 KiB
 * pages nearly every read of a table of hundreds of megabytes also misses
 * the TLB. Elsewhere it is plain g_try_malloc0() memory.
 */
#ifndef INSEE_KERNEL_FLOW_TABLE_H
#define INSEE_KERNEL_FLOW_TABLE_H

#include <glib.h>

G_BEGIN_DECLS

void *insee_flow_table_new0(size_t bytes);
void insee_flow_table_free(void *table, size_t bytes);

G_END_DECLS
#endif
