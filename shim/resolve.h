/* shim/resolve.h: following symlinks without allocating (resolve.c). */
#ifndef SBX_SHIM_RESOLVE_H
#define SBX_SHIM_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>

/* Follow every symlink of an absolute, normalised path, as the kernel
 * would (the final one only when `follow`); a missing tail is kept as
 * written. readlink(2) only: no allocation. */
void shim_resolve(const char *abs, bool follow, char *out, size_t outsz);

#endif
