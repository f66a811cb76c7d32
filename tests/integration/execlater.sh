#!/bin/bash
# Executes-later (policy/execlater.c, docs/POLICY.md "Executes-later"):
# nothing a later, unsandboxed program runs or loads as configuration can
# be written inside, at any depth. Table-driven: every row at any depth of
# the table, made fresh at depth 0 and 4 by open, by rename of a ready
# directory, by a hard link and by a symlink, from a static binary (the
# boundary alone, --no-shim) and from python3 (dynamic, the shim in it);
# the existing ones overwritten or replaced. Then the real programs: git
# with core.hooksPath and with husky's layout, `git commit` and `git
# checkout` on the host after the run running nothing planted. Every
# assertion looks at the host's tree.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PROGS=$(mktemp -d /var/tmp/sbx-xprogs.XXXXXX)
trap 'rm -rf "$PROGS"' EXIT
chmod 755 "$PROGS"
P=""
if built notifyprobe.static "$PROGS/probe" 2>"$PROGS/log"; then
	P="$PROGS/probe"
else
	echo "# cannot build notifyprobe with cc -static: $(head -2 "$PROGS/log")"
fi

# The rows matched at any depth, as the table spells them (a trailing `/`:
# a directory, planted into as `DIR/planted`).
ROWS=$(sed -n 's/^[[:space:]]*{ "\([^"~/][^"]*\)", .*/\1/p' "$SBX_BIN/execlater.c")
[ -n "$ROWS" ] || { echo "FAIL - no rows read from $SBX_BIN/execlater.c"; exit 1; }
target() { case $1 in */) echo "${1}planted" ;; *) echo "$1" ;; esac; }
# Made by git init/clone inside a git directory the run made (docs/POLICY.md,
# "The git exception"): a fresh one is allowed there; the existing ones are
# tested below.
# The git configs a rename may replace when no key that runs a program
# changes (preload/notify/gitcfg.c).
vetted() { case $1 in .gitmodules | .git/config | .git/config.worktree | .git/modules/*config* | \
	.git/worktrees/*/config.worktree | config.worktree) true ;; *) false ;; esac; }
fresh_rows() { for r in $ROWS; do case $r in .git/config | .gitmodules | config.worktree) ;; *) echo "$r" ;; esac; done; }

# The dynamic program: python3 runs one operation a line (the probe's
# names), as the probe does, with the shim in it.
cat > "$PROGS/ops.py" <<'EOF'
import os, sys
for line in open(sys.argv[1]):
    op, *a = line.split()
    try:
        if op == "mkdirs": os.makedirs(a[0], exist_ok=True)
        elif op == "create":
            with open(a[0], "w") as f: f.write("evil\n")
        elif op == "rename": os.rename(a[0], a[1])
        elif op == "link": os.link(a[0], a[1])
        elif op == "symlink": os.symlink(a[0], a[1])
        print(op + ": ok")
    except OSError as e:
        print(op + ": " + e.strerror)
print("END")
EOF
chmod 644 "$PROGS/ops.py"

# script METHOD PREFIX: the operations that plant every fresh row under
# PREFIX ("" or a/b/c/d/) by METHOD, one per line; the stage directories
# are made beside, under names no rule knows.
script() {
	local m=$1 pre=$2 i=0 r tg top rest
	for r in $(fresh_rows); do
		i=$((i + 1))
		tg=$pre$(target "$r")
		top=${r%%/*}
		rest=${r#*/}
		[ "$rest" = "$r" ] && rest=""
		[ -n "$pre" ] && echo "mkdirs ${pre%/}"
		case $m in
		open)
			[ "${tg%/*}" != "$tg" ] && echo "mkdirs ${tg%/*}"
			echo "create $tg" ;;
		rename) # a ready directory (or file) renamed onto the name
			if [ -n "$rest" ]; then
				local in=stage$i/$(target "$rest")
				[ "${in%/*}" != "$in" ] && echo "mkdirs ${in%/*}"
				echo "create $in"
				echo "rename stage$i $pre$top"
			else
				echo "create stage$i"
				echo "rename stage$i $tg"
			fi ;;
		link)
			[ "${tg%/*}" != "$tg" ] && echo "mkdirs ${tg%/*}"
			echo "create stage$i"
			echo "link stage$i $tg" ;;
		symlink) # the name itself, and its first directory, as links
			echo "symlink /var/tmp/nowhere-$i $tg"
			if [ -n "$rest" ]; then
				local in=stage$i/$(target "$rest")
				[ "${in%/*}" != "$in" ] && echo "mkdirs ${in%/*}"
				echo "create $in"
				echo "symlink $PWD/stage$i $pre$top"
			fi ;;
		esac
	done
}
# landed PREFIX: every fresh row found on the host under PREFIX
landed() {
	local r tg
	for r in $(fresh_rows); do
		tg=$W/$1$(target "$r")
		{ [ -e "$tg" ] || [ -L "$tg" ]; } && echo -n "$1$(target "$r") "
	done
}

for bin in static python3; do
	for m in open rename link symlink; do
		for pre in "" a/b/c/d/; do
			depth=0; [ -n "$pre" ] && depth=4
			t "every_row_${m}_at_depth_${depth}_refused_${bin}"
			if [ $bin = static ] && [ -z "$P" ]; then skip "no static libc"; continue; fi
			script $m "$pre" > "$B/ops"
			if [ $bin = static ]; then
				sed "s|^|$P |" "$B/ops" > "$B/ops.sh"
				echo 'echo END' >> "$B/ops.sh"
				sx -q --no-shim -- sh "$B/ops.sh"
			else
				sx -q -- python3 "$PROGS/ops.py" "$B/ops"
			fi
			l=$(landed "$pre")
			if has '^END$' out && [ -z "$l" ]; then ok
			else bad "rc=$RC landed on the host: $l"; fi
		done
	done
done

# The existing ones, deeper than the plan's read-only binds (three levels)
# and at the top: overwritten, truncated, replaced by a rename, unchanged.
for bin in static python3; do
	for pre in "" a/b/c/d/e/; do
		depth=0; [ -n "$pre" ] && depth=5
		t "every_existing_row_kept_at_depth_${depth}_${bin}"
		if [ $bin = static ] && [ -z "$P" ]; then skip "no static libc"; continue; fi
		: > "$B/ops"
		i=0
		for r in $ROWS; do
			i=$((i + 1))
			tg=$pre$(target "$r")
			mkdir -p "$W/$(dirname "$tg")"
			echo orig > "$W/$tg"
			if vetted "$r"; then
				# a git config: a rename lands when it sets no key that
				# runs a program (docs/POLICY.md, "Git's config files");
				# one that does is refused
				printf '[core]\n\tfsmonitor = touch %s/planted\n' "$B" > "$W/stage$i"
				printf 'create %s\nrename stage%s %s\n' "$tg" $i "$tg" >> "$B/ops"
			else
				printf 'create %s\ncreate stage%s\nrename stage%s %s\n' "$tg" $i $i "$tg" >> "$B/ops"
			fi
		done
		if [ $bin = static ]; then
			sed "s|^|$P |" "$B/ops" > "$B/ops.sh"
			echo 'echo END' >> "$B/ops.sh"
			sx -q --no-shim -- sh "$B/ops.sh"
		else
			sx -q -- python3 "$PROGS/ops.py" "$B/ops"
		fi
		changed=""
		for r in $ROWS; do
			tg=$pre$(target "$r")
			[ "$(cat "$W/$tg" 2>/dev/null)" = orig ] || changed="$changed $tg"
		done
		if has '^END$' out && [ -z "$changed" ]; then ok
		else bad "rc=$RC changed on the host:$changed"; fi
	done
done

# The report names the row: a static binary's write refused by seccomp.
t report_line_names_the_row_static
if [ -n "$P" ]; then
	sx --no-shim -- sh -c "$P mkdirs x/.claude; $P create x/.claude/settings.json"
	if [ ! -e x/.claude/settings.json ] &&
	   hasf 'denied write of ~/../ws/x/.claude/settings.json' err ||
	   grep -qF 'x/.claude/settings.json by `deny_write = .claude/settings.json`' "$B/err"; then ok
	else bad "rc=$RC"; fi
else skip "no static libc"; fi

# ---- git: the directory core.hooksPath names, and husky's layout

# repo_with_hooks DIR: a repository whose hooks (under DIR, core.hooksPath)
# leave a marker on the host when git runs them; one commit made.
git_id() { git -c user.name=t -c user.email=t@t "$@"; }
marker_hook() { printf '#!/bin/sh\necho "$0" >> "%s"\n' "$1"; }

t hooks_path_directory_kept_git_commit_on_host_runs_nothing_planted
git init -q . && git config core.hooksPath .githooks
mkdir .githooks
marker_hook "$B/orig-ran" > .githooks/pre-commit && chmod +x .githooks/pre-commit
echo a > a && git add a && git_id commit -qm one
rm -f "$B/orig-ran"
# inside: the hook rewritten, a new post-checkout, also by a static binary
sx -q -- sh -c "printf '#!/bin/sh\ntouch $B/planted\n' > .githooks/pre-commit
printf '#!/bin/sh\ntouch $B/planted\n' > .githooks/post-checkout; chmod +x .githooks/post-checkout
${P:-true} create .githooks/post-merge; mv .githooks .gh-old; mkdir -p .githooks2; echo END"
echo b > b && git add b && git_id commit -qm two && git checkout -q -b other
if has '^END$' out && [ ! -e "$B/planted" ] && [ -s "$B/orig-ran" ] &&
   [ ! -e .githooks/post-checkout ] && [ ! -e .githooks/post-merge ]; then ok
else bad "rc=$RC planted=$([ -e "$B/planted" ] && echo yes) orig-ran=$(cat "$B/orig-ran" 2>/dev/null)"; fi

t hooks_path_missing_directory_cannot_be_made
git init -q . && git config core.hooksPath tools/hooks
echo a > a && git add a && git_id commit -qm one
sx -q -- sh -c "mkdir -p tools/hooks; printf '#!/bin/sh\ntouch $B/planted\n' > tools/hooks/pre-commit
chmod +x tools/hooks/pre-commit; mkdir -p st/hooks; cp tools/hooks/pre-commit st/hooks/ 2>/dev/null
printf '#!/bin/sh\ntouch $B/planted\n' > st/hooks/pre-commit; chmod +x st/hooks/pre-commit
rmdir tools 2>/dev/null; mv st tools; ln -s \$PWD/st tools 2>/dev/null; echo END"
echo b > b && git add b && git_id commit -qm two
if has '^END$' out && [ ! -e "$B/planted" ] && [ ! -e tools/hooks/pre-commit ]; then ok
else bad "rc=$RC planted=$([ -e "$B/planted" ] && echo yes) $(ls -la tools 2>&1 | head -3)"; fi

t hooks_path_through_a_link_kept_link_and_target
git init -q . && git config core.hooksPath .githooks
mkdir hooks && ln -s hooks .githooks
echo a > a && git add a && git_id commit -qm one
sx -q -- sh -c "rm .githooks; mkdir .githooks; printf '#!/bin/sh\ntouch $B/planted\n' > .githooks/pre-commit
chmod +x .githooks/pre-commit; printf '#!/bin/sh\ntouch $B/planted\n' > hooks/pre-commit; chmod +x hooks/pre-commit; echo END"
echo b > b && git add b && git_id commit -qm two
if has '^END$' out && [ ! -e "$B/planted" ] && [ -L .githooks ]; then ok
else bad "rc=$RC planted=$([ -e "$B/planted" ] && echo yes) $(ls -la .githooks 2>&1)"; fi

# husky (v9): core.hooksPath = .husky/_, whose wrappers run .husky/<hook>
t husky_hooks_kept_git_commit_on_host_runs_nothing_planted
git init -q . && git config core.hooksPath .husky/_
mkdir -p .husky/_
printf '#!/usr/bin/env sh\nn=$(basename "$0")\ns=$(dirname "$(dirname "$0")")/$n\n[ ! -f "$s" ] && exit 0\nsh -e "$s" "$@"\n' > .husky/_/h
for h in pre-commit post-checkout post-merge; do
	printf '#!/usr/bin/env sh\n. "$(dirname "$0")/h"\n' > .husky/_/$h
	chmod +x .husky/_/$h
done
printf 'echo ran >> "%s"\n' "$B/orig-ran" > .husky/pre-commit
echo a > a && git add a && git_id commit -qm one
rm -f "$B/orig-ran"
sx -q -- sh -c "echo 'touch $B/planted' > .husky/pre-commit; echo 'touch $B/planted' > .husky/post-checkout
${P:-true} create .husky/post-merge; echo 'touch $B/planted' > .husky/_/h; echo END"
echo b > b && git add b && git_id commit -qm two && git checkout -q -b other
if has '^END$' out && [ ! -e "$B/planted" ] && [ -s "$B/orig-ran" ] &&
   [ ! -e .husky/post-checkout ] && [ ! -e .husky/post-merge ]; then ok
else bad "rc=$RC planted=$([ -e "$B/planted" ] && echo yes) orig-ran=$(cat "$B/orig-ran" 2>/dev/null)"; fi

# a repository deep in the workspace (below the plan's three levels)
t hooks_path_of_a_deep_repository_kept
mkdir -p a/b/c/d/r && cd a/b/c/d/r && git init -q . && git config core.hooksPath .githooks
mkdir .githooks && marker_hook "$B/orig-ran" > .githooks/pre-commit && chmod +x .githooks/pre-commit
echo a > a && git add a && git_id commit -qm one && cd "$W"
sx -q -- sh -c "printf '#!/bin/sh\ntouch $B/planted\n' > a/b/c/d/r/.githooks/pre-commit; echo END"
cd a/b/c/d/r && echo b > b && git add b && git_id commit -qm two; cd "$W"
if has '^END$' out && [ ! -e "$B/planted" ]; then ok
else bad "rc=$RC planted=$([ -e "$B/planted" ] && echo yes)"; fi

# ---- protected means not removed, nor its mode changed, at any depth

# deep(): a .env and rows of the table at depth 5, below the plan's binds
deep() {
	mkdir -p a/b/c/d/e/.claude a/b/c/d/e/.git/hooks
	echo secret > a/b/c/d/e/.env && chmod 600 a/b/c/d/e/.env
	echo '{}' > a/b/c/d/e/.claude/settings.json
	printf '#!/bin/sh\n' > a/b/c/d/e/.git/hooks/pre-commit
	stat -c '%n %a' $DEEP > "$B/modes"
}
DEEP="a/b/c/d/e/.env a/b/c/d/e/.claude/settings.json a/b/c/d/e/.git/hooks/pre-commit"
# intact: each there, with its content and mode as deep() left them
intact() { [ "$(cat a/b/c/d/e/.env 2>/dev/null)" = secret ] && [ "$(stat -c '%n %a' $DEEP 2>&1)" = "$(cat "$B/modes")" ]; }
t deep_env_unlink_and_chmod_refused_static
if [ -n "$P" ]; then
	deep
	sx --no-shim -- sh -c "for f in a/b/c/d/e/.env a/b/c/d/e/.claude/settings.json a/b/c/d/e/.git/hooks/pre-commit; do
		$P unlink \$f; $P chmod \$f; $P fchmod \$f; done; $P rmdir a/b/c/d/e/.git/hooks; echo END"
	if has '^END$' out && intact && ! grep -q ': ok' "$B/out" && hasf '/a/b/c/d/e/.env by `deny_write = .env`' err; then ok
	else bad "rc=$RC $(tr '\n' ' ' < "$B/out")"; fi
else skip "no static libc"; fi

t deep_env_unlink_and_chmod_refused_python3
deep
sx -- python3 -c '
import os
for f in ["a/b/c/d/e/.env", "a/b/c/d/e/.claude/settings.json", "a/b/c/d/e/.git/hooks/pre-commit"]:
    for op in (os.unlink, lambda p: os.chmod(p, 0o666)):
        try: op(f); print("done", f)
        except OSError as e: print(e.strerror)
print("END")'
if has '^END$' out && intact && ! has '^done' out; then ok
else bad "rc=$RC $(tr '\n' ' ' < "$B/out")"; fi

# ---- nor its extended attributes (an ACL is a change of who may write)

# A static program sets an attribute on, and removes one from, protected
# names below the plan's binds (by path and by a read-only descriptor);
# a dynamic setfacl widens "other" to rw (an ACL; as a chmod o+w), and
# sets a default ACL on a directory (inherited by every later entry, a
# protected one too); outside the writable roots the read-only mount
# answers (EROFS). Before
# 2026-11-29 none of these was notified and each landed. On the host: no
# new attribute, the old one kept, the modes as they were; a report line.
# An ordinary workspace file still takes an attribute.
t deep_protected_attributes_refused_static_and_setfacl
if [ -n "$P" ] && command -v setfattr >/dev/null && setfattr -n user.t -v 1 "$B" 2>/dev/null; then
	deep
	for f in $DEEP; do setfattr -n user.keep -v mine "$f"; done
	echo x > plain
	sx -- sh -c "for f in $DEEP; do $P setxattr \$f; $P fsetxattr \$f; $P removexattr \$f;
		setfacl -m o::rw \$f 2>&1; done; $P setxattr plain; setfacl -d -m o::rw a
		$P setxattr $HOME/.ssh/known_hosts; echo END"
	got=$(for f in $DEEP; do getfattr -d --absolute-names "$f" 2>/dev/null; done)
	if has '^END$' out && intact && ! grep -q 'user.sbx' <<<"$got" &&
	   [ "$(grep -c 'user.keep="mine"' <<<"$got")" = 3 ] &&
	   [ "$(grep -c ': ok$' "$B/out")" = 1 ] && has '^setxattr: ok$' out &&
	   [ "$(getfattr --only-values -n user.sbx plain 2>/dev/null)" = evil ] &&
	   ! getfacl -cdp a 2>/dev/null | grep -q . && has 'denied a default ACL on .*/a — ' err &&
	   has '^setxattr: Read-only file system$' out &&
	   ! getfattr -n user.sbx "$HOME/.ssh/known_hosts" >/dev/null 2>&1 &&
	   hasf '/a/b/c/d/e/.env by `deny_write = .env`' err; then ok
	else bad "rc=$RC $(tr '\n' ' ' < "$B/out") attrs=$(tr '\n' ' ' <<<"$got")"; fi
else skip "no static libc, no setfattr (make deps-test) or no user attributes on /var/tmp"; fi

# what is not protected is removed and changed as ever; a repository
# cloned inside is removed whole (git's own files in a git directory the
# run made); a package's .vscode/ inside node_modules goes with it
t ordinary_removal_and_chmod_work_clone_made_inside_removable
mkdir -p node_modules/pkg/.vscode src && echo '{}' > node_modules/pkg/.vscode/settings.json
echo x > src/f && git init -q --bare origin.git
sx -- sh -c "chmod 600 src/f && rm src/f && rmdir src && git clone -q origin.git cl 2>/dev/null &&
	rm -rf cl && rm -rf node_modules &&
	python3 -c 'import os; r, w = os.pipe(); os.fchmod(r, 0o600)' && echo END"
if has '^END$' out && [ ! -e src ] && [ ! -e cl ] && [ ! -e node_modules ]; then ok
else bad "rc=$RC $(ls -A)"; fi

# A superproject cloned inside is removed whole too: `rm -rf` takes its
# .git first, after which its .gitmodules is no longer beside a git
# directory the run made; what was born during the run is the run's, and
# its removal loses nothing of the user's (before 2026-11-29 it was
# refused). The user's own .gitmodules stays kept.
t superproject_cloned_inside_is_removed_whole_users_gitmodules_kept
export GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@t GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@t
mkrepo "$B/sub" && mkrepo "$B/sup" &&
	git -C "$B/sup" -c protocol.file.allow=always submodule add -q "$B/sub" lib &&
	git -C "$B/sup" commit -qm sub && mkrepo mine && echo '# mine' > mine/.gitmodules
sx -- sh -c "git -c protocol.file.allow=always clone -q --recurse-submodules '$B/sup' c2 &&
	[ -f c2/.gitmodules ] && rm -rf c2 && echo GONE; rm -f mine/.gitmodules 2>/dev/null || echo KEPT"
if has '^GONE$' out && has '^KEPT$' out && [ ! -e c2 ] && [ "$(cat mine/.gitmodules)" = '# mine' ]; then ok
else bad "rc=$RC $(tr '\n' ' ' < "$B/out") $(grep -v '^sbx: sandbox' "$B/err" | head -2 | tr '\n' ' ')"; fi
unset GIT_AUTHOR_NAME GIT_AUTHOR_EMAIL GIT_COMMITTER_NAME GIT_COMMITTER_EMAIL

# ---- the real Claude Code, started in the workspace after the run

# claude_after DIR: the real claude (npm), unsandboxed, once in DIR against
# a local stand-in of the API (mock-anthropic.py); its SessionStart and
# PreToolUse hooks run before and during the one turn.
CLAUDE=${SBX_IT_AGENTS:+$SBX_IT_AGENTS/node_modules/.bin/claude}
claude_after() {
	rm -f "$B/port"
	python3 "$SBX_BIN/mock-anthropic.py" "$B/port" "$B/api.log" "$1/a" & local mock=$!
	for _ in $(seq 200); do [ -s "$B/port" ] && break; sleep 0.1; done
	(cd "$1" && ANTHROPIC_BASE_URL="http://127.0.0.1:$(cat "$B/port")" ANTHROPIC_API_KEY=sk-ant-offline-test \
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
		timeout 120 "$CLAUDE" -p "read the file" --output-format json >"$B/cc.out" 2>"$B/cc.err")
	kill $mock 2>/dev/null; wait $mock 2>/dev/null
}
hooks_json() { printf '{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"touch %s"}]}],"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"touch %s"}]}]}}\n' "$1" "$1"; }

t claude_code_after_the_run_runs_no_hook_planted_inside
if [ -n "$CLAUDE" ] && [ -x "$CLAUDE" ]; then
	echo a > a
	# the control: the same files written outside make claude run the hook
	mkdir -p "$B/ctl/.claude" && echo a > "$B/ctl/a"
	hooks_json "$B/control-ran" > "$B/ctl/.claude/settings.json"
	claude_after "$B/ctl"
	# inside: settings.json, settings.local.json, a hooks/ script, by a
	# shell and by a static binary; a ready .claude renamed into place
	hooks_json "$B/planted" > "$B/hooks.json"
	sx -q --profile none -- sh -c "mkdir -p .claude x/.claude; cp $B/hooks.json .claude/settings.json
		cp $B/hooks.json .claude/settings.local.json; ${P:-true} create .claude/settings.json
		cp $B/hooks.json x/.claude/settings.json; mv x/.claude .claude2; mkdir st; cp $B/hooks.json st/settings.json
		rmdir .claude; mv st .claude; echo END"
	claude_after "$W"
	if has '^END$' out && [ -e "$B/control-ran" ] && [ ! -e "$B/planted" ] &&
	   [ ! -e .claude/settings.json ] && [ ! -e .claude/settings.local.json ]; then ok
	else bad "rc=$RC control=$([ -e "$B/control-ran" ] && echo ran) planted=$([ -e "$B/planted" ] && echo ran) $(ls -A .claude 2>&1)"; fi
else skip "Claude Code is not installed from the npm registry (SBX_IT_AGENTS: ${SBX_IT_AGENTS:-unset})"; fi

echo "# execlater.sh: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
