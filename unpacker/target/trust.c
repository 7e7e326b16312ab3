/* trust.c - trusted keys and the threshold check, before any byte of the manifest is parsed */
#include "unpacker/target/trust.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "common/sha256.h"
#include "signing/verify.h"
#include "common/fault.h"
#include "unpacker/target/layout.h"
#include "unpacker/target/safepath.h"

extern const char *const trusted_keys_pem[]; /* make TRUSTED_KEYS=a.pub,b.pub */
extern const unsigned trusted_threshold;     /* make TRUSTED_THRESHOLD=N */
extern const unsigned trusted_statement_threshold; /* make TRUSTED_STATEMENT_THRESHOLD=N; 0: none */

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
		struct cf_err why = { 0 }; /* the first failure wins: say which key before why */
		if (sig_pubkey_parse((const uint8_t *)trusted_keys_pem[i], strlen(trusted_keys_pem[i]),
				     der, &len, &why) != CF_OK)
			return cf_fail(e, CF_TRUST, "compiled-in key %zu is unusable: %s", i + 1, why.msg);
		add_key(t, der, len, "compiled in");
	}
	return CF_OK;
}

/* Owned by root (Administrators) and not writable by others. The tests' build alone, with
 * CUFERRY_FAULT=no-acl, lets it pass under Wine, which reads every file as the user's. */
static int admin_owned(const char *path)
{
	return install_fault_here("no-acl") ? 0 : platform_is_admin_owned(path);
}

static int has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);
	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* A file of the trust directory that is there but cannot be believed is a trust failure,
 * never a default (DESIGN.md §5): a link, not root's, writable by others, not a regular file,
 * or over max bytes. *text is NULL when the file is absent. */
static int read_trust_file(const char *path, size_t max, char **text, struct cf_err *e)
{
	struct platform_stat st;
	size_t len;
	*text = NULL;
	if (platform_lstat(path, &st) != 0)
		return errno == ENOENT ? CF_OK : cf_fail(e, CF_TRUST, "%s: %s", path, platform_strerror(errno));
	if (st.type != PLATFORM_TYPE_FILE)
		return cf_fail(e, CF_TRUST, "%s is not a regular file (a link?): it cannot be trusted",
			       path);
	if (admin_owned(path) != 0)
		return cf_fail(e, CF_TRUST, "%s must be owned by root and not writable by group or "
			       "others: it cannot be trusted", path);
	int r = io_read_file_nofollow(path, max, text, &len);
	if (r == -2)
		return cf_fail(e, CF_TRUST, "%s is longer than it may be: it cannot be trusted", path);
	if (r != 0)
		return cf_fail(e, CF_TRUST, "%s: %s", path, platform_strerror(errno));
	if (len > 0 && (*text)[len - 1] == '\n')
		(*text)[len - 1] = '\0';
	return CF_OK;
}

/* threshold, statement-threshold: one number from 1 to 8 (one trailing newline allowed). It
 * may raise what was compiled in, never lower it. */
static int read_threshold(unsigned *threshold, const char *path, struct cf_err *e)
{
	char *text;
	int rc = read_trust_file(path, 16, &text, e);
	if (rc != CF_OK || !text)
		return rc;
	int ok = strlen(text) == 1 && text[0] >= '1' && text[0] <= '8';
	unsigned v = ok ? (unsigned)(text[0] - '0') : 0;
	free(text);
	if (!ok)
		return cf_fail(e, CF_TRUST, "%s must hold one number from 1 to 8: the threshold cannot "
			       "be trusted", path);
	if (v > *threshold)
		*threshold = v;
	return CF_OK;
}

/* revoked: one 64-hex-digit fingerprint a line. */
static int read_revoked(struct trust *t, const char *path, struct cf_err *e)
{
	char *text;
	int rc = read_trust_file(path, TRUST_MAX_KEYS * 65 + 1, &text, e);
	for (char *line = text; rc == CF_OK && line && *line;) {
		size_t n = strcspn(line, "\n");
		int more = line[n] == '\n';
		line[n] = '\0';
		if (n != 64 || t->nrevoked == TRUST_MAX_KEYS ||
		    hex_decode(line, t->revoked[t->nrevoked], 32) != 0)
			rc = cf_fail(e, CF_TRUST, "%s: every line must be one fingerprint of 64 hex "
				     "digits: the revocations cannot be trusted", path);
		else
			t->nrevoked++;
		line += n + more;
	}
	free(text);
	return rc;
}

/* statement-counter: the counter, a space, the SHA-256 of the statement applied. */
static int read_counter(struct trust *t, const char *path, struct cf_err *e)
{
	char *text;
	int rc = read_trust_file(path, 96, &text, e);
	if (rc != CF_OK || !text)
		return rc;
	size_t digits = strspn(text, "0123456789");
	int ok = digits > 0 && digits <= 19 && text[digits] == ' ' && strlen(text + digits + 1) == 64 &&
		 hex_decode(text + digits + 1, t->statement_sha256, 32) == 0;
	t->statement_counter = ok ? strtoull(text, NULL, 10) : 0;
	free(text);
	return ok ? CF_OK : cf_fail(e, CF_TRUST, "%s must hold a counter and a SHA-256: the "
				    "statement counter cannot be trusted", path);
}

struct trust_dir {
	struct trust *t;
	const char *dir;
	struct cf_err *e;
};

/* One name in the trust directory: a .pub file is a key, when root's and not writable by
 * others. */
static int load_trust_entry(const char *name, void *ctx)
{
	struct trust_dir *d = ctx;
	int rc = CF_OK;
	if (!has_suffix(name, ".pub"))
		return CF_OK;
	char *path = xasprintf("%s/%s", d->dir, name);
	uint8_t der[512];
	size_t len;
	if (admin_owned(path) != 0)
		log_msg(LOG_WARN, "%s ignored: not owned by root or writable by others", path);
	else if (sig_pubkey_load(path, der, &len, d->e) == CF_OK)
		add_key(d->t, der, len, path);
	else
		rc = d->e->code;
	free(path);
	return rc;
}

/* The directory that holds the trust directory (/etc/cuferry, %ProgramData%\cuferry): whoever
 * may rename or remove entries there can take the trust directory away, and its threshold with
 * it, leaving fewer signatures required than the site asked for. Where it exists it must be
 * admin-guarded (others may at most add entries: %ProgramData% lets every user create one, so a
 * user could have made %ProgramData%\cuferry before any administrator did). */
static int check_trust_parent(const char *dir, struct cf_err *e)
{
	char *parent = xstrdup(dir);
	size_t n = strlen(parent);
	while (n && !platform_is_separator(parent[n - 1]))
		n--;
	parent[n ? n - 1 : 0] = '\0';
	struct platform_stat st;
	int rc = CF_OK;
	/* test build only (CUFERRY_FAULT=no-acl): Wine reads every file as the user's */
	if (parent[0] && platform_lstat(parent, &st) == 0 && !install_fault_here("no-acl") &&
	    (st.type != PLATFORM_TYPE_DIR || platform_is_admin_guarded(parent) != 0))
		rc = cf_fail(e, CF_TRUST, "%s is not a directory owned by root (Administrators) that only "
			     "they may change: the trust directory in it cannot be trusted, nor its absence "
			     "(chown root / chmod go-w it, or on Windows give it to Administrators)", parent);
	free(parent);
	return rc;
}

/* The trust directory counts only if an unprivileged user could not have put keys there. */
static int load_trust_dir(struct trust *t, const char *root, struct cf_err *e)
{
	char *dir = layout_trust_dir(root);
	char *threshold = xasprintf("%s/" TRUST_FILE_THRESHOLD, dir);
	int rc = check_trust_parent(dir, e);
	struct platform_stat st;
	if (rc != CF_OK) {
		free(dir);
		free(threshold);
		return rc;
	}
	if (platform_stat(dir, &st) != 0 || st.type != PLATFORM_TYPE_DIR ||
	    platform_access(dir, PLATFORM_CAN_READ) != 0) {
		free(dir);
		free(threshold);
		return CF_OK;
	}
	if (admin_owned(dir) != 0) {
		log_msg(LOG_WARN, "%s ignored: it must be owned by root and not writable by others", dir);
		/* Its keys are ignored; a threshold there still says this site wants more than one
		 * signature, a revocation that a key must not count: neither can be honoured from
		 * an unsafe directory, nor ignored: refuse. */
		char *revoked = xasprintf("%s/" TRUST_FILE_REVOKED, dir);
		if (platform_lstat(threshold, &st) == 0)
			rc = cf_fail(e, CF_TRUST, "%s holds a threshold but is not owned by root or is "
				     "writable by others: the threshold cannot be trusted", dir);
		else if (platform_lstat(revoked, &st) == 0)
			rc = cf_fail(e, CF_TRUST, "%s holds revocations but is not owned by root or is "
				     "writable by others: they cannot be trusted", dir);
		free(revoked);
		free(dir);
		free(threshold);
		return rc;
	}
	rc = read_threshold(&t->threshold, threshold, e);
	char *path = xasprintf("%s/" TRUST_FILE_STATEMENT_THRESHOLD, dir);
	if (rc == CF_OK)
		rc = read_threshold(&t->statement_threshold, path, e);
	free(path);
	path = xasprintf("%s/" TRUST_FILE_REVOKED, dir);
	if (rc == CF_OK)
		rc = read_revoked(t, path, e);
	free(path);
	path = xasprintf("%s/" TRUST_FILE_STATEMENT_COUNTER, dir);
	if (rc == CF_OK)
		rc = read_counter(t, path, e);
	free(path);
	struct trust_dir entries = { t, dir, e };
	if (rc == CF_OK && platform_dir_list(dir, load_trust_entry, &entries) > 0)
		rc = e->code;
	free(dir);
	free(threshold);
	return rc;
}

/* As root, the directories of a key named on the command line pass the prefix's rule
 * (DESIGN.md §6), and so do those of the file a link there names: whoever may rename entries
 * in them chooses which file the name is (a hard link to any root-owned file included). The
 * key's own directory is asked as the parent of an existing name, as sshd asks it: a sticky
 * root-owned /tmp passes, since there nobody else may rename or remove root's file.
 * safepath's reason, as a trust failure. */
static int key_dir_check(const char *path, const char *what, struct cf_err *e)
{
	if (platform_dir_separator() != '/' || !platform_is_admin())
		return CF_OK;
	struct cf_err why = { 0 };
	char *named = xasprintf("%s %s", what, path);
	int rc = safepath_check_existing_file(path, named, &why);
	free(named);
	return rc == CF_OK ? CF_OK : cf_fail(e, CF_TRUST, "%s", why.msg);
}

/* After the walk, the name is still the file opened: its last component a regular file, or
 * a link root owns, that leads to the same file. The directories the walk passed cannot
 * change any more (root's, and nobody else may rename in them), so a user who swapped a link
 * of theirs in for the open and their own file back for the walk is caught here: the one
 * left at the name is either their link (refused) or not the file opened. */
static int name_is_opened_file(const struct platform_stat *opened, const char *path,
			       const char *what, struct cf_err *e)
{
	struct platform_stat named, target;
	if (platform_lstat(path, &named) != 0)
		return cf_fail(e, CF_TRUST, "%s %s: %s", what, path, platform_strerror(errno));
	if (named.type == PLATFORM_TYPE_LINK && named.owner != 0)
		return cf_fail(e, CF_TRUST, "%s %s is a symbolic link owned by uid %lu, not root: its "
			       "owner chooses what it names", what, path, named.owner);
	if (named.type == PLATFORM_TYPE_LINK && platform_stat(path, &target) != 0)
		return cf_fail(e, CF_TRUST, "%s %s: %s", what, path, platform_strerror(errno));
	if (named.type != PLATFORM_TYPE_LINK)
		target = named;
	if (target.device != opened->device || target.inode != opened->inode)
		return cf_fail(e, CF_TRUST, "%s %s was replaced while it was read: not trusted (run "
			       "again when nobody else can change it)", what, path);
	return CF_OK;
}

/* A public key's file is small (PEM or DER SubjectPublicKeyInfo). */
#define KEY_FILE_MAX (64 * 1024)

/* The open file's own metadata decides, never the name's: what is checked is what is read. */
static int key_file_checked(int fd, const char *path, const char *what, struct cf_err *e)
{
	struct platform_stat st;
	if (platform_fstat(fd, &st) != 0 || st.type != PLATFORM_TYPE_FILE)
		return cf_fail(e, CF_TRUST, "%s %s is not a regular file (a FIFO or a device?)", what, path);
	/* The trust directory's rule for a key named on the command line too (issue 23 A9): as
	 * root, a key file another user owns or may write is that user's choice of key. */
	if (platform_dir_separator() == '/' && platform_is_admin() && st.owner != 0)
		return cf_fail(e, CF_TRUST, "%s %s is owned by uid %lu, not root: its owner chooses "
			       "what it holds (copy it somewhere only root can write)", what, path,
			       (unsigned long)st.owner);
	if (platform_dir_separator() == '/' && platform_is_admin() && (st.mode & 022))
		return cf_fail(e, CF_TRUST, "%s %s is writable by group or others: it cannot be trusted "
			       "(chmod go-w)", what, path);
	/* Another name for the same file may have been made by anyone where hard links are not
	 * protected (fs.protected_hardlinks=0): in a sticky /tmp, which the directory rule lets
	 * pass, that is a user's choice of which root-owned file the name is. */
	if (platform_dir_separator() == '/' && platform_is_admin() && st.links > 1)
		return cf_fail(e, CF_TRUST, "%s %s has %lu hard links: another name could have made it "
			       "this file (copy the key to a file of its own)", what, path, st.links);
	int rc = key_dir_check(path, what, e);
	if (rc == CF_OK && platform_dir_separator() == '/' && platform_is_admin())
		rc = name_is_opened_file(&st, path, what, e);
	return rc;
}

int trust_key_file_read(const char *path, const char *what, struct trust_key *k,
			struct cf_err *e)
{
	uint8_t *data = xmalloc(KEY_FILE_MAX + 1);
	ssize_t got = -1;
	struct cf_err why = { 0 };
	int fd = platform_open(path, PLATFORM_OPEN_READ | PLATFORM_OPEN_NONBLOCK, 0);
	/* Test seam: a test swaps the name between the open and the checks of its path. */
	int rc = fd >= 0 ? install_fault("trust-key-open", e)
			 : cf_fail(e, CF_TRUST, "%s %s: %s", what, path, platform_strerror(errno));
	if (rc == CF_OK)
		rc = key_file_checked(fd, path, what, e);
	/* Test seam: a test renames another key over the name here; the one read is still this. */
	if (rc == CF_OK)
		rc = install_fault("trust-key-opened", e);
	if (rc == CF_OK && (got = io_read_full(fd, data, KEY_FILE_MAX + 1)) < 0)
		rc = cf_fail(e, CF_TRUST, "%s %s: %s", what, path, platform_strerror(errno));
	else if (rc == CF_OK && got > KEY_FILE_MAX)
		rc = cf_fail(e, CF_TRUST, "%s %s is longer than a public key may be", what, path);
	if (fd >= 0)
		platform_close(fd);
	if (rc == CF_OK && sig_pubkey_parse(data, (size_t)got, k->spki, &k->spki_len, &why) != CF_OK)
		rc = cf_fail(e, CF_TRUST, "%s: %s", path, why.msg);
	free(data);
	if (rc != CF_OK)
		return rc;
	sig_keyid(k->spki, k->spki_len, k->keyid);
	snprintf(k->origin, sizeof(k->origin), "%s %s", what, path);
	return CF_OK;
}

int trust_is_revoked(const struct trust *t, const uint8_t keyid[32])
{
	for (size_t i = 0; i < t->nrevoked; i++)
		if (digest_equal(t->revoked[i], keyid, 32))
			return 1;
	return 0;
}

/* A revoked key leaves the list whichever place named it. */
static void drop_revoked(struct trust *t)
{
	size_t kept = 0;
	for (size_t i = 0; i < t->nkeys; i++)
		if (!trust_is_revoked(t, t->keys[i].keyid))
			t->keys[kept++] = t->keys[i];
	t->nkeys = kept;
}

int trust_load(struct trust *t, const struct trust_sources *src, struct cf_err *e)
{
	memset(t, 0, sizeof(*t));
	t->threshold = trusted_threshold; /* make TRUSTED_THRESHOLD=N; 1 when not given */
	/* the trust directory's file may raise it, never lower it (read_threshold) */
	t->statement_threshold = trusted_statement_threshold;
	int rc = load_compiled(t, e);
	if (rc == CF_OK)
		rc = load_trust_dir(t, src->root, e);
	for (size_t i = 0; rc == CF_OK && i < src->nkeys; i++)
		add_key(t, src->keys[i].spki, src->keys[i].spki_len, src->keys[i].origin);
	for (size_t i = 0; rc == CF_OK && i < src->nfingerprints && i < 16; i++) {
		if (hex_decode(src->fingerprints[i], t->fingerprints[t->nfingerprints], 32) != 0)
			return cf_fail(e, CF_USAGE, "--trust-fingerprint needs all 64 hex digits of a key's "
				       "fingerprint");
		t->nfingerprints++;
	}
	drop_revoked(t);
	return rc;
}

unsigned trust_compiled_threshold(void)
{
	return trusted_threshold;
}

unsigned trust_compiled_statement_threshold(void)
{
	return trusted_statement_threshold;
}

unsigned trust_statement_threshold(const struct trust *t)
{
	unsigned n = t->statement_threshold;
	if (n == 0)
		n = t->nkeys <= 3 ? (unsigned)t->nkeys : t->threshold + 1;
	return n < t->threshold ? t->threshold : n;
}

int trust_is_trusted(const struct trust *t, const uint8_t keyid[32])
{
	if (trust_is_revoked(t, keyid))
		return 0;
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

/* trust_accepted, and in *changed the number (from 1) of the first signature by a trusted key
 * that does not verify (0: none): the header's bytes changed, not the trust. A signature whose
 * key id is not its key's is never counted (trust_check_sigs refuses the frame for it). */
static unsigned accepted(const struct trust *t, const uint8_t digest[32],
			 const struct frame_sig *sigs, uint32_t nsigs, uint8_t ids[][32],
			 char *signers, size_t size, unsigned *changed)
{
	unsigned good = 0;
	*changed = 0;
	signers[0] = '\0';
	for (uint32_t i = 0; i < nsigs && i < FRAME_MAX_SIGS; i++) {
		const struct frame_sig *s = &sigs[i];
		uint8_t id[32];
		char short_id[17];
		/* The key id is recomputed, never believed: it must be the hash of the key given. */
		sig_keyid(s->spki, s->spki_len, id);
		if (!digest_equal(id, s->keyid, 32) || !trust_is_trusted(t, id))
			continue;
		int seen = 0;
		for (unsigned k = 0; k < good; k++)
			seen |= digest_equal(ids[k], id, 32);
		if (seen)
			continue;
		if (sig_verify(s->spki, s->spki_len, digest, s->sig, 64) != SIG_VALID) {
			*changed = *changed ? *changed : i + 1;
			continue;
		}
		memcpy(ids[good++], id, 32);
		sig_short_id(id, short_id);
		size_t used = strlen(signers);
		snprintf(signers + used, size - used, "%s%s", used ? ", " : "", short_id);
	}
	return good;
}

unsigned trust_accepted(const struct trust *t, const uint8_t digest[32],
			const struct frame_sig *sigs, uint32_t nsigs, uint8_t ids[][32],
			char *signers, size_t size)
{
	unsigned changed;
	return accepted(t, digest, sigs, nsigs, ids, signers, size, &changed);
}

/* The signer of sigs that is revoked here, if any: its own reason beats "not trusted". */
static const uint8_t *revoked_signer(const struct trust *t, const struct frame_sig *sigs,
				     uint32_t nsigs)
{
	for (uint32_t i = 0; i < nsigs; i++)
		if (trust_is_revoked(t, sigs[i].keyid))
			return sigs[i].keyid;
	return NULL;
}

int trust_check_sigs(const struct trust *t, const uint8_t digest[32],
		     const struct frame_sig *sigs, uint32_t nsigs, char *signers, size_t size,
		     struct cf_err *e)
{
	/* A key id that lies makes the whole frame malformed, whatever else verifies beside it
	 * (docs/SECURITY.md). */
	for (uint32_t i = 0; i < nsigs && i < FRAME_MAX_SIGS; i++) {
		uint8_t id[32];
		sig_keyid(sigs[i].spki, sigs[i].spki_len, id);
		if (!digest_equal(id, sigs[i].keyid, 32))
			return cf_fail(e, CF_TRUST, "signature %u: its key id does not match its key: the "
				       "frame is malformed", i + 1);
	}
	uint8_t counted[FRAME_MAX_SIGS][32];
	unsigned changed;
	unsigned good = accepted(t, digest, sigs, nsigs, counted, signers, size, &changed);
	if (good >= t->threshold && good > 0)
		return CF_OK;
	char first[17];
	const uint8_t *revoked = revoked_signer(t, sigs, nsigs);
	if (revoked) {
		sig_short_id(revoked, first);
		return cf_fail(e, CF_TRUST, "signed by a revoked key (%s): its signatures count "
			       "nowhere; %u valid trusted signatures, %u required", first, good,
			       t->threshold);
	}
	if (t->nkeys == 0 && t->nfingerprints == 0) {
		char *dir = layout_trust_dir("");
		cf_fail(e, CF_TRUST, "no trusted key is configured (compile one in, install one in %s "
			"with 'unpacker trust add KEY.pub', or pass --trust KEY.pub)", dir);
		free(dir);
		return e->code;
	}
	sig_short_id(sigs[changed ? changed - 1 : 0].keyid, first);
	if (changed && good == 0)
		return cf_fail(e, CF_TRUST, "signature %u by trusted key %s does not verify: the header "
			       "was changed after signing (or the signature damaged)", changed, first);
	if (good == 0)
		return cf_fail(e, CF_TRUST, "no valid signature by a trusted key (bundle signed by %s%s)",
			       first, nsigs > 1 ? " and others" : "");
	return cf_fail(e, CF_TRUST, "%u distinct trusted signatures, %u required", good, t->threshold);
}
