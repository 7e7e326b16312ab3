/* help.c - the usage and one text per command (the command table, cmdtable.c, names which);
 * the man page (docs/man/unpacker.1.scd) says it at length */
#include "unpacker/cli/help.h"

#include "common/platform.h"

static const char linux_usage[] =
	"usage: unpacker [install] BUNDLE|PART.001|X.run [--prefix DIR] [--root DIR]\n"
	"                [--trust K.pub]... [--trust-fingerprint HEX]...\n"
	"                [/silent | --silent] [/log=FILE | --log FILE] [--json FILE]\n"
	"                [--no-env | --env=user] [--allow-downgrade | --keep-current]\n"
	"                [--allow-expired] [--repair] [--no-validate | --require-gpu]\n"
	"                [--keep-failed] [--gpu N] [--modulefiles DIR] [--quick-validate]\n"
	"                [--remember]\n"
	"       unpacker [install] DIR [--dry-run] [--cuda MAJOR] [--platform P] ...\n"
	"                the bundle of a kit that fits (--platform P: as if on P)\n"
	"       unpacker install BUNDLE --dry-run ...   what installing it would change\n"
	"       unpacker verify BUNDLE [--trust K.pub]...   signature and every hash\n"
	"       unpacker verify KIT [--allow-expired]   a signed kit and all its files\n"
	"       unpacker self-install KIT|CONTAINER [--allow-downgrade] [--root DIR]\n"
	"                the kit's verified unpacker as /usr/local/sbin/unpacker\n"
	"       unpacker validate [ID] [--gpu N] [--require-gpu] [--quick-validate]\n"
	"                [--trust K.pub]...\n"
	"       unpacker list | use ID | uninstall ID [--force] | env [--shell sh|ps|cmd]\n"
	"                | doctor [--product NAME]   of NAME's prefix (default cudnn)\n"
	"       unpacker inventory [--deep] [--json -|FILE] [--prefix DIR]\n"
	"                every install: signers, files, validation; other copies\n"
	"       unpacker trust [list] | add K.pub [--fingerprint HEX] | remove FP\n"
	"                | threshold N | statement-threshold N | apply STATEMENT\n"
	"                | reset-clock   what this host trusts\n"
	"       unpacker --version | help [COMMAND] | COMMAND --help\n"
	"Windows-style switches too: /silent /S /quiet /log=FILE /prefix=DIR /D=DIR /?\n"
	"Every command takes --help, --silent, --verbose, --log FILE, --json FILE and\n"
	"--root DIR, and only the other options its help names (else exit 1, naming it)\n"
	"exit codes: 0 ok, 1 usage, 2 trust, 3 integrity, 4 incompatible,\n"
	"            5 install failed, 6 validation failed, 7 policy, 8 busy,\n"
	"            10 rollback failed\n";


static const char windows_usage[] =
	"usage: unpacker [install] BUNDLE|PART.001|X.exe [--prefix DIR | /D=DIR]\n"
	"                [--trust K.pub]... [--trust-fingerprint HEX]... [/S | /silent]\n"
	"                [/log=FILE | --log FILE] [--json FILE] [--no-env | --env=user]\n"
	"                [--allow-downgrade | --keep-current]\n"
	"                [--allow-expired] [--repair] [--no-validate | --require-gpu]\n"
	"                [--keep-failed] [--gpu N] [--quick-validate] [--remember]\n"
	"       unpacker [install] DIR [--dry-run] [--cuda MAJOR] [--platform P] ...\n"
	"                the bundle of a kit (E:\\) that fits (--platform: as if on P)\n"
	"       unpacker install BUNDLE --dry-run ...   what installing it would change\n"
	"       unpacker verify BUNDLE [--trust K.pub]...   signature and every hash\n"
	"       unpacker verify KIT [--allow-expired]   a signed kit and all its files\n"
	"       unpacker self-install KIT|CONTAINER [--allow-downgrade]\n"
	"                the kit's verified unpacker: %ProgramFiles%\\cuferry\\unpacker.exe\n"
	"       unpacker validate [ID] [--gpu N] [--require-gpu] [--quick-validate]\n"
	"                [--trust K.pub]...\n"
	"       unpacker list | use ID | uninstall ID [--force] | env [--shell cmd|ps|sh]\n"
	"                | doctor [--product NAME]\n"
	"       unpacker inventory [--deep] [--json -|FILE] [--prefix DIR]\n"
	"                every install: signers, files, validation; other copies\n"
	"       unpacker trust [list] | add K.pub [--fingerprint HEX] | remove FP\n"
	"                | threshold N | statement-threshold N | apply STATEMENT\n"
	"                | reset-clock   what this host trusts\n"
	"       unpacker --version | help [COMMAND] | COMMAND --help\n"
	"Windows-style switches: /silent /S /quiet /log=FILE /prefix=DIR /D=DIR /?\n"
	"Every command takes --help, --silent, --verbose, --log FILE and --json FILE,\n"
	"and only the other options its help names (else exit 1, naming the option)\n"
	"exit codes: 0 ok, 1 usage, 2 trust, 3 integrity, 4 incompatible,\n"
	"            5 install failed, 6 validation failed, 7 policy, 8 busy,\n"
	"            10 rollback failed\n";

static int on_windows(void)
{
	return platform_dir_separator() == '\\';
}

const char *help_for_platform(const char *text, const char *windows)
{
	return on_windows() && windows ? windows : text;
}

const char *unpacker_usage(void)
{
	return on_windows() ? windows_usage : linux_usage;
}

const char help_install[] =
	"usage: unpacker [install] BUNDLE|PART.001|X.run [--prefix DIR] [--trust K.pub]...\n"
	"                [--trust-fingerprint HEX]... [/silent | --silent] [/log=FILE | --log FILE]\n"
	"                [--json FILE] [--no-env | --env=user] [--allow-downgrade | --keep-current]\n"
	"                [--allow-expired] [--repair] [--root DIR] [--no-validate | --require-gpu]\n"
	"                [--keep-failed] [--gpu N] [--quick-validate] [--modulefiles DIR]\n"
	"       unpacker [install] DIR [--dry-run] [--cuda MAJOR] [--platform P] [--product NAME]\n"
	"                [options as above]\n"
	"       unpacker install BUNDLE --dry-run [options as above]\n"
	"Verify the signature, then stream, check and install the bundle side by side with\n"
	"earlier versions under PREFIX, switch PREFIX/current atomically, write the environment\n"
	"and validate. Any failure restores the previous state.\n"
	"A bundle names its product: PREFIX defaults to that product's (/opt/cudnn for cuDNN,\n"
	"/opt/nccl for NCCL), with its own state, current and environment files. A prefix holds\n"
	"one product: --prefix DIR holding another is refused (4). From a DIR of bundles only\n"
	"those of --product NAME (default cudnn) are considered; the others are named, and\n"
	"none of that product is refused (4): another product's bundle is never the fallback.\n"
	"A re-run of an installed bundle checks the installed files (sizes, types, modes and\n"
	"links; SHA-256 too with --repair), puts back from the bundle whatever differs (what\n"
	"stands where a directory or a file belongs is moved aside, never followed), and writes\n"
	"environment and modulefiles the options ask for that are missing; it is a no-op\n"
	"(exit 0, says what it checked) only when nothing differs.\n"
	"An older cuDNN than current's (any CUDA variant) is refused (7): --allow-downgrade\n"
	"switches to it, --keep-current installs it beside; so is an older build (counter) of an\n"
	"installed release, plain or -cudalibs (--allow-downgrade). The same cuDNN for another\n"
	"CUDA variant replaces it as current, and says so. A bundle created over a day ahead of\n"
	"this clock is refused (7) and nothing of it recorded. A re-run also puts back\n"
	".cuferry/header.bin from the verified bundle. Given a DIR of bundles (a kit), the\n"
	"one that fits this machine is chosen and the choice explained (the same downgrade\n"
	"rule passes older ones over, with the reason, and so does a GPU below a bundle's\n"
	"compute capability, asked of the driver unprivileged); --dry-run only says it\n"
	"(--platform P: as if on platform P). A signed kit's index is verified first; an expired\n"
	"kit is refused (7) unless --allow-expired. A kit's trust statement\n"
	"(trust-statement.cuferry), hashed against the kit's signed index first (3 when it\n"
	"differs or is not listed), is applied (as root) before a bundle is chosen.\n"
	"--modulefiles DIR (absolute; as root, owned by root and writable by nobody else, as the\n"
	"prefix) also writes Lmod and Tcl modulefiles there. --trust K.pub --remember adds the key\n"
	"read from K.pub at the start (the one that verified) to the trust directory once the\n"
	"install worked (as 'unpacker trust add').\n"
	"install BUNDLE --dry-run writes nothing: it says what the run would change (install,\n"
	"repair, nothing; --json: \"dry_run\") after checking the signature and, unless nothing\n"
	"would change, every hash, and refuses as the run would, with its exit code.\n";

const char help_install_windows[] =
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
	"A bundle whose DLLs need a newer Windows than this one (their PE headers, the\n"
	"manifest's requires.windows_min) is refused (4) before anything is staged.\n"
	"A re-run of an installed bundle checks the installed files (sizes, types, modes and\n"
	"links; SHA-256 too with --repair), puts back from the bundle whatever differs (what\n"
	"stands where a directory or a file belongs is moved aside, never followed), and writes\n"
	"the environment the options ask for when it is missing; it is a no-op\n"
	"(exit 0, says what it checked) only when nothing differs.\n"
	"An older cuDNN than current's (any CUDA variant) is refused (7): --allow-downgrade\n"
	"switches to it, --keep-current installs it beside; so is an older build (counter) of an\n"
	"installed release, plain or -cudalibs (--allow-downgrade). The same cuDNN for another\n"
	"CUDA variant replaces it as current, and says so. A bundle created over a day ahead of\n"
	"this clock is refused (7) and nothing of it recorded. A re-run also puts back\n"
	".cuferry\\header.bin from the verified bundle. Given a DIR of bundles (a kit, E:\\),\n"
	"the one that fits this machine is chosen and the choice explained (the same downgrade\n"
	"rule passes older ones over, with the reason, and so does a GPU below a bundle's\n"
	"compute capability, asked of the driver unprivileged); --dry-run only says\n"
	"it (--platform P: as if on platform P). A signed kit's index is verified first; an\n"
	"expired kit is refused (7) unless --allow-expired. --trust K.pub --remember adds K.pub\n"
	"to the trust directory once the install worked (as 'unpacker trust add'). A kit's trust\n"
	"statement (trust-statement.cuferry), hashed against the kit's signed index first (3\n"
	"when it differs or is not listed), is applied before a bundle is chosen.\n"
	"install BUNDLE --dry-run writes nothing: it says what the run would change (install,\n"
	"repair, nothing; --json: \"dry_run\") after checking the signature and, unless nothing\n"
	"would change, every hash, and refuses as the run would, with its exit code.\n";

const char help_verify[] =
	"usage: unpacker verify BUNDLE|PART.001|X.run|KIT|CONTAINER [--trust K.pub]...\n"
	"                [--trust-fingerprint HEX]... [--allow-expired]\n"
	"                [--sbom cyclonedx|spdx | --provenance]\n"
	"Check the signature against the trusted keys and every chunk and file hash; install\n"
	"nothing. A KIT directory (what 'bundler kit' wrote): its index cuferry-kit.json signed\n"
	"by trusted keys (2), every file as the index lists it and nothing else (3), each\n"
	"unpacker on it signed (2), and not expired (7, unless --allow-expired); a linked\n"
	"cuferry-kit/ is 2. A CONTAINER (PLATFORM/unpacker of a kit): its signatures.\n"
	"--sbom cyclonedx|spdx: once every check passed, print the bundle's stored SBOM (JSON)\n"
	"with its signers' fingerprints, and nothing else; a failed check prints nothing.\n"
	"--provenance: the same for its stored provenance.json, as it is (each archive's URL,\n"
	"size and SHA-256, the NVIDIA JSON kept that authorised it, each file's member).\n";

const char help_self_install[] =
	"usage: unpacker self-install KIT|CONTAINER [--trust K.pub]... [--trust-fingerprint HEX]...\n"
	"                [--allow-downgrade] [--allow-expired] [--root DIR]\n"
	"Verify the kit's unpacker for this machine (KIT/PLATFORM/unpacker, or the signed\n"
	"container given), read once into memory, with the trusted keys, then install it\n"
	"root-owned, mode 0755, as /usr/local/sbin/unpacker (under --root DIR), atomically, so\n"
	"that every later stick is opened by the server's own verified unpacker. A KIT's signed\n"
	"index is checked first, as verify KIT does (2; expired: 7), and must list the container\n"
	"with the size and SHA-256 read (3); so must a CONTAINER inside a kit (its directory or\n"
	"the one above it has the kit's index). An older version does not replace a newer one\n"
	"(7) unless --allow-downgrade.\n";

const char help_self_install_windows[] =
	"usage: unpacker self-install KIT|CONTAINER [--trust K.pub]... [--trust-fingerprint HEX]...\n"
	"                [--allow-downgrade] [--allow-expired]\n"
	"Verify the kit's unpacker.exe (KIT\\windows-x86_64\\unpacker.exe, or the signed\n"
	"container given), read once into memory, with the trusted keys, then install it as\n"
	"%ProgramFiles%\\cuferry\\unpacker.exe, so that every later stick is opened by the\n"
	"machine's own verified unpacker. A KIT's signed index is checked first, as verify KIT\n"
	"does (2; expired: 7), and must list the container with the size and SHA-256 read (3);\n"
	"so must a CONTAINER inside a kit (E:\\kit\\windows-x86_64\\unpacker.exe). An older\n"
	"version does not replace a newer one (7) unless --allow-downgrade.\n";

const char help_validate[] =
	"usage: unpacker validate [ID] [--gpu N] [--require-gpu] [--quick-validate] [--prefix DIR]\n"
	"                [--product NAME] [--root DIR] [--trust K.pub]... [--trust-fingerprint HEX]...\n"
	"                [--json FILE]\n"
	"Prove an install works: its stored signature, files, library, resolution,\n"
	"dependencies, driver and GPU, and a convolution on each GPU. ID defaults to the current\n"
	"install. The stored signature must be by a key trusted here (installed, or given with\n"
	"--trust or --trust-fingerprint); with no key configured at all, the keys recorded at\n"
	"install (.cuferry/signers) are used and validate says so. A recorded key since removed\n"
	"passes with a note; one since revoked fails (2, \"signed by a revoked key\"). No key\n"
	"anywhere is a trust error (2). --json FILE: every step, GPU row, detail and timing, as\n"
	"report.json keeps them (docs/json-schema.md). A product whose GPU check this unpacker\n"
	"does not have (NCCL) skips steps 5-6 with that reason; --require-gpu then fails (4).\n"
	"--product NAME (default cudnn) picks that product's default prefix, here and for list,\n"
	"use, uninstall, env and doctor; a prefix holding another product is refused (4).\n";

const char help_list[] =
	"usage: unpacker list [--prefix DIR] [--product NAME] [--root DIR]\n"
	"The installed bundles, their counters, and which is current (*).\n";

const char help_use[] =
	"usage: unpacker use ID [--env=user | --no-env] [--prefix DIR] [--product NAME] [--root DIR]\n"
	"Make an installed bundle current (atomically); with --env=user also write\n"
	"~/.config/cuferry/NAME.sh (cudnn.sh, nccl.sh) when it is missing.\n";

const char help_use_windows[] =
	"usage: unpacker use ID [--env=user | --no-env] [--prefix DIR] [--product NAME]\n"
	"Make an installed bundle current (PREFIX\\.cuferry\\state.json names it) and point the\n"
	"registry's PATH and CUDNN_PATH at it (the user's with --env=user).\n";

const char help_uninstall[] =
	"usage: unpacker uninstall ID [--force] [--no-env] [--prefix DIR] [--product NAME]\n"
	"                [--root DIR]\n"
	"Remove an installed bundle; the current one only with --force, which makes the newest\n"
	"one left current (the environment and modulefiles follow it) or, with none left,\n"
	"removes the environment.\n";

const char help_uninstall_windows[] =
	"usage: unpacker uninstall ID [--force] [--no-env] [--prefix DIR] [--product NAME]\n"
	"Remove an installed bundle; the current one only with --force, which makes the newest\n"
	"one left current (PATH and CUDNN_PATH follow it) or, with none left, takes its bin\\\n"
	"off the registry's PATH and removes CUDNN_PATH.\n";

const char help_env[] =
	"usage: unpacker env [--shell sh|ps|cmd] [--env=user] [--prefix DIR] [--product NAME]\n"
	"Print the lines that put the current install on the search paths, for sh, PowerShell\n"
	"or cmd; with --env=user write them to ~/.config/cuferry/NAME.sh instead. With nothing\n"
	"installed it prints nothing and says so (exit 1).\n";

const char help_env_windows[] =
	"usage: unpacker env [--shell cmd|ps|sh] [--prefix DIR] [--product NAME]\n"
	"Print the lines that put the current install on PATH in a shell that is already\n"
	"running: cmd (the default), PowerShell or sh. New shells need none: install and use\n"
	"write the registry's PATH and CUDNN_PATH. With nothing installed it prints nothing\n"
	"and says so (exit 1).\n";

const char help_doctor[] =
	"usage: unpacker doctor [--prefix DIR] [--product NAME] [--root DIR]\n"
	"Report other copies of the product (--product, default cuDNN) that could shadow the\n"
	"install, and leftovers of interrupted runs (.staging-*, .old-*, a pending journal) with\n"
	"the command that cleans them.\n";

const char help_inventory[] =
	"usage: unpacker inventory [--deep] [--json -|FILE] [--prefix DIR]\n"
	"                          [--product NAME] [--root DIR] [--trust K.pub]...\n"
	"What each product's prefix holds (--prefix or --product: that one), read from\n"
	"files only (nothing is loaded or written): each install's product, version,\n"
	"CUDA variant, platform, bundle id, counter, when it was installed, whether it\n"
	"is current; its signers and whether this host trusts them now (revocations\n"
	"count); its files against the manifest (missing, size changed, unlisted;\n"
	"--deep: every SHA-256 too); its last validation (result, time, GPUs); the\n"
	"environment files and whether they point at the current install; every other\n"
	"copy doctor finds and whether it shadows the install.\n"
	"--json -: the --json report on stdout instead of the text (field: inventory).\n"
	"Exit 0 when nothing drifted; 6 when something did (a changed, missing or\n"
	"unlisted file, a shadowing copy, an environment file pointing elsewhere, a\n"
	"failed last validation); 2 when an install's stored header no longer verifies\n"
	"with the keys trusted here (a signer revoked or removed).\n";

const char help_trust[] =
	"usage: unpacker trust [list] [--root DIR]\n"
	"       unpacker trust add K.pub [--fingerprint HEX] | remove FP | threshold N\n"
	"       unpacker trust statement-threshold N | apply STATEMENT | reset-clock [--prefix DIR]\n"
	"What this host trusts: keys compiled in, the trust directory (/etc/cuferry/trusted-keys,\n"
	"Windows %ProgramData%\\cuferry\\trusted-keys: root's, not writable by others), its\n"
	"threshold T (signatures a bundle needs) and statement threshold (signatures a trust\n"
	"statement needs; default every trusted key when at most three, else T + 1). Both may\n"
	"be compiled in (make TRUSTED_THRESHOLD=N, TRUSTED_STATEMENT_THRESHOLD=N): the trust\n"
	"directory may raise them, never lower them.\n"
	"list      each key's fingerprint, source (compiled in, file, statement) and since when;\n"
	"          revoked keys; both thresholds; the last statement applied.\n"
	"add       K.pub into the trust directory (written root's, atomically); --fingerprint: the\n"
	"          64 hex digits you were given by another channel must match, else exit 2.\n"
	"remove    a key of the trust directory (not below T keys; a compiled-in key is revoked).\n"
	"apply     a trust statement ('bundler trust-statement'): signed by T trusted keys to\n"
	"          revoke only its own signers, by the statement threshold for anything else;\n"
	"          its counter must be newer than the last applied (replay: exit 7). A revoked\n"
	"          key's signatures count nowhere: install, verify, .run stubs, validate.\n"
	"reset-clock  a prefix whose state recorded a `created` ahead of the clock (a bundle\n"
	"          dated in the future) goes back to the newest time that is not; logged.\n"
	"Lifecycle: first key (trust add --fingerprint, or install --trust K.pub --remember);\n"
	"rotation (a statement adding the next key, then one revoking the old); a leaked key\n"
	"(a statement revoking it, signed by the others); a lost key (trust remove on each host,\n"
	"or a statement revoking it). Changes need root and are logged.\n";

const char help_help[] =
	"usage: unpacker help [COMMAND]\n"
	"Print the usage, or the help of one command (the same as COMMAND --help).\n";
