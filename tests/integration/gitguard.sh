#!/bin/bash
# git directories and protected names the boundary must find wherever they
# are (issue 9, attacker review): repositories nested deeper than the scan's
# three levels, bare repositories, config.worktree, submodules nested deeper
# than four, protected names whose parent directory is missing at start,
# names under $XDG_CONFIG_HOME, and linked worktrees forged by an earlier
# run. Each test is an attack a sandboxed program can make; it is run with
# the boundary alone (--no-shim: a static binary's view) and, where the shim
# acts, with it. git itself must keep working (issue 8). Helpers (t, ok,
# bad, skip, sx, has, hasf) are in lib.sh.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# sxh ARGS: sx with HOME as the workspace (HOME writable)
sxh() { cd "$HOME" && sx "$@"; cd "$W" || exit 1; }
# attack GITDIR: what a hostile program writes into a git directory: a hook
# and an fsmonitor command in config (each runs with the next git there)
attack='g=$1; echo "touch /tmp/pwned" > "$g/hooks/pre-commit"; chmod +x "$g/hooks/pre-commit"
	echo "[core] fsmonitor = touch /tmp/pwned" >> "$g/config"; echo END'
# untouched GITDIR ORIG: no hook, config (and config.worktree, if kept) as before
untouched() {
	[ ! -e "$1/hooks/pre-commit" ] && cmp -s "$1/config" "$2/config.orig" &&
		{ [ ! -e "$2/config.worktree.orig" ] || cmp -s "$1/config.worktree" "$2/config.worktree.orig"; }
}
keep() { cp "$1/config" "$B/config.orig"; [ -e "$1/config.worktree" ] && cp "$1/config.worktree" "$B/config.worktree.orig"; true; }

# ---- 1. repositories deeper than the scan's three levels

# workspace/sub/dir/repo/.git/config is four levels down, and a repository
# nested ten deep; both keep hooks and config read-only, with the boundary
# alone, and git still commits in the deep one.
t nested_repo_at_depth_four_keeps_hooks_and_config_no_shim
mkrepo "$W/sub/dir/repo"; keep "$W/sub/dir/repo/.git"
sx --no-shim -- sh -c "$attack" sh sub/dir/repo/.git
if has END out && untouched "$W/sub/dir/repo/.git" "$B"; then ok
else bad "rc=$RC hooks: $(ls sub/dir/repo/.git/hooks | grep -v sample | tr '\n' ' ') config: $(tail -1 sub/dir/repo/.git/config)"; fi

t nested_repo_at_depth_four_refused_and_explained_with_the_shim
mkrepo "$W/sub/dir/repo"; keep "$W/sub/dir/repo/.git"
sx -- sh -c "$attack" sh sub/dir/repo/.git
if has END out && untouched "$W/sub/dir/repo/.git" "$B" &&
   hasf "denied write of $W/sub/dir/repo/.git/config" err; then ok
else bad "rc=$RC $(grep denied "$B/err" | head -3 | tr '\n' ' ')"; fi

t repo_ten_levels_deep_protected_and_git_commits_there
d="$W/a/b/c/d/e/f/g/h/i/repo"; mkrepo "$d"; keep "$d/.git"
sx --no-shim -- sh -c "cd a/b/c/d/e/f/g/h/i/repo && echo n > n && git add n && git commit -qm deep && echo COMMITTED;
	$attack" sh .git
if has COMMITTED out && has END out && untouched "$d/.git" "$B" &&
   [ "$(git -C "$d" log -1 --format=%s)" = deep ]; then ok
else bad "rc=$RC log: $(git -C "$d" log -1 --format=%s) $(head -c 300 "$B/err")"; fi

# A linked worktree deep in the workspace: its `.git` file cannot be
# repointed at a git directory the program made.
t deep_linked_worktree_git_file_cannot_be_repointed_no_shim
mkrepo "$W/x/y/main" && git -C "$W/x/y/main" worktree add -q "$W/x/y/z/wt" -b wtb
cp "$W/x/y/z/wt/.git" "$B/gitfile.orig"
sx --no-shim -- sh -c 'git init -q --bare evil.git; echo "gitdir: $PWD/evil.git" > x/y/z/wt/.git; echo END'
if has END out && cmp -s "$W/x/y/z/wt/.git" "$B/gitfile.orig"; then ok
else bad "rc=$RC .git now: $(cat "$W/x/y/z/wt/.git")"; fi

# ---- 2. bare repositories, config.worktree, submodules at any depth

# ~/.dotfiles, a bare repository whose worktree is HOME (git --git-dir=
# ~/.dotfiles --work-tree=~): with HOME writable, its hooks and config stay
# read-only.
t bare_dotfiles_repository_in_home_keeps_hooks_and_config_no_shim
git init -q --bare "$HOME/.dotfiles"; keep "$HOME/.dotfiles"
sxh --no-shim -- sh -c "$attack" sh "$HOME/.dotfiles"
if has END out && untouched "$HOME/.dotfiles" "$B"; then ok
else bad "rc=$RC hooks: $(ls "$HOME/.dotfiles/hooks" | grep -v sample | tr '\n' ' ') config: $(tail -1 "$HOME/.dotfiles/config")"; fi

# A bare repository deep in the workspace (a mirror, a backup), and git
# still pushes into it.
t bare_repository_deep_in_workspace_protected_and_push_works
mkrepo "$W/src" && git init -q --bare "$W/p/q/r/mirror.git" &&
	git -C "$W/src" remote add m "$W/p/q/r/mirror.git"
keep "$W/p/q/r/mirror.git"
sx --no-shim -- sh -c "git -C src push -q m main && echo PUSHED; $attack" sh p/q/r/mirror.git
if has PUSHED out && has END out && untouched "$W/p/q/r/mirror.git" "$B" &&
   [ "$(git -C "$W/p/q/r/mirror.git" rev-parse main)" = "$(git -C "$W/src" rev-parse main)" ]; then ok
else bad "rc=$RC $(head -c 300 "$B/err")"; fi

# config.worktree is config (extensions.worktreeConfig): an existing one is
# read-only; a missing one in a repository that reads it gets a stand-in;
# one git would not read is refused when made, by the boundary (the seccomp
# notify layer: no shim here).
t config_worktree_existing_read_only_missing_guarded_no_shim
mkrepo "$W" && git config extensions.worktreeConfig true && git config --worktree core.sparseCheckout false
mkrepo "$W/other"
keep "$W/.git"; rm -f "$W/other/.git/config.worktree"
sx --no-shim -- sh -c 'echo "[core] fsmonitor = touch /tmp/pwned" >> .git/config.worktree
	echo "[core] fsmonitor = touch /tmp/pwned" > other/.git/config.worktree; git status >/dev/null && echo GIT-OK; echo END'
if has END out && has GIT-OK out && untouched "$W/.git" "$B" && [ ! -e other/.git/config.worktree ] &&
   hasf "denied write of $W/other/.git/config.worktree by \`deny_write = .git/config.worktree\`" err &&
   has "other/.git/config.worktree.*(seccomp)" err; then ok
else bad "rc=$RC wt: $(tail -1 .git/config.worktree) $(ls other/.git) $(grep -v 'sandbox on' "$B/err" | head -c 300)"; fi

t config_worktree_missing_refused_when_git_reads_it_no_shim
mkrepo "$W" && git config extensions.worktreeConfig true && rm -f .git/config.worktree
sx --no-shim -- sh -c 'ls -la .git | grep -c worktree; echo "[core] fsmonitor = touch /tmp/pwned" > .git/config.worktree;
	git status >/dev/null && echo GIT-OK; echo END'
if has END out && has GIT-OK out && has '^0$' out && [ ! -e .git/config.worktree ] &&
   [ ! -L .git/config.worktree ] && has 'denied write of .*/.git/config.worktree .*(seccomp)' err; then ok
else bad "rc=$RC $(cat "$B/out" | tr '\n' ' ') $(ls -la .git | grep worktree)"; fi

# Submodules inside submodules, five deep: the innermost one's git directory
# (.git/modules/s1/modules/s2/.../modules/s5) keeps hooks and config.
t submodule_nested_five_deep_keeps_hooks_and_config_no_shim
for i in 5 4 3 2 1; do
	mkrepo "$B/s$i"
	if [ $i -lt 5 ]; then
		git -C "$B/s$i" -c protocol.file.allow=always submodule add -q "$B/s$((i + 1))" "s$((i + 1))" >/dev/null 2>&1 &&
			git -C "$B/s$i" commit -qm "add s$((i + 1))"
	fi
done
mkrepo "$W" && git -c protocol.file.allow=always submodule add -q "$B/s1" s1 >/dev/null 2>&1 && git commit -qm add-s1 &&
	git -c protocol.file.allow=always submodule update -q --init --recursive >/dev/null 2>&1
inner=$(git -C s1/s2/s3/s4/s5 rev-parse --absolute-git-dir 2>/dev/null)
if [ -z "$inner" ] || [[ $inner != "$W/.git/modules/s1/modules/s2/modules/s3/modules/s4/modules/s5" ]]; then
	skip "could not make nested submodules: '$inner'"
else
	keep "$inner"
	sx --no-shim -- sh -c "$attack" sh "$inner"
	if has END out && untouched "$inner" "$B" && git -C s1/s2/s3/s4/s5 status >/dev/null 2>&1; then ok
	else bad "rc=$RC hooks: $(ls "$inner/hooks" | grep -v sample | tr '\n' ' ') config: $(tail -1 "$inner/config")"; fi
fi

# The walk is bounded: past it, sbx says where it stopped (never silent),
# and what it found before then is protected.
t walk_limit_is_said_and_shallow_repos_still_protected
mkrepo "$W/early" && keep "$W/early/.git"
mkdir -p "$W/wide" && (cd "$W/wide" && seq 100001 | xargs mkdir)
sx --no-shim -- sh -c "$attack" sh early/.git
if has END out && untouched "$W/early/.git" "$B" &&
   has 'looked for git repositories in 100000 directories.*stopped before' err; then ok
else bad "rc=$RC $(grep -v 'sandbox on' "$B/err" | head -c 300)"; fi

# ---- 3. protected names whose parent directory does not exist at start

# ~/.config/git/config with no ~/.config, ~/.claude/commands with no
# ~/.claude: the shim refuses them; a program it does not see is refused by
# the boundary (the seccomp notify layer), reported as such (no stand-in:
# one in place of the parent would break the program that makes ~/.config
# or ~/.claude).
t protected_name_with_missing_parent_refused_by_the_shim
rm -rf "$HOME/.config" "$HOME/.claude"
sxh -- sh -c 'mkdir -p ~/.config/git ~/.claude; echo "[core] fsmonitor = id" > ~/.config/git/config
	mkdir ~/.claude/commands; echo END'
if has END out && [ ! -e "$HOME/.config/git/config" ] && [ ! -e "$HOME/.claude/commands" ] &&
   hasf 'denied write of ~/.config/git/config' err && hasf 'denied write of ~/.claude/commands' err; then ok
else bad "rc=$RC $(ls -A "$HOME/.config/git" "$HOME/.claude" 2>&1 | tr '\n' ' ')"; fi

# (HOME's hidden entries are kept unless named: ~/.config/ and ~/.claude/
# named, made empty by sbx at start; ~/.config/git is missing)
t protected_name_with_missing_parent_refused_by_the_boundary_no_shim
rm -rf "$HOME/.config" "$HOME/.claude"
sxh --no-shim --allow-write "$HOME/.config/" --allow-write "$HOME/.claude/" -- sh -c \
	'mkdir -p ~/.config/git ~/.claude/commands; echo "[core] fsmonitor = id" > ~/.config/git/config
	echo evil > ~/.claude/commands/x.md; echo END'
if has END out && [ -d "$HOME/.config/git" ] && [ ! -e "$HOME/.config/git/config" ] &&
   [ -d "$HOME/.claude" ] && [ ! -e "$HOME/.claude/commands" ] &&
   has 'denied write of ~/.config/git/config .*(seccomp)' err &&
   has 'denied write of ~/.claude/commands .*(seccomp)' err; then ok
else bad "rc=$RC $(grep -v 'sandbox on' "$B/err" | head -c 300)"; fi

# $XDG_CONFIG_HOME elsewhere: git reads $XDG_CONFIG_HOME/git/config, so that
# is what is protected: existing (read-only), missing with its directory or
# without (refused when made: the notify layer, and the shim).
t xdg_config_home_git_config_protected_where_it_points
mkdir -p "$HOME/xa/git" "$HOME/xb/git" && echo '[user]' > "$HOME/xa/git/config"
XDG_CONFIG_HOME="$HOME/xa" sxh --no-shim -- sh -c 'echo "[core] fsmonitor = id" >> "$XDG_CONFIG_HOME/git/config"; echo END'; a=$(has END out && echo y)
XDG_CONFIG_HOME="$HOME/xb" sxh --no-shim -- sh -c 'echo "[core] fsmonitor = id" > "$XDG_CONFIG_HOME/git/config"; echo END'
b=$(has END out && has 'denied write of ~/xb/git/config .*(seccomp)' err && echo y)
XDG_CONFIG_HOME="$HOME/xc" sxh -- sh -c 'mkdir -p "$XDG_CONFIG_HOME/git"; echo "[core] fsmonitor = id" > "$XDG_CONFIG_HOME/git/config"; echo END'
c=$(has END out && hasf 'denied write of ~/xc/git/config' err && echo y)
if [ "$a$b$c" = yyy ] && [ "$(cat "$HOME/xa/git/config")" = '[user]' ] && [ ! -e "$HOME/xb/git/config" ] &&
   [ ! -L "$HOME/xb/git/config" ] && [ ! -e "$HOME/xc/git/config" ]; then ok
else bad "existing=$a missing=$b missing-dir=$c xa: $(tail -1 "$HOME/xa/git/config") xb: $(ls -A "$HOME/xb/git") $(head -c 200 "$B/err")"; fi

# ---- 4. linked worktrees forged by an earlier run

# Run 1 (workspace P, holding the repository w1 and a directory T) makes a
# pair that points back: w1/.git/worktrees/evil/gitdir naming T/.git, and
# T/.git naming the entry. Run 2 in T must not get w1's git directory
# writable; it says why and how to open it.
t forged_linked_worktree_from_an_earlier_run_opens_nothing
mkrepo "$W/w1" && mkdir "$W/T"
sx -- sh -c 'e=w1/.git/worktrees/evil; mkdir -p $e && cp w1/.git/HEAD $e/HEAD && echo ../.. > $e/commondir &&
	echo "$PWD/T/.git" > $e/gitdir && echo "gitdir: $PWD/$e" > T/.git && echo PLANTED'
p1=$(has PLANTED out && echo y)
cd T || exit 1
sx -- sh -c 'echo pwned > ../w1/.git/pwned; git -C ../w1 update-ref refs/heads/evil HEAD 2>/dev/null; echo END'
cd "$W" || exit 1
if [ "$p1" = y ] && has END out && [ ! -e w1/.git/pwned ] && ! git -C w1 rev-parse -q --verify refs/heads/evil >/dev/null &&
   hasf "the linked worktree $W/w1/.git/worktrees/evil was made or changed inside a sandbox" err &&
   hasf "open it with --allow-write $W/w1/.git" err && ! has 'and its git directory' err; then ok
else bad "planted=$p1 rc=$RC pwned=$([ -e w1/.git/pwned ] && echo YES) $(grep -v denied "$B/err" | head -c 300)"; fi

# A linked worktree made on the host is opened as before, and the start-up
# line names the git directory it opens.
t host_made_linked_worktree_opened_and_named_in_the_start_up_line
mkrepo "$B/main" && git -C "$B/main" worktree add -q "$W/lw" -b lwb
cd lw || exit 1
sx -- sh -c 'echo w > w && git add w && git commit -qm in-lw && echo END'
cd "$W" || exit 1
if has END out && [ "$(git -C "$B/main" log -1 --format=%s lwb)" = in-lw ] &&
   hasf "writable and its git directory $B/main/.git," err; then ok
else bad "rc=$RC $(head -c 300 "$B/err")"; fi

# `git worktree add` inside a sandbox works in that run (issue 8); a later
# run in the new worktree does not trust it (it is exactly what a forger
# makes) and says how to open it, and that flag, followed, works.
t worktree_added_inside_is_not_trusted_later_until_allowed
mkrepo "$W/w1"
sx -- sh -c 'git -C w1 worktree add -q ../wt2 -b side && echo ADDED'
a=$(has ADDED out && echo y)
cd wt2 || exit 1
sx -- sh -c 'echo n > n && git add n && git commit -qm later && echo COMMITTED'
b=$(has COMMITTED out && echo y); hint=$(sed -n 's/.*open it with \(--allow-write [^ ]*\).*/\1/p' "$B/err" | head -1)
sx $hint -- sh -c 'echo n > n && git add n && git commit -qm later && echo COMMITTED'
cd "$W" || exit 1
if [ "$a" = y ] && [ -z "$b" ] && [ "$hint" = "--allow-write $W/w1/.git" ] && has COMMITTED out &&
   [ "$(git -C w1 log -1 --format=%s side)" = later ]; then ok
else bad "added=$a first-commit=$b hint='$hint' rc=$RC $(head -c 300 "$B/err")"; fi

# ---- what the person is told about a repository the run made

# git init and a commit in a fresh workspace: the run made .git/config and
# .git/hooks itself, seen by the notify layer and named at the end as a
# repository the run created; no line claims a program the shim does not
# see made them. The start line counts the names protected wherever they
# are made, not only the paths mounted now (0 in a fresh workspace).
t git_init_in_a_fresh_workspace_named_once_not_as_appeared
sx -- sh -c 'git init -q -b main && git -c user.name=a -c user.email=a@b -c commit.gpgsign=false commit -q --allow-empty -m first && echo DONE'
names=$(head -1 "$B/err" | sed -n 's/.* \([0-9][0-9]*\) protected names at any depth.*/\1/p')
if has DONE out && [ "$(git -C "$W" log -1 --format=%s)" = first ] &&
   ! hasf 'appeared during the run' err &&
   [ "$(grep -c 'git repository created during the run' "$B/err")" = 1 ] &&
   [ -n "$names" ] && [ "$names" -gt 10 ]; then ok
else bad "rc=$RC names='$names' $(grep sbx: "$B/err" | head -4 | tr '\n' ' ')"; fi

# ---- 5. git's everyday writes to its own config (issue 24)
#
# A repository that existed at start keeps its config read-only, yet git
# writes user.email, a remote, an upstream there through config.lock and a
# rename: the notify layer reads the new file and lets it replace the old
# one when no key that runs a program or loads a file changed
# (preload/notify/gitcfg.c). The change lands on the host; a key that
# runs something is refused by name, and git on the host runs nothing.

GP=$(mktemp -d /var/tmp/sbx-gitcfg.XXXXXX)
built gitcfgput.static "$GP/gitcfgput" 2>/dev/null || rm -f "$GP/gitcfgput"

# a repository with a remote-tracking branch to set as upstream
mkremote() {
	mkrepo "$1" && git -C "$1" remote add up https://example.invalid/up &&
	git -C "$1" update-ref refs/remotes/up/main HEAD
}

t everyday_git_config_writes_land_on_the_host_shim_and_boundary_alone
res=""
for mode in "" --no-shim; do
	rm -rf "$W/r"; mkremote "$W/r"
	sx $mode -- sh -c 'cd r && git config user.email in@sbx && git remote add up2 https://example.invalid/x &&
		git branch --set-upstream-to=up/main main >/dev/null && echo DONE'
	if has DONE out && ! has 'could not' err && [ "$(git -C r config user.email)" = in@sbx ] &&
	   [ "$(git -C r config remote.up2.url)" = https://example.invalid/x ] &&
	   [ "$(git -C r config branch.main.remote)" = up ] && ! ls -a r/.git | grep -q sbx-gitcfg; then
		res="${res}y"
	else res="$res[${mode:-shim}: rc=$RC $(grep -v '^sbx: sandbox' "$B/err" | head -2 | tr '\n' ' ')]"; fi
done
if [ "$res" = yy ]; then ok; else bad "$res"; fi

t program_running_keys_refused_by_name_and_host_git_runs_nothing
mkremote "$W/r"; git -C r remote add origin https://example.invalid/o; cp r/.git/config "$B/config.orig"
keys="core.fsmonitor core.hooksPath core.pager core.sshCommand core.worktree credential.helper filter.x.clean
	diff.x.textconv alias.st include.path protocol.ext.allow remote.origin.uploadpack sequence.editor"
sx -- sh -c 'cd r; for k in $0; do git config "$k" "!touch $1/pwned-$k" 2>/dev/null && echo "SET $k"; done; echo END' \
	"$(echo $keys)" "$B"
git -C r status >/dev/null 2>&1; git -C r log -1 >/dev/null 2>&1; GIT_PAGER= git -C r -p log -1 >/dev/null 2>&1
missing=""; for k in $keys; do grep -qiF "$k would" "$B/err" || missing="$missing $k"; done
if has END out && ! has SET out && cmp -s r/.git/config "$B/config.orig" && [ -z "$missing" ] &&
   ! ls "$B" | grep -q pwned && hasf 'core.fsmonitor would run a program: refused' err; then ok
else bad "set: $(grep SET "$B/out" | tr '\n' ' ') unnamed:$missing pwned: $(ls "$B" | grep pwned) $(diff r/.git/config "$B/config.orig" | head -3)"; fi

t static_binary_config_rename_decided_by_content_not_by_name
if [ ! -x "$GP/gitcfgput" ]; then skip "no static C toolchain"; else
mkrepo "$W/r"; cp r/.git/config "$B/config.orig"
{ cat r/.git/config; printf '[user]\n\temail = static@sbx\n'; } > "$W/good.cfg"
{ cat r/.git/config; printf '[Core]\n\tFsMonitor = "touch %s/pwned"\n' "$B"; } > "$W/evil.cfg"
printf '[core]\n\tfsmonitor = touch %s/pwned\n' "$B" > "$W/extra.cfg"
sx --no-shim -- sh -c "$GP/gitcfgput put r/.git evil.cfg; cp r/.git/config bad.orig
	$GP/gitcfgput symlink r/.git \$PWD/good.cfg; $GP/gitcfgput put r/.git good.cfg; echo PUT
	$GP/gitcfgput keep r/.git good.cfg extra.cfg; echo KEPT
	cp good.cfg r/.git/hl.cfg; $GP/gitcfgput hardlink r/.git r/.git/hl.cfg; cat extra.cfg >> r/.git/hl.cfg; echo END"
git -C r status >/dev/null 2>&1
if has END out && [ "$(head -2 "$B/out" | tr '\n' ' ')" = "ERR EROFS ERR EROFS " ] && cmp -s bad.orig "$B/config.orig" &&
   [ "$(grep -c '^OK' "$B/out")" = 3 ] && grep -q fsmonitor r/.git/hl.cfg && has WROTE out && [ "$(git -C r config user.email)" = static@sbx ] &&
   ! grep -qi fsmonitor r/.git/config && [ ! -e "$B/pwned" ] &&
   hasf 'core.fsmonitor would run a program: refused' err && [ ! -e r/.git/config.lock ]; then ok
else bad "out: $(tr '\n' ' ' < "$B/out") config: $(grep -i -A1 'fsmonitor\|user' r/.git/config | tr '\n' ' ')"; fi
fi

# A repository the run makes is the run's, but git on the host may run in
# it later: registered in the user's index as a submodule (`git status`
# there runs git in it), found by an editor, or entered by the person.
# Its config holds no key that runs a program, however it is written: by
# `git config` (config.lock and a rename, judged whole), by hand (refused),
# in a directory that became a repository only later (objects/ and refs/
# beside a config written before; a `.git` file leads git there), or
# through a descriptor kept open across that moment. Before 2026-11-29
# each of them planted a core.fsmonitor that `git status` on the host ran.
t run_made_repositories_config_vetted_host_git_status_runs_nothing
res=""
for mode in "" --no-shim; do
	rm -rf "$W/r" "$B"/pwned-*; mkrepo "$W/r"
	sx $mode -- sh -c 'cd r; B=$0
		git init -q evil && git -C evil -c user.email=a@b -c user.name=a commit -q --allow-empty -m e && echo INIT
		git -C evil config user.email ok@sbx && echo BENIGN
		git -C evil config core.fsmonitor "touch $B/pwned-cfg" 2>/dev/null && echo SET-cfg
		printf "[core]\n\tfsmonitor = touch $B/pwned-direct\n" >> evil/.git/config 2>/dev/null && echo SET-direct
		mkdir evil2 stage && printf "[core]\n\tfsmonitor = touch $B/pwned-stage\n" > stage/config &&
			echo "ref: refs/heads/main" > stage/HEAD && mkdir stage/objects && mkdir stage/refs 2>/dev/null && echo SET-stage
		printf "gitdir: ../stage\n" > evil2/.git
		mkdir evil3 held && echo "ref: refs/heads/main" > held/HEAD && printf "gitdir: ../held\n" > evil3/.git
		python3 -c "import os,sys
fd = os.open(\"held/config\", os.O_RDWR | os.O_CREAT, 0o644)
os.write(fd, b\"[core]\\n\\tbare = false\\n\")
os.mkdir(\"held/objects\"); os.mkdir(\"held/refs\")
os.write(fd, (\"[core]\\n\\tfsmonitor = touch %s/pwned-held\\n\" % sys.argv[1]).encode())
print(\"HELD\")" "$B"
		git init -q --bare b.git && git -C b.git config core.fsmonitor "touch $B/pwned-bare" 2>/dev/null && echo SET-bare
		git clone -q evil cl 2>/dev/null && echo CLONED
		c=$(git -C evil rev-parse HEAD)
		for s in evil evil2 evil3; do git update-index --add --cacheinfo 160000,$c,$s || echo NOREG; done
		echo END' "$B"
	for s in . evil evil2 evil3 cl; do git -C "r/$s" status >/dev/null 2>&1; done
	git -C r/b.git log >/dev/null 2>&1
	pw=$(cd "$B" && ls -d pwned-* 2>/dev/null | tr '\n' ' ')
	if has END out && has INIT out && has BENIGN out && has HELD out && has CLONED out && ! has SET- out &&
	   ! has NOREG out && [ -z "$pw" ] && [ "$(git -C r/evil config user.email)" = ok@sbx ] &&
	   [ "$(git -C r/cl config core.filemode)" = true ] &&
	   hasf 'evil/.git/config — core.fsmonitor would run a program: refused' err &&
	   hasf 'stage/config — core.fsmonitor would run a program: refused' err &&
	   hasf 'b.git/config — core.fsmonitor would run a program: refused' err &&
	   ! grep -qi fsmonitor r/evil/.git/config r/held/config r/b.git/config; then
		res="${res}y"
	else res="$res[${mode:-shim}: pwned: $pw out: $(tr '\n' ' ' < "$B/out") $(grep -v '^sbx: sandbox' "$B/err" | head -3 | tr '\n' ' ')]"; fi
done
if [ "$res" = yy ]; then ok; else bad "$res"; fi

# The same from a static binary, which the shim never sees: git's
# config.lock and rename, done by hand into a repository the run made.
t run_made_repository_config_rename_judged_whole_static
if [ ! -x "$GP/gitcfgput" ]; then skip "no static C toolchain"; else
mkrepo "$W/r"
printf '[core]\n\tbare = false\n[user]\n\temail = static@sbx\n' > "$W/good.cfg"
printf '[core]\n\tbare = false\n\tfsmonitor = touch %s/pwned\n' "$B" > "$W/evil.cfg"
sx --no-shim -- sh -c "git init -q r/new && $GP/gitcfgput put r/new/.git evil.cfg; $GP/gitcfgput put r/new/.git good.cfg;
	$GP/gitcfgput symlink r/new/.git \$PWD/good.cfg; echo END"
git -C r/new status >/dev/null 2>&1
if has END out && [ "$(head -1 "$B/out")" = "ERR EROFS" ] && [ "$(sed -n 2p "$B/out")" = OK ] &&
   [ "$(sed -n 3p "$B/out")" != OK ] && [ "$(git -C r/new config user.email)" = static@sbx ] &&
   [ ! -e "$B/pwned" ] && ! grep -qi fsmonitor r/new/.git/config &&
   hasf 'core.fsmonitor would run a program: refused' err; then ok
else bad "out: $(tr '\n' ' ' < "$B/out") $(grep -v '^sbx: sandbox' "$B/err" | head -2 | tr '\n' ' ')"; fi
fi

# A submodule the run clones gets core.worktree = ../../../lib, which git
# on the host checks out into later; for the rest of the run no link (or
# directory) lands there, so it cannot become a way into HOME.
t run_made_submodule_work_tree_cannot_become_a_link
sx -- sh -c 'export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@b
	git init -q s && echo x > s/PLANTED && git -C s add . && git -C s commit -qm s && git init -q sup &&
	git -C sup -c protocol.file.allow=always submodule add -q ../s lib && git -C sup commit -qm sub && echo ADDED
	git -C sup/.git/modules/lib config core.worktree
	rm -rf sup/lib; ln -s "$HOME" sup/lib 2>/dev/null && echo LINKED
	mkdir -p stage && ln -s "$HOME" stage/x && mv stage sup/lib 2>/dev/null && echo MOVED; echo END'
if has END out && has ADDED out && has '^../../../lib$' out && ! has LINKED out && ! has MOVED out &&
   [ ! -L sup/lib ] && [ ! -e "$HOME/PLANTED" ]; then ok
else bad "rc=$RC $(tr '\n' ' ' < "$B/out") $(grep -v '^sbx: sandbox' "$B/err" | head -3 | tr '\n' ' ')"; fi

# ... nor through a link there already: core.worktree names the place
# lexically, git on the host goes there through the links on the way
# (`a` a link to HOME: `git reset --hard` in the submodule checked its
# files out into HOME before 2026-11-29; `x/../lib` with x a link to HOME
# leads to HOME's parent).
t run_made_submodule_work_tree_not_through_a_link_there_before
sx -- sh -c 'export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@b
	git init -q s && echo x > s/PLANTED && git -C s add . && git -C s commit -qm s && git init -q sup &&
	git -C sup -c protocol.file.allow=always submodule add -q ../s lib && git -C sup commit -qm sub && echo ADDED
	ln -s "$HOME" sup/a && ln -s "$HOME" sup/x && echo LINKS
	c=sup/.git/modules/lib/config
	git config -f $c core.worktree ../../../lib && echo SAME
	git config -f $c core.worktree ../../../x/../lib 2>/dev/null && echo SET-x
	git config -f $c core.worktree ../../../a 2>/dev/null && echo SET-a; echo END'
rm -f sup/lib/PLANTED; git -C sup/lib reset -q --hard 2>/dev/null
if has END out && has ADDED out && has LINKS out && has SAME out && ! has SET- out &&
   [ ! -e "$HOME/PLANTED" ] && [ ! -e "$B/lib" ] && [ -f sup/lib/PLANTED ]; then ok
else bad "rc=$RC home: $(ls "$HOME" | tr '\n' ' ') $(tr '\n' ' ' < "$B/out") $(grep -v '^sbx: sandbox' "$B/err" | head -3 | tr '\n' ' ')"; fi

# ... nor by moving the git directory away from its work tree: the value
# is relative to where the git directory is (moved under sup/m/n/o, with
# sup/m/lib a link to HOME and a `.git` file naming it, `git reset --hard`
# there on the host wrote into HOME before 2026-11-29); moving both
# together (the superproject renamed) keeps the work tree's place
# remembered.
t run_made_submodule_git_dir_cannot_move_away_from_its_work_tree
sx -- sh -c 'export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@b
	git init -q s && echo x > s/PLANTED && git -C s add . && git -C s commit -qm s && git init -q sup &&
	git -C sup -c protocol.file.allow=always submodule add -q ../s lib && git -C sup commit -qm sub && echo ADDED
	mkdir -p sup/m/n/o w && ln -s "$HOME" sup/m/lib && echo "gitdir: ../sup2/m/n/o/lib" > w/.git
	mv sup/.git/modules/lib sup/m/n/o/lib 2>/dev/null && echo MOVED-gitdir
	mv sup sup2 && echo MOVED-sup
	rm -rf sup2/lib; ln -s "$HOME" sup2/lib 2>/dev/null && echo LINKED; echo END'
git -C w reset -q --hard 2>/dev/null
if has END out && has ADDED out && has MOVED-sup out && ! has MOVED-gitdir out && ! has LINKED out &&
   [ ! -e "$HOME/PLANTED" ] && [ ! -L sup2/lib ] &&
   hasf 'core.worktree names: refused' err; then ok
else bad "rc=$RC home: $(ls "$HOME" | tr '\n' ' ') $(tr '\n' ' ' < "$B/out") $(grep -v '^sbx: sandbox' "$B/err" | head -3 | tr '\n' ' ')"; fi

# git takes a directory for a repository when its objects and refs pass
# access(X_OK) (setup.c, is_git_directory): an executable file, a FIFO or
# a hard link at those names does, not only a directory. A config written
# before them is judged when they are made, a config (or a hook) after
# them is the repository's; git on the host reads it (a `.git` file leads there, the
# directory registered in the user's index as a submodule). Before
# 2026-11-29 only directories counted: each planted a core.fsmonitor that
# the host's `git status` ran.
t repository_of_executable_files_fifo_or_link_config_still_vetted
res=""
for mode in "" --no-shim; do
	rm -rf "$W/r" "$B"/pwned-*; mkrepo "$W/r"
	sx $mode -- sh -c 'cd r; B=$0; c=$(git rev-parse HEAD); printf "#!/bin/sh\n" > ../exe; chmod 755 ../exe
		for s in s1 s2 s3; do mkdir $s ev$s; echo "ref: refs/heads/main" > $s/HEAD; echo "gitdir: ../$s" > ev$s/.git; done
		cfg() { printf "[core]\n\tfsmonitor = touch $B/pwned-$1\n" > $1/config; }
		cfg s1 && cp ../exe s1/objects && cp ../exe s1/refs 2>/dev/null && echo SET-s1
		cfg s2 && mkfifo -m 755 s2/objects && ln ../exe s2/refs 2>/dev/null && echo SET-s2
		cp ../exe s3/objects && cp ../exe s3/refs && cfg s3 2>/dev/null && echo SET-s3
		mkdir s3/hooks && cp ../exe s3/hooks/post-index-change 2>/dev/null && echo SET-hook
		for s in s1 s2 s3; do git update-index --add --cacheinfo 160000,$c,ev$s || echo NOREG; done
		echo END' "$B"
	git -C r status >/dev/null 2>&1
	for s in s1 s2 s3; do git -C "r/ev$s" status >/dev/null 2>&1; done
	pw=$(cd "$B" && ls -d pwned-* 2>/dev/null | tr '\n' ' ')
	if has END out && ! has SET- out && ! has NOREG out && [ -z "$pw" ] &&
	   [ "$(git -C r/evs3 rev-parse --git-dir 2>/dev/null)" = "$W/r/s3" ] &&
	   [ ! -e r/s1/refs ] && [ ! -e r/s2/refs ] && [ ! -e r/s3/config ] &&
	   [ ! -e r/s3/hooks/post-index-change ] &&
	   hasf 's1/config — core.fsmonitor would run a program: refused' err &&
	   hasf 's2/config — core.fsmonitor would run a program: refused' err; then
		res="${res}y"
	else res="$res[${mode:-shim}: pwned: $pw out: $(tr '\n' ' ' < "$B/out") $(grep -v '^sbx: sandbox' "$B/err" | head -3 | tr '\n' ' ')]"; fi
done
if [ "$res" = yy ]; then ok; else bad "$res"; fi

# A FIFO where a config is looked for at start (a repository's
# .git/config, commondir, the workspace's sandbox.ini): opened as a file,
# it held sbx-preload forever, SIGTERM or not. Not a file: not read.
t fifo_where_a_config_is_read_does_not_hold_the_start
mkrepo "$W/r" && rm r/.git/config && mkfifo r/.git/config && mkfifo r/.git/commondir
timeout -k 5 20 "$SBX" -- sh -c 'echo RAN' >"$B/out" 2>"$B/err"; RC=$?
mkfifo sandbox.ini
timeout -k 5 20 "$SBX" -- sh -c 'echo RAN2' >"$B/out2" 2>"$B/err2"; RC2=$?
if [ $RC -eq 0 ] && has '^RAN$' out && [ $RC2 -eq 125 ] && ! grep -q RAN2 "$B/out2" &&
   grep -q 'sandbox.ini.*cannot read' "$B/err2"; then ok
else bad "rc=$RC rc2=$RC2 $(head -c 300 "$B/err2")"; fi

# A file the policy denies reading, renamed onto a kept config: the
# supervisor would read it for the program and land its bytes, readable,
# at .git/config (a `*.pem` deeper than the walk, shaped as a config; before
# 2026-11-29 it did, and removed the key). Refused the plain way, the key
# left where it was, with the boundary alone.
t denied_read_file_renamed_onto_a_kept_config_is_not_read_for_it_no_shim
mkrepo "$W/r"; cp r/.git/config "$B/config.orig"; c="PEMCANARY-$RANDOM$RANDOM"
mkdir -p node_modules/pkg/a/b; printf '[user]\n\temail = %s\n' "$c" > node_modules/pkg/a/b/k.pem
sx --no-shim --deny-read '*.pem' -- sh -c "python3 -c 'import os; os.rename(\"node_modules/pkg/a/b/k.pem\", \"r/.git/config\")' 2>/dev/null || echo REFUSED
	cat r/.git/config; echo END"
if has END out && has REFUSED out && ! grep -q "$c" "$B/out" "$B/err" r/.git/config && cmp -s r/.git/config "$B/config.orig" &&
   grep -q "$c" node_modules/pkg/a/b/k.pem; then ok
else bad "rc=$RC $(tr '\n' ' ' < "$B/out" | head -c 300)"; fi

# core.bare: a relative core.hooksPath (husky's `.husky/_`) is read from
# the work tree's top, which the start-up keeps, but in a bare repository
# from wherever git is started. Before 2026-11-29 `git config core.bare
# true` landed, and `git fetch` on the host in src/ ran the
# reference-transaction hook the program planted in src/.hk.
t core_bare_refused_so_a_relative_hooks_path_stays_where_it_was_kept
mkrepo "$B/up" && git clone -q "$B/up" "$W/r" && git -C r config core.hooksPath .hk && mkdir r/.hk
cp r/.git/config "$B/config.orig"
sx -- sh -c "cd r && mkdir -p src/.hk && printf '#!/bin/sh\ntouch $B/pwned\n' > src/.hk/reference-transaction &&
	chmod +x src/.hk/reference-transaction && echo PLANTED; git config core.bare true && echo SET; echo END"
git -C "$B/up" commit -q --allow-empty -m more && (cd r/src && git fetch -q >/dev/null 2>&1)
if has END out && has PLANTED out && ! has SET out && cmp -s r/.git/config "$B/config.orig" &&
   [ ! -e "$B/pwned" ] && hasf 'core.bare would run a program: refused' err; then ok
else bad "rc=$RC pwned=$([ -e "$B/pwned" ] && echo YES) $(tr '\n' ' ' < "$B/out") $(grep -v '^sbx: sandbox' "$B/err" | head -2 | tr '\n' ' ')"; fi

# A repository with a submodule, cloned before the run with the submodule
# not yet initialised: `git submodule update --init` and `git worktree add`
# work inside; the submodule's own config then takes user.email but not a
# key that runs something. .gitmodules takes a branch, never `update = !cmd`.
t submodule_init_worktree_add_and_submodule_config_work_inside
mkrepo "$B/sub" && mkrepo "$B/up" &&
git -C "$B/up" -c protocol.file.allow=always submodule add -q "$B/sub" lib &&
git -C "$B/up" commit -qm sub && git clone -q "$B/up" "$W/r" &&
git -C r config user.name a && git -C r config user.email b
sx -- sh -c 'cd r && git -c protocol.file.allow=always submodule update --init -q && echo INIT &&
	git worktree add -q ../wt -b side && echo WT'
a=$(has INIT out && has WT out && echo y)
cp r/.git/modules/lib/config "$B/sub.orig"; cp r/.gitmodules "$B/gm.orig"
sx -- sh -c "cd r && git -C lib config user.email sub@sbx && echo SUBCFG
	git -C lib config core.fsmonitor 'touch $B/pwned' || echo SUBREFUSED
	git config -f .gitmodules submodule.lib.branch main && echo GMOK
	git config -f .gitmodules submodule.lib.update '!touch $B/pwned' || echo GMREFUSED"
git -C r/lib status >/dev/null 2>&1; git -C r submodule update >/dev/null 2>&1
if [ "$a" = y ] && [ "$(git -C r submodule status | cut -c1)" = " " ] && [ -e wt/a ] &&
   has SUBCFG out && has SUBREFUSED out && has GMOK out && has GMREFUSED out &&
   [ "$(git -C r/lib config user.email)" = sub@sbx ] && ! grep -q fsmonitor r/.git/modules/lib/config &&
   [ "$(git config -f r/.gitmodules submodule.lib.branch)" = main ] && ! grep -q update r/.gitmodules &&
   [ ! -e "$B/pwned" ] && hasf 'submodule.lib.update would run a program' err; then ok
else bad "init+wt=$a $(tr '\n' ' ' < "$B/out") $(grep -v '^sbx: sandbox' "$B/err" | head -3 | tr '\n' ' ')"; fi

# core.hooksPath named where the start-up used not to look (issue 23): in
# a file the repository's config includes (include.path, includeIf), and
# in config.worktree with extensions.worktreeConfig. Each directory keeps
# its hooks, and the included file in the workspace is kept too (else a
# program rewrites it to name any directory); git on the host commits
# without running anything planted.
t hooks_path_through_include_includeif_and_config_worktree_is_kept_no_shim
mkrepo "$W/r" && mkdir r/.hk1 r/.hk2 r/.hk3 &&
printf '[core]\n\thooksPath = .hk1\n' > proj.gitconfig && printf '[core]\n\thooksPath = .hk2\n' > inc2 &&
git -C r config include.path ../../proj.gitconfig && git -C r config "includeIf.gitdir:$W/.path" ../../inc2 &&
git -C r config extensions.worktreeConfig true && git -C r config --worktree core.hooksPath .hk3
cp proj.gitconfig "$B/proj.orig"
sx --no-shim -- sh -c 'for d in .hk1 .hk2 .hk3; do printf "#!/bin/sh\ntouch $1/pwned$d\n" > r/$d/pre-commit; chmod +x r/$d/pre-commit; done
	printf "[core]\n\thooksPath = .hk4\n" > proj.gitconfig; echo END' sh "$B"
echo n > r/n && git -C r add n && git -C r commit -qm host >/dev/null 2>&1
if has END out && [ -z "$(find r/.hk1 r/.hk2 r/.hk3 -type f)" ] && cmp -s proj.gitconfig "$B/proj.orig" &&
   ! ls "$B" | grep -q pwned && [ "$(git -C r log -1 --format=%s)" = host ]; then ok
else bad "rc=$RC hooks: $(ls r/.hk1 r/.hk2 r/.hk3 | tr '\n' ' ') proj: $(tail -1 proj.gitconfig) pwned: $(ls "$B" | grep pwned)"; fi

# A relative core.hooksPath is read from the top of the work tree git runs
# in: a linked worktree's own (`git worktree add`), also when its
# repository is outside the workspace. Before 2026-11-29 only the main
# work tree's was kept: wt/.hk/pre-commit and wt2/.hk/pre-commit, planted
# inside, ran at the next commit on the host.
t relative_hooks_path_kept_in_each_linked_worktree_no_shim
mkrepo "$W/r" && git -C r config core.hooksPath .hk && mkdir r/.hk && git -C r worktree add -q ../wt -b side
mkrepo "$B/m2" && git -C "$B/m2" config core.hooksPath .hk && git -C "$B/m2" worktree add -q "$W/wt2" -b side
sx --no-shim -- sh -c "for d in wt wt2; do mkdir -p \$d/.hk; echo touch $B/pwned-\$d > \$d/.hk/pre-commit; chmod +x \$d/.hk/pre-commit; done; echo END"
git -C wt commit -q --allow-empty -m x 2>/dev/null; git -C wt2 commit -q --allow-empty -m x 2>/dev/null
if has END out && ! ls "$B" | grep -q pwned && [ ! -e wt/.hk/pre-commit ] && [ ! -e wt2/.hk/pre-commit ] &&
   [ "$(git -C wt log -1 --format=%s)" = x ]; then ok
else bad "rc=$RC pwned: $(ls "$B" | grep pwned | tr '\n' ' ') $(grep -v '^sbx: sandbox' "$B/err" | head -2 | tr '\n' ' ')"; fi

# A config git reads but the start-up's parser refuses: one over 1 MiB
# (git has no limit; the parser stops at 1 MiB), one with a NUL byte in a
# comment (git reads past it), a big one with a comment longer than a
# line buffer (4159 bytes: its tail, `[x]`, read as a header), and a big
# one that includes the file that
# names the hooks. Its core.hooksPath is still git's (sbxctl check says
# so too), and the included file is kept: before 2026-11-29 the start-up read none of them as
# config, and a hook the program planted in .hk ran at the next commit on
# the host.
t hooks_path_of_a_config_the_parser_refuses_is_kept_no_shim
mkrepo "$W/big" && mkrepo "$W/nul" && mkrepo "$W/inc" && mkrepo "$W/long" && mkdir big/.hk nul/.hk inc/.hk long/.hk &&
pad() { python3 -c 'import sys; sys.stdout.write(("# " + "x" * 77 + "\n") * 14000)'; } &&
pad >> big/.git/config && printf '[core]\n\thooksPath = .hk\n' >> big/.git/config &&
printf '# a \0 byte\n[core]\n\thooksPath = .hk\n' >> nul/.git/config &&
pad >> inc/.git/config && printf '[include]\n\tpath = ../hooks.inc\n' >> inc/.git/config &&
printf '[core]\n\thooksPath = .hk\n' > inc/hooks.inc && cp inc/hooks.inc "$B/inc.orig" &&
pad >> long/.git/config && python3 -c 'print("[core]\n#" + "x" * 4158 + "[x]\n\thooksPath = .hk")' >> long/.git/config
a="$(git -C big config core.hooksPath) $(git -C nul config core.hooksPath) $(git -C inc config core.hooksPath) $(git -C long config core.hooksPath)"
c=$(for r in big nul inc long; do "$SBX_BIN/sbxctl" check -q -w "$W" --write "$W/$r/.hk/pre-commit" >/dev/null 2>&1; printf %s $?; done)
sx --no-shim -- sh -c 'for r in big nul inc long; do printf "#!/bin/sh\ntouch $1/pwned-$r\n" > $r/.hk/pre-commit; chmod +x $r/.hk/pre-commit; done
	printf "[core]\n\thooksPath = .hk9\n" > inc/hooks.inc; echo END' sh "$B"
for r in big nul inc long; do echo n > $r/n && git -C $r add n && git -C $r commit -qm host >/dev/null 2>&1; done
if [ "$a" = ".hk .hk .hk .hk" ] && [ "$c" = 1111 ] && [ "$(stat -c %s big/.git/config)" -gt 1048576 ] && has END out &&
   [ -z "$(find big/.hk nul/.hk inc/.hk long/.hk -type f)" ] && ! ls "$B" | grep -q pwned &&
   cmp -s inc/hooks.inc "$B/inc.orig" && [ "$(git -C big log -1 --format=%s)" = host ] &&
   [ "$(git -C nul log -1 --format=%s)" = host ] && [ "$(git -C inc log -1 --format=%s)" = host ] &&
   [ "$(git -C long log -1 --format=%s)" = host ]; then ok
else bad "rc=$RC git: $a check: $c pwned: $(ls "$B" | grep pwned | tr '\n' ' ') inc: $(tail -1 inc/hooks.inc)"; fi

# sbxctl check and a run agree on every path git's guard covers, side by
# side: for each, check's answer (its exit status) and what a write by the
# boundary alone does (the file on the host after `>>`). Paths a rule
# names (.git/config, a submodule's config and hooks), paths the start-up
# finds on the disk (a bare repository's, a linked worktree's entry, a .git
# file, a hooksPath directory, an included file), and two that are free.
t sbxctl_check_and_a_run_agree_on_every_git_guarded_path
mkrepo "$B/sub" && mkrepo "$W/r" && git -C r -c protocol.file.allow=always submodule add -q "$B/sub" lib &&
git -C r commit -qm sub && git -C r worktree add -q ../wt -b side && mkdir r/.githooks &&
git -C r config core.hooksPath .githooks && echo '[user]' > r/proj.inc && git -C r config include.path ../proj.inc &&
git init -q --bare bare.git
paths="r/.git/config r/.git/hooks/pre-commit r/.git/commondir r/.git/config.worktree r/.gitmodules
	r/.git/modules/lib/config r/.git/modules/lib/hooks/post-checkout r/.git/worktrees/wt/gitdir
	r/.git/worktrees/wt/commondir r/.git/worktrees/wt/config.worktree wt/.git r/lib/.git
	r/.githooks/pre-commit r/proj.inc bare.git/config bare.git/hooks/post-receive
	r/src.c r/.git/description"
for f in $paths; do [ -e "$f" ] && md5sum "$f" > "$B/sum.$(echo "$f" | tr / _)"; done
sx --no-shim -- sh -c 'for f in $0; do echo x >> "$f" 2>/dev/null; done; echo END' "$(echo $paths)"
table=""; agree=y
for f in $paths; do
	"$SBX_BIN/sbxctl" check -q -w "$W" --write "$W/$f" >/dev/null 2>&1; c=$([ $? = 1 ] && echo deny || echo allow)
	s="$B/sum.$(echo "$f" | tr / _)"
	if [ -f "$s" ]; then r=$(md5sum -c --status "$s" && echo deny || echo allow)
	else r=$([ -e "$f" ] && echo allow || echo deny); fi
	want=deny; case $f in r/src.c|r/.git/description) want=allow ;; esac
	[ "$c" = "$r" ] && [ "$c" = "$want" ] || agree=n
	table="$table $f:$c/$r"
done
if has END out && [ $agree = y ]; then ok; else bad "path:check/run$table"; fi

rm -rf "$GP"
echo "# $(id -un): $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
