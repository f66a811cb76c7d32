/* backend/darwin/launch.h: what the darwin backend starts, as argument
 * vectors and an environment (portable; tests/unit/darwin_launch.c).
 *
 * Both programs are named by absolute path, never looked up in PATH (a
 * sandboxed run may have put its own `sandbox-exec` or `log` first there,
 * for the next run to start unsandboxed). */
#ifndef SBX_DARWIN_LAUNCH_H
#define SBX_DARWIN_LAUNCH_H

#include <stdbool.h>

#include "backend/darwin/seatbelt.h"
#include "backend/darwin/watch.h"
#include "common/strv.h"
#include "policy/policy.h"

/* macOS's netcat (BSD's: SOCKS5 with -X 5), ssh's ProxyCommand for git
 * over ssh (darwin_launch_env), by absolute path. */
#define DARWIN_NC "/usr/bin/nc"

struct darwin_launch_in {
	const struct policy *policy;
	const struct seatbelt_profile *profile;
	char *const *command;     /* COMMAND [ARG...] */
	char *const *environ;     /* the caller's */
	const char *shim_lib;     /* the shim for DYLD_INSERT_LIBRARIES; NULL: none */
	const char *shim_spec;    /* SBX_SHIM's value (with shim_lib) */
	/* where sbx's proxy listens on localhost; 0: the run has none */
	unsigned http_port, socks_port;
};

/* The shim's hand-over where there is no /proc (shim/core.c's header,
 * docs/MACOS.md "The shim's hand-over"): files the supervisor made in a
 * directory of its own that the profile lets the sandbox read, not
 * change. */
struct darwin_shim_handover {
	const char *lib;      /* the dylib, absolute */
	const char *policy;   /* the policy blob (policy/blob.c), a regular file */
	const char *report;   /* the report FIFO, held open for reading */
	const char *counters; /* a file a dropped report appends a byte to; NULL: none */
	const char *mode;     /* "enforce", "trace" or "learn" */
	bool tell;            /* [report] tell_program */
};

/* SBX_SHIM's value for it, malloc'd into *out:
 * `1;mode=M;policy=P;report=R[;counters=C][;tell=1];lib=L`.
 * -EINVAL when a path is not absolute, holds a `;` (the spec's
 * separator) or is too long for the shim (SBX_SHIM_PATH_MAX; the lib
 * below PATH_MAX), or the mode is none of the three; -ENOMEM. */
int darwin_shim_spec(const struct darwin_shim_handover *h, char **out);

/* `/usr/bin/sandbox-exec -D NAME=VALUE... -p PROFILE -- COMMAND...`.
 * 0, -EINVAL (no command), -ENOMEM. */
int darwin_launch_argv(const struct darwin_launch_in *in, struct strv *argv);

/* COMMAND's environment: the caller's, less what the policy withholds
 * (deny_env, secret-looking names; their names into `withheld`) and the
 * caller's proxy settings where the network is not open (their proxy
 * would bypass the policy, their credentials are not COMMAND's); then
 * sbx's proxy (net_http_proxy_vars, ALL_PROXY, NO_PROXY; JAVA_TOOL_OPTIONS
 * after the caller's, GIT_SSH_COMMAND with a ProxyCommand through the
 * SOCKS port: docs/MACOS.md), `[env] set` (which may replace any of them),
 * SBX_SANDBOX=1 (the nested-sandbox marker) and the shim, first in
 * DYLD_INSERT_LIBRARIES. Any other DYLD_ variable of the caller's is
 * dropped: it would load or find libraries of its choosing in every
 * process, the shim's checks included. 0 or -ENOMEM. */
int darwin_launch_env(const struct darwin_launch_in *in, struct strv *envp,
		      struct strv *withheld);

#endif
