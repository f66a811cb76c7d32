/* cli/doctor.c: `sbxctl doctor` (every dependency and kernel
 * feature the policy needs, with the fix for each missing one) and the
 * machine part of `sbxctl status`. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "backend/darwin/darwin.h"
#include "preload/config.h"
#include "common/hostfs.h"
#include "common/probe.h"
#include "preload/profile.h"
#include "cli/sbxctl.h"
#include "preload/preload.h"

static const char doctor_usage[] =
"Usage: sbxctl doctor [-c FILE] [-w DIR]\n"
"Check what the policy in force needs from this machine, one line each: ok,\n"
"warn (works, with less) or FAIL (the sandbox cannot start), with the fix.\n"
"  -c, --config FILE   the policy file (as sbx-preload)\n"
"  -w, --workspace DIR the workspace (default: the current directory)\n"
"Exit status: 0 the sandbox can start (warnings aside); 1 it cannot; 2 usage.\n";

static const char *landlock_text(int abi, char *buf, size_t sz)
{
	if (abi > 0)
		snprintf(buf, sz, "ABI %d", abi);
	else
		snprintf(buf, sz, "%s", abi == -EOPNOTSUPP ? "built in, disabled at boot" :
			 "not in this kernel");
	return buf;
}

void ctl_machine(bool c)
{
	char bwrap[PATH_MAX], ver[128], ll[64];
	bool have = !find_bwrap(bwrap, sizeof(bwrap));

	if (have && !probe_bwrap_version(bwrap, ver, sizeof(ver)))
		printf("  %-24s %s (%s)\n", "bubblewrap", ver, bwrap);
	else
		printf("  %-24s %s\n", "bubblewrap", have ? "present, but `bwrap --version` "
		       "failed" : "not installed");
	if (have) {
		enum bwrap_probe pr = bwrap_probe(bwrap);
		printf("  %-24s %s\n", "user namespaces", pr == BWRAP_WORKS ? "yes (bubblewrap "
		       "made a test sandbox)" : pr == BWRAP_CANNOT ? "no (bubblewrap was "
		       "refused them)" : "unknown (the test sandbox failed for another reason)");
	}
	printf("  %-24s %s\n", "seccomp", probe_seccomp() ? "yes" : "no");
	printf("  %-24s %s\n", "seccomp notify", probe_seccomp_notify() ? "yes" : "no");
	printf("  %-24s %s\n", "landlock", landlock_text(probe_landlock_abi(), ll, sizeof(ll)));
#ifdef __APPLE__
	printf("  %-24s %s\n", "sandbox-exec",
	       access("/usr/bin/sandbox-exec", X_OK) ? "missing" : "/usr/bin/sandbox-exec");
#else
	printf("  %-24s %s\n", "sandbox-exec", "n/a (macOS only)");
#endif
	(void)c;
}

/* ---- doctor */

struct doctor {
	bool color;
	unsigned fails, warns;
};

static void verdict(struct doctor *d, int level, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* level: 0 ok, 1 warn, 2 FAIL; fmt: the detail and, for a problem, the fix */
static void verdict(struct doctor *d, int level, const char *what, const char *fmt, ...)
{
	static const char *const tag[] = { "ok", "warn", "FAIL" };
	static const char *const sgr[] = { "\033[32m", "\033[33m", "\033[1;31m" };
	char text[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	printf("%s%-4s%s  %-18s %s\n", ctl_sgr(d->color, sgr[level]), tag[level],
	       ctl_sgr(d->color, "\033[0m"), what, text);
	d->fails += level == 2;
	d->warns += level == 1;
}

struct advice_ctx {
	struct doctor *d;
	int level;
};

static void say_fix(void *ctx, const char *line)
{
	struct advice_ctx *a = ctx;

	verdict(a->d, a->level, "user namespaces", "%s", line);
}

/* In a container: which, what the full sandbox needs of it, and whether
 * the nested mode runs here instead (Landlock, ABI 4 for a network
 * policy, and seccomp user notification for what Landlock cannot see). */
static void check_container(struct doctor *d, const char *bwrap, const struct policy *p)
{
	struct container_info ci;
	char ll[64];

	if (!probe_container("/", getenv("container"), getenv("KUBERNETES_SERVICE_HOST"), &ci))
		return;
	bool full = bwrap[0] && bwrap_probe(bwrap) == BWRAP_WORKS;
	int abi = probe_landlock_abi();
	bool net = !p || !policy_network_open(p);
	bool nested_ok = abi >= (net ? 4 : 1);
	if (full) {
		verdict(d, 0, "container", "%s (%s): user namespaces and /proc as the full "
			"sandbox needs them", ci.engine, ci.evidence);
		return;
	}
	verdict(d, nested_ok && p && policy_nested(p) ? 0 : nested_ok ? 1 : 2, "container",
		"%s (%s): the full sandbox needs user namespaces and a /proc it can mount: %s; "
		"%s%s%s, seccomp user notification %s)%s", ci.engine, ci.evidence,
		container_full_flags(ci.engine),
		nested_ok ? "the nested mode runs here instead (Landlock " :
		"the nested mode cannot run here either (Landlock ", landlock_text(abi, ll, sizeof(ll)),
		net && abi >= 1 && abi < 4 ? ", ABI 4 needed for a network policy" : "",
		probe_seccomp_notify() ? "available" : "missing",
		!nested_ok ? ": a kernel with Landlock (5.13, 6.7 for the network), and a "
		"seccomp profile that allows landlock_create_ruleset" :
		p && policy_nested(p) ? ": nested = true chooses it" :
		": set nested = true in [sandbox] (docs/SECURITY.md \"The nested mode\")");
}

static void check_machine(struct doctor *d, const struct policy *p)
{
	char bwrap[PATH_MAX], ver[128], path[PATH_MAX];

	int brc = find_bwrap(bwrap, sizeof(bwrap));
	if (brc == -EINVAL || brc == -ENAMETOOLONG) {
		verdict(d, 2, "bubblewrap", "SBX_BWRAP must be an absolute path to bubblewrap, "
			"not a name (PATH may hold one a sandboxed program put there)");
	} else if (brc && getenv("SBX_BWRAP") && *getenv("SBX_BWRAP")) {
		verdict(d, 2, "bubblewrap", "SBX_BWRAP names %s, which is not an executable "
			"file; unset it or point it at bwrap", getenv("SBX_BWRAP"));
	} else if (brc) {
		verdict(d, 2, "bubblewrap", "not installed (looked in /usr/bin, /usr/local/bin "
			"and /bin, never in PATH); install it: sudo apt-get install bubblewrap "
			"(Fedora: sudo dnf install bubblewrap)");
	} else {
		if (probe_bwrap_version(bwrap, ver, sizeof(ver)))
			snprintf(ver, sizeof(ver), "version unknown");
		verdict(d, 0, "bubblewrap", "%s (%s)", ver, bwrap);
		enum bwrap_probe pr = bwrap_probe(bwrap);
		if (pr == BWRAP_WORKS) {
			verdict(d, 0, "user namespaces", "bubblewrap made a test sandbox");
		} else {
			/* not needed where the policy asks for the nested mode */
			int level = p && policy_nested(p) ? 1 : 2;
			unsigned before = d->fails + d->warns;
			struct advice_ctx a = { d, level };
			if (pr == BWRAP_CANNOT && bwrap_probe_namespaces(bwrap) == BWRAP_WORKS)
				verdict(d, level, "user namespaces", "bubblewrap makes them but "
					"cannot mount a /proc in them: parts of /proc are masked "
					"(a container's default; `container` below says which "
					"flags lift it)");
			else
				setup_advice(say_fix, &a);
			if (d->fails + d->warns == before)
				verdict(d, pr == BWRAP_CANNOT ? level : 1, "user namespaces",
					"bubblewrap could not make a test sandbox; try: %s "
					"--unshare-user --unshare-pid --unshare-net --ro-bind / / "
					"--proc /proc true", bwrap);
		}
	}
	if (config_find_helper("sbx-init", "SBX_INIT", X_OK, path, sizeof(path)))
		verdict(d, 2, "sbx-init", "missing (looked next to sbxctl and in ../lib/sbx/); "
			"reinstall sbx (make install)");
	else
		verdict(d, 0, "sbx-init", "%s", path);
	if (config_find_helper("libsbx-preload.so", "SBX_SHIM_LIB", R_OK, path, sizeof(path)))
		verdict(d, 1, "shim", "libsbx-preload.so missing: the sandbox holds, but "
			"refusals are not explained and --trace/--learn refuse; reinstall sbx");
	else
		verdict(d, 0, "shim", "%s", path);
	if (probe_seccomp())
		verdict(d, 0, "seccomp", "filters available");
	else
		verdict(d, 2, "seccomp", "the kernel has no seccomp (CONFIG_SECCOMP_FILTER): "
			"sbx-init cannot install its filter; use a kernel built with it");
	if (probe_seccomp_notify())
		verdict(d, 0, "seccomp notify", "user notification available");
	else
		verdict(d, 1, "seccomp notify", "not available (Linux 5.0 or later has it): "
			"unix sockets by path stay blocked");
	int abi = probe_landlock_abi();
	char ll[64];
	verdict(d, 0, "landlock", "%s (the nested mode's boundary, for machines where "
		"bubblewrap cannot make namespaces)", landlock_text(abi, ll, sizeof(ll)));
}

static void check_policy(struct doctor *d, const struct policy *p, const char *user_file)
{
	size_t n;
	char shown[PATH_MAX];

	verdict(d, 0, "policy", "%s loads", user_file[0] ? user_file : "the built-in default");
	if (!policy_enabled(p))
		verdict(d, 1, "enabled", "sandboxing is disabled (enabled = false): commands "
			"run unsandboxed; sbxctl enable turns it back on");
	if (policy_nested(p)) {
		int abi = probe_landlock_abi();
		if (abi < 1 || (abi < 4 && !policy_network_open(p)))
			verdict(d, 2, "nested", "nested = true needs Landlock%s, which this kernel "
				"does not offer: every run is refused (set nested = false)",
				abi < 1 ? "" : " ABI 4 for the network policy");
		else
			verdict(d, 1, "nested", "nested = true: runs use the weaker nested mode "
				"(Landlock ABI %d and the seccomp table, no namespaces; "
				"docs/SECURITY.md \"The nested mode\")", abi);
	}
	bool mem = policy_limit(p, SBX_LIMIT_MEMORY), pids = policy_limit(p, SBX_LIMIT_PIDS);
	if (mem || pids)
		verdict(d, policy_fallback(p) == SBX_FALLBACK_WARN ? 1 : 2, "limits",
			"[limits] %s need cgroups, not in this build: %s (remove the limit, or "
			"set fallback = warn)", mem && pids ? "memory and pids" : mem ? "memory" :
			"pids", policy_fallback(p) == SBX_FALLBACK_WARN ?
			"runs without them (fallback = warn)" : "every run is refused");
	policy_rules(p, SBX_RULE_ALLOW_UNIX_SOCKET, &n);
	const char *nenv = getenv("SBX_NOTIFY");
	if (n && !policy_allow_all_unix_sockets(p) && nenv && !strcmp(nenv, "off"))
		verdict(d, 1, "unix sockets", "allow_unix_sockets needs the seccomp notify "
			"layer, which SBX_NOTIFY=off turns off: those sockets stay blocked");
	policy_tildify(p, policy_workspace(p), shown, sizeof(shown));
	if (access(policy_workspace(p), R_OK | X_OK))
		verdict(d, 2, "workspace", "%s: %s", shown, strerror(errno));
	else if (!strcmp(policy_workspace(p), "/") || !strcmp(policy_workspace(p), policy_home(p)))
		verdict(d, 1, "workspace", "%s is the workspace: %s is writable inside; choose "
			"a project directory with -w DIR or `workspace =`", shown,
			!strcmp(shown, "/") ? "(read-only at /) nothing" : "all of HOME but the "
			"protected files");
	else
		verdict(d, 0, "workspace", "%s", shown);
	if (policy_fallback(p) == SBX_FALLBACK_WARN)
		verdict(d, 1, "fallback", "fallback = warn: where the sandbox cannot be set up, "
			"commands run without one");
}

static void check_state(struct doctor *d)
{
	const char *home = config_home_dir();
	char sdir[PATH_MAX];
	struct hostfs_err err;

	if (!home || config_own_dir(home, "XDG_STATE_HOME", ".local/state/sbx", sdir,
				    sizeof(sdir))) {
		verdict(d, 2, "state directory", "cannot tell it (set HOME)");
		return;
	}
	int fd = hostfs_dir_open(sdir, HOSTFS_MINE, &err);
	if (fd == -ENOENT)
		verdict(d, 0, "state directory", "%s (made at the first run)", sdir);
	else if (fd < 0)
		verdict(d, 1, "state directory", "%s: no audit log, stand-ins or sessions "
			"(isolation = strict refuses to start)", err.msg);
	else
		verdict(d, 0, "state directory", "%s", sdir);
	if (fd >= 0)
		close(fd);
}

/* ---- where Claude Code's sbx hook lives */

/* Does the Claude settings file at `path` load `sbxctl hook claude` as a
 * PreToolUse hook? -1 when there is no such file (or it is not JSON). */
static int has_sbx_hook(const char *path)
{
	json_t *root = json_load_file(path, 0, NULL), *pre, *entry, *h;
	size_t i, j;
	int found = 0;

	if (!root)
		return -1;
	pre = json_object_get(json_object_get(root, "hooks"), "PreToolUse");
	json_array_foreach(pre, i, entry)
		json_array_foreach(json_object_get(entry, "hooks"), j, h) {
			json_t *cmd = json_object_get(h, "command");
			const char *c = json_is_string(cmd) ? json_string_value(cmd) : "";
			if (strstr(c, "sbxctl") && strstr(c, "hook claude"))
				found = 1;
		}
	json_decref(root);
	return found;
}

/* Under the claude profile Claude reads its settings from the profile's
 * CLAUDE_CONFIG_DIR (~/.claude-sbx), not ~/.claude: a hook set up in the
 * one it does not read is not loaded. The profile loads the hook itself
 * with claude_hook = true; say where a hook lives that a run under it
 * does not read, and the fix. */
static void check_claude_hook(struct doctor *d, const char *config, const char *ws)
{
	const char *home = config_home_dir(), *env = getenv("CLAUDE_CONFIG_DIR"), *v;
	char ppath[PATH_MAX], pshown[PATH_MAX], own[PATH_MAX], sbxdir[PATH_MAX] = "";
	char own_settings[PATH_MAX + 16], sbx_settings[PATH_MAX + 16], a[PATH_MAX], b[PATH_MAX];
	struct policy *p = NULL;
	char uf[PATH_MAX], name[64];
	bool user;
	size_t n;

	if (!home || profile_find("claude", home, ppath, sizeof(ppath), &user))
		return;
	/* quietly: a policy that does not load was said above */
	int saved = dup(2), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (saved >= 0 && null >= 0)
		dup2(null, 2);
	int rc = ctl_policy_profile(config, ws, NULL, "claude", &p, NULL, uf, sizeof(uf));
	if (saved >= 0) {
		dup2(saved, 2);
		close(saved);
	}
	if (null >= 0)
		close(null);
	if (rc)
		return;
	snprintf(own, sizeof(own), "%s", env && env[0] == '/' ? env : "");
	if (!own[0])
		snprintf(own, sizeof(own), "%s/.claude", home);
	const struct sbx_rule *const *set = policy_rules(p, SBX_RULE_SET_ENV, &n);
	for (size_t i = 0; i < n; i++)
		if (!policy_set_env_split(set[i], name, sizeof(name), &v) &&
		    !strcmp(name, "CLAUDE_CONFIG_DIR"))
			snprintf(sbxdir, sizeof(sbxdir), "%s", v);
	if (!sbxdir[0])
		snprintf(sbxdir, sizeof(sbxdir), "%s", own);
	snprintf(own_settings, sizeof(own_settings), "%s/settings.json", own);
	snprintf(sbx_settings, sizeof(sbx_settings), "%s/settings.json", sbxdir);
	policy_tildify(p, ppath, pshown, sizeof(pshown));
	policy_tildify(p, own_settings, a, sizeof(a));
	policy_tildify(p, sbx_settings, b, sizeof(b));
	bool loads = policy_claude_hook(p), same = !strcmp(own_settings, sbx_settings);
	int in_own = has_sbx_hook(own_settings), in_sbx = same ? in_own : has_sbx_hook(sbx_settings);
	if (loads && in_sbx == 1)
		verdict(d, 1, "claude hook", "the claude profile loads it (claude_hook = true, %s), "
			"and %s loads it again: each tool call runs it twice; remove it from %s",
			pshown, b, b);
	else if (loads)
		verdict(d, 0, "claude hook", "the claude profile loads it (claude_hook = true, %s)%s%s%s",
			pshown, in_own == 1 && !same ? "; the one in " : "",
			in_own == 1 && !same ? a : "",
			in_own == 1 && !same ? " is for claude run without sbx" : "");
	else if (in_sbx == 1)
		verdict(d, 0, "claude hook", "in %s, which claude reads under the claude profile", b);
	else if (in_own == 1)
		verdict(d, 1, "claude hook", "in %s, which claude under the claude profile does not "
			"read (it reads %s): set `claude_hook = true` under [profile] in %s",
			a, b, user ? pshown : "~/.config/sbx/profiles/claude.ini");
	else
		verdict(d, 1, "claude hook", "claude under the claude profile gets no sbx hook "
			"(claude_hook is off in %s): set `claude_hook = true` under [profile] there",
			pshown);
	policy_free(p);
}

int cmd_doctor(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "workspace", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL, *ws = NULL;
	struct doctor d = { .color = ctl_color(stdout) };
	struct policy *p = NULL;
	char user_file[PATH_MAX] = "";
	int opt;

	if (ctl_common_flag("doctor", doctor_usage, argc, argv))
		return CTL_OK;
	while ((opt = getopt_long(argc, argv, "c:w:", lo, NULL)) != -1) {
		switch (opt) {
		case 'c': config = optarg; break;
		case 'w': ws = optarg; break;
		default:
			fprintf(stderr, "sbxctl: see `sbxctl doctor --help`\n");
			return CTL_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "sbxctl doctor: unexpected `%s`\n", argv[optind]);
		return CTL_USAGE;
	}
	int perr = ctl_policy(config, ws, NULL, &p, NULL, user_file, sizeof(user_file));
	check_machine(&d, perr ? NULL : p);
	char bwrap[PATH_MAX] = "";
	if (find_bwrap(bwrap, sizeof(bwrap)))
		bwrap[0] = '\0';
	check_container(&d, bwrap, perr ? NULL : p);
	if (perr)
		verdict(&d, 2, "policy", "does not load (the error is above): sbx-preload "
			"refuses to run; fix the line it names");
	else
		check_policy(&d, p, user_file);
	check_state(&d);
	check_claude_hook(&d, config, ws);
#ifdef __APPLE__
	/* what the macOS sandbox cannot do (backend/darwin/limits.c) */
	for (unsigned i = 0; i < darwin_nlimits; i++)
		verdict(&d, 1, darwin_limits[i].what, "%s", darwin_limits[i].text);
#endif
	policy_free(p);
	printf("%u problem%s, %u warning%s: %s\n", d.fails, d.fails == 1 ? "" : "s", d.warns,
	       d.warns == 1 ? "" : "s", d.fails ? "the sandbox cannot start" :
	       "the sandbox can start");
	return d.fails ? CTL_DENIED : CTL_OK;
}
