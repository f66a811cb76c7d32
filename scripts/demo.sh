#!/bin/sh
# `make run`: show a newcomer what the sandbox allows and what it stops,
# with the built-in default policy, in a throw-away workspace and HOME.
# `make run CMD='…'` runs their own command in the current directory instead.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
sbx="$here/build/sbx-preload"

# `make run CMD=…`: the command's own failure is its result, not a failed
# make; only a sandbox that could not be set up (125, nothing ran) is an error.
if [ $# -gt 0 ]; then
	rc=0
	"$sbx" -- sh -c "$1" || rc=$?
	if [ "$rc" -eq 125 ]; then
		echo "sbx demo: the sandbox could not be set up (status 125); nothing was run" >&2
		exit 125
	fi
	[ "$rc" -eq 0 ] || echo "sbx demo: the command exited with status $rc"
	exit 0
fi

# Not under /tmp: inside the sandbox /tmp is a private, empty tmpfs, and a
# HOME there would just be missing (no refusal to show). A checkout under
# /tmp, or one we may not write to, keeps its demo in /var/tmp.
case "$here/" in
/tmp/*) where=/var/tmp ;;
*) where="$here/build" ;;
esac
[ -w "$where" ] || where=/var/tmp
demo=$(mktemp -d "$where/sbx-demo.XXXXXX")
trap 'rm -rf "$demo"' EXIT
mkdir -p "$demo/home/.ssh" "$demo/project"
echo "-----BEGIN OPENSSH PRIVATE KEY----- (demo secret)" > "$demo/home/.ssh/id_ed25519"
echo "hello from the workspace" > "$demo/project/notes.txt"
cd "$demo/project"
# The demo's HOME goes when it ends; its audit log is kept where the
# reader's own logs are, and the summary line points there.
state="${XDG_STATE_HOME:-$HOME/.local/state}/sbx"
log="$state/demo-audit.jsonl"
if ! { mkdir -p "$state" && : > "$log"; } 2>/dev/null; then
	log="$where/sbx-demo-audit-$(id -u).jsonl"
	: > "$log"
fi

cat <<MSG
== sbx demo: a command under the built-in default policy ==
   workspace: $demo/project     HOME: $demo/home
   It reads and writes a workspace file, then tries to read ~/.ssh and to
   write to \$HOME. Expect two successes and two refusals.

MSG
# Use the demo HOME, and the built-in defaults rather than any user config.
# Each step prints its line whole, once the command is done: sbx's report
# lines (on stderr, as they happen) then fall between lines, not inside one.
HOME="$demo/home" SBX_CONFIG=/dev/null "$sbx" --log "$log" -- sh -c '
	r=$(cat notes.txt 2>&1); printf "1. read  notes.txt          -> %s\n" "$r"
	r=$(echo "written inside" 2>&1 > result.txt && echo ok)
	printf "2. write result.txt         -> %s\n" "$r"
	r=$(cat ~/.ssh/id_ed25519 2>&1); printf "3. read  ~/.ssh/id_ed25519  -> %s\n" "$r"
	r=$(touch ~/planted 2>&1); printf "4. write ~/planted          -> %s\n" "$r"
' || true
echo
echo "On the host afterwards:"
printf "   result.txt: %s\n" "$(cat result.txt 2>/dev/null || echo missing)"
printf "   audit log:  %s\n" "$log"
printf "   ~/planted:  %s\n" "$( [ -e "$demo/home/planted" ] && echo 'EXISTS (bad)' || echo 'absent (blocked)')"
echo
echo "Run your own: make run CMD='ls ~/.ssh; touch /etc/x'"
