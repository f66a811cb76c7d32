/* shim/resolve.c: following symlinks without allocating.
 *
 * The fast path judges a path as written (lexically normalised). Before the
 * shim refuses a call, and after the kernel refused one, it asks where the
 * path really leads: shim_resolve() walks it component by component with
 * readlink(2), the way the kernel's lookup would.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "shim/core.h"
#include "shim/resolve.h"

#define MAX_LINKS 40 /* the kernel's own limit (ELOOP) */

/* Drop the last component of out[0..*o). */
static void pop(char *out, size_t *o)
{
	while (*o > 1 && out[*o - 1] != '/')
		(*o)--;
	if (*o > 1)
		(*o)--;
	out[*o] = '\0';
}

/* The rest of the path, from `rest` on, folded lexically onto out. */
static void keep_rest(char *out, size_t outsz, const char *rest)
{
	char base[PATH_MAX];

	while (*rest == '/')
		rest++;
	if (!*rest || strlen(out) >= sizeof(base))
		return;
	memcpy(base, out, strlen(out) + 1);
	if (path_join(base, rest, out, outsz))
		memcpy(out, base, strlen(base) + 1);
}

void shim_resolve(const char *abs, bool follow, char *out, size_t outsz)
{
	char work[PATH_MAX * 2], next[PATH_MAX * 2], target[PATH_MAX];
	const char *p;
	size_t o = 1, wl = strlen(abs);
	int links = 0;

	if (outsz < PATH_MAX || wl >= sizeof(work) || abs[0] != '/') {
		size_t n = wl < outsz ? wl : outsz - 1;
		memcpy(out, abs, n);
		out[n] = '\0';
		return;
	}
	memcpy(work, abs, wl + 1);
	out[0] = '/';
	out[1] = '\0';
	p = work;
	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		const char *e = strchrnul(p, '/');
		size_t n = (size_t)(e - p);
		const char *after = e;

		while (*after == '/')
			after++;
		if (n == 1 && p[0] == '.') {
			p = e;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			pop(out, &o);
			p = e;
			continue;
		}
		if (o + n + 2 > outsz) {
			keep_rest(out, outsz, p);
			return;
		}
		if (o > 1)
			out[o++] = '/';
		memcpy(out + o, p, n);
		o += n;
		out[o] = '\0';
		if (*after || follow) {
			ssize_t t = shim_sys_readlinkat(AT_FDCWD, out, target, sizeof(target) - 1);
			if (t > 0) {
				size_t rl = strlen(e);
				if (++links > MAX_LINKS || (size_t)t + rl + 1 > sizeof(next)) {
					keep_rest(out, outsz, e);
					return;
				}
				/* continue with the link's target, then the rest */
				memcpy(next, target, (size_t)t);
				memcpy(next + t, e, rl + 1);
				memcpy(work, next, (size_t)t + rl + 1);
				if (target[0] == '/') {
					o = 1;
					out[1] = '\0';
				} else {
					pop(out, &o);
				}
				p = work;
				continue;
			}
			if (errno != EINVAL) {
				/* missing or unreadable: the rest stays as written */
				keep_rest(out, outsz, e);
				return;
			}
		}
		p = e;
	}
}
