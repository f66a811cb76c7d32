#!/bin/bash
# Build and run docs/RECIPES.md's Dockerfile, word for word, with podman
# (`make check-container-recipe`; root). No registry is needed: the
# FROM image, debian:bookworm-slim, is made here by debootstrap from
# Debian's archive (--variant=minbase) and imported under that name, and
# the build reaches the archive for scripts/deps.sh. Minutes, not seconds:
# apart from make check and make check-container.
#
# Checks, inside the image as its user `dev`, with podman's defaults: the
# nested mode holds (a key unread, a write outside refused, the workspace
# written), and sbxctl doctor passes (the nested mode, with the container's
# line). Exit 0 when all hold; 77 (skipped) when podman or debootstrap
# cannot run here, with the reason.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
work=${SBX_RECIPE_DIR:-/var/tmp/sbx-recipe}
PODMAN="podman --storage-driver vfs --cgroup-manager cgroupfs --runtime runc"
LIMITS="--ulimit nofile=4096:4096 --ulimit nproc=4096:4096"
skip() { echo "skip - container recipe: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "as root only (rootful podman, debootstrap)"
command -v podman >/dev/null && command -v runc >/dev/null || skip "podman and runc are not installed"
mkdir -p "$work"

# the FROM image, once
if ! $PODMAN image exists docker.io/library/debian:bookworm-slim; then
	command -v debootstrap >/dev/null || skip "debootstrap is not installed"
	rm -rf "$work/root"
	debootstrap --variant=minbase bookworm "$work/root" http://deb.debian.org/debian \
		>"$work/debootstrap.log" 2>&1 || skip "debootstrap failed: $(tail -1 "$work/debootstrap.log")"
	rm -rf "$work/root/var/cache/apt/archives/"*.deb "$work/root/var/lib/apt/lists/"*
	tar -C "$work/root" -c . | $PODMAN import - docker.io/library/debian:bookworm-slim >/dev/null ||
		skip "podman import failed"
	rm -rf "$work/root"
fi

# the context: this checkout's tracked files, and the recipe's Dockerfile
rm -rf "$work/ctx" && mkdir -p "$work/ctx"
git -C "$top" archive HEAD | tar -C "$work/ctx" -x
python3 - "$top/docs/RECIPES.md" "$work/ctx/Dockerfile" <<'EOF'
import re, sys
m = re.search(r"```dockerfile\n(.*?)```", open(sys.argv[1]).read(), re.S)
open(sys.argv[2], "w").write(m.group(1))
EOF
# shellcheck disable=SC2086
if ! $PODMAN build --pull=never --network host $LIMITS -t sbx-recipe -f "$work/ctx/Dockerfile" \
	"$work/ctx" >"$work/build.log" 2>&1; then
	echo "FAIL - container recipe: the Dockerfile does not build: $(tail -3 "$work/build.log")"
	exit 1
fi

# run it: podman's defaults, the nested mode
rc=0
mkdir -p "$work/ws" && chmod 777 "$work/ws" && rm -f "$work/ws/in.txt"
# shellcheck disable=SC2086
out=$($PODMAN run --rm --network none $LIMITS -v "$work/ws:/work" sbx-recipe sh -c '
	mkdir -p ~/.ssh && echo RECIPE-SECRET > ~/.ssh/id_ed25519
	sbx-preload -- sh -c "cat ~/.ssh/id_ed25519; echo x > ~/outside.txt; echo yes > /work/in.txt" 2>&1
	test -e ~/outside.txt && echo OUTSIDE-MADE; id -un' 2>&1)
if ! echo "$out" | grep -q RECIPE-SECRET && ! echo "$out" | grep -q OUTSIDE-MADE &&
   [ "$(cat "$work/ws/in.txt" 2>/dev/null)" = yes ] && echo "$out" | grep -q 'nested mode' &&
   echo "$out" | grep -qx dev; then
	echo "ok - container recipe: built, and the nested mode holds as dev with podman's defaults"
else
	echo "FAIL - container recipe: run: $(echo "$out" | head -8 | tr '\n' '|')"
	rc=1
fi
# shellcheck disable=SC2086
out=$($PODMAN run --rm --network none $LIMITS sbx-recipe sbxctl doctor 2>&1); drc=$?
if [ $drc -eq 0 ] && echo "$out" | grep -q '^ok    container          podman (/run/.containerenv)'; then
	echo "ok - container recipe: sbxctl doctor passes there (the nested mode)"
else
	echo "FAIL - container recipe: doctor exit $drc: $(echo "$out" | grep -v '^ok' | tr '\n' '|')"
	rc=1
fi
exit $rc
