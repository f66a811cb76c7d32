/* tests/unit/matcher_ref.h: the path matcher as it was before policy/match.c
 * (every rule of a kind tried in turn), kept as the reference the compiled
 * matcher must agree with: tests/unit/policy_matcher.c on generated paths,
 * tests/fuzz/matcher.c on any. Test code only. Needs policy/internal.h. */
#ifndef SBX_TEST_MATCHER_REF_H
#define SBX_TEST_MATCHER_REF_H

#include <string.h>

#include "policy/internal.h"

static inline size_t ref_match_len(const struct sbx_rule *r, const char *t, size_t tlen)
{
	switch (r->pat) {
	case SBX_PAT_PREFIX: {
		size_t n = r->prefix_len;
		if (n == 1) /* `/` */
			return 1;
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
			if ((j == tlen || t[j] == '/') && sbx_glob_match(r->pattern, t, j))
				return j;
		return 0;
	}
	case SBX_PAT_ANYWHERE: {
		const char *pat = r->pattern;
		bool literal = !strpbrk(pat, "*?");
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
				if ((j == tlen || t[j] == '/') && sbx_glob_match(pat, t + i, j - i))
					return j;
		}
		return 0;
	}
	}
	return 0;
}

static inline const struct sbx_rule *ref_best(const struct policy *p, enum sbx_rule_kind kind,
				       const char *t, size_t tlen, size_t *len)
{
	const struct sbx_rule *best = NULL;

	*len = 0;
	for (size_t i = 0; i < p->nby_kind[kind]; i++) {
		size_t m = ref_match_len(p->by_kind[kind][i], t, tlen);
		if (m > *len) {
			*len = m;
			best = p->by_kind[kind][i];
		}
	}
	return best;
}

static inline const struct sbx_rule *ref_first(const struct policy *p, enum sbx_rule_kind kind,
					const char *t, size_t tlen)
{
	for (size_t i = 0; i < p->nby_kind[kind]; i++)
		if (ref_match_len(p->by_kind[kind][i], t, tlen))
			return p->by_kind[kind][i];
	return NULL;
}

static inline enum sbx_verdict ref_read(const struct policy *p, const char *t, size_t tlen,
				 const struct sbx_rule **why)
{
	size_t dl, al;
	const struct sbx_rule *deny = ref_best(p, SBX_RULE_DENY_READ, t, tlen, &dl);
	const struct sbx_rule *allow = ref_best(p, SBX_RULE_ALLOW_READ, t, tlen, &al);

	if (deny && (!allow || al < dl)) {
		*why = deny;
		return SBX_DENY;
	}
	*why = allow;
	return SBX_ALLOW;
}

static inline const struct sbx_rule *ref_mandatory(const struct policy *p, const char *t, size_t tlen)
{
	const char *sess = p->session_dir;
	size_t sl = sess ? strlen(sess) : 0;
	bool in_session = sl > 1 && tlen >= sl && !memcmp(t, sess, sl) &&
			  (t[sl] == '/' || !t[sl]);

	for (size_t i = 0; i < p->nby_kind[SBX_RULE_MANDATORY]; i++) {
		const struct sbx_rule *r = p->by_kind[SBX_RULE_MANDATORY][i];
		if (!ref_match_len(r, t, tlen))
			continue;
		if (policy_mandatory_lifted(p, r, t))
			continue;
		if (in_session && r->pat == SBX_PAT_PREFIX && r->prefix_len < sl &&
		    ref_match_len(r, sess, sl))
			continue;
		return r;
	}
	return NULL;
}

static inline enum sbx_verdict ref_check_path(const struct policy *p, enum sbx_op op,
				       const char *abspath, const struct sbx_rule **why)
{
	const struct sbx_rule *r;
	size_t tlen = strlen(abspath), l;

	*why = NULL;
	if (abspath[0] != '/')
		return SBX_DENY;
	if (op != SBX_OP_WRITE)
		return ref_read(p, abspath, tlen, why);
	if ((r = ref_mandatory(p, abspath, tlen)) ||
	    (r = ref_first(p, SBX_RULE_DENY_WRITE, abspath, tlen))) {
		*why = r;
		return SBX_DENY;
	}
	if (ref_read(p, abspath, tlen, &r) == SBX_DENY) {
		*why = r;
		return SBX_DENY;
	}
	r = ref_best(p, SBX_RULE_ALLOW_WRITE, abspath, tlen, &l);
	if (r && l <= strlen(p->home) && p->home[1]) {
		const struct sbx_rule *k = ref_first(p, SBX_RULE_HOME_KEPT, abspath, tlen);
		if (k) {
			*why = k;
			return SBX_DENY;
		}
	}
	*why = r;
	return r ? SBX_ALLOW : SBX_DENY;
}

static inline bool ref_ignored(const struct policy *p, const char *path)
{
	return ref_first(p, SBX_RULE_IGNORE_PATH, path, strlen(path)) != NULL;
}

/* Where a rule sits (kind and index), comparable across a policy and its
 * blob view; -1 for none. */
static inline long ref_rule_pos(const struct policy *p, const struct sbx_rule *r)
{
	if (!r)
		return -1;
	for (size_t i = 0; i < p->nby_kind[r->kind]; i++)
		if (p->by_kind[r->kind][i] == r)
			return (long)r->kind * 100000 + (long)i;
	return -2;
}

#endif
