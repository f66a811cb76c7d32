#!/bin/bash
# The report stream is untrusted input (docs/REPORTS.md, "The report stream
# is hostile input"; docs/SECURITY.md). Anything in the sandbox can open the
# shim's report pipe (/proc/<holder>/fd/<report>, named in $SBX_SHIM) and
# write to it. Each test here has COMMAND do exactly that — forged lines,
# odd bytes, floods — under a real sbx-preload, and asserts on what came out
# on the host: the audit log read by Python's strict UTF-8 decoder and
# json.loads, the bytes on the terminal, the learned sandbox.ini, the
# supervisor's peak memory (VmHWM) and the log's size.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# ---- the forger: python3 inside the sandbox, writing to the report pipe

TOOLS=$(mktemp -d /var/tmp/sbx-stream.XXXXXX)
trap 'rm -rf "$TOOLS"' EXIT
chmod 755 "$TOOLS"
FORGE=$TOOLS/forge.py
cat > "$FORGE" <<'EOF'
# forge.py EXPR|@FILE: write the report lines EXPR (or the expression in
# FILE) gives (bytes, or a list or generator of bytes) into the shim's
# report pipe, one write(2) each.
# H is $HOME as bytes. forge.py --fill: fill the pipe without blocking.
import os, sys
spec = dict(kv.split("=", 1) for kv in os.environ["SBX_SHIM"].split(";")[1:])
path = "/proc/%s/fd/%s" % (spec["holder"], spec["report"])
H = os.environb[b"HOME"]
if sys.argv[1] == "--fill":
    fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
    n = 0
    try:
        while True:
            os.write(fd, b"SBX1 D write 2 sh /fill/%d 30\n" % n)
            n += 1
    except BlockingIOError:
        pass
    print("FILLED", n, flush=True)
    sys.exit(0)
fd = os.open(path, os.O_WRONLY)
out = eval(open(sys.argv[1][1:]).read() if sys.argv[1][0] == "@" else sys.argv[1])
for line in ([out] if isinstance(out, bytes) else out):
    os.write(fd, line)
print("FORGED", flush=True)
EOF
chmod 644 "$FORGE"
# forge EXPR: the shell words that run forge.py on EXPR inside the sandbox
# (the expression goes in a file: it may hold newlines and quotes)
forge() {
	[ "$1" = --fill ] && { printf 'python3 %s --fill' "$FORGE"; return; }
	local f
	f=$(mktemp "$B/expr.XXXXXX")
	printf '%s' "$1" > "$f"
	chmod 644 "$f"
	printf 'python3 %s @%s' "$FORGE" "$f"
}

# ---- reading what came out

LOG=""
ts() { t "$1"; LOG=$B/log; }
sxl() { sx --log "$LOG" "$@"; }
# setup_failed: the last run could not set the sandbox up (nothing ran)
setup_failed() { [ "$RC" = 125 ] && has 'nothing was run' err; }
# sxl_learn ARGS: sxl, tried again when the sandbox could not be set up.
# A learning run makes /var/tmp writable, and the plan scans it three
# levels deep for protected names; on a machine running other test suites
# at once, their directories there come and go under the scan, and the
# set-up can fail (125, nothing run). That is not what is tested here.
sxl_learn() {
	local i
	for i in 1 2 3; do
		sxl "$@"
		setup_failed || return 0
		echo "# set-up failed (try $i): $(grep -m1 'set-up failed' "$B/err")"
	done
}

# logq EXPR: a Python expression over the audit log, read strictly: text
# mode, UTF-8, errors='strict', one json.loads per line. L: the records
# (dicts), R: the raw bytes, H: the home. Anything that is not strict UTF-8
# or not one JSON object per line answers `BAD …`, which no assertion expects.
logq() {
	H="$HOME" python3 - "$LOG" "$1" <<'EOF'
import json, os, sys
L, R = [], b""
try:
    with open(sys.argv[1], "rb") as f:
        R = f.read()
    with open(sys.argv[1], encoding="utf-8", errors="strict", newline="\n") as f:
        for n, line in enumerate(f, 1):
            if not line.endswith("\n"):
                print("BAD line %d: no newline" % n); sys.exit(0)
            r = json.loads(line)
            if not isinstance(r, dict):
                print("BAD line %d: not an object" % n); sys.exit(0)
            L.append(r)
except FileNotFoundError:
    pass
except (UnicodeDecodeError, ValueError) as e:
    print("BAD: %s" % e); sys.exit(0)
H = os.environ["H"]
def reports():
    return [r for r in L if r.get("layer") == "shim"]
def notices(kind=None):
    return [r for r in L if r.get("op") == "notice" and (kind is None or r.get("notice") == kind)]
print(eval(sys.argv[2]))
EOF
}

# term_clean FILE [sbx]: the bytes are strict UTF-8 with no control
# character but the newline: no ESC, no C1 (U+0080-U+009F, also as the raw
# bytes 0x80-0x9F that an 8-bit terminal takes for CSI), no bidi override.
# With `sbx`, only sbx's own lines (COMMAND's stderr is its own business).
term_clean() {
	python3 - "$1" "${2:-}" <<'EOF'
import re, sys
b = open(sys.argv[1], "rb").read()
if sys.argv[2] == "sbx":
    b = b"".join(l for l in b.splitlines(True) if l.startswith(b"sbx: "))
try:
    s = b.decode("utf-8", "strict")
except UnicodeDecodeError as e:
    print("not UTF-8: %s" % e); sys.exit(0)
bad = re.findall("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", s)
print("clean" if not bad else "control characters: %r" % bad[:5])
EOF
}

# vmhwm PID: the peak resident memory of a process, in KiB
vmhwm() { awk '/^VmHWM:/ { print $2 }' "/proc/$1/status" 2>/dev/null; }

# wait_for FILE SECONDS: true once FILE exists
wait_for() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# ---- forged decisions

ts forged_allow_of_a_secret_is_not_a_report_in_enforce_mode_and_never_logged_as_allow
# Without --trace the shim never sends an `A` line: one that comes is
# forged, and is counted as malformed, not logged (on main it was logged
# as "decision":"allow" for the key).
sxl -- sh -c "$(forge 'b"SBX1 A read 3 cat " + H + b"/.ssh/id_ed25519 0\n"')"
if has FORGED out && [ "$(logq 'len(reports())')" = 0 ] && has '1 malformed report line' err &&
   [ "$(logq "len(notices('malformed'))")" = 1 ] && ! has 'trace:' err; then ok
else bad "log=$(logq L | head -c 300)"; fi

ts forged_allow_of_a_secret_under_trace_is_the_supervisors_deny_with_the_claim
# --trace: the shim does send `A` lines, so the supervisor judges the path
# itself: the policy denies ~/.ssh, so the record says deny, names the rule,
# and keeps the shim's word as "claimed".
sxl --trace -- sh -c "$(forge 'b"SBX1 A read 3 cat " + H + b"/.ssh/id_ed25519 0\n"')"
q="[(r['decision'], r.get('claimed'), r['rule']) for r in reports() if r['target'] == H + '/.ssh/id_ed25519']"
if has FORGED out && [ "$(logq "$q")" = "[('deny', 'allow', 'deny_read = ~/.ssh')]" ] &&
   [ "$(logq "[r for r in reports() if r['decision'] == 'allow' and '.ssh' in r['target']]")" = "[]" ] &&
   hasf 'denied read of ~/.ssh/id_ed25519' err && ! hasf 'trace: read ~/.ssh' err; then ok
else bad "log=$(logq "$q") err=$(grep ssh "$B/err" | head -2)"; fi

ts forged_paths_with_control_bytes_or_not_normal_are_malformed_and_not_acted_on
# Decoded once, then refused: a %0A newline, an ESC, a DEL, `..`, `.`, `//`,
# a relative path; and a %25 decodes to a literal `%` only (%250A is the
# three characters %0A, not a newline). (A trailing / is the shim's word
# for a directory being made: taken, without it, and decided as such.)
exprs='[b"SBX1 D write 2 sh " + H + b"/a%0Aallow_read%20=%20~/.ssh 30\n",
 b"SBX1 D write 2 sh " + H + b"/b%1B[2J 30\n",
 b"SBX1 D write 2 sh " + H + b"/c%7F 30\n",
 b"SBX1 D write 2 sh /etc/../root/x 30\n",
 b"SBX1 D write 2 sh /etc/./x 30\n",
 b"SBX1 D write 2 sh /etc//x 30\n",
 b"SBX1 D write 2 sh etc/x 30\n",
 b"SBX1 D write 2 sh /etc/literal%250A 30\n"]'
sxl -- sh -c "$(forge "$exprs")"
if has FORGED out && [ "$(logq "[r['target'] for r in reports()]")" = "['/etc/literal%0A']" ] &&
   has '7 malformed report lines' err && [ "$(logq "len(notices('malformed'))")" = 1 ] &&
   ! has 'allow_read' err && [ "$(term_clean "$B/err" sbx)" = clean ]; then ok
else bad "log=$(logq "[r['target'] for r in reports()]" | head -c 300) notices=$(logq "notices()" | head -c 200)"; fi

ts report_pipe_is_write_only_inside_so_no_program_takes_others_lines
# The pipe opened for reading as /proc/<holder>/fd/N would be a second
# reader: a program inside took 48 of 50 real lines of another process
# before the supervisor read them (gone from the terminal, the log and
# the counts). The pipe is write-only, and its mode cannot be changed
# back (chmod through the link, fchmod of a write end: EPERM).
cat > "$B/reader.py" <<'EOF'
import errno, os, threading
spec = dict(kv.split("=", 1) for kv in os.environ["SBX_SHIM"].split(";")[1:])
path = "/proc/%s/fd/%s" % (spec["holder"], spec["report"])
def tried(name, f):
    try:
        f(); print(name, "DONE", flush=True)
    except OSError as e:
        print(name, errno.errorcode[e.errno], flush=True)
tried("CHMOD", lambda: os.chmod(path, 0o600))
wr = os.open(path, os.O_WRONLY)
tried("FCHMOD", lambda: os.fchmod(wr, 0o600))
taken = []
def reader(fd):
    while True:
        taken.append(os.read(fd, 65536))
try:
    fd = os.open(path, os.O_RDONLY)
    print("READ OPENED", flush=True)
    for _ in range(4):
        threading.Thread(target=reader, args=(fd,), daemon=True).start()
except OSError as e:
    print("READ", errno.errorcode[e.errno], flush=True)
pid = os.fork()
if pid == 0:
    for i in range(20):
        try: open(os.path.expanduser("~/.ssh/stolen%d" % i)).read()
        except OSError: pass
    os._exit(0)
os.waitpid(pid, 0)
print("TAKEN", b"".join(taken).count(b"\n"), flush=True)
EOF
chmod 644 "$B/reader.py"
sxl -- python3 "$B/reader.py"
n=$(logq "len([r for r in reports() if '/.ssh/stolen' in r['target']])")
if has '^READ EACCES' out && has '^CHMOD EPERM' out && has '^FCHMOD EPERM' out &&
   has '^TAKEN 0' out && [ "$n" = 20 ] && has '20 denied reads' err; then ok
else bad "out=$(tr '\n' ' ' < "$B/out") logged=$n"; fi

# ---- bytes that are not UTF-8, and control characters

ts invalid_utf8_and_c1_controls_are_replaced_in_the_log_and_escaped_on_the_terminal
# A real program with a name and a path of ill-formed UTF-8 (a surrogate
# ED A0 80, an overlong newline C0 8A, past U+10FFFF F4 90 80 80, a cut
# sequence E2 82) and C1 controls (C2 9B is CSI), refused by the shim; and
# forged lines with the same bytes and an ESC in the process name.
odd=$(printf 'x\xed\xa0\x80\xc0\x8a\xf4\x90\x80\x80\xc2\x9b31m\xe2\x82')
cp /bin/cat "$W/$(printf 'c\xc2\x9b\xed\xa0\x80t')"
exprs='[b"SBX1 D read 3 e%1B]0;pwned%07\xc2\x9b " + H + b"/.ssh/f\xc2\x85\xf4\x90\x80\x80 13\n",
 b"SBX1 D write 3 \xc0\x8a\xed\xa0\x80 /etc/\xe2\x80\xae\xc2\x9b31m 30\n"]'
sxl -- sh -c "\"./\$(printf 'c\\302\\233\\355\\240\\200t')\" \"\$HOME/.ssh/$odd\"; $(forge "$exprs")"
n_real=$(logq "len([r for r in reports() if r['target'].startswith(H + '/.ssh/x')])")
if has FORGED out && [ "$n_real" -ge 1 ] 2>/dev/null &&
   [ "$(logq "len(reports())")" = $((n_real + 2)) ] &&
   [ "$(logq "b'\\xc2\\x9b' in R or b'\\xc2\\x85' in R or b'\\xed\\xa0' in R or b'\\x1b' in R or b'\\xe2\\x80\\xae' in R")" = False ] &&
   [ "$(term_clean "$LOG")" = clean ] &&
   [ "$(logq "[r['target'] for r in reports() if r['target'].startswith(H + '/.ssh/x')][0] == H + '/.ssh/x' + '\\ufffd' * 9 + '\\x9b31m\\ufffd'")" = True ] &&
   [ "$(logq "[r['comm'] for r in reports() if r['op'] == 'write'] == ['\\ufffd' * 5]")" = True ] &&
   [ "$(term_clean "$B/err" sbx)" = clean ] && hasf '\u009b' err && has 'pid 3 e\\x1b' err; then ok
else bad "n_real=$n_real log=$(logq "[(r['comm'], r['target']) for r in reports()]" | head -c 400) term=$(term_clean "$B/err" sbx)"; fi

ts forged_loopback_notes_name_only_the_sandboxs_loopback_and_a_port
# The loopback note (a connect refused on the sandbox's own loopback) is a
# claim anything inside can forge: its target must be 127.0.0.1:PORT or
# [::1]:PORT exactly. Forged with bytes between the address and the port
# (a C1 CSI that colours the person's terminal, a right-to-left override,
# a second colon), none of it reaches the terminal; the genuine form does.
exprs='[b"SBX1 N connect 3 sh 127.0.0.1:\xc2\x9b31m:80 0\n",
 b"SBX1 N connect 3 sh 127.0.0.1:\xe2\x80\xaeab:81 0\n",
 b"SBX1 N connect 3 sh [::1]:x:82 0\n",
 b"SBX1 N connect 3 sh 127.0.0.10:83 0\n",
 b"SBX1 N connect 3 sh 127.0.0.1:84 0\n"]'
sxl -- sh -c "$(forge "$exprs")"
if has FORGED out && [ "$(grep -c 'sbx: note: connect to' "$B/err")" = 1 ] &&
   hasf 'sbx: note: connect to 127.0.0.1:84 refused' err &&
   [ "$(term_clean "$B/err" sbx)" = clean ]; then ok
else bad "$(grep 'note: connect' "$B/err" | cat -v | head -c 400)"; fi

# A refused call's reason is the notify layer's words, and may name a
# path from a tree the sandbox writes: here the git directory a refused
# `mv` would take away from its work tree, below a directory the program
# named with an OSC sequence (ESC ] 0 ; title BEL sets the terminal's
# title; before the fix it reached the terminal raw). The line says it,
# escaped; the log keeps it as JSON.
ts refused_call_reason_naming_a_planted_path_is_escaped_on_the_terminal
sxl -- sh -c 'export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@b
	d=$(printf "x\033]0;pwned\007y"); mkdir "$d" && cd "$d" &&
	git init -q s && echo x > s/f && git -C s add . && git -C s commit -qm s && git init -q sup &&
	git -C sup -c protocol.file.allow=always submodule add -q ../s lib && echo ADDED
	mkdir -p sup/m && mv sup/.git/modules/lib sup/m/lib 2>/dev/null || echo REFUSED'
q="[r['reason'] for r in L if r.get('op') == 'syscall' and 'core.worktree' in r.get('reason', '')]"
if has ADDED out && has REFUSED out && hasf 'core.worktree names: refused' err &&
   hasf 'x\x1b]0;pwned\x07y/sup/.git/modules/lib away' err &&
   [ "$(term_clean "$B/err" sbx)" = clean ] &&
   [ "$(logq "len($q) == 1 and '\x1b]0;pwned\x07' in $q[0]")" = True ]; then ok
else bad "term=$(term_clean "$B/err" sbx) $(grep -a 'core.worktree' "$B/err" | cat -v | head -c 300)"; fi

# ---- --learn takes nothing from a forged line

# learned_settings FILE: the settings (not comments) of a learned file, one
# `key = value` a line, sorted
learned_settings() { grep -vE '^\s*([;#]|$)' "$1" 2>/dev/null | sort; }

ts forged_learn_lines_add_no_widening_rule_to_the_learned_file
# One genuine write outside the policy (~/notes.txt, learned) beside forged
# `L` lines for what the learning run's boundary never allowed (/etc), for a
# secret and a mandatory name, a host `*` and a wildcard, a path hiding
# settings behind %0A, and a `D`-claimed lookup.
exprs='[b"SBX1 L write 3 sh /etc/cron.d/evil 0\n",
 b"SBX1 L write 3 sh /etc 0\n",
 b"SBX1 L write 3 sh " + H + b"/.ssh/authorized_keys 0\n",
 b"SBX1 L write 3 sh " + H + b"/.bashrc 0\n",
 b"SBX1 L write 3 sh " + H + b"/x%0Aallow_read%20=%20~/.ssh 0\n",
 b"SBX1 L read 3 sh " + H + b"/.ssh/id_ed25519 0\n",
 b"SBX1 L dns 3 sh *:443 0\n",
 b"SBX1 L dns 3 sh *.evil.example 0\n",
 b"SBX1 L dns 3 sh evil%0Aallow_domains%20=%20* 0\n",
 b"SBX1 D dns 3 sh denied.example 0\n"]'
sxl_learn -q --learn="$B/learned.ini" -- sh -c "echo n > ~/notes.txt; $(forge "$exprs")"
got=$(learned_settings "$B/learned.ini" | tr '\n' '|')
if has FORGED out && [ "$got" = "[filesystem]|allow_write = ~/notes.txt|" ] &&
   ! grep -qE 'allow_read|allow_domains|/etc' <(learned_settings "$B/learned.ini") &&
   [ "$(logq "sorted(set((r['target'].replace(H, '~'), r['decision'], r.get('claimed')) for r in reports() if r['op'] == 'write' and 'notes' not in r['target']))")" = "[('/etc', 'deny', 'would-deny'), ('/etc/cron.d/evil', 'deny', 'would-deny'), ('~/.bashrc', 'deny', 'would-deny'), ('~/.ssh/authorized_keys', 'deny', 'would-deny')]" ]; then ok
else bad "learned: $got log=$(logq "[(r['target'], r['decision'], r.get('claimed')) for r in reports()]" | head -c 400)"; fi

ts learn_file_name_with_newlines_injects_no_setting
# A genuine write, through the shim, of a file whose name holds newlines
# and settings: the line is refused as malformed, nothing is learned from it.
# (On main the file read `allow_write = ~/d`, `[network]`,
# `allow_domains = *`.)
sxl_learn -q --learn="$B/learned.ini" -- sh -c 'echo n > ~/notes.txt; echo x > ~/"$(printf "d\n[network]\nallow_domains = *\nx")"; echo DONE'
got=$(learned_settings "$B/learned.ini" | tr '\n' '|')
if has DONE out && [ ! -e "$HOME/$(printf 'd\n[network]\nallow_domains = *\nx')" ] &&
   [ "$got" = "[filesystem]|allow_write = ~/notes.txt|" ] && has '1 malformed report line' err; then ok
else bad "learned: $got"; fi

# ---- floods

ts flood_of_distinct_forged_lines_keeps_supervisor_memory_log_and_terminal_bounded
# 30000 distinct lines with 4000-byte paths (120 MB), written blocking, so
# every one reaches the supervisor. Bounds, not timings: the supervisor's
# peak RSS (VmHWM, read while COMMAND waits), the log's growth (the run's
# cap, 16 MiB), the terminal lines (the rate limit's burst plus its rate
# over the run), each cap said once on stderr and once in the log.
flood='(b"SBX1 D write 2 sh /var/tmp/flood/%05d/" % i + b"y" * 4000 + b" 30\n" for i in range(30000))'
# Under AddressSanitizer (make check SANITIZE=...) the supervisor carries the
# sanitizer's shadow memory and its quarantine of freed blocks; the
# quarantine is capped at 16 MiB here and the bound grows by the runtime's
# own fixed share. The table, the buffers and the log state must still fit.
hwm_cap=65536
if grep -q __asan_init "$SBX" 2>/dev/null; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=16"
	hwm_cap=$((65536 + 49152))
fi
start=$(date +%s)
"$SBX" --log "$LOG" -- sh -c "$(forge "$flood") && touch flood-done && i=0; while [ ! -e go-on ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i+1)); done" \
	>"$B/out" 2>"$B/err" &
pid=$!
hwm=""
if wait_for "$W/flood-done" 120; then sleep 0.5; hwm=$(vmhwm $pid); fi
touch "$W/go-on"
# a watchdog: the run must end by itself
( sleep 60; kill -9 $pid 2>/dev/null ) & dog=$!
wait $pid; RC=$?
kill $dog 2>/dev/null; wait $dog 2>/dev/null
secs=$(( $(date +%s) - start + 1 ))
logsize=$(stat -c %s "$LOG" 2>/dev/null || echo 0)
lines=$(grep -c '^sbx: denied write of /var/tmp/flood' "$B/err")
echo "# flood: supervisor VmHWM ${hwm:-?} KiB, log $logsize bytes, $lines terminal lines in ${secs}s"
if [ -n "$hwm" ] && [ "$hwm" -le "$hwm_cap" ] && [ "$logsize" -le $((16 * 1048576 + 65536)) ] &&
   [ "$logsize" -ge $((15 * 1048576)) ] && [ "$lines" -le $((500 + 50 * secs)) ] &&
   [ "$(grep -c 'audit log reached' "$B/err")" = 1 ] &&
   [ "$(grep -c 'report lines a second' "$B/err")" = 1 ] &&
   [ "$(logq "[len(notices('log-cap')), len(notices('terminal-rate'))]")" = "[1, 1]" ] &&
   [ "$RC" = 0 ] && [ "$(term_clean "$B/err" sbx)" = clean ]; then ok
else bad "rc=$RC hwm=$hwm KiB log=$logsize lines=$lines in ${secs}s notices=$(logq "[r.get('notice') for r in notices()]" | head -c 200)"; fi

ts flood_never_stalls_the_supervisor_a_signal_still_ends_the_run
# A forger writing as fast as it can, forever, in the background; the
# supervisor must still relay a SIGTERM (it reads the pipe in bounded
# slices between its other work), and the run ends.
"$SBX" --log "$LOG" -- sh -c "$(forge '(b"SBX1 D write 2 sh /etc/stall/%d 30\n" % i for i in __import__("itertools").count())') & sleep 1; touch started; sleep 100" \
	>"$B/out" 2>"$B/err" &
pid=$!
wait_for "$W/started" 30
sleep 1
kill -TERM $pid
( sleep 20; kill -9 $pid 2>/dev/null ) & dog=$!
wait $pid; RC=$?
kill $dog 2>/dev/null; wait $dog 2>/dev/null
if [ -e "$W/started" ] && [ "$RC" = 143 ]; then ok
else bad "rc=$RC (137: killed by the watchdog after 20 s)"; fi

ts learn_shim_never_blocks_forever_on_a_full_pipe
# --learn: the shim waits for room in the pipe (it must not lose what is
# learned), but not forever. The supervisor is stopped, the pipe filled,
# then the program's would-deny writes must still finish. (Without the
# seccomp notify layer: a stopped supervisor holds every notified call, by
# design; what is tested here is the shim's own wait.)
for try in 1 2 3; do
	SBX_NOTIFY=off "$SBX" --log "$LOG" --learn="$B/learned.ini" -- sh -c "touch waiting; i=0; while [ ! -e stopped ] && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i+1)); done; $(forge --fill); for n in 1 2 3; do echo \$n > ~/f\$n; done; touch done" \
		>"$B/out" 2>"$B/err" &
	pid=$!
	# (set-up failures: see sxl_learn)
	for ((i = 0; i < 300; i++)); do
		[ -e "$W/waiting" ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	[ -e "$W/waiting" ] && break
	wait $pid
	echo "# set-up failed (try $try): $(grep -m1 'set-up failed' "$B/err")"
done
kill -STOP $pid
touch "$W/stopped"
finished=no
wait_for "$W/done" 30 && finished=yes
kill -CONT $pid
( sleep 60; kill -9 $pid 2>/dev/null ) & dog=$!
wait $pid; RC=$?
kill $dog 2>/dev/null; wait $dog 2>/dev/null
# (the writes to HOME are refused and recorded: nothing of HOME changes)
if has FILLED out && [ "$finished" = yes ] && [ "$RC" = 0 ] && [ ! -e "$HOME/f3" ]; then ok
else bad "finished=$finished rc=$RC out=$(head -c 200 "$B/out")"; fi

# The supervisor's own lines name paths from trees the sandbox writes: the
# directory its walk stopped before (past 100000), a path that changed, a
# read-deny past the cap. A name holding a newline printed a line of its
# own ("sbx: sandbox off ..."), an ESC a terminal sequence. Planted as a
# run could leave them, escaped as the reports are.
t supervisor_messages_escape_planted_names
python3 -c '
import os
os.mkdir("t")
for i in range(100050):
    os.mkdir("t/%d\nsbx: sandbox off: all clear\x1b[31m" % i)
'
sx -q -- true
if has 'stopped before' err && ! has '^sbx: sandbox off' err && ! grep -q $'\x1b' "$B/err" &&
   hasf '\x0asbx: sandbox off: all clear\x1b[31m' err && [ "$RC" = 0 ]; then ok
else bad "$(head -c 300 "$B/err" | cat -v)"; fi

echo "# $(id -un) (stream): $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
