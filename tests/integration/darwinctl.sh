#!/bin/bash
# macOS's sbxctl (cli/ over cli/machine_darwin.c), run on Linux: the test
# build (build/tests/darwin/sbxctl) takes sandbox-exec, log, csrutil and
# the dylib from stand-ins/ beside it, as the test build of macOS's
# sbx-preload does (darwin.sh; tests/darwin/stand-ins/). What is checked
# is sbxctl's part, against real output: doctor's checks of the stand-in
# sandbox-exec and the known limits as --print=seatbelt says them, check's
# answers as a run refuses, status's runs and withheld variables from a
# darwin run going on, log reading what such a run wrote, the hook inside
# a run judging with that run's policy, and hostile entries in the state
# directory. The Mac's own build (build/darwin/sbxctl) only fails closed
# here, naming /usr/bin.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DW=$SBX_BIN/darwin
if [ ! -x "$DW/test/sbxctl" ] || [ ! -x "$DW/mac/sbxctl" ] || [ ! -x "$DW/test/sbx-preload" ]; then
	echo "FAIL - darwinctl.sh: the darwin builds are missing (make build/tests/darwin/sbxctl build/darwin/sbxctl build/tests/darwin/sbx-preload)"
	exit 1
fi

# dt NAME: a test with both test builds and fresh stand-ins in $B/bin
# (S: the stand-ins' directory, log.fifo the kernel's records)
dt() {
	t "$1"
	mkdir -p "$B/bin"
	cp "$DW/test/sbx-preload" "$DW/test/sbxctl" "$B/bin/"
	cp -r "$DW/stand-ins" "$B/bin/stand-ins"
	S=$B/bin/stand-ins
	mkfifo "$S/log.fifo"
	SBX=$B/bin/sbx-preload
	CTL=$B/bin/sbxctl
	STATE=$HOME/.local/state/sbx
}
# ctl ARGS: sbxctl, stdout in $B/out, stderr in $B/err, status in RC
ctl() { (cd "$W" && timeout 60 "$CTL" "$@") >"$B/out" 2>"$B/err"; RC=$?; }
json_path() { printf '%s' "$1" | sed 's,/,\\/,g'; }
# kernel COMM OP PATH: one refusal as the kernel logs it, with the run's
# tag and COMMAND's pid (the stand-in sandbox-exec fills them in)
kernel() {
	printf '{"processImagePath":"\\/kernel","senderImagePath":"\\/System\\/Library\\/Extensions\\/Sandbox.kext\\/Contents\\/MacOS\\/Sandbox","eventMessage":"Sandbox: %s(@PID@) deny(1) %s %s\\n@TAG@","processID":0}\n' \
		"$1" "$2" "$(json_path "$3")" >>"$S/kernel.ndjson"
}
wait_file() {
	for _ in $(seq 600); do [ -e "$1" ] && return 0; sleep 0.05; done
	return 1
}
# start_run ARGS...: the darwin test build in the background, its COMMAND
# waiting on $B/go (a FIFO) once it made $B/ready; RUN its pid
start_run() {
	mkfifo "$B/go"
	(cd "$W" && exec "$SBX" "$@" -- sh -c 'touch "$0/ready"; read x < "$0/go"' "$B") \
		>"$B/run.out" 2>"$B/run.err" &
	RUN=$!
	wait_file "$B/ready"
}
end_run() { echo go >"$B/go"; wait "$RUN"; }

# ---- doctor

dt doctor_runs_the_stand_in_sandbox_exec_and_names_each_program
ctl doctor
if [ $RC -eq 0 ] &&
	hasf "ok    sandbox-exec       $S/sandbox-exec applies a profile (a test run of (allow default) exited 0)" out &&
	[ "$(cat "$S/profile.sb")" = '(version 1)(allow default)' ] &&
	hasf "ok    log                $S/log " out &&
	hasf "ok    shim               $S/libsbx-preload.dylib" out &&
	hasf 'ok    SIP                not asked (no csrutil)' out &&
	! grep -qiE 'bubblewrap|landlock|seccomp|namespace' "$B/out" &&
	tail -n 1 "$B/out" | grep -qx '0 problems, 0 warnings: the sandbox can start'; then ok
else bad "rc=$RC $(head -c 600 "$B/out")"; fi

dt doctor_says_sip_as_csrutil_says_it
printf '#!/bin/sh\n[ "$1" = status ] && echo "System Integrity Protection status: enabled."\n' >"$S/csrutil"
chmod +x "$S/csrutil"
ctl doctor
doc=$(grep '  SIP  ' "$B/out")
ctl status
if [ $RC -eq 0 ] && [[ $doc == 'ok    SIP                enabled: macOS strips DYLD_* '* ]] &&
	grep -qE '^  SIP +enabled$' "$B/out"; then ok
else bad "doctor=[$doc] status=[$(grep SIP "$B/out")]"; fi

dt doctor_fails_without_sandbox_exec_and_with_one_that_cannot_apply_a_profile
rm "$S/sandbox-exec"
ctl doctor
missing_rc=$RC missing=$(grep '^FAIL  sandbox-exec ' "$B/out")
missing_end=$(tail -n 1 "$B/out")
# one that refuses, as sandbox-exec says it when it cannot apply a profile
printf '#!/bin/sh\necho "sandbox-exec: sandbox_apply: Operation not permitted" >&2\nexit 65\n' >"$S/sandbox-exec"
chmod +x "$S/sandbox-exec"
ctl doctor
if [ $missing_rc -eq 1 ] && [ "$missing" = "FAIL  sandbox-exec       $S/sandbox-exec missing: it is part of macOS, and every run is made by it" ] &&
	[ "$missing_end" = '1 problem, 0 warnings: the sandbox cannot start' ] &&
	[ $RC -eq 1 ] &&
	hasf "FAIL  sandbox-exec       $S/sandbox-exec failed to apply a test profile ((allow default) running /usr/bin/true: exit 65, sandbox-exec: sandbox_apply: Operation not permitted): no run can start" out &&
	tail -n 1 "$B/out" | grep -qx '1 problem, 0 warnings: the sandbox cannot start'; then ok
else bad "rc=$missing_rc/$RC missing=[$missing] $(grep '^FAIL  sandbox-exec' "$B/out")"; fi

dt doctor_fails_without_log_and_warns_without_the_dylib
rm "$S/log" "$S/libsbx-preload.dylib"
ctl doctor
if [ $RC -eq 1 ] &&
	hasf "FAIL  log                $S/log missing: a run reads Seatbelt's refusals from it and does not start without it" out &&
	hasf 'warn  shim               libsbx-preload.dylib not found' out &&
	tail -n 1 "$B/out" | grep -qx '1 problem, 1 warning: the sandbox cannot start'; then ok
else bad "rc=$RC $(grep -E 'log|shim' "$B/out")"; fi

dt doctor_prints_the_known_limits_as_print_seatbelt_does
# the one table (backend/darwin/limits.c): doctor's rows and the comment
# lines after --print=seatbelt's command, compared as printed
(cd "$W" && "$SBX" --print=seatbelt -- true) >"$B/print" 2>/dev/null
sed -n 's/^# sbx on macOS, //p' "$B/print" >"$B/limits.print"
ctl doctor
sed -n '/^known limits on macOS/,/^[0-9]* problem/p' "$B/out" | sed -n 's/^  //p' >"$B/limits.doctor"
n=$(wc -l <"$B/limits.print")
if [ $RC -eq 0 ] && [ "$n" -ge 4 ] && cmp -s "$B/limits.print" "$B/limits.doctor" &&
	grep -q '^SIP and DYLD: ' "$B/limits.doctor"; then ok
else bad "rc=$RC n=$n $(diff "$B/limits.print" "$B/limits.doctor" | head -5)"; fi

dt doctor_fails_a_policy_with_limits_and_warns_on_nested
printf '[sandbox]\nnested = true\n[limits]\nmemory = 1G\n' >"$B/l.ini"
ctl doctor -c "$B/l.ini"
(cd "$W" && "$SBX" --config "$B/l.ini" -- true) 2>"$B/run.err"
run_rc=$?
if [ $RC -eq 1 ] && [ $run_rc -eq 125 ] &&
	hasf 'FAIL  limits             [limits] are not enforced by sbx on macOS (no cgroups, no sbx-init): every run is refused; remove them' out &&
	hasf 'warn  nested             nested = true is Linux' out &&
	grep -qF '[limits] are not enforced by sbx on macOS' "$B/run.err"; then ok
else bad "rc=$RC run=$run_rc $(grep -E 'limits|nested' "$B/out")"; fi

dt the_macs_own_build_names_usr_bin_only_and_fails_closed_here
# stand-ins beside it change nothing: the Mac's build was not given them
cp "$DW/mac/sbxctl" "$B/bin/sbxctl-mac"
(cd "$W" && SBX_SANDBOX_EXEC="$S/sandbox-exec" PATH="$S:$PATH" "$B/bin/sbxctl-mac" doctor) >"$B/out" 2>"$B/err"
RC=$?
if [ $RC -eq 1 ] && [ ! -e /usr/bin/sandbox-exec ] &&
	hasf 'FAIL  sandbox-exec       /usr/bin/sandbox-exec missing' out &&
	hasf 'FAIL  log                /usr/bin/log missing' out &&
	! grep -q "$S" "$B/out"; then ok
else bad "rc=$RC $(head -c 400 "$B/out")"; fi

# ---- check, status, log, hook

dt check_says_what_a_run_refuses
kernel cat file-read-data "$HOME/.ssh/id_ed25519"
(cd "$W" && "$SBX" -- true) 2>"$B/run.err"
ctl check --read "$HOME/.ssh/id_ed25519" --write "$W/notes" --write "$HOME/.bashrc"
# the run's report names the rule check names
if [ $RC -eq 1 ] &&
	grep -qF 'sbx: denied read of ~/.ssh/id_ed25519 by `deny_read = ~/.ssh`' "$B/run.err" &&
	grep -qxF "$(printf 'deny  read ~/.ssh/id_ed25519\tdeny_read = ~/.ssh\tdefault')" "$B/out" &&
	grep -qxF "$(printf 'allow write %s/notes\tallow_write = %s\tisolation' "$W" "$W")" "$B/out" &&
	grep -qxF "$(printf 'deny  write ~/.bashrc\tdeny_write = .bashrc\tmandatory')" "$B/out" &&
	grep -qx "P[0-9]*=/private$HOME/.ssh" "$S/params"; then ok
else bad "rc=$RC $(cat "$B/out") $(grep denied "$B/run.err")"; fi

dt check_says_a_git_part_the_run_keeps_read_only_as_on_linux
# a bare repository in the workspace: no rule names its hooks; the run's
# plan finds it on the disk and the Seatbelt profile denies them
# (darwin.sh), as Linux's mounts do (sbxctl.sh)
git init -q --bare "$W/repo.git"
ctl check --write "$W/repo.git/hooks/pre-commit"
if [ $RC -eq 1 ] &&
	grep -qxF "$(printf 'deny  write %s/repo.git/hooks/pre-commit\ta hook of the git directory %s/repo.git\tkept read-only by the run (git on the host runs or reads it; no setting lifts it)' "$W" "$W")" "$B/out" &&
	! grep -q "not kept read-only" "$B/out"; then ok
else bad "rc=$RC $(cat "$B/out")"; fi

dt status_lists_a_running_darwin_run_and_the_withheld_variables
start_run
id=$(ls "$STATE" | sed -n 's/^shim-//p')
GITHUB_TOKEN=ghp_0123456789abcdefghijklmnopqrstuvwxyz01 ctl status
during=$(sed -n '/^runs /,/^$/p' "$B/out")
withheld=$(grep -F 'GITHUB_TOKEN' "$B/out")
end_run
ctl status
after=$(sed -n '/^runs /,/^$/p' "$B/out")
if [ -n "$id" ] && [[ $id == *-$RUN ]] &&
	grep -qE "^  $id +running since [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8}, sbx-preload pid $RUN, workspace $W\$" <<<"$during" &&
	[[ $withheld == *'(withheld here)'*'GITHUB_TOKEN'*'its name looks secret (--keep-env GITHUB_TOKEN passes it)'* ]] &&
	[ ! -e "$STATE/shim-$id" ] && grep -qx '  (none running)' <<<"$after" &&
	! grep -qiE 'bubblewrap|landlock|seccomp' "$B/out"; then ok
else bad "id=$id run=$RUN during=[$during] withheld=[$withheld] after=[$after]"; fi

# and by the name a start takes when its first is held (shim-RUNID-N)
dt status_tells_a_run_killed_from_one_going_on
start_run
id=$(ls "$STATE" | sed -n 's/^shim-//p')
kill -KILL "$RUN"
{ wait "$RUN"; } 2>/dev/null
mv "$STATE/shim-$id" "$STATE/shim-$id-1"
id=$id-1
ctl status --no-machine
echo go >"$B/go" # COMMAND, left behind, ends
if [ -d "$STATE/shim-$id" ] &&
	grep -qE "^  $id +its sbx-preload ended \(killed\?\) without removing $STATE/shim-$id: the next start or \`sbx-preload --cleanup\` removes it\$" "$B/out" &&
	! grep -q 'running since' "$B/out"; then ok
else bad "id=$id $(sed -n '/^runs /,$p' "$B/out")"; fi

dt log_reads_the_records_a_darwin_run_wrote
kernel cat file-read-data "$HOME/.ssh/id_ed25519"
(cd "$W" && "$SBX" -- true) 2>"$B/run.err"
ctl log
text=$(cat "$B/out")
ctl log --json
if [ $RC -eq 0 ] && grep -qF 'denied read of ~/.ssh/id_ed25519' "$B/run.err" &&
	grep -qE "deny +read +$HOME/.ssh/id_ed25519 +by \`deny_read = ~/.ssh\`" <<<"$text" &&
	python3 -c 'import json,sys
r=[json.loads(l) for l in open(sys.argv[1])]
assert any(x.get("layer")=="seatbelt" and x.get("target")==sys.argv[2] and x.get("decision")=="deny" for x in r)' \
		"$B/out" "$HOME/.ssh/id_ed25519"; then ok
else bad "rc=$RC text=[$text]"; fi

dt hook_inside_a_darwin_run_judges_with_that_runs_policy
echo notes >"$W/notes.txt"
J=$(printf '{"tool_name":"Read","tool_input":{"file_path":"%s/notes.txt"},"cwd":"%s","hook_event_name":"PreToolUse"}' "$W" "$W")
outside=$(cd "$W" && printf '%s' "$J" | "$CTL" hook claude)
(cd "$W" && "$SBX" --deny-read "$W/notes.txt" -- sh -c 'printf "%s" "$1" | "$0" hook claude > "$2"; echo "$SBX_SHIM" > "$2.spec"' \
	"$CTL" "$J" "$B/inside") 2>"$B/run.err"
if [ -z "$outside" ] && grep -q '^1;mode=enforce;policy=/' "$B/inside.spec" &&
	python3 -c 'import json,sys
o=json.load(open(sys.argv[1]))["hookSpecificOutput"]
assert o["permissionDecision"]=="deny"
assert "--deny-read" in o["permissionDecisionReason"], o' "$B/inside"; then ok
else bad "outside=[$outside] inside=[$(cat "$B/inside" 2>/dev/null)]"; fi

# ---- hostile entries: the state directory and SBX_SHIM

dt status_and_hook_take_nothing_hostile_in_the_state_directory
# beside a real run: a link named as a hand-over to a directory whose
# FIFO has a reader; a directory whose `reports` is a link to that FIFO;
# one whose `reports` is a regular file; one with no reader; names that
# are not run ids (a newline, an escape)
start_run
mkdir -p "$B/elsewhere"
mkfifo "$B/elsewhere/reports"
exec 7<>"$B/elsewhere/reports"
ln -s "$B/elsewhere" "$STATE/shim-20260101-000000-1"
mkdir "$STATE/shim-20260101-000000-2" "$STATE/shim-20260101-000000-3" "$STATE/shim-20260101-000000-4"
ln -s "$B/elsewhere/reports" "$STATE/shim-20260101-000000-2/reports"
echo x >"$STATE/shim-20260101-000000-3/reports"
mkfifo "$STATE/shim-20260101-000000-4/reports"
mkdir "$STATE/$(printf 'shim-2026\n0101-000000-5')" "$STATE/$(printf 'shim-\033[2J-6')"
ctl status --no-machine
runs=$(sed -n '/^runs /,/^$/p' "$B/out")
st_rc=$RC
# SBX_SHIM naming a FIFO with no writer, a `..` path, a directory: no hang,
# no policy, the hook as outside a run
J=$(printf '{"tool_name":"Read","tool_input":{"file_path":"%s/.ssh/id_ed25519"},"cwd":"%s","hook_event_name":"PreToolUse"}' "$HOME" "$W")
hook_ok=1
for spec in "1;policy=$STATE/shim-20260101-000000-4/reports" "1;policy=$STATE/../sbx/x/policy" \
	"1;policy=$STATE" "1;policy=relative"; do
	out=$(cd "$W" && printf '%s' "$J" | SBX_SHIM=$spec timeout 10 "$CTL" hook claude)
	[[ $out == *'"permissionDecision":"deny"'*'deny_read = ~/.ssh'* ]] || hook_ok=0
done
end_run
exec 7>&-
if [ $st_rc -eq 0 ] && [ $hook_ok = 1 ] &&
	[ "$(grep -c 'running since' <<<"$runs")" = 1 ] && grep -q "pid $RUN," <<<"$runs" &&
	grep -qE '^  20260101-000000-4 +its sbx-preload ended' <<<"$runs" &&
	! grep -qE '000000-[12356]|elsewhere' <<<"$runs" && ! grep -q $'\033' "$B/out"; then ok
else bad "rc=$st_rc hook=$hook_ok runs=[$runs]"; fi

echo "# darwinctl: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
