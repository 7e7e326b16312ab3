/* sfx.c - wrapping a signed bundle in the unpacker for its platform, every byte signed */
#include "bundler/sfx.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundler/check.h"
#include "bundler/inspect.h"
#include "bundler/output.h"
#include "bundler/stub.h"
#include "common/io.h"
#include "common/log.h"
#include "common/bundle/sfx.h"
#include "common/sha256.h"
#include "signing/verify.h"

/* What goes into the new file: the stub and bundle bytes (from one or two files) and the
 * signatures of the block. */
struct run_parts {
	int stub_fd;
	int bundle_fd;
	uint64_t bundle_at; /* offset of the bundle in bundle_fd */
	struct sfx_layout layout;
	struct frame_sig sigs[FRAME_MAX_SIGS];
	uint32_t nsigs;
};

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

char *sfx_run_name(const char *bundle, const char *platform)
{
	size_t n = strlen(bundle);
	if (has_suffix(bundle, ".bundle"))
		return xasprintf("%.*s%s", (int)(n - 7), bundle, stub_extension(platform));
	return xasprintf("%s%s", bundle, stub_extension(platform));
}

/* NAME.bundle -> NAME.run; a .run keeps its name; -o DIR puts that name into DIR. */
static char *output_name(const char *input, int input_is_run, const char *platform,
			 const char *out)
{
	char *name = input_is_run ? xstrdup(input) : sfx_run_name(input, platform);
	if (!out)
		return name;
	if (!io_is_dir(out) && !has_suffix(out, "/")) {
		free(name);
		return xstrdup(out);
	}
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	char *path = xasprintf("%s%s%s", out, has_suffix(out, "/") ? "" : "/", base);
	free(name);
	return path;
}

static int copy_at(int in, uint64_t off, int out, uint64_t len)
{
	return lseek(in, (off_t)off, SEEK_SET) < 0 ? -1 : io_copy_fd(in, out, len);
}

/* Write the .run beside out_path under a temporary name; *tmp_out to be freed. */
static int write_run(const struct run_parts *p, const char *out_path, char **tmp_out,
		     struct cf_err *e)
{
	char *tmp = xasprintf("%s.tmp-XXXXXX", out_path);
	size_t block_len;
	uint8_t *block = sfx_block_encode(p->sigs, p->nsigs, &block_len);
	struct sfx_layout l = p->layout;
	uint8_t trailer[SFX_TRAILER_LEN];
	l.block_len = block_len;
	sfx_trailer_encode(&l, trailer);
	int fd = mkostemp(tmp, O_CLOEXEC);
	int ok = fd >= 0 && fchmod(fd, 0755) == 0 &&
		 copy_at(p->stub_fd, 0, fd, l.stub_len) == 0 &&
		 copy_at(p->bundle_fd, p->bundle_at, fd, l.bundle_len) == 0 &&
		 io_write_all(fd, block, block_len) == 0 &&
		 io_write_all(fd, trailer, sizeof(trailer)) == 0 && fsync(fd) == 0;
	int saved = errno;
	free(block);
	if (fd >= 0)
		close(fd);
	if (!ok) {
		if (fd >= 0)
			unlink(tmp);
		free(tmp);
		return cf_fail(e, cf_write_status(saved), "%s: %s", out_path, strerror(saved));
	}
	*tmp_out = tmp;
	return CF_OK;
}

/* The new file must read back as a .run whose every signature and chunk checks out. */
static int read_back(const char *tmp, uint32_t want_sigs, int progress, struct cf_err *e)
{
	struct checked c;
	int rc = check_open(tmp, &c, e);
	if (rc == CF_OK && (!bundle_is_sfx(c.input) || c.nstub_sigs != want_sigs))
		rc = cf_fail(e, CF_INTEGRITY, "the new file does not read back as a signed .run");
	if (rc == CF_OK)
		rc = check_payload(&c, progress, e);
	check_close(&c);
	return rc;
}

/* Open the stub and bundle bytes: a plain bundle gets the stub for its platform, a .run
 * keeps its own stub and signatures. */
static int gather(const char *input, const struct checked *c, const struct sfx_options *o,
		  struct run_parts *p, struct cf_err *e)
{
	const uint8_t *block;
	const struct sfx_layout *l = bundle_sfx_layout(c->input, &block);
	struct stat st;
	if (l) {
		if (o->unpacker)
			return cf_fail(e, CF_USAGE, "%s already has its stub: wrap the plain bundle to "
				       "use another --unpacker", input);
		p->stub_fd = p->bundle_fd = open(input, O_RDONLY | O_CLOEXEC);
		p->bundle_at = l->stub_len;
		p->layout = *l;
		memcpy(p->sigs, c->stub_sigs, sizeof(p->sigs));
		p->nsigs = c->nstub_sigs;
		return p->stub_fd >= 0 ? CF_OK : cf_fail(e, cf_write_status(errno), "%s: %s", input, strerror(errno));
	}
	char stub[PATH_MAX];
	int rc = stub_find(c->manifest->platform, o->unpacker, stub, sizeof(stub), e);
	if (rc != CF_OK)
		return rc;
	p->stub_fd = open(stub, O_RDONLY | O_CLOEXEC);
	p->bundle_fd = open(input, O_RDONLY | O_CLOEXEC);
	if (p->stub_fd < 0 || fstat(p->stub_fd, &st) != 0)
		return cf_fail(e, cf_write_status(errno), "%s: %s", stub, strerror(errno));
	p->layout.stub_len = (uint64_t)st.st_size;
	if (p->bundle_fd < 0 || fstat(p->bundle_fd, &st) != 0)
		return cf_fail(e, cf_write_status(errno), "%s: %s", input, strerror(errno));
	p->layout.bundle_len = (uint64_t)st.st_size;
	log_msg(LOG_DEBUG, "stub for %s: %s", c->manifest->platform, stub);
	return CF_OK;
}

/* A file the target system would not start is refused before anything is signed or written. */
static int check_size(const struct sfx_layout *l, const char *platform, struct cf_err *e)
{
	uint64_t max = stub_max_file_size(platform);
	uint64_t size = l->stub_len + l->bundle_len + SFX_BLOCK_MAX + SFX_TRAILER_LEN;
	if (!max || size <= max)
		return CF_OK;
	return cf_fail(e, CF_INCOMPATIBLE, "the %s would be about %llu bytes, and %s starts no program "
		       "file over %llu bytes: carry the .bundle and its unpacker instead",
		       stub_extension(platform), (unsigned long long)size, platform,
		       (unsigned long long)max);
}

/* The bundler has no trust store: the keys it can vouch for are those whose signatures over the
 * bundle's header verify (check_open verified them). A stub signed by any other key is
 * someone else's program, and a co-signature would lend it this key's trust (review item 5). */
static int check_stub_signers(const struct checked *c, const struct run_parts *p, int force,
			      struct cf_err *e)
{
	for (uint32_t i = 0; i < p->nsigs; i++) {
		int known = 0;
		for (uint32_t k = 0; k < c->frame->nsigs; k++)
			known |= memcmp(p->sigs[i].keyid, c->frame->sigs[k].keyid, 32) == 0;
		if (known)
			continue;
		char id[17];
		sig_short_id(p->sigs[i].keyid, id);
		if (!force)
			return cf_fail(e, CF_TRUST, "the stub is signed by key %s, which did not sign the "
				       "bundle's header: refusing to co-sign a stub an unknown key signed "
				       "(--force to co-sign it anyway)", id);
		log_msg(LOG_WARN, "co-signing a stub signed by key %s, which did not sign the bundle's "
			"header (--force)", id);
	}
	return CF_OK;
}

int sfx_write(const char *input, const struct sfx_options *o, struct cf_err *e)
{
	struct checked c;
	struct run_parts p = { .stub_fd = -1, .bundle_fd = -1 };
	uint8_t stub_sha[32], digest[32];
	char *out_path = NULL, *tmp = NULL;
	int rc = check_open(input, &c, e);
	if (rc == CF_OK && bundle_part_count(c.input) > 1)
		rc = cf_fail(e, CF_USAGE, "wrap the plain .bundle, not its parts");
	if (rc == CF_OK && o->platform && strcmp(o->platform, c.manifest->platform) != 0)
		rc = cf_fail(e, CF_INCOMPATIBLE, "%s is a %s bundle, not %s", input,
			     c.manifest->platform, o->platform);
	if (rc == CF_OK)
		rc = gather(input, &c, o, &p, e);
	if (rc == CF_OK)
		rc = check_stub_signers(&c, &p, o->force, e);
	if (rc == CF_OK)
		rc = check_size(&p.layout, c.manifest->platform, e);
	if (rc == CF_OK && sfx_hash_range(p.stub_fd, p.layout.stub_len, stub_sha) != 0)
		rc = cf_fail(e, cf_write_status(errno), "cannot read the stub: %s", strerror(errno));
	if (rc == CF_OK)
		sfx_digest(stub_sha, c.frame->header, c.frame->header_len, &p.layout, digest);
	if (rc == CF_OK && o->external && !o->signature_path) {
		sign_print_external_steps(digest, "the stub-signature block signs", "sfx", input);
		goto out;
	}
	struct frame_sig sig;
	struct sign_options so = { .key_path = o->key_path, .external = o->external,
				   .pub_path = o->pub_path, .signature_path = o->signature_path };
	if (rc == CF_OK)
		rc = sign_make(&so, digest, "stub-signature block", p.sigs, p.nsigs, &sig, e);
	if (rc == CF_OK) {
		p.sigs[p.nsigs++] = sig;
		out_path = output_name(input, bundle_is_sfx(c.input), c.manifest->platform, o->out);
		rc = !bundle_is_sfx(c.input) && strcmp(out_path, input) == 0
			     ? cf_fail(e, CF_USAGE, "-o %s would replace the bundle itself", out_path)
			     : write_run(&p, out_path, &tmp, e);
	}
	if (rc == CF_OK) {
		rc = read_back(tmp, p.nsigs, o->progress, e);
		if (rc != CF_OK)
			unlink(tmp);
	}
	struct output_files written = { 0 };
	if (rc == CF_OK)
		rc = output_commit(tmp, out_path, &written, e);
	if (rc == CF_OK)
		rc = output_files_sums(&written, e);
	output_files_free(&written);
	if (rc == CF_OK) {
		char id[17];
		sig_short_id(p.sigs[p.nsigs - 1].keyid, id);
		log_out("%s: self-extracting %s bundle, %llu-byte stub, stub-signature %u by key %s\n",
			out_path, c.manifest->platform, (unsigned long long)p.layout.stub_len, p.nsigs,
			id);
	}
out:
	if (p.stub_fd >= 0)
		close(p.stub_fd);
	if (p.bundle_fd >= 0 && p.bundle_fd != p.stub_fd)
		close(p.bundle_fd);
	check_close(&c);
	free(out_path);
	free(tmp);
	return rc;
}
