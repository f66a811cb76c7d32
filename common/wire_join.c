/* common/wire_join.c: the pieces of a long report line joined (see
 * wire_join.h). */
#include <stdlib.h>
#include <string.h>

#include "common/wire_join.h"

static struct wire_join_line *find(struct wire_join *j, int pid, unsigned long long id)
{
	for (size_t i = 0; i < WIRE_JOIN_LINES; i++)
		if (j->lines[i].pid == pid && j->lines[i].id == id)
			return &j->lines[i];
	return NULL;
}

static void drop(struct wire_join *j, struct wire_join_line *l)
{
	l->pid = 0;
	l->len = 0;
	j->dropped++;
}

/* A slot for a new line: a free one, else the one that waited longest
 * (dropped); NULL when no buffer can be had. */
static struct wire_join_line *slot(struct wire_join *j)
{
	struct wire_join_line *old = NULL;

	for (size_t i = 0; i < WIRE_JOIN_LINES; i++) {
		struct wire_join_line *l = &j->lines[i];
		if (!l->pid) {
			old = l;
			break;
		}
		if (!old || l->last < old->last)
			old = l;
	}
	if (old->pid)
		drop(j, old);
	if (!old->buf && !(old->buf = malloc(WIRE_MAX)))
		return NULL;
	return old;
}

enum wire_join_rc wire_join_take(struct wire_join *j, const char *piece, size_t len,
				 const char **line, size_t *linelen, int *pid)
{
	struct wire_piece p;
	struct wire_join_line *l;

	if (wire_piece_decode(piece, len, &p))
		return WIRE_JOIN_MALFORMED;
	l = find(j, p.pid, p.id);
	if (p.k == 1) {
		if (l)
			drop(j, l); /* its key again: that line is over */
		if (!(l = slot(j))) {
			j->dropped++;
			return WIRE_JOIN_HELD;
		}
		l->pid = p.pid;
		l->id = p.id;
		l->n = p.n;
		l->next = 1;
		l->len = 0;
	} else if (!l) {
		return WIRE_JOIN_MALFORMED; /* continues no line held */
	}
	/* a line's pieces come in order, with the count they began with,
	 * and a joined line is no longer than one report (reports_feed's
	 * bound: WIRE_MAX - 1 bytes before its newline) */
	if (p.k != l->next || p.n != l->n || p.len > WIRE_MAX - 1 - l->len) {
		drop(j, l);
		return WIRE_JOIN_HELD;
	}
	memcpy(l->buf + l->len, p.data, p.len);
	l->len += p.len;
	l->next++;
	l->last = ++j->clock;
	if (l->next <= l->n)
		return WIRE_JOIN_HELD;
	*line = l->buf;
	*linelen = l->len;
	*pid = l->pid;
	l->pid = 0; /* the buffer stays valid until the next call */
	return WIRE_JOIN_WHOLE;
}

unsigned long wire_join_end(struct wire_join *j)
{
	for (size_t i = 0; i < WIRE_JOIN_LINES; i++)
		if (j->lines[i].pid)
			drop(j, &j->lines[i]);
	return j->dropped;
}

void wire_join_free(struct wire_join *j)
{
	for (size_t i = 0; i < WIRE_JOIN_LINES; i++) {
		free(j->lines[i].buf);
		j->lines[i].buf = NULL;
		j->lines[i].pid = 0;
	}
}
