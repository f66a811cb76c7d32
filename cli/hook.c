/* cli/hook.c: `sbxctl hook claude`: a Claude Code PreToolUse
 * hook. Claude Code runs it before each tool call with the call as JSON on
 * stdin; a refusal is answered on stdout with
 *   {"hookSpecificOutput":{"hookEventName":"PreToolUse",
 *     "permissionDecision":"deny","permissionDecisionReason":"..."}}
 * and anything else with no output at all, so Claude Code's own permission
 * rules and prompts still apply (this hook never says "allow").
 *
 * The payload is hostile input: whoever can shape a tool call shapes it.
 * It is read with a bound, parsed by jansson, and anything unexpected (not
 * JSON, the wrong types, a path that cannot be judged) is a refusal with
 * the reason, never a crash and never a silent pass. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/config.h"
#include "cli/machine.h"
#include "cli/sbxctl.h"
#include "preload/preload.h"

static const char hook_usage[] =
"Usage: sbxctl hook claude [-c FILE]\n"
"A Claude Code PreToolUse hook: reads the tool call as JSON on stdin and, when\n"
"the sandbox's policy refuses it, answers with a deny decision on stdout.\n"
"  - Bash with dangerouslyDisableSandbox: refused (the sandbox is not optional)\n"
"  - Read, Glob, Grep (file_path, path): judged as reads; a Glob or Grep also\n"
"    by the tree it searches (refused when that holds what deny_read hides)\n"
"  - Write, Edit, MultiEdit, NotebookEdit (file_path, notebook_path): as writes\n"
"Paths are judged after `~`, the hook's cwd, `..` and symlinks are resolved, as\n"
"written and where they lead. The policy is the one sbx-preload would use in\n"
"the hook's cwd. Other tools, and calls the policy allows, get no output:\n"
"Claude Code's own rules decide. Malformed input is refused with a reason.\n"
"Install (docs/RECIPES.md), in ~/.claude/settings.json:\n"
"  {\"hooks\": {\"PreToolUse\": [{\"matcher\": \"*\", \"hooks\": [{\"type\": \"command\",\n"
"    \"command\": \"sbxctl hook claude\"}]}]}}\n"
"  -c, --config FILE   the policy file (as sbx-preload)\n"
"Exit status: 0 (the decision is in the output); 2 usage.\n";

#define HOOK_INPUT_MAX (4 << 20) /* a Write's content can be large */

/* Inside a run (the claude profile loads this hook with --settings), the
 * run's own compiled policy: the blob the shim reads, named in SBX_SHIM
 * (machine.h: the holder's descriptor on Linux, the hand-over's file on
 * macOS), so the hook judges with the profile, the flags and the project
 * file exactly as the sandbox does. Anything in the sandbox can set
 * SBX_SHIM: a forged policy can only silence the hook's refusals, which
 * the boundary makes all the same. Read into memory (ctl_blob_read) at
 * *b, for the caller to free (ctl_blob_free) once the hook has judged.
 * NULL outside a run. */
static const struct policy *run_policy(struct ctl_blob *b)
{
	const char *spec = getenv("SBX_SHIM");

	if (!spec || strncmp(spec, "1;", 2))
		return NULL;
	int fd = machine_run_policy_fd(spec);
	if (fd < 0)
		return NULL;
	int rc = ctl_blob_read(fd, b);
	close(fd);
	return rc ? NULL : b->p;
}

static void deny(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The refusal, as Claude Code reads it; the reason is shown to the model. */
static void deny(const char *fmt, ...)
{
	char reason[8192];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	json_t *out = json_pack("{s:{s:s,s:s,s:s}}", "hookSpecificOutput",
				"hookEventName", "PreToolUse", "permissionDecision", "deny",
				"permissionDecisionReason", reason);
	char *text = out ? json_dumps(out, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
	if (text)
		printf("%s\n", text);
	else /* no memory for jansson: still a refusal Claude Code reads */
		printf("{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\","
		       "\"permissionDecision\":\"deny\",\"permissionDecisionReason\":"
		       "\"sbx: out of memory\"}}\n");
	free(text);
	json_decref(out);
}

/* stdin, whole, at most HOOK_INPUT_MAX bytes; NULL with *toolong. */
static char *read_input(size_t *len, bool *toolong)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);

	*toolong = false;
	while (buf) {
		if (n == cap) {
			if (cap >= HOOK_INPUT_MAX) {
				*toolong = true;
				free(buf);
				return NULL;
			}
			char *nb = realloc(buf, cap * 2);
			if (!nb)
				break;
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(STDIN_FILENO, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		if (r == 0) {
			*len = n;
			return buf;
		}
		n += (size_t)r;
	}
	free(buf);
	return NULL;
}

/* Which tools name files, in which field, for which operation. */
static const struct tool {
	const char *name, *field;
	enum sbx_op op;
	bool optional; /* absent: the cwd (Glob, Grep) */
} tools[] = {
	{ "Read", "file_path", SBX_OP_READ, false },
	{ "Write", "file_path", SBX_OP_WRITE, false },
	{ "Edit", "file_path", SBX_OP_WRITE, false },
	{ "MultiEdit", "file_path", SBX_OP_WRITE, false },
	{ "NotebookEdit", "notebook_path", SBX_OP_WRITE, false },
	{ "Glob", "path", SBX_OP_READ, true },
	{ "Grep", "path", SBX_OP_READ, true },
};

/* A path as a tool may meet it: `lex` with `..` folded on the names (as
 * Node's path.resolve folds it before the kernel sees the result) and
 * `raw`, unfolded (as the kernel, ripgrep or a shell meet it: `..` after a
 * link goes to the parent of the link's target). */
struct place {
	char lex[PATH_MAX];
	char raw[PATH_MAX * 2];
};

struct hook {
	const struct policy *p;
	const char *home;
	struct place cwd;
};

/* `path` (absolute, or relative to `base`) as a place; -ENAMETOOLONG. */
static int place_at(const struct place *base, const char *path, struct place *out)
{
	if (path_join(base->lex, path, out->lex, sizeof(out->lex)))
		return -ENAMETOOLONG;
	if ((size_t)snprintf(out->raw, sizeof(out->raw), "%s%s%s", path[0] == '/' ? "" : base->raw,
			     path[0] == '/' ? "" : "/", path) >= sizeof(out->raw))
		return -ENAMETOOLONG;
	return 0;
}

/* Every absolute, normal path a place may turn out to be: as written,
 * where its links lead, and where its links lead with `..` taken after
 * them. */
#define NCAND 3
static void candidates(const struct place *pl, char c[NCAND][PATH_MAX])
{
	snprintf(c[0], PATH_MAX, "%s", pl->lex);
	sbx_path_resolve(pl->lex, c[1], PATH_MAX);
	sbx_path_resolve(pl->raw, c[2], PATH_MAX);
}

/* The policy's decision on a place (each candidate); 0 allowed, 1 refused
 * (said). */
static int verdict(const struct hook *h, const char *tool, enum sbx_op op,
		   const struct place *pl)
{
	char c[NCAND][PATH_MAX], tilde[PATH_MAX], shown[PATH_MAX], rshown[PATH_MAX];
	const struct sbx_rule *why = NULL;
	size_t i;

	candidates(pl, c);
	for (i = 0; i < NCAND; i++)
		if (policy_check_path(h->p, op, c[i], &why) != SBX_ALLOW)
			break;
	if (i == NCAND)
		return 0;
	policy_tildify(h->p, c[0], tilde, sizeof(tilde));
	ctl_printable(tilde, shown, sizeof(shown));
	policy_tildify(h->p, c[i], tilde, sizeof(tilde));
	ctl_printable(tilde, rshown, sizeof(rshown));
	char lead[PATH_MAX + 32] = "";
	if (strcmp(shown, rshown))
		snprintf(lead, sizeof(lead), " (it leads to %s)", rshown);
	if (why)
		deny("sbx: the sandbox denies %s %s%s: `%s = %s` (%s). This %s call would "
		     "fail inside the sandbox too; do not work around it, ask the user to "
		     "change the policy if it is needed", op == SBX_OP_READ ? "reading" : "writing",
		     shown, lead, why->kind == SBX_RULE_MANDATORY ? "deny_write" :
		     sbx_rule_key(why->kind), why->value, why->source, tool);
	else
		deny("sbx: the sandbox denies writing %s%s: it is outside every writable "
		     "area (the workspace is %s). This %s call would fail inside the sandbox "
		     "too; ask the user to change the policy if it is needed", shown, lead,
		     policy_workspace(h->p), tool);
	return 1;
}

/* The decision on one path a tool names (its place in *out); 0 allowed,
 * 1 refused (said). */
static int judge(const struct hook *h, const char *tool, const char *field, enum sbx_op op,
		 const struct place *base, const char *path, struct place *out)
{
	char tilde[PATH_MAX], pshown[PATH_MAX];

	ctl_printable(path, pshown, sizeof(pshown));
	if (strlen(path) != strcspn(path, "\n\r") || strlen(path) >= PATH_MAX) {
		deny("sbx: %s.%s `%s` is not a path sbx can judge (a newline, or too long)",
		     tool, field, pshown);
		return 1;
	}
	if (path[0] == '~' && (path[1] == '/' || !path[1])) {
		if ((size_t)snprintf(tilde, sizeof(tilde), "%s%s", h->home, path + 1) >= sizeof(tilde)) {
			deny("sbx: %s.%s is too long to judge", tool, field);
			return 1;
		}
		path = tilde;
	}
	if (place_at(base, path, out)) {
		deny("sbx: %s.%s `%s` is too long to judge", tool, field, pshown);
		return 1;
	}
	/* as written (`.env` by name), then where its links lead (a link in
	 * the workspace to ~/.ssh): either refused is a refusal */
	return verdict(h, tool, op, out);
}

/* Could a search of the tree at `root` (absolute, normal) reach into what
 * `r`, a deny_read rule, hides? A path rule: when root holds its path (as
 * written or where its links lead). A glob: when root and the glob's
 * literal leading directory are on one line (either holds the other). A
 * name matched at any depth: always, since any directory may hold one. The
 * tree itself is not walked: a search is judged by where it starts. */
static bool reaches(const struct sbx_rule *r, const char *root)
{
	char lead[PATH_MAX], real[PATH_MAX];

	switch (r->pat) {
	case SBX_PAT_PREFIX:
		sbx_path_resolve(r->pattern, real, sizeof(real));
		return sbx_path_under(r->pattern, root) || sbx_path_under(real, root);
	case SBX_PAT_GLOB: {
		size_t n = r->prefix_len < sizeof(lead) ? r->prefix_len : sizeof(lead) - 1;
		memcpy(lead, r->pattern, n);
		lead[n] = '\0';
		char *slash = strrchr(lead, '/');
		if (slash)
			slash[slash == lead ? 1 : 0] = '\0';
		else
			snprintf(lead, sizeof(lead), "/");
		return sbx_path_under(lead, root) || sbx_path_under(root, lead);
	}
	case SBX_PAT_ANYWHERE:
		return true;
	}
	return true;
}

/* A Grep or Glob searches a tree, not a file: refused when the tree may
 * hold something a deny_read hides (reaches()), wherever the place turns
 * out to be. A file (Grep can search one) is no tree: verdict() has
 * decided it. */
static int judge_tree(const struct hook *h, const char *tool, const struct place *root)
{
	char c[NCAND][PATH_MAX], shown[PATH_MAX], tilde[PATH_MAX];
	const struct sbx_rule *const *rules;
	bool file = true;
	struct stat st;
	size_t n;

	candidates(root, c);
	for (size_t k = 0; k < NCAND; k++)
		file &= stat(c[k], &st) == 0 && !S_ISDIR(st.st_mode);
	if (file)
		return 0;
	rules = policy_rules(h->p, SBX_RULE_DENY_READ, &n);
	for (size_t i = 0; i < n; i++) {
		const struct sbx_rule *r = rules[i];
		bool hit = false;
		for (size_t k = 0; k < NCAND; k++)
			hit |= reaches(r, c[k]);
		if (!hit)
			continue;
		policy_tildify(h->p, c[0], tilde, sizeof(tilde));
		ctl_printable(tilde, shown, sizeof(shown));
		if (r->pat == SBX_PAT_ANYWHERE)
			deny("sbx: the sandbox denies reading what `deny_read = %s` (%s) names, at "
			     "any depth, so a %s of %s may reach one. This %s call would fail "
			     "inside the sandbox too; Read the files you need by name, or ask the "
			     "user to change the policy if it is needed", r->value, r->source, tool,
			     shown, tool);
		else
			deny("sbx: the sandbox denies reading %s: `deny_read = %s` (%s), and a %s "
			     "of %s would search it. This %s call would fail inside the sandbox "
			     "too; search a directory that does not hold it, or ask the user to "
			     "change the policy if it is needed", r->value, r->value, r->source,
			     tool, shown, tool);
		return 1;
	}
	return 0;
}

/* Where a Glob looks: the directory of its pattern's literal lead (the
 * components before the first wildcard or escape) under `base`; an
 * absolute pattern, `~` or `..` take it elsewhere. Judged as a read, then
 * as a tree. */
static int judge_glob(const struct hook *h, const struct place *base, const char *pattern)
{
	char lead[PATH_MAX];
	size_t cut = strcspn(pattern, "*?[{\\");
	struct place at;

	if (strlen(pattern) != strcspn(pattern, "\n\r")) {
		deny("sbx: Glob.pattern holds a newline: not a pattern sbx can judge");
		return 1;
	}
	/* `..` after a wildcard climbs out of wherever the wildcard went
	 * (`**` then `/../../x`): no literal lead says where that is */
	for (const char *c = pattern + cut; *c; c = *c ? c + 1 : c) {
		c = strstr(c, "..");
		if (!c)
			break;
		if ((c == pattern || c[-1] == '/') && (c[2] == '/' || !c[2])) {
			deny("sbx: Glob.pattern climbs with `..` after a wildcard, so where it "
			     "searches cannot be judged; name the directory in path instead");
			return 1;
		}
	}
	if (cut >= sizeof(lead))
		cut = sizeof(lead) - 1;
	memcpy(lead, pattern, cut);
	lead[cut] = '\0';
	if (pattern[cut]) { /* up to the last `/` before the first wildcard */
		char *slash = strrchr(lead, '/');
		if (slash)
			slash[slash == lead ? 1 : 0] = '\0';
		else
			lead[0] = '\0';
	}
	if (!lead[0])
		snprintf(lead, sizeof(lead), ".");
	return judge(h, "Glob", "pattern", SBX_OP_READ, base, lead, &at) ||
	       judge_tree(h, "Glob", &at);
}

static int decide(const struct hook *h, const char *tool, json_t *input)
{
	if (!strcmp(tool, "Bash")) {
		json_t *d = json_object_get(input, "dangerouslyDisableSandbox");
		/* anything but an absent, null or false flag asks for it */
		if (d && !json_is_false(d) && !json_is_null(d)) {
			deny("sbx: this command asked to run outside the sandbox "
			     "(dangerouslyDisableSandbox). sbx keeps every command sandboxed; run "
			     "it without that flag, or ask the user to run it themselves");
			return 1;
		}
		return 0;
	}
	for (size_t i = 0; i < sizeof(tools) / sizeof(*tools); i++) {
		if (strcmp(tool, tools[i].name))
			continue;
		json_t *f = json_object_get(input, tools[i].field);
		const char *path;
		if (!f || json_is_null(f) || (tools[i].optional && json_is_string(f) &&
					      !json_string_length(f))) {
			if (!tools[i].optional) {
				deny("sbx: %s has no %s to judge", tool, tools[i].field);
				return 1;
			}
			path = ".";
		} else if (!json_is_string(f)) {
			deny("sbx: %s.%s is not a string", tool, tools[i].field);
			return 1;
		} else if (strlen(json_string_value(f)) != json_string_length(f) ||
			   !json_string_length(f)) {
			deny("sbx: %s.%s is empty or holds a NUL byte", tool, tools[i].field);
			return 1;
		} else {
			path = json_string_value(f);
		}
		struct place at;
		if (judge(h, tool, tools[i].field, tools[i].op, &h->cwd, path, &at))
			return 1;
		if (!tools[i].optional)
			return 0;
		/* Glob, Grep: a search of a tree */
		if (!strcmp(tool, "Grep"))
			return judge_tree(h, tool, &at);
		json_t *pat = json_object_get(input, "pattern");
		if (!json_is_string(pat) || strlen(json_string_value(pat)) != json_string_length(pat)) {
			deny("sbx: Glob.pattern is missing, not a string or holds a NUL byte");
			return 1;
		}
		return judge_glob(h, &at, json_string_value(pat));
	}
	return 0; /* a tool that names no file of ours */
}

int cmd_hook(int argc, char **argv)
{
	const char *config = NULL;
	struct policy *p = NULL;
	struct ctl_blob blob = { 0 }; /* a run's policy (run_policy) */
	json_error_t jerr;
	json_t *root = NULL;
	char user_file[PATH_MAX], *input;
	size_t len = 0;
	bool toolong;

	if (ctl_common_flag("hook", hook_usage, argc, argv))
		return CTL_OK;
	if (argc < 2 || strcmp(argv[1], "claude")) {
		fprintf(stderr, "sbxctl hook: which agent? `sbxctl hook claude` (see --help)\n");
		return CTL_USAGE;
	}
	for (int i = 2; i < argc; i++) {
		if ((!strcmp(argv[i], "-c") || !strcmp(argv[i], "--config")) && i + 1 < argc) {
			config = argv[++i];
		} else if (!strncmp(argv[i], "--config=", 9)) {
			config = argv[i] + 9;
		} else {
			fprintf(stderr, "sbxctl hook claude: unexpected `%s`\n", argv[i]);
			return CTL_USAGE;
		}
	}
	if (!(input = read_input(&len, &toolong))) {
		deny(toolong ? "sbx: the hook input is larger than 4 MiB; refused" :
		     "sbx: cannot read the hook input: %s", strerror(errno));
		return CTL_OK;
	}
	root = json_loadb(input, len, JSON_REJECT_DUPLICATES, &jerr);
	free(input);
	if (!root) {
		char text[512];
		ctl_printable(jerr.text, text, sizeof(text));
		deny("sbx: the hook input is not valid JSON (line %d, column %d: %s); refused",
		     jerr.line, jerr.column, text);
		return CTL_OK;
	}
	json_t *ev = json_object_get(root, "hook_event_name");
	json_t *tool = json_object_get(root, "tool_name");
	json_t *in = json_object_get(root, "tool_input");
	json_t *cwd = json_object_get(root, "cwd");
	if (!json_is_object(root) || (ev && !json_is_string(ev))) {
		deny("sbx: the hook input is not a Claude Code hook object; refused");
		goto out;
	}
	if (ev && strcmp(json_string_value(ev), "PreToolUse"))
		goto out; /* installed for another event: not ours to judge */
	if (!json_is_string(tool) || !json_is_object(in)) {
		deny("sbx: the hook input has no tool_name string and tool_input object; refused");
		goto out;
	}
	if (!json_is_string(cwd) || json_string_value(cwd)[0] != '/' ||
	    strlen(json_string_value(cwd)) != json_string_length(cwd)) {
		deny("sbx: the hook input has no absolute cwd to judge paths from; refused");
		goto out;
	}
	char cwdn[PATH_MAX];
	if (path_join("/", json_string_value(cwd), cwdn, sizeof(cwdn))) {
		deny("sbx: the hook's cwd is too long; refused");
		goto out;
	}
	/* inside a run, the run's own policy; else the policy sbx-preload
	 * would build in that directory (a missing directory is its own
	 * error: the workspace must exist) */
	const struct policy *run = config ? NULL : run_policy(&blob);
	if (!run && ctl_policy(config, NULL, cwdn, &p, NULL, user_file, sizeof(user_file))) {
		deny("sbx: the sandbox policy does not load (run `sbxctl doctor` in %s); "
		     "refusing until it does", cwdn);
		goto out;
	}
	struct hook h = { .p = run ? run : p, .home = config_home_dir() };
	snprintf(h.cwd.lex, sizeof(h.cwd.lex), "%s", cwdn);
	snprintf(h.cwd.raw, sizeof(h.cwd.raw), "%s", cwdn);
	decide(&h, json_string_value(tool), in);
out:
	json_decref(root);
	policy_free(p);
	if (blob.p)
		ctl_blob_free(&blob);
	return CTL_OK;
}
