/* cli/common.c: what sbxctl's subcommands share (sbxctl.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/config.h"
#include "common/hostfs.h"
#include "cli/machine.h"
#include "cli/sbxctl.h"
#include "preload/preload.h"

#ifndef SBX_VERSION
#define SBX_VERSION "0.1.0"
#endif

bool ctl_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");

	if (nc && *nc)
		return false;
	if (!term || !*term || !strcmp(term, "dumb"))
		return false;
	return isatty(fileno(f));
}

const char *ctl_sgr(bool on, const char *code)
{
	return on ? code : "";
}

int ctl_common_flag(const char *sub, const char *text, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			break;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(text, stdout);
			return 1;
		}
		if (!strcmp(argv[i], "--version")) {
			printf("sbxctl %s %s\n", sub, SBX_VERSION);
			return 1;
		}
	}
	return 0;
}

void ctl_printable(const char *s, char *out, size_t outsz)
{
	report_printable(s, out, outsz, false);
}

int ctl_policy(const char *config, const char *workspace, const char *cwd,
	       struct policy **p, struct policy_builder **b, char *user_file, size_t ufsz)
{
	return ctl_policy_profile(config, workspace, cwd, NULL, p, b, user_file, ufsz);
}

int ctl_policy_profile(const char *config, const char *workspace, const char *cwd,
		       const char *profile, struct policy **p, struct policy_builder **b,
		       char *user_file, size_t ufsz)
{
	const char *home = config_home_dir();
	char here[PATH_MAX], sdir[PATH_MAX], cdir[PATH_MAX], session[PATH_MAX + 16];
	struct options o = { .config = config, .workspace = workspace, .profile = profile };
	struct sbx_err err = { "" };
	int rc;

	if (!home) {
		fprintf(stderr, "sbxctl: cannot tell your home directory: set HOME\n");
		return CTL_USAGE;
	}
	if (!cwd) {
		if (!getcwd(here, sizeof(here))) {
			fprintf(stderr, "sbxctl: cannot tell the current directory: %s\n",
				strerror(errno));
			return CTL_USAGE;
		}
		cwd = here;
	}
	if (config_own_dir(home, "XDG_STATE_HOME", ".local/state/sbx", sdir, sizeof(sdir)) ||
	    config_own_dir(home, "XDG_CONFIG_HOME", ".config/sbx", cdir, sizeof(cdir))) {
		fprintf(stderr, "sbxctl: cannot tell sbx's state and configuration "
			"directories (is HOME too long?)\n");
		return CTL_USAGE;
	}
	/* a strict policy names a session directory; a run makes a fresh one */
	snprintf(session, sizeof(session), "%s/sessions/RUN", sdir);
	/* sbx's own programs, never writable inside (as a run names them) */
	char own[SBX_OWN_FILES][PATH_MAX];
	struct policy_ctx ctx = { .home = home, .cwd = cwd, .session_dir = session,
				  .state_dir = sdir, .config_dir = cdir };
	machine_own_files(own, ctx.own_files);
	if (b) {
		rc = config_builder(&o, &ctx, false, user_file, ufsz, b, &err);
	} else {
		rc = config_build_policy(&o, &ctx, false, user_file, ufsz, p, &err);
	}
	if (rc == -1)
		fprintf(stderr, "sbxctl: %s\n", err.msg[0] ? err.msg : "cannot build the policy");
	return rc ? CTL_USAGE : 0;
}

int ctl_target_file(const char *config, char *out, size_t outsz)
{
	const char *env = getenv("SBX_CONFIG"), *home = config_home_dir();
	char cwd[PATH_MAX], given[PATH_MAX];

	if (!config && env && *env)
		config = env;
	if (config) {
		if (!getcwd(cwd, sizeof(cwd)) || path_join(cwd, config, given, sizeof(given)))
			return -ENAMETOOLONG;
	} else {
		if (!home)
			return -ENOENT;
		if (config_user_file(home, given, sizeof(given)))
			return -ENAMETOOLONG;
	}
	/* the directories are the user's choice, resolved now; the file
	 * itself is never followed (a link there is replaced) */
	return hostfs_trust_path(given, 1, out, outsz);
}

/* The directory of `path` held, and the last name. */
static int open_parent(const char *path, bool create, const char **name, char *dir,
		       size_t dirsz)
{
	struct hostfs_err err;
	int fd;

	if (hostfs_split(path, dir, dirsz, name)) {
		fprintf(stderr, "sbxctl: %s names no file\n", path);
		return -EINVAL;
	}
	fd = hostfs_dir_open(dir, create ? HOSTFS_CREATE : 0, &err);
	if (fd < 0 && !(fd == -ENOENT && !create))
		fprintf(stderr, "sbxctl: %s\n", err.msg);
	return fd;
}

/* Read all of a regular file not through a link, at most 1 MiB. */
static int read_at(int dfd, const char *name, const char *shown, char **text)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	char *buf = NULL;
	size_t n = 0;
	int rc;

	*text = NULL;
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > (1 << 20)) {
		rc = S_ISREG(st.st_mode) ? -EFBIG : -EINVAL;
		fprintf(stderr, "sbxctl: %s is %s\n", shown,
			rc == -EFBIG ? "larger than 1 MiB" : "not a regular file");
		close(fd);
		return rc;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	for (ssize_t r; n < (size_t)st.st_size; n += (size_t)r)
		if ((r = read(fd, buf + n, (size_t)st.st_size - n)) <= 0)
			break;
	buf[n] = '\0';
	close(fd);
	*text = buf;
	return 0;
}

int ctl_read_config(const char *path, char **text, bool *missing)
{
	char dir[PATH_MAX];
	const char *name;
	int dfd = open_parent(path, false, &name, dir, sizeof(dir)), rc;

	*text = NULL;
	*missing = false;
	if (dfd == -ENOENT) {
		*missing = true;
		return 0;
	}
	if (dfd < 0)
		return dfd;
	rc = read_at(dfd, name, path, text);
	close(dfd);
	if (rc == -ENOENT) {
		*missing = true;
		return 0;
	}
	if (rc == -ELOOP)
		fprintf(stderr, "sbxctl: %s is a symbolic link; sbxctl does not write "
			"through links (replace it with the file itself)\n", path);
	else if (rc && rc != -EFBIG && rc != -EINVAL)
		fprintf(stderr, "sbxctl: cannot read %s: %s\n", path, strerror(-rc));
	return rc;
}

static int replace_at(int dfd, const char *dir, const char *name, const char *text,
		      bool stop_hook)
{
	struct hostfs_replace rep = { .fd = -1 };
	struct hostfs_err err;
	size_t len = strlen(text), off = 0;
	int rc = hostfs_replace_begin(dfd, dir, name, 0600, &rep, &err);

	if (rc) {
		fprintf(stderr, "sbxctl: %s\n", err.msg);
		return rc;
	}
	while (off < len) {
		ssize_t w = write(rep.fd, text + off, len - off);
		if (w <= 0) {
			rc = w < 0 ? -errno : -EIO;
			fprintf(stderr, "sbxctl: writing %s/%s: %s\n", dir, rep.tmp, strerror(-rc));
			hostfs_replace_abort(&rep);
			return rc;
		}
		off += (size_t)w;
	}
#ifdef SBX_TEST_HOOKS
	/* For the test of a crash between the write and the rename
	 * (tests/integration/sbxctl.sh, with build/tests/sbxctl-hooks): stop
	 * here, as a kill would find us. */
	const char *stop = getenv("SBX_TEST_STOP_BEFORE_RENAME");
	if (stop_hook && stop && !strcmp(stop, "1"))
		raise(SIGSTOP);
#endif
	if ((rc = hostfs_replace_commit(&rep, &err)))
		fprintf(stderr, "sbxctl: %s\n", err.msg);
	return rc;
}

int ctl_write_config(const char *path, const char *text)
{
	struct policy_builder *b = NULL;
	struct policy_ctx ctx = { .home = "/nonexistent", .cwd = "/" };
	struct sbx_err err = { "" };
	char dir[PATH_MAX], bak[NAME_MAX + 1], *old = NULL;
	const char *name;
	int dfd, rc;

	/* never a file sbx-preload would refuse */
	if (policy_builder_new(&ctx, &b))
		return -ENOMEM;
	rc = policy_builder_load_string(b, text, path, POLICY_LAYER_USER, &err);
	policy_builder_free(b);
	if (rc) {
		fprintf(stderr, "sbxctl: internal error: the new file would not load: %s\n",
			err.msg);
		return -EINVAL;
	}
	if ((dfd = open_parent(path, true, &name, dir, sizeof(dir))) < 0)
		return dfd;
	rc = read_at(dfd, name, path, &old);
	if (rc == -ELOOP)
		fprintf(stderr, "sbxctl: %s is a symbolic link; sbxctl does not write "
			"through links (replace it with the file itself)\n", path);
	if (rc && rc != -ENOENT)
		goto out;
	if (old) {
		if ((size_t)snprintf(bak, sizeof(bak), "%s.bak", name) >= sizeof(bak)) {
			rc = -ENAMETOOLONG;
			goto out;
		}
		if ((rc = replace_at(dfd, dir, bak, old, false)))
			goto out;
	}
	rc = replace_at(dfd, dir, name, text, true);
out:
	free(old);
	close(dfd);
	return rc;
}


int ctl_blob_read(int fd, struct ctl_blob *b)
{
	struct stat st;
	size_t need, len = 0;

	*b = (struct ctl_blob){ 0 };
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
	    st.st_size > (64 << 20) || !(b->blob = malloc((size_t)st.st_size)))
		return -EINVAL;
	for (ssize_t n; len < (size_t)st.st_size; len += (size_t)n)
		if ((n = pread(fd, b->blob + len, (size_t)st.st_size - len, (off_t)len)) <= 0)
			break;
	if (len != (size_t)st.st_size || policy_blob_attach_size(b->blob, len, &need) ||
	    !(b->mem = aligned_alloc(_Alignof(max_align_t), (need + 15) & ~(size_t)15)) ||
	    policy_blob_attach(b->blob, len, b->mem, need, &b->p)) {
		ctl_blob_free(b);
		return -EINVAL;
	}
	return 0;
}

void ctl_blob_free(struct ctl_blob *b)
{
	free(b->mem);
	free(b->blob);
	*b = (struct ctl_blob){ 0 };
}
