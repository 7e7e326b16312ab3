/* trustverbs.c - the trust directory changed by command, never by hand: every write is
 * atomic, root's, checked against the rules trust.c reads it by, and logged */
#include "unpacker/cli/trustverbs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bundle/format.h"
#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "common/sha256.h"
#include "manifests/manifest.h"
#include "signing/verify.h"
#include "unpacker/target/progname.h"
#include "unpacker/install/prefix.h"
#include "unpacker/target/kitcheck.h"
#include "unpacker/target/layout.h"
#include "unpacker/target/state.h"
#include "unpacker/target/statement.h"
#include "unpacker/target/trust.h"


#define CLOCK_SLACK_S 86400 /* as the install's clock rule: a day ahead is still believed */

static char *in_dir(const char *dir, const char *name)
{
	return xasprintf("%s%c%s", dir, platform_dir_separator(), name);
}

/* What this host trusts durably (compiled in, the trust directory): no --trust. */
static int load_durable(const char *root, struct trust *t, struct cf_err *e)
{
	struct trust_sources src = { root, NULL, 0, NULL, 0 };
	return trust_load(t, &src, e);
}

/* Before a change: an administrator, the trust directory made (root's, 0755) and readable
 * by trust.c's rules, what it trusts now in t. */
static int open_for_change(const char *root, struct trust *t, char **dir, struct cf_err *e)
{
	*dir = layout_trust_dir(root);
	if (!platform_is_admin())
		return cf_fail(e, CF_INSTALL, "changing what this host trusts needs root (an "
			       "Administrator): %s", *dir);
	if (io_mkdirs(*dir, 0755) != 0)
		return cf_fail(e, CF_INSTALL, "%s: %s", *dir, platform_strerror(errno));
	return load_durable(root, t, e);
}

static int write_file(const char *dir, const char *name, const char *text, struct cf_err *e)
{
	char *path = in_dir(dir, name);
	int rc = io_write_file_atomic(path, text, strlen(text), 0644) == 0
			 ? CF_OK : cf_fail(e, CF_INSTALL, "%s: %s", path, platform_strerror(errno));
	free(path);
	return rc;
}

static const struct trust_key *find_key(const struct trust *t, const uint8_t id[32])
{
	for (size_t i = 0; i < t->nkeys; i++)
		if (digest_equal(t->keys[i].keyid, id, 32))
			return &t->keys[i];
	return NULL;
}

/* A key into the trust directory as NAME-PREFIX<short id>.pub, PEM. */
static int write_key(const char *dir, const char *name_prefix, const uint8_t *spki, size_t len,
		     struct cf_err *e)
{
	char pem[1024], short_id[17], name[64];
	uint8_t id[32];
	sig_keyid(spki, len, id);
	sig_short_id(id, short_id);
	if (sig_pubkey_pem(spki, len, pem, sizeof(pem)) != 0)
		return cf_fail(e, CF_INSTALL, "cannot write the key %s as PEM", short_id);
	snprintf(name, sizeof(name), "%s%s.pub", name_prefix, short_id);
	return write_file(dir, name, pem, e);
}

struct key_files {
	const char *dir;
	uint8_t id[32];
	size_t removed;
	struct cf_err *e;
};

/* Remove every KEY.pub of the trust directory that holds the key id. */
static int remove_key_file(const char *name, void *ctx)
{
	struct key_files *k = ctx;
	size_t n = strlen(name);
	uint8_t der[512], id[32];
	size_t len;
	struct cf_err ignored = { 0 };
	if (n < 4 || strcmp(name + n - 4, ".pub") != 0)
		return 0;
	char *path = in_dir(k->dir, name);
	if (sig_pubkey_load(path, der, &len, &ignored) == CF_OK) {
		sig_keyid(der, len, id);
		if (digest_equal(id, k->id, 32)) {
			if (io_remove_file(path) != 0) {
				cf_fail(k->e, CF_INSTALL, "%s: %s", path, platform_strerror(errno));
				free(path);
				return 1;
			}
			log_msg(LOG_INFO, "trust: removed %s", path);
			k->removed++;
		}
	}
	free(path);
	return 0;
}

static int remove_key_files(const char *dir, const uint8_t id[32], size_t *removed,
			    struct cf_err *e)
{
	struct key_files k = { dir, { 0 }, 0, e };
	memcpy(k.id, id, 32);
	int r = platform_dir_list(dir, remove_key_file, &k);
	*removed = k.removed;
	if (r > 0)
		return e->code;
	return r < 0 ? cf_fail(e, CF_INSTALL, "%s: %s", dir, platform_strerror(errno)) : CF_OK;
}

static int parse_fingerprint(const char *text, uint8_t id[32], struct cf_err *e)
{
	if (!text || strlen(text) != 64 || hex_decode(text, id, 32) != 0)
		return cf_fail(e, CF_USAGE, "give the key's whole fingerprint, 64 hex digits ('%s "
			       "trust list' shows them)", progname());
	return CF_OK;
}

/* ---- list ---- */

static void print_since(const struct trust_key *k)
{
	struct platform_stat st;
	char when[32] = "-";
	if (strcmp(k->origin, "compiled in") != 0 && platform_stat(k->origin, &st) == 0)
		manifest_format_time(st.mtime, when);
	const char *name = k->origin, *source = "compiled in";
	for (const char *p = k->origin; *p; p++)
		if (platform_is_separator(*p))
			name = p + 1;
	if (strncmp(k->origin, "--trust", 7) == 0)
		source = "--trust";
	else if (strcmp(k->origin, "compiled in") != 0)
		source = strncmp(name, TRUST_STATEMENT_KEY_PREFIX, strlen(TRUST_STATEMENT_KEY_PREFIX)) == 0
				 ? "statement" : "file";
	char fp[65];
	sig_fingerprint(k->keyid, fp);
	log_out("%s  %-11s since %-20s %s\n", fp, source, when,
		strcmp(source, "compiled in") == 0 ? "" : k->origin);
}

int trustverbs_list(const char *root, struct cf_err *e)
{
	struct trust *t = xmalloc(sizeof(*t));
	int rc = load_durable(root, t, e);
	if (rc == CF_OK) {
		char *dir = layout_trust_dir(root);
		log_out("trust directory %s\n", dir);
		free(dir);
		if (t->nkeys == 0)
			log_out("no trusted key: add one with '%s trust add KEY.pub --fingerprint HEX'\n",
				progname());
		for (size_t i = 0; i < t->nkeys; i++)
			print_since(&t->keys[i]);
		for (size_t i = 0; i < t->nrevoked; i++) {
			char fp[65];
			sig_fingerprint(t->revoked[i], fp);
			log_out("%s  revoked     (its signatures count nowhere)\n", fp);
		}
		log_out("threshold %u (signatures a bundle needs)\n", t->threshold);
		log_out("statement threshold %u (%s)\n", trust_statement_threshold(t),
			!t->statement_threshold ? "default: every trusted key when at most three, else "
						  "threshold + 1"
			: t->statement_threshold == trust_compiled_statement_threshold() ? "compiled in"
			: "configured");
		if (t->statement_counter)
			log_out("last statement applied: counter %llu\n",
				(unsigned long long)t->statement_counter);
	}
	free(t);
	return rc;
}

/* ---- add, remove, thresholds ---- */

/* Add the key k (read once, from the file named shown) to the trust directory; with want
 * (trust add --fingerprint), only when it is that key's. */
static int add_key(const char *root, const struct trust_key *k, const char *shown,
		   const uint8_t *want, struct cf_err *e)
{
	struct trust *t = xmalloc(sizeof(*t));
	char fp[65], *dir = NULL;
	int rc = CF_OK;
	sig_fingerprint(k->keyid, fp);
	if (want && !digest_equal(k->keyid, want, 32))
		rc = cf_fail(e, CF_TRUST, "%s has fingerprint %s, not the one given: it is not the "
			     "key you were told to trust", shown, fp);
	if (rc == CF_OK)
		rc = open_for_change(root, t, &dir, e);
	if (rc == CF_OK && trust_is_revoked(t, k->keyid))
		rc = cf_fail(e, CF_TRUST, "%s was revoked here: a revoked key is never trusted again", fp);
	if (rc == CF_OK && find_key(t, k->keyid)) {
		log_out("%s is already trusted (%s): nothing to do\n", fp, find_key(t, k->keyid)->origin);
	} else if (rc == CF_OK) {
		rc = write_key(dir, "", k->spki, k->spki_len, e);
		if (rc == CF_OK) {
			log_msg(LOG_DEBUG, "trust: added %s from %s", fp, shown);
			log_out("trusted %s%s\n", fp, want ? " (its fingerprint matches)"
					: ": compare it with the fingerprint you were given");
		}
	}
	free(dir);
	free(t);
	return rc;
}

int trustverbs_add(const char *root, const char *path, const char *fingerprint, struct cf_err *e)
{
	struct trust_key *k = xmalloc(sizeof(*k));
	uint8_t want[32];
	int rc = fingerprint ? parse_fingerprint(fingerprint, want, e) : CF_OK;
	if (rc == CF_OK && !path)
		rc = cf_fail(e, CF_USAGE, "trust add needs KEY.pub");
	if (rc == CF_OK)
		rc = trust_key_file_read(path, "trust add", k, e);
	if (rc == CF_OK)
		rc = add_key(root, k, path, fingerprint ? want : NULL, e);
	free(k);
	return rc;
}

int trustverbs_remove(const char *root, const char *fingerprint, struct cf_err *e)
{
	struct trust *t = xmalloc(sizeof(*t));
	uint8_t id[32];
	char *dir = NULL;
	size_t removed = 0;
	int rc = parse_fingerprint(fingerprint, id, e);
	if (rc == CF_OK)
		rc = open_for_change(root, t, &dir, e);
	const struct trust_key *k = rc == CF_OK ? find_key(t, id) : NULL;
	if (rc == CF_OK && !k)
		rc = cf_fail(e, CF_USAGE, "%s is not trusted here (see '%s trust list')", fingerprint,
			     progname());
	else if (rc == CF_OK && strcmp(k->origin, "compiled in") == 0)
		rc = cf_fail(e, CF_USAGE, "%s is compiled into this unpacker: revoke it with a trust "
			     "statement, or carry an unpacker built without it", fingerprint);
	else if (rc == CF_OK && t->nkeys - 1 < t->threshold)
		rc = cf_fail(e, CF_USAGE, "removing %s would leave %zu trusted keys for a threshold "
			     "of %u: lower the threshold first", fingerprint, t->nkeys - 1, t->threshold);
	if (rc == CF_OK)
		rc = remove_key_files(dir, id, &removed, e);
	if (rc == CF_OK)
		log_out("%s is no longer trusted (%zu file%s removed)\n", fingerprint, removed,
			removed == 1 ? "" : "s");
	free(dir);
	free(t);
	return rc;
}

static int set_threshold(const char *root, const char *name, const char *value, struct cf_err *e)
{
	struct trust *t = xmalloc(sizeof(*t));
	char *dir = NULL, text[8];
	int statement = strcmp(name, TRUST_FILE_STATEMENT_THRESHOLD) == 0;
	int ok = value && strlen(value) == 1 && value[0] >= '1' && value[0] <= '8';
	int rc = ok ? open_for_change(root, t, &dir, e)
		    : cf_fail(e, CF_USAGE, "trust %s needs one number from 1 to 8", name);
	unsigned n = ok ? (unsigned)(value[0] - '0') : 0;
	unsigned compiled = statement ? trust_compiled_statement_threshold()
				      : trust_compiled_threshold();
	if (rc == CF_OK && n > t->nkeys)
		rc = cf_fail(e, CF_USAGE, "%s %u is more than the %zu keys trusted here: nothing could "
			     "be signed enough", name, n, t->nkeys);
	else if (rc == CF_OK && n < compiled)
		rc = cf_fail(e, CF_USAGE, "this unpacker was built with %s %u: the trust directory "
			     "may raise it, never lower it", statement ? "statement threshold"
			     : "threshold", compiled);
	if (rc == CF_OK) {
		snprintf(text, sizeof(text), "%u\n", n);
		rc = write_file(dir, name, text, e);
	}
	if (rc == CF_OK) {
		log_msg(LOG_DEBUG, "trust: %s set to %u", name, n);
		log_out("%s %u\n", statement ? "statement threshold" : "threshold", n);
	}
	free(dir);
	free(t);
	return rc;
}

/* ---- statements ---- */

static int add_revoked(const char *dir, const struct trust *t, const uint8_t id[32],
		       struct cf_err *e)
{
	size_t cap = (t->nrevoked + 1) * 65 + 1, used = 0;
	char *text = xmalloc(cap), fp[65];
	for (size_t i = 0; i < t->nrevoked; i++) {
		sig_fingerprint(t->revoked[i], fp);
		used += (size_t)snprintf(text + used, cap - used, "%s\n", fp);
	}
	sig_fingerprint(id, fp);
	snprintf(text + used, cap - used, "%s\n", fp);
	int rc = write_file(dir, TRUST_FILE_REVOKED, text, e);
	free(text);
	return rc;
}

static int apply_action(const char *dir, struct trust *t, const struct statement_action *a,
			struct cf_err *e)
{
	char fp[65], text[8];
	size_t removed;
	int rc = CF_OK;
	sig_fingerprint(a->keyid, fp);
	switch (a->kind) {
	case STATEMENT_REVOKE:
		if (!trust_is_revoked(t, a->keyid))
			rc = add_revoked(dir, t, a->keyid, e);
		if (rc == CF_OK && t->nrevoked < TRUST_MAX_KEYS)
			memcpy(t->revoked[t->nrevoked++], a->keyid, 32);
		if (rc == CF_OK)
			rc = remove_key_files(dir, a->keyid, &removed, e);
		if (rc == CF_OK)
			log_msg(LOG_INFO, "trust: revoked %s", fp);
		return rc;
	case STATEMENT_ADD:
		if (trust_is_revoked(t, a->keyid))
			return cf_fail(e, CF_TRUST, "the statement adds %s, which was revoked here: a "
				       "revoked key is never trusted again", fp);
		rc = find_key(t, a->keyid) ? CF_OK
		     : write_key(dir, TRUST_STATEMENT_KEY_PREFIX, a->spki, a->spki_len, e);
		if (rc == CF_OK)
			log_msg(LOG_INFO, "trust: added %s", fp);
		return rc;
	case STATEMENT_THRESHOLD:
	case STATEMENT_STATEMENT_THRESHOLD:
		snprintf(text, sizeof(text), "%u\n", a->number);
		rc = write_file(dir, a->kind == STATEMENT_THRESHOLD ? TRUST_FILE_THRESHOLD
				: TRUST_FILE_STATEMENT_THRESHOLD, text, e);
		if (rc == CF_OK)
			log_msg(LOG_INFO, "trust: %s set to %u", a->kind == STATEMENT_THRESHOLD
				? "threshold" : "statement threshold", a->number);
		return rc;
	}
	return CF_OK;
}

/* The statement at path, or (bytes not NULL) its bytes already read: a kit's, checked
 * against the kit's signed index. path names it in the messages either way. */
static int apply(const char *root, const char *path, const uint8_t *bytes, size_t len,
		 struct cf_err *e)
{
	struct trust *t = xmalloc(sizeof(*t));
	struct statement *s = xmalloc(sizeof(*s));
	char *dir = NULL, counter[96], sha[65];
	int rc = path ? open_for_change(root, t, &dir, e)
		      : cf_fail(e, CF_USAGE, "trust apply needs FILE (a trust statement)");
	if (rc == CF_OK)
		rc = bytes ? statement_parse(path, bytes, len, t, s, e) : statement_read(path, t, s, e);
	if (rc == CF_OK && s->already_applied) {
		log_out("%s (counter %llu) is already applied here: nothing to do\n", path,
			(unsigned long long)s->counter);
	} else if (rc == CF_OK) {
		log_msg(LOG_INFO, "trust: applying %s (counter %llu, created %s, signed by %s)", path,
			(unsigned long long)s->counter, s->created, s->signers);
		/* The counter last: a statement cut short is applied again in whole. */
		for (size_t i = 0; rc == CF_OK && i < s->nactions; i++)
			rc = apply_action(dir, t, &s->actions[i], e);
		hex_encode(s->sha256, 32, sha);
		snprintf(counter, sizeof(counter), "%llu %s\n", (unsigned long long)s->counter, sha);
		if (rc == CF_OK)
			rc = write_file(dir, TRUST_FILE_STATEMENT_COUNTER, counter, e);
		if (rc == CF_OK)
			log_out("applied %s: counter %llu, %zu action%s, signed by %s\n", path,
				(unsigned long long)s->counter, s->nactions, s->nactions == 1 ? "" : "s",
				s->signers);
	}
	free(dir);
	free(s);
	free(t);
	return rc;
}

int trustverbs_apply(const char *root, const char *path, struct cf_err *e)
{
	return apply(root, path, NULL, 0, e);
}

int trustverbs_apply_kit(const char *root, const char *kit_dir, const struct kitcheck *kit,
			 int check_only, struct cf_err *e)
{
	char *path = in_dir(kit_dir, FRAME_STATEMENT_KIT_FILE);
	struct cf_err why = { 0 };
	struct platform_stat st;
	uint8_t *bytes = NULL;
	size_t len = 0;
	int rc = CF_OK;
	if (platform_lstat(path, &st) != 0) {
		free(path);
		return CF_OK;
	}
	/* Nothing off the stick: a link (to /dev/watchdog, /etc/shadow) or a device named like
	 * the statement is never opened, as the chooser opens no link (issue 23). */
	if (st.type != PLATFORM_TYPE_FILE)
		rc = cf_fail(e, CF_INTEGRITY, "%s is not a plain file on the kit (a link or a device is "
			     "never opened)", path);
	/* Every file of a kit is in its signed index, the statement too: another validly signed
	 * statement swapped in (one its signers wrote for another site, or an older one) is the
	 * kit's no more than a swapped bundle is. Checked before any of it is parsed, as root or
	 * not, on a dry run too; the bytes hashed are the bytes applied. */
	else if ((rc = kitcheck_listed_bytes(kit_dir, kit, FRAME_STATEMENT_KIT_FILE, &bytes, &len,
					     e)) != CF_OK || check_only)
		;
	else if (!platform_is_admin())
		log_msg(LOG_WARN, "%s not applied: changing what this host trusts needs root", path);
	else if ((rc = apply(root, path, bytes, len, &why)) == CF_POLICY)
		log_msg(LOG_INFO, "%s passed over: %s", path, why.msg), rc = CF_OK;
	else if (rc != CF_OK)
		rc = cf_fail(e, rc, "the kit's trust statement: %s", why.msg);
	free(bytes);
	free(path);
	return rc;
}

int trustverbs_remember(const struct install_options *o, struct cf_err *e)
{
	int rc = CF_OK;
	/* The very bytes that verified the bundle (read once, up front): the file named may hold
	 * another key by now. */
	for (size_t i = 0; rc == CF_OK && i < o->trust.nkeys; i++)
		rc = add_key(o->root, &o->trust.keys[i], o->trust.keys[i].origin, NULL, e);
	return rc;
}

/* ---- the clock ---- */

/* A host that once installed a bundle dated ahead of its clock refuses every later install
 * ("fix the clock first"): the newest `created` recorded goes back to the newest that is
 * not ahead of the clock (none: forgotten). */
int trustverbs_reset_clock(const struct install_options *o, struct cf_err *e)
{
	struct layout p;
	struct state st = { 0 };
	int lock = -1, recovered;
	char now[32];
	int64_t limit = platform_time_now() + CLOCK_SLACK_S;
	manifest_format_time(platform_time_now(), now);
	layout_init(&p, o->root, o->prefix, o->product);
	int rc = platform_is_admin() ? CF_OK
		 : cf_fail(e, CF_INSTALL, "trust reset-clock needs root (an Administrator)");
	if (rc == CF_OK)
		rc = prefix_open(&p, &lock, &recovered, e);
	if (rc == CF_OK)
		rc = state_load(p.state, &st, e);
	const char *was = rc == CF_OK && st.newest_created ? st.newest_created : NULL;
	if (rc == CF_OK && (!was || manifest_parse_time(was) <= limit)) {
		log_out("the newest time recorded in %s is %s, not ahead of the clock (%s): nothing "
			"to do\n", p.prefix, was ? was : "none", now);
	} else if (rc == CF_OK) {
		const char *newest = NULL;
		for (size_t i = 0; i < st.nbundles; i++) {
			const char *c = st.bundles[i].created;
			int64_t at = c ? manifest_parse_time(c) : -1;
			if (at >= 0 && at <= limit && (!newest || at > manifest_parse_time(newest)))
				newest = c;
		}
		char *old = xstrdup(was);
		free(st.newest_created);
		st.newest_created = newest ? xstrdup(newest) : NULL;
		rc = state_save(p.state, &st, e);
		if (rc == CF_OK) {
			log_msg(LOG_DEBUG, "trust: reset-clock in %s: the newest recorded time %s (ahead "
				"of the clock %s) is now %s", p.prefix, old, now, newest ? newest : "none");
			log_out("%s: the newest recorded time was %s, ahead of the clock (%s); it is now "
				"%s\n", p.prefix, old, now, newest ? newest : "none");
		}
		free(old);
	}
	if (lock >= 0)
		platform_unlock(lock);
	state_free(&st);
	layout_free(&p);
	return rc;
}

int trustverbs_threshold(const char *root, const char *value, struct cf_err *e)
{
	return set_threshold(root, TRUST_FILE_THRESHOLD, value, e);
}

int trustverbs_statement_threshold(const char *root, const char *value, struct cf_err *e)
{
	return set_threshold(root, TRUST_FILE_STATEMENT_THRESHOLD, value, e);
}
