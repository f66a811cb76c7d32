/* supervisor/main.c: sbx-preload — build the policy, then the boundary, then run. */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "supervisor.h"

extern char **environ;

static const char *home_dir(void)
{
	const char *h = getenv("HOME");
	struct passwd *pw;

	if (h && h[0] == '/')
		return h;
	pw = getpwuid(getuid());
	return pw && pw->pw_dir && pw->pw_dir[0] == '/' ? pw->pw_dir : NULL;
}

/* The user layer: --config, $SBX_CONFIG, ~/.config/sbx/sandbox.ini,
 * /etc/sbx/sandbox.ini, else only the built-in defaults. */
static int load_user_config(struct policy_builder *b, const struct options *o,
			    const char *home, char *used, size_t usedsz,
			    struct sbx_err *err)
{
	const char *explicit = o->config ? o->config : getenv("SBX_CONFIG");
	char path[PATH_MAX], shown[PATH_MAX];
	int rc;

	used[0] = '\0';
	if (explicit && *explicit) {
		rc = policy_builder_load_file(b, explicit, explicit, POLICY_LAYER_USER, err);
		if (rc == -ENOENT)
			snprintf(err->msg, sizeof(err->msg), "%s: no such file (given by %s)",
				 explicit, o->config ? "--config" : "SBX_CONFIG");
		if (!rc)
			snprintf(used, usedsz, "%s", explicit);
		return rc;
	}
	const char *xdg = getenv("XDG_CONFIG_HOME");
	if (xdg && xdg[0] == '/')
		snprintf(path, sizeof(path), "%s/sbx/sandbox.ini", xdg);
	else
		snprintf(path, sizeof(path), "%s/.config/sbx/sandbox.ini", home);
	const char *candidates[] = { path, "/etc/sbx/sandbox.ini" };
	for (size_t i = 0; i < 2; i++) {
		sbx_path_tildify(candidates[i], home, shown, sizeof(shown));
		rc = policy_builder_load_file(b, candidates[i], shown, POLICY_LAYER_USER, err);
		if (rc != -ENOENT) {
			if (!rc)
				snprintf(used, usedsz, "%s", shown);
			return rc;
		}
	}
	return 0;
}

static int load_project_config(struct policy_builder *b, const char *user_file,
			       const char *home, struct sbx_err *err)
{
	char path[PATH_MAX], real[PATH_MAX], ureal[PATH_MAX], shown[PATH_MAX];

	snprintf(path, sizeof(path), "%s/sandbox.ini", policy_builder_workspace(b));
	if (!realpath(path, real))
		return 0;
	if (user_file[0] && realpath(user_file, ureal) && !strcmp(real, ureal))
		return 0; /* the user chose it with --config: it is theirs */
	sbx_path_tildify(path, home, shown, sizeof(shown));
	int rc = policy_builder_load_file(b, path, shown, POLICY_LAYER_PROJECT, err);
	return rc == -ENOENT ? 0 : rc;
}

static int find_init(char *out, size_t outsz)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	const char *env = getenv("SBX_INIT");

	if (env && *env) {
		snprintf(out, outsz, "%s", env);
		return access(out, X_OK) ? -errno : 0;
	}
	if (n <= 0)
		return -errno;
	exe[n] = '\0';
	*strrchr(exe, '/') = '\0';
	const char *rel[] = { "/sbx-init", "/../lib/sbx/sbx-init" };
	for (size_t i = 0; i < 2; i++) {
		char cand[PATH_MAX + 32];
		snprintf(cand, sizeof(cand), "%s%s", exe, rel[i]);
		if (realpath(cand, out) && access(out, X_OK) == 0)
			return 0;
	}
	return -ENOENT;
}

/* Why might bubblewrap have failed? Look where it usually is. */
static void setup_advice(void)
{
	char buf[32] = "";
	FILE *f;

	if ((f = fopen("/proc/sys/kernel/unprivileged_userns_clone", "re"))) {
		if (fgets(buf, sizeof(buf), f) && buf[0] == '0')
			msg("unprivileged user namespaces are off: sudo sysctl -w kernel.unprivileged_userns_clone=1");
		fclose(f);
	}
	if ((f = fopen("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "re"))) {
		if (fgets(buf, sizeof(buf), f) && buf[0] == '1')
			msg("AppArmor restricts user namespaces: add an AppArmor profile for bwrap, "
			    "or sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0");
		fclose(f);
	}
	if ((f = fopen("/proc/sys/user/max_user_namespaces", "re"))) {
		if (fgets(buf, sizeof(buf), f) && buf[0] == '0' && buf[1] == '\n')
			msg("user namespaces are disabled: sudo sysctl -w user.max_user_namespaces=10000");
		fclose(f);
	}
}

static int unsandboxed(const struct options *o, const char *why)
{
	msg("WARNING: running %s WITHOUT a sandbox (%s): it can read, write and "
	    "reach everything you can", o->command[0], why);
	return run_unsandboxed(o->command);
}

static void startup_line(const struct policy *p, const struct plan *pl)
{
	char ws[PATH_MAX], sess[PATH_MAX], net[64];
	const char *home = policy_home(p);
	size_t ndom;

	sbx_path_tildify(policy_workspace(p), home, ws, sizeof(ws));
	policy_rules(p, SBX_RULE_ALLOW_DOMAIN, &ndom);
	snprintf(net, sizeof(net), "%s", policy_network_open(p) ? "network on (allow_domains = *)" :
		 "network off");
	switch (policy_isolation(p)) {
	case SBX_ISOLATION_STRICT:
		sbx_path_tildify(policy_session_dir(p), home, sess, sizeof(sess));
		msg("sandbox on — workspace %s read-only, session %s writable, %s, "
		    "%u read-denies, %u write-protected", ws, sess, net,
		    pl->read_masks, pl->write_protects);
		break;
	case SBX_ISOLATION_CUSTOM:
		msg("sandbox on — workspace %s read-only (isolation = custom), %s, "
		    "%u read-denies, %u write-protected", ws, net, pl->read_masks,
		    pl->write_protects);
		break;
	case SBX_ISOLATION_WORKSPACE:
		msg("sandbox on — workspace %s writable, %s, %u read-denies, "
		    "%u write-protected", ws, net, pl->read_masks, pl->write_protects);
		break;
	}
}

/* Say, once, what the policy asks for that this build cannot give yet. */
static void pending_notes(const struct policy *p, const struct options *o)
{
	size_t n;

	policy_rules(p, SBX_RULE_ALLOW_DOMAIN, &n);
	if (n && !policy_network_open(p))
		msg("network stays off: allow_domains other than `*` needs the "
		    "filtering proxy, which this build does not have yet");
	policy_rules(p, SBX_RULE_ALLOW_UNIX_SOCKET, &n);
	if (n && !policy_allow_all_unix_sockets(p))
		msg("unix sockets stay blocked: allow_unix_sockets needs seccomp "
		    "notify, not in this build (allow_all_unix_sockets = true opens all)");
	if (policy_limit(p, SBX_LIMIT_MEMORY) || policy_limit(p, SBX_LIMIT_PIDS))
		vmsg("[limits] memory and pids need cgroups, not in this build; not applied");
	if (o->log || policy_log_path(p))
		vmsg("--log / [report] log: reports come with the preload shim, not in this build");
	if (o->no_shim)
		vmsg("--no-shim: this build has no shim to leave out");
}

int main(int argc, char **argv)
{
	struct options o;
	struct policy_builder *b = NULL;
	struct policy *p = NULL;
	struct sbx_err err = { "" };
	struct plan pl = { 0 };
	char cwd[PATH_MAX], session[PATH_MAX], user_file[PATH_MAX];
	char bwrap[PATH_MAX], init[PATH_MAX];
	int rc = SBX_EXIT_SETUP, sv[2] = { -1, -1 };
	bool ready = false;

	int orc = options_parse(argc, argv, &o);
	if (orc)
		return orc > 0 ? 0 : SBX_EXIT_SETUP;

	const char *home = home_dir();
	if (!home) {
		msg("cannot tell your home directory: set HOME");
		goto out;
	}
	if (!getcwd(cwd, sizeof(cwd))) {
		msg("cannot tell the current directory: %s", strerror(errno));
		goto out;
	}
	const char *state = getenv("XDG_STATE_HOME");
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	char stamp[32];
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	if (state && state[0] == '/')
		snprintf(session, sizeof(session), "%s/sbx/sessions/%s-%d", state, stamp, (int)getpid());
	else
		snprintf(session, sizeof(session), "%s/.local/state/sbx/sessions/%s-%d",
			 home, stamp, (int)getpid());

	struct policy_ctx ctx = { .home = home, .cwd = cwd, .session_dir = session };
	if (policy_builder_new(&ctx, &b)) {
		msg("out of memory");
		goto out;
	}
	if (load_user_config(b, &o, home, user_file, sizeof(user_file), &err))
		goto config_error;
	if (o.workspace &&
	    policy_builder_set(b, "sandbox", "workspace", o.workspace,
			       SBX_ORIGIN_FLAG, "--workspace", &err))
		goto config_error;
	struct stat st;
	const char *ws = policy_builder_workspace(b);
	if (stat(ws, &st) || !S_ISDIR(st.st_mode)) {
		msg("workspace %s is not a directory (set it with -w DIR or "
		    "`workspace =` in [sandbox])", ws);
		goto out;
	}
	if (load_project_config(b, user_file, home, &err))
		goto config_error;
	const char *doms = getenv("SBX_ALLOWED_DOMAINS");
	if (doms && *doms &&
	    policy_builder_set(b, "network", "allow_domains", doms, SBX_ORIGIN_ENV,
			       "SBX_ALLOWED_DOMAINS", &err))
		goto config_error;
	for (size_t i = 0; i < o.nsettings; i++)
		if (policy_builder_set(b, o.settings[i].section, o.settings[i].key,
				       o.settings[i].value, SBX_ORIGIN_FLAG,
				       o.settings[i].flag, &err))
			goto config_error;
	rc = policy_compile(b, &p, &err);
	b = NULL;
	if (rc)
		goto config_error;
	rc = SBX_EXIT_SETUP;

	const char *nosb = getenv("SBX_NO_SANDBOX");
	if (o.no_sandbox || (nosb && *nosb && strcmp(nosb, "0"))) {
		rc = unsandboxed(&o, o.no_sandbox ? "--no-sandbox" : "SBX_NO_SANDBOX");
		goto out;
	}
	if (o.trace || o.learn) {
		msg("%s needs the preload shim, which this build does not have yet",
		    o.trace ? "--trace" : "--learn");
		goto out;
	}
	if (policy_nested(p)) {
		msg("nested = true (the weaker mode for containers without user "
		    "namespaces) is not available in this build; set nested = false");
		goto out;
	}
	pending_notes(p, &o);

	const char *bw = getenv("SBX_BWRAP");
	if (find_in_path(bw && *bw ? bw : "bwrap", bwrap, sizeof(bwrap))) {
		if (policy_fallback(p) == SBX_FALLBACK_WARN) {
			rc = unsandboxed(&o, "bubblewrap is not installed; fallback = warn");
			goto out;
		}
		msg("bubblewrap (bwrap) is not installed or not in PATH, so there is "
		    "no sandbox; nothing was run. Install it: sudo apt-get install "
		    "bubblewrap (or set fallback = warn in [sandbox] to run unsandboxed)");
		goto out;
	}
	if (find_init(init, sizeof(init))) {
		msg("sbx-init is missing (looked next to sbx-preload and in ../lib/sbx/); "
		    "reinstall sbx");
		goto out;
	}
	if (policy_session_dir(p) && mkdir_p(policy_session_dir(p), 0700)) {
		msg("cannot create the session directory %s: %s",
		    policy_session_dir(p), strerror(errno));
		goto out;
	}
	if (!o.print && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		msg("sandbox set-up failed: socketpair: %s", strerror(errno));
		goto out;
	}

	struct plan_in in = {
		.policy = p, .bwrap = bwrap, .init = init, .command = o.command,
		.environ = environ, .cwd = cwd, .ctl_fd = sv[1],
		.ignored_signals = run_ignored_signals(),
		.make_placeholders = !o.print,
	};
	if (plan_build(&in, &pl)) {
		msg("out of memory while planning the sandbox");
		goto out;
	}
	if (o.print || sbx_verbosity >= V_DEBUG) {
		static char line[1 << 20];
		line[0] = '\0';
		for (size_t i = 0; i < pl.argv.n; i++) {
			if (i)
				strncat(line, " ", sizeof(line) - strlen(line) - 1);
			shell_quote(pl.argv.v[i], line, sizeof(line));
		}
		if (o.print) {
			printf("%s\n", line);
			rc = 0;
			goto out;
		}
		dmsg("%s", line);
	}
	startup_line(p, &pl);

	struct run_in ri = {
		.ctl_parent = sv[0], .ctl_child = sv[1],
		.cpu_seconds = policy_limit(p, SBX_LIMIT_CPU_SECONDS),
		.nofile = policy_limit(p, SBX_LIMIT_NOFILE),
	};
	rc = run_sandbox(&pl, &ri, &ready);
	sv[1] = -1; /* closed by run_sandbox */
	plan_remove_placeholders(&pl);
	if (!ready && rc < 128) {
		if (policy_fallback(p) == SBX_FALLBACK_WARN) {
			rc = unsandboxed(&o, "the sandbox could not be set up; fallback = warn");
			goto out;
		}
		msg("the sandbox could not be set up (bubblewrap exit %d, its message "
		    "is above); nothing was run", rc);
		setup_advice();
		rc = SBX_EXIT_SETUP;
	}
	goto out;

config_error:
	msg("%s", err.msg[0] ? err.msg : "cannot build the policy");
	rc = SBX_EXIT_SETUP;
out:
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	plan_free(&pl);
	policy_builder_free(b);
	policy_free(p);
	options_free(&o);
	return rc;
}
