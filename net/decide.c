/* net/decide.c: may the sandbox reach host:port, and at which
 * address.
 *
 * Two questions, in order. The policy's (deny_domains, then allow_domains,
 * through policy_check_domain, so the shim, the reports and the proxy never
 * disagree about a name), then the resolved-address check: a name the
 * policy allows is resolved here, in the supervisor, and every answer is
 * looked at, because a name is only as good as what it resolves to today
 * (`allowed.example` may point at 127.0.0.1, at the cloud's metadata
 * service, or at this host's own address, all of which reach services the
 * sandbox exists to keep out). The checked addresses are handed back to be
 * dialled: nothing is looked up twice, so the answer cannot change between
 * the check and the connect (DNS rebinding).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "net/net.h"
#include "net/compat.h"

#define SELF_REFRESH_S 5 /* interfaces change rarely; a lookup per connect costs */
#define TEST_HOSTS_MAX 4096

struct test_host {
	char name[256];
	struct sockaddr_storage addr;
};

struct net_ctx {
	struct test_host *hosts; /* SBX_TEST_HOSTS entries */
	size_t nhosts;
	bool use_hosts;
	struct sockaddr_storage *self; /* this host's addresses (getifaddrs) */
	size_t nself;
	time_t self_at;
	struct sockaddr_storage *extra; /* added by tests, kept across refreshes */
	size_t nextra;
};

static time_t now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static int refresh_self(struct net_ctx *c)
{
	struct ifaddrs *ifa = NULL;
	struct sockaddr_storage *v = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (getifaddrs(&ifa)) {
		rc = -errno;
		goto out;
	}
	for (struct ifaddrs *i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || (i->ifa_addr->sa_family != AF_INET &&
				     i->ifa_addr->sa_family != AF_INET6))
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 16;
			void *nv = realloc(v, nc * sizeof(*v));
			if (!nv) {
				rc = -ENOMEM;
				goto out;
			}
			v = nv;
			cap = nc;
		}
		memset(&v[n], 0, sizeof(v[n]));
		memcpy(&v[n], i->ifa_addr, i->ifa_addr->sa_family == AF_INET ?
		       sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6));
		n++;
	}
	free(c->self);
	c->self = v;
	c->nself = n;
	v = NULL;
	c->self_at = now_s();
out:
	free(v);
	if (ifa)
		freeifaddrs(ifa);
	return rc;
}

static int add_addr(struct sockaddr_storage **v, size_t *n, const struct sockaddr *sa)
{
	void *nv = realloc(*v, (*n + 1) * sizeof(**v));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	memset(&(*v)[*n], 0, sizeof(**v));
	memcpy(&(*v)[*n], sa, sa->sa_family == AF_INET ? sizeof(struct sockaddr_in) :
			      sizeof(struct sockaddr_in6));
	(*n)++;
	return 0;
}

int net_ctx_add_self(struct net_ctx *c, const struct sockaddr *sa)
{
	if (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)
		return -EAFNOSUPPORT;
	return add_addr(&c->extra, &c->nextra, sa);
}

static int text_addr(const char *t, struct sockaddr_storage *ss)
{
	struct sockaddr_in *in = (void *)ss;
	struct sockaddr_in6 *in6 = (void *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, t, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, t, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

/* The /etc/hosts format: `address name [name...]`, `#` comments. */
static int load_hosts(struct net_ctx *c, const char *path)
{
	FILE *f = fopen(path, "re");
	char line[1024];
	int rc = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *hash = strchr(line, '#');
		struct sockaddr_storage ss;

		if (hash)
			*hash = '\0';
		char *tok = strtok_r(line, " \t\r\n", &save);
		if (!tok)
			continue;
		if (text_addr(tok, &ss)) {
			rc = -EINVAL;
			goto out;
		}
		while ((tok = strtok_r(NULL, " \t\r\n", &save))) {
			struct net_host h;
			if (net_host_parse(tok, strlen(tok), &h) || h.kind != NET_HOST_NAME ||
			    c->nhosts >= TEST_HOSTS_MAX) {
				rc = -EINVAL;
				goto out;
			}
			void *nv = realloc(c->hosts, (c->nhosts + 1) * sizeof(*c->hosts));
			if (!nv) {
				rc = -ENOMEM;
				goto out;
			}
			c->hosts = nv;
			snprintf(c->hosts[c->nhosts].name, sizeof(c->hosts[0].name), "%s", h.text);
			c->hosts[c->nhosts].addr = ss;
			c->nhosts++;
		}
	}
out:
	fclose(f);
	return rc;
}

int net_ctx_new(const char *test_hosts, struct net_ctx **out)
{
	struct net_ctx *c = calloc(1, sizeof(*c));
	int rc = -ENOMEM;

	if (!c)
		goto fail;
	if (test_hosts && *test_hosts) {
		c->use_hosts = true;
		rc = load_hosts(c, test_hosts);
		if (rc)
			goto fail;
	}
	/* without interfaces the check would miss this host's own
	 * addresses: fail closed, the caller cannot run the proxy */
	rc = refresh_self(c);
	if (rc)
		goto fail;
	*out = c;
	return 0;
fail:
	net_ctx_free(c);
	return rc;
}

void net_ctx_free(struct net_ctx *c)
{
	if (!c)
		return;
	free(c->hosts);
	free(c->self);
	free(c->extra);
	free(c);
}

/* ---- the policy */

/* A CIDR rule (`10.1.0.0/16`, `10.1.0.0/16:5432`, `[fd00::/8]:443`,
 * `fd00::/8`) holding the address h on this port? */
static bool cidr_matches(const char *pat, const struct net_host *h, unsigned port)
{
	char net[INET6_ADDRSTRLEN + 8];
	const char *slash, *end, *pport = NULL;
	unsigned char want[16], have[16];
	size_t alen;

	if (h->kind == NET_HOST_NAME || !(slash = strchr(pat, '/')))
		return false;
	if (pat[0] == '[') {
		end = strchr(pat, ']');
		if (!end || (end[1] && end[1] != ':'))
			return false;
		pport = end[1] ? end + 2 : NULL;
		pat++;
	} else {
		const char *colon = strrchr(pat, ':');
		end = pat + strlen(pat);
		if (colon && colon > slash && !strchr(slash, '.') && strchr(pat, '.')) {
			pport = colon + 1; /* 10.0.0.0/8:5432 */
			end = colon;
		}
	}
	if (slash > end || (size_t)(slash - pat) >= sizeof(net))
		return false;
	if (pport) {
		char *pe;
		unsigned long v = strtoul(pport, &pe, 10);
		if (*pe || v != port)
			return false;
	}
	memcpy(net, pat, (size_t)(slash - pat));
	net[slash - pat] = '\0';
	char *le;
	unsigned long bits = strtoul(slash + 1, &le, 10);
	if (le != end || le == slash + 1)
		return false;
	if (h->kind == NET_HOST_V4) {
		if (inet_pton(AF_INET, net, want) != 1 || bits > 32)
			return false;
		memcpy(have, &h->v4, 4);
		alen = 4;
	} else {
		if (inet_pton(AF_INET6, net, want) != 1 || bits > 128)
			return false;
		memcpy(have, &h->v6, 16);
		alen = 16;
	}
	(void)alen;
	for (unsigned long i = 0; i < bits; i++) {
		unsigned m = 0x80u >> (i % 8);
		if ((want[i / 8] & m) != (have[i / 8] & m))
			return false;
	}
	return true;
}

/* Does the rule name this address itself, or a range holding it? `*`
 * does not: `allow_domains = *` opens the internet, not this host. */
static bool explicit_rule(const struct sbx_rule *r)
{
	return r && r->pattern[0] != '*';
}

/* Does deny_domains name this address (as text, bracketed, or a range
 * holding it)? */
static bool denied(const struct policy *p, const struct net_host *h, unsigned port,
		   const struct sbx_rule **why)
{
	char alt[260];
	const char *texts[2] = { h->text, NULL };
	const struct sbx_rule *w = NULL;
	size_t nt = 1;

	/* rules may write an IPv6 literal bare (`::1`) or bracketed (`[::1]:8080`) */
	if (h->kind == NET_HOST_V6) {
		snprintf(alt, sizeof(alt), "[%s]", h->text);
		texts[nt++] = alt;
	}
	for (size_t i = 0; i < nt; i++)
		if (policy_check_domain(p, texts[i], port, &w) == SBX_DENY && w) {
			*why = w;
			return true;
		}
	const struct sbx_rule *const *rs;
	size_t n;
	rs = policy_rules(p, SBX_RULE_DENY_DOMAIN, &n);
	for (size_t i = 0; i < n; i++)
		if (cidr_matches(rs[i]->pattern, h, port)) {
			*why = rs[i];
			return true;
		}
	return false;
}

/* The policy's word on a host. An address is decided on its canonical
 * form (net_addr_canon: `64:ff9b::a00:1` is 10.0.0.1), so no spelling of
 * it is allowed where the address is not; a deny rule that names the form
 * as written (`deny_domains = 64:ff9b::/96`) refuses it too: deny wins
 * on either form, allow only on the canonical one. */
static enum sbx_verdict check(const struct policy *p, const struct net_host *h,
			      unsigned port, const struct sbx_rule **why)
{
	char alt[260];
	const char *texts[2] = { h->text, NULL };
	const struct sbx_rule *w;
	enum sbx_verdict v[2] = { SBX_DENY, SBX_DENY };
	const struct sbx_rule *ws[2] = { NULL, NULL };
	size_t nt = 1;
	struct net_host canon;

	if (h->kind == NET_HOST_V6) {
		struct sockaddr_storage ss;
		net_host_addr(h, port, &ss);
		if (net_host_from_addr((const struct sockaddr *)&ss, true, &canon) == 0 &&
		    canon.kind == NET_HOST_V4) {
			if (denied(p, h, port, why))
				return SBX_DENY;
			h = &canon;
			texts[0] = h->text;
		}
	}
	if (denied(p, h, port, why))
		return SBX_DENY;
	if (h->kind == NET_HOST_V6) {
		snprintf(alt, sizeof(alt), "[%s]", h->text);
		texts[nt++] = alt;
	}
	for (size_t i = 0; i < nt; i++)
		v[i] = policy_check_domain(p, texts[i], port, &ws[i]);
	for (size_t i = 0; i < nt; i++)
		if (v[i] == SBX_ALLOW) {
			/* prefer an explicit rule over `*` for the address check */
			*why = ws[i];
			if (explicit_rule(ws[i]))
				return SBX_ALLOW;
		}
	const struct sbx_rule *const *rs;
	size_t n;
	rs = policy_rules(p, SBX_RULE_ALLOW_DOMAIN, &n);
	for (size_t i = 0; i < n; i++)
		if (cidr_matches(rs[i]->pattern, h, port)) {
			*why = rs[i];
			return SBX_ALLOW;
		}
	w = *why;
	return w ? SBX_ALLOW : SBX_DENY;
}

static void deny_text(struct net_decision *d, const struct net_host *h)
{
	if (d->rule) {
		snprintf(d->reason, sizeof(d->reason), "denied by `%s = %s` (%s)",
			 sbx_rule_key(d->rule->kind), d->rule->value, d->rule->source);
		snprintf(d->fix, sizeof(d->fix), "remove `%s = %s` (%s)",
			 sbx_rule_key(d->rule->kind), d->rule->value, d->rule->source);
	} else {
		/* allow rules are read on an address's canonical form */
		struct sockaddr_storage ss;
		struct net_host canon;
		net_host_addr(h, 0, &ss);
		if (h->kind == NET_HOST_V6 &&
		    !net_host_from_addr((const struct sockaddr *)&ss, true, &canon))
			h = &canon;
		snprintf(d->reason, sizeof(d->reason), "not in allow_domains");
		snprintf(d->fix, sizeof(d->fix), "--allow-domain %s%s%s",
			 h->kind == NET_HOST_V6 ? "[" : "", h->text,
			 h->kind == NET_HOST_V6 ? "]" : "");
	}
}

void net_decide_policy(const struct policy *p, const struct net_host *h, unsigned port,
		       struct net_decision *d)
{
	const struct sbx_rule *why = NULL;

	memset(d, 0, sizeof(*d));
	d->verdict = check(p, h, port, &why) == SBX_ALLOW ? NET_ALLOW : NET_DENY;
	d->rule = why;
	if (d->verdict == NET_DENY)
		deny_text(d, h);
}

/* ---- the resolved-address check */

static bool is_self(struct net_ctx *c, const struct sockaddr *sa)
{
	if (now_s() - c->self_at >= SELF_REFRESH_S)
		refresh_self(c); /* on failure the last list stays: still a check */
	for (size_t i = 0; i < c->nself; i++)
		if (net_addr_same((const struct sockaddr *)&c->self[i], sa))
			return true;
	for (size_t i = 0; i < c->nextra; i++)
		if (net_addr_same((const struct sockaddr *)&c->extra[i], sa))
			return true;
	return false;
}

/* 0 when the address may be dialled; else the decision says why not.
 * Decided on the canonical form (net_addr_canon): `::ffff:<this host>`
 * is this host, `64:ff9b::7f00:1` is loopback. */
static int check_addr(const struct policy *p, struct net_ctx *c, const struct net_host *target,
		      const struct sockaddr *sa, unsigned port, struct net_decision *d)
{
	struct net_host ah, canon;
	struct sockaddr_storage cs;
	const struct sbx_rule *why = NULL;
	enum net_addr_form form = net_addr_canon(sa, &cs);
	enum net_addr_class cls = net_addr_classify(sa);
	char shown[2 * INET6_ADDRSTRLEN + 4];

	if (form == NET_FORM_OTHER || net_host_from_addr(sa, false, &ah) ||
	    net_host_from_addr(sa, true, &canon)) {
		d->rule = NULL;
		snprintf(d->reason, sizeof(d->reason), "%s resolves to something that is not an "
			 "IP address", target->text);
		d->fix[0] = '\0';
		return -EACCES;
	}
	/* as answered, and what it carries when that is another address */
	if (form == NET_FORM_NAT64 || form == NET_FORM_6TO4)
		snprintf(shown, sizeof(shown), "%.*s (%.*s)", INET6_ADDRSTRLEN - 1, ah.text,
			 INET_ADDRSTRLEN - 1, canon.text);
	else
		snprintf(shown, sizeof(shown), "%.*s", INET6_ADDRSTRLEN - 1, ah.text);
	if (cls == NET_ADDR_PUBLIC && is_self(c, sa))
		cls = NET_ADDR_SELF;
	enum sbx_verdict v = check(p, &ah, port, &why);
	if (v == SBX_DENY && why) { /* deny_domains names the address */
		d->rule = why;
		deny_text(d, &ah);
		if (target->kind == NET_HOST_NAME)
			snprintf(d->reason, sizeof(d->reason), "%s resolves to %s, denied by `%s = %s` (%s)",
				 target->text, shown, sbx_rule_key(why->kind), why->value, why->source);
		return -EACCES;
	}
	if (cls == NET_ADDR_PUBLIC || (v == SBX_ALLOW && explicit_rule(why)))
		return 0;
	d->rule = NULL;
	if (target->kind == NET_HOST_NAME)
		snprintf(d->reason, sizeof(d->reason), "%s resolves to %s, a %s address",
			 target->text, shown, net_addr_class_name(cls));
	else
		snprintf(d->reason, sizeof(d->reason), "%s is a %s address",
			 shown, net_addr_class_name(cls));
	/* an allow rule is read on the canonical form: name that one */
	snprintf(d->fix, sizeof(d->fix), "--allow-domain %s%s%s:%u (that address itself)",
		 canon.kind == NET_HOST_V6 ? "[" : "", canon.text,
		 canon.kind == NET_HOST_V6 ? "]" : "", port);
	return -EACCES;
}

static int resolve(struct net_ctx *c, const char *name, struct sockaddr_storage **out,
		   size_t *n, char *err, size_t errsz)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (c->use_hosts) {
		for (size_t i = 0; i < c->nhosts; i++)
			if (!strcmp(c->hosts[i].name, name) &&
			    (rc = add_addr(out, n, (const struct sockaddr *)&c->hosts[i].addr)))
				goto out;
		if (!*n) {
			snprintf(err, errsz, "%s is not in the test hosts file", name);
			rc = -ENOENT;
		}
		goto out;
	}
	int g = getaddrinfo(name, NULL, &hints, &res);
	if (g) {
		snprintf(err, errsz, "cannot resolve %s: %s", name, gai_strerror(g));
		rc = -ENOENT;
		goto out;
	}
	for (struct addrinfo *a = res; a; a = a->ai_next) {
		if (a->ai_family != AF_INET && a->ai_family != AF_INET6)
			continue;
		bool dup = false;
		for (size_t i = 0; i < *n && !dup; i++)
			dup = net_addr_same((const struct sockaddr *)&(*out)[i], a->ai_addr);
		if (!dup && (rc = add_addr(out, n, a->ai_addr)))
			goto out;
	}
	if (!*n) {
		snprintf(err, errsz, "cannot resolve %s: no address", name);
		rc = -ENOENT;
	}
out:
	if (res)
		freeaddrinfo(res);
	return rc;
}

static void set_port(struct sockaddr_storage *ss, unsigned port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)(void *)ss)->sin_port = htons((uint16_t)port);
	else
		((struct sockaddr_in6 *)(void *)ss)->sin6_port = htons((uint16_t)port);
}

void net_decide_check(const struct policy *p, struct net_ctx *c, const struct net_host *h,
		      unsigned port, const struct sbx_rule *allowed_by,
		      const struct sockaddr_storage *addrs, size_t n, struct net_decision *d)
{
	struct sockaddr_storage a;

	d->verdict = NET_ALLOW;
	d->naddrs = 0;
	/* every answer, not only the ones we would dial: one bad answer
	 * means the name is pointed somewhere it must not lead */
	for (size_t i = 0; i < n; i++) {
		a = addrs[i];
		set_port(&a, port);
		if (check_addr(p, c, h, (const struct sockaddr *)&a, port, d)) {
			d->verdict = NET_DENY;
			d->naddrs = 0;
			return;
		}
		/* one address answered twice (an A and its mapped AAAA) is
		 * dialled once, as first answered */
		bool dup = false;
		for (size_t k = 0; k < d->naddrs && !dup; k++)
			dup = net_addr_same((const struct sockaddr *)&d->addrs[k],
					    (const struct sockaddr *)&a);
		if (!dup && d->naddrs < NET_MAX_ADDRS)
			d->addrs[d->naddrs++] = a;
	}
	d->rule = allowed_by;
}

int net_ctx_test_lookup(struct net_ctx *c, const char *name, struct sockaddr_storage *addrs,
			size_t max, size_t *n, char *err, size_t errsz)
{
	*n = 0;
	if (!c->use_hosts)
		return -ENOSYS;
	for (size_t i = 0; i < c->nhosts && *n < max; i++)
		if (!strcmp(c->hosts[i].name, name))
			addrs[(*n)++] = c->hosts[i].addr;
	if (!*n) {
		snprintf(err, errsz, "%s is not in the test hosts file", name);
		return -ENOENT;
	}
	return 0;
}

void net_decide(const struct policy *p, struct net_ctx *c, const struct net_host *h,
		unsigned port, struct net_decision *d)
{
	struct sockaddr_storage *addrs = NULL;
	size_t n = 0;

	net_decide_policy(p, h, port, d);
	if (d->verdict != NET_ALLOW)
		return;
	const struct sbx_rule *allowed_by = d->rule;
	if (h->kind != NET_HOST_NAME) {
		struct sockaddr_storage a;
		net_host_addr(h, port, &a);
		net_decide_check(p, c, h, port, allowed_by, &a, 1, d);
		return;
	}
	if (resolve(c, h->text, &addrs, &n, d->reason, sizeof(d->reason))) {
		d->verdict = NET_FAIL;
		goto out;
	}
	net_decide_check(p, c, h, port, allowed_by, addrs, n, d);
out:
	free(addrs);
}

/* ---- which runs get the proxy */

size_t net_host_ports(const struct policy *p, unsigned *out, size_t max)
{
	size_t n, k = 0;
	const struct sbx_rule *const *rs = policy_rules(p, SBX_RULE_HOST_PORT, &n);

	for (size_t i = 0; i < n; i++) {
		char *end;
		unsigned long v = strtoul(rs[i]->value, &end, 10);
		bool dup = false;
		if (*end || !v || v > 65535) /* the policy checked it; never trusted twice */
			continue;
		for (size_t j = 0; j < k && j < max; j++)
			dup |= out[j] == v;
		if (dup)
			continue;
		if (k < max)
			out[k] = (unsigned)v;
		k++;
	}
	return k;
}

bool net_run_proxied(const struct policy *p, bool learn)
{
	unsigned one;

	if (policy_network_proxied(p))
		return true;
	return !policy_network_open(p) && (learn || net_host_ports(p, &one, 1));
}

/* ---- the event a decision makes (net.h) */

struct event net_event(enum net_outcome o, enum net_proto proto, const char *host,
		       unsigned port, const struct sbx_rule *rule, const char *reason,
		       const char *fix)
{
	bool sc = proto == NET_PROTO_SECCOMP;

	return (struct event){
		.what = EVENT_NET, .layer = sc ? EVENT_NOTIFY : EVENT_PROXY,
		.decision = (char)o, .via = (enum event_via)proto, .target = host,
		.port = port, .rule = rule, .reason = reason ? reason : "",
		.fix = fix ? fix : "", .address = "", .client = "",
	};
}
