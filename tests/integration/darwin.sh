#!/bin/bash
# macOS's sbx-preload (preload/darwin_main.c over backend_darwin), run on
# Linux: the test build (build/tests/darwin/sbx-preload) takes stand-ins
# for /usr/bin/sandbox-exec and /usr/bin/log from stand-ins/ beside it
# (tests/darwin/stand-ins/, chosen at build time). The stand-in
# sandbox-exec CANNOT enforce anything: it runs COMMAND unconfined, and
# plays the kernel's part for the log (a sentinel's `cat` refused and
# logged; the refusals the profile would produce for COMMAND, written by
# the test into kernel.ndjson in the recorded real format of
# tests/unit/darwin_log.c, logged with the run's tag). So what is checked
# here is sbx-preload's part: options, policy, start line, the log's
# records into report lines and audit records, signals and exit status,
# and that it fails closed. Whether Seatbelt refuses is the macOS
# workflow's to show (.github/workflows/macos.yml).
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DW=$SBX_BIN/darwin
if [ ! -x "$DW/test/sbx-preload" ] || [ ! -x "$DW/mac/sbx-preload" ]; then
	echo "FAIL - darwin.sh: the darwin builds are missing (make build/tests/darwin/sbx-preload build/darwin/sbx-preload)"
	exit 1
fi

# dt NAME: a test with the test build and fresh stand-ins in $B/bin
# (S: the stand-ins' directory, log.fifo the kernel's records)
dt() {
	t "$1"
	mkdir -p "$B/bin"
	cp "$DW/test/sbx-preload" "$B/bin/"
	cp -r "$DW/stand-ins" "$B/bin/stand-ins"
	S=$B/bin/stand-ins
	mkfifo "$S/log.fifo"
	SBX=$B/bin/sbx-preload
}
# json_path PATH: PATH as log's ndjson writes it (every / as \/)
json_path() { printf '%s' "$1" | sed 's,/,\\/,g'; }
# kernel COMM OP PATH [PROCESSID [PID [TAG]]]: one refusal as the kernel
# logs it ([K] of tests/unit/darwin_log.c: processID 0), by default with
# the run's tag and COMMAND's pid, which the stand-in sandbox-exec fills
# in (@TAG@, @PID@); appended to kernel.ndjson
kernel() {
	printf '{"processImagePath":"\\/kernel","senderImagePath":"\\/System\\/Library\\/Extensions\\/Sandbox.kext\\/Contents\\/MacOS\\/Sandbox","eventMessage":"Sandbox: %s(%s) deny(1) %s %s\\n%s","processID":%s}\n' \
		"$1" "${5:-@PID@}" "$2" "$(json_path "$3")" "${6:-@TAG@}" "${4:-0}" >>"$S/kernel.ndjson"
}
# records FILTER: the audit log's records, one "layer op target" a line,
# of those whose decision is deny
records() {
	python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l)
    if r.get("decision")=="deny": print(r.get("layer"), r.get("op"), r.get("target"))' \
		"$HOME/.local/state/sbx/audit.jsonl" 2>/dev/null
}
# TERMINAL fg|job SBX B S READY INTR -- COMMAND...: sbx-preload -- COMMAND
# in a terminal (a pty), as a person runs an agent: itself the session's
# leader in the foreground (fg), or a job a job-control shell made the
# foreground one (job: its group is then not orphaned, so SIGTTOU would
# stop it where an orphaned group's writes fail with EIO). Once COMMAND
# made B/READY: ^C typed (unless INTR is -) and B/INTR awaited; a kernel
# refusal of ~/.ssh/id_ed25519 with the run's tag written to the log;
# B/stop made once the line is shown (or after 10 s). Prints what the
# terminal showed, then RESULT=EXIT=N or RESULT=STOPPED.
TERMINAL=$(mktemp /var/tmp/sbx-darwin-terminal.XXXXXX)
TOOLS_DW=$(mktemp -d /var/tmp/sbx-darwin-tools.XXXXXX)
chmod 755 "$TOOLS_DW"
TTY=
trap 'rm -f "$TERMINAL" ${TTY:+"$TTY"}; rm -rf "$TOOLS_DW"' EXIT
cat >"$TERMINAL" <<'PY'
import os, pty, select, signal, sys, time
mode, sbx, b, s, ready, intr = sys.argv[1:7]
cmd = sys.argv[sys.argv.index("--") + 1:]
def wait(path):
    for _ in range(600):
        if os.path.exists(path): return
        time.sleep(0.05)
    sys.exit("never made: " + path)
def result(st):
    return "STOPPED" if os.WIFSTOPPED(st) else "EXIT=%d" % os.waitstatus_to_exitcode(st)
pid, fd = pty.fork()
if pid == 0:
    if mode == "fg":
        os.execv(sbx, [sbx, "--"] + cmd)
    c = os.fork()
    if c == 0:
        os.setpgid(0, 0)
        signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        os.tcsetpgrp(0, os.getpgrp())
        signal.signal(signal.SIGTTOU, signal.SIG_DFL)
        os.execv(sbx, [sbx, "--"] + cmd)
    try: os.setpgid(c, c)
    except OSError: pass
    _, st = os.waitpid(c, os.WUNTRACED)
    open(b + "/result", "w").write(result(st))
    if os.WIFSTOPPED(st):
        os.kill(c, 9); os.waitpid(c, 0)
    os._exit(0)
out = b""
def drain():
    global out
    while select.select([fd], [], [], 0)[0]:
        try: out += os.read(fd, 65536)
        except OSError: return
wait(b + "/" + ready)
if intr != "-":
    os.write(fd, b"\x03")
    wait(b + "/" + intr)
tag = [l.split('"')[1] for l in open(s + "/log.args") if "ENDSWITH" in l][0]
home = os.environ["HOME"].replace("/", "\\/")
rec = ('{"processImagePath":"\\/kernel","eventMessage":"Sandbox: cat(4121) deny(1) '
       'file-read-data %s\\/.ssh\\/id_ed25519\\n%s","processID":0}\n' % (home, tag))
os.write(os.open(s + "/log.fifo", os.O_RDWR), rec.encode())
for _ in range(200):
    drain()
    if b"denied read" in out: break
    time.sleep(0.05)
open(b + "/stop", "w").close()
st = None
for _ in range(400):
    drain()
    done, st = os.waitpid(pid, os.WNOHANG)
    if done: break
    time.sleep(0.05)
else:
    os.kill(pid, 9); os.waitpid(pid, 0)
drain()
sys.stdout.write(out.decode(errors="replace"))
if mode == "fg":
    print("RESULT=" + (result(st) if st is not None else "HUNG"))
else:
    print("RESULT=" + (open(b + "/result").read() if os.path.exists(b + "/result") else "HUNG"))
PY
# wait_file F: until F has something in it (COMMAND's own signal that it
# runs, its pid: a file that only exists may not hold it yet)
wait_file() {
	for _ in $(seq 600); do [ -s "$1" ] && return 0; sleep 0.05; done
	return 1
}

# ---- a run

dt run_says_its_start_line_and_the_kernels_refusal_as_linux_does
# (what sbx-preload ignores for itself, SIGPIPE, SIGXFSZ and SIGTTOU
# (bits 12, 24, 21 of SigIgn), is back at its default in COMMAND)
kernel cat file-read-data "$HOME/.ssh/id_ed25519"
GITHUB_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyz01 \
	sx -- sh -c 'env > "$0/env"; grep SigIgn /proc/self/status > "$0/sigign"
		echo made > "$0/made"; exit 3' "$B"
start=$(grep -F 'sbx: sandbox on' "$B/err")
rec=$(records)
if [ $RC -eq 3 ] && [ "$(cat "$B/made" 2>/dev/null)" = made ] &&
	[[ $start == "sbx: sandbox on — workspace $W writable, network off, 1 read-deny, "*", 1 secret variable withheld; Seatbelt profile (sandbox-exec), reports from the system log; "* ]] &&
	hasf 'sbx: denied read of ~/.ssh/id_ed25519 by `deny_read = ~/.ssh` (built-in default) (allow it with --allow-read ~/.ssh/id_ed25519) — pid ' err &&
	grep -q ' cat (Seatbelt)$' "$B/err" &&
	[ "$rec" = "seatbelt read $HOME/.ssh/id_ed25519" ] &&
	grep -qx 'SBX_SANDBOX=1' "$B/env" && ! grep -q GITHUB_TOKEN "$B/env" &&
	ign=$(awk '{ print $2 }' "$B/sigign") && [ -n "$ign" ] && [ $((0x$ign & 0x1201000)) -eq 0 ] &&
	head -c 11 "$S/profile.sb" | grep -qx '(version 1)' &&
	grep -q '^processID == 0 AND eventMessage ENDSWITH "sbx-[0-9]*-[0-9]*-[0-9]*-[0-9a-f]\{16\}"$' "$S/log.args" &&
	! grep -q sbx-sentinel "$B/err" && ! hasf 'did not catch up' err; then ok
else bad "rc=$RC start=[$start] records=[$rec]"; fi

dt the_network_goes_through_sbx_proxy_on_localhost
# the proxy's listeners are the backend's, on localhost: COMMAND is
# pointed at them, the profile opens their ports, and the proxy serves
# (a domain the policy does not allow: refused by it, and reported)
sx --allow-domain example.com -- sh -c 'env > "$0/env"
	curl -s -o /dev/null -w "%{http_code}" http://denied.invalid/ > "$0/code"' "$B"
port=$(sed -n 's,^http_proxy=http://127.0.0.1:\([0-9]*\)$,\1,p' "$B/env")
sport=$(sed -n 's,^ALL_PROXY=socks5h://127.0.0.1:\([0-9]*\)$,\1,p' "$B/env")
if [ $RC -eq 0 ] && [ -n "$port" ] && [ -n "$sport" ] && [ "$port" != 3128 ] &&
	grep -qx "HTTP_PROXY_PORT=$port" "$S/params" && grep -qx "SOCKS_PROXY_PORT=$sport" "$S/params" &&
	hasf 'network: 1 domain via proxy' err && [ "$(cat "$B/code")" = 403 ] &&
	hasf 'denied.invalid' err && records | grep -qx 'proxy .* denied.invalid.*'; then ok
else bad "rc=$RC port=$port sport=$sport code=$(cat "$B/code" 2>/dev/null) records=[$(records)]"; fi

# ---- clients that read no proxy variable: on a Mac the profile lets
# only the proxy's two ports out, so the JVM and ssh (git over ssh) are
# pointed at it by JAVA_TOOL_OPTIONS and GIT_SSH_COMMAND (docs/MACOS.md)

# sshd.py DIR: a loopback server that speaks first as an ssh server does,
# keeps the first line its client sends (DIR/got) and which program's
# socket it came from (DIR/from: the proxy's is sbx-preload's; ssh's
# own, or nc's, would be a direct connection), then sends a packet no
# ssh takes (ssh ends, saying so: the way back works too) and hangs up
# once its client has
cat >"$TOOLS_DW/sshd.py" <<'PY'
import os, socket, sys
d = sys.argv[1]
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(4)
port = s.getsockname()[1]
open(d + "/port.tmp", "w").write(str(port))
os.rename(d + "/port.tmp", d + "/port")
c, peer = s.accept()
c.sendall(b"SSH-2.0-sbxfake\r\n")
got = b""
while b"\n" not in got:
    b = c.recv(4096)
    if not b: break
    got += b
open(d + "/got", "wb").write(got.split(b"\n")[0] + b"\n")
inode = None
for line in open("/proc/net/tcp").readlines()[1:]:
    f = line.split()
    if int(f[1].split(":")[1], 16) == peer[1] and int(f[2].split(":")[1], 16) == port:
        inode = f[9]
who = "?"
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        for fd in os.listdir("/proc/%s/fd" % pid):
            if os.readlink("/proc/%s/fd/%s" % (pid, fd)) == "socket:[%s]" % inode:
                who = open("/proc/%s/comm" % pid).read().strip()
    except OSError:
        pass
open(d + "/from", "w").write(who + "\n")
c.sendall(b"\xff" * 16)
while c.recv(4096):
    pass
c.close()
PY
chmod 644 "$TOOLS_DW/sshd.py"

dt the_jvm_and_git_over_ssh_are_given_the_runs_proxy_ports
sx --allow-domain example.com -- sh -c 'env > "$0/env"' "$B"
hp=$(sed -n 's/^HTTP_PROXY_PORT=//p' "$S/params")
sp=$(sed -n 's/^SOCKS_PROXY_PORT=//p' "$S/params")
JAVA_TOOL_OPTIONS=-Xmx64m GIT_SSH_COMMAND='ssh -i key' sx -v --allow-domain example.com -- sh -c 'env > "$0/env2"' "$B"
hp2=$(sed -n 's/^HTTP_PROXY_PORT=//p' "$S/params")
sp2=$(sed -n 's/^SOCKS_PROXY_PORT=//p' "$S/params")
if [ $RC -eq 0 ] && [ -n "$hp" ] && [ -n "$sp" ] && [ -n "$hp2" ] && [ -n "$sp2" ] &&
	grep -qxF "JAVA_TOOL_OPTIONS=-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=$hp -Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=$hp -Dhttp.nonProxyHosts=localhost|127.*|[::1]" "$B/env" &&
	grep -qxF "GIT_SSH_COMMAND=ssh -o 'ProxyCommand=/usr/bin/nc -X 5 -x 127.0.0.1:$sp %h %p'" "$B/env" &&
	grep -qxF "JAVA_TOOL_OPTIONS=-Xmx64m -Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=$hp2 -Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=$hp2 -Dhttp.nonProxyHosts=localhost|127.*|[::1]" "$B/env2" &&
	grep -qxF "GIT_SSH_COMMAND=ssh -i key -o 'ProxyCommand=/usr/bin/nc -X 5 -x 127.0.0.1:$sp2 %h %p'" "$B/env2" &&
	hasf "GIT_SSH_COMMAND: yours, then sbx's ProxyCommand" err; then ok
else bad "rc=$RC hp=$hp sp=$sp $(grep -e ^JAVA -e ^GIT_SSH "$B/env" "$B/env2" 2>/dev/null | tr '\n' ' ')"; fi


dt git_over_ssh_goes_through_the_socks_port_by_bsd_netcat
# the real thing on Linux: git runs GIT_SSH_COMMAND, Debian's ssh runs the
# ProxyCommand, BSD netcat (netcat-openbsd, the one macOS ships) speaks
# SOCKS5 to the run's proxy, which dials the allowed loopback server; a
# name the policy does not allow is refused by the proxy (nc sends it
# unresolved) and reported
if [ "$(readlink -f /usr/bin/nc)" != /usr/bin/nc.openbsd ] && [ "$(readlink -f /usr/bin/nc)" != /bin/nc.openbsd ]; then
	skip "/usr/bin/nc is not BSD netcat (netcat-openbsd: make deps-test)"
elif ! command -v ssh >/dev/null; then skip "no ssh"
else
	mkdir -p "$B/srv"
	python3 "$TOOLS_DW/sshd.py" "$B/srv" 2>"$B/srv.err" &
	srv=$!
	wait_file "$B/srv/port"
	port=$(cat "$B/srv/port")
	sx --allow-domain "127.0.0.1:$port" -- sh -c '
		git clone -q "ssh://git@127.0.0.1:$1/repo.git" "$0/clone" 2>"$0/git1.err"
		git ls-remote "ssh://git@denied.invalid/repo.git" 2>"$0/git2.err"
		echo done > "$0/done"' "$B" "$port"
	kill $srv 2>/dev/null
	wait $srv 2>/dev/null
	if [ $RC -eq 0 ] && [ -s "$B/done" ] && grep -q '^SSH-2\.0-OpenSSH' "$B/srv/got" &&
		[ "$(cat "$B/srv/from")" = sbx-preload ] && grep -q 'Bad packet length' "$B/git1.err" &&
		hasf "sbx: denied connect to denied.invalid:22 — not in allow_domains (allow it with --allow-domain denied.invalid) — via the proxy" err &&
		records | grep -qx 'proxy .* denied.invalid:22'; then ok
	else bad "rc=$RC port=$port srv=[$(cat "$B/srv.err")] got=[$(cat "$B/srv/got" 2>/dev/null)] from=[$(cat "$B/srv/from" 2>/dev/null)] git=[$(cat "$B/git1.err" "$B/git2.err" 2>/dev/null | tr '\n' ' ' | cut -c1-300)] records=[$(records)]"; fi
fi

dt the_jvm_goes_through_the_proxy
# a JVM (Debian's OpenJDK) fetching a URL with HttpURLConnection, which
# reads no proxy variable: the proxy answers (403 for a host the policy
# does not allow) and reports it; without JAVA_TOOL_OPTIONS it would
# resolve the name itself and fail
if ! command -v java >/dev/null; then skip "no java"
else
	cat >"$B/Fetch.java" <<'JAVA'
public class Fetch {
    public static void main(String[] a) throws Exception {
        var c = (java.net.HttpURLConnection) new java.net.URL(a[0]).openConnection();
        System.out.println(c.getResponseCode());
    }
}
JAVA
	sx --allow-domain example.com -- sh -c 'java "$0/Fetch.java" http://denied.invalid/ > "$0/code"' "$B"
	if [ $RC -eq 0 ] && [ "$(cat "$B/code")" = 403 ] && hasf 'Picked up JAVA_TOOL_OPTIONS' err &&
		hasf "sbx: denied connect to denied.invalid:80 — not in allow_domains" err &&
		records | grep -qx 'proxy .* denied.invalid:80'; then ok
	else bad "rc=$RC code=[$(cat "$B/code" 2>/dev/null)] records=[$(records)]"; fi
fi

dt log_and_report_file_options_and_strict_isolation_as_on_linux
kernel cat file-read-data "$HOME/.ssh/id_ed25519"
printf '[sandbox]\nisolation = strict\n' >"$B/strict.ini"
sx --config "$B/strict.ini" --log "$B/audit.jsonl" --report-file "$B/lines" -- true
sess=$(sed -n 's/.*session ~\/\.local\/state\/sbx\/sessions\/\([^ ]*\) writable.*/\1/p' "$B/err")
if [ $RC -eq 0 ] && [ -n "$sess" ] && [ -d "$HOME/.local/state/sbx/sessions/$sess" ] &&
	hasf "sbx: sandbox on — workspace $W read-only, session " err &&
	grep -q '"layer":"seatbelt"' "$B/audit.jsonl" &&
	grep -qF 'denied read of ~/.ssh/id_ed25519' "$B/lines" && ! hasf 'denied read' err &&
	[ ! -e "$HOME/.local/state/sbx/audit.jsonl" ]; then ok
else bad "rc=$RC sess=$sess"; fi

dt an_agent_profile_gives_its_arguments_after_commands_name
# `sbx-preload codex`: the codex profile's [profile] args go after
# COMMAND's name, as sbx-init inserts them on Linux
printf '#!/bin/sh\nprintf "%%s\\n" "$@" > "%s/args"\n' "$B" >"$B/codex"
chmod +x "$B/codex"
sx -- "$B/codex" hello
if [ $RC -eq 0 ] && [ "$(head -n 2 "$B/args" | tr '\n' ' ')" = '-c sandbox_mode="danger-full-access" ' ] &&
	[ "$(tail -n 1 "$B/args")" = hello ] && hasf 'the profile runs the command as: ' err; then ok
else bad "rc=$RC args=[$(tr '\n' ' ' <"$B/args" 2>/dev/null)]"; fi

dt print_seatbelt_is_what_the_linux_build_prints
norm() { sed -E 's/sbx-[0-9]{8}-[0-9]{6}-[0-9]+/sbx-RUN/g' "$1"; }
cfg=$B/sandbox.ini
printf '[filesystem]\ndeny_read = ~/dir with space\nallow_write = %s/out\n' "$W" >"$cfg"
sx --config "$cfg" --print=seatbelt -- make test
cp "$B/out" "$B/mac.out"
RCM=$RC
# Linux's, at the same path and without the helpers it counts as its own
# files besides itself (sbx-init, the shim, bubblewrap: the Mac has none)
cp "$SBX_BIN/sbx-preload" "$B/bin/sbx-preload"
SBX_INIT=/nonexistent SBX_SHIM_LIB=/nonexistent SBX_BWRAP=/nonexistent \
	sx --config "$cfg" --print=seatbelt -- make test
if [ $RCM -eq 0 ] && [ $RC -eq 0 ] && grep -q '^/usr/bin/sandbox-exec ' "$B/mac.out" &&
	[ "$(norm "$B/mac.out")" = "$(norm "$B/out")" ] && [ ! -e "$S/profile.sb" ]; then ok
else bad "rc=$RCM/$RC: $(diff <(norm "$B/mac.out") <(norm "$B/out") | head -3)"; fi

# ---- the shim's hand-over (docs/MACOS.md, "The shim's hand-over")
# Linux cannot load the dylib (the stand-in libsbx-preload.dylib beside
# the test build turns the hand-over on): shim.py plays the shim. It
# reads SBX_SHIM, says what it names (modes, owner, the blob's header),
# writes one report line into the FIFO as the shim does (one
# non-blocking write after checking it is a FIFO) and counts one drop.
cat >"$TOOLS_DW/shim.py" <<'PY'
import os, stat, sys
b = sys.argv[1]
out = open(b + "/shim", "w")
spec = os.environ.get("SBX_SHIM")
out.write("DYLD=%s\n" % os.environ.get("DYLD_INSERT_LIBRARIES"))
if spec is None:
    out.write("NOSHIM\n"); sys.exit(0)
v, *kvs = spec.split(";")
kv = dict(x.split("=", 1) for x in kvs)
out.write("version=%s mode=%s lib=%s\n" % (v, kv.get("mode"), kv.get("lib")))
d = os.path.dirname(kv["policy"])
st = os.lstat(d)
out.write("dir=%s %o %s\n" % (d, stat.S_IMODE(st.st_mode), st.st_uid == os.getuid()))
for k in ("policy", "report", "counters"):
    st = os.lstat(kv[k])
    out.write("%s=%s %s %s\n" % (k, os.path.dirname(kv[k]) == d, stat.filemode(st.st_mode),
                                 st.st_uid == os.getuid()))
pol = open(kv["policy"], "rb").read()
ok = pol[:8] == b"SBXPOL\0\2" and int.from_bytes(pol[8:12], "little") == len(pol)
out.write("blob=%s %s\n" % (ok, os.environb[b"PWD"] in pol))
fd = os.open(kv["report"], os.O_WRONLY | os.O_NONBLOCK)
assert stat.S_ISFIFO(os.fstat(fd).st_mode)
os.write(fd, b"SBX1 D read %d cat %s/.ssh/id_ed25519 13\n" % (os.getpid(), os.environb[b"HOME"]))
with open(kv["counters"], "ab") as c:
    c.write(b"+")
out.write("WROTE\n")
PY
chmod 644 "$TOOLS_DW/shim.py"
# shimdirs: the hand-over directories in sbx's state directory now
shimdirs() { ls -d "$HOME/.local/state/sbx/shim-"* 2>/dev/null; }

dt the_shims_report_fifo_reaches_the_reports_and_its_directory_goes
sx -- python3 "$TOOLS_DW/shim.py" "$B"
dir=$(sed -n 's/^dir=\([^ ]*\) .*/\1/p' "$B/shim" 2>/dev/null)
rec=$(records)
if [ $RC -eq 0 ] && grep -qx WROTE "$B/shim" &&
	grep -qx "DYLD=$S/libsbx-preload.dylib" "$B/shim" &&
	grep -qx "version=1 mode=enforce lib=$S/libsbx-preload.dylib" "$B/shim" &&
	[[ $dir == "$HOME/.local/state/sbx/shim-"* ]] && grep -qx "dir=$dir 700 True" "$B/shim" &&
	grep -qx 'policy=True -r-------- True' "$B/shim" &&
	grep -qx 'report=True p-w------- True' "$B/shim" &&
	grep -qx 'counters=True --w------- True' "$B/shim" && grep -qx 'blob=True True' "$B/shim" &&
	cut -d= -f2- "$S/params" | sed 's,^/private/,/,' | grep -qxF "$dir" &&
	cut -d= -f2- "$S/params" | sed 's,^/private/,/,' | grep -qxF "$dir/policy" && grep -q "The shim's hand-over" "$S/profile.sb" &&
	hasf 'sbx: denied read of ~/.ssh/id_ed25519 by `deny_read = ~/.ssh` (built-in default)' err &&
	[ "$rec" = "shim read $HOME/.ssh/id_ed25519" ] &&
	hasf '1 report dropped (the supervisor fell behind)' err &&
	[ ! -e "$dir" ] && [ -z "$(shimdirs)" ]; then ok
else bad "rc=$RC dir=$dir records=[$rec] shim=[$(tr '\n' ' ' <"$B/shim" 2>/dev/null)] left=[$(shimdirs)]"; fi

dt no_shim_makes_no_handover_and_sets_no_sbx_shim
# the same run without it first: the hand-over is there to be dropped
sx -- python3 "$TOOLS_DW/shim.py" "$B"
with=$(grep -c '^version=1 mode=enforce' "$B/shim")
sx --no-shim -- python3 "$TOOLS_DW/shim.py" "$B"
if [ $RC -eq 0 ] && [ "$with" = 1 ] && grep -qx NOSHIM "$B/shim" && grep -qx 'DYLD=None' "$B/shim" &&
	! grep -q "The shim's hand-over" "$S/profile.sb" && [ -z "$(shimdirs)" ] &&
	hasf 'sbx: sandbox on' err; then ok
else bad "rc=$RC with=$with shim=[$(tr '\n' ' ' <"$B/shim" 2>/dev/null)] left=[$(shimdirs)]"; fi

# ---- one refusal, one line and one record (docs/REPORTS.md)
# echo.py S ORDER PATH OTHER FORGED plays a program with the shim in it
# refused a deferred name (a name rule at any depth: the shim lets
# Seatbelt answer, then names the refusal) and plays the kernel's log
# for it. ORDER shim: the shim's line, then, once the audit log has it,
# the kernel's record (as on a Mac: the log comes a moment later); then
# a line forged for FORGED with another process's number, and three
# records of the kernel's: PATH by another process, OTHER and FORGED by
# this one. ORDER log: the other way round; then the kernel's record of
# OTHER for another process (one the shim is not in), and this one's
# shim line for OTHER, a refusal of its own.
cat >"$TOOLS_DW/echo.py" <<'PY'
import json, os, re, sys, time
s, order, path, other, forged = sys.argv[1:6]
kv = dict(x.split("=", 1) for x in os.environ["SBX_SHIM"].split(";")[1:])
tag = re.search(r'\(with message "([^"]*)"\)', open(s + "/profile.sb").read()).group(1)
audit = os.environ["HOME"] + "/.local/state/sbx/audit.jsonl"
me = os.getpid()
def shim(pid, p):
    fd = os.open(kv["report"], os.O_WRONLY | os.O_NONBLOCK)
    os.write(fd, b"SBX1 D write %d python3 %s 1\n" % (pid, p.encode()))
    os.close(fd)
def kernel(pid, p):
    msg = "Sandbox: python3(%d) deny(1) file-write-create %s\n%s" % (pid, p, tag)
    rec = {"processImagePath": "/kernel",
           "senderImagePath": "/System/Library/Extensions/Sandbox.kext/Contents/MacOS/Sandbox",
           "eventMessage": msg, "processID": 0}
    fd = os.open(s + "/log.fifo", os.O_RDWR)
    os.write(fd, (json.dumps(rec).replace("/", "\\/") + "\n").encode())
    os.close(fd)
def recorded(layer, p):
    for _ in range(500):
        try:
            if any(json.loads(l).get("layer") == layer and json.loads(l).get("target") == p
                   for l in open(audit)):
                return
        except FileNotFoundError:
            pass
        time.sleep(0.02)
    sys.exit("never recorded: %s %s" % (layer, p))
if order == "shim":
    shim(me, path); recorded("shim", path); kernel(me, path)
    shim(me + 100000, forged); recorded("shim", forged)
    kernel(os.getppid(), path); kernel(me, other); kernel(me, forged)
else:
    kernel(me, path); recorded("seatbelt", path); shim(me, path)
    kernel(os.getppid(), other); recorded("seatbelt", other); shim(me, other)
PY
chmod 644 "$TOOLS_DW/echo.py"

dt a_refusal_the_shim_said_is_not_said_again_by_the_log
# Before: the kernel's record was a second line, record and count of the
# refusal the shim had said (docs/MACOS.md's "A refusal said twice").
sx -- python3 "$TOOLS_DW/echo.py" "$S" shim "$W/.bashrc" "$W/.zshrc" "$W/.profile"
rec=$(records | sort | tr '\n' '|')
want="seatbelt write $W/.bashrc|seatbelt write $W/.profile|seatbelt write $W/.zshrc|shim write $W/.bashrc|shim write $W/.profile|"
if [ $RC -eq 0 ] && [ "$rec" = "$want" ] &&
	[ "$(grep -cF "sbx: denied write of $W/.bashrc by \`deny_write = .bashrc\` (built in; no setting lifts it) — pid " "$B/err")" = 1 ] &&
	[ "$(grep -c "^sbx: denied write of $W/.bashrc .*(x1 more)$" "$B/err")" = 1 ] &&
	[ "$(grep -c "^sbx: denied write of $W/.zshrc .* python3 (Seatbelt)$" "$B/err")" = 1 ] &&
	grep -q '^sbx: 5 denied writes — see ' "$B/err"; then ok
else bad "rc=$RC records=[$rec] err=$(grep '^sbx: ' "$B/err" | tail -n +2 | tr '\n' '|')"; fi

dt a_refusal_the_log_said_first_is_not_said_again_by_the_shim
# (and a process without the shim, refused a name, leaves no echo
# awaited for another's: before, the shim's own refusal of .zshrc was
# taken for the echo of the other process's, and not said)
sx -- python3 "$TOOLS_DW/echo.py" "$S" log "$W/.bashrc" "$W/.zshrc" -
rec=$(records | sort | tr '\n' '|')
want="seatbelt write $W/.bashrc|seatbelt write $W/.zshrc|shim write $W/.zshrc|"
if [ $RC -eq 0 ] && [ "$rec" = "$want" ] &&
	[ "$(grep -c "^sbx: denied write of $W/.bashrc .* python3 (Seatbelt)$" "$B/err")" = 1 ] &&
	[ "$(grep -c "^sbx: denied write of $W/.bashrc " "$B/err")" = 1 ] &&
	[ "$(grep -c "^sbx: denied write of $W/.zshrc .* python3 (Seatbelt)$" "$B/err")" = 1 ] &&
	[ "$(grep -c "^sbx: denied write of $W/.zshrc .*(x1 more)$" "$B/err")" = 1 ] &&
	grep -q '^sbx: 3 denied writes — see ' "$B/err"; then ok
else bad "rc=$RC records=[$rec] err=$(grep '^sbx: ' "$B/err" | tail -n +2 | tr '\n' '|')"; fi

dt sigterm_to_sbx_removes_the_shims_directory
"$SBX" -- sh -c 'python3 "$1" "$0"; echo $$ > "$0/pid"; exec sleep 600' "$B" "$TOOLS_DW/shim.py" >"$B/out" 2>"$B/err" &
sbx=$!
wait_file "$B/pid"
during=$(shimdirs)
kill -TERM $sbx
wait $sbx
RC=$?
if [ $RC -eq 143 ] && grep -qx WROTE "$B/shim" && [ -n "$during" ] && [ -z "$(shimdirs)" ] &&
	hasf 'denied read of ~/.ssh/id_ed25519' err; then ok
else bad "rc=$RC during=[$during] left=[$(shimdirs)]"; fi

# ---- the dylib starts its shim when it is loaded (shim/darwin.c's
# constructor), before the program's main and its threads: a process
# whose threads make their first calls at once has none pass while
# another starts it. Its sources as a Linux shared object (the wrappers'
# names interpose nothing here), loaded into /bin/true, which calls none
# of them: a hand-over it cannot use is said at once, at the load.
dt the_dylib_starts_its_shim_when_loaded_before_any_call
cp "$DW/dylib-start.so" "$B/"
SBX_SHIM='1;mode=enforce;policy=rel/policy;report=/nowhere/reports;counters=/nowhere/dropped' \
	LD_PRELOAD="$B/dylib-start.so" /bin/true 2>"$B/load.err"
rc=$?
LD_PRELOAD="$B/dylib-start.so" /bin/true 2>"$B/quiet.err"
if [ $rc -eq 0 ] && grep -q '^sbx: preload shim off in this process: .*SBX_SHIM policy=' "$B/load.err" &&
	[ ! -s "$B/quiet.err" ]; then ok
else bad "rc=$rc load=[$(cat "$B/load.err")] quiet=[$(cat "$B/quiet.err")]"; fi

# ---- long report lines (docs/MACOS.md, "The shim's hand-over"): a
# Mac's FIFO takes a write whole only up to 512 bytes, so the shim writes
# a longer line as pieces and the supervisor joins them
# (common/wire_join.h). shim-writer is the shim's real core as macOS
# builds it, with a FIFO that takes a longer write in 512-byte parts
# (tests/darwin/shimwriter.c, fifo512.c), refused at once in 3 processes
# of 3 threads each on paths of 600 to 3000 bytes: every refusal comes
# whole, said and logged, none dropped, none malformed.
dt long_report_lines_from_many_shims_at_once_come_whole
cp "$DW/shim-writer" "$B/bin/"
sx -- "$B/bin/shim-writer" 3 3 3 "$HOME/.ssh" "$HOME/outside"
got=$(records | sed -n 's/^shim //p' | sort)
want=$(sort "$B/out")
nlong=$(printf '%s\n' "$want" | awk 'length($0) > 600' | wc -l)
if [ $RC -eq 0 ] && [ "$nlong" = 54 ] && [ "$got" = "$want" ] &&
	[ "$(grep -c '^sbx: denied read of ~/.ssh/r-' "$B/err")" = 27 ] &&
	[ "$(grep -c '^sbx: denied write of ~/outside/w-' "$B/err")" = 27 ] &&
	! grep -q 'dropped\|malformed' "$B/err"; then ok
else bad "rc=$RC long=$nlong records=$(printf '%s\n' "$got" | grep -c .) summary=[$(grep "^sbx: [0-9]" "$B/err" | cut -c1-300)] $(diff <(printf '%s\n' "$want" | cut -c1-80) <(printf '%s\n' "$got" | cut -c1-80) | head -3)"; fi

# pieces as a hostile program writes them: one never finished, one
# skipping a piece, k past n, a huge n, pieces whose line names another
# pid; among them a good long line in pieces. The good one is said and
# logged; the rest cost only themselves, counted: 2 dropped, 3 malformed.
dt hostile_pieces_cost_only_themselves_counted
cat >"$B/pieces.py" <<'PY'
import os, stat
kv = dict(x.split("=", 1) for x in os.environ["SBX_SHIM"].split(";")[1:])
home, me = os.environb[b"HOME"], os.getpid()
fd = os.open(kv["report"], os.O_WRONLY | os.O_NONBLOCK)
assert stat.S_ISFIFO(os.fstat(fd).st_mode)
def piece(pid, id, k, n, data):
    p = b"SBXP %d %016x %d %d %s\n" % (pid, id, k, n, data)
    assert len(p) <= 512
    assert os.write(fd, p) == len(p)
line = b"SBX1 D read %d cat %s/.ssh/good/%s 13" % (me, home, b"/".join([b"g" * 200] * 8))
parts = [line[i:i + 400] for i in range(0, len(line), 400)]
good = int.from_bytes(os.urandom(8), "little")
piece(me, good, 1, len(parts), parts[0])
piece(me, 0xaa, 1, 3, b"SBX1 D read %d cat %s/.ssh/never" % (me, home))  # never finished
piece(me, 0xab, 5, 3, b"x")                                              # k > n
piece(me, 0xac, 1, 999999, b"x")                                         # a huge n
piece(me, 0xae, 1, 3, b"SBX1 D read %d cat %s/.ssh/skip" % (me, home))   # a piece skipped
piece(me, 0xae, 3, 3, b"ped 13")
for k, part in enumerate(parts[1:], 2):
    piece(me, good, k, len(parts), part)
piece(me, 0xad, 1, 2, b"SBX1 D read 1 cat %s/.ssh/lie" % home)          # pid 1's line
piece(me, 0xad, 2, 2, b"d 13")
os.close(fd)
PY
sx -- python3 "$B/pieces.py"
rec=$(records)
good="shim read $HOME/.ssh/good/$(printf 'g%.0s' $(seq 200))/"
if [ $RC -eq 0 ] && [ "$(printf '%s\n' "$rec" | grep -c .)" = 1 ] && [[ $rec == "$good"* ]] &&
	[ ${#rec} -gt 1640 ] && hasf 'sbx: denied read of ~/.ssh/good/ggg' err &&
	hasf '2 reports dropped' err && hasf '3 malformed report lines' err &&
	! grep -q '/never\|/skipped\|/lie' "$B/err"; then ok
else bad "rc=$RC records=[$(printf "%s" "$rec" | cut -c1-100)] summary=[$(grep "^sbx: [0-9]" "$B/err" | cut -c1-300)]"; fi

# the FIFO is read to its end when COMMAND ends (what the
# long lines above need: 54 lines of up to 3 KiB left in it), but a
# program COMMAND left behind that writes reports without pause does
# not hold the end (REPORT_END_MS, backend/darwin/darwin.c): the run
# ends, with its reports, and the writer with the FIFO gone
dt a_program_left_behind_writing_reports_does_not_hold_the_end
cat >"$B/flood.py" <<'PY'
import os, sys
kv = dict(x.split("=", 1) for x in os.environ["SBX_SHIM"].split(";")[1:])
home, me, n = os.environb[b"HOME"], os.getpid(), 0
open(sys.argv[1] + "/flood.pid", "w").write("%d\n" % me)
while True:
    try:
        fd = os.open(kv["report"], os.O_WRONLY | os.O_NONBLOCK)
    except OSError:
        sys.exit(0)
    try:
        os.write(fd, b"SBX1 D read %d cat %s/.ssh/flood-%d 13\n" % (me, home, n % 50))
    except OSError:
        pass
    os.close(fd)
    n += 1
PY
sx -- sh -c 'python3 "$0/flood.py" "$0" & while [ ! -e "$0/flood.pid" ]; do sleep 0.01; done' "$B"
fp=$(cat "$B/flood.pid" 2>/dev/null)
for _ in $(seq 600); do [ -n "$fp" ] && kill -0 "$fp" 2>/dev/null || break; sleep 0.05; done
if [ $RC -eq 0 ] && [ -n "$fp" ] && ! kill -0 "$fp" 2>/dev/null &&
	hasf 'sbx: denied read of ~/.ssh/flood-' err && [ -z "$(shimdirs)" ]; then ok
else bad "rc=$RC flood=$fp left=[$(shimdirs)]"; [ -n "$fp" ] && kill "$fp" 2>/dev/null; fi

dt a_start_that_fails_removes_the_shims_directory
# the log never shows the start sentinel (after the hand-over is made):
# the run fails closed, and the directory goes with it
printf '#!/bin/sh\nls -d %s/.local/state/sbx/shim-* > "$(dirname "$0")/during"\nexit 1\n' "$HOME" >"$S/log"
sx -- sh -c 'echo ran > "$0/ran"' "$B"
if [ $RC -eq 125 ] && [ ! -e "$B/ran" ] && [ -s "$S/during" ] && [ -z "$(shimdirs)" ] &&
	hasf 'nothing was run' err; then ok
else bad "rc=$RC during=[$(cat "$S/during" 2>/dev/null)] left=[$(shimdirs)]"; fi

# ---- a killed run's hand-over: each run holds its directory's lock
# (flock) for its life, the kernel drops it when the run dies however it
# dies, and a start sweeps the `shim-*` directories whose lock it can take

STATE=.local/state/sbx
# handover DIR: the three files a run hands over, as it makes them
handover() { mkdir -m 700 "$1" && : >"$1/policy" && chmod 400 "$1/policy" && mkfifo -m 600 "$1/reports" && : >"$1/dropped"; }
# contents DIR: its entries, "name kind" sorted (f file, p FIFO, d, l link)
contents() { (cd "$1" 2>/dev/null && for f in * .[!.]*; do [ -e "$f" ] || [ -L "$f" ] || continue
	if [ -L "$f" ]; then k=l; elif [ -p "$f" ]; then k=p; elif [ -d "$f" ]; then k=d; else k=f; fi
	echo "$f $k"; done | sort | tr '\n' ' '); }
# another N: a second test build with stand-ins of its own in $B/binN (two
# runs at once must not share the stand-in log's FIFO: one would read the
# other's sentinel); its sbx-preload's path printed
another() {
	mkdir -p "$B/bin$1" && cp "$DW/test/sbx-preload" "$B/bin$1/" &&
		cp -r "$DW/stand-ins" "$B/bin$1/stand-ins" && mkfifo "$B/bin$1/stand-ins/log.fifo" &&
		echo "$B/bin$1/sbx-preload"
}
# leftovers: the processes a killed sbx left reading the stand-in log's FIFO
leftovers() { for p in /proc/[0-9]*; do ls -l "$p/fd" 2>/dev/null | grep -qF -- "-> $S/log.fifo" && echo "${p#/proc/}"; done; }

dt a_run_killed_with_sigkill_leaves_its_handover_which_the_next_start_removes
"$SBX" -- sh -c 'echo $$ > "$0/pid"; exec sleep 600' "$B" >"$B/out1" 2>"$B/err1" &
sbx=$!
wait_file "$B/pid"
dir=$(shimdirs)
kill -KILL $sbx
wait $sbx 2>/dev/null
kill -KILL "$(cat "$B/pid")" $(leftovers) 2>/dev/null
left=$(contents "$dir")
sx -v -- sh -c 'ls -d "$HOME"/.local/state/sbx/shim-* > "$0/during"' "$B"
if [ -n "$dir" ] && [ "$left" = "dropped f policy f reports p " ] && [ $RC -eq 0 ] &&
	[ "$(wc -l <"$B/during")" = 1 ] && ! grep -qxF "$dir" "$B/during" && [ ! -e "$dir" ] &&
	hasf "sbx: removed $dir, the shim's hand-over a killed run left" err &&
	[ -z "$(shimdirs)" ]; then ok
else bad "rc=$RC dir=$dir left=[$left] during=[$(cat "$B/during" 2>/dev/null)] now=[$(shimdirs)]"; fi

dt the_sweep_keeps_a_live_runs_handover_and_what_sbx_did_not_make
# a killed run's (no process holds its lock), beside a live run's and
# hostile entries: a link named like a hand-over to a directory holding
# the three names, a hand-over directory with a file sbx never makes, a
# plain file (the dead one made once the live run has started: its own
# start sweeps too)
mkdir -p "$HOME/$STATE" "$B/outside"
handover "$B/outside/target"
ln -s "$B/outside/target" "$HOME/$STATE/shim-link"
handover "$HOME/$STATE/shim-foreign"
echo notes >"$HOME/$STATE/shim-foreign/notes"
echo plain >"$HOME/$STATE/shim-file"
"$(another 1)" -- sh -c 'echo $$ > "$0/pid"; while [ ! -e "$0/go" ]; do sleep 0.05; done' "$B" >"$B/out1" 2>"$B/err1" &
live=$!
wait_file "$B/pid"
ldir=$(shimdirs | grep -v -e shim-link -e shim-foreign -e shim-file)
handover "$HOME/$STATE/shim-dead"
sx -v -- true
kept=$(contents "$ldir")
touch "$B/go"
wait $live
LRC=$?
if [ $RC -eq 0 ] && [ $LRC -eq 0 ] && [ -n "$ldir" ] && [ ! -e "$HOME/$STATE/shim-dead" ] &&
	hasf "removed $HOME/$STATE/shim-dead, the shim's hand-over a killed run left" err &&
	[ "$kept" = "dropped f policy f reports p " ] &&
	[ -L "$HOME/$STATE/shim-link" ] && [ "$(contents "$B/outside/target")" = "dropped f policy f reports p " ] &&
	[ "$(contents "$HOME/$STATE/shim-foreign")" = "dropped f notes f policy f reports p " ] &&
	hasf "left $HOME/$STATE/shim-foreign, a killed run's hand-over: it holds files sbx did not make" err &&
	[ "$(cat "$HOME/$STATE/shim-file")" = plain ] && [ ! -e "$ldir" ] &&
	[ "$(shimdirs | tr '\n' ' ')" = "$HOME/$STATE/shim-file $HOME/$STATE/shim-foreign $HOME/$STATE/shim-link " ]
then ok
else bad "rc=$RC/$LRC live=$ldir kept=[$kept] now=[$(shimdirs | tr '\n' ' ')]"; fi

dt another_runs_report_fifo_and_counters_cannot_be_read_from_inside_a_run
# sbx's state directory is readable from inside every run, and a run's
# profile keeps only its own FIFO from being read: the hand-over's
# written-only files are write-only by their modes too, so a program in
# another run of the user's cannot take a live run's reports (root
# passes the modes by: there only the modes are asserted)
"$(another 1)" -- sh -c 'echo $$ > "$0/pid"; while [ ! -e "$0/go" ]; do sleep 0.05; done' "$B" >"$B/out1" 2>"$B/err1" &
live=$!
wait_file "$B/pid"
ldir=$(shimdirs)
sx -- python3 -c '
import os, stat, sys
for f in ("reports", "dropped"):
    p = os.path.join(sys.argv[1], f)
    try:
        os.close(os.open(p, os.O_RDONLY | os.O_NONBLOCK)); r = "opened"
    except OSError as e:
        r = os.strerror(e.errno)
    print(f, stat.filemode(os.lstat(p).st_mode), r, file=open(sys.argv[2], "a"))' "$ldir" "$B/tried"
touch "$B/go"
wait $live
LRC=$?
if [ "$(id -u)" = 0 ]; then want='reports p-w------- opened dropped --w------- opened'
else want='reports p-w------- Permission denied dropped --w------- Permission denied'; fi
got=$(tr '\n' ' ' <"$B/tried")
if [ $RC -eq 0 ] && [ $LRC -eq 0 ] && [ -n "$ldir" ] && [ "$got" = "$want " ] &&
	[ -z "$(shimdirs)" ]; then ok
else bad "rc=$RC/$LRC dir=$ldir got=[$got]"; fi

dt starts_at_once_sweep_the_same_killed_runs_harmlessly
# four starts at once over the same killed runs' directories: each dead
# one goes once, no start fails or says it could not remove one, and
# each run's own is kept while it runs (it makes the FIFO's report)
mkdir -p "$HOME/$STATE"
for i in 1 2 3 4 5 6; do handover "$HOME/$STATE/shim-dead$i"; done
for i in 1 2 3 4; do mkdir -p "$B/r$i" && bins[i]=$(another "$i"); done
for i in 1 2 3 4; do
	"${bins[i]}" -v -- python3 "$TOOLS_DW/shim.py" "$B/r$i" >"$B/out$i" 2>"$B/err$i" &
	pids[i]=$!
done
rcs=
for i in 1 2 3 4; do wait "${pids[i]}"; rcs="$rcs$? "; done
removed=$(cat "$B"/err[1-4] | grep -c "the shim's hand-over a killed run left")
if [ "$rcs" = "0 0 0 0 " ] && [ "$removed" = 6 ] && [ -z "$(shimdirs)" ] &&
	[ "$(cat "$B"/r[1-4]/shim | grep -c '^WROTE$')" = 4 ] &&
	! grep -q -e 'cannot remove' -e 'left .*hand-over' -e 'lock' "$B"/err[1-4]; then ok
else bad "rcs=$rcs removed=$removed now=[$(shimdirs)] $(cat "$B"/err[1-4] | grep -v 'sbx: sandbox on' | head -3)"; fi

dt cleanup_removes_a_killed_runs_handover
mkdir -p "$HOME/$STATE"
handover "$HOME/$STATE/shim-dead"
sx --cleanup
if [ $RC -eq 0 ] && [ ! -e "$HOME/$STATE/shim-dead" ] &&
	hasf "sbx: removed $HOME/$STATE/shim-dead (the shim's hand-over of a run that was killed)" err
then ok; else bad "rc=$RC now=[$(shimdirs)]"; fi

# ---- signals and exit status

dt sigterm_to_sbx_reaches_command_which_dies_of_it_128_plus_15
"$SBX" -- sh -c 'echo $$ > "$0/pid"; exec sleep 600' "$B" >"$B/out" 2>"$B/err" &
sbx=$!
wait_file "$B/pid"
cmd=$(cat "$B/pid" 2>/dev/null)
kill -TERM $sbx
wait $sbx
RC=$?
if [ $RC -eq 143 ] && [ -n "$cmd" ] && ! kill -0 "$cmd" 2>/dev/null; then ok
else bad "rc=$RC, COMMAND $cmd $(kill -0 "$cmd" 2>/dev/null && echo 'still runs')"; kill -9 "$cmd" 2>/dev/null; fi

dt command_that_ignores_sigterm_runs_on_and_its_own_status_is_returned
"$SBX" -- sh -c 'trap "echo term >> \"$0/got\"" TERM; echo $$ > "$0/pid"
	while [ ! -e "$0/stop" ]; do sleep 0.05; done; exit 7' "$B" >"$B/out" 2>"$B/err" &
sbx=$!
wait_file "$B/pid"
kill -TERM $sbx
wait_file "$B/got"
alive=$(kill -0 $sbx 2>/dev/null && echo yes)
touch "$B/stop"
wait $sbx
RC=$?
if [ $RC -eq 7 ] && [ "$alive" = yes ] && [ "$(cat "$B/got")" = term ]; then ok
else bad "rc=$RC alive=$alive got=$(cat "$B/got" 2>/dev/null)"; fi

dt ctrl_c_at_the_terminal_leaves_the_log_reading
# sbx-preload in a terminal's foreground, as a person runs an agent: ^C
# goes to the foreground group (COMMAND takes it as an interruption),
# never to `log stream`, whose refusals of later still come through
python3 "$TERMINAL" fg "$SBX" "$B" "$S" pid int -- sh -c \
	'trap "echo int > $0/int" INT; echo $$ > $0/pid
	while [ ! -e $0/stop ]; do sleep 0.05; done; exit 6' "$B" >"$B/out" 2>"$B/py"
if hasf 'RESULT=EXIT=6' out && hasf 'denied read of ~/.ssh/id_ed25519' out && hasf '(Seatbelt)' out &&
	! hasf 'ended while COMMAND ran' out && [ "$(cat "$B/int" 2>/dev/null)" = int ]; then ok
else bad "$(tr '\r\n' '  ' <"$B/out" | tail -c 400) $(cat "$B/py")"; fi

dt no_sandbox_gives_command_the_callers_signal_dispositions
# what sbx-preload ignores for itself (SIGPIPE, SIGXFSZ, SIGTTOU, SIGTTIN:
# common/guard.c) is COMMAND's as the caller left it when it runs without
# a sandbox: SigIgn as the caller's own, from a caller that ignores none
# and from one that ignores SIGPIPE and SIGXFSZ (bits 12 and 24); neither
# sandbox-exec nor log is started
timeout 60 grep SigIgn /proc/self/status > "$B/direct"
sx --no-sandbox -- grep SigIgn /proc/self/status; r1=$RC; cp "$B/out" "$B/boxless"
(trap '' PIPE XFSZ; timeout 60 grep SigIgn /proc/self/status > "$B/direct-ign")
(trap '' PIPE XFSZ; sx --no-sandbox -- grep SigIgn /proc/self/status); r2=$RC
ign=$(awk '{ print $2 }' "$B/direct-ign")
if [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && [ -s "$B/direct" ] && cmp -s "$B/direct" "$B/boxless" &&
	cmp -s "$B/direct-ign" "$B/out" && [ $((0x$ign & 0x1001000)) -eq $((0x1001000)) ] &&
	hasf 'WITHOUT a sandbox' err && [ ! -e "$S/log.args" ] && [ ! -e "$S/profile.sb" ]; then ok
else bad "rc=$r1/$r2 caller: $(cat "$B/direct") $(cat "$B/direct-ign"); COMMAND: $(cat "$B/boxless") $(cat "$B/out")"; fi

dt command_not_found_is_127_and_nothing_starts
# as a shell says it, before sandbox-exec or log is started (whose own
# status for a COMMAND it cannot run is not a shell's)
sx -- no-such-command-here
RC1=$RC
said=$(cat "$B/err")
printf 'x\n' >"$B/noexec"
sx -- "$B/noexec"
if [ $RC1 -eq 127 ] && [ $RC -eq 126 ] && [ "$said" = 'sbx: no-such-command-here: command not found' ] &&
	hasf "sbx: $B/noexec: Permission denied" err &&
	[ ! -e "$S/log.args" ] && [ ! -e "$S/profile.sb" ]; then ok
else bad "rc=$RC1/$RC"; fi

dt a_command_that_takes_the_terminal_does_not_stop_sbx
# COMMAND makes a process group of its own the terminal's foreground and
# sets TOSTOP (a shell inside does): sbx-preload, now in the background,
# still writes its report line there, never stopped by SIGTTOU with the
# log and the proxy; COMMAND's status comes back
cat >"$B/takeover.py" <<'PY'
import os, signal, sys, termios, time
b = sys.argv[1]
tty = os.open("/dev/tty", os.O_RDWR)
if os.getpgrp() != os.getpid():  # a session leader leads its group already
    os.setpgid(0, 0)             # (COMMAND on the relay's pty, as under ssh)
signal.signal(signal.SIGTTOU, signal.SIG_IGN)  # as a shell does around it
os.tcsetpgrp(tty, os.getpgrp())
a = termios.tcgetattr(tty)
a[3] |= termios.TOSTOP
termios.tcsetattr(tty, termios.TCSANOW, a)
open(b + "/taken", "w").close()
while not os.path.exists(b + "/stop"):
    time.sleep(0.05)
sys.exit(9)
PY
python3 "$TERMINAL" job "$SBX" "$B" "$S" taken - -- python3 "$B/takeover.py" "$B" >"$B/out" 2>"$B/py"
if hasf 'RESULT=EXIT=9' out && hasf 'denied read of ~/.ssh/id_ed25519' out; then ok
else bad "$(tr '\r\n' '  ' <"$B/out" | tail -c 300) $(cat "$B/py")"; fi

# ---- the terminal: COMMAND's own (backend/relay.c)

# TTY B OUTER [ACTION...]: sh -c OUTER in a fresh terminal (a pty of 24
# rows and 80 columns; $B/outer.tty its name, as the person's shell sees
# it), the session's leader, while the actions run in order:
# wait:FILE (until B/FILE exists), see:TEXT (until the terminal showed
# TEXT since the last see), size:ROWS:COLS (the terminal resized),
# kill:SIG:FILE (the pid in B/FILE signalled), type:TEXT (typed; \n,
# \x1a... as Python reads them). Then until OUTER ends (30 s at most);
# prints what the terminal showed, then RESULT=EXIT=N or RESULT=HUNG.
TTY=$(mktemp /var/tmp/sbx-darwin-tty.XXXXXX)
cat >"$TTY" <<'PY'
import fcntl, os, select, signal, struct, sys, termios, time
b, outer = sys.argv[1:3]
m, s = os.openpty()
fcntl.ioctl(m, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
open(b + "/outer.tty", "w").write(os.ttyname(s))
pid = os.fork()
if pid == 0:
    os.setsid()
    fcntl.ioctl(s, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2):
        os.dup2(s, fd)
    os.close(s); os.close(m)
    os.execv("/bin/sh", ["sh", "-c", outer])
os.close(s)
out = b""
def drain(t=0):
    global out
    while select.select([m], [], [], t)[0]:
        try: d = os.read(m, 65536)
        except OSError: return
        if not d: return
        out += d
        t = 0
def ticks(secs):  # a drain of 50 ms at least each (a hung-up pty reads at once)
    end = time.time() + secs
    while time.time() < end:
        t = time.time()
        drain(0.05)
        time.sleep(max(0, 0.05 - (time.time() - t)))
        yield
def wait(path):
    for _ in ticks(30):
        if os.path.exists(path): return
    sys.exit("never made: " + path)
seen = 0
def see(text):
    global seen
    for _ in ticks(30):
        i = out.find(text.encode(), seen)
        if i >= 0:
            seen = i + len(text)
            return
    sys.exit("never shown: %r in %r" % (text, out[seen:][-300:]))
for a in sys.argv[3:]:
    k, _, v = a.partition(":")
    if k == "wait": wait(b + "/" + v)
    elif k == "see": see(v)
    elif k == "size":
        r, c = v.split(":")
        fcntl.ioctl(m, termios.TIOCSWINSZ, struct.pack("HHHH", int(r), int(c), 0, 0))
    elif k == "kill":  # the pid once it is in the file, not only the file
        sig, f = v.split(":")
        for _ in ticks(30):
            p = open(b + "/" + f).read().strip()
            if p: break
        os.kill(int(p), getattr(signal, sig))
    elif k == "type": os.write(m, v.encode().decode("unicode_escape").encode())
st = None
for _ in ticks(30):
    done, st = os.waitpid(pid, os.WNOHANG)
    if done: break
    st = None
if st is None:
    os.kill(pid, 9); os.waitpid(pid, 0)
drain()
sys.stdout.write(out.decode(errors="replace"))
print("RESULT=" + ("EXIT=%d" % os.waitstatus_to_exitcode(st) if st is not None else "HUNG"))
PY
# the outer shell's part around sbx-preload: its terminal's modes before
# and after (stty -g), sbx's status in B/rc
around() { printf 'stty -g > %s/before; %s; echo $? > %s/rc; stty -g > %s/after' "$B" "$1" "$B" "$B"; }

dt command_gets_a_terminal_of_its_own_and_a_resize_reaches_it
# its standard streams and /dev/tty are a pty of the sandbox's, not the
# person's (the profile denies COMMAND that one by name), in the size of
# the person's; a resize of the person's terminal reaches it as SIGWINCH
cat >"$B/size.py" <<'PY'
import fcntl, os, signal, struct, sys, termios
b = sys.argv[1]
def size(fd):
    return "%d %d" % struct.unpack("HHHH", fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8))[:2]
tty = os.open("/dev/tty", os.O_RDWR)
got = []
signal.signal(signal.SIGWINCH, lambda *a: got.append(size(tty)))
# the controlling terminal (/dev/tty) is fd 0's: /proc's tty_nr
ctty = int(open("/proc/self/stat").read().rsplit(")", 1)[1].split()[4])
same = ctty == os.fstat(0).st_rdev
open(b + "/inner", "w").write("%s %s %s %s" % (os.ttyname(0), os.ttyname(1), same, size(0)))
open(b + "/ready", "w").close()
while not got: signal.pause()
open(b + "/winch", "w").write(got[0])
PY
python3 "$TTY" "$B" "$(around "'$SBX' -- python3 $B/size.py $B")" wait:ready size:33:77 >"$B/out" 2>"$B/py"
outer=$(cat "$B/outer.tty" 2>/dev/null)
read -r in0 in1 intty rows cols <"$B/inner" 2>/dev/null
if hasf RESULT=EXIT=0 out && [ "$(cat "$B/rc")" = 0 ] && [ -n "$outer" ] && [ -n "$in0" ] &&
	[ "$in0" != "$outer" ] && [ "$in1" = "$in0" ] && [ "$intty" = True ] &&
	[ "$rows $cols" = "24 80" ] && [ "$(cat "$B/winch" 2>/dev/null)" = "33 77" ] &&
	grep -qxF "HOST_TTY=$outer" "$S/params" &&
	grep -q '^(deny file-read\* file-write\* file-ioctl (literal (param "HOST_TTY")) (with message "sbx-' "$S/profile.sb" &&
	[ "$(cat "$B/before")" = "$(cat "$B/after")" ]; then ok
else bad "outer=$outer inner=[$(cat "$B/inner" 2>/dev/null)] winch=[$(cat "$B/winch" 2>/dev/null)] $(tail -c 300 "$B/out" | tr '\r\n' '  ') $(cat "$B/py")"; fi

dt typing_injected_by_command_never_reaches_the_persons_shell
# TIOCSTI on its terminal: the line lands in the sandbox's pty, which
# ends with it; the person's shell, reading its terminal after sbx-preload,
# runs only what the person typed (without the relay, it ran the canary's)
cat >"$B/inject.py" <<'PY'
import fcntl, os, sys, termios
tty = os.open("/dev/tty", os.O_RDWR)
for c in ("touch %s/canary\n" % sys.argv[1]).encode():
    fcntl.ioctl(tty, termios.TIOCSTI, bytes([c]))
open(sys.argv[1] + "/injected", "w").close()
PY
python3 "$TTY" "$B" "$(around "'$SBX' -- python3 $B/inject.py $B"); exec sh" wait:rc \
	"type:touch $B/typed; exit\\n" >"$B/out" 2>"$B/py"
if hasf RESULT=EXIT=0 out && [ "$(cat "$B/rc")" = 0 ] && [ -e "$B/injected" ] &&
	[ -e "$B/typed" ] && [ ! -e "$B/canary" ]; then ok
else bad "canary=$([ -e "$B/canary" ] && echo made) typed=$([ -e "$B/typed" ] && echo made) $(tail -c 300 "$B/out" | tr '\r\n' '  ') $(cat "$B/py")"; fi

dt the_persons_terminal_modes_come_back_after_exit_sigterm_and_sigkill
# COMMAND leaves its terminal raw, without echo, then exits; or is
# killed by SIGTERM, or SIGKILL (no chance to put anything back): the
# person's terminal is as it was before sbx-preload, each time
cat >"$B/raw.py" <<'PY'
import os, sys, time, tty
tty.setraw(0)
open(sys.argv[1] + "/pid", "w").write(str(os.getpid()))
if sys.argv[2] == "wait":
    while True: time.sleep(1)
PY
res=
for how in exit TERM KILL; do
	rm -f "$B/pid" "$B/rc" "$B/before" "$B/after"
	if [ $how = exit ]; then
		python3 "$TTY" "$B" "$(around "'$SBX' -- python3 $B/raw.py $B exit")" >"$B/out" 2>"$B/py"
		want=0
	else
		python3 "$TTY" "$B" "$(around "'$SBX' -- python3 $B/raw.py $B wait")" \
			wait:pid "kill:SIG$how:pid" >"$B/out" 2>"$B/py"
		want=$((128 + $(kill -l $how)))
	fi
	if hasf RESULT=EXIT=0 out && [ "$(cat "$B/rc" 2>/dev/null)" = $want ] && [ -s "$B/before" ] &&
		[ "$(cat "$B/before")" = "$(cat "$B/after" 2>/dev/null)" ]; then res="$res $how=ok"
	else res="$res $how=bad(rc=$(cat "$B/rc" 2>/dev/null) $(cat "$B/before" 2>/dev/null) -> $(cat "$B/after" 2>/dev/null) $(tail -c 200 "$B/out" | tr '\r\n' '  '))"; fi
done
if [ "$res" = " exit=ok TERM=ok KILL=ok" ]; then ok
else bad "$res $(cat "$B/py")"; fi

dt ctrl_z_stops_the_run_as_a_job_and_fg_and_a_background_start_go_on
# an interactive shell's job: ^Z on the sandbox's terminal stops COMMAND
# and sbx-preload with it (the shell says Stopped, its own modes back
# meanwhile); fg goes on where it was. Started in the background, the
# first read stops the job (tty input) and fg gives it the typing.
printf 'echo $$ > %s/pid; while read l; do echo "$l" >> %s/got; : > %s/"$l"; done\n' \
	"$B" "$B" "$B" >"$B/job.sh"
printf 'read x; echo "$x" > %s/bg\n' "$B" >"$B/bg.sh"
python3 "$TTY" "$B" 'PS1="P$ " exec bash --norc --noprofile -i' see:'P$ ' \
	"type:set -b; stty -g > $B/before\\n" see:'P$ ' \
	"type:'$SBX' -- sh $B/job.sh\\n" wait:pid type:'one\n' wait:one \
	type:'\x1a' see:Stopped see:'P$ ' \
	"type:stty -g > $B/mid\\n" see:'P$ ' \
	type:'fg\n' see:job.sh type:'two\n' wait:two type:'\x04' see:'P$ ' \
	"type:'$SBX' -- sh $B/bg.sh &\\n" see:'P$ ' see:Stopped \
	type:'fg\n' see:bg.sh type:'three\n' see:'P$ ' \
	"type:stty -g > $B/after; exit\\n" >"$B/out" 2>"$B/py"
if hasf RESULT=EXIT=0 out && [ "$(cat "$B/got" 2>/dev/null)" = "one
two" ] && [ "$(cat "$B/bg" 2>/dev/null)" = three ] && [ -s "$B/before" ] &&
	[ "$(cat "$B/mid")" = "$(cat "$B/before")" ] && [ "$(cat "$B/after")" = "$(cat "$B/before")" ]; then ok
else bad "got=[$(cat "$B/got" 2>/dev/null)] bg=[$(cat "$B/bg" 2>/dev/null)] $(tail -c 400 "$B/out" | tr '\r\n' '  ') $(cat "$B/py")"; fi

# ---- fail closed

dt without_sandbox_exec_nothing_runs_125
rm "$S/sandbox-exec"
sx -- sh -c 'echo ran > "$0/ran"' "$B"
if [ $RC -eq 125 ] && [ ! -e "$B/ran" ] &&
	hasf "sbx: sandbox set-up failed: $S/sandbox-exec cannot be run: No such file or directory; nothing was run" err &&
	! hasf 'sandbox on' err && [ ! -e "$S/log.args" ]; then ok
else bad "rc=$RC ran=$(cat "$B/ran" 2>/dev/null)"; fi

dt a_log_without_the_start_sentinel_runs_nothing_125
# log stream starts, and shows nothing (as when its predicate or the
# system log reads nothing of ours)
printf '#!/bin/sh\necho $$ > "$(dirname "$0")/log.pid"\nexec 3<>"$(dirname "$0")/log.fifo"\nexec sleep 600\n' >"$S/log"
sx -- sh -c 'echo ran > "$0/ran"' "$B"
if [ $RC -eq 125 ] && [ ! -e "$B/ran" ] &&
	hasf 'sbx: sandbox set-up failed: the system log showed no refusal of this run'"'"'s within 10000 ms' err &&
	hasf "could not be reported: Connection timed out; nothing was run" err &&
	[ -z "$(ls "$HOME/.local/state/sbx" | grep sbx-sentinel)" ] &&
	[ -s "$S/log.pid" ] && ! kill -0 "$(cat "$S/log.pid")" 2>/dev/null; then ok
else bad "rc=$RC ran=$(cat "$B/ran" 2>/dev/null)"; fi

dt sigterm_while_the_log_is_awaited_ends_the_start_and_nothing_runs
# a SIGTERM while the start sentinel is awaited (a log slow to show it):
# the start gives up (not at the wait's end, 125), nothing runs, the
# status says the signal, and log stream is not left running
printf '#!/bin/sh\necho $$ > "$(dirname "$0")/log.pid"\nexec 3<>"$(dirname "$0")/log.fifo"\nexec sleep 600\n' >"$S/log"
"$SBX" -- sh -c 'echo ran > "$0/ran"' "$B" >"$B/out" 2>"$B/err" &
sbx=$!
wait_file "$S/log.pid"
kill -TERM $sbx
wait $sbx
RC=$?
if [ $RC -eq 143 ] && [ ! -e "$B/ran" ] &&
	! kill -0 "$(cat "$S/log.pid")" 2>/dev/null &&
	hasf 'sbx: stopped by signal 15 (Terminated) before COMMAND started; nothing was run' err; then ok
else bad "rc=$RC, log $(kill -0 "$(cat "$S/log.pid")" 2>/dev/null && echo 'left running')"
	kill "$(cat "$S/log.pid")" 2>/dev/null; fi

dt the_macos_build_runs_usr_bin_sandbox_exec_only
# beside it and first in PATH, stand-ins that would run COMMAND: the
# build for the Mac asks for neither
if [ -e /usr/bin/sandbox-exec ]; then skip "this machine has a /usr/bin/sandbox-exec"
else
	cp "$DW/mac/sbx-preload" "$B/bin/sbx-preload"
	PATH=$S:$PATH sx -- sh -c 'echo ran > "$0/ran"' "$B"
	if [ $RC -eq 125 ] && [ ! -e "$B/ran" ] && [ ! -e "$S/log.args" ] &&
		hasf 'sbx: sandbox set-up failed: /usr/bin/sandbox-exec cannot be run' err; then ok
	else bad "rc=$RC ran=$(cat "$B/ran" 2>/dev/null)"; fi
fi

# ---- the log is hostile input

dt refusals_of_another_run_or_of_a_program_are_not_ours
# another run's tag (processID 0, as the kernel's), and a program's own
# line with our tag (any pid but the kernel's)
kernel cat file-read-data "$HOME/.ssh/id_ed25519" 0 @PID@ sbx-20260101-000000-1-0123456789abcdef
kernel cat file-read-data "$HOME/.ssh/known_hosts" 4242
kernel cat file-read-data "$HOME/.ssh/config"
sx -- true
rec=$(records)
if [ $RC -eq 0 ] && [ "$rec" = "seatbelt read $HOME/.ssh/config" ] &&
	! hasf id_ed25519 err && ! hasf known_hosts err && hasf '~/.ssh/config' err; then ok
else bad "rc=$RC records=[$rec]"; fi

dt a_log_that_ends_mid_run_is_said_and_the_status_kept
# log stream shows the start sentinel, then ends while COMMAND runs
printf '#!/bin/sh\nh=$(dirname "$0")\nexec 3<>"$h/log.fifo"\nhead -n 1 <&3\n: > "$h/log.gone"\n' >"$S/log"
sx -- sh -c 'while [ ! -e "$0/log.gone" ]; do sleep 0.05; done; exit 4' "$S"
if [ $RC -eq 4 ] && hasf 'sbx: sandbox on' err &&
	hasf "stream\` ended while COMMAND ran: the sandbox held, but its refusals from then on were not reported" err; then ok
else bad "rc=$RC"; fi

dt the_profile_denies_what_linuxs_plan_keeps_read_only_by_looking_at_the_disk
# a repository whose core.hooksPath is in its work tree, a bare one, a
# linked worktree: no rule names their hooks, config or entries, the
# disk does (preload/plan.c); the profile sandbox-exec is given denies
# writing each (the stand-in does not enforce: its profile is read)
mkrepo "$W/app" && git -C "$W/app" config core.hooksPath .githooks && mkdir "$W/app/.githooks" &&
	git init -q --bare "$W/bare.git" && git -C "$W/app" worktree add -q "$W/wt" -b wtb
wtid=$(basename "$(sed -n 's/^gitdir: //p' "$W/wt/.git")")
sx -- true
# kept PATH: PATH is a parameter of the disk's deny, as literal and
# subpath; pinned PATH: of the directories' deny, as literal alone
kept() {
	python3 - "$S/profile.sb" "$S/params" "$1" "${2:-; What the disk says stays unwritten}" <<'PY'
import sys
prof, params, want, head = open(sys.argv[1]).read(), open(sys.argv[2]).read(), *sys.argv[3:]
names = [l.split("=", 1)[0] for l in params.splitlines()
         if l.split("=", 1)[1].removeprefix("/private") == want]
block = prof.split(head, 1)
rule = block[1].split("\n(", 1)[1].split("\n", 1)[0] if len(block) == 2 else ""
sub = "; ..." not in head
sys.exit(not (rule.startswith("deny file-write*") and any(
    '(literal (param "%s"))' % n in rule and
    ('(subpath (param "%s"))' % n in rule) == sub for n in names)))
PY
}
pinned() { kept "$1" '; ... and the directories on the way to them stay where they are.'; }
rc1=$RC started=$(hasf 'sbx: sandbox on' err && echo yes)
# and the command --print=seatbelt gives a person, the same
sx --print=seatbelt -- true
if [ $rc1 -eq 0 ] && [ $RC -eq 0 ] && hasf '; What the disk says stays unwritten' out &&
	hasf "=/private$W/app/.githooks'" out && hasf "=/private$W/bare.git/hooks'" out &&
	kept "$W/app/.githooks" && kept "$W/bare.git/hooks" &&
	kept "$W/bare.git/config" && kept "$W/wt/.git" &&
	kept "$W/app/.git/worktrees/$wtid/gitdir" && kept "$W/app/.git/worktrees/$wtid/config" &&
	! kept "$W/app/a" && ! kept "$W/app" && ! kept "$W/bare.git" &&
	pinned "$W/app" && pinned "$W/bare.git" && pinned "$W/app/.git/worktrees/$wtid" &&
	! pinned "$W/app/a" && ! pinned "$W" && [ "$started" = yes ]; then ok
else bad "rc=$rc1/$RC wt=$wtid params=[$(grep -c . "$S/params" 2>/dev/null)]"; fi

dt a_command_with_no_terminal_stream_cannot_open_the_persons_terminal
# sbx-preload with a controlling terminal (script's pty) but every stream
# redirected: no relay, so COMMAND must be in a session of its own, or
# /dev/tty is the person's terminal (TIOCSTI, their typing)
printf '%s\n' "(exec 3<>/dev/tty) 2>/dev/null && echo TTY-OPENED || echo NO-TTY" > "$B/try.sh"
script -qec "cd '$W' && '$SBX' -q -- sh '$B/try.sh' </dev/null >'$B/out' 2>'$B/err'" /dev/null \
	</dev/null >/dev/null 2>&1
if has NO-TTY out && ! has TTY-OPENED out; then ok
else bad "out=$(head -c 200 "$B/out") err=$(head -c 300 "$B/err")"; fi

echo "# darwin: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
