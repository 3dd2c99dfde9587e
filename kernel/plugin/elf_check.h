/* kernel/plugin/elf_check.h — what a plugin file is, read from its ELF headers
 * before anything maps it.
 *
 * Contract
 * --------
 * insee_elf_check() reads the file (it never maps or runs it, so any file is
 * safe to give it) and returns NULL when it looks like a shared object this
 * process can load: the ELF magic, this program's class, byte order and
 * machine, type ET_DYN, and program headers, loadable segments and section
 * headers that all lie inside the file. Otherwise it returns a newly
 * allocated sentence saying what the file is instead, e.g. "an ELF shared
 * object for AArch64 (64-bit, little-endian), but this insee runs on x86-64
 * (64-bit, little-endian): build the plugin for this machine", or
 * "truncated: ..." for a half-copied file, which dlopen() would map and
 * then fault on (SIGBUS).
 *
 * "This program" is read from /proc/self/exe, so the check needs no table
 * of native machines.
 */
#ifndef INSEE_KERNEL_ELF_CHECK_H
#define INSEE_KERNEL_ELF_CHECK_H

#include <glib.h>

G_BEGIN_DECLS

char *insee_elf_check(const char *path);

G_END_DECLS
#endif
