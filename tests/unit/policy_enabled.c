/* tests/unit/policy_enabled.c: [sandbox] enabled (sbxctl enable/disable)
 * and the builder's scalar sources (sbxctl status). */
#include <errno.h>

#include "tests/unit/helpers.h"

Test(policy_enabled, on_by_default)
{
	struct policy *p = compile_ini("");

	cr_assert(policy_enabled(p));
	policy_free(p);
}

Test(policy_enabled, user_file_may_turn_it_off)
{
	struct policy *p = compile_ini("[sandbox]\nenabled = false\n");

	cr_assert_not(policy_enabled(p));
	policy_free(p);
}

Test(policy_enabled, project_file_may_not_turn_it_off)
{
	const char *e = compile_project_error("", "[sandbox]\nenabled = false\n");

	assert_contains(e, "project.ini:2");
	assert_contains(e, "would widen");
}

Test(policy_enabled, project_file_may_turn_it_back_on)
{
	struct policy *p = compile_ini_project("[sandbox]\nenabled = false\n",
					       "[sandbox]\nenabled = true\n");

	cr_assert(policy_enabled(p));
	policy_free(p);
}

Test(policy_enabled, bad_value_names_line_and_key)
{
	const char *e = compile_ini_error("[sandbox]\n\nenabled = maybe\n");

	assert_contains(e, "test.ini:3");
	assert_contains(e, "`enabled` must be true or false");
}

/* the early check before bubblewrap starts (config_user_disabled): the
 * file's `enabled` without the defaults, and such a builder is never a
 * policy (it would lack the credential table) */
Test(policy_enabled, bare_builder_reads_enabled_and_is_never_compiled)
{
	struct policy_builder *b = NULL;
	struct policy *p = NULL;
	struct sbx_err err = { .msg = "" };

	cr_assert_eq(policy_builder_new_bare(&test_ctx, &b), 0);
	cr_assert(policy_builder_enabled(b));
	cr_assert_eq(policy_builder_load_string(b, "[sandbox]\nenabled = false\n", TEST_DISPLAY,
						POLICY_LAYER_USER, &err), 0, "%s", err.msg);
	cr_assert_not(policy_builder_enabled(b));
	cr_assert_neq(policy_compile(b, &p, &err), 0);
	cr_assert_null(p);
	assert_contains(err.msg, "never compiled");
}

Test(policy_builder_scalar, names_where_a_scalar_was_set)
{
	struct policy_builder *b = builder_ini("[sandbox]\nisolation = strict\n");
	const char *v, *src;
	enum sbx_origin o;

	cr_assert_eq(policy_builder_scalar(b, "sandbox", "isolation", &v, &src, &o), 0);
	cr_assert_str_eq(v, "strict");
	cr_assert_str_eq(src, "test.ini:2");
	cr_assert_eq(o, SBX_ORIGIN_FILE);
	cr_assert_eq(policy_builder_scalar(b, "sandbox", "fallback", &v, &src, &o), 0);
	cr_assert_null(v);
	cr_assert_eq(policy_builder_scalar(b, "filesystem", "deny_read", &v, &src, &o), -ENOENT);
	policy_builder_free(b);
}

/* sbx-preload asks the user layer's builder before it starts bubblewrap:
 * its answer is the compiled policy's, in every spelling. */
Test(policy_enabled, builder_answers_as_the_compiled_policy)
{
	static const char *const ini[] = { "", "[sandbox]\nenabled = no\n",
					   "[sandbox]\nenabled = off\n",
					   "[sandbox]\nenabled = false\nenabled = true\n" };

	for (size_t i = 0; i < sizeof(ini) / sizeof(*ini); i++) {
		struct policy_builder *b = builder_ini(ini[i]);
		bool before = policy_builder_enabled(b);
		struct policy *p = compile_builder(b);
		cr_assert_eq(before, policy_enabled(p), "%s", ini[i]);
		policy_free(p);
	}
	struct policy_builder *b = builder_ini("[sandbox]\nenabled = 0\n");
	cr_assert_not(policy_builder_enabled(b));
	policy_builder_free(b);
}
