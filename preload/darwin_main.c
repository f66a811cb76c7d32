/* preload/darwin_main.c: sbx-preload on macOS — build the policy, then a
 * Seatbelt profile under /usr/bin/sandbox-exec (backend_darwin), then
 * run. The same options, sandbox.ini, start-up line, report lines, audit
 * records and exit status as Linux's main.c; its Linux-only phases
 * (bubblewrap, the notify layer, Landlock, the stand-ins, the walk's
 * record, the cgroups) have no counterpart here, its portable parts are
 * shared (start.c, options.c, config.c, profile.c, reports.c, print.c).
 *
 * The macOS build (build/darwin/sbx-preload) runs /usr/bin/sandbox-exec
 * and /usr/bin/log only, never from PATH, never from the environment
 * (built on Linux too, where it fails closed for want of them). Its test
 * build (build/tests/darwin/sbx-preload, Makefile) links darwin_programs.c
 * compiled with SBX_DARWIN_STANDINS, a directory beside the program that
 * holds stand-ins for the two (tests/integration/darwin.sh). */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend/darwin/darwin.h"
#include "common/event.h"
#include "common/guard.h"
#include "common/hostfs.h"
#include "net/net.h"
#include "preload/config.h"
#include "preload/darwin_programs.h"
#include "preload/mode.h"
#include "preload/preload.h"
#include "preload/profile.h"

extern char **environ;

/* The phases' return: go on, or the exit status (as in main.c). */
#define RUN_ON (-1)

struct drun {
	int argc;
	char **argv;
	/* prepare */
	struct options o;
	const char *home;
	int report_out;
	char cwd[PATH_MAX], session[PATH_MAX], sdir[PATH_MAX], cdir[PATH_MAX];
	char stamp[START_STAMP_MAX], run_id[START_RUN_ID_MAX], self[PATH_MAX];
	char sandbox_exec[PATH_MAX], log[PATH_MAX], shim_lib[PATH_MAX];
	/* policy */
	char user_file[PATH_MAX];
	struct policy *p;
	/* plan: the state directory, COMMAND with the profile's arguments */
	int state_fd;
	const char *insert[SBX_INSERT_ARGS_MAX + 1];
	char hook_json[PATH_MAX + 256];
	struct strv command;
	struct plan pl; /* what the disk says stays unwritten (plan_guards) */
	/* start */
	char log_path[PATH_MAX];
	struct reports *reports;
	struct net_loop *net;
	struct strv withheld;
	struct darwin d;
	struct backend be;
	/* wait */
	bool ready;
	int rc;
};

/* sandbox-exec and log: Apple's, by absolute path (the test build's
 * stand-ins instead: darwin_programs.h). */
static int find_programs(struct drun *r)
{
	return darwin_program(r->self, "sandbox-exec", r->sandbox_exec, sizeof(r->sandbox_exec)) ?:
	       darwin_program(r->self, "log", r->log, sizeof(r->log));
}

/* The shim, libsbx-preload.dylib (darwin_programs.h: where sbxctl doctor
 * looks too). None: no shim, which the start-up line's layers say. */
static const char *find_shim(struct drun *r)
{
	if (r->o.no_shim)
		return NULL;
	return darwin_find_shim(r->self, r->shim_lib, sizeof(r->shim_lib)) ? NULL : r->shim_lib;
}

static void said_swept(void *ctx, const char *name, int rc)
{
	const char *dir = ctx;

	if (rc > 0)
		msg("removed %s/%s (the shim's hand-over of a run that was killed)", dir, name);
	else
		msg("cleanup: left %s/%s: %s", dir, name, rc == -ENOTEMPTY ?
		    "it holds files sbx did not make" : strerror(-rc));
}

/* --cleanup: what killed runs left (the shim's hand-over directories:
 * macOS makes no stand-ins), removed; a live run's never. */
static int cleanup_only(const char *home)
{
	char dir[PATH_MAX];
	int fd, n;

	if (config_own_dir(home, "XDG_STATE_HOME", ".local/state/sbx", dir, sizeof(dir))) {
		msg("cleanup: cannot tell sbx's state directory");
		return SBX_EXIT_SETUP;
	}
	fd = start_state_open(dir, 0);
	n = fd < 0 ? fd : darwin_shim_sweep(fd, dir, said_swept, dir);
	if (fd >= 0)
		close(fd);
	if (n < 0 && n != -ENOENT) {
		msg("cleanup: cannot read sbx's state directory %s: %s", dir, strerror(-n));
		return SBX_EXIT_SETUP;
	}
	if (n <= 0)
		info("cleanup: nothing left by a killed run");
	return 0;
}

/* Options, HOME, the current directory, the run's stamp and sbx's
 * directories; what this build cannot do refused before anything runs. */
static int phase_prepare(struct drun *r)
{
	struct options *o = &r->o;
	int orc = options_parse(r->argc, r->argv, o);

	if (orc)
		return orc > 0 ? 0 : SBX_EXIT_SETUP;
	r->home = config_home_dir();
	if (!r->home) {
		msg("cannot tell your home directory: set HOME");
		return SBX_EXIT_SETUP;
	}
	if (o->cleanup)
		return cleanup_only(r->home);
	if (o->print_profile)
		return profile_print(o->print_profile, r->home);
	/* the shim (--learn's and --trace's only witness) has no macOS build
	 * yet, and --print's line is bubblewrap's (docs/MACOS.md) */
	if (o->learn || o->trace) {
		msg("%s works through the preload shim, which sbx on macOS does not have yet "
		    "(docs/MACOS.md); nothing was run", o->learn ? "--learn" : "--trace");
		return SBX_EXIT_SETUP;
	}
	if (o->print && !o->print_seatbelt) {
		msg("--print%s prints a bubblewrap command line (Linux's); on macOS "
		    "--print=seatbelt prints the sandbox-exec one", o->print_json ? "=json" : "");
		return SBX_EXIT_SETUP;
	}
	if ((r->report_out = start_report_output(o)) < 0)
		return SBX_EXIT_SETUP;
	if (!getcwd(r->cwd, sizeof(r->cwd))) {
		msg("cannot tell the current directory: %s", strerror(errno));
		return SBX_EXIT_SETUP;
	}
	/* the signals that must not end or stop us (common/guard.c); those
	 * the caller did not ignore go back to their default for COMMAND */
	guard_signals(&r->d.sigdefault);
	/* its own files are never writable inside */
	if (self_path(r->self, sizeof(r->self)))
		r->self[0] = '\0';
	if (find_programs(r)) {
		msg("sandbox set-up failed: cannot tell sbx-preload's own path; nothing was run");
		return SBX_EXIT_SETUP;
	}
	if (start_names(r->home, r->stamp, r->run_id, r->sdir, r->cdir, r->session))
		return SBX_EXIT_SETUP;
	return RUN_ON;
}

/* The policy: the user's file, the project's, the profile, the flags. */
static int phase_policy(struct drun *r)
{
	struct sbx_err err = { "" };
	static char login_path[8192];

	loginpath_read(r->home, login_path, sizeof(login_path));
	struct policy_ctx ctx = { .home = r->home, .cwd = r->cwd, .session_dir = r->session,
				  .state_dir = r->sdir, .config_dir = r->cdir, .environ = environ,
				  .path_env = getenv("PATH"), .login_path = login_path,
				  .own_files = { r->self[0] ? r->self : NULL } };
	int brc = config_build_policy(&r->o, &ctx, false, r->user_file, sizeof(r->user_file),
				      &r->p, &err);
	if (brc == -1)
		msg("%s", err.msg[0] ? err.msg : "cannot build the policy");
	if (brc)
		return SBX_EXIT_SETUP;
	if (r->o.print_seatbelt) /* printed, nothing run */
		return print_seatbelt(r->p, r->run_id, r->sdir, r->o.command);
	return RUN_ON;
}

/* The sandbox, or none: mode_decide()'s matrix, with Seatbelt as the
 * sandbox (always there: sandbox-exec is part of macOS; a missing one
 * fails the start, never falls back) and no nested mode. */
static int phase_mode(struct drun *r)
{
	const char *nosb = getenv("SBX_NO_SANDBOX");
	bool off_env = nosb && *nosb && strcmp(nosb, "0");
	struct mode_facts f = {
		.stage = MODE_AT_START, .off_flag = r->o.no_sandbox,
		.off_env = off_env && !r->o.no_sandbox, .disabled = !policy_enabled(r->p),
		.have_bwrap = true, .have_init = true,
		.fallback_warn = policy_fallback(r->p) == SBX_FALLBACK_WARN,
	};
	struct mode_words w = { .user_file = r->user_file };
	char text[1024];
	struct mode_choice mc = mode_decide(&f);

	mode_text(mc, &f, &w, text, sizeof(text));
	if (mc.mode == RUN_PLAIN)
		return start_unsandboxed(r->o.command, text);
	if (mc.mode != RUN_BWRAP) {
		msg("%s", text);
		return SBX_EXIT_SETUP;
	}
	/* [limits]: no cgroups, and no sbx-init to set rlimits inside */
	for (int k = 0; k < SBX_LIMIT_COUNT; k++)
		if (policy_limit(r->p, (enum sbx_limit)k)) {
			msg("[limits] are not enforced by sbx on macOS yet; remove them from "
			    "the policy to run here; nothing was run");
			return SBX_EXIT_SETUP;
		}
	return RUN_ON;
}

/* COMMAND as a shell finds it (PATH searched for a bare name): 0,
 * SBX_EXIT_NOTFOUND or SBX_EXIT_NOEXEC after a shell's message. Asked
 * before anything starts: sandbox-exec's own status for a COMMAND it
 * cannot run is not a shell's. */
static int command_runnable(const char *cmd)
{
	const char *path = getenv("PATH");
	char cand[PATH_MAX];
	int e = ENOENT;

	if (strchr(cmd, '/'))
		e = access(cmd, X_OK) ? errno : 0;
	for (const char *p = path && *path ? path : "/usr/bin:/bin"; e && !strchr(cmd, '/');) {
		size_t n = strcspn(p, ":");
		if (n && (size_t)snprintf(cand, sizeof(cand), "%.*s/%s", (int)n, p, cmd) <
		    sizeof(cand) && !access(cand, X_OK))
			e = 0;
		if (!p[n])
			break;
		p += n + 1;
	}
	if (!e)
		return 0;
	msg("%s: %s", cmd, e == ENOENT ? "command not found" : strerror(e));
	return e == ENOENT ? SBX_EXIT_NOTFOUND : SBX_EXIT_NOEXEC;
}

/* sbx's state directory (the audit log; the sentinels, where no run may
 * write), the session directory, and COMMAND with the profile's
 * arguments after its name. */
static int phase_plan(struct drun *r)
{
	int rc = command_runnable(r->o.command[0]);

	if (rc)
		return rc;
	r->state_fd = start_state_open(r->sdir, HOSTFS_CREATE);
	if (r->state_fd < 0) {
		msg("sandbox set-up failed: sbx's state directory %s is not usable; nothing "
		    "was run", r->sdir);
		return SBX_EXIT_SETUP;
	}
	if (policy_session_dir(r->p) && start_session_dir(r->state_fd, r->sdir, r->session))
		return SBX_EXIT_SETUP;
	start_profile_args(&r->o, r->p, r->home, r->insert, r->hook_json, sizeof(r->hook_json));
	int e = strv_add(&r->command, r->o.command[0]);
	for (size_t i = 0; !e && r->insert[i]; i++)
		e = strv_add(&r->command, r->insert[i]);
	for (size_t i = 1; !e && r->o.command[i]; i++)
		e = strv_add(&r->command, r->o.command[i]);
	if (e) {
		msg("out of memory");
		return SBX_EXIT_SETUP;
	}
	/* the same look at the disk as Linux's plan, for the profile */
	struct plan_in in = { .policy = r->p, .command = r->command.v, .environ = environ,
			      .cwd = r->cwd, .ctl_fd = -1, .make_placeholders = true,
			      .notify = true, .state_dir = r->sdir };
	if ((e = plan_guards(&in, &r->pl))) {
		msg("sandbox set-up failed: looking for what must stay read-only: %s; nothing "
		    "was run", strerror(-e));
		return SBX_EXIT_SETUP;
	}
	return RUN_ON;
}

static void to_reports(void *ctx, const struct event *ev)
{
	reports_event(ctx, ev);
}

/* What the start-up line counts, as Linux's says it: the paths guarded
 * now (a rule's path that exists; the profile refuses the others too,
 * should they be made), the names refused at any depth apart. */
static unsigned guarded_now(const struct policy *p, enum sbx_rule_kind kind)
{
	size_t n;
	const struct sbx_rule *const *rs = policy_rules(p, kind, &n);
	unsigned k = 0;
	struct stat st;

	for (size_t i = 0; i < n; i++)
		k += rs[i]->pat == SBX_PAT_PREFIX && lstat(rs[i]->pattern, &st) == 0;
	return k;
}

/* A signal that ends a run came before COMMAND started: nothing ran,
 * and the status says the signal, as a shell would for COMMAND. */
static int stopped(int sig)
{
	msg("stopped by signal %d (%s) before COMMAND started; nothing was run", sig,
	    strsignal(sig));
	return 128 + sig;
}

/* The reports, the profile and the log's watch (start), the start-up
 * line, the proxy, COMMAND under sandbox-exec (go). */
static int phase_start(struct drun *r)
{
	char why[PATH_MAX + 256], layers[512];

	if (start_audit_path(&r->o, r->p, r->cwd, r->sdir, r->log_path, sizeof(r->log_path)))
		return SBX_EXIT_SETUP;
	struct reports_cfg rcfg = { .policy = r->p, .log_path = r->log_path,
				    .run_id = r->run_id, .mode = REPORTS_ENFORCE,
				    .out_fd = r->report_out, .hold = true, .log_after = true,
				    .tty = policy_report_stderr(r->p),
				    /* a relayed terminal is raw by us: the
				     * program's own terminal says (relay.c) */
				    .tty_busy = relay_tty_busy,
				    .guarded = r->pl.guarded.v, .nguarded = r->pl.guarded.n };
	if (reports_new(&rcfg, &r->reports)) {
		msg("out of memory");
		return SBX_EXIT_SETUP;
	}
	struct darwin *d = &r->d;
	d->run_id = r->run_id;
	d->shim_lib = find_shim(r);
	d->shim_tell = policy_tell_program(r->p);
	d->state_fd = r->state_fd;
	d->state_dir = r->sdir;
	d->environ = environ;
	d->withheld = &r->withheld;
	d->report = to_reports;
	d->report_ctx = r->reports;
	d->watch.sandbox_exec = r->sandbox_exec;
	d->watch.log = r->log;
	d->watch.tmpdir = r->sdir;
	r->be = (struct backend){ .ops = &backend_darwin, .policy = r->p,
				  .command = r->command.v, .darwin = d };
	int e = r->be.ops->start(&r->be, &r->pl, why, sizeof(why));
	if (e && d->stopped_by)
		return stopped(d->stopped_by);
	if (e) {
		msg("sandbox set-up failed: %s: %s; nothing was run", why, strerror(-e));
		return SBX_EXIT_SETUP;
	}
	struct start_counts c = {
		.read_denied = guarded_now(r->p, SBX_RULE_DENY_READ),
		.write_protected = guarded_now(r->p, SBX_RULE_DENY_WRITE) +
				   guarded_now(r->p, SBX_RULE_MANDATORY) + r->pl.write_protects,
		.withheld = r->withheld.n,
	};
	start_line(r->p, &c, r->be.ops->layers(&r->be, layers, sizeof(layers)));
	start_withheld_said(r->p, &r->withheld);
	/* the proxy serves before COMMAND starts (its listeners have
	 * queued nothing yet) */
	if (policy_network_proxied(r->p) &&
	    start_proxy_served(&r->be, r->p, r->reports, false, &r->net))
		return SBX_EXIT_SETUP;
	if ((e = r->be.ops->go(&r->be, NULL, NULL, 0)) && d->stopped_by)
		return stopped(d->stopped_by);
	if (e) {
		msg("sandbox set-up failed: starting %s: %s; nothing was run", r->sandbox_exec,
		    strerror(-e));
		return SBX_EXIT_SETUP;
	}
	return RUN_ON;
}

static void feed(void *ctx, const char *data, size_t n)
{
	reports_feed(ctx, data, n);
}

static bool pending(void *ctx)
{
	return reports_pending(ctx);
}

static void flush(void *ctx)
{
	reports_flush(ctx);
}

/* COMMAND runs: signals relayed, the proxy and the log served; then the
 * last reports and COMMAND's status. */
static int phase_wait(struct drun *r)
{
	struct darwin_io io = { .net = r->net, .report_fd = r->d.shim.rd, .feed = feed,
				.pending = pending, .flush = flush, .ctx = r->reports };

	r->rc = darwin_wait(&r->be, &io, &r->ready);
	reports_finish(r->reports, darwin_shim_dropped(&r->d));
	return r->ready ? r->rc : SBX_EXIT_SETUP;
}

static void run_release(struct drun *r)
{
	if (r->be.ops)
		r->be.ops->release(&r->be);
	if (r->state_fd >= 0)
		close(r->state_fd);
	net_loop_free(r->net);
	reports_free(r->reports);
	plan_free(&r->pl);
	strv_free(&r->withheld);
	strv_free(&r->command);
	policy_free(r->p);
	options_free(&r->o);
}

int main(int argc, char **argv)
{
	static int (*const phases[])(struct drun *) = {
		phase_prepare, phase_policy, phase_mode, phase_plan, phase_start, phase_wait,
	};
	static struct drun r;
	int rc = RUN_ON;

	r.argc = argc;
	r.argv = argv;
	r.report_out = STDERR_FILENO;
	r.state_fd = -1;
	r.d = DARWIN_NONE;
	for (size_t i = 0; rc == RUN_ON && i < sizeof(phases) / sizeof(phases[0]); i++)
		rc = phases[i](&r);
	run_release(&r);
	return rc;
}
