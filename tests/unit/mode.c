/* preload/mode.c: the "fail closed or warn" matrix. One row per line of
 * docs/SECURITY.md's table, then the two rules of the matrix checked over
 * every combination of the facts: a program runs without a sandbox only
 * when the user said so or fallback = warn lets a machine without the
 * boundary run; --learn and --print never run one without it. */
#include <string.h>

/* a row says what differs from a machine with everything */
#pragma GCC diagnostic ignored "-Woverride-init"

#include "tests/unit/helpers.h"
#include "preload/mode.h"

static int probes;
static enum bwrap_probe probe_answer;

static enum bwrap_probe fake_probe(void *ctx)
{
	(void)ctx;
	probes++;
	return probe_answer;
}

/* the facts of a machine with everything: bubblewrap, sbx-init, Landlock */
#define HERE .have_bwrap = true, .have_init = true, .landlock = true, .probe = fake_probe

struct row {
	const char *name;
	struct mode_facts f;
	enum bwrap_probe probe;
	enum run_mode mode;
	enum mode_reason why;
	const char *says; /* in mode_text() */
};

static const struct row rows[] = {
	{ "bubblewrap", { HERE }, 0, RUN_BWRAP, WHY_BWRAP, "bubblewrap" },
	{ "--no-sandbox", { HERE, .off_flag = true }, 0, RUN_PLAIN, WHY_OFF, "--no-sandbox" },
	{ "SBX_NO_SANDBOX", { HERE, .off_env = true }, 0, RUN_PLAIN, WHY_OFF, "SBX_NO_SANDBOX" },
	{ "off, --learn", { HERE, .off_flag = true, .learn = true }, 0, RUN_NOTHING,
	  WHY_OFF_LEARN, "--learn never runs a program outside the sandbox; drop --no-sandbox" },
	{ "off, --print", { HERE, .off_env = true, .print = true }, 0, RUN_NOTHING,
	  WHY_OFF_PRINT, "SBX_NO_SANDBOX turns the sandbox off; nothing was run" },
	{ "off without bubblewrap", { .off_flag = true }, 0, RUN_PLAIN, WHY_OFF, "--no-sandbox" },
	{ "enabled = false", { HERE, .disabled = true }, 0, RUN_PLAIN, WHY_DISABLED,
	  "disabled by `enabled = false` in u.ini; `sbxctl enable` turns it back on" },
	{ "enabled = false, --learn", { HERE, .disabled = true, .learn = true }, 0, RUN_NOTHING,
	  WHY_DISABLED_LEARN, "--learn never runs a program outside the sandbox" },
	{ "enabled = false, --print", { HERE, .disabled = true, .print = true }, 0, RUN_NOTHING,
	  WHY_DISABLED_PRINT, "--print never runs a program outside the sandbox" },
	{ "no sbx-init", { HERE, .have_init = false, .fallback_warn = true }, 0, RUN_NOTHING,
	  WHY_NO_INIT, "sbx-init is missing" },
	{ "SBX_NESTED=1", { HERE, .nested_env = true }, 0, RUN_NESTED, WHY_NESTED_ASKED,
	  "SBX_NESTED is set" },
	{ "our restart", { HERE, .nested_env = true, .nested_auto = true }, 0, RUN_NESTED,
	  WHY_NESTED_AUTO, "bubblewrap cannot make namespaces here; fallback = warn" },
	{ "nested = true", { HERE, .nested_policy = true }, 0, RUN_NESTED, WHY_NESTED_POLICY,
	  "nested = true" },
	{ "nested, --print", { HERE, .nested_policy = true, .print = true }, 0, RUN_NOTHING,
	  WHY_NESTED_PRINT, "the nested mode runs without bubblewrap; nothing was run" },
	{ "no bubblewrap, warn, Landlock", { HERE, .have_bwrap = false, .fallback_warn = true }, 0,
	  RUN_NESTED, WHY_NESTED_NO_BWRAP, "bubblewrap is not installed; fallback = warn" },
	{ "no bubblewrap, warn, no Landlock",
	  { HERE, .have_bwrap = false, .landlock = false, .fallback_warn = true }, 0, RUN_PLAIN,
	  WHY_NO_BWRAP_WARN, "bubblewrap is not installed; fallback = warn" },
	{ "no bubblewrap, warn, --learn",
	  { HERE, .have_bwrap = false, .fallback_warn = true, .learn = true }, 0, RUN_NOTHING,
	  WHY_NO_BWRAP, "Install it: sudo apt-get install bubblewrap" },
	{ "no bubblewrap, warn, --print",
	  { HERE, .have_bwrap = false, .fallback_warn = true, .print = true }, 0, RUN_NOTHING,
	  WHY_NO_BWRAP_PRINT, "bubblewrap (bwrap) is not installed; nothing was run" },
	{ "no bubblewrap", { HERE, .have_bwrap = false }, 0, RUN_NOTHING, WHY_NO_BWRAP,
	  "never in PATH" },
	{ "SBX_BWRAP names nothing", { HERE, .have_bwrap = false, .bwrap_env = true }, 0,
	  RUN_NOTHING, WHY_BWRAP_ENV, "SBX_BWRAP names /x/bwrap, which is not an executable" },
	{ "nested unfit, warn", { HERE, .stage = MODE_NESTED_UNFIT, .fallback_warn = true }, 0,
	  RUN_PLAIN, WHY_NESTED_UNFIT_WARN, "the nested mode cannot run: DETAIL; fallback = warn" },
	{ "nested unfit", { HERE, .stage = MODE_NESTED_UNFIT }, 0, RUN_NOTHING, WHY_NESTED_UNFIT,
	  "the nested mode cannot run: DETAIL; nothing was run" },
	{ "nested unfit, warn, --learn",
	  { HERE, .stage = MODE_NESTED_UNFIT, .fallback_warn = true, .learn = true }, 0,
	  RUN_NOTHING, WHY_NESTED_UNFIT, "nothing was run" },
	{ "part missing, warn", { HERE, .stage = MODE_PART_MISSING, .fallback_warn = true }, 0,
	  RUN_DEGRADED, WHY_PART_WARN, "PART not enforced: DETAIL (fallback = warn)" },
	{ "part missing", { HERE, .stage = MODE_PART_MISSING }, 0, RUN_NOTHING, WHY_PART_MISSING,
	  "PART cannot be enforced here: DETAIL; nothing was run (remove REMOVE, or set "
	  "fallback = warn" },
	{ "part missing, warn, --learn",
	  { HERE, .stage = MODE_PART_MISSING, .fallback_warn = true, .learn = true }, 0,
	  RUN_NOTHING, WHY_PART_MISSING, "nothing was run" },
	{ "nested failed", { HERE, .stage = MODE_SANDBOX_FAILED, .nested = true,
			     .fallback_warn = true }, BWRAP_CANNOT, RUN_NOTHING,
	  WHY_NESTED_FAILED, "the nested sandbox could not be set up" },
	{ "failed", { HERE, .stage = MODE_SANDBOX_FAILED }, BWRAP_CANNOT, RUN_NOTHING,
	  WHY_FAILED, "" },
	{ "failed, warn, --learn", { HERE, .stage = MODE_SANDBOX_FAILED, .fallback_warn = true,
				     .learn = true }, BWRAP_CANNOT, RUN_NOTHING, WHY_FAILED, "" },
	{ "failed after sbx-init ran, warn",
	  { HERE, .stage = MODE_SANDBOX_FAILED, .fallback_warn = true, .init_ran = true },
	  BWRAP_CANNOT, RUN_NOTHING, WHY_FAILED_WORKS, "fallback = warn does not apply" },
	{ "failed, warn, bubblewrap works",
	  { HERE, .stage = MODE_SANDBOX_FAILED, .fallback_warn = true }, BWRAP_WORKS,
	  RUN_NOTHING, WHY_FAILED_WORKS, "bubblewrap works on this machine" },
	{ "failed, warn, cannot tell", { HERE, .stage = MODE_SANDBOX_FAILED, .fallback_warn = true },
	  BWRAP_UNKNOWN, RUN_NOTHING, WHY_FAILED_UNKNOWN, "could not be told" },
	{ "failed, warn, cannot, Landlock",
	  { HERE, .stage = MODE_SANDBOX_FAILED, .fallback_warn = true }, BWRAP_CANNOT,
	  RUN_RESTART_NESTED, WHY_BWRAP_CANNOT_NESTED, "bubblewrap cannot run on this machine" },
	{ "failed, warn, cannot, no Landlock",
	  { HERE, .stage = MODE_SANDBOX_FAILED, .fallback_warn = true, .landlock = false },
	  BWRAP_CANNOT, RUN_PLAIN, WHY_BWRAP_CANNOT_WARN, "bubblewrap cannot run on this machine" },
};

static const struct mode_words words = { .user_file = "u.ini", .bwrap_env = "/x/bwrap",
					 .detail = "DETAIL", .part = "PART",
					 .remove = "REMOVE" };

Test(mode, every_row_of_the_matrix)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		char text[1024];

		probe_answer = r->probe;
		struct mode_choice c = mode_decide(&r->f);
		mode_text(c, &r->f, &words, text, sizeof(text));
		cr_expect_eq(c.mode, r->mode, "%s: mode %d, expected %d", r->name, c.mode, r->mode);
		cr_expect_eq(c.why, r->why, "%s: why %d, expected %d", r->name, c.why, r->why);
		if (*r->says)
			cr_expect(strstr(text, r->says), "%s: \"%s\" lacks \"%s\"", r->name, text,
				  r->says);
		else
			cr_expect_str_empty(text, "%s: \"%s\"", r->name, text);
	}
}

/* facts from the bits of n */
static struct mode_facts facts_of(unsigned n, enum mode_stage stage)
{
	struct mode_facts f = {
		.stage = stage, .probe = fake_probe,
		.off_flag = n & 1, .off_env = n & 2, .disabled = n & 4, .learn = n & 8,
		.print = n & 16, .nested_env = n & 32, .nested_auto = (n & 32) && (n & 64),
		.nested_policy = n & 128, .have_bwrap = n & 256, .bwrap_env = n & 512,
		.have_init = n & 1024, .fallback_warn = n & 2048, .landlock = n & 4096,
		.nested = n & 8192, .init_ran = n & 16384,
	};
	return f;
}

Test(mode, no_sandbox_only_when_the_user_said_so_or_fallback_warn)
{
	static const enum mode_stage stages[] = { MODE_AT_START, MODE_NESTED_UNFIT,
						  MODE_PART_MISSING, MODE_SANDBOX_FAILED };
	unsigned seen[RUN_NOTHING + 1] = { 0 };

	for (size_t s = 0; s < sizeof(stages) / sizeof(stages[0]); s++)
		for (unsigned n = 0; n < 32768; n++)
			for (int a = BWRAP_WORKS; a <= BWRAP_UNKNOWN; a++) {
				struct mode_facts f = facts_of(n, stages[s]);
				bool said_off = f.off_flag || f.off_env || f.disabled;
				char text[1024];

				probe_answer = a;
				probes = 0;
				struct mode_choice c = mode_decide(&f);
				seen[c.mode]++;
				mode_text(c, &f, &words, text, sizeof(text));
				/* weaker than asked: only by the user's word or fallback = warn */
				if (c.mode == RUN_PLAIN || c.mode == RUN_RESTART_NESTED ||
				    c.mode == RUN_DEGRADED)
					cr_assert((said_off || f.fallback_warn) && !f.learn && !f.print,
						  "facts %#x stage %zu: mode %d", n, s, c.mode);
				if (c.mode == RUN_RESTART_NESTED)
					cr_assert(f.landlock && f.fallback_warn, "facts %#x", n);
				/* a sandbox needs its parts */
				if (c.mode == RUN_BWRAP)
					cr_assert(f.have_bwrap && f.have_init && !said_off,
						  "facts %#x", n);
				if (c.mode == RUN_NESTED)
					cr_assert(f.have_init && !said_off && !f.print &&
						  (f.nested_env || f.nested_policy ||
						   (f.fallback_warn && f.landlock && !f.learn)),
						  "facts %#x", n);
				/* bubblewrap is probed only when the answer depends on it */
				cr_assert_leq(probes, 1);
				if (probes)
					cr_assert(stages[s] == MODE_SANDBOX_FAILED && !f.nested &&
						  f.fallback_warn && !f.learn && !f.init_ran,
						  "facts %#x probed", n);
				/* every answer is worded, but a failure's note */
				if (c.why != WHY_FAILED)
					cr_assert(text[0] && !strchr(text, '%'), "facts %#x: \"%s\"",
						  n, text);
			}
	/* and every kind of answer happens */
	for (int m = RUN_BWRAP; m <= RUN_NOTHING; m++)
		cr_assert_gt(seen[m], 0, "mode %d never chosen", m);
}
