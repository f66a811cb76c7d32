#!/bin/bash
# The user's world: sbx run where a user runs it, on what was there before
# the run (a repository with its hooks, worktrees and submodules, a global
# ~/.gitconfig with an include and a credential helper, a bare repository to
# push to), with real programs (git, static binaries). What the sandbox
# refuses is said in one line that names the path and the way to allow it,
# also for what the shim cannot see (a static binary, a call glibc makes
# inside itself); nothing outside the workspace changes; git's housekeeping
# raises no false alarm. harm.sh has git inside an existing repository and
# the stand-ins; this suite does not repeat it. Helpers are in lib.sh.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# snap PATH...: every entry under PATH with its type, mode, size, mtime and
# link target: what "untouched" means
snap() { find "$@" -printf '%p %y %m %s %T@ %l\n' 2>/dev/null | sort; }
# the user's tree outside the workspace (not $B itself, where the test keeps
# its out/err files, nor ~/.local, where sbx keeps its audit log)
outside() {
	snap "$B/origin.git" "$B/seed" "$B/subsrc" "$B/wt-side" "$HOME/.gitconfig" "$HOME/.config" \
		"$HOME/.git-credentials" "$HOME/.ssh"
}
# userworld: a HOME and a tree as a user has them, made on the host before
# any run: ~/.gitconfig (identity, an include, a credential helper and its
# store), a bare repository $B/origin.git, the workspace $W cloned from it
# with a pre-commit hook (it logs into the repository), a linked worktree
# outside the workspace ($B/wt-side), and with `userworld sub` a submodule.
userworld() {
	mkdir -p "$HOME/.config/git" &&
	printf '[user]\n\tname = U W\n\temail = uw@example.com\n[include]\n\tpath = ~/.config/git/extra\n[credential]\n\thelper = store\n[init]\n\tdefaultBranch = main\n[protocol "file"]\n\tallow = always\n' > "$HOME/.gitconfig" &&
	printf '[alias]\n\tst = status -sb\n[commit]\n\tgpgsign = false\n' > "$HOME/.config/git/extra" &&
	echo 'https://u:tok@example.com' > "$HOME/.git-credentials" && chmod 600 "$HOME/.git-credentials" &&
	git init -q --bare "$B/origin.git" && git init -q "$B/seed" && echo a > "$B/seed/a" &&
	git -C "$B/seed" add a && git -C "$B/seed" commit -qm init && git -C "$B/seed" push -q "$B/origin.git" main &&
	git init -q "$B/subsrc" && echo s > "$B/subsrc/s" && git -C "$B/subsrc" add s && git -C "$B/subsrc" commit -qm s &&
	cd "$B" && rmdir "$W" && git clone -q "$B/origin.git" "$W" && cd "$W" &&
	printf '#!/bin/sh\necho hook >> "$(git rev-parse --git-dir)/../hook.log"\n' > .git/hooks/pre-commit &&
	chmod +x .git/hooks/pre-commit && printf "hook.log\nwt-in/\nclone/\n" > .git/info/exclude &&
	{ [ "${1:-}" != sub ] || { git submodule add -q "$B/subsrc" sub >/dev/null 2>&1 && git commit -qm sub; }; } &&
	git worktree add -q "$B/wt-side" -b side 2>/dev/null
}

# ---- 1. what the shim cannot see is said by the boundary

# git push to a local bare repository outside the workspace: receive-pack
# makes its incoming directory with glibc's mkdtemp, whose mkdir the shim
# never sees. The refusal is said (by the notify layer) with a way to allow
# it, the repository itself (its objects/ first, then refs/heads/main.lock:
# naming the first directory only led to the next refusal); the bare
# repository is untouched; following the hint as printed makes the push work.
t git_push_to_a_bare_repo_outside_is_refused_explained_and_allowed_when_asked
userworld || exit 1
echo b > b && git add b && git commit -qm b
old=$(git -C "$B/origin.git" rev-parse main)
sx -- git push -q origin main; r1=$RC; cp "$B/err" "$B/err1"
line=$(grep -F "denied write of $B/origin.git/objects/" "$B/err1" | head -1)
fix=$(sed -n 's/.*(allow it with --allow-write \([^ )]*\)).*/\1/p' <<<"$line")
sx --allow-write "$fix" -- git push -q origin main
if [ $r1 -ne 0 ] && [[ $line == *"outside the writable paths (allow it with --allow-write $B/origin.git)"* ]] &&
   [ $RC -eq 0 ] && [ "$(git -C "$B/origin.git" rev-parse main)" = "$(git rev-parse HEAD)" ] &&
   [ "$old" != "$(git rev-parse HEAD)" ]; then ok
else bad "first push rc=$r1 line='$line'; allowed push rc=$RC origin main $(git -C "$B/origin.git" rev-parse --short main)"; fi

# The same bare repository must be byte for byte as it was after a refused
# push (checked on its own: the test above goes on to push)
t refused_push_leaves_the_bare_repo_as_it_was
userworld || exit 1
echo b > b && git add b && git commit -qm b
before=$(snap "$B/origin.git")
sx -- git push -q origin main
after=$(snap "$B/origin.git")
if [ $RC -ne 0 ] && [ "$before" = "$after" ] && git -C "$B/origin.git" fsck --no-dangling >/dev/null 2>&1; then ok
else bad "rc=$RC changed: $(diff <(echo "$before") <(echo "$after") | head -5 | tr '\n' ' ')"; fi

# A static binary (the shim is not in it) making a directory and a file
# outside the workspace: both refused, both said with their fix (by the
# notify layer), nothing made; the directory's fix, followed, works.
t static_binary_writes_outside_are_said_with_a_fix_that_works
mkdir -p "$B/outdir"
cat > "$B/w.c" <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
int main(int argc, char **argv)
{
	char f[4096];
	snprintf(f, sizeof(f), "%s/f", argv[1]);
	int d = mkdir(argv[2], 0755), o = open(f, O_WRONLY | O_CREAT, 0644);
	printf("mkdir=%d open=%d\n", d, o < 0 ? -1 : 0);
	return 0;
}
EOF
if cc -static -o wprog "$B/w.c" 2>/dev/null; then
	sx -- ./wprog "$B/outdir" "$B/outdir/newdir"; r1=$RC; cp "$B/err" "$B/err1"; o1=$(cat "$B/out")
	fix=$(sed -n "s|.*denied write of $B/outdir/newdir/ .*(allow it with --allow-write \([^ )]*\)).*(seccomp).*|\1|p" "$B/err1")
	sx --allow-write "${fix:-none}" -- ./wprog "$B/outdir" "$B/outdir/newdir"
	if [ $r1 -eq 0 ] && [ "$o1" = "mkdir=-1 open=-1" ] &&
	   grep -qF "denied write of $B/outdir/f — outside the writable paths" "$B/err1" &&
	   grep -F "$B/outdir/f " "$B/err1" | grep -qF '(seccomp)' && [ -n "$fix" ] &&
	   has "mkdir=0 open=0" out && [ -d "$B/outdir/newdir" ] && [ -f "$B/outdir/f" ]; then ok
	else bad "rc=$r1 '$o1' fix='$fix' then: $(cat "$B/out") $(grep -v 'sandbox on' "$B/err1" | head -3 | tr '\n' ' ')"; fi
else skip "no static libc"; fi

# ---- 2. the user's tree stays as it was

# A day's git inside a repository that existed before the run (hook, a
# linked worktree outside, a global config with an include and
# a credential helper): commit (the hook runs), rebase, stash, a worktree
# added inside, a clone from the bare repository, gc. Then everything
# outside the workspace is as it was, the repository is sound and clean,
# and gc raised no refusal (it prunes .git/worktrees, which the sandbox
# keeps in place: a directory with something in it, so ENOTEMPTY, quietly).
t everyday_git_in_an_existing_repo_leaves_everything_outside_as_it_was
userworld || exit 1
outside=$(outside)
sx -- sh -c 's() { "$@" >/dev/null 2>&1 || echo "STEP-FAILED: $*"; }
	s git st; echo c > c; s git add c; s git commit -qm c
	s git checkout -q -b feat; echo f > f; s git add f; s git commit -qm f
	s git checkout -q main; echo m > m; s git add m; s git commit -qm m
	s git checkout -q feat; s git rebase -q main; s git checkout -q main
	echo wip >> a; s git stash; s git stash pop; s git checkout -q -- a
	s git worktree add -q wt-in -b wt-in; s git clone -q "$0" clone; s git gc -q
	rmdir .git/worktrees 2>&1 | sed -n "s/.*\(Directory not empty\).*/RMDIR: \1/p"
	echo END' "$B/origin.git"
after=$(outside)
if has END out && ! has STEP-FAILED out && has 'RMDIR: Directory not empty' out &&
   [ "$outside" = "$after" ] && ! has 'denied' err &&
   [ "$(git log --format=%s feat | head -3 | tr '\n' ' ')" = "f m c " ] &&
   [ "$(wc -l < hook.log)" -eq 3 ] && git fsck --no-dangling >/dev/null 2>&1 && [ -z "$(git status --porcelain)" ] &&
   git worktree list | grep -q "^$B/wt-side " && git -C "$B/wt-side" status >/dev/null 2>&1 &&
   [ "$(git -C clone log -1 --format=%s)" = init ]; then ok
else bad "rc=$RC $(grep STEP-FAILED "$B/out" | tr '\n' ' ') outside changed: $(diff <(echo "$outside") <(echo "$after") | head -4 | tr '\n' ' ') denied: $(grep denied "$B/err" | head -2 | tr '\n' ' ')"; fi

# `git clone --recurse-submodules` inside: the new work tree's .gitmodules
# is that new repository's (as its config is), so the checkout and the
# submodule's work; a .gitmodules anywhere else (no .git the run made
# beside it) and the existing repository's stay refused.
t clone_with_submodules_inside_works_gitmodules_elsewhere_stays_protected
userworld sub || exit 1
git -C "$W" push -q "$B/origin.git" main 2>/dev/null
before=$(cat .gitmodules)
sx -- sh -c 'git -c protocol.file.allow=always clone -q --recurse-submodules "$0" clone && git -C clone submodule status | cut -c2- && git -C clone status --porcelain | sed "s/^/DIRTY /"
	echo evil >> .gitmodules; mkdir -p d && echo evil > d/.gitmodules; echo END' "$B/origin.git"
if has END out && [ -s clone/.gitmodules ] && [ "$(cat clone/sub/s)" = s ] && has ' sub (' out && ! has DIRTY out &&
   [ "$(cat .gitmodules)" = "$before" ] && [ ! -e d/.gitmodules ] &&
   has "denied write of $W/.gitmodules by \`deny_write = .gitmodules\`" err &&
   has "denied write of $W/d/.gitmodules by" err && ! has "clone/.gitmodules" err; then ok
else bad "rc=$RC $(tr '\n' ' ' < "$B/out" | head -c 300) $(grep sbx: "$B/err" | head -3 | tr '\n' ' ')"; fi

# Python's multiprocessing.Manager() binds a Unix socket under /tmp and
# tells its clients the name getsockname() gives. The notify layer binds it
# from the checked parent directory, where the kernel keeps only the last
# component; the shim gives the program back the name it bound (a
# FileNotFoundError in every Manager() before). The file is where the
# program asked, and a name relative to the working directory stays so.
t python_multiprocessing_manager_and_unix_socket_names_as_bound
sx -- python3 -c '
import os, socket, tempfile
from multiprocessing import Manager
d = tempfile.mkdtemp()
s = socket.socket(socket.AF_UNIX); s.bind(d + "/srv.sock"); s.listen(1)
print("NAME", s.getsockname() == d + "/srv.sock", os.path.exists(d + "/srv.sock"))
c = socket.socket(socket.AF_UNIX); c.connect(s.getsockname()); print("CONNECTED")
r = socket.socket(socket.AF_UNIX); r.bind("rel.sock"); print("REL", r.getsockname())
a = socket.socket(socket.AF_UNIX); a.bind("\0sbx-abstract"); print("ABSTRACT", a.getsockname())
m = Manager(); x = m.dict(); x["k"] = 41; x["k"] += 1; print("MANAGER", x["k"]); m.shutdown()'
if has 'NAME True True' out && has CONNECTED out && has 'REL rel.sock' out &&
   hasf "ABSTRACT b'\\x00sbx-abstract'" out && has 'MANAGER 42' out && [ -S rel.sock ] && ! has denied err; then ok
else bad "rc=$RC $(tr '\n' ' ' < "$B/out") $(tail -3 "$B/err" | tr '\n' ' ')"; fi

echo "# $(id -un): $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
