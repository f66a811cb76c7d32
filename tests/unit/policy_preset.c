/* tests/unit/policy_preset.c: `[sandbox] profile = NAME`, the six presets
 * from Gemini CLI's Seatbelt profiles mapped onto the policy
 * (policy/preset.c). Their Seatbelt profiles: tests/unit/seatbelt.c. */
#include <string.h>

#include <criterion/criterion.h>

#include "tests/unit/helpers.h"

Test(policy_preset, open_allows_any_host_closed_none)
{
	struct policy *p = compile_ini("[sandbox]\nprofile = permissive-open\n");

	cr_assert(policy_network_open(p));
	cr_assert(policy_allow_local_binding(p));
	cr_assert_str_eq(policy_preset(p), "permissive-open");
	policy_free(p);
	p = compile_ini("[sandbox]\nprofile = restrictive-closed\n");
	cr_assert_not(policy_network_open(p));
	cr_assert_not(policy_network_proxied(p));
	cr_assert_not(policy_allow_local_binding(p));
	policy_free(p);
}

Test(policy_preset, proxied_goes_through_the_proxy_to_allow_domains)
{
	struct policy *p = compile_ini("[sandbox]\nprofile = restrictive-proxied\n"
				       "[network]\nallow_domains = example.com\n");

	cr_assert(policy_network_proxied(p));
	cr_assert_not(policy_network_open(p));
	policy_free(p);
}

Test(policy_preset, writes_the_workspace_and_tool_caches_not_home)
{
	struct policy *p = compile_ini("[sandbox]\nprofile = permissive-closed\n");
	const struct sbx_rule *why =
		check_why(p, SBX_OP_WRITE, "/home/u/.cache/sbx-caches/npm/x", SBX_ALLOW);

	cr_assert_not_null(why);
	cr_assert_str_eq(why->source, "preset permissive-closed (test.ini:2)");
	/* the host's caches, which programs outside run or install from
	 * later, stay closed: the tools are pointed at the sandbox's own */
	cr_assert_eq(check(p, SBX_OP_WRITE, "/home/u/.npm/_npx/1a2b/node_modules/.bin/x"),
		     SBX_DENY);
	cr_assert_eq(check(p, SBX_OP_WRITE, "/home/u/.cache/uv/tools/x"), SBX_DENY);
	cr_assert_eq(check(p, SBX_OP_WRITE, "/home/u/.cache/pip/wheels/x.whl"), SBX_DENY);
	cr_assert_eq(check(p, SBX_OP_WRITE, "/home/u/.cache/go-build/ab/x-d"), SBX_DENY);
	size_t nset = 0;
	const struct sbx_rule *const *set = policy_rules(p, SBX_RULE_SET_ENV, &nset);
	bool npm = false;
	for (size_t i = 0; i < nset; i++)
		npm |= !strcmp(set[i]->pattern, "npm_config_cache=/home/u/.cache/sbx-caches/npm");
	cr_assert(npm, "npm_config_cache is not the sandbox's own cache");
	cr_assert_eq(check(p, SBX_OP_WRITE, "/w/src/a.c"), SBX_ALLOW);
	cr_assert_eq(check(p, SBX_OP_WRITE, "/home/u/notes.txt"), SBX_DENY);
	/* sbx's own defaults hold under a preset */
	cr_assert_eq(check(p, SBX_OP_READ, "/home/u/.ssh/id_rsa"), SBX_DENY);
	cr_assert_eq(check(p, SBX_OP_WRITE, "/w/.git/hooks/pre-commit"), SBX_DENY);
	/* container daemons out of reach */
	cr_assert_eq(check(p, SBX_OP_READ, "/home/u/.colima/default/docker.sock"), SBX_DENY);
	cr_assert_eq(check(p, SBX_OP_WRITE, "/home/u/.docker/run/docker.sock"), SBX_DENY);
	policy_free(p);
}

Test(policy_preset, closed_beside_allow_domains_is_refused)
{
	const char *msg = compile_ini_error("[sandbox]\nprofile = restrictive-closed\n"
					    "[network]\nallow_domains = example.com\n");

	cr_assert(strstr(msg, "test.ini:2: `profile = restrictive-closed` closes the network, "
			      "but `allow_domains = example.com` (test.ini:4) opens it"), "%s", msg);
	cr_assert(strstr(msg, "restrictive-proxied"), "%s", msg);
}

Test(policy_preset, proxied_without_domains_is_refused)
{
	const char *msg = compile_ini_error("[sandbox]\nprofile = permissive-proxied\n");

	cr_assert(strstr(msg, "there are none"), "%s", msg);
	cr_assert(strstr(msg, "permissive-closed"), "%s", msg);
}

Test(policy_preset, an_unknown_name_lists_the_six)
{
	const char *msg = compile_ini_error("[sandbox]\nprofile = permissive\n");

	cr_assert(strstr(msg, "`profile` must be permissive-open, permissive-closed, "
			      "permissive-proxied, restrictive-open, restrictive-closed or "
			      "restrictive-proxied, not `permissive`"), "%s", msg);
}

Test(policy_preset, a_project_file_may_not_name_one)
{
	const char *msg = compile_project_error(NULL, "[sandbox]\nprofile = restrictive-closed\n");

	cr_assert(strstr(msg, "would widen the policy"), "%s", msg);
}

Test(policy_preset, leaves_a_strict_isolation_strict)
{
	struct policy *p = compile_ini("[sandbox]\nisolation = strict\nprofile = restrictive-closed\n");

	cr_assert_eq(policy_isolation(p), SBX_ISOLATION_STRICT);
	cr_assert_eq(check(p, SBX_OP_WRITE, "/w/src/a.c"), SBX_DENY);
	policy_free(p);
}

/* A preset's settings stay where it was named: one named after another
 * (or none after it) would say a network the policy does not have
 * (restrictive-proxied after permissive-open let any host through, the
 * open one's allow_domains = * kept), so it is refused, naming both. */
Test(policy_preset, a_second_preset_or_none_after_one_is_refused)
{
	const char *msg = compile_ini_error("[sandbox]\nprofile = permissive-open\n"
					    "profile = restrictive-proxied\n"
					    "[network]\nallow_domains = example.com\n");

	cr_assert(strstr(msg, "test.ini:3: `profile = restrictive-proxied` after "
			      "`profile = permissive-open` (test.ini:2)"), "%s", msg);
	msg = compile_ini_error("[sandbox]\nprofile = permissive-open\nprofile =\n");
	cr_assert(strstr(msg, "test.ini:3: `profile = ` after"), "%s", msg);
	struct policy *p = compile_ini("[sandbox]\nprofile = restrictive-closed\n"
				       "profile = restrictive-closed\n");
	cr_assert_str_eq(policy_preset(p), "restrictive-closed");
	policy_free(p);
}
