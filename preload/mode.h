/* preload/mode.h: which sandbox a run gets, or none. The "fail closed
 * or warn" matrix of docs/SECURITY.md in one pure function: main() gathers
 * the facts, asks at the moments below, and does what the answer says.
 * tests/unit/mode.c holds every row. */
#ifndef SBX_MODE_H
#define SBX_MODE_H

#include <stdbool.h>
#include <stddef.h>

#include "common/probe.h"

enum mode_stage {
	MODE_AT_START,       /* the policy is compiled, nothing runs yet */
	MODE_NESTED_UNFIT,   /* the nested mode was chosen; nested_check said no */
	MODE_PART_MISSING,   /* a part the policy asks for cannot be had here
			      * (a [limits] limit, host_ports in the nested mode) */
	MODE_SANDBOX_FAILED, /* the sandbox failed before COMMAND ran */
};

struct mode_facts {
	enum mode_stage stage;
	bool off_flag;      /* --no-sandbox */
	bool off_env;       /* SBX_NO_SANDBOX set, not "0" */
	bool disabled;      /* `enabled = false` (sbxctl disable) */
	bool learn, print;  /* --learn, --print */
	bool nested_env;    /* SBX_NESTED set, not "0" */
	bool nested_auto;   /* ... to "auto": our own restart (RUN_RESTART_NESTED) */
	bool nested_policy; /* nested = true */
	bool have_bwrap;    /* bubblewrap found (never in PATH) */
	bool bwrap_env;     /* SBX_BWRAP names it (and it is not there) */
	bool have_init;     /* sbx-init found */
	bool fallback_warn; /* fallback = warn */
	bool landlock;      /* the kernel has Landlock (the nested mode's base) */
	/* MODE_SANDBOX_FAILED */
	bool nested;        /* the failed sandbox was the nested mode */
	bool init_ran;      /* bubblewrap's exit was 125: its namespaces stood */
	/* asked only when the answer depends on it (it runs bubblewrap) */
	enum bwrap_probe (*probe)(void *ctx);
	void *probe_ctx;
};

enum run_mode {
	RUN_BWRAP,          /* bubblewrap's namespaces, seccomp, the notify layer */
	RUN_NESTED,         /* Landlock and seccomp, without bubblewrap */
	RUN_RESTART_NESTED, /* start again in the nested mode (SBX_NESTED=auto);
			     * should that fail, RUN_PLAIN with the same text */
	RUN_PLAIN,          /* COMMAND without a sandbox, after a WARNING */
	RUN_DEGRADED,       /* go on without the missing part, saying so */
	RUN_NOTHING,        /* nothing runs; the text says why */
};

/* Every row of the matrix: the test names them, mode_text() words them. */
enum mode_reason {
	WHY_BWRAP,
	WHY_OFF,              /* --no-sandbox / SBX_NO_SANDBOX */
	WHY_OFF_LEARN,        /* ... with --learn */
	WHY_OFF_PRINT,        /* ... with --print */
	WHY_DISABLED,         /* enabled = false */
	WHY_DISABLED_LEARN,
	WHY_DISABLED_PRINT,
	WHY_NO_INIT,
	WHY_NESTED_ASKED,     /* SBX_NESTED=1 */
	WHY_NESTED_AUTO,      /* our restart */
	WHY_NESTED_POLICY,    /* nested = true */
	WHY_NESTED_NO_BWRAP,  /* no bubblewrap, fallback = warn, Landlock here */
	WHY_NESTED_PRINT,
	WHY_NO_BWRAP_WARN,    /* no bubblewrap nor Landlock (or --learn...), warn */
	WHY_NO_BWRAP_PRINT,
	WHY_BWRAP_ENV,        /* SBX_BWRAP names nothing executable */
	WHY_NO_BWRAP,
	WHY_NESTED_UNFIT_WARN,
	WHY_NESTED_UNFIT,
	WHY_PART_WARN,
	WHY_PART_MISSING,
	WHY_NESTED_FAILED,
	WHY_BWRAP_CANNOT_NESTED, /* restart in the nested mode */
	WHY_BWRAP_CANNOT_WARN,
	WHY_FAILED,           /* fallback = error (or --learn): no probe */
	WHY_FAILED_WORKS,     /* warn, but bubblewrap works here */
	WHY_FAILED_UNKNOWN,   /* warn, but the probe could not tell */
};

struct mode_choice {
	enum run_mode mode;
	enum mode_reason why;
};

struct mode_choice mode_decide(const struct mode_facts *f);

/* What the choice's text needs that the facts do not hold. */
struct mode_words {
	const char *user_file; /* WHY_DISABLED*: the file that says it, or NULL */
	const char *bwrap_env; /* WHY_BWRAP_ENV: SBX_BWRAP's value */
	const char *detail;    /* WHY_NESTED_UNFIT*: nested_check's why;
				* WHY_PART_*: why the part cannot be had */
	const char *part;      /* WHY_PART_*: "[limits] memory = 64M" */
	const char *remove;    /* WHY_PART_MISSING: what to remove, "the limit" */
	const char *cannot;    /* WHY_PART_MISSING: "cannot be enforced here" */
	const char *not_done;  /* WHY_PART_WARN: "not enforced" */
};

/* The words for a choice, for msg() (RUN_NOTHING, RUN_DEGRADED,
 * RUN_RESTART_NESTED, WHY_FAILED_*), for the WARNING of RUN_PLAIN (why there
 * is no sandbox) or the start line of RUN_NESTED (why nested). */
void mode_text(struct mode_choice c, const struct mode_facts *f, const struct mode_words *w,
	       char *out, size_t outsz);

#endif
