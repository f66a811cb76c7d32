/* net/net.h: the filtering network proxy, the only header other
 * folders include from net/ (docs/NETWORK.md).
 *
 * Three layers, each usable on its own:
 *   1. parsers (host.c, http.c, socks.c): pure functions over bytes the
 *      sandbox sent; no I/O, no allocation, every input bounded. Unit-tested
 *      and fuzzed (tests/fuzz/).
 *   2. the decision (decide.c): policy + host + port -> allow/deny and the
 *      deciding rule, then the resolved-address check, which hands back the
 *      addresses it checked so nothing is looked up twice.
 *   3. the relay (loop.c): one loop object (poller.h) the supervisor drives
 *      next to its other descriptors.
 *
 * Everything here returns 0 / -errno (or a documented count) and never
 * exits. Every byte a client sends is hostile: a parser that cannot finish
 * says "need more" (bounded by a maximum it enforces) or refuses.
 */
#ifndef SBX_NET_H
#define SBX_NET_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "common/event.h"
#include "net/poller.h"
#include "policy/policy.h"

/* ---- hosts --------------------------------------------------------------- */

enum net_host_kind {
	NET_HOST_NAME, /* a DNS name: lower-case, no trailing dot, ASCII only */
	NET_HOST_V4,   /* an IPv4 address, however it was spelled */
	NET_HOST_V6,   /* an IPv6 address (IPv4-mapped ones are NET_HOST_V4) */
};

struct net_host {
	enum net_host_kind kind;
	/* The canonical text: the name, "127.0.0.1", or "::1" (no brackets).
	 * This is what the policy is asked about and what reports show. */
	char text[256];
	struct in_addr v4;  /* NET_HOST_V4 */
	struct in6_addr v6; /* NET_HOST_V6 */
};

/* Normalise a host as a client wrote it (`len` bytes, no NUL needed):
 * lower-case, one trailing dot dropped, `[v6]` unbracketed, IPv4 spelled in
 * decimal, octal or hex, in 1 to 4 parts (`0x7f.1`, `2130706433`,
 * `0177.0.0.1`) and IPv4-mapped IPv6 (`::ffff:127.0.0.1`) recognised as the
 * IPv4 address they are. A name whose last label is numeric but is not a
 * valid IPv4 spelling (`1.2.3.4.5`, `08.1`) is refused rather than handed
 * to a resolver that might read it either way. Names must be ASCII
 * (IDNA names arrive in their xn-- form), labels 1..63 bytes of
 * [a-z0-9_-], at most 253 bytes. 0 or -EINVAL. */
int net_host_parse(const char *s, size_t len, struct net_host *out);

/* "host:port" / "[v6]:port" (the CONNECT target, a Host header): host
 * normalised as above; port 1..65535, or `default_port` when the text has
 * no port and default_port is not 0 (then a missing port is refused). */
int net_hostport_parse(const char *s, size_t len, unsigned default_port,
		       struct net_host *host, unsigned *port);

/* What kind of address this is, for the resolved-address check. */
enum net_addr_class {
	NET_ADDR_PUBLIC = 0,
	NET_ADDR_LOOPBACK,
	NET_ADDR_UNSPECIFIED, /* 0.0.0.0/8, :: */
	NET_ADDR_LINK_LOCAL,  /* 169.254/16, fe80::/10 */
	NET_ADDR_MULTICAST,   /* 224/4, ff00::/8 */
	NET_ADDR_PRIVATE,     /* RFC 1918, fc00::/7 (ULA), fec0::/10 */
	NET_ADDR_CGNAT,       /* 100.64/10 */
	NET_ADDR_METADATA,    /* cloud metadata: 169.254.169.254, fd00:ec2::254, ... */
	NET_ADDR_RESERVED,    /* 240/4, broadcast, ::/96 v4-compatible, 100::/64 */
	NET_ADDR_SELF,        /* one of this host's own addresses (getifaddrs) */
};
/* The class of an AF_INET or AF_INET6 address (never NET_ADDR_SELF: that
 * needs the host's interfaces), judged on its net_addr_canon() form. */
enum net_addr_class net_addr_classify(const struct sockaddr *sa);

/* How an address carries IPv4 (docs/NETWORK.md "Address forms"). */
enum net_addr_form {
	NET_FORM_V4,     /* AF_INET */
	NET_FORM_V6,     /* AF_INET6 carrying no IPv4 address we deliver to */
	NET_FORM_MAPPED, /* ::ffff:a.b.c.d: the kernel delivers to a.b.c.d */
	NET_FORM_NAT64,  /* 64:ff9b::a.b.c.d (RFC 6052): a NAT64 gateway does */
	NET_FORM_6TO4,   /* 2002:AABB:CCDD::/48 (RFC 3056): a 6to4 relay does */
	NET_FORM_OTHER,  /* neither family: *out is AF_UNSPEC */
};
/* The one form every address decision is made on: IPv4 carried in IPv6
 * (mapped, NAT64, 6to4) as the AF_INET address it carries, port kept;
 * any other address copied as it is. Classifying, "this host's own",
 * the policy's rules and de-duplication all compare these, never the
 * bytes as answered (::ffff:<this host> is this host). What is dialled
 * stays what was answered (NAT64 needs its gateway). Pure. */
enum net_addr_form net_addr_canon(const struct sockaddr *sa, struct sockaddr_storage *out);
/* Do a and b name one address (on their canonical forms; ports aside)? */
bool net_addr_same(const struct sockaddr *a, const struct sockaddr *b);
/* The host an AF_INET/AF_INET6 address is, as net_host_parse() would
 * give it for its text (mapped folded to NET_HOST_V4, NAT64 and 6to4 kept
 * as NET_HOST_V6); canon: the canonical form's host instead. 0, -EINVAL. */
int net_host_from_addr(const struct sockaddr *sa, bool canon, struct net_host *h);
/* An address host (V4/V6) as a sockaddr with `port`. */
void net_host_addr(const struct net_host *h, unsigned port, struct sockaddr_storage *out);
const char *net_addr_class_name(enum net_addr_class c); /* "loopback" */

/* ---- HTTP/1.1 request and response heads ---------------------------------- */

#define NET_HEAD_MAX 16384 /* a request head longer than this is refused (431) */
#define NET_HEADERS_MAX 100

enum net_body {
	NET_BODY_NONE,    /* no body */
	NET_BODY_LENGTH,  /* Content-Length bytes */
	NET_BODY_CHUNKED, /* Transfer-Encoding: chunked (request: relayed to the end) */
};

struct net_http_req {
	bool connect;           /* CONNECT host:port, else absolute-form http:// */
	char method[16];
	struct net_host host;
	unsigned port;
	size_t head_len;        /* bytes of the head, the blank line included */
	size_t path_off, path_len; /* origin-form target inside the input ("/" when empty: path_len 0) */
	unsigned minor;         /* HTTP/1.<minor>: 0 or 1 */
	bool keep_alive;        /* the client will send another request */
	enum net_body body;
	uint64_t content_length;
	bool accept_json;       /* Accept names application/json */
};

/* Parse one request head from buf[0..len). Returns the head length (> 0)
 * when a whole head parsed, 0 when more bytes are needed (len < NET_HEAD_MAX),
 * or a negative errno with *status set to the HTTP status to answer:
 * -E2BIG (431: head or header count too large), -EPROTONOSUPPORT (505: not
 * HTTP/1.0 or 1.1), -EINVAL (400: malformed; userinfo in the target; a Host
 * header naming another host than the target; bare CR or LF; obs-fold;
 * conflicting lengths), -ENOTSUP (501: https:// or other schemes, an
 * origin-form request the proxy cannot route, a transfer coding we do not
 * relay). Leading empty lines (CRLF) are skipped, as RFC 9112 2.2 allows. */
int net_http_parse_request(const char *buf, size_t len, struct net_http_req *req,
			   int *status);

/* The head to send upstream for an absolute-form request: the request line
 * in origin-form, the client's headers minus hop-by-hop ones (Connection and
 * the headers it names, Proxy-Connection, Proxy-Authorization, Keep-Alive,
 * TE, Upgrade) and `Connection: close` (one request per upstream connection,
 * so the end of each response is the upstream's EOF). Returns the length
 * written, or -E2BIG when out is too small (outsz >= head_len + 64 always
 * suffices). */
int net_http_rewrite(const char *buf, const struct net_http_req *req, char *out,
		     size_t outsz);

struct net_http_resp {
	unsigned status;
	size_t head_len;
	bool self_delimited; /* the client can find its end without an EOF */
};
/* Parse a response head (upstream bytes, also hostile). head_len > 0 when
 * parsed, 0 need more, -EINVAL malformed. `head_request`: the request was
 * HEAD (no body whatever the headers say). */
int net_http_parse_response(const char *buf, size_t len, bool head_request,
			    struct net_http_resp *resp);

/* The response head to send the client: hop-by-hop headers dropped, and,
 * when `keep_alive` (the client asked for it and the response is
 * self-delimited), the status line's version made our own HTTP/1.1;
 * otherwise `Connection: close` added. Length, or -E2BIG
 * (outsz >= head_len + 32 always suffices). */
int net_http_rewrite_response(const char *buf, const struct net_http_resp *resp,
			      bool keep_alive, char *out, size_t outsz);

/* ---- SOCKS5 (RFC 1928), no authentication ---------------------------------- */

enum {
	NET_SOCKS_OK = 0x00,
	NET_SOCKS_FAIL = 0x01,        /* general failure */
	NET_SOCKS_NOT_ALLOWED = 0x02, /* connection not allowed by ruleset */
	NET_SOCKS_NET_UNREACH = 0x03,
	NET_SOCKS_HOST_UNREACH = 0x04,
	NET_SOCKS_REFUSED = 0x05,
	NET_SOCKS_TTL = 0x06,         /* also: connect timed out */
	NET_SOCKS_BAD_CMD = 0x07,     /* BIND, UDP ASSOCIATE, anything else */
	NET_SOCKS_BAD_ATYP = 0x08,
};

/* The greeting (VER NMETHODS METHODS...). Returns the bytes it used (> 0)
 * and sets *noauth when method 0 (no authentication) was offered (answer
 * 05 00; otherwise 05 FF and close), 0 when more bytes are needed, -EINVAL
 * when it is not SOCKS5 (close without an answer). */
int net_socks_parse_greeting(const unsigned char *buf, size_t len, bool *noauth);

struct net_socks_req {
	struct net_host host;
	unsigned port;
};
/* The request (VER CMD RSV ATYP DST.ADDR DST.PORT). Returns the bytes used
 * (> 0) for a CONNECT, 0 when more are needed, or -EINVAL with *rep the
 * reply to send before closing (BIND / UDP ASSOCIATE: 0x07; unknown address
 * type: 0x08; a malformed name or port 0: 0x01). */
int net_socks_parse_request(const unsigned char *buf, size_t len,
			    struct net_socks_req *req, uint8_t *rep);

/* A reply (VER REP RSV ATYP BND.ADDR BND.PORT) into out: BND is always
 * 0.0.0.0:0, as RFC 1928 allows. The address the proxy dialled from is
 * one of this host's own, and the sandbox has no use for it but to aim
 * at this host. Returns its length (10). */
size_t net_socks_reply(uint8_t rep, unsigned char out[10]);

/* ---- the decision --------------------------------------------------------- */

/* What the decision knows about this machine: its own addresses (refreshed
 * every few seconds) and, in tests only, a hosts file that replaces DNS. */
struct net_ctx;

/* `test_hosts`: a file of `address name...` lines (the /etc/hosts format)
 * that answers every lookup instead of DNS -- a name it does not list does
 * not resolve. Test-only: callers pass getenv("SBX_TEST_HOSTS") and nothing
 * else reads it; NULL (the normal case) resolves with getaddrinfo(). A bad
 * file is -EINVAL. */
int net_ctx_new(const char *test_hosts, struct net_ctx **out);
void net_ctx_free(struct net_ctx *ctx); /* NULL is fine */
/* Count an address as this host's own (tests; the interfaces are read by
 * net_ctx_new and refreshed). sa is copied. */
int net_ctx_add_self(struct net_ctx *ctx, const struct sockaddr *sa);

enum net_verdict {
	NET_ALLOW,
	NET_DENY, /* the policy refuses: 403 / SOCKS 0x02 */
	NET_FAIL, /* allowed but it cannot be reached: no such name (502 / 0x04) */
};

#define NET_MAX_ADDRS 8

struct net_decision {
	enum net_verdict verdict;
	/* The deciding rule (borrowed from the policy), NULL when no rule
	 * allowed the host ("not in allow_domains") or the refusal is the
	 * resolved-address check's own. Its source says where it was written. */
	const struct sbx_rule *rule;
	char reason[640]; /* one line, for deny and fail */
	char fix[400];    /* how to allow it: "--allow-domain evil.example", or "" */
	/* NET_ALLOW: the checked addresses to dial, in order, port set. */
	struct sockaddr_storage addrs[NET_MAX_ADDRS];
	size_t naddrs;
};

/* The policy's word on host:port. Port-less rules allow every port (see
 * docs/NETWORK.md "Ports"). IPv6 literals are tried as written in rules
 * either way (`::1`, `[::1]:8080`); allow rules may also be CIDR ranges
 * (`10.1.0.0/16`, `[fd00::/8]:5432`), for addresses only. No I/O. */
void net_decide_policy(const struct policy *p, const struct net_host *host,
		       unsigned port, struct net_decision *d);

/* The whole decision: the policy, then (for an allowed name) resolution,
 * then the resolved-address check on every answer: loopback, link-local,
 * unspecified, multicast, private, CGNAT, metadata, reserved or this host's
 * own address refuses the connection unless an explicit rule (not `*`)
 * allows that address or a range holding it. An IP literal target gets the
 * same check. Blocks in getaddrinfo() for a name (see docs/NETWORK.md: an
 * asynchronous resolver comes with the wiring). */
void net_decide(const struct policy *p, struct net_ctx *ctx,
		const struct net_host *host, unsigned port, struct net_decision *d);

/* After resolution (asynchronous, resolve.c): the resolved-address check
 * on every answer (one refused answer refuses the name), and on success the
 * checked addresses (port set, at most NET_MAX_ADDRS) into d->addrs.
 * `allowed_by` is the rule net_decide_policy() allowed the host with. */
void net_decide_check(const struct policy *p, struct net_ctx *ctx, const struct net_host *host,
		      unsigned port, const struct sbx_rule *allowed_by,
		      const struct sockaddr_storage *addrs, size_t n, struct net_decision *d);

/* In tests (a net_ctx made with test_hosts): the file's addresses for the
 * name, at once. -ENOSYS when the context resolves with DNS; -ENOENT (err
 * set) when the file does not list the name. */
int net_ctx_test_lookup(struct net_ctx *ctx, const char *name, struct sockaddr_storage *addrs,
			size_t max, size_t *n, char *err, size_t errsz);

/* [network] host_ports (and --host-port): the distinct ports, in order,
 * up to max written; returns how many there are (may exceed max). */
size_t net_host_ports(const struct policy *p, unsigned *out, size_t max);

/* Does this run get the proxy (its own network namespace, the listeners,
 * the resolver)? When allow_domains names hosts without opening the
 * network (policy_network_proxied), when host_ports names ports, and under
 * --learn (the proxy's refusals are what allow_domains learns from);
 * never when the network is open (allow_domains = * alone). */
bool net_run_proxied(const struct policy *p, bool learn);

/* ---- DNS messages (dns.c): pure, bounded, no allocation ------------------ */

enum {
	NET_DNS_A = 1, NET_DNS_AAAA = 28,
	NET_DNS_NOERROR = 0, NET_DNS_FORMERR = 1, NET_DNS_SERVFAIL = 2,
	NET_DNS_NXDOMAIN = 3, NET_DNS_NOTIMP = 4, NET_DNS_REFUSED = 5,
	NET_DNS_EDE_BLOCKED = 15, NET_DNS_EDE_PROHIBITED = 18, /* RFC 8914 */
};

struct net_dns_query {
	uint16_t id, qtype, qclass;
	bool rd, edns;
	char name[256];   /* as asked, no trailing dot; labels of [A-Za-z0-9_-] */
	size_t qend;      /* end of the question in the message */
	unsigned rcode;   /* when parsing failed: FORMERR or NOTIMP */
};

/* A query from the sandbox: 0; -ENOTSUP (answer q->rcode: FORMERR, NOTIMP;
 * a name with bytes no host name has is FORMERR); -EINVAL (not even a
 * header, or a response: drop it, never answer). */
int net_dns_parse_query(const unsigned char *m, size_t len, struct net_dns_query *q);

/* The answer to q (qmsg: the query's bytes): rcode, one A record when `a`
 * is set, and when the query had EDNS an OPT record carrying an Extended
 * DNS Error (`ede` non-zero, `ede_text`, cut at 400 bytes). Its length, or
 * 0 when outsz is too small (1024 always suffices). */
size_t net_dns_answer(const unsigned char *qmsg, const struct net_dns_query *q, unsigned rcode,
		      const struct in_addr *a, unsigned ttl, unsigned ede, const char *ede_text,
		      unsigned char *out, size_t outsz);

/* A recursive query for name (no trailing dot) and type: its length, or 0. */
size_t net_dns_build_query(uint16_t id, const char *name, uint16_t qtype, unsigned char *out,
			   size_t outsz);

/* The nameserver's answer to (id, name, qtype): the addresses of that
 * type owned by the name or the CNAME chain from it, up to max, in order.
 * 0 (n may be 0: no such record), -ENOENT (NXDOMAIN), -EAGAIN (another
 * error code), -EINVAL (not this answer, or malformed: ignore it). */
int net_dns_parse_response(const unsigned char *m, size_t len, uint16_t id, const char *name,
			   uint16_t qtype, struct sockaddr_storage *addrs, size_t max, size_t *n);

/* ---- the stand-in map (names.c) ------------------------------------------- */

#define NET_NAMES_MAX 8192

struct net_names;
int net_names_new(struct net_names **out);
void net_names_free(struct net_names *m); /* NULL is fine */
/* The stand-in (198.19.0.0/16) for a canonical name, the same for the whole
 * run. 0, -ENOSPC (the map is full), -ENOMEM, -EINVAL. */
int net_names_addr(struct net_names *m, const char *name, struct in_addr *out);
bool net_names_is_standin(const struct in_addr *a); /* in 198.19.0.0/16 */
/* The name behind a stand-in, or NULL (none was given out). Borrowed. */
const char *net_names_name(const struct net_names *m, const struct in_addr *a);
size_t net_names_count(const struct net_names *m);

/* ---- the relay loop ------------------------------------------------------- */

enum net_listener_kind {
	NET_LISTEN_HTTP,     /* HTTP proxy: CONNECT and absolute-form plain HTTP */
	NET_LISTEN_SOCKS,    /* SOCKS5, CONNECT only */
	NET_LISTEN_DNS_UDP,  /* the sandbox's resolver, a UDP socket (dnsserve.c) */
	NET_LISTEN_DNS_TCP,  /* the same over TCP */
	NET_LISTEN_HOSTPORT, /* host_ports: relayed to the host's 127.0.0.1 at the
			      * listener's own port (net_loop_add_hostport) */
};

/* How a connection came (the event's `via`: common/event.h). */
enum net_proto {
	NET_PROTO_CONNECT = EVENT_VIA_CONNECT,   /* HTTP CONNECT tunnel */
	NET_PROTO_HTTP = EVENT_VIA_HTTP,         /* plain HTTP request */
	NET_PROTO_SOCKS = EVENT_VIA_SOCKS,       /* SOCKS5 CONNECT */
	NET_PROTO_DNS = EVENT_VIA_DNS,           /* a lookup at the sandbox's resolver (port 0) */
	NET_PROTO_HOSTPORT = EVENT_VIA_HOSTPORT, /* a host_ports connection */
	NET_PROTO_SECCOMP = EVENT_VIA_SECCOMP,   /* a program's own connect(), completed by
						  * the seccomp notify layer (net_loop_dial) */
};

/* What became of a connection or lookup: the event's decision. */
enum net_outcome {
	NET_EV_ALLOWED = WIRE_ALLOW, /* a connection is being dialled (for --trace) */
	NET_EV_DENIED = WIRE_DENY,   /* the policy refused it */
	NET_EV_FAILED = EVENT_FAILED, /* allowed but failed: no such name, refused, timed out */
	NET_EV_ERROR = EVENT_ERROR,  /* the client spoke nonsense, timed out, or over the cap */
};

/* The loop's and the resolver's reports are common/event.h's events
 * (EVENT_NET, layer EVENT_PROXY, or EVENT_NOTIFY for NET_PROTO_SECCOMP,
 * whose pid and comm are the caller's: the listeners never know them),
 * made by net_event() below; every pointer lives until the callback
 * returns. */
struct event net_event(enum net_outcome o, enum net_proto proto, const char *host,
		       unsigned port, const struct sbx_rule *rule, const char *reason,
		       const char *fix);

struct net_cfg {
	size_t max_conns;         /* 0 = 1024; over it a new client is closed at once */
	unsigned handshake_ms;    /* 0 = 10000: a head or SOCKS request must arrive by then */
	unsigned connect_ms;      /* 0 = 10000: per dial, all addresses together */
	unsigned idle_ms;         /* 0 = 600000 (10 min): no byte either way */
	bool no_splice;           /* relay tunnels through user-space buffers */
	const char *test_hosts;   /* see net_ctx_new(); NULL in production */
	/* test-only: "ADDR[:PORT]", the one nameserver to ask instead of
	 * /etc/resolv.conf (and no /etc/hosts); NULL in production */
	const char *test_dns;
	/* http_proxy_port / socks_proxy_port: every allowed connection goes
	 * through this proxy on the host's 127.0.0.1 instead of being dialled
	 * (CONNECT, or SOCKS5 by name); 0: dial directly. At most one is set. */
	unsigned chain_http_port, chain_socks_port;
	/* --learn: a host refused only for want of an allow_domains rule is
	 * reported as a candidate (event.candidate) */
	bool learn;
	void (*report)(void *rctx, const struct event *ev); /* may be NULL */
	void *rctx;
	/* once a run, when the loop first could not accept or dial for want of
	 * a descriptor of its own (EMFILE, ENFILE); may be NULL */
	void (*nofile)(void *rctx);
};

#define NET_BUF_SIZE 65536 /* per direction, per connection: the memory bound */

struct net_loop;

/* The variables COMMAND's HTTP clients find sbx's proxy by, NULL-ended
 * (docs/NETWORK.md's table): set by plan.c for bubblewrap and by the
 * darwin backend (backend/darwin/launch.c). */
extern const char *const net_http_proxy_vars[];

/* JAVA_TOOL_OPTIONS for COMMAND (the JVM reads no proxy variable): the
 * caller's options `theirs` (may be NULL), then the proxy's system
 * properties for http and https on localhost's http_port, with
 * http.nonProxyHosts as NO_PROXY's equivalent (https reads it too); after
 * theirs, since a later -D wins. malloc'd, NULL when out of memory.
 * Linux's plan and the darwin backend set the same value. */
char *net_java_tool_options(const char *theirs, unsigned http_port);

/* The loop borrows `p` (it must outlive the loop) and copies cfg. */
int net_loop_new(const struct policy *p, const struct net_cfg *cfg,
		 struct net_loop **out);
/* Serve a listening socket (made non-blocking here; the loop owns and
 * closes it). It may live in another network namespace: the loop accepts
 * there and dials in its own. */
int net_loop_add_listener(struct net_loop *l, int fd, enum net_listener_kind kind);
/* The same, for a listener other users' processes reach (the nested mode's,
 * on the host's loopback): each accepted connection is closed unless
 * peer_ok(fd) says it is served (nested.c). */
int net_loop_add_listener_checked(struct net_loop *l, int fd, enum net_listener_kind kind,
				  bool (*peer_ok)(int fd));
/* The descriptors that show the loop has work, to poll() with the
 * caller's others: n entries at *out, borrowed until the loop's next call
 * (poll() may write their revents in place; epoll: one entry, its own
 * descriptor; poll: every descriptor the loop watches). When any has
 * revents, or net_loop_timeout() is 0, call net_loop_run_once(l, 0). */
struct pollfd;
int net_loop_pollfds(struct net_loop *l, struct pollfd **out);

/* host_ports: serve a listening TCP socket (owned from now on) whose
 * connections are relayed to the host's 127.0.0.1 at `port`. */
int net_loop_add_hostport(struct net_loop *l, int fd, unsigned port);

/* A program's connect(), carried by the seccomp notify layer (notify.c):
 * decided like a proxy request for `host` (a stand-in is its name) and
 * `port`, dialled or chained in this process's namespace, and the socket
 * handed over instead of relayed: done(ctx, fd, 0) once connected (after
 * the upstream proxy's answer when chaining; never before: loop.c's
 * handed() says why), else done(ctx, -1, err): EPERM refused by the
 * policy (reported like the
 * proxy's refusals, proto NET_PROTO_SECCOMP with pid and comm), or the
 * failure (ECONNREFUSED, ETIMEDOUT, EHOSTUNREACH...). fd is the caller's to
 * close. Called exactly once unless cancelled, possibly before this
 * returns (then *out is NULL). 0, -EAGAIN (max_conns reached), -ENOMEM. */
struct net_dial;
typedef void (*net_dial_fn)(void *ctx, int fd, int err);
int net_loop_dial(struct net_loop *l, const struct net_host *host, unsigned port, int pid,
		  const char *comm, net_dial_fn fn, void *ctx, struct net_dial **out);
void net_loop_dial_cancel(struct net_loop *l, struct net_dial *d); /* NULL is fine */

/* The run's stand-in map (the sandbox's resolver gives its addresses out,
 * the proxy maps them back). Borrowed. */
struct net_names *net_loop_names(struct net_loop *l);
/* Milliseconds until the loop's next timer (timeouts), for the caller's
 * poll(); at most 1000. */
int net_loop_timeout(const struct net_loop *l);
/* Handle what is ready, waiting at most timeout_ms (-1: until something
 * happens or a timer is due). 0, or -errno when the poller itself failed. */
int net_loop_run_once(struct net_loop *l, int timeout_ms);
size_t net_loop_conns(const struct net_loop *l); /* open client connections */
void net_loop_free(struct net_loop *l); /* closes everything; NULL is fine */

/* ---- internals shared by the loop's files (resolve.c, dnsserve.c) -------- */

/* What the loop's poller events point at: each object starts with one of
 * these tags (loop.c's listeners and connection ends, watch.c's watches). */
enum net_obj { NET_OBJ_LISTENER = 1, NET_OBJ_END, NET_OBJ_WATCH };

/* Any other descriptor, served by the loop's poller (watch.c):
 * fn(ctx, fd, events) when the poller reports `events` (POLLER_IN, _OUT) on
 * fd. The watch does not own fd (del, then close it). Removing a watch is
 * safe from inside a callback, also for another watch of the same batch.
 * 0 or -errno. */
struct net_watch;
struct net_watches {
	struct poller *poller;  /* the loop's (poller.h; loop.c makes and frees it) */
	struct net_watch *dead; /* removed during a batch (net_watches_bury) */
	/* calls that failed for want of a descriptor (EMFILE, ENFILE): the
	 * loop says so once (net_cfg.nofile) */
	unsigned long nofile;
};
typedef void (*net_watch_fn)(void *ctx, int fd, uint32_t events);
int net_watch_add(struct net_watches *ws, int fd, uint32_t events, net_watch_fn fn, void *ctx,
		  struct net_watch **out);
int net_watch_mod(struct net_watches *ws, struct net_watch *w, uint32_t events);
void net_watch_del(struct net_watches *ws, struct net_watch *w); /* NULL is fine */
/* the loop: an event whose object is a watch (not one removed meanwhile) */
void net_watch_fire(struct net_watch *w, uint32_t events);
/* the loop, after a batch: frees the watches removed during it */
void net_watches_bury(struct net_watches *ws);

struct net_resolver;
struct net_lookup;
/* rc 0: addrs (port 0) in the nameserver's order; else -ENOENT (no such
 * name), -ETIMEDOUT, -EAGAIN, with err a one-line reason. */
typedef void (*net_resolved_fn)(void *ctx, int rc, const struct sockaddr_storage *addrs,
				size_t n, const char *err);
int net_resolver_new(struct net_watches *ws, const char *test_dns, struct net_resolver **out);
/* Start a lookup; fn is called exactly once, possibly before this returns
 * (an /etc/hosts answer; then *out is NULL), unless cancelled. 0 or -errno
 * (then fn is never called). */
int net_resolve(struct net_resolver *r, const char *name, net_resolved_fn fn, void *ctx,
		struct net_lookup **out);
void net_resolve_cancel(struct net_resolver *r, struct net_lookup *q); /* NULL is fine */
void net_resolver_tick(struct net_resolver *r, uint64_t now_ms);
size_t net_resolver_pending(const struct net_resolver *r);
void net_resolver_free(struct net_resolver *r);

struct net_dnsserve;
int net_dnsserve_new(struct net_watches *ws, const struct policy *p, struct net_names *names,
		     void (*report)(void *rctx, const struct event *ev), void *rctx,
		     struct net_dnsserve **out);
int net_dnsserve_add(struct net_dnsserve *s, int fd, bool tcp); /* owns fd */
void net_dnsserve_tick(struct net_dnsserve *s, uint64_t now_ms);
void net_dnsserve_free(struct net_dnsserve *s);

#endif
