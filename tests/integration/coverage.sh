#!/bin/bash
# The coverage table (docs/REPORTS.md, "What the shim covers, by
# program"), measured: a read, stat, realpath, readdir and exec of a
# deny_read path and a write outside the writable paths, each made by C through glibc, Python, Node and a static binary
# under sbx-preload, and whether the audit log got a refusal for it (from
# the shim, or the seccomp notify layer).
#
#   SBX_BIN=DIR coverage.sh         print the table (markdown) on stdout
#
# DIR holds sbx-preload, sbx-init, libsbx-preload.so and progs/pathops.c
# (tests/integration/run.sh lays it out; `make coverage-table` uses
# build/). explain.sh compares the table with the document's; `make
# coverage-table` writes it there. Needs cc, python3 and node: a program
# that is missing is a row saying so.
set -u
SBX="$SBX_BIN/sbx-preload"
SRC="$SBX_BIN/progs/pathops.c"
[ -f "$SRC" ] || SRC="$(dirname "${BASH_SOURCE[0]}")/../progs/pathops.c"
unset SBX_CONFIG SBX_NO_SANDBOX SBX_ALLOWED_DOMAINS XDG_CONFIG_HOME XDG_STATE_HOME

B=$(mktemp -d /var/tmp/sbx-coverage.XXXXXX)
trap 'rm -rf "$B"' EXIT
chmod 755 "$B"
export HOME=$B/home
W=$B/ws
# each operation meets a deny_read directory of its own, so a refusal
# reported on the way (Python's and Node's realpath lstat each component)
# is told apart from another operation's
mkdir -p "$HOME/no-readdir" "$HOME/proj" "$HOME/.config/sbx" "$W" "$B/bin"
for op in read stat realpath exec; do mkdir -p "$HOME/no-$op"; echo "secret-$op" > "$HOME/no-$op/key"; done
printf '#!/bin/sh\necho ran\n' > "$HOME/no-exec/key" && chmod 755 "$HOME/no-exec/key"
printf '[filesystem]\ndeny_read = ~/no-read, ~/no-stat, ~/no-realpath, ~/no-readdir, ~/no-exec\n' \
	> "$HOME/.config/sbx/sandbox.ini"
cc -O2 -o "$B/bin/pathops" "$SRC" 2>/dev/null
cc -O2 -static -o "$B/bin/pathops-static" "$SRC" 2>/dev/null
chmod -R a+rX "$B/bin"

OPS="read stat realpath readdir write exec"
target() { # the denied path each operation is tried on
	case $1 in
	readdir) echo "$HOME/no-readdir" ;;
	write) echo "$HOME/proj/w-write" ;;
	*) echo "$HOME/no-$1/key" ;;
	esac
}

# cmd PROGRAM OP PATH: the command line making OP on PATH
cmd() {
	local p=$3
	case $1 in
	c) echo "\"$B/bin/pathops\" $2 '$p'" ;;
	static) echo "\"$B/bin/pathops-static\" $2 '$p'" ;;
	python)
		local e
		case $2 in
		read) e="open(p).read()" ;;
		stat) e="os.stat(p)" ;;
		realpath) e="os.path.realpath(p, strict=True)" ;;
		readdir) e="os.listdir(p)" ;;
		write) e="open(p, 'w')" ;;
		exec) e="subprocess.run([p], check=True, stdout=subprocess.DEVNULL)" ;;
		esac
		echo "python3 -c \"import os, subprocess, sys
p = sys.argv[1]
try:
    $e; print('OK')
except OSError as x:
    print('ERR', x.errno)\" '$p'" ;;
	node)
		local e
		case $2 in
		read) e="fs.readFileSync(p)" ;;
		stat) e="fs.statSync(p)" ;;
		realpath) e="fs.realpathSync(p)" ;;
		readdir) e="fs.readdirSync(p)" ;;
		write) e="fs.writeFileSync(p, 'x')" ;;
		exec) e="require('child_process').execFileSync(p, {stdio: 'ignore'})" ;;
		esac
		echo "node -e \"const fs = require('fs'); const p = process.argv[1];
try { $e; console.log('OK') } catch (x) { console.log('ERR', x.code) }\" '$p'" ;;
	esac
}

available() {
	case $1 in
	c) [ -x "$B/bin/pathops" ] ;;
	static) [ -x "$B/bin/pathops-static" ] ;;
	python) command -v python3 >/dev/null ;;
	node) command -v node >/dev/null ;;
	esac
}

name() {
	case $1 in
	c) echo "C (glibc)" ;;
	python) echo "Python" ;;
	node) echo "Node (libuv)" ;;
	static) echo "static binary (C, -static)" ;;
	esac
}

echo "| program | $(echo $OPS | sed 's/ / | /g') |"
echo "| --- |$(for _ in $OPS; do printf ' --- |'; done)"
for prog in c python node static; do
	if ! available "$prog"; then
		echo "| $(name "$prog") | (not measured: not installed) |"
		continue
	fi
	script=""
	for op in $OPS; do
		script="$script echo \"$op \$($(cmd "$prog" "$op" "$(target "$op")") 2>/dev/null | tail -1)\";"
	done
	cd "$W" || exit 1
	rm -f "$B/log"
	timeout 120 "$SBX" -q --log "$B/log" -- sh -c "$script" > "$B/out" 2>/dev/null
	row="| $(name "$prog") |"
	for op in $OPS; do
		res=$(grep "^$op " "$B/out" | cut -d' ' -f2-)
		cell=$(python3 - "$B/log" "$(target "$op")" "$res" <<'EOF'
import json, sys
log, target, res = sys.argv[1:4]
layers = set()
try:
    for line in open(log, encoding="utf-8"):
        r = json.loads(line)
        t = r.get("target", "").rstrip("/")
        # the path, or a directory on the way to it (in its own denied one)
        if r.get("decision") == "deny" and (t == target or (target.startswith(t + "/") and "/no-" in t)):
            layers.add(r.get("layer"))
except FileNotFoundError:
    pass
if not res.startswith("ERR"):
    print("**not refused** (%s)" % (res or "no answer"))
elif "shim" in layers:
    print("reported")
elif "notify" in layers:
    print("reported (seccomp)")
else:
    print("refused, **not reported**")
EOF
)
		row="$row $cell |"
	done
	echo "$row"
done
