/* tests/unit/policy_errors.c: a bad sandbox.ini is refused with a message
 * naming the file, the line, the key and what was expected, and the nearest
 * known key when the key is unknown (docs/POLICY.md "Syntax"). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/unit/helpers.h"

/* Unknown keys suggest the nearest known one. */

struct suggest_case {
	const char *ini;
	const char *where; /* "test.ini:LINE:" */
	const char *typo;
	const char *suggestion;
};

ParameterizedTestParameters(policy_errors, unknown_key_suggests_nearest)
{
	static struct suggest_case cases[] = {
		{ "[filesystem]\n; comment\ndeny_reads = ~/.secret\n",
		  "test.ini:3:", "deny_reads", "did you mean `deny_read`" },
		{ "[filesystem]\nalow_write = /srv\n",
		  "test.ini:2:", "alow_write", "did you mean `allow_write`" },
		{ "[sandbox]\nworkspace = /w\nisolaton = strict\n",
		  "test.ini:3:", "isolaton", "did you mean `isolation`" },
		{ "[network]\n\n\ndeny_domain = evil.test\n",
		  "test.ini:4:", "deny_domain", "did you mean `deny_domains`" },
		{ "[limits]\nmemroy = 1G\n",
		  "test.ini:2:", "memroy", "did you mean `memory`" },
		{ "[env]\ndeny_envs = X\n",
		  "test.ini:2:", "deny_envs", "did you mean `deny_env`" },
		{ "[report]\nignore_path = /w/build\n",
		  "test.ini:2:", "ignore_path", "did you mean `ignore_paths`" },
	};
	return cr_make_param_array(struct suggest_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct suggest_case *c, policy_errors, unknown_key_suggests_nearest)
{
	const char *msg = compile_ini_error(c->ini);

	assert_contains(msg, c->where);
	assert_contains(msg, c->typo);
	assert_contains(msg, c->suggestion);
}

Test(policy_errors, unknown_key_message_reads_as_documented)
{
	struct policy_builder *b = builder_ini(NULL);
	struct sbx_err err = { .msg = "" };
	int rc = policy_builder_load_string(b, "[filesystem]\ndeny_read = ~/.a\n"
					    "allow_read = ~/.a/b\ndeny_reads = ~/.c\n",
					    "~/.config/sbx/sandbox.ini", POLICY_LAYER_USER, &err);

	cr_assert_eq(rc, -EINVAL);
	assert_contains(err.msg, "~/.config/sbx/sandbox.ini:4: unknown key `deny_reads` "
				 "in [filesystem] (did you mean `deny_read`?)");
	policy_builder_free(b);
}

Test(policy_errors, unknown_key_names_its_section)
{
	const char *msg = compile_ini_error("[filesystem]\ndeny_reads = ~/.secret\n");

	assert_contains(msg, "unknown key `deny_reads` in [filesystem]");
}

/* Every other kind of mistake: file:line, the key, and for values what was
 * written. */

struct error_case {
	const char *name;
	const char *ini;
	const char *where;
	const char *key;
	const char *value; /* must appear in the message; NULL: not checked */
};

ParameterizedTestParameters(policy_errors, bad_line_is_named)
{
	static struct error_case cases[] = {
		{ "key in the wrong section",
		  "[network]\ndeny_read = ~/.secret\n", "test.ini:2:", "deny_read", NULL },
		{ "filesystem key in [sandbox]",
		  "[sandbox]\nisolation = strict\nallow_write = /srv\n", "test.ini:3:", "allow_write", NULL },
		{ "key before any section",
		  "deny_read = /srv\n", "test.ini:1:", "deny_read", NULL },
		{ "bad boolean",
		  "[sandbox]\nnested = maybe\n", "test.ini:2:", "nested", "maybe" },
		{ "bad boolean in [network]",
		  "[network]\n\nallow_all_unix_sockets = enabled\n", "test.ini:3:", "allow_all_unix_sockets", "enabled" },
		{ "bad size suffix",
		  "[limits]\nmemory = 12Q\n", "test.ini:2:", "memory", "12Q" },
		{ "size without a number",
		  "[limits]\nmemory = G\n", "test.ini:2:", "memory", NULL },
		{ "negative size",
		  "[limits]\nmemory = -1G\n", "test.ini:2:", "memory", NULL },
		{ "size that overflows 64 bits",
		  "[limits]\nmemory = 99999999999T\n", "test.ini:2:", "memory", NULL },
		{ "zero count",
		  "[limits]\npids = 0\n", "test.ini:2:", "pids", NULL },
		{ "negative count",
		  "[limits]\ncpu_seconds = -5\n", "test.ini:2:", "cpu_seconds", NULL },
		{ "count with junk",
		  "[limits]\nnofile = 10x\n", "test.ini:2:", "nofile", "10x" },
		{ "port zero",
		  "[network]\nhttp_proxy_port = 0\n", "test.ini:2:", "http_proxy_port", NULL },
		{ "port above 65535",
		  "[network]\nsocks_proxy_port = 65536\n", "test.ini:2:", "socks_proxy_port", "65536" },
		{ "port not a number",
		  "[network]\nhttp_proxy_port = http\n", "test.ini:2:", "http_proxy_port", "http" },
		{ "bad isolation",
		  "[sandbox]\n\nisolation = loose\n", "test.ini:3:", "isolation", "loose" },
		{ "bad fallback",
		  "[sandbox]\nfallback = ignore\n", "test.ini:2:", "fallback", "ignore" },
		{ "bad home",
		  "[env]\nhome = tmp\n", "test.ini:2:", "home", "tmp" },
		{ "error after several sections",
		  "[sandbox]\nisolation = strict\n[filesystem]\ndeny_read = /srv\n; x\n[limits]\npids = many\n",
		  "test.ini:7:", "pids", "many" },
	};
	return cr_make_param_array(struct error_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct error_case *c, policy_errors, bad_line_is_named)
{
	const char *msg = compile_ini_error(c->ini);

	cr_assert(strstr(msg, c->where), "%s: \"%s\" lacks \"%s\"", c->name, msg, c->where);
	cr_assert(strstr(msg, c->key), "%s: \"%s\" lacks \"%s\"", c->name, msg, c->key);
	if (c->value)
		cr_assert(strstr(msg, c->value), "%s: \"%s\" lacks \"%s\"", c->name,
			  msg, c->value);
}

Test(policy_errors, bad_isolation_says_what_was_expected)
{
	const char *msg = compile_ini_error("[sandbox]\nisolation = loose\n");

	assert_contains(msg, "test.ini:2:");
	assert_contains(msg, "`isolation` must be strict, workspace or custom, not `loose`");
}

Test(policy_errors, unknown_section_is_named)
{
	const char *msg = compile_ini_error("[filesytem]\ndeny_read = /srv\n");

	assert_contains(msg, "filesytem");
	/* Either the header line or the first key under it. */
	cr_assert(strstr(msg, "test.ini:1:") || strstr(msg, "test.ini:2:"),
		  "\"%s\" names neither line 1 nor line 2", msg);
}

Test(policy_errors, load_string_returns_einval)
{
	struct policy_builder *b = builder_ini(NULL);
	struct sbx_err err = { .msg = "" };

	cr_assert_eq(policy_builder_load_string(b, "[sandbox]\nisolation = loose\n",
						TEST_DISPLAY, POLICY_LAYER_USER, &err),
		     -EINVAL);
	policy_builder_free(b);
}

Test(policy_errors, valid_lines_before_an_error_do_not_hide_it)
{
	const char *msg = compile_ini_error("[filesystem]\ndeny_read = /srv\n"
					    "deny_read = /opt\nallow_write = /data\n"
					    "deny_wirte = /x\n");

	assert_contains(msg, "test.ini:5:");
	assert_contains(msg, "deny_wirte");
}

Test(policy_errors, builder_set_refuses_a_bad_value)
{
	struct policy_builder *b = builder_ini(NULL);
	struct sbx_err err = { .msg = "" };
	int rc = policy_builder_set(b, "sandbox", "isolation", "loose",
				    SBX_ORIGIN_FLAG, "--isolation", &err);

	cr_assert_lt(rc, 0);
	assert_contains(err.msg, "isolation");
	assert_contains(err.msg, "loose");
	policy_builder_free(b);
}

Test(policy_errors, builder_set_refuses_an_unknown_key)
{
	struct policy_builder *b = builder_ini(NULL);
	struct sbx_err err = { .msg = "" };
	int rc = policy_builder_set(b, "filesystem", "deny_reads", "/x",
				    SBX_ORIGIN_FLAG, "--deny-read", &err);

	cr_assert_lt(rc, 0);
	policy_builder_free(b);
}

/* Files on disk */

Test(policy_errors, missing_file_is_enoent_and_leaves_err_untouched)
{
	struct policy_builder *b = builder_ini(NULL);
	struct sbx_err err;

	strcpy(err.msg, "untouched");
	cr_assert_eq(policy_builder_load_file(b, "/nonexistent-sbx-test/sandbox.ini",
					      "sandbox.ini", POLICY_LAYER_USER, &err),
		     -ENOENT);
	cr_assert_str_eq(err.msg, "untouched");
	policy_builder_free(b);
}

Test(policy_errors, file_on_disk_error_names_its_path_and_line)
{
	char *dir = make_tmpdir();
	char path[4096];
	char where[4200];
	struct policy_builder *b = builder_ini(NULL);
	struct sbx_err err = { .msg = "" };

	snprintf(path, sizeof(path), "%s/sandbox.ini", dir);
	write_file(path, "[filesystem]\ndeny_read = /srv\n\n[sandbox]\nisolation = loose\n");
	int rc = policy_builder_load_file(b, path, path, POLICY_LAYER_USER, &err);
	remove_tree(dir);

	cr_assert_eq(rc, -EINVAL);
	snprintf(where, sizeof(where), "%s:5:", path);
	assert_contains(err.msg, where);
	assert_contains(err.msg, "isolation");
	policy_builder_free(b);
	free(dir);
}

Test(policy_errors, file_error_uses_the_display_name)
{
	char *dir = make_tmpdir();
	char path[4096];
	struct policy_builder *b = builder_ini(NULL);
	struct sbx_err err = { .msg = "" };

	snprintf(path, sizeof(path), "%s/sandbox.ini", dir);
	write_file(path, "[filesystem]\ndeny_reads = /srv\n");
	int rc = policy_builder_load_file(b, path, "~/.config/sbx/sandbox.ini",
					  POLICY_LAYER_USER, &err);
	remove_tree(dir);

	cr_assert_eq(rc, -EINVAL);
	assert_contains(err.msg, "~/.config/sbx/sandbox.ini:2:");
	assert_not_contains(err.msg, dir);
	policy_builder_free(b);
	free(dir);
}

Test(policy_errors, good_file_on_disk_loads_with_file_line_sources)
{
	char *dir = make_tmpdir();
	char path[4096];
	struct policy_builder *b = builder_ini(NULL);
	struct sbx_err err = { .msg = "" };

	snprintf(path, sizeof(path), "%s/sandbox.ini", dir);
	write_file(path, "; mine\n[filesystem]\ndeny_read = /srv/secret\n");
	int rc = policy_builder_load_file(b, path, "my.ini", POLICY_LAYER_USER, &err);
	remove_tree(dir);

	cr_assert_eq(rc, 0, "%s", err.msg);
	struct policy *p = compile_builder(b);
	const struct sbx_rule *why = check_why(p, SBX_OP_READ, "/srv/secret/x", SBX_DENY);
	cr_assert_not_null(why);
	cr_assert_str_eq(why->source, "my.ini:3");
	cr_assert_eq(why->origin, SBX_ORIGIN_FILE);
	policy_free(p);
	free(dir);
}
