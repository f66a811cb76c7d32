#!/bin/bash
# The real agents end to end (`make check-agents`, issue 24): Claude Code,
# Codex and Gemini CLI from the npm registry, at the versions
# agents-install.sh pins, each under its profile (`sbx-preload claude`,
# `codex`, `gemini`), driven by a scripted model on the host's loopback
# (fake-model.py, reached with --host-port: the Anthropic Messages API, the
# OpenAI Responses API, the Gemini API). The model asks for shell commands;
# the test reads, in what the agent sent back, the tool results the model
# received, and the host's files.
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

# model_start SCRIPT-JSON: the scripted model on a free loopback port
# ($port; $model its pid), logging every request to $B/api.log
model_start() {
	printf '%s\n' "$1" > "$B/script.json"
	rm -f "$B/port" "$B/api.log"
	python3 "$SBX_BIN/fake-model.py" "$B/port" "$B/api.log" "$B/script.json" & model=$!
	for _ in $(seq 200); do [ -s "$B/port" ] && break; sleep 0.1; done
	port=$(cat "$B/port")
}
# model_stop: the model gone; every tool result it received, in order, one
# JSON string a line, in $B/results (in each API's own shape: Anthropic's
# tool_result, OpenAI's *_call_output, Gemini's functionResponse)
model_stop() {
	kill "$model" 2>/dev/null; wait "$model" 2>/dev/null
	python3 - "$B/api.log" > "$B/results" <<'EOF'
import json, sys
seen = set()
def text(c):
    if isinstance(c, str):
        return c
    if isinstance(c, dict):
        return c.get("output") or c.get("error") or json.dumps(c)
    return "".join(x.get("text", "") for x in c or [])
def say(key, t):
    if key not in seen:
        seen.add(key)
        print(json.dumps(t))
for line in open(sys.argv[1]):
    body = json.loads(line)["body"]
    for m in body.get("messages", []):  # Anthropic
        if isinstance(m.get("content"), list):
            for c in m["content"]:
                if c.get("type") == "tool_result":
                    say(c.get("tool_use_id"), text(c["content"]))
    for i in body.get("input", []) if isinstance(body.get("input"), list) else []:  # OpenAI
        if str(i.get("type", "")).endswith("_call_output"):
            say(i.get("call_id"), text(i.get("output")))
    for c in body.get("contents", []):  # Gemini
        for p in c.get("parts", []):
            if "functionResponse" in p:
                f = p["functionResponse"]
                say(f.get("id") or f.get("name"), text(f.get("response")))
EOF
}
# shell_script AGENT CMD...: the model's script, each CMD one call of
# AGENT's shell tool (Claude's Bash; Codex's exec, a JavaScript cell that
# calls tools.exec_command; Gemini's run_shell_command)
shell_script() {
	python3 - "$@" <<'EOF'
import json, sys
agent, cmds = sys.argv[1], sys.argv[2:]
def step(c):
    if agent == "claude":
        return {"tool": "Bash", "input": {"command": c, "description": "a step"}}
    if agent == "codex":
        return {"tool": "exec", "input": "const r = await tools.exec_command(%s);\ntext(r.output);"
                % json.dumps({"cmd": c})}
    return {"tool": "run_shell_command", "input": {"command": c}}
print(json.dumps([step(c) for c in cmds]))
EOF
}

# claude_run SCRIPT-JSON [SBX-OPTION...]: `sbx-preload claude -p` in $W
# against the scripted model; the tool results in $B/results, the agent's
# own output in $B/out, sbx's lines in $B/err. TOOLS: the tools Claude may
# use unasked.
TOOLS=Bash
claude_run() {
	model_start "$1"
	shift
	(cd "$W" && PATH="$AG/node_modules/.bin:$PATH" ANTHROPIC_BASE_URL="http://127.0.0.1:$port" \
		ANTHROPIC_API_KEY=sk-ant-offline-test timeout 180 "$SBX" --host-port "$port" "$@" \
		claude -p "do the task" --allowedTools "$TOOLS" </dev/null >"$B/out" 2>"$B/err")
	RC=$?
	model_stop
}

# codex_run SCRIPT-JSON [SBX-OPTION...]: `sbx-preload codex exec` in $W
# against the scripted model, a provider of its own (the Responses API on
# loopback); the rest as claude_run.
codex_run() {
	model_start "$1"
	shift
	(cd "$W" && PATH="$AG/node_modules/.bin:$PATH" OPENAI_API_KEY=sk-offline-test timeout 180 \
		"$SBX" --host-port "$port" "$@" codex exec --skip-git-repo-check -c model_provider=fake \
		-c "model_providers.fake={name=\"fake\",base_url=\"http://127.0.0.1:$port/v1\",wire_api=\"responses\",env_key=\"OPENAI_API_KEY\"}" \
		"do the task" </dev/null >"$B/out" 2>"$B/err")
	RC=$?
	model_stop
}

# gemini_run SCRIPT-JSON [SBX-OPTION...]: `sbx-preload gemini --yolo -p` in
# $W against the scripted model (GOOGLE_GEMINI_BASE_URL); the rest as
# claude_run. An API key with a base URL of one's own is Gemini CLI's
# "gateway" way in, which its non-interactive mode refuses unless
# settings.json chooses the key; the workspace is trusted as a CI job
# trusts it (GEMINI_CLI_TRUST_WORKSPACE), else --yolo falls back to asking
# and nobody answers.
GEMINI_SETTINGS='{"security": {"auth": {"selectedType": "gemini-api-key"}}}'
gemini_run() {
	model_start "$1"
	shift
	mkdir -p "$HOME/.gemini-sbx/.gemini"
	printf '%s\n' "$GEMINI_SETTINGS" > "$HOME/.gemini-sbx/.gemini/settings.json"
	(cd "$W" && PATH="$AG/node_modules/.bin:$PATH" GEMINI_API_KEY=offline-test \
		GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$port" GEMINI_CLI_TRUST_WORKSPACE=true timeout 180 \
		"$SBX" --host-port "$port" "$@" gemini --yolo -p "do the task" </dev/null >"$B/out" 2>"$B/err")
	RC=$?
	model_stop
}

# result N: the Nth tool result the model received (1-based), as text
result() { sed -n "$1p" "$B/results" | python3 -c 'import json,sys; print(json.loads(sys.stdin.read() or "\"\""))'; }

# The model asks, through each agent's own shell tool, to read a key and to
# write outside the workspace: what it receives says what was refused, by
# which rule, and what to ask the user for (the shim's tell_program line,
# on in the profiles: Claude's Bash tool gives the command a regular file,
# Codex a pipe each for stdout and stderr, Gemini CLI a socketpair each);
# the key's content never reaches it, the file is not made.
READ_LINE='sbx: read of ~/.ssh/id_ed25519 refused by policy (deny_read = ~/.ssh); ask the user to allow it with --allow-read ~/.ssh/id_ed25519'
WRITE_LINE='sbx: write to ~/outside.txt refused by policy (outside the writable paths); ask the user to allow it with'
for a in claude codex gemini; do
	t "${a}_model_receives_why_a_read_and_a_write_were_refused"
	agent "$a" || continue
	"${a}_run" "$(shell_script "$a" 'cat ~/.ssh/id_ed25519' 'echo x > ~/outside.txt')"
	r1=$(result 1); r2=$(result 2)
	if [ $RC -eq 0 ] && grep -qx done "$B/out" &&
	   [[ $r1 == *"$READ_LINE"* ]] && [[ $r2 == *"$WRITE_LINE"* ]] &&
	   [ ! -e "$HOME/outside.txt" ] && ! grep -qF "$SECRET" "$B/api.log" &&
	   hasf 'denied read of ~/.ssh/id_ed25519' err; then ok
	else bad "rc=$RC r1=[$r1] r2=[$r2] out=$(head -c 200 "$B/out")"; fi
done

# The model asks to fetch from a host the profile does not allow, through
# the proxy (curl honours HTTPS_PROXY and asks it to CONNECT): what it
# receives says which host, why, and the flag, not a bare 403.
CONNECT_LINE='sbx: connect to example.com:443 refused by policy (not in allow_domains); ask the user to allow it with --allow-domain example.com'
for a in claude codex gemini; do
	t "${a}_model_receives_why_a_connect_was_refused"
	agent "$a" || continue
	"${a}_run" "$(shell_script "$a" 'curl -sS https://example.com/ -o /dev/null')"
	r1=$(result 1)
	if [ $RC -eq 0 ] && [[ $r1 == *"$CONNECT_LINE"* ]] && [[ $r1 == *"response 403"* ]] &&
	   hasf 'denied connect to example.com:443' err; then ok
	else bad "rc=$RC r1=[$r1]"; fi
done

# git's everyday work in a repository that existed before the run, through
# each agent's shell tool: the model's commit lands on the host, and a hook
# it plants does not (the model hears why). The hook's `$$` keeps Claude
# Code's own check (which asks before a plain printf into .git/hooks) out
# of the way: the agent's caution is not the boundary.
for a in claude codex gemini; do
	t "${a}_commits_in_an_existing_repository_and_plants_no_hook"
	agent "$a" || continue
	git -C "$W" init -q -b main && git -C "$W" config user.name sbx-test &&
		git -C "$W" config user.email sbx@test && git -C "$W" config commit.gpgsign false &&
		echo a > "$W/a" && git -C "$W" add a && git -C "$W" commit -qm first
	"${a}_run" "$(shell_script "$a" 'echo b > b && git add b && git commit -qm from-the-agent && echo COMMITTED' \
		'printf "#!/bin/sh\ntouch /var/tmp/sbx-e2e-pwned-$$\n" > .git/hooks/post-commit; chmod +x .git/hooks/post-commit')"
	r1=$(result 1); r2=$(result 2)
	if [ $RC -eq 0 ] && [[ $r1 == *COMMITTED* ]] &&
	   [ "$(git -C "$W" log -1 --format=%s)" = from-the-agent ] &&
	   [ "$(git -C "$W" show HEAD:b 2>/dev/null)" = b ] &&
	   [ ! -e "$W/.git/hooks/post-commit" ] &&
	   [[ $r2 == *"sbx: write to "*".git/hooks/post-commit refused by policy"* ]]; then ok
	else bad "rc=$RC log=$(git -C "$W" log -1 --format=%s) r1=[$r1] r2=[$r2]"; fi
done

# Claude Code's own tools run inside claude, where the shim cannot tell the
# model anything: the claude profile gives it sbx's PreToolUse hook
# (--settings), which judges by this run's policy: the profile's rules, the
# flags (a --deny-read only this run has) and the built-in ones.
t claude_own_tools_refused_with_the_reason_by_the_profiles_hook
if agent claude; then
	echo "flagged-$RANDOM" > "$W/flagged.txt"
	TOOLS=Read,Write
	claude_run "[{\"tool\": \"Read\", \"input\": {\"file_path\": \"$HOME/.ssh/id_ed25519\"}},
	 {\"tool\": \"Write\", \"input\": {\"file_path\": \"$HOME/outside.txt\", \"content\": \"x\"}},
	 {\"tool\": \"Read\", \"input\": {\"file_path\": \"$W/flagged.txt\"}},
	 {\"tool\": \"Write\", \"input\": {\"file_path\": \"$W/made.txt\", \"content\": \"made-by-the-model\"}}]" \
		--deny-read "$W/flagged.txt"
	TOOLS=Bash
	r1=$(result 1); r2=$(result 2); r3=$(result 3)
	if [ $RC -eq 0 ] &&
	   [[ $r1 == *"sbx: the sandbox denies reading ~/.ssh/id_ed25519: \`deny_read = ~/.ssh\`"* ]] &&
	   [[ $r2 == *"sbx: the sandbox denies writing ~/outside.txt: it is outside every writable area"* ]] &&
	   [[ $r3 == *"sbx: the sandbox denies reading"*"flagged.txt"*"--deny-read"* ]] &&
	   [ "$(cat "$W/made.txt" 2>/dev/null)" = made-by-the-model ] &&
	   [ ! -e "$HOME/outside.txt" ] && ! grep -qF "$SECRET" "$B/api.log" &&
	   ! grep -qF "$(cat "$W/flagged.txt")" "$B/api.log"; then ok
	else bad "rc=$RC r1=[$r1] r2=[$r2] r3=[$r3] made=$(cat "$W/made.txt" 2>/dev/null)"; fi
fi

# Codex under its profile: its own sandbox off (sbx is the sandbox: inside,
# its bubblewrap could not start and every command would fail), and none
# of its start-up traffic (plugin marketplace clone, analytics, update
# check), each a refusal that drowned real ones.
t codex_runs_with_its_own_sandbox_off_and_starts_quietly
if agent codex; then
	codex_run '[]'
	if [ $RC -eq 0 ] && grep -qx done "$B/out" && hasf 'sandbox: danger-full-access' err &&
	   hasf 'sbx: the profile runs the command as: codex -c sandbox_mode="danger-full-access"' err &&
	   grep -q '/v1/responses' "$B/api.log" && ! grep -q '^sbx: denied' "$B/err" &&
	   ! hasf 'github.com' err && ! hasf 'chatgpt.com' err; then ok
	else bad "rc=$RC out=$(head -c 200 "$B/out") sbx: $(grep '^sbx:' "$B/err" | head -6 | tr '\n' '|')"; fi
fi

# Gemini CLI sends usage statistics to play.googleapis.com at every start,
# which no rule allows: one refusal a run (in the audit log, whether or not
# the terminal shows it), until its settings turn them off as
# docs/RECIPES.md says.
t gemini_starts_quietly_with_usage_statistics_off
if agent gemini; then
	gemini_run '[]' --log "$B/log1"
	GEMINI_SETTINGS='{"privacy": {"usageStatisticsEnabled": false}, "security": {"auth": {"selectedType": "gemini-api-key"}}}'
	gemini_run '[]' --log "$B/log2"
	GEMINI_SETTINGS='{"security": {"auth": {"selectedType": "gemini-api-key"}}}'
	loud=$(grep -c 'play.googleapis.com' "$B/log1" 2>/dev/null)
	if [ $RC -eq 0 ] && grep -qx done "$B/out" && [ "${loud:-0}" -ge 1 ] &&
	   ! grep -q '"deny"' "$B/log2" 2>/dev/null && ! grep -q '^sbx: denied' "$B/err" &&
	   grep -q 'generateContent' "$B/api.log"; then ok
	else bad "rc=$RC loud=$loud log2=$(head -c 300 "$B/log2" 2>/dev/null)"; fi
fi

echo "# $(id -un) (agents-e2e): $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
