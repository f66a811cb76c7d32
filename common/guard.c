/* common/guard.c: guard.h. */
#include <signal.h>
#include <stddef.h>

#include "common/guard.h"

/* A closed stderr (`sbx-preload ... 2>&1 | head -1`) or an audit log past
 * the file size limit must not kill us before our duties are done (the
 * stand-ins removed, the last reports read, COMMAND's status returned):
 * writes then fail with EPIPE/EFBIG, which the callers take. The terminal
 * is COMMAND's too: a program inside can make its own group the
 * foreground one and set TOSTOP, and our next report line there stopped
 * us (SIGTTOU), and the notify layer, the proxy and the log with us,
 * while the shell took the terminal back with the sandbox still running;
 * ignored, a background write goes through (POSIX). The relay
 * (backend/relay.c) reads the terminal only in the foreground; if
 * something outside takes the foreground meanwhile, its read gives EIO
 * instead of stopping us. */
static const int guarded[] = { SIGPIPE, SIGXFSZ, SIGTTOU, SIGTTIN };
#define NGUARDED (sizeof(guarded) / sizeof(guarded[0]))

/* the guarded signals our caller had not ignored */
static sigset_t caller_default;

void guard_signals(sigset_t *dflt)
{
	struct sigaction sa;

	sigemptyset(&caller_default);
	for (size_t i = 0; i < NGUARDED; i++) {
		if (!(sigaction(guarded[i], NULL, &sa) == 0 && sa.sa_handler == SIG_IGN))
			sigaddset(&caller_default, guarded[i]);
		signal(guarded[i], SIG_IGN);
	}
	if (dflt)
		*dflt = caller_default;
}

void guard_restore(void)
{
	for (size_t i = 0; i < NGUARDED; i++)
		if (sigismember(&caller_default, guarded[i]) == 1)
			signal(guarded[i], SIG_DFL);
}
