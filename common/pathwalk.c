/* common/pathwalk.c: open a path without following links (pathwalk.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/pathwalk.h"

#ifndef SYS_openat2
#define SYS_openat2 437
#endif

/* One component at a time, for kernels before 5.6 (or an outer seccomp
 * filter that refuses openat2): O_PATH | O_NOFOLLOW opens a link itself
 * rather than failing, so each one is looked at. */
int pathwalk_walk(const char *path, bool link_last)
{
	char comp[NAME_MAX + 1];
	int fd;

	if (path[0] != '/')
		return -EINVAL;
	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	for (const char *p = path; fd >= 0 && *p;) {
		struct stat st;
		size_t n;
		int next;

		p += strspn(p, "/");
		n = strcspn(p, "/");
		if (!n)
			break;
		if (n > NAME_MAX) {
			close(fd);
			return -ENAMETOOLONG;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		bool last = !p[strspn(p, "/")];
		next = openat(fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		int e = errno;
		close(fd);
		if (next < 0)
			return -e;
		if (fstat(next, &st)) {
			e = errno;
			close(next);
			return -e;
		}
		if ((S_ISLNK(st.st_mode) && !(last && link_last)) ||
		    (!last && !S_ISDIR(st.st_mode))) {
			close(next);
			return S_ISLNK(st.st_mode) ? -ELOOP : -ENOTDIR;
		}
		fd = next;
	}
	return fd < 0 ? -errno : fd;
}

int pathwalk_open(const char *path, bool link_last)
{
	static int no_openat2;

	if (path[0] != '/')
		return -EINVAL;
	if (!no_openat2) {
		struct open_how how = {
			.flags = O_PATH | O_CLOEXEC | (link_last ? O_NOFOLLOW : 0),
			.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
		};
		long fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
		if (fd >= 0)
			return (int)fd;
		if (errno != ENOSYS && errno != EPERM && errno != E2BIG)
			return -errno;
		no_openat2 = 1;
	}
	return pathwalk_walk(path, link_last);
}

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

int pathwalk_id(int fd, struct mount_id *id, struct stat *st)
{
	struct stat own;

	if (!st)
		st = &own;
	if (fstat(fd, st))
		return -errno;
	id->dev = (uint64_t)st->st_dev;
	id->ino = (uint64_t)st->st_ino;
	return 0;
}
