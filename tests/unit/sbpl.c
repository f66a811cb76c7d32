/* tests/unit/sbpl.c: the SBPL evaluator of sbpl.h (tests/unit/seatbelt.c
 * and seatbelt_disk.c ask it). */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "tests/unit/sbpl.h"

/* ---- an s-expression reader for what SBPL profiles use */

struct sx {
	enum { SX_LIST, SX_SYM, SX_STR } t;
	char *s;          /* SYM, STR */
	struct sx **v;    /* LIST */
	size_t n;
	size_t re;        /* STR used as a regex: its re_cache index + 1 */
};

static void sx_free(struct sx *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->n; i++)
		sx_free(x->v[i]);
	free(x->v);
	free(x->s);
	free(x);
}

static void skip_space(const char **p)
{
	for (;;) {
		while (**p == ' ' || **p == '\n' || **p == '\t')
			(*p)++;
		if (**p != ';')
			return;
		while (**p && **p != '\n')
			(*p)++;
	}
}

static struct sx *sx_read(const char **p)
{
	struct sx *x = calloc(1, sizeof(*x));

	cr_assert_not_null(x);
	skip_space(p);
	if (**p == '(') {
		(*p)++;
		x->t = SX_LIST;
		for (;;) {
			skip_space(p);
			cr_assert(**p, "profile: a list is not closed");
			if (**p == ')') {
				(*p)++;
				return x;
			}
			x->v = realloc(x->v, (x->n + 1) * sizeof(*x->v));
			x->v[x->n++] = sx_read(p);
		}
	}
	if (**p == '"' || (**p == '#' && (*p)[1] == '"')) {
		bool raw = **p == '#';
		*p += raw ? 2 : 1;
		size_t cap = strlen(*p) + 1, l = 0;
		x->t = SX_STR;
		x->s = malloc(cap);
		while (**p && **p != '"') {
			if (**p == '\\' && !raw) {
				(*p)++;
				cr_assert(**p == '"' || **p == '\\', "profile: escape \\%c", **p);
			} else if (**p == '\\' && raw && (*p)[1] == '"') {
				x->s[l++] = *(*p)++;
			}
			x->s[l++] = *(*p)++;
		}
		cr_assert(**p == '"', "profile: a string is not closed");
		(*p)++;
		x->s[l] = '\0';
		return x;
	}
	const char *b = *p;
	while (**p && !strchr(" \n\t()\";", **p))
		(*p)++;
	cr_assert(*p > b, "profile: unexpected `%c`", **p);
	x->t = SX_SYM;
	x->s = strndup(b, (size_t)(*p - b));
	return x;
}

/* ---- the evaluator */


static const char *param_value(const struct prof *pr, const char *name)
{
	for (size_t i = 0; i < pr->sp->nparams; i++)
		if (!strcmp(pr->sp->params[i].name, name))
			return pr->sp->params[i].value;
	cr_assert_fail("profile reads parameter %s, which it does not pass", name);
	return NULL;
}

/* A string argument: "..." or (param "N"). */
static const char *str_arg(const struct prof *pr, const struct sx *x)
{
	if (x->t == SX_STR)
		return x->s;
	cr_assert(x->t == SX_LIST && x->n == 2 && x->v[0]->t == SX_SYM &&
		  !strcmp(x->v[0]->s, "param") && x->v[1]->t == SX_STR,
		  "profile: a path argument is neither a string nor (param \"N\")");
	return param_value(pr, x->v[1]->s);
}

/* Each regex compiled once (a profile has a few hundred). */
static struct {
	char *src;
	regex_t re;
	unsigned long gen; /* the path it last matched: its answer */
	bool last;
} re_cache[1024];
static size_t re_n;
unsigned long sbpl_path_gen = 1; /* one per path asked about */

static bool sb_re_match(struct sx *arg, const char *re, const char *path)
{
	size_t i;

	if (arg->re)
		i = arg->re - 1;
	else
		for (i = 0; i < re_n && strcmp(re_cache[i].src, re); i++)
			;
	if (i == re_n) {
		cr_assert_lt(re_n, sizeof(re_cache) / sizeof(re_cache[0]));
		int rc = regcomp(&re_cache[i].re, re, REG_EXTENDED | REG_NOSUB);
		cr_assert_eq(rc, 0, "profile regex does not compile: %s", re);
		re_cache[i].src = strdup(re);
		re_n++;
	}
	arg->re = i + 1;
	if (re_cache[i].gen != sbpl_path_gen) {
		re_cache[i].gen = sbpl_path_gen;
		re_cache[i].last = regexec(&re_cache[i].re, path, 0, NULL, 0) == 0;
	}
	return re_cache[i].last;
}

/* Does a filter match the path? Filters on other things than a path
 * (target, global-name, remote...) never match a file operation. */
static bool filter_matches(const struct prof *pr, const struct sx *f, const char *path)
{
	cr_assert(f->t == SX_LIST && f->n >= 1 && f->v[0]->t == SX_SYM, "profile: a bad filter");
	const char *k = f->v[0]->s;
	if (!strcmp(k, "literal"))
		return !strcmp(path, str_arg(pr, f->v[1]));
	if (!strcmp(k, "subpath")) {
		const char *d = str_arg(pr, f->v[1]);
		size_t n = strlen(d);
		return !strcmp(d, "/") || (!strncmp(path, d, n) && (!path[n] || path[n] == '/'));
	}
	if (!strcmp(k, "regex"))
		return sb_re_match(f->v[1], str_arg(pr, f->v[1]), path);
	if (!strcmp(k, "require-all")) {
		for (size_t i = 1; i < f->n; i++)
			if (!filter_matches(pr, f->v[i], path))
				return false;
		return true;
	}
	if (!strcmp(k, "require-any")) {
		for (size_t i = 1; i < f->n; i++)
			if (filter_matches(pr, f->v[i], path))
				return true;
		return false;
	}
	if (!strcmp(k, "require-not")) {
		cr_assert_eq(f->n, 2, "profile: require-not takes one filter");
		return !filter_matches(pr, f->v[1], path);
	}
	return false;
}

/* Does a rule's operation `rop` cover `op`? `default` covers all,
 * `file-read*` every file-read-..., else the name itself. */
static bool op_covers(const char *rop, const char *op)
{
	size_t n = strlen(rop);
	if (!strcmp(rop, "default") || !strcmp(rop, op))
		return true;
	return n && rop[n - 1] == '*' && !strncmp(rop, op, n - 1);
}

/* The verdict of the profile for `op` on `path`: the last rule whose
 * operations cover op and whose filters (any; none: all) match. */
bool prof_allows(const struct prof *pr, const char *op, const char *path)
{
	bool allow = false, decided = false;

	for (size_t i = 0; i < pr->n; i++) {
		const struct sx *r = pr->forms[i];
		if (r->t != SX_LIST || !r->n || r->v[0]->t != SX_SYM)
			continue;
		bool is_allow = !strcmp(r->v[0]->s, "allow");
		if (!is_allow && strcmp(r->v[0]->s, "deny"))
			continue; /* (version 1) */
		bool covers = false, any_filter = false, match = false;
		for (size_t j = 1; j < r->n; j++)
			if (r->v[j]->t == SX_SYM)
				covers = covers || op_covers(r->v[j]->s, op);
		for (size_t j = 1; covers && !match && j < r->n; j++) {
			const struct sx *x = r->v[j];
			if (x->t == SX_SYM)
				continue;
			if (x->t == SX_LIST && x->n && x->v[0]->t == SX_SYM &&
			    !strcmp(x->v[0]->s, "with"))
				continue; /* (with message ...) */
			any_filter = true;
			match = filter_matches(pr, x, path);
		}
		if (covers && (!any_filter || match)) {
			allow = is_allow;
			decided = true;
		}
	}
	cr_assert(decided, "no rule decides %s %s (no deny default?)", op, path);
	return allow;
}

/* (param "N") replaced by its value once, as sandbox-exec does when it
 * compiles the profile; a name it does not pass fails. */
static void substitute(const struct prof *pr, struct sx *x)
{
	for (size_t i = 0; x->t == SX_LIST && i < x->n; i++) {
		struct sx *c = x->v[i];
		if (c->t == SX_LIST && c->n == 2 && c->v[0]->t == SX_SYM &&
		    !strcmp(c->v[0]->s, "param") && c->v[1]->t == SX_STR) {
			struct sx *v = calloc(1, sizeof(*v));
			v->t = SX_STR;
			v->s = strdup(param_value(pr, c->v[1]->s));
			sx_free(c);
			x->v[i] = v;
		} else {
			substitute(pr, c);
		}
	}
}

void prof_load(struct prof *pr, const struct seatbelt_profile *sp)
{
	const char *p = sp->text;

	memset(pr, 0, sizeof(*pr));
	pr->sp = sp;
	for (;;) {
		skip_space(&p);
		if (!*p)
			break;
		pr->forms = realloc(pr->forms, (pr->n + 1) * sizeof(*pr->forms));
		pr->forms[pr->n] = sx_read(&p);
		substitute(pr, pr->forms[pr->n++]);
	}
	cr_assert(pr->n > 2 && pr->forms[0]->n == 2 && !strcmp(pr->forms[0]->v[0]->s, "version"),
		  "profile does not start with (version 1)");
}

void prof_free(struct prof *pr)
{
	for (size_t i = 0; i < pr->n; i++)
		sx_free(pr->forms[i]);
	free(pr->forms);
}

