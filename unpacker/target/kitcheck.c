/* kitcheck.c - verifying a kit with the keys trusted here: the index's signatures first, then
 * each file against the index, nothing followed out of the kit */
#include "unpacker/target/kitcheck.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bundle/sfx.h"
#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "common/sha256.h"
#include "manifests/pathrule.h"
#include "manifests/manifest.h"
#include "manifests/platforms.h"

#define KIT_DIR_NAME "cuferry-kit"
#define MAX_DEPTH 2 /* the kit's files, and PLATFORM/unpacker below it */

/* dir + relative '/'-separated path, with this system's separator. */
static char *kit_path(const char *dir, const char *rel)
{
	size_t n = strlen(dir);
	int has_sep = n && platform_is_separator(dir[n - 1]);
	char *p = xasprintf("%s%s%s", dir, has_sep ? "" : (platform_dir_separator() == '\\' ? "\\" : "/"), rel);
	if (platform_dir_separator() == '\\')
		for (char *c = p + n; *c; c++)
			if (*c == '/')
				*c = '\\';
	return p;
}

/* Every component of rel below dir is what it claims, never a link; the file is opened
 * without following one. A handle, or -1 with errno (ELOOP: a link). */
static int open_in_kit(const char *dir, const char *rel, struct platform_stat *st)
{
	char *part = xstrdup(rel);
	for (char *slash = strchr(part, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		char *p = kit_path(dir, part);
		struct platform_stat ds;
		int ok = platform_lstat(p, &ds) == 0;
		free(p);
		*slash = '/';
		if (!ok || ds.type != PLATFORM_TYPE_DIR) {
			free(part);
			errno = ok ? ELOOP : errno;
			return -1;
		}
	}
	free(part);
	char *p = kit_path(dir, rel);
	int fd = platform_lstat(p, st) == 0 && st->type == PLATFORM_TYPE_LINK ? (errno = ELOOP, -1)
		 : platform_open(p, PLATFORM_OPEN_READ | PLATFORM_OPEN_NOFOLLOW | PLATFORM_OPEN_NONBLOCK, 0);
	free(p);
	if (fd >= 0 && (platform_fstat(fd, st) != 0 || st->type != PLATFORM_TYPE_FILE)) {
		platform_close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

static int read_small(const char *dir, const char *rel, size_t max, uint8_t **out, size_t *len)
{
	struct platform_stat st;
	int fd = open_in_kit(dir, rel, &st);
	if (fd < 0)
		return -1;
	int rc = -1;
	if (st.size <= max) {
		*out = xmalloc((size_t)st.size + 1);
		*len = (size_t)st.size;
		size_t got = 0;
		for (ssize_t n = 1; got < *len && n > 0; got += n > 0 ? (size_t)n : 0)
			n = platform_pread(fd, *out + got, *len - got, got);
		rc = got == *len ? 0 : -1;
		if (rc != 0) {
			free(*out);
			*out = NULL;
		}
	} else {
		errno = EFBIG;
	}
	platform_close(fd);
	return rc;
}

int kitcheck_present(const char *dir)
{
	struct platform_stat st;
	char *a = kit_path(dir, KITINDEX_NAME), *b = kit_path(dir, KITINDEX_SIG_NAME);
	int yes = platform_lstat(a, &st) == 0 || platform_lstat(b, &st) == 0;
	free(a);
	free(b);
	return yes;
}

int kitcheck_dir(const char *path, char **out, struct cf_err *e)
{
	char *inside = kit_path(path, KIT_DIR_NAME);
	struct platform_stat st;
	if (platform_lstat(inside, &st) == 0 && st.type == PLATFORM_TYPE_LINK) {
		char safe[256];
		int rc = cf_fail(e, CF_TRUST, "%s is a link: a kit is a directory on the stick itself, "
				 "never a link to somewhere else (refused, not followed)",
				 log_safe(inside, safe, sizeof(safe)));
		free(inside);
		return rc;
	}
	if (platform_lstat(inside, &st) == 0 && st.type == PLATFORM_TYPE_DIR && !kitcheck_present(path)) {
		*out = inside;
		return CF_OK;
	}
	free(inside);
	*out = xstrdup(path);
	return CF_OK;
}

int kitcheck_open(const char *dir, const struct trust *t, struct kitcheck *k, struct cf_err *e)
{
	memset(k, 0, sizeof(*k));
	if (!kitcheck_present(dir))
		return CF_OK;
	uint8_t *index = NULL, *sig = NULL;
	size_t index_len = 0, sig_len = 0;
	int rc = CF_OK;
	if (read_small(dir, KITINDEX_SIG_NAME, KITINDEX_SIG_MAX, &sig, &sig_len) != 0)
		rc = cf_fail(e, CF_TRUST, "%s: %s (a kit's index is valid only with its signature)",
			     KITINDEX_SIG_NAME, errno == ELOOP ? "a link, not opened" : platform_strerror(errno));
	else if (read_small(dir, KITINDEX_NAME, KITINDEX_MAX_BYTES, &index, &index_len) != 0)
		rc = cf_fail(e, CF_INTEGRITY, "%s: %s", KITINDEX_NAME,
			     errno == ELOOP ? "a link, not opened" : platform_strerror(errno));
	struct frame_sig sigs[FRAME_MAX_SIGS];
	uint32_t nsigs = 0;
	if (rc == CF_OK)
		rc = kitindex_sig_parse(sig, sig_len, sigs, &nsigs, e);
	if (rc == CF_OK) {
		uint8_t digest[32];
		kitindex_digest(index, index_len, digest);
		rc = trust_check_sigs(t, digest, sigs, nsigs, k->signers, sizeof(k->signers), e);
		if (rc != CF_OK) {
			char why[sizeof(e->msg)];
			snprintf(why, sizeof(why), "%s", e->msg);
			cf_err_clear(e);
			rc = cf_fail(e, CF_TRUST, "the kit's index (%s): %s", KITINDEX_NAME, why);
		}
	}
	if (rc == CF_OK)
		rc = kitindex_parse((const char *)index, index_len, &k->index, e);
	if (rc == CF_OK)
		k->signed_kit = 1;
	free(index);
	free(sig);
	return rc;
}

void kitcheck_close(struct kitcheck *k)
{
	kitindex_free(&k->index);
	memset(k, 0, sizeof(*k));
}

int kitcheck_fresh(const struct kitcheck *k, int allow_expired, struct cf_err *e)
{
	if (!k->signed_kit)
		return CF_OK;
	int64_t now = platform_time_now();
	char until[32], created[32];
	manifest_format_time(k->index.valid_until, until);
	manifest_format_time(k->index.created, created);
	if (k->index.created > now + 86400)
		return cf_fail(e, CF_POLICY, "the kit was written %s, more than a day ahead of this "
			       "clock: check the clock", created);
	if (now <= k->index.valid_until)
		return CF_OK;
	if (!allow_expired)
		return cf_fail(e, CF_POLICY, "the kit expired on %s (written %s): a stale stick; make a "
			       "new kit, or give --allow-expired to use it anyway", until, created);
	log_msg(LOG_WARN, "the kit expired on %s: used anyway (--allow-expired)", until);
	return CF_OK;
}

#define UNPACKER_MAX_BYTES (256u << 20)

/* The whole file behind fd (a regular file of at most 256 MiB) into *bytes (caller frees). */
static int read_whole(int fd, const char *safe, uint8_t **bytes, size_t *n, struct cf_err *e)
{
	struct platform_stat st;
	*bytes = NULL;
	*n = 0;
	if (platform_fstat(fd, &st) != 0 || st.type != PLATFORM_TYPE_FILE || st.size > UNPACKER_MAX_BYTES)
		return cf_fail(e, CF_USAGE, "%s: not a regular file of at most 256 MiB", safe);
	*bytes = xmalloc((size_t)st.size + 1);
	for (ssize_t got = 1; *n < st.size && got > 0; *n += got > 0 ? (size_t)got : 0)
		got = platform_pread(fd, *bytes + *n, (size_t)st.size - *n, *n);
	if (*n == st.size)
		return CF_OK;
	free(*bytes);
	*bytes = NULL;
	return cf_fail(e, CF_USAGE, "%s: cannot read it: %s", safe, platform_strerror(errno ? errno : EIO));
}

/* The container's bytes in memory: its block parsed and its signatures by T trusted keys
 * (CF_TRUST, or CF_USAGE as the parser says). On CF_OK, bytes go to *data when it is not NULL,
 * else they are freed; on a failure they are freed. */
static int judge_container(uint8_t *bytes, size_t n, const char *safe, const struct trust *t,
			   uint8_t **data, size_t *len, uint64_t *stub_len, char *signers,
			   size_t size, struct cf_err *e)
{
	struct sfx_layout l;
	struct frame_sig sigs[FRAME_MAX_SIGS];
	uint32_t nsigs = 0;
	uint8_t digest[32];
	int rc = sfx_container_parse(bytes, n, &l, sigs, &nsigs, digest, e);
	if (rc == CF_OK)
		rc = trust_check_sigs(t, digest, sigs, nsigs, signers, size, e);
	if (rc != CF_OK) {
		char why[sizeof(e->msg)];
		snprintf(why, sizeof(why), "%s", e->msg);
		int code = e->code == CF_USAGE ? CF_USAGE : CF_TRUST;
		cf_err_clear(e);
		free(bytes);
		return cf_fail(e, code, "%s%s%s", code == CF_USAGE ? "" : safe, code == CF_USAGE ? "" : ": ", why);
	}
	*stub_len = l.stub_len;
	if (data) {
		*data = bytes;
		*len = n;
	} else {
		free(bytes);
	}
	return CF_OK;
}

int kitcheck_container(const char *path, const struct trust *t, uint8_t **data, size_t *len,
		       uint64_t *stub_len, char *signers, size_t size, struct cf_err *e)
{
	struct platform_stat st;
	uint8_t *bytes = NULL;
	size_t n = 0;
	char safe[256];
	log_safe(path, safe, sizeof(safe));
	int fd = platform_lstat(path, &st) == 0 && st.type == PLATFORM_TYPE_LINK
			 ? (errno = ELOOP, -1)
			 : platform_open(path, PLATFORM_OPEN_READ | PLATFORM_OPEN_NOFOLLOW | PLATFORM_OPEN_NONBLOCK, 0);
	if (fd < 0)
		return cf_fail(e, errno == ELOOP ? CF_TRUST : CF_USAGE, "%s: %s", safe,
			       errno == ELOOP ? "a link, not opened" : platform_strerror(errno));
	int rc = read_whole(fd, safe, &bytes, &n, e);
	platform_close(fd);
	return rc == CF_OK ? judge_container(bytes, n, safe, t, data, len, stub_len, signers, size, e)
			   : rc;
}

int kitcheck_listed_bytes(const char *dir, const struct kitcheck *k, const char *rel,
			  uint8_t **bytes, size_t *n, struct cf_err *e)
{
	const struct kitindex_file *f = k->signed_kit ? kitindex_find(&k->index, rel) : NULL;
	struct platform_stat st;
	uint8_t d[32];
	char safe[256];
	log_safe(rel, safe, sizeof(safe));
	*bytes = NULL;
	*n = 0;
	if (!f)
		return cf_fail(e, CF_INTEGRITY, "%s: not in the kit's signed index (the kit was written "
			       "without it, or it was put there afterwards): not used", safe);
	int fd = open_in_kit(dir, rel, &st);
	if (fd < 0)
		return cf_fail(e, CF_INTEGRITY, "%s: %s (listed in the kit's signed index)", safe,
			       errno == ELOOP ? "a link on the stick, not opened" : platform_strerror(errno));
	int rc = read_whole(fd, safe, bytes, n, e);
	platform_close(fd);
	/* The bytes hashed are the bytes the caller then judges and uses: read once, nothing
	 * reopened by name in between. */
	if (rc == CF_OK)
		sha256_buf(*bytes, *n, d);
	if (rc == CF_OK && *n != f->size)
		rc = cf_fail(e, CF_INTEGRITY, "%s: %zu bytes, the kit's signed index says %llu: changed "
			     "after the kit was written", safe, *n, (unsigned long long)f->size);
	else if (rc == CF_OK && !digest_equal(d, f->sha256, 32))
		rc = cf_fail(e, CF_INTEGRITY, "%s: SHA-256 differs from the kit's signed index: changed "
			     "after the kit was written", safe);
	if (rc != CF_OK) {
		free(*bytes);
		*bytes = NULL;
		*n = 0;
	}
	return rc;
}

int kitcheck_listed_container(const char *dir, const struct kitcheck *k, const char *rel,
			      const struct trust *t, uint8_t **data, size_t *len, uint64_t *stub_len,
			      char *signers, size_t size, struct cf_err *e)
{
	uint8_t *bytes;
	size_t n;
	char safe[256];
	int rc = kitcheck_listed_bytes(dir, k, rel, &bytes, &n, e);
	return rc == CF_OK ? judge_container(bytes, n, log_safe(rel, safe, sizeof(safe)), t, data,
					     len, stub_len, signers, size, e)
			   : rc;
}

int kitcheck_matches(const struct kitindex_file *f, int fd, struct cf_err *e)
{
	struct platform_stat st;
	char safe[256];
	uint8_t d[32];
	log_safe(f->path, safe, sizeof(safe));
	if (platform_fstat(fd, &st) != 0 || st.type != PLATFORM_TYPE_FILE)
		return cf_fail(e, CF_INTEGRITY, "%s: not a regular file (listed in the kit's signed "
			       "index)", safe);
	if (st.size != f->size)
		return cf_fail(e, CF_INTEGRITY, "%s: %llu bytes, the kit's signed index says %llu: "
			       "changed after the kit was written", safe, (unsigned long long)st.size,
			       (unsigned long long)f->size);
	if (sfx_hash_range(fd, st.size, d) != 0)
		return cf_fail(e, CF_INTEGRITY, "%s: cannot read it: %s", safe, platform_strerror(errno));
	if (!digest_equal(d, f->sha256, 32))
		return cf_fail(e, CF_INTEGRITY, "%s: SHA-256 differs from the kit's signed index: "
			       "changed after the kit was written", safe);
	return CF_OK;
}

/* The file of the index at path, checked: a regular file (no link), its size and SHA-256. */
static int check_listed(const char *dir, const struct kitindex_file *f, struct cf_err *e)
{
	struct platform_stat st;
	char safe[256];
	int fd = open_in_kit(dir, f->path, &st);
	if (fd < 0)
		return cf_fail(e, CF_INTEGRITY, "%s: %s (listed in the kit's signed index)",
			       log_safe(f->path, safe, sizeof(safe)),
			       errno == ELOOP ? "a link on the stick, not opened" : platform_strerror(errno));
	int rc = kitcheck_matches(f, fd, e);
	platform_close(fd);
	return rc;
}

struct walk {
	const char *dir;
	const struct kitindex *x;
	char rel[1024];
	int depth;
	int rc;
	struct cf_err *e;
};

/* Whether rel is a directory some listed file lies below. */
static int listed_dir(const struct kitindex *x, const char *rel)
{
	for (size_t i = 0; i < x->nfiles; i++)
		if (path_is_below(x->files[i].path, rel))
			return 1;
	return 0;
}

static int visit(const char *name, void *ctx);

static void walk_dir(struct walk *w)
{
	char *p = w->rel[0] ? kit_path(w->dir, w->rel) : xstrdup(w->dir);
	if (platform_dir_list(p, visit, w) != 0 && w->rc == CF_OK)
		w->rc = cf_fail(w->e, CF_INTEGRITY, "%s: cannot list it: %s", p, platform_strerror(errno));
	free(p);
}

/* Anything on the kit that its index does not list is refused: a planted bundle, a link. */
static int visit(const char *name, void *ctx)
{
	struct walk *w = ctx;
	if (w->rc != CF_OK)
		return 1;
	size_t used = strlen(w->rel);
	char rel[1024];
	snprintf(rel, sizeof(rel), "%s%s%s", w->rel, used ? "/" : "", name);
	if (!used && (strcmp(name, KITINDEX_NAME) == 0 || strcmp(name, KITINDEX_SIG_NAME) == 0))
		return 0;
	char *p = kit_path(w->dir, rel), safe[256];
	struct platform_stat st;
	int ok = platform_lstat(p, &st) == 0;
	free(p);
	log_safe(rel, safe, sizeof(safe));
	if (ok && st.type == PLATFORM_TYPE_DIR && w->depth < MAX_DEPTH && listed_dir(w->x, rel)) {
		char saved[1024];
		snprintf(saved, sizeof(saved), "%s", w->rel);
		snprintf(w->rel, sizeof(w->rel), "%s", rel);
		w->depth++;
		walk_dir(w);
		w->depth--;
		snprintf(w->rel, sizeof(w->rel), "%s", saved);
		return w->rc != CF_OK;
	}
	if (ok && st.type == PLATFORM_TYPE_FILE && kitindex_find(w->x, rel))
		return 0;
	w->rc = cf_fail(w->e, CF_INTEGRITY, "%s: %s on the kit but not in its signed index (added "
			"after the kit was written)", safe, ok && st.type == PLATFORM_TYPE_LINK ? "a link"
			: ok && st.type == PLATFORM_TYPE_DIR ? "a directory" : "a file");
	return 1;
}

static int is_unpacker(const char *path)
{
	const char *slash = strchr(path, '/');
	return slash && !strchr(slash + 1, '/') &&
	       (strcmp(slash + 1, "unpacker") == 0 || strcmp(slash + 1, "unpacker.exe") == 0);
}

int kitcheck_files(const char *dir, const struct kitcheck *k, const struct trust *t,
		   struct cf_err *e)
{
	const struct kitindex *x = &k->index;
	int rc = CF_OK;
	for (size_t i = 0; rc == CF_OK && i < x->nfiles; i++)
		rc = check_listed(dir, &x->files[i], e);
	if (rc == CF_OK) {
		struct walk w = { dir, x, "", 0, CF_OK, e };
		walk_dir(&w);
		rc = w.rc;
	}
	for (size_t i = 0; rc == CF_OK && i < x->nfiles; i++) {
		if (!is_unpacker(x->files[i].path))
			continue;
		char signers[256];
		uint64_t stub_len;
		/* Read again and hashed in memory: the bytes whose signatures count are those the
		 * index lists, not a file swapped in after check_listed looked. */
		rc = kitcheck_listed_container(dir, k, x->files[i].path, t, NULL, NULL, &stub_len,
					       signers, sizeof(signers), e);
		if (rc == CF_OK)
			log_out("unpacker  %s: signed by %s\n", x->files[i].path, signers);
	}
	return rc;
}

/* What makes dir a kit rather than a directory of bundles someone gathered, in mark (empty
 * when nothing does): the stick's cuferry-kit/ (descended is set), the signature of
 * SHA256SUMS, an unpacker of a platform's directory, the kit's trust statement, or the
 * README.txt and SHA256SUMS of an older bundler's kit. */
static void kit_mark(const char *dir, int descended, char *mark, size_t size)
{
	static const char *const marks[] = { "SHA256SUMS.sig", "trust-statement.cuferry", NULL };
	struct platform_stat st;
	snprintf(mark, size, "%s", descended ? KIT_DIR_NAME "/" : "");
	for (size_t i = 0; !mark[0] && marks[i]; i++) {
		char *p = kit_path(dir, marks[i]);
		if (platform_lstat(p, &st) == 0)
			snprintf(mark, size, "%s", marks[i]);
		free(p);
	}
	/* an unpacker in a platform's directory: linux-x86_64/unpacker, windows-x86_64/unpacker.exe */
	const struct platform_spec *row;
	for (size_t i = 0; !mark[0] && (row = platform_at(i)) != NULL; i++) {
		char name[48];
		snprintf(name, sizeof(name), "%s/unpacker%s", row->name, row->exe_suffix);
		char *p = kit_path(dir, name);
		if (platform_lstat(p, &st) == 0)
			snprintf(mark, size, "%s", name);
		free(p);
	}
	char *a = kit_path(dir, "README.txt"), *b = kit_path(dir, "SHA256SUMS");
	if (!mark[0] && platform_lstat(a, &st) == 0 && platform_lstat(b, &st) == 0)
		snprintf(mark, size, "README.txt and SHA256SUMS");
	free(a);
	free(b);
}

int kitcheck_verify_kit(const char *path, const struct trust_sources *src, int allow_expired,
			int whole, char **dir, struct kitcheck *kit, struct cf_err *e)
{
	*dir = NULL;
	if (kit)
		memset(kit, 0, sizeof(*kit));
	int rc = kitcheck_dir(path, dir, e);
	if (rc != CF_OK)
		return rc;
	char safe[256], mark[64];
	log_safe(*dir, safe, sizeof(safe));
	if (!kitcheck_present(*dir)) {
		/* A kit that lost its index cannot be proven, for install as for verify: nothing
		 * of it would say what the kit held, or until when (2). Any other directory is a
		 * directory of bundles, verified one by one by install, and a usage error for
		 * verify, as before kits were signed. */
		kit_mark(*dir, strcmp(*dir, path) != 0, mark, sizeof(mark));
		if (mark[0])
			return cf_fail(e, CF_TRUST, "%s is a kit (it has %s) without its signed index (%s, "
				       "%s): refused, since nothing proves what it held; write the kit "
				       "again with 'bundler kit', or give one bundle file of it", safe, mark,
				       KITINDEX_NAME, KITINDEX_SIG_NAME);
		if (whole)
			return cf_fail(e, CF_USAGE, "%s is a directory: give the bundle file in it "
				       "(NAME.bundle, NAME.bundle.001 or NAME.run), or a kit that 'bundler "
				       "kit' wrote", safe);
		return CF_OK;
	}
	struct trust *t = xmalloc(sizeof(*t));
	struct kitcheck k;
	memset(&k, 0, sizeof(k));
	rc = trust_load(t, src, e);
	if (rc == CF_OK)
		rc = kitcheck_open(*dir, t, &k, e);
	if (rc == CF_OK)
		rc = kitcheck_fresh(&k, allow_expired, e);
	if (rc == CF_OK && whole)
		rc = kitcheck_files(*dir, &k, t, e);
	if (rc == CF_OK) {
		char until[32];
		manifest_format_time(k.index.valid_until, until);
		log_out("kit %s: index signed by %s, valid until %s%s\n", safe, k.signers, until,
			whole ? "" : " (each bundle is verified as it is read)");
		if (whole)
			log_out("verified kit %s: %zu files, every one as its signed index lists it "
				"(the index and its signature not counted)\n",
				safe, k.index.nfiles);
	}
	if (rc == CF_OK && kit)
		*kit = k; /* the caller's now */
	else
		kitcheck_close(&k);
	free(t);
	return rc;
}

int kitcheck_is_container(const char *path)
{
	uint8_t tail[SFX_TRAILER_LEN];
	struct platform_stat st;
	int fd = platform_open(path, PLATFORM_OPEN_READ | PLATFORM_OPEN_NOFOLLOW | PLATFORM_OPEN_NONBLOCK, 0);
	int yes = fd >= 0 && platform_fstat(fd, &st) == 0 && st.type == PLATFORM_TYPE_FILE &&
		  st.size > SFX_TRAILER_LEN &&
		  platform_pread(fd, tail, SFX_TRAILER_LEN, st.size - SFX_TRAILER_LEN) == SFX_TRAILER_LEN &&
		  sfx_trailer_tagged(tail) == 0 && frame_le64(tail + 16) == 0;
	if (fd >= 0)
		platform_close(fd);
	return yes;
}

int kitcheck_verify_container(const char *path, const struct trust_sources *src, struct cf_err *e)
{
	struct trust *t = xmalloc(sizeof(*t));
	char signers[256], safe[256];
	uint64_t stub_len = 0;
	int rc = trust_load(t, src, e);
	if (rc == CF_OK)
		rc = kitcheck_container(path, t, NULL, NULL, &stub_len, signers, sizeof(signers), e);
	if (rc == CF_OK)
		log_out("verified %s: a signed unpacker (%llu bytes of program), signed by %s\n",
			log_safe(path, safe, sizeof(safe)), (unsigned long long)stub_len, signers);
	free(t);
	return rc;
}
