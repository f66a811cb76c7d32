/* tests/unit/seatbelt_disk.c: what Linux's plan keeps read-only by looking
 * at the disk (preload/plan.c) is denied by macOS's Seatbelt profile too,
 * from the same walk (plan_guards() into seatbelt_opts.kept). Real
 * directories in a temporary directory; the profile decided by the SBPL
 * evaluator (sbpl.h), with and without what the disk says: the writes it
 * takes away are exactly those paths. */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <criterion/criterion.h>

#pragma GCC diagnostic ignored "-Wformat-truncation"

#include "backend/darwin/seatbelt.h"
#include "preload/preload.h"
#include "tests/unit/helpers.h"
#include "tests/unit/sbpl.h"

static char root[PATH_MAX], ws[PATH_MAX + 8];

static void put_file(const char *rel, const char *text)
{
	char p[PATH_MAX * 2], dir[PATH_MAX];
	snprintf(dir, sizeof(dir), "%s", rel);
	if (strrchr(dir, '/')) {
		*strrchr(dir, '/') = '\0';
		make_dirs(ws, dir);
	}
	snprintf(p, sizeof(p), "%s/%s", ws, rel);
	write_file(p, text);
}

static void dirs(const char *rel)
{
	make_dirs(ws, rel);
}

/* A git directory as git makes it: HEAD, objects/, refs/. */
static void gitdir(const char *rel, const char *config)
{
	char r[PATH_MAX];
	snprintf(r, sizeof(r), "%s/objects", rel);
	dirs(r);
	snprintf(r, sizeof(r), "%s/refs/heads", rel);
	dirs(r);
	snprintf(r, sizeof(r), "%s/hooks", rel);
	dirs(r);
	snprintf(r, sizeof(r), "%s/HEAD", rel);
	put_file(r, "ref: refs/heads/main\n");
	snprintf(r, sizeof(r), "%s/config", rel);
	put_file(r, config);
}

static struct policy *workspace(void)
{
	char *t = make_tmpdir(), home[PATH_MAX + 8], text[PATH_MAX * 3];

	snprintf(root, sizeof(root), "%s", t);
	free(t);
	snprintf(ws, sizeof(ws), "%s/ws", root);
	snprintf(home, sizeof(home), "%s/home", root);
	make_dirs(root, "ws");
	make_dirs(root, "home");
	/* a repository whose core.hooksPath is in the work tree */
	gitdir("app/.git", "[core]\n\tbare = false\n\thooksPath = .githooks\n");
	put_file("app/.githooks/pre-commit", "#!/bin/sh\n");
	put_file("app/src.c", "int x;\n");
	/* a bare repository (no `.git` in its name) */
	gitdir("bare.git", "[core]\n\tbare = true\n");
	/* a linked worktree of app */
	dirs("app/.git/worktrees/wt");
	put_file("app/.git/worktrees/wt/HEAD", "ref: refs/heads/wt\n");
	put_file("app/.git/worktrees/wt/commondir", "../..\n");
	snprintf(text, sizeof(text), "%s/wt/.git\n", ws);
	put_file("app/.git/worktrees/wt/gitdir", text);
	snprintf(text, sizeof(text), "gitdir: %s/app/.git/worktrees/wt\n", ws);
	put_file("wt/.git", text);
	put_file("wt/src.c", "int y;\n");
	/* a hooks path of regex metacharacters and a quote */
	gitdir("meta/.git", "[core]\n\thooksPath = \"we'ird [h]o(o)k*s.d+$\"\n");
	dirs("meta/we'ird [h]o(o)k*s.d+$");
	/* a hooks path that is a link */
	gitdir("sym/.git", "[core]\n\thooksPath = .hooks-link\n");
	dirs("sym/real-hooks");
	char l[PATH_MAX * 2];
	snprintf(l, sizeof(l), "%s/sym/.hooks-link", ws);
	cr_assert_eq(symlink("real-hooks", l), 0);

	struct policy_ctx ctx = { .home = home, .cwd = ws };
	struct policy_builder *b = NULL;
	struct policy *p = NULL;
	struct sbx_err err = { .msg = "" };
	cr_assert_eq(policy_builder_new(&ctx, &b), 0);
	cr_assert_eq(policy_compile(b, &p, &err), 0, "%s", err.msg);
	return p;
}

static void profile(const struct policy *p, const struct plan *pl, struct seatbelt_profile *sp)
{
	struct seatbelt_opts so = { .run_id = "t-1", .http_port = 3128, .socks_port = 1080 };
	char err[512] = "";

	if (pl) {
		so.kept = pl->guarded.v;
		so.nkept = pl->guarded.n;
		so.pinned = pl->pinned.v;
		so.npinned = pl->pinned.n;
	}
	cr_assert_eq(seatbelt_compile(p, &so, sp, err, sizeof(err)), 0, "%s", err);
}

static bool writes(const struct prof *pr, const char *rel)
{
	char path[PATH_MAX * 2], canon[PATH_MAX * 2 + 16];

	/* as the kernel names it: /tmp is /private/tmp on a Mac */
	snprintf(path, sizeof(path), "%s/%s", ws, rel);
	cr_assert_eq(seatbelt_canonical(path, canon, sizeof(canon)), 0);
	snprintf(path, sizeof(path), "%s", canon);
	sbpl_path_gen++;
	return prof_allows(pr, "file-write-create", path) ||
	       prof_allows(pr, "file-write-data", path) ||
	       prof_allows(pr, "file-write-unlink", path);
}

/* Every path of the tree, and a new name in each directory. */
static char **tree;
static size_t ntree;
static int each(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	tree = realloc(tree, (ntree + 2) * sizeof(*tree));
	tree[ntree++] = strdup(path);
	if (flag == FTW_D)
		cr_assert_gt(asprintf(&tree[ntree++], "%s/new-file", path), 0);
	return 0;
}

/* What the disk says must stay unwritten. */
static const char *const kept[] = {
	"app/.githooks", "app/.githooks/pre-commit", "app/.githooks/post-checkout",
	"bare.git/hooks", "bare.git/hooks/pre-receive", "bare.git/config",
	"wt/.git", "app/.git/worktrees/wt/gitdir", "app/.git/worktrees/wt/config",
	"app/.git/worktrees/wt/commondir",
	"app/.git/worktrees/wt/hooks/post-checkout",
	"meta/we'ird [h]o(o)k*s.d+$", "meta/we'ird [h]o(o)k*s.d+$/pre-commit",
	"sym/.hooks-link", "sym/real-hooks", "sym/real-hooks/pre-commit",
};
/* ... the directories on the way, kept where they are (a rename and back
 * would bring a changed copy under the kept name) ... */
static const char *const pinned[] = {
	"app", "bare.git", "wt", "meta", "sym", "app/.git", "meta/.git", "sym/.git",
	"app/.git/worktrees", "app/.git/worktrees/wt",
};
/* ... and what stays writable beside it. */
static const char *const open_[] = {
	"app/src.c", "app/new.c", "wt/src.c", "bare.git/objects/ab", "bare.git/refs/heads/x",
	"app/.githooks2", "meta/weXird [h]o(o)k*sXd+$", "meta/we'ird [h]o(o)ks.d+$",
	"sym/real-hooks2", "sym/new",
};

Test(seatbelt_disk, the_profile_denies_what_the_disk_says_and_nothing_else)
{
	struct policy *p = workspace();
	struct plan pl;
	char *env[] = { NULL };
	struct plan_in in = { .policy = p, .environ = env, .cwd = ws, .ctl_fd = -1,
			      .make_placeholders = true, .notify = true };
	struct seatbelt_profile with, without;
	struct prof pw, po;

	cr_assert_eq(plan_guards(&in, &pl), 0);
	profile(p, &pl, &with);
	profile(p, NULL, &without);
	prof_load(&pw, &with);
	prof_load(&po, &without);

	for (size_t i = 0; i < sizeof(kept) / sizeof(*kept); i++) {
		cr_expect(writes(&po, kept[i]), "no rule names %s: the test needs one only the "
			  "disk says", kept[i]);
		cr_expect(!writes(&pw, kept[i]), "%s is writable under the profile", kept[i]);
	}
	for (size_t i = 0; i < sizeof(pinned) / sizeof(*pinned); i++) {
		cr_expect(writes(&po, pinned[i]), "%s: a rule names it", pinned[i]);
		cr_expect(!writes(&pw, pinned[i]), "%s may be renamed or removed", pinned[i]);
	}
	for (size_t i = 0; i < sizeof(open_) / sizeof(*open_); i++)
		cr_expect(writes(&pw, open_[i]), "%s is not writable under the profile", open_[i]);

	/* nothing else of the tree is taken away */
	ntree = 0;
	cr_assert_eq(nftw(ws, each, 16, FTW_PHYS), 0);
	for (size_t i = 0; i < ntree; i++) {
		const char *rel = tree[i] + strlen(ws) + (tree[i][strlen(ws)] == '/');
		bool expected = false;
		for (size_t k = 0; k < sizeof(kept) / sizeof(*kept); k++)
			expected |= !strncmp(rel, kept[k], strlen(kept[k])) &&
				    (!rel[strlen(kept[k])] || rel[strlen(kept[k])] == '/');
		for (size_t k = 0; k < sizeof(pinned) / sizeof(*pinned); k++)
			expected |= !strcmp(rel, pinned[k]);
		bool lost = writes(&po, rel) && !writes(&pw, rel);
		cr_expect(!lost || expected, "%s: the disk's list takes away a write no repository "
			  "asks for", tree[i]);
		free(tree[i]);
	}
	free(tree);
	tree = NULL;

	/* every path a parameter, none spliced into the text */
	assert_not_contains(with.text, "we'ird");
	assert_not_contains(with.text, root);
	prof_free(&pw);
	prof_free(&po);
	seatbelt_profile_free(&with);
	seatbelt_profile_free(&without);
	plan_free(&pl);
	policy_free(p);
	remove_tree(root);
}

/* What a deny_read takes is looked after as Linux's mounts look after it
 * (plan.c, mask_path): its way pinned (`mv config cfg` would take
 * config/creds.json from its name, and the profile's rule with it), and
 * below a child it re-allows for writing, what the disk says is kept as
 * anywhere else (a repository's hooks path there). */
Test(seatbelt_disk, a_read_deny_keeps_its_way_and_its_writable_childrens_repositories)
{
	char home[PATH_MAX + 8], v[3][PATH_MAX * 2];
	char *t = make_tmpdir();

	snprintf(root, sizeof(root), "%s", t);
	free(t);
	snprintf(ws, sizeof(ws), "%s/ws", root);
	snprintf(home, sizeof(home), "%s/home", root);
	make_dirs(root, "ws");
	make_dirs(root, "home");
	put_file("config/creds.json", "{}\n");
	put_file("secret/key", "k\n");
	gitdir("secret/pub/r/.git", "[core]\n\thooksPath = .githooks\n");
	put_file("secret/pub/r/.githooks/pre-commit", "#!/bin/sh\n");

	struct policy_ctx ctx = { .home = home, .cwd = ws };
	struct policy_builder *b = NULL;
	struct policy *p = NULL;
	struct sbx_err err = { .msg = "" };
	cr_assert_eq(policy_builder_new(&ctx, &b), 0);
	snprintf(v[0], sizeof(v[0]), "%s/config/creds.json,%s/secret", ws, ws);
	snprintf(v[1], sizeof(v[1]), "%s/secret/pub", ws);
	cr_assert_eq(policy_builder_set(b, "filesystem", "deny_read", v[0], SBX_ORIGIN_FLAG,
					"--deny-read", &err), 0, "%s", err.msg);
	cr_assert_eq(policy_builder_set(b, "filesystem", "allow_read", v[1], SBX_ORIGIN_FLAG,
					"--allow-read", &err), 0, "%s", err.msg);
	cr_assert_eq(policy_builder_set(b, "filesystem", "allow_write", v[1], SBX_ORIGIN_FLAG,
					"--allow-write", &err), 0, "%s", err.msg);
	cr_assert_eq(policy_compile(b, &p, &err), 0, "%s", err.msg);

	struct plan pl;
	char *env[] = { NULL };
	struct plan_in in = { .policy = p, .environ = env, .cwd = ws, .ctl_fd = -1,
			      .make_placeholders = true, .notify = true };
	struct seatbelt_profile with, without;
	struct prof pw, po;
	cr_assert_eq(plan_guards(&in, &pl), 0);
	profile(p, &pl, &with);
	profile(p, NULL, &without);
	prof_load(&pw, &with);
	prof_load(&po, &without);
	static const char *const taken[] = { "config", "secret/pub/r/.githooks",
					     "secret/pub/r/.githooks/pre-commit" };
	for (size_t i = 0; i < sizeof(taken) / sizeof(*taken); i++) {
		cr_expect(writes(&po, taken[i]), "%s: a rule names it already", taken[i]);
		cr_expect(!writes(&pw, taken[i]), "%s is writable under the profile", taken[i]);
	}
	cr_expect(writes(&pw, "config/new.json"), "the way's directory itself only is kept");
	cr_expect(writes(&pw, "secret/pub/r/src.c"), "the repository's files stay writable");
	prof_free(&pw);
	prof_free(&po);
	seatbelt_profile_free(&with);
	seatbelt_profile_free(&without);
	plan_free(&pl);
	policy_free(p);
	remove_tree(root);
}
