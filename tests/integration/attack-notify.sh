#!/bin/bash
# Attacks on the seccomp notify layer (preload/notify/notify.c), made as a
# hostile sandboxed program would (tests/progs/attackprobe.c, a static
# binary run with --no-shim: only the boundary can be what refuses). Each
# test looks at the host for what must never be there: a file made, a byte
# received by a server outside, a protected file changed.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PROGS=$(mktemp -d /var/tmp/sbx-aprogs.XXXXXX)
trap 'rm -rf "$PROGS"' EXIT
chmod 755 "$PROGS"
P=""
if built attackprobe.static "$PROGS/attackprobe" 2>"$PROGS/log"; then
	P="$PROGS/attackprobe"
else
	echo "# cannot build attackprobe with cc -static: $(head -2 "$PROGS/log")"
fi
have_probe() { [ -n "$P" ] || { skip "no static libc to build tests/progs/attackprobe.c"; return 1; }; }
nx() { sx -q --no-shim -- "$@"; }

# A Unix socket server on the host (where the docker socket or an ssh-agent
# would be), stream or datagram: what reaches it goes to $B/got-NAME.
serve() { # serve stream|dgram NAME
	python3 - "$B" "$1" "$2" <<'EOF' &
import os, select, socket, sys
b, kind, name = sys.argv[1:4]
path = b + "/host-" + name + ".sock"
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM if kind == "stream" else socket.SOCK_DGRAM)
s.bind(path); os.chmod(path, 0o777)
if kind == "stream":
    s.listen(64)
open(b + "/ready", "w").write("1")
while True:
    r, _, _ = select.select([s], [], [], 30)
    if not r:
        break
    if kind == "stream":
        c, _ = s.accept(); c.settimeout(2)
        try:
            d = c.recv(100)
        except OSError:
            d = b""
        c.close()
    else:
        d = s.recv(100)
    with open(b + "/got-" + name, "a") as f:
        f.write(d.decode(errors="replace") + "\n")
EOF
	srv=$!
	for _ in $(seq 50); do [ -s "$B/ready" ] && break; sleep 0.1; done
	chmod 755 "$B"
}
unserve() { sleep 0.3; kill "$srv" 2>/dev/null; wait "$srv" 2>/dev/null; }

# ---- the supervisor's privileges are not the program's

# /proc/PID/mem of sbx-init (pid 1), which is the rename actor: non-dumpable,
# so the kernel refuses the program. Opened by the supervisor (as root, the
# owner of every /proc file of the sandbox's) it was handed over, and the
# actor -- outside the notify filter -- ran the program's code: a hook
# made in a new repository.
t sandbox_processes_memory_never_opened_for_the_program_static
if have_probe; then
	nx sh -c "$P mem 1; $P actor-takeover $W"
	if [ ! -e pwn ] && [ "$(grep -c '^mem: ' "$B/out")" -eq 2 ] && ! has '^mem: ok$' out &&
	   ! has '^maps: ok$' out; then ok
	else bad "$(tr '\n' ' ' < "$B/out") made: $(find pwn 2>/dev/null | tr '\n' ' ')"; fi
fi

# As root the supervisor could search any directory (CAP_DAC_READ_SEARCH);
# the program, root without capabilities, cannot search one of another
# owner's with mode 0700, and must not make or open what is in it.
t directory_the_program_cannot_search_stays_closed_static
if have_probe && [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
	mkdir -p priv/pub && echo orig > priv/pub/f && chmod 777 priv/pub && chmod 666 priv/pub/f
	chown nobody priv && chmod 700 priv
	nx sh -c "$P create priv/pub/x; $P create priv/pub/f"
	if [ ! -e priv/pub/x ] && [ "$(cat priv/pub/f)" = orig ] &&
	   [ "$(grep -c '^create: Permission denied$' "$B/out")" -eq 2 ]; then ok
	else bad "$(tr '\n' ' ' < "$B/out")"; fi
elif have_probe; then skip "as root only (a directory of another owner's)"; fi

# ---- connect(): the descriptor number is looked up again after CONTINUE

t connect_descriptor_swapped_after_the_check_never_reaches_a_host_socket_static
if have_probe && command -v python3 >/dev/null; then
	serve stream docker
	nx "$P" race-fd "$B/host-docker.sock" 4
	unserve
	if [ ! -s "$B/got-docker" ] && has '^race-fd: [1-9][0-9]* tries, never connected$' out; then ok
	else bad "host got: $(tr '\n' ' ' < "$B/got-docker" 2>/dev/null) $(cat "$B/out")"; fi
fi

t tcp_connect_on_loopback_still_works_static
if have_probe; then
	nx "$P" tcp-self
	if has '^connect-blocking: ok$' out && has '^data: ok$' out &&
	   has '^connect-nonblocking: ok$' out && has '^connect-closed: Connection refused$' out; then ok
	else bad "$(tr '\n' ' ' < "$B/out")"; fi
fi

# ---- datagram Unix sockets: SOCK_RAW is SOCK_DGRAM to the kernel

t unix_raw_sockets_are_datagram_sockets_and_refused_static
if have_probe && command -v python3 >/dev/null; then
	serve dgram journal
	nx "$P" dgram-raw "$B/host-journal.sock" notify-on
	notify_out=$(cat "$B/out")
	SBX_NOTIFY=off nx "$P" dgram-raw "$B/host-journal.sock" notify-off
	unserve
	if [ ! -s "$B/got-journal" ] && [[ $notify_out == *"socket-raw: Operation not permitted"* ]] &&
	   [[ $notify_out == *"socketpair-raw: Operation not permitted"* ]] &&
	   has '^socketpair-raw: Operation not permitted$' out; then ok
	else bad "host got: $(tr '\n' ' ' < "$B/got-journal" 2>/dev/null) on: $notify_out off: $(cat "$B/out")"; fi
fi

# ---- links: a protected file is its inode, not only its name

# Deeper than the walk's three levels a protected name is not bound
# read-only; the layer refuses writing it by name. A hard link gave it a
# second, innocent name to write it by.
t hard_link_to_a_protected_file_refused_static
if have_probe; then
	mkdir -p a/b/c/d/.vscode && echo orig > a/b/c/d/.vscode/settings.json
	ln -s a/b/c/d/.vscode/settings.json via
	nx sh -c "$P link-write a/b/c/d/.vscode/settings.json x; $P link-follow via y"
	if [ "$(cat a/b/c/d/.vscode/settings.json)" = orig ] && [ ! -e x ] && [ ! -e y ] &&
	   has '^link: Read-only file system$' out && has '^link-follow: Read-only file system$' out &&
	   hasf "denied write of $W/a/b/c/d/.vscode/settings.json" err; then ok
	else bad "$(tr '\n' ' ' < "$B/out") content: $(cat a/b/c/d/.vscode/settings.json)"; fi
fi

# An O_TMPFILE gets its name by linkat(/proc/self/fd/N, AT_SYMLINK_FOLLOW):
# an innocent one is made, a hook in a repository the run made is not.
t tmpfile_linked_by_name_judged_by_the_new_name_static
if have_probe; then
	nx sh -c "$P mkdirs new/.git/hooks; $P tmpfile-link . kept; $P tmpfile-link new/.git/hooks pre;
		$P tmpfile-link new/.git/hooks new/.git/hooks/pre-commit"
	if [ "$(cat kept 2>/dev/null)" = evil ] && [ "$(cat pre 2>/dev/null)" = evil ] &&
	   [ ! -e new/.git/hooks/pre-commit ] &&
	   [ "$(grep -c '^tmpfile-link: ok$' "$B/out")" -eq 2 ] &&
	   has '^tmpfile-link: Read-only file system$' out; then ok
	else bad "$(tr '\n' ' ' < "$B/out")"; fi
fi

# A protected file whose path the kernel cannot give (moved below two
# chains of directories, each short of PATH_MAX) is not a nameless one.
t protected_file_past_path_max_not_written_unjudged_static
if have_probe; then
	mkdir -p a/b/c/d/.vscode && echo orig > a/b/c/d/.vscode/settings.json
	nx "$P" long-write "$W"
	got=$(find . -name settings.json -execdir cat {} \; 2>&1)
	if [ "$got" = orig ] && has '^open-ro: ok$' out && has '^open-w: File name too long$' out; then ok
	else bad "$(tr '\n' ' ' < "$B/out") content: $got"; fi
fi

# The path judged is the parent's and the name; one that does not fit was
# judged cut to nothing (reached through a link, the parent's own path
# fits, with the name it does not).
t protected_name_in_a_parent_just_short_of_path_max_refused_static
if have_probe; then
	nx "$P" long-parent "$W" .mcp.json
	if [ "$(find . -name .mcp.json | wc -l)" -eq 0 ] && has '^symlink: ok$' out &&
	   has '^create: File name too long$' out; then ok
	else bad "$(tr '\n' ' ' < "$B/out") made: $(find . -name .mcp.json | wc -l)"; fi
fi

# A symlink may not be named `.vscode` or `.git` (it would lead to a
# directory of the program's choosing); a hard link of a symlink is the
# same link under the new name.
t hard_link_of_a_symlink_landing_as_a_protected_directory_refused_static
if have_probe; then
	nx sh -c "$P mkdirs evil/hooks; $P create evil/settings.json; $P create evil/hooks/pre-commit;
		$P symlink evil s; $P mkdirs sub; $P symlink ../evil sub/s;
		$P link s .vscode; $P link sub/s sub/.git"
	if [ ! -e .vscode ] && [ ! -L .vscode ] && [ ! -L sub/.git ] &&
	   [ "$(grep -c '^link: Read-only file system$' "$B/out")" -eq 2 ]; then ok
	else bad "$(tr '\n' ' ' < "$B/out") left: $(ls -A . sub | tr '\n' ' ')"; fi
fi

# A link or a directory landing as `hooks` in a repository the run made
# would hold any hook; git's own `hooks/` is a directory made by mkdir.
t hooks_of_a_new_repository_only_made_by_mkdir_static
if have_probe; then
	nx sh -c "$P mkdirs new/.git; $P mkdirs evil; $P create evil/pre-commit;
		$P symlink ../../evil new/.git/hooks; $P mkdirs other/.git; $P mkdirs other/.git/hooks;
		$P create other/.git/hooks/pre-commit.sample"
	if [ ! -L new/.git/hooks ] && [ -d other/.git/hooks ] && [ -f other/.git/hooks/pre-commit.sample ] &&
	   has '^symlink: Read-only file system$' out; then ok
	else bad "$(tr '\n' ' ' < "$B/out") hooks: $(ls -la new/.git 2>&1 | tail -n +2 | tr '\n' ' ')"; fi
fi

# A `.git` file's gitdir: makes any directory the repository of an
# innocent one: the next `git commit` there on the host runs its hooks, as
# for a `.git` directory the run made. So it is named at the end, as those
# are (the person knows what was written inside).
t git_file_made_in_the_run_is_named_at_the_end
if command -v git >/dev/null; then
	sx -- sh -c 'git init -q --bare evil && mkdir sub && echo "gitdir: ../evil" > sub/.git &&
		echo x > gf && mkdir sub2 && mv gf sub2/.git; echo END'
	if has END out && hasf "git repositories created during the run" err &&
	   hasf "$W/sub/.git (a file: the repository its gitdir: names is the run's" err &&
	   hasf "$W/sub2/.git (a file" err; then ok
	else bad "$(grep -i 'git repositor' "$B/err" || echo 'no notice')"; fi
else skip "no git"; fi

# ---- truncate(2) names a file as open(O_TRUNC) does

t truncate_of_a_protected_file_refused_static
if have_probe; then
	mkdir -p a/b/c/d/.vscode && echo '{"keep": true}' > a/b/c/d/.vscode/settings.json
	echo 'some data' > plain
	nx sh -c "$P truncate a/b/c/d/.vscode/settings.json 3; $P truncate plain 4"
	if [ "$(cat a/b/c/d/.vscode/settings.json)" = '{"keep": true}' ] && [ "$(cat plain)" = some ] &&
	   has '^truncate: Read-only file system$' out && has '^truncate: ok$' out; then ok
	else bad "$(tr '\n' ' ' < "$B/out") content: $(cat a/b/c/d/.vscode/settings.json)"; fi
fi

# ---- the supervisor never blocks

# A FIFO opened for reading (O_CREAT makes it a notified call) waits for a
# writer; the supervisor opening it for the program waited with it, for
# ever, and with it every notified call, the proxy and the reports (and
# SIGTERM: its signals are read in that loop). The hang guard is a
# SIGKILL after 60 s; a run that ends at all passes.
t fifo_opened_for_reading_never_blocks_the_supervisor_static
if have_probe; then
	timeout -s KILL 60 "$SBX" -q --no-shim -- sh -c "$P fifo-read ff; $P create after" >"$B/out" 2>"$B/err"
	RC=$?
	if [ "$RC" -eq 0 ] && has '^open: ok$' out && [ -f after ] && [ -p ff ]; then ok
	else bad "rc=$RC $(tr '\n' ' ' < "$B/out")"; fi
fi

# bind() of an AF_UNIX socket makes a name like a create: at a protected
# name it is refused (no socket file takes `.mcp.json`'s place); elsewhere
# it is bound by the supervisor on the program's socket, with the
# program's umask and owner; a server on the sandbox's /tmp answers (one in
# the workspace could as well be a host program's: allow_unix_sockets);
# abstract names stay the sandbox's.
t unix_socket_bound_at_a_protected_name_refused_elsewhere_bound
if command -v python3 >/dev/null; then
	sx -q --no-shim -- python3 -c '
import os, socket
os.umask(0o077)
for name in (".mcp.json", "srv.sock", "/tmp/srv.sock"):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.bind(name); s.listen(1); print(name, "bound")
        c = socket.socket(socket.AF_UNIX); c.connect(name); a, _ = s.accept()
        c.send(b"hi"); print(name, "answered", a.recv(2).decode())
    except OSError as e:
        print(name, "refused", e.errno)
s = socket.socket(socket.AF_UNIX); s.bind("\0sbx-abstract"); print("abstract bound")'
	if [ ! -e .mcp.json ] && has '^\.mcp\.json refused 30$' out && has '^srv\.sock bound$' out &&
	   [ -S srv.sock ] && [ "$(stat -c %a srv.sock)" = 700 ] && [ "$(stat -c %u srv.sock)" = "$(id -u)" ] &&
	   has '^/tmp/srv\.sock answered hi$' out && has '^abstract bound$' out &&
	   has 'denied write of .*\.mcp\.json .*(seccomp)' err; then ok
	else bad "$(tr '\n' ' ' < "$B/out") $(ls -la | grep -E 'mcp|srv') $(head -c 300 "$B/err")"; fi
else skip "no python3"; fi

# A git directory the run makes under another name than `.git` (git init
# --bare, or any directory holding HEAD, objects/ and refs/) is judged as a
# `.git` is: a hook in it is refused, and git run in it on the host (here
# an update-ref, which runs reference-transaction) runs nothing of the
# run's; the repository is named at the end. (Was attack-notify-open.sh.)
t bare_repository_made_in_the_run_gets_no_hook_and_is_named
if command -v git >/dev/null; then
	sx -- sh -c 'git init -q --bare evil.git &&
		printf "#!/bin/sh\necho ran > \"%s/PWNED\"\n" "$PWD" > evil.git/hooks/reference-transaction;
		chmod +x evil.git/hooks/reference-transaction; echo END'
	(cd evil.git && git update-ref refs/tags/x "$(git hash-object -w --stdin </dev/null)") >/dev/null 2>&1
	if has END out && [ ! -e PWNED ] && [ ! -e evil.git/hooks/reference-transaction ] &&
	   [ -f evil.git/hooks/pre-receive.sample ] &&
	   hasf "denied write of $W/evil.git/hooks/reference-transaction by \`deny_write = .git/hooks/\`" err &&
	   has "git repositor.* created during the run.*$W/evil.git" err; then ok
	else bad "the hook ran on the host: $(cat PWNED 2>/dev/null); left: $(ls evil.git/hooks | tr '\n' ' ')"; fi
else skip "no git"; fi

# What people do with bare repositories still works: init, clone --mirror,
# a push into one from a clone (git runs its hooks: the samples only).
t bare_repositories_still_work_for_git_static
if command -v git >/dev/null; then
	git init -q src && git -C src -c user.name=a -c user.email=a@a commit -q --allow-empty -m one
	sx -q -- sh -c 'git init -q --bare b.git && git clone -q --mirror src m.git &&
		git clone -q b.git wc 2>/dev/null && cd wc &&
		git -c user.name=a -c user.email=a@a commit -q --allow-empty -m two &&
		git push -q origin HEAD:main && echo PUSHED'
	if has PUSHED out && [ "$(git -C b.git log --format=%s main)" = two ] &&
	   [ "$(git -C m.git log --format=%s)" = one ] && ! has denied err; then ok
	else bad "$(tr '\n' ' ' < "$B/out") $(head -c 300 "$B/err")"; fi
else skip "no git"; fi

# A repository completed by a part that is a link: `objects` a link to a
# directory not made yet, so the directory was no git directory when its
# hook was made, and became one when the link's target was made
# elsewhere -- no hook refused, no repository named, and git on the host
# ran the hook (reference-transaction, at an update-ref). A HEAD made by
# mknod(S_IFREG) completed another, and a `.git` file made so named no
# repository either. Each is named at the end; no hook is there.
t repository_completed_through_a_link_or_mknod_gets_no_hook_and_is_named_static
if have_probe && command -v git >/dev/null; then
	nx sh -c "mkdir X X/refs && printf 'ref: refs/heads/main\n' > X/HEAD && ln -s ../objdir X/objects &&
		mkdir X/hooks; printf '#!/bin/sh\necho ran > \"%s/PWNED\"\n' \"\$PWD\" > X/hooks/reference-transaction;
		chmod +x X/hooks/reference-transaction; mkdir objdir objdir/info objdir/pack;
		mkdir Y Y/refs Y/objects && $P mknod-reg Y/HEAD && printf 'ref: refs/heads/main\n' > Y/HEAD;
		mkdir sub && $P mknod-reg sub/.git && echo 'gitdir: ../Y' > sub/.git; echo END"
	(cd X && git update-ref refs/tags/x "$(git hash-object -w --stdin </dev/null)") >/dev/null 2>&1
	if has END out && [ ! -e PWNED ] && [ ! -e X/hooks/reference-transaction ] &&
	   has '^mknod-reg: ok$' out && has "git repositor.* created during the run.* $W/X[, ]" err &&
	   has "git repositor.* created during the run.* $W/Y[, ]" err &&
	   hasf "$W/sub/.git (a file" err; then ok
	else bad "the hook ran on the host: $(cat PWNED 2>/dev/null); $(grep -i 'git repositor' "$B/err" || echo 'no notice')"; fi
fi

# A `hooks` that is a link, made before the directory is a repository,
# leads to a directory whose files are judged by their own path: the
# hook made there after HEAD completed the repository ran on the host,
# while the notice said hooks were refused. A link at `hooks` counts as a
# hook when the repository is completed.
t hooks_link_made_before_the_repository_refused_static
if have_probe && command -v git >/dev/null; then
	nx sh -c "mkdir H X X/refs X/objects && ln -s ../H X/hooks;
		printf 'ref: refs/heads/main\n' > X/HEAD || echo 'HEAD: refused';
		printf '#!/bin/sh\necho ran > \"%s/PWNED\"\n' \"\$PWD\" > H/reference-transaction;
		chmod +x H/reference-transaction; echo END"
	[ -f X/HEAD ] && (cd X && git update-ref refs/tags/x "$(git hash-object -w --stdin </dev/null)") >/dev/null 2>&1
	if has END out && [ ! -e PWNED ] && [ ! -e X/HEAD ] && has '^HEAD: refused$' out &&
	   hasf "denied write of $W/X/HEAD" err; then ok
	else bad "the hook ran on the host: $(cat PWNED 2>/dev/null); $(tr '\n' ' ' < "$B/out")"; fi
fi

# The end's notice names each repository where it is at the end: one
# renamed after it was made (a bare one with core.hooksPath in its config,
# a .git with its work tree) was named where it no longer was.
t repository_renamed_after_it_was_made_is_named_where_it_is
if command -v git >/dev/null; then
	sx -- sh -c 'git init -q --bare X && git -C X config user.name x && mkdir deep &&
		mv X deep/Y && mkdir sub && git init -q sub && mv sub other && echo END'
	if has END out && has "git repositor.* created during the run.* $W/deep/Y[, ]" err &&
	   hasf "$W/other/.git" err && ! hasf "$W/X" err && ! hasf "$W/sub/.git" err; then ok
	else bad "$(grep -i 'git repositor' "$B/err" || echo 'no notice')"; fi
else skip "no git"; fi

# A root supervisor lowers its capabilities for a whole serving turn;
# the audit log is opened at the first report, which made it without them
# when that report came from this layer (a directory of root's with mode
# 0555 took it only from the shim's report). Reports are the
# supervisor's own: made with its capabilities and umask.
t audit_log_opened_by_a_layer_report_as_by_a_shim_report
if [ "$(id -u)" -eq 0 ]; then
	mkdir "$B/logd" && chmod 555 "$B/logd"
	sx -q --no-shim --log "$B/logd/audit.jsonl" -- sh -c 'echo x > .mcp.json; echo END'
	if has END out && [ ! -e .mcp.json ] && grep -q '"decision":"deny"' "$B/logd/audit.jsonl" 2>/dev/null &&
	   [ "$(stat -c %a "$B/logd/audit.jsonl")" = 600 ] && ! has 'cannot write the audit log' err; then ok
	else bad "log: $(ls -la "$B/logd" | tail -n +2 | tr '\n' ' ') $(head -c 300 "$B/err")"; fi
else skip "as root only (capabilities)"; fi

# A socket the run bound is its own wherever it is, known by its inode
# and birth time; the run frees the inode (close, unlink: not notified)
# and a host program binds its socket in the workspace at once. ext4 gives
# it the same inode, and a birth time as coarse as the clock tick: the
# same, unless this kernel's fine-grained timestamps step in (with only
# the birth time asked, Linux 6.18 let the host's socket here be taken
# for the run's in round 2). The file handle (the inode's generation)
# tells them apart. Nothing reaches the host's server.
t socket_the_run_freed_never_lends_its_identity_to_a_host_socket_static
if have_probe && command -v python3 >/dev/null; then
	python3 - "$SBX" "$P" "$W" "$B" <<'EOF'
import os, select, socket, subprocess, sys
sbx, probe, w, b = sys.argv[1:5]
host = w + "/host.sock"
out = open(b + "/out", "wb")
p = subprocess.Popen([sbx, "-q", "--no-shim", "--", probe, "socket-reuse", w + "/mine.sock", host, "60"],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(b + "/err", "wb"))
srv, got = None, b""
def take(wait):
    global got
    if srv is not None and select.select([srv], [], [], wait)[0]:
        c, _ = srv.accept(); c.settimeout(2); got += c.recv(10) or b"(connected)"
for line in p.stdout:
    out.write(line)
    if line.strip() != b"freed":
        continue
    take(0)
    if srv is not None:
        os.unlink(host)
    new = socket.socket(socket.AF_UNIX)
    new.bind(host); new.listen(8)
    if srv is not None:
        srv.close()
    srv = new
    p.stdin.write(b"bound\n"); p.stdin.flush()
p.wait()
take(0.5)
open(b + "/got", "wb").write(got)
EOF
	if [ ! -s "$B/got" ] && has '^socket-reuse: 60 rounds, never connected$' out &&
	   has '^socket-reuse: connect: Permission denied$' out; then ok
	else bad "host got: $(cat "$B/got" 2>/dev/null) $(grep -v freed "$B/out" | tr '\n' ' ')"; fi
fi

# A repository that is one already is not completed by a new HEAD: git
# moves HEAD.lock onto HEAD at every checkout, and in a repository whose
# hooks/ holds a hook (husky, pre-commit) that rename was refused as the
# last part of a repository made around a hook (and a host's bare
# repository was named as one the run made).
t existing_repository_with_a_hook_still_moves_its_head
if command -v git >/dev/null; then
	git init -q . && git -c user.name=a -c user.email=a@a commit -q --allow-empty -m one
	printf '#!/bin/sh\nexit 0\n' > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit
	mkdir -p a/b/c/d && git -C a/b/c/d init -q --bare x.git && git -C a/b/c/d/x.git symbolic-ref HEAD refs/heads/one
	printf '#!/bin/sh\nexit 0\n' > a/b/c/d/x.git/hooks/pre-receive && chmod +x a/b/c/d/x.git/hooks/pre-receive
	sx -q --no-shim -- sh -c 'git checkout -q -b nb && git -C a/b/c/d/x.git symbolic-ref HEAD refs/heads/two && echo END'
	if has END out && [ "$(git symbolic-ref HEAD)" = refs/heads/nb ] &&
	   [ "$(git -C a/b/c/d/x.git symbolic-ref HEAD)" = refs/heads/two ] && ! has denied err &&
	   ! has 'created during the run' err; then ok
	else bad "$(tr '\n' ' ' < "$B/out") $(head -c 300 "$B/err")"; fi
else skip "no git"; fi

# A hooks/ the supervisor cannot list (mode 0300: the program may still
# make and search in it) was taken for one with no hook: the directory
# made a repository around its hook, which ran on the host once the mode
# was given back. One that cannot be read holds a hook, for all we know.
t hooks_that_cannot_be_listed_count_as_holding_a_hook_static
if command -v git >/dev/null; then
	nx sh -c "mkdir X X/objects && printf 'ref: refs/heads/main\n' > X/HEAD && mkdir X/hooks &&
		printf '#!/bin/sh\necho ran > \"%s/PWNED\"\n' \"\$PWD\" > X/hooks/reference-transaction &&
		chmod +x X/hooks/reference-transaction && chmod 300 X/hooks;
		mkdir X/refs || echo 'refs: refused'; chmod 755 X/hooks; echo END"
	[ -d X/refs ] && (cd X && git update-ref refs/tags/x "$(git hash-object -w --stdin </dev/null)") >/dev/null 2>&1
	if has END out && [ ! -e PWNED ] && [ ! -e X/refs ] && has '^refs: refused$' out &&
	   hasf "denied write of $W/X/refs" err; then ok
	else bad "the hook ran on the host: $(cat PWNED 2>/dev/null); $(tr '\n' ' ' < "$B/out")"; fi
else skip "no git"; fi

# The end's notice held 8 KiB: sixty repositories with long names filled
# it, and one made after them (its config free to name core.hooksPath)
# was named nowhere, without a word that the list was cut. The list goes
# on over as many lines as it needs.
t every_repository_made_is_named_however_many_came_before
if command -v git >/dev/null; then
	sx -q --no-shim -- sh -c 'L=$(printf "%0200d" 0); for i in $(seq 60); do d=r$i$L;
		mkdir $d $d/objects $d/refs; echo "ref: refs/heads/main" > $d/HEAD; done;
		git init -q --bare evil.git; echo END'
	if has END out && has "git repositor.* created during the run.* $W/evil.git" err &&
	   has "git repositor.* created during the run.* $W/r60" err; then ok
	else bad "$(grep -c 'created during the run' "$B/err") notice lines, no evil.git"; fi
else skip "no git"; fi

# What the supervisor looks at after making a repository's last part is
# in a directory the program can make unsearchable meanwhile (another
# thread's chmod): the look failed, and the repository was taken for no
# repository -- five in a hundred went unnamed. A part that cannot be
# looked at is taken for there.
t repository_completed_while_its_mode_flips_is_still_named
if command -v python3 >/dev/null; then
	cat > race.py <<'EOF'
import os, threading
stop, cur = False, [None]
def flip():
    while not stop:
        d = cur[0]
        if d:
            try:
                os.chmod(d, 0o600); os.chmod(d, 0o755)
            except OSError:
                pass
t = threading.Thread(target=flip); t.start()
for i in range(100):
    d = "X%03d" % i
    os.mkdir(d); os.mkdir(d + "/objects"); open(d + "/HEAD", "w").write("ref: refs/heads/main\n")
    cur[0] = d
    for _ in range(200):
        try:
            os.mkdir(d + "/refs"); break
        except OSError:
            pass
    cur[0] = None
    os.chmod(d, 0o755)
stop = True; t.join()
print("END")
EOF
	sx -q --no-shim -- python3 race.py
	made=$(ls -d X*/refs 2>/dev/null | wc -l)
	named=$(grep 'created during the run' "$B/err" | tr ',' '\n' | grep -c "$W/X[0-9]*\$")
	if has END out && [ "$made" -gt 0 ] && [ "$named" -eq "$made" ]; then ok
	else bad "$made repositories made, $named named"; fi
else skip "no python3"; fi

# A .git the run made is known by its inode; the run removes its own (rm
# -rf: not notified) and git on the host makes a repository in the
# workspace meanwhile: ext4 gives the new .git a freed inode, and it was
# taken for the run's: its config written from the sandbox (a
# core.hooksPath), the notice naming only the removed ones. The file
# handle (the inode's generation) tells them apart.
t host_repository_on_a_freed_inode_is_not_the_runs
if command -v git >/dev/null && command -v python3 >/dev/null; then
	python3 - "$SBX" "$W" "$B" <<'EOF'
import subprocess, sys
sbx, w, b = sys.argv[1:4]
script = r'''for i in $(seq 30); do mkdir -p d$i/.git; done; rm -rf d*; echo freed; read line
printf '[core]\n\thooksPath = /tmp/evil\n' >> host/.git/config && echo "config: written" || echo "config: refused"
echo END'''
p = subprocess.Popen([sbx, "-q", "--no-shim", "--", "sh", "-c", script], cwd=w, stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, stderr=open(b + "/err", "wb"))
out = open(b + "/out", "wb")
for line in p.stdout:
    out.write(line)
    if line.strip() == b"freed":
        subprocess.run(["git", "init", "-q", "host"], cwd=w)
        p.stdin.write(b"go\n"); p.stdin.flush()
p.wait()
EOF
	if has END out && has '^config: refused$' out && ! grep -q hooksPath host/.git/config &&
	   hasf "denied write of $W/host/.git/config" err; then ok
	else bad "$(tr '\n' ' ' < "$B/out") config: $(grep hooksPath host/.git/config)"; fi
else skip "no git or python3"; fi

echo "# $(id -un): $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
