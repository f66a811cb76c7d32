/* backend/darwin/darwin.h: the macOS backend behind backend/backend.h
 * (backend_darwin): the compiled policy as a Seatbelt profile, COMMAND
 * under /usr/bin/sandbox-exec, the proxy on the host's localhost, and the
 * boundary's refusals read from `log stream` (docs/MACOS.md).
 *
 * Portable C, compiled and tested on Linux (tests/unit/darwin_backend.c
 * runs the ops with stand-in programs for sandbox-exec and log). Like
 * every backend it includes nothing of preload/: the log's refusals go
 * out as events through `report`, and its wait (darwin_wait) serves the
 * supervisor's parts through struct darwin_io. preload/darwin_main.c is
 * the main() that chooses it (docs/MACOS.md). */
#ifndef SBX_DARWIN_H
#define SBX_DARWIN_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "backend/darwin/report.h"
#include "backend/darwin/watch.h"
#include "backend/darwin/seatbelt.h"
#include "common/strv.h"

struct backend;
struct event;
struct net_loop;

/* The shim's hand-over directory `shim-RUNID` in the state directory:
 * the policy blob (0400), the report FIFO (held open for reading, and a
 * write end held so it never reads its end while COMMAND lives) and the
 * counters file (a dropped report appends a byte). dirfd holds the
 * directory's flock for the run's life: a directory whose lock can be
 * taken is a killed run's (darwin_shim_sweep). */
struct darwin_shim {
	char name[NAME_MAX + 1];
	char dir[PATH_MAX], policy[PATH_MAX], report[PATH_MAX], counters[PATH_MAX];
	bool made;               /* the directory is ours to remove */
	int dirfd, rd, wr, cfd;  /* or -1 */
};

/* One run's (main's; DARWIN_NONE, then the given fields before start). */
struct darwin {
	/* given */
	const char *run_id;      /* [A-Za-z0-9._-]: the tag's start */
	/* the shim's dylib, absolute; NULL: no shim (--no-shim, none found),
	 * and no hand-over made */
	const char *shim_lib;
	bool shim_tell;          /* [report] tell_program */
	/* sbx's state directory, held (borrowed, open until release) and
	 * its path: the shim's hand-over directory is made in it */
	int state_fd;
	const char *state_dir;
	char *const *environ;    /* the caller's */
	struct strv *withheld;   /* optional: the names withheld (start-up line) */
	/* the signals main ignores for itself (SIGPIPE...) and the caller
	 * did not: COMMAND gets them back at their default action */
	sigset_t sigdefault;
	/* each refusal from the log, as an event (the supervisor's
	 * reports_event); NULL: counted only */
	void (*report)(void *ctx, const struct event *ev);
	void *report_ctx;
	/* the log's watch: sandbox_exec, log (DARWIN_SANDBOX_EXEC, DARWIN_LOG;
	 * tests: stand-ins), tmpdir and wait_ms given; the rest start()'s.
	 * tmpdir: sbx's state directory, which no run may write (a sentinel
	 * deleted inside would hide the run's last refusals: said, not
	 * silent, but better not possible) */
	struct darwin_watch watch;
	/* made by start(): the profile, sandbox-exec's argv and COMMAND's
	 * environment (withheld filled then, before the start-up line) */
	struct seatbelt_profile profile;
	struct strv argv, envp;
	/* with shim_lib: the hand-over (docs/MACOS.md, "The shim's
	 * hand-over"), SBX_SHIM's value naming it; removed by release() */
	struct darwin_shim shim;
	char *shim_spec;
	int listen[2];           /* the proxy's HTTP and SOCKS5 listeners, or -1 */
	unsigned ports[2];
	pid_t cmd_pid;
	/* with the relay (spawn_tty): the session's holder, COMMAND's parent,
	 * and the pipe it tells COMMAND's stops and end through; else -1 */
	pid_t holder;
	int status_fd;
	/* start() or go() gave up (-EINTR) as this signal came: nothing ran */
	int stopped_by;
};

#define DARWIN_NONE ((struct darwin){ .listen = { -1, -1 }, .cmd_pid = -1, \
				      .holder = -1, .status_fd = -1, .state_fd = -1, \
				      .shim = { .dirfd = -1, .rd = -1, .wr = -1, .cfd = -1 }, \
				      .watch = DARWIN_WATCH_NONE })

/* What the macOS sandbox cannot do (limits.c): said by --print=seatbelt,
 * the backend's start-up and sbxctl doctor. */
struct darwin_limit {
	const char *what, *text;
};
extern const struct darwin_limit darwin_limits[];
extern const unsigned darwin_nlimits;

/* What the supervisor serves while COMMAND runs, besides the log: the
 * proxy's loop (net/), and the shim's report pipe with the reports'
 * holding of lines (preload/reports.c), as callbacks. Any may be
 * missing (NULL, -1). */
struct darwin_io {
	struct net_loop *net;
	int report_fd;
	void (*feed)(void *ctx, const char *data, size_t n); /* the pipe's bytes */
	bool (*pending)(void *ctx);                          /* lines held? */
	void (*flush)(void *ctx);                            /* write them */
	void *ctx;
};

/* COMMAND runs (after go()): the forwarded signals relayed (not the
 * terminal's own keys when we share its foreground; caught from start()
 * on: one that would end the run and comes before COMMAND starts ends
 * the start at once, d->stopped_by), the proxy, the report pipe and the log served, until COMMAND
 * is gone; then the log drained (the end sentinel). A log that ends
 * meanwhile is said at once. COMMAND's exit status (128+N for a signal);
 * 125 when it never started (*ready false). */
int darwin_wait(struct backend *b, struct darwin_io *io, bool *ready);

/* The reports the shim dropped (the counters file's size), 0 without a
 * shim. */
unsigned long darwin_shim_dropped(const struct darwin *d);

/* The hand-over directories killed runs left in the held state directory
 * (`shim-*`; `shown` names it in messages): each whose lock no run holds
 * loses the files sbx made there and then goes, never through a link;
 * one holding anything else stays. `say` (may be NULL) hears of each
 * removed (rc 1) and each that could not be (-errno, -ENOTEMPTY for
 * files sbx did not make). start() sweeps; `--cleanup` too. The number
 * removed, or -errno when the directory cannot be read. */
int darwin_shim_sweep(int state_fd, const char *shown,
		      void (*say)(void *ctx, const char *name, int rc), void *ctx);

/* The tag for a run: `sbx-RUNID-` and 16 random hex digits (a guessed
 * tag would let another run's refusals pass for ours). 0, -EINVAL. */
int darwin_tag(const char *run_id, char *out, size_t outsz);

#endif
