/* tests/unit/sbxctl_config.c: the pieces of sbxctl that edit a
 * sandbox.ini and read --since (cli/sbxctl.h). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>

#include "tests/unit/helpers.h"
#include "cli/sbxctl.h"

struct enabled_case {
	const char *in, *value, *out;
};

/* enable/disable change one line and keep every other byte */
static struct enabled_case enabled_cases[] = {
	{ "", "false", "[sandbox]\nenabled = false\n\n" },
	{ "[sandbox]\nisolation = strict\n", "false",
	  "[sandbox]\nisolation = strict\nenabled = false\n" },
	{ "[sandbox]\nenabled = true\n; mine\n", "false",
	  "[sandbox]\nenabled = false\n; mine\n" },
	{ "[sandbox]\n  enabled=false\n[network]\nallow_domains = *\n", "true",
	  "[sandbox]\nenabled = true\n[network]\nallow_domains = *\n" },
	/* a second `enabled` line (the last would win) goes too */
	{ "[sandbox]\nenabled = true\nenabled = true\n", "false",
	  "[sandbox]\nenabled = false\n" },
	/* `enabled` in another section is not ours */
	{ "[network]\nenabled = true\n", "false",
	  "[sandbox]\nenabled = false\n\n[network]\nenabled = true\n" },
	{ "[filesystem]\ndeny_read = ~/x\n[sandbox]\nfallback = warn", "false",
	  "[filesystem]\ndeny_read = ~/x\n[sandbox]\nfallback = warn\nenabled = false\n" },
	{ "[sandbox]\nenabled_extra = 1\n", "true",
	  "[sandbox]\nenabled_extra = 1\nenabled = true\n" },
};

ParameterizedTestParameters(sbxctl_enable, edits_one_line)
{
	return cr_make_param_array(struct enabled_case, enabled_cases, ARRAY_LEN(enabled_cases));
}

ParameterizedTest(struct enabled_case *c, sbxctl_enable, edits_one_line)
{
	char *out = ctl_set_enabled(c->in, c->value);

	cr_assert_not_null(out);
	cr_assert_str_eq(out, c->out, "in:\n%s\n", c->in);
	free(out);
}

Test(sbxctl_enable, result_loads_and_says_what_was_asked)
{
	char *out = ctl_set_enabled("[sandbox]\nisolation = strict\n", "false");
	struct policy *p = compile_ini(out);

	cr_assert_not(policy_enabled(p));
	cr_assert_eq(policy_isolation(p), SBX_ISOLATION_STRICT);
	policy_free(p);
	free(out);
}

struct since_case {
	const char *in, *out; /* out NULL: refused */
};

static struct since_case since_cases[] = {
	{ "2026-11-27", "2026-11-27" },
	{ "2026-11-27T10:00", "2026-11-27T10:00" },
	{ "2026-11-27 10:00:05", "2026-11-27T10:00:05" },
	{ "2026", "2026" },
	{ "yesterday", NULL },
	{ "10x", NULL },
	{ "2026-11-27T10:00:05.123", NULL },
	{ "2026/11/27", NULL },
	{ "", NULL },
};

ParameterizedTestParameters(sbxctl_log, since_takes_a_utc_time_prefix)
{
	return cr_make_param_array(struct since_case, since_cases, ARRAY_LEN(since_cases));
}

ParameterizedTest(struct since_case *c, sbxctl_log, since_takes_a_utc_time_prefix)
{
	char out[40];
	int rc = ctl_parse_since(c->in, out, sizeof(out));

	if (!c->out) {
		cr_assert_eq(rc, -1, "`%s` accepted as %s", c->in, out);
		return;
	}
	cr_assert_eq(rc, 0, "`%s` refused", c->in);
	cr_assert_str_eq(out, c->out);
}

Test(sbxctl_log, since_an_age_is_a_time_in_the_past)
{
	char now[40], hour[40];

	cr_assert_eq(ctl_parse_since("0s", now, sizeof(now)), 0);
	cr_assert_eq(ctl_parse_since("1h", hour, sizeof(hour)), 0);
	cr_assert_eq(strlen(now), 19);
	cr_assert(strcmp(hour, now) < 0, "%s before %s", hour, now);
}
