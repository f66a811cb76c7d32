#!/bin/bash
# The integration suite. Each test gets a fresh workspace W and a fake HOME
# holding a canary key, both under /var/tmp (not /tmp: private inside), and
# asserts on what happened on the host, not on exit codes alone. The helpers
# (t, ok, bad, skip, sx, has) are in lib.sh, shared with shim.sh.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# ---- filesystem

t workspace_file_readable_and_writable
echo in-data > in.txt
sx -q -- sh -c 'cat in.txt; echo written > out.txt'
if [ "$(cat out.txt 2>/dev/null)" = written ] && has in-data out; then ok; else bad "rc=$RC"; fi

t home_and_etc_not_writable_boundary_readonly
sx -q -- sh -c 'echo x > ~/planted; echo x > /etc/sbx-planted; echo x > /usr/sbx-planted'
if [ ! -e "$HOME/planted" ] && [ ! -e /etc/sbx-planted ] && [ ! -e /usr/sbx-planted ] &&
   has "Read-only file system" err; then ok; else bad "something was written (rc=$RC)"; fi

t ssh_key_unreadable_secret_never_printed_boundary_mask
sx -q -- sh -c 'cat ~/.ssh/id_ed25519; ls ~/.ssh; cp ~/.ssh/id_ed25519 stolen; grep -r TOPSECRET ~ 2>&1'
if ! grep -q "$SECRET" "$B/out" "$B/err" && [ ! -s stolen ] && has "Permission denied" err; then ok
else bad "secret visible or no denial (rc=$RC)"; fi

t allow_read_reopens_one_file_inside_a_denied_dir
sx -q --allow-read '~/.ssh/known_hosts' -- sh -c 'cat ~/.ssh/known_hosts; cat ~/.ssh/id_ed25519'
if has known-host-line out && ! grep -q "$SECRET" "$B/out" "$B/err"; then ok; else bad "rc=$RC"; fi

t deny_read_flag_hides_a_workspace_dir
mkdir private && echo hidden-data > private/f
sx -q --deny-read private -- sh -c 'cat private/f'
if ! has hidden-data out && [ "$RC" -ne 0 ]; then ok; else bad "read it (rc=$RC)"; fi

# A deny key's bare name matches at any depth (docs/POLICY.md), and reads
# are never notified: the mask must be there. It was planned only within
# the scan's three levels, so `cat` (the shim) was refused a deep .env and
# a program without the shim read it. Shallow and deep, name and glob.
t deny_read_names_masked_at_any_depth_no_shim
mkdir -p a/b/c/d/e && echo SHALLOW-ENV > a/.env && echo DEEP-ENV > a/b/c/d/e/.env &&
	echo DEEP-KEY > a/b/c/d/e/id.pem
sx -q --no-shim --deny-read .env --deny-read '*.pem' -- sh -c \
	'cat a/.env a/b/c/d/e/.env a/b/c/d/e/id.pem; echo END'
if ! has ENV out && ! has DEEP-KEY out && has END out && [ "$(cat a/b/c/d/e/.env)" = DEEP-ENV ]
then ok; else bad "read: $(tr '\n' ' ' <"$B/out")"; fi

# ... each one a mount: a pattern matching thousands (a tree of logs under
# `deny_read = *.log`) stops the run naming the first past the cap, never
# leaves one readable, never runs (sbx-init's "too many options" before).
t deny_read_pattern_past_the_mask_cap_stops_the_run_and_says_so
python3 -c '
import os
for i in range(4200):
    d = "a/b/c/d%d" % (i // 100)
    os.makedirs(d, exist_ok=True)
    open("%s/x%d.log" % (d, i), "w").close()
'
sx -q --deny-read '*.log' -- sh -c 'echo RAN > ran'
if [ "$RC" = 125 ] && [ ! -e ran ] &&
   has '^sbx: sandbox set-up failed: more than 4096 paths are read-denied (the next one: .*\.log), each of which would be a mount: deny the directory that holds them instead; nothing was run$' err
then ok; else bad "rc=$RC $(head -c 300 "$B/err")"; fi

t mandatory_files_cannot_be_created_or_changed_boundary
git init -q . && echo 'orig' > .bashrc && mkdir -p sub && echo 'KEY=1' > sub/.env
before=$(cd "$W" && find . | sort)
sx -q -- sh -c 'echo evil > .env; echo evil >> .bashrc; echo evil > .git/hooks/pre-commit;
	chmod +x .git/hooks/pre-commit; echo evil > sub/.env; echo evil > .mcp.json;
	mkdir -p .vscode && echo evil > .vscode/tasks.json; rm -f .bashrc; echo done'
after=$(cd "$W" && find . | sort)
if [ ! -e .env ] && [ "$(cat .bashrc)" = orig ] && [ ! -e .git/hooks/pre-commit ] &&
   [ "$(cat sub/.env)" = KEY=1 ] && [ ! -e .mcp.json ] && [ ! -e .vscode ] &&
   [ "$before" = "$after" ] && has done out; then ok
else bad "protected file touched, or placeholders left: $(diff <(echo "$before") <(echo "$after") | head -3)"; fi

# A protected name that is a link to nothing yet (`.bashrc -> dotfiles/bashrc`,
# a dangling `.env`): no mount can cover a link, so the boundary guards where
# it leads; the sandbox still starts, the write is refused and explained by
# the name as written, and nothing is left behind.
t dangling_protected_links_guarded_at_their_target
mkdir dotfiles && ln -s dotfiles/bashrc .bashrc && ln -s nowhere/.env.local .env
ln -s "$W/dotfiles/zshrc" "$HOME/.zshrc"
# (At the top of a workspace no stand-in is made: the shim refuses the write
# through .bashrc and .env; ~/.zshrc's target gets one, HOME's name.)
sx -- sh -c 'echo evil > .bashrc; echo evil > .env; echo evil > ~/.zshrc; echo fine > dotfiles/other; echo END'
if has END out && [ ! -e dotfiles/bashrc ] && [ ! -e dotfiles/zshrc ] && [ ! -e nowhere ] &&
   [ "$(cat dotfiles/other)" = fine ] && [ -L .bashrc ] && [ -L .env ] &&
   hasf "denied write of $W/.bashrc by \`deny_write = .bashrc\`" err &&
   [ "$(ls -A dotfiles)" = other ]; then ok
else bad "rc=$RC left: $(ls -A . dotfiles | tr '\n' ' ')"; fi

# The same guard with the boundary alone (no shim) and HOME writable: what
# ~/.zshrc leads to cannot be made directly, nor by landing a directory
# holding it where the missing part begins; nothing appears on the host.
t dangling_protected_link_target_refused_every_way_boundary
ln -s "$HOME/dots/zshrc" "$HOME/.zshrc"
sx -q --no-shim --allow-write '~' -- sh -c 'mkdir ~/dots; echo evil > ~/dots/zshrc; rmdir ~/dots 2>/dev/null
	mkdir -p ~/d; echo evil > ~/d/zshrc; mv ~/d ~/dots; ln -s d ~/dots; echo END'
if has END out && [ ! -e "$HOME/dots/zshrc" ] && [ ! -L "$HOME/dots" ] && [ -f "$HOME/d/zshrc" ] &&
   [ "$(readlink "$HOME/.zshrc")" = "$HOME/dots/zshrc" ] && has 'denied write of ~/dots.*(seccomp)' err; then ok
else bad "rc=$RC $(ls -lA "$HOME" "$HOME/dots" 2>&1 | tr '\n' ' ') $(grep -v 'sandbox on' "$B/err" | head -c 300)"; fi

# A write-protect over a directory keeps the masks made below it (a bind
# from the read-only root would bring the hidden content back).
t protect_over_a_directory_keeps_the_masks_below_it_boundary
mkdir -p "$HOME/.config/gh" && echo "$SECRET" > "$HOME/.config/gh/hosts.yml"
sx -q --no-shim --allow-write '~' --deny-write '~/.config' -- sh -c 'cat ~/.config/gh/hosts.yml; echo x > ~/.config/new; echo END'
if has END out && ! grep -q "$SECRET" "$B/out" "$B/err" && [ ! -e "$HOME/.config/new" ]; then ok
else bad "rc=$RC $(head -c 300 "$B/err")"; fi

# Protected names that are symlinks, and the directories on their way: the
# link cannot be removed and made anew, its target cannot be changed, and no
# directory above a protected path can be renamed to make the path anew.
t protected_links_and_their_parents_cannot_be_swapped_boundary
mkdir dotfiles && echo orig > dotfiles/bashrc && ln -s dotfiles/bashrc .bashrc && ln -s .env.local .env
git init -q . && echo orig-hook > .git/hooks/pre-commit
sx -q --no-shim -- sh -c 'rm -f .bashrc; echo evil > .bashrc; rm -f .env; echo evil > .env; echo evil > .env.local;
	mv dotfiles d2; mkdir -p dotfiles; echo evil > dotfiles/bashrc; echo evil > dotfiles/bashrc.new;
	mv .git .git.old; mkdir -p .git/hooks; echo evil > .git/hooks/pre-commit; echo END'
# (.env.local, where the dangling .env leads, is not guarded by the boundary
# at the top of a workspace: no stand-in there; docs/POLICY.md)
if has END out && [ -L .bashrc ] && [ "$(cat .bashrc)" = orig ] && [ -L .env ] &&
   [ ! -e d2 ] && [ ! -e .git.old ] && [ "$(cat .git/hooks/pre-commit)" = orig-hook ] &&
   [ "$(cat dotfiles/bashrc.new)" = evil ]; then ok
else bad "rc=$RC $(ls -A . | tr '\n' ' ') $(head -c 300 "$B/err")"; fi

# Symlinks on the way to a protected path (a linked .git, a link chain,
# a linked directory on the way, a dangling link through a linked dir):
# none can be removed and made anew, and the files stay as they were.
t links_on_the_way_to_protected_paths_cannot_be_swapped_boundary
mkdir -p gitdir/hooks cl/commands dotfiles real && ln -s gitdir .git && ln -s cl .claude
echo orig > dotfiles/bashrc && ln -s dotfiles/bashrc a && ln -s a .bashrc
echo origz > dotfiles/zshrc && ln -s dotfiles dl && ln -s dl/zshrc .zshrc
ln -s real x && ln -s x/.env.local .env
sx -q --no-shim -- sh -c 'rm .git; mkdir -p .git/hooks; echo pwn > .git/hooks/pre-commit;
	rm .claude; mkdir -p .claude/commands; echo pwn > .claude/commands/x.md;
	rm a; echo pwn > a; rm dl; mkdir dl; echo pwn > dl/zshrc; rm x; mkdir x; echo pwn > x/.env.local;
	echo pwn > gitdir/hooks/pre-commit; cat .bashrc .zshrc; echo END'
if has END out && has '^orig$' out && has '^origz$' out && [ -L .git ] && [ -L .claude ] &&
   [ -L a ] && [ -L dl ] && [ -L x ] && [ "$(cat .bashrc)" = orig ] && [ "$(cat .zshrc)" = origz ] &&
   [ -z "$(find gitdir/hooks cl/commands -mindepth 1)" ]; then ok
else bad "$(ls -lA | tr '\n' ' ')"; fi

# A missing protected name in a directory of one's own that is not
# writable: the sandboxed program could chmod it and create the name. The
# notify layer refuses making it, so the run goes on; without the layer a
# stand-in could not be made, so sbx refuses to start (as root the stand-in
# is simply made).
t protected_name_in_own_readonly_dir_refused_when_made
mkdir .git && chmod 0555 .git
sx --no-shim -- sh -c 'chmod u+w .git && mkdir .git/hooks; echo pwn > .git/hooks/pre-commit; echo RAN'
chmod 0755 .git
if [ ! -e .git/hooks ] && has RAN out && has 'denied write of .*\.git/hooks .*(seccomp)' err; then ok
else bad "rc=$RC $(ls -la .git | tr '\n' ' ') $(head -c 300 "$B/err")"; fi

t protected_name_in_own_readonly_dir_fails_closed_without_notify
mkdir .git && chmod 0555 .git
SBX_NOTIFY=off sx --no-shim -- sh -c 'chmod u+w .git && mkdir .git/hooks && echo pwn > .git/hooks/pre-commit; echo RAN'
chmod 0755 .git
if [ ! -e .git/hooks/pre-commit ] &&
   { { [ "$RC" -eq 125 ] && ! has RAN out && has 'keeps .*\.git/hooks from being created' err; } ||
     [ "$(id -u)" -eq 0 ]; }; then ok
else bad "rc=$RC $(head -c 300 "$B/err")"; fi

# A writable directory re-allowed inside a read-denied one is scanned for
# protected names like any writable root (the scan stops at the mask).
t protected_names_inside_a_reallowed_writable_child_of_a_mask_boundary
mkdir -p "$HOME/priv/pub" && (cd "$HOME/priv/pub" && git init -q .)
sx -q --no-shim --allow-write '~' --deny-read '~/priv' --allow-read '~/priv/pub' -- sh -c '
	echo pwn > ~/priv/pub/.git/hooks/pre-commit; echo pwn >> ~/priv/pub/.git/config; echo ok > ~/priv/pub/file; echo END'
if has END out && [ ! -e "$HOME/priv/pub/.git/hooks/pre-commit" ] && ! grep -q pwn "$HOME/priv/pub/.git/config" &&
   [ "$(cat "$HOME/priv/pub/file")" = ok ]; then ok
else bad "rc=$RC $(head -c 300 "$B/err")"; fi

# git could be sent elsewhere: `.git/commondir` (another git directory's
# hooks and config) and a `.git` file (a worktree's gitdir: pointer).
t git_cannot_be_pointed_at_another_git_directory_boundary
git init -q . && mkdir wt && echo "gitdir: $B/realgit" > wt/.git
sx -q --no-shim -- sh -c 'cp -r .git evil; echo "gitdir: ../evil" > wt/.git; echo END'
sx -q -- sh -c 'echo ../evil > .git/commondir; echo END2' # the shim's, below
if has END2 out && [ ! -e .git/commondir ] && [ "$(cat wt/.git)" = "gitdir: $B/realgit" ] &&
   hasf "denied write of $W/.git/commondir" err; then ok
else bad "rc=$RC $(head -c 300 "$B/err")"; fi

# The git directories git uses other than `<dir>/.git`: a submodule's under
# .git/modules/, and where a `.git` file's gitdir: points.
t submodule_and_pointed_git_directories_guarded_boundary
git init -q . && mkdir -p .git/modules/sm/hooks sm realgit/hooks wt
echo ref > .git/modules/sm/HEAD && echo "[core]" > .git/modules/sm/config && echo "gitdir: ../.git/modules/sm" > sm/.git
echo ref > realgit/HEAD && echo "[core]" > realgit/config && echo "gitdir: $W/realgit" > wt/.git
sx -q --no-shim -- sh -c 'for g in .git/modules/sm realgit; do echo pwn > $g/hooks/pre-commit;
	echo pwn >> $g/config; done; echo END'
if has END out && [ -z "$(find .git/modules/sm/hooks realgit/hooks -type f)" ] &&
   ! grep -q pwn .git/modules/sm/config realgit/config; then ok
else bad "rc=$RC $(head -c 300 "$B/err")"; fi

t sandbox_ini_in_workspace_not_writable_mandatory
sx -q -- sh -c 'printf "[filesystem]\nallow_write = /\n" > sandbox.ini'
if [ ! -e sandbox.ini ]; then ok; else bad "created"; fi

t no_capability_left_in_command_or_pid1
sx -q -- sh -c 'grep -E "^Cap(Eff|Prm|Inh|Bnd|Amb):" /proc/self/status /proc/1/status'
caps=$(grep -c "Cap" "$B/out"); nonzero=$(grep -E "Cap" "$B/out" | grep -vc '[[:space:]]0000000000000000$')
if [ "$caps" -eq 10 ] && [ "$nonzero" -eq 0 ]; then ok
else bad "caps=$caps nonzero=$nonzero: $(grep -v '[[:space:]]0000000000000000$' "$B/out" | head -3)"; fi

# `make run` keeps its demo under build/, which may sit under /tmp: a HOME
# under the host's /tmp is hidden by the sandbox's private /tmp, and its
# masks must not make the set-up fail.
t workspace_and_home_under_host_tmp_still_run
T2=$(mktemp -d /tmp/sbx-it-tmp.XXXXXX)
mkdir -p "$T2/home/.ssh" "$T2/ws" && echo "$SECRET" > "$T2/home/.ssh/id_ed25519"
(cd "$T2/ws" && HOME="$T2/home" timeout 60 "$SBX" -q -- sh -c 'echo inside > f; cat ~/.ssh/id_ed25519; echo END' >"$B/out" 2>"$B/err"); RC=$?
if [ "$RC" -eq 0 ] && [ "$(cat "$T2/ws/f" 2>/dev/null)" = inside ] && has END out &&
   ! grep -q "$SECRET" "$B/out" "$B/err"; then ok; else bad "rc=$RC"; fi
rm -rf "$T2"

# pid 1 holds the control socket to the supervisor: nothing of COMMAND's may
# ptrace it or read its memory or descriptors (it is non-dumpable, and under
# the same seccomp filter); the shim's descriptors live in a holder process.
t pid1_cannot_be_traced_or_read_by_command
cat > "$B/p.py" <<'EOF'
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
r = libc.ptrace(16, 1, None, None)  # PTRACE_ATTACH
print("ATTACH", r, ctypes.get_errno())
for path in ("/proc/1/mem", "/proc/1/environ"):
    try:
        open(path, "rb").read(16)
        print("OPEN", path)
    except OSError as e:
        print("REFUSED", path, e.errno)
# root may list the directory (it owns a non-dumpable process's /proc
# entries), but no descriptor may be followed
try: fds = os.listdir("/proc/1/fd")
except OSError: fds = []
reached = 0
for fd in fds:
    try: os.readlink("/proc/1/fd/" + fd); reached += 1
    except OSError: pass
    try: os.close(os.open("/proc/1/fd/" + fd, os.O_RDONLY)); reached += 1
    except OSError: pass
print("FDS-REACHED", reached)
holder = [p for p in os.listdir("/proc") if p.isdigit() and open("/proc/%s/comm" % p).read().strip() == "sbx-shim-fds"]
print("HOLDER", len(holder), len(os.listdir("/proc/%s/fd" % holder[0])) if holder else -1)
EOF
sx -q -- python3 "$B/p.py"
if has "ATTACH -1 1" out && has "REFUSED /proc/1/mem" out && has "FDS-REACHED 0" out &&
   has "REFUSED /proc/1/environ" out && ! has "^OPEN" out && has "HOLDER 1 " out; then ok
else bad "$(tr '\n' ' ' < "$B/out")"; fi

t masks_and_protects_cannot_be_unmounted_or_remounted
echo orig > .bashrc
sx -q -- sh -c 'umount ~/.ssh; umount -l ~/.ssh; umount .bashrc; umount -l .bashrc; umount /dev;
	mount -o remount,rw .bashrc; mount -t tmpfs none ~/.ssh; echo evil > .bashrc;
	cat ~/.ssh/id_ed25519; cat /proc/1/root$HOME/.ssh/id_ed25519; echo done'
if has done out && ! grep -q "$SECRET" "$B/out" "$B/err" && [ "$(cat .bashrc)" = orig ] &&
   ! has "^evil" out; then ok; else bad "rc=$RC"; fi

# The seccomp filter refuses user namespaces however they are asked for:
# unshare(2) and clone(2) with CLONE_NEWUSER (EPERM), clone3(2) at all
# (ENOSYS: its flags are out of a filter's reach; libc falls back to clone).
t no_new_user_or_mount_namespace
cat > "$B/ns.py" <<'EOF'
import ctypes, os, signal
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWUSER = 0x10000000
def call(name, *a):
    r = getattr(libc, name)(*a); return r, ctypes.get_errno()
print("UNSHARE", *call("unshare", CLONE_NEWUSER))
nr = {"x86_64": 56, "aarch64": 220}.get(os.uname().machine)  # clone(2)
print("CLONE", *call("syscall", nr, CLONE_NEWUSER | signal.SIGCHLD, 0, 0, 0, 0)) if nr else print("CLONE n/a")
print("CLONE3", *call("syscall", 435, 0, 0))
pid = os.fork()  # plain processes still work
if pid == 0: os._exit(3)
print("FORK", os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
EOF
cp "$B/ns.py" ns.py
sx -q -- sh -c 'unshare -U true && echo USERNS-OK; unshare -Ur true && echo USERNS-ROOT-OK; unshare -m true && echo MNTNS-OK;
	python3 ns.py; echo done'
if has done out && ! has USERNS-OK out && ! has USERNS-ROOT-OK out && ! has MNTNS-OK out &&
   has "UNSHARE -1 1$" out && { has "CLONE -1 1$" out || has "CLONE n/a" out; } && has "CLONE3 -1 38$" out && has "FORK 3" out; then ok
else bad "$(cat "$B/out")"; fi

t protected_files_cannot_be_renamed_unlinked_or_replaced
git init -q . && echo orig-rc > .bashrc && printf '#!/bin/sh\necho orig-hook\n' > .git/hooks/pre-commit
chmod +x .git/hooks/pre-commit
sx -q -- sh -c 'mv .bashrc moved; rm -f .bashrc; echo evil > new && mv -f new .bashrc;
	cp /dev/null .bashrc; printf "" > .bashrc; ln -sf /etc/passwd .bashrc;
	mv .git/hooks/pre-commit .git/hooks/x; rm -f .git/hooks/pre-commit; echo evil > .git/hooks/pre-commit;
	mv .git/hooks hooks-moved; rm -rf .git/hooks; touch .git/hooks/post-checkout;
	python3 -c "import os; os.replace(\"new\", \".bashrc\")" 2>/dev/null; echo done'
# (`mv .git/hooks hooks-moved` may leave a copy: .git is pinned, so the
# rename crosses mounts and mv falls back to copying; the original stays)
if has done out && [ "$(cat .bashrc)" = orig-rc ] && [ ! -L .bashrc ] && [ ! -e moved ] &&
   grep -q orig-hook .git/hooks/pre-commit && [ ! -e .git/hooks/x ] &&
   [ ! -e .git/hooks/post-checkout ] && [ -d .git/hooks ]; then ok
else bad "protected file changed: $(cat .bashrc) $(ls -A . .git/hooks | tr '\n' ' ')"; fi

t missing_protected_names_cannot_be_created_in_workspace_or_home
chmod 755 "$HOME"
printf '[filesystem]\nallow_write = ~\n' > "$B/home.ini"
sx -q -c "$B/home.ini" -- sh -c 'for d in . "$HOME"; do echo evil > $d/.bashrc; echo evil > $d/.zshrc;
	echo evil > $d/.env; echo evil > $d/.mcp.json; mkdir -p $d/.vscode; echo ok > $d/allowed-$RANDOM; done; echo done'
if has done out && [ ! -e .bashrc ] && [ ! -e "$HOME/.bashrc" ] && [ ! -e .env ] && [ ! -e "$HOME/.env" ] &&
   [ ! -e .zshrc ] && [ ! -e .mcp.json ] && [ ! -e .vscode ] && [ ! -e "$HOME/.vscode" ] &&
   ls allowed-* >/dev/null 2>&1 && ls "$HOME"/allowed-* >/dev/null 2>&1; then ok
else bad "created: $(ls -A . "$HOME" | tr '\n' ' ')"; fi

# /proc is the sandbox's own (its pid namespace), and the parts that reach
# the host kernel's settings are read-only: for root, whose uid is the
# host's, file modes alone would let it write /proc/sys/kernel/core_pattern.
t fresh_proc_shows_only_the_sandbox_and_host_settings_read_only
cat > proc.py <<'EOF'
import os
pids = [p for p in os.listdir("/proc") if p.isdigit()]
print("PIDS", len(pids), open("/proc/1/comm").read().strip())
for f in ("/proc/sys/kernel/core_pattern", "/proc/sys/vm/drop_caches", "/proc/sys/fs/file-max"):
    try:
        open(f, "w").close(); print("WROTE", f)
    except OSError as e:
        print("REFUSED", f, e.errno)
EOF
sx -q -- python3 proc.py
if has "^PIDS [1-9] sbx-init$" out && [ "$(grep -c '^REFUSED' "$B/out")" -eq 3 ] && ! has WROTE out &&
   { [ "$(id -u)" -ne 0 ] || [ "$(grep -c '^REFUSED .* 30$' "$B/out")" -eq 3 ]; }; then ok
else bad "$(tr '\n' ' ' < "$B/out")"; fi

t fresh_dev_has_working_nodes_and_private_pts
sx -q -- sh -c 'echo x > /dev/null && head -c 4 /dev/zero | wc -c && head -c 4 /dev/urandom | wc -c &&
	echo shm > /dev/shm/sbx-t && cat /dev/shm/sbx-t && ls /dev/pts && test -c /dev/tty && test -L /dev/ptmx &&
	ls /dev/fd/ >/dev/null && echo DEV-OK; ls /dev/vda /dev/mem /dev/kmsg 2>&1'
if has DEV-OK out && has '^shm$' out && [ "$(grep -c '^4$' "$B/out")" -eq 2 ] &&
   ! has '^/dev/vda$' out && ! has '^/dev/mem$' out; then ok
else bad "$(cat "$B/out" "$B/err" | head -8)"; fi

# ---- network and sockets

t no_tcp_to_host_loopback_server_boundary_netns
python3 - "$B" <<'EOF' &
import socket, sys, os
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(5)
open(sys.argv[1] + "/port", "w").write(str(s.getsockname()[1]))
s.settimeout(20)
try:
    while True:
        c, _ = s.accept(); open(sys.argv[1] + "/seen", "a").write("conn\n")
        c.sendall(b"HELLO-FROM-HOST\n"); c.close()
except Exception:
    pass
EOF
srv=$!
for _ in $(seq 50); do [ -s "$B/port" ] && break; sleep 0.1; done
port=$(cat "$B/port")
sx -q -- python3 -c "import socket; s=socket.create_connection(('127.0.0.1', $port), 3); print(s.recv(100))"
denied_rc=$RC; seen_before=$(cat "$B/seen" 2>/dev/null)
sx -q --allow-domain '*' -- python3 -c "import socket; s=socket.create_connection(('127.0.0.1', $port), 3); print(s.recv(100))"
kill $srv 2>/dev/null; wait $srv 2>/dev/null
if [ "$denied_rc" -ne 0 ] && [ -z "$seen_before" ] && has HELLO-FROM-HOST out; then ok
else bad "denied_rc=$denied_rc seen='$seen_before' open-run rc=$RC"; fi

t unix_socket_blocked_by_seccomp_unless_allowed
python3 - "$W/sock" "$B" <<'EOF' &
import socket, sys, os
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(5); s.settimeout(20)
open(sys.argv[2] + "/ready", "w").write("1")
try:
    while True:
        c, _ = s.accept(); open(sys.argv[2] + "/seen", "a").write("conn\n"); c.sendall(b"UNIX-HELLO"); c.close()
except Exception:
    pass
EOF
srv=$!
for _ in $(seq 50); do [ -s "$B/ready" ] && break; sleep 0.1; done
client="import socket; s=socket.socket(socket.AF_UNIX); s.connect('$W/sock'); print(s.recv(100))"
sx -q -- python3 -c "$client"
blocked_rc=$RC; seen_before=$(cat "$B/seen" 2>/dev/null); blocked_err=$(cat "$B/err")
printf '[network]\nallow_all_unix_sockets = true\n' > "$B/allow.ini"
sx -q -c "$B/allow.ini" -- python3 -c "$client"
kill $srv 2>/dev/null; wait $srv 2>/dev/null
# (a host program's socket in the workspace: refused at connect() by the
# notify layer, which names it; notify.sh has the rest)
if [ "$blocked_rc" -ne 0 ] && [ -z "$seen_before" ] && [[ $blocked_err == *"Permission denied"* ]] &&
   [[ $blocked_err == *"denied unix socket $W/sock"* ]] &&
   has UNIX-HELLO out; then ok; else bad "blocked_rc=$blocked_rc seen='$seen_before' allowed rc=$RC"; fi

t unix_datagram_socket_refused_names_the_key_that_allows_it
# socket(AF_UNIX, SOCK_DGRAM) has no path yet: the line names the key that
# allows such sockets, never `allow_unix_sockets = creation`
sx -q -- python3 -c 'import socket
try:
    socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); print("MADE")
except PermissionError: print("REFUSED")'
if has REFUSED out && hasf 'denied unix socket creation' err &&
   hasf '`allow_all_unix_sockets = true` under [network]' err && ! hasf 'allow_unix_sockets = creation' err; then
	printf '[network]\nallow_all_unix_sockets = true\n' > "$B/allow.ini"
	sx -q -c "$B/allow.ini" -- python3 -c 'import socket; socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); print("MADE")'
	if has MADE out; then ok; else bad "allowed: $(cat "$B/out" "$B/err")"; fi
else bad "out=$(cat "$B/out") err=$(cat "$B/err")"; fi

# ---- exit status, signals, descriptors, terminals

t exit_status_passes_through
sx -q -- sh -c 'exit 42'; a=$RC
sx -q -- sbx-no-such-command; b=$RC; has "command not found" err; nf=$?
echo 'echo hi' > noexec.sh && chmod 644 noexec.sh
sx -q -- ./noexec.sh; c=$RC
if [ $a -eq 42 ] && [ $b -eq 127 ] && [ $nf -eq 0 ] && [ $c -eq 126 ]; then ok; else bad "42->$a 127->$b 126->$c"; fi

t sigterm_ends_command_with_143
m=30.$RANDOM$RANDOM
"$SBX" -q -- sleep "$m" >/dev/null 2>&1 & p=$!
( sleep 60; kill -KILL $p ) 2>/dev/null & dog=$!
# the command runs inside: the signal is for a started sandbox
for _ in $(seq 200); do pgrep -xf "sleep $m" >/dev/null && break; sleep 0.05; done
kill -TERM $p; wait $p; RC=$?
kill $dog 2>/dev/null; wait $dog 2>/dev/null
if [ $RC -eq 143 ]; then ok; else bad "rc=$RC"; fi

t sigterm_and_sigint_are_forwarded_to_command
# Job control on: without it bash starts background jobs with SIGINT
# ignored, and sbx (rightly) hands that disposition on to COMMAND.
set -m
for sig in TERM INT; do
	# (a suite started in the background of a script inherits SIGINT
	# ignored, and sbx rightly hands that on: a shell cannot trap it)
	env --default-signal=INT,TERM "$SBX" -q -- sh -c "trap 'echo got-$sig > marker-$sig; exit 7' $sig; : > trapped-$sig
		while :; do sleep 0.1; done" >/dev/null 2>&1 & p=$!
	( sleep 60; kill -KILL $p ) 2>/dev/null & dog=$!
	# the trap is set (a loaded machine may take seconds to get there)
	for _ in $(seq 300); do [ -e trapped-$sig ] && break; sleep 0.1; done
	kill -$sig $p; wait $p; eval "rc_$sig=$?"
	kill $dog 2>/dev/null; wait $dog 2>/dev/null
done
set +m
if [ "$rc_TERM" -eq 7 ] && [ "$rc_INT" -eq 7 ] && grep -q got-TERM marker-TERM && grep -q got-INT marker-INT
then ok; else bad "TERM rc=$rc_TERM INT rc=$rc_INT"; fi

# A stop request at any moment of the start: either the set-up ends (exit
# 128 + the signal, COMMAND never told) or COMMAND got it (its trap: 7);
# never bubblewrap's SIGKILL (137), which the supervisor sent itself when
# "ready" crossed the signal. And nothing is left behind: bubblewrap's
# child, killed before bubblewrap had it die with its parent, waited for
# ever on an eventfd (7 orphans in 20 tries before sandbox_kill).
t signal_during_start_up_ends_with_its_own_status
set -m
codes=""
mark="sigmark-$$-$RANDOM"
for i in $(seq 0 24); do
	env --default-signal=INT "$SBX" -q -- sh -c "trap 'exit 7' INT; : $mark; while :; do sleep 0.1; done" \
		>/dev/null 2>&1 & p=$!
	( sleep 60; kill -KILL $p ) 2>/dev/null & dog=$!
	# the signal is for sbx-preload, not for env before its exec: where
	# the caller ignores SIGINT (a job started with `&` and no job
	# control), env has not yet reset it and the kill was lost (137)
	for _ in $(seq 500); do [ "$(cat /proc/$p/comm 2>/dev/null)" = sbx-preload ] && break; sleep 0.01; done
	sleep "0.0$((i / 3))$((i % 10))"
	kill -INT $p; wait $p; codes="$codes $?"
	kill $dog 2>/dev/null; wait $dog 2>/dev/null
done
set +m
sleep 0.5
left=$(pgrep -f "$mark" | wc -l)
if ! echo "$codes" | grep -qvE '^( (130|7))+$' && [ "$left" -eq 0 ]; then ok
else bad "exit codes:$codes; left behind: $left $(pgrep -af "$mark" | head -3 | cut -c1-120)"; pkill -9 -f "$mark"; fi

# sbx-preload returns as soon as sbx-init has killed and reaped everything
# (bubblewrap and the namespaces finish going away after it, as with bare
# bubblewrap): nothing COMMAND left behind may outlive it, and a survivor
# that keeps trying to create a protected name must not win once the
# placeholders are removed.
t background_processes_gone_when_sbx_returns_placeholders_safe
sx -q -- sh -c '(while :; do echo tick >> bg.log; echo evil > .bashrc 2>/dev/null;
	echo evil > .mcp.json 2>/dev/null; done) & sleep 0.3; exit 7'
n1=$(wc -l < bg.log 2>/dev/null || echo 0); sleep 0.4; n2=$(wc -l < bg.log 2>/dev/null || echo 0)
if [ "$RC" -eq 7 ] && [ "$n1" -gt 0 ] && [ "$n1" -eq "$n2" ] && [ ! -e .bashrc ] &&
   [ ! -e .mcp.json ] && [ -z "$(ls -A "$W" | grep -v '^bg.log$')" ]; then ok
else bad "rc=$RC log $n1 -> $n2, left: $(ls -A "$W" | tr '\n' ' ')"; fi

t exit_by_signal_is_128_plus_n
sx -q -- sh -c 'kill -USR1 $$'
if [ "$RC" -eq 138 ]; then ok; else bad "rc=$RC"; fi

t limits_cpu_seconds_and_nofile_apply_to_command
printf '[limits]\ncpu_seconds = 7\nnofile = 77\n' > "$B/limits.ini"
sx -q --config "$B/limits.ini" -- sh -c 'ulimit -t; ulimit -n'
if [ "$(tr '\n' ' ' < "$B/out")" = "7 77 " ]; then ok; else bad "got: $(tr '\n' ' ' < "$B/out")"; fi

# The kernel refuses to pass descriptors (ETOOMANYREFS) while the user's
# descriptors in flight, machine-wide, outnumber the sender's
# RLIMIT_NOFILE: with nofile = 64 and another program of the same user
# holding 300 in flight, sbx-init could not hand the notify listener over
# and the run failed its set-up. COMMAND still gets the limit, hard too.
t nofile_limit_with_descriptors_in_flight_elsewhere
python3 - "$B/inflight.ready" <<'EOF' & inflight=$!
import array, os, socket, sys, time
a, b = socket.socketpair()
fds = [os.open("/dev/null", os.O_RDONLY) for _ in range(100)]
for _ in range(3):
    a.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", fds))])
open(sys.argv[1], "w").write("1")
time.sleep(60)
EOF
for _ in $(seq 100); do [ -e "$B/inflight.ready" ] && break; sleep 0.1; done
printf '[limits]\nnofile = 64\n' > "$B/nofile.ini"
sx -q --config "$B/nofile.ini" -- sh -c 'ulimit -n; ulimit -Hn'
kill $inflight 2>/dev/null; wait $inflight 2>/dev/null
if [ -e "$B/inflight.ready" ] && [ "$(tr '\n' ' ' < "$B/out")" = "64 64 " ]; then ok
else bad "rc=$RC out: $(tr '\n' ' ' < "$B/out") $(head -c 300 "$B/err")"; fi

# sbx-init takes its mount operations over the control socket; what comes
# there is checked like its argv, and anything malformed stops it (125)
# before it mounts or runs anything, with the reason. It runs in user,
# mount and pid namespaces of its own (unshare), never on the host's: one
# wrongly accepted message would have it mount, run COMMAND and kill(-1).
t sbx_init_refuses_malformed_control_messages
if unshare -Urmpf --mount-proc true 2>/dev/null; then
cat > "$B/ctl.py" <<'EOF'
import socket, subprocess, sys
init, case = sys.argv[1], sys.argv[2]
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
p = subprocess.Popen(["unshare", "-Urmpf", "--mount-proc", init, "--ctl=%d" % b.fileno(), "--",
                      "sh", "-c", "echo RAN"],
                     pass_fds=[b.fileno()], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
b.close()
msgs = {"bad-op": [b"A--mount-anything=/x\0", b"G"],
        "few-states": [b"A--ro-new=/var/tmp/x\0", b"G"],
        "bad-state": [b"A--ro-new=/var/tmp/x\0", b"Gz"],
        "no-nul": [b"A--unix=block", b"G"],
        "ctl-over-ctl": [b"A--ctl=0\0", b"G"],
        "fd-with-options": ["fd", b"G"],
        "closed": [],
        "good": [b"A--unix=block\0", b"G"]}[case]
try:
    for m in msgs:
        if m == "fd":  # a descriptor may come with "go" only
            a.sendmsg([b"A--verbose\0"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                            memoryview(bytes(4)).cast("i").tobytes())])
        else:
            a.send(m)
except BrokenPipeError:
    pass  # it stopped at the first bad one
if case == "closed":
    a.close()  # the supervisor gave up before sending anything
out, err = p.communicate(timeout=20)  # (the others stop, or run and say "ready")
a.close()
print(p.returncode, out.decode().strip() or "-", err.decode().strip().replace("\n", " | "))
EOF
res="" bad_case=""
for c in bad-op:"unknown argument \`--mount-anything=/x\`" few-states:"malformed go message" \
	 bad-state:"malformed go message" no-nul:"malformed options" ctl-over-ctl:"unknown argument \`--ctl=0\`" \
	 fd-with-options:"control socket: malformed message" closed: good:; do
	name=${c%%:*} want=${c#*:}
	r=$(timeout 30 python3 "$B/ctl.py" "$SBX_BIN/sbx-init" "$name" 2>&1); res="$res[$name: $r] "
	case "$name" in
	good) [ "$r" = "0 RAN " ] || bad_case="$bad_case $name" ;;
	closed) [ "$r" = "125 - " ] || bad_case="$bad_case $name" ;; # silent: the supervisor said why
	*) [[ "$r" == "125 - "* && "$r" == *"$want"* ]] || bad_case="$bad_case $name" ;;
	esac
done
if [ -z "$bad_case" ]; then ok; else bad "$bad_case: $res"; fi
else skip "no unshare -Urmpf"; fi

t stdin_to_stdout_10mib_byte_exact
head -c 10485760 /dev/urandom > "$B/in"
timeout 60 "$SBX" -q -- cat < "$B/in" > "$B/copy" 2>"$B/err"
if cmp -s "$B/in" "$B/copy"; then ok; else bad "bytes differ ($(stat -c %s "$B/copy"))"; fi

t fd3_pipe_passes_through_both_ways
echo fd3-payload > "$B/f3"
timeout 30 "$SBX" -q -- sh -c 'cat <&3' 3< "$B/f3" > "$B/out" 2>"$B/err"
timeout 30 "$SBX" -q -- sh -c 'echo back-through-fd3 >&3' 3> "$B/w3" 2>>"$B/err"
if has fd3-payload out && grep -q back-through-fd3 "$B/w3"; then ok; else bad "fd 3 lost"; fi

t pty_under_script_and_dev_tty
if command -v script >/dev/null; then
	timeout 30 script -qec "$SBX -q -- sh -c 'test -t 0 && test -t 1 && echo PTY-OK; echo TTY-WRITE > /dev/tty'" /dev/null > "$B/out" 2>&1
	if has PTY-OK out && has TTY-WRITE out; then ok; else bad "$(head -c 200 "$B/out")"; fi
else skip "no script"; fi

t tiocsti_refused_by_seccomp_in_a_real_pty
cat > "$B/sti.py" <<'EOF'
import fcntl, termios, os
fd = os.open("/dev/tty", os.O_RDWR)
try:
    fcntl.ioctl(fd, termios.TIOCSTI, b"x"); print("STI-ALLOWED")
except OSError as e:
    print("STI-REFUSED", e.errno)
EOF
cp "$B/sti.py" "$W/sti.py"
timeout 30 script -qec "$SBX -q -- python3 sti.py" /dev/null > "$B/out" 2>&1
if has "STI-REFUSED 1" out && ! has STI-ALLOWED out; then ok; else bad "$(head -c 200 "$B/out")"; fi

# The terminal is COMMAND's too: a program inside made its own group the
# foreground one with TOSTOP set, and the supervisor's next report line
# there stopped it (SIGTTOU): the shell took the terminal back, said
# "Stopped", and the sandbox ran on with every notified call held. On a
# pty of our own, as a shell would run sbx: the run ends, its report said.
t supervisor_not_stopped_by_tostop_from_inside
cat > "$B/ttou.py" <<'EOF'
import os, pty, signal, sys, time
sbx, w = sys.argv[1], sys.argv[2]
prog = ("import os, signal, termios, time\n"
        "signal.signal(signal.SIGTTOU, signal.SIG_IGN)\n"
        "a = termios.tcgetattr(0); a[3] |= termios.TOSTOP\n"
        "termios.tcsetattr(0, termios.TCSANOW, a)\n"
        "os.setpgid(0, 0); os.tcsetpgrp(0, os.getpgrp())\n"
        "try: open(os.path.expanduser('~/.bashrc'), 'a')\n"
        "except OSError: pass\n"
        "time.sleep(1)\n"
        "open('done', 'w').write('x')\n")
pid, m = pty.fork()
if pid == 0:
    c = os.fork()
    if c == 0:  # a foreground job of this "shell"
        os.setpgid(0, 0)
        signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        os.tcsetpgrp(0, os.getpgrp())
        signal.signal(signal.SIGTTOU, signal.SIG_DFL)
        os.execv(sbx, [sbx, "--", "python3", "-c", prog])
    _, st = os.waitpid(c, os.WUNTRACED)
    with open(w + "/shell", "w") as f:
        f.write("stopped by %d" % os.WSTOPSIG(st) if os.WIFSTOPPED(st) else "exited %d" % st)
    if os.WIFSTOPPED(st):
        os.kill(c, signal.SIGKILL)
        os.waitpid(c, 0)
    os._exit(0)
out = b""
while True:
    try:
        d = os.read(m, 4096)
    except OSError:
        break
    if not d:
        break
    out += d
os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
EOF
timeout 60 python3 "$B/ttou.py" "$SBX" "$W" >"$B/out" 2>&1
if [ "$(cat shell 2>/dev/null)" = "exited 0" ] && [ -e done ] &&
   has 'denied write of ~/.bashrc' out; then ok
else bad "shell: $(cat shell 2>/dev/null); $(tr '\r\n' '  ' <"$B/out" | head -c 300)"; fi

t real_terminal_through_tmux_reads_dev_tty
if command -v tmux >/dev/null; then
	sock="sbx-it-$$-$RANDOM"
	tmux -L "$sock" new-session -d -x 80 -y 24 \
		"cd '$W' && HOME='$HOME' '$SBX' -q -- sh -c 'read x < /dev/tty; echo \"\$x\" > got'"
	sleep 1.5
	tmux -L "$sock" send-keys 'hello-from-keyboard' Enter
	for _ in $(seq 50); do [ -s got ] && break; sleep 0.1; done
	tmux -L "$sock" kill-server 2>/dev/null
	if grep -q hello-from-keyboard got 2>/dev/null; then ok; else bad "nothing read from /dev/tty"; fi
else skip "no tmux"; fi

# ---- real programs

t git_init_and_commit_in_workspace
sx -q -- sh -c 'git init -q . && echo a > a && git add a && git -c user.name=t -c user.email=t@e commit -qm first'
if [ "$(git -C "$W" log --format=%s 2>/dev/null)" = first ]; then ok; else bad "rc=$RC"; fi

t python3_and_node_write_in_workspace
sx -q -- python3 -c 'open("py.txt","w").write("from-python")'; prc=$RC
if command -v node >/dev/null; then
	sx -q -- node -e 'require("fs").writeFileSync("js.txt","from-node")'
	[ "$(cat js.txt 2>/dev/null)" = from-node ] || { bad "node rc=$RC"; continue 2>/dev/null; }
fi
if [ "$(cat py.txt 2>/dev/null)" = from-python ]; then ok; else bad "python rc=$prc"; fi

t static_binary_still_confined_by_boundary_no_shim
cat > prog.c <<'EOF'
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(void) {
	char buf[128] = "";
	char p[4096];
	snprintf(p, sizeof p, "%s/.ssh/id_ed25519", getenv("HOME"));
	int fd = open(p, O_RDONLY);
	if (fd >= 0 && read(fd, buf, sizeof buf - 1) > 0) printf("READ:%s", buf);
	snprintf(p, sizeof p, "%s/static-planted", getenv("HOME"));
	if (open(p, O_WRONLY | O_CREAT, 0644) >= 0) printf("WROTE\n");
	return 0;
}
EOF
if cc -static -o prog prog.c 2>/dev/null; then
	sx -q -- ./prog
	if ! grep -q "$SECRET" "$B/out" && [ ! -e "$HOME/static-planted" ] && ! has WROTE out; then ok
	else bad "$(cat "$B/out")"; fi
else skip "no static libc"; fi

# A protected name at the top of a workspace gets no stand-in (git status
# would list it): a program the shim does not see that makes one anyway is
# refused by the boundary (the seccomp notify layer), which names it.
t protected_name_made_by_a_static_binary_is_refused_by_the_boundary
git init -q . && before=$(ls -A)
cat > "$B/prog.c" <<'EOF'
#include <fcntl.h>
#include <sys/stat.h>
int main(void) { mkdir(".vscode", 0755); return open(".vscode/tasks.json", O_WRONLY | O_CREAT, 0644) < 0; }
EOF
if cc -static -o "$B/prog" "$B/prog.c" 2>/dev/null; then
	sx -q --no-shim -- "$B/prog"
	if [ ! -e .vscode ] && [ "$RC" -eq 1 ] &&
	   hasf "denied write of $W/.vscode by \`deny_write = .vscode/\`" err && has "(seccomp)" err &&
	   [ "$(ls -A)" = "$before" ]; then ok
	else bad "rc=$RC $(ls -A | tr '\n' ' ')"; fi
else skip "no static libc"; fi

# The README's `make run` demonstration, as a newcomer sees it: two
# successes, two refusals, each refusal explained on a line of its own.
t make_run_demo_shows_both_outcomes_on_whole_lines
sh "$SBX_BIN/scripts/demo.sh" >"$B/out" 2>&1; RC=$?
if [ $RC -eq 0 ] && has '^1\. read  notes.txt          -> hello from the workspace$' out &&
   has '^2\. write result.txt         -> ok$' out &&
   has '^3\. read  ~/.ssh/id_ed25519  -> cat: .*Permission denied$' out &&
   has '^4\. write ~/planted          -> touch: .*Read-only file system$' out &&
   has '^sbx: denied read of ~/.ssh/id_ed25519 by `deny_read = ~/.ssh`' out &&
   has '^sbx: denied write of ~/planted' out && has 'absent (blocked)' out &&
   ! grep -q 'demo secret' "$B/out"; then ok
else bad "$(head -c 600 "$B/out")"; fi

# ---- set-up failures and configuration

# bubblewrap is looked for in the system's directories only (never PATH),
# so "missing" is a named one that is not there
t bwrap_missing_refuses_with_advice_exit_125
SBX_BWRAP="$B/no/bwrap" "$TIMEOUT" 30 "$SBX" -- touch ran-marker >"$B/out" 2>"$B/err"; RC=$?
if [ $RC -eq 125 ] && [ ! -e ran-marker ] && hasf "SBX_BWRAP names $B/no/bwrap, which is not an executable file" err &&
   has "nothing was run" err; then ok; else bad "rc=$RC"; fi

# fallback = warn on a machine without the full boundary: the nested mode
# (Landlock: docs/SECURITY.md) where the kernel has it, else no sandbox,
# loudly
landlock_abi() { python3 -c 'import ctypes; print(max(0, ctypes.CDLL(None).syscall(444, None, 0, 1)))' 2>/dev/null || echo 0; }
warned_or_nested() { # what fallback = warn gave, as the machine allows
	if [ "$(landlock_abi)" -gt 0 ]; then has "nested mode ($1; fallback = warn)" err && ! has WARNING err
	else has WARNING err; fi
}
t bwrap_missing_with_fallback_warn_runs_nested_or_loudly
printf '[sandbox]\nfallback = warn\n' > "$B/warn.ini"
SBX_BWRAP="$B/no/bwrap" "$TIMEOUT" 30 "$SBX" -c "$B/warn.ini" -- touch ran-marker >"$B/out" 2>"$B/err"; RC=$?
if [ $RC -eq 0 ] && [ -e ran-marker ] && warned_or_nested "bubblewrap is not installed"; then ok
else bad "rc=$RC"; fi

# bubblewrap runs on the host, outside every boundary: a `bwrap` a run can
# plant in a directory on PATH (here the workspace, as `.`, an empty entry
# and by name) is never started by a later run, not even to probe whether
# fallback = warn applies; that run is sandboxed as usual.
t bwrap_planted_on_path_is_never_run_on_the_host
printf '#!/bin/sh\necho planted > "%s/pwned"\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n' "$B" > "$W/bwrap"
chmod +x "$W/bwrap"
printf '[sandbox]\nfallback = warn\n' > "$B/warn.ini"
for path in "$W:$PATH" ":$PATH" ".:$PATH"; do
	PATH="$path" "$TIMEOUT" 30 "$SBX" -c "$B/warn.ini" -- sh -c "echo in > marker; echo out > '$B/outside'" >>"$B/out" 2>>"$B/err"
done
if [ ! -e "$B/pwned" ] && [ "$(cat marker)" = in ] && [ ! -e "$B/outside" ] && ! has WARNING err; then ok
else bad "pwned=$(cat "$B/pwned" 2>&1) outside=$(cat "$B/outside" 2>&1)"; fi

t bwrap_named_by_a_relative_path_is_refused
cp /bin/true "$W/bwrap"
SBX_BWRAP=bwrap "$TIMEOUT" 30 "$SBX" -- touch ran-marker >"$B/out" 2>"$B/err"; RC=$?
if [ $RC -eq 125 ] && [ ! -e ran-marker ] && hasf 'SBX_BWRAP must be an absolute path to bubblewrap, not "bwrap"' err &&
   has "nothing was run" err; then ok; else bad "rc=$RC"; fi

# sbx's own programs are never writable inside, even where they lie in the
# workspace (a checkout of sbx, a user install under a writable HOME): a run
# that replaced sbx-init, the shim or sbx-preload would own the next run.
t own_programs_in_the_workspace_are_not_writable_inside
mkdir "$W/bin" && cp "$SBX_BIN/sbx-preload" "$SBX_BIN/sbx-init" "$SBX_BIN/libsbx-preload.so" "$W/bin/"
sums=$(cd "$W/bin" && sha256sum sbx-preload sbx-init libsbx-preload.so)
"$TIMEOUT" 60 "$W/bin/sbx-preload" -- sh -c 'for f in sbx-init libsbx-preload.so sbx-preload; do echo evil > bin/$f; echo evil >> bin/$f; rm -f bin/$f; mv bin/$f bin/$f.old; done; echo done > marker' >"$B/out" 2>"$B/err"; RC=$?
if [ "$(cd "$W/bin" && sha256sum sbx-preload sbx-init libsbx-preload.so)" = "$sums" ] &&
   [ "$(ls "$W/bin" | tr '\n' ' ')" = "libsbx-preload.so sbx-init sbx-preload " ] &&
   [ "$(cat marker)" = done ] && has "denied write of .*bin/sbx-init" err; then ok
else bad "rc=$RC $(ls "$W/bin" | tr '\n' ' ')"; fi

# bubblewrap is started before the configuration is read; when it fails
# (here: refused its user namespace), nothing ran, its own message is
# shown, the placeholders made meanwhile are gone, and fallback = warn
# still runs the command, loudly.
t bwrap_failing_at_start_refuses_cleanly_or_falls_back
printf '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n' > "$B/fakebwrap"
chmod +x "$B/fakebwrap"
printf '[sandbox]\nfallback = warn\n' > "$B/warn.ini"
SBX_BWRAP="$B/fakebwrap" "$TIMEOUT" 30 "$SBX" -- touch ran-marker >"$B/out" 2>"$B/err"; RC=$?
left=$(ls -A "$W")
SBX_BWRAP="$B/fakebwrap" "$TIMEOUT" 30 "$SBX" -c "$B/warn.ini" -- touch warn-marker >>"$B/out" 2>>"$B/err"; RC2=$?
if [ $RC -eq 125 ] && [ -z "$left" ] && has "setting up uid map" err && has "nothing was run" err &&
   [ $RC2 -eq 0 ] && [ -e warn-marker ] && [ ! -e ran-marker ] &&
   warned_or_nested "bubblewrap cannot make namespaces here"; then ok
else bad "rc=$RC rc2=$RC2 left: $left"; fi

# A bubblewrap that fails for a passing reason (no process left to fork,
# as a fork bomb of the command's own causes) is no proof that the machine
# cannot sandbox: fallback = warn does not run the command unsandboxed.
t bwrap_failing_for_a_passing_reason_never_falls_back
printf '#!/bin/sh\necho "bwrap: Creating new namespace failed: Resource temporarily unavailable" >&2\nexit 1\n' > "$B/eagainbwrap"
chmod +x "$B/eagainbwrap"
printf '[sandbox]\nfallback = warn\n' > "$B/warn.ini"
SBX_BWRAP="$B/eagainbwrap" "$TIMEOUT" 30 "$SBX" -c "$B/warn.ini" -- touch ran-marker >"$B/out" 2>"$B/err"; RC=$?
if [ $RC -eq 125 ] && [ ! -e ran-marker ] && ! has WARNING err && has "could not be told" err &&
   has "nothing was run" err; then ok
else bad "rc=$RC $(head -c 300 "$B/err")"; fi

# fallback = warn is for a machine where bubblewrap cannot run at all: a
# failure after the boundary started (here sbx-init itself gives up, as on
# an over-long operation list a project's sandbox.ini can cause) exits 125
# and runs nothing, also with fallback = warn.
t fallback_warn_never_runs_unsandboxed_after_the_sandbox_started
printf '#!/bin/sh\necho "sbx: sandbox set-up failed: test failure" >&2\nexit 125\n' > "$B/failinit"
chmod 755 "$B/failinit"
printf '[sandbox]\nfallback = warn\n' > "$B/warn.ini"
SBX_INIT="$B/failinit" "$TIMEOUT" 30 "$SBX" -c "$B/warn.ini" -- sh -c 'echo ran > "$HOME/ran-marker"' >"$B/out" 2>"$B/err"; RC=$?
if [ $RC -eq 125 ] && [ ! -e "$HOME/ran-marker" ] && has "test failure" err && ! has WARNING err &&
   has "fallback = warn does not apply" err; then ok
else bad "rc=$RC"; fi

# Each malformed operation is refused (125) before anything is mounted or
# run, with a message naming that very argument; the same command with a
# well-formed operation runs, so the refusals are not the harness failing.
# sbx-init runs in user, mount and pid namespaces of its own (unshare),
# never on the host's, where an operation wrongly accepted would mount
# there (and, as root, end by killing every process it may signal).
t sbx_init_refuses_malformed_mount_operations
if unshare -Urmpf --mount-proc true 2>/dev/null; then
	init() { timeout 30 unshare -Urmpf --mount-proc "$SBX_BIN/sbx-init" "$@"; }
	mkdir sub
	init --ro="$W/sub" -- sh -c 'touch sub/x 2>/dev/null || echo RO; touch ran-marker' >"$B/out" 2>"$B/err"
	good_rc=$? good=$(cat "$B/out") good_ran=$([ -e ran-marker ] && echo yes); rm -f ran-marker
	bad_ops=""
	for op in --ro=relative --ro=/a/../etc --ro=/a/./b --ro=/a//b --ro=/ --mask-dir=/x/ --unmask=/home/x \
		  "--mask-dir-x=/a --unmask=/b" --ro-bind=/x --dev=/x --pin=relative --ro-link=/a/../b \
		  --rw=/ --proc=/x --limit-cpu=0 --limit-nofile=x --ctl=x --unix=maybe --env=novalue; do
		# shellcheck disable=SC2086
		init $op -- touch ran-marker >/dev/null 2>"$B/err"; rc=$?
		culprit=${op##* } # the argument at fault is the last one
		if [ $rc -ne 125 ] || [ -e ran-marker ] ||
		   [ "$(cat "$B/err")" != "sbx-init: unknown argument \`$culprit\` (sbx-init is started by sbx-preload)" ]; then
			bad_ops="$bad_ops [$op: rc=$rc $(head -c 120 "$B/err")]"
		fi
		rm -f ran-marker
	done
	if [ $good_rc -eq 0 ] && [ "$good" = RO ] && [ "$good_ran" = yes ] && [ ! -e sub/x ] &&
	   [ -z "$bad_ops" ]; then ok
	else bad "good: rc=$good_rc '$good'; accepted or wrong message:$bad_ops"; fi
else skip "no unshare -Urmpf"; fi

t config_error_names_line_and_runs_nothing
printf '[filesystem]\n; comment\ndeny_reads = x\n' > "$B/bad.ini"
sx -c "$B/bad.ini" -- touch ran-marker
if [ $RC -eq 125 ] && [ ! -e ran-marker ] && has "bad.ini:3:" err && has "did you mean" err; then ok
else bad "rc=$RC"; fi

t project_sandbox_ini_may_narrow_not_widen
printf '[filesystem]\nallow_write = /\n' > sandbox.ini
sx -- touch ran-marker; w=$RC; has "would widen" err; ww=$?
printf '[filesystem]\ndeny_read = secretdir\n' > sandbox.ini
mkdir secretdir && echo s3cr3t > secretdir/f
sx -q -- cat secretdir/f
if [ $w -eq 125 ] && [ $ww -eq 0 ] && [ ! -e ran-marker ] && ! has s3cr3t out; then ok
else bad "widen rc=$w narrow rc=$RC"; fi

t deny_env_removes_variables_and_ephemeral_home
printf '[env]\ndeny_env = MY_*\nhome = ephemeral\n' > "$B/env.ini"
AWS_SECRET_ACCESS_KEY=aws-x MY_TOKEN=tok KEEP_ME=kept sx -q -c "$B/env.ini" -- sh -c \
	'env; echo HOME=$HOME; ls -A "$HOME" | wc -l; touch "$HOME/eph"'
if has KEEP_ME=kept out && ! has aws-x out && ! has MY_TOKEN out && ! has "HOME=$HOME$" out &&
   [ ! -e "$HOME/eph" ] && grep -qx 0 "$B/out"; then ok; else bad "$(grep -E 'HOME|TOKEN|AWS' "$B/out")"; fi

t strict_isolation_session_dir_only
printf '[sandbox]\nisolation = strict\n' > "$B/strict.ini"
XDG_STATE_HOME="$B/state" sx -c "$B/strict.ini" -- sh -c 'echo x > ws-file; echo y > "$SBX_SESSION_DIR/out"; echo $SBX_SESSION_DIR'
sess=$(tail -1 "$B/out")
if [ ! -e ws-file ] && [ "$(cat "$sess/out" 2>/dev/null)" = y ] && [[ $sess == "$B/state/sbx/sessions/"* ]]; then ok
else bad "sess=$sess rc=$RC"; fi

t print_gives_a_runnable_bwrap_line
sx -q --print -- sh -c 'echo printed > p.txt'
line=$(cat "$B/out")
if [[ $line == *bwrap*--unshare-net*--*sh* ]] && timeout 30 sh -c "$line" 2>>"$B/err" &&
   [ "$(cat p.txt 2>/dev/null)" = printed ]; then ok; else bad "$line"; fi

t print_never_runs_the_command_with_the_sandbox_off
# --print prints and runs nothing; SBX_NO_SANDBOX (or --no-sandbox) once
# made it run COMMAND unsandboxed instead (preload/mode.c).
rm -f ran-by-print
SBX_NO_SANDBOX=1 sx --print -- touch ran-by-print; r1=$RC
sx --no-sandbox --print -- touch ran-by-print; r2=$RC
if [ ! -e ran-by-print ] && [ $r1 -eq 125 ] && [ $r2 -eq 125 ] &&
   has "turns the sandbox off; nothing was run" err && ! has WITHOUT err; then ok
else bad "r1=$r1 r2=$r2 ran=$([ -e ran-by-print ] && echo yes) err=$(cat "$B/err")"; fi

t no_sandbox_gives_command_the_callers_signal_dispositions
# sbx-preload ignores SIGPIPE, SIGXFSZ, SIGTTOU and SIGTTIN for itself
# (common/guard.c); COMMAND run without a sandbox gets them as its caller
# left them: SigIgn as the caller's own, from a caller that ignores none
# and from one that ignores SIGPIPE and SIGXFSZ (bits 12 and 24).
timeout 60 grep SigIgn /proc/self/status > "$B/direct"
sx --no-sandbox -- grep SigIgn /proc/self/status; r1=$RC; cp "$B/out" "$B/boxless"
(trap '' PIPE XFSZ; timeout 60 grep SigIgn /proc/self/status > "$B/direct-ign")
(trap '' PIPE XFSZ; sx --no-sandbox -- grep SigIgn /proc/self/status); r2=$RC
ign=$(awk '{ print $2 }' "$B/direct-ign")
if [ $r1 -eq 0 ] && [ $r2 -eq 0 ] && [ -s "$B/direct" ] && cmp -s "$B/direct" "$B/boxless" &&
   cmp -s "$B/direct-ign" "$B/out" && [ $((0x$ign & 0x1001000)) -eq $((0x1001000)) ] &&
   has 'WITHOUT a sandbox' err; then ok
else bad "rc=$r1/$r2 caller: $(cat "$B/direct") $(cat "$B/direct-ign"); COMMAND: $(cat "$B/boxless") $(cat "$B/out")"; fi

t startup_line_shown_and_quiet_hides_it
sx -- true; loud=$(cat "$B/err")
sx -q -- true; quiet=$(cat "$B/err")
if [[ $loud == *"sandbox on"*"network off"* ]] && [ -z "$quiet" ]; then ok; else bad "loud='$loud' quiet='$quiet'"; fi

t log_and_learn_paths_longer_than_path_max_stop_the_run
# a path that does not fit is refused whole, never cut short to the name
# of another file (preload/main.c, sbx_path_fmt)
long="$W"
for _ in $(seq 20); do long="$long/$(printf 'd%.0s' $(seq 220))"; done
sx --log "$long/audit.jsonl" -- touch ran-with-long-log; r1=$RC; e1=$(cat "$B/err")
sx --learn="$long/learned.ini" -- touch ran-with-long-learn; r2=$RC; e2=$(cat "$B/err")
if [ $r1 -eq 125 ] && [ $r2 -eq 125 ] && [ ! -e ran-with-long-log ] && [ ! -e ran-with-long-learn ] &&
   [[ $e1 == *"the audit log: $W/ddd"*"… makes a path longer than 4095 bytes; nothing was run"* ]] &&
   [[ $e2 == *"--learn's file: $W/ddd"*"… makes a path longer than 4095 bytes; nothing was run"* ]] &&
   [ -z "$(find "$W" -mindepth 1 -maxdepth 1 -name 'd*')" ]; then ok
else bad "r1=$r1 r2=$r2 e1=${e1:0:300} e2=${e2:0:300}"; fi

echo "# $(id -un): $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
