/* tests/unit/policy_persist.c: the executes-later table in HOME (docs/POLICY.md,
 * "Executes-later"): every name a later shell, editor, package manager,
 * agent or desktop session runs from is a mandatory write-deny that no
 * setting lifts, with HOME writable too; its neighbours stay writable; the
 * caller's PATH directories under HOME join the list, HOME itself and a
 * workspace's own do not. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/unit/helpers.h"

struct persist_case {
	const char *path; /* something planted there must be refused */
};

/* `allow_write = ~/` : the most a user can open, and what --learn does */
#define HOME_OPEN "[filesystem]\nallow_write = ~/\n"

ParameterizedTestParameters(policy_persist, refused_with_home_writable)
{
	static struct persist_case c[] = {
		{ "/home/u/.bash_completion" }, { "/home/u/.inputrc" },
		{ "/home/u/.local/share/bash-completion/completions/git" },
		{ "/home/u/.local/share/systemd/user/x.service" },
		{ "/home/u/.local/share/dbus-1/services/org.x.service" },
		{ "/home/u/.local/share/applications/firefox.desktop" },
		{ "/home/u/.local/lib/python3.11/site-packages/x.pth" },
		{ "/home/u/.local/lib/python3.12/site-packages/usercustomize.py" },
		{ "/home/u/.vimrc" }, { "/home/u/.exrc" }, { "/home/u/.vim/plugin/x.vim" },
		{ "/home/u/.config/nvim/init.lua" }, { "/home/u/.local/share/nvim/lazy/x/plugin/x.lua" },
		{ "/home/u/.emacs" }, { "/home/u/.emacs.el" }, { "/home/u/.emacs.d/init.el" },
		{ "/home/u/.config/emacs/init.el" }, { "/home/u/.tmux.conf" },
		{ "/home/u/.config/tmux/tmux.conf" }, { "/home/u/.gdbinit" },
		{ "/home/u/.config/gdb/gdbinit" }, { "/home/u/.lessfilter" },
		{ "/home/u/.npmrc" }, { "/home/u/.yarnrc" }, { "/home/u/.yarnrc.yml" },
		{ "/home/u/.cargo/env" }, { "/home/u/.cargo/config" }, { "/home/u/.cargo/config.toml" },
		{ "/home/u/.cargo/bin/git" }, { "/home/u/.config/direnv/direnvrc" },
		{ "/home/u/.local/share/direnv/allow/abc" }, { "/home/u/.cache/pre-commit/repo/x" },
		{ "/home/u/.claude/settings.json" }, { "/home/u/.codex/config.toml" },
		{ "/home/u/.cursor/mcp.json" }, { "/home/u/.config/Code/User/tasks.json" },
		{ "/home/u/.vscode-server/extensions/x/ext.js" },
		{ "/home/u/.config/JetBrains/IdeaIC2024.1/options/x.xml" },
		{ "/home/u/.local/share/JetBrains/plugins/x.jar" },
		{ "/w/.cursor/mcp.json" },
		/* left out before (attack5): run later, unsandboxed */
		{ "/home/u/.zlogout" }, { "/w/sub/.zlogout" }, { "/home/u/.xsession" },
		{ "/home/u/.gemini/settings.json" }, { "/home/u/.config/Cursor/User/settings.json" },
		{ "/home/u/.config/VSCodium/User/tasks.json" }, { "/home/u/.lesskey" },
		{ "/home/u/.config/lesskey" },
		{ "/home/u/.ipython/profile_default/startup/00-x.py" },
		{ "/home/u/.ipython/profile_work/ipython_config.py" },
		{ "/home/u/.ipython/profile_default/ipython_kernel_config.py" },
		{ "/home/u/.jupyter/jupyter_server_config.py" }, { "/home/u/.Rprofile" },
		{ "/home/u/.gradle/init.d/x.gradle" }, { "/home/u/.gradle/init.gradle" },
		/* the list, kept */
		{ "/home/u/.ripgreprc" }, { "/home/u/.bash_aliases" },
		{ "/home/u/.config/autostart/x.desktop" }, { "/home/u/.config/systemd/user/x.service" },
		{ "/home/u/.local/bin/git" },
		/* executes-later (issue 23): the project's agent configuration */
		{ "/w/.claude/settings.json" }, { "/w/.claude/settings.local.json" },
		{ "/w/.gemini/settings.json" }, { "/w/.codex/config.toml" },
	};
	return cr_make_param_array(struct persist_case, c, ARRAY_LEN(c));
}

ParameterizedTest(struct persist_case *c, policy_persist, refused_with_home_writable)
{
	struct policy *p = compile_ini(HOME_OPEN);
	const struct sbx_rule *why = check_why(p, SBX_OP_WRITE, c->path, SBX_DENY);

	cr_assert_not_null(why, "%s: denied without a rule", c->path);
	cr_assert_eq(why->kind, SBX_RULE_MANDATORY, "%s: decided by %s", c->path, why->value);
	/* npm's and Yarn's user files also hold registry tokens: rows of the
	 * credential table, read-denied too (docs/POLICY.md, "Credentials") */
	bool token = !strcmp(c->path, "/home/u/.npmrc") || !strcmp(c->path, "/home/u/.yarnrc.yml");
	cr_assert_eq(check(p, SBX_OP_READ, c->path), token ? SBX_DENY : SBX_ALLOW,
		     "%s must %s", c->path, token ? "be read-denied" : "stay readable");
	policy_free(p);
}

ParameterizedTestParameters(policy_persist, neighbours_stay_writable)
{
	static struct persist_case c[] = {
		{ "/home/u/.local/lib/python3.11/x.txt" }, /* not site-packages */
		{ "/home/u/.local/share/recently-used.xbel" },
		{ "/home/u/.cache/pip/wheels/x" }, { "/home/u/.cargo/registry/cache/x.crate" },
		{ "/home/u/.claude/projects/x.jsonl" }, { "/home/u/.codex/sessions/x.json" },
		{ "/home/u/.config/Code/logs/x.log" }, { "/home/u/.npm/_cacache/x" },
		{ "/w/.npmrc" }, { "/w/.yarnrc.yml" }, { "/w/.cargo/config.toml" },
		{ "/w/.claude/projects.md" }, { "/w/.envrc" },
		/* what those tools write while they run stays theirs */
		{ "/home/u/.gemini/tmp/x.json" }, { "/home/u/.config/Cursor/logs/x.log" },
		{ "/home/u/.ipython/profile_default/log/x.log" },
		{ "/home/u/.jupyter/lab/workspaces/x.json" }, { "/home/u/.gradle/caches/x.jar" },
	};
	return cr_make_param_array(struct persist_case, c, ARRAY_LEN(c));
}

/* HOME's hidden entries are read-only with HOME writable unless named
 * (policy_homekept.c): the tools' own directories named, the list's
 * neighbours in them stay writable */
#define TOOLS_OPEN HOME_OPEN "allow_write = ~/.local/, ~/.cache/, ~/.cargo/, ~/.claude/, " \
	"~/.codex/, ~/.config/, ~/.npm/, ~/.gemini/, ~/.ipython/, ~/.jupyter/, ~/.gradle/\n"

ParameterizedTest(struct persist_case *c, policy_persist, neighbours_stay_writable)
{
	struct policy *p = compile_ini(TOOLS_OPEN);

	cr_assert_eq(check(p, SBX_OP_WRITE, c->path), SBX_ALLOW, "%s", c->path);
	policy_free(p);
}

static struct policy *compile_with_path(const char *path_env, const char *ws)
{
	struct policy_ctx ctx = test_ctx;
	struct policy_builder *b = NULL;
	struct sbx_err err = { "" };

	ctx.path_env = path_env;
	cr_assert_eq(policy_builder_new(&ctx, &b), 0);
	cr_assert_eq(policy_builder_load_string(b, HOME_OPEN, TEST_DISPLAY, POLICY_LAYER_USER, &err), 0,
		     "%s", err.msg);
	if (ws)
		builder_set(b, "sandbox", "workspace", ws, SBX_ORIGIN_FLAG, "--workspace");
	return compile_builder(b);
}

Test(policy_persist, path_dirs_under_home_are_mandatory)
{
	struct policy *p = compile_with_path("/usr/bin:/home/u/go/bin:/home/u/.npm-global/bin/::rel/bin", NULL);
	const struct sbx_rule *why = check_why(p, SBX_OP_WRITE, "/home/u/go/bin/git", SBX_DENY);

	cr_assert_not_null(why);
	cr_assert_eq(why->kind, SBX_RULE_MANDATORY);
	cr_assert_str_eq(why->value, "~/go/bin/");
	cr_assert_str_eq(why->source, "mandatory (on PATH)");
	cr_assert_eq(check(p, SBX_OP_WRITE, "/home/u/.npm-global/bin/x"), SBX_DENY);
	cr_assert_eq(check(p, SBX_OP_WRITE, "/home/u/go/pkg/x"), SBX_ALLOW);
	policy_free(p);
}

Test(policy_persist, home_itself_on_path_closes_nothing)
{
	struct policy *p = compile_with_path("/home/u:/home/u/:/usr/bin", NULL);

	cr_assert_eq(check(p, SBX_OP_WRITE, "/home/u/notes.txt"), SBX_ALLOW);
	policy_free(p);
}

Test(policy_persist, path_dir_inside_a_workspace_below_home_stays_writable)
{
	struct policy *p = compile_with_path("/home/u/proj/bin:/home/u/proj/node_modules/.bin:/home/u/go/bin",
					     "/home/u/proj");

	cr_assert_eq(check(p, SBX_OP_WRITE, "/home/u/proj/bin/tool"), SBX_ALLOW);
	cr_assert_eq(check(p, SBX_OP_WRITE, "/home/u/proj/node_modules/.bin/tsc"), SBX_ALLOW);
	cr_assert_eq(check(p, SBX_OP_WRITE, "/home/u/go/bin/git"), SBX_DENY);
	policy_free(p);
}

Test(policy_persist, path_dir_with_home_as_workspace_is_closed)
{
	struct policy *p = compile_with_path("/home/u/go/bin", "/home/u");

	cr_assert_eq(check(p, SBX_OP_WRITE, "/home/u/go/bin/git"), SBX_DENY);
	policy_free(p);
}
