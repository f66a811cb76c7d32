/* tests/unit/shim_resolve.c: where a path really leads, as the shim sees it.
 *
 * The shim asks shim_resolve() before it refuses a call and after the
 * kernel refused one, so a symlink in the workspace that points at a secret
 * is named by the secret's path, and one that points somewhere allowed is
 * never refused. It must walk links the way the kernel does (absolute and
 * relative targets, `..` after a link, the final link only when followed),
 * stop on a loop, and keep a missing tail as written. Run on a real tree.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/helpers.h"
#include "shim/core.h"
#include "shim/resolve.h"

/* core.c's per-thread errno pointer (core.h, shim_errno()): resolve.c's
 * system calls set errno through it, and this runner links resolve.c
 * without core.c. */
__thread int *shim_errno_ptr;

static char *root;

/* root-relative helpers: P("a/b") is "<root>/a/b" (a rotating buffer) */
static const char *P(const char *rel)
{
	static char bufs[8][PATH_MAX];
	static int next;
	char *b = bufs[next++ % 8];

	snprintf(b, PATH_MAX, "%s%s%s", root, *rel ? "/" : "", rel);
	return b;
}

static void mk(const char *rel)
{
	cr_assert_eq(mkdir(P(rel), 0755), 0, "mkdir %s: %s", rel, strerror(errno));
}

static void ln(const char *target, const char *rel)
{
	cr_assert_eq(symlink(target, P(rel)), 0, "symlink %s: %s", rel, strerror(errno));
}

static void setup(void)
{
	root = make_tmpdir();
	mk("a");
	mk("a/b");
	write_file(P("a/b/file"), "data\n");
	write_file(P("a/file2"), "data\n");
	mk("secret");
	write_file(P("secret/key"), "KEY\n");
	ln(P("a"), "abs");              /* absolute */
	ln("a/b", "rel");               /* relative, two components */
	ln("../a/b", "a/up");           /* relative, through .. */
	ln("../../secret/key", "a/b/peek"); /* a link to a file */
	ln("abs", "chain1");            /* a chain of links */
	ln("chain1", "chain2");
	ln("loop2", "loop1");           /* a loop */
	ln("loop1", "loop2");
	ln("self", "self");
	ln(P("nowhere/f"), "dangling");
	ln("/", "toroot");
	ln(".", "dot");
}

static void teardown(void)
{
	remove_tree(root);
	free(root);
}

TestSuite(shim_resolve, .init = setup, .fini = teardown);

static void expect(const char *in, bool follow, const char *want)
{
	char out[PATH_MAX];

	memset(out, 'Z', sizeof(out));
	shim_resolve(in, follow, out, sizeof(out));
	cr_assert_str_eq(out, want, "shim_resolve(%s, %s)", in, follow ? "follow" : "nofollow");
}

Test(shim_resolve, plain_paths_are_unchanged)
{
	expect(P("a/b/file"), true, P("a/b/file"));
	expect(P("a/b"), true, P("a/b"));
	expect("/", true, "/");
}

Test(shim_resolve, absolute_symlink_is_followed)
{
	expect(P("abs/b/file"), true, P("a/b/file"));
	expect(P("abs"), true, P("a"));
}

Test(shim_resolve, relative_symlink_is_followed_from_its_directory)
{
	expect(P("rel/file"), true, P("a/b/file"));
	expect(P("a/up/file"), true, P("a/b/file"));
}

Test(shim_resolve, final_link_to_a_secret_names_the_secret)
{
	expect(P("a/b/peek"), true, P("secret/key"));
	expect(P("rel/peek"), true, P("secret/key"));
}

Test(shim_resolve, dotdot_after_a_symlink_is_taken_from_the_link_target)
{
	/* the kernel: rel is a/b, so rel/.. is a, not the root */
	expect(P("rel/../file2"), true, P("a/file2"));
	expect(P("abs/b/../file2"), true, P("a/file2"));
	expect(P("a/up/../b/file"), true, P("a/b/file"));
}

Test(shim_resolve, chains_of_links_are_followed)
{
	expect(P("chain2/b/file"), true, P("a/b/file"));
	expect(P("chain2"), true, P("a"));
}

Test(shim_resolve, nofollow_keeps_the_final_link_only)
{
	expect(P("abs"), false, P("abs"));
	expect(P("a/b/peek"), false, P("a/b/peek"));
	expect(P("chain2"), false, P("chain2"));
	/* links before the last component are still followed */
	expect(P("abs/b"), false, P("a/b"));
	expect(P("rel/peek"), false, P("a/b/peek"));
}

Test(shim_resolve, a_loop_stops)
{
	char out[PATH_MAX];

	shim_resolve(P("loop1/x"), true, out, sizeof(out));
	cr_assert_eq(strncmp(out, root, strlen(root)), 0, "left the tree: %s", out);
	shim_resolve(P("self"), true, out, sizeof(out));
	cr_assert_eq(strncmp(out, root, strlen(root)), 0, "left the tree: %s", out);
	shim_resolve(P("loop2"), true, out, sizeof(out));
	cr_assert_eq(strncmp(out, root, strlen(root)), 0, "left the tree: %s", out);
}

Test(shim_resolve, missing_tail_is_kept_as_written)
{
	expect(P("a/missing/deeper/f"), true, P("a/missing/deeper/f"));
	expect(P("abs/missing/x"), true, P("a/missing/x"));
	expect(P("a/b/new-file"), true, P("a/b/new-file"));
	expect(P("rel/new-file"), false, P("a/b/new-file"));
}

Test(shim_resolve, dangling_link_leads_to_its_target)
{
	expect(P("dangling"), true, P("nowhere/f"));
	expect(P("dangling"), false, P("dangling"));
}

Test(shim_resolve, link_to_root_and_to_dot)
{
	expect(P("toroot/etc"), true, "/etc");
	expect(P("dot/a/b/file"), true, P("a/b/file"));
	expect(P("dot/dot/dot/rel"), true, P("a/b"));
}

Test(shim_resolve, dot_and_dotdot_components_fold)
{
	expect(P("a/./b/../b/file"), true, P("a/b/file"));
	expect("/..", true, "/");
	expect("/../../", true, "/");
}

Test(shim_resolve, relative_input_is_copied_untouched)
{
	expect("a/b", true, "a/b");
}

Test(shim_resolve, small_output_buffer_is_never_overrun)
{
	char out[16];

	memset(out, 'Z', sizeof(out));
	shim_resolve(P("abs/b/file"), true, out, sizeof(out));
	cr_assert_lt(strnlen(out, sizeof(out)), sizeof(out), "not terminated inside the buffer");
}

/* ---- path_join, as the shim uses it for (dirfd, path) pairs */

static void joins(const char *base, const char *rel, const char *want)
{
	char out[PATH_MAX];

	cr_assert_eq(path_join(base, rel, out, sizeof(out)), 0, "path_join(%s, %s)",
		     base ? base : "NULL", rel);
	cr_assert_str_eq(out, want, "path_join(%s, %s)", base ? base : "NULL", rel);
}

Test(shim_resolve, path_join_folds_a_dirfd_base_and_a_relative_path)
{
	joins("/w/src", "main.c", "/w/src/main.c");
	joins("/w/src/", "./main.c", "/w/src/main.c");
	joins("/w/src", "../docs//README", "/w/docs/README");
	joins("/w/a/b", "../../../home/u/.ssh/id", "/home/u/.ssh/id");
	joins("/w/a/b", "../../../../../../etc/passwd", "/etc/passwd");
	joins("/w", ".", "/w");
	joins("/w", "sub/", "/w/sub");
	joins("/", "..", "/");
	joins("/w/./x/..", "y", "/w/y");
	/* an absolute path ignores the base, as openat does */
	joins("/w/src", "/etc/../etc/hosts", "/etc/hosts");
	joins(NULL, "/a//b/./c/..", "/a/b");
}

Test(shim_resolve, path_join_refuses_what_is_not_absolute_or_too_long)
{
	char out[PATH_MAX], small[8];

	cr_assert_eq(path_join("rel/base", "x", out, sizeof(out)), -EINVAL);
	cr_assert_eq(path_join(NULL, "x", out, sizeof(out)), -EINVAL);
	cr_assert_eq(path_join("/w", "a-long-name", small, sizeof(small)), -ENAMETOOLONG);
}
