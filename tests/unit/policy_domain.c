/* tests/unit/policy_domain.c: which hosts COMMAND may reach
 * (docs/POLICY.md "Domains"). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/unit/helpers.h"

Test(policy_domain, nothing_allowed_by_default)
{
	struct policy *p = compile_ini("");
	const struct sbx_rule *why = NULL;

	cr_assert_eq(policy_check_domain(p, "github.com", 443, &why), SBX_DENY);
	cr_assert_null(why);
	cr_assert_eq(policy_check_domain(p, "localhost", 0, NULL), SBX_DENY);
	cr_assert_eq(policy_network_open(p), false);
	policy_free(p);
}

Test(policy_domain, star_allows_every_host_and_opens_the_network)
{
	struct policy *p = compile_ini("[network]\nallow_domains = *\n");
	const struct sbx_rule *why = NULL;

	cr_assert_eq(policy_check_domain(p, "github.com", 443, &why), SBX_ALLOW);
	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_ALLOW_DOMAIN);
	cr_assert_str_eq(why->value, "*");
	cr_assert_eq(policy_check_domain(p, "a.b.c.example.org", 8080, NULL), SBX_ALLOW);
	cr_assert_eq(policy_network_open(p), true);
	policy_free(p);
}

Test(policy_domain, a_named_host_does_not_open_the_network)
{
	struct policy *p = compile_ini("[network]\nallow_domains = github.com\n");

	cr_assert_eq(policy_network_open(p), false);
	policy_free(p);
}

struct domain_case {
	const char *ini;
	const char *host;
	unsigned port;
	enum sbx_verdict expect;
};

#define ALLOW(list) "[network]\nallow_domains = " list "\n"

ParameterizedTestParameters(policy_domain, decisions)
{
	static struct domain_case cases[] = {
		/* a plain name is that host only */
		{ ALLOW("github.com"), "github.com", 443, SBX_ALLOW },
		{ ALLOW("github.com"), "github.com", 22, SBX_ALLOW },
		{ ALLOW("github.com"), "github.com", 0, SBX_ALLOW },
		{ ALLOW("github.com"), "api.github.com", 443, SBX_DENY },
		{ ALLOW("github.com"), "notgithub.com", 443, SBX_DENY },
		{ ALLOW("github.com"), "github.com.evil.test", 443, SBX_DENY },
		{ ALLOW("github.com"), "github.co", 443, SBX_DENY },
		/* `*.example.com`: subdomains, not the domain itself */
		{ ALLOW("*.example.com"), "a.example.com", 443, SBX_ALLOW },
		{ ALLOW("*.example.com"), "a.b.example.com", 443, SBX_ALLOW },
		{ ALLOW("*.example.com"), "example.com", 443, SBX_DENY },
		{ ALLOW("*.example.com"), "badexample.com", 443, SBX_DENY },
		{ ALLOW("*.example.com"), "example.com.evil.test", 443, SBX_DENY },
		{ ALLOW("*.example.com, example.com"), "example.com", 443, SBX_ALLOW },
		/* host:port: that port only */
		{ ALLOW("example.com:443"), "example.com", 443, SBX_ALLOW },
		{ ALLOW("example.com:443"), "example.com", 80, SBX_DENY },
		{ ALLOW("example.com:443"), "example.com", 4430, SBX_DENY },
		{ ALLOW("*.example.com:8443"), "a.example.com", 8443, SBX_ALLOW },
		{ ALLOW("*.example.com:8443"), "a.example.com", 443, SBX_DENY },
		/* case-insensitive, a trailing dot ignored */
		{ ALLOW("GitHub.COM"), "github.com", 443, SBX_ALLOW },
		{ ALLOW("github.com"), "GITHUB.com", 443, SBX_ALLOW },
		{ ALLOW("*.Example.com"), "API.EXAMPLE.COM", 443, SBX_ALLOW },
		{ ALLOW("github.com"), "github.com.", 443, SBX_ALLOW },
		{ ALLOW("github.com."), "github.com", 443, SBX_ALLOW },
		{ ALLOW("*.example.com"), "a.example.com.", 443, SBX_ALLOW },
		{ ALLOW("*.example.com"), "example.com.", 443, SBX_DENY },
		/* lists */
		{ ALLOW("a.test, b.test"), "b.test", 443, SBX_ALLOW },
		{ ALLOW("a.test, b.test"), "c.test", 443, SBX_DENY },
		/* deny first, whatever allow says */
		{ ALLOW("*") "deny_domains = evil.test\n", "evil.test", 443, SBX_DENY },
		{ ALLOW("*") "deny_domains = evil.test\n", "good.test", 443, SBX_ALLOW },
		{ ALLOW("*") "deny_domains = evil.test\n", "a.evil.test", 443, SBX_ALLOW },
		{ ALLOW("sub.evil.test") "deny_domains = *.evil.test\n", "sub.evil.test", 443, SBX_DENY },
		{ ALLOW("evil.test") "deny_domains = EVIL.test.\n", "evil.test", 443, SBX_DENY },
		{ ALLOW("*") "deny_domains = evil.test:25\n", "evil.test", 25, SBX_DENY },
		{ ALLOW("*") "deny_domains = evil.test:25\n", "evil.test", 443, SBX_ALLOW },
		{ ALLOW("*") "deny_domains = *\n", "good.test", 443, SBX_DENY },
	};
	return cr_make_param_array(struct domain_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct domain_case *c, policy_domain, decisions)
{
	struct policy *p = compile_ini(c->ini);
	enum sbx_verdict got = policy_check_domain(p, c->host, c->port, NULL);

	cr_assert_eq(got, c->expect, "%s port %u: got %s, expected %s, with\n%s",
		     c->host, c->port, VERDICT_NAME(got), VERDICT_NAME(c->expect), c->ini);
	policy_free(p);
}

Test(policy_domain, deny_rule_explains_the_refusal)
{
	struct policy *p = compile_ini("[network]\nallow_domains = *\ndeny_domains = *.evil.test\n");
	const struct sbx_rule *why = NULL;

	cr_assert_eq(policy_check_domain(p, "x.evil.test", 443, &why), SBX_DENY);
	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_DENY_DOMAIN);
	cr_assert_str_eq(why->value, "*.evil.test");
	cr_assert_str_eq(why->source, "test.ini:3");
	policy_free(p);
}

Test(policy_domain, env_allowed_domains_add_with_their_source)
{
	struct policy_builder *b = builder_ini("[network]\nallow_domains = c.test\n");
	const struct sbx_rule *why = NULL;

	builder_set(b, "network", "allow_domains", "a.test,b.test", SBX_ORIGIN_ENV,
		    "SBX_ALLOWED_DOMAINS");
	struct policy *p = compile_builder(b);
	cr_assert_eq(policy_check_domain(p, "a.test", 443, &why), SBX_ALLOW);
	cr_assert_not_null(why);
	cr_assert_eq(why->origin, SBX_ORIGIN_ENV);
	cr_assert_str_eq(why->source, "SBX_ALLOWED_DOMAINS");
	cr_assert_str_eq(why->value, "a.test");
	cr_assert_eq(policy_check_domain(p, "b.test", 443, NULL), SBX_ALLOW);
	cr_assert_eq(policy_check_domain(p, "c.test", 443, &why), SBX_ALLOW);
	cr_assert_not_null(why);
	cr_assert_str_eq(why->source, "test.ini:2");
	cr_assert_eq(policy_check_domain(p, "d.test", 443, NULL), SBX_DENY);
	policy_free(p);
}

Test(policy_domain, flag_allow_domain_has_its_source)
{
	struct policy_builder *b = builder_ini(NULL);
	const struct sbx_rule *why = NULL;

	builder_set(b, "network", "allow_domains", "pypi.org", SBX_ORIGIN_FLAG, "--allow-domain");
	struct policy *p = compile_builder(b);
	cr_assert_eq(policy_check_domain(p, "pypi.org", 443, &why), SBX_ALLOW);
	cr_assert_not_null(why);
	cr_assert_eq(why->origin, SBX_ORIGIN_FLAG);
	cr_assert_str_eq(why->source, "--allow-domain");
	policy_free(p);
}

Test(policy_domain, flag_deny_domain_beats_file_allow)
{
	struct policy_builder *b = builder_ini("[network]\nallow_domains = *\n");
	const struct sbx_rule *why = NULL;

	builder_set(b, "network", "deny_domains", "tracker.test", SBX_ORIGIN_FLAG, "--deny-domain");
	struct policy *p = compile_builder(b);
	cr_assert_eq(policy_check_domain(p, "tracker.test", 443, &why), SBX_DENY);
	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_DENY_DOMAIN);
	cr_assert_str_eq(why->source, "--deny-domain");
	policy_free(p);
}

Test(policy_domain, env_star_opens_the_network)
{
	struct policy_builder *b = builder_ini(NULL);

	builder_set(b, "network", "allow_domains", "*", SBX_ORIGIN_ENV, "SBX_ALLOWED_DOMAINS");
	struct policy *p = compile_builder(b);
	cr_assert_eq(policy_network_open(p), true);
	policy_free(p);
}

Test(policy_host, lookup_allowed_when_a_rule_names_the_host_on_any_port)
{
	struct policy *p = compile_ini("[network]\nallow_domains = *.npmjs.org:443, github.com\n"
				       "deny_domains = bad.npmjs.org, evil.github.com:22\n");
	const struct sbx_rule *why;

	cr_assert_eq(policy_check_host(p, "registry.npmjs.org", &why), SBX_ALLOW);
	cr_assert_str_eq(why->value, "*.npmjs.org:443");
	cr_assert_eq(policy_check_domain(p, "registry.npmjs.org", 0, NULL), SBX_DENY);
	cr_assert_eq(policy_check_host(p, "github.com", NULL), SBX_ALLOW);
	cr_assert_eq(policy_check_host(p, "bad.npmjs.org", &why), SBX_DENY);
	cr_assert_str_eq(why->value, "bad.npmjs.org");
	/* a deny for one port does not refuse the lookup */
	cr_assert_eq(policy_check_host(p, "evil.github.com", NULL), SBX_DENY); /* not allowed at all */
	cr_assert_eq(policy_check_host(p, "example.com", &why), SBX_DENY);
	cr_assert_null(why);
	policy_free(p);
}

Test(split_target, host_port_and_v6_forms)
{
	char h[64];
	unsigned port;

	cr_assert_eq(sbx_split_target("example.com", h, sizeof(h), &port), 0);
	cr_assert_str_eq(h, "example.com");
	cr_assert_eq(port, 0);
	cr_assert_eq(sbx_split_target("example.com:443", h, sizeof(h), &port), 0);
	cr_assert_str_eq(h, "example.com");
	cr_assert_eq(port, 443);
	cr_assert_eq(sbx_split_target("[2001:db8::1]:8080", h, sizeof(h), &port), 0);
	cr_assert_str_eq(h, "2001:db8::1");
	cr_assert_eq(port, 8080);
	cr_assert_eq(sbx_split_target("2001:db8::1", h, sizeof(h), &port), 0);
	cr_assert_str_eq(h, "2001:db8::1");
	cr_assert_eq(port, 0);
	/* not a destination */
	cr_assert_eq(sbx_split_target("", h, sizeof(h), &port), -1);
	cr_assert_eq(sbx_split_target(":443", h, sizeof(h), &port), -1);
	cr_assert_eq(sbx_split_target("host:", h, sizeof(h), &port), -1);
	cr_assert_eq(sbx_split_target("host:99999", h, sizeof(h), &port), -1);
	cr_assert_eq(sbx_split_target("host:44x", h, sizeof(h), &port), -1);
	cr_assert_eq(sbx_split_target("[::1", h, sizeof(h), &port), -1);
	cr_assert_eq(sbx_split_target("[::1]x", h, sizeof(h), &port), -1);
	cr_assert_eq(sbx_split_target("a-very-long-host-name.example.com", h, 8, &port), -1);
}
