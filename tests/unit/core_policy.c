/* tests/unit/core_policy.c: the policy, as docs/POLICY.md specifies it. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "policy/policy.h"

/* Fake roots that do not exist, so no symlink resolution interferes. */
#define HOME "/nonexistent-sbx/home/u"
#define WS "/nonexistent-sbx/w"
#define SESSION HOME "/.local/state/sbx/sessions/t-1"

static struct policy_builder *builder(void)
{
	struct policy_ctx ctx = { .home = HOME, .cwd = WS, .session_dir = SESSION };
	struct policy_builder *b = NULL;

	cr_assert_eq(policy_builder_new(&ctx, &b), 0);
	return b;
}

static struct policy *compile2(const char *user, const char *project)
{
	struct policy_builder *b = builder();
	struct policy *p = NULL;
	struct sbx_err err = { "" };

	if (user)
		cr_assert_eq(policy_builder_load_string(b, user, "test.ini",
			     POLICY_LAYER_USER, &err), 0, "%s", err.msg);
	if (project)
		cr_assert_eq(policy_builder_load_string(b, project, "proj.ini",
			     POLICY_LAYER_PROJECT, &err), 0, "%s", err.msg);
	cr_assert_eq(policy_compile(b, &p, &err), 0, "%s", err.msg);
	return p;
}

static struct policy *compile_ini(const char *ini)
{
	return compile2(ini, NULL);
}

/* Load must fail; returns the message (static buffer). */
static const char *load_error(const char *ini, enum policy_layer layer)
{
	static struct sbx_err err;
	struct policy_builder *b = builder();

	memset(&err, 0, sizeof(err));
	cr_assert_eq(policy_builder_load_string(b, ini, "test.ini", layer, &err),
		     -EINVAL, "expected an error for:\n%s", ini);
	policy_builder_free(b);
	return err.msg;
}

static enum sbx_verdict check(struct policy *p, enum sbx_op op, const char *path,
			      const struct sbx_rule **why)
{
	return policy_check_path(p, op, path, why);
}

/* ---- decisions: one table, from the built-in defaults */

struct decision {
	enum sbx_op op;
	const char *path;
	enum sbx_verdict want;
};

ParameterizedTestParameters(policy_defaults, decides)
{
	static struct decision d[] = {
		{ SBX_OP_READ, WS "/src/main.c", SBX_ALLOW },
		{ SBX_OP_WRITE, WS "/src/main.c", SBX_ALLOW },
		{ SBX_OP_READ, "/etc/passwd", SBX_ALLOW },
		{ SBX_OP_WRITE, "/etc/passwd", SBX_DENY },
		{ SBX_OP_WRITE, HOME "/notes", SBX_DENY },
		{ SBX_OP_WRITE, "/tmp/scratch", SBX_ALLOW },
		{ SBX_OP_READ, HOME "/.ssh/id_ed25519", SBX_DENY },
		{ SBX_OP_EXEC, HOME "/.ssh/evil", SBX_DENY },
		{ SBX_OP_READ, HOME "/.aws/credentials", SBX_DENY },
		{ SBX_OP_READ, HOME "/.sshx", SBX_ALLOW },
		{ SBX_OP_WRITE, WS "/.env", SBX_DENY },
		{ SBX_OP_WRITE, WS "/deep/er/.env", SBX_DENY },
		{ SBX_OP_WRITE, WS "/.envrc2", SBX_ALLOW },
		{ SBX_OP_WRITE, WS "/.bashrc", SBX_DENY },
		{ SBX_OP_WRITE, WS "/.git/hooks/pre-commit", SBX_DENY },
		{ SBX_OP_WRITE, WS "/sub/.git/hooks/post-checkout", SBX_DENY },
		{ SBX_OP_WRITE, WS "/.git/config", SBX_DENY },
		{ SBX_OP_WRITE, WS "/.git/HEAD", SBX_ALLOW },
		{ SBX_OP_WRITE, WS "/.vscode/settings.json", SBX_DENY },
		{ SBX_OP_WRITE, WS "/.mcp.json", SBX_DENY },
		{ SBX_OP_WRITE, WS "/.claude/commands/x.md", SBX_DENY },
		{ SBX_OP_WRITE, WS "/.claude/notes.md", SBX_ALLOW },
		{ SBX_OP_WRITE, WS "/sandbox.ini", SBX_DENY },
		{ SBX_OP_WRITE, HOME "/.config/sbx/sandbox.ini", SBX_DENY },
	};
	return cr_make_param_array(struct decision, d, sizeof(d) / sizeof(d[0]));
}

ParameterizedTest(struct decision *d, policy_defaults, decides)
{
	struct policy *p = compile_ini("");

	cr_assert_eq(check(p, d->op, d->path, NULL), d->want, "%s %s",
		     sbx_op_name(d->op), d->path);
	policy_free(p);
}

Test(policy_defaults, credential_deny_names_its_default_source)
{
	struct policy *p = compile_ini("");
	const struct sbx_rule *why = NULL;

	cr_assert_eq(check(p, SBX_OP_READ, HOME "/.ssh/id_rsa", &why), SBX_DENY);
	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_DENY_READ);
	cr_assert_str_eq(why->value, "~/.ssh");
	cr_assert_str_eq(why->source, "default");
	policy_free(p);
}

Test(policy_defaults, write_outside_roots_has_no_rule)
{
	struct policy *p = compile_ini("");
	const struct sbx_rule *why = (void *)1;

	cr_assert_eq(check(p, SBX_OP_WRITE, "/usr/bin/x", &why), SBX_DENY);
	cr_assert_null(why);
	policy_free(p);
}

/* ---- precedence */

Test(policy_write, deny_write_wins_over_allow_write)
{
	struct policy *p = compile_ini("[filesystem]\nallow_write = /data\ndeny_write = /data/.secret\n");
	const struct sbx_rule *why;

	cr_assert_eq(check(p, SBX_OP_WRITE, "/data/x", NULL), SBX_ALLOW);
	cr_assert_eq(check(p, SBX_OP_WRITE, "/data/.secret/k", &why), SBX_DENY);
	cr_assert_str_eq(why->source, "test.ini:3");
	policy_free(p);
}

Test(policy_write, mandatory_cannot_be_lifted_by_allow_write)
{
	struct policy *p = compile_ini("[filesystem]\nallow_write = " WS "/.bashrc, " HOME "\n");
	const struct sbx_rule *why;

	cr_assert_eq(check(p, SBX_OP_WRITE, WS "/.bashrc", &why), SBX_DENY);
	cr_assert_eq(why->kind, SBX_RULE_MANDATORY);
	cr_assert_str_eq(why->source, "mandatory");
	cr_assert_eq(check(p, SBX_OP_WRITE, HOME "/.gitconfig", NULL), SBX_DENY);
	cr_assert_eq(check(p, SBX_OP_WRITE, HOME "/other", NULL), SBX_ALLOW);
	policy_free(p);
}

Test(policy_write, read_denied_path_is_not_writable)
{
	struct policy *p = compile_ini("[filesystem]\nallow_write = ~\n");

	cr_assert_eq(check(p, SBX_OP_WRITE, HOME "/.ssh/authorized_keys", NULL), SBX_DENY);
	policy_free(p);
}

Test(policy_read, allow_read_reopens_inside_deny_read)
{
	struct policy *p = compile_ini("[filesystem]\nallow_read = ~/.ssh/known_hosts\n");
	const struct sbx_rule *why;

	cr_assert_eq(check(p, SBX_OP_READ, HOME "/.ssh/known_hosts", &why), SBX_ALLOW);
	cr_assert_str_eq(why->source, "test.ini:2");
	cr_assert_eq(check(p, SBX_OP_READ, HOME "/.ssh/id_rsa", NULL), SBX_DENY);
	policy_free(p);
}

Test(policy_read, broad_allow_read_does_not_lift_a_narrower_deny)
{
	struct policy *p = compile_ini("[filesystem]\nallow_read = /\n");

	cr_assert_eq(check(p, SBX_OP_READ, HOME "/.ssh/id_rsa", NULL), SBX_DENY);
	policy_free(p);
}

/* ---- isolation */

Test(policy_isolation, strict_makes_workspace_read_only_and_session_writable)
{
	struct policy *p = compile_ini("[sandbox]\nisolation = strict\n");

	cr_assert_eq(check(p, SBX_OP_WRITE, WS "/a", NULL), SBX_DENY);
	cr_assert_eq(check(p, SBX_OP_WRITE, SESSION "/out", NULL), SBX_ALLOW);
	cr_assert_str_eq(policy_session_dir(p), SESSION);
	policy_free(p);
}

Test(policy_isolation, custom_writes_only_listed_paths)
{
	struct policy *p = compile_ini("[sandbox]\nisolation = custom\n[filesystem]\nallow_write = /data\n");

	cr_assert_eq(check(p, SBX_OP_WRITE, WS "/a", NULL), SBX_DENY);
	cr_assert_eq(check(p, SBX_OP_WRITE, "/data/a", NULL), SBX_ALLOW);
	cr_assert_eq(check(p, SBX_OP_WRITE, "/tmp/a", NULL), SBX_ALLOW);
	cr_assert_null(policy_session_dir(p));
	policy_free(p);
}

/* ---- paths */

Test(policy_paths, relative_paths_expand_against_the_workspace)
{
	struct policy *p = compile_ini("[sandbox]\nworkspace = /nonexistent-sbx/other\n"
				       "[filesystem]\ndeny_write = build/out\nallow_write = ../shared\n");

	cr_assert_str_eq(policy_workspace(p), "/nonexistent-sbx/other");
	cr_assert_eq(check(p, SBX_OP_WRITE, "/nonexistent-sbx/other/build/out/x", NULL), SBX_DENY);
	cr_assert_eq(check(p, SBX_OP_WRITE, "/nonexistent-sbx/shared/x", NULL), SBX_ALLOW);
	cr_assert_eq(check(p, SBX_OP_WRITE, WS "/x", NULL), SBX_DENY);
	policy_free(p);
}

Test(policy_paths, dot_dot_and_double_slashes_fold)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = ~/./a//b/../c/\n");
	size_t n;
	const struct sbx_rule *const *r = policy_rules(p, SBX_RULE_DENY_READ, &n);

	cr_assert_str_eq(r[n - 1]->pattern, HOME "/a/c");
	cr_assert_eq(check(p, SBX_OP_READ, HOME "/a/c/k", NULL), SBX_DENY);
	policy_free(p);
}

Test(policy_paths, a_rule_does_not_match_a_sibling_with_a_common_prefix)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = /data/a\n");

	cr_assert_eq(check(p, SBX_OP_READ, "/data/a", NULL), SBX_DENY);
	cr_assert_eq(check(p, SBX_OP_READ, "/data/a/x", NULL), SBX_DENY);
	cr_assert_eq(check(p, SBX_OP_READ, "/data/ab", NULL), SBX_ALLOW);
	policy_free(p);
}

Test(policy_paths, bare_deny_names_match_at_any_depth_allow_names_do_not)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = *.pem\nallow_write = out\n");

	cr_assert_eq(check(p, SBX_OP_READ, "/x/y/server.pem", NULL), SBX_DENY);
	cr_assert_eq(check(p, SBX_OP_READ, "/x/y/server.pem.txt", NULL), SBX_ALLOW);
	cr_assert_eq(check(p, SBX_OP_WRITE, "/nonexistent-sbx/out/x", NULL), SBX_DENY);
	policy_free(p);
}

Test(policy_paths, globs_star_stays_in_a_component_double_star_crosses)
{
	cr_assert(sbx_glob_match("/a/*/c", "/a/b/c", 6));
	cr_assert_not(sbx_glob_match("/a/*/c", "/a/b/x/c", 8));
	cr_assert(sbx_glob_match("/a/**/c", "/a/b/x/c", 8));
	cr_assert(sbx_glob_match("/a/**/c", "/a/c", 4));
	cr_assert(sbx_glob_match("/a/?.txt", "/a/b.txt", 8));
	cr_assert_not(sbx_glob_match("/a/?.txt", "/a/bb.txt", 9));
	cr_assert_not(sbx_glob_match("/a/?", "/a//", 4));
}

Test(policy_paths, glob_rule_matches_a_match_and_everything_under_it)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = ~/.config/**/token*\n");

	cr_assert_eq(check(p, SBX_OP_READ, HOME "/.config/app/v1/tokens/a", NULL), SBX_DENY);
	cr_assert_eq(check(p, SBX_OP_READ, HOME "/.config/token.json", NULL), SBX_DENY);
	cr_assert_eq(check(p, SBX_OP_READ, HOME "/.config/app/settings", NULL), SBX_ALLOW);
	policy_free(p);
}

/* ---- parsing and errors */

Test(policy_parse, lists_commas_repeats_and_continuation_lines_all_add)
{
	struct policy *p = compile_ini("[network]\nallow_domains = a.com, b.com ; inline\n"
				       "allow_domains = c.com\n  d.com\n# comment\n");
	size_t n;

	policy_rules(p, SBX_RULE_ALLOW_DOMAIN, &n);
	cr_assert_eq(n, 4);
	cr_assert_eq(policy_check_domain(p, "d.com", 443, NULL), SBX_ALLOW);
	policy_free(p);
}

Test(policy_parse, a_long_list_line_is_not_cut)
{
	char ini[2048] = "[network]\nallow_domains = ";
	for (int i = 0; i < 40; i++)
		snprintf(ini + strlen(ini), sizeof(ini) - strlen(ini), "host%02d.example.com, ", i);
	struct policy *p = compile_ini(ini);
	size_t n;

	policy_rules(p, SBX_RULE_ALLOW_DOMAIN, &n);
	cr_assert_eq(n, 40);
	cr_assert_eq(policy_check_domain(p, "host39.example.com", 443, NULL), SBX_ALLOW);
	policy_free(p);
}

Test(policy_parse, scalars_booleans_sizes_and_limits)
{
	struct policy *p = compile_ini("[sandbox]\nfallback = warn\n[network]\n"
		"allow_all_unix_sockets = yes\nallow_local_binding = off\nhttp_proxy_port = 3128\n"
		"[limits]\nmemory = 4G\npids = 512\ncpu_seconds = 60\nnofile = 1024\n"
		"[env]\nhome = ephemeral\n");

	cr_assert_eq(policy_fallback(p), SBX_FALLBACK_WARN);
	cr_assert(policy_allow_all_unix_sockets(p));
	cr_assert_not(policy_allow_local_binding(p));
	cr_assert_eq(policy_http_proxy_port(p), 3128);
	cr_assert_eq(policy_limit(p, SBX_LIMIT_MEMORY), 4ull << 30);
	cr_assert_eq(policy_limit(p, SBX_LIMIT_PIDS), 512);
	cr_assert_eq(policy_limit(p, SBX_LIMIT_CPU_SECONDS), 60);
	cr_assert_eq(policy_limit(p, SBX_LIMIT_NOFILE), 1024);
	cr_assert_eq(policy_home_mode(p), SBX_HOME_EPHEMERAL);
	policy_free(p);
}

struct bad {
	const char *ini;
	const char *want[3]; /* substrings of the message */
};

ParameterizedTestParameters(policy_errors, name_file_line_key_and_expectation)
{
	static struct bad b[] = {
		{ "[filesystem]\n\ndeny_reads = x\n", { "test.ini:3:", "deny_reads", "did you mean `deny_read`" } },
		{ "[network]\nallow_write = /x\n", { "test.ini:2:", "belongs in [filesystem]", "allow_write" } },
		{ "[sandboxx]\nnested = false\n", { "test.ini:2:", "unknown section [sandboxx]", "" } },
		{ "[sandbox]\nisolation = loose\n", { "test.ini:2:", "strict, workspace or custom", "`loose`" } },
		{ "[sandbox]\nnested = maybe\n", { "test.ini:2:", "true or false", "nested" } },
		{ "[limits]\nmemory = 4Q\n", { "test.ini:2:", "a size", "memory" } },
		{ "[network]\nhttp_proxy_port = 70000\n", { "test.ini:2:", "1 to 65535", "" } },
		{ "[sandbox]\n\n\nthis is not ini\n", { "test.ini:4:", "cannot parse", "this is not ini" } },
		{ "deny_read = x\n", { "test.ini:1:", "outside any section", "" } },
	};
	return cr_make_param_array(struct bad, b, sizeof(b) / sizeof(b[0]));
}

ParameterizedTest(struct bad *b, policy_errors, name_file_line_key_and_expectation)
{
	const char *m = load_error(b->ini, POLICY_LAYER_USER);

	for (int i = 0; i < 3; i++)
		cr_assert(strstr(m, b->want[i]), "message `%s` lacks `%s`", m, b->want[i]);
}

Test(policy_errors, missing_file_is_enoent_and_a_bad_file_names_its_path)
{
	struct policy_builder *b = builder();
	struct sbx_err err = { "" };
	char dir[] = "/var/tmp/sbx-unit-XXXXXX", path[64];

	cr_assert_eq(policy_builder_load_file(b, "/nonexistent-sbx/x.ini", NULL,
					      POLICY_LAYER_USER, &err), -ENOENT);
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/sandbox.ini", dir);
	FILE *f = fopen(path, "w");
	fputs("[env]\nhome = real\ndeny_env = A\nhome = tmp\n", f);
	fclose(f);
	cr_assert_eq(policy_builder_load_file(b, path, NULL, POLICY_LAYER_USER, &err), -EINVAL);
	cr_assert(strstr(err.msg, path) && strstr(err.msg, ":4:"), "%s", err.msg);
	unlink(path);
	rmdir(dir);
	policy_builder_free(b);
}

/* ---- project files only narrow */

Test(policy_project, may_add_denies_and_tighten)
{
	struct policy *p = compile2("[limits]\npids = 100\n",
		"[filesystem]\ndeny_read = secret\n[sandbox]\nisolation = strict\n"
		"[limits]\npids = 50\n[env]\nhome = ephemeral\n");
	const struct sbx_rule *why;

	cr_assert_eq(check(p, SBX_OP_READ, WS "/secret/k", &why), SBX_DENY);
	cr_assert_eq(why->origin, SBX_ORIGIN_PROJECT);
	cr_assert_str_eq(why->source, "proj.ini:2");
	cr_assert_eq(policy_isolation(p), SBX_ISOLATION_STRICT);
	cr_assert_eq(policy_limit(p, SBX_LIMIT_PIDS), 50);
	policy_free(p);
}

ParameterizedTestParameters(policy_project, refuses_what_widens)
{
	static const char *widen[] = {
		"[filesystem]\nallow_write = /\n",
		"[filesystem]\nallow_read = ~/.ssh\n",
		"[network]\nallow_domains = *\n",
		"[sandbox]\nworkspace = /\n",
		"[sandbox]\nfallback = warn\n",
		"[sandbox]\nisolation = custom\n",
		"[report]\nlog = /etc/x\n",
		"[report]\nignore_paths = x\n",
		"[network]\nallow_all_unix_sockets = true\n",
	};
	return cr_make_param_array(const char *, widen, sizeof(widen) / sizeof(widen[0]));
}

ParameterizedTest(const char **ini, policy_project, refuses_what_widens)
{
	const char *m = load_error(*ini, POLICY_LAYER_PROJECT);

	cr_assert(strstr(m, "would widen") && strstr(m, "test.ini:2:"), "%s", m);
}

/* ---- domains, env, flags */

Test(policy_domain, nothing_by_default_then_wildcards_ports_and_denies)
{
	struct policy *p0 = compile_ini("");
	cr_assert_eq(policy_check_domain(p0, "github.com", 443, NULL), SBX_DENY);
	cr_assert_not(policy_network_open(p0));
	policy_free(p0);

	struct policy *p = compile_ini("[network]\nallow_domains = *.github.com, npmjs.org:443, *\n"
				       "deny_domains = evil.example\n");
	cr_assert_eq(policy_check_domain(p, "API.GitHub.com.", 443, NULL), SBX_ALLOW);
	cr_assert_eq(policy_check_domain(p, "evil.example", 443, NULL), SBX_DENY);
	/* a deny only the proxy could hold keeps the host's network closed */
	cr_assert_not(policy_network_open(p));
	policy_free(p);

	struct policy *o = compile_ini("[network]\nallow_domains = *\n");
	cr_assert(policy_network_open(o));
	policy_free(o);

	struct policy *q = compile_ini("[network]\nallow_domains = *.github.com, npmjs.org:443\n");
	cr_assert_eq(policy_check_domain(q, "github.com", 443, NULL), SBX_DENY);
	cr_assert_eq(policy_check_domain(q, "npmjs.org", 443, NULL), SBX_ALLOW);
	cr_assert_eq(policy_check_domain(q, "npmjs.org", 80, NULL), SBX_DENY);
	policy_free(q);
}

Test(policy_domain, proxied_when_domains_are_allowed_but_the_network_is_not_open,
     .description = "the filtering proxy runs for a list without `*`, and for `*` with "
		    "denies; never with no rule (network off) nor `*` alone (open)")
{
	static const struct { const char *ini; bool proxied, open; } cases[] = {
		{ "", false, false },
		{ "[network]\nallow_domains = github.com\n", true, false },
		{ "[network]\nallow_domains = *\ndeny_domains = evil.example\n", true, false },
		{ "[network]\nallow_domains = *\n", false, true },
		{ "[network]\ndeny_domains = evil.example\n", false, false },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct policy *p = compile_ini(cases[i].ini);
		cr_assert_eq(policy_network_proxied(p), cases[i].proxied, "%s", cases[i].ini);
		cr_assert_eq(policy_network_open(p), cases[i].open, "%s", cases[i].ini);
		policy_free(p);
	}
}

Test(policy_env, deny_env_globs_and_defaults)
{
	struct policy *p = compile_ini("[env]\ndeny_env = MY_*\n");

	cr_assert(policy_env_denied(p, "AWS_SECRET_ACCESS_KEY", NULL));
	cr_assert(policy_env_denied(p, "MY_TOKEN", NULL));
	cr_assert_not(policy_env_denied(p, "PATH", NULL));
	policy_free(p);
}

Test(policy_flags, flags_and_env_add_rules_with_their_source)
{
	struct policy_builder *b = builder();
	struct policy *p;
	struct sbx_err err = { "" };
	const struct sbx_rule *why;

	cr_assert_eq(policy_builder_set(b, "filesystem", "allow_write", "/data",
					SBX_ORIGIN_FLAG, "--allow-write", &err), 0);
	cr_assert_eq(policy_builder_set(b, "network", "allow_domains", "a.com,b.com",
					SBX_ORIGIN_ENV, "SBX_ALLOWED_DOMAINS", &err), 0);
	cr_assert_eq(policy_builder_set(b, "sandbox", "workspace", "/nonexistent-sbx/ws2",
					SBX_ORIGIN_FLAG, "--workspace", &err), 0);
	cr_assert_eq(policy_compile(b, &p, &err), 0);
	cr_assert_eq(check(p, SBX_OP_WRITE, "/data/x", &why), SBX_ALLOW);
	cr_assert_str_eq(why->source, "--allow-write");
	cr_assert_eq(policy_check_domain(p, "b.com", 443, &why), SBX_ALLOW);
	cr_assert_str_eq(why->source, "SBX_ALLOWED_DOMAINS");
	cr_assert_eq(check(p, SBX_OP_WRITE, "/nonexistent-sbx/ws2/f", NULL), SBX_ALLOW);
	policy_free(p);
}
