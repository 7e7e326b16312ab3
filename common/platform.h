/* platform.h - the small interface behind which operating-system differences live:
 * processes, run-time loaded libraries, the no-follow staging tree, locks, links and disk
 * space. POSIX now; Windows (mingw-w64) is to be added behind the same calls. Errors are
 * reported as -1 with errno set, so callers word them the same way on every platform. */
#ifndef COMMON_PLATFORM_H
#define COMMON_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

/* NVIDIA's name for the platform this program was built for: "linux-x86_64", … */
const char *platform_name(void);
int platform_is_admin(void);
int platform_cpu_count(void);
/* A number unique to this process among those running, for temporary names. */
long platform_process_id(void);
/* The absolute path of this program's own executable file; NULL if unknown. The string is
 * static. */
const char *platform_self_path(void);

/* Replace (or create) link so it points at target, atomically: readers see old or new. */
int platform_switch_link(const char *link, const char *target);
/* Bytes available to this user on the file system that holds path. */
int platform_free_bytes(const char *path, uint64_t *out);
/* Files that can still be created there (inodes); UINT64_MAX where there is no fixed limit. */
int platform_free_inodes(const char *path, uint64_t *out);
/* Take an exclusive lock on path without waiting: 0 ok (fd kept in *handle), 1 busy, -1 error. */
int platform_lock(const char *path, int *handle);
void platform_unlock(int handle);
/* 0 when path (file or directory) is owned by root and not writable by group or others. */
int platform_is_admin_owned(const char *path);

/* ---- a tree being written from untrusted names: no link inside it is ever followed ---- */

/* Create a fresh directory from template (its last six characters "XXXXXX" are replaced),
 * readable only by this user until platform_tree_commit. */
int platform_private_dir(char *template);
/* Open the existing directory dir as the tree's root: a handle >= 0, or -1. */
int platform_tree_open(const char *dir);
/* Create the regular file relpath (and its missing parent directories) for writing, private
 * to this user until platform_file_finish: a writable descriptor, or -1 (errno EEXIST when
 * the name is taken, by anything). */
int platform_tree_create_file(int tree, const char *relpath);
/* Create the symbolic link relpath -> target (parents as above). */
int platform_tree_symlink(int tree, const char *relpath, const char *target);
/* Open the parent directory of relpath under tree (making missing ones), no link followed:
 * a descriptor, or -1; *name is relpath's last component. */
int platform_tree_open_parent(int tree, const char *relpath, const char **name);
/* Create the directory relpath, which must not exist yet. */
int platform_tree_mkdir(int tree, const char *relpath);
/* Give a written file its final mode, start writing it out to disk, and close it. */
int platform_file_finish(int fd, unsigned mode);
/* Make everything written under the tree durable, then open its root to readers (0755). */
int platform_tree_commit(int tree);
void platform_tree_close(int tree);

/* ---- libraries loaded at run time (the unpacker links nothing from CUDA) ---- */

enum platform_lib_binding { PLATFORM_LIB_NOW, PLATFORM_LIB_LAZY };
/* Load by absolute path, or by name through the system's search rules; NULL on failure,
 * with platform_lib_error() saying why. */
void *platform_lib_open(const char *path_or_name, enum platform_lib_binding binding);
void *platform_lib_symbol(void *lib, const char *name);
const char *platform_lib_error(void);
/* The file a loaded library came from, with links resolved. */
int platform_lib_path(void *lib, char *out, size_t size);
/* Call fn with the path of every library mapped into this process, as the loader names it. */
void platform_loaded_libs(void (*fn)(const char *path, void *ctx), void *ctx);

/* Watch, from a thread, for a library whose path contains name being mapped at any moment
 * until platform_lib_watch_end: libraries that are opened and closed again (cuDNN's use of
 * NVRTC) leave no trace a later look could find. */
struct platform_lib_watch;
struct platform_lib_watch *platform_lib_watch_start(const char *name);
/* Stop watching and free w: 0 with the first path seen in path, or -1 if it never was. */
int platform_lib_watch_end(struct platform_lib_watch *w, char *path, size_t size);

/* ---- child processes ---- */

enum platform_capture {
	PLATFORM_CAPTURE_NONE = 0,   /* the child writes to our stdout and stderr */
	PLATFORM_CAPTURE_STDOUT = 1, /* collect its stdout; its stderr goes to ours */
	PLATFORM_CAPTURE_ALL = 2,    /* collect stdout and stderr together */
};

struct platform_child {
	int exited;         /* it ended by itself: exit_code is valid */
	int exit_code;
	int timed_out;      /* killed at the deadline */
	char crash[96];     /* how it died, when it neither exited nor timed out */
	char *output;       /* what was collected, NUL-terminated (NULL if nothing); free() it */
	size_t output_len;
};

/* Run prog (an absolute path) with argv and exactly the environment envp, nothing inherited
 * from ours, and wait for it, killing it after timeout_s seconds (0: no limit). 0 when it
 * ran (see *child for how it ended), -1 when it could not be started. */
int platform_run(const char *prog, char *const argv[], char *const envp[],
		 enum platform_capture capture, int timeout_s, struct platform_child *child);

#endif
