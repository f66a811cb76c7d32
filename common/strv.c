/* common/strv.c: a growable NULL-terminated vector of owned strings. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/strv.h"

int strv_add(struct strv *s, const char *str)
{
	if (s->n + 2 > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		char **v = realloc(s->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	if (!(s->v[s->n] = strdup(str)))
		return -ENOMEM;
	s->v[++s->n] = NULL;
	return 0;
}

int strv_addf(struct strv *s, const char *fmt, ...)
{
	va_list ap;
	char *str;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&str, fmt, ap);
	va_end(ap);
	if (rc < 0)
		return -ENOMEM;
	rc = strv_add(s, str);
	free(str);
	return rc;
}

void strv_free(struct strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}
