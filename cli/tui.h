/* cli/tui.h: the wizard's questions, on a terminal.
 *
 * Two faces: on a terminal that can move its cursor, a list is chosen with
 * up/down (or j/k) and enter, a checklist toggled with space; with
 * TERM=dumb (or unset) every question is a plain numbered prompt read a
 * line at a time, which screen readers and `script` logs read well. Text
 * questions are read a line at a time in both. Every function returns 0,
 * or -ECANCELED when the person gave up (Ctrl-C, Ctrl-D, q/Esc in a list)
 * or the input ended: the terminal is always left as it was found. */
#ifndef SBX_TUI_H
#define SBX_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <termios.h>

struct tui {
	int in;              /* the terminal, read */
	FILE *out;           /* and written */
	bool fancy;          /* cursor movement and raw keys */
	bool color;
	bool raw;            /* in raw mode now (restore on exit) */
	struct termios saved;
	unsigned char buf[64]; /* bytes read, not yet taken (keys come in bursts) */
	size_t pos, len;
};

/* 0, or -ENOTTY when stdin or stdout is no terminal. */
int tui_open(struct tui *t);
void tui_close(struct tui *t);

/* One of n choices (with a one-line explanation each); *choice in: the
 * default, out: the answer. */
int tui_select(struct tui *t, const char *question, const char *const *choices,
	       const char *const *help, size_t n, size_t *choice);
/* Toggle items; checked[] in and out. locked[i] (may be NULL): cannot be
 * unchecked (built in), `why_locked` says why when tried. */
int tui_checklist(struct tui *t, const char *question, const char *const *items,
		  bool *checked, const bool *locked, const char *why_locked, size_t n);
/* A line of text; empty input keeps `dflt` ("-" clears it to ""). */
int tui_text(struct tui *t, const char *question, const char *dflt, char *out, size_t outsz);
/* Yes or no. */
int tui_confirm(struct tui *t, const char *question, bool dflt, bool *yes);

#endif
