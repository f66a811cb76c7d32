#!/bin/bash
# Integration tests: real programs under the real sandbox.
# Runs the suites (suite.sh: the boundary; shim.sh: the preload shim and its
# reports) as the calling user; as root, also as an unprivileged user created
# here (users run sbx as themselves, CI runs as root).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

# A copy every user can reach (the checkout may sit under /root), and not
# under /tmp: inside the sandbox /tmp is a private, empty tmpfs.
bin=$(mktemp -d /var/tmp/sbx-it-bin.XXXXXX)
trap 'rm -rf "$bin"' EXIT
cp "$top/build/sbx-preload" "$top/build/sbx-init" "$top/build/libsbx-preload.so" "$top/policy/execlater.c" \
	"$here"/*.sh "$here"/*.py "$bin/"
# sbx-preload with a Landlock ABI forced lower (SBX_TEST_LANDLOCK_ABI;
# tests/integration/nested.sh), beside sbx-init as an install has it
[ -f "$top/build/tests/sbx-preload-abi" ] && cp "$top/build/tests/sbx-preload-abi" "$bin/"
# the proxy's test driver (tests/integration/net.sh)
[ -f "$top/build/sbx-proxy-test" ] && cp "$top/build/sbx-proxy-test" "$bin/"
# the management command (tests/integration/sbxctl.sh)
[ -f "$top/build/sbxctl" ] && cp "$top/build/sbxctl" "$bin/"
# its man pages and shell completion, checked there too
mkdir -p "$bin/share" && cp -r "$top/docs/man" "$bin/share/man"
[ -d "$top/share/completion" ] && cp -r "$top/share/completion" "$bin/share/completion"
[ -d "$top/tests/progs" ] && cp -r "$top/tests/progs" "$bin/progs"
# the coverage table explain.sh measures and compares
mkdir -p "$bin/docs" && cp "$top/docs/REPORTS.md" "$bin/docs/"
# the credential table creds.sh reads every row of
mkdir -p "$bin/policy" && cp "$top/policy/credentials.c" "$bin/policy/"
# `make run`'s demonstration, laid out as in the checkout (scripts/, build/)
mkdir "$bin/scripts" && cp "$top/scripts/demo.sh" "$bin/scripts/" && ln -s . "$bin/build"
# the built-in agent profiles, where an install keeps them (../share from bin/)
mkdir -p "$bin/share/sbx" && cp -r "$top/share/sbx/profiles" "$bin/share/sbx/"
export SBX_PROFILE_DIR="$bin/share/sbx/profiles"
chmod -R a+rX "$bin"

# Every suite that exists: the boundary, the shim, and one per concern.
# SUITES="net.sh harm.sh" runs only those (make check-integration SUITES=...);
# SBX_IT_USERS=self or SBX_IT_USERS=sbxtest runs only one of the two users.
suites=""
for s in ${SUITES:-suite.sh shim.sh seccomp.sh stream.sh learn.sh init.sh mounts.sh harm.sh userworld.sh gitguard.sh net.sh limits.sh persist.sh execlater.sh creds.sh homekept.sh walkrec.sh sbxctl.sh notify.sh attack-notify.sh nested.sh tty.sh agents.sh explain.sh}; do
	[ -f "$here/$s" ] && suites="$suites $s"
done
# The real agents (agents.sh) come from the npm registry, installed once
# here for both users into a directory every user can read; agents.sh skips
# their tests, saying why, when the registry cannot be reached.
case " $suites " in *" agents.sh "* | *" explain.sh "* | *" agents-e2e.sh "* | *" execlater.sh "*)
	export SBX_IT_AGENTS=${SBX_IT_AGENTS:-/var/tmp/sbx-it-agents}
	bash "$here/agents-install.sh" "$SBX_IT_AGENTS" ;;
esac
rc=0
if [ "${SBX_IT_USERS:-all}" != sbxtest ]; then
	echo "# integration tests as $(id -un)"
	for s in $suites; do
		SBX_BIN="$bin" bash "$bin/$s" || rc=1
	done
fi

if [ "$(id -u)" -eq 0 ] && [ "${SBX_IT_USERS:-all}" != self ]; then
	user=sbxtest
	id "$user" >/dev/null 2>&1 || useradd -m -s /bin/bash "$user"
	echo "# integration tests as $user (unprivileged)"
	for s in $suites; do
		runuser -u "$user" -- env -i PATH=/usr/local/bin:/usr/bin:/bin \
			HOME="$(getent passwd "$user" | cut -d: -f6)" LANG=C.UTF-8 \
			SBX_BIN="$bin" SBX_PROFILE_DIR="$SBX_PROFILE_DIR" \
			SBX_IT_AGENTS="${SBX_IT_AGENTS:-}" bash "$bin/$s" || rc=1
	done
fi
exit $rc
