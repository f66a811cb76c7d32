/* shim/tell.c: `[report] tell_program` — the refused program hears why.
 *
 * An agent runs a command through its shell tool and reads that command's
 * output, not sbx's terminal: `Permission denied` alone cannot be told from
 * a missing file, so it retries or gives up. With tell=1 in SBX_SHIM (the
 * agent profiles turn it on; `--tell-program`), a refusal the shim reports
 * is also written to the refused program's own stderr, as one line:
 *
 *   sbx: read of ~/.ssh/id_rsa refused by policy (deny_read = ~/.ssh); ask
 *   the user to allow it with --allow-read ~/.ssh/id_rsa
 *
 * in the words of the supervisor's report (policy/hint.c: the rule as
 * written, the same flag). At most once per (operation, target) per
 * process, and only where it cannot corrupt anything (stderr_fits()).
 */
#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fcntl.h>

#include "common/look.h"
#include "shim/core.h"
#include "shim/tell.h"

/* ---- once per target: a small lock-free set of hashes */

#define TOLD_SLOTS 256
static atomic_ulong told[TOLD_SLOTS];

static unsigned long told_hash(enum sbx_op op, const char *s)
{
	unsigned long h = 1469598103934665603UL ^ (unsigned long)(op + 1);

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211UL;
	return h | 1; /* 0 marks a free slot */
}

/* true the first time for h; false after, and once the set is full (a
 * program refused 256 different things has heard enough) */
static bool first_time(unsigned long h)
{
	for (unsigned i = 0; i < TOLD_SLOTS; i++) {
		atomic_ulong *slot = &told[(h + i) % TOLD_SLOTS];
		unsigned long cur = atomic_load_explicit(slot, memory_order_relaxed);
		if (cur == h)
			return false;
		if (cur == 0) {
			unsigned long want = 0;
			if (atomic_compare_exchange_strong(slot, &want, h))
				return true;
			if (want == h)
				return false; /* another thread, same target */
		}
	}
	return false;
}

/* ---- where the line may go
 *
 * fd 2 only, and only when it is a pipe, a regular file or a socketpair
 * used as a pipe: what an agent's tool captures (Codex runs commands with
 * a pipe each for stdout and stderr; Gemini CLI, through Node's
 * child_process, with an AF_UNIX stream socketpair each; Claude Code gives
 * its Bash tool one regular file for both; `2> log` is a file). Never
 *  - when fd 2 is the same pipe (or socket) as fd 1 and stdin is a pipe or
 *    a socket: stdout may then be a protocol with stdin's peer (MCP's
 *    JSON-RPC over stdio), and the line would land inside it. One regular
 *    file for both, or one pipe with no one talking on stdin (`cmd 2>&1 |
 *    tee`, stdin a file, a terminal or /dev/null), is a log a person or a
 *    model reads;
 *  - a socket that is a conversation: stdin's own socket (inetd-style
 *    programs speak on fds 0, 1 and 2 alike), or anything but an AF_UNIX
 *    stream (a TCP connection, datagrams);
 *  - a terminal: the person at it already reads sbx's own line there, and
 *    a full-screen program draws on it;
 *  - /dev/null or another device: nobody reads it.
 * An MCP server's stderr is free text by the protocol (a log), so it gets
 * the line like any other program. */
static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static bool unix_stream(int fd)
{
	return shim_unix_stream(fd); /* port.h */
}

static bool stderr_fits(void)
{
	struct stat e, o, i;
	bool have_in = !shim_sys_fstat(0, &i);

	if (shim_sys_fstat(2, &e))
		return false;
	if (S_ISREG(e.st_mode))
		return true;
	if (S_ISSOCK(e.st_mode) && (!unix_stream(2) || (have_in && same_file(&e, &i))))
		return false;
	if (!S_ISFIFO(e.st_mode) && !S_ISSOCK(e.st_mode))
		return false;
	if (shim_sys_fstat(1, &o) || !same_file(&o, &e))
		return true;
	/* one pipe for both: a protocol only where someone talks on stdin */
	return !have_in || (!S_ISFIFO(i.st_mode) && !S_ISSOCK(i.st_mode));
}

/* ---- the line */

/* How long a line waits for room on a full, non-blocking stderr (the
 * program's choice, or another's on the same pipe: Node makes its stdio
 * pipes non-blocking). Without a wait the line was lost on EAGAIN whenever
 * the reader was behind; with one, a reader that stopped reading costs the
 * program that wait once: after one ran out, no line of this process waits
 * again until one gets through. */
#define TELL_WAIT_MS 1000
static atomic_int tell_gave_up;

/* One write where it can: a pipe takes up to PIPE_BUF whole, and the line
 * is the program's own stderr traffic from here on. */
static void tell_write(const char *s, size_t n)
{
	long wait_ms = atomic_load_explicit(&tell_gave_up, memory_order_relaxed) ? 0 :
		       TELL_WAIT_MS;

	atomic_store_explicit(&tell_gave_up, !shim_put(2, s, n, wait_ms), memory_order_relaxed);
}

struct buf {
	char s[2 * PATH_MAX + 512];
	size_t n;
};

static void put(struct buf *b, const char *s)
{
	size_t l = strlen(s);

	if (b->n + l >= sizeof(b->s))
		l = sizeof(b->s) - 1 - b->n;
	memcpy(b->s + b->n, s, l);
	b->n += l;
	b->s[b->n] = '\0';
}

/* What is at a path inside the sandbox, for the hint: the same walk as
 * the supervisor's look on the host (hostfs_look; common/look.c):
 * component by component, a link met is "not to be told", nothing but a
 * directory opened. port.h's calls only. */
static int walk_root(void)
{
	return shim_sys_openat(AT_FDCWD, "/", SHIM_O_WALK | O_DIRECTORY);
}

static int walk_stat(int dirfd, const char *name, struct stat *st)
{
	return shim_sys_fstatat(dirfd, name, st, AT_SYMLINK_NOFOLLOW);
}

/* off Linux (no O_PATH) an open of what was swapped in since the look:
 * O_DIRECTORY refuses it, and a FIFO's open does not wait */
static int walk_dir(int dirfd, const char *name)
{
	return shim_sys_openat(dirfd, name, SHIM_O_WALK | O_NOFOLLOW | O_DIRECTORY | O_NONBLOCK);
}

static void walk_close(int fd)
{
	shim_sys_close(fd);
}

static int sandbox_look(void *ctx, const char *path)
{
	/* on the stack: a table of addresses in the library's data would be
	 * a relocation the loader writes at every process start */
	const struct look_ops ops = { walk_root, walk_stat, walk_dir, walk_close };

	(void)ctx;
	return look_walk(path, &ops);
}

static const char *op_words(enum sbx_op op)
{
	return op == SBX_OP_WRITE ? "write to " : op == SBX_OP_EXEC ? "exec of " : "read of ";
}

void shim_tell(enum sbx_op op, const char *abs, bool made_dir, bool by_policy)
{
	const struct policy *p = shim_policy();
	const struct sbx_rule *why = NULL;
	char tmp[PATH_MAX + 2], text[PATH_MAX * 2], fix[PATH_MAX + 128];
	struct buf b = { .n = 0 };
	int saved = errno;

	if (!shim_tell_on() || policy_report_ignored(p, true, abs) ||
	    !first_time(told_hash(op, abs)) || !stderr_fits())
		goto out;
	put(&b, "sbx: ");
	put(&b, op_words(op));
	policy_tildify(p, abs, tmp, sizeof(tmp) - 1);
	if (made_dir && strcmp(tmp, "/"))
		strcat(tmp, "/");
	sbx_printable(tmp, text, sizeof(text), true);
	put(&b, text);
	/* the supervisor explains the target by its own check: so does this */
	if (by_policy && policy_check_path(p, op, abs, &why) != SBX_DENY)
		by_policy = false;
	if (!by_policy) {
		/* the boundary refused what the policy allows (a path made
		 * after the start cannot be bound writable): the person's
		 * line says why */
		put(&b, " refused by the sandbox; sbx's report to the user says why");
	} else {
		put(&b, " refused by policy (");
		if (why) {
			policy_rule_text(why, tmp, sizeof(tmp));
			sbx_printable(tmp, text, sizeof(text), true);
			put(&b, text);
		} else {
			put(&b, "outside the writable paths");
		}
		put(&b, ")");
		policy_hint_fix(p, op, abs, made_dir, why, sandbox_look, NULL, fix, sizeof(fix));
		policy_hint_runs_later(p, op, abs, made_dir, why, sandbox_look, NULL, text,
				       sizeof(text));
		if (fix[0]) {
			put(&b, "; ask the user to allow it with ");
			put(&b, fix);
			if (text[0]) { /* a cache a later build trusts: said */
				put(&b, " (");
				put(&b, text);
				put(&b, ")");
			}
		} else if (text[0]) {
			/* a place a later program runs from: said, never offered */
			put(&b, "; ");
			put(&b, text);
			put(&b, " — no flag is offered for it");
		} else if (why && strstr(policy_rule_note(why), "no setting")) {
			put(&b, "; no setting allows it");
		} else if (why && why->kind == SBX_RULE_DENY_WRITE) {
			put(&b, "; only the user can allow it, by removing that rule");
		}
	}
	put(&b, "\n");
	tell_write(b.s, b.n);
out:
	errno = saved;
}

void shim_tell_note(const char *key, const char *line)
{
	int saved = errno;

	if (shim_tell_on() && first_time(told_hash((enum sbx_op)(SBX_OP_EXEC + 1) /* a note */, key)) && stderr_fits())
		tell_write(line, strlen(line));
	errno = saved;
}
