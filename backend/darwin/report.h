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

#endif
