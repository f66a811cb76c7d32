#!/bin/bash
# The supervisor on the host (docs/SECURITY.md, "The supervisor on the
# host"): sbx-preload runs unsandboxed and writes the audit log, the learned
# policy and the stand-in records, while COMMAND controls every name in the
# writable roots (HOME itself with workspace = HOME or --learn). Each test
# plants what a sandboxed program could — a link or hard link at one of
# sbx's names, a forged record, a held lock, a learned rule that would widen
# the next run — and asserts on the real files on the host: the canaries
# (~/.bashrc, ~/.ssh/authorized_keys) unchanged, the learned file's lines.
# Static programs (tests/progs/writefile.c) show what the boundary alone
# stops. Helpers (t, ok, bad, skip, sx, has) are in lib.sh.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PROGS=$(mktemp -d /var/tmp/sbx-progs.XXXXXX)
trap 'rm -rf "$PROGS"' EXIT
WF=$PROGS/writefile
built writefile.static "$WF" 2>"$PROGS/log" ||
	echo "# cannot build tests/progs/writefile.c: $(head -3 "$PROGS/log")"
chmod -R a+rX "$PROGS"
have_wf() { [ -x "$WF" ] || { skip "tests/progs/writefile not built (no static libc?)"; return 1; }; }

STATE=.local/state/sbx
CANARY_RC='# canary: this line and no other'
KEYS='ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIcanary user@host'
# canaries: ~/.bashrc and ~/.ssh/authorized_keys, compared byte for byte
canaries() {
	printf '%s\n' "$CANARY_RC" > "$HOME/.bashrc"
	printf '%s\n' "$KEYS" > "$HOME/.ssh/authorized_keys"
	cp "$HOME/.bashrc" "$B/bashrc.want"
	cp "$HOME/.ssh/authorized_keys" "$B/keys.want"
}
rc_intact() { cmp -s "$HOME/.bashrc" "$B/bashrc.want" && [ ! -L "$HOME/.bashrc" ]; }
keys_intact() { cmp -s "$HOME/.ssh/authorized_keys" "$B/keys.want"; }
# sxh ARGS: sx from HOME as the workspace
sxh() { local here=$PWD; cd "$HOME" && sx "$@"; cd "$here" || exit 1; }
# learned FILE: its setting lines (no comments)
learned() { grep -v '^;' "$1" 2>/dev/null | sed '/^$/d'; }

# ---- (a) the audit log

# The attack as reported: a link at the audit log's name, made inside, and a
# refused read whose target is shell code. On main the JSON line landed in
# ~/.bashrc, and the next interactive bash ran the code.
t audit_log_link_planted_inside_never_reaches_bashrc
canaries
sxh -- sh -c 'mkdir -p ~/.local/state/sbx && ln -sf ../../../.bashrc ~/.local/state/sbx/audit.jsonl; cat ~/.ssh/"$(id>&2)"; true'
if rc_intact && [ ! -L "$HOME/$STATE/audit.jsonl" ]; then ok
else bad "rc=$RC ~/.bashrc now: $(head -c 200 "$HOME/.bashrc" | tr '\n' ' ')"; fi

# A link left there before the run (by an older sbx, or a program outside):
# the log is refused, said once, and the reports still reach stderr.
t audit_log_link_left_on_the_host_is_refused_and_said
canaries
mkdir -p "$HOME/$STATE" && ln -s ../../../.bashrc "$HOME/$STATE/audit.jsonl"
sx -- cat "$HOME/.ssh/id_ed25519"
if rc_intact && hasf "cannot write the audit log: $HOME/$STATE/audit.jsonl is a symbolic link" err &&
   has 'denied read of ~/.ssh/id_ed25519' err; then ok
else bad "rc=$RC ~/.bashrc: $(head -c 200 "$HOME/.bashrc" | tr '\n' ' ')"; fi

t audit_log_hard_link_to_bashrc_is_refused
canaries
mkdir -p "$HOME/$STATE" && ln "$HOME/.bashrc" "$HOME/$STATE/audit.jsonl"
cp "$HOME/.bashrc" "$B/bashrc.want"
sx -- cat "$HOME/.ssh/id_ed25519"
if cmp -s "$HOME/.bashrc" "$B/bashrc.want" && has 'audit.jsonl has other hard links' err; then ok
else bad "rc=$RC ~/.bashrc: $(head -c 200 "$HOME/.bashrc" | tr '\n' ' ')"; fi

# The state directory itself a link (to a directory of the user's): sbx's
# own directory is never reached through one; the run goes on, said.
t state_dir_that_is_a_link_is_not_used
mkdir -p "$HOME/.local/state" "$HOME/elsewhere"
ln -s ../../elsewhere "$HOME/$STATE"
sx -- cat "$HOME/.ssh/id_ed25519"
if [ -z "$(ls -A "$HOME/elsewhere")" ] && has "state/sbx is a symbolic link" err &&
   has 'denied read of ~/.ssh/id_ed25519' err; then ok
else bad "rc=$RC elsewhere: $(ls -A "$HOME/elsewhere" | tr '\n' ' ')"; fi

# ---- (b) the learned policy

# Links at the learned file's usual temporary name for this second and the
# few before (the stamp is the run's start time), made inside under --learn
# (HOME writable). On main the supervisor truncated authorized_keys and
# wrote the learned policy into it.
t learned_tmp_link_planted_inside_never_reaches_authorized_keys
canaries
sxh --learn -- sh -c 'mkdir -p ~/.local/state/sbx/learned; for d in 0 1 2 3; do
	s=$(date -d "-$d sec" +%Y%m%d-%H%M%S)
	ln -sf ../../../../.ssh/authorized_keys ~/.local/state/sbx/learned/$s.ini.tmp
	ln -sf ../../../../.ssh/authorized_keys ~/.local/state/sbx/learned/$s.ini
done; touch ~/newfile; true'
if keys_intact && has 'learned policy written to' err; then ok
else bad "rc=$RC authorized_keys now: $(head -c 200 "$HOME/.ssh/authorized_keys" | tr '\n' ' ')"; fi

t learned_tmp_link_left_on_the_host_is_never_followed
canaries
mkdir -p "$HOME/$STATE/learned"
for d in 0 1 2 3 4 5 6 7 8 9; do
	s=$(date -d "+$d sec" +%Y%m%d-%H%M%S)
	ln -s ../../../../.ssh/authorized_keys "$HOME/$STATE/learned/$s.ini.tmp"
done
sx --learn -- sh -c 'echo x > ~/newfile'
made=$(find "$HOME/$STATE/learned" -name '*.ini' -type f | head -1)
if keys_intact && [ -n "$made" ] && grep -q '^allow_write = ~/newfile$' "$made"; then ok
else bad "rc=$RC made=$made authorized_keys: $(head -c 200 "$HOME/.ssh/authorized_keys" | tr '\n' ' ')"; fi

# ---- sbx's state directory is read-only inside, in every mode

t state_dir_static_binary_stopped_by_boundary_workspace_home
if have_wf; then
	mkdir -p "$HOME/$STATE"
	sxh -- "$WF" pwned "$HOME/$STATE/audit.jsonl" "$HOME/$STATE/learned/x.ini" \
		"$HOME/$STATE/standins/forged" "$HOME/$STATE/new"
	if [ "$(grep -c '^ERR' "$B/out")" -eq 4 ] && ! grep -rqs pwned "$HOME/$STATE"; then ok
	else bad "rc=$RC $(tr '\n' ' ' < "$B/out")"; fi
fi

t state_dir_static_binary_stopped_by_boundary_under_learn
if have_wf; then
	sx --learn -- "$WF" pwned "$HOME/$STATE/audit.jsonl" "$HOME/$STATE/learned/x.ini"
	if [ "$(grep -c '^ERR' "$B/out")" -eq 2 ] && [ ! -e "$HOME/$STATE/learned/x.ini" ] &&
	   ! grep -qs pwned "$HOME/$STATE/audit.jsonl"; then ok
	else bad "rc=$RC $(tr '\n' ' ' < "$B/out")"; fi
fi

# XDG_STATE_HOME moves the state directory; it is protected where it is.
t xdg_state_dir_static_binary_stopped_by_boundary
if have_wf; then
	export XDG_STATE_HOME=$HOME/xdg-state
	sxh -- "$WF" pwned "$XDG_STATE_HOME/sbx/audit.jsonl" "$XDG_STATE_HOME/sbx/standins/forged"
	unset XDG_STATE_HOME
	if [ "$(grep -c '^ERR' "$B/out")" -eq 2 ] && ! grep -rqs pwned "$HOME/xdg-state"; then ok
	else bad "rc=$RC $(tr '\n' ' ' < "$B/out")"; fi
fi

# isolation = strict: the session directory lies in the state directory and
# stays writable, also with HOME writable (--learn), where the rest of the
# state directory is protected over it.
t strict_session_dir_writable_inside_read_only_state_dir
printf '[sandbox]\nisolation = strict\n' > "$B/strict.ini"
sx -c "$B/strict.ini" --learn=$B/l.ini -- sh -c 'echo made > "$SBX_SESSION_DIR/out" && echo SESSION-OK;
	echo x > ~/.local/state/sbx/evil 2>/dev/null || echo STATE-RO'
sess=$(find "$HOME/$STATE/sessions" -name out 2>/dev/null | head -1)
if has SESSION-OK out && has STATE-RO out && [ -n "$sess" ] && [ "$(cat "$sess")" = made ] &&
   [ ! -e "$HOME/$STATE/evil" ]; then ok
else bad "rc=$RC out: $(tr '\n' ' ' < "$B/out")"; fi

# ---- (c) the stand-in records and their lock

# (checked inside: the supervisor's own sweep at the end removes a record
# no process holds)
t standin_record_cannot_be_forged_from_inside
sxh -- sh -c 'mkdir -p ~/.local/state/sbx/standins;
	echo "M 1 2 3 4 x $HOME/.bashrc" > ~/.local/state/sbx/standins/forged;
	[ -e ~/.local/state/sbx/standins/forged ] && echo FORGED; true'
if ! has FORGED out && [ ! -e "$HOME/$STATE/standins/forged" ]; then ok
else bad "rc=$RC: a record was written from inside"; fi

# flock(2) needs no write access: on main a program inside held the lock
# through a read-only descriptor and every later run waited for ever.
t standin_lock_held_inside_does_not_stop_later_runs
mkdir -p "$HOME/$STATE/standins" && : > "$HOME/$STATE/standins/lock"
(cd "$HOME" && timeout 30 "$SBX" -- sh -c "exec 3<'$HOME/$STATE/standins/lock' && flock -x 3 &&
	touch '$HOME/held'; sleep 12" >/dev/null 2>"$B/hold.err") &
holder=$!
for _ in $(seq 100); do [ -e "$HOME/held" ] && break; kill -0 $holder 2>/dev/null || break; sleep 0.05; done
start=$SECONDS
(cd "$HOME" && timeout 20 "$SBX" -- sh -c 'echo SECOND-RAN' >"$B/out" 2>"$B/err"); RC=$?
took=$((SECONDS - start))
kill $holder 2>/dev/null; wait $holder 2>/dev/null
if [ ! -e "$HOME/held" ] && has SECOND-RAN out && [ $RC -eq 0 ] && [ $took -lt 10 ]; then ok
else bad "held inside: $([ -e "$HOME/held" ] && echo yes || echo no), second run rc=$RC in ${took}s"; fi

# A program outside the sandbox holding the lock: a later run waits a few
# seconds at most, says so, and runs (it needs no stand-in: workspace below
# HOME) — never a hang.
t standin_lock_held_outside_is_waited_for_boundedly_and_said
mkdir -p "$HOME/$STATE/standins" && : > "$HOME/$STATE/standins/lock"
flock -x "$HOME/$STATE/standins/lock" sleep 20 &
holder=$!
for _ in $(seq 100); do flock -n "$HOME/$STATE/standins/lock" true || break; sleep 0.05; done
start=$SECONDS
timeout 30 "$SBX" -- sh -c 'echo SECOND-RAN' >"$B/out" 2>"$B/err"; RC=$?
took=$((SECONDS - start))
kill $holder 2>/dev/null; wait $holder 2>/dev/null
if has SECOND-RAN out && [ $RC -eq 0 ] && [ $took -lt 15 ] && has 'held the lock' err; then ok
else bad "rc=$RC in ${took}s: $(tr '\n' ' ' < "$B/err" | head -c 300)"; fi

# ---- sbx's configuration directory, missing: a sandbox.ini made inside
# would widen every later run

t config_dir_missing_static_binary_stopped_by_boundary
if have_wf; then
	sxh -- "$WF" '[filesystem]
allow_write = /' "$HOME/.config/sbx/sandbox.ini"
	if has '^ERR' out && [ ! -e "$HOME/.config/sbx/sandbox.ini" ]; then ok
	else bad "rc=$RC $(tr '\n' ' ' < "$B/out")"; fi
fi

t xdg_config_dir_missing_static_binary_stopped_by_boundary
if have_wf; then
	export XDG_CONFIG_HOME=$HOME/xdg-config
	sxh -- "$WF" '[filesystem]
allow_write = /' "$XDG_CONFIG_HOME/sbx/sandbox.ini"
	unset XDG_CONFIG_HOME
	if has '^ERR' out && [ ! -e "$HOME/xdg-config/sbx/sandbox.ini" ]; then ok
	else bad "rc=$RC $(tr '\n' ' ' < "$B/out")"; fi
fi

# ---- what --learn writes never widens the next run

t learn_touch_home_never_learns_home
sx -q --learn="$B/l.ini" -- touch "$HOME"
if [ -f "$B/l.ini" ] && ! learned "$B/l.ini" | grep -q '^allow_write = ~/\?$' &&
   has 'not learned: allow_write ~ — it is HOME' err; then ok
else bad "rc=$RC learned: $(learned "$B/l.ini" | tr '\n' ' ')"; fi

# ~/.cache/pip -> .. is HOME (left by something on the host: the learning
# run writes nothing to HOME): neither it nor the link's name is learned,
# and a write through it is learned where it really went.
t learn_link_to_home_never_learns_home
mkdir -p "$HOME/.cache" && ln -s .. "$HOME/.cache/pip"
sx -q --learn="$B/l.ini" -- sh -c 'touch ~/.cache/pip; echo x > ~/.cache/pip/through-link; true'
if [ -f "$B/l.ini" ] && ! learned "$B/l.ini" | grep -qE '^allow_write = ~/?$|/pip' &&
   learned "$B/l.ini" | grep -q '^allow_write = ~/through-link$'; then ok
else bad "rc=$RC learned: $(learned "$B/l.ini" | tr '\n' ' ')"; fi

# Names inih or the policy would read otherwise than written, and host
# names that are wildcards: left out, said, and the file loads as it is.
t learn_unsafe_values_and_wildcard_hosts_are_skipped_and_said
sx -q --learn="$B/l.ini" -- sh -c 'mkdir -p ~/work; echo > ~/work/"a;b"; echo > ~/work/"c#d";
	echo > ~/work/"e,f"; echo > ~/work/"g*"; echo > ~/"nl
[filesystem]"; getent hosts "*" >/dev/null; getent hosts "a,b" >/dev/null; true'
out=$(learned "$B/l.ini")
sx -c "$B/l.ini" -- true; replay=$RC
if [ -f "$B/l.ini" ] && ! grep -qE ';|#|,|\*|^\[filesystem\]$.*\[filesystem\]' <<<"$out" &&
   ! grep -q '^allow_domains' <<<"$out" && [ "$(grep -c '^\[filesystem\]' <<<"$out")" -le 1 ] &&
   [ $replay -eq 0 ]; then ok
else bad "replay rc=$replay learned: $(tr '\n' ' ' <<<"$out")"; fi

t learn_never_allows_protected_or_read_denied_paths
mkdir -p "$HOME/.ssh"
sx -q --learn="$B/l.ini" -- sh -c 'echo x >> ~/.bashrc; echo x > ~/.ssh/new 2>/dev/null;
	echo x > ~/.local/state/sbx/x 2>/dev/null; true'
if [ -f "$B/l.ini" ] && ! learned "$B/l.ini" | grep -qE 'bashrc|\.ssh|state'; then ok
else bad "rc=$RC learned: $(learned "$B/l.ini" | tr '\n' ' ')"; fi

# Under --learn /var/tmp is writable, and the plan looks for protected names
# below it: another user's private directory there (a concurrent test run's
# HOME) holds nothing COMMAND could change, and a root caller's sandbox
# cannot even reach it. On main the run failed to start (125).
t learn_beside_another_users_private_directory_in_var_tmp
if [ "$(id -u)" -eq 0 ] && id sbxtest >/dev/null 2>&1; then
	other=$(runuser -u sbxtest -- mktemp -d /var/tmp/sbx-it-other.XXXXXX)
	runuser -u sbxtest -- sh -c "mkdir -p '$other/home/.git/hooks' && echo x > '$other/home/.bashrc'"
	sx -q --learn="$B/l.ini" -- sh -c 'echo RAN'
	rm -rf "$other"
	if [ $RC -eq 0 ] && has RAN out; then ok
	else bad "rc=$RC: $(tr '\n' ' ' < "$B/err" | head -c 300)"; fi
else skip "needs root and the user sbxtest"; fi

echo "# $(id -un) (learn): $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
