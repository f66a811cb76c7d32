/* backend/darwin/report.h: Seatbelt's refusals, read from the unified log
 * (logstream.h), into the run's one report path (preload/reports.c): the
 * same lines and JSONL records as on Linux, with "(Seatbelt)" and layer
 * "seatbelt" where Linux says seccomp's (reports_cfg.seatbelt). Portable:
 * tests/unit/darwin_log.c feeds it recorded lines. */
#ifndef SBX_DARWIN_REPORT_H
#define SBX_DARWIN_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/darwin/logstream.h"

struct reports;

/* One refusal, decided again with the run's policy and said: a file's
 * read, write or run as the notify layer's are (reports_boundary), a
 * Unix socket by its path, anything else as a refused call
 * (reports_syscall), with the words for it. */
void darwin_report(struct reports *r, const struct seatbelt_violation *v);

/* `log stream`'s output as it comes (any split) into lines, each parsed
 * and, when ours, reported (r NULL: counted only). A line longer than SEATBELT_LOG_LINE_MAX is
 * dropped whole. */
struct darwin_log_buf {
	char buf[SEATBELT_LOG_LINE_MAX + 1];
	size_t len;
	bool skipping;            /* inside an overlong line: dropped to its end */
	unsigned long ours, other, malformed;
	bool (*seen)(void *ctx, const struct seatbelt_violation *v); /* NULL, or true: not reported */
	void *seen_ctx;
};
void darwin_log_feed(struct darwin_log_buf *lb, const char *tag, struct reports *r,
		     const char *data, size_t n);

#endif
