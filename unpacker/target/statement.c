/* statement.c - a trust statement judged before any action in it is believed: the frame and
 * T trusted signatures first, then the JSON, then the rule its actions need */
#include "unpacker/target/statement.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bundle/format.h"
#include "common/bundle/open.h"
#include "common/io.h"
#include "common/platform.h"
#include "common/sha256.h"
#include "manifests/manifest.h"
#include "signing/verify.h"

#define CLOCK_SLACK_S 86400 /* a statement may be a day ahead of this host's clock, no more */

static int parse_action(json_t *a, struct statement_action *act, struct cf_err *e)
{
	const char *name;
	json_t *v;
	memset(act, 0, sizeof(*act));
	if (!json_is_object(a) || json_object_size(a) != 1)
		return cf_fail(e, CF_INTEGRITY, "trust statement: each action is an object of one field");
	json_object_foreach(a, name, v) {
		if (strcmp(name, "revoke") == 0) {
			const char *hex = json_string_value(v);
			act->kind = STATEMENT_REVOKE;
			if (!hex || strlen(hex) != 64 || hex_decode(hex, act->keyid, 32) != 0)
				return cf_fail(e, CF_INTEGRITY, "trust statement: revoke needs a fingerprint "
					       "of 64 hex digits");
		} else if (strcmp(name, "add") == 0) {
			const char *pem = json_string_value(v);
			act->kind = STATEMENT_ADD;
			if (!pem || sig_pubkey_parse((const uint8_t *)pem, strlen(pem), act->spki,
						     &act->spki_len, e) != CF_OK)
				return cf_fail(e, CF_INTEGRITY, "trust statement: add needs a P-256 public "
					       "key (PEM SubjectPublicKeyInfo)");
			sig_keyid(act->spki, act->spki_len, act->keyid);
		} else if (strcmp(name, "threshold") == 0 || strcmp(name, "statement_threshold") == 0) {
			json_int_t n = json_is_integer(v) ? json_integer_value(v) : 0;
			act->kind = name[0] == 't' ? STATEMENT_THRESHOLD : STATEMENT_STATEMENT_THRESHOLD;
			act->number = (unsigned)n;
			if (n < 1 || n > 8)
				return cf_fail(e, CF_INTEGRITY, "trust statement: %s must be from 1 to 8",
					       name);
		} else {
			return cf_fail(e, CF_INCOMPATIBLE, "trust statement: unknown action '%.40s' (this "
				       "unpacker knows revoke, add, threshold, statement_threshold)", name);
		}
	}
	return CF_OK;
}

static int parse_body(const struct frame *f, struct statement *s, struct cf_err *e)
{
	json_error_t err;
	json_t *o = json_loadb((const char *)f->header, f->header_len, JSON_REJECT_DUPLICATES, &err);
	int rc = CF_OK;
	const char *format = o ? json_string_value(json_object_get(o, "format")) : NULL;
	json_t *counter = o ? json_object_get(o, "counter") : NULL;
	const char *created = o ? json_string_value(json_object_get(o, "created")) : NULL;
	json_t *actions = o ? json_object_get(o, "actions") : NULL;
	if (!o || !json_is_object(o))
		rc = cf_fail(e, CF_INTEGRITY, "trust statement: not one JSON object");
	else if (!format || strcmp(format, FRAME_STATEMENT_FORMAT) != 0)
		rc = cf_fail(e, CF_INCOMPATIBLE, "trust statement: format is not %s",
			     FRAME_STATEMENT_FORMAT);
	else if (!json_is_integer(counter) || json_integer_value(counter) < 1)
		rc = cf_fail(e, CF_INTEGRITY, "trust statement: counter must be a positive integer");
	else if (!created || manifest_parse_time(created) < 0)
		rc = cf_fail(e, CF_INTEGRITY, "trust statement: created must be YYYY-MM-DDTHH:MM:SSZ");
	else if (!json_is_array(actions) || json_array_size(actions) == 0 ||
		 json_array_size(actions) > STATEMENT_MAX_ACTIONS)
		rc = cf_fail(e, CF_INTEGRITY, "trust statement: actions must list 1 to %d actions",
			     STATEMENT_MAX_ACTIONS);
	if (rc == CF_OK) {
		s->counter = (uint64_t)json_integer_value(counter);
		snprintf(s->created, sizeof(s->created), "%s", created);
	}
	for (size_t i = 0; rc == CF_OK && i < json_array_size(actions); i++)
		if ((rc = parse_action(json_array_get(actions, i), &s->actions[i], e)) == CF_OK)
			s->nactions++;
	json_decref(o);
	return rc;
}

/* One leaked key must not take a site over: revoking only keys among its own signers needs
 * T; adding a key, revoking another, changing a threshold needs the statement threshold. */
static unsigned signatures_needed(const struct trust *t, const struct statement *s,
				  uint8_t ids[][32], unsigned nids)
{
	for (size_t i = 0; i < s->nactions; i++) {
		int own = 0;
		for (unsigned k = 0; k < nids; k++)
			own |= digest_equal(ids[k], s->actions[i].keyid, 32);
		if (s->actions[i].kind != STATEMENT_REVOKE || !own)
			return trust_statement_threshold(t);
	}
	return t->threshold;
}

/* The statement's frame f (read, its file's SHA-256 in s->sha256) judged against t. */
static int judge(struct frame *f, const struct trust *t, struct statement *s, struct cf_err *e)
{
	uint8_t digest[32], ids[FRAME_MAX_SIGS][32];
	int rc;
	/* Nothing of it is parsed before T trusted keys are seen to have signed it. */
	sha256_buf(f->header, f->header_len, digest);
	rc = trust_check_sigs(t, digest, f->sigs, f->nsigs, s->signers, sizeof(s->signers), e);
	unsigned good = rc == CF_OK ? trust_accepted(t, digest, f->sigs, f->nsigs, ids, s->signers,
						       sizeof(s->signers)) : 0;
	if (rc == CF_OK)
		rc = parse_body(f, s, e);
	frame_free(f);
	if (rc != CF_OK)
		return rc;
	s->already_applied = s->counter == t->statement_counter &&
			     digest_equal(s->sha256, t->statement_sha256, 32);
	if (s->already_applied)
		return CF_OK; /* judged when it was applied; the thresholds may have changed since */
	if (s->counter <= t->statement_counter)
		return cf_fail(e, CF_POLICY, "trust statement counter %llu is not newer than the one "
			       "this host applied (%llu): a replayed or superseded statement is refused",
			       (unsigned long long)s->counter,
			       (unsigned long long)t->statement_counter);
	s->needed = signatures_needed(t, s, ids, good);
	if (good < s->needed)
		return cf_fail(e, CF_TRUST, "trust statement signed by %u trusted key%s (%s), its actions "
			       "need %u (the statement threshold: 'trust list' shows it)", good,
			       good == 1 ? "" : "s", s->signers, s->needed);
	if (manifest_parse_time(s->created) > platform_time_now() + CLOCK_SLACK_S)
		return cf_fail(e, CF_POLICY, "trust statement created %s, in the future: check the clock",
			       s->created);
	return CF_OK;
}

int statement_read(const char *path, const struct trust *t, struct statement *s,
		   struct cf_err *e)
{
	struct frame f;
	memset(s, 0, sizeof(*s));
	int rc = bundle_read_statement(path, &f, s->sha256, e);
	return rc == CF_OK ? judge(&f, t, s, e) : rc;
}

int statement_parse(const char *name, const uint8_t *data, size_t len, const struct trust *t,
		    struct statement *s, struct cf_err *e)
{
	struct frame f;
	memset(s, 0, sizeof(*s));
	int rc = bundle_parse_statement(name, data, len, &f, s->sha256, e);
	return rc == CF_OK ? judge(&f, t, s, e) : rc;
}
