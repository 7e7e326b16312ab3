/* dllsearch.c - the search a program's loader makes for a DLL by name, as files */
#include "unpacker/validate/dllsearch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/io.h"
#include "common/platform.h"
#include "unpacker/validate/pefile.h"

struct seen {
	char **dirs;
	size_t n;
	void (*fn)(const char *dir, const char *source, void *ctx);
	void *ctx;
};

/* A directory named twice (System32 on PATH as well) is searched at its first place only. */
static void once(const char *dir, const char *source, void *ctx)
{
	struct seen *s = ctx;
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->dirs[i], dir) == 0)
			return;
	s->dirs = xrealloc(s->dirs, (s->n + 1) * sizeof(char *));
	s->dirs[s->n++] = xstrdup(dir);
	s->fn(dir, source, s->ctx);
}

void dllsearch_dirs(void (*fn)(const char *dir, const char *source, void *ctx), void *ctx)
{
	struct seen s = { NULL, 0, fn, ctx };
	platform_lib_config_dirs("", once, &s);
	for (size_t i = 0; i < s.n; i++)
		free(s.dirs[i]);
	free(s.dirs);
}

int dllsearch_is_native(const char *path)
{
	struct pe_info info;
	char why[256];
	if (pe_parse_file(path, &info, why, sizeof(why)) != 0)
		return 0;
	int native = info.is_dll && info.machine == PE_MACHINE_AMD64;
	pe_info_free(&info);
	return native;
}

int dllsearch_version(const char *path, char *out, size_t size)
{
	struct pe_info info;
	char why[256];
	if (pe_parse_file(path, &info, why, sizeof(why)) != 0)
		return -1;
	int rc = info.has_version ? 0 : -1;
	if (rc == 0)
		snprintf(out, size, "%u.%u.%u.%u", info.file_version[0], info.file_version[1],
			 info.file_version[2], info.file_version[3]);
	pe_info_free(&info);
	return rc;
}

struct first {
	const char *name;
	struct dll_hit *hit;
	int found;
};

static void look(const char *dir, const char *source, void *ctx)
{
	struct first *f = ctx;
	if (f->found)
		return;
	char *path = xasprintf("%s\\%s", dir, f->name);
	struct platform_stat st;
	if (platform_stat(path, &st) == 0 && st.type == PLATFORM_TYPE_FILE && dllsearch_is_native(path)) {
		snprintf(f->hit->path, sizeof(f->hit->path), "%s", path);
		f->hit->source = source;
		f->found = 1;
	}
	free(path);
}

int dllsearch_first(const char *name, struct dll_hit *hit)
{
	struct first f = { name, hit, 0 };
	dllsearch_dirs(look, &f);
	return f.found ? 0 : -1;
}

const char *dllsearch_source_text(const char *source)
{
	static const char *const words[][2] = {
		{ "System32", "System32" }, { "Windows", "the Windows directory" },
		{ "HKLM", "the machine's PATH" }, { "HKCU", "the user's PATH" },
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strcmp(source, words[i][0]) == 0)
			return words[i][1];
	return source;
}
