#!/bin/bash
# The sandbox's own terminal (backend/linux/relay.c): through a real terminal
# (tmux) and an interactive bash in it, as a person uses it. A program
# inside holds a pty of its own, never the person's: what it does to its
# terminal (the foreground, a read from the background) reaches nothing
# typed outside the run; the relay keeps job control (Ctrl-Z, fg, a
# background read stopping the run), the window size, full-screen programs
# and the caller's terminal modes, on every way out. Asserts on what
# happened: files the programs wrote on the host, the pane's text, `stty
# -g` of the pane's terminal from outside.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if ! command -v tmux >/dev/null; then
	echo "skip - tty: no tmux (scripts/deps.sh --test installs it)"
	echo "# $(id -un) (tty): 0 passed, 0 failed, 1 skipped"
	exit 0
fi

SOCK=""
tm() { tmux -L "$SOCK" "$@"; }
# waitfor COMMAND [N]: until it succeeds, N/20 s at most (400: 20 s; a
# condition, not a pause)
waitfor() {
	local i
	for i in $(seq "${2:-400}"); do
		eval "$1" && return 0
		sleep 0.05
	done
	return 1
}
pane() { tm capture-pane -p -t s; }
# an interactive bash in a tmux pane of 100x30, in W with the test's HOME;
# PTY: the pane's terminal
shell() {
	SOCK="sbx-tty-$$-$RANDOM"
	PTY=$(tm new-session -d -P -F '#{pane_tty}' -s s -x 100 -y 30 \
		"cd '$W' && env HOME='$HOME' PS1='$ ' TERM=xterm HISTFILE=/dev/null bash --norc --noprofile -i")
	waitfor 'pane | grep -q "^\\$"'
}
typ() { tm send-keys -t s "$@"; }
# run LINE in the pane's shell, then wait for the prompt's marker file
line() { typ "$1" Enter; }
endshell() { tm kill-server 2>/dev/null; }
# the pane's terminal modes, from outside
modes() { stty -g < "$PTY"; }

# ---- the terminal inside is the sandbox's own

# `tty` inside names a pty that is not the pane's, with the pane's size and
# modes; after the run the pane's modes are what they were, and the relay
# had it raw meanwhile (seen from outside while the program waited).
t own_terminal_relayed_modes_restored
shell
before=$(modes)
line "'$SBX' -q -- sh -c 'tty > tty.txt; stty size > size.txt; stty -g > inner.txt; echo READY; read x; echo \"got:\$x\" > got.txt'; echo \$? > rc.txt"
waitfor 'pane | grep -q "^READY"'
during=$(modes)
typ "hello" Enter
waitfor '[ -s rc.txt ]'
after=$(modes)
endshell
if [ "$(cat got.txt 2>/dev/null)" = "got:hello" ] && [ "$(cat rc.txt)" = 0 ] &&
   [ -s tty.txt ] && [ "$(cat tty.txt)" != "$PTY" ] && [ "$(cat size.txt)" = "30 100" ] &&
   [ "$before" = "$after" ] && [ "$during" != "$before" ]; then ok
else bad "pane=$PTY inside=$(cat tty.txt 2>/dev/null) size=$(cat size.txt 2>/dev/null) got=$(cat got.txt 2>/dev/null) modes: before=$before during=$during after=$after"; fi

# ---- what is typed outside the run never reaches a program inside

# A background run whose program makes itself the foreground of its
# terminal (setpgid, SIGTTOU ignored, tcsetpgrp) and reads: the person's
# next command line, typed to the shell, reaches the shell (typed.txt) and
# not the program (stolen.txt). It shared the person's terminal before,
# and the line was its.
t background_foreground_thief_reads_nothing_typed
shell
cat > thief.py <<'EOF'
import os, signal, select, sys
signal.signal(signal.SIGTTOU, signal.SIG_IGN)
fd = os.open("/dev/tty", os.O_RDWR)
try:
    os.setpgid(0, 0)
except OSError:
    pass
os.tcsetpgrp(fd, os.getpgrp())
open("armed.txt", "w").write("armed\n")
got = b""
# until the test says it is over (a file), 30 s at most
for _ in range(600):
    if os.path.exists("over.txt"):
        break
    r, _, _ = select.select([fd], [], [], 0.05)
    if r:
        try:
            got += os.read(fd, 4096)
        except OSError:
            break
open("stolen.txt", "wb").write(got)
EOF
line "'$SBX' -q -- python3 thief.py > /dev/null 2>&1 &"
waitfor '[ -s armed.txt ]'
canary="CANARY-$RANDOM$RANDOM"
line "echo $canary > typed.txt"
waitfor '[ -s typed.txt ]'
touch over.txt
waitfor '[ -e stolen.txt ]'
line "wait; echo \$? > rc.txt"
waitfor '[ -s rc.txt ]'
endshell
if grep -qx "$canary" typed.txt 2>/dev/null && [ -e stolen.txt ] &&
   ! grep -q "$canary" stolen.txt; then ok
else bad "typed=$(cat typed.txt 2>/dev/null) stolen=$(head -c 200 stolen.txt 2>/dev/null)"; fi

# A background run that reads its terminal stops, as a job does ("Stopped
# (tty input)"), and what is typed meanwhile is the shell's; `fg` gives it
# the terminal and the next line is its.
t background_read_stops_the_run_fg_gives_it_the_terminal
shell
before=$(modes)
line "'$SBX' -q -- sh -c 'tty > tty.txt; read x; echo \"got:\$x\" > got.txt' & echo \$! > spid.txt"
waitfor '[ -s spid.txt ] && ps -o stat= -p "$(cat spid.txt)" | grep -q T'
line "jobs -l > jobs.txt"
canary="CANARY-$RANDOM$RANDOM"
line "echo $canary > typed.txt"
waitfor '[ -s typed.txt ] && [ -s jobs.txt ]'
line "fg; echo \$? > rc.txt"
waitfor '[ "$(modes)" != "$before" ]'
typ "mine" Enter
waitfor '[ -s rc.txt ]'
after=$(modes)
endshell
if grep -q "Stopped (tty input)" jobs.txt && grep -qx "$canary" typed.txt &&
   [ "$(cat got.txt 2>/dev/null)" = "got:mine" ] && [ "$(cat rc.txt)" = 0 ] &&
   [ "$(cat tty.txt)" != "$PTY" ]; then ok
else bad "jobs=$(cat jobs.txt 2>/dev/null) typed=$(cat typed.txt 2>/dev/null) got=$(cat got.txt 2>/dev/null) tty=$(cat tty.txt 2>/dev/null)"; fi

# The person's terminal as a descriptor past stdio (`3<>/dev/tty`) is not
# passed in: a program holding it read the typing without job control,
# in the background too. /dev/tty opened for writing inside (the notify
# layer opens it on the program's behalf) is the program's own terminal,
# not the supervisor's: the person's.
t terminal_past_stdio_and_dev_tty_stay_the_sandbox
shell
cat > sid.py <<'EOF'
import fcntl, os, struct
print("FD3", os.path.exists("/proc/self/fd/3"))
fd = os.open("/dev/tty", os.O_RDWR)
sid = struct.unpack("i", fcntl.ioctl(fd, 0x5429, b"\0" * 4))[0]  # TIOCGSID
print("SID", sid != 0 and sid == os.getsid(0), "FG", os.tcgetpgrp(fd) == os.getpgrp())
EOF
line "'$SBX' -- python3 sid.py 3<>/dev/tty > sid.txt 2> err.txt; echo \$? > rc.txt"
waitfor '[ -s rc.txt ]'
endshell
if grep -qx "SID True FG True" sid.txt && grep -qx "FD3 False" sid.txt &&
   grep -q "descriptor 3 (a terminal) is not passed" err.txt && [ "$(cat rc.txt)" = 0 ]; then ok
else bad "$(tr '\n' '|' < sid.txt 2>/dev/null) $(head -c 300 err.txt 2>/dev/null)"; fi

# ---- job control of the person's shell

# Ctrl-Z stops the run (the shell says so, the pane's modes are its own
# again), fg resumes it and the program reads on.
t ctrl_z_stops_the_run_fg_resumes_it
shell
before=$(modes)
# (the shell goes on with the rest of a list whose job stopped: the status
# is written after fg)
line "'$SBX' -q -- sh -c 'tty > tty.txt; echo READY; cat > log.txt'"
waitfor 'pane | grep -q "^READY"'
typ "one" Enter
waitfor 'grep -q one log.txt'
typ C-z
waitfor 'pane | grep -q "Stopped"'
stopped=$(modes)
line "jobs -l > jobs.txt"
waitfor '[ -s jobs.txt ]'
line "fg; echo \$? > rc.txt"
waitfor '[ "$(modes)" != "$before" ]'
typ "two" Enter
waitfor 'grep -q two log.txt'
typ C-d
waitfor '[ -s rc.txt ]'
after=$(modes)
endshell
if [ "$(tr '\n' ' ' < log.txt)" = "one two " ] && grep -q Stopped jobs.txt &&
   [ "$stopped" = "$before" ] && [ "$after" = "$before" ] && [ "$(cat rc.txt)" = 0 ] &&
   [ "$(cat tty.txt)" != "$PTY" ]; then ok
else bad "log=$(tr '\n' ' ' < log.txt 2>/dev/null) jobs=$(cat jobs.txt 2>/dev/null) rc=$(cat rc.txt 2>/dev/null)"; fi

# ---- the window size

t window_size_follows_the_pane
shell
line "'$SBX' -q -- sh -c 'tty > tty.txt; tput cols > c1.txt; echo READY; read x; tput cols > c2.txt; stty size > s2.txt'; echo \$? > rc.txt"
waitfor 'pane | grep -q "^READY"'
tm resize-window -t s -x 77 -y 20
waitfor '[ "$(stty size < "$PTY")" = "20 77" ]'
typ "" Enter
waitfor '[ -s rc.txt ]'
endshell
if [ "$(cat c1.txt)" = 100 ] && [ "$(cat c2.txt)" = 77 ] && [ "$(cat s2.txt)" = "20 77" ] &&
   [ "$(cat tty.txt)" != "$PTY" ]; then ok
else bad "c1=$(cat c1.txt 2>/dev/null) c2=$(cat c2.txt 2>/dev/null) s2=$(cat s2.txt 2>/dev/null)"; fi

# ---- full-screen programs

# vim: insert, Ctrl-Z, fg (it redraws), write and quit; the file on the
# host has the text, the pane's modes are back.
t vim_through_the_relay_with_ctrl_z
if command -v vim >/dev/null; then
	shell
	before=$(modes)
	line "'$SBX' -q -- vim -u NONE -i NONE -N v.txt"
	# vim's own screen (its "~" lines): drawn once it has made its
	# terminal raw. Not "v.txt": the shell's echo of the command line has
	# it at once, and keys typed before vim is raw sit in a cooked line
	# that Ctrl-Z's SIGTSTP flushes (the kernel's ISIG without NOFLSH).
	waitfor 'pane | grep -q "^~"'
	typ "ihello from vim" Escape
	# in vim's buffer (the line's start: not the echo "ihello from vim"
	# of a terminal still cooked), out of insert mode (where Ctrl-Z is a
	# character)
	waitfor 'pane | grep -q "^hello from vim" && ! pane | grep -q -- "-- INSERT --"'
	typ C-z
	waitfor 'pane | grep -q "Stopped"'
	line "fg; echo \$? > rc.txt"
	# redrawn: the shell's lines are gone from the screen
	waitfor '! pane | grep -q "Stopped" && pane | grep -q "^hello from vim"'
	typ ":wq" Enter
	waitfor '[ -s rc.txt ]'
	after=$(modes)
	endshell
	if [ "$(cat v.txt 2>/dev/null)" = "hello from vim" ] && [ "$(cat rc.txt)" = 0 ] &&
	   [ "$after" = "$before" ]; then ok
	else bad "v.txt=$(cat v.txt 2>/dev/null) rc=$(cat rc.txt 2>/dev/null)"; fi
else skip "no vim"; fi

# less: pages a file, searches, quits on q.
t less_through_the_relay
shell
seq 1 500 | sed 's/^/row /' > rows.txt
line "'$SBX' -q -- less rows.txt; echo \$? > rc.txt"
waitfor 'pane | grep -q "^row 1$"'
typ "/row 250" Enter
waitfor 'pane | grep -q "^row 250$"'
typ q
waitfor '[ -s rc.txt ]'
endshell
if [ "$(cat rc.txt)" = 0 ]; then ok; else bad "rc=$(cat rc.txt 2>/dev/null)"; fi

# ---- the modes back on every way out

# The command killed (SIGKILL from outside) and sbx-preload sent SIGTERM,
# each while the relay had the pane raw.
t modes_restored_after_kill9_of_command_and_sigterm
shell
before=$(modes)
line "'$SBX' -q -- sh -c 'tty > tty.txt; exec sleep 1001'; echo \$? > rc1.txt"
waitfor 'pgrep -u "$(id -u)" -f "^sleep 1001" > p1.txt'
during=$(modes)
kill -9 "$(head -1 p1.txt)"
waitfor '[ -s rc1.txt ]'
after1=$(modes)
line "'$SBX' -q -- sh -c 'exec sleep 1002' & echo \$! > spid.txt; fg; echo \$? > rc2.txt"
waitfor 'pgrep -u "$(id -u)" -f "^sleep 1002" >/dev/null && [ "$(modes)" != "$before" ]'
kill -TERM "$(cat spid.txt)"
waitfor '[ -s rc2.txt ]'
after2=$(modes)
endshell
if [ "$during" != "$before" ] && [ "$after1" = "$before" ] && [ "$after2" = "$before" ] &&
   [ "$(cat rc1.txt)" = 137 ] && [ "$(cat rc2.txt)" = 143 ] && [ "$(cat tty.txt)" != "$PTY" ]; then ok
else bad "rc1=$(cat rc1.txt 2>/dev/null) rc2=$(cat rc2.txt 2>/dev/null) before=$before during=$during after1=$after1 after2=$after2"; fi

# ---- only the streams that are the terminal

# stdout a pipe stays the pipe (what `cmd | less` and MCP over stdio need),
# stdin from a file stays the file; stderr, the terminal, is the pty.
t pipe_and_file_streams_pass_through
shell
echo from-file > in.txt
line "'$SBX' -q -- sh -c 'ls -l /proc/self/fd/0 /proc/self/fd/1 /proc/self/fd/2; cat' < in.txt | cat > piped.txt; echo \$? > rc.txt"
waitfor '[ -s rc.txt ]'
endshell
if grep -q 'fd/0 -> .*in.txt' piped.txt && grep -q 'fd/1 -> pipe:' piped.txt &&
   grep -q 'fd/2 -> /dev/pts/' piped.txt && ! grep -q "fd/2 -> $PTY\$" piped.txt &&
   grep -qx from-file piped.txt; then ok
else bad "$(tr '\n' '|' < piped.txt)"; fi

# ---- an agent's UI

# Claude Code (from the npm registry, agents-install.sh) under its profile,
# against a scripted model on the host's loopback (fake-model.py): its UI
# drawn through the relay, a prompt typed, the tool call it makes runs
# inside (the file on the host), the answer drawn; Ctrl-Z suspends it and
# the run (the shell says Stopped), fg brings it back; the pane's modes
# are the shell's after it exits.
t claude_code_ui_through_the_relay
AG=${SBX_IT_AGENTS:-/var/tmp/sbx-it-agents}
if [ -x "$AG/node_modules/.bin/claude" ] && [ -f "$SBX_BIN/fake-model.py" ]; then
	key=sk-ant-offline-test-0123456789abcdefghij
	mkdir -p "$HOME/.claude-sbx"
	# onboarding done, the folder trusted, the offline key approved: the
	# state earlier runs leave
	python3 -c 'import json, sys
k, ws, out = sys.argv[1:4]
json.dump({"hasCompletedOnboarding": True,
           "customApiKeyResponses": {"approved": [k[-20:]], "rejected": []},
           "projects": {ws: {"hasTrustDialogAccepted": True, "allowedTools": ["Bash"]}}},
          open(out, "w"))' "$key" "$W" "$HOME/.claude-sbx/.claude.json"
	echo '[{"tool": "Bash", "input": {"command": "echo UI-OK > ui.txt", "description": "write"}}]' > "$B/script.json"
	python3 "$SBX_BIN/fake-model.py" "$B/port" "$B/api.log" "$B/script.json" & model=$!
	waitfor '[ -s "$B/port" ]'
	port=$(cat "$B/port")
	shell
	before=$(modes)
	line "PATH='$AG/node_modules/.bin':\$PATH ANTHROPIC_BASE_URL=http://127.0.0.1:$port ANTHROPIC_API_KEY=$key '$SBX' -q --host-port $port claude --allowedTools Bash 2> cc.err"
	ui=no drawn=no stopped=no back=no
	if waitfor 'pane | grep -q "for shortcuts"' 1800; then
		ui=yes
		typ "do the task"
		waitfor 'pane | grep -q "do the task"'
		typ Enter
		waitfor '[ -s ui.txt ] && pane | grep -q "● done"' 1800 && drawn=yes
		typ C-z
		waitfor 'pane | grep -q "Stopped"' && stopped=yes
		line "fg; echo \$? > rc.txt"
		waitfor '! pane | grep -q "Stopped" && pane | grep -q "for shortcuts"' 1200 && back=yes
		typ C-c
		typ C-c
	fi
	waitfor '[ -s rc.txt ]' 1200
	after=$(modes)
	endshell
	kill $model 2>/dev/null; wait $model 2>/dev/null
	if [ $ui = yes ] && [ $drawn = yes ] && [ $stopped = yes ] && [ $back = yes ] &&
	   [ "$(cat ui.txt 2>/dev/null)" = UI-OK ] && [ "$after" = "$before" ] && [ -s rc.txt ]; then ok
	else bad "ui=$ui drawn=$drawn stopped=$stopped back=$back ui.txt=$(cat ui.txt 2>/dev/null) rc=$(cat rc.txt 2>/dev/null) $(head -c 200 cc.err 2>/dev/null)"; fi
else skip "Claude Code is not installed from the npm registry ($AG)"; fi

# ---- our own lines in raw mode

# A report while the relay has the pane raw (the program reads a line: its
# pty is cooked, so [report] stderr = auto says it at once, not held as
# for a full-screen program) starts at the left edge: \r\n, not a bare
# \n. The write comes after a first line was read: the relay is raw then.
t report_line_in_raw_mode_said_at_once_at_the_left
shell
line "'$SBX' -- sh -c 'echo READY; read a; echo x > ~/.denied-$$ 2>/dev/null; echo WROTE; read b'; echo \$? > rc.txt"
waitfor 'pane | grep -q "^READY"'
typ "go" Enter
waitfor 'pane | grep -q "^WROTE"'
waitfor 'pane | grep -q "^sbx: denied write"'
pane > pane.txt
typ "" Enter
waitfor '[ -s rc.txt ]'
endshell
if grep -q '^sbx: denied write of ~/.denied' pane.txt; then ok
else bad "$(tr '\n' '|' < pane.txt | head -c 400)"; fi

# What the program leaves open or set on the terminal hides no line of
# sbx's: an OSC it never ends (the terminal takes every byte after it into
# a window title: before the relay, the denial, the summary and the
# shell's next lines all vanished), concealed text, the line-drawing
# character set. The relay cancels them before its lines and at the end
# (a CAN, an SGR reset, G0 back to ASCII); the pane shows each line, in
# plain attributes (capture-pane -e).
t report_lines_not_swallowed_by_what_the_program_left_open
shell
line "'$SBX' -- sh -c 'printf \"\\033]2;\"; cat ~/.ssh/id_ed25519; printf \"\\033[8m\\033(0\"'; echo \"RC=\$?\""
waitfor 'pane | grep -q "^RC="' 200
tm capture-pane -e -p -t s > pane.txt
endshell
if grep -q '^sbx: denied read of ~/.ssh/id_ed25519' pane.txt &&
   grep -q '^sbx: 1 denied read' pane.txt && grep -q '^RC=0$' pane.txt &&
   ! grep -q "$SECRET" pane.txt && ! grep -q $'\e\\[[0-9;]*8m\\|\e(0' pane.txt; then ok
else bad "$(tr '\n' '|' < pane.txt | cat -v | head -c 600)"; fi

# ---- the person's terminal by name

# A program inside opens the person's terminal by its name (the pane's
# /dev/pts/N, which every program of the same user may open) to write
# into it and to read what is typed there. In the nested mode there is no
# private devpts: the host's /dev/pts was granted whole, and a marker
# written there reached the pane. Now /dev is an allow-list there
# (landlock_spec_dev): only the run's own pty is a terminal by name. The
# markers are made inside (no pane line shows them before); the pane must
# not show them, the opens fail, each with a report line; the run's own
# terminal still takes a write by its name. $1: the mode's environment.
# A static program (no shim) shows the boundary holds without the shim.
person_terminal_by_name() {
	local static=""
	cc -static -O2 -o "$B/probe" "$SBX_BIN/progs/nestedprobe.c" 2>/dev/null && static="$B/probe"
	shell
	cat > probe.sh <<EOF
echo MARK\$((40 + 2))W > $PTY
python3 -c 'import os
try:
    os.open("$PTY", os.O_RDONLY | os.O_NONBLOCK); print("read: opened")
except OSError as e:
    print("read:", e.strerror)' > rd.txt
[ -z "$static" ] || "$static" append $PTY "MARK\$((40 + 2))S" > st.txt
echo OWN\$((40 + 2)) > \$(tty)
EOF
	line "env $1 '$SBX' -- sh probe.sh 2> err.txt; echo \$? > rc.txt"
	waitfor '[ -s rc.txt ]'
	pane > pane.txt
	endshell
}

t nested_persons_terminal_by_name_refused_with_report
person_terminal_by_name SBX_NESTED=1
if ! grep -q MARK42 pane.txt && grep -q '^OWN42' pane.txt &&
   grep -qx 'read: Permission denied' rd.txt && { [ ! -e "$B/probe" ] || grep -qx 'open: EACCES' st.txt; } &&
   grep -q "^sbx: denied write of $PTY — not the sandbox's own terminal" err.txt &&
   grep -q "^sbx: denied read of $PTY — not the sandbox's own terminal" err.txt &&
   grep -q 'nested mode' err.txt; then ok
else bad "pane=$(tr '\n' '|' < pane.txt | head -c 300) rd=$(cat rd.txt 2>/dev/null) static=$(cat st.txt 2>/dev/null) err=$(grep '^sbx: denied' err.txt | tr '\n' '|')"; fi

# Under bubblewrap /dev/pts is a devpts of the sandbox's own: the person's
# terminal is not there by any name (only the run's own pty is bound in).
t bwrap_persons_terminal_not_there_by_name
person_terminal_by_name SBX_NESTED=0
if ! grep -q MARK42 pane.txt && grep -q '^OWN42' pane.txt &&
   grep -Eqx 'read: (No such file or directory|Permission denied)' rd.txt &&
   { [ ! -e "$B/probe" ] || grep -Eqx 'open: (ENOENT|EACCES)' st.txt; } &&
   ! grep -q 'nested mode' err.txt; then ok
else bad "pane=$(tr '\n' '|' < pane.txt | head -c 300) rd=$(cat rd.txt 2>/dev/null) static=$(cat st.txt 2>/dev/null)"; fi

echo "# $(id -un) (tty): $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
