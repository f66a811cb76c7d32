/* common/probe.h: what this machine offers the sandbox. sbx-preload
 * asks after a failed start (to tell a machine without the boundary from
 * a failure of its own); `sbxctl status` and `sbxctl doctor` ask up front. */
#ifndef SBX_PROBE_H
#define SBX_PROBE_H

#include <stddef.h>

/* Can bubblewrap make a sandbox here at all (user, pid and network
 * namespaces, a read-only root, a /proc of the new pid namespace, which
 * every run mounts)? Only a definite no is BWRAP_CANNOT. */
enum bwrap_probe { BWRAP_WORKS, BWRAP_CANNOT, BWRAP_UNKNOWN };
enum bwrap_probe bwrap_probe(const char *bwrap);
/* The same without the /proc: WORKS here and CANNOT above is a container
 * that masks parts of /proc (the kernel then refuses a new proc mount). */
enum bwrap_probe bwrap_probe_namespaces(const char *bwrap);

/* Is this process in a container, and whose? Read from the markers the
 * runtimes leave: /run/.containerenv (podman, CRI-O; its engine= line when
 * there), /.dockerenv, the `container` variable (podman, LXC and
 * systemd-nspawn set it; ENV), Kubernetes' service variable (K8S), and
 * /proc/1/cgroup. ROOT is "/" (a test's tree otherwise). 1 in one, with
 * ENGINE ("podman", "docker", "kubernetes", "lxc", "systemd-nspawn", or
 * the variable's word) and EVIDENCE (what told it); 0 none seen. */
struct container_info {
	char engine[32];
	char evidence[96];
};
int probe_container(const char *root, const char *env, const char *k8s,
		    struct container_info *c);
/* What a container of ENGINE must be given for the full sandbox (user
 * namespaces and a /proc it can mount), as the engine's own run flags. */
const char *container_full_flags(const char *engine);

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
 * -EOPNOTSUPP: built in but disabled at boot). The test build
 * (-DSBX_TEST_HOOKS, never installed) says a lower one when
 * SBX_TEST_LANDLOCK_ABI names it. */
int probe_landlock_abi(void);

#endif
