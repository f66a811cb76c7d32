/* init/sbx-init.c: pid 1 inside the sandbox.
 *
 * bubblewrap has set up the namespaces, the root, the writable binds, /proc
 * and /tmp, and execs this as the sandbox's pid 1 (--as-pid-1) holding only
 * CAP_SYS_ADMIN and CAP_SETPCAP, in the sandbox's user namespace. It only
 * applies what the supervisor decided:
 *   sbx-init [--ctl=FD] [--unix=allow|block] [--ignored=MASK]
 *            [--limit-cpu=SECONDS] [--limit-nofile=N] [--limit-nproc=N]
 *            [--listen-http=PORT --listen-socks=PORT [--listen-dns] [--listen-port=N]...]
 *            [--env=NAME=VALUE]... [--verbose] [--notify[=no-local-binding]] [--tty-bg]
 *            [MOUNT-OP...] -- COMMAND [ARG...]
 *   sbx-init --socks-connect=PORT HOST PORT   (ssh's ProxyCommand, any process)
 *   sbx-init --nested --ctl=FD [--udp=block] [--trunc=block] [--notify=modes] [OPTION...]
 *            -- COMMAND [ARG...]
 * --nested (argv only): the nested mode (docs/SECURITY.md): no bubblewrap,
 * no namespaces; sbx-preload's child put itself under the run's Landlock
 * ruleset and execed this. Not pid 1: no mount operation and no listener
 * is taken, we become the subreaper of COMMAND's processes, and at the end
 * kill our own descendants (never kill(-1), which here would be every
 * process of the user's). Everything else is as below.
 * With a control socket it first waits for the supervisor's "go": one state
 * per placeholder (--ro-new: made, found there, or not to be bound) and,
 * when COMMAND gets the preload shim, its three descriptors. The supervisor
 * sends it once it has made the placeholders, which it does while
 * bubblewrap starts.
 * When the run has the filtering proxy (--listen-*), it first makes the
 * proxy's listening sockets in the sandbox's network namespace and hands
 * them to the supervisor ("N", init/connect.c); COMMAND starts only after
 * the supervisor's answer.
 * It starts a session of its own; the terminal of its standard streams
 * (the sandbox's own pty, the supervisor's relay.c) becomes its controlling
 * terminal, COMMAND a job of it: its foreground process group unless
 * --tty-bg (the relay is in the person's background: a read stops it),
 * a stop told to the supervisor ("S"), which says when to go on ("Cf"
 * in the foreground, "Cb" in the background).
 * It makes the mounts (init/mounts.c: /dev, masks, write-protects), drops
 * every capability, itself included, before COMMAND exists, tells the
 * supervisor the sandbox stands (a message on the control socket, which
 * carries our pid as the supervisor's namespace sees it), starts COMMAND
 * with the seccomp filter, forwards the signals the supervisor relays,
 * reaps orphans, and at the end kills and reaps whatever is left and sends
 * "gone" with the exit status.
 * The shim's descriptors are held, for the life of the sandbox, by a small
 * child that does nothing else (the holder): COMMAND never inherits them,
 * cannot close them, and every process reaches them as
 * /proc/<holder>/fd/N (SBX_SHIM gets `;policy=N;report=N;counters=N;
 * holder=<pid>`). pid 1 itself is made non-dumpable and runs under the
 * same deny table as COMMAND before anything of COMMAND's exists, so
 * COMMAND can neither ptrace it (to forge "ready"/"gone" on the control
 * socket) nor use it to make calls the table refuses. With the notify
 * layer (--notify) pid 1 is also the rename actor (start_notified()).
 * --env settings (LD_PRELOAD and SBX_SHIM) are COMMAND's alone.
 * Built static, against musl where it is installed (Makefile: glibc's
 * start-up costs a quarter millisecond per exec in a virtual machine).
 * No parsing beyond argv, no allocation.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "common/control.h"
#include "common/reap.h"
#include "gen/filters.h"
#include "init/notify.h"
#include "common/forwarded.h"
#include "init/connect.h"
#include "init/mounts.h"


static int nested; /* --nested: no namespaces (see above) */
static int udp_block; /* --udp=block: the nested mode with the network not open */
static int trunc_block; /* --trunc=block: the nested mode on a Landlock before ABI 3 */

/* The length of a control sequence at s (C0, DEL; C1 and the
 * bidirectional overrides in their UTF-8 forms), 0 for anything else. */
static size_t control_at(const unsigned char *s)
{
	if (s[0] < 0x20 || s[0] == 0x7f)
		return 1;
	if (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f)
		return 2;
	if (s[0] == 0xd8 && s[1] == 0x9c)
		return 2; /* U+061C */
	if (s[0] == 0xe2 && ((s[1] == 0x80 && (s[2] == 0x8e || s[2] == 0x8f ||
						 (s[2] >= 0xaa && s[2] <= 0xae))) ||
			     (s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9)))
		return 3;
	return 0;
}

/* Paths in these lines are the plan's, found in trees the sandbox writes
 * (a planted `x\nsbx: sandbox off` printed a line of its own, an ESC a
 * terminal sequence): escaped, \xNN a byte, as the supervisor's are. */
static void die(const char *what, int err)
{
	static const char hex[] = "0123456789abcdef";
	char shown[4200];
	size_t o = 0;

	for (const unsigned char *p = (const unsigned char *)what; *p && o + 13 < sizeof(shown);) {
		size_t n = control_at(p);
		if (!n) {
			shown[o++] = (char)*p++;
			continue;
		}
		for (size_t i = 0; i < n; i++, p++) {
			shown[o++] = '\\';
			shown[o++] = 'x';
			shown[o++] = hex[*p >> 4];
			shown[o++] = hex[*p & 15];
		}
	}
	shown[o] = '\0';
	dprintf(STDERR_FILENO, "sbx: sandbox set-up failed: %s: %s\n", shown, strerror(err));
	_exit(125);
}

static int parse_uint(const char *s, unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || end == s || v > 0xffffffffu)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static unsigned long long limit_cpu, limit_nofile, limit_nproc; /* 0: as inherited */

static int parse_ull(const char *s, unsigned long long *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1; /* strtoull would take "-1" as the largest value */
	errno = 0;
	*out = strtoull(s, &end, 10);
	return errno || *end || end == s || *out == 0 ? -1 : 0;
}

/* A [limits] value as both the soft and the hard limit (0: not set). */
static void fixed_limit(int resource, unsigned long long v, const char *what)
{
	struct rlimit rl = { v, v };

	if (v && setrlimit(resource, &rl))
		die(what, errno);
}

/* [limits]: on pid 1 itself, so COMMAND and all it starts inherit them. */
static void apply_limits(void)
{
	struct rlimit rl;

	fixed_limit(RLIMIT_CPU, limit_cpu, "limit cpu_seconds");
	/* nofile: the soft limit here (sbx-init's own descriptors count
	 * under it: a listener it cannot make stops the run), the hard one
	 * too in COMMAND's process before its exec (start_command); passing
	 * descriptors may need the soft one raised a moment (ctl_send) */
	if (limit_nofile) {
		if (getrlimit(RLIMIT_NOFILE, &rl))
			die("limit nofile", errno);
		rl.rlim_cur = limit_nofile;
		if (rl.rlim_max < limit_nofile || setrlimit(RLIMIT_NOFILE, &rl))
			die("limit nofile", rl.rlim_max < limit_nofile ? EPERM : errno);
	}
	/* [limits] pids where no cgroup serves: since Linux 5.14 the kernel
	 * counts it per user namespace, so it counts this sandbox's processes
	 * (the supervisor checked the kernel, and that we are not the real
	 * root, for whom it is never enforced) */
	fixed_limit(RLIMIT_NPROC, limit_nproc, "limit pids");
}

/* The nested mode's own rows (gen-filters.c, [nested]), stacked on the
 * table: what Landlock cannot refuse. */
static void apply_nested_filter(void)
{
	struct sock_fprog prog;

	if (getuid() == 0 || geteuid() == 0) {
		prog.len = sizeof(sbx_filter_nested_root) / sizeof(sbx_filter_nested_root[0]);
		prog.filter = (struct sock_filter *)sbx_filter_nested_root;
	} else {
		prog.len = sizeof(sbx_filter_nested) / sizeof(sbx_filter_nested[0]);
		prog.filter = (struct sock_filter *)sbx_filter_nested;
	}
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		die("seccomp filter (nested mode)", errno);
	if (trunc_block) {
		prog.len = sizeof(sbx_filter_nested_trunc) / sizeof(sbx_filter_nested_trunc[0]);
		prog.filter = (struct sock_filter *)sbx_filter_nested_trunc;
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
			die("seccomp filter (nested mode, truncation)", errno);
	}
	if (!udp_block)
		return;
	prog.len = sizeof(sbx_filter_nested_net) / sizeof(sbx_filter_nested_net[0]);
	prog.filter = (struct sock_filter *)sbx_filter_nested_net;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		die("seccomp filter (nested mode, network)", errno);
}

static void no_new_privs(void)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		die("no_new_privs", errno);
}

/* The deny table: with the notify layer (pid 1's own), the variant whose
 * reported rows go to a listener (gen-filters.c, NOTIFIED; pid 1 has none:
 * ENOSYS, and it makes none of those calls). */
static void apply_filter(int block_unix, int notified)
{
	struct sock_fprog prog;

	if (notified) {
		prog.len = sizeof(sbx_filter_notified) / sizeof(sbx_filter_notified[0]);
		prog.filter = (struct sock_filter *)sbx_filter_notified;
	} else if (block_unix) {
		prog.len = sizeof(sbx_filter_unix_block) / sizeof(sbx_filter_unix_block[0]);
		prog.filter = (struct sock_filter *)sbx_filter_unix_block;
	} else {
		prog.len = sizeof(sbx_filter_unix_allow) / sizeof(sbx_filter_unix_allow[0]);
		prog.filter = (struct sock_filter *)sbx_filter_unix_allow;
	}
	no_new_privs();
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		die("seccomp filter", errno);
}

#define MAX_ENV 4
static char *command_env[MAX_ENV];
static int ncommand_env;
/* Arguments put after COMMAND's name (--arg=: a profile's, such as the
 * claude profile's --settings with sbx's hook), in order. */
#define MAX_INSERT 16 /* SBX_INSERT_ARGS_MAX */
static char *insert_args[MAX_INSERT];
static int ninsert_args;
/* The shim's policy, report pipe and counters, from "go", for the holder. */
#define NHELD 3
static int held[NHELD], nheld;
/* One state per --ro-new placeholder (PLACEHOLDER_* in preload/preload.h). */
#define MAX_NEW 4096
static char new_states[MAX_NEW + 1];

/* Mounts first, while we hold CAP_SYS_ADMIN; then no process in the
 * sandbox holds any capability, pid 1 included, before COMMAND exists. */
static void apply_mounts_and_drop_caps(char *const *ops, int n, bool need_ids)
{
	const char *what, *path;
	char buf[4200];
	int rc = init_mounts_apply(ops, n, new_states, need_ids, &what, &path);

	if (rc) {
		snprintf(buf, sizeof(buf), "%s%s%s", what, *path ? " " : "", path);
		die(buf, -rc);
	}
	if ((rc = init_caps_drop_all(&what)))
		die(what, -rc);
}

/* The nested mode: no pid namespace ends with us, so every process of
 * COMMAND's (each is our descendant, and an orphan comes to us, the
 * subreaper) is killed here: our children, then the orphans their death
 * hands us, until none is left. */
static void kill_descendants(void)
{
	for (;;) {
		int n = reap_kill_children();
		if (n < 0) {
			dprintf(STDERR_FILENO, "sbx: cannot list the processes left (/proc/self/task/"
				"%d/children: %s): some may outlive the run\n", (int)getpid(),
				strerror(-n));
			return;
		}
		/* one reaped (or none left): its children are ours now */
		while (waitpid(-1, NULL, 0) < 0)
			if (errno != EINTR)
				return; /* ECHILD: none left */
	}
}

/* The nested mode: no mounts; every capability dropped as in the normal
 * mode. An unprivileged caller cannot empty the bounding set (that needs
 * CAP_SETPCAP), and needs not: it holds nothing, and no_new_privs (set
 * before Landlock) keeps exec from granting anything. */
static void drop_caps_nested(void)
{
	const char *what;
	int rc = init_caps_drop_all(&what);

	if (rc == -EPERM && getuid() != 0 && geteuid() != 0 &&
	    !strcmp(what, "drop the capability bounding set")) {
		struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
		struct __user_cap_data_struct d[2];
		memset(d, 0, sizeof(d));
		what = "drop capabilities";
		rc = syscall(SYS_capset, &h, d) ? -errno : 0;
		if (!rc && prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
			rc = -EPERM, what = "no_new_privs";
	}
	if (rc)
		die(what, -rc);
}

/* Kill what COMMAND left (the kernel would, as we exit) and reap it all, then
 * tell the supervisor that no process of COMMAND's is left, and the exit
 * status: it removes its placeholders and exits while our namespaces are
 * still being torn down (as bare bubblewrap's parent does). Before this
 * point it must not: unlinking a mount point on the host detaches the mount
 * from the sandbox, and a survivor could then create the protected name. */
static void report_gone(int ctl, int code)
{
	char status = (char)code;

	if (nested)
		kill_descendants();
	else
		kill(-1, SIGKILL);
	while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
		;
	if (ctl >= 0 && errno == ECHILD)
		ctl_send(ctl, CTL_GONE, &status, 1, NULL, 0);
}

/* fork(); the child keeps neither the signalfd, the control socket nor
 * the pty held under the caller's terminal, which are pid 1's alone. */
static pid_t fork_child(int sfd, int ctl_fd)
{
	pid_t pid = fork();

	if (pid < 0)
		die("fork", errno);
	if (pid == 0) {
		close(sfd);
		if (ctl_fd >= 0)
			close(ctl_fd);
		init_mounts_close_held();
	}
	return pid;
}

/* Close every descriptor but the shim's three. The holder is dumpable, so
 * whatever it keeps, COMMAND can open through /proc/<holder>/fd: it must
 * keep nothing of pid 1's (the pty under the caller's terminal, anything a
 * later change opens) nor of the caller's (COMMAND has those, or closed
 * them on purpose). */
static void keep_only_held(int extra)
{
	int keep[NHELD + 1], n = NHELD;
	unsigned from = 0;

	memcpy(keep, held, NHELD * sizeof(int));
	if (extra >= 0)
		keep[n++] = extra;
	for (int i = 1; i < n; i++) /* three or four: insertion sort */
		for (int j = i; j > 0 && keep[j - 1] > keep[j]; j--) {
			int t = keep[j];
			keep[j] = keep[j - 1];
			keep[j - 1] = t;
		}
	for (int i = 0; i <= n; i++) {
		unsigned to = i < n ? (unsigned)keep[i] - 1 : ~0u;
		if (i < n && (unsigned)keep[i] == from) {
			from++;
			continue;
		}
		if (syscall(SYS_close_range, from, to, 0)) {
			/* before Linux 5.9 */
			struct rlimit rl;
			unsigned last = getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur > 1u << 20 ?
				1u << 20 : (unsigned)rl.rlim_cur;
			for (unsigned fd = from; fd <= to && fd < last; fd++)
				close((int)fd);
		}
		if (i < n)
			from = (unsigned)keep[i] + 1;
	}
}

/* The holder: keeps the shim's descriptors open, dumpable, and nothing
 * else. COMMAND may kill it (same user): later processes then run without
 * reports, the boundary unchanged. */
static void __attribute__((noreturn)) holder_main(int done_fd)
{
	keep_only_held(done_fd);
	if (done_fd >= 0)
		close(done_fd); /* the last descriptor of ours closed: see clone_holder() */
	prctl(PR_SET_NAME, "sbx-shim-fds", 0, 0, 0);
	for (;;)
		pause();
}

static pid_t start_holder(int sfd, int ctl_fd)
{
	pid_t h = fork_child(sfd, ctl_fd);

	if (h == 0)
		holder_main(-1);
	return h;
}

/* The holder made by the child that becomes COMMAND, once it is under the
 * notify filter: as pid 1's child (CLONE_PARENT), which reaps it and at
 * the end kills it. It shares that child's memory (CLONE_VM) until the
 * child's exec, which leaves it the old address space alone: no page
 * table is copied, and neither side takes copy-on-write faults (a fork
 * costs the parent 0.4-0.8 ms on a virtual machine that traps page-table
 * changes, this 0.1 ms; docs/PERFORMANCE.md). Its descriptors are its own
 * (no CLONE_FILES). While both run in one address space the child waits:
 * the holder closes every descriptor but the shim's three and, last, the
 * pipe's write end, and the child goes on at that end of file, so the two
 * never use libc (errno) at the same time; after it the holder only names
 * itself and pauses (neither can fail). Dumpable from birth, as one pid 1 forks:
 * that child made itself dumpable again, holding then only what COMMAND
 * gets and the shim's three. */
static char holder_stack[16384] __attribute__((aligned(16)));

/* Not instrumented by AddressSanitizer (SANITIZE builds): before the
 * call to a noreturn function it checks the stack it runs on, and this
 * one is holder_stack, which it takes for a corrupt one and says so on
 * COMMAND's stderr ("ignoring requested __asan_handle_no_return"). */
__attribute__((no_sanitize_address)) static int holder_fn(void *arg)
{
	holder_main(*(const int *)arg);
}

static pid_t clone_holder(void)
{
	int p[2];
	char c;
	ssize_t r;

	if (pipe2(p, O_CLOEXEC))
		die("the shim's holder's pipe", errno);
	pid_t h = clone(holder_fn, holder_stack + sizeof(holder_stack),
			CLONE_VM | CLONE_PARENT | SIGCHLD, &p[1]);
	if (h < 0)
		die("fork (the shim's holder)", errno);
	close(p[1]);
	while ((r = read(p[0], &c, 1)) < 0 && errno == EINTR)
		;
	close(p[0]);
	return h;
}

static int shim_env(void)
{
	for (int k = 0; k < ncommand_env; k++)
		if (!strncmp(command_env[k], "SBX_SHIM=", 9))
			return k;
	return -1;
}

/* SBX_SHIM gets the descriptors' numbers and `;holder=PID`: the shim opens
 * /proc/<holder>/fd/<n>. */
static void name_holder(pid_t h)
{
	static char buf[4096];
	int k = shim_env();

	if (k < 0)
		return;
	if (snprintf(buf, sizeof(buf), "%s;policy=%d;report=%d;counters=%d;holder=%d",
		     command_env[k], held[0], held[1], held[2], (int)h) >= (int)sizeof(buf))
		die("SBX_SHIM", E2BIG);
	command_env[k] = buf;
}

/* Options, from argv and from the supervisor's messages, in order; the
 * mount operations among them are applied in this order. */
#define MAX_OPTS 16384
static char *opts[MAX_OPTS];
static int nopts;
static struct init_mounts mounts;
static int ctl = -1, block_unix = 1, verbose, notify, notify_nobind, notify_modes;
/* The sandbox's terminal (the supervisor's relay.c): the descriptor of it
 * we made our controlling one, -1 when there is none; --tty-bg: COMMAND
 * starts in its background (the relay is in the person's); SIGTTOU as
 * our caller left it (we ignore it, to hand the foreground around). */
static int tty_fd = -1, tty_bg, ttou_was_ignored;
static unsigned ignored;
static unsigned listen_http, listen_socks; /* the proxy's ports; 0: no proxy */
static struct init_listen_plan listen_plan; /* the resolver, host ports */

static int parse_port(const char *s, unsigned *out)
{
	return parse_uint(s, out) || *out < 1 || *out > 65535 ? -1 : 0;
}

/* One option; from_ctl: it came over the control socket. 0, or -1 when it
 * is not one of ours (or malformed). */
static int take_opt(char *a, bool from_ctl)
{
	unsigned v;

	if (!from_ctl && !strncmp(a, "--ctl=", 6) && !parse_uint(a + 6, &v)) {
		ctl = (int)v;
		return 0;
	}
	if (!from_ctl && !strcmp(a, "--nested")) {
		nested = 1;
		return 0;
	}
	/* the nested mode mounts nothing and listens nowhere: the host's
	 * mounts and loopback are the only ones there are */
	if (nested && (!strncmp(a, "--listen-", 9) || init_mounts_check(&mounts, a) > 0))
		return -1;
	if (!strcmp(a, "--unix=allow"))
		block_unix = 0;
	else if (!strcmp(a, "--unix=block"))
		block_unix = 1;
	else if (!strncmp(a, "--ignored=", 10) && !parse_uint(a + 10, &v))
		ignored = v;
	else if (!strncmp(a, "--limit-cpu=", 12) && !parse_ull(a + 12, &limit_cpu))
		;
	else if (!strncmp(a, "--limit-nofile=", 15) && !parse_ull(a + 15, &limit_nofile))
		;
	else if (!strncmp(a, "--limit-nproc=", 14) && !parse_ull(a + 14, &limit_nproc))
		;
	else if (!strncmp(a, "--listen-http=", 14) && !parse_port(a + 14, &listen_http))
		;
	else if (!strncmp(a, "--listen-socks=", 15) && !parse_port(a + 15, &listen_socks))
		;
	else if (!strcmp(a, "--listen-dns"))
		listen_plan.dns = true;
	else if (!strncmp(a, "--listen-port=", 14) && listen_plan.nports < CTL_HOST_PORTS_MAX &&
		 !parse_port(a + 14, &listen_plan.ports[listen_plan.nports]))
		listen_plan.nports++;
	else if (!strncmp(a, "--env=", 6) && strchr(a + 7, '=') && ncommand_env < MAX_ENV)
		command_env[ncommand_env++] = a + 6;
	else if (!strncmp(a, "--arg=", 6) && ninsert_args < MAX_INSERT)
		insert_args[ninsert_args++] = (char *)a + 6;
	else if (!strcmp(a, "--verbose"))
		verbose = 1;
	else if (!strcmp(a, "--tty-bg"))
		tty_bg = 1;
	else if (nested && !strcmp(a, "--udp=block"))
		udp_block = 1;
	else if (nested && !strcmp(a, "--trunc=block"))
		trunc_block = 1;
	else if (!strcmp(a, "--notify"))
		notify = 1;
	else if (!strcmp(a, "--notify=no-local-binding"))
		notify = notify_nobind = 1;
	else if (nested && !strcmp(a, "--notify=modes"))
		notify = notify_modes = 1;
	else if (init_mounts_check(&mounts, a) <= 0)
		return -1;
	if (nopts == MAX_OPTS)
		die("too many options", E2BIG);
	opts[nopts++] = a;
	return 0;
}

static void bad_opt(const char *a)
{
	dprintf(STDERR_FILENO, "sbx-init: unknown argument `%s` "
		"(sbx-init is started by sbx-preload)\n", a);
	_exit(125);
}

/* Wait for the supervisor: "A" messages carry our options (NUL-terminated
 * strings; the mount operations depend on the policy, which is compiled
 * while bubblewrap starts, so they cannot be in our argv), then "go": "G",
 * one state per placeholder (--ro-new), and the shim's three descriptors
 * when COMMAND gets the shim (none otherwise). They come once the
 * supervisor has made the placeholders, usually long before bubblewrap
 * has started us. */
static void receive_go(void)
{
	static char store[1 << 20]; /* the options, kept: opts[] points here */
	static char buf[1 << 16];
	size_t used = 0;
	int bad = 0;

	for (;;) {
		union {
			struct cmsghdr h;
			char b[CMSG_SPACE((NHELD + 1) * sizeof(int))];
		} cm;
		struct iovec iov = { buf, sizeof(buf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cm.b, .msg_controllen = sizeof(cm.b) };
		ssize_t n;

		while ((n = recvmsg(ctl, &mh, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
			;
		if (n < 0)
			die("control socket", errno);
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
				bad = 1;
				continue;
			}
			size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			int fds[NHELD + 1];
			if (k > NHELD + 1)
				k = NHELD + 1;
			memcpy(fds, CMSG_DATA(c), k * sizeof(int));
			for (size_t j = 0; j < k; j++) {
				if (nheld < NHELD && buf[0] == CTL_GO) {
					held[nheld++] = fds[j];
				} else {
					close(fds[j]);
					bad = 1;
				}
			}
		}
		if (n == 0)
			_exit(125); /* the supervisor gave up (and said why) or is gone */
		if (bad || (mh.msg_flags & (MSG_CTRUNC | MSG_TRUNC)))
			die("control socket: malformed message", EPROTO);
		if (buf[0] == CTL_IDS) {
			/* what each mount is to land on (init/mounts.h) */
			if (init_mounts_take_ids(buf + 1, (size_t)n - 1))
				die("control socket: malformed identities", EPROTO);
			continue;
		}
		if (buf[0] == CTL_OPTS) {
			if (buf[n - 1] != '\0' || used + (size_t)n > sizeof(store))
				die("control socket: malformed options", EPROTO);
			memcpy(store + used, buf + 1, (size_t)n - 1);
			for (char *a = store + used; a < store + used + n - 1; a += strlen(a) + 1)
				if (take_opt(a, true))
					bad_opt(a);
			used += (size_t)n - 1;
			continue;
		}
		if (buf[0] != CTL_GO || (size_t)n != 1 + mounts.nnew || mounts.nnew > MAX_NEW ||
		    (nheld != 0 && nheld != NHELD) || (nheld == NHELD) != (shim_env() >= 0))
			die("control socket: malformed go message", EPROTO);
		for (unsigned i = 0; i < mounts.nnew; i++)
			if (buf[1 + i] != CTL_NEW_MADE && buf[1 + i] != CTL_NEW_THERE &&
			    buf[1 + i] != CTL_NEW_SKIP)
				die("control socket: malformed go message", EPROTO);
		memcpy(new_states, buf + 1, mounts.nnew);
		new_states[mounts.nnew] = '\0';
		return;
	}
}

/* The filtering proxy's listeners (init/connect.c), made in our network
 * namespace and handed to the supervisor in an "N" message (one kind byte
 * per descriptor, SCM_RIGHTS); it checks them, serves them and answers
 * "n" (await_listeners_served). They go out before the mounts, so the
 * supervisor's part overlaps ours, and until the answer COMMAND does not
 * exist: a run whose proxy is not serving runs nothing (125). We keep no
 * copy: only the supervisor accepts on them. */
static void send_listeners(void)
{
	int fds[CTL_LISTEN_MAX];
	char kinds[CTL_LISTEN_MAX];
	size_t n;
	const char *what = "";
	char buf[120];
	int rc;

	listen_plan.http = listen_http;
	listen_plan.socks = listen_socks;
	rc = init_listen(&listen_plan, fds, kinds, &n, &what);
	if (rc) {
		snprintf(buf, sizeof(buf), "the proxy's listener on %s", what);
		die(buf, -rc);
	}
	/* the resolver's address in the sandbox's /etc/resolv.conf, before
	 * anything of COMMAND's can read it (fail closed: a run that was
	 * promised the policy's resolver does not start without it) */
	if (listen_plan.dns && (rc = init_resolv_conf()) < 0)
		die("the sandbox's /etc/resolv.conf (naming 127.0.0.53)", -rc);
	int sent = ctl_send(ctl, CTL_LISTENERS, kinds, n, fds, n);
	if (sent)
		die("control socket", -sent);
	for (size_t i = 0; i < n; i++)
		close(fds[i]);
}

/* The answer: "n" and nothing else; end of file when the supervisor
 * refused them (it says why). */
static void await_listeners_served(void)
{
	char a[8];
	struct iovec riov = { a, sizeof(a) };
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(CTL_LISTEN_MAX * sizeof(int))];
	} rcm;
	struct msghdr rh = { .msg_iov = &riov, .msg_iovlen = 1,
			     .msg_control = rcm.b, .msg_controllen = sizeof(rcm.b) };
	ssize_t r;
	while ((r = recvmsg(ctl, &rh, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	if (r == 0)
		_exit(125);
	if (r < 0)
		die("control socket", errno);
	if (r != 1 || a[0] != CTL_LISTENERS_SERVED || rh.msg_controllen ||
	    (rh.msg_flags & (MSG_CTRUNC | MSG_TRUNC)))
		die("control socket: malformed answer to the proxy's listeners", EPROTO);
}

static void start_command(char **cmd, const sigset_t *orig)
{
	/* nofile's hard limit too, now that no descriptor is passed any more */
	fixed_limit(RLIMIT_NOFILE, limit_nofile, "limit nofile");
	for (int k = 0; k < ncommand_env; k++)
		if (putenv(command_env[k]))
			die("environment", errno);
	/* COMMAND gets the dispositions our caller had: bubblewrap ran with
	 * the forwarded signals ignored, so reset them unless the caller
	 * itself ignored them (nohup). */
	for (size_t i = 0; i < SBX_NFORWARDED; i++) {
		int s = sbx_forwarded[i];
		signal(s, (s < 32 && (ignored & (1u << s))) ? SIG_IGN : SIG_DFL);
	}
	signal(SIGCHLD, SIG_DFL);
	/* A job of the sandbox's terminal, as a shell starts one: its own
	 * process group, the terminal's foreground unless the relay is in the
	 * background (a read then stops it: SIGTTIN). Made here and in pid 1
	 * (take_terminal), whichever comes first. */
	if (tty_fd >= 0) {
		setpgid(0, 0);
		if (!tty_bg)
			tcsetpgrp(tty_fd, getpid()); /* SIGTTOU still ignored */
	}
	signal(SIGTTOU, ttou_was_ignored ? SIG_IGN : SIG_DFL);
	if (sigprocmask(SIG_SETMASK, orig, NULL))
		die("signal mask", errno);
	/* the profile's arguments after COMMAND's name */
	char *withargs[ninsert_args ? 4096 : 1];
	if (ninsert_args) {
		int n = 0;
		while (cmd[n])
			n++;
		if (n + ninsert_args >= 4096)
			die("too many arguments", E2BIG);
		withargs[0] = cmd[0];
		memcpy(withargs + 1, insert_args, (size_t)ninsert_args * sizeof(*withargs));
		memcpy(withargs + 1 + ninsert_args, cmd + 1, (size_t)n * sizeof(*withargs));
		cmd = withargs;
	}
	/* the seccomp filter is pid 1's, inherited */
	execvp(cmd[0], cmd);
	int e = errno;
	if (e == ENOENT)
		dprintf(STDERR_FILENO, "sbx: %s: command not found\n", cmd[0]);
	else
		dprintf(STDERR_FILENO, "sbx: %s: %s\n", cmd[0], strerror(e));
	_exit(e == ENOENT ? 127 : 126);
}

/* The notify layer (gen-notify.c, init/notify.c): the calls that make or
 * rename a name, and connect, go to the supervisor (preload/notify/notify.c),
 * which decides them by the policy. Its program carries the deny table
 * too, and is installed alone in the child that becomes COMMAND, before
 * its exec, so every process of COMMAND's is under it; pid 1 takes the
 * table itself meanwhile (the two installs run side by side), and is the
 * rename actor (init/notify.c says why), serving the supervisor's renames
 * from its loop. The child hands the listener to pid 1 and waits for its
 * answer, which comes once pid 1 is under the table: nothing of
 * COMMAND's exists before that. pid 1 sends the listener with the
 * supervisor's end of the actor's socket in an "F" message before
 * "ready"; neither keeps a copy: when the supervisor dies the kernel
 * answers ENOSYS (and bubblewrap, with --die-with-parent, takes the
 * sandbox down). The holder is made by that child after the filter, so
 * it is under it as well: COMMAND can ptrace the holder (it is dumpable,
 * for /proc/<holder>/fd). no_new_privs is set, and pid 1 non-dumpable,
 * before the fork. Returns COMMAND's pid; *act is pid 1's end of the
 * actor's socket. */
static pid_t start_notified(int sfd, char **cmd, const sigset_t *orig, int *act)
{
	int as[2], ls[2], fd, rc;
	pid_t child;
	char ok;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, as))
		die("the rename actor's socket", errno);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ls))
		die("the notify listener's socket", errno);
	child = fork_child(sfd, ctl);
	if (child == 0) {
		close(as[0]);
		close(as[1]);
		close(ls[0]);
		if ((fd = init_notify_filter(block_unix, notify_nobind, notify_modes)) < 0)
			die("seccomp notify filter", -fd);
		if ((rc = ctl_send(ls[1], CTL_IN_LISTENER, NULL, 0, &fd, 1)))
			die("the notify listener to pid 1", -rc);
		close(fd);
		if (nheld) {
			if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0))
				die("dumpable", errno);
			name_holder(clone_holder());
			for (int k = 0; k < nheld; k++)
				close(held[k]); /* the holder has them */
		}
		/* pid 1 under the table (or gone: it said why) */
		while ((rc = (int)recv(ls[1], &ok, 1, 0)) < 0 && errno == EINTR)
			;
		if (rc != 1 || ok != CTL_IN_UNDER_TABLE)
			_exit(125);
		close(ls[1]);
		start_command(cmd, orig);
	}
	close(ls[1]);
	for (int k = 0; k < nheld; k++)
		close(held[k]); /* the child's and the holder's now */
	if (!notify_modes)
		apply_filter(0, 1); /* (the nested mode's: before the fork) */
	fd = init_notify_recv_fd(ls[0], CTL_IN_LISTENER);
	if (fd == -EPIPE)
		_exit(125); /* the child could not install it, and said why */
	if (fd < 0)
		die("the notify listener from COMMAND's process", -fd);
	if ((rc = ctl_send(ls[0], CTL_IN_UNDER_TABLE, NULL, 0, NULL, 0)))
		die("the notify layer's socket", -rc);
	close(ls[0]);
	if ((rc = init_notify_send_listener(ctl, fd, as[1])))
		die("control socket", -rc);
	*act = as[0];
	return child;
}

/* The supervisor's "Cf"/"Cb": the run goes on in the foreground or the
 * background of its terminal (COMMAND's process group, or ours, which
 * nothing reads in) -- after a stop, or at fg of a background run. */
static void take_terminal(pid_t child)
{
	char m[4];
	ssize_t n = recv(ctl, m, sizeof(m), MSG_DONTWAIT);

	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		tty_fd = -1; /* the supervisor is gone: nothing more to hear */
		return;
	}
	if (n != 2 || m[0] != CTL_CONT || (m[1] != CTL_CONT_FG && m[1] != CTL_CONT_BG))
		return;
	tcsetpgrp(tty_fd, m[1] == CTL_CONT_FG ? child : getpgrp());
	kill(-child, SIGCONT);
	kill(child, SIGCONT);
}

int main(int argc, char **argv)
{
	sigset_t orig, set;
	pid_t child;
	int status = 0, i, act = -1;

	/* ssh's ProxyCommand (GIT_SSH_COMMAND): a client, never pid 1's
	 * duties, so before the check below. */
	if (argc == 4 && !strncmp(argv[1], "--socks-connect=", 16))
		return init_socks_connect(argv[1] + 16, argv[2], argv[3]);

	/* Only as pid 1 of a pid namespace of its own (bubblewrap's
	 * --unshare-pid --as-pid-1): at the end it kills every process it may
	 * signal (kill(-1)), which anywhere else would be every process of
	 * the user's on the host. Nothing is mounted or run otherwise. */
	if (getpid() != 1 && !(argc > 1 && !strcmp(argv[1], "--nested"))) {
		dprintf(STDERR_FILENO, "sbx-init: not pid 1 of a new pid namespace "
			"(sbx-init is started by sbx-preload)\n");
		_exit(125);
	}
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (take_opt(argv[i], false))
			bad_opt(argv[i]);
	}
	if (i >= argc) {
		dprintf(STDERR_FILENO, "sbx-init: no command\n");
		_exit(125);
	}

	/* A session of our own: nothing of the sandbox's has the person's
	 * terminal as its controlling one, so none can take its foreground
	 * and read the typing, nor open it as /dev/tty. The terminal of our
	 * standard streams (the sandbox's own pty, relay.c) becomes ours:
	 * TIOCSCTTY without force takes only one no session has, so a
	 * terminal passed in directly (a run of --print's line) stays the
	 * person's, and COMMAND runs without one. */
	if (setsid() < 0)
		die("setsid", errno);
	for (int fd = 0; fd < 3 && tty_fd < 0; fd++)
		if (isatty(fd))
			tty_fd = ioctl(fd, TIOCSCTTY, 0) == 0 ? fd : -2;
	if (tty_fd < 0)
		tty_fd = -1;
	{
		struct sigaction sa;
		ttou_was_ignored = sigaction(SIGTTOU, NULL, &sa) == 0 && sa.sa_handler == SIG_IGN;
		signal(SIGTTOU, SIG_IGN);
	}

	/* the nested mode: orphans come to us; the forwarded signals were
	 * ignored by the child that execed us (to outlive the terminal's),
	 * and an ignored signal never reaches the signalfd */
	if (nested && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0))
		die("subreaper", errno);
	for (size_t k = 0; nested && k < SBX_NFORWARDED; k++)
		signal(sbx_forwarded[k], SIG_DFL);
	sigemptyset(&set);
	for (size_t k = 0; k < SBX_NFORWARDED; k++)
		sigaddset(&set, sbx_forwarded[k]);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, &orig))
		die("signal mask", errno);
	int sfd = signalfd(-1, &set, SFD_CLOEXEC);
	if (sfd < 0)
		die("signalfd", errno);
	if (ctl >= 0)
		receive_go();
	else if (mounts.nnew)
		die("placeholders without a control socket", EINVAL);
	if (!listen_http != !listen_socks || (listen_http && ctl < 0) ||
	    (listen_http && listen_http == listen_socks))
		die("the proxy's listeners need two ports and a control socket", EINVAL);

	/* the limits first: what sbx-init makes from here on is under them */
	apply_limits();
	if (listen_http)
		send_listeners();
	if (nested)
		drop_caps_nested();
	else
		apply_mounts_and_drop_caps(opts, nopts, ctl >= 0);
	if (listen_http)
		await_listeners_served();

	if (verbose)
		dprintf(STDERR_FILENO, "sbx: %s; TIOCSTI/TIOCLINUX blocked by seccomp%s\n",
			tty_fd >= 0 ? "a terminal of the sandbox's own, relayed" :
			"no controlling terminal", block_unix ? ", unix sockets blocked" : "");

	/* Everything from here on, pid 1 included, under the table. With
	 * the notify layer, COMMAND's program is gen-notify.c's, which holds
	 * the table (socket(AF_UNIX) is then the supervisor's to decide at
	 * connect()), and pid 1 takes the table while that child installs
	 * it. */
	if (notify && ctl < 0)
		die("the notify filter needs a control socket", EINVAL);
	if (notify && notify_modes) {
		/* the nested mode's: the table and the [nested] rows for pid 1
		 * and, through the fork, for COMMAND, under the program that
		 * notifies a file's mode and owner (start_notified()) */
		apply_filter(block_unix, 0);
		apply_nested_filter();
	} else if (notify) {
		/* the table comes with the fork (start_notified()) */
		no_new_privs();
	} else {
		apply_filter(block_unix, 0);
		if (nested)
			apply_nested_filter();
	}
	if (nheld && !notify) {
		name_holder(start_holder(sfd, ctl));
		for (int k = 0; k < nheld; k++)
			close(held[k]); /* the holder has them */
	}
	/* Nothing of COMMAND's may ptrace pid 1 or read its memory: it holds
	 * the control socket. (After the holder's fork: that one stays
	 * dumpable, so /proc/<holder>/fd can be opened.) */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0))
		die("dumpable", errno);
	if (notify) {
		child = start_notified(sfd, argv + i, &orig, &act);
	} else {
		child = fork_child(sfd, ctl);
		if (child == 0)
			start_command(argv + i, &orig);
	}
	if (tty_fd >= 0) {
		setpgid(child, child);
		if (!tty_bg)
			tcsetpgrp(tty_fd, child);
	}

	/* Ready: the supervisor learns our pid (SCM_CREDENTIALS, translated
	 * into its pid namespace) and that COMMAND is starting. */
	if (ctl >= 0) {
		int rc = ctl_send(ctl, CTL_READY, NULL, 0, NULL, 0);
		if (rc)
			die("control socket", -rc);
	}

	for (;;) {
		struct signalfd_siginfo si;
		/* with the notify layer, the supervisor's renames too; with a
		 * terminal, its fg and bg ("C") */
		struct pollfd pf[3] = { { sfd, POLLIN, 0 }, { act, POLLIN, 0 },
					{ tty_fd >= 0 ? ctl : -1, POLLIN, 0 } };
		if (poll(pf, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll", errno);
		}
		if (pf[1].revents && init_notify_act_one(act)) {
			close(act); /* the supervisor gave the actor up */
			act = -1;
		}
		if (pf[2].revents)
			take_terminal(child);
		if (!pf[0].revents)
			continue;
		ssize_t n = read(sfd, &si, sizeof(si));

		if (n != (ssize_t)sizeof(si)) {
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			die("signalfd read", n < 0 ? errno : EIO);
		}
		if (si.ssi_signo == SIGCHLD) {
			pid_t p;
			int st;
			while ((p = waitpid(-1, &st, WNOHANG | WUNTRACED)) > 0) {
				if (p != child)
					continue; /* an orphan, reaped (or stopped: not ours to tell) */
				if (WIFSTOPPED(st)) {
					/* the run stops as one job: the supervisor
					 * stops, and says when to go on */
					char sig = (char)WSTOPSIG(st);
					if (ctl >= 0)
						ctl_send(ctl, CTL_STOPPED, &sig, 1, NULL, 0);
					continue;
				}
				status = st;
				goto done;
			}
			continue;
		}
		/* Relay only what a process sent (the supervisor). A signal
		 * from the sandbox's terminal (SI_KERNEL) went to its
		 * foreground process group. */
		if ((int)si.ssi_code <= 0)
			kill(child, (int)si.ssi_signo);
	}
done:;
	int code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
	report_gone(ctl, code);
	/* Exiting ends the pid namespace. */
	_exit(code);
}
