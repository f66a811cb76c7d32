/* backend/linux/process.h: the process driver of both Linux backends:
 * sbx-init started (under bubblewrap, or under a Landlock ruleset in the
 * nested mode), fed its options over the control socket, told to go, or
 * killed before anything ran. The wait that follows is the supervisor's
 * (preload/run.c: sandbox_wait), over the same struct sandbox. */
#ifndef SBX_PROCESS_H
#define SBX_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "backend/backend.h"

/* Fork and exec `bwrap --args FD -- INIT --ctl=FD -- COMMAND...`; it waits
 * for its options (sandbox_send_args). The forwarded signals are blocked
 * from here on (sandbox_wait or sandbox_abort restore them). 0, or -errno
 * with nothing left running. */
int sandbox_spawn(struct sandbox *sb, const char *bwrap, const char *init,
		  char *const *command);
/* The nested mode (landlock.h, nested.h): no bubblewrap; the child applies
 * `ruleset` to itself and execs `init --nested --ctl=FD -- COMMAND...` in
 * `cwd` with `envp`. It waits for sandbox_go() as under bubblewrap. */
int sandbox_spawn_nested(struct sandbox *sb, const char *init, char *const *command,
			 int ruleset, char **envp, const char *cwd);
/* bubblewrap's options from the plan (planned with ctl_fd = sb->ctl_child):
 * bubblewrap goes on. 0 or -errno (-EPIPE: it is gone already). */
int sandbox_send_args(struct sandbox *sb, const struct plan *pl);
/* sbx-init's options from the plan, then "go": the placeholders' states
 * (plan_make_placeholders) and the descriptors the holder keeps (the
 * shim's; nfds is 0 or 3). */
int sandbox_go(struct sandbox *sb, const struct plan *pl, const int *fds, size_t nfds);
/* Kill and reap bubblewrap before anything ran (a configuration error
 * found after the spawn); restores the signal mask. */
void sandbox_abort(struct sandbox *sb);

/* The signals we forward; bit mask of those our caller had ignored. */
unsigned run_ignored_signals(void);
/* Stop bubblewrap (or sbx-init), kill its children, then it: the end of
 * a run that cannot go on (process.c says why in this order). */
void sandbox_kill(pid_t pid);
/* COMMAND was started in the background of its pty (--tty-bg, sandbox_go). */
bool sandbox_started_bg(void);

#endif
