/* tests/unit/seatbelt.c: the Seatbelt profile compiler (backend/darwin/
 * seatbelt.c). No Mac here: golden checks of the text, and a small SBPL
 * evaluator that decides what the generated profile allows -- the last
 * matching rule wins; literal, subpath, regex, require-all/-any/-not and
 * (param "N") -- for thousands of paths, compared with
 * policy_check_path(). Every difference fails. */
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#pragma GCC diagnostic ignored "-Wformat-truncation"

#include "backend/darwin/seatbelt.h"
#include "tests/unit/helpers.h"
#include "tests/unit/sbpl.h"

/* ---- compiling */

static const struct seatbelt_opts opts = { .run_id = "20260101-000000-1", .http_port = 3128,
					   .socks_port = 1080 };

static void compile_sb(const struct policy *p, struct seatbelt_profile *sp)
{
	char err[512] = "";
	int rc = seatbelt_compile(p, &opts, sp, err, sizeof(err));

	cr_assert_eq(rc, 0, "seatbelt_compile: %d %s", rc, err);
	cr_assert_not_null(sp->text);
}

static const char *param_named(const struct seatbelt_profile *sp, const char *value)
{
	for (size_t i = 0; i < sp->nparams; i++)
		if (!strcmp(sp->params[i].value, value))
			return sp->params[i].name;
	return NULL;
}

/* ---- sampling paths */

struct paths {
	char **v;
	size_t n, cap;
};

static void add(struct paths *ps, const char *p)
{
	char norm[4096];

	if (p[0] != '/' || path_join("/", p, norm, sizeof(norm)))
		return;
	for (size_t i = 0; i < ps->n; i++)
		if (!strcmp(ps->v[i], norm))
			return;
	if (ps->n == ps->cap) {
		ps->cap = ps->cap ? ps->cap * 2 : 256;
		ps->v = realloc(ps->v, ps->cap * sizeof(*ps->v));
	}
	ps->v[ps->n++] = strdup(norm);
}

static unsigned long rng = 12345;
static unsigned rnd(unsigned n)
{
	rng = rng * 6364136223846793005ul + 1442695040888963407ul;
	return (unsigned)((rng >> 33) % n);
}

static const char *const names[] = {
	"a", "src", "x.txt", ".env", ".git", "hooks", "config", ".ssh", "id_rsa", "node_modules",
	".bashrc", ".claude", "settings.json", "out", "b c", "q'uote", "[br]", "a.b", ".vscode",
	".local", "bin", "sbx", "sessions", "t-1", ".config", "git", "credentials", "tmp",
};

/* A glob as a path: each wildcard becomes a name. */
static void unglob(const char *g, char *out, size_t outsz)
{
	size_t l = 0;

	for (; *g && l + 8 < outsz; g++) {
		if (*g == '*') {
			while (g[1] == '*')
				g++;
			const char *s = rnd(3) ? "zz" : "a/b";
			for (; *s && l + 1 < outsz; s++)
				out[l++] = *s;
		} else if (*g == '?') {
			out[l++] = 'q';
		} else if (*g == '\\' && g[1]) {
			out[l++] = *++g;
		} else {
			out[l++] = *g;
		}
	}
	out[l] = '\0';
}

static void around(struct paths *ps, const char *p)
{
	char b[4096];

	add(ps, p);
	snprintf(b, sizeof(b), "%s/%s", p, names[rnd(sizeof(names) / sizeof(names[0]))]);
	add(ps, b);
	snprintf(b, sizeof(b), "%s/%s/%s", p, names[rnd(sizeof(names) / sizeof(names[0]))],
		 names[rnd(sizeof(names) / sizeof(names[0]))]);
	add(ps, b);
	snprintf(b, sizeof(b), "%sx", p); /* a sibling sharing the name's start */
	add(ps, b);
	snprintf(b, sizeof(b), "%s", p);
	char *slash = strrchr(b, '/');
	if (slash && slash != b) {
		*slash = '\0';
		add(ps, b); /* the parent */
		snprintf(b + strlen(b), sizeof(b) - strlen(b), "/%s",
			 names[rnd(sizeof(names) / sizeof(names[0]))]);
		add(ps, b); /* a sibling */
	}
}

static void sample(const struct policy *p, struct paths *ps, const char *const *extra)
{
	static const char *const roots[] = { "/", "/home/u", "/w", "/tmp", "/w/sub/deep",
					     "/home/u/proj", "/etc", "/usr/bin", "/var/log",
					     TEST_SESSION_DIR, "/home/u/.local/state/sbx" };
	char b[4096];

	for (size_t i = 0; i < sizeof(roots) / sizeof(roots[0]); i++)
		around(ps, roots[i]);
	for (size_t i = 0; extra && extra[i]; i++)
		around(ps, extra[i]);
	for (int k = 0; k < SBX_RULE_KIND_COUNT; k++) {
		size_t n;
		const struct sbx_rule *const *rs = policy_rules(p, (enum sbx_rule_kind)k, &n);
		for (size_t i = 0; i < n; i++) {
			if (!rs[i]->pattern || k == SBX_RULE_ALLOW_DOMAIN || k == SBX_RULE_DENY_DOMAIN ||
			    k == SBX_RULE_DENY_ENV || k == SBX_RULE_SET_ENV ||
			    k == SBX_RULE_HOST_PORT || k == SBX_RULE_PROFILE_ARG ||
			    k == SBX_RULE_KEEP_ENV || k == SBX_RULE_IGNORE_DOMAIN)
				continue;
			for (int rep = 0; rep < 2; rep++) {
				unglob(rs[i]->pattern, b, sizeof(b));
				if (rs[i]->pat == SBX_PAT_ANYWHERE) {
					char c[4096];
					static const char *const at[] = { "/w", "/w/sub", "/home/u",
									  "/tmp/x", "/home/u/proj" };
					snprintf(c, sizeof(c), "%s/%s", at[rnd(5)], b);
					around(ps, c);
				} else {
					around(ps, b);
				}
			}
		}
	}
	/* random names at depth */
	for (int i = 0; i < 600; i++) {
		size_t l = (size_t)snprintf(b, sizeof(b), "%s",
					    roots[rnd(sizeof(roots) / sizeof(roots[0]))]);
		if (l == 1)
			l = 0;
		for (unsigned d = 1 + rnd(5); d; d--)
			l += (size_t)snprintf(b + l, sizeof(b) - l, "/%s",
					      names[rnd(sizeof(names) / sizeof(names[0]))]);
		add(ps, b);
	}
}

/* The profile and policy_check_path() agree on every sampled path, for
 * reads, runs and writes. Not compared: /dev (the profile opens the
 * terminal and /dev/null to every program, as bubblewrap's /dev does on
 * Linux, where they are no path rule) and /private (Darwin's name for
 * /tmp, /var and /etc: the canonical form of a path, not a path of its
 * own on Linux). */
static size_t semantic_check(const struct policy *p, const char *const *extra)
{
	struct seatbelt_profile sp;
	struct prof pr;
	struct paths ps = { 0 };
	size_t compared = 0, bad = 0;
	char canon[4200], first[8192] = "";

	compile_sb(p, &sp);
	prof_load(&pr, &sp);
	sample(p, &ps, extra);
	for (size_t i = 0; i < ps.n; i++) {
		const char *path = ps.v[i];
		if (!strncmp(path, "/dev", 4) || !strncmp(path, "/private", 8))
			continue;
		cr_assert_eq(seatbelt_canonical(path, canon, sizeof(canon)), 0);
		sbpl_path_gen++;
		static const struct {
			enum sbx_op op;
			const char *sbpl;
		} ops[] = { { SBX_OP_READ, "file-read-data" }, { SBX_OP_EXEC, "process-exec" },
			    { SBX_OP_WRITE, "file-write-create" }, { SBX_OP_WRITE, "file-write-data" },
			    { SBX_OP_WRITE, "file-write-unlink" } };
		for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++) {
			bool want = policy_check_path(p, ops[k].op, path, NULL) == SBX_ALLOW;
			bool got = prof_allows(&pr, ops[k].sbpl, canon);
			compared++;
			if (want != got && bad++ < 8) {
				size_t l = strlen(first);
				snprintf(first + l, sizeof(first) - l, "\n  %s %s: policy %s, profile %s",
					 ops[k].sbpl, path, want ? "allows" : "denies",
					 got ? "allows" : "denies");
			}
		}
	}
	cr_assert_eq(bad, 0, "%zu of %zu decisions differ:%s", bad, compared, first);
	for (size_t i = 0; i < ps.n; i++)
		free(ps.v[i]);
	free(ps.v);
	prof_free(&pr);
	seatbelt_profile_free(&sp);
	return compared;
}

/* ---- golden checks of the text */

Test(seatbelt, defaults_deny_by_default_and_tag_every_deny)
{
	struct policy *p = compile_ini(NULL);
	struct seatbelt_profile sp;

	compile_sb(p, &sp);
	cr_assert(!strncmp(sp.text, "(version 1)\n", 12));
	assert_contains(sp.text, "(deny default (with message \"sbx-20260101-000000-1\"))");
	/* every deny carries the tag: count them */
	size_t denies = 0, tagged = 0;
	for (const char *s = sp.text; (s = strstr(s, "(deny ")); s++) {
		denies++;
		const char *eol = strchr(s, '\n');
		const char *t = strstr(s, "(with message \"sbx-20260101-000000-1\"))");
		tagged += t && t < eol;
	}
	cr_assert_gt(denies, 5);
	cr_assert_eq(denies, tagged, "%zu denies, %zu tagged", denies, tagged);
	/* reads open, ~/.ssh closed (read, run and write), by parameter */
	const char *ssh = param_named(&sp, "/home/u/.ssh");
	cr_assert_not_null(ssh);
	char want[256];
	const char *ssh_ci = param_named(&sp, "^/[hH][oO][mM][eE]/[uU]/\\.[sS][sS][hH](/.*)?$");
	cr_assert_not_null(ssh_ci, "no case-blind regex for ~/.ssh");
	snprintf(want, sizeof(want), "(deny file-read* process-exec (literal (param \"%s\")) "
		 "(subpath (param \"%s\")) (regex (param \"%s\")) (with message", ssh, ssh,
		 ssh_ci);
	assert_contains(sp.text, want);
	snprintf(want, sizeof(want), "(deny file-write* (literal (param \"%s\")) "
		 "(subpath (param \"%s\")) (regex (param \"%s\")) (with message", ssh, ssh,
		 ssh_ci);
	assert_contains(sp.text, want);
	/* /tmp is named as Darwin names it */
	cr_assert_not_null(param_named(&sp, "/private/tmp"));
	cr_assert_null(param_named(&sp, "/tmp"));
	/* named Mach services only, no Apple Events */
	assert_contains(sp.text, "(global-name \"com.apple.trustd.agent\")");
	assert_not_contains(sp.text, "(allow mach-lookup)");
	assert_not_contains(sp.text, "SecurityServer");
	assert_contains(sp.text, "(deny appleevent-send");
	assert_contains(sp.text, "(allow pseudo-tty)");
	/* a name at any depth, `.git/hooks`, as an escaped regex, either case */
	cr_assert_not_null(param_named(&sp, "^.*/\\.[gG][iI][tT]/[hH][oO][oO][kK][sS](/.*)?$"));
	/* the network is off by default: nothing goes out */
	assert_not_contains(sp.text, "network-outbound");
	assert_not_contains(sp.text, "(allow network*)");
	seatbelt_profile_free(&sp);
	seatbelt_profile_free(&sp); /* twice is fine */
	policy_free(p);
}

Test(seatbelt, proxy_ports_are_parameters_and_unknown_ports_fail_closed)
{
	struct policy *p = compile_ini("[network]\nallow_domains = example.com\n"
				       "host_ports = 5432\n"
				       "allow_unix_sockets = /var/sbx-no/docker.sock\n");
	struct seatbelt_profile sp;
	char err[256];

	compile_sb(p, &sp);
	assert_contains(sp.text, "(remote tcp (string-append \"localhost:\" "
				 "(param \"HTTP_PROXY_PORT\")))");
	assert_contains(sp.text, "(param \"SOCKS_PROXY_PORT\")");
	assert_contains(sp.text, "(param \"HOST_PORT_1\")");
	assert_not_contains(sp.text, "3128");
	assert_not_contains(sp.text, "5432");
	cr_assert_str_eq(param_named(&sp, "3128"), "HTTP_PROXY_PORT");
	cr_assert_str_eq(param_named(&sp, "5432"), "HOST_PORT_1");
	cr_assert_not_null(param_named(&sp, "^/private/var/sbx-no/docker\\.sock(/.*)?$"));
	assert_contains(sp.text, "(remote unix-socket (path-regex (param");
	assert_not_contains(sp.text, "(allow network*)");
	seatbelt_profile_free(&sp);

	struct seatbelt_opts no_socks = opts;
	no_socks.socks_port = 0;
	cr_assert_eq(seatbelt_compile(p, &no_socks, &sp, err, sizeof(err)), -EINVAL);
	assert_contains(err, "SOCKS5 proxy is not known");
	cr_assert_null(sp.text);
	struct seatbelt_opts bad_tag = opts;
	bad_tag.run_id = "x\") (allow default";
	cr_assert_eq(seatbelt_compile(p, &bad_tag, &sp, err, sizeof(err)), -EINVAL);
	policy_free(p);

	p = compile_ini("[network]\nallow_domains = *\n");
	compile_sb(p, &sp);
	assert_contains(sp.text, "(allow network*)");
	seatbelt_profile_free(&sp);
	policy_free(p);
}

Test(seatbelt, hostile_paths_travel_only_as_parameters)
{
	/* spaces, quotes, a bracket, regex metacharacters, a newline-free
	 * attempt to close the string and add a rule */
	static const char *const odd[] = {
		"/w/my dir/x",
		"/w/q\"uote\") (allow file-write* (subpath \"/\"",
		"/w/it's",
		"/w/[br]a(c)e{1}.+?$^|\\x",
	};
	char ini[2048];
	snprintf(ini, sizeof(ini),
		 "[filesystem]\nallow_write = /w/my dir/x\ndeny_write = /w/q\"uote\") "
		 "(allow file-write* (subpath \"/\"\ndeny_read = /w/it's\n"
		 "allow_write = /w/[br]a(c)e{1}.+?$^|\\x\n"
		 "deny_read = /w/g(1)/*.key\n");
	struct policy *p = compile_ini(ini);
	struct seatbelt_profile sp;

	compile_sb(p, &sp);
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
		assert_not_contains(sp.text, odd[i]);
	assert_not_contains(sp.text, "my dir");
	assert_not_contains(sp.text, "q\\\"uote");
	assert_not_contains(sp.text, "[br]");
	cr_assert_not_null(param_named(&sp, "/w/my dir/x"));
	cr_assert_not_null(param_named(&sp, "/w/it's"));
	/* a glob's literal bytes are escaped in its regex */
	cr_assert_not_null(param_named(&sp, "^/[wW]/[gG]\\(1\\)/[^/]*\\.[kK][eE][yY](/.*)?$"),
			   "glob regex not escaped as expected");
	/* the command quotes every parameter for the shell */
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	char *cmd[] = { "claude", "--x", NULL };
	seatbelt_print_command(f, &sp, cmd);
	fclose(f);
	assert_contains(buf, "/usr/bin/sandbox-exec");
	assert_contains(buf, "=/w/it'\\''s'");
	assert_contains(buf, " 'claude' '--x'\n");
	free(buf);
	seatbelt_profile_free(&sp);
	/* and what they mean is still what the policy means */
	static const char *const extra[] = { "/w/my dir/x", "/w/it's", "/w/g(1)/a.key",
					     "/w/[br]a(c)e{1}.+?$^|\\x", NULL };
	semantic_check(p, extra);
	policy_free(p);
}

Test(seatbelt, the_persons_terminal_is_denied_by_name_and_ptys_of_its_own_are_not)
{
	/* with the relay (backend/relay.c) COMMAND has a pty of its own: the
	 * person's terminal is refused by name, after every allow (an
	 * allow_write of /dev opens it not again); other ttys, /dev/tty (the
	 * controlling one: the relay's) and /dev/ptmx stay allowed */
	struct policy *p = compile_ini("[filesystem]\nallow_write = /dev\n");
	struct seatbelt_opts o = opts;
	struct seatbelt_profile sp;
	struct prof pr;

	o.host_tty = "/dev/ttys003";
	cr_assert_eq(seatbelt_compile(p, &o, &sp, NULL, 0), 0);
	assert_not_contains(sp.text, "ttys003");
	cr_assert_str_eq(param_named(&sp, "/dev/ttys003"), "HOST_TTY");
	prof_load(&pr, &sp);
	static const char *const ops[] = { "file-read-data", "file-write-data", "file-ioctl" };
	for (size_t i = 0; i < 3; i++) {
		cr_assert(!prof_allows(&pr, ops[i], "/dev/ttys003"), "%s allowed", ops[i]);
		cr_assert(prof_allows(&pr, ops[i], "/dev/ttys004"), "%s refused", ops[i]);
		cr_assert(prof_allows(&pr, ops[i], "/dev/tty"), "%s refused", ops[i]);
		cr_assert(prof_allows(&pr, ops[i], "/dev/ptmx"), "%s refused", ops[i]);
	}
	prof_free(&pr);
	seatbelt_profile_free(&sp);
	/* none given: no such rule */
	o.host_tty = "";
	cr_assert_eq(seatbelt_compile(p, &o, &sp, NULL, 0), 0);
	assert_not_contains(sp.text, "HOST_TTY");
	seatbelt_profile_free(&sp);
	policy_free(p);
}

Test(seatbelt, regex_escapes_and_wildcards)
{
	char re[256];

	cr_assert_eq(seatbelt_rule_regex(SBX_PAT_PREFIX, "/a.b/c+d", false, re, sizeof(re)), 0);
	cr_assert_str_eq(re, "^/a\\.b/c\\+d(/.*)?$");
	cr_assert_eq(seatbelt_rule_regex(SBX_PAT_PREFIX, "/", false, re, sizeof(re)), 0);
	cr_assert_str_eq(re, "^/.*$");
	cr_assert_eq(seatbelt_rule_regex(SBX_PAT_GLOB, "/h/**/x?y*", false, re, sizeof(re)), 0);
	cr_assert_str_eq(re, "^/h/(.*/)?x[^/]y[^/]*(/.*)?$");
	cr_assert_eq(seatbelt_rule_regex(SBX_PAT_ANYWHERE, ".git/modules/*/hooks", false, re, sizeof(re)), 0);
	cr_assert_str_eq(re, "^.*/\\.git/modules/[^/]*/hooks(/.*)?$");
	cr_assert_eq(seatbelt_rule_regex(SBX_PAT_GLOB, "/a/\\*b**", false, re, sizeof(re)), 0);
	cr_assert_str_eq(re, "^/a/\\*b.*(/.*)?$");
	cr_assert_eq(seatbelt_rule_regex(SBX_PAT_PREFIX, "/abc", false, re, 8), -ENAMETOOLONG);
	cr_assert_str_eq(re, "");
	/* a deny's letters in either case */
	cr_assert_eq(seatbelt_rule_regex(SBX_PAT_ANYWHERE, ".git/h*", true, re, sizeof(re)), 0);
	cr_assert_str_eq(re, "^.*/\\.[gG][iI][tT]/[hH][^/]*(/.*)?$");
	char c[64];
	cr_assert_eq(seatbelt_canonical("/tmp", c, sizeof(c)), 0);
	cr_assert_str_eq(c, "/private/tmp");
	cr_assert_eq(seatbelt_canonical("/var/folders/x", c, sizeof(c)), 0);
	cr_assert_str_eq(c, "/private/var/folders/x");
	cr_assert_eq(seatbelt_canonical("/tmpx/y", c, sizeof(c)), 0);
	cr_assert_str_eq(c, "/tmpx/y");
}

/* ---- the semantic check, policy by policy */

Test(seatbelt, semantic_defaults)
{
	struct policy *p = compile_ini(NULL);
	size_t n = semantic_check(p, NULL);
	cr_assert_gt(n, 3000, "only %zu decisions compared", n);
	policy_free(p);
}

Test(seatbelt, semantic_workspace_isolation)
{
	struct policy *p = compile_ini("[sandbox]\nisolation = workspace\nworkspace = /home/u/proj\n"
				       "[filesystem]\nallow_write = ~/.cache/\n");
	static const char *const extra[] = { "/home/u/proj/.git/hooks/pre-commit",
					     "/home/u/proj/.claude/settings.json",
					     "/home/u/proj/.claude", "/home/u/.cache/pip/x", NULL };
	semantic_check(p, extra);
	policy_free(p);
}

Test(seatbelt, semantic_strict_isolation)
{
	struct policy *p = compile_ini("[sandbox]\nisolation = strict\n");
	static const char *const extra[] = { TEST_SESSION_DIR "/x", "/home/u/.local/state/sbx/y",
					     NULL };
	semantic_check(p, extra);
	policy_free(p);
}

Test(seatbelt, semantic_globs)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = /w/secrets/*.pem\n"
				       "deny_read = ~/**/id_*\n"
				       "deny_write = *.lock\n"
				       "allow_write = /w/build*/out\n"
				       "deny_read = .npmrc\n");
	static const char *const extra[] = { "/w/secrets/a.pem", "/w/secrets/a.pem/x",
					     "/w/secrets/sub/a.pem", "/home/u/a/b/id_ed25519",
					     "/home/u/id_x", "/w/x.lock", "/w/build1/out/y",
					     "/w/build/out", "/w/sub/.npmrc", NULL };
	semantic_check(p, extra);
	policy_free(p);
}

Test(seatbelt, semantic_deny_read_inside_allow_and_allow_inside_deny)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = /w/private\n"
				       "allow_read = /w/private/public\n"
				       "deny_read = /w/private/public/secret\n"
				       "allow_read = ~/.ssh/known_hosts\n"
				       "allow_write = ~/.ssh\n");
	static const char *const extra[] = { "/w/private/public/a", "/w/private/public/secret/b",
					     "/w/private/b", "/home/u/.ssh/known_hosts",
					     "/home/u/.ssh/id_rsa", NULL };
	semantic_check(p, extra);
	/* and the profile text says it: the allow is the deny's exception */
	struct seatbelt_profile sp;
	compile_sb(p, &sp);
	const char *d = param_named(&sp, "/w/private"), *a = param_named(&sp, "/w/private/public");
	char want[256];
	snprintf(want, sizeof(want), "(deny file-read* process-exec (require-all (require-any "
		 "(literal (param \"%s\")) (subpath (param \"%s\")) (regex (param \"%s\"))) "
		 "(require-not (require-any (subpath (param \"%s\")))))", d, d,
		 param_named(&sp, "^/[wW]/[pP][rR][iI][vV][aA][tT][eE](/.*)?$"), a);
	assert_contains(sp.text, want);
	seatbelt_profile_free(&sp);
	policy_free(p);
}

Test(seatbelt, semantic_home_writable)
{
	/* HOME writable: its allow-list keeps the places later programs run
	 * from read-only, unless a rule names them */
	struct policy *p = compile_ini("[filesystem]\nallow_write = ~\nallow_write = ~/.cargo/\n");
	static const char *const extra[] = { "/home/u/.cargo/bin/x", "/home/u/.local/bin/git",
					     "/home/u/.pyenv/versions", "/home/u/notes.txt", NULL };
	semantic_check(p, extra);
	policy_free(p);
}

Test(seatbelt, denies_hold_whatever_the_case)
{
	/* A Mac's volume is case-insensitive by default: ~/.SSH is ~/.ssh,
	 * and a .GIT/hooks made where no .git is yet is what git reads. The
	 * denies hold for every spelling; allows stay as written. Linux's
	 * policy is case-sensitive, so these are asserted here, not by the
	 * semantic comparison. */
	struct policy *p = compile_ini("[sandbox]\nworkspace = /w\n"
				       "[filesystem]\nallow_read = ~/.ssh/known_hosts\n");
	struct seatbelt_profile sp;
	struct prof pr;

	compile_sb(p, &sp);
	prof_load(&pr, &sp);
	sbpl_path_gen++;
	cr_assert(!prof_allows(&pr, "file-read-data", "/home/u/.SSH/id_rsa"));
	sbpl_path_gen++;
	cr_assert(!prof_allows(&pr, "file-read-data", "/home/u/.Ssh/Known_Hosts"));
	sbpl_path_gen++;
	cr_assert(prof_allows(&pr, "file-read-data", "/home/u/.ssh/known_hosts"));
	sbpl_path_gen++;
	cr_assert(!prof_allows(&pr, "file-write-create", "/w/.GIT/hooks/pre-commit"));
	sbpl_path_gen++;
	cr_assert(!prof_allows(&pr, "file-write-create", "/w/.Claude/Settings.json"));
	sbpl_path_gen++;
	cr_assert(!prof_allows(&pr, "file-write-create", "/w/.ENV"));
	sbpl_path_gen++;
	cr_assert(prof_allows(&pr, "file-write-create", "/w/src/Main.c"));
	prof_free(&pr);
	seatbelt_profile_free(&sp);
	policy_free(p);
}

/* ---- the presets (`[sandbox] profile = ...`, policy/preset.c) */

static const char *const presets[] = { "permissive-open", "permissive-closed",
				       "permissive-proxied", "restrictive-open",
				       "restrictive-closed", "restrictive-proxied" };

static struct policy *compile_preset(const char *name)
{
	char ini[256];

	snprintf(ini, sizeof(ini), "[sandbox]\nprofile = %s\n%s", name,
		 strstr(name, "proxied") ? "[network]\nallow_domains = example.com\n" : "");
	return compile_ini(ini);
}

Test(seatbelt, semantic_each_preset)
{
	static const char *const extra[] = { "/var/run/docker.sock", "/home/u/.docker/run/x.sock",
					     "/home/u/.colima/default/docker.sock",
					     "/home/u/.cache/pip/x", "/home/u/.npm/_cacache/y",
					     "/home/u/.docker/config.json", "/w/src/a.c", NULL };

	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++) {
		struct policy *p = compile_preset(presets[i]);
		size_t n = semantic_check(p, extra);
		cr_assert_gt(n, 3000, "%s: only %zu decisions compared", presets[i], n);
		policy_free(p);
	}
}

/* What the golden text of each preset's profile says: the lines that set
 * the presets apart, and the rest the same. */
static char *text_of(const char *name, struct seatbelt_profile *sp)
{
	struct policy *p = compile_preset(name);

	compile_sb(p, sp);
	policy_free(p);
	return sp->text;
}

/* The profile's text with each (param "N") as its value, without the
 * lines holding `drop`: what it says, whatever the parameters' numbers. */
static char *without(const struct seatbelt_profile *sp, const char *const *drop)
{
	char *text = NULL, *out;
	size_t tl = 0, l = 0;
	FILE *f = open_memstream(&text, &tl);

	for (const char *s = sp->text; *s;) {
		const char *q = strstr(s, "(param \"");
		if (!q) {
			fputs(s, f);
			break;
		}
		fwrite(s, 1, (size_t)(q - s), f);
		const char *name = q + 8, *e = strchr(name, '"');
		char n[64];
		snprintf(n, sizeof(n), "%.*s", (int)(e - name), name);
		for (size_t i = 0; i < sp->nparams; i++)
			if (!strcmp(sp->params[i].name, n))
				fprintf(f, "\"%s\"", sp->params[i].value);
		s = e + 2;
	}
	fclose(f);
	out = calloc(1, tl + 1);
	for (const char *s = text; *s;) {
		const char *e = strchr(s, '\n');
		size_t n = e ? (size_t)(e - s + 1) : strlen(s);
		bool keep = true;
		for (size_t i = 0; drop && drop[i]; i++)
			keep = keep && !memmem(s, n, drop[i], strlen(drop[i]));
		if (keep) {
			memcpy(out + l, s, n);
			l += n;
		}
		s += n;
	}
	free(text);
	return out;
}

Test(seatbelt, golden_presets_differ_only_in_their_network_and_servers)
{
	struct seatbelt_profile sp[6];
	static const char *const net_lines[] = { "network", "proxy", "PROXY_PORT", "localhost:",
						 "domain", "allow_local_binding", "mDNSResponder",
						 NULL };

	for (size_t i = 0; i < 6; i++)
		text_of(presets[i], &sp[i]);
	/* *-open: the network open; *-closed: nothing out; *-proxied: the
	 * proxy's two ports only */
	for (size_t i = 0; i < 6; i++) {
		const char *t = sp[i].text;
		if (strstr(presets[i], "-open")) {
			assert_contains(t, "(allow network*)");
			assert_not_contains(t, "PROXY_PORT");
			/* names resolve as the host resolves them only here */
			assert_contains(t, "(global-name \"com.apple.mDNSResponder\")");
		} else if (strstr(presets[i], "-closed")) {
			assert_not_contains(t, "network-outbound");
			assert_not_contains(t, "(allow network*)");
			assert_not_contains(t, "mDNSResponder");
		} else {
			assert_contains(t, "(remote tcp (string-append \"localhost:\" "
					   "(param \"HTTP_PROXY_PORT\")))");
			assert_not_contains(t, "(allow network*)");
		}
		/* permissive-*: its own servers on localhost; restrictive-*: none */
		if (!strncmp(presets[i], "permissive", 10))
			assert_contains(t, "(allow network-bind network-inbound (local ip \"localhost:*\"))");
		else
			assert_not_contains(t, "network-bind");
		/* all six: the container daemons' sockets neither read nor written */
		cr_assert_not_null(param_named(&sp[i], "/home/u/.docker/run"), "%s", presets[i]);
		cr_assert_not_null(param_named(&sp[i], "/home/u/.colima"), "%s", presets[i]);
		/* and the sandbox's own tool caches writable, not the host's */
		cr_assert_not_null(param_named(&sp[i], "/home/u/.cache/sbx-caches"), "%s",
				   presets[i]);
		cr_assert_null(param_named(&sp[i], "/home/u/.cache"), "%s", presets[i]);
		cr_assert_null(param_named(&sp[i], "/home/u/.npm"), "%s", presets[i]);
	}
	/* apart from those lines, the six profiles are one text */
	char *base = without(&sp[0], net_lines);
	for (size_t i = 1; i < 6; i++) {
		char *t = without(&sp[i], net_lines);
		cr_assert_str_eq(t, base, "%s and %s differ beyond the network", presets[0],
				 presets[i]);
		free(t);
	}
	free(base);
	for (size_t i = 0; i < 6; i++)
		seatbelt_profile_free(&sp[i]);
}

Test(seatbelt, presets_keep_container_daemons_out_of_reach)
{
	for (size_t i = 0; i < 6; i++) {
		struct seatbelt_profile sp;
		struct prof pr;
		struct policy *p = compile_preset(presets[i]);

		compile_sb(p, &sp);
		prof_load(&pr, &sp);
		/* (/var/run/docker.sock is resolved where the policy is
		 * compiled: /run here, /private/var/run on a Mac) */
		static const char *const socks[] = { "/home/u/.colima/default/docker.sock",
						     "/home/u/.docker/run/docker.sock",
						     "/home/u/.orbstack/run/docker.sock",
						     "/home/u/.rd/docker.sock" };
		for (size_t k = 0; k < 4; k++) {
			sbpl_path_gen++;
			cr_assert_not(prof_allows(&pr, "file-read-data", socks[k]), "%s %s",
				      presets[i], socks[k]);
			cr_assert_not(prof_allows(&pr, "file-write-data", socks[k]), "%s %s",
				      presets[i], socks[k]);
		}
		sbpl_path_gen++;
		cr_assert(prof_allows(&pr, "file-write-create", "/home/u/.cache/sbx-caches/npm/x"));
		sbpl_path_gen++;
		cr_assert_not(prof_allows(&pr, "file-write-create", "/home/u/.npm/_npx/a/x"));
		sbpl_path_gen++;
		cr_assert(prof_allows(&pr, "file-write-create", "/w/src/new.c"));
		sbpl_path_gen++;
		cr_assert_not(prof_allows(&pr, "file-write-create", "/home/u/notes.txt"));
		prof_free(&pr);
		seatbelt_profile_free(&sp);
		policy_free(p);
	}
}

/* Every run's hand-over in sbx's state directory, another run's and this
 * one's, is not read from inside: not another's reports, policy or drop
 * count, and no directory of theirs opened to be flocked (a start waits
 * for no lock of a program's); this run's policy, still read. A state
 * directory with glob and regex characters matches as written. */
Test(seatbelt, no_runs_hand_over_is_read_from_inside_but_this_ones_policy)
{
	struct policy *p = compile_ini("[filesystem]\nallow_write = /tmp/w\n");
	static const char *const states[] = { "/tmp/st", "/tmp/s[t]*?.x" };

	for (size_t k = 0; k < 2; k++) {
		struct seatbelt_opts so = opts;
		struct seatbelt_profile sp;
		struct prof pr;
		char err[256] = "", dir[128], pol[128], rep[128], cnt[128], q[256];
		const char *st = states[k];

		snprintf(dir, sizeof(dir), "%s/shim-a", st);
		snprintf(pol, sizeof(pol), "%s/shim-a/policy", st);
		snprintf(rep, sizeof(rep), "%s/shim-a/reports", st);
		snprintf(cnt, sizeof(cnt), "%s/shim-a/dropped", st);
		so.shim_others = st;
		so.shim_dir = dir;
		so.shim_policy = pol;
		so.shim_report = rep;
		so.shim_counters = cnt;
		cr_assert_eq(seatbelt_compile(p, &so, &sp, err, sizeof(err)), 0, "%s", err);
		prof_load(&pr, &sp);
		static const struct {
			const char *op, *name;
			bool allow;
		} want[] = {
			{ "file-read-data", "shim-a/policy", true },
			{ "file-write-data", "shim-a/reports", true },
			{ "file-write-data", "shim-a/dropped", true },
			{ "file-read-data", "shim-a/reports", false },
			{ "file-read-data", "shim-a/dropped", false },
			{ "file-read-data", "shim-b/policy", false },
			{ "file-read-data", "shim-b/reports", false },
			{ "file-read-metadata", "shim-b/dropped", false },
			{ "file-read-data", "shim-b", false },
			{ "file-read-data", "SHIM-B/policy", false },
			{ "file-read-data", "shim-b-1/policy", false },
			{ "file-read-data", "walk-record", true },
			{ "file-read-data", "xshim-b/policy", true },
		};
		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			snprintf(q, sizeof(q), "/private%s/%s", st, want[i].name);
			sbpl_path_gen++;
			cr_assert_eq(prof_allows(&pr, want[i].op, q), want[i].allow, "%s %s",
				     want[i].op, q);
		}
		prof_free(&pr);
		seatbelt_profile_free(&sp);
	}
	/* relative: refused, said */
	struct seatbelt_opts so = opts;
	struct seatbelt_profile sp;
	char err[256] = "";
	so.shim_others = "st";
	cr_assert_eq(seatbelt_compile(p, &so, &sp, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "the hand-overs' directory must be absolute, and shorter");
	policy_free(p);
}

/* The shim's hand-over (docs/MACOS.md): a directory of the supervisor's,
 * here inside a writable root (the hard case), never changed from inside;
 * the policy read, the report FIFO written and never read (in any case's
 * spelling: APFS folds it), the counters written. */
Test(seatbelt, the_shims_files_are_read_or_written_only_as_handed_over)
{
	struct policy *p = compile_ini("[filesystem]\nallow_write = /tmp\n"
				       "deny_read = /tmp/sbx-run\n");
	struct seatbelt_opts so = opts;
	struct seatbelt_profile sp;
	struct prof pr;
	char err[256] = "";

	so.shim_dir = "/tmp/sbx-run";
	so.shim_policy = "/tmp/sbx-run/policy";
	so.shim_report = "/tmp/sbx-run/reports";
	so.shim_counters = "/tmp/sbx-run/dropped";
	cr_assert_eq(seatbelt_compile(p, &so, &sp, err, sizeof(err)), 0, "%s", err);
	prof_load(&pr, &sp);
	sbpl_path_gen++;
	static const struct {
		const char *op, *path;
		bool allow;
	} want[] = {
		{ "file-write-data", "/private/tmp/elsewhere", true }, /* the root still is */
		{ "file-write-create", "/private/tmp/sbx-run/new", false },
		{ "file-write-unlink", "/private/tmp/sbx-run/policy", false },
		{ "file-write-data", "/private/tmp/sbx-run/policy", false },
		{ "file-write-unlink", "/private/tmp/sbx-run", false },
		{ "file-write-create", "/private/tmp/SBX-RUN/policy", false },
		{ "file-read-data", "/private/tmp/sbx-run/policy", true }, /* deny_read there */
		{ "file-read-data", "/private/tmp/sbx-run/other", false },
		{ "file-write-data", "/private/tmp/sbx-run/reports", true },
		{ "file-write-data", "/private/tmp/sbx-run/dropped", true },
		{ "file-write-data", "/private/tmp/sbx-run/REPORTS", false },
		{ "file-read-data", "/private/tmp/sbx-run/reports", false },
		{ "file-read-data", "/private/tmp/sbx-run/Reports", false },
		{ "file-write-unlink", "/private/tmp/sbx-run/reports", false },
		{ "file-write-mode", "/private/tmp/sbx-run/reports", false },
	};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		sbpl_path_gen++;
		cr_assert_eq(prof_allows(&pr, want[i].op, want[i].path), want[i].allow, "%s %s",
			     want[i].op, want[i].path);
	}
	prof_free(&pr);
	seatbelt_profile_free(&sp);
	/* files outside the directory, a relative one: refused, said */
	so.shim_counters = "/tmp/dropped";
	cr_assert_eq(seatbelt_compile(p, &so, &sp, err, sizeof(err)), -EINVAL);
	cr_assert_str_eq(err, "the shim's files must be in its directory");
	so.shim_counters = "/tmp/sbx-run/dropped";
	so.shim_dir = "sbx-run";
	cr_assert_eq(seatbelt_compile(p, &so, &sp, err, sizeof(err)), -EINVAL);
	so.shim_dir = NULL;
	cr_assert_eq(seatbelt_compile(p, &so, &sp, err, sizeof(err)), -EINVAL);
	/* none: no rule of the shim's */
	so.shim_policy = so.shim_report = so.shim_counters = NULL;
	cr_assert_eq(seatbelt_compile(p, &so, &sp, err, sizeof(err)), 0);
	assert_not_contains(sp.text, "hand-over");
	seatbelt_profile_free(&sp);
	policy_free(p);
}
