/* tests/unit/policy_env.c: which variables are removed from COMMAND's
 * environment (docs/POLICY.md "Environment", "Built-in defaults"). */
#include <stdio.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "helpers.h"

Test(policy_env, aws_secrets_withheld_by_their_names)
{
	struct policy *p = compile_ini("");
	const struct sbx_rule *why = (const struct sbx_rule *)1;

	cr_assert_eq(policy_env_fate(p, "AWS_SECRET_ACCESS_KEY", &why), SBX_ENV_SECRET);
	cr_assert_null(why, "no rule: the name decided");
	cr_assert_eq(policy_env_denied(p, "AWS_SECRET_ACCESS_KEY", NULL), true);
	cr_assert_eq(policy_env_denied(p, "AWS_SESSION_TOKEN", NULL), true);
	policy_free(p);
}

Test(policy_env, other_variables_kept_by_default)
{
	struct policy *p = compile_ini("");
	const struct sbx_rule *why = NULL;

	cr_assert_eq(policy_env_denied(p, "PATH", &why), false);
	cr_assert_null(why);
	cr_assert_eq(policy_env_fate(p, "PATH", NULL), SBX_ENV_PASS);
	cr_assert_eq(policy_env_denied(p, "HOME", NULL), false);
	cr_assert_eq(policy_env_denied(p, "AWS_REGION", NULL), false);
	cr_assert_eq(policy_env_denied(p, "AWS_ACCESS_KEY_ID", NULL), false);
	cr_assert_eq(policy_env_denied(p, "SSH_AUTH_SOCK", NULL), false);
	policy_free(p);
}

/* The name matcher (credentials.c): what a name must say to be withheld. */
struct name_case {
	const char *name;
	bool secret;
};

ParameterizedTestParameters(policy_env, secret_names)
{
	static struct name_case cases[] = {
		/* *_TOKEN, and any word ending in TOKEN */
		{ "GITHUB_TOKEN", true }, { "NPM_TOKEN", true }, { "GH_TOKEN", true },
		{ "CI_JOB_TOKEN", true }, { "AWS_SESSION_TOKEN", true },
		{ "CLAUDE_CODE_OAUTH_TOKEN", true }, { "HF_TOKEN", true },
		{ "TOKEN", true }, { "github_token", true }, { "SLACK_TOKEN_2", true },
		{ "npm_config__authToken", true },
		{ "npm_config_//registry.npmjs.org/:_authToken", true },
		{ "CI_JOB_JWT_V2", true },
		/* *_API_KEY, *_KEY */
		{ "ANTHROPIC_API_KEY", true }, { "OPENAI_API_KEY", true },
		{ "GEMINI_API_KEY", true }, { "GOOGLE_API_KEY", true }, { "STRIPE_KEY", true },
		{ "OPENAI_APIKEY", true }, { "SSH_KEY", true },
		/* *SECRET*, *PASSWORD*, *PASSWD*, *PASSPHRASE*, *CREDENTIAL* */
		{ "AWS_SECRET_ACCESS_KEY", true }, { "CLIENT_SECRET", true },
		{ "SECRET_KEY_BASE", true }, { "AWS_SECRET_ACCESS_KEY_2", true },
		{ "PGPASSWORD", true }, { "DB_PASSWORD", true }, { "MYSQL_PASSWD", true },
		{ "GPG_PASSPHRASE", true }, { "GOOGLE_APPLICATION_CREDENTIALS", true },
		{ "AZURE_CREDENTIALS", true },
		/* a last word PWD, PASS, AUTH, PAT after another */
		{ "MYSQL_PWD", true }, { "ANSIBLE_BECOME_PASS", true },
		{ "NPM_CONFIG__AUTH", true }, { "GITHUB_PAT", true },
		/* known names that do not say it */
		{ "BW_SESSION", true }, { "OP_SESSION_my", true }, { "SSHPASS", true },
		{ "DOCKER_AUTH_CONFIG", true },
		/* passed */
		{ "PATH", false }, { "HOME", false }, { "PWD", false }, { "OLDPWD", false },
		{ "AWS_ACCESS_KEY_ID", false }, { "AWS_REGION", false },
		{ "SSH_AUTH_SOCK", false }, { "GIT_ASKPASS", false }, { "SSH_ASKPASS", false },
		{ "TOKENIZERS_PARALLELISM", false }, { "STRIPE_PUBLISHABLE_KEY", false },
		{ "DEPLOY_PUBLIC_KEY", false }, { "KEY", false }, { "LESSKEY", false },
		{ "KEYTIMEOUT", false }, { "AUTH", false }, { "PAT", false },
		{ "XAUTHORITY", false }, { "DBUS_SESSION_BUS_ADDRESS", false },
		{ "GPG_TTY", false }, { "LANG", false }, { "", false }, { "_", false },
	};
	return cr_make_param_array(struct name_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct name_case *c, policy_env, secret_names)
{
	cr_assert_eq(sbx_env_secret_name(c->name), c->secret, "%s: expected %s", c->name,
		     c->secret ? "secret" : "passed");
}

Test(policy_env, keep_env_keeps_a_secret_looking_name_and_says_which_rule)
{
	struct policy *p = compile_ini("[env]\nkeep_env = ANTHROPIC_API_KEY\n");
	const struct sbx_rule *why = NULL;

	cr_assert_eq(policy_env_fate(p, "ANTHROPIC_API_KEY", &why), SBX_ENV_KEPT);
	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_KEEP_ENV);
	cr_assert_str_eq(why->source, "test.ini:2");
	cr_assert_eq(policy_env_denied(p, "ANTHROPIC_API_KEY", NULL), false);
	cr_assert_eq(policy_env_denied(p, "OPENAI_API_KEY", NULL), true);
	policy_free(p);
}

Test(policy_env, keep_env_globs_are_case_sensitive)
{
	struct policy *p = compile_ini("[env]\nkeep_env = GH_*\n");

	cr_assert_eq(policy_env_fate(p, "GH_TOKEN", NULL), SBX_ENV_KEPT);
	cr_assert_eq(policy_env_fate(p, "gh_token", NULL), SBX_ENV_SECRET);
	policy_free(p);
}

Test(policy_env, keep_env_never_lifts_a_deny_env)
{
	struct policy_builder *b = builder_ini("[env]\ndeny_env = ANTHROPIC_API_KEY\n");
	const struct sbx_rule *why = NULL;

	builder_set(b, "env", "keep_env", "ANTHROPIC_API_KEY", SBX_ORIGIN_FLAG, "--keep-env");
	struct policy *p = compile_builder(b);
	cr_assert_eq(policy_env_fate(p, "ANTHROPIC_API_KEY", &why), SBX_ENV_DENIED);
	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_DENY_ENV);
	policy_free(p);
}

Test(policy_env, keep_env_of_a_name_that_looks_harmless_changes_nothing)
{
	struct policy *p = compile_ini("[env]\nkeep_env = PATH\n");

	cr_assert_eq(policy_env_fate(p, "PATH", NULL), SBX_ENV_PASS);
	policy_free(p);
}

Test(policy_env, a_project_may_not_keep_a_secret)
{
	const char *msg = compile_project_error("", "[env]\nkeep_env = GITHUB_TOKEN\n");

	cr_assert(strstr(msg, "project.ini:2: `keep_env` would widen the policy"), "%s", msg);
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
		{ "*SECRET*", "LANG", false },
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
	cr_assert_eq(policy_env_fate(p, c->name, NULL) == SBX_ENV_DENIED, c->denied,
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

	cr_assert_eq(policy_env_fate(p, "MY_KEY", NULL), SBX_ENV_DENIED);
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
	cr_assert_eq(n, 2, "file, flag (no built-in rule: names decide): got %zu", n);
	cr_assert_str_eq(rules[0]->value, "FILE_VAR");
	cr_assert_str_eq(rules[1]->value, "FLAG_VAR");
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
