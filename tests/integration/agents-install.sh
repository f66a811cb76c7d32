#!/bin/bash
# Install the real agents the agents.sh suite runs, from the npm registry,
# into DIR (kept between runs: npm only checks what is there). Never fails
# the run: without the registry, agents.sh skips those tests and says why.
dir=$1
# Pinned: a test of what an agent sends its model is a test of that
# version; a new release is taken on purpose, with these tests run again.
pkgs="@anthropic-ai/claude-code@2.1.197 @openai/codex@0.171.0 @google/gemini-cli@0.61.0
      @modelcontextprotocol/server-filesystem@2026.8.31 @modelcontextprotocol/sdk@1.32.2"
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
