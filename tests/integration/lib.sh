#!/bin/bash
# Helpers shared by the integration suites (suite.sh, shim.sh); sourced.
# Each test gets a fresh workspace W and a fake HOME holding a canary key,
# both under /var/tmp (not /tmp: private inside the sandbox), and asserts on
# what happened on the host, not on exit codes alone.
SBX="$SBX_BIN/sbx-preload"
# The same program with the test hooks compiled in (Makefile, HOOK_NAMES:
# SBX_TEST_HOSTS, SBX_TEST_DNS, SBX_TEST_LANDLOCK_ABI): only for the tests
# that set one; $SBX, as installed, ignores them.
SBX_HOOKS="$SBX_BIN/sbx-preload-hooks"
unset SBX_CONFIG SBX_NO_SANDBOX SBX_ALLOWED_DOMAINS XDG_CONFIG_HOME XDG_STATE_HOME
# The tests play a person at a terminal, not a CI job: with CI set, Gemini
# CLI runs headless and stops at its trusted-folder check before its UI
# (and other tools change their output), so CI's own variable stays out.
unset CI CONTINUOUS_INTEGRATION
pass=0 fail=0 skip=0 T=""
TIMEOUT=$(command -v timeout)

t() { # start a test
	T=$1
	_it_t0=$EPOCHREALTIME
	B=$(mktemp -d /var/tmp/sbx-it.XXXXXX)
	export HOME=$B/home
	W=$B/ws
	mkdir -p "$HOME/.ssh" "$W"
	SECRET="TOPSECRET-$RANDOM$RANDOM"
	echo "$SECRET" > "$HOME/.ssh/id_ed25519"
	echo "known-host-line" > "$HOME/.ssh/known_hosts"
	cd "$W" || exit 1
}
done_() { cd /; rm -rf "$B"; [ -z "${SBX_IT_TIMES:-}" ] || echo "# time - $T ${_it_t0:+$(_it_secs)}"; }
# SBX_IT_TIMES=1: each test's wall time after its result (run.sh sums them)
_it_secs() { local n=${EPOCHREALTIME/./}; n=$(((n - ${_it_t0/./}) / 1000)); printf '%d.%03d' $((n / 1000)) $((n % 1000)); }
ok() { echo "ok - $T"; pass=$((pass + 1)); done_; }
bad() { echo "FAIL - $T: $*"; [ -f "$B/err" ] && sed 's/^/#   /' "$B/err" | head -5 | cut -c1-400; fail=$((fail + 1)); done_; }
skip() { echo "skip - $T: $*"; skip=$((skip + 1)); done_; }
# sx ARGS: run sbx-preload, stdout in $B/out, stderr in $B/err, status in RC
sx() { timeout 60 "$SBX" "$@" >"$B/out" 2>"$B/err"; RC=$?; }
has() { grep -q -- "$1" "$B/$2"; }
# built NAME OUT: the test program NAME as make built it once (tests/progs/
# NAME.c into build/tests/progs/NAME, NAME.static, NAME.musl; goclient),
# copied to OUT: a file of the user who runs the suite, as if built here
built() { cp "$SBX_BIN/progs/bin/$1" "$2"; }
# hasf TEXT FILE: like has, for a fixed string (backquotes, dots, brackets)
hasf() { grep -qF -- "$1" "$B/$2"; }
# mkrepo DIR: a repository with one commit, its identity in its own config
mkrepo() {
	mkdir -p "$1" && git -C "$1" init -q -b main &&
	git -C "$1" config user.name sbx-test && git -C "$1" config user.email sbx@test &&
	git -C "$1" config commit.gpgsign false &&
	echo a > "$1/a" && git -C "$1" add a && git -C "$1" commit -qm init
}
