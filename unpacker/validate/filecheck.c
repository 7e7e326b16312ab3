/* filecheck.c - an install's listed entries against its manifest, hashed in parallel */
#include "unpacker/validate/filecheck.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/platform.h"
#include "common/sha256.h"

struct file_checks {
	const char *dir;
	const struct manifest *m;
	int hash;
	struct filecheck_entry *out;
	size_t next;           /* the next file to take */
	pthread_mutex_t lock;
};

static void check_one_file(const struct file_checks *fc, const struct manifest_file *f,
			   struct filecheck_entry *out)
{
	char *path = xasprintf("%s/%s", fc->dir, f->path), target[PATH_MAX];
	struct platform_stat st;
	const size_t size = sizeof(out->why);
	out->state = FILECHECK_OK;
	if (platform_lstat(path, &st) != 0) {
		out->state = FILECHECK_MISSING;
		snprintf(out->why, size, "%s is missing", f->path);
	} else if (f->type == MF_SYMLINK) {
		if (st.type != PLATFORM_TYPE_LINK || platform_readlink(path, target, sizeof(target)) < 0 ||
		    strcmp(target, f->target)) {
			out->state = FILECHECK_LINK;
			snprintf(out->why, size, "%s is not the link to %s", f->path, f->target);
		}
	} else if (!fc->hash) {
		/* What could have changed without reading a byte: presence, type, size. */
		if (st.type != PLATFORM_TYPE_FILE || st.size != f->size) {
			out->state = FILECHECK_SIZE;
			snprintf(out->why, size, "%s: size differs from the manifest", f->path);
		}
		out->bytes = st.size;
	} else {
		uint8_t d[32];
		uint64_t got = 0;
		if (st.type != PLATFORM_TYPE_FILE || sha256_file(path, d, &got) != 0 || got != f->size) {
			out->state = FILECHECK_SIZE;
			snprintf(out->why, size, "%s: size differs from the manifest", f->path);
		} else if (!digest_equal(d, f->sha256, 32)) {
			out->state = FILECHECK_SHA256;
			snprintf(out->why, size, "%s: SHA-256 differs from the manifest (changed after "
				 "install)", f->path);
		}
		out->bytes = got;
	}
	free(path);
}

/* A worker: files taken one by one, so the largest does not wait behind the others. */
static void *file_worker(void *arg)
{
	struct file_checks *fc = arg;
	for (;;) {
		pthread_mutex_lock(&fc->lock);
		size_t i = fc->next++;
		pthread_mutex_unlock(&fc->lock);
		if (i >= fc->m->nfiles)
			return NULL;
		check_one_file(fc, &fc->m->files[i], &fc->out[i]);
	}
}

int filecheck_run(const char *dir, const struct manifest *m, int hash,
		  struct filecheck_entry **out)
{
	struct file_checks fc = { .dir = dir, .m = m, .hash = hash,
				  .out = calloc(m->nfiles + 1, sizeof(*fc.out)),
				  .lock = PTHREAD_MUTEX_INITIALIZER };
	*out = fc.out;
	if (!fc.out)
		return -1;
	/* Threads only pay where bytes are read: a size check is one lstat per entry. */
	pthread_t threads[8];
	int cpus = platform_cpu_count(), n = 0;
	for (; hash && n < 8 && n < cpus; n++)
		if (pthread_create(&threads[n], NULL, file_worker, &fc) != 0)
			break;
	file_worker(&fc);
	for (int i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	return 0;
}
