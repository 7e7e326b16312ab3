/* step_files.c - step 1: the install's files, hashed in parallel, against the manifest */
#include "unpacker/validate/step_files.h"

#include <jansson.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "common/sha256.h"
#include "unpacker/target/unlisted.h"

struct file_checks {
	struct run *r;
	char (*why)[600];      /* per file: empty, or what is wrong with it */
	uint64_t *bytes;
	size_t next;           /* the next file to take */
	pthread_mutex_t lock;
};

static void check_one_file(const struct run *r, const struct manifest_file *f, char *why, size_t size,
			   uint64_t *bytes)
{
	char *path = xasprintf("%s/%s", r->dir, f->path), target[PATH_MAX];
	struct platform_stat st;
	if (platform_lstat(path, &st) != 0) {
		snprintf(why, size, "%s is missing", f->path);
	} else if (f->type == MF_SYMLINK) {
		if (st.type != PLATFORM_TYPE_LINK || platform_readlink(path, target, sizeof(target)) < 0 ||
		    strcmp(target, f->target))
			snprintf(why, size, "%s is not the link to %s", f->path, f->target);
	} else if (r->o->just_written) {
		/* The install hashed each file as it wrote it, moments ago: check what could
		 * have changed since (presence, type, size), not the bytes again. */
		if (st.type != PLATFORM_TYPE_FILE || st.size != f->size)
			snprintf(why, size, "%s: size differs from the manifest", f->path);
		*bytes = st.size;
	} else {
		uint8_t d[32];
		uint64_t got = 0;
		if (st.type != PLATFORM_TYPE_FILE || sha256_file(path, d, &got) != 0 || got != f->size)
			snprintf(why, size, "%s: size differs from the manifest", f->path);
		else if (!digest_equal(d, f->sha256, 32))
			snprintf(why, size, "%s: SHA-256 differs from the manifest (changed after install)",
				 f->path);
		*bytes = got;
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
		if (i >= fc->r->m->nfiles)
			return NULL;
		check_one_file(fc->r, &fc->r->m->files[i], fc->why[i], sizeof(fc->why[i]), &fc->bytes[i]);
	}
}

void step_files(struct run *r)
{
	const struct manifest *m = r->m;
	struct file_checks fc = { .r = r, .why = calloc(m->nfiles + 1, sizeof(*fc.why)),
				  .bytes = calloc(m->nfiles + 1, sizeof(uint64_t)),
				  .lock = PTHREAD_MUTEX_INITIALIZER };
	char why[600] = "";
	uint64_t bytes = 0;
	if (!fc.why || !fc.bytes) {
		report_add(r, 1, "files", "fail", "out of memory");
		free(fc.why);
		free(fc.bytes);
		return;
	}
	pthread_t threads[8];
	int cpus = platform_cpu_count(), n = 0;
	for (; !r->o->just_written && n < 8 && n < cpus; n++)
		if (pthread_create(&threads[n], NULL, file_worker, &fc) != 0)
			break;
	file_worker(&fc);
	for (int i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	/* The first file in the manifest's order that is wrong, as a sequential check says. */
	for (size_t i = 0; i < m->nfiles && !why[0]; i++) {
		snprintf(why, sizeof(why), "%s", fc.why[i]);
		bytes += fc.bytes[i];
	}
	/* What the manifest does not list (a library planted in lib/) is named too. */
	char **unlisted = why[0] ? NULL : unlisted_entries(r->dir, m), shown[400];
	if (!why[0] && !unlisted)
		snprintf(why, sizeof(why), "the install's directories cannot be read");
	else if (!why[0] && unlisted[0])
		snprintf(why, sizeof(why), "%s: not in the manifest%s (planted or copied in after the "
			 "install; 'unpacker BUNDLE --repair' moves it aside)",
			 log_safe(unlisted[0], shown, sizeof(shown)), unlisted[1] ? ", with others" : "");
	unlisted_free(unlisted);
	int failed = why[0] != '\0';
	if (!failed)
		snprintf(why, sizeof(why), "%zu entries, %.1f MiB, sizes and SHA-256 as in the manifest%s",
			 m->nfiles, (double)bytes / 1048576.0,
			 r->o->just_written ? " (SHA-256 checked while written)" : "");
	free(fc.why);
	free(fc.bytes);
	report_add(r, 1, "files", failed ? "fail" : "pass", why);
}
