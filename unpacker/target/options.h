/* options.h - what a command is asked: the options every verb's function takes (install,
 * verify, validate, list, use, uninstall, env, doctor, trust), below every layer that reads them */
#ifndef UNPACKER_TARGET_OPTIONS_H
#define UNPACKER_TARGET_OPTIONS_H

#include "unpacker/target/trust.h"

struct product;
struct kitindex;

struct install_options {
	const char *bundle;
	const char *root;   /* "" or --root DIR */
	const char *prefix; /* as the system sees it; NULL for the product's default */
	const struct product *product; /* --product (the default product when not given): whose
				       * prefix the commands on what is installed act on, whose
				       * bundles a kit's chooser considers; install BUNDLE takes the
				       * bundle's own (m->product) */
	int product_given;  /* --product was given: install BUNDLE checks the bundle is of it */
	struct trust_sources trust;
	int no_env;
	int env_user;
	int allow_downgrade;
	int keep_current; /* an older version installs beside; current is not switched */
	int allow_expired;
	int force;
	int progress;
	int no_validate;
	int require_gpu;
	int keep_failed;
	int gpu;
	int quick_validate;
	int repair; /* a re-run compares SHA-256 too, not only sizes */
	const char *modulefiles; /* --modulefiles DIR (as the system sees it), or NULL */
	/* install KIT: the chosen bundle's files must be as the kit's signed index lists them
	 * (name, size, SHA-256); NULL for a bundle given by name or a kit without an index */
	const struct kitindex *kit_index;
};

#endif
