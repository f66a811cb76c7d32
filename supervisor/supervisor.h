/* supervisor/supervisor.h: what the supervisor's files share. Not a public API. */
#ifndef SBX_SUPERVISOR_H
#define SBX_SUPERVISOR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "policy.h"

/* Exit statuses of the contract. */
#define SBX_EXIT_SETUP 125   /* the sandbox could not be set up; nothing ran */
#define SBX_EXIT_NOEXEC 126
#define SBX_EXIT_NOTFOUND 127

/* ---- util.c */

/* A growable NULL-terminated vector of owned strings. */
struct strv {
	char **v;
	size_t n, cap;
};
int strv_add(struct strv *s, const char *str);        /* copies */
int strv_addf(struct strv *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strv_free(struct strv *s);

/* Append `arg` to out, quoted for a POSIX shell when it needs it. */
void shell_quote(const char *arg, char *out, size_t outsz);

/* Messages: one line on stderr, prefixed `sbx: `. */
enum verbosity { V_QUIET, V_NORMAL, V_VERBOSE, V_DEBUG };
extern enum verbosity sbx_verbosity;
void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void vmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));  /* --verbose */
void dmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));  /* --debug */

/* Find an executable in $PATH (or take an absolute/relative path as is). */
int find_in_path(const char *name, char *out, size_t outsz);
/* mkdir -p with mode for the missing parts. */
int mkdir_p(const char *path, mode_t mode);

/* ---- options.c */

struct flag_setting {
	const char *section, *key, *value, *flag;
};

struct options {
	const char *config;
	const char *workspace;
	const char *log;
	struct flag_setting *settings; /* --allow-write etc., in order */
	size_t nsettings;
	bool no_sandbox, no_shim, trace, learn, print;
	char **command; /* borrowed from argv */
};

/* 0 = run; 1 = done (help/version printed, exit 0); -1 = usage error
 * (message printed, exit 125). */
int options_parse(int argc, char **argv, struct options *o);
void options_free(struct options *o);

/* ---- plan.c: the policy as a bubblewrap command line and sbx-init's mounts */

struct plan_in {
	const struct policy *policy;
	const char *bwrap;     /* path to bwrap */
	const char *init;      /* path to sbx-init */
	char *const *command;  /* COMMAND [ARG...] */
	char **environ;        /* the caller's environment */
	const char *cwd;
	int ctl_fd;            /* fd sbx-init reports on, -1 for --print */
	unsigned ignored_signals; /* bit n: signal n was ignored by our caller */
	bool make_placeholders; /* false for --print: touch nothing on the host */
};

struct plan {
	struct strv argv;         /* bwrap ... -- sbx-init ... -- COMMAND ... */
	struct strv init_ops;     /* sbx-init's mount operations (init-mounts.h), in order */
	struct strv placeholders; /* host paths we created; removed after the run */
	unsigned read_masks;      /* read-denied paths hidden */
	unsigned write_protects;  /* paths bound read-only inside writable roots */
};

int plan_build(const struct plan_in *in, struct plan *out);
void plan_free(struct plan *pl);
/* Remove the placeholders that are still empty (deepest first). */
void plan_remove_placeholders(struct plan *pl);

/* ---- run.c */

struct run_in {
	int ctl_parent, ctl_child; /* the control socketpair */
	unsigned long long cpu_seconds, nofile; /* 0 = leave as is */
};

/* Run the planned bwrap, forward signals, and wait; returns the exit status
 * to give (COMMAND's, 128+N). *ready is set when sbx-init reported that the
 * sandbox stands; when it is not, nothing ran and the caller decides.
 * Removes the plan's placeholders as soon as sbx-init reports that no
 * process of COMMAND's is left. */
int run_sandbox(struct plan *pl, const struct run_in *ri, bool *ready);
/* exec COMMAND without a sandbox (--no-sandbox, fallback = warn). */
int run_unsandboxed(char *const *command);
/* The signals we forward; bit mask of those our caller had ignored. */
unsigned run_ignored_signals(void);

#endif
