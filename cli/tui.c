/* cli/tui.c: see tui.h. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/sbxctl.h"
#include "cli/tui.h"

int tui_open(struct tui *t)
{
	const char *term = getenv("TERM");

	memset(t, 0, sizeof(*t));
	t->in = STDIN_FILENO;
	t->out = stdout;
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		return -ENOTTY;
	t->fancy = term && *term && strcmp(term, "dumb");
	t->color = ctl_color(stdout);
	return tcgetattr(t->in, &t->saved) ? -errno : 0;
}

static void raw_off(struct tui *t)
{
	if (t->raw) {
		tcsetattr(t->in, TCSANOW, &t->saved);
		t->raw = false;
		fputs("\033[?25h", t->out); /* the cursor back */
		fflush(t->out);
	}
}

void tui_close(struct tui *t)
{
	raw_off(t);
}

/* Keys one at a time, no echo, no signals: Ctrl-C arrives as a byte and
 * is an answer (cancel), so the terminal is restored on every way out. */
static int raw_on(struct tui *t)
{
	struct termios r = t->saved;

	r.c_lflag &= ~(tcflag_t)(ICANON | ECHO | ISIG | IEXTEN);
	r.c_iflag &= ~(tcflag_t)(IXON | ICRNL);
	r.c_cc[VMIN] = 1;
	r.c_cc[VTIME] = 0;
	if (tcsetattr(t->in, TCSANOW, &r))
		return -errno;
	t->raw = true;
	fputs("\033[?25l", t->out); /* hide the cursor while choosing */
	fflush(t->out);
	return 0;
}

enum key { K_NONE, K_UP, K_DOWN, K_ENTER, K_SPACE, K_CANCEL, K_DIGIT };

/* The next byte from the terminal; -1 at the end of input. A burst (keys
 * typed ahead, a paste, tmux send-keys) is kept and taken a byte at a
 * time, so no key is lost between a list and the next question. */
static int next_byte(struct tui *t)
{
	if (t->pos == t->len) {
		ssize_t n;
		do
			n = read(t->in, t->buf, sizeof(t->buf));
		while (n < 0 && errno == EINTR);
		if (n <= 0)
			return -1;
		t->pos = 0;
		t->len = (size_t)n;
	}
	return t->buf[t->pos++];
}

/* Is another byte already here (the rest of an escape sequence)? */
static bool more_now(struct tui *t)
{
	struct pollfd p = { .fd = t->in, .events = POLLIN };

	return t->pos < t->len || poll(&p, 1, 50) > 0;
}

/* One key press; *digit for K_DIGIT. Arrow keys come as ESC [ A or, in
 * the terminal's application mode, ESC O A; a lone ESC is a cancel. */
static enum key read_key(struct tui *t, int *digit)
{
	int b = next_byte(t);

	if (b < 0)
		return K_CANCEL;
	if (b == 0x1b) {
		if (!more_now(t))
			return K_CANCEL;
		int b1 = next_byte(t);
		if (b1 != '[' && b1 != 'O')
			return K_NONE;
		int b2 = next_byte(t);
		/* a longer sequence (ESC [ 1 ; 5 A...): skip to its final byte */
		while (b2 >= 0 && b2 < 0x40)
			b2 = next_byte(t);
		return b2 == 'A' ? K_UP : b2 == 'B' ? K_DOWN : K_NONE;
	}
	switch (b) {
	case 3: case 4: case 'q': return K_CANCEL; /* Ctrl-C, Ctrl-D */
	case '\r': case '\n': return K_ENTER;
	case ' ': case 'x': return K_SPACE;
	case 'k': case 16: return K_UP;   /* Ctrl-P */
	case 'j': case 14: return K_DOWN; /* Ctrl-N */
	}
	if (b >= '1' && b <= '9') {
		*digit = b - '1';
		return K_DIGIT;
	}
	return K_NONE;
}

/* A whole line (cooked mode), without its newline; -ECANCELED at the end
 * of input. */
static int read_line(struct tui *t, char *out, size_t outsz)
{
	size_t n = 0;
	char c;

	fflush(t->out);
	for (;;) {
		int b = next_byte(t);
		if (b < 0)
			return n ? 0 : -ECANCELED;
		c = (char)b;
		if (c == '\n' || c == '\r')
			break;
		if (n + 1 < outsz)
			out[n++] = c;
	}
	out[n] = '\0';
	/* trailing spaces and a CR from a terminal in an odd mode */
	while (n && (out[n - 1] == ' ' || out[n - 1] == '\r' || out[n - 1] == '\t'))
		out[--n] = '\0';
	return 0;
}

static void draw_list(struct tui *t, const char *const *items, const char *const *help,
		      const bool *checked, size_t n, size_t cur, bool redraw)
{
	if (redraw)
		fprintf(t->out, "\033[%zuA", n);
	for (size_t i = 0; i < n; i++) {
		fprintf(t->out, "\r\033[2K%s%s", i == cur ? "> " : "  ",
			ctl_sgr(t->color && i == cur, "\033[1;36m"));
		if (checked)
			fprintf(t->out, "[%c] ", checked[i] ? 'x' : ' ');
		fprintf(t->out, "%s%s", items[i], ctl_sgr(t->color && i == cur, "\033[0m"));
		if (help && help[i])
			fprintf(t->out, "%s — %s%s", ctl_sgr(t->color, "\033[2m"), help[i],
				ctl_sgr(t->color, "\033[0m"));
		fputs("\r\n", t->out);
	}
	fflush(t->out);
}

static int select_fancy(struct tui *t, const char *const *choices, const char *const *help,
			size_t n, size_t *choice)
{
	size_t cur = *choice < n ? *choice : 0;
	int rc = raw_on(t), digit = 0;

	if (rc)
		return rc;
	fprintf(t->out, "%s(up/down, enter)%s\r\n", ctl_sgr(t->color, "\033[2m"),
		ctl_sgr(t->color, "\033[0m"));
	draw_list(t, choices, help, NULL, n, cur, false);
	for (;;) {
		switch (read_key(t, &digit)) {
		case K_UP: cur = cur ? cur - 1 : n - 1; break;
		case K_DOWN: cur = (cur + 1) % n; break;
		case K_DIGIT: if ((size_t)digit < n) cur = (size_t)digit; break;
		case K_ENTER: *choice = cur; raw_off(t); return 0;
		case K_CANCEL: raw_off(t); return -ECANCELED;
		default: break;
		}
		draw_list(t, choices, help, NULL, n, cur, true);
	}
}

static int select_numbered(struct tui *t, const char *const *choices, const char *const *help,
			   size_t n, size_t *choice)
{
	char line[64], *end;

	for (size_t i = 0; i < n; i++)
		fprintf(t->out, "  %zu) %s%s%s\n", i + 1, choices[i], help && help[i] ? " — " : "",
			help && help[i] ? help[i] : "");
	for (;;) {
		fprintf(t->out, "Choice [%zu]: ", *choice + 1);
		if (read_line(t, line, sizeof(line)))
			return -ECANCELED;
		if (!line[0])
			return 0;
		unsigned long v = strtoul(line, &end, 10);
		if (!*end && v >= 1 && v <= n) {
			*choice = v - 1;
			return 0;
		}
		for (size_t i = 0; i < n; i++)
			if (!strcmp(line, choices[i])) {
				*choice = i;
				return 0;
			}
		fprintf(t->out, "Type a number from 1 to %zu.\n", n);
	}
}

int tui_select(struct tui *t, const char *question, const char *const *choices,
	       const char *const *help, size_t n, size_t *choice)
{
	fprintf(t->out, "%s%s%s\n", ctl_sgr(t->color, "\033[1m"), question,
		ctl_sgr(t->color, "\033[0m"));
	int rc = t->fancy ? select_fancy(t, choices, help, n, choice) :
		 select_numbered(t, choices, help, n, choice);
	if (!rc)
		fprintf(t->out, "  → %s\n", choices[*choice]);
	return rc;
}

static int checklist_fancy(struct tui *t, const char *const *items, bool *checked,
			   const bool *locked, const char *why, size_t n)
{
	size_t cur = 0;
	int rc = raw_on(t), digit = 0;

	if (rc)
		return rc;
	fprintf(t->out, "%s(up/down, space toggles, enter accepts)%s\r\n",
		ctl_sgr(t->color, "\033[2m"), ctl_sgr(t->color, "\033[0m"));
	draw_list(t, items, NULL, checked, n, cur, false);
	fputs("\r\033[2K\r\n", t->out); /* the line for notes */
	for (;;) {
		const char *note = "";
		switch (read_key(t, &digit)) {
		case K_UP: cur = cur ? cur - 1 : n - 1; break;
		case K_DOWN: cur = (cur + 1) % n; break;
		case K_DIGIT: if ((size_t)digit < n) cur = (size_t)digit; break;
		case K_SPACE:
			if (locked && locked[cur] && checked[cur])
				note = why;
			else
				checked[cur] = !checked[cur];
			break;
		case K_ENTER: raw_off(t); return 0;
		case K_CANCEL: raw_off(t); return -ECANCELED;
		default: break;
		}
		fputs("\033[1A", t->out);
		draw_list(t, items, NULL, checked, n, cur, true);
		fprintf(t->out, "\r\033[2K%s\r\n", note);
		fflush(t->out);
	}
}

static int checklist_numbered(struct tui *t, const char *const *items, bool *checked,
			      const bool *locked, const char *why, size_t n)
{
	char line[256];

	for (;;) {
		for (size_t i = 0; i < n; i++)
			fprintf(t->out, "  %zu) [%c] %s\n", i + 1, checked[i] ? 'x' : ' ', items[i]);
		fprintf(t->out, "Numbers to toggle (e.g. 4 5), empty to accept: ");
		if (read_line(t, line, sizeof(line)))
			return -ECANCELED;
		if (!line[0])
			return 0;
		for (char *s = line, *end; *s; s = end) {
			unsigned long v = strtoul(s, &end, 10);
			if (end == s) {
				end = s + 1;
				continue;
			}
			if (v < 1 || v > n) {
				fprintf(t->out, "No item %lu.\n", v);
				continue;
			}
			if (locked && locked[v - 1] && checked[v - 1])
				fprintf(t->out, "%s: %s\n", items[v - 1], why);
			else
				checked[v - 1] = !checked[v - 1];
		}
	}
}

int tui_checklist(struct tui *t, const char *question, const char *const *items,
		  bool *checked, const bool *locked, const char *why_locked, size_t n)
{
	fprintf(t->out, "%s%s%s\n", ctl_sgr(t->color, "\033[1m"), question,
		ctl_sgr(t->color, "\033[0m"));
	return t->fancy ? checklist_fancy(t, items, checked, locked, why_locked, n) :
	       checklist_numbered(t, items, checked, locked, why_locked, n);
}

int tui_text(struct tui *t, const char *question, const char *dflt, char *out, size_t outsz)
{
	char line[4096], keep[4096];

	/* dflt may be out itself */
	snprintf(keep, sizeof(keep), "%s", dflt ? dflt : "");
	dflt = keep;
	fprintf(t->out, "%s%s%s [%s]: ", ctl_sgr(t->color, "\033[1m"), question,
		ctl_sgr(t->color, "\033[0m"), dflt && *dflt ? dflt : "none");
	if (read_line(t, line, sizeof(line)))
		return -ECANCELED;
	snprintf(out, outsz, "%s", !line[0] ? (dflt ? dflt : "") : !strcmp(line, "-") ? "" : line);
	return 0;
}

int tui_confirm(struct tui *t, const char *question, bool dflt, bool *yes)
{
	char line[64];

	for (;;) {
		fprintf(t->out, "%s%s%s [%s]: ", ctl_sgr(t->color, "\033[1m"), question,
			ctl_sgr(t->color, "\033[0m"), dflt ? "Y/n" : "y/N");
		if (read_line(t, line, sizeof(line)))
			return -ECANCELED;
		if (!line[0]) {
			*yes = dflt;
			return 0;
		}
		if (strchr("yY", line[0]) || strchr("nN", line[0])) {
			*yes = strchr("yY", line[0]) != NULL;
			return 0;
		}
		fprintf(t->out, "Answer y or n.\n");
	}
}
