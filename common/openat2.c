/* common/openat2.c: openat2(2), asked again after EAGAIN (pathwalk.h).
 * Linux's alone: its callers are Linux's (the seccomp notify layer's
 * RESOLVE_IN_ROOT opens, hostfs.c's native build), and on other systems
 * this file is empty (common/fscompat.h). */
#ifdef __linux__
#include <errno.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/pathwalk.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

int pathwalk_openat2(int dirfd, const char *path, const struct open_how *how)
{
	for (int i = 0;; i++) {
		long fd = syscall(SYS_openat2, dirfd, path, how, sizeof(*how));
		if (fd >= 0)
			return (int)fd;
		if (errno != EAGAIN || i == PATHWALK_AGAIN)
			return -errno;
	}
}
#else
typedef int sbx_no_openat2; /* ISO C: a translation unit is not empty */
#endif
