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
#include "backend/darwin/watch.h"
#include "backend/darwin/seatbelt.h"
#include "common/strv.h"

struct reports;

/* One run's (main's; DARWIN_NONE, then the given fields before start). */
struct darwin {
	/* given */
	const char *run_id;      /* [A-Za-z0-9._-]: the tag's start */
	const char *shim_lib, *shim_spec; /* NULL: no shim */
	char *const *environ;    /* the caller's */
	struct strv *withheld;   /* optional: the names withheld (start-up line) */
	/* the log's watch: sandbox_exec, log (DARWIN_SANDBOX_EXEC, DARWIN_LOG;
	 * tests: stand-ins), tmpdir and wait_ms given; the rest start()'s.
	 * tmpdir: sbx's state directory, which no run may write (a sentinel
	 * deleted inside would hide the run's last refusals: said, not
	 * silent, but better not possible) */
	struct darwin_watch watch;
	/* made by start() */
	struct seatbelt_profile profile;
	int listen[2];           /* the proxy's HTTP and SOCKS5 listeners, or -1 */
	unsigned ports[2];
	pid_t cmd_pid;
	struct reports *reports; /* wait()'s, for the log's refusals */
};

#define DARWIN_NONE ((struct darwin){ .listen = { -1, -1 }, .cmd_pid = -1, \
				      .watch = DARWIN_WATCH_NONE })

/* What the macOS sandbox cannot do (limits.c): said by --print=seatbelt,
 * the backend's start-up and sbxctl doctor. */
struct darwin_limit {
	const char *what, *text;
};
extern const struct darwin_limit darwin_limits[];
extern const unsigned darwin_nlimits;

/* The tag for a run: `sbx-RUNID-` and 16 random hex digits (a guessed
 * tag would let another run's refusals pass for ours). 0, -EINVAL. */
int darwin_tag(const char *run_id, char *out, size_t outsz);

#endif
