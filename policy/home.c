/* policy/home.c: HOME as an allow-list, and what a later program runs there.
 *
 * The principle (docs/POLICY.md, "HOME is an allow-list when writable"):
 * when HOME or a directory above it is a writable root (workspace = HOME,
 * allow_write = ~/ or /home), HOME's hidden entries (`~/.*`) and the
 * directories a later program runs from stay read-only unless an
 * allow_write names them, or a path inside them; the visible files and
 * folders are writable. The persistence list (policy.c) is no longer what
 * keeps `~/.pyenv` or `~/.docker/cli-plugins` closed: no list of tools is
 * ever complete, and HOME's hidden entries are where tools keep what runs.
 *
 * The table below is the explanation, used in three places: the visible
 * rows become rules of their own (a hidden one is covered by `~/.*`
 * already); a hint (hint.c) never offers a flag that opens a row (it says
 * what the place is instead); and --learn (preload/learn.c) never
 * proposes one, saying why in the learned file. Each row: where, relative
 * to HOME (a glob: `*` within one component), what a later program does
 * with it, and how a hint treats it.
 *
 * Shared with the shim (hint.c tells the refused program the same words):
 * no allocation, no libc state.
 */
#include <stdio.h>
#include <string.h>

#include "policy/internal.h"

const struct home_row home_rows[] = {
	/* interpreters and their packages, by version manager */
	{ ".pyenv", "pyenv's Python interpreters: a .pth or module there runs in every "
		    "later python3", HOME_NEVER },
	{ ".conda", "conda's environments: a .pth or module there runs in every later "
		    "python of them", HOME_NEVER },
	{ "miniconda3", "a conda installation: a .pth or module there runs in every later "
			"python of it", HOME_NEVER | HOME_VISIBLE },
	{ "anaconda3", "a conda installation: a .pth or module there runs in every later "
		       "python of it", HOME_NEVER | HOME_VISIBLE },
	{ "miniforge3", "a conda installation: a .pth or module there runs in every later "
			"python of it", HOME_NEVER | HOME_VISIBLE },
	{ "mambaforge", "a conda installation: a .pth or module there runs in every later "
			"python of it", HOME_NEVER | HOME_VISIBLE },
	{ "micromamba", "micromamba's environments: a .pth or module there runs in every "
			"later python of them", HOME_NEVER | HOME_VISIBLE },
	{ ".local/pipx", "pipx's tool environments: what is there runs as each installed "
			 "tool", HOME_NEVER },
	{ ".local/share/pipx", "pipx's tool environments: what is there runs as each "
			       "installed tool", HOME_NEVER },
	{ ".local/share/uv", "uv's Python interpreters and tools: what is there runs as "
			     "python and as each tool", HOME_NEVER },
	{ ".local/share/virtualenvs", "pipenv's virtual environments: they run at every "
				      "pipenv run", HOME_NEVER },
	{ ".local/lib/python*/site-packages", "Python's user site: a .pth there runs in "
					      "every later python3", HOME_NEVER },
	{ ".nvm", "nvm's Node.js versions and their global packages: every later node, "
		  "npm and npx runs them", HOME_NEVER },
	{ ".volta", "Volta's Node.js tools: every later node, npm and npx runs them",
	  HOME_NEVER },
	{ ".fnm", "fnm's Node.js versions: every later node runs them", HOME_NEVER },
	{ ".local/share/fnm", "fnm's Node.js versions: every later node runs them",
	  HOME_NEVER },
	{ ".nodenv", "nodenv's Node.js versions: every later node runs them", HOME_NEVER },
	{ ".npm-global", "npm's global prefix: its packages and bin/ run as commands",
	  HOME_NEVER },
	{ ".local/share/pnpm", "pnpm's home (on PATH) and global packages: they run as "
			       "commands", HOME_NEVER },
	{ ".bun", "Bun and its global packages (~/.bun/bin is on PATH)", HOME_NEVER },
	{ ".deno", "Deno and the tools deno install puts on PATH", HOME_NEVER },
	{ ".yarn", "Yarn's global packages and bin/: they run as commands", HOME_NEVER },
	{ ".config/yarn/global", "Yarn's global packages: they run as commands",
	  HOME_NEVER },
	{ "node_modules", "node's require() looks here from every project below HOME: "
			  "a package there runs in them", HOME_NEVER | HOME_VISIBLE },
	{ ".node_modules", "node reads it as a global module directory", HOME_NEVER },
	{ ".node_libraries", "node reads it as a global module directory", HOME_NEVER },
	{ ".rustup", "rustup's Rust toolchains: every later cargo and rustc runs them",
	  HOME_NEVER },
	{ ".cargo/bin", "cargo's installed programs, on PATH", HOME_NEVER },
	{ ".rbenv", "rbenv's Ruby interpreters: every later ruby runs them", HOME_NEVER },
	{ ".rvm", "RVM's Ruby interpreters: every later ruby runs them", HOME_NEVER },
	{ ".gem", "gems installed for the user: every later ruby loads them", HOME_NEVER },
	{ ".sdkman", "SDKMAN's JDKs and build tools: every later java, gradle and mvn",
	  HOME_NEVER },
	{ ".jenv", "jenv's Java versions: every later java", HOME_NEVER },
	{ ".goenv", "goenv's Go versions: every later go", HOME_NEVER },
	{ "go/bin", "Go's installed programs, on PATH", HOME_NEVER | HOME_VISIBLE },
	{ "sdk", "Go's downloaded toolchains (go install golang.org/dl/...)",
	  HOME_NEVER | HOME_VISIBLE },
	{ "perl5", "local::lib's Perl modules: every later perl loads them",
	  HOME_NEVER | HOME_VISIBLE },
	{ ".asdf", "asdf's interpreters and tools: every later shim runs them",
	  HOME_NEVER },
	{ ".local/share/mise", "mise's interpreters and tools: every later shim runs them",
	  HOME_NEVER },
	{ ".local/bin", "a directory on PATH: a program there runs instead of the "
			"system's", HOME_NEVER },
	{ "bin", "a directory on PATH: a program there runs instead of the system's",
	  HOME_NEVER | HOME_VISIBLE },
	/* plug-ins and shell code other programs load */
	{ ".docker/cli-plugins", "Docker CLI plug-ins: docker runs docker-NAME there "
				 "for `docker NAME`", HOME_NEVER },
	{ ".oh-my-zsh", "oh-my-zsh: every zsh sources it", HOME_NEVER },
	{ ".zcompdump*", "zsh's completion dump: compinit sources it in every zsh",
	  HOME_NEVER },
	{ ".zsh", "zsh plug-ins and functions: every zsh loads them", HOME_NEVER },
	{ ".zinit", "zinit's zsh plug-ins: every zsh loads them", HOME_NEVER },
	{ ".local/share/zinit", "zinit's zsh plug-ins: every zsh loads them", HOME_NEVER },
	{ ".antigen", "antigen's zsh plug-ins: every zsh loads them", HOME_NEVER },
	{ ".zplug", "zplug's zsh plug-ins: every zsh loads them", HOME_NEVER },
	{ ".bashrc.d", "~/.bashrc sources every file there", HOME_NEVER },
	{ ".zshrc.d", "~/.zshrc sources every file there", HOME_NEVER },
	{ ".bash_it", "bash-it: every bash sources it", HOME_NEVER },
	{ ".tmux", "tmux plug-ins: every tmux runs them", HOME_NEVER },
	{ ".vim", "vim's plug-ins: every vim runs them", HOME_NEVER },
	{ ".vscode", "VS Code's extensions: every VS Code runs them", HOME_NEVER },
	{ ".vscode-server", "VS Code's remote extensions: every remote session runs them",
	  HOME_NEVER },
	{ ".cursor", "Cursor's extensions and MCP servers: it runs them", HOME_NEVER },
	{ ".terraform.d/plugins", "Terraform providers: terraform runs them", HOME_NEVER },
	{ ".krew", "kubectl plug-ins (on PATH)", HOME_NEVER },
	{ ".ansible", "Ansible's collections and plug-ins: every playbook loads them",
	  HOME_NEVER },
	{ ".local/share/gnome-shell/extensions", "GNOME Shell runs its extensions at login",
	  HOME_NEVER },
	/* terminals and window managers: their configuration starts programs */
	{ ".config/kitty", "kitty's configuration: it starts programs", HOME_NEVER },
	{ ".config/alacritty", "Alacritty's configuration: it starts programs", HOME_NEVER },
	{ ".config/wezterm", "WezTerm's configuration (Lua): it runs at start", HOME_NEVER },
	{ ".wezterm.lua", "WezTerm's configuration (Lua): it runs at start", HOME_NEVER },
	{ ".config/i3", "i3's configuration: exec lines run at login", HOME_NEVER },
	{ ".config/sway", "sway's configuration: exec lines run at login", HOME_NEVER },
	{ ".config/hypr", "Hyprland's configuration: exec lines run at login", HOME_NEVER },
	{ ".config/awesome", "awesome's configuration (Lua): it runs at login", HOME_NEVER },
	{ ".config/bspwm", "bspwm's configuration: a script run at login", HOME_NEVER },
	{ ".config/sxhkd", "sxhkd's key bindings: each runs a command", HOME_NEVER },
	{ ".config/openbox", "Openbox's autostart: it runs at login", HOME_NEVER },
	/* build caches a later build trusts: proposed, with what they are */
	{ ".m2/repository", "Maven's local repository: its jars run in every later build",
	  HOME_SAY },
	{ ".gradle/caches", "Gradle's caches: their jars and plug-ins run in every later "
			    "build", HOME_SAY },
	{ ".ccache", "ccache's objects: they are linked into later builds", HOME_SAY },
	{ ".cache/ccache", "ccache's objects: they are linked into later builds", HOME_SAY },
	{ ".cache/bazel", "Bazel's output base: its actions' outputs are reused in later "
			  "builds", HOME_SAY },
	{ ".ivy2", "Ivy's cache: its jars run in every later sbt or ant build", HOME_SAY },
	{ ".sbt", "sbt's plug-ins and boot jars: they run in every later build", HOME_SAY },
	/* package caches a later install or run trusts (the agent profiles give
	 * the sandbox caches of its own instead: docs/AGENTS.md) */
	{ ".npm/_npx", "npx's packages: a later npx runs them as they are", HOME_NEVER },
	{ ".cargo/registry/src", "cargo's unpacked crate sources: later builds compile them "
				 "and run their build scripts", HOME_SAY },
	{ ".cache/go-build", "Go's build cache: its objects are linked into later builds",
	  HOME_SAY },
	{ ".cache/pip", "pip's cache: later pip installs install the wheels there", HOME_SAY },
	{ ".cache/uv", "uv's cache: later uv and uvx install and run what is there", HOME_SAY },
};
const size_t home_nrows = sizeof(home_rows) / sizeof(*home_rows);

/* Components in a row's pattern. */
static size_t ncomp(const char *s)
{
	size_t n = 1;

	for (; *s; s++)
		n += *s == '/';
	return n;
}

/* The length of rel's first n components, or 0 when it has fewer. */
static size_t lead_len(const char *rel, size_t n)
{
	size_t end = 0;

	for (size_t k = 0; k < n; k++) {
		if (k) {
			if (rel[end] != '/')
				return 0;
			end++;
		}
		size_t c = strcspn(rel + end, "/");
		if (!c)
			return 0;
		end += c;
	}
	return end;
}

/* The row `rel` (a path relative to HOME, no leading `/`) lies in, or with
 * `above` one that lies below `rel` (allowing `rel` would open it too): its
 * index, or -1; *len: the length of rel's part that names the row's place
 * (all of rel for a row below it). */
static int row_of(const char *rel, bool above, size_t *len)
{
	size_t rl = strlen(rel);

	for (size_t i = 0; i < home_nrows; i++) {
		const char *pat = home_rows[i].where;
		size_t end = lead_len(rel, ncomp(pat));
		if (end && sbx_glob_match(pat, rel, end)) {
			*len = end;
			return (int)i;
		}
		/* rel is shorter: does the row lie below it? */
		if (!end && above && rl && !strncmp(pat, rel, rl) && pat[rl] == '/') {
			*len = rl;
			return (int)i;
		}
	}
	return -1;
}

int policy_home_row(const struct policy *p, const char *path, bool above,
		    char *where, size_t wsz, unsigned *flags)
{
	const char *home = policy_home(p);
	size_t hl = strlen(home), n;
	int i;

	if (hl < 2 || strncmp(path, home, hl) || path[hl] != '/' || !path[hl + 1])
		return -1;
	if ((i = row_of(path + hl + 1, above, &n)) < 0)
		return -1;
	/* the place as the person writes it: `~/.pyenv`, `~/.zcompdump-host`;
	 * for a row below the path, the row's own */
	bool below = n == strlen(path + hl + 1) && !sbx_glob_match(home_rows[i].where,
								     path + hl + 1, n);
	const char *src = below ? home_rows[i].where : path + hl + 1;
	if (below)
		n = strlen(src);
	if (where && wsz > 3) {
		if (n + 3 > wsz)
			n = wsz - 3;
		memcpy(where, "~/", 2);
		memcpy(where + 2, src, n);
		where[2 + n] = '\0';
	}
	if (flags)
		*flags = home_rows[i].flags;
	return i;
}

const char *policy_home_row_what(int row)
{
	return row >= 0 && (size_t)row < home_nrows ? home_rows[row].what : "";
}

int policy_home_holds(const struct policy *p, const char *dir, sbx_look_fn fn, void *ctx,
		      char *where, size_t wsz)
{
	const char *home = policy_home(p);
	size_t hl = strlen(home), dl = strlen(dir);

	while (dl > 1 && dir[dl - 1] == '/')
		dl--; /* a directory as a hint writes it, `~/.local/share/` */
	if (hl < 2 || dl <= hl || strncmp(dir, home, hl) || dir[hl] != '/')
		return -1;
	const char *rel = dir + hl + 1;
	size_t rl = dl - hl - 1;
	for (size_t i = 0; i < home_nrows; i++) {
		const char *pat = home_rows[i].where;
		char path[PATH_MAX];
		if (!(home_rows[i].flags & HOME_NEVER) || strncmp(pat, rel, rl) || pat[rl] != '/')
			continue;
		/* a row with a wildcard counts as there; a literal one only when
		 * it is (opening the directory above one that is not there
		 * opens nothing a program runs yet) */
		if (snprintf(path, sizeof(path), "%s/%s", home, pat) >= (int)sizeof(path) ||
		    (!strpbrk(pat, "*?") && fn(ctx, path) != 1))
			continue;
		/* one no setting lifts (~/.local/bin, the user site) stays
		 * closed whatever opens the directory above it */
		const struct sbx_rule *why;
		if (policy_check_path(p, SBX_OP_WRITE, path, &why) == SBX_DENY && why &&
		    why->kind == SBX_RULE_MANDATORY)
			continue;
		if (where && wsz > 3)
			snprintf(where, wsz, "~/%s", pat);
		return (int)i;
	}
	return -1;
}
