/* tests/unit/policy_env.c: which variables are removed from COMMAND's
 * environment (docs/POLICY.md "Environment", "Built-in defaults"). */
#include <stdio.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "helpers.h"

Test(policy_env, aws_secrets_denied_by_default)
{
	struct policy *p = compile_ini("");
	const struct sbx_rule *why = NULL;

	cr_assert_eq(policy_env_denied(p, "AWS_SECRET_ACCESS_KEY", &why), true);
	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_DENY_ENV);
	cr_assert_eq(why->origin, SBX_ORIGIN_DEFAULT);
	cr_assert_str_eq(why->source, "default");
	cr_assert_str_eq(why->value, "AWS_SECRET_ACCESS_KEY");
	cr_assert_eq(policy_env_denied(p, "AWS_SESSION_TOKEN", NULL), true);
	policy_free(p);
}

Test(policy_env, other_variables_kept_by_default)
{
	struct policy *p = compile_ini("");
	const struct sbx_rule *why = NULL;

	cr_assert_eq(policy_env_denied(p, "PATH", &why), false);
	cr_assert_null(why);
	cr_assert_eq(policy_env_denied(p, "HOME", NULL), false);
	cr_assert_eq(policy_env_denied(p, "AWS_REGION", NULL), false);
	cr_assert_eq(policy_env_denied(p, "AWS_ACCESS_KEY_ID", NULL), false);
	cr_assert_eq(policy_env_denied(p, "AWS_SECRET_ACCESS_KEY_2", NULL), false);
	policy_free(p);
}

struct env_case {
	const char *deny;
	const char *name;
	bool denied;
};

ParameterizedTestParameters(policy_env, globs)
{
	static struct env_case cases[] = {
		{ "OPENAI_API_KEY", "OPENAI_API_KEY", true },
		{ "OPENAI_API_KEY", "OPENAI_API_KEY2", false },
		{ "OPENAI_API_KEY", "MY_OPENAI_API_KEY", false },
		{ "*_TOKEN", "GITHUB_TOKEN", true },
		{ "*_TOKEN", "NPM_TOKEN", true },
		{ "*_TOKEN", "TOKEN_FILE", false },
		{ "*_TOKEN", "GITHUB_TOKENS", false },
		{ "GH_*", "GH_TOKEN", true },
		{ "GH_*", "GH_", true },
		{ "GH_*", "XGH_TOKEN", false },
		{ "*SECRET*", "DB_SECRET_KEY", true },
		{ "*SECRET*", "SECRET", true },
		{ "*SECRET*", "PASSWORD", false },
		{ "KEY_?", "KEY_A", true },
		{ "KEY_?", "KEY_AB", false },
		{ "KEY_?", "KEY_", false },
		{ "*", "ANYTHING", true },
		{ "A, B", "B", true },
		{ "A, B", "C", false },
	};
	return cr_make_param_array(struct env_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct env_case *c, policy_env, globs)
{
	char ini[128];

	snprintf(ini, sizeof(ini), "[env]\ndeny_env = %s\n", c->deny);
	struct policy *p = compile_ini(ini);
	cr_assert_eq(policy_env_denied(p, c->name, NULL), c->denied,
		     "deny_env = %s, %s: expected %s", c->deny, c->name,
		     c->denied ? "denied" : "kept");
	policy_free(p);
}

Test(policy_env, file_rule_names_its_line)
{
	struct policy *p = compile_ini("[env]\n\ndeny_env = *_TOKEN\n");
	const struct sbx_rule *why = NULL;

	cr_assert_eq(policy_env_denied(p, "GITHUB_TOKEN", &why), true);
	cr_assert_not_null(why);
	cr_assert_eq(why->origin, SBX_ORIGIN_FILE);
	cr_assert_str_eq(why->value, "*_TOKEN");
	cr_assert_str_eq(why->source, "test.ini:3");
	policy_free(p);
}

Test(policy_env, user_deny_env_keeps_the_defaults)
{
	struct policy *p = compile_ini("[env]\ndeny_env = MY_KEY\n");

	cr_assert_eq(policy_env_denied(p, "MY_KEY", NULL), true);
	cr_assert_eq(policy_env_denied(p, "AWS_SECRET_ACCESS_KEY", NULL), true);
	policy_free(p);
}

Test(policy_env, flag_addition_has_its_source)
{
	struct policy_builder *b = builder_ini("[env]\ndeny_env = FILE_VAR\n");
	const struct sbx_rule *why = NULL;

	builder_set(b, "env", "deny_env", "FLAG_*", SBX_ORIGIN_FLAG, "--deny-env");
	struct policy *p = compile_builder(b);
	cr_assert_eq(policy_env_denied(p, "FLAG_X", &why), true);
	cr_assert_not_null(why);
	cr_assert_eq(why->origin, SBX_ORIGIN_FLAG);
	cr_assert_str_eq(why->source, "--deny-env");
	cr_assert_eq(policy_env_denied(p, "FILE_VAR", NULL), true);
	policy_free(p);
}

Test(policy_env, env_origin_addition_has_its_source)
{
	struct policy_builder *b = builder_ini(NULL);
	const struct sbx_rule *why = NULL;

	builder_set(b, "env", "deny_env", "CI_JOB_TOKEN", SBX_ORIGIN_ENV, "SBX_DENY_ENV");
	struct policy *p = compile_builder(b);
	cr_assert_eq(policy_env_denied(p, "CI_JOB_TOKEN", &why), true);
	cr_assert_not_null(why);
	cr_assert_eq(why->origin, SBX_ORIGIN_ENV);
	cr_assert_str_eq(why->source, "SBX_DENY_ENV");
	policy_free(p);
}

Test(policy_env, rules_in_the_order_added)
{
	struct policy_builder *b = builder_ini("[env]\ndeny_env = FILE_VAR\n");

	builder_set(b, "env", "deny_env", "FLAG_VAR", SBX_ORIGIN_FLAG, "--deny-env");
	struct policy *p = compile_builder(b);
	size_t n = 0;
	const struct sbx_rule *const *rules = policy_rules(p, SBX_RULE_DENY_ENV, &n);
	cr_assert_eq(n, 4, "2 defaults, file, flag: got %zu", n);
	cr_assert_str_eq(rules[0]->value, "AWS_SECRET_ACCESS_KEY");
	cr_assert_str_eq(rules[1]->value, "AWS_SESSION_TOKEN");
	cr_assert_str_eq(rules[2]->value, "FILE_VAR");
	cr_assert_str_eq(rules[3]->value, "FLAG_VAR");
	policy_free(p);
}

Test(policy_env, home_set_by_flag_replaces_the_file)
{
	struct policy_builder *b = builder_ini("[env]\nhome = ephemeral\n");

	builder_set(b, "env", "home", "real", SBX_ORIGIN_FLAG, "--home");
	struct policy *p = compile_builder(b);
	cr_assert_eq(policy_home_mode(p), SBX_HOME_REAL);
	policy_free(p);
}
