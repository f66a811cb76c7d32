/* common/wire_join.h: the supervisor joins the pieces of a long report
 * line (wire.h, WIRE_ATOMIC) back into the line.
 *
 * macOS's FIFO takes a write whole only up to PIPE_BUF, 512 bytes: a
 * longer line (a long path) may be cut by another writer's bytes, and
 * the parser would then lose both. So the shim writes such a line as
 * pieces of at most that size, each with its writer's pid, an id of its
 * own and its number, and pieces of different lines may come in any mix.
 * Like every line of the report stream, a piece is a claim (anything in
 * the sandbox can write to the FIFO: docs/REPORTS.md):
 *
 *  - the line's pieces come in order (one thread writes them, one after
 *    the other): a piece that does not continue the line held for its
 *    (pid, id), by number, count or length, ends that line, dropped; a
 *    piece 1 starts a line afresh (dropping the one held under its
 *    key); a later piece with no line held is malformed;
 *  - the id is random per line (the shim's getentropy()): another
 *    process cannot name a line it did not write, so a forged piece can
 *    break only the forger's own lines; the joined line's own pid must
 *    be the pieces' (else malformed);
 *  - bounded: WIRE_JOIN_LINES lines held at once, each at most WIRE_MAX
 *    bytes (256 KiB in all); a new line when all are held drops the one
 *    that waited longest. A flood of unfinished lines costs others'
 *    lines, counted, as a flood filling the FIFO does;
 *  - a line dropped (broken, pushed out, or left unfinished at the end:
 *    its writer died, or the FIFO was full for a later piece) is a
 *    dropped report, counted in the summary with the shim's drops.
 */
#ifndef SBX_WIRE_JOIN_H
#define SBX_WIRE_JOIN_H

#include <stddef.h>

#include "common/wire.h"

#define WIRE_JOIN_LINES 64

struct wire_join_line {
	int pid; /* 0: a free slot */
	unsigned long long id;
	unsigned next, n;            /* the piece expected next, of n */
	unsigned long long last;     /* when it last grew (join->clock) */
	size_t len;
	char *buf;                   /* WIRE_MAX bytes, kept for reuse */
};

struct wire_join {
	struct wire_join_line lines[WIRE_JOIN_LINES];
	unsigned long long clock;
	unsigned long dropped; /* lines that never became whole */
};

enum wire_join_rc {
	WIRE_JOIN_HELD,      /* kept, or taken as the end of a line it broke */
	WIRE_JOIN_WHOLE,     /* *line is a whole line (without its newline) */
	WIRE_JOIN_MALFORMED, /* not a piece, or continuing no line held */
};

/* One piece (a line without its newline that starts "SBXP "). On
 * WIRE_JOIN_WHOLE *line, *len and *pid are the joined line (valid until
 * the next call) and the pid its pieces carried. */
enum wire_join_rc wire_join_take(struct wire_join *j, const char *piece, size_t len,
				 const char **line, size_t *linelen, int *pid);

/* Lines held now (the end: dropped, counted); the count dropped in all. */
unsigned long wire_join_end(struct wire_join *j);

/* Frees the buffers (the struct itself is the caller's; all zero is a
 * fresh one). */
void wire_join_free(struct wire_join *j);

#endif
