/* fakeconf.h - what the fake libraries read to be wrong on purpose. The probe runs them with a
 * clean environment, so the switch is a file, FAKE_CONF (compiled in by the test), of
 * "key=value" lines: gpus=N, cc=MM (every GPU's compute capability, 61 for 6.1),
 * ccG=MM (GPU G's), fwd_off_algo=A, bwd_filter_off=1, bad_gpu=G, hang_gpu=G,
 * graph_off_engine=E. Each constructor also records the uid it runs as in FAKE_UID_DIR, as
 * "uid-<uid>-<library>-<pid>", which proves no library the unpacker loads runs as root, and
 * "exe-readable-<library>-<pid>" when an unprivileged one could read the program it runs in. */
#ifndef FAKECONF_H
#define FAKECONF_H

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef _WIN32
/* The Windows build (mingw-w64, make windows-fakes): no uids, and NVIDIA's Windows API is
 * __stdcall (the one x64 convention; it matters for 32-bit callers only). */
#include <windows.h>
#define FAKE_API __stdcall
#define getuid() 0
#define pause() Sleep(INFINITE)
#define O_CLOEXEC 0
#else
#define FAKE_API
#endif

static long fake_conf(const char *key, long fallback)
{
#ifdef FAKE_CONF
	FILE *f = fopen(FAKE_CONF, "r");
	char line[128];
	size_t n = strlen(key);
	long v = fallback;
	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, key, n) == 0 && line[n] == '=')
			v = strtol(line + n + 1, NULL, 10);
	if (f)
		fclose(f);
	return v;
#else
	(void)key;
	return fallback;
#endif
}

static void fake_record_uid(const char *library)
{
#ifdef FAKE_UID_DIR
	char path[512];
	snprintf(path, sizeof(path), "%s/uid-%u-%s-%d", FAKE_UID_DIR, (unsigned)getuid(), library, (int)getpid());
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
#ifndef _WIN32
	/* The probe's own image must be unreadable to it once it runs unprivileged: the kernel
	 * then starts it non-dumpable, so no other process of that user can attach to it. */
	int self = getuid() != 0 ? open("/proc/self/exe", O_RDONLY | O_CLOEXEC) : -1;
	if (self >= 0) {
		close(self);
		snprintf(path, sizeof(path), "%s/exe-readable-%s-%d", FAKE_UID_DIR, library, (int)getpid());
		fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
	}
#endif
#else
	(void)library;
#endif
}

#endif
