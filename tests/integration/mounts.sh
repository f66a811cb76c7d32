#!/bin/bash
# The mounts sbx-init makes, against a program that can change the names on
# their way: a sandboxed program of a concurrent run (or of an earlier one)
# that may write a parent of a writable root, of a protected or of a denied
# path. Every mount must land on the very object the supervisor planned, or
# nothing runs (125). Asserts on files on the host and on the exact message.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The supervisor of run 1 is held (deterministically) between its plan of
# the writable roots and sbx-init's mounts: it waits for the lock of sbx's
# stand-in records, which any program of the user's may take (flock needs no
# write access), for up to 5 s. Meanwhile run 2, whose workspace is HOME,
# swaps run 1's workspace. lock_and_start CMD...: start run 1 (CMD) in the
# background once the lock is held; sets RUN1 (its pid), LOCKFD.
lock_and_start() {
	local state="$HOME/.local/state/sbx" i
	# a first run makes the state directory and the lock file (with the
	# bubblewrap that is installed, not one a test names for run 1)
	timeout 60 env -u SBX_BWRAP "$SBX" -q --no-shim -- true >/dev/null 2>&1
	[ -f "$state/standins/lock" ] || return 1
	exec {LOCKFD}<"$state/standins/lock"
	flock -x "$LOCKFD" || return 1
	"$@" >"$B/out" 2>"$B/err" {LOCKFD}<&- &
	RUN1=$!
	# until run 1 has opened the lock file: it is then past its plan of
	# the writable roots, polling the lock every 10 ms
	for i in $(seq 400); do
		ls -l "/proc/$RUN1/fd" 2>/dev/null | grep -q 'standins/lock' && return 0
		sleep 0.01
	done
	return 1
}
release() { exec {LOCKFD}<&-; wait "$RUN1"; RC=$?; }
# swapped_said: run 1 said why it ran nothing. bubblewrap may be under way
# while run 1 waits (its options go early), and enters the working
# directory by name last: when the swap came first and the link leads
# nowhere inside, bubblewrap fails there and sbx-preload names the moved
# directory; else sbx-init finds the link where it was to mount.
swapped_said() {
	{ hasf "$HOME/proj" err && has "symlink" err; } ||
		hasf "the working directory $HOME/proj was moved or replaced" err
}

# A link planted where the workspace was: run 2 (workspace HOME) renames
# run 1's workspace away and puts `proj -> .` (HOME) in its place. Before
# the fix sbx-init bound HOME writable in run 1, which then wrote there.
t a_concurrent_run_cannot_swap_the_workspace_for_a_link_to_home
mkdir -p "$HOME/proj" && cd "$HOME/proj"
if lock_and_start "$SBX" -q --no-shim -w "$HOME/proj" -- \
	sh -c 'echo PWNED > "$HOME/pwned"; echo RAN'; then
	(cd "$HOME" && XDG_STATE_HOME="$B/state2" timeout 60 "$SBX" -q --no-shim -w "$HOME" -- \
		sh -c 'mv proj proj.real && ln -s . proj && echo SWAPPED') >"$B/out2" 2>&1 {LOCKFD}<&-
	release
	if has SWAPPED out2 && [ ! -e "$HOME/pwned" ] && ! has RAN out &&
	   [ $RC -eq 125 ] && swapped_said; then ok
	else bad "rc=$RC pwned=$(cat "$HOME/pwned" 2>&1) out=$(head -c 200 "$B/out") out2=$(head -c 200 "$B/out2")"; fi
else release; skip "run 1 never reached the stand-in lock"; fi

# The same with a directory instead of a link: run 2 moves another
# directory of HOME into the workspace's name. The object sbx-init would bind
# is not the one the supervisor planned: refused.
t a_concurrent_run_cannot_swap_the_workspace_for_another_directory
mkdir -p "$HOME/proj" "$HOME/notes" && cd "$HOME/proj" && echo keep > "$HOME/notes/todo"
if lock_and_start "$SBX" -q --no-shim -w "$HOME/proj" -- \
	sh -c 'echo PWNED >> "$HOME/proj/todo"; echo RAN'; then
	(cd "$HOME" && XDG_STATE_HOME="$B/state2" timeout 60 "$SBX" -q --no-shim -w "$HOME" -- \
		sh -c 'mv proj proj.real && mv notes proj && echo SWAPPED') >"$B/out2" 2>&1 {LOCKFD}<&-
	release
	if has SWAPPED out2 && [ "$(cat "$HOME/proj/todo")" = keep ] && ! has RAN out &&
	   [ $RC -eq 125 ] && hasf "$HOME/proj" err && has "no longer" err; then ok
	else bad "rc=$RC todo=$(cat "$HOME/proj/todo") out=$(head -c 200 "$B/out") out2=$(head -c 200 "$B/out2")"; fi
else release; skip "run 1 never reached the stand-in lock"; fi

# The same with a link to `/`: before the fix the whole tree was writable
# in run 1 (here: a file in the test's own directory, which no policy
# allows).
t a_concurrent_run_cannot_swap_the_workspace_for_a_link_to_the_root
mkdir -p "$HOME/proj" && cd "$HOME/proj"
if lock_and_start "$SBX" -q --no-shim -w "$HOME/proj" -- \
	sh -c "echo PWNED > '$B/pwned'; echo RAN"; then
	(cd "$HOME" && XDG_STATE_HOME="$B/state2" timeout 60 "$SBX" -q --no-shim -w "$HOME" -- \
		sh -c 'mv proj proj.real && ln -s / proj && echo SWAPPED') >"$B/out2" 2>&1 {LOCKFD}<&-
	release
	if has SWAPPED out2 && [ ! -e "$B/pwned" ] && ! has RAN out && [ $RC -eq 125 ] &&
	   swapped_said; then ok
	else bad "rc=$RC pwned=$(cat "$B/pwned" 2>&1) out=$(head -c 200 "$B/out")"; fi
else release; skip "run 1 never reached the stand-in lock"; fi

# The swap made after run 1's plan and just before its bubblewrap enters
# the working directory (a bubblewrap that another program outran, made
# deterministic: SBX_BWRAP names a script that waits for the test's word,
# swaps, then runs the real bubblewrap; the word comes once run 1 is held
# at the stand-in lock, past its plan). Nothing runs, and the messages
# say what moved, with no advice about containers or namespaces (which
# stood: the advice sent people the wrong way).
t a_working_directory_swapped_before_bubblewrap_enters_it_is_named
mkdir -p "$HOME/proj" && cd "$HOME/proj"
printf '#!/bin/sh\nwhile [ ! -e "%s" ]; do sleep 0.01; done\nmv "%s" "%s.real" && ln -s / "%s"\nexec %s "$@"\n' \
	"$B/go" "$HOME/proj" "$HOME/proj" "$HOME/proj" "$(command -v bwrap)" > "$B/bwrap"
chmod 755 "$B/bwrap"
if SBX_BWRAP="$B/bwrap" lock_and_start "$SBX" -q --no-shim -w "$HOME/proj" -- \
	sh -c "echo PWNED > '$B/pwned'; echo RAN"; then
	: > "$B/go"
	release
	if [ -L "$HOME/proj" ] && [ ! -e "$B/pwned" ] && ! has RAN out && [ $RC -eq 125 ] &&
	   swapped_said && ! has "container" err && ! has "namespaces" err; then ok
	else bad "rc=$RC pwned=$(cat "$B/pwned" 2>&1) out=$(head -c 200 "$B/out")"; fi
else : > "$B/go"; release; skip "run 1 never reached the stand-in lock"; fi

# ---- links that were there before: still protected where they lead

# A denied name that is a link (`secret.txt -> ~/data/real`): the mask
# lands where the link leads, as it did when mounts followed links.
t a_denied_name_that_is_a_link_is_masked_where_it_leads
mkdir -p "$HOME/data" && echo "$SECRET" > "$HOME/data/real" && ln -s "$HOME/data/real" secret.txt
sx -q --no-shim --deny-read secret.txt -- sh -c 'cat secret.txt; echo END'
if [ $RC -eq 0 ] && has '^END$' out && ! grep -q "$SECRET" "$B/out"; then ok
else bad "rc=$RC $(head -c 200 "$B/out")"; fi

# The same in the line --print gives, which runs without sbx-preload (and
# so without the identities it sends): the mask is printed where the link
# leads, and the line runs.
t print_gives_a_denied_link_masked_where_it_leads
mkdir -p "$HOME/data" && echo "$SECRET" > "$HOME/data/real" && ln -s "$HOME/data/real" secret.txt
sx -q --no-shim --print --deny-read secret.txt -- sh -c 'cat secret.txt; echo END'
line=$(cat "$B/out")
if [[ $line == *"--mask-file=$HOME/data/real"* ]] && timeout 30 sh -c "$line" >"$B/out2" 2>>"$B/err" &&
   has '^END$' out2 && ! grep -q "$SECRET" "$B/out2"; then ok
else bad "$(head -c 300 "$B/out2") line: $(grep -o -- '--mask-file=[^ ]*' "$B/out")"; fi

# A protected start-up file kept by a dotfile manager (`~/.bashrc ->
# dotfiles/bashrc`), with HOME writable: neither the link nor its target
# can be changed.
t a_protected_name_that_is_a_link_stays_protected
mkdir -p "$HOME/dotfiles" && echo original > "$HOME/dotfiles/bashrc" &&
	ln -s dotfiles/bashrc "$HOME/.bashrc" && cd "$HOME"
sx -q --no-shim -w "$HOME" -- sh -c 'echo PWNED >> .bashrc; rm -f .bashrc; echo PWNED > .bashrc; echo END'
if [ $RC -eq 0 ] && has '^END$' out && [ "$(cat "$HOME/dotfiles/bashrc")" = original ] &&
   [ "$(readlink "$HOME/.bashrc")" = dotfiles/bashrc ]; then ok
else bad "rc=$RC bashrc=$(cat "$HOME/.bashrc") $(head -c 200 "$B/out")"; fi

# ---- sbx-init by itself: no mount through a link on the way
#
# sbx-init runs in user, mount and pid namespaces of its own (unshare),
# never on the host's. Each operation's path has a link on the way (or is
# one); each is refused with the message naming it, before COMMAND runs,
# and nothing became writable.
t sbx_init_mounts_through_no_link
if unshare -Urmpf --mount-proc true 2>/dev/null; then
	init() { timeout 30 unshare -Urmpf --mount-proc "$SBX_BIN/sbx-init" "$@"; }
	mkdir -p real/d && echo keep > real/f && ln -s real l && ln -s / root && ln -s real/f flink
	res=""
	for op in "--rw=$W/root" "--rw=$W/l/d" "--ro=$W/l/f" "--pin=$W/l/d" "--mask-file=$W/l/f" \
		  "--mask-dir=$W/l/d" "--rw-in=$W/l" "--ro-link=$W/l/f" "--mask-dir-x=$W/l/d" \
		  "--bound=$W/l/d"; do
		init "$op" -- sh -c "echo PWNED > '$W/real/f'; echo RAN" >"$B/out" 2>"$B/err"; rc=$?
		path=${op#*=}
		if [ $rc -ne 125 ] || has RAN out || [ "$(cat real/f)" != keep ] ||
		   ! hasf "sbx: sandbox set-up failed: a path changed while sbx was starting: a symlink is now on the way to $path: " err; then
			res="$res [$op: rc=$rc $(head -c 160 "$B/err")]"
		fi
	done
	# a link itself is covered (not followed), and a write through it fails
	init "--ro-link=$W/flink" "--rw=$W/real" -- sh -c "rm -f flink; echo PWNED > real/f; cat real/f; echo RAN" \
		>"$B/out" 2>"$B/err"; rc=$?
	if [ $rc -ne 0 ] || ! has '^PWNED$' out || [ "$(readlink flink)" != real/f ]; then
		res="$res [--ro-link of a link: rc=$rc $(head -c 160 "$B/err")]"
	fi
	echo keep > real/f
	if [ -z "$res" ]; then ok; else bad "$res"; fi
else skip "no unshare -Urmpf"; fi

# The identities sbx-preload sends ("I": device and inode per path
# operation, in order): the one it saw runs; another object at the path,
# a missing identity, one too many or a torn message stop sbx-init (125)
# before it mounts or runs anything, with the reason.
t sbx_init_mounts_only_the_object_the_supervisor_saw
if unshare -Urmpf --mount-proc true 2>/dev/null; then
cat > "$B/ids.py" <<'EOF'
import os, socket, struct, subprocess, sys
init, case, path = sys.argv[1], sys.argv[2], sys.argv[3]
st = os.stat(path)
me = struct.pack("QQ", st.st_dev, st.st_ino)
other = struct.pack("QQ", st.st_dev, st.st_ino + 1)
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
p = subprocess.Popen(["unshare", "-Urmpf", "--mount-proc", init, "--ctl=%d" % b.fileno(), "--",
                      "sh", "-c", "touch %s/x 2>/dev/null || echo RO; echo RAN" % path],
                     pass_fds=[b.fileno()], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
b.close()
op = b"A--ro=" + path.encode() + b"\0"
msgs = {"right": [op, b"I" + me, b"G"],
        "other": [op, b"I" + other, b"G"],
        "missing": [op, b"G"],
        "extra": [op, b"I" + me + me, b"G"],
        "torn": [op, b"I" + me[:15], b"G"],
        # a stand-in's directory swapped for a link (state: there)
        "standin": [b"A--ro-new=" + path.encode() + b"/l/x\0", b"I" + me, b"Ge"]}[case]
try:
    for m in msgs:
        a.send(m)
except BrokenPipeError:
    pass
out, err = p.communicate(timeout=20)
a.close()
print(p.returncode, out.decode().strip().replace("\n", " ") or "-", err.decode().strip().replace("\n", " | "))
EOF
	mkdir sub sub/real && ln -s /var/tmp/sbx-standin-target-does-not-exist sub/real/x && ln -s real sub/l
	res="" bad_case=""
	for c in right:"0 RO RAN " other:"a path changed while sbx was starting: it is no longer the one sbx planned at $W/sub: " \
		 missing:"the supervisor's identities of the paths do not match the operations" \
		 extra:"the supervisor's identities of the paths do not match the operations" \
		 torn:"control socket: malformed identities" \
		 standin:"a symlink is now on the way to $W/sub/l/x: "; do
		name=${c%%:*} want=${c#*:}
		r=$(timeout 30 python3 "$B/ids.py" "$SBX_BIN/sbx-init" "$name" "$W/sub" 2>&1); res="$res[$name: $r] "
		case "$name" in
		right) [ "$r" = "$want" ] || bad_case="$bad_case $name" ;;
		*) [[ "$r" == "125 - sbx: sandbox set-up failed: "* && "$r" == *"$want"* ]] ||
			bad_case="$bad_case $name" ;;
		esac
	done
	if [ -z "$bad_case" ] && [ ! -e sub/x ]; then ok; else bad "$bad_case: $res"; fi
else skip "no unshare -Urmpf"; fi

echo "# mounts.sh: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
