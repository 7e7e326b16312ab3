/* help.c - one text per command; the man page (docs/man/unpacker.1.scd) says it at length */
#include "unpacker/help.h"

#include <string.h>

#include "common/platform.h"
#include "unpacker/cli.h"

static const char windows_usage[] =
	"usage: unpacker [install] BUNDLE|PART.001|X.exe [--prefix DIR | /D=DIR] [--trust K.pub]...\n"
	"                [--trust-fingerprint HEX]... [/S | /silent] [/log=FILE | --log FILE]\n"
	"                [--json FILE] [--no-env | --env=user] [--allow-downgrade | --keep-current]\n"
	"                [--allow-expired] [--no-validate | --require-gpu] [--keep-failed] [--gpu N]\n"
	"                [--repair] [--quick-validate]\n"
	"       unpacker [install] DIR [--dry-run] [--cuda MAJOR] [--platform P] ...   the bundle\n"
	"                of a kit (E:\\) that fits (--platform: as if on P, with --dry-run)\n"
	"       unpacker install BUNDLE --dry-run ...   what installing it would change; writes nothing\n"
	"       unpacker verify BUNDLE [--trust K.pub]...   signature and every hash; installs nothing\n"
	"       unpacker validate [ID] [--gpu N] [--require-gpu] [--quick-validate] [--trust K.pub]...\n"
	"       unpacker list | use ID | uninstall ID [--force] | env [--shell cmd|ps|sh] | doctor\n"
	"       unpacker --version | help [COMMAND] | COMMAND --help\n"
	"Windows-style switches: /silent /S /quiet /log=FILE /prefix=DIR /D=DIR /?\n"
	"exit codes: 0 ok, 1 usage, 2 trust, 3 integrity, 4 incompatible, 5 install failed,\n"
	"            6 validation failed, 7 policy, 8 busy, 10 rollback failed\n";

static int on_windows(void)
{
	return platform_dir_separator() == '\\';
}

const char *unpacker_usage(void)
{
	return on_windows() ? windows_usage : cli_usage;
}

/* text: as on Linux; windows: where Windows differs (no current link, the registry's PATH, no
 * --root, no ~/.config), else NULL for the same text. */
static const struct {
	const char *name, *text, *windows;
} commands[] = {
	{ "install",
	  "usage: unpacker [install] BUNDLE|PART.001|X.run [--prefix DIR] [--trust K.pub]...\n"
	  "                [--trust-fingerprint HEX]... [/silent | --silent] [/log=FILE | --log FILE]\n"
	  "                [--json FILE] [--no-env | --env=user] [--allow-downgrade | --keep-current]\n"
	  "                [--allow-expired] [--repair] [--root DIR] [--no-validate | --require-gpu]\n"
	  "                [--keep-failed] [--gpu N] [--quick-validate] [--modulefiles DIR]\n"
	  "       unpacker [install] DIR [--dry-run] [--cuda MAJOR] [--platform P] [options as above]\n"
	  "       unpacker install BUNDLE --dry-run [options as above]\n"
	  "Verify the signature, then stream, check and install the bundle side by side with\n"
	  "earlier versions under PREFIX, switch PREFIX/current atomically, write the environment\n"
	  "and validate. Any failure restores the previous state.\n"
	  "A re-run of an installed bundle checks the installed files (sizes; SHA-256 too with\n"
	  "--repair), puts back from the bundle whatever differs, and writes environment the\n"
	  "options ask for that is missing; it is a no-op (exit 0, says so) only when nothing\n"
	  "differs.\n"
	  "An older cuDNN than current's (same CUDA variant) is refused (7): --allow-downgrade\n"
	  "switches to it, --keep-current installs it beside. Given a DIR of bundles (a kit), the\n"
	  "one that fits this machine is chosen and the choice explained; --dry-run only says it\n"
	  "(--platform P: as if on platform P). --modulefiles DIR (absolute) also writes Lmod and\n"
	  "Tcl modulefiles there.\n"
	  "install BUNDLE --dry-run writes nothing: it says what the run would change (install,\n"
	  "repair, nothing; --json: \"dry_run\") after checking the signature and, unless nothing\n"
	  "would change, every hash, and refuses as the run would, with its exit code.\n",
	  "usage: unpacker [install] BUNDLE|PART.001|X.exe [--prefix DIR | /D=DIR] [--trust K.pub]...\n"
	  "                [--trust-fingerprint HEX]... [/S | /silent] [/log=FILE | --log FILE]\n"
	  "                [--json FILE] [--no-env | --env=user] [--allow-downgrade | --keep-current]\n"
	  "                [--allow-expired] [--repair] [--no-validate | --require-gpu]\n"
	  "                [--keep-failed] [--gpu N] [--quick-validate]\n"
	  "       unpacker [install] DIR [--dry-run] [--cuda MAJOR] [--platform P] [options as above]\n"
	  "       unpacker install BUNDLE --dry-run [options as above]\n"
	  "Verify the signature, then stream, check and install the bundle side by side with\n"
	  "earlier versions under PREFIX (default %ProgramFiles%\\cuferry\\cudnn), make it current\n"
	  "(PREFIX\\.cuferry\\state.json names it: there is no current link), put its bin\\ first\n"
	  "on the machine's PATH in the registry (the user's with --env=user) and set CUDNN_PATH,\n"
	  "and validate. Any failure restores the previous state, the registry included.\n"
	  "A re-run of an installed bundle checks the installed files (sizes; SHA-256 too with\n"
	  "--repair), puts back from the bundle whatever differs, and writes environment the\n"
	  "options ask for that is missing; it is a no-op (exit 0, says so) only when nothing\n"
	  "differs.\n"
	  "An older cuDNN than current's (same CUDA variant) is refused (7): --allow-downgrade\n"
	  "switches to it, --keep-current installs it beside. Given a DIR of bundles (a kit, E:\\),\n"
	  "the one that fits this machine is chosen and the choice explained; --dry-run only says\n"
	  "it (--platform P: as if on platform P).\n"
	  "install BUNDLE --dry-run writes nothing: it says what the run would change (install,\n"
	  "repair, nothing; --json: \"dry_run\") after checking the signature and, unless nothing\n"
	  "would change, every hash, and refuses as the run would, with its exit code.\n" },
	{ "verify",
	  "usage: unpacker verify BUNDLE|PART.001|X.run [--trust K.pub]... [--trust-fingerprint HEX]\n"
	  "Check the signature against the trusted keys and every chunk and file hash; install\n"
	  "nothing.\n", NULL },
	{ "validate",
	  "usage: unpacker validate [ID] [--gpu N] [--require-gpu] [--quick-validate] [--prefix DIR]\n"
	  "                [--root DIR] [--trust K.pub]... [--trust-fingerprint HEX]...\n"
	  "Prove an install works: its stored signature, files, library, resolution,\n"
	  "dependencies, driver and GPU, and a convolution on each GPU. ID defaults to the current\n"
	  "install. The stored signature must be by a key trusted here (installed, or given with\n"
	  "--trust or --trust-fingerprint), else validation fails.\n", NULL },
	{ "list",
	  "usage: unpacker list [--prefix DIR] [--root DIR]\n"
	  "The installed bundles, their counters, and which is current (*).\n", NULL },
	{ "use",
	  "usage: unpacker use ID [--env=user] [--prefix DIR] [--root DIR]\n"
	  "Make an installed bundle current (atomically); with --env=user also write\n"
	  "~/.config/cuferry/cudnn.sh when it is missing.\n",
	  "usage: unpacker use ID [--env=user] [--prefix DIR]\n"
	  "Make an installed bundle current (PREFIX\\.cuferry\\state.json names it) and point the\n"
	  "registry's PATH and CUDNN_PATH at it (the user's with --env=user).\n" },
	{ "uninstall",
	  "usage: unpacker uninstall ID [--force] [--prefix DIR] [--root DIR]\n"
	  "Remove an installed bundle; the current one only with --force.\n",
	  "usage: unpacker uninstall ID [--force] [--prefix DIR]\n"
	  "Remove an installed bundle; the current one only with --force, which also takes its\n"
	  "bin\\ off the registry's PATH and removes CUDNN_PATH.\n" },
	{ "env",
	  "usage: unpacker env [--shell sh|ps|cmd] [--env=user] [--prefix DIR]\n"
	  "Print the lines that put the current install on the search paths, for sh, PowerShell\n"
	  "or cmd; with --env=user write them to ~/.config/cuferry/cudnn.sh instead. With nothing\n"
	  "installed it prints nothing and says so (exit 1).\n",
	  "usage: unpacker env [--shell cmd|ps|sh] [--prefix DIR]\n"
	  "Print the lines that put the current install on PATH in a shell that is already\n"
	  "running: cmd (the default), PowerShell or sh. New shells need none: install and use\n"
	  "write the registry's PATH and CUDNN_PATH. With nothing installed it prints nothing\n"
	  "and says so (exit 1).\n" },
	{ "doctor",
	  "usage: unpacker doctor [--prefix DIR] [--root DIR]\n"
	  "Report other copies of cuDNN that could shadow the install, and leftovers of\n"
	  "interrupted runs (.staging-*, .old-*, a pending journal) with the command that cleans\n"
	  "them.\n", NULL },
	{ "help",
	  "usage: unpacker help [COMMAND]\n"
	  "Print the usage, or the help of one command (the same as COMMAND --help).\n", NULL },
};

const char *unpacker_help_for(const char *command)
{
	int windows = on_windows();
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(commands[i].name, command) == 0)
			return windows && commands[i].windows ? commands[i].windows : commands[i].text;
	return NULL;
}
