/* windoctor.c - the product's DLLs of a Windows machine, and which one a program gets */
#include "unpacker/validate/windoctor.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "unpacker/target/layout.h"
#include "unpacker/target/leftovers.h"
#include "unpacker/target/state.h"
#include "manifests/product.h"
#include "unpacker/validate/dllsearch.h"
#include "manifests/product.h"
#include "unpacker/validate/libname.h"

#define MAX_COPIES 128

struct dll_copy {
	char path[DLLSEARCH_PATH]; /* as the system names the file (links resolved) */
	char version[64];
	char where[512];         /* every place that lists it: System32, the user's PATH, … */
	int native;              /* a 64-bit DLL: one a 64-bit program can load */
};

struct dll_survey {
	const struct product *product; /* whose DLLs: the layout's (its dll_stem) */
	struct dll_copy copies[MAX_COPIES];
	size_t n;
	const char *dir;         /* the directory being listed, and why it is looked at */
	const char *where;
};

static int is_product_dll(const struct product *prod, const char *name)
{
	if (!prod->dll_stem)
		return 0; /* no Windows build: no DLL of it is ours to list */
	size_t n = strlen(name), p = strlen(prod->dll_stem);
	return n > p + 4 && strncasecmp(name, prod->dll_stem, p) == 0 &&
	       strcasecmp(name + n - 4, ".dll") == 0;
}

static int add_file(const char *name, void *ctx)
{
	struct dll_survey *s = ctx;
	char real[DLLSEARCH_PATH];
	if (!is_product_dll(s->product, name))
		return 0;
	char *path = xasprintf("%s\\%s", s->dir, name);
	struct platform_stat st;
	int ok = platform_stat(path, &st) == 0 && st.type == PLATFORM_TYPE_FILE &&
		 platform_realpath(path, real, sizeof(real)) == 0;
	free(path);
	if (!ok)
		return 0;
	struct dll_copy *c = NULL;
	for (size_t i = 0; i < s->n && !c; i++)
		if (strcasecmp(s->copies[i].path, real) == 0)
			c = &s->copies[i];
	if (!c && s->n < MAX_COPIES) {
		c = &s->copies[s->n++];
		snprintf(c->path, sizeof(c->path), "%s", real);
		if (dllsearch_version(real, c->version, sizeof(c->version)) != 0)
			snprintf(c->version, sizeof(c->version), "unknown");
		c->native = dllsearch_is_native(real);
	}
	if (c && !strstr(c->where, s->where)) {
		size_t used = strlen(c->where);
		snprintf(c->where + used, sizeof(c->where) - used, "%s%s", used ? ", " : "", s->where);
	}
	return 0;
}

static void survey_dir(struct dll_survey *s, const char *dir, const char *where)
{
	s->dir = dir;
	s->where = where;
	platform_dir_list(dir, add_file, s);
}

static void survey_search(const char *dir, const char *source, void *ctx)
{
	struct dll_survey *s = ctx;
	survey_dir(s, dir, dllsearch_source_text(source));
	if (strcmp(source, "Windows") == 0) { /* 32-bit programs' System32 */
		char *wow = xasprintf("%s\\SysWOW64", dir);
		survey_dir(s, wow, "SysWOW64 (32-bit programs only)");
		free(wow);
	}
}

/* CUDA_PATH as the machine stores it (the toolkit's installer sets it there), else ours. */
static void survey_cuda_path(struct dll_survey *s)
{
	char *value = NULL;
	int expandable = 0;
	const char *cuda = platform_env_read(PLATFORM_ENV_MACHINE, "CUDA_PATH", &value, &expandable) == 0
				   ? value : getenv("CUDA_PATH");
	if (cuda && *cuda) {
		char *bin = xasprintf("%s\\bin", cuda);
		survey_dir(s, bin, "%CUDA_PATH%\\bin");
		free(bin);
	}
	free(value);
}

/* The current install's directory (state.json: Windows has no `current` link) and its
 * major; NULL when nothing is current. */
static char *current_install(const struct layout *l, char *major, size_t size)
{
	struct state st;
	struct cf_err ignored = { 0 };
	char *dir = NULL;
	snprintf(major, size, "%s", l->product->soname_major ? l->product->soname_major : "9");
	if (state_load(l->state, &st, &ignored) != CF_OK)
		return NULL;
	const struct state_bundle *b = st.current ? state_find(&st, st.current) : NULL;
	if (b) {
		dir = layout_under(l, b->dir);
		if (b->version && isdigit((unsigned char)b->version[0])) /* 0 is a major too */
			snprintf(major, size, "%d", atoi(b->version));
	}
	state_free(&st);
	return dir;
}

int windoctor_run(const struct install_options *o, struct cf_err *e)
{
	struct layout l;
	layout_init(&l, o->root, o->prefix, o->product);
	struct dll_survey *s = xcalloc(1, sizeof(*s));
	s->product = l.product;
	char major[16], name[64], ours[DLLSEARCH_PATH] = "", got[DLLSEARCH_PATH] = "";
	char *dir = current_install(&l, major, sizeof(major));
	libname_main(l.product, major, name, sizeof(name));
	if (dir) {
		char *mine = libname_main_path(l.product, dir, major), *bin = libname_dir(dir);
		if (platform_realpath(mine, ours, sizeof(ours)) != 0)
			ours[0] = '\0';
		survey_dir(s, bin, "this install");
		free(bin);
		free(mine);
	}
	dllsearch_dirs(survey_search, s);
	survey_cuda_path(s);
	struct dll_hit hit = { .source = NULL };
	int found = dllsearch_first(name, &hit) == 0 && platform_realpath(hit.path, got, sizeof(got)) == 0;
	const struct dll_copy *winner = NULL;
	for (size_t i = 0; found && i < s->n; i++)
		if (strcasecmp(s->copies[i].path, got) == 0)
			winner = &s->copies[i];
	log_out("%s DLLs on this machine (System32, SysWOW64, the machine's and the user's PATH, "
		"%%CUDA_PATH%%\\bin):\n", l.product->display);
	if (s->n == 0)
		log_out("  (none)\n");
	for (size_t i = 0; i < s->n; i++) {
		const struct dll_copy *c = &s->copies[i];
		log_out("  %s %-12s %s\n", c == winner ? "=>" : "  ", c->version, c->path);
		log_out("                in: %s%s\n", c->where, c->native ? "" : " (not a 64-bit DLL: never loaded by a 64-bit program)");
	}
	int rc = CF_OK;
	if (found)
		log_out("a program loading %s gets %s (version %s, through %s)\n", name, got,
			winner ? winner->version : "unknown", dllsearch_source_text(hit.source));
	else
		log_out("a program loading %s finds none\n", name);
	if (!dir) {
		log_out("nothing is installed as current in %s\n", l.prefix);
	} else if (found && strcasecmp(got, ours) == 0) {
		log_out("the installed copy wins: nothing shadows it\n");
	} else if (found) {
		int system = strcmp(hit.source, "HKLM") != 0 && strcmp(hit.source, "HKCU") != 0;
		rc = cf_fail(e, CF_VALIDATION, "the installed %s (%s) is shadowed by %s (version %s) "
			     "in %s; fix: %s", l.product->display, ours[0] ? ours : dir, got,
			     winner ? winner->version : "unknown",
			     dllsearch_source_text(hit.source),
			     system ? "remove or rename it (a copy there comes before every PATH entry)"
				    : "remove that copy, or its directory from PATH");
	} else {
		rc = cf_fail(e, CF_VALIDATION, "the installed %s (%s) is not found by name: its bin\\ "
			     "is not on the machine's or the user's PATH", l.product->display,
			     ours[0] ? ours : dir);
	}
	/* As on Linux: what an interrupted run (or an uninstall that could not remove all of
	 * a tree) left, and the command that cleans it. */
	leftovers_report(&l);
	free(dir);
	free(s);
	layout_free(&l);
	return rc;
}
