/* policy/path.c: lexical path handling for rules. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>
#include <fcntl.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif
#include <uthash.h>

#include "policy/internal.h"

/* Append the components of `p` to out[0..*o), folding `.`, `..` and `//`. */
static int fold(const char *p, char *out, size_t *o, size_t outsz)
{
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		const char *e = strchrnul(p, '/');
		size_t n = (size_t)(e - p);

		if (n == 1 && p[0] == '.') {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			/* `..` of `/` is `/`, as the kernel has it. */
			while (*o > 1 && out[*o - 1] != '/')
				(*o)--;
			if (*o > 1)
				(*o)--;
		} else {
			if (*o + n + 2 > outsz)
				return -ENAMETOOLONG;
			if (*o > 1)
				out[(*o)++] = '/';
			memcpy(out + *o, p, n);
			*o += n;
		}
		p = e;
	}
	return 0;
}

/* Already absolute and normal: no `//`, no `.` or `..` component, no
 * trailing `/`. Then it is copied as it is (the common case in the shim). */
static bool is_normal(const char *p, size_t *len)
{
	const char *s = p;

	if (*s != '/')
		return false;
	for (; *s; s++) {
		if (*s != '/')
			continue;
		if (s[1] == '/' || (s[1] == '\0' && s != p))
			return false;
		if (s[1] == '.' && (s[2] == '/' || s[2] == '\0' ||
				    (s[2] == '.' && (s[3] == '/' || s[3] == '\0'))))
			return false;
	}
	*len = (size_t)(s - p);
	return true;
}

bool path_is_normal(const char *p, size_t len)
{
	size_t n;

	return is_normal(p, &n) && n == len;
}

int path_join(const char *base, const char *rel, char *out, size_t outsz)
{
	size_t o = 0, n;

	if (rel[0] == '/') {
		if (is_normal(rel, &n)) {
			if (n + 1 > outsz)
				return -ENAMETOOLONG;
			memcpy(out, rel, n + 1);
			return 0;
		}
		base = NULL;
	}
	if (outsz < 2 || (base ? base[0] : rel[0]) != '/')
		return -EINVAL;
	out[o++] = '/';
	if ((base && fold(base, out, &o, outsz)) || fold(rel, out, &o, outsz))
		return -ENAMETOOLONG;
	out[o] = '\0';
	return 0;
}

int path_join_normal(const char *base, size_t blen, const char *rel, char *out,
		     size_t outsz)
{
	size_t o = blen;

	if (rel[0] == '/')
		return path_join(NULL, rel, out, outsz);
	if (blen < 1 || base[0] != '/' || blen + 2 > outsz)
		return -EINVAL;
	memcpy(out, base, blen);
	if (fold(rel, out, &o, outsz))
		return -ENAMETOOLONG;
	out[o] = '\0';
	return 0;
}

int path_normalize(const char *in, char *out, size_t outsz)
{
	return path_join(NULL, in, out, outsz);
}

int path_expand(const char *value, const char *home, const char *base,
		char *out, size_t outsz)
{
	char tmp[PATH_MAX * 2];
	int n;

	if (value[0] == '~' && (value[1] == '\0' || value[1] == '/'))
		n = snprintf(tmp, sizeof(tmp), "%s/%s", home, value + 1);
	else if (value[0] == '/')
		n = snprintf(tmp, sizeof(tmp), "%s", value);
	else
		n = snprintf(tmp, sizeof(tmp), "%s/%s", base, value);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -ENAMETOOLONG;
	return path_normalize(tmp, out, outsz);
}

/* readlink()'s answer for one path: a link's target, or the errno
 * (EINVAL: there, not a link; ENOENT: missing) */
struct path_look {
	char *target;
	int err;
	bool ask; /* listed as a link or of an unknown type: readlink() it */
	UT_hash_handle hh;
	char path[];
};

/* a directory whose children were looked up: how many, and whether its
 * listing is in `looks` (a name not there is missing) */
struct path_dir {
	unsigned asked;
	bool listed, tried;
	UT_hash_handle hh;
	char path[];
};

/* A directory is listed once this many of its names were asked about
 * (HOME, ~/.config: the tables' rows), and not when it holds more names
 * than one getdents64() of LIST_BUF bytes returns (a listing then costs
 * more than the look-ups it saves). */
#define LIST_AFTER 8
#define LIST_BUF 32768

static struct path_look *look_add(struct path_memo *m, const char *path, size_t len, int err)
{
	struct path_look *l = calloc(1, sizeof(*l) + len + 1);

	if (!l)
		return NULL;
	memcpy(l->path, path, len);
	l->err = err;
	HASH_ADD(hh, m->looks, path[0], len, l);
	return l;
}

#ifdef __linux__
/* Does dir look names up by their exact bytes, so that a name its listing
 * lacks is missing? Not where case is folded (vfat, exfat, ntfs3, SMB, a
 * casefold directory of ext4, f2fs or tmpfs, a share of a macOS host):
 * `.GIT` there is `.git`. One listed name with an ASCII letter, its case
 * swapped, must be missing (or be listed itself: then try another); none
 * such, or any other answer: not trusted. */
static bool exact_names(struct path_memo *m, const char *dir, bool root, const char *buf, long n)
{
	for (long at = 0; at < n;) {
		const struct dirent64 *e = (const struct dirent64 *)(buf + at);
		char path[PATH_MAX];
		struct path_look *l;
		char one[1];
		bool letter = false;
		int len;

		at += e->d_reclen;
		len = snprintf(path, sizeof(path), "%s/%s", root ? "" : dir, e->d_name);
		if (len < 0 || (size_t)len >= sizeof(path))
			continue;
		for (char *c = path + len - strlen(e->d_name); *c; c++)
			if ((*c | 0x20) >= 'a' && (*c | 0x20) <= 'z') {
				*c ^= 0x20;
				letter = true;
			}
		if (!letter)
			continue;
		HASH_FIND(hh, m->looks, path, (size_t)len, l);
		if (l && l->err != ENOENT)
			continue; /* `a` and `A` both there */
		/* readlink(), as every look-up here (and no other import
		 * for the shim, which links this file) */
		return (l && l->err == ENOENT) ||
		       (readlink(path, one, sizeof(one)) < 0 && errno == ENOENT);
	}
	return false;
}
#endif

/* Every name in dir as "there" (not a link: EINVAL; a link or of an
 * unknown type: asked of the kernel), when it can be listed and searched
 * (a name in a directory that cannot be searched is EACCES to readlink,
 * not missing), all of it fits one read, and its names are exact
 * (exact_names()). */
static void list_dir(struct path_memo *m, struct path_dir *d)
{
	d->tried = true;
#ifndef __linux__
	(void)m; /* getdents64 is Linux's: each name is asked of readlink() */
#else
	int fd;
	long n;

	if (access(d->path, X_OK))
		return;
	fd = open(d->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	if (!m->listing)
		m->listing = malloc(LIST_BUF);
	char *buf = m->listing;
	n = buf ? syscall(SYS_getdents64, fd, buf, LIST_BUF) : -1;
	/* all of it: the next read is at the end (a name is at most 280
	 * bytes there) */
	char more[512];
	bool all = n == 0 || (n > 0 && syscall(SYS_getdents64, fd, more, sizeof(more)) == 0);
	close(fd);
	bool root = !strcmp(d->path, "/");
	for (long at = 0; n > 0 && at < n;) {
		struct dirent64 *e = (struct dirent64 *)(buf + at);
		char path[PATH_MAX];
		size_t len;
		at += e->d_reclen;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		len = (size_t)snprintf(path, sizeof(path), "%s/%s", root ? "" : d->path, e->d_name);
		if (len >= sizeof(path))
			continue; /* too long to be asked about */
		struct path_look *l;
		HASH_FIND(hh, m->looks, path, len, l);
		if (!l && !(l = look_add(m, path, len, EINVAL)))
			n = -1;
		else if (!l->target && l->err == EINVAL)
			l->ask = e->d_type == DT_LNK || e->d_type == DT_UNKNOWN;
	}
	d->listed = all && n >= 0 && exact_names(m, d->path, root, buf, n);
#endif
}

/* The directory path[0..dlen) was asked about once more: listed when it
 * is due. NULL when out of memory. */
static struct path_dir *dir_asked(struct path_memo *m, const char *path, size_t dlen)
{
	struct path_dir *d;

	HASH_FIND(hh, m->dirs, path, dlen, d);
	if (!d && (d = calloc(1, sizeof(*d) + dlen + 1))) {
		memcpy(d->path, path, dlen);
		HASH_ADD(hh, m->dirs, path[0], dlen, d);
	}
	if (d && !d->tried && ++d->asked >= (m->list_after ? m->list_after : LIST_AFTER))
		list_dir(m, d);
	return d;
}

/* readlink(), answered from the memo when the path or its directory's
 * listing is there */
static ssize_t memo_readlink(struct path_memo *m, const char *path, size_t len, char *link,
			     size_t size)
{
	const char *slash = memrchr(path, '/', len);
	struct path_look *l = NULL;
	struct path_dir *d = NULL;

	if (!m || !slash)
		return readlink(path, link, size);
	HASH_FIND(hh, m->looks, path, len, l);
	if (!l) {
		d = dir_asked(m, path, slash == path ? 1 : (size_t)(slash - path));
		if (d && d->listed) {
			HASH_FIND(hh, m->looks, path, len, l);
			if (!l && !(l = look_add(m, path, len, ENOENT)))
				return readlink(path, link, size);
		}
	}
	if (!l || l->ask) {
		ssize_t k = readlink(path, link, size);
		int why = k < 0 ? errno : 0;
		if (!l)
			l = look_add(m, path, len, why);
		if (l) {
			l->ask = false;
			l->err = why;
			if (k >= 0 && !(l->target = strndup(link, (size_t)k)))
				l->ask = true; /* asked again next time */
		}
		errno = why;
		return k;
	}
	if (l->target) {
		size_t t = strlen(l->target);
		memcpy(link, l->target, t < size ? t : size);
		return (ssize_t)(t < size ? t : size);
	}
	errno = l->err;
	return -1;
}

bool sbx_path_missing(struct path_memo *m, const char *path)
{
	size_t len = strlen(path);
	const char *slash = memrchr(path, '/', len);
	struct path_look *l;

	if (!m || !slash || len >= PATH_MAX || !path_is_normal(path, len))
		return false;
	HASH_FIND(hh, m->looks, path, len, l);
	if (l)
		return l->err == ENOENT;
	dir_asked(m, path, slash == path ? 1 : (size_t)(slash - path));
	/* the nearest listed directory above it: the name after it is
	 * missing when the listing lacks it (then so is all below) */
	for (const char *s = slash; s; s = s > path ? memrchr(path, '/', (size_t)(s - path)) : NULL) {
		size_t dlen = s == path ? 1 : (size_t)(s - path);
		size_t clen = strcspn(s + 1, "/");
		struct path_dir *d;
		HASH_FIND(hh, m->dirs, path, dlen, d);
		if (!d || !d->listed)
			continue;
		HASH_FIND(hh, m->looks, path, (size_t)(s + 1 - path) + clen, l);
		return !l || l->err == ENOENT;
	}
	return false;
}

struct path_memo *sbx_path_memo_new(unsigned list_after)
{
	struct path_memo *m = calloc(1, sizeof(*m));

	if (m)
		m->list_after = list_after;
	return m;
}

void sbx_path_memo_free(struct path_memo *m)
{
	path_memo_free(m);
	free(m);
}

void sbx_path_resolve_memo(const char *in, char *out, size_t outsz, struct path_memo *m)
{
	path_resolve_existing(in, out, outsz, m);
}

void path_memo_free(struct path_memo *m)
{
	struct path_look *l, *lt;
	struct path_dir *d, *dt;

	if (!m)
		return;
	HASH_ITER(hh, m->looks, l, lt) {
		HASH_DEL(m->looks, l);
		free(l->target);
		free(l);
	}
	HASH_ITER(hh, m->dirs, d, dt) {
		HASH_DEL(m->dirs, d);
		free(d);
	}
	free(m->listing);
	m->listing = NULL;
}

void path_resolve_existing(const char *in, char *out, size_t outsz, struct path_memo *m)
{
	/* res: what is resolved so far, and the next name to look up after
	 * it (rl: its length without that name) */
	char res[PATH_MAX], todo[PATH_MAX * 2], link[PATH_MAX];
	size_t rl = 0, len = strlen(in);
	int links = 0;

	if (len >= sizeof(todo))
		goto as_is;
	memcpy(todo, in, len + 1);
	res[0] = '\0';
	for (char *c = todo; *c;) {
		char *end;
		while (*c == '/')
			c++;
		if (!*c)
			break;
		end = strchrnul(c, '/');
		size_t n = (size_t)(end - c);
		if (n == 1 && c[0] == '.') {
			c = end;
			continue;
		}
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			char *slash = strrchr(res, '/');
			if (slash) {
				*slash = '\0';
				rl = (size_t)(slash - res);
			}
			c = end;
			continue;
		}
		if (rl + 1 + n >= sizeof(res))
			goto as_is;
		res[rl] = '/';
		memcpy(res + rl + 1, c, n);
		res[rl + 1 + n] = '\0';
		ssize_t k = memo_readlink(m, res, rl + 1 + n, link, sizeof(link) - 1);
		int why = k < 0 ? errno : 0;
		if (k >= 0 && ++links <= 40) {
			/* follow it: its target, then what was left */
			size_t rest = strlen(end);
			res[rl] = '\0';
			if ((size_t)k + rest >= sizeof(todo))
				goto as_is;
			memmove(todo + k, end, rest + 1);
			memcpy(todo, link, (size_t)k);
			if (link[0] == '/')
				res[rl = 0] = '\0';
			c = todo;
			continue;
		}
		if (k < 0 && why == EINVAL) {
			rl += 1 + n; /* there, not a link */
			c = end;
			continue;
		}
		/* Missing (or unreadable, or a loop): the rest as written. */
		char cand[PATH_MAX * 2];
		size_t rest = strlen(c);
		if (rl + 1 + rest >= sizeof(cand))
			goto as_is;
		memcpy(cand, res, rl);
		cand[rl] = '/';
		memcpy(cand + rl + 1, c, rest + 1);
		if (path_normalize(cand, out, outsz))
			goto as_is;
		return;
	}
	if (rl == 0 && outsz > 1) {
		memcpy(out, "/", 2);
		return;
	}
	if (rl > 0 && rl < outsz) {
		memcpy(out, res, rl + 1);
		return;
	}
as_is:
	snprintf(out, outsz, "%s", in);
}

int sbx_path_fmt(char *out, size_t outsz, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(out, outsz, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < outsz)
		return 0;
	if (outsz)
		out[0] = '\0';
	return -ENAMETOOLONG;
}

/* dir's length without its trailing slashes (`/` keeps its one) */
static size_t dir_len(const char *dir, size_t dlen)
{
	while (dlen > 1 && dir[dlen - 1] == '/')
		dlen--;
	return dlen;
}

bool sbx_path_under_n(const char *path, size_t plen, const char *dir, size_t dlen)
{
	dlen = dir_len(dir, dlen);
	if (dlen == 0)
		return false;
	if (dlen == 1 && dir[0] == '/')
		return plen > 0 && path[0] == '/';
	return plen >= dlen && !memcmp(path, dir, dlen) && (plen == dlen || path[dlen] == '/');
}

bool sbx_path_under(const char *path, const char *dir)
{
	return sbx_path_under_n(path, strlen(path), dir, strlen(dir));
}

bool sbx_path_below(const char *path, const char *dir)
{
	size_t dlen = strlen(dir);

	if (!sbx_path_under(path, dir))
		return false;
	/* something after dir's own name that is not a slash */
	for (const char *r = path + dir_len(dir, dlen); *r; r++)
		if (*r != '/')
			return true;
	return false;
}

void sbx_path_tildify(const char *in, const char *home, char *out, size_t outsz)
{
	size_t h = home ? strlen(home) : 0;

	if (h > 1 && strncmp(in, home, h) == 0 && (in[h] == '/' || in[h] == '\0'))
		snprintf(out, outsz, "~%s", in + h);
	else
		snprintf(out, outsz, "%s", in);
}

void sbx_path_resolve(const char *in, char *out, size_t outsz)
{
	path_resolve_existing(in, out, outsz, NULL);
}

FILE *sbx_fopen_file(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	FILE *f;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	if (!(f = fdopen(fd, "r"))) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return f;
}
