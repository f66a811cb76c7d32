/* backend/relay.h: the sandbox's own terminal, and the relay to the
 * person's (relay.c's comment says why), for both backends. Opened before
 * the spawn, put on COMMAND's standard streams in the spawn's child
 * (backend/linux/process.c, backend/darwin/darwin.c), served in the
 * supervisor's wait loop (preload/run.c, darwin_wait). Nothing here
 * assumes how the caller takes its signals: it hands them in. */
#ifndef SBX_RELAY_H
#define SBX_RELAY_H

#include <stdbool.h>

/* A pty for the sandbox when one of fd 0/1/2 is a terminal (nothing
 * otherwise). Before the spawn. 0, or -errno (nothing left open). */
int relay_open(void);
bool relay_on(void);
/* The slave's path on the host (/dev/pts/N, checked to be that node), or
 * "" (no relay, or a pty no name here leads to). */
const char *relay_tty_path(void);
/* The person's terminal's path (its ttyname, checked to be that device),
 * or "": the darwin profile denies COMMAND that one by name. */
const char *relay_host_tty_path(void);
/* In the spawn's child: the slave onto the standard streams that are
 * the terminal. Async-signal-safe. */
void relay_child(void);
/* In the spawn's child where no sbx-init inside does it (the darwin
 * backend): a session of its own with the slave as its controlling
 * terminal (setsid, TIOCSCTTY; its group the slave's foreground), the
 * slave onto the standard streams as relay_child(), and every other
 * descriptor of a terminal below max_fd closed (but keep).
 * Async-signal-safe. 0 or an errno. */
int relay_child_session(int keep, int max_fd);
/* The slave, between relay_open() and relay_spawned() (-1 else). */
int relay_slave(void);
/* In the parent after the spawn: our copy of the slave closed. */
void relay_spawned(void);
/* The typing is relayed and we are not the terminal's foreground: COMMAND
 * is to start in the background of its pty (sbx-init's --tty-bg). */
bool relay_background(void);
/* COMMAND runs: the typing relayed from now on, while in the foreground. */
void relay_start(void);
/* The loop's three descriptors (the terminal in, the master, the terminal
 * out), set before poll() and served after it. */
struct pollfd;
void relay_poll_set(struct pollfd *pf);
void relay_poll_run(const struct pollfd *pf);
/* SIGWINCH: the terminal's size onto the pty. */
void relay_winch(void);
/* A signal key of the person's (SIGINT, SIGQUIT, SIGTSTP) to the pty's
 * foreground process group. -1 when not relaying. */
int relay_signal(int sig);
/* COMMAND stopped with sig: the terminal's modes back, and stop ourselves
 * as a job does (returns once continued, or at once in an orphaned
 * process group). true: it stopped in the background of its pty while we
 * are in the foreground: sbx-init is to go on in the foreground now. */
bool relay_stop(int sig);
/* SIGCONT came (the caller catches it: a signalfd, a self-pipe): true
 * when COMMAND is to be told to go on (it was stopped, or the foreground
 * changed); *fg: in the foreground now. */
bool relay_continued(bool *fg);
/* reports_cfg.tty_busy: is the program's terminal in raw mode? */
bool relay_tty_busy(int fd);
/* The rest of COMMAND's output written, the terminal's modes back, all
 * closed. Idempotent; every way out calls it. */
void relay_end(void);

#endif
