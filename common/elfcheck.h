/* common/elfcheck.h: is a program static? (Used by the shim before an exec and by
 * sbx-preload for COMMAND itself: a static program never loads the shim,
 * so its refusals go unexplained, and sbx says so once.) */
#ifndef SBX_ELFCHECK_H
#define SBX_ELFCHECK_H

#include <stdbool.h>

/* An ELF executable with no PT_INTERP (Go, musl -static, static-pie).
 * Raw syscalls and the stack only: it runs in vfork children. */
bool elf_is_static(int dirfd, const char *path);

/* A bare name searched in $PATH as execvp() does (the first executable
 * entry), into out; false if none. No allocation. */
#include <stddef.h>
bool elf_find_in_path(const char *file, char *out, size_t outsz);

#endif
