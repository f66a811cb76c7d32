/* cli/doctor.c: `sbxctl doctor`: every dependency and kernel feature
 * the policy needs, with the fix for each missing one. What is asked of
 * the machine itself is Linux's or macOS's (machine.h); the policy, the
 * state directory and Claude Code's hook are asked the same way on
 * both. */
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

#include "preload/config.h"
#include "common/hostfs.h"
#include "preload/profile.h"
#include "cli/machine.h"
#include "cli/sbxctl.h"
#include "preload/preload.h"

static const char doctor_usage[] =
"Usage: sbxctl doctor [-c FILE] [-w DIR]\n"
"Check what the policy in force needs from this machine, one line each: ok,\n"
"warn (works, with less) or FAIL (the sandbox cannot start), with the fix.\n"
"  -c, --config FILE   the policy file (as sbx-preload)\n"
"  -w, --workspace DIR the workspace (default: the current directory)\n"
"Exit status: 0 the sandbox can start (warnings aside); 1 it cannot; 2 usage.\n";

/* ---- doctor */

void ctl_verdict(struct doctor *d, int level, const char *what, const char *fmt, ...)
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
static void check_policy(struct doctor *d, const struct policy *p, const char *user_file)
{
	char shown[PATH_MAX];

	ctl_verdict(d, 0, "policy", "%s loads", user_file[0] ? user_file : "the built-in default");
	if (!policy_enabled(p))
		ctl_verdict(d, 1, "enabled", "sandboxing is disabled (enabled = false): commands "
			"run unsandboxed; sbxctl enable turns it back on");
	machine_doctor_policy(d, p);
	policy_tildify(p, policy_workspace(p), shown, sizeof(shown));
	if (access(policy_workspace(p), R_OK | X_OK))
		ctl_verdict(d, 2, "workspace", "%s: %s", shown, strerror(errno));
	else if (!strcmp(policy_workspace(p), "/") || !strcmp(policy_workspace(p), policy_home(p)))
		ctl_verdict(d, 1, "workspace", "%s is the workspace: %s is writable inside; choose "
			"a project directory with -w DIR or `workspace =`", shown,
			!strcmp(shown, "/") ? "(read-only at /) nothing" : "all of HOME but the "
			"protected files");
	else
		ctl_verdict(d, 0, "workspace", "%s", shown);
	if (policy_fallback(p) == SBX_FALLBACK_WARN)
		ctl_verdict(d, 1, "fallback", "fallback = warn: where the sandbox cannot be set up, "
			"commands run without one");
}

static void check_state(struct doctor *d)
{
	const char *home = config_home_dir();
	char sdir[PATH_MAX];
	struct hostfs_err err;

	if (!home || config_own_dir(home, "XDG_STATE_HOME", ".local/state/sbx", sdir,
				    sizeof(sdir))) {
		ctl_verdict(d, 2, "state directory", "cannot tell it (set HOME)");
		return;
	}
	int fd = hostfs_dir_open(sdir, HOSTFS_MINE, &err);
	if (fd == -ENOENT)
		ctl_verdict(d, 0, "state directory", "%s (made at the first run)", sdir);
	else if (fd < 0)
		ctl_verdict(d, 1, "state directory", "%s: no audit log, stand-ins or sessions "
			"(isolation = strict refuses to start)", err.msg);
	else
		ctl_verdict(d, 0, "state directory", "%s", sdir);
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
		ctl_verdict(d, 1, "claude hook", "the claude profile loads it (claude_hook = true, %s), "
			"and %s loads it again: each tool call runs it twice; remove it from %s",
			pshown, b, b);
	else if (loads)
		ctl_verdict(d, 0, "claude hook", "the claude profile loads it (claude_hook = true, %s)%s%s%s",
			pshown, in_own == 1 && !same ? "; the one in " : "",
			in_own == 1 && !same ? a : "",
			in_own == 1 && !same ? " is for claude run without sbx" : "");
	else if (in_sbx == 1)
		ctl_verdict(d, 0, "claude hook", "in %s, which claude reads under the claude profile", b);
	else if (in_own == 1)
		ctl_verdict(d, 1, "claude hook", "in %s, which claude under the claude profile does not "
			"read (it reads %s): set `claude_hook = true` under [profile] in %s",
			a, b, user ? pshown : "~/.config/sbx/profiles/claude.ini");
	else
		ctl_verdict(d, 1, "claude hook", "claude under the claude profile gets no sbx hook "
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
	machine_doctor(&d, perr ? NULL : p);
	if (perr)
		ctl_verdict(&d, 2, "policy", "does not load (the error is above): sbx-preload "
			"refuses to run; fix the line it names");
	else
		check_policy(&d, p, user_file);
	check_state(&d);
	check_claude_hook(&d, config, ws);
	machine_doctor_end(&d);
	policy_free(p);
	printf("%u problem%s, %u warning%s: %s\n", d.fails, d.fails == 1 ? "" : "s", d.warns,
	       d.warns == 1 ? "" : "s", d.fails ? "the sandbox cannot start" :
	       "the sandbox can start");
	return d.fails ? CTL_DENIED : CTL_OK;
}
