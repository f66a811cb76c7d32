/* backend/darwin/seatbelt.h: the compiled policy as a Seatbelt (SBPL)
 * profile for macOS's sandbox-exec, built in portable C (docs/MACOS.md).
 *
 * Every path travels as a `-D NAME=VALUE` parameter, read in the profile
 * with `(param "NAME")`: no byte of a path is ever spliced into the
 * profile's text, so no name a user (or a sandboxed program) chose can end
 * a string or add a rule. Globs become anchored regular expressions, also
 * parameters, with every literal byte escaped.
 */
#ifndef SBX_SEATBELT_H
#define SBX_SEATBELT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "policy/policy.h"

struct seatbelt_opts {
	/* The tag on every deny rule, `sbx-RUNID` in the log line: letters,
	 * digits, `-`, `_` and `.` only (it is text of the profile). */
	const char *run_id;
	/* Where the supervisor's proxy listens on localhost. Both must be
	 * known (non-zero) when the network goes through the proxy: the
	 * compiler refuses rather than leave the network open or shut. */
	unsigned http_port, socks_port;
	bool keychain; /* the login keychain's services (an opt-in) */
	/* The shim's hand-over (docs/MACOS.md, "The shim's hand-over"): the
	 * supervisor's directory and the three files in it, absolute. All
	 * NULL: no shim, no rules. The directory is never changed from
	 * inside, the policy read, the report FIFO only written (its
	 * reports are not another program's to read), the counters file
	 * only written (a drop appends a byte); last in the profile, so
	 * they win. */
	const char *shim_dir, *shim_policy, *shim_report, *shim_counters;
	/* The directory every run's hand-over is made in (sbx's state
	 * directory), absolute: its `shim-*` entries are never read from
	 * inside (another run's policy, reports, counters; a directory
	 * opened could be flocked, holding off a start), but for this run's
	 * policy, allowed after. NULL: no such rule. */
	const char *shim_others;
	/* The person's terminal, when COMMAND has one of its own
	 * (backend/relay.c): denied by name (HOST_TTY), after every allow.
	 * NULL or "": none. */
	const char *host_tty;
	/* What the disk says stays unwritten, which no rule names
	 * (preload/plan.c, plan_guards(): a repository's hooks and config,
	 * the directory its core.hooksPath names, a bare one's, a linked
	 * worktree's entry, a `.git` file, an included config, the links on
	 * the way), absolute: denied writing and making, as a deny_write
	 * path is, after the writable roots (they win); nkept 0: none. */
	char *const *kept;
	size_t nkept;
	/* The directories on the way to them (plan_guards()'s pinned): the
	 * directory itself never renamed, removed or changed, what is in it
	 * as the rest of the profile says. */
	char *const *pinned;
	size_t npinned;
};

struct seatbelt_param {
	char *name;  /* "P12", "HTTP_PROXY_PORT" */
	char *value; /* "/Users/u/.ssh" */
};

struct seatbelt_profile {
	char *text;
	struct seatbelt_param *params;
	size_t nparams;
};

/* The profile for p: 0, or -EINVAL with err saying what (a port not
 * known, a run id that cannot be a tag), -ENAMETOOLONG, -ENOMEM. */
int seatbelt_compile(const struct policy *p, const struct seatbelt_opts *o,
		     struct seatbelt_profile *out, char *err, size_t errsz);
void seatbelt_profile_free(struct seatbelt_profile *sp); /* zeroed; twice is fine */

/* The path as Darwin's kernel names it: /tmp, /var and /etc are links to
 * /private/tmp, /private/var, /private/etc, and a profile names what they
 * lead to. 0 or -ENAMETOOLONG. */
int seatbelt_canonical(const char *path, char *out, size_t outsz);

/* An anchored POSIX extended regular expression for a rule's pattern:
 * what policy_rule_matches() says of a path, as a regex: the path or a
 * glob from `^`, a name at any depth after some `/`, then the end or a
 * `/` and anything. Every byte but the wildcards is escaped; with fold,
 * a letter matches in either case (`[gG]`). 0 or -ENAMETOOLONG. */
int seatbelt_rule_regex(enum sbx_pat pat, const char *pattern, bool fold, char *out,
			size_t outsz);

/* A command a person can paste into a Mac's shell:
 * `/usr/bin/sandbox-exec -D 'P1=...' ... -p '(version 1) ...' COMMAND`
 * (command NULL: a shell). */
void seatbelt_print_command(FILE *f, const struct seatbelt_profile *sp,
			    char *const *command);

#endif
