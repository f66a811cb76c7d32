/* preload/preload.h: what the supervisor's files share. Not a public API. */
#ifndef SBX_SUPERVISOR_H
#define SBX_SUPERVISOR_H

#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include <stdio.h>
#include <sys/types.h>

#include "backend/backend.h"
#include "common/control.h"
#include "common/msg.h"
#include "common/strv.h"
#include "policy/policy.h"
#include "common/wire.h"
#include "backend/relay.h"

/* ---- util.c */

/* Append `arg` to out, quoted for a POSIX shell when it needs it. */
void shell_quote(const char *arg, char *out, size_t outsz);

/* The running program's real path (Linux: /proc/self/exe; macOS: the
 * executable's path, resolved): 0 or -errno. */
int self_path(char *out, size_t outsz);

/* Find an executable in $PATH (or take an absolute/relative path as is). */
/* bubblewrap: $SBX_BWRAP (absolute only: -EINVAL otherwise) or the first
 * of sbx_bwrap_dirs holding an executable `bwrap`; never $PATH. */
extern const char *const sbx_bwrap_dirs[];
int find_bwrap(char *out, size_t outsz);

/* ---- options.c */

struct flag_setting {
	const char *section, *key, *value, *flag;
};

struct options {
	const char *config;
	const char *workspace;
	const char *log;
	const char *learn_out; /* --learn=FILE */
	const char *profile;   /* --profile NAME ("none": no profile) */
	const char *print_profile; /* --print-profile NAME */
	int report_fd;         /* --report-fd N, else -1 */
	const char *report_file; /* --report-file PATH */
	struct flag_setting *settings; /* --allow-write etc., in order */
	size_t nsettings;
	int *keep_fds;         /* --keep-fd N, in order */
	size_t nkeep_fds;
	bool no_sandbox, no_shim, trace, learn, print, cleanup;
	bool print_json; /* --print=json */
	bool print_seatbelt; /* --print=seatbelt (command optional: NULL) */
	char **command; /* borrowed from argv; NULL with --cleanup */
};

/* 0 = run; 1 = done (help/version printed, exit 0); -1 = usage error
 * (message printed, exit 125). */
int options_parse(int argc, char **argv, struct options *o);
void options_free(struct options *o);

/* ---- start.c: the parts of a run's start both mains share (main.c,
 * Linux's; darwin-main.c, macOS's). Each that can fail says why and
 * returns SBX_EXIT_SETUP, or -errno after a message (start_report_output). */

/* The run's stamp (`%Y%m%d-%H%M%S`, local time) and id (stamp-pid), sbx's
 * state and configuration directories ($XDG_*, else under HOME) and the
 * session directory's path in the state one: 0, or SBX_EXIT_SETUP after
 * a message. */
#define START_STAMP_MAX 64
#define START_RUN_ID_MAX 96
int start_names(const char *home, char stamp[START_STAMP_MAX], char run_id[START_RUN_ID_MAX],
		char sdir[PATH_MAX], char cdir[PATH_MAX], char session[PATH_MAX]);
/* Where report lines go: stderr, --report-fd N or --report-file PATH
 * (opened now, before anything of COMMAND's exists). Neither reaches
 * COMMAND: a program that could write to it could forge sbx's lines. The
 * descriptor, or -errno after a message. */
int start_report_output(const struct options *o);
/* sbx's state directory (the audit log, learned policies, stand-in
 * records, sessions, the darwin backend's sentinels), made when missing
 * (HOSTFS_CREATE) and held; -1 when it cannot be (said once: a link or a
 * stranger's directory on the way loudly). */
int start_state_open(const char *sdir, unsigned flags);
/* isolation = strict's session directory, made in the held state
 * directory: 0, or SBX_EXIT_SETUP after a message. */
int start_session_dir(int state_fd, const char *sdir, const char *session);
/* The audit log's path (--log, [report] log, else sbx's own) into out: 0,
 * or SBX_EXIT_SETUP after a message. */
int start_audit_path(const struct options *o, const struct policy *p, const char *cwd,
		     const char *sdir, char *out, size_t outsz);
/* A path sbx would build from `base` does not fit in PATH_MAX: said (the
 * run stops: a path cut short would name another file). */
void start_path_too_long(const char *what, const char *base);
/* The profile's arguments for COMMAND when the profile is COMMAND's own
 * (`sbx-preload claude`, `--profile codex -- codex`), in `insert`
 * (NULL-terminated, at most SBX_INSERT_ARGS_MAX): `[profile] args` as
 * written, then the claude hook's --settings (in `json`). Said. */
void start_profile_args(const struct options *o, const struct policy *p, const char *home,
			const char **insert, char *json, size_t jsonsz);
/* The filtering proxy for this run: a loop over the policy whose events
 * are reports (its listeners come from the backend). Raises our
 * RLIMIT_NOFILE (a tunnel is two sockets and two pipes); 0 or -errno. */
struct net_loop;
struct reports;
int start_proxy(const struct policy *p, struct reports *r, bool learn, struct net_loop **out);
/* The same, served on the backend's own listeners (backend_ops.serve:
 * the nested mode's, macOS's): 0, or SBX_EXIT_SETUP after a message. */
int start_proxy_served(struct backend *be, const struct policy *p, struct reports *r, bool learn,
		       struct net_loop **out);
/* The caller's RLIMIT_NOFILE back, for a COMMAND run without a sandbox. */
void start_restore_nofile(void);
/* COMMAND exec'd as it is, after the WARNING that says `why`
 * (--no-sandbox, `enabled = false`, fallback = warn), with the caller's
 * RLIMIT_NOFILE and signal dispositions (common/guard.h): returns only
 * when the exec failed, SBX_EXIT_NOTFOUND or SBX_EXIT_NOEXEC after a
 * shell's message. */
int start_unsandboxed(char *const *command, const char *why);
/* The network as the start-up line and --print say it. */
void start_network_text(const struct policy *p, char *out, size_t outsz);
/* The start-up line's counts: what the boundary guards now. */
struct start_counts {
	unsigned read_denied, write_protected;
	size_t withheld;        /* the caller's variables COMMAND does not get */
	const char *limits;     /* [limits] as enforced ("" or NULL: none) */
};
/* `sbx-preload: sandbox on — workspace ..., network ..., counts`; mode:
 * the backend's words for its layers, NULL for the full boundary (whose
 * /tmp is private). Said before COMMAND runs. */
void start_line(const struct policy *p, const struct start_counts *c, const char *mode);
/* --verbose: the withheld variables' names, and why. */
void start_withheld_said(const struct policy *p, const struct strv *withheld);

/* ---- plan.c: the policy as a bubblewrap command line and sbx-init's mounts */

#define SBX_INSERT_ARGS_MAX 16

struct plan_in {
	const struct policy *policy;
	const char *bwrap;     /* path to bwrap */
	const char *init;      /* path to sbx-init */
	char *const *command;  /* COMMAND [ARG...] */
	/* Arguments sbx-init puts after COMMAND's name (a profile's args, the
	 * claude profile's --settings with sbx's hook), at most
	 * SBX_INSERT_ARGS_MAX; NULL-terminated or NULL. */
	const char *const *insert_args;
	char **environ;        /* the caller's environment */
	const char *cwd;
	int ctl_fd;            /* fd sbx-init reports on, -1 for --print */
	unsigned ignored_signals; /* bit n: signal n was ignored by our caller */
	const char *shim_lib;     /* LD_PRELOAD this, or NULL for no shim */
	const char *shim_spec;    /* SBX_SHIM's value, without the descriptors
				   * (sbx-init adds them: they come in "go") */
	bool make_placeholders; /* false for --print: touch nothing on the host */
	/* The filtering proxy serves this run (policy_network_proxied, not
	 * --print): sbx-init makes its listeners at the ports below and
	 * COMMAND's environment points clients at them (docs/NETWORK.md). */
	bool proxy;
	/* The proxy's ports, 0 for SBX_PROXY_HTTP_PORT/SBX_PROXY_SOCKS_PORT:
	 * the nested mode's listeners are on the host's loopback, at ports
	 * the kernel chose (nested.h). */
	unsigned http_port, socks_port;
	/* The nested mode (nested.h): sbx-preload makes the proxy's
	 * listeners, sbx-init makes none. */
	bool nested;
	/* The seccomp notify layer (notify.h) serves this run: sbx-init
	 * installs the second filter and hands over its listener. */
	bool notify;
	/* sbx's state directory (real path), or NULL: its stand-in records
	 * are hidden inside (any program may flock() a file it can open) */
	const char *state_dir;
	/* [limits] pids as RLIMIT_NPROC, set by sbx-init (runlimits.h); 0: none */
	uint64_t limit_nproc;
	/* What the last walk of this workspace found (walkrec.h), or NULL:
	 * read and added to by the walk; main saves it */
	struct walkrec *walkrec;
};

/* The proxy's ports on the sandbox's own loopback (127.0.0.1 and [::1]).
 * Fixed, as in the reference runtime: the namespace is the sandbox's alone,
 * so they are always free when sbx-init makes them, and a proxy setting a
 * program writes down stays right for the next run (docs/NETWORK.md). */
#define SBX_PROXY_HTTP_PORT 3128
#define SBX_PROXY_SOCKS_PORT 1080
/* [network] host_ports: at most this many (sbx-init's CTL_HOST_PORTS_MAX) */
#define SBX_HOST_PORTS_MAX 16


/* The whole plan (--print); or in two phases: plan_bwrap() (bubblewrap's
 * options, cheap: bubblewrap gets them at once) then plan_init() (sbx-init's
 * arguments, the shim's spec among them, the masks and write-protects,
 * which look at the disk, and COMMAND). On failure the plan is freed. */
int plan_build(const struct plan_in *in, struct plan *out);
/* --print=json (print.c): the plan as {"argv":[...],"cwd":...,"env":{...}}. */
void print_plan_json(const struct plan *pl, const char *cwd);
/* --print=seatbelt (print.c): the policy as a macOS Seatbelt profile, as a
 * sandbox-exec command on stdout. 0, or SBX_EXIT_SETUP with a message. */
int print_seatbelt(const struct policy *p, const char *run_id, const char *state_dir,
		   char *const *command);
int plan_bwrap(const struct plan_in *in, struct plan *out);
/* macOS's plan (preload/darwin_main.c): no bubblewrap, the same look at
 * the disk plan_init() makes and the same decisions (what a later program
 * runs that no rule names: a repository's hooks, config and the
 * core.hooksPath it names, a bare one's, a linked worktree's entry, a
 * `.git` file, an included config, a link to nothing), nothing mounted,
 * made or counted against a mount's limits. out->guarded: each such path,
 * where it leads when that differs, and the links on the way to them; the
 * Seatbelt profile denies writing them (seatbelt_opts.kept); out->pinned:
 * the directories on the way, never renamed or removed (.pinned). in: policy,
 * environ, state_dir; make_placeholders and notify true (a missing one
 * is listed, never made); walkrec NULL. On failure the plan is freed. */
int plan_guards(const struct plan_in *in, struct plan *out);
int plan_init(const struct plan_in *in, struct plan *pl);
/* What the walk's record depends on besides the policy, as text for its
 * key (walkrec.h). */
const char *plan_walk_id(void);
/* Make the planned stand-ins (after bubblewrap has its arguments, while it
 * sets up the namespaces), through pl->standins. 0, or -errno: -ENOMEM,
 * -ENOLCK (no record kept), or an error COMMAND might not meet (ENOSPC,
 * the parent gone...), after which none is left. */
int plan_make_placeholders(struct plan *pl);
void plan_free(struct plan *pl);
/* The run no longer needs its stand-ins: remove those no other live run
 * relies on (standins_release). */
void plan_remove_placeholders(struct plan *pl);
/* Protected names that were missing at start with no stand-in (the shim
 * refuses them) and exist now: each passed to fn; how many. */
size_t plan_appeared(const struct plan *pl, void (*fn)(void *ctx, const char *path), void *ctx);

/* ---- loginpath.c: the directories a login shell puts on PATH under HOME,
 * read from its start-up files as text (never by running the shell), as
 * `HOME/a:HOME/b` in out (cut whole where it does not fit; "" for none). */
void loginpath_read(const char *home, char *out, size_t outsz);

/* ---- reports.c: the shim's reports, re-decided, folded, logged
 *
 * The report pipe is hostile input (docs/REPORTS.md, "The report stream is
 * hostile input"): anything in the sandbox can write to it. A line is a
 * claim: the supervisor parses it strictly, decides the operation again
 * with its own copy of the policy, sanitises every string it prints or
 * logs, and bounds what a flood can cost it. */

enum reports_mode { REPORTS_ENFORCE, REPORTS_TRACE, REPORTS_LEARN };

/* What a flood may cost, per run. 0 in a field: the default (in
 * parentheses). */
struct reports_limits {
	size_t seen_max;          /* distinct reports kept for folding and --learn (16384) */
	size_t seen_bytes;        /* ... and the memory they may take (8 MiB) */
	unsigned say_burst;       /* terminal lines at once (500) */
	unsigned say_per_sec;     /* ... then a second (50) */
	unsigned log_burst;       /* audit records at once (10000) */
	unsigned log_per_sec;     /* ... then a second (1000) */
	unsigned long long log_max; /* bytes the run may add to the audit log (16 MiB) */
	unsigned fold_lines;      /* "(xN more)" lines at the end, then one counting the rest (20) */
};

struct reports_cfg {
	const struct policy *policy; /* the policy the shim judges by */
	/* --learn: the relaxed policy the run is confined by. An operation
	 * the user's policy would refuse becomes something to learn only if
	 * this one let it happen. NULL: the same as policy. */
	const struct policy *relaxed;
	const char *log_path;        /* JSON Lines audit log; NULL = none */
	const char *run_id;          /* groups one run's lines in the log */
	enum reports_mode mode;
	int out_fd;                  /* where the friendly lines go (stderr) */
	/* Keep the lines until reports_flush() (the supervisor flushes once
	 * the pipe has been quiet a moment: a program that was just refused
	 * is usually writing its own error line, and ours should not land in
	 * the middle of it). false: each line is written as it comes. */
	bool hold;
	/* How lines reach out_fd ([report] stderr): AUTO holds them while
	 * out_fd is a terminal in raw mode (a full-screen program draws
	 * there) and writes them once it is back in canonical mode or at
	 * the end; END holds them all until reports_finish(); OFF writes
	 * nothing there (the audit log has everything). */
	enum sbx_report_stderr tty;
	/* Is out_fd a terminal in raw mode? NULL: ask it (tcgetattr). */
	bool (*tty_busy)(int fd);
	/* Paths the boundary keeps read-only that no policy rule names (the
	 * hooks and config of a submodule's git directory...): a refusal
	 * there is said to be the sandbox's, not a missing path's. */
	char *const *guarded;
	size_t nguarded;
	bool nested;                 /* the nested mode (its seccomp rows explained) */
	/* The boundary's refusals come from the system log, after the shim's
	 * line for the same refusal (macOS: Seatbelt's). */
	bool log_after;
	struct reports_limits limits;
	/* Milliseconds on a monotonic clock, for the rate limits; NULL: the
	 * real one (the unit tests bring their own). */
	unsigned long long (*clock_ms)(void);
};

/* What the supervisor makes of one report, for the line and the log. */
struct report_expl {
	enum sbx_verdict verdict;  /* the policy's answer for the operation */
	/* The supervisor's decision (WIRE_DENY, WIRE_ALLOW, or WIRE_LEARN for
	 * would-deny), never the shim's: the policy denies it, so it is a
	 * denial whatever the line said; a claimed refusal of what the policy
	 * allows stays a refusal (the boundary's: it cannot widen anything). */
	char decision;
	char claimed;              /* the line's decision when it differs, else 0 */
	bool candidate;            /* --learn may make it a setting (reports.c) */
	bool has_rule;
	enum sbx_rule_kind kind;
	char rule[PATH_MAX + 64];  /* "deny_read = ~/.ssh" */
	char source[PATH_MAX];     /* "~/.config/sbx/sandbox.ini:7", "default" */
	char note[PATH_MAX];       /* the source, or "built-in default" */
	char fix[PATH_MAX + 32];   /* "--allow-write ~/x", or "" */
	/* no fix because it would open a place of HOME a later program runs
	 * from: "~/.pyenv: what it is" (policy_hint_runs_later), or "" */
	char runs_later[PATH_MAX + 512];
	/* no fix because the new name is renamed over this file beside it,
	 * right in HOME or a top-level directory (policy_hint_renames), or "" */
	char renames[PATH_MAX];
	char shown[PATH_MAX];      /* the target as the person writes it, printable */
	bool unbound;              /* allowed by `rule`, refused: not there at start */
	bool boundary;             /* decided by the notify layer (seccomp), not the shim */
	/* ... that is, by Seatbelt (EVENT_SEATBELT, macOS): said with
	 * "(Seatbelt)", logged with layer "seatbelt" */
	bool seatbelt;
	const char *guarded;       /* kept read-only by the boundary: this path */
	bool nested_eperm;         /* a write the policy allows, EPERM in the nested mode */
	/* a device node the sandbox does not give (the nested mode's /dev is
	 * an allow-list): 1 another terminal (the person's), 2 anything else */
	int device;
};
/* Long enough for any report: a 4 KiB target escaped, rule and fix. */
#define REPORT_LINE_MAX (6 * PATH_MAX)

struct reports;
int reports_new(const struct reports_cfg *cfg, struct reports **out);
/* Bytes as read from the report pipe (any split). */
void reports_feed(struct reports *r, const char *data, size_t n);
/* Lines held (cfg.hold) and not written yet? Write them, as far as the
 * output has room now. */
bool reports_pending(const struct reports *r);
/* Does the file the lines go to end inside a line of COMMAND's own (a
 * regular file shared with it, its last byte no newline)? *size: that
 * file's size then (-1 for no regular file), so the caller can tell a
 * line still being written from one left open. */
bool reports_midline(const struct reports *r, off_t *size);
void reports_flush(struct reports *r);
/* The output when held lines wait for room on it (a full non-blocking
 * pipe): poll it for POLLOUT, then reports_flush(). -1 otherwise. */
int reports_room_fd(const struct reports *r);
/* The run is over: repeats, then the one-line summary. dropped: the
 * shim's count; the long lines begun as pieces and never finished are
 * added to it (common/wire_join.h). */
void reports_finish(struct reports *r, unsigned long dropped);
void reports_free(struct reports *r);
/* One event of any layer's (common/event.h): the shim's parsed line
 * (reports_feed), the notify layer's decisions (preload/notify/), the
 * proxy's and the resolver's (net/, through net_cfg.report). An access
 * the shim claims is decided again by the policy; the notify layer's and
 * the proxy's are theirs. Said on the terminal by one writer (folded:
 * once per decision, op and target; a refused call once per call, reason
 * and program) and logged by one (record_write), layer "shim", "notify"
 * or "proxy". Allowed ones only under --trace. */
struct event;
void reports_event(struct reports *r, const struct event *ev);
/* A line of the supervisor's own, said now (held like the others) and
 * logged as a notice. */
void reports_say_notice(struct reports *r, const char *kind, const char *line);
/* The supervisor found no descriptor for a connection (the proxy's
 * accept or dial, the notify layer's pidfd): one line and a notice, once
 * a run. */
void reports_nofile(struct reports *r);

/* One distinct operation of the run, as the supervisor decided it. */
struct report_item {
	char decision;      /* the supervisor's: WIRE_DENY, WIRE_ALLOW, WIRE_LEARN */
	enum wire_op op;
	const char *target; /* absolute and normal for file operations */
	/* --learn may turn it into a setting: the line said would-deny, the
	 * user's policy refuses it with no rule naming it (no deny_read,
	 * deny_write, mandatory or deny_domains rule), and the learning run
	 * let it happen: a write the relaxed policy allows (as written and
	 * where it leads), or a lookup of a plain host name. Never a read,
	 * an exec, a connect or a cut target. */
	bool candidate;
	bool dir; /* a directory being made (mkdir) */
};
/* Every distinct operation of the run, for --learn (not the ones a full
 * table no longer kept: a notice says so). */
void reports_each(const struct reports *r,
		  void (*fn)(void *ctx, const struct report_item *it), void *ctx);

/* One report line, parsed strictly: wire_decode(), then the target must
 * hold no control byte once decoded, and a file operation's must be
 * absolute and normal (no `.`, `..`, `//` or trailing `/`). 0, or
 * -EBADMSG: malformed, not to be acted on. */
int report_parse(const char *line, size_t len, struct wire_report *w);
/* The next character of a NUL-terminated string: its code point and, in
 * *len, how many bytes it took (0 at the NUL). Strict UTF-8 (RFC 3629): an
 * overlong form (C0 8A), a surrogate (ED A0 80), anything past U+10FFFF
 * (F4 90 80 80) or a cut sequence is ill-formed, and each maximal ill-formed
 * part is one U+FFFD (as Unicode recommends and Python's "replace" does). */
unsigned report_utf8_next(const char *s, size_t *len);
/* s for the terminal, into out (NUL-terminated, cut between characters):
 * valid UTF-8, ill-formed bytes as U+FFFD; C0 controls and DEL as \xNN,
 * C1 controls (U+0080-U+009F) and the bidirectional overrides as \uNNNN,
 * and, when `backslash`, a backslash as \\ (so a name cannot pass for
 * an escape). Returns the length. */
/* A notice of the supervisor's own in the audit log ("op":"notice"), not
 * on the terminal: the caller says it there. */
void reports_notice(struct reports *r, const char *kind, const char *message);
size_t report_printable(const char *s, char *out, size_t outsz, bool backslash);
/* s as a JSON string, quotes included, into f: valid UTF-8 (ill-formed
 * bytes as \ufffd), every C0 and C1 control, DEL, U+2028/U+2029 and the
 * bidirectional overrides escaped as \uNNNN. */
void report_json_string(FILE *f, const char *s);
/* Exposed for the unit tests. */
void report_explain(const struct policy *p, const struct wire_report *w,
		    struct report_expl *e);
size_t report_line(const struct wire_report *w, const struct report_expl *e,
		   char *out, size_t outsz);

/* ---- learn.c: the sandbox.ini a --learn run needed */

struct learn_in {
	const struct policy *policy;  /* the user's policy the run was judged by */
	const struct reports *reports;
	const char *user_file;        /* the user's sandbox.ini, or "" */
	char *const *command;
	const struct flag_setting *flags; /* flags given (kept in the output) */
	size_t nflags;
};
/* May `dir` be allowed whole for the paths below it? Not HOME or above,
 * not `/` or a top-level directory. */
bool learn_foldable(const char *dir, const char *home);
/* Why `allow_write = path` (a real path) must not be learned, or NULL: HOME
 * or above, `/` or a top-level directory, a link on the way, protected by
 * a mandatory, deny_write or deny_read rule of p, or not readable back as
 * written (learn.c). The string is static. */
const char *learn_refuse_path(const struct policy *p, const char *path);
/* Why `allow_domains = host` must not be learned (a wildcard, a separator,
 * a character no host name has), or NULL. */
const char *learn_refuse_host(const char *host);
/* Write the learned sandbox.ini to path (absolute; its directory, walked
 * without links, is made when missing): replaced whole, never written
 * through a link. 0, or -errno with err saying why. What may not be
 * learned is said on stderr and left out. */
struct hostfs_err;
int learn_write(const struct learn_in *in, const char *path, struct hostfs_err *err);

/* ---- run.c: the wait (the process driver: backend/linux/process.h) */

struct net_loop;
struct run_in {
	int report_fd;             /* read end of the report pipe, or -1 */
	struct reports *reports;
	/* The filtering proxy (net/net.h), or NULL when the run has none.
	 * sbx-init hands over its listeners before COMMAND starts ("N"):
	 * they must be at these ports, and are served by this loop. */
	struct net_loop *net;
	unsigned http_port, socks_port;
	bool dns;                   /* the resolver's two sockets come too */
	const unsigned *host_ports; /* host_ports: one listener per port (and [::1]) */
	size_t nhost_ports;
	/* The seccomp notify layer (notify.h), or NULL: sbx-init hands over
	 * its listener ("F") before "ready", and it is served in this loop. */
	struct notify *notify;
	/* The proxy's listeners are in the loop already (the nested mode's,
	 * nested.h): no "N" message is awaited. */
	bool served;
	bool stopped;              /* out: we stopped the run ourselves, and said why */
};
/* Forward signals, collect reports, serve the proxy, and wait; returns the
 * exit status to give (COMMAND's, 128+N). *ready is set when sbx-init
 * reported that the sandbox stands; when it is not, nothing ran and the
 * caller decides. When sbx-init reports that no process of COMMAND's is
 * left, removes the placeholders, takes the last reports and returns at
 * once: bubblewrap and the namespaces finish going away on their own, as
 * with bare bubblewrap. */
int sandbox_wait(struct sandbox *sb, struct plan *pl, struct run_in *ri, bool *ready);
#endif
