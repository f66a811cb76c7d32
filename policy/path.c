/* policy/path.c: lexical path handling for rules. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The deepest existing prefix of `in` this walk saw, as written and as
 * resolved, for the next path that starts the same way. */
static void memo_put_as(struct path_memo *m, const char *in, size_t len, const char *res,
			bool missing)
{
	struct path_memo_entry *e;
	char *a, *b;

	if (!m || len < 2)
		return;
	for (size_t i = 0; i < m->n; i++)
		if (strlen(m->e[i].in) == len && !strncmp(m->e[i].in, in, len))
			return;
	a = strndup(in, len);
	b = strdup(res[0] ? res : "/");
	if (!a || !b) {
		free(a);
		free(b);
		return;
	}
	e = &m->e[m->n < PATH_MEMO_N ? m->n++ : (m->next++ % PATH_MEMO_N)];
	free(e->in);
	free(e->out);
	e->in = a;
	e->out = b;
	e->missing = missing;
}

static void memo_put(struct path_memo *m, const char *in, size_t len, const char *res)
{
	memo_put_as(m, in, len, res, false);
}

void path_memo_free(struct path_memo *m)
{
	for (size_t i = 0; m && i < m->n; i++) {
		free(m->e[i].in);
		free(m->e[i].out);
	}
	if (m)
		m->n = 0;
}

void path_resolve_existing(const char *in, char *out, size_t outsz, struct path_memo *m)
{
	char res[PATH_MAX] = "", todo[PATH_MAX * 2], link[PATH_MAX], cand[PATH_MAX * 2];
	size_t skip = 0, consumed = 0;
	bool spliced = false; /* todo is no longer the rest of `in` */
	int links = 0;

	/* Start from the longest directory already resolved. One known to be
	 * missing ends the walk there: the credential table's rows share a
	 * few parents (~/.gemini, ~/.config/composer), and each row would
	 * look the same missing name up again (one readlink each). */
	bool missing = false;
	for (size_t i = 0; m && i < m->n; i++) {
		size_t n = strlen(m->e[i].in);
		if (n > skip && !strncmp(in, m->e[i].in, n) && (in[n] == '/' || in[n] == '\0') &&
		    strlen(m->e[i].out) < sizeof(res)) {
			skip = n;
			missing = m->e[i].missing;
			snprintf(res, sizeof(res), "%s", strcmp(m->e[i].out, "/") ? m->e[i].out : "");
		}
	}
	if (missing) {
		if (snprintf(cand, sizeof(cand), "%s%s", res, in + skip) >= (int)sizeof(cand) ||
		    path_normalize(cand, out, outsz))
			goto as_is;
		return;
	}
	if (snprintf(todo, sizeof(todo), "%s", in + skip) >= (int)sizeof(todo))
		goto as_is;
	consumed = skip;
	for (char *c = todo; *c;) {
		char *end;
		while (*c == '/')
			c++;
		if (!*c)
			break;
		end = strchrnul(c, '/');
		size_t n = (size_t)(end - c);
		if (!spliced)
			consumed = (size_t)(end - todo) + skip;
		if (n == 1 && c[0] == '.') {
			c = end;
			continue;
		}
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			char *slash = strrchr(res, '/');
			if (slash)
				*slash = '\0';
			c = end;
			continue;
		}
		if (snprintf(cand, sizeof(cand), "%s/%.*s", res, (int)n, c) >= (int)sizeof(res))
			goto as_is;
		ssize_t k = readlink(cand, link, sizeof(link) - 1);
		int why = k < 0 ? errno : 0;
		if (k >= 0 && ++links <= 40) {
			/* follow it: its target, then what was left */
			char next[PATH_MAX * 2];
			link[k] = '\0';
			if (snprintf(next, sizeof(next), "%s%s", link, end) >= (int)sizeof(next))
				goto as_is;
			if (link[0] == '/')
				res[0] = '\0';
			snprintf(todo, sizeof(todo), "%s", next);
			spliced = true;
			c = todo;
			continue;
		}
		if (k < 0 && why == EINVAL) {
			memcpy(res, cand, strlen(cand) + 1); /* there, not a link */
			c = end;
			continue;
		}
		/* Missing (or unreadable, or a loop): the rest as written. */
		if (!spliced)
			consumed = (size_t)(c - todo) + skip;
		if (snprintf(cand, sizeof(cand), "%s/%s", res, c) >= (int)sizeof(cand) ||
		    path_normalize(cand, out, outsz))
			goto as_is;
		if (!spliced) {
			memo_put(m, in, consumed > 0 ? consumed - 1 : 0, res);
			/* and the missing name itself */
			if (k < 0 && why == ENOENT) {
				char gone[PATH_MAX * 2];
				snprintf(gone, sizeof(gone), "%s/%.*s", res, (int)n, c);
				memo_put_as(m, in, (size_t)(end - todo) + skip, gone, true);
			}
		}
		return;
	}
	if (!spliced) {
		/* and its directory, which the next rule likely shares */
		const char *slash = strrchr(in, '/'), *rslash = strrchr(res, '/');
		if (slash && rslash && !strcmp(slash, rslash)) {
			char dir[PATH_MAX];
			snprintf(dir, sizeof(dir), "%.*s", (int)(rslash - res), res);
			memo_put(m, in, (size_t)(slash - in), dir);
		}
		memo_put(m, in, strlen(in), res);
	}
	if (snprintf(out, outsz, "%s", res[0] ? res : "/") < (int)outsz)
		return;
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
