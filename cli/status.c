/* cli/status.c: `sbxctl status` (the policy in force, each value
 * with where it came from, and the machine) and `sbxctl enable|disable`. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "preload/config.h"
#include "cli/machine.h"
#include "cli/sbxctl.h"
#include "preload/preload.h"

static const char status_usage[] =
"Usage: sbxctl status [-c FILE] [-w DIR] [--profile NAME] [--no-machine]\n"
"The policy sbx-preload would run a command with from here: every value with\n"
"where it came from (file:line, default, environment, mandatory), whether\n"
"sandboxing is enabled, and what this machine offers (Linux: bubblewrap, user\n"
"namespaces, seccomp and its user notification, Landlock; macOS: sandbox-exec,\n"
"log, the shim, SIP, and the runs going on). Under [report], the\n"
"quiet rules (ignore_paths, ignore_domains) and what they kept off the terminal\n"
"in the last run that had any (from the audit log).\n"
"  -c, --config FILE   the policy file (as sbx-preload: default $SBX_CONFIG, else\n"
"                      ~/.config/sbx/sandbox.ini, else /etc/sbx/sandbox.ini)\n"
"  -w, --workspace DIR the workspace (default: the current directory)\n"
"      --profile NAME  with agent profile NAME added, as `sbx-preload NAME` runs\n"
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
static void quiet_rows(bool c, const struct policy *p, const char *config);

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
		{ "profile", required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL, *ws = NULL, *profile = NULL;
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
		case 'P': profile = optarg; break;
		default:
			fprintf(stderr, "sbxctl: see `sbxctl status --help`\n");
			return CTL_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "sbxctl status: unexpected `%s`\n", argv[optind]);
		return CTL_USAGE;
	}
	if ((rc = ctl_policy_profile(config, ws, NULL, profile, NULL, &b, user_file,
				     sizeof(user_file))))
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
	quiet_rows(c, p, config);
	printf("\n[limits]\n");
	print_scalars(c, p, seen, "limits");
	printf("\n[env]\n");
	print_scalars(c, p, seen, "env");
	rules_rows(c, p, SBX_RULE_DENY_ENV, NULL);
	rules_rows(c, p, SBX_RULE_KEEP_ENV, NULL);
	withheld_rows(c, p);
	const char *home = config_home_dir();
	char sdir[PATH_MAX];
	if (home && !config_own_dir(home, "XDG_STATE_HOME", ".local/state/sbx", sdir,
				    sizeof(sdir)))
		machine_runs(c, sdir);
	if (machine) {
		printf("\nmachine\n");
		machine_status(c);
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

/* ---- what the quiet rules hid (the audit log) */

#define QUIET_TAIL (8 << 20) /* the log's last 8 MiB: a run's records are together */
#define QUIET_ROWS 40

struct quiet_row {
	char *what; /* "read ~/.viminfo" */
	char *rule; /* "ignore_paths = ~/.viminfo (default)" */
	unsigned long n;
};

struct quiet_run {
	char run[64];
	struct quiet_row rows[QUIET_ROWS];
	size_t nrows;
	unsigned long total;
};

static void quiet_reset(struct quiet_run *q, const char *run)
{
	for (size_t i = 0; i < q->nrows; i++) {
		free(q->rows[i].what);
		free(q->rows[i].rule);
	}
	q->nrows = 0;
	q->total = 0;
	snprintf(q->run, sizeof(q->run), "%s", run);
}

static const char *jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* One record: a refusal a quiet rule hid starts or joins its run's list
 * (a later run's replaces an earlier one's). */
static void quiet_take(const struct policy *p, struct quiet_run *q, const char *line,
		       size_t len)
{
	json_t *r = json_loadb(line, len, 0, NULL);
	const char *run, *op, *target, *rule, *src, *decision;
	char what[PATH_MAX + 32], shown[PATH_MAX], rtext[PATH_MAX + 64];

	if (!r)
		return;
	run = jstr(r, "run");
	op = jstr(r, "op");
	target = jstr(r, "target");
	rule = jstr(r, "quiet_rule");
	src = jstr(r, "quiet_source");
	decision = jstr(r, "decision");
	if (!json_is_true(json_object_get(r, "ignored")) || !run || !op || !target ||
	    !decision || strcmp(decision, "deny"))
		goto out;
	if (strcmp(run, q->run))
		quiet_reset(q, run);
	q->total++;
	policy_tildify(p, target, shown, sizeof(shown));
	snprintf(what, sizeof(what), "%s %s", op, shown);
	for (size_t i = 0; i < q->nrows; i++)
		if (!strcmp(q->rows[i].what, what)) {
			q->rows[i].n++;
			goto out;
		}
	if (q->nrows == QUIET_ROWS)
		goto out;
	snprintf(rtext, sizeof(rtext), "%s%s%s%s", rule ? rule : "ignored", src ? " (" : "",
		 src ? src : "", src ? ")" : "");
	q->rows[q->nrows].what = strdup(what);
	q->rows[q->nrows].rule = strdup(rtext);
	q->rows[q->nrows].n = 1;
	if (q->rows[q->nrows].what && q->rows[q->nrows].rule)
		q->nrows++;
out:
	json_decref(r);
}

static void quiet_rows(bool c, const struct policy *p, const char *config)
{
	char path[PATH_MAX], shown[PATH_MAX], *buf = NULL;
	struct quiet_run q = { .run = "" };
	struct stat st;
	size_t have = 0;
	int fd;

	if (ctl_log_path(config, NULL, path, sizeof(path)))
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    !(buf = malloc(QUIET_TAIL + 1))) {
		if (fd >= 0)
			close(fd);
		row(c, "(hidden last run)", "(no audit log here)", "");
		return;
	}
	off_t from = st.st_size > QUIET_TAIL ? st.st_size - QUIET_TAIL : 0;
	for (ssize_t n; have < QUIET_TAIL; have += (size_t)n)
		if ((n = pread(fd, buf + have, QUIET_TAIL - have, from + (off_t)have)) <= 0)
			break;
	close(fd);
	buf[have] = '\0';
	/* from the middle of the file: the first line may be cut */
	char *line = from ? memchr(buf, '\n', have) : buf;
	line = line ? line + (from != 0) : buf + have;
	while (line < buf + have) {
		char *nl = memchr(line, '\n', (size_t)(buf + have - line));
		size_t len = nl ? (size_t)(nl - line) : (size_t)(buf + have - line);
		quiet_take(p, &q, line, len);
		line += len + 1;
	}
	free(buf);
	policy_tildify(p, path, shown, sizeof(shown));
	if (!q.total) {
		char none[PATH_MAX + 32];
		snprintf(none, sizeof(none), "(none in %s)", shown);
		row(c, "(hidden last run)", none, "");
		return;
	}
	char head[PATH_MAX + 128];
	snprintf(head, sizeof(head), "run %s: %lu refusal%s (%s)", q.run, q.total,
		 q.total == 1 ? "" : "s", shown);
	row(c, "(hidden last run)", head, "");
	for (size_t i = 0; i < q.nrows; i++) {
		char what[PATH_MAX + 64];
		if (q.rows[i].n > 1)
			snprintf(what, sizeof(what), "%s (x%lu)", q.rows[i].what, q.rows[i].n);
		else
			snprintf(what, sizeof(what), "%s", q.rows[i].what);
		row(c, "", what, q.rows[i].rule);
	}
	quiet_reset(&q, "");
}
