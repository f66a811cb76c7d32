/* tests/unit/policy_pathmemo.c: a plan's memo of the host's answers
 * (policy/path.c): sbx_path_missing() says "missing" only where a
 * directory's listing (made once it was asked about often) lacks the
 * name, or the way to it; everything else is the kernel's to answer, and
 * sbx_path_resolve_memo() resolves as sbx_path_resolve() does. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <criterion/criterion.h>

#include "policy/policy.h"
#include "helpers.h"

static char *dir;

static void setup(void)
{
	dir = make_tmpdir();
	make_dirs(dir, "top/sub");
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/top/file", dir);
	write_file(p, "x\n");
	snprintf(p, sizeof(p), "%s/top/link", dir);
	cr_assert_eq(symlink("sub", p), 0);
}

static void teardown(void)
{
	remove_tree(dir);
	free(dir);
}

TestSuite(policy_pathmemo, .init = setup, .fini = teardown);

/* ask about n missing names in top/, as the protected names' rows do */
static void ask_missing(struct path_memo *m, int n)
{
	char p[PATH_MAX];
	for (int i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/top/.none%d", dir, i);
		sbx_path_missing(m, p);
	}
}

static bool missing(struct path_memo *m, const char *rel)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	return sbx_path_missing(m, p);
}

Test(policy_pathmemo, nothing_known_before_the_listing)
{
	struct path_memo *m = sbx_path_memo_new(0);
	cr_assert(m);
	/* asked about once: not listed yet, so the kernel is asked */
	cr_assert_not(missing(m, "top/.bashrc"));
	cr_assert_not(sbx_path_missing(NULL, "/nonexistent/name"));
	sbx_path_memo_free(m);
}

Test(policy_pathmemo, missing_names_from_the_listing)
{
	struct path_memo *m = sbx_path_memo_new(0);
	ask_missing(m, 8);
	/* listed: a name it lacks is missing, and everything below it */
	cr_assert(missing(m, "top/.bashrc"));
	cr_assert(missing(m, "top/.git/hooks"));
	cr_assert(missing(m, "top/.claude/settings.json"));
	/* what is there is the kernel's to answer: a file, a directory, a
	 * link (and below a directory or a link, whatever lies there) */
	cr_assert_not(missing(m, "top/file"));
	cr_assert_not(missing(m, "top/sub"));
	cr_assert_not(missing(m, "top/link"));
	cr_assert_not(missing(m, "top/sub/x"));
	cr_assert_not(missing(m, "top/link/x"));
	cr_assert_not(missing(m, "top/file/x"));
	/* not normal: never judged */
	cr_assert_not(missing(m, "top/sub/../.bashrc"));
	cr_assert_not(missing(m, "top//.bashrc"));
	sbx_path_memo_free(m);
}

/* A listing is trusted only where names are looked up by their exact
 * bytes: one listed name with its case swapped must be missing (on vfat,
 * SMB or a casefold directory `.GIT` is `.git`, which a listing lacking
 * `.GIT` would call missing). A directory with no name to try that on is
 * never listed: the kernel answers. */
Test(policy_pathmemo, no_listing_without_a_name_to_test_case_on)
{
	struct path_memo *m = sbx_path_memo_new(0);
	char p[PATH_MAX];
	make_dirs(dir, "digits");
	snprintf(p, sizeof(p), "%s/digits/1", dir);
	write_file(p, "x\n");
	for (int i = 0; i < 8; i++) {
		snprintf(p, sizeof(p), "%s/digits/%d.none", dir, i);
		cr_assert_not(sbx_path_missing(m, p));
	}
	cr_assert_not(missing(m, "digits/.git"));
	/* and one that has such a name is listed */
	ask_missing(m, 8);
	cr_assert(missing(m, "top/.git"));
	sbx_path_memo_free(m);
}

/* A snapshot: a name made after the listing is still "missing" to it,
 * which is why a plan drops its memo before COMMAND starts. */
Test(policy_pathmemo, a_snapshot)
{
	struct path_memo *m = sbx_path_memo_new(0);
	char p[PATH_MAX];
	ask_missing(m, 8);
	snprintf(p, sizeof(p), "%s/top/.env", dir);
	write_file(p, "k=v\n");
	cr_assert(missing(m, "top/.env"));
	sbx_path_memo_free(m);
	m = sbx_path_memo_new(0);
	ask_missing(m, 8);
	cr_assert_not(missing(m, "top/.env"));
	sbx_path_memo_free(m);
}

Test(policy_pathmemo, resolves_as_without)
{
	struct path_memo *m = sbx_path_memo_new(0);
	const char *rels[] = { "top/link", "top/link/x", "top/sub", "top/none/x", "top/file" };
	ask_missing(m, 8);
	for (size_t i = 0; i < sizeof(rels) / sizeof(*rels); i++) {
		char p[PATH_MAX], a[PATH_MAX], b[PATH_MAX];
		snprintf(p, sizeof(p), "%s/%s", dir, rels[i]);
		sbx_path_resolve(p, a, sizeof(a));
		sbx_path_resolve_memo(p, b, sizeof(b), m);
		cr_assert_str_eq(a, b, "%s", rels[i]);
		/* twice: the second from the memo */
		sbx_path_resolve_memo(p, b, sizeof(b), m);
		cr_assert_str_eq(a, b, "%s (again)", rels[i]);
	}
	sbx_path_memo_free(m);
}
