/* shim/check.h: the check every wrapper makes (check.c): one path judged
 * before the real call, looked at again after it. Above core.c, dirfds.c,
 * resolve.c and tell.c; below the wrappers (wrappers.c, exec.c,
 * syscall.c). */
#ifndef SBX_SHIM_CHECK_H
#define SBX_SHIM_CHECK_H

#include <fcntl.h>

#include "shim/core.h"

/* How a path argument is used. */
enum {
	HOW_FOLLOW = 0,        /* the call follows a final symlink */
	HOW_NOFOLLOW = 1 << 0, /* it acts on the link itself */
	HOW_EMPTY_OK = 1 << 1, /* AT_EMPTY_PATH: "" means the dirfd itself */
	/* For a refused write, the kernel's answer comes first where it would
	 * differ: EEXIST for creating what exists (mkdir -p relies on it),
	 * ENOENT for changing what does not (rm -f relies on it). */
	HOW_CREATE = 1 << 2,
	HOW_EXISTING = 1 << 3,
	/* it makes a directory (mkdir): a refusal's target is reported with
	 * a trailing `/`, so the fix offered is one that makes a directory */
	HOW_DIR = 1 << 4,
	/* it sets or removes an extended attribute: the nested mode's
	 * seccomp table refuses every one (EPERM), explained after the call */
	HOW_ATTR = 1 << 5,
};

/* Linux's "" for the descriptor itself; where a system has none (older
 * Darwin), no flag means it */
#ifndef AT_EMPTY_PATH
#define AT_EMPTY_PATH 0
#endif

/* How the *at calls' flags use the path. */
static inline int at_how(int flags)
{
	return ((flags & AT_SYMLINK_NOFOLLOW) ? HOW_NOFOLLOW : HOW_FOLLOW) |
	       ((flags & AT_EMPTY_PATH) ? HOW_EMPTY_OK : 0);
}

/* linkat follows the old path only when asked to */
static inline int link_how(int flags)
{
	return ((flags & AT_SYMLINK_FOLLOW) ? HOW_FOLLOW : HOW_NOFOLLOW) |
	       ((flags & AT_EMPTY_PATH) ? HOW_EMPTY_OK : 0);
}

/* fopen's mode: "r" without "+" reads, anything else writes. Read up to
 * its NUL, as libc's fopen reads it. */
static inline enum sbx_op fopen_op(const char *mode)
{
	if (!mode || mode[0] != 'r')
		return SBX_OP_WRITE;
	for (const char *m = mode + 1; *m; m++)
		if (*m == '+')
			return SBX_OP_WRITE;
	return SBX_OP_READ;
}

/* Linux's O_TMPFILE (an unnamed file in a directory: a write there);
 * Darwin has none. */
#ifdef O_TMPFILE
#define IS_TMPFILE(flags) (((flags) & O_TMPFILE) == O_TMPFILE)
#else
#define IS_TMPFILE(flags) false
#endif

/* open's flags: a read, or a write (also O_CREAT/O_TRUNC/O_TMPFILE)
 * (the open family, syscall(SYS_openat...)). Inline, as they were in
 * wrappers.c: each open pays no call for them, and check.c's hot pages
 * hold none of the open family's code (Makefile, SHIM_COLD_SRCS). */
static inline enum sbx_op shim_open_op(int flags)
{
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC)) || IS_TMPFILE(flags))
		return SBX_OP_WRITE;
	return SBX_OP_READ;
}

/* O_CREAT|O_EXCL never follows a final symlink, and fails on what exists;
 * a write without O_CREAT needs the file to be there */
static inline int shim_open_how(int flags)
{
	bool excl = (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);

	return ((flags & O_NOFOLLOW) || excl ? HOW_NOFOLLOW : HOW_FOLLOW) |
	       (excl ? HOW_CREATE : 0) |
	       (!(flags & O_CREAT) && !IS_TMPFILE(flags) ? HOW_EXISTING : 0);
}

/* Does open() take a mode argument with these flags (O_CREAT, Linux's
 * O_TMPFILE)? */
static inline bool shim_open_has_mode(int flags)
{
	return (flags & O_CREAT) || IS_TMPFILE(flags);
}

/* One path of a call, kept from the check to after the real call. */
struct pending {
	int dirfd;
	const char *path;
	enum sbx_op op;
	int how;
	bool active; /* look again if the real call fails */
	bool learn;  /* --learn: the policy would refuse; report if it works */
};

/* Check one path before the real call. 0: go ahead (pd filled, for
 * shim_after); otherwise the errno to fail with, the report sent. */
int shim_check(struct pending *pd, int dirfd, const char *path,
	       enum sbx_op op, int how);
/* The same, for an open: the absolute path judged is also copied into
 * absout ("" when none was), for dirfds.c to keep when it was a
 * directory. */
int shim_check_open(struct pending *pd, int dirfd, const char *path,
		    enum sbx_op op, int how, char *absout, size_t absoutsz);

/* After the real call, when it failed or a check was left for --learn:
 * a refusal by the kernel (EACCES, EPERM, EROFS; ENOTDIR and EEXIST at a
 * placeholder file standing for a directory) of a path the policy
 * denies is reported; under --learn, so is a call the policy would have
 * refused that went through (one that changed nothing, such as mkdir of
 * an existing directory, is not). errno is kept. */
void shim_after(const struct pending *pd, int n, bool failed);
#define SHIM_AFTER_NEEDED(pd, n, failed)                                      \
	((n) && ((failed) || (pd)[0].learn || ((n) > 1 && (pd)[1].learn)))

#endif
