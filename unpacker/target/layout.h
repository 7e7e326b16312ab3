/* layout.h - where everything cuferry keeps lives (DESIGN.md §6): the prefix, its current
 * link, .cuferry/ and what it holds, the staging and backup directories, the environment
 * files. The one place these names are spelled, and the one holder of --root: built once
 * from the prefix and root, then asked. */
#ifndef UNPACKER_LAYOUT_H
#define UNPACKER_LAYOUT_H

/* Paths that are not per prefix, as the system sees them (--root goes in front). */
#define LAYOUT_LDCONF_DIR "/etc/ld.so.conf.d"
#define LAYOUT_PROFILE_DIR "/etc/profile.d"

struct platform_spec;
struct product;

struct layout {
	const char *root;    /* "" or --root DIR: every path below has it in front */
	const struct platform_spec *platform; /* the platform row of this build, which is the
			      * installed bundles' (install refuses another's) */
	const struct product *product; /* what the prefix holds: its names (prefix, environment
			      * files, modulefiles, pkg-config, CMake) are this product's */
	char sep;            /* the system's directory separator: '/', Windows '\\' */
	int registry;        /* the row's fact: the environment lives in the registry, not in
			      * files (and platform->links_allowed: is there a current link) */
	char *prefix_sys;    /* /opt/STEM (the product's prefix_stem): what the system sees */
	char *prefix;        /* ROOT/opt/STEM: where we write */
	char *meta;          /* PREFIX/.cuferry */
	char *state;         /* PREFIX/.cuferry/state.json */
	char *state_prev;    /* PREFIX/.cuferry/state.prev.json: state.json before this run */
	char *journal;       /* PREFIX/.cuferry/journal.json */
	char *lock;          /* PREFIX/.cuferry/lock */
	char *current;       /* PREFIX/current; never made where there are no links (registry
			      * set: Windows), where state_current_install() says what is current */
	char *env_before;    /* PREFIX/.cuferry/env-before.json: the environment files before */
	char *modulefiles;   /* PREFIX/.cuferry/modulefiles: the module directories written */
	char *ldconf;        /* ROOT/etc/ld.so.conf.d/ the product's ldconf_name */
	char *ldconf_legacy; /* ... its ldconf_legacy_name: the name before 00-; NULL when the
			      * product never had another */
	char *profile;       /* ROOT/etc/profile.d/ the product's profile_name */
};

/* prefix: as the system sees it, NULL for the product's default (layout_default_prefix). On
 * Windows the paths are written with '\\' and there is no --root. product: the one the prefix
 * holds (a bundle's m->product, or --product). */
void layout_init(struct layout *l, const char *root, const char *prefix,
		 const struct product *product);
void layout_free(struct layout *l);
/* The prefix as the system sees it: prefix when given, else /opt/STEM for root (or under
 * --root), ~/.local/opt/STEM for a user; Windows: %ProgramFiles%\cuferry\STEM for an
 * Administrator, else %LOCALAPPDATA%\cuferry\STEM (STEM: the product's prefix_stem). */
char *layout_default_prefix(const char *root, const char *prefix, const struct product *product);

/* PREFIX/name: an install directory, a staging or backup directory. */
char *layout_under(const struct layout *l, const char *name);
/* A template for mkdtemp: PREFIX/.staging-XXXXXX. */
char *layout_staging_template(const struct layout *l);
/* ".old-DIR-PID": where a re-installed DIR waits until the new one is committed. */
char *layout_backup_name(const char *dir, long pid);
/* DIR of a backup name ".old-DIR-PID"; NULL when name is not one. Free it. */
char *layout_backup_of(const char *name);
/* What a name directly inside the prefix is. */
int layout_is_staging(const char *name);
int layout_is_backup(const char *name);
int layout_is_meta(const char *name);    /* .cuferry */
int layout_is_current(const char *name); /* current */
extern const char layout_current_name[];  /* current */
/* How a summary names the install made current: "current -> " where the current link points
 * at it, "current: " where state.json alone names it (Windows has no link). */
const char *layout_current_label(void);
/* A repair writes NAME.cuferry-repair beside an installed file, then renames it over it;
 * what stands where a directory (or a file) belongs is renamed to NAME.cuferry-aside first and
 * removed once the repair is done. layout_is_repair_temp: either name. */
extern const char layout_repair_suffix[];
extern const char layout_aside_suffix[];
int layout_is_repair_temp(const char *name);

/* An install's own records, relative to the install directory (for a tree opened with
 * platform_tree_open) and in full. */
extern const char layout_install_meta_rel[];   /* .cuferry */
extern const char layout_install_header_rel[]; /* .cuferry/header.bin */
extern const char layout_install_report_rel[]; /* .cuferry/report.json */
extern const char layout_install_signers_rel[]; /* .cuferry/signers: fingerprints that verified it */
char *layout_install_header(const char *install_dir);
char *layout_install_report(const char *install_dir);
/* PREFIX/.cuferry/failed/NAME-STAMP: a failed install's report kept for later. */
char *layout_failed_dir(const struct layout *l, const char *name, const char *stamp);
/* DIR/report.json inside such a directory. */
char *layout_failed_report(const char *failed_dir);

/* PREFIX_SYS/current and PREFIX_SYS/current/lib as the system sees them; sep is the
 * prefix's own directory separator. */
char *layout_current_sys(const char *prefix_sys, char sep);
char *layout_current_lib_sys(const char *prefix_sys);
/* state.json of the prefix prefix_sys under root (for readers that build no layout). */
char *layout_state_of(const char *root, const char *prefix_sys);

/* PREFIX_SYS/DIR, an install directory as the system sees it, and its bin directory (what
 * the Windows PATH holds). */
char *layout_install_sys(const char *prefix_sys, const char *dir);
char *layout_install_bin_sys(const char *install_sys);
/* The trust directory: ROOT/etc/cuferry/trusted-keys; Windows %ProgramData%\cuferry\trusted-keys. */
char *layout_trust_dir(const char *root);
/* The log of silent runs as the system sees it (--root goes in front): /var/log/cuferry/
 * unpacker.log; Windows %ProgramData%\cuferry\unpacker.log. */
char *layout_system_log(void);
/* The log of a user's silent runs: ~/.local/state/cuferry/unpacker.log (NULL without HOME);
 * Windows %LOCALAPPDATA%\cuferry\unpacker.log. */
char *layout_user_log(void);

/* HOME/.config/cuferry/NAME: the user's environment snippet (--env=user), NAME the product's
 * user_env_name; layout_user_env_rel() is the part below HOME. Free both. */
char *layout_user_env_rel(const struct product *product);
char *layout_user_env(const char *home, const struct product *product);

/* Where self-install puts the unpacker, as the system sees it (Linux /usr/local/sbin, under
 * --root for images; Windows %ProgramFiles%\cuferry). Caller frees. */
char *layout_self_install_dir(void);

#endif
