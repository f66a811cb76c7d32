/* common/fscompat.h: the Linux-only ways hostfs.c and pathwalk.c open a
 * path without following a link, each beside its POSIX fallback (macOS,
 * the BSDs), chosen when compiling by the feature's own macro. `make
 * SBX_PORTABLE=1` and build/tests/unit-tests-portable define SBX_PORTABLE,
 * which takes every fallback on Linux too, so the fallbacks are built and
 * tested here (make check-portable; docs/MACOS.md).
 *
 *   FS_HAVE_OPENAT2  openat2(2) with RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH
 *       (linux/openat2.h's RESOLVE_IN_ROOT): a whole path in one call,
 *       the kernel refusing every link on it. Else one component at a
 *       time from a held directory (below), which is the same for the
 *       single names hostfs opens.
 *   FS_HAVE_O_PATH   O_PATH: a descriptor of any node, a FIFO, a device
 *       or a link, that is never opened for reading or writing. Else
 *       a directory is opened FS_O_DIRSEARCH | O_DIRECTORY | O_NOFOLLOW |
 *       O_NONBLOCK after fstatat(AT_SYMLINK_NOFOLLOW) said it is one (so
 *       nothing else is ever handed to open(), and O_DIRECTORY refuses
 *       what was swapped in between), and a last name that is no
 *       directory is looked at with fstatat() instead of being opened
 *       (pathwalk_stat), or opened only when it is a regular file
 *       (pathwalk.h says what the walk returns).
 *   FS_O_DIRSEARCH   O_SEARCH where it exists apart from O_PATH (macOS:
 *       a directory one may search but not read), else O_RDONLY (a
 *       directory on the way that is not readable then fails EACCES:
 *       closed, never wider).
 *   FS_O_NOLINKS     O_NOFOLLOW_ANY | O_RESOLVE_BENEATH where they exist
 *       (macOS 11 and 13): no link, and no leaving the directory, anywhere
 *       in the name. The names the walks hand to openat() are single
 *       components already, so this is a second lock, not the first.
 *
 * There is no EAGAIN to ask again after in the fallbacks: openat2 says it
 * when a `..` was walked during a rename anywhere (pathwalk_openat2); the
 * walks here hold each directory, and `..` is refused (hostfs) or is the
 * held directory's real parent, as openat2 without RESOLVE_BENEATH takes it
 * (pathwalk). Resolving inside a root (RESOLVE_IN_ROOT, links followed) has
 * no fallback: its only caller is Linux's seccomp notify layer.
 *
 * Include it last, after every system header, and only in hostfs.c and
 * pathwalk.c: in the portable build it poisons the Linux-only names, so a
 * later use of one there fails to compile here rather than on a Mac. */
#ifndef SBX_FSCOMPAT_H
#define SBX_FSCOMPAT_H

#include <fcntl.h>
#include <sys/stat.h>
#ifdef __linux__
#include <linux/openat2.h>
#include <sys/syscall.h>
#if !defined(SYS_openat2) && !defined(SBX_PORTABLE)
#define SYS_openat2 437 /* headers older than the kernel */
#endif
#endif

#if !defined(SBX_PORTABLE) && defined(O_PATH)
#define FS_HAVE_O_PATH 1
#else
#define FS_HAVE_O_PATH 0
#endif
/* pathwalk_open's openat2 asks for O_PATH */
#if FS_HAVE_O_PATH && defined(RESOLVE_IN_ROOT) && defined(SYS_openat2)
#define FS_HAVE_OPENAT2 1
#else
#define FS_HAVE_OPENAT2 0
#endif

/* musl's O_SEARCH is O_PATH: only a search-only open of its own counts */
#if defined(O_SEARCH) && !defined(O_PATH)
#define FS_O_DIRSEARCH O_SEARCH
#else
#define FS_O_DIRSEARCH O_RDONLY
#endif

#ifdef O_NOFOLLOW_ANY
#define FS_O_NOFOLLOW_ANY O_NOFOLLOW_ANY
#else
#define FS_O_NOFOLLOW_ANY 0
#endif
#ifdef O_RESOLVE_BENEATH
#define FS_O_BENEATH O_RESOLVE_BENEATH
#else
#define FS_O_BENEATH 0
#endif
#define FS_O_NOLINKS (FS_O_NOFOLLOW_ANY | FS_O_BENEATH)

#ifdef SBX_PORTABLE
/* what exists only on Linux (or has a fallback above): not to be named */
#undef O_PATH
#undef RESOLVE_IN_ROOT
#undef RESOLVE_BENEATH
#undef RESOLVE_NO_SYMLINKS
#undef RESOLVE_NO_MAGICLINKS
#undef RESOLVE_NO_XDEV
#undef RESOLVE_CACHED
#undef SYS_openat2
#pragma GCC poison O_PATH RESOLVE_IN_ROOT RESOLVE_BENEATH RESOLVE_NO_SYMLINKS \
	RESOLVE_NO_MAGICLINKS RESOLVE_NO_XDEV RESOLVE_CACHED SYS_openat2 open_how \
	pathwalk_openat2 openat2
#endif

#endif
