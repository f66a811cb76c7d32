/* preload/loginpath.c: the directories a login shell puts on PATH under
 * HOME, found without running the user's shell.
 *
 * HOME's allow-list (docs/POLICY.md) keeps the directories on a login
 * shell's PATH read-only when HOME is writable: a `git` there runs instead
 * of /usr/bin/git in the user's next shell. The caller's $PATH is one
 * answer (policy.c makes those mandatory), but sbx may be started from an
 * editor, an MCP host or a service whose PATH is not the login shell's.
 * Running the user's shell to ask would run their start-up files, which a
 * sandboxed run may have written: so the files are read instead, as text,
 * and every `$HOME/X`, `${HOME}/X` or `~/X` on a line that sets PATH (or
 * fish's fish_add_path) is taken. A line this misreads only keeps one
 * more directory read-only; one it misses is what the caller's $PATH and
 * the well-known rows of policy/home.c are for.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/preload.h"

/* What bash, zsh, sh and fish read at login or start, relative to HOME. */
static const char *const rc_files[] = {
	".profile", ".bash_profile", ".bash_login", ".bashrc", ".zshenv", ".zprofile",
	".zshrc", ".zlogin", ".config/fish/config.fish",
};

#define RC_MAX (64 * 1024)

/* Append HOME/rel (rel up to the first character that ends a path in a
 * shell word) to out, colon-separated. */
static void take(const char *home, const char *rel, char *out, size_t outsz)
{
	size_t n = strcspn(rel, ":\"' \t;)}`\n\r$*?[");
	size_t o = strlen(out);

	while (n && rel[n - 1] == '/')
		n--;
	if (!n || rel[n] == '$' || rel[n] == '*' || rel[n] == '?' || rel[n] == '[')
		return; /* empty, or a name made of variables or globs */
	if (!strncmp(rel, "..", 2) && (n == 2 || rel[2] == '/'))
		return;
	int w = snprintf(out + o, outsz - o, "%s%s/%.*s", o ? ":" : "", home, (int)n, rel);
	if (w < 0 || (size_t)w >= outsz - o)
		out[o] = '\0'; /* does not fit: left out whole */
}

static void scan_line(const char *home, const char *line, char *out, size_t outsz)
{
	static const char *const leads[] = { "$HOME/", "${HOME}/", "~/" };

	if (!strstr(line, "PATH") && !strstr(line, "fish_add_path") &&
	    !strstr(line, "path+=") && !strstr(line, "path=("))
		return;
	if (line[strspn(line, " \t")] == '#')
		return;
	for (const char *c = line; *c; c++)
		for (size_t i = 0; i < sizeof(leads) / sizeof(*leads); i++) {
			size_t l = strlen(leads[i]);
			/* `~/` only at the start of a word or a PATH part */
			if (i == 2 && c > line && !strchr(":=\"' \t(", c[-1]))
				continue;
			if (!strncmp(c, leads[i], l))
				take(home, c + l, out, outsz);
		}
}

void loginpath_read(const char *home, char *out, size_t outsz)
{
	static char buf[RC_MAX + 1];

	out[0] = '\0';
	if (!home || home[0] != '/' || !strcmp(home, "/"))
		return;
	for (size_t i = 0; i < sizeof(rc_files) / sizeof(*rc_files); i++) {
		char path[PATH_MAX];
		if (snprintf(path, sizeof(path), "%s/%s", home, rc_files[i]) >= (int)sizeof(path))
			continue;
		/* read only: a link to a dotfiles repository is followed */
		int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
		struct stat st;
		if (fd < 0)
			continue;
		if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
			close(fd);
			continue;
		}
		ssize_t n = read(fd, buf, RC_MAX);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		for (char *line = buf, *next; line && *line; line = next) {
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			scan_line(home, line, out, outsz);
		}
	}
}
