/* policy/execlater.c: the executes-later table.
 *
 * The principle: what a later program, started outside the sandbox, runs
 * or loads as configuration is never writable inside, at any depth,
 * including its creation (docs/POLICY.md, "Executes-later"). Every row is
 * a mandatory write-deny (no setting lifts it; readable as ever), with the
 * program that reads it and why. The list is the explanation of the
 * principle, not the principle: a name that fits and is missing here is a
 * bug (docs/SECURITY.md, "Configuration that runs later").
 *
 * A pattern with no leading `~/` or `/` is matched at any depth (`.git/
 * hooks/` in every directory of every writable root); `~/...` in HOME only;
 * a trailing `/` names a directory and everything below it. Globs as in
 * the rules (`*` within a component). Rows marked AGENT are lifted below a
 * directory an agent profile makes writable for that agent's own state
 * (the gemini profile's ~/.gemini-sbx/.gemini/, read by the sandboxed
 * gemini only); nothing else lifts a row.
 *
 * Decided elsewhere, at start, by what the protected files say: the
 * directory every repository's `core.hooksPath` names (and, for husky's
 * `.husky/_`, the `.husky/` its wrappers call), preload/plan.c; every
 * git directory under another name (a bare repository), preload/notify/paths.c.
 */
#include "policy/internal.h"

#define AGENT true

const struct execlater_row execlater_rows[] = {
	/* ---- shells, at any depth: a workspace that is or holds a HOME */
	{ ".bashrc", "bash", "interactive start-up", false },
	{ ".bash_profile", "bash", "login start-up", false },
	{ ".bash_login", "bash", "login start-up", false },
	{ ".bash_logout", "bash", "runs at log-out", false },
	{ ".profile", "sh, bash", "login start-up", false },
	{ ".zshrc", "zsh", "interactive start-up", false },
	{ ".zshenv", "zsh", "every zsh start", false },
	{ ".zprofile", "zsh", "login start-up", false },
	{ ".zlogin", "zsh", "login start-up", false },
	{ ".zlogout", "zsh", "runs at log-out", false },

	/* ---- version control: hooks, and configuration that names commands */
	{ ".gitconfig", "git", "core.pager, core.fsmonitor, aliases, filters: commands", false },
	{ ".gitmodules", "git", "submodule URLs and paths git clones and checks out", false },
	{ ".git/hooks/", "git", "hooks run at commit, checkout, merge, push", false },
	{ ".git/config", "git", "core.hooksPath, core.fsmonitor, core.pager, filters: commands", false },
	{ ".git/commondir", "git", "points git at another git directory, its hooks and config", false },
	{ ".git/config.worktree", "git", "read as config with extensions.worktreeConfig", false },
	{ "config.worktree", "git",
	  "a linked worktree's config wherever its git directory is (a .git file leads anywhere): a name only git reads", false },
	{ ".git/modules/*/hooks/", "git", "a submodule's hooks: run at commit, checkout in it", false },
	{ ".git/modules/*/modules/*/hooks/", "git", "a nested submodule's hooks", false },
	{ ".git/modules/*/config", "git", "a submodule's config: the same keys as .git/config", false },
	{ ".git/modules/*/config.worktree", "git", "a submodule's config.worktree", false },
	{ ".git/modules/*/modules/*/config", "git", "a nested submodule's config", false },
	{ ".git/modules/*/modules/*/config.worktree", "git", "a nested submodule's config.worktree", false },
	{ ".git/worktrees/*/config.worktree", "git", "a linked worktree's config, with extensions.worktreeConfig", false },
	{ ".pre-commit-config.yaml", "pre-commit",
	  "its hook in .git/hooks runs every `entry` listed here at each commit", false },
	{ "lefthook.yml", "lefthook", "its hook runs the commands listed here at each commit", false },
	{ ".lefthook.yml", "lefthook", "the same, hidden", false },
	{ "lefthook-local.yml", "lefthook", "the same, local overrides", false },
	{ ".lefthook/", "lefthook", "scripts its hooks run", false },
	{ ".hg/hgrc", "Mercurial", "[hooks] and [extensions] (a Python file by path) run", false },
	{ ".hg/hgrc-not-shared", "Mercurial", "read as .hg/hgrc in a shared repository", false },
	{ ".hg/sharedpath", "Mercurial", "points hg at another repository, its hgrc", false },
	{ ".jj/repo/config.toml", "Jujutsu", "ui.pager, ui.diff-formatter, fix.tools, aliases: commands", false },
	{ ".pijul/config", "Pijul", "[hooks] run at record", false },
	{ "_darcs/prefs/defaults", "darcs", "posthook and prehook commands", false },

	/* ---- agents and editors: project configuration that starts programs */
	{ ".mcp.json", "Claude Code", "project MCP servers: commands it starts", false },
	{ ".claude/settings.json", "Claude Code",
	  "hooks (shell commands on every tool call, at session start), MCP servers, apiKeyHelper, statusLine", false },
	{ ".claude/settings.local.json", "Claude Code",
	  "the same keys as settings.json; Claude Code writes a permission granted \"for this project\" "
	  "here, which inside the sandbox lasts the session", false },
	{ ".claude/hooks/", "Claude Code", "the scripts settings.json's hooks conventionally run", false },
	{ ".claude/commands/", "Claude Code", "slash commands: `!` lines run as shell commands", false },
	{ ".claude/agents/", "Claude Code", "subagents the model starts on its own choice", false },
	{ ".claude/skills/", "Claude Code", "skills: instructions and the scripts they run", false },
	{ ".codex/config.toml", "Codex", "a trusted project's config: MCP servers, notify, shell environment", AGENT },
	{ ".codex/skills/", "Codex", "skills: instructions and the scripts they run", AGENT },
	{ ".gemini/settings.json", "Gemini CLI", "MCP servers, hooks, tool discovery and call commands", AGENT },
	{ ".gemini/commands/", "Gemini CLI", "custom commands: !{...} runs a shell command", AGENT },
	{ ".gemini/extensions/", "Gemini CLI", "extensions: MCP servers, commands", AGENT },
	{ ".gemini/.env", "Gemini CLI", "loaded into its environment, which its shell tool and MCP servers inherit", AGENT },
	{ ".cursor/", "Cursor", "mcp.json, hooks.json, environment.json commands, rules", false },
	{ ".vscode/", "VS Code", "tasks.json (runOn folderOpen), launch.json, settings.json (terminal, tool paths), mcp.json", false },
	{ ".devcontainer/", "VS Code, devcontainer CLI",
	  "initializeCommand runs on the host when the folder is opened", false },
	{ ".devcontainer.json", "VS Code, devcontainer CLI", "the same, as one file", false },
	{ ".idea/", "JetBrains IDEs", "run configurations, external tools, startup tasks", false },
	{ ".zed/", "Zed", "settings.json (language servers' binaries), tasks.json", false },
	{ ".windsurf/", "Windsurf", "workflows and rules its agent carries out, hooks", false },
	{ ".continue/", "Continue", "config: MCP servers, custom commands", false },
	{ ".roo/", "Roo Code", "mcp.json: commands it starts", false },
	{ ".kiro/", "Kiro", "agent hooks run on file events; settings/mcp.json", false },
	{ ".amazonq/", "Amazon Q Developer", "mcp.json: commands it starts", false },
	{ ".opencode/", "opencode", "plugins (JavaScript run in its process), commands", false },
	{ "opencode.json", "opencode", "MCP servers, formatter and LSP commands", false },
	{ ".aider.conf.yml", "aider", "lint-cmd, test-cmd: commands it runs", false },
	{ "mise.toml", "mise", "hooks (enter, cd) and env._.source run when a shell enters the directory", false },
	{ ".mise.toml", "mise", "the same, hidden", false },
	{ "mise.local.toml", "mise", "the same, local", false },
	{ ".mise.local.toml", "mise", "the same, hidden and local", false },
	{ ".mise/", "mise", "config and tasks", false },

	/* ---- HOME only: what a login, a desktop session or another shell
	 * runs, and the directories a login shell puts first on PATH */
	{ "~/.config/git/config", "git", "the user's config, as ~/.gitconfig", false },
	{ "~/.bash_aliases", "bash", "sourced by Debian's .bashrc", false },
	{ "~/.pam_environment", "PAM", "the environment of every login (LD_PRELOAD)", false },
	{ "~/.xprofile", "display managers", "sourced at desktop login", false },
	{ "~/.xsessionrc", "Debian's Xsession", "sourced at desktop login", false },
	{ "~/.xinitrc", "startx", "the session itself", false },
	{ "~/.xsession", "Debian's Xsession", "run as the session itself", false },
	{ "~/.ripgreprc", "ripgrep", "--pre runs a program on every file searched", false },
	{ "~/.config/fish/", "fish", "start-up", false },
	{ "~/.config/autostart/", "the desktop session", "started at login", false },
	{ "~/.config/systemd/", "systemd --user", "units started by the user's manager", false },
	{ "~/.config/environment.d/", "systemd --user", "the session's environment", false },
	{ "~/.local/bin/", "a login shell's PATH", "a `git` there runs instead of /usr/bin/git", false },
	{ "~/bin/", "a login shell's PATH", "the same", false },
	{ "~/.bash_completion", "bash-completion", "sourced by every interactive bash", false },
	{ "~/.local/share/bash-completion/", "bash-completion", "a completion runs on the next Tab", false },
	{ "~/.inputrc", "readline", "macros type into every readline program", false },
	{ "~/.local/share/systemd/", "systemd --user", "user units", false },
	{ "~/.local/share/dbus-1/", "D-Bus", "a service file's Exec= runs when its name is asked for", false },
	{ "~/.local/share/applications/", "the desktop", "launchers and MIME handlers", false },
	{ "~/.local/lib/python*/site-packages/", "python3",
	  "*.pth import lines and usercustomize run at every start; a module there shadows one installed", false },
	{ "~/.vimrc", "vim", "start-up", false },
	{ "~/.exrc", "vi", "start-up", false },
	{ "~/.vim/", "vim", "plugins", false },
	{ "~/.config/nvim/", "neovim", "init and plugins", false },
	{ "~/.local/share/nvim/", "neovim", "plugin managers' plugins (lazy, packer, site/)", false },
	{ "~/.emacs", "Emacs", "init", false },
	{ "~/.emacs.el", "Emacs", "init", false },
	{ "~/.emacs.d/", "Emacs", "init and packages", false },
	{ "~/.config/emacs/", "Emacs", "init and packages", false },
	{ "~/.tmux.conf", "tmux", "run-shell at start", false },
	{ "~/.config/tmux/", "tmux", "the same", false },
	{ "~/.gdbinit", "gdb", "commands (shell) at start", false },
	{ "~/.config/gdb/", "gdb", "the same", false },
	{ "~/.lessfilter", "lesspipe", "runs on every file less opens", false },
	{ "~/.lesskey", "less", "#env LESSOPEN runs a program on every file", false },
	{ "~/.config/lesskey", "less", "the same", false },
	{ "~/.npmrc", "npm", "script-shell, node-options=--require in every project", false },
	{ "~/.yarnrc", "yarn", "yarn-path runs in every project", false },
	{ "~/.yarnrc.yml", "yarn", "yarnPath runs in every project", false },
	{ "~/.cargo/env", "sh", "~/.profile sources it", false },
	{ "~/.cargo/config", "cargo", "build.rustc-wrapper, target runners", false },
	{ "~/.cargo/config.toml", "cargo", "the same", false },
	{ "~/.cargo/bin/", "a login shell's PATH", "cargo's binaries, first on PATH", false },
	{ "~/.config/direnv/", "direnv", "direnvrc and lib/*.sh run for every .envrc", false },
	{ "~/.local/share/direnv/", "direnv", "the allow list approves an .envrc", false },
	{ "~/.cache/pre-commit/", "pre-commit", "cached hook repositories run at each commit", false },
	{ "~/.claude/settings.json", "Claude Code", "the user's hooks and MCP servers", false },
	{ "~/.cursor/", "Cursor", "MCP servers, extensions", false },
	{ "~/.config/Code/User/", "VS Code", "tasks, settings, terminal profiles", false },
	{ "~/.vscode-server/", "VS Code", "remote extensions", false },
	{ "~/.config/JetBrains/", "JetBrains IDEs", "options, tools", false },
	{ "~/.local/share/JetBrains/", "JetBrains IDEs", "plugins", false },
	{ "~/.config/Cursor/User/", "Cursor", "VS Code's settings and tasks", false },
	{ "~/.config/VSCodium/User/", "VSCodium", "VS Code's settings and tasks", false },
	{ "~/.codeium/", "Windsurf", "mcp_config.json, hooks", false },
	{ "~/.continue/", "Continue", "config: MCP servers, commands", false },
	{ "~/.aider.conf.yml", "aider", "lint-cmd, test-cmd", false },
	{ "~/.config/opencode/", "opencode", "config and plugins", false },
	{ "~/.config/mise/", "mise", "the user's config: hooks, env sources", false },
	{ "~/.ipython/profile_*/startup/", "IPython, Jupyter kernels", "startup scripts", false },
	{ "~/.ipython/profile_*/ipython_*config.py", "IPython", "config is Python", false },
	{ "~/.jupyter/jupyter_*_config.py", "Jupyter", "config is Python", false },
	{ "~/.Rprofile", "R", "runs at every start", false },
	{ "~/.gradle/init.d/", "Gradle", "init scripts in every build", false },
	{ "~/.gradle/init.gradle", "Gradle", "the same", false },
	{ "~/.hgrc", "Mercurial", "the user's hooks and extensions", false },
	{ "~/.config/hg/", "Mercurial", "the same", false },
	{ "~/.config/jj/", "Jujutsu", "the user's config and each repository's (repos/)", false },
	{ "~/.subversion/config", "Subversion", "diff-cmd, editor-cmd, [tunnels] commands", false },
	{ "~/.bazaar/", "Bazaar", "plugins are Python", false },
	{ "~/.config/breezy/", "Breezy", "plugins are Python", false },
	{ "~/.darcs/defaults", "darcs", "posthook commands", false },

	/* ---- sbx's own: a policy written inside would widen later runs;
	 * the supervisor writes its state unsandboxed */
	{ "~/.config/sbx/", "sbx", "the user's policy and profiles", false },
	{ "/etc/sbx/", "sbx", "the system's policy", false },
	{ "~/.local/state/sbx/", "sbx", "the audit log, learned policies, records", false },
};

const size_t execlater_nrows = sizeof(execlater_rows) / sizeof(execlater_rows[0]);

bool execlater_anywhere(const struct execlater_row *r)
{
	return r->pattern[0] != '~' && r->pattern[0] != '/';
}
