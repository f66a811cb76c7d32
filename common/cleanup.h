/* common/cleanup.h: scope-bound release for the supervisor's functions
 * with many ways out (the notify layer's handlers: each refusal its own
 * return). A variable declared `cleanup_close` is closed when it goes out
 * of scope, if it still holds a descriptor (>= 0); `cleanup_free` is
 * freed. A function that hands one on takes it out first with
 * steal_fd()/steal_pointer() (the receiver owns it from then on).
 * STYLE.md: cleanup attributes or one exit label in a function, never
 * both. The return value is computed before the cleanups run, and errno
 * is kept across them. */
#ifndef SBX_CLEANUP_H
#define SBX_CLEANUP_H

#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

static inline void cleanup_close_fd(int *fd)
{
	if (*fd >= 0) {
		int e = errno;
		close(*fd);
		errno = e;
	}
}

static inline void cleanup_free_ptr(void *p)
{
	free(*(void **)p);
}

#define cleanup_close __attribute__((cleanup(cleanup_close_fd)))
#define cleanup_free __attribute__((cleanup(cleanup_free_ptr)))

/* *fd, which the caller no longer closes (-1 left in its place). */
static inline int steal_fd(int *fd)
{
	int f = *fd;

	*fd = -1;
	return f;
}

/* *pp, which the caller no longer frees (NULL left in its place). */
static inline void *steal_pointer(void *pp)
{
	void **p = pp, *v = *p;

	*p = NULL;
	return v;
}

#endif
