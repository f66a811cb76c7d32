/* backend/darwin/logstream.h: Seatbelt's refusals as the unified log says
 * them, read by the supervisor (docs/MACOS.md, "Reports").
 *
 * The kernel logs each refusal of a sandboxed process as one record;
 * `log stream --style ndjson` prints it as one JSON object a line, its
 * "eventMessage" like `Sandbox: cat(4121) deny(1) file-read-data
 * /Users/u/.ssh/id_rsa`, followed by the `(with message ...)` text of the
 * deny rule that refused it: our run's tag. Portable C: the parser is
 * checked on Linux with recorded lines (tests/unit/darwin_log.c); only the
 * start of `log` itself is darwin's (darwin_spawn.c).
 *
 * Everything in a line is hostile input: the sandboxed program chooses
 * its own name and the paths it is refused, and may write lookalike lines
 * to the log itself. A line counts only when the kernel wrote it
 * (processID 0: the log records the writer, a program cannot claim
 * another's pid) and it ends with this run's tag; the supervisor then
 * decides the operation again with its own policy (darwin.c).
 */
#ifndef SBX_DARWIN_LOGSTREAM_H
#define SBX_DARWIN_LOGSTREAM_H

#include <stdbool.h>
#include <stddef.h>

/* The longest line read; a longer one is not ours (a path on a Mac is at
 * most 1024 bytes, so a record is far shorter). */
#define SEATBELT_LOG_LINE_MAX 16384

struct seatbelt_violation {
	char comm[64];      /* the process's name as the kernel logged it */
	int pid;
	char op[64];        /* the Seatbelt operation: file-read-data, mach-lookup... */
	char target[4096];  /* a path, a Mach service, `*:443`...; may be "" */
	unsigned repeats;   /* 1, or N for "N duplicate reports for ..." */
};

enum seatbelt_log_kind {
	SEATBELT_LOG_OURS,      /* a refusal of this run: *v is filled */
	SEATBELT_LOG_OTHER,     /* well-formed, not ours (another run, not the kernel's) */
	SEATBELT_LOG_MALFORMED, /* not a record `log` writes: truncated, bad JSON, too long */
};

/* One line of `log stream --style ndjson` (without its newline). `tag` is
 * the run's `sbx-...` text of the profile's deny rules. */
enum seatbelt_log_kind seatbelt_log_parse(const char *line, size_t len, const char *tag,
					  struct seatbelt_violation *v);

/* log's output as it comes (any split) into lines, each parsed; a
 * refusal of ours passed to on(). A line longer than SEATBELT_LOG_LINE_MAX
 * is dropped whole. Zero-initialise. */
struct seatbelt_log_buf {
	char buf[SEATBELT_LOG_LINE_MAX + 1];
	size_t len;
	bool skipping;            /* inside an overlong line: dropped to its end */
	unsigned long ours, other, malformed;
};
void seatbelt_log_feed(struct seatbelt_log_buf *lb, const char *tag, const char *data, size_t n,
		       void (*on)(void *ctx, const struct seatbelt_violation *v), void *ctx);

/* The predicate for `log stream --predicate`: the kernel's records that
 * end with tag. 0, or -EINVAL for a tag that is not [A-Za-z0-9._-]. */
int seatbelt_log_predicate(const char *tag, char *out, size_t outsz);

/* What the supervisor reports an operation as. */
enum seatbelt_op_class {
	SEATBELT_OP_READ,    /* file-read-*: a read of target (a path) */
	SEATBELT_OP_WRITE,   /* file-write-*, file-link: a write */
	SEATBELT_OP_EXEC,    /* process-exec*: a run */
	SEATBELT_OP_UNIX,    /* network-outbound to a path: a Unix socket */
	SEATBELT_OP_OTHER,   /* the rest (mach-lookup, network-outbound to a port...) */
};
enum seatbelt_op_class seatbelt_op_class(const struct seatbelt_violation *v);

/* Is s an absolute, normal path (no `.`, `..`, `//`, trailing `/`)? The
 * kernel logs file targets so; anything else is said, not decided. */
bool seatbelt_path_normal(const char *s);

#endif
