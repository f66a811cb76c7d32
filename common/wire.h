/* common/wire.h: one report, as the shim hands it to the supervisor.
 *
 * A report is one text line, written with a single write(2) so it lands
 * whole in the pipe (a line longer than the pipe takes whole, as pieces:
 * WIRE_ATOMIC below):
 *
 *     SBX1 <decision> <op> <pid> <comm> <target> <errno>\n
 *
 * decision: D denied, A allowed (--trace), L would be denied (--learn, the
 * call went ahead), N a note (`exec`: a static binary started). op: read write exec connect dns unix. Fields are
 * separated by one space; bytes <= 0x20, 0x7f, `%` and `+` inside comm and
 * target are written as %XX, so a field never holds a space or a newline.
 * A file target with a trailing `/` is a directory being made (mkdir): the
 * decoder drops the `/` and sets `dir`.
 * The shim only says what happened. Anything in the sandbox can write to
 * the pipe too, so for the supervisor a line is a claim: it decides the
 * operation again with its own copy of the policy (the decision and the
 * rule), and refuses more than wire_decode() does (report_parse() in
 * preload/reports.c: no control byte in a decoded target, file targets
 * absolute and normal, decision letters the mode sends).
 *
 * Used by the shim (encode, async-signal-safe, no allocation) and by the
 * supervisor (decode, which treats every line as hostile input).
 */
#ifndef SBX_WIRE_H
#define SBX_WIRE_H

#include <stddef.h>

enum wire_op {
	WIRE_READ,
	WIRE_WRITE,
	WIRE_EXEC,
	WIRE_CONNECT,
	WIRE_DNS,
	WIRE_UNIX,
	WIRE_SOCKET, /* a socket() the seccomp table refuses (not AF_UNIX's) */
	WIRE_OP_COUNT,
};

#define WIRE_DENY 'D'
#define WIRE_ALLOW 'A'
#define WIRE_LEARN 'L'
#define WIRE_NOTE 'N' /* not a decision: exec of a static binary (the shim
		       * will not see inside it) */

#define WIRE_MAX 4096 /* the longest line, newline included */
#define WIRE_TARGET_MAX 4096

/* The most bytes one write(2) puts into the report channel whole:
 * PIPE_BUF, Linux's 4096 (WIRE_MAX: every line fits), macOS's 512. A
 * longer line may be cut there by another writer's bytes, so the shim
 * writes it as pieces (below). The shim-dyld runner and the test
 * program built from its objects set it to 512 on Linux (Makefile), to
 * run macOS's case here. */
#ifndef WIRE_ATOMIC
#include <limits.h>
#ifdef PIPE_BUF
#define WIRE_ATOMIC PIPE_BUF
#else
#define WIRE_ATOMIC 512 /* _POSIX_PIPE_BUF: the least POSIX allows */
#endif
#endif

/* A line longer than WIRE_ATOMIC, as pieces, each one write(2) of at
 * most WIRE_ATOMIC bytes:
 *
 *     SBXP <pid> <id> <k> <n> <bytes>\n
 *
 * pid: the writer's (decimal, as the line's own); id: 16 lower-case hex
 * digits, random per line (wire_join.h: a guess cannot break another's
 * line); k: this piece, 1 to n; n: how many, 2 to WIRE_PIECES_MAX;
 * bytes: the next part of the line, at least one, without its newline
 * (the last piece's newline ends the line). Pieces of one line are
 * written in order by one thread; pieces of other lines may come
 * between them. The supervisor joins them (common/wire_join.h); a line
 * of at most WIRE_ATOMIC bytes is written as it is. */
#define WIRE_PIECE_HEAD_MAX 40 /* "SBXP " 10 " " 16 " " 2 " " 2 " ", and "\n" */
#define WIRE_PIECES_MAX 32
#if WIRE_ATOMIC < 256
#error "WIRE_ATOMIC: at least 256 bytes (a line in at most WIRE_PIECES_MAX pieces)"
#endif
/* Where there is no /proc (macOS), SBX_SHIM names the policy, the report
 * FIFO and the counters file by path: each shorter than this
 * (shim/core.c; backend/darwin/launch.c, darwin_shim_spec). */
#define SBX_SHIM_PATH_MAX 256

struct wire_report {
	char decision;
	enum wire_op op;
	int pid;
	int err;
	char comm[32];
	char target[WIRE_TARGET_MAX];
	int truncated; /* the target did not fit in one line */
	int dir;       /* a file target written with a trailing `/` (mkdir) */
};

const char *wire_op_name(enum wire_op op);

/* v in decimal into out (room for 21 bytes), NUL-terminated; the length.
 * Async-signal-safe, unlike snprintf: the shim formats with it. */
size_t wire_utoa(unsigned long v, char *out);

/* Encode into buf (WIRE_MAX bytes); returns the length, newline included.
 * A target too long for one line is cut, and the line says so (`+` after
 * the target). */
size_t wire_encode(char *buf, char decision, enum wire_op op, int pid,
		   const char *comm, const char *target, int err);

/* Decode one line (without its newline). 0, or -1 when it is not a
 * well-formed report. */
int wire_decode(const char *line, size_t len, struct wire_report *out);

/* One piece of a line into buf (WIRE_ATOMIC bytes; len at most
 * WIRE_ATOMIC - WIRE_PIECE_HEAD_MAX); its length, newline included.
 * Async-signal-safe. */
size_t wire_piece(char *buf, int pid, unsigned long long id, unsigned k, unsigned n,
		  const char *data, size_t len);

struct wire_piece {
	int pid;
	unsigned long long id;
	unsigned k, n;
	const char *data; /* inside the line decoded */
	size_t len;
};

/* Decode a piece (a line without its newline that starts "SBXP "). 0, or
 * -1 when it is not one: the header exactly as wire_piece writes it, k
 * from 1 to n, n from 2 to WIRE_PIECES_MAX, at least one byte. */
int wire_piece_decode(const char *line, size_t len, struct wire_piece *out);

#endif
