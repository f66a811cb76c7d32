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

# The "agent": runs a command as an agent's shell tool does, stdout and
# stderr each captured through a pipe of its own (or one pipe for both with
# `merged`), and leaves what it captured in tool-out and tool-err.
agent_tool() {
	cat > "$W/agent.py" <<'EOF'
import subprocess, sys
merged = sys.argv[1] == "merged"
r = subprocess.run(["sh", "-c", sys.argv[2]], stdout=subprocess.PIPE,
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
# one pipe for both (2>&1): the line would land on stdout, which may be a
# protocol; the program's own error lines are its business
if ! grep -q '^sbx: ' "$W/tool-out" && [ "$(grep -c 'Read-only file system' "$W/tool-out")" = 2 ] &&
   grep -qx stdout-line "$W/tool-out" && hasf 'denied write of ~/proj/notes.txt' err; then
	agent_tool
	sx -q --log "$LOG" -- python3 agent.py split "$TWICE"
	if [ "$(grep -cxF "$W1" "$W/tool-err")" = 1 ]; then ok
	else bad "from sandbox.ini: tool-err=$(head -c 300 "$W/tool-err" | tr '\n' '|')"; fi
else bad "merged: tool-out=$(head -c 300 "$W/tool-out" | tr '\n' '|')"; fi

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

echo "# $(id -un) (explain): $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
