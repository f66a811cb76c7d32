/* tests/unit/policy_project.c: the workspace's own sandbox.ini may only take
 * access away (docs/POLICY.md "Project files only narrow"). */
#include <stdio.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/unit/helpers.h"

/* Accepted */

Test(policy_project, deny_read_is_added)
{
	struct policy *p = compile_ini_project("", "[filesystem]\ndeny_read = secrets/\n");
	const struct sbx_rule *why = check_why(p, SBX_OP_READ, "/w/app/secrets/k", SBX_DENY);

	cr_assert_not_null(why);
	cr_assert_eq(why->origin, SBX_ORIGIN_PROJECT);
	cr_assert_str_eq(why->source, "project.ini:2");
	assert_verdict(p, SBX_OP_READ, "/home/u/.ssh/id_rsa", SBX_DENY);
	policy_free(p);
}

Test(policy_project, deny_write_is_added_to_the_users_allow_write)
{
	struct policy *p = compile_ini_project("[filesystem]\nallow_write = /srv/data\n",
					       "[filesystem]\ndeny_write = /srv/data/db, /w/docs\n");

	assert_verdict(p, SBX_OP_WRITE, "/srv/data/db/x", SBX_DENY);
	assert_verdict(p, SBX_OP_WRITE, "/w/docs/x", SBX_DENY);
	assert_verdict(p, SBX_OP_WRITE, "/srv/data/other", SBX_ALLOW);
	assert_verdict(p, SBX_OP_WRITE, "/w/src/x", SBX_ALLOW);
	policy_free(p);
}

Test(policy_project, deny_domains_is_added)
{
	struct policy *p = compile_ini_project("[network]\nallow_domains = *\n",
					       "[network]\ndeny_domains = evil.test\n");
	const struct sbx_rule *why = NULL;

	cr_assert_eq(policy_check_domain(p, "evil.test", 443, &why), SBX_DENY);
	cr_assert_not_null(why);
	cr_assert_eq(why->origin, SBX_ORIGIN_PROJECT);
	cr_assert_eq(policy_check_domain(p, "good.test", 443, NULL), SBX_ALLOW);
	policy_free(p);
}

Test(policy_project, deny_env_is_added)
{
	struct policy *p = compile_ini_project("", "[env]\ndeny_env = PROJECT_TOKEN\n");

	cr_assert_eq(policy_env_denied(p, "PROJECT_TOKEN", NULL), true);
	cr_assert_eq(policy_env_denied(p, "AWS_SESSION_TOKEN", NULL), true);
	policy_free(p);
}

Test(policy_project, isolation_strict_is_accepted)
{
	struct policy *p = compile_ini_project("", "[sandbox]\nisolation = strict\n");

	cr_assert_eq(policy_isolation(p), SBX_ISOLATION_STRICT);
	assert_verdict(p, SBX_OP_WRITE, "/w/src/x", SBX_DENY);
	assert_verdict(p, SBX_OP_WRITE, TEST_SESSION_DIR "/x", SBX_ALLOW);
	policy_free(p);
}

Test(policy_project, fallback_error_is_accepted)
{
	struct policy *p = compile_ini_project("[sandbox]\nfallback = warn\n",
					       "[sandbox]\nfallback = error\n");

	cr_assert_eq(policy_fallback(p), SBX_FALLBACK_ERROR);
	policy_free(p);
}

Test(policy_project, home_ephemeral_is_accepted)
{
	struct policy *p = compile_ini_project("", "[env]\nhome = ephemeral\n");

	cr_assert_eq(policy_home_mode(p), SBX_HOME_EPHEMERAL);
	policy_free(p);
}

Test(policy_project, turning_features_off_is_accepted)
{
	struct policy *p = compile_ini_project("[sandbox]\nnested = true\n"
					       "[network]\nallow_all_unix_sockets = true\n",
					       "[sandbox]\nnested = false\n"
					       "[network]\nallow_local_binding = false\n"
					       "allow_all_unix_sockets = false\n");

	cr_assert_eq(policy_nested(p), false);
	cr_assert_eq(policy_allow_local_binding(p), false);
	cr_assert_eq(policy_allow_all_unix_sockets(p), false);
	policy_free(p);
}

Test(policy_project, lower_limits_are_accepted)
{
	struct policy *p = compile_ini_project("[limits]\nmemory = 1G\nnofile = 4096\n",
					       "[limits]\nmemory = 512M\nnofile = 1024\n");

	cr_assert_eq(policy_limit(p, SBX_LIMIT_MEMORY), 512ULL << 20);
	cr_assert_eq(policy_limit(p, SBX_LIMIT_NOFILE), 1024);
	policy_free(p);
}

Test(policy_project, a_limit_where_the_user_has_none_is_accepted)
{
	struct policy *p = compile_ini_project("", "[limits]\npids = 100\ncpu_seconds = 600\n");

	cr_assert_eq(policy_limit(p, SBX_LIMIT_PIDS), 100);
	cr_assert_eq(policy_limit(p, SBX_LIMIT_CPU_SECONDS), 600);
	policy_free(p);
}

Test(policy_project, project_rules_come_after_the_users)
{
	struct policy *p = compile_ini_project("[filesystem]\ndeny_read = /srv/a\n",
					       "[filesystem]\ndeny_read = /srv/b\n");
	size_t n = 0;
	const struct sbx_rule *const *rules = policy_rules(p, SBX_RULE_DENY_READ, &n);

	cr_assert_geq(n, 2);
	cr_assert_str_eq(rules[n - 2]->value, "/srv/a");
	cr_assert_eq(rules[n - 2]->origin, SBX_ORIGIN_FILE);
	cr_assert_str_eq(rules[n - 1]->value, "/srv/b");
	cr_assert_eq(rules[n - 1]->origin, SBX_ORIGIN_PROJECT);
	policy_free(p);
}

/* Refused: anything that could widen, named by line. */

struct widen_case {
	const char *name;
	const char *user;
	const char *project;
	const char *where; /* "project.ini:LINE:" */
	const char *key;
};

ParameterizedTestParameters(policy_project, widening_is_refused)
{
	static struct widen_case cases[] = {
		{ "allow_write", "",
		  "[filesystem]\ndeny_read = /srv/x\nallow_write = /w/out\n",
		  "project.ini:3:", "allow_write" },
		{ "allow_read", "",
		  "[filesystem]\nallow_read = ~/.ssh\n", "project.ini:2:", "allow_read" },
		{ "allow_domains", "",
		  "; open up\n[network]\nallow_domains = *\n", "project.ini:3:", "allow_domains" },
		{ "allow_unix_sockets", "",
		  "[network]\nallow_unix_sockets = /run/docker.sock\n",
		  "project.ini:2:", "allow_unix_sockets" },
		{ "workspace", "",
		  "[sandbox]\nworkspace = /\n", "project.ini:2:", "workspace" },
		{ "log", "",
		  "[report]\nlog = /w/audit.jsonl\n", "project.ini:2:", "log" },
		{ "ignore_paths", "",
		  "[report]\nignore_paths = /home/u\n", "project.ini:2:", "ignore_paths" },
		{ "ignore_domains", "",
		  "[report]\nignore_domains = evil.test\n", "project.ini:2:", "ignore_domains" },
		{ "http_proxy_port", "",
		  "[network]\nhttp_proxy_port = 8080\n", "project.ini:2:", "http_proxy_port" },
		{ "socks_proxy_port", "",
		  "[network]\nsocks_proxy_port = 1080\n", "project.ini:2:", "socks_proxy_port" },
		{ "fallback = warn", "",
		  "[sandbox]\nfallback = warn\n", "project.ini:2:", "fallback" },
		{ "isolation = custom over workspace", "",
		  "[sandbox]\nisolation = custom\n", "project.ini:2:", "isolation" },
		{ "isolation = workspace over strict", "[sandbox]\nisolation = strict\n",
		  "[sandbox]\nisolation = workspace\n", "project.ini:2:", "isolation" },
		{ "home = real over ephemeral", "[env]\nhome = ephemeral\n",
		  "[env]\nhome = real\n", "project.ini:2:", "home" },
		{ "nested = true", "",
		  "[sandbox]\nnested = true\n", "project.ini:2:", "nested" },
		{ "allow_local_binding = true over false", "[network]\nallow_local_binding = false\n",
		  "[network]\nallow_local_binding = true\n", "project.ini:2:", "allow_local_binding" },
		{ "allow_all_unix_sockets = true", "",
		  "[network]\nallow_all_unix_sockets = true\n", "project.ini:2:", "allow_all_unix_sockets" },
		{ "higher memory", "[limits]\nmemory = 1G\n",
		  "[limits]\nmemory = 2G\n", "project.ini:2:", "memory" },
		{ "higher nofile", "[limits]\nnofile = 1024\n",
		  "[limits]\n\nnofile = 4096\n", "project.ini:3:", "nofile" },
		{ "higher pids", "[limits]\npids = 100\n",
		  "[limits]\npids = 101\n", "project.ini:2:", "pids" },
		{ "higher cpu_seconds", "[limits]\ncpu_seconds = 60\n",
		  "[limits]\ncpu_seconds = 3600\n", "project.ini:2:", "cpu_seconds" },
	};
	return cr_make_param_array(struct widen_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct widen_case *c, policy_project, widening_is_refused)
{
	const char *msg = compile_project_error(c->user, c->project);

	cr_assert(strstr(msg, "would widen"), "%s: \"%s\" lacks \"would widen\"", c->name, msg);
	cr_assert(strstr(msg, c->where), "%s: \"%s\" lacks \"%s\"", c->name, msg, c->where);
	cr_assert(strstr(msg, c->key), "%s: \"%s\" lacks \"%s\"", c->name, msg, c->key);
}

Test(policy_project, refusal_reads_as_documented)
{
	const char *msg = compile_project_error("", "[filesystem]\ndeny_read = /srv\n"
						"allow_write = /srv\n");

	assert_contains(msg, "project.ini:3: `allow_write` would widen the policy; "
			     "a project's sandbox.ini may only narrow it");
}

Test(policy_project, widening_is_refused_even_with_an_empty_user_layer)
{
	struct policy_builder *b = builder_ini(NULL);
	struct sbx_err err = { .msg = "" };
	struct policy *p = NULL;
	int rc = policy_builder_load_string(b, "[filesystem]\nallow_write = /\n",
					    TEST_PROJECT_DISPLAY, POLICY_LAYER_PROJECT, &err);

	if (rc == 0)
		rc = policy_compile(b, &p, &err);
	else
		policy_builder_free(b);
	cr_assert_neq(rc, 0);
	cr_assert_null(p);
	assert_contains(err.msg, "would widen");
}
