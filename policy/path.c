/* policy/path.c: lexical path handling for rules. */
#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

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

void path_resolve_existing(const char *in, char *out, size_t outsz)
{
	char head[PATH_MAX];
	size_t len = strlen(in);

	if (len >= sizeof(head) || outsz < len + 1) {
		snprintf(out, outsz, "%s", in);
		return;
	}
	memcpy(head, in, len + 1);
	/* Walk back from the whole path to `/` until a prefix resolves. */
	for (size_t cut = len;;) {
		char real[PATH_MAX];

		head[cut] = '\0';
		if (realpath(cut ? head : "/", real)) {
			const char *rest = in + cut;
			if (strcmp(real, "/") == 0 && *rest == '/')
				snprintf(out, outsz, "%s", rest);
			else
				snprintf(out, outsz, "%s%s", real, rest);
			return;
		}
		while (cut > 0 && in[cut - 1] != '/')
			cut--;
		if (cut <= 1)
			break;
		cut--; /* drop the slash too */
	}
	snprintf(out, outsz, "%s", in);
}

void sbx_path_tildify(const char *in, const char *home, char *out, size_t outsz)
{
	size_t h = home ? strlen(home) : 0;

	if (h > 1 && strncmp(in, home, h) == 0 && (in[h] == '/' || in[h] == '\0'))
		snprintf(out, outsz, "~%s", in + h);
	else
		snprintf(out, outsz, "%s", in);
}
