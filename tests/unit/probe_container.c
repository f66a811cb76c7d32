/* tests/unit/probe_container.c: which container, read from the markers
 * the runtimes leave (common/probe.h probe_container), in a tree of
 * the test's own. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/probe.h"

static char root[64];

static void put(const char *rel, const char *text)
{
	char path[256], dir[256];

	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", dir);
	cr_assert_eq(system(cmd), 0);
	FILE *f = fopen(path, "w");
	cr_assert(f);
	fputs(text, f);
	fclose(f);
}

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/sbx-ctr-XXXXXX");
	cr_assert(mkdtemp(root));
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(probe_container, .init = setup, .fini = teardown);

Test(probe_container, none_without_markers)
{
	struct container_info c;

	put("/proc/1/cgroup", "0::/\n1:cpu:/\n");
	cr_assert_eq(probe_container(root, NULL, NULL, &c), 0);
	cr_assert_eq(probe_container(root, "", "", &c), 0);
}

Test(probe_container, podman_by_containerenv_empty_or_with_its_engine)
{
	struct container_info c;

	put("/run/.containerenv", "");
	cr_assert_eq(probe_container(root, NULL, NULL, &c), 1);
	cr_assert_str_eq(c.engine, "podman");
	cr_assert_str_eq(c.evidence, "/run/.containerenv");
	put("/run/.containerenv", "engine=\"podman-4.3.1\"\nname=\"x\"\n");
	cr_assert_eq(probe_container(root, NULL, NULL, &c), 1);
	cr_assert_str_eq(c.engine, "podman");
	put("/run/.containerenv", "engine=\"cri-o-1.28\"\n");
	cr_assert_eq(probe_container(root, NULL, NULL, &c), 1);
	cr_assert_str_eq(c.engine, "cri-o");
	/* a marker's bytes never leave the word */
	put("/run/.containerenv", "engine=\"\033[31mred\"\n");
	cr_assert_eq(probe_container(root, NULL, NULL, &c), 1);
	cr_assert_str_eq(c.engine, "podman");
}

Test(probe_container, docker_by_dockerenv)
{
	struct container_info c;

	put("/.dockerenv", "");
	cr_assert_eq(probe_container(root, NULL, NULL, &c), 1);
	cr_assert_str_eq(c.engine, "docker");
	cr_assert_str_eq(c.evidence, "/.dockerenv");
	/* podman's own marker wins over a copied-in .dockerenv */
	put("/run/.containerenv", "");
	cr_assert_eq(probe_container(root, NULL, NULL, &c), 1);
	cr_assert_str_eq(c.engine, "podman");
}

Test(probe_container, by_the_container_variable_kubernetes_and_cgroup)
{
	struct container_info c;

	cr_assert_eq(probe_container(root, "lxc", NULL, &c), 1);
	cr_assert_str_eq(c.engine, "lxc");
	cr_assert_str_eq(c.evidence, "container=lxc");
	cr_assert_eq(probe_container(root, "systemd-nspawn", NULL, &c), 1);
	cr_assert_str_eq(c.engine, "systemd-nspawn");
	cr_assert_eq(probe_container(root, "oci", NULL, &c), 1);
	cr_assert_str_eq(c.engine, "a container");
	cr_assert_eq(probe_container(root, NULL, "10.0.0.1", &c), 1);
	cr_assert_str_eq(c.engine, "kubernetes");
	put("/proc/1/cgroup", "12:pids:/docker/0123abcd\n");
	cr_assert_eq(probe_container(root, NULL, NULL, &c), 1);
	cr_assert_str_eq(c.engine, "docker");
	put("/proc/1/cgroup", "0::/kubepods/besteffort/pod1/abc\n");
	cr_assert_eq(probe_container(root, NULL, NULL, &c), 1);
	cr_assert_str_eq(c.engine, "kubernetes");
}

Test(probe_container, flags_name_each_engines_own_options)
{
	cr_assert(strstr(container_full_flags("podman"), "--security-opt unmask=/proc/*"));
	cr_assert(strstr(container_full_flags("docker"), "systempaths=unconfined"));
	cr_assert(strstr(container_full_flags("docker"), "seccomp=unconfined"));
	cr_assert(strstr(container_full_flags("lxc"), "/proc not masked"));
}
