/* preload/mode.c: the "fail closed or warn" matrix (mode.h). Read it
 * top to bottom: the first row that applies decides. Two rules hold in
 * every row, and tests/unit/mode.c checks them over every combination of
 * the facts: a program runs without a sandbox only when the user said so
 * (--no-sandbox, SBX_NO_SANDBOX, enabled = false) or fallback = warn lets
 * a machine that cannot have the boundary run without it; and --learn and
 * --print never run a program without one. */
#include <stdio.h>

#include "preload/mode.h"

#define CHOICE(m, w) ((struct mode_choice){ .mode = (m), .why = (w) })

static struct mode_choice at_start(const struct mode_facts *f)
{
	/* the user's own word first */
	if (f->off_flag || f->off_env)
		return f->learn ? CHOICE(RUN_NOTHING, WHY_OFF_LEARN) :
		       f->print ? CHOICE(RUN_NOTHING, WHY_OFF_PRINT) :
				  CHOICE(RUN_PLAIN, WHY_OFF);
	if (f->disabled)
		return f->learn ? CHOICE(RUN_NOTHING, WHY_DISABLED_LEARN) :
		       f->print ? CHOICE(RUN_NOTHING, WHY_DISABLED_PRINT) :
				  CHOICE(RUN_PLAIN, WHY_DISABLED);
	/* both modes start COMMAND through sbx-init */
	if (!f->have_init)
		return CHOICE(RUN_NOTHING, WHY_NO_INIT);
	if (f->nested_env || f->nested_policy)
		return f->print ? CHOICE(RUN_NOTHING, WHY_NESTED_PRINT) :
		       CHOICE(RUN_NESTED, !f->nested_env ? WHY_NESTED_POLICY :
					  f->nested_auto ? WHY_NESTED_AUTO : WHY_NESTED_ASKED);
	if (f->have_bwrap)
		return CHOICE(RUN_BWRAP, WHY_BWRAP);
	/* no bubblewrap: a weaker sandbox rather than none, and none only
	 * where the user allowed it */
	if (f->print)
		return CHOICE(RUN_NOTHING, WHY_NO_BWRAP_PRINT);
	if (f->fallback_warn && !f->learn)
		return f->landlock ? CHOICE(RUN_NESTED, WHY_NESTED_NO_BWRAP) :
				     CHOICE(RUN_PLAIN, WHY_NO_BWRAP_WARN);
	return f->bwrap_env ? CHOICE(RUN_NOTHING, WHY_BWRAP_ENV) : CHOICE(RUN_NOTHING, WHY_NO_BWRAP);
}

static struct mode_choice sandbox_failed(const struct mode_facts *f)
{
	if (f->nested)
		return CHOICE(RUN_NOTHING, WHY_NESTED_FAILED);
	/* fallback = warn is for a machine where the boundary cannot exist
	 * at all, never for one of ours that failed: sbx-init ran (its
	 * namespaces stood) or a bare bubblewrap works */
	if (!f->fallback_warn || f->learn || f->print)
		return CHOICE(RUN_NOTHING, WHY_FAILED);
	if (f->init_ran)
		return CHOICE(RUN_NOTHING, WHY_FAILED_WORKS);
	switch (f->probe ? f->probe(f->probe_ctx) : BWRAP_UNKNOWN) {
	case BWRAP_CANNOT:
		return f->landlock ? CHOICE(RUN_RESTART_NESTED, WHY_BWRAP_CANNOT_NESTED) :
				     CHOICE(RUN_PLAIN, WHY_BWRAP_CANNOT_WARN);
	case BWRAP_WORKS:
		return CHOICE(RUN_NOTHING, WHY_FAILED_WORKS);
	default:
		return CHOICE(RUN_NOTHING, WHY_FAILED_UNKNOWN);
	}
}

struct mode_choice mode_decide(const struct mode_facts *f)
{
	/* (--print runs nothing to weaken: a caller that asks anyway is
	 * told no) */
	bool may_weaken = f->fallback_warn && !f->learn && !f->print;

	switch (f->stage) {
	case MODE_AT_START:
		return at_start(f);
	case MODE_NESTED_UNFIT:
		return may_weaken ? CHOICE(RUN_PLAIN, WHY_NESTED_UNFIT_WARN) :
				    CHOICE(RUN_NOTHING, WHY_NESTED_UNFIT);
	case MODE_PART_MISSING:
		return may_weaken ? CHOICE(RUN_DEGRADED, WHY_PART_WARN) :
				    CHOICE(RUN_NOTHING, WHY_PART_MISSING);
	case MODE_SANDBOX_FAILED:
		return sandbox_failed(f);
	}
	return CHOICE(RUN_NOTHING, WHY_FAILED);
}

void mode_text(struct mode_choice c, const struct mode_facts *f, const struct mode_words *w,
	       char *out, size_t outsz)
{
	const char *off = f->off_flag ? "--no-sandbox" : "SBX_NO_SANDBOX";
	const char *file = w && w->user_file && *w->user_file ? w->user_file : "the config";
	const char *detail = w && w->detail ? w->detail : "";
	const char *part = w && w->part ? w->part : "a part of the sandbox";

	switch (c.why) {
	case WHY_BWRAP:
		snprintf(out, outsz, "bubblewrap");
		return;
	case WHY_OFF:
		snprintf(out, outsz, "%s", off);
		return;
	case WHY_OFF_LEARN:
		snprintf(out, outsz, "--learn never runs a program outside the sandbox; drop %s", off);
		return;
	case WHY_OFF_PRINT:
		snprintf(out, outsz, "--print shows the sandbox's command line, and %s turns "
			 "the sandbox off; nothing was run", off);
		return;
	case WHY_DISABLED:
	case WHY_DISABLED_LEARN:
	case WHY_DISABLED_PRINT:
		snprintf(out, outsz, "sandboxing is disabled by `enabled = false` in %s; "
			 "`sbxctl enable` turns it back on%s", file,
			 c.why == WHY_DISABLED_LEARN ? ": --learn never runs a program "
						       "outside the sandbox" :
			 c.why == WHY_DISABLED_PRINT ? ": --print never runs a program "
						       "outside the sandbox" : "");
		return;
	case WHY_NO_INIT:
		snprintf(out, outsz, "sbx-init is missing (looked next to sbx-preload and in "
			 "../lib/sbx/); reinstall sbx");
		return;
	case WHY_NESTED_ASKED:
		snprintf(out, outsz, "SBX_NESTED is set");
		return;
	case WHY_NESTED_AUTO:
		snprintf(out, outsz, "bubblewrap cannot make namespaces here; fallback = warn");
		return;
	case WHY_NESTED_POLICY:
		snprintf(out, outsz, "nested = true");
		return;
	case WHY_NESTED_NO_BWRAP:
	case WHY_NO_BWRAP_WARN:
		snprintf(out, outsz, "bubblewrap is not installed; fallback = warn");
		return;
	case WHY_NESTED_PRINT:
		snprintf(out, outsz, "--print shows bubblewrap's command line, and the nested "
			 "mode runs without bubblewrap; nothing was run");
		return;
	case WHY_NO_BWRAP_PRINT:
		snprintf(out, outsz, "--print shows bubblewrap's command line, and bubblewrap "
			 "(bwrap) is not installed; nothing was run");
		return;
	case WHY_BWRAP_ENV:
		snprintf(out, outsz, "SBX_BWRAP names %s, which is not an executable file, so "
			 "there is no sandbox; nothing was run", w && w->bwrap_env ? w->bwrap_env : "");
		return;
	case WHY_NO_BWRAP:
		snprintf(out, outsz, "bubblewrap (bwrap) is not installed (looked in /usr/bin, "
			 "/usr/local/bin and /bin, never in PATH; SBX_BWRAP=/path/to/bwrap "
			 "names another), so there is no sandbox; nothing was run. Install "
			 "it: sudo apt-get install bubblewrap (or set fallback = warn in "
			 "[sandbox] to run unsandboxed)");
		return;
	case WHY_NESTED_UNFIT_WARN:
		snprintf(out, outsz, "the nested mode cannot run: %s; fallback = warn", detail);
		return;
	case WHY_NESTED_UNFIT:
		snprintf(out, outsz, "the nested mode cannot run: %s; nothing was run", detail);
		return;
	case WHY_PART_WARN:
		snprintf(out, outsz, "%s %s: %s (fallback = warn)", part,
			 w && w->not_done ? w->not_done : "not enforced", detail);
		return;
	case WHY_PART_MISSING:
		snprintf(out, outsz, "%s %s: %s; nothing was run (remove %s, or set fallback = "
			 "warn in [sandbox] to run without it)", part,
			 w && w->cannot ? w->cannot : "cannot be enforced here", detail,
			 w && w->remove ? w->remove : "it");
		return;
	case WHY_NESTED_FAILED:
		snprintf(out, outsz, "the nested sandbox could not be set up (its message is "
			 "above); nothing was run");
		return;
	case WHY_BWRAP_CANNOT_NESTED:
	case WHY_BWRAP_CANNOT_WARN:
		snprintf(out, outsz, "bubblewrap cannot run on this machine; fallback = warn");
		return;
	case WHY_FAILED:
		snprintf(out, outsz, "%s", "");
		return;
	case WHY_FAILED_WORKS:
		snprintf(out, outsz, "fallback = warn does not apply: bubblewrap works on this "
			 "machine, this sandbox failed after it started");
		return;
	case WHY_FAILED_UNKNOWN:
		snprintf(out, outsz, "fallback = warn does not apply: whether bubblewrap can "
			 "run here could not be told (out of processes or memory?)");
		return;
	}
	snprintf(out, outsz, "?");
}
