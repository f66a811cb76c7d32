#!/bin/bash
# The executes-later table in HOME (policy/execlater.c, docs/POLICY.md
# "Executes-later"): with HOME writable (workspace = HOME), nothing a later
# shell, editor, package manager, agent or desktop session runs from can be
# written. With the shim, missing names are refused as they are made; with
# the boundary alone (--no-shim: a static binary's view), existing files and
# directories are read-only and missing files that fit a stand-in cannot be
# made. Each test asserts the host's tree afterwards.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Files and, for the directories, a file planted inside each.
FILES=".bash_aliases .ripgreprc .bash_completion .inputrc .vimrc .exrc .emacs .emacs.el
.tmux.conf .gdbinit .lessfilter .npmrc .yarnrc .yarnrc.yml .cargo/env .cargo/config
.cargo/config.toml .claude/settings.json .codex/config.toml"
INSIDE=".config/autostart/x.desktop .config/systemd/user/x.service
.local/share/bash-completion/completions/git .local/share/systemd/user/x.service
.local/share/dbus-1/services/org.x.service .local/share/applications/x.desktop
.local/lib/python3.11/site-packages/x.pth .local/lib/python3.11/site-packages/usercustomize.py
.vim/plugin/x.vim .config/nvim/init.lua .local/share/nvim/site/plugin/x.lua .emacs.d/init.el
.config/emacs/init.el .config/tmux/tmux.conf .config/gdb/gdbinit .config/direnv/direnvrc
.local/share/direnv/allow/x .cache/pre-commit/repo/x .cursor/mcp.json .config/Code/User/tasks.json
.vscode-server/x .config/JetBrains/x .local/share/JetBrains/x .cargo/bin/git go/bin/git"
# what the sandboxed run tries: append to every file, make every directory
# and plant a file in it
plant() {
	printf 'cd ~\nfor f in %s; do mkdir -p "$(dirname "$f")" 2>/dev/null; echo evil >> "$f" 2>/dev/null; done\n' \
		"$(echo $FILES)"
	printf 'for f in %s; do mkdir -p "$(dirname "$f")" 2>/dev/null; echo evil > "$f" 2>/dev/null; done\necho END\n' \
		"$(echo $INSIDE)"
}
# changed: every listed name that holds "evil" on the host, or is new
changed() {
	local f
	for f in $FILES $INSIDE; do
		if [ -L "$HOME/$f" ]; then echo -n "$f(link) "
		elif grep -qs evil "$HOME/$f"; then echo -n "$f "; fi
	done
}
standins_left() { find "$HOME" -type l -lname '/proc/sbx-stand-in/*' 2>/dev/null | tr '\n' ' '; }
base_home() {
	mkdir -p "$HOME/.config" "$HOME/.local/share" "$HOME/.cargo" "$HOME/.claude" "$HOME/.codex" \
		"$HOME/.cache" "$HOME/.local/lib/python3.11/site-packages" "$HOME/go/bin"
	plant >"$B/plant.sh"
}
# run ARGS: the plant script with HOME as the workspace, ~/go/bin on PATH
run() { PATH="$HOME/go/bin:$PATH" sx -w "$HOME" "$@" -- sh "$B/plant.sh"; }

# With the shim: every name refused as it is made or written, and said.
t persistence_names_refused_with_home_writable
base_home
run
c=$(changed)
if has '^END$' out && [ -z "$c" ] && [ -z "$(standins_left)" ] &&
   hasf 'denied write of ~/.npmrc' err && hasf 'denied write of ~/go/bin/git by `deny_write = ~/go/bin/`' err &&
   hasf 'denied write of ~/.local/lib/python3.11/site-packages/x.pth' err; then ok
else bad "rc=$RC changed: $c stand-ins left: $(standins_left)"; fi

# The boundary alone: the directories exist (bound read-only), the files do
# not (stand-ins: a dangling link that cannot be written through).
t persistence_names_held_by_boundary_no_shim
base_home
for f in $INSIDE; do mkdir -p "$HOME/$(dirname "$f")"; done
run --no-shim
c=$(changed)
if has '^END$' out && [ -z "$c" ] && [ -z "$(standins_left)" ]; then ok
else bad "rc=$RC changed: $c stand-ins left: $(standins_left)"; fi

# Existing files keep their content. (A missing directory that fits no
# stand-in can be made by a static binary until seccomp notify: made here.)
t existing_persistence_files_unchanged_no_shim
base_home
for f in $INSIDE; do mkdir -p "$HOME/$(dirname "$f")"; done
for f in $FILES; do echo orig >"$HOME/$f"; done
run --no-shim
c=$(changed)
if has '^END$' out && [ -z "$c" ] && [ "$(cat "$HOME/.npmrc")" = orig ]; then ok
else bad "rc=$RC changed: $c"; fi

# A PATH directory under HOME is closed; one inside a workspace below HOME
# (a project's bin/ the user put on PATH) stays the program's to write.
# HOME is made writable (as --learn does) so only the list can refuse.
t path_dir_under_home_closed_project_bin_on_path_open
P=$HOME/proj
mkdir -p "$HOME/go/bin" "$P/bin"
cd "$P" || exit 1
PATH="$HOME/go/bin:$P/bin:$PATH" sx -w "$P" --allow-write "$HOME" -- \
	sh -c "echo evil > '$HOME/go/bin/git'; echo tool > '$P/bin/tool'; echo note > '$HOME/note'; echo END"
if has '^END$' out && [ ! -e "$HOME/go/bin/git" ] && [ "$(cat "$P/bin/tool")" = tool ] &&
   [ "$(cat "$HOME/note")" = note ] && hasf 'by `deny_write = ~/go/bin/`' err; then ok
else bad "rc=$RC: $(tr '\n' ' ' <"$B/err")"; fi

echo "# $(id -un) (persist): $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
