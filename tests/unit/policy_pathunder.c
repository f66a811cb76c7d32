/* tests/unit/policy_pathunder.c: "is this path under that directory", the
 * one helper every layer asks (policy/path.c): sbx_path_under (the
 * directory itself or below), sbx_path_below (strictly below) and the
 * length-given sbx_path_under_n; and sbx_path_fmt, which never cuts a
 * path short. */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "policy/policy.h"

struct under_case {
	const char *path, *dir;
	bool under, below;
};

static struct under_case under_cases[] = {
	/* the directory itself: under, not below */
	{ "/a/b", "/a/b", true, false },
	{ "/", "/", true, false },
	/* below, at any depth */
	{ "/a/b/c", "/a/b", true, true },
	{ "/a/b/c/d", "/a/b", true, true },
	{ "/a", "/", true, true },
	{ "/a/b/c", "/", true, true },
	/* whole components only: a sibling with the same prefix is not */
	{ "/a/bc", "/a/b", false, false },
	{ "/a/b.c", "/a/b", false, false },
	{ "/a/b-c/d", "/a/b", false, false },
	/* above, beside, shorter */
	{ "/a", "/a/b", false, false },
	{ "/", "/a", false, false },
	{ "/x/b", "/a/b", false, false },
	{ "/a/c", "/a/b", false, false },
	/* trailing slashes on the directory are ignored */
	{ "/a/b", "/a/b/", true, false },
	{ "/a/b/c", "/a/b/", true, true },
	{ "/a/b/c", "/a/b//", true, true },
	{ "/a/bc", "/a/b/", false, false },
	{ "/a", "//", true, true },
	/* and on the path: `/a/b/` names `/a/b` */
	{ "/a/b/", "/a/b", true, false },
	{ "/a/b//", "/a/b", true, false },
	{ "/a/b/c/", "/a/b", true, true },
	{ "/", "/a", false, false },
	/* an empty directory holds nothing; `/` holds only absolute paths */
	{ "/a", "", false, false },
	{ "", "", false, false },
	{ "a/b", "/", false, false },
	{ "", "/", false, false },
	/* compared as written: case and dots are not folded */
	{ "/A/b", "/a", false, false },
	{ "/a/./b", "/a", true, true },
	{ "/a/../b", "/a", true, true },
};

ParameterizedTestParameters(policy_path_under, table)
{
	return cr_make_param_array(struct under_case, under_cases,
				   sizeof(under_cases) / sizeof(under_cases[0]));
}

ParameterizedTest(struct under_case *c, policy_path_under, table)
{
	cr_assert_eq(sbx_path_under(c->path, c->dir), c->under, "under(\"%s\", \"%s\")",
		     c->path, c->dir);
	cr_assert_eq(sbx_path_below(c->path, c->dir), c->below, "below(\"%s\", \"%s\")",
		     c->path, c->dir);
	cr_assert_eq(sbx_path_under_n(c->path, strlen(c->path), c->dir, strlen(c->dir)),
		     c->under, "under_n(\"%s\", \"%s\")", c->path, c->dir);
}

/* The lengths bound what is read: a longer buffer behind either does not
 * count (the shim's queries pass a rule's prefix out of a longer pattern). */
Test(policy_path_under, lengths_bound_both_strings)
{
	cr_assert(sbx_path_under_n("/a/b/c", 4, "/a/b", 4));    /* "/a/b" */
	cr_assert(sbx_path_under_n("/a/bc", 4, "/a/b", 4));     /* "/a/b", not "/a/bc" */
	cr_assert(sbx_path_under_n("/a/b/x", 6, "/a/b*", 4));   /* the glob's prefix */
	cr_assert(!sbx_path_under_n("/a/b/x", 3, "/a/b", 4));   /* "/a/" is above */
	cr_assert(!sbx_path_under_n("/a/bx", 5, "/a/b", 4));
	cr_assert(!sbx_path_under_n("/a", 2, "/a/b", 0));       /* empty dir */
	cr_assert(sbx_path_under_n("/a/b/c", 6, "/a/b/", 5));   /* trailing slash */
}

/* sbx_path_fmt: a path that does not fit is an error and an empty
 * buffer, never a shorter path (which would name another file). */
Test(policy_path_fmt, fits_exactly_or_fails_empty)
{
	char b[8];

	cr_assert_eq(sbx_path_fmt(b, sizeof(b), "%s/%s", "/ab", "cd"), 0);
	cr_assert_str_eq(b, "/ab/cd");
	cr_assert_eq(sbx_path_fmt(b, sizeof(b), "/%s", "abcdef"), 0); /* 7 + NUL */
	cr_assert_str_eq(b, "/abcdef");
	cr_assert_eq(sbx_path_fmt(b, sizeof(b), "/%s", "abcdefg"), -ENAMETOOLONG);
	cr_assert_str_eq(b, "", "a cut path was left: \"%s\"", b);
	cr_assert_eq(sbx_path_fmt(b, sizeof(b), "%s/sandbox.ini", "/w"), -ENAMETOOLONG);
	cr_assert_str_eq(b, "");
	cr_assert_eq(sbx_path_fmt(b, 1, "%s", ""), 0);
	cr_assert_eq(sbx_path_fmt(b, 1, "%s", "/"), -ENAMETOOLONG);
	cr_assert_eq(sbx_path_fmt(NULL, 0, "%s", "/"), -ENAMETOOLONG);
}

Test(policy_path_fmt, a_path_max_path_and_one_byte_more)
{
	char b[PATH_MAX], name[PATH_MAX + 1];

	memset(name, 'a', sizeof(name) - 1);
	name[0] = '/';
	name[PATH_MAX - 1] = '\0'; /* PATH_MAX - 1 bytes: fits with its NUL */
	cr_assert_eq(sbx_path_fmt(b, sizeof(b), "%s", name), 0);
	cr_assert_eq(strlen(b), PATH_MAX - 1);
	name[PATH_MAX - 1] = 'a';
	name[PATH_MAX] = '\0';
	cr_assert_eq(sbx_path_fmt(b, sizeof(b), "%s", name), -ENAMETOOLONG);
	cr_assert_str_eq(b, "");
}
