/* platform_linux_lib.c - libraries loaded at run time, and watching what is mapped
 * (Linux: dl_iterate_phdr) */
#include "common/platform.h"

#include <dlfcn.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void *platform_lib_open(const char *path_or_name, enum platform_lib_binding binding)
{
	return dlopen(path_or_name, (binding == PLATFORM_LIB_LAZY ? RTLD_LAZY : RTLD_NOW) | RTLD_LOCAL);
}

void *platform_lib_symbol(void *lib, const char *name)
{
	return dlsym(lib, name);
}

const char *platform_lib_error(void)
{
	const char *why = dlerror();
	return why ? why : "unknown loader error";
}

int platform_lib_path(void *lib, char *out, size_t size)
{
	struct link_map *map = NULL;
	char real[PATH_MAX];
	if (dlinfo(lib, RTLD_DI_LINKMAP, &map) != 0 || !map || !realpath(map->l_name, real))
		return -1;
	snprintf(out, size, "%s", real);
	return 0;
}

int platform_lib_search_system_only(void)
{
	return 0; /* the dynamic loader never looks beside the program for a library it names */
}

int platform_lib_search_as_installed(void)
{
	return 0; /* the probe child's environment, which its parent builds, decides */
}

struct loaded_walk {
	void (*fn)(const char *path, void *ctx);
	void *ctx;
};

static int loaded_one(struct dl_phdr_info *info, size_t size, void *ctx)
{
	struct loaded_walk *w = ctx;
	(void)size;
	if (info->dlpi_name && *info->dlpi_name)
		w->fn(info->dlpi_name, w->ctx);
	return 0;
}

void platform_loaded_libs(void (*fn)(const char *path, void *ctx), void *ctx)
{
	struct loaded_walk w = { fn, ctx };
	dl_iterate_phdr(loaded_one, &w);
}

struct platform_lib_watch {
	const char *name;
	pthread_t thread;
	int running;
	int stop;
	char seen[PATH_MAX];
};

static void watch_one(const char *path, void *ctx)
{
	struct platform_lib_watch *w = ctx;
	if (!w->seen[0] && strstr(path, w->name))
		snprintf(w->seen, sizeof(w->seen), "%s", path);
}

static void *watch_main(void *ctx)
{
	struct platform_lib_watch *w = ctx;
	const struct timespec pause = { 0, 200 * 1000 }; /* 0.2 ms: a library loaded for a
							   * compile stays far longer */
	while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE) && !w->seen[0]) {
		platform_loaded_libs(watch_one, w);
		nanosleep(&pause, NULL);
	}
	return NULL;
}

struct platform_lib_watch *platform_lib_watch_start(const char *name)
{
	struct platform_lib_watch *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	w->name = name;
	w->running = pthread_create(&w->thread, NULL, watch_main, w) == 0;
	return w;
}

int platform_lib_watch_end(struct platform_lib_watch *w, char *path, size_t size)
{
	if (!w)
		return -1;
	__atomic_store_n(&w->stop, 1, __ATOMIC_RELEASE);
	if (w->running)
		pthread_join(w->thread, NULL);
	platform_loaded_libs(watch_one, w); /* and what is mapped now */
	int found = w->seen[0] ? 0 : -1;
	if (found == 0)
		snprintf(path, size, "%s", w->seen);
	free(w);
	return found;
}
