/* common/hostfs.c: files the supervisor makes or writes on the host,
 * never through a name COMMAND could have swapped (hostfs.h says why). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/hostfs.h"
#include "common/look.h"
#include "common/pathwalk.h"
#include "policy/policy.h"
#include "common/fscompat.h"


static int fail(struct hostfs_err *err, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct hostfs_err *err, int rc, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return rc;
}

/* `dir/name` for messages. */
static const char *join(char *buf, size_t sz, const char *dir, const char *name)
{
	if (!dir || !*dir)
		snprintf(buf, sz, "%s", name);
	else
		snprintf(buf, sz, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", name);
	return buf;
}

static bool one_name(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") && strcmp(name, "..") &&
	       strlen(name) <= NAME_MAX;
}

/* Why a directory may not be on the way: NULL when it may. */
static const char *bad_owner(const struct stat *st, bool mine, bool any)
{
	static char why[96];
	uid_t me = geteuid();

	if (mine && st->st_uid != me) {
		snprintf(why, sizeof(why), "belongs to uid %u, not to you (uid %u)",
			 (unsigned)st->st_uid, (unsigned)me);
		return why;
	}
	if (any)
		return NULL;
	if (st->st_uid != me && st->st_uid != 0) {
		snprintf(why, sizeof(why), "belongs to uid %u, neither you nor root",
			 (unsigned)st->st_uid);
		return why;
	}
	if ((st->st_mode & S_IWOTH) && !(st->st_mode & S_ISVTX))
		return "may be written by anyone and is not sticky";
	return NULL;
}

/* One name in dirfd, opened without following a link: openat2 where the
 * kernel has it (RESOLVE_NO_SYMLINKS also refuses /proc's magic links),
 * else O_NOFOLLOW, which is the same for a single component (fscompat.h). */
static int open_leaf(int dirfd, const char *name, int flags, mode_t mode)
{
	flags |= O_NOFOLLOW | O_CLOEXEC;
#if FS_HAVE_OPENAT2
	static int no_openat2; /* ENOSYS, or a filter of someone else's */

	if (!no_openat2) {
		struct open_how how = {
			.flags = (unsigned long long)flags,
			.mode = (flags & O_CREAT) ? mode : 0,
			.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
		};
		int fd = pathwalk_openat2(dirfd, name, &how);
		if (fd >= 0)
			return fd;
		if (fd != -ENOSYS && fd != -EPERM && fd != -E2BIG) {
			errno = -fd;
			return -1;
		}
		no_openat2 = 1;
	}
#endif
	return openat(dirfd, name, flags | FS_O_NOLINKS, mode);
}

/* A directory on the walk: Linux's O_DIRECTORY refuses what is no
 * directory before opening it; elsewhere it is looked at first, so a FIFO
 * or a device is never opened (pathwalk_dirat). -1 and errno. */
static int open_dir(int dirfd, const char *name)
{
#if FS_HAVE_O_PATH
	return openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
#else
	return pathwalk_dirat(dirfd, name, O_RDONLY);
#endif
}

/* Is `name` in dirfd a symbolic link? (O_DIRECTORY | O_NOFOLLOW on a link
 * gives ENOTDIR on some kernels, ELOOP on others.) */
static bool is_link(int dirfd, const char *name)
{
	struct stat st;

	return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

static int walk(int base, const char *shown, const char *rel, unsigned flags,
		struct hostfs_err *err)
{
	char comp[NAME_MAX + 1], at[PATH_MAX];
	int fd = fcntl(base, F_DUPFD_CLOEXEC, 3);
	struct stat st;

	if (fd < 0)
		return fail(err, -errno, "%s: %s", shown ? shown : ".", strerror(errno));
	snprintf(at, sizeof(at), "%s", shown ? shown : "");
	for (const char *p = rel; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 0) {
			p++;
			continue;
		}
		bool last = !p[n + strspn(p + n, "/")];
		if (n > NAME_MAX || (n == 1 && p[0] == '.') || (n == 2 && !strncmp(p, "..", 2))) {
			close(fd);
			return fail(err, -EINVAL, "%s: `.`, `..` or an over-long name on the way",
				    rel);
		}
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		char next_at[PATH_MAX];
		join(next_at, sizeof(next_at), at[0] ? at : "/", comp);
		int next = open_dir(fd, comp);
		if (next < 0 && errno == ENOENT && (flags & HOSTFS_CREATE)) {
			if (mkdirat(fd, comp, 0700) && errno != EEXIST) {
				int e = errno;
				close(fd);
				return fail(err, -e, "cannot create %s: %s", next_at, strerror(e));
			}
			next = open_dir(fd, comp);
		}
		int e = errno;
		if (next < 0 && (e == ELOOP || e == ENOTDIR) && is_link(fd, comp)) {
			close(fd);
			return fail(err, -ELOOP, "%s is a symbolic link (sbx follows none on its "
				    "way to its own files)", next_at);
		}
		close(fd);
		if (next < 0)
			return fail(err, -e, "%s: %s", next_at, strerror(e));
		fd = next;
		snprintf(at, sizeof(at), "%s", next_at);
		const char *why = fstat(fd, &st) ? strerror(errno) :
				  bad_owner(&st, last && (flags & HOSTFS_MINE),
					    flags & HOSTFS_ANYOWNER);
		if (why) {
			close(fd);
			return fail(err, -EPERM, "%s %s", at, why);
		}
	}
	return fd;
}

int hostfs_dir_open(const char *path, unsigned flags, struct hostfs_err *err)
{
	struct stat st;
	int root, fd;

	if (!path || path[0] != '/')
		return fail(err, -EINVAL, "%s: not an absolute path", path ? path : "(none)");
	root = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		return fail(err, -errno, "/: %s", strerror(errno));
	if (!path[strspn(path, "/")] && (flags & HOSTFS_MINE) && !fstat(root, &st) &&
	    st.st_uid != geteuid()) {
		close(root);
		return fail(err, -EPERM, "/ is not yours");
	}
	fd = walk(root, "", path, flags, err);
	close(root);
	return fd;
}

int hostfs_dir_openat(int dirfd, const char *shown, const char *rel, unsigned flags,
		      struct hostfs_err *err)
{
	if (!rel || rel[0] == '/')
		return fail(err, -EINVAL, "%s: not a relative path", rel ? rel : "(none)");
	return walk(dirfd, shown ? shown : ".", rel, flags, err);
}

int hostfs_append(int dirfd, const char *shown, const char *name, mode_t mode,
		  struct hostfs_err *err)
{
	char at[PATH_MAX];
	struct stat st;
	const char *why = NULL;
	int rc = -EINVAL;

	join(at, sizeof(at), shown, name);
	if (!one_name(name))
		return fail(err, -EINVAL, "%s: not one file name", at);
	/* O_NONBLOCK: a FIFO no one reads gives ENXIO instead of holding us */
	int fd = open_leaf(dirfd, name, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK, mode);
	if (fd < 0) {
		int e = errno;
		if (e == ELOOP || is_link(dirfd, name))
			return fail(err, -ELOOP, "%s is a symbolic link (sbx never writes "
				    "through one)", at);
		if (e == ENXIO)
			return fail(err, -EINVAL, "%s is a FIFO or socket, not a file", at);
		return fail(err, -e, "%s: %s", at, strerror(e));
	}
	if (fstat(fd, &st)) {
		rc = -errno;
		why = strerror(errno);
	} else if (S_ISREG(st.st_mode) && st.st_nlink > 1) {
		/* the same file under another name: ~/.bashrc linked in */
		rc = -EMLINK;
		why = "has other hard links (writing it would write another name's file)";
	} else if (S_ISREG(st.st_mode) && st.st_uid != geteuid()) {
		rc = -EPERM;
		why = "is not yours";
	} else if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode)) {
		why = "is neither a regular file nor a character device";
	} else if (fcntl(fd, F_SETFL, O_APPEND) == 0) {
		return fd;
	} else {
		rc = -errno;
		why = strerror(errno);
	}
	close(fd);
	return fail(err, rc, "%s %s", at, why);
}

/* held only to look further: O_PATH, else search (fscompat.h) */
#if FS_HAVE_O_PATH
#define LOOK_DIR O_PATH
#else
#define LOOK_DIR FS_O_DIRSEARCH
#endif

static int look_root(void)
{
	return open("/", LOOK_DIR | O_DIRECTORY | O_CLOEXEC);
}

static int look_stat(int dirfd, const char *name, struct stat *st)
{
	return fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW);
}

static int look_dir(int dirfd, const char *name)
{
#if FS_HAVE_O_PATH
	return openat(dirfd, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
#else
	return pathwalk_dirat(dirfd, name, LOOK_DIR);
#endif
}

static void look_close(int fd)
{
	close(fd);
}

int hostfs_look(const char *path)
{
	/* on the stack: the shim's copy of this walk (shim/tell.c) must not
	 * cost a relocation at every process start, and this one need not */
	const struct look_ops ops = { look_root, look_stat, look_dir, look_close };

	return look_walk(path, &ops);
}

int hostfs_split(const char *path, char *dir, size_t dirsz, const char **name)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	if (!slash || !slash[1] || path[0] != '/' || (size_t)(slash - path) + 2 > dirsz)
		return -EINVAL;
	if (slash == path)
		snprintf(dir, dirsz, "/");
	else
		snprintf(dir, dirsz, "%.*s", (int)(slash - path), path);
	*name = slash + 1;
	return 0;
}

int hostfs_append_path(const char *path, unsigned flags, mode_t mode, struct hostfs_err *err)
{
	char dir[PATH_MAX];
	const char *name;

	if (hostfs_split(path, dir, sizeof(dir), &name))
		return fail(err, -EINVAL, "%s: not an absolute path to a file", path);
	int dfd = hostfs_dir_open(dir, flags, err);
	if (dfd < 0)
		return dfd;
	int fd = hostfs_append(dfd, dir, name, mode, err);
	close(dfd);
	return fd;
}

int hostfs_create(int dirfd, const char *shown, const char *name, mode_t mode,
		  struct hostfs_err *err)
{
	char at[PATH_MAX];

	join(at, sizeof(at), shown, name);
	if (!one_name(name))
		return fail(err, -EINVAL, "%s: not one file name", at);
	int fd = open_leaf(dirfd, name, O_WRONLY | O_CREAT | O_EXCL, mode);
	if (fd < 0) {
		int e = errno;
		if (e == EEXIST && is_link(dirfd, name))
			return fail(err, -EEXIST, "%s is a symbolic link (sbx never writes "
				    "through one)", at);
		return fail(err, -e, "cannot create %s: %s", at, strerror(e));
	}
	return fd;
}

int hostfs_replace_begin(int dirfd, const char *shown, const char *name, mode_t mode,
			 struct hostfs_replace *r, struct hostfs_err *err)
{
	char at[PATH_MAX];
	struct timespec ts;

	memset(r, 0, sizeof(*r));
	r->dirfd = dirfd;
	r->fd = -1;
	snprintf(r->shown, sizeof(r->shown), "%s", shown ? shown : "");
	join(at, sizeof(at), shown, name);
	if (!one_name(name) || strlen(name) > NAME_MAX - 24)
		return fail(err, -EINVAL, "%s: not one file name, or too long", at);
	snprintf(r->name, sizeof(r->name), "%s", name);
	/* a name nobody can guess, made O_EXCL: a link or file planted at
	 * the usual `NAME.tmp` is never met */
	for (unsigned i = 0; i < 64; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		/* up to 33 bytes around the name: a cut one would lose `.tmp` */
		if (sbx_path_fmt(r->tmp, sizeof(r->tmp), ".%s.%d.%lx.tmp", name, (int)getpid(),
				 ((unsigned long)ts.tv_nsec * 2654435761u) ^ (unsigned long)i))
			return fail(err, -ENAMETOOLONG, "%s: the name is too long", at);
		r->fd = open_leaf(dirfd, r->tmp, O_WRONLY | O_CREAT | O_EXCL, mode);
		if (r->fd >= 0 || errno != EEXIST)
			break;
	}
	if (r->fd < 0) {
		int e = errno;
		r->tmp[0] = '\0';
		return fail(err, -e, "cannot create a temporary file next to %s: %s", at,
			    strerror(e));
	}
	return 0;
}

int hostfs_replace_commit(struct hostfs_replace *r, struct hostfs_err *err)
{
	char at[PATH_MAX];
	int rc = 0;

	join(at, sizeof(at), r->shown, r->name);
	if (r->fd < 0 || !r->tmp[0])
		return fail(err, -EBADF, "%s: nothing to replace it with", at);
	if (!r->nosync && fsync(r->fd))
		rc = fail(err, -errno, "cannot write %s: %s", at, strerror(errno));
	if (close(r->fd) && !rc)
		rc = fail(err, -errno, "cannot write %s: %s", at, strerror(errno));
	r->fd = -1;
	if (!rc && renameat(r->dirfd, r->tmp, r->dirfd, r->name))
		rc = fail(err, -errno, "cannot put %s in place: %s", at, strerror(errno));
	if (rc) {
		hostfs_replace_abort(r);
		return rc;
	}
	r->tmp[0] = '\0';
	if (!r->nosync)
		fsync(r->dirfd); /* the rename itself, on disk (best effort) */
	return 0;
}

void hostfs_replace_abort(struct hostfs_replace *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	if (r->tmp[0])
		unlinkat(r->dirfd, r->tmp, 0);
	r->tmp[0] = '\0';
}

int hostfs_trust_path(const char *path, int keep_last, char *out, size_t outsz)
{
	char norm[PATH_MAX], head[PATH_MAX], real[PATH_MAX];
	const char *last = NULL;
	size_t cut;

	if (!path || path[0] != '/' || path_join("/", path, norm, sizeof(norm)))
		return -EINVAL;
	snprintf(head, sizeof(head), "%s", norm);
	if (keep_last && strcmp(norm, "/")) {
		last = strrchr(norm, '/') + 1;
		cut = (size_t)(last - norm) - 1;
		head[cut ? cut : 1] = '\0';
	}
	/* the longest part that exists, resolved; the rest as written */
	cut = strlen(head);
	for (;;) {
		char save = head[cut];
		head[cut] = '\0';
		if (realpath(cut ? head : "/", real)) {
			head[cut] = save;
			break;
		}
		int e = errno;
		head[cut] = save;
		if (e != ENOENT && e != ENOTDIR)
			return -e;
		while (cut > 0 && head[cut - 1] != '/')
			cut--;
		if (cut > 0)
			cut--;
	}
	char base[PATH_MAX * 2];
	int n;
	if (!strcmp(real, "/") && head[cut])
		snprintf(base, sizeof(base), "%s", head + cut);
	else
		snprintf(base, sizeof(base), "%s%s", real, head + cut);
	if (last)
		n = snprintf(out, outsz, "%s%s%s", base, strcmp(base, "/") ? "/" : "", last);
	else
		n = snprintf(out, outsz, "%s", base);
	return n < 0 || (size_t)n >= outsz ? -ENAMETOOLONG : 0;
}
