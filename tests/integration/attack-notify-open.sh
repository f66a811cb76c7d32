#!/bin/bash
# Attacks on the seccomp notify layer that still get through: each test
# here FAILS today, and the suite is not in run.sh's list. They show what
# is left (docs/SECURITY.md, "What the boundary does not cover yet") and
# turn green when it is closed; then the test moves to attack-notify.sh.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# A git directory the run makes under another name than `.git` (git init
# --bare, or any directory holding HEAD, objects/ and refs/) is not judged
# as one: its hooks/ take any hook, and a `.git` file's `gitdir:` makes it
# the repository of an innocent-looking directory. The next `git commit`
# there on the host runs the hook; no notice names the repository.
t git_directory_made_under_another_name_gets_no_hook_or_is_named
if command -v git >/dev/null; then
	sx -- sh -c 'git init -q --bare evil && mkdir sub && echo "gitdir: ../evil" > sub/.git &&
		git -C evil config core.bare false && git -C evil config core.worktree "$PWD/sub" &&
		printf "#!/bin/sh\necho ran > \"%s/PWNED\"\n" "$PWD" > evil/hooks/pre-commit &&
		chmod +x evil/hooks/pre-commit; echo END'
	(cd sub && echo x > f && git add f && git -c user.email=t@t -c user.name=t commit -qm x) >/dev/null 2>&1
	if has END out && [ ! -e PWNED ] && { [ ! -e evil/hooks/pre-commit ] || hasf "$W/evil" err; }; then ok
	else bad "the hook ran on the host: $(cat PWNED 2>/dev/null); notice: $(grep -c 'git repositor' "$B/err")"; fi
else skip "no git"; fi

# bind() of an AF_UNIX socket makes a name the layer never sees (notify2
# adds bind to the filter for allow_local_binding and lets Unix paths go
# on): a socket file where a protected name is missing takes its place.
t unix_socket_bound_at_a_protected_name_refused
if command -v python3 >/dev/null; then
	sx -q --no-shim -- python3 -c '
import socket
s = socket.socket(socket.AF_UNIX); s.bind(".mcp.json"); print("bound")'
	if [ ! -S .mcp.json ]; then ok
	else bad "a socket file named .mcp.json: $(cat "$B/out")"; fi
else skip "no python3"; fi

echo "# $(id -un): $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
