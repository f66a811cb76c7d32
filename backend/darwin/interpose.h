/* backend/darwin/interpose.h: the shim's wrappers as dyld interposes them
 * (docs/MACOS.md, "The shim"). On macOS a library in
 * DYLD_INSERT_LIBRARIES replaces a function of another image only through
 * its `__DATA,__interpose` section: pairs of (our function, theirs). The
 * table is generated from shim/symbols.def, the list the Linux shim is
 * made from (gen-interpose.c -> build/gen/interpose.c), so the two never
 * disagree on what is wrapped.
 *
 * A wrapper is `sbx_dyld_NAME` there: the dylib's own `open` would bind
 * its own calls to itself (two-level namespace), so the replacement must
 * have another name; `NAME` is libSystem's, as its headers spell it (the
 * x86_64 `stat$INODE64` comes from the header, not from us). */
#ifndef SBX_DARWIN_INTERPOSE_H
#define SBX_DARWIN_INTERPOSE_H

/* dyld reads the section; elsewhere (the Linux build that checks the
 * generated file compiles) it is an ordinary array kept by `used`. */
#ifdef __APPLE__
#define SBX_INTERPOSE_SECTION __attribute__((used, section("__DATA,__interpose")))
#else
#define SBX_INTERPOSE_SECTION __attribute__((used))
#endif

struct sbx_interpose {
	const void *replacement;
	const void *replacee;
};

/* symbols.def's rows libSystem does not export, each with why: glibc's
 * names, which a Mac program never calls. X(name, reason). Every other
 * row of symbols.def is in the table; tests/unit/darwin_interpose.c
 * checks both ways. */
#define SBX_DARWIN_ABSENT(X)                                                              \
	X(open64, "glibc's large-file alias: Darwin's off_t is 64-bit")                   \
	X(openat64, "glibc's large-file alias")                                           \
	X(__open_2, "glibc's _FORTIFY_SOURCE entry")                                      \
	X(__open64_2, "glibc's _FORTIFY_SOURCE entry")                                    \
	X(__openat_2, "glibc's _FORTIFY_SOURCE entry")                                    \
	X(__openat64_2, "glibc's _FORTIFY_SOURCE entry")                                  \
	X(creat64, "glibc's large-file alias")                                            \
	X(fopen64, "glibc's large-file alias")                                            \
	X(freopen64, "glibc's large-file alias")                                          \
	X(scandir64, "glibc's large-file alias")                                          \
	X(canonicalize_file_name, "a GNU extension")                                      \
	X(stat64, "glibc's large-file alias (Darwin's is a deprecated x86_64 one)")       \
	X(lstat64, "glibc's large-file alias (as stat64)")                                \
	X(fstatat64, "glibc's large-file alias")                                          \
	X(statx, "a Linux system call")                                                   \
	X(__xstat, "glibc's old stat ABI")                                                \
	X(__xstat64, "glibc's old stat ABI")                                              \
	X(__lxstat, "glibc's old stat ABI")                                               \
	X(__lxstat64, "glibc's old stat ABI")                                             \
	X(__fxstatat, "glibc's old stat ABI")                                             \
	X(__fxstatat64, "glibc's old stat ABI")                                           \
	X(euidaccess, "a GNU extension")                                                  \
	X(eaccess, "a GNU extension")                                                     \
	X(renameat2, "a Linux system call (Darwin's is renameatx_np)")                    \
	X(lsetxattr, "Linux's (Darwin passes XATTR_NOFOLLOW to setxattr)")                \
	X(lremovexattr, "Linux's (Darwin passes XATTR_NOFOLLOW to removexattr)")          \
	X(truncate64, "glibc's large-file alias")                                         \
	X(dup3, "Linux's (not in Darwin's libc)")                                         \
	X(fcntl64, "glibc's large-file alias")                                            \
	X(execveat, "a Linux system call")                                                \
	X(execvpe, "a GNU extension")                                                     \
	X(fexecve, "not in Darwin's libc")                                                \
	X(gethostbyname_r, "a GNU extension")                                             \
	X(gethostbyname2_r, "a GNU extension")

/* symbols.def's PATHCALL rows that are in the table but whose libSystem
 * prototype is not the one symbols.def gives (glibc's): written by hand
 * in shim/darwin.c with Darwin's, each with why. X(name, reason). The
 * other PATHCALL rows in the table are generated there from symbols.def
 * (gen-interpose.c's `rows`, build/gen/dyld-rows.h). */
#define SBX_DARWIN_OWN_PROTOTYPE(X)                                                       \
	X(setxattr, "Darwin's takes a resource-fork position and options (XATTR_NOFOLLOW)") \
	X(removexattr, "Darwin's takes options (XATTR_NOFOLLOW)")

#endif
