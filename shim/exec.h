/* shim/exec.h: starting programs (exec.c). */
#ifndef SBX_SHIM_EXEC_H
#define SBX_SHIM_EXEC_H

#include <stddef.h>

/* fork(): the exec calls' next definitions looked up in the parent, so a
 * fork child does not pay for it. */
void shim_exec_before_fork(void);

#endif
