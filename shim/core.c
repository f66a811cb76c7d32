/* shim/core.c: the shim's state in this process, and what every other
 * file of the shim calls on it (core.h): start-up, the per-thread guard,
 * the policy, the cwd cache and the path made absolute, the reports.
 * The ground floor of the shim: it includes nothing of the shim but
 * port.h (sys.h) and wire.h, and no file above is called from here.
 *
 * On Linux sbx-preload puts the shim into COMMAND with LD_PRELOAD and one
 * variable:
 *
 *   SBX_SHIM=1;policy=5;report=6;counters=7;mode=enforce;
 *            lib=/usr/local/lib/sbx/libsbx-preload.so;holder=2[;socks=1080;http=3128]
 *
 * A child of sbx-init's (the holder, pid 2 here) holds the three descriptors
 * and does nothing else, so no program inherits them and none can close
 * them: every process opens them as /proc/<holder>/fd/N. The policy is a sealed memfd holding the compiled policy as
 * a flat blob (policy/blob.c), read once at the first check; the report
 * pipe is opened per report, write-only and non-blocking; the counters
 * memfd is one shared page where a dropped report is counted.
 *
 * Where there is no /proc (macOS; SHIM_HANDOVER_PATHS, port.h) the three
 * are paths the supervisor made in a directory of its own that the
 * Seatbelt profile lets the sandbox read but not change:
 *
 *   SBX_SHIM=1;policy=/DIR/policy;report=/DIR/reports;counters=/DIR/dropped;
 *            mode=enforce;lib=/…/libsbx-preload.dylib
 *
 * (backend/darwin/launch.c, darwin_shim_spec; each path absolute, without
 * `;`, shorter than SBX_SHIM_PATH_MAX). The policy is a regular file,
 * read (never mapped: a file shrunk under a mapping faults) and refused
 * when the policy it holds lets the sandbox write its path; the report
 * channel a FIFO the supervisor holds open for reading, opened per
 * report as Linux's pipe is (without a reader, ENXIO: dropped); a
 * dropped report appends one byte to the counters file, whose size the
 * supervisor reads. Each is opened without following a link at its end
 * and non-blocking (a FIFO named as the policy must not hang the
 * program), and its type checked before a byte is read or written:
 * SBX_SHIM is the program's own environment, and what it names is a
 * claim (docs/MACOS.md, "The shim's hand-over").
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <dlfcn.h>

#include "shim/core.h"
#if WIRE_ATOMIC < WIRE_MAX
#include <sys/random.h> /* getentropy: glibc's and macOS's */
#endif

enum { ST_NEW, ST_STARTING, ST_READY, ST_OFF };

/* What start-up writes, beside the GOT (SHIM_START_DATA; "start-up" below). */
static struct {
	atomic_int state;
	enum shim_mode mode;
	_Atomic(const struct policy *) policy; /* mapped at the first check */
#if SHIM_HANDOVER_PATHS
	char policy_path[SBX_SHIM_PATH_MAX]; /* the hand-over's paths */
	char report[SBX_SHIM_PATH_MAX];
	char counters[SBX_SHIM_PATH_MAX];
#else
	char policy_path[64];        /* "/proc/2/fd/5" */
	char report[64];             /* "/proc/2/fd/6" */
	char counters[64];           /* "/proc/2/fd/7", mapped at the first drop */
#endif
	_Atomic(atomic_ulong *) dropped; /* in the shared counters page */
	pid_t pid;                   /* whose cwd the cache may hold */
	unsigned socks;              /* the proxy's SOCKS5 port inside, or 0 */
	unsigned http;               /* its HTTP port inside, or 0 */
	bool tell;                   /* [report] tell_program (tell.c) */
} S SHIM_START_DATA;

/* What an exec carries into a child (core.h), beside S. */
struct shim_carry shim_carry SHIM_START_DATA;
static char carry_big[1024 + PATH_MAX + 32]; /* when its buf is too small */

/* Initial-exec TLS: no allocation on first use (the shim is loaded at
 * start-up with LD_PRELOAD, so static TLS is always there). */
SHIM_TLS int shim_on_stack;
SHIM_TLS int *shim_errno_ptr;
/* A fork child's pid, on the thread that forked (core.h; owns_cwd_cache). */
SHIM_TLS pid_t shim_forked_pid;
/* Checks this thread made, up to SHIM_BUSY (core.h). */
SHIM_TLS unsigned shim_checks_made;

void *shim_dlsym(const char *name)
{
	return dlsym(RTLD_NEXT, name);
}

/* ---- what the shim does for itself never meets a wrapper (port.h) */

static int sys_open(const char *path, int flags)
{
	return shim_sys_openat(AT_FDCWD, path, flags);
}

static void sys_close(int fd)
{
	shim_sys_close(fd);
}

/* ---- start-up
 *
 * Every process of the sandbox runs this, most of them briefly (a shell's
 * children, a build's compilers), and on the paravirtualised machines sbx
 * runs on the first touch of each page costs a process some 15 µs: a page
 * fault, or a shadow page-table fill the guest never sees
 * (docs/PERFORMANCE.md). So start-up reads the environment by hand (no
 * getenv(), no str* functions: pages of libc a process may never touch
 * otherwise), writes only the one page of `S` (and shim_carry beside
 * it, what exec.c carries into a child) and makes one system call; the
 * policy is mapped at the first check (policy_get), which a process that
 * never opens, stats or starts anything never makes; fork() is wrapped
 * (shim.c) instead of a pthread_atfork() registration. */

extern char **environ;

static size_t len_of(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

static void copy_bytes(char *to, const char *from, size_t n)
{
	for (size_t i = 0; i < n; i++)
		to[i] = from[i];
}

/* The spec's keys, and the other names start-up compares, beside S
 * rather than string literals: those are in .rodata, a page no other
 * part of a short process's start touches (one more fault in every
 * process). */
enum { K_POLICY, K_HOLDER, K_REPORT, K_COUNTERS, K_MODE, K_LIB, K_TELL, K_SOCKS, K_HTTP,
       K_COUNT };
static struct {
	char key[K_COUNT][9];
	char sbx_shim[10], one[3], trace[6], learn[6], proc[7], fd[5];
	char ld_preload[SHIM_PRELOAD_LEN + 1];
} K SHIM_START_DATA = {
	{ "policy", "holder", "report", "counters", "mode", "lib", "tell", "socks", "http" },
	"SBX_SHIM=", "1;", "trace", "learn", "/proc/", "/fd/", SHIM_PRELOAD_ENTRY,
};

/* SBX_SHIM's value, or NULL. */
static const char *env_spec(void)
{
	for (char **e = environ; e && *e; e++)
		if (shim_starts(*e, K.sbx_shim))
			return *e + 9;
	return NULL;
}

/* The spec's values, read in one pass: each key's first `key=value`,
 * its value (not NUL-terminated: it ends at `;`) and length. */
struct spec {
	const char *v[K_COUNT];
	size_t n[K_COUNT];
};

static void spec_read(const char *spec, struct spec *out)
{
	for (int k = 0; k < K_COUNT; k++) {
		out->v[k] = NULL;
		out->n[k] = 0;
	}
	for (const char *p = spec; *p;) {
		const char *eq = p, *e;
		while (*eq && *eq != '=' && *eq != ';')
			eq++;
		e = eq;
		while (*e && *e != ';')
			e++;
		if (*eq == '=') {
			size_t kl = (size_t)(eq - p);
			for (int k = 0; k < K_COUNT; k++) {
				if (out->v[k] || kl >= sizeof(K.key[k]) ||
				    len_of(K.key[k]) != kl || !shim_starts(p, K.key[k]))
					continue;
				out->v[k] = eq + 1;
				out->n[k] = (size_t)(e - eq - 1);
				break;
			}
		}
		p = *e ? e + 1 : e;
	}
}

/* A value of 1 to 15 digits. */
static bool all_digits(const char *s, size_t n)
{
	if (!s || !n || n > 15)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* Is the value the word w? */
static bool value_is(const char *v, size_t n, const char *w)
{
	return v && n == len_of(w) && shim_starts(v, w);
}

/* A port, 1 to 65535, or 0. */
static unsigned port_of(const char *v, size_t n)
{
	unsigned long p = 0;

	if (n > 7 || !all_digits(v, n))
		return 0;
	for (size_t i = 0; i < n; i++)
		p = p * 10 + (unsigned long)(v[i] - '0');
	return p > 0 && p < 65536 ? (unsigned)p : 0;
}

static void say(const char *what)
{
	char buf[256];
	size_t n = 0;
	const char *parts[] = { "sbx: preload shim off in this process: ", what, "\n" };

	for (size_t i = 0; i < 3; i++) {
		size_t l = len_of(parts[i]);
		if (n + l >= sizeof(buf))
			l = sizeof(buf) - n - 1;
		copy_bytes(buf + n, parts[i], l);
		n += l;
	}
	shim_sys_write(STDERR_FILENO, buf, n); /* nowhere else to say it */
}

#if SHIM_HANDOVER_PATHS
/* The spec's key k: an absolute path that fits, and normal (no `..`,
 * `.` or `//`: the path judged must be the path opened, and a `..` after
 * a link the program made is another place). */
static bool spec_fd_path(const struct spec *sp, int k, char *out, size_t outsz)
{
	size_t n = sp->n[k];

	if (!sp->v[k] || !n || sp->v[k][0] != '/' || n >= outsz)
		return false;
	copy_bytes(out, sp->v[k], n);
	out[n] = '\0';
	return path_is_normal(out, n);
}

/* Opened for the hand-over: no link at the end, never blocking (a FIFO
 * named where a file is expected), no controlling terminal; and of the
 * type expected, else -1. */
static int open_handed(const char *path, int flags, mode_t type)
{
	struct stat st;
	int fd = sys_open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);

	if (fd < 0)
		return -1;
	if (shim_sys_fstat(fd, &st) || (st.st_mode & S_IFMT) != type) {
		sys_close(fd);
		return -1;
	}
	return fd;
}
#else
/* "/proc/<holder>/fd/<n>" for the spec's key k. */
static bool spec_fd_path(const struct spec *sp, int k, char *out, size_t outsz)
{
	size_t a = sp->n[K_HOLDER], b = sp->n[k];

	if (!all_digits(sp->v[k], b) || !all_digits(sp->v[K_HOLDER], a) ||
	    6 + a + 4 + b + 1 > outsz)
		return false;
	copy_bytes(out, K.proc, 6);
	copy_bytes(out + 6, sp->v[K_HOLDER], a);
	copy_bytes(out + 6 + a, K.fd, 4);
	copy_bytes(out + 10 + a, sp->v[k], b);
	out[10 + a + b] = '\0';
	return true;
}
#endif

/* The policy memfd read, and a view built on it (policy/blob.c). Both
 * live in the library's own memory when they fit: read, not mapped, the
 * blob is anonymous memory, whose page-table entries a fork copies, so a
 * fork child's exec check reads it without a fault (a file mapping's
 * entries are not copied: the child would fault it in again); and a
 * mapping fewer is a system call fewer and less to tear down at exit.
 * The view holds the matcher's table (policy/match.c): about 34 KiB for
 * the built-in policy; untouched pages of .bss cost nothing. */
static _Alignas(64) unsigned char blob_mem[32768];
static _Alignas(64) unsigned char view_mem[49152];
static atomic_flag blob_mem_taken = ATOMIC_FLAG_INIT;
static atomic_flag view_mem_taken = ATOMIC_FLAG_INIT;

struct attached {
	const struct policy *p;
	void *blob, *mem;
	size_t blob_len, mem_len;
	bool blob_mapped, mem_mapped; /* else blob_mem, view_mem */
	const char *why; /* not attached: said why, or NULL */
};

/* The whole memfd (file) into to. */
static bool read_blob(int fd, void *to, size_t len)
{
	size_t got = 0;

	while (got < len) {
		long n = shim_sys_pread(fd, (unsigned char *)to + got, len - got, (off_t)got);
		if (n <= 0)
			return false;
		got += (size_t)n;
	}
	return true;
}

static void release(struct attached *a, bool blob, bool mem)
{
	if (mem && a->mem_mapped)
		munmap(a->mem, a->mem_len);
	else if (mem)
		atomic_flag_clear(&view_mem_taken);
	if (blob && a->blob_mapped)
		munmap(a->blob, a->blob_len);
	else if (blob)
		atomic_flag_clear(&blob_mem_taken);
}

/* The hand-over's policy file must be one the sandbox cannot write: by
 * the policy it holds, its path is not writable. (A file the program
 * wrote can say anything; this catches the supervisor's own mistake, a
 * file put inside a writable root, where everything the sandbox runs
 * could change the next process's policy.) Linux's memfd is sealed. */
static bool handed_writable(const char *path, const struct policy *p)
{
#if SHIM_HANDOVER_PATHS
	const struct sbx_rule *why;

	/* normal already (spec_fd_path): judged as written */
	return policy_check_path(p, SBX_OP_WRITE, path, &why) != SBX_DENY;
#else
	(void)path;
	(void)p;
	return false;
#endif
}

static bool attach_policy(const char *path, struct attached *a)
{
	struct stat st;
	size_t need;
#if SHIM_HANDOVER_PATHS
	int fd = open_handed(path, O_RDONLY, S_IFREG);
#else
	int fd = sys_open(path, O_RDONLY);
#endif

	a->p = NULL;
	a->why = NULL;
	if (fd < 0)
		return false;
	if (shim_sys_fstat(fd, &st) || st.st_size <= 0 || st.st_size > (64 << 20)) {
		sys_close(fd);
		return false;
	}
	a->blob_len = (size_t)st.st_size;
	a->blob_mapped = a->blob_len > sizeof(blob_mem) || atomic_flag_test_and_set(&blob_mem_taken);
	if (a->blob_mapped) {
#if SHIM_HANDOVER_PATHS
		/* read into memory of our own: a plain file may shrink under
		 * a mapping (Linux's memfd is sealed against it) */
		a->blob = mmap(NULL, a->blob_len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (a->blob != MAP_FAILED && !read_blob(fd, a->blob, a->blob_len)) {
			munmap(a->blob, a->blob_len);
			a->blob = MAP_FAILED;
		}
#else
		a->blob = mmap(NULL, a->blob_len, PROT_READ, MAP_PRIVATE, fd, 0);
#endif
	} else {
		a->blob = blob_mem;
		if (!read_blob(fd, blob_mem, a->blob_len)) {
			atomic_flag_clear(&blob_mem_taken);
			a->blob = MAP_FAILED;
		}
	}
	sys_close(fd);
	if (a->blob == MAP_FAILED)
		return false;
	if (policy_blob_attach_size(a->blob, a->blob_len, &need) == 0) {
		a->mem_len = need;
		a->mem_mapped = need > sizeof(view_mem) || atomic_flag_test_and_set(&view_mem_taken);
		a->mem = a->mem_mapped ? mmap(NULL, need, PROT_READ | PROT_WRITE,
					      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : view_mem;
		if (a->mem != MAP_FAILED) {
			/* built: from now on nobody writes it. Not made
			 * read-only with mprotect: the program owns its memory
			 * and could undo that (the shim is advisory), and the
			 * call costs every process start a TLB flush */
			if (policy_blob_attach(a->blob, a->blob_len, a->mem, need, &a->p) == 0) {
				if (!handed_writable(path, a->p))
					return true;
				a->why = "the policy's file is one the sandbox may write "
					 "(SBX_SHIM policy=)";
			}
			a->p = NULL;
			release(a, false, true);
		}
	}
	release(a, true, false);
	return false;
}

static void detach_policy(struct attached *a)
{
	release(a, true, true);
}

/* The policy, mapped at the first call that needs it. Two threads racing
 * here both map it; the loser unmaps its copy. A vfork child mapping it
 * maps it for its parent too (they share the memory): that is fine. NULL
 * when it cannot be mapped: the shim is then off in this process. */
static const struct policy *policy_get(void)
{
	const struct policy *p = atomic_load_explicit(&S.policy, memory_order_acquire), *want = NULL;
	struct attached a;

	int saved = shim_on_stack;
	bool ok;

	if (p || atomic_load_explicit(&S.state, memory_order_relaxed) != ST_READY)
		return p;
	shim_on_stack = 1; /* mmap: nothing of ours runs meanwhile */
	ok = attach_policy(S.policy_path, &a);
	shim_on_stack = saved;
	if (!ok) {
		say(a.why ? a.why : "cannot map the policy (SBX_SHIM policy=)");
		atomic_store(&S.state, ST_OFF);
		return NULL;
	}
	if (!atomic_compare_exchange_strong(&S.policy, &want, a.p)) {
		detach_policy(&a);
		return want;
	}
	return a.p;
}

/* "SBX_SHIM=<spec>" and "LD_PRELOAD=<lib>" (SHIM_PRELOAD_ENTRY) for
 * carry.h to carry into a child (shim_carry); the lib's path is ll bytes
 * at libpath. */
static void carry_init(const char *spec, const char *libpath, size_t ll)
{
	size_t sl = len_of(spec), pl = SHIM_PRELOAD_LEN;
	char *b = shim_carry.buf;

	if (sl + 10 > 1024 || ll >= PATH_MAX || libpath[0] != '/')
		return;
	if (9 + sl + 1 + pl + ll + 1 > sizeof(shim_carry.buf))
		b = carry_big;
	copy_bytes(b, K.sbx_shim, 9);
	copy_bytes(b + 9, spec, sl + 1);
	shim_carry.shim_entry = b;
	b += 9 + sl + 1;
	copy_bytes(b, K.ld_preload, pl);
	copy_bytes(b + pl, libpath, ll);
	b[pl + ll] = '\0';
	shim_carry.preload_entry = b;
	shim_carry.lib = b + pl;
	shim_carry.lib_len = ll;
}

static void start_from_env(void)
{
	int expect = ST_NEW;
	const char *spec, *lib;
	struct spec sp;
	size_t ll;

	if (!atomic_compare_exchange_strong(&S.state, &expect, ST_STARTING))
		return;
	spec = env_spec();
	if (!spec || !shim_starts(spec, K.one)) {
		atomic_store(&S.state, ST_OFF);
		return;
	}
	spec_read(spec, &sp);
	if (!spec_fd_path(&sp, K_POLICY, S.policy_path, sizeof(S.policy_path))) {
		say("cannot map the policy (SBX_SHIM policy=)");
		atomic_store(&S.state, ST_OFF);
		return;
	}
	if (!spec_fd_path(&sp, K_REPORT, S.report, sizeof(S.report)))
		S.report[0] = '\0';
	/* the counters page is mapped when a report is first dropped: most
	 * processes never drop one */
	if (!spec_fd_path(&sp, K_COUNTERS, S.counters, sizeof(S.counters)))
		S.counters[0] = '\0';
	if (value_is(sp.v[K_MODE], sp.n[K_MODE], K.trace))
		S.mode = SHIM_TRACE;
	else if (value_is(sp.v[K_MODE], sp.n[K_MODE], K.learn))
		S.mode = SHIM_LEARN;
	/* what an exec must carry into the child */
	lib = sp.v[K_LIB];
	ll = sp.n[K_LIB];
	if (!lib || !ll || lib[0] != '/') {
		Dl_info di;
		lib = NULL;
		if (dladdr((void *)start_from_env, &di) && di.dli_fname && di.dli_fname[0] == '/') {
			lib = di.dli_fname;
			ll = len_of(lib);
		}
	}
	if (lib)
		carry_init(spec, lib, ll);
	/* [report] tell_program */
	S.tell = sp.v[K_TELL] && sp.n[K_TELL] == 1 && sp.v[K_TELL][0] == '1';
	/* the filtering proxy's SOCKS5 listener (net.c: the transparent
	 * path) and its HTTP port */
	S.socks = port_of(sp.v[K_SOCKS], sp.n[K_SOCKS]);
	S.http = port_of(sp.v[K_HTTP], sp.n[K_HTTP]);
	S.pid = shim_sys_getpid();
	atomic_store(&S.state, ST_READY);
}

void shim_start(void)
{
	int saved = shim_on_stack;

	shim_on_stack = 1; /* dladdr: nothing of ours runs meanwhile */
	start_from_env();
	shim_on_stack = saved;
}

static int state_now(void)
{
	int st = atomic_load_explicit(&S.state, memory_order_acquire);

	if (st == ST_NEW) {
		/* called before our constructor ran (another library's) */
		shim_start();
		st = atomic_load_explicit(&S.state, memory_order_acquire);
	}
	return st;
}

bool shim_ready(void)
{
	return state_now() == ST_READY && policy_get();
}

bool shim_started(void)
{
	return state_now() == ST_READY;
}

enum shim_mode shim_mode(void) { return S.mode; }
unsigned shim_socks_port(void) { return S.socks; }
unsigned shim_http_port(void) { return S.http; }
const struct policy *shim_policy(void) { return policy_get(); }
bool shim_tell_on(void) { return S.tell; }

/* ---- the cwd cache
 *
 * Relative paths are judged against the current directory, which only
 * chdir/fchdir change: those bump `gen`, and the next relative path refills
 * the cache with getcwd(). A seqlock lets every thread read it without a
 * lock. A refill is stored only by the process that owns the cache (a
 * vfork child shares this memory, but not our current directory).
 */
static struct {
	atomic_uint seq;     /* odd while being written */
	atomic_uint gen;     /* bumped by every chdir */
	unsigned valid;      /* 1 + the gen the buffer was filled in; 0: never */
	size_t len;
	char buf[PATH_MAX];
} cwdc; /* all zero: in .bss, not a page of .data every process maps */
static atomic_flag cwd_lock = ATOMIC_FLAG_INIT;

void shim_cwd_changed(void)
{
	atomic_fetch_add(&cwdc.gen, 1);
}

/* Is this process the one whose cwd the cache holds? The process that
 * started the shim, or a fork child on the thread that forked (fork()
 * keeps its pid in that thread's TLS: the TLS page is one the fork
 * already wrote, while S's would cost the child a fault). A vfork child
 * is neither, and must not fill the parent's cache with its own cwd. */

static bool owns_cwd_cache(void)
{
	pid_t me = shim_sys_getpid();

	return me == S.pid || me == shim_forked_pid;
}

/* The cache missed: ask the kernel, keep the answer (its own frame: the
 * buffer would otherwise sit on the stack of every relative path). */
static __attribute__((noinline)) int cwd_refill_join(unsigned g, const char *path, char *out,
						     size_t outsz)
{
	char tmp[PATH_MAX];

	if (!getcwd(tmp, sizeof(tmp)) || tmp[0] != '/')
		return -1; /* "(unreachable)" and the like: let the kernel judge */
	if (owns_cwd_cache() && !atomic_flag_test_and_set(&cwd_lock)) {
		atomic_fetch_add_explicit(&cwdc.seq, 1, memory_order_acq_rel);
		cwdc.len = strlen(tmp);
		memcpy(cwdc.buf, tmp, cwdc.len + 1);
		cwdc.valid = g + 1;
		atomic_fetch_add_explicit(&cwdc.seq, 1, memory_order_release);
		atomic_flag_clear(&cwd_lock);
	}
	return path_join(tmp, path, out, outsz);
}

static int cwd_join(const char *path, char *out, size_t outsz)
{
	unsigned s = atomic_load_explicit(&cwdc.seq, memory_order_acquire);
	unsigned g = atomic_load_explicit(&cwdc.gen, memory_order_acquire);
	int rc;

	if (!(s & 1) && cwdc.valid && cwdc.valid == g + 1) {
		rc = path_join_normal(cwdc.buf, cwdc.len, path, out, outsz);
		atomic_thread_fence(memory_order_acquire);
		if (atomic_load_explicit(&cwdc.seq, memory_order_relaxed) == s)
			return rc;
	}
	return cwd_refill_join(g, path, out, outsz);
}

/* What the descriptor names: the kernel's own record of it (port.h).
 * (Its own frame: the buffer would otherwise sit on the stack of every
 * absolute path's check, and in a fork child each page of stack touched
 * costs a fault; docs/PERFORMANCE.md.) */
static __attribute__((noinline)) int fd_abspath(int dirfd, const char *path, char *out,
						size_t outsz)
{
	char base[PATH_MAX];
#if defined(F_GETPATH)
	/* base holds MAXPATHLEN bytes, as F_GETPATH writes */
	if (fcntl(dirfd, F_GETPATH, base) == -1 || base[0] != '/')
		return -1;
#elif defined(__linux__)
	char link[40] = "/proc/self/fd/";
	wire_utoa((unsigned)dirfd, link + 14);
	ssize_t n = shim_sys_readlinkat(AT_FDCWD, link, base, sizeof(base) - 1);
	if (n <= 0 || base[0] != '/')
		return -1; /* a pipe, a socket, an anon inode: not a directory */
	base[n] = '\0';
	if (n > 10 && !strcmp(base + n - 10, " (deleted)"))
		return -1;
#else
	return -1; /* no record to ask: the kernel judges the call alone */
#endif
	return path_join(base, path, out, outsz) ? -1 : 0;
}

int shim_abspath(int dirfd, const char *path, char *out, size_t outsz)
{
	if (path[0] == '/')
		return path_join(NULL, path, out, outsz) ? -1 : 0;
	if (dirfd == AT_FDCWD)
		return cwd_join(path, out, outsz) ? -1 : 0;
	if (dirfd < 0)
		return -1;
	return fd_abspath(dirfd, path, out, outsz);
}

/* ---- reports */

/* How long --learn waits for room in a full pipe for one report. */
#define LEARN_WAIT_MS 1000
/* A wait ran out in this process: the next reports do not wait, until one
 * gets through again. */
static atomic_int learn_gave_up;

static long ms_between(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1000 + (b->tv_nsec - a->tv_nsec) / 1000000;
}

/* All of s[0..n) into fd, past EINTR; where fd is non-blocking and full,
 * waiting up to wait_ms for room (0: not at all). A report or a piece of
 * one (at most WIRE_ATOMIC bytes: PIPE_BUF) goes into a pipe whole or
 * not at all; a longer line may go in parts. */
bool shim_put(int fd, const char *s, size_t n, long wait_ms)
{
	struct timespec start = { 0, 0 }, now;
	bool waiting = false;

	while (n) {
		ssize_t w = shim_sys_write(fd, s, n);
		if (w > 0) {
			s += w;
			n -= (size_t)w;
			continue;
		}
		if (w == 0 || (errno != EAGAIN && errno != EINTR))
			return false;
		if (errno == EINTR)
			continue;
		/* the clock asked only once the pipe is full (port.h) */
		if (!wait_ms || shim_sys_monotonic(&now))
			return false;
		if (!waiting) {
			start = now;
			waiting = true;
		}
		long left = wait_ms - ms_between(&start, &now);
		if (left <= 0)
			return false;
		shim_sys_wait_out(fd, left);
	}
	return true;
}

#if SHIM_HANDOVER_PATHS
/* A report dropped: one byte appended to the counters file (its size is
 * the count). Not a mapping: a plain file may shrink under one. */
static void count_drop(void)
{
	int fd;

	if (!S.counters[0] || (fd = open_handed(S.counters, O_WRONLY | O_APPEND, S_IFREG)) < 0)
		return;
	shim_sys_write(fd, K.one, 1);
	sys_close(fd);
}

/* The report channel: the FIFO, or -1. */
static int open_reports(void)
{
	return open_handed(S.report, O_WRONLY, S_IFIFO);
}
#else
/* The shared counters page, mapped once (two threads racing both map
 * it; the loser unmaps its copy). NULL when it cannot be. */
static atomic_ulong *counters_page(void)
{
	atomic_ulong *d = atomic_load(&S.dropped), *want = NULL;
	void *m;
	int fd;

	if (d || !S.counters[0])
		return d;
	if ((fd = sys_open(S.counters, O_RDWR)) < 0)
		return NULL;
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	sys_close(fd);
	if (m == MAP_FAILED)
		return NULL;
	if (!atomic_compare_exchange_strong(&S.dropped, &want, (atomic_ulong *)m)) {
		munmap(m, 4096);
		return want;
	}
	return m;
}

static void count_drop(void)
{
	atomic_ulong *d = counters_page();

	if (d)
		atomic_fetch_add_explicit(d, 1, memory_order_relaxed);
}

static int open_reports(void)
{
	return sys_open(S.report, O_WRONLY | O_NONBLOCK);
}
#endif

#if WIRE_ATOMIC < WIRE_MAX
/* A line longer than the channel takes whole (macOS's FIFO: PIPE_BUF,
 * 512 bytes) as pieces (wire.h), each one write of at most WIRE_ATOMIC
 * bytes, which another writer's bytes cannot cut. Each line's id is
 * random (getentropy: a system call, safe in a signal handler), so no
 * other process can name it and break it (common/wire_join.h). *begun: a
 * piece went in; the supervisor then holds the line, and counts it
 * dropped if it never comes whole, so the shim must not count it too.
 * (Its own frame: the piece is not on the stack of every report.) */
static unsigned long long piece_id(void)
{
	static atomic_ulong count;
	unsigned long long id = 0;
	struct timespec ts = { 0, 0 };

	if (!getentropy(&id, sizeof(id)) && id)
		return id;
	/* no entropy: distinct still, if guessable */
	shim_sys_monotonic(&ts);
	id = ((unsigned long long)shim_sys_getpid() << 40) ^ (unsigned long long)ts.tv_nsec ^
	     ((unsigned long long)ts.tv_sec << 20) ^ atomic_fetch_add(&count, 1);
	return id ? id : 1;
}

static __attribute__((noinline)) bool put_pieces(int fd, const char *line, size_t len,
						 long wait_ms, bool *begun)
{
	char piece[WIRE_ATOMIC];
	size_t room = WIRE_ATOMIC - WIRE_PIECE_HEAD_MAX, off = 0;
	unsigned n = (unsigned)((len + room - 1) / room);
	unsigned long long id = piece_id();
	int pid = (int)getpid();

	for (unsigned k = 1; k <= n; k++) {
		size_t m = len - off < room ? len - off : room;
		if (!shim_put(fd, piece, wire_piece(piece, pid, id, k, n, line + off, m), wait_ms))
			return false;
		*begun = true;
		off += m;
	}
	return true;
}
#endif

/* The line into the channel: whole when it fits one atomic write, as
 * pieces when not. */
static bool put_line(int fd, const char *line, size_t n, long wait_ms, bool *begun)
{
#if WIRE_ATOMIC < WIRE_MAX
	if (n > WIRE_ATOMIC)
		return put_pieces(fd, line, n - 1 /* the newline: the last piece's */, wait_ms,
				  begun);
#endif
	(void)begun;
	return shim_put(fd, line, n, wait_ms);
}

void shim_report(char decision, enum wire_op op, const char *target, int err)
{
	char line[WIRE_MAX], comm[17] = "";
	int saved = errno, fd;
	size_t n;
	long wait_ms = 0;
	bool begun = false;

	if (!S.report[0])
		return;
	shim_comm(comm);
	n = wire_encode(line, decision, op, getpid(), comm, target, err);
	/* The program never blocks on the pipe for long: anything in the
	 * sandbox can fill it. A full pipe drops the report, counted. --learn
	 * would lose what it learns, so it waits a while for the supervisor
	 * first (once a wait ran out, not again until a report gets through:
	 * a stopped supervisor costs a process one second, not one a call). */
	if (S.mode == SHIM_LEARN && !atomic_load_explicit(&learn_gave_up, memory_order_relaxed))
		wait_ms = LEARN_WAIT_MS;
	fd = open_reports();
	if (fd >= 0 && put_line(fd, line, n, wait_ms, &begun)) {
		atomic_store_explicit(&learn_gave_up, 0, memory_order_relaxed);
	} else {
		if (wait_ms)
			atomic_store_explicit(&learn_gave_up, 1, memory_order_relaxed);
		if (!begun)
			count_drop();
	}
	if (fd >= 0)
		sys_close(fd);
	errno = saved;
}

/* --trace/--learn: each (op, path) once per process. A lossy cache: a
 * collision only means a repeat the supervisor folds. */
#define SEEN_SLOTS 4096
static atomic_ulong seen[SEEN_SLOTS];

static unsigned long hash(enum wire_op op, const char *s)
{
	unsigned long h = 1469598103934665603UL ^ (unsigned long)op;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211UL;
	return h | 1;
}

void shim_trace(enum wire_op op, const char *target)
{
	unsigned long h = hash(op, target);
	atomic_ulong *slot = &seen[h % SEEN_SLOTS];

	if (atomic_load_explicit(slot, memory_order_relaxed) == h)
		return;
	atomic_store_explicit(slot, h, memory_order_relaxed);
	shim_report(WIRE_ALLOW, op, target, 0);
}
