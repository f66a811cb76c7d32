/* backend/darwin/darwin.h: the macOS backend behind backend/backend.h
 * (backend_darwin): the compiled policy as a Seatbelt profile, COMMAND
 * under /usr/bin/sandbox-exec, the proxy on the host's localhost, and the
 * boundary's refusals read from `log stream` (docs/MACOS.md).
 *
 * Portable C, compiled and tested on Linux (tests/unit/darwin_backend.c
 * runs the ops with stand-in programs for sandbox-exec and log); only
 * main.c's choice of it is darwin's. */
#ifndef SBX_DARWIN_H
#define SBX_DARWIN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "backend/darwin/report.h"
#include "backend/darwin/seatbelt.h"
#include "common/strv.h"

struct reports;

#define DARWIN_TRIGGERS_MAX 32

/* One run's (main's; DARWIN_NONE, then the fields before `start`). */
struct darwin {
	/* given */
	const char *run_id;      /* [A-Za-z0-9._-]: the tag's start */
	const char *sandbox_exec, *log; /* DARWIN_SANDBOX_EXEC, DARWIN_LOG (tests: stand-ins) */
	const char *shim_lib, *shim_spec; /* NULL: no shim */
	char *const *environ;    /* the caller's */
	const char *tmpdir;      /* where the sentinel's directory is made */
	/* the log's first record must come within this many milliseconds
	 * (0: 10000), else reports are said to be off (the boundary holds) */
	int log_wait_ms;
	/* made by start() */
	char tag[160];           /* sbx-RUNID-RANDOM: the profile's deny message */
	struct seatbelt_profile profile;
	int listen[2];           /* the proxy's HTTP and SOCKS5 listeners, or -1 */
	unsigned ports[2];
	pid_t log_pid, cmd_pid;
	int log_fd;              /* log stream's stdout */
	bool log_live;           /* the start sentinel was seen */
	/* the sentinels: files of ours a tiny profile refuses a read of, so
	 * that the log is known to be live (start) and drained (end) */
	char sentinel_dir[4096];
	char sentinel[2][4096];  /* as the kernel names them (realpath) */
	unsigned sentinels_seen[2];
	pid_t triggers[DARWIN_TRIGGERS_MAX]; /* sentinel runs not reaped yet (0/-1: none) */
	struct darwin_log_buf lb;
	struct strv *withheld;   /* optional: the names withheld (start-up line) */
};

#define DARWIN_NONE ((struct darwin){ .listen = { -1, -1 }, .log_pid = -1, .cmd_pid = -1, \
				      .log_fd = -1 })

/* The tag for a run: `sbx-RUNID-` and 16 random hex digits (a guessed
 * tag would let another run's refusals pass for ours). 0, -EINVAL. */
int darwin_tag(const char *run_id, char *out, size_t outsz);

#endif
