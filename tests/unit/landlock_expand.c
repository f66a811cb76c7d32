/* backend/linux/landlock.c: a denied path inside an allowed tree, said the
 * only way Landlock can (rights only ever grow downwards): the directories
 * on the way get the "way" rule, every sibling along the way the whole
 * right, the hole nothing. Each test builds a small tree and checks the
 * exact rules, and that no rule reaches a hole. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/linux/landlock.h"
#include "preload/preload.h"

static char dir[256];

static void setup(void)
{
	char real[PATH_MAX];

	snprintf(dir, sizeof(dir), "/var/tmp/sbx-unit-landlock.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_not_null(realpath(dir, real));
	memcpy(dir, real, strlen(real) + 1);
}

static void teardown(void)
{
	char cmd[2 * PATH_MAX + 64];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(landlock_expand, .init = setup, .fini = teardown);

/* The rules, one line each: "W path" (whole) or "~ path" (on the way),
 * paths relative to the test directory, sorted. */
struct seen {
	char lines[64][PATH_MAX + 4];
	size_t n;
};

static int record(void *ctx, int fd, const char *path, bool is_dir, bool whole)
{
	struct seen *s = ctx;
	struct stat st;

	cr_assert(fd >= 0);
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq(!!S_ISDIR(st.st_mode), is_dir, "%s", path);
	cr_assert(!S_ISLNK(st.st_mode), "a rule on the link %s", path);
	cr_assert_lt(s->n, 64);
	const char *rel = strncmp(path, dir, strlen(dir)) ? path : path + strlen(dir);
	snprintf(s->lines[s->n++], sizeof(s->lines[0]), "%s %s", whole ? "W" : "~",
		 *rel ? rel : "/");
	return 0;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void mk(const char *rel, bool is_dir)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	if (is_dir) {
		cr_assert_eq(mkdir(p, 0755), 0, "%s", p);
	} else {
		int fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
		cr_assert(fd >= 0, "%s", p);
		close(fd);
	}
}

/* Expand the test directory around the holes (relative), and compare with
 * the expected lines (sorted, NULL-terminated). */
static void expect(const char *const *rel_holes, const char *const *want)
{
	char hp[8][PATH_MAX], *holes[8];
	size_t nh = 0;
	struct seen s = { .n = 0 };

	for (; rel_holes[nh]; nh++) {
		snprintf(hp[nh], sizeof(hp[nh]), "%s/%s", dir, rel_holes[nh]);
		holes[nh] = hp[nh];
	}
	cr_assert_eq(landlock_expand(dir, holes, nh, record, &s), 0);
	qsort(s.lines, s.n, sizeof(s.lines[0]), cmp);
	size_t k = 0;
	for (; want[k]; k++) {
		cr_assert_lt(k, s.n, "missing rule %s", want[k]);
		cr_assert_str_eq(s.lines[k], want[k]);
	}
	cr_assert_eq(s.n, k, "one rule too many: %s", s.lines[k]);
}

Test(landlock_expand, no_hole_is_one_whole_rule)
{
	mk("a", true);
	expect((const char *[]){ NULL }, (const char *[]){ "W /", NULL });
}

Test(landlock_expand, hole_outside_the_root_is_ignored)
{
	struct seen s = { .n = 0 };
	char *holes[] = { "/etc/shadow", "/" };

	mk("a", true);
	/* "/" is above the root, not below it: the root is whole */
	cr_assert_eq(landlock_expand(dir, holes, 1, record, &s), 0);
	cr_assert_eq(s.n, 1);
	cr_assert_str_eq(s.lines[0], "W /");
}

Test(landlock_expand, hole_equal_to_the_root_leaves_nothing)
{
	struct seen s = { .n = 0 };
	char *holes[] = { dir };

	cr_assert_eq(landlock_expand(dir, holes, 1, record, &s), 0);
	cr_assert_eq(s.n, 0);
}

Test(landlock_expand, missing_root_gives_nothing)
{
	struct seen s = { .n = 0 };
	char root[PATH_MAX];

	snprintf(root, sizeof(root), "%s/none", dir);
	cr_assert_eq(landlock_expand(root, NULL, 0, record, &s), 0);
	cr_assert_eq(s.n, 0);
}

/* ~/.ssh denied in HOME: HOME on the way, every other entry whole */
Test(landlock_expand, siblings_of_a_hole_are_whole)
{
	mk(".ssh", true);
	mk(".ssh/id_ed25519", false);
	mk(".bashrc", false);
	mk("proj", true);
	mk("proj/x", false);
	expect((const char *[]){ ".ssh", NULL },
	       (const char *[]){ "W /.bashrc", "W /proj", "~ /", NULL });
}

/* A deep hole: every directory on the way, the siblings at each level */
Test(landlock_expand, siblings_all_the_way_down)
{
	mk("w", true);
	mk("w/.git", true);
	mk("w/.git/hooks", true);
	mk("w/.git/objects", true);
	mk("w/.git/config", false);
	mk("w/.git/HEAD", false);
	mk("w/src", true);
	mk("top", false);
	expect((const char *[]){ "w/.git/hooks", "w/.git/config", NULL },
	       (const char *[]){ "W /top", "W /w/.git/HEAD", "W /w/.git/objects", "W /w/src",
				 "~ /", "~ /w", "~ /w/.git", NULL });
}

/* A missing hole still keeps its parent on the way: the name cannot be
 * made there */
Test(landlock_expand, missing_hole_keeps_its_parent_on_the_way)
{
	mk("a", true);
	mk("b", false);
	expect((const char *[]){ "a/.vscode", NULL },
	       (const char *[]){ "W /b", "~ /", "~ /a", NULL });
}

/* A link gets no rule (where it leads has its own), whole or on the way */
Test(landlock_expand, links_get_no_rule)
{
	char p[PATH_MAX];

	mk("d", true);
	mk("h", true);
	snprintf(p, sizeof(p), "%s/up", dir);
	cr_assert_eq(symlink("/", p), 0);
	snprintf(p, sizeof(p), "%s/d/etc", dir);
	cr_assert_eq(symlink("/etc", p), 0);
	expect((const char *[]){ "h", "d/x", NULL },
	       (const char *[]){ "~ /", "~ /d", NULL });
}

/* A link where the way to a hole should be a directory: swapped in after
 * the plan, so the expansion stops (fail closed) */
Test(landlock_expand, link_on_the_way_stops)
{
	char p[PATH_MAX], *holes[1];
	struct seen s = { .n = 0 };

	snprintf(p, sizeof(p), "%s/w", dir);
	cr_assert_eq(symlink("/etc", p), 0);
	snprintf(p, sizeof(p), "%s/w/passwd", dir);
	holes[0] = p;
	cr_assert_eq(landlock_expand(dir, holes, 1, record, &s), -ELOOP);
}

/* Names sharing a prefix with a hole are not on its way */
Test(landlock_expand, prefix_is_not_the_way)
{
	mk("ab", true);
	mk("a", true);
	mk("a/b", true);
	mk("a/c", true);
	expect((const char *[]){ "a/b", NULL },
	       (const char *[]){ "W /a/c", "W /ab", "~ /", "~ /a", NULL });
}

/* The plan's operations become the spec */
Test(landlock_expand, spec_from_plan)
{
	struct plan pl = { 0 };
	struct landlock_spec s;
	const char *argv[] = { "bwrap", "--ro-bind", "/", "/", "--tmpfs", "/tmp", "--bind", "/", "/", "--",
			       "sbx-init", "--unix=block", "--rw=/w", "--dev", "--proc",
			       "--mask-dir=/h/.ssh", "--mask-dir-x=/h/.aws", "--unmask=/h/.aws/config",
			       "--unmask-rw=/h/.aws/cache", "--pin=/w/.git", "--ro=/w/.git/hooks",
			       "--ro-new=/h/.bashrc", "--ro-link=/w/l", "--mask-file=/h/k", "--",
			       "true", NULL };

	for (size_t i = 0; argv[i]; i++)
		cr_assert_eq(strv_add(&pl.argv, argv[i]), 0);
	pl.init_at = 10;
	pl.cmd_at = 25;
	cr_assert_eq(landlock_spec_from_plan(&pl, &s), 0);
	cr_assert_eq(s.read_deny.n, 3);
	cr_assert_str_eq(s.read_deny.v[0], "/h/.ssh");
	cr_assert_str_eq(s.read_deny.v[1], "/h/.aws");
	cr_assert_str_eq(s.read_deny.v[2], "/h/k");
	cr_assert_eq(s.read_allow.n, 2);
	cr_assert_str_eq(s.read_allow.v[1], "/h/.aws/cache");
	cr_assert_eq(s.write_deny.n, 3);
	cr_assert_str_eq(s.write_deny.v[2], "/w/l");
	/* /tmp (bubblewrap's tmpfs), its bind of `/`, the devices, then
	 * sbx-init's roots */
	cr_assert_str_eq(s.write_roots.v[0], "/tmp");
	cr_assert_str_eq(s.write_roots.v[1], "/");
	cr_assert_str_eq(s.write_roots.v[s.write_roots.n - 2], "/w");
	cr_assert_str_eq(s.write_roots.v[s.write_roots.n - 1], "/h/.aws/cache");
	landlock_spec_free(&s);
	strv_free(&pl.argv);
}

/* The nested mode's /dev is an allow-list: the nodes every program uses
 * are written (and so read), and every other entry of the host's /dev is
 * a hole, the person's terminals in /dev/pts among them; nothing kept is
 * below or above a hole. */
Test(landlock_expand, dev_is_an_allow_list)
{
	struct landlock_spec s = { 0 };
	bool null = false;

	cr_assert_eq(landlock_spec_dev(&s, NULL), 0);
	for (size_t i = 0; i < s.write_roots.n; i++) {
		null |= !strcmp(s.write_roots.v[i], "/dev/null");
		cr_assert(sbx_path_under(s.write_roots.v[i], "/dev"), "%s", s.write_roots.v[i]);
		for (size_t k = 0; k < s.read_deny.n; k++)
			cr_assert(!sbx_path_under(s.write_roots.v[i], s.read_deny.v[k]) &&
				  !sbx_path_under(s.read_deny.v[k], s.write_roots.v[i]),
				  "%s and %s", s.write_roots.v[i], s.read_deny.v[k]);
	}
	cr_assert(null);
	for (size_t k = 0; k < s.read_deny.n; k++)
		cr_assert(sbx_path_under(s.read_deny.v[k], "/dev"), "%s", s.read_deny.v[k]);
	/* no terminal named: none of /dev/pts is kept */
	struct stat st;
	if (!lstat("/dev/pts/0", &st)) {
		bool hidden = false;
		for (size_t k = 0; k < s.read_deny.n; k++)
			hidden |= sbx_path_under("/dev/pts/0", s.read_deny.v[k]);
		cr_assert(hidden);
	}
	landlock_spec_free(&s);
}
