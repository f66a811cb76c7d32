#!/bin/bash
# The preload shim's suite: real programs under sbx-preload with
# libsbx-preload.so, asserting on what really happened — the files on the
# host, the report lines on stderr, the JSON Lines log read by a real JSON
# parser — never on exit codes alone.
#
# Every test has a fake HOME with two canaries: ~/.ssh/canary (denied by the
# built-in default `deny_read = ~/.ssh`) and ~/secrets/canary (denied by the
# user's own ~/.config/sbx/sandbox.ini, line 3), and ~/proj, a directory
# outside the writable paths.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# ---- the test programs (tests/progs), built once for this run

PROGS=$(mktemp -d /var/tmp/sbx-progs.XXXXXX)
trap 'rm -rf "$PROGS"' EXIT
chmod 755 "$PROGS"
SRC="$SBX_BIN/progs"
for p in readfile execfresh children threads closeall relpaths; do
	built "$p" "$PROGS/$p" 2>"$PROGS/$p.log" ||
		echo "# cannot build tests/progs/$p.c: $(head -3 "$PROGS/$p.log")"
done
built readfile.static "$PROGS/readfile-static" 2>/dev/null
built writefile.static "$PROGS/writefile-static" 2>/dev/null
# prog NAME: true when tests/progs/NAME was built (else the test is skipped)
prog() { [ -x "$PROGS/$1" ] || { skip "tests/progs/$1 not built (no cc?)"; return 1; }; }

# ---- set-up and helpers for this suite

ts() { # start a test: t, plus the canaries and the user config
	t "$1"
	echo "$SECRET" > "$HOME/.ssh/canary"
	mkdir -p "$HOME/secrets" "$HOME/.config/sbx" "$HOME/proj"
	SECRET2="USERSECRET-$RANDOM$RANDOM"
	echo "$SECRET2" > "$HOME/secrets/canary"
	printf '; the user config of the shim tests\n[filesystem]\ndeny_read = ~/secrets\n' \
		> "$HOME/.config/sbx/sandbox.ini"
	CANARY=$HOME/.ssh/canary
	CANARY2=$HOME/secrets/canary
	LOG=$B/log
}
USERRULE='`deny_read = ~/secrets` (~/.config/sbx/sandbox.ini:3)'
DEFRULE='`deny_read = ~/.ssh` (built-in default)'

# sxl ARGS: sx with the audit log in $LOG
sxl() { sx --log "$LOG" "$@"; }
# nlines TEXT: report lines on stderr holding TEXT, not counting the
# `(xN more)` lines printed at exit for folded repeats
nlines() { grep -F -- "$1" "$B/err" | grep -vc ' more)$'; }
# no_secret: neither canary shows up in anything the run printed or logged
no_secret() { ! cat "$B/out" "$B/err" "$LOG" 2>/dev/null | grep -qE "$SECRET|$SECRET2"; }
# no_denial: no report line at all
no_denial() { ! grep -q '^sbx: .*denied' "$B/err"; }

# logq EXPR: evaluate a Python expression over the log, read with json:
# L is the list of records, H the home, W the workspace. A line that is not
# one JSON object makes the answer `BADJSON …`, which no assertion expects.
logq() {
	H="$HOME" WS="$W" python3 - "$LOG" "$1" <<'EOF'
import json, os, re, sys
L = []
try:
    with open(sys.argv[1], "rb") as f:
        data = f.read()
except FileNotFoundError:
    data = b""
if data and not data.endswith(b"\n"):
    print("BADJSON: no newline at the end"); sys.exit(0)
for n, raw in enumerate(data.splitlines(), 1):
    try:
        r = json.loads(raw)
    except ValueError as e:
        print("BADJSON line %d: %s" % (n, e)); sys.exit(0)
    if not isinstance(r, dict):
        print("BADJSON line %d: not an object" % n); sys.exit(0)
    L.append(r)
H, W = os.environ["H"], os.environ["WS"]
KEYS = {"time", "layer", "op", "target", "decision", "rule", "source", "pid",
        "comm", "errno", "fix", "run", "truncated", "ignored"}
def opt(v):
    return v is None or (isinstance(v, str) and v != "")
def schema_ok(r):
    return (set(r) == KEYS and r["layer"] in ("shim", "notify")
            and re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", r["time"]) is not None
            and r["op"] in ("read", "write", "exec", "connect", "dns", "unix")
            and isinstance(r["target"], str) and r["target"] != ""
            and r["decision"] in ("deny", "allow", "would-deny")
            and opt(r["rule"]) and opt(r["source"]) and opt(r["errno"]) and opt(r["fix"])
            and (r["rule"] is None) == (r["source"] is None)
            and type(r["pid"]) is int and r["pid"] > 0
            and isinstance(r["comm"], str) and r["comm"] != ""
            and isinstance(r["run"], str) and r["run"] != ""
            and type(r["truncated"]) is bool and type(r["ignored"]) is bool)
def deny(op, target):
    return [r for r in L if r["decision"] == "deny" and r["op"] == op and r["target"] == target]
print(eval(sys.argv[2]))
EOF
}
# summary ERE: the number in the exit summary before ERE (`3 denied reads`
# for 'denied reads?'), 0 if absent
summary() {
	local n
	n=$(grep -E '^sbx: [0-9]+ ' "$B/err" | tail -1 | grep -oE "[0-9]+ $1( |,|$)" | grep -oE '^[0-9]+')
	echo "${n:-0}"
}

# The common assertions for "PROGRAM reads both canaries": the program saw
# the refusal, no secret leaked, each canary has exactly one report line
# naming its rule and the rule's source, and the log agrees, with COMM.
# Sets WHY to what failed.
canary_reports_ok() {
	local comm=$1
	WHY=""
	no_secret || { WHY="secret leaked"; return 1; }
	[ "$(nlines "denied read of ~/.ssh/canary by $DEFRULE (allow it with --allow-read ~/.ssh/canary) — pid ")" = 1 ] ||
		{ WHY="not exactly one default-rule line for ~/.ssh/canary"; return 1; }
	[ "$(nlines "denied read of ~/secrets/canary by $USERRULE (allow it with --allow-read ~/secrets/canary) — pid ")" = 1 ] ||
		{ WHY="not exactly one user-rule line naming sandbox.ini:3"; return 1; }
	grep -F "denied read of ~/.ssh/canary" "$B/err" | grep -v ' more)$' | grep -qE " — pid [0-9]+ $comm" ||
		{ WHY="the report does not name $comm"; return 1; }
	[ "$(logq "all(schema_ok(r) for r in L) and len(deny('read', H + '/.ssh/canary')) >= 1 and len(deny('read', H + '/secrets/canary')) >= 1")" = True ] ||
		{ WHY="log: $(logq 'L' | head -c 300)"; return 1; }
	[ "$(logq "all(re.match('$comm', r['comm']) and r['errno'] == 'EACCES' for r in deny('read', H + '/.ssh/canary') + deny('read', H + '/secrets/canary'))")" = True ] ||
		{ WHY="log comm/errno: $(logq 'L' | head -c 300)"; return 1; }
	[ "$(logq "set((r['rule'], r['source']) for r in deny('read', H + '/secrets/canary'))")" = "{('deny_read = ~/secrets', '~/.config/sbx/sandbox.ini:3')}" ] ||
		{ WHY="log rule/source of the user rule: $(logq "deny('read', H + '/secrets/canary')" | head -c 300)"; return 1; }
	[ "$(logq "set((r['rule'], r['source']) for r in deny('read', H + '/.ssh/canary'))")" = "{('deny_read = ~/.ssh', 'default')}" ] ||
		{ WHY="log rule/source of the default rule"; return 1; }
	return 0
}

# ---- the same denied reads, from the programs agents run

ts dynamic_c_program_reads_canaries_refused_and_reported_once_each
if prog readfile; then
	sxl -q -- "$PROGS/readfile" "$CANARY" "$CANARY2" "$CANARY"
	if has "ERR $CANARY: EACCES" out && has "ERR $CANARY2: EACCES" out &&
	   canary_reports_ok readfile; then ok; else bad "$WHY $(head -c 300 "$B/out")"; fi
fi

ts cat_reads_canaries_refused_and_reported_once_each
sxl -q -- cat "$CANARY" "$CANARY2"
if has "Permission denied" err && canary_reports_ok cat; then ok; else bad "$WHY"; fi

ts python3_reads_canaries_refused_and_reported_once_each
sxl -q -- python3 -c '
import sys
for p in sys.argv[1:]:
    try:
        print("READ", open(p).read())
    except OSError as e:
        print("ERR", p, e.errno)' "$CANARY" "$CANARY2"
if has "ERR $CANARY 13" out && has "ERR $CANARY2 13" out && canary_reports_ok python; then ok
else bad "$WHY $(head -c 300 "$B/out")"; fi

ts node_reads_canaries_refused_and_reported_once_each
if command -v node >/dev/null; then
	sxl -q -- node -e '
for (const p of process.argv.slice(1)) {
  try { console.log("READ", require("fs").readFileSync(p, "utf8")); }
  catch (e) { console.log("ERR", p, e.code); }
}' "$CANARY" "$CANARY2"
	if has "ERR $CANARY EACCES" out && has "ERR $CANARY2 EACCES" out && canary_reports_ok node; then ok
	else bad "$WHY $(head -c 300 "$B/out")"; fi
else skip "no node"; fi

ts git_hash_object_of_canaries_refused_and_reported_once_each
sxl -q -- sh -c 'git hash-object "$1"; git hash-object "$2"; echo GIT-DONE' sh "$CANARY" "$CANARY2"
if has GIT-DONE out && ! grep -qE '^[0-9a-f]{40}$' "$B/out" && canary_reports_ok git; then ok
else bad "$WHY $(head -c 300 "$B/out")"; fi

ts repeats_fold_into_one_line_and_a_count_at_exit
sxl -q -- sh -c 'for i in 1 2 3 4; do cat "$1"; done 2>/dev/null; echo LOOP-DONE' sh "$CANARY"
if has LOOP-DONE out && [ "$(nlines 'denied read of ~/.ssh/canary')" = 1 ] &&
   hasf "sbx: denied read of ~/.ssh/canary by $DEFRULE (allow it with --allow-read ~/.ssh/canary) (x3 more)" err &&
   [ "$(summary 'denied reads?')" = 4 ] && [ "$(logq "len(deny('read', H + '/.ssh/canary'))")" = 4 ] &&
   hasf "— see $LOG" err; then ok
else bad "summary=$(summary 'denied reads?') log=$(logq "len(L)")"; fi

ts deny_read_flag_is_named_as_the_source
echo flag-protected > private.txt
sxl -q --deny-read private.txt -- cat private.txt
if ! has flag-protected out &&
   hasf "sbx: denied read of $W/private.txt by \`deny_read = private.txt\` (--deny-read)" err &&
   [ "$(logq "[(r['rule'], r['source']) for r in deny('read', W + '/private.txt')][:1]")" = "[('deny_read = private.txt', '--deny-read')]" ]
then ok; else bad "$(logq L | head -c 300)"; fi

# ---- writes

ts write_outside_workspace_refused_reported_with_allow_write_fix
sxl -q -- sh -c 'echo pwned > ~/proj/out.txt; echo AFTER'
if [ ! -e "$HOME/proj/out.txt" ] && has AFTER out && has "Read-only file system" err &&
   [ "$(nlines "sbx: denied write of ~/proj/out.txt — outside the writable paths (allow it with --allow-write ~/proj) — pid ")" = 1 ] &&
   [ "$(logq "[(r['errno'], r['fix'], r['rule'], r['comm']) for r in deny('write', H + '/proj/out.txt')]")" = "[('EROFS', '--allow-write ~/proj', None, 'sh')]" ]
then ok; else bad "file=$(ls "$HOME/proj") log=$(logq L | head -c 300)"; fi

ts allow_write_fix_from_the_report_really_allows_the_write
sxl -q --allow-write '~/proj' -- sh -c 'echo fixed > ~/proj/out.txt'
if [ "$(cat "$HOME/proj/out.txt" 2>/dev/null)" = fixed ] && no_denial; then ok; else bad "rc=$RC"; fi

ts protected_names_refused_by_boundary_explained_by_shim_mandatory
git init -q . 2>/dev/null
sxl -q -- sh -c 'echo evil > .git/hooks/pre-commit; echo KEY=1 > .env; echo AFTER'
if [ ! -e .git/hooks/pre-commit ] && [ ! -e .env ] && has AFTER out &&
   hasf "sbx: denied write of $W/.git/hooks/pre-commit by \`deny_write = .git/hooks/\` (built in; no setting lifts it) — pid " err &&
   hasf "sbx: denied write of $W/.env by \`deny_write = " err &&
   ! grep -F "$W/.git/hooks/pre-commit" "$B/err" | grep -q 'allow it with' &&
   [ "$(logq "[(r['source'], r['fix']) for r in deny('write', W + '/.git/hooks/pre-commit')][:1]")" = "[('mandatory', None)]" ]
then ok; else bad "log=$(logq L | head -c 400)"; fi

# A protected directory name that does not exist yet (`.vscode/`) at the top
# of the workspace gets no stand-in (git status and editors would list it):
# the shim refuses making it (EROFS) and explains; writing below the missing
# directory is then the kernel's plain ENOENT; an existing directory's
# EEXIST is not reported.
ts protected_directory_name_at_the_top_refused_by_the_shim_and_explained
mkdir src
sxl -q -- sh -c 'mkdir -p .vscode; echo x > .vscode/tasks.json; mkdir src; echo AFTER'
if [ ! -e .vscode ] && has AFTER out &&
   hasf "sbx: denied write of $W/.vscode/ by \`deny_write = .vscode/\` (built in; no setting lifts it) — pid " err &&
   ! grep -qF "$W/src" "$B/err" &&
   [ "$(logq "sorted(r['errno'] for r in L if r['target'].startswith(W + '/.vscode'))")" = "['EROFS']" ]
then ok; else bad "log=$(logq L | head -c 400)"; fi

# sbx's report lines wait for the pipe to be quiet a moment (3 ms, 50 ms at
# most), so they do not land inside the error line the refused program is
# writing in pieces just then (coreutils' error() does, unbuffered).
ts report_lines_do_not_split_the_program_s_own_error_line
# Each error line is written in two pieces 10 ms apart (longer than the
# quiet time the lines wait for), six in a row (longer than the hold any
# one line gets): the lines must wait for the program's line to end. The
# shared file is stderr opened for writing only (2>file, as an agent's
# tool output is), then for reading and writing (1<>file 2>&1).
cat > pieces.py <<'EOF'
import sys, time
for name in (".bashrc", ".zshrc", ".profile", ".bash_profile", ".zshenv", ".zprofile"):
    try:
        open(name, "w")
    except OSError as e:
        sys.stderr.write("pieces: cannot write " + name)
        sys.stderr.flush(); time.sleep(0.01)
        sys.stderr.write(": " + e.strerror + "\n"); sys.stderr.flush()
EOF
whole() {
	[ "$(grep -c '^pieces: cannot write \.[a-z_]*: Read-only file system$' "$1")" -eq 6 ] &&
	[ "$(grep -c '^sbx: denied write of ' "$1")" -eq 6 ]
}
sxl -- python3 pieces.py
cp "$B/err" "$B/err-wronly"
: >"$B/rw"
timeout 60 "$SBX" --log "$LOG" -- python3 pieces.py 1<>"$B/rw" 2>&1
if whole "$B/err-wronly" && whole "$B/rw"; then ok
else bad "$(head -c 400 "$B/err-wronly") / $(head -c 400 "$B/rw")"; fi

ts report_lines_in_a_shared_file_wait_no_longer_than_50_ms_with_no_line_open
# A program whose own lines are all finished but which keeps sbx busy (a
# refusal after another: the report pipe and the notify layer never quiet
# for 3 ms) still gets its report line once the shared file has stood
# still 50 ms. Before, lines held for a shared file waited for a quiet
# loop up to the 2 s cap meant for a line the program is still writing.
# The program reads its stderr until the line is there, 1.5 s at most
# (less than that cap).
cat > busy.py <<'EOF'
import sys, time
sys.stderr.write("busy: begins\n"); sys.stderr.flush()
seen, t0 = False, time.monotonic()
while not seen and time.monotonic() - t0 < 1.5:
    try:
        open(".bashrc", "w")
    except OSError:
        pass
    with open(sys.argv[1], "rb") as f:
        seen = b"sbx: denied write of " in f.read()
print("SEEN" if seen else "UNSEEN after %.2f s" % (time.monotonic() - t0))
EOF
sxl -- python3 busy.py "$B/err"
if has '^SEEN$' out && [ "$(nlines "sbx: denied write of $W/.bashrc by \`deny_write = .bashrc\`")" = 1 ]
then ok; else bad "$(cat "$B/out") $(head -c 400 "$B/err")"; fi

ts report_lines_in_a_shared_file_start_a_line_of_their_own
# A program that leaves a line of its own open in a shared stderr file:
# its last line without a newline at exit, or a line it keeps growing (a
# byte every 20 ms) so that the 2 s cap writes ours into it. sbx's lines
# start a line all the same (a newline first), so `^sbx: ` finds each;
# before, they were glued to the program's text ("progress 99%sbx: ...").
cat > open.py <<'EOF'
import sys, time
try:
    open(".bashrc", "w")
except OSError:
    pass
sys.stderr.write("keep: "); sys.stderr.flush()
t0 = time.monotonic()
while time.monotonic() - t0 < 10:
    with open(sys.argv[1], "rb") as f:
        if b"sbx: denied write of" in f.read():
            break
    sys.stderr.write("."); sys.stderr.flush()
    time.sleep(0.02)
sys.stderr.write("\n")
try:
    open(".zshrc", "w")
except OSError:
    pass
sys.stderr.write("progress 99%")
EOF
sxl -- python3 open.py "$B/err"
if [ "$(grep -c '^sbx: denied write of .*/\.bashrc by' "$B/err")" = 1 ] &&
   [ "$(grep -c '^sbx: denied write of .*/\.zshrc by' "$B/err")" = 1 ] &&
   grep -q '^keep: \.*$' "$B/err" && grep -q '^progress 99%$' "$B/err" &&
   grep -q '^sbx: 2 denied writes' "$B/err"
then ok; else bad "$(cut -c1-120 "$B/err")"; fi

ts a_name_rule_refusal_made_by_seccomp_is_one_line_one_record_one_count
# `deny_write = locked*` and no such file at start: the notify layer
# refuses making it and says so; python3's shim lets the kernel answer and
# names the same refusal. Before, that was two records, "2 denied writes"
# and an "(x1 more)" for a repeat that never happened.
sxl --deny-write 'locked*' -- python3 -c 'open("locked1", "w")'
if [ ! -e locked1 ] && has "PermissionError\|Read-only" err &&
   [ "$(nlines "sbx: denied write of $W/locked1 by \`deny_write = locked*\`")" = 1 ] &&
   ! has ' more)$' err && [ "$(summary 'denied writes?')" = 1 ] &&
   [ "$(logq "[(r['layer'], r['errno']) for r in deny('write', W + '/locked1')]")" = "[('notify', 'EROFS')]" ]
then ok; else bad "$(cat "$B/err") log=$(logq L | head -c 400)"; fi

ts a_quiet_name_rule_refusal_made_by_seccomp_is_one_record
# The same refusal, kept off the terminal by `ignore_paths`: one record
# (the notify layer's) and "1 expected refusal" (before: two records and
# "2 expected refusals not shown" for one).
printf '[report]\nignore_paths = %s/locked1\n' "$W" > "$B/ign.ini"
sxl -c "$B/ign.ini" --deny-write 'locked*' -- python3 -c 'open("locked1", "w")'
if [ ! -e locked1 ] && has "PermissionError\|Read-only" err && ! has 'denied write of' err &&
   has '^sbx: 1 expected refusal not shown ' err &&
   [ "$(logq "[(r['layer'], r['ignored']) for r in L if r['target'] == W + '/locked1']")" = "[('notify', True)]" ]
then ok; else bad "$(cat "$B/err") log=$(logq L | head -c 400)"; fi

ts a_static_binary_s_seccomp_refusal_does_not_hide_a_later_shim_refusal
# A static binary makes ./.bashrc: the notify layer refuses and says so,
# and no shim line follows (no shim in it). Then python3 makes the same
# name: its shim refuses it itself (a protected name at the top of the
# workspace: docs/POLICY.md, "Stand-ins") and says so, a refusal of its
# own. Before, the first one's echo was still awaited and the second was
# taken for it: one record, "1 denied write" for two refusals.
if [ -x "$PROGS/writefile-static" ]; then
	sxl -- sh -c '"$1" x .bashrc; python3 -c "open(\".bashrc\", \"w\")"' sh "$PROGS/writefile-static"
	if [ ! -e .bashrc ] && has 'ERR .bashrc: EROFS' out && has "PermissionError\|Read-only" err &&
	   [ "$(summary 'denied writes?')" = 2 ] &&
	   [ "$(logq "[(r['layer'], r['comm']) for r in deny('write', W + '/.bashrc')]")" = "[('notify', 'writefile-stati'), ('shim', 'python3')]" ]
	then ok; else bad "$(cat "$B/out" "$B/err") log=$(logq "[(r['layer'], r['comm'], r['pid']) for r in L]" | head -c 400)"; fi
else skip "no static libc (cc -static)"; fi

ts mkdir_p_of_existing_dirs_outside_workspace_not_reported_but_new_one_is
mkdir -p "$HOME/proj/existing/deeper"
sxl -q -- sh -c 'mkdir -p ~/proj/existing/deeper /usr/lib /etc && echo MKDIR-OK; mkdir -p ~/proj/new/dir; echo AFTER'
if has MKDIR-OK out && has AFTER out && [ ! -e "$HOME/proj/new" ] &&
   ! grep -qE 'denied write of (~/proj/existing|/usr|/etc)' "$B/err" &&
   [ "$(logq "[r['target'] for r in L if 'existing' in r['target'] or r['target'] in ('/usr', '/usr/lib', '/etc')]")" = "[]" ] &&
   [ "$(nlines 'denied write of ~/proj/new')" -ge 1 ]
then ok; else bad "log=$(logq "[r['target'] for r in L]" | head -c 300)"; fi

ts rm_f_of_missing_file_outside_workspace_not_reported_but_rm_of_present_one_is
echo keep > "$HOME/proj/present"
sxl -q -- sh -c 'rm -f ~/proj/missing; echo RMF=$?; rm ~/proj/present 2>/dev/null; echo AFTER'
if has "RMF=0" out && has AFTER out && [ "$(cat "$HOME/proj/present")" = keep ] &&
   ! has 'proj/missing' err && [ "$(logq "[r['target'] for r in L if r['target'].endswith('/missing')]")" = "[]" ] &&
   [ "$(nlines 'sbx: denied write of ~/proj/present — outside the writable paths')" = 1 ]
then ok; else bad "log=$(logq "[(r['op'], r['target'], r['errno']) for r in L]" | head -c 300)"; fi

ts mandatory_bashrc_refused_even_in_a_writable_home_named_built_in
echo 'orig-rc' > "$HOME/.bashrc"
sxl -q --allow-write '~' -- sh -c 'echo evil >> ~/.bashrc; echo ok > ~/notes.txt; echo AFTER'
if has AFTER out && [ "$(cat "$HOME/.bashrc")" = orig-rc ] && [ "$(cat "$HOME/notes.txt" 2>/dev/null)" = ok ] &&
   [ "$(nlines "sbx: denied write of ~/.bashrc by \`deny_write = .bashrc\` (built in; no setting lifts it) — pid ")" = 1 ] &&
   [ "$(logq "[(r['source'], r['errno'], r['fix']) for r in deny('write', H + '/.bashrc')]")" = "[('mandatory', 'EROFS', None)]" ]
then ok; else bad "rc=$(cat "$HOME/.bashrc") log=$(logq L | head -c 300)"; fi

ts exec_of_a_read_denied_program_eperm_reported_as_exec
printf '#!/bin/sh\necho TOOL-RAN\n' > tool && chmod +x tool
sxl -q --deny-read tool -- sh -c './tool; echo AFTER'
if has AFTER out && ! has TOOL-RAN out && has "Operation not permitted" err &&
   [ "$(nlines "sbx: denied exec of $W/tool by \`deny_read = tool\` (--deny-read)")" = 1 ] &&
   [ "$(logq "[(r['errno'], r['comm']) for r in deny('exec', W + '/tool')]")" = "[('EPERM', 'sh')]" ]
then ok; else bad "log=$(logq L | head -c 300)"; fi

ts long_target_cut_on_the_wire_marked_truncated_in_the_log
# 7 components of 200 spaces: about 4.2 KiB once escaped, more than a line holds
c=$(printf '%*s' 200 '')
long="$HOME/proj/$c/$c/$c/$c/$c/$c/$c"
mkdir -p "$long"
sxl -q -- sh -c 'echo x > "$1/file"; echo AFTER' sh "$long"
if has AFTER out && [ ! -e "$long/file" ] &&
   [ "$(logq "[(r['op'], r['truncated'], len(r['target']) < len('$long/file'), '$long/file'.startswith(r['target'])) for r in L]")" = "[('write', True, True, True)]" ] &&
   [ "$(summary 'denied writes?')" = 1 ]
then ok; else bad "log=$(logq "[(r['op'], r['truncated'], len(r['target'])) for r in L]")"; fi

ts long_target_report_line_keeps_its_reason_fix_and_pid
# about 1.2 KiB of plain path: fits the wire, but is the whole line still said?
c=$(printf 'a%.0s' $(seq 200))
long="$HOME/proj/$c/$c/$c/$c/$c/$c"
mkdir -p "$long"
sxl -q -- sh -c 'echo x > "$1/file"; echo AFTER' sh "$long"
line=$(grep -F "sbx: denied write of ~/proj/$c" "$B/err" | head -1)
if has AFTER out && [ ! -e "$long/file" ] &&
   [[ $line == *"$c/file — outside the writable paths (allow it with --allow-write ~/proj/"*") — pid "[0-9]*" sh" ]] &&
   [ "$(logq "[(r['target'], r['truncated']) for r in L] == [('$long/file', False)]")" = True ]
then ok; else bad "line of ${#line} bytes ends: ...${line: -60}"; fi

# ---- the boundary without the shim

ts static_binary_blocked_by_boundary_no_shim_report_expected
if [ -x "$PROGS/readfile-static" ]; then
	sxl -q -- "$PROGS/readfile-static" "$CANARY" "$CANARY2"
	# no report (the shim is not in it); the audit log says once why
	if grep -q "^ERR $CANARY: " "$B/out" && grep -q "^ERR $CANARY2: " "$B/out" && no_secret &&
	   no_denial && [ "$(logq 'len([r for r in L if r.get("op") != "notice"])')" = 0 ] &&
	   [ "$(logq '[r["notice"] for r in L if r.get("op") == "notice"]')" = "['static-command']" ] &&
	   has "readfile-static is a static binary" err; then ok
	else bad "out=$(head -c 200 "$B/out") log=$(logq 'len(L)')"; fi
else skip "no static libc (cc -static)"; fi

# Without the shim the read is refused unsaid; the write outside the
# writable paths is said by the boundary (the seccomp notify layer), once.
ts no_shim_no_read_report_but_boundary_still_refuses_and_says_the_write
sxl -q --no-shim -- sh -c 'cat "$1"; echo x > ~/proj/out.txt; echo AFTER' sh "$CANARY"
if has AFTER out && no_secret && has "Permission denied" err && [ ! -e "$HOME/proj/out.txt" ] &&
   ! has 'denied read' err && [ "$(nlines "denied write of ~/proj/out.txt — outside the writable paths")" = 1 ] &&
   [ "$(logq "[(r['layer'], r['op']) for r in L]")" = "[('notify', 'write')]" ]; then ok; else bad "rc=$RC"; fi

ts no_shim_with_trace_refused_nothing_run
sx --no-shim --trace -- touch ran-marker
if [ $RC -eq 125 ] && [ ! -e ran-marker ] && has "drop --no-shim" err; then ok; else bad "rc=$RC"; fi

# ---- children the shim must follow

ts env_i_child_still_reported_with_its_pid_and_comm
sxl -q -- sh -c 'echo PID=$$; exec env -i /bin/cat "$1"' sh "$CANARY"
pid=$(sed -n 's/^PID=//p' "$B/out")
if [ -n "$pid" ] && no_secret && [ "$(nlines 'denied read of ~/.ssh/canary')" = 1 ] &&
   hasf " — pid $pid cat" err &&
   [ "$(logq "[(r['pid'], r['comm']) for r in deny('read', H + '/.ssh/canary')]")" = "[($pid, 'cat')]" ]
then ok; else bad "pid=$pid log=$(logq L | head -c 300)"; fi

ts execve_with_fresh_envp_still_reported_with_its_pid_and_comm
if prog execfresh; then
	sxl -q -- "$PROGS/execfresh" /bin/cat "$CANARY"
	pid=$(sed -n 's/^PID=//p' "$B/out")
	if [ -n "$pid" ] && ! has EXECFAIL out && no_secret && hasf " — pid $pid cat" err &&
	   [ "$(logq "[(r['pid'], r['comm']) for r in deny('read', H + '/.ssh/canary')]")" = "[($pid, 'cat')]" ]
	then ok; else bad "pid=$pid out=$(head -c 200 "$B/out") log=$(logq L | head -c 300)"; fi
fi

for mode in fork vfork spawn; do
	case $mode in
	fork) ts fork_without_exec_child_reported_with_its_own_pid; comm=children ;;
	vfork) ts vfork_then_exec_child_reported; comm=cat ;;
	spawn) ts posix_spawn_child_with_empty_envp_reported; comm=cat ;;
	esac
	prog children || continue
	sxl -q -- "$PROGS/children" $mode "$CANARY"
	pid=$(sed -n 's/^CHILD=//p' "$B/out" | head -1)
	if [ -n "$pid" ] && has "STATUS=" out && no_secret &&
	   { [ $mode != fork ] || has "CHILD-OPEN EACCES" out; } &&
	   [ "$(nlines 'denied read of ~/.ssh/canary')" = 1 ] && hasf " — pid $pid $comm" err &&
	   [ "$(logq "[(r['pid'], r['comm']) for r in deny('read', H + '/.ssh/canary')]")" = "[($pid, '$comm')]" ]
	then ok; else bad "pid=$pid out=$(tr '\n' ' ' < "$B/out") log=$(logq L | head -c 300)"; fi
done

ts fork_child_judges_relative_paths_from_its_own_new_directory_and_parent_from_its_own
# the cwd cache is the parent's memory copied into the child (core.c,
# owns_cwd_cache): the child's chdir must not leave it judging from the
# parent's directory, nor the child's answer reach the parent
if prog children; then
	mkdir -p .ssh && echo "ws-canary" > .ssh/canary
	sxl -q -- "$PROGS/children" forkcd "$HOME" .ssh/canary
	pid=$(sed -n 's/^CHILD=//p' "$B/out" | head -1)
	if [ -n "$pid" ] && has "CHILD-OPEN EACCES" out && has "PARENT-OPEN ws-canary" out &&
	   no_secret && [ "$(nlines 'denied read of ~/.ssh/canary')" = 1 ] &&
	   [ "$(logq "[(r['pid'], r['target']) for r in L if r['decision'] == 'deny'] == [($pid, H + '/.ssh/canary')]")" = True ]
	then ok; else bad "pid=$pid out=$(tr '\n' ' ' < "$B/out") log=$(logq L | head -c 300)"; fi
fi

ts children_dropping_ld_preload_three_ways_still_reported
sxl -q -- sh -c 'env -u LD_PRELOAD cat "$1"; LD_PRELOAD= cat "$1"; LD_PRELOAD=/nonexistent-sbx.so cat "$1"; echo AFTER' sh "$CANARY"
if has AFTER out && no_secret &&
   [ "$(logq "len({r['pid'] for r in deny('read', H + '/.ssh/canary') if r['comm'] == 'cat'})")" = 3 ]
then ok; else bad "log=$(logq "[(r['pid'], r['comm']) for r in L]" | head -c 300)"; fi

# ---- programs that are hard on a preloaded library

ts eight_threads_no_crash_every_denied_open_eacces_every_report_accounted
if prog threads; then
	echo A1 > a1.txt && echo A2 > a2.txt
	rounds=250
	sxl -q -- "$PROGS/threads" $rounds "$CANARY" "$CANARY2" "$W/a1.txt" "$W/a2.txt"
	attempts=$((8 * rounds * 2))
	logged=$(logq "len([r for r in L if r['decision'] == 'deny'])")
	dropped=$(summary 'reports? dropped')
	if [ $RC -eq 0 ] && has ALL-OK out && [ "$(grep -c "eacces=$((2 * rounds)) other=0 allowed_ok=$((2 * rounds)) wrong=0" "$B/out")" = 8 ] &&
	   [ "$(logq "all(schema_ok(r) for r in L) and len(deny('read', H + '/.ssh/canary')) >= 1 and len(deny('read', H + '/secrets/canary')) >= 1 and all(r['errno'] == 'EACCES' for r in L)")" = True ] &&
	   [ $((logged + dropped)) -eq $attempts ] && [ "$(summary 'denied reads?')" = "$logged" ] &&
	   ! has malformed err && [ "$(nlines 'denied read of ~/.ssh/canary')" = 1 ] && no_secret
	then ok
	else bad "rc=$RC logged=$logged dropped=$dropped attempts=$attempts summary=$(summary 'denied reads?') $(grep -v ALL-OK "$B/out" | head -2 | tr '\n' ' ')"; fi
fi

ts closes_every_fd_above_2_then_opens_canary_reported_stdout_intact
if prog closeall; then
	sxl -q -- "$PROGS/closeall" high "$CANARY"
	want=$(for i in $(seq 0 99); do printf 'PAYLOAD-%03d\n' "$i"; done)
	if [ "$(cat "$B/out")" = "$want" ] && [ "$(cat out.txt)" = "$(printf 'DENIED-OPEN EACCES\n%s' "$want")" ] &&
	   [ "$(logq "len(deny('read', H + '/.ssh/canary'))")" = 2 ] &&
	   [ "$(nlines 'denied read of ~/.ssh/canary')" = 1 ] && no_secret; then ok
	else bad "out=$(head -c 100 "$B/out") file=$(head -c 100 out.txt) log=$(logq 'len(L)')"; fi
fi

ts closes_every_fd_even_0_1_2_then_opens_canary_reported_file_intact
if prog closeall; then
	sxl -q -- "$PROGS/closeall" all "$CANARY"
	want=$(printf 'DENIED-OPEN EACCES\n'; for i in $(seq 0 99); do printf 'PAYLOAD-%03d\n' "$i"; done)
	if [ "$(cat out.txt)" = "$want" ] && [ ! -s "$B/out" ] &&
	   [ "$(logq "len(deny('read', H + '/.ssh/canary'))")" = 2 ] &&
	   [ "$(nlines 'denied read of ~/.ssh/canary')" = 1 ] && no_secret; then ok
	else bad "file=$(head -c 100 out.txt | tr '\n' ' ') log=$(logq 'len(L)')"; fi
fi

# ---- the log

ts jsonl_log_parses_and_holds_every_report_of_the_run
sxl -q -- sh -c 'cat "$1" "$2"; cat "$1"; echo x > ~/proj/a; echo y > ~/proj/b;
	python3 -c "import socket
try: socket.getaddrinfo(\"example.com\", 443)
except OSError: pass"' sh "$CANARY" "$CANARY2"
n=$(logq 'len(L)')
sum=$(( $(summary 'denied reads?') + $(summary 'denied writes?') + $(summary 'denied lookups?') ))
if [ "$n" = 6 ] && [ "$sum" = 6 ] &&
   [ "$(logq 'all(schema_ok(r) for r in L)')" = True ] &&
   [ "$(logq 'len({r["run"] for r in L})')" = 1 ] &&
   [ "$(logq 'all(r["decision"] == "deny" and not r["ignored"] and not r["truncated"] for r in L)')" = True ] &&
   [ "$(logq "sorted((r['op'], r['target'].replace(H, '~')) for r in L)")" = "[('dns', 'example.com:443'), ('read', '~/.ssh/canary'), ('read', '~/.ssh/canary'), ('read', '~/secrets/canary'), ('write', '~/proj/a'), ('write', '~/proj/b')]" ] &&
   [ "$(logq "[r['fix'] for r in L if r['op'] == 'dns']")" = "['--allow-domain example.com']" ]
then ok; else bad "n=$n sum=$sum log=$(logq "[(r['op'], r['target']) for r in L]" | head -c 400)"; fi

ts log_goes_to_the_default_place_xdg_state_report_log_or_dev_null
sx -q -- cat "$CANARY"; d1=$(grep -c canary "$HOME/.local/state/sbx/audit.jsonl" 2>/dev/null)
hasf "— see ~/.local/state/sbx/audit.jsonl" err; s1=$?
XDG_STATE_HOME=$B/state sx -q -- cat "$CANARY"; d2=$(grep -c canary "$B/state/sbx/audit.jsonl" 2>/dev/null)
printf '[report]\nlog = ~/my-audit.jsonl\n' > "$B/log.ini"
sx -q -c "$B/log.ini" -- cat "$CANARY"; d3=$(grep -c canary "$HOME/my-audit.jsonl" 2>/dev/null)
hasf "— see ~/my-audit.jsonl" err; s3=$?
rm -rf "$HOME/.local/state"
sx -q --log /dev/null -- cat "$CANARY"; hasf "sbx: denied read of ~/.ssh/canary" err; s4=$?
if [ "$d1" = 1 ] && [ $s1 -eq 0 ] && [ "$d2" = 1 ] && [ "$d3" = 1 ] && [ $s3 -eq 0 ] &&
   [ $s4 -eq 0 ] && [ ! -e "$HOME/.local/state/sbx/audit.jsonl" ]; then ok
else bad "default=$d1/$s1 xdg=$d2 report.log=$d3/$s3 devnull=$s4"; fi

# ---- --trace, --learn, ignore_paths

ts trace_lists_allowed_accesses_with_decision_allow
echo traced-data > data.txt
sxl -q --trace -- sh -c 'cat data.txt data.txt; cat data.txt'
# each distinct access once per process: two cats, two records
if has traced-data out && hasf "sbx: trace: read $W/data.txt — pid " err && no_denial &&
   [ "$(logq "[(r['decision'], r['comm']) for r in L if r['op'] == 'read' and r['target'] == W + '/data.txt']")" = "[('allow', 'cat'), ('allow', 'cat')]" ] &&
   [ "$(logq 'all(schema_ok(r) for r in L)')" = True ]
then ok; else bad "log=$(logq "[(r['decision'], r['target']) for r in L]" | head -c 300)"; fi

# learned_ini_ok FILE: every write of the run is covered by an allow_write,
# none is HOME or / itself, nothing allows the secret: prints OK or why not
learned_ini_ok() {
	[ -f "$1" ] || { echo "no learned file"; return; }
	H="$HOME" python3 - "$1" <<'EOF'
import os, sys
H = os.environ["H"]
allow_write, allow_read = [], []
for line in open(sys.argv[1]):
    line = line.split(";")[0].strip()
    if "=" in line:
        k, v = (s.strip() for s in line.split("=", 1))
        v = H + v[1:] if v.startswith("~") else v
        (allow_write if k == "allow_write" else allow_read if k == "allow_read" else []).append(v)
def covered(p):
    return any(p == d or p.startswith(d.rstrip("/") + "/") for d in allow_write)
bad = [p for p in (H + "/.cache/x/y/data", H + "/notes.txt") if not covered(p)]
too_wide = [d for d in allow_write if d in ("/", H, H + "/")]
secret = [d for d in allow_write + allow_read if ".ssh" in d or "canary" in d]
print("OK" if not bad and not too_wide and not secret else "BAD %s %s %s" % (bad, too_wide, secret))
EOF
}
# the run to learn: writes in HOME (a new directory tree and a file), each
# tried (the learning run writes nothing to HOME: each is refused and
# recorded)
learn_writes() { echo "mkdir -p ~/.cache/x/y; echo $1 > ~/.cache/x/y/data; echo $1 > ~/notes.txt; echo WRITES-DONE"; }

ts learn_writes_allow_write_for_home_writes_never_the_secret_and_replays_clean
echo 0 > "$HOME/notes.txt"
sxl -q --learn="$B/learned.ini" -- sh -c "$(learn_writes 1); cat \"\$1\"" sh "$CANARY"
learned_ok=$(learned_ini_ok "$B/learned.ini")
# nothing of HOME changed while learning
learn_run_wrote=$([ ! -e "$HOME/.cache" ] && [ "$(cat "$HOME/notes.txt" 2>/dev/null)" = 0 ] && echo yes)
learn_no_secret=$(no_secret && echo yes)
# the same run again, from where the learning run left HOME
sxl -q --config "$B/learned.ini" -- sh -c "$(learn_writes 2)"
replay_clean=$(no_denial && ! has "Read-only" err && has WRITES-DONE out &&
	[ "$(cat "$HOME/.cache/x/y/data" 2>/dev/null)" = 2 ] && [ "$(cat "$HOME/notes.txt" 2>/dev/null)" = 2 ] && echo yes)
# and with the read of the secret, which stays the one denial
sxl -q --config "$B/learned.ini" -- sh -c "$(learn_writes 3); cat \"\$1\"" sh "$CANARY"
only_canary=$([ "$(grep -c '^sbx: denied' "$B/err")" = 1 ] && [ "$(nlines 'denied read of ~/.ssh/canary')" = 1 ] &&
	[ "$(cat "$HOME/notes.txt" 2>/dev/null)" = 3 ] && echo yes)
if [ "$learned_ok" = OK ] && [ "$learn_run_wrote" = yes ] && [ "$learn_no_secret" = yes ] &&
   [ "$replay_clean" = yes ] && [ "$only_canary" = yes ] && no_secret; then ok
else bad "learned=$learned_ok wrote=$learn_run_wrote no_secret=$learn_no_secret replay=$replay_clean only_canary=$only_canary: $(grep -v '^;' "$B/learned.ini" 2>/dev/null | tr '\n' ' ' | head -c 300)"; fi

ts learn_run_secret_read_refused_by_boundary_is_a_denial_not_a_would_deny
# The secret stays closed while learning: the read fails, so the report is
# a denial (shown now, errno EACCES), not a "would deny" that went through.
sxl -q --learn="$B/learned.ini" -- sh -c 'cat "$1"; echo AFTER' sh "$CANARY"
if has AFTER out && no_secret && has "Permission denied" err &&
   [ "$(nlines "sbx: denied read of ~/.ssh/canary by $DEFRULE")" = 1 ] &&
   [ "$(logq "[(r['decision'], r['errno']) for r in L if r['target'] == H + '/.ssh/canary']")" = "[('deny', 'EACCES')]" ]
then ok; else bad "log=$(logq "[(r['decision'], r['errno']) for r in L if r['target'] == H + '/.ssh/canary']")"; fi

# From HOME as it was before learning: a learned directory (written with its
# trailing /) is made by sbx, so writes below it work; a learned file cannot
# be made writable before it exists, and the refusal says exactly that.
ts learned_policy_replays_from_the_home_the_learning_run_started_with
sxl -q --learn="$B/learned.ini" -- sh -c "$(learn_writes 1)"
learned_ok=$(learned_ini_ok "$B/learned.ini")
# HOME is as it was before the learning run: it wrote nothing there
sxl -q --config "$B/learned.ini" -- sh -c "mkdir -p ~/.cache/x/y && echo 2 > ~/.cache/x/y/data && echo DIR-DONE; echo 2 > ~/notes.txt"
if [ "$learned_ok" = OK ] && grep -q '^allow_write = ~/.cache/$' "$B/learned.ini" && has DIR-DONE out &&
   [ "$(cat "$HOME/.cache/x/y/data" 2>/dev/null)" = 2 ] && [ ! -e "$HOME/notes.txt" ] &&
   [ "$(nlines 'denied write of ~/.cache')" = 0 ] &&
   hasf 'denied write of ~/notes.txt — `allow_write = ~/notes.txt`' err &&
   hasf 'did not exist when the sandbox started' err
then ok; else bad "learned=$learned_ok: $(grep -v '^;' "$B/learned.ini" 2>/dev/null | tr '\n' ' ' | head -c 200)"; fi

ts learn_run_that_needs_nothing_writes_a_file_saying_so
echo in-ws > data.txt
sxl -q --learn="$B/learned.ini" -- sh -c 'cat data.txt; echo out > out.txt'
if has in-ws out && [ "$(cat out.txt 2>/dev/null)" = out ] && ! has "runtime error" err &&
   hasf "learned policy written to" err && grep -q "nothing: the run stayed inside the policy" "$B/learned.ini" 2>/dev/null &&
   ! grep -qE '^(allow_write|allow_domains|allow_read)' "$B/learned.ini"
then ok; else bad "rc=$RC file=$(grep -v '^;' "$B/learned.ini" 2>/dev/null | tr '\n' ' ' | head -c 200)"; fi

ts ignore_paths_and_domains_silence_stderr_but_log_ignored
printf '[report]\nignore_paths = ~/.ssh/canary\nignore_domains = example.com\n' > "$B/ign.ini"
sxl -q -c "$B/ign.ini" -- sh -c 'cat "$1"; python3 -c "import socket
try: socket.getaddrinfo(\"example.com\", 443)
except OSError as e: print(\"GAIERROR\", e.errno)"; cat ~/.ssh/id_ed25519' sh "$CANARY"
if no_secret && ! grep -q "$SECRET" "$B/out" && has "GAIERROR" out && has "Permission denied" err &&
   [ "$(nlines 'denied read of ~/.ssh/canary')" = 0 ] && ! has 'lookup of example.com' err &&
   [ "$(nlines 'denied read of ~/.ssh/id_ed25519')" = 1 ] &&
   [ "$(logq "[r['ignored'] for r in L if r['target'] in (H + '/.ssh/canary', 'example.com:443')]")" = "[True, True]" ] &&
   [ "$(summary 'denied reads?')" = 1 ]
then ok; else bad "log=$(logq "[(r['target'], r['ignored']) for r in L]" | head -c 300)"; fi

# ---- the network

ts dns_lookup_of_unlisted_host_fails_at_once_with_denied_lookup_report
sxl -q -- python3 -c '
import socket, time
t = time.time()
try:
    socket.getaddrinfo("example.com", 443)
    print("RESOLVED")
except socket.gaierror as e:
    print("GAIERROR", e.errno, "EAI_FAIL" if e.errno == socket.EAI_FAIL else "", round(time.time() - t, 2))'
if has "GAIERROR .* EAI_FAIL" out && ! has RESOLVED out &&
   [ "$(nlines "sbx: denied lookup of example.com:443 — not in allow_domains (allow it with --allow-domain example.com) — pid ")" = 1 ] &&
   [ "$(logq "[(r['op'], r['target'], r['decision']) for r in L]")" = "[('dns', 'example.com:443', 'deny')]" ]
then ok; else bad "out=$(cat "$B/out") log=$(logq L | head -c 300)"; fi

ts connect_to_outside_ip_eperm_with_denied_connect_report
sxl -q -- python3 -c '
import socket
s = socket.socket(); s.settimeout(3)
try:
    s.connect(("10.255.255.1", 80)); print("CONNECTED")
except OSError as e:
    print("CONNERR", e.errno)'
if has "CONNERR 1$" out &&
   [ "$(nlines "sbx: denied connect to 10.255.255.1:80 — not in allow_domains")" = 1 ] &&
   [ "$(logq "[(r['op'], r['target'], r['errno']) for r in L]")" = "[('connect', '10.255.255.1:80', 'EPERM')]" ]
then ok; else bad "out=$(cat "$B/out") log=$(logq L | head -c 300)"; fi

ts curl_lookup_refused_at_once_with_denied_lookup_report
if command -v curl >/dev/null; then
	sxl -q -- curl -sS -m 20 -o /dev/null https://example.com/
	# 6: could not resolve host (its message may interleave with ours on stderr)
	if [ $RC -eq 6 ] &&
	   [ "$(nlines "sbx: denied lookup of example.com:443 — not in allow_domains (allow it with --allow-domain example.com) — pid ")" = 1 ] &&
	   [ "$(logq "[(r['op'], r['target'], r['comm']) for r in L]")" = "[('dns', 'example.com:443', 'curl')]" ]
	then ok; else bad "rc=$RC log=$(logq L | head -c 300)"; fi
else skip "no curl"; fi

ts gethostbyname_udp_sendto_and_ipv6_connect_refused_and_reported
sxl -q -- python3 -c '
import socket
try:
    socket.gethostbyname("example.org"); print("RESOLVED")
except OSError as e:
    print("GHBN-ERR")
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    u.sendto(b"x", ("8.8.8.8", 53)); print("SENT")
except OSError as e:
    print("UDP-ERR", e.errno)
s = socket.socket(socket.AF_INET6); s.settimeout(3)
try:
    s.connect(("2001:db8::1", 443)); print("CONNECTED")
except OSError as e:
    print("V6-ERR", e.errno)'
if has GHBN-ERR out && has "UDP-ERR 1$" out && has "V6-ERR 1$" out &&
   hasf "sbx: denied lookup of example.org — not in allow_domains" err &&
   hasf "sbx: denied connect to 8.8.8.8:53 — not in allow_domains" err &&
   hasf "sbx: denied connect to [2001:db8::1]:443 — not in allow_domains" err &&
   [ "$(logq "sorted((r['op'], r['target'], r['errno']) for r in L)")" = "[('connect', '8.8.8.8:53', 'EPERM'), ('connect', '[2001:db8::1]:443', 'EPERM'), ('dns', 'example.org', None)]" ]
then ok; else bad "out=$(tr '\n' ' ' < "$B/out") log=$(logq "[(r['op'], r['target']) for r in L]")"; fi

ts loopback_inside_the_sandbox_allowed_no_report
sxl -q -- python3 -c '
import socket, threading
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
port = srv.getsockname()[1]
def serve():
    c, _ = srv.accept(); c.sendall(b"LOOPBACK-HELLO"); c.close()
threading.Thread(target=serve, daemon=True).start()
c = socket.create_connection(("localhost", port), 3)
print(c.recv(100).decode())'
if has LOOPBACK-HELLO out && no_denial && [ "$(logq 'len(L)')" = 0 ]; then ok
else bad "out=$(head -c 200 "$B/out")"; fi

# ---- symlinks and relative paths

ts symlink_in_workspace_into_ssh_reported_with_the_real_target
ln -s "$CANARY" innocent-abs
ln -s ../home/.ssh/canary innocent-rel
sxl -q -- sh -c 'cat innocent-abs; cat innocent-rel; echo AFTER'
if has AFTER out && no_secret && [ "$(nlines 'denied read of ~/.ssh/canary')" = 1 ] &&
   ! grep '^sbx: ' "$B/err" | grep -q innocent &&
   [ "$(logq "sorted(set(r['target'] for r in L)) == [H + '/.ssh/canary'] and len(L) == 2")" = True ]
then ok; else bad "log=$(logq "[r['target'] for r in L]" | head -c 300)"; fi

ts symlinks_through_dotdot_to_allowed_files_not_refused
echo ws-data > data.txt
mkdir -p a/b "$HOME/links"
ln -s ../../data.txt a/b/link
ln -s ../../ws "$HOME/links/ws"    # outside the writable paths as written, into W for real
sxl -q -- sh -c 'cat a/b/link; echo via-link > ~/links/ws/via-link.txt; cat ~/links/ws/a/b/link'
if [ "$(grep -c ws-data "$B/out")" = 2 ] && [ "$(cat via-link.txt 2>/dev/null)" = via-link ] &&
   no_denial && [ "$(logq 'len(L)')" = 0 ]; then ok
else bad "out=$(head -c 200 "$B/out") log=$(logq "[r['target'] for r in L]" | head -c 300)"; fi

ts creates_through_a_dotdot_link_succeed_while_another_process_renames
# the notify layer opens a path in the sandbox's root (RESOLVE_IN_ROOT):
# a `..` walked while anything on the machine renames made the kernel say
# EAGAIN, and `echo x > ~/links/ws/f` failed in CI now and then
mkdir -p "$HOME/links" && ln -s ../../ws "$HOME/links/ws" && : > "$B/r1"
python3 -c '
import os, sys
a, b = sys.argv[1] + "/r1", sys.argv[1] + "/r2"
while not os.path.exists(sys.argv[1] + "/stop"):
    os.rename(a, b); os.rename(b, a)' "$B" &
renamer=$!
sxl -q -- python3 -c '
import os
bad = []
for i in range(3000):
    try:
        with open(os.path.expanduser("~/links/ws/f%d" % i), "w") as f:
            f.write("x")
    except OSError as e:
        bad.append(e.strerror)
print("FAILED", len(bad), bad[:1])'
: > "$B/stop"; wait "$renamer"
if has "FAILED 0 " out && [ "$(ls "$W" | grep -c '^f[0-9]*$')" = 3000 ] && no_denial; then ok
else bad "out=$(head -c 200 "$B/out")"; fi

ts relative_paths_after_cd_judged_from_the_new_directory
mkdir -p sub/deeper && echo rel-data > data.txt
sxl -q -- sh -c 'cd sub && cat ../data.txt && cat ../../home/.ssh/canary; cd deeper && cat ../../../home/secrets/canary; echo AFTER'
if has rel-data out && has AFTER out && no_secret &&
   [ "$(nlines 'denied read of ~/.ssh/canary by')" = 1 ] && [ "$(nlines 'denied read of ~/secrets/canary by')" = 1 ] &&
   [ "$(logq "sorted(r['target'] for r in L) == sorted([H + '/.ssh/canary', H + '/secrets/canary'])")" = True ]
then ok; else bad "log=$(logq "[r['target'] for r in L]" | head -c 300)"; fi

ts relative_paths_after_chdir_fchdir_and_openat_in_one_process
if prog relpaths; then
	mkdir -p sub/deeper && echo rel-data > data.txt
	sxl -q -- "$PROGS/relpaths" "$W" "$HOME"
	expect="OK data.txt rel-data
OK ../../data.txt rel-data
ERR ../../../home/.ssh/canary EACCES
OK ../data.txt rel-data
ERR ../../home/.ssh/canary EACCES
OK data.txt rel-data
ERR .ssh/canary EACCES
ERR sub/deeper/../../../home/.ssh/canary EACCES"
	if [ "$(cat "$B/out")" = "$expect" ] && no_secret &&
	   [ "$(logq "[r['target'] for r in L] == [H + '/.ssh/canary'] * 4")" = True ] &&
	   [ "$(nlines 'denied read of ~/.ssh/canary')" = 1 ]; then ok
	else bad "$(diff <(echo "$expect") "$B/out" | tr '\n' ' ') log=$(logq "[r['target'] for r in L]" | head -c 300)"; fi
fi

# A busy process (python3 makes hundreds of checks before the script runs)
# has the policy's "allowed" remembered per op and path (shim/decided.c):
# a read of `.bashrc` at the top of the workspace is allowed, its creation
# is not, and only the shim refuses that (no stand-in there: the report
# then has no "(seccomp)", which the supervisor's refusal would carry). So
# a remembered read must never let a write of the same path, or of the
# same file spelt another way, through to the kernel.
ts busy_process_remembered_read_never_answers_for_a_write
sxl -q -- python3 -c '
import os, sys
w = sys.argv[1]
for i in range(200):
    for p in (w + "/.bashrc", ".bashrc", w + "/.bashrcx"):
        try: open(p).read()
        except OSError: pass
        try: os.stat(p)
        except OSError: pass
open(w + "/.bashrcx", "w").write("fine")
for p in (w + "/.bashrc", w + "/./.bashrc", w + "//.bashrc", ".bashrc", "sub/../.bashrc"):
    try: open(p, "w").write("x"); print("WROTE", p)
    except OSError as e: print("ERR", p, e.errno)' "$W"
expect="ERR $W/.bashrc 30
ERR $W/./.bashrc 30
ERR $W//.bashrc 30
ERR .bashrc 30
ERR sub/../.bashrc 30"
if [ "$(cat "$B/out")" = "$expect" ] && [ ! -e "$W/.bashrc" ] && [ "$(cat "$W/.bashrcx")" = fine ] &&
   [ "$(nlines "sbx: denied write of $W/.bashrc by \`deny_write = .bashrc\`")" -ge 1 ] &&
   ! grep -q '(seccomp)' "$B/err" &&
   [ "$(logq "[r['target'] for r in L if r['decision'] == 'deny'] == [W + '/.bashrc'] * 5")" = True ]
then ok; else bad "$(diff <(echo "$expect") "$B/out" | tr '\n' ' ') err=$(head -c 300 "$B/err")"; fi

# ---- real work is not disturbed

ts git_init_add_commit_under_the_shim_no_denial
sxl -q -- sh -c 'git init -q . && echo a > a && git add a &&
	git -c user.name=t -c user.email=t@e commit -qm first && echo GIT-OK'
# (the one line and record: the repository the run made, notify.c)
if has GIT-OK out && [ "$(git -C "$W" log --format=%s 2>/dev/null)" = first ] && no_denial &&
   [ "$(logq "len([r for r in L if r.get('op') != 'notice'])")" = 0 ]; then ok
else bad "rc=$RC log=$(logq "[(r['op'], r['target']) for r in L]" | head -c 300)"; fi

echo "# $(id -un) (shim): $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
