/* cli/machine_linux.c: sbxctl on Linux (machine.h): bubblewrap and the
 * user namespaces it makes, seccomp and its user notification, Landlock
 * (the nested mode's boundary), containers, and sbx's own programs
 * (sbx-init, the preload shim). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/machine.h"
#include "common/probe.h"
#include "preload/config.h"
#include "preload/preload.h"

static const char *landlock_text(int abi, char *buf, size_t sz)
{
	if (abi > 0)
		snprintf(buf, sz, "ABI %d", abi);
	else
		snprintf(buf, sz, "%s", abi == -EOPNOTSUPP ? "built in, disabled at boot" :
			 "not in this kernel");
	return buf;
}

void machine_status(bool c)
{
	char bwrap[PATH_MAX], ver[128], ll[64];
	bool have = !find_bwrap(bwrap, sizeof(bwrap));

	if (have && !probe_bwrap_version(bwrap, ver, sizeof(ver)))
		printf("  %-24s %s (%s)\n", "bubblewrap", ver, bwrap);
	else
		printf("  %-24s %s\n", "bubblewrap", have ? "present, but `bwrap --version` "
		       "failed" : "not installed");
	if (have) {
		enum bwrap_probe pr = bwrap_probe(bwrap);
		printf("  %-24s %s\n", "user namespaces", pr == BWRAP_WORKS ? "yes (bubblewrap "
		       "made a test sandbox)" : pr == BWRAP_CANNOT ? "no (bubblewrap was "
		       "refused them)" : "unknown (the test sandbox failed for another reason)");
	}
	printf("  %-24s %s\n", "seccomp", probe_seccomp() ? "yes" : "no");
	printf("  %-24s %s\n", "seccomp notify", probe_seccomp_notify() ? "yes" : "no");
	printf("  %-24s %s\n", "landlock", landlock_text(probe_landlock_abi(), ll, sizeof(ll)));
	(void)c;
}

struct advice_ctx {
	struct doctor *d;
	int level;
};

static void say_fix(void *ctx, const char *line)
{
	struct advice_ctx *a = ctx;

	ctl_verdict(a->d, a->level, "user namespaces", "%s", line);
}

/* In a container: which, what the full sandbox needs of it, and whether
 * the nested mode runs here instead (Landlock, ABI 4 for a network
 * policy, and seccomp user notification for what Landlock cannot see). */
static void check_container(struct doctor *d, const char *bwrap, const struct policy *p)
{
	struct container_info ci;
	char ll[64];

	if (!probe_container("/", getenv("container"), getenv("KUBERNETES_SERVICE_HOST"), &ci))
		return;
	bool full = bwrap[0] && bwrap_probe(bwrap) == BWRAP_WORKS;
	int abi = probe_landlock_abi();
	bool net = !p || !policy_network_open(p);
	bool nested_ok = abi >= (net ? 4 : 1);
	if (full) {
		ctl_verdict(d, 0, "container", "%s (%s): user namespaces and /proc as the full "
			"sandbox needs them", ci.engine, ci.evidence);
		return;
	}
	ctl_verdict(d, nested_ok && p && policy_nested(p) ? 0 : nested_ok ? 1 : 2, "container",
		"%s (%s): the full sandbox needs user namespaces and a /proc it can mount: %s; "
		"%s%s%s, seccomp user notification %s)%s", ci.engine, ci.evidence,
		container_full_flags(ci.engine),
		nested_ok ? "the nested mode runs here instead (Landlock " :
		"the nested mode cannot run here either (Landlock ", landlock_text(abi, ll, sizeof(ll)),
		net && abi >= 1 && abi < 4 ? ", ABI 4 needed for a network policy" : "",
		probe_seccomp_notify() ? "available" : "missing",
		!nested_ok ? ": a kernel with Landlock (5.13, 6.7 for the network), and a "
		"seccomp profile that allows landlock_create_ruleset" :
		p && policy_nested(p) ? ": nested = true chooses it" :
		": set nested = true in [sandbox] (docs/SECURITY.md \"The nested mode\")");
}

static void check_programs(struct doctor *d, const struct policy *p)
{
	char bwrap[PATH_MAX], ver[128], path[PATH_MAX];

	int brc = find_bwrap(bwrap, sizeof(bwrap));
	if (brc == -EINVAL || brc == -ENAMETOOLONG) {
		ctl_verdict(d, 2, "bubblewrap", "SBX_BWRAP must be an absolute path to bubblewrap, "
			"not a name (PATH may hold one a sandboxed program put there)");
	} else if (brc && getenv("SBX_BWRAP") && *getenv("SBX_BWRAP")) {
		ctl_verdict(d, 2, "bubblewrap", "SBX_BWRAP names %s, which is not an executable "
			"file; unset it or point it at bwrap", getenv("SBX_BWRAP"));
	} else if (brc) {
		ctl_verdict(d, 2, "bubblewrap", "not installed (looked in /usr/bin, /usr/local/bin "
			"and /bin, never in PATH); install it: sudo apt-get install bubblewrap "
			"(Fedora: sudo dnf install bubblewrap)");
	} else {
		if (probe_bwrap_version(bwrap, ver, sizeof(ver)))
			snprintf(ver, sizeof(ver), "version unknown");
		ctl_verdict(d, 0, "bubblewrap", "%s (%s)", ver, bwrap);
		enum bwrap_probe pr = bwrap_probe(bwrap);
		if (pr == BWRAP_WORKS) {
			ctl_verdict(d, 0, "user namespaces", "bubblewrap made a test sandbox");
		} else {
			/* not needed where the policy asks for the nested mode */
			int level = p && policy_nested(p) ? 1 : 2;
			unsigned before = d->fails + d->warns;
			struct advice_ctx a = { d, level };
			if (pr == BWRAP_CANNOT && bwrap_probe_namespaces(bwrap) == BWRAP_WORKS)
				ctl_verdict(d, level, "user namespaces", "bubblewrap makes them but "
					"cannot mount a /proc in them: parts of /proc are masked "
					"(a container's default; `container` below says which "
					"flags lift it)");
			else
				setup_advice(say_fix, &a);
			if (d->fails + d->warns == before)
				ctl_verdict(d, pr == BWRAP_CANNOT ? level : 1, "user namespaces",
					"bubblewrap could not make a test sandbox; try: %s "
					"--unshare-user --unshare-pid --unshare-net --ro-bind / / "
					"--proc /proc true", bwrap);
		}
	}
	if (config_find_helper("sbx-init", "SBX_INIT", X_OK, path, sizeof(path)))
		ctl_verdict(d, 2, "sbx-init", "missing (looked next to sbxctl and in ../lib/sbx/); "
			"reinstall sbx (make install)");
	else
		ctl_verdict(d, 0, "sbx-init", "%s", path);
	if (config_find_helper("libsbx-preload.so", "SBX_SHIM_LIB", R_OK, path, sizeof(path)))
		ctl_verdict(d, 1, "shim", "libsbx-preload.so missing: the sandbox holds, but "
			"refusals are not explained and --trace/--learn refuse; reinstall sbx");
	else
		ctl_verdict(d, 0, "shim", "%s", path);
	if (probe_seccomp())
		ctl_verdict(d, 0, "seccomp", "filters available");
	else
		ctl_verdict(d, 2, "seccomp", "the kernel has no seccomp (CONFIG_SECCOMP_FILTER): "
			"sbx-init cannot install its filter; use a kernel built with it");
	if (probe_seccomp_notify())
		ctl_verdict(d, 0, "seccomp notify", "user notification available");
	else
		ctl_verdict(d, 1, "seccomp notify", "not available (Linux 5.0 or later has it): "
			"unix sockets by path stay blocked");
	int abi = probe_landlock_abi();
	char ll[64];
	ctl_verdict(d, 0, "landlock", "%s (the nested mode's boundary, for machines where "
		"bubblewrap cannot make namespaces)", landlock_text(abi, ll, sizeof(ll)));
}

void machine_doctor(struct doctor *d, const struct policy *p)
{
	char bwrap[PATH_MAX] = "";

	check_programs(d, p);
	if (find_bwrap(bwrap, sizeof(bwrap)))
		bwrap[0] = '\0';
	check_container(d, bwrap, p);
}

void machine_doctor_policy(struct doctor *d, const struct policy *p)
{
	size_t n;

	if (policy_nested(p)) {
		int abi = probe_landlock_abi();
		if (abi < 1 || (abi < 4 && !policy_network_open(p)))
			ctl_verdict(d, 2, "nested", "nested = true needs Landlock%s, which this kernel "
				"does not offer: every run is refused (set nested = false)",
				abi < 1 ? "" : " ABI 4 for the network policy");
		else
			ctl_verdict(d, 1, "nested", "nested = true: runs use the weaker nested mode "
				"(Landlock ABI %d and the seccomp table, no namespaces; "
				"docs/SECURITY.md \"The nested mode\")", abi);
	}
	bool mem = policy_limit(p, SBX_LIMIT_MEMORY), pids = policy_limit(p, SBX_LIMIT_PIDS);
	if (mem || pids)
		ctl_verdict(d, policy_fallback(p) == SBX_FALLBACK_WARN ? 1 : 2, "limits",
			"[limits] %s need cgroups, not in this build: %s (remove the limit, or "
			"set fallback = warn)", mem && pids ? "memory and pids" : mem ? "memory" :
			"pids", policy_fallback(p) == SBX_FALLBACK_WARN ?
			"runs without them (fallback = warn)" : "every run is refused");
	policy_rules(p, SBX_RULE_ALLOW_UNIX_SOCKET, &n);
	const char *nenv = getenv("SBX_NOTIFY");
	if (n && !policy_allow_all_unix_sockets(p) && nenv && !strcmp(nenv, "off"))
		ctl_verdict(d, 1, "unix sockets", "allow_unix_sockets needs the seccomp notify "
			"layer, which SBX_NOTIFY=off turns off: those sockets stay blocked");
}

void machine_doctor_end(struct doctor *d)
{
	(void)d;
}

/* Linux's runs leave nothing in the state directory while they run (the
 * holder's descriptors are the hand-over): none listed. */
void machine_runs(bool color, const char *sdir)
{
	(void)color;
	(void)sdir;
}

void machine_own_files(char bufs[SBX_OWN_FILES][PATH_MAX],
		       const char *out[SBX_OWN_FILES])
{
	static const struct {
		const char *name, *env;
		int mode;
	} own[] = {
		{ "sbx-preload", "SBX_PRELOAD", X_OK },
		{ "sbx-init", "SBX_INIT", X_OK },
		{ "libsbx-preload.so", "SBX_SHIM_LIB", R_OK },
	};

	for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		out[i] = config_find_helper(own[i].name, own[i].env, own[i].mode, bufs[i],
					    PATH_MAX) ? NULL : bufs[i];
	out[3] = find_bwrap(bufs[3], PATH_MAX) ? NULL : bufs[3];
}

/* SBX_SHIM's `policy=FD;holder=PID`: the holder's sealed memfd, by
 * /proc (shim/core.c opens it so). */
int machine_run_policy_fd(const char *spec)
{
	char path[64];
	unsigned long fd = 0, holder = 0;

	for (const char *f = spec; f && *f; f = strchr(f, ';') ? strchr(f, ';') + 1 : NULL) {
		if (!strncmp(f, "policy=", 7))
			fd = strtoul(f + 7, NULL, 10);
		else if (!strncmp(f, "holder=", 7))
			holder = strtoul(f + 7, NULL, 10);
	}
	if (!fd || !holder || fd > 65535 || holder > 4194304)
		return -1;
	snprintf(path, sizeof(path), "/proc/%lu/fd/%lu", holder, fd);
	return open(path, O_RDONLY | O_CLOEXEC);
}
