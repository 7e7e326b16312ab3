/* devfiles.c - generated pkg-config and CMake files: every path in them is relative to the
 * file itself, so they work under any prefix, through PREFIX/current, and under --root */
#include "bundler/devfiles.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "manifests/product.h"

static const struct tree_entry *find(const struct tree *t, const char *path)
{
	for (size_t i = 0; i < t->count; i++)
		if (strcmp(t->entries[i].path, path) == 0)
			return &t->entries[i];
	return NULL;
}

/* The sub-library's name ("lib" + sublib_stem + "graph") out of its path
 * ("lib/<that>.so.9"); NULL when the path is no sub-library of the product of that major. */
static char *sublibrary(const struct product *p, const char *path, const char *major)
{
	if (!p->sublib_stem)
		return NULL; /* a product of one library */
	char *base = xasprintf("lib/%s", p->sublib_stem);
	char *suffix = xasprintf(".so.%s", major);
	size_t n = strlen(path), s = strlen(suffix), b = strlen(base);
	char *name = NULL;
	if (strncmp(path, base, b) == 0 && n > b + s && strcmp(path + n - s, suffix) == 0 &&
	    !strchr(path + b, '/'))
		name = xasprintf("%.*s", (int)(n - s - 4), path + 4);
	free(suffix);
	free(base);
	return name;
}

static char *pc_text(const struct tree *t, const char *version, const char *major)
{
	const struct product *p = t->product;
	/* -l<name> needs the development link; without it, name the soname itself. */
	char *link = xasprintf("lib/%s.so", p->lib_stem);
	char *lib = find(t, link) ? xasprintf("-l%s", p->lib_stem + 3)
				  : xasprintf("-l:%s.so.%s", p->lib_stem, major);
	char *text = xasprintf(
		"# %s %s, written by cuferry's bundler; relocatable: every path is relative to\n"
		"# this file's directory (PREFIX/<install>/lib/pkgconfig)\n"
		"prefix=${pcfiledir}/../..\n"
		"includedir=${prefix}/include\n"
		"libdir=${prefix}/lib\n"
		"\n"
		"Name: %s\n"
		"Description: %s\n"
		"Version: %s\n"
		"Cflags: -I${includedir}\n"
		"Libs: -L${libdir} %s\n",
		p->display, version, p->display, p->description, version, lib);
	free(link);
	free(lib);
	return text;
}

static char *target_block(const char *pkg, const char *target, const char *file,
			  const char *major)
{
	return xasprintf(
		"if(NOT TARGET %s::%s)\n"
		"  add_library(%s::%s SHARED IMPORTED)\n"
		"  set_target_properties(%s::%s PROPERTIES\n"
		"    IMPORTED_LOCATION \"${%s_LIBRARY_DIR}/%s.so.%s\"\n"
		"    IMPORTED_SONAME \"%s.so.%s\"\n"
		"    INTERFACE_INCLUDE_DIRECTORIES \"${%s_INCLUDE_DIR}\")\n"
		"endif()\n",
		pkg, target, pkg, target, pkg, target, pkg, file, major, file, major, pkg);
}

static char *config_text(const struct tree *t, const char *version, const char *major)
{
	/* pkg: the CMake package (its cmake_package::), tgt: the main library's target
	 * (pkg::<lib_stem past "lib">). */
	const struct product *p = t->product;
	const char *pkg = p->cmake_package, *tgt = p->lib_stem + 3; /* past "lib" */
	char *text = xasprintf(
		"# %sConfig.cmake - %s %s, written by cuferry's bundler. Relocatable: the\n"
		"# install is three directories above this file (PREFIX/<install>/lib/cmake/%s).\n"
		"# find_package(%s CONFIG REQUIRED) then target_link_libraries(app %s::%s).\n"
		"if(CMAKE_VERSION VERSION_LESS 3.0)\n"
		"  message(FATAL_ERROR \"%sConfig.cmake needs CMake 3.0 or newer\")\n"
		"endif()\n"
		"get_filename_component(%s_ROOT_DIR \"${CMAKE_CURRENT_LIST_DIR}/../../..\" ABSOLUTE)\n"
		"set(%s_VERSION \"%s\")\n"
		"set(%s_INCLUDE_DIR \"${%s_ROOT_DIR}/include\")\n"
		"set(%s_INCLUDE_DIRS \"${%s_INCLUDE_DIR}\")\n"
		"set(%s_LIBRARY_DIR \"${%s_ROOT_DIR}/lib\")\n"
		"set(%s_LIBRARIES %s::%s)\n",
		pkg, p->display, version, pkg, pkg, pkg, tgt, pkg, pkg, pkg, version, pkg, pkg, pkg, pkg,
		pkg, pkg, pkg, pkg, tgt);
	char *block = target_block(pkg, tgt, p->lib_stem, major);
	char *next = xasprintf("%s%s", text, block);
	free(text);
	free(block);
	text = next;
	/* One target per sub-library (pkg::<its name past "lib">): the tree tells which exist. */
	for (size_t i = 0; i < t->count; i++) {
		char *name = sublibrary(p, t->entries[i].path, major);
		if (!name)
			continue;
		block = target_block(pkg, name + 3, name, major);
		next = xasprintf("%s%s", text, block);
		free(text);
		free(block);
		text = next;
		free(name);
	}
	next = xasprintf("%sset(%s_FOUND TRUE)\n", text, pkg);
	free(text);
	return next;
}

static char *version_text(const struct product *p, const char *version, const char *major)
{
	/* Same rule as CMake's SameMajorVersion: any MAJOR.x at least the one asked for. */
	return xasprintf(
		"# %sConfigVersion.cmake - %s %s, written by cuferry's bundler\n"
		"set(PACKAGE_VERSION \"%s\")\n"
		"if(PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION)\n"
		"  set(PACKAGE_VERSION_COMPATIBLE FALSE)\n"
		"elseif(PACKAGE_FIND_VERSION_MAJOR AND NOT PACKAGE_FIND_VERSION_MAJOR STREQUAL \"%s\")\n"
		"  set(PACKAGE_VERSION_COMPATIBLE FALSE)\n"
		"else()\n"
		"  set(PACKAGE_VERSION_COMPATIBLE TRUE)\n"
		"  if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)\n"
		"    set(PACKAGE_VERSION_EXACT TRUE)\n"
		"  endif()\n"
		"endif()\n"
		"# 64-bit libraries only\n"
		"if(DEFINED CMAKE_SIZEOF_VOID_P AND NOT CMAKE_SIZEOF_VOID_P EQUAL 8)\n"
		"  set(PACKAGE_VERSION \"%s (64-bit)\")\n"
		"  set(PACKAGE_VERSION_UNSUITABLE TRUE)\n"
		"endif()\n",
		p->cmake_package, p->display, version, version, major, version);
}

static int add_generated(struct tree *t, const char *dir, const char *path, const char *text,
			 struct cf_err *e)
{
	if (find(t, path))
		return CF_OK; /* the source's own file wins */
	char *src = xasprintf("%s/%s", dir, path), *parent = xstrdup(src);
	*strrchr(parent, '/') = '\0';
	int rc = io_mkdirs(parent, 0755) == 0
			 ? CF_OK
			 : cf_fail(e, cf_write_status(errno), "%s: %s", parent, strerror(errno));
	free(parent);
	if (rc != CF_OK) {
		free(src);
		return rc;
	}
	return tree_add_written(t, path, src, text, strlen(text), e);
}

int devfiles_add(struct tree *t, const char *version, const char *workdir, struct cf_err *e)
{
	char major[16];
	snprintf(major, sizeof(major), "%.*s", (int)strcspn(version, "."), version);
	const struct product *p = t->product;
	char *lib = xasprintf("lib/%s.so.%s", p->lib_stem, major);
	int linux_tree = find(t, lib) != NULL;
	free(lib);
	if (!linux_tree)
		return CF_OK;
	char *pc_path = xasprintf("lib/pkgconfig/%s.pc", p->pkgconfig_name);
	char *config_path = xasprintf("lib/cmake/%s/%sConfig.cmake", p->cmake_package, p->cmake_package);
	char *version_path = xasprintf("lib/cmake/%s/%sConfigVersion.cmake", p->cmake_package,
				       p->cmake_package);
	char *dir = xasprintf("%s/devfiles", workdir);
	char *pc = pc_text(t, version, major), *config = config_text(t, version, major),
	     *ver = version_text(p, version, major);
	int rc = add_generated(t, dir, pc_path, pc, e);
	if (rc == CF_OK)
		rc = add_generated(t, dir, config_path, config, e);
	if (rc == CF_OK)
		rc = add_generated(t, dir, version_path, ver, e);
	free(pc);
	free(config);
	free(ver);
	free(dir);
	free(pc_path);
	free(config_path);
	free(version_path);
	return rc;
}
