/* tests/unit/policy_parse.c: every key of every section is read, in every
 * spelling docs/POLICY.md "Syntax" allows. */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/unit/helpers.h"

/* [sandbox] */

Test(policy_parse, workspace_sets_the_workspace)
{
	struct policy *p = compile_ini("[sandbox]\nworkspace = /srv/proj\n");

	cr_assert_str_eq(policy_workspace(p), "/srv/proj");
	policy_free(p);
}

Test(policy_parse, workspace_defaults_to_the_current_directory)
{
	struct policy *p = compile_ini("");

	cr_assert_str_eq(policy_workspace(p), TEST_CWD);
	policy_free(p);
}

struct isolation_case {
	const char *value;
	enum sbx_isolation expect;
};

ParameterizedTestParameters(policy_parse, isolation_values)
{
	static struct isolation_case cases[] = {
		{ "workspace", SBX_ISOLATION_WORKSPACE },
		{ "strict", SBX_ISOLATION_STRICT },
		{ "custom", SBX_ISOLATION_CUSTOM },
	};
	return cr_make_param_array(struct isolation_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct isolation_case *c, policy_parse, isolation_values)
{
	char ini[128];

	snprintf(ini, sizeof(ini), "[sandbox]\nisolation = %s\n", c->value);
	struct policy *p = compile_ini(ini);
	cr_assert_eq(policy_isolation(p), c->expect, "isolation = %s", c->value);
	cr_assert_str_eq(sbx_isolation_name(policy_isolation(p)), c->value);
	policy_free(p);
}

Test(policy_parse, defaults_are_workspace_isolation_fallback_error_real_home)
{
	struct policy *p = compile_ini("");

	cr_assert_eq(policy_isolation(p), SBX_ISOLATION_WORKSPACE);
	cr_assert_eq(policy_fallback(p), SBX_FALLBACK_ERROR);
	cr_assert_eq(policy_home_mode(p), SBX_HOME_REAL);
	cr_assert_eq(policy_nested(p), false);
	cr_assert_eq(policy_network_open(p), false);
	cr_assert_eq(policy_allow_all_unix_sockets(p), false);
	policy_free(p);
}

Test(policy_parse, fallback_warn)
{
	struct policy *p = compile_ini("[sandbox]\nfallback = warn\n");

	cr_assert_eq(policy_fallback(p), SBX_FALLBACK_WARN);
	policy_free(p);
}

Test(policy_parse, fallback_error_after_warn)
{
	struct policy *p = compile_ini("[sandbox]\nfallback = warn\nfallback = error\n");

	cr_assert_eq(policy_fallback(p), SBX_FALLBACK_ERROR);
	policy_free(p);
}

Test(policy_parse, nested_true)
{
	struct policy *p = compile_ini("[sandbox]\nnested = true\n");

	cr_assert_eq(policy_nested(p), true);
	policy_free(p);
}

/* Booleans: true/false, yes/no, on/off, 1/0. A true spelling is tried on a
 * key whose default is false and the other way round, so a spelling that is
 * silently ignored fails. */

struct bool_case {
	const char *spelling;
	bool value;
};

ParameterizedTestParameters(policy_parse, boolean_spellings)
{
	static struct bool_case cases[] = {
		{ "true", true }, { "yes", true }, { "on", true }, { "1", true },
		{ "false", false }, { "no", false }, { "off", false }, { "0", false },
	};
	return cr_make_param_array(struct bool_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct bool_case *c, policy_parse, boolean_spellings)
{
	char ini[128];

	if (c->value) {
		snprintf(ini, sizeof(ini), "[network]\nallow_all_unix_sockets = %s\n",
			 c->spelling);
		struct policy *p = compile_ini(ini);
		cr_assert_eq(policy_allow_all_unix_sockets(p), true, "%s", c->spelling);
		policy_free(p);
	} else {
		snprintf(ini, sizeof(ini), "[network]\nallow_local_binding = %s\n",
			 c->spelling);
		struct policy *p = compile_ini(ini);
		cr_assert_eq(policy_allow_local_binding(p), false, "%s", c->spelling);
		policy_free(p);
	}
}

/* [filesystem] */

Test(policy_parse, deny_read_adds_a_rule)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = /srv/secret\n");

	cr_assert_not_null(find_rule(p, SBX_RULE_DENY_READ, "/srv/secret"));
	assert_verdict(p, SBX_OP_READ, "/srv/secret", SBX_DENY);
	policy_free(p);
}

Test(policy_parse, allow_read_adds_a_rule)
{
	struct policy *p = compile_ini("[filesystem]\nallow_read = ~/.ssh/known_hosts\n");

	cr_assert_not_null(find_rule(p, SBX_RULE_ALLOW_READ, "~/.ssh/known_hosts"));
	assert_verdict(p, SBX_OP_READ, "/home/u/.ssh/known_hosts", SBX_ALLOW);
	policy_free(p);
}

Test(policy_parse, allow_write_adds_a_rule)
{
	struct policy *p = compile_ini("[filesystem]\nallow_write = /srv/out\n");

	cr_assert_not_null(find_rule(p, SBX_RULE_ALLOW_WRITE, "/srv/out"));
	assert_verdict(p, SBX_OP_WRITE, "/srv/out/f", SBX_ALLOW);
	policy_free(p);
}

Test(policy_parse, deny_write_adds_a_rule)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_write = /w/vendor\n");

	cr_assert_not_null(find_rule(p, SBX_RULE_DENY_WRITE, "/w/vendor"));
	assert_verdict(p, SBX_OP_WRITE, "/w/vendor/lib.c", SBX_DENY);
	policy_free(p);
}

/* [network] */

Test(policy_parse, allow_domains_adds_a_rule)
{
	struct policy *p = compile_ini("[network]\nallow_domains = github.com\n");

	cr_assert_not_null(find_rule(p, SBX_RULE_ALLOW_DOMAIN, "github.com"));
	cr_assert_eq(policy_check_domain(p, "github.com", 443, NULL), SBX_ALLOW);
	policy_free(p);
}

Test(policy_parse, deny_domains_adds_a_rule)
{
	struct policy *p = compile_ini("[network]\nallow_domains = *\ndeny_domains = evil.test\n");

	cr_assert_not_null(find_rule(p, SBX_RULE_DENY_DOMAIN, "evil.test"));
	cr_assert_eq(policy_check_domain(p, "evil.test", 443, NULL), SBX_DENY);
	policy_free(p);
}

Test(policy_parse, allow_unix_sockets_adds_a_rule)
{
	struct policy *p = compile_ini("[network]\nallow_unix_sockets = /run/user/1000/bus\n");

	cr_assert_not_null(find_rule(p, SBX_RULE_ALLOW_UNIX_SOCKET, "/run/user/1000/bus"));
	policy_free(p);
}

Test(policy_parse, allow_local_binding_defaults_to_true)
{
	struct policy *p = compile_ini("");

	cr_assert_eq(policy_allow_local_binding(p), true);
	policy_free(p);
}

struct port_case {
	const char *text;
	unsigned port;
};

ParameterizedTestParameters(policy_parse, proxy_ports)
{
	static struct port_case cases[] = {
		{ "1", 1 }, { "8080", 8080 }, { "65535", 65535 },
	};
	return cr_make_param_array(struct port_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct port_case *c, policy_parse, proxy_ports)
{
	char ini[160];

	snprintf(ini, sizeof(ini),
		 "[network]\nhttp_proxy_port = %s\nsocks_proxy_port = %s\n",
		 c->text, c->text);
	struct policy *p = compile_ini(ini);
	cr_assert_eq(policy_http_proxy_port(p), c->port);
	cr_assert_eq(policy_socks_proxy_port(p), c->port);
	policy_free(p);
}

Test(policy_parse, proxy_ports_default_to_built_in)
{
	struct policy *p = compile_ini("");

	cr_assert_eq(policy_http_proxy_port(p), 0);
	cr_assert_eq(policy_socks_proxy_port(p), 0);
	policy_free(p);
}

Test(policy_parse, http_and_socks_ports_are_separate)
{
	struct policy *p = compile_ini("[network]\nhttp_proxy_port = 3128\nsocks_proxy_port = 1080\n");

	cr_assert_eq(policy_http_proxy_port(p), 3128);
	cr_assert_eq(policy_socks_proxy_port(p), 1080);
	policy_free(p);
}

/* [report] */

Test(policy_parse, log_sets_the_log_path)
{
	struct policy *p = compile_ini("[report]\nlog = /var/log/sbx/audit.jsonl\n");

	cr_assert_not_null(policy_log_path(p));
	cr_assert_str_eq(policy_log_path(p), "/var/log/sbx/audit.jsonl");
	policy_free(p);
}

Test(policy_parse, tell_program_off_unless_set)
{
	struct policy *p = compile_ini("[report]\nlog = /x.jsonl\n");

	cr_assert_not(policy_tell_program(p));
	policy_free(p);
	p = compile_ini("[report]\ntell_program = true\n");
	cr_assert(policy_tell_program(p));
	policy_free(p);
}

Test(policy_parse, ignore_paths_adds_rules)
{
	struct policy *p = compile_ini("[report]\nignore_paths = /w/build, /w/.cache\n");

	cr_assert_not_null(find_rule(p, SBX_RULE_IGNORE_PATH, "/w/build"));
	cr_assert_not_null(find_rule(p, SBX_RULE_IGNORE_PATH, "/w/.cache"));
	policy_free(p);
}

Test(policy_parse, ignore_domains_adds_rules)
{
	struct policy *p = compile_ini("[report]\nignore_domains = telemetry.test\n");

	cr_assert_not_null(find_rule(p, SBX_RULE_IGNORE_DOMAIN, "telemetry.test"));
	policy_free(p);
}

/* [limits] */

struct size_case {
	const char *text;
	uint64_t bytes;
};

ParameterizedTestParameters(policy_parse, memory_sizes)
{
	static struct size_case cases[] = {
		{ "4096", 4096ULL },
		{ "1K", 1024ULL },
		{ "64K", 64ULL << 10 },
		{ "512M", 512ULL << 20 },
		{ "3G", 3ULL << 30 },
		{ "2T", 2ULL << 40 },
	};
	return cr_make_param_array(struct size_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct size_case *c, policy_parse, memory_sizes)
{
	char ini[128];

	snprintf(ini, sizeof(ini), "[limits]\nmemory = %s\n", c->text);
	struct policy *p = compile_ini(ini);
	cr_assert_eq(policy_limit(p, SBX_LIMIT_MEMORY), c->bytes,
		     "memory = %s: got %llu, expected %llu", c->text,
		     (unsigned long long)policy_limit(p, SBX_LIMIT_MEMORY),
		     (unsigned long long)c->bytes);
	policy_free(p);
}

Test(policy_parse, counts_set_their_limits)
{
	struct policy *p = compile_ini("[limits]\npids = 256\ncpu_seconds = 90\nnofile = 1024\n");

	cr_assert_eq(policy_limit(p, SBX_LIMIT_PIDS), 256);
	cr_assert_eq(policy_limit(p, SBX_LIMIT_CPU_SECONDS), 90);
	cr_assert_eq(policy_limit(p, SBX_LIMIT_NOFILE), 1024);
	cr_assert_eq(policy_limit(p, SBX_LIMIT_MEMORY), 0);
	policy_free(p);
}

Test(policy_parse, limits_default_to_unlimited)
{
	struct policy *p = compile_ini("");

	for (int i = 0; i < SBX_LIMIT_COUNT; i++)
		cr_assert_eq(policy_limit(p, (enum sbx_limit)i), 0, "limit %d", i);
	policy_free(p);
}

/* [env] */

Test(policy_parse, home_ephemeral)
{
	struct policy *p = compile_ini("[env]\nhome = ephemeral\n");

	cr_assert_eq(policy_home_mode(p), SBX_HOME_EPHEMERAL);
	policy_free(p);
}

Test(policy_parse, deny_env_adds_a_rule)
{
	struct policy *p = compile_ini("[env]\ndeny_env = OPENAI_API_KEY\n");

	cr_assert_not_null(find_rule(p, SBX_RULE_DENY_ENV, "OPENAI_API_KEY"));
	cr_assert_eq(policy_env_denied(p, "OPENAI_API_KEY", NULL), true);
	policy_free(p);
}

/* Lists */

Test(policy_parse, list_comma_separated)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = /srv/a, /srv/b,/srv/c\n");

	assert_verdict(p, SBX_OP_READ, "/srv/a", SBX_DENY);
	assert_verdict(p, SBX_OP_READ, "/srv/b", SBX_DENY);
	assert_verdict(p, SBX_OP_READ, "/srv/c", SBX_DENY);
	assert_verdict(p, SBX_OP_READ, "/srv/d", SBX_ALLOW);
	cr_assert_not_null(find_rule(p, SBX_RULE_DENY_READ, "/srv/b"),
			   "list items are trimmed");
	policy_free(p);
}

Test(policy_parse, spaces_around_the_equals_sign_are_optional)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read=/srv/a\n[sandbox]\nisolation=strict\n");

	assert_verdict(p, SBX_OP_READ, "/srv/a", SBX_DENY);
	cr_assert_eq(policy_isolation(p), SBX_ISOLATION_STRICT);
	policy_free(p);
}

Test(policy_parse, list_key_repeated_adds)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = /srv/a\ndeny_read = /srv/b\n");

	assert_verdict(p, SBX_OP_READ, "/srv/a", SBX_DENY);
	assert_verdict(p, SBX_OP_READ, "/srv/b", SBX_DENY);
	policy_free(p);
}

Test(policy_parse, list_multi_line_continuation)
{
	struct policy *p = compile_ini("[filesystem]\n"
				       "deny_read = /srv/a\n"
				       "  /srv/b\n"
				       "  /srv/c, /srv/d\n");

	assert_verdict(p, SBX_OP_READ, "/srv/a", SBX_DENY);
	assert_verdict(p, SBX_OP_READ, "/srv/b", SBX_DENY);
	assert_verdict(p, SBX_OP_READ, "/srv/c", SBX_DENY);
	assert_verdict(p, SBX_OP_READ, "/srv/d", SBX_DENY);
	policy_free(p);
}

Test(policy_parse, list_adds_to_the_built_in_defaults)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = ~/.secret\n");

	assert_verdict(p, SBX_OP_READ, "/home/u/.secret", SBX_DENY);
	assert_verdict(p, SBX_OP_READ, "/home/u/.ssh/id_ed25519", SBX_DENY);
	policy_free(p);
}

Test(policy_parse, list_sections_are_independent)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_write = /srv/a\n");

	assert_verdict(p, SBX_OP_READ, "/srv/a", SBX_ALLOW);
	cr_assert_null(find_rule(p, SBX_RULE_DENY_READ, "/srv/a"));
	policy_free(p);
}

Test(policy_parse, empty_list_value_adds_nothing)
{
	struct policy *base = compile_ini("");
	struct policy *p = compile_ini("[filesystem]\ndeny_read =\nallow_write =\n"
				       "[network]\nallow_domains =\n[env]\ndeny_env =\n");
	size_t n_base = 0, n = 0;

	for (int k = 0; k < SBX_RULE_KIND_COUNT; k++) {
		policy_rules(base, (enum sbx_rule_kind)k, &n_base);
		policy_rules(p, (enum sbx_rule_kind)k, &n);
		cr_assert_eq(n, n_base, "rule kind %d: %zu rules, defaults have %zu",
			     k, n, n_base);
	}
	cr_assert_eq(policy_network_open(p), false);
	policy_free(base);
	policy_free(p);
}

Test(policy_parse, empty_scalar_value_is_not_set)
{
	struct policy *p = compile_ini("[sandbox]\nworkspace =\nisolation =\nfallback =\n"
				       "[limits]\nmemory =\npids =\n[env]\nhome =\n");

	cr_assert_str_eq(policy_workspace(p), TEST_CWD);
	cr_assert_eq(policy_isolation(p), SBX_ISOLATION_WORKSPACE);
	cr_assert_eq(policy_fallback(p), SBX_FALLBACK_ERROR);
	cr_assert_eq(policy_limit(p, SBX_LIMIT_MEMORY), 0);
	cr_assert_eq(policy_limit(p, SBX_LIMIT_PIDS), 0);
	cr_assert_eq(policy_home_mode(p), SBX_HOME_REAL);
	policy_free(p);
}

/* Comments */

Test(policy_parse, semicolon_and_hash_comment_lines_are_ignored)
{
	struct policy *p = compile_ini("; a comment\n"
				       "# another = comment\n"
				       "[filesystem]\n"
				       ";deny_read = /srv/a\n"
				       "#deny_read = /srv/b\n"
				       "deny_read = /srv/c\n");

	assert_verdict(p, SBX_OP_READ, "/srv/a", SBX_ALLOW);
	assert_verdict(p, SBX_OP_READ, "/srv/b", SBX_ALLOW);
	assert_verdict(p, SBX_OP_READ, "/srv/c", SBX_DENY);
	policy_free(p);
}

Test(policy_parse, inline_comment_after_space_semicolon)
{
	struct policy *p = compile_ini("[sandbox]\nisolation = strict ; no workspace writes\n"
				       "[filesystem]\ndeny_read = /srv/a ; the secrets\n");

	cr_assert_eq(policy_isolation(p), SBX_ISOLATION_STRICT);
	cr_assert_not_null(find_rule(p, SBX_RULE_DENY_READ, "/srv/a"));
	assert_verdict(p, SBX_OP_READ, "/srv/a", SBX_DENY);
	policy_free(p);
}

/* The reader hands inih a long line in pieces split at commas: a comment
 * must not be one of them (its rest was read as a section and a setting;
 * sbxctl import-srt writes the input's file name into one). */
Test(policy_parse, a_long_comment_holding_commas_stays_a_comment)
{
	char ini[1024], a[151], b[151];

	memset(a, 'a', 150);
	a[150] = '\0';
	memset(b, 'b', 150);
	b[150] = '\0';
	snprintf(ini, sizeof(ini), "; Converted from /tmp/%s,[filesystem]/%s,allow_write = ~ ;"
		 ".json by `sbxctl import-srt`.\n[sandbox]\nisolation = custom\n", a, b);
	struct policy *p = compile_ini(ini);

	cr_assert_null(find_rule(p, SBX_RULE_ALLOW_WRITE, "~"));
	assert_verdict(p, SBX_OP_WRITE, TEST_HOME "/x", SBX_DENY);
	policy_free(p);
}

Test(policy_parse, semicolon_without_space_is_part_of_the_value)
{
	struct policy *p = compile_ini("[filesystem]\ndeny_read = /srv/a;b\n");

	assert_verdict(p, SBX_OP_READ, "/srv/a;b", SBX_DENY);
	assert_verdict(p, SBX_OP_READ, "/srv/a", SBX_ALLOW);
	policy_free(p);
}

/* Scalars: the last one wins */

Test(policy_parse, scalar_last_wins_in_one_file)
{
	struct policy *p = compile_ini("[sandbox]\nisolation = strict\nisolation = custom\n"
				       "[limits]\nnofile = 10\nnofile = 20\n");

	cr_assert_eq(policy_isolation(p), SBX_ISOLATION_CUSTOM);
	cr_assert_eq(policy_limit(p, SBX_LIMIT_NOFILE), 20);
	policy_free(p);
}

Test(policy_parse, scalar_last_wins_across_sections_repeated)
{
	struct policy *p = compile_ini("[sandbox]\nworkspace = /a\n[env]\nhome = ephemeral\n"
				       "[sandbox]\nworkspace = /b\n");

	cr_assert_str_eq(policy_workspace(p), "/b");
	cr_assert_eq(policy_home_mode(p), SBX_HOME_EPHEMERAL);
	policy_free(p);
}

Test(policy_parse, flag_replaces_a_scalar_from_the_file)
{
	struct policy_builder *b = builder_ini("[sandbox]\nworkspace = /a\n");

	builder_set(b, "sandbox", "workspace", "/b", SBX_ORIGIN_FLAG, "--workspace");
	struct policy *p = compile_builder(b);
	cr_assert_str_eq(policy_workspace(p), "/b");
	policy_free(p);
}

/* Names */

Test(policy_parse, rule_kinds_are_named_by_their_config_key)
{
	cr_assert_str_eq(sbx_rule_key(SBX_RULE_DENY_READ), "deny_read");
	cr_assert_str_eq(sbx_rule_key(SBX_RULE_ALLOW_READ), "allow_read");
	cr_assert_str_eq(sbx_rule_key(SBX_RULE_ALLOW_WRITE), "allow_write");
	cr_assert_str_eq(sbx_rule_key(SBX_RULE_DENY_WRITE), "deny_write");
	cr_assert_str_eq(sbx_rule_key(SBX_RULE_ALLOW_DOMAIN), "allow_domains");
	cr_assert_str_eq(sbx_rule_key(SBX_RULE_DENY_DOMAIN), "deny_domains");
	cr_assert_str_eq(sbx_rule_key(SBX_RULE_ALLOW_UNIX_SOCKET), "allow_unix_sockets");
	cr_assert_str_eq(sbx_rule_key(SBX_RULE_IGNORE_PATH), "ignore_paths");
	cr_assert_str_eq(sbx_rule_key(SBX_RULE_IGNORE_DOMAIN), "ignore_domains");
	cr_assert_str_eq(sbx_rule_key(SBX_RULE_DENY_ENV), "deny_env");
}

Test(policy_parse, ops_are_named)
{
	cr_assert_str_eq(sbx_op_name(SBX_OP_READ), "read");
	cr_assert_str_eq(sbx_op_name(SBX_OP_WRITE), "write");
	cr_assert_str_eq(sbx_op_name(SBX_OP_EXEC), "exec");
}
