/* backend/relay.c: the sandbox's own terminal, and the relay to the
 * person's; both backends' (backend/linux/process.c, backend/darwin/darwin.c).
 *
 * A program that shares the person's terminal can take its foreground
 * (setpgid, tcsetpgrp) and read what is typed, also from a run started in
 * the background, and every ioctl it makes lands on that terminal. So when
 * a standard stream of ours is a terminal, COMMAND gets a pseudo-terminal
 * of its own: the master opened here, outside, on the host's /dev/ptmx
 * before bubblewrap starts; the slave becomes each of fd 0/1/2 that is a
 * terminal (the others stay the pipe or file they are), and sbx-init makes
 * it the controlling terminal of the sandbox's own session (setsid +
 * TIOCSCTTY); on macOS, with no sbx-init, the spawn's child does
 * (relay_child_session). Nothing inside then holds a descriptor of the
 * person's terminal or has it as its controlling terminal.
 *
 * Portable but for what is marked: Linux's TIOCGPTPEER, /proc/self/fd and
 * /dev/pts names; elsewhere the slave and the terminal are opened by
 * name (ptsname, ttyname; the terminal checked to be the device it was).
 *
 * The relay (served in the backend's wait loop: sandbox_wait,
 * darwin_wait): the master's output to the terminal, and the person's
 * typing to the master, raw bytes both ways. The terminal is put in raw mode while COMMAND runs in the
 * foreground (the slave does the line editing, echo and the signal keys,
 * with the caller's modes copied onto it), never while in the background,
 * and its modes are put back on every way out (relay_end(), relay_stop()).
 * The typing is read only while our process group is the terminal's
 * foreground one: a background run reads nothing, and its programs stop
 * when they read (sbx-init leaves the slave's foreground to itself then,
 * so the kernel sends them SIGTTIN), which stops us too: relay_stop().
 * Our own lines (reports, msg()) reach the terminal through
 * relay_write(): after what the relay has pending, with \r\n in raw mode.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/sysmacros.h>
#endif
#include <termios.h>
#include <unistd.h>

#include "backend/relay.h"
#include "common/msg.h"

#if defined(__linux__) && !defined(TIOCGPTPEER)
#define TIOCGPTPEER _IO('T', 0x41) /* Linux 4.13 */
#endif

static struct {
	bool on;             /* a terminal is relayed */
	int tfd;             /* the person's terminal, opened afresh (O_NONBLOCK of our own) */
	dev_t rdev;          /* its device, to know it behind another descriptor */
	int master, slave;   /* the sandbox's pty; the slave only until the spawn */
	unsigned slave_fds;  /* bit per standard stream that gets the slave */
	bool input;          /* the typing is relayed (fd 0 is the terminal, or it is our
			      * controlling terminal: /dev/tty inside reads the slave) */
	bool ctty;           /* the terminal is our controlling terminal */
	bool started;        /* COMMAND runs: the typing may be relayed */
	bool reading;        /* relaying the typing now (foreground) */
	bool raw;            /* the terminal is in raw mode by us: saved holds its modes */
	bool master_done, input_done;
	bool cmd_stopped;    /* COMMAND stopped (relay_stop): to go on at our SIGCONT */
	bool stuck;          /* the terminal took nothing for a second: not waited for
			      * again until the loop's own write goes through */
	struct termios saved;
	char tty_path[32];   /* the slave's name on the host (relay_tty_path) */
	char host_path[64];  /* the person's terminal's name (relay_host_tty_path) */
	char out[65536];     /* master -> terminal, not written yet */
	size_t outn, outoff;
	char in[4096];       /* terminal -> master, not written yet */
	size_t inn, inoff;
	/* where the program's output left the terminal's parser (sane()) */
	enum { P_GROUND, P_ESC, P_CSI, P_STRING, P_STRING_ESC } pstate;
	char csi[16];        /* a CSI's parameters so far, to tell an SGR reset */
	size_t ncsi;
	bool c2;             /* the last byte in the ground was C2 (a UTF-8 C1 may follow) */
	bool esc_paren;      /* ESC ( seen: the next byte designates G0 */
	bool sgr;            /* attributes set (colours, concealed, ...) */
	bool shifted;        /* SO: G1 in use */
	bool g0_other;       /* G0 is not ASCII (ESC ( 0: line drawing) */
} R = { .tfd = -1, .master = -1, .slave = -1 };

/* Our lines (util.c's sbx_write_text) come here while the relay is on. */
static void hook(int fd, const char *s, size_t n);

#ifdef __linux__
#define PTY_SLAVE_MAJOR 136 /* UNIX98_PTY_SLAVE_MAJOR; the minor is the index */

/* The slave's name, /dev/pts/N, kept only when that path is the very node
 * we hold (a devpts of another instance, as in some containers, leaves it
 * nameless): the nested mode grants that one terminal by name and no other
 * (landlock_spec_dev). */
static void slave_name(void)
{
	struct stat st, at;
	char p[32];
	int h;

	R.tty_path[0] = '\0';
	if (fstat(R.slave, &st) || !S_ISCHR(st.st_mode) || major(st.st_rdev) < PTY_SLAVE_MAJOR ||
	    major(st.st_rdev) > PTY_SLAVE_MAJOR + 7)
		return;
	snprintf(p, sizeof(p), "/dev/pts/%u",
		 (major(st.st_rdev) - PTY_SLAVE_MAJOR) * 256 + minor(st.st_rdev));
	h = open(p, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (h < 0)
		return;
	if (!fstat(h, &at) && S_ISCHR(at.st_mode) && at.st_dev == st.st_dev &&
	    at.st_ino == st.st_ino && at.st_rdev == st.st_rdev)
		memcpy(R.tty_path, p, sizeof(p));
	close(h);
}
#else
/* Elsewhere (macOS: /dev/ttysN): the name ptsname gives, kept only when
 * that path is the very node we hold. */
static void slave_name(void)
{
	struct stat st, at;
	char p[64];

	R.tty_path[0] = '\0';
	if (fstat(R.slave, &st) || ptsname_r(R.master, p, sizeof(p)) ||
	    strlen(p) >= sizeof(R.tty_path))
		return;
	if (!stat(p, &at) && S_ISCHR(at.st_mode) && at.st_rdev == st.st_rdev)
		memcpy(R.tty_path, p, strlen(p) + 1);
}
#endif

const char *relay_tty_path(void)
{
	return R.on ? R.tty_path : "";
}

const char *relay_host_tty_path(void)
{
	struct stat st;

	/* its name, kept when that path is the very device */
	if (R.on && !R.host_path[0] &&
	    (ttyname_r(R.tfd, R.host_path, sizeof(R.host_path)) || stat(R.host_path, &st) ||
	     !S_ISCHR(st.st_mode) || st.st_rdev != R.rdev))
		R.host_path[0] = '\0';
	return R.on ? R.host_path : "";
}

int relay_open(void)
{
	int t = -1;
	struct stat st, tst;
	struct termios tm;
	struct winsize ws;
	char p[64];

	for (int fd = 0; fd < 3; fd++)
		if (isatty(fd)) {
			if (t < 0)
				t = fd;
			R.slave_fds |= 1u << fd;
		}
	if (t < 0 || R.on)
		return 0; /* none, or opened already (the nested mode's ruleset needs its name) */
	/* Our own open of the terminal, so that O_NONBLOCK on it is ours
	 * (the caller's open file description is the shell's too); where it
	 * cannot be opened again, a copy, written blocking. */
#ifdef __linux__
	snprintf(p, sizeof(p), "/proc/self/fd/%d", t);
#else
	/* no /proc: by its name, and only when that is the same device */
	if (ttyname_r(t, p, sizeof(p)))
		p[0] = '\0';
#endif
	if (fstat(t, &st))
		goto fail;
	R.tfd = p[0] ? open(p, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC) : -1;
	if (R.tfd >= 0 && (fstat(R.tfd, &tst) || tst.st_rdev != st.st_rdev)) {
		close(R.tfd);
		R.tfd = -1;
	}
	if (R.tfd < 0 && (R.tfd = fcntl(t, F_DUPFD_CLOEXEC, 3)) < 0)
		goto fail;
	R.rdev = st.st_rdev;
	pid_t sid = tcgetsid(R.tfd);
	R.ctty = sid > 0 && sid == getsid(0);
	R.input = t == 0 || R.ctty;
#ifdef __linux__
	R.master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (R.master < 0 || unlockpt(R.master))
		goto fail;
	/* the slave by its master (no path to race for); by name before 4.13 */
	R.slave = ioctl(R.master, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
#else
	/* macOS takes no other flag here, and wants grantpt() first; the
	 * slave only by name (no TIOCGPTPEER) */
	R.master = posix_openpt(O_RDWR | O_NOCTTY);
	if (R.master < 0 || fcntl(R.master, F_SETFD, FD_CLOEXEC) || grantpt(R.master) ||
	    unlockpt(R.master))
		goto fail;
#endif
	if (R.slave < 0) {
		char name[64];
		if (ptsname_r(R.master, name, sizeof(name)) ||
		    (R.slave = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0)
			goto fail;
	}
	slave_name();
	/* the caller's modes and size: the program sees its terminal as it
	 * is. Started in the background, the modes are the shell's own while
	 * it reads the next line (readline's: no ICANON, ECHO, ICRNL): the
	 * slave gets them made cooked, as the shell gives them to a job. */
	if (tcgetattr(t, &tm) == 0) {
		if (R.ctty && tcgetpgrp(t) != getpgrp()) {
			tm.c_iflag = (tm.c_iflag | ICRNL | BRKINT) & ~(tcflag_t)(INLCR | IGNCR);
			tm.c_oflag |= OPOST | ONLCR;
			tm.c_lflag |= ICANON | ISIG | IEXTEN | ECHO | ECHOE | ECHOK | ECHOCTL | ECHOKE;
		}
		tcsetattr(R.slave, TCSANOW, &tm);
	}
	if (ioctl(t, TIOCGWINSZ, &ws) == 0)
		ioctl(R.master, TIOCSWINSZ, &ws);
	if (fcntl(R.master, F_SETFL, O_RDWR | O_NONBLOCK))
		goto fail;
	R.on = true;
	sbx_text_hook = hook;
	return 0;
fail:;
	int e = errno ? errno : EIO;
	relay_end();
	return -e;
}

bool relay_on(void)
{
	return R.on;
}

void relay_child(void)
{
	for (int fd = 0; fd < 3; fd++)
		if (R.slave_fds & (1u << fd))
			dup2(R.slave, fd);
}

int relay_child_session(int keep, int max_fd)
{
	struct stat st;

	if (setsid() < 0 || ioctl(R.slave, TIOCSCTTY, 0) < 0)
		return errno;
	relay_child();
	/* no terminal by another descriptor either (Linux's process.c holds
	 * them back too): the person's by any name, and /dev/tty opened
	 * outside (Linux binds it to the terminal it was then) */
	for (int fd = 3; fd < max_fd; fd++)
		if (fd != keep && fd != R.slave && !fstat(fd, &st) && S_ISCHR(st.st_mode) &&
		    isatty(fd))
			close(fd);
	return 0;
}

int relay_slave(void)
{
	return R.slave;
}

void relay_spawned(void)
{
	if (R.slave >= 0)
		close(R.slave);
	R.slave = -1;
}

/* Is our process group the terminal's foreground one? (Always, for a
 * terminal that is not our controlling one: nothing to tell.) */
static bool foreground(void)
{
	return !R.ctty || tcgetpgrp(R.tfd) == getpgrp();
}

bool relay_background(void)
{
	return R.on && R.input && !foreground();
}

/* Relay the typing when in the foreground, the terminal raw meanwhile. */
static void take_input(void)
{
	R.reading = false;
	if (!R.started || !R.input || R.input_done || !foreground())
		return;
	if (tcgetattr(R.tfd, &R.saved) == 0) {
		struct termios raw = R.saved;
		cfmakeraw(&raw);
		/* TCSANOW: what was typed ahead stays, and is relayed */
		R.raw = tcsetattr(R.tfd, TCSANOW, &raw) == 0;
	}
	R.reading = true;
}

static void give_back_modes(void)
{
	/* TCSANOW: output was processed as it was written, so nothing is
	 * waited for (TCSADRAIN would hold us on a frozen terminal) */
	if (R.raw)
		tcsetattr(R.tfd, TCSANOW, &R.saved);
	R.raw = false;
	R.reading = false;
}

void relay_start(void)
{
	if (!R.on || R.started)
		return;
	R.started = true;
	take_input();
}

/* Follow the program's output through the terminal's parser (ECMA-48, as
 * xterm, VTE and tmux read it), far enough to know what would swallow or
 * hide our lines: a control string left open (`ESC ]` without its end
 * takes every byte after it into a window title, ours too), a sequence
 * cut short, attributes left set (concealed, black on black), another
 * character set (line drawing). A UTF-8 C1 control (C2 80..9F) is taken
 * as an open string: not known, so cancelled. */
static void follow(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == 0x18 || c == 0x1a) { /* CAN, SUB: back to the ground, anywhere */
			R.pstate = P_GROUND;
			continue;
		}
		switch (R.pstate) {
		case P_GROUND:
			if (c == 0x1b)
				R.pstate = P_ESC, R.esc_paren = false;
			else if (c == 0x0e || c == 0x0f)
				R.shifted = c == 0x0e;
			else if (R.c2 && c >= 0x80 && c <= 0x9f)
				R.pstate = P_STRING;
			R.c2 = c == 0xc2; /* also across two reads */
			break;
		case P_STRING_ESC:
			if (c == '\\') {
				R.pstate = P_GROUND;
				break;
			}
			/* the ESC began a sequence: c is its next byte */
			R.pstate = P_ESC, R.esc_paren = false;
			/* fall through */
		case P_ESC:
			if (c == 0x1b)
				R.esc_paren = false;
			else if (c == '[')
				R.pstate = P_CSI, R.ncsi = 0;
			else if (c == ']' || c == 'P' || c == '_' || c == '^' || c == 'X')
				R.pstate = P_STRING;
			else if (c >= 0x20 && c <= 0x2f)
				R.esc_paren = c == '(';
			else {
				if (R.esc_paren)
					R.g0_other = c != 'B';
				R.pstate = P_GROUND;
			}
			break;
		case P_CSI:
			if (c == 0x1b) {
				R.pstate = P_ESC, R.esc_paren = false;
			} else if (c >= 0x40 && c <= 0x7e) {
				if (c == 'm')
					R.sgr = !(R.ncsi == 0 || (R.ncsi == 1 && R.csi[0] == '0'));
				R.pstate = P_GROUND;
			} else if (R.ncsi < sizeof(R.csi)) {
				R.csi[R.ncsi++] = (char)c;
			}
			break;
		case P_STRING:
			if (c == 0x07)
				R.pstate = P_GROUND;
			else if (c == 0x1b)
				R.pstate = P_STRING_ESC;
			break;
		}
	}
}

static void write_all(const char *s, size_t n);

/* Before a line of ours, and as the run ends: what the program left open
 * or set on the person's terminal, undone, so that nothing it wrote hides
 * what sbx says (CAN ends any sequence or string; then the attributes and
 * the character set). Nothing at all when it left none. */
static void sane(void)
{
	char b[16];
	size_t k = 0;

	if (R.pstate != P_GROUND)
		b[k++] = 0x18;
	if (R.sgr)
		memcpy(b + k, "\033[0m", 4), k += 4;
	if (R.shifted)
		b[k++] = 0x0f;
	if (R.g0_other)
		memcpy(b + k, "\033(B", 3), k += 3;
	R.pstate = P_GROUND;
	R.sgr = R.shifted = R.g0_other = R.c2 = false;
	if (k)
		write_all(b, k);
}

/* Write all of it to the terminal, waiting for room: a second at most,
 * then never again (a terminal that takes nothing, a frozen emulator:
 * the rest is dropped, not the end of the run held for a second per
 * read of the master). */
static void write_all(const char *s, size_t n)
{
	while (n && !R.stuck) {
		ssize_t w = write(R.tfd, s, n);
		if (w > 0) {
			s += w;
			n -= (size_t)w;
		} else if (w < 0 && errno == EAGAIN) {
			struct pollfd pf = { R.tfd, POLLOUT, 0 };
			if (poll(&pf, 1, 1000) == 0 || (pf.revents & (POLLERR | POLLHUP | POLLNVAL))) {
				R.stuck = true;
				return;
			}
		} else if (w < 0 && errno == EINTR) {
			continue;
		} else {
			return; /* the terminal is gone */
		}
	}
}

/* The master's output pending, written; then up to `reads` more reads of
 * it (0: until it has nothing). */
static void flush_out(unsigned reads)
{
	if (R.outn) {
		write_all(R.out + R.outoff, R.outn - R.outoff);
		R.outn = R.outoff = 0;
	}
	for (unsigned i = 0; !R.master_done && (!reads || i < reads); i++) {
		ssize_t n = read(R.master, R.out, sizeof(R.out));
		if (n > 0) {
			follow(R.out, (size_t)n);
			write_all(R.out, (size_t)n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n == 0 || errno != EAGAIN)
			R.master_done = true; /* EIO: no slave is open any more */
		break;
	}
}

void relay_poll_set(struct pollfd *pf)
{
	short m = 0;

	pf[0] = (struct pollfd){ R.reading && !R.inn ? R.tfd : -1, POLLIN, 0 };
	if (R.on && !R.master_done && !R.outn)
		m |= POLLIN;
	if (R.inn)
		m |= POLLOUT;
	pf[1] = (struct pollfd){ m ? R.master : -1, m, 0 };
	pf[2] = (struct pollfd){ R.outn ? R.tfd : -1, POLLOUT, 0 };
}

void relay_poll_run(const struct pollfd *pf)
{
	ssize_t n;

	/* the program's output, written as far as the terminal takes it
	 * (the rest when it has room: POLLOUT; the master is not read
	 * meanwhile, so a slow terminal slows the writer). A pty gives at
	 * most a few KiB a read: up to 16 of them gathered into one write,
	 * and up to 4 such rounds a turn while both sides keep up, so a
	 * program drawing at full speed costs fewer writes, wake-ups of the
	 * terminal's reader and polls. */
	bool readable = pf[1].revents & (POLLIN | POLLHUP | POLLERR);
	for (int round = 0; round < 4; round++) {
		for (int i = 0; readable && i < 16 && !R.master_done &&
				R.outn < sizeof(R.out) && !R.outoff; i++) {
			n = read(R.master, R.out + R.outn, sizeof(R.out) - R.outn);
			if (n > 0) {
				follow(R.out + R.outn, (size_t)n);
				R.outn += (size_t)n;
				continue;
			}
			if (n == 0 || (errno != EAGAIN && errno != EINTR))
				R.master_done = true;
			readable = false; /* nothing more now */
			break;
		}
		if (!R.outn)
			break;
		n = write(R.tfd, R.out + R.outoff, R.outn - R.outoff);
		if (n > 0)
			R.stuck = false; /* it takes again */
		if (n > 0 && (R.outoff += (size_t)n) == R.outn)
			R.outn = R.outoff = 0;
		else if (n < 0 && errno != EAGAIN && errno != EINTR)
			R.outn = R.outoff = 0; /* the terminal is gone: dropped */
		if (R.outn || !readable)
			break;
	}
	/* the typing */
	if (pf[0].revents & (POLLIN | POLLHUP | POLLERR) && R.reading && !R.inn) {
		n = read(R.tfd, R.in, sizeof(R.in));
		if (n > 0) {
			R.inn = (size_t)n, R.inoff = 0;
		} else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
			/* hung up; or EIO: no longer the foreground (something
			 * outside took it): read no more until SIGCONT */
			if (n == 0 || foreground())
				R.input_done = true;
			R.reading = false;
		}
	}
	if (R.inn) {
		n = write(R.master, R.in + R.inoff, R.inn - R.inoff);
		if (n > 0 && (R.inoff += (size_t)n) == R.inn)
			R.inn = R.inoff = 0;
		else if (n < 0 && errno != EAGAIN && errno != EINTR)
			R.inn = R.inoff = 0;
	}
}

void relay_winch(void)
{
	struct winsize ws;

	if (R.on && ioctl(R.tfd, TIOCGWINSZ, &ws) == 0)
		ioctl(R.master, TIOCSWINSZ, &ws); /* the kernel tells the slave's foreground */
}

int relay_signal(int sig)
{
	/* a signal key of a terminal left cooked (typing not relayed). The
	 * kernel signals the slave's foreground group (Linux's TIOCSIG takes
	 * the number; macOS's, an _IO ioctl, takes it as the argument's
	 * value too). Without it: the group the master says is the slave's
	 * foreground (only a group of the slave's own session can be). */
#ifdef TIOCSIG
	return R.on ? ioctl(R.master, TIOCSIG, sig) : -1;
#else
	pid_t pg = R.on ? tcgetpgrp(R.master) : -1;
	return pg > 1 ? killpg(pg, sig) : -1;
#endif
}

/* Stop ourselves with sig as a shell's job stops: for the default action,
 * unblocked for a moment (Linux's signalfd holds SIGTSTP blocked; the
 * darwin backend catches it), then the mask and the action as they were.
 * An orphaned process group is not stopped by SIGTSTP, SIGTTIN or SIGTTOU:
 * then we go on at once. */
static void stop_self(int sig)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL }, old;
	sigset_t one, mask;

	sigemptyset(&one);
	sigaddset(&one, sig);
	sigaction(sig, &dfl, &old);
	sigprocmask(SIG_UNBLOCK, &one, &mask);
	raise(sig);
	sigprocmask(SIG_SETMASK, &mask, NULL);
	sigaction(sig, &old, NULL);
}

bool relay_stop(int sig)
{
	/* what the program wrote as it stopped (vim's screen put back); other
	 * processes inside may write on: a bounded drain */
	flush_out(16);
	/* a read or write in the background of the pty, while we were
	 * brought to the foreground: it goes on there */
	if ((sig == SIGTTIN || sig == SIGTTOU) && R.input && R.started && foreground()) {
		if (!R.reading)
			take_input();
		return true;
	}
	sane(); /* the shell's lines, while stopped, are not taken in */
	give_back_modes();
	R.cmd_stopped = true;
	stop_self(sig == SIGTTIN || sig == SIGTTOU ? sig : SIGTSTP);
	/* continued (fg, bg): our SIGCONT is pending with the caller (the
	 * signalfd, the darwin backend's pipe), and relay_continued() goes on. Never stopped (an orphaned process
	 * group): COMMAND stays stopped until a SIGCONT reaches us, as a
	 * job would (going on at once, a background reader would stop and
	 * go on for ever). */
	return false;
}

bool relay_continued(bool *fg)
{
	bool was = R.reading, stopped = R.cmd_stopped;

	if (!R.on || !R.started)
		return false;
	R.cmd_stopped = false;
	relay_winch(); /* resized while stopped */
	if (!R.reading)
		take_input();
	*fg = !relay_background();
	return stopped || R.reading != was;
}

bool relay_tty_busy(int fd)
{
	struct termios t;
	struct stat st;

	/* the terminal is raw by us: busy is what the program made of the
	 * slave (tcgetattr on the master gives the slave's modes) */
	if (R.on && !fstat(fd, &st) && S_ISCHR(st.st_mode) && st.st_rdev == R.rdev)
		return tcgetattr(R.master, &t) == 0 && !(t.c_lflag & ICANON);
	return tcgetattr(fd, &t) == 0 && !(t.c_lflag & ICANON);
}

static void hook(int fd, const char *s, size_t n)
{
	struct stat st;

	if (!R.on || fstat(fd, &st) || !S_ISCHR(st.st_mode) || st.st_rdev != R.rdev) {
		sbx_write_plain(fd, s, n);
		return;
	}
	/* in order: after what the program wrote before it, and not inside
	 * what it left open */
	flush_out(4);
	sane();
	if (!R.raw) {
		write_all(s, n);
		return;
	}
	/* raw mode: no output processing, so each \n with its \r */
	char buf[4096];
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k + 2 > sizeof(buf)) {
			write_all(buf, k);
			k = 0;
		}
		if (s[i] == '\n' && (i == 0 || s[i - 1] != '\r'))
			buf[k++] = '\r';
		buf[k++] = s[i];
	}
	write_all(buf, k);
}

void relay_end(void)
{
	/* everything COMMAND wrote (a read waits for the pty's pending
	 * buffer work: nothing is left behind); bounded, should anything
	 * still write */
	if (R.on && R.master >= 0) {
		flush_out(256);
		sane(); /* the summary, and the shell's prompt, are not taken in */
	}
	give_back_modes();
	if (R.slave >= 0)
		close(R.slave);
	if (R.master >= 0)
		close(R.master);
	if (R.tfd >= 0)
		close(R.tfd);
	R.slave = R.master = R.tfd = -1;
	R.on = R.started = false;
	R.tty_path[0] = R.host_path[0] = '\0';
	if (sbx_text_hook == hook)
		sbx_text_hook = NULL;
}
