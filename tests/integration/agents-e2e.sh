#!/bin/bash
# The real agents end to end (`make check-agents`, issue 24): Claude Code
# from the npm registry, at the version agents-install.sh pins, under
# `sbx-preload claude` (its profile), driven by a scripted model on the
# host's loopback (fake-model.py, reached with --host-port). The model asks
# for shell commands; the test reads, in what the agent sent back, the tool
# results the model received, and the host's files.
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

# claude_run SCRIPT-JSON [SBX-OPTION...]: `sbx-preload claude -p` in $W
# against the scripted model; every tool result the model received, one
# JSON string a line, in $B/results; the agent's own output in $B/cc.out,
# sbx's lines in $B/err. TOOLS: the tools Claude may use unasked.
TOOLS=Bash
claude_run() {
	printf '%s\n' "$1" > "$B/script.json"
	shift
	rm -f "$B/port" "$B/api.log"
	python3 "$SBX_BIN/fake-model.py" "$B/port" "$B/api.log" "$B/script.json" & local model=$!
	for _ in $(seq 200); do [ -s "$B/port" ] && break; sleep 0.1; done
	local port
	port=$(cat "$B/port")
	(cd "$W" && PATH="$AG/node_modules/.bin:$PATH" ANTHROPIC_BASE_URL="http://127.0.0.1:$port" \
		ANTHROPIC_API_KEY=sk-ant-offline-test timeout 180 "$SBX" --host-port "$port" "$@" \
		claude -p "do the task" --allowedTools "$TOOLS" >"$B/cc.out" 2>"$B/err")
	RC=$?
	kill $model 2>/dev/null; wait $model 2>/dev/null
	python3 - "$B/api.log" > "$B/results" <<'EOF'
import json, sys
seen = set()
for line in open(sys.argv[1]):
    for m in json.loads(line)["body"].get("messages", []):
        if isinstance(m.get("content"), list):
            for c in m["content"]:
                if c.get("type") == "tool_result" and c.get("tool_use_id") not in seen:
                    seen.add(c.get("tool_use_id"))
                    t = c["content"] if isinstance(c["content"], str) else \
                        "".join(x.get("text", "") for x in c["content"])
                    print(json.dumps(t))
EOF
}
# result N: the Nth tool result the model received (1-based), as text
result() { sed -n "$1p" "$B/results" | python3 -c 'import json,sys; print(json.loads(sys.stdin.read() or "\"\""))'; }

# The model asks to read a key and to write outside the workspace: what it
# receives says what was refused, by which rule, and what to ask the user
# for; the key's content never reaches it, the file is not made.
t claude_model_receives_why_a_read_and_a_write_were_refused
if agent claude; then
	claude_run "[{\"tool\": \"Bash\", \"input\": {\"command\": \"cat ~/.ssh/id_ed25519\", \"description\": \"read the key\"}},
	 {\"tool\": \"Bash\", \"input\": {\"command\": \"echo x > ~/outside.txt\", \"description\": \"write outside\"}}]"
	r1=$(result 1); r2=$(result 2)
	if [ $RC -eq 0 ] && grep -qx done "$B/cc.out" &&
	   [[ $r1 == *"sbx: read of ~/.ssh/id_ed25519 refused by policy (deny_read = ~/.ssh); ask the user to allow it with --allow-read ~/.ssh/id_ed25519"* ]] &&
	   [[ $r2 == *"sbx: write to ~/outside.txt refused by policy (outside the writable paths); ask the user to allow it with"* ]] &&
	   [ ! -e "$HOME/outside.txt" ] && ! grep -qF "$SECRET" "$B/api.log" &&
	   hasf 'denied read of ~/.ssh/id_ed25519' err; then ok
	else bad "rc=$RC r1=[$r1] r2=[$r2] out=$(head -c 200 "$B/cc.out")"; fi
fi

# git's everyday work in a repository that existed before the run: the
# model's commit lands on the host, and a hook it plants does not.
t claude_commits_in_an_existing_repository_and_plants_no_hook
if agent claude; then
	git -C "$W" init -q -b main && git -C "$W" config user.name sbx-test &&
		git -C "$W" config user.email sbx@test && git -C "$W" config commit.gpgsign false &&
		echo a > "$W/a" && git -C "$W" add a && git -C "$W" commit -qm first
	claude_run '[{"tool": "Bash", "input": {"command": "echo b > b && git add b && git commit -qm from-the-agent && echo COMMITTED", "description": "commit"}},
	 {"tool": "Bash", "input": {"command": "printf \"#!/bin/sh\\ntouch /var/tmp/sbx-e2e-pwned-$$\\n\" > .git/hooks/post-commit; chmod +x .git/hooks/post-commit", "description": "plant a hook"}}]'
	r1=$(result 1); r2=$(result 2)
	if [ $RC -eq 0 ] && [[ $r1 == *COMMITTED* ]] &&
	   [ "$(git -C "$W" log -1 --format=%s)" = from-the-agent ] &&
	   [ ! -e "$W/.git/hooks/post-commit" ] &&
	   [[ $r2 == *"sbx: write to "*".git/hooks/post-commit refused by policy"* ]]; then ok
	else bad "rc=$RC log=$(git -C "$W" log -1 --format=%s) r1=[$r1] r2=[$r2]"; fi
fi

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
	printf '[]\n' > "$B/script.json"
	python3 "$SBX_BIN/fake-model.py" "$B/port" "$B/api.log" "$B/script.json" & model=$!
	for _ in $(seq 200); do [ -s "$B/port" ] && break; sleep 0.1; done
	port=$(cat "$B/port")
	(cd "$W" && PATH="$AG/node_modules/.bin:$PATH" OPENAI_API_KEY=sk-offline-test timeout 180 \
		"$SBX" --host-port "$port" codex exec --skip-git-repo-check -c model_provider=fake \
		-c "model_providers.fake={name=\"fake\",base_url=\"http://127.0.0.1:$port/v1\",wire_api=\"responses\",env_key=\"OPENAI_API_KEY\"}" \
		"say done" </dev/null >"$B/out" 2>"$B/err")
	RC=$?
	kill $model 2>/dev/null; wait $model 2>/dev/null
	if [ $RC -eq 0 ] && grep -qx done "$B/out" && hasf 'sandbox: danger-full-access' err &&
	   hasf 'sbx: the profile runs the command as: codex -c sandbox_mode="danger-full-access"' err &&
	   grep -q '"/v1/responses"' "$B/api.log" && ! grep -q '^sbx: denied' "$B/err" &&
	   ! hasf 'github.com' err && ! hasf 'chatgpt.com' err; then ok
	else bad "rc=$RC out=$(head -c 200 "$B/out") sbx: $(grep '^sbx:' "$B/err" | head -6 | tr '\n' '|')"; fi
fi

echo "# $(id -un) (agents-e2e): $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
