/* shim/exec.h: starting programs (exec.c). */
#ifndef SBX_SHIM_EXEC_H
#define SBX_SHIM_EXEC_H

#include <stddef.h>

/* fork(): the exec calls' next definitions looked up in the parent, so a
 * fork child does not pay for it. */
void shim_exec_before_fork(void);
#define SHIM_ENV_EXTRA 2 /* entries shim_env_fix may add: SBX_SHIM, LD_PRELOAD */
/* Copy envp into out (room for count(envp) + SHIM_ENV_EXTRA + 1
 * pointers), making sure LD_PRELOAD names the shim and SBX_SHIM is ours.
 * buf (PATH_MAX * 2 bytes) holds a rewritten LD_PRELOAD. */
char **shim_env_fix(char *const *envp, char **out, char *buf, size_t bufsz);

#endif
