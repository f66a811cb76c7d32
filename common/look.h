/* common/look.h: what is at a path, looked at component by component
 * without following a link and without opening anything but the
 * directories on the way: the supervisor's look on the host
 * (hostfs_look) and the shim's inside the sandbox (shim/tell.c), each
 * with its own calls (the shim's never meet a wrapper: shim/port.h). */
#ifndef SBX_COMMON_LOOK_H
#define SBX_COMMON_LOOK_H

#include <sys/stat.h>

/* The calls a walk makes. Each failing one leaves its errno. */
struct look_ops {
	int (*open_root)(void);                  /* `/`, held to walk from */
	/* the name in dirfd, no link followed (fstatat AT_SYMLINK_NOFOLLOW) */
	int (*stat_at)(int dirfd, const char *name, struct stat *st);
	/* the directory `name` in dirfd, entered: no link followed, nothing
	 * but a directory opened, and an open that never waits */
	int (*open_dir)(int dirfd, const char *name);
	void (*close_fd)(int fd);
};

/* What is at the absolute `path`: 1 something that is no link, 0 nothing
 * (a component is missing, or one on the way is not a directory), -1
 * cannot tell without following a link (one on the way or at the end),
 * a `.` or `..` to fold, or another error. Each component is looked at
 * (stat_at) before anything is opened: a FIFO or a device on the way is
 * never handed to open(), where one planted there could hold the walk;
 * the last one is only looked at. */
int look_walk(const char *path, const struct look_ops *ops);

#endif
