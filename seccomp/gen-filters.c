/* seccomp/gen-filters.c: sbx-init's seccomp table, compiled at build time.
 *
 * `rules[]` (seccomp/rules.h) is the whole table: every system call the
 * sandbox refuses, when, with which errno, and why, one row each. From it
 * this program writes
 *   gen-filters            a C header with classic-BPF programs for this
 *                          architecture: sbx_filter_unix_allow and
 *                          sbx_filter_unix_block (the same, plus the rows
 *                          marked [block]: unless allow_all_unix_sockets),
 *                          sbx_filter_notified (with the notify layer: its
 *                          rows are reported, see build()), the
 *                          supervisor's row finder (sbx_deny_rows_prog,
 *                          sbx_deny_rows, sbx_deny_calls), and four that
 *                          sbx-init stacks on them in the nested mode only
 *                          (rows marked [nested], and [nested, root] for a
 *                          run as root): sbx_filter_nested,
 *                          sbx_filter_nested_root, sbx_filter_nested_net
 *                          (UDP and what Landlock's TCP rules do not see,
 *                          when the network is not open) and
 *                          sbx_filter_nested_trunc (truncation, on a
 *                          Landlock before ABI 3)
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
 * Every equality here is a masked one for that reason (LOW32, or a mask
 * of bits within it). The two "above" comparisons (a protocol above
 * IPPROTO_TCP, a family above 63: seccomp/rules.h) take all 64 bits,
 * which refuses more, never less: a value with a high bit set is above
 * either, whatever its low word.
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

#include "seccomp/rules.h"

/* The programs made from the table:
 *   UNIX_ALLOW, UNIX_BLOCK  the deny table, each row answering its errno
 *                           (without, and with, the [block] rows);
 *   NOTIFIED                UNIX_ALLOW, but the rows that are reported
 *                           answer SECCOMP_RET_USER_NOTIF: sbx-init
 *                           installs it under the notify filter, which
 *                           notifies the same rows to the supervisor;
 *                           when no listener is there (the supervisor is
 *                           gone), the kernel answers ENOSYS: still
 *                           refused;
 *   ROWS                    for the supervisor, never installed: each
 *                           reported row answers ERRNO(its index + 1), so
 *                           running it on a notified call's seccomp_data
 *                           names the row, conditions and all, without a
 *                           second copy of them;
 *   NESTED_*                the nested mode's own rows (holds()). */
enum variant { UNIX_ALLOW, UNIX_BLOCK, NOTIFIED, ROWS, NESTED_USER, NESTED_ROOT_PROG,
	       NESTED_NET_PROG, NESTED_TRUNC_PROG };

/* Which rows a program holds. */
static bool holds(enum variant v, const struct rule *r)
{
	switch (v) {
	case UNIX_ALLOW:
	case NOTIFIED:
		return r->when == ALWAYS;
	case UNIX_BLOCK:
		return r->when == ALWAYS || r->when == BLOCK_UNIX;
	case ROWS:
		return rule_reported(r);
	case NESTED_USER:
		return r->when == NESTED;
	case NESTED_ROOT_PROG:
		return r->when == NESTED || r->when == NESTED_ROOT;
	case NESTED_NET_PROG:
		return r->when == NESTED_NET;
	case NESTED_TRUNC_PROG:
		return r->when == NESTED_NOTRUNC;
	}
	return false;
}

static scmp_filter_ctx build(enum variant v)
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
	for (size_t i = 0; i < NRULES; i++) {
		const struct rule *r = &rules[i];
		uint32_t act = SCMP_ACT_ERRNO(r->err);
		if (!holds(v, r))
			continue;
		if (v == NOTIFIED && rule_reported(r))
			act = SCMP_ACT_NOTIFY;
		if (v == ROWS)
			act = SCMP_ACT_ERRNO((uint32_t)i + 1);
		if (add_rule(ctx, r, act))
			goto fail;
	}
	return ctx;
fail:
	seccomp_release(ctx);
	return NULL;
}

static int emit(const char *name, enum variant v)
{
	scmp_filter_ctx ctx = build(v);
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

/* A C string literal (the table's text is plain ASCII; quotes escaped). */
static void cstr(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

/* What the supervisor says for a row sbx_deny_rows_prog names: the call,
 * by number (each call of every reported row), and the row's errno and
 * one-line reason. */
static int emit_rows(void)
{
	printf("struct sbx_deny_row { const char *calls, *errname, *why; int err; };\n"
	       "static const struct sbx_deny_row sbx_deny_rows[] __attribute__((unused)) = {\n");
	for (size_t i = 0; i < NRULES; i++) {
		printf("\t{ ");
		cstr(rules[i].calls);
		printf(", \"%s\", ", rules[i].errname);
		cstr(rules[i].why);
		printf(", %d },\n", rules[i].err);
	}
	printf("};\n\nstruct sbx_deny_call { int nr; const char *name; };\n"
	       "static const struct sbx_deny_call sbx_deny_calls[] __attribute__((unused)) = {\n");
	for (size_t i = 0; i < NRULES; i++) {
		char names[256], *save = NULL;
		if (!rule_reported(&rules[i]))
			continue;
		snprintf(names, sizeof(names), "%s", rules[i].calls);
		for (char *c = strtok_r(names, " ", &save); c; c = strtok_r(NULL, " ", &save)) {
			int nr = seccomp_syscall_resolve_name(c);
			if (nr >= 0)
				printf("\t{ %d, \"%s\" },\n", nr, c);
		}
	}
	printf("};\n\n");
	return emit("sbx_deny_rows_prog", ROWS);
}

/* The table as docs/SECURITY.md shows it, between its markers. */
static void table(void)
{
	printf("| system call | refused when | errno | why |\n| --- | --- | --- | --- |\n");
	for (size_t i = 0; i < NRULES; i++) {
		const struct rule *r = &rules[i];
		printf("| `%s` | %s%s | %s | %s |\n", r->calls,
		       r->when == BLOCK_UNIX ? "[block] " : r->when == NESTED ? "[nested] " :
		       r->when == NESTED_ROOT ? "[nested, root] " :
		       r->when == NESTED_NET ? "[nested, network not open] " :
		       r->when == NESTED_NOTRUNC ? "[nested, Landlock ABI < 3] " : "",
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
	printf("/* Generated by seccomp/gen-filters.c at build time. Do not edit. */\n"
	       "#include <linux/filter.h>\n\n");
	return emit("sbx_filter_unix_allow", UNIX_ALLOW) | emit("sbx_filter_unix_block", UNIX_BLOCK) |
	       emit("sbx_filter_notified", NOTIFIED) | emit("sbx_filter_nested", NESTED_USER) |
	       emit("sbx_filter_nested_root", NESTED_ROOT_PROG) |
	       emit("sbx_filter_nested_net", NESTED_NET_PROG) |
	       emit("sbx_filter_nested_trunc", NESTED_TRUNC_PROG) | emit_rows();
}
