/* shim/dirfds.h: where directory descriptors point, as the shim saw them
 * opened (dirfds.c) — a hint for the check, never the ground for a
 * refusal. */
#ifndef SBX_SHIM_DIRFDS_H
#define SBX_SHIM_DIRFDS_H

#include <stdbool.h>
#include <stddef.h>

#define SHIM_DIRFD_PATH 256
void shim_dirfd_remember(int fd, const char *abs); /* "" or NULL: forget */
void shim_dirfd_forget(int fd);
void shim_dirfd_copy(int from, int to); /* dup, dup2, F_DUPFD: `to` as `from` */
int shim_dirfd_path(int fd, char *out, size_t outsz); /* 0, or -1: unknown */
/* No deny_read rule can match in the kept directory (a hint as well). */
bool shim_dirfd_read_clear(int fd);

#endif
