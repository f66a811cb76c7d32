/* shim/wrap.h: the body of a wrapper generated from symbols.def's
 * PATHCALL rows, shared by the Linux wrappers (wrappers.c, the next
 * definition by dlsym) and the macOS ones (darwin.c, libSystem's by
 * name): the paths checked (CHECKS: P or P2, check.h), a refusal's
 * errno, the real call, the look after it (shim_after). Included only
 * by those two files: P and P2 are the names symbols.def's rows use. */
#ifndef SBX_SHIM_WRAP_H
#define SBX_SHIM_WRAP_H

#include "shim/check.h"

#define P(d, p, o, h) (e_ = shim_check(&pd_[0], (d), (p), (o), (h)), n_ = 1)
#define P2(d, p, o, h, d2, p2, o2, h2)                                        \
	(e_ = shim_check(&pd_[0], (d), (p), (o), (h)), n_ = 1,                \
	 e_ || (e_ = shim_check(&pd_[1], (d2), (p2), (o2), (h2)), n_ = 2))

/* REALFN: a pointer to the next definition (NULL: not found, ENOSYS). */
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

#endif
