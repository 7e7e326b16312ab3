/* trust.c - trusted keys and the threshold check, before any byte of the manifest is parsed */
#include "unpacker/trust.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "common/sha256.h"
#include "signing/verify.h"

extern const char *const trusted_keys_pem[]; /* make TRUSTED_KEYS=a.pub,b.pub */

static int add_key(struct trust *t, const uint8_t *der, size_t len, const char *origin)
{
	uint8_t id[32];
	sig_keyid(der, len, id);
	for (size_t i = 0; i < t->nkeys; i++)
		if (memcmp(t->keys[i].keyid, id, 32) == 0)
			return CF_OK; /* the same key from two places counts once */
	if (t->nkeys == TRUST_MAX_KEYS)
		return CF_OK;
	struct trust_key *k = &t->keys[t->nkeys++];
	memcpy(k->keyid, id, 32);
	memcpy(k->spki, der, len);
	k->spki_len = len;
	snprintf(k->origin, sizeof(k->origin), "%s", origin);
	return CF_OK;
}

static int load_compiled(struct trust *t, struct cf_err *e)
{
	for (size_t i = 0; trusted_keys_pem[i]; i++) {
		uint8_t der[512];
		size_t len;
		if (sig_pubkey_parse((const uint8_t *)trusted_keys_pem[i], strlen(trusted_keys_pem[i]),
				     der, &len, e) != CF_OK)
			return cf_fail(e, CF_TRUST, "compiled-in key %zu is unusable", i + 1);
		add_key(t, der, len, "compiled in");
	}
	return CF_OK;
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* The trust directory counts only if an unprivileged user could not have put keys there. */
static int load_trust_dir(struct trust *t, const char *root, struct cf_err *e)
{
	char *dir = xasprintf("%s/etc/cuferry/trusted-keys", root);
	DIR *d = opendir(dir);
	struct dirent *de;
	int rc = CF_OK;
	if (!d) {
		free(dir);
		return CF_OK;
	}
	if (platform_is_admin_owned(dir) != 0) {
		log_msg(LOG_WARN, "%s ignored: it must be owned by root and not writable by others", dir);
		closedir(d);
		free(dir);
		return CF_OK;
	}
	while ((de = readdir(d)) != NULL && rc == CF_OK) {
		char *path = xasprintf("%s/%s", dir, de->d_name);
		if (has_suffix(de->d_name, ".pub")) {
			uint8_t der[512];
			size_t len;
			if (platform_is_admin_owned(path) != 0)
				log_msg(LOG_WARN, "%s ignored: not owned by root or writable by others", path);
			else if (sig_pubkey_load(path, der, &len, e) == CF_OK)
				add_key(t, der, len, path);
			else
				rc = e->code;
		} else if (strcmp(de->d_name, "threshold") == 0 && platform_is_admin_owned(path) == 0) {
			char *text;
			if (io_read_file(path, 64, &text, NULL) == 0) {
				char *end;
				long v = strtol(text, &end, 10);
				while (*end == '\n' || *end == ' ')
					end++;
				if (*end || v < 1 || v > 8)
					rc = cf_fail(e, CF_TRUST, "%s: threshold must be 1 to 8", path);
				else
					t->threshold = (unsigned)v;
				free(text);
			}
		}
		free(path);
	}
	closedir(d);
	free(dir);
	return rc;
}

int trust_load(struct trust *t, const struct trust_sources *src, struct cf_err *e)
{
	memset(t, 0, sizeof(*t));
	t->threshold = 1;
	int rc = load_compiled(t, e);
	if (rc == CF_OK)
		rc = load_trust_dir(t, src->root, e);
	for (size_t i = 0; rc == CF_OK && i < src->nfiles; i++) {
		uint8_t der[512];
		size_t len;
		char origin[160];
		rc = sig_pubkey_load(src->files[i], der, &len, e);
		snprintf(origin, sizeof(origin), "--trust %s", src->files[i]);
		if (rc == CF_OK)
			add_key(t, der, len, origin);
	}
	for (size_t i = 0; rc == CF_OK && i < src->nfingerprints && i < 16; i++) {
		if (hex_decode(src->fingerprints[i], t->fingerprints[t->nfingerprints], 32) != 0)
			return cf_fail(e, CF_USAGE, "--trust-fingerprint needs all 64 hex digits of a key's "
				       "fingerprint");
		t->nfingerprints++;
	}
	return rc;
}

static int is_trusted(const struct trust *t, const uint8_t keyid[32])
{
	for (size_t i = 0; i < t->nkeys; i++)
		if (digest_equal(t->keys[i].keyid, keyid, 32))
			return 1;
	for (size_t i = 0; i < t->nfingerprints; i++)
		if (digest_equal(t->fingerprints[i], keyid, 32))
			return 1;
	return 0;
}

int trust_check(const struct trust *t, const struct frame *f, char *signers, size_t size,
		struct cf_err *e)
{
	uint8_t digest[32];
	sha256_buf(f->header, f->header_len, digest);
	return trust_check_sigs(t, digest, f->sigs, f->nsigs, signers, size, e);
}

int trust_check_sigs(const struct trust *t, const uint8_t digest[32],
		     const struct frame_sig *sigs, uint32_t nsigs, char *signers, size_t size,
		     struct cf_err *e)
{
	uint8_t counted[FRAME_MAX_SIGS][32];
	unsigned good = 0;
	signers[0] = '\0';
	if (t->nkeys == 0 && t->nfingerprints == 0)
		return cf_fail(e, CF_TRUST, "no trusted key is configured (compile one in, install one "
			       "in /etc/cuferry/trusted-keys, or pass --trust KEY.pub)");
	for (uint32_t i = 0; i < nsigs; i++) {
		const struct frame_sig *s = &sigs[i];
		uint8_t id[32];
		char short_id[17];
		/* The key id is recomputed, never believed: it must be the hash of the key given. */
		sig_keyid(s->spki, s->spki_len, id);
		if (!digest_equal(id, s->keyid, 32) || !is_trusted(t, id))
			continue; /* a frame whose key id lies about its key is malformed */
		int seen = 0;
		for (unsigned k = 0; k < good; k++)
			seen |= digest_equal(counted[k], id, 32);
		if (seen || sig_verify(s->spki, s->spki_len, digest, s->sig, 64) != SIG_VALID)
			continue;
		memcpy(counted[good++], id, 32);
		sig_short_id(id, short_id);
		size_t used = strlen(signers);
		snprintf(signers + used, size - used, "%s%s", used ? ", " : "", short_id);
	}
	if (good >= t->threshold)
		return CF_OK;
	char first[17];
	sig_short_id(sigs[0].keyid, first);
	if (good == 0)
		return cf_fail(e, CF_TRUST, "no valid signature by a trusted key (bundle signed by %s%s)",
			       first, nsigs > 1 ? " and others" : "");
	return cf_fail(e, CF_TRUST, "%u distinct trusted signatures, %u required", good, t->threshold);
}
