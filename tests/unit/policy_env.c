/* tests/unit/policy_env.c: which variables are removed from COMMAND's
 * environment (docs/POLICY.md "Environment", "Built-in defaults"). */
#include <stdio.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/unit/helpers.h"

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

/* ---- values shaped like credentials (credentials.c, sbx_secret_shapes):
 * every row matched by a value of its documented format, at the start of
 * the value and inside it; words and look-alikes pass. The tokens are made
 * up (right prefix, random body). */
struct value_case {
	const char *value;
	const char *what; /* the row's `what`, or NULL: passes */
};

ParameterizedTestParameters(policy_env, secret_values)
{
	static struct value_case cases[] = {
		/* a URL with a password in its userinfo */
		{ "postgres://app:s3cr3t@db.internal:5432/prod", "a URL with a password" },
		{ "redis://:pw@cache:6379/0", "a URL with a password" },
		{ "amqp://guest:guest@localhost//", "a URL with a password" },
		{ "https://x-access-token:abc123@github.com/o/r.git", "a URL with a password" },
		{ "mirror=https://u:p@pypi.example/simple other", "a URL with a password" },
		{ "postgres://app@db/prod", NULL },          /* no password */
		{ "postgres://app:@db/prod", NULL },         /* an empty one */
		/* a password with a / ? or # left as it is: SQLAlchemy and
		 * others take the password to the @ */
		{ "postgresql://app:p/ss@db/prod", "a URL with a password" },
		{ "mysql://root:pa#ss@db/x", "a URL with a password" },
		{ "postgres://u:pa?ss@[::1]:5432/x", "a URL with a password" },
		{ "http://host:8080/path@x", NULL },         /* @ after the path */
		{ "http://localhost:4873/@scope/pkg", NULL }, /* a port, then the path */
		{ "https://example.com/a:b@c", NULL },
		{ "localhost:5432", NULL },
		/* GitHub */
		{ "ghp_Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1", "a GitHub personal access token" },
		{ "Authorization: token ghp_Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1",
		  "a GitHub personal access token" },
		{ "gho_Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1", "a GitHub OAuth token" },
		{ "ghu_Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1", "a GitHub App user token" },
		{ "ghs_Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1", "a GitHub App installation token" },
		{ "ghr_Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1", "a GitHub refresh token" },
		{ "github_pat_11ABCDEFG0a1b2c3d4e5f6_g7h8i9j0k1l2m3n4o5p6q7r8s9t0u1v2w3x4y5z6",
		  "a GitHub fine-grained access token" },
		{ "ghp_short", NULL },
		{ "xghp_Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1", NULL }, /* not a word's start */
		/* GitLab */
		{ "glpat-Ab3dE5gH7jK9mN1pQ3sT", "a GitLab personal access token" },
		/* Anthropic, OpenAI */
		{ "sk-ant-api03-Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1-_aBcD", "an Anthropic API key" },
		{ "sk-ant-oat01-Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1aBcD", "an Anthropic API key" },
		{ "sk-proj-Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1_aBcD-eF", "an OpenAI API key" },
		{ "sk-svcacct-Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1aBcD", "an OpenAI API key" },
		{ "sk-Zx9RrT1yA7qLmN2pW4vB8cT3BlbkFJD0eF6gH3jK5sQ1aBcDeF", "an OpenAI API key" },
		{ "/opt/sk-learn-tutorials-2024-and-more-words-here", NULL },
		{ "task-Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1", NULL },
		{ "sk-", NULL },
		/* Slack */
		{ "xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp", "a Slack token" },
		{ "xoxp-1234567890-0987654321", "a Slack token" },
		{ "xoxz-1234567890-0987654321", NULL },
		/* AWS */
		{ "AKIAIOSFODNN7EXAMPLE", "an AWS access key id" },
		{ "key=AKIAIOSFODNN7EXAMPLE;region=eu-west-1", "an AWS access key id" },
		{ "ASIAY34FZKBOKMUTVV7A", "an AWS temporary access key id" },
		{ "AKIAIOSFODNN7EXAMPLEXX", NULL }, /* 18 after AKIA: not an id */
		{ "AKIA", NULL },
		/* npm, Google, Stripe */
		{ "npm_Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1", "an npm access token" },
		{ "npm_config_cache", NULL },
		{ "AIzaSyA1bC2dE3fG4hI5jK6lM7nO8pQ9rS0tUvW", "a Google API key" },
		{ "sk_live_51HaBcDeFgHiJkLmNoPqRsTuV", "a Stripe secret key" },
		{ "rk_live_51HaBcDeFgHiJkLmNoPqRsTuV", "a Stripe restricted key" },
		{ "sk_test_51HaBcDeFgHiJkLmNoPqRsTuV", NULL },
		/* JWT, PEM */
		{ "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
		  "a JSON Web Token" },
		{ "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
		  "a JSON Web Token" },
		{ "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.", NULL }, /* unsigned */
		{ "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n",
		  "a PEM private key" },
		{ "-----BEGIN PRIVATE KEY-----\nMIIEvQ\n", "a PEM private key" },
		{ "-----BEGIN RSA PRIVATE KEY-----", "a PEM private key" },
		{ "-----BEGIN CERTIFICATE-----\nMIIB\n", NULL },
		{ "-----BEGIN PUBLIC KEY-----", NULL },
		/* everyday values */
		{ "/usr/local/bin:/usr/bin:/bin", NULL }, { "en_US.UTF-8", NULL },
		{ "xterm-256color", NULL }, { "", NULL },
		{ "unix:path=/run/user/1000/bus", NULL }, { "/home/u/.ssh/agent.sock", NULL },
		{ "--max-old-space-size=4096", NULL },
	};
	return cr_make_param_array(struct value_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct value_case *c, policy_env, secret_values)
{
	const struct sbx_secret_shape *sh = sbx_env_secret_value(c->value);

	if (!c->what)
		cr_assert_null(sh, "%.40s: expected to pass, got %s", c->value, sh ? sh->what : "");
	else
		cr_assert(sh && !strcmp(sh->what, c->what), "%.40s: expected %s, got %s", c->value,
			  c->what, sh ? sh->what : "nothing");
}

/* every row of the table has its owner and reason, and a case above */
Test(policy_env, every_value_shape_has_an_owner_a_reason_and_a_case)
{
	for (size_t i = 0; i < sbx_nsecret_shapes; i++) {
		const struct sbx_secret_shape *r = &sbx_secret_shapes[i];
		cr_assert(r->what && *r->what && r->owner && *r->owner && r->reason && *r->reason,
			  "row %zu", i);
	}
	static const char *const one_each[] = {
		"postgres://a:b@h/d", "ghp_Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1",
		"gho_Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1", "ghu_Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1",
		"ghs_Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1", "ghr_Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1",
		"github_pat_11ABCDEFG0a1b2c3d4e5f6_g7h8i9j0k1l2m3n4o5p6q7r8",
		"glpat-Ab3dE5gH7jK9mN1pQ3sT", "sk-ant-api03-Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1",
		"sk-proj-Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1", "sk-svcacct-Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5",
		"sk-admin-Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1", "sk-Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1",
		"xoxb-1234567890-abc", "AKIAIOSFODNN7EXAMPLE", "ASIAY34FZKBOKMUTVV7A",
		"npm_Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1", "AIzaSyA1bC2dE3fG4hI5jK6lM7nO8pQ9rS0tUvW",
		"sk_live_51HaBcDeFgHiJkLmNoPqRsTuV", "rk_live_51HaBcDeFgHiJkLmNoPqRsTuV",
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk",
		"-----BEGIN EC PRIVATE KEY-----",
	};
	cr_assert_eq(ARRAY_LEN(one_each), sbx_nsecret_shapes, "a value for every row");
	for (size_t i = 0; i < sbx_nsecret_shapes; i++)
		cr_assert_eq(sbx_env_secret_value(one_each[i]), &sbx_secret_shapes[i],
			     "row %zu (%s)", i, sbx_secret_shapes[i].what);
}

/* A harmless name with a credential's value is withheld (its row said),
 * keep_env keeps it by name, deny_env still wins, and a secret-looking
 * name stays withheld by its name whatever its value. */
Test(policy_env, a_value_shaped_like_a_credential_is_withheld_unless_kept)
{
	struct policy *p = compile_ini("[env]\nkeep_env = KEPT_URL\ndeny_env = GONE\n");
	const struct sbx_secret_shape *sh = NULL;
	const struct sbx_rule *why = NULL;

	cr_assert_eq(policy_env_var_fate(p, "DATABASE_URL", "postgres://u:pw@db/x", &why, &sh),
		     SBX_ENV_SECRET_VALUE);
	cr_assert_null(why);
	cr_assert(sh && !strcmp(sh->what, "a URL with a password"));
	cr_assert(policy_env_var_denied(p, "MY_CFG", "ghp_Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3jK5sQ1"));
	cr_assert_not(policy_env_var_denied(p, "DATABASE_URL", "postgres://u@db/x"));
	cr_assert_eq(policy_env_var_fate(p, "KEPT_URL", "postgres://u:pw@db/x", &why, &sh),
		     SBX_ENV_KEPT);
	cr_assert(why && why->kind == SBX_RULE_KEEP_ENV);
	cr_assert_not(policy_env_var_denied(p, "KEPT_URL", "postgres://u:pw@db/x"));
	cr_assert_eq(policy_env_var_fate(p, "GONE", "harmless", NULL, NULL), SBX_ENV_DENIED);
	cr_assert_eq(policy_env_var_fate(p, "GITHUB_TOKEN", "harmless", NULL, &sh), SBX_ENV_SECRET);
	cr_assert_null(sh, "the name decided");
	cr_assert_eq(policy_env_var_fate(p, "PATH", "/usr/bin:/bin", NULL, NULL), SBX_ENV_PASS);
	/* the name alone (value NULL): as before */
	cr_assert_eq(policy_env_fate(p, "DATABASE_URL", NULL), SBX_ENV_PASS);
	policy_free(p);
}

/* The longest value a variable holds (128 KiB), made of look-alike word
 * starts: nothing in it is a credential, and each start costs a bounded
 * look (credentials.c, run_of's cap, URL_PASSWORD_MAX), not a scan to the
 * end. */
Test(policy_env, a_long_value_of_look_alikes_passes)
{
	size_t n = 128 * 1024;
	char *v = malloc(n + 1);

	cr_assert_not_null(v);
	for (size_t i = 0; i < n; i++)
		v[i] = "eyJ-"[i % 4];
	v[n] = '\0';
	cr_assert_null(sbx_env_secret_value(v));
	for (size_t i = 0; i < n; i++)
		v[i] = "AKIA"[i % 4];
	cr_assert_null(sbx_env_secret_value(v));
	/* URLs whose password never reaches an @: each looks at most
	 * URL_PASSWORD_MAX characters on */
	for (size_t i = 0; i < n; i++)
		v[i] = "x://u:p/"[i % 8];
	cr_assert_null(sbx_env_secret_value(v));
	free(v);
}
