/* kernel/plugin/elf_check.c — a plugin file's ELF headers against this
 * program's; contract in elf_check.h.
 *
 * dlopen() says "No such file or directory" or "invalid ELF header" for a
 * file of another machine, and maps a truncated file whole, faulting later
 * when the missing pages are touched. Reading the headers first names what
 * the file is. The file is untrusted: every count and offset is checked
 * before use, and only a few kilobytes of headers are ever read.
 */
#define _POSIX_C_SOURCE 200809L /* pread, O_CLOEXEC */
#include "elf_check.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if UINTPTR_MAX > 0xffffffffu
typedef Elf64_Ehdr Ehdr;
typedef Elf64_Phdr Phdr;
#else
typedef Elf32_Ehdr Ehdr;
typedef Elf32_Phdr Phdr;
#endif

/* Enough program headers for any real shared object (the linker writes
   about ten); more is a malformed file, not a reason to read megabytes. */
#define MAX_PHDRS 256

/* What the first 20 bytes say, the same in every class and byte order. */
typedef struct elf_ident {
    unsigned char cls, data;
    guint16 type, machine;
} elf_ident;

static const struct {
    guint16 id;
    const char *name;
} machines[] = {
    {EM_X86_64, "x86-64"},     {EM_386, "x86 (i386)"},      {EM_AARCH64, "AArch64"},
    {EM_ARM, "32-bit ARM"},    {EM_RISCV, "RISC-V"},        {EM_PPC64, "PowerPC64"},
    {EM_PPC, "PowerPC"},       {EM_S390, "IBM Z (s390)"},   {EM_MIPS, "MIPS"},
    {EM_SPARCV9, "SPARC V9"},  {EM_LOONGARCH, "LoongArch"}, {EM_IA_64, "IA-64"},
};

static char *machine_text(const elf_ident *id)
{
    const char *name = NULL;
    for (size_t i = 0; i < G_N_ELEMENTS(machines) && !name; i++)
        if (machines[i].id == id->machine)
            name = machines[i].name;
    char *unknown = name ? NULL : g_strdup_printf("ELF machine %u", id->machine);
    char *text = g_strdup_printf("%s (%s, %s)", name ? name : unknown,
                                 id->cls == ELFCLASS64   ? "64-bit"
                                 : id->cls == ELFCLASS32 ? "32-bit"
                                                         : "unknown class",
                                 id->data == ELFDATA2MSB   ? "big-endian"
                                 : id->data == ELFDATA2LSB ? "little-endian"
                                                           : "unknown byte order");
    g_free(unknown);
    return text;
}

static const char *type_text(guint16 type)
{
    switch (type) {
    case ET_REL:
        return "relocatable object (a .o file)";
    case ET_EXEC:
        return "executable";
    case ET_CORE:
        return "core dump";
    default:
        return "file of unknown type";
    }
}

/* The identity part of a header of at least 20 bytes. */
static elf_ident read_ident(const unsigned char *h)
{
    elf_ident id = {.cls = h[EI_CLASS], .data = h[EI_DATA]};
    gboolean big = id.data == ELFDATA2MSB;
    id.type = big ? (guint16)(h[16] << 8 | h[17]) : (guint16)(h[17] << 8 | h[16]);
    id.machine = big ? (guint16)(h[18] << 8 | h[19]) : (guint16)(h[19] << 8 | h[18]);
    return id;
}

/* Read exactly `len` bytes at `off`; FALSE at end of file or on error. */
static gboolean read_at(int fd, void *buf, size_t len, guint64 off)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return FALSE;
        got += (size_t)n;
    }
    return TRUE;
}

/* This program's identity: what a loadable plugin must match. */
static gboolean self_ident(elf_ident *out)
{
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return FALSE;
    unsigned char h[EI_NIDENT + 4];
    gboolean ok = read_at(fd, h, sizeof h, 0) && memcmp(h, ELFMAG, SELFMAG) == 0;
    close(fd);
    if (ok)
        *out = read_ident(h);
    return ok;
}

static guint64 end_of(guint64 off, guint64 count, guint64 size)
{
    /* Counts are at most 16 bits and sizes small: no overflow below 2^63
       unless the offset itself is absurd, which then reads as past the end. */
    return off > G_MAXUINT64 / 2 ? G_MAXUINT64 : off + count * size;
}

/* The furthest byte the headers of a native header `eh` refer to, or an
   explanation of why they cannot be trusted (then *why is set). */
static guint64 extent(int fd, const Ehdr *eh, guint64 file_size, char **why)
{
    guint64 end = MAX(sizeof *eh, end_of(eh->e_shoff, eh->e_shnum, eh->e_shentsize));
    if (eh->e_phnum == 0 || eh->e_phentsize != sizeof(Phdr) || eh->e_phnum > MAX_PHDRS) {
        *why = g_strdup_printf("a malformed ELF shared object (%u program headers of %u bytes)",
                               eh->e_phnum, eh->e_phentsize);
        return 0;
    }
    guint64 ph_end = end_of(eh->e_phoff, eh->e_phnum, sizeof(Phdr));
    if (ph_end > file_size)
        return MAX(end, ph_end);
    Phdr ph[MAX_PHDRS];
    if (!read_at(fd, ph, eh->e_phnum * sizeof(Phdr), eh->e_phoff)) {
        *why = g_strdup("cannot read its program headers");
        return 0;
    }
    for (unsigned i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD)
            end = MAX(end, end_of(ph[i].p_offset, 1, ph[i].p_filesz));
    return end;
}

char *insee_elf_check(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return g_strdup_printf("cannot open: %s", g_strerror(errno));
    char *why = NULL;
    struct stat st;
    unsigned char h[sizeof(Ehdr)];
    guint64 size = 0;
    if (fstat(fd, &st) != 0) {
        why = g_strdup_printf("cannot stat: %s", g_strerror(errno));
        goto done;
    }
    size = (guint64)st.st_size;
    if (size < SELFMAG || !read_at(fd, h, SELFMAG, 0) || memcmp(h, ELFMAG, SELFMAG) != 0) {
        why = g_strdup_printf("not an ELF shared object (a file of %" G_GUINT64_FORMAT
                              " bytes without the ELF signature)",
                              size);
        goto done;
    }
    if (size < sizeof h || !read_at(fd, h, sizeof h, 0)) {
        why = g_strdup_printf("truncated: the file has %" G_GUINT64_FORMAT
                              " bytes, less than an ELF header; copy or build it again",
                              size);
        goto done;
    }
    elf_ident id = read_ident(h), self;
    if (self_ident(&self) &&
        (id.cls != self.cls || id.data != self.data || id.machine != self.machine)) {
        char *theirs = machine_text(&id), *ours = machine_text(&self);
        why = g_strdup_printf("an ELF %s for %s, but this insee runs on %s: build the plugin "
                              "for this machine",
                              id.type == ET_DYN ? "shared object" : type_text(id.type), theirs,
                              ours);
        g_free(theirs);
        g_free(ours);
        goto done;
    }
    if (id.type != ET_DYN) {
        why = g_strdup_printf("an ELF %s, not a shared object: build the plugin as a MODULE "
                              "library (insee_add_plugin does)",
                              type_text(id.type));
        goto done;
    }
    Ehdr eh;
    memcpy(&eh, h, sizeof eh);
    guint64 end = extent(fd, &eh, size, &why);
    if (!why && end > size)
        why = g_strdup_printf("truncated: the file has %" G_GUINT64_FORMAT
                              " bytes, but its ELF headers describe %" G_GUINT64_FORMAT
                              " (an interrupted copy or build?); copy or build it again",
                              size, end);
done:
    close(fd);
    return why;
}
