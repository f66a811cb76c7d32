#!/bin/bash
# sbx inside a real container (`make check-container`, issue 24 "Where
# agents run"): podman from Debian, rootful, a container whose root is a
# directory made here with the host's /usr read-only in it (no image, no
# registry), sbx's binaries at /sbx. What docs/RECIPES.md says a container
# needs is what is run: podman's defaults (the full sandbox cannot mount a
# /proc: sbxctl doctor and the failed run name the flag; the nested mode
# runs), and `--security-opt unmask=/proc/*` (the full sandbox runs). Each
# run inside as root and as uid 1000; the assertions look at the host's
# side of the container's volumes (the canary's bytes, the files made).
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

why=""
if [ "$(id -u)" -ne 0 ]; then
	why="as root only: rootless podman needs /etc/subuid ranges and newuidmap"
elif [ -z "${SBX_IT_CONTAINER:-}" ]; then
	why="make check-container runs it (it starts podman containers)"
elif ! command -v podman >/dev/null || ! command -v runc >/dev/null; then
	why="podman and runc are not installed (make check-container installs them)"
fi
# This machine may itself be a container: runc, not crun (which refuses a
# hybrid cgroup hierarchy), the vfs storage, cgroupfs, and limits no higher
# than the ones it was given (no CAP_SYS_RESOURCE to raise them).
PODMAN="podman --storage-driver vfs --cgroup-manager cgroupfs --runtime runc"
LIMITS="--ulimit nofile=4096:4096 --ulimit nproc=4096:4096"
ROOTFS=$(mktemp -d /var/tmp/sbx-ctr-root.XXXXXX)
trap 'rm -rf "$ROOTFS"' EXIT
chmod 755 "$ROOTFS"
mkdir -p "$ROOTFS"/{etc,proc,sys,dev,tmp,run,var/tmp,root,home/u,usr,sbx,ws}
for d in bin lib lib64 sbin; do ln -s "usr/$d" "$ROOTFS/$d"; done
cp /etc/passwd /etc/group "$ROOTFS/etc/"
chmod 1777 "$ROOTFS/tmp" "$ROOTFS/var/tmp"
if [ -z "$why" ] && ! out=$($PODMAN run --rm --network none $LIMITS -v /usr:/usr:ro \
		--rootfs "$ROOTFS" /bin/true 2>&1); then
	why="podman cannot start a container here: $(echo "$out" | tail -1)"
fi

# ctr UID "PODMAN-OPTIONS" COMMAND...: COMMAND in the container as UID, HOME
# /home/u (the canary key; $B/home on the host), the workspace /ws ($W);
# its stdout in $B/out, stderr in $B/err, status in RC
ctr() {
	local uid=$1 opts=$2
	shift 2
	chown -R "$uid:$uid" "$B/home" "$W"
	# shellcheck disable=SC2086
	timeout 120 $PODMAN run --rm --network none $LIMITS $opts --user "$uid:$uid" \
		-v /usr:/usr:ro -v "$SBX_BIN:/sbx:ro" -v "$B/home:/home/u" -v "$W:/ws" \
		-e HOME=/home/u -w /ws --rootfs "$ROOTFS" "$@" >"$B/out" 2>"$B/err"
	RC=$?
}
# the probe: read the key, write outside the writable paths, write the workspace
PROBE='cat /home/u/.ssh/id_ed25519; echo x > /home/u/outside.txt; echo yes > /ws/in.txt'
held() { # held UID: what the probe did, as seen from the host
	! grep -q "$SECRET" "$B/out" && [ ! -e "$B/home/outside.txt" ] &&
		[ "$(cat "$W/in.txt" 2>/dev/null)" = yes ]
}

t podman_defaults_doctor_and_the_failed_run_name_the_flag
if [ -n "$why" ]; then skip "$why"; else
	res=""
	for uid in 0 1000; do
		ctr $uid "" /sbx/sbx-preload -- sh -c "echo ran > /ws/ran"
		r1=$RC e1=$(cat "$B/err")
		ctr $uid "" /sbx/sbxctl doctor
		if [ $r1 -eq 125 ] && [ ! -e "$W/ran" ] &&
		   [[ $e1 == *"this is a podman container (/run/.containerenv): the full sandbox needs user namespaces and a /proc it can mount: podman run --security-opt unmask=/proc/*"* ]] &&
		   [ $RC -eq 1 ] && grep -q '^FAIL  user namespaces *bubblewrap makes them but cannot mount a /proc' "$B/out" &&
		   grep -qF 'container          podman (/run/.containerenv): the full sandbox needs user namespaces and a /proc it can mount: podman run --security-opt unmask=/proc/*; the nested mode runs here instead' "$B/out"; then
			res="$res $uid:ok"
		else res="$res $uid:FAIL(run=$r1 doctor=$RC $(grep -E 'container|namespaces' "$B/out" | tr '\n' '|'))"; fi
	done
	if [ "$res" = " 0:ok 1000:ok" ]; then ok; else bad "$res"; fi
fi

t podman_defaults_the_nested_mode_runs_and_holds
if [ -n "$why" ]; then skip "$why"; else
	res=""
	for uid in 0 1000; do
		rm -f "$W/in.txt"
		ctr $uid "" sh -c "mkdir -p /home/u/.config/sbx && printf '[sandbox]\nnested = true\n' > /home/u/.config/sbx/sandbox.ini && /sbx/sbx-preload -- sh -c '$PROBE'"
		if held && grep -q 'nested mode' "$B/err" && grep -q 'denied read of ~/.ssh/id_ed25519' "$B/err"; then
			res="$res $uid:ok"
		else res="$res $uid:FAIL(rc=$RC $(head -c 300 "$B/err" | tr '\n' '|'))"; fi
		rm -rf "$B/home/.config"
	done
	if [ "$res" = " 0:ok 1000:ok" ]; then ok; else bad "$res"; fi
fi

t podman_unmask_proc_runs_the_full_sandbox_doctor_agrees
if [ -n "$why" ]; then skip "$why"; else
	res=""
	for uid in 0 1000; do
		rm -f "$W/in.txt"
		ctr $uid "--security-opt unmask=/proc/*" /sbx/sbx-preload -- sh -c "$PROBE"
		r1=$RC
		if held && ! grep -q 'nested mode' "$B/err" && grep -q 'denied read of ~/.ssh/id_ed25519' "$B/err"; then
			ctr $uid "--security-opt unmask=/proc/*" /sbx/sbxctl doctor
			if [ $RC -eq 0 ] && grep -qF 'ok    container          podman (/run/.containerenv): user namespaces and /proc as the full sandbox needs them' "$B/out"; then
				res="$res $uid:ok"
			else res="$res $uid:FAIL(doctor=$RC $(grep -v '^ok' "$B/out" | tr '\n' '|'))"; fi
		else res="$res $uid:FAIL(rc=$r1 $(head -c 300 "$B/err" | tr '\n' '|'))"; fi
	done
	if [ "$res" = " 0:ok 1000:ok" ]; then ok; else bad "$res"; fi
fi

echo "# $(id -un) (container): $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
