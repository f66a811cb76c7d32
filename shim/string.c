/* shim/string.c: the string functions the shim's code calls (its own, the
 * policy's it links in), defined here, hidden: the calls bind inside the
 * library at link time.
 *
 * Why not libc's: every import is a symbol the loader looks up in every
 * process the shim is loaded into (about 1 µs each on the machines sbx
 * runs on, a quarter of what loading the shim cost), or, bound lazily, in
 * every fork child that calls it before its exec; and libc's versions are
 * pages of libc's text that a fork child about to exec faults in again
 * just for the shim's exec check (docs/PERFORMANCE.md). These are short
 * and plain, for the short strings the shim handles (paths, names), and
 * sit beside the code that calls them.
 *
 * Hidden, so the program's own calls still reach libc's (no symbol here
 * is exported: the list of the shim's exports is symbols.def's). Compiled
 * with -fno-builtin -fno-tree-loop-distribute-patterns (Makefile): the
 * compiler would otherwise turn these loops back into calls to
 * themselves.
 */
#include <stddef.h>
#include <stdint.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define HIDDEN __attribute__((visibility("hidden")))

/* Not <string.h>: its declarations would carry the compiler's builtins. */
HIDDEN void *memcpy(void *restrict to, const void *restrict from, size_t n);
HIDDEN void *memmove(void *to, const void *from, size_t n);
HIDDEN void *memset(void *s, int c, size_t n);
HIDDEN int memcmp(const void *a, const void *b, size_t n);
HIDDEN void *memchr(const void *s, int c, size_t n);
HIDDEN void *memmem(const void *h, size_t hl, const void *n, size_t nl);
HIDDEN size_t strlen(const char *s);
HIDDEN size_t strnlen(const char *s, size_t max);
HIDDEN int strcmp(const char *a, const char *b);
HIDDEN int strncmp(const char *a, const char *b, size_t n);
HIDDEN int strcasecmp(const char *a, const char *b);
HIDDEN int strncasecmp(const char *a, const char *b, size_t n);
HIDDEN char *strchr(const char *s, int c);
HIDDEN char *strchrnul(const char *s, int c);
HIDDEN char *strrchr(const char *s, int c);
HIDDEN char *strcpy(char *restrict to, const char *restrict from);
HIDDEN size_t strspn(const char *s, const char *accept);
HIDDEN size_t strcspn(const char *s, const char *reject);
HIDDEN char *strpbrk(const char *s, const char *accept);
HIDDEN char *strstr(const char *h, const char *n);

/* A word read or written at any alignment (the compiler makes it one
 * move, not a call). */
static inline uint64_t load8(const unsigned char *p)
{
	uint64_t w;

	__builtin_memcpy(&w, p, 8);
	return w;
}

static inline void store8(unsigned char *p, uint64_t w)
{
	__builtin_memcpy(p, &w, 8);
}

/* A word of a string read whole (may_alias: the bytes are chars). */
typedef uint64_t __attribute__((may_alias)) word;

#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL
/* Has the word a zero byte? */
#define HAS_ZERO(w) (((w) - ONES) & ~(w) & HIGHS)

/* Front to back, each word read before it is written: right for any
 * d at or before s, overlapping or not. */
static void copy_up(unsigned char *d, const unsigned char *s, size_t n)
{
#ifdef __SSE2__
	for (; n >= 16; n -= 16, d += 16, s += 16)
		_mm_storeu_si128((__m128i *)(void *)d,
				 _mm_loadu_si128((const __m128i *)(const void *)s));
#endif
	for (; n >= 8; n -= 8, d += 8, s += 8)
		store8(d, load8(s));
	while (n--)
		*d++ = *s++;
}

void *memcpy(void *restrict to, const void *restrict from, size_t n)
{
	copy_up(to, from, n);
	return to;
}

void *memmove(void *to, const void *from, size_t n)
{
	unsigned char *d = to;
	const unsigned char *s = from;

	if (d == s || n == 0)
		return to;
	if ((uintptr_t)d - (uintptr_t)s >= n) { /* d before s, or no overlap */
		copy_up(d, s, n);
		return to;
	}
	/* d inside [s, s + n): from the end */
	for (; n >= 8; n -= 8)
		store8(d + n - 8, load8(s + n - 8));
	while (n--)
		d[n] = s[n];
	return to;
}

void *memset(void *s, int c, size_t n)
{
	unsigned char *d = s;
	uint64_t w = ONES * (unsigned char)c;

#ifdef __SSE2__
	__m128i v = _mm_set1_epi8((char)c);
	for (; n >= 16; n -= 16, d += 16)
		_mm_storeu_si128((__m128i *)(void *)d, v);
#endif
	for (; n >= 8; n -= 8, d += 8)
		store8(d, w);
	while (n--)
		*d++ = (unsigned char)c;
	return s;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

#ifdef __SSE2__
	for (; n >= 16; n -= 16, x += 16, y += 16) {
		__m128i u = _mm_loadu_si128((const __m128i *)(const void *)x);
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)y);
		unsigned same = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(u, v));
		if (same != 0xffff) {
			unsigned i = (unsigned)__builtin_ctz(~same);
			return x[i] - y[i];
		}
	}
#endif
	for (; n >= 8 && load8(x) == load8(y); n -= 8, x += 8, y += 8)
		;
	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

void *memchr(const void *s, int c, size_t n)
{
	const unsigned char *p = s;

#ifdef __SSE2__
	__m128i v = _mm_set1_epi8((char)c);
	for (; n >= 16; n -= 16, p += 16) {
		unsigned m = (unsigned)_mm_movemask_epi8(
			_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)p), v));
		if (m)
			return (void *)(p + __builtin_ctz(m));
	}
#endif
	for (; n; n--, p++)
		if (*p == (unsigned char)c)
			return (void *)p;
	return NULL;
}

void *memmem(const void *h, size_t hl, const void *n, size_t nl)
{
	const unsigned char *p = h;

	if (!nl)
		return (void *)h;
	for (; hl >= nl; hl--, p++)
		if (*p == *(const unsigned char *)n && !memcmp(p, n, nl))
			return (void *)p;
	return NULL;
}

/* Block by block from the first aligned block: an aligned read never
 * crosses into another page, so it never reads past a mapping's end (nor
 * is it a fault: the bytes around the string are not the program's to
 * check, as for libc's own). */
#ifdef __SANITIZE_ADDRESS__
__attribute__((no_sanitize_address))
#endif
size_t strlen(const char *s)
{
#ifdef __SSE2__
	const char *p = (const char *)((uintptr_t)s & ~(uintptr_t)15);
	const __m128i zero = _mm_setzero_si128();
	unsigned m = (unsigned)_mm_movemask_epi8(
			     _mm_cmpeq_epi8(_mm_load_si128((const __m128i *)(const void *)p), zero)) >>
		     (s - p);

	if (m)
		return (size_t)__builtin_ctz(m);
	do {
		p += 16;
		m = (unsigned)_mm_movemask_epi8(
			_mm_cmpeq_epi8(_mm_load_si128((const __m128i *)(const void *)p), zero));
	} while (!m);
	return (size_t)(p - s) + (size_t)__builtin_ctz(m);
#else
	const char *p = s;
	const word *w;

	for (; (uintptr_t)p % 8; p++)
		if (!*p)
			return (size_t)(p - s);
	for (w = (const word *)(const void *)p; !HAS_ZERO(*w); w++)
		;
	for (p = (const char *)w; *p; p++)
		;
	return (size_t)(p - s);
#endif
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;

	while (*x && *x == *y)
		x++, y++;
	return *x - *y;
}

int strncmp(const char *a, const char *b, size_t n)
{
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;

	for (; n; n--, x++, y++)
		if (*x != *y || !*x)
			return *x - *y;
	return 0;
}

static inline int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

/* ASCII case, as in the C locale: the shim compares host and domain
 * names. */
int strcasecmp(const char *a, const char *b)
{
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;

	while (*x && lower(*x) == lower(*y))
		x++, y++;
	return lower(*x) - lower(*y);
}

int strncasecmp(const char *a, const char *b, size_t n)
{
	const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;

	for (; n; n--, x++, y++)
		if (lower(*x) != lower(*y) || !*x)
			return lower(*x) - lower(*y);
	return 0;
}

char *strchrnul(const char *s, int c)
{
	while (*s && *s != (char)c)
		s++;
	return (char *)s;
}

char *strchr(const char *s, int c)
{
	s = strchrnul(s, c);
	return *s == (char)c ? (char *)s : NULL;
}

char *strrchr(const char *s, int c)
{
	const char *last = NULL;

	do
		if (*s == (char)c)
			last = s;
	while (*s++);
	return (char *)last;
}

char *strcpy(char *restrict to, const char *restrict from)
{
	return memcpy(to, from, strlen(from) + 1);
}

static inline int in_set(const char *set, char c)
{
	for (; *set; set++)
		if (*set == c)
			return 1;
	return 0;
}

size_t strspn(const char *s, const char *accept)
{
	size_t n = 0;

	while (s[n] && in_set(accept, s[n]))
		n++;
	return n;
}

size_t strcspn(const char *s, const char *reject)
{
	size_t n = 0;

	while (s[n] && !in_set(reject, s[n]))
		n++;
	return n;
}

char *strpbrk(const char *s, const char *accept)
{
	s += strcspn(s, accept);
	return *s ? (char *)s : NULL;
}

char *strstr(const char *h, const char *n)
{
	size_t nl = strlen(n);

	if (!nl)
		return (char *)h;
	for (; *h; h++)
		if (*h == *n && !strncmp(h, n, nl))
			return (char *)h;
	return NULL;
}
