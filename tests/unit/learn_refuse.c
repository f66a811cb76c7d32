/* preload/learn.c: what --learn never writes, whatever the run reported.
 * The paths below are the real paths learn.c has resolved; HOME is the
 * helpers' fake /home/u (it does not exist, so nothing resolves). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/helpers.h"
#include "preload/preload.h"

struct refuse_case {
	const char *path;
	const char *why; /* a part of the reason, or NULL: may be learned */
};

ParameterizedTestParameters(learn_refuse, allow_write_values)
{
	static struct refuse_case cases[] = {
		{ "/home/u", "it is HOME" },
		{ "/home", "above HOME" },
		{ "/", "above HOME" },
		{ "/usr", "top-level" },
		{ "/home/u/.ssh", "deny_read = ~/.ssh" },
		{ "/home/u/.ssh/authorized_keys", "deny_read = ~/.ssh" },
		{ "/home/u/.bashrc", "protects it" },
		{ "/home/u/proj/.git/hooks", "protects it" },
		{ "/home/u/.local/state/sbx", "protects it" },
		{ "/home/u/.local/state/sbx/learned/x.ini", "protects it" },
		{ "/home/u/.config/sbx/sandbox.ini", "protects it" },
		{ "/home/u/a;b", "comment" },
		{ "/home/u/a#b", "comment" },
		{ "/home/u/a,b", "`,`" },
		{ "/home/u/100%", "`,`" },
		{ "/home/u/*", "wildcard" },
		{ "/home/u/a?", "wildcard" },
		{ "/home/u/x\n[filesystem]", "newline" },
		{ "/home/u/tab\there", "control" },
		{ "/home/u/trailing ", "blank" },
		{ "/home/u/../etc", "normal" },
		{ "relative/path", "normal" },
		{ "/home/u/.cache", NULL },
		{ "/home/u/notes.txt", NULL },
		{ "/home/u/My Documents", NULL },
		{ "/var/tmp/build", NULL },
	};
	return cr_make_param_array(struct refuse_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct refuse_case *c, learn_refuse, allow_write_values)
{
	struct policy *p = compile_ini("");
	const char *why = learn_refuse_path(p, c->path);

	if (!c->why)
		cr_assert_null(why, "%s refused: %s", c->path, why);
	else {
		cr_assert_not_null(why, "%s would be learned", c->path);
		cr_assert(strstr(why, c->why), "%s: `%s` does not say `%s`", c->path, why, c->why);
	}
	policy_free(p);
}

Test(learn_refuse, an_over_long_value_is_refused)
{
	struct policy *p = compile_ini("");
	char path[256] = "/home/u/";

	memset(path + 8, 'x', 200);
	path[208] = '\0';
	const char *why = learn_refuse_path(p, path);
	cr_assert_not_null(why);
	cr_assert(strstr(why, "too long"), "%s", why);
	policy_free(p);
}

Test(learn_refuse, host_names)
{
	static const char *const bad[] = { "*", "*.example.com", "a,b", "a b", "x;y", "x#y",
					   "evil\nallow_domains = *", ".lead", "-lead", "" };
	static const char *const good[] = { "github.com", "registry.npmjs.org", "my_host.local",
					    "127.0.0.1", "::1", "fe80::1" };

	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		cr_assert_not_null(learn_refuse_host(bad[i]), "`%s` would be learned", bad[i]);
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		cr_assert_null(learn_refuse_host(good[i]), "`%s` refused", good[i]);
}
