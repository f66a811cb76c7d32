/* policy/internal.h: shared between the policy's own files; not public. */
#ifndef SBX_POLICY_INTERNAL_H
#define SBX_POLICY_INTERNAL_H

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

#include <string.h>

#include "policy/policy.h"

/* macOS's libc lacks two GNU string functions the compiler uses (the
 * rest is POSIX): the same, under another name, where it is missing. */
#ifdef __APPLE__
static inline char *sbx_strchrnul(const char *s, int c)
{
	while (*s && *s != (char)c)
		s++;
	return (char *)s;
}
static inline void *sbx_memrchr(const void *s, int c, size_t n)
{
	const unsigned char *p = (const unsigned char *)s + n;

	while (n--)
		if (*--p == (unsigned char)c)
			return (void *)p;
	return NULL;
}
#define strchrnul sbx_strchrnul
#define memrchr sbx_memrchr
#endif

/* A raw list entry, before expansion. */
struct raw_rule {
	enum sbx_rule_kind kind;
	enum sbx_origin origin;
	char *value;
	char *source;
};

/* A scalar with the place that last set it. */
struct raw_scalar {
	char *value;  /* NULL = not set */
	char *source;
	enum sbx_origin origin;
};

enum scalar_id {
	SC_WORKSPACE,
	SC_ISOLATION,
	SC_FALLBACK,
	SC_NESTED,
	SC_ALLOW_LOCAL_BINDING,
	SC_ALLOW_ALL_UNIX,
	SC_HTTP_PORT,
	SC_SOCKS_PORT,
	SC_LOG,
	SC_MEMORY,
	SC_PIDS,
	SC_CPU_SECONDS,
	SC_NOFILE,
	SC_HOME,
	SC_ENABLED,
	SC_REPORT_STDERR,
	SC_TELL_PROGRAM,
	SC_CLAUDE_HOOK,  /* [profile] claude_hook: profiles only */
	SC_PRESET,       /* [sandbox] profile: a preset (preset.c) */
	SC_COUNT,
};

/* One compilation's answers of readlink() (the rules share HOME and its
 * parents, and the credential, agent-state and executes-later tables ask
 * the same missing names again), and of a directory asked about often,
 * its listing: each name is looked up on the host at most once
 * (path.c). Zero-initialise; path_memo_free() after. */
struct path_memo {
	struct path_look *looks; /* by path */
	struct path_dir *dirs;	 /* by directory */
	char *listing;		 /* getdents64()'s buffer */
	unsigned list_after;	 /* asks before a directory is listed; 0: LIST_AFTER */
};
struct policy_builder {
	char *home, *cwd, *session_dir, *state_dir, *config_dir, *path_env, *login_path;
	bool (*untrusted_gitdir)(void *arg, const char *gd); /* policy_ctx's */
	void *untrusted_arg;
	char *own_files[SBX_OWN_FILES];
	struct raw_rule *rules;
	size_t nrules, caprules;
	struct raw_scalar scalars[SC_COUNT];
	char **config_files; /* every sandbox.ini loaded: never writable */
	size_t nconfig;
	struct path_memo memo; /* policy_compile's, freed with the builder */
	bool bare;	       /* without the defaults: never compiled */
};

/* match.c: the path rules of a policy as one hash table (its comment) */
struct match_slot;
struct match_run {
	uint32_t off, len; /* in the rule's pattern; len 0: none */
	uint16_t gram[3];  /* three of its byte pairs, as match_gram() hashes them */
	uint16_t ngram;
};
/* A pair of bytes as a bit of a query's 1024-bit set of the path's pairs. */
static inline unsigned match_gram(unsigned char a, unsigned char b)
{
	return ((a * 0x9e37u) ^ (b * 0x85ebu) ^ (b >> 3)) & 1023u;
}
struct matcher {
	uint64_t seed;
	uint32_t mask, probe; /* slots - 1; the longest probe the build made */
	uint64_t lead_lens, tail_lens; /* bit l - 1: some LEAD / TAIL key is l bytes */
	struct match_slot *slots;
	uint32_t *lists; /* rules by slot, then each kind's always-tried ones */
	uint32_t always_base; /* where the always-tried ones start in lists */
	struct match_run *runs; /* lists[always_base + j]'s literal run: runs[j] */
	uint32_t always_first[SBX_RULE_KIND_COUNT], always_n[SBX_RULE_KIND_COUNT];
	const struct sbx_rule *const *flat; /* every rule, grouped by kind in order */
	uint32_t kind_off[SBX_RULE_KIND_COUNT + 1]; /* kind k: flat[kind_off[k], kind_off[k + 1]) */
};
/* The rules a path's keys found, as flat indices, sorted; `all`: more
 * than QUERY_HITS, every rule is to be tried. On the stack of a query. */
#define QUERY_HITS 128
struct match_hits {
	uint32_t n;
	bool all;
	uint32_t v[QUERY_HITS];
};
/* Bytes match_build() needs for nrules rules (8-aligned memory). */
size_t match_size(size_t nrules);
/* Build m in mem (match_size() bytes) over flat (nby_kind rules of each
 * kind, in kind order), which must outlive it. Allocates nothing. */
void match_build(struct matcher *m, void *mem, const struct sbx_rule *const *flat,
		 const size_t *nby_kind, uint64_t seed);
/* The rules that may match the absolute path t (a superset: query.c tries
 * each with match_len()). */
void match_collect(const struct matcher *m, const char *t, size_t tlen,
		   struct match_hits *hits);

struct policy {
	char *home;       /* resolved, as the kernel sees it */
	char *home_given; /* as $HOME says (for `~` in messages) */
	char *workspace;
	char *session_dir;
	char *config_home; /* $XDG_CONFIG_HOME when set elsewhere, or NULL */
	enum sbx_isolation isolation;
	enum sbx_fallback fallback;
	enum sbx_home home_mode;
	enum sbx_report_stderr report_stderr; /* supervisor only: not in the blob */
	bool tell_program; /* [report] tell_program; the shim learns it from SBX_SHIM */
	bool claude_hook;  /* [profile] claude_hook */
	bool nested, network_open, local_binding, all_unix;
	bool enabled; /* [sandbox] enabled (sbxctl enable/disable) */
	const char *preset; /* [sandbox] profile: preset.c's name (static), or NULL */
	enum sbx_preset_net preset_net;
	unsigned http_port, socks_port;
	char *log;
	uint64_t limits[SBX_LIMIT_COUNT];
	struct sbx_rule *storage; /* every rule, one allocation */
	size_t nstorage;
	const struct sbx_rule **by_kind[SBX_RULE_KIND_COUNT]; /* into one array, kind by kind */
	struct matcher match; /* slots and lists in match_mem (compile) or the view (attach) */
	void *match_mem;
	size_t nby_kind[SBX_RULE_KIND_COUNT];
	char *strings; /* arena holding every rule string */
};

/* execlater.c: the executes-later table (docs/POLICY.md) */
struct execlater_row {
	const char *pattern; /* `name`, `dir/` at any depth; `~/x` in HOME; `/abs` */
	const char *owner;   /* the program that runs or loads it later */
	const char *reason;  /* what in it runs */
	bool agent;          /* lifted below an agent profile's own state directory */
};
extern const struct execlater_row execlater_rows[];
extern const size_t execlater_nrows;
bool execlater_anywhere(const struct execlater_row *r);

/* path.c */
/* Fold `.`, `..`, `//` and a trailing `/` of an absolute path into out.
 * Returns 0, or -ENAMETOOLONG. */
int path_normalize(const char *in, char *out, size_t outsz);
/* Expand `~`, make relative paths absolute against base, normalise. */
int path_expand(const char *value, const char *home, const char *base,
		char *out, size_t outsz);
void path_memo_free(struct path_memo *m);
/* Resolve symlinks in the longest existing leading part of an absolute,
 * normalised path (the rest is kept as written), walking it once from the
 * left with one readlink() per component (realpath() of each shorter
 * prefix cost one per component per try). Never fails: on error the input
 * is copied. m may be NULL. */
void path_resolve_existing(const char *in, char *out, size_t outsz, struct path_memo *m);

/* glob.c */
bool glob_has_magic(const char *s);
/* Count the wildcards, to refuse patterns whose matching could explode. */
unsigned glob_star_count(const char *s);

/* home.c: what a later program runs in HOME (docs/POLICY.md, "HOME is an
 * allow-list when writable"), one row each */
enum {
	HOME_NEVER = SBX_HOME_ROW_NEVER,   /* no hint or learned rule opens it: it says what it is */
	HOME_SAY = SBX_HOME_ROW_SAY,     /* offered, with what it is (a build cache a build trusts) */
	HOME_VISIBLE = 4, /* not hidden: a rule of its own keeps it read-only */
};
struct home_row {
	const char *where; /* relative to HOME; `*` within a component */
	const char *what;  /* what a later program does with it */
	unsigned flags;
};
extern const struct home_row home_rows[];
extern const size_t home_nrows;

/* An error's words into err (NULL: none wanted). */
static inline __attribute__((format(printf, 2, 3))) void
err_set(struct sbx_err *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

/* load.c */
int builder_add_rule(struct policy_builder *b, enum sbx_rule_kind kind,
		     const char *value, enum sbx_origin origin,
		     const char *source);
/* 0 if the key is known; fills what it is. */
int builder_apply(struct policy_builder *b, const char *section,
		  const char *key, const char *value, enum sbx_origin origin,
		  const char *source, enum policy_layer layer, struct sbx_err *err);

/* preset.c: `[sandbox] profile = NAME` */
bool preset_known(const char *name);
const char *preset_names(void); /* "a, b ... or f", for messages */
/* The preset's i-th setting (from 0), as a sandbox.ini would say it;
 * false past the last, or for a name that is no preset. load.c applies
 * them as if written where the preset was named. */
bool preset_setting(const char *name, size_t i, const char **section, const char **key,
		    const char **value);
/* At compilation: p's preset, and the network it names agreeing with
 * allow_domains (closed: none; proxied: some). 0 or -EINVAL (err). */
int preset_check(const struct policy_builder *b, struct policy *p, struct sbx_err *err);
int parse_bool(const char *v, bool *out);
int parse_size(const char *v, uint64_t *out);
int parse_count(const char *v, uint64_t *out);

#endif
