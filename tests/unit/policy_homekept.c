/* tests/unit/policy_homekept.c: HOME is an allow-list when writable
 * (docs/POLICY.md, policy/home.c): with HOME or a root above it writable,
 * its hidden entries and the visible places a later program runs from stay
 * read-only unless an allow_write names them or a path inside them; the
 * visible files and folders are writable; nothing changes while HOME is
 * not writable. And the table a hint and --learn ask. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/unit/helpers.h"

struct kept_case {
	const char *ini;
	const char *path;
	enum sbx_verdict want;
};

#define HOME_WS "[sandbox]\nworkspace = ~\n"
#define HOME_AW "[filesystem]\nallow_write = ~/\n"
#define ROOT_AW "[filesystem]\nallow_write = /\n"
#define HOMES_AW "[filesystem]\nallow_write = /home\n"

ParameterizedTestParameters(policy_homekept, decisions)
{
	static struct kept_case c[] = {
		/* what the issue planted: refused, by every way HOME is opened */
		{ HOME_WS, "/home/u/.pyenv/versions/3.12.1/lib/python3.12/site-packages/x.pth", SBX_DENY },
		{ HOME_AW, "/home/u/.docker/cli-plugins/docker-evil", SBX_DENY },
		{ ROOT_AW, "/home/u/.bashrc.d/evil.sh", SBX_DENY },
		{ HOMES_AW, "/home/u/.oh-my-zsh/custom/x.zsh", SBX_DENY },
		{ HOME_WS, "/home/u/.zcompdump-host-5.9", SBX_DENY },
		{ HOME_WS, "/home/u/.rustup/toolchains/stable/bin/cargo", SBX_DENY },
		{ HOME_WS, "/home/u/.nvm/versions/node/v20/lib/node_modules/npm/index.js", SBX_DENY },
		/* a new hidden entry is one too (creation counts) */
		{ HOME_WS, "/home/u/.newtool", SBX_DENY },
		{ HOME_WS, "/home/u/.newtool/x", SBX_DENY },
		/* visible places a later program runs from */
		{ HOME_WS, "/home/u/go/bin/git", SBX_DENY },
		{ HOME_WS, "/home/u/miniconda3/lib/python3.12/site-packages/x.pth", SBX_DENY },
		{ HOME_WS, "/home/u/node_modules/lodash/index.js", SBX_DENY },
		/* the visible files and folders stay writable */
		{ HOME_WS, "/home/u/notes.txt", SBX_ALLOW },
		{ HOME_WS, "/home/u/proj/.venv/lib/python3.12/site-packages/x.pth", SBX_ALLOW },
		{ HOME_WS, "/home/u/go/src/x.go", SBX_ALLOW },
		{ HOME_WS, "/home/u/proj/.git/objects/ab/cd", SBX_ALLOW },
		/* named: lifted, there and inside only */
		{ HOME_WS "[filesystem]\nallow_write = ~/.cache/\n", "/home/u/.cache/pip/x", SBX_ALLOW },
		{ HOME_WS "[filesystem]\nallow_write = ~/.cache/pip\n", "/home/u/.cache/pip/x", SBX_ALLOW },
		{ HOME_WS "[filesystem]\nallow_write = ~/.cache/pip\n", "/home/u/.cache/uv/x", SBX_DENY },
		{ HOME_WS "[filesystem]\nallow_write = ~/go/bin/\n", "/home/u/go/bin/x", SBX_ALLOW },
		/* HOME not writable: nothing changes (outside the roots, or named) */
		{ "[filesystem]\nallow_write = ~/.cache/\n", "/home/u/.cache/x", SBX_ALLOW },
		{ "[sandbox]\nworkspace = /home/u/proj\n", "/home/u/proj/.tool/x", SBX_ALLOW },
		{ "[sandbox]\nworkspace = /home/u/.dotfiles-proj\n", "/home/u/.dotfiles-proj/x", SBX_ALLOW },
		/* a workspace inside a hidden entry is named: its own */
		{ HOME_AW "[sandbox]\nworkspace = /home/u/.config/myapp\n",
		  "/home/u/.config/myapp/x.json", SBX_ALLOW },
		{ HOME_AW "[sandbox]\nworkspace = /home/u/.config/myapp\n",
		  "/home/u/.config/other/x.json", SBX_DENY },
		/* the mandatory list still wins over a name */
		{ HOME_WS "[filesystem]\nallow_write = ~/.cargo/\n", "/home/u/.cargo/bin/x", SBX_DENY },
	};
	return cr_make_param_array(struct kept_case, c, sizeof(c) / sizeof(*c));
}

ParameterizedTest(struct kept_case *c, policy_homekept, decisions)
{
	struct policy *p = compile_ini(c->ini);

	cr_assert_eq(check(p, SBX_OP_WRITE, c->path), c->want, "%s under\n%s", c->path, c->ini);
	cr_assert_eq(check(p, SBX_OP_READ, c->path), SBX_ALLOW, "%s must stay readable", c->path);
	policy_free(p);
}

Test(policy_homekept, the_rule_says_what_keeps_it_and_how_to_lift_it)
{
	struct policy *p = compile_ini(HOME_WS);
	const struct sbx_rule *why = check_why(p, SBX_OP_WRITE, "/home/u/.pyenv/x", SBX_DENY);
	char text[256];

	cr_assert_eq(why->kind, SBX_RULE_HOME_KEPT);
	policy_rule_text(why, text, sizeof(text));
	cr_assert_str_eq(text, "~/.* kept read-only");
	assert_contains(policy_rule_note(why), "unless an allow_write names them");
	assert_not_contains(policy_rule_note(why), "no setting");
	policy_free(p);
}

Test(policy_homekept, table_names_the_place_and_what_runs_it)
{
	struct policy *p = compile_ini(NULL);
	char where[256];
	unsigned flags = 0;
	int row = policy_home_row(p, "/home/u/.pyenv/versions/3.12.1/lib/python3.12/site-packages",
				  false, where, sizeof(where), &flags);

	cr_assert_geq(row, 0);
	cr_assert_str_eq(where, "~/.pyenv");
	cr_assert_eq(flags & SBX_HOME_ROW_NEVER, SBX_HOME_ROW_NEVER);
	assert_contains(policy_home_row_what(row), "python3");
	/* a glob row names the entry as it is */
	cr_assert_geq(policy_home_row(p, "/home/u/.zcompdump-host", false, where, sizeof(where), NULL), 0);
	cr_assert_str_eq(where, "~/.zcompdump-host");
	cr_assert_geq(policy_home_row(p, "/home/u/.local/lib/python3.11/site-packages", false,
				      where, sizeof(where), NULL), 0);
	cr_assert_str_eq(where, "~/.local/lib/python3.11/site-packages");
	/* above: a directory that would open a row below it */
	cr_assert_lt(policy_home_row(p, "/home/u/.local/share", false, NULL, 0, NULL), 0);
	cr_assert_geq(policy_home_row(p, "/home/u/.local/share", true, where, sizeof(where), NULL), 0);
	cr_assert_str_eq(where, "~/.local/share/pipx"); /* the row below it */
	cr_assert_geq(policy_home_row(p, "/home/u/.docker", true, NULL, 0, NULL), 0);
	/* not a row: a cache no later program trusts, a visible folder, outside HOME */
	cr_assert_lt(policy_home_row(p, "/home/u/.cache/thumbnails", true, NULL, 0, NULL), 0);
	cr_assert_lt(policy_home_row(p, "/home/u/proj/bin", true, NULL, 0, NULL), 0);
	cr_assert_lt(policy_home_row(p, "/opt/pyenv", true, NULL, 0, NULL), 0);
	cr_assert_lt(policy_home_row(p, "/home/u", true, NULL, 0, NULL), 0);
	/* a build cache: offered, said what it is */
	cr_assert_geq(policy_home_row(p, "/home/u/.m2/repository/x", false, NULL, 0, &flags), 0);
	cr_assert_eq(flags & SBX_HOME_ROW_SAY, SBX_HOME_ROW_SAY);
	policy_free(p);
}

/* Everything exists, for a hint's look. */
static int all_there(void *ctx, const char *path)
{
	(void)ctx;
	(void)path;
	return 1;
}

Test(policy_homekept, hint_never_offers_a_place_a_later_program_runs_from)
{
	struct policy *p = compile_ini(NULL);
	const char *t = "/home/u/.pyenv/versions/3.12.1/lib/python3.12/site-packages/x.pth";
	char fix[512], said[1024];

	/* outside the writable paths (HOME not writable) */
	policy_hint_fix(p, SBX_OP_WRITE, t, false, NULL, all_there, NULL, fix, sizeof(fix));
	cr_assert_str_eq(fix, "");
	policy_hint_runs_later(p, SBX_OP_WRITE, t, false, NULL, all_there, NULL, said, sizeof(said));
	assert_contains(said, "~/.pyenv: pyenv's Python interpreters");
	/* the others of the issue: npm's own lib, rustup's bin, pnpm, bun */
	static const char *const others[] = {
		"/home/u/.nvm/versions/node/v20.1.0/lib/node_modules/npm/lib/x.js",
		"/home/u/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin/cargo",
		"/home/u/.local/share/pnpm/global/5/node_modules/x/index.js",
		"/home/u/.bun/install/global/node_modules/x/index.js",
		"/home/u/.docker/cli-plugins/docker-evil",
	};
	for (size_t i = 0; i < sizeof(others) / sizeof(*others); i++) {
		policy_hint_fix(p, SBX_OP_WRITE, others[i], false, NULL, all_there, NULL, fix,
				sizeof(fix));
		cr_assert_str_eq(fix, "", "%s: offered %s", others[i], fix);
		policy_hint_runs_later(p, SBX_OP_WRITE, others[i], false, NULL, all_there, NULL,
				       said, sizeof(said));
		cr_assert_neq(said[0], '\0', "%s: not said", others[i]);
	}
	/* a package cache a later install trusts: offered, with what it is */
	policy_hint_fix(p, SBX_OP_WRITE, "/home/u/.cache/pip/x", false, NULL, all_there, NULL,
			fix, sizeof(fix));
	cr_assert_str_eq(fix, "--allow-write ~/.cache/pip");
	policy_hint_runs_later(p, SBX_OP_WRITE, "/home/u/.cache/pip/x", false, NULL, all_there,
			       NULL, said, sizeof(said));
	assert_contains(said, "pip's cache: later pip installs install the wheels there");
	/* what npx runs: never offered, not even by its parent */
	policy_hint_fix(p, SBX_OP_WRITE, "/home/u/.npm/_npx/abc/node_modules/x/index.js", false,
			NULL, all_there, NULL, fix, sizeof(fix));
	cr_assert_str_eq(fix, "");
	policy_hint_runs_later(p, SBX_OP_WRITE, "/home/u/.npm/_npx/abc/node_modules/x/index.js",
			       false, NULL, all_there, NULL, said, sizeof(said));
	assert_contains(said, "~/.npm/_npx: npx's packages");
	/* a cache that is no row: offered, nothing more said */
	policy_hint_fix(p, SBX_OP_WRITE, "/home/u/.cache/thumbnails/x", false, NULL, all_there,
			NULL, fix, sizeof(fix));
	cr_assert_str_eq(fix, "--allow-write ~/.cache/thumbnails");
	policy_hint_runs_later(p, SBX_OP_WRITE, "/home/u/.cache/thumbnails/x", false, NULL,
			       all_there, NULL, said, sizeof(said));
	cr_assert_str_eq(said, "");
	policy_free(p);
}

Test(policy_homekept, hint_under_home_writable_names_the_hidden_place)
{
	struct policy *p = compile_ini(HOME_WS);
	const struct sbx_rule *why = check_why(p, SBX_OP_WRITE, "/home/u/.cache/pip/x", SBX_DENY);
	char fix[512], said[1024];

	policy_hint_fix(p, SBX_OP_WRITE, "/home/u/.cache/pip/x", false, why, all_there, NULL,
			fix, sizeof(fix));
	cr_assert_str_eq(fix, "--allow-write ~/.cache/pip");
	why = check_why(p, SBX_OP_WRITE, "/home/u/.docker/cli-plugins/docker-x", SBX_DENY);
	policy_hint_fix(p, SBX_OP_WRITE, "/home/u/.docker/cli-plugins/docker-x", false, why,
			all_there, NULL, fix, sizeof(fix));
	cr_assert_str_eq(fix, "");
	policy_hint_runs_later(p, SBX_OP_WRITE, "/home/u/.docker/cli-plugins/docker-x", false, why,
			       all_there, NULL, said, sizeof(said));
	assert_contains(said, "~/.docker/cli-plugins: Docker CLI plug-ins");
	policy_free(p);
}

Test(policy_homekept, login_shell_path_dirs_are_kept_with_home_writable)
{
	struct policy_ctx ctx = test_ctx;
	struct policy_builder *b = NULL;
	struct sbx_err err = { "" };

	ctx.login_path = "/home/u/scripts:/home/u:/usr/local/bin:/home/u/.deno/bin";
	cr_assert_eq(policy_builder_new(&ctx, &b), 0);
	cr_assert_eq(policy_builder_load_string(b, HOME_WS, TEST_DISPLAY, POLICY_LAYER_USER, &err), 0,
		     "%s", err.msg);
	struct policy *p = compile_builder(b);
	const struct sbx_rule *why = check_why(p, SBX_OP_WRITE, "/home/u/scripts/git", SBX_DENY);
	cr_assert_eq(why->kind, SBX_RULE_HOME_KEPT);
	cr_assert_str_eq(why->value, "~/scripts/");
	/* HOME itself on it closes nothing; the rest of HOME stays writable */
	cr_assert_eq(check(p, SBX_OP_WRITE, "/home/u/notes.txt"), SBX_ALLOW);
	cr_assert_eq(check(p, SBX_OP_WRITE, "/home/u/scripts2/x"), SBX_ALLOW);
	policy_free(p);
}

/* loginpath.c: the start-up files read as text, never run */
void loginpath_read(const char *home, char *out, size_t outsz);

Test(policy_homekept, login_path_read_from_start_up_files)
{
	char *home = make_tmpdir(), f[4096], out[4096];

	snprintf(f, sizeof(f), "%s/.profile", home);
	write_file(f, "# PATH=\"$HOME/commented:$PATH\"\n"
		      "if [ -d \"$HOME/bin\" ] ; then\n    PATH=\"$HOME/bin:$PATH\"\nfi\n"
		      "export PATH=${HOME}/.deno/bin:~/tools/x:$PATH\n"
		      "alias ll='ls ~/notpath'\n"
		      "PATH=$HOME/$VAR/bin:$PATH\n");
	make_dirs(home, ".config/fish");
	snprintf(f, sizeof(f), "%s/.config/fish/config.fish", home);
	write_file(f, "fish_add_path $HOME/.fishbin\n");
	loginpath_read(home, out, sizeof(out));
	char want[4096];
	snprintf(want, sizeof(want), "%s/bin:%s/.deno/bin:%s/tools/x:%s/.fishbin", home, home, home,
		 home);
	cr_assert_str_eq(out, want);
	remove_tree(home);
	free(home);
}
