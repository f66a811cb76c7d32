/* preload/runlimits.h: [limits] pids and memory, enforced (docs/POLICY.md,
 * "Limits").
 *
 * The soundest mechanism this machine offers, per limit:
 *   cgroup v2   a cgroup of the run's own next to ours, where the subtree is
 *               writable (root, or a systemd user session's delegation) and
 *               has the controller: pids.max, memory.max (+ swap.max = 0)
 *   cgroup v1   as root, in the pids and memory hierarchies: pids.max,
 *               memory.limit_in_bytes (+ memsw)
 *   rlimit      pids only, for a user other than the real root, on Linux
 *               5.14 and later, where RLIMIT_NPROC counts the processes of
 *               the sandbox's own user namespace (sbx-init sets it)
 * bubblewrap is moved into the cgroup before it has its options, so every
 * process of the run is born inside. cpu_seconds and nofile stay rlimits
 * set by sbx-init (plan.c).
 */
#ifndef SBX_RUNLIMITS_H
#define SBX_RUNLIMITS_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "policy/policy.h"

enum limit_how { LIMIT_UNSET, LIMIT_NONE, LIMIT_CGROUP2, LIMIT_CGROUP1, LIMIT_RLIMIT };

struct limits {
	uint64_t pids, memory;               /* 0: not set */
	uint64_t cpu_seconds, nofile;        /* rlimits, sbx-init's; for the text */
	enum limit_how pids_how, memory_how;
	/* the cgroups made for this run ("" when none); for v2 both are the
	 * same directory */
	char pids_dir[PATH_MAX], memory_dir[PATH_MAX];
	char why_not[160];                   /* why a limit could not be enforced */
};

#define LIMITS_NONE ((struct limits){ 0 })

/* Decide how each limit of p is enforced and, unless dry (--print), make
 * the cgroups and write their limits. A limit that cannot be enforced gets
 * LIMIT_NONE and l->why_not says why; the caller applies `fallback`.
 * 0, or -errno when a cgroup that should work could not be made or written
 * (nothing is left behind). */
int limits_prepare(const struct policy *p, const char *run_id, bool dry, struct limits *l);
/* Move pid (bubblewrap, before it has forked) into the run's cgroups. */
int limits_attach(const struct limits *l, pid_t pid);
/* "pids 64 (cgroup v1), memory 64M (cgroup v1), cpu 10 s (rlimit)": what
 * is enforced, for the start-up line; "" when nothing is. */
void limits_text(const struct limits *l, char *out, size_t outsz);
/* Which limits are set but not enforced ("memory = 64M", "pids = 64", or
 * both, in a static buffer), or NULL. */
const char *limits_missing(const struct limits *l);
/* The RLIMIT_NPROC sbx-init sets (0: none). */
uint64_t limits_nproc(const struct limits *l);
/* After the run: wait (bounded) for bubblewrap, the last process in the
 * cgroups, to be gone, say which limit was reached, and remove the
 * cgroups. *bwrap is set to -1 once reaped. */
void limits_finish(struct limits *l, pid_t *bwrap);

/* Pure helpers, for the unit tests: our cgroup path in the hierarchy
 * /proc/self/cgroup names (v2: controller ""), and the mount point of a
 * hierarchy from /proc/self/mountinfo (v2: controller ""). 0 or -ENOENT. */
int limits_cgroup_path(const char *proc_cgroup, const char *controller, char *out, size_t outsz);
int limits_mount_point(const char *mountinfo, const char *controller, char *out, size_t outsz);
/* Linux release "5.14.0-..." at least major.minor. */
bool limits_kernel_at_least(const char *release, unsigned major, unsigned minor);

#endif
