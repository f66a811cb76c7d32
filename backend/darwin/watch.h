/* backend/darwin/watch.h: `log stream` watched for one run's Seatbelt
 * refusals (docs/MACOS.md, "Reports"). Portable (POSIX spawn and poll):
 * the darwin backend (darwin.c) and the macOS smoke test
 * (tests/darwin/smoke.c) use it; tests/unit/darwin_backend.c runs it with
 * stand-ins.
 *
 * The log delivers late and starts late: a refusal made before `log
 * stream` attached is never shown, and one made just before COMMAND
 * ended may come after it. So the watch proves the stream live before
 * COMMAND starts, and drained after it ends, with a sentinel: `cat` of a
 * file of ours under a one-rule profile that refuses exactly that read,
 * tagged as the run's. The sentinels' own lines are counted, never
 * passed on. */
#ifndef SBX_DARWIN_WATCH_H
#define SBX_DARWIN_WATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "backend/darwin/logstream.h"

#define DARWIN_SANDBOX_EXEC "/usr/bin/sandbox-exec"
#define DARWIN_LOG "/usr/bin/log"
#define DARWIN_TRIGGERS_MAX 32

struct darwin_watch {
	/* given */
	const char *sandbox_exec, *log; /* DARWIN_* (tests: stand-ins) */
	const char *tmpdir;             /* where the sentinels' directory is made */
	char tag[160];                  /* the run's `sbx-...` deny message */
	int wait_ms;                    /* each sentinel's wait (0: 10000) */
	/* readable: stop waiting for a sentinel (a signal to end the run
	 * came); -1: none */
	int stop_fd;
	/* each refusal of the run's, not a sentinel's */
	void (*refused)(void *ctx, const struct seatbelt_violation *v);
	void *ctx;
	/* kept */
	pid_t log_pid;
	int log_fd;                     /* log's stdout; -1 once it ended */
	bool live;                      /* the start sentinel came through */
	char dir[4096];                 /* the sentinels' directory */
	char sentinel[2][4096];         /* start, end: as the kernel names them */
	unsigned seen[2];
	pid_t triggers[DARWIN_TRIGGERS_MAX]; /* sentinel runs not reaped yet */
	struct seatbelt_log_buf lb;
};

/* Nothing started, nothing open. */
#define DARWIN_WATCH_NONE ((struct darwin_watch){ .log_pid = -1, .log_fd = -1, .stop_fd = -1 })

/* `log stream --style ndjson --predicate PRED` (log's path first). 0,
 * -EINVAL (a bad tag), -ENOMEM. */
struct strv;
int darwin_log_argv(const char *log, const char *tag, struct strv *argv);

/* The sentinels made, log started, and awaited until the start sentinel
 * shows (w->live), wait_ms passed or stop_fd became readable. 0, or -errno with why said (nothing
 * left running). A log that shows nothing is not an error: w->live says. */
int darwin_watch_start(struct darwin_watch *w, char *why, size_t whysz);
/* What log printed (call when log_fd is readable): fed line by line. */
void darwin_watch_read(struct darwin_watch *w);
/* COMMAND has ended: read until the end sentinel shows (true) or wait_ms
 * passed (false). */
bool darwin_watch_drain(struct darwin_watch *w);
/* Everything stopped, reaped and removed. Twice is fine. */
void darwin_watch_stop(struct darwin_watch *w);

/* Signal *pid (sig 0: none), wait for it, and mark it gone (-1); nothing
 * when *pid is not a child's. */
void darwin_reap(pid_t *pid, int sig);

#endif
