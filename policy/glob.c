/* policy/glob.c: path globs for rules.
 *
 * Not fnmatch(3): that one either lets `*` cross `/` or has no `**`, and it
 * wants NUL-terminated strings, while the rule matcher tries many prefixes of
 * one path without copying them.
 */
#include <string.h>

#include "policy/internal.h"

bool glob_has_magic(const char *s)
{
	return strpbrk(s, "*?") != NULL;
}

unsigned glob_star_count(const char *s)
{
	unsigned n = 0;

	for (; *s; s++)
		if (*s == '*' && s[1] != '*')
			n++;
	return n;
}

static bool match(const char *p, const char *s, const char *end)
{
	while (*p) {
		if (p[0] == '*' && p[1] == '*') {
			while (*p == '*')
				p++;
			if (*p == '/') {
				/* `**` + `/` matches zero or more whole components. */
				p++;
				if (match(p, s, end))
					return true;
				for (const char *q = s; q < end; q++)
					if (*q == '/' && match(p, q + 1, end))
						return true;
				return false;
			}
			for (const char *q = s;; q++) {
				if (match(p, q, end))
					return true;
				if (q == end)
					return false;
			}
		}
		if (*p == '*') {
			p++;
			for (const char *q = s;; q++) {
				if (match(p, q, end))
					return true;
				if (q == end || *q == '/')
					return false;
			}
		}
		if (s == end)
			return false;
		if (*p == '?') {
			if (*s == '/')
				return false;
		} else {
			if (*p == '\\' && p[1])
				p++;
			if (*p != *s)
				return false;
		}
		p++;
		s++;
	}
	return s == end;
}

bool sbx_glob_match(const char *pat, const char *str, size_t len)
{
	return match(pat, str, str + len);
}

/* Could `s`..`end`, continued by `/` and more, match p? At the end of the
 * string, what is left of the pattern must be able to begin with `/`: a
 * `/`, a `**` (it crosses components), or a `*` that matches nothing
 * before one of those. */
static bool match_below(const char *p, const char *s, const char *end)
{
	while (*p) {
		if (s == end) {
			while (*p == '*' && p[1] != '*')
				p++;
			return *p == '/' || (p[0] == '*' && p[1] == '*');
		}
		if (p[0] == '*' && p[1] == '*')
			return true; /* it may take the rest, and more below */
		if (*p == '*') {
			p++;
			for (const char *q = s;; q++) {
				if (match_below(p, q, end))
					return true;
				if (q == end || *q == '/')
					return false;
			}
		}
		if (*p == '?') {
			if (*s == '/')
				return false;
		} else {
			if (*p == '\\' && p[1])
				p++;
			if (*p != *s)
				return false;
		}
		p++;
		s++;
	}
	return false; /* the pattern ended: nothing below it is named */
}

bool sbx_glob_match_below(const char *pat, const char *str, size_t len)
{
	return match_below(pat, str, str + len);
}
