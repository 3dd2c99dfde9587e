/* sdk/conformance/elf_exports.c — read the exported dynamic symbols of a
 * shared object from its .dynsym section (contract in conform.h).
 *
 * Read from the file rather than asked of the dynamic linker because dlsym
 * answers only for names one already knows; the check needs the whole list.
 * The file is untrusted input: every offset is bounds-checked, and a
 * malformed file is an error, never a crash. Only the native class and byte
 * order are accepted — any other could not have been dlopen()ed anyway.
 */
#include <elf.h>
#include <string.h>

#include "conform.h"

#if UINTPTR_MAX > 0xffffffffu
#define NATIVE_CLASS ELFCLASS64
typedef Elf64_Ehdr Ehdr;
typedef Elf64_Shdr Shdr;
typedef Elf64_Sym Sym;
#define SYM_BIND ELF64_ST_BIND
#define SYM_VISIBILITY ELF64_ST_VISIBILITY
#else
#define NATIVE_CLASS ELFCLASS32
typedef Elf32_Ehdr Ehdr;
typedef Elf32_Shdr Shdr;
typedef Elf32_Sym Sym;
#define SYM_BIND ELF32_ST_BIND
#define SYM_VISIBILITY ELF32_ST_VISIBILITY
#endif

#if G_BYTE_ORDER == G_LITTLE_ENDIAN
#define NATIVE_DATA ELFDATA2LSB
#else
#define NATIVE_DATA ELFDATA2MSB
#endif

/* Symbols the static linker defines in every shared object. */
static const char *const linker_symbols[] = {
    "_init", "_fini", "_edata", "_end", "__bss_start", "_DYNAMIC", "_GLOBAL_OFFSET_TABLE_",
    "_PROCEDURE_LINKAGE_TABLE_", "__end__", "_etext", "__data_start", "__dso_handle",
};

static gboolean is_linker_symbol(const char *name)
{
    for (size_t i = 0; i < G_N_ELEMENTS(linker_symbols); i++)
        if (strcmp(name, linker_symbols[i]) == 0)
            return TRUE;
    return FALSE;
}

/* Whether [off, off + len) lies inside a file of `size` bytes. */
static gboolean inside(gsize size, guint64 off, guint64 len)
{
    return off <= size && len <= size - off;
}

static GPtrArray *fail(GError **err, const char *path, const char *why)
{
    g_set_error(err, G_FILE_ERROR, G_FILE_ERROR_FAILED, "%s: %s", path, why);
    return NULL;
}

GPtrArray *conform_elf_exports(const char *path, GError **err)
{
    gchar *data = NULL;
    gsize size = 0;
    if (!g_file_get_contents(path, &data, &size, err))
        return NULL;
    GPtrArray *out = NULL;
    const char *why = NULL;
    Ehdr eh;
    if (size < sizeof eh) {
        why = "too short to be an ELF file";
        goto done;
    }
    memcpy(&eh, data, sizeof eh);
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != NATIVE_CLASS ||
        eh.e_ident[EI_DATA] != NATIVE_DATA || eh.e_type != ET_DYN) {
        why = "not a native ELF shared object";
        goto done;
    }
    if (eh.e_shentsize != sizeof(Shdr) ||
        !inside(size, eh.e_shoff, (guint64)eh.e_shnum * sizeof(Shdr))) {
        why = "section header table missing or out of bounds";
        goto done;
    }
    const Shdr *sh = (const Shdr *)(const void *)(data + eh.e_shoff);
    const Shdr *dynsym = NULL;
    for (unsigned i = 0; i < eh.e_shnum && !dynsym; i++)
        if (sh[i].sh_type == SHT_DYNSYM)
            dynsym = &sh[i];
    if (!dynsym || dynsym->sh_entsize != sizeof(Sym) || dynsym->sh_link >= eh.e_shnum ||
        !inside(size, dynsym->sh_offset, dynsym->sh_size)) {
        why = "no well-formed .dynsym section";
        goto done;
    }
    const Shdr *strtab = &sh[dynsym->sh_link];
    if (!inside(size, strtab->sh_offset, strtab->sh_size)) {
        why = "dynamic string table out of bounds";
        goto done;
    }
    const char *strings = data + strtab->sh_offset;
    out = g_ptr_array_new_with_free_func(g_free);
    size_t n = dynsym->sh_size / sizeof(Sym);
    for (size_t i = 1; i < n; i++) { /* symbol 0 is the null symbol */
        Sym sym;
        memcpy(&sym, data + dynsym->sh_offset + i * sizeof(Sym), sizeof sym);
        unsigned bind = SYM_BIND(sym.st_info);
        unsigned vis = SYM_VISIBILITY(sym.st_other);
        if (sym.st_shndx == SHN_UNDEF ||
            (bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE) ||
            (vis != STV_DEFAULT && vis != STV_PROTECTED))
            continue;
        if (sym.st_name >= strtab->sh_size ||
            !memchr(strings + sym.st_name, '\0', strtab->sh_size - sym.st_name)) {
            why = "a symbol name lies outside the string table";
            g_ptr_array_free(out, TRUE);
            out = NULL;
            goto done;
        }
        const char *name = strings + sym.st_name;
        if (!is_linker_symbol(name))
            g_ptr_array_add(out, g_strdup(name));
    }
done:
    g_free(data);
    return why ? fail(err, path, why) : out;
}
