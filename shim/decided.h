/* shim/decided.h: the policy's "allowed" remembered per path, so a
 * program that opens or stats the same paths again and again (a build's
 * headers, a test runner's modules, git's index) asks the matcher once
 * per path, not once per call (decided.c). Lock-free, no allocation. */
#ifndef SBX_SHIM_DECIDED_H
#define SBX_SHIM_DECIDED_H

#include <stdbool.h>
#include <stddef.h>

#define SHIM_DECIDED_SLOTS 64
/* the longest path remembered; a longer one is always asked */
#define SHIM_DECIDED_ROOM 244

/* Did policy_check_path(op, abs) allow, as remembered? abs is len bytes,
 * absolute and normal (path_is_normal); op is an enum sbx_op. true only
 * for exactly that op and path: never for another, a prefix or a longer
 * one, whatever the hash. */
bool shim_decided(unsigned op, const char *abs, size_t len);
/* Remember that policy_check_path(op, abs) allowed. A path that is not
 * normal or too long is not remembered. */
void shim_decided_put(unsigned op, const char *abs, size_t len);

#endif
