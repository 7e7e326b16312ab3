/* policy.c - whether a bundle may be installed: replay, downgrade, expiry, clock, space */
#include "unpacker/install/policy.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/platform.h"
#include "unpacker/target/productline.h"
#include "unpacker/environment/environment.h"
#include "unpacker/target/safepath.h"

int policy_check(const struct install_options *o, const struct manifest *m,
		 const struct state *st, const struct layout *p, struct install_result *r,
		 struct cf_err *e)
{
	int64_t now = platform_time_now();
	uint64_t seen;
	char nowstr[32];
	manifest_format_time(now, nowstr);
	/* A bundle from the future is refused before anything of it is recorded: its created
	 * would become newest_created and refuse every later install (review item 2). A day of
	 * grace covers time zones and clocks a little apart. */
	if (manifest_parse_time(m->created) > now + POLICY_CLOCK_GRACE_S)
		return cf_fail(e, CF_POLICY, "bundle created in the future (%s; this host's clock says "
			       "%s): check the clock", m->created, nowstr);
	if (st->newest_created && now + POLICY_CLOCK_GRACE_S < manifest_parse_time(st->newest_created))
		return cf_fail(e, CF_POLICY, "the system clock (%s) is earlier than the creation of a "
			       "bundle already installed (%s): fix the clock first", nowstr,
			       st->newest_created);
	if (m->expires && manifest_parse_time(m->expires) < now && !o->allow_expired)
		return cf_fail(e, CF_POLICY, "bundle expired on %s (--allow-expired to install anyway)",
			       m->expires);
	if (state_seen_counter(st, m->bundle_id, &seen)) {
		const struct state_bundle *b = state_find(st, r->dir);
		char *dir = layout_under(p, r->dir);
		int present = io_is_dir(dir);
		free(dir);
		if (m->counter == seen && b && b->counter == seen && present) {
			r->noop = 1;
			return CF_OK;
		}
		if (m->counter < seen && !o->allow_downgrade)
			return cf_fail(e, CF_POLICY, "bundle counter %llu is lower than %llu already seen for "
				       "%s: replay or downgrade refused (--allow-downgrade)",
				       (unsigned long long)m->counter, (unsigned long long)seen,
				       m->bundle_id);
	}
	struct productline_options po = { o->allow_downgrade, o->keep_current };
	char why[512];
	if (productline_refuses(st, m, &po, why, sizeof(why)))
		return cf_fail(e, CF_POLICY, "%s", why);
	const char *replaced = o->keep_current ? NULL : productline_replaced_variant(st, m);
	snprintf(r->replaced_variant, sizeof(r->replaced_variant), "%s", replaced ? replaced : "");
	return CF_OK;
}

/* Under --root, and as root on the host, the environment's directories are checked like
 * the prefix before anything is written; the modulefiles' too, which --no-env does not stop. */
int policy_check_env_dirs(const struct layout *p, const struct install_options *o, struct cf_err *e)
{
	static const char *const dirs[] = { LAYOUT_LDCONF_DIR, LAYOUT_PROFILE_DIR };
	if (environment_check_module_dir(p, o, e) != CF_OK)
		return e->code;
	if (p->registry || o->no_env || o->env_user || !platform_is_admin())
		return CF_OK;
	for (size_t i = 0; i < 2; i++)
		if (safepath_check_dir(p->root, dirs[i], "the environment directory", e) != CF_OK)
			return e->code;
	return CF_OK;
}

/* Bytes and inodes: a file system out of inodes fails as surely as a full one, and must be
 * told before anything is written, with that cause (exit 4), not as a failed rollback. */
int policy_check_space(const struct layout *p, const struct manifest *m, struct cf_err *e)
{
	uint64_t free_bytes, free_inodes, need = 16u << 20, inodes = 16; /* .cuferry, staging, temps */
	for (size_t i = 0; i < m->nfiles; i++) {
		const char *path = m->files[i].path, *slash = strrchr(path, '/');
		const char *prev = i ? m->files[i - 1].path : "", *prev_slash = strrchr(prev, '/');
		size_t n = slash ? (size_t)(slash - path) : 0, pn = prev_slash ? (size_t)(prev_slash - prev) : 0;
		need += m->files[i].size + 4096;
		inodes += 1 + (n && (n != pn || strncmp(path, prev, n) != 0)); /* a new directory */
	}
	if (platform_free_bytes(p->prefix, &free_bytes) != 0 ||
	    platform_free_inodes(p->prefix, &free_inodes) != 0)
		return cf_fail(e, CF_INSTALL, "%s: %s", p->prefix, platform_strerror(errno));
	if (free_bytes < need)
		return cf_fail(e, CF_INCOMPATIBLE, "no space: not enough space in %s: %llu MiB free, "
			       "%llu MiB needed", p->prefix, (unsigned long long)(free_bytes >> 20),
			       (unsigned long long)(need >> 20));
	if (free_inodes < inodes)
		return cf_fail(e, CF_INCOMPATIBLE, "no space: not enough inodes in %s: %llu free, %llu "
			       "needed (files and directories)", p->prefix,
			       (unsigned long long)free_inodes, (unsigned long long)inodes);
	return CF_OK;
}
