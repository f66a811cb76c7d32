/* shim/elfcheck.c: see elfcheck.h. */
#include <elf.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "elfcheck.h"
#include "sys.h"

bool elf_is_static(int dirfd, const char *path)
{
	union {
		Elf64_Ehdr e64;
		Elf32_Ehdr e32;
		unsigned char head[4096]; /* the program headers too, usually */
	} h;
	unsigned char ph[4096];
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
		const unsigned char *at = NULL;
		if ((type == ET_EXEC || type == ET_DYN) && sz >= want && n &&
		    (unsigned long)n * sz <= sizeof(ph)) {
			if (off <= (unsigned long)got &&
			    (unsigned long)n * sz <= (unsigned long)got - off)
				at = h.head + off; /* already read */
			else if (sys_call(SYS_pread64, fd, ph, (size_t)n * sz, off) == (long)n * sz)
				at = ph;
		}
		if (at) {
			is_static = true;
			for (unsigned i = 0; i < n && is_static; i++) {
				uint32_t pt; /* p_type comes first in both classes */
				memcpy(&pt, at + (size_t)i * sz, sizeof(pt));
				if (pt == PT_INTERP)
					is_static = false;
			}
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
