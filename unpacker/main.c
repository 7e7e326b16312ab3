/* main.c - unpacker: parse, set up logging, dispatch, report, exit with DESIGN.md §9's code */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/frame.h"
#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "unpacker/cli.h"
#include "unpacker/doctor.h"
#include "unpacker/install.h"
#include "unpacker/probe.h"

/* A .run carries its bundle: with no BUNDLE argument, install from our own file. */
static const char *self_bundle(void)
{
	const char *path = platform_self_path();
	uint8_t tail[SFX_TRAILER_LEN];
	uint64_t off, len;
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	off_t size = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;
	int ok = size > SFX_TRAILER_LEN &&
		 pread(fd, tail, sizeof(tail), size - SFX_TRAILER_LEN) == SFX_TRAILER_LEN &&
		 frame_sfx_parse(tail, &off, &len) == 0;
	if (fd >= 0)
		close(fd);
	return ok ? path : NULL;
}

static void open_log(const struct cli *c)
{
	char *path = NULL;
	if (c->log_file)
		path = xstrdup(c->log_file);
	else if (c->silent && (platform_is_admin() || *c->root))
		path = xasprintf("%s/var/log/cuferry/unpacker.log", c->root);
	else if (c->silent && getenv("HOME"))
		path = xasprintf("%s/.local/state/cuferry/unpacker.log", getenv("HOME"));
	if (!path)
		return;
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		io_mkdirs(dir, 0755);
	}
	if (log_open_file(path) != 0)
		fprintf(stderr, "unpacker: warning: cannot write the log %s: %s\n", path, strerror(errno));
	free(dir);
	free(path);
}

static void write_json(const char *path, const struct cli *c, int rc, const struct cf_err *e,
		       const struct install_result *r, double seconds)
{
	json_t *o = json_pack("{s:s, s:i, s:s, s:s, s:f}", "command", c->verb, "exit_code", rc,
			      "status", cf_status_name(rc), "message", rc ? e->msg : "ok",
			      "duration_s", seconds);
	if (r->bundle_id[0]) {
		json_object_set_new(o, "bundle_id", json_string(r->bundle_id));
		json_object_set_new(o, "dir", json_string(r->dir));
		json_object_set_new(o, "cudnn_version", json_string(r->version));
		json_object_set_new(o, "cuda_variant", json_string(r->cuda_variant));
		json_object_set_new(o, "counter", json_integer((json_int_t)r->counter));
		json_object_set_new(o, "prefix", json_string(r->prefix));
		json_object_set_new(o, "signers", json_string(r->signers));
		json_object_set_new(o, "files", json_integer((json_int_t)r->files));
		json_object_set_new(o, "bytes", json_integer((json_int_t)r->bytes));
		json_object_set_new(o, "already_installed", json_boolean(r->noop));
		json_object_set_new(o, "recovered_interrupted_run", json_boolean(r->recovered));
		json_object_set_new(o, "environment", json_string(r->env_note));
	}
	if (json_dump_file(o, path, JSON_INDENT(2) | JSON_SORT_KEYS) != 0)
		log_msg(LOG_WARN, "cannot write %s", path);
	json_decref(o);
}

static void summarize(const struct cli *c, const struct install_result *r)
{
	if (strcmp(c->verb, "verify") == 0) {
		log_out("verified %s: signed by %s, %llu files, %llu bytes, all hashes match\n",
			r->bundle_id, r->signers, (unsigned long long)r->files, (unsigned long long)r->bytes);
	} else if (r->noop) {
		log_out("%s (counter %llu) is already installed in %s: nothing to do\n", r->dir,
			(unsigned long long)r->counter, r->prefix);
	} else {
		log_out("installed %s (cuDNN %s for CUDA %s) into %s/%s\n", r->bundle_id, r->version,
			r->cuda_variant, r->prefix, r->dir);
		log_out("  signed by %s; %llu files, %llu bytes verified while written\n", r->signers,
			(unsigned long long)r->files, (unsigned long long)r->bytes);
		log_out("  current -> %s\n", r->dir);
		if (r->env_note[0])
			log_out("  environment: %s\n", r->env_note);
	}
}

static int dispatch(const struct cli *c, struct install_options *o, struct install_result *r,
		    struct cf_err *e)
{
	const char *v = c->verb;
	if (!strcmp(v, "install") || !strcmp(v, "verify")) {
		o->bundle = c->arg ? c->arg : self_bundle();
		if (!o->bundle)
			return cf_fail(e, CF_USAGE, "no bundle given");
		int rc = !strcmp(v, "install") ? install_bundle(o, r, e) : verify_bundle(o, r, e);
		if (rc == CF_OK)
			summarize(c, r);
		return rc;
	}
	if (!strcmp(v, "validate"))
		return validate_command(o, c->arg, e);
	if (!strcmp(v, "list"))
		return list_installed(o, e);
	if (!strcmp(v, "env"))
		return env_command(o, c->shell, e);
	if (!strcmp(v, "doctor"))
		return doctor_run(o, e);
	if (!c->arg)
		return cf_fail(e, CF_USAGE, "%s needs an ID (see 'unpacker list')", v);
	return !strcmp(v, "use") ? use_installed(o, c->arg, e) : uninstall_installed(o, c->arg, e);
}

int main(int argc, char **argv)
{
	struct cli c;
	struct cf_err e = { 0 };
	struct install_result r;
	char why[256];
	struct timespec t0, t1;
	/* The library-loading checks: this same binary, re-executed with a clean environment. */
	if (argc >= 2 && strcmp(argv[1], PROBE_FLAG) == 0)
		return probe_main(argc - 2, argv + 2);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(&r, 0, sizeof(r));
	log_init("unpacker", LOG_INFO);
	if (cli_parse(argc, argv, &c, why, sizeof(why)) != 0) {
		fprintf(stderr, "unpacker: %s\ntry 'unpacker --help' for more information\n", why);
		return CF_USAGE;
	}
	if (c.help) {
		fputs(cli_usage, stdout);
		return 0;
	}
	log_init("unpacker", c.silent ? LOG_WARN : c.verbose ? LOG_DEBUG : LOG_INFO);
	open_log(&c);
	struct install_options o = {
		.root = c.root, .prefix = c.prefix, .no_env = c.no_env, .env_user = c.env_user,
		.allow_downgrade = c.allow_downgrade, .allow_expired = c.allow_expired, .force = c.force,
		.progress = !c.silent, .no_validate = c.no_validate, .require_gpu = c.require_gpu,
		.keep_failed = c.keep_failed, .gpu = c.gpu, .quick_validate = c.quick,
		.modulefiles = c.modulefiles,
		.trust = { c.root, c.trust_files, c.ntrust_files, c.fingerprints, c.nfingerprints },
	};
	log_msg(LOG_DEBUG, "command %s %s", c.verb, c.arg ? c.arg : "");
	int rc = dispatch(&c, &o, &r, &e);
	if (rc != 0)
		log_msg(LOG_ERROR, "%s", e.msg);
	log_msg(LOG_DEBUG, "exit %d (%s)", rc, cf_status_name(rc));
	if (c.json_file) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		write_json(c.json_file, &c, rc, &e, &r,
			   (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	}
	log_close_file();
	return rc;
}
