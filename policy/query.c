/* policy/query.c: the questions asked of a compiled policy.
 *
 * Everything here is allocation-free, lock-free and free of libc state, so
 * it runs unchanged in the supervisor, in `sbx check` and inside the preload
 * shim, where it is called on every open() of the sandboxed program.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "policy/internal.h"

const char *sbx_rule_key(enum sbx_rule_kind kind)
{
	static const char *const names[SBX_RULE_KIND_COUNT] = {
		[SBX_RULE_DENY_READ] = "deny_read",
		[SBX_RULE_ALLOW_READ] = "allow_read",
		[SBX_RULE_ALLOW_WRITE] = "allow_write",
		[SBX_RULE_DENY_WRITE] = "deny_write",
		[SBX_RULE_MANDATORY] = "mandatory deny_write",
		[SBX_RULE_ALLOW_DOMAIN] = "allow_domains",
		[SBX_RULE_DENY_DOMAIN] = "deny_domains",
		[SBX_RULE_ALLOW_UNIX_SOCKET] = "allow_unix_sockets",
		[SBX_RULE_IGNORE_PATH] = "ignore_paths",
		[SBX_RULE_IGNORE_DOMAIN] = "ignore_domains",
		[SBX_RULE_DENY_ENV] = "deny_env",
		[SBX_RULE_SET_ENV] = "set",
		[SBX_RULE_HOST_PORT] = "host_ports",
		[SBX_RULE_PROFILE_ARG] = "args",
		[SBX_RULE_KEEP_ENV] = "keep_env",
		[SBX_RULE_HOME_KEPT] = "kept read-only in HOME",
	};
	return (unsigned)kind < SBX_RULE_KIND_COUNT ? names[kind] : "?";
}

const char *sbx_op_name(enum sbx_op op)
{
	return op == SBX_OP_READ ? "read" : op == SBX_OP_WRITE ? "write" : "exec";
}

const char *sbx_isolation_name(enum sbx_isolation iso)
{
	return iso == SBX_ISOLATION_STRICT ? "strict" :
	       iso == SBX_ISOLATION_CUSTOM ? "custom" : "workspace";
}


/* ---- queries: no allocation, no locks */

/* A query's view of the rules (match.c): the ones the path's keys found,
 * merged in order with each kind's always-tried ones. */
struct query {
	const struct matcher *m; /* NULL: try every rule */
	const char *t;
	size_t tlen;
	bool grams_ready;
	uint64_t grams[16]; /* the path's byte pairs (match_gram), at the first need */
	struct match_hits h;
};

static void query_init(struct query *q, const struct policy *p, const char *t, size_t tlen)
{
	q->m = p->match.slots ? &p->match : NULL;
	q->t = t;
	q->tlen = tlen;
	q->grams_ready = false;
	if (q->m)
		match_collect(q->m, t, tlen, &q->h);
	if (q->m && q->h.all)
		q->m = NULL;
}

/* The rules of one kind a query tries, in the order of the kind's list. */
struct rule_iter {
	const struct policy *p;
	enum sbx_rule_kind kind;
	const uint32_t *a, *ae, *b, *be; /* hits, always-tried: flat indices */
	size_t i; /* without a matcher: the next index in by_kind */
};

static struct rule_iter rules_of(const struct policy *p, enum sbx_rule_kind kind,
				 const struct query *q)
{
	struct rule_iter it = { .p = p, .kind = kind };

	if (q && q->m) {
		const struct matcher *m = q->m;
		uint32_t lo = m->kind_off[kind], hi = m->kind_off[kind + 1], n = q->h.n;
		const uint32_t *v = q->h.v;
		size_t s = 0, e;
		while (s < n && v[s] < lo)
			s++;
		for (e = s; e < n && v[e] < hi; e++)
			;
		it.a = v + s;
		it.ae = v + e;
		it.b = m->lists + m->always_first[kind];
		it.be = it.b + m->always_n[kind];
	}
	return it;
}

/* Does the path hold the run's pairs, then the run? */
static bool run_in(struct query *q, const struct match_run *run, const char *pat)
{
	if (!run->len)
		return true;
	if (!q->grams_ready) {
		memset(q->grams, 0, sizeof(q->grams));
		for (size_t i = 1; i < q->tlen; i++) {
			unsigned g = match_gram((unsigned char)q->t[i - 1], (unsigned char)q->t[i]);
			q->grams[g >> 6] |= 1ull << (g & 63);
		}
		q->grams_ready = true;
	}
	for (unsigned k = 0; k < run->ngram; k++)
		if (!((q->grams[run->gram[k] >> 6] >> (run->gram[k] & 63)) & 1))
			return false;
	return memmem(q->t, q->tlen, pat + run->off, run->len) != NULL;
}

static const struct sbx_rule *rule_next(struct rule_iter *it, struct query *q)
{
	uint32_t f;

	if (!q || !q->m)
		return it->i < it->p->nby_kind[it->kind] ? it->p->by_kind[it->kind][it->i++] : NULL;
	for (;;) {
		if (it->a < it->ae && (it->b == it->be || *it->a < *it->b))
			return q->m->flat[*it->a++];
		if (it->b == it->be)
			return NULL;
		/* always tried, unless its literal run is not in the path */
		const struct match_run *run = &q->m->runs[it->b - q->m->lists - q->m->always_base];
		f = *it->b++;
		if (run_in(q, run, q->m->flat[f]->pattern))
			return q->m->flat[f];
	}
}

/* The length of the leading part of `t` the rule matched (the rule's path,
 * or the matched component range's end), or 0 when it does not match. */
static size_t match_len(const struct sbx_rule *r, const char *t, size_t tlen)
{
	switch (r->pat) {
	case SBX_PAT_PREFIX: {
		size_t n = r->prefix_len;
		if (n == 1) /* `/` */
			return 1;
		if (n == 0) /* never compiled; refused at attach */
			return 0;
		/* The cheap tests first: on the hot path most rules share a
		 * long lead with the path (HOME, the workspace) and differ
		 * only at the end. */
		if (tlen < n || (tlen > n && t[n] != '/') ||
		    t[n - 1] != r->pattern[n - 1] || memcmp(t, r->pattern, n) != 0)
			return 0;
		return n;
	}
	case SBX_PAT_GLOB: {
		size_t lead = r->prefix_len;
		if (tlen < lead || memcmp(t, r->pattern, lead) != 0)
			return 0;
		for (size_t j = lead ? lead : 1; j <= tlen; j++)
			if ((j == tlen || t[j] == '/') &&
			    sbx_glob_match(r->pattern, t, j))
				return j;
		return 0;
	}
	case SBX_PAT_ANYWHERE: {
		const char *pat = r->pattern;
		bool literal = !glob_has_magic(pat);
		size_t plen = literal ? strlen(pat) : 0;
		for (size_t i = 1; i < tlen; i++) {
			if (t[i - 1] != '/')
				continue;
			if (literal) {
				if (i + plen <= tlen && memcmp(t + i, pat, plen) == 0 &&
				    (i + plen == tlen || t[i + plen] == '/'))
					return i + plen;
				continue;
			}
			for (size_t j = i + 1; j <= tlen; j++)
				if ((j == tlen || t[j] == '/') &&
				    sbx_glob_match(pat, t + i, j - i))
					return j;
		}
		return 0;
	}
	}
	return 0;
}

bool policy_rule_matches(const struct sbx_rule *rule, const char *abspath)
{
	return match_len(rule, abspath, strlen(abspath)) > 0;
}

/* The matching rule of `kind` with the longest match (the first of
 * those), or NULL. */
static const struct sbx_rule *best_match(const struct policy *p,
					 enum sbx_rule_kind kind,
					 const char *t, size_t tlen, size_t *len,
					 struct query *q)
{
	const struct sbx_rule *best = NULL, *r;
	struct rule_iter it = rules_of(p, kind, q);

	*len = 0;
	while ((r = rule_next(&it, q))) {
		size_t m = match_len(r, t, tlen);
		if (m > *len) {
			*len = m;
			best = r;
		}
	}
	return best;
}

static const struct sbx_rule *first_match(const struct policy *p,
					  enum sbx_rule_kind kind,
					  const char *t, size_t tlen,
					  struct query *q)
{
	const struct sbx_rule *r;
	struct rule_iter it = rules_of(p, kind, q);

	while ((r = rule_next(&it, q)))
		if (match_len(r, t, tlen))
			return r;
	return NULL;
}

static enum sbx_verdict check_read(const struct policy *p, const char *t,
				   size_t tlen, const struct sbx_rule **why,
				   struct query *q)
{
	size_t dl, al;
	const struct sbx_rule *deny = best_match(p, SBX_RULE_DENY_READ, t, tlen, &dl, q);
	const struct sbx_rule *allow = best_match(p, SBX_RULE_ALLOW_READ, t, tlen, &al, q);

	if (deny && (!allow || al < dl)) {
		*why = deny;
		return SBX_DENY;
	}
	*why = allow;
	return SBX_ALLOW;
}

/* Is t below a directory an agent profile makes writable for its agent's
 * own state (`allow_write = ~/.gemini-sbx/`), where the executes-later
 * rows marked `agent` are lifted: the agent the profile starts reads
 * them there, inside the sandbox. Not HOME or above, nor a directory that
 * holds the workspace (a profile's `allow_write = ~/` would otherwise
 * lift them in every project). */
static bool in_agent_state(const struct policy *p, const char *t, size_t tlen)
{
	size_t hl = p->home ? strlen(p->home) : 0;
	size_t wl = p->workspace ? strlen(p->workspace) : 0;

	for (size_t i = 0; i < p->nby_kind[SBX_RULE_ALLOW_WRITE]; i++) {
		const struct sbx_rule *r = p->by_kind[SBX_RULE_ALLOW_WRITE][i];
		size_t dl = r->prefix_len;
		if (r->origin != SBX_ORIGIN_PROFILE || r->pat != SBX_PAT_PREFIX ||
		    hl <= 1 || dl <= hl || !sbx_path_under_n(r->pattern, dl, p->home, hl) ||
		    (wl && sbx_path_under_n(p->workspace, wl, r->pattern, dl)))
			continue;
		if (sbx_path_under_n(t, tlen, r->pattern, dl))
			return true;
	}
	return false;
}

bool policy_mandatory_lifted(const struct policy *p, const struct sbx_rule *r,
			     const char *abspath)
{
	return r->kind == SBX_RULE_MANDATORY && r->agent &&
	       in_agent_state(p, abspath, strlen(abspath));
}

/* The first mandatory deny matching t. The session directory of `isolation
 * = strict` lies in sbx's state directory, which is mandatory: it (and
 * only it) stays writable, so a mandatory directory above it does not
 * count for it. The names denied at any depth (`.bashrc`, `.git/hooks`)
 * still do. */
static const struct sbx_rule *mandatory_match(const struct policy *p, const char *t,
					      size_t tlen, struct query *q)
{
	const char *sess = p->session_dir;
	size_t sl = sess ? strlen(sess) : 0;
	bool in_session = sl > 1 && sbx_path_under_n(t, tlen, sess, sl);

	const struct sbx_rule *r;
	struct rule_iter it = rules_of(p, SBX_RULE_MANDATORY, q);

	while ((r = rule_next(&it, q))) {
		if (!match_len(r, t, tlen))
			continue;
		if (r->agent && in_agent_state(p, t, tlen))
			continue;
		if (in_session && r->pat == SBX_PAT_PREFIX && r->prefix_len < sl &&
		    match_len(r, sess, sl))
			continue;
		return r;
	}
	return NULL;
}

enum sbx_verdict policy_check_path(const struct policy *p, enum sbx_op op,
				   const char *abspath,
				   const struct sbx_rule **why)
{
	const struct sbx_rule *dummy, *r;
	size_t tlen = strlen(abspath), l;

	if (!why)
		why = &dummy;
	*why = NULL;
	struct query q;

	if (abspath[0] != '/')
		return SBX_DENY;
	query_init(&q, p, abspath, tlen);
	if (op != SBX_OP_WRITE)
		return check_read(p, abspath, tlen, why, &q);

	if ((r = mandatory_match(p, abspath, tlen, &q)) ||
	    (r = first_match(p, SBX_RULE_DENY_WRITE, abspath, tlen, &q))) {
		*why = r;
		return SBX_DENY;
	}
	if (check_read(p, abspath, tlen, &r, &q) == SBX_DENY) {
		*why = r;
		return SBX_DENY;
	}
	r = best_match(p, SBX_RULE_ALLOW_WRITE, abspath, tlen, &l, &q);
	/* HOME is an allow-list (home.c): allowed only by HOME, or a root
	 * above it, a kept place stays read-only; a rule naming the place or
	 * a path inside it matches longer than HOME */
	if (r && l <= strlen(p->home) && p->home[1]) {
		const struct sbx_rule *k = first_match(p, SBX_RULE_HOME_KEPT, abspath, tlen, &q);
		if (k) {
			*why = k;
			return SBX_DENY;
		}
	}
	*why = r;
	return r ? SBX_ALLOW : SBX_DENY;
}

/* `pat` is a domain rule: `*`, `*.example.com`, `example.com`, with an
 * optional `:port`. host is lower-case without a trailing dot. A rule with a
 * port matches only that port; port 0 (unknown) matches only port-less
 * rules, and ANY_PORT (a name lookup: the port comes later) every rule. */
#define ANY_PORT (~0u)
static bool domain_matches(const char *pat, const char *host, unsigned port)
{
	const char *colon = strrchr(pat, ':');
	size_t plen = strlen(pat);

	/* `[::1]:443` and bare IPv6 literals: only a `]:` separates a port */
	if (colon && strchr(pat, ':') != colon && !(colon > pat && colon[-1] == ']'))
		colon = NULL;
	if (colon) {
		char *end;
		unsigned long want = strtoul(colon + 1, &end, 10);
		if (*end || (port != ANY_PORT && (!port || want != port)))
			return false;
		plen = (size_t)(colon - pat);
	}
	if (plen == 1 && pat[0] == '*')
		return true;
	if (plen > 2 && pat[0] == '*' && pat[1] == '.') {
		size_t hl = strlen(host), sl = plen - 1; /* ".example.com" */
		return hl > sl && strncasecmp(host + hl - sl, pat + 1, sl) == 0;
	}
	return strlen(host) == plen && strncasecmp(host, pat, plen) == 0;
}

static enum sbx_verdict check_domain(const struct policy *p, const char *host,
				     unsigned port, const struct sbx_rule **why)
{
	const struct sbx_rule *dummy;
	char h[256];
	size_t n = strlen(host);

	if (!why)
		why = &dummy;
	*why = NULL;
	if (n >= sizeof(h))
		return SBX_DENY;
	memcpy(h, host, n + 1);
	if (n > 1 && h[n - 1] == '.')
		h[n - 1] = '\0';
	/* A lookup is refused only by a deny rule for every port. */
	for (size_t i = 0; i < p->nby_kind[SBX_RULE_DENY_DOMAIN]; i++)
		if (domain_matches(p->by_kind[SBX_RULE_DENY_DOMAIN][i]->pattern, h,
				   port == ANY_PORT ? 0 : port)) {
			*why = p->by_kind[SBX_RULE_DENY_DOMAIN][i];
			return SBX_DENY;
		}
	for (size_t i = 0; i < p->nby_kind[SBX_RULE_ALLOW_DOMAIN]; i++)
		if (domain_matches(p->by_kind[SBX_RULE_ALLOW_DOMAIN][i]->pattern, h, port)) {
			*why = p->by_kind[SBX_RULE_ALLOW_DOMAIN][i];
			return SBX_ALLOW;
		}
	return SBX_DENY;
}

enum sbx_verdict policy_check_domain(const struct policy *p, const char *host,
				     unsigned port, const struct sbx_rule **why)
{
	return check_domain(p, host, port == ANY_PORT ? 0 : port, why);
}

enum sbx_verdict policy_check_host(const struct policy *p, const char *host,
				   const struct sbx_rule **why)
{
	return check_domain(p, host, ANY_PORT, why);
}

int sbx_split_target(const char *target, char *host, size_t hostsz, unsigned *port)
{
	const char *h = target, *he = target + strlen(target), *p = NULL;
	const char *colon = strrchr(target, ':');

	*port = 0;
	if (target[0] == '[') { /* [v6] or [v6]:port */
		const char *rb = strchr(target, ']');
		if (!rb)
			return -1;
		h = target + 1;
		he = rb;
		if (rb[1] == ':')
			p = rb + 2;
		else if (rb[1])
			return -1;
	} else if (colon && strchr(target, ':') == colon) { /* host:port */
		he = colon;
		p = colon + 1;
	} /* else a host, or a bare v6 literal: no port */
	if (p) {
		char *end;
		unsigned long v = strtoul(p, &end, 10);
		if (!*p || *end || v > 65535)
			return -1;
		*port = (unsigned)v;
	}
	if (he == h || (size_t)(he - h) >= hostsz)
		return -1;
	memcpy(host, h, (size_t)(he - h));
	host[he - h] = '\0';
	return 0;
}

const struct sbx_rule *policy_report_quiet(const struct policy *p, bool path,
					   const char *target)
{
	enum sbx_rule_kind k = path ? SBX_RULE_IGNORE_PATH : SBX_RULE_IGNORE_DOMAIN;
	char host[256];
	unsigned port;

	if (path) {
		struct query q;
		size_t tlen = strlen(target);
		query_init(&q, p, target, tlen);
		return first_match(p, k, target, tlen, &q);
	}
	/* a rule may name the host alone, or host:port */
	if (sbx_split_target(target, host, sizeof(host), &port))
		return NULL;
	for (size_t i = 0; i < p->nby_kind[k]; i++)
		if (domain_matches(p->by_kind[k][i]->pattern, host, port))
			return p->by_kind[k][i];
	return NULL;
}

bool policy_report_ignored(const struct policy *p, bool path, const char *target)
{
	return policy_report_quiet(p, path, target) != NULL;
}

int policy_set_env_split(const struct sbx_rule *r, char *name, size_t namesz,
			 const char **value)
{
	const char *eq = r->kind == SBX_RULE_SET_ENV ? strchr(r->pattern, '=') : NULL;

	if (!eq || eq == r->pattern || (size_t)(eq - r->pattern) >= namesz)
		return -1;
	memcpy(name, r->pattern, (size_t)(eq - r->pattern));
	name[eq - r->pattern] = '\0';
	*value = eq + 1;
	return 0;
}

const struct sbx_rule *const *policy_rules(const struct policy *p,
					   enum sbx_rule_kind kind, size_t *n)
{
	*n = (unsigned)kind < SBX_RULE_KIND_COUNT ? p->nby_kind[kind] : 0;
	return *n ? p->by_kind[kind] : NULL;
}

const char *policy_workspace(const struct policy *p) { return p->workspace; }
const char *policy_home(const struct policy *p) { return p->home; }
const char *policy_config_home(const struct policy *p) { return p->config_home; }

void policy_tildify(const struct policy *p, const char *path, char *out, size_t outsz)
{
	size_t h = strlen(p->home);

	/* the resolved HOME first; a path as a program wrote it may still go
	 * through a link in $HOME */
	if (h > 1 && sbx_path_under(path, p->home))
		sbx_path_tildify(path, p->home, out, outsz);
	else
		sbx_path_tildify(path, p->home_given ? p->home_given : p->home, out, outsz);
}
const char *policy_session_dir(const struct policy *p) { return p->session_dir; }
enum sbx_isolation policy_isolation(const struct policy *p) { return p->isolation; }
enum sbx_fallback policy_fallback(const struct policy *p) { return p->fallback; }
enum sbx_home policy_home_mode(const struct policy *p) { return p->home_mode; }
bool policy_nested(const struct policy *p) { return p->nested; }
bool policy_enabled(const struct policy *p) { return p->enabled; }
bool policy_network_open(const struct policy *p) { return p->network_open; }
const char *policy_preset(const struct policy *p) { return p->preset; }
bool policy_network_proxied(const struct policy *p)
{
	size_t n;

	policy_rules(p, SBX_RULE_ALLOW_DOMAIN, &n);
	return n && !p->network_open;
}
bool policy_allow_local_binding(const struct policy *p) { return p->local_binding; }
bool policy_allow_all_unix_sockets(const struct policy *p) { return p->all_unix; }
unsigned policy_http_proxy_port(const struct policy *p) { return p->http_port; }
unsigned policy_socks_proxy_port(const struct policy *p) { return p->socks_port; }
const char *policy_log_path(const struct policy *p) { return p->log; }
enum sbx_report_stderr policy_report_stderr(const struct policy *p) { return p->report_stderr; }
bool policy_tell_program(const struct policy *p) { return p->tell_program; }
bool policy_claude_hook(const struct policy *p) { return p->claude_hook; }

uint64_t policy_limit(const struct policy *p, enum sbx_limit which)
{
	return (unsigned)which < SBX_LIMIT_COUNT ? p->limits[which] : 0;
}
