#!/bin/bash
# The walk's record (preload/walkrec.h, issue 25): a second start in a
# workspace reads again only the directories whose ctime moved, and
# replays what mattered in the others. What appeared between two runs
# (a `.env` three levels down, a `*.pem` below directories that did not
# change, a nested repository, a file that became another name of a
# credential) is masked and guarded in the second run;
# a record the sandbox tries to change stays as it was, and one another
# user could have written, one of an older format, or a forged one that is
# not the user's own file, is ignored (the run still protects). Helpers
# (t, ok, bad, skip, sx, has, hasf) are in lib.sh.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# policy: .env and *.pem read-denied at any depth
policy() {
	mkdir -p "$HOME/.config/sbx"
	printf '[filesystem]\ndeny_read = .env\ndeny_read = *.pem\n' > "$HOME/.config/sbx/sandbox.ini"
}
# The record trusts no directory changed less than 2 s before a walk (file
# times come from a coarse clock): the tree is let age that long so the
# first run records it. Not a wait for anything to be ready.
age() { sleep 2.2; }
# counts: "READ KEPT" from the last -v run's line
counts() { sed -n 's/.*the walk read \([0-9]*\) directories and found \([0-9]*\) unchanged.*/\1 \2/p' "$B/err" | tail -1; }
state() { echo "$HOME/.local/state/sbx/walk"; }
record() { ls "$(state)"/* 2>/dev/null | head -1; }
# tree: a/b/c, p/q/r/s/t (five levels), x/y and a repository: 12 directories
tree() { mkdir -p a/b/c p/q/r/s/t x/y && mkrepo "$W/repo" >/dev/null; }
# attack GITDIR: a hook and an fsmonitor command (each runs with the next git)
attack='for g; do echo "touch /tmp/pwned" > "$g/hooks/pre-commit" 2>/dev/null; chmod +x "$g/hooks/pre-commit" 2>/dev/null
	echo "[core] fsmonitor = touch /tmp/pwned" >> "$g/config" 2>/dev/null; done; echo END'
untouched() { [ ! -e "$1/hooks/pre-commit" ] && ! grep -q fsmonitor "$1/config"; }

# ---- what appears between two runs is masked and guarded in the second

t second_run_masks_and_guards_what_appeared_since_the_first_no_shim
policy; tree; age
sx -v -- true
first=$(counts)
# between the runs: a .env three levels down, a key five levels down
# (only t/ changes: p, q, r and s are replayed, and t read again), and a
# nested repository in x/y
echo "ENV-$SECRET" > a/b/c/.env; echo "PEM-$SECRET" > p/q/r/s/t/key.pem
mkrepo "$W/x/y/nested" >/dev/null
sx -v --no-shim -- sh -c "cat a/b/c/.env p/q/r/s/t/key.pem; $attack" sh x/y/nested/.git repo/.git
second=$(counts)
if has END out && ! has "$SECRET" out && untouched x/y/nested/.git && untouched repo/.git &&
   [ "${first% *}" -ge 12 ] && [ "${second#* }" -ge 8 ] && [ "${second% *}" -ge 3 ]; then ok
else bad "rc=$RC first='$first' second='$second' out: $(head -c 200 "$B/out")"; fi

# The same with the shim: the reads refused and reported.
t second_run_refuses_reads_of_what_appeared_with_the_shim
policy; tree; age
sx -v -- true
echo "ENV-$SECRET" > a/b/c/.env; echo "PEM-$SECRET" > p/q/r/s/t/key.pem
sx -v -- sh -c 'cat a/b/c/.env; cat p/q/r/s/t/key.pem; echo END'
second=$(counts)
if has END out && ! has "$SECRET" out && [ "${second#* }" -ge 8 ]; then ok
else bad "rc=$RC second='$second' out: $(head -c 200 "$B/out")"; fi

# A directory removed and made again at the same path (often with the same
# inode number) has a new ctime: read again, its .env masked.
t directory_made_again_at_the_same_path_is_read_again
policy; tree; age
sx -v -- true
rm -rf p/q/r/s && mkdir -p p/q/r/s/t && echo "ENV-$SECRET" > p/q/r/s/t/.env
sx -v --no-shim -- sh -c 'cat p/q/r/s/t/.env; echo END'
if has END out && ! has "$SECRET" out; then ok
else bad "rc=$RC $(counts) out: $(head -c 200 "$B/out")"; fi

# A file renamed into an unchanged directory from another moves both
# directories' ctime: the one it landed in is read again.
t file_renamed_into_an_unchanged_directory_is_found
policy; tree; echo "PEM-$SECRET" > x/key.txt; age
sx -v -- true
mv x/key.txt p/q/r/key.pem
sx -v --no-shim -- sh -c 'cat p/q/r/key.pem; echo END'
if has END out && ! has "$SECRET" out; then ok
else bad "rc=$RC $(counts) out: $(head -c 200 "$B/out")"; fi

# A file of an unchanged directory that became another name (a hard link)
# of a credential since the last run: the link was made in ~/.aws, which
# moves that directory's ctime, not the one the name lies in. While a
# read-denied file has other names no directory is replayed: it is found
# and masked.
t hard_link_made_elsewhere_to_a_file_of_an_unchanged_directory_is_masked
policy; tree; mkdir -p notes && echo "AWS-$SECRET" > notes/creds.bak; age
sx -v -- true
mkdir -p "$HOME/.aws" && ln notes/creds.bak "$HOME/.aws/credentials"
sx -v --no-shim -- sh -c 'cat notes/creds.bak; echo END'
if has END out && ! has "$SECRET" out &&
   hasf 'notes/creds.bak is another name (a hard link) of ~/.aws/credentials' err; then ok
else bad "rc=$RC $(counts) out: $(head -c 200 "$B/out")"; fi

# ---- the record itself

# The record lies in sbx's state directory, which no run may write: the
# sandbox's attempts (overwrite, remove, rename over it, a link in its
# place, a new record beside it) are refused and the host's record is
# unchanged, with the workspace alone writable and with HOME writable too
# (then the record lies in a writable root and is not used at all).
t record_cannot_be_changed_from_inside_the_sandbox
policy; tree; age
sx -v -- true
rec=$(record); sum=$(sha256sum "$rec" 2>/dev/null)
try="echo forged > '$rec'; rm -f '$rec'; mv '$rec' '$rec.x'; ln -sf /etc/passwd '$(state)/new';
	echo x > '$(state)/new2'; echo END"
sx --no-shim -- sh -c "$try"
a=$(has END out && echo y)
sx -v --no-shim --allow-write "$HOME" -- sh -c "$try"
if [ -n "$rec" ] && [ "$a" = y ] && has END out && [ "$(sha256sum "$rec")" = "$sum" ] &&
   [ "$(ls -A "$(state)" | wc -l)" = 1 ] && hasf "lies in a writable root: not used" err; then ok
else bad "rec=$rec a=$a rc=$RC state: $(ls -A "$(state)" | tr '\n' ' ')"; fi

# forge FILE DIR: the record FILE rewritten to say DIR holds nothing that
# matters, with a correct checksum: what a program able to write the
# record would plant. Prints "forged" when it found DIR in it.
forge() {
	python3 - "$1" "$2" <<'EOF'
import struct, sys
f, target = sys.argv[1], sys.argv[2].encode() + b"\0"
b = bytearray(open(f, "rb").read())
M = (1 << 64) - 1
def csum(hdr, key, body):
    h = 0xcbf29ce484222325 ^ (len(key) + len(body))
    hdr = bytearray(hdr); hdr[24:32] = bytes(8)
    for part in (bytes(hdr), key, body):
        i = 0
        while i + 8 <= len(part):
            h = ((h ^ struct.unpack_from("<Q", part, i)[0]) * 0x9e3779b97f4a7c15) & M
            h ^= h >> 29
            i += 8
        for c in part[i:]:
            h = ((h ^ c) * 0x100000001b3) & M
    return h
klen = struct.unpack_from("<I", b, 12)[0]
at, out, found = 40 + klen, bytearray(), False
while at < len(b):
    plen = struct.unpack_from("<H", b, at + 32)[0]
    elen = struct.unpack_from("<I", b, at + 36)[0]
    d = bytearray(b[at:at + 40 + plen + elen])
    if bytes(d[40:40 + plen]) == target:
        d = d[:40 + plen]; struct.pack_into("<I", d, 36, 0); found = True
    out += d
    at += 40 + plen + elen
b = b[:40 + klen] + out
struct.pack_into("<Q", b, 16, len(b))
struct.pack_into("<Q", b, 24, csum(b[:40], bytes(b[40:40 + klen]), bytes(out)))
open(f, "wb").write(b)
print("forged" if found else "not found")
EOF
}

# A record saying a/b/c holds nothing, forged with a correct checksum, in
# a file another user could have written (others may write it; as root,
# also one another user owns): ignored, the .env there masked.
t record_others_could_write_is_ignored_and_the_run_still_protects
policy; tree; echo "ENV-$SECRET" > a/b/c/.env; age
sx -v -- true
rec=$(record); f=$(forge "$rec" "$W/a/b/c")
chmod 0666 "$rec"
sx -v --no-shim -- sh -c 'cat a/b/c/.env; echo END'
a=$(has END out && ! has "$SECRET" out && hasf "only you may write" err && echo y)
if [ "$(id -u)" -eq 0 ] && id sbxtest >/dev/null 2>&1; then
	chmod 0600 "$rec" && chown sbxtest "$rec"
	sx -v --no-shim -- sh -c 'cat a/b/c/.env; echo END'
	b=$(has END out && ! has "$SECRET" out && hasf "not a regular file of yours" err && echo y)
else b=y; fi
if [ "$f" = forged ] && [ "$a" = y ] && [ "$b" = y ]; then ok
else bad "forge=$f mode=$a owner=$b rc=$RC out: $(head -c 200 "$B/out")"; fi

# A record of an older format (the version field lowered, the checksum
# made right again) is ignored: every directory read, the .env masked.
t record_of_an_older_format_is_ignored
policy; tree; age
sx -v -- true
rec=$(record)
echo "ENV-$SECRET" > a/b/c/.env
python3 - "$rec" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
struct.pack_into("<I", b, 8, 0)
open(sys.argv[1], "wb").write(b)
EOF
sx -v --no-shim -- sh -c 'cat a/b/c/.env; echo END'
c=$(counts)
if has END out && ! has "$SECRET" out && hasf "a record of another format" err && [ "${c#* }" = 0 ]; then ok
else bad "rc=$RC counts='$c' $(grep 'record' "$B/err" | head -2)"; fi

# A record made for another workspace (copied in place of this one's) is
# ignored: it names the workspace it was made for.
t record_of_another_workspace_is_ignored
policy; tree; age
sx -v -- true
mine=$(record)
mkdir "$B/ws2" && cd "$B/ws2" && mkdir -p a/b/c && touch -d '1 hour ago' . 2>/dev/null
age; sx -v -- true; cd "$W" || exit 1
other=$(ls "$(state)"/* | grep -v "^$mine$" | head -1)
echo "ENV-$SECRET" > a/b/c/.env
cp "$other" "$mine"
sx -v --no-shim -- sh -c 'cat a/b/c/.env; echo END'
if [ -n "$other" ] && has END out && ! has "$SECRET" out &&
   hasf "made for another workspace or policy" err; then ok
else bad "other=$other rc=$RC $(grep 'record' "$B/err" | head -2)"; fi

# The state directory behind a symbolic link: not used (nor written).
t state_directory_behind_a_link_is_not_used
policy; tree; age
mkdir -p "$B/elsewhere" "$HOME/.local/state" && ln -s "$B/elsewhere" "$HOME/.local/state/sbx"
sx -v -- true
sx -v --no-shim -- sh -c 'echo END'
if has END out && [ -z "$(ls -A "$B/elsewhere")" ]; then ok
else bad "rc=$RC elsewhere: $(ls -A "$B/elsewhere" | tr '\n' ' ')"; fi

echo "# $(id -un) (walkrec): $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
