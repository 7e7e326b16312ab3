/* inspect.c - looking into a bundle, and adding signatures to one */
#include "bundler/inspect.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bundler/check.h"
#include "bundler/output.h"
#include "common/bundle/format.h"
#include "common/bundle/open.h"
#include "common/bundle/write.h"
#include "common/io.h"
#include "common/log.h"
#include "common/sha256.h"
#include "manifests/sbom.h"
#include "signing/sign.h"
#include "signing/verify.h"

/* The manifest's free-text fields (where it came from, the component names) are a bundle
 * maker's words, and inspect needs no trusted key: escaped, so no ESC reaches a terminal. */
static void print_manifest(const struct manifest *m)
{
	char kind[64], name[1024], release[64];
	log_out("bundle_id   %s\n", m->bundle_id);
	log_out("format      %s, counter %llu\n", manifest_format_name(m), (unsigned long long)m->counter);
	log_out("created     %s, expires %s\n", m->created, m->expires ? m->expires : "never");
	log_out("platform    %s\n", m->platform);
	log_out("%-11s %s for CUDA %s (from %s %s)\n", m->product->display, m->product_version,
		m->cuda_variant, log_escape(m->source_kind, kind, sizeof(kind)),
		log_escape(m->source_name, name, sizeof(name)));
	for (size_t i = 0; i < m->nmembers; i++) {
		const struct manifest_member *w = &m->members[i];
		char wkind[64], wname[1024];
		log_out("with        %s %s (from %s %s)\n", w->product->display, w->version,
			log_escape(w->source_kind, wkind, sizeof(wkind)),
			log_escape(w->source_name, wname, sizeof(wname)));
	}
	log_out("CUDA        %s\n", m->cuda_release ? log_escape(m->cuda_release, release, sizeof(release))
						    : "(unknown release)");
	for (size_t i = 0; i < m->ncomponents; i++) {
		char component[128], version[64];
		log_out("  %-11s %-12s %s\n", log_escape(m->components[i].name, component, sizeof(component)),
			log_escape(m->components[i].version, version, sizeof(version)),
			m->components[i].included ? "included" : "listed, not included");
	}
	check_print_requires(m, "requires    ");
	log_out("payload     %llu bytes compressed, %llu bytes as tar, %zu chunks of %u bytes\n",
		(unsigned long long)m->compressed_size, (unsigned long long)m->uncompressed_size,
		m->nchunks, m->chunk_size);
	log_out("files       %zu\n", m->nfiles);
	for (size_t i = 0; i < m->nfiles; i++) {
		const struct manifest_file *f = &m->files[i];
		if (f->type == MF_SYMLINK)
			log_out("  %-6s %12s  %s -> %s\n", "link", "", f->path, f->target);
		else
			log_out("  %04o   %12llu  %s\n", f->mode, (unsigned long long)f->size, f->path);
	}
	for (size_t i = 0; i < m->env_path.count; i++)
		log_out("env         PATH += %s\n", m->env_path.items[i]);
	for (size_t i = 0; i < m->env_ld_library_path.count; i++)
		log_out("env         LD_LIBRARY_PATH += %s\n", m->env_ld_library_path.items[i]);
}

static int write_export(const char *dir, const char *name, const void *data, size_t len,
			struct cf_err *e)
{
	char *path = xasprintf("%s/%s", dir, name);
	int rc = io_write_file_atomic(path, data, len, 0644) == 0
			 ? CF_OK
			 : cf_fail(e, cf_write_status(errno), "%s: %s", path, strerror(errno));
	free(path);
	return rc;
}

/* PREFIXsigner-N.pub and PREFIXsignature-N.der for each signature of a list. */
static int export_sigs(const char *dir, const char *prefix, const struct frame_sig *sigs,
		       uint32_t n, struct cf_err *e)
{
	int rc = CF_OK;
	for (uint32_t i = 0; i < n && rc == CF_OK; i++) {
		char pem[1024], name[64];
		uint8_t der[SIG_DER_MAX];
		size_t der_len;
		if (sig_pubkey_pem(sigs[i].spki, sigs[i].spki_len, pem, sizeof(pem)) != 0)
			return cf_fail(e, CF_TRUST, "%ssignature %u carries an unreadable key", prefix,
				       i + 1);
		sig_raw_to_der(sigs[i].sig, der, &der_len);
		snprintf(name, sizeof(name), "%ssigner-%u.pub", prefix, i + 1);
		rc = write_export(dir, name, pem, strlen(pem), e);
		snprintf(name, sizeof(name), "%ssignature-%u.der", prefix, i + 1);
		if (rc == CF_OK)
			rc = write_export(dir, name, der, der_len, e);
	}
	return rc;
}

/* header.json, signer-N.pub and signature-N.der: enough for openssl dgst -verify; for a .run
 * also stub-message.bin with stub-signer-N.pub and stub-signature-N.der. */
static int export_frame(const struct checked *c, const char *dir, struct cf_err *e)
{
	const struct frame *f = c->frame;
	if (io_mkdirs(dir, 0755) != 0)
		return cf_fail(e, cf_write_status(errno), "%s: %s", dir, strerror(errno));
	int rc = write_export(dir, "header.json", f->header, f->header_len, e);
	if (rc == CF_OK)
		rc = export_sigs(dir, "", f->sigs, f->nsigs, e);
	if (rc == CF_OK && c->nstub_sigs) {
		rc = write_export(dir, "stub-message.bin", c->stub_message, sizeof(c->stub_message), e);
		if (rc == CF_OK)
			rc = export_sigs(dir, "stub-", c->stub_sigs, c->nstub_sigs, e);
	}
	/* "-o exp/" names the same directory as "exp": the command printed has one slash. */
	int n = (int)strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (rc == CF_OK)
		/* The key to check with is the site's own, from another channel: signer-1.pub came
		 * out of the bundle, so a check against it proves only that the bundle agrees with
		 * itself (the trial of issue 25). */
		log_out("exported to %.*s: header.json, signer-N.pub, signature-N.der%s\n"
			"check with the site's own public key (site.pub, from another channel; "
			"%.*s/signer-1.pub came out of the bundle itself, so a check against it proves "
			"only that the bundle agrees with itself):\n"
			"  openssl dgst -sha256 -verify site.pub -signature %.*s/signature-1.der "
			"%.*s/header.json\n", n, dir,
			c->nstub_sigs ? ", stub-message.bin, stub-signer-N.pub, stub-signature-N.der" : "",
			n, dir, n, dir, n, dir);
	return rc;
}

/* NAME.NNN, NNN from 002: a middle or last part starts with no header of its own. What is
 * wrong is the file named, not the file: say which part to give, as the unpacker does. */
static int explain_later_part(const char *path, struct cf_err *e)
{
	size_t n = strlen(path);
	if (n < 5 || path[n - 4] != '.' || strspn(path + n - 3, "0123456789") != 3 ||
	    atoi(path + n - 3) < 2)
		return e->code;
	char *first = xasprintf("%.*s.001", (int)(n - 4), path);
	cf_err_clear(e);
	int rc = cf_fail(e, CF_USAGE, "%s is part %d of a split bundle, not a bundle by itself: give "
			 "%s (the parts are read in order from there)%s", path, atoi(path + n - 3), first,
			 io_exists(first) ? "" : ", which is not beside it");
	free(first);
	return rc;
}

/* The stored SBOM or provenance record, after the same checks as the summary, and nothing
 * else on stdout. */
static int print_sbom(const char *path, enum sbom_kind kind, struct cf_err *e)
{
	struct checked c;
	struct sbom_capture cap;
	struct payload_sink sink;
	sbom_capture_init(&cap, kind, &sink);
	int rc = check_open(path, &c, e);
	if (rc == CF_TRUST && !c.frame)
		rc = explain_later_part(path, e);
	if (rc == CF_OK)
		rc = bundle_walk(c.input, &sink, NULL, e);
	if (rc == CF_OK) {
		char fps[FRAME_MAX_SIGS][65], *text;
		size_t len;
		for (uint32_t i = 0; i < c.frame->nsigs; i++)
			sig_fingerprint(c.frame->sigs[i].keyid, fps[i]);
		rc = sbom_with_signers(&cap, (const char(*)[65])fps, c.frame->nsigs, &text, &len, e);
		if (rc == CF_OK) {
			log_out("%s", text);
			free(text);
		}
	}
	sbom_capture_free(&cap);
	check_close(&c);
	return rc;
}

int inspect_bundle(const char *path, const char *export_dir, const char *sbom, int provenance,
		   struct cf_err *e)
{
	if (sbom && provenance)
		return cf_fail(e, CF_USAGE, "--sbom and --provenance print one document each: give one");
	if (provenance)
		return print_sbom(path, SBOM_PROVENANCE, e);
	if (sbom) {
		enum sbom_kind kind;
		if (sbom_kind_parse(sbom, &kind) != 0)
			return cf_fail(e, CF_USAGE, "--sbom '%s': cyclonedx or spdx", sbom);
		return print_sbom(path, kind, e);
	}
	struct checked c;
	int rc = check_open(path, &c, e);
	if (rc == CF_TRUST && !c.frame)
		rc = explain_later_part(path, e);
	if (c.frame && c.frame->nsigs) {
		for (uint32_t i = 0; i < c.frame->nsigs; i++) {
			char fp[65], id[17];
			sig_short_id(c.frame->sigs[i].keyid, id);
			sig_fingerprint(c.frame->sigs[i].keyid, fp);
			log_out("signer %u    %s (fingerprint %s)%s\n", i + 1, id, fp,
				rc == CF_TRUST ? "" : ", signature valid");
		}
	}
	for (uint32_t i = 0; rc == CF_OK && i < c.nstub_sigs; i++) {
		char id[17];
		sig_short_id(c.stub_sigs[i].keyid, id);
		log_out("stub signer %u %s, signature valid\n", i + 1, id);
	}
	if (rc == CF_OK) {
		log_out("layout      %s, %llu bytes%s\n",
			bundle_is_sfx(c.input) ? "self-extracting" : bundle_part_count(c.input) > 1 ? "split" : "single file",
			(unsigned long long)bundle_size(c.input),
			bundle_part_count(c.input) > 1 ? " in parts" : "");
		print_manifest(c.manifest);
		/* Every chunk against the signed list: a truncated or corrupt copy is exit 3 here,
		 * not a surprise on the target. */
		rc = check_payload(&c, 0, e);
		if (rc == CF_OK)
			log_out("payload     every chunk and file matches the manifest\n");
	}
	if (rc == CF_OK && export_dir)
		rc = export_frame(&c, export_dir, e);
	check_close(&c);
	return rc;
}

/* --signature FILE: 64 raw bytes, 128 hex digits, or DER from openssl. */
static int read_signature(const char *path, uint8_t raw[SIG_RAW_LEN], struct cf_err *e)
{
	char *data;
	size_t len;
	if (io_read_file(path, 4096, &data, &len) != 0)
		return cf_fail(e, CF_USAGE, "%s: cannot read signature", path);
	int rc = CF_OK;
	if (sig_decode_any((const uint8_t *)data, len, raw) != 0)
		rc = cf_fail(e, CF_TRUST, "%s: not a P-256 signature (64 raw bytes, 128 hex digits "
			     "or strict DER)", path);
	free(data);
	return rc;
}

int sign_make(const struct sign_options *o, const uint8_t digest[32], const char *what,
	      const struct frame_sig *have, uint32_t nhave, struct frame_sig *sig,
	      struct cf_err *e)
{
	memset(sig, 0, sizeof(*sig));
	if (!o->external) {
		struct signer *s;
		size_t len;
		int rc = signer_load(o->key_path, &s, e);
		if (rc != CF_OK)
			return rc;
		const uint8_t *spki = signer_spki(s, &len);
		memcpy(sig->spki, spki, len);
		sig->spki_len = (uint16_t)len;
		rc = signer_sign(s, digest, sig->sig, e);
		signer_free(s);
		if (rc != CF_OK)
			return rc;
	} else {
		size_t len;
		int rc = sig_pubkey_load(o->pub_path, sig->spki, &len, e);
		if (rc != CF_OK)
			return rc;
		sig->spki_len = (uint16_t)len;
		rc = read_signature(o->signature_path, sig->sig, e);
		if (rc != CF_OK)
			return rc;
		if (sig_verify(sig->spki, len, digest, sig->sig, SIG_RAW_LEN) != SIG_VALID)
			return cf_fail(e, CF_TRUST, "the external signature does not verify with %s over "
				       "this %s", o->pub_path, what);
	}
	sig_keyid(sig->spki, sig->spki_len, sig->keyid);
	for (uint32_t i = 0; i < nhave; i++)
		if (memcmp(have[i].keyid, sig->keyid, 32) == 0)
			return cf_fail(e, CF_USAGE, "this key has already signed the %s", what);
	if (nhave >= FRAME_MAX_SIGS)
		return cf_fail(e, CF_USAGE, "the %s already has %d signatures", what, FRAME_MAX_SIGS);
	return CF_OK;
}

static int rewrite_with(const char *path, struct checked *c, const struct frame_sig *sig,
			struct cf_err *e)
{
	struct frame_sig sigs[FRAME_MAX_SIGS];
	size_t frame_len;
	memcpy(sigs, c->frame->sigs, c->frame->nsigs * sizeof(*sigs));
	sigs[c->frame->nsigs] = *sig;
	uint8_t *frame = frame_encode(c->frame->header, c->frame->header_len, sigs, c->frame->nsigs + 1,
				      &frame_len);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *staged = NULL;
	int rc;
	if (fd < 0 || lseek(fd, (off_t)c->frame->frame_len, SEEK_SET) < 0) {
		rc = cf_fail(e, cf_write_status(errno), "%s: %s", path, strerror(errno));
	} else {
		/* output_stage copies from offset 0 of its fd: give it a view past the old frame. */
		char *payload = xasprintf("%s.payload-XXXXXX", path);
		int pfd = mkostemp(payload, O_CLOEXEC);
		unlink(payload);
		free(payload);
		rc = (pfd >= 0 && io_copy_fd(fd, pfd, c->manifest->compressed_size) == 0)
			     ? output_stage(path, frame, frame_len, pfd, c->manifest->compressed_size,
					    &staged, e)
			     : cf_fail(e, cf_write_status(errno), "%s: %s", path, strerror(errno));
		if (pfd >= 0)
			close(pfd);
	}
	if (fd >= 0)
		close(fd);
	free(frame);
	if (rc != CF_OK || !staged)
		return rc != CF_OK ? rc : cf_fail(e, CF_INSTALL, "%s: cannot stage", path);
	struct checked again;
	rc = check_open(staged, &again, e);
	if (rc == CF_OK)
		rc = check_payload(&again, 0, e);
	check_close(&again);
	if (rc == CF_OK) {
		struct output_files written = { 0 };
		rc = output_commit(staged, path, &written, e);
		if (rc == CF_OK)
			rc = output_files_sums(&written, e);
		output_files_free(&written);
	} else {
		unlink(staged);
	}
	free(staged);
	return rc;
}

void sign_print_external_steps(const uint8_t digest[32], const char *what, const char *verb,
			       const char *input)
{
	char hex[65];
	hex_encode(digest, 32, hex);
	log_out("%s\n", hex);
	/* One message a line: the log escapes control characters such as newlines. */
	log_msg(LOG_INFO, "this is the SHA-256 %s. Sign it on the signing host, e.g.:", what);
	log_msg(LOG_INFO, "  printf %s | xxd -r -p > digest.bin", hex);
	log_msg(LOG_INFO, "  openssl pkeyutl -sign -inkey key.pem -in digest.bin -out sig.der");
	log_msg(LOG_INFO, "then: bundler %s %s --external --pub key.pub --signature sig.der", verb,
		input);
}

int sign_bundle(const char *path, const struct sign_options *o, struct cf_err *e)
{
	struct checked c;
	struct frame_sig sig;
	int rc = check_open(path, &c, e);
	if (rc == CF_OK && (bundle_is_sfx(c.input) || bundle_part_count(c.input) > 1))
		rc = cf_fail(e, CF_USAGE, "sign a plain .bundle, then split it or make the .run");
	if (rc == CF_OK && o->external && !o->signature_path) {
		sign_print_external_steps(c.digest, "of the signed header", "sign", path);
		check_close(&c);
		return CF_OK;
	}
	if (rc == CF_OK)
		rc = sign_make(o, c.digest, "bundle's header", c.frame->sigs, c.frame->nsigs, &sig, e);
	if (rc == CF_OK)
		rc = rewrite_with(path, &c, &sig, e);
	if (rc == CF_OK) {
		char id[17];
		sig_short_id(sig.keyid, id);
		log_out("%s: signature %u added (key %s)\n", path, c.frame->nsigs + 1, id);
	}
	check_close(&c);
	return rc;
}
