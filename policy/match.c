/* policy/match.c: the path rules compiled into one hash table.
 *
 * The questions of query.c (the longest deny_read, the first mandatory deny,
 * ...) used to try every rule of a kind on the path. The built-in lists are
 * over a hundred patterns, and the start-up walk asks them of every file of
 * the workspace, the shim of every open(). Here every rule gets one key, a
 * piece of text any path it matches must contain at a known place:
 *
 *   PATH  a literal absolute directory the path starts with: a PREFIX rule's
 *         path, or the directory of a GLOB rule's literal lead
 *         (`/h/.local/lib` of `/h/.local/lib/python` + `*`)
 *   NAME  a component of the path: an any-depth rule's first component when
 *         it is literal (`.env`, `.git` of `.git/hooks`)
 *   LEAD  the start of a component: the literal lead of a one-component
 *         any-depth glob (`id_` of `id_` + `*`)
 *   TAIL  the end of a component: its literal tail (`.pem` of `*.pem`)
 *
 * and a rule with no such text (`/`, `*`, a double star first, an escaped
 * character) goes on its kind's list of rules always tried. A query hashes
 * every leading directory of the path and every component (its leads and
 * tails of the lengths some key has) once, looks each up, and tries only
 * the rules found and the always-tried ones, in their order, with the very
 * same match_len(): the index only leaves out rules that cannot match, so
 * every answer, the deciding rule included, is what trying them all gave.
 * A path that finds more rules than a query keeps (QUERY_HITS) is judged
 * by trying them all.
 *
 * The table is built in memory the caller gives (policy_compile's, or the
 * shim's view of the blob at attach), from rules already checked, so a
 * blob carries only the seed. The hash is seeded per compilation: a
 * project's sandbox.ini, written by whoever wrote the repository, cannot
 * pick keys that collide, and a lookup never probes further than the
 * longest run the build made.
 */
#include <string.h>

#include "policy/internal.h"

/* Lead and tail keys are cut to this many bytes (a shorter key is still a
 * piece every match contains), so their lengths fit one 64-bit mask. */
#define KEY_AFFIX_MAX 64

enum key_type {
	KEY_NONE = 0,
	KEY_PATH,
	KEY_NAME,
	KEY_LEAD,
	KEY_TAIL,
};

/* 24 bytes: the shim builds the table in every process it starts in */
struct match_slot {
	uint32_t check;    /* the hash's high half, never 0; 0: empty */
	uint32_t rule;     /* flat index of a rule whose pattern holds the key */
	uint32_t off;      /* the key: that pattern's bytes [off, off + len) */
	uint32_t len_type; /* len | type << 29 */
	uint32_t first, n; /* the rules with this key: lists[first, first + n) */
};
#define SLOT_LEN(s) ((s)->len_type & ((1u << 29) - 1))
#define SLOT_TYPE(s) ((s)->len_type >> 29)
#define CHECK(h) ((uint32_t)((h) >> 32) | 1u)

static bool indexed_kind(int k)
{
	return k == SBX_RULE_DENY_READ || k == SBX_RULE_ALLOW_READ ||
	       k == SBX_RULE_ALLOW_WRITE || k == SBX_RULE_DENY_WRITE ||
	       k == SBX_RULE_MANDATORY || k == SBX_RULE_HOME_KEPT ||
	       k == SBX_RULE_IGNORE_PATH;
}

static size_t slots_for(size_t nrules)
{
	size_t n = 16;

	while (n < 2 * nrules)
		n *= 2;
	return n;
}

#define ALIGN8(x) (((x) + 7) & ~(size_t)7)

size_t match_size(size_t nrules)
{
	return ALIGN8(slots_for(nrules) * sizeof(struct match_slot)) +
	       ALIGN8(2 * nrules * sizeof(uint32_t)) + nrules * sizeof(struct match_run);
}

/* fmix64 of MurmurHash3: FNV-1a's low bits alone are poor. */
static uint64_t finish(uint64_t h, enum key_type type)
{
	h ^= (uint64_t)type * 0x9e3779b97f4a7c15ull;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	h ^= h >> 33;
	return h ? h : 1;
}

#define FNV_PRIME 0x100000001b3ull

static uint64_t fnv(uint64_t h, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * FNV_PRIME;
	return h;
}

/* A tail is hashed from its last byte backwards, as a query walks it. */
static uint64_t fnv_back(uint64_t h, const char *s, size_t n)
{
	for (size_t i = n; i-- > 0;)
		h = (h ^ (unsigned char)s[i]) * FNV_PRIME;
	return h;
}

/* The longest run of literal characters within one component of the
 * pattern: every match holds it as it is (a double star's `/` may match
 * nothing, so runs stop at `/` too). For a rule tried always, a path
 * without it is passed over after one memmem(), not a glob match at every
 * start and end. */
static struct match_run literal_run(const char *pat)
{
	struct match_run best = { .len = 0 };

	for (size_t i = 0; pat[i];) {
		size_t n = strcspn(pat + i, "*?\\/");
		if (n > best.len)
			best = (struct match_run){ .off = (uint32_t)i, .len = (uint32_t)n };
		i += n;
		if (pat[i] == '\\' && pat[i + 1])
			i++; /* an escaped character starts no run */
		if (pat[i])
			i++;
	}
	/* its first, middle and last pairs: a path that lacks one is passed
	 * over in a bit test (query.c) */
	if (best.len >= 2) {
		const unsigned char *r = (const unsigned char *)pat + best.off;
		size_t at[3] = { 0, (best.len - 2) / 2, best.len - 2 };
		for (int k = 0; k < 3; k++)
			if (k == 0 || at[k] != at[k - 1])
				best.gram[best.ngram++] = (uint16_t)match_gram(r[at[k]], r[at[k] + 1]);
	}
	return best;
}

/* The pattern's last component, when it is literal and every match ends
 * with it as a whole component: the `/` before it is matched as itself,
 * not as the end of a double star that may match nothing (`/w/a**` + `/q`
 * matches `/w/aq`). Its offset, or 0. */
static size_t last_name(const char *pat, size_t plen, bool anywhere)
{
	const char *slash = strrchr(pat, '/');
	size_t q = slash ? (size_t)(slash - pat) + 1 : 0, r;

	if (!q || q == plen || strpbrk(pat + q, "*?\\"))
		return 0;
	for (r = q - 1; r > 0 && pat[r - 1] == '*'; r--)
		;
	if (q - 1 - r >= 2 && !(r == 0 ? anywhere : pat[r - 1] == '/'))
		return 0;
	return q;
}

/* The key of a rule, or KEY_NONE: tried always. Each one is a piece of text
 * that every path the rule matches (match_len() > 0) contains where a query
 * looks it up; docs/ARCHITECTURE.md, "The path matcher". */
static enum key_type rule_key(const struct sbx_rule *r, uint32_t *off, uint32_t *len)
{
	const char *pat = r->pattern;
	size_t plen = strlen(pat), q;

	*off = 0;
	switch (r->pat) {
	case SBX_PAT_PREFIX:
		/* `/` matches everything; a length past the pattern is
		 * refused at attach */
		if (r->prefix_len < 2 || r->prefix_len > plen)
			return KEY_NONE;
		*len = (uint32_t)r->prefix_len;
		return KEY_PATH;
	case SBX_PAT_GLOB: {
		/* the literal lead is compared whole: the path has its last
		 * `/` as a component boundary. After it a double star takes
		 * any depth (`/w/` + `**` + `/key`): the last name, when
		 * there is one, is the narrower key. */
		size_t k = r->prefix_len < plen ? r->prefix_len : plen;
		while (k > 0 && pat[k - 1] != '/')
			k--;
		q = last_name(pat, plen, false);
		if (q && (k < 2 || strstr(pat, "**"))) {
			*off = (uint32_t)q;
			*len = (uint32_t)(plen - q);
			return KEY_NAME;
		}
		if (k < 2)
			return KEY_NONE; /* nothing before a `/` past the root */
		*len = (uint32_t)(k - 1);
		return KEY_PATH;
	}
	case SBX_PAT_ANYWHERE: {
		size_t c0 = strcspn(pat, "/");
		bool magic = strpbrk(pat, "*?") != NULL;
		if (c0 > 0 && !memchr(pat, '\\', c0) && !memchr(pat, '*', c0) &&
		    !memchr(pat, '?', c0)) {
			*len = (uint32_t)c0;
			return KEY_NAME;
		}
		if (c0 < plen) {
			if (!(q = last_name(pat, plen, true)))
				return KEY_NONE;
			*off = (uint32_t)q;
			*len = (uint32_t)(plen - q);
			return KEY_NAME;
		}
		/* a glob of one component (no `**`, which crosses `/`) matches
		 * one whole component: its literal lead or tail is in it */
		if (!magic || strstr(pat, "**") || memchr(pat, '\\', plen))
			return KEY_NONE;
		size_t lead = strcspn(pat, "*?"), tail = 0;
		while (tail < plen && pat[plen - 1 - tail] != '*' && pat[plen - 1 - tail] != '?')
			tail++;
		if (lead == 0 && tail == 0)
			return KEY_NONE;
		if (lead >= tail) {
			*len = (uint32_t)(lead < KEY_AFFIX_MAX ? lead : KEY_AFFIX_MAX);
			return KEY_LEAD;
		}
		*len = (uint32_t)(tail < KEY_AFFIX_MAX ? tail : KEY_AFFIX_MAX);
		*off = (uint32_t)(plen - *len);
		return KEY_TAIL;
	}
	}
	return KEY_NONE;
}

static uint64_t key_hash(uint64_t seed, enum key_type type, const char *key, size_t len)
{
	return finish(type == KEY_TAIL ? fnv_back(seed, key, len) : fnv(seed, key, len), type);
}

static const char *slot_key(const struct matcher *m, const struct match_slot *s)
{
	return m->flat[s->rule]->pattern + s->off;
}

/* The slot holding (type, key), or the empty one where it would go. */
static struct match_slot *find(const struct matcher *m, uint64_t h, enum key_type type,
			       const char *key, size_t len, uint32_t *dist)
{
	for (uint32_t d = 0;; d++) {
		struct match_slot *s = &m->slots[(h + d) & m->mask];
		if (!s->check || (s->check == CHECK(h) && SLOT_TYPE(s) == (uint32_t)type &&
				  SLOT_LEN(s) == len && !memcmp(slot_key(m, s), key, len))) {
			*dist = d;
			return s;
		}
	}
}

void match_build(struct matcher *m, void *mem, const struct sbx_rule *const *flat,
		 const size_t *nby_kind, uint64_t seed)
{
	size_t nrules = 0, nslots;
	uint32_t *slot_of, at = 0;

	for (int k = 0; k < SBX_RULE_KIND_COUNT; k++) {
		m->kind_off[k] = (uint32_t)nrules;
		nrules += nby_kind[k];
	}
	m->kind_off[SBX_RULE_KIND_COUNT] = (uint32_t)nrules;
	nslots = slots_for(nrules);
	m->seed = seed;
	m->flat = flat;
	m->mask = (uint32_t)(nslots - 1);
	m->probe = 0;
	m->lead_lens = m->tail_lens = 0;
	m->slots = mem;
	m->lists = (uint32_t *)((char *)mem + ALIGN8(nslots * sizeof(struct match_slot)));
	slot_of = m->lists + nrules; /* scratch: each rule's slot, or ~0 */
	m->runs = (struct match_run *)((char *)m->lists + ALIGN8(2 * nrules * sizeof(uint32_t)));
	memset(m->slots, 0, nslots * sizeof(*m->slots));

	for (int k = 0; k < SBX_RULE_KIND_COUNT; k++) {
		for (uint32_t i = m->kind_off[k]; i < m->kind_off[k + 1]; i++) {
			uint32_t off, len, d;
			enum key_type type = indexed_kind(k) ? rule_key(flat[i], &off, &len) : KEY_NONE;
			slot_of[i] = ~0u;
			if (type == KEY_NONE || len >= 1u << 29)
				continue;
			const char *key = flat[i]->pattern + off;
			uint64_t h = key_hash(seed, type, key, len);
			struct match_slot *s = find(m, h, type, key, len, &d);
			if (!s->check) {
				*s = (struct match_slot){ .check = CHECK(h), .rule = i, .off = off,
							  .len_type = len | (uint32_t)type << 29 };
				if (d > m->probe)
					m->probe = d;
				if (type == KEY_LEAD)
					m->lead_lens |= 1ull << (len - 1);
				if (type == KEY_TAIL)
					m->tail_lens |= 1ull << (len - 1);
			}
			s->n++;
			slot_of[i] = (uint32_t)(s - m->slots);
		}
	}
	/* each slot's rules in flat order, then each kind's always-tried ones */
	for (size_t i = 0; i < nslots; i++) {
		m->slots[i].first = at;
		at += m->slots[i].n;
		m->slots[i].n = 0;
	}
	for (uint32_t i = 0; i < nrules; i++) {
		if (slot_of[i] != ~0u) {
			struct match_slot *s = &m->slots[slot_of[i]];
			m->lists[s->first + s->n++] = i;
		}
	}
	m->always_base = at;
	for (int k = 0; k < SBX_RULE_KIND_COUNT; k++) {
		m->always_first[k] = at;
		for (uint32_t i = m->kind_off[k]; i < m->kind_off[k + 1]; i++) {
			if (slot_of[i] != ~0u)
				continue;
			m->runs[at - m->always_base] =
				indexed_kind(k) && flat[i]->pat != SBX_PAT_PREFIX ?
					literal_run(flat[i]->pattern) : (struct match_run){ .len = 0 };
			m->lists[at++] = i;
		}
		m->always_n[k] = at - m->always_first[k];
	}
}

/* Add a slot's rules to the sorted, duplicate-free hit list. */
static void add_hits(const struct matcher *m, const struct match_slot *s, struct match_hits *h)
{
	for (uint32_t j = 0; j < s->n && !h->all; j++) {
		uint32_t v = m->lists[s->first + j], lo = 0, hi = h->n;
		while (lo < hi) {
			uint32_t mid = (lo + hi) / 2;
			if (h->v[mid] < v)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < h->n && h->v[lo] == v)
			continue;
		if (h->n == QUERY_HITS) {
			h->all = true;
			return;
		}
		memmove(&h->v[lo + 1], &h->v[lo], (h->n - lo) * sizeof(*h->v));
		h->v[lo] = v;
		h->n++;
	}
}

static void look(const struct matcher *m, uint64_t h, enum key_type type, const char *key,
		 size_t len, struct match_hits *hits)
{
	for (uint32_t d = 0; d <= m->probe; d++) {
		const struct match_slot *s = &m->slots[(h + d) & m->mask];
		if (!s->check)
			return;
		if (s->check == CHECK(h) && SLOT_TYPE(s) == (uint32_t)type && SLOT_LEN(s) == len &&
		    !memcmp(slot_key(m, s), key, len)) {
			add_hits(m, s, hits);
			return;
		}
	}
}

void match_collect(const struct matcher *m, const char *t, size_t tlen, struct match_hits *hits)
{
	uint64_t ph = m->seed;

	hits->n = 0;
	hits->all = false;
	/* every leading directory, and the path itself (`/a/b` of `/a/b/c`:
	 * a PREFIX rule matches where the path goes on with `/` or ends) */
	for (size_t j = 0; j < tlen && !hits->all; j++) {
		if (j > 0 && t[j] == '/')
			look(m, finish(ph, KEY_PATH), KEY_PATH, t, j, hits);
		ph = (ph ^ (unsigned char)t[j]) * FNV_PRIME;
	}
	if (tlen > 0)
		look(m, finish(ph, KEY_PATH), KEY_PATH, t, tlen, hits);
	/* every component after a `/` (match_len() never starts at 0) */
	for (size_t i = 1; i < tlen && !hits->all; i++) {
		if (t[i - 1] != '/' || t[i] == '/')
			continue;
		size_t e = i;
		uint64_t h = m->seed;
		while (e < tlen && t[e] != '/') {
			h = (h ^ (unsigned char)t[e]) * FNV_PRIME;
			e++;
			size_t l = e - i;
			if (l <= KEY_AFFIX_MAX && (m->lead_lens >> (l - 1)) & 1)
				look(m, finish(h, KEY_LEAD), KEY_LEAD, t + i, l, hits);
		}
		look(m, finish(h, KEY_NAME), KEY_NAME, t + i, e - i, hits);
		if (m->tail_lens) {
			h = m->seed;
			for (size_t l = 1; l <= e - i && l <= KEY_AFFIX_MAX; l++) {
				h = (h ^ (unsigned char)t[e - l]) * FNV_PRIME;
				if ((m->tail_lens >> (l - 1)) & 1)
					look(m, finish(h, KEY_TAIL), KEY_TAIL, t + e - l, l, hits);
			}
		}
		i = e - 1;
	}
}
