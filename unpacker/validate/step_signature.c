/* step_signature.c - step 1: the stored header's signatures, with the keys trusted here or
 * those recorded at install */
#include "unpacker/validate/step_signature.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/platform.h"
#include "common/sha256.h"
#include "unpacker/target/layout.h"

/* The fingerprints recorded at install (.cuferry/signers) join t as --trust-fingerprint would:
 * the stored header then verifies with the keys that verified it. Revoked ones stay out
 * (trust.c counts them nowhere). Returns how many were read. */
static size_t add_recorded(struct trust *t, const char *install_dir)
{
	char *path = xasprintf("%s%c%s", install_dir, platform_dir_separator(),
			       layout_install_signers_rel), *text = NULL;
	size_t len, n = 0;
	if (io_read_file_nofollow(path, FRAME_MAX_SIGS * 65 + 1, &text, &len) == 0)
		for (char *line = text; *line && t->nfingerprints < 16;) {
			size_t k = strcspn(line, "\n");
			int more = line[k] == '\n';
			line[k] = '\0';
			if (k == 64 && hex_decode(line, t->fingerprints[t->nfingerprints], 32) == 0)
				t->nfingerprints++, n++;
			line += k + more;
		}
	free(text);
	free(path);
	return n;
}


int step_signature_check(void *ctx, const struct frame *f, struct cf_err *out)
{
	struct stored_check *c = ctx;
	char signers[256] = "";
	struct cf_err e = { 0 };
	struct trust *t = xmalloc(sizeof(*t));
	const char *note = "trusted here";
	int rc = trust_load(t, c->trust, &e);
	int loaded = rc == CF_OK, configured = loaded && (t->nkeys || t->nfingerprints);
	size_t recorded_n = 0;
	if (configured || (loaded && (recorded_n = add_recorded(t, c->dir)) == 0))
		rc = trust_check(t, f, signers, sizeof(signers), &e); /* none at all: it says so */
	if (loaded && configured && rc != CF_OK)
		recorded_n = add_recorded(t, c->dir);
	if (recorded_n > 0) {
		struct cf_err recorded = { 0 };
		if (trust_check(t, f, signers, sizeof(signers), &recorded) == CF_OK) {
			rc = CF_OK;
			note = configured ? "recorded at install; that key is no longer trusted here"
					  : "recorded at install (no key is configured here)";
		} else if (!configured || strstr(recorded.msg, "revoked")) {
			rc = cf_fail(&e, CF_TRUST, "%s", recorded.msg);
		}
	}
	struct validate_signature *sig = c->sig;
	sig->failed = rc != CF_OK;
	if (rc == CF_OK)
		snprintf(sig->why, sizeof(sig->why), "the stored header is signed by %s, %s", signers,
			 note);
	else
		snprintf(sig->why, sizeof(sig->why), "%s: %s", layout_install_header_rel, e.msg);
	free(t);
	return rc == CF_OK ? CF_OK : cf_fail(out, CF_TRUST, "%s", sig->why);
}
