/* preload/standin.c: stand-ins made, recorded, shared and removed
 * (standin.h says what they are and why).
 *
 * sbx-preload runs on the host, unsandboxed, and the directories stand-ins
 * go in are writable by sandboxed programs (this run's, or another's that
 * runs at the same time). So every step goes through a descriptor of the
 * parent directory, reached from `/` one component at a time without
 * following a link, and checked against the identity recorded when the
 * stand-in was made; a name is only ever created (symlinkat, which never
 * follows) or removed (unlinkat) inside that directory, after checking it is
 * still exactly our link. Nothing outside the verified parent can be
 * reached, whatever the program renames or links meanwhile.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/hostfs.h"
#include "preload/standin.h"
#include "preload/preload.h"

/* One line of a record: what kind, where (the parent's identity and the
 * path), and which link (its identity, and the run its text names). */
struct entry {
	char kind;          /* 'S' about to be made, 'M' made, 'A' adopted */
	dev_t pdev, dev;
	ino_t pino, ino;
	char run[96];       /* the run the link's text names */
	char path[PATH_MAX];
};

struct standins {
	int dirfd;          /* <state>/standins */
	int recfd;          /* our record, flock'd LOCK_EX for our whole life */
	char run_id[96];
	char recname[128];
	struct entry *own;  /* made or adopted by this run */
	size_t nown;
	bool released;
};

/* ---- walking without links: hostfs.h */

/* The directory at the absolute path `dir`, from `/`, without links. In
 * the user's tree, so any owner: what matters is that no link is met. */
static int open_parent(const char *dir)
{
	return hostfs_dir_open(dir, HOSTFS_ANYOWNER, NULL);
}

/* ---- records */

static void encode(const char *in, char *out, size_t outsz)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)in; *p && o + 4 < outsz; p++) {
		if (*p <= ' ' || *p == '%' || *p == 0x7f) {
			out[o++] = '%';
			out[o++] = hex[*p >> 4];
			out[o++] = hex[*p & 15];
		} else {
			out[o++] = (char)*p;
		}
	}
	out[o] = '\0';
}

static int unhex(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static bool decode(const char *in, char *out, size_t outsz)
{
	size_t o = 0;

	for (const char *p = in; *p; p++) {
		if (o + 1 >= outsz)
			return false;
		if (*p == '%') {
			int a = unhex(p[1]), b = a < 0 ? -1 : unhex(p[2]);
			if (b < 0 || (a == 0 && b == 0))
				return false;
			out[o++] = (char)(a * 16 + b);
			p += 2;
		} else {
			out[o++] = *p;
		}
	}
	out[o] = '\0';
	return o > 1 && out[0] == '/';
}

static int record_add(struct standins *s, const struct entry *e)
{
	char enc[PATH_MAX * 3 + 1], line[PATH_MAX * 3 + 256];

	encode(e->path, enc, sizeof(enc));
	int n = snprintf(line, sizeof(line), "%c %llu %llu %llu %llu %s %s\n", e->kind,
			 (unsigned long long)e->pdev, (unsigned long long)e->pino,
			 (unsigned long long)e->dev, (unsigned long long)e->ino, e->run, enc);
	if (n < 0 || (size_t)n >= sizeof(line))
		return -ENAMETOOLONG;
	/* one write per line, O_APPEND: a line is whole or absent */
	if (write(s->recfd, line, (size_t)n) != n)
		return errno ? -errno : -EIO;
	return 0;
}

/* Every well-formed line of the record on fd; malformed ones are skipped
 * (a record is ours, in a directory the sandbox cannot write, but it is
 * read as if it were not). */
static int record_read(int fd, struct entry **out, size_t *nout)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	struct entry *v = NULL;
	size_t n = 0;

	*out = NULL;
	*nout = 0;
	for (;;) {
		if (cap - len < 4096) {
			if (cap > (1u << 22))
				break; /* no record of ours is that long */
			char *nb = realloc(buf, cap = cap ? cap * 2 : 8192);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		ssize_t r = pread(fd, buf + len, cap - len - 1, (off_t)len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	if (!buf)
		return 0;
	buf[len] = '\0';
	for (char *line = buf, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (!next)
			break; /* a torn last line */
		*next++ = '\0';
		struct entry e = { 0 };
		unsigned long long pdev, pino, dev, ino;
		char run[96], enc[PATH_MAX * 3 + 1];
		if (sscanf(line, "%c %llu %llu %llu %llu %95s %12287s", &e.kind, &pdev, &pino,
			   &dev, &ino, run, enc) != 7 || !strchr("SMA", e.kind) ||
		    !decode(enc, e.path, sizeof(e.path)))
			continue;
		e.pdev = (dev_t)pdev;
		e.pino = (ino_t)pino;
		e.dev = (dev_t)dev;
		e.ino = (ino_t)ino;
		snprintf(e.run, sizeof(e.run), "%s", run);
		struct entry *nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv) {
			free(v);
			free(buf);
			return -ENOMEM;
		}
		v = nv;
		v[n++] = e;
	}
	free(buf);
	*out = v;
	*nout = n;
	return 0;
}

/* ---- one stand-in */

static void link_text(const char *run, char *out, size_t outsz)
{
	snprintf(out, outsz, "%s%s", STANDIN_TARGET, run);
}

/* Split a real path into its parent's descriptor and its last name. */
static int split(const char *path, int *dirfd, const char **name)
{
	char parent[PATH_MAX];

	if (hostfs_split(path, parent, sizeof(parent), name))
		return -EINVAL;
	*dirfd = open_parent(parent);
	return *dirfd < 0 ? *dirfd : 0;
}

/* Is `name` in dirfd exactly the link entry `e` describes? With the
 * identity when the line has one ('M', 'A'); an 'S' line (made, or about to
 * be, when the run died) by the link's text alone, which names that run. */
static bool is_ours(int dirfd, const char *name, const struct entry *e)
{
	struct stat st, dst;
	char want[160], got[160];

	if (fstat(dirfd, &dst) || dst.st_dev != e->pdev || dst.st_ino != e->pino)
		return false;
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISLNK(st.st_mode))
		return false;
	if (e->kind != 'S' && (st.st_dev != e->dev || st.st_ino != e->ino))
		return false;
	link_text(e->run, want, sizeof(want));
	ssize_t n = readlinkat(dirfd, name, got, sizeof(got) - 1);
	if (n < 0)
		return false;
	got[n] = '\0';
	return !strcmp(got, want);
}

/* Remove the stand-in `e` describes, if it is still exactly that. */
static bool remove_one(const struct entry *e)
{
	const char *name;
	int dirfd;
	bool done = false;

	if (split(e->path, &dirfd, &name))
		return false;
	/* The check and the unlink are in one directory we hold: whatever a
	 * program renames in between, only a name in this directory (which
	 * it may write anyway) can be affected, never a path elsewhere. */
	if (is_ours(dirfd, name, e))
		done = unlinkat(dirfd, name, 0) == 0;
	close(dirfd);
	return done;
}

/* ---- the records of other runs */

struct others {
	struct entry *live;   /* every entry of every live run but us */
	size_t nlive;
};

static bool same_link(const struct entry *a, const struct entry *b)
{
	return a->kind != 'S' && b->kind != 'S' && a->dev == b->dev && a->ino == b->ino;
}

static bool relied_on(const struct others *o, const struct entry *e)
{
	for (size_t i = 0; i < o->nlive; i++)
		if (same_link(&o->live[i], e) ||
		    (o->live[i].kind == 'S' && !strcmp(o->live[i].path, e->path)))
			return true;
	return false;
}

static int append_entries(struct others *o, const struct entry *v, size_t n)
{
	if (!n)
		return 0;
	struct entry *nv = realloc(o->live, (o->nlive + n) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	memcpy(nv + o->nlive, v, n * sizeof(*v));
	o->live = nv;
	o->nlive += n;
	return 0;
}

/* Under the lock: read every record but `self`. A dead run's (its lock can
 * be taken) stand-ins are removed unless a live run relies on them, then
 * its record; `say` hears of each removal. Live runs' entries stay in *o. */
static int sweep(int dirfd, const char *self, struct others *o,
		 void (*say)(void *ctx, const char *path, const char *run), void *ctx)
{
	struct dead {
		char name[128];
		struct entry *v;
		size_t n;
	} *dead = NULL;
	size_t ndead = 0;
	/* a descriptor of its own: a dup() would share (and leave at the
	 * end) the directory's read position */
	int fd2 = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), removed = 0, rc = 0;
	DIR *d = fd2 >= 0 ? fdopendir(fd2) : NULL;
	struct dirent *de;

	if (!d) {
		if (fd2 >= 0)
			close(fd2);
		return -errno;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || !strcmp(de->d_name, "lock") ||
		    (self && !strcmp(de->d_name, self)) || strlen(de->d_name) >= 128)
			continue;
		int fd = openat(dirfd, de->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		struct stat st;
		if (fd < 0)
			continue;
		if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
			close(fd);
			continue;
		}
		bool alive = flock(fd, LOCK_SH | LOCK_NB) != 0;
		struct entry *v;
		size_t n;
		if (record_read(fd, &v, &n)) {
			close(fd);
			rc = -ENOMEM;
			break;
		}
		close(fd);
		if (alive) {
			rc = append_entries(o, v, n);
			free(v);
			if (rc)
				break;
			continue;
		}
		struct dead *nd = realloc(dead, (ndead + 1) * sizeof(*nd));
		if (!nd) {
			free(v);
			rc = -ENOMEM;
			break;
		}
		dead = nd;
		snprintf(dead[ndead].name, sizeof(dead[ndead].name), "%s", de->d_name);
		dead[ndead].v = v;
		dead[ndead++].n = n;
	}
	closedir(d);
	/* Only after every live run is known: a stand-in a dead run made may
	 * be one a live run took over. */
	for (size_t i = 0; i < ndead; i++) {
		for (size_t j = 0; !rc && j < dead[i].n; j++) {
			const struct entry *e = &dead[i].v[j];
			if (e->kind == 'S' && j + 1 < dead[i].n && dead[i].v[j + 1].kind == 'M' &&
			    !strcmp(dead[i].v[j + 1].path, e->path))
				continue; /* its 'M' line follows */
			if (relied_on(o, e))
				continue;
			if (remove_one(e)) {
				removed++;
				if (say)
					say(ctx, e->path, e->run);
			}
		}
		if (!rc)
			unlinkat(dirfd, dead[i].name, 0);
		free(dead[i].v);
	}
	free(dead);
	return rc ? rc : removed;
}

/* ---- the record directory */

/* <state>/standins, below the held state directory. */
static int open_records(int state_fd, bool create)
{
	return hostfs_dir_openat(state_fd, NULL, "standins",
				 HOSTFS_MINE | (create ? HOSTFS_CREATE : 0), NULL);
}

/* The lock every change to the records is made under. The sandbox cannot
 * write the state directory, but a program of the user's can still open
 * the lock file and flock() it (a lock needs no write access): so never
 * wait for it forever. -ETIMEDOUT after STANDIN_LOCK_WAIT_MS. */
static int lock_records(int dirfd)
{
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	int fd = hostfs_append(dirfd, NULL, "lock", 0600, NULL);

	if (fd < 0)
		return fd;
	for (unsigned waited = 0; flock(fd, LOCK_EX | LOCK_NB); waited += 10) {
		int e = errno;
		if (e != EWOULDBLOCK && e != EINTR) {
			close(fd);
			return -e;
		}
		if (waited >= STANDIN_LOCK_WAIT_MS) {
			close(fd);
			return -ETIMEDOUT;
		}
		nanosleep(&pause, NULL);
	}
	return fd;
}

int standins_open(int state_fd, const char *run_id, unsigned *cleaned,
		  struct standins **out)
{
	struct standins *s = calloc(1, sizeof(*s));
	struct others o = { 0 };
	int rc, lock = -1;

	*out = NULL;
	*cleaned = 0;
	if (!s)
		return -ENOMEM;
	s->dirfd = s->recfd = -1;
	if (strchr(run_id, '/') || run_id[0] == '.' || !strcmp(run_id, "lock") ||
	    strlen(run_id) >= sizeof(s->run_id)) {
		rc = -EINVAL;
		goto fail;
	}
	snprintf(s->run_id, sizeof(s->run_id), "%s", run_id);
	snprintf(s->recname, sizeof(s->recname), "%s", run_id);
	s->dirfd = open_records(state_fd, true);
	if (s->dirfd < 0) {
		rc = s->dirfd;
		goto fail;
	}
	/* Under the lock, so no sweep of another run's can find our record
	 * before it is locked (and take us for dead); what dead runs left is
	 * removed first (a dead run of the same id too). */
	if ((lock = lock_records(s->dirfd)) < 0) {
		rc = lock;
		goto fail;
	}
	rc = sweep(s->dirfd, NULL, &o, NULL, NULL);
	free(o.live);
	if (rc < 0)
		goto fail;
	*cleaned = (unsigned)rc;
	s->recfd = hostfs_create(s->dirfd, NULL, s->recname, 0600, NULL);
	if (s->recfd < 0) {
		rc = s->recfd;
		goto fail;
	}
	/* one write per line, O_APPEND: a line is whole or absent */
	if (fcntl(s->recfd, F_SETFL, O_APPEND) || flock(s->recfd, LOCK_EX | LOCK_NB)) {
		rc = -errno;
		goto fail;
	}
	close(lock);
	*out = s;
	return 0;
fail:
	if (lock >= 0)
		close(lock);
	s->released = true; /* nothing of ours to remove */
	standins_free(s);
	return rc;
}

bool standin_looks_like(const char *path)
{
	char got[160];
	ssize_t n = readlink(path, got, sizeof(got) - 1);

	if (n <= 0)
		return false;
	got[n] = '\0';
	return !strncmp(got, STANDIN_TARGET, strlen(STANDIN_TARGET));
}

static int keep(struct standins *s, const struct entry *e)
{
	struct entry *nv = realloc(s->own, (s->nown + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	s->own = nv;
	s->own[s->nown++] = *e;
	return 0;
}

/* Is the directory dirfd ours? Then COMMAND could chmod it writable and
 * create the name, so a refusal to us is no guard. */
static bool own_dir(int dirfd)
{
	struct stat st;

	return fstat(dirfd, &st) != 0 || st.st_uid == geteuid();
}

/* One stand-in at `path`: made, taken over from a live run, or found to be
 * something else (kept, and bound as it is). */
static int make_one(struct standins *s, const struct others *o, const char *path,
		    char *state)
{
	struct entry e = { .kind = 'S' };
	struct stat st, dst;
	const char *name;
	char text[160];
	int dirfd, rc;

	rc = split(path, &dirfd, &name);
	if (rc)
		return rc;
	if (fstat(dirfd, &dst)) {
		rc = -errno;
		goto out;
	}
	e.pdev = dst.st_dev;
	e.pino = dst.st_ino;
	snprintf(e.path, sizeof(e.path), "%s", path);
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		/* a live run's stand-in: rely on it too, so that run leaves it
		 * when it ends and we remove it when we do */
		ssize_t n = S_ISLNK(st.st_mode) ? readlinkat(dirfd, name, text, sizeof(text) - 1) : -1;
		*state = PLACEHOLDER_THERE;
		if (n > (ssize_t)strlen(STANDIN_TARGET)) {
			text[n] = '\0';
			struct entry a = e;
			a.kind = 'A';
			a.dev = st.st_dev;
			a.ino = st.st_ino;
			const char *run = text + strlen(STANDIN_TARGET);
			size_t rl = strlen(run);
			if (rl < sizeof(a.run)) {
				memcpy(a.run, run, rl + 1);
			}
			if (!strncmp(text, STANDIN_TARGET, strlen(STANDIN_TARGET)) &&
			    rl < sizeof(a.run) && relied_on(o, &a)) {
				rc = record_add(s, &a);
				if (!rc)
					rc = keep(s, &a);
			}
		}
		goto out;
	}
	if (errno != ENOENT) {
		rc = -errno;
		goto out;
	}
	/* The intent first: if we die between the two lines, the link's text
	 * (which names this run) is enough to know it for ours. */
	snprintf(e.run, sizeof(e.run), "%s", s->run_id);
	link_text(s->run_id, text, sizeof(text));
	if ((rc = record_add(s, &e)))
		goto out;
	if (symlinkat(text, dirfd, name)) {
		rc = -errno;
		if (errno == EEXIST) { /* made meanwhile, from outside */
			*state = PLACEHOLDER_THERE;
			rc = 0;
		} else if (errno == EROFS || ((errno == EACCES || errno == EPERM) &&
					     !own_dir(dirfd))) {
			/* we may not create it, nor make its directory
			 * writable: neither may COMMAND (same user, no
			 * capability) */
			*state = PLACEHOLDER_SKIP;
			rc = 0;
		}
		goto out;
	}
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		rc = -errno;
		goto out;
	}
	e.kind = 'M';
	e.dev = st.st_dev;
	e.ino = st.st_ino;
	rc = record_add(s, &e);
	if (!rc)
		rc = keep(s, &e);
	if (rc)
		remove_one(&e);
	else
		*state = PLACEHOLDER_MADE;
out:
	close(dirfd);
	return rc;
}

int standins_make(struct standins *s, char *const *paths, size_t n, char *states,
		  const char **failed)
{
	struct others o = { 0 };
	int rc, lock;

	*failed = NULL;
	lock = lock_records(s->dirfd);
	if (lock < 0)
		return lock;
	/* the live runs' stand-ins, to be taken over where we meet them */
	rc = sweep(s->dirfd, s->recname, &o, NULL, NULL);
	rc = rc < 0 ? rc : 0;
	for (size_t i = 0; i < n && !rc; i++) {
		rc = make_one(s, &o, paths[i], &states[i]);
		if (rc)
			*failed = paths[i];
	}
	states[n] = '\0';
	free(o.live);
	if (rc) {
		/* fail closed, and leave nothing: the run will not start */
		for (size_t i = s->nown; i-- > 0;)
			if (s->own[i].kind == 'M')
				remove_one(&s->own[i]);
		s->nown = 0;
	}
	close(lock); /* releases the lock */
	return rc;
}

void standins_release(struct standins *s)
{
	struct others o = { 0 };

	if (!s || s->released || s->dirfd < 0)
		return;
	s->released = true;
	/* Nothing made or relied on (always so with the notify layer, which
	 * refuses those names instead): the record is empty, and removing it
	 * needs no lock. A sweep that meets it first finds it locked by us,
	 * alive and naming nothing; one that meets it after finds no file.
	 * (Dead runs' leftovers wait for the next start's sweep.) On the way
	 * out of every run: about a dozen system calls fewer. */
	if (!s->nown) {
		unlinkat(s->dirfd, s->recname, 0);
		return;
	}
	int lock = lock_records(s->dirfd);
	if (lock < 0)
		return; /* the record stays: the next run cleans up */
	/* What another live run relies on stays: that run removes it. Dead
	 * runs' leftovers are swept on the way. */
	if (sweep(s->dirfd, s->recname, &o, NULL, NULL) >= 0) {
		for (size_t i = s->nown; i-- > 0;)
			if (!relied_on(&o, &s->own[i]))
				remove_one(&s->own[i]);
		unlinkat(s->dirfd, s->recname, 0);
	}
	free(o.live);
	close(lock);
}

void standins_free(struct standins *s)
{
	if (!s)
		return;
	standins_release(s);
	if (s->recfd >= 0)
		close(s->recfd);
	if (s->dirfd >= 0)
		close(s->dirfd);
	free(s->own);
	free(s);
}

int standins_cleanup(int state_fd,
		     void (*say)(void *ctx, const char *path, const char *run), void *ctx)
{
	struct others o = { 0 };
	int dirfd = open_records(state_fd, false), rc;

	if (dirfd == -ENOENT)
		return 0; /* no run ever kept a record here */
	if (dirfd < 0)
		return dirfd;
	int lock = lock_records(dirfd);
	if (lock < 0) {
		close(dirfd);
		return lock;
	}
	rc = sweep(dirfd, NULL, &o, say, ctx);
	free(o.live);
	close(lock);
	close(dirfd);
	return rc;
}
