#!/bin/bash
# Print every test of every integration suite and where it runs under
# tests/integration/placement (run.sh): one line "SUITE TEST WHERE", WHERE
# being the runs that start it, TARGET:USERS:
#   check:sbxtest        make check, as the unprivileged user
#   check:sbxtest,root   make check, as the unprivileged user and as root
#   agents:sbxtest,root  make check-agents, as both users
# (a test with an `agents` row skips in make check, saying so: it is listed
# under agents only). A test is a call of t, or of a function that calls
# t "$1" (ts, te, ta); a name made in a loop is printed as written
# (credential_rows_as_${form}s_...). --blocks adds the lines each spans.
set -u
here=$(cd "$(dirname "$0")" && pwd)
blocks=${1:-}
placement=$here/placement
rows() { sed -e 's/#.*//' "$placement" 2>/dev/null | awk -v s="$1" -v p="$2" '$1 == s && $3 == p { print $2 }'; }
matches() { # matches NAME GLOBS...
	local n=$1 g
	shift
	for g in "$@"; do
		# a name made in a loop matches a glob written for what it makes
		[[ $n == $g || ${n//\$\{*\}/x} == $g || $g == "${n%%\$*}"* ]] && return 0
	done
	return 1
}
for f in "$here"/*.sh; do
	s=${f##*/}
	[ "$s" != lib.sh ] && grep -qE '^\. .*/lib\.sh"$|^ok\(\)' "$f" || continue
	# the functions that start a test: t, and those calling t "$1"
	starts=$(awk '/^[a-z_]+\(\) *\{/ { fn = $1; sub(/\(\).*/, "", fn) }
		fn && /(^|[ \t{;])t "\$1"/ { print fn } /^}/ { fn = "" }
		/^[a-z_]+\(\) *\{.*\}$/ { fn = "" }' "$f" | sort -u | tr '\n' '|')
	mapfile -t ag < <(rows "$s" agents)
	mapfile -t rt < <(rows "$s" root)
	awk -v re="^[ \t]*(t${starts:+|${starts%|}}) " '
		$0 ~ re && !/\(\) *\{/ && !/ "\$1"/ {
			name = $0; sub(re, "", name); sub(/[;|&].*/, "", name); gsub(/"/, "", name); sub(/[ \t].*/, "", name)
			if (prev != "") print prev "\t" start "-" NR - 1
			prev = name; start = NR
		}
		END { if (prev != "") print prev "\t" start "-" NR }' "$f" |
	while IFS=$'\t' read -r name span; do
		where=check:sbxtest
		[ ${#rt[@]} -gt 0 ] && where=check:sbxtest,root
		if [ ${#ag[@]} -gt 0 ] && { [ "${ag[*]}" = '*' ] || matches "$name" "${ag[@]}"; }; then
			where=agents:sbxtest,root
		elif [ ${#ag[@]} -gt 0 ]; then
			where="$where agents:sbxtest,root"
		fi
		printf '%s %s %s%s\n' "$s" "$name" "$where" "${blocks:+ $span}"
	done
done
