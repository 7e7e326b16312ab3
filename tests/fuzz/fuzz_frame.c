/* fuzz_frame.c - the signed frame: the bounded parser, every signature check, then the
 * manifest parser on what the frame carries. Input: the frame content after magic+length.
 * The same input is also read as a .run's stub-signature block and as a file whose last 32
 * bytes are its trailer (common/bundle/sfx.h), the other readers of unsigned bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/bundle/frame.h"
#include "common/bundle/write.h"
#include "common/bundle/sfx.h"
#include "common/sha256.h"
#include "manifests/manifest.h"
#include "signing/verify.h"

static void as_sfx(const uint8_t *data, size_t size)
{
	struct frame_sig sigs[FRAME_MAX_SIGS];
	struct sfx_layout l;
	uint32_t n;
	struct cf_err e = { 0 };
	if (sfx_block_parse(data, size, sigs, &n, &e) == CF_OK) {
		size_t len;
		uint8_t *again = sfx_block_encode(sigs, n, &len);
		if (n < 1 || n > FRAME_MAX_SIGS || len != size || memcmp(again, data, size) != 0)
			abort(); /* one encoding, nothing after the list */
		free(again);
	} else if (e.code != CF_TRUST) {
		abort();
	}
	cf_err_clear(&e);
	if (size >= SFX_TRAILER_LEN &&
	    sfx_trailer_parse(data + size - SFX_TRAILER_LEN, size, &l, &e) == CF_OK &&
	    (l.block_len == 0 || l.block_len > SFX_BLOCK_MAX ||
	     l.stub_len + l.bundle_len + l.block_len + SFX_TRAILER_LEN != size))
		abort(); /* an accepted trailer accounts for every byte */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct frame f;
	as_sfx(data, size);
	struct cf_err e = { 0 };
	if (frame_parse(data, size, &f, &e) != CF_OK) {
		if (e.code != CF_TRUST)
			abort(); /* every frame defect is a trust failure */
		return 0;
	}
	if (f.nsigs < 1 || f.nsigs > FRAME_MAX_SIGS || f.frame_len != size + 8)
		abort();
	uint8_t digest[32], id[32];
	sha256_buf(f.header, f.header_len, digest);
	for (uint32_t i = 0; i < f.nsigs; i++) {
		sig_keyid(f.sigs[i].spki, f.sigs[i].spki_len, id);
		int v = sig_verify(f.sigs[i].spki, f.sigs[i].spki_len, digest, f.sigs[i].sig, 64);
		if (v != SIG_VALID && v != SIG_INVALID && v != SIG_BAD_KEY)
			abort();
	}
	struct manifest *m = NULL;
	manifest_parse((const char *)f.header, f.header_len, &m, &e);
	manifest_free(m);
	/* re-encoding gives the same bytes: the frame format has one encoding */
	size_t len;
	uint8_t *again = frame_encode(f.header, f.header_len, f.sigs, f.nsigs, &len);
	if (len != size + 8 || memcmp(again + 8, data, size) != 0)
		abort();
	free(again);
	frame_free(&f);
	return 0;
}
