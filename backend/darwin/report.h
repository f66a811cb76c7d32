/* backend/darwin/report.h: Seatbelt's refusals, read from the unified log
 * (logstream.h), as the run's events (common/event.h, layer
 * EVENT_SEATBELT): the supervisor hands them to its one report path
 * (preload/reports.c, reports_event), which makes the same lines and
 * JSONL records as on Linux, with "(Seatbelt)" and layer "seatbelt".
 * Portable: tests/unit/darwin_launch.c feeds it recorded lines. */
#ifndef SBX_DARWIN_REPORT_H
#define SBX_DARWIN_REPORT_H

#include "backend/darwin/logstream.h"

struct event;

/* One refusal as an event, passed to fn: a file's read, write or run
 * (EVENT_ACCESS, which the supervisor decides again with the policy), a
 * Unix socket by its path, anything else a refused call (EVENT_CALL)
 * with the words for it. */
void darwin_event(const struct seatbelt_violation *v,
		  void (*fn)(void *ctx, const struct event *ev), void *ctx);

#endif
