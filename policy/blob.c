/* policy/blob.c: a compiled policy as one flat, position-independent blob.
 *
 * The supervisor compiles the policy once and writes it into a sealed memfd;
 * every process the preload shim lands in maps that memfd read-only and
 * attaches to it. The blob holds offsets, never pointers; attaching checks
 * every offset, length and enum against the blob's size before building the
 * small pointer tables the queries use, so a truncated or hostile blob is an
 * error, never a wild read. The strings stay in the (read-only) blob.
 */
#include <errno.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#include "policy/internal.h"

#define BLOB_MAGIC "SBXPOL\0\2"

struct blob_rule {
	uint32_t kind, origin, pat;
	uint32_t value, pattern, source; /* string offsets */
	uint32_t prefix_len;
	uint32_t is_dir;
	uint32_t agent;
};

struct blob_hdr {
	char magic[8];
	uint32_t size; /* the whole blob */
	uint32_t isolation, fallback, home_mode;
	uint32_t flags; /* BF_* */
	uint32_t http_port, socks_port;
	uint64_t limits[SBX_LIMIT_COUNT];
	uint64_t match_seed; /* the matcher is built again at attach, with it */
	uint32_t home, workspace, session_dir, log; /* string offsets, 0 = NULL */
	uint32_t nrules;
	uint32_t nby_kind[SBX_RULE_KIND_COUNT];
	/* then: struct blob_rule rules[nrules], grouped by kind in order;
	 * then the string table (offset 0 is the empty string, read as NULL
	 * where a string may be absent). */
};

enum {
	BF_NESTED = 1u << 0,
	BF_NETWORK_OPEN = 1u << 1,
	BF_LOCAL_BINDING = 1u << 2,
	BF_ALL_UNIX = 1u << 3,
};

struct strtab {
	char *buf;
	size_t len, cap;
};

static int str_put(struct strtab *t, const char *s, uint32_t *off)
{
	size_t n;

	if (!s || !*s) {
		*off = 0;
		return 0;
	}
	n = strlen(s) + 1;
	if (t->len + n > t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 4096;
		char *nb;
		while (cap < t->len + n)
			cap *= 2;
		if (!(nb = realloc(t->buf, cap)))
			return -ENOMEM;
		t->buf = nb;
		t->cap = cap;
	}
	memcpy(t->buf + t->len, s, n);
	*off = (uint32_t)t->len;
	t->len += n;
	return 0;
}

int policy_to_blob(const struct policy *p, void **out, size_t *outlen)
{
	struct strtab st = { 0 };
	struct blob_hdr h;
	struct blob_rule *rules = NULL;
	size_t nrules = 0, ri = 0, total;
	char *buf;
	int rc = -ENOMEM;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, BLOB_MAGIC, 8);
	for (int k = 0; k < SBX_RULE_KIND_COUNT; k++)
		nrules += p->nby_kind[k];
	if (!(st.buf = malloc(st.cap = 4096)))
		goto out;
	st.buf[0] = '\0'; /* offset 0: the empty string */
	st.len = 1;
	if (nrules && !(rules = calloc(nrules, sizeof(*rules))))
		goto out;
	if (str_put(&st, p->home, &h.home) || str_put(&st, p->workspace, &h.workspace) ||
	    str_put(&st, p->session_dir, &h.session_dir) || str_put(&st, p->log, &h.log))
		goto out;
	for (int k = 0; k < SBX_RULE_KIND_COUNT; k++) {
		h.nby_kind[k] = (uint32_t)p->nby_kind[k];
		for (size_t i = 0; i < p->nby_kind[k]; i++, ri++) {
			const struct sbx_rule *r = p->by_kind[k][i];
			struct blob_rule *b = &rules[ri];
			b->kind = (uint32_t)r->kind;
			b->origin = (uint32_t)r->origin;
			b->pat = (uint32_t)r->pat;
			b->prefix_len = (uint32_t)r->prefix_len;
			b->is_dir = r->is_dir;
			b->agent = r->agent;
			if (str_put(&st, r->value, &b->value) ||
			    str_put(&st, r->pattern, &b->pattern) ||
			    str_put(&st, r->source, &b->source))
				goto out;
		}
	}
	h.nrules = (uint32_t)nrules;
	h.isolation = (uint32_t)p->isolation;
	h.fallback = (uint32_t)p->fallback;
	h.home_mode = (uint32_t)p->home_mode;
	h.flags = (p->nested ? BF_NESTED : 0) | (p->network_open ? BF_NETWORK_OPEN : 0) |
		  (p->local_binding ? BF_LOCAL_BINDING : 0) | (p->all_unix ? BF_ALL_UNIX : 0);
	h.http_port = p->http_port;
	h.socks_port = p->socks_port;
	memcpy(h.limits, p->limits, sizeof(h.limits));
	h.match_seed = p->match.seed;
	total = sizeof(h) + nrules * sizeof(*rules) + st.len;
	if (total > UINT32_MAX) {
		rc = -E2BIG;
		goto out;
	}
	h.size = (uint32_t)total;
	if (!(buf = malloc(total)))
		goto out;
	memcpy(buf, &h, sizeof(h));
	if (nrules)
		memcpy(buf + sizeof(h), rules, nrules * sizeof(*rules));
	memcpy(buf + sizeof(h) + nrules * sizeof(*rules), st.buf, st.len);
	*out = buf;
	*outlen = total;
	rc = 0;
out:
	free(rules);
	free(st.buf);
	return rc;
}

/* Memory the attached view needs besides the blob itself: the policy,
 * its rules, their pointers kind by kind, the matcher's table (8-aligned:
 * the table 8-aligned). */
#define ALIGN8(x) (((x) + 7) & ~(size_t)7)
static size_t view_head(uint32_t nrules)
{
	return ALIGN8(sizeof(struct policy) + (size_t)nrules * sizeof(struct sbx_rule) +
		      (size_t)nrules * sizeof(struct sbx_rule *));
}

static size_t view_size(uint32_t nrules)
{
	return view_head(nrules) + match_size(nrules);
}

/* The string at `off`, if it lies wholly inside the table. */
static const char *str_at(const char *tab, size_t tablen, uint32_t off, bool *ok)
{
	if (off >= tablen || !memchr(tab + off, '\0', tablen - off)) {
		*ok = false;
		return "";
	}
	return tab + off;
}

int policy_blob_attach_size(const void *blob, size_t len, size_t *need)
{
	const struct blob_hdr *h = blob;

	if (len < sizeof(*h) || memcmp(h->magic, BLOB_MAGIC, 8) != 0 || h->size != len)
		return -EINVAL;
	if (h->nrules > (len - sizeof(*h)) / sizeof(struct blob_rule))
		return -EINVAL;
	*need = view_size(h->nrules);
	return 0;
}

int policy_blob_attach(const void *blob, size_t len, void *mem, size_t memlen,
		       const struct policy **out)
{
	const struct blob_hdr *h = blob;
	const struct blob_rule *br;
	const char *tab;
	size_t need, tablen, sum = 0, ri = 0;
	struct policy *p = mem;
	struct sbx_rule *rules;
	const struct sbx_rule **ptrs;
	bool ok = true;

	if (policy_blob_attach_size(blob, len, &need) || memlen < need ||
	    ((uintptr_t)mem % alignof(max_align_t)) != 0)
		return -EINVAL;
	for (int k = 0; k < SBX_RULE_KIND_COUNT; k++) {
		if (h->nby_kind[k] > h->nrules)
			return -EINVAL;
		sum += h->nby_kind[k];
	}
	if (sum != h->nrules || h->isolation > SBX_ISOLATION_CUSTOM ||
	    h->fallback > SBX_FALLBACK_WARN || h->home_mode > SBX_HOME_EPHEMERAL)
		return -EINVAL;
	br = (const struct blob_rule *)((const char *)blob + sizeof(*h));
	tab = (const char *)(br + h->nrules);
	tablen = len - sizeof(*h) - h->nrules * sizeof(*br);
	if (tablen == 0 || tab[0] != '\0')
		return -EINVAL;

	memset(mem, 0, need);
	rules = (struct sbx_rule *)(p + 1);
	ptrs = (const struct sbx_rule **)(rules + h->nrules);
	/* Strings are const in the blob; struct policy holds them as char *
	 * only because the compiler owns (and frees) its own copies. An
	 * attached view is never freed and never written through. */
	p->home = (char *)str_at(tab, tablen, h->home, &ok);
	p->workspace = (char *)str_at(tab, tablen, h->workspace, &ok);
	p->session_dir = h->session_dir ? (char *)str_at(tab, tablen, h->session_dir, &ok) : NULL;
	p->log = h->log ? (char *)str_at(tab, tablen, h->log, &ok) : NULL;
	p->isolation = (enum sbx_isolation)h->isolation;
	p->fallback = (enum sbx_fallback)h->fallback;
	p->home_mode = (enum sbx_home)h->home_mode;
	p->nested = h->flags & BF_NESTED;
	p->enabled = true; /* a blob exists only for a sandboxed run */
	p->network_open = h->flags & BF_NETWORK_OPEN;
	p->local_binding = h->flags & BF_LOCAL_BINDING;
	p->all_unix = h->flags & BF_ALL_UNIX;
	p->http_port = h->http_port;
	p->socks_port = h->socks_port;
	memcpy(p->limits, h->limits, sizeof(p->limits));
	for (int k = 0; k < SBX_RULE_KIND_COUNT; k++) {
		p->by_kind[k] = ptrs + ri;
		p->nby_kind[k] = h->nby_kind[k];
		for (uint32_t i = 0; i < h->nby_kind[k]; i++, ri++) {
			const struct blob_rule *b = &br[ri];
			struct sbx_rule *r = &rules[ri];
			if (b->kind != (uint32_t)k || b->origin > SBX_ORIGIN_PROFILE ||
			    b->pat > SBX_PAT_ANYWHERE)
				return -EINVAL;
			r->kind = (enum sbx_rule_kind)b->kind;
			r->origin = (enum sbx_origin)b->origin;
			r->pat = (enum sbx_pat)b->pat;
			r->value = str_at(tab, tablen, b->value, &ok);
			r->pattern = str_at(tab, tablen, b->pattern, &ok);
			r->source = str_at(tab, tablen, b->source, &ok);
			r->is_dir = b->is_dir != 0;
			r->agent = b->agent != 0;
			r->prefix_len = b->prefix_len;
			if (!ok || r->prefix_len > strlen(r->pattern) ||
			    (r->pat == SBX_PAT_PREFIX && r->prefix_len == 0))
				return -EINVAL;
			ptrs[ri] = r;
		}
	}
	if (!ok)
		return -EINVAL;
	/* from the rules just checked: the blob's bytes choose nothing in
	 * it but the seed */
	match_build(&p->match, (char *)mem + view_head(h->nrules), ptrs, p->nby_kind,
		    h->match_seed);
	*out = p;
	return 0;
}
