/* shim/tell.h: `[report] tell_program` (tell.c). */
#ifndef SBX_SHIM_TELL_H
#define SBX_SHIM_TELL_H

#include <stdbool.h>

#include "policy/policy.h"

/* When the run asks (shim_tell_on(), SBX_SHIM's tell=1): a refusal's line
 * also on the refused program's own stderr, once per target, explained
 * as the supervisor explains the report (the rule that denies `abs`).
 * by_policy false: the boundary refused what the policy allows. errno
 * kept. */
void shim_tell(enum sbx_op op, const char *abs, bool made_dir, bool by_policy);
/* A note that is not a refusal (a loopback port nothing inside serves):
 * `line` (newline-terminated) on the program's own stderr, once per `key`,
 * where shim_tell() would write. errno kept. */
void shim_tell_note(const char *key, const char *line);

#endif
