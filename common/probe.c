/* common/probe.c: can this machine make the sandbox? For sbx-preload
 * after a failed start, and for `sbxctl doctor` and `status` (probe.h). */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/probe.h"

/* Why might bubblewrap have failed? Look where it usually is. */
void setup_advice(void (*say)(void *ctx, const char *line), void *ctx)
{
	char buf[32] = "";
	FILE *f;

	if ((f = fopen("/proc/sys/kernel/unprivileged_userns_clone", "re"))) {
		if (fgets(buf, sizeof(buf), f) && buf[0] == '0')
			say(ctx, "unprivileged user namespaces are off: sudo sysctl -w kernel.unprivileged_userns_clone=1");
		fclose(f);
	}
	if ((f = fopen("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "re"))) {
		if (fgets(buf, sizeof(buf), f) && buf[0] == '1')
			say(ctx, "AppArmor restricts user namespaces: add an AppArmor profile for bwrap, "
			    "or sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0");
		fclose(f);
	}
	if ((f = fopen("/proc/sys/user/max_user_namespaces", "re"))) {
		if (fgets(buf, sizeof(buf), f) && buf[0] == '0' && buf[1] == '\n')
			say(ctx, "user namespaces are disabled: sudo sysctl -w user.max_user_namespaces=10000");
		fclose(f);
	}
}

/* Can bubblewrap make a sandbox here at all (user, pid and network
 * namespaces, a read-only root)? Asked only after ours failed, to tell a
 * machine without the boundary from a failure of our own. Only a definite
 * no counts: bubblewrap missing, or refused the namespaces for good
 * (EPERM, EACCES, ENOSPC from max_user_namespaces = 0, EINVAL, ENOSYS). A
 * probe that could not tell (no process to fork, EAGAIN or ENOMEM inside
 * bubblewrap, a signal) is not a no: a command that exhausts the user's
 * processes must not turn fallback = warn into a run without a sandbox. */
static enum bwrap_probe probe_with(const char *bwrap, bool proc)
{
	char *argv[] = { (char *)bwrap, "--unshare-user", "--unshare-pid", "--unshare-net",
			 "--ro-bind", "/", "/", "--proc", "/proc", "--", "/bin/true", NULL };
	static const char *const definite[] = {
		"Operation not permitted", "Permission denied", "No space left on device",
		"Invalid argument", "Function not implemented", "No such file or directory",
		/* bubblewrap 0.8+ names the errno itself: max_user_namespaces
		 * reached (a container's --disable-userns, or 0), or refused */
		"max_*_namespaces exceeded (ENOSPC)", "No permissions to create",
	};
	char out[4096];
	size_t n = 0;
	int status, fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC))
		return BWRAP_UNKNOWN;
	if (!proc)
		memmove(&argv[7], &argv[9], 3 * sizeof(*argv));
	if ((pid = fork()) == 0) {
		int null = open("/dev/null", O_RDONLY);
		if (null >= 0)
			dup2(null, STDIN_FILENO);
		dup2(fds[1], STDOUT_FILENO);
		dup2(fds[1], STDERR_FILENO);
		execv(bwrap, argv);
		dprintf(STDERR_FILENO, "exec: %s\n", strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return BWRAP_UNKNOWN;
	}
	for (ssize_t r; n < sizeof(out) - 1; n += (size_t)r)
		if ((r = read(fds[0], out + n, sizeof(out) - 1 - n)) <= 0) {
			if (r < 0 && errno == EINTR) {
				r = 0;
				continue;
			}
			break;
		}
	out[n] = '\0';
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return BWRAP_UNKNOWN;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return BWRAP_WORKS;
	if (!WIFEXITED(status))
		return BWRAP_UNKNOWN;
	for (size_t i = 0; i < sizeof(definite) / sizeof(*definite); i++)
		if (strstr(out, definite[i]))
			return BWRAP_CANNOT;
	return BWRAP_UNKNOWN;
}

enum bwrap_probe bwrap_probe(const char *bwrap)
{
	return probe_with(bwrap, true);
}

enum bwrap_probe bwrap_probe_namespaces(const char *bwrap)
{
	return probe_with(bwrap, false);
}

/* ---- containers */

/* a word of at most SZ-1 of [a-z0-9._-] from S, stopping at anything else */
static void word_of(const char *s, char *out, size_t sz)
{
	size_t n = 0;

	while (n + 1 < sz && s[n] && strchr("abcdefghijklmnopqrstuvwxyz0123456789._-", s[n])) {
		out[n] = s[n];
		n++;
	}
	out[n] = '\0';
}

static bool read_small(const char *root, const char *rel, char *buf, size_t sz)
{
	char path[4096];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", strcmp(root, "/") ? root : "", rel);
	if (!(f = fopen(path, "re")))
		return false;
	n = fread(buf, 1, sz - 1, f);
	buf[n] = '\0';
	fclose(f);
	return true;
}

int probe_container(const char *root, const char *env, const char *k8s,
		    struct container_info *c)
{
	static const struct {
		const char *needle, *engine;
	} cgroups[] = {
		{ "/docker/", "docker" }, { "/docker-", "docker" }, { "kubepods", "kubernetes" },
		{ "libpod", "podman" }, { "/lxc/", "lxc" }, { "/lxc.payload", "lxc" },
		{ "/machine.slice/", "systemd-nspawn" },
	};
	char buf[4096];
	const char *e;

	memset(c, 0, sizeof(*c));
	if (read_small(root, "/run/.containerenv", buf, sizeof(buf))) {
		/* podman writes engine="podman-4.3.1" (when it writes at all) */
		e = strstr(buf, "engine=\"");
		word_of(e ? e + 8 : "podman", c->engine, sizeof(c->engine));
		/* the version after the name: podman-4.3.1, cri-o-1.28 */
		for (char *v = c->engine; (v = strchr(v, '-')); v++)
			if (v[1] >= '0' && v[1] <= '9') {
				*v = '\0';
				break;
			}
		if (!c->engine[0])
			snprintf(c->engine, sizeof(c->engine), "podman");
		snprintf(c->evidence, sizeof(c->evidence), "/run/.containerenv");
		return 1;
	}
	if (read_small(root, "/.dockerenv", buf, sizeof(buf))) {
		snprintf(c->engine, sizeof(c->engine), "docker");
		snprintf(c->evidence, sizeof(c->evidence), "/.dockerenv");
		return 1;
	}
	if (env && *env) {
		word_of(env, c->engine, sizeof(c->engine));
		if (!c->engine[0] || !strcmp(c->engine, "oci"))
			snprintf(c->engine, sizeof(c->engine), "a container");
		snprintf(c->evidence, sizeof(c->evidence), "container=%.80s", c->engine);
		return 1;
	}
	if (k8s && *k8s) {
		snprintf(c->engine, sizeof(c->engine), "kubernetes");
		snprintf(c->evidence, sizeof(c->evidence), "KUBERNETES_SERVICE_HOST");
		return 1;
	}
	if (read_small(root, "/proc/1/cgroup", buf, sizeof(buf)))
		for (size_t i = 0; i < sizeof(cgroups) / sizeof(*cgroups); i++)
			if (strstr(buf, cgroups[i].needle)) {
				snprintf(c->engine, sizeof(c->engine), "%s", cgroups[i].engine);
				snprintf(c->evidence, sizeof(c->evidence), "/proc/1/cgroup (%s)",
					 cgroups[i].needle);
				return 1;
			}
	return 0;
}

const char *container_full_flags(const char *engine)
{
	/* podman's default seccomp profile lets bubblewrap make user
	 * namespaces; its masked /proc paths make the kernel refuse a new
	 * proc mount (tested: tests/integration/container.sh). Docker's
	 * default seccomp profile refuses unshare and clone of namespaces
	 * without CAP_SYS_ADMIN, its AppArmor profile refuses mount. */
	if (!strcmp(engine, "podman"))
		return "podman run --security-opt unmask=/proc/*";
	if (!strcmp(engine, "docker"))
		return "docker run --security-opt seccomp=unconfined --security-opt "
		       "apparmor=unconfined --security-opt systempaths=unconfined";
	if (!strcmp(engine, "kubernetes"))
		return "securityContext: seccompProfile Unconfined, appArmorProfile Unconfined, "
		       "procMount Unmasked";
	return "a seccomp profile that allows unshare, clone and mount of namespaces, no "
	       "AppArmor or SELinux confinement of mount, and /proc not masked";
}


int probe_bwrap_version(const char *bwrap, char *out, size_t outsz)
{
	char *argv[] = { (char *)bwrap, "--version", NULL };
	int fds[2], status;
	size_t n = 0;
	pid_t pid;

	if (!outsz)
		return -EINVAL;
	out[0] = '\0';
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	if ((pid = fork()) == 0) {
		int null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDERR_FILENO);
		}
		dup2(fds[1], STDOUT_FILENO);
		execv(bwrap, argv);
		_exit(127);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return -errno;
	}
	for (ssize_t r; n + 1 < outsz; n += (size_t)r)
		if ((r = read(fds[0], out + n, outsz - 1 - n)) <= 0) {
			if (r < 0 && errno == EINTR) {
				r = 0;
				continue;
			}
			break;
		}
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 && out[0] ? 0 : -ENOEXEC;
}

int probe_seccomp(void)
{
	/* 0 (none) or 2 (a filter already, ours to stack on); EINVAL: the
	 * kernel has no seccomp */
	return prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
}

int probe_seccomp_notify(void)
{
#if defined(SYS_seccomp) && defined(SECCOMP_GET_ACTION_AVAIL) && defined(SECCOMP_RET_USER_NOTIF)
	unsigned action = SECCOMP_RET_USER_NOTIF;

	return syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
#else
	return 0;
#endif
}

int probe_landlock_abi(void)
{
#ifdef SYS_landlock_create_ruleset
	/* LANDLOCK_CREATE_RULESET_VERSION (1U << 0): the ABI, no ruleset */
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U << 0);

	if (abi < 0)
		return -errno;
#ifdef SBX_TEST_HOOKS
	/* test builds only (Makefile: build/tests/sbx-preload-hooks): an ABI
	 * below the kernel's, as an older kernel would say */
	const char *force = getenv("SBX_TEST_LANDLOCK_ABI");
	long v = force && *force ? strtol(force, NULL, 10) : 0;
	if (v >= 1 && v < abi)
		abi = v;
#endif
	return (int)abi;
#else
	return -ENOSYS;
#endif
}
