/* tests/unit/helpers.h: build policies from INI text for the policy tests.
 *
 * Every policy is compiled against one fixed, fake context: HOME is /home/u,
 * the current directory (so the default workspace) is /w. Neither exists on
 * the test machine on purpose: the compiler resolves symlinks only where a
 * path exists, so fake roots keep the patterns exactly as the tests expect.
 *
 * Helpers assert: a policy that should compile but does not fails the test
 * with the error message, so tests only state what they check.
 */
#ifndef SBX_TEST_HELPERS_H
#define SBX_TEST_HELPERS_H

#include <string.h>

#include <criterion/criterion.h>

#include "policy/policy.h"

#define TEST_HOME "/home/u"
#define TEST_CWD "/w"
#define TEST_SESSION_DIR "/home/u/.local/state/sbx/sessions/t-1"
#define TEST_DISPLAY "test.ini"            /* the user layer */
#define TEST_PROJECT_DISPLAY "project.ini" /* the project layer */

extern const struct policy_ctx test_ctx;

/* A builder with the defaults and, unless ini is NULL, `ini` loaded as the
 * user layer under the name test.ini. */
struct policy_builder *builder_ini(const char *ini);
/* Load `ini` as the project layer (project.ini) into b; asserts success. */
void builder_load_project(struct policy_builder *b, const char *ini);
/* policy_builder_set, asserting success. */
void builder_set(struct policy_builder *b, const char *section,
		 const char *key, const char *value, enum sbx_origin origin,
		 const char *source);
/* Compile (consumes b), asserting success. */
struct policy *compile_builder(struct policy_builder *b);

struct policy *compile_ini(const char *ini);
struct policy *compile_ini_project(const char *user_ini, const char *project_ini);

/* The error message of a configuration that must fail to load or compile;
 * the test fails if it is accepted. The text lives until the next call. */
const char *compile_ini_error(const char *ini);
const char *compile_project_error(const char *user_ini, const char *project_ini);
/* Same, for a builder already set up (consumed). */
const char *compile_builder_error(struct policy_builder *b);

/* The decision alone. */
enum sbx_verdict check(const struct policy *p, enum sbx_op op, const char *path);
/* The decision, asserting it, and the deciding rule. */
const struct sbx_rule *check_why(const struct policy *p, enum sbx_op op,
				 const char *path, enum sbx_verdict expect);

/* The rule of `kind` whose value (as written) is `value`, or NULL. */
const struct sbx_rule *find_rule(const struct policy *p, enum sbx_rule_kind kind,
				 const char *value);

/* A fresh directory under $TMPDIR (or /tmp), removed by remove_tree(). */
char *make_tmpdir(void);
void write_file(const char *path, const char *text);
/* The whole file, NUL-terminated ("" when it cannot be opened); free() it. */
char *slurp(const char *path);
/* How many times needle occurs in hay (overlapping ones too). */
size_t str_count(const char *hay, const char *needle);
void remove_tree(const char *path);
/* root/rel and every missing directory on the way (mkdir -p) */
void make_dirs(const char *root, const char *rel);

#define assert_contains(hay, needle)                                          \
	cr_assert(strstr((hay), (needle)) != NULL,                            \
		  "expected \"%s\" to contain \"%s\"", (hay), (needle))

#define assert_not_contains(hay, needle)                                      \
	cr_assert(strstr((hay), (needle)) == NULL,                            \
		  "expected \"%s\" not to contain \"%s\"", (hay), (needle))

#define VERDICT_NAME(v) ((v) == SBX_ALLOW ? "allow" : "deny")

#define assert_verdict(p, op, path, expect)                                   \
	do {                                                                  \
		enum sbx_verdict got_ = check((p), (op), (path));             \
		cr_assert_eq(got_, (expect), "%s %s: got %s, expected %s",    \
			     sbx_op_name(op), (path), VERDICT_NAME(got_),     \
			     VERDICT_NAME(expect));                           \
	} while (0)

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
