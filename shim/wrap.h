/* shim/wrap.h: the bodies of the wrappers, shared by Linux's (wrappers.c,
 * exec.c, shim.c: the next definition by dlsym) and macOS's (darwin.c,
 * libSystem's by name), so that a platform's wrapper is its prototype
 * and a call of the real function: the paths checked, a refusal's errno,
 * the real call, the look after it (shim_after). The real function is
 * the platform's to name (REAL() on Linux, core.h; the name on macOS);
 * macros and inline functions, so that the hot path is the code it was
 * when each platform wrote it out. P and P2 are the
 * names symbols.def's PATHCALL rows use (wrappers.c, darwin.c). */
#ifndef SBX_SHIM_WRAP_H
#define SBX_SHIM_WRAP_H

#include <stdarg.h>

#include "shim/check.h"
#include "shim/dirfds.h"

#define P(d, p, o, h) (e_ = shim_check(&pd_[0], (d), (p), (o), (h)), n_ = 1)
#define P2(d, p, o, h, d2, p2, o2, h2)                                        \
	(e_ = shim_check(&pd_[0], (d), (p), (o), (h)), n_ = 1,                \
	 e_ || (e_ = shim_check(&pd_[1], (d2), (p2), (o2), (h2)), n_ = 2))

/* A PATHCALL row's body. REALFN: a pointer to the next definition (NULL:
 * not found, ENOSYS). */
#define WRAP_BODY(RET, REALFN, ARGS, FAIL, CHECKS)                            \
	struct pending pd_[2];                                                \
	int n_ = 0, e_ = 0;                                                   \
	RET r_;                                                               \
	CHECKS;                                                               \
	if (e_) {                                                             \
		errno = e_;                                                   \
		return FAIL;                                                  \
	}                                                                     \
	if (!(REALFN)) {                                                      \
		errno = ENOSYS;                                               \
		return FAIL;                                                  \
	}                                                                     \
	r_ = (REALFN)ARGS;                                                    \
	if (SHIM_AFTER_NEEDED(pd_, n_, r_ == FAIL))                           \
		shim_after(pd_, n_, r_ == FAIL);                              \
	return r_;

/* ---- open and openat: variadic; the mode is read only where open reads
 * one (shim_open_has_mode: O_CREAT, O_TMPFILE), as the int it was
 * promoted to (Darwin's mode_t is 16-bit), and passed on so. In a
 * wrapper whose parameters are `path` and `flags`. */
#define WRAP_OPEN_MODE(last)                                                  \
	int mode = 0;                                                         \
	if (shim_open_has_mode(flags)) {                                      \
		va_list ap;                                                   \
		va_start(ap, last);                                           \
		mode = va_arg(ap, int);                                       \
		va_end(ap);                                                   \
	}

/* An open judged and made: REALFN (a pointer, as WRAP_BODY's) called
 * with ARGS. A directory opened (O_DIRECTORY: fts, opendir's own) is
 * kept by descriptor (dirfds.c), so the walk's descriptor-relative calls
 * need no readlink; any other descriptor at that number is forgotten. */
#define WRAP_OPEN_BODY(REALFN, DIRFD, ARGS)                                   \
	char dir_[SHIM_DIRFD_PATH];                                           \
	struct pending pd_[1];                                                \
	int n_ = 1, r_;                                                       \
	int e_ = shim_check_open(&pd_[0], (DIRFD), path, shim_open_op(flags), \
				 shim_open_how(flags), dir_,                  \
				 (flags & O_DIRECTORY) ? sizeof(dir_) : 0);   \
	if (e_) {                                                             \
		errno = e_;                                                   \
		return -1;                                                    \
	}                                                                     \
	if (!(REALFN)) {                                                      \
		errno = ENOSYS;                                               \
		return -1;                                                    \
	}                                                                     \
	r_ = (REALFN)ARGS;                                                    \
	if (r_ >= 0)                                                          \
		shim_dirfd_remember(r_, (flags & O_DIRECTORY) ? dir_ : NULL); \
	if (SHIM_AFTER_NEEDED(pd_, n_, r_ == -1))                             \
		shim_after(pd_, n_, r_ == -1);                                \
	return r_;

/* ---- the current directory (core.c's cache of it): chdir(path) judged
 * as a read, CALL made after the check; fchdir's CALL only followed */
#define WRAP_CHDIR_BODY(CALL)                                                 \
	struct pending pd_;                                                   \
	int e_ = shim_check(&pd_, AT_FDCWD, path, SBX_OP_READ, HOW_FOLLOW), r_; \
	if (e_) {                                                             \
		errno = e_;                                                   \
		return -1;                                                    \
	}                                                                     \
	r_ = (CALL);                                                          \
	if (r_ == 0)                                                          \
		shim_cwd_changed();                                           \
	if (SHIM_AFTER_NEEDED(&pd_, 1, r_ != 0))                              \
		shim_after(&pd_, 1, r_ != 0);                                 \
	return r_;

#define WRAP_FCHDIR_BODY(CALL)                                                \
	int r_ = (CALL);                                                      \
	if (r_ == 0)                                                          \
		shim_cwd_changed();                                           \
	return r_;

/* ---- starting programs */

/* Does the path name a directory (a `/` in it)? A bare name is libc's to
 * find along PATH; the exec it then makes with the path comes back. */
static inline bool wrap_has_slash(const char *p)
{
	for (; *p; p++)
		if (*p == '/')
			return true;
	return false;
}

/* The program's path judged as an exec: 0 or the errno. Under --learn
 * said now: an exec that works does not come back. */
static inline int wrap_exec_check(int dirfd, const char *path, int how)
{
	struct pending pd;
	int e = shim_check(&pd, dirfd, path, SBX_OP_EXEC, how);

	if (pd.learn)
		shim_after(&pd, 1, false);
	return e;
}

/* In a fork child: its own pid for the cwd cache (core.c,
 * owns_cwd_cache) and its count of checks from 0 (decided.c's table is
 * for busy processes). getpid() always succeeds: errno is left alone. */
static inline void wrap_forked(void)
{
	shim_forked_pid = shim_sys_getpid();
	shim_checks_made = 0; /* the TLS page the line above wrote */
}

#endif
