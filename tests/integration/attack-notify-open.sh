#!/bin/bash
# Attacks on the seccomp notify layer that still get through: each test
# here FAILS today, and the suite is not in run.sh's list. They show what
# is left (docs/SECURITY.md, "What the boundary does not cover yet") and
# turn green when it is closed; then the test moves to attack-notify.sh.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# A git directory the run makes under another name than `.git` (git init
# --bare, or any directory holding HEAD, objects/ and refs/) is judged by
# no rule: its hooks/ take any hook, and git run in it on the host runs
# them. A `.git` file naming it is listed at the end (attack-notify.sh);
# the bare repository alone is not.
t bare_repository_made_in_the_run_gets_no_hook_or_is_named
if command -v git >/dev/null; then
	sx -- sh -c 'git init -q --bare evil.git &&
		printf "#!/bin/sh\necho ran > \"%s/PWNED\"\n" "$PWD" > evil.git/hooks/reference-transaction &&
		chmod +x evil.git/hooks/reference-transaction; echo END'
	(cd evil.git && git update-ref refs/tags/x "$(git hash-object -w --stdin </dev/null)") >/dev/null 2>&1
	if has END out && { [ ! -e PWNED ] || hasf "$W/evil.git" err; }; then ok
	else bad "the hook ran on the host: $(cat PWNED 2>/dev/null); notice: $(grep -c 'git repositor' "$B/err")"; fi
else skip "no git"; fi

echo "# $(id -un): $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
