/* common/pathwalk.c: open a path without following links (pathwalk.h).
 * Linux's openat2 and O_PATH where they exist, POSIX calls elsewhere
 * (common/fscompat.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/pathwalk.h"
#include "common/fscompat.h"

int pathwalk_dirat(int dirfd, const char *name, int flags)
{
	struct stat st;
	int fd;

	if (!*name || strchr(name, '/') || strlen(name) > NAME_MAX) {
		errno = EINVAL;
		return -1;
	}
	/* looked at first: a FIFO or a device is never handed to open() */
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
		return -1;
	}
	/* what was swapped in since: O_NOFOLLOW refuses a link, O_DIRECTORY
	 * anything else before it is opened */
	flags |= O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | FS_O_NOFOLLOW_ANY;
	if (strcmp(name, ".."))
		flags |= FS_O_BENEATH;
	fd = openat(dirfd, name, flags);
	if (fd < 0) {
		int e = errno;
		/* O_DIRECTORY | O_NOFOLLOW on a link: ENOTDIR on some systems */
		if (e == ENOTDIR && !fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) &&
		    S_ISLNK(st.st_mode))
			e = ELOOP;
		errno = e;
		return -1;
	}
	if (fstat(fd, &st) || !S_ISDIR(st.st_mode)) {
		close(fd);
		errno = ENOTDIR;
		return -1;
	}
	return fd;
}

/* The directory that holds the last name of the absolute `path`, held,
 * every directory on the way reached by pathwalk_dirat(); the last name
 * in `comp` ("" for `/` itself). A descriptor or -errno. */
static int walk_parent(const char *path, char comp[NAME_MAX + 1])
{
	int fd;

	if (path[0] != '/')
		return -EINVAL;
	fd = open("/", FS_O_DIRSEARCH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	comp[0] = '\0';
	for (const char *p = path;;) {
		p += strspn(p, "/");
		size_t n = strcspn(p, "/");
		if (!n)
			return fd;
		if (n > NAME_MAX) {
			close(fd);
			return -ENAMETOOLONG;
		}
		if (comp[0]) { /* the name before is not the last: into it */
			int next = pathwalk_dirat(fd, comp, FS_O_DIRSEARCH), e = errno;
			close(fd);
			if (next < 0)
				return -e;
			fd = next;
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
	}
}

int pathwalk_stat(const char *path, bool link_last, struct stat *st)
{
	char comp[NAME_MAX + 1];
	int dir = walk_parent(path, comp), rc = 0;

	if (dir < 0)
		return dir;
	if (fstatat(dir, comp[0] ? comp : ".", st, AT_SYMLINK_NOFOLLOW))
		rc = -errno;
	else if (S_ISLNK(st->st_mode) && !link_last)
		rc = -ELOOP;
	close(dir);
	return rc;
}

#if FS_HAVE_O_PATH
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
#else
/* Without O_PATH only a directory can be held without opening what it
 * is: the last name is looked at first, and anything but a directory is
 * -EOPNOTSUPP, never opened (pathwalk_stat() tells what it is). */
int pathwalk_walk(const char *path, bool link_last)
{
	char comp[NAME_MAX + 1];
	struct stat st;
	int dir = walk_parent(path, comp), fd;

	if (dir < 0 || !comp[0])
		return dir;
	if (fstatat(dir, comp, &st, AT_SYMLINK_NOFOLLOW))
		fd = -errno;
	else if (S_ISLNK(st.st_mode) && !link_last)
		fd = -ELOOP;
	else if (!S_ISDIR(st.st_mode))
		fd = -EOPNOTSUPP;
	else if ((fd = pathwalk_dirat(dir, comp, FS_O_DIRSEARCH)) < 0)
		fd = -errno;
	close(dir);
	return fd;
}
#endif

int pathwalk_open(const char *path, bool link_last)
{
	if (path[0] != '/')
		return -EINVAL;
#if FS_HAVE_OPENAT2
	static int no_openat2;

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
#endif
	return pathwalk_walk(path, link_last);
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
