#!/bin/bash
# Integration tests: real programs under the real sandbox.
#
# Every suite (each *.sh here that sources lib.sh or has an ok of its own)
# runs once as an unprivileged user: as root, the user sbxtest, created
# here; otherwise the caller. As root, the tests that need root or test what
# differs for root run a second time as root (`root` rows of
# tests/integration/placement). The tests that install from a package
# registry (`agents` rows) skip, saying so, in `make check`; `make
# check-agents` runs their suites with the packages installed, as both
# users.
#
#   SUITES="net.sh harm.sh"  only those suites
#   SBX_IT_USERS=sbxtest     only the unprivileged run
#   SBX_IT_USERS=root        only the root run (the suites with `root` rows)
#   SBX_IT_USERS=self        every test as the caller (root: every one as root)
#   SBX_IT_USERS=all         every test as root and as sbxtest
#   SBX_IT_TARGET=agents     the `agents` rows (make check-agents)
#   SBX_IT_JOBS=N            suites run at once (default: 2 per core)
#   SBX_IT_TIMES=1           each test's wall time after its result
#
# Each suite's output is printed whole when it ends, and kept in
# build/tests/integration/USER-SUITE.log.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)

# the test programs, built once (Makefile: test-progs), up to date
MAKEFLAGS= make -C "$top" -s --no-print-directory test-progs >&2 || echo "# the test programs could not all be built"

# A copy every user can reach (the checkout may sit under /root), and not
# under /tmp: inside the sandbox /tmp is a private, empty tmpfs.
bin=$(mktemp -d /var/tmp/sbx-it-bin.XXXXXX)
trap 'rm -rf "$bin"' EXIT
cp "$top/build/sbx-preload" "$top/build/sbx-init" "$top/build/libsbx-preload.so" "$top/policy/execlater.c" \
	"$here"/*.sh "$here"/*.py "$bin/"
# sbx-preload and sbxctl with the test hooks compiled in (Makefile,
# HOOK_NAMES), beside the installed ones, for the tests that set a hook
# (lib.sh: SBX_HOOKS); every other test runs the programs as installed
[ -f "$top/build/tests/sbx-preload-hooks" ] && cp "$top/build/tests/sbx-preload-hooks" "$bin/"
[ -f "$top/build/tests/sbxctl-hooks" ] && cp "$top/build/tests/sbxctl-hooks" "$bin/"
# the proxy's test driver (tests/integration/net.sh)
[ -f "$top/build/sbx-proxy-test" ] && cp "$top/build/sbx-proxy-test" "$bin/"
# the management command (tests/integration/sbxctl.sh)
[ -f "$top/build/sbxctl" ] && cp "$top/build/sbxctl" "$bin/"
# macOS's sbx-preload: the test build (stand-ins beside it) and the Mac's own
if [ -f "$top/build/tests/darwin/sbx-preload" ] && [ -f "$top/build/darwin/sbx-preload" ]; then
	mkdir -p "$bin/darwin/test" "$bin/darwin/mac"
	cp "$top/build/tests/darwin/sbx-preload" "$bin/darwin/test/"
	cp "$top/build/darwin/sbx-preload" "$bin/darwin/mac/"
	cp -r "$top/tests/darwin/stand-ins" "$bin/darwin/stand-ins"
	# the shim's real core playing the dylib (tests/darwin/shimwriter.c)
	[ -f "$top/build/tests/darwin/shim-writer" ] && cp "$top/build/tests/darwin/shim-writer" "$bin/darwin/"
	# the dylib's sources as a Linux shared object (its start-up)
	[ -f "$top/build/tests/darwin/dylib-start.so" ] &&
		cp "$top/build/tests/darwin/dylib-start.so" "$bin/darwin/"
fi
# macOS's sbxctl, both builds likewise (tests/integration/darwinctl.sh)
for f in tests/darwin/sbxctl:test darwin/sbxctl:mac; do
	[ -f "$top/build/${f%:*}" ] && [ -d "$bin/darwin/${f#*:}" ] && cp "$top/build/${f%:*}" "$bin/darwin/${f#*:}/"
done
# its man pages and shell completion, checked there too
mkdir -p "$bin/share" && cp -r "$top/docs/man" "$bin/share/man"
[ -d "$top/share/completion" ] && cp -r "$top/share/completion" "$bin/share/completion"
[ -d "$top/tests/progs" ] && cp -r "$top/tests/progs" "$bin/progs"
# the test programs, built once by make (build/tests/progs: Makefile)
[ -d "$top/build/tests/progs" ] && mkdir -p "$bin/progs" && cp -r "$top/build/tests/progs" "$bin/progs/bin"
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

# placed SUITE PLACE: the test globs of SUITE's rows for PLACE (root, agents)
placed() {
	sed -e 's/#.*//' "$here/placement" | awk -v s="$1" -v p="$2" '$1 == s && $3 == p { print $2 }'
}
# suite FILE: is FILE a suite (it sources lib.sh or has an ok of its own)?
suite() { [ "${1##*/}" != lib.sh ] && grep -qE '^\. .*/lib\.sh"$|^ok\(\)' "$1"; }
target=${SBX_IT_TARGET:-check}
suites=""
if [ -n "${SUITES:-}" ]; then
	for s in $SUITES; do [ -f "$here/$s" ] && suites="$suites $s"; done
else
	for f in "$here"/*.sh; do
		s=${f##*/}
		suite "$f" || continue
		if [ "$target" = agents ]; then
			[ -n "$(placed "$s" agents)" ] && suites="$suites $s"
		else
			[ "$(placed "$s" agents)" = '*' ] || suites="$suites $s"
		fi
	done
fi
# The real agents and the MCP packages come from the npm registry (pinned
# in agents-install.sh), installed once here into a directory every user
# can read; the tests that need them skip, saying why, without it.
if [ "$target" = agents ]; then
	export SBX_IT_AGENTS=${SBX_IT_AGENTS:-/var/tmp/sbx-it-agents}
	bash "$here/agents-install.sh" "$SBX_IT_AGENTS"
else
	unset SBX_IT_AGENTS
fi

# The runs, "USER:SUITE"; the rows each must see start, in $jobdir/USER-SUITE.rows
me=$(id -un)
users=${SBX_IT_USERS:-default}
if [ "$(id -u)" -ne 0 ]; then
	case $users in sbxtest | root | all) echo "# SBX_IT_USERS=$users needs root"; exit 1 ;; esac
	users=self
elif [ "$users" != self ]; then
	user=sbxtest
	id "$user" >/dev/null 2>&1 || useradd -m -s /bin/bash "$user"
fi
jobdir=$top/build/tests/integration
rm -rf "$jobdir" && mkdir -p "$jobdir" && chmod 755 "$jobdir"
runs=""
add() { # add USER SUITE [ROWS]
	runs="$runs $1:$2"
	printf '%s' "${3:-}" | grep -vx '\*' > "$jobdir/$1-$2.rows"
}
for s in $suites; do
	ag=$(placed "$s" agents) rt=$(placed "$s" root)
	if [ "$target" = agents ]; then
		[ "$users" = sbxtest ] || add "$me" "$s" "$ag"
		[ -n "${user:-}" ] && [ "$users" != self ] && add "$user" "$s" "$ag"
		continue
	fi
	case $users in
	self) add "$me" "$s" ;;
	sbxtest) add "$user" "$s" ;;
	all) add "$me" "$s"; add "$user" "$s" ;;
	default | root)
		[ "$users" = root ] || add "$user" "$s"
		[ -z "$rt" ] || add "$me" "$s" "$rt" ;;
	esac
done

# run USER SUITE: one suite as one user, its output in $jobdir/USER-SUITE.log
run() {
	local u=$1 s=$2 f=$bin/$2
	if [ "$u" = "$me" ]; then
		SBX_BIN="$bin" bash "$f"
	else
		runuser -u "$u" -- env -i PATH=/usr/local/bin:/usr/bin:/bin \
			HOME="$(getent passwd "$u" | cut -d: -f6)" LANG=C.UTF-8 \
			SBX_BIN="$bin" SBX_PROFILE_DIR="$SBX_PROFILE_DIR" SBX_IT_AGENTS="${SBX_IT_AGENTS:-}" \
			SBX_IT_TIMES="${SBX_IT_TIMES:-}" bash "$f"
	fi >"$jobdir/$u-$s.log" 2>&1
}
# finished USER SUITE RC SECONDS: print its output; a FAIL line or a
# status other than 0 fails the run, and so does a row of placement that
# started no test (a test renamed, not the row)
rc=0
finished() {
	local u=$1 s=$2 g
	echo "# $s as $u (${4}s)"
	cat "$jobdir/$u-$s.log"
	[ "$3" -eq 0 ] && ! grep -q '^FAIL - ' "$jobdir/$u-$s.log" || rc=1
	while IFS= read -r g; do
		[ -n "$g" ] && ! started_one "$jobdir/$u-$s.log" "$g" || continue
		echo "FAIL - $s: placement row \`$g\` started no test as $u"
		rc=1
	done < "$jobdir/$u-$s.rows"
}
started_one() { # started_one LOG GLOB: a test matching GLOB printed its result in LOG
	local n
	while IFS= read -r n; do
		# shellcheck disable=SC2053
		[[ $n == $2 ]] && return 0
	done < <(sed -nE 's/^(ok|FAIL|skip) - ([^:]*).*/\2/p' "$1")
	return 1
}

# The longest first (the size of the suite stands for its length), up to
# SBX_IT_JOBS at once: the tests mostly wait on processes and I/O. A suite
# with a `heavy` row (floods with a time bound) never runs beside another.
order=$(for r in $runs; do
	u=${r%%:*} s=${r#*:} n=$(stat -c %s "$here/$s")
	echo "$n $r"
done | sort -rn | cut -d' ' -f2)
read -r -a pending <<<"$(echo $order)"
max=${SBX_IT_JOBS:-$((2 * $(nproc)))}
declare -A started pid_of
running=0 heavy=0
heavy_run() { [ -n "$(placed "${1#*:}" heavy)" ]; }
echo "# integration tests: ${#pending[@]} runs, $max at once"
while :; do
	while [ $running -lt "$max" ]; do
		pick=""
		for i in "${!pending[@]}"; do
			[ $heavy -gt 0 ] && heavy_run "${pending[$i]}" && continue
			pick=$i
			break
		done
		[ -n "$pick" ] || break
		r=${pending[$pick]}
		unset "pending[$pick]"
		run ${r/:/ } &
		pid_of[$!]=$r started[$!]=$SECONDS
		running=$((running + 1))
		heavy_run "$r" && heavy=$((heavy + 1))
	done
	[ $running -gt 0 ] || break
	wait -n -p done_pid; st=$?
	r=${pid_of[$done_pid]}
	finished ${r/:/ } $st $((SECONDS - started[$done_pid]))
	running=$((running - 1))
	heavy_run "$r" && heavy=$((heavy - 1))
done
grep -h '^FAIL - ' "$jobdir"/*.log | sed 's/^/# /' | head -50 | grep . && echo "# failed: see above"
exit $rc
