/* common/strv.h: a growable NULL-terminated vector of owned strings
 * (the plan's argv and lists, COMMAND's environment in the nested mode). */
#ifndef SBX_STRV_H
#define SBX_STRV_H

#include <stddef.h>

struct strv {
	char **v;
	size_t n, cap;
};
int strv_add(struct strv *s, const char *str);        /* copies; 0 or -ENOMEM */
int strv_addf(struct strv *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void strv_free(struct strv *s);

#endif
