/* backend/linux/nested.c: the nested mode (nested.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "net/net.h"
#include "backend/linux/nested.h"
#include "common/reap.h"
#include "backend/linux/process.h"
#include "backend/relay.h"
#include "common/msg.h"
#include "policy/policy.h"
#include "common/probe.h"

extern char **environ;

int nested_check(struct nested *n, const struct policy *p, char *why, size_t whysz)
{
	n->abi = probe_landlock_abi();
	if (n->abi < 1) {
		snprintf(why, whysz, "this kernel has no Landlock (Linux 5.13 or later with "
			 "landlock in its lsm= list is needed)");
		return -EOPNOTSUPP;
	}
	if (n->abi < 4 && !policy_network_open(p)) {
		snprintf(why, whysz, "this kernel's Landlock (ABI %d) has no TCP rules, so "
			 "the network policy cannot be held (ABI 4, Linux 6.7, is needed; "
			 "allow_domains = * needs none)", n->abi);
		return -EOPNOTSUPP;
	}
	if (policy_home_mode(p) == SBX_HOME_EPHEMERAL) {
		snprintf(why, whysz, "home = ephemeral needs the sandbox's private /tmp, which "
			 "the nested mode does not have");
		return -EOPNOTSUPP;
	}
	return 0;
}

bool nested_host_ports(const struct policy *p, char *why, size_t whysz)
{
	unsigned one;

	if (policy_network_open(p) || !net_host_ports(p, &one, 1))
		return false;
	snprintf(why, whysz, "Landlock filters TCP by port, not address: port %u would be "
		 "reached on every address", one);
	return true;
}

/* One listener on the host's 127.0.0.1, at a port the kernel picks. */
static int listen_any(unsigned *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0), e;

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 128) ||
	    getsockname(fd, (struct sockaddr *)&a, &al)) {
		e = errno;
		close(fd);
		return -e;
	}
	*port = ntohs(a.sin_port);
	return fd;
}

int nested_listen(struct nested *n)
{
	unsigned *ports[2] = { &n->http_port, &n->socks_port };

	for (int i = 0; i < 2; i++) {
		int fd = listen_any(ports[i]);
		if (fd < 0)
			return fd;
		n->listen[i] = fd;
	}
	n->proxied = true;
	return 0;
}

/* ---- who may use the listeners
 *
 * They are on the host's loopback, where every local user's process can
 * connect. A connection is served only when the socket at its other end
 * is this run's user's and still held by a process (an inode: a closed
 * one's, or a TIME_WAIT one's, says uid 0 and inode 0). The kernel is
 * asked for that one socket by its four (NETLINK_SOCK_DIAG: microseconds);
 * where that cannot answer (no inet_diag in this kernel) /proc/net/tcp is
 * read (milliseconds to tens of them: the whole table). Also an IPv6
 * socket connected to 127.0.0.1 by its mapped form. Processes of the same
 * user outside the run are not told apart: they can already do all the
 * user can (ptrace the run). */

/* The owner and inode of the TCP socket of `family` at laddr:lport
 * connected to raddr:rport (addresses and ports in network order), from
 * the kernel: 0, or -errno (-ENOENT: none, or no inet_diag here). */
static int diag_owner(int family, const void *laddr, uint16_t lport, const void *raddr,
		      uint16_t rport, uint32_t *uid, uint32_t *ino)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 r;
	} req = { .nlh = { .nlmsg_len = sizeof(req), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			   .nlmsg_flags = NLM_F_REQUEST },
		  .r = { .sdiag_family = (uint8_t)family, .sdiag_protocol = IPPROTO_TCP,
			 .idiag_states = ~0u } };
	union {
		struct nlmsghdr h;
		char buf[1024];
	} ans;
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK }, from;
	socklen_t fl = sizeof(from);
	size_t alen = family == AF_INET ? 4 : 16;
	int s = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG), rc = -ENOENT;
	ssize_t n;

	if (s < 0)
		return -errno;
	req.r.id.idiag_sport = lport;
	req.r.id.idiag_dport = rport;
	memcpy(req.r.id.idiag_src, laddr, alen);
	memcpy(req.r.id.idiag_dst, raddr, alen);
	req.r.id.idiag_cookie[0] = req.r.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	if (sendto(s, &req, sizeof(req), 0, (struct sockaddr *)&nl, sizeof(nl)) < 0) {
		rc = -errno;
		goto out;
	}
	/* the kernel answers within sendto(): nothing to wait for */
	n = recvfrom(s, &ans, sizeof(ans), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
	if (n < 0) {
		rc = -errno;
		goto out;
	}
	if (from.nl_pid != 0 || !NLMSG_OK(&ans.h, (size_t)n))
		goto out; /* not the kernel's */
	if (ans.h.nlmsg_type == NLMSG_ERROR &&
	    ans.h.nlmsg_len >= NLMSG_LENGTH(sizeof(struct nlmsgerr))) {
		const struct nlmsgerr *e = NLMSG_DATA(&ans.h);
		rc = e->error < 0 ? e->error : -ENOENT;
	} else if (ans.h.nlmsg_type == SOCK_DIAG_BY_FAMILY &&
		   ans.h.nlmsg_len >= NLMSG_LENGTH(sizeof(struct inet_diag_msg))) {
		const struct inet_diag_msg *m = NLMSG_DATA(&ans.h);
		if (m->id.idiag_sport == lport && m->id.idiag_dport == rport &&
		    !memcmp(m->id.idiag_src, laddr, alen) && !memcmp(m->id.idiag_dst, raddr, alen)) {
			*uid = m->idiag_uid;
			*ino = m->idiag_inode;
			rc = 0;
		}
	}
out:
	close(s);
	return rc;
}

/* The same from `table` (/proc/net/tcp or tcp6) by its text: the socket
 * at `local` connected to `rem`. 0 or -ENOENT. */
static int table_owner(const char *table, const char *local, const char *rem, uint32_t *uid,
		       uint32_t *ino)
{
	FILE *f = fopen(table, "re");
	char line[512];
	int rc = -ENOENT;

	if (!f)
		return -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		char l[80], r[80];
		unsigned long u, i;
		if (sscanf(line, "%*s %79s %79s %*s %*s %*s %*s %lu %*s %lu", l, r, &u, &i) != 4 ||
		    strcmp(l, local) || strcmp(r, rem))
			continue;
		*uid = (uint32_t)u;
		*ino = (uint32_t)i;
		rc = 0;
		break;
	}
	fclose(f);
	return rc;
}

static bool peer_ok(int fd)
{
	static bool said;
	struct sockaddr_in me, peer;
	socklen_t ml = sizeof(me), pl = sizeof(peer);
	uint32_t uid = 0, ino = 0;
	struct in6_addr pm = { 0 }, mm = { 0 };
	int rc;

	if (getsockname(fd, (struct sockaddr *)&me, &ml) ||
	    getpeername(fd, (struct sockaddr *)&peer, &pl) || me.sin_family != AF_INET ||
	    peer.sin_family != AF_INET)
		return false;
	/* the mapped forms, for an IPv6 socket at the other end */
	pm.s6_addr32[2] = mm.s6_addr32[2] = htonl(0xffff);
	pm.s6_addr32[3] = peer.sin_addr.s_addr;
	mm.s6_addr32[3] = me.sin_addr.s_addr;
	rc = diag_owner(AF_INET, &peer.sin_addr, peer.sin_port, &me.sin_addr, me.sin_port, &uid, &ino);
	if (rc)
		rc = diag_owner(AF_INET6, &pm, peer.sin_port, &mm, me.sin_port, &uid, &ino);
	if (rc) {
		/* as the kernel prints them: each 32-bit word as a number,
		 * the port in host order */
		char l4[32], r4[32], l6[64], r6[64];
		snprintf(l4, sizeof(l4), "%08X:%04X", (unsigned)peer.sin_addr.s_addr,
			 ntohs(peer.sin_port));
		snprintf(r4, sizeof(r4), "%08X:%04X", (unsigned)me.sin_addr.s_addr, ntohs(me.sin_port));
		snprintf(l6, sizeof(l6), "0000000000000000%08X%s", (unsigned)htonl(0xffff), l4);
		snprintf(r6, sizeof(r6), "0000000000000000%08X%s", (unsigned)htonl(0xffff), r4);
		rc = table_owner("/proc/net/tcp", l4, r4, &uid, &ino);
		if (rc)
			rc = table_owner("/proc/net/tcp6", l6, r6, &uid, &ino);
	}
	if (!rc && uid == (uint32_t)geteuid() && ino != 0)
		return true;
	if (!said)
		msg("refused a connection to the proxy's listener on the host's 127.0.0.1 from a "
		    "process of another user's (the nested mode's listeners serve this run's only)");
	said = true;
	return false;
}

int nested_serve(struct nested *n, struct net_loop *net)
{
	static const enum net_listener_kind kinds[2] = { NET_LISTEN_HTTP, NET_LISTEN_SOCKS };

	for (int i = 0; i < 2; i++) {
		int e = net_loop_add_listener_checked(net, n->listen[i], kinds[i], peer_ok);
		n->listen[i] = -1; /* the loop's, also when it refused it */
		if (e)
			return e;
	}
	return 0;
}

/* ---- COMMAND's environment and directory, from bubblewrap's options */

static int env_set(struct strv *env, const char *name, const char *value)
{
	size_t len = strlen(name);

	for (size_t i = 0; i < env->n; i++)
		if (!strncmp(env->v[i], name, len) && env->v[i][len] == '=') {
			char *s;
			if (value && asprintf(&s, "%s=%s", name, value) < 0)
				return -ENOMEM;
			free(env->v[i]);
			if (value) {
				env->v[i] = s;
			} else {
				memmove(env->v + i, env->v + i + 1, (env->n - i) * sizeof(*env->v));
				env->n--;
			}
			return 0;
		}
	return value ? strv_addf(env, "%s=%s", name, value) : 0;
}

/* The options plan_bwrap() gives bubblewrap, with how many arguments each
 * takes. One not here stops the nested mode: what it would have done
 * cannot be left out unseen. */
static const struct {
	const char *name;
	int nargs;
} bwrap_opts[] = {
	{ "--unshare-user", 0 }, { "--unshare-pid", 0 }, { "--unshare-ipc", 0 },
	{ "--unshare-uts", 0 }, { "--unshare-cgroup-try", 0 }, { "--unshare-net", 0 },
	{ "--die-with-parent", 0 }, { "--as-pid-1", 0 }, { "--cap-drop", 1 },
	{ "--cap-add", 1 }, { "--ro-bind", 2 }, { "--bind", 2 }, { "--tmpfs", 1 },
	{ "--setenv", 2 }, { "--unsetenv", 1 }, { "--chdir", 1 },
};

static int environment(struct nested *n, const struct plan *pl, char *why, size_t whysz)
{
	for (char **e = environ; *e; e++)
		if (strv_add(&n->env, *e))
			return -ENOMEM;
	snprintf(n->cwd, sizeof(n->cwd), "/");
	for (size_t i = 1; i + 1 < pl->init_at;) {
		const char *a = pl->argv.v[i];
		size_t k;
		for (k = 0; k < sizeof(bwrap_opts) / sizeof(*bwrap_opts); k++)
			if (!strcmp(a, bwrap_opts[k].name))
				break;
		if (k == sizeof(bwrap_opts) / sizeof(*bwrap_opts) ||
		    i + (size_t)bwrap_opts[k].nargs + 1 >= pl->init_at) {
			snprintf(why, whysz, "the nested mode cannot do bubblewrap's %s", a);
			return -EINVAL;
		}
		char *const *v = pl->argv.v + i + 1;
		int rc = 0;
		if (!strcmp(a, "--setenv"))
			rc = env_set(&n->env, v[0], v[1]);
		else if (!strcmp(a, "--unsetenv"))
			rc = env_set(&n->env, v[0], NULL);
		else if (!strcmp(a, "--chdir"))
			snprintf(n->cwd, sizeof(n->cwd), "%s", v[0]);
		if (rc)
			return rc;
		i += 1 + (size_t)bwrap_opts[k].nargs;
	}
	return 0;
}

/* The network as Landlock can hold it: TCP connect (and bind) by port.
 * Not host_ports: a port granted is granted on every address
 * (nested_host_ports). */
static int network(struct nested *n, const struct policy *p)
{
	int rc = 0;

	if (policy_network_open(p))
		return 0;
	n->spec.net_connect = true;
	n->udp_block = true;
	n->spec.net_bind = !policy_allow_local_binding(p);
	if (n->proxied) {
		rc = landlock_spec_port(&n->spec, n->http_port);
		if (!rc)
			rc = landlock_spec_port(&n->spec, n->socks_port);
	}
	return rc;
}

static void weaker_text(struct nested *n, const struct policy *p)
{
	size_t len = 0;
	const char *parts[16];
	size_t k = 0;

	parts[k++] = "the host's /tmp, /dev/shm and processes";
	if (!policy_network_open(p))
		parts[k++] = "TCP filtered by port, not address (UDP refused)";
	if (!policy_network_open(p) && policy_allow_local_binding(p))
		parts[k++] = "servers bind on the host";
	parts[k++] = "protected names missing at start not guarded";
	parts[k++] = "directories holding a protected path take no new names";
	parts[k++] = "denied directories listable";
	parts[k++] = "no new pty inside (only the run's own terminal)";
	if (getuid() == 0 || geteuid() == 0)
		parts[k++] = "no chmod or chown at all (root)";
	/* what this kernel's Landlock cannot hold (docs/SECURITY.md, "The
	 * nested mode", per ABI) */
	if (n->abi < 2)
		parts[k++] = "no file moved or linked to another directory (Landlock ABI 1)";
	if (n->abi < 3)
		parts[k++] = "truncation by path and O_TRUNC without write refused everywhere, "
			     "the workspace too (Landlock ABI < 3 has no truncate right)";
	if (n->abi < 5)
		parts[k++] = "device ioctls not filtered (Landlock ABI < 5)";
	if (n->abi < 6)
		parts[k++] = "abstract Unix sockets and signals not scoped (Landlock ABI < 6)";
	n->weaker[0] = '\0';
	for (size_t i = 0; i < k; i++) {
		int w = snprintf(n->weaker + len, sizeof(n->weaker) - len, "%s%s",
				 i ? ", " : "", parts[i]);
		if (w < 0 || (size_t)w >= sizeof(n->weaker) - len)
			break;
		len += (size_t)w;
	}
}

int nested_spawn(struct nested *n, const struct policy *p, const struct plan *pl,
		 const char *init, char *const *command, struct sandbox *sb,
		 char *why, size_t whysz)
{
	int ruleset = -1, rc;

	snprintf(why, whysz, "the nested mode");
	rc = landlock_spec_from_plan(pl, &n->spec);
	/* the sandbox's own terminal first: it is the one terminal the
	 * ruleset lets COMMAND open by name (docs/SECURITY.md, "The nested
	 * mode"); spawn_prepare() finds it open */
	if (!rc && (rc = relay_open()))
		snprintf(why, whysz, "a terminal of the sandbox's own (a pty from /dev/ptmx)");
	if (!rc)
		rc = landlock_spec_dev(&n->spec, relay_tty_path());
	if (!rc)
		rc = network(n, p);
	if (!rc)
		rc = environment(n, pl, why, whysz);
	if (!rc)
		rc = landlock_ruleset(&n->spec, n->abi, &ruleset, why, whysz);
	if (rc) {
		relay_end();
		return rc;
	}
	weaker_text(n, p);
	/* a process of COMMAND's whose sbx-init is killed comes to us (no pid
	 * namespace ends with it): nested_reap() */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) {
		rc = -errno;
		snprintf(why, whysz, "becoming the run's subreaper");
		close(ruleset);
		relay_end();
		return rc;
	}
	rc = sandbox_spawn_nested(sb, init, command, ruleset, n->env.v, n->cwd);
	if (rc)
		snprintf(why, whysz, "starting sbx-init");
	close(ruleset);
	return rc;
}

/* sbx-init's own options: what it takes in the nested mode. */
static bool init_own(const char *a)
{
	static const char *const own[] = { "--unix=", "--ignored=", "--limit-", "--env=",
					   "--verbose", "--notify" };

	for (size_t i = 0; i < sizeof(own) / sizeof(*own); i++)
		if (!strncmp(a, own[i], strlen(own[i])))
			return true;
	return false;
}

int nested_go(const struct nested *n, struct sandbox *sb, const struct plan *pl,
	      const int *fds, size_t nfds)
{
	struct plan go = { 0 };
	char none = '\0';
	int rc = strv_add(&go.argv, "nested");

	go.init_at = 0;
	/* sbx-init, its own options, then (the plan's last before COMMAND
	 * is the "--" that ends them) the [nested, network not open] and
	 * [nested, Landlock ABI < 3] rows (seccomp/rules.h), the notify
	 * program for a file's mode and owner, and "--" */
	for (size_t i = pl->init_at; !rc && i + 1 < pl->cmd_at; i++)
		if (i == pl->init_at || init_own(pl->argv.v[i]))
			rc = strv_add(&go.argv, pl->argv.v[i]);
	if (!rc && n->udp_block)
		rc = strv_add(&go.argv, "--udp=block");
	if (!rc && n->abi < 3)
		rc = strv_add(&go.argv, "--trunc=block");
	if (!rc && n->notify_modes)
		rc = strv_add(&go.argv, "--notify=modes");
	if (!rc)
		rc = strv_add(&go.argv, "--");
	go.init_at = 1;
	go.cmd_at = go.argv.n;
	go.placeholder_state = &none;
	if (!rc)
		rc = sandbox_go(sb, &go, fds, nfds);
	go.placeholder_state = NULL;
	strv_free(&go.argv);
	return rc;
}

void nested_text(const struct nested *n, char *layers, size_t lsz)
{
	snprintf(layers, lsz, "nested mode (%s): Landlock ABI %d and the seccomp table, no "
		 "namespaces; weaker than the full boundary: %s", n->why ? n->why : "nested = true",
		 n->abi, n->weaker);
}

void nested_reap(void)
{
	/* our children, then the orphans their death hands us (we are the
	 * subreaper), until none is left */
	while (reap_kill_children() > 0)
		while (waitpid(-1, NULL, 0) < 0)
			if (errno != EINTR)
				return;
}

void nested_free(struct nested *n)
{
	for (int i = 0; i < 2; i++)
		if (n->listen[i] >= 0)
			close(n->listen[i]);
	n->listen[0] = n->listen[1] = -1;
	landlock_spec_free(&n->spec);
	strv_free(&n->env);
}
