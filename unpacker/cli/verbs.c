/* verbs.c - what each of the unpacker's commands does with its parsed command line (the
 * command table, cmdtable.c, says which function is whose) */
#include "unpacker/cli/verbs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/bundle/reader.h"
#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "manifests/platforms.h"
#include "manifests/sbom.h"
#include "unpacker/target/choose.h"
#include "unpacker/cli/cli.h"
#include "unpacker/cli/commands.h"
#include "unpacker/cli/install.h"
#include "unpacker/cli/inventory.h"
#include "unpacker/install/opened.h"
#include "unpacker/target/kitcheck.h"
#include "unpacker/target/layout.h"
#include "unpacker/target/progname.h"
#include "unpacker/install/selfinstall.h"
#include "unpacker/target/selfpath.h"
#include "unpacker/target/state.h"
#include "unpacker/cli/trustverbs.h"
#include "unpacker/validate/doctor.h"
#include "unpacker/validate/gpucaps.h"

/* A .run (.exe on Windows) carries its bundle: with no BUNDLE argument, install from our own
 * file (found also when the dynamic loader started us), also when its trailer is gone or
 * damaged (bytes after the program's image, ELF or PE): that is then refused as untrusted
 * (2), not a usage error.
 * Whatever file is read, its stub-signature block is verified before anything else: only a
 * .run that trusted keys signed, stub included, is ever installed from. */
static const char *self_bundle(void)
{
	const char *path = selfpath_program();
	/* A kit's signed unpacker carries a block but no bundle: started bare, it is a usage
	 * error like any unpacker's, not an install of itself. */
	int ok = path && !kitcheck_is_container(path) &&
		 (bundle_file_has_sfx_trailer(path) || selfpath_carries_data(path));
	return ok ? path : NULL;
}

/* A re-run of an installed bundle: what it put back and added, or (dry) would. */
static void summarize_rerun(const struct install_result *r, int dry)
{
	log_out(dry ? "dry run: %s (counter %llu) is installed in %s\n"
		    : "%s (counter %llu) was already installed in %s\n", r->dir,
		(unsigned long long)r->counter, r->prefix);
	if (r->repaired)
		log_out(dry ? "  would put back %llu %s from the bundle (first: %s)\n"
			    : "  repaired: %llu %s put back from the bundle (first: %s)\n",
			(unsigned long long)r->repaired, r->repaired == 1 ? "entry" : "entries",
			r->repaired_first);
	if (r->env_added && dry)
		log_out("  would add the missing environment\n");
	else if (r->env_added)
		log_out("  environment added: %s\n", r->env_note);
}

/* install BUNDLE --dry-run: what the real run would change, claiming only what was looked at. */
static void summarize_dry_run(const struct cli *c, const struct install_result *r)
{
	if (r->recovery_pending)
		log_out("dry run: an interrupted run's journal is in %s: it would be recovered first\n",
			r->prefix);
	if (!strcmp(r->would, "install")) {
		log_out("dry run: would install %s (%s %s for CUDA %s) into %s%c%s\n", r->bundle_id,
			r->product->display, r->version, r->cuda_variant, r->prefix,
			platform_dir_separator(), r->dir);
		log_out("  signed by %s; %llu files, %llu bytes; all hashes match\n", r->signers,
			(unsigned long long)r->files, (unsigned long long)r->bytes);
		log_out("  current: %s -> %s\n",
			r->previous_current[0] ? r->previous_current : "none", r->dir);
		return;
	}
	summarize_rerun(r, 1);
	if (!strcmp(r->would, "nothing"))
		log_out("  %s: nothing would change\n", c->repair
			? "every entry matches its bundle, contents included"
			: "sizes, types, modes and links match (contents not re-hashed: --repair checks them)");
}

static void summarize(const struct cli *c, const struct install_result *r)
{
	if (r->would) {
		summarize_dry_run(c, r);
	} else if (strcmp(c->verb, "verify") == 0) {
		log_out("verified %s: signed by %s, %llu files, %llu bytes, all hashes match\n",
			r->bundle_id, r->signers, (unsigned long long)r->files, (unsigned long long)r->bytes);
	} else if (r->noop) {
		/* Say only what was checked: without --repair, no byte was read. */
		log_out("%s (counter %llu) is already installed in %s; %s: nothing to do\n", r->dir,
			(unsigned long long)r->counter, r->prefix, c->repair
			? "every entry matches its bundle, SHA-256 of each file included"
			: "sizes, types, modes and links match (contents were not re-hashed: --repair "
			  "checks them)");
	} else if (r->rerun) {
		summarize_rerun(r, 0);
	} else {
		log_out("installed %s (%s %s for CUDA %s) into %s%c%s\n", r->bundle_id,
			r->product->display, r->version,
			r->cuda_variant, r->prefix, platform_dir_separator(), r->dir);
		log_out("  signed by %s; %llu files, %llu bytes verified while written\n", r->signers,
			(unsigned long long)r->files, (unsigned long long)r->bytes);
		if (r->kept_current)
			log_out("  current unchanged (--keep-current): '%s use %s' switches to it\n",
				progname(), r->dir);
		else
			log_out("  %s%s\n", layout_current_label(), r->dir);
		if (r->replaced_variant[0])
			log_out("  replaced %s %s for CUDA %s as current (the same version, another "
				"CUDA variant)\n", r->product->display, r->version, r->replaced_variant);
		if (r->env_note[0])
			log_out("  environment: %s\n", r->env_note);
	}
}

/* What the chooser is told of the GPUs: their compute capabilities, read here through the
 * unprivileged probe (the chooser's layer cannot load anything); for --platform of another
 * kind of machine, none (these GPUs are not that machine's). */
static void read_gpus(const struct cli *c, struct choose_gpus *g)
{
	if (c->platform && strcmp(c->platform, platform_self()->name) != 0) {
		memset(g, 0, sizeof(*g));
		snprintf(g->why, sizeof(g->why), "--platform %s: this machine's GPUs are not that "
			 "machine's", c->platform);
		return;
	}
	gpucaps_read(g);
}

/* install DIR: the bundle of the kit that fits this machine; --dry-run only says which. */
static int install_from_kit(const struct cli *c, struct install_options *o,
			    struct install_result *r, struct cf_err *e)
{
	static char chosen[4096];
	static struct choose_gpus gpus;
	struct layout p;
	struct state installed;
	struct cf_err unread = { 0 };
	layout_init(&p, o->root, o->prefix, o->product);
	/* A state that cannot be read is the install's to report; the chooser then judges alone. */
	int have_state = state_load(p.state, &installed, &unread) == CF_OK;
	struct choose_options co = { o->product, c->root, o->trust, c->cuda, c->platform,
				     have_state ? &installed : NULL,
				     { o->allow_downgrade, o->keep_current }, NULL, NULL };
	char *dir = NULL;
	struct kitcheck kit;
	memset(&kit, 0, sizeof(kit));
	/* A signed kit's index first: who signed it, and whether it is still valid; then its
	 * trust statement, before any bundle is judged by the keys it may revoke. Only the
	 * bundles its index lists are considered. */
	int rc = io_is_dir(o->bundle) ? kitcheck_verify_kit(o->bundle, &o->trust, c->allow_expired, 0,
							    &dir, &kit, e) : CF_OK;
	co.index = kit.signed_kit ? &kit.index : NULL;
	if (rc == CF_OK && dir)
		rc = trustverbs_apply_kit(c->root, dir, &kit, c->dry_run, e);
	if (rc == CF_OK) {
		read_gpus(c, &gpus);
		co.gpus = &gpus;
		rc = choose_bundle(dir ? dir : o->bundle, &co, chosen, sizeof(chosen), e);
	}
	free(dir);
	if (have_state)
		state_free(&installed);
	layout_free(&p);
	if (rc == CF_OK && c->dry_run) {
		char safe[4096];
		log_out("dry run: would install %s\n", log_escape(chosen, safe, sizeof(safe)));
	} else if (rc == CF_OK) {
		/* The chooser compared sizes only (it reads every candidate's header, never all
		 * of their bytes); the bundle installed is hashed against the index as it is
		 * opened (bundletrust_open_listed). */
		o->bundle = chosen;
		o->kit_index = co.index;
		rc = install_bundle(o, r, e);
		o->kit_index = NULL;
		if (rc == CF_OK)
			summarize(c, r);
		if (rc == CF_OK && c->remember)
			rc = trustverbs_remember(o, e);
	}
	kitcheck_close(&kit);
	return rc;
}


/* install BUNDLE and verify BUNDLE: the bundle given, or the one this .run carries. */
static int bundle_given(const struct cli *c, struct install_options *o, struct cf_err *e)
{
	o->bundle = c->arg ? c->arg : self_bundle();
	return o->bundle ? CF_OK : cf_fail(e, CF_USAGE, "no bundle given");
}

/* What a verified install or verify says, and --remember's keys once it worked. */
static int after(const struct cli *c, const struct install_options *o,
		 const struct install_result *r, int rc, struct cf_err *e)
{
	if (rc == CF_OK)
		summarize(c, r);
	if (rc == CF_OK && c->remember)
		rc = trustverbs_remember(o, e);
	return rc;
}

VERB(install)
{
	int rc = bundle_given(c, o, e);
	if (rc != CF_OK)
		return rc;
	if (io_is_dir(o->bundle) || c->cuda || c->platform)
		return install_from_kit(c, o, r, e);
	rc = c->dry_run ? install_dry_run(o, r, e) : install_bundle(o, r, e);
	return after(c, o, r, rc, e);
}

/* verify BUNDLE --sbom KIND or --provenance: the stored document on stdout, and nothing else,
 * once every check passed; a failed check prints nothing and exits as verify does. */
static int verify_sbom(const struct cli *c, struct install_options *o, struct install_result *r,
		       struct cf_err *e)
{
	enum sbom_kind kind = SBOM_PROVENANCE;
	const char *option = c->sbom ? "--sbom" : "--provenance";
	if (c->sbom && c->provenance)
		return cf_fail(e, CF_USAGE, "--sbom and --provenance print one document each: give one");
	if (c->sbom && sbom_kind_parse(c->sbom, &kind) != 0)
		return cf_fail(e, CF_USAGE, "--sbom '%s': cyclonedx or spdx", c->sbom);
	if (c->arg && (io_is_dir(c->arg) || kitcheck_is_container(c->arg)))
		return cf_fail(e, CF_USAGE, "%s reads a bundle, not a kit or a container", option);
	char *text = NULL;
	size_t len = 0;
	int rc = bundle_given(c, o, e);
	if (rc == CF_OK)
		rc = verify_bundle_sbom(o, kind, r, &text, &len, e);
	if (rc == CF_OK && (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0))
		rc = cf_fail(e, CF_INSTALL, "cannot write the %s to stdout",
			     c->sbom ? "SBOM" : "provenance record");
	free(text);
	return rc;
}

VERB(verify)
{
	if (c->sbom || c->provenance)
		return verify_sbom(c, o, r, e);
	if (c->arg && io_is_dir(c->arg)) {
		char *dir = NULL;
		int rc = kitcheck_verify_kit(c->arg, &o->trust, c->allow_expired, 1, &dir, NULL, e);
		free(dir);
		return rc;
	}
	if (c->arg && kitcheck_is_container(c->arg))
		return kitcheck_verify_container(c->arg, &o->trust, e);
	int rc = bundle_given(c, o, e);
	return rc == CF_OK ? after(c, o, r, verify_bundle(o, r, e), e) : rc;
}

VERB(self_install)
{
	(void)r;
	struct selfinstall_options so = { c->root, &o->trust, c->allow_downgrade, c->allow_expired };
	return selfinstall_run(c->arg, &so, e);
}

VERB(validate)
{
	return validate_command(o, c->arg, r, e);
}

VERB(list)
{
	(void)c, (void)r;
	return list_installed(o, e);
}

/* use ID and uninstall ID: the ID is there (the table's row says it is required). */
VERB(use)
{
	(void)r;
	return use_installed(o, c->arg, e);
}

VERB(uninstall)
{
	(void)r;
	return uninstall_installed(o, c->arg, e);
}

VERB(env)
{
	(void)r;
	return env_command(o, c->shell, e);
}

VERB(doctor)
{
	(void)c, (void)r;
	return doctor_run(o, e);
}

VERB(inventory)
{
	struct inventory_options io = { c->deep, c->json_file && strcmp(c->json_file, "-") == 0 };
	return inventory_run(o, &io, &r->inventory, e);
}

VERB(trust_list)
{
	(void)c, (void)r;
	return trustverbs_list(o->root, e);
}

VERB(trust_add)
{
	(void)r;
	return trustverbs_add(o->root, c->arg, c->fingerprint, e);
}

VERB(trust_remove)
{
	(void)r;
	return trustverbs_remove(o->root, c->arg, e);
}

VERB(trust_threshold)
{
	(void)r;
	return trustverbs_threshold(o->root, c->arg, e);
}

VERB(trust_statement_threshold)
{
	(void)r;
	return trustverbs_statement_threshold(o->root, c->arg, e);
}

VERB(trust_apply)
{
	(void)r;
	return trustverbs_apply(o->root, c->arg, e);
}

VERB(trust_reset_clock)
{
	(void)c, (void)r;
	return trustverbs_reset_clock(o, e);
}
