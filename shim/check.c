/* shim/check.c: the check every wrapper makes (check.h). A path is made
 * absolute (core.c; a kept directory descriptor's path from dirfds.c),
 * judged by policy_check_path(), followed through its symlinks before a
 * refusal (resolve.c), and refused with a report (core.c) and, when the
 * run asks, a line on the program's stderr (tell.c); after the real call
 * a refusal by the kernel is explained the same way.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "shim/check.h"
#include "shim/decided.h"
#include "shim/dirfds.h"
#include "shim/resolve.h"
#include "shim/tell.h"

static enum wire_op wire_of(enum sbx_op op)
{
	return op == SBX_OP_WRITE ? WIRE_WRITE : op == SBX_OP_EXEC ? WIRE_EXEC : WIRE_READ;
}

/* /dev and /proc inside the sandbox are its own: writes there are the
 * kernel's business, not a policy question. */
static bool kernel_fs(const char *abs)
{
	return !strncmp(abs, "/dev", 4) ? (abs[4] == '/' || !abs[4]) :
	       !strncmp(abs, "/proc", 5) ? (abs[5] == '/' || !abs[5]) : false;
}

/* A device node other than the few every sandbox gives: refused by the
 * boundary only in the nested mode, where the host's /dev is there (the
 * person's terminals among it: landlock_spec_dev), so explained after the
 * kernel's refusal, never refused here. /dev/shm holds files. */
static bool device_node(const char *abs)
{
	return !strncmp(abs, "/dev/", 5) && strncmp(abs, "/dev/shm/", 9) && strcmp(abs, "/dev/shm");
}

/* A write refused only by a name rule that holds at any depth (`.env`,
 * `.git/hooks/`): the boundary guards those where they exist (and at the
 * top of the workspace and HOME even before they do), and a `git init`
 * inside the sandbox may create a fresh `.git`. The shim lets the kernel
 * answer and explains a refusal afterwards, so it never refuses what the
 * boundary allows. */
static bool deferred(enum sbx_op op, const struct sbx_rule *why)
{
	return op == SBX_OP_WRITE && why && why->pat == SBX_PAT_ANYWHERE &&
	       (why->kind == SBX_RULE_MANDATORY || why->kind == SBX_RULE_DENY_WRITE);
}

/* ... except where the boundary cannot guard the name before it exists
 * and the shim is what refuses (docs/POLICY.md, "Stand-ins"): a protected
 * name made at the top of the workspace or of HOME, where a stand-in would
 * show in `git status` and every listing, and `.git/commondir` anywhere (no
 * git command makes one beside a repository's own hooks; a stand-in there
 * would break git). A static binary gets past this until seccomp notify
 * refuses these in the supervisor. */
static bool shim_guards(const char *abs, const struct sbx_rule *why)
{
	const char *roots[2] = { policy_workspace(shim_policy()), policy_home(shim_policy()) };
	size_t al = strlen(abs), nl = strlen(why->pattern);

	if (al > 15 && !strcmp(abs + al - 15, "/.git/commondir"))
		return true;
	/* `.git/hooks` and `.git/config` are guarded by the boundary in a
	 * repository that existed at start (a stand-in where missing), and a
	 * `git init` or `git clone` inside must be able to make them */
	if (!strncmp(why->pattern, ".git/", 5))
		return false;
	for (size_t i = 0; i < 2; i++) {
		size_t rl = roots[i] ? strlen(roots[i]) : 0;
		if (rl && rl + 1 + nl == al && !strncmp(abs, roots[i], rl) && abs[rl] == '/' &&
		    !strcmp(abs + rl + 1, why->pattern))
			return true;
	}
	return false;
}

static int deny_errno(enum sbx_op op, const struct sbx_rule *why)
{
	if (op == SBX_OP_EXEC)
		return EPERM;
	if (op == SBX_OP_READ || (why && why->kind == SBX_RULE_DENY_READ))
		return EACCES;
	return EROFS;
}

/* Is it there? Only a plain ENOENT says no (a masked path's EACCES
 * does not). errno is the caller's to keep. */
static bool exists(const char *abs)
{
	struct stat st;

	return shim_sys_fstatat(AT_FDCWD, abs, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
	       errno != ENOENT;
}

/* Like exists(), through links: a protected link to nothing (`.env ->
 * .env.local`) is a name that a write would create. */
static bool exists_at_end(const char *abs)
{
	struct stat st;

	return shim_sys_fstatat(AT_FDCWD, abs, &st, 0) == 0 || errno != ENOENT;
}

/* A refusal; a directory being made is said with a trailing `/`. The
 * program hears it too when the run asks (tell.c), after the report: a
 * wait for room on the program's stderr never delays the person's line. */
static void report_denied(enum sbx_op op, const char *target, int how, int err,
			  bool by_policy)
{
	char dir[PATH_MAX];
	const char *said = target;
	size_t n = strlen(target);

	if ((how & HOW_DIR) && n > 1 && n + 2 <= sizeof(dir)) {
		memcpy(dir, target, n);
		memcpy(dir + n, "/", 2);
		said = dir;
	}
	shim_report(WIRE_DENY, wire_of(op), said, err);
	shim_tell(op, target, how & HOW_DIR, by_policy);
}

/* (dirfd, path) made absolute, the quick way: a directory descriptor's
 * path from dirfds.c when the shim saw it opened (enforcing only: a
 * report of an allowed access must name the real path). *hinted says
 * that it came from there, to be asked of the kernel before a refusal. */
static int abspath_quick(int dirfd, const char *path, char *out, size_t outsz, bool *hinted)
{
	char base[SHIM_DIRFD_PATH];

	*hinted = false;
	if (path[0] != '/' && dirfd >= 0 && shim_mode() == SHIM_ENFORCE &&
	    shim_dirfd_path(dirfd, base, sizeof(base)) == 0) {
		*hinted = true;
		return path_join(base, path, out, outsz) ? -1 : 0;
	}
	return shim_abspath(dirfd, path, out, outsz);
}

/* A read of one name (no `/`, not `..`: it stays in the directory) in a
 * directory descriptor dirfds.c marked clear of deny_read rules; only
 * while enforcing (the marks are made only then, and --trace and --learn
 * report reads by name). */
static bool in_clear_dir(int dirfd, const char *path, enum sbx_op op)
{
	if (op != SBX_OP_READ || dirfd < 0 || (path[0] == '.' && path[1] == '.' && !path[2]))
		return false;
	for (const char *p = path; *p; p++)
		if (*p == '/')
			return false;
	return *path && shim_dirfd_read_clear(dirfd);
}

/* Does abs, its symlinks followed, lead where the policy allows? *why is
 * then the rule for where it leads. (Its own frame: the buffer is needed
 * only for a path the policy refuses as written.) */
static __attribute__((noinline)) bool allowed_when_resolved(enum sbx_op op, const char *abs,
							    int how, const struct sbx_rule **why)
{
	char real[PATH_MAX];

	shim_resolve(abs, !(how & HOW_NOFOLLOW), real, sizeof(real));
	if (!strcmp(real, abs))
		return false;
	if (policy_check_path(shim_policy(), op, real, why) == SBX_ALLOW || deferred(op, *why)) {
		if (shim_mode() != SHIM_ENFORCE)
			shim_trace(wire_of(op), real);
		return true;
	}
	return false;
}

int shim_check(struct pending *pd, int dirfd, const char *path,
	       enum sbx_op op, int how)
{
	return shim_check_open(pd, dirfd, path, op, how, NULL, 0);
}

int shim_check_open(struct pending *pd, int dirfd, const char *path,
		    enum sbx_op op, int how, char *absout, size_t absoutsz)
{
	char abs[PATH_MAX];
	const struct sbx_rule *why;
	int saved = *shim_errno(), rc = 0;
	bool hinted = false, busy;
	size_t rawlen = 0, alen;

	pd->active = false;
	pd->learn = false;
	if (absout && absoutsz)
		absout[0] = '\0';
	if (!path || (!*path && (how & HOW_EMPTY_OK)) || !shim_enter())
		return 0;
	pd->dirfd = dirfd;
	pd->path = path;
	pd->op = op;
	pd->how = how;
	/* a read of one name in a kept directory that no deny_read rule can
	 * reach (dirfds.c): nothing to judge, not even the path to make.
	 * Still looked at after a failure: a kernel's refusal is explained */
	if (in_clear_dir(dirfd, path, op) && !absoutsz) {
		pd->active = true;
		goto out;
	}
	/* A busy thread asks decided.c first: the policy's answers do not
	 * change, and a path it allowed before is allowed again. An absolute
	 * path as written is looked up before it is made absolute: the paths
	 * remembered are normal, so one equal to it is its own absolute form. */
	busy = shim_checks_made >= SHIM_BUSY;
	if (!busy)
		shim_checks_made++;
	if (busy && path[0] == '/') {
		rawlen = strlen(path);
		if (shim_decided(op, path, rawlen)) {
			if (absout && rawlen < absoutsz)
				memcpy(absout, path, rawlen + 1);
			pd->active = true;
			if (shim_mode() != SHIM_ENFORCE)
				shim_trace(wire_of(op), path);
			goto out;
		}
	}
	if (!*path || abspath_quick(dirfd, path, abs, sizeof(abs), &hinted))
		goto out;
again:
	if (absout && strlen(abs) < absoutsz)
		strcpy(absout, abs);
	if (hinted && in_clear_dir(dirfd, path, op)) {
		pd->active = true;
		goto out;
	}
	if (op == SBX_OP_WRITE && kernel_fs(abs)) {
		pd->active = device_node(abs); /* explained after a refusal only */
		goto out;
	}
	pd->active = true;
	alen = busy ? strlen(abs) : 0;
	/* (an absolute path that was normal as written was looked up above) */
	if (busy && !(path[0] == '/' && alen == rawlen) && shim_decided(op, abs, alen)) {
		if (shim_mode() != SHIM_ENFORCE)
			shim_trace(wire_of(op), abs);
		goto out;
	}
	if (policy_check_path(shim_policy(), op, abs, &why) == SBX_ALLOW) {
		if (busy)
			shim_decided_put(op, abs, alen);
		if (shim_mode() != SHIM_ENFORCE)
			shim_trace(wire_of(op), abs);
		goto out;
	}
	if (hinted) {
		/* the policy would refuse it: ask the kernel where the
		 * descriptor really points before acting on a kept path */
		hinted = false;
		if (shim_abspath(dirfd, path, abs, sizeof(abs))) {
			pd->active = false;
			goto out;
		}
		goto again;
	}
	bool guard = deferred(op, why);
	if (guard && (exists_at_end(abs) || !shim_guards(abs, why)))
		goto out;
	/* Denied as written: follow the symlinks before refusing, so a link
	 * that really points somewhere allowed is never refused (but a name
	 * the shim guards is refused as written: through a link to nothing,
	 * the write would make it). */
	if (!guard && allowed_when_resolved(op, abs, how, &why))
		goto out;
	if (!guard && op == SBX_OP_WRITE && (how & (HOW_CREATE | HOW_EXISTING)) &&
	    ((how & HOW_CREATE) ? exists(abs) : !exists(abs)))
		goto out; /* the kernel's EEXIST / ENOENT, as the boundary gives */
	pd->active = false;
	if (shim_mode() == SHIM_LEARN) {
		pd->learn = true;
		goto out;
	}
	rc = deny_errno(op, why);
	report_denied(op, abs, how, rc, true);
out:
	shim_leave();
	*shim_errno() = saved;
	return rc;
}

/* A directory name the boundary guards with a placeholder file (`.vscode`
 * before it exists): making it fails with EEXIST, writing in it with
 * ENOTDIR. Those are refusals too, when the policy denies the path. */
static bool placeholder_refusal(int err, const char *real, const struct sbx_rule *why)
{
	struct stat st;

	if (err == ENOTDIR)
		return why && why->is_dir; /* `.vscode/x` with `.vscode` ours */
	return err == EEXIST && why && why->is_dir &&
	       shim_sys_fstatat(AT_FDCWD, real, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       !S_ISDIR(st.st_mode);
}

/* A directory holding something. rmdir() of one the sandbox keeps in
 * place (a mount point: it holds a protected path) says EBUSY, where the
 * kernel would say ENOTEMPTY without the sandbox: `git gc` prunes
 * `.git/worktrees` that way on every run, and expects ENOTEMPTY quietly. */
static bool dir_has_entries(const char *abs)
{
#if SHIM_RAW_SYSCALLS
	char buf[512];
	long n, fd = sys_call(SYS_openat, AT_FDCWD, abs,
			      O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	bool any = false;

	if (fd < 0)
		return false;
	while (!any && (n = sys_call(SYS_getdents64, fd, buf, sizeof(buf))) > 0)
		for (long off = 0; off < n && !any;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			any = strcmp(d->d_name, ".") && strcmp(d->d_name, "..");
			off += d->d_reclen;
		}
	sys_call(SYS_close, fd);
	return any;
#else
	/* Seatbelt mounts nothing: an EBUSY there is the kernel's own (a
	 * mount point), not one to put back as ENOTEMPTY */
	(void)abs;
	return false;
#endif
}

/* Does the policy deny one of a call's names (a rename's destination)?
 * Then that name is why the call was refused, not the others. */
static bool a_name_denied(const struct pending *pd, int n)
{
	char abs[PATH_MAX];
	bool any = false;

	if (n < 2 || !shim_enter())
		return false;
	for (int i = 0; i < n && !any; i++)
		any = (pd[i].active || pd[i].learn) &&
		      shim_abspath(pd[i].dirfd, pd[i].path, abs, sizeof(abs)) == 0 &&
		      policy_check_path(shim_policy(), pd[i].op, abs, NULL) == SBX_DENY;
	shim_leave();
	return any;
}

void shim_after(const struct pending *pd, int n, bool failed)
{
	int err = errno;
	/* EBUSY: a rename or unlink of a file the sandbox bound read-only
	 * in place (a submodule's git config) */
	bool refused = failed && (err == EACCES || err == EPERM || err == EROFS ||
				  err == ENOTDIR || err == EEXIST || err == EBUSY);
	/* git's `rename(.gitconfig.lock, .gitconfig)`: the lock file it
	 * made is not what was refused, and "it did not exist when the
	 * sandbox started" would be said of it */
	bool other_denied = refused && (err == EROFS || err == EBUSY) && a_name_denied(pd, n);

	for (int i = 0; i < n; i++) {
		char abs[PATH_MAX], real[PATH_MAX];
		const struct sbx_rule *why;

		/* --learn: what the policy would refuse and the call did */
		if (pd[i].learn && !failed) {
			if (shim_enter()) {
				if (shim_abspath(pd[i].dirfd, pd[i].path, abs, sizeof(abs)) == 0)
					shim_report(WIRE_LEARN, wire_of(pd[i].op), abs, 0);
				shim_leave();
			}
			continue;
		}
		/* what the kernel refused: the boundary's doing, explained */
		if (!refused || !(pd[i].active || pd[i].learn) ||
		    (err == EBUSY && i < n - 1) /* a rename's source is not it */ ||
		    !shim_enter())
			continue;
		bool have = shim_abspath(pd[i].dirfd, pd[i].path, abs, sizeof(abs)) == 0;
		if (have && err == EBUSY && n == 1 && (pd[i].how & HOW_EXISTING) &&
		    dir_has_entries(abs)) {
			err = ENOTEMPTY; /* what it is without the sandbox too */
		} else if (have &&
		    !(pd[i].op == SBX_OP_WRITE && (pd[i].how & HOW_EXISTING) && !exists(abs))) {
			/* the path as the program wrote it, when the policy
			 * denies that (`.bashrc`, also when it is a link the
			 * boundary guards at its target); else where it leads */
			const char *target = abs;
			bool denied = policy_check_path(shim_policy(), pd[i].op, abs, &why) == SBX_DENY;
			if (!denied) {
				shim_resolve(abs, !(pd[i].how & HOW_NOFOLLOW), real, sizeof(real));
				target = real;
				denied = policy_check_path(shim_policy(), pd[i].op, real, &why) == SBX_DENY;
			}
			if (err == ENOTDIR || err == EEXIST)
				denied = denied && pd[i].op == SBX_OP_WRITE &&
					 placeholder_refusal(err, target, why);
			/* a device the sandbox does not give (the person's
			 * terminal by name): the supervisor says why */
			if (device_node(target)) {
				if (err == EACCES)
					report_denied(pd[i].op, target, pd[i].how, err, false);
				shim_leave();
				continue;
			}
			/* a write the policy allows but the kernel refused is
			 * reported too: the supervisor says why (a writable path
			 * that did not exist at start cannot be bound; the nested
			 * mode refuses every extended attribute) */
			if (denied || (pd[i].op == SBX_OP_WRITE && (err == EROFS || err == EBUSY ||
								    (err == EPERM && (pd[i].how & HOW_ATTR))) &&
				       !other_denied && !kernel_fs(target)))
				report_denied(pd[i].op, target, pd[i].how, err, denied);
		}
		shim_leave();
	}
	errno = err;
}
