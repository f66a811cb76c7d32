/* cli/configure.c: `sbxctl configure`: the wizard (or its
 * flags) that writes the user's sandbox.ini, with a comment on each key. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/config.h"
#include "cli/sbxctl.h"
#include "preload/preload.h"
#include "cli/tui.h"

static const char configure_usage[] =
"Usage: sbxctl configure [OPTIONS]\n"
"Ask, with defaults, how the sandbox should be set up, show a summary, and\n"
"write your sandbox.ini (a temporary file, fsync, rename: never half-written;\n"
"the previous file is kept as sandbox.ini.bak). On a terminal, lists take\n"
"up/down/space/enter; with TERM=dumb every question is a numbered prompt.\n"
"Each answer has a flag; with --yes nothing is asked (the flags and the\n"
"defaults are the answers), which is how scripts use it. Without a terminal\n"
"and without --yes it refuses rather than wait for answers.\n"
"\n"
"  -w, --workspace DIR      workspace root (default ~/projects)\n"
"      --isolation MODE     strict (only the session directory is writable),\n"
"                           workspace (the whole workspace root; default) or\n"
"                           custom (only --writable paths)\n"
"      --writable PATH      with custom: a writable path (repeatable)\n"
"      --deny-read PATH     also hidden (repeatable; ~/.ssh, ~/.aws, ~/.gnupg and\n"
"                           the other built-in secrets always are)\n"
"      --allow-write PATH   extra writable path (repeatable; default /tmp)\n"
"      --deny-write PATH    never writable inside allowed areas (repeatable;\n"
"                           default .env)\n"
"      --network MODE       allowed (everything), blocked (nothing) or custom\n"
"                           (--allow-domain and --preset; default)\n"
"      --allow-domain D     with custom: an allowed domain (`*.github.com`,\n"
"                           `host:port`; repeatable)\n"
"      --preset NAME        with custom: git, npm, pypi, crates, go, rubygems, all\n"
"                           or none (repeatable; default all)\n"
"      --local-binding yes|no  may servers inside bind localhost ports (default yes)\n"
"  -c, --config FILE        write FILE (default: $SBX_CONFIG, else\n"
"                           ~/.config/sbx/sandbox.ini)\n"
"      --print              write the file to stdout instead, change nothing\n"
"  -y, --yes                ask nothing, write\n"
"Exit status: 0 written; 1 not confirmed or cancelled; 2 usage, no terminal\n"
"without --yes, or the file could not be written.\n";

/* The developer hosts offered for `network = custom`, and the caches
 * their tools need to download anything: only stores the tool checks by
 * digest before it uses an entry (docs/POLICY.md), never a directory a
 * later program runs from (npm's ~/.npm/_npx, cargo's registry/src, a
 * build cache). A trailing `/`: made when missing. */
static const struct preset {
	const char *name, *label, *domains, *caches;
} presets[] = {
	{ "git", "git forges (GitHub, GitLab, Bitbucket, Codeberg)",
	  "github.com, *.github.com, *.githubusercontent.com, gitlab.com, bitbucket.org, codeberg.org",
	  NULL },
	{ "npm", "npm registry", "registry.npmjs.org, registry.yarnpkg.com", "~/.npm/_cacache/" },
	{ "pypi", "PyPI", "pypi.org, files.pythonhosted.org", NULL },
	{ "crates", "crates.io", "crates.io, index.crates.io, static.crates.io",
	  "~/.cargo/registry/index/, ~/.cargo/registry/cache/" },
	{ "go", "Go module proxy", "proxy.golang.org, sum.golang.org",
	  "~/go/pkg/mod/cache/download/" },
	{ "rubygems", "RubyGems", "rubygems.org, index.rubygems.org", NULL },
};
#define NPRESETS (sizeof(presets) / sizeof(*presets))

/* Sensitive places for the deny_read checklist: the first three are built
 * in (always denied, shown checked and locked), the rest offered. */
static const char *const secrets[] = {
	"~/.ssh", "~/.aws", "~/.gnupg",
	"~/.npmrc", "~/.bash_history", "~/.zsh_history", "~/.python_history",
	"~/.config/op", "~/Documents",
};
#define NSECRETS (sizeof(secrets) / sizeof(*secrets))
#define NBUILTIN_SECRETS 3

enum iso { ISO_STRICT, ISO_WORKSPACE, ISO_CUSTOM };
enum net { NET_ALLOWED, NET_BLOCKED, NET_CUSTOM };
static const char *const iso_names[] = { "strict", "workspace", "custom" };
static const char *const net_names[] = { "allowed", "blocked", "custom" };

struct answers {
	char workspace[PATH_MAX];
	enum iso iso;
	struct strv writable;   /* custom */
	bool secret[NSECRETS];
	struct strv deny_read;  /* besides the checklist */
	struct strv allow_write;
	struct strv deny_write;
	enum net net;
	bool preset[NPRESETS];
	struct strv domains;    /* besides the presets */
	bool local_binding;
	/* set by a flag: the list replaces the default */
	bool allow_write_set, deny_write_set, preset_set;
};

static void answers_free(struct answers *a)
{
	strv_free(&a->writable);
	strv_free(&a->deny_read);
	strv_free(&a->allow_write);
	strv_free(&a->deny_write);
	strv_free(&a->domains);
}

/* A value that would break the INI line it goes on (a newline, a comma
 * inside a list item, a `;` that starts a comment): refused, named. */
static int check_item(const char *what, const char *v)
{
	bool control = false;

	for (const unsigned char *c = (const unsigned char *)v; *c; c++)
		control |= *c < 0x20 || *c == 0x7f;
	if (!*v || control || strpbrk(v, ",;#") || v[0] == ' ' || v[strlen(v) - 1] == ' ') {
		char shown[PATH_MAX];
		ctl_printable(v, shown, sizeof(shown));
		fprintf(stderr, "sbxctl configure: %s `%s`: an entry may not be empty, hold "
			"a comma, `;`, `#` or a control character (arrow keys in a text "
			"answer?), or start or end with a space\n", what, shown);
		return -1;
	}
	return 0;
}

/* A comma-separated answer into a list (each item trimmed and checked). */
static int split_into(struct strv *s, const char *what, const char *text)
{
	char *copy = strdup(text), *save = NULL;
	int rc = 0;

	if (!copy)
		return -1;
	for (char *tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ' || *tok == '\t')
			tok++;
		size_t n = strlen(tok);
		while (n && (tok[n - 1] == ' ' || tok[n - 1] == '\t'))
			tok[--n] = '\0';
		if (!*tok)
			continue;
		rc = check_item(what, tok) || strv_add(s, tok) ? -1 : 0;
	}
	free(copy);
	return rc;
}

static void join(const struct strv *s, char *out, size_t outsz)
{
	out[0] = '\0';
	for (size_t i = 0; i < s->n; i++)
		snprintf(out + strlen(out), outsz - strlen(out), "%s%s", i ? ", " : "", s->v[i]);
}

/* ---- the file */

static void put_list(FILE *f, const char *key, const struct strv *s)
{
	char line[16384];

	join(s, line, sizeof(line));
	fprintf(f, "%s = %s\n", key, line);
}

static char *render(const struct answers *a)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct strv deny = { 0 }, doms = { 0 };

	if (!f)
		return NULL;
	for (size_t i = 0; i < NSECRETS; i++)
		if (a->secret[i])
			strv_add(&deny, secrets[i]);
	for (size_t i = 0; i < a->deny_read.n; i++)
		strv_add(&deny, a->deny_read.v[i]);
	fprintf(f, "; sbx policy, written by `sbxctl configure` (run it again to change the\n"
		"; answers, or edit this file: docs/POLICY.md). Lists are comma-separated and\n"
		"; add to the built-in ones. `sbxctl status` shows what is in force.\n\n");
	fprintf(f, "[sandbox]\n; false: sbx-preload runs commands unsandboxed, with a warning "
		"(sbxctl disable)\nenabled = true\n");
	fprintf(f, "; The workspace root; `~` is your home.\nworkspace = %s\n", a->workspace);
	fprintf(f, "; strict: only the run's session directory is writable; workspace: the "
		"whole\n; workspace root; custom: only allow_write.\nisolation = %s\n\n",
		iso_names[a->iso]);
	fprintf(f, "[filesystem]\n; Hidden from the sandboxed program. Built in as well: ~/.ssh, "
		"~/.aws,\n; ~/.gnupg and the other usual secrets (sbxctl status lists them).\n");
	put_list(f, "deny_read", &deny);
	fprintf(f, "; Writable besides what isolation gives.\n");
	struct strv w = { 0 };
	if (a->iso == ISO_CUSTOM)
		for (size_t i = 0; i < a->writable.n; i++)
			strv_add(&w, a->writable.v[i]);
	for (size_t i = 0; i < a->allow_write.n; i++)
		strv_add(&w, a->allow_write.v[i]);
	/* the presets' download caches (digest-checked stores only) */
	for (size_t i = 0; a->net == NET_CUSTOM && i < NPRESETS; i++)
		if (a->preset[i] && presets[i].caches)
			split_into(&w, "writable path", presets[i].caches);
	put_list(f, "allow_write", &w);
	strv_free(&w);
	fprintf(f, "; Never writable, even inside the writable areas (a bare name matches at "
		"any\n; depth).\n");
	put_list(f, "deny_write", &a->deny_write);
	fprintf(f, "\n[network]\n");
	if (a->net == NET_ALLOWED) {
		fprintf(f, "; `*`: the host's network, everything reachable.\n");
		strv_add(&doms, "*");
	} else if (a->net == NET_BLOCKED) {
		fprintf(f, "; Empty: no network at all.\n");
	} else {
		fprintf(f, "; Reached through sbx's filtering proxy; `*.example.com` is every "
			"subdomain,\n; `host:port` one port.\n");
		for (size_t i = 0; i < NPRESETS; i++)
			if (a->preset[i])
				split_into(&doms, "domain", presets[i].domains);
		for (size_t i = 0; i < a->domains.n; i++)
			strv_add(&doms, a->domains.v[i]);
	}
	put_list(f, "allow_domains", &doms);
	fprintf(f, "; May servers inside bind ports on the sandbox's own localhost.\n"
		"allow_local_binding = %s\n", a->local_binding ? "true" : "false");
	fclose(f);
	strv_free(&deny);
	strv_free(&doms);
	return text;
}

/* ---- the questions */

static int ask(struct tui *t, struct answers *a)
{
	static const char *const iso_help[] = {
		"only the run's own session directory is writable",
		"the whole workspace root is writable",
		"only the paths you name next",
	};
	static const char *const net_help[] = {
		"everything: the host's network",
		"nothing at all",
		"only the domains you allow (through sbx's proxy)",
	};
	const char *items[NSECRETS + NPRESETS];
	bool locked[NSECRETS] = { 0 };
	char line[8192], cur[8192];
	size_t choice;
	int rc;

#define TRY(x) do { if ((rc = (x))) return rc; } while (0)
	for (;;) {
		TRY(tui_text(t, "Workspace root", a->workspace, line, sizeof(line)));
		if (strlen(line) >= sizeof(a->workspace))
			fprintf(stderr, "sbxctl configure: that workspace is too long\n");
		else if (!check_item("workspace", line))
			break;
	}
	snprintf(a->workspace, sizeof(a->workspace), "%s", line);
	choice = a->iso;
	TRY(tui_select(t, "Isolation: what may the sandboxed program write?", iso_names,
		       iso_help, 3, &choice));
	a->iso = (enum iso)choice;
	if (a->iso == ISO_CUSTOM) {
		for (;;) {
			join(&a->writable, cur, sizeof(cur));
			TRY(tui_text(t, "Writable paths (comma-separated)", cur, line, sizeof(line)));
			strv_free(&a->writable);
			if (!split_into(&a->writable, "writable path", line))
				break;
		}
	}
	for (size_t i = 0; i < NSECRETS; i++) {
		items[i] = secrets[i];
		locked[i] = i < NBUILTIN_SECRETS;
	}
	TRY(tui_checklist(t, "Which sensitive places should the sandbox hide?", items, a->secret,
			  locked, "built in: always hidden", NSECRETS));
	for (;;) {
		join(&a->deny_read, cur, sizeof(cur));
		TRY(tui_text(t, "Other places to hide (comma-separated, - for none)", cur, line,
			     sizeof(line)));
		strv_free(&a->deny_read);
		if (!split_into(&a->deny_read, "path to hide", line))
			break;
	}
	for (;;) {
		join(&a->allow_write, cur, sizeof(cur));
		TRY(tui_text(t, "Extra writable paths (comma-separated, - for none)", cur, line,
			     sizeof(line)));
		strv_free(&a->allow_write);
		if (!split_into(&a->allow_write, "writable path", line))
			break;
	}
	for (;;) {
		join(&a->deny_write, cur, sizeof(cur));
		TRY(tui_text(t, "Never writable, even inside those (comma-separated, - for none)",
			     cur, line, sizeof(line)));
		strv_free(&a->deny_write);
		if (!split_into(&a->deny_write, "path", line))
			break;
	}
	choice = a->net;
	TRY(tui_select(t, "Network: what may the sandboxed program reach?", net_names, net_help,
		       3, &choice));
	a->net = (enum net)choice;
	if (a->net == NET_CUSTOM) {
		for (size_t i = 0; i < NPRESETS; i++)
			items[i] = presets[i].label;
		TRY(tui_checklist(t, "Allow these developer hosts?", items, a->preset, NULL, "",
				  NPRESETS));
		for (;;) {
			join(&a->domains, cur, sizeof(cur));
			TRY(tui_text(t, "Other allowed domains (comma-separated, *.example.com "
				     "for subdomains, - for none)", cur, line, sizeof(line)));
			strv_free(&a->domains);
			if (!split_into(&a->domains, "domain", line))
				break;
		}
	}
	TRY(tui_confirm(t, "May servers inside bind localhost ports?", a->local_binding,
			&a->local_binding));
#undef TRY
	return 0;
}

static void summary(FILE *f, const struct answers *a, const char *path)
{
	char l[16384];

	fprintf(f, "\nSummary (%s):\n", path);
	fprintf(f, "  workspace      %s\n  isolation      %s\n", a->workspace, iso_names[a->iso]);
	if (a->iso == ISO_CUSTOM) {
		join(&a->writable, l, sizeof(l));
		fprintf(f, "  writable       %s\n", l[0] ? l : "(nothing)");
	}
	l[0] = '\0';
	for (size_t i = 0; i < NSECRETS; i++)
		if (a->secret[i])
			snprintf(l + strlen(l), sizeof(l) - strlen(l), "%s%s", l[0] ? ", " : "",
				 secrets[i]);
	for (size_t i = 0; i < a->deny_read.n; i++)
		snprintf(l + strlen(l), sizeof(l) - strlen(l), ", %s", a->deny_read.v[i]);
	fprintf(f, "  hidden         %s (and the other built-in secrets)\n", l);
	join(&a->allow_write, l, sizeof(l));
	fprintf(f, "  also writable  %s\n", l[0] ? l : "(nothing)");
	join(&a->deny_write, l, sizeof(l));
	fprintf(f, "  never writable %s (and the built-in protected files)\n", l[0] ? l : "(nothing)");
	fprintf(f, "  network        %s", net_names[a->net]);
	if (a->net == NET_CUSTOM) {
		l[0] = '\0';
		for (size_t i = 0; i < NPRESETS; i++)
			if (a->preset[i])
				snprintf(l + strlen(l), sizeof(l) - strlen(l), "%s%s",
					 l[0] ? ", " : "", presets[i].name);
		for (size_t i = 0; i < a->domains.n; i++)
			snprintf(l + strlen(l), sizeof(l) - strlen(l), "%s%s", l[0] ? ", " : "",
				 a->domains.v[i]);
		fprintf(f, ": %s", l[0] ? l : "(nothing yet)");
	}
	fprintf(f, "\n  local binding  %s\n", a->local_binding ? "yes" : "no");
}

static int set_preset(struct answers *a, const char *name)
{
	if (!a->preset_set) {
		memset(a->preset, 0, sizeof(a->preset));
		a->preset_set = true;
	}
	if (!strcmp(name, "none"))
		return 0;
	for (size_t i = 0; i < NPRESETS; i++)
		if (!strcmp(name, "all") || !strcmp(name, presets[i].name)) {
			a->preset[i] = true;
			if (strcmp(name, "all"))
				return 0;
		}
	if (!strcmp(name, "all"))
		return 0;
	fprintf(stderr, "sbxctl configure: no preset `%s` (git, npm, pypi, crates, go, "
		"rubygems, all, none)\n", name);
	return -1;
}

static int pick(const char *what, const char *v, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v, names[i]))
			return (int)i;
	fprintf(stderr, "sbxctl configure: --%s takes %s, %s or %s, not `%s`\n", what,
		names[0], names[1], names[2], v);
	return -1;
}

static int parse_flags(int argc, char **argv, struct answers *a, const char **config,
		       bool *yes, bool *print)
{
	enum { O_ISO = 256, O_WRITABLE, O_DENY_READ, O_ALLOW_WRITE, O_DENY_WRITE, O_NET,
	       O_DOMAIN, O_PRESET, O_BIND, O_PRINT };
	static const struct option lo[] = {
		{ "workspace", required_argument, NULL, 'w' },
		{ "isolation", required_argument, NULL, O_ISO },
		{ "writable", required_argument, NULL, O_WRITABLE },
		{ "deny-read", required_argument, NULL, O_DENY_READ },
		{ "allow-write", required_argument, NULL, O_ALLOW_WRITE },
		{ "deny-write", required_argument, NULL, O_DENY_WRITE },
		{ "network", required_argument, NULL, O_NET },
		{ "allow-domain", required_argument, NULL, O_DOMAIN },
		{ "preset", required_argument, NULL, O_PRESET },
		{ "local-binding", required_argument, NULL, O_BIND },
		{ "config", required_argument, NULL, 'c' },
		{ "print", no_argument, NULL, O_PRINT },
		{ "yes", no_argument, NULL, 'y' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, v;

	while ((opt = getopt_long(argc, argv, "w:c:y", lo, NULL)) != -1) {
		switch (opt) {
		case 'w':
			if (check_item("workspace", optarg))
				return -1;
			snprintf(a->workspace, sizeof(a->workspace), "%s", optarg);
			break;
		case 'c': *config = optarg; break;
		case 'y': *yes = true; break;
		case O_PRINT: *print = true; break;
		case O_ISO:
			if ((v = pick("isolation", optarg, iso_names, 3)) < 0)
				return -1;
			a->iso = (enum iso)v;
			break;
		case O_NET:
			if ((v = pick("network", optarg, net_names, 3)) < 0)
				return -1;
			a->net = (enum net)v;
			break;
		case O_BIND:
			if (strcmp(optarg, "yes") && strcmp(optarg, "no") &&
			    strcmp(optarg, "true") && strcmp(optarg, "false")) {
				fprintf(stderr, "sbxctl configure: --local-binding takes yes or no, "
					"not `%s`\n", optarg);
				return -1;
			}
			a->local_binding = !strcmp(optarg, "yes") || !strcmp(optarg, "true");
			break;
		case O_PRESET:
			if (set_preset(a, optarg))
				return -1;
			break;
		case O_WRITABLE:
			if (check_item("--writable", optarg) || strv_add(&a->writable, optarg))
				return -1;
			break;
		case O_DENY_READ: {
			bool known = false;
			for (size_t i = 0; i < NSECRETS; i++)
				if (!strcmp(optarg, secrets[i]))
					known = a->secret[i] = true;
			if (!known && (check_item("--deny-read", optarg) ||
				       strv_add(&a->deny_read, optarg)))
				return -1;
			break;
		}
		case O_ALLOW_WRITE: case O_DENY_WRITE: {
			bool *set = opt == O_ALLOW_WRITE ? &a->allow_write_set : &a->deny_write_set;
			struct strv *s = opt == O_ALLOW_WRITE ? &a->allow_write : &a->deny_write;
			if (!*set) { /* the first flag replaces the default */
				strv_free(s);
				*set = true;
			}
			if (strcmp(optarg, "none") &&
			    (check_item(opt == O_ALLOW_WRITE ? "--allow-write" : "--deny-write",
					optarg) || strv_add(s, optarg)))
				return -1;
			break;
		}
		case O_DOMAIN:
			if (check_item("--allow-domain", optarg) || strv_add(&a->domains, optarg))
				return -1;
			break;
		default:
			fprintf(stderr, "sbxctl: see `sbxctl configure --help`\n");
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "sbxctl configure: unexpected `%s`\n", argv[optind]);
		return -1;
	}
	if (a->writable.n && a->iso != ISO_CUSTOM) {
		fprintf(stderr, "sbxctl configure: --writable goes with --isolation custom\n");
		return -1;
	}
	if ((a->domains.n || a->preset_set) && a->net != NET_CUSTOM) {
		fprintf(stderr, "sbxctl configure: --allow-domain and --preset go with "
			"--network custom\n");
		return -1;
	}
	return 0;
}

/* sbx-preload refuses a workspace that is not a directory: say so now. */
static void workspace_note(const char *ws)
{
	const char *home = config_home_dir();
	char path[PATH_MAX], cwd[PATH_MAX];
	struct stat st;

	if (ws[0] == '~' && (ws[1] == '/' || !ws[1]) && home) {
		if ((size_t)snprintf(path, sizeof(path), "%s%s", home, ws + 1) >= sizeof(path))
			return;
	} else if (!getcwd(cwd, sizeof(cwd)) || path_join(cwd, ws, path, sizeof(path)))
		return;
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return;
	printf("Note: the workspace %s does not exist yet, and sbx-preload refuses to run "
	       "until it does: mkdir -p %s\n", ws, ws);
}

int cmd_configure(int argc, char **argv)
{
	struct answers a = { .iso = ISO_WORKSPACE, .net = NET_CUSTOM, .local_binding = true };
	const char *config = NULL;
	bool yes = false, print = false, ok = true;
	char path[PATH_MAX], *text = NULL;
	struct tui t;
	int rc = CTL_USAGE, e;

	if (ctl_common_flag("configure", configure_usage, argc, argv))
		return CTL_OK;
	snprintf(a.workspace, sizeof(a.workspace), "~/projects");
	for (size_t i = 0; i < NBUILTIN_SECRETS; i++)
		a.secret[i] = true;
	for (size_t i = 0; i < NPRESETS; i++)
		a.preset[i] = true;
	if (strv_add(&a.allow_write, "/tmp") || strv_add(&a.deny_write, ".env") ||
	    parse_flags(argc, argv, &a, &config, &yes, &print))
		goto out;
	if ((e = ctl_target_file(config, path, sizeof(path)))) {
		fprintf(stderr, "sbxctl: cannot tell which file to write: %s\n", strerror(-e));
		goto out;
	}
	if (!yes && !print) {
		e = tui_open(&t);
		if (e == -ENOTTY) {
			fprintf(stderr, "sbxctl configure: not on a terminal, so nothing can be "
				"asked; give the answers as flags with --yes (sbxctl configure "
				"--help)\n");
			goto out;
		}
		printf("sbx setup: enter keeps the [default]. Ctrl-C stops without writing.\n\n");
		e = e ? e : ask(&t, &a);
		if (!e) {
			summary(stdout, &a, path);
			e = tui_confirm(&t, "Write it?", true, &ok);
		}
		tui_close(&t);
		if (e || !ok) {
			printf("\nNothing written.\n");
			rc = CTL_DENIED;
			goto out;
		}
	}
	if (!(text = render(&a))) {
		fprintf(stderr, "sbxctl: out of memory\n");
		goto out;
	}
	if (print) {
		fputs(text, stdout);
		rc = CTL_OK;
		goto out;
	}
	if (ctl_write_config(path, text))
		goto out;
	printf("Wrote %s (the previous file, if any, is %s.bak). `sbxctl status` shows the "
	       "policy in force.\n", path, path);
	workspace_note(a.workspace);
	rc = CTL_OK;
out:
	free(text);
	answers_free(&a);
	return rc;
}
