/* main.c - unpacker: parse, set up logging, dispatch, report, exit with DESIGN.md §9's code */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bundle/sfx.h"
#include "common/interrupt.h"
#include "common/io.h"
#include "common/version.h"
#include "common/log.h"
#include "common/platform.h"
#include "manifests/manifest.h"
#include "manifests/product.h"
#include "unpacker/cli/cli.h"
#include "unpacker/cli/cmdtable.h"
#include "unpacker/target/result.h"
#include "unpacker/target/layout.h"
#include "unpacker/target/productline.h"
#include "unpacker/target/progname.h"
#include "unpacker/validate/probe.h"
#include "unpacker/target/selfpath.h"
#include "unpacker/target/safepath.h"
#include "unpacker/target/trust.h"
#include "signing/verify.h"

/* Marks this program as a cuferry unpacker: the bundler embeds no other file as a .run's stub.
 * "retain" keeps it through --gc-sections (the glibc-floor link drops unreferenced data). */
__attribute__((used, retain)) static const char stub_marker[] = SFX_STUB_MARKER_HEAD SFX_STUB_MARKER_TAIL;
/* Its version, for self-install's downgrade rule (common/bundle/sfx.h). */
__attribute__((used, retain)) static const char version_marker[] = SFX_VERSION_MARKER CUFERRY_VERSION;

/* --json FILE from a command line that did not parse: the report still has a place to go. */
static const char *json_arg(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--json=", 7) == 0 && argv[i][7])
			return argv[i] + 7;
		if (strcmp(argv[i], "--json") == 0 && i + 1 < argc)
			return argv[i + 1];
	}
	return NULL;
}

/* The keys compiled in (make TRUSTED_KEYS=...), by fingerprint, for --version. */
extern const char *const trusted_keys_pem[];
static void print_compiled_keys(void)
{
	size_t n = 0;
	for (size_t i = 0; trusted_keys_pem[i]; i++, n++) {
		uint8_t der[512], id[32];
		size_t len;
		char fp[65];
		struct cf_err ignored = { 0 };
		if (sig_pubkey_parse((const uint8_t *)trusted_keys_pem[i], strlen(trusted_keys_pem[i]),
				     der, &len, &ignored) != CF_OK) {
			printf("trusted key   %zu: unusable\n", i + 1);
			continue;
		}
		sig_keyid(der, len, id);
		sig_fingerprint(id, fp);
		printf("trusted key   %s (compiled in)\n", fp);
	}
	if (n == 0)
		printf("trusted keys  none compiled in (make TRUSTED_KEYS=a.pub,...)\n");
}

/* A change of what the host trusts (a trust verb, install --remember) is logged to the
 * system log in every mode. */
static int trust_change(const struct cli *c)
{
	return c->remember ||
	       (strcmp(c->verb, "trust") == 0 && c->trust_sub && strcmp(c->trust_sub, "list") != 0);
}

/* The log's directory is checked like the prefix (DESIGN.md §6) before anything is written. */
static int open_log(const struct cli *c, struct cf_err *e)
{
	char *path = NULL;
	const char *root = "";
	if (c->log_file) {
		char cwd[4096];
		path = platform_path_is_absolute(c->log_file) || platform_current_dir(cwd, sizeof(cwd)) != 0
			       ? xstrdup(c->log_file)
			       : xasprintf("%s%c%s", cwd, platform_dir_separator(), c->log_file);
	} else if (c->dry_run) {
		/* A dry run writes nothing, the system log included (--log FILE still works). */
	} else if ((c->silent || trust_change(c)) && (platform_is_admin() || *c->root)) {
		path = layout_system_log();
		root = c->root;
	} else if (c->silent) {
		path = layout_user_log();
	}
	if (!path)
		return CF_OK;
	char *dir = xstrdup(path), *slash = NULL;
	for (char *at = dir; *at; at++)
		if (platform_is_separator(*at))
			slash = at;
	if (slash)
		*slash = '\0';
	int absolute = platform_path_is_absolute(path);
	int rc = absolute ? safepath_check_log_dir(root, dir, e) : CF_OK;
	char *full = xasprintf("%s%s", root, path), *full_dir = xasprintf("%s%s", root, dir);
	if (rc == CF_OK) {
		io_mkdirs(full_dir, 0755);
		/* Again once it exists: one planted between the check and mkdir is caught here. */
		rc = absolute ? safepath_check_log_dir(root, dir, e) : CF_OK;
	}
	if (rc == CF_OK) {
		if (log_open_file(full) != 0)
			fprintf(stderr, "unpacker: warning: cannot write the log %s: %s\n", full,
				platform_strerror(errno));
	}
	free(full);
	free(full_dir);
	free(dir);
	free(path);
	return rc;
}

/* As root, the --json report's directory passes the log's rule (DESIGN.md §6): a user who
 * may write there could plant a hard link under the report's name, or race it. */
static int json_dir_check(const char *path, struct cf_err *e)
{
	return safepath_check_file_dir(path, "the --json report's directory", 1, e);
}

/* --trust: every key read once, here, before any work: the key that verifies is the key that
 * --remember stores, whatever the file's name holds later. */
static int read_trust_keys(const struct cli *c, struct trust_key *keys, struct cf_err *e)
{
	int rc = CF_OK;
	for (size_t i = 0; rc == CF_OK && i < c->ntrust_files; i++)
		rc = trust_key_file_read(c->trust_files[i], "--trust", &keys[i], e);
	return rc;
}

/* "a, b" lists (signers) as JSON arrays. */
static json_t *list_array(const char *text)
{
	json_t *a = json_array();
	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, ",");
		json_array_append_new(a, json_stringn(p, n));
		p += n;
		p += strspn(p, ", ");
	}
	return a;
}

static void write_json(const char *path, const struct cli *c, int rc, const struct cf_err *e,
		       const struct install_result *r, double seconds)
{
	json_t *o = json_pack("{s:s, s:i, s:s, s:s, s:f}", "command", c->verb ? c->verb : "usage",
			      "exit_code", rc, "status", cf_status_name(rc), "message",
			      rc ? e->msg : "ok", "duration_s", seconds);
	if (r->bundle_id[0]) {
		json_t *env = json_array();
		for (int i = 0; i < 2; i++)
			if (r->env_paths[i][0])
				json_array_append_new(env, json_string(r->env_paths[i]));
		json_object_set_new(o, "bundle_id", json_string(r->bundle_id));
		json_object_set_new(o, "dir", json_string(r->dir));
		char key[64];
		productline_version_key(r->product ? r->product : product_default(), key, sizeof(key));
		json_object_set_new(o, key, json_string(r->version));
		json_object_set_new(o, "cuda_variant", json_string(r->cuda_variant));
		json_object_set_new(o, "counter", json_integer((json_int_t)r->counter));
		json_object_set_new(o, "prefix", json_string(r->prefix));
		json_object_set_new(o, "signers", list_array(r->signers));
		json_object_set_new(o, "files", json_integer((json_int_t)r->files));
		json_object_set_new(o, "bytes", json_integer((json_int_t)r->bytes));
		json_object_set_new(o, "already_installed", json_boolean(r->noop || r->rerun));
		json_object_set_new(o, "repaired_files", json_integer((json_int_t)r->repaired));
		json_object_set_new(o, "environment_added", json_boolean(r->env_added));
		json_object_set_new(o, "recovered_interrupted_run", json_boolean(r->recovered));
		json_object_set_new(o, "environment", env);
		json_object_set_new(o, "environment_note", json_string(r->env_note));
		if (r->would && rc == CF_OK) /* what would change; a refusal has none */
			json_object_set_new(o, "dry_run", json_string(r->would));
		char timings[512];
		install_timings_text(r, timings, sizeof(timings));
		json_t *t = json_loads(timings, 0, NULL);
		if (t)
			json_object_set_new(o, "timings_s", t);
		t = r->validation_timings[0] ? json_loads(r->validation_timings, 0, NULL) : NULL;
		if (t)
			json_object_set_new(o, "validation_timings_s", t);
	}
	/* install and validate alike: every step, GPU row, detail and timing (report.json's). */
	json_t *v = r->validation_report ? json_loads(r->validation_report, 0, NULL) : NULL;
	if (v)
		json_object_set_new(o, "validation", v);
	json_t *inv = r->inventory ? json_loads(r->inventory, 0, NULL) : NULL;
	if (inv)
		json_object_set_new(o, "inventory", inv);
	/* Written beside its name and renamed over it: a hard link planted under the name (in a
	 * shared directory, written as root) is replaced, never written through. A name that is
	 * there but no regular file (a link, a FIFO, a device, /dev/stdout) is refused, never
	 * replaced or followed. */
	char *text = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS);
	struct platform_stat st;
	struct cf_err unsafe = { 0 };
	if (strcmp(path, "-") == 0) /* --json -: on stdout, after whatever the command printed */
		printf("%s\n", text ? text : "{}");
	else if (json_dir_check(path, &unsafe) != CF_OK)
		log_msg(LOG_WARN, "cannot write %s: %s", path, unsafe.msg);
	else if (platform_lstat(path, &st) == 0 && st.type != PLATFORM_TYPE_FILE)
		log_msg(LOG_WARN, "cannot write %s: it is not a regular file (a link, a FIFO or a "
			"device is never written through)", path);
	else if (!text || io_write_file_atomic(path, text, strlen(text), 0644) != 0)
		log_msg(LOG_WARN, "cannot write %s: %s", path, platform_strerror(errno));
	free(text);
	json_decref(o);
}

/* Every exit after the command line parsed: the log's last line, the --json report. */
static int finish(const struct cli *c, int rc, const struct cf_err *e,
		  const struct install_result *r, double started)
{
	log_msg(LOG_DEBUG, "exit %d (%s)", rc, cf_status_name(rc));
	if (c->json_file)
		write_json(c->json_file, c, rc, e, r, platform_elapsed_s() - started);
	free(r->validation_report);
	free(r->inventory);
	log_close_file();
	return rc;
}

int main(int argc, char **argv)
{
	struct cli c;
	struct cf_err e = { 0 };
	struct install_result r;
	char why[256];
	/* Before anything else: no library this program names is looked for beside it or in the
	 * working directory (Windows: a DLL on the stick next to a .exe). */
	if (platform_lib_search_system_only() != 0) {
		fprintf(stderr, "unpacker: cannot restrict the library search to the system's "
			"directory: %s\n", platform_strerror(errno));
		return CF_INSTALL;
	}
	/* The library-loading checks: this same binary, re-executed with a clean environment;
	 * what the product loads by name is found where an installed program finds it. */
	if (argc >= 2 && strcmp(argv[1], PROBE_FLAG) == 0) {
		if (platform_lib_search_as_installed() != 0) {
			fprintf(stderr, "unpacker: bad internal probe: cannot set its library search: "
				"%s\n", platform_strerror(errno));
			return 2;
		}
		return probe_main(argc - 2, argv + 2);
	}
	/* Our own file, held from here on: a probe child is started from exactly this file, never
	 * from one that replaced it meanwhile (Windows: a .exe on a stick). */
	if (platform_self_hold() != 0) {
		fprintf(stderr, "unpacker: cannot hold this program's own file open: %s\n",
			platform_strerror(errno));
		return CF_INSTALL;
	}
	selfpath_init(argv[0]);
	/* Line by line on a pipe too, stdout and stderr in the order written (log.c flushes
	 * stdout before each message; Windows' C runtime has no line buffering, hence both). */
	setvbuf(stdout, NULL, _IOLBF, BUFSIZ);
	double started = platform_elapsed_s();
	memset(&r, 0, sizeof(r));
	log_init("unpacker", LOG_INFO);
	if (selfpath_check_loader_start(why, sizeof(why)) != 0) {
		fprintf(stderr, "unpacker: %s\n", why);
		return CF_INCOMPATIBLE;
	}
	/* For the shell completion: the table's words, and nothing else is done. */
	if (argc >= 2 && strcmp(argv[1], "--complete-words") == 0) {
		int rc = cmd_complete_words(argc - 2, argv + 2, &e);
		if (rc != CF_OK)
			fprintf(stderr, "unpacker: %s\n", e.msg);
		return rc;
	}
	if (cli_parse(argc, argv, cmd_table, &c, why, sizeof(why)) != 0) {
		if (c.why_names_help)
			fprintf(stderr, "unpacker: %s\n", why);
		else
			fprintf(stderr, "unpacker: %s\ntry '%s help' or '%s COMMAND --help' for more "
				"information\n", why, progname(), progname());
		/* Scripts read the report even when the command line was wrong. */
		const char *json = c.json_file ? c.json_file : json_arg(argc, argv);
		if (json) {
			snprintf(e.msg, sizeof(e.msg), "%s", why);
			c.verb = NULL;
			write_json(json, &c, CF_USAGE, &e, &r, 0.0);
		}
		return CF_USAGE;
	}
	if (c.version) {
		version_print("unpacker", MANIFEST_FORMAT);
		print_compiled_keys();
		c.verb = "version";
		return finish(&c, CF_OK, &e, &r, started);
	}
	if (c.help) {
		cmd_print_help(c.verb_given ? c.verb : NULL, &e);
		c.verb = "help";
		return finish(&c, CF_OK, &e, &r, started);
	}
	int rc = CF_OK;
	/* (what a command does not take at all the table refused: --cuda and --dry-run go with
	 * install only) */
	if (c.platform && !c.dry_run) {
		rc = cf_fail(&e, CF_USAGE, "%s",
			     "--platform only goes with --dry-run (a bundle installs on its own platform)");
		fprintf(stderr, "unpacker: %s\ntry '%s --help' for more information\n", e.msg,
			progname());
		return finish(&c, rc, &e, &r, started);
	}
	interrupt_install();
	log_init("unpacker", c.silent ? LOG_WARN : c.verbose ? LOG_DEBUG : LOG_INFO);
	if (open_log(&c, &e) != CF_OK) {
		log_msg(LOG_ERROR, "%s", e.msg);
		return finish(&c, e.code, &e, &r, started);
	}
	/* Like the log's: refused before any work, and then no report is written at all. */
	if (c.json_file && strcmp(c.json_file, "-") != 0 && json_dir_check(c.json_file, &e) != CF_OK) {
		log_msg(LOG_ERROR, "%s", e.msg);
		c.json_file = NULL;
		return finish(&c, e.code, &e, &r, started);
	}
	char *given = c.prefix ? safepath_prefix_trim(c.prefix) : NULL;
	if (given && safepath_prefix_rule_as(given, c.prefix_option ? c.prefix_option : "--prefix",
					     why, sizeof(why)) != 0) {
		free(given);
		rc = cf_fail(&e, CF_USAGE, "%s", why);
		log_msg(LOG_ERROR, "%s", why);
		return finish(&c, rc, &e, &r, started);
	}
	char *prefix = given ? safepath_prefix_native(given) : NULL;
	free(given);
	struct trust_key *trust_keys = xcalloc(CLI_MAX_TRUST, sizeof(*trust_keys));
	struct install_options o = {
		.root = c.root, .prefix = prefix, .no_env = c.no_env, .env_user = c.env_user,
		.allow_downgrade = c.allow_downgrade, .keep_current = c.keep_current, .allow_expired = c.allow_expired, .force = c.force,
		.progress = !c.silent, .no_validate = c.no_validate, .require_gpu = c.require_gpu,
		.keep_failed = c.keep_failed, .gpu = c.gpu, .quick_validate = c.quick,
		.modulefiles = c.modulefiles,
		.product = c.product ? product_find(c.product) : product_default(),
		.product_given = c.product != NULL,
		.trust = { c.root, trust_keys, c.ntrust_files, c.fingerprints, c.nfingerprints },
	};
	o.repair = c.repair;
	log_msg(LOG_DEBUG, "command %s %s", c.verb, c.arg ? c.arg : "");
	rc = cli_check_inputs(&c, why, sizeof(why));
	if (rc != 0)
		cf_fail(&e, rc, "%s", why);
	else
		rc = read_trust_keys(&c, trust_keys, &e);
	if (rc == CF_OK)
		rc = c.command->run(&c, &o, &r, &e);
	if (rc != 0)
		log_msg(LOG_ERROR, "%s", e.msg);
	free(trust_keys);
	free(prefix);
	return finish(&c, rc, &e, &r, started);
}
