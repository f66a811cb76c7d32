/* supervisor/gen-filters.c: compile sbx-init's seccomp programs at build time.
 *
 * Writes a C header with two classic-BPF programs for this architecture,
 * sbx_filter_unix_allow and sbx_filter_unix_block (the same, plus the Unix
 * socket rules). Every other system call is allowed: the boundary is the
 * namespaces and mounts, and this filter only closes what they cannot.
 *
 * What each rule refuses, with which errno, and why ([block]: only in
 * sbx_filter_unix_block, that is unless allow_all_unix_sockets = true):
 *
 *   refused                            errno   why
 *   ioctl TIOCSTI, TIOCLINUX           EPERM   types into the shell that ran sbx
 *   unshare, clone with CLONE_NEWUSER  EPERM   a userns: all caps over own mounts
 *   clone3                             ENOSYS  flags behind a pointer; libc: clone()
 *   io_uring_setup, _enter, _register  ENOSYS  its ops make no call filtered here
 *   [block] socket AF_UNIX             EPERM   socket files connect through ro binds
 *   [block] socketpair AF_UNIX DGRAM   EPERM   sendto() names any host dgram socket
 *   i386, x32; arm32 on aarch64        kill    another call table, no rule there
 *
 * COMMAND keeps the user's controlling terminal (so /dev/tty prompts and job
 * control work), and TIOCSTI/TIOCLINUX push bytes into its input queue: they
 * would type commands into the shell that started sbx once COMMAND exits.
 * In a user namespace of its own COMMAND would hold every capability over
 * mounts of its own, and reach the kernel code only namespace owners reach.
 * io_uring's operations (IORING_OP_SOCKET, _OPENAT, _CONNECT...) run in the
 * kernel without a system call of their own: IORING_OP_SOCKET makes an
 * AF_UNIX socket the socket() rule never sees.
 * A path-named socket stays connectable through a read-only bind (the
 * kernel checks write permission on the socket inode, not on the mount), so
 * without the socket rule the docker socket or the session D-Bus would be a
 * way out, and with the network open any abstract socket in the host's
 * network namespace. A datagram socket names its peer on each sendto(), so a
 * datagram socketpair reaches /dev/log or journald's socket; stream and
 * seqpacket pairs are connected for good and reach nothing outside.
 * Another architecture's entry point (int $0x80 on x86_64, x32's numbers
 * with bit 30 set under x86_64's own AUDIT_ARCH, aarch64's 32-bit compat)
 * indexes another call table, where no rule here applies.
 *
 * An argument the kernel declares narrower than a register is compared on
 * the bits the kernel keeps: it truncates an `int` or `unsigned int` to the
 * low 32 bits, so a comparison of all 64 would let 0x100000001 pass as
 * AF_UNIX (CVE-2019-10063 in flatpak was the same with ioctl's request).
 * Each rule says which type its argument has.
 */
#include <errno.h>
#include <sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* clone()'s flags: the second argument on s390, the first elsewhere. */
#if defined(__s390__) || defined(__s390x__)
#define CLONE_FLAGS_ARG SCMP_A1
#else
#define CLONE_FLAGS_ARG SCMP_A0
#endif

/* The low 32 bits of an argument, for a comparison with an int or unsigned
 * int the kernel truncates: libseccomp then tests only the low word (the
 * high half of the mask is zero, so any high bits pass the test unseen,
 * exactly as the kernel ignores them). */
#define LOW32 0xffffffffu

/* Bits of socket()'s and socketpair()'s type that name the type; the rest
 * are SOCK_CLOEXEC and SOCK_NONBLOCK (the kernel's SOCK_TYPE_MASK). */
#define TYPE_MASK 0xfu

#define DENY(err, name, ...) \
	seccomp_rule_add(ctx, SCMP_ACT_ERRNO(err), SCMP_SYS(name), __VA_ARGS__)

static scmp_filter_ctx build(int block_unix)
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
	/* ioctl(unsigned int fd, unsigned int cmd, unsigned long arg) */
	if (DENY(EPERM, ioctl, 1, SCMP_A1(SCMP_CMP_MASKED_EQ, LOW32, TIOCSTI)) ||
	    DENY(EPERM, ioctl, 1, SCMP_A1(SCMP_CMP_MASKED_EQ, LOW32, TIOCLINUX)))
		goto fail;
	/* unshare(unsigned long flags) keeps all 64 bits (any above 31 is
	 * EINVAL) and clone(unsigned long flags, ...) uses the low 32 only
	 * (lower_32_bits() in kernel/fork.c): either way the one bit tested,
	 * CLONE_NEWUSER (bit 28), is in the low word, and the mask's high half
	 * is zero, so no high bit can hide it or be mistaken for it. */
	if (DENY(EPERM, unshare, 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)) ||
	    DENY(EPERM, clone, 1, CLONE_FLAGS_ARG(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER)) ||
	    DENY(ENOSYS, clone3, 0))
		goto fail;
	/* ENOSYS, as from a kernel built without io_uring: libuv (Node) takes any
	 * io_uring_setup failure for "absent" and stays on epoll and its thread
	 * pool; glibc never uses io_uring. _enter and _register too, for a ring
	 * descriptor inherited from outside. */
	if (DENY(ENOSYS, io_uring_setup, 0) || DENY(ENOSYS, io_uring_enter, 0) ||
	    DENY(ENOSYS, io_uring_register, 0))
		goto fail;
	if (!block_unix)
		return ctx;
	/* socket(int domain, int type, int protocol) and socketpair(int domain,
	 * int type, int protocol, int sv[2]): ints, so the low 32 bits. */
	if (DENY(EPERM, socket, 1, SCMP_A0(SCMP_CMP_MASKED_EQ, LOW32, AF_UNIX)) ||
	    DENY(EPERM, socketpair, 2, SCMP_A0(SCMP_CMP_MASKED_EQ, LOW32, AF_UNIX),
		 SCMP_A1(SCMP_CMP_MASKED_EQ, TYPE_MASK, SOCK_DGRAM)))
		goto fail;
	return ctx;
fail:
	seccomp_release(ctx);
	return NULL;
}

static int emit(const char *name, int block_unix)
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

int main(void)
{
	printf("/* Generated by supervisor/gen-filters.c at build time. Do not edit. */\n"
	       "#include <linux/filter.h>\n\n");
	return emit("sbx_filter_unix_allow", 0) | emit("sbx_filter_unix_block", 1);
}
