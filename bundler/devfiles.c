/* devfiles.c - generated pkg-config and CMake files: every path in them is relative to the
 * file itself, so they work under any prefix, through PREFIX/current, and under --root */
#include "bundler/devfiles.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"

#define PC_PATH "lib/pkgconfig/cudnn.pc"
#define CONFIG_PATH "lib/cmake/CUDNN/CUDNNConfig.cmake"
#define VERSION_PATH "lib/cmake/CUDNN/CUDNNConfigVersion.cmake"

static const struct tree_entry *find(const struct tree *t, const char *path)
{
	for (size_t i = 0; i < t->count; i++)
		if (strcmp(t->entries[i].path, path) == 0)
			return &t->entries[i];
	return NULL;
}

/* "libcudnn_graph" out of "lib/libcudnn_graph.so.9"; NULL when the path is no cuDNN
 * sub-library of that major. */
static char *sublibrary(const char *path, const char *major)
{
	const char *base = "lib/libcudnn_";
	char *suffix = xasprintf(".so.%s", major);
	size_t n = strlen(path), s = strlen(suffix), b = strlen(base);
	char *name = NULL;
	if (strncmp(path, base, b) == 0 && n > b + s && strcmp(path + n - s, suffix) == 0 &&
	    !strchr(path + b, '/'))
		name = xasprintf("%.*s", (int)(n - s - 4), path + 4);
	free(suffix);
	return name;
}

static char *pc_text(const struct tree *t, const char *version, const char *major)
{
	/* -lcudnn needs the development link; without it, name the soname itself. */
	char *lib = find(t, "lib/libcudnn.so") ? xstrdup("-lcudnn") : xasprintf("-l:libcudnn.so.%s", major);
	char *text = xasprintf(
		"# cuDNN %s, written by cuferry's bundler; relocatable: every path is relative to\n"
		"# this file's directory (PREFIX/<install>/lib/pkgconfig)\n"
		"prefix=${pcfiledir}/../..\n"
		"includedir=${prefix}/include\n"
		"libdir=${prefix}/lib\n"
		"\n"
		"Name: cuDNN\n"
		"Description: NVIDIA CUDA Deep Neural Network library\n"
		"Version: %s\n"
		"Cflags: -I${includedir}\n"
		"Libs: -L${libdir} %s\n",
		version, version, lib);
	free(lib);
	return text;
}

static char *target_block(const char *target, const char *file, const char *major)
{
	return xasprintf(
		"if(NOT TARGET CUDNN::%s)\n"
		"  add_library(CUDNN::%s SHARED IMPORTED)\n"
		"  set_target_properties(CUDNN::%s PROPERTIES\n"
		"    IMPORTED_LOCATION \"${CUDNN_LIBRARY_DIR}/%s.so.%s\"\n"
		"    IMPORTED_SONAME \"%s.so.%s\"\n"
		"    INTERFACE_INCLUDE_DIRECTORIES \"${CUDNN_INCLUDE_DIR}\")\n"
		"endif()\n",
		target, target, target, file, major, file, major);
}

static char *config_text(const struct tree *t, const char *version, const char *major)
{
	char *text = xasprintf(
		"# CUDNNConfig.cmake - cuDNN %s, written by cuferry's bundler. Relocatable: the\n"
		"# install is three directories above this file (PREFIX/<install>/lib/cmake/CUDNN).\n"
		"# find_package(CUDNN CONFIG REQUIRED) then target_link_libraries(app CUDNN::cudnn).\n"
		"if(CMAKE_VERSION VERSION_LESS 3.0)\n"
		"  message(FATAL_ERROR \"CUDNNConfig.cmake needs CMake 3.0 or newer\")\n"
		"endif()\n"
		"get_filename_component(CUDNN_ROOT_DIR \"${CMAKE_CURRENT_LIST_DIR}/../../..\" ABSOLUTE)\n"
		"set(CUDNN_VERSION \"%s\")\n"
		"set(CUDNN_INCLUDE_DIR \"${CUDNN_ROOT_DIR}/include\")\n"
		"set(CUDNN_INCLUDE_DIRS \"${CUDNN_INCLUDE_DIR}\")\n"
		"set(CUDNN_LIBRARY_DIR \"${CUDNN_ROOT_DIR}/lib\")\n"
		"set(CUDNN_LIBRARIES CUDNN::cudnn)\n",
		version, version);
	char *block = target_block("cudnn", "libcudnn", major);
	char *next = xasprintf("%s%s", text, block);
	free(text);
	free(block);
	text = next;
	/* One target per sub-library (CUDNN::cudnn_graph, ...): the tree tells which exist. */
	for (size_t i = 0; i < t->count; i++) {
		char *name = sublibrary(t->entries[i].path, major);
		if (!name)
			continue;
		block = target_block(name + 3, name, major);
		next = xasprintf("%s%s", text, block);
		free(text);
		free(block);
		text = next;
		free(name);
	}
	next = xasprintf("%sset(CUDNN_FOUND TRUE)\n", text);
	free(text);
	return next;
}

static char *version_text(const char *version, const char *major)
{
	/* Same rule as CMake's SameMajorVersion: any 9.x at least the one asked for. */
	return xasprintf(
		"# CUDNNConfigVersion.cmake - cuDNN %s, written by cuferry's bundler\n"
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
		version, version, major, version);
}

static int add_generated(struct tree *t, const char *dir, const char *path, const char *text,
			 struct cf_err *e)
{
	if (find(t, path))
		return CF_OK; /* the source's own file wins */
	char *src = xasprintf("%s/%s", dir, path), *parent = xstrdup(src);
	*strrchr(parent, '/') = '\0';
	int ok = io_mkdirs(parent, 0755) == 0 &&
		 io_write_file_atomic(src, text, strlen(text), 0644) == 0;
	int rc = ok ? CF_OK : cf_fail(e, cf_write_status(errno), "%s: %s", src, strerror(errno));
	free(parent);
	if (rc != CF_OK) {
		free(src);
		return rc;
	}
	struct tree_entry ent = { .path = xstrdup(path), .src = src, .mode = 0644 };
	t->entries = xrealloc(t->entries, (t->count + 1) * sizeof(*t->entries));
	t->entries[t->count++] = ent;
	return CF_OK;
}

int devfiles_add(struct tree *t, const char *version, const char *workdir, struct cf_err *e)
{
	char major[16];
	snprintf(major, sizeof(major), "%.*s", (int)strcspn(version, "."), version);
	char *lib = xasprintf("lib/libcudnn.so.%s", major);
	int linux_tree = find(t, lib) != NULL;
	free(lib);
	if (!linux_tree)
		return CF_OK;
	char *dir = xasprintf("%s/devfiles", workdir);
	char *pc = pc_text(t, version, major), *config = config_text(t, version, major),
	     *ver = version_text(version, major);
	int rc = add_generated(t, dir, PC_PATH, pc, e);
	if (rc == CF_OK)
		rc = add_generated(t, dir, CONFIG_PATH, config, e);
	if (rc == CF_OK)
		rc = add_generated(t, dir, VERSION_PATH, ver, e);
	free(pc);
	free(config);
	free(ver);
	free(dir);
	return rc;
}
