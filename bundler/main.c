/* main.c - bundler command line: parse, dispatch, exit with the code of DESIGN.md §9 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "bundler/check.h"
#include "bundler/create.h"
#include "bundler/fetch.h"
#include "bundler/cudajson.h"
#include "bundler/inspect.h"
#include "bundler/help.h"
#include "bundler/kit.h"
#include "bundler/mirror.h"
#include "bundler/output.h"
#include "bundler/sfx.h"
#include "bundler/statement.h"
#include "bundler/stub.h"
#include "common/interrupt.h"
#include "common/io.h"
#include "common/version.h"
#include "common/platform.h"
#include "common/log.h"
#include "manifests/manifest.h"
#include "signing/sign.h"

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "bundler: ");
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\ntry 'bundler help' or 'bundler COMMAND --help' for more information\n");
	return 1;
}

static int finish(int rc, const struct cf_err *e)
{
	if (rc != 0)
		log_msg(LOG_ERROR, "%s", e->msg[0] ? e->msg : cf_status_name(rc));
	return rc;
}

enum { OPT_CUDNN = 256, OPT_CUDA, OPT_PLATFORM, OPT_KEY, OPT_MIRROR, OPT_ARCHIVE, OPT_DIR,
       OPT_CUDA_LIBS, OPT_COUNTER, OPT_EXPIRES, OPT_LEVEL, OPT_THREADS, OPT_SPLIT, OPT_SFX,
       OPT_CACHE, OPT_UNPACKER, OPT_EXPORT, OPT_EXTERNAL, OPT_PUB, OPT_SIGNATURE,
       OPT_BUNDLE, OPT_NO_UNPACKER, OPT_ADD_FILE, OPT_OFFLINE, OPT_RELEASE,
       OPT_ALLOW_FUTURE, OPT_FORCE, OPT_VALID_DAYS, OPT_REVOKE, OPT_ADD, OPT_THRESHOLD,
       OPT_STATEMENT_THRESHOLD, OPT_STATEMENT };

static const struct option long_options[] = {
	{ "cudnn", required_argument, NULL, OPT_CUDNN },
	{ "cuda", required_argument, NULL, OPT_CUDA },
	{ "platform", required_argument, NULL, OPT_PLATFORM },
	{ "key", required_argument, NULL, OPT_KEY },
	{ "output", required_argument, NULL, 'o' },
	{ "mirror", required_argument, NULL, OPT_MIRROR },
	{ "from-archive", required_argument, NULL, OPT_ARCHIVE },
	{ "from-dir", required_argument, NULL, OPT_DIR },
	{ "with-cuda-libs", no_argument, NULL, OPT_CUDA_LIBS },
	{ "add-file", required_argument, NULL, OPT_ADD_FILE },
	{ "revoke", required_argument, NULL, OPT_REVOKE },
	{ "add", required_argument, NULL, OPT_ADD },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "statement-threshold", required_argument, NULL, OPT_STATEMENT_THRESHOLD },
	{ "statement", required_argument, NULL, OPT_STATEMENT },
	{ "counter", required_argument, NULL, OPT_COUNTER },
	{ "expires", required_argument, NULL, OPT_EXPIRES },
	{ "allow-future", no_argument, NULL, OPT_ALLOW_FUTURE },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "level", required_argument, NULL, OPT_LEVEL },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "split", required_argument, NULL, OPT_SPLIT },
	{ "sfx", no_argument, NULL, OPT_SFX },
	{ "unpacker", required_argument, NULL, OPT_UNPACKER },
	{ "cache", required_argument, NULL, OPT_CACHE },
	{ "export", required_argument, NULL, OPT_EXPORT },
	{ "external", no_argument, NULL, OPT_EXTERNAL },
	{ "pub", required_argument, NULL, OPT_PUB },
	{ "signature", required_argument, NULL, OPT_SIGNATURE },
	{ "bundle", required_argument, NULL, OPT_BUNDLE },
	{ "no-unpacker", required_argument, NULL, OPT_NO_UNPACKER },
	{ "offline", no_argument, NULL, OPT_OFFLINE },
	{ "release", required_argument, NULL, OPT_RELEASE },
	{ "valid-days", required_argument, NULL, OPT_VALID_DAYS },
	{ "quiet", no_argument, NULL, 'q' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct cli {
	struct create_options create;
	struct sign_options sign;
	const char *export_dir;
	const char *stub;
	const char *release; /* cuda-json --release */
	struct kit_options kit;
	int force; /* --force: sfx co-signs a stub an unknown key signed */
	struct statement_options statement;
	int quiet, verbose;
};

static int number(const char *s, long long min, long long max, long long *out)
{
	char *end;
	long long v = strtoll(s, &end, 10);
	if (!*s || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_option(struct cli *c, int opt, const char *arg)
{
	struct create_options *o = &c->create;
	long long v;
	switch (opt) {
	case OPT_CUDNN: o->cudnn = arg; return 0;
	case OPT_CUDA: o->cuda = arg; return 0;
	case OPT_PLATFORM: o->platform = arg; return 0;
	case OPT_KEY:
		o->key_path = c->sign.key_path = arg;
		if (c->kit.nkeys == sizeof(c->kit.keys) / sizeof(c->kit.keys[0]))
			return usage_error("more than %zu --key", c->kit.nkeys);
		c->kit.keys[c->kit.nkeys++] = arg;
		return 0;
	case OPT_VALID_DAYS:
		if (number(arg, 1, 3650, &v))
			return usage_error("--valid-days '%s' is not a number of days (1-3650)", arg);
		c->kit.valid_days = (int)v;
		return 0;
	case 'o': o->out = arg; return 0;
	case OPT_MIRROR: o->mirror = arg; o->mirror_given = 1; return 0;
	case OPT_ARCHIVE: o->from_archive = arg; return 0;
	case OPT_DIR: o->from_dir = arg; return 0;
	case OPT_CUDA_LIBS: o->with_cuda_libs = 1; return 0;
	case OPT_OFFLINE: o->offline = 1; return 0;
	case OPT_RELEASE: c->release = arg; return 0;
	case OPT_ADD_FILE:
		if (o->nadd_files == CREATE_MAX_ADD_FILES)
			return usage_error("more than %d --add-file", CREATE_MAX_ADD_FILES);
		o->add_files[o->nadd_files++] = arg;
		return 0;
	case OPT_SFX: o->sfx = 1; return 0;
	case OPT_ALLOW_FUTURE: o->allow_future = 1; return 0;
	case OPT_FORCE: c->force = 1; return 0;
	case OPT_UNPACKER:
		c->stub = arg;
		if (c->kit.nunpackers == KIT_MAX_INPUTS)
			return usage_error("more than %d --unpacker", KIT_MAX_INPUTS);
		c->kit.unpackers[c->kit.nunpackers++] = arg;
		return 0;
	case OPT_BUNDLE:
		if (c->kit.nbundles == KIT_MAX_INPUTS)
			return usage_error("more than %d --bundle", KIT_MAX_INPUTS);
		c->kit.bundles[c->kit.nbundles++] = arg;
		return 0;
	case OPT_NO_UNPACKER: c->kit.no_unpacker = arg; return 0;
	case OPT_STATEMENT: c->kit.statement = arg; return 0;
	case OPT_CACHE: o->cache = arg; return 0;
	case OPT_EXPORT: c->export_dir = arg; return 0;
	case OPT_EXTERNAL: c->sign.external = 1; return 0;
	case OPT_PUB: c->sign.pub_path = arg; return 0;
	case OPT_SIGNATURE: c->sign.signature_path = arg; return 0;
	case 'q': c->quiet = 1; return 0;
	case 'v': c->verbose = 1; return 0;
	case OPT_COUNTER:
		if (number(arg, 0, LLONG_MAX, &v))
			return usage_error("--counter '%s' is not a non-negative integer", arg);
		o->counter = c->statement.counter = (uint64_t)v;
		o->has_counter = c->statement.has_counter = 1;
		return 0;
	case OPT_REVOKE:
	case OPT_ADD: {
		struct statement_options *s = &c->statement;
		int *n = opt == OPT_REVOKE ? &s->nrevoke : &s->nadd;
		if (*n == STATEMENT_MAX_INPUTS)
			return usage_error("more than %d --%s", STATEMENT_MAX_INPUTS,
					   opt == OPT_REVOKE ? "revoke" : "add");
		(opt == OPT_REVOKE ? s->revoke : s->add)[(*n)++] = arg;
		return 0;
	}
	case OPT_THRESHOLD:
	case OPT_STATEMENT_THRESHOLD:
		if (number(arg, 1, 8, &v))
			return usage_error("--%s '%s' is not a number from 1 to 8",
					   opt == OPT_THRESHOLD ? "threshold" : "statement-threshold", arg);
		*(opt == OPT_THRESHOLD ? &c->statement.threshold : &c->statement.statement_threshold) =
			(int)v;
		return 0;
	case OPT_EXPIRES:
		if (number(arg, 1, 36500, &v))
			return usage_error("--expires '%s' is not a number of days (1-36500)", arg);
		o->expires_days = (int)v;
		return 0;
	case OPT_LEVEL:
		if (number(arg, 1, 22, &v))
			return usage_error("--level '%s' is not between 1 and 22", arg);
		o->level = (int)v;
		return 0;
	case OPT_THREADS:
		if (number(arg, 1, 256, &v))
			return usage_error("--threads '%s' is not between 1 and 256", arg);
		o->threads = (int)v;
		return 0;
	case OPT_SPLIT:
		if (strcasecmp(arg, "fat32") == 0)
			o->split = OUTPUT_FAT32_MAX;
		else if (io_parse_size(arg, &o->split) != 0 || o->split < (1u << 20))
			return usage_error("--split '%s' is not a size of at least 1M (e.g. fat32, 2G, "
					   "700M)", arg);
		if (o->split > OUTPUT_FAT32_MAX)
			log_msg(LOG_WARN, "--split %s: parts over 4 GiB - 1 do not fit on FAT32 (use "
				"--split fat32 for a FAT32 stick)", arg);
		return 0;
	default:
		return usage_error("%s", "unknown option");
	}
}

static int print_help(const char *command)
{
	const char *text = bundler_help_for(command);
	if (!text)
		return usage_error("unknown command '%s' (commands: keygen create resolve inspect sign "
				   "split sfx kit cuda-json trust-statement help)", command);
	fputs(text, stdout);
	return 0;
}

static int cmd_keygen(int argc, char **argv)
{
	struct cf_err e = { 0 };
	uint8_t id[32];
	char fp[65], short_id[17];
	for (int i = 0; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return print_help("keygen");
	if (argc != 1)
		return usage_error("%s", "keygen takes one NAME");
	/* A key named like an option is a typo (keygen --hlp), never a wish. */
	if (argv[0][0] == '-' || !argv[0][0])
		return usage_error("keygen: '%s' is not a key name (it may not be empty or start with "
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

static int check_create(const struct cli *c)
{
	const struct create_options *o = &c->create;
	int sources = (o->from_archive != NULL) + (o->from_dir != NULL);
	if (sources > 1)
		return usage_error("%s", "give one of --from-archive and --from-dir");
	if (!o->key_path)
		return usage_error("%s", "--key K.key is required (make one with 'bundler keygen NAME')");
	if (access(o->key_path, R_OK) != 0)
		return usage_error("--key %s: %s (make a key with 'bundler keygen NAME')", o->key_path,
				   strerror(errno));
	const char *source = o->from_archive ? o->from_archive : o->from_dir;
	if (source && access(source, R_OK) != 0)
		return usage_error("%s %s: %s", o->from_archive ? "--from-archive" : "--from-dir", source,
				   strerror(errno));
	if (!o->out)
		return usage_error("%s", "-o OUT is required");
	return 0;
}

/* --sfx: a platform known now (given, or the mirror's default) has its stub found before any
 * download; a source's own platform is checked by create before compression. */
static int sfx_stub_early(const struct cli *c, struct cf_err *e)
{
	const struct create_options *o = &c->create;
	char stub[PATH_MAX];
	if (!o->sfx || (!o->platform && (o->from_dir || o->from_archive)))
		return CF_OK;
	return stub_find(o->platform ? o->platform : "linux-x86_64", c->stub, stub, sizeof(stub), e);
}

static int run_kit(struct cli *c, int argc, char **argv)
{
	struct cf_err e = { 0 };
	if (argc != 0)
		return usage_error("unexpected argument '%s'", argv[0]);
	if (!c->create.out)
		return usage_error("%s", "kit needs -o DIR");
	if (c->create.cudnn && !c->create.key_path)
		return usage_error("%s", "--cudnn needs --key K.key to sign the bundles it builds");
	if (c->create.from_dir || c->create.from_archive || c->create.sfx)
		return usage_error("%s", "kit builds from a mirror (--cudnn) or takes --bundle; make other "
				   "bundles with 'bundler create' first");
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
static int run_statement(struct cli *c, int argc, char **argv)
{
	struct cf_err e = { 0 };
	struct statement_options *s = &c->statement;
	int actions = s->nrevoke + s->nadd + (s->threshold > 0) + (s->statement_threshold > 0);
	if (!!c->sign.key_path == !!c->sign.external)
		return usage_error("%s", "trust-statement needs --key K.key or --external");
	if (c->sign.external && !!c->sign.pub_path != !!c->sign.signature_path)
		return usage_error("%s", "--external takes --pub and --signature together");
	if (argc > 1 || (argc == 1 && (actions || c->create.out)))
		return usage_error("%s", "trust-statement takes actions and -o FILE (a new statement), "
				   "or one FILE (to sign it again), not both");
	s->sign = c->sign;
	if (argc == 1)
		return finish(statement_cosign(argv[0], &c->sign, &e), &e);
	if (!c->create.out)
		return usage_error("%s", "trust-statement needs -o FILE");
	s->out = c->create.out;
	return finish(statement_write(s, &e), &e);
}

static int run_verb(const char *verb, struct cli *c, int argc, char **argv)
{
	struct cf_err e = { 0 };
	int rc;
	if (strcmp(verb, "create") == 0 || strcmp(verb, "resolve") == 0) {
		if (argc != 0)
			return usage_error("unexpected argument '%s'", argv[0]);
		if (strcmp(verb, "resolve") == 0) {
			fetch_global_init();
			rc = create_resolve(&c->create, &e);
			fetch_global_cleanup();
			return finish(rc, &e);
		}
		if ((rc = check_create(c)) != 0)
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
	if (strcmp(verb, "kit") == 0)
		return run_kit(c, argc, argv);
	if (strcmp(verb, "cuda-json") == 0) {
		if (argc != 0)
			return usage_error("unexpected argument '%s'", argv[0]);
		if (!c->create.from_dir || !c->create.out)
			return usage_error("%s", "cuda-json needs --from-dir TOOLKIT and -o DIR");
		struct cudajson_options jo = { .from_dir = c->create.from_dir, .out = c->create.out,
					       .platform = c->create.platform, .release = c->release };
		return finish(cudajson_write(&jo, &e), &e);
	}
	if (strcmp(verb, "trust-statement") == 0)
		return run_statement(c, argc, argv);
	if (strcmp(verb, "help") == 0) {
		if (argc > 1)
			return usage_error("%s", "help takes at most one COMMAND");
		if (argc == 0)
			return fputs(bundler_usage, stdout), 0;
		return print_help(argv[0]);
	}
	if (argc != 1)
		return usage_error("%s takes one BUNDLE", verb);
	if (strcmp(verb, "split") == 0) {
		if (!c->create.split)
			return usage_error("%s", "split needs --split SIZE (e.g. fat32, 2G, 700M)");
		interrupt_install();
		return finish(split_signed(argv[0], c->create.split, &e), &e);
	}
	if (strcmp(verb, "inspect") == 0)
		return finish(inspect_bundle(argv[0], c->export_dir, &e), &e);
	if (strcmp(verb, "sign") == 0) {
		if (!!c->sign.key_path == !!c->sign.external)
			return usage_error("%s", "sign needs --key K.key or --external");
		if (c->sign.external && !!c->sign.pub_path != !!c->sign.signature_path)
			return usage_error("%s", "--external takes --pub and --signature together");
		return finish(sign_bundle(argv[0], &c->sign, &e), &e);
	}
	if (strcmp(verb, "sfx") == 0) {
		if (!!c->sign.key_path == !!c->sign.external)
			return usage_error("%s", "sfx needs --key K.key or --external");
		if (c->sign.external && !!c->sign.pub_path != !!c->sign.signature_path)
			return usage_error("%s", "--external takes --pub and --signature together");
		struct sfx_options so = { .platform = c->create.platform, .unpacker = c->stub,
					  .key_path = c->sign.key_path, .external = c->sign.external,
					  .pub_path = c->sign.pub_path,
					  .signature_path = c->sign.signature_path,
					  .out = c->create.out, .progress = c->create.progress,
					  .force = c->force };
		return finish(sfx_write(argv[0], &so, &e), &e);
	}
	return usage_error("unknown command '%s'", verb);
}

int main(int argc, char **argv)
{
	struct cli c;
	memset(&c, 0, sizeof(c));
	/* A site's own mirror of NVIDIA's redist tree can stand in for NVIDIA's by default. */
	c.create.mirror = getenv("CUFERRY_MIRROR") && *getenv("CUFERRY_MIRROR") ? getenv("CUFERRY_MIRROR")
										    : MIRROR_DEFAULT;
	c.create.expires_days = -1;
	c.create.level = 9;
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(bundler_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 1 : 0;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
		version_print("bundler", MANIFEST_FORMAT);
		printf("libcurl       %s\n", fetch_library_version());
		return 0;
	}
	const char *verb = argv[1];
	if (!bundler_help_for(verb))
		return usage_error("unknown command '%s' (commands: keygen create resolve inspect sign "
				   "split sfx kit cuda-json trust-statement help)", verb);
	if (strcmp(verb, "keygen") == 0)
		return log_init("bundler", LOG_INFO), cmd_keygen(argc - 2, argv + 2);
	log_init("bundler", LOG_INFO); /* warnings while the options are read name this program */
	int opt;
	optind = 2;
	opterr = 0; /* one line of ours, not getopt's and ours */
	while ((opt = getopt_long(argc, argv, "o:qvh", long_options, NULL)) != -1) {
		if (opt == 'h')
			return print_help(verb);
		if (opt == '?')
			return usage_error("unknown option or missing value '%s' for %s", argv[optind - 1],
					   verb);
		if (parse_option(&c, opt, optarg) != 0)
			return 1;
	}
	log_init("bundler", c.quiet ? LOG_WARN : c.verbose ? LOG_DEBUG : LOG_INFO);
	c.create.progress = !c.quiet;
	return run_verb(verb, &c, argc - optind, argv + optind);
}
