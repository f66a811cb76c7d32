/* preload/main.c: sbx-preload — build the policy, then the boundary, then run. */
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "net/net.h"
#include "preload/notify/notify.h"
#include "preload/gitprov.h"
#include "common/guard.h"
#include "common/hostfs.h"
#include "preload/mode.h"
#include "backend/linux/mountids.h"
#include "backend/linux/nested.h"
#include "backend/linux/process.h"
#include "preload/standin.h"
#include "common/elfcheck.h"
#include "preload/profile.h"
#include "preload/preload.h"
#include "preload/runlimits.h"
#include "preload/config.h"
#include "common/probe.h"
#include "preload/walkrec.h"

extern char **environ;

static void say_advice(void *ctx, const char *line)
{
	msg("%s", line);
}

static void held_back_undo(void);

/* COMMAND as it is, and nothing else: nothing made for the sandbox
 * outlives the exec. `sb` may be NULL (nothing spawned). */
static int unsandboxed(const struct options *o, struct sandbox *sb, const char *why)
{
	/* bubblewrap is started before the policy is known (main()); left
	 * running, it ran beside COMMAND (`sbxctl disable`: "bwrap: execvp
	 * .../sbx-init" at every run). The caller's descriptors held back
	 * from it go to COMMAND as they came. */
	if (sb && sb->sfd >= 0)
		sandbox_abort(sb);
	held_back_undo();
	return start_unsandboxed(o->command, why);
}

/* A path for a message: HOME as `~`, every control byte and invalid UTF-8
 * escaped (names in the workspace are the program's choice). */
static void shown_path(const char *path, const char *home, char *out, size_t outsz)
{
	char tmp[PATH_MAX];

	sbx_path_tildify(path, home, tmp, sizeof(tmp));
	report_printable(tmp, out, outsz, true);
}

/* COMMAND itself static (Go, Rust with musl, codex): the shim never loads,
 * so what the sandbox refuses it fails without a line here. Said once. */
static void note_static_command(const struct options *o, bool use_shim, const char *home,
				struct reports *reports)
{
	char found[PATH_MAX], shown[PATH_MAX * 4], text[PATH_MAX * 4 + 512];
	const char *cmd = o->command[0];

	if (!use_shim)
		return;
	if (!strchr(cmd, '/')) {
		if (!elf_find_in_path(cmd, found, sizeof(found)))
			return;
		cmd = found;
	}
	if (!elf_is_static(AT_FDCWD, cmd))
		return;
	shown_path(cmd, home, shown, sizeof(shown));
	snprintf(text, sizeof(text),
		 "%s is a static binary: the shim cannot see inside it, so what the "
		 "sandbox refuses it fails without an explanation here; the boundary's "
		 "mounts, network and seccomp rules hold for it, the shim's own checks "
		 "(protected names in directories made during the run) do not", shown);
	msg("note: %s", text);
	if (reports)
		reports_notice(reports, "static-command", text);
}

/* Say, once and without -v, what the policy asks for that this build
 * cannot give. */
static int pending_notes(const struct policy *p)
{
	size_t n;
	const char *nenv = getenv("SBX_NOTIFY");

	policy_rules(p, SBX_RULE_ALLOW_UNIX_SOCKET, &n);
	if (n && !policy_allow_all_unix_sockets(p) && nenv && !strcmp(nenv, "off"))
		msg("unix sockets stay blocked: allow_unix_sockets needs the seccomp "
		    "notify layer, which SBX_NOTIFY=off turns off");
	return 0;
}

/* What the shim needs from us: the policy (a sealed memfd), the report
 * pipe, the shared counters page, and where the library is. */
struct shim_setup {
	int policy_fd, report_rd, report_wr, counters_fd;
	unsigned long *counters; /* [0]: reports dropped */
	char lib[PATH_MAX];
	char spec[PATH_MAX + 256];
};

static int shim_prepare(const struct policy *p, enum reports_mode mode, unsigned http_port,
			unsigned socks_port, struct shim_setup *s)
{
	void *blob = NULL;
	size_t len = 0, off = 0;
	int fds[2];

	if (policy_to_blob(p, &blob, &len))
		return -ENOMEM;
	s->policy_fd = memfd_create("sbx-policy", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (s->policy_fd < 0)
		goto fail;
	while (off < len) {
		ssize_t n = write(s->policy_fd, (char *)blob + off, len - off);
		if (n <= 0)
			goto fail;
		off += (size_t)n;
	}
	free(blob);
	blob = NULL;
	/* Nobody, not even we, changes it from now on. */
	if (fcntl(s->policy_fd, F_ADD_SEALS,
		  F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL))
		goto fail;
	/* Sealed against shrinking: COMMAND can open it read-write through
	 * the holder (same user), and a page cut from under a mapping is
	 * SIGBUS at the next touch, ours at the end of the run included. */
	s->counters_fd = memfd_create("sbx-counters", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (s->counters_fd < 0 || ftruncate(s->counters_fd, 4096) ||
	    fcntl(s->counters_fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL))
		goto fail;
	s->counters = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, s->counters_fd, 0);
	if (s->counters == MAP_FAILED) {
		s->counters = NULL;
		goto fail;
	}
	if (pipe2(fds, O_CLOEXEC))
		goto fail;
	s->report_rd = fds[0];
	s->report_wr = fds[1];
	/* Write-only, even to its owner: a program inside opens the write
	 * end as /proc/<holder>/fd/N, and the same path opened for reading
	 * would be a second reader taking other processes' lines before we
	 * do (COMMAND holds no capability to pass the mode; the notify
	 * layer refuses changing it back: notify_set_report). */
	if (fchmod(s->report_wr, S_IWUSR))
		goto fail;
	/* a deep pipe, so a burst of reports does not drop (best effort:
	 * fs.pipe-max-size may be lower for an unprivileged user) */
	fcntl(s->report_wr, F_SETPIPE_SZ, 1 << 20);
	if (fcntl(s->report_rd, F_SETFL, O_NONBLOCK))
		goto fail;
	/* spec holds lib (shorter than PATH_MAX) and at most 60 bytes more:
	 * never cut. sbx-init adds the descriptors' numbers and the holder's pid; with
	 * the proxy, the shim carries connects that ignore the proxy variables
	 * through its SOCKS5 listener (shim/net.c) */
	snprintf(s->spec, sizeof(s->spec), "1;mode=%s;lib=%s",
		 mode == REPORTS_LEARN ? "learn" : mode == REPORTS_TRACE ? "trace" : "enforce",
		 s->lib);
	if (net_run_proxied(p, mode == REPORTS_LEARN))
		snprintf(s->spec + strlen(s->spec), sizeof(s->spec) - strlen(s->spec),
			 ";socks=%u;http=%u", socks_port ? socks_port : SBX_PROXY_SOCKS_PORT,
			 http_port ? http_port : SBX_PROXY_HTTP_PORT);
	/* [report] tell_program: the refused program hears it too (shim/tell.c;
	 * a learning run refuses nothing) */
	if (policy_tell_program(p) && mode != REPORTS_LEARN)
		snprintf(s->spec + strlen(s->spec), sizeof(s->spec) - strlen(s->spec), ";tell=1");
	return 0;
fail:
	free(blob);
	return -errno;
}

static void shim_release(struct shim_setup *s)
{
	int *fds[] = { &s->policy_fd, &s->report_rd, &s->report_wr, &s->counters_fd };

	for (size_t i = 0; i < 4; i++)
		if (*fds[i] >= 0) {
			close(*fds[i]);
			*fds[i] = -1;
		}
	if (s->counters)
		munmap(s->counters, 4096);
	s->counters = NULL;
}

/* The whole command line, shell-quoted: on stdout for --print, else as a
 * --debug message. */
static void print_line(const struct plan *pl, bool debug)
{
	static char line[1 << 20];

	line[0] = '\0';
	for (size_t i = 0; i < pl->argv.n; i++) {
		if (i)
			strncat(line, " ", sizeof(line) - strlen(line) - 1);
		shell_quote(pl->argv.v[i], line, sizeof(line));
	}
	if (debug)
		dmsg("%s", line);
	else
		printf("%s\n", line);
}

/* Is `path` below a writable root of p (the private /tmp aside)? */
static bool writable_inside(const struct policy *p, const char *path)
{
	size_t n;
	const struct sbx_rule *const *w = policy_rules(p, SBX_RULE_ALLOW_WRITE, &n);

	if (sbx_path_under(path, "/tmp"))
		return false;
	for (size_t i = 0; i < n; i++)
		if (policy_rule_matches(w[i], path))
			return true;
	return false;
}

static void said_removed(void *ctx, const char *path, const char *run)
{
	char shown[PATH_MAX * 4], run_shown[256];

	shown_path(path, ctx, shown, sizeof(shown));
	report_printable(run, run_shown, sizeof(run_shown), true);
	msg("removed the stand-in %s (left by run %s, which was killed)", shown, run_shown);
}

/* A protected name the boundary could not guard before it existed (no
 * stand-in at the top of a workspace) was made: the shim refuses that, so
 * a program it does not see (a static binary, a raw system call) did. */
struct appeared_ctx {
	const char *home;
	const struct notify *notify;
};

static void said_appeared(void *ctx, const char *path)
{
	const struct appeared_ctx *a = ctx;
	char shown[PATH_MAX * 4];

	/* a repository the run made is named as such by notify_finish():
	 * its config and hooks are the run's, and the notify layer saw them
	 * made (the shim does not explain what it lets through) */
	if (notify_made_repo(a->notify, path))
		return;
	shown_path(path, a->home, shown, sizeof(shown));
	msg("%s appeared during the run although it is protected: a program the "
	    "shim does not see (a static binary?) made it; review it before an "
	    "editor, agent or shell uses it", shown);
}

/* --cleanup: what killed runs left, removed; nothing else touched. */
static int cleanup_only(const char *home)
{
	char dir[PATH_MAX];
	int fd, n;

	if (config_own_dir(home, "XDG_STATE_HOME", ".local/state/sbx", dir, sizeof(dir))) {
		msg("cleanup: cannot tell sbx's state directory");
		return SBX_EXIT_SETUP;
	}
	fd = start_state_open(dir, 0);
	if (fd == -ENOENT) {
		info("cleanup: no stand-in left by a killed run");
		return 0;
	}
	n = fd < 0 ? fd : standins_cleanup(fd, said_removed, (void *)home);
	if (fd >= 0)
		close(fd);
	if (n == -ETIMEDOUT)
		msg("cleanup: another process has held the lock of %s/standins for %d s; "
		    "try again", dir, STANDIN_LOCK_WAIT_MS / 1000);
	else if (n < 0)
		msg("cleanup: cannot read the stand-in records in %s: %s", dir, strerror(-n));
	if (n < 0)
		return SBX_EXIT_SETUP;
	if (n == 0)
		info("cleanup: no stand-in left by a killed run");
	return 0;
}

/* The entries of /proc/self/fd, read into a buffer on the stack: this
 * runs before bubblewrap is started, where opendir()'s allocation (the
 * first of the process: musl maps and unmaps memory for it) is time on
 * the way to COMMAND. Calls fn for each number. */
static void each_open_fd(const struct options *o, void (*fn)(const struct options *o, long fd))
{
	/* getdents64(2)'s records (no libc declares them alike) */
	struct linux_dirent64 {
		uint64_t d_ino;
		int64_t d_off;
		unsigned short d_reclen;
		unsigned char d_type;
		char d_name[];
	};
	char buf[4096] __attribute__((aligned(8)));
	int self = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	long n;

	if (self < 0)
		return; /* no /proc: nothing to list, and a fresh /proc inside */
	while ((n = syscall(SYS_getdents64, self, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct linux_dirent64 *e = (struct linux_dirent64 *)(buf + off);
			char *end;
			long fd = strtol(e->d_name, &end, 10);
			off += e->d_reclen;
			if (!*end && end != e->d_name && fd >= 3 && fd != self)
				fn(o, fd);
		}
	}
	close(self);
}

/* Descriptors the caller gave us that would open the host's tree from
 * inside (a directory or O_PATH descriptor: `openat(fd, ".bashrc")` on the
 * host's writable mount, past every read-only bind) are not passed on,
 * unless --keep-fd names them; they are marked close-on-exec here, before
 * bubblewrap is started, so no process of the sandbox ever holds them.
 * Nor is a terminal past stdio (`3<>/dev/tty`): the sandbox has a terminal
 * of its own (relay.c), and a program holding the person's reads what is
 * typed there whenever it likes (not its controlling terminal: no job
 * control stops it). stdio, pipes, sockets and plain files pass
 * untouched. */
enum held_kind { HELD_DIR, HELD_PATH, HELD_TTY };
static struct held {
	long fd;
	enum held_kind kind;
} *held;           /* marked close-on-exec */
static size_t nheld;

static void held_say(long fd, enum held_kind kind)
{
	if (kind == HELD_TTY)
		msg("descriptor %ld (a terminal) is not passed into the sandbox: a program "
		    "holding it reads what is typed there (the sandbox has a terminal of "
		    "its own; --keep-fd %ld passes it)", fd, fd);
	else
		msg("descriptor %ld (%s) is not passed into the sandbox: it would open "
		    "the host's files past the boundary (--keep-fd %ld passes it)", fd,
		    kind == HELD_DIR ? "a directory" : "an O_PATH descriptor", fd);
}

static void hold_back_fd(const struct options *o, long fd)
{
	struct stat st;
	bool keep = false, tty = false;
	int fl = fcntl((int)fd, F_GETFD), acc = fcntl((int)fd, F_GETFL);
	if (fl < 0 || (fl & FD_CLOEXEC) || fstat((int)fd, &st))
		return;
	if (S_ISCHR(st.st_mode))
		tty = isatty((int)fd);
	if (!tty && !S_ISDIR(st.st_mode) && !(acc >= 0 && (acc & O_PATH) == O_PATH))
		return;
	for (size_t i = 0; i < o->nkeep_fds; i++)
		keep |= o->keep_fds[i] == fd;
	if (keep) {
		vmsg("descriptor %ld passed into the sandbox (--keep-fd)", fd);
		return;
	}
	fcntl((int)fd, F_SETFD, fl | FD_CLOEXEC);
	/* said once a sandbox is sure to run (held_back_say), given back
	 * when none does (held_back_undo) */
	enum held_kind kind = tty ? HELD_TTY : S_ISDIR(st.st_mode) ? HELD_DIR : HELD_PATH;
	struct held *h = realloc(held, (nheld + 1) * sizeof(*held));
	if (!h) {
		held_say(fd, kind);
		return;
	}
	held = h;
	held[nheld++] = (struct held){ fd, kind };
}

static void held_back_say(void)
{
	for (size_t i = 0; i < nheld; i++)
		held_say(held[i].fd, held[i].kind);
}

static void held_back_undo(void)
{
	for (size_t i = 0; i < nheld; i++) {
		int fl = fcntl((int)held[i].fd, F_GETFD);
		if (fl >= 0)
			fcntl((int)held[i].fd, F_SETFD, fl & ~FD_CLOEXEC);
	}
	free(held);
	held = NULL;
	nheld = 0;
}

static void hold_back_fds(const struct options *o)
{
	each_open_fd(o, hold_back_fd);
}

/* bubblewrap cannot make namespaces on this machine and fallback = warn:
 * sbx-preload again, in the nested mode (SBX_NESTED=auto), rather than no
 * sandbox. Nothing of this attempt ran; its stand-ins are removed. Returns
 * only when the exec failed. */
/* mode_decide() at one stage, its words in text. */
static struct mode_choice decide(struct mode_facts *f, enum mode_stage stage,
				 const struct mode_words *w, char *text, size_t textsz)
{
	f->stage = stage;
	struct mode_choice c = mode_decide(f);
	mode_text(c, f, w, text, textsz);
	return c;
}

/* mode_facts.probe: can bubblewrap (ctx, its path) make namespaces here */
static enum bwrap_probe probe_bwrap(void *ctx)
{
	return bwrap_probe(ctx);
}

static void restart_nested(const struct options *o, char **argv)
{
	msg("bubblewrap cannot make namespaces on this machine: starting again in the "
	    "nested mode (Landlock), as fallback = warn allows");
	fflush(NULL);
	if (o->report_fd > STDERR_FILENO)
		fcntl(o->report_fd, F_SETFD, 0);
	setenv("SBX_NESTED", "auto", 1);
	guard_restore(); /* or the next one takes them for the caller's */
	execv("/proc/self/exe", argv);
	msg("cannot start sbx-preload again: %s", strerror(errno));
}

/* host_ports relays the sandbox's 127.0.0.1:N to the host's: N cannot be
 * one of the ports sbx-init listens on for the proxy itself (under
 * bubblewrap; the nested mode's are the host's, elsewhere). Said before
 * anything runs, with what to do, rather than as sbx-init's "Address in
 * use" after a hint about user namespaces that does not apply. */
static bool host_port_is_ours(const struct policy *p)
{
	static const struct {
		unsigned port;
		const char *what, *var, *chain;
	} ours[] = {
		{ SBX_PROXY_HTTP_PORT, "HTTP", "HTTP_PROXY", "http_proxy_port" },
		{ SBX_PROXY_SOCKS_PORT, "SOCKS5", "ALL_PROXY", "socks_proxy_port" },
	};
	size_t n;
	const struct sbx_rule *const *rs = policy_rules(p, SBX_RULE_HOST_PORT, &n);

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < sizeof(ours) / sizeof(ours[0]); k++) {
			char *end;
			unsigned long v = strtoul(rs[i]->value, &end, 10);
			if (*end || v != ours[k].port)
				continue;
			msg("%s: host_ports = %u is the port of sbx's own %s proxy inside the "
			    "sandbox (%s points there), so the host's port %u cannot be relayed "
			    "at it: a proxy of the host's there is used with `%s = %u` in "
			    "[network] instead, any other service has to listen on another port; "
			    "nothing was run", rs[i]->source, ours[k].port, ours[k].what,
			    ours[k].var, ours[k].port, ours[k].chain, ours[k].port);
			return true;
		}
	return false;
}

/* ---- a run, phase by phase
 *
 * main() is the list of the phases below, over one struct run. A phase
 * fills its part of the run and returns RUN_ON to go on, or the exit
 * status to end the run with (SBX_EXIT_SETUP after a message when the
 * sandbox could not be set up; 0 for --help, --print...). Whichever phase
 * ends it, run_release() lets go of everything the run holds. */
#define RUN_ON (-1)

struct run {
	int argc;
	char **argv;
	/* prepare: options, HOME, the directories, bubblewrap started early */
	struct options o;
	enum reports_mode mode;
	const char *home;
	int report_out; /* where report lines go (report_output) */
	char cwd[PATH_MAX], session[PATH_MAX], sdir[PATH_MAX], cdir[PATH_MAX];
	char bwrap[PATH_MAX], init[PATH_MAX], stamp[START_STAMP_MAX], run_id[START_RUN_ID_MAX];
	const char *bwrap_env, *nested_env;
	bool off;       /* --no-sandbox or SBX_NO_SANDBOX */
	bool disabled;  /* the user's file says enabled = false */
	bool held_back; /* the caller's directory descriptors held back */
	bool have_bwrap, have_init;
	struct backend be;       /* the boundary: bubblewrap from the start, or nested */
	struct timespec since;  /* this run's start, for gitprov_note() */
	struct gitprov *gprov;  /* linked worktrees sandboxed runs made */
	/* policy: the user's, --learn's relaxed one, and which confines */
	char self[PATH_MAX], user_file[PATH_MAX];
	bool have_lib;
	struct policy *p, *box;
	const struct policy *confine;
	/* mode: which sandbox (mode_decide), the limits, the shim or not */
	struct mode_facts mf;
	struct mode_words mw;
	char mtext[1024];
	bool nested;
	struct nested nest; /* the nested mode's (nested.h) */
	struct limits lim;
	bool use_shim;
	/* plan: its inputs, the plan, the walk's record, the stand-ins */
	int state_fd;
	bool notify_on, proxied;
	struct shim_setup shim;
	unsigned host_ports[SBX_HOST_PORTS_MAX];
	size_t nhost_ports;
	char hook_json[PATH_MAX + 256];
	const char *insert[SBX_INSERT_ARGS_MAX + 1];
	struct walkrec *walk; /* what the last walk here found */
	struct plan_in in;
	struct plan pl;
	struct standins *standins;
	struct timespec plan_t0, plan_t1; /* plan_init()'s CPU time */
	/* bubblewrap went away during the set-up (-EPIPE, -ECONNRESET):
	 * nothing more is sent, sandbox_wait() says how it ended */
	int serr;
	/* start: the reports, the proxy, the notify layer */
	char log_path[PATH_MAX], learn_path[PATH_MAX];
	struct reports *reports;
	struct net_loop *net;
	struct notify *notify;
	/* wait */
	struct run_in ri;
	bool ready;
	int rc;
};

/* r is zero (static): what is not zero when nothing is held. */
static void run_init(struct run *r, int argc, char **argv)
{
	r->argc = argc;
	r->argv = argv;
	r->report_out = STDERR_FILENO;
	r->be.sb = SANDBOX_NONE;
	r->be.nest = &r->nest;
	r->lim = LIMITS_NONE;
	r->nest = NESTED_NONE;
	r->state_fd = -1;
	r->shim = (struct shim_setup){ .policy_fd = -1, .report_rd = -1, .report_wr = -1,
				       .counters_fd = -1 };
}

/* Everything the run holds, whichever phase ended it. */
static void run_release(struct run *r)
{
	if (r->be.ops)
		r->be.ops->release(&r->be); /* not waited for: nothing ran */
	plan_remove_placeholders(&r->pl);
	limits_finish(&r->lim, &r->be.sb.pid);
	standins_free(r->standins);
	gitprov_free(r->gprov);
	walkrec_free(r->walk);
	if (r->state_fd >= 0)
		close(r->state_fd);
	shim_release(&r->shim);
	net_loop_free(r->net);
	notify_free(r->notify);
	reports_free(r->reports);
	nested_free(&r->nest);
	plan_free(&r->pl);
	policy_free(r->box);
	policy_free(r->p);
	options_free(&r->o);
}

/* Options, HOME, the current directory; bubblewrap started (it waits for
 * its options while the policy compiles); the run's stamp and sbx's
 * directories. */
static int phase_prepare(struct run *r)
{
	struct options *o = &r->o;
	int orc = options_parse(r->argc, r->argv, o);

	if (orc)
		return orc > 0 ? 0 : SBX_EXIT_SETUP;
	guard_signals(NULL);
	r->mode = o->learn ? REPORTS_LEARN : o->trace ? REPORTS_TRACE : REPORTS_ENFORCE;
	r->home = config_home_dir();
	if (!r->home) {
		msg("cannot tell your home directory: set HOME");
		return SBX_EXIT_SETUP;
	}
	if (o->cleanup)
		return cleanup_only(r->home);
	if (o->print_profile)
		return profile_print(o->print_profile, r->home);
	if ((r->report_out = start_report_output(o)) < 0)
		return SBX_EXIT_SETUP;
	if (!getcwd(r->cwd, sizeof(r->cwd))) {
		msg("cannot tell the current directory: %s", strerror(errno));
		return SBX_EXIT_SETUP;
	}
	/* bubblewrap starts now and waits for its arguments: its exec and
	 * loading overlap the policy's compilation. Not for --print (nothing
	 * runs) nor when the sandbox is off on purpose. */
	const char *nosb = getenv("SBX_NO_SANDBOX");
	r->off = o->no_sandbox || (nosb && *nosb && strcmp(nosb, "0"));
	int bwrap_rc = find_bwrap(r->bwrap, sizeof(r->bwrap));
	if (bwrap_rc == -EINVAL || bwrap_rc == -ENAMETOOLONG) {
		msg("SBX_BWRAP must be an absolute path to bubblewrap, not \"%s\" (a name "
		    "would be looked up in PATH, where a sandboxed program may have "
		    "put one); nothing was run", getenv("SBX_BWRAP"));
		return SBX_EXIT_SETUP;
	}
	r->have_bwrap = bwrap_rc == 0;
	r->bwrap_env = getenv("SBX_BWRAP");
	r->have_init = !config_find_helper("sbx-init", "SBX_INIT", X_OK, r->init, sizeof(r->init));
	/* SBX_NESTED=1: the nested mode asked for (nested = true); =auto: a
	 * run of ours found that bubblewrap cannot make namespaces here, and
	 * fallback = warn, so it started us again for the nested mode */
	r->nested_env = getenv("SBX_NESTED");
	r->nested = r->nested_env && *r->nested_env && strcmp(r->nested_env, "0");
	r->be.ops = r->nested ? &backend_nested : &backend_bwrap;
	r->be.init = r->init;
	r->be.command = o->command;
	/* `sbxctl disable`: nothing of a sandbox is started, not even the
	 * early bubblewrap (the user's file alone is read for it; the full
	 * policy below decides and says the rest) */
	r->disabled = !r->off && config_user_disabled(o, r->home, r->cwd);
	r->held_back = r->have_init && !r->off && !r->disabled && !o->print &&
		       (r->have_bwrap || r->nested);
	if (r->held_back)
		hold_back_fds(o);
	if (r->have_bwrap && r->have_init && !r->off && !r->disabled && !o->print && !r->nested) {
		int e = sandbox_spawn(&r->be.sb, r->bwrap, r->init, o->command);
		if (e) {
			msg("sandbox set-up failed: starting bubblewrap: %s", strerror(-e));
			return SBX_EXIT_SETUP;
		}
	}

	/* (after the spawn: the local time zone costs a file read) */
	if (start_names(r->home, r->stamp, r->run_id, r->sdir, r->cdir, r->session))
		return SBX_EXIT_SETUP;
	/* what changed in a git directory from here on may be this run's
	 * (less a margin: file times come from a coarser clock) */
	clock_gettime(CLOCK_REALTIME, &r->since);
	r->since.tv_sec -= 2;
	if (gitprov_load(r->sdir, &r->gprov))
		return SBX_EXIT_SETUP;
	return RUN_ON;
}

/* The policy: the user's file, the project's, the profile, the flags,
 * compiled; with --learn also the relaxed one the run is confined by. */
static int phase_policy(struct run *r)
{
	struct sbx_err err = { "" };

	/* what builds the boundary is never writable inside it */
	bool have_self = !self_path(r->self, sizeof(r->self));
	r->have_lib = !config_find_helper("libsbx-preload.so", "SBX_SHIM_LIB", R_OK, r->shim.lib,
					  sizeof(r->shim.lib));
	/* a login shell's PATH under HOME, from its start-up files (kept by
	 * HOME's allow-list when HOME is writable) */
	static char login_path[8192];
	loginpath_read(r->home, login_path, sizeof(login_path));
	struct policy_ctx ctx = { .home = r->home, .cwd = r->cwd, .session_dir = r->session,
				  .state_dir = r->sdir, .config_dir = r->cdir, .environ = environ,
				  .path_env = getenv("PATH"), .login_path = login_path,
				  .own_files = { have_self ? r->self : NULL,
						 r->have_init ? r->init : NULL,
						 r->have_lib ? r->shim.lib : NULL,
						 r->have_bwrap ? r->bwrap : NULL },
				  .untrusted_gitdir = gitprov_made_inside, .untrusted_arg = r->gprov };
	int brc = config_build_policy(&r->o, &ctx, false, r->user_file, sizeof(r->user_file),
				      &r->p, &err);
	if (brc == 0 && r->o.learn)
		brc = config_build_policy(&r->o, &ctx, true, r->user_file, sizeof(r->user_file),
					  &r->box, &err);
	if (brc == -1)
		msg("%s", err.msg[0] ? err.msg : "cannot build the policy");
	if (brc)
		return SBX_EXIT_SETUP;
	if (r->o.print_seatbelt) /* macOS's profile: printed, nothing run */
		return print_seatbelt(r->p, r->run_id, r->sdir, r->o.command);
	r->confine = r->box ? r->box : r->p;
	r->be.policy = r->confine;
	return RUN_ON;
}

/* The nested mode chosen: may it run here, with all the policy asks? */
static int mode_nested(struct run *r, struct mode_choice mc)
{
	static char nested_why[128];
	char nwhy[512];

	mode_text(mc, &r->mf, &r->mw, nested_why, sizeof(nested_why));
	r->nest.why = nested_why;
	if (r->be.sb.sfd >= 0)
		sandbox_abort(&r->be.sb); /* started before the policy said so */
	if (nested_check(&r->nest, r->p, nwhy, sizeof(nwhy))) {
		r->mw.detail = nwhy;
		mc = decide(&r->mf, MODE_NESTED_UNFIT, &r->mw, r->mtext, sizeof(r->mtext));
		if (mc.mode == RUN_PLAIN)
			return unsandboxed(&r->o, &r->be.sb, r->mtext);
		msg("%s", r->mtext);
		return SBX_EXIT_SETUP;
	}
	if (nested_host_ports(r->p, nwhy, sizeof(nwhy))) {
		struct mode_words hw = {
			.part = "host_ports", .detail = nwhy, .remove = "host_ports",
			.cannot = "cannot be held to the host's 127.0.0.1 in the nested mode",
			.not_done = "are not served in the nested mode" };
		mc = decide(&r->mf, MODE_PART_MISSING, &hw, r->mtext, sizeof(r->mtext));
		msg("%s", r->mtext);
		if (mc.mode == RUN_NOTHING)
			return SBX_EXIT_SETUP;
	}
	/* the caller's directory descriptors, as under bubblewrap */
	if (!r->held_back)
		hold_back_fds(&r->o);
	size_t nu;
	policy_rules(r->p, SBX_RULE_ALLOW_UNIX_SOCKET, &nu);
	if (nu && !policy_allow_all_unix_sockets(r->p))
		msg("unix sockets stay blocked: allow_unix_sockets needs the seccomp "
		    "notify layer's connect, which the nested mode does not run");
	return RUN_ON;
}

/* [limits] pids and memory: the run's cgroup made now, bubblewrap moved
 * into it before it has its options (runlimits.h); a limit that cannot be
 * had is mode_decide()'s to judge. */
static int mode_limits(struct run *r)
{
	int lrc = limits_prepare(r->p, r->run_id, r->o.print, &r->lim);

	if (lrc) {
		msg("sandbox set-up failed: cannot make the cgroup for [limits]: %s; nothing "
		    "was run", strerror(-lrc));
		return SBX_EXIT_SETUP;
	}
	/* RLIMIT_NPROC counts a user namespace's processes: without one (the
	 * nested mode) it would count all of the user's */
	if (r->nested && r->lim.pids_how == LIMIT_RLIMIT) {
		r->lim.pids_how = LIMIT_NONE;
		snprintf(r->lim.why_not, sizeof(r->lim.why_not), "the nested mode has no user "
			 "namespace for RLIMIT_NPROC to count in, and no cgroup of its own here");
	}
	const char *missing = r->o.print ? NULL : limits_missing(&r->lim);
	if (missing) {
		char part[128];
		snprintf(part, sizeof(part), "[limits] %s", missing);
		struct mode_words lw = { .part = part, .detail = r->lim.why_not,
					 .remove = "the limit" };
		struct mode_choice mc = decide(&r->mf, MODE_PART_MISSING, &lw, r->mtext,
					       sizeof(r->mtext));
		msg("%s", r->mtext);
		if (mc.mode == RUN_NOTHING)
			return SBX_EXIT_SETUP;
	}
	return RUN_ON;
}

/* Which sandbox, or none: the whole "fail closed or warn" matrix is
 * mode_decide()'s (mode.h); here its answers are carried out. Then the
 * parts the run asks for that this machine or build may lack: the
 * nested mode's, [limits], the shim. */
static int phase_mode(struct run *r)
{
	const struct options *o = &r->o;
	int rc;

	r->mf = (struct mode_facts){
		.stage = MODE_AT_START, .off_flag = o->no_sandbox,
		.off_env = r->off && !o->no_sandbox, .disabled = !policy_enabled(r->p),
		.learn = o->learn, .print = o->print, .nested_env = r->nested,
		.nested_auto = r->nested && !strcmp(r->nested_env, "auto"),
		.nested_policy = policy_nested(r->p), .have_bwrap = r->have_bwrap,
		.bwrap_env = r->bwrap_env && *r->bwrap_env, .have_init = r->have_init,
		.fallback_warn = policy_fallback(r->p) == SBX_FALLBACK_WARN,
		.landlock = probe_landlock_abi() > 0, .probe = probe_bwrap, .probe_ctx = r->bwrap,
	};
	r->mw = (struct mode_words){ .user_file = r->user_file, .bwrap_env = r->bwrap_env };
	struct mode_choice mc = decide(&r->mf, MODE_AT_START, &r->mw, r->mtext, sizeof(r->mtext));
	if (mc.mode == RUN_PLAIN)
		return unsandboxed(o, &r->be.sb, r->mtext);
	if (mc.mode == RUN_NOTHING) {
		msg("%s", r->mtext);
		return SBX_EXIT_SETUP;
	}
	r->nested = mc.mode == RUN_NESTED;
	r->be.ops = r->nested ? &backend_nested : &backend_bwrap;
	if (r->disabled && !o->print) {
		/* the user's file said false and a project's true (it may
		 * narrow): what was not started early is started now */
		hold_back_fds(o);
		r->held_back = true;
		int e = !r->nested ? sandbox_spawn(&r->be.sb, r->bwrap, r->init, o->command) : 0;
		if (e) {
			msg("sandbox set-up failed: starting bubblewrap: %s", strerror(-e));
			return SBX_EXIT_SETUP;
		}
	}
	if (o->no_shim && r->mode != REPORTS_ENFORCE) {
		msg("%s works through the preload shim; drop --no-shim",
		    o->learn ? "--learn" : "--trace");
		return SBX_EXIT_SETUP;
	}
	if (r->nested && (rc = mode_nested(r, mc)) != RUN_ON)
		return rc;
	held_back_say(); /* a sandbox runs from here on */
	if (pending_notes(r->p))
		return SBX_EXIT_SETUP;
	if (!r->nested && net_run_proxied(r->p, o->learn) && host_port_is_ours(r->p))
		return SBX_EXIT_SETUP;
	if ((rc = mode_limits(r)) != RUN_ON)
		return rc;
	/* --print: the line runs without us, so nothing would hold the shim's
	 * descriptors; it is printed without the shim */
	r->use_shim = !o->no_shim && !o->print;
	if (r->use_shim && !r->have_lib) {
		if (r->mode != REPORTS_ENFORCE) {
			msg("the preload shim libsbx-preload.so is missing (looked next to "
			    "sbx-preload and in ../lib/sbx/), and %s needs it; reinstall sbx",
			    o->learn ? "--learn" : "--trace");
			return SBX_EXIT_SETUP;
		}
		msg("the preload shim libsbx-preload.so is missing: the sandbox holds, "
		    "but refusals will not be explained; reinstall sbx");
		r->use_shim = false;
	}
	return RUN_ON;
}

/* sbx's own directories before the plan: the state directory (so the
 * boundary keeps a real directory read-only, and its stand-in records
 * hidden; everything written there later goes through its descriptor),
 * the session directory, and the configuration directory where the
 * sandbox could make it. */
static int plan_dirs(struct run *r)
{
	const struct policy *confine = r->confine;

	if (!r->o.print || policy_session_dir(confine))
		r->state_fd = start_state_open(r->sdir, HOSTFS_CREATE);
	if (policy_session_dir(confine) && start_session_dir(r->state_fd, r->sdir, r->session))
		return SBX_EXIT_SETUP;
	/* the seccomp notify layer, served by this process (not for --print);
	 * SBX_NOTIFY=off leaves it out, for measuring what it costs */
	const char *nenv = getenv("SBX_NOTIFY");
	/* not in the nested mode: the layer acts for the program on the host,
	 * where no mount stops what the policy leaves to the mounts
	 * (docs/SECURITY.md, "The nested mode") */
	r->notify_on = !r->o.print && !(nenv && !strcmp(nenv, "off")) && !r->nested;
	/* there, the layer for a file's mode and owner alone: Landlock has
	 * no right for them (notify_set_modes) */
	r->nest.notify_modes = r->nested && !r->o.print && !(nenv && !strcmp(nenv, "off"));
	if (r->nested && !r->o.print && !r->nest.notify_modes)
		info("SBX_NOTIFY=off: the seccomp notify layer is off; a file's mode and owner "
		     "are not decided by the policy (chmod 755 ~/.ssh goes through)");
	if (!r->o.print && !r->notify_on && !r->nested)
		info("SBX_NOTIFY=off: the seccomp notify layer is off; protected names in "
		     "directories made during the run are not refused, Unix sockets stay "
		     "blocked");
	/* and so is sbx's configuration directory, where the sandbox could
	 * write it (a sandbox.ini made inside would widen every later run)
	 * and no stand-in can keep it from being made: a stand-in needs the
	 * parent, and fits only ~/.config/sbx (plan.c, standin_fits) */
	char cparent[PATH_MAX], cstandin[PATH_MAX];
	if (sbx_path_fmt(cparent, sizeof(cparent), "%s", r->cdir) ||
	    sbx_path_fmt(cstandin, sizeof(cstandin), "%s/.config/sbx", policy_home(confine))) {
		start_path_too_long("sbx's configuration directory", policy_home(confine));
		return SBX_EXIT_SETUP;
	}
	*strrchr(cparent, '/') = '\0';
	/* (with the notify layer, the rule itself refuses making it) */
	bool standin_guards = r->notify_on ||
			      (!strcmp(r->cdir, cstandin) && access(cparent, F_OK) == 0);
	if (!r->o.print && !standin_guards && writable_inside(confine, r->cdir) &&
	    access(r->cdir, F_OK)) {
		struct hostfs_err herr;
		int fd = hostfs_dir_open(r->cdir, HOSTFS_CREATE | HOSTFS_MINE, &herr);
		if (fd < 0)
			vmsg("cannot make %s: %s", r->cdir, herr.msg);
		else
			close(fd);
	}
	return RUN_ON;
}

/* What the plan is made from besides the policy: the nested mode's
 * listeners, the host ports, the profile's arguments; into r->in (the
 * shim's spec and the walk's record come after bubblewrap's options:
 * plan_after_send). */
static int plan_inputs(struct run *r)
{
	const struct options *o = &r->o;

	/* the nested mode's proxy listens on the host's loopback, at ports
	 * the kernel picks (the shim and COMMAND's environment name them) */
	if (r->nested && net_run_proxied(r->p, o->learn)) {
		int e = nested_listen(&r->nest);
		if (e) {
			msg("sandbox set-up failed: the proxy's listeners on 127.0.0.1: %s; "
			    "nothing was run", strerror(-e));
			return SBX_EXIT_SETUP;
		}
	}
	/* the proxy runs in this process: not for --print, whose line runs
	 * without us (its network is then off) */
	r->proxied = net_run_proxied(r->p, o->learn) && !o->print;
	r->nhost_ports = net_host_ports(r->p, r->host_ports, SBX_HOST_PORTS_MAX);
	if (r->nhost_ports > SBX_HOST_PORTS_MAX) {
		msg("host_ports names %zu ports; at most %d are served", r->nhost_ports,
		    SBX_HOST_PORTS_MAX);
		return SBX_EXIT_SETUP;
	}
	/* [profile] claude_hook: Claude Code's own tools (Read, Write, Edit,
	 * Grep, Glob) are judged by sbx's PreToolUse hook, loaded with
	 * --settings after `claude` (the profile points Claude at a config
	 * directory of its own, where a hook the user installed is not) */
	start_profile_args(o, r->p, r->home, r->insert, r->hook_json, sizeof(r->hook_json));
	r->in = (struct plan_in){
		.policy = r->confine, .bwrap = r->bwrap, .init = r->init, .command = o->command,
		.insert_args = r->insert,
		.environ = environ, .cwd = r->cwd, .ctl_fd = o->print ? -1 : r->be.sb.ctl_child,
		.ignored_signals = o->print || r->nested ? run_ignored_signals() : r->be.sb.ignored,
		.make_placeholders = !o->print, .state_dir = r->state_fd >= 0 ? r->sdir : NULL,
		.shim_lib = r->use_shim ? r->shim.lib : NULL, .shim_spec = r->shim.spec,
		.proxy = r->proxied, .limit_nproc = limits_nproc(&r->lim), .notify = r->notify_on,
		.nested = r->nested, .http_port = r->nest.http_port,
		.socks_port = r->nest.socks_port,
	};
	return RUN_ON;
}

/* What only sbx-init and the walk need, while bubblewrap goes on with
 * its options: the shim's blob and spec (sbx-init's arguments, made by
 * plan_init), the walk's record (walkrec.h: read before the walk, saved
 * after the run). */
static int plan_after_send(struct run *r)
{
	if (r->use_shim) {
		int e = shim_prepare(r->p, r->mode, r->nest.http_port, r->nest.socks_port, &r->shim);
		if (e) {
			msg("sandbox set-up failed: preparing the shim: %s", strerror(-e));
			return SBX_EXIT_SETUP;
		}
	}
	if (r->state_fd >= 0) {
		struct timespec walk_now;
		char why_not[PATH_MAX + 256];
		clock_gettime(CLOCK_REALTIME, &walk_now);
		if (walkrec_open(r->state_fd, r->sdir, r->confine, plan_walk_id(), &walk_now,
				 &r->walk, why_not, sizeof(why_not))) {
			msg("out of memory");
			return SBX_EXIT_SETUP;
		}
		if (why_not[0])
			vmsg("the walk's record is not used: %s (every directory is read)", why_not);
	}
	r->in.walkrec = r->walk;
	return RUN_ON;
}

/* --print: the whole plan printed, nothing run. */
static int plan_print(struct run *r)
{
	char why[PATH_MAX + 128];

	if (plan_build(&r->in, &r->pl)) {
		msg("out of memory while planning the sandbox");
		return SBX_EXIT_SETUP;
	}
	/* sbx-init follows no link: a protect or mask of a name that
	 * is one is printed where it leads (mountids.h) */
	if (mount_ids_roots(&r->pl, why, sizeof(why)) ||
	    mount_ids_plan(&r->pl, why, sizeof(why))) {
		msg("%s", why);
		return SBX_EXIT_SETUP;
	}
	if (r->o.print_json)
		print_plan_json(&r->pl, r->cwd);
	else
		print_line(&r->pl, false);
	if (policy_network_proxied(r->p)) {
		char net_said[128];
		start_network_text(r->p, net_said, sizeof(net_said));
		info("%s in a real run; this line runs without sbx-preload, which "
		     "holds the proxy, so its network is off", net_said);
	}
	return 0;
}

/* The record of this run's stand-ins (and what killed runs left,
 * removed), before the plan. */
static void plan_standins(struct run *r)
{
	unsigned cleaned = 0;
	int e = standins_open(r->state_fd, r->run_id, &cleaned, &r->standins);

	if (e == -ETIMEDOUT)
		msg("another process has held the lock of %s/standins for %d s: "
		    "stand-ins cannot be recorded this run (a run that needs one "
		    "will not start)", r->sdir, STANDIN_LOCK_WAIT_MS / 1000);
	else if (e)
		vmsg("no record of stand-ins can be kept in %s: %s (a run that "
		     "needs one will not start)", r->sdir, strerror(-e));
	if (cleaned)
		info("removed %u stand-in%s a killed run had left", cleaned,
		     cleaned == 1 ? "" : "s");
	r->pl.standins = r->standins;
}

/* The plan: bubblewrap's options first (it goes on with them while the
 * masks and write-protects are planned and the stand-ins made), then
 * sbx-init's mounts, what each lands on, the stand-ins. */
static int phase_plan(struct run *r)
{
	char why[PATH_MAX + 128];
	int rc, lrc;

	if ((rc = plan_dirs(r)) != RUN_ON || (rc = plan_inputs(r)) != RUN_ON)
		return rc;
	if (r->o.print)
		return plan_print(r);
	if (plan_bwrap(&r->in, &r->pl)) {
		msg("out of memory while planning the sandbox");
		return SBX_EXIT_SETUP;
	}
	if (!r->nested && (lrc = limits_attach(&r->lim, r->be.sb.pid))) {
		msg("sandbox set-up failed: cannot move bubblewrap into the cgroup for "
		    "[limits]: %s; nothing was run", strerror(-lrc));
		return SBX_EXIT_SETUP;
	}
	/* the writable roots as the policy named them, before anything waits */
	if (mount_ids_roots(&r->pl, why, sizeof(why))) {
		msg("sandbox set-up failed: %s; nothing was run", why);
		return SBX_EXIT_SETUP;
	}
	r->serr = r->be.ops->send_plan(&r->be, &r->pl);
	if ((rc = plan_after_send(r)) != RUN_ON)
		return rc;
	if (!r->serr && r->state_fd >= 0)
		plan_standins(r);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &r->plan_t0);
	int perr = r->serr ? 0 : plan_init(&r->in, &r->pl);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &r->plan_t1);
	if (perr) {
		if (perr == -E2BIG && r->pl.masks_cut[0])
			msg("sandbox set-up failed: more than %d paths are read-denied (the next "
			    "one: %s), each of which would be a mount: deny the directory that "
			    "holds them instead; nothing was run", PLAN_MASKS_MAX, r->pl.masks_cut);
		else
			msg("out of memory while planning the sandbox");
		return SBX_EXIT_SETUP;
	}
	if (!r->serr && mount_ids_plan(&r->pl, why, sizeof(why))) {
		msg("sandbox set-up failed: %s; nothing was run", why);
		return SBX_EXIT_SETUP;
	}
	if (sbx_verbosity >= V_DEBUG)
		print_line(&r->pl, true);
	if (!r->serr && (r->serr = plan_make_placeholders(&r->pl)) && r->serr != -ENOMEM) {
		msg("cannot make the stand-in that keeps %s from being created "
		    "inside the sandbox: %s%s; nothing was run",
		    r->pl.placeholder_failed ? r->pl.placeholder_failed : "a protected name",
		    r->serr == -ENOLCK ? "no record of it can be kept (is your state "
		    "directory writable?)" : strerror(-r->serr),
		    r->serr == -EACCES || r->serr == -EPERM ?
		    " (the directory is yours, so the sandboxed program could make it "
		    "writable: make it writable, or create the file yourself)" : "");
		return SBX_EXIT_SETUP;
	}
	return RUN_ON;
}

/* The reports' sink: the audit log (a log the user named: its
 * directories resolved now (theirs), the file itself never followed (it
 * is opened once COMMAND runs, in a tree it may write)) and the lines. */
static int start_reports(struct run *r)
{
	const struct policy *p = r->p;

	if (start_audit_path(&r->o, p, r->cwd, r->sdir, r->log_path, sizeof(r->log_path)))
		return SBX_EXIT_SETUP;
	struct reports_cfg rcfg = { .policy = p, .relaxed = r->box, .log_path = r->log_path,
				    .run_id = r->run_id, .mode = r->mode,
				    .out_fd = r->report_out, .hold = true,
				    .tty = policy_report_stderr(p),
				    /* a relayed terminal is raw by us: the
				     * program's own terminal says (relay.c) */
				    .tty_busy = relay_tty_busy,
				    .guarded = r->pl.guarded.v, .nguarded = r->pl.guarded.n,
				    .nested = r->nested };
	if (reports_new(&rcfg, &r->reports)) {
		msg("out of memory");
		return SBX_EXIT_SETUP;
	}
	return RUN_ON;
}

/* Where --learn writes, settled before COMMAND runs. */
static int start_learn_path(struct run *r)
{
	const struct options *o = &r->o;
	char given[PATH_MAX];
	int long_path = 0;

	if (o->learn_out) {
		if (path_join(r->cwd, o->learn_out, given, sizeof(given)))
			long_path = sbx_path_fmt(given, sizeof(given), "%s", o->learn_out);
		if (!long_path && hostfs_trust_path(given, 1, r->learn_path, sizeof(r->learn_path)))
			long_path = sbx_path_fmt(r->learn_path, sizeof(r->learn_path), "%s", given);
	} else { /* ours: nothing in it is followed */
		long_path = sbx_path_fmt(r->learn_path, sizeof(r->learn_path), "%s/learned/%s.ini",
					 r->sdir, r->stamp);
	}
	if (long_path) {
		start_path_too_long("--learn's file", o->learn_out ? o->learn_out : r->sdir);
		return SBX_EXIT_SETUP;
	}
	return RUN_ON;
}

/* Said before "go": COMMAND cannot have written anything yet. */
static void start_said(struct run *r)
{
	char layers[1536]; /* nested_text: the weaker list is up to 1 KiB */

	char lt[256];
	limits_text(&r->lim, lt, sizeof(lt));
	struct start_counts c = { .read_denied = r->pl.read_masks,
				  .write_protected = r->pl.write_protects,
				  .withheld = r->pl.withheld.n, .limits = lt };
	start_line(r->confine, &c, r->be.ops->layers(&r->be, layers, sizeof(layers)));
	start_withheld_said(r->confine, &r->pl.withheld);
	note_static_command(&r->o, r->use_shim, r->home, r->reports);
	if (r->o.learn)
		info("learning: what the policy would refuse is recorded; writes "
		     "outside the writable paths are refused (nothing of HOME "
		     "changes), secrets and protected files stay closed");
}

/* The nested mode's notify layer decides a file's mode and owner by the
 * Landlock spec's writable roots and denied paths (notify_set_modes). On
 * failure the layer is freed. */
static int start_notify_modes(struct run *r)
{
	const struct landlock_spec *spec = &r->nest.spec;
	struct strv kept = { 0 };
	int e = 0;

	for (size_t i = 0; !e && i < spec->read_deny.n; i++)
		e = strv_add(&kept, spec->read_deny.v[i]);
	for (size_t i = 0; !e && i < spec->write_deny.n; i++)
		e = strv_add(&kept, spec->write_deny.v[i]);
	if (!e)
		e = notify_set_modes(r->notify, spec->write_roots.v, spec->write_roots.n, kept.v,
				     kept.n);
	strv_free(&kept);
	if (e)
		notify_free(r->notify), r->notify = NULL;
	return e;
}

/* The sandbox started: the nested mode's sbx-init spawned under its
 * ruleset, the reports ready, the start-up line said, "go" with the
 * shim's descriptors; the proxy and the notify layer served. */
static int phase_start(struct run *r)
{
	const struct options *o = &r->o;
	char why[PATH_MAX + 128];
	int rc, lrc;

	/* the boundary built from the whole plan, sbx-init started inside,
	 * waiting for "go" (the nested mode's Landlock ruleset; bubblewrap
	 * runs since the prepare phase) */
	if (!r->serr) {
		int e = r->be.ops->start(&r->be, &r->pl, why, sizeof(why));
		if (e) {
			msg("sandbox set-up failed: %s: %s; nothing was run", why, strerror(-e));
			return SBX_EXIT_SETUP;
		}
	}
	if (r->nested && !r->serr) {
		if ((lrc = limits_attach(&r->lim, r->be.sb.pid))) {
			msg("sandbox set-up failed: cannot move sbx-init into the cgroup for "
			    "[limits]: %s; nothing was run", strerror(-lrc));
			return SBX_EXIT_SETUP;
		}
	}
	if ((r->use_shim || r->proxied || r->notify_on || r->nest.notify_modes) &&
	    (rc = start_reports(r)) != RUN_ON)
		return rc;
	if (o->learn && (rc = start_learn_path(r)) != RUN_ON)
		return rc;
	if (!r->serr)
		start_said(r);
	/* listeners of the backend's own (the nested mode's): COMMAND
	 * starts at "go", so the proxy serves before it (its listeners have
	 * queued nothing yet) */
	if (r->be.ops->serve && r->proxied && !r->serr &&
	    start_proxy_served(&r->be, r->p, r->reports, o->learn, &r->net))
		return SBX_EXIT_SETUP;
	/* sbx-init gives the shim's descriptors to the holder */
	struct shim_setup *s = &r->shim;
	int shim_fds[3] = { s->policy_fd, s->report_wr, s->counters_fd };
	if (!r->serr)
		r->serr = r->be.ops->go(&r->be, &r->pl, shim_fds, r->use_shim ? 3 : 0);
	if (r->use_shim) {
		/* our copy of the write end would keep the end of file away */
		close(s->policy_fd);
		close(s->report_wr);
		close(s->counters_fd);
		s->policy_fd = s->report_wr = s->counters_fd = -1;
	}
	if (r->serr && r->serr != -EPIPE && r->serr != -ECONNRESET) {
		/* EPIPE, ECONNRESET (it had our messages unread): bubblewrap
		 * failed early; sandbox_wait says how */
		msg("sandbox set-up failed: %s", strerror(-r->serr));
		return SBX_EXIT_SETUP;
	}
	/* The proxy, while sbx-init mounts: it needs the loop only when its
	 * listeners arrive ("N"), and COMMAND waits for our answer. (In the
	 * nested mode it was started before "go": no "N" holds COMMAND.) */
	if (r->proxied && !r->serr && !r->net) {
		int e = start_proxy(r->p, r->reports, o->learn, &r->net);
		if (e) {
			msg("sandbox set-up failed: starting the filtering proxy: %s; nothing "
			    "was run", strerror(-e));
			return SBX_EXIT_SETUP;
		}
	}
	if ((r->notify_on || r->nest.notify_modes) && !r->serr) {
		int e = notify_new(r->confine, r->reports, r->mode == REPORTS_TRACE, &r->notify);
		if (!e && (e = notify_refuse(r->notify, r->pl.refused_new.v, r->pl.refused_new.n)))
			notify_free(r->notify), r->notify = NULL;
		if (!e && r->nest.notify_modes)
			e = start_notify_modes(r);
		if (e) {
			msg("sandbox set-up failed: the seccomp notify listener: %s; nothing "
			    "was run (Linux 5.9 or later is needed)", strerror(-e));
			return SBX_EXIT_SETUP;
		}
		notify_set_net(r->notify, r->net); /* static programs' connects */
		if (r->shim.report_rd >= 0)
			notify_set_report(r->notify, r->shim.report_rd);
	}
	return RUN_ON;
}

/* COMMAND runs: signals relayed, reports, proxy and notify layer served,
 * until sbx-init says nothing of COMMAND's is left (or the set-up failed). */
static int phase_wait(struct run *r)
{
	r->ri = (struct run_in){ .report_fd = r->shim.report_rd, .reports = r->reports,
				 .net = r->net, .notify = r->notify,
				 .http_port = SBX_PROXY_HTTP_PORT,
				 .socks_port = SBX_PROXY_SOCKS_PORT, .dns = r->net != NULL,
				 .host_ports = r->host_ports, .nhost_ports = r->nhost_ports,
				 .served = r->nested };
	r->rc = sandbox_wait(&r->be.sb, &r->pl, &r->ri, &r->ready);
	if (r->be.ops->waited)
		r->be.ops->waited(&r->be);
	return RUN_ON;
}

/* The sandbox failed before COMMAND ran: mode_decide() says what now
 * (start again nested, run without, or nothing), the advice said. */
static int finish_failed(struct run *r)
{
	r->mf.nested = r->nested;
	r->mf.init_ran = r->rc == SBX_EXIT_SETUP;
	struct mode_choice mc = decide(&r->mf, MODE_SANDBOX_FAILED, &r->mw, r->mtext,
				       sizeof(r->mtext));
	/* the nested mode rather than no sandbox: started afresh, as
	 * nothing of this attempt ran (returns only if it cannot) */
	if (mc.mode == RUN_RESTART_NESTED)
		restart_nested(&r->o, r->argv);
	if (mc.mode == RUN_RESTART_NESTED || mc.mode == RUN_PLAIN)
		return unsandboxed(&r->o, &r->be.sb, r->mtext);
	if (r->mtext[0])
		msg("%s", r->mtext);
	if (r->nested)
		return SBX_EXIT_SETUP;
	/* sbx-init ran (its namespaces stood) and said what failed: no
	 * advice about namespaces or containers, which were not the matter */
	if (r->mf.init_ran) {
		msg("the sandbox could not be set up (its message is above); nothing was run");
		return SBX_EXIT_SETUP;
	}
	msg("the sandbox could not be set up (bubblewrap exit %d, its message "
	    "is above); nothing was run", r->rc);
	/* bubblewrap enters the working directory by its name last: another
	 * program (a concurrent run whose workspace holds it) that moved it
	 * away or put a link there meanwhile made that fail, which is no
	 * matter of namespaces or containers */
	struct stat here, named;
	if (!stat(".", &here) &&
	    (lstat(r->cwd, &named) || here.st_dev != named.st_dev || here.st_ino != named.st_ino)) {
		msg("the working directory %s was moved or replaced while the sandbox was "
		    "set up (another program changed it); run again from where it is now",
		    r->cwd);
		return SBX_EXIT_SETUP;
	}
	setup_advice(say_advice, NULL);
	struct container_info ci;
	if (probe_container("/", getenv("container"), getenv("KUBERNETES_SERVICE_HOST"), &ci))
		msg("this is a %s container (%s): the full sandbox needs user namespaces "
		    "and a /proc it can mount: %s (`sbxctl doctor` checks)", ci.engine,
		    ci.evidence, container_full_flags(ci.engine));
	if (!r->mf.fallback_warn && r->mf.landlock)
		msg("where user namespaces cannot be had (a container, a CI runner), "
		    "nested = true in [sandbox] runs the weaker nested mode (Landlock and "
		    "the seccomp table; docs/SECURITY.md)");
	return SBX_EXIT_SETUP;
}

/* --learn: the policy that would have allowed the run, written. */
static void finish_learn(struct run *r)
{
	struct hostfs_err herr;
	struct learn_in li = { .policy = r->p, .reports = r->reports, .user_file = r->user_file,
			       .command = r->o.command, .flags = r->o.settings,
			       .nflags = r->o.nsettings };
	int e = learn_write(&li, r->learn_path, &herr);
	char shown[PATH_MAX];

	sbx_path_tildify(r->learn_path, r->home, shown, sizeof(shown));
	if (e)
		msg("cannot write the learned policy: %s", herr.msg);
	else
		msg("learned policy written to %s — review it, then run: "
		    "sbx-preload --config %s -- %s%s", shown, shown, r->o.command[0],
		    r->o.command[1] ? " …" : "");
}

/* After the run: the stand-ins removed, what the run made in git
 * directories and the walk's record kept, the limits said; then, if
 * COMMAND ran, the last reports and the exit status. */
static int phase_finish(struct run *r)
{
	plan_remove_placeholders(&r->pl);
	gitprov_note(r->gprov, r->state_fd, r->sdir, r->pl.gitdirs.v, r->pl.gitdirs.n, &r->since);
	if (r->walk && r->ready) {
		char why_not[PATH_MAX + 256];
		size_t kept, read;
		walkrec_counts(r->walk, &kept, &read);
		vmsg("the walk read %zu directories and found %zu unchanged (the mounts "
		     "planned in %.1f ms of CPU)", read, kept,
		     (double)(r->plan_t1.tv_sec - r->plan_t0.tv_sec) * 1e3 +
		     (double)(r->plan_t1.tv_nsec - r->plan_t0.tv_nsec) / 1e6);
		if (walkrec_save(r->walk, r->state_fd, r->sdir, why_not, sizeof(why_not)))
			vmsg("the walk's record is not saved: %s", why_not);
	}
	limits_finish(&r->lim, &r->be.sb.pid);
	if (!r->ready && r->ri.stopped)
		return SBX_EXIT_SETUP; /* sandbox_wait said why */
	if (!r->ready && r->rc < 128)
		return finish_failed(r);
	struct appeared_ctx actx = { .home = r->home, .notify = r->notify };
	plan_appeared(&r->pl, said_appeared, &actx);
	notify_finish(r->notify);
	if (r->reports)
		reports_finish(r->reports, r->shim.counters ?
			       __atomic_load_n(&r->shim.counters[0], __ATOMIC_RELAXED) : 0);
	if (r->o.learn && r->reports)
		finish_learn(r);
#if !defined(__SANITIZE_ADDRESS__)
	/* The run is over and everything is said: the kernel frees the rest
	 * faster than we would (the sanitizer builds free it all, for the
	 * leak check). */
	fflush(NULL);
	_exit(r->rc);
#endif
	return r->rc;
}

int main(int argc, char **argv)
{
	static int (*const phases[])(struct run *) = {
		phase_prepare, phase_policy, phase_mode, phase_plan,
		phase_start, phase_wait, phase_finish,
	};
	static struct run r;
	int rc = RUN_ON;

	run_init(&r, argc, argv);
	for (size_t i = 0; rc == RUN_ON && i < sizeof(phases) / sizeof(phases[0]); i++)
		rc = phases[i](&r);
	run_release(&r);
	return rc;
}
