/* layout.c - the names of DESIGN.md §6's layout, spelled once */
#include "unpacker/target/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/platform.h"
#include "manifests/manifest.h"
#include "manifests/platforms.h"
#include "manifests/product.h"

#define META MANIFEST_META_DIR
#define CURRENT "current"
#define STAGING ".staging-"
#define BACKUP ".old-"
#define STATE "state.json"
#define REPORT "report.json"

const char layout_current_name[] = CURRENT;
const char layout_repair_suffix[] = ".cuferry-repair";
const char layout_aside_suffix[] = ".cuferry-aside";
const char layout_install_meta_rel[] = META;
const char layout_install_header_rel[] = META "/header.bin";
const char layout_install_report_rel[] = META "/" REPORT;
const char layout_install_signers_rel[] = META "/signers";

/* A Windows known folder; when the process is not told, Windows' own default for the
 * machine's (a user's data then goes to the machine's ProgramData, which is no worse than
 * guessing a profile path). */
static char *known_folder(enum platform_folder which)
{
	static const char *const fallback[] = { [PLATFORM_FOLDER_PROGRAMS] = "C:\\Program Files",
						[PLATFORM_FOLDER_USER_DATA] = "C:\\ProgramData",
						[PLATFORM_FOLDER_SHARED_DATA] = "C:\\ProgramData" };
	char dir[4096];
	return xstrdup(platform_known_folder(which, dir, sizeof(dir)) == 0 ? dir : fallback[which]);
}

/* Windows: where the shared data lives, ProgramData\cuferry\NAME. */
static char *shared_data(const char *name)
{
	char *dir = known_folder(PLATFORM_FOLDER_SHARED_DATA);
	char *path = xasprintf("%s\\cuferry\\%s", dir, name);
	free(dir);
	return path;
}

/* The layout is this build's platform's (a bundle of another is refused before it is asked):
 * Windows' known folders, or the FHS. */
static int known_folders(void)
{
	return platform_self()->folders == PLATFORM_FOLDERS_KNOWN;
}

const char *layout_current_label(void)
{
	return platform_self()->links_allowed ? "current -> " : "current: ";
}

char *layout_default_prefix(const char *root, const char *prefix, const struct product *product)
{
	const char *stem = product->prefix_stem;
	if (prefix)
		return xstrdup(prefix);
	if (known_folders()) {
		char *dir = known_folder(platform_is_admin() ? PLATFORM_FOLDER_PROGRAMS
							     : PLATFORM_FOLDER_USER_DATA);
		char *path = xasprintf("%s\\cuferry\\%s", dir, stem);
		free(dir);
		return path;
	}
	const char *home = getenv("HOME");
	if (platform_is_admin() || *root || !home || !*home)
		return xasprintf("/opt/%s", stem);
	return xasprintf("%s/.local/opt/%s", home, stem);
}

void layout_init(struct layout *l, const char *root, const char *prefix,
		 const struct product *product)
{
	char sep = platform_dir_separator();
	l->root = root;
	l->product = product;
	l->platform = platform_self();
	l->sep = sep;
	l->registry = l->platform->env_store == PLATFORM_ENV_IN_REGISTRY;
	l->prefix_sys = layout_default_prefix(root, prefix, product);
	l->prefix = xasprintf("%s%s", root, l->prefix_sys);
	l->meta = xasprintf("%s%c" META, l->prefix, sep);
	l->state = xasprintf("%s%c" STATE, l->meta, sep);
	l->state_prev = xasprintf("%s%cstate.prev.json", l->meta, sep);
	l->journal = xasprintf("%s%cjournal.json", l->meta, sep);
	l->lock = xasprintf("%s%clock", l->meta, sep);
	/* Never made on Windows, which has no link to switch: state.json names the current
	 * install there (state_current_install). */
	l->current = xasprintf("%s%c" CURRENT, l->prefix, sep);
	l->env_before = xasprintf("%s%cenv-before.json", l->meta, sep);
	l->modulefiles = xasprintf("%s%cmodulefiles", l->meta, sep);
	const struct product *p = product;
	l->ldconf = xasprintf("%s" LAYOUT_LDCONF_DIR "/%s", root, p->ldconf_name);
	/* NULL when the product never had another name. */
	l->ldconf_legacy = p->ldconf_legacy_name
		? xasprintf("%s" LAYOUT_LDCONF_DIR "/%s", root, p->ldconf_legacy_name) : NULL;
	l->profile = xasprintf("%s" LAYOUT_PROFILE_DIR "/%s", root, p->profile_name);
}

void layout_free(struct layout *l)
{
	free(l->prefix_sys);
	free(l->prefix);
	free(l->meta);
	free(l->state);
	free(l->state_prev);
	free(l->journal);
	free(l->lock);
	free(l->current);
	free(l->env_before);
	free(l->modulefiles);
	free(l->ldconf);
	free(l->ldconf_legacy);
	free(l->profile);
	memset(l, 0, sizeof(*l));
}

char *layout_under(const struct layout *l, const char *name)
{
	return xasprintf("%s%c%s", l->prefix, l->sep, name);
}

char *layout_staging_template(const struct layout *l)
{
	return xasprintf("%s%c" STAGING "XXXXXX", l->prefix, l->sep);
}

char *layout_backup_name(const char *dir, long pid)
{
	return xasprintf(BACKUP "%s-%ld", dir, pid);
}

char *layout_backup_of(const char *name)
{
	const char *dir = name + strlen(BACKUP), *dash = strrchr(name, '-');
	if (!layout_is_backup(name) || !dash || dash <= dir || !dash[1] ||
	    dash[1 + strspn(dash + 1, "0123456789")] != '\0')
		return NULL;
	return xasprintf("%.*s", (int)(dash - dir), dir);
}

int layout_is_staging(const char *name)
{
	return strncmp(name, STAGING, strlen(STAGING)) == 0;
}

int layout_is_backup(const char *name)
{
	return strncmp(name, BACKUP, strlen(BACKUP)) == 0;
}

int layout_is_meta(const char *name)
{
	return strcmp(name, META) == 0;
}

int layout_is_current(const char *name)
{
	return strcmp(name, CURRENT) == 0;
}

static int ends_with(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);
	return n > k && strcmp(name + n - k, suffix) == 0; /* a suffix needs a name in front */
}

int layout_is_repair_temp(const char *name)
{
	return ends_with(name, layout_repair_suffix) || ends_with(name, layout_aside_suffix);
}

/* INSTALL_DIR/.cuferry/NAME with the system's separator throughout: messages show it. */
static char *install_meta_file(const char *install_dir, const char *name)
{
	char sep = platform_dir_separator();
	return xasprintf("%s%c%s%c%s", install_dir, sep, META, sep, name);
}

char *layout_install_header(const char *install_dir)
{
	return install_meta_file(install_dir, "header.bin");
}

char *layout_install_report(const char *install_dir)
{
	return install_meta_file(install_dir, REPORT);
}

char *layout_failed_dir(const struct layout *l, const char *name, const char *stamp)
{
	/* name's last component only, whichever separator a caller split it on. */
	for (const char *c = name; *c; c++)
		if (platform_is_separator(*c))
			name = c + 1;
	return xasprintf("%s%cfailed%c%s-%s", l->meta, l->sep, l->sep, name, stamp);
}

char *layout_failed_report(const char *failed_dir)
{
	return xasprintf("%s%c" REPORT, failed_dir, platform_dir_separator());
}

char *layout_current_sys(const char *prefix_sys, char sep)
{
	return xasprintf("%s%c" CURRENT, prefix_sys, sep);
}

char *layout_current_lib_sys(const char *prefix_sys)
{
	return xasprintf("%s/" CURRENT "/lib", prefix_sys);
}

char *layout_state_of(const char *root, const char *prefix_sys)
{
	char sep = platform_dir_separator();
	return xasprintf("%s%s%c" META "%c" STATE, root, prefix_sys, sep, sep);
}

char *layout_install_sys(const char *prefix_sys, const char *dir)
{
	return xasprintf("%s%c%s", prefix_sys, platform_dir_separator(), dir);
}

char *layout_install_bin_sys(const char *install_sys)
{
	return xasprintf("%s%cbin", install_sys, platform_dir_separator());
}

char *layout_trust_dir(const char *root)
{
	return known_folders() ? shared_data("trusted-keys") : xasprintf("%s/etc/cuferry/trusted-keys", root);
}

char *layout_user_log(void)
{
	if (known_folders()) {
		char *dir = known_folder(PLATFORM_FOLDER_USER_DATA);
		char *path = xasprintf("%s\\cuferry\\unpacker.log", dir);
		free(dir);
		return path;
	}
	const char *home = getenv("HOME");
	return home ? xasprintf("%s/.local/state/cuferry/unpacker.log", home) : NULL;
}

char *layout_system_log(void)
{
	return known_folders() ? shared_data("unpacker.log") : xstrdup("/var/log/cuferry/unpacker.log");
}

char *layout_user_env_rel(const struct product *product)
{
	return xasprintf(".config/cuferry/%s", product->user_env_name);
}

char *layout_user_env(const char *home, const struct product *product)
{
	return xasprintf("%s/.config/cuferry/%s", home, product->user_env_name);
}

char *layout_self_install_dir(void)
{
	if (!known_folders())
		return xstrdup("/usr/local/sbin");
	char *dir = known_folder(PLATFORM_FOLDER_PROGRAMS);
	char *path = xasprintf("%s\\cuferry", dir);
	free(dir);
	return path;
}
