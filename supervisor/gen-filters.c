/* supervisor/gen-filters.c: sbx-init's seccomp table, compiled at build time.
 *
 * `rules[]` below is the whole table: every system call the sandbox refuses,
 * when, with which errno, and why, one row each. From it this program writes
 *   gen-filters            a C header with two classic-BPF programs for this
 *                          architecture: sbx_filter_unix_allow and
 *                          sbx_filter_unix_block (the same, plus the rows
 *                          marked [block]: unless allow_all_unix_sockets)
 *   gen-filters --table    the table as Markdown, as docs/SECURITY.md shows
 *                          it (`make check-docs` compares the two)
 * Every other system call is allowed: the boundary is the namespaces and
 * mounts, and this filter closes what they cannot, or adds depth where they
 * already do (COMMAND holds no capability, so mount, setns and module calls
 * fail anyway; here they fail before reaching the code that checks).
 *
 * Another architecture's entry point (int $0x80 on x86_64, x32's numbers
 * with bit 30 set under x86_64's own AUDIT_ARCH, aarch64's 32-bit compat)
 * indexes another call table, where no rule here applies: the filter holds
 * only the native architecture, and anything else kills the process.
 *
 * An argument the kernel declares narrower than a register is compared on
 * the bits the kernel keeps: it truncates an `int` or `unsigned int` to the
 * low 32 bits, so a comparison of all 64 would let 0x100000001 pass as
 * AF_UNIX (CVE-2019-10063 in flatpak was the same with ioctl's request).
 * Every comparison here is a masked one for that reason (LOW32, or a mask
 * of bits within it).
 */
#include <errno.h>
#include <linux/netlink.h>
#include <sched.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <unistd.h>

/* clone()'s flags: the second argument on s390, the first elsewhere. */
#if defined(__s390__) || defined(__s390x__)
#define CLONE_FLAGS_ARG 1
#else
#define CLONE_FLAGS_ARG 0
#endif

/* The low 32 bits of an argument, for a comparison with an int or unsigned
 * int the kernel truncates: libseccomp then tests only the low word (the
 * high half of the mask is zero, so any high bits pass the test unseen,
 * exactly as the kernel ignores them). */
#define LOW32 0xffffffffu

/* Bits of socket()'s and socketpair()'s type that name the type; the rest
 * are SOCK_CLOEXEC and SOCK_NONBLOCK (the kernel's SOCK_TYPE_MASK). */
#define TYPE_MASK 0xfu

#ifndef SOCK_PACKET
#define SOCK_PACKET 10
#endif

enum when { ALWAYS, BLOCK_UNIX };

/* One comparison: argument `arg` masked with `mask` equals `value`. */
struct cond {
	unsigned arg;
	scmp_datum_t mask, value;
};

struct rule {
	const char *calls;     /* one or more system calls, space-separated */
	int err;               /* the errno returned */
	const char *errname;
	enum when when;
	const char *refused;   /* which calls, for the table ("" = every one) */
	const char *why;       /* one line */
	/* Conditions (all must hold), or a function adding its own rules for
	 * what one comparison per argument cannot say. */
	unsigned ncond;
	struct cond cond[2];
	int (*add)(scmp_filter_ctx ctx, const struct rule *r, int nr);
};

#define E(e) e, #e
#define ARG(n, m, v) { (n), (m), (v) }

static int add_personality(scmp_filter_ctx ctx, const struct rule *r, int nr);
static int add_netlink(scmp_filter_ctx ctx, const struct rule *r, int nr);

/* The table. Keep each `why` to one line: it is the documentation. */
static const struct rule rules[] = {
	{ "ioctl", E(EPERM), ALWAYS, "request TIOCSTI",
	  "pushes bytes into the terminal's input: types into the shell that ran sbx",
	  1, { ARG(1, LOW32, TIOCSTI) }, NULL },
	{ "ioctl", E(EPERM), ALWAYS, "request TIOCLINUX",
	  "on a virtual console, TIOCLINUX pastes the selection: the same injection",
	  1, { ARG(1, LOW32, TIOCLINUX) }, NULL },
	/* unshare(unsigned long) keeps all 64 bits (any above 31 is EINVAL),
	 * clone(unsigned long, ...) the low 32 (lower_32_bits() in
	 * kernel/fork.c): either way CLONE_NEWUSER (bit 28) is in the low word,
	 * and the mask's high half is zero, so no high bit can hide it. */
	{ "unshare", E(EPERM), ALWAYS, "flags with CLONE_NEWUSER",
	  "a user namespace of its own holds every capability over its own mounts",
	  1, { ARG(0, CLONE_NEWUSER, CLONE_NEWUSER) }, NULL },
	{ "clone", E(EPERM), ALWAYS, "flags with CLONE_NEWUSER",
	  "the same, at fork time",
	  1, { ARG(CLONE_FLAGS_ARG, CLONE_NEWUSER, CLONE_NEWUSER) }, NULL },
	{ "clone3", E(ENOSYS), ALWAYS, "",
	  "its flags sit behind a pointer no filter can read; libc falls back to clone()",
	  0, { { 0, 0, 0 } }, NULL },
	/* ENOSYS, as from a kernel built without io_uring: libuv (Node) takes
	 * any io_uring_setup failure for "absent" and stays on epoll; glibc
	 * never uses io_uring. _enter and _register for a ring descriptor
	 * inherited from outside. */
	{ "io_uring_setup io_uring_enter io_uring_register", E(ENOSYS), ALWAYS, "",
	  "its operations (IORING_OP_SOCKET, _OPENAT...) run without a system call this filter sees",
	  0, { { 0, 0, 0 } }, NULL },
	/* ENOSYS, as a kernel without CONFIG_KEYS: krb5, systemd and
	 * credential helpers then keep to their file caches. */
	{ "keyctl add_key request_key", E(ENOSYS), ALWAYS, "",
	  "the caller's session keyring holds Kerberos tickets, ecryptfs and helper secrets",
	  0, { { 0, 0, 0 } }, NULL },
	{ "bpf", E(EPERM), ALWAYS, "",
	  "verifier and map code is kernel attack surface; EPERM as unprivileged_bpf_disabled says",
	  0, { { 0, 0, 0 } }, NULL },
	{ "perf_event_open", E(EACCES), ALWAYS, "",
	  "side channels and a large kernel surface; EACCES as perf_event_paranoid says",
	  0, { { 0, 0, 0 } }, NULL },
	{ "userfaultfd", E(EPERM), ALWAYS, "",
	  "stalls kernel copies at will, the usual way to win a kernel race; EPERM as vm.unprivileged_userfaultfd = 0",
	  0, { { 0, 0, 0 } }, NULL },
	{ "kexec_load kexec_file_load reboot", E(EPERM), ALWAYS, "",
	  "replace or stop the running kernel (no capability is left: depth)",
	  0, { { 0, 0, 0 } }, NULL },
	{ "init_module finit_module delete_module", E(EPERM), ALWAYS, "",
	  "load or unload kernel code (no capability is left: depth)",
	  0, { { 0, 0, 0 } }, NULL },
	{ "mount umount2 pivot_root", E(EPERM), ALWAYS, "",
	  "change the mounts sbx-init made (no capability is left: depth)",
	  0, { { 0, 0, 0 } }, NULL },
	{ "open_tree move_mount fsopen fsconfig fsmount fspick mount_setattr", E(EPERM), ALWAYS, "",
	  "the new mount API: the same, by descriptor (no capability is left: depth)",
	  0, { { 0, 0, 0 } }, NULL },
	{ "setns", E(EPERM), ALWAYS, "",
	  "join another namespace through an inherited descriptor (no capability is left: depth)",
	  0, { { 0, 0, 0 } }, NULL },
	{ "personality", E(EPERM), ALWAYS, "READ_IMPLIES_EXEC or ADDR_NO_RANDOMIZE set (the 0xffffffff query stays)",
	  "every readable mapping executable, or no ASLR: an exploit's first wish",
	  0, { { 0, 0, 0 } }, add_personality },
	{ "socket", E(EPERM), ALWAYS, "domain AF_PACKET",
	  "raw frames on an interface: sniffing and spoofing (needs CAP_NET_RAW: depth)",
	  1, { ARG(0, LOW32, AF_PACKET) }, NULL },
	{ "socket", E(EPERM), ALWAYS, "AF_INET, type SOCK_RAW",
	  "hand-made IP packets (needs CAP_NET_RAW: depth); ping uses ICMP datagram sockets",
	  2, { ARG(0, LOW32, AF_INET), ARG(1, TYPE_MASK, SOCK_RAW) }, NULL },
	{ "socket", E(EPERM), ALWAYS, "AF_INET6, type SOCK_RAW",
	  "the same for IPv6",
	  2, { ARG(0, LOW32, AF_INET6), ARG(1, TYPE_MASK, SOCK_RAW) }, NULL },
	{ "socket", E(EPERM), ALWAYS, "AF_INET, type SOCK_PACKET",
	  "the old packet socket, under AF_INET",
	  2, { ARG(0, LOW32, AF_INET), ARG(1, TYPE_MASK, SOCK_PACKET) }, NULL },
	{ "socket", E(EPROTONOSUPPORT), ALWAYS, "AF_NETLINK but NETLINK_ROUTE and NETLINK_SOCK_DIAG",
	  "glibc (getifaddrs, AI_ADDRCONFIG), ip and ss need only those two; the rest is kernel surface (nf_tables, generic, uevents, audit)",
	  0, { { 0, 0, 0 } }, add_netlink },
	{ "socket", E(EPERM), BLOCK_UNIX, "domain AF_UNIX",
	  "a socket file connects through a read-only bind: the docker socket, the session bus",
	  1, { ARG(0, LOW32, AF_UNIX) }, NULL },
	{ "socketpair", E(EPERM), BLOCK_UNIX, "AF_UNIX, type SOCK_DGRAM",
	  "a datagram socket names its peer on each sendto(): /dev/log, journald",
	  2, { ARG(0, LOW32, AF_UNIX), ARG(1, TYPE_MASK, SOCK_DGRAM) }, NULL },
	{ "socketpair", E(EPERM), BLOCK_UNIX, "AF_UNIX, type SOCK_RAW",
	  "the kernel makes an AF_UNIX SOCK_RAW socket a datagram one (unix_create)",
	  2, { ARG(0, LOW32, AF_UNIX), ARG(1, TYPE_MASK, SOCK_RAW) }, NULL },
};

static int add_cond(scmp_filter_ctx ctx, int err, int nr, unsigned n, const struct cond *c)
{
	struct scmp_arg_cmp cmp[2];

	for (unsigned i = 0; i < n; i++)
		cmp[i] = (struct scmp_arg_cmp){ c[i].arg, SCMP_CMP_MASKED_EQ, c[i].mask, c[i].value };
	return seccomp_rule_add_array(ctx, SCMP_ACT_ERRNO(err), nr, n, cmp);
}

/* personality(unsigned int): refused when BIT is set, unless the value is
 * 0xffffffff (a query, which changes nothing). libseccomp compares an
 * argument once per rule, so "BIT set and not all bits set" is one rule per
 * other bit: BIT set and that bit clear. */
static int add_personality(scmp_filter_ctx ctx, const struct rule *r, int nr)
{
	static const unsigned long bits[] = { READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE };

	for (size_t i = 0; i < sizeof(bits) / sizeof(*bits); i++)
		for (unsigned b = 0; b < 32; b++) {
			struct cond c = { 0, bits[i] | (1ul << b), bits[i] };
			if ((1ul << b) != bits[i] && add_cond(ctx, r->err, nr, 1, &c))
				return -1;
		}
	return 0;
}

/* socket(AF_NETLINK, any, protocol): one rule per protocol the kernel knows
 * (it refuses any at or above MAX_LINKS itself), but the two kept. */
static int add_netlink(scmp_filter_ctx ctx, const struct rule *r, int nr)
{
	for (unsigned proto = 0; proto < MAX_LINKS; proto++) {
		struct cond c[2] = { { 0, LOW32, AF_NETLINK }, { 2, LOW32, proto } };
		if (proto == NETLINK_ROUTE || proto == NETLINK_SOCK_DIAG)
			continue;
		if (add_cond(ctx, r->err, nr, 2, c))
			return -1;
	}
	return 0;
}

/* Each call of a row. A call this architecture does not have (libseccomp
 * gives a negative pseudo number) is skipped: nothing can make it. */
static int add_rule(scmp_filter_ctx ctx, const struct rule *r)
{
	char names[256], *save = NULL;

	snprintf(names, sizeof(names), "%s", r->calls);
	for (char *n = strtok_r(names, " ", &save); n; n = strtok_r(NULL, " ", &save)) {
		int nr = seccomp_syscall_resolve_name(n);
		if (nr == __NR_SCMP_ERROR) {
			fprintf(stderr, "gen-filters: libseccomp does not know %s\n", n);
			return -1;
		}
		if (nr < 0)
			continue;
		if (r->add ? r->add(ctx, r, nr) : add_cond(ctx, r->err, nr, r->ncond, r->cond)) {
			fprintf(stderr, "gen-filters: cannot add the rule for %s\n", n);
			return -1;
		}
	}
	return 0;
}

static scmp_filter_ctx build(bool block_unix)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	if (!ctx)
		return NULL;
	/* Written here, not left to libseccomp's default (which kills only the
	 * calling thread): a call through another architecture's entry point
	 * kills the whole process, which no thread of it survives to retry. The
	 * filter holds only the native architecture, so libseccomp checks the
	 * arch first and, on x86_64, refuses numbers with the x32 bit. */
	if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS))
		goto fail;
	/* A binary search over the call numbers: read() and openat() then pass
	 * a handful of comparisons, not one per row (bench/shim: open/close). */
	if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2))
		goto fail;
	for (size_t i = 0; i < sizeof(rules) / sizeof(*rules); i++)
		if ((rules[i].when == ALWAYS || block_unix) && add_rule(ctx, &rules[i]))
			goto fail;
	return ctx;
fail:
	seccomp_release(ctx);
	return NULL;
}

static int emit(const char *name, bool block_unix)
{
	scmp_filter_ctx ctx = build(block_unix);
	FILE *tmp = tmpfile();
	struct { unsigned short code; unsigned char jt, jf; unsigned int k; } ins;
	size_t n = 0;

	if (!ctx || !tmp || seccomp_export_bpf(ctx, fileno(tmp)) ||
	    fflush(tmp) || fseek(tmp, 0, SEEK_SET)) {
		fprintf(stderr, "gen-filters: cannot build %s\n", name);
		return 1;
	}
	/* seccomp_export_bpf wrote with write(2); rewind the FILE too. */
	lseek(fileno(tmp), 0, SEEK_SET);
	printf("static const struct sock_filter %s[] = {\n", name);
	while (read(fileno(tmp), &ins, sizeof(ins)) == (ssize_t)sizeof(ins)) {
		printf("\t{ 0x%04x, %u, %u, 0x%08x },\n", ins.code, ins.jt, ins.jf, ins.k);
		n++;
	}
	printf("};\n\n");
	fclose(tmp);
	seccomp_release(ctx);
	return n ? 0 : 1;
}

/* The table as docs/SECURITY.md shows it, between its markers. */
static void table(void)
{
	printf("| system call | refused when | errno | why |\n| --- | --- | --- | --- |\n");
	for (size_t i = 0; i < sizeof(rules) / sizeof(*rules); i++) {
		const struct rule *r = &rules[i];
		printf("| `%s` | %s%s | %s | %s |\n", r->calls,
		       r->when == BLOCK_UNIX ? "[block] " : "",
		       *r->refused ? r->refused : "always", r->errname, r->why);
	}
	printf("| any call through another architecture's entry point (i386, x32; arm32 on aarch64) "
	       "| always | process killed (SIGSYS) | another call table, where no rule here applies |\n");
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "--table")) {
		table();
		return 0;
	}
	if (argc != 1) {
		fprintf(stderr, "usage: gen-filters [--table]\n");
		return 2;
	}
	printf("/* Generated by supervisor/gen-filters.c at build time. Do not edit. */\n"
	       "#include <linux/filter.h>\n\n");
	return emit("sbx_filter_unix_allow", false) | emit("sbx_filter_unix_block", true);
}
