#!/bin/bash
# [limits] pids and memory (preload/runlimits.c): a real fork bomb and a
# real memory hog, static (no shim), counted and checked from the host.
# Which mechanism holds depends on the user and the machine: a cgroup (v2
# delegation, or v1/v2 as root), else RLIMIT_NPROC for pids (Linux 5.14+,
# counted per user namespace); memory without a cgroup cannot be enforced
# and the run is refused (fallback = error) or says so (warn). Each test
# reads the start-up line to learn which, and asserts what that mechanism
# must do.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PROGS=$(mktemp -d /var/tmp/sbx-progs.XXXXXX)
trap 'touch "$PROGS/stop-all"; rm -rf "$PROGS"' EXIT
for p in forkbomb memhog; do
	built "$p.static" "$PROGS/$p" 2>"$PROGS/log" ||
		echo "# cannot build tests/progs/$p.c: $(head -3 "$PROGS/log")"
done
chmod -R a+rX "$PROGS"
have() { [ -x "$PROGS/$1" ] || { skip "tests/progs/$1 not built (no static libc?)"; return 1; }; }
# ini TEXT: the user's sandbox.ini for this test
ini() { printf '%s\n' "$@" >"$B/sandbox.ini"; }
bombs() { pgrep -c -x -u "$(id -u)" forkbomb; }

# The bomb forks until the limit refuses it and holds there: the host counts
# the processes while it is held, runs its own programs meanwhile (pgrep,
# touch: the user's process budget is not used up), then lets it stop.
t fork_bomb_contained_under_pids_64_and_gone_after
if have forkbomb; then
	ini "[limits]" "pids = 64"
	before=$(bombs)
	timeout 120 "$SBX" -c "$B/sandbox.ini" -- "$PROGS/forkbomb" "$W" >"$B/out" 2>"$B/err" &
	run=$!
	for _ in $(seq 300); do [ -f "$W/full" ] && break; sleep 0.1; done
	peak=0
	for _ in 1 2 3 4 5; do
		n=$(bombs)
		[ "$n" -gt "$peak" ] && peak=$n
		sleep 0.2
	done
	touch "$W/stop"
	wait "$run"
	RC=$?
	after=$(bombs)
	how=$(grep -o 'limits: pids 64 ([^)]*)' "$B/err")
	if [ "$before" -ne 0 ]; then skip "another forkbomb runs as this user"
	elif ! grep -q '^fork: Resource temporarily unavailable$' "$W/full" 2>/dev/null; then
		bad "the bomb never met the limit: $(cat "$W/full" 2>/dev/null) rc=$RC"
	elif [ "$peak" -gt 64 ] || [ "$peak" -lt 32 ]; then bad "peak $peak processes ($how)"
	elif [ "$after" -ne 0 ]; then bad "$after forkbomb processes left after sbx-preload returned"
	elif [ "$RC" -ne 0 ] || ! has '^stopped after the first refused fork$' out; then
		bad "rc=$RC: $(tr '\n' ' ' <"$B/out")"
	elif [ -z "$how" ]; then bad "no limit in the start-up line: $(head -1 "$B/err")"
	elif [[ "$how" == *cgroup* ]] && ! has '\[limits\] pids = 64 was reached: [0-9]* forks were refused' err; then
		bad "no report of the refused forks ($how)"
	else echo "# peak $peak forkbomb processes under pids = 64 ($how)"; ok; fi
fi

# A hog under memory = 64M: killed by the kernel's OOM killer inside the
# run's cgroup, and said; where no cgroup can be made, the run is refused
# and nothing runs.
t memory_hog_killed_under_memory_64m_or_run_refused
if have memhog; then
	ini "[limits]" "memory = 64M"
	sx -c "$B/sandbox.ini" -- sh -c "touch '$W/ran'; exec '$PROGS/memhog' 512"
	last=$(grep -o '^MiB [0-9]*' "$B/out" | tail -1 | cut -d' ' -f2)
	if has 'limits: memory 64M (cgroup' err; then
		if [ "$RC" -eq 137 ] && ! has survived out && [ "${last:-0}" -ge 16 ] &&
		   [ "${last:-0}" -le 64 ] &&
		   has '\[limits\] memory = 64M was reached: the kernel killed 1 process' err; then
			echo "# killed at $last MiB"; ok
		else bad "rc=$RC last=$last: $(tail -2 "$B/err" | tr '\n' ' ')"; fi
	elif [ "$RC" -eq 125 ] && [ ! -e "$W/ran" ] &&
	     has '\[limits\] memory = 64M cannot be enforced here: .*nothing was run' err; then
		echo "# no writable cgroup for $(id -un): refused"; ok
	else bad "rc=$RC: $(tr '\n' ' ' <"$B/err")"; fi
fi

# fallback = warn: where memory cannot be enforced, one line says so and
# the command runs; where it can, it is enforced and nothing is said.
t memory_not_enforceable_with_fallback_warn_runs_and_says_so
ini "[sandbox]" "fallback = warn" "[limits]" "memory = 64M"
sx -c "$B/sandbox.ini" -- touch "$W/ran"
if has 'limits: memory 64M (cgroup' err; then
	if [ "$RC" -eq 0 ] && [ -e "$W/ran" ] && ! has 'not enforced' err; then ok
	else bad "rc=$RC: $(tr '\n' ' ' <"$B/err")"; fi
elif [ "$RC" -eq 0 ] && [ -e "$W/ran" ] &&
     [ "$(grep -c '\[limits\] memory = 64M not enforced: .*(fallback = warn)$' "$B/err")" -eq 1 ]; then ok
else bad "rc=$RC: $(tr '\n' ' ' <"$B/err")"; fi

# Nothing of the run's cgroups is left behind.
t no_cgroup_left_after_runs
left=$(find /sys/fs/cgroup -maxdepth 6 -type d -name "sbx-*-*" 2>/dev/null |
	while read -r d; do pid=${d##*-}; [ -d "/proc/$pid" ] || echo "$d"; done)
if [ -z "$left" ]; then ok; else bad "left: $left"; fi

# The rlimits are in the start-up line and hold inside.
t cpu_and_nofile_rlimits_shown_and_applied
ini "[limits]" "cpu_seconds = 30" "nofile = 64"
sx -c "$B/sandbox.ini" -- sh -c 'ulimit -t; ulimit -n'
if [ "$RC" -eq 0 ] && [ "$(tr '\n' ' ' <"$B/out")" = "30 64 " ] &&
   has 'limits: cpu 30 s (rlimit), nofile 64 (rlimit)' err; then ok
else bad "rc=$RC out=$(tr '\n' ' ' <"$B/out"): $(head -1 "$B/err")"; fi

echo "# $(id -un) (limits): $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
