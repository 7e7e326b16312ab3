/* verbs.c - what each of the bundler's commands does with its parsed command line (the
 * command table, cmdtable.c, says which function is whose) */
#include "bundler/verbs.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bundler/check.h"
#include "bundler/create.h"
#include "bundler/cudajson.h"
#include "bundler/fetch.h"
#include "bundler/inspect.h"
#include "bundler/kit.h"
#include "bundler/output.h"
#include "bundler/sfx.h"
#include "bundler/statement.h"
#include "bundler/stub.h"
#include "common/interrupt.h"
#include "common/log.h"
#include "manifests/product.h"
#include "signing/sign.h"

int verb_usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "bundler: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\ntry 'bundler help' or 'bundler COMMAND --help' for more information\n");
	return 1;
}

/* --product NAME (the default product without it) for create, resolve and kit: a usage
 * error for a name no product has (the known ones listed), for a version alias of another
 * product than the one selected and for --with-cuda-libs where the product opens no CUDA
 * library. */
static int select_product(struct create_options *o)
{
	const struct product *p =
		o->product_name ? product_find(o->product_name) : product_default();
	char names[256];
	product_names(names, sizeof(names));
	if (!p)
		return verb_usage_error("unknown product '%s' (products: %s)", o->product_name,
					names);
	if (o->version_alias_of && strcmp(o->version_alias_of, p->name) != 0)
		return verb_usage_error("--%s names a %s version, not one of %s: give "
					"--product-version VER", o->version_alias_of,
					product_find(o->version_alias_of)->display, p->display);
	if (o->with_cuda_libs && !p->cuda_libs_opened[0])
		return verb_usage_error("--with-cuda-libs: %s opens no CUDA library by name, so "
					"there are none to carry with it", p->display);
	for (size_t i = 0; i < o->nwith; i++) {
		const struct create_member *w = &o->with[i];
		if (w->product == p)
			return verb_usage_error("--with %s: the bundle is of %s already", p->name,
						p->display);
		/* Before any download: NVIDIA's mirror is not read for a --with product yet. */
		if (!w->dir && !w->archive && !o->from_dir)
			return verb_usage_error("--with %s: NVIDIA's mirror is not read for a --with "
						"product yet: give --with-dir %s=DIR or --with-archive "
						"%s=FILE, or --from-dir a tree that holds it",
						w->product->name, w->product->name, w->product->name);
	}
	o->product = p;
	return 0;
}

/* The exit code, and the reason on stderr (and in the log) when it is not 0. */
static int finish(int rc, const struct cf_err *e)
{
	if (rc != 0)
		log_msg(LOG_ERROR, "%s", e->msg[0] ? e->msg : cf_status_name(rc));
	return rc;
}

/* How many arguments each verb is given (none, one BUNDLE, one NAME) is its row's in the
 * command table (cmdtable.c), checked before it runs (main.c). */

/* sign, sfx and trust-statement: a key file, or a signature made elsewhere. */
static int key_or_external(const char *verb, const struct sign_options *s)
{
	if (!!s->key_path == !!s->external)
		return verb_usage_error("%s needs --key K.key or --external", verb);
	if (s->external && !!s->pub_path != !!s->signature_path)
		return verb_usage_error("%s", "--external takes --pub and --signature together");
	return 0;
}

VERB(keygen)
{
	(void)c;
	struct cf_err e = { 0 };
	uint8_t id[32];
	char fp[65], short_id[17];
	(void)argc;
	/* A key named like an option is a typo (keygen --hlp), never a wish. */
	if (argv[0][0] == '-' || !argv[0][0])
		return verb_usage_error("keygen: '%s' is not a key name (it may not be empty or start with "
				   "'-')", argv[0]);
	int rc = signer_keygen(argv[0], id, &e);
	if (rc != 0)
		return finish(rc, &e);
	sig_fingerprint(id, fp);
	sig_short_id(id, short_id);
	log_out("wrote %s.key (secret, mode 0600) and %s.pub\nkey id      %s\nfingerprint %s\n",
		argv[0], argv[0], short_id, fp);
	return 0;
}

/* Cut a bundle signed earlier: checked first (signatures, every chunk), then parts beside it. */
static int split_signed(const char *path, uint64_t size, struct cf_err *e)
{
	struct checked c;
	struct output_files written = { 0 };
	int rc = check_open(path, &c, e);
	if (rc == CF_OK && bundle_part_count(c.input) > 1)
		rc = cf_fail(e, CF_USAGE, "%s is already split: give the whole bundle", path);
	if (rc == CF_OK && bundle_is_sfx(c.input))
		rc = cf_fail(e, CF_USAGE, "%s is a self-extracting file: split the plain .bundle it "
			     "was made from (the parts install the same)", path);
	if (rc == CF_OK)
		rc = check_payload(&c, 0, e);
	check_close(&c);
	if (rc == CF_OK)
		rc = interrupt_check(e);
	if (rc == CF_OK)
		rc = output_split(path, size, &written, e);
	if (rc == CF_OK)
		rc = output_files_sums(&written, e);
	for (size_t i = 0; rc == CF_OK && i < written.n; i++)
		log_out("wrote %s\n", written.files[i]);
	output_files_free(&written);
	return rc;
}

static int check_create(const struct bundler_args *c)
{
	const struct create_options *o = &c->create;
	int sources = (o->from_archive != NULL) + (o->from_dir != NULL);
	if (sources > 1)
		return verb_usage_error("%s", "give one of --from-archive and --from-dir");
	if (!o->key_path)
		return verb_usage_error("%s", "--key K.key is required (make one with 'bundler keygen NAME')");
	if (access(o->key_path, R_OK) != 0)
		return verb_usage_error("--key %s: %s (make a key with 'bundler keygen NAME')", o->key_path,
				   strerror(errno));
	const char *source = o->from_archive ? o->from_archive : o->from_dir;
	if (source && access(source, R_OK) != 0)
		return verb_usage_error("%s %s: %s", o->from_archive ? "--from-archive" : "--from-dir", source,
				   strerror(errno));
	if (!o->out)
		return verb_usage_error("%s", "-o OUT is required");
	return 0;
}

/* --sfx: a platform known now (given, or the mirror's default) has its stub found before any
 * download; a source's own platform is checked by create before compression. */
static int sfx_stub_early(const struct bundler_args *c, struct cf_err *e)
{
	const struct create_options *o = &c->create;
	char stub[PATH_MAX];
	if (!o->sfx || (!o->platform && (o->from_dir || o->from_archive)))
		return CF_OK;
	return stub_find(o->platform ? o->platform : "linux-x86_64", c->stub, stub, sizeof(stub), e);
}

VERB(kit)
{
	struct cf_err e = { 0 };
	(void)argc, (void)argv;
	if (!c->create.out)
		return verb_usage_error("%s", "kit needs -o DIR");
	if (select_product(&c->create) != 0)
		return 1;
	if (c->create.version && !c->create.key_path)
		return verb_usage_error("%s", "--product-version needs --key K.key to sign the "
					"bundles it builds");
	c->kit.out = c->create.out;
	c->kit.cuda_list = c->create.cuda;
	c->kit.platform_list = c->create.platform;
	c->kit.split = c->create.split;
	c->kit.progress = c->create.progress;
	c->kit.create = c->create;
	fetch_global_init();
	int rc = kit_make(&c->kit, &e);
	fetch_global_cleanup();
	return finish(rc, &e);
}

/* trust-statement ACTIONS... -o FILE signs a new one; trust-statement FILE signs it again. */
VERB(trust_statement)
{
	struct cf_err e = { 0 };
	struct statement_options *s = &c->statement;
	int actions = s->nrevoke + s->nadd + (s->threshold > 0) + (s->statement_threshold > 0);
	int rc = key_or_external("trust-statement", &c->sign);
	if (rc != 0)
		return rc;
	if (argc == 1 && (actions || c->create.out))
		return verb_usage_error("%s", "trust-statement takes actions and -o FILE (a new statement), "
				   "or one FILE (to sign it again), not both");
	s->sign = c->sign;
	if (argc == 1)
		return finish(statement_cosign(argv[0], &c->sign, &e), &e);
	if (!c->create.out)
		return verb_usage_error("%s", "trust-statement needs -o FILE");
	s->out = c->create.out;
	return finish(statement_write(s, &e), &e);
}


VERB(create)
{
	struct cf_err e = { 0 };
	(void)argc, (void)argv;
	int rc = select_product(&c->create);
	if (rc == 0)
		rc = check_create(c);
	if (rc != 0)
		return rc;
	c->create.sfx_stub = c->stub;
	if ((rc = sfx_stub_early(c, &e)) != CF_OK)
		return finish(rc, &e);
	interrupt_install();
	fetch_global_init();
	rc = create_bundle(&c->create, &e);
	fetch_global_cleanup();
	return finish(rc, &e);
}

VERB(resolve)
{
	struct cf_err e = { 0 };
	(void)argc, (void)argv;
	if (select_product(&c->create) != 0)
		return 1;
	fetch_global_init();
	int rc = create_resolve(&c->create, &e);
	fetch_global_cleanup();
	return finish(rc, &e);
}

VERB(cuda_json)
{
	struct cf_err e = { 0 };
	(void)argc, (void)argv;
	if (!c->create.from_dir || !c->create.out)
		return verb_usage_error("%s", "cuda-json needs --from-dir TOOLKIT and -o DIR");
	struct cudajson_options jo = { .from_dir = c->create.from_dir, .out = c->create.out,
				       .platform = c->create.platform, .release = c->release };
	return finish(cudajson_write(&jo, &e), &e);
}

VERB(split)
{
	struct cf_err e = { 0 };
	(void)argc;
	if (!c->create.split)
		return verb_usage_error("%s", "split needs --split SIZE (e.g. fat32, 2G, 700M)");
	interrupt_install();
	return finish(split_signed(argv[0], c->create.split, &e), &e);
}

VERB(inspect)
{
	struct cf_err e = { 0 };
	(void)argc;
	if ((c->sbom || c->provenance) && c->export_dir)
		return verb_usage_error("%s prints one document: leave out --export",
					c->sbom ? "--sbom" : "--provenance");
	return finish(inspect_bundle(argv[0], c->export_dir, c->sbom, c->provenance, &e), &e);
}

VERB(sign)
{
	struct cf_err e = { 0 };
	(void)argc;
	int rc = key_or_external("sign", &c->sign);
	return rc != 0 ? rc : finish(sign_bundle(argv[0], &c->sign, &e), &e);
}

VERB(sfx)
{
	struct cf_err e = { 0 };
	(void)argc;
	int rc = key_or_external("sfx", &c->sign);
	if (rc != 0)
		return rc;
	struct sfx_options so = { .platform = c->create.platform, .unpacker = c->stub,
				  .key_path = c->sign.key_path, .external = c->sign.external,
				  .pub_path = c->sign.pub_path,
				  .signature_path = c->sign.signature_path,
				  .out = c->create.out, .progress = c->create.progress,
				  .force = c->force };
	return finish(sfx_write(argv[0], &so, &e), &e);
}
