#!/bin/bash
# Credentials by principle (docs/POLICY.md, "Credentials", "The
# environment"): every row of the credential table (policy/credentials.c,
# read here from the source) is made on the host at its documented place in
# the test HOME with a canary, then read inside by a dynamic program (cat:
# the shim refuses it and the report names the row) and a static one
# (tests/progs/readfile.c built -static: the boundary's mask gives it
# nothing); no canary byte may come out. A row a profile lifts is readable
# under that profile only. Secret-looking variables are withheld and
# counted; a profile or --keep-env keeps its own.
set -u
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PROGS=$(mktemp -d /var/tmp/sbx-progs.XXXXXX)
trap 'rm -rf "$PROGS"' EXIT
chmod 755 "$PROGS"
built readfile.static "$PROGS/readfile-static" 2>"$PROGS/log"
prog() { [ -x "$PROGS/$1" ] || { skip "tests/progs/$1 not built: $(head -2 "$PROGS/log" 2>/dev/null)"; return 1; }; }

# The table: "PATH PROFILE QUIET" per row (PROFILE "-" when none lifts it;
# QUIET "quiet" for a history, refused without a line, logged).
python3 - "$SBX_BIN/policy/credentials.c" > "$PROGS/rows" <<'EOF'
import re, sys
src = open(sys.argv[1]).read()
body = src[src.index("sbx_credentials[] = {"):]
body = body[:body.index("\n};")]
for m in re.finditer(r'\{ "(~/[^"]+)", "[^"]+", "[^"]+", (?:NULL|"(\w+)"), (true|false) \}', body):
    print(m.group(1)[2:], m.group(2) or "-", "quiet" if m.group(3) == "true" else "loud")
EOF
NROWS=$(wc -l < "$PROGS/rows")
# every test below walks the table: one read wrong would let them all pass
if [ "$NROWS" -lt 80 ]; then
	echo "FAIL - the credential table read from policy/credentials.c has $NROWS rows (80 or more expected): the reader above no longer fits the table's shape"
	exit 1
fi

# plant FORM: every row at its place under $HOME, each with its own canary:
# FORM file (the row is a file) or dir (a directory holding `canary`).
# Fills $B/paths (what to read) and $B/canaries.
plant() {
	: > "$B/paths"; : > "$B/canaries"; : > "$B/map"
	while read -r rel _; do
		local c="CANARY-$RANDOM$RANDOM-$(printf %s "$rel" | tr -c 'a-zA-Z0-9' _)" p="$HOME/$rel"
		if [ "$1" = dir ] || [ -d "$p" ]; then
			mkdir -p "$p" && echo "$c" > "$p/canary" && echo "$p/canary" >> "$B/paths"
		else
			mkdir -p "$(dirname "$p")" && echo "$c" > "$p" && echo "$p" >> "$B/paths"
		fi
		echo "$c" >> "$B/canaries"
		echo "$rel $c" >> "$B/map"
	done < "$PROGS/rows"
}
# leaked FILE: the canaries found in FILE (none: empty)
leaked() { grep -oFf "$B/canaries" "$B/$1" | sort -u; }
# reported: every row's refusal named, by that row: on the terminal, or
# for a quiet row (a history) in the audit log only
reported() {
	local missing=0
	while read -r rel _ quiet; do
		if [ "$quiet" = quiet ]; then
			grep -qF "\"$HOME/$rel" "$HOME/.local/state/sbx/audit.jsonl" 2>/dev/null &&
			   ! grep -qF "~/$rel\`" "$B/err" || {
				missing=$((missing + 1)); echo "quiet ~/$rel: shown, or not logged" >> "$B/why"; }
		else
			grep -qF "by \`deny_read = ~/$rel\` (built-in default)" "$B/err" || {
				missing=$((missing + 1)); echo "no report for ~/$rel" >> "$B/why"; }
		fi
	done < "$PROGS/rows"
	[ $missing -eq 0 ]
}

for form in file dir; do
	t "credential_rows_as_${form}s_unreadable_by_cat_shim_reports_each_row"
	plant $form
	# the report lines are the terminal's: all of them, live
	mapfile -t paths < "$B/paths"
	sx -- cat "${paths[@]}"
	: > "$B/why"
	if [ -z "$(leaked out)" ] && [ -z "$(leaked err)" ] && reported &&
	   [ "$(grep -c 'Permission denied' "$B/err")" -eq "$NROWS" ]; then ok
	else bad "leaked: $(leaked out | head -3) $(head -3 "$B/why")"; fi

	t "credential_rows_as_${form}s_unreadable_by_static_binary_boundary_mask"
	if prog readfile-static; then
		plant $form
		mapfile -t paths < "$B/paths"
		sx -q -- "$PROGS/readfile-static" "${paths[@]}"
		# a static program is past the shim: the mask answers, no canary
		# and no report (it never asks)
		if [ -z "$(leaked out)" ] && [ "$(grep -c '^OK \|^ERR ' "$B/out")" -eq "$NROWS" ] &&
		   ! has 'denied read' err; then ok
		else bad "leaked: $(leaked out | head -3) rc=$RC $(head -c 200 "$B/out")"; fi
	fi
done

t credential_rows_lifted_by_their_own_profile_only
plant file
fails=""
for prof in claude codex gemini mcp; do
	mapfile -t paths < "$B/paths"
	sx -q --profile "$prof" -- cat "${paths[@]}"
	while read -r rel owner _; do
		c=$(awk -v r="$rel" '$1 == r { print $2 }' "$B/map")
		if [ "$owner" = "$prof" ]; then
			hasf "$c" out || fails="$fails $prof:~/$rel-not-lifted"
		else
			hasf "$c" out && fails="$fails $prof:~/$rel-leaked"
		fi
	done < "$PROGS/rows"
done
lifted=$(awk '$2 != "-"' "$PROGS/rows" | wc -l)
if [ -z "$fails" ] && [ "$lifted" -ge 3 ]; then ok; else bad "$fails"; fi

t credential_rows_under_xdg_config_home_masked_there_too
if prog readfile-static; then
	X=$B/xdg
	: > "$B/paths"; : > "$B/canaries"
	while read -r rel _; do
		case $rel in .config/*) ;; *) continue ;; esac
		c="XDG-CANARY-$RANDOM$RANDOM"
		mkdir -p "$(dirname "$X/${rel#.config/}")"
		echo "$c" > "$X/${rel#.config/}"
		echo "$X/${rel#.config/}" >> "$B/paths"; echo "$c" >> "$B/canaries"
	done < "$PROGS/rows"
	mapfile -t paths < "$B/paths"
	XDG_CONFIG_HOME=$X sx -- sh -c 'cat "$@"; "$0" "$@"' "$PROGS/readfile-static" "${paths[@]}"
	if [ "${#paths[@]}" -ge 5 ] && [ -z "$(leaked out)" ] && [ -z "$(leaked err)" ] &&
	   [ "$(grep -c 'Permission denied' "$B/err")" -eq "${#paths[@]}" ]; then ok
	else bad "${#paths[@]} rows, leaked: $(leaked out | head -3)"; fi
fi

# A tool's own variable that moves its credentials (CARGO_HOME, DOCKER_CONFIG,
# KUBECONFIG's list): the row follows it, read from policy/credentials.c
python3 - "$SBX_BIN/policy/credentials.c" > "$PROGS/envrows" <<'EOF'
import re, sys
src = open(sys.argv[1]).read()
body = src[src.index("sbx_credential_envs[] = {"):]
body = body[:body.index("\n};")]
for m in re.finditer(r'\{ "(\w+)", "([^"]*)", (true|false),', body):
    print(m.group(1), m.group(2) or "-", m.group(3))
EOF
t credential_rows_moved_by_their_tools_variable_masked_there
if prog readfile-static; then
	R=$B/moved
	: > "$B/paths"; : > "$B/canaries"; vars=()
	while read -r var file list; do
		c="MOVED-CANARY-$RANDOM$RANDOM-$var"
		d=$R/$var
		if [ "$file" = - ]; then p=$d; else p=$d/$file; fi
		mkdir -p "$(dirname "$p")" && echo "$c" > "$p"
		echo "$p" >> "$B/paths"; echo "$c" >> "$B/canaries"
		# a list names a missing file first, then the real one
		if [ "$list" = true ]; then v="$R/none:$p"; elif [ "$file" = - ]; then v=$p; else v=$d; fi
		vars+=("$var=$v")
	done < "$PROGS/envrows"
	mapfile -t paths < "$B/paths"
	env "${vars[@]}" timeout 60 "$SBX" -- sh -c 'cat "$@"; "$0" "$@"' "$PROGS/readfile-static" "${paths[@]}" \
		>"$B/out" 2>"$B/err"
	if [ "${#paths[@]}" -ge 15 ] && [ -z "$(leaked out)" ] && [ -z "$(leaked err)" ] &&
	   [ "$(grep -c 'Permission denied' "$B/err")" -eq "${#paths[@]}" ]; then ok
	else bad "${#paths[@]} rows, leaked: $(leaked out | head -3)"; fi
fi

# ---- the environment

# envrun ARGS: sbx-preload ARGS with only the variables given here (and the
# suite's own PATH, HOME, LANG), so the count is exactly ours
SECRETS="GITHUB_TOKEN NPM_TOKEN ANTHROPIC_API_KEY OPENAI_API_KEY GEMINI_API_KEY AWS_SECRET_ACCESS_KEY PGPASSWORD GOOGLE_APPLICATION_CREDENTIALS CI_JOB_JWT MYSQL_PWD"
envrun() {
	local a=()
	for n in $SECRETS; do a+=("$n=VAL-$n-$CANARY_ENV"); done
	[ -n "${SBX_PROFILE_DIR:-}" ] && a+=("SBX_PROFILE_DIR=$SBX_PROFILE_DIR")
	[ -n "${SBX_NESTED:-}" ] && a+=("SBX_NESTED=$SBX_NESTED")
	timeout 60 env -i PATH="$PATH" HOME="$HOME" LANG=C.UTF-8 "${a[@]}" \
		AWS_ACCESS_KEY_ID=AKIDPUBLIC TOKENIZERS_PARALLELISM=false "$SBX" "$@" >"$B/out" 2>"$B/err"
	RC=$?
}
# what of the secret values came out (one line per variable)
env_leaked() { grep -o "VAL-[A-Z_]*-$CANARY_ENV" "$B/out" | sort -u; }

# canary_env: a value no program has, always 11 characters: the shapes
# below take it as the end of a token whose length they judge (ghp_ + 30
# or more), so a shorter one ("E$RANDOM$RANDOM" can be 3 characters) made
# MY_CFG look like no token at all, now and then
canary_env() { printf 'E%05d%05d' "$RANDOM" "$RANDOM"; }

t secret_variables_withheld_from_env_and_proc_counted_on_the_start_line
CANARY_ENV=$(canary_env)
# env, and every process's environment inside (sbx-init's included)
envrun -- sh -c 'env; cat /proc/[0-9]*/environ 2>/dev/null | tr "\0" "\n"'
if [ -z "$(env_leaked)" ] && has '^AWS_ACCESS_KEY_ID=AKIDPUBLIC$' out &&
   has '^TOKENIZERS_PARALLELISM=false$' out &&
   hasf ', 10 secret variables withheld' err && ! hasf "$CANARY_ENV" err; then ok
else bad "leaked: $(env_leaked | tr '\n' ' ') $(grep 'sandbox on' "$B/err")"; fi

t verbose_names_the_withheld_variables_never_their_values
CANARY_ENV=$(canary_env)
envrun -v -- true
line=$(grep -F "withheld from COMMAND's environment, their names look secret: " "$B/err")
missing=""
for n in $SECRETS; do [[ $line == *" $n"[,\ ]* ]] || missing="$missing $n"; done
if [ -n "$line" ] && [ -z "$missing" ] && [[ $line != *AWS_ACCESS_KEY_ID* ]] &&
   ! hasf "$CANARY_ENV" err; then ok
else bad "missing:$missing line: $line"; fi

t claude_profile_keeps_anthropic_api_key_only
CANARY_ENV=$(canary_env)
envrun --profile claude -- env
if [ "$(env_leaked)" = "VAL-ANTHROPIC_API_KEY-$CANARY_ENV" ] && hasf ', 9 secret variables withheld' err; then ok
else bad "passed: $(env_leaked | tr '\n' ' ')"; fi

t codex_and_gemini_profiles_keep_their_own_keys_only
CANARY_ENV=$(canary_env)
envrun --profile codex -- env; codex=$(env_leaked | tr '\n' ' ')
envrun --profile gemini -- env; gemini=$(env_leaked | tr '\n' ' ')
if [ "$codex" = "VAL-OPENAI_API_KEY-$CANARY_ENV " ] && [ "$gemini" = "VAL-GEMINI_API_KEY-$CANARY_ENV " ]; then ok
else bad "codex: $codex gemini: $gemini"; fi

t keep_env_flag_keeps_one_and_deny_env_still_wins
CANARY_ENV=$(canary_env)
printf '[env]\ndeny_env = NPM_TOKEN\n' > "$B/deny.ini"
envrun -c "$B/deny.ini" --keep-env GITHUB_TOKEN --keep-env NPM_TOKEN -- env
if [ "$(env_leaked)" = "VAL-GITHUB_TOKEN-$CANARY_ENV" ] && hasf ', 9 secret variables withheld' err; then ok
else bad "passed: $(env_leaked | tr '\n' ' ') $(grep 'sandbox on' "$B/err")"; fi

t keep_env_in_a_project_file_is_refused_nothing_runs
printf '[env]\nkeep_env = GITHUB_TOKEN\n' > "$W/sandbox.ini"
CANARY_ENV=$(canary_env)
envrun -- sh -c "env > '$W/ran'"
if [ $RC -eq 125 ] && [ ! -e "$W/ran" ] && hasf 'sandbox.ini:2: `keep_env` would widen the policy' err; then ok
else bad "rc=$RC"; fi

t nested_mode_withholds_the_same_variables
CANARY_ENV=$(canary_env)
envrun -- true; rcfull=$RC
SBX_NESTED=1 envrun -- sh -c 'env; cat /proc/self/environ | tr "\0" "\n"'
if [ $RC -eq 125 ] && has 'Landlock' err; then skip "no Landlock here: $(head -c 150 "$B/err")"
elif [ $RC -eq 0 ] && [ $rcfull -eq 0 ] && [ -z "$(env_leaked)" ] && hasf 'nested mode' err &&
     hasf ', 10 secret variables withheld' err; then ok
else bad "rc=$RC leaked: $(env_leaked | tr '\n' ' ')"; fi

t sbxctl_status_names_the_withheld_variables_not_their_values
CANARY_ENV=$(canary_env)
printf '[env]\ndeny_env = MY_VAR\nkeep_env = NPM_TOKEN\n' > "$B/st.ini"
timeout 60 env -i PATH="$PATH" HOME="$HOME" GITHUB_TOKEN="VAL-GITHUB_TOKEN-$CANARY_ENV" \
	NPM_TOKEN="VAL-NPM_TOKEN-$CANARY_ENV" MY_VAR="VAL-MY_VAR-$CANARY_ENV" PLAIN=1 \
	"$SBX_BIN/sbxctl" status --no-machine -c "$B/st.ini" > "$B/out" 2> "$B/err"
if grep -qE '^  \(withheld here\) +GITHUB_TOKEN +its name looks secret' "$B/out" &&
   grep -qE '^ +MY_VAR +deny_env = MY_VAR \(.*st.ini:2\)' "$B/out" &&
   grep -qE '^  keep_env +NPM_TOKEN +.*st.ini:3' "$B/out" &&
   ! grep -qE '^ .*(PLAIN|  NPM_TOKEN +its name)' "$B/out" && ! hasf "$CANARY_ENV" out; then ok
else bad "$(sed -n '/^\[env\]/,$p' "$B/out" | head -8)"; fi

# ---- values shaped like credentials, under names that look harmless
# (policy/credentials.c, sbx_secret_shapes): each value carries the canary
# inside its shape, so a leak is seen in `env` and /proc
valrun() {
	local aws
	aws="AKIA$(printf '%s' "${CANARY_ENV}QQQQQQQQQQQQQQQQ" | cut -c1-16)"
	timeout 60 env -i PATH="$PATH" HOME="$HOME" LANG=C.UTF-8 \
		DATABASE_URL="postgres://app:$CANARY_ENV@db.internal:5432/prod" \
		REDIS_URL="redis://:$CANARY_ENV@cache:6379/0" \
		MY_CFG="ghp_Zx9RrT1yA7qLmN2pW4vB8c$CANARY_ENV" \
		X="sk-ant-api03-Zx9RrT1yA7qLmN2pW4vB8cD0eF6gH3j$CANARY_ENV" \
		AWS_X="$aws" \
		SLACK_HOOK_CFG="xoxb-1234567890-$CANARY_ENV" \
		SESSION_CFG="eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhb$CANARY_ENV" \
		DEPLOY_PEM="$(printf -- '-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n-----END OPENSSH PRIVATE KEY-----' "$CANARY_ENV")" \
		MIRROR_URL="https://mirror.example/simple" PLAIN_URL="https://app@db.internal/x" \
		"$@" >"$B/out" 2>"$B/err"
	RC=$?
}
VALUED="DATABASE_URL REDIS_URL MY_CFG X AWS_X SLACK_HOOK_CFG SESSION_CFG DEPLOY_PEM"

t secret_values_withheld_whatever_the_name_never_printed
CANARY_ENV=$(canary_env)
valrun "$SBX" -v -- sh -c 'env; cat /proc/[0-9]*/environ 2>/dev/null | tr "\0" "\n"'
line=$(grep -F "their values look like credentials: " "$B/err")
missing=""
for n in $VALUED; do [[ $line == *" $n ("* ]] || missing="$missing $n"; done
if [ "$RC" = 0 ] && ! hasf "$CANARY_ENV" out && ! hasf "$CANARY_ENV" err &&
   has '^MIRROR_URL=https://mirror.example/simple$' out && has '^PLAIN_URL=https://app@db.internal/x$' out &&
   hasf ', 8 secret variables withheld' err && [ -z "$missing" ] &&
   [[ $line == *"DATABASE_URL (a URL with a password)"* ]] &&
   [[ $line == *"MY_CFG (a GitHub personal access token)"* ]] &&
   [[ $line == *"AWS_X (an AWS access key id)"* ]] && [[ $line == *"DEPLOY_PEM (a PEM private key)"* ]]; then ok
else bad "rc=$RC leaked: $(grep -c "$CANARY_ENV" "$B/out") missing:$missing $(grep 'sandbox on' "$B/err")"; fi

t secret_value_kept_by_keep_env_and_the_rest_still_withheld
CANARY_ENV=$(canary_env)
valrun "$SBX" --keep-env DATABASE_URL -- env
if [ "$RC" = 0 ] && has "^DATABASE_URL=postgres://app:$CANARY_ENV@db.internal:5432/prod\$" out &&
   [ "$(grep -c "$CANARY_ENV" "$B/out")" = 1 ] && hasf ', 7 secret variables withheld' err; then ok
else bad "rc=$RC $(grep -c "$CANARY_ENV" "$B/out") lines with the canary"; fi

t sbxctl_status_names_a_secret_value_by_its_shape_not_its_value
CANARY_ENV=$(canary_env)
valrun "$SBX_BIN/sbxctl" status --no-machine
if grep -qE '^ .*DATABASE_URL +its value looks like a URL with a password \(--keep-env DATABASE_URL' "$B/out" &&
   grep -qE '^ +MY_CFG +its value looks like a GitHub personal access token' "$B/out" &&
   ! grep -qE '^ +(MIRROR_URL|PLAIN_URL) ' "$B/out" && ! hasf "$CANARY_ENV" out; then ok
else bad "$(sed -n '/withheld here/,+9p' "$B/out" | head -10)"; fi

# ---- hard links: a second name is the same file

# A credential read through a hard link. Made during the run: a link (or a
# rename) of a deny_read file the mounts do not hide (`*.pem` in a
# node_modules, which the walk never enters) gave a program the key under
# a new name (before 2026-11-29 the notify layer judged a link's or a
# rename's source only as a write); a masked row (~/.aws/credentials) cannot be linked (a mount, or
# in the nested mode a Landlock hole: EXDEV/EACCES). Made before the run:
# `notes/creds.bak`, a second name of ~/.aws/credentials in the
# workspace, read the key in both modes; now the walk finds it by
# identity and hides it, and sbx says that a name outside the writable
# roots ($B/elsewhere) still reads it. No canary in the output, the lines
# on stderr. $1: the mode's ini.
hard_links() {
	local aws="AWSCANARY-$RANDOM$RANDOM" pem="PEMCANARY-$RANDOM$RANDOM"
	mkdir -p "$HOME/.aws" notes sub node_modules/pkg "$B/elsewhere"
	echo "$aws" > "$HOME/.aws/credentials"
	ln "$HOME/.aws/credentials" notes/creds.bak && ln "$HOME/.aws/credentials" "$B/elsewhere/c.bak"
	echo "$pem" > node_modules/pkg/k.pem
	printf '%s\n' "$1" > "$B/mode.ini"
	sx -c "$B/mode.ini" --deny-read '*.pem' -- sh -c "
		cat notes/creds.bak; $S link node_modules/pkg/k.pem sub/x1; $S link $HOME/.aws/credentials sub/x2
		ln $HOME/.aws/credentials sub/x3 && cat sub/x3
		python3 -c 'import os; os.rename(\"node_modules/pkg/k.pem\", \"sub/x4\")' 2>/dev/null
		cat sub/x4 2>/dev/null; echo END"
	CANARIES="$aws"
	[ "$2" = pem ] && CANARIES="$aws|$pem"
}
hard_links_held() {
	has '^END$' out && ! grep -Eq "$CANARIES" "$B/out" "$B/err" && [ ! -e sub/x2 ] && [ ! -e sub/x3 ] &&
	   hasf 'notes/creds.bak is another name (a hard link) of ~/.aws/credentials, which the policy denies reading: hidden too' err &&
	   hasf '~/.aws/credentials, which the policy denies reading, has 3 names (hard links), not all in the writable roots' err &&
	   hasf 'denied read of ~/.aws/credentials by `deny_read = ~/.aws`' err
}

t hard_link_to_a_credential_refused_and_earlier_links_hidden
S=""
built nestedprobe.static "$PROGS/nestedprobe" 2>/dev/null && S="$PROGS/nestedprobe"
if [ -n "$S" ]; then
	hard_links "" pem
	if hard_links_held && [ ! -e sub/x1 ] && grep -qx 'link: EACCES' "$B/out" &&
	   [ ! -e sub/x4 ] && [ -e node_modules/pkg/k.pem ] &&
	   hasf '/node_modules/pkg/k.pem by `deny_read = *.pem` (--deny-read) — pid' err; then ok
	else bad "out=$(tr '\n' ' ' < "$B/out" | head -c 300)"; fi
else skip "no static libc"; fi

# The nested mode: the same, Landlock's holes and EXDEV; a `*.pem` the walk
# does not find reads by its own name there as under bubblewrap without
# the notify layer (docs/SECURITY.md), so only the earlier link and the
# masked row are asserted.
t nested_hard_link_to_a_credential_refused_and_earlier_links_hidden
if [ -n "$S" ]; then
	hard_links "$(printf '[sandbox]\nnested = true')" aws
	if hard_links_held && grep -Eqx 'link: (EXDEV|EACCES)' "$B/out"; then ok
	else bad "out=$(tr '\n' ' ' < "$B/out" | head -c 300)"; fi
else skip "no static libc"; fi

# A read-denied file of the workspace found by the walk after a directory
# that holds another name of it (`a/notes.txt`, a hard link of `z/y/.env`:
# a/ is read first, breadth first, while no such file was known yet): the
# name read the secret, and sbx said its names were "not all in the
# writable roots" (before 2026-11-29). Now the walk's directories are
# looked at again for its names: hidden, said, no canary, with the shim
# and without.
t hard_link_walked_before_the_denied_file_it_names_is_hidden
mkdir -p z/y a && echo "ENV-$SECRET" > z/y/.env && ln z/y/.env a/notes.txt
sx --no-shim --deny-read .env -- sh -c 'cat a/notes.txt; echo END'
cp "$B/out" "$B/out1"; cp "$B/err" "$B/err1"
sx --deny-read .env -- sh -c 'cat a/notes.txt; echo END'
if grep -qx END "$B/out1" && has '^END$' out && ! grep -q "$SECRET" "$B/out1" "$B/out" &&
   hasf 'a/notes.txt is another name (a hard link) of' err1 &&
   ! hasf 'not all in the writable roots' err1 && [ "$(cat a/notes.txt)" = "ENV-$SECRET" ]; then ok
else bad "out1=$(tr '\n' ' ' < "$B/out1" | head -c 200) err1=$(head -c 300 "$B/err1")"; fi

# Other names made before the run where the look did not reach: of a file
# deeper than the top of a masked directory (`~/.aws/sso/cache/tok.json`,
# linked as `deep/a/b/c/notes.txt`), and in what the walk does not enter
# (`node_modules`, a `.git`). Before 2026-11-29 each read its key, without
# and with the nested mode, and sbx said the names lay outside the
# writable roots. Now every name is hidden and said, and the files stay.
deep_links() {
	local tok="TOKCANARY-$RANDOM$RANDOM" aws="AWSCANARY-$RANDOM$RANDOM"
	mkdir -p "$HOME/.aws/sso/cache" deep/a/b/c node_modules/pkg/lib .git/info
	echo "$tok" > "$HOME/.aws/sso/cache/tok.json" && echo "$aws" > "$HOME/.aws/credentials"
	ln "$HOME/.aws/sso/cache/tok.json" deep/a/b/c/notes.txt
	ln "$HOME/.aws/credentials" node_modules/pkg/lib/n.txt && ln "$HOME/.aws/credentials" .git/info/n.txt
	# a large sibling (gcloud's logs) does not take the look from the key
	mkdir -p "$HOME/.config/gcloud/logs" "$HOME/.config/gcloud/legacy_credentials/me"
	for i in $(seq 700); do : > "$HOME/.config/gcloud/logs/$i.log"; done
	echo "$tok" > "$HOME/.config/gcloud/legacy_credentials/me/adc.json"
	ln "$HOME/.config/gcloud/legacy_credentials/me/adc.json" deep/adc.json
	printf '%s\n' "$1" > "$B/mode.ini"
	sx -c "$B/mode.ini" --no-shim -- sh -c "cat deep/a/b/c/notes.txt node_modules/pkg/lib/n.txt deep/adc.json
		cat .git/info/n.txt; ${S:+$S read deep/a/b/c/notes.txt; $S read node_modules/pkg/lib/n.txt;} echo END"
	if has '^END$' out && ! grep -Eq "$tok|$aws" "$B/out" "$B/err" &&
	   hasf 'deep/a/b/c/notes.txt is another name (a hard link) of ~/.aws/sso/cache/tok.json' err &&
	   hasf 'node_modules/pkg/lib/n.txt is another name (a hard link) of ~/.aws/credentials' err &&
	   hasf '.git/info/n.txt is another name (a hard link) of ~/.aws/credentials' err &&
	   hasf 'deep/adc.json is another name (a hard link) of ~/.config/gcloud/legacy_credentials/me/adc.json' err &&
	   ! hasf 'not all in the writable roots' err &&
	   [ "$(cat deep/a/b/c/notes.txt node_modules/pkg/lib/n.txt)" = "$tok
$aws" ]; then ok
	else bad "out=$(tr '\n' ' ' < "$B/out" | head -c 300)"; fi
}

t hard_links_deep_in_a_masked_directory_and_where_the_walk_stops_hidden
deep_links ""

t nested_hard_links_deep_in_a_masked_directory_and_where_the_walk_stops_hidden
deep_links "$(printf '[sandbox]\nnested = true')"

# A literal deny_read's file taken from its name across runs: a directory
# on its way renamed (the mount goes along with it) left the file at a
# name no rule names, and the next run read it (before 2026-11-29 in the
# normal mode `mv config cfg` worked, and `cfg/credentials.json` gave the
# canary). Now the way is pinned as a protected path's (EBUSY); in the
# nested mode Landlock gives that way no write. The file and its name
# must be where they were on the host, and no canary in either run.
moved_way() {
	local c="LITCANARY-$RANDOM$RANDOM"
	mkdir -p config/deeper && echo "$c" > config/deeper/credentials.json
	printf '%s\n' "$1" > "$B/mode.ini"
	sx -c "$B/mode.ini" --deny-read "$W/config/deeper/credentials.json" -- sh -c \
		"mv config cfg; mv cfg/deeper cfg/d2; mv config/deeper config/d2; echo END1"
	cp "$B/out" "$B/out1"
	sx -c "$B/mode.ini" --deny-read "$W/config/deeper/credentials.json" -- sh -c \
		"cat cfg/deeper/credentials.json cfg/d2/credentials.json config/d2/credentials.json; echo END2"
	if grep -qx END1 "$B/out1" && has '^END2$' out && ! grep -q "$c" "$B/out1" "$B/out" &&
	   [ "$(cat config/deeper/credentials.json)" = "$c" ] && [ ! -e cfg ] && [ ! -e config/d2 ]; then ok
	else bad "now: $(ls -R | tr '\n' ' ') out=$(tr '\n' ' ' < "$B/out")"; fi
}

t denied_file_not_moved_from_its_name_by_its_directory
moved_way ""

t nested_denied_file_not_moved_from_its_name_by_its_directory
moved_way "$(printf '[sandbox]\nnested = true')"

echo "# $(id -un): $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
