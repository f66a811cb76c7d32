/* common/elfcheck.c: see elfcheck.h. */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/elfcheck.h"
#include "common/sys.h"

/* The program headers when they are not within the first read: rare
 * (a linker puts them right after the ELF header), so its buffer is only
 * on the stack then. */
static __attribute__((noinline)) bool read_phdrs_and_judge(long fd, unsigned long off,
							   unsigned n, unsigned sz);

/* Any PT_INTERP among n headers of sz bytes at `at`? */
static bool has_interp(const unsigned char *at, unsigned n, unsigned sz)
{
	for (unsigned i = 0; i < n; i++) {
		uint32_t pt; /* p_type comes first in both classes */
		memcpy(&pt, at + (size_t)i * sz, sizeof(pt));
		if (pt == PT_INTERP)
			return true;
	}
	return false;
}

static bool read_phdrs_and_judge(long fd, unsigned long off, unsigned n, unsigned sz)
{
	unsigned char ph[4096];

	if ((unsigned long)n * sz > sizeof(ph) ||
	    sys_call(SYS_pread64, fd, ph, (size_t)n * sz, off) != (long)n * sz)
		return false;
	return !has_interp(ph, n, sz);
}

bool elf_is_static(int dirfd, const char *path)
{
	/* 1 KiB: the ELF header and, as linkers lay them out, the program
	 * headers. Small on purpose: this runs in a fork child right before
	 * its exec, where each page of stack touched costs a fault. */
	union {
		Elf64_Ehdr e64;
		Elf32_Ehdr e32;
		unsigned char head[1024];
	} h;
	/* O_NONBLOCK: a FIFO named as the command must not hang the open.
	 * Only a regular file gives ELF bytes (a directory fails EISDIR, a
	 * FIFO ESPIPE): no fstat. Three system calls: every exec pays them */
	long fd = sys_call(SYS_openat, dirfd, path,
			   O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	bool is_static = false;
	long got;

	if (fd < 0)
		return false;
	got = sys_call(SYS_pread64, fd, &h, sizeof(h), 0);
	if (got >= (long)sizeof(h.e64) && !memcmp(h.e64.e_ident, ELFMAG, SELFMAG)) {
		bool wide = h.e64.e_ident[EI_CLASS] == ELFCLASS64;
		unsigned long off = wide ? h.e64.e_phoff : h.e32.e_phoff;
		unsigned n = wide ? h.e64.e_phnum : h.e32.e_phnum;
		unsigned sz = wide ? h.e64.e_phentsize : h.e32.e_phentsize;
		unsigned want = wide ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
		unsigned type = wide ? h.e64.e_type : h.e32.e_type;
		/* ET_DYN without an interpreter: static-pie */
		if ((type == ET_EXEC || type == ET_DYN) && sz >= want && n && n <= 4096 / sz) {
			if (off <= (unsigned long)got &&
			    (unsigned long)n * sz <= (unsigned long)got - off)
				is_static = !has_interp(h.head + off, n, sz); /* already read */
			else
				is_static = read_phdrs_and_judge(fd, off, n, sz);
		}
	}
	sys_call(SYS_close, fd);
	return is_static;
}

bool elf_find_in_path(const char *file, char *out, size_t outsz)
{
	const char *path = getenv("PATH");
	size_t fl = strlen(file);

	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t dl = colon ? (size_t)(colon - path) : strlen(path);
		if (dl && dl + 1 + fl < outsz) {
			memcpy(out, path, dl);
			out[dl] = '/';
			memcpy(out + dl + 1, file, fl + 1);
			if (sys_call(SYS_faccessat, AT_FDCWD, out, X_OK) == 0)
				return true;
		}
		if (!colon)
			break;
		path = colon + 1;
	}
	return false;
}
