/* supervisor/probe.h: what this machine offers the sandbox. sbx-preload
 * asks after a failed start (to tell a machine without the boundary from
 * a failure of its own); `sbxctl status` and `sbxctl doctor` ask up front. */
#ifndef SBX_PROBE_H
#define SBX_PROBE_H

#include <stddef.h>

/* Can bubblewrap make a sandbox here at all (user, pid and network
 * namespaces, a read-only root)? Only a definite no is BWRAP_CANNOT. */
enum bwrap_probe { BWRAP_WORKS, BWRAP_CANNOT, BWRAP_UNKNOWN };
enum bwrap_probe bwrap_probe(const char *bwrap);

/* Why bubblewrap may be refused namespaces: each known cause found, with
 * its fix, passed to say() as one line. */
void setup_advice(void (*say)(void *ctx, const char *line), void *ctx);

/* `bwrap --version`'s answer ("bubblewrap 0.8.0"), first line; 0 or -errno. */
int probe_bwrap_version(const char *bwrap, char *out, size_t outsz);
/* seccomp filters: 1 available, 0 not. */
int probe_seccomp(void);
/* seccomp user notification (SECCOMP_RET_USER_NOTIF): 1 available, 0 not. */
int probe_seccomp_notify(void);
/* The Landlock ABI version, or -errno (-ENOSYS: not built into the kernel,
 * -EOPNOTSUPP: built in but disabled at boot). A test build
 * (-DSBX_TEST_LANDLOCK_ABI, never installed) says a lower one when
 * SBX_TEST_LANDLOCK_ABI names it. */
int probe_landlock_abi(void);

#endif
