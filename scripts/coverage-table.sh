#!/bin/bash
# make coverage-table: measure the shim's coverage (tests/integration/
# coverage.sh, with the binaries in build/) and write the table into
# docs/REPORTS.md between its coverage markers.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
doc=$top/docs/REPORTS.md
table=$(SBX_BIN="$top/build" bash "$top/tests/integration/coverage.sh")
python3 - "$doc" "$table" <<'PY'
import re, sys
doc, table = sys.argv[1], sys.argv[2]
s = open(doc, encoding="utf-8").read()
m = re.search(r"(<!-- coverage:begin[^\n]*-->\n)(.*?)(<!-- coverage:end -->)", s, re.S)
if not m:
    sys.exit("coverage-table: no coverage markers in " + doc)
s = s[:m.start(2)] + table + "\n" + s[m.end(2):]
open(doc, "w", encoding="utf-8").write(s)
PY
echo "coverage-table: docs/REPORTS.md updated"
