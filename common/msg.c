/* common/msg.c: the supervisor's own lines for the person (msg.h). */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/msg.h"
#include "policy/policy.h"

enum verbosity sbx_verbosity = V_NORMAL;

static void vsay(const char *fmt, va_list ap)
{
	char line[4096], shown[4096];

	vsnprintf(line, sizeof(line), fmt, ap);
	/* Names in these lines come from trees the sandbox writes (the walk's
	 * last directory, a path that changed, a read-deny past the cap): a
	 * newline there printed a line of its own ("sbx: sandbox off"), an
	 * ESC a terminal sequence. Escaped as the reports are. */
	sbx_printable(line, shown, sizeof(shown), false);
	/* One write, so lines from parallel processes do not interleave. */
	sbx_dprintf(STDERR_FILENO, "sbx: %s\n", shown);
}

void (*sbx_text_hook)(int fd, const char *s, size_t n);

void sbx_write_text(int fd, const char *s, size_t n)
{
	if (sbx_text_hook)
		sbx_text_hook(fd, s, n);
	else
		sbx_write_plain(fd, s, n);
}

/* O_NONBLOCK on fd is not ours to go by: stderr's open file description
 * is COMMAND's too, and a program inside may set it (Node makes its stdio
 * pipes non-blocking). A full pipe then said EAGAIN, and a report line
 * was lost while the summary, written once the reader had caught up, was
 * not (issue 24). So EAGAIN waits for room, as a blocking write would. */
void sbx_write_plain(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd pf = { fd, POLLOUT, 0 };
			if (poll(&pf, 1, -1) < 0 && errno != EINTR)
				return;
			continue; /* the write says whether the reader is gone */
		}
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

int sbx_dprintf(int fd, const char *fmt, ...)
{
	char small[8192], *buf = small;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return n;
	if ((size_t)n >= sizeof(small)) {
		if (!(buf = malloc((size_t)n + 1)))
			return -1;
		va_start(ap, fmt);
		vsnprintf(buf, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	sbx_write_text(fd, buf, (size_t)n);
	if (buf != small)
		free(buf);
	return n;
}

void msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

void info(const char *fmt, ...)
{
	va_list ap;

	if (sbx_verbosity < V_NORMAL)
		return;
	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

void vmsg(const char *fmt, ...)
{
	va_list ap;

	if (sbx_verbosity < V_VERBOSE)
		return;
	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}

void dmsg(const char *fmt, ...)
{
	va_list ap;

	if (sbx_verbosity < V_DEBUG)
		return;
	va_start(ap, fmt);
	vsay(fmt, ap);
	va_end(ap);
}
