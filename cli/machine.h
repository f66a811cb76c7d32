/* cli/machine.h: what sbxctl asks of and says about the machine it runs
 * on, the one part of cli/ that differs by system: Linux's
 * (machine_linux.c: bubblewrap, user namespaces, seccomp, Landlock,
 * containers, cgroups) or macOS's (machine_darwin.c: sandbox-exec, the
 * system log, the dylib, SIP, the known limits, the runs going on). The
 * Makefile links one of the two; the rest of cli/ is the same on both
 * (docs/SBXCTL.md, "On macOS"). */
#ifndef SBX_CLI_MACHINE_H
#define SBX_CLI_MACHINE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "policy/policy.h"

/* doctor's verdicts (doctor.c) */
struct doctor {
	bool color;
	unsigned fails, warns;
};
/* One line: level 0 ok, 1 warn, 2 FAIL; fmt: the detail and, for a
 * problem, the fix. */
void ctl_verdict(struct doctor *d, int level, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* status: what this machine offers, one row each */
void machine_status(bool color);
/* status: the runs going on now, from sbx's state directory `sdir` (its
 * path; not made when missing) */
void machine_runs(bool color, const char *sdir);

/* doctor: the programs and kernel features a run needs (p: the policy,
 * NULL when it does not load) */
void machine_doctor(struct doctor *d, const struct policy *p);
/* doctor: what the policy asks that this machine may not give ([limits],
 * nested = true...) */
void machine_doctor_policy(struct doctor *d, const struct policy *p);
/* doctor: said after every check, before the summary */
void machine_doctor_end(struct doctor *d);

/* sbx's own files a run keeps read-only inside, as the run names them
 * (policy_ctx.own_files): found into bufs, listed in out (NULL where
 * missing). */
void machine_own_files(char bufs[SBX_OWN_FILES][PATH_MAX],
		       const char *out[SBX_OWN_FILES]);

/* Inside a run: the run's policy blob as SBX_SHIM names it (Linux: a
 * descriptor of the holder's; macOS: the hand-over's file), opened
 * read-only, or -1. Anything in the sandbox can set SBX_SHIM: what it
 * names is a claim (cli/hook.c). */
int machine_run_policy_fd(const char *spec);

#endif
