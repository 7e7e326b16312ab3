/* step_signature.c - step 1: the stored header's signatures, with the keys trusted here or,
 * for this host's own install, those recorded at install */
#include "unpacker/validate/step_signature.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/platform.h"
#include "common/sha256.h"
#include "signing/verify.h"
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

/* Whether the record may stand in for trust, and when not, why (into why). The record was
 * added so that an install stays valid after its key was rotated out of the trust directory;
 * it is only as good as whoever could write it. A --root image's record is the image's own
 * claim: anyone can build an image whose header they signed and whose record names their key,
 * so under --root it is never believed. The host's own install was written by root; as root,
 * its directory, .cuferry/ and the record must still be root's and not writable by group or
 * others (the prefix above them passed the same rule before validate read anything), so that
 * no user could have added a key. On Windows the record counts as before: Wine shows no ACL
 * to test a rule against (validate's prefix walk is Linux-only for the same reason). */
static int record_believed(const struct stored_check *c, char *why, size_t size)
{
	if (c->root && c->root[0]) {
		snprintf(why, size, "this --root image's own record of its signers (%s) is not trust: "
			 "only this host's trusted keys and --trust/--trust-fingerprint count",
			 layout_install_signers_rel);
		return 0;
	}
	if (platform_dir_separator() != '/' || !platform_is_admin())
		return 1;
	char *signers = xasprintf("%s/%s", c->dir, layout_install_signers_rel);
	char *meta = xstrdup(signers);
	*strrchr(meta, '/') = '\0';
	const char *paths[] = { c->dir, meta, signers };
	int ok = 1;
	for (size_t i = 0; ok && i < 3; i++) {
		struct platform_stat st;
		ok = platform_lstat(paths[i], &st) != 0 ||
		     (st.type != PLATFORM_TYPE_LINK && st.owner == 0 && !(st.mode & 022));
	}
	free(meta);
	free(signers);
	if (!ok)
		snprintf(why, size, "the install's record of its signers (%s) is not root's alone (a "
			 "link, another owner, or writable by group or others): not believed",
			 layout_install_signers_rel);
	return ok;
}

/* The short ids of the keys whose signatures the header carries, "a, b". */
static void carried_keys(const struct frame *f, char *out, size_t size)
{
	out[0] = '\0';
	for (uint32_t i = 0; i < f->nsigs && i < FRAME_MAX_SIGS; i++) {
		char id[17];
		size_t used = strlen(out);
		sig_short_id(f->sigs[i].keyid, id);
		snprintf(out + used, size - used, "%s%s", used ? ", " : "", id);
	}
}

int step_signature_check(void *ctx, const struct frame *f, struct cf_err *out)
{
	struct stored_check *c = ctx;
	char signers[256] = "", not_believed[256] = "";
	struct cf_err e = { 0 };
	struct trust *t = xmalloc(sizeof(*t));
	const char *note = "trusted here";
	int rc = trust_load(t, c->trust, &e);
	int loaded = rc == CF_OK, configured = loaded && (t->nkeys || t->nfingerprints);
	int believed = record_believed(c, not_believed, sizeof(not_believed));
	size_t recorded_n = 0;
	if (configured || !believed || (loaded && (recorded_n = add_recorded(t, c->dir)) == 0))
		rc = trust_check(t, f, signers, sizeof(signers), &e); /* none at all: it says so */
	if (loaded && configured && believed && rc != CF_OK)
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
	if (rc != CF_OK && loaded && !believed) {
		/* Say who signed it, and that the record naming that key was not taken as trust. */
		char keys[160], why[sizeof(e.msg)];
		carried_keys(f, keys, sizeof(keys));
		snprintf(why, sizeof(why), "%s", e.msg);
		cf_err_clear(&e);
		if (keys[0] && strstr(why, keys))
			cf_fail(&e, CF_TRUST, "%s; %s", why, not_believed);
		else
			cf_fail(&e, CF_TRUST, "%s; signed by %s; %s", why, keys[0] ? keys : "no key",
				not_believed);
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
