#!/bin/bash
# Explanations where they are read: the refused program's own stderr
# (`[report] tell_program`), what each kind of program gets explained (the
# coverage table in docs/REPORTS.md, measured here), an MCP server driven
# by a real MCP client, and the audit log followed live.
#
# Real programs under the real sandbox; assertions on the bytes a tool
# captured, the files on the host and the log records, never on exit codes
# alone.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# te NAME: a test with ~/proj (outside the writable paths) and the key
te() {
	t "$1"
	mkdir -p "$HOME/proj"
	LOG=$B/log
}

# logn COND: how many audit-log records (r; H is HOME) meet the Python COND
logn() {
	H="$HOME" python3 -c '
import json, os, sys
H = os.environ["H"]
n = 0
for line in open(sys.argv[1], encoding="utf-8"):
    r = json.loads(line)
    n += bool(eval(sys.argv[2]))
print(n)' "$LOG" "$1" 2>/dev/null || echo "no log"
}

# The "agent": runs a command as an agent's shell tool does, stdout and
# stderr each captured through a pipe of its own (or one pipe for both with
# `merged`), and leaves what it captured in tool-out and tool-err.
agent_tool() {
	cat > "$W/agent.py" <<'EOF'
import subprocess, sys
mode = sys.argv[1]
if mode == "file":  # Claude Code's Bash tool: one regular file for both
    with open("tool-out", "wb") as f:
        subprocess.run(["sh", "-c", sys.argv[2]], stdin=subprocess.DEVNULL,
                       stdout=f, stderr=subprocess.STDOUT)
    open("tool-err", "wb").close()
    sys.exit(0)
if mode == "socks":  # Node's child_process (Gemini CLI's shell tool):
    import socket      # stdout and stderr each a socketpair of their own
    (o, oc), (e, ec) = socket.socketpair(), socket.socketpair()
    p = subprocess.Popen(["sh", "-c", sys.argv[2]], stdin=subprocess.DEVNULL,
                         stdout=oc.fileno(), stderr=ec.fileno())
    oc.close(); ec.close()
    open("tool-err", "wb").write(e.makefile("rb").read())
    open("tool-out", "wb").write(o.makefile("rb").read())
    sys.exit(p.wait() * 0)
if mode in ("inetd", "tcp"):  # a conversation: one socket for all three
    import socket             # (inetd), or stderr a TCP connection
    if mode == "inetd":
        a, c = socket.socketpair(); cs = [c, c, c]
    else:
        l = socket.create_server(("127.0.0.1", 0)); c = socket.create_connection(l.getsockname())
        a = l.accept()[0]; cs = [subprocess.DEVNULL, subprocess.PIPE, c]
    p = subprocess.Popen(["sh", "-c", sys.argv[2]], stdin=cs[0] if mode == "tcp" else c.fileno(),
                         stdout=cs[1] if mode == "tcp" else c.fileno(), stderr=c.fileno())
    c.close()
    got = a.makefile("rb").read()
    out = p.stdout.read() if p.stdout else b""
    open("tool-out", "wb").write(out + got if mode == "inetd" else out)
    open("tool-err", "wb").write(got if mode == "tcp" else b"")
    sys.exit(p.wait() * 0)
merged = mode.startswith("merged")
# merged: one pipe for both, stdin a pipe too (a protocol's shape, MCP);
# merged-null: one pipe for both, nobody on stdin (`cmd 2>&1 | tee`)
r = subprocess.run(["sh", "-c", sys.argv[2]], stdout=subprocess.PIPE,
                   stdin=subprocess.DEVNULL if mode == "merged-null" else subprocess.PIPE,
                   stderr=subprocess.STDOUT if merged else subprocess.PIPE)
open("tool-out", "wb").write(r.stdout)
open("tool-err", "wb").write(r.stderr or b"")
EOF
}

# ---- the refused program hears why (tell_program)

TWICE='echo a > "$HOME/proj/notes.txt"; echo b > "$HOME/proj/notes.txt"; cat "$HOME/.ssh/id_ed25519"; echo stdout-line'

te tell_program_line_on_the_tools_stderr_once_per_target_stdout_untouched
agent_tool
sx -q --log "$LOG" --tell-program -- python3 agent.py split "$TWICE"
W1='sbx: write to ~/proj/notes.txt refused by policy (outside the writable paths); ask the user to allow it with --allow-write ~/proj'
R1='sbx: read of ~/.ssh/id_ed25519 refused by policy (deny_read = ~/.ssh); ask the user to allow it with --allow-read ~/.ssh/id_ed25519'
if [ "$(grep -cxF "$W1" "$W/tool-err")" = 1 ] && [ "$(grep -cxF "$R1" "$W/tool-err")" = 1 ] &&
   [ "$(grep -c '^sbx: ' "$W/tool-err")" = 2 ] &&
   [ "$(grep -c 'Read-only file system' "$W/tool-err")" = 2 ] &&
   [ "$(cat "$W/tool-out")" = stdout-line ] && [ ! -e "$HOME/proj/notes.txt" ] &&
   ! grep -q TOPSECRET "$W/tool-out" "$W/tool-err" &&
   hasf '(allow it with --allow-write ~/proj)' err &&
   hasf '(allow it with --allow-read ~/.ssh/id_ed25519)' err; then ok
else bad "tool-err=$(head -c 600 "$W/tool-err" | tr '\n' '|') tool-out=$(head -c 100 "$W/tool-out")"; fi

te tell_program_off_by_default_and_with_no_tell_program
agent_tool
sx -q --log "$LOG" -- python3 agent.py split "$TWICE"
first=$(grep -c '^sbx: ' "$W/tool-err")
mkdir -p "$HOME/.config/sbx" && printf '[report]\ntell_program = true\n' > "$HOME/.config/sbx/sandbox.ini"
sx -q --log "$LOG" --no-tell-program -- python3 agent.py split "$TWICE"
if [ "$first" = 0 ] && [ "$(grep -c '^sbx: ' "$W/tool-err")" = 0 ] &&
   [ "$(grep -c 'Read-only file system' "$W/tool-err")" = 2 ] && hasf 'denied write of ~/proj/notes.txt' err; then ok
else bad "first=$first tool-err=$(head -c 300 "$W/tool-err" | tr '\n' '|')"; fi

te tell_program_from_sandbox_ini_and_never_on_stdout_when_merged
agent_tool
mkdir -p "$HOME/.config/sbx" && printf '[report]\ntell_program = true\n' > "$HOME/.config/sbx/sandbox.ini"
sx -q --log "$LOG" -- python3 agent.py merged "$TWICE"
# one pipe for both (2>&1) with stdin a pipe too: stdout may be a protocol
# with stdin's peer (MCP), the line would land inside it; the program's own
# error lines are its business
if ! grep -q '^sbx: ' "$W/tool-out" && [ "$(grep -c 'Read-only file system' "$W/tool-out")" = 2 ] &&
   grep -qx stdout-line "$W/tool-out" && hasf 'denied write of ~/proj/notes.txt' err; then
	agent_tool
	sx -q --log "$LOG" -- python3 agent.py split "$TWICE"
	if [ "$(grep -cxF "$W1" "$W/tool-err")" = 1 ]; then ok
	else bad "from sandbox.ini: tool-err=$(head -c 300 "$W/tool-err" | tr '\n' '|')"; fi
else bad "merged: tool-out=$(head -c 300 "$W/tool-out" | tr '\n' '|')"; fi

te tell_program_reaches_one_file_for_both_and_a_pipe_nobody_talks_on
# Claude Code's Bash tool gives the command one regular file for stdout and
# stderr: the model reads only that file, so the line must be in it. One
# pipe for both with nothing on stdin is a log too (`cmd 2>&1 | tee`).
agent_tool
sx -q --log "$LOG" --tell-program -- python3 agent.py file "$TWICE"
file_n=$(grep -cxF "$R1" "$W/tool-out"); file_w=$(grep -cxF "$W1" "$W/tool-out")
file_so=$(grep -cx stdout-line "$W/tool-out")
agent_tool
sx -q --log "$LOG" --tell-program -- python3 agent.py merged-null "$TWICE"
if [ "$file_n" = 1 ] && [ "$file_w" = 1 ] && [ "$file_so" = 1 ] &&
   [ "$(grep -cxF "$R1" "$W/tool-out")" = 1 ] && [ "$(grep -c '^sbx: ' "$W/tool-out")" = 2 ] &&
   grep -qx stdout-line "$W/tool-out" && ! grep -q TOPSECRET "$W/tool-out"; then ok
else bad "file: read=$file_n write=$file_w stdout=$file_so; merged-null: $(head -c 400 "$W/tool-out" | tr '\n' '|')"; fi

te tell_program_reaches_a_socketpair_as_nodes_child_process_makes_it
# Node (libuv) gives a child's stdout and stderr an AF_UNIX socketpair
# each, not a pipe: Gemini CLI's shell tool reads the command's output
# there. A socket that is a conversation gets nothing: one socket for
# stdin, stdout and stderr (inetd), or a TCP connection.
agent_tool
sx -q --log "$LOG" --tell-program -- python3 agent.py socks "$TWICE"
sock_w=$(grep -cxF "$W1" "$W/tool-err"); sock_r=$(grep -cxF "$R1" "$W/tool-err")
sock_so=$(cat "$W/tool-out")
agent_tool
sx -q --log "$LOG" --tell-program -- python3 agent.py inetd "$TWICE"
inetd=$(grep -c '^sbx: ' "$W/tool-out"); inetd_ro=$(grep -c 'Read-only file system' "$W/tool-out")
agent_tool
sx -q --log "$LOG" --tell-program -- python3 agent.py tcp "$TWICE"
tcp=$(grep -c '^sbx: ' "$W/tool-err"); tcp_ro=$(grep -c 'Read-only file system' "$W/tool-err")
if [ "$sock_w" = 1 ] && [ "$sock_r" = 1 ] && [ "$sock_so" = stdout-line ] &&
   [ "$inetd" = 0 ] && [ "$inetd_ro" = 2 ] && [ "$tcp" = 0 ] && [ "$tcp_ro" = 2 ] &&
   [ ! -e "$HOME/proj/notes.txt" ]; then ok
else bad "socketpair: write=$sock_w read=$sock_r stdout=[$sock_so]; inetd: $inetd lines ($inetd_ro errors); tcp: $tcp lines ($tcp_ro errors)"; fi

te tell_program_a_proxied_connect_refused_by_name
# curl, git and Python honour HTTPS_PROXY and ask the proxy to CONNECT: a
# refused host reached them as a bare 403 ("CONNECT tunnel failed,
# response 403"). The shim reads the first send() on a socket connected to
# the proxy's HTTP port: a name the policy refuses gets the line, in the
# proxy's words; a name it allows (the proxy then fails to resolve it,
# offline) gets none; a deny_domains rule names itself. Once per target
# per process (one curl, two fetches: one line).
agent_tool
CONN='curl -sS https://blocked.example/ https://blocked.example/ -o /dev/null -o /dev/null;
python3 -c "import urllib.request; urllib.request.urlopen(\"https://py-blocked.example/\")";
curl -sS -m 10 https://allowed.example/ -o /dev/null; curl -sS https://denied.allowed.example/ -o /dev/null; echo stdout-line'
sx -q --log "$LOG" --tell-program --allow-domain allowed.example --allow-domain '*.allowed.example' \
	--deny-domain denied.allowed.example -- python3 agent.py split "$CONN"
C1='sbx: connect to blocked.example:443 refused by policy (not in allow_domains); ask the user to allow it with --allow-domain blocked.example'
C2='sbx: connect to py-blocked.example:443 refused by policy (not in allow_domains); ask the user to allow it with --allow-domain py-blocked.example'
C3='sbx: connect to denied.allowed.example:443 refused by policy (deny_domains = denied.allowed.example); ask the user to remove `deny_domains = denied.allowed.example` (--deny-domain)'
off=$(sx -q --allow-domain allowed.example -- python3 agent.py split "$CONN" && grep -c '^sbx: ' "$W/tool-err")
agent_tool
sx -q --log "$LOG" --tell-program --allow-domain allowed.example --allow-domain '*.allowed.example' \
	--deny-domain denied.allowed.example -- python3 agent.py split "$CONN"
if [ "$(grep -cxF "$C1" "$W/tool-err")" = 1 ] && [ "$(grep -cxF "$C2" "$W/tool-err")" = 1 ] &&
   [ "$(grep -cxF "$C3" "$W/tool-err")" = 1 ] && [ "$(grep -c '^sbx: ' "$W/tool-err")" = 3 ] &&
   [ "$(grep -c 'CONNECT tunnel failed, response 403' "$W/tool-err")" = 3 ] &&
   grep -q 'Tunnel connection failed: 403' "$W/tool-err" &&
   [ "$(cat "$W/tool-out")" = stdout-line ] && [ "$off" = 0 ]; then ok
else bad "off=$off tool-err=$(head -c 900 "$W/tool-err" | tr '\n' '|')"; fi

te tell_program_a_bad_buffer_to_the_proxy_is_efault_not_a_crash
# The shim reads the first send() to the proxy's HTTP port for `CONNECT
# host:port`: a buffer the program cannot read either (a bad pointer) is
# the kernel's EFAULT, as without the shim, never a crash of the program
# (before 2026-11-29 the shim read it first: SIGSEGV). Then a line with an
# escape in the name: no line told (only a DNS name is), the program goes on.
agent_tool
cat > "$W/bad.py" <<'EOF'
import ctypes, os, socket, urllib.parse
port = urllib.parse.urlsplit(os.environ["HTTPS_PROXY"]).port
libc = ctypes.CDLL(None, use_errno=True)  # the shim's send() first
s = socket.create_connection(("127.0.0.1", port))
r = libc.send(s.fileno(), ctypes.c_void_p(16), 64, 0)
print("send", r, os.strerror(ctypes.get_errno()), flush=True)
s.close()
s = socket.create_connection(("127.0.0.1", port))
s.send(b"CONNECT evil\x1b[2J.example:443 HTTP/1.1\r\n\r\n")
print("reply", s.recv(12), flush=True)
EOF
sx -q --tell-program --allow-domain allowed.example -- python3 agent.py split 'python3 bad.py; echo after'
if grep -qx 'send -1 Bad address' "$W/tool-out" && grep -qx after "$W/tool-out" &&
   grep -q '^reply' "$W/tool-out" && ! grep -q '^sbx: ' "$W/tool-err" &&
   ! grep -q "$(printf '\033')" "$W/tool-err"; then ok
else bad "tool-out=$(head -c 300 "$W/tool-out" | tr '\n' '|') tool-err=$(head -c 300 "$W/tool-err" | tr '\n' '|')"; fi

te tell_program_in_the_agent_profiles
out=""
for p in claude codex gemini; do
	"$SBX" --print-profile "$p" 2>&1 | grep -q '^tell_program = true' || out="$out $p"
done
"$SBX" --print-profile mcp 2>&1 | grep -q '^tell_program' && out="$out mcp(has it)"
if [ -z "$out" ]; then ok; else bad "profiles without it:$out"; fi

te tell_program_mandatory_rule_says_no_setting_allows_it
agent_tool
sx -q --log "$LOG" --tell-program -- python3 agent.py split 'echo x >> "$HOME/.bashrc"; true'
if [ "$(cat "$W/tool-err" | grep '^sbx: ')" = 'sbx: write to ~/.bashrc refused by policy (deny_write = .bashrc); no setting allows it' ] &&
   [ ! -s "$HOME/.bashrc" ]; then ok
else bad "tool-err=$(head -c 300 "$W/tool-err" | tr '\n' '|')"; fi

# ---- syscall(): the path-taking numbers, judged and explained

te raw_syscall_path_numbers_refused_and_reported_others_untouched
if built rawcalls "$B/rawcalls" 2>"$B/cc"; then
	touch "$W/here"
	sx -q --log "$LOG" -- "$B/rawcalls" "$HOME" "$W"
	expect="statx ERR EACCES
newfstatat ERR EACCES
openat ERR EACCES
openat2 ERR EACCES
faccessat2 ERR EACCES
mkdirat ERR EROFS
chdir OK
statx-relative ERR EACCES
chdir-back OK
statx-allowed OK
errno kept"
	# 6 reads of the key (five calls and the relative one after a raw
	# chdir), the directory refused; openat2 with a bad pointer answered
	# by the kernel (EFAULT, or ENOSYS where the notify layer keeps it out)
	reads=$(logn "r.get('decision') == 'deny' and r['op'] == 'read' and r['target'] == H + '/.ssh/id_ed25519'")
	if [ "$(head -11 "$B/out")" = "$expect" ] && grep -qE '^openat2-efault ERR (EFAULT|ENOSYS)$' "$B/out" &&
	   [ "$reads" = 6 ] && [ "$(logn "r.get('decision') == 'deny' and r['op'] == 'write' and r['target'] == H + '/proj/made'")" = 1 ] &&
	   [ ! -e "$HOME/proj/made" ] && hasf 'denied read of ~/.ssh/id_ed25519' err; then ok
	else bad "reads=$reads $(diff <(echo "$expect") "$B/out" | tr '\n' ' ')"; fi
else skip "cannot build tests/progs/rawcalls.c: $(head -2 "$B/cc" 2>/dev/null)"; fi

# ---- directory descriptors kept by the shim (shim/dirfds.c): a hint only

te dirfd_hint_refusal_explained_stale_hint_never_refuses
if built dirfdstale "$B/dirfdstale" 2>"$B/cc"; then
	mkdir -p "$HOME/.config/sbx" "$W/other"
	printf '[filesystem]\ndeny_read = ~/proj/secret.txt\n' > "$HOME/.config/sbx/sandbox.ini"
	echo "$SECRET" > "$HOME/proj/secret.txt"
	echo fine > "$W/other/secret.txt"
	sx -q --log "$LOG" -- "$B/dirfdstale" "$HOME/proj" "$W/other" secret.txt
	expect="first ERR EACCES
same-fd yes
second OK"
	if [ "$(cat "$B/out")" = "$expect" ] &&
	   [ "$(logn "r.get('decision') == 'deny' and r['target'] == H + '/proj/secret.txt'")" = 1 ] &&
	   [ "$(logn "r.get('decision') == 'deny'")" = 1 ]; then ok
	else bad "$(diff <(echo "$expect") "$B/out" | tr '\n' ' ')"; fi
else skip "cannot build tests/progs/dirfdstale.c: $(head -2 "$B/cc" 2>/dev/null)"; fi

te dirfd_clear_mark_lets_reads_through_and_never_hides_a_denied_name
# a kept directory no deny_read rule can reach is marked clear and its
# names are not judged (shim/dirfds.c); one that holds a denied name is not
# marked, and a stale mark (its number reused behind the shim's back) lets
# the call reach the boundary, which still keeps the secret
if built dirfdclear "$B/dirfdclear" 2>"$B/cc"; then
	mkdir -p "$HOME/.config/sbx" "$W/other"
	printf '[filesystem]\ndeny_read = ~/proj/secret.txt\n' > "$HOME/.config/sbx/sandbox.ini"
	echo "$SECRET" > "$HOME/proj/secret.txt"
	echo fine > "$W/other/secret.txt"
	sx -q --log "$LOG" -- "$B/dirfdclear" "$W/other" "$HOME/proj" secret.txt
	cp "$B/out" "$B/out-clear"
	sx -q --log "$LOG" -- "$B/dirfdclear" "$HOME/proj" "$W/other" secret.txt
	expect_clear="stat OK
open OK fine
same-fd yes"
	expect_held="stat ERR EACCES
open ERR EACCES
same-fd yes
stale OK fine"
	if [ "$(head -3 "$B/out-clear")" = "$expect_clear" ] &&
	   grep -qE '^stale (OK $|ERR )' "$B/out-clear" && [ "$(cat "$B/out")" = "$expect_held" ] &&
	   ! grep -q "$SECRET" "$B/out-clear" "$B/out" "$LOG" &&
	   [ "$(logn "r.get('decision') == 'deny' and r['target'] == H + '/proj/secret.txt'")" -ge 1 ] &&
	   [ "$(logn "r.get('decision') == 'deny' and r['target'] != H + '/proj/secret.txt'")" = 0 ]; then ok
	else bad "clear: $(tr '\n' '|' < "$B/out-clear") held: $(tr '\n' '|' < "$B/out")"; fi
else skip "cannot build tests/progs/dirfdclear.c: $(head -2 "$B/cc" 2>/dev/null)"; fi

# ---- the coverage table, measured (docs/REPORTS.md)

te coverage_table_in_reports_md_is_what_is_measured
if ! command -v cc >/dev/null || ! command -v node >/dev/null; then
	skip "the table needs cc and node"
else
	bash "$SBX_BIN/coverage.sh" > "$B/measured" 2> "$B/err"
	sed -n '/^<!-- coverage:begin/,/^<!-- coverage:end/p' "$SBX_BIN/docs/REPORTS.md" |
		sed '1d;$d' > "$B/documented"
	if [ -s "$B/measured" ] && diff "$B/documented" "$B/measured" > "$B/diff" &&
	   grep -q '^| Node (libuv) | reported | reported | reported | reported | reported | reported |$' "$B/measured"; then ok
	else bad "docs/REPORTS.md's table differs from the measurement (make coverage-table): $(tr '\n' ' ' < "$B/diff" | head -c 600)"; fi
fi

# ---- an MCP server over stdio, driven by the real MCP client

# the packages come from the npm registry (agents-install.sh, run by run.sh)
MCPDIR=${SBX_IT_AGENTS:-}/node_modules/@modelcontextprotocol
te mcp_filesystem_server_over_stdio_workspace_works_key_refused_stdout_pure_jsonrpc
if ! command -v node >/dev/null; then
	skip "node is not installed"
elif [ -z "${SBX_IT_AGENTS:-}" ] || [ ! -f "$MCPDIR/server-filesystem/dist/index.js" ] ||
     [ ! -f "$MCPDIR/sdk/dist/esm/client/stdio.js" ]; then
	skip "@modelcontextprotocol/server-filesystem and sdk not installed from the npm registry (${SBX_IT_AGENTS:-SBX_IT_AGENTS unset}: $(cat "${SBX_IT_AGENTS:-/nonexistent}/install.status" 2>/dev/null || echo 'no install'))"
else
	echo hello-from-ws > "$W/hello.txt"
	cat > "$B/client.mjs" <<'EOF'
// An MCP client (the SDK's own) starting the filesystem server through
// sbx-preload over stdio, as an agent's MCP config would; the server's
// stdout is copied (tee) to `raw` for the test to parse line by line.
const [sdk, sbx, log, server, ws, home, raw] = process.argv.slice(2);
const { Client } = await import(sdk + "/dist/esm/client/index.js");
const { StdioClientTransport } = await import(sdk + "/dist/esm/client/stdio.js");
const transport = new StdioClientTransport({
  command: "sh",
  args: ["-c", 'exec "$0" -q --log "$1" -- node "$2" "$3" "$4" | tee "$5"',
         sbx, log, server, ws, home, raw],
  env: process.env, cwd: ws, stderr: "pipe",
});
const client = new Client({ name: "sbx-explain-test", version: "1.0.0" });
await client.connect(transport);
const text = (r) => ({ isError: !!r.isError, text: r.content.map((c) => c.text).join("") });
const out = {
  list: text(await client.callTool({ name: "list_directory", arguments: { path: ws } })),
  read: text(await client.callTool({ name: "read_text_file", arguments: { path: ws + "/hello.txt" } })),
  key: text(await client.callTool({ name: "read_text_file", arguments: { path: home + "/.ssh/id_ed25519" } })),
};
await client.close();
console.log(JSON.stringify(out));
EOF
	timeout 120 node "$B/client.mjs" "$MCPDIR/sdk" "$SBX" "$LOG" \
		"$MCPDIR/server-filesystem/dist/index.js" "$W" "$HOME" "$B/raw" > "$B/out" 2> "$B/err"
	res=$(python3 - "$B/out" "$B/raw" "$SECRET" <<'EOF'
import json, sys
out, raw, secret = sys.argv[1:4]
try:
    o = json.loads(open(out).read())
except ValueError as e:
    print("client said no JSON:", e); sys.exit()
lines = open(raw, "rb").read().split(b"\n")
if lines[-1] != b"" or len(lines) < 4:
    print("stdout: not whole lines (%d)" % len(lines)); sys.exit()
for n, l in enumerate(lines[:-1], 1):
    try:
        m = json.loads(l)
    except ValueError:
        print("stdout line %d is not JSON: %r" % (n, l[:80])); sys.exit()
    if m.get("jsonrpc") != "2.0":
        print("stdout line %d is not JSON-RPC" % n); sys.exit()
if "[FILE] hello.txt" not in o["list"]["text"] or o["list"]["isError"]:
    print("list:", o["list"]); sys.exit()
if o["read"]["text"].strip() != "hello-from-ws":
    print("read:", o["read"]); sys.exit()
if not o["key"]["isError"] or secret in o["key"]["text"] or secret in open(raw).read():
    print("key:", o["key"]); sys.exit()
print("ok")
EOF
)
	keyrep=$(logn "r.get('decision') == 'deny' and r['op'] == 'read' and r['target'] in (H + '/.ssh', H + '/.ssh/id_ed25519')")
	if [ "$res" = ok ] && [ "$keyrep" -ge 1 ] 2>/dev/null; then ok
	else bad "$res; key reports in the log: $keyrep; client stderr: $(head -c 300 "$B/err")"; fi
fi

# ---- watching the reports live from elsewhere: sbxctl log --follow

te log_follow_shows_a_refusal_while_the_run_is_still_going
if [ ! -x "$SBX_BIN/sbxctl" ]; then
	skip "sbxctl is not built"
else
	: > "$LOG" && chmod 600 "$LOG"
	"$SBX_BIN/sbxctl" log --follow "$LOG" > "$B/follow" 2>&1 &
	fpid=$!
	# the command waits (at most a minute) for the test to have seen its
	# refusal in the follower's output: `saw-go` proves it came live
	(sx -q --log "$LOG" -- sh -c 'cat ~/.ssh/id_ed25519 2>/dev/null; i=0
		while [ ! -e go ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
		[ -e go ] && echo saw-go') &
	spid=$!
	for _ in $(seq 600); do grep -qF "$HOME/.ssh/id_ed25519" "$B/follow" && break; sleep 0.1; done
	touch "$W/go"
	wait "$spid"
	kill "$fpid" 2>/dev/null
	wait "$fpid" 2>/dev/null
	if grep -qx saw-go "$B/out" && grep -qE "deny +read +$HOME/.ssh/id_ed25519" "$B/follow"; then ok
	else bad "out=$(cat "$B/out") follow=$(head -c 300 "$B/follow")"; fi
fi

echo "# $(id -un) (explain): $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
