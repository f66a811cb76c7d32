/* tests/unit/shim_string.c: the shim's own string functions
 * (shim/string.c) answer as libc's do, at every alignment and length up
 * to 40 bytes and on random bytes: the policy's matcher and the shim's
 * path code call them for every checked call. Compiled here under other
 * names (t_memcpy, ...), so this test program keeps libc's.
 */
#pragma GCC optimize("no-tree-loop-distribute-patterns")
#define memcpy t_memcpy
#define memmove t_memmove
#define memset t_memset
#define memcmp t_memcmp
#define memchr t_memchr
#define memmem t_memmem
#define strlen t_strlen
#define strnlen t_strnlen
#define strcmp t_strcmp
#define strncmp t_strncmp
#define strcasecmp t_strcasecmp
#define strncasecmp t_strncasecmp
#define strchr t_strchr
#define strchrnul t_strchrnul
#define strrchr t_strrchr
#define strcpy t_strcpy
#define strspn t_strspn
#define strcspn t_strcspn
#define strpbrk t_strpbrk
#define strstr t_strstr
#include "shim/string.c"
#undef memcpy
#undef memmove
#undef memset
#undef memcmp
#undef memchr
#undef memmem
#undef strlen
#undef strnlen
#undef strcmp
#undef strncmp
#undef strcasecmp
#undef strncasecmp
#undef strchr
#undef strchrnul
#undef strrchr
#undef strcpy
#undef strspn
#undef strcspn
#undef strpbrk
#undef strstr

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tests/unit/helpers.h"

static int sign(int v)
{
	return (v > 0) - (v < 0);
}

/* a string of n bytes from a small alphabet (so compares and searches
 * find matches), at offset off of a padded buffer */
static char *fill(char *buf, size_t off, size_t n, unsigned *seed)
{
	static const char abc[] = "aAb/.Z\x80\xff";

	for (size_t i = 0; i < n; i++)
		buf[off + i] = abc[rand_r(seed) % 8];
	buf[off + n] = '\0';
	return buf + off;
}

Test(shim_string, lengths_and_compares_as_libc)
{
	unsigned seed = 25;
	_Alignas(16) char a[64], b[64];

	for (int round = 0; round < 4000; round++) {
		size_t oa = (size_t)rand_r(&seed) % 17, ob = (size_t)rand_r(&seed) % 17;
		size_t na = (size_t)rand_r(&seed) % 41, nb = (size_t)rand_r(&seed) % 41;
		char *x = fill(a, oa, na, &seed), *y = fill(b, ob, nb, &seed);
		size_t k = (size_t)rand_r(&seed) % 45;

		if (rand_r(&seed) % 3 == 0) /* often a common prefix */
			memcpy(y, x, na < nb ? na : nb);
		cr_assert_eq(t_strlen(x), strlen(x));
		cr_assert_eq(t_strnlen(x, k), strnlen(x, k));
		cr_assert_eq(sign(t_strcmp(x, y)), sign(strcmp(x, y)));
		cr_assert_eq(sign(t_strncmp(x, y, k)), sign(strncmp(x, y, k)));
		cr_assert_eq(sign(t_strcasecmp(x, y)), sign(strcasecmp(x, y)));
		cr_assert_eq(sign(t_strncasecmp(x, y, k)), sign(strncasecmp(x, y, k)));
		size_t m = na < nb ? na : nb;
		cr_assert_eq(sign(t_memcmp(x, y, m)), sign(memcmp(x, y, m)));
		cr_assert_eq(t_strspn(x, "aA/"), strspn(x, "aA/"));
		cr_assert_eq(t_strcspn(x, "/."), strcspn(x, "/."));
		cr_assert_eq(t_strpbrk(x, "Z."), strpbrk(x, "Z."));
		cr_assert_eq(t_strstr(x, "a/"), strstr(x, "a/"));
		cr_assert_eq(t_strstr(x, ""), strstr(x, ""));
		cr_assert_eq(t_memmem(x, na, "Ab", 2), memmem(x, na, "Ab", 2));
		for (const char *c = "a/\x80Zq"; *c; c++) {
			cr_assert_eq(t_strchr(x, *c), strchr(x, *c));
			cr_assert_eq(t_strrchr(x, *c), strrchr(x, *c));
			cr_assert_eq(t_strchrnul(x, *c), strchrnul(x, *c));
			cr_assert_eq(t_memchr(x, *c, na), memchr(x, *c, na));
		}
		cr_assert_eq(t_strchr(x, '\0'), x + na);
		cr_assert_eq(t_strrchr(x, '\0'), x + na);
	}
}

Test(shim_string, copies_and_moves_as_libc)
{
	unsigned seed = 2025;
	char src[96], want[96], got[96];

	for (int round = 0; round < 4000; round++) {
		size_t n = (size_t)rand_r(&seed) % 41;
		size_t from = (size_t)rand_r(&seed) % 48, to = (size_t)rand_r(&seed) % 48;

		for (size_t i = 0; i < sizeof(src); i++)
			src[i] = (char)rand_r(&seed);
		/* overlapping moves, both ways */
		memcpy(want, src, sizeof(src));
		memcpy(got, src, sizeof(src));
		memmove(want + to, want + from, n);
		cr_assert_eq(t_memmove(got + to, got + from, n), got + to);
		cr_assert_arr_eq(got, want, sizeof(got));
		/* copies into another buffer */
		memcpy(want, src, sizeof(src));
		memcpy(got, src, sizeof(src));
		memcpy(want + to, src + from, n);
		cr_assert_eq(t_memcpy(got + to, src + from, n), got + to);
		cr_assert_arr_eq(got, want, sizeof(got));
		/* sets */
		memset(want + to, (int)n - 3, n);
		cr_assert_eq(t_memset(got + to, (int)n - 3, n), got + to);
		cr_assert_arr_eq(got, want, sizeof(got));
		/* strcpy of a string of n bytes */
		char *s = fill(src, from, n, &seed);
		memcpy(want, src, sizeof(src));
		memcpy(got, src, sizeof(src));
		strcpy(want + to, s);
		cr_assert_eq(t_strcpy(got + to, s), got + to);
		cr_assert_arr_eq(got, want, sizeof(got));
	}
}
