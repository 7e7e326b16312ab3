/* platforms.h - the target platforms as data: one row per platform a bundle can be made for,
 * holding every fact the bundler, the manifest code, the chooser and the layout ask of one
 * (DESIGN.md §4). A caller asks the row a fact (p->lib_dir, p->links_allowed), never "is this
 * Windows": a new platform is a new row. */
#ifndef MANIFESTS_PLATFORMS_H
#define MANIFESTS_PLATFORMS_H

#include <stddef.h>
#include <stdint.h>

enum platform_os { PLATFORM_OS_LINUX, PLATFORM_OS_WINDOWS };
/* How the platform's programs and libraries are stored. */
enum platform_binary { PLATFORM_BINARY_ELF, PLATFORM_BINARY_PE };
/* Where an install's environment lives: ld.so.conf.d and profile.d files, or the registry's
 * PATH and the product's env_var. */
enum platform_env_store { PLATFORM_ENV_IN_FILES, PLATFORM_ENV_IN_REGISTRY };
/* Where programs and shared data live: the FHS (/opt, /etc, /var/log, ~/.local) or Windows'
 * known folders (Program Files, ProgramData, LocalAppData). */
enum platform_folders { PLATFORM_FOLDERS_FHS, PLATFORM_FOLDERS_KNOWN };
/* How a program finds its libraries: ld.so (its cache, ld.so.conf, the usual directories) or
 * Windows' DLL search order (the program's directory, System32, PATH). */
enum platform_loader { PLATFORM_LOADER_LD_SO, PLATFORM_LOADER_DLL_SEARCH };
/* What a bundle's libraries need of the system: a glibc version (their ELF symbol versions) or
 * a Windows version (their PE headers); the manifest's glibc_min and windows_min. */
enum platform_floor { PLATFORM_FLOOR_GLIBC, PLATFORM_FLOOR_WINDOWS };

struct platform_spec {
	const char *name;            /* NVIDIA's name, as in the manifest: linux-x86_64 */
	const char *old_names[3];    /* its names in NVIDIA's archives before the redist
				      * (STEM-11.4-windows-x64-v8.2.2.26.zip) */
	enum platform_os os;
	const char *arch;            /* x86_64, aarch64 */
	enum platform_binary binary; /* its programs' and libraries' file format */
	unsigned machine;            /* their ELF e_machine or PE Machine field */
	const char *program_kind;    /* "an x86-64 ELF program": how messages name one */
	const char *exe_suffix;      /* a program's file name ends in it: "" or ".exe" */
	const char *sfx_suffix;      /* a self-extracting bundle's: ".run" or ".exe" */
	uint64_t max_program_size;   /* the largest program file it starts; 0: no limit */
	const char *lib_dir;         /* where a bundle's libraries lie: lib or bin */
	const char *lib_pattern;     /* a library's file name (fnmatch): "*.so*", "*.dll" */
	int lib_named_only;          /* a library is told by its name alone, not its header */
	const char *lib_prefix;      /* a versioned library is PREFIX NAME INFIX VERSION EXT: */
	const char *lib_infix;       /* libcublas.so.13, cublas64_13.dll */
	const char *lib_ext;
	int links_allowed;           /* bundles may carry symbolic links; installs switch a
				      * current link (otherwise state.json alone names it) */
	enum platform_env_store env_store;
	enum platform_folders folders;
	enum platform_loader loader;
	const char *ld_cache_tag;    /* how `ldconfig -p` marks its libraries: "x86-64",
				      * "AArch64"; "" where there is no ld cache */
	enum platform_floor floor;
	const char *trust_dir;       /* the unpacker's trusted keys, as messages show them */
	const char *unpacker_make;   /* what builds its unpacker: "make aarch64" */
	const char *unpacker_alias;  /* another directory beside the bundler that may hold its
				      * unpacker (make's output, or a platform sharing it); NULL */
};

/* The row named name; NULL for a name no row has (and for NULL). */
const struct platform_spec *platform_find(const char *name);
/* The same, and also by the names NVIDIA's archives used before the redist (linux-x64). */
const struct platform_spec *platform_find_archive_name(const char *name);
/* The row of name, or for a name not (yet) checked, a row of no platform with the facts of a
 * Linux one (lib/, no links refused, .run), which matches no program: for code that goes on
 * and leaves the refusal to the check that comes later (manifest_validate, stub_find). */
const struct platform_spec *platform_facts(const char *name);
/* The first row whose programs carry this ELF e_machine (or PE Machine); NULL for none. Two
 * rows can share one (linux-sbsa and linux-aarch64): the first, linux-sbsa, is returned. */
const struct platform_spec *platform_from_elf_machine(unsigned machine);
const struct platform_spec *platform_from_pe_machine(unsigned machine);
/* The row a program or library is built for, from its first len bytes (an ELF header, or a
 * PE file's MZ header and, within len, its PE header); NULL when not one of a row's. */
const struct platform_spec *platform_of_program(const uint8_t *head, size_t len);
/* What those bytes are, for messages: the row's name, "another machine" (an ELF or MZ file of
 * no row) or "not a program". */
const char *platform_describe_program(const uint8_t *head, size_t len);
/* 1 when a and b run the same programs (linux-sbsa and linux-aarch64 share one unpacker). */
int platform_same_program(const struct platform_spec *a, const struct platform_spec *b);
/* The row this program was built for. */
const struct platform_spec *platform_self(void);
/* The file of library name at version (a number, or "*" for a pattern) on p: libcublas.so.13,
 * cublas64_13.dll. */
void platform_library_file(const struct platform_spec *p, const char *name, const char *version,
			   char *out, size_t size);
/* The rows, in order: i from 0 until NULL. */
const struct platform_spec *platform_at(size_t i);

#endif
