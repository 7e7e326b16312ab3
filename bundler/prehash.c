/* prehash.c - one read of every file of the tree before packing: SHA-256 and SHA-1 */
#include "bundler/prehash.h"

#include <errno.h>
#include <fcntl.h>
#include <mbedtls/sha1.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/interrupt.h"
#include "common/io.h"
#include "common/sha256.h"

static int hash_file(struct prehash_file *f, uint8_t *buf, size_t bufsize, struct cf_err *e)
{
	const char *src = f->entry.src;
	int fd = open(src, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return cf_fail(e, CF_SOURCE, "%s: %s", src, strerror(errno));
	struct sha256 h;
	mbedtls_sha1_context h1;
	sha256_init(&h);
	mbedtls_sha1_init(&h1);
	mbedtls_sha1_starts(&h1);
	ssize_t n;
	int rc = CF_OK;
	while (rc == CF_OK && (n = io_read_full(fd, buf, bufsize)) > 0) {
		sha256_update(&h, buf, (size_t)n);
		mbedtls_sha1_update(&h1, buf, (size_t)n);
		f->size += (uint64_t)n;
		rc = interrupt_check(e);
	}
	if (rc == CF_OK && n < 0)
		rc = cf_fail(e, CF_SOURCE, "%s: %s", src, strerror(errno));
	close(fd);
	sha256_final(&h, f->sha256);
	mbedtls_sha1_finish(&h1, f->sha1);
	mbedtls_sha1_free(&h1);
	return rc;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct prehash_file *)a)->entry.path,
		      ((const struct prehash_file *)b)->entry.path);
}

int prehash_tree(const struct tree *t, struct prehash *out, struct cf_err *e)
{
	out->files = xcalloc(t->count ? t->count : 1, sizeof(*out->files));
	out->count = t->count;
	uint8_t *buf = xmalloc(1 << 20);
	int rc = CF_OK;
	for (size_t i = 0; i < t->count; i++)
		out->files[i].entry = t->entries[i];
	for (size_t i = 0; i < t->count && rc == CF_OK; i++)
		if (!t->entries[i].is_symlink)
			rc = hash_file(&out->files[i], buf, 1 << 20, e);
	free(buf);
	qsort(out->files, out->count, sizeof(*out->files), by_path);
	return rc;
}

void prehash_free(struct prehash *p)
{
	free(p->files);
	memset(p, 0, sizeof(*p));
}

int prehash_check(const struct prehash *p, const struct manifest *m, struct cf_err *e)
{
	for (size_t i = 0; i < p->count; i++) {
		const struct prehash_file *f = &p->files[i];
		if (f->entry.is_symlink)
			continue;
		const struct manifest_file *mf = manifest_find(m, f->entry.path);
		if (!mf || mf->size != f->size || !digest_equal(mf->sha256, f->sha256, 32))
			return cf_fail(e, CF_SOURCE, "%s changed while it was read (its SBOM entry no "
				       "longer matches)", f->entry.src);
	}
	return CF_OK;
}
