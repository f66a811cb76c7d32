/* cli/sbxctl.h: what sbxctl's files share (docs/SBXCTL.md).
 *
 * sbxctl runs as the user, outside any sandbox, and never runs COMMAND:
 * it reads and writes the user's configuration, asks the very policy
 * sbx-preload would build (config.h) and reads the audit log. Exit
 * statuses: 0 done (check: allowed), 1 denied (check, hook never) or a
 * problem found (doctor: the sandbox cannot start), 2 usage or input
 * error. */
#ifndef SBX_SBXCTL_H
#define SBX_SBXCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "policy/policy.h"

#define CTL_OK 0
#define CTL_DENIED 1
#define CTL_USAGE 2

/* ---- common.c: shared by the subcommands */

/* Colour for f: only on a terminal, never with NO_COLOR set (any value)
 * or TERM=dumb. */
bool ctl_color(FILE *f);
/* "\033[1;31m"..."\033[0m" when `on`, else "". */
const char *ctl_sgr(bool on, const char *code);

/* `sbxctl SUB --help` and `--version`, before anything else: 1 when one
 * was printed (exit 0). */
int ctl_common_flag(const char *sub, const char *usage, int argc, char **argv);

/* The policy sbx-preload would build from this directory: --config FILE
 * (NULL: $SBX_CONFIG, the user file, /etc/sbx), -w DIR (NULL: cwd, or
 * the file's workspace), extra flag settings (may be NULL). With `b`
 * non-NULL the builder is handed over uncompiled instead (status reads
 * where scalars came from). user_file: the file used, as shown. 0, or
 * CTL_USAGE with the error printed. */
struct options;
int ctl_policy(const char *config, const char *workspace, const char *cwd,
	       struct policy **p, struct policy_builder **b, char *user_file,
	       size_t ufsz);
/* The same with an agent profile added after the user's file, as a run
 * of `sbx-preload --profile NAME` gets it (NULL: none). */
int ctl_policy_profile(const char *config, const char *workspace, const char *cwd,
		       const char *profile, struct policy **p, struct policy_builder **b,
		       char *user_file, size_t ufsz);
/* The audit log a run from here writes: --log's FILE when given, else
 * [report] log, else $XDG_STATE_HOME/sbx/audit.jsonl. 0 or -errno. */
int ctl_log_path(const char *config, const char *given, char *out, size_t outsz);

/* Where configure/enable/disable write: --config FILE, else $SBX_CONFIG,
 * else ~/.config/sbx/sandbox.ini ($XDG_CONFIG_HOME). Absolute. */
int ctl_target_file(const char *config, char *out, size_t outsz);

/* The file `path` (absolute) replaced whole by `text`, atomically: a
 * temporary file in the same directory, fsync, rename, fsync of the
 * directory (hostfs.h: never through a link). The previous content, when
 * there was a file, is kept first as PATH.bak, the same way. Refuses
 * text that does not load as a sandbox.ini. 0, or -errno with the error
 * printed. */
int ctl_write_config(const char *path, const char *text);
/* The current content of `path` (malloc'd, NUL-terminated) or NULL with
 * *missing set when there is none. -errno with the error printed. */
int ctl_read_config(const char *path, char **text, bool *missing);

/* A compiled policy's blob read from fd (a regular file of at most 64
 * MiB, read into memory, never mapped: a file shrunk under a mapping
 * would fault) and a view over it (policy/blob.c checks every offset).
 * p is NULL when the blob does not attach. */
struct ctl_blob {
	char *blob;
	void *mem;
	const struct policy *p;
};
int ctl_blob_read(int fd, struct ctl_blob *b);
void ctl_blob_free(struct ctl_blob *b);

/* A string for the terminal: controls escaped (report_printable). */
void ctl_printable(const char *s, char *out, size_t outsz);

/* ---- pieces exposed for the unit tests (tests/unit/sbxctl_*.c) */

/* status.c: `text` (a sandbox.ini) with [sandbox]'s `enabled` set to
 * `value`: the key's lines replaced, else the key added under the
 * section, else the section added on top; every other line kept.
 * malloc'd, NULL without memory. */
char *ctl_set_enabled(const char *text, const char *value);
/* log.c: --since's value as the UTC time prefix records are compared
 * with ("2026-11-27T10:00"); 0, or -1 when it is neither a time nor an
 * age (30s, 10m, 2h, 7d). */
int ctl_parse_since(const char *v, char *out, size_t outsz);

/* ---- the subcommands: argv[0] is the subcommand's name */
int cmd_configure(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_enable(int argc, char **argv);  /* enable and disable */
int cmd_check(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_hook(int argc, char **argv);
int cmd_import_srt(int argc, char **argv);

#endif
