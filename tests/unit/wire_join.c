/* tests/unit/wire_join.c: a long report line as pieces (common/wire.h)
 * and the supervisor joining them (common/wire_join.h).
 *
 * Lines longer than macOS's FIFO takes whole (512 bytes) go as pieces of
 * at most that; the pieces of many writers come mixed, and every line
 * comes out whole. The pieces are claims like every line of the stream:
 * a piece that is not one is malformed, one that breaks its line costs
 * that line, counted as dropped, never more than WIRE_JOIN_LINES lines
 * of WIRE_MAX bytes held, and a piece that does not know a line's id
 * cannot touch it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "common/wire.h"
#include "common/wire_join.h"

#define MAC_ATOMIC 512

struct pieces {
	char p[WIRE_PIECES_MAX][MAC_ATOMIC];
	size_t len[WIRE_PIECES_MAX];
	unsigned n;
};

/* line (without its newline) as the shim cuts it for a 512-byte FIFO */
static void cut(struct pieces *ps, int pid, unsigned long long id, const char *line, size_t len)
{
	size_t room = MAC_ATOMIC - WIRE_PIECE_HEAD_MAX, off = 0;

	ps->n = (unsigned)((len + room - 1) / room);
	cr_assert_leq(ps->n, WIRE_PIECES_MAX);
	for (unsigned k = 1; k <= ps->n; k++) {
		size_t m = len - off < room ? len - off : room;
		ps->len[k - 1] = wire_piece(ps->p[k - 1], pid, id, k, ps->n, line + off, m);
		cr_assert_leq(ps->len[k - 1], MAC_ATOMIC, "a piece of %zu bytes", ps->len[k - 1]);
		cr_assert_eq(ps->p[k - 1][ps->len[k - 1] - 1], '\n');
		cr_assert_eq(memchr(ps->p[k - 1], '\n', ps->len[k - 1] - 1), NULL);
		off += m;
	}
	cr_assert_eq(off, len);
}

/* One piece (k from 1) into j, its newline off. */
static enum wire_join_rc give(struct wire_join *j, const struct pieces *ps, unsigned k,
			      const char **line, size_t *len, int *pid)
{
	return wire_join_take(j, ps->p[k - 1], ps->len[k - 1] - 1, line, len, pid);
}

/* Lines begun (a piece 1 taken) and made whole, by give_text() */
static unsigned long begun, whole;

/* A piece written by hand (a forger's), into j. */
static enum wire_join_rc give_text(struct wire_join *j, const char *text)
{
	const char *line;
	size_t len;
	int pid;
	struct wire_piece p;
	enum wire_join_rc rc = wire_join_take(j, text, strlen(text), &line, &len, &pid);

	if (!wire_piece_decode(text, strlen(text), &p) && p.k == 1)
		begun++;
	whole += rc == WIRE_JOIN_WHOLE;
	return rc;
}

/* A report line for pid of `len` bytes or so (a long path). */
static size_t long_line(char *out, int pid, size_t target_len, char fill)
{
	char target[WIRE_TARGET_MAX];

	target[0] = '/';
	memset(target + 1, fill, target_len - 1);
	for (size_t i = 50; i < target_len; i += 50)
		target[i] = '/';
	target[target_len] = '\0';
	return wire_encode(out, WIRE_DENY, WIRE_READ, pid, "cat", target, 13) - 1;
}

Test(wire_join, pieces_of_many_lines_mixed_come_out_whole)
{
	enum { LINES = 40 };
	static char lines[LINES][WIRE_MAX];
	static struct pieces ps[LINES];
	size_t lens[LINES];
	unsigned next[LINES] = { 0 }, left = 0;
	int got[LINES] = { 0 };
	struct wire_join j = { 0 };

	srand(7);
	for (int i = 0; i < LINES; i++) {
		/* 600 to 4000 bytes; pids shared by pairs (threads of one
		 * process), ids their own */
		lens[i] = long_line(lines[i], 100 + i / 2, 600 + (size_t)(i * 97) % 3400,
				    (char)('a' + i % 26));
		cut(&ps[i], 100 + i / 2, 0x1000 + (unsigned long long)i * 0x9e3779b97f4a7c15ULL,
		    lines[i], lens[i]);
		cr_assert_geq(ps[i].n, 2);
		left += ps[i].n;
	}
	/* every line's pieces in order, the lines mixed at random */
	while (left) {
		int i = rand() % LINES;
		if (next[i] == ps[i].n)
			continue;
		const char *line;
		size_t len;
		int pid;
		enum wire_join_rc rc = give(&j, &ps[i], ++next[i], &line, &len, &pid);
		left--;
		if (next[i] < ps[i].n) {
			cr_assert_eq(rc, WIRE_JOIN_HELD);
			continue;
		}
		cr_assert_eq(rc, WIRE_JOIN_WHOLE, "line %d not whole after its last piece", i);
		cr_assert_eq(len, lens[i]);
		cr_assert_eq(memcmp(line, lines[i], len), 0, "line %d joined wrong", i);
		cr_assert_eq(pid, 100 + i / 2);
		struct wire_report w;
		cr_assert_eq(wire_decode(line, len, &w), 0);
		got[i]++;
	}
	for (int i = 0; i < LINES; i++)
		cr_assert_eq(got[i], 1);
	cr_assert_eq(wire_join_end(&j), 0, "nothing dropped");
	wire_join_free(&j);
}

Test(wire_join, a_piece_that_is_not_one_is_malformed)
{
	static const char *const bad[] = {
		"SBXP 5 00000000000000ab 1 2",           /* no bytes */
		"SBXP 5 00000000000000ab 1 2 ",          /* none after the space */
		"SBXP 5 00000000000000ab 0 2 x",         /* piece 0 */
		"SBXP 5 00000000000000ab 3 2 x",         /* piece k > n */
		"SBXP 5 00000000000000ab 1 1 x",         /* one piece: a line, not pieces */
		"SBXP 5 00000000000000ab 1 33 x",        /* more than WIRE_PIECES_MAX */
		"SBXP 5 00000000000000ab 1 99999999 x",  /* a huge count */
		"SBXP 5 00000000000000ab 1 -2 x",
		"SBXP 0 00000000000000ab 1 2 x",         /* pid 0 */
		"SBXP 05 00000000000000ab 1 2 x",        /* a leading zero */
		"SBXP -5 00000000000000ab 1 2 x",
		"SBXP 99999999999 00000000000000ab 1 2 x", /* past an int */
		"SBXP 2147483648 00000000000000ab 1 2 x",
		"SBXP 5 0000000000000ab 1 2 x",          /* 15 hex digits */
		"SBXP 5 000000000000000ab 1 2 x",        /* 17 */
		"SBXP 5 00000000000000AB 1 2 x",         /* upper case */
		"SBXP 5 00000000000000ag 1 2 x",
		"SBXP 5  00000000000000ab 1 2 x",        /* two spaces */
		"SBXP 5 00000000000000ab 01 2 x",
		"SBXP 5 00000000000000ab 1 2",
		"SBXP 5",
		"SBXP ",
		"SBXP",
		"SBXQ 5 00000000000000ab 1 2 x",
	};
	struct wire_join j = { 0 };
	struct wire_piece p;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(wire_piece_decode(bad[i], strlen(bad[i]), &p), -1, "taken: %s", bad[i]);
		cr_assert_eq(give_text(&j, bad[i]), WIRE_JOIN_MALFORMED, "taken: %s", bad[i]);
	}
	/* the widest header wire_piece writes fits WIRE_PIECE_HEAD_MAX */
	char buf[MAC_ATOMIC];
	size_t n = wire_piece(buf, 2147483647, ~0ULL, WIRE_PIECES_MAX, WIRE_PIECES_MAX, "x", 1);
	cr_assert_eq(n, WIRE_PIECE_HEAD_MAX + 1, "%zu: %.*s", n, (int)n, buf);
	cr_assert_eq(wire_piece_decode(buf, n - 1, &p), 0);
	cr_assert_eq(p.pid, 2147483647);
	cr_assert_eq(p.id, ~0ULL);
	cr_assert_eq(p.k, WIRE_PIECES_MAX);
	cr_assert_eq(p.len, 1);
	cr_assert_eq(wire_join_end(&j), 0, "a malformed piece holds nothing");
	wire_join_free(&j);
}

Test(wire_join, a_piece_that_breaks_its_line_drops_that_line_counted)
{
	struct wire_join j = { 0 };

	/* a continuation of no line held */
	cr_assert_eq(give_text(&j, "SBXP 5 00000000000000ab 2 3 b"), WIRE_JOIN_MALFORMED);
	/* the count changed under it */
	cr_assert_eq(give_text(&j, "SBXP 5 00000000000000ab 1 3 a"), WIRE_JOIN_HELD);
	cr_assert_eq(give_text(&j, "SBXP 5 00000000000000ab 2 4 b"), WIRE_JOIN_HELD);
	cr_assert_eq(j.dropped, 1);
	cr_assert_eq(give_text(&j, "SBXP 5 00000000000000ab 3 3 c"), WIRE_JOIN_MALFORMED,
		     "the broken line is gone");
	/* a piece skipped */
	cr_assert_eq(give_text(&j, "SBXP 5 00000000000000ac 1 3 a"), WIRE_JOIN_HELD);
	cr_assert_eq(give_text(&j, "SBXP 5 00000000000000ac 3 3 c"), WIRE_JOIN_HELD);
	cr_assert_eq(j.dropped, 2);
	/* a piece twice */
	cr_assert_eq(give_text(&j, "SBXP 5 00000000000000ad 1 2 a"), WIRE_JOIN_HELD);
	cr_assert_eq(give_text(&j, "SBXP 5 00000000000000ad 1 2 a"), WIRE_JOIN_HELD);
	cr_assert_eq(j.dropped, 3, "piece 1 again: the line held under its key is over");
	const char *line;
	size_t len;
	int pid;
	cr_assert_eq(wire_join_take(&j, "SBXP 5 00000000000000ad 2 2 b", 29, &line, &len, &pid),
		     WIRE_JOIN_WHOLE, "the line begun again is whole");
	cr_assert_eq(len, 2);
	cr_assert_eq(memcmp(line, "ab", 2), 0);
	/* longer than one report: dropped once past it, never held past it */
	char big[600];
	int o = snprintf(big, sizeof(big), "SBXP 6 00000000000000ae 1 32 ");
	memset(big + o, 'x', 470);
	big[o + 470] = '\0';
	cr_assert_eq(give_text(&j, big), WIRE_JOIN_HELD);
	for (unsigned k = 2; k <= 9; k++) {
		o = snprintf(big, sizeof(big), "SBXP 6 00000000000000ae %u 32 ", k);
		memset(big + o, 'x', 470);
		big[o + 470] = '\0';
		cr_assert_eq(give_text(&j, big), WIRE_JOIN_HELD);
		for (size_t i = 0; i < WIRE_JOIN_LINES; i++)
			cr_assert_leq(j.lines[i].len, WIRE_MAX - 1);
	}
	cr_assert_eq(j.dropped, 4, "a line past WIRE_MAX bytes is dropped");
	/* never finished: counted at the end */
	cr_assert_eq(give_text(&j, "SBXP 7 00000000000000af 1 2 a"), WIRE_JOIN_HELD);
	cr_assert_eq(wire_join_end(&j), 5);
	wire_join_free(&j);
}

/* A forger who does not know a line's id (random per line: the shim's
 * getentropy) cannot break it, not even with its pid; a flood of lines
 * never finished holds at most WIRE_JOIN_LINES of them, the rest
 * dropped and counted, and memory stays WIRE_JOIN_LINES buffers. */
Test(wire_join, a_forger_cannot_break_a_line_it_cannot_name_and_a_flood_is_bounded)
{
	static char line[WIRE_MAX];
	static struct pieces ps;
	struct wire_join j = { 0 };
	const char *out;
	size_t len, n = long_line(line, 42, 1500, 'v');
	int pid;
	char forged[128];

	begun = whole = 0;
	cut(&ps, 42, 0x5eed5eed5eed5eedULL, line, n);
	cr_assert_eq(give(&j, &ps, 1, &out, &len, &pid), WIRE_JOIN_HELD);
	/* its pid, other ids, every piece number: each malformed or its own
	 * line, never the victim's */
	for (unsigned k = 1; k <= ps.n; k++) {
		snprintf(forged, sizeof(forged), "SBXP 42 %016llx %u %u zz", 0x5eed5eed5eed5eecULL,
			 k, ps.n);
		give_text(&j, forged);
		snprintf(forged, sizeof(forged), "SBXP 42 %016x %u %u zz", k, k, ps.n);
		give_text(&j, forged);
	}
	unsigned long before = j.dropped;
	/* WIRE_JOIN_LINES - 2 unfinished lines between its pieces: held too */
	for (unsigned k = 2; k <= ps.n; k++) {
		for (int f = 0; f < (WIRE_JOIN_LINES - 4) / (int)ps.n; f++) {
			snprintf(forged, sizeof(forged), "SBXP 66 %016x 1 9 zz", 1000 + f + 100 * k);
			give_text(&j, forged);
		}
		enum wire_join_rc rc = give(&j, &ps, k, &out, &len, &pid);
		cr_assert_eq(rc, k < ps.n ? WIRE_JOIN_HELD : WIRE_JOIN_WHOLE, "piece %u", k);
	}
	cr_assert_eq(len, n);
	cr_assert_eq(memcmp(out, line, n), 0, "the victim's line, whole");
	cr_assert_eq(pid, 42);
	cr_assert_eq(j.dropped, before, "nothing of the victim's dropped");
	/* a flood: 10000 lines begun, none finished */
	for (int f = 0; f < 10000; f++) {
		snprintf(forged, sizeof(forged), "SBXP %d %016x 1 2 flood", 1 + f % 50, f);
		cr_assert_eq(give_text(&j, forged), WIRE_JOIN_HELD);
	}
	size_t held = 0, buffers = 0;
	for (size_t i = 0; i < WIRE_JOIN_LINES; i++) {
		held += j.lines[i].pid != 0;
		buffers += j.lines[i].buf != NULL;
	}
	cr_assert_eq(held, WIRE_JOIN_LINES);
	cr_assert_leq(buffers, WIRE_JOIN_LINES, "memory: %zu buffers of WIRE_MAX", buffers);
	/* every line begun and not made whole counted once: the victim's
	 * was made whole */
	cr_assert_eq(wire_join_end(&j), begun - whole, "%lu dropped, %lu begun, %lu whole",
		     j.dropped, begun, whole);
	cr_assert_geq(begun, 10000);
	wire_join_free(&j);
}
