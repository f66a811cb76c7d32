#!/bin/bash
# The seccomp filter (seccomp/gen-filters.c): the Unix-socket block and
# what a filter that reads only the 64-bit call number and arguments would
# miss — an int argument with high bits set, io_uring's operations, another
# architecture's entry point, a datagram socketpair.
# Every test first runs the same static program on the host (no sandbox)
# against a live server there, which proves the way out works and the server
# records it; then inside, with --no-shim (a static program never loads the
# shim anyway, so only the boundary can refuse), and asserts the server got
# nothing more.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PROGS=$(mktemp -d /var/tmp/sbx-progs.XXXXXX)
trap 'rm -rf "$PROGS"' EXIT
# Static, so no shim; non-PIE, so its data is addressable by int $0x80.
P=$PROGS/sockescape
built sockescape.static "$P" 2>"$PROGS/log" ||
	echo "# cannot build tests/progs/sockescape.c: $(head -3 "$PROGS/log")"
have_prog() {
	[ -x "$P" ] || { skip "tests/progs/sockescape not built (no static libc?)"; return 1; }
	command -v python3 >/dev/null || { skip "no python3 for the host server"; return 1; }
}

# serve: a server on the host, in the host's network namespace, that appends
# "<kind> <bytes>" to $B/got for every connection or datagram: a stream
# socket at $B/host.sock, an abstract one named $ABSTRACT (@-form), a
# datagram socket at $B/host.dgram. Outside the workspace: a host socket the
# program can read, not write, as the docker socket would be.
serve() {
	ABSTRACT="@sbx-it-$$-$RANDOM$RANDOM"
	python3 - "$B" "${ABSTRACT#@}" <<'EOF' &
import select, socket, sys
b, name = sys.argv[1], sys.argv[2]
def rec(kind, data):
    with open(b + "/got", "a") as f:
        f.write("%s %s\n" % (kind, data.decode(errors="replace")))
path = socket.socket(socket.AF_UNIX); path.bind(b + "/host.sock"); path.listen(8)
abst = socket.socket(socket.AF_UNIX); abst.bind("\0" + name); abst.listen(8)
dgram = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); dgram.bind(b + "/host.dgram")
open(b + "/ready", "w").write("1")
while True:
    r, _, _ = select.select([path, abst, dgram], [], [], 30)
    if not r:
        break
    for s in r:
        if s is dgram:
            rec("dgram", s.recv(100))
            continue
        c, _ = s.accept(); c.settimeout(3)
        try:
            d = c.recv(100)
        except OSError:
            d = b"<nothing>"
        rec("path" if s is path else "abstract", d)
        c.close()
EOF
	srv=$!
	for _ in $(seq 50); do [ -s "$B/ready" ] && break; sleep 0.1; done
	: >"$B/got"
}
# settle: once the server has recorded all that reached it, stop it. A
# SYNC from the host on each socket, after the program ended, is recorded
# after every connection and datagram queued before it (each queue is in
# order): then nothing late can come.
settle() {
	python3 - "$B" "${ABSTRACT#@}" <<'EOF'
import socket, sys
b, name = sys.argv[1:3]
for addr in (b + "/host.sock", "\0" + name):
    s = socket.socket(socket.AF_UNIX); s.connect(addr); s.sendall(b"SYNC"); s.close()
socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM).sendto(b"SYNC", b + "/host.dgram")
EOF
	for _ in $(seq 100); do [ "$(grep -c ' SYNC$' "$B/got")" -ge 3 ] && break; sleep 0.05; done
	kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null
}
# host MODE ADDR: the baseline run, outside any sandbox, and what it sent
# recorded (when it sent something)
host() {
	"$P" "$1" "$2" >"$B/host.out" 2>&1
	for _ in $(seq 40); do [ -s "$B/got" ] && break; sleep 0.05; done
}
got() { grep -v ' SYNC$' "$B/got" | tr '\n' '|'; }

# ---- int arguments are compared on their low 32 bits
# (With the seccomp notify layer, socket(AF_UNIX, SOCK_STREAM) is allowed and
# the connect() is what is refused, by path: seccomp/gen-notify.c.)
refused_unix() {
	{ has '^socket: Operation not permitted$' out && ! has '^connect' out; } ||
		has '^connect: Permission denied$' out
}

t socket_domain_high_bits_still_af_unix_refused_no_shim
if have_prog; then
	serve
	host wide "$B/host.sock"
	sx -q --no-shim -- "$P" wide "$B/host.sock"
	settle
	if [ "$(got)" = "path wide|" ] && refused_unix && [ "$RC" -ne 0 ]; then ok
	else bad "server got '$(got)' rc=$RC: $(tr '\n' ' ' <"$B/out")"; fi
fi

t socket_domain_high_bits_no_host_abstract_socket_with_network_open
if have_prog; then
	serve
	host wide "$ABSTRACT"
	sx -q --no-shim --allow-domain '*' -- "$P" wide "$ABSTRACT"
	settle
	if [ "$(got)" = "abstract wide|" ] && refused_unix && [ "$RC" -ne 0 ]; then ok
	else bad "server got '$(got)' rc=$RC: $(tr '\n' ' ' <"$B/out")"; fi
fi

# A datagram socket names its peer on every sendto(), so a socketpair's
# reaches any datagram socket on the host (/dev/log, journald); a stream
# pair is connected for good and keeps working.
t datagram_socketpair_refused_stream_socketpair_kept
if have_prog; then
	serve
	host pair "$B/host.dgram"
	sx -q --no-shim -- "$P" pair "$B/host.dgram"
	settle
	if [ "$(got)" = "dgram pair|" ] && has '^socketpair stream: ok$' out &&
	   has '^socketpair dgram: Operation not permitted$' out && ! has '^sendto' out; then ok
	else bad "server got '$(got)' rc=$RC: $(tr '\n' ' ' <"$B/out")"; fi
fi

# ---- io_uring: its operations make no system call the filter sees

t io_uring_setup_fails_with_enosys_no_shim
if have_prog; then
	if ! "$P" uring-setup >/dev/null 2>&1; then skip "io_uring unavailable on this host"
	else
		sx -q --no-shim -- "$P" uring-setup
		if has '^io_uring_setup: Function not implemented$' out && [ "$RC" -eq 1 ]; then ok
		else bad "rc=$RC: $(tr '\n' ' ' <"$B/out")"; fi
	fi
fi

t io_uring_op_socket_cannot_make_a_unix_socket
if have_prog; then
	serve
	host uring "$B/host.sock"
	if [ "$(got)" != "path uring|" ]; then settle; skip "IORING_OP_SOCKET unavailable on this host"
	else
		sx -q --no-shim -- "$P" uring "$B/host.sock"
		settle
		if [ "$(got)" = "path uring|" ] && ! has 'IORING_OP_SOCKET: ok' out &&
		   has '^io_uring_setup: Function not implemented$' out; then ok
		else bad "server got '$(got)' rc=$RC: $(tr '\n' ' ' <"$B/out")"; fi
	fi
fi

# ---- another architecture's entry point: the process dies (SIGSYS, 159)

t i386_entry_point_socket_kills_the_process
if have_prog; then
	serve
	host i386 "$B/host.sock"
	if [ "$(got)" != "path i386|" ]; then settle; skip "no i386 entry point on this kernel"
	else
		sx -q --no-shim -- "$P" i386 "$B/host.sock"
		settle
		if [ "$(got)" = "path i386|" ] && [ "$RC" -eq 159 ] && ! has 'i386 socket' out; then ok
		else bad "server got '$(got)' rc=$RC: $(tr '\n' ' ' <"$B/out")"; fi
	fi
fi

# x32 has x86_64's arch value and numbers with bit 30 set; a kernel without
# x32 says ENOSYS, the filter must kill before the kernel gets to say it.
t x32_syscall_number_kills_the_process
if have_prog; then
	if [ "$(uname -m)" != x86_64 ]; then skip "x32 exists only on x86_64"
	else
		serve
		sx -q --no-shim -- "$P" x32 "$B/host.sock"
		settle
		if [ -z "$(got)" ] && [ "$RC" -eq 159 ] && ! has 'x32 socket' out; then ok
		else bad "server got '$(got)' rc=$RC: $(tr '\n' ' ' <"$B/out")"; fi
	fi
fi

# ---- the rest of the table (seccomp/gen-filters.c): calls no namespace
# stops, or that reach kernel code the sandbox has no business in. Each runs
# on the host first, so a refusal inside is the sandbox's and not this
# machine's settings; the errno says which layer answered where the kernel
# would answer differently without the filter.
S=$PROGS/sysescape
built sysescape.static "$S" 2>"$PROGS/log2" ||
	echo "# cannot build tests/progs/sysescape.c: $(head -3 "$PROGS/log2")"
have_sys() { [ -x "$S" ] || { skip "tests/progs/sysescape not built (no static libc?)"; return 1; }; }
# inside MODE: the program under the sandbox, no shim (static anyway)
inside() { sx -q --no-shim -- "$S" "$@"; }

# The caller's session keyring: a key added there on the host is read back
# on the host and under bare bubblewrap (a user namespace keeps the
# keyring), never under sbx.
t keyring_secret_not_readable_inside_no_shim
if have_sys; then
	K="sbx-it-$RANDOM$RANDOM" KS="KEYSECRET-$RANDOM$RANDOM"
	"$S" key-session "$K" "$KS" "$S" key-read "$K" >"$B/host.out" 2>&1
	bw=""
	command -v bwrap >/dev/null &&
		bw=$("$S" key-session "$K" "$KS" bwrap --ro-bind / / --unshare-all --die-with-parent \
			"$S" key-read "$K" 2>&1 | grep -c "payload: $KS")
	timeout 60 "$S" key-session "$K" "$KS" "$SBX" -q --no-shim -- "$S" key-read "$K" >"$B/out" 2>"$B/err"
	RC=$?
	if ! grep -q "payload: $KS" "$B/host.out"; then skip "no session keyring here: $(tr '\n' ' ' <"$B/host.out")"
	elif ! grep -q "$KS" "$B/out" "$B/err" && has '^keyctl search: Function not implemented$' out &&
	     [ "$RC" -eq 1 ]; then ok
	else bad "rc=$RC bare bwrap read it: ${bw:-n/a}: $(tr '\n' ' ' <"$B/out")"; fi
fi

t bpf_refused_no_shim
if have_sys; then
	inside bpf
	if has '^bpf: Operation not permitted$' out && [ "$RC" -eq 1 ]; then ok
	else bad "rc=$RC: $(tr '\n' ' ' <"$B/out")"; fi
fi

# perf_event_paranoid = 2 lets anyone count their own user time: works on
# the host as any user; EACCES inside is the filter's.
t perf_event_open_refused_no_shim
if have_sys; then
	"$S" perf >"$B/host.out" 2>&1
	inside perf
	if ! grep -q ': ok$' "$B/host.out"; then skip "perf_event_open refused on the host: $(cat "$B/host.out")"
	elif has '^perf_event_open: Permission denied$' out && [ "$RC" -eq 1 ]; then ok
	else bad "rc=$RC: $(tr '\n' ' ' <"$B/out")"; fi
fi

t userfaultfd_refused_no_shim
if have_sys; then
	"$S" uffd >"$B/host.out" 2>&1
	inside uffd
	if ! grep -q ': ok$' "$B/host.out"; then skip "userfaultfd refused on the host: $(cat "$B/host.out")"
	elif has '^userfaultfd: Operation not permitted$' out && [ "$RC" -eq 1 ]; then ok
	else bad "rc=$RC: $(tr '\n' ' ' <"$B/out")"; fi
fi

t unshare_and_mount_and_fsopen_refused_no_shim
if have_sys; then
	inside mount
	if has '^unshare: Operation not permitted$' out && has '^mount: Operation not permitted$' out &&
	   has '^fsopen: Operation not permitted$' out; then ok
	else bad "rc=$RC: $(tr '\n' ' ' <"$B/out")"; fi
fi

# The kernel lets anyone set READ_IMPLIES_EXEC; the query after says
# whether it took.
t personality_read_implies_exec_refused_query_works
if have_sys; then
	"$S" personality >"$B/host.out" 2>&1
	inside personality
	if ! grep -q 'query: READ_IMPLIES_EXEC set' "$B/host.out"; then bad "host: $(cat "$B/host.out")"
	elif has '^personality READ_IMPLIES_EXEC: Operation not permitted$' out &&
	     has '^query: unchanged$' out; then ok
	else bad "rc=$RC: $(tr '\n' ' ' <"$B/out")"; fi
fi

t packet_and_raw_sockets_refused_no_shim
if have_sys; then
	inside packet
	if has '^socket AF_PACKET: Operation not permitted$' out &&
	   has '^socket AF_INET SOCK_RAW: Operation not permitted$' out; then ok
	else bad "rc=$RC: $(tr '\n' ' ' <"$B/out")"; fi
fi

# Any user may open a uevent socket on the host; inside only route (and
# sock_diag) remain, and the refusal is "not built", as the kernel says it.
t netlink_route_kept_uevent_refused
if have_sys; then
	"$S" netlink >"$B/host.out" 2>&1
	inside netlink
	if ! grep -q 'UEVENT: ok' "$B/host.out"; then skip "no uevent socket on the host: $(cat "$B/host.out")"
	elif has '^NETLINK_ROUTE: ok$' out &&
	     has '^NETLINK_KOBJECT_UEVENT: Protocol not supported$' out; then ok
	else bad "rc=$RC: $(tr '\n' ' ' <"$B/out")"; fi
fi

t setns_refused_no_shim
if have_sys; then
	inside setns
	if has '^open ns: ok$' out && has '^setns: Operation not permitted$' out; then ok
	else bad "rc=$RC: $(tr '\n' ' ' <"$B/out")"; fi
fi

# vsock belongs to no network namespace: from a sandbox whose network is
# off it reached the VM's host. Refused at socket() (EAFNOSUPPORT, as a
# kernel without vsock), and so is sendto(MSG_FASTOPEN), a TCP connect
# that never passes connect() (the notify layer decides connect()).
t vsock_and_msg_fastopen_refused_no_shim
if have_sys; then
	sx -q --no-shim -- sh -c "$S vsock; $S fastopen"
	if has '^socket AF_VSOCK: Address family not supported by protocol$' out &&
	   has '^sendto MSG_FASTOPEN: Operation not supported$' out &&
	   has '^sbx: denied socket — reaches the hypervisor' err &&
	   has '^sbx: denied sendto — connects a TCP socket' err; then ok
	else bad "$(tr '\n' ' ' < "$B/out")"; fi
fi

# ---- the shared terminal: a line discipline or exclusive mode set on it
# stays after the run. N_NULL (in every kernel) made the caller's pty
# swallow everything: the shell that ran sbx read nothing more; TIOCEXCL
# made every later open of it EBUSY (sudo's and ssh's prompts). Run on a
# pty of our own whose state is read back from outside afterwards
# (TIOCGETD, TIOCGEXCL).
t line_discipline_and_exclusive_mode_of_the_shared_terminal_kept
if ! command -v python3 >/dev/null; then skip "no python3"
else
	python3 - "$SBX" "$B" >"$B/pty.out" 2>&1 <<'PY'
import fcntl, os, pty, struct, subprocess, sys, termios
sbx, b = sys.argv[1], sys.argv[2]
TIOCGEXCL = 0x80045440
def state(fd):
    d = struct.unpack("i", fcntl.ioctl(fd, termios.TIOCGETD, struct.pack("i", 0)))[0]
    x = struct.unpack("i", fcntl.ioctl(fd, TIOCGEXCL, struct.pack("i", 0)))[0]
    return "ldisc %d excl %d" % (d, x)
prog = ("import fcntl, struct, termios\n"
        "for name, arg in (('TIOCSETD', struct.pack('i', 27)), ('TIOCEXCL', 0)):\n"
        "    try:\n"
        "        fcntl.ioctl(0, getattr(termios, name), arg)\n"
        "        print(name + ': ok', end='; ')\n"
        "    except OSError as e:\n"
        "        print(name + ': ' + e.strerror, end='; ')\n")
for label, cmd in (("host", ["python3", "-c", prog]),
                   ("sandbox", [sbx, "-q", "--no-shim", "--", "python3", "-c", prog])):
    m, s = pty.openpty()
    r = subprocess.run(cmd, stdin=s, stdout=subprocess.PIPE, stderr=open(b + "/err", "a"))
    print(label, r.stdout.decode().strip(), state(s))
    os.close(m); os.close(s)
PY
	if grep -q '^host TIOCSETD: ok; TIOCEXCL: ok; ldisc 27 excl 1$' "$B/pty.out" &&
	   grep -q '^sandbox TIOCSETD: Operation not permitted; TIOCEXCL: Operation not permitted; ldisc 0 excl 0$' "$B/pty.out" &&
	   has '^sbx: denied ioctl — a line discipline on the shared terminal' err &&
	   has '^sbx: denied ioctl — the shared terminal would refuse every later open' err; then ok
	elif ! grep -q '^host TIOCSETD: ok' "$B/pty.out"; then skip "no N_NULL here: $(tr '\n' ' ' <"$B/pty.out")"
	else bad "$(tr '\n' ' ' <"$B/pty.out")"; fi
fi

# ---- the Linux console: KDSKBMODE K_OFF left a console's keyboard dead
# after the run (KDSETMODE KD_GRAPHICS its screen blank; VT_ACTIVATE brings
# up another console). No console here: on a pty of our own the kernel
# answers ENOTTY (the host line proves it, and that the request got through
# to the kernel), so the sandbox's EPERM is the filter's; a get (KDGKBMODE)
# still reaches the kernel inside.
t console_settings_refused_by_the_filter_not_the_kernel
if ! command -v python3 >/dev/null; then skip "no python3"
else
	python3 - "$SBX" "$B" >"$B/pty.out" 2>&1 <<'PY'
import os, pty, subprocess, sys
sbx, b = sys.argv[1], sys.argv[2]
prog = ("import fcntl\n"
        "for name, req, arg in (('KDSKBMODE', 0x4B45, 4), ('KDSETMODE', 0x4B3A, 1),\n"
        "                       ('VT_ACTIVATE', 0x5606, 2), ('KDGKBMODE', 0x4B44, 0)):\n"
        "    try:\n"
        "        fcntl.ioctl(0, req, arg)\n"
        "        print(name + ': ok', end='; ')\n"
        "    except OSError as e:\n"
        "        print(name + ': ' + e.strerror, end='; ')\n")
for label, cmd in (("host", ["python3", "-c", prog]),
                   ("sandbox", [sbx, "-q", "--no-shim", "--", "python3", "-c", prog])):
    m, s = pty.openpty()
    r = subprocess.run(cmd, stdin=s, stdout=subprocess.PIPE, stderr=open(b + "/err", "a"))
    print(label, r.stdout.decode().strip())
    os.close(m); os.close(s)
PY
	tty='Inappropriate ioctl for device' eperm='Operation not permitted'
	if grep -qx "host KDSKBMODE: $tty; KDSETMODE: $tty; VT_ACTIVATE: $tty; KDGKBMODE: $tty;" "$B/pty.out" &&
	   grep -qx "sandbox KDSKBMODE: $eperm; KDSETMODE: $eperm; VT_ACTIVATE: $eperm; KDGKBMODE: $tty;" "$B/pty.out" &&
	   has "^sbx: denied ioctl — the console's keyboard (mode, keymap, LEDs, repeat) outlives the run" err &&
	   has "^sbx: denied ioctl — the console's screen" err &&
	   has "^sbx: denied ioctl — which console is shown" err; then ok
	else bad "$(tr '\n' ' ' <"$B/pty.out")"; fi
fi

# tcflow(TCOOFF) on the shared terminal stopped its output: sbx-preload's
# next report line there blocked in write() for good, every notified call
# with it (the run never ended), and the shell's prompt after. On a pty of
# our own, read as a terminal would: the run ends, its lines arrive.
t terminal_output_cannot_be_stopped_from_inside
if ! command -v python3 >/dev/null; then skip "no python3"
else
	python3 - "$SBX" >"$B/pty.out" 2>&1 <<'PY'
import os, pty, select, signal, sys, time
sbx = sys.argv[1]
prog = ("import os, termios\n"
        "try:\n"
        "    termios.tcflow(1, termios.TCOOFF)\n"
        "    termios.tcflow(1, termios.TCOON)\n"
        "    print('TCOOFF: ok')\n"
        "except termios.error as e:\n"
        "    print('TCOOFF:', e.args[1])\n"
        "try: open(os.path.expanduser('~/.bashrc'), 'a')\n"
        "except OSError: pass\n"
        "open('done', 'w').write('x')\n")
for label, cmd in (("host", ["python3", "-c", prog]), ("sandbox", [sbx, "--", "python3", "-c", prog])):
    pid, m = pty.fork()
    if pid == 0:
        os.execvp(cmd[0], cmd)
    out, end, st = b"", time.time() + 20, None
    while time.time() < end:
        if select.select([m], [], [], 0.2)[0]:
            try:
                out += os.read(m, 4096)
            except OSError:
                pass
        p, s = os.waitpid(pid, os.WNOHANG)
        if p:
            st = s
            break
    if st is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    print(label, "ended" if st is not None else "hung", out.decode(errors="replace").replace("\r\n", " | "))
PY
	if grep -q '^host ended TCOOFF: ok' "$B/pty.out" &&
	   grep -q '^sandbox ended .*TCOOFF: Operation not permitted' "$B/pty.out" &&
	   grep -q 'sbx: denied ioctl — tcflow(TCOOFF) stops the shared terminal' "$B/pty.out" &&
	   grep -q 'denied write of ~/.bashrc' "$B/pty.out" && [ -e done ]; then ok
	else bad "$(tr '\n' ' ' <"$B/pty.out" | head -c 400)"; fi
fi

# ---- set-ID modes: a file in the workspace outlives the run on the host,
# where no nosuid mount covers it. A run as root made `cp /bin/sh x; chmod
# 4755 x`, a root shell for any local user; as a user, that user's. Each
# chmod call (chmod, fchmod, fchmodat, fchmodat2 raw) is refused, with and
# without the notify layer, and the host's file keeps its mode. A new
# file's mode may name the bits: the first write strips them (no
# CAP_FSETID inside). A directory's bits are no program's: in a setgid
# tree GNU chmod passes S_ISGID back at every change of a directory's mode,
# and the notify layer makes that change (refused without the layer).
setid_script() {
	cat <<'EOF'
chmod u+s prog; chmod g+s prog
mkdir sg/sub && chmod 750 sg/sub && echo DIR-OK
python3 - <<'PY'
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open("prog", os.O_RDONLY)
try:
    os.fchmod(fd, 0o4755)
except OSError as e:
    print("fchmod:", e.strerror)
r = libc.syscall(452, -100, b"prog", 0o6755, 0)  # fchmodat2
print("fchmodat2:", os.strerror(ctypes.get_errno()) if r else "ok")
fd = os.open("new", os.O_CREAT | os.O_WRONLY, 0o4755)
os.write(fd, b"#!/bin/sh\n")
os.close(fd)
PY
EOF
}
t setid_modes_refused_in_the_workspace
if ! command -v python3 >/dev/null; then skip "no python3"
else
	cp /bin/true host && chmod 4755 host
	cp /bin/true prog && chmod 0755 prog
	mkdir sg && chmod 2775 sg
	SBX_NOTIFY=off sx -q --no-shim -- sh -c "$(setid_script)"
	off="$(stat -c %a prog new | tr '\n' ' ')"; cp "$B/out" "$B/off.out"; rm -rf new sg/sub
	sx -q --no-shim -- sh -c "$(setid_script)"
	if [ "$(stat -c %a host)" != 4755 ]; then skip "chmod u+s does not hold on the host here"
	elif [ "$off" = "755 755 " ] && [ "$(stat -c %a prog)" = 755 ] &&
	     [ "$(stat -c %a new)" = 755 ] && [ "$(stat -c %a sg/sub)" = 2750 ] && has '^DIR-OK$' out &&
	     ! has '^DIR-OK$' off.out &&
	     has '^fchmod: Operation not permitted$' out && has '^fchmodat2: Operation not permitted$' out &&
	     has '^fchmod: Operation not permitted$' off.out &&
	     [ "$(grep -c "^chmod: changing permissions of 'prog': Operation not permitted" "$B/err")" -eq 2 ] &&
	     has '^sbx: denied fchmodat — a set-ID program left in a writable root' err &&
	     has '^sbx: denied fchmod — a set-ID program' err &&
	     has '^sbx: denied fchmodat2 — a set-ID program' err; then ok
	else bad "modes off: $off, on: $(stat -c %a prog new | tr '\n' ' ') $(tr '\n' ' ' <"$B/out")"; fi
fi

# ---- with the notify layer, each refusal of the table is named: one line
# per call, reason and program however often it comes, and the errno the
# table gives without the layer (SBX_NOTIFY=off: refused, unexplained)
t table_refusals_reported_once_per_call_and_program_same_errno
if have_sys; then
	script=""
	for m in bpf perf uffd mount personality packet netlink setns userns tiocsti uring \
		 "key-read sbx-none"; do
		script="$script $S $m </dev/null; $S $m </dev/null;"
	done
	SBX_NOTIFY=off sx -q --no-shim -- sh -c "$script"
	cp "$B/out" "$B/off.out"; cp "$B/err" "$B/off.err"
	sx -q --no-shim --log "$B/log.jsonl" -- sh -c "$script"
	once=""
	for c in bpf perf_event_open userfaultfd mount fsopen personality setns unshare clone \
		 ioctl io_uring_setup keyctl; do
		[ "$(grep -c "^sbx: denied $c — .* — pid [0-9]* sysescape (seccomp)$" "$B/err")" -eq 1 ] ||
			once="$once $c"
	done
	# socket: three rows (AF_PACKET, raw, netlink), one line each
	[ "$(grep -c '^sbx: denied socket — ' "$B/err")" -eq 3 ] || once="$once socket"
	if [ -z "$once" ] && cmp -s "$B/off.out" "$B/out" && ! grep -q 'denied' "$B/off.err" &&
	   hasf "sbx: denied keyctl — the caller's session keyring holds Kerberos tickets" err &&
	   [ "$(grep -c '"layer":"notify","op":"syscall"' "$B/log.jsonl")" -eq 15 ] &&
	   grep -q '"target":"bpf","decision":"deny","rule":"the seccomp table (bpf)"' "$B/log.jsonl" &&
	   grep -q '"comm":"sysescape","errno":"EPERM"' "$B/log.jsonl"; then ok
	else bad "not once:$once; $(diff "$B/off.out" "$B/out" | head -4 | tr '\n' ' ')"; fi
fi

echo "# $(id -un) (seccomp): $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
