/* test_trust.c - which keys are trusted (compiled in, the trust directory, --trust,
 * --trust-fingerprint), the threshold and its file, keys of the wrong owner or mode, and
 * signatures by unknown, repeated or lying signers (unpacker/target/trust.c, DESIGN.md §5) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"
#include "common/platform.h"
#include "common/sha256.h"
#include "signing/sign.h"
#include "signing/verify.h"
#include "common/bundle/write.h"
#include "manifests/manifest.h"
#include "unpacker/target/statement.h"
#include "unpacker/target/trust.h"

/* The keys "compiled in" (make TRUSTED_KEYS) are this test's: key A's PEM, filled in by the
 * setup, or whatever a test puts there. */
static char compiled_pem[1024];
const char *const trusted_keys_pem[] = { compiled_pem, NULL };
const unsigned trusted_threshold = 1;
/* make TRUSTED_STATEMENT_THRESHOLD=2: with two trusted keys it is also what the default rule
 * gives, so the statement tests below hold either way; test_statement_threshold tells them
 * apart. */
const unsigned trusted_statement_threshold = 2;

enum { KEY_A, KEY_B, KEY_C, NKEYS };

struct fixture {
	char dir[64];
	char *pub[NKEYS];
	char pem[NKEYS][1024];
	struct signer *signer[NKEYS];
	uint8_t keyid[NKEYS][32];
	char *root, *trust_dir;
	struct frame frame;
};

static const char header[] = "{\"bundle_id\":\"test\"}";

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct cf_err e = { 0 };
	snprintf(f->dir, sizeof(f->dir), "/tmp/cuferry-trust-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	assert_int_equal(chmod(f->dir, 0755), 0);
	for (int k = 0; k < NKEYS; k++) {
		char *name = xasprintf("%s/%c", f->dir, 'a' + k), *key = xasprintf("%s.key", name);
		char *text;
		size_t len;
		assert_int_equal(signer_keygen(name, f->keyid[k], &e), CF_OK);
		assert_int_equal(signer_load(key, &f->signer[k], &e), CF_OK);
		f->pub[k] = xasprintf("%s.pub", name);
		assert_int_equal(io_read_file(f->pub[k], sizeof(f->pem[k]) - 1, &text, &len), 0);
		memcpy(f->pem[k], text, len);
		free(text);
		free(name);
		free(key);
	}
	f->root = xasprintf("%s/root", f->dir);
	f->trust_dir = xasprintf("%s/etc/cuferry/trusted-keys", f->root);
	f->frame.header = (uint8_t *)header;
	f->frame.header_len = (uint32_t)strlen(header);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	for (int k = 0; k < NKEYS; k++) {
		signer_free(f->signer[k]);
		free(f->pub[k]);
	}
	io_rmtree(f->dir);
	free(f->root);
	free(f->trust_dir);
	free(f);
	return 0;
}

/* Each test starts with key A compiled in, no trust directory and no signature. */
static int reset(void **state)
{
	struct fixture *f = *state;
	snprintf(compiled_pem, sizeof(compiled_pem), "%s", f->pem[KEY_A]);
	io_rmtree(f->root);
	f->frame.nsigs = 0;
	return 0;
}

static void sign_with(struct fixture *f, int k)
{
	struct frame_sig *s = &f->frame.sigs[f->frame.nsigs++];
	struct cf_err e = { 0 };
	uint8_t digest[32];
	size_t len;
	const uint8_t *spki = signer_spki(f->signer[k], &len);
	memset(s, 0, sizeof(*s));
	memcpy(s->spki, spki, len);
	s->spki_len = (uint16_t)len;
	sig_keyid(spki, len, s->keyid);
	sha256_buf(f->frame.header, f->frame.header_len, digest);
	assert_int_equal(signer_sign(f->signer[k], digest, s->sig, &e), CF_OK);
}

static int load(struct fixture *f, const char *const *files, size_t nfiles,
		const char *const *fingerprints, size_t nfingerprints, struct trust *t,
		struct cf_err *e)
{
	/* --trust as the unpacker gives it: each file read once, up front (trust_key_file_read) */
	static struct trust_key keys[8];
	struct trust_sources src = { f->root, keys, nfiles, fingerprints, nfingerprints };
	cf_err_clear(e);
	for (size_t i = 0; i < nfiles; i++)
		if (trust_key_file_read(files[i], "--trust", &keys[i], e) != CF_OK)
			return e->code;
	return trust_load(t, &src, e);
}

static int check(const struct trust *t, struct fixture *f, char *signers, struct cf_err *e)
{
	cf_err_clear(e);
	return trust_check(t, &f->frame, signers, 256, e);
}

/* The trust directory with the given keys (0644, root's: admin-owned when run as root). */
static void make_trust_dir(struct fixture *f, const int *keys, size_t n, const char *threshold)
{
	assert_int_equal(io_mkdirs(f->trust_dir, 0755), 0);
	for (size_t i = 0; i < n; i++) {
		char *path = xasprintf("%s/%c.pub", f->trust_dir, 'a' + keys[i]);
		assert_int_equal(io_write_file_atomic(path, f->pem[keys[i]], strlen(f->pem[keys[i]]),
						      0644), 0);
		assert_int_equal(chmod(path, 0644), 0);
		free(path);
	}
	if (threshold) {
		char *path = xasprintf("%s/threshold", f->trust_dir);
		assert_int_equal(io_write_file_atomic(path, threshold, strlen(threshold), 0644), 0);
		assert_int_equal(chmod(path, 0644), 0);
		free(path);
	}
	assert_int_equal(chmod(f->trust_dir, 0755), 0);
}

static void skip_unless_root(void)
{
	if (geteuid() != 0)
		skip(); /* the trust directory counts only when root owns it */
}

static void test_compiled_in_key(void **state)
{
	struct fixture *f = *state;
	struct trust t;
	struct cf_err e;
	char signers[256], want[17];
	assert_int_equal(load(f, NULL, 0, NULL, 0, &t, &e), CF_OK);
	assert_int_equal(t.nkeys, 1);
	assert_int_equal(t.threshold, 1);
	assert_string_equal(t.keys[0].origin, "compiled in");
	assert_memory_equal(t.keys[0].keyid, f->keyid[KEY_A], 32);
	sign_with(f, KEY_A);
	assert_int_equal(check(&t, f, signers, &e), CF_OK);
	sig_short_id(f->keyid[KEY_A], want);
	assert_string_equal(signers, want);
}

static void test_unusable_compiled_in_key(void **state)
{
	struct fixture *f = *state;
	struct trust t;
	struct cf_err e;
	snprintf(compiled_pem, sizeof(compiled_pem), "-----BEGIN PUBLIC KEY-----\nAAAA\n"
		 "-----END PUBLIC KEY-----\n");
	assert_int_equal(load(f, NULL, 0, NULL, 0, &t, &e), CF_TRUST);
	assert_non_null(strstr(e.msg, "compiled-in key 1 is unusable"));
}

static void test_unknown_signer(void **state)
{
	struct fixture *f = *state;
	struct trust t;
	struct cf_err e;
	char signers[256], short_c[17];
	assert_int_equal(load(f, NULL, 0, NULL, 0, &t, &e), CF_OK);
	sign_with(f, KEY_C);
	assert_int_equal(check(&t, f, signers, &e), CF_TRUST);
	sig_short_id(f->keyid[KEY_C], short_c);
	assert_non_null(strstr(e.msg, "no valid signature by a trusted key"));
	assert_non_null(strstr(e.msg, short_c));
	assert_string_equal(signers, "");
	/* an unknown signer beside a trusted one: the trusted one suffices for T = 1 */
	sign_with(f, KEY_A);
	assert_int_equal(check(&t, f, signers, &e), CF_OK);
}

static void test_no_key_configured(void **state)
{
	struct fixture *f = *state;
	struct trust t;
	struct cf_err e = { 0 };
	char signers[256];
	memset(&t, 0, sizeof(t));
	t.threshold = 1;
	sign_with(f, KEY_A);
	assert_int_equal(check(&t, f, signers, &e), CF_TRUST);
	assert_non_null(strstr(e.msg, "no trusted key is configured"));
}

static void test_trust_file(void **state)
{
	struct fixture *f = *state;
	struct trust t;
	struct cf_err e;
	char signers[256], origin[160];
	const char *files[] = { f->pub[KEY_B], f->pub[KEY_A] };
	assert_int_equal(load(f, files, 2, NULL, 0, &t, &e), CF_OK);
	assert_int_equal(t.nkeys, 2); /* A compiled in and given again counts once */
	snprintf(origin, sizeof(origin), "--trust %s", f->pub[KEY_B]);
	assert_string_equal(t.keys[1].origin, origin);
	sign_with(f, KEY_B);
	assert_int_equal(check(&t, f, signers, &e), CF_OK);

	const char *missing[] = { "/nonexistent/k.pub" };
	assert_int_equal(load(f, missing, 1, NULL, 0, &t, &e), CF_TRUST);
	assert_non_null(strstr(e.msg, "/nonexistent/k.pub"));
	const char *not_regular[] = { f->dir };
	assert_int_equal(load(f, not_regular, 1, NULL, 0, &t, &e), CF_TRUST);
	assert_non_null(strstr(e.msg, "not a regular file"));
	const char *fifo_path = xasprintf("%s/fifo.pub", f->dir);
	assert_int_equal(mkfifo(fifo_path, 0600), 0);
	const char *fifo[] = { fifo_path };
	assert_int_equal(load(f, fifo, 1, NULL, 0, &t, &e), CF_TRUST); /* never blocks */
	assert_non_null(strstr(e.msg, "not a regular file"));
	unlink(fifo_path);
	free((char *)fifo_path);
	const char *not_a_key[] = { f->dir, NULL };
	char *junk = xasprintf("%s/junk.pub", f->dir);
	assert_int_equal(io_write_file_atomic(junk, "not a key\n", 10, 0644), 0);
	not_a_key[0] = junk;
	assert_int_equal(load(f, not_a_key, 1, NULL, 0, &t, &e), CF_TRUST);
	free(junk);
}

static void test_fingerprint(void **state)
{
	struct fixture *f = *state;
	struct trust t;
	struct cf_err e;
	char signers[256], hex[65];
	hex_encode(f->keyid[KEY_C], 32, hex);
	const char *fingerprints[] = { hex };
	assert_int_equal(load(f, NULL, 0, fingerprints, 1, &t, &e), CF_OK);
	assert_int_equal(t.nfingerprints, 1);
	sign_with(f, KEY_C);
	assert_int_equal(check(&t, f, signers, &e), CF_OK);
	/* all 64 digits or a usage error */
	hex[63] = '\0';
	assert_int_equal(load(f, NULL, 0, fingerprints, 1, &t, &e), CF_USAGE);
	assert_non_null(strstr(e.msg, "64 hex digits"));
	snprintf(hex, sizeof(hex), "%064d", 0);
	hex[10] = 'g';
	assert_int_equal(load(f, NULL, 0, fingerprints, 1, &t, &e), CF_USAGE);
}

/* A signature whose key id is not the hash of its key is not counted, even when the id it
 * claims is a trusted key's. */
static void test_lying_key_id(void **state)
{
	struct fixture *f = *state;
	struct trust t;
	struct cf_err e;
	char signers[256];
	assert_int_equal(load(f, NULL, 0, NULL, 0, &t, &e), CF_OK);
	sign_with(f, KEY_C);
	memcpy(f->frame.sigs[0].keyid, f->keyid[KEY_A], 32);
	assert_int_equal(check(&t, f, signers, &e), CF_TRUST);
	/* A's key with a signature that does not verify: not counted either */
	f->frame.nsigs = 0;
	sign_with(f, KEY_A);
	f->frame.sigs[0].sig[5] ^= 1;
	assert_int_equal(check(&t, f, signers, &e), CF_TRUST);
}

static void test_threshold_from_trust_dir(void **state)
{
	struct fixture *f = *state;
	struct trust t;
	struct cf_err e;
	char signers[256];
	skip_unless_root();
	const int keys[] = { KEY_B };
	make_trust_dir(f, keys, 1, "2\n");
	assert_int_equal(load(f, NULL, 0, NULL, 0, &t, &e), CF_OK);
	assert_int_equal(t.threshold, 2);
	assert_int_equal(t.nkeys, 2);
	sign_with(f, KEY_A);
	assert_int_equal(check(&t, f, signers, &e), CF_TRUST);
	assert_string_equal(e.msg, "1 distinct trusted signatures, 2 required");
	/* the same key twice is one signature */
	sign_with(f, KEY_A);
	assert_int_equal(check(&t, f, signers, &e), CF_TRUST);
	/* an untrusted second signer does not count */
	sign_with(f, KEY_C);
	assert_int_equal(check(&t, f, signers, &e), CF_TRUST);
	sign_with(f, KEY_B);
	assert_int_equal(check(&t, f, signers, &e), CF_OK);
	assert_non_null(strchr(signers, ','));
}

static void test_threshold_file_rejected(void **state)
{
	struct fixture *f = *state;
	struct trust t;
	struct cf_err e;
	static const char *const bad[] = { "0\n", "9\n", "12\n", "2 \n", "two\n", "", "1\n\n",
					   "2\r\n" };
	skip_unless_root();
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		io_rmtree(f->root);
		make_trust_dir(f, NULL, 0, bad[i]);
		assert_int_equal(load(f, NULL, 0, NULL, 0, &t, &e), CF_TRUST);
	}
	/* "1" may not lower a higher compiled-in threshold: here it equals it */
	io_rmtree(f->root);
	make_trust_dir(f, NULL, 0, "1");
	assert_int_equal(load(f, NULL, 0, NULL, 0, &t, &e), CF_OK);
	assert_int_equal(t.threshold, 1);
	/* a link, a file writable by others, or a threshold in an unsafe directory */
	char *threshold = xasprintf("%s/threshold", f->trust_dir);
	char *elsewhere = xasprintf("%s/elsewhere", f->dir);
	assert_int_equal(io_write_file_atomic(elsewhere, "2\n", 2, 0644), 0);
	unlink(threshold);
	assert_int_equal(symlink(elsewhere, threshold), 0);
	assert_int_equal(load(f, NULL, 0, NULL, 0, &t, &e), CF_TRUST);
	assert_non_null(strstr(e.msg, "not a regular file"));
	unlink(threshold);
	assert_int_equal(io_write_file_atomic(threshold, "2\n", 2, 0644), 0);
	assert_int_equal(chmod(threshold, 0666), 0);
	assert_int_equal(load(f, NULL, 0, NULL, 0, &t, &e), CF_TRUST);
	assert_non_null(strstr(e.msg, "must be owned by root"));
	assert_int_equal(chmod(threshold, 0644), 0);
	assert_int_equal(chmod(f->trust_dir, 0777), 0);
	assert_int_equal(load(f, NULL, 0, NULL, 0, &t, &e), CF_TRUST);
	assert_non_null(strstr(e.msg, "holds a threshold"));
	free(threshold);
	free(elsewhere);
}

/* A key someone other than root could have put there, or changed, is not trusted. */
static void test_trust_dir_key_owner_and_mode(void **state)
{
	struct fixture *f = *state;
	struct trust t;
	struct cf_err e;
	char signers[256];
	skip_unless_root();
	const int keys[] = { KEY_B, KEY_C };
	make_trust_dir(f, keys, 2, NULL);
	char *b = xasprintf("%s/b.pub", f->trust_dir), *c = xasprintf("%s/c.pub", f->trust_dir);
	assert_int_equal(load(f, NULL, 0, NULL, 0, &t, &e), CF_OK);
	assert_int_equal(t.nkeys, 3);
	assert_int_equal(strncmp(t.keys[1].origin, f->trust_dir, strlen(f->trust_dir)), 0);

	assert_int_equal(chmod(b, 0664), 0);        /* writable by the group */
	assert_int_equal(chown(c, 65534, 65534), 0); /* not root's */
	assert_int_equal(load(f, NULL, 0, NULL, 0, &t, &e), CF_OK);
	assert_int_equal(t.nkeys, 1);
	sign_with(f, KEY_B);
	sign_with(f, KEY_C);
	assert_int_equal(check(&t, f, signers, &e), CF_TRUST);

	/* a directory writable by others: none of its keys counts */
	assert_int_equal(chmod(b, 0644), 0);
	assert_int_equal(chown(c, 0, 0), 0);
	assert_int_equal(chmod(f->trust_dir, 0757), 0);
	assert_int_equal(load(f, NULL, 0, NULL, 0, &t, &e), CF_OK);
	assert_int_equal(t.nkeys, 1);
	assert_int_equal(check(&t, f, signers, &e), CF_TRUST);
	/* made safe again, both count */
	assert_int_equal(chmod(f->trust_dir, 0755), 0);
	assert_int_equal(load(f, NULL, 0, NULL, 0, &t, &e), CF_OK);
	assert_int_equal(t.nkeys, 3);
	assert_int_equal(check(&t, f, signers, &e), CF_OK);
	free(b);
	free(c);
}


/* A PEM as a JSON string: newlines escaped. */
static char *json_escape_pem(const char *pem)
{
	char *out = xmalloc(strlen(pem) * 2 + 1), *o = out;
	for (const char *p = pem; *p; p++) {
		if (*p == '\n')
			*o++ = '\\', *o++ = 'n';
		else
			*o++ = *p;
	}
	*o = '\0';
	return out;
}

/* A file of the trust directory with text, root's, 0644. */
static void put_trust_file(struct fixture *f, const char *name, const char *text)
{
	char *path = xasprintf("%s/%s", f->trust_dir, name);
	assert_int_equal(io_mkdirs(f->trust_dir, 0755), 0);
	assert_int_equal(io_write_file_atomic(path, text, strlen(text), 0644), 0);
	assert_int_equal(chmod(path, 0644), 0);
	free(path);
}

static char *fingerprint_line(struct fixture *f, int k)
{
	char fp[65];
	sig_fingerprint(f->keyid[k], fp);
	return xasprintf("%s\n", fp);
}

/* A revoked key counts nowhere: compiled in, in the directory, --trust-fingerprint. */
static void test_revoked_key(void **state)
{
	struct fixture *f = *state;
	struct trust t;
	struct cf_err e;
	char signers[256], fp[65];
	int keys[] = { KEY_B };
	skip_unless_root();
	make_trust_dir(f, keys, 1, NULL);
	char *a = fingerprint_line(f, KEY_A), *c = fingerprint_line(f, KEY_C);
	char *lines = xasprintf("%s%s", c, a); /* two lines, each with its newline */
	put_trust_file(f, "revoked", lines);
	free(a);
	free(c);
	free(lines);
	sig_fingerprint(f->keyid[KEY_A], fp);
	const char *fps[] = { fp };
	assert_int_equal(load(f, NULL, 0, fps, 1, &t, &e), CF_OK);
	assert_int_equal(t.nrevoked, 2);
	assert_int_equal(t.nkeys, 1); /* A compiled in, dropped; B kept */
	assert_memory_equal(t.keys[0].keyid, f->keyid[KEY_B], 32);
	sign_with(f, KEY_A);
	assert_int_equal(check(&t, f, signers, &e), CF_TRUST);
	assert_non_null(strstr(e.msg, "signed by a revoked key"));
	sign_with(f, KEY_B);
	assert_int_equal(check(&t, f, signers, &e), CF_OK);
	assert_null(strstr(signers, ",")); /* B only */
}

static void skip_unless_root(void);

static void test_revoked_file_rejected(void **state)
{
	struct fixture *f = *state;
	struct trust t;
	struct cf_err e;
	skip_unless_root();
	put_trust_file(f, "revoked", "not-a-fingerprint\n");
	assert_int_equal(load(f, NULL, 0, NULL, 0, &t, &e), CF_TRUST);
	assert_non_null(strstr(e.msg, "cannot be trusted"));
	put_trust_file(f, "revoked", "");
	assert_int_equal(load(f, NULL, 0, NULL, 0, &t, &e), CF_OK);
	/* revocations in a directory others may write: refused, not ignored */
	char *line = fingerprint_line(f, KEY_A);
	put_trust_file(f, "revoked", line);
	free(line);
	assert_int_equal(chmod(f->trust_dir, 0777), 0);
	assert_int_equal(load(f, NULL, 0, NULL, 0, &t, &e), CF_TRUST);
	assert_non_null(strstr(e.msg, "revocations"));
}

static void test_statement_threshold(void **state)
{
	struct fixture *f = *state;
	struct trust t;
	struct cf_err e;
	skip_unless_root();
	int two[] = { KEY_B };
	make_trust_dir(f, two, 1, NULL);
	assert_int_equal(load(f, NULL, 0, NULL, 0, &t, &e), CF_OK);
	/* the compiled-in value (make TRUSTED_STATEMENT_THRESHOLD=2) stands in for the default
	 * rule: with four keys and T = 2 the rule would say 3 */
	assert_int_equal(trust_compiled_statement_threshold(), 2);
	assert_int_equal(t.statement_threshold, 2);
	t.nkeys = 4;
	t.threshold = 2;
	assert_int_equal(trust_statement_threshold(&t), 2);
	t.threshold = 3;
	assert_int_equal(trust_statement_threshold(&t), 3); /* never fewer than T */
	/* a build without one, and no file: the default rule */
	t.statement_threshold = 0;
	t.nkeys = 3;
	t.threshold = 1;
	assert_int_equal(trust_statement_threshold(&t), 3); /* every key when at most three */
	t.nkeys = 4;
	t.threshold = 2;
	assert_int_equal(trust_statement_threshold(&t), 3); /* else T + 1 */
	/* the trust directory's file may raise the compiled-in value, never lower it */
	put_trust_file(f, "statement-threshold", "1\n");
	assert_int_equal(load(f, NULL, 0, NULL, 0, &t, &e), CF_OK);
	assert_int_equal(trust_statement_threshold(&t), 2);
	put_trust_file(f, "statement-threshold", "3\n");
	assert_int_equal(load(f, NULL, 0, NULL, 0, &t, &e), CF_OK);
	assert_int_equal(trust_statement_threshold(&t), 3);
	put_trust_file(f, "statement-threshold", "9\n");
	assert_int_equal(load(f, NULL, 0, NULL, 0, &t, &e), CF_TRUST);
	put_trust_file(f, "statement-threshold", "1\n");
	put_trust_file(f, "statement-counter", "12\n"); /* no SHA-256 */
	assert_int_equal(load(f, NULL, 0, NULL, 0, &t, &e), CF_TRUST);
}

/* A statement file with body, signed by the keys given. */
static char *write_statement(struct fixture *f, const char *name, const char *body,
			     const int *keys, size_t n)
{
	struct frame_sig sigs[FRAME_MAX_SIGS];
	struct cf_err e = { 0 };
	uint8_t digest[32];
	size_t len;
	sha256_buf(body, strlen(body), digest);
	for (size_t i = 0; i < n; i++) {
		const uint8_t *spki = signer_spki(f->signer[keys[i]], &len);
		memset(&sigs[i], 0, sizeof(sigs[i]));
		memcpy(sigs[i].spki, spki, len);
		sigs[i].spki_len = (uint16_t)len;
		sig_keyid(spki, len, sigs[i].keyid);
		assert_int_equal(signer_sign(f->signer[keys[i]], digest, sigs[i].sig, &e), CF_OK);
	}
	uint8_t *frame = frame_encode_tagged(FRAME_STATEMENT_TAG, (const uint8_t *)body,
					     (uint32_t)strlen(body), sigs, (uint32_t)n, &len);
	char *path = xasprintf("%s/%s", f->dir, name);
	assert_int_equal(io_write_file_atomic(path, frame, len, 0644), 0);
	free(frame);
	return path;
}

static char *statement_body(uint64_t counter, const char *created, const char *actions)
{
	return xasprintf("{\"format\":\"" FRAME_STATEMENT_FORMAT "\",\"counter\":%llu,"
			 "\"created\":\"%s\",\"actions\":[%s]}", (unsigned long long)counter, created,
			 actions);
}

static int judge(struct fixture *f, const char *body, const int *keys, size_t n,
		 const struct trust *t, struct statement *s, struct cf_err *e)
{
	char *path = write_statement(f, "x.statement", body, keys, n);
	cf_err_clear(e);
	int rc = statement_read(path, t, s, e);
	free(path);
	return rc;
}

/* One leaked key must not take a site over (compiled-in A, B in the directory, T = 1). */
static void test_statement_rules(void **state)
{
	struct fixture *f = *state;
	struct trust t;
	struct statement s;
	struct cf_err e;
	char fa[65], fb[65], actions[512];
	skip_unless_root();
	int dir_keys[] = { KEY_B };
	make_trust_dir(f, dir_keys, 1, NULL);
	assert_int_equal(load(f, NULL, 0, NULL, 0, &t, &e), CF_OK);
	sig_fingerprint(f->keyid[KEY_A], fa);
	sig_fingerprint(f->keyid[KEY_B], fb);
	int a[] = { KEY_A }, ab[] = { KEY_A, KEY_B }, c[] = { KEY_C };
	/* a key can always revoke itself */
	snprintf(actions, sizeof(actions), "{\"revoke\":\"%s\"}", fa);
	char *body = statement_body(5, "2026-01-01T00:00:00Z", actions);
	assert_int_equal(judge(f, body, a, 1, &t, &s, &e), CF_OK);
	assert_int_equal(s.needed, 1);
	assert_int_equal(s.counter, 5);
	assert_int_equal(s.nactions, 1);
	assert_int_equal(s.actions[0].kind, STATEMENT_REVOKE);
	free(body);
	/* ...but not another key alone: the statement threshold (both keys) */
	snprintf(actions, sizeof(actions), "{\"revoke\":\"%s\"}", fb);
	body = statement_body(6, "2026-01-01T00:00:00Z", actions);
	assert_int_equal(judge(f, body, a, 1, &t, &s, &e), CF_TRUST);
	assert_non_null(strstr(e.msg, "need 2"));
	assert_int_equal(judge(f, body, ab, 2, &t, &s, &e), CF_OK);
	free(body);
	/* nor add itself a friend */
	char *pem = json_escape_pem(f->pem[KEY_C]);
	snprintf(actions, sizeof(actions), "{\"add\":\"%s\"}", pem);
	free(pem);
	body = statement_body(7, "2026-01-01T00:00:00Z", actions);
	assert_int_equal(judge(f, body, a, 1, &t, &s, &e), CF_TRUST);
	assert_int_equal(judge(f, body, ab, 2, &t, &s, &e), CF_OK);
	assert_int_equal(s.actions[0].kind, STATEMENT_ADD);
	assert_memory_equal(s.actions[0].keyid, f->keyid[KEY_C], 32);
	/* a key that is not trusted signs nothing here */
	assert_int_equal(judge(f, body, c, 1, &t, &s, &e), CF_TRUST);
	free(body);
	/* replay: a counter not above the last applied */
	t.statement_counter = 7;
	snprintf(actions, sizeof(actions), "{\"threshold\":1}");
	body = statement_body(6, "2026-01-01T00:00:00Z", actions);
	assert_int_equal(judge(f, body, ab, 2, &t, &s, &e), CF_POLICY);
	assert_non_null(strstr(e.msg, "replayed"));
	free(body);
	/* created far ahead of the clock; an unknown action; a revoked signer */
	char future[32];
	manifest_format_time(platform_time_now() + 3 * 86400, future);
	body = statement_body(8, future, actions);
	assert_int_equal(judge(f, body, ab, 2, &t, &s, &e), CF_POLICY);
	free(body);
	body = statement_body(8, "2026-01-01T00:00:00Z", "{\"trust_everyone\":true}");
	assert_int_equal(judge(f, body, ab, 2, &t, &s, &e), CF_INCOMPATIBLE);
	free(body);
	memcpy(t.revoked[t.nrevoked++], f->keyid[KEY_B], 32);
	body = statement_body(8, "2026-01-01T00:00:00Z", actions);
	assert_int_equal(judge(f, body, ab, 2, &t, &s, &e), CF_TRUST); /* A alone: needs 2 */
	free(body);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_compiled_in_key, reset),
		cmocka_unit_test_setup(test_unusable_compiled_in_key, reset),
		cmocka_unit_test_setup(test_unknown_signer, reset),
		cmocka_unit_test_setup(test_no_key_configured, reset),
		cmocka_unit_test_setup(test_trust_file, reset),
		cmocka_unit_test_setup(test_fingerprint, reset),
		cmocka_unit_test_setup(test_lying_key_id, reset),
		cmocka_unit_test_setup(test_threshold_from_trust_dir, reset),
		cmocka_unit_test_setup(test_threshold_file_rejected, reset),
		cmocka_unit_test_setup(test_trust_dir_key_owner_and_mode, reset),
		cmocka_unit_test_setup(test_revoked_key, reset),
		cmocka_unit_test_setup(test_revoked_file_rejected, reset),
		cmocka_unit_test_setup(test_statement_threshold, reset),
		cmocka_unit_test_setup(test_statement_rules, reset),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
