/* platforms.c - the target platforms, one row each: the only place a platform is spelled */
#include "manifests/platforms.h"

#include <stdio.h>
#include <string.h>

/* The machine fields of <elf.h> and the PE format, spelled here (mingw has no <elf.h>). */
#define ELF_MACHINE_X86_64 62   /* EM_X86_64 */
#define ELF_MACHINE_AARCH64 183 /* EM_AARCH64 */
#define PE_MACHINE_AMD64 0x8664 /* IMAGE_FILE_MACHINE_AMD64 */

#define LINUX_FACTS                                                                          \
	.os = PLATFORM_OS_LINUX, .binary = PLATFORM_BINARY_ELF, .exe_suffix = "",            \
	.sfx_suffix = ".run", .max_program_size = 0, .lib_dir = "lib", .lib_pattern = "*.so*", \
	.lib_named_only = 0, .lib_prefix = "lib", .lib_infix = ".so.", .lib_ext = "",        \
	.links_allowed = 1, .env_store = PLATFORM_ENV_IN_FILES, .folders = PLATFORM_FOLDERS_FHS, \
	.loader = PLATFORM_LOADER_LD_SO, .floor = PLATFORM_FLOOR_GLIBC,                       \
	.trust_dir = "/etc/cuferry/trusted-keys"

/* linux-ppc64le is NVIDIA's too (older CUDA and its libraries), but no unpacker is built for
 * it and a manifest never named it: it has no row, so a bundle for it is refused as before. */
static const struct platform_spec platforms[] = {
	{ .name = "linux-x86_64", .old_names = { "linux-x64" }, .arch = "x86_64",
	  .machine = ELF_MACHINE_X86_64,
	  .program_kind = "an x86-64 ELF program", .ld_cache_tag = "x86-64", .unpacker_make = "make",
	  .unpacker_alias = NULL, LINUX_FACTS },
	{ .name = "linux-sbsa", .arch = "aarch64", .machine = ELF_MACHINE_AARCH64,
	  .program_kind = "an AArch64 ELF program", .ld_cache_tag = "AArch64",
	  .unpacker_make = "make aarch64",
	  .unpacker_alias = "linux-aarch64", LINUX_FACTS },
	{ .name = "linux-aarch64", .arch = "aarch64", .machine = ELF_MACHINE_AARCH64,
	  .program_kind = "an AArch64 ELF program", .ld_cache_tag = "AArch64",
	  .unpacker_make = "make aarch64",
	  .unpacker_alias = "linux-sbsa", LINUX_FACTS },
	/* Windows starts no program file of 4 GiB or more ("not a valid Win32 application"),
	 * whatever follows its image. A tree is Windows' by its DLLs' names: their headers are
	 * not read (the tests' trees hold placeholder DLLs). */
	{ .name = "windows-x86_64", .old_names = { "windows-x64", "windows10-x64" },
	  .os = PLATFORM_OS_WINDOWS, .arch = "x86_64", .binary = PLATFORM_BINARY_PE,
	  .machine = PE_MACHINE_AMD64,
	  .program_kind = "an x86-64 Windows PE program", .exe_suffix = ".exe", .sfx_suffix = ".exe",
	  .max_program_size = UINT32_MAX, .lib_dir = "bin", .lib_pattern = "*.dll",
	  .lib_named_only = 1, .lib_prefix = "", .lib_infix = "64_", .lib_ext = ".dll",
	  .links_allowed = 0, .env_store = PLATFORM_ENV_IN_REGISTRY, .folders = PLATFORM_FOLDERS_KNOWN,
	  .loader = PLATFORM_LOADER_DLL_SEARCH, .ld_cache_tag = "", .floor = PLATFORM_FLOOR_WINDOWS,
	  .trust_dir = "%ProgramData%\\cuferry\\trusted-keys", .unpacker_make = "make windows",
	  .unpacker_alias = "windows" },
};

#define NPLATFORMS (sizeof(platforms) / sizeof(platforms[0]))

/* A name no row has: Linux's conventions, and a machine no program carries. */
static const struct platform_spec unknown = { .name = "", .arch = "", .machine = 0,
					      .program_kind = "no program this bundler knows",
					      .ld_cache_tag = "",
					      .unpacker_make = "make", LINUX_FACTS };

const struct platform_spec *platform_at(size_t i)
{
	return i < NPLATFORMS ? &platforms[i] : NULL;
}

const struct platform_spec *platform_find(const char *name)
{
	for (size_t i = 0; name && i < NPLATFORMS; i++)
		if (strcmp(platforms[i].name, name) == 0)
			return &platforms[i];
	return NULL;
}

const struct platform_spec *platform_find_archive_name(const char *name)
{
	for (size_t i = 0; name && i < NPLATFORMS; i++)
		for (size_t j = 0; j < 3 && platforms[i].old_names[j]; j++)
			if (strcmp(platforms[i].old_names[j], name) == 0)
				return &platforms[i];
	return platform_find(name);
}

const struct platform_spec *platform_facts(const char *name)
{
	const struct platform_spec *p = platform_find(name);
	return p ? p : &unknown;
}

static const struct platform_spec *by_machine(enum platform_binary binary, unsigned machine)
{
	for (size_t i = 0; i < NPLATFORMS; i++)
		if (platforms[i].binary == binary && platforms[i].machine == machine)
			return &platforms[i];
	return NULL;
}

const struct platform_spec *platform_from_elf_machine(unsigned machine)
{
	return by_machine(PLATFORM_BINARY_ELF, machine);
}

const struct platform_spec *platform_from_pe_machine(unsigned machine)
{
	return by_machine(PLATFORM_BINARY_PE, machine);
}

static unsigned le16(const uint8_t *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

const struct platform_spec *platform_of_program(const uint8_t *head, size_t len)
{
	if (len >= 20 && memcmp(head, "\177ELF", 4) == 0)
		return platform_from_elf_machine(le16(head + 18));
	if (len < 64 || memcmp(head, "MZ", 2) != 0)
		return NULL;
	/* e_lfanew: where the PE header starts */
	size_t at = le16(head + 60) | (size_t)le16(head + 62) << 16;
	if (at > len || len - at < 6 || memcmp(head + at, "PE\0\0", 4) != 0)
		return NULL;
	return platform_from_pe_machine(le16(head + at + 4));
}

const char *platform_describe_program(const uint8_t *head, size_t len)
{
	const struct platform_spec *p = platform_of_program(head, len);
	int program = (len >= 2 && memcmp(head, "MZ", 2) == 0) ||
		      (len >= 4 && memcmp(head, "\177ELF", 4) == 0);
	return p ? p->name : program ? "another machine" : "not a program";
}

int platform_same_program(const struct platform_spec *a, const struct platform_spec *b)
{
	return a && b && a->binary == b->binary && a->machine == b->machine && a->machine != 0;
}

const struct platform_spec *platform_self(void)
{
#if defined(_WIN32)
	return platform_from_pe_machine(PE_MACHINE_AMD64);
#elif defined(__aarch64__)
	return platform_from_elf_machine(ELF_MACHINE_AARCH64);
#else
	return platform_from_elf_machine(ELF_MACHINE_X86_64);
#endif
}

void platform_library_file(const struct platform_spec *p, const char *name, const char *version,
			   char *out, size_t size)
{
	snprintf(out, size, "%s%s%s%s%s", p->lib_prefix, name, p->lib_infix, version, p->lib_ext);
}
