/* statement.c - a trust statement is a bundle header's frame with its own tag: JSON with a
 * counter, created and actions, then the signatures; nothing is written unverified */
#include "bundler/statement.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/bundle/format.h"
#include "common/bundle/open.h"
#include "common/bundle/write.h"
#include "common/io.h"
#include "common/log.h"
#include "common/sha256.h"
#include "manifests/manifest.h"
#include "signing/verify.h"

/* SOURCE_DATE_EPOCH or the clock: an --external statement is made twice (digest, then the
 * signature), and must be the same bytes both times. */
static int statement_time(int64_t *now, struct cf_err *e)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	*now = (int64_t)time(NULL);
	if (sde && *sde) {
		char *end;
		long long v = strtoll(sde, &end, 10);
		if (*end || v < 0)
			return cf_fail(e, CF_USAGE, "SOURCE_DATE_EPOCH='%s' is not a number of seconds", sde);
		*now = v;
	}
	return CF_OK;
}

static int add_actions(const struct statement_options *o, json_t *actions, struct cf_err *e)
{
	for (int i = 0; i < o->nrevoke; i++) {
		uint8_t id[32];
		char fp[65];
		if (strlen(o->revoke[i]) != 64 || hex_decode(o->revoke[i], id, 32) != 0)
			return cf_fail(e, CF_USAGE, "--revoke '%s': give the key's whole fingerprint (64 "
				       "hex digits, as 'bundler keygen' printed it)", o->revoke[i]);
		sig_fingerprint(id, fp); /* lower case, as the unpacker prints it */
		json_array_append_new(actions, json_pack("{s:s}", "revoke", fp));
	}
	for (int i = 0; i < o->nadd; i++) {
		uint8_t der[512];
		size_t len;
		char pem[1024];
		if (sig_pubkey_load(o->add[i], der, &len, e) != CF_OK)
			return e->code;
		if (sig_pubkey_pem(der, len, pem, sizeof(pem)) != 0)
			return cf_fail(e, CF_USAGE, "--add %s: cannot write the key as PEM", o->add[i]);
		json_array_append_new(actions, json_pack("{s:s}", "add", pem));
	}
	if (o->threshold)
		json_array_append_new(actions, json_pack("{s:i}", "threshold", o->threshold));
	if (o->statement_threshold)
		json_array_append_new(actions, json_pack("{s:i}", "statement_threshold",
							 o->statement_threshold));
	if (json_array_size(actions) == 0)
		return cf_fail(e, CF_USAGE, "trust-statement needs an action: --revoke FP, --add K.pub, "
			       "--threshold N or --statement-threshold N");
	return CF_OK;
}

static int write_frame(const char *path, const struct frame *f, const struct frame_sig *extra,
		       struct cf_err *e)
{
	struct frame_sig sigs[FRAME_MAX_SIGS];
	size_t len;
	memcpy(sigs, f->sigs, f->nsigs * sizeof(*sigs));
	sigs[f->nsigs] = *extra;
	uint8_t *frame = frame_encode_tagged(FRAME_STATEMENT_TAG, f->header, f->header_len, sigs,
					     f->nsigs + 1, &len);
	int rc = io_write_file_atomic(path, frame, len, 0644) == 0
			 ? CF_OK : cf_fail(e, CF_INSTALL, "%s: cannot write", path);
	free(frame);
	if (rc == CF_OK) {
		char id[17];
		sig_short_id(extra->keyid, id);
		log_out("%s: trust statement, signature %u (key %s)\n", path, f->nsigs + 1, id);
	}
	return rc;
}

/* Sign f's JSON once more and write it out; --external alone prints the digest instead. */
static int sign_and_write(const char *path, struct frame *f, const struct sign_options *sign,
			  const char *again, struct cf_err *e)
{
	uint8_t digest[32];
	struct frame_sig sig;
	sha256_buf(f->header, f->header_len, digest);
	if (sign->external && !sign->signature_path) {
		sign_print_external_steps(digest, "of the trust statement", "trust-statement", again);
		return CF_OK;
	}
	int rc = sign_make(sign, digest, "trust statement", f->sigs, f->nsigs, &sig, e);
	return rc == CF_OK ? write_frame(path, f, &sig, e) : rc;
}

int statement_write(const struct statement_options *o, struct cf_err *e)
{
	int64_t now;
	char created[32], again[160];
	struct frame f = { 0 };
	json_t *actions = json_array();
	int rc = statement_time(&now, e);
	if (rc == CF_OK)
		rc = add_actions(o, actions, e);
	if (rc != CF_OK) {
		json_decref(actions);
		return rc;
	}
	manifest_format_time(now, created);
	uint64_t counter = o->has_counter ? o->counter : (uint64_t)now;
	json_t *body = json_pack("{s:s, s:I, s:s, s:o}", "format", FRAME_STATEMENT_FORMAT, "counter",
				 (json_int_t)counter, "created", created, "actions", actions);
	char *text = json_dumps(body, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(body);
	f.header = (uint8_t *)text;
	f.header_len = (uint32_t)strlen(text);
	snprintf(again, sizeof(again), "(the same actions) -o %s with SOURCE_DATE_EPOCH=%lld "
		 "--counter %llu", o->out, (long long)now, (unsigned long long)counter);
	rc = sign_and_write(o->out, &f, &o->sign, again, e);
	free(text);
	return rc;
}

int statement_cosign(const char *path, const struct sign_options *sign, struct cf_err *e)
{
	struct frame f;
	uint8_t digest[32], file_sha256[32];
	int rc = bundle_read_statement(path, &f, file_sha256, e);
	if (rc != CF_OK)
		return rc;
	/* Every signature already there must verify: a damaged statement is not signed again. */
	sha256_buf(f.header, f.header_len, digest);
	for (uint32_t i = 0; rc == CF_OK && i < f.nsigs; i++) {
		uint8_t id[32];
		sig_keyid(f.sigs[i].spki, f.sigs[i].spki_len, id);
		if (memcmp(id, f.sigs[i].keyid, 32) != 0 ||
		    sig_verify(f.sigs[i].spki, f.sigs[i].spki_len, digest, f.sigs[i].sig, 64) != SIG_VALID)
			rc = cf_fail(e, CF_TRUST, "%s: signature %u does not verify: the statement was "
				     "changed after signing", path, i + 1);
	}
	if (rc == CF_OK)
		rc = sign_and_write(path, &f, sign, path, e);
	frame_free(&f);
	return rc;
}
