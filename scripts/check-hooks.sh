#!/bin/sh
# scripts/check-hooks.sh "NAME..." SHIPPED... -- TEST...
# The test hooks (environment variables only the integration tests set;
# Makefile, HOOK_NAMES) are compiled into the test copies of the programs
# only: no SHIPPED file may hold one of the NAMEs, and every TEST file
# must hold at least one (else this search would pass whatever it looked
# at). Prints each finding; exit 1 on any.
set -eu
names=$1
shift
bad=0
shipped=1
for f in "$@"; do
	if [ "$f" = -- ]; then
		shipped=0
		continue
	fi
	if [ ! -f "$f" ]; then
		echo "check-hooks: $f: no such file (make all first)" >&2
		bad=1
		continue
	fi
	found=""
	for n in $names; do
		if strings -a "$f" | grep -q "$n"; then
			found="$found $n"
		fi
	done
	if [ "$shipped" = 1 ] && [ -n "$found" ]; then
		echo "check-hooks: $f holds test hooks:$found (they belong in the -DSBX_TEST_HOOKS build only)" >&2
		bad=1
	elif [ "$shipped" = 0 ] && [ -z "$found" ]; then
		echo "check-hooks: $f, a test build, holds none of: $names (is the search broken?)" >&2
		bad=1
	fi
done
[ "$bad" = 0 ] && echo "check-hooks: no test hook in the shipped programs"
exit "$bad"
