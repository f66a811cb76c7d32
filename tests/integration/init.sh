#!/bin/bash
# sbx-init's suite: pid 1 inside the sandbox. Its fresh /dev and the
# caller's terminal (through a real terminal: tmux), the order of its mounts
# with and without mount_setattr(2) (forced away by an outer seccomp filter,
# tests/progs/nosetattr.c), and what COMMAND can do to pid 1 and the holder.
# Asserts on what happened (names printed inside, files on the host), never
# on exit codes alone.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PROGS=$(mktemp -d /var/tmp/sbx-progs.XXXXXX)
trap 'rm -rf "$PROGS"' EXIT
chmod 755 "$PROGS"
built nosetattr "$PROGS/nosetattr" 2>"$PROGS/nosetattr.log" ||
	echo "# cannot build tests/progs/nosetattr.c: $(head -3 "$PROGS/nosetattr.log")"

# ---- the caller's terminal

# `tty` and ttyname(3) inside name the sandbox's own terminal (relay.c: a
# pty of its own, never the pane's); /dev/pts lists it and the sandbox's
# own ptmx only (not the pane's, not the other terminal this tmux holds);
# /dev/ptmx gives ptys of the sandbox's own, numbered around it; /dev/tty
# is it.
t own_terminal_keeps_its_name_inside_tmux
if command -v tmux >/dev/null; then
	sock="sbx-it-$$-$RANDOM"
	cat > ttyname.py <<'EOF'
import os, pty
print("NAME", os.ttyname(0))
print("PTS", " ".join(sorted(os.listdir("/dev/pts"))))
m, s = pty.openpty()
print("OWN", os.ttyname(s))
fd = os.open("/dev/tty", os.O_RDWR)
os.write(fd, b"")
print("DEVTTY-OK")
EOF
	# another terminal first: the pane's is then not /dev/pts/0, and it
	# must not show inside
	tmux -L "$sock" new-session -d -s hold 'sleep 60'
	pane=$(tmux -L "$sock" new-session -d -P -F '#{pane_tty}' -s run -x 80 -y 24 \
		"cd '$W' && HOME='$HOME' '$SBX' -q -- sh -c 'tty; python3 ttyname.py' > out.txt 2>&1; echo \$? > rc.txt")
	for _ in $(seq 100); do [ -s rc.txt ] && break; sleep 0.1; done
	tmux -L "$sock" kill-server 2>/dev/null
	inner=$(head -1 out.txt)
	n=${inner#/dev/pts/}
	own=$(sed -n 's/^OWN //p' out.txt)
	if [[ $inner == /dev/pts/* ]] && [ "$inner" != "$pane" ] && grep -qx "NAME $inner" out.txt &&
	   grep -qx "PTS $(printf '%s\n' "$n" ptmx | sort | tr '\n' ' ' | sed 's/ $//')" out.txt &&
	   [[ $own == /dev/pts/* ]] && [ "$own" != "$inner" ] && grep -qx DEVTTY-OK out.txt &&
	   [ "$(cat rc.txt)" = 0 ]; then ok
	else bad "pane=$pane: $(tr '\n' '|' < out.txt | head -c 400)"; fi
else skip "no tmux"; fi

# ---- the order of the mounts, with and without mount_setattr

# Denied paths below a write-protected directory: a mask of a directory, of
# a file, and of a directory with a re-allowed child. Without
# mount_setattr binds are not recursive, and a protect applied after the
# masks used to show the masked files again.
t masks_below_a_protect_hold_with_and_without_mount_setattr
if [ -x "$PROGS/nosetattr" ]; then
	mkdir -p prot/private prot/x/pub "$HOME/.config/gh"
	echo "$SECRET" > prot/private/key; echo "$SECRET" > prot/id.pem; echo "$SECRET" > prot/x/s
	echo "$SECRET" > "$HOME/.config/gh/hosts.yml"; echo pub-ok > prot/x/pub/f
	probe='import ctypes; l = ctypes.CDLL(None, use_errno=True); print("SETATTR", l.syscall(442, -1, 0, 0, 0, 0), ctypes.get_errno())'
	res=""
	for mode in native fallback; do
		pre=""; [ $mode = fallback ] && pre="$PROGS/nosetattr"
		# shellcheck disable=SC2086
		timeout 60 $pre "$SBX" -q --no-shim --allow-write '~' --deny-write prot --deny-write '~/.config' \
			--deny-read prot/private --deny-read prot/id.pem --deny-read prot/x --allow-read prot/x/pub -- \
			sh -c "cat prot/private/key prot/id.pem prot/x/s ~/.config/gh/hosts.yml prot/x/pub/f;
			echo x > prot/new; echo x > prot/x/pub/new; echo x > ~/.config/new; python3 -c '$probe'; echo END" \
			> "$B/out" 2>&1
		if ! has END out || grep -q "$SECRET" "$B/out" || ! has '^pub-ok$' out ||
		   [ -e prot/new ] || [ -e prot/x/pub/new ] || [ -e "$HOME/.config/new" ]; then
			res="$res [$mode: $(tr '\n' '|' < "$B/out" | head -c 300)]"
		fi
		# Inside, the seccomp table refuses mount_setattr itself (EPERM,
		# the most recent filter's answer), in both modes. With the
		# notify layer the table sends it to the listener (which answers
		# EPERM), and the kernel ranks an errno above a notification: an
		# outer filter's ENOSYS (nosetattr's) wins then, refused still.
		# The fallback really ran: sbx-init makes the same probe under the
		# filter nosetattr installed (inherited, it cannot be dropped),
		# which answers ENOSYS; the next test sees sbx-init refuse what
		# only the fallback cannot do.
		if ! has '^SETATTR -1 1$' out && ! { [ $mode = fallback ] && has '^SETATTR -1 38$' out; }; then
			res="$res [$mode: mount_setattr not refused inside]"; fi
		if [ $mode = fallback ] && ! "$PROGS/nosetattr" python3 -c "$probe" | grep -q '^SETATTR -1 38$'; then
			res="$res [no ENOSYS]"; fi
		if [ $mode = native ] && python3 -c "$probe" | grep -q '^SETATTR -1 38$'; then
			res="$res [native has no mount_setattr]"; fi
	done
	if [ -z "$res" ]; then ok; else bad "$res"; fi
else skip "tests/progs/nosetattr not built (no cc?)"; fi

# The one layout the order cannot fix without mount_setattr (a protect over
# a path that holds a child re-allowed inside a mask) is refused, with
# the reason; with mount_setattr the same operations run. sbx-init runs in
# user, mount and pid namespaces of its own (unshare), never on the host's.
t without_mount_setattr_a_protect_over_a_reallowed_child_is_refused
if [ -x "$PROGS/nosetattr" ] && unshare -Urmpf --mount-proc true 2>/dev/null; then
	mkdir -p m/a/pub && echo "$SECRET" > m/a/s && echo pub-ok > m/a/pub/f
	ops="--mask-dir-x=$W/m --unmask=$W/m/a/pub --ro=$W/m/a"
	# shellcheck disable=SC2086
	timeout 30 unshare -Urmpf --mount-proc "$PROGS/nosetattr" "$SBX_BIN/sbx-init" $ops -- sh -c 'cat m/a/pub/f; echo RAN' \
		> "$B/out" 2> "$B/err"; rc1=$?
	# shellcheck disable=SC2086
	timeout 30 unshare -Urmpf --mount-proc "$SBX_BIN/sbx-init" $ops -- sh -c 'cat m/a/pub/f m/a/s; echo RAN' \
		> "$B/out2" 2>> "$B/err"; rc2=$?
	if [ $rc1 -eq 125 ] && ! has RAN out &&
	   hasf "sbx: sandbox set-up failed: write-protect over a mount below it, without mount_setattr (Linux 5.12) $W/m/a: Function not implemented" err &&
	   has RAN out2 && has '^pub-ok$' out2 && ! grep -q "$SECRET" "$B/out2"; then ok
	else bad "rc=$rc1/$rc2 $(tr '\n' '|' < "$B/out2")"; fi
else skip "no nosetattr or no unshare -Urmpf"; fi

# ---- what COMMAND can do to pid 1 and the holder

# The holder is dumpable (the shim opens /proc/<holder>/fd/N), so it must
# hold the shim's three descriptors and nothing else: not the caller's, nor
# anything of pid 1's.
t holder_keeps_only_the_shim_descriptors
cat > holder.py <<'EOF'
import os
h = [p for p in os.listdir("/proc") if p.isdigit() and open("/proc/%s/comm" % p).read().strip() == "sbx-shim-fds"]
fds = sorted(os.listdir("/proc/%s/fd" % h[0])) if h else []
print("HOLDER", len(h), " ".join(os.readlink("/proc/%s/fd/%s" % (h[0], f)).split(":[")[0] for f in fds))
EOF
sx -q -- python3 holder.py 3< /dev/null 4> "$B/fd4"
if has '^HOLDER 1 /memfd:sbx-policy (deleted) pipe /memfd:sbx-counters (deleted)$' out ||
   has '^HOLDER 1 /memfd:sbx-policy pipe /memfd:sbx-counters$' out; then ok
else bad "$(cat "$B/out")"; fi

# The counters page is mapped by sbx-preload and by every shim that drops
# a report, and COMMAND can open it read-write through the holder (same
# user): shrunk, each mapping would die of SIGBUS at its next touch,
# sbx-preload at the end of the run (status 135, nothing said).
t counters_page_cannot_be_shrunk_under_the_supervisor
sx -q -- sh -c 'eval "$(echo "$SBX_SHIM" | tr ";" "\n" | grep -E "^(holder|counters)=[0-9]+$")"
	truncate -s 0 "/proc/$holder/fd/$counters" 2>/dev/null && echo SHRUNK
	echo SIZE $(stat -L -c %s "/proc/$holder/fd/$counters")'
if [ "$RC" = 0 ] && has '^SIZE 4096$' out && ! has SHRUNK out; then ok
else bad "rc=$RC $(tr '\n' '|' < "$B/out")"; fi

# COMMAND may lower pid 1's own limits (same user: prlimit(2)) and flood it
# with signals until the kernel kills it at its CPU limit. That ends the run
# (as COMMAND could by itself), and must give nothing more: every process
# is gone when sbx returns, no placeholder is removed before (a survivor
# would create the protected name), nothing is left behind.
t pid1_killed_at_its_cpu_limit_ends_the_run_with_nothing_left
cat > flood.py <<'EOF'
import os, resource, signal
resource.prlimit(1, resource.RLIMIT_CPU, (1, 1))
while True:  # pid 1 relays it to COMMAND, which ignores it by default
    os.kill(1, signal.SIGWINCH)
EOF
sx -q -- sh -c '(while :; do echo evil > .bashrc 2>/dev/null; echo evil > .mcp.json 2>/dev/null;
	echo tick >> bg.log; done) & python3 flood.py'
n1=$(wc -l < bg.log 2>/dev/null || echo 0); sleep 0.4; n2=$(wc -l < bg.log 2>/dev/null || echo 0)
if [ "$RC" -eq 137 ] && [ "$n1" -gt 0 ] && [ "$n1" -eq "$n2" ] && [ ! -e .bashrc ] && [ ! -e .mcp.json ] &&
   [ "$(ls -A | tr '\n' ' ')" = "bg.log flood.py " ]; then ok
else bad "rc=$RC log $n1 -> $n2, left: $(ls -A | tr '\n' ' ')"; fi

# sbx-init's set-up failures name the plan's paths, found in trees the
# sandbox writes: a name holding a newline printed a line of its own, an
# ESC or U+202E a terminal or bidi sequence. Run as pid 1 of its own
# namespaces, as the test above, on an operation that fails.
t setup_failure_escapes_the_path_it_names
timeout 30 unshare -Urmpf --mount-proc "$SBX_BIN/sbx-init" \
	--ro=$'/nonexistent-sbx\nsbx: sandbox off\e[31m\u202e' -- true >"$B/out" 2>"$B/err"
RC=$?
if [ "$RC" = 125 ] && ! has '^sbx: sandbox off' err && ! grep -q $'\e' "$B/err" &&
   hasf 'write-protect /nonexistent-sbx\x0asbx: sandbox off\x1b[31m\xe2\x80\xae: No such file or directory' err
then ok; else bad "rc=$RC $(cat -v "$B/err" | head -c 300)"; fi

echo "# $(id -un) (init): $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
