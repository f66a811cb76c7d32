#!/bin/bash
# The seccomp notify layer (preload/notify/notify.c): protected names refused
# wherever and whenever they are made, Unix sockets by path, and what the
# layer must survive (a racing thread, a dying caller, a flood, a dead
# supervisor). The programs are static binaries built here (gcc -static,
# and musl-gcc when installed) and run with --no-shim: only the boundary can
# be what refuses, and every assertion looks at the host.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PROGS=$(mktemp -d /var/tmp/sbx-nprogs.XXXXXX)
trap 'rm -rf "$PROGS"' EXIT
chmod 755 "$PROGS"
SRC="$SBX_BIN/progs/notifyprobe.c"
BUILT=""
if built notifyprobe.static "$PROGS/probe-gcc" 2>"$PROGS/log"; then
	BUILT="$PROGS/probe-gcc"
else
	echo "# cannot build notifyprobe with cc -static: $(head -2 "$PROGS/log")"
fi
if built notifyprobe.musl "$PROGS/probe-musl" 2>"$PROGS/log"; then
	BUILT="$BUILT $PROGS/probe-musl"
fi
P=${BUILT%% *}
have_probe() { [ -n "$BUILT" ] || { skip "no static libc to build tests/progs/notifyprobe.c"; return 1; }; }
# nx ARGS: the probe under the boundary only
nx() { sx -q --no-shim -- "$@"; }

# ---- protected names under missing parents, at the top of the workspace

for p in ${BUILT:-none}; do
t "protected_names_under_missing_parents_refused_by_boundary_${p##*/}"
if have_probe; then
	sx -q --no-shim -- sh -c "ls -A > listing; $p mkdirs .claude/commands; $p create .claude/commands/x.md;
		$p mkdirs .git/hooks; $p create .git/hooks/pre-commit; $p create .mcp.json"
	# the workspace as the program saw it: nothing of sbx's in it; .git,
	# made by the run, may get git's own hooks/ directory
	if [ ! -e .claude/commands ] && [ ! -e .git/hooks/pre-commit ] && [ ! -e .mcp.json ] &&
	   [ "$(cat listing)" = "listing" ] &&
	   hasf "denied write of $W/.claude/commands by \`deny_write = .claude/commands/\`" err &&
	   hasf "denied write of $W/.git/hooks/pre-commit by \`deny_write = .git/hooks/\`" err &&
	   hasf "denied write of $W/.mcp.json by \`deny_write = .mcp.json\`" err &&
	   has '(seccomp)' err; then ok
	else bad "$(tr '\n' ' ' < "$B/out"); left: $(find . -mindepth 1 | tr '\n' ' ')"; fi
fi
done

# ---- an existing protected name deeper than the plan's scan (three
# levels) holds no mount: moving it away left its content writable under
# the new name and the protected name gone (at the scan's depths the mount
# answers EBUSY). The directory holding it still moves, names and all.
t deep_protected_names_cannot_be_moved_away_boundary
mkdir -p a/b/c/d/.vscode && echo '{"orig":1}' > a/b/c/d/.vscode/settings.json &&
	echo KEY=orig > a/b/c/d/.env
sx -q --no-shim -- sh -c 'mv a/b/c/d/.env x; echo evil > x;
	mv a/b/c/d/.vscode/settings.json y; mv a/b/c/d/.vscode vs; mv a/b/c/d a/b/c/e && echo MOVED'
if [ "$(cat a/b/c/e/.env)" = KEY=orig ] && [ "$(cat a/b/c/e/.vscode/settings.json)" = '{"orig":1}' ] &&
   [ ! -e y ] && [ ! -e vs ] && has '^MOVED$' out &&
   hasf "denied write of $W/a/b/c/d/.env by \`deny_write = .env\`" err &&
   hasf "denied write of $W/a/b/c/d/.vscode by \`deny_write = .vscode/\`" err; then ok
else bad "left: $(find . -mindepth 1 | tr '\n' ' ')"; fi

# ---- protected names in directories made during the run, at depth 1 and 6,
# by open, by rename from an innocent name, by link and by symlink

t protected_names_in_new_directories_refused_every_way_static
if have_probe; then
	script=""
	for d in d1 a/b/c/d/e/f; do
		for name in .git/hooks/pre-commit .vscode/settings.json .mcp.json; do
			dir=$(dirname "$d/$name")
			script="$script $P mkdirs $dir; $P create $d/$name;
				echo x > $d/innocent-$$; $P rename $d/innocent-$$ $d/$name;
				$P link $d/innocent-$$ $d/$name; $P symlink innocent-$$ $d/$name;"
		done
	done
	nx sh -c "$script"
	made=$(find . -name pre-commit -o -name settings.json -o -name .mcp.json -o -name .vscode | wc -l)
	denied=$(grep -c '^sbx: denied write of' "$B/err")
	if [ "$made" -eq 0 ] && [ "$(grep -c ': ok$' "$B/out")" -ge 2 ] &&
	   ! grep -qE '^(create|rename|link|symlink): ok$' "$B/out" && [ "$denied" -ge 6 ] &&
	   hasf "denied write of $W/a/b/c/d/e/f/.git/hooks/pre-commit" err; then ok
	else bad "made=$made denied=$denied: $(grep -v ': ok$' "$B/out" | sort | uniq -c | tr '\n' ' ')"; fi
fi

t innocent_names_are_made_as_asked_static
if have_probe; then
	nx sh -c "umask 027; $P mkdirs x/y/z; $P create x/y/z/f; $P rename x/y/z/f x/g;
		$P link x/g x/h; $P symlink g x/l; $P create /tmp/in-tmp; cat /tmp/in-tmp"
	if [ "$(grep -c ': ok$' "$B/out")" -eq 6 ] && [ -f x/g ] && [ -f x/h ] && [ -L x/l ] &&
	   [ "$(stat -c %a x/g)" = 640 ] && [ "$(stat -c %a x/y)" = 750 ] &&
	   [ "$(stat -c %u x/g)" = "$(id -u)" ] && [ "$(stat -c %i x/g)" = "$(stat -c %i x/h)" ] &&
	   [ ! -e x/y/z/f ] && has '^evil$' out; then ok
	else bad "$(tr '\n' ' ' < "$B/out") modes $(stat -c %a x/g x/y 2>&1 | tr '\n' ' ')"; fi
fi

# The supervisor makes a file with the caller's umask, read at each
# creation (it holds /proc/PID/status open between them): one process that
# changes its umask between two files gets each file's own. O_EXCL creates
# are made in one try (create_new): a name there, a dangling link there,
# answer EEXIST and nothing is made where the link leads; a protected name
# is still refused and reported.
t umask_changes_and_exclusive_creates_are_honoured_boundary
cat > umask.py <<'PY'
import os
def mk(name, flags=os.O_WRONLY | os.O_CREAT | os.O_EXCL):
    try:
        os.close(os.open(name, flags, 0o666)); return "ok"
    except OSError as e:
        return e.strerror
os.umask(0o022); a = mk("u022")
os.umask(0o077); b = mk("u077")
os.umask(0o002); c = mk("u002", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
os.mkdir("d002")
print("made", a, b, c)
print("exists", mk("u022"))
print("dangling", mk("dangling"))
print("protected", mk(".mcp.json"))
PY
ln -s gone-target dangling
sx -q --no-shim -- python3 umask.py
if has '^made ok ok ok$' out && [ "$(stat -c %a u022)" = 644 ] && [ "$(stat -c %a u077)" = 600 ] &&
   [ "$(stat -c %a u002)" = 664 ] && [ "$(stat -c %a d002)" = 775 ] &&
   has '^exists File exists$' out && has '^dangling File exists$' out && [ ! -e gone-target ] &&
   has '^protected Read-only file system$' out && [ ! -e .mcp.json ] &&
   hasf "denied write of $W/.mcp.json" err; then ok
else bad "$(tr '\n' ' ' < "$B/out") modes: $(stat -c '%n=%a' u0* d002 2>&1 | tr '\n' ' ')"; fi

# SQLite opens with O_RDWR | O_CREAT | O_NOFOLLOW, the file made first and
# then the one that is there (Codex's state database): both writable, and a
# link at the name still refused with ELOOP, as the kernel answers.
t open_nofollow_of_an_existing_file_stays_writable_static
if have_probe; then
	ln -s elsewhere lnk
	nx sh -c "$P reopen-nofollow db; $P reopen-nofollow lnk"
	if has '^reopen-nofollow: ok$' out && [ "$(cat db)" = two ] &&
	   has '^reopen-nofollow: .*symbolic links' out && [ ! -e elsewhere ]; then ok
	else bad "$(tr '\n' ' ' < "$B/out") db: $(cat db 2>&1)"; fi
fi

# A directory renamed to `.git` would complete `.git/hooks/` with what it
# holds; a link named `.git` would lead to hooks of its choosing.
t directory_or_link_landing_as_git_refused_static
if have_probe; then
	nx sh -c "$P mkdirs .gxt/hooks; $P create .gxt/hooks/pre-commit; $P rename .gxt .git;
		$P symlink .gxt .git; $P mkdirs sub; $P rename .gxt sub/.git"
	if [ ! -e .git ] && [ ! -e sub/.git ] && [ -f .gxt/hooks/pre-commit ] &&
	   grep -q '^rename: Read-only file system$' "$B/out" &&
	   grep -q '^symlink: Read-only file system$' "$B/out" &&
	   hasf "denied write of $W/.git by \`deny_write = .git/hooks/\`" err; then ok
	else bad "$(tr '\n' ' ' < "$B/out") left: $(ls -A | tr '\n' ' ')"; fi
fi

# The other order: the hook first, in a directory no rule can tell is a
# git directory yet, then HEAD, objects/ and refs/ around it. The last of
# them is refused (by any program: a static one here) while hooks/ holds
# a hook; a directory with git's samples only is completed and named.
t git_directory_completed_around_a_hook_refused_static
if have_probe; then
	nx sh -c "mkdir -p e/hooks e/objects e/refs f/hooks f/objects f/refs; echo evil > e/hooks/pre-receive;
		touch f/hooks/update.sample; echo 'ref: refs/heads/main' > src;
		$P rename src e/HEAD; $P link src e/HEAD; $P symlink src e/HEAD; $P create e/HEAD;
		$P create f/HEAD; echo END"
	if has END out && [ ! -e e/HEAD ] && [ ! -L e/HEAD ] && [ -e f/HEAD ] &&
	   [ "$(grep -c 'Read-only file system$' "$B/out")" -eq 4 ] &&
	   hasf "denied write of $W/e/HEAD by \`deny_write = .git/hooks/\`" err &&
	   has "git repositor.* created during the run.*$W/f" err && ! has "created during the run.*$W/e" err
	then ok
	else bad "$(tr '\n' ' ' < "$B/out") left: $(ls -A e f | tr '\n' ' ')"; fi
fi

# ---- git inside the sandbox keeps working; its own files, not a hook

t git_init_clone_commit_work_hooks_refused_repos_listed
if command -v git >/dev/null; then
	git init -q "$B/src" && (cd "$B/src" && echo a > f && git add f &&
		git -c user.email=t@t -c user.name=t commit -qm one)
	chmod -R a+rX "$B/src"
	sx --log "$B/log.jsonl" -- sh -c 'git init -q new && cd new && echo x > f && git add f &&
		git -c user.email=t@t -c user.name=t commit -qm init && git config user.name sbx-t && cd .. &&
		git clone -q "$0" cl && cd cl && git -c user.email=t@t -c user.name=t commit -q --allow-empty -m two &&
		git log --oneline | wc -l; echo hook > ../new/.git/hooks/pre-commit;
		cp ../new/.git/hooks/pre-commit.sample ../new/.git/hooks/post-checkout; echo END' "$B/src"
	if has END out && has '^2$' out && [ -f new/.git/hooks/pre-commit.sample ] &&
	   [ "$(git -C new config user.name)" = sbx-t ] && [ -f cl/f ] &&
	   [ ! -e new/.git/hooks/pre-commit ] && [ ! -e new/.git/hooks/post-checkout ] &&
	   has "git repositories created during the run" err && hasf "$W/new/.git" err &&
	   grep -q '"notice":"git-repositories"' "$B/log.jsonl" &&
	   grep -q '"layer":"notify"' "$B/log.jsonl"; then ok
	else bad "rc=$RC $(tail -3 "$B/out" | tr '\n' ' ') $(ls -A new/.git/hooks 2>&1 | head -3 | tr '\n' ' ')"; fi
else skip "no git"; fi

t pip_and_npm_install_from_a_local_source_work
if command -v python3 >/dev/null && python3 -m pip --version >/dev/null 2>&1; then
	# a wheel made here (building one needs the `wheel` package)
	python3 - "$B/sbxdemo-1.0-py3-none-any.whl" <<'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("sbxdemo/__init__.py", "X = 42\n")
    z.writestr("sbxdemo-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: sbxdemo\nVersion: 1.0\n")
    z.writestr("sbxdemo-1.0.dist-info/WHEEL",
               "Wheel-Version: 1.0\nGenerator: sbx-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr("sbxdemo-1.0.dist-info/RECORD", "")
EOF
	chmod a+r "$B/sbxdemo-1.0-py3-none-any.whl"
	sx -q -- sh -c 'python3 -m pip install -q --no-index --target lib "$0" >/dev/null 2>&1;
		PYTHONPATH=lib python3 -c "import sbxdemo; print(\"pip\", sbxdemo.X)"' \
		"$B/sbxdemo-1.0-py3-none-any.whl"
	pip_out=$(cat "$B/out")
	npm_ok=skip
	if command -v npm >/dev/null; then
		mkdir -p npmsrc app && printf '{"name":"sbxnpm","version":"1.0.0","main":"i.js"}\n' > npmsrc/package.json &&
			echo 'module.exports = 7' > npmsrc/i.js &&
			printf '{"name":"app","version":"1.0.0"}\n' > app/package.json
		sx -q -- sh -c 'cd app && npm install --offline --no-audit --no-fund ../npmsrc >/dev/null 2>&1;
			node -e "console.log(\"npm\", require(\"sbxnpm\"))"'
		grep -q '^npm 7$' "$B/out" && npm_ok=yes || npm_ok=no
	fi
	if [[ $pip_out == *"pip 42"* ]] && [ -f lib/sbxdemo/__init__.py ] && [ "$npm_ok" != no ]; then ok
	else bad "pip: $pip_out npm: $npm_ok"; fi
else skip "no pip"; fi

# ---- time of check, time of use: the path flips after the check

t toctou_open_flipping_path_never_reaches_protected_name
if have_probe; then
	nx sh -c "$P mkdirs r/.git/hooks; $P race-open r/innocent r/.git/hooks/pre-commit 3"
	if [ ! -e r/.git/hooks/pre-commit ] && has '^race: [0-9]* done' out &&
	   ! has '^race: 0 done' out; then ok
	else bad "$(tr '\n' ' ' < "$B/out") $(ls -A r/.git/hooks 2>&1)"; fi
fi

# unix socket servers on the host (outside the workspace, where the docker
# socket or an ssh-agent would be): "$B/host-<name>.sock" records what
# reaches it in $B/got-<name>.
serve_unix() {
	python3 - "$B" "$@" <<'EOF' &
import os, select, socket, sys
b = sys.argv[1]
socks = {}
for name in sys.argv[2:]:
    s = socket.socket(socket.AF_UNIX); s.bind(b + "/host-" + name + ".sock"); s.listen(64)
    os.chmod(b + "/host-" + name + ".sock", 0o777)
    socks[s] = name
open(b + "/ready", "w").write("1")
while True:
    r, _, _ = select.select(list(socks), [], [], 30)
    if not r:
        break
    for s in r:
        c, _ = s.accept(); c.settimeout(2)
        try:
            d = c.recv(100)
        except OSError:
            d = b""
        with open(b + "/got-" + socks[s], "a") as f:
            f.write(d.decode(errors="replace") + "\n")
        c.close()
EOF
	srv=$!
	for _ in $(seq 50); do [ -s "$B/ready" ] && break; sleep 0.1; done
	chmod 755 "$B"
}
stop_unix() { sleep 0.3; kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null; }

t toctou_connect_flipping_address_never_reaches_denied_socket
if have_probe && command -v python3 >/dev/null; then
	serve_unix good bad
	printf '[network]\nallow_unix_sockets = %s\n' "$B/host-good.sock" > "$B/allow.ini"
	sx -q --no-shim -c "$B/allow.ini" -- "$P" race-connect "$B/host-good.sock" "$B/host-bad.sock" 3
	stop_unix
	if [ ! -s "$B/got-bad" ] && grep -q race "$B/got-good" && has '^race: [0-9]* done' out; then ok
	else bad "bad got: $(head -c 100 "$B/got-bad" 2>/dev/null | tr '\n' ' ') $(cat "$B/out")"; fi
fi

# race_bind_leaves_nothing PROBE-COMMAND LABEL: the probe's bind race ran
# against .mcp.json: nothing bound, every try refused and reported, no
# socket file left.
race_bind_leaves_nothing() {
	nx "$P" "$1" .mcp.json 3
	if has "^$2: 0 bound, [1-9][0-9]* refused\$" out && [ ! -e .mcp.json ] &&
	   hasf "denied write of $W/.mcp.json by \`deny_write = .mcp.json\`" err; then ok
	else bad "$(tr '\n' ' ' < "$B/out") left: $(ls -A | tr '\n' ' ')"; fi
	rm -f .mcp.json
}

# bind() reads the address again if the supervisor CONTINUEs: a Unix
# socket whose address says AF_INET at the check and AF_UNIX plus a
# protected name a moment later made a socket file .mcp.json in the
# workspace (about one try in a thousand). The denial in the report shows
# the check saw both families; nothing is bound, nothing is left.
t toctou_bind_flipping_family_never_makes_a_protected_name
have_probe && race_bind_leaves_nothing race-bind-family race-bind

# The same with the descriptor: a netlink socket at the check (its bind was
# CONTINUEd, "the kernel's"), a Unix socket dup2()ed onto the number when
# the kernel looked it up again, and the address by then AF_UNIX .mcp.json.
t toctou_bind_swapping_socket_never_makes_a_protected_name
have_probe && race_bind_leaves_nothing race-bind-swap race-bind-swap

# Netlink binds are the supervisor's now, with the answers the kernel gives
# the program (which holds no capability): a port id and the groups of
# NETLINK_ROUTE and NETLINK_SOCK_DIAG bound; the multicast-routing group
# EPERM (the supervisor itself could bind it).
t netlink_binds_answered_as_the_kernel_answers_the_program
if command -v python3 >/dev/null; then
	sx -q -- python3 -c '
import socket
for proto, g in ((0, 0), (0, 1), (0, 1 << 29), (4, 1)):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, proto)
    try: s.bind((0, g)); print(proto, g, "ok", s.getsockname()[1] == g)
    except OSError as e: print(proto, g, e.strerror)'
	if [ "$(tr '\n' '|' < "$B/out")" = "0 0 ok True|0 1 ok True|0 536870912 Operation not permitted|4 1 ok True|" ]
	then ok; else bad "$(tr '\n' ' ' < "$B/out") $(head -3 "$B/err")"; fi
fi

# The address lengths a program may pass to bind and connect, answered as
# the kernel answers them outside (the same probe run on the host): past
# any address EINVAL (was a clamped copy, connected), a Unix name of all
# 108 bytes without a NUL bound (its terminator was written one byte past
# our sun_path, and the bind said EINVAL), past sun_path EINVAL.
t address_lengths_answered_as_the_kernel_answers_them
if have_probe; then
	mkdir -p "$B/hostside" && (cd "$B/hostside" && "$P" addrlen > "$B/host-addrlen")
	sx -q --no-shim -- "$P" addrlen
	name=$(printf 'a%.0s' $(seq 108))
	if [ -s "$B/host-addrlen" ] && diff "$B/host-addrlen" "$B/out" >/dev/null &&
	   grep -q '^unix bind len 110: ok$' "$B/out" && [ -S "$name" ] &&
	   grep -q '^inet connect len 200: Invalid argument$' "$B/out"; then ok
	else bad "$(diff "$B/host-addrlen" "$B/out" | tr '\n' ' ')"; fi
	rm -f "$name"
fi

# ---- Unix sockets by path

t unix_socket_refused_by_default_reached_when_listed_static
if have_probe && command -v python3 >/dev/null; then
	serve_unix agent other
	nx "$P" connect "$B/host-agent.sock" default
	default_out=$(cat "$B/out"); default_err=$(cat "$B/err")
	printf '[network]\nallow_unix_sockets = %s\n' "$B/host-agent.sock" > "$B/agent.ini"
	sx -q --no-shim -c "$B/agent.ini" -- "$P" connect "$B/host-agent.sock" listed
	listed_out=$(cat "$B/out")
	printf '[network]\nallow_unix_sockets = %s\n' "$B/host-other.sock" > "$B/other.ini"
	sx -q --no-shim -c "$B/other.ini" -- "$P" connect "$B/host-agent.sock" otherlisted
	other_out=$(cat "$B/out")
	stop_unix
	if [ "$(cat "$B/got-agent" 2>/dev/null)" = listed ] && [ ! -s "$B/got-other" ] &&
	   [ "$default_out" = "connect: Permission denied" ] && [ "$listed_out" = "connect: ok" ] &&
	   [ "$other_out" = "connect: Permission denied" ] &&
	   [[ $default_err == *"denied unix socket $B/host-agent.sock — not in allow_unix_sockets"* ]]; then ok
	else bad "got: $(cat "$B/got-agent" 2>/dev/null | tr '\n' ' ') default=$default_out listed=$listed_out other=$other_out"; fi
fi

t local_unix_servers_and_socketpairs_inside_keep_working
if command -v python3 >/dev/null; then
	sx -q -- python3 -c '
import socket
s = socket.socket(socket.AF_UNIX); s.bind("/tmp/in.sock"); s.listen(1)
c = socket.socket(socket.AF_UNIX); c.connect("/tmp/in.sock"); a, _ = s.accept(); c.send(b"x")
p, q = socket.socketpair(); p.send(b"y")
print("inside", a.recv(1).decode(), q.recv(1).decode())'
	if has '^inside x y$' out; then ok; else bad "$(cat "$B/out" "$B/err" | head -5)"; fi
else skip "no python3"; fi

# A server the run starts on a Unix socket in the workspace (a language
# server, a test fixture, a dev server's control socket) takes its
# clients inside the run: the socket is the run's own (the supervisor
# bound it). A host program's socket in the same workspace stays refused
# without allow_unix_sockets.
t unix_socket_the_run_bound_in_the_workspace_takes_its_clients
if command -v python3 >/dev/null; then
	python3 - "$W/host.sock" "$B/got-host" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4); s.settimeout(20)
try:
    c, _ = s.accept(); open(sys.argv[2], "w").write(c.recv(16).decode())
except OSError:
    pass
PY
	hsrv=$!
	for _ in $(seq 100); do [ -S "$W/host.sock" ] && break; sleep 0.1; done
	sx -q --no-shim -- python3 -c '
import os, socket, subprocess
s = socket.socket(socket.AF_UNIX); s.bind("run.sock"); s.listen(4)
c = socket.socket(socket.AF_UNIX); c.connect("run.sock"); a, _ = s.accept(); c.send(b"x")
r = subprocess.run(["python3", "-c", "import socket; k = socket.socket(socket.AF_UNIX); k.connect(\"run.sock\"); k.send(b\"y\")"])
b, _ = s.accept()
print("inside", a.recv(1).decode(), b.recv(1).decode())
h = socket.socket(socket.AF_UNIX)
try:
    h.connect("host.sock"); h.send(b"leak"); print("host reached")
except OSError as e:
    print("host", e.strerror)'
	kill $hsrv 2>/dev/null; wait $hsrv 2>/dev/null
	if has '^inside x y$' out && has '^host Permission denied$' out && [ ! -s "$B/got-host" ] &&
	   hasf "denied unix socket $W/host.sock" err; then ok
	else bad "$(cat "$B/out" | tr '\n' ' ') host got: $(cat "$B/got-host" 2>/dev/null)"; fi
else skip "no python3"; fi

# ---- the network for static binaries (preload/notify/net.c): a connect to an
# address outside gets the proxy's decision for the name behind the
# stand-in, and the socket the proxy dialled replaces the program's own

NC=""
if built netclient.static "$PROGS/netclient" 2>"$PROGS/log"; then
	NC="$PROGS/netclient"
else
	echo "# cannot build netclient with cc -static: $(head -2 "$PROGS/log")"
fi
GOC="" GOWHY="no go toolchain (Debian: golang-go)"
# tests/progs/goclient.go: the pure Go resolver (/etc/resolv.conf), no cgo
if built goclient "$PROGS/goclient" 2>"$PROGS/log"; then
	GOC="$PROGS/goclient"
elif command -v go >/dev/null; then
	GOWHY="goclient not built: $(head -2 "$PROGS/log" | tr '\n' ' ')"
fi
chmod -R a+rX "$PROGS"

# serve_tcp [NAME]: a TCP server on the host's loopback: answers "served:"
# and what it got, and counts every connection it accepts in
# $B/tcp-hitsNAME; its port in TP (and $B/tcp-portNAME).
serve_tcp() {
	python3 - "$B" "${1:-}" <<'EOF' &
import os, socket, sys, threading
b = sys.argv[1]; name = sys.argv[2]
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 0)); s.listen(64); s.settimeout(30)
open(b + "/tcp-port.tmp", "w").write(str(s.getsockname()[1]))
os.rename(b + "/tcp-port.tmp", b + "/tcp-port" + name)
def h(c):
    with open(b + "/tcp-hits" + name, "a") as f: f.write("hit\n")
    c.settimeout(5)
    try:
        c.sendall(b"served:" + c.recv(100))
    except OSError: pass
    c.close()
try:
    while True:
        c, _ = s.accept(); threading.Thread(target=h, args=(c,), daemon=True).start()
except OSError: pass
EOF
	tsrv=$!
	for _ in $(seq 50); do [ -s "$B/tcp-port${1:-}" ] && break; sleep 0.1; done
	TP=$(cat "$B/tcp-port${1:-}"); : > "$B/tcp-hits${1:-}"
	# names the test maps to the host's loopback (SBX_TEST_HOSTS)
	echo "127.0.0.1 allowed.test portonly.test" > "$B/hosts"
	chmod 755 "$B"; chmod 644 "$B/hosts"
}
stop_tcp() { kill "$tsrv" 2>/dev/null; wait "$tsrv" 2>/dev/null; }
hits() { wc -l < "$B/tcp-hits"; }
# allowed.test on the server's port (its address allowed on that port too:
# the resolved-address check refuses loopback otherwise); portonly.test
# only on port 1, so the lookup is answered and the connect refused
NETPOL() { echo --allow-domain allowed.test --allow-domain "127.0.0.1:$TP" --allow-domain portonly.test:1; }

t static_client_reaches_an_allowed_host_through_the_boundary
if [ -n "$NC" ] && command -v python3 >/dev/null; then
	serve_tcp
	# shellcheck disable=SC2046
	SBX_TEST_HOSTS="$B/hosts" SBX="$SBX_HOOKS" sx -q --no-shim $(NETPOL) -- sh -c "$NC dns allowed.test $TP;
		$NC dns allowed.test $TP nonblock; $NC gai allowed.test $TP unspec"
	stop_tcp
	# a non-blocking socket gets 0 once connected, its O_NONBLOCK kept
	if [ "$(grep -c '^GOT served:hello$' "$B/out")" -eq 3 ] && [ "$(hits)" -eq 3 ] &&
	   [ "$(grep -c '^ANSWER 198\.19\.' "$B/out")" -eq 3 ] && ! has '^INPROGRESS$' out &&
	   has '^NONBLOCK kept$' out && ! has 'denied' err; then ok
	else bad "hits=$(hits) $(tr '\n' ' ' < "$B/out")"; fi
else skip "no static netclient or python3"; fi

# The socket handed over lives in the host's namespace: nothing may send it
# anywhere else. connect(AF_UNSPEC) (disconnect) is refused, and once its
# connection is over, sendto(MSG_FASTOPEN) -- which connects a socket the
# kernel takes for unconnected, to the address it names, past connect() --
# is refused by the table (and would find the socket connected still: the
# proxy hands over only SS_CONNECTED sockets): a second server on the
# host's loopback (a canary) sees nothing.
t handed_over_socket_cannot_be_reconnected_elsewhere
if [ -n "$NC" ] && command -v python3 >/dev/null; then
	serve_tcp -canary
	canary_tp=$TP; tsrv1=$tsrv
	serve_tcp
	# shellcheck disable=SC2046
	SBX_TEST_HOSTS="$B/hosts" SBX="$SBX_HOOKS" sx -q --no-shim $(NETPOL) -- sh -c "$NC dns allowed.test $TP unspec;
		$NC dns allowed.test $TP fastopen=$canary_tp"
	sleep 0.3
	stop_tcp; tsrv=$tsrv1; stop_tcp
	if [ "$(grep -c '^GOT served:hello$' "$B/out")" -eq 2 ] &&
	   has '^DISCONNECT Transport endpoint is already connected$' out &&
	   has '^FASTOPEN2 Operation not supported$' out && ! has '^FASTOPEN[12] sent$' out &&
	   has '^sbx: denied sendto — connects a TCP socket' err &&
	   [ "$(wc -l < "$B/tcp-hits-canary")" -eq 0 ] && [ "$(hits)" -eq 2 ]; then ok
	else bad "canary=$(wc -l < "$B/tcp-hits-canary") $(tr '\n' ' ' < "$B/out")"; fi
else skip "no static netclient or python3"; fi

t static_client_refused_host_is_reported_and_never_reached
if [ -n "$NC" ] && command -v python3 >/dev/null; then
	serve_tcp
	# shellcheck disable=SC2046
	SBX_TEST_HOSTS="$B/hosts" SBX="$SBX_HOOKS" sx -q --no-shim --log "$B/log.jsonl" $(NETPOL) -- sh -c "
		$NC dns portonly.test $TP; $NC dns 192.0.2.7 80; $NC dns 198.19.0.250 $TP"
	stop_tcp
	if [ "$(grep -c '^CONNECT Operation not permitted$' "$B/out")" -eq 3 ] && [ "$(hits)" -eq 0 ] &&
	   has "^sbx: denied connect to portonly.test:$TP — not in allow_domains .* — pid [0-9]* netclient (seccomp)$" err &&
	   hasf "sbx: denied connect to 192.0.2.7:80 — not in allow_domains (allow it with --allow-domain 192.0.2.7)" err &&
	   hasf "198.19.0.250 stands for no name" err &&
	   grep -q '"layer":"notify","op":"connect","target":"portonly.test:'"$TP"'","decision":"deny"' "$B/log.jsonl" &&
	   grep -q '"pid":[0-9]*,"comm":"netclient"' "$B/log.jsonl"; then ok
	else bad "hits=$(hits) $(tr '\n' ' ' < "$B/out")"; fi
else skip "no static netclient or python3"; fi

t go_static_client_reaches_allowed_host_and_nothing_else
if [ -n "$GOC" ] && command -v python3 >/dev/null; then
	serve_tcp
	# shellcheck disable=SC2046
	SBX_TEST_HOSTS="$B/hosts" SBX="$SBX_HOOKS" sx -q --no-shim $(NETPOL) -- "$GOC" "allowed.test:$TP" "portonly.test:$TP"
	stop_tcp
	if has "^GOT allowed.test:$TP served:from-go$" out && [ "$(hits)" -eq 1 ] &&
	   has "^DIAL portonly.test:$TP .*operation not permitted" out &&
	   has "^sbx: denied connect to portonly.test:$TP — .* goclient (seccomp)$" err; then ok
	else bad "hits=$(hits) $(tr '\n' ' ' < "$B/out")"; fi
else skip "$GOWHY"; fi

t static_client_without_the_proxy_is_refused_and_reported
if [ -n "$NC" ]; then
	nx "$NC" dns 192.0.2.7 80
	if has '^CONNECT Operation not permitted$' out &&
	   hasf "sbx: denied connect to 192.0.2.7:80 — not in allow_domains (allow it with --allow-domain 192.0.2.7)" err; then ok
	else bad "$(tr '\n' ' ' < "$B/out")"; fi
else skip "no static netclient"; fi

# ---- allow_local_binding (preload/notify/deny.c): true (the default) lets servers
# inside listen on the sandbox's own loopback; false refuses a TCP listen
# and a UDP bind to a port (EACCES, reported), decided on the socket itself;
# clients, port-0 binds and Unix servers keep working
t allow_local_binding_true_serves_false_refuses_and_reports
if command -v python3 >/dev/null; then
	cat > "$B/lb.py" <<'EOF'
import socket
def tcp():
    s = socket.socket(); s.bind(("127.0.0.1", 0))
    try:
        s.listen(1)
    except OSError as e:
        return "tcp-listen %s" % e.strerror
    c = socket.create_connection(s.getsockname()); a, _ = s.accept(); c.sendall(b"x")
    return "tcp-listen ok " + a.recv(1).decode()
def udp(port):
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        u.bind(("127.0.0.1", port)); return "udp-bind-%s ok" % port
    except OSError as e:
        return "udp-bind-%s %s" % (port, e.strerror)
def unix():
    s = socket.socket(socket.AF_UNIX); s.bind("/tmp/lb.sock"); s.listen(1)
    c = socket.socket(socket.AF_UNIX); c.connect("/tmp/lb.sock"); a, _ = s.accept(); c.send(b"u")
    return "unix-listen ok " + a.recv(1).decode()
print(tcp()); print(udp(5353)); print(udp(0)); print(unix())
EOF
	chmod 755 "$B"; chmod 644 "$B/lb.py"
	sx -q -- python3 "$B/lb.py"
	cp "$B/out" "$B/true.out"; cp "$B/err" "$B/true.err"
	printf '[network]\nallow_local_binding = false\n' > "$B/nobind.ini"
	sx -q -c "$B/nobind.ini" --log "$B/log.jsonl" -- python3 "$B/lb.py"
	if [ "$(tr '\n' '|' < "$B/true.out")" = "tcp-listen ok x|udp-bind-5353 ok|udp-bind-0 ok|unix-listen ok u|" ] &&
	   ! grep -q denied "$B/true.err" &&
	   [ "$(tr '\n' '|' < "$B/out")" = "tcp-listen Permission denied|udp-bind-5353 Permission denied|udp-bind-0 ok|unix-listen ok u|" ] &&
	   has '^sbx: denied listen on 127\.0\.0\.1:[0-9]* — servers inside the sandbox are refused by allow_local_binding = false — pid [0-9]* python3 (seccomp)$' err &&
	   hasf "sbx: denied bind on 127.0.0.1:5353 — servers inside the sandbox are refused by allow_local_binding = false" err &&
	   grep -q '"op":"syscall","target":"listen","decision":"deny","rule":"allow_local_binding = false"' "$B/log.jsonl"; then ok
	else bad "true: $(tr '\n' '|' < "$B/true.out") false: $(tr '\n' '|' < "$B/out")"; fi
else skip "no python3"; fi

# ---- robustness

t callers_that_die_mid_request_leave_the_listener_serving_static
if have_probe; then
	mkdir churn
	nx "$P" churn churn 30
	if has '^after-churn: ok$' out && [ -f churn/after-churn ] && [ "$RC" -eq 0 ]; then ok
	else bad "rc=$RC $(tail -2 "$B/out")"; fi
fi

t threads_killed_mid_call_by_the_hundred_leave_the_supervisor_serving_static
# The supervisor takes a request without a second poll() when its own
# poll() saw the listener readable (notify_serve's `ready`): a request
# whose caller was SIGKILLed in between must make the receive fail
# (ENOENT), never block the supervisor. 300 children of 8 threads, each
# killed in the middle of creates and refused connects.
if have_probe; then
	mkdir kf
	nx "$P" killflood kf 300 8
	if has '^after-killflood: ok$' out && [ -f kf/after-killflood ] && [ "$RC" -eq 0 ] &&
	   [ "$(cat kf/after-killflood)" = evil ]; then ok
	else bad "rc=$RC $(tail -2 "$B/out")"; fi
fi

t a_flood_of_requests_is_served_and_bounded_static
if have_probe; then
	mkdir flood
	nx "$P" flood flood 64 100
	if has '^flood: 0 threads failed$' out && [ "$(ls flood | wc -l)" -eq 6400 ]; then ok
	else bad "rc=$RC $(cat "$B/out") $(ls flood | wc -l)"; fi
fi

# Every way out of a notified call lets go of what it held (the
# descriptors of the caller's socket, the parent directory, the file
# named): with 40 descriptors for the whole run, one left per call would
# run the supervisor out within a few rounds, and the calls after would
# fail (EMFILE answered, "out of file descriptors" said).
t notify_layer_holds_no_descriptor_per_call_static
if have_probe; then
	mkdir r
	(ulimit -n 40 && exec timeout 60 "$SBX" -q --no-shim -- "$P" rounds r 150) \
		>"$B/out" 2>"$B/err"
	RC=$?
	if has '^rounds: 900 made, 300 refused, 0 wrong$' out && [ "$RC" -eq 0 ] &&
	   hasf "denied write of $W/r/d149/.env by \`deny_write = .env\`" err &&
	   [ "$(grep -c '^sbx: denied write of .*(seccomp)$' "$B/err")" -eq 150 ] &&
	   ! has 'out of file descriptors' err; then ok
	else bad "rc=$RC $(cat "$B/out") $(grep -c denied "$B/err")"; fi
fi

t supervisor_killed_leaves_no_sandboxed_process_static
if have_probe; then
	mkdir hold
	"$SBX" -q --no-shim -- "$P" hold "$W/hold" >"$B/out" 2>"$B/err" & sup=$!
	for _ in $(seq 100); do ls hold/alive-* >/dev/null 2>&1 && break; sleep 0.1; done
	alive=$(ls hold 2>/dev/null | grep -c alive)
	kill -KILL "$sup"; wait "$sup" 2>/dev/null
	# the sandbox goes with it (bubblewrap --die-with-parent): wait until
	# no process runs the probe from this workspace, 10 s at most
	for _ in $(seq 100); do pgrep -f "$W/hold" >/dev/null || break; sleep 0.1; done
	if [ "$alive" -eq 1 ] && ! pgrep -f "$W/hold" >/dev/null; then ok
	else
		bad "alive=$alive left: $(pgrep -af "$W/hold" | head -3)"
		for q in $(pgrep -f "$W/hold"); do kill -KILL "$q"; done
	fi
fi

echo "# $(id -un): $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
