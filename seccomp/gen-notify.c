/* seccomp/gen-notify.c: compile sbx-init's second seccomp program, the
 * user-notification filter, at build time (build/gen/notify-filter.h).
 *
 * The whole boundary's program for COMMAND: sbx-init installs it alone,
 * with SECCOMP_FILTER_FLAG_NEW_LISTENER, in the child that becomes COMMAND
 * (pid 1 takes gen-filters.c's table itself), and hands the listener to
 * the supervisor (preload/notify/notify.c), which decides each notified call
 * by the policy. So it carries the deny table too: its reported rows
 * notified (the supervisor answers their errno), the others with their
 * errno (clone3), exactly what the table stacked under a notify-only
 * program gave (tests/unit/seccomp_table.c compares them). One program
 * rather than two: one install on the way to COMMAND's exec (a few hundred
 * microseconds on a virtual machine: the JIT writes executable memory),
 * and one program run per system call.
 *
 * Only calls that make, rename or link a name, and connect, are notified;
 * everything else is allowed at once, in BPF, and never leaves the kernel:
 *
 *   notified                                  when
 *   open, openat                              flags has O_CREAT, O_WRONLY, O_RDWR or O_TRUNC
 *   creat, openat2                            always (openat2's flags are behind a pointer)
 *   mkdir, mkdirat, mknod, mknodat            always
 *   rename, renameat, renameat2               always
 *   link, linkat, symlink, symlinkat          always
 *   connect                                   always (the address is behind a pointer)
 *   truncate                                  always (it writes a file named by path)
 *   unlink, unlinkat, rmdir                   always (a protected name is not removed)
 *   chmod, fchmod, fchmodat, fchmodat2        always (nor its mode changed)
 *   setxattr, lsetxattr, fsetxattr,           always (nor its extended
 *   removexattr, lremovexattr, fremovexattr   attributes: an ACL)
 *   bind                                      always (a Unix socket's path makes a name)
 *   listen                                    always, in the _nobind programs
 *                                             (allow_local_binding = false)
 *   the seccomp table's rows that are         as the table says (seccomp/rules.h):
 *   reported (all but clone3)                 the supervisor answers the row's errno
 *                                             and reports it (preload/notify/deny.c)
 *   (clone3, the table's one quiet row:       ENOSYS, as in the table)
 *
 *
 * The nested mode's own program, sbx_notify_modes, notifies only chmod,
 * fchmod, fchmodat, fchmodat2, chown, fchown, lchown and fchownat
 * (emit_modes()).
 *
 *   refused                                   errno   in
 *   socket AF_UNIX SOCK_DGRAM or SOCK_RAW     EPERM   sbx_notify_unix_block
 *   socketpair AF_UNIX SOCK_DGRAM or SOCK_RAW EPERM   sbx_notify_unix_block
 *
 * The table's own socket(AF_UNIX) rule (a BLOCK_UNIX row) is not taken
 * here: a stream or seqpacket
 * socket reaches nothing until connect(), which the supervisor does itself
 * for a path allow_unix_sockets names. A datagram socket names its peer on
 * every sendto()/sendmsg(), which would have to be notified on each packet;
 * those stay refused, as before. sbx_notify_unix_all (allow_all_unix_sockets
 * = true) has no socket rule.
 *
 * An `open` without a write flag is the common case by far (every library,
 * header and source file read): it must not pay a round trip to the
 * supervisor, so the flags are tested here. They are an int: the low 32
 * bits, as the kernel truncates them (gen-filters.c says why).
 */
#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "seccomp/rules.h"

#define LOW32 0xffffffffu
#define TYPE_MASK 0xfu

/* The flag bits that make an open one that may create or change a name's
 * content. O_TMPFILE always comes with O_WRONLY or O_RDWR. */
static const unsigned write_bits[] = { O_CREAT, O_WRONLY, O_RDWR, O_TRUNC };

/* A call this architecture does not have (open, mkdir... on aarch64) is
 * skipped: libseccomp names it with a negative pseudo-number. */
static int notify_always(scmp_filter_ctx ctx, const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);

	if (nr < 0)
		return nr == __NR_SCMP_ERROR ? -1 : 0;
	return seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
}

static int notify_write_flags(scmp_filter_ctx ctx, const char *name, unsigned arg)
{
	int nr = seccomp_syscall_resolve_name(name);

	if (nr < 0)
		return nr == __NR_SCMP_ERROR ? -1 : 0;
	for (size_t i = 0; i < sizeof(write_bits) / sizeof(write_bits[0]); i++) {
		struct scmp_arg_cmp c = { arg, SCMP_CMP_MASKED_EQ, write_bits[i], write_bits[i] };
		if (seccomp_rule_add_array(ctx, SCMP_ACT_NOTIFY, nr, 1, &c))
			return -1;
	}
	return 0;
}

/* The deny table (the rows every run has): a reported row notifies, and
 * the supervisor answers its errno (preload/notify/deny.c; with the listener gone,
 * ENOSYS); the rest (clone3, libc's own fallback) keep their errno. */
static int table_rows(scmp_filter_ctx ctx)
{
	for (size_t i = 0; i < NRULES; i++) {
		const struct rule *r = &rules[i];
		if (r->when != ALWAYS)
			continue;
		if (add_rule(ctx, r, rule_reported(r) ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO(r->err)))
			return -1;
	}
	return 0;
}

static scmp_filter_ctx build(int block_unix, int nobind)
{
	static const char *const always[] = {
		"creat", "openat2", "mkdir", "mkdirat", "mknod", "mknodat",
		"rename", "renameat", "renameat2", "link", "linkat", "symlink",
		"symlinkat", "connect", "truncate", "bind",
		/* a protected name is not removed, nor its mode changed */
		"unlink", "unlinkat", "rmdir", "chmod", "fchmod", "fchmodat", "fchmodat2",
		/* nor its extended attributes (an ACL granting another user) */
		"setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr",
		"fremovexattr",
	};
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);

	if (!ctx)
		return NULL;
	if (seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS))
		goto fail;
	/* a binary search over the call numbers, as the deny table: the
	 * calls that are not notified pass a handful of comparisons */
	if (seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2))
		goto fail;
	if (table_rows(ctx))
		goto fail;
	/* allow_local_binding = false: servers inside are the supervisor's
	 * to refuse (preload/notify/deny.c decides on the socket itself) */
	if (nobind && notify_always(ctx, "listen"))
		goto fail;
	/* open(path, flags, mode): flags is A1; openat(dirfd, path, flags, mode): A2 */
	if (notify_write_flags(ctx, "open", 1) || notify_write_flags(ctx, "openat", 2))
		goto fail;
	for (size_t i = 0; i < sizeof(always) / sizeof(always[0]); i++)
		if (notify_always(ctx, always[i]))
			goto fail;
	/* SOCK_RAW too: for AF_UNIX the kernel makes it a datagram socket
	 * (unix_create(): "Believe it or not BSD has AF_UNIX, SOCK_RAW") */
	static const int dgram_types[] = { SOCK_DGRAM, SOCK_RAW };
	for (size_t i = 0; block_unix && i < 2; i++)
		if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socket), 2,
				     SCMP_A0(SCMP_CMP_MASKED_EQ, LOW32, AF_UNIX),
				     SCMP_A1(SCMP_CMP_MASKED_EQ, TYPE_MASK, dgram_types[i])) ||
		    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(socketpair), 2,
				     SCMP_A0(SCMP_CMP_MASKED_EQ, LOW32, AF_UNIX),
				     SCMP_A1(SCMP_CMP_MASKED_EQ, TYPE_MASK, dgram_types[i])))
			goto fail;
	return ctx;
fail:
	seccomp_release(ctx);
	return NULL;
}

/* A built filter as a C array named `name` (consumes ctx). 0, or 1 when
 * it could not be built or exported. */
static int print_filter(const char *name, scmp_filter_ctx ctx)
{
	FILE *tmp = tmpfile();
	struct { unsigned short code; unsigned char jt, jf; unsigned int k; } ins;
	size_t n = 0;

	if (!ctx || !tmp || seccomp_export_bpf(ctx, fileno(tmp))) {
		fprintf(stderr, "gen-notify: cannot build %s\n", name);
		if (ctx)
			seccomp_release(ctx);
		return 1;
	}
	lseek(fileno(tmp), 0, SEEK_SET);
	printf("static const struct sock_filter %s[] __attribute__((unused)) = {\n", name);
	while (read(fileno(tmp), &ins, sizeof(ins)) == (ssize_t)sizeof(ins)) {
		printf("\t{ 0x%04x, %u, %u, 0x%08x },\n", ins.code, ins.jt, ins.jf, ins.k);
		n++;
	}
	printf("};\n\n");
	fclose(tmp);
	seccomp_release(ctx);
	return n ? 0 : 1;
}

static int emit(const char *name, int block_unix, int nobind)
{
	return print_filter(name, build(block_unix, nobind));
}

/* The nested mode's program (sbx_notify_modes): only a file's mode and
 * owner, which Landlock has no right for, go to the supervisor; stacked
 * on the table and the [nested] rows sbx-init installs itself (their
 * errno comes first: a set-ID mode, root's every chmod). */
static int emit_modes(void)
{
	static const char *const calls[] = { "chmod", "fchmod", "fchmodat", "fchmodat2",
					     "chown", "fchown", "lchown", "fchownat" };
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	int bad = !ctx || seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);

	for (size_t i = 0; !bad && i < sizeof(calls) / sizeof(*calls); i++)
		bad = notify_always(ctx, calls[i]) != 0;
	if (bad && ctx) {
		seccomp_release(ctx);
		ctx = NULL;
	}
	return print_filter("sbx_notify_modes", ctx);
}

int main(void)
{
	printf("/* Generated by seccomp/gen-notify.c at build time. Do not edit. */\n"
	       "#include <linux/filter.h>\n\n");
	return emit("sbx_notify_unix_all", 0, 0) | emit("sbx_notify_unix_block", 1, 0) |
	       emit("sbx_notify_unix_all_nobind", 0, 1) | emit("sbx_notify_unix_block_nobind", 1, 1) |
	       emit_modes();
}
