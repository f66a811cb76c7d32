/* tests/unit/helpers.c: see helpers.h. */
#include <errno.h>
#include <limits.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/unit/helpers.h"

const struct policy_ctx test_ctx = {
	.home = TEST_HOME,
	.cwd = TEST_CWD,
	.session_dir = TEST_SESSION_DIR,
};

static struct sbx_err last_err;

struct policy_builder *builder_ini(const char *ini)
{
	struct policy_builder *b = NULL;
	struct sbx_err err = { .msg = "" };
	int rc;

	rc = policy_builder_new(&test_ctx, &b);
	cr_assert_eq(rc, 0, "policy_builder_new: %d", rc);
	cr_assert_not_null(b);
	if (ini) {
		rc = policy_builder_load_string(b, ini, TEST_DISPLAY,
						POLICY_LAYER_USER, &err);
		cr_assert_eq(rc, 0, "loading test.ini failed (%d): %s\n--- test.ini ---\n%s",
			     rc, err.msg, ini);
	}
	return b;
}

void builder_load_project(struct policy_builder *b, const char *ini)
{
	struct sbx_err err = { .msg = "" };
	int rc = policy_builder_load_string(b, ini, TEST_PROJECT_DISPLAY,
					    POLICY_LAYER_PROJECT, &err);

	cr_assert_eq(rc, 0, "loading project.ini failed (%d): %s\n--- project.ini ---\n%s",
		     rc, err.msg, ini);
}

void builder_set(struct policy_builder *b, const char *section,
		 const char *key, const char *value, enum sbx_origin origin,
		 const char *source)
{
	struct sbx_err err = { .msg = "" };
	int rc = policy_builder_set(b, section, key, value, origin, source, &err);

	cr_assert_eq(rc, 0, "policy_builder_set(%s, %s, %s) failed (%d): %s",
		     section, key, value, rc, err.msg);
}

struct policy *compile_builder(struct policy_builder *b)
{
	struct policy *p = NULL;
	struct sbx_err err = { .msg = "" };
	int rc = policy_compile(b, &p, &err);

	cr_assert_eq(rc, 0, "policy_compile failed (%d): %s", rc, err.msg);
	cr_assert_not_null(p);
	return p;
}

struct policy *compile_ini(const char *ini)
{
	return compile_builder(builder_ini(ini));
}

struct policy *compile_ini_project(const char *user_ini, const char *project_ini)
{
	struct policy_builder *b = builder_ini(user_ini);

	builder_load_project(b, project_ini);
	return compile_builder(b);
}

const char *compile_builder_error(struct policy_builder *b)
{
	struct policy *p = NULL;
	int rc;

	memset(&last_err, 0, sizeof(last_err));
	rc = policy_compile(b, &p, &last_err);
	cr_assert_neq(rc, 0, "policy_compile accepted a configuration it should refuse");
	cr_assert_null(p);
	cr_assert_neq(last_err.msg[0], '\0', "policy_compile failed (%d) without a message", rc);
	return last_err.msg;
}

/* A configuration may be refused while loading (syntax, values) or while
 * compiling (combinations); either is fine, but something must refuse it. */
static const char *load_error(struct policy_builder *b, const char *ini,
			      const char *display, enum policy_layer layer)
{
	int rc;

	memset(&last_err, 0, sizeof(last_err));
	rc = policy_builder_load_string(b, ini, display, layer, &last_err);
	if (rc == 0)
		return NULL;
	cr_assert_eq(rc, -EINVAL, "a bad %s is -EINVAL, got %d", display, rc);
	cr_assert_neq(last_err.msg[0], '\0', "loading %s failed without a message", display);
	policy_builder_free(b);
	return last_err.msg;
}

const char *compile_ini_error(const char *ini)
{
	struct policy_builder *b = builder_ini(NULL);
	const char *msg = load_error(b, ini, TEST_DISPLAY, POLICY_LAYER_USER);

	return msg ? msg : compile_builder_error(b);
}

const char *compile_project_error(const char *user_ini, const char *project_ini)
{
	struct policy_builder *b = builder_ini(user_ini);
	const char *msg = load_error(b, project_ini, TEST_PROJECT_DISPLAY,
				     POLICY_LAYER_PROJECT);

	return msg ? msg : compile_builder_error(b);
}

enum sbx_verdict check(const struct policy *p, enum sbx_op op, const char *path)
{
	return policy_check_path(p, op, path, NULL);
}

const struct sbx_rule *check_why(const struct policy *p, enum sbx_op op,
				 const char *path, enum sbx_verdict expect)
{
	/* Not NULL: a test that expects "no rule" must see the query say so. */
	static const struct sbx_rule unset = { .value = "(why not set)", .source = "-" };
	const struct sbx_rule *why = &unset;
	enum sbx_verdict got = policy_check_path(p, op, path, &why);

	cr_assert_neq(why, &unset, "%s %s: *why left unset", sbx_op_name(op), path);

	cr_assert_eq(got, expect, "%s %s: got %s, expected %s (rule: %s from %s)",
		     sbx_op_name(op), path, VERDICT_NAME(got), VERDICT_NAME(expect),
		     why ? why->value : "none", why ? why->source : "-");
	return why;
}

const struct sbx_rule *find_rule(const struct policy *p, enum sbx_rule_kind kind,
				 const char *value)
{
	size_t n = 0;
	const struct sbx_rule *const *rules = policy_rules(p, kind, &n);

	for (size_t i = 0; i < n; i++)
		if (strcmp(rules[i]->value, value) == 0)
			return rules[i];
	return NULL;
}

char *make_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *path = NULL;

	if (!base || !*base)
		base = "/tmp";
	cr_assert_gt(asprintf(&path, "%s/sbx-unit-XXXXXX", base), 0);
	cr_assert_not_null(mkdtemp(path), "mkdtemp %s: %s", path, strerror(errno));
	/* The compiler resolves symlinks of existing paths: hand the tests the
	 * real path so patterns compare equal. */
	char *real = realpath(path, NULL);
	cr_assert_not_null(real);
	free(path);
	return real;
}

void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "fopen %s: %s", path, strerror(errno));
	cr_assert_eq(fputs(text, f) >= 0, 1);
	cr_assert_eq(fclose(f), 0);
}

char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	int c;

	if (!f)
		return strdup("");
	FILE *m = open_memstream(&buf, &len);
	while ((c = fgetc(f)) != EOF)
		fputc(c, m);
	fclose(m);
	fclose(f);
	return buf;
}

size_t str_count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *q = strstr(hay, needle); q; q = strstr(q + 1, needle))
		n++;
	return n;
}

static int remove_one(const char *path, const struct stat *st, int type,
		      struct FTW *ftw)
{
	remove(path);
	return 0;
}

void remove_tree(const char *path)
{
	nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

void make_dirs(const char *root, const char *rel)
{
	char path[PATH_MAX];
	int n = snprintf(path, sizeof(path), "%s/%s", root, rel);

	cr_assert(n > 0 && (size_t)n < sizeof(path), "path too long: %s/%s", root, rel);
	for (char *p = path + strlen(root) + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;
		*p = '\0';
		cr_assert(mkdir(path, 0700) == 0 || errno == EEXIST, "mkdir %s: %s", path,
			  strerror(errno));
		if (!c)
			break;
		*p = c;
	}
}
