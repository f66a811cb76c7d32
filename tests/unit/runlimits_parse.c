/* tests/unit/runlimits_parse.c: where [limits] finds its cgroups
 * (preload/runlimits.c): /proc/self/cgroup and /proc/self/mountinfo as
 * the kernel writes them on hybrid, v2-only and container hosts, and the
 * kernel version that makes RLIMIT_NPROC per user namespace. */
#include <errno.h>
#include <limits.h>

#include <criterion/criterion.h>

#include "preload/runlimits.h"

static const char hybrid_cgroup[] =
	"9:name=systemd:/\n8:pids:/user.slice\n7:blkio:/\n4:memory:/process_api/6ed4\n"
	"2:cpu,cpuacct:/x\n0::/\n";

Test(runlimits_parse, cgroup_path_per_controller_on_a_hybrid_host)
{
	char out[PATH_MAX];

	cr_assert_eq(limits_cgroup_path(hybrid_cgroup, "pids", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/user.slice");
	cr_assert_eq(limits_cgroup_path(hybrid_cgroup, "memory", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/process_api/6ed4");
	cr_assert_eq(limits_cgroup_path(hybrid_cgroup, "cpuacct", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/x");
	cr_assert_eq(limits_cgroup_path(hybrid_cgroup, "", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/");
}

Test(runlimits_parse, v2_only_host_has_no_v1_controller)
{
	char out[PATH_MAX];
	const char *c = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/x.scope\n";

	cr_assert_eq(limits_cgroup_path(c, "", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/user.slice/user-1000.slice/user@1000.service/app.slice/x.scope");
	cr_assert_eq(limits_cgroup_path(c, "pids", out, sizeof(out)), -ENOENT);
	/* a controller name is matched whole, never as a prefix */
	cr_assert_eq(limits_cgroup_path("3:pidsx:/a\n", "pids", out, sizeof(out)), -ENOENT);
}

static const char mountinfo[] =
	"22 1 0:21 / /sys rw,nosuid - sysfs sysfs rw\n"
	"30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
	"31 30 0:28 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
	"34 30 0:31 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup rw,memory\n"
	"38 30 0:35 /docker/abc /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
	"40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw,nsdelegate\n";

Test(runlimits_parse, mount_points_from_mountinfo)
{
	char out[PATH_MAX];

	cr_assert_eq(limits_mount_point(mountinfo, "memory", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/sys/fs/cgroup/memory");
	cr_assert_eq(limits_mount_point(mountinfo, "", out, sizeof(out)), 0);
	cr_assert_str_eq(out, "/sys/fs/cgroup/unified");
	/* a hierarchy mounted from a subtree (a container's view) is not
	 * where /proc/self/cgroup's paths start: not used */
	cr_assert_eq(limits_mount_point(mountinfo, "pids", out, sizeof(out)), -ENOENT);
	cr_assert_eq(limits_mount_point(mountinfo, "rdma", out, sizeof(out)), -ENOENT);
}

Test(runlimits_parse, rlimit_nproc_per_user_namespace_from_5_14)
{
	cr_assert(limits_kernel_at_least("5.14.0-1-amd64", 5, 14));
	cr_assert(limits_kernel_at_least("6.1.0", 5, 14));
	cr_assert_not(limits_kernel_at_least("5.13.19", 5, 14));
	cr_assert_not(limits_kernel_at_least("4.19.0", 5, 14));
	cr_assert_not(limits_kernel_at_least("garbage", 5, 14));
}
