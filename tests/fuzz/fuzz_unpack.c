/* fuzz_unpack.c - a whole install from bytes the fuzzer chooses, past the signature: the
 * input is [u32 LE n][n bytes of manifest JSON][a tar]. The harness compresses the tar,
 * fills in the payload fields, signs with a test key and installs into a fresh root.
 * Oracle: the exit code is in DESIGN.md's table, nothing outside the root changes, and
 * nothing inside has a mode beyond 0755, a set-id bit, or a special file type. */
#include <dirent.h>
#include <ftw.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "common/bundle/frame.h"
#include "common/io.h"
#include "common/log.h"
#include "common/sha256.h"
#include "signing/sign.h"
#include "unpacker/cli/install.h"

static char dir[64];
static struct signer *signer;
static char *pub, *bundle, *root, *outside;

static void setup(void)
{
	struct cf_err e = { 0 };
	uint8_t id[32];
	snprintf(dir, sizeof(dir), "/tmp/cuferry-fuzz-XXXXXX");
	if (!mkdtemp(dir))
		abort();
	char *name = xasprintf("%s/k", dir), *key = xasprintf("%s/k.key", dir);
	if (signer_keygen(name, id, &e) || signer_load(key, &signer, &e))
		abort();
	pub = xasprintf("%s/k.pub", dir);
	bundle = xasprintf("%s/b.bundle", dir);
	root = xasprintf("%s/root", dir);
	outside = xasprintf("%s/outside", dir);
	mkdir(outside, 0755);
	char *target = xasprintf("%s/target", outside);
	io_write_file_atomic(target, "sentinel\n", 9, 0644);
	free(target);
	log_init("fuzz", -1);
	free(name);
	free(key);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	setup();
	return 0;
}

static int bad_mode(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)path, (void)type, (void)ftw;
	if (S_ISLNK(st->st_mode))
		return 0;
	if (!S_ISREG(st->st_mode) && !S_ISDIR(st->st_mode))
		return 1;
	return (st->st_mode & 07022) != 0;
}

static void check_outside(void)
{
	struct stat st;
	char *target = xasprintf("%s/target", outside), *text = NULL;
	size_t len;
	if (lstat(target, &st) || st.st_nlink != 1 || io_read_file(target, 64, &text, &len) ||
	    len != 9 || memcmp(text, "sentinel\n", 9))
		abort();
	DIR *d = opendir(outside);
	struct dirent *de;
	int n = 0;
	while ((de = readdir(d)) != NULL)
		n++;
	closedir(d);
	if (n != 3) /* ., .., target */
		abort();
	d = opendir(dir);
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && strcmp(de->d_name, "root") &&
		    strcmp(de->d_name, "outside") && strncmp(de->d_name, "b.bundle", 8) &&
		    strncmp(de->d_name, "k.", 2))
			abort(); /* something was written beside the root */
	closedir(d);
	free(target);
	free(text);
}

static char *header_for(const uint8_t *json, size_t jlen, const uint8_t *payload, size_t plen,
			size_t tarlen)
{
	json_t *m = json_loadb((const char *)json, jlen, JSON_REJECT_DUPLICATES, NULL);
	if (json_is_object(m)) {
		json_t *chunks = json_array();
		for (size_t off = 0; off < plen; off += 4096) {
			uint8_t d[32];
			char hex[65];
			sha256_buf(payload + off, plen - off < 4096 ? plen - off : 4096, d);
			hex_encode(d, 32, hex);
			json_array_append_new(chunks, json_string(hex));
		}
		json_object_set_new(m, "payload", json_pack("{s:I, s:I, s:i, s:o}", "compressed_size",
							     (json_int_t)plen, "uncompressed_size",
							     (json_int_t)tarlen, "chunk_size", 4096,
							     "chunk_sha256", chunks));
		char *out = json_dumps(m, JSON_COMPACT);
		json_decref(m);
		return out;
	}
	json_decref(m);
	char *raw = xmalloc(jlen + 1);
	memcpy(raw, json, jlen);
	raw[jlen] = '\0';
	return raw;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 4)
		return 0;
	size_t jlen = (data[0] | data[1] << 8 | data[2] << 16 | (size_t)data[3] << 24) % (size - 3);
	const uint8_t *json = data + 4, *tar = data + 4 + jlen;
	size_t tarlen = size - 4 - jlen;
	size_t cap = ZSTD_compressBound(tarlen);
	uint8_t *payload = xmalloc(cap ? cap : 1);
	size_t plen = ZSTD_compress(payload, cap, tar, tarlen, 1);
	if (ZSTD_isError(plen))
		abort();
	char *header = header_for(json, jlen, payload, plen, tarlen);
	struct frame_sig sig = { 0 };
	size_t spki_len, flen;
	const uint8_t *spki = signer_spki(signer, &spki_len);
	uint8_t digest[32];
	struct cf_err e = { 0 };
	sha256_buf(header, strlen(header), digest);
	memcpy(sig.spki, spki, spki_len);
	sig.spki_len = (uint16_t)spki_len;
	sig_keyid(spki, spki_len, sig.keyid);
	if (signer_sign(signer, digest, sig.sig, &e) != CF_OK)
		abort();
	uint8_t *frame = frame_encode((const uint8_t *)header, (uint32_t)strlen(header), &sig, 1, &flen);
	FILE *f = fopen(bundle, "wb");
	fwrite(frame, 1, flen, f);
	fwrite(payload, 1, plen, f);
	fclose(f);
	mkdir(root, 0755);
	const char *trust[] = { pub };
	struct install_options o = { .bundle = bundle, .root = root, .no_validate = 1, .gpu = -1,
				     .trust = { root, trust, 1, NULL, 0 } };
	struct install_result r;
	cf_err_clear(&e);
	int rc = install_bundle(&o, &r, &e);
	if (rc < 0 || rc > 10 || (rc && strchr(e.msg, '\n')))
		abort();
	if (nftw(root, bad_mode, 16, FTW_PHYS) != 0)
		abort();
	check_outside();
	io_rmtree(root);
	free(header);
	free(frame);
	free(payload);
	return 0;
}
