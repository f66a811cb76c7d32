/* tests/unit/net_http.c: which HTTP request heads the proxy accepts, and
 * what it sends upstream (docs/NETWORK.md "What the proxy accepts"). */
#include <errno.h>
#include <stdio.h>
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "tests/unit/helpers.h"
#include "net/net.h"

struct req_case {
	const char *head;
	int status;          /* 0: parsed; else the status to answer */
	const char *host;    /* when parsed */
	unsigned port;
};

ParameterizedTestParameters(net_http, requests)
{
	static struct req_case cases[] = {
		/* CONNECT host:port, Host agreeing or absent */
		{ "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n", 0, "example.com", 443 },
		{ "CONNECT example.com:443 HTTP/1.1\r\n\r\n", 0, "example.com", 443 },
		{ "CONNECT Example.COM.:443 HTTP/1.1\r\nHost: example.com\r\n\r\n", 0, "example.com", 443 },
		{ "CONNECT [::1]:22 HTTP/1.1\r\nHost: [::1]:22\r\n\r\n", 0, "::1", 22 },
		{ "CONNECT 0x7f.1:80 HTTP/1.1\r\n\r\n", 0, "127.0.0.1", 80 },
		{ "\r\n\r\nCONNECT a.test:1 HTTP/1.0\r\n\r\n", 0, "a.test", 1 },
		/* absolute-form http:// */
		{ "GET http://example.com/x?y HTTP/1.1\r\nHost: example.com\r\n\r\n", 0, "example.com", 80 },
		{ "GET http://example.com:8080 HTTP/1.1\r\nHost: example.com:8080\r\n\r\n", 0, "example.com", 8080 },
		{ "GET HTTP://EXAMPLE.com?q HTTP/1.1\r\n\r\n", 0, "example.com", 80 },
		{ "POST http://[2001:db8::1]:81/ HTTP/1.1\r\nContent-Length: 3\r\n\r\n", 0, "2001:db8::1", 81 },
		/* a Host header naming another host than the target */
		{ "CONNECT allowed.test:443 HTTP/1.1\r\nHost: evil.test:443\r\n\r\n", 400, NULL, 0 },
		{ "CONNECT allowed.test:443 HTTP/1.1\r\nHost: allowed.test:444\r\n\r\n", 400, NULL, 0 },
		{ "GET http://allowed.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n", 400, NULL, 0 },
		{ "GET http://allowed.test:8080/ HTTP/1.1\r\nHost: allowed.test\r\n\r\n", 400, NULL, 0 },
		{ "CONNECT a.test:443 HTTP/1.1\r\nHost: a.test\r\nHost: a.test\r\n\r\n", 400, NULL, 0 },
		/* userinfo, where URL readers disagree about the host */
		{ "GET http://allowed.com@evil.com/ HTTP/1.1\r\n\r\n", 400, NULL, 0 },
		{ "GET http://allowed.com:80@evil.com/ HTTP/1.1\r\n\r\n", 400, NULL, 0 },
		{ "CONNECT allowed.com@evil.com:443 HTTP/1.1\r\n\r\n", 400, NULL, 0 },
		{ "GET http://evil.com\\@allowed.com/ HTTP/1.1\r\n\r\n", 400, NULL, 0 },
		{ "GET http://allowed.com#@evil.com/ HTTP/1.1\r\n\r\n", 400, NULL, 0 },
		/* versions */
		{ "CONNECT a.test:443 HTTP/2.0\r\n\r\n", 505, NULL, 0 },
		{ "CONNECT a.test:443 HTTP/1.2\r\n\r\n", 505, NULL, 0 },
		{ "CONNECT a.test:443 HTTP/1\r\n\r\n", 400, NULL, 0 },
		{ "CONNECT a.test:443 http/1.1\r\n\r\n", 400, NULL, 0 },
		{ "CONNECT a.test:443\r\n\r\n", 400, NULL, 0 },
		/* bare LF, bare CR, obs-fold, whitespace before the colon, NUL */
		{ "CONNECT a.test:443 HTTP/1.1\n\n", 400, NULL, 0 },
		{ "CONNECT a.test:443 HTTP/1.1\r\nHost: a.test\n\r\n", 400, NULL, 0 },
		{ "CONNECT a.test:443 HTTP/1.1\r\nX: a\rb\r\n\r\n", 400, NULL, 0 },
		{ "CONNECT a.test:443 HTTP/1.1\r\nX: a\r\n b\r\n\r\n", 400, NULL, 0 },
		{ "CONNECT a.test:443 HTTP/1.1\r\nHost : a.test\r\n\r\n", 400, NULL, 0 },
		{ "CONNECT a.test:443 HTTP/1.1\r\n: x\r\n\r\n", 400, NULL, 0 },
		{ "CONNECT  a.test:443 HTTP/1.1\r\n\r\n", 400, NULL, 0 },
		/* request smuggling material */
		{ "POST http://a.test/ HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400, NULL, 0 },
		{ "POST http://a.test/ HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", 400, NULL, 0 },
		{ "POST http://a.test/ HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400, NULL, 0 },
		{ "POST http://a.test/ HTTP/1.1\r\nContent-Length: 1,1\r\n\r\n", 400, NULL, 0 },
		{ "POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501, NULL, 0 },
		/* a Connection list naming a framing header: the rewrite would
		 * drop it after the checks (the body becomes the next request) */
		{ "POST http://a.test/ HTTP/1.1\r\nContent-Length: 3\r\nConnection: content-length\r\n\r\n", 400, NULL, 0 },
		{ "POST http://a.test/ HTTP/1.1\r\nConnection: keep-alive, Content-Length\r\nContent-Length: 3\r\n\r\n", 400, NULL, 0 },
		{ "POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\nConnection: transfer-encoding\r\n\r\n", 400, NULL, 0 },
		{ "GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nConnection: host\r\n\r\n", 400, NULL, 0 },
		{ "GET http://a.test/ HTTP/1.1\r\nProxy-Connection: HOST\r\n\r\n", 400, NULL, 0 },
		{ "CONNECT a.test:443 HTTP/1.1\r\nConnection: close,host\r\n\r\n", 400, NULL, 0 },
		/* ... and what it may name */
		{ "GET http://a.test/ HTTP/1.1\r\nConnection: keep-alive, x-hostname, te\r\n\r\n", 0, "a.test", 80 },
		/* what a proxy does not route */
		{ "GET https://a.test/ HTTP/1.1\r\n\r\n", 501, NULL, 0 },
		{ "GET ftp://a.test/ HTTP/1.1\r\n\r\n", 501, NULL, 0 },
		{ "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n", 400, NULL, 0 },
		{ "GET http:/a.test/ HTTP/1.1\r\n\r\n", 400, NULL, 0 },
		{ "GET http:// HTTP/1.1\r\n\r\n", 400, NULL, 0 },
		{ "CONNECT a.test HTTP/1.1\r\n\r\n", 400, NULL, 0 },
		{ "CONNECT 1.2.3.4.5:443 HTTP/1.1\r\n\r\n", 400, NULL, 0 },
	};
	return cr_make_param_array(struct req_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct req_case *c, net_http, requests)
{
	struct net_http_req r;
	int status = -1;
	size_t len = strlen(c->head);
	int rc = net_http_parse_request(c->head, len, &r, &status);

	if (!c->status) {
		cr_assert_eq(rc, (int)len, "%s: rc %d status %d", c->head, rc, status);
		cr_assert_str_eq(r.host.text, c->host);
		cr_assert_eq(r.port, c->port);
		return;
	}
	cr_assert_lt(rc, 0, "%s: accepted", c->head);
	cr_assert_eq(status, c->status, "%s: status %d, expected %d", c->head, status, c->status);
}

Test(net_http, every_truncation_of_a_good_head_waits_for_more)
{
	const char *h = "POST http://a.test:81/p HTTP/1.1\r\nHost: a.test:81\r\nContent-Length: 5\r\n\r\n";
	struct net_http_req r;
	int status;

	for (size_t n = 0; n < strlen(h); n++)
		cr_assert_eq(net_http_parse_request(h, n, &r, &status), 0, "at %zu", n);
	cr_assert_eq(net_http_parse_request(h, strlen(h), &r, &status), (int)strlen(h));
	cr_assert_eq(r.body, NET_BODY_LENGTH);
	cr_assert_eq(r.content_length, 5);
	cr_assert(r.keep_alive);
}

Test(net_http, a_head_over_16_kib_is_431)
{
	static char big[NET_HEAD_MAX + 100];
	struct net_http_req r;
	int status;
	size_t o = (size_t)sprintf(big, "CONNECT a.test:443 HTTP/1.1\r\n");

	while (o < sizeof(big) - 1)
		big[o++] = 'x'; /* one endless header line */
	cr_assert_eq(net_http_parse_request(big, NET_HEAD_MAX - 1, &r, &status), 0);
	cr_assert_eq(net_http_parse_request(big, sizeof(big) - 1, &r, &status), -E2BIG);
	cr_assert_eq(status, 431);
}

Test(net_http, more_than_100_headers_is_431)
{
	char h[4096];
	size_t o = (size_t)sprintf(h, "CONNECT a.test:443 HTTP/1.1\r\n");
	struct net_http_req r;
	int status;

	for (int i = 0; i < 101; i++)
		o += (size_t)sprintf(h + o, "X%d: y\r\n", i);
	o += (size_t)sprintf(h + o, "\r\n");
	cr_assert_eq(net_http_parse_request(h, o, &r, &status), -E2BIG);
	cr_assert_eq(status, 431);
}

Test(net_http, bytes_after_a_connect_head_are_not_part_of_it)
{
	const char *h = "CONNECT a.test:443 HTTP/1.1\r\n\r\n\x16\x03\x01";
	struct net_http_req r;
	int status;

	cr_assert_eq(net_http_parse_request(h, strlen(h), &r, &status), (int)strlen(h) - 3);
	cr_assert(r.connect);
}

Test(net_http, accept_json_is_noticed)
{
	const char *h = "CONNECT a.test:443 HTTP/1.1\r\nAccept: text/html, Application/JSON;q=0.9\r\n\r\n";
	struct net_http_req r;
	int status;

	cr_assert_gt(net_http_parse_request(h, strlen(h), &r, &status), 0);
	cr_assert(r.accept_json);
}

Test(net_http, keep_alive_follows_version_and_connection)
{
	struct net_http_req r;
	int status;
	const char *a = "GET http://a.test/ HTTP/1.1\r\nProxy-Connection: close\r\n\r\n";
	const char *b = "GET http://a.test/ HTTP/1.0\r\n\r\n";
	const char *c = "POST http://a.test/ HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n";

	cr_assert_gt(net_http_parse_request(a, strlen(a), &r, &status), 0);
	cr_assert_not(r.keep_alive);
	cr_assert_gt(net_http_parse_request(b, strlen(b), &r, &status), 0);
	cr_assert_not(r.keep_alive);
	cr_assert_gt(net_http_parse_request(c, strlen(c), &r, &status), 0);
	cr_assert_eq(r.body, NET_BODY_CHUNKED);
}

Test(net_http, rewrite_sends_origin_form_without_hop_by_hop_headers)
{
	const char *h = "GET http://a.test:8080/x/y?q=1 HTTP/1.1\r\nHost: a.test:8080\r\n"
			"Proxy-Connection: Keep-Alive\r\nProxy-Authorization: Basic eA==\r\n"
			"Connection: X-Secret\r\nX-Secret: 1\r\nUser-Agent: t\r\nKeep-Alive: 5\r\n\r\n";
	struct net_http_req r;
	char out[1024];
	int status;

	cr_assert_gt(net_http_parse_request(h, strlen(h), &r, &status), 0);
	int n = net_http_rewrite(h, &r, out, sizeof(out));
	cr_assert_gt(n, 0);
	out[n] = '\0';
	cr_assert_str_eq(out, "GET /x/y?q=1 HTTP/1.1\r\nHost: a.test:8080\r\nUser-Agent: t\r\n"
			      "Connection: close\r\n\r\n");
}

Test(net_http, rewrite_of_an_empty_path_is_slash)
{
	const char *h = "GET http://a.test?q HTTP/1.1\r\n\r\n";
	struct net_http_req r;
	char out[256];
	int status;

	cr_assert_gt(net_http_parse_request(h, strlen(h), &r, &status), 0);
	int n = net_http_rewrite(h, &r, out, sizeof(out));
	cr_assert_gt(n, 0);
	out[n] = '\0';
	cr_assert_str_eq(out, "GET /?q HTTP/1.1\r\nConnection: close\r\n\r\n");
}

Test(net_http, rewrite_refuses_a_small_buffer)
{
	const char *h = "GET http://a.test/ HTTP/1.1\r\nUser-Agent: t\r\n\r\n";
	struct net_http_req r;
	char out[30];
	int status;

	cr_assert_gt(net_http_parse_request(h, strlen(h), &r, &status), 0);
	cr_assert_eq(net_http_rewrite(h, &r, out, sizeof(out)), -E2BIG);
}

struct resp_case {
	const char *head;
	bool head_req;
	int ok;              /* 1 parsed, 0 need more, -1 malformed */
	bool self_delimited;
};

ParameterizedTestParameters(net_http, responses)
{
	static struct resp_case cases[] = {
		{ "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", false, 1, true },
		{ "HTTP/1.0 200 OK\r\nContent-Length: 5\r\n\r\n", false, 1, true },
		{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", false, 1, true },
		{ "HTTP/1.1 200 OK\r\n\r\n", false, 1, false },
		{ "HTTP/1.1 200 OK\r\n\r\n", true, 1, true },
		{ "HTTP/1.1 204 No Content\r\n\r\n", false, 1, true },
		{ "HTTP/1.1 304 Not Modified\r\n\r\n", false, 1, true },
		{ "HTTP/1.1 100 Continue\r\n\r\n", false, 1, false },
		{ "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", false, 1, false },
		{ "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n", false, 0, false },
		{ "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n", false, -1, false },
		/* its framing named hop-by-hop: the client would get it without */
		{ "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: content-length\r\n\r\n", false, -1, false },
		{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: Transfer-Encoding\r\n\r\n", false, -1, false },
		{ "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: keep-alive\r\n\r\n", false, 1, true },
		{ "HTTP/1.1 20 OK\r\n\r\n", false, -1, false },
		{ "ICY 200 OK\r\n\r\n", false, -1, false },
	};
	return cr_make_param_array(struct resp_case, cases, ARRAY_LEN(cases));
}

ParameterizedTest(struct resp_case *c, net_http, responses)
{
	struct net_http_resp r;
	int rc = net_http_parse_response(c->head, strlen(c->head), c->head_req, &r);

	if (c->ok == 1) {
		cr_assert_eq(rc, (int)strlen(c->head), "%s: rc %d", c->head, rc);
		cr_assert_eq(r.self_delimited, c->self_delimited, "%s", c->head);
	} else if (c->ok == 0) {
		cr_assert_eq(rc, 0, "%s", c->head);
	} else {
		cr_assert_lt(rc, 0, "%s", c->head);
	}
}

Test(net_http, response_rewrite_keeps_the_client_connection_open_when_it_can)
{
	const char *h = "HTTP/1.0 200 OK\r\nServer: x\r\nConnection: close\r\nContent-Length: 2\r\n\r\n";
	struct net_http_resp r;
	char out[256];

	cr_assert_gt(net_http_parse_response(h, strlen(h), false, &r), 0);
	int n = net_http_rewrite_response(h, &r, true, out, sizeof(out));
	cr_assert_gt(n, 0);
	out[n] = '\0';
	cr_assert_str_eq(out, "HTTP/1.1 200 OK\r\nServer: x\r\nContent-Length: 2\r\n\r\n");
	n = net_http_rewrite_response(h, &r, false, out, sizeof(out));
	out[n] = '\0';
	cr_assert_str_eq(out, "HTTP/1.0 200 OK\r\nServer: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n");
}
