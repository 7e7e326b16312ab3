/* productline.c - downgrade and replay judged per product line, not per bundle id: the id
 * names the version, CUDA variant and flavour, so an old but validly signed release for
 * another variant, or an older -cudalibs build of the same release, is a different id that a
 * per-id counter never compares (issue 24, review items 1 and 3) */
#include "unpacker/target/productline.h"

#include <stdio.h>
#include <string.h>

#include "manifests/product.h"

static const struct state_bundle *current_of(const struct state *st)
{
	for (size_t i = 0; st->current && i < st->nbundles; i++)
		if (strcmp(st->bundles[i].dir, st->current) == 0)
			return &st->bundles[i];
	return NULL;
}

int productline_refuses(const struct state *st, const struct manifest *m,
			const struct productline_options *o, char *why, size_t size)
{
	const struct state_bundle *cur = current_of(st);
	if (cur && cur->version && manifest_version_compare(m->product_version, cur->version) < 0 &&
	    !o->allow_downgrade && !o->keep_current) {
		snprintf(why, size, "%s %s is older than the current %s (for CUDA %s): downgrade "
			 "refused (--allow-downgrade to switch to it, --keep-current to install it beside)",
			 m->product->display, m->product_version, cur->version,
			 cur->cuda_variant ? cur->cuda_variant : "?");
		return 1;
	}
	/* The same release built again (plain or -cudalibs: both install into one directory):
	 * only a newer build may replace the one installed. */
	for (size_t i = 0; i < st->nbundles && !o->allow_downgrade; i++) {
		const struct state_bundle *b = &st->bundles[i];
		if (b->version && b->cuda_variant && strcmp(b->version, m->product_version) == 0 &&
		    strcmp(b->cuda_variant, m->cuda_variant) == 0 && strcmp(b->id, m->bundle_id) != 0 &&
		    m->counter < b->counter) {
			snprintf(why, size, "%s (counter %llu) is an older build of %s %s for CUDA %s "
				 "than the installed %s (counter %llu): replay or downgrade refused "
				 "(--allow-downgrade)", m->bundle_id, (unsigned long long)m->counter,
				 m->product->display, m->product_version, m->cuda_variant, b->id,
				 (unsigned long long)b->counter);
			return 1;
		}
	}
	return 0;
}

const char *productline_replaced_variant(const struct state *st, const struct manifest *m)
{
	const struct state_bundle *cur = current_of(st);
	if (cur && cur->version && cur->cuda_variant && strcmp(cur->version, m->product_version) == 0 &&
	    strcmp(cur->cuda_variant, m->cuda_variant) != 0)
		return cur->cuda_variant;
	return NULL;
}

void productline_version_key(const struct product *p, char *out, size_t size)
{
	snprintf(out, size, "%s_version", p->name);
}
