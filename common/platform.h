/* platform.h - the one interface through which the unpacker side makes operating-system
 * calls: files through handles, paths and their metadata, directories, the no-follow tree,
 * locks, links and disk space, time, interrupts, processes, threads, the unprivileged drop,
 * run-time loaded libraries and where the system finds them. POSIX in
 * common/platform_posix*.c, what only Linux has (/proc, prctl, memfd, dl_iterate_phdr,
 * ld.so.conf) in platform_linux*.c;
 * Windows (mingw-w64) in platform_win*.c, behind the same calls. No OS type crosses this header:
 * a handle is an int, metadata is struct platform_stat. Errors are reported as -1 with errno
 * set, so callers word them the same way on every platform. */
#ifndef COMMON_PLATFORM_H
#define COMMON_PLATFORM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h> /* ssize_t: also in mingw-w64 */
#include <time.h>

/* The C library's version where it is glibc ("2.36", gnu_get_libc_version); NULL elsewhere. */
const char *platform_libc_version(void);
/* The running Windows' version, "major.minor" ("6.1", "10.0"), as the kernel reports it
 * (RtlGetVersion: GetVersionEx answers what the program's manifest claims to support); NULL
 * elsewhere or when it cannot be read. */
const char *platform_windows_version(void);
int platform_is_admin(void);
int platform_cpu_count(void);
/* Threads, and a monitor (a lock with one condition) they share: what the payload's reader,
 * decoding workers and writer need (common/bundle/), opaque so that no pthread or Windows type
 * crosses this header. start: 0, or -1 with errno. join waits for the thread's end and frees
 * it. wait leaves the monitor, sleeps until a wake (or spuriously: callers loop on their
 * condition) and enters again; wake wakes every waiter. */
struct platform_thread;
struct platform_monitor;
int platform_thread_start(struct platform_thread **out, void (*fn)(void *), void *arg);
void platform_thread_join(struct platform_thread *t);
struct platform_monitor *platform_monitor_new(void); /* NULL when out of memory */
void platform_monitor_free(struct platform_monitor *m);
void platform_monitor_enter(struct platform_monitor *m);
void platform_monitor_leave(struct platform_monitor *m);
void platform_monitor_wait(struct platform_monitor *m);
void platform_monitor_wake(struct platform_monitor *m);
/* A number unique to this process among those running, for temporary names. */
long platform_process_id(void);
/* The absolute path of this program's own executable file; NULL if unknown. The string is
 * static. */
const char *platform_self_path(void);

/* Replace (or create) link so it points at target, atomically: readers see old or new. */
int platform_switch_link(const char *link, const char *target);
/* What err (an errno value) means, for a message: strerror(err); on Windows, when err is what
 * this thread's last failed Windows call was turned into, that call's code and text too
 * ("Windows error 1314: A required privilege is not held by the client"), alone for EIO,
 * which stands for every code errno has no name for. errno itself stays what callers branch
 * on. The text lives until a few more calls of this thread. */
const char *platform_strerror(int err);
/* 1 when err (an errno value) says the disk, or this user's quota on it, is full. */
int platform_error_is_no_space(int err);
/* Bytes available to this user on the file system that holds path. */
int platform_free_bytes(const char *path, uint64_t *out);
/* Files that can still be created there (inodes); UINT64_MAX where there is no fixed limit. */
int platform_free_inodes(const char *path, uint64_t *out);
/* Take an exclusive lock on path without waiting: 0 ok (fd kept in *handle), 1 busy, -1 error. */
int platform_lock(const char *path, int *handle);
void platform_unlock(int handle);
/* 0 when path (file or directory) is owned by root and not writable by group or others. */
int platform_is_admin_owned(const char *path);
/* For a directory ABOVE one written to as an administrator: POSIX, the same as
 * platform_is_admin_owned; Windows, others may also hold create-only rights there (add
 * entries, as every user may in %ProgramData% and C:\), never delete, rename or re-permission
 * what is there. 0 when guarded so. */
int platform_is_admin_guarded(const char *path);

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
/* First thing in main, before any library is loaded by name: this program's own search for
 * the libraries it names is the system's library directory alone (Windows: System32, never
 * the program's directory or the working directory); POSIX: nothing to do (0). 0, or -1. */
int platform_lib_search_system_only(void);
/* In the probe child, before anything is loaded: libraries loaded by name (what the product loads
 * itself) are looked for where an installed program finds them, along
 * platform_lib_config_dirs(""), never in this program's directory or the working directory
 * (Windows); POSIX: nothing to do here (0), the child's environment decides. 0, or -1. */
int platform_lib_search_as_installed(void);

/* Watch, from a thread, for a library whose path contains name being mapped at any moment
 * until platform_lib_watch_end: libraries that are opened and closed again (a product's use of
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

/* What a child's collected output may hold: platform_run (ldconfig -p's list), and the probe,
 * whose first line is all that is used (its results come on the report pipe). */
#define PLATFORM_RUN_OUTPUT_MAX (16u << 20)
#define PLATFORM_PROBE_OUTPUT_MAX (64u << 10)

struct platform_child {
	int exited;         /* it ended by itself: exit_code is valid */
	int exit_code;
	int timed_out;      /* killed at the deadline */
	char crash[96];     /* how it died, when it neither exited nor timed out (or, from
			     * platform_run_probe, why it was not started) */
	char *output;       /* what was collected, NUL-terminated (NULL if nothing); free() it */
	size_t output_len;
	int output_capped;  /* it wrote more than the cap: only the first bytes were kept */
	char contained[200]; /* platform_run_probe: how its tree of processes was held and ended */
};

/* Run prog (an absolute path) with argv and exactly the environment envp, nothing inherited
 * from ours, and wait for it, killing it after timeout_s seconds (0: no limit). 0 when it
 * ran (see *child for how it ended), -1 when it could not be started. */
int platform_run(const char *prog, char *const argv[], char *const envp[],
		 enum platform_capture capture, int timeout_s, struct platform_child *child);

/* This program's file, as platform_run_probe starts it again. */
struct platform_probe_program {
	const char *path;   /* the program's file */
	uint64_t size;      /* the bytes of its image (a .run's bundle after it is not run): 0, all */
	const char *loader; /* the dynamic loader that started it (no x bit on its medium), or NULL */
};
/* At start-up (main, before anything else is read): this program's own file is held so that
 * nobody can replace, rename or delete it while it runs, and platform_run_probe starts the
 * probe child from exactly that file (Windows: open without write or delete sharing; POSIX:
 * nothing to do, 0: the probe executes a sealed in-memory copy). 0, or -1: then main stops
 * (platform_run_probe takes the hold itself where main did not, and starts no probe without). */
int platform_self_hold(void);
/* Run this program again as the probe child (argv[0] its name) with exactly envp, stdout and
 * stderr collected, killed at timeout_s seconds. Unlike platform_run, the child holds no
 * right from its first instruction: it gives them up (platform_drop_privileges' user and
 * groups, looked up before the fork) before it is executed, so nothing, not even the C
 * library the dynamic loader maps, is loaded with privileges; and what is executed is a
 * sealed copy of the program in memory (POSIX: memfd_create), so the unprivileged user need
 * not reach the program's own path (without memfd: the path itself, which it must then be
 * able to read). The copy is made from platform_own_image, never from program->path: where
 * memfd exists but that image is not held, -1 with child->crash saying why (not started). Every process the child starts, in its session or not, is ended with it at
 * its end or at the deadline (POSIX: own session and process group under a keeper that is
 * PR_SET_CHILD_SUBREAPER; Windows: a job object); child->contained says how, for the log.
 * Windows cannot drop a right before a process exists, so there the child is created with a
 * restricted copy of this process's token (Administrators deny-only, no privileges, integrity
 * Low) and from this program's own file held by platform_self_hold (a path naming any other
 * file: EPERM, not started). 0 when it ran (see *child), -1 when it could not be started. */
int platform_run_probe(const struct platform_probe_program *program, char *const argv[],
		       char *const envp[], int timeout_s, struct platform_child *child);

/* ---- files through handles: a handle is an int, never inherited by a child process ---- */

enum platform_open_flags {
	PLATFORM_OPEN_READ = 1 << 0,
	PLATFORM_OPEN_WRITE = 1 << 1,
	PLATFORM_OPEN_CREATE = 1 << 2,    /* with the mode given (the umask applies) */
	PLATFORM_OPEN_EXCL = 1 << 3,      /* with CREATE: fail (EEXIST) when the name is taken */
	PLATFORM_OPEN_TRUNC = 1 << 4,
	PLATFORM_OPEN_APPEND = 1 << 5,
	PLATFORM_OPEN_NOFOLLOW = 1 << 6,  /* a link as the last component is an error (ELOOP) */
	PLATFORM_OPEN_NONBLOCK = 1 << 7,  /* opening a FIFO (or a device) never blocks */
	PLATFORM_OPEN_DIRECTORY = 1 << 8, /* only a directory (for platform_fsync of it) */
};
int platform_open(const char *path, int flags, unsigned mode);
/* Read up to len bytes (one call: it may return fewer); 0 at end of file, -1 on error. */
ssize_t platform_read(int handle, void *buf, size_t len);
/* Read up to len bytes at offset without moving the handle's position (one call, as
 * platform_read: from a regular file, fewer than len only at its end). */
ssize_t platform_pread(int handle, void *buf, size_t len, uint64_t offset);
ssize_t platform_write(int handle, const void *buf, size_t len);
/* Make what was written through handle (a file or an open directory) durable. */
int platform_fsync(int handle);
int platform_close(int handle);
/* Give an open file the permission bits mode (whatever the umask). */
int platform_set_mode(int handle, unsigned mode);
/* Give an open file or directory to owner and group (POSIX fchown, as root; Windows: ENOTSUP,
 * its files belong to who created them). */
int platform_set_owner(int handle, unsigned long owner, unsigned long group);
/* Reads and writes on handle return at once (EAGAIN) instead of waiting. */
int platform_set_nonblocking(int handle);
/* 1 when handle is open in this process. */
int platform_handle_valid(int handle);
/* 1 when handle is a terminal (progress bars, colours). */
int platform_is_terminal(int handle);
/* Create and open a fresh file from template (its last six characters "XXXXXX" are
 * replaced), readable and writable by this user only: a handle, or -1. */
int platform_temp_file(char *template);

/* ---- metadata: the small portable part of stat ---- */

enum platform_file_type {
	PLATFORM_TYPE_FILE,
	PLATFORM_TYPE_DIR,
	PLATFORM_TYPE_LINK,  /* only from platform_lstat / platform_stat_at */
	PLATFORM_TYPE_OTHER, /* a FIFO, socket or device */
};
#define PLATFORM_MODE_STICKY 01000u /* in mode: only an entry's owner may remove it */
struct platform_stat {
	enum platform_file_type type;
	unsigned mode;         /* permission bits and PLATFORM_MODE_STICKY (07777) */
	uint64_t size;
	int64_t mtime;         /* seconds since 1970, UTC */
	uint64_t device;       /* device and inode together name the file: equal pairs, same file */
	uint64_t inode;
	unsigned long owner;   /* user id; 0 is the administrator (root; on Windows: Administrators
				* or SYSTEM) */
	unsigned long group;
	unsigned long links;   /* hard links to the file (1 for most; 0 where not known) */
};
/* Follows links. */
int platform_stat(const char *path, struct platform_stat *st);
/* A link as the last component is described itself, not followed. */
int platform_lstat(const char *path, struct platform_stat *st);
int platform_fstat(int handle, struct platform_stat *st);

/* ---- paths ---- */

enum platform_access { PLATFORM_CAN_EXIST = 0, PLATFORM_CAN_READ = 1, PLATFORM_CAN_EXECUTE = 2 };
/* 0 when this process (its real user) may do what (searching, for a directory) on path. */
int platform_access(const char *path, enum platform_access what);
/* The absolute path with every link and . and .. resolved, in out (size bytes). */
int platform_realpath(const char *path, char *out, size_t size);
/* The target of the link path, NUL-terminated in out: its length, or -1 (EINVAL: not a link;
 * ENAMETOOLONG: longer than size - 1). */
ssize_t platform_readlink(const char *path, char *out, size_t size);
int platform_mkdir(const char *path, unsigned mode);
int platform_rmdir(const char *path);
int platform_unlink(const char *path);
/* Rename from over to (atomically replacing it where the system can). */
int platform_rename(const char *from, const char *to);
int platform_chmod(const char *path, unsigned mode);
/* The absolute path of the current directory, in out (size bytes). */
int platform_current_dir(char *out, size_t size);
/* The longest file name one directory entry may have. */
size_t platform_name_max(void);

/* ---- directories ---- */

/* Read a directory's names one by one (never "." or ".."), in the order the system gives:
 * NULL when dir cannot be opened; platform_dir_next returns NULL at the end, and its name
 * is valid until the next call. */
struct platform_dir;
struct platform_dir *platform_dir_open(const char *dir);
const char *platform_dir_next(struct platform_dir *d);
void platform_dir_close(struct platform_dir *d);
/* Call fn with each name in dir (never "." or ".."), in the order the system gives; fn
 * returning non-zero stops the listing and becomes the result. -1 when dir cannot be read. */
int platform_dir_list(const char *dir, int (*fn)(const char *name, void *ctx), void *ctx);
/* Walk the tree at path without following any link and without leaving its file system,
 * calling fn for each entry (path itself included) with its metadata: a directory after
 * everything in it. fn returning non-zero stops the walk and becomes the result. */
int platform_walk_post(const char *path,
		       int (*fn)(const char *path, const struct platform_stat *st, void *ctx),
		       void *ctx);
/* Call fn with each existing path that matches pattern (shell wildcards in any component;
 * sorted bytewise when sorted is set); the number of matches. */
int platform_glob(const char *pattern, int sorted, void (*fn)(const char *path, void *ctx),
		  void *ctx);

/* ---- inside a directory opened by platform_tree_open or platform_tree_open_parent:
 *      name is one component, and a link named by it is never followed ---- */

int platform_stat_at(int dir, const char *name, struct platform_stat *st);
ssize_t platform_readlink_at(int dir, const char *name, char *out, size_t size);
/* Open name (PLATFORM_OPEN_NOFOLLOW always applies). */
int platform_open_at(int dir, const char *name, int flags, unsigned mode);
int platform_symlink_at(int dir, const char *name, const char *target);
int platform_unlink_at(int dir, const char *name);
/* Create the directory name (mode as given, less the umask; set it through a handle opened
 * without following a link, never by name: the directory may be someone else's to change).
 * POSIX mkdirat; Windows: ENOTSUP (nothing there creates one so). */
int platform_mkdir_at(int dir, const char *name, unsigned mode);
/* Rename from over to, both in dir: readers see the old entry or the new one. */
int platform_rename_at(int dir, const char *from, const char *to);

/* ---- time ---- */

/* Exactly "YYYY-MM-DDTHH:MM:SSZ" as seconds since 1970 UTC; -1 for anything else (the
 * fields are not range-checked: 2026-02-30 comes out as 2026-03-02). */
int platform_parse_utc(const char *iso, int64_t *out);
/* The broken-down UTC time of t (seconds since 1970) in out. */
int platform_utc_time(int64_t t, struct tm *out);
/* The wall-clock time now, in seconds since 1970 UTC (time stamps in the state, the log). */
int64_t platform_time_now(void);
/* Seconds on a clock that only goes forward (not the wall clock, which may be set back):
 * only the difference of two readings means anything (durations, rate limits). */
double platform_elapsed_s(void);

/* ---- interrupts ---- */

enum platform_interrupt {
	PLATFORM_INTERRUPT_NONE = 0,
	PLATFORM_INTERRUPT_INT = 1,  /* Ctrl-C (SIGINT; CTRL_C_EVENT) */
	PLATFORM_INTERRUPT_TERM = 2, /* asked to stop (SIGTERM; CTRL_CLOSE_EVENT, shutdown) */
	PLATFORM_INTERRUPT_HUP = 3,  /* the terminal went away (SIGHUP; CTRL_LOGOFF_EVENT) */
};
/* Call handler(kind) when the user or the system asks this process to stop. handler runs
 * asynchronously (in a signal handler, or on another thread on Windows): it may only store
 * the kind in a volatile sig_atomic_t. A blocked read then returns EINTR where the system
 * can do that. */
void platform_on_interrupt(void (*handler)(int kind));
/* How a message says which interrupt came, after "interrupted ": "by SIGINT" (POSIX),
 * "(Ctrl-C)" (Windows, where there are no signals to name). */
const char *platform_interrupt_name(int kind);
/* A crash (a bad memory access, an illegal instruction, an abort) ends this process with the
 * system's own report, whatever handler a library or a sanitizer installed before. */
void platform_crash_default(void);

/* ---- the probe child: handles it keeps, and the rights it gives up ---- */

/* A pipe whose write end a child started by platform_run inherits (the read end it does
 * not), holding capacity bytes before a writer waits where the system can size it. */
int platform_child_pipe(int *read_end, int *write_end, size_t capacity);
/* Close every handle of this process except the standard streams and keep. */
void platform_close_other_handles(int keep);
/* The real user this process runs as (0: the administrator), for reports. */
unsigned long platform_user_id(void);
/* Give up for good every right beyond an ordinary user's before vendor code is loaded
 * (POSIX as root: user nobody, no supplementary group but the GPU device's when others may
 * not open it, no capabilities, no_new_privs; Windows: a restricted token). Not the
 * administrator: only what stops later gains (no_new_privs). 0, or -1 with the reason in
 * why; then nothing may be loaded. */
int platform_drop_privileges(char *why, size_t size);

/* ---- where the system finds libraries (the loader's configuration and cache) ---- */

/* Each directory the system's loader configuration under root ("" for this system) lists,
 * in the loader's order, every occurrence, with the file that names it as the system sees
 * it (POSIX: ld.so.conf and its includes, read as glibc's ldconfig reads them; Windows: the
 * machine's and the user's PATH from the registry, source "HKLM" or "HKCU"). */
void platform_lib_config_dirs(const char *root,
			      void (*fn)(const char *dir, const char *source, void *ctx), void *ctx);
/* The program that rebuilds the loader's cache from its configuration, by absolute path (POSIX:
 * ldconfig, to be run with a clean environment, never looked up through PATH); NULL where the
 * system has none (Windows). */
const char *platform_lib_cache_program(void);
/* Each file the loader's cache holds for name, in the loader's order, with its flags
 * ("(libc6,x86-64)" from ldconfig -p, run with a clean environment): the count, or -1 when
 * there is no cache to ask (Windows has none: 0). */
int platform_lib_cache_find(const char *name,
			    void (*fn)(const char *path, const char *flags, void *ctx), void *ctx);

/* ---- the GPU driver ---- */

/* The version of the NVIDIA driver the system under root ("" for this one) runs, "580.65.06",
 * in out: 0, or -1 when it has none (or says nothing readable). POSIX: what the kernel module
 * reports in ROOT/proc/driver/nvidia/version; Windows: nvcuda.dll's version (root ""). */
int platform_driver_version(const char *root, char *out, size_t size);

/* ---- this process as the system sees it ---- */

/* The file that holds the code at address (this program, or a library mapped into it),
 * with its device and inode: 0, or -1 when the system cannot say. */
int platform_mapped_file(const void *address, char *path, size_t size, uint64_t *device,
			 uint64_t *inode);
/* The file the system started as this process (POSIX /proc/self/exe: the dynamic loader
 * when it was asked to run the program): 0, or -1. */
int platform_started_file(char *path, size_t size);
/* A read-only handle on the file that holds this program's code, opened before main and
 * kept for the life of the process (POSIX: /proc/self/exe, or, started through the dynamic
 * loader, the mapped file itself, accepted only with the mapping's device and inode), or -1
 * when none could be had (Windows: none; platform_self_hold keeps the file there). Reading
 * the program through it reads what runs, whatever its path names by then. Not to be closed. */
int platform_own_image(void);

/* ---- the persistent environment (Windows: the registry's Environment keys) ---- */

/* Whose environment: the machine's (HKLM\SYSTEM\CurrentControlSet\Control\Session Manager\
 * Environment, for every user) or this user's (HKCU\Environment). */
enum platform_env_scope { PLATFORM_ENV_MACHINE, PLATFORM_ENV_USER };
/* The stored value of name, exactly as stored (a %VARIABLE% is not expanded), in *value
 * (free() it); *expandable is 1 when it is stored as expandable (REG_EXPAND_SZ), else 0.
 * -1 with errno ENOENT when name is not set, ENOTSUP where the system keeps no persistent
 * environment (POSIX: the profile.d and ld.so.conf.d files do that job). */
int platform_env_read(enum platform_env_scope scope, const char *name, char **value,
		      int *expandable);
/* Store value under name, as expandable or not, whatever its length (no 1024-character
 * limit). Programs started afterwards see it once platform_env_announce has run. */
int platform_env_write(enum platform_env_scope scope, const char *name, const char *value,
		       int expandable);
/* Remove name (0 when it was not set either). */
int platform_env_delete(enum platform_env_scope scope, const char *name);
/* Tell running programs (Explorer, new consoles) that the persistent environment changed
 * (Windows: WM_SETTINGCHANGE "Environment" to every top-level window, 5 seconds at most). */
int platform_env_announce(void);

/* ---- how this system spells paths, and the folders it keeps (DESIGN.md §6) ---- */

/* The separator this system writes its own paths with: '/' (POSIX) or '\\' (Windows, whose
 * absolute paths start with a drive, "C:\", and which has no links an install could switch:
 * there state.json names the current install). */
char platform_dir_separator(void);
/* 1 when c separates directories in this system's paths ('/' everywhere, '\\' on Windows). */
int platform_is_separator(char c);
/* 1 when path is absolute as this system reads it (POSIX "/…"; Windows "C:\…" or "C:/…"). */
int platform_path_is_absolute(const char *path);
/* The folders Windows keeps per machine and per user. */
enum platform_folder {
	PLATFORM_FOLDER_PROGRAMS,    /* %ProgramFiles%: programs, for every user */
	PLATFORM_FOLDER_USER_DATA,   /* %LOCALAPPDATA%: this user's programs and data */
	PLATFORM_FOLDER_SHARED_DATA, /* %ProgramData%: data for every user (trust, log) */
};
/* The folder in out, without a trailing separator: 0, or -1 (ENOTSUP on POSIX, whose places
 * are fixed paths; ENOENT when the system does not say). */
int platform_known_folder(enum platform_folder which, char *out, size_t size);
/* The permission bits a regular file given mode (platform_file_finish) reports afterwards:
 * POSIX mode & 07777; Windows keeps only "read-only", so 0444 or 0644. */
unsigned platform_file_mode_kept(unsigned mode);
/* ---- the probe child on every system: its report pipe named on its command line, its clean
 *      environment, and where the system keeps its own libraries ---- */

/* The text that names write_end (from platform_child_pipe) on a child's command line (POSIX:
 * the descriptor's number; Windows: the inherited HANDLE's value, a C runtime descriptor
 * meaning nothing in another process): 0, or -1. */
int platform_child_handle_arg(int write_end, char *out, size_t size);
/* In the child: the handle a parent named with platform_child_handle_arg, as a handle of this
 * process (>= 3, never a standard stream), or -1 when arg names no open pipe or file. */
int platform_inherited_handle(const char *arg);
/* The environment a child gets before anything the caller adds, as "NAME=value" strings ending
 * with NULL (static): POSIX PATH=/usr/bin:/bin; Windows SystemRoot and PATH=System32 alone. */
const char *const *platform_clean_env(void);
/* The directory of the system's own libraries, where the GPU driver puts the library programs
 * load (Windows: System32, for nvcuda.dll), in out: 0, or -1 where the loader's cache finds
 * the driver instead (POSIX). */
int platform_system_lib_dir(char *out, size_t size);
/* 1 where a program that loads a library by name gets the first file of that name along
 * platform_lib_config_dirs("") and nothing else decides (Windows: no loader cache, no
 * LD_LIBRARY_PATH; the program's own directory aside), so the answer is read as files; 0 where
 * the loader's cache and the caller's environment decide (POSIX: asked of a child). */
int platform_lib_search_is_dirs(void);
/* After platform_drop_privileges: what this process still holds, read back from the system,
 * in out (Windows: the privileges left and the integrity level): 0, or -1 where the user id
 * (platform_user_id) says it all (POSIX). */
int platform_privilege_report(char *out, size_t size);

#endif
