/* seccomp/rules.h: the seccomp table, `rules[]`, shared by the
 * two build-time generators (gen-filters.c: the deny programs, the table
 * for docs/SECURITY.md and the notify layer's row finder; gen-notify.c:
 * the user-notification programs, which carry the rows to be reported).
 * Static definitions: included by those two programs only, never by code
 * that runs in a sandbox or a supervisor. */
#ifndef SBX_SECCOMP_RULES_H
#define SBX_SECCOMP_RULES_H

#include <errno.h>
#include <fcntl.h>
#include <linux/kd.h>
#include <linux/netlink.h>
#include <linux/vt.h>
#include <sched.h>
#include <seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/stat.h>

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

/* ALWAYS and BLOCK_UNIX rows make the table; NESTED rows are for the
 * nested mode, where Landlock, not read-only mounts, keeps files as they
 * are, and Landlock (ABI 7) has no right for a file's mode, owner or
 * extended attributes (the extended attributes, refused there for every
 * user: a filter cannot read the path, and an ACL on ~/.bashrc lets
 * another user write it; the set-ID modes are refused in every mode,
 * since a workspace's files outlive the run): NESTED_ROOT rows too when the run is root's (who
 * owns the system's files, so their modes are its to change); NESTED_NET
 * rows when the network is not open there (Landlock has TCP rules only,
 * and the host's network is COMMAND's); NESTED_NOTRUNC rows when the
 * kernel's Landlock is older than ABI 3 (Linux 6.2), which has no right
 * for truncation: truncate(2) and an O_TRUNC open of a file opened for
 * reading pass Landlock there. */
enum when { ALWAYS, BLOCK_UNIX, NESTED, NESTED_ROOT, NESTED_NET, NESTED_NOTRUNC };

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
	int (*add)(scmp_filter_ctx ctx, const struct rule *r, int nr, uint32_t action);
	/* Not reported when refused (the notify layer's reports): a call
	 * libc makes on its own and takes the refusal of as "fall back". */
	bool quiet;
};

#define E(e) e, #e
#define ARG(n, m, v) { (n), (m), (v) }

static int add_personality(scmp_filter_ctx ctx, const struct rule *r, int nr, uint32_t action);
static int add_netlink(scmp_filter_ctx ctx, const struct rule *r, int nr, uint32_t action);
static int add_setid(scmp_filter_ctx ctx, const struct rule *r, int nr, uint32_t action);
static int add_other_write(scmp_filter_ctx ctx, const struct rule *r, int nr, uint32_t action);
static int add_stream_other(scmp_filter_ctx ctx, const struct rule *r, int nr, uint32_t action);
static int add_requests(scmp_filter_ctx ctx, const struct rule *r, int nr, uint32_t action);
static int add_family_other(scmp_filter_ctx ctx, const struct rule *r, int nr, uint32_t action);
static int add_trunc_open(scmp_filter_ctx ctx, const struct rule *r, int nr, uint32_t action);

/* The table. Keep each `why` to one line: it is the documentation. */
static const struct rule rules[] = {
	{ "ioctl", E(EPERM), ALWAYS, "request TIOCSTI",
	  "pushes bytes into the terminal's input: types into the shell that ran sbx",
	  1, { ARG(1, LOW32, TIOCSTI) }, NULL, false },
	{ "ioctl", E(EPERM), ALWAYS, "request TIOCLINUX",
	  "on a virtual console, TIOCLINUX pastes the selection: the same injection",
	  1, { ARG(1, LOW32, TIOCLINUX) }, NULL, false },
	{ "ioctl", E(EPERM), ALWAYS, "request TIOCSETD",
	  "a line discipline on the shared terminal outlives the run (N_NULL: the shell reads nothing); n_hdlc, n_gsm are kernel surface",
	  1, { ARG(1, LOW32, TIOCSETD) }, NULL, false },
	{ "ioctl", E(EPERM), ALWAYS, "request TIOCEXCL",
	  "the shared terminal would refuse every later open after the run (sudo's, ssh's /dev/tty prompts: EBUSY)",
	  1, { ARG(1, LOW32, TIOCEXCL) }, NULL, false },
	{ "ioctl", E(EPERM), ALWAYS, "request TCXONC",
	  "tcflow(TCOOFF) stops the shared terminal's output: sbx-preload's next line there blocked it for good, and the shell after",
	  1, { ARG(1, LOW32, TCXONC) }, NULL, false },
	/* The Linux console (drivers/tty/vt): every request that sets a
	 * state the console keeps after the run, as TIOCSETD is for any
	 * terminal. A program whose terminal is a console may make them
	 * (vt_ioctl.c's `perm`: its controlling tty). The gets (KDGKBMODE,
	 * KDGETMODE, KDGKBTYPE, VT_GETSTATE...) stay: programs ask them to
	 * learn whether they run on a console. add_requests() reads the
	 * requests from the row's own text. */
	{ "ioctl", E(EPERM), ALWAYS, "request KDSKBMODE, KDSKBMETA, KDSKBLED, KDSETLED, KDSKBENT, "
	  "KDSKBSENT, KDSKBDIACR, KDSKBDIACRUC, KDSETKEYCODE, KDKBDREP, KDSIGACCEPT",
	  "the console's keyboard (mode, keymap, LEDs, repeat) outlives the run: KDSKBMODE K_OFF left it dead",
	  0, { { 0, 0, 0 } }, add_requests, false },
	{ "ioctl", E(EPERM), ALWAYS, "request KDSETMODE, KDFONTOP, PIO_FONT, PIO_FONTX, PIO_FONTRESET, "
	  "PIO_CMAP, PIO_SCRNMAP, PIO_UNISCRNMAP, PIO_UNIMAP, PIO_UNIMAPCLR",
	  "the console's screen (graphics mode, font, colours, character maps) outlives the run: KD_GRAPHICS leaves it blank",
	  0, { { 0, 0, 0 } }, add_requests, false },
	{ "ioctl", E(EPERM), ALWAYS, "request VT_ACTIVATE, VT_SETACTIVATE, VT_SETMODE, VT_RELDISP, "
	  "VT_LOCKSWITCH, VT_UNLOCKSWITCH, VT_DISALLOCATE, VT_RESIZE, VT_RESIZEX",
	  "which console is shown and how it switches: another console brought up, or switching locked, after the run",
	  0, { { 0, 0, 0 } }, add_requests, false },
	{ "ioctl", E(EPERM), ALWAYS, "request KIOCSOUND, KDMKTONE",
	  "the console's speaker: KIOCSOUND sounds until told to stop, after the run too",
	  0, { { 0, 0, 0 } }, add_requests, false },
	/* unshare(unsigned long) keeps all 64 bits (any above 31 is EINVAL),
	 * clone(unsigned long, ...) the low 32 (lower_32_bits() in
	 * kernel/fork.c): either way CLONE_NEWUSER (bit 28) is in the low word,
	 * and the mask's high half is zero, so no high bit can hide it. */
	{ "unshare", E(EPERM), ALWAYS, "flags with CLONE_NEWUSER",
	  "a user namespace of its own holds every capability over its own mounts",
	  1, { ARG(0, CLONE_NEWUSER, CLONE_NEWUSER) }, NULL, false },
	{ "clone", E(EPERM), ALWAYS, "flags with CLONE_NEWUSER",
	  "a user namespace of its own at fork time: every capability over its own mounts",
	  1, { ARG(CLONE_FLAGS_ARG, CLONE_NEWUSER, CLONE_NEWUSER) }, NULL, false },
	{ "clone3", E(ENOSYS), ALWAYS, "",
	  "its flags sit behind a pointer no filter can read; libc falls back to clone()",
	  0, { { 0, 0, 0 } }, NULL, true },
	/* ENOSYS, as from a kernel built without io_uring: libuv (Node) takes
	 * any io_uring_setup failure for "absent" and stays on epoll; glibc
	 * never uses io_uring. _enter and _register for a ring descriptor
	 * inherited from outside. */
	{ "io_uring_setup io_uring_enter io_uring_register", E(ENOSYS), ALWAYS, "",
	  "its operations (IORING_OP_SOCKET, _OPENAT...) run without a system call this filter sees",
	  0, { { 0, 0, 0 } }, NULL, false },
	/* ENOSYS, as a kernel without CONFIG_KEYS: krb5, systemd and
	 * credential helpers then keep to their file caches. */
	{ "keyctl add_key request_key", E(ENOSYS), ALWAYS, "",
	  "the caller's session keyring holds Kerberos tickets, ecryptfs and helper secrets",
	  0, { { 0, 0, 0 } }, NULL, false },
	{ "bpf", E(EPERM), ALWAYS, "",
	  "verifier and map code is kernel attack surface; EPERM as unprivileged_bpf_disabled says",
	  0, { { 0, 0, 0 } }, NULL, false },
	{ "perf_event_open", E(EACCES), ALWAYS, "",
	  "side channels and a large kernel surface; EACCES as perf_event_paranoid says",
	  0, { { 0, 0, 0 } }, NULL, false },
	{ "userfaultfd", E(EPERM), ALWAYS, "",
	  "stalls kernel copies at will, the usual way to win a kernel race; EPERM as vm.unprivileged_userfaultfd = 0",
	  0, { { 0, 0, 0 } }, NULL, false },
	{ "kexec_load kexec_file_load reboot", E(EPERM), ALWAYS, "",
	  "replace or stop the running kernel (no capability is left: depth)",
	  0, { { 0, 0, 0 } }, NULL, false },
	{ "init_module finit_module delete_module", E(EPERM), ALWAYS, "",
	  "load or unload kernel code (no capability is left: depth)",
	  0, { { 0, 0, 0 } }, NULL, false },
	{ "mount umount2 pivot_root", E(EPERM), ALWAYS, "",
	  "change the mounts sbx-init made (no capability is left: depth)",
	  0, { { 0, 0, 0 } }, NULL, false },
	{ "open_tree move_mount fsopen fsconfig fsmount fspick mount_setattr", E(EPERM), ALWAYS, "",
	  "the new mount API: the same, by descriptor (no capability is left: depth)",
	  0, { { 0, 0, 0 } }, NULL, false },
	{ "setns", E(EPERM), ALWAYS, "",
	  "join another namespace through an inherited descriptor (no capability is left: depth)",
	  0, { { 0, 0, 0 } }, NULL, false },
	{ "personality", E(EPERM), ALWAYS, "READ_IMPLIES_EXEC or ADDR_NO_RANDOMIZE set (the 0xffffffff query stays)",
	  "every readable mapping executable, or no ASLR: an exploit's first wish",
	  0, { { 0, 0, 0 } }, add_personality, false },
	{ "socket", E(EPERM), ALWAYS, "domain AF_PACKET",
	  "raw frames on an interface: sniffing and spoofing (needs CAP_NET_RAW: depth)",
	  1, { ARG(0, LOW32, AF_PACKET) }, NULL, false },
	{ "socket", E(EPERM), ALWAYS, "AF_INET, type SOCK_RAW",
	  "hand-made IP packets (needs CAP_NET_RAW: depth); ping uses ICMP datagram sockets",
	  2, { ARG(0, LOW32, AF_INET), ARG(1, TYPE_MASK, SOCK_RAW) }, NULL, false },
	{ "socket", E(EPERM), ALWAYS, "AF_INET6, type SOCK_RAW",
	  "the same for IPv6",
	  2, { ARG(0, LOW32, AF_INET6), ARG(1, TYPE_MASK, SOCK_RAW) }, NULL, false },
	{ "socket", E(EPERM), ALWAYS, "AF_INET, type SOCK_PACKET",
	  "the old packet socket, under AF_INET",
	  2, { ARG(0, LOW32, AF_INET), ARG(1, TYPE_MASK, SOCK_PACKET) }, NULL, false },
	{ "socket", E(EPROTONOSUPPORT), ALWAYS, "AF_NETLINK but NETLINK_ROUTE and NETLINK_SOCK_DIAG",
	  "glibc (getifaddrs, AI_ADDRCONFIG), ip and ss need only those two; the rest is kernel surface (nf_tables, generic, uevents, audit)",
	  0, { { 0, 0, 0 } }, add_netlink, false },
	/* vsock is not a network namespace's: from inside a sandbox whose
	 * network is off, connect((2, port)) reached the VM's host (tested on
	 * a Firecracker guest). EAFNOSUPPORT, as a kernel without vsock. */
	{ "socket", E(EAFNOSUPPORT), ALWAYS, "domain AF_VSOCK",
	  "reaches the hypervisor's host and other VMs past the network namespace (vsock has none)",
	  1, { ARG(0, LOW32, AF_VSOCK) }, NULL, false },
	/* A TCP socket the kernel takes for unconnected is connected by
	 * sendto/sendmsg(MSG_FASTOPEN) to the address the message names:
	 * connect() without connect(), which the notify layer never sees.
	 * The flags are an unsigned int: the low 32 bits. */
	{ "sendto", E(EOPNOTSUPP), ALWAYS, "flags with MSG_FASTOPEN",
	  "connects a TCP socket to the address it names, past connect(); EOPNOTSUPP as with client Fast Open off",
	  1, { ARG(3, MSG_FASTOPEN, MSG_FASTOPEN) }, NULL, false },
	{ "sendmsg", E(EOPNOTSUPP), ALWAYS, "flags with MSG_FASTOPEN", "the same",
	  1, { ARG(2, MSG_FASTOPEN, MSG_FASTOPEN) }, NULL, false },
	{ "sendmmsg", E(EOPNOTSUPP), ALWAYS, "flags with MSG_FASTOPEN", "the same",
	  1, { ARG(3, MSG_FASTOPEN, MSG_FASTOPEN) }, NULL, false },
	{ "chmod fchmod fchmodat fchmodat2", E(EPERM), ALWAYS, "mode with S_ISUID or S_ISGID",
	  "a set-ID program left in a writable root runs with the user's rights (root's) for whoever starts it on the host",
	  0, { { 0, 0, 0 } }, add_setid, false },
	/* The notify layer decides setxattr and the rest like chmod (a
	 * protected name's attributes are not changed); these two, new in
	 * Linux 6.13, are not decided there: ENOSYS, as an older kernel. */
	{ "setxattrat removexattrat", E(ENOSYS), ALWAYS, "",
	  "extended attributes by a directory descriptor and a struct (Linux 6.13); libc's setxattr() and removexattr() stay",
	  0, { { 0, 0, 0 } }, NULL, false },
	{ "socket", E(EPERM), BLOCK_UNIX, "domain AF_UNIX",
	  "a socket file connects through a read-only bind: the docker socket, the session bus",
	  1, { ARG(0, LOW32, AF_UNIX) }, NULL, false },
	{ "socketpair", E(EPERM), BLOCK_UNIX, "AF_UNIX, type SOCK_DGRAM",
	  "a datagram socket names its peer on each sendto(): /dev/log, journald",
	  2, { ARG(0, LOW32, AF_UNIX), ARG(1, TYPE_MASK, SOCK_DGRAM) }, NULL, false },
	{ "socketpair", E(EPERM), BLOCK_UNIX, "AF_UNIX, type SOCK_RAW",
	  "the kernel makes an AF_UNIX SOCK_RAW socket a datagram one (unix_create)",
	  2, { ARG(0, LOW32, AF_UNIX), ARG(1, TYPE_MASK, SOCK_RAW) }, NULL, false },
	{ "chmod fchmod fchmodat fchmodat2 chown fchown lchown fchownat", E(EPERM), NESTED_ROOT, "",
	  "root owns the system's files: a mode or owner changed there (/etc/shadow 0644) is a way out",
	  0, { { 0, 0, 0 } }, NULL, false },
	/* A user's own files outside the writable roots keep their modes
	 * here (Landlock has no right for them), but none is made writable
	 * by every local user: that is the ACL of the next row by another
	 * door. Group write stays (a umask 002 `chmod +x` gives 0775, and a
	 * user's private group holds only the user). */
	{ "chmod fchmod fchmodat fchmodat2", E(EPERM), NESTED, "mode with S_IWOTH",
	  "Landlock has no right for a file's mode and a filter cannot read the path: chmod 666 ~/.bashrc let any local user write it",
	  0, { { 0, 0, 0 } }, add_other_write, false },
	{ "setxattr lsetxattr fsetxattr removexattr lremovexattr fremovexattr",
	  E(EPERM), NESTED, "",
	  "Landlock has no right for extended attributes and a filter cannot read the path: an ACL (system.posix_acl_access) on ~/.bashrc let another user write it",
	  0, { { 0, 0, 0 } }, NULL, false },
	{ "socket", E(EPERM), NESTED_NET, "AF_INET, type SOCK_DGRAM",
	  "UDP to anywhere (DNS to any server, QUIC): Landlock filters TCP only; the shim then answers names itself",
	  2, { ARG(0, LOW32, AF_INET), ARG(1, TYPE_MASK, SOCK_DGRAM) }, NULL, false },
	{ "socket", E(EPERM), NESTED_NET, "AF_INET6, type SOCK_DGRAM",
	  "the same for IPv6",
	  2, { ARG(0, LOW32, AF_INET6), ARG(1, TYPE_MASK, SOCK_DGRAM) }, NULL, false },
	/* The nested mode's network, past Landlock: its TCP rules see a
	 * socket(AF_INET or AF_INET6, SOCK_STREAM, 0 or IPPROTO_TCP) and
	 * nothing else; under bubblewrap the network namespace holds every
	 * other protocol and family (only loopback is there), so these rows
	 * are the nested mode's. */
	{ "socket", E(EPERM), NESTED_NET, "AF_INET or AF_INET6: type SOCK_STREAM with a protocol but 0 and IPPROTO_TCP (MPTCP, SCTP, SMC = 256), or a type but SOCK_STREAM (SOCK_SEQPACKET: SCTP, SOCK_DCCP)",
	  "connections Landlock's TCP rules do not see: SMC falls back to plain TCP, to any address and port",
	  0, { { 0, 0, 0 } }, add_stream_other, false },
	{ "socket", E(EPERM), NESTED_NET, "a domain but AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK (AF_SMC, AF_RXRPC, AF_TIPC, AF_RDS...)",
	  "the same for other families: AF_SMC falls back to TCP, AF_RXRPC sends UDP; the nested mode has no network namespace to hold them",
	  0, { { 0, 0, 0 } }, add_family_other, false },
	/* Landlock before ABI 3 (Linux 6.2: Debian 12, Ubuntu 22.04) checks
	 * an open by its access mode, and truncation not at all. ftruncate
	 * needs a descriptor open for writing, which Landlock checked when it
	 * was opened, and an O_TRUNC open for writing needs the write right:
	 * both stay. A filter cannot read the path, so these are refused
	 * everywhere, the writable roots too (a program opens the file for
	 * writing to truncate it). */
	{ "truncate", E(EACCES), NESTED_NOTRUNC, "",
	  "truncates by path, which no filter can read: ~/.bashrc, a git hook, a read-denied key emptied",
	  0, { { 0, 0, 0 } }, NULL, false },
	{ "open openat open_by_handle_at", E(EACCES), NESTED_NOTRUNC, "flags with O_TRUNC, access mode O_RDONLY or 3",
	  "the same through an open Landlock lets pass as a read (or as neither)",
	  0, { { 0, 0, 0 } }, add_trunc_open, false },
	{ "openat2", E(ENOSYS), NESTED_NOTRUNC, "",
	  "its flags sit behind a pointer no filter can read; ENOSYS as a kernel before 5.6, libc's open() never uses it",
	  0, { { 0, 0, 0 } }, NULL, false },
};

static int add_cond(scmp_filter_ctx ctx, uint32_t action, int nr, unsigned n,
		    const struct cond *c)
{
	struct scmp_arg_cmp cmp[2];

	for (unsigned i = 0; i < n; i++)
		cmp[i] = (struct scmp_arg_cmp){ c[i].arg, SCMP_CMP_MASKED_EQ, c[i].mask, c[i].value };
	return seccomp_rule_add_array(ctx, action, nr, n, cmp);
}

/* personality(unsigned int): refused when BIT is set, unless the value is
 * 0xffffffff (a query, which changes nothing). libseccomp compares an
 * argument once per rule, so "BIT set and not all bits set" is one rule per
 * other bit: BIT set and that bit clear. */
static int add_personality(scmp_filter_ctx ctx, const struct rule *r, int nr, uint32_t action)
{
	static const unsigned long bits[] = { READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE };

	(void)r;
	for (size_t i = 0; i < sizeof(bits) / sizeof(*bits); i++)
		for (unsigned b = 0; b < 32; b++) {
			struct cond c = { 0, bits[i] | (1ul << b), bits[i] };
			if ((1ul << b) != bits[i] && add_cond(ctx, action, nr, 1, &c))
				return -1;
		}
	return 0;
}

/* socket(AF_NETLINK, any, protocol): one rule per protocol the kernel knows
 * (it refuses any at or above MAX_LINKS itself), but the two kept. */
static int add_netlink(scmp_filter_ctx ctx, const struct rule *r, int nr, uint32_t action)
{
	(void)r;
	for (unsigned proto = 0; proto < MAX_LINKS; proto++) {
		struct cond c[2] = { { 0, LOW32, AF_NETLINK }, { 2, LOW32, proto } };
		if (proto == NETLINK_ROUTE || proto == NETLINK_SOCK_DIAG)
			continue;
		if (add_cond(ctx, action, nr, 2, c))
			return -1;
	}
	return 0;
}

/* chmod(path, mode), fchmod(fd, mode), fchmodat(dfd, path, mode[, flags]):
 * refused when the mode (a mode_t, 32 bits) has S_ISUID or S_ISGID. */
static int add_setid(scmp_filter_ctx ctx, const struct rule *r, int nr, uint32_t action)
{
	static const unsigned long bits[] = { S_ISUID, S_ISGID };
	unsigned arg = nr == seccomp_syscall_resolve_name("chmod") ||
		       nr == seccomp_syscall_resolve_name("fchmod") ? 1 : 2;

	(void)r;
	for (size_t i = 0; i < sizeof(bits) / sizeof(*bits); i++) {
		struct cond c = { arg, bits[i], bits[i] };
		if (add_cond(ctx, action, nr, 1, &c))
			return -1;
	}
	return 0;
}

/* The same calls, refused when the mode has S_IWOTH (the nested mode's
 * row: a file every local user may write). */
static int add_other_write(scmp_filter_ctx ctx, const struct rule *r, int nr, uint32_t action)
{
	unsigned arg = nr == seccomp_syscall_resolve_name("chmod") ||
		       nr == seccomp_syscall_resolve_name("fchmod") ? 1 : 2;
	struct cond c = { arg, S_IWOTH, S_IWOTH };

	(void)r;
	return add_cond(ctx, action, nr, 1, &c);
}

/* socket(AF_INET or AF_INET6, type, protocol): refused for SOCK_STREAM
 * with a protocol above IPPROTO_TCP (6; those below it are no stream
 * protocol, the kernel refuses them), and for every type but SOCK_STREAM
 * the table does not refuse already (SOCK_DGRAM has its own rows,
 * SOCK_RAW and SOCK_PACKET are refused always). The protocol is an int:
 * a value with high bits set is above 6 as the filter compares, so one
 * the kernel would take for TCP is refused too (fail closed). */
static int add_stream_other(scmp_filter_ctx ctx, const struct rule *r, int nr, uint32_t action)
{
	static const unsigned domains[] = { AF_INET, AF_INET6 };

	(void)r;
	for (size_t d = 0; d < 2; d++) {
		struct scmp_arg_cmp stream[3] = {
			SCMP_A0(SCMP_CMP_MASKED_EQ, LOW32, domains[d]),
			SCMP_A1(SCMP_CMP_MASKED_EQ, TYPE_MASK, SOCK_STREAM),
			SCMP_A2(SCMP_CMP_GT, 6 /* IPPROTO_TCP */),
		};
		if (seccomp_rule_add_array(ctx, action, nr, 3, stream))
			return -1;
		for (unsigned t = 0; t <= TYPE_MASK; t++) {
			struct cond c[2] = { { 0, LOW32, domains[d] }, { 1, TYPE_MASK, t } };
			if (t == SOCK_STREAM || t == SOCK_DGRAM || t == SOCK_RAW || t == SOCK_PACKET)
				continue;
			if (add_cond(ctx, action, nr, 2, c))
				return -1;
		}
	}
	return 0;
}

/* socket(domain, ...) for every domain but the four kept: each below 64
 * (AF_MAX is 46 in Linux 6.18), and any above. */
static int add_family_other(scmp_filter_ctx ctx, const struct rule *r, int nr, uint32_t action)
{
	(void)r;
	for (unsigned d = 0; d < 64; d++) {
		struct cond c = { 0, LOW32, d };
		if (d == AF_UNIX || d == AF_INET || d == AF_INET6 || d == AF_NETLINK)
			continue;
		if (add_cond(ctx, action, nr, 1, &c))
			return -1;
	}
	return seccomp_rule_add(ctx, action, nr, 1, SCMP_A0(SCMP_CMP_GT, 63)) ? -1 : 0;
}

/* open(path, flags[, mode]), openat(dfd, path, flags[, mode]) and
 * open_by_handle_at(mount_fd, handle, flags) (which needs
 * CAP_DAC_READ_SEARCH, dropped: depth): O_TRUNC with access mode O_RDONLY
 * (0) or 3 (neither read nor write for Landlock, read and write for the
 * kernel's permission check). */
static int add_trunc_open(scmp_filter_ctx ctx, const struct rule *r, int nr, uint32_t action)
{
	unsigned arg = nr == seccomp_syscall_resolve_name("open") ? 1 : 2;
	static const unsigned long modes[] = { O_RDONLY, O_ACCMODE };

	(void)r;
	for (size_t i = 0; i < 2; i++) {
		struct cond c = { arg, O_TRUNC | O_ACCMODE, O_TRUNC | modes[i] };
		if (add_cond(ctx, action, nr, 1, &c))
			return -1;
	}
	return 0;
}

/* ioctl(fd, request): one rule per request the row names in its own text
 * (`request A, B, ...`), so the table and the filter cannot differ; a name
 * not known here stops the build. request is an unsigned int: the low 32
 * bits. */
static int add_requests(scmp_filter_ctx ctx, const struct rule *r, int nr, uint32_t action)
{
	static const struct { const char *name; unsigned long req; } known[] = {
#define REQ(n) { #n, n }
		REQ(KDSKBMODE), REQ(KDSKBMETA), REQ(KDSKBLED), REQ(KDSETLED), REQ(KDSKBENT),
		REQ(KDSKBSENT), REQ(KDSKBDIACR), REQ(KDSKBDIACRUC), REQ(KDSETKEYCODE),
		REQ(KDKBDREP), REQ(KDSIGACCEPT), REQ(KDSETMODE), REQ(KDFONTOP), REQ(PIO_FONT),
		REQ(PIO_FONTX), REQ(PIO_FONTRESET), REQ(PIO_CMAP), REQ(PIO_SCRNMAP),
		REQ(PIO_UNISCRNMAP), REQ(PIO_UNIMAP), REQ(PIO_UNIMAPCLR), REQ(VT_ACTIVATE),
		REQ(VT_SETACTIVATE), REQ(VT_SETMODE), REQ(VT_RELDISP), REQ(VT_LOCKSWITCH),
		REQ(VT_UNLOCKSWITCH), REQ(VT_DISALLOCATE), REQ(VT_RESIZE), REQ(VT_RESIZEX),
		REQ(KIOCSOUND), REQ(KDMKTONE),
#undef REQ
	};
	char names[512], *save = NULL;

	if (strncmp(r->refused, "request ", 8) ||
	    (size_t)snprintf(names, sizeof(names), "%s", r->refused + 8) >= sizeof(names))
		return -1;
	for (char *n = strtok_r(names, ", ", &save); n; n = strtok_r(NULL, ", ", &save)) {
		size_t i;
		for (i = 0; i < sizeof(known) / sizeof(*known) && strcmp(known[i].name, n); i++)
			;
		if (i == sizeof(known) / sizeof(*known)) {
			fprintf(stderr, "gen-filters: no request number for %s\n", n);
			return -1;
		}
		struct cond c = { 1, LOW32, known[i].req };
		if (add_cond(ctx, action, nr, 1, &c))
			return -1;
	}
	return 0;
}

/* Each call of a row, with `action` when it matches (the row's errno:
 * SCMP_ACT_ERRNO(r->err)). A call this architecture does not have
 * (libseccomp gives a negative pseudo number) is skipped: nothing can
 * make it. */
static int add_rule(scmp_filter_ctx ctx, const struct rule *r, uint32_t action)
{
	char names[256], *save = NULL;

	snprintf(names, sizeof(names), "%s", r->calls);
	for (char *n = strtok_r(names, " ", &save); n; n = strtok_r(NULL, " ", &save)) {
		int nr = seccomp_syscall_resolve_name(n);
		/* newer than libseccomp 2.5 (Debian 12): the numbers every
		 * architecture shares since Linux 5.1's unified table */
		if (nr == __NR_SCMP_ERROR && !strcmp(n, "setxattrat"))
			nr = 463;
		if (nr == __NR_SCMP_ERROR && !strcmp(n, "removexattrat"))
			nr = 466;
		if (nr == __NR_SCMP_ERROR) {
			fprintf(stderr, "gen-filters: libseccomp does not know %s\n", n);
			return -1;
		}
		if (nr < 0)
			continue;
		if (r->add ? r->add(ctx, r, nr, action) : add_cond(ctx, action, nr, r->ncond, r->cond)) {
			fprintf(stderr, "gen-filters: cannot add the rule for %s\n", n);
			return -1;
		}
	}
	return 0;
}


#define NRULES (sizeof(rules) / sizeof(*rules))

/* Is row r reported through the notify layer (when it runs)? Every row
 * refused in every run, but the quiet ones. */
static inline bool rule_reported(const struct rule *r)
{
	return r->when == ALWAYS && !r->quiet;
}

#endif
