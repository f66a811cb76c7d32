#!/bin/sh
# Install the Debian packages sbx needs, and only those that are missing.
# `deps.sh --test` adds what the test suite drives: tmux (a real terminal),
# script (a PTY), node (unless one is already on PATH), curl, setfacl and
# setfattr (acl, attr: extended attributes from inside), netcat-openbsd
# (BSD netcat, the one macOS ships: darwin.sh runs git over ssh through
# the ProxyCommand macOS's sbx-preload sets), and go (a static Go client
# for notify.sh; that test is skipped without it).
# `deps.sh --fuzz` adds clang for `make fuzz`; `deps.sh --container` podman,
# runc and debootstrap for `make check-container` and its recipe.
# As root: runs apt-get. Otherwise: prints the exact apt-get line and fails,
# so `make run` / `make check` stop with the fix instead of a compiler error.
set -eu

# Build and test dependencies, all from Debian's archive (nothing vendored).
PKGS="build-essential pkg-config bubblewrap libinih-dev uthash-dev libseccomp-dev \
libjansson-dev libcriterion-dev musl-tools python3 git util-linux procps"
if [ "${1:-}" = --test ]; then
	PKGS="$PKGS tmux bsdutils curl acl attr netcat-openbsd"
	command -v go >/dev/null 2>&1 || PKGS="$PKGS golang-go"
	command -v node >/dev/null 2>&1 || PKGS="$PKGS nodejs"
fi
# `deps.sh --fuzz` (make fuzz only): clang and its libFuzzer runtime
[ "${1:-}" = --fuzz ] && PKGS="$PKGS clang-14 libclang-rt-14-dev"
# `deps.sh --container` (make check-container and check-container-recipe
# only): podman; runc, which starts containers where crun refuses a hybrid
# cgroup hierarchy; debootstrap, for the recipe's FROM image
[ "${1:-}" = --container ] && PKGS="$PKGS podman runc debootstrap"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "sbx: missing packages:$missing" >&2
	echo "sbx: install them with: sudo apt-get install -y$missing" >&2
	exit 1
fi
echo "sbx: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh machine may have stale or empty package lists.
apt-get install -y --no-install-recommends $missing >/dev/null 2>&1 || {
	apt-get update -qq
	apt-get install -y --no-install-recommends $missing
}
