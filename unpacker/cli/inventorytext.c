/* inventorytext.c - unpacker inventory's text, from the inventory object */
#include "unpacker/cli/inventorytext.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "manifests/product.h"
#include "unpacker/target/productline.h"

/* The i-th element of o's array key; NULL past its end (or when key holds no array). */
static json_t *item(json_t *o, const char *key, size_t i)
{
	return json_array_get(json_object_get(o, key), i);
}

static const char *text(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "?";
}

static long long number(json_t *o, const char *key)
{
	return (long long)json_integer_value(json_object_get(o, key));
}

static void print_signers(json_t *b)
{
	json_t *signers = json_object_get(b, "signers"), *sig = json_object_get(b, "signature");
	for (size_t i = 0; i < json_array_size(signers); i++) {
		json_t *s = json_array_get(signers, i);
		log_out("    signer     %s: %s\n", text(s, "fingerprint"), text(s, "trust"));
	}
	log_out("    signature  %s: %s\n", json_is_true(json_object_get(sig, "verifies"))
		? "verifies" : "DOES NOT VERIFY", text(sig, "detail"));
}

static void print_files(json_t *b)
{
	json_t *f = json_object_get(b, "files");
	if (!json_is_object(f)) {
		log_out("    files      not checked (no manifest is believed)\n");
		return;
	}
	int deep = strcmp(text(f, "checked"), "sha256") == 0;
	char sha[64] = "";
	if (deep)
		snprintf(sha, sizeof(sha), ", SHA-256 changed %lld", number(f, "sha256_changed"));
	log_out("    files      %lld entries, %lld as listed (%s); missing %lld, size changed %lld%s, "
		"links changed %lld, unlisted %lld\n", number(f, "entries"), number(f, "as_listed"),
		deep ? "sizes and SHA-256" : "sizes only: --deep hashes them", number(f, "missing"),
		number(f, "size_changed"), sha, number(f, "links_changed"), number(f, "unlisted"));
	if (json_string_value(json_object_get(f, "first_problem")))
		log_out("               first: %s\n", text(f, "first_problem"));
	if (json_string_value(json_object_get(f, "first_unlisted")))
		log_out("               unlisted: %s\n", text(f, "first_unlisted"));
}

static void print_validation(json_t *b)
{
	json_t *v = json_object_get(b, "validation"), *g;
	if (!json_is_object(v)) {
		log_out("    validated  never (no validation recorded)\n");
		return;
	}
	char gpus[512] = "";
	size_t i, used = 0;
	for (i = 0; (g = item(v, "gpus", i)) != NULL; i++)
		if (used < sizeof(gpus))
			used += (size_t)snprintf(gpus + used, sizeof(gpus) - used, "%s%lld %s",
						 used ? ", " : "", number(g, "index"), text(g, "name"));
	log_out("    validated  %s: %s, GPU %s%s%s%s\n", text(v, "validated_at"), text(v, "result"),
		text(v, "gpu"), gpus[0] ? " (" : "", gpus, gpus[0] ? ")" : "");
	if (json_string_value(json_object_get(v, "first_failure")))
		log_out("               failed: %s\n", text(v, "first_failure"));
}

static void print_install(json_t *b, const struct product *p)
{
	char key[64];
	productline_version_key(p, key, sizeof(key));
	log_out("%s %s: %s %s for CUDA %s, %s\n", json_is_true(json_object_get(b, "current")) ? "*" : " ",
		text(b, "dir"), p->display, text(b, key), text(b, "cuda_variant"), text(b, "platform"));
	json_t *x;
	size_t i;
	for (i = 0; (x = item(b, "with", i)) != NULL; i++) {
		const struct product *w = product_find(text(x, "product"));
		log_out("    with       %s %s\n", w ? w->display : text(x, "product"), text(x, "version"));
	}
	log_out("    bundle     %s, counter %lld, created %s\n", text(b, "bundle_id"),
		number(b, "counter"), text(b, "created"));
	log_out("    installed  %s%s\n", text(b, "installed_at"),
		json_is_true(json_object_get(b, "current")) ? " (current)" : "");
	print_signers(b);
	print_files(b);
	for (i = 0; (x = item(b, "builder_files", i)) != NULL; i++)
		log_out("    builder    %s%s\n", text(x, "file"),
			json_is_true(json_object_get(x, "present")) ? "" : " (missing)");
	print_validation(b);
}

static void print_environment(json_t *inv)
{
	json_t *x, *m;
	size_t i, k;
	log_out("environment:\n");
	for (i = 0; (x = item(inv, "environment", i)) != NULL; i++) {
		const char *at = json_string_value(json_object_get(x, "points_at"));
		log_out("  %-4s %-14s %s%s%s\n", json_is_true(json_object_get(x, "ok")) ? "ok" : "BAD",
			text(x, "kind"), text(x, "file"),
			!json_is_true(json_object_get(x, "present")) ? " (not there)" : at ? " -> " : "",
			json_is_true(json_object_get(x, "present")) && at ? at
			: json_is_true(json_object_get(x, "present")) ? " (points elsewhere)" : "");
	}
	for (i = 0; (m = item(inv, "modulefiles", i)) != NULL; i++) {
		log_out("  %-4s %-14s %s:", json_is_true(json_object_get(m, "default_is_current"))
			? "ok" : "BAD", "modulefiles", text(m, "dir"));
		for (k = 0; (x = item(m, "installs", k)) != NULL; k++)
			log_out(" %s", json_string_value(x));
		log_out("\n");
	}
}

static void print_copies(json_t *inv, const struct product *p, const char *root)
{
	json_t *c;
	size_t i;
	if (!json_is_true(json_object_get(inv, "copies_surveyed"))) {
		log_out("other copies: not surveyed here ('unpacker doctor' lists them)\n");
		return;
	}
	log_out("%s copies (names, headers and metadata read; nothing loaded):\n", p->display);
	if (json_array_size(json_object_get(inv, "copies")) == 0)
		log_out("  (none)\n");
	for (i = 0; (c = item(inv, "copies", i)) != NULL; i++) {
		const char *how = json_is_true(json_object_get(c, "shadows")) ? "SHADOWS the install"
				: json_is_true(json_object_get(c, "ours")) ? "the install's"
				: json_is_true(json_object_get(c, "wins")) ? "wins" : "does not win";
		/* Users choose these names (a conda-meta file, a dist-info, a directory): escaped. */
		char version[64], path[1024], origin[512], via[512];
		log_out("  %-10s %s%s\n", log_escape(text(c, "version"), version, sizeof(version)), root,
			log_escape(text(c, "path"), path, sizeof(path)));
		log_out("             %s; %s; on the search path through: %s\n",
			log_escape(text(c, "origin"), origin, sizeof(origin)), how,
			json_string_value(json_object_get(c, "on_search_path"))
			? log_escape(text(c, "on_search_path"), via, sizeof(via)) : "nothing");
	}
}

void inventory_print_prefix(json_t *prefix, const struct product *p, const char *root)
{
	json_t *b;
	size_t i, n = json_array_size(json_object_get(prefix, "installs"));
	log_out("%s in %s%s: %zu %s, current %s\n", p->display, root, text(prefix, "prefix"), n,
		n == 1 ? "install" : "installs",
		json_string_value(json_object_get(prefix, "current")) ? text(prefix, "current") : "none");
	for (i = 0; (b = item(prefix, "installs", i)) != NULL; i++)
		print_install(b, p);
	print_environment(prefix);
	print_copies(prefix, p, root);
}

void inventory_print_problems(json_t *inv)
{
	json_t *x;
	size_t i, k = json_array_size(json_object_get(inv, "problems"));
	if (k == 0)
		log_out("nothing drifted\n");
	else
		log_out("drifted (%zu):\n", k);
	for (i = 0; (x = item(inv, "problems", i)) != NULL; i++)
		log_out("  %s\n", json_string_value(x));
}
