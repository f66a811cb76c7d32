#!/bin/bash
# Every line arrives (issue 24): each refusal's line reaches sbx's stderr,
# and the refused program's own line its stderr, also when that stderr is a
# full non-blocking pipe (a program inside set O_NONBLOCK on the open file
# description it shares with sbx-preload, as Node does with its stdio
# pipes), and under load: 200 short runs beside a CPU hog, each with a
# refused read and a refused connect (python3 urllib through the proxy, a
# static binary's own connect), each run's lines present. What is checked
# is the bytes that came out of the pipe, run by run.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

TOOLS=$(mktemp -d /var/tmp/sbx-lines.XXXXXX)
HOGS=""
cleanup() { for p in $HOGS; do kill "$p" 2>/dev/null; done; rm -rf "$TOOLS"; }
trap cleanup EXIT
chmod 755 "$TOOLS"

if ! command -v python3 >/dev/null; then
	echo "skip - lines: needs python3"
	echo "# $(id -un) (lines): 0 passed, 0 failed, 1 skipped"
	exit 0
fi
# the interpreter itself, not a version manager's wrapper script: 400
# runs of it here
PY=$(python3 -c 'import sys; print(sys.executable)')
NC=""
if cc -static -O2 -o "$TOOLS/netclient" "$SBX_BIN/progs/netclient.c" 2>"$TOOLS/log"; then
	NC="$TOOLS/netclient"
else
	echo "# cannot build netclient with cc -static: $(head -2 "$TOOLS/log")"
fi

# hold.py OUT [--log LOG PATTERN] -- CMD...: run CMD with stdout and stderr
# pipes of its own. stderr is not read until CMD says RELEASE on stdout (or,
# with --log, until LOG holds PATTERN: the supervisor has taken a report),
# so a program that fills it keeps it full meanwhile; then all of it is
# read, to the end, into OUT.err (and stdout into OUT.out).
cat > "$TOOLS/hold.py" <<'EOF'
import os, subprocess, sys, threading, time
out = sys.argv[1]
a = sys.argv[2:]
log = None
if a[0] == "--log":
    log, pattern, a = a[1], a[2].encode(), a[3:]
cmd = a[1:]
p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
got = []
def drain():
    got.append(p.stderr.read())
if log:
    # waiting for the supervisor to have seen the report (no fixed sleep)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if pattern in open(log, "rb").read():
                break
        except OSError:
            pass
        time.sleep(0.01)
    t = threading.Thread(target=drain); t.start()
    so = p.stdout.read()
else:
    so = b""
    for line in p.stdout:
        so += line
        if line.strip() == b"RELEASE":
            break
    t = threading.Thread(target=drain); t.start()
    so += p.stdout.read()
t.join()
p.wait()
open(out + ".out", "wb").write(so)
open(out + ".err", "wb").write(got[0])
EOF

# fill.py [--hold] CMD...: make stderr non-blocking (the open file
# description is sbx-preload's too) and fill it until it takes no more;
# then run CMD (exec). --hold: after CMD, say RELEASE on stdout once half
# a second has passed (the supervisor writes its held lines within 50 ms).
cat > "$TOOLS/fill.py" <<'EOF'
import fcntl, os, subprocess, sys, time
hold = sys.argv[1] == "--hold"
cmd = sys.argv[2:] if hold else sys.argv[1:]
fcntl.fcntl(2, fcntl.F_SETFL, fcntl.fcntl(2, fcntl.F_GETFL) | os.O_NONBLOCK)
n = 0
try:
    while True:
        n += os.write(2, b"." * 4095 + b"\n")
except BlockingIOError:
    pass
print("FILLED", n, flush=True)
if not hold:
    os.execvp(cmd[0], cmd)
subprocess.call(cmd)
time.sleep(0.5)
print("RELEASE", flush=True)
EOF

# refuse.py HOST: a refused read (the shim's report) and a refused
# connect through the proxy (python3 urllib, the proxy's report)
cat > "$TOOLS/refuse.py" <<'EOF'
import os, sys, urllib.request
try:
    urllib.request.urlopen("https://%s/" % sys.argv[1], timeout=20)
    print("CONNECT done")
except Exception as e:
    print("CONNECT", e)
try:
    open(os.path.expanduser("~/.ssh/id_ed25519")).read()
    print("READ done")
except OSError as e:
    print("READ", e.strerror)
sys.stdout.flush()
EOF

# burst.py CMD...|--refuse HOST: stderr made non-blocking and kept full --
# a writer thread pours into it the whole time CMD (or refuse.py's
# refusals, in this process) runs and a little after, waiting for room
# whenever it is full
cat > "$TOOLS/burst.py" <<'EOF'
import fcntl, os, select, subprocess, sys, threading
fcntl.fcntl(2, fcntl.F_SETFL, fcntl.fcntl(2, fcntl.F_GETFL) | os.O_NONBLOCK)
stop = threading.Event()
def pour():
    b = b"." * 4095 + b"\n"
    left = 16  # blocks after CMD is done
    while left:
        if stop.is_set():
            left -= 1
        try:
            os.write(2, b)
        except BlockingIOError:
            select.select([], [2], [])
w = threading.Thread(target=pour)
w.start()
if sys.argv[1] == "--refuse":  # refuse.py's, in this process: one start fewer
    sys.argv = sys.argv[1:]
    rc = 0
    exec(open(os.path.join(os.path.dirname(__file__), "refuse.py")).read())
else:
    rc = subprocess.call(sys.argv[1:])
stop.set()
w.join()
sys.exit(rc)
EOF
# slowread.py OUT CMD...: CMD with its stdout into OUT.out and its stderr
# a pipe of one page (full at once), read a page at a time a few
# milliseconds apart -- a reader that is behind, as a loaded machine's is:
# the pipe stays full while little passes through -- into OUT.err without
# the filler lines
cat > "$TOOLS/slowread.py" <<'EOF'
import fcntl, os, subprocess, sys, time
r, w = os.pipe()
fcntl.fcntl(r, getattr(fcntl, "F_SETPIPE_SZ", 1031), 4096)
with open(sys.argv[1] + ".out", "wb") as so:
    p = subprocess.Popen(sys.argv[2:], stdout=so, stderr=w)
os.close(w)
keep, tail = [], b""
while True:
    d = os.read(r, 4096)
    if not d:
        break
    tail += d
    *lines, tail = tail.split(b"\n")
    keep += [l for l in lines if not l.startswith(b"....")]
    time.sleep(0.002)
p.wait()
open(sys.argv[1] + ".err", "wb").write(b"".join(l + b"\n" for l in keep) + tail)
EOF
chmod 644 "$TOOLS"/*.py

NET=(--allow-domain allowed.test)
nodots() { grep -av '^\.\.\.\.' "$1"; }

# ---- the supervisor's line on a full non-blocking stderr (fails before
# the fix: the held line's write said EAGAIN and was dropped, the summary
# written later was not)

t supervisor_lines_arrive_through_a_full_nonblocking_stderr
timeout 60 "$PY" "$TOOLS/hold.py" "$B/h" -- "$SBX" "${NET[@]}" -- \
	"$PY" "$TOOLS/fill.py" --hold "$PY" "$TOOLS/refuse.py" deny-full.test
nodots "$B/h.err" > "$B/err"
if has '^FILLED [1-9]' h.out && has '^CONNECT .*403' h.out && has '^READ Permission denied' h.out &&
   has '^sbx: denied connect to deny-full.test:443 — not in allow_domains .* via the proxy$' err &&
   has '^sbx: denied read of ~/.ssh/id_ed25519 by `deny_read = ~/.ssh`' err &&
   has '^sbx: 1 denied read, 1 denied connect' err; then ok
else bad "$(tr '\n' ' ' < "$B/h.out")"; fi

t static_binary_connect_line_arrives_through_a_full_nonblocking_stderr
if [ -n "$NC" ]; then
	timeout 60 "$PY" "$TOOLS/hold.py" "$B/h" -- "$SBX" "${NET[@]}" -- \
		"$PY" "$TOOLS/fill.py" --hold "$NC" dns 192.0.2.7 80
	nodots "$B/h.err" > "$B/err"
	if has '^CONNECT Operation not permitted' h.out &&
	   has '^sbx: denied connect to 192.0.2.7:80 — not in allow_domains .* — pid [0-9]* netclient (seccomp)$' err &&
	   has '^sbx: 1 denied connect' err; then ok
	else bad "$(tr '\n' ' ' < "$B/h.out")"; fi
else skip "no static netclient"; fi

# The refused program's own line (--tell-program) on its full non-blocking
# stderr: it waits for room (fails before the fix: EAGAIN, dropped). The
# reader starts once the supervisor has the report, which the shim now
# sends before it writes the program's line.
t program_line_arrives_through_a_full_nonblocking_stderr
timeout 60 "$PY" "$TOOLS/hold.py" "$B/h" --log "$B/log.jsonl" '"op":"read"' -- \
	"$SBX" --tell-program --log "$B/log.jsonl" -- \
	"$PY" "$TOOLS/fill.py" "$PY" -c 'import os
try: open(os.path.expanduser("~/.ssh/id_ed25519"))
except OSError as e: print("READ", e.strerror, flush=True)'
nodots "$B/h.err" > "$B/err"
if has '^READ Permission denied' h.out &&
   has '^sbx: read of ~/.ssh/id_ed25519 refused by policy (deny_read = ~/.ssh)' err &&
   has '^sbx: denied read of ~/.ssh/id_ed25519' err; then ok
else bad "$(tr '\n' ' ' < "$B/h.out")"; fi

# ---- 200 short runs under a CPU hog (two `yes`, on this two-core
# machine's cores), four at a time, each with its stderr a pipe that a
# writer inside keeps full and a reader outside empties slowly: every
# run's read and connect lines and its summary, run by run.
RUNS=${SBX_LINES_RUNS:-200} # fewer while iterating
t every_run_says_its_refusals_under_load
yes > /dev/null & HOGS="$HOGS $!"
yes > /dev/null & HOGS="$HOGS $!"
cat > "$B/one.sh" <<EOF
i=\$1
if [ -n "$NC" ] && [ \$((i % 2)) = 1 ]; then
	set -- sh -c "cat ~/.ssh/id_ed25519; $NC dns 192.0.2.\$((i % 200 + 1)) 80"
else
	set -- --refuse "deny-\$i.test"
fi
"$PY" "$TOOLS/slowread.py" "$B/runs/\$i" timeout 60 "$SBX" ${NET[*]} -- "$PY" "$TOOLS/burst.py" "\$@"
EOF
mkdir "$B/runs"
seq 1 "$RUNS" | xargs -P 4 -n 1 bash "$B/one.sh"
for p in $HOGS; do kill "$p" 2>/dev/null; done
HOGS=""
lost=""
for i in $(seq 1 "$RUNS"); do
	e="$B/runs/$i.err"
	if [ -n "$NC" ] && [ $((i % 2)) = 1 ]; then
		conn="^sbx: denied connect to 192\.0\.2\.$((i % 200 + 1)):80 — .* (seccomp)$"
	else
		conn="^sbx: denied connect to deny-$i\.test:443 — .* via the proxy$"
	fi
	grep -q "$conn" "$e" && grep -q '^sbx: denied read of ~/.ssh/id_ed25519 by' "$e" &&
		grep -q '^sbx: 1 denied read, 1 denied connect' "$e" || lost="$lost $i"
done
if [ -z "$lost" ]; then ok
else
	# shellcheck disable=SC2086
	set -- $lost
	bad "$# runs with a line missing:$lost (run $1 said: $(head -c 600 "$B/runs/$1.err" | tr '\n' '|'))"
fi

echo "# $(id -un) (lines): $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
