#!/bin/bash
# HOME is an allow-list when writable (docs/POLICY.md, policy/home.c): with
# HOME as the workspace (or allow_write = ~/), its hidden entries and the
# places a later program runs from stay read-only unless an allow_write
# names them; the visible files and folders are writable; --learn writes
# nothing to HOME. Each test plants what a sandboxed program could, by open
# (a dynamic program, with the shim), by a static binary (the boundary
# alone) and by renaming a ready directory, checks the host's tree, and
# then runs the unsandboxed program that would have run it (python3 with a
# user site that really reads a .pth) to show that nothing planted runs.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PROGS=$(mktemp -d /var/tmp/sbx-progs.XXXXXX)
trap 'rm -rf "$PROGS"' EXIT
WF=$PROGS/writefile
built writefile.static "$WF" 2>"$PROGS/log" ||
	echo "# cannot build tests/progs/writefile.c: $(head -3 "$PROGS/log")"
chmod -R a+rX "$PROGS"
have_wf() { [ -x "$WF" ] || { skip "tests/progs/writefile not built (no static libc?)"; return 1; }; }

PYV=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
# a pyenv-style interpreter prefix and the user site: python3 reads the
# site-packages of either (PYTHONUSERBASE, or the default ~/.local)
PYENV=.pyenv/versions/$PYV.0
PYSITE=$PYENV/lib/python$PYV/site-packages
USITE=.local/lib/python$PYV/site-packages
# the canary a planted .pth would write when python3 starts
canary() { echo "$B/ran-$1"; }
pth() { echo "import os; open('$(canary "$1")', 'w').write('ran')"; }
# runs_python LAYOUT: an unsandboxed python3 as the user would start it;
# true when something planted ran
runs_python() {
	case $1 in
	pyenv) HOME=$HOME PYTHONUSERBASE=$HOME/$PYENV python3 -c pass ;;
	user) HOME=$HOME env -u PYTHONUSERBASE python3 -c pass ;;
	esac 2>/dev/null
	ls "$B"/ran-* >/dev/null 2>&1
}
home_layout() {
	mkdir -p "$HOME/$PYSITE" "$HOME/.docker" "$HOME/.local/lib" "$HOME/.config"
}
# sxh ARGS: sx with HOME as the workspace, from HOME
sxh() { local here=$PWD; cd "$HOME" && sx -w "$HOME" "$@"; cd "$here" || exit 1; }

# The layouts really run a .pth: planted on the host without sbx, python3
# runs it (so the tests below can fail).
t control_python_runs_a_pth_in_both_layouts
home_layout
pth pyenv > "$HOME/$PYSITE/x.pth"
mkdir -p "$HOME/$USITE" && pth user > "$HOME/$USITE/x.pth"
runs_python pyenv; runs_python user
if [ -e "$(canary pyenv)" ] && [ -e "$(canary user)" ]; then ok
else bad "a .pth planted on the host did not run: $(ls "$B")"; fi

# By open, from a dynamic program (the shim sees it) and a static one (the
# boundary alone): nothing lands, the report names the allow-list and what
# the place is, and python3 runs nothing.
t plant_by_open_refused_dynamic_and_static
home_layout
sxh -- sh -c "echo \"$(pth pyenv)\" > ~/$PYSITE/x.pth; mkdir ~/.docker/cli-plugins;
	printf '#!/bin/sh\nid\n' > ~/.docker/cli-plugins/docker-evil; mkdir -p ~/.bashrc.d;
	echo id > ~/.bashrc.d/evil.sh; echo notes > ~/notes.txt; echo END"
dyn_err=$(cat "$B/err")
st=ok
if have_wf; then
	sxh -- "$WF" "$(pth pyenv)" "$HOME/$PYSITE/y.pth" "$HOME/.docker/cli-plugins/docker-evil" \
		"$HOME/.bashrc.d/evil.sh" "$HOME/$USITE/x.pth"
	[ "$(grep -c '^ERR' "$B/out")" -eq 4 ] || st="static: $(tr '\n' ' ' < "$B/out")"
else st=skip; fi
runs_python pyenv; runs_python user
if [ "$st" = ok ] && ! runs_python pyenv && [ -z "$(ls "$HOME/$PYSITE")" ] &&
   [ ! -e "$HOME/.docker/cli-plugins" ] && [ ! -e "$HOME/.bashrc.d" ] && [ ! -e "$HOME/$USITE" ] &&
   [ "$(cat "$HOME/notes.txt")" = notes ] &&
   grep -qF "denied write of ~/$PYSITE/x.pth by \`~/.* kept read-only\`" <<<"$dyn_err" &&
   grep -qF "~/.pyenv: pyenv's Python interpreters" <<<"$dyn_err"; then ok
else bad "$st; pyenv: $(ls -A "$HOME/$PYSITE") ran: $(ls "$B" | grep ran-) $(head -c 300 <<<"$dyn_err")"; fi

# A ready directory renamed onto the place: the user site by rename (mv
# stage onto ~/.local/lib/pythonX.Y), the docker plug-ins, a new ~/.x, and
# a symlink to the stage at the user site's name.
t plant_by_rename_and_link_of_a_ready_directory_refused
home_layout
sxh -- sh -c "mkdir -p ~/stage/site-packages ~/stage2 ~/stage3 &&
	echo \"$(pth user)\" > ~/stage/site-packages/x.pth &&
	echo id > ~/stage2/docker-evil && echo id > ~/stage3/evil.sh;
	mv ~/stage ~/.local/lib/python$PYV; mv ~/stage2 ~/.docker/cli-plugins;
	mv ~/stage3 ~/.bashrc.d; ln -s ../stage3 ~/.local/lib/python$PYV; ln -s stage3 ~/.bashrc.d; echo END"
if has '^END$' out && ! runs_python user && [ ! -e "$HOME/.local/lib/python$PYV" ] &&
   [ ! -L "$HOME/.local/lib/python$PYV" ] && [ -f "$HOME/stage/site-packages/x.pth" ] &&
   [ ! -e "$HOME/.docker/cli-plugins" ] && [ ! -e "$HOME/.bashrc.d" ] && [ ! -L "$HOME/.bashrc.d" ] &&
   [ -f "$HOME/stage3/evil.sh" ]; then ok
else bad "rc=$RC user site: $(ls -la "$HOME/.local/lib" | tail -n +2 | tr '\n' ' ') $(grep denied "$B/err" | head -c 300)"; fi

# A directory landing above a kept visible place brings it in: `mv stage
# ~/go` with stage/bin/git would plant ~/go/bin/git, on PATH.
t directory_landing_above_a_kept_place_refused
sxh -- sh -c 'mkdir -p ~/stage/bin && printf "#!/bin/sh\nid\n" > ~/stage/bin/git && mv ~/stage ~/go; echo END'
if has '^END$' out && [ ! -e "$HOME/go" ] && [ -f "$HOME/stage/bin/git" ] &&
   hasf 'denied write of ~/go by `~/go/bin/ kept read-only`' err; then ok
else bad "rc=$RC $(ls -A "$HOME" | tr '\n' ' ') $(grep denied "$B/err" | head -c 300)"; fi

# A directory a login shell puts on PATH (read from ~/.profile as text,
# never by running it), visible and not on the caller's PATH: kept, so no
# `git` planted there runs in the user's next login shell.
t login_shell_path_dir_kept_without_running_the_shell
mkdir -p "$HOME/scripts"
printf 'PATH="$HOME/scripts:$PATH"\n' > "$HOME/.profile"
sxh -- sh -c 'printf "#!/bin/sh\necho PLANTED\n" > ~/scripts/git; chmod +x ~/scripts/git 2>/dev/null;
	echo n > ~/notes.txt; echo END'
if has '^END$' out && [ ! -e "$HOME/scripts/git" ] && [ "$(cat "$HOME/notes.txt")" = n ] &&
   ! HOME=$HOME sh -lc 'git --version' 2>/dev/null | grep -q PLANTED &&
   hasf 'denied write of ~/scripts/git by `~/scripts/ kept read-only`' err; then ok
else bad "rc=$RC $(ls -A "$HOME/scripts") $(grep denied "$B/err" | head -c 300)"; fi

# HOME deeper below a writable root than the start-up walk judges
# (allow_write = a directory three levels above HOME): its kept entries are
# still bound read-only; the mounts alone (SBX_NOTIFY=off, a static
# binary) refuse the write.
t home_deep_below_a_root_kept_by_the_mounts_alone
if have_wf; then
	top=$B/deep && mkdir -p "$top/a/b" && mv "$HOME" "$top/a/b/home" && export HOME=$top/a/b/home
	echo orig > "$HOME/.ssh/config-keep" && mkdir -p "$HOME/$PYSITE"
	(cd "$W" && SBX_NOTIFY=off sx --allow-write "$top" -- "$WF" pwned "$HOME/$PYSITE/x.pth" \
		"$HOME/.ssh/config-keep" "$HOME/visible")
	if [ -z "$(ls "$HOME/$PYSITE")" ] && [ "$(cat "$HOME/.ssh/config-keep")" = orig ] &&
	   [ "$(cat "$HOME/visible")" = pwned ]; then ok
	else bad "rc=$RC $(tr '\n' ' ' < "$B/out")"; fi
fi

# A kept place that is a link into the visible part of HOME: what it
# leads to is kept too (a write through ~/.pyenv -> tools/pyenv would land
# in a writable folder otherwise).
t kept_link_into_a_visible_folder_keeps_its_target
mkdir -p "$HOME/tools/pyenv/versions/$PYV.0/lib/python$PYV/site-packages"
ln -s tools/pyenv "$HOME/.pyenv"
sxh -- sh -c "echo \"$(pth pyenv)\" > ~/.pyenv/versions/$PYV.0/lib/python$PYV/site-packages/x.pth; echo END"
if has '^END$' out && [ -z "$(ls "$HOME/tools/pyenv/versions/$PYV.0/lib/python$PYV/site-packages")" ] &&
   ! runs_python pyenv; then ok
else bad "rc=$RC $(ls -R "$HOME/tools" | tr '\n' ' ')"; fi

# allow_write = ~/ is HOME writable too; naming a place lifts it there.
t allow_write_home_keeps_hidden_naming_a_place_lifts_it
mkdir -p "$HOME/.cache/tool" "$HOME/.config/app"
sx --allow-write "$HOME/" --allow-write "$HOME/.cache/tool" -- sh -c \
	'echo a > ~/.cache/tool/a; echo b > ~/.config/app/b; echo c > ~/visible.txt; mkdir ~/.newtool; echo END'
if has '^END$' out && [ "$(cat "$HOME/.cache/tool/a")" = a ] && [ ! -e "$HOME/.config/app/b" ] &&
   [ "$(cat "$HOME/visible.txt")" = c ] && [ ! -e "$HOME/.newtool" ] &&
   hasf 'denied write of ~/.config/app/b by `~/.* kept read-only`' err &&
   hasf '(allow it with --allow-write ~/.config/app)' err; then ok
else bad "rc=$RC $(grep denied "$B/err" | head -c 300)"; fi

# An agent profile names its agent's own state: writable under it, with
# HOME as the workspace; the rest of HOME's hidden entries stay kept.
t profile_state_dir_writable_with_home_as_workspace
mkdir -p "$HOME/.claude-sbx" "$HOME/.npm/_cacache" "$HOME/.cache/pip"
sxh --profile claude -- sh -c 'echo s > ~/.claude-sbx/state.json; mkdir -p "$npm_config_cache";
	echo c > "$npm_config_cache/x"; echo h > ~/.npm/_cacache/x 2>/dev/null;
	echo p > ~/.cache/pip/x 2>/dev/null; echo e > ~/.cache/evil 2>/dev/null; echo END'
if has '^END$' out && [ "$(cat "$HOME/.claude-sbx/state.json")" = s ] &&
   [ "$(cat "$HOME/.cache/sbx-caches/npm/x")" = c ] && [ ! -e "$HOME/.npm/_cacache/x" ] &&
   [ ! -e "$HOME/.cache/pip/x" ] && [ ! -e "$HOME/.cache/evil" ]; then ok
else bad "rc=$RC $(grep denied "$B/err" | head -c 300)"; fi

# A preset (`[sandbox] profile = permissive-open`, Gemini CLI's names)
# gives the package tools caches of the sandbox's own, as the agent
# profiles do: a planted npx package in the host's ~/.npm/_npx, which a
# later `npx` outside runs as it is, stays out; the host's `npx` then runs
# nothing planted (its cache is looked at on the host's tree).
t preset_tool_caches_are_the_sandboxs_own_npx_cache_kept
mkdir -p "$HOME/.npm/_npx" "$HOME/.cache/uv"
printf '[sandbox]\nprofile = permissive-open\n' > "$B/preset.ini"
sx -q --config "$B/preset.ini" -- sh -c 'mkdir -p "$npm_config_cache" && echo c > "$npm_config_cache/x";
	mkdir -p ~/.npm/_npx/evil/node_modules/.bin 2>/dev/null; echo p > ~/.npm/_npx/planted 2>/dev/null;
	echo u > ~/.cache/uv/planted 2>/dev/null; echo END'
if has '^END$' out && [ "$(cat "$HOME/.cache/sbx-caches/npm/x")" = c ] &&
   [ -z "$(ls -A "$HOME/.npm/_npx")" ] && [ ! -e "$HOME/.cache/uv/planted" ] &&
   hasf "denied write of ~/.npm/_npx/planted" err; then ok
else bad "rc=$RC $(ls -A "$HOME/.npm/_npx") $(grep denied "$B/err" | head -c 300)"; fi

# --learn writes nothing to HOME: every file, link, mode and byte of the
# test HOME is the same after a learning run that tries to write all over
# it (sbx's own state directory aside, where the audit log goes).
home_sum() {
	(cd "$HOME" && find . -path ./.local/state/sbx -prune -o -printf '%p %y %m %l %s\n' | sort
	 find . -path ./.local/state/sbx -prune -o -type f -print0 | sort -z | xargs -0 -r sha256sum)
}
t learn_leaves_home_byte_identical
home_layout
echo keep > "$HOME/notes.txt" && mkdir -p "$HOME/.cache/pip" "$HOME/proj" && echo k > "$HOME/.cache/pip/k"
mkdir -p "$HOME/.local/state/sbx"
before=$(home_sum)
sx --learn="$B/l.ini" -- sh -c "echo x >> ~/notes.txt; echo y > ~/new.txt; mkdir ~/newdir;
	echo \"$(pth pyenv)\" > ~/$PYSITE/x.pth; mkdir -p ~/.docker/cli-plugins; echo z > ~/.cache/pip/z;
	rm -f ~/.cache/pip/k; chmod 600 ~/notes.txt; ln -s x ~/link; mv ~/proj ~/proj2; echo END"
st=""
if have_wf; then
	sx --learn="$B/l2.ini" -- "$WF" pwned "$HOME/static.txt" "$HOME/.cache/pip/s" "$HOME/$USITE/s.pth"
	[ "$(grep -c '^ERR' "$B/out")" -eq 3 ] || st="static: $(tr '\n' ' ' < "$B/out")"
fi
after=$(home_sum)
if [ "$before" = "$after" ] && [ -z "$st" ] && [ -f "$B/l.ini" ] && ! runs_python pyenv; then ok
else bad "$st changed: $(diff <(echo "$before") <(echo "$after") | head -8 | tr '\n' ' ')"; fi

# ... and what it learned: the refused writes in HOME, recorded; never a
# place a later program runs from, which is said instead.
t learn_records_home_writes_never_proposes_an_interpreter
home_layout
mkdir -p "$HOME/.cache/pip" "$HOME/data"
sx --learn="$B/l.ini" -- sh -c "echo x > ~/data/a; echo y > ~/.cache/pip/y;
	echo \"$(pth pyenv)\" > ~/$PYSITE/x.pth; mkdir ~/.docker/cli-plugins; echo END"
l=$(grep -v '^;' "$B/l.ini" | sed '/^$/d')
if has '^END$' out && grep -qx 'allow_write = ~/data/' <<<"$l" &&
   grep -qx 'allow_write = ~/.cache/pip/' <<<"$l" && ! grep -q 'pyenv\|docker' <<<"$l" &&
   grep -qF "~/.pyenv: pyenv's Python interpreters" "$B/l.ini" && grep -q 'not proposed' "$B/l.ini" &&
   grep -qF "~/.cache/pip: pip's cache: later pip installs install the wheels there" "$B/l.ini" &&
   [ ! -e "$HOME/data/a" ] && [ ! -e "$HOME/.cache/pip/y" ]; then ok
else bad "rc=$RC learned: $(tr '\n' '|' < "$B/l.ini" | tail -c 900)"; fi

# The learned file, used: the next run writes what it learned, and the
# interpreter stays closed.
t learned_file_replayed_opens_what_was_learned_only
home_layout
mkdir -p "$HOME/.cache/pip"
sx --learn="$B/l.ini" -- sh -c "echo y > ~/.cache/pip/y; echo \"$(pth pyenv)\" > ~/$PYSITE/x.pth"
sx -c "$B/l.ini" -- sh -c "echo y > ~/.cache/pip/y; echo \"$(pth pyenv)\" > ~/$PYSITE/x.pth; echo END"
if has '^END$' out && [ "$(cat "$HOME/.cache/pip/y")" = y ] && [ -z "$(ls "$HOME/$PYSITE")" ] &&
   ! runs_python pyenv; then ok
else bad "rc=$RC $(grep denied "$B/err" | head -c 300)"; fi

echo "# $(id -un) (homekept): $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
