/* supervisor/cli/status.c: `sbxctl status` (the policy in force, each value
 * with where it came from, and the machine) and `sbxctl enable|disable`. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "sbxctl.h"
#include "supervisor.h"

static const char status_usage[] =
"Usage: sbxctl status [-c FILE] [-w DIR] [--no-machine]\n"
"The policy sbx-preload would run a command with from here: every value with\n"
"where it came from (file:line, default, environment, mandatory), whether\n"
"sandboxing is enabled, and what this machine offers (bubblewrap, user\n"
"namespaces, seccomp and its user notification, Landlock).\n"
"  -c, --config FILE   the policy file (as sbx-preload: default $SBX_CONFIG, else\n"
"                      ~/.config/sbx/sandbox.ini, else /etc/sbx/sandbox.ini)\n"
"  -w, --workspace DIR the workspace (default: the current directory)\n"
"      --no-machine    leave the machine out\n"
"Exit status: 0; 2 when the configuration does not load (the error says where).\n";

/* The scalars in the order sandbox.ini lists them, with the default as
 * the person reads it. */
static const struct {
	const char *section, *key, *dflt;
} scalars[] = {
	{ "sandbox", "enabled", "true" },
	{ "sandbox", "workspace", "the current directory" },
	{ "sandbox", "isolation", "workspace" },
	{ "sandbox", "fallback", "error" },
	{ "sandbox", "nested", "false" },
	{ "network", "allow_local_binding", "true" },
	{ "network", "allow_all_unix_sockets", "false" },
	{ "network", "http_proxy_port", "(built-in proxy)" },
	{ "network", "socks_proxy_port", "(built-in proxy)" },
	{ "report", "log", "~/.local/state/sbx/audit.jsonl" },
	{ "limits", "memory", "(no limit)" },
	{ "limits", "pids", "(no limit)" },
	{ "limits", "cpu_seconds", "(no limit)" },
	{ "limits", "nofile", "(no limit)" },
	{ "env", "home", "real" },
};

static void withheld_rows(bool c, const struct policy *p);

struct scalar_seen {
	char *value, *source;
};

static void row(bool c, const char *key, const char *value, const char *source)
{
	char v[PATH_MAX], s[PATH_MAX];

	ctl_printable(value, v, sizeof(v));
	ctl_printable(source, s, sizeof(s));
	printf("  %-24s %-34s %s%s%s\n", key, v, ctl_sgr(c, "\033[2m"), s,
	       ctl_sgr(c, "\033[0m"));
}

/* The rules of a kind: the first row carries the key. */
static void rules_rows(bool c, const struct policy *p, enum sbx_rule_kind kind,
		       const char *none)
{
	size_t n;
	const struct sbx_rule *const *r = policy_rules(p, kind, &n);
	const char *key = kind == SBX_RULE_MANDATORY ? "(always read-only)" : sbx_rule_key(kind);

	if (!n && none)
		row(c, key, none, "");
	for (size_t i = 0; i < n; i++) {
		char src[PATH_MAX + 32];
		snprintf(src, sizeof(src), "%s", r[i]->source);
		if (r[i]->origin == SBX_ORIGIN_ISOLATION)
			snprintf(src, sizeof(src), "isolation = %s",
				 sbx_isolation_name(policy_isolation(p)));
		char v[PATH_MAX];
		if (r[i]->origin == SBX_ORIGIN_ISOLATION)
			policy_tildify(p, r[i]->pattern, v, sizeof(v));
		else
			snprintf(v, sizeof(v), "%s", r[i]->value);
		row(c, i ? "" : key, v, src);
	}
}

void ctl_machine(bool color); /* doctor.c */

static void print_scalars(bool c, const struct policy *p, struct scalar_seen *seen,
			  const char *section)
{
	for (size_t i = 0; i < sizeof(scalars) / sizeof(*scalars); i++) {
		if (strcmp(scalars[i].section, section))
			continue;
		char val[PATH_MAX];
		const char *v = seen[i].value, *src = seen[i].source;
		if (!strcmp(scalars[i].key, "workspace")) {
			policy_tildify(p, policy_workspace(p), val, sizeof(val));
			v = val;
		}
		row(c, scalars[i].key, v ? v : scalars[i].dflt, src ? src : "default");
	}
}

int cmd_status(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "no-machine", no_argument, NULL, 'M' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL, *ws = NULL;
	bool machine = true, c = ctl_color(stdout);
	struct policy_builder *b = NULL;
	struct policy *p = NULL;
	struct sbx_err err = { "" };
	struct scalar_seen seen[sizeof(scalars) / sizeof(*scalars)] = { { 0 } };
	char user_file[PATH_MAX] = "";
	int opt, rc;

	if (ctl_common_flag("status", status_usage, argc, argv))
		return CTL_OK;
	while ((opt = getopt_long(argc, argv, "c:w:", lo, NULL)) != -1) {
		switch (opt) {
		case 'c': config = optarg; break;
		case 'w': ws = optarg; break;
		case 'M': machine = false; break;
		default:
			fprintf(stderr, "sbxctl: see `sbxctl status --help`\n");
			return CTL_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "sbxctl status: unexpected `%s`\n", argv[optind]);
		return CTL_USAGE;
	}
	if ((rc = ctl_policy(config, ws, NULL, NULL, &b, user_file, sizeof(user_file))))
		return rc;
	/* where each scalar was set, read before compile consumes the builder */
	for (size_t i = 0; i < sizeof(scalars) / sizeof(*scalars); i++) {
		const char *v, *s;
		enum sbx_origin o;
		if (policy_builder_scalar(b, scalars[i].section, scalars[i].key, &v, &s, &o))
			continue;
		seen[i].value = v ? strdup(v) : NULL;
		seen[i].source = v && s ? strdup(s) : NULL;
	}
	if (policy_compile(b, &p, &err)) {
		fprintf(stderr, "sbxctl: %s\n", err.msg);
		rc = CTL_USAGE;
		goto out;
	}

	const char *nosb = getenv("SBX_NO_SANDBOX");
	bool env_off = nosb && *nosb && strcmp(nosb, "0");
	printf("%ssbx status%s\n", ctl_sgr(c, "\033[1m"), ctl_sgr(c, "\033[0m"));
	if (!policy_enabled(p))
		printf("  sandboxing: %sDISABLED%s by `enabled = false` (%s); `sbxctl enable` "
		       "turns it back on\n", ctl_sgr(c, "\033[1;31m"), ctl_sgr(c, "\033[0m"),
		       seen[0].source ? seen[0].source : "?");
	else if (env_off)
		printf("  sandboxing: %sDISABLED%s in this environment by SBX_NO_SANDBOX=%s\n",
		       ctl_sgr(c, "\033[1;31m"), ctl_sgr(c, "\033[0m"), nosb);
	else
		printf("  sandboxing: %senabled%s\n", ctl_sgr(c, "\033[1;32m"),
		       ctl_sgr(c, "\033[0m"));
	printf("  policy file: %s\n", user_file[0] ? user_file :
	       "none (the built-in defaults; `sbxctl configure` writes one)");

	printf("\n[sandbox]\n");
	print_scalars(c, p, seen, "sandbox");
	printf("\n[filesystem]\n");
	rules_rows(c, p, SBX_RULE_DENY_READ, "(none)");
	rules_rows(c, p, SBX_RULE_ALLOW_READ, NULL);
	rules_rows(c, p, SBX_RULE_ALLOW_WRITE, "(none)");
	rules_rows(c, p, SBX_RULE_DENY_WRITE, NULL);
	rules_rows(c, p, SBX_RULE_MANDATORY, NULL);
	printf("\n[network]\n");
	rules_rows(c, p, SBX_RULE_ALLOW_DOMAIN, "(none: no network)");
	rules_rows(c, p, SBX_RULE_DENY_DOMAIN, NULL);
	rules_rows(c, p, SBX_RULE_ALLOW_UNIX_SOCKET, NULL);
	print_scalars(c, p, seen, "network");
	printf("  %-24s %s\n", "(in effect)", policy_network_open(p) ? "network on" :
	       policy_network_proxied(p) ? "through sbx's filtering proxy" : "network off");
	printf("\n[report]\n");
	print_scalars(c, p, seen, "report");
	rules_rows(c, p, SBX_RULE_IGNORE_PATH, NULL);
	rules_rows(c, p, SBX_RULE_IGNORE_DOMAIN, NULL);
	printf("\n[limits]\n");
	print_scalars(c, p, seen, "limits");
	printf("\n[env]\n");
	print_scalars(c, p, seen, "env");
	rules_rows(c, p, SBX_RULE_DENY_ENV, NULL);
	rules_rows(c, p, SBX_RULE_KEEP_ENV, NULL);
	withheld_rows(c, p);
	if (machine) {
		printf("\nmachine\n");
		ctl_machine(c);
	}
	rc = CTL_OK;
out:
	for (size_t i = 0; i < sizeof(scalars) / sizeof(*scalars); i++) {
		free(seen[i].value);
		free(seen[i].source);
	}
	policy_free(p);
	return rc;
}

/* Which of this shell's variables a run from here would not pass, and
 * why: a name that looks secret, a value shaped like a credential, or
 * deny_env (never a value). */
static void withheld_rows(bool c, const struct policy *p)
{
	extern char **environ;
	bool any = false;

	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		const struct sbx_rule *why;
		char name[256], src[PATH_MAX + 64];
		if (!eq || eq == *e || (size_t)(eq - *e) >= sizeof(name))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(eq - *e), *e);
		const struct sbx_secret_shape *sh;
		enum sbx_env_fate f = policy_env_var_fate(p, name, eq + 1, &why, &sh);
		if (f == SBX_ENV_PASS || f == SBX_ENV_KEPT)
			continue;
		if (f == SBX_ENV_DENIED)
			snprintf(src, sizeof(src), "deny_env = %s (%s)", why->value, why->source);
		else if (f == SBX_ENV_SECRET_VALUE) /* the row, never the value */
			snprintf(src, sizeof(src), "its value looks like %s (--keep-env %s passes "
				 "it)", sh->what, name);
		else
			snprintf(src, sizeof(src), "its name looks secret (--keep-env %s passes it)",
				 name);
		row(c, any ? "" : "(withheld here)", name, src);
		any = true;
	}
	if (!any)
		row(c, "(withheld here)", "(none of this shell's variables)", "");
}

/* ---- enable / disable: one line of the user's file changed */

static const char enable_usage[] =
"Usage: sbxctl enable|disable [-c FILE]\n"
"Turn sandboxing on or off in your sandbox.ini (`enabled` in [sandbox]); every\n"
"other line stays as it is, the previous file is kept as sandbox.ini.bak and\n"
"the new one replaces it atomically. While disabled, sbx-preload runs commands\n"
"unsandboxed with a one-line warning, as --no-sandbox.\n"
"  -c, --config FILE   the file to change (default: $SBX_CONFIG, else\n"
"                      ~/.config/sbx/sandbox.ini)\n"
"Exit status: 0 done; 2 the file cannot be read, parsed or written.\n";

char *ctl_set_enabled(const char *text, const char *value)
{
	size_t cap = strlen(text) + 64;
	char *out = malloc(cap), *o = out;
	bool in_sandbox = false, done = false;
	const char *line = text;

	if (!out)
		return NULL;
	*o = '\0';
	while (*line) {
		size_t len = strcspn(line, "\n");
		const char *s = line + strspn(line, " \t");
		bool has_nl = line[len] == '\n';
		if (*s == '[') {
			if (in_sandbox && !done) {
				o += sprintf(o, "enabled = %s\n", value);
				done = true;
			}
			in_sandbox = !strncmp(s, "[sandbox]", 9);
		} else if (in_sandbox && !strncmp(s, "enabled", 7) &&
			   s[7 + strspn(s + 7, " \t")] == '=') {
			if (!done)
				o += sprintf(o, "enabled = %s\n", value);
			done = true;
			line += len + has_nl;
			continue;
		}
		memcpy(o, line, len);
		o += len;
		*o++ = '\n';
		*o = '\0';
		line += len + has_nl;
	}
	if (in_sandbox && !done) {
		o += sprintf(o, "enabled = %s\n", value);
		done = true;
	}
	if (!done) {
		char *n = malloc(cap + 32);
		if (n)
			snprintf(n, cap + 32, "[sandbox]\nenabled = %s\n\n%s", value, out);
		free(out);
		return n;
	}
	return out;
}

int cmd_enable(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	bool on = !strcmp(argv[0], "enable");
	const char *config = NULL;
	char path[PATH_MAX], *old = NULL, *new = NULL;
	bool missing;
	int opt, rc;

	if (ctl_common_flag(argv[0], enable_usage, argc, argv))
		return CTL_OK;
	while ((opt = getopt_long(argc, argv, "c:", lo, NULL)) != -1) {
		if (opt != 'c') {
			fprintf(stderr, "sbxctl: see `sbxctl %s --help`\n", argv[0]);
			return CTL_USAGE;
		}
		config = optarg;
	}
	if (optind < argc) {
		fprintf(stderr, "sbxctl %s: unexpected `%s`\n", argv[0], argv[optind]);
		return CTL_USAGE;
	}
	if ((rc = ctl_target_file(config, path, sizeof(path)))) {
		fprintf(stderr, "sbxctl: cannot tell which file to change: %s\n", strerror(-rc));
		return CTL_USAGE;
	}
	if (ctl_read_config(path, &old, &missing))
		return CTL_USAGE;
	if (missing && !config && !getenv("SBX_CONFIG") &&
	    access("/etc/sbx/sandbox.ini", F_OK) == 0) {
		/* a new user file would replace the system's policy whole */
		fprintf(stderr, "sbxctl: your policy comes from /etc/sbx/sandbox.ini, and a new "
			"%s would replace it whole; copy it there first (cp /etc/sbx/sandbox.ini "
			"%s), then run sbxctl %s again\n", path, path, argv[0]);
		return CTL_USAGE;
	}
	if (old) {
		/* the file must load before it is changed: an error is the
		 * user's to fix, with its line */
		struct policy_builder *b = NULL;
		struct policy_ctx ctx = { .home = "/nonexistent", .cwd = "/" };
		struct sbx_err err = { "" };
		if (policy_builder_new(&ctx, &b) == 0 &&
		    policy_builder_load_string(b, old, path, POLICY_LAYER_USER, &err)) {
			fprintf(stderr, "sbxctl: %s\nsbxctl: fix that first; nothing was changed\n",
				err.msg);
			policy_builder_free(b);
			free(old);
			return CTL_USAGE;
		}
		policy_builder_free(b);
	}
	new = ctl_set_enabled(old ? old : "", on ? "true" : "false");
	rc = new ? ctl_write_config(path, new) : -ENOMEM;
	if (!rc)
		printf("sandboxing %s in %s%s\n", on ? "enabled" : "DISABLED", path,
		       on ? "" : ": sbx-preload now runs commands unsandboxed (with a "
		       "warning) until `sbxctl enable`");
	free(old);
	free(new);
	return rc ? CTL_USAGE : CTL_OK;
}
