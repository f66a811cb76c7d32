#!/bin/bash
# sbxctl, the management command (docs/SBXCTL.md), driven as a person and a
# script would: the wizard in a real terminal (tmux: send-keys, then the
# file it wrote), the Claude Code hook with the payloads Claude Code sends,
# the audit log a real run wrote, enable/disable against a real
# sbx-preload run. Every test asserts on files and lines, not on exit
# statuses alone. Helpers (t, ok, bad, skip, has, hasf) are in lib.sh.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CTL="$SBX_BIN/sbxctl"
INI=.config/sbx/sandbox.ini
# ctl ARGS: sbxctl, stdout in $B/out, stderr in $B/err, status in RC
ctl() { timeout 60 "$CTL" "$@" >"$B/out" 2>"$B/err"; RC=$?; }
# the setting lines of a sandbox.ini (no comments, no blank lines)
settings() { grep -v '^;' "$1" | sed '/^$/d'; }
if [ ! -x "$CTL" ]; then
	echo "# sbxctl not built: skipping the suite"
	exit 0
fi

# ---- a real terminal: tmux on a private socket
HAVE_TMUX=$(command -v tmux)
TM() { tmux -S "$B/tmux.sock" "$@"; }
# tm_run CMD...: run CMD in a fresh 150x60 terminal; its exit status goes
# to $B/exit when it ends
tm_run() {
	local cmd
	cmd=$(printf '%q ' "$@")
	TM new-session -d -x 150 -y 60 "$cmd; echo \$? > '$B/exit'; sleep 600"
}
tm_screen() { TM capture-pane -p -S -200; }
# wait_for TEXT: until the terminal shows TEXT (a wait, not an assertion:
# the test asserts on the file written afterwards)
wait_for() {
	for _ in $(seq 300); do
		tm_screen | grep -qF -- "$1" && return 0
		sleep 0.1
	done
	echo "# never showed: $1" >>"$B/err"
	tm_screen >>"$B/err"
	return 1
}
wait_exit() {
	for _ in $(seq 300); do
		[ -s "$B/exit" ] && return 0
		sleep 0.1
	done
	return 1
}
tm_done() { TM kill-server 2>/dev/null; }
keys() { TM send-keys "$@"; }

# ---- configure without a terminal

t configure_without_a_terminal_or_yes_refuses_and_writes_nothing
ctl configure </dev/null
if [ $RC -eq 2 ] && hasf 'not on a terminal' err && [ ! -e "$HOME/$INI" ]; then ok
else bad "rc=$RC, file: $(ls "$HOME/$INI" 2>&1)"; fi

t configure_yes_flags_written_file_holds_the_answers
ctl configure --workspace "$W" --isolation workspace --network custom --preset git \
	--allow-domain example.org --deny-read '~/.npmrc' --yes
f=$HOME/$INI
if [ $RC -eq 0 ] && settings "$f" > "$B/s" &&
   grep -qxF "workspace = $W" "$B/s" && grep -qxF 'isolation = workspace' "$B/s" &&
   grep -qxF 'deny_read = ~/.ssh, ~/.aws, ~/.gnupg, ~/.npmrc' "$B/s" &&
   grep -qxF 'allow_domains = github.com, *.github.com, *.githubusercontent.com, gitlab.com, bitbucket.org, codeberg.org, example.org' "$B/s" &&
   grep -qxF 'allow_local_binding = true' "$B/s" && [ "$(stat -c %a "$f")" = 600 ]; then ok
else bad "rc=$RC: $(tr '\n' '|' < "$B/s")"; fi

# The npm preset carries the one cache npm needs and checks by digest
# (~/.npm/_cacache), not the host alone: followed, npm install works in a
# HOME that has no ~/.npm, and ~/.npm/_npx (what npx runs later) stays
# refused (issue 24: npm failed after the preset, one line per temp file).
t configure_npm_preset_carries_its_cache_and_npm_install_works
ctl configure --workspace "$W" --isolation workspace --network custom --preset npm --yes
settings "$HOME/$INI" > "$B/s"
if [ $RC -ne 0 ] || ! grep -qxF 'allow_write = /tmp, ~/.npm/_cacache/' "$B/s"; then
	bad "rc=$RC: $(tr '\n' '|' < "$B/s")"
elif [ -z "${SBX_IT_AGENTS:-}" ]; then
	skip "installs from the npm registry: make check-agents runs it"
elif ! command -v npm >/dev/null || ! timeout 20 npm view is-number@7.0.0 version >/dev/null 2>&1; then
	skip "the npm registry cannot be reached from here"
else
	echo '{"name":"x","version":"1.0.0"}' > "$W/package.json"
	(cd "$W" && timeout 120 "$SBX" -- sh -c 'npm install --no-audit --no-fund is-number@7.0.0 >/dev/null 2>&1 && echo INSTALLED;
		mkdir -p ~/.npm/_npx/evil 2>/dev/null || echo NPX-REFUSED' >"$B/out" 2>"$B/err")
	if has INSTALLED out && has NPX-REFUSED out && [ -f "$W/node_modules/is-number/package.json" ] &&
	   [ ! -e "$HOME/.npm/_npx/evil" ] && ! has 'denied write of ~/.npm/_cacache' err; then ok
	else bad "$(cat "$B/out" | tr '\n' ' ') $(grep 'sbx:' "$B/err" | head -4 | tr '\n' '|')"; fi
fi

# the file read back by the policy itself: what status says, from where
t configure_file_read_back_by_status_with_its_lines
"$CTL" configure -w "$W" --isolation strict --network blocked --local-binding no --yes >/dev/null
line=$(grep -n '^isolation = strict' "$HOME/$INI" | cut -d: -f1)
ctl status --no-machine
if [ $RC -eq 0 ] && grep -qE "^  isolation +strict +~/$INI:$line\$" "$B/out" &&
   grep -qE '^  allow_domains +\(none: no network\)' "$B/out" &&
   grep -qE "^  allow_local_binding +false +~/$INI:" "$B/out" &&
   grep -qE "^  policy file: ~/$INI\$" "$B/out"; then ok
else bad "rc=$RC: $(grep -E 'isolation|allow_domains|local_binding|policy file' "$B/out" | tr '\n' '|')"; fi

t configure_network_allowed_opens_everything
ctl configure -w "$W" --network allowed --yes
ctl check --connect example.org:443 anything.test
if grep -qxF 'allow_domains = *' "$HOME/$INI" && [ $RC -eq 0 ] &&
   [ "$(grep -c '^allow connect' "$B/out")" = 2 ]; then ok
else bad "rc=$RC: $(cat "$B/out")"; fi

t configure_rejects_a_value_that_would_break_the_file
ctl configure --allow-domain 'a.com, evil.com' --yes
ctl2=$RC
ctl configure --deny-write $'x\n[network]' --yes
if [ $ctl2 -eq 2 ] && [ $RC -eq 2 ] && hasf 'may not be empty, hold a comma' err &&
   [ ! -e "$HOME/$INI" ]; then ok
else bad "rc=$ctl2/$RC"; fi

t configure_keeps_the_previous_file_as_bak
"$CTL" configure --network blocked --yes >/dev/null
cp "$HOME/$INI" "$B/first"
"$CTL" configure --network allowed --yes >/dev/null
if cmp -s "$B/first" "$HOME/$INI.bak" && grep -qxF 'allow_domains = *' "$HOME/$INI" &&
   [ "$(stat -c %a "$HOME/$INI.bak")" = 600 ]; then ok
else bad "bak: $(grep allow_domains "$HOME/$INI.bak")"; fi

# A crash between the write and the rename: the process is stopped there
# (SBX_TEST_STOP_BEFORE_RENAME, a hook of the test build sbxctl-hooks
# only), the temporary file is complete, then it is killed. The old file
# must be whole and unchanged.
t configure_killed_between_write_and_rename_leaves_the_old_file
"$CTL" configure --network blocked --yes >/dev/null
cp "$HOME/$INI" "$B/old"
SBX_TEST_STOP_BEFORE_RENAME=1 "$SBX_BIN/sbxctl-hooks" configure --network allowed --yes >/dev/null 2>&1 &
pid=$!
state=""
for _ in $(seq 300); do
	state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)
	[ "$state" = T ] && break
	sleep 0.1
done
# the new content, whole, under the temporary name (.sandbox.ini.PID.N.tmp)
tmpf=$(find "$HOME/.config/sbx" -name ".sandbox.ini.$pid.*.tmp" | head -1)
mid_same=no
cmp -s "$B/old" "$HOME/$INI" && mid_same=yes
kill -9 $pid; wait $pid 2>/dev/null
if [ "$state" = T ] && [ $mid_same = yes ] && cmp -s "$B/old" "$HOME/$INI" &&
   grep -qxF 'allow_domains = ' "$HOME/$INI" && [ -n "$tmpf" ] &&
   grep -qxF 'allow_domains = *' "$tmpf"; then ok
else bad "state=$state mid=$mid_same tmp=$tmpf: $(grep allow_domains "$HOME/$INI")"; fi

# sbxctl as installed has no such hook: with the variable set it writes
# and renames as always, and never stops.
t installed_sbxctl_ignores_the_stop_hook
"$CTL" configure --network blocked --yes >/dev/null
SBX_TEST_STOP_BEFORE_RENAME=1 timeout -s KILL 20 "$CTL" configure --network allowed --yes \
	>/dev/null 2>"$B/err"
rc=$?
if [ $rc = 0 ] && grep -qxF 'allow_domains = *' "$HOME/$INI" &&
   [ -z "$(find "$HOME/.config/sbx" -name '.sandbox.ini.*.tmp')" ]; then ok
else bad "rc=$rc: $(grep allow_domains "$HOME/$INI")"; fi

# ---- the wizard in a real terminal

# workspace from the default, strict, the sensitive list with ~/.npmrc
# added by space, network allowed, no local binding
t wizard_arrows_strict_network_allowed
if [ -z "$HAVE_TMUX" ]; then skip "no tmux"; else
tm_run env TERM=xterm-256color "$CTL" configure
wait_for 'Workspace root [~/projects]' && keys "$W" Enter
wait_for '> workspace' && keys Up Enter                       # strict
wait_for 'Which sensitive places' && keys Down Down Down Space Enter   # ~/.npmrc
wait_for 'Other places to hide' && keys Enter
wait_for 'Extra writable paths' && keys Enter
wait_for 'Never writable' && keys Enter
wait_for 'Network: what may' && keys Up Up Enter               # custom -> allowed
wait_for 'bind localhost ports' && keys n Enter
wait_for 'Write it?' && keys Enter
wait_exit
tm_done
settings "$HOME/$INI" > "$B/s" 2>/dev/null
if [ "$(cat "$B/exit" 2>/dev/null)" = 0 ] && grep -qxF "workspace = $W" "$B/s" &&
   grep -qxF 'isolation = strict' "$B/s" &&
   grep -qxF 'deny_read = ~/.ssh, ~/.aws, ~/.gnupg, ~/.npmrc' "$B/s" &&
   grep -qxF 'allow_write = /tmp' "$B/s" && grep -qxF 'deny_write = .env' "$B/s" &&
   grep -qxF 'allow_domains = *' "$B/s" && grep -qxF 'allow_local_binding = false' "$B/s"; then ok
else bad "exit=$(cat "$B/exit" 2>/dev/null): $(tr '\n' '|' < "$B/s")"; fi
fi

# workspace isolation, a custom path to hide, network blocked
t wizard_arrows_workspace_network_blocked
if [ -z "$HAVE_TMUX" ]; then skip "no tmux"; else
tm_run env TERM=xterm-256color "$CTL" configure
wait_for 'Workspace root' && keys Enter
wait_for '> workspace' && keys Enter
wait_for 'Which sensitive places' && keys Space Enter          # ~/.ssh stays (built in)
wait_for 'Other places to hide' && keys '~/notes, ~/.config/secret' Enter
wait_for 'Extra writable paths' && keys - Enter
wait_for 'Never writable' && keys '.env, *.pem' Enter
wait_for 'Network: what may' && keys Up Enter                  # blocked
wait_for 'bind localhost ports' && keys Enter
wait_for 'Write it?' && keys y Enter
wait_exit
tm_done
settings "$HOME/$INI" > "$B/s" 2>/dev/null
if [ "$(cat "$B/exit" 2>/dev/null)" = 0 ] && grep -qxF 'workspace = ~/projects' "$B/s" &&
   grep -qxF 'isolation = workspace' "$B/s" &&
   grep -qxF 'deny_read = ~/.ssh, ~/.aws, ~/.gnupg, ~/notes, ~/.config/secret' "$B/s" &&
   grep -qxF 'allow_write = ' "$B/s" && grep -qxF 'deny_write = .env, *.pem' "$B/s" &&
   grep -qxF 'allow_domains = ' "$B/s" && grep -qxF 'allow_local_binding = true' "$B/s"; then ok
else bad "exit=$(cat "$B/exit" 2>/dev/null): $(tr '\n' '|' < "$B/s")"; fi
fi

# custom isolation with its writable paths, custom network: two presets
# unchecked, a domain added
t wizard_arrows_custom_isolation_custom_network
if [ -z "$HAVE_TMUX" ]; then skip "no tmux"; else
tm_run env TERM=xterm-256color "$CTL" configure
wait_for 'Workspace root' && keys Enter
wait_for '> workspace' && keys Down Enter                      # custom
wait_for 'Writable paths' && keys '/srv/a, ~/b' Enter
wait_for 'Which sensitive places' && keys Enter
wait_for 'Other places to hide' && keys Enter
wait_for 'Extra writable paths' && keys Enter
wait_for 'Never writable' && keys Enter
wait_for 'Network: what may' && keys Enter                     # custom (default)
wait_for 'Allow these developer hosts' && keys Down Space Down Space Enter   # npm, pypi off
wait_for 'Other allowed domains' && keys '*.example.com, api.test:8443' Enter
wait_for 'bind localhost ports' && keys Enter
wait_for 'Summary' && wait_for 'Write it?' && keys Enter
wait_exit
tm_done
settings "$HOME/$INI" > "$B/s" 2>/dev/null
if [ "$(cat "$B/exit" 2>/dev/null)" = 0 ] && grep -qxF 'isolation = custom' "$B/s" &&
   grep -qxF 'allow_write = /srv/a, ~/b, /tmp, ~/.cargo/registry/index/, ~/.cargo/registry/cache/, ~/go/pkg/mod/cache/download/' "$B/s" &&
   grep -qxF 'allow_domains = github.com, *.github.com, *.githubusercontent.com, gitlab.com, bitbucket.org, codeberg.org, crates.io, index.crates.io, static.crates.io, proxy.golang.org, sum.golang.org, rubygems.org, index.rubygems.org, *.example.com, api.test:8443' "$B/s"; then ok
else bad "exit=$(cat "$B/exit" 2>/dev/null): $(tr '\n' '|' < "$B/s")"; fi
fi

# TERM=dumb: every question a numbered prompt, answered by number
t wizard_numbered_prompts_with_term_dumb
if [ -z "$HAVE_TMUX" ]; then skip "no tmux"; else
tm_run env TERM=dumb "$CTL" configure
wait_for 'Workspace root' && keys "$W" Enter
wait_for '3) custom' && wait_for 'Choice [2]:' && keys 3 Enter
wait_for 'Writable paths' && keys /srv/x Enter
wait_for 'Numbers to toggle' && keys '1 5' Enter                # 1 is built in: stays
wait_for '5) [x] ~/.bash_history' && keys Enter
wait_for 'Other places to hide' && keys Enter
wait_for 'Extra writable paths' && keys Enter
wait_for 'Never writable' && keys Enter
wait_for 'Network: what may' && wait_for 'Choice [3]:' && keys 2 Enter   # blocked
wait_for 'bind localhost ports' && keys n Enter
wait_for 'Write it?' && keys y Enter
wait_exit
tm_screen > "$B/screen"
tm_done
settings "$HOME/$INI" > "$B/s" 2>/dev/null
if [ "$(cat "$B/exit" 2>/dev/null)" = 0 ] && grep -qxF 'isolation = custom' "$B/s" &&
   grep -qxF 'allow_write = /srv/x, /tmp' "$B/s" &&
   grep -qxF 'deny_read = ~/.ssh, ~/.aws, ~/.gnupg, ~/.bash_history' "$B/s" &&
   grep -qxF 'allow_domains = ' "$B/s" && grep -qF 'built in: always hidden' "$B/screen" &&
   ! grep -q $'\033' "$B/screen"; then ok
else bad "exit=$(cat "$B/exit" 2>/dev/null): $(tr '\n' '|' < "$B/s")"; fi
fi

# The workspace answer goes on a line of its own: a `;` in it started an
# inline comment there (written as typed, read back as `~/p`); it is
# refused and asked again, as the list answers are.
t wizard_workspace_answer_that_would_break_the_file_is_asked_again
if [ -z "$HAVE_TMUX" ]; then skip "no tmux"; else
tm_run env TERM=dumb "$CTL" configure
wait_for 'Workspace root' && keys '~/p ; x' Enter
wait_for 'may not be empty, hold a comma' && keys "$W" Enter
wait_for 'Choice [2]:' && keys Enter
wait_for 'Numbers to toggle' && keys Enter
wait_for 'Other places to hide' && keys Enter
wait_for 'Extra writable paths' && keys Enter
wait_for 'Never writable' && keys Enter
wait_for 'Network: what may' && wait_for 'Choice [3]:' && keys 2 Enter
wait_for 'bind localhost ports' && keys Enter
wait_for 'Write it?' && keys y Enter
wait_exit
tm_done
settings "$HOME/$INI" > "$B/s" 2>/dev/null
if [ "$(cat "$B/exit" 2>/dev/null)" = 0 ] && grep -qxF "workspace = $W" "$B/s" &&
   ! grep -qF '~/p' "$HOME/$INI"; then ok
else bad "exit=$(cat "$B/exit" 2>/dev/null): $(tr '\n' '|' < "$B/s")"; fi
fi

# Ctrl-C in a list: nothing written, the terminal as it was (echo back on)
t wizard_ctrl_c_writes_nothing_and_restores_the_terminal
if [ -z "$HAVE_TMUX" ]; then skip "no tmux"; else
"$CTL" configure --network blocked --yes >/dev/null
cp "$HOME/$INI" "$B/old"
tm_run sh -c "TERM=xterm-256color '$CTL' configure; echo rc=\$?; stty -a | grep -o ' -\\?echo ' | head -1 > '$B/stty'"
wait_for 'Workspace root' && keys Enter
wait_for '> workspace' && keys C-c
wait_for 'Nothing written.'
wait_exit
tm_done
if grep -qx ' echo ' "$B/stty" && cmp -s "$B/old" "$HOME/$INI"; then ok
else bad "stty: $(cat "$B/stty" 2>/dev/null)"; fi
fi

# ---- enable / disable, against a real run

t disable_runs_unsandboxed_with_a_warning_enable_restores
printf '[filesystem]\n; mine\ndeny_write = *.key\n' > "$B/cfg.ini"
mkdir -p "$HOME/.config/sbx" && cp "$B/cfg.ini" "$HOME/$INI"
"$CTL" disable > "$B/dis" 2>&1
sx -- cat "$HOME/.ssh/id_ed25519"
off_out=$(cat "$B/out"); off_err=$(cat "$B/err")
"$CTL" enable > "$B/en" 2>&1
sx -- cat "$HOME/.ssh/id_ed25519"
if [ "$off_out" = "$SECRET" ] && [[ $off_err == *"WITHOUT a sandbox (sandboxing is disabled by \`enabled = false\` in ~/$INI"* ]] &&
   ! hasf "$SECRET" out && has 'denied read of ~/.ssh/id_ed25519' err &&
   grep -qxF 'enabled = true' "$HOME/$INI" && grep -qxF '; mine' "$HOME/$INI" &&
   grep -qxF 'deny_write = *.key' "$HOME/$INI" && grep -qxF 'enabled = false' "$HOME/$INI.bak"; then ok
else bad "off: $off_out / $off_err"; fi

# `sbxctl disable` runs the command and nothing else: bubblewrap, started
# before the policy is read, ran beside it ("bwrap: execvp .../sbx-init" on
# every run), and the command lost the caller's directory descriptors
# (held back from the sandbox, with a line saying so). A bubblewrap that records each start
# (SBX_BWRAP) says whether one ran; `sbxctl enable` brings it back.
t disable_runs_the_command_alone_enable_brings_the_sandbox_back
real_bwrap=""
for d in /usr/bin /usr/local/bin /bin; do [ -x "$d/bwrap" ] && { real_bwrap=$d/bwrap; break; }; done
printf '#!/bin/sh\necho "$$" >> %s/bwrap-started\nexec %s "$@"\n' "$B" "$real_bwrap" > "$B/bwrap-spy"
chmod 755 "$B/bwrap-spy"
"$CTL" disable > "$B/dis" 2>&1
SBX_BWRAP=$B/bwrap-spy sx -- sh -c 'cat ~/.ssh/id_ed25519; ls /proc/self/fd' 4<"$W"
off_rc=$RC; cp "$B/out" "$B/off.out"; cp "$B/err" "$B/off.err"
off_started=$([ -e "$B/bwrap-started" ] && echo yes || echo no)
"$CTL" enable > "$B/en" 2>&1
SBX_BWRAP=$B/bwrap-spy sx -- cat "$HOME/.ssh/id_ed25519"
if [ $off_rc -eq 0 ] && [ $off_started = no ] && grep -qxF "$SECRET" "$B/off.out" &&
   grep -qx 4 "$B/off.out" &&
   [ "$(wc -l < "$B/off.err")" -eq 1 ] && grep -q '^sbx: WARNING: running sh WITHOUT a sandbox' "$B/off.err" &&
   [ -s "$B/bwrap-started" ] && ! hasf "$SECRET" out && has 'denied read of ~/.ssh/id_ed25519' err; then ok
else bad "rc=$off_rc bwrap started while disabled: $off_started; out: $(tr '\n' '|' < "$B/off.out"); err: $(tr '\n' '|' < "$B/off.err")"; fi

# a project's sandbox.ini may turn it back on (it narrows): bubblewrap,
# not started for the user's `enabled = false`, is started then
t project_file_enables_a_disabled_sandbox
"$CTL" disable > "$B/dis" 2>&1
printf '[sandbox]\nenabled = true\n' > "$W/sandbox.ini"
sx -- cat "$HOME/.ssh/id_ed25519"
if [ $RC -ne 0 ] && ! hasf "$SECRET" out && has 'denied read of ~/.ssh/id_ed25519' err &&
   ! has WITHOUT err; then ok
else bad "rc=$RC"; fi

t project_file_cannot_disable_the_sandbox
printf '[sandbox]\nenabled = false\n' > "$W/sandbox.ini"
sx -- cat "$HOME/.ssh/id_ed25519"
if [ $RC -eq 125 ] && ! hasf "$SECRET" out && hasf 'sandbox.ini:2: `enabled = false` would widen the policy' err; then ok
else bad "rc=$RC"; fi

t disable_refuses_a_file_that_does_not_load
mkdir -p "$HOME/.config/sbx" && printf '[sandbox]\nisolation = loose\n' > "$HOME/$INI"
cp "$HOME/$INI" "$B/old"
ctl disable
if [ $RC -eq 2 ] && hasf 'sandbox.ini:2: `isolation` must be strict, workspace or custom' err &&
   cmp -s "$B/old" "$HOME/$INI"; then ok
else bad "rc=$RC"; fi

t status_says_disabled_by_the_environment
SBX_NO_SANDBOX=1 ctl status --no-machine
if [ $RC -eq 0 ] && hasf 'DISABLED in this environment by SBX_NO_SANDBOX=1' out; then ok
else bad "rc=$RC: $(head -3 "$B/out")"; fi

# ---- check, and the real sandbox agreeing with it

t check_names_the_rule_and_its_line_and_the_run_agrees
mkdir -p "$HOME/.config/sbx" "$HOME/notes"
echo private > "$HOME/notes/n.txt"
printf '[filesystem]\n; hide my notes\ndeny_read = ~/notes\n' > "$HOME/$INI"
ctl check --read "$HOME/notes/n.txt" /etc/hostname
cp "$B/out" "$B/check"
crc=$RC
sx -- cat "$HOME/notes/n.txt"
if [ $crc -eq 1 ] && grep -qF $'deny  read ~/notes/n.txt\tdeny_read = ~/notes\t~/.config/sbx/sandbox.ini:3' "$B/check" &&
   grep -qF 'allow read /etc/hostname' "$B/check" &&
   ! hasf private out && hasf 'by `deny_read = ~/notes` (~/.config/sbx/sandbox.ini:3)' err; then ok
else bad "check rc=$crc: $(cat "$B/check") / run: $(cat "$B/err")"; fi

t check_follows_a_link_planted_in_the_workspace
ln -s "$HOME/.ssh/id_ed25519" "$W/innocent.txt"
ctl check --read innocent.txt
if [ $RC -eq 1 ] && hasf "deny  read $W/innocent.txt (leads to ~/.ssh/id_ed25519)" out &&
   hasf 'deny_read = ~/.ssh' out; then ok
else bad "rc=$RC: $(cat "$B/out")"; fi

t check_write_and_connect_with_their_rules
ctl check --write "$W/src/a.c" .env /etc/passwd --connect github.com:443
if [ $RC -eq 1 ] && grep -qF "allow write $W/src/a.c" "$B/out" &&
   grep -qF $'deny  write '"$W"$'/.env\tdeny_write = .env\tdefault' "$B/out" &&
   grep -qF $'deny  write /etc/passwd\toutside every writable root' "$B/out" &&
   grep -qF 'deny  connect github.com:443' "$B/out" && grep -qF 'allow it with: --allow-domain github.com:443' "$B/out"; then ok
else bad "rc=$RC: $(cat "$B/out")"; fi

t check_usage_errors_exit_2
ctl check /etc/passwd
r1=$RC
ctl check --connect 'not a host'
if [ $r1 -eq 2 ] && [ $RC -eq 2 ] && hasf 'is not HOST, HOST:PORT or [V6]:PORT' err; then ok
else bad "rc=$r1/$RC"; fi

# ---- doctor

t doctor_passes_here_and_names_each_dependency
ctl doctor
if [ $RC -eq 0 ] && grep -qE '^ok +bubblewrap +bubblewrap [0-9]' "$B/out" &&
   grep -qE '^ok +user namespaces' "$B/out" && grep -qE "^ok +sbx-init +$SBX_BIN/sbx-init" "$B/out" &&
   grep -qF 'the sandbox can start' "$B/out"; then ok
else bad "rc=$RC: $(tr '\n' '|' < "$B/out")"; fi

t doctor_fails_when_bubblewrap_is_missing_and_says_why
SBX_BWRAP=/nonexistent/bwrap ctl doctor
if [ $RC -eq 1 ] && grep -qE '^FAIL +bubblewrap +SBX_BWRAP names /nonexistent/bwrap, which is not an executable file' "$B/out" &&
   hasf 'the sandbox cannot start' out; then ok
else bad "rc=$RC: $(tr '\n' '|' < "$B/out")"; fi

t doctor_fails_on_a_policy_the_build_cannot_apply
mkdir -p "$HOME/.config/sbx" && printf '[limits]\nmemory = 1G\n' > "$HOME/$INI"
ctl doctor
r1=$RC
printf '[sandbox]\nworkspace = %s/nowhere\n' "$B" > "$HOME/$INI"
ctl doctor
if [ $r1 -eq 1 ] && [ $RC -eq 1 ] && grep -qE '^FAIL +policy +does not load' "$B/out" &&
   hasf 'is not a directory' err; then ok
else bad "rc=$r1/$RC: $(tr '\n' '|' < "$B/out")"; fi

# Under the claude profile Claude reads ~/.claude-sbx, not ~/.claude: a
# hook set up in ~/.claude/settings.json (as for claude without sbx) is not
# loaded when the profile's claude_hook is off. doctor names the file and
# the fix; followed, a run hands claude the hook (a stand-in claude prints
# what it got).
t doctor_says_where_a_claude_hook_lives_that_the_profile_does_not_read
mkdir -p "$HOME/.claude" "$HOME/.config/sbx/profiles" "$B/bin"
printf '{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"sbxctl hook claude"}]}]}}\n' \
	> "$HOME/.claude/settings.json"
printf '[env]\nset = CLAUDE_CONFIG_DIR=~/.claude-sbx\n[filesystem]\nallow_write = ~/.claude-sbx/\n' \
	> "$HOME/.config/sbx/profiles/claude.ini"
printf '#!/bin/sh\necho "dir=$CLAUDE_CONFIG_DIR args=$*" > "$PWD/got"\n' > "$B/bin/claude"
chmod +x "$B/bin/claude"
ctl doctor
w1=$(grep 'claude hook' "$B/out")
PATH="$B/bin:$PATH" sx claude
got1=$(cat "$W/got" 2>/dev/null)
printf '[profile]\nclaude_hook = true\n' >> "$HOME/.config/sbx/profiles/claude.ini"
ctl doctor
w2=$(grep 'claude hook' "$B/out")
PATH="$B/bin:$PATH" sx claude
got2=$(cat "$W/got" 2>/dev/null)
if [[ $w1 == "warn  claude hook        in ~/.claude/settings.json, which claude under the claude profile does not read (it reads ~/.claude-sbx/settings.json): set \`claude_hook = true\` under [profile] in ~/.config/sbx/profiles/claude.ini" ]] &&
   [[ $got1 == "dir=$HOME/.claude-sbx args=" ]] &&
   [[ $w2 == "ok    claude hook        the claude profile loads it (claude_hook = true, ~/.config/sbx/profiles/claude.ini); the one in ~/.claude/settings.json is for claude run without sbx" ]] &&
   [[ $got2 == *"--settings {"*"hook claude"* ]]; then ok
else bad "w1=[$w1] got1=[$got1] w2=[$w2] got2=[$got2]"; fi

# ---- log: what a real run wrote

t log_summary_groups_a_real_runs_denials
sx -- sh -c "cat ~/.ssh/id_ed25519; cat ~/.ssh/id_ed25519; touch /etc/sbx-nope" 
sx -- cat "$HOME/.ssh/id_ed25519"
ctl log --summary
if [ $RC -eq 0 ] && grep -qE '^ +COUNT +OP +TARGET +PROGRAM' "$B/out" &&
   grep -qE "^ +3 +read +$HOME/.ssh/id_ed25519 +cat\$" "$B/out" &&
   grep -qE '^ +1 +write +/etc/sbx-nope +touch$' "$B/out"; then ok
else bad "rc=$RC: $(cat "$B/out")"; fi

t log_filters_and_json_for_scripts
sx -- sh -c "cat ~/.ssh/id_ed25519; touch /etc/sbx-nope"
ctl log --op write --json
if [ $RC -eq 0 ] && [ "$(wc -l < "$B/out")" = 1 ] &&
   python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).read()); assert r["op"]=="write" and r["target"]=="/etc/sbx-nope" and r["decision"]=="deny"' "$B/out"; then
	ctl log --since 1d --op read
	n_recent=$(wc -l < "$B/out")
	ctl log --since 2999-01-01
	if [ "$n_recent" = 1 ] && [ ! -s "$B/out" ]; then ok
	else bad "since: $n_recent / $(cat "$B/out")"; fi
else bad "rc=$RC: $(cat "$B/out")"; fi

t log_escapes_hostile_strings_and_skips_garbage
mkdir -p "$HOME/.local/state/sbx"
printf '%s\n' '{"time":"2026-01-01T00:00:00.000Z","layer":"shim","op":"read","target":"/x/\u001b[2J\u202eevil","decision":"deny","rule":null,"source":null,"pid":1,"comm":"a\u0007b"}' \
	'not json' '{"no":"op"}' > "$HOME/.local/state/sbx/audit.jsonl"
ctl log
if [ $RC -eq 0 ] && hasf '/x/\x1b[2J\u202eevil' out && hasf 'a\x07b' out &&
   ! grep -q $'\033' "$B/out" && ! grep -q $'\a' "$B/out" &&
   hasf '2 lines of' err && hasf 'are not a record (skipped)' err; then ok
else bad "rc=$RC: $(cat -v "$B/out")"; fi

t log_follow_prints_what_a_later_run_appends
sx -- cat "$HOME/.ssh/id_ed25519"
"$CTL" log --follow > "$B/follow" 2>&1 &
fpid=$!
for _ in $(seq 100); do [ -s "$B/follow" ] && break; sleep 0.1; done
sx -- touch /etc/sbx-followed
for _ in $(seq 100); do grep -qF /etc/sbx-followed "$B/follow" && break; sleep 0.1; done
kill $fpid; wait $fpid 2>/dev/null
if grep -qF "$HOME/.ssh/id_ed25519" "$B/follow" && grep -qE 'deny +write +/etc/sbx-followed' "$B/follow"; then ok
else bad "$(cat "$B/follow")"; fi

# ---- the Claude Code hook, with payloads as Claude Code sends them

# payload TOOL INPUT_JSON [CWD]: a PreToolUse payload as Claude Code writes it
payload() {
	printf '{"session_id":"3f1c9b2e-6a1d-4f7e-9a51-2c4d8e0b7a11","transcript_path":"%s/.claude/projects/ws/3f1c9b2e.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"%s","tool_input":%s,"tool_use_id":"toolu_01ABCDEF"}' \
		"$HOME" "${3:-$W}" "$1" "$2"
}
# hook: stdin to `sbxctl hook claude`; decision in $B/decision ("" = none)
hook() {
	timeout 60 "$CTL" hook claude >"$B/out" 2>"$B/err"; RC=$?
	python3 - "$B/out" >"$B/decision" 2>>"$B/err" <<'EOF'
import json, sys
text = open(sys.argv[1]).read()
if not text.strip():
    print("")
else:
    o = json.loads(text)["hookSpecificOutput"]
    assert o["hookEventName"] == "PreToolUse"
    print(o["permissionDecision"] + "\t" + o["permissionDecisionReason"])
EOF
}
decision() { cut -f1 "$B/decision"; }
reason() { cut -f2- "$B/decision"; }

t hook_decision_table
mkdir -p "$W/src" "$HOME/.config/sbx"
echo 'int main;' > "$W/src/main.c"
ln -s "$HOME/.ssh/id_ed25519" "$W/src/planted"
ln -s /etc "$W/etc-link"
fails=""
# case NAME EXPECT(deny|none) REASON-FRAGMENT TOOL INPUT [CWD]
case_() {
	local name=$1 want=$2 frag=$3
	shift 3
	payload "$@" > "$B/in"
	hook < "$B/in"
	local got; got=$(decision)
	if [ $RC -ne 0 ] || { [ "$want" = none ] && [ -n "$got" ]; } ||
	   { [ "$want" = deny ] && { [ "$got" != deny ] || [[ $(reason) != *"$frag"* ]]; }; }; then
		fails="$fails [$name: rc=$RC got='$(cat "$B/decision")' err=$(head -c 200 "$B/err")]"
	fi
}
case_ bash_sandbox_off deny dangerouslyDisableSandbox Bash '{"command":"rm -rf build","description":"Clean","dangerouslyDisableSandbox":true}'
case_ bash_sandbox_flag_as_string deny dangerouslyDisableSandbox Bash '{"command":"ls","dangerouslyDisableSandbox":"yes"}'
case_ bash_plain none "" Bash '{"command":"npm test","description":"Run tests","timeout":120000}'
case_ bash_flag_false none "" Bash '{"command":"ls","dangerouslyDisableSandbox":false}'
case_ read_outside deny 'deny_read = ~/.ssh' Read "{\"file_path\":\"$HOME/.ssh/id_ed25519\"}"
case_ read_tilde deny 'deny_read = ~/.ssh' Read '{"file_path":"~/.ssh/id_ed25519"}'
case_ read_traversal deny 'deny_read = ~/.ssh' Read '{"file_path":"../home/.ssh/id_ed25519"}'
case_ read_symlink_escape deny 'it leads to ~/.ssh/id_ed25519' Read "{\"file_path\":\"$W/src/planted\",\"offset\":1,\"limit\":20}"
case_ read_inside none "" Read "{\"file_path\":\"$W/src/main.c\"}"
case_ write_outside deny 'outside every writable area' Write '{"file_path":"/etc/cron.d/x","content":"* * * * * root sh\n"}'
case_ write_traversal deny 'outside every writable area' Write '{"file_path":"../../../../etc/passwd","content":"x"}'
case_ write_through_dir_link deny 'outside every writable area' Write "{\"file_path\":\"$W/etc-link/profile\",\"content\":\"x\"}"
case_ write_inside none "" Write "{\"file_path\":\"$W/src/new.c\",\"content\":\"int x;\\n\"}"
case_ edit_env deny 'deny_write = .env' Edit "{\"file_path\":\"$W/.env\",\"old_string\":\"A=1\",\"new_string\":\"A=2\",\"replace_all\":false}"
case_ edit_git_hook deny 'deny_write = .git/hooks' Edit "{\"file_path\":\"$W/.git/hooks/pre-commit\",\"old_string\":\"a\",\"new_string\":\"b\"}"
case_ edit_inside none "" Edit "{\"file_path\":\"$W/src/main.c\",\"old_string\":\"main\",\"new_string\":\"start\"}"
case_ multiedit_outside deny 'deny_write = .bashrc' MultiEdit "{\"file_path\":\"$HOME/.bashrc\",\"edits\":[{\"old_string\":\"a\",\"new_string\":\"b\"}]}"
case_ multiedit_inside none "" MultiEdit "{\"file_path\":\"$W/src/main.c\",\"edits\":[{\"old_string\":\"int\",\"new_string\":\"long\"}]}"
case_ notebook_outside deny 'outside every writable area' NotebookEdit '{"notebook_path":"/opt/nb.ipynb","new_source":"print(1)","cell_id":"c1"}'
case_ notebook_inside none "" NotebookEdit "{\"notebook_path\":\"$W/nb.ipynb\",\"new_source\":\"print(1)\"}"
case_ glob_no_path none "" Glob '{"pattern":"**/*.c"}'
case_ glob_secret_dir deny 'deny_read = ~/.ssh' Glob "{\"pattern\":\"*\",\"path\":\"$HOME/.ssh\"}"
case_ glob_pattern_escape deny 'deny_read = ~/.ssh' Glob '{"pattern":"../home/.ssh/*"}'
case_ grep_no_path none "" Grep '{"pattern":"TODO","output_mode":"content","-n":true}'
case_ grep_traversal deny 'deny_read = ~/.ssh' Grep '{"pattern":"BEGIN","path":"../home/.ssh"}'
case_ grep_inside none "" Grep "{\"pattern\":\"main\",\"path\":\"$W/src\",\"glob\":\"*.c\"}"
# a search is judged by the tree it walks, not its top directory alone
ln -s "$HOME" "$W/home-link"
case_ grep_home_glob_keys deny 'a Grep of ~ would search it' Grep '{"pattern":"PRIVATE KEY","path":"~","glob":"**/id_*"}'
case_ grep_ancestor_of_home deny 'deny_read = ~/' Grep "{\"pattern\":\"BEGIN\",\"path\":\"$B\"}"
case_ grep_root deny 'a Grep of / would search it' Grep '{"pattern":"BEGIN","path":"/"}'
case_ grep_through_dir_link deny 'deny_read = ~/' Grep '{"pattern":"BEGIN","path":"home-link"}'
echo notes > "$HOME/notes.txt"
case_ grep_one_file_in_home none "" Grep '{"pattern":"x","path":"~/.ssh-not/../notes.txt"}'
case_ glob_home_keys deny 'a Glob of ~ would search it' Glob '{"pattern":"**/id_*","path":"~"}'
case_ glob_pattern_climbs_to_home deny 'deny_read = ~/' Glob '{"pattern":"../home/**/*"}'
case_ glob_absolute_home deny 'deny_read = ~/' Glob "{\"pattern\":\"$HOME/**/id_*\"}"
case_ glob_through_dir_link deny 'deny_read = ~/' Glob '{"pattern":"**/*","path":"home-link"}'
case_ read_dotdot_after_a_link deny 'it leads to ~/.ssh/id_ed25519' Read '{"file_path":"home-link/../home/.ssh/id_ed25519"}'
case_ grep_dotdot_after_a_link deny 'deny_read = ~/' Grep '{"pattern":"BEGIN","path":"home-link/.."}'
case_ glob_dotdot_after_a_wildcard deny 'climbs with `..` after a wildcard' Glob '{"pattern":"**/../../home/.ssh/*"}'
case_ glob_narrowed_by_its_lead none "" Glob "{\"pattern\":\"ws/src/**/*.c\",\"path\":\"$B\"}"
case_ glob_pattern_not_string deny 'Glob.pattern is missing' Glob '{"pattern":7}'
case_ glob_pattern_missing deny 'Glob.pattern is missing' Glob '{"path":"src"}'
case_ glob_pattern_newline deny 'holds a newline' Glob '{"pattern":"src/\n**"}'
case_ grep_path_not_string deny 'Grep.path is not a string' Grep '{"pattern":"x","path":["/"]}'
case_ other_tool none "" WebFetch '{"url":"https://example.com","prompt":"summarise"}'
case_ mcp_tool none "" mcp__github__create_issue '{"title":"x"}'
case_ path_not_string deny 'is not a string' Read '{"file_path":["/etc/passwd"]}'
case_ path_missing deny 'has no file_path' Write '{"content":"x"}'
case_ relative_cwd deny 'no absolute cwd' Read '{"file_path":"a"}' 'relative/dir'
case_ input_not_object deny 'tool_input object' Read '"nope"'
if [ -z "$fails" ]; then ok; else bad "$fails"; fi

t hook_malformed_input_is_refused_with_a_reason_never_a_crash
fails=""
for input in '' '{' 'null' '[1,2]' '{"tool_name":"Read"}' "$(payload Read '{"file_path":"\u0000/etc"}')" \
	'{"hook_event_name":7}' "$(printf '\xff\xfe{}')"; do
	printf '%s' "$input" > "$B/in"
	hook < "$B/in"
	if [ $RC -ne 0 ] || [ "$(decision)" != deny ]; then
		fails="$fails [$(printf '%q' "$input" | head -c 60): rc=$RC $(cat "$B/decision")]"
	fi
done
# 5 MiB of input: refused, not read without end
head -c 5242880 /dev/zero | tr '\0' ' ' > "$B/in"
hook < "$B/in"
[ $RC -eq 0 ] && [ "$(decision)" = deny ] && [[ $(reason) == *"larger than 4 MiB"* ]] ||
	fails="$fails [huge: rc=$RC $(cat "$B/decision")]"
# deep nesting
python3 -c 'print("[" * 100000 + "]" * 100000)' > "$B/in"
hook < "$B/in"
[ $RC -eq 0 ] && [ "$(decision)" = deny ] || fails="$fails [deep: rc=$RC]"
# another event: not ours, no decision
printf '{"hook_event_name":"PostToolUse","cwd":"%s","tool_name":"Read","tool_input":{}}' "$W" > "$B/in"
hook < "$B/in"
[ $RC -eq 0 ] && [ -z "$(decision)" ] || fails="$fails [PostToolUse: $(cat "$B/decision")]"
printf '{' > "$B/in"
hook < "$B/in"
[[ $(reason) == *"not valid JSON (line 1"* ]] || fails="$fails [reason: $(reason)]"
if [ -z "$fails" ]; then ok; else bad "$fails"; fi

t hook_uses_the_users_policy_file_and_its_lines
mkdir -p "$HOME/.config/sbx" "$W/secrets"
printf '[filesystem]\n\ndeny_read = secrets/\n' > "$HOME/$INI"
payload Read "{\"file_path\":\"$W/secrets/prod.key\"}" > "$B/in"
hook < "$B/in"
r1=$(cat "$B/decision")
# a name hidden at any depth may be in any tree: a search anywhere is refused
payload Grep '{"pattern":"password"}' > "$B/in"
hook < "$B/in"
if [[ $r1 == deny*'`deny_read = secrets/` (~/.config/sbx/sandbox.ini:3)'* ]] && [ "$(decision)" = deny ] &&
   [[ $(reason) == *'`deny_read = secrets/` (~/.config/sbx/sandbox.ini:3) names, at any depth, so a Grep of '* ]]; then ok
else bad "$r1 / $(cat "$B/decision")"; fi

# The real Claude Code CLI (npm @anthropic-ai/claude-code), offline: its API
# is a local stand-in (mock-anthropic.py) that asks for one Read; the hook is
# installed as docs/RECIPES.md says, in settings.json. What Claude Code sent
# back as the tool's result is what the model would have seen (versions word
# the refusal's prefix differently; the reason is ours).
# (the pinned one make check-agents installs: agents-install.sh)
find_claude() {
	[ -x "${SBX_IT_AGENTS:-}/node_modules/.bin/claude" ] && echo "$SBX_IT_AGENTS/node_modules/.bin/claude"
}
# claude_read TARGET: run Claude Code once; the tool_result it sent back in $B/result
claude_read() {
	rm -f "$B/port" "$B/api.log"
	python3 "$SBX_BIN/mock-anthropic.py" "$B/port" "$B/api.log" "$1" & local mock=$!
	for _ in $(seq 200); do [ -s "$B/port" ] && break; sleep 0.1; done
	(cd "$W" && ANTHROPIC_BASE_URL="http://127.0.0.1:$(cat "$B/port")" ANTHROPIC_API_KEY=sk-ant-offline-test \
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_AUTOUPDATER=1 \
		timeout 180 "$CLAUDE" -p "read the file" --output-format json >"$B/cc.out" 2>"$B/cc.err")
	RC=$?
	kill $mock; wait $mock 2>/dev/null
	python3 - "$B/api.log" > "$B/result" <<'EOF'
import json, sys
for line in open(sys.argv[1]):
    for m in json.loads(line)["body"].get("messages", []):
        if isinstance(m["content"], list):
            for c in m["content"]:
                if c.get("type") == "tool_result" and c.get("tool_use_id") == "toolu_01MOCK":
                    text = c["content"] if isinstance(c["content"], str) else json.dumps(c["content"])
                    print(("ERROR " if c.get("is_error") else "OK ") + text)
                    sys.exit(0)
EOF
}

t claude_code_itself_runs_the_hook_from_settings_json
CLAUDE=$(find_claude)
if [ -z "$CLAUDE" ]; then skip "no Claude Code CLI (make check-agents installs it from the npm registry)"; else
mkdir -p "$HOME/.claude"
printf '{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"%s hook claude"}]}]}}\n' \
	"$CTL" > "$HOME/.claude/settings.json"
echo "visible-content-$RANDOM" > "$W/notes.txt"
claude_read "$W/notes.txt"
allowed=$(cat "$B/result"); arc=$RC
claude_read "$HOME/.ssh/id_ed25519"
denied=$(cat "$B/result")
if [ $arc -eq 0 ] && [ $RC -eq 0 ] && [[ $allowed == "OK "*"$(cat "$W/notes.txt")"* ]] &&
   [[ $denied == "ERROR "*"sbx: the sandbox denies reading ~/.ssh/id_ed25519: \`deny_read = ~/.ssh\` (default)."* ]] &&
   ! grep -qF "$SECRET" "$B/api.log"; then ok
else bad "rc=$arc/$RC allowed=[$(head -c 200 <<<"$allowed")] denied=[$(head -c 300 <<<"$denied")] $(head -c 300 "$B/cc.err")"; fi
fi

# ---- import-srt

t import_srt_round_trips_into_a_policy_that_loads
cat > "$B/srt.json" <<'EOF'
{
  "network": {
    "allowedDomains": ["github.com", "*.npmjs.org", "api.example.com"],
    "deniedDomains": ["evil.example.com"],
    "allowUnixSockets": ["/var/run/docker.sock"],
    "allowLocalBinding": false,
    "mitmProxy": {"socketPath": "/tmp/m.sock", "domains": ["x"]}
  },
  "filesystem": {
    "denyRead": ["~/.ssh", "~/.config/op"],
    "allowWrite": [".", "/tmp"],
    "denyWrite": [".env", "secrets/"]
  },
  "ignoreViolations": {"*": ["/usr/bin", "telemetry.example.com"], "git push": ["/usr/bin/nc"]},
  "enableWeakerNestedSandbox": false
}
EOF
ctl import-srt "$B/srt.json"
cp "$B/out" "$B/conv.ini"
cp "$B/err" "$B/conv.err"
ctl status --no-machine -c "$B/conv.ini"
if grep -qxF 'isolation = custom' "$B/conv.ini" &&
   grep -qxF 'allow_domains = github.com, *.npmjs.org, api.example.com' "$B/conv.ini" &&
   grep -qxF 'deny_domains = evil.example.com' "$B/conv.ini" &&
   grep -qxF 'deny_read = ~/.ssh, ~/.config/op' "$B/conv.ini" &&
   grep -qxF 'allow_write = ., /tmp' "$B/conv.ini" && grep -qxF 'deny_write = .env, secrets/' "$B/conv.ini" &&
   grep -qxF 'allow_unix_sockets = /var/run/docker.sock' "$B/conv.ini" &&
   grep -qxF 'allow_local_binding = false' "$B/conv.ini" &&
   grep -qxF 'ignore_paths = /usr/bin' "$B/conv.ini" && grep -qxF 'ignore_domains = telemetry.example.com' "$B/conv.ini" &&
   grep -qF 'network.mitmProxy: not carried over' "$B/conv.err" &&
   grep -qF 'ignoreViolations["git push"]: not carried over' "$B/conv.err" &&
   [ $RC -eq 0 ] && grep -qE "^  deny_domains +evil.example.com +$B/conv.ini:" "$B/out" &&
   grep -qE '^  isolation +custom' "$B/out"; then ok
else bad "status rc=$RC: $(tr '\n' '|' < "$B/conv.ini") / $(cat "$B/conv.err")"; fi

t import_srt_write_and_errors
printf '{"filesystem":{"denyRead":["~/.x"]}}' > "$HOME/.srt-settings.json"
ctl import-srt --write
w=$RC
printf '{"network": {"allowedDomains": "github.com"}}' > "$B/bad.json"
ctl import-srt "$B/bad.json"
b1=$RC; cp "$B/err" "$B/e1"
printf '{"network": [1,\n' > "$B/broken.json"
ctl import-srt "$B/broken.json"
if [ $w -eq 0 ] && grep -qxF 'deny_read = ~/.x' "$HOME/$INI" && [ $b1 -eq 2 ] &&
   grep -qF 'network.allowedDomains is not a list of strings' "$B/e1" &&
   [ $RC -eq 2 ] && grep -qE "$B/broken.json:2:" "$B/err"; then ok
else bad "rc=$w/$b1/$RC: $(cat "$B/e1" "$B/err")"; fi

# The input's name goes into the output's first comment: a name is anyone's
# (a downloaded settings file, a repository's), and neither a newline in it
# nor a long name holding commas (the reader splits long lines there) may
# become a line of settings.
t import_srt_file_name_stays_in_its_comment
printf '{"filesystem":{"denyRead":["~/.x"]}}' > "$B/plain.json"
nl="$B/x"$'\n''[filesystem]'$'\n''allow_write = ~'$'\n'';.json'
cp "$B/plain.json" "$nl"
a=$(printf 'a%.0s' $(seq 100)); b=$(printf 'b%.0s' $(seq 150))
mkdir -p "$B/$a,[filesystem]"
long="$B/$a,[filesystem]/$b,allow_write = ~ ;.json"
cp "$B/plain.json" "$long"
fails=""
for f in "$nl" "$long"; do
	rm -f "$HOME/$INI"
	ctl import-srt --write "$f"
	wrc=$RC
	ctl status --no-machine
	# the policy as loaded: no allow_write from the file; the comment one line
	if [ $wrc -ne 0 ] || [ $RC -ne 0 ] || grep -E '^ +(allow_write +)?~ ' "$B/out" |
	   grep -qF "$INI" || [ "$(grep -c 'Converted from' "$HOME/$INI")" -ne 1 ] ||
	   grep -qx 'allow_write = ~' "$HOME/$INI" || ! grep -qxF 'deny_read = ~/.x' "$HOME/$INI"; then
		fails="$fails [$(printf %q "${f: -40}"): rc=$wrc/$RC $(grep -A1 allow_write "$B/out" | tr '\n' '|')]"
	fi
	[ "$f" = "$nl" ] && cp "$HOME/$INI" "$B/nl.ini"
done
if [ -z "$fails" ] && grep -qF 'x\x0a[filesystem]\x0aallow_write = ~\x0a;.json' "$B/nl.ini"; then ok
else bad "$fails $(head -c 300 "$B/nl.ini")"; fi

# ---- sbx-preload --print=json, spawned by programs without a shell

t print_json_argv_runs_the_sandbox_from_python_and_node_without_a_shell
arg='it'"'"'s "quoted" $HOME; `id`'
sx -q --print=json -- sh -c 'printf "%s" "$1" > p.txt; cat ~/.ssh/id_ed25519 || echo REFUSED' sh "$arg"
cp "$B/out" "$B/plan.json"
python3 - "$B/plan.json" > "$B/py" 2>&1 <<'EOF'
import json, subprocess, sys
d = json.load(open(sys.argv[1]))
assert d["env"]["set"]["SBX_SANDBOX"] == "1"
r = subprocess.run(d["argv"], cwd=d["cwd"], capture_output=True, text=True)
print(r.stdout, end="")
EOF
pyrc=$?
py_file=$(cat "$W/p.txt" 2>/dev/null)
rm -f "$W/p.txt"
node_ok=skip
if command -v node >/dev/null; then
	node -e 'const d = JSON.parse(require("fs").readFileSync(process.argv[1]));
const r = require("child_process").spawnSync(d.argv[0], d.argv.slice(1), { cwd: d.cwd });
process.stdout.write(r.stdout);' "$B/plan.json" > "$B/node" 2>&1
	node_ok=no
	[ "$(cat "$W/p.txt" 2>/dev/null)" = "$arg" ] && grep -qx REFUSED "$B/node" &&
		! grep -qF "$SECRET" "$B/node" && node_ok=yes
fi
if [ $RC -eq 0 ] && [ $pyrc -eq 0 ] && [ "$py_file" = "$arg" ] && grep -qx REFUSED "$B/py" &&
   ! grep -qF "$SECRET" "$B/py" && [ $node_ok != no ]; then ok
else bad "rc=$RC py=$pyrc file=[$py_file] node=$node_ok: $(cat "$B/py" "$B/node" 2>/dev/null | head -5)"; fi

t print_takes_json_seatbelt_or_nothing
sx --print=yaml -- true
if [ $RC -eq 125 ] && hasf '--print takes =json, =seatbelt or nothing' err; then ok
else bad "rc=$RC"; fi

t print_seatbelt_is_a_sandbox_exec_command_with_paths_as_parameters
# The macOS profile (docs/MACOS.md), printed here: run as a shell would run
# it, with sandbox-exec standing in as a printer of its arguments, each
# path arrives whole as a -D parameter and never in the profile text
# (named as Darwin names it: /var is /private/var there).
odd="$W/it's a \"secret\" [dir]"
sx --print=seatbelt --deny-read "$odd" --allow-write "$W/out dir"
sed '1s|^/usr/bin/sandbox-exec|args|' "$B/out" > "$B/cmd"
args() { printf '%s\0' "$@"; }
(SHELL=/bin/zsh; . "$B/cmd") > "$B/argv" 2>"$B/evalerr"
tr '\0' '\n' < "$B/argv" > "$B/argl"
prof=$(tr '\0' '\n' < "$B/argv" | sed -n '/^-p$/,$p' | sed 1d)
if [ $RC -eq 0 ] && head -1 "$B/out" | grep -qx '/usr/bin/sandbox-exec \\' &&
   grep -qxF -- "-D" "$B/argl" && grep -qxF "=/private$odd" <(sed 's/^P[0-9]*//' "$B/argl") &&
   grep -qxF "=/private$W/out dir" <(sed 's/^P[0-9]*//' "$B/argl") &&
   printf '%s' "$prof" | grep -q '^(version 1)' && printf '%s' "$prof" | grep -qF '(deny default' &&
   printf '%s' "$prof" | grep -qxF "; Every run's shim hand-over: not another's to read, nor to hold." &&
   ! printf '%s' "$prof" | grep -qF "it's" && ! printf '%s' "$prof" | grep -qF "out dir" &&
   [ "$(tail -n1 "$B/argl")" = /bin/zsh ] && [ ! -s "$B/evalerr" ]; then ok
else bad "rc=$RC $(head -3 "$B/out") $(grep -E '^P' "$B/argl" | tail -3) $(cat "$B/evalerr" "$B/err")"; fi

# ---- what every subcommand shares

t every_subcommand_has_help_and_version
fails=""
for s in configure status enable disable check doctor log hook import-srt; do
	"$CTL" "$s" --help > "$B/h" 2>&1 && grep -q "^Usage: sbxctl" "$B/h" || fails="$fails $s:help"
	"$CTL" "$s" --version > "$B/v" 2>&1 && grep -qE "^sbxctl $s [0-9]" "$B/v" || fails="$fails $s:version"
done
"$CTL" nonsense > "$B/h" 2>&1; [ $? -eq 2 ] && grep -qF 'no subcommand `nonsense`' "$B/h" || fails="$fails nonsense"
if [ -z "$fails" ]; then ok; else bad "$fails"; fi

# the bash completion, called as bash calls it
t bash_completion_offers_subcommands_options_and_values
comp() { # comp FILE FUNC WORD...: the completions of the last word
	bash -c '. "$1"; f=$2; shift 2; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); $f; printf "%s\n" "${COMPREPLY[@]}"' \
		comp "$@" 2>>"$B/err"
}
C=$SBX_BIN/share/completion/bash
if [ ! -d "$C" ]; then skip "no share/completion"; else
comp "$C/sbxctl" _sbxctl sbxctl co > "$B/c1"
comp "$C/sbxctl" _sbxctl sbxctl configure --iso > "$B/c2"
comp "$C/sbxctl" _sbxctl sbxctl configure --isolation s > "$B/c3"
comp "$C/sbxctl" _sbxctl sbxctl log --op c > "$B/c4"
comp "$C/sbx-preload" _sbx_preload sbx-preload --pri > "$B/c5"
if grep -qx configure "$B/c1" && [ "$(wc -l < "$B/c1")" = 1 ] && grep -qx -- --isolation "$B/c2" &&
   grep -qx strict "$B/c3" && grep -qx connect "$B/c4" && grep -qx -- --print=json "$B/c5"; then ok
else bad "$(cat "$B"/c[1-5] | tr '\n' ' ')"; fi
fi

# the man pages render without a warning and name every subcommand
t man_pages_render_and_name_every_subcommand
M=$SBX_BIN/share/man
if [ ! -d "$M" ] || ! command -v groff >/dev/null; then skip "no man pages or no groff"; else
warn=$(for f in "$M"/*.[15]; do LC_ALL=C.UTF-8 groff -man -ww -z -Tutf8 "$f" 2>&1; done)
LC_ALL=C.UTF-8 groff -man -Tutf8 "$M/sbxctl.1" 2>/dev/null | col -b > "$B/page"
missing=""
for s in configure status enable disable check doctor log 'hook claude' import-srt; do
	grep -qF "sbxctl $s" "$B/page" || missing="$missing $s"
done
if [ -z "$warn" ] && [ -z "$missing" ] && grep -qF 'EXIT STATUS' "$B/page"; then ok
else bad "warnings: $warn; missing:$missing"; fi
fi

t man_pages_name_every_option_of_every_help
# The pages are written by hand: each option a --help lists (the lines of
# its option list) is in the rendered page, so a new option cannot ship
# without its page (five of sbx-preload's once did).
M=$SBX_BIN/share/man
if [ ! -d "$M" ] || ! command -v groff >/dev/null; then skip "no man pages or no groff"; else
opts() { "$@" --help 2>&1 | grep -oE '^ {1,8}(-[a-zA-Z], )?--[a-z][a-z-]*' | grep -oE -- '--[a-z][a-z-]*' | sort -u; }
LC_ALL=C.UTF-8 groff -man -Tutf8 "$M/sbx-preload.1" 2>/dev/null | col -b > "$B/p1"
LC_ALL=C.UTF-8 groff -man -Tutf8 "$M/sbxctl.1" 2>/dev/null | col -b > "$B/p2"
lacks="" n=0
for o in $(opts "$SBX"); do n=$((n + 1)); grep -qF -- "$o" "$B/p1" || lacks="$lacks sbx-preload.1:$o"; done
for s in configure status enable disable check doctor log 'hook claude' import-srt; do
	for o in $(opts "$CTL" $s); do n=$((n + 1)); grep -qF -- "$o" "$B/p2" || lacks="$lacks sbxctl.1:$o($s)"; done
done
if [ -z "$lacks" ] && [ "$n" -gt 60 ]; then ok; else bad "n=$n lacks:$lacks"; fi
fi

t colour_only_on_a_terminal_and_never_with_no_color
if ! command -v script >/dev/null; then skip "no script(1)"; else
TERM=xterm script -qc "'$CTL' check --read '$HOME/.ssh/id_ed25519'" /dev/null > "$B/tty" 2>&1
NO_COLOR=1 TERM=xterm script -qc "'$CTL' check --read '$HOME/.ssh/id_ed25519'" /dev/null > "$B/nocolor" 2>&1
"$CTL" check --read "$HOME/.ssh/id_ed25519" > "$B/pipe" 2>&1
if grep -q $'\033\\[1;31mdeny' "$B/tty" && ! grep -q $'\033' "$B/nocolor" && grep -q 'deny' "$B/nocolor" &&
   ! grep -q $'\033' "$B/pipe"; then ok
else bad "tty: $(cat -v "$B/tty")"; fi
fi

echo "# $(id -un) (sbxctl): $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
