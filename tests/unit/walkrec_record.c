/* The walk's record (preload/walkrec.c): a directory is replayed only
 * while its identity and ctime are as recorded; a record that is damaged,
 * of another format, made for another policy, or not the user's own file
 * is not used at all; a directory changed just before the walk is not
 * recorded. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tests/unit/helpers.h"
#include "preload/walkrec.h"

static char dir[PATH_MAX], state[PATH_MAX + 16], tree[PATH_MAX + 16];
static struct policy *pol;
static struct timespec later; /* a walk well after the tree was made */

static void setup(void)
{
	char real[PATH_MAX];

	snprintf(dir, sizeof(dir), "/var/tmp/sbx-unit-wr.XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_not_null(realpath(dir, real));
	memcpy(dir, real, strlen(real) + 1);
	snprintf(state, sizeof(state), "%s/state", dir);
	snprintf(tree, sizeof(tree), "%s/tree", dir);
	cr_assert_eq(mkdir(state, 0700), 0);
	cr_assert_eq(mkdir(tree, 0700), 0);
	pol = compile_ini(NULL);
	clock_gettime(CLOCK_REALTIME, &later);
	later.tv_sec += 60;
}

static void teardown(void)
{
	char cmd[PATH_MAX + 32];
	policy_free(pol);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	cr_assert_eq(system(cmd), 0);
}

/* A record of `tree` (an entry `a`, a directory, and `.env`) saved in the
 * state directory; its bytes in *buf when asked. */
static size_t make_record(unsigned char **buf)
{
	struct walkrec *r;
	struct stat st;
	char why[PATH_MAX + 256];
	int sfd = open(state, O_RDONLY | O_DIRECTORY);

	cr_assert_geq(sfd, 0);
	cr_assert_eq(walkrec_open(sfd, state, pol, "w", &later, &r, why, sizeof(why)), 0);
	cr_assert_eq(lstat(tree, &st), 0);
	cr_assert_eq(walkrec_begin(r, tree, 0, &st, WALKREC_LISTED), 0);
	cr_assert_eq(walkrec_entry(r, "a", DT_DIR), 0);
	cr_assert_eq(walkrec_entry(r, ".env", DT_REG), 0);
	walkrec_end(r, true);
	cr_assert_eq(walkrec_save(r, sfd, state, why, sizeof(why)), 0, "%s", why);
	walkrec_free(r);
	close(sfd);
	if (!buf)
		return 0;
	char path[PATH_MAX * 2];
	DIR *d;
	struct dirent *e;
	snprintf(path, sizeof(path), "%s/walk", state);
	cr_assert_not_null(d = opendir(path));
	while ((e = readdir(d)) && e->d_name[0] == '.')
		;
	cr_assert_not_null(e);
	snprintf(path, sizeof(path), "%s/walk/%s", state, e->d_name);
	closedir(d);
	FILE *f = fopen(path, "rb");
	cr_assert_not_null(f);
	*buf = malloc(1 << 20);
	size_t n = fread(*buf, 1, 1 << 20, f);
	fclose(f);
	return n;
}

/* The record at its place, read back: the tree found or not, and why. */
static const struct walkrec_dir *read_back(struct walkrec **r, char *why, size_t whysz)
{
	struct stat st;
	int sfd = open(state, O_RDONLY | O_DIRECTORY);

	cr_assert_eq(walkrec_open(sfd, state, pol, "w", &later, r, why, whysz), 0);
	close(sfd);
	cr_assert_eq(lstat(tree, &st), 0);
	return walkrec_find(*r, tree, 0, &st);
}

TestSuite(walkrec_record, .init = setup, .fini = teardown);

Test(walkrec_record, unchanged_directory_replays_what_mattered)
{
	struct walkrec *r;
	char why[PATH_MAX + 256];
	const char *name;
	unsigned char type;
	size_t at = 0;

	make_record(NULL);
	const struct walkrec_dir *d = read_back(&r, why, sizeof(why));
	cr_assert_not_null(d, "%s", why);
	cr_assert_eq(walkrec_dir_flags(d), WALKREC_LISTED);
	cr_assert(walkrec_dir_entry(d, &at, &name, &type));
	cr_assert_str_eq(name, "a");
	cr_assert_eq(type, DT_DIR);
	cr_assert(walkrec_dir_entry(d, &at, &name, &type));
	cr_assert_str_eq(name, ".env");
	cr_assert_not(walkrec_dir_entry(d, &at, &name, &type));
	walkrec_free(r);
}

Test(walkrec_record, directory_whose_ctime_moved_is_read_again)
{
	struct walkrec *r;
	char why[PATH_MAX + 256], sub[PATH_MAX * 2];

	make_record(NULL);
	snprintf(sub, sizeof(sub), "%s/.pem", tree);
	cr_assert_eq(mkdir(sub, 0700), 0);
	cr_assert_null(read_back(&r, why, sizeof(why)));
	walkrec_free(r);
}

Test(walkrec_record, same_path_at_another_depth_is_read_again)
{
	struct walkrec *r;
	struct stat st;
	char why[PATH_MAX + 256];

	make_record(NULL);
	cr_assert_not_null(read_back(&r, why, sizeof(why)));
	cr_assert_eq(lstat(tree, &st), 0);
	cr_assert_null(walkrec_find(r, tree, 1, &st));
	walkrec_free(r);
}

Test(walkrec_record, directory_changed_just_before_the_walk_is_not_recorded)
{
	struct walkrec *r;
	struct stat st;
	struct timespec now;
	char why[PATH_MAX + 256], path[PATH_MAX * 2];
	int sfd = open(state, O_RDONLY | O_DIRECTORY);

	clock_gettime(CLOCK_REALTIME, &now);
	cr_assert_eq(walkrec_open(sfd, state, pol, "w", &now, &r, why, sizeof(why)), 0);
	cr_assert_eq(lstat(tree, &st), 0);
	cr_assert_eq(walkrec_begin(r, tree, 0, &st, WALKREC_LISTED), 0);
	walkrec_end(r, true);
	cr_assert_eq(walkrec_save(r, sfd, state, why, sizeof(why)), 0);
	walkrec_free(r);
	close(sfd);
	/* nothing to save: no file made */
	snprintf(path, sizeof(path), "%s/walk", state);
	cr_assert_neq(access(path, F_OK), 0);
}

Test(walkrec_record, every_damaged_byte_makes_the_record_ignored)
{
	unsigned char *buf;
	size_t n = make_record(&buf);
	struct stat st;
	char why[PATH_MAX + 256];

	cr_assert_eq(lstat(tree, &st), 0);
	for (size_t i = 0; i < n; i++) {
		struct walkrec *r;
		buf[i] ^= 0x20;
		cr_assert_eq(walkrec_open_buf(buf, n, pol, "w", &later, &r, why, sizeof(why)), 0);
		cr_assert_null(walkrec_find(r, tree, 0, &st), "byte %zu changed, record used", i);
		cr_assert_neq(why[0], '\0');
		walkrec_free(r);
		buf[i] ^= 0x20;
	}
	free(buf);
}

Test(walkrec_record, cut_short_record_is_ignored)
{
	unsigned char *buf;
	size_t n = make_record(&buf);
	struct stat st;
	char why[PATH_MAX + 256];

	cr_assert_eq(lstat(tree, &st), 0);
	for (size_t len = 0; len < n; len += 7) {
		struct walkrec *r;
		cr_assert_eq(walkrec_open_buf(buf, len, pol, "w", &later, &r, why, sizeof(why)), 0);
		cr_assert_null(walkrec_find(r, tree, 0, &st));
		walkrec_free(r);
	}
	free(buf);
}

Test(walkrec_record, record_of_an_older_format_is_ignored)
{
	unsigned char *buf;
	size_t n = make_record(&buf);
	struct walkrec *r;
	struct stat st;
	char why[PATH_MAX + 256];
	uint32_t old = WALKREC_VERSION - 1;

	memcpy(buf + 8, &old, 4);
	cr_assert_eq(walkrec_open_buf(buf, n, pol, "w", &later, &r, why, sizeof(why)), 0);
	cr_assert_eq(lstat(tree, &st), 0);
	cr_assert_null(walkrec_find(r, tree, 0, &st));
	cr_assert_str_eq(why, "a record of another format");
	walkrec_free(r);
	free(buf);
}

Test(walkrec_record, record_made_for_another_policy_is_ignored)
{
	unsigned char *buf;
	size_t n = make_record(&buf);
	struct policy *other = compile_ini("[filesystem]\ndeny_read = *.key\n");
	struct walkrec *r;
	struct stat st;
	char why[PATH_MAX + 256];

	cr_assert_eq(walkrec_open_buf(buf, n, other, "w", &later, &r, why, sizeof(why)), 0);
	cr_assert_eq(lstat(tree, &st), 0);
	cr_assert_null(walkrec_find(r, tree, 0, &st));
	cr_assert_str_eq(why, "made for another workspace or policy");
	walkrec_free(r);
	policy_free(other);
	free(buf);
}

Test(walkrec_record, record_of_another_walk_is_ignored)
{
	unsigned char *buf;
	size_t n = make_record(&buf);
	struct walkrec *r;
	struct stat st;
	char why[PATH_MAX + 256];

	cr_assert_eq(walkrec_open_buf(buf, n, pol, "w2", &later, &r, why, sizeof(why)), 0);
	cr_assert_eq(lstat(tree, &st), 0);
	cr_assert_null(walkrec_find(r, tree, 0, &st));
	cr_assert_str_eq(why, "made for another workspace or policy");
	walkrec_free(r);
	free(buf);
}

Test(walkrec_record, record_others_may_write_is_ignored)
{
	char path[PATH_MAX * 2], why[PATH_MAX + 256];
	struct walkrec *r;
	DIR *d;
	struct dirent *e;

	make_record(NULL);
	snprintf(path, sizeof(path), "%s/walk", state);
	cr_assert_not_null(d = opendir(path));
	while ((e = readdir(d)) && e->d_name[0] == '.')
		;
	snprintf(path, sizeof(path), "%s/walk/%s", state, e->d_name);
	closedir(d);
	cr_assert_eq(chmod(path, 0620), 0);
	cr_assert_null(read_back(&r, why, sizeof(why)));
	cr_assert(strstr(why, "only you may write"), "%s", why);
	walkrec_free(r);
	/* a second name for it (a hard link another could hold) */
	char other[PATH_MAX * 2];
	cr_assert_eq(chmod(path, 0600), 0);
	snprintf(other, sizeof(other), "%s/other", dir);
	cr_assert_eq(link(path, other), 0);
	cr_assert_null(read_back(&r, why, sizeof(why)));
	walkrec_free(r);
}

Test(walkrec_record, record_behind_a_link_is_ignored)
{
	char walk[PATH_MAX * 2], moved[PATH_MAX * 2], why[PATH_MAX + 256];
	struct walkrec *r;

	make_record(NULL);
	snprintf(walk, sizeof(walk), "%s/walk", state);
	snprintf(moved, sizeof(moved), "%s/elsewhere", dir);
	cr_assert_eq(rename(walk, moved), 0);
	cr_assert_eq(symlink(moved, walk), 0);
	cr_assert_null(read_back(&r, why, sizeof(why)));
	walkrec_free(r);
}
