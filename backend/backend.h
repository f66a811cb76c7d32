/* backend/backend.h: "build and run the boundary", the seam between a
 * run's phases (preload/main.c) and the ways a boundary is made: the
 * types a backend is given (the plan, the process it starts) and the
 * operations main() asks of the one the mode phase chose. Behind it:
 * backend/linux/linux.c, bubblewrap and the nested mode (Landlock); a
 * macOS one (Seatbelt) stands beside them with its own ops. A backend
 * includes nothing of preload/: what it needs of the supervisor's is
 * below both (common/msg.h), and the wait for the process it started is
 * the supervisor's own, over struct sandbox. */
#ifndef SBX_BACKEND_H
#define SBX_BACKEND_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/control.h"
#include "common/strv.h"

struct covered;
struct darwin;
struct mount_ids;
struct net_loop;
struct nested;
struct policy;
struct standins;

/* ---- the plan (preload/plan.c makes it from the compiled policy) */

/* Read-denied paths one run may hide, each a mount (plan.c): past it the
 * run stops, naming the first one left (plan.masks_cut). */
#define PLAN_MASKS_MAX 4096

struct plan {
	struct strv argv;         /* bwrap ... -- sbx-init ... -- COMMAND ... */
	size_t init_at, cmd_at;   /* where sbx-init and COMMAND start in argv */
	struct strv init_ops;     /* sbx-init's mount operations (init/mounts.h), in order */
	/* Protected paths that do not exist yet, one per --ro-new= op, in
	 * order: each gets a stand-in (standin.h). */
	struct strv placeholders_pending;
	/* With the notify layer instead: protected paths that do not exist
	 * yet, which the layer refuses to make (notify_refuse()); no stand-in. */
	struct strv refused_new;
	char *placeholder_state;  /* plan_make_placeholders(): one PLACEHOLDER_* each */
	struct standins *standins; /* the run's record (main's; NULL: none kept) */
	struct strv unguarded;    /* protected names missing at start, no stand-in */
	char *placeholder_failed; /* the one plan_make_placeholders() could not make */
	unsigned read_masks;      /* read-denied paths hidden */
	char masks_cut[PATH_MAX]; /* the first read-denied path past PLAN_MASKS_MAX */
	unsigned write_protects;  /* paths bound read-only inside writable roots */
	/* the caller's variables COMMAND does not get (deny_env, or a
	 * secret-looking name no keep_env keeps), as "NAME" in order; the
	 * start-up line counts them, --verbose names them */
	struct strv withheld;
	struct covered *covered;  /* plan.c's own, between the two phases */
	struct strv guarded;      /* every path made read-only (for reports) */
	struct strv gitdirs;      /* git directories in the writable roots (gitprov.h) */
	/* plan_guards() (macOS): the directories on the way to what guarded
	 * lists, never renamed or removed (Linux pins them: --pin=) */
	struct strv pinned;
	struct mount_ids *mount_ids; /* what each mount lands on (mountids.h) */
	void (*mount_ids_free)(struct plan *pl); /* set with it: plan_free() calls it */
};

/* What became of a placeholder; sbx-init gets them in its "go" message
 * (init/mounts.h: --ro-new; control.h: enum ctl_new_state). */
#define PLACEHOLDER_MADE CTL_NEW_MADE
#define PLACEHOLDER_THERE CTL_NEW_THERE
#define PLACEHOLDER_SKIP CTL_NEW_SKIP

/* ---- the process the boundary runs in */

/* bubblewrap is started before the policy is compiled, reading its
 * arguments from a socket (`--args FD`): its exec and loading overlap our
 * work. sbx-init then waits for "go" (sandbox_go) before it mounts, so the
 * placeholders and the shim's descriptors are made while bubblewrap sets up
 * the namespaces. */
struct sandbox {
	pid_t pid;          /* bubblewrap */
	int sfd;            /* signalfd: the forwarded signals and SIGCHLD */
	int args_fd;        /* our end of bubblewrap's --args socket */
	int ctl;            /* our end of the control socket */
	int ctl_child;      /* sbx-init's end (closed here once bwrap has it) */
	sigset_t orig;      /* the signal mask to restore */
	unsigned ignored;   /* the forwarded signals our caller had ignored */
	/* the nested mode's child, during the spawn only: the Landlock
	 * ruleset, COMMAND's environment and directory */
	int ruleset;
	char **envp;
	const char *cwd;
};

/* A struct sandbox with nothing started and nothing open. */
#define SANDBOX_NONE ((struct sandbox){ .pid = -1, .sfd = -1, .args_fd = -1, .ctl = -1, \
				       .ctl_child = -1, .ruleset = -1 })

/* ---- the operations */

/* One run's backend: the ops the mode phase chose and what they keep. */
struct backend {
	const struct backend_ops *ops;
	struct sandbox sb;       /* bubblewrap, or sbx-init in the nested mode */
	struct nested *nest;     /* the nested mode's (nested.h; main's) */
	struct darwin *darwin;   /* macOS's (backend/darwin/darwin.h; main's) */
	const struct policy *policy; /* what the boundary is built from */
	const char *init;        /* sbx-init */
	char *const *command;    /* COMMAND [ARG...] */
};

/* In the order main()'s phases call them. Each returns 0 or -errno. */
struct backend_ops {
	const char *name;
	/* plan: the plan's first part is made (plan_bwrap): what the
	 * boundary takes before the rest is planned goes out (bubblewrap's
	 * options, while it makes the namespaces). -EPIPE or -ECONNRESET:
	 * the boundary is gone already, wait() says how. */
	int (*send_plan)(struct backend *b, const struct plan *pl);
	/* start: the whole plan is made: the boundary built from it and
	 * sbx-init started inside, waiting for go() (the nested mode's
	 * ruleset; bubblewrap was started early). `why` names what failed. */
	int (*start)(struct backend *b, const struct plan *pl, char *why, size_t whysz);
	/* The start-up line's words for the layers (out), or NULL for the
	 * full boundary (namespaces, mounts, seccomp). */
	const char *(*layers)(const struct backend *b, char *out, size_t outsz);
	/* The proxy's listeners are the backend's own (the nested mode's, on
	 * the host's loopback): given to the proxy's loop before go(). NULL:
	 * sbx-init makes them and hands them over during wait(). */
	int (*serve)(struct backend *b, struct net_loop *net);
	/* COMMAND may start: sbx-init's options, the stand-ins' states and
	 * the descriptors the holder keeps (the shim's: nfds 0 or 3). */
	int (*go)(struct backend *b, const struct plan *pl, const int *fds, size_t nfds);
	/* COMMAND ran: the supervisor's wait (preload/run.c: sandbox_wait,
	 * over b->sb) is over; what the backend still has to reap. NULL:
	 * nothing. */
	void (*waited)(struct backend *b);
	/* What is left: a boundary not waited for killed and reaped. */
	void (*release)(struct backend *b);
};

extern const struct backend_ops backend_bwrap;  /* bubblewrap, sbx-init, seccomp, notify */
extern const struct backend_ops backend_nested; /* Landlock and seccomp, no bubblewrap */
extern const struct backend_ops backend_darwin; /* macOS: Seatbelt, sandbox-exec */

#endif
