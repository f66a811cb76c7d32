/* cli/check.c: `sbxctl check`: would this be allowed, and which
 * rule decides, with its source (as `git check-ignore -v`). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/config.h"
#include "cli/machine.h"
#include "cli/sbxctl.h"
#include "preload/preload.h"
#include "common/wire.h"

static const char check_usage[] =
"Usage: sbxctl check [-c FILE] [-w DIR] [-q] --read|--write|--exec PATH...\n"
"       sbxctl check [-c FILE] [-w DIR] [-q] --connect HOST[:PORT]...\n"
"Would the sandbox allow it, and which rule decides, with the file and line it\n"
"comes from. A path is judged as written and where its links lead (either\n"
"denied: denied), as the shim and the boundary judge it; a relative path is\n"
"taken from the current directory. The options may be mixed; each applies to\n"
"the targets that follow it.\n"
"  -c, --config FILE   the policy file (as sbx-preload)\n"
"  -w, --workspace DIR the workspace (default: the current directory)\n"
"  -q, --quiet         no output, only the exit status\n"
"Exit status: 0 every target allowed; 1 one or more denied; 2 usage or config error.\n";

struct check {
	const struct policy *p;
	bool quiet, color;
	char cwd[PATH_MAX];
};

static enum sbx_op op_of(enum wire_op op)
{
	return op == WIRE_READ ? SBX_OP_READ : op == WIRE_WRITE ? SBX_OP_WRITE : SBX_OP_EXEC;
}

/* The rule that allows a file operation, as `key = value<TAB>source`;
 * false when none names it (reads are allowed by default). */
static bool allowed_by(const struct policy *p, const struct wire_report *w, char *out,
		       size_t outsz)
{
	const struct sbx_rule *why = NULL;
	char v[PATH_MAX], pv[PATH_MAX];

	if (policy_check_path(p, op_of(w->op), w->target, &why) != SBX_ALLOW || !why)
		return false;
	if (why->origin == SBX_ORIGIN_ISOLATION)
		policy_tildify(p, why->pattern, v, sizeof(v));
	else
		snprintf(v, sizeof(v), "%s", why->value);
	ctl_printable(v, pv, sizeof(pv));
	snprintf(out, outsz, "%s = %s\t%s", sbx_rule_key(why->kind), pv,
		 why->origin == SBX_ORIGIN_ISOLATION ? "isolation" : why->source);
	return true;
}

/* One decision in one line, then how to allow it when a setting can. */
static void say(const struct check *c, const struct wire_report *w,
		const struct report_expl *e, const char *via)
{
	bool deny = e->verdict == SBX_DENY;
	char rule[2 * PATH_MAX];

	if (c->quiet)
		return;
	printf("%s%s%s %s %s", ctl_sgr(c->color, deny ? "\033[1;31m" : "\033[32m"),
	       deny ? "deny " : "allow", ctl_sgr(c->color, "\033[0m"), wire_op_name(w->op),
	       e->shown);
	if (via[0])
		printf(" (%s)", via);
	if (e->has_rule)
		printf("\t%s\t%s", e->rule, e->source);
	else if (deny)
		printf("\t%s", w->op == WIRE_WRITE ? "outside every writable root" :
		       w->op == WIRE_CONNECT ? "not in allow_domains" : "no rule allows it");
	else if (w->op != WIRE_CONNECT && allowed_by(c->p, w, rule, sizeof(rule)))
		printf("\t%s", rule);
	else if (w->op == WIRE_WRITE)
		printf("\twritable");
	else if (w->op == WIRE_CONNECT)
		printf("\t%s", policy_network_open(c->p) ? "network on (allow_domains = *)" :
		       "allowed by allow_domains");
	else
		printf("\tno rule denies it");
	printf("\n");
	if (deny && e->fix[0])
		printf("  allow it with: %s (flag), or the key in sandbox.ini\n", e->fix);
}

/* ---- what the run's plan guards by looking at the disk (plan.c):
 * the parts of git directories no rule names (a bare repository's, a
 * linked worktree's entry, a .git file) and the hooks directories the
 * configs name. The same answer as a run gives, for a path that is
 * there now; none of it is a setting, so no fix is offered. */

static bool is_file(const char *dir, const char *name, bool want_dir)
{
	char p[PATH_MAX];
	struct stat st;

	return snprintf(p, sizeof(p), "%s/%s", dir, name) < (int)sizeof(p) && !lstat(p, &st) &&
	       (want_dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
}

/* git's own test (is_git_directory), or a linked worktree's entry */
static bool git_dir(const char *d)
{
	return is_file(d, "HEAD", false) &&
	       ((is_file(d, "objects", true) && is_file(d, "refs", true)) ||
		is_file(d, "commondir", false));
}

struct hp_look {
	const char *path, *base;
	char found[PATH_MAX];
};

/* A hooks directory of `/` holds no hook of ours worth naming */
static bool under(const char *path, const char *dir)
{
	return strlen(dir) > 1 && sbx_path_under(path, dir);
}

static void hp_each(const char *file, bool there, const struct gitcfg *g, void *arg)
{
	struct hp_look *h = arg;
	char j[PATH_MAX], r[PATH_MAX];

	if (h->found[0])
		return;
	if (there && !strcmp(file, h->path)) {
		snprintf(h->found, sizeof(h->found), "a file a git config includes");
		return;
	}
	for (size_t i = 0; g && i < gitcfg_count(g); i++) {
		const char *v = gitcfg_value(g, i);
		if (strcmp(gitcfg_key(g, i), "core.hookspath") || !v || !v[0] ||
		    path_join(h->base, v, j, sizeof(j)))
			continue;
		sbx_path_resolve(j, r, sizeof(r));
		size_t rl = strlen(r);
		/* husky: .husky/_ calls the hooks of .husky/ */
		bool husky = rl > 2 && !strcmp(r + rl - 2, "/_");
		if (under(h->path, r) || (husky && (r[rl - 2] = '\0', under(h->path, r))))
			snprintf(h->found, sizeof(h->found), "core.hooksPath = %s", v);
	}
	/* one git reads that the parser did not (the run reads it so too) */
	char v[PATH_MAX];
	if (there && !g && gitcfg_scan_core(file, "hooksPath", v, sizeof(v)) &&
	    !path_join(h->base, v, j, sizeof(j))) {
		sbx_path_resolve(j, r, sizeof(r));
		size_t rl = strlen(r);
		bool husky = rl > 2 && !strcmp(r + rl - 2, "/_");
		if (under(h->path, r) || (husky && (r[rl - 2] = '\0', under(h->path, r))))
			snprintf(h->found, sizeof(h->found), "core.hooksPath = %.*s",
				 (int)(sizeof(h->found) - 18), v);
	}
}

/* Does the run guard `path` (absolute, resolved) though no rule names it?
 * Its reason into why. */
static bool git_guarded(const struct policy *p, const char *path, char *why, size_t whysz)
{
	char dir[PATH_MAX], up[PATH_MAX];
	const char *name = strrchr(path, '/');

	if (!name || name == path)
		return false;
	name++;
	snprintf(dir, sizeof(dir), "%.*s", (int)(name - 1 - path), path);
	snprintf(up, sizeof(up), "%s", dir);
	char *s = strrchr(up, '/');
	if (s)
		*(s == up ? s + 1 : s) = '\0';
	const char *upname = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
	static const char *const parts[] = { "hooks", "config", "commondir", "config.worktree" };
	for (size_t i = 0; i < 4; i++)
		if (!strcmp(name, parts[i]) && git_dir(dir)) {
			snprintf(why, whysz, "the %s of the git directory %s", name, dir);
			return true;
		}
	if (!strcmp(upname, "hooks") && git_dir(up)) {
		snprintf(why, whysz, "a hook of the git directory %s", up);
		return true;
	}
	if (!strcmp(name, "gitdir") && git_dir(dir) && strstr(dir, "/worktrees/")) {
		snprintf(why, whysz, "the linked worktree entry %s", dir);
		return true;
	}
	if (!strcmp(name, ".git") && is_file(dir, ".git", false)) {
		snprintf(why, whysz, "the .git file that names the repository of %s", dir);
		return true;
	}
	/* a hooks directory a repository above names (or a file its config
	 * includes): each directory up to / that holds a .git */
	char a[PATH_MAX];
	snprintf(a, sizeof(a), "%s", dir);
	for (;;) {
		char gd[PATH_MAX + 8], f[PATH_MAX + 32];
		snprintf(gd, sizeof(gd), "%s/.git", strcmp(a, "/") ? a : "");
		struct stat st;
		if (!lstat(gd, &st) && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode))) {
			if (S_ISREG(st.st_mode)) {
				char buf[PATH_MAX], rel[PATH_MAX];
				FILE *fp = fopen(gd, "re");
				size_t n = fp ? fread(buf, 1, sizeof(buf) - 1, fp) : 0;
				if (fp)
					fclose(fp);
				buf[n] = '\0';
				buf[strcspn(buf, "\r\n")] = '\0';
				if (strncmp(buf, "gitdir: ", 8) || path_join(a, buf + 8, rel, sizeof(rel)))
					break;
				sbx_path_resolve(rel, gd, sizeof(gd));
			}
			struct hp_look h = { .path = path, .base = a };
			const char *files[] = { "config", "config.worktree" };
			for (size_t i = 0; i < 2 && !h.found[0]; i++) {
				snprintf(f, sizeof(f), "%s/%s", gd, files[i]);
				gitcfg_each_file(f, policy_home(p), hp_each, &h);
			}
			if (h.found[0]) {
				if (snprintf(why, whysz, "%s (the repository at %s)", h.found, a) < 0)
					why[0] = '\0';
				return true;
			}
			break;
		}
		char *sl = strrchr(a, '/');
		if (!sl || !strcmp(a, "/"))
			break;
		*(sl == a ? sl + 1 : sl) = '\0';
	}
	return false;
}

static int check_path(const struct check *c, enum wire_op op, const char *arg)
{
	struct wire_report w = { .decision = WIRE_DENY, .op = op };
	struct report_expl as_written, resolved;
	char abs[PATH_MAX], real[PATH_MAX], shown[PATH_MAX], printable[PATH_MAX];
	const char *home = policy_home(c->p);

	if (arg[0] == '~' && (arg[1] == '/' || !arg[1]) &&
	    (size_t)snprintf(shown, sizeof(shown), "%s%s", home, arg + 1) < sizeof(shown))
		arg = shown;
	if (!*arg || path_join(c->cwd, arg, abs, sizeof(abs))) {
		fprintf(stderr, "sbxctl check: `%s` is not a path sbx can judge (empty or "
			"too long)\n", arg);
		return -1;
	}
	snprintf(w.target, sizeof(w.target), "%s", abs);
	report_explain(c->p, &w, &as_written);
	sbx_path_resolve(abs, real, sizeof(real));
	char gwhy[2 * PATH_MAX];
	bool guarded = op == WIRE_WRITE && as_written.verdict == SBX_ALLOW &&
		       policy_check_path(c->p, SBX_OP_WRITE, real, NULL) == SBX_ALLOW &&
		       git_guarded(c->p, real, gwhy, sizeof(gwhy));
	/* both systems' runs keep it (plan.c: Linux's mounts, macOS's profile) */
	if (guarded) {
		if (!c->quiet) {
			ctl_printable(gwhy, printable, sizeof(printable));
			printf("%sdeny %s write %s\t%s\tkept read-only by the run (git on the host "
			       "runs or reads it; no setting lifts it)\n",
			       ctl_sgr(c->color, "\033[1;31m"), ctl_sgr(c->color, "\033[0m"),
			       as_written.shown, printable);
		}
		return 1;
	}
	if (!strcmp(real, abs) || as_written.verdict == SBX_DENY) {
		say(c, &w, &as_written, "");
		return as_written.verdict == SBX_DENY;
	}
	/* allowed as written: where it leads decides (a link in the
	 * workspace to ~/.ssh) */
	struct wire_report r = w;
	snprintf(r.target, sizeof(r.target), "%s", real);
	report_explain(c->p, &r, &resolved);
	policy_tildify(c->p, real, shown, sizeof(shown));
	ctl_printable(shown, printable, sizeof(printable));
	char via[PATH_MAX + 16];
	snprintf(via, sizeof(via), "leads to %s", printable);
	snprintf(resolved.shown, sizeof(resolved.shown), "%s", as_written.shown);
	say(c, &w, &resolved, via);
	return resolved.verdict == SBX_DENY;
}

static int check_connect(const struct check *c, const char *arg)
{
	struct wire_report w = { .decision = WIRE_DENY, .op = WIRE_CONNECT };
	struct report_expl e;
	char host[256];
	unsigned port;

	if (strlen(arg) >= sizeof(w.target) || sbx_split_target(arg, host, sizeof(host), &port) ||
	    !host[0] || host[strspn(host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				    "0123456789.-_:")]) {
		fprintf(stderr, "sbxctl check: `%s` is not HOST, HOST:PORT or [V6]:PORT\n", arg);
		return -1;
	}
	snprintf(w.target, sizeof(w.target), "%s", arg);
	report_explain(c->p, &w, &e);
	say(c, &w, &e, "");
	return e.verdict == SBX_DENY;
}

int cmd_check(int argc, char **argv)
{
	enum { O_READ = 256, O_WRITE, O_EXEC, O_CONNECT };
	static const struct option lo[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "workspace", required_argument, NULL, 'w' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "read", no_argument, NULL, O_READ },
		{ "write", no_argument, NULL, O_WRITE },
		{ "exec", no_argument, NULL, O_EXEC },
		{ "connect", no_argument, NULL, O_CONNECT },
		{ NULL, 0, NULL, 0 },
	};
	struct check c = { .color = ctl_color(stdout) };
	const char *config = NULL, *ws = NULL;
	struct policy *p = NULL;
	char user_file[PATH_MAX];
	int opt, op = -1, rc, denied = 0, bad = 0;
	/* the targets, each with the operation that came before it: getopt
	 * moves operands after the options, so they are collected first */
	struct { int op; const char *arg; } *todo = calloc((size_t)argc, sizeof(*todo));
	size_t ntodo = 0;

	if (!todo)
		return CTL_USAGE;
	if (ctl_common_flag("check", check_usage, argc, argv)) {
		free(todo);
		return CTL_OK;
	}
	/* `-` first in optstring: operands come back in order, as 1 */
	while ((opt = getopt_long(argc, argv, "-c:w:q", lo, NULL)) != -1) {
		switch (opt) {
		case 'c': config = optarg; break;
		case 'w': ws = optarg; break;
		case 'q': c.quiet = true; break;
		case O_READ: case O_WRITE: case O_EXEC: case O_CONNECT: op = opt; break;
		case 1:
			if (op < 0) {
				fprintf(stderr, "sbxctl check: say what to check for `%s`: --read, "
					"--write, --exec or --connect before it\n", optarg);
				free(todo);
				return CTL_USAGE;
			}
			todo[ntodo].op = op;
			todo[ntodo++].arg = optarg;
			break;
		default:
			fprintf(stderr, "sbxctl: see `sbxctl check --help`\n");
			free(todo);
			return CTL_USAGE;
		}
	}
	for (; optind < argc; optind++) { /* after `--` */
		if (op < 0)
			break;
		todo[ntodo].op = op;
		todo[ntodo++].arg = argv[optind];
	}
	if (!ntodo) {
		fprintf(stderr, "sbxctl check: nothing to check (--read PATH, --write PATH, "
			"--exec PATH or --connect HOST[:PORT])\n");
		free(todo);
		return CTL_USAGE;
	}
	if (!getcwd(c.cwd, sizeof(c.cwd))) {
		fprintf(stderr, "sbxctl: cannot tell the current directory: %s\n", strerror(errno));
		free(todo);
		return CTL_USAGE;
	}
	if ((rc = ctl_policy(config, ws, NULL, &p, NULL, user_file, sizeof(user_file)))) {
		free(todo);
		return rc;
	}
	c.p = p;
	for (size_t i = 0; i < ntodo; i++) {
		int r = todo[i].op == O_CONNECT ? check_connect(&c, todo[i].arg) :
			check_path(&c, todo[i].op == O_READ ? WIRE_READ : todo[i].op == O_WRITE ?
				   WIRE_WRITE : WIRE_EXEC, todo[i].arg);
		if (r < 0)
			bad++;
		else
			denied += r;
	}
	policy_free(p);
	free(todo);
	return bad ? CTL_USAGE : denied ? CTL_DENIED : CTL_OK;
}
