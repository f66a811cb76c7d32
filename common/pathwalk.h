/* common/pathwalk.h: open a path without following any symlink on the
 * way, shared by the supervisor (which records what each mount of sbx-init's
 * is to land on) and sbx-init (which mounts exactly that, or nothing).
 *
 * A program of a concurrent sandbox (or an earlier one) controls every name
 * in the trees it may write, and a parent of a writable root, of a protected
 * or of a denied path is often one of them (a workspace inside a HOME that
 * another run may write). A mount made by path follows a link swapped in
 * there, and `/` or `~` ends up writable inside the sandbox. So every path a
 * mount is made on is opened here, once, and the mount is made from the
 * descriptor. No allocation (sbx-init). */
#ifndef SBX_PATHWALK_H
#define SBX_PATHWALK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

/* What a mount is to land on: the device and inode the supervisor saw. */
struct mount_id {
	uint64_t dev, ino;
};

/* `path` (absolute) opened O_PATH | O_CLOEXEC, never through a symlink:
 * openat2() with RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS where the
 * kernel has it, else one component at a time with O_NOFOLLOW. With
 * `link_last`, the last component may itself be a link, which is then
 * opened (not followed). A descriptor, or -errno: -ELOOP for a link on the
 * way. A `..` is the real parent of the directory reached before it.
 * Without O_PATH (common/fscompat.h: macOS, the portable build) only a
 * directory is opened: anything else at the end is -EOPNOTSUPP, never
 * opened (a FIFO would block, a device act); pathwalk_stat() says what it
 * is. */
int pathwalk_open(const char *path, bool link_last);

/* The same, always one component at a time (what pathwalk_open() does
 * without openat2; the unit tests call it directly). */
int pathwalk_walk(const char *path, bool link_last);

/* What is at `path`, walked as pathwalk_walk() does, the last name looked
 * at with fstatat(AT_SYMLINK_NOFOLLOW) and not opened (with `link_last`, a
 * link there is described, else -ELOOP). 0 or -errno. */
int pathwalk_stat(const char *path, bool link_last, struct stat *st);

/* The directory `name` (one component; `..` is dirfd's parent) in dirfd,
 * opened `flags` | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, after
 * fstatat() said it is one: a link is ELOOP, anything else ENOTDIR, and
 * neither is ever handed to open(). A descriptor, or -1 and errno. */
int pathwalk_dirat(int dirfd, const char *name, int flags);

#ifdef __linux__
struct open_how;
/* openat2(2), retried while the kernel says EAGAIN: with RESOLVE_IN_ROOT
 * or RESOLVE_BENEATH, a `..` walked while anything on the machine was
 * renamed or mounted (a global sequence count moved) fails with EAGAIN,
 * "the caller may retry". A program's `open("~/link/f")`, the link being
 * `../../ws`, failed so whenever another process renamed a file at that
 * moment (about one call in ten under a rename loop). Retried up to
 * PATHWALK_AGAIN times (a rename storm a program keeps up itself then
 * costs only that program its call). A descriptor, or -errno. Linux's
 * alone (common/openat2.c). */
#define PATHWALK_AGAIN 256
int pathwalk_openat2(int dirfd, const char *path, const struct open_how *how);
#endif

/* The identity of an open descriptor; 0 or -errno. */
int pathwalk_id(int fd, struct mount_id *id, struct stat *st);

#endif
