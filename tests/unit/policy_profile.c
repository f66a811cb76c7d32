/* tests/unit/policy_profile.c: agent profiles as a policy layer
 * (POLICY_LAYER_PROFILE) and their names (preload/profile.c). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>
#include <string.h>

#include "tests/unit/helpers.h"
#include "preload/profile.h"

#define PROFILE_DISPLAY "profile claude: /usr/share/sbx/profiles/claude.ini"

static int load_profile(struct policy_builder *b, const char *ini, struct sbx_err *err)
{
	return policy_builder_load_string(b, ini, PROFILE_DISPLAY, POLICY_LAYER_PROFILE, err);
}

static struct policy *compile_profile(const char *user_ini, const char *profile_ini)
{
	struct policy_builder *b = builder_ini(user_ini);
	struct sbx_err err = { .msg = "" };

	cr_assert_eq(load_profile(b, profile_ini, &err), 0, "profile: %s", err.msg);
	return compile_builder(b);
}

static const char *profile_error(const char *profile_ini)
{
	static struct sbx_err err;
	struct policy_builder *b = builder_ini(NULL);
	int rc = load_profile(b, profile_ini, &err);

	policy_builder_free(b);
	return rc ? err.msg : NULL;
}

Test(policy_profile, allow_write_from_a_profile_names_the_profile_as_source)
{
	struct policy *p = compile_profile(NULL, "[profile]\ndescription = x\n"
					   "[filesystem]\nallow_write = ~/.claude-sbx/\n");
	const struct sbx_rule *why = check_why(p, SBX_OP_WRITE, "/home/u/.claude-sbx/x", SBX_ALLOW);

	cr_assert_eq(check(p, SBX_OP_WRITE, "/home/u/.claude-sbx/x"), SBX_ALLOW);
	cr_assert_not_null(why);
	cr_assert_eq(why->origin, SBX_ORIGIN_PROFILE);
	cr_assert_str_eq(why->source, PROFILE_DISPLAY ":4");
	policy_free(p);
}

Test(policy_profile, user_deny_write_wins_over_a_profile_allow_write)
{
	struct policy *p = compile_profile("[filesystem]\ndeny_write = ~/.claude-sbx/settings.json\n",
					   "[filesystem]\nallow_write = ~/.claude-sbx/\n");

	cr_assert_eq(check(p, SBX_OP_WRITE, "/home/u/.claude-sbx/settings.json"), SBX_DENY);
	cr_assert_eq(check(p, SBX_OP_WRITE, "/home/u/.claude-sbx/projects/x.jsonl"), SBX_ALLOW);
	policy_free(p);
}

Test(policy_profile, a_profile_adds_domains)
{
	struct policy *p = compile_profile(NULL, "[network]\nallow_domains = api.anthropic.com\n");

	cr_assert_eq(policy_check_domain(p, "api.anthropic.com", 443, NULL), SBX_ALLOW);
	cr_assert_eq(policy_check_domain(p, "evil.example", 443, NULL), SBX_DENY);
	policy_free(p);
}

struct refused { const char *ini, *says; };

ParameterizedTestParameters(policy_profile, a_profile_may_not_set)
{
	static struct refused cases[] = {
		{ "[sandbox]\nworkspace = /\n", "a profile may not set `workspace`" },
		{ "[sandbox]\nisolation = custom\n", "a profile may not set `isolation`" },
		{ "[limits]\nmemory = 1G\n", "a profile may not set `memory`" },
		{ "[network]\nallow_all_unix_sockets = true\n", "may not set `allow_all_unix_sockets`" },
		{ "[network]\nallow_unix_sockets = /run/docker.sock\n", "may not set `allow_unix_sockets`" },
		{ "[network]\nhttp_proxy_port = 8080\n", "may not set `http_proxy_port`" },
		{ "[profile]\ncommands = x\n", "unknown key `commands` in [profile]" },
		{ "[env]\nset = LD_PRELOAD=/x.so\n", "not `LD_PRELOAD=/x.so`" },
		{ "[env]\nset = SBX_SHIM=1\n", "not `SBX_SHIM=1`" },
		{ "[env]\nset = NOEQUALS\n", "NAME=VALUE" },
		{ "[env]\nset = BAD-NAME=1\n", "NAME=VALUE" },
	};
	return cr_make_param_array(struct refused, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct refused *c, policy_profile, a_profile_may_not_set)
{
	const char *e = profile_error(c->ini);

	cr_assert_not_null(e, "accepted: %s", c->ini);
	cr_assert(strstr(e, c->says), "`%s` gave: %s", c->ini, e);
	cr_assert(strstr(e, PROFILE_DISPLAY ":"), "no file:line in: %s", e);
}

Test(policy_profile, profile_section_is_unknown_in_a_user_file)
{
	const char *e = compile_ini_error("[profile]\ndescription = x\n");

	cr_assert_not_null(e);
	cr_assert(strstr(e, "unknown section [profile]"), "%s", e);
}

Test(policy_profile, claude_hook_is_a_profile_key_only)
{
	struct policy *p = compile_profile(NULL, "[profile]\ndescription = x\nclaude_hook = true\n");
	cr_assert(policy_claude_hook(p));
	policy_free(p);
	p = compile_profile(NULL, "[profile]\ndescription = x\n");
	cr_assert(!policy_claude_hook(p));
	policy_free(p);
	const char *e = compile_ini_error("[profile]\nclaude_hook = true\n");
	cr_assert_not_null(e);
	cr_assert(strstr(e, "unknown section [profile]"), "%s", e);
}

Test(policy_profile, set_env_expands_tilde_in_the_value)
{
	struct policy *p = compile_profile(NULL, "[env]\nset = CLAUDE_CONFIG_DIR=~/.claude-sbx\n"
					   "set = PLAIN=a~b\n");
	size_t n;
	const struct sbx_rule *const *r = policy_rules(p, SBX_RULE_SET_ENV, &n);
	char name[64];
	const char *v;

	cr_assert_eq(n, 2);
	cr_assert_eq(policy_set_env_split(r[0], name, sizeof(name), &v), 0);
	cr_assert_str_eq(name, "CLAUDE_CONFIG_DIR");
	cr_assert_str_eq(v, "/home/u/.claude-sbx");
	cr_assert_eq(policy_set_env_split(r[1], name, sizeof(name), &v), 0);
	cr_assert_str_eq(v, "a~b");
	policy_free(p);
}

Test(policy_profile, set_env_survives_the_blob)
{
	struct policy *p = compile_profile(NULL, "[env]\nset = CODEX_HOME=~/.codex-sbx\n");
	void *blob;
	size_t len, need;
	const struct policy *v;
	size_t n;
	char name[64];
	const char *val;

	cr_assert_eq(policy_to_blob(p, &blob, &len), 0);
	cr_assert_eq(policy_blob_attach_size(blob, len, &need), 0);
	void *mem = aligned_alloc(16, (need + 15) & ~(size_t)15);
	cr_assert_eq(policy_blob_attach(blob, len, mem, need, &v), 0);
	const struct sbx_rule *const *r = policy_rules(v, SBX_RULE_SET_ENV, &n);
	cr_assert_eq(n, 1);
	cr_assert_eq(r[0]->origin, SBX_ORIGIN_PROFILE);
	cr_assert_eq(policy_set_env_split(r[0], name, sizeof(name), &val), 0);
	cr_assert_str_eq(val, "/home/u/.codex-sbx");
	free(mem);
	free(blob);
	policy_free(p);
}

struct name_case { const char *name; bool ok; };

ParameterizedTestParameters(profile_names, only_plain_names_are_profiles)
{
	static struct name_case cases[] = {
		{ "claude", true }, { "gemini-cli", true }, { "mcp_2", true },
		{ "", false }, { "..", false }, { "../x", false }, { "a/b", false },
		{ "-x", false }, { "Claude", false }, { ".hidden", false },
		{ "x.ini", false }, { "abcdefghijklmnopqrstuvwxyz0123456789", false },
	};
	return cr_make_param_array(struct name_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct name_case *c, profile_names, only_plain_names_are_profiles)
{
	cr_assert_eq(profile_name_ok(c->name), c->ok, "`%s`", c->name);
}
