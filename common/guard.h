/* common/guard.h: the signals the supervisor ignores for itself while
 * it has duties (Linux's and macOS's sbx-preload), and gives back as
 * its caller left them to what it execs or spawns. */
#ifndef SBX_COMMON_GUARD_H
#define SBX_COMMON_GUARD_H

#include <signal.h>

/* Ignore SIGPIPE, SIGXFSZ, SIGTTOU and SIGTTIN (guard.c says why). Those
 * the caller had not ignored are remembered for guard_restore(), and put
 * in *dflt when it is not NULL (posix_spawnattr_setsigdefault's set).
 * Once, at the start. */
void guard_signals(sigset_t *dflt);
/* Those back at their default, before an exec of ours (an ignored signal
 * stays ignored across exec). Async-signal-safe: a vfork child calls it. */
void guard_restore(void);

#endif
