/* kitsign.c - signing a kit: detached DER signatures, the index's signature list, and the
 * unpackers' signed containers */
#include "bundler/kitsign.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/bundle/sfx.h"
#include "common/io.h"
#include "common/sha256.h"
#include "manifests/kitindex.h"
#include "signing/sign.h"

#define UNPACKER_MAX_BYTES (512u << 20)

int kitsign_load(struct kitsign *k, const char *const *paths, size_t n, struct cf_err *e)
{
	memset(k, 0, sizeof(*k));
	if (n > KITSIGN_MAX_KEYS)
		return cf_fail(e, CF_USAGE, "more than %d --key", KITSIGN_MAX_KEYS);
	for (size_t i = 0; i < n; i++) {
		int rc = signer_load(paths[i], &k->signers[i], e);
		if (rc != CF_OK)
			return rc;
		k->n++;
		size_t len;
		const uint8_t *spki = signer_spki(k->signers[i], &len);
		sig_keyid(spki, len, k->keyids[i]);
		for (size_t j = 0; j < i; j++)
			if (memcmp(k->keyids[i], k->keyids[j], 32) == 0)
				return cf_fail(e, CF_USAGE, "--key %s is given twice", paths[i]);
	}
	return CF_OK;
}

void kitsign_free(struct kitsign *k)
{
	for (size_t i = 0; i < k->n; i++)
		signer_free(k->signers[i]);
	memset(k, 0, sizeof(*k));
}

/* Every key's signature over digest, as a signature list (key id, SPKI, r || s). */
static int sign_all(const struct kitsign *k, const uint8_t digest[32], struct frame_sig *sigs,
		    struct cf_err *e)
{
	for (size_t i = 0; i < k->n; i++) {
		size_t len;
		const uint8_t *spki = signer_spki(k->signers[i], &len);
		memset(&sigs[i], 0, sizeof(sigs[i]));
		memcpy(sigs[i].keyid, k->keyids[i], 32);
		memcpy(sigs[i].spki, spki, len);
		sigs[i].spki_len = (uint16_t)len;
		int rc = signer_sign(k->signers[i], digest, sigs[i].sig, e);
		if (rc != CF_OK)
			return rc;
	}
	return CF_OK;
}

int kitsign_detached(const struct kitsign *k, size_t i, const void *data, size_t len,
		     uint8_t **der, size_t *der_len, struct cf_err *e)
{
	uint8_t digest[32], raw[SIG_RAW_LEN];
	sha256_buf(data, len, digest);
	int rc = signer_sign(k->signers[i], digest, raw, e);
	if (rc != CF_OK)
		return rc;
	*der = xmalloc(SIG_DER_MAX);
	if (sig_raw_to_der(raw, *der, der_len) != 0) {
		free(*der);
		*der = NULL;
		return cf_fail(e, CF_INSTALL, "cannot encode the signature as DER");
	}
	return CF_OK;
}

int kitsign_index(const struct kitsign *k, const void *index, size_t len, uint8_t **out,
		  size_t *out_len, struct cf_err *e)
{
	struct frame_sig sigs[KITSIGN_MAX_KEYS];
	uint8_t digest[32];
	kitindex_digest(index, len, digest);
	int rc = sign_all(k, digest, sigs, e);
	if (rc == CF_OK)
		*out = kitindex_sig_encode(sigs, (uint32_t)k->n, out_len);
	return rc;
}

/* The program's own bytes: a container's stub, or the whole file. */
static uint64_t stub_length(const uint8_t *data, size_t len)
{
	struct sfx_layout l;
	struct cf_err ignored = { 0 };
	if (len > SFX_TRAILER_LEN && sfx_trailer_tagged(data + len - SFX_TRAILER_LEN) == 0 &&
	    sfx_trailer_parse(data + len - SFX_TRAILER_LEN, len, &l, &ignored) == CF_OK &&
	    sfx_layout_is_container(&l))
		return l.stub_len;
	return len;
}

int kitsign_container(const struct kitsign *k, const char *path, uint8_t **out, size_t *out_len,
		      struct cf_err *e)
{
	char *data;
	size_t len;
	if (io_read_file(path, UNPACKER_MAX_BYTES, &data, &len) != 0)
		return cf_fail(e, CF_SOURCE, "%s: %s", path, strerror(errno));
	struct sfx_layout l = { stub_length((const uint8_t *)data, len), 0, 0 };
	uint8_t stub_sha[32], digest[32];
	struct frame_sig sigs[KITSIGN_MAX_KEYS];
	sha256_buf(data, (size_t)l.stub_len, stub_sha);
	sfx_container_digest(stub_sha, l.stub_len, digest);
	int rc = sign_all(k, digest, sigs, e);
	if (rc != CF_OK) {
		free(data);
		return rc;
	}
	size_t block_len;
	uint8_t *block = sfx_block_encode(sigs, (uint32_t)k->n, &block_len);
	l.block_len = block_len;
	*out_len = (size_t)l.stub_len + block_len + SFX_TRAILER_LEN;
	*out = xmalloc(*out_len);
	memcpy(*out, data, (size_t)l.stub_len);
	memcpy(*out + l.stub_len, block, block_len);
	sfx_trailer_encode(&l, *out + l.stub_len + block_len);
	free(block);
	free(data);
	return CF_OK;
}

int kitsign_compiled_keys(const char *path, uint8_t (*keyids)[32], size_t max)
{
	static const char begin[] = "-----BEGIN PUBLIC KEY-----", end[] = "-----END PUBLIC KEY-----";
	char *data;
	size_t len, n = 0;
	if (io_read_file(path, UNPACKER_MAX_BYTES, &data, &len) != 0)
		return -1;
	for (const char *p = data, *stop = data + len; n < max;) {
		const char *b = memmem(p, (size_t)(stop - p), begin, sizeof(begin) - 1);
		const char *t = b ? memmem(b, (size_t)(stop - b), end, sizeof(end) - 1) : NULL;
		if (!t)
			break;
		t += sizeof(end) - 1;
		uint8_t der[SIG_SPKI_MAX];
		size_t der_len;
		struct cf_err ignored = { 0 };
		if (sig_pubkey_parse((const uint8_t *)b, (size_t)(t - b), der, &der_len, &ignored) == CF_OK)
			sig_keyid(der, der_len, keyids[n++]);
		p = t;
	}
	free(data);
	return (int)n;
}
