/* source.c - reading a product (the tree's) out of a directory or an NVIDIA archive into an
 * install tree */
#include "bundler/source.h"

#include <archive.h>
#include <archive_entry.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/io.h"
#include "common/log.h"
#include "common/platform.h"
#include "manifests/compat.h"
#include "manifests/platforms.h"
#include "manifests/product.h"
#include "manifests/shadow.h"

int tree_add_written(struct tree *t, const char *path, char *src, const char *text, size_t len,
		     struct cf_err *e)
{
	if (io_write_file_atomic(src, text, len, 0644) != 0) {
		int rc = cf_fail(e, cf_write_status(errno), "%s: %s", src, strerror(errno));
		free(src);
		return rc;
	}
	struct tree_entry ent = { .path = xstrdup(path), .src = src, .mode = 0644, .generated = 1 };
	t->entries = xrealloc(t->entries, (t->count + 1) * sizeof(*t->entries));
	t->entries[t->count++] = ent;
	return CF_OK;
}

void tree_free(struct tree *t)
{
	for (size_t i = 0; i < t->count; i++) {
		free(t->entries[i].path);
		free(t->entries[i].src);
		free(t->entries[i].target);
	}
	free(t->entries);
	for (size_t i = 0; i < t->narchives; i++) {
		free(t->archives[i].file);
		free(t->archives[i].dir);
	}
	if (t->tmpdir)
		io_rmtree(t->tmpdir);
	free(t->tmpdir);
	memset(t, 0, sizeof(*t));
}

static int tree_has(const struct tree *t, const char *path)
{
	for (size_t i = 0; i < t->count; i++)
		if (strcmp(t->entries[i].path, path) == 0)
			return 1;
	return 0;
}

/* Whether a link's target, taken by name from the link's install path, stays inside the
 * tree: relative, and never climbing above the top with "..". Judged where the link will be
 * installed, not where it was found (lib64/ becomes lib/, bin/x64/ becomes bin/). */
static int target_inside(const char *path, const char *target)
{
	long depth = 0;
	for (const char *p = strchr(path, '/'); p; p = strchr(p + 1, '/'))
		depth++;
	if (target[0] == '/')
		return 0;
	for (const char *p = target; *p; p += strspn(p, "/")) {
		size_t n = strcspn(p, "/");
		if (n == 2 && strncmp(p, "..", 2) == 0)
			depth--;
		else if (!(n == 1 && p[0] == '.'))
			depth++;
		if (depth < 0)
			return 0;
		p += n;
	}
	return 1;
}

/* A link of the tree is packed as a link, never followed: its target must resolve inside the
 * tree and be no directory. Followed, either would pack (or, installed, point at) whatever
 * the bundling host has there. */
static int link_stays_inside(const char *path, const char *src, const char *target,
			     struct cf_err *e)
{
	struct platform_stat st;
	if (!target_inside(path, target))
		return cf_fail(e, CF_SOURCE, "%s -> %s: a link out of the tree, never followed",
			       path, target);
	if (platform_stat(src, &st) == 0 && st.type == PLATFORM_TYPE_DIR)
		return cf_fail(e, CF_SOURCE, "%s -> %s: a link to a directory, never followed",
			       path, target);
	return CF_OK;
}

/* Add a file or symlink found at src under the install path; skips what is not one. */
static int tree_add(struct tree *t, const char *path, const char *src, struct cf_err *e)
{
	struct stat st;
	char target[PATH_MAX];
	/* Two sources for one install path (bin/ and bin/x64/ both holding a DLL) would make the
	 * bundle depend on directory order. */
	if (tree_has(t, path))
		return cf_fail(e, CF_SOURCE, "%s: two files would be installed as %s", src, path);
	if (lstat(src, &st) != 0)
		return cf_fail(e, CF_SOURCE, "%s: %s", src, strerror(errno));
	struct tree_entry ent = { 0 };
	if (S_ISLNK(st.st_mode)) {
		ssize_t n = readlink(src, target, sizeof(target) - 1);
		if (n < 0)
			return cf_fail(e, CF_SOURCE, "%s: %s", src, strerror(errno));
		target[n] = '\0';
		int rc = link_stays_inside(path, src, target, e);
		if (rc != CF_OK)
			return rc;
		ent.is_symlink = 1;
		ent.target = xstrdup(target);
		ent.src = xstrdup(src);
	} else if (S_ISREG(st.st_mode)) {
		ent.src = xstrdup(src);
		ent.mode = (st.st_mode & 0111) ? 0755 : 0644;
	} else {
		return CF_OK;
	}
	ent.path = xstrdup(path);
	ent.mtime = st.st_mtime;
	if (st.st_mtime > t->newest_mtime)
		t->newest_mtime = st.st_mtime;
	t->entries = xrealloc(t->entries, (t->count + 1) * sizeof(*t->entries));
	t->entries[t->count++] = ent;
	return CF_OK;
}

static int matches_any(const char *name, const char *const *patterns)
{
	for (; *patterns; patterns++)
		if (fnmatch(*patterns, name, 0) == 0)
			return 1;
	return 0;
}

/* How a matching entry is taken: tree_add (the file or link itself) or take_whole (a
 * directory and everything below it). */
typedef int take_fn(struct tree *t, const char *path, const char *src, struct cf_err *e);

/* Below a directory carried whole (top, its install path): directories are walked, regular
 * files added, and anything else refused, never followed: a link could reach outside the
 * tree, or make the bundle depend on what it happens to point at. */
static int take_below(struct tree *t, const char *path, const char *src, const char *top,
		      struct cf_err *e)
{
	struct stat st;
	if (lstat(src, &st) != 0)
		return cf_fail(e, CF_SOURCE, "%s: %s", src, strerror(errno));
	if (S_ISREG(st.st_mode))
		return tree_add(t, path, src, e);
	if (!S_ISDIR(st.st_mode))
		return cf_fail(e, CF_SOURCE, "%s: %s in %s/, which is carried whole as regular "
			       "files only", src,
			       S_ISLNK(st.st_mode) ? "a link" : "not a regular file", top);
	struct platform_dir *d = platform_dir_open(src);
	const char *name;
	int rc = CF_OK;
	if (!d)
		return cf_fail(e, CF_SOURCE, "%s: %s", src, strerror(errno));
	while (rc == CF_OK && (name = platform_dir_next(d)) != NULL) {
		char *sub_src = xasprintf("%s/%s", src, name);
		char *sub_path = xasprintf("%s/%s", path, name);
		rc = take_below(t, sub_path, sub_src, top, e);
		free(sub_src);
		free(sub_path);
	}
	platform_dir_close(d);
	return rc;
}

/* One of the product's include_dirs: the directory at src and every file below it. */
static int take_whole(struct tree *t, const char *path, const char *src, struct cf_err *e)
{
	struct stat st;
	if (lstat(src, &st) == 0 && !S_ISDIR(st.st_mode))
		return cf_fail(e, CF_SOURCE, "%s: %s where %s's directory %s/ belongs", src,
			       S_ISLNK(st.st_mode) ? "a link" : "not a directory",
			       t->product->display, path);
	return take_below(t, path, src, path, e);
}

/* A directory of the layout (include/, lib/, lib64/, bin/) may be a link, as NVIDIA's .run
 * installs make lib64/ and include/ (into targets/<arch>/), but only to a directory inside
 * the tree at top: followed elsewhere, its files would be the bundling host's. */
static int layout_dir_inside(const char *top, const char *dir, struct cf_err *e)
{
	struct platform_stat st;
	char real_top[PATH_MAX], real_dir[PATH_MAX], target[PATH_MAX];
	if (platform_lstat(dir, &st) != 0 || st.type != PLATFORM_TYPE_LINK ||
	    platform_realpath(top, real_top, sizeof(real_top)) != 0)
		return CF_OK;
	size_t n = strcmp(real_top, "/") == 0 ? 0 : strlen(real_top);
	if (platform_realpath(dir, real_dir, sizeof(real_dir)) != 0)
		return CF_OK; /* nothing there: nothing is taken from it */
	if (strncmp(real_dir, real_top, n) == 0 && real_dir[n] == '/')
		return CF_OK;
	if (platform_readlink(dir, target, sizeof(target)) < 0)
		snprintf(target, sizeof(target), "%s", real_dir);
	return cf_fail(e, CF_SOURCE, "%s -> %s: a link out of the tree, never followed",
		       dir + strlen(top) + (dir[strlen(top)] == '/'), target);
}

/* The entries of one directory (not recursive) whose names match, each taken by take under
 * install_dir. */
static int take_matching(struct tree *t, const char *dir, const char *install_dir,
			 const char *const *patterns, take_fn *take, struct cf_err *e)
{
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *de;
	if (!d)
		return CF_OK;
	char **names = NULL;
	size_t n = 0;
	while ((de = readdir(d)) != NULL)
		if (matches_any(de->d_name, patterns)) {
			names = xrealloc(names, (n + 1) * sizeof(*names));
			names[n++] = xstrdup(de->d_name);
		}
	closedir(d);
	int rc = CF_OK;
	for (size_t i = 0; i < n; i++) {
		char *src = xasprintf("%s/%s", dir, names[i]);
		char *path = xasprintf("%s/%s", install_dir, names[i]);
		if (rc == CF_OK)
			rc = take(t, path, src, e);
		free(src);
		free(path);
		free(names[i]);
	}
	free(names);
	return rc;
}

static int read_define(const char *text, const char *name, long *out)
{
	char key[64];
	snprintf(key, sizeof(key), "#define %s ", name);
	const char *p = strstr(text, key);
	if (!p)
		return -1;
	*out = strtol(p + strlen(key), NULL, 10);
	return 0;
}

/* MAJOR.MINOR.PATCH from the product's version headers (version.headers, newest layout
 * first), the first that defines the three macros. */
static int version_from_headers(const struct product *p, const char *include_dir, char *out,
				size_t size)
{
	const struct product_version_source *src = &p->version;
	const char *const *files = src->headers;
	for (size_t i = 0; files[i]; i++) {
		char *path = xasprintf("%s/%s", include_dir, files[i]), *text;
		int rc = io_read_file(path, 4 << 20, &text, NULL);
		free(path);
		if (rc != 0)
			continue;
		long major, minor, patch;
		int ok = read_define(text, src->major, &major) == 0 &&
			 read_define(text, src->minor, &minor) == 0 &&
			 read_define(text, src->patch, &patch) == 0;
		free(text);
		if (ok) {
			snprintf(out, size, "%ld.%ld.%ld", major, minor, patch);
			return 0;
		}
	}
	return -1;
}

/* The platform a library is built for, by its header (NULL: none of ours). */
static const struct platform_spec *platform_of_header(const char *path)
{
	uint8_t hdr[4096];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	ssize_t n = io_read_full(fd, hdr, sizeof(hdr));
	close(fd);
	return n > 0 ? platform_of_program(hdr, (size_t)n) : NULL;
}

/* The platform of a library of the tree: by its name where the platform tells its libraries
 * by name (DLLs), else by its header; NULL when it is no platform's library. */
static const struct platform_spec *platform_of_library(const struct tree_entry *ent)
{
	for (size_t i = 0; platform_at(i); i++) {
		const struct platform_spec *p = platform_at(i);
		if (p->lib_named_only && fnmatch(p->lib_pattern, ent->path, 0) == 0)
			return p;
	}
	for (size_t i = 0; platform_at(i); i++)
		if (fnmatch(platform_at(i)->lib_pattern, ent->path, 0) == 0)
			return platform_of_header(ent->src);
	return NULL;
}

/* Platform from what the tree holds: its first library's. */
static void detect_platform(struct tree *t, char *out, size_t size)
{
	out[0] = '\0';
	for (size_t i = 0; i < t->count; i++) {
		const struct tree_entry *ent = &t->entries[i];
		const struct platform_spec *p = ent->is_symlink ? NULL : platform_of_library(ent);
		if (p) {
			snprintf(out, size, "%s", p->name);
			return;
		}
	}
}

/* Where the metadata of NVIDIA's wheels lies for a tree at dir: dir/dist-info (a toolkit
 * assembled from wheels, as on the development machines), or site-packages itself when dir
 * is a pip install (site-packages/<the product's wheel_dir>). */
static size_t wheel_folders(const char *dir, char *out[2])
{
	size_t n = 0;
	out[n++] = xasprintf("%s/dist-info", dir);
	char real[PATH_MAX];
	if (realpath(dir, real)) {
		char *slash = strrchr(real, '/');
		if (slash && slash > real) {
			*slash = '\0';
			slash = strrchr(real, '/');
			if (slash && strcmp(slash + 1, "nvidia") == 0) {
				*slash = '\0';
				out[n++] = xstrdup(real);
			}
		}
	}
	return n;
}

/* dist-info folders of NVIDIA's wheels name exact versions: nvidia_nccl_cu13-2.28.9,
 * nvidia_cublas-13.1.0.3, nvidia_cublas_cu12-12.4.5.8. prefix is the name up to any "_cu"
 * suffix; *dist_name gets the folder's name. */
static int dist_info_version(const char *dir, const char *prefix, char *version, size_t vsize,
			     char *dist_name, size_t dsize)
{
	char *folders[2];
	size_t nfolders = wheel_folders(dir, folders);
	int found = -1;
	for (size_t f = 0; f < nfolders; f++) {
		DIR *d = found ? opendir(folders[f]) : NULL;
		struct dirent *de;
		while (d && (de = readdir(d)) != NULL) {
			size_t n = strlen(prefix);
			if (strncmp(de->d_name, prefix, n) != 0)
				continue;
			const char *dash = de->d_name + n;
			if (strncmp(dash, "_cu", 3) == 0)
				dash += 3;
			dash += strspn(dash, "0123456789");
			const char *end = strstr(de->d_name, ".dist-info");
			if (*dash != '-' || !end || end < dash)
				continue;
			snprintf(version, vsize, "%.*s", (int)(end - dash - 1), dash + 1);
			if (dist_name)
				snprintf(dist_name, dsize, "%s", de->d_name);
			found = 0;
			break;
		}
		if (d)
			closedir(d);
		free(folders[f]);
	}
	return found;
}

static void note_cuda_lib(struct tree *t, const char *name, const char *version,
			  const char *file)
{
	if (t->ncuda_libs >= sizeof(t->cuda_libs) / sizeof(t->cuda_libs[0]))
		return;
	struct cuda_lib_info *c = &t->cuda_libs[t->ncuda_libs++];
	snprintf(c->name, sizeof(c->name), "%s", name);
	snprintf(c->version, sizeof(c->version), "%s", version);
	snprintf(c->file, sizeof(c->file), "%s", file);
}

/* The library of a wheel-installed component, relative to dir: in dir's own lib/, or in
 * pip's site-packages/nvidia/<wheel>/lib or the CUDA 13 wheels' shared nvidia/cu<N>/lib. */
static char *wheel_library(const char *dir, const char *wheel, const char *soname)
{
	const char *major = strstr(soname, ".so.") + 4; /* soname is libX.so.MAJOR */
	for (size_t i = 0; i < 3; i++) {
		char *rel = i == 0 ? xasprintf("lib/%s", soname)
			   : i == 1 ? xasprintf("../%s/lib/%s", wheel, soname)
				    : xasprintf("../cu%s/lib/%s", major, soname);
		char *full = xasprintf("%s/%s", dir, rel);
		int found = io_exists(full);
		free(full);
		if (found)
			return rel;
		free(rel);
	}
	return NULL;
}

/* The highest version in a versioned library name in dir/lib or dir/lib64, as a toolkit
 * installed from NVIDIA's .run or packages has them: libcublas.so.13.1.0.3 -> 13.1.0.3. */
static int versioned_library(const char *dir, const char *stem, char *version, size_t vsize,
			     char *file, size_t fsize)
{
	static const char *const libdirs[] = { "lib", "lib64" };
	int found = -1;
	size_t n = strlen(stem);
	for (size_t i = 0; i < 2; i++) {
		char *path = xasprintf("%s/%s", dir, libdirs[i]);
		DIR *d = opendir(path);
		struct dirent *de;
		free(path);
		while (d && (de = readdir(d)) != NULL) {
			const char *v = de->d_name + n;
			/* at least MAJOR.MINOR, digits and dots only */
			if (strncmp(de->d_name, stem, n) != 0 || !strchr(v, '.') ||
			    v[strspn(v, "0123456789.")] != '\0' || !isdigit((unsigned char)*v))
				continue;
			if (found == 0 && compat_version_cmp_full(v, version) <= 0)
				continue;
			snprintf(version, vsize, "%s", v);
			snprintf(file, fsize, "%s/%s", libdirs[i], de->d_name);
			found = 0;
		}
		if (d)
			closedir(d);
	}
	return found;
}

/* The CUDA release the tree's runtime wheel names, and (with_libs: for a product that opens
 * CUDA libraries by name) those libraries, with exact versions, when the tree says which
 * they are. */
static void detect_cuda_libs(const char *dir, int with_libs, struct tree *t)
{
	static const struct {
		const char *component, *wheel_prefix, *wheel_dir, *stem;
	} needed[] = {
		{ "libcublas", "nvidia_cublas", "cublas", "libcublas.so." },
		{ "cuda_nvrtc", "nvidia_cuda_nvrtc", "cuda_nvrtc", "libnvrtc.so." },
	};
	char version[64], file[512];
	/* The CUDA runtime's wheel names the toolkit release: nvidia_cuda_runtime-13.0.96 */
	if (dist_info_version(dir, "nvidia_cuda_runtime", version, sizeof(version), NULL, 0) == 0) {
		size_t n = strspn(version, "0123456789");
		n += version[n] == '.' ? 1 + strspn(version + n + 1, "0123456789") : 0;
		snprintf(t->cuda_hint, sizeof(t->cuda_hint), "%.*s", (int)n, version);
	}
	for (size_t i = 0; with_libs && i < sizeof(needed) / sizeof(needed[0]); i++) {
		if (dist_info_version(dir, needed[i].wheel_prefix, version, sizeof(version), NULL, 0) == 0) {
			char *soname = xasprintf("%s%.*s", needed[i].stem, (int)strcspn(version, "."), version);
			char *rel = wheel_library(dir, needed[i].wheel_dir, soname);
			if (rel)
				note_cuda_lib(t, needed[i].component, version, rel);
			free(rel);
			free(soname);
		} else if (versioned_library(dir, needed[i].stem, version, sizeof(version), file,
					     sizeof(file)) == 0) {
			note_cuda_lib(t, needed[i].component, version, file);
		}
	}
}

void source_cuda_libs(const char *dir, struct tree *t)
{
	detect_cuda_libs(dir, 1, t);
	for (size_t i = 0; i < t->ncuda_libs && !t->platform[0]; i++) {
		char *file = xasprintf("%s/%s", dir, t->cuda_libs[i].file);
		const struct platform_spec *p = platform_of_header(file);
		snprintf(t->platform, sizeof(t->platform), "%s", p ? p->name : "");
		free(file);
	}
}

static int take_license(const char *dir, struct tree *t, struct cf_err *e)
{
	const struct product *p = t->product;
	const char *const *names = p->files.licences;
	for (size_t i = 0; names[i]; i++) {
		char *src = xasprintf("%s/%s", dir, names[i]);
		int found = io_exists(src);
		int rc = found ? tree_add(t, names[i], src, e) : CF_OK;
		free(src);
		if (found)
			return rc;
	}
	char version[64], dist[256];
	if (dist_info_version(dir, p->wheel_dist, version, sizeof(version), dist,
			      sizeof(dist)) == 0) {
		char *src = xasprintf("%s/dist-info/%s/licenses/License.txt", dir, dist);
		int rc = io_exists(src) ? tree_add(t, "LICENSE", src, e) : CF_OK;
		free(src);
		return rc;
	}
	return CF_OK;
}

int source_from_dir(const char *dir, int with_cuda_libs, struct tree *t, struct cf_err *e)
{
	const struct product *p = t->product;
	const char *const *headers = p->files.headers, *const *linux_libs = p->files.linux_libs;
	const char *const *win_libs = p->files.import_libs, *const *win_dlls = p->files.dlls;
	static const char *const cuda_linux[] = { "libcublas.so*", "libcublasLt.so*", "libnvrtc.so*",
						  "libnvrtc-builtins.so*", NULL };
	static const char *const cuda_win[] = { "cublas64_*.dll", "cublasLt64_*.dll",
						"nvrtc64_*.dll", "nvrtc-builtins64_*.dll", NULL };
	char *inc = xasprintf("%s/include", dir), *lib = xasprintf("%s/lib", dir);
	char *lib64 = xasprintf("%s/lib64", dir), *libx64 = xasprintf("%s/lib/x64", dir);
	char *bin = xasprintf("%s/bin", dir), *binx64 = xasprintf("%s/bin/x64", dir);
	char real_lib[PATH_MAX] = "", real_lib64[PATH_MAX] = "";
	int rc = CF_OK;
	if (!io_is_dir(dir)) {
		rc = cf_fail(e, CF_SOURCE, "%s: not a directory", dir);
		goto out;
	}
	if (!realpath(lib, real_lib))
		real_lib[0] = '\0';
	if (!realpath(lib64, real_lib64))
		real_lib64[0] = '\0';
	/* lib64 is often a link to lib: take each real directory once, always as lib/. */
	const char *libdirs[] = { lib, strcmp(real_lib, real_lib64) ? lib64 : NULL };
	const char *layout[] = { inc, lib, lib64, libx64, bin, binx64 };
	for (size_t i = 0; i < sizeof(layout) / sizeof(layout[0]) && rc == CF_OK; i++)
		rc = layout_dir_inside(dir, layout[i], e);
	if (rc == CF_OK)
		rc = take_matching(t, inc, "include", headers, tree_add, e);
	if (rc == CF_OK)
		rc = take_matching(t, inc, "include", p->files.include_dirs, take_whole, e);
	for (size_t i = 0; i < 2 && rc == CF_OK; i++) {
		if (!libdirs[i])
			continue;
		rc = take_matching(t, libdirs[i], "lib", linux_libs, tree_add, e);
		if (rc == CF_OK && with_cuda_libs)
			rc = take_matching(t, libdirs[i], "lib", cuda_linux, tree_add, e);
	}
	if (rc == CF_OK)
		rc = take_matching(t, libx64, "lib/x64", win_libs, tree_add, e);
	const char *bindirs[] = { bin, binx64 }, *binnames[] = { "bin", "bin" };
	for (size_t i = 0; i < 2 && rc == CF_OK; i++) {
		rc = take_matching(t, bindirs[i], binnames[i], win_dlls, tree_add, e);
		if (rc == CF_OK && with_cuda_libs)
			rc = take_matching(t, bindirs[i], binnames[i], cuda_win, tree_add, e);
	}
	if (rc == CF_OK)
		rc = take_license(dir, t, e);
	if (rc != CF_OK)
		goto out;
	if (version_from_headers(p, inc, t->version, sizeof(t->version)) != 0) {
		const char *second = p->version.headers[1];
		rc = cf_fail(e, CF_SOURCE, "%s: no %s headers (include/%s%s%s) found", dir,
			     p->display, p->version.headers[0], second ? " or include/" : "",
			     second ? second : "");
		goto out;
	}
	char exact[64], dist[256];
	if (dist_info_version(dir, p->wheel_dist, exact, sizeof(exact), dist, sizeof(dist)) == 0 &&
	    compat_version_cmp(exact, t->version) == 0) {
		const char *cu = dist + strlen(p->wheel_dist) + 3; /* past the stem and "_cu" */
		snprintf(t->version, sizeof(t->version), "%s", exact);
		snprintf(t->wheel_dist, sizeof(t->wheel_dist), "%s", dist);
		snprintf(t->cuda_variant, sizeof(t->cuda_variant), "%.*s",
			 (int)strspn(cu, "0123456789"), cu);
	}
	detect_platform(t, t->platform, sizeof(t->platform));
	detect_cuda_libs(dir, p->cuda_libs_opened[0] != NULL, t);
out:
	free(inc);
	free(lib);
	free(lib64);
	free(libx64);
	free(bin);
	free(binx64);
	return rc;
}

/* ---- archives ---- */

/* An archive entry's own name (or hard-link target) stays inside the extraction directory. */
static int entry_name_safe(const char *name)
{
	if (!name || !*name || name[0] == '/')
		return 0;
	for (const char *p = name; *p; p += strcspn(p, "/"), p += strspn(p, "/"))
		if (strncmp(p, "..", 2) == 0 && (p[2] == '/' || p[2] == '\0'))
			return 0;
	return 1;
}

static int extract_archive(const char *archive, const char *dest, struct cf_err *e)
{
	struct archive *a = archive_read_new(), *w = archive_write_disk_new();
	struct archive_entry *ent;
	int rc = CF_OK;
	archive_read_support_format_tar(a);
	archive_read_support_format_zip(a);
	archive_read_support_filter_xz(a);
	archive_read_support_filter_gzip(a);
	archive_read_support_filter_bzip2(a);
	archive_read_support_filter_zstd(a);
	/* libarchive's no-".." and no-absolute rules would judge the whole name, dest included
	 * (an absolute -o, the kit's cache): the entry's own name is checked below instead. */
	archive_write_disk_set_options(w, ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_TIME |
					   ARCHIVE_EXTRACT_PERM);
	if (archive_read_open_filename(a, archive, 1 << 20) != ARCHIVE_OK) {
		rc = cf_fail(e, CF_SOURCE, "%s: %s", archive, archive_error_string(a));
		goto out;
	}
	for (;;) {
		int r = archive_read_next_header(a, &ent);
		if (r == ARCHIVE_EOF)
			break;
		if (r != ARCHIVE_OK) {
			rc = cf_fail(e, CF_SOURCE, "%s: %s", archive, archive_error_string(a));
			break;
		}
		const char *name = archive_entry_pathname(ent), *hardlink = archive_entry_hardlink(ent);
		if (!entry_name_safe(name) || (hardlink && !entry_name_safe(hardlink))) {
			rc = cf_fail(e, CF_SOURCE, "%s: unsafe entry name '%s'", archive, name ? name : "");
			break;
		}
		mode_t type = archive_entry_filetype(ent);
		if (type != AE_IFREG && type != AE_IFDIR && type != AE_IFLNK)
			continue; /* nothing else belongs in an install tree */
		archive_entry_set_mode(ent, (archive_entry_mode(ent) & ~(mode_t)07022) |
						    (type == AE_IFDIR ? 0700 : 0600));
		char *path = xasprintf("%s/%s", dest, name);
		archive_entry_set_pathname(ent, path);
		free(path);
		if (hardlink) {
			char *target = xasprintf("%s/%s", dest, hardlink);
			archive_entry_set_hardlink(ent, target);
			free(target);
		}
		if (archive_read_extract2(a, ent, w) != ARCHIVE_OK) {
			rc = cf_fail(e, CF_SOURCE, "%s: %s", archive, archive_error_string(w));
			break;
		}
	}
out:
	archive_write_free(w);
	archive_read_free(a);
	return rc;
}

/* A directory itself, not a link to one: the archive walk never follows a link (tree_add
 * judges it as a link). */
static int is_real_dir(const char *path)
{
	struct platform_stat st;
	return platform_lstat(path, &st) == 0 && st.type == PLATFORM_TYPE_DIR;
}

/* NVIDIA's 9.18+ Windows zips for CUDA 13 keep the DLLs in bin/x64/; the install's PATH
 * entry is bin\ (DESIGN §6, Windows), so they are packed as bin/. */
static const char *install_dir_name(const char *rel, const char *name)
{
	if (!*rel && strcmp(name, "lib64") == 0)
		return "lib";
	if (strcmp(rel, "bin") == 0 && strcmp(name, "x64") == 0)
		return "";
	return name;
}

/* Every file and link under dir, recursively; "lib64" at the top becomes "lib", "bin/x64"
 * becomes "bin"; the product's include_dirs are taken as --from-dir takes them. */
static int take_all(struct tree *t, const char *dir, const char *rel, struct cf_err *e)
{
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *de;
	int rc = CF_OK;
	if (!d)
		return cf_fail(e, CF_SOURCE, "%s: %s", dir, strerror(errno));
	while (rc == CF_OK && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		const char *name = install_dir_name(rel, de->d_name);
		char *src = xasprintf("%s/%s", dir, de->d_name);
		char *path = !*name ? xstrdup(rel) : *rel ? xasprintf("%s/%s", rel, name) : xstrdup(name);
		/* An include_dirs entry by its own rules, not the archive's leniency (links). */
		if (strcmp(rel, "include") == 0 && matches_any(name, t->product->files.include_dirs))
			rc = take_whole(t, path, src, e);
		else if (is_real_dir(src))
			rc = take_all(t, src, path, e);
		else if (!*name)
			rc = cf_fail(e, CF_SOURCE, "%s: a file where bin/x64/ should be a directory", src);
		else
			rc = tree_add(t, path, src, e);
		free(src);
		free(path);
	}
	closedir(d);
	return rc;
}

/* The one top directory of an archive (NVIDIA always has one), or dir itself. */
static char *archive_root(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char *only = NULL;
	int count = 0;
	if (!d)
		return xstrdup(dir);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		count++;
		free(only);
		only = xasprintf("%s/%s", dir, de->d_name);
	}
	closedir(d);
	if (count == 1 && is_real_dir(only))
		return only;
	free(only);
	return xstrdup(dir);
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static void platform_alias(const char *in, char *out, size_t size)
{
	const struct platform_spec *p = platform_find_archive_name(in);
	snprintf(out, size, "%s", p ? p->name : in);
}

void source_parse_archive_name(const struct product *p, const char *path, char *version,
			       size_t vsize, char *cuda, size_t csize, char *platform, size_t psize)
{
	const char *name = base_name(path), *stem = p->archive_stem;
	size_t sn = strlen(stem);
	/* after: past the stem and its dash; "" when the name is none of the product's */
	const char *after = strncmp(name, stem, sn) == 0 && name[sn] == '-' ? name + sn + 1 : "";
	char plat[32];
	int a, b, c, d;
	version[0] = cuda[0] = platform[0] = '\0';
	/* Legacy: STEM-11.4-windows-x64-v8.2.2.26.zip, STEM-11.3-linux-x64-v8.2.1.32.tgz */
	if (sscanf(after, "%d.%d-%31[a-z0-9_]-%*[a-z0-9]-v%d.", &a, &b, plat, &c) >= 3 ||
	    sscanf(after, "%d.%d-%31[a-z0-9]-", &a, &b, plat) == 3) {
		const char *v = strstr(name, "-v");
		const char *dash = strchr(strchr(after, '-') + 1, '-');
		snprintf(cuda, csize, "%d.%d", a, b);
		if (dash && v) {
			char full[32];
			snprintf(full, sizeof(full), "%.*s", (int)(v - strchr(after, '-') - 1),
				 strchr(after, '-') + 1);
			platform_alias(full, platform, psize);
		}
		if (v) {
			size_t n = strspn(v + 2, "0123456789.");
			while (n && v[2 + n - 1] == '.')
				n--;
			snprintf(version, vsize, "%.*s", (int)n, v + 2);
		}
		return;
	}
	/* Redist: STEM-linux-x86_64-9.13.0.50_cuda13-archive.tar.xz */
	for (size_t i = 0; platform_at(i); i++) {
		char prefix[64];
		snprintf(prefix, sizeof(prefix), "%s-%s-", stem, platform_at(i)->name);
		if (strncmp(name, prefix, strlen(prefix)) != 0)
			continue;
		snprintf(platform, psize, "%s", platform_at(i)->name);
		const char *v = name + strlen(prefix);
		size_t n = strspn(v, "0123456789.");
		snprintf(version, vsize, "%.*s", (int)n, v);
		if (sscanf(v + n, "_cuda%d", &d) == 1)
			snprintf(cuda, csize, "%d", d);
		return;
	}
}

static int check_agreement(const char *archive, struct tree *t, struct cf_err *e)
{
	char nver[64], ncuda[16], nplat[32];
	source_parse_archive_name(t->product, archive, nver, sizeof(nver), ncuda, sizeof(ncuda),
				  nplat, sizeof(nplat));
	if (nver[0] && compat_version_cmp(nver, t->version) != 0)
		return cf_fail(e, CF_SOURCE, "%s: the name says %s %s, its headers say %s",
			       base_name(archive), t->product->display, nver, t->version);
	if (nver[0] && strlen(nver) > strlen(t->version))
		snprintf(t->version, sizeof(t->version), "%s", nver);
	if (nplat[0] && t->platform[0] && strcmp(nplat, t->platform) != 0)
		return cf_fail(e, CF_SOURCE, "%s: the name says %s, its libraries are for %s",
			       base_name(archive), nplat, t->platform);
	if (nplat[0] && !t->platform[0])
		snprintf(t->platform, sizeof(t->platform), "%s", nplat);
	if (ncuda[0] && strchr(ncuda, '.')) {
		snprintf(t->cuda_hint, sizeof(t->cuda_hint), "%s", ncuda);
		snprintf(t->cuda_variant, sizeof(t->cuda_variant), "%.*s",
			 (int)strcspn(ncuda, "."), ncuda);
	} else if (ncuda[0]) {
		snprintf(t->cuda_variant, sizeof(t->cuda_variant), "%s", ncuda);
	}
	return CF_OK;
}

/* Which archive went where, for the member names of the provenance record. */
static void note_archive(struct tree *t, const char *archive, const char *dir)
{
	if (t->narchives >= TREE_MAX_ARCHIVES)
		return;
	t->archives[t->narchives].file = xstrdup(archive);
	t->archives[t->narchives++].dir = xstrdup(dir);
}

static int extract_to_workdir(const char *archive, const char *workdir, char **root,
			      char **tmp, struct cf_err *e)
{
	if (io_mkdirs(workdir, 0700) != 0)
		return cf_fail(e, CF_SOURCE, "%s: %s", workdir, strerror(errno));
	*tmp = xasprintf("%s/extract-XXXXXX", workdir);
	if (!mkdtemp(*tmp))
		return cf_fail(e, CF_SOURCE, "%s: %s", workdir, strerror(errno));
	int rc = extract_archive(archive, *tmp, e);
	if (rc == CF_OK)
		*root = archive_root(*tmp);
	return rc;
}

int source_from_archive(const char *archive, const char *workdir, struct tree *t,
			struct cf_err *e)
{
	char *root = NULL;
	int rc = extract_to_workdir(archive, workdir, &root, &t->tmpdir, e);
	if (rc == CF_OK)
		note_archive(t, archive, t->tmpdir);
	if (rc == CF_OK)
		rc = take_all(t, root, "", e);
	if (rc == CF_OK) {
		char *inc = xasprintf("%s/include", root);
		if (version_from_headers(t->product, inc, t->version, sizeof(t->version)) != 0)
			rc = cf_fail(e, CF_SOURCE, "%s: no %s headers in the archive", archive,
				     t->product->display);
		free(inc);
	}
	if (rc == CF_OK) {
		detect_platform(t, t->platform, sizeof(t->platform));
		rc = check_agreement(archive, t, e);
	}
	free(root);
	return rc;
}

int source_add_component_archive(const char *archive, const char *workdir, const char *platform,
				 struct tree *t, struct cf_err *e)
{
	static const char *const lic[] = { "LICENSE", NULL };
	char *root = NULL, *tmp = NULL;
	int rc = extract_to_workdir(archive, workdir, &root, &tmp, e);
	const struct platform_spec *p = platform_facts(platform);
	const char *const libs[] = { p->lib_pattern, NULL };
	if (rc == CF_OK)
		note_archive(t, archive, tmp);
	if (rc == CF_OK && root) { /* root is set whenever the extraction succeeded */
		char *lib = xasprintf("%s/%s", root, p->lib_dir);
		rc = layout_dir_inside(root, lib, e);
		if (rc == CF_OK)
			rc = take_matching(t, lib, p->lib_dir, libs, tree_add, e);
		free(lib);
	}
	if (rc == CF_OK) {
		/* Each component's licence travels with it, under its own name. */
		size_t before = t->count;
		rc = take_matching(t, root, "LICENSE", lic, tree_add, e);
		if (rc == CF_OK && t->count > before) {
			char *stem = xstrdup(base_name(archive));
			stem[strcspn(stem, "-")] = '\0';
			free(t->entries[before].path);
			t->entries[before].path = xasprintf("LICENSE.%s.txt", stem);
			free(stem);
		}
	}
	/* Extracted files must outlive this call: they are packed later. Keep tmp. */
	free(root);
	free(tmp);
	return rc;
}

/* A plain file name: letters, digits and ._+- , not starting with a dot. */
static int plain_file_name(const char *name)
{
	if (!*name || name[0] == '.' || strlen(name) > 128)
		return 0;
	for (const char *p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("._+-", *p))
			return 0;
	return 1;
}

int source_add_user_file(struct tree *t, const char *file, struct cf_err *e)
{
	struct stat st;
	const char *name = base_name(file);
	if (!plain_file_name(name))
		return cf_fail(e, CF_USAGE, "--add-file %s: '%s' is not a plain file name (letters, "
			       "digits and ._+- only)", file, name);
	if (stat(file, &st) != 0)
		return cf_fail(e, CF_USAGE, "--add-file %s: %s", file, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return cf_fail(e, CF_USAGE, "--add-file %s: not a regular file", file);
	if (shadow_is_system_library(name))
		return cf_fail(e, CF_USAGE, "--add-file %s: %s is the distribution's own library, which "
			       "every target has: bundled, it would replace the system's for every program",
			       file, name);
	char *path = xasprintf("%s/%s", platform_facts(t->platform)->lib_dir, name);
	int rc = CF_OK;
	if (tree_has(t, path))
		rc = cf_fail(e, CF_USAGE, "--add-file %s: the bundle already holds %s", file, path);
	else
		rc = tree_add(t, path, file, e);
	free(path);
	return rc;
}
