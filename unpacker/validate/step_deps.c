/* step_deps.c - step 4: the product's dependencies (ELF on POSIX, PE imports on Windows), as
 * files: the CUDA libraries it opens by name (its cuda_libs_opened) and the system's zlib */
#include "unpacker/validate/step_deps.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/io.h"
#include "common/platform.h"
#include "manifests/product.h"
#include "unpacker/validate/dllsearch.h"
#include "unpacker/validate/libname.h"
#include "unpacker/validate/pefile.h"
#include "unpacker/validate/search.h"

/* The CUDA libraries a product may open by name: their soname stem (as cuda_libs_opened
 * spells it), the CUDA component that carries them, the name messages give them. */
static const struct cuda_lib {
	const char *stem, *component, *display;
} cuda_libs[] = {
	{ "libcublas.so.", "libcublas", "cuBLAS" },
	{ "libcublasLt.so.", "libcublas", "cuBLASLt" },
	{ "libnvrtc.so.", "cuda_nvrtc", "NVRTC" },
};
#define NCUDA_LIBS (sizeof(cuda_libs) / sizeof(cuda_libs[0]))

static const struct cuda_lib *cuda_lib_of(const char *soname)
{
	for (size_t i = 0; i < NCUDA_LIBS; i++)
		if (strncmp(soname, cuda_libs[i].stem, strlen(cuda_libs[i].stem)) == 0)
			return &cuda_libs[i];
	return NULL;
}

static const char *component_of(const char *lib)
{
	const struct cuda_lib *c = cuda_lib_of(lib);
	return c ? c->component : NULL;
}

/* What the product opens by name, by the name messages give (cuBLAS before cuBLASLt before
 * NVRTC): the order of the checks and of their sentence. */
static size_t opened_sorted(const struct product *p, const struct cuda_lib **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < NCUDA_LIBS && n < max; i++)
		for (size_t k = 0; p->cuda_libs_opened && p->cuda_libs_opened[k]; k++)
			if (strcmp(p->cuda_libs_opened[k], cuda_libs[i].stem) == 0)
				out[n++] = &cuda_libs[i];
	return n;
}

/* Where a program's loader finds soname after the product's RUNPATH ($ORIGIN, the bundle's lib/):
 * LD_LIBRARY_PATH of a user install, then the ld cache (under --root: the image's
 * ld.so.conf.d), then the default directories. Files only: nothing is loaded. */
static int find_dependency(const struct run *r, const struct search *s, const char *soname, char *out,
			   size_t size)
{
	char *bundled = xasprintf("%s/lib/%s", r->dir, soname);
	int ok = search_elf_library(r->o->layout->root, bundled);
	if (ok)
		snprintf(out, size, "%s", bundled);
	free(bundled);
	if (ok)
		return 0;
	if (!*r->o->layout->root) {
		if (search_cache_find(soname, out, size) == 0)
			return 0;
	}
	return search_find(s, soname, out, size);
}

/* Step 4: the libraries the product opens at run time, of the bundle's CUDA major, and zlib,
 * as files. */
static json_t *find_dependencies(struct run *r)
{
	char names[NCUDA_LIBS + 1][64], found[PATH_MAX];
	const char *v = r->m->cuda_variant;
	const struct cuda_lib *opened[NCUDA_LIBS];
	size_t n = opened_sorted(r->product, opened, NCUDA_LIBS);
	for (size_t i = 0; i < n; i++)
		snprintf(names[i], 64, "%s%s", opened[i]->stem, v);
	snprintf(names[n++], 64, "libz.so.1");
	struct search *s = xmalloc(sizeof(*s));
	search_root(r, s);
	json_t *libs = json_object();
	int missing = 0;
	for (size_t i = 0; i < n; i++) {
		int hit = find_dependency(r, s, names[i], found, sizeof(found)) == 0;
		json_object_set_new(libs, names[i], hit ? json_string(found) : json_null());
		missing += !hit;
	}
	free(s);
	json_t *o = report_add(r, 4, "dependencies", missing ? "fail" : "pass", "");
	json_object_set_new(o, "libraries", libs);
	json_object_set_new(o, "how", json_string("files the loader would pick (ELF shared objects), not loaded"));
	return o;
}

/* An OS image has system library directories; a bare --root sandbox (tests, a staging tree)
 * has none, and no loader of its own to ask. */
static int root_is_image(const char *root)
{
	static const char *const dirs[] = { "lib", "lib64", "usr/lib", "usr/lib64", NULL };
	for (size_t i = 0; dirs[i]; i++) {
		char *p = xasprintf("%s/%s", root, dirs[i]);
		struct platform_stat st;
		int yes = platform_stat(p, &st) == 0 && st.type == PLATFORM_TYPE_DIR;
		free(p);
		if (yes)
			return 1;
	}
	return 0;
}

/* Where a DLL the install's DLLs import comes from, and what to do when it is missing. */
static void dll_advice(const struct run *r, const char *name, const char *importer, char *out,
		       size_t size)
{
	static const char *const cuda[] = { "cublas64_", "cublasLt64_", "cudart64_", "nvrtc64_",
					    "nvrtc-builtins64_", NULL };
	if (strcasecmp(name, "zlibwapi.dll") == 0) {
		snprintf(out, size, "%s missing (imported by %s): %s %s needs zlib built for Windows; "
			 "get zlibwapi.dll from NVIDIA's zlib page (%s installation guide) and carry it "
			 "with 'bundler create --add-file zlibwapi.dll'", name, importer,
			 r->product->display, r->major, r->product->display);
		return;
	}
	for (size_t i = 0; cuda[i]; i++) {
		size_t n = strlen(cuda[i]);
		if (strncasecmp(name, cuda[i], n) != 0)
			continue;
		int major = atoi(name + n);
		if (major >= 100)
			major /= 10; /* nvrtc64_120_0.dll: CUDA 12.0's naming */
		snprintf(out, size, "%s missing (imported by %s): CUDA %d's %.*s, from the CUDA toolkit "
			 "or a bundle made --with-cuda-libs%s%s", name, importer, major, (int)(n - 3),
			 cuda[i], major != atoi(r->m->cuda_variant) ? "; this bundle is for CUDA " : "",
			 major != atoi(r->m->cuda_variant) ? r->m->cuda_variant : "");
		return;
	}
	snprintf(out, size, "%s missing (imported by %s)", name, importer);
}

struct dll_deps {
	const struct run *r;
	const char *bin;
	char why[2048];
	json_t *libs;
	size_t imports;
};

/* One DLL name: in the install's bin\, else where a program loading it by name gets it, else
 * missing, with what to do (importer: who needs it). */
static void find_dll(struct dll_deps *d, const char *name, const char *importer)
{
	d->imports++;
	char *in_bin = xasprintf("%s%c%s", d->bin, platform_dir_separator(), name), advice[600];
	struct platform_stat st;
	struct dll_hit hit = { .source = NULL };
	if (platform_stat(in_bin, &st) == 0 && st.type == PLATFORM_TYPE_FILE) {
		json_object_set_new(d->libs, name, json_string(in_bin));
	} else if (dllsearch_first(name, &hit) == 0) {
		json_object_set_new(d->libs, name, json_string(hit.path));
	} else {
		json_object_set_new(d->libs, name, json_null());
		dll_advice(d->r, name, importer, advice, sizeof(advice));
		size_t used = strlen(d->why);
		snprintf(d->why + used, sizeof(d->why) - used, "%s%s", used ? "; " : "", advice);
	}
	free(in_bin);
}

/* One DLL of the install's bin\: each import found in bin\, System32 or on PATH. */
static int dll_imports(const char *file, void *ctx)
{
	struct dll_deps *d = ctx;
	size_t n = strlen(file);
	if (n < 4 || strcasecmp(file + n - 4, ".dll") != 0)
		return 0;
	char *path = xasprintf("%s%c%s", d->bin, platform_dir_separator(), file), pe_why[256];
	struct pe_info info;
	if (pe_parse_file(path, &info, pe_why, sizeof(pe_why)) != 0) {
		size_t used = strlen(d->why);
		snprintf(d->why + used, sizeof(d->why) - used, "%s%s: %s", used ? "; " : "", file, pe_why);
		json_object_set_new(d->libs, file, json_null());
		free(path);
		return 0;
	}
	for (size_t i = 0; i < info.import_count; i++) {
		const char *name = info.imports[i].name;
		if (json_object_get(d->libs, name))
			continue;
		/* api-ms-win-… and ext-ms-…: API sets the system maps to its own DLLs */
		if (strncasecmp(name, "api-ms-", 7) == 0 || strncasecmp(name, "ext-ms-", 7) == 0)
			continue;
		find_dll(d, name, file);
	}
	pe_info_free(&info);
	free(path);
	return 0;
}

/* What the product opens by name (its cuda_libs_opened: a product may import no cuBLAS or
 * NVRTC and load them only when it needs them), from where a program loading them by name would
 * (its own bin\, System32, PATH), as on Linux. */
static void runtime_dlls(struct dll_deps *d)
{
	const struct product *p = d->r->product;
	if (!p->cuda_libs_opened || !p->cuda_libs_opened[0] || atoi(d->r->major) < 9)
		return; /* before major 9 what it needs is imported: the import tables said it all */
	const char *v = d->r->m->cuda_variant;
	char names[3][64];
	snprintf(names[0], sizeof(names[0]), "cublas64_%s.dll", v);
	snprintf(names[1], sizeof(names[1]), "cublasLt64_%s.dll", v);
	snprintf(names[2], sizeof(names[2]), "nvrtc64_%s0_0.dll", v);
	char importer[64];
	snprintf(importer, sizeof(importer), "%s, at run time", p->display);
	for (size_t i = 0; i < 3; i++) {
		if (!json_object_get(d->libs, names[i]))
			find_dll(d, names[i], importer);
	}
}

/* Step 4 where DLLs are found as files (Windows): the installed DLLs' import tables, and the
 * DLLs the product loads by name. */
static void check_deps_dirs(struct run *r)
{
	struct dll_deps d = { .r = r, .bin = libname_dir(r->dir), .libs = json_object() };
	platform_dir_list(d.bin, dll_imports, &d);
	runtime_dlls(&d);
	char pass[256], how[160];
	snprintf(pass, sizeof(pass), "every DLL the install's DLLs import or %s loads (%zu) is in "
		 "its bin\\, System32 or on PATH", r->product->display, d.imports);
	snprintf(how, sizeof(how), "the DLLs' import tables and what %s %s loads by name, each "
		 "found as a file, not loaded", r->product->display, r->major);
	json_t *o = report_add(r, 4, "dependencies", d.why[0] ? "fail" : "pass", d.why[0] ? d.why : pass);
	json_object_set_new(o, "libraries", d.libs);
	json_object_set_new(o, "how", json_string(how));
	free((char *)d.bin);
}

/* "cuBLAS, cuBLASLt, NVRTC and zlib found": what the product opens, then zlib. */
static const char *found_sentence(const struct product *p, char *out, size_t size)
{
	const struct cuda_lib *opened[NCUDA_LIBS];
	size_t n = opened_sorted(p, opened, NCUDA_LIBS), used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < n && used < size; i++)
		used += (size_t)snprintf(out + used, size - used, "%s%s", i ? ", " : "",
					 opened[i]->display);
	if (used < size)
		snprintf(out + used, size - used, "%szlib found", n ? " and " : "");
	return out;
}

void step_deps(struct run *r)
{
	if (!*r->o->layout->root && platform_lib_search_is_dirs()) {
		check_deps_dirs(r);
		return;
	}
	if (*r->o->layout->root && !root_is_image(r->o->layout->root)) {
		report_add(r, 4, "dependencies", "skip", "not checked: the root has no system library directories "
		    "(lib, usr/lib): it is not an OS image whose loader could be asked");
		return;
	}
	json_t *o = find_dependencies(r);
	json_t *libs = json_object_get(o, "libraries"), *v;
	const char *name;
	char why[1024] = "";
	const char *const *opened = r->product->cuda_libs_opened;
	for (size_t i = 0; !*r->o->layout->root && opened && opened[i]; i++)
		json_object_foreach(libs, name, v) {
			size_t used = strlen(r->preload);
			if (json_is_string(v) && strncmp(name, opened[i], strlen(opened[i])) == 0)
				snprintf(r->preload + used, sizeof(r->preload) - used, "%s%s", used ? ":" : "",
					 json_string_value(v));
		}
	json_object_foreach(libs, name, v) {
		size_t used = strlen(why);
		if (!json_is_null(v))
			continue;
		const char *comp = component_of(name);
		const struct manifest_component *c = NULL;
		for (size_t i = 0; comp && i < r->m->ncomponents; i++)
			if (strcmp(r->m->components[i].name, comp) == 0)
				c = &r->m->components[i];
		if (c)
			snprintf(why + used, sizeof(why) - used, "%s%s missing (CUDA component %s %s, %s)",
				 used ? "; " : "", name, c->name, c->version,
				 c->included ? "in the bundle" : "not in the bundle: rebuild with --with-cuda-libs or install it");
		else
			snprintf(why + used, sizeof(why) - used, "%s%s missing (%s)", used ? "; " : "", name,
				 comp ? comp : "zlib: install the system's zlib (Debian: zlib1g)");
	}
	if (why[0])
		json_object_set_new(o, "detail", json_string(why));
	else if (libs)
		json_object_set_new(o, "detail", json_string(found_sentence(r->product, why, sizeof(why))));
}
