/* policy/policy.h: the only policy header other folders include.
 *
 * A policy is built in two steps: a builder collects raw settings from every
 * source (built-in defaults, the user's sandbox.ini, a project-local
 * sandbox.ini that may only narrow, SBX_* environment, command-line flags),
 * then policy_compile() expands `~` and relative paths, resolves isolation
 * into writable roots, adds the mandatory denies and freezes the result.
 * A compiled policy is immutable; queries on it never allocate.
 *
 * Ownership: every function that takes a string copies it. Pointers returned
 * by queries borrow from the policy and live as long as it does.
 */
#ifndef SBX_POLICY_H
#define SBX_POLICY_H

#include <stdio.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sbx_op {
	SBX_OP_READ,
	SBX_OP_WRITE,
	SBX_OP_EXEC,
};

enum sbx_verdict {
	SBX_ALLOW = 0,
	SBX_DENY = 1,
};

/* What kind of rule; the config key that writes it is sbx_rule_key(kind). */
enum sbx_rule_kind {
	SBX_RULE_DENY_READ,
	SBX_RULE_ALLOW_READ,
	SBX_RULE_ALLOW_WRITE,
	SBX_RULE_DENY_WRITE,
	SBX_RULE_MANDATORY,      /* write-deny no config can lift */
	SBX_RULE_ALLOW_DOMAIN,
	SBX_RULE_DENY_DOMAIN,
	SBX_RULE_ALLOW_UNIX_SOCKET,
	SBX_RULE_IGNORE_PATH,
	SBX_RULE_IGNORE_DOMAIN,
	SBX_RULE_DENY_ENV,
	SBX_RULE_SET_ENV,        /* `[env] set = NAME=VALUE`: COMMAND's environment */
	SBX_RULE_HOST_PORT,       /* [network] host_ports: the host's 127.0.0.1:N reachable */
	SBX_RULE_PROFILE_ARG,     /* [profile] args: after COMMAND's name, when it is the profile's */
	SBX_RULE_KEEP_ENV,        /* [env] keep_env: a secret-looking variable passed on */
	/* HOME's allow-list (policy/home.c): a path matching one is write-denied
	 * when the allow_write that would allow it is HOME or above it; an
	 * allow_write naming the place or a path inside it lifts it */
	SBX_RULE_HOME_KEPT,
	SBX_RULE_KIND_COUNT,
};

/* Where a setting came from, so a decision can be explained. */
enum sbx_origin {
	SBX_ORIGIN_DEFAULT,   /* built-in default */
	SBX_ORIGIN_MANDATORY, /* built-in, cannot be lifted */
	SBX_ORIGIN_ISOLATION, /* derived from `isolation` (workspace, session dir) */
	SBX_ORIGIN_FILE,      /* a sandbox.ini line */
	SBX_ORIGIN_PROJECT,   /* the workspace's own sandbox.ini (narrow only) */
	SBX_ORIGIN_ENV,       /* an SBX_* environment variable */
	SBX_ORIGIN_FLAG,      /* a command-line flag */
	SBX_ORIGIN_PROFILE,   /* an agent profile (share/sbx/profiles, ~/.config/sbx/profiles) */
};

/* How a path rule's pattern is matched (set by the compiler). */
enum sbx_pat {
	SBX_PAT_PREFIX,   /* literal absolute path: that path and everything under it */
	SBX_PAT_GLOB,     /* absolute glob (`*`, `?`, `**`): a match and everything under it */
	SBX_PAT_ANYWHERE, /* relative glob matched at any depth (`.env`, `.git/hooks`) */
};

struct sbx_rule {
	enum sbx_rule_kind kind;
	enum sbx_origin origin;
	enum sbx_pat pat;
	const char *value;   /* as the user wrote it: "~/.ssh" */
	const char *pattern; /* expanded: "/home/u/.ssh"; ANYWHERE: ".git/hooks" */
	const char *source;  /* "/home/u/.config/sbx/sandbox.ini:7", "--deny-read", "default" */
	size_t prefix_len;   /* PREFIX: strlen(pattern); GLOB: length of the literal lead */
	bool is_dir;         /* written with a trailing `/`: names a directory */
	/* An executes-later row an agent profile's own state directory lifts
	 * (policy/execlater.c): not matched below a PREFIX allow_write of
	 * origin PROFILE strictly inside HOME that holds no workspace. */
	bool agent;
};

enum sbx_isolation {
	SBX_ISOLATION_WORKSPACE,
	SBX_ISOLATION_STRICT,
	SBX_ISOLATION_CUSTOM,
};

enum sbx_fallback {
	SBX_FALLBACK_ERROR,
	SBX_FALLBACK_WARN,
};

enum sbx_home {
	SBX_HOME_REAL,
	SBX_HOME_EPHEMERAL,
};

/* `[report] stderr`: how report lines reach the terminal (docs/REPORTS.md,
 * "Reports and the terminal"). */
enum sbx_report_stderr {
	SBX_REPORT_AUTO, /* live, but held while the terminal is in raw mode (a full-screen program) */
	SBX_REPORT_LIVE, /* as they come */
	SBX_REPORT_END,  /* held until COMMAND has ended */
	SBX_REPORT_OFF,  /* none: the audit log only */
};

/* `[sandbox] profile`: the network a preset promises (policy/preset.c). */
enum sbx_preset_net {
	SBX_PRESET_NONE,    /* no preset */
	SBX_PRESET_OPEN,    /* *-open: any host */
	SBX_PRESET_CLOSED,  /* *-closed: none */
	SBX_PRESET_PROXIED, /* *-proxied: through sbx's proxy, allow_domains only */
};

/* Which layer of configuration a file is. */
enum policy_layer {
	POLICY_LAYER_USER,    /* --config, $SBX_CONFIG, ~/.config/sbx, /etc/sbx */
	POLICY_LAYER_PROJECT, /* <workspace>/sandbox.ini: may only narrow */
	/* An agent profile (preload/profile.c): [filesystem], [network]
	 * allow_domains/deny_domains, [env] and [report] only, plus its own
	 * [profile] section (description), which the policy ignores. */
	POLICY_LAYER_PROFILE,
};

/* A config error: which file and line, which key, and what was expected. */
struct sbx_err {
	char msg[1024];
};

#define SBX_OWN_FILES 4

/* The facts the compiler expands against. All absolute; copied. */
struct policy_ctx {
	const char *home;        /* $HOME */
	const char *cwd;         /* the current directory (default workspace) */
	const char *session_dir; /* the per-run directory `isolation = strict` writes to */
	/* sbx's own directories, never writable inside (mandatory denies, also
	 * when missing); NULL: ~/.local/state/sbx and ~/.config/sbx. The
	 * session directory may lie in the state directory: it stays
	 * writable, the rest of the state directory does not. */
	const char *state_dir;
	const char *config_dir;
	/* Was the linked worktree entry `gd` (`<common>/worktrees/<id>`) made
	 * or changed by a sandboxed run? Then isolation = workspace does not
	 * open <common> for it (the supervisor keeps that record: gitprov.h).
	 * NULL: none is. */
	bool (*untrusted_gitdir)(void *arg, const char *gd);
	void *untrusted_arg;
	/* The caller's $PATH, or NULL: its directories under HOME (but HOME
	 * itself and the workspace's) are mandatory denies (docs/POLICY.md,
	 * "Executes-later"). */
	const char *path_env;
	/* The directories a login shell puts on PATH under HOME, read from its
	 * start-up files (preload/loginpath.c), colon-separated, or NULL:
	 * kept by HOME's allow-list (read-only when HOME is writable, unless
	 * named). */
	const char *login_path;
	/* The caller's environment, or NULL: where a tool's own variable
	 * (sbx_credential_envs) moves its credentials, they are denied too. */
	char *const *environ;
	/* sbx's own programs (sbx-preload, sbx-init, the shim, bubblewrap),
	 * absolute or NULL: never writable inside, so no run can replace
	 * what the next run trusts to build its boundary. */
	const char *own_files[SBX_OWN_FILES];
};

struct policy_builder;
struct policy;

/* Start a builder holding the built-in defaults. */
int policy_builder_new(const struct policy_ctx *ctx, struct policy_builder **out);
/* One without them, for reading the files' settings alone (`enabled`
 * before the sandbox is started): never compiled. */
int policy_builder_new_bare(const struct policy_ctx *ctx, struct policy_builder **out);
void policy_builder_free(struct policy_builder *b); /* NULL is fine */

/* Read one sandbox.ini. A missing file is -ENOENT (err untouched), a bad one
 * -EINVAL with err naming file:line, key and what was expected. `display`
 * is how the file is named in messages and rule sources (e.g. with ~). */
int policy_builder_load_file(struct policy_builder *b, const char *path,
			     const char *display, enum policy_layer layer,
			     struct sbx_err *err);
int policy_builder_load_string(struct policy_builder *b, const char *text,
			       const char *display, enum policy_layer layer,
			       struct sbx_err *err);

/* One setting from a flag or the environment, e.g.
 * ("filesystem", "allow_write", "/data", SBX_ORIGIN_FLAG, "--allow-write").
 * List keys add to what the files said; scalar keys replace it. */
int policy_builder_set(struct policy_builder *b, const char *section,
		       const char *key, const char *value,
		       enum sbx_origin origin, const char *source,
		       struct sbx_err *err);

/* The workspace the builder will compile against (absolute, not resolved):
 * callers need it to find the project-local sandbox.ini. Borrowed. */
const char *policy_builder_workspace(const struct policy_builder *b);

/* A scalar key's value and where it was set, before compilation (sbxctl
 * status): 0 with *value NULL and *source NULL when nothing set it (the
 * built-in default); -ENOENT for a key that is no scalar. Borrowed. */
int policy_builder_scalar(const struct policy_builder *b, const char *section,
			  const char *key, const char **value, const char **source,
			  enum sbx_origin *origin);

/* What policy_enabled() will say, before compilation: sbx-preload asks it
 * of the user layer alone to start nothing for a disabled run. */
bool policy_builder_enabled(const struct policy_builder *b);

/* Freeze: expand paths, derive writable roots, add mandatory denies.
 * Consumes b (also on failure). */
int policy_compile(struct policy_builder *b, struct policy **out,
		   struct sbx_err *err);
void policy_free(struct policy *p); /* NULL is fine */

/* The compiled policy as one flat blob of offsets (malloc'd into *out), for
 * the preload shim: the supervisor seals it into a memfd. */
int policy_to_blob(const struct policy *p, void **out, size_t *outlen);
/* How much writable memory attaching to `blob` needs; -EINVAL if it is not
 * a well-formed blob of exactly `len` bytes. */
int policy_blob_attach_size(const void *blob, size_t len, size_t *need);
/* A policy view over `blob` (which must stay mapped), its tables built in
 * `mem` (max_align_t-aligned, >= the size above). Every offset, length and
 * enum is checked first: -EINVAL for a malformed blob. Allocates nothing;
 * the view is never passed to policy_free(). */
int policy_blob_attach(const void *blob, size_t len, void *mem, size_t memlen,
		       const struct policy **out);

/* May this path be read/written/executed, and which rule decided?
 * `abspath` must be absolute and normalised (no `.`/`..`, no `//`); the
 * caller resolves symlinks. *why is the deciding rule, or NULL when no rule
 * matched (reads: allowed by default; writes: outside every writable root).
 * Allocation-free, lock-free: the shim calls it on every open(). */
enum sbx_verdict policy_check_path(const struct policy *p, enum sbx_op op,
				   const char *abspath,
				   const struct sbx_rule **why);

/* May COMMAND connect to host[:port]? deny_domains first, then allow_domains
 * (`*` allows everything, `*.example.com` subdomains). port 0 = unknown: only port-less rules match. */
enum sbx_verdict policy_check_domain(const struct policy *p, const char *host,
				     unsigned port, const struct sbx_rule **why);

/* May COMMAND look this host name up? Allowed when some allow_domains rule
 * names it on any port and no port-less deny_domains rule refuses it (the
 * port is checked at connect). */
enum sbx_verdict policy_check_host(const struct policy *p, const char *host,
				   const struct sbx_rule **why);

/* Did the user silence reports about this target ([report] ignore_paths
 * for a path, ignore_domains for host, host:port or [v6]:port)? */
bool policy_report_ignored(const struct policy *p, bool path, const char *target);
/* The same, with the quiet rule that matched (the first), or NULL. */
const struct sbx_rule *policy_report_quiet(const struct policy *p, bool path,
					   const char *target);

/* A network target as reports name it — `host`, `host:port`, `[v6]:port`
 * or a bare v6 literal — split into the host (without brackets) and the
 * port (0 = none). 0, or -1 when it is none of those. */
int sbx_split_target(const char *target, char *host, size_t hostsz, unsigned *port);

/* `[env] set` entries split: NAME (copied into name) and VALUE (a pointer
 * into the rule's pattern, `~/` already expanded against HOME). -1 when
 * the rule is not a well-formed NAME=VALUE (the loader refuses those). */
int policy_set_env_split(const struct sbx_rule *r, char *name, size_t namesz,
			 const char **value);

/* What becomes of the caller's variable NAME (docs/POLICY.md, "The
 * environment"): a deny_env rule removes it (*why: that rule; no keep_env
 * lifts it); else a secret-looking name (sbx_env_secret_name()) is
 * withheld unless a keep_env rule keeps it (*why: that rule); else it
 * passes (*why NULL). */
enum sbx_env_fate {
	SBX_ENV_PASS,
	SBX_ENV_KEPT,   /* looks secret, kept by keep_env */
	SBX_ENV_DENIED, /* deny_env */
	SBX_ENV_SECRET, /* looks secret: withheld */
	SBX_ENV_SECRET_VALUE, /* a harmless name, a value shaped like a credential: withheld */
};
enum sbx_env_fate policy_env_fate(const struct policy *p, const char *name,
				  const struct sbx_rule **why);
struct sbx_secret_shape;
/* The same for NAME=VALUE: a value shaped like a credential
 * (sbx_env_secret_value(); *shape: its row) is withheld too, unless
 * keep_env keeps the name (SBX_ENV_KEPT, *shape still the row). value
 * may be NULL (the name alone). Never prints or keeps the value. */
enum sbx_env_fate policy_env_var_fate(const struct policy *p, const char *name,
				      const char *value, const struct sbx_rule **why,
				      const struct sbx_secret_shape **shape);
/* Is NAME=VALUE removed from COMMAND's environment? */
bool policy_env_var_denied(const struct policy *p, const char *name, const char *value);
/* Is NAME removed from COMMAND's environment (SBX_ENV_DENIED or
 * SBX_ENV_SECRET)? *why: the deny_env rule, or NULL. */
bool policy_env_denied(const struct policy *p, const char *name,
		       const struct sbx_rule **why);

/* ---- credentials.c: what authenticates someone or holds what they typed */

/* One row of the built-in credential table: read-denied by default. */
struct sbx_credential {
	const char *path;    /* as a rule writes it: "~/.claude/.credentials.json" */
	const char *owner;   /* the tool that keeps it there */
	const char *reason;  /* what in it authenticates someone, or was typed */
	const char *profile; /* the agent profile whose allow_read lifts it, or NULL */
	bool quiet;          /* its own tool reads it at every start and rewrites it
			      * at exit: refused every session, so a quiet rule
			      * (ignore_paths, source "default") keeps it off the
			      * terminal; still refused and logged */
};
extern const struct sbx_credential sbx_credentials[];
extern const size_t sbx_ncredentials;
/* A variable that moves a tool's credentials elsewhere than the table's
 * place (CARGO_HOME, DOCKER_CONFIG): read-denied where it points. */
struct sbx_credential_env {
	const char *var;    /* the tool's own variable */
	const char *file;   /* below the directory it names, or "" when it names the file */
	bool list;          /* a colon-separated list of files (KUBECONFIG) */
	const char *owner;  /* the tool */
	const char *reason; /* what is there */
};
extern const struct sbx_credential_env sbx_credential_envs[];
extern const size_t sbx_ncredential_envs;
/* Does an environment variable's name say it holds a secret (GITHUB_TOKEN,
 * OPENAI_API_KEY, PGPASSWORD)? The rule: credentials.c. */
bool sbx_env_secret_name(const char *name);
/* One shape of a credential in a variable's value (credentials.c's
 * table): what the person is told, whose format it is, and why. */
struct sbx_secret_shape {
	const char *what;   /* "a GitHub personal access token" */
	const char *owner;  /* the issuer or the tools that read it */
	const char *reason; /* the documented format, and what it opens */
	/* the match (credentials.c) */
	unsigned char kind;
	const char *prefix; /* `[abc]`: one of those characters */
	unsigned char min, max, set;
};
extern const struct sbx_secret_shape sbx_secret_shapes[];
extern const size_t sbx_nsecret_shapes;
/* Is the value shaped like a credential, whatever the name holding it
 * (postgres://u:pw@db/x, ghp_..., sk-ant-..., a JWT, a PEM private key)?
 * Its row, or NULL. Allocation-free. */
const struct sbx_secret_shape *sbx_env_secret_value(const char *value);

/* The rules of one kind, in the order they were added. */
const struct sbx_rule *const *policy_rules(const struct policy *p,
					   enum sbx_rule_kind kind, size_t *n);

/* Scalars. */
const char *policy_workspace(const struct policy *p);   /* absolute */
const char *policy_session_dir(const struct policy *p); /* NULL unless strict */
enum sbx_isolation policy_isolation(const struct policy *p);
enum sbx_fallback policy_fallback(const struct policy *p);
enum sbx_home policy_home_mode(const struct policy *p);
bool policy_nested(const struct policy *p);
/* [sandbox] enabled: false (sbxctl disable) runs COMMAND unsandboxed with a
 * warning, as --no-sandbox. Only the user layer may say false. */
bool policy_enabled(const struct policy *p);
/* `[sandbox] profile = NAME` (a preset, policy/preset.c), or NULL. */
const char *policy_preset(const struct policy *p);
bool policy_network_open(const struct policy *p);  /* allow_domains has `*`, and no deny_domains */
/* Traffic leaves only through the filtering proxy: some allow_domains rule,
 * and the network is not open (a list without `*`, or `*` with denies). */
bool policy_network_proxied(const struct policy *p);
bool policy_allow_local_binding(const struct policy *p);
bool policy_allow_all_unix_sockets(const struct policy *p);
unsigned policy_http_proxy_port(const struct policy *p);  /* 0 = built-in */
unsigned policy_socks_proxy_port(const struct policy *p); /* 0 = built-in */
const char *policy_log_path(const struct policy *p);      /* NULL = none */
enum sbx_report_stderr policy_report_stderr(const struct policy *p);
/* [report] tell_program: the shim also writes a refusal's line to the
 * refused program's own stderr (docs/REPORTS.md, "The agent sees why"). */
bool policy_tell_program(const struct policy *p);
/* [profile] claude_hook (agent profiles only): sbx-preload gives a `claude`
 * command sbxctl's PreToolUse hook with --settings, so Claude Code's own
 * tools (Read, Write, Edit, Grep, Glob) are refused with the reason too. */
bool policy_claude_hook(const struct policy *p);

enum sbx_limit {
	SBX_LIMIT_MEMORY,      /* bytes */
	SBX_LIMIT_PIDS,
	SBX_LIMIT_CPU_SECONDS,
	SBX_LIMIT_NOFILE,
	SBX_LIMIT_COUNT,
};
/* 0 = unlimited / not set. */
uint64_t policy_limit(const struct policy *p, enum sbx_limit which);

/* `rel` made absolute against `base` (ignored when rel is absolute; must be
 * absolute otherwise), with `.`, `..`, `//` and a trailing `/` folded
 * lexically. 0, -EINVAL (nothing absolute) or -ENAMETOOLONG. No allocation,
 * async-signal-safe: the shim calls it on every relative open(). */
int path_join(const char *base, const char *rel, char *out, size_t outsz);
/* fopen(path, "re") of a regular file only: a FIFO or a device where a
 * config is looked for (sandbox.ini, a .git/config, a gitdir file) would
 * hold the start-up forever. NULL with errno (EINVAL: not a file). */
FILE *sbx_fopen_file(const char *path);
/* Is p, of length len, absolute and normal: no `//`, no `.` or `..`
 * component, no trailing `/` (what path_join() makes, and leaves as it
 * is)? */
bool path_is_normal(const char *p, size_t len);
/* The same with a base already absolute and normal (getcwd()'s answer),
 * of length blen: it is copied, not folded again. */
int path_join_normal(const char *base, size_t blen, const char *rel, char *out,
		     size_t outsz);

/* Is `path` the directory `dir` itself or below it, by whole components
 * (`/a/bc` is not under `/a/b`)? `/` holds every absolute path; trailing
 * slashes are ignored on both (`/a/` is `/a`); an empty `dir` holds
 * nothing. Compared as written: callers pass absolute, normal paths. */
bool sbx_path_under(const char *path, const char *dir);
/* The same, strictly: below `dir`, not `dir` itself (`/a/` is not below
 * `/a`). */
bool sbx_path_below(const char *path, const char *dir);
/* sbx_path_under() of `plen` bytes of path and `dlen` of dir (neither
 * needs its NUL there): the shim's queries know their lengths. */
bool sbx_path_under_n(const char *path, size_t plen, const char *dir, size_t dlen);

/* snprintf() for a path: 0, or -ENAMETOOLONG when the whole of it does not
 * fit in outsz bytes -- and then out is "" (never a path cut short, which
 * would name another file: `/w/sandbox.ini` cut to `/w/sandbox.in`). */
int sbx_path_fmt(char *out, size_t outsz, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Where an absolute, normal path leads: the symlinks of its existing part
 * followed (a link to nothing too), the missing rest kept as written. */
void sbx_path_resolve(const char *in, char *out, size_t outsz);
/* The host's answers to many look-ups of one moment (a plan's): each
 * readlink() asked once, and a directory asked about often listed once
 * (policy/path.c). A snapshot: drop it before anything may have changed
 * the names it holds. NULL from _new when out of memory; every function
 * takes NULL as "no memo". */
struct path_memo;
/* list_after: a directory is listed at this many names asked about in it
 * (0: the policy build's 8) */
struct path_memo *sbx_path_memo_new(unsigned list_after);
void sbx_path_memo_free(struct path_memo *m);
/* sbx_path_resolve(), through the memo */
void sbx_path_resolve_memo(const char *in, char *out, size_t outsz, struct path_memo *m);
/* true when the memo knows the absolute path is missing (lstat() would
 * say ENOENT): a name its directory's listing, or a listed directory
 * above it, lacks, or one readlink() found missing; false: ask the
 * kernel. Counts the ask towards listing the path's directory. */
bool sbx_path_missing(struct path_memo *m, const char *path);
/* A path as the person would write it: a leading $HOME becomes `~`. */
void sbx_path_tildify(const char *path, const char *home, char *out, size_t outsz);
/* HOME resolved (as the kernel sees it). */
const char *policy_home(const struct policy *p);
/* $XDG_CONFIG_HOME (resolved) when it is set elsewhere than ~/.config,
 * else NULL: the `~/.config/` mandatory names are protected there too. */
const char *policy_config_home(const struct policy *p);
/* sbx_path_tildify() against HOME, resolved or as $HOME spells it. */
void policy_tildify(const struct policy *p, const char *path, char *out, size_t outsz);

/* ---- hint.c: a refusal in words, the same for the supervisor's report
 * line and the shim's line to the refused program */

/* May `dir` be allowed as one directory for several paths below it? Not
 * HOME itself or anything above it, not `/` or a top-level directory. */
bool sbx_path_foldable(const char *dir, const char *home);
/* The next code point of a UTF-8 string (U+FFFD for each maximal ill-formed
 * part), its length in *len (0 at the end). */
unsigned sbx_utf8_next(const char *s, size_t *len);
bool sbx_control(unsigned cp);      /* C0, DEL, C1 */
bool sbx_bidi_control(unsigned cp); /* the bidirectional overrides */
/* s as strict UTF-8 for a terminal: controls as \xNN / \uNNNN, ill-formed
 * parts as U+FFFD, a backslash doubled when asked; cut between characters
 * to fit. Returns the length written. */
size_t sbx_printable(const char *s, char *out, size_t outsz, bool backslash);
/* A path as one shell word that works when pasted (`~/` left unquoted). */
void sbx_shell_word(const char *in, char *out, size_t outsz);
/* "deny_read = ~/.ssh" (a mandatory rule is a deny_write). */
void policy_rule_text(const struct sbx_rule *r, char *out, size_t outsz);
/* Where the rule came from, for a person: its source, or "built-in
 * default", "built in; no setting lifts it". Borrowed. */
const char *policy_rule_note(const struct sbx_rule *r);
/* What is at an absolute path: 1 there, 0 not, -1 not to be told (a link
 * met on the way or at the end, an error). */
typedef int (*sbx_look_fn)(void *ctx, const char *path);
/* The flag that would allow a refused file operation on `target` (absolute,
 * normal; made_dir: a directory being made), as one pasteable shell word
 * with the flag: "--allow-read ~/.ssh/id_rsa", "--allow-write ~/proj/out";
 * "" when no setting can or telling would mean looking where the program
 * may not. `why` is the deciding rule (NULL: none, outside the writable
 * paths). */
void policy_hint_fix(const struct policy *p, enum sbx_op op, const char *target,
		     bool made_dir, const struct sbx_rule *why, sbx_look_fn look, void *ctx,
		     char *out, size_t outsz);

/* Is `path` (absolute, normal) in a place of HOME a later program runs
 * from (policy/home.c: an interpreter, a toolchain, a plug-in directory, a
 * directory on PATH), or with `above` does one lie below it? Its row, or
 * -1; *where: the place as `~/.pyenv`; *flags: HOME_* (internal.h): 1 the
 * place is never offered by a hint or learned, 2 it is, said what it is. */
int policy_home_row(const struct policy *p, const char *path, bool above,
		    char *where, size_t wsz, unsigned *flags);
/* A never-offered row that lies below the directory `dir` in HOME and is
 * there (`fn` says; a row with a wildcard always counts): opening `dir`
 * would open it. Its index and *where, or -1. */
int policy_home_holds(const struct policy *p, const char *dir, sbx_look_fn fn, void *ctx,
		      char *where, size_t wsz);
/* What a later program does with a row's place, in words. */
const char *policy_home_row_what(int row);
#define SBX_HOME_ROW_NEVER 1
#define SBX_HOME_ROW_SAY 2

/* The place of HOME's table (policy_home_row) a write fix would open, and
 * what it is, printable ("~/.pyenv: pyenv's Python interpreters: ..."):
 * a place a later program runs from, when policy_hint_fix() offers
 * nothing for it; or a cache a later build or install trusts
 * (SBX_HOME_ROW_SAY), said beside the flag that is offered. Else "". */
void policy_hint_runs_later(const struct policy *p, enum sbx_op op, const char *target,
			    bool made_dir, const struct sbx_rule *why, sbx_look_fn fn,
			    void *ctx, char *out, size_t outsz);

/* When policy_hint_fix() offers nothing because the refused write is a new
 * name right in HOME or a top-level directory that stands for a file
 * beside it (`~/.viminfo.tmp` for `~/.viminfo`): the program replaces that
 * file by rename, and nothing narrower than the whole directory lets it.
 * That file as `~/.viminfo`, printable; else "". */
void policy_hint_renames(const struct policy *p, enum sbx_op op, const char *target,
			 bool made_dir, const struct sbx_rule *why, sbx_look_fn fn, void *ctx,
			 char *out, size_t outsz);

/* Names for messages. */
const char *sbx_rule_key(enum sbx_rule_kind kind);      /* "deny_read" */
const char *sbx_op_name(enum sbx_op op);                /* "read" */
const char *sbx_isolation_name(enum sbx_isolation iso); /* "workspace" */

/* Glob match used by the rules: `*` and `?` stay within one path component,
 * a double star crosses components, and a double star followed by a slash
 * also matches zero components. Exposed for tests and the mount planner. */
bool sbx_glob_match(const char *pat, const char *str, size_t len);

/* Could a path below str (str, `/`, and one or more components) match
 * pat? What a directory landing at str would make reachable: the
 * ancestors of every match of pat (`/h/.local/lib` and `/h/.local/lib/
 * python3.11` for `/h/.local/lib/python*` + `/site-packages`; everything
 * below the literal part of a pattern with `**`). */
bool sbx_glob_match_below(const char *pat, const char *str, size_t len);

/* Is the mandatory rule r lifted at abspath: an executes-later row marked
 * for agents, below an agent profile's own state directory? */
bool policy_mandatory_lifted(const struct policy *p, const struct sbx_rule *r,
			     const char *abspath);

/* Does `rule` (a path rule) match abspath or one of its parent directories? */
bool policy_rule_matches(const struct sbx_rule *rule, const char *abspath);


/* ---- git's config files (policy/gitconfig.c; docs/POLICY.md "Git's
 * config files"): read as git reads them, and the keys that make a later
 * git run a program or load another file. */
struct gitcfg; /* one file's entries, in order */
struct gitcfg_err {
	unsigned line; /* 1-based; 0: the file as a whole */
	char msg[96];
};
/* A key the table keeps: its pattern ("core.fsmonitor", "filter" for the
 * whole section, "diff.*.textconv" for any subsection), what it would do
 * ("run a program") and who reads it. */
struct gitcfg_row {
	const char *pattern;
	const char *does;
	const char *reader;
};
extern const struct gitcfg_row gitcfg_rows[];
extern const size_t gitcfg_nrows;
/* Parse a config file's bytes: 0 and *out (the caller frees it), or
 * -EINVAL (what git would not read either; err says the line), -E2BIG
 * (over 1 MiB or 65536 entries), -ENOMEM. Never reads past len. */
int gitcfg_parse(const char *buf, size_t len, struct gitcfg **out, struct gitcfg_err *err);
void gitcfg_free(struct gitcfg *g); /* NULL is fine */
size_t gitcfg_count(const struct gitcfg *g);
/* Entry i's key, canonical as git compares it ("remote.origin.url": the
 * section and name lowercased, the subsection as written), and value
 * (NULL: the key alone, which git takes as true). Borrowed. */
const char *gitcfg_key(const struct gitcfg *g, size_t i);
const char *gitcfg_value(const struct gitcfg *g, size_t i);
/* The last value of a canonical key; *set (may be NULL) says whether the
 * key is there at all. */
const char *gitcfg_get(const struct gitcfg *g, const char *key, bool *set);
/* The row that keeps an entry (a section git does not know has a row of
 * its own), or NULL. */
const struct gitcfg_row *gitcfg_row_of(const char *key, const char *value);
/* A config file and every file it pulls in (include.path, and
 * includeIf.*.path whatever the condition: more files, never fewer), each
 * once, to git's depth of 10; relative paths from the including file's
 * directory, `~/` from `home`. cb gets each path, whether it is a regular
 * file, and its entries (NULL when not there or not parsed: gitcfg_read()). Reads with O_NONBLOCK; never follows more than 64 files. */
typedef void gitcfg_file_fn(const char *path, bool there, const struct gitcfg *g, void *ctx);
void gitcfg_each_file(const char *file, const char *home, gitcfg_file_fn *cb, void *ctx);
/* A config file read as gitcfg_each_file() reads each (a regular file,
 * opened non-blocking): true when it is one, *out its entries (NULL when
 * over 1 MiB or one the parser refuses, which git may still read: a NUL
 * byte in a comment; the caller frees). */
bool gitcfg_read(const char *path, struct gitcfg **out);
/* core.KEY of a config read by lines, for one that is there but not
 * parsed (gitcfg_read(): over 1 MiB, a NUL byte in a comment): the last
 * `KEY = V` under a `[core]` line, quotes and a trailing comment taken
 * off. true and V in out when there is one. */
bool gitcfg_scan_core(const char *file, const char *key, char *out, size_t outsz);
/* The next line of f as git reads it, for the readers by lines: whole
 * however long, with the lines a trailing `\` joins to it, leading blanks
 * and the line end taken off; NULL at the end. *buf (getline's) is the
 * caller's to free. */
char *gitcfg_scan_line(FILE *f, char **buf, size_t *cap);
/* gitcfg_each_file() for a top file already read (gitcfg_read(): there
 * and g, borrowed): one read of it serves every reader of a start. */
void gitcfg_each_file_read(const char *file, bool there, const struct gitcfg *g,
			   const char *home, gitcfg_file_fn *cb, void *ctx);
/* Would replacing `old` (NULL: no file) by `new` add, change or remove a
 * kept key? 0 no; 1 yes: the first such key into `key`, its row into
 * *row. */
int gitcfg_risky_change(const struct gitcfg *old, const struct gitcfg *new, char *key,
			size_t keysz, const struct gitcfg_row **row);
/* The config of a repository the run made (git init, clone, submodule
 * update write it whole): may it hold what it holds? Every kept key is
 * refused as against no file, but for the two git's own commands write
 * into a new repository: core.bare (where git runs from names no hooks
 * while core.hooksPath is refused), and core.worktree when
 * worktree_ok(value, ctx) says it names a place the sandbox may write (a
 * submodule's `../../../sub`). 0 or 1 as gitcfg_risky_change. */
typedef bool gitcfg_worktree_fn(const char *value, void *ctx);
int gitcfg_risky_new(const struct gitcfg *new, gitcfg_worktree_fn *worktree_ok, void *ctx,
		     char *key, size_t keysz, const struct gitcfg_row **row);

#endif
