/* test_sbom.c - the bundle's SBOMs: made the same way each time from the same content
 * (bundler/sbomgen.c), their identifiers computable by anyone, and the stored document read
 * back from a payload walk and printed with the signers (manifests/sbom.c) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "bundler/sbomgen.h"
#include "common/sha256.h"
#include "manifests/manifest.h"
#include "manifests/product.h"
#include "manifests/sbom.h"

struct fixture {
	struct manifest *m;
	struct prehash p;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct manifest *m = f->m = manifest_new();
	m->product = product_default();
	manifest_set(&m->bundle_id, "cudnn-9.19.0.56-cuda13-linux-x86_64");
	manifest_set(&m->product_version, "9.19.0.56");
	manifest_set(&m->cuda_variant, "13");
	manifest_set(&m->platform, "linux-x86_64");
	manifest_set(&m->source_kind, "dir");
	manifest_set(&m->source_name, "/usr/local/cuda");
	m->source_date_epoch = 1760486400;
	static struct tree_entry lic = { .path = "LICENSE", .src = "x", .mode = 0644 };
	static struct tree_entry link = { .path = "lib/libx.so", .target = "libx.so.9", .is_symlink = 1 };
	static struct tree_entry lib = { .path = "lib/libx.so.9", .src = "y", .mode = 0755 };
	f->p.count = 3;
	f->p.files = calloc(3, sizeof(*f->p.files));
	f->p.files[0].entry = lic;
	sha256_buf("lic", 3, f->p.files[0].sha256);
	f->p.files[1].entry = link;
	f->p.files[2].entry = lib;
	sha256_buf("lib", 3, f->p.files[2].sha256);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	manifest_free(f->m);
	free(f->p.files);
	free(f);
	return 0;
}

static void generate(struct fixture *f, const char *license, char **cdx, char **spdx)
{
	size_t a, b;
	struct sbomgen_input in = { .m = f->m, .files = &f->p, .license = license };
	sbomgen_write(&in, cdx, &a, spdx, &b);
	assert_int_equal(strlen(*cdx), a);
	assert_int_equal(strlen(*spdx), b);
}

/* The values python3's hashlib and uuid.uuid5 give for the same lines and name. */
static void test_identifiers_from_the_content(void **state)
{
	struct fixture *f = *state;
	uint8_t d[32];
	char hex[65], *cdx, *spdx;
	sbomgen_content_digest(&f->p, d);
	hex_encode(d, 32, hex);
	assert_string_equal(hex, "6deeecaa92fcd512780e6895eee7fc60324acc28da481372627f11f946dce5b6");
	generate(f, NULL, &cdx, &spdx);
	assert_non_null(strstr(cdx, "\"serialNumber\": \"urn:uuid:2b6d4f0a-a9b6-56a1-9c07-01fb56cb5490\""));
	assert_non_null(strstr(spdx, "/2b6d4f0a-a9b6-56a1-9c07-01fb56cb5490\""));
	assert_non_null(strstr(cdx, "\"timestamp\": \"2025-10-15T00:00:00Z\""));
	assert_non_null(strstr(spdx, "\"created\": \"2025-10-15T00:00:00Z\""));
	assert_non_null(strstr(cdx, "pkg:generic/nvidia/cudnn@9.19.0.56?cuda=13&platform=linux-x86_64#lib/libx.so.9"));
	free(cdx);
	free(spdx);
}

static void test_same_inputs_same_bytes(void **state)
{
	struct fixture *f = *state;
	char *c1, *s1, *c2, *s2;
	generate(f, "cudnn", &c1, &s1);
	f->m->counter = 12345; /* a new counter is a new bundle of the same content */
	manifest_set(&f->m->created, "2030-01-01T00:00:00Z");
	generate(f, "cudnn", &c2, &s2);
	assert_string_equal(c1, c2);
	assert_string_equal(s1, s2);
	free(c2);
	free(s2);
	/* a changed file changes the identity */
	f->p.files[2].sha256[0] ^= 1;
	generate(f, "cudnn", &c2, &s2);
	assert_string_not_equal(c1, c2);
	free(c1);
	free(s1);
	free(c2);
	free(s2);
}

static void test_licence_named_or_noassertion(void **state)
{
	struct fixture *f = *state;
	char *cdx, *spdx;
	generate(f, "CUDA Toolkit", &cdx, &spdx);
	assert_non_null(strstr(spdx, "\"licenseDeclared\": \"LicenseRef-NVIDIA-CUDA-Toolkit\""));
	assert_non_null(strstr(spdx, "\"licenseId\": \"LicenseRef-NVIDIA-CUDA-Toolkit\""));
	assert_non_null(strstr(cdx, "\"name\": \"CUDA Toolkit\""));
	free(cdx);
	free(spdx);
	generate(f, NULL, &cdx, &spdx);
	assert_null(strstr(spdx, "LicenseRef-"));
	assert_null(strstr(cdx, "\"licenses\""));
	assert_non_null(strstr(spdx, "\"licenseDeclared\": \"NOASSERTION\""));
	free(cdx);
	free(spdx);
}

/* What a payload walk hands the sink: begin, data in pieces, end once the hash matched. */
static void feed(struct payload_sink *s, const char *path, const char *text)
{
	struct cf_err e = { 0 };
	struct manifest_file mf = { .path = (char *)path, .type = MF_FILE, .size = strlen(text) };
	size_t half = strlen(text) / 2;
	assert_int_equal(s->begin(s->ctx, &mf, &e), CF_OK);
	assert_int_equal(s->data(s->ctx, text, half, &e), CF_OK);
	assert_int_equal(s->data(s->ctx, text + half, strlen(text) - half, &e), CF_OK);
	assert_int_equal(s->end(s->ctx, &mf, &e), CF_OK);
}

static void test_print_adds_the_signers(void **state)
{
	struct fixture *f = *state;
	char *cdx, *spdx, *out;
	size_t len;
	const char fps[2][65] = { "aa", "bb" };
	struct cf_err e = { 0 };
	generate(f, NULL, &cdx, &spdx);
	for (int k = 0; k < 2; k++) {
		enum sbom_kind kind = k ? SBOM_SPDX : SBOM_CYCLONEDX;
		struct sbom_capture c;
		struct payload_sink sink;
		sbom_capture_init(&c, kind, &sink);
		feed(&sink, "LICENSE", "not this one");
		feed(&sink, sbom_path(kind), k ? spdx : cdx);
		feed(&sink, "lib/libx.so.9", "nor this");
		assert_true(c.found);
		assert_int_equal(sbom_with_signers(&c, fps, 2, &out, &len, &e), CF_OK);
		json_t *doc = json_loads(out, 0, NULL);
		assert_non_null(doc);
		json_t *el = k ? json_array_get(json_object_get(doc, "packages"), 0)
			       : json_object_get(json_object_get(doc, "metadata"), "component");
		json_t *added = json_object_get(el, k ? "annotations" : "properties");
		const char *last = json_string_value(json_object_get(
			json_array_get(added, json_array_size(added) - 1), k ? "comment" : "value"));
		assert_non_null(strstr(last, "bb"));
		assert_int_equal(out[len - 1], '\n');
		json_decref(doc);
		free(out);
		sbom_capture_free(&c);
	}
	free(cdx);
	free(spdx);
}

static void test_missing_or_foreign_document(void **state)
{
	(void)state;
	struct sbom_capture c;
	struct payload_sink sink;
	struct cf_err e = { 0 };
	char *out;
	size_t len;
	sbom_capture_init(&c, SBOM_CYCLONEDX, &sink);
	feed(&sink, "LICENSE", "x");
	assert_int_equal(sbom_with_signers(&c, NULL, 0, &out, &len, &e),
			 CF_INCOMPATIBLE);
	assert_non_null(strstr(e.msg, "made before bundles carried SBOMs"));
	feed(&sink, SBOM_CYCLONEDX_PATH, "{\"bomFormat\": \"CycloneDX\"}");
	cf_err_clear(&e);
	assert_int_equal(sbom_with_signers(&c, NULL, 0, &out, &len, &e),
			 CF_INTEGRITY);
	sbom_capture_free(&c);
}

/* The provenance record is printed as stored, byte for byte: what a reviewer hashes. */
/* The provenance record is printed re-encoded, in its own order: the bundler's bytes (two-space
 * indent, ASCII) come back as they are; anything else as the JSON it is, escaped; not JSON is
 * refused. */
static void test_provenance_reencoded(void **state)
{
	(void)state;
	struct sbom_capture c;
	struct payload_sink sink;
	struct cf_err e = { 0 };
	char *out;
	size_t len;
	const char fps[1][65] = { "aa" };
	const char *stored = "{\n  \"format\": \"cuferry-provenance-1\",\n  \"b\": 1,\n  \"a\": [\n    \"x\"\n  ]\n}\n";
	sbom_capture_init(&c, SBOM_PROVENANCE, &sink);
	assert_string_equal(c.path, PROVENANCE_PATH);
	assert_int_equal(sbom_with_signers(&c, fps, 1, &out, &len, &e), CF_INCOMPATIBLE);
	assert_non_null(strstr(e.msg, "carried their provenance"));
	feed(&sink, SBOM_CYCLONEDX_PATH, "{}");
	feed(&sink, PROVENANCE_PATH, stored);
	cf_err_clear(&e);
	assert_int_equal(sbom_with_signers(&c, fps, 1, &out, &len, &e), CF_OK);
	assert_int_equal(len, strlen(stored));
	assert_memory_equal(out, stored, len);
	free(out);
	sbom_capture_free(&c);

	const struct { const char *stored, *printed; int code; } cases[] = {
		{ "{\"n\": \"\\u001b]0;x\\u0007\\u009b\"}", "{\n  \"n\": \"\\u001B]0;x\\u0007\\u009B\"\n}\n", CF_OK },
		{ "not json \033[2J", NULL, CF_INTEGRITY },
		{ "[1, 2]", NULL, CF_INTEGRITY },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		sbom_capture_init(&c, SBOM_PROVENANCE, &sink);
		feed(&sink, PROVENANCE_PATH, cases[i].stored);
		cf_err_clear(&e);
		assert_int_equal(sbom_with_signers(&c, fps, 1, &out, &len, &e), cases[i].code);
		if (cases[i].printed) {
			assert_string_equal(out, cases[i].printed);
			free(out);
		} else {
			assert_non_null(strstr(e.msg, "is not a provenance record"));
		}
		sbom_capture_free(&c);
	}
}

static void test_names(void **state)
{
	(void)state;
	enum sbom_kind k;
	assert_int_equal(sbom_kind_parse("spdx", &k), 0);
	assert_int_equal(k, SBOM_SPDX);
	assert_int_equal(sbom_kind_parse("cyclonedx", &k), 0);
	assert_int_equal(k, SBOM_CYCLONEDX);
	assert_int_equal(sbom_kind_parse("CycloneDX", &k), -1);
	assert_true(sbom_in_dossier(".cuferry-dossier/sbom.cdx.json"));
	assert_false(sbom_in_dossier(".cuferry-dossier"));
	assert_false(sbom_in_dossier(".cuferry-dossierx/a"));
	assert_false(sbom_in_dossier(".cuferry/a"));
	/* first in the payload: before every name a product tree has */
	assert_true(strcmp(SBOM_SPDX_PATH, "LICENSE") < 0 && strcmp(SBOM_SPDX_PATH, "0") < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_identifiers_from_the_content, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_inputs_same_bytes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_licence_named_or_noassertion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_print_adds_the_signers, setup, teardown),
		cmocka_unit_test(test_missing_or_foreign_document),
		cmocka_unit_test(test_provenance_reencoded),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests_name("sbom", tests, NULL, NULL);
}
