/* preload/start.c: the parts of a run's start that both of sbx-preload's
 * mains share (preload/main.c, Linux's; preload/darwin-main.c, macOS's):
 * where report lines and the audit log go, sbx's state and session
 * directories, the profile's arguments for COMMAND, the filtering proxy,
 * the start-up line, and COMMAND run without a sandbox. Portable: nothing
 * here asks for more than POSIX and the policy (preload.h, "start.c"). */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "common/guard.h"
#include "common/hostfs.h"
#include "net/net.h"
#include "preload/config.h"
#include "preload/preload.h"
#include "preload/profile.h"

/* The caller's RLIMIT_NOFILE, while ours is raised for the proxy (a tunnel
 * is two sockets and, spliced, two pipes: 1024 descriptors are 170
 * tunnels). What we exec without a sandbox gets the caller's back. */
static struct rlimit caller_nofile;
static bool nofile_raised;

static void raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &caller_nofile) || caller_nofile.rlim_cur >= caller_nofile.rlim_max)
		return;
	rl = caller_nofile;
	rl.rlim_cur = rl.rlim_max;
	nofile_raised = !setrlimit(RLIMIT_NOFILE, &rl);
}

void start_restore_nofile(void)
{
	if (nofile_raised)
		setrlimit(RLIMIT_NOFILE, &caller_nofile);
	nofile_raised = false;
}

int start_unsandboxed(char *const *command, const char *why)
{
	start_restore_nofile();
	msg("WARNING: running %s WITHOUT a sandbox (%s): it can read, write and "
	    "reach everything you can", command[0], why);
	guard_restore();
	execvp(command[0], command);
	int e = errno;
	msg("%s: %s", command[0], e == ENOENT ? "command not found" : strerror(e));
	return e == ENOENT ? SBX_EXIT_NOTFOUND : SBX_EXIT_NOEXEC;
}

/* The network as the start-up line and --print say it: off, open, or
 * through the proxy with how many rules. */
void start_network_text(const struct policy *p, char *out, size_t outsz)
{
	size_t n, nd;
	const struct sbx_rule *const *allow = policy_rules(p, SBX_RULE_ALLOW_DOMAIN, &n);
	bool star = false;

	policy_rules(p, SBX_RULE_DENY_DOMAIN, &nd);
	for (size_t i = 0; i < n; i++)
		star |= !strcmp(allow[i]->pattern, "*");
	if (policy_network_open(p))
		snprintf(out, outsz, "network on (allow_domains = *)");
	else if (!policy_network_proxied(p))
		snprintf(out, outsz, "network off");
	else if (star)
		snprintf(out, outsz, "network: every domain but %zu denied, via proxy", nd);
	else
		snprintf(out, outsz, "network: %zu domain%s via proxy (any port unless a rule "
			 "names one)", n, n == 1 ? "" : "s");
}

/* The git directories outside the workspace that isolation = workspace
 * made writable (a subdirectory's repository, a linked worktree's main
 * one): named, so a run never writes where the person did not look. */
static const char *gitdirs_text(const struct policy *p, char *out, size_t outsz)
{
	size_t n, len = 0;
	const struct sbx_rule *const *w = policy_rules(p, SBX_RULE_ALLOW_WRITE, &n);

	out[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		char shown[PATH_MAX];
		if (w[i]->origin != SBX_ORIGIN_ISOLATION ||
		    !strcmp(w[i]->pattern, policy_workspace(p)))
			continue;
		policy_tildify(p, w[i]->pattern, shown, sizeof(shown));
		int k = snprintf(out + len, outsz - len, "%s%s", len ? ", " : " and its git directory ",
				 shown);
		if (k < 0 || (size_t)k >= outsz - len)
			break;
		len += (size_t)k;
	}
	return out;
}

void start_line(const struct policy *p, const struct start_counts *c, const char *mode)
{
	char ws[PATH_MAX], sess[PATH_MAX], net[128], counts[2048], git[PATH_MAX * 2];
	const char *lt = c->limits ? c->limits : "";

	policy_tildify(p, policy_workspace(p), ws, sizeof(ws));
	start_network_text(p, net, sizeof(net));
	/* the paths guarded by a mount now, and the names refused wherever
	 * they are made (a fresh workspace has no path to mount yet, and
	 * "0 write-protected" there read as "nothing is") */
	size_t names = 0;
	static const enum sbx_rule_kind named[] = { SBX_RULE_DENY_WRITE, SBX_RULE_MANDATORY };
	for (size_t k = 0; k < sizeof(named) / sizeof(named[0]); k++) {
		size_t nw;
		const struct sbx_rule *const *dw = policy_rules(p, named[k], &nw);
		for (size_t i = 0; i < nw; i++)
			names += dw[i]->pat == SBX_PAT_ANYWHERE;
	}
	/* bubblewrap's /tmp is an empty tmpfs of the run's: the host's files
	 * there are not missing, they are elsewhere (the nested mode has no
	 * mounts: its /tmp is the host's) */
	char env[64] = "";
	if (c->withheld)
		snprintf(env, sizeof(env), ", %zu secret variable%s withheld", c->withheld,
			 c->withheld == 1 ? "" : "s");
	snprintf(counts, sizeof(counts), "%s%u read-den%s, %u write-protected, %zu protected name%s "
		 "at any depth%s%s%s%s%s", mode ? "" : "/tmp private (empty), ", c->read_denied,
		 c->read_denied == 1 ? "y" : "ies", c->write_protected, names, names == 1 ? "" : "s",
		 env, *lt ? ", limits: " : "", lt, mode ? "; " : "", mode ? mode : "");
	switch (policy_isolation(p)) {
	case SBX_ISOLATION_STRICT:
		policy_tildify(p, policy_session_dir(p), sess, sizeof(sess));
		info("sandbox on — workspace %s read-only, session %s writable, %s, %s",
		     ws, sess, net, counts);
		break;
	case SBX_ISOLATION_CUSTOM:
		info("sandbox on — workspace %s read-only (isolation = custom), %s, %s",
		     ws, net, counts);
		break;
	case SBX_ISOLATION_WORKSPACE:
		if (!strcmp(policy_workspace(p), "/"))
			info("sandbox on — workspace / read-only (it would be the whole "
			     "machine; choose one with -w DIR), %s, %s", net, counts);
		else
			info("sandbox on — workspace %s writable%s, %s, %s", ws,
			     gitdirs_text(p, git, sizeof(git)), net, counts);
		break;
	}
}

/* A path sbx would build from `base` does not fit in PATH_MAX: the run
 * stops (a path cut short would name another file). The start of `base`
 * names it; a path that long is seldom read to its end. */
void start_path_too_long(const char *what, const char *base)
{
	size_t n = strlen(base);

	msg("sandbox set-up failed: %s: %.*s%s makes a path longer than %d bytes; "
	    "nothing was run", what, (int)(n > 160 ? 160 : n), base, n > 160 ? "…" : "",
	    PATH_MAX - 1);
}

/* --verbose: which of the caller's variables COMMAND does not get, and
 * why (never their values: a value's shape is named by its row). */
void start_withheld_said(const struct policy *p, const struct strv *withheld)
{
	char secret[2048] = "", denied[2048] = "", valued[4096] = "";
	size_t ls = 0, ld = 0, lv = 0;

	for (size_t i = 0; i < withheld->n; i++) {
		const char *name = withheld->v[i];
		const struct sbx_secret_shape *sh;
		enum sbx_env_fate f = policy_env_var_fate(p, name, getenv(name), NULL, &sh);
		char *buf = f == SBX_ENV_DENIED ? denied : sh ? valued : secret;
		size_t *l = f == SBX_ENV_DENIED ? &ld : sh ? &lv : &ls;
		size_t sz = f == SBX_ENV_DENIED ? sizeof(denied) : sh ? sizeof(valued) : sizeof(secret);
		int k = sh ? snprintf(buf + *l, sz - *l, "%s%s (%s)", *l ? ", " : "", name, sh->what) :
			     snprintf(buf + *l, sz - *l, "%s%s", *l ? ", " : "", name);
		if (k > 0 && (size_t)k < sz - *l)
			*l += (size_t)k;
	}
	if (ls)
		vmsg("withheld from COMMAND's environment, their names look secret: %s "
		     "(--keep-env NAME or [env] keep_env passes one)", secret);
	if (lv)
		vmsg("withheld from COMMAND's environment, their values look like credentials: %s "
		     "(--keep-env NAME or [env] keep_env passes one)", valued);
	if (ld)
		vmsg("withheld from COMMAND's environment by deny_env: %s", denied);
}

/* sbx's state directory (the audit log, learned policies, stand-in
 * records, sessions), made when missing and held; -1 when it cannot be
 * (said once: a link or a stranger's directory on the way loudly). */
int start_state_open(const char *sdir, unsigned flags)
{
	struct hostfs_err err;
	int fd = hostfs_dir_open(sdir, flags | HOSTFS_MINE, &err);

	if (fd == -ELOOP || fd == -EPERM)
		msg("sbx's state directory is not used: %s", err.msg);
	else if (fd < 0 && fd != -ENOENT)
		vmsg("sbx's state directory is not used: %s", err.msg);
	return fd;
}

/* The --settings JSON that loads `sbxctl hook claude` (the sbxctl beside
 * sbx-preload), when COMMAND is Claude Code: true with it in `out`. The
 * hook runs inside the sandbox and judges by the run's own policy
 * (cli/hook.c). A path JSON or a shell would read otherwise is
 * never spliced in: then no hook, said with -v. The same settings turn
 * off Claude's claude-cli:// handler registration: after the first
 * prompt of every session it writes a desktop entry into
 * ~/.local/share/applications/, which the desktop runs later (a
 * protected place: refused, and a line each session). */
static bool claude_hook_settings(char *out, size_t outsz)
{
	char ctl[PATH_MAX];

	if (config_find_helper("sbxctl", "SBX_SBXCTL", X_OK, ctl, sizeof(ctl))) {
		vmsg("the claude profile's hook: no sbxctl beside sbx-preload");
		return false;
	}
	for (const char *c = ctl; *c; c++)
		if (!(isalnum((unsigned char)*c) || strchr("/._-+@", *c))) {
			vmsg("the claude profile's hook: sbxctl's path %s needs quoting; not loaded", ctl);
			return false;
		}
	return (size_t)snprintf(out, outsz, "{\"disableDeepLinkRegistration\":\"disable\","
				"\"hooks\":{\"PreToolUse\":[{\"matcher\":\"*\","
				"\"hooks\":[{\"type\":\"command\",\"command\":\"%s hook claude\"}]}]}}",
				ctl) < outsz;
}

/* Is the run's profile COMMAND's own (`sbx-preload claude`, or
 * `--profile codex -- codex`)? Only then do its arguments go after
 * COMMAND's name: `--profile codex -- node x.js` gets none. */
static bool profile_is_commands(const struct options *o, const char *home)
{
	char name[64];
	const char *base = strrchr(o->command[0], '/');

	base = base ? base + 1 : o->command[0];
	if (o->profile)
		return strcmp(o->profile, "none") && !strcmp(o->profile, base);
	return profile_for_command(o->command[0], home, name, sizeof(name)) != NULL;
}

void start_profile_args(const struct options *o, const struct policy *p, const char *home,
			const char **insert, char *json, size_t jsonsz)
{
	const char *command0 = o->command[0];
	size_t n, k = 0;
	const struct sbx_rule *const *a = policy_rules(p, SBX_RULE_PROFILE_ARG, &n);

	insert[0] = NULL;
	if (!profile_is_commands(o, home))
		return;
	for (size_t i = 0; i < n && k < SBX_INSERT_ARGS_MAX; i++)
		insert[k++] = a[i]->value;
	if (n > SBX_INSERT_ARGS_MAX)
		msg("the profile's args: only the first %d are given to the command",
		    SBX_INSERT_ARGS_MAX);
	if (policy_claude_hook(p) && k + 2 <= SBX_INSERT_ARGS_MAX &&
	    claude_hook_settings(json, jsonsz)) {
		insert[k++] = "--settings";
		insert[k++] = json;
	}
	insert[k] = NULL;
	/* said, as COMMAND will see them (the hook's JSON by name only) */
	char shown[512];
	size_t at = 0;
	for (size_t i = 0; i < k && at < sizeof(shown); i++)
		at += (size_t)snprintf(shown + at, sizeof(shown) - at, " %s",
				       insert[i] == json ? "'{sbx hook}'" : insert[i]);
	if (k)
		info("the profile runs the command as: %s%s%s", command0, shown,
		     at >= sizeof(shown) ? "…" : " …");
}

/* The proxy's events go into the run's one report stream. */
static void on_net_event(void *ctx, const struct event *ev)
{
	reports_event(ctx, ev);
}

static void on_net_nofile(void *ctx)
{
	reports_nofile(ctx);
}

/* The filtering proxy for this run: a loop over the user's policy whose
 * events are reports; sbx-init hands it the listeners. In the test build
 * only (-DSBX_TEST_HOOKS, build/tests/sbx-preload-hooks; the Makefile
 * says which tests use it), SBX_TEST_HOSTS (a hosts file that replaces
 * DNS) and SBX_TEST_DNS (the nameserver to ask) are honoured, loudly:
 * they can only point allowed names elsewhere, and the resolved-address
 * check still judges every address they give. */
int start_proxy(const struct policy *p, struct reports *r, bool learn, struct net_loop **out)
{
	/* http_proxy_port / socks_proxy_port: the user's own proxy on this
	 * host takes every allowed connection (the HTTP one when both) */
	struct net_cfg cfg = { .report = on_net_event, .nofile = on_net_nofile, .rctx = r,
			       .learn = learn,
			       .chain_http_port = policy_http_proxy_port(p),
			       .chain_socks_port = policy_http_proxy_port(p) ? 0 :
						   policy_socks_proxy_port(p) };

#ifdef SBX_TEST_HOOKS
	const char *hosts = getenv("SBX_TEST_HOSTS"), *dns = getenv("SBX_TEST_DNS");
	if (hosts && *hosts) {
		msg("SBX_TEST_HOSTS is set: the proxy resolves names from %s, not DNS "
		    "(for tests only)", hosts);
		cfg.test_hosts = hosts;
	}
	if (dns && *dns) {
		msg("SBX_TEST_DNS is set: the proxy asks the nameserver %s, not those of "
		    "/etc/resolv.conf (for tests only)", dns);
		cfg.test_dns = dns;
	}
#endif
	raise_nofile();
	return net_loop_new(p, &cfg, out);
}

/* Where report lines go: stderr, --report-fd N or --report-file PATH
 * (opened now, before anything of COMMAND's exists). Neither reaches
 * COMMAND: a program that could write to it could forge sbx's lines. The
 * descriptor, or -errno after a message. */
int start_report_output(const struct options *o)
{
	int fd = o->report_fd, e;

	if (o->report_file) {
		fd = open(o->report_file, O_WRONLY | O_APPEND | O_CREAT | O_NOCTTY | O_CLOEXEC, 0600);
		if (fd < 0) {
			e = errno;
			msg("--report-file %s: %s", o->report_file, strerror(e));
			return -e;
		}
		return fd;
	}
	if (fd < 0)
		return STDERR_FILENO;
	int acc = fcntl(fd, F_GETFL);
	if (acc < 0 || (acc & O_ACCMODE) == O_RDONLY) {
		msg("--report-fd %d: %s", fd, acc < 0 ? "not an open descriptor" :
		    "open for reading only");
		return -EBADF;
	}
	if (fd > STDERR_FILENO && fcntl(fd, F_SETFD, FD_CLOEXEC)) {
		e = errno;
		msg("--report-fd %d: %s", fd, strerror(e));
		return -e;
	}
	return fd;
}

int start_session_dir(int state_fd, const char *sdir, const char *session)
{
	struct hostfs_err herr;
	int fd = state_fd < 0 ? state_fd :
		 hostfs_dir_openat(state_fd, sdir, session + strlen(sdir) + 1,
				   HOSTFS_CREATE | HOSTFS_MINE, &herr);

	if (fd < 0) {
		msg("cannot create the session directory %s: %s", session,
		    state_fd < 0 ? "sbx's state directory is not usable" : herr.msg);
		return SBX_EXIT_SETUP;
	}
	close(fd);
	return 0;
}

/* A log the user named: its directories resolved now (theirs), the file
 * itself never followed (it is opened once COMMAND runs, in a tree it
 * may write); sbx's own: nothing in it is followed. */
int start_audit_path(const struct options *o, const struct policy *p, const char *cwd,
		     const char *sdir, char *out, size_t outsz)
{
	char given[PATH_MAX];
	const char *named = o->log ? o->log : policy_log_path(p);
	int long_path = 0;

	if (o->log) {
		if (path_join(cwd, o->log, given, sizeof(given)))
			long_path = sbx_path_fmt(given, sizeof(given), "%s", o->log);
	} else if (policy_log_path(p)) {
		long_path = sbx_path_fmt(given, sizeof(given), "%s", policy_log_path(p));
	} else {
		given[0] = '\0';
		named = sdir;
		long_path = sbx_path_fmt(out, outsz, "%s/audit.jsonl", sdir);
	}
	if (!long_path && given[0] && hostfs_trust_path(given, 1, out, outsz))
		long_path = sbx_path_fmt(out, outsz, "%s", given);
	if (long_path) {
		start_path_too_long("the audit log", named);
		return SBX_EXIT_SETUP;
	}
	return 0;
}

int start_names(const char *home, char stamp[START_STAMP_MAX], char run_id[START_RUN_ID_MAX],
		char sdir[PATH_MAX], char cdir[PATH_MAX], char session[PATH_MAX])
{
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(stamp, START_STAMP_MAX, "%Y%m%d-%H%M%S", &tm);
	snprintf(run_id, START_RUN_ID_MAX, "%s-%d", stamp, (int)getpid());
	if (config_own_dir(home, "XDG_STATE_HOME", ".local/state/sbx", sdir, PATH_MAX) ||
	    config_own_dir(home, "XDG_CONFIG_HOME", ".config/sbx", cdir, PATH_MAX) ||
	    snprintf(session, PATH_MAX, "%s/sessions/%s", sdir, run_id) >= PATH_MAX) {
		msg("cannot tell sbx's state and configuration directories (is HOME too long?)");
		return SBX_EXIT_SETUP;
	}
	return 0;
}

int start_proxy_served(struct backend *be, const struct policy *p, struct reports *r, bool learn,
		       struct net_loop **out)
{
	int e = start_proxy(p, r, learn, out);

	if (!e)
		e = be->ops->serve(be, *out);
	if (e) {
		msg("sandbox set-up failed: starting the filtering proxy: %s; nothing was run",
		    strerror(-e));
		return SBX_EXIT_SETUP;
	}
	return 0;
}
