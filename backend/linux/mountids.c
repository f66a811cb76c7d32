/* backend/linux/mountids.c: the identity of what each of sbx-init's mounts is
 * to land on (mountids.h says why). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/control.h"
#include "backend/linux/mountids.h"
#include "common/pathwalk.h"
#include "backend/backend.h"
#include "common/msg.h"
#include "common/strv.h"

/* How sbx-init takes each path operation (init/mounts.h). */
enum kind {
	K_ROOT,   /* --rw, --bound: recorded by mount_ids_roots() */
	K_EXACT,  /* the path as given, no link anywhere */
	K_FOLLOW, /* a protect or mask: a link as the name is resolved now */
	K_LINK,   /* --ro-link: the link itself, no link before it */
	K_PARENT, /* --ro-new: the directory it is (or will be) made in */
};

static const struct {
	const char *prefix;
	enum kind kind;
} ops[] = {
	{ "--rw=", K_ROOT },          { "--bound=", K_ROOT },
	{ "--rw-in=", K_EXACT },      { "--pin=", K_EXACT },
	{ "--mask-dir-x=", K_EXACT }, { "--unmask=", K_EXACT },
	{ "--unmask-rw=", K_EXACT },  { "--ro=", K_FOLLOW },
	{ "--mask-file=", K_FOLLOW }, { "--mask-dir=", K_FOLLOW },
	{ "--ro-link=", K_LINK },     { "--ro-new=", K_PARENT },
};

struct mount_ids {
	struct strv roots;      /* the paths of the roots ... */
	struct mount_id *rid;   /* ... and their identities */
	struct mount_id *id;    /* one per path operation, in argv order */
	size_t n;
};

/* The operation `arg` is, with its path; -1: not a path operation. */
static int kind_of(const char *arg, const char **path)
{
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		size_t n = strlen(ops[i].prefix);
		if (!strncmp(arg, ops[i].prefix, n)) {
			*path = arg + n;
			return (int)ops[i].kind;
		}
	}
	return -1;
}

static const char *why_of(int rc)
{
	switch (rc) {
	case -ELOOP:
		return "a symlink is now on the way to it";
	case -ENOENT:
		return "it is gone";
	case -ENOTDIR:
		return "a directory on the way is no longer one";
	default:
		return strerror(-rc);
	}
}

/* Open `path` (link_last: its last name may be a link) and record it. */
static int record(const char *path, bool link_last, struct mount_id *id)
{
	int fd = pathwalk_open(path, link_last), rc;

	if (fd < 0)
		return fd;
	rc = pathwalk_id(fd, id, NULL);
	close(fd);
	return rc;
}

static struct mount_ids *ids_of(struct plan *pl)
{
	if (!pl->mount_ids) {
		pl->mount_ids = calloc(1, sizeof(*pl->mount_ids));
		pl->mount_ids_free = mount_ids_free; /* plan_free() calls it */
	}
	return pl->mount_ids;
}

int mount_ids_roots(struct plan *pl, char *why, size_t whysz)
{
	struct mount_ids *m = ids_of(pl);
	const char *p;

	if (!m)
		return -ENOMEM;
	for (size_t i = 0; i < pl->init_ops.n; i++) {
		if (kind_of(pl->init_ops.v[i], &p) != K_ROOT)
			continue;
		struct mount_id *n = realloc(m->rid, (m->roots.n + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		m->rid = n;
		int rc = record(p, false, &m->rid[m->roots.n]);
		if (rc) {
			snprintf(why, whysz, "the writable root %s changed while sbx was "
				 "starting (%s)", p, why_of(rc));
			return rc;
		}
		if (strv_add(&m->roots, p))
			return -ENOMEM;
	}
	return 0;
}

/* A protect or mask of a name that is a link: where it leads now. */
static int follow(struct plan *pl, size_t at, size_t prefix_len, const char *path,
		  struct mount_id *id)
{
	char real[PATH_MAX];
	int rc = record(path, false, id);

	if (rc != -ELOOP)
		return rc;
	if (!realpath(path, real))
		return -errno;
	if (!strcmp(real, "/"))
		return -EISDIR; /* nothing can be masked or protected there */
	rc = record(real, false, id);
	if (rc)
		return rc;
	char *n = NULL;
	if (asprintf(&n, "%.*s%s", (int)prefix_len, pl->argv.v[at], real) < 0)
		return -ENOMEM;
	free(pl->argv.v[at]);
	pl->argv.v[at] = n;
	return 0;
}

int mount_ids_plan(struct plan *pl, char *why, size_t whysz)
{
	struct mount_ids *m = ids_of(pl);

	if (!m)
		return -ENOMEM;
	free(m->id);
	m->id = calloc(pl->argv.n + 1, sizeof(*m->id));
	m->n = 0;
	if (!m->id)
		return -ENOMEM;
	for (size_t i = pl->init_at + 1; i + 1 < pl->cmd_at; i++) {
		const char *arg = pl->argv.v[i], *p;
		struct mount_id *id = &m->id[m->n];
		int rc = 0, k = kind_of(arg, &p);

		switch (k) {
		case -1:
			continue;
		case K_ROOT:
			rc = -ENOENT;
			for (size_t j = 0; j < m->roots.n && rc; j++)
				if (!strcmp(m->roots.v[j], p)) {
					*id = m->rid[j];
					rc = 0;
				}
			break;
		case K_EXACT:
			rc = record(p, false, id);
			break;
		case K_FOLLOW:
			rc = follow(pl, i, (size_t)(p - arg), p, id);
			if (!rc)
				p = pl->argv.v[i] + (p - arg); /* arg was replaced */
			break;
		case K_LINK:
			rc = record(p, true, id);
			break;
		case K_PARENT: {
			char parent[PATH_MAX];
			snprintf(parent, sizeof(parent), "%s", p);
			char *slash = strrchr(parent, '/');
			if (slash == parent)
				slash[1] = '\0';
			else if (slash)
				*slash = '\0';
			rc = record(parent, false, id);
			break;
		}
		}
		if (rc) {
			snprintf(why, whysz, "%s changed while sbx was starting (%s)", p,
				 rc == -EISDIR ? "its name now leads to /" : why_of(rc));
			return rc;
		}
		m->n++;
	}
	return 0;
}

int mount_ids_send(int ctl, const struct plan *pl)
{
	const struct mount_ids *m = pl->mount_ids;
	int rc = 0;

	for (size_t at = 0; !rc && m && at < m->n; at += CTL_IDS_PER) {
		size_t k = m->n - at < CTL_IDS_PER ? m->n - at : CTL_IDS_PER;
		rc = ctl_send(ctl, CTL_IDS, m->id + at, k * sizeof(*m->id), NULL, 0);
	}
	return rc;
}

void mount_ids_free(struct plan *pl)
{
	struct mount_ids *m = pl->mount_ids;

	if (!m)
		return;
	strv_free(&m->roots);
	free(m->rid);
	free(m->id);
	free(m);
	pl->mount_ids = NULL;
}
