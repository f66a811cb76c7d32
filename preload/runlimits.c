/* preload/runlimits.c: [limits] pids and memory (runlimits.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "preload/runlimits.h"
#include "preload/preload.h"

/* ---- pure parsers */

int limits_cgroup_path(const char *proc_cgroup, const char *controller, char *out, size_t outsz)
{
	/* lines "ID:CONTROLLERS:PATH"; v2's is "0::PATH" */
	for (const char *l = proc_cgroup; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *c1 = strchr(l, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		const char *end = strchr(l, '\n');
		bool match = false;

		if (!c2 || (end && c2 > end))
			continue;
		if (!*controller) {
			match = c2 == c1 + 1 && !strncmp(l, "0:", 2);
		} else {
			/* a comma-separated list ("cpu,cpuacct") */
			size_t n = strlen(controller);
			for (const char *s = c1 + 1; s < c2; s = strchr(s, ',') ? strchr(s, ',') + 1 : c2) {
				const char *e = memchr(s, ',', (size_t)(c2 - s)) ? memchr(s, ',', (size_t)(c2 - s)) : c2;
				if ((size_t)(e - s) == n && !strncmp(s, controller, n))
					match = true;
				if (e == c2)
					break;
			}
		}
		if (!match)
			continue;
		size_t len = end ? (size_t)(end - c2 - 1) : strlen(c2 + 1);
		if (len == 0 || len >= outsz || c2[1] != '/')
			return -ENOENT;
		memcpy(out, c2 + 1, len);
		out[len] = '\0';
		return 0;
	}
	return -ENOENT;
}

/* The i-th space-separated field of a line (0-based) into out. */
static bool field(const char *line, const char *end, unsigned i, char *out, size_t outsz)
{
	const char *s = line;

	for (unsigned k = 0; k < i; k++) {
		s = memchr(s, ' ', (size_t)(end - s));
		if (!s)
			return false;
		s++;
	}
	const char *e = memchr(s, ' ', (size_t)(end - s));
	size_t n = (size_t)((e ? e : end) - s);
	if (n >= outsz)
		return false;
	memcpy(out, s, n);
	out[n] = '\0';
	return true;
}

/* mountinfo: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [OPTIONAL...] - FSTYPE
 * SOURCE SUPEROPTS". A hierarchy mounted at its own root only: a mount of a
 * subtree (a container's) is found through its root below. */
int limits_mount_point(const char *mountinfo, const char *controller, char *out, size_t outsz)
{
	for (const char *l = mountinfo; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *end = strchr(l, '\n') ? strchr(l, '\n') : l + strlen(l);
		const char *dash = NULL;
		char root[PATH_MAX], point[PATH_MAX], type[32], opts[512];

		for (const char *s = l; s + 2 < end; s++)
			if (s[0] == ' ' && s[1] == '-' && s[2] == ' ') {
				dash = s + 3;
				break;
			}
		if (!dash || !field(l, end, 3, root, sizeof(root)) ||
		    !field(l, end, 4, point, sizeof(point)) || !field(dash, end, 0, type, sizeof(type)) ||
		    !field(dash, end, 2, opts, sizeof(opts)) || strchr(point, '\\') || strcmp(root, "/"))
			continue;
		if (!*controller ? strcmp(type, "cgroup2") : strcmp(type, "cgroup"))
			continue;
		if (*controller) {
			bool found = false;
			char *save = NULL;
			for (char *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save))
				found |= !strcmp(o, controller);
			if (!found)
				continue;
		}
		if (strlen(point) >= outsz)
			return -ENOENT;
		strcpy(out, point);
		return 0;
	}
	return -ENOENT;
}

bool limits_kernel_at_least(const char *release, unsigned major, unsigned minor)
{
	unsigned a = 0, b = 0;

	if (sscanf(release, "%u.%u", &a, &b) != 2)
		return false;
	return a > major || (a == major && b >= minor);
}

/* ---- files */

static int read_small(const char *path, char *buf, size_t bufsz)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, bufsz - 1);
	int e = errno;
	close(fd);
	if (n < 0)
		return -e;
	buf[n] = '\0';
	return 0;
}

/* Write a value into a cgroup file: one write(2), as the kernel wants. */
static int write_file(const char *dir, const char *name, const char *val)
{
	char path[PATH_MAX + 64];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	ssize_t n = write(fd, val, strlen(val));
	int e = n < 0 ? errno : 0;
	close(fd);
	return n < 0 ? -e : 0;
}

static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *s = list; (s = strstr(s, word)); s += n)
		if ((s == list || s[-1] == ' ' || s[-1] == '\n') && (!s[n] || s[n] == ' ' || s[n] == '\n'))
			return true;
	return false;
}

/* The uid map is the identity for 0: the kernel's own root, for which
 * RLIMIT_NPROC is never enforced (copy_process() exempts INIT_USER). */
static bool real_root(void)
{
	char buf[256];
	unsigned inside, outside;

	if (geteuid() != 0)
		return false;
	if (read_small("/proc/self/uid_map", buf, sizeof(buf)))
		return true;
	return sscanf(buf, " %u %u", &inside, &outside) == 2 && inside == 0 && outside == 0;
}

/* Empty cgroups a killed run left ("sbx-<stamp>-<pid>" whose sbx-preload is
 * gone): rmdir fails on one that still holds a process, so nothing live
 * is touched. */
static void sweep(const char *parent)
{
	DIR *d = opendir(parent);
	struct dirent *e;
	char path[PATH_MAX + 300];

	if (!d)
		return;
	while ((e = readdir(d))) {
		const char *dash = strrchr(e->d_name, '-');
		long pid = dash ? strtol(dash + 1, NULL, 10) : 0;
		/* a run whose sbx-preload lives (or whose pid was reused) is
		 * left alone */
		if (strncmp(e->d_name, "sbx-", 4) || pid <= 0 || pid == getpid() ||
		    kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", parent, e->d_name);
		rmdir(path);
	}
	closedir(d);
}

static int make_dir(const char *parent, const char *run_id, char *out, size_t outsz)
{
	if (snprintf(out, outsz, "%s/sbx-%s", parent, run_id) >= (int)outsz)
		return -ENAMETOOLONG;
	sweep(parent);
	if (mkdir(out, 0755)) {
		int e = errno;
		out[0] = '\0';
		return -e;
	}
	return 0;
}

static void size_text(uint64_t v, char *out, size_t outsz)
{
	static const char unit[] = "KMGT";
	int u = -1;

	while (u < 3 && v && v % 1024 == 0) {
		v /= 1024;
		u++;
	}
	if (u < 0)
		snprintf(out, outsz, "%llu", (unsigned long long)v);
	else
		snprintf(out, outsz, "%llu%c", (unsigned long long)v, unit[u]);
}

/* ---- cgroup v2: a cgroup of the run's own, next to ours (a cgroup with
 * processes cannot have controllers for its children, so not below it;
 * beside it, in a parent that gives them, when that parent is writable:
 * root, or a user's delegated subtree), or below ours when ours is the
 * root of the hierarchy (a container's namespace root), which may. */
static int v2_prepare(struct limits *l, const char *run_id)
{
	char mnt[PATH_MAX], self[PATH_MAX], dir[PATH_MAX * 2], parent[PATH_MAX * 2];
	char pc[4096], ctl[256];
	const char *need[2] = { l->pids ? "pids" : NULL, l->memory ? "memory" : NULL };
	static char mi[1 << 16];

	if (read_small("/proc/self/mountinfo", mi, sizeof(mi)) ||
	    limits_mount_point(mi, "", mnt, sizeof(mnt)) ||
	    read_small("/proc/self/cgroup", pc, sizeof(pc)) ||
	    limits_cgroup_path(pc, "", self, sizeof(self)))
		return -ENOENT;
	snprintf(dir, sizeof(dir), "%s%s", mnt, strcmp(self, "/") ? self : "");
	if (!strcmp(self, "/")) {
		snprintf(parent, sizeof(parent), "%s", dir);
	} else {
		snprintf(parent, sizeof(parent), "%s", dir);
		*strrchr(parent, '/') = '\0';
	}
	char sub[PATH_MAX * 2 + 32];
	snprintf(sub, sizeof(sub), "%s/cgroup.subtree_control", parent);
	if (read_small(sub, ctl, sizeof(ctl)))
		return -ENOENT;
	for (int i = 0; i < 2; i++)
		if (need[i] && !has_word(ctl, need[i]))
			return -ENOENT;
	if (access(parent, W_OK))
		return -EACCES;
	int rc = make_dir(parent, run_id, l->pids_dir, sizeof(l->pids_dir));
	if (rc)
		return rc;
	char val[32];
	if (l->pids) {
		snprintf(val, sizeof(val), "%llu", (unsigned long long)l->pids);
		rc = write_file(l->pids_dir, "pids.max", val);
	}
	if (!rc && l->memory) {
		snprintf(val, sizeof(val), "%llu", (unsigned long long)l->memory);
		rc = write_file(l->pids_dir, "memory.max", val);
		/* the limit is the memory's, not a push into swap */
		int e = write_file(l->pids_dir, "memory.swap.max", "0");
		if (!rc && e && e != -ENOENT)
			rc = e;
	}
	if (rc) {
		rmdir(l->pids_dir);
		l->pids_dir[0] = '\0';
		return rc;
	}
	snprintf(l->memory_dir, sizeof(l->memory_dir), "%s", l->pids_dir);
	if (l->pids)
		l->pids_how = LIMIT_CGROUP2;
	if (l->memory)
		l->memory_how = LIMIT_CGROUP2;
	return 0;
}

/* ---- cgroup v1, as root: one cgroup per hierarchy, below ours. */
static int v1_one(const char *controller, const char *run_id, char *out, size_t outsz)
{
	char mnt[PATH_MAX], self[PATH_MAX], parent[PATH_MAX * 2], pc[4096];
	static char mi[1 << 16];

	if (read_small("/proc/self/mountinfo", mi, sizeof(mi)) ||
	    limits_mount_point(mi, controller, mnt, sizeof(mnt)) ||
	    read_small("/proc/self/cgroup", pc, sizeof(pc)) ||
	    limits_cgroup_path(pc, controller, self, sizeof(self)))
		return -ENOENT;
	snprintf(parent, sizeof(parent), "%s%s", mnt, strcmp(self, "/") ? self : "");
	if (access(parent, W_OK))
		return -EACCES;
	return make_dir(parent, run_id, out, outsz);
}

static int v1_prepare(struct limits *l, const char *run_id)
{
	char val[32];
	int rc = 0;

	if (l->pids && !l->pids_dir[0] && !v1_one("pids", run_id, l->pids_dir, sizeof(l->pids_dir))) {
		snprintf(val, sizeof(val), "%llu", (unsigned long long)l->pids);
		if ((rc = write_file(l->pids_dir, "pids.max", val)))
			goto fail;
		l->pids_how = LIMIT_CGROUP1;
	}
	if (l->memory && !l->memory_dir[0] &&
	    !v1_one("memory", run_id, l->memory_dir, sizeof(l->memory_dir))) {
		snprintf(val, sizeof(val), "%llu", (unsigned long long)l->memory);
		if ((rc = write_file(l->memory_dir, "memory.limit_in_bytes", val)))
			goto fail;
		/* memory + swap, where the kernel accounts swap (swapaccount) */
		int e = write_file(l->memory_dir, "memory.memsw.limit_in_bytes", val);
		if (e && e != -ENOENT) {
			rc = e;
			goto fail;
		}
		l->memory_how = LIMIT_CGROUP1;
	}
	return 0;
fail:
	return rc;
}

static void remove_dirs(struct limits *l)
{
	if (l->pids_dir[0])
		rmdir(l->pids_dir);
	if (l->memory_dir[0] && strcmp(l->memory_dir, l->pids_dir))
		rmdir(l->memory_dir);
	l->pids_dir[0] = l->memory_dir[0] = '\0';
}

int limits_prepare(const struct policy *p, const char *run_id, bool dry, struct limits *l)
{
	struct utsname u;
	int rc;

	*l = LIMITS_NONE;
	l->pids = policy_limit(p, SBX_LIMIT_PIDS);
	l->memory = policy_limit(p, SBX_LIMIT_MEMORY);
	l->cpu_seconds = policy_limit(p, SBX_LIMIT_CPU_SECONDS);
	l->nofile = policy_limit(p, SBX_LIMIT_NOFILE);
	if (!l->pids && !l->memory)
		return 0;
	if (!dry) {
		rc = v2_prepare(l, run_id);
		if (rc && rc != -ENOENT && rc != -EACCES && rc != -EPERM && rc != -EROFS)
			return rc;
		if (real_root()) {
			rc = v1_prepare(l, run_id);
			if (rc) {
				remove_dirs(l);
				return rc;
			}
		}
	}
	/* RLIMIT_NPROC is counted per user namespace from Linux 5.14 on (the
	 * sandbox's processes only); before, per user on the whole host, where
	 * it would count the user's other processes too. */
	if (l->pids && !l->pids_how && !real_root() && !uname(&u) &&
	    limits_kernel_at_least(u.release, 5, 14))
		l->pids_how = LIMIT_RLIMIT;
	if (l->pids && !l->pids_how)
		l->pids_how = LIMIT_NONE;
	if (l->memory && !l->memory_how)
		l->memory_how = LIMIT_NONE;
	if (l->pids_how == LIMIT_NONE || l->memory_how == LIMIT_NONE)
		snprintf(l->why_not, sizeof(l->why_not), "%s",
			 l->pids_how == LIMIT_NONE && real_root() ?
			 "no writable cgroup v1 or v2 hierarchy with that controller" :
			 l->pids_how == LIMIT_NONE ?
			 "no writable cgroup, and RLIMIT_NPROC counts the whole user's processes before Linux 5.14" :
			 "no writable cgroup (cgroup v2 delegation, or run as root)");
	return 0;
}

int limits_attach(const struct limits *l, pid_t pid)
{
	char val[32];
	int rc;

	snprintf(val, sizeof(val), "%d", (int)pid);
	if (l->pids_dir[0] && (rc = write_file(l->pids_dir, "cgroup.procs", val)))
		return rc;
	if (l->memory_dir[0] && strcmp(l->memory_dir, l->pids_dir) &&
	    (rc = write_file(l->memory_dir, "cgroup.procs", val)))
		return rc;
	return 0;
}

static const char *how_text(enum limit_how h)
{
	return h == LIMIT_CGROUP2 ? "cgroup v2" : h == LIMIT_CGROUP1 ? "cgroup v1" :
	       h == LIMIT_RLIMIT ? "RLIMIT_NPROC" : "not enforced";
}

void limits_text(const struct limits *l, char *out, size_t outsz)
{
	char mem[32];

	out[0] = '\0';
	size_text(l->memory, mem, sizeof(mem));
	if (l->pids && l->pids_how != LIMIT_NONE)
		snprintf(out, outsz, "pids %llu (%s)", (unsigned long long)l->pids, how_text(l->pids_how));
	if (l->memory && l->memory_how != LIMIT_NONE) {
		size_t n = strlen(out);
		snprintf(out + n, outsz - n, "%smemory %s (%s)", n ? ", " : "", mem,
			 how_text(l->memory_how));
	}
	if (l->cpu_seconds) {
		size_t n = strlen(out);
		snprintf(out + n, outsz - n, "%scpu %llu s (rlimit)", n ? ", " : "",
			 (unsigned long long)l->cpu_seconds);
	}
	if (l->nofile) {
		size_t n = strlen(out);
		snprintf(out + n, outsz - n, "%snofile %llu (rlimit)", n ? ", " : "",
			 (unsigned long long)l->nofile);
	}
}

const char *limits_missing(const struct limits *l)
{
	static char buf[96];
	char mem[32];
	bool m = l->memory && l->memory_how == LIMIT_NONE, pd = l->pids && l->pids_how == LIMIT_NONE;

	if (!m && !pd)
		return NULL;
	size_text(l->memory, mem, sizeof(mem));
	if (m && pd)
		snprintf(buf, sizeof(buf), "memory = %s and pids = %llu", mem, (unsigned long long)l->pids);
	else if (m)
		snprintf(buf, sizeof(buf), "memory = %s", mem);
	else
		snprintf(buf, sizeof(buf), "pids = %llu", (unsigned long long)l->pids);
	return buf;
}

uint64_t limits_nproc(const struct limits *l)
{
	return l->pids_how == LIMIT_RLIMIT ? l->pids : 0;
}

/* "KEY N" in a flat-keyed cgroup file; 0 when absent. */
static unsigned long long counter(const char *dir, const char *file, const char *key)
{
	char path[PATH_MAX + 64], buf[1024];
	size_t n = strlen(key);

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (read_small(path, buf, sizeof(buf)))
		return 0;
	for (char *s = buf; s && *s; s = strchr(s, '\n') ? strchr(s, '\n') + 1 : NULL)
		if (!strncmp(s, key, n) && s[n] == ' ')
			return strtoull(s + n + 1, NULL, 10);
	return 0;
}

/* bubblewrap exits once the sandbox's pid 1 has (and with it, every
 * process of the namespace: the kernel reaps them all before pid 1 is
 * gone). 5 s at most; after that the cgroups stay, empty once the last
 * process goes, and the next run removes them. */
static void wait_bwrap(pid_t *bwrap)
{
	struct timespec ms = { 0, 1000000 };

	for (int i = 0; *bwrap > 0 && i < 5000; i++) {
		pid_t r = waitpid(*bwrap, NULL, WNOHANG);
		if (r == *bwrap || (r < 0 && errno == ECHILD)) {
			*bwrap = -1;
			break;
		}
		nanosleep(&ms, NULL);
	}
}

void limits_finish(struct limits *l, pid_t *bwrap)
{
	char mem[32];

	if (!l->pids_dir[0] && !l->memory_dir[0])
		return;
	wait_bwrap(bwrap);
	size_text(l->memory, mem, sizeof(mem));
	if (l->memory_dir[0]) {
		unsigned long long k = counter(l->memory_dir, l->memory_how == LIMIT_CGROUP2 ?
					       "memory.events" : "memory.oom_control", "oom_kill");
		if (k)
			msg("[limits] memory = %s was reached: the kernel killed %llu process%s of the "
			    "sandbox for memory", mem, k, k == 1 ? "" : "es");
	}
	if (l->pids_dir[0]) {
		unsigned long long k = counter(l->pids_dir, "pids.events", "max");
		if (k)
			msg("[limits] pids = %llu was reached: %llu fork%s refused", (unsigned long long)l->pids,
			    k, k == 1 ? " was" : "s were");
	}
	remove_dirs(l);
}
