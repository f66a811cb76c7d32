#!/bin/bash
# Agent profiles (docs/AGENTS.md): chosen by COMMAND's name or --profile,
# replaced by the user's own, and the real agents — Claude Code, Codex,
# Gemini CLI, an MCP server — run under them from the npm registry
# (agents-install.sh; their tests skip, saying why, without it).
# Asserts on the host's files, the report lines and the agents' own output.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

AG=${SBX_IT_AGENTS:-}
agent() { # agent NAME: true when the real NAME is installed, else skip
	if [ -z "$AG" ] || [ ! -x "$AG/node_modules/.bin/$1" ]; then
		skip "$1 is not installed from the npm registry (${AG:-SBX_IT_AGENTS unset}: $(cat "$AG/install.status" 2>/dev/null || echo 'no install'))"
		return 1
	fi
}

# fake NAME SCRIPT: a program called NAME (a shell script) first in PATH
fake() {
	mkdir -p "$B/bin"
	printf '#!/bin/bash\n%s\n' "$2" > "$B/bin/$1"
	chmod +x "$B/bin/$1"
	export PATH="$B/bin:$ORIG_PATH"
}
ORIG_PATH=$PATH
ta() { t "$1"; export PATH=$ORIG_PATH; }

# ---- profiles

ta print_profile_shows_the_built_in_file_and_where_it_is
sx --print-profile claude
if [ $RC -eq 0 ] && head -1 "$B/out" | grep -q '^; profile claude: .*/claude.ini (built in)$' &&
   hasf 'set = CLAUDE_CONFIG_DIR=~/.claude-sbx' out && hasf 'allow_write = ~/.claude-sbx/' out; then ok
else bad "rc=$RC: $(head -3 "$B/out")"; fi

ta profile_name_is_never_a_path_nothing_runs
sx --profile ../../etc/passwd -- sh -c "touch $W/ran"
if [ $RC -eq 125 ] && [ ! -e "$W/ran" ] && has 'is not a profile name' err; then ok
else bad "rc=$RC"; fi

ta unknown_profile_lists_the_built_in_ones
sx --profile nosuch -- sh -c "touch $W/ran"
if [ $RC -eq 125 ] && [ ! -e "$W/ran" ] && has 'no profile `nosuch`' err &&
   has 'built in: claude, codex, gemini, mcp' err; then ok
else bad "rc=$RC"; fi

ta command_name_chooses_the_profile_its_state_dir_is_writable
fake claude 'echo "$CLAUDE_CONFIG_DIR" > "$PWD/env"; echo state > ~/.claude-sbx/.claude.json
echo x > ~/.claude.json.tmp.1.abc 2>/dev/null; echo x > ~/.claude.json 2>/dev/null; true'
sx claude
if [ "$(cat "$W/env" 2>/dev/null)" = "$HOME/.claude-sbx" ] &&
   [ "$(cat "$HOME/.claude-sbx/.claude.json" 2>/dev/null)" = state ] &&
   [ ! -e "$HOME/.claude.json.tmp.1.abc" ] && [ ! -e "$HOME/.claude.json" ] &&
   hasf 'denied write of ~/.claude.json.tmp.1.abc' err; then ok
else bad "env=$(cat "$W/env" 2>/dev/null) rc=$RC"; fi

ta profiles_fill_package_caches_of_their_own_never_the_hosts
# A later program outside trusts the host's caches (npx runs ~/.npm/_npx,
# cargo builds ~/.cargo/registry/src, go links ~/.cache/go-build, pip
# installs cached wheels, uvx runs ~/.cache/uv): under every agent profile
# the package tools inside get caches only sandboxed runs read.
host_caches=".npm/_npx/abc/node_modules/pkg/index.js .cargo/registry/src/idx/crate-1.0/build.rs
.cache/go-build/00/00aa-d .cache/pip/wheels/ab/pkg.whl .cache/uv/archive-v0/x/bin/tool"
for c in $host_caches; do mkdir -p "$HOME/${c%/*}"; echo orig > "$HOME/$c"; done
fake agent-x 'for c in '"$(echo $host_caches)"'; do echo planted > ~/$c 2>/dev/null; echo new > ~/${c%/*}/new 2>/dev/null; done
for v in npm_config_cache PIP_CACHE_DIR UV_CACHE_DIR CARGO_HOME GOCACHE GOMODCACHE; do
	d=$(printenv $v) && mkdir -p "$d/sub" && echo filled > "$d/sub/f" && echo "$v=$d"
done > "$PWD/env.$1"; true'
fails=""
for prof in claude codex gemini mcp; do
	sx --profile "$prof" -- agent-x "$prof"
	for c in $host_caches; do
		[ "$(cat "$HOME/$c")" = orig ] && [ ! -e "$HOME/${c%/*}/new" ] || fails="$fails $prof:~/$c"
	done
	[ "$(grep -c "=$HOME/.cache/sbx-caches/" "$W/env.$prof" 2>/dev/null)" -eq 6 ] || fails="$fails $prof:env"
	[ "$(cat "$HOME"/.cache/sbx-caches/*/sub/f 2>/dev/null | grep -c filled)" -eq 6 ] || fails="$fails $prof:filled"
	rm -rf "$HOME/.cache/sbx-caches"
done
if [ -z "$fails" ]; then ok; else bad "$fails $(cat "$W"/env.* 2>/dev/null)"; fi

ta profile_none_adds_nothing
fake claude 'echo "${CLAUDE_CONFIG_DIR:-unset}" > "$PWD/env"; mkdir -p ~/.claude-sbx 2>/dev/null; true'
sx --profile none -- claude
if [ "$(cat "$W/env" 2>/dev/null)" = unset ] && [ ! -e "$HOME/.claude-sbx" ]; then ok
else bad "env=$(cat "$W/env" 2>/dev/null)"; fi

ta explicit_profile_for_another_command_name
fake my-agent 'echo "${CODEX_HOME:-unset}" > "$PWD/env"; echo s > ~/.codex-sbx/state'
sx --profile codex -- my-agent
if [ "$(cat "$W/env" 2>/dev/null)" = "$HOME/.codex-sbx" ] &&
   [ "$(cat "$HOME/.codex-sbx/state" 2>/dev/null)" = s ]; then ok
else bad "env=$(cat "$W/env" 2>/dev/null) rc=$RC"; fi

ta users_profile_replaces_the_built_in_and_reports_name_it
mkdir -p "$HOME/.config/sbx/profiles" "$HOME/agent"
printf '[profile]\ndescription = mine\n[filesystem]\nallow_write = ~/agent/\ndeny_write = ~/agent/locked\n' \
	> "$HOME/.config/sbx/profiles/claude.ini"
fake claude 'echo "${CLAUDE_CONFIG_DIR:-unset}" > "$PWD/env"; echo a > ~/agent/free; echo b > ~/agent/locked 2>/dev/null; true'
sx --log "$B/log" claude
if [ "$(cat "$W/env" 2>/dev/null)" = unset ] && [ "$(cat "$HOME/agent/free" 2>/dev/null)" = a ] &&
   [ ! -e "$HOME/agent/locked" ] &&
   hasf 'denied write of ~/agent/locked by `deny_write = ~/agent/locked` (profile claude: ~/.config/sbx/profiles/claude.ini:5)' err &&
   python3 -c 'import json,sys; L=[json.loads(l) for l in open(sys.argv[1])]; sys.exit(0 if any(r.get("source")=="profile claude: ~/.config/sbx/profiles/claude.ini:5" for r in L) else 1)' "$B/log"; then ok
else bad "rc=$RC env=$(cat "$W/env" 2>/dev/null)"; fi

ta users_deny_write_still_wins_over_the_profile
mkdir -p "$HOME/.config/sbx" "$HOME/.claude-sbx"
printf '[filesystem]\ndeny_write = ~/.claude-sbx/settings.json\n' > "$HOME/.config/sbx/sandbox.ini"
fake claude 'echo hooks > ~/.claude-sbx/settings.json 2>/dev/null; echo ok > ~/.claude-sbx/other'
sx claude
if [ ! -e "$HOME/.claude-sbx/settings.json" ] && [ "$(cat "$HOME/.claude-sbx/other" 2>/dev/null)" = ok ] &&
   hasf 'denied write of ~/.claude-sbx/settings.json by `deny_write = ~/.claude-sbx/settings.json` (~/.config/sbx/sandbox.ini:2)' err; then ok
else bad "rc=$RC"; fi

ta profile_that_widens_the_sandbox_settings_is_refused
mkdir -p "$HOME/.config/sbx/profiles"
printf '[sandbox]\nisolation = custom\n' > "$HOME/.config/sbx/profiles/claude.ini"
fake claude "touch $W/ran"
sx claude
if [ $RC -eq 125 ] && [ ! -e "$W/ran" ] &&
   hasf 'profile claude: ~/.config/sbx/profiles/claude.ini:2: a profile may not set `isolation`' err; then ok
else bad "rc=$RC"; fi

ta the_sandbox_cannot_write_the_users_profiles
mkdir -p "$HOME/.config/sbx/profiles"
printf '[filesystem]\nallow_write = ~/agent/\n' > "$HOME/.config/sbx/profiles/claude.ini"
fake claude 'echo "allow_write = /" >> ~/.config/sbx/profiles/claude.ini 2>/dev/null; echo "[filesystem]" > ~/.config/sbx/profiles/codex.ini 2>/dev/null; true'
sx -w "$HOME" claude
if ! grep -q 'allow_write = /$' "$HOME/.config/sbx/profiles/claude.ini" &&
   [ ! -e "$HOME/.config/sbx/profiles/codex.ini" ]; then ok
else bad "rc=$RC: the profile was written"; fi

# ---- the real agents (npm registry)

ta claude_version_under_its_profile
if agent claude; then
	export PATH="$AG/node_modules/.bin:$ORIG_PATH"
	sx claude --version
	if [ $RC -eq 0 ] && has '(Claude Code)' out; then ok; else bad "rc=$RC $(cat "$B/out")"; fi
fi

# screen SOCK: what tmux shows now
screen() { tmux -S "$1" capture-pane -p -t a 2>/dev/null; }
# wait_screen SOCK TEXT: until the screen shows TEXT (the program's own
# pace; bounded at 60 s so a broken run ends)
wait_screen() {
	for _ in $(seq 1 120); do
		screen "$1" | grep -qF -- "$2" && return 0
		sleep 0.5
	done
	return 1
}

ta claude_reaches_its_prompt_and_keeps_the_trust_answer_across_runs
if agent claude && command -v tmux >/dev/null; then
	mkdir -p "$HOME/.claude-sbx"
	# onboarding done (theme, welcome): the state a first run leaves
	echo '{"hasCompletedOnboarding":true}' > "$HOME/.claude-sbx/.claude.json"
	S=$B/tmux.sock
	run_claude() {
		tmux -S "$S" new-session -d -s a -x 120 -y 40 \
			"cd '$W'; PATH='$AG/node_modules/.bin:$ORIG_PATH' HOME='$HOME' '$SBX' claude 2>'$B/err$1'; echo EXIT=\$? > '$B/exit$1'; sleep 60"
	}
	run_claude 1
	trusted=no; second=no
	if wait_screen "$S" 'Yes, I trust this folder'; then
		tmux -S "$S" send-keys -t a Enter
		wait_screen "$S" 'for shortcuts' && trusted=yes
	fi
	tmux -S "$S" send-keys -t a C-c; sleep 0.3; tmux -S "$S" send-keys -t a C-c
	for _ in $(seq 1 60); do [ -e "$B/exit1" ] && break; sleep 0.5; done
	tmux -S "$S" kill-server 2>/dev/null
	# the second run goes straight to the prompt: the answer was kept. Each
	# later run gets a tmux server of its own (a new session on the socket
	# of one still shutting down can fail to start), and a run whose screen
	# stayed empty (the terminal, not Claude) is tried once more; a trust
	# question on the screen is never retried.
	for n in 2 3; do
		S=$B/tmux$n.sock
		run_claude $n
		if wait_screen "$S" 'for shortcuts' && ! screen "$S" | grep -qF 'trust this folder'; then
			second=yes
		else
			screen "$S" > "$B/err"
		fi
		tmux -S "$S" send-keys -t a C-c; sleep 0.3; tmux -S "$S" send-keys -t a C-c
		for _ in $(seq 1 60); do [ -e "$B/exit$n" ] && break; sleep 0.5; done
		tmux -S "$S" kill-server 2>/dev/null
		{ [ $second = yes ] || grep -qF 'trust this folder' "$B/err"; } && break
	done
	if [ $trusted = yes ] && [ $second = yes ] &&
	   python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d["projects"][sys.argv[2]]["hasTrustDialogAccepted"] else 1)' \
		"$HOME/.claude-sbx/.claude.json" "$W" && [ ! -e "$HOME/.claude.json" ]; then ok
	else [ $second = yes ] && cp "$B/err1" "$B/err" 2>/dev/null; bad "trusted=$trusted second=$second"; fi
fi

ta codex_app_server_answers_initialize_and_keeps_its_state
if agent codex; then
	export PATH="$AG/node_modules/.bin:$ORIG_PATH"
	req='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"sbx-test","version":"0.1"}}}'
	# stdin stays open until the answer is there, then closes: codex exits
	( echo "$req"; for _ in $(seq 1 120); do grep -q '"id":1' "$B/out" 2>/dev/null && break; sleep 0.5; done ) |
		timeout 90 "$SBX" codex app-server >"$B/out" 2>"$B/err"
	if python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r=json.loads(l)
    if r.get("id")==1 and r["result"]["codexHome"]==sys.argv[2]: sys.exit(0)
sys.exit(1)' "$B/out" "$HOME/.codex-sbx" && [ -s "$HOME/.codex-sbx/state_5.sqlite" ] &&
	   [ ! -e "$HOME/.codex" ] && has 'is a static binary' err; then ok
	else bad "$(head -c 300 "$B/out")"; fi
fi

# The real Claude Code under its profile against a stand-in for the API on
# the host's loopback (mock-anthropic.py, reached with --host-port): the
# profile keeps ANTHROPIC_API_KEY (the requests carry it), withholds
# GITHUB_TOKEN, and the Read the model asks for of the person's own login
# (~/.claude/.credentials.json) gives the model nothing of it.
ta claude_answers_under_its_profile_with_its_key_kept_never_the_users_login
if agent claude; then
	mkdir -p "$HOME/.claude-sbx" "$HOME/.claude"
	echo '{"hasCompletedOnboarding":true}' > "$HOME/.claude-sbx/.claude.json"
	LOGIN="CLAUDE-LOGIN-$RANDOM$RANDOM"
	printf '{"claudeAiOauth":{"accessToken":"%s"}}\n' "$LOGIN" > "$HOME/.claude/.credentials.json"
	KEY="sk-ant-kept-$RANDOM$RANDOM"
	python3 "$SBX_BIN/mock-anthropic.py" "$B/port" "$B/api.log" "$HOME/.claude/.credentials.json" &
	mock=$!
	for _ in $(seq 200); do [ -s "$B/port" ] && break; sleep 0.1; done
	port=$(cat "$B/port")
	PATH="$AG/node_modules/.bin:$ORIG_PATH" ANTHROPIC_BASE_URL="http://127.0.0.1:$port" \
		ANTHROPIC_API_KEY="$KEY" GITHUB_TOKEN="gh-$LOGIN" \
		timeout 180 "$SBX" --host-port "$port" claude -p "read the file" --allowedTools Read --output-format json \
		>"$B/out" 2>"$B/err"
	RC=$?
	kill $mock; wait $mock 2>/dev/null
	keyed=$(python3 -c 'import json,sys
n=0
for l in open(sys.argv[1]):
    h={k.lower(): v for k, v in json.loads(l)["headers"].items()}
    n += h.get("x-api-key") == sys.argv[2]
print(n)' "$B/api.log" "$KEY" 2>/dev/null)
	if [ $RC -eq 0 ] && has '"result":"done"' out && [ "${keyed:-0}" -ge 1 ] &&
	   ! grep -qF "$LOGIN" "$B/api.log" && hasf ', 1 secret variable withheld' err; then ok
	else bad "rc=$RC keyed=$keyed login-in-api=$(grep -c "$LOGIN" "$B/api.log" 2>/dev/null) $(head -c 200 "$B/out")"; fi
fi

# The real Codex reads the login of its own CODEX_HOME under its profile
# (the credential row ~/.codex-sbx/auth.json, lifted by codex.ini), and
# nothing of it under another profile.
ta codex_reads_its_own_login_under_its_profile_only
if agent codex; then
	export PATH="$AG/node_modules/.bin:$ORIG_PATH"
	mkdir -p "$HOME/.codex-sbx"
	printf '{"OPENAI_API_KEY":"sk-test-canary%s"}\n' "$RANDOM$RANDOM" > "$HOME/.codex-sbx/auth.json"
	tail4=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["OPENAI_API_KEY"][-4:])' "$HOME/.codex-sbx/auth.json")
	sx codex login status; own=$RC; cat "$B/out" "$B/err" > "$B/own" # it answers on stderr
	CODEX_HOME="$HOME/.codex-sbx" sx --profile mcp -- codex login status
	if [ $own -eq 0 ] && grep -qF "$tail4" "$B/own" && [ $RC -ne 0 ] && ! hasf "$tail4" out &&
	   ! hasf "$tail4" err; then ok
	else bad "own rc=$own ($(head -c 100 "$B/own")) mcp rc=$RC ($(head -c 100 "$B/out"))"; fi
fi

ta gemini_starts_under_its_profile
if agent gemini; then
	export PATH="$AG/node_modules/.bin:$ORIG_PATH"
	sx gemini --version
	if [ $RC -eq 0 ] && grep -qE '^[0-9]+\.[0-9]+' "$B/out"; then ok; else bad "rc=$RC $(cat "$B/out")"; fi
fi

# ---- reports and the terminal ([report] stderr, --report-fd, --report-file)

# tui_run MODE: under tmux, less shows $W/page while a background job
# reads the denied key once the test writes to the fifo $W/go. Sets SCREEN
# (while less runs, after the refusal was logged) and AFTER (after exit).
tui_run() {
	local S=$B/tmux.sock
	seq 1 200 | sed 's/^/page line /' > "$W/page"
	mkfifo "$W/go"
	mkdir -p "$HOME/.config/sbx"
	[ -n "$1" ] && printf '[report]\nstderr = %s\n' "$1" > "$HOME/.config/sbx/sandbox.ini"
	tmux -S "$S" new-session -d -s a -x 100 -y 30 \
		"cd '$W'; HOME='$HOME' '$SBX' --log '$B/log' -- sh -c '(read x < go; cat ~/.ssh/id_ed25519 >/dev/null 2>&1) & exec less page'; echo EXIT=\$?; sleep 60"
	SCREEN="" AFTER=""
	wait_screen "$S" 'page line 1' || return 1
	echo go > "$W/go"
	# the audit log gets the refusal at once, whatever the terminal does
	for _ in $(seq 1 120); do grep -q '"decision":"deny"' "$B/log" 2>/dev/null && break; sleep 0.5; done
	grep -q '"decision":"deny"' "$B/log" || return 1
	sleep 0.5 # the supervisor's quiet interval (3 ms) passed many times over
	SCREEN=$(screen "$S")
	tmux -S "$S" send-keys -t a q
	wait_screen "$S" 'EXIT=' || return 1
	AFTER=$(tmux -S "$S" capture-pane -p -S - -t a 2>/dev/null)
	tmux -S "$S" kill-server 2>/dev/null
}
denied_line='denied read of ~/.ssh/id_ed25519'

ta full_screen_program_is_not_drawn_over_reports_wait_for_its_exit
if command -v tmux >/dev/null && command -v less >/dev/null; then
	if tui_run "" && ! grep -qF 'sbx:' <<<"$SCREEN" && grep -qF 'page line 1' <<<"$SCREEN" &&
	   grep -qF "$denied_line" <<<"$AFTER" &&
	   grep -qF 'sbx: reports held while the terminal was in full-screen use:' <<<"$AFTER"; then ok
	else bad "screen while less ran: $(grep -F sbx: <<<"$SCREEN" | head -2) / after: $(tail -5 <<<"$AFTER")"; fi
else skip "tmux or less is not installed"; fi

ta report_stderr_live_draws_over_the_full_screen_program
if command -v tmux >/dev/null && command -v less >/dev/null; then
	if tui_run live && grep -qF "$denied_line" <<<"$SCREEN"; then ok
	else bad "the live line did not reach the screen: $(tail -3 <<<"$SCREEN")"; fi
else skip "tmux or less is not installed"; fi

ta report_stderr_off_says_nothing_the_log_has_it
sx_off() { mkdir -p "$HOME/.config/sbx"; printf '[report]\nstderr = off\n' > "$HOME/.config/sbx/sandbox.ini"; }
sx_off
sx --log "$B/log" -- sh -c 'cat ~/.ssh/id_ed25519; true'
if ! has "$denied_line" err && ! has 'denied read' err && grep -q '"decision":"deny"' "$B/log" &&
   ! grep -q "$SECRET" "$B/out"; then ok
else bad "$(cat "$B/err")"; fi

ta report_stderr_end_holds_lines_until_the_end
mkdir -p "$HOME/.config/sbx"; printf '[report]\nstderr = end\n' > "$HOME/.config/sbx/sandbox.ini"
sx -- sh -c 'cat ~/.ssh/id_ed25519 2>/dev/null; echo after-the-refusal >&2'
# the program's own later line comes first: ours waited for the end
if [ "$(grep -n 'after-the-refusal' "$B/err" | cut -d: -f1)" -lt "$(grep -nF "$denied_line" "$B/err" | cut -d: -f1)" ] &&
   hasf 'sbx: reports held while COMMAND ran ([report] stderr = end):' err; then ok
else bad "$(cat "$B/err")"; fi

ta report_fd_takes_the_lines_and_command_never_gets_it
sx --report-fd 3 -- sh -c 'cat ~/.ssh/id_ed25519 2>/dev/null; (echo forged >&3) 2>/dev/null; if [ -e /proc/$$/fd/3 ]; then echo has3; else echo no3; fi > fds' 3>"$B/second"
if hasf "$denied_line" second && ! hasf "$denied_line" err && ! grep -q forged "$B/second" &&
   [ "$(cat "$W/fds")" = no3 ]; then ok
else bad "second: $(cat "$B/second") err: $(cat "$B/err")"; fi

ta report_file_takes_the_lines
sx --report-file "$B/second" -- sh -c 'cat ~/.ssh/id_ed25519 2>/dev/null; true'
if hasf "$denied_line" second && ! hasf "$denied_line" err; then ok
else bad "second: $(cat "$B/second" 2>/dev/null)"; fi

ta report_fd_that_is_not_open_stops_the_run
sx --report-fd 9 -- sh -c "touch $W/ran"
if [ $RC -eq 125 ] && [ ! -e "$W/ran" ] && has 'report-fd 9: not an open descriptor' err; then ok
else bad "rc=$RC"; fi

# ---- where Node and Python really call (shim/symbols.def: realpath, scandir)

ta node_realpath_native_of_a_denied_path_is_explained
if command -v node >/dev/null; then
	sx --log "$B/log" -- node -e 'try { require("fs").realpathSync.native(process.env.HOME + "/.ssh/id_ed25519"); console.log("resolved") } catch (e) { console.log(e.code) }'
	if [ "$(cat "$B/out")" = EACCES ] && hasf 'denied read of ~/.ssh/id_ed25519' err &&
	   grep -q '"op":"read".*"target":"[^"]*/.ssh/id_ed25519"' "$B/log"; then ok
	else bad "out=$(cat "$B/out")"; fi
else skip "node is not installed"; fi

ta c_realpath_and_scandir_of_a_denied_path_are_explained
sx -- python3 -c '
import ctypes, os
libc = ctypes.CDLL(None)
libc.realpath.restype = ctypes.c_char_p
print(libc.realpath((os.environ["HOME"] + "/.ssh/id_ed25519").encode(), None))
n = libc.scandir((os.environ["HOME"] + "/.ssh").encode(), ctypes.byref(ctypes.c_void_p()), None, None)
print(n)'
if [ "$(tr '\n' ' ' < "$B/out")" = "None -1 " ] && hasf 'denied read of ~/.ssh/id_ed25519' err &&
   hasf 'denied read of ~/.ssh by' err && ! has "$SECRET" out; then ok
else bad "out=$(cat "$B/out")"; fi

echo "# agents.sh: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
