/* preload/gitprov.c: the linked worktrees sandboxed runs made
 * (gitprov.h says why). The record is `<state>/worktrees-made`, one line
 * per entry: the device, inode and ctime (seconds, nanoseconds) of its
 * `gitdir` file, then its path (%-encoded where not printable). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/gitprov.h"
#include "common/hostfs.h"
#include "preload/preload.h"

#define RECORD "worktrees-made"
/* no record of ours grows this long; past it, the rest is not read (a
 * later run then trusts those entries again: said once) */
#define RECORD_MAX (4u << 20)

struct made {
	unsigned long long dev, ino;
	long long sec;
	long nsec;
};

struct gitprov {
	struct made *v;
	size_t n, cap;
	bool said;
};

static int add(struct gitprov *g, const struct made *m)
{
	if (g->n == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 16;
		struct made *nv = realloc(g->v, cap * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		g->v = nv;
		g->cap = cap;
	}
	g->v[g->n++] = *m;
	return 0;
}

static bool known(const struct gitprov *g, const struct made *m)
{
	for (size_t i = 0; i < g->n; i++)
		if (g->v[i].dev == m->dev && g->v[i].ino == m->ino && g->v[i].sec == m->sec &&
		    g->v[i].nsec == m->nsec)
			return true;
	return false;
}

/* The identity of `<entry>/gitdir`, without following a link. */
static bool identity(const char *entry, struct made *m, struct stat *st)
{
	char f[PATH_MAX + 16];

	if (snprintf(f, sizeof(f), "%s/gitdir", entry) >= (int)sizeof(f) ||
	    lstat(f, st))
		return false;
	m->dev = (unsigned long long)st->st_dev;
	m->ino = (unsigned long long)st->st_ino;
	m->sec = (long long)st->st_ctim.tv_sec;
	m->nsec = st->st_ctim.tv_nsec;
	return true;
}

int gitprov_load(const char *state_dir, struct gitprov **out)
{
	struct gitprov *g = calloc(1, sizeof(*g));
	char *buf = NULL;
	size_t len = 0;
	int dfd = -1, fd = -1;

	if (!g)
		return -ENOMEM;
	*out = g;
	if (!state_dir || (dfd = hostfs_dir_open(state_dir, HOSTFS_MINE, NULL)) < 0)
		return 0;
	fd = openat(dfd, RECORD, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	close(dfd);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || !(buf = malloc(RECORD_MAX + 1)))
		goto out;
	for (ssize_t r; len < RECORD_MAX && (r = read(fd, buf + len, RECORD_MAX - len)) != 0;) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		len += (size_t)r;
	}
	buf[len] = '\0';
	for (char *line = buf, *next; line && *line; line = next) {
		struct made m;
		if (!(next = strchr(line, '\n')))
			break; /* a torn last line */
		*next++ = '\0';
		if (sscanf(line, "%llu %llu %lld %ld", &m.dev, &m.ino, &m.sec, &m.nsec) == 4 &&
		    add(g, &m)) {
			free(buf);
			close(fd);
			return -ENOMEM;
		}
	}
out:
	free(buf);
	if (fd >= 0)
		close(fd);
	return 0;
}

void gitprov_free(struct gitprov *g)
{
	if (!g)
		return;
	free(g->v);
	free(g);
}

bool gitprov_made_inside(void *arg, const char *gd)
{
	struct gitprov *g = arg;
	struct made m;
	struct stat st;
	char common[PATH_MAX];

	if (!g || !identity(gd, &m, &st) || !known(g, &m))
		return false;
	if (!g->said) {
		/* <common>/worktrees/<id> */
		snprintf(common, sizeof(common), "%s", gd);
		for (int i = 0; i < 2; i++) {
			char *slash = strrchr(common, '/');
			if (slash && slash != common)
				*slash = '\0';
		}
		msg("the linked worktree %s was made or changed inside a sandbox, so its "
		    "repository's git directory %s is not made writable here (git commit "
		    "will fail); if you made it, open it with --allow-write %s", gd, common,
		    common);
		g->said = true;
	}
	return true;
}

/* One line for an entry, its path %-encoded where not printable. */
static int line_for(const struct made *m, const char *path, char *out, size_t outsz)
{
	int n = snprintf(out, outsz, "%llu %llu %lld %ld ", m->dev, m->ino, m->sec, m->nsec);

	for (const unsigned char *p = (const unsigned char *)path; *p && n + 5 < (int)outsz; p++)
		n += *p <= ' ' || *p == '%' || *p == 0x7f ?
		     snprintf(out + n, outsz - (size_t)n, "%%%02X", *p) :
		     snprintf(out + n, outsz - (size_t)n, "%c", *p);
	if (n + 2 > (int)outsz)
		return -ENAMETOOLONG;
	out[n++] = '\n';
	out[n] = '\0';
	return n;
}

static bool since_or_after(const struct timespec *t, const struct timespec *since)
{
	return t->tv_sec > since->tv_sec ||
	       (t->tv_sec == since->tv_sec && t->tv_nsec >= since->tv_nsec);
}

void gitprov_note(struct gitprov *g, int state_fd, const char *state_dir,
		  char *const *gitdirs, size_t n, const struct timespec *since)
{
	struct hostfs_err err;
	int fd = -1;

	if (!g || state_fd < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		char dir[PATH_MAX];
		DIR *d;
		struct dirent *e;

		if (snprintf(dir, sizeof(dir), "%s/worktrees", gitdirs[i]) >= (int)sizeof(dir) ||
		    !(d = opendir(dir)))
			continue;
		while ((e = readdir(d))) {
			char entry[PATH_MAX], line[PATH_MAX * 3 + 96];
			struct stat st;
			struct made m;
			int len;

			if (e->d_name[0] == '.' ||
			    snprintf(entry, sizeof(entry), "%s/%s", dir, e->d_name) >= (int)sizeof(entry) ||
			    !identity(entry, &m, &st) || known(g, &m))
				continue;
			/* its gitdir made or written during the run (git writes
			 * it at `worktree add`, `move` and `repair`, never while
			 * working in the worktree: the entry's directory changes
			 * then, so its times say nothing) */
			if (!since_or_after(&st.st_ctim, since))
				continue;
			if ((len = line_for(&m, entry, line, sizeof(line))) < 0)
				continue;
			if (fd < 0 && (fd = hostfs_append(state_fd, state_dir, RECORD, 0600, &err)) < 0) {
				msg("cannot record the linked worktrees this run made: %s", err.msg);
				closedir(d);
				return;
			}
			if (write(fd, line, (size_t)len) != len || add(g, &m))
				break;
		}
		closedir(d);
	}
	if (fd >= 0)
		close(fd);
}
