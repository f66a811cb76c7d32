#!/bin/bash
# Install the real agents the agents.sh suite runs, from the npm registry,
# into DIR (kept between runs: npm only checks what is there). Never fails
# the run: without the registry, agents.sh skips those tests and says why.
dir=$1
pkgs="@anthropic-ai/claude-code @openai/codex @google/gemini-cli
      @modelcontextprotocol/server-filesystem @modelcontextprotocol/sdk"
command -v npm >/dev/null || { echo "# agents: npm is not installed"; exit 0; }
mkdir -p "$dir" || exit 0
# shellcheck disable=SC2086
if ! timeout 600 npm install --prefix "$dir" --no-audit --no-fund --loglevel=error \
	$pkgs >"$dir/install.log" 2>&1; then
	echo "# agents: npm install failed (see $dir/install.log)"
	echo "failed" > "$dir/install.status"
else
	echo "ok" > "$dir/install.status"
fi
chmod -R a+rX "$dir"
exit 0
