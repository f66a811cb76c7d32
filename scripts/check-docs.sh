#!/bin/sh
# make check-docs: the documentation's copies of tables that live in code.
#   docs/SECURITY.md, between the seccomp-table markers: exactly what
#   `build/gen-filters --table` prints from seccomp/gen-filters.c.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
rc=0
doc="$top/docs/SECURITY.md"
want=$(mktemp) got=$(mktemp)
trap 'rm -f "$want" "$got"' EXIT
"$top/build/gen-filters" --table >"$want" || exit 1
sed -n '/<!-- seccomp-table:begin/,/<!-- seccomp-table:end/p' "$doc" | sed '1d;$d' >"$got"
if [ ! -s "$got" ]; then
	echo "check-docs: $doc has no seccomp-table markers" >&2
	rc=1
elif ! diff -u --label "docs/SECURITY.md (seccomp table)" --label "seccomp/gen-filters.c" \
	"$got" "$want" >&2; then
	echo "check-docs: the seccomp table in docs/SECURITY.md differs from seccomp/gen-filters.c;" \
		"paste the output of build/gen-filters --table between its markers" >&2
	rc=1
fi
[ $rc -eq 0 ] && echo "check-docs: docs/SECURITY.md's seccomp table matches seccomp/gen-filters.c"
exit $rc
