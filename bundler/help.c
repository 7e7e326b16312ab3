/* help.c - the usage and one text per command (the command table, cmdtable.c, names which);
 * the man page (docs/man/bundler.1.scd) says the same at length. "{products}" is printed as
 * the product registry's names (cmdtable.c), so a new product needs no edit here while each
 * "{products}" ends its line or leaves room after it: every product widens the line. */
#include "bundler/help.h"

/* Each command's usage, once: the general usage leads it with spaces, the command's help with
 * "usage: ". */
#define USAGE_CREATE(lead) \
	lead "bundler create [--product NAME] --product-version VER\n" \
	"                      [--cuda MAJOR[.MINOR]] [--platform P] --key K.key -o OUT\n" \
	"                      [--mirror URL | --from-archive FILE | --from-dir DIR]\n" \
	"                      [--with-cuda-libs] [--add-file FILE]... [--counter N]\n" \
	"                      [--with NAME[=VER],...] [--with-dir NAME=DIR]...\n" \
	"                      [--with-archive NAME=FILE]...\n" \
	"                      [--expires DAYS] [--allow-future] [--level N]\n" \
	"                      [--threads N] [--split SIZE|fat32]\n" \
	"                      [--sfx [--unpacker PATH]] [--cache DIR] [--offline] [-q]\n"

#define USAGE_RESOLVE(lead) \
	lead "bundler resolve [--product NAME] --product-version VER\n" \
	"                       [--cuda MAJOR[.MINOR]] [--platform P] [--mirror URL]\n" \
	"                       [--with-cuda-libs] [--offline]\n"

#define USAGE_SIGN(lead) \
	lead "bundler sign BUNDLE --key K.key\n" \
	"       bundler sign BUNDLE --external [--pub K.pub --signature SIG]\n"

#define USAGE_SFX(lead) \
	lead "bundler sfx BUNDLE|X.run [--platform P] [--unpacker PATH] [-o OUT]\n" \
	"                   [--force]\n" \
	"                   (--key K.key | --external [--pub K.pub --signature SIG])\n"

#define USAGE_KIT(lead) \
	lead "bundler kit -o DIR --key K.key... ([--product NAME] --product-version VER\n" \
	"                   [--cuda 12,13] [--platform P,P] | --bundle B)...\n" \
	"                   [--unpacker [P=]PATH]... [--no-unpacker P,P] [--split SIZE]\n" \
	"                   [--valid-days N] [--statement FILE] [--mirror URL]\n" \
	"                   [--offline] [--cache DIR] [--level N]\n"

#define USAGE_CUDA_JSON(lead) \
	lead "bundler cuda-json --from-dir TOOLKIT -o DIR [--platform P]\n" \
	"                         [--release X.Y.Z]\n"

#define USAGE_TRUST_STATEMENT(lead) \
	lead "bundler trust-statement (--revoke FP | --add K.pub | --threshold N\n" \
	"                               | --statement-threshold N)... [--counter N]\n" \
	"                               (--key K.key | --external) -o FILE\n" \
	"       bundler trust-statement FILE (--key K.key\n" \
	"                               | --external [--pub K.pub --signature SIG])\n"

#define USAGE_INSPECT(lead) \
	lead "bundler inspect BUNDLE [--export DIR | --sbom cyclonedx|spdx\n" \
	"                               | --provenance]\n"

const char bundler_usage[] =
	"usage: bundler keygen NAME\n"
	USAGE_CREATE("       ")
	USAGE_RESOLVE("       ")
	USAGE_INSPECT("       ")
	USAGE_SIGN("       ")
	"       bundler split BUNDLE --split SIZE|fat32\n"
	USAGE_SFX("       ")
	USAGE_KIT("       ")
	USAGE_CUDA_JSON("       ")
	USAGE_TRUST_STATEMENT("       ")
	"       bundler --version | help [COMMAND] | COMMAND --help\n"
	"--product NAME: {products}; --cudnn VER is\n"
	"--product-version VER of cuDNN.\n"
	"Every command takes --help and --verbose (-v), and only the other options its\n"
	"help names (else exit 1, naming the option).\n"
	"The mirror defaults to $CUFERRY_MIRROR, else NVIDIA's; file:// directories work\n"
	"offline, and --offline (create, resolve, kit) never touches the network.\n"
	"exit codes: 0 ok, 1 usage, 2 trust, 3 integrity, 4 incompatible or no space,\n"
	"            5 interrupted or I/O, 9 download or source\n";

const char help_keygen[] =
	"usage: bundler keygen NAME\n"
	"Write a signing key pair: NAME.key (secret, PEM, mode 0600, never overwritten)\n"
	"and NAME.pub (public, PEM), and print the key id and the SHA-256 fingerprint the\n"
	"targets trust (--trust NAME.pub or --trust-fingerprint HEX). NAME may not start\n"
	"with '-'.\n";

const char help_create[] =
	USAGE_CREATE("usage: ")
	"Make one signed bundle of a product's release and check it before it is put in\n"
	"place.\n"
	"  --product NAME     the product: {products};\n"
	"                     one NVIDIA does not build for the platform's OS (NCCL or\n"
	"                     cuSPARSELt for Windows) is exit 9; another name 1\n"
	"  --product-version VER  its version (9.19 picks the newest 9.19.x on the\n"
	"                     mirror; with --from-* it must agree with the source);\n"
	"                     --cudnn VER is the same for cuDNN, and exit 1 with another\n"
	"                     --product\n"
	"  -o OUT             a file, or a directory (ending in /) for the conventional\n"
	"                     name PRODUCT-VER-cudaN[-cudalibs]-PLATFORM.bundle\n"
	"                     (cudnn-..., nccl-...)\n"
	"  --mirror URL       NVIDIA's redist tree or a copy of it (http(s):// or\n"
	"                     file://)\n"
	"  --from-archive F   an archive NVIDIA ships (tar.xz, tgz, zip); --from-dir DIR\n"
	"                     a tree of which only the product's files are taken (a CUDA\n"
	"                     toolkit's NCCL)\n"
	"  --with-cuda-libs   pack cuBLAS and NVRTC too (cuDNN; NCCL opens none: exit 1);\n"
	"                     the id and name get '-cudalibs'\n"
	"  --with NAME[=VER]  carry another product in the same bundle, one unit\n"
	"                     (installed, switched, validated together; comma list):\n"
	"                     from the --from-dir tree, or --with-dir NAME=DIR,\n"
	"                     --with-archive NAME=FILE; the id and name get\n"
	"                     '+NAME-VER' (cudnn-...-cuda13+nccl-2.28.9-...)\n"
	"  --add-file FILE    also pack FILE (repeatable) in bin/ (Windows) or lib/\n"
	"                     (Linux), hashed like every file: zlibwapi.dll for cuDNN\n"
	"                     8.3 - 9.1 on Windows; never a C library or loader name\n"
	"                     (libc.so.6, libdl.so.2, ...: exit 9) nor a base library\n"
	"                     every target has (libz.so.1, OpenSSL's: exit 1)\n"
	"  --counter N        replay counter (default: the time); --expires DAYS\n"
	"  --allow-future     write a bundle whose created (SOURCE_DATE_EPOCH) is over a\n"
	"                     day ahead of this clock, which unpackers refuse; else\n"
	"                     exit 1\n"
	"  --split SIZE       also write the bundle cut into NAME.001, ... of at most\n"
	"                     SIZE (700M, 2G; 'fat32' is 4 GiB - 1, the largest file\n"
	"                     FAT32 holds)\n"
	"  --offline          never touch the network: only file:// mirrors are read;\n"
	"                     without one, a source with no component list fails at once\n"
	"                     (cuda-json)\n"
	"  --sfx              also write NAME.run (.exe for Windows): the static\n"
	"                     unpacker, then the bundle; --unpacker PATH names the\n"
	"                     unpacker to embed\n"
	"Plain bundle, parts and .run come from the one signed bundle of one run (one\n"
	"counter); SHA256SUMS beside them is merged with what the directory held.\n";

const char help_resolve[] =
	USAGE_RESOLVE("usage: ")
	"Print what create would download from the mirror (URLs, sizes, SHA-256),\n"
	"download nothing.\n";

const char help_inspect[] =
	USAGE_INSPECT("usage: ")
	"Check a bundle's signatures (by the keys it carries) and every chunk, and print\n"
	"its manifest (with the glibc or Windows version its libraries need). A truncated\n"
	"or corrupt bundle is exit 3; a middle part (NAME.002) is exit 1 naming NAME.001.\n"
	"--export DIR writes the header, the public keys and DER signatures for\n"
	"`openssl dgst -verify`. --sbom cyclonedx|spdx prints only the stored SBOM\n"
	"(CycloneDX 1.6 or SPDX 2.3 JSON) after the same checks, with the signers'\n"
	"fingerprints added. --provenance prints the stored provenance.json as it is:\n"
	"each archive's URL, size and SHA-256, the NVIDIA JSON kept in the bundle that\n"
	"authorised it, and the install path, member name and hash of each file.\n";

const char help_sign[] =
	USAGE_SIGN("usage: ")
	"Add a signature to a bundle: with a key file, or one made elsewhere (an offline\n"
	"host, an HSM): --external alone prints the digest to sign; with --pub and\n"
	"--signature (raw r||s or DER) it checks and adds it.\n";

const char help_split[] =
	"usage: bundler split BUNDLE --split SIZE|fat32\n"
	"Cut a bundle signed earlier into BUNDLE.001, BUNDLE.002, ... of at most SIZE\n"
	"bytes (700M, 2G, fat32 = 4 GiB - 1), beside it; the bundle itself stays. The\n"
	"bundle is checked first; SHA256SUMS is merged.\n";

const char help_sfx[] =
	USAGE_SFX("usage: ")
	"Wrap a signed bundle as a self-extracting NAME.run (NAME.exe for Windows): the\n"
	"static unpacker for the bundle's platform, the bundle, a stub-signature block\n"
	"over both, a trailer; nothing in the file is unsigned. Given a .run, add one\n"
	"more stub signature (a threshold of several keys); a stub already signed by a\n"
	"key that did not sign the bundle's header is refused (2) unless --force.\n"
	"--unpacker PATH names the stub (its machine type must fit the platform); else it\n"
	"is looked for beside the bundler (DIR/unpacker, DIR/<platform>/unpacker).\n"
	"--external alone prints the digest to sign; with --pub and --signature (DER, raw\n"
	"r||s or hex) it checks and adds it.\n";

const char help_kit[] =
	USAGE_KIT("usage: ")
	"Write what a site needs onto a stick or a directory: the bundles (built from the\n"
	"mirror for a matrix of CUDA variants and platforms, or given with --bundle), the\n"
	"unpacker for each platform in a signed container, SHA256SUMS and README.txt (the\n"
	"commands, the signing keys' fingerprints; never a key). The kit is signed by\n"
	"each --key, which must have signed its bundles: SHA256SUMS.sig (DER; further\n"
	"keys SHA256SUMS.<short id>.sig: openssl dgst -sha256 -verify site.pub -signature\n"
	"SHA256SUMS.sig SHA256SUMS), and the index cuferry-kit.json (every file, created,\n"
	"valid_until) with cuferry-kit.sig, which 'unpacker verify KIT' and 'unpacker\n"
	"install KIT' check. --valid-days N (default 90): after that the unpacker refuses\n"
	"the kit (exit 7) unless --allow-expired. Prints the date, the fingerprints, each\n"
	"unpacker's SHA-256 and the keys it has compiled in, and warns when an unpacker\n"
	"trusts none of the kit's keys. Split for the output's file system (FAT32:\n"
	"4 GiB - 1), space checked first, written as DIR.partial-* and renamed at the\n"
	"end, then flushed and read back from the device: a byte that differs is exit 3\n"
	"with its offset. --statement FILE carries a trust statement (bundler\n"
	"trust-statement) as trust-statement.cuferry, listed in the signed index:\n"
	"'unpacker install DIR' checks it against the index (exit 3 when it differs),\n"
	"then applies it before it chooses.\n";

const char help_cuda_json[] =
	USAGE_CUDA_JSON("usage: ")
	"Write NVIDIA's CUDA component list, DIR/cuda/redist/redistrib_<release>.json,\n"
	"from a local toolkit: its version.json, or its wheel metadata (dist-info/) and\n"
	"versioned library names. Then 'create --mirror file://DIR' (or\n"
	"CUFERRY_MIRROR=file://DIR) has the list it records in every manifest without the\n"
	"internet. Sizes and SHA-256 are the libraries' own: the JSON lists, it names no\n"
	"archive to download.\n"
	"  --release X.Y.Z    the release label when the toolkit cannot tell it exactly\n"
	"                     (a wheel's runtime 13.0.96 gives 13.0)\n";

const char help_trust_statement[] =
	USAGE_TRUST_STATEMENT("usage: ")
	"Write a signed trust statement for 'unpacker trust apply FILE': revoke a key by\n"
	"its fingerprint, add a key, set the threshold T or the statement threshold. The\n"
	"targets apply it only when T of their trusted keys signed it to revoke only\n"
	"those signers (a key can always revoke itself), and their statement threshold\n"
	"signed it for anything else (default: every trusted key when at most three, else\n"
	"T + 1). Give FILE alone to add one more signature. The counter (default\n"
	"SOURCE_DATE_EPOCH or the clock) must grow: a host refuses one older than the\n"
	"last it applied. --external alone prints the digest to sign elsewhere; run it\n"
	"again with the same SOURCE_DATE_EPOCH and --counter, --pub and --signature. The\n"
	"format is in docs/formats.md (\"Trust statements\").\n";

const char help_help[] =
	"usage: bundler help [COMMAND]\n"
	"Print the usage, or the help of one command (the same as COMMAND --help).\n";
