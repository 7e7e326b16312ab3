/* help.c - the usage and one text per command (the command table, cmdtable.c, names which);
 * the man page (docs/man/bundler.1.scd) says the same at length. "{products}" is printed as
 * the product registry's names (cmdtable.c), so a new product needs no edit here. */
#include "bundler/help.h"

const char bundler_usage[] =
	"usage: bundler keygen NAME\n"
	"       bundler create [--product NAME] --product-version VER [--cuda MAJOR[.MINOR]]\n"
	"                      [--platform P] --key K.key -o OUT\n"
	"                      [--mirror URL | --from-archive FILE | --from-dir DIR] [--with-cuda-libs]\n"
	"                      [--add-file FILE]... [--counter N] [--expires DAYS] [--allow-future]\n"
	"                      [--level N] [--threads N]\n"
	"                      [--split SIZE|fat32] [--sfx [--unpacker PATH]] [--cache DIR] [--offline] [-q]\n"
	"       bundler resolve [--product NAME] --product-version VER [--cuda MAJOR[.MINOR]]\n"
	"                       [--platform P] [--mirror URL]\n"
	"                       [--with-cuda-libs] [--offline]\n"
	"       bundler inspect BUNDLE [--export DIR | --sbom cyclonedx|spdx]\n"
	"       bundler sign BUNDLE (--key K.key | --external [--pub K.pub --signature SIG])\n"
	"       bundler split BUNDLE --split SIZE|fat32\n"
	"       bundler sfx BUNDLE|X.run [--platform P] [--unpacker PATH] [-o OUT] [--force]\n"
	"                   (--key K.key | --external [--pub K.pub --signature SIG])\n"
	"       bundler kit -o DIR --key K.key... ([--product NAME] --product-version VER\n"
	"                  [--cuda 12,13] [--platform P,P] | --bundle B)...\n"
	"                  [--unpacker [P=]PATH]... [--no-unpacker P,P] [--split SIZE] [--valid-days N]\n"
	"                  [--statement FILE] [--mirror URL] [--offline] [--cache DIR] [--level N]\n"
	"       bundler cuda-json --from-dir TOOLKIT -o DIR [--platform P] [--release X.Y.Z]\n"
	"       bundler trust-statement (--revoke FP | --add K.pub | --threshold N\n"
	"                  | --statement-threshold N)... [--counter N] (--key K.key | --external) -o FILE\n"
	"       bundler trust-statement FILE (--key K.key | --external [--pub K.pub --signature SIG])\n"
	"       bundler --version | help [COMMAND] | COMMAND --help\n"
	"--product NAME: {products}; --cudnn VER is --product-version VER of\n"
	"cuDNN.\n"
	"Every command takes --help and --verbose (-v), and only the other options its help\n"
	"names (else exit 1, naming the option).\n"
	"The mirror defaults to $CUFERRY_MIRROR, else NVIDIA's; file:// directories work offline,\n"
	"and --offline (create, resolve, kit) never touches the network.\n"
	"exit codes: 0 ok, 1 usage, 2 trust, 3 integrity, 4 incompatible or no space,\n"
	"            5 interrupted or I/O, 9 download or source\n";

const char help_keygen[] =
	"usage: bundler keygen NAME\n"
	"Write a signing key pair: NAME.key (secret, PEM, mode 0600, never overwritten) and\n"
	"NAME.pub (public, PEM), and print the key id and the SHA-256 fingerprint the targets\n"
	"trust (--trust NAME.pub or --trust-fingerprint HEX). NAME may not start with '-'.\n";

const char help_create[] =
	"usage: bundler create [--product NAME] --product-version VER [--cuda MAJOR[.MINOR]]\n"
	"                      [--platform P] --key K.key -o OUT\n"
	"                      [--mirror URL | --from-archive FILE | --from-dir DIR] [--with-cuda-libs]\n"
	"                      [--add-file FILE]... [--counter N] [--expires DAYS] [--allow-future]\n"
	"                      [--level N] [--threads N]\n"
	"                      [--split SIZE|fat32] [--sfx [--unpacker PATH]] [--cache DIR] [--offline] [-q]\n"
	"Make one signed bundle of a product's release and check it before it is put in place.\n"
	"  --product NAME     the product: {products}; one NVIDIA does not build\n"
	"                     for the platform's OS (NCCL for Windows) is exit 9; another name 1\n"
	"  --product-version VER  its version (9.19 picks the newest 9.19.x on the mirror; with\n"
	"                     --from-* it must agree with the source); --cudnn VER is the same\n"
	"                     for cuDNN, and exit 1 with another --product\n"
	"  -o OUT             a file, or a directory (ending in /) for the conventional name\n"
	"                     PRODUCT-VER-cudaN[-cudalibs]-PLATFORM.bundle (cudnn-..., nccl-...)\n"
	"  --mirror URL       NVIDIA's redist tree or a copy of it (http(s):// or file://)\n"
	"  --from-archive F   an archive NVIDIA ships (tar.xz, tgz, zip); --from-dir DIR a tree\n"
	"                     of which only the product's files are taken (a CUDA toolkit's NCCL)\n"
	"  --with-cuda-libs   pack cuBLAS and NVRTC too (cuDNN; NCCL opens none: exit 1); the id\n"
	"                     and name get '-cudalibs'\n"
	"  --add-file FILE    also pack FILE (repeatable) in bin/ (Windows) or lib/ (Linux),\n"
	"                     hashed like every file: zlibwapi.dll for cuDNN 8.3 - 9.1 on Windows;\n"
	"                     never a C library or loader name (libc.so.6, libdl.so.2, ...: exit 9)\n"
	"                     nor a base library every target has (libz.so.1, OpenSSL's: exit 1)\n"
	"  --counter N        replay counter (default: the time); --expires DAYS\n"
	"  --allow-future     write a bundle whose created (SOURCE_DATE_EPOCH) is over a day\n"
	"                     ahead of this clock, which unpackers refuse; else exit 1\n"
	"  --split SIZE       also write the bundle cut into NAME.001, ... of at most SIZE\n"
	"                     (700M, 2G; 'fat32' is 4 GiB - 1, the largest file FAT32 holds)\n"
	"  --offline          never touch the network: only file:// mirrors are read; without\n"
	"                     one, a source with no component list fails at once (cuda-json)\n"
	"  --sfx              also write NAME.run (.exe for Windows): the static unpacker, then\n"
	"                     the bundle; --unpacker PATH names the unpacker to embed\n"
	"Plain bundle, parts and .run come from the one signed bundle of one run (one counter);\n"
	"SHA256SUMS beside them is merged with what the directory held.\n";

const char help_resolve[] =
	"usage: bundler resolve [--product NAME] --product-version VER [--cuda MAJOR[.MINOR]]\n"
	"                       [--platform P] [--mirror URL]\n"
	"                       [--with-cuda-libs] [--offline]\n"
	"Print what create would download from the mirror (URLs, sizes, SHA-256), download\n"
	"nothing.\n";

const char help_inspect[] =
	"usage: bundler inspect BUNDLE [--export DIR | --sbom cyclonedx|spdx]\n"
	"Check a bundle's signatures (by the keys it carries) and every chunk, and print its\n"
	"manifest (with the glibc or Windows version its libraries need). A truncated or\n"
	"corrupt bundle is exit 3; a middle part (NAME.002) is exit 1 naming NAME.001.\n"
	"--export DIR writes the header, the public keys and DER signatures for\n"
	"`openssl dgst -verify`. --sbom cyclonedx|spdx prints only the stored SBOM (CycloneDX\n"
	"1.6 or SPDX 2.3 JSON) after the same checks, with the signers' fingerprints added.\n";

const char help_sign[] =
	"usage: bundler sign BUNDLE --key K.key\n"
	"       bundler sign BUNDLE --external [--pub K.pub --signature SIG]\n"
	"Add a signature to a bundle: with a key file, or one made elsewhere (an offline host,\n"
	"an HSM): --external alone prints the digest to sign; with --pub and --signature\n"
	"(raw r||s or DER) it checks and adds it.\n";

const char help_split[] =
	"usage: bundler split BUNDLE --split SIZE|fat32\n"
	"Cut a bundle signed earlier into BUNDLE.001, BUNDLE.002, ... of at most SIZE bytes\n"
	"(700M, 2G, fat32 = 4 GiB - 1), beside it; the bundle itself stays. The bundle is\n"
	"checked first; SHA256SUMS is merged.\n";

const char help_sfx[] =
	"usage: bundler sfx BUNDLE|X.run [--platform P] [--unpacker PATH] [-o OUT] [--force]\n"
	"                   (--key K.key | --external [--pub K.pub --signature SIG])\n"
	"Wrap a signed bundle as a self-extracting NAME.run (NAME.exe for Windows): the static\n"
	"unpacker for the bundle's platform, the bundle, a stub-signature block over both, a\n"
	"trailer; nothing in the file is unsigned. Given a .run, add one more stub signature\n"
	"(a threshold of several keys); a stub already signed by a key that did not sign the\n"
	"bundle's header is refused (2) unless --force. --unpacker PATH names the stub (its\n"
	"machine type must fit the platform); else it is looked for beside the bundler\n"
	"(DIR/unpacker, DIR/<platform>/unpacker). --external alone prints the digest to sign;\n"
	"with --pub and --signature (DER, raw r||s or hex) it checks and adds it.\n";

const char help_kit[] =
	"usage: bundler kit -o DIR --key K.key... ([--product NAME] --product-version VER\n"
	"                  [--cuda 12,13] [--platform P,P] | --bundle B)...\n"
	"                  [--unpacker [P=]PATH]... [--no-unpacker P,P] [--split SIZE] [--valid-days N]\n"
	"                  [--statement FILE] [--mirror URL] [--offline] [--cache DIR] [--level N]\n"
	"Write what a site needs onto a stick or a directory: the bundles (built from the mirror\n"
	"for a matrix of CUDA variants and platforms, or given with --bundle), the unpacker for\n"
	"each platform in a signed container, SHA256SUMS and README.txt (the commands, the\n"
	"signing keys' fingerprints; never a key). The kit is signed by each --key, which must\n"
	"have signed its bundles: SHA256SUMS.sig (DER; further keys SHA256SUMS.<short id>.sig:\n"
	"openssl dgst -sha256 -verify site.pub -signature SHA256SUMS.sig SHA256SUMS), and the\n"
	"index cuferry-kit.json (every file, created, valid_until) with cuferry-kit.sig, which\n"
	"'unpacker verify KIT' and 'unpacker install KIT' check. --valid-days N (default 90):\n"
	"after that the unpacker refuses the kit (exit 7) unless --allow-expired. Prints the\n"
	"date, the fingerprints, each unpacker's SHA-256 and the keys it has compiled in, and\n"
	"warns when an unpacker trusts none of the kit's keys. Split for the output's file\n"
	"system (FAT32: 4 GiB - 1), space checked first, written as DIR.partial-* and renamed\n"
	"at the end, then flushed and read back from the device: a byte that differs is exit 3\n"
	"with its offset. --statement FILE carries a trust statement (bundler trust-statement)\n"
	"as trust-statement.cuferry, listed in the signed index: 'unpacker install DIR' checks it\n"
	"against the index (exit 3 when it differs), then applies it before it chooses.\n";

const char help_cuda_json[] =
	"usage: bundler cuda-json --from-dir TOOLKIT -o DIR [--platform P] [--release X.Y.Z]\n"
	"Write NVIDIA's CUDA component list, DIR/cuda/redist/redistrib_<release>.json, from a\n"
	"local toolkit: its version.json, or its wheel metadata (dist-info/) and versioned\n"
	"library names. Then 'create --mirror file://DIR' (or CUFERRY_MIRROR=file://DIR) has\n"
	"the list it records in every manifest without the internet. Sizes and SHA-256 are\n"
	"the libraries' own: the JSON lists, it names no archive to download.\n"
	"  --release X.Y.Z    the release label when the toolkit cannot tell it exactly (a\n"
	"                     wheel's runtime 13.0.96 gives 13.0)\n";

const char help_trust_statement[] =
	"usage: bundler trust-statement (--revoke FP | --add K.pub | --threshold N\n"
	"                  | --statement-threshold N)... [--counter N] (--key K.key | --external) -o FILE\n"
	"       bundler trust-statement FILE (--key K.key | --external [--pub K.pub --signature SIG])\n"
	"Write a signed trust statement for 'unpacker trust apply FILE': revoke a key by its\n"
	"fingerprint, add a key, set the threshold T or the statement threshold. The targets\n"
	"apply it only when T of their trusted keys signed it to revoke only those signers (a key\n"
	"can always revoke itself), and their statement threshold signed it for anything else\n"
	"(default: every trusted key when at most three, else T + 1). Give FILE alone to add one\n"
	"more signature. The counter (default SOURCE_DATE_EPOCH or the clock) must grow: a host\n"
	"refuses one older than the last it applied. --external alone prints the digest to sign\n"
	"elsewhere; run it again with the same SOURCE_DATE_EPOCH and --counter, --pub and\n"
	"--signature. The format is in docs/formats.md (\"Trust statements\").\n";

const char help_help[] =
	"usage: bundler help [COMMAND]\n"
	"Print the usage, or the help of one command (the same as COMMAND --help).\n";
