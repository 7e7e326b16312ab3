#!/bin/sh
# deps.sh TARGET - build the pinned static libraries of the unpacker (and the bundler's
# mbedTLS) for TARGET from Debian source packages, into a cache outside the checkout.
#
#   TARGET: linux-x86_64 | linux-sbsa (aarch64) | windows-x86_64 (mingw-w64)
#   deps.sh --dir TARGET   print the cache directory (builds nothing)
#
# Sources: `apt-get source` through a private sources list (deb-src, the registry of
# /etc/apt/sources.list.d, Debian 13 and 12), pinned to exact versions. Each .dsc must have
# the SHA-256 pinned below AND pass dscverify (a Debian key's signature, every file's
# hashes): an unsigned, re-signed or mismatching source stops the build.
#
# Result: $CACHE/<target>-<key>/{include,lib,VERSIONS} where CACHE is $CUFERRY_DEPS_CACHE,
# else ${XDG_CACHE_HOME:-$HOME/.cache}/cuferry-deps, and <key> hashes this script, the
# mbedTLS configuration and the glibc floor generator: a change rebuilds, a complete cache
# is reused without a download. Sources are kept in $CACHE/src.
#
#   lib/libzstd.a              zstd, decoder only
#   lib/libarchive.a           libarchive: tar and zstd only (no other codec, ACL, xattr, iconv)
#   lib/libjansson.a           jansson
#   lib/libmbedcrypto-verify.a mbedTLS 3.6, tools/mbedtls-verify-config.h (the unpacker)
#   lib/libmbedcrypto.a        mbedTLS 3.6, default configuration (the bundler signs with it)
#   include/cuferry-glibc-floor.h  (Linux) the symbol pins every object is compiled with
#   lib/libcmocka.a            (Windows) cmocka, for the unit tests run under Wine (Linux
#                              uses Debian's libcmocka-dev of the same version)
set -eu

ZSTD_SRC=libzstd      ZSTD_DEB=1.5.4+dfsg2-5
ZSTD_DSC_SHA256=8f602f92b575aa8b5e979196fb6ee82d78f233521dc9636526d3ecba1f63c1b1
ARCHIVE_SRC=libarchive ARCHIVE_DEB=3.7.4-4+deb13u1
ARCHIVE_DSC_SHA256=0579aa62c9b547a520fd3af48382b1b071c75dde75643c5063fc5f5dcb80545b
JANSSON_SRC=jansson   JANSSON_DEB=2.14-2
JANSSON_DSC_SHA256=6296ddd9c0a022bd1b70074aefb171cfcdf5694a04ffd32b35fd66097621af87
MBEDTLS_SRC=mbedtls   MBEDTLS_DEB=3.6.6-0.1~deb13u1
MBEDTLS_DSC_SHA256=eb9ed1adbbddcb0d00276fac6fcee0056c64ce01481c2522a16dca75792eb5eb
CMOCKA_SRC=cmocka     CMOCKA_DEB=1.1.5-2.1
CMOCKA_DSC_SHA256=9f94190b571e059dd6a359c7effd40b982c6c2796959ea201cf41e7cac0b6730
GLIBC_FLOOR=2.17
MIRROR=${CUFERRY_DEBIAN_MIRROR:-http://deb.debian.org/debian}

die() { echo "deps.sh: $*" >&2; exit 1; }

print_dir=0
if [ "${1:-}" = --dir ]; then print_dir=1; shift; fi
target=${1:-}
tools=$(cd "$(dirname "$0")" && pwd)
case $target in
linux-x86_64) cc=${DEPS_CC:-gcc}; triple=x86_64-linux-gnu; cmake_system=Linux; cpu=x86_64
	libc_dir=/lib/x86_64-linux-gnu; emulator= ;;
linux-sbsa) cc=${DEPS_CC:-aarch64-linux-gnu-gcc}; triple=aarch64-linux-gnu; cmake_system=Linux
	cpu=aarch64; libc_dir=/usr/aarch64-linux-gnu/lib; emulator="qemu-aarch64;-L;/usr/aarch64-linux-gnu" ;;
windows-x86_64) cc=${DEPS_CC:-x86_64-w64-mingw32-gcc}; triple=x86_64-w64-mingw32
	cmake_system=Windows; cpu=AMD64; libc_dir=; emulator= ;;
*) die "usage: deps.sh [--dir] linux-x86_64|linux-sbsa|windows-x86_64" ;;
esac

cache=${CUFERRY_DEPS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cuferry-deps}
key=$(cat "$tools/deps.sh" "$tools/mbedtls-verify-config.h" "$tools/glibc-floor.sh" |
	sha256sum | cut -c1-16)
out=$cache/$target-$key
if [ $print_dir = 1 ]; then echo "$out"; exit 0; fi
[ -f "$out/.complete" ] && { echo "deps.sh: $target: cached in $out"; exit 0; }

command -v "$cc" >/dev/null || die "$target: compiler $cc not found (make deps installs it)"
for tool in apt-get dscverify dpkg-source cmake make readelf flock; do
	command -v $tool >/dev/null || die "$tool not found (make deps installs it)"
done
mkdir -p "$cache/src"
exec 9>"$cache/.lock"
flock 9
[ -f "$out/.complete" ] && { echo "deps.sh: $target: cached in $out"; exit 0; }

# --- sources --------------------------------------------------------------------------
apt_dir=$cache/apt
apt_private() {
	apt-get -q -o Dir::Etc::SourceList=/dev/null -o Dir::Etc::SourceParts="$apt_dir/sources" \
		-o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache" \
		-o Debug::NoLocking=1 -o APT::Sandbox::User=root "$@"
}
apt_updated=0
fetch() { # SRC DEBVERSION SHA256: the verified .dsc path on stdout
	name=$1 ver=$2 want=$3
	dsc=$cache/src/${name}_$(echo "$ver" | sed 's/^[0-9]*://').dsc
	if [ ! -f "$dsc" ] || ! echo "$want  $dsc" | sha256sum -c --status; then
		if [ $apt_updated = 0 ]; then
			mkdir -p "$apt_dir/sources" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
			cat > "$apt_dir/sources/cuferry-src.sources" <<-EOF
			Types: deb-src
			URIs: $MIRROR
			Suites: trixie bookworm
			Components: main
			Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
			EOF
			apt_private update >&2 || die "apt-get update of the deb-src lists failed"
			apt_updated=1
		fi
		(cd "$cache/src" && apt_private source --download-only "$name=$ver" >&2) ||
			die "$name $ver: apt-get source failed"
	fi
	echo "$want  $dsc" | sha256sum -c --status ||
		die "$name $ver: $(basename "$dsc") does not have the pinned SHA-256 $want"
	dscverify --no-conf "$dsc" >/dev/null 2>"$cache/src/$name.dscverify" ||
		die "$name $ver: dscverify failed (signature or file hashes): $(tail -1 "$cache/src/$name.dscverify")"
	echo "$dsc"
}

work=$cache/build-$target-$$
rm -rf "$work" "$out.tmp"
trap 'rm -rf "$work" "$out.tmp"' EXIT
mkdir -p "$work" "$out.tmp/include" "$out.tmp/lib"
unpack() { # DSC DIR
	dpkg-source --require-strong-checksums -x "$1" "$work/$2" >/dev/null ||
		die "$(basename "$1"): dpkg-source -x failed"
}
unpack "$(fetch $ZSTD_SRC $ZSTD_DEB $ZSTD_DSC_SHA256)" zstd
unpack "$(fetch $ARCHIVE_SRC $ARCHIVE_DEB $ARCHIVE_DSC_SHA256)" libarchive
unpack "$(fetch $JANSSON_SRC $JANSSON_DEB $JANSSON_DSC_SHA256)" jansson
unpack "$(fetch $MBEDTLS_SRC $MBEDTLS_DEB $MBEDTLS_DSC_SHA256)" mbedtls
case $target in windows-*) unpack "$(fetch $CMOCKA_SRC $CMOCKA_DEB $CMOCKA_DSC_SHA256)" cmocka ;; esac

# --- flags ----------------------------------------------------------------------------
jobs=${DEPS_JOBS:-$(nproc 2>/dev/null || echo 2)}
ar=${cc%gcc}gcc-ar
command -v "$ar" >/dev/null || ar=${triple}-ar
command -v "$ar" >/dev/null || ar=ar
# Sections per function: the unpacker links with --gc-sections, so what it never calls
# (ECDSA signing in ecdsa.c, zstd's unused entry points) is not in the binary at all.
cflags="-O2 -ffunction-sections -fdata-sections"
mbedtls_verify_flags=
archive_flags=
zstd_opt=-O3 # zstd's own default: the decoder is the install's hot loop
case $target in
windows-*)
	# mbedTLS on Windows needs its platform layer (snprintf and friends); Windows has no
	# POSIX regex, which libarchive's library does not need (only bsdtar's -s does).
	mbedtls_verify_flags=-DMBEDTLS_PLATFORM_C
	archive_flags=-DPOSIX_REGEX_LIB=NONE ;;
linux-*)
	sh "$tools/glibc-floor.sh" $GLIBC_FLOOR "$libc_dir" > "$out.tmp/include/cuferry-glibc-floor.h"
	cflags="$cflags -fPIE -include $out.tmp/include/cuferry-glibc-floor.h" ;;
esac

cmake_build() { # SRCDIR BUILDDIR [cmake options]: configure for the target
	srcdir=$1 bdir=$2; shift 2
	set -- -S "$srcdir" -B "$bdir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_COMPILER="$cc" \
		-DCMAKE_C_FLAGS="$cflags" -DCMAKE_AR="$(command -v "$ar")" \
		-DBUILD_SHARED_LIBS=OFF -DCMAKE_INSTALL_PREFIX="$out.tmp" "$@"
	if [ "$target" != linux-x86_64 ]; then
		set -- "$@" -DCMAKE_SYSTEM_NAME=$cmake_system -DCMAKE_SYSTEM_PROCESSOR=$cpu \
			-DCMAKE_FIND_ROOT_PATH="$out.tmp;/usr/$triple" \
			-DCMAKE_FIND_ROOT_PATH_MODE_PROGRAM=NEVER -DCMAKE_FIND_ROOT_PATH_MODE_LIBRARY=ONLY \
			-DCMAKE_FIND_ROOT_PATH_MODE_INCLUDE=ONLY
		[ -n "$emulator" ] && set -- "$@" -DCMAKE_CROSSCOMPILING_EMULATOR="$emulator"
	fi
	cmake "$@" >"$bdir.log" 2>&1 || { tail -30 "$bdir.log" >&2; die "cmake failed in $srcdir"; }
}

# --- zstd: the decoder only ------------------------------------------------------------
echo "deps.sh: $target: zstd $ZSTD_DEB (decoder only)" >&2
make -s -C "$work/zstd/lib" -j"$jobs" libzstd.a CC="$cc" AR="$ar" CFLAGS="$cflags $zstd_opt" \
	ZSTD_LIB_COMPRESSION=0 ZSTD_LIB_DICTBUILDER=0 ZSTD_LIB_DEPRECATED=0 ZSTD_LEGACY_SUPPORT=0 \
	>"$work/zstd.log" 2>&1 || { tail -30 "$work/zstd.log" >&2; die "zstd build failed"; }
cp "$work/zstd/lib/libzstd.a" "$out.tmp/lib/"
cp "$work/zstd/lib/zstd.h" "$work/zstd/lib/zstd_errors.h" "$out.tmp/include/"

# --- mbedTLS 3.6: the unpacker's verify-only build and the bundler's full build ----------
echo "deps.sh: $target: mbedTLS $MBEDTLS_DEB (verify-only and full)" >&2
cp -R "$work/mbedtls" "$work/mbedtls-verify"
make -s -C "$work/mbedtls-verify/library" -j"$jobs" libmbedcrypto.a CC="$cc" AR="$ar" \
	CFLAGS="$cflags $mbedtls_verify_flags -I$tools -DMBEDTLS_CONFIG_FILE='<mbedtls-verify-config.h>'" \
	>"$work/mbedtls-verify.log" 2>&1 ||
	{ tail -30 "$work/mbedtls-verify.log" >&2; die "mbedTLS (verify) build failed"; }
make -s -C "$work/mbedtls/library" -j"$jobs" libmbedcrypto.a CC="$cc" AR="$ar" CFLAGS="$cflags" \
	>"$work/mbedtls.log" 2>&1 || { tail -30 "$work/mbedtls.log" >&2; die "mbedTLS build failed"; }
cp "$work/mbedtls-verify/library/libmbedcrypto.a" "$out.tmp/lib/libmbedcrypto-verify.a"
cp "$work/mbedtls/library/libmbedcrypto.a" "$out.tmp/lib/libmbedcrypto.a"
cp -R "$work/mbedtls/include/mbedtls" "$work/mbedtls/include/psa" "$out.tmp/include/"
cp "$tools/mbedtls-verify-config.h" "$out.tmp/include/"

# --- jansson -----------------------------------------------------------------------------
echo "deps.sh: $target: jansson $JANSSON_DEB" >&2
cmake_build "$work/jansson" "$work/jansson-build" -DJANSSON_BUILD_DOCS=OFF \
	-DJANSSON_EXAMPLES=OFF -DJANSSON_WITHOUT_TESTS=ON -DJANSSON_BUILD_SHARED_LIBS=OFF
cmake --build "$work/jansson-build" -j "$jobs" >"$work/jansson.log" 2>&1 &&
	cmake --install "$work/jansson-build" >>"$work/jansson.log" 2>&1 ||
	{ tail -30 "$work/jansson.log" >&2; die "jansson build failed"; }

# --- libarchive: tar and zstd, nothing else ----------------------------------------------
echo "deps.sh: $target: libarchive $ARCHIVE_DEB (tar + zstd)" >&2
off=
for opt in MBEDTLS NETTLE OPENSSL LIBB2 LZ4 LZO LZMA ZLIB BZip2 LIBXML2 EXPAT PCREPOSIX \
	PCRE2POSIX LIBGCC CNG TAR CPIO CAT UNZIP XATTR ACL ICONV TEST INSTALL WERROR; do
	off="$off -DENABLE_$opt=OFF"
done
# shellcheck disable=SC2086
cmake_build "$work/libarchive" "$work/libarchive-build" $off $archive_flags -DENABLE_ZSTD=ON \
	-DZSTD_INCLUDE_DIR="$out.tmp/include" -DZSTD_LIBRARY="$out.tmp/lib/libzstd.a"
grep -q '^HAVE_LIBZSTD:INTERNAL=1' "$work/libarchive-build/CMakeCache.txt" ||
	grep -q 'HAVE_ZSTD_H:INTERNAL=1' "$work/libarchive-build/CMakeCache.txt" ||
	die "libarchive did not find the zstd it was given"
cmake --build "$work/libarchive-build" --target archive_static -j "$jobs" \
	>"$work/libarchive.log" 2>&1 || { tail -30 "$work/libarchive.log" >&2; die "libarchive build failed"; }
cp "$work/libarchive-build/libarchive/libarchive.a" "$out.tmp/lib/libarchive.a"
cp "$work/libarchive/libarchive/archive.h" "$work/libarchive/libarchive/archive_entry.h" \
	"$out.tmp/include/"

# --- cmocka (Windows only): the unit tests cross-built and run under Wine ------------------
case $target in windows-*)
	echo "deps.sh: $target: cmocka $CMOCKA_DEB (static)" >&2
	cmake_build "$work/cmocka" "$work/cmocka-build" -DWITH_STATIC_LIB=ON -DWITH_EXAMPLES=OFF \
		-DUNIT_TESTING=OFF -DPICKY_DEVELOPER=OFF
	cmake --build "$work/cmocka-build" --target cmocka-static -j "$jobs" \
		>"$work/cmocka.log" 2>&1 || { tail -30 "$work/cmocka.log" >&2; die "cmocka build failed"; }
	cp "$(find "$work/cmocka-build" -name 'libcmocka*.a' | head -n 1)" "$out.tmp/lib/libcmocka.a"
	cp "$work/cmocka/include/cmocka.h" "$out.tmp/include/"
	;;
esac

cat > "$out.tmp/VERSIONS" <<EOF
target $target
zstd $ZSTD_DEB
libarchive $ARCHIVE_DEB
jansson $JANSSON_DEB
mbedtls $MBEDTLS_DEB
glibc-floor ${libc_dir:+$GLIBC_FLOOR}
EOF
case $target in windows-*) echo "cmocka $CMOCKA_DEB" >> "$out.tmp/VERSIONS" ;; esac
touch "$out.tmp/.complete"
rm -rf "$out"
mv "$out.tmp" "$out"
echo "deps.sh: $target: built in $out"
