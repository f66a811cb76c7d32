/* tests/unit/shim_namemap.c: allowed names as stand-in addresses.
 *
 * The shim answers a lookup of an allowed name in a proxied run with an
 * address from 198.18.0.0/15 that stands for the name, and turns a connect
 * to it back into the name for the proxy (shim/namemap.c, shim/net.c).
 * Criterion runs each test in a process of its own: each starts with an
 * empty table.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "tests/unit/helpers.h"
#include "shim/namemap.h"

static const char *text(struct in_addr a)
{
	static char buf[4][INET_ADDRSTRLEN];
	static int i;

	i = (i + 1) % 4;
	return inet_ntop(AF_INET, &a, buf[i], sizeof(buf[i]));
}

Test(shim_namemap, a_name_keeps_its_address_and_the_address_its_name)
{
	struct in_addr a, b, c;
	char name[SHIM_NAME_MAX];

	cr_assert_eq(shim_namemap_addr("github.com", &a), 0);
	cr_assert_eq(shim_namemap_addr("registry.npmjs.org", &b), 0);
	cr_assert_eq(shim_namemap_addr("github.com", &c), 0);
	cr_assert_eq(a.s_addr, c.s_addr, "%s then %s", text(a), text(c));
	cr_assert_neq(a.s_addr, b.s_addr, "%s", text(a));
	cr_assert_eq(shim_namemap_name(&a, name, sizeof(name)), 0);
	cr_assert_str_eq(name, "github.com");
	cr_assert_eq(shim_namemap_name(&b, name, sizeof(name)), 0);
	cr_assert_str_eq(name, "registry.npmjs.org");
}

Test(shim_namemap, addresses_are_in_198_18_slash_15_and_nothing_else_is_ours)
{
	struct in_addr a, other;

	cr_assert_eq(shim_namemap_addr("example.com", &a), 0);
	cr_assert(shim_namemap_is_ours(&a));
	cr_assert_eq(ntohl(a.s_addr) & 0xfffe0000u, 0xc6120000u, "%s", text(a));
	inet_pton(AF_INET, "198.20.0.1", &other);
	cr_assert_not(shim_namemap_is_ours(&other));
	inet_pton(AF_INET, "127.0.0.1", &other);
	cr_assert_not(shim_namemap_is_ours(&other));
}

Test(shim_namemap, an_address_never_given_out_has_no_name)
{
	struct in_addr a;
	char name[SHIM_NAME_MAX];

	inet_pton(AF_INET, "198.18.0.7", &a);
	cr_assert_eq(shim_namemap_name(&a, name, sizeof(name)), -ENOENT);
	inet_pton(AF_INET, "198.19.255.254", &a); /* ours, beyond the table */
	cr_assert_eq(shim_namemap_name(&a, name, sizeof(name)), -ENOENT);
	inet_pton(AF_INET, "10.0.0.1", &a);
	cr_assert_eq(shim_namemap_name(&a, name, sizeof(name)), -ENOENT);
}

Test(shim_namemap, empty_and_overlong_names_are_refused)
{
	char longname[SHIM_NAME_MAX + 8];
	struct in_addr a;

	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	cr_assert_eq(shim_namemap_addr("", &a), -EINVAL);
	cr_assert_eq(shim_namemap_addr(longname, &a), -EINVAL);
}

Test(shim_namemap, a_full_table_refuses_new_names_and_keeps_the_old,
     .description = "slots are never reused: an address given out keeps its name for the "
		    "life of the process, so a full table fails closed")
{
	char name[64], back[SHIM_NAME_MAX];
	struct in_addr a, first;

	for (int i = 0; i < SHIM_NAMEMAP_SLOTS; i++) {
		snprintf(name, sizeof(name), "host%d.example", i);
		cr_assert_eq(shim_namemap_addr(name, &a), 0, "%s", name);
		if (i == 0)
			first = a;
	}
	cr_assert_eq(shim_namemap_addr("one-more.example", &a), -ENOSPC);
	cr_assert_eq(shim_namemap_addr("host7.example", &a), 0);
	cr_assert_eq(shim_namemap_name(&first, back, sizeof(back)), 0);
	cr_assert_str_eq(back, "host0.example");
}
