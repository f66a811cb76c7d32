/* common/hostfs.h: every file and directory the supervisor makes or
 * writes on the host goes through here.
 *
 * sbx-preload runs unsandboxed, as the user, and COMMAND controls every
 * name in the writable roots (with workspace = HOME or under --learn, HOME
 * itself): a link at the audit log's name would have the supervisor append
 * to ~/.bashrc, one at the learned policy's temporary name truncate
 * ~/.ssh/authorized_keys. So a path is never handed to open(): a trusted
 * directory is opened from `/` one component at a time, without following
 * a link and checking who owns each one, and held; files are then opened
 * relative to that descriptor, never through a link (openat2 with
 * RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH where the kernel has it, O_NOFOLLOW
 * otherwise), created with O_EXCL, replaced by a temporary file in the same
 * held directory and renameat(). docs/SECURITY.md, "The supervisor on the
 * host".
 *
 * Every function returns a descriptor or 0, or -errno; with `err` given, a
 * failure also leaves one line there naming the path and why. */
#ifndef SBX_HOSTFS_H
#define SBX_HOSTFS_H

#include <limits.h>
#include <sys/types.h>

/* Walk flags. */
#define HOSTFS_CREATE 0x1   /* make missing directories, mode 0700 */
#define HOSTFS_MINE 0x2     /* the directory reached must be the caller's own */
#define HOSTFS_ANYOWNER 0x4 /* no owner check on the way (the user's tree,
			     * where only links matter: stand-ins' parents) */

struct hostfs_err {
	char msg[PATH_MAX + 256];
};

/* The directory at the absolute, normal path `path`, walked from `/`.
 * Each directory on the way must belong to the caller or root, and one
 * others may write must be sticky (/tmp); a link anywhere is refused
 * (-ELOOP). A directory hostfs makes is the caller's, mode 0700. */
int hostfs_dir_open(const char *path, unsigned flags, struct hostfs_err *err);
/* The same below the held directory `dirfd`: `rel` is relative, without
 * `.` or `..`. `shown` names dirfd in messages (NULL: "."). */
int hostfs_dir_openat(int dirfd, const char *shown, const char *rel, unsigned flags,
		      struct hostfs_err *err);

/* `name` (one component) in dirfd, opened to append: made mode `mode` when
 * missing. Refused: a link, a regular file with more than one hard link
 * (-EMLINK: writing it would write another name's file) or that is not the
 * caller's (-EPERM), anything but a regular file or a character device
 * (/dev/null) (-EINVAL, and a FIFO never blocks us). */
int hostfs_append(int dirfd, const char *shown, const char *name, mode_t mode,
		  struct hostfs_err *err);
/* The same for an absolute path: its directory walked (flags as above). */
int hostfs_append_path(const char *path, unsigned flags, mode_t mode, struct hostfs_err *err);

/* A new file `name` in dirfd (O_EXCL: never an existing name, never
 * through a link), opened for writing. */
int hostfs_create(int dirfd, const char *shown, const char *name, mode_t mode,
		  struct hostfs_err *err);

/* Atomic replace: write a temporary file made O_EXCL in the held directory,
 * then hostfs_replace_commit() fsyncs it, renames it over `name` in that
 * same directory (a link there is replaced, never followed) and fsyncs the
 * directory. The name is never seen half-written. */
struct hostfs_replace {
	int dirfd;          /* borrowed */
	int fd;             /* the temporary file, -1 when none */
	char shown[PATH_MAX];
	char name[NAME_MAX + 1], tmp[NAME_MAX + 1];
	/* set after begin: no fsync, for a file whose loss in a crash is
	 * harmless (the walk's record: checked whole when read, and ignored
	 * when damaged); still never seen half-written */
	int nosync;
};
int hostfs_replace_begin(int dirfd, const char *shown, const char *name, mode_t mode,
			 struct hostfs_replace *r, struct hostfs_err *err);
/* Closes r->fd, also on failure (the temporary file is then removed). */
int hostfs_replace_commit(struct hostfs_replace *r, struct hostfs_err *err);
void hostfs_replace_abort(struct hostfs_replace *r); /* safe after commit */

/* A path the user named (--log, --learn=FILE, $HOME, $XDG_STATE_HOME), as
 * the later walks will take it: `..` folded, the links of the part that
 * exists now resolved once (the user's own choice, before COMMAND runs),
 * the rest kept as written; with `keep_last` the last component is kept
 * as written even when it exists (a link there is then refused when the
 * file is opened, not followed). 0 or -errno. */
int hostfs_trust_path(const char *path, int keep_last, char *out, size_t outsz);

/* Split an absolute path into its directory (in dir) and last name; 0, or
 * -EINVAL when there is no last name (`/`). */
/* What is at the absolute `path`, looked at without following a symbolic
 * link (/proc's magic ones included), for paths a hostile report names:
 * 1 something that is no link, 0 nothing (a component is missing), -1
 * cannot tell without following a link (one on the way or at the end) or
 * another error. */
int hostfs_look(const char *path);

int hostfs_split(const char *path, char *dir, size_t dirsz, const char **name);

#endif
