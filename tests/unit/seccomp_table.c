/* tests/unit/seccomp_table.c: the seccomp programs sbx-init installs
 * (build/gen/filters.h, from seccomp/gen-filters.c), run here on a small
 * classic-BPF interpreter against system calls as the kernel would hand
 * them over: every row of the table refuses what it says with its errno,
 * and the near misses (the other ioctl, an ICMP socket, NETLINK_ROUTE, the
 * personality query) pass. The integration suite seccomp.sh runs real
 * static programs; this one reaches the cases no kernel here offers (an
 * aarch64 compat call) and every netlink protocol and personality bit. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/kd.h>
#include <linux/netlink.h>
#include <linux/seccomp.h>
#include <linux/vt.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <fcntl.h>

#include "gen/filters.h"
#include "gen/notify-filter.h"

/* preload/notify/deny.c (declared in preload/notify/internal.h, whose names clash here) */
int notify_deny_row(const struct seccomp_data *d);

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__x86_64__)
#define NATIVE AUDIT_ARCH_X86_64
#define FOREIGN AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define NATIVE AUDIT_ARCH_AARCH64
#define FOREIGN AUDIT_ARCH_ARM
#else
#error "add this architecture's AUDIT_ARCH values"
#endif

/* The instructions libseccomp emits (checked: anything else fails the
 * test), evaluated as the kernel's seccomp_run_filters would. */
static uint32_t run(const struct sock_filter *prog, size_t len, const struct seccomp_data *d)
{
	uint32_t a = 0;

	for (size_t pc = 0; pc < len; pc++) {
		const struct sock_filter *f = &prog[pc];
		uint32_t w;

		switch (f->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			cr_assert(f->k + 4 <= sizeof(*d) && f->k % 4 == 0);
			memcpy(&w, (const char *)d + f->k, 4);
			a = w;
			break;
		case BPF_ALU | BPF_AND | BPF_K:
			a &= f->k;
			break;
		case BPF_JMP | BPF_JA:
			pc += f->k;
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += a == f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JGT | BPF_K:
			pc += a > f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			pc += a >= f->k ? f->jt : f->jf;
			break;
		case BPF_JMP | BPF_JSET | BPF_K:
			pc += (a & f->k) ? f->jt : f->jf;
			break;
		case BPF_RET | BPF_K:
			return f->k;
		default:
			cr_assert_fail("instruction 0x%04x at %zu: not interpreted here", f->code, pc);
		}
	}
	cr_assert_fail("the program ran off its end");
	return 0;
}

#define ERR(e) (SECCOMP_RET_ERRNO | (e))
#define ALLOW SECCOMP_RET_ALLOW
#define KILL SECCOMP_RET_KILL_PROCESS

struct call {
	const char *what;
	uint32_t arch;
	int nr;
	uint64_t a[3];
	uint32_t with_unix;    /* the answer of sbx_filter_unix_allow */
	uint32_t without_unix; /* ... and of sbx_filter_unix_block */
};

static uint32_t decide(bool block, const struct call *c)
{
	struct seccomp_data d = { .nr = c->nr, .arch = c->arch };

	memcpy(d.args, c->a, sizeof(c->a));
	return block ? run(sbx_filter_unix_block, LEN(sbx_filter_unix_block), &d)
		     : run(sbx_filter_unix_allow, LEN(sbx_filter_unix_allow), &d);
}

#define HI (1ull << 32) /* high bits the kernel drops from an int */
#define SAME(what, nr, a0, a1, a2, ans) { what, NATIVE, nr, { a0, a1, a2 }, ans, ans }

static struct call calls[] = {
		SAME("read", __NR_read, 0, 0, 0, ALLOW),
		SAME("openat", __NR_openat, 0, 0, 0, ALLOW),
		SAME("ioctl TIOCSTI", __NR_ioctl, 0, TIOCSTI, 0, ERR(EPERM)),
		SAME("ioctl TIOCSTI, high bits", __NR_ioctl, 0, HI | TIOCSTI, 0, ERR(EPERM)),
		SAME("ioctl TIOCLINUX", __NR_ioctl, 0, TIOCLINUX, 0, ERR(EPERM)),
		SAME("ioctl TCGETS", __NR_ioctl, 0, TCGETS, 0, ALLOW),
		SAME("ioctl KDSKBMODE", __NR_ioctl, 0, KDSKBMODE, 4 /* K_OFF */, ERR(EPERM)),
		SAME("ioctl KDSKBMODE, high bits", __NR_ioctl, 0, HI | KDSKBMODE, 4, ERR(EPERM)),
		SAME("ioctl KDSETMODE", __NR_ioctl, 0, KDSETMODE, 1 /* KD_GRAPHICS */, ERR(EPERM)),
		SAME("ioctl VT_ACTIVATE", __NR_ioctl, 0, VT_ACTIVATE, 2, ERR(EPERM)),
		SAME("ioctl KIOCSOUND", __NR_ioctl, 0, KIOCSOUND, 1000, ERR(EPERM)),
		SAME("ioctl KDGKBMODE (a get)", __NR_ioctl, 0, KDGKBMODE, 0, ALLOW),
		SAME("ioctl KDGKBTYPE (a get)", __NR_ioctl, 0, KDGKBTYPE, 0, ALLOW),
		SAME("unshare NEWUSER", __NR_unshare, CLONE_NEWUSER | CLONE_NEWNS, 0, 0, ERR(EPERM)),
		SAME("unshare NEWNS (the kernel refuses: no capability)", __NR_unshare, CLONE_NEWNS, 0, 0, ALLOW),
		SAME("clone NEWUSER", __NR_clone, CLONE_NEWUSER, 0, 0, ERR(EPERM)),
		SAME("clone (fork)", __NR_clone, 17 /* SIGCHLD */, 0, 0, ALLOW),
		SAME("clone3", __NR_clone3, 0, 0, 0, ERR(ENOSYS)),
		SAME("io_uring_setup", __NR_io_uring_setup, 8, 0, 0, ERR(ENOSYS)),
		SAME("io_uring_enter", __NR_io_uring_enter, 3, 0, 0, ERR(ENOSYS)),
		SAME("io_uring_register", __NR_io_uring_register, 3, 0, 0, ERR(ENOSYS)),
		SAME("keyctl", __NR_keyctl, 11 /* KEYCTL_READ */, 0, 0, ERR(ENOSYS)),
		SAME("add_key", __NR_add_key, 0, 0, 0, ERR(ENOSYS)),
		SAME("request_key", __NR_request_key, 0, 0, 0, ERR(ENOSYS)),
		SAME("bpf", __NR_bpf, 0, 0, 0, ERR(EPERM)),
		SAME("perf_event_open", __NR_perf_event_open, 0, 0, 0, ERR(EACCES)),
		SAME("userfaultfd", __NR_userfaultfd, 1, 0, 0, ERR(EPERM)),
		SAME("kexec_load", __NR_kexec_load, 0, 0, 0, ERR(EPERM)),
		SAME("kexec_file_load", __NR_kexec_file_load, 0, 0, 0, ERR(EPERM)),
		SAME("reboot", __NR_reboot, 0, 0, 0, ERR(EPERM)),
		SAME("init_module", __NR_init_module, 0, 0, 0, ERR(EPERM)),
		SAME("finit_module", __NR_finit_module, 0, 0, 0, ERR(EPERM)),
		SAME("delete_module", __NR_delete_module, 0, 0, 0, ERR(EPERM)),
		SAME("mount", __NR_mount, 0, 0, 0, ERR(EPERM)),
		SAME("umount2", __NR_umount2, 0, 0, 0, ERR(EPERM)),
		SAME("pivot_root", __NR_pivot_root, 0, 0, 0, ERR(EPERM)),
		SAME("open_tree", __NR_open_tree, 0, 0, 0, ERR(EPERM)),
		SAME("move_mount", __NR_move_mount, 0, 0, 0, ERR(EPERM)),
		SAME("fsopen", __NR_fsopen, 0, 0, 0, ERR(EPERM)),
		SAME("fsconfig", __NR_fsconfig, 0, 0, 0, ERR(EPERM)),
		SAME("fsmount", __NR_fsmount, 0, 0, 0, ERR(EPERM)),
		SAME("fspick", __NR_fspick, 0, 0, 0, ERR(EPERM)),
		SAME("mount_setattr", __NR_mount_setattr, 0, 0, 0, ERR(EPERM)),
		SAME("setns", __NR_setns, 3, 0, 0, ERR(EPERM)),
		SAME("personality query", __NR_personality, 0xffffffff, 0, 0, ALLOW),
		SAME("personality PER_LINUX", __NR_personality, PER_LINUX, 0, 0, ALLOW),
		SAME("personality PER_LINUX32", __NR_personality, PER_LINUX32, 0, 0, ALLOW),
		SAME("personality READ_IMPLIES_EXEC", __NR_personality, READ_IMPLIES_EXEC, 0, 0, ERR(EPERM)),
		SAME("personality ADDR_NO_RANDOMIZE|PER_LINUX32", __NR_personality,
		     ADDR_NO_RANDOMIZE | PER_LINUX32, 0, 0, ERR(EPERM)),
		SAME("personality all but one bit", __NR_personality, 0x7fffffff, 0, 0, ERR(EPERM)),
		SAME("personality query in the high word", __NR_personality, HI | READ_IMPLIES_EXEC, 0, 0, ERR(EPERM)),
		SAME("socket AF_INET stream", __NR_socket, AF_INET, SOCK_STREAM, 0, ALLOW),
		SAME("socket AF_VSOCK", __NR_socket, AF_VSOCK, SOCK_STREAM, 0, ERR(EAFNOSUPPORT)),
		SAME("socket AF_VSOCK, high bits", __NR_socket, HI | AF_VSOCK, SOCK_DGRAM, 0,
		     ERR(EAFNOSUPPORT)),
		SAME("socket AF_INET ICMP datagram (ping)", __NR_socket, AF_INET, SOCK_DGRAM, 1, ALLOW),
		SAME("socket AF_INET raw", __NR_socket, AF_INET, SOCK_RAW | SOCK_CLOEXEC, 1, ERR(EPERM)),
		SAME("socket AF_INET6 raw", __NR_socket, AF_INET6, SOCK_RAW, 58, ERR(EPERM)),
		SAME("socket AF_INET SOCK_PACKET", __NR_socket, AF_INET, 10, 0, ERR(EPERM)),
		SAME("socket AF_PACKET", __NR_socket, AF_PACKET, SOCK_RAW, 0, ERR(EPERM)),
		SAME("socket AF_PACKET, high bits", __NR_socket, HI | AF_PACKET, SOCK_DGRAM, 0, ERR(EPERM)),
		SAME("socket NETLINK_ROUTE", __NR_socket, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE, ALLOW),
		SAME("socket NETLINK_SOCK_DIAG", __NR_socket, AF_NETLINK, SOCK_DGRAM, NETLINK_SOCK_DIAG, ALLOW),
		SAME("socket NETLINK_KOBJECT_UEVENT", __NR_socket, AF_NETLINK, SOCK_RAW,
		     NETLINK_KOBJECT_UEVENT, ERR(EPROTONOSUPPORT)),
		SAME("socket NETLINK_NETFILTER", __NR_socket, AF_NETLINK, SOCK_RAW, NETLINK_NETFILTER,
		     ERR(EPROTONOSUPPORT)),
		SAME("socket NETLINK_GENERIC, high bits", __NR_socket, AF_NETLINK, SOCK_RAW,
		     HI | NETLINK_GENERIC, ERR(EPROTONOSUPPORT)),
		SAME("socket NETLINK_AUDIT", __NR_socket, AF_NETLINK, SOCK_RAW, NETLINK_AUDIT,
		     ERR(EPROTONOSUPPORT)),
		{ "socket AF_UNIX", NATIVE, __NR_socket, { AF_UNIX, SOCK_STREAM, 0 }, ALLOW, ERR(EPERM) },
		{ "socket AF_UNIX, high bits", NATIVE, __NR_socket, { HI | AF_UNIX, SOCK_STREAM, 0 },
		  ALLOW, ERR(EPERM) },
		{ "socketpair AF_UNIX dgram", NATIVE, __NR_socketpair, { AF_UNIX, SOCK_DGRAM, 0 },
		  ALLOW, ERR(EPERM) },
		{ "socketpair AF_UNIX raw (a datagram socket)", NATIVE, __NR_socketpair,
		  { AF_UNIX, SOCK_RAW | SOCK_CLOEXEC, 0 }, ALLOW, ERR(EPERM) },
		SAME("socketpair AF_UNIX stream", __NR_socketpair, AF_UNIX, SOCK_STREAM, 0, ALLOW),
		{ "a foreign architecture's read", FOREIGN, 3, { 0, 0, 0 }, KILL, KILL },
#if defined(__x86_64__)
		SAME("x32 read", 0x40000000 | 0, 0, 0, 0, KILL),
#endif
};

ParameterizedTestParameters(seccomp_table, each_row_refuses_and_near_misses_pass)
{
	return cr_make_param_array(struct call, calls, LEN(calls));
}

ParameterizedTest(struct call *c, seccomp_table, each_row_refuses_and_near_misses_pass)
{
	cr_assert_eq(decide(false, c), c->with_unix, "%s (unix sockets allowed): 0x%08x",
		     c->what, decide(false, c));
	cr_assert_eq(decide(true, c), c->without_unix, "%s (unix sockets blocked): 0x%08x",
		     c->what, decide(true, c));
}

/* The Linux console: every request that sets a state the console keeps
 * after the run is refused, on any descriptor (the kernel's answer on a
 * terminal that is no console would be ENOTTY); every get passes. */
Test(seccomp_table, console_settings_refused_gets_pass)
{
	static const unsigned long set[] = {
		KDSKBMODE, KDSKBMETA, KDSKBLED, KDSETLED, KDSKBENT, KDSKBSENT, KDSKBDIACR,
		KDSKBDIACRUC, KDSETKEYCODE, KDKBDREP, KDSIGACCEPT, KDSETMODE, KDFONTOP,
		PIO_FONT, PIO_FONTX, PIO_FONTRESET, PIO_CMAP, PIO_SCRNMAP, PIO_UNISCRNMAP,
		PIO_UNIMAP, PIO_UNIMAPCLR, VT_ACTIVATE, VT_SETACTIVATE, VT_SETMODE, VT_RELDISP,
		VT_LOCKSWITCH, VT_UNLOCKSWITCH, VT_DISALLOCATE, VT_RESIZE, VT_RESIZEX,
		KIOCSOUND, KDMKTONE,
	};
	static const unsigned long get[] = {
		KDGKBMODE, KDGKBMETA, KDGKBLED, KDGETLED, KDGKBENT, KDGKBSENT, KDGKBDIACR,
		KDGKBDIACRUC, KDGETKEYCODE, KDGETMODE, KDGKBTYPE, GIO_FONT, GIO_FONTX, GIO_CMAP,
		GIO_SCRNMAP, GIO_UNISCRNMAP, GIO_UNIMAP, VT_OPENQRY, VT_GETMODE, VT_GETSTATE,
		VT_WAITACTIVE, VT_GETHIFONTMASK, VT_WAITEVENT,
	};

	for (size_t i = 0; i < LEN(set); i++)
		for (int hi = 0; hi < 2; hi++) {
			struct call c = { "set", NATIVE, __NR_ioctl, { 0, (hi ? HI : 0) | set[i], 0 },
					  0, 0 };
			cr_assert_eq(decide(false, &c), ERR(EPERM), "request 0x%lx", set[i]);
			cr_assert_eq(decide(true, &c), ERR(EPERM), "request 0x%lx", set[i]);
		}
	for (size_t i = 0; i < LEN(get); i++) {
		struct call c = { "get", NATIVE, __NR_ioctl, { 0, get[i], 0 }, 0, 0 };
		cr_assert_eq(decide(true, &c), ALLOW, "request 0x%lx", get[i]);
	}
}

/* Every netlink protocol the kernel knows: only the two glibc, ip and ss
 * need get through. */
Test(seccomp_table, netlink_only_route_and_sock_diag)
{
	for (uint64_t proto = 0; proto < MAX_LINKS; proto++) {
		struct call c = { "netlink", NATIVE, __NR_socket, { AF_NETLINK, SOCK_RAW, proto }, 0, 0 };
		uint32_t want = proto == NETLINK_ROUTE || proto == NETLINK_SOCK_DIAG ?
				ALLOW : ERR(EPROTONOSUPPORT);
		cr_assert_eq(decide(true, &c), want, "protocol %llu", (unsigned long long)proto);
	}
}

/* personality(): any value with either bit set is refused but the query;
 * every value without them passes. */
Test(seccomp_table, personality_bits_refused_query_kept)
{
	for (unsigned b = 0; b < 32; b++) {
		uint64_t v = 1ull << b;
		struct call c = { "personality", NATIVE, __NR_personality, { v, 0, 0 }, 0, 0 };
		uint32_t want = v == READ_IMPLIES_EXEC || v == ADDR_NO_RANDOMIZE ? ERR(EPERM) : ALLOW;
		cr_assert_eq(decide(true, &c), want, "bit %u", b);
		c.a[0] = 0xffffffffu & ~v;
		cr_assert_eq(decide(true, &c), ERR(EPERM), "all bits but %u", b);
	}
}

/* With the notify layer (gen-filters.c, NOTIFIED): every row the table
 * refuses goes to the listener instead (clone3 aside: libc's own fallback),
 * what passes still passes, and the supervisor's row finder names a row
 * whose errno is the one the plain table answers. */
ParameterizedTestParameters(seccomp_table, notified_rows_go_to_the_listener_with_their_errno)
{
	return cr_make_param_array(struct call, calls, LEN(calls));
}

ParameterizedTest(struct call *c, seccomp_table, notified_rows_go_to_the_listener_with_their_errno)
{
	struct seccomp_data d = { .nr = c->nr, .arch = c->arch };
	uint32_t plain = decide(false, c);

	memcpy(d.args, c->a, sizeof(c->a));
	uint32_t notified = run(sbx_filter_notified, LEN(sbx_filter_notified), &d);
	int row = c->arch == NATIVE ? notify_deny_row(&d) : -1;
	if (plain == ALLOW || plain == KILL || c->nr == __NR_clone3) {
		cr_assert_eq(notified, plain, "%s: 0x%08x", c->what, notified);
		cr_assert_eq(row, -1, "%s: row %d", c->what, row);
		return;
	}
	cr_assert_eq(notified, SECCOMP_RET_USER_NOTIF, "%s: 0x%08x", c->what, notified);
	cr_assert(row >= 0, "%s: no row", c->what);
	cr_assert_eq(ERR(sbx_deny_rows[row].err), plain, "%s: row %d (%s)", c->what, row,
		     sbx_deny_rows[row].calls);
}

/* sendto/sendmsg/sendmmsg with MSG_FASTOPEN connect a TCP socket past
 * connect(): refused, whatever else the flags hold; other flags pass. */
Test(seccomp_table, msg_fastopen_refused_other_flags_pass)
{
	static const struct { int nr; unsigned arg; } sends[] = {
		{ __NR_sendto, 3 }, { __NR_sendmsg, 2 }, { __NR_sendmmsg, 3 },
	};
	for (size_t i = 0; i < LEN(sends); i++)
		for (int notified = 0; notified < 2; notified++) {
			struct seccomp_data d = { .nr = sends[i].nr, .arch = NATIVE };
			const struct sock_filter *p = notified ? sbx_filter_notified : sbx_filter_unix_allow;
			size_t n = notified ? LEN(sbx_filter_notified) : LEN(sbx_filter_unix_allow);
			d.args[sends[i].arg] = MSG_NOSIGNAL | MSG_DONTWAIT;
			cr_assert_eq(run(p, n, &d), ALLOW, "nr %d", sends[i].nr);
			d.args[sends[i].arg] = HI | MSG_FASTOPEN | MSG_NOSIGNAL;
			cr_assert_eq(run(p, n, &d), notified ? SECCOMP_RET_USER_NOTIF : ERR(EOPNOTSUPP),
				     "nr %d", sends[i].nr);
			if (notified) {
				int row = notify_deny_row(&d);
				cr_assert(row >= 0 && sbx_deny_rows[row].err == EOPNOTSUPP);
			}
		}
}

/* With the notify layer COMMAND runs under one program, gen-notify.c's,
 * installed alone (pid 1 takes the table itself): it holds the table.
 * Every call above answers as the notified table does (its rows to the
 * listener, clone3 ENOSYS, a foreign architecture killed, the near misses
 * passing), in all four variants; Unix datagram sockets aside, which the
 * _block programs refuse themselves (the table's own AF_UNIX row is not
 * taken: a stream socket is decided at connect()). */
static const struct notify_prog {
	const char *name;
	const struct sock_filter *p;
	size_t n;
	bool block, nobind;
} notify_progs[] = {
	{ "sbx_notify_unix_all", sbx_notify_unix_all, LEN(sbx_notify_unix_all), false, false },
	{ "sbx_notify_unix_block", sbx_notify_unix_block, LEN(sbx_notify_unix_block), true, false },
	{ "sbx_notify_unix_all_nobind", sbx_notify_unix_all_nobind,
	  LEN(sbx_notify_unix_all_nobind), false, true },
	{ "sbx_notify_unix_block_nobind", sbx_notify_unix_block_nobind,
	  LEN(sbx_notify_unix_block_nobind), true, true },
};

ParameterizedTestParameters(seccomp_table, notify_programs_hold_the_table)
{
	return cr_make_param_array(struct call, calls, LEN(calls));
}

ParameterizedTest(struct call *c, seccomp_table, notify_programs_hold_the_table)
{
	struct seccomp_data d = { .nr = c->nr, .arch = c->arch };

	memcpy(d.args, c->a, sizeof(c->a));
	uint32_t table = run(sbx_filter_notified, LEN(sbx_filter_notified), &d);
	unsigned type = (unsigned)c->a[1] & 0xf;
	bool unix_dgram = c->arch == NATIVE && (c->nr == __NR_socket || c->nr == __NR_socketpair) &&
			  (uint32_t)c->a[0] == AF_UNIX && (type == SOCK_DGRAM || type == SOCK_RAW);
	for (size_t i = 0; i < LEN(notify_progs); i++) {
		const struct notify_prog *np = &notify_progs[i];
		uint32_t want = np->block && unix_dgram ? ERR(EPERM) : table;
		uint32_t got = run(np->p, np->n, &d);
		cr_assert_eq(got, want, "%s, %s: 0x%08x, the table 0x%08x", c->what, np->name, got,
			     table);
	}
}

/* And what only the notify layer asks: a write open, a name made or
 * renamed, connect and bind notified; a read-only open passes in BPF;
 * listen only where allow_local_binding = false. */
Test(seccomp_table, notify_programs_notify_names_and_connects)
{
	static const struct { const char *what; int nr; uint64_t a[3]; uint32_t want, nobind; } c[] = {
		{ "openat O_RDONLY", __NR_openat, { 0, 0, O_RDONLY }, ALLOW, ALLOW },
		{ "openat O_CREAT", __NR_openat, { 0, 0, O_CREAT }, SECCOMP_RET_USER_NOTIF,
		  SECCOMP_RET_USER_NOTIF },
		{ "openat O_WRONLY, high bits", __NR_openat, { 0, 0, HI | O_WRONLY },
		  SECCOMP_RET_USER_NOTIF, SECCOMP_RET_USER_NOTIF },
		{ "openat high bits only", __NR_openat, { 0, 0, HI }, ALLOW, ALLOW },
		{ "mkdirat", __NR_mkdirat, { 0, 0, 0 }, SECCOMP_RET_USER_NOTIF, SECCOMP_RET_USER_NOTIF },
		{ "renameat2", __NR_renameat2, { 0, 0, 0 }, SECCOMP_RET_USER_NOTIF,
		  SECCOMP_RET_USER_NOTIF },
		{ "connect", __NR_connect, { 3, 0, 16 }, SECCOMP_RET_USER_NOTIF, SECCOMP_RET_USER_NOTIF },
		{ "bind", __NR_bind, { 3, 0, 16 }, SECCOMP_RET_USER_NOTIF, SECCOMP_RET_USER_NOTIF },
		{ "listen", __NR_listen, { 3, 8, 0 }, ALLOW, SECCOMP_RET_USER_NOTIF },
		{ "read", __NR_read, { 0, 0, 0 }, ALLOW, ALLOW },
	};
	for (size_t i = 0; i < LEN(notify_progs); i++)
		for (size_t k = 0; k < LEN(c); k++) {
			struct seccomp_data d = { .nr = c[k].nr, .arch = NATIVE };
			memcpy(d.args, c[k].a, sizeof(c[k].a));
			uint32_t got = run(notify_progs[i].p, notify_progs[i].n, &d);
			cr_assert_eq(got, notify_progs[i].nobind ? c[k].nobind : c[k].want,
				     "%s, %s: 0x%08x", c[k].what, notify_progs[i].name, got);
		}
}

/* The nested mode's programs sbx-init stacks on the table (sbx-init.c,
 * apply_nested_filter): sbx_filter_nested_net when the network is not
 * open (only what Landlock's TCP rules see: a TCP stream socket of the
 * inet families), sbx_filter_nested_trunc on a Landlock before ABI 3
 * (truncation by path, an O_TRUNC open that is not for writing). */
struct nested_call {
	const char *what;
	int nr;
	uint64_t a[3];
	uint32_t net, trunc; /* each program's answer */
};

#define NC(what, nr, a0, a1, a2, net, trunc) { what, nr, { a0, a1, a2 }, net, trunc }

static struct nested_call nested_calls[] = {
	NC("TCP", __NR_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0, ALLOW, ALLOW),
	NC("TCP by its number", __NR_socket, AF_INET6, SOCK_STREAM, 6, ALLOW, ALLOW),
	NC("IPPROTO_SMC", __NR_socket, AF_INET, SOCK_STREAM, 256, ERR(EPERM), ALLOW),
	NC("IPPROTO_SMC, IPv6", __NR_socket, AF_INET6, SOCK_STREAM | SOCK_NONBLOCK, 256, ERR(EPERM), ALLOW),
	NC("MPTCP", __NR_socket, AF_INET, SOCK_STREAM, 262, ERR(EPERM), ALLOW),
	NC("SCTP, seqpacket, protocol 0", __NR_socket, AF_INET, SOCK_SEQPACKET, 0, ERR(EPERM), ALLOW),
	NC("SCTP, stream", __NR_socket, AF_INET6, SOCK_STREAM, 132, ERR(EPERM), ALLOW),
	NC("DCCP", __NR_socket, AF_INET, 6 /* SOCK_DCCP */, 0, ERR(EPERM), ALLOW),
	NC("TCP with high bits in the protocol (fail closed)", __NR_socket, AF_INET, SOCK_STREAM,
	   HI | 6, ERR(EPERM), ALLOW),
	NC("AF_SMC", __NR_socket, 43, SOCK_STREAM, 0, ERR(EPERM), ALLOW),
	NC("AF_RXRPC", __NR_socket, 33, SOCK_DGRAM, 2, ERR(EPERM), ALLOW),
	NC("AF_TIPC", __NR_socket, 30, SOCK_RDM, 0, ERR(EPERM), ALLOW),
	NC("a family above AF_MAX", __NR_socket, 200, SOCK_STREAM, 0, ERR(EPERM), ALLOW),
	NC("AF_SMC in the low word, high bits", __NR_socket, HI | 43, SOCK_STREAM, 0, ERR(EPERM), ALLOW),
	NC("AF_UNIX", __NR_socket, AF_UNIX, SOCK_STREAM, 0, ALLOW, ALLOW),
	NC("AF_NETLINK", __NR_socket, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE, ALLOW, ALLOW),
	NC("truncate", __NR_truncate, 0x1000, 0, 0, ALLOW, ERR(EACCES)),
	NC("ftruncate (a descriptor open for writing)", __NR_ftruncate, 3, 0, 0, ALLOW, ALLOW),
	NC("openat O_RDONLY|O_TRUNC", __NR_openat, AT_FDCWD, 0x1000, O_RDONLY | O_TRUNC, ALLOW,
	   ERR(EACCES)),
	NC("openat access mode 3, O_TRUNC", __NR_openat, AT_FDCWD, 0x1000, 3 | O_TRUNC, ALLOW,
	   ERR(EACCES)),
	NC("openat O_WRONLY|O_TRUNC (Landlock's write right)", __NR_openat, AT_FDCWD, 0x1000,
	   O_WRONLY | O_CREAT | O_TRUNC, ALLOW, ALLOW),
	NC("openat O_RDWR|O_TRUNC", __NR_openat, AT_FDCWD, 0x1000, O_RDWR | O_TRUNC, ALLOW, ALLOW),
	NC("openat O_RDONLY", __NR_openat, AT_FDCWD, 0x1000, O_RDONLY | O_CLOEXEC, ALLOW, ALLOW),
#ifdef __NR_open
	NC("open O_RDONLY|O_TRUNC", __NR_open, 0x1000, O_RDONLY | O_TRUNC, 0, ALLOW, ERR(EACCES)),
	NC("open O_WRONLY|O_TRUNC", __NR_open, 0x1000, O_WRONLY | O_TRUNC, 0, ALLOW, ALLOW),
#endif
	NC("open_by_handle_at O_RDONLY|O_TRUNC", __NR_open_by_handle_at, 3, 0x1000, O_TRUNC, ALLOW,
	   ERR(EACCES)),
	NC("openat2", __NR_openat2, AT_FDCWD, 0x1000, 0x2000, ALLOW, ERR(ENOSYS)),
};

ParameterizedTestParameters(seccomp_table, nested_programs_refuse_what_landlock_cannot)
{
	return cr_make_param_array(struct nested_call, nested_calls, LEN(nested_calls));
}

ParameterizedTest(struct nested_call *c, seccomp_table, nested_programs_refuse_what_landlock_cannot)
{
	struct seccomp_data d = { .nr = c->nr, .arch = NATIVE };
	uint32_t net, trunc;

	memcpy(d.args, c->a, sizeof(c->a));
	net = run(sbx_filter_nested_net, LEN(sbx_filter_nested_net), &d);
	trunc = run(sbx_filter_nested_trunc, LEN(sbx_filter_nested_trunc), &d);
	cr_assert_eq(net, c->net, "%s (network not open): 0x%08x", c->what, net);
	cr_assert_eq(trunc, c->trunc, "%s (Landlock ABI < 3): 0x%08x", c->what, trunc);
}
