#!/bin/sh
# HPC: the Lmod and Tcl modulefiles an install writes (load, default, switch, unload,
# uninstall, rollback), and the pkg-config and CMake files every bundle carries, used to
# build programs against the installed real cuDNN that then print cudnnGetVersion().
. "$CUFERRY_TOP/tests/e2e/lib.sh"
T="--trust $FX/test.pub"
CUDA=$(cat "$FX/cuda_dir")
R=$W/root
SYS=$W/sys              # the prefix as the installed system sees it ...
P=$SYS/prefix
MODS=/site/modulefiles  # ... and the module directory (both written under --root)
mkdir -p "$R"
# Under --root the files name paths of the installed system: make them resolve here too.
mkdir -p "$R$SYS" && ln -s "$R$SYS" "$SYS"
cat > version.c <<'C'
#include <stdio.h>
#include <cudnn.h>
int main(void) { printf("%zu\n", cudnnGetVersion()); return 0; }
C

note "the bundle carries lib/pkgconfig/cudnn.pc and the CMake package, signed like every file"
zstd -dc "$FX/small.bundle" | tar -t > listing
for f in lib/pkgconfig/cudnn.pc lib/cmake/CUDNN/CUDNNConfig.cmake lib/cmake/CUDNN/CUDNNConfigVersion.cmake; do
	grep -qx "$f" listing || fail "$f not in the bundle"
done
"$BUNDLER" inspect "$FX/small.bundle" > inspect.out
assert_contains inspect.out "lib/pkgconfig/cudnn.pc"

note "install with --modulefiles: Lua and Tcl files, the default is current"
expect 0 "$UNPACKER" "$FX/small.bundle" --root "$R" --prefix "$P" $T --modulefiles "$MODS" /silent --log "$W/log"
M=$R$MODS/cudnn
[ -f "$M/9.19.0-cuda13.lua" ] && [ -f "$M/9.19.0-cuda13" ] || fail "modulefiles missing: $(ls -a "$M")"
assert_contains "$M/9.19.0-cuda13.lua" 'conflict("cudnn")'
assert_contains "$M/9.19.0-cuda13" '^conflict cudnn'
head -1 "$M/9.19.0-cuda13" | grep -q '^#%Module' || fail "the Tcl file lacks its magic cookie"
assert_contains "$M/.version" 'ModulesVersion "9.19.0-cuda13"'
grep -q 'PATH", pathJoin(root, "bin")' "$M/9.19.0-cuda13.lua" && fail "PATH set for an install without bin/"
for v in CUDNN_PATH CUDNN_ROOT CPATH LIBRARY_PATH LD_LIBRARY_PATH PKG_CONFIG_PATH CMAKE_PREFIX_PATH; do
	assert_contains "$M/9.19.0-cuda13.lua" "\"$v\""
	assert_contains "$M/9.19.0-cuda13" " $v "
done
expect 0 "$UNPACKER" validate --root "$R" --prefix "$P" $T

note "a second version: the default follows install and use"
expect 0 "$UNPACKER" "$FX/real.bundle" --root "$R" --prefix "$P" $T --modulefiles "$MODS" /silent --log "$W/log"
assert_contains "$M/.version" 'ModulesVersion "9.19.0.56-cuda13"'
expect 0 "$UNPACKER" use cudnn-9.19.0-cuda13 --root "$R" --prefix "$P"
assert_contains "$M/.version" 'ModulesVersion "9.19.0-cuda13"'
expect 0 "$UNPACKER" use cudnn-9.19.0.56-cuda13 --root "$R" --prefix "$P"

VARS="CUDNN_PATH CUDNN_ROOT CPATH LIBRARY_PATH LD_LIBRARY_PATH PKG_CONFIG_PATH CMAKE_PREFIX_PATH PATH"
# session SHELL-SETUP: module load cudnn, build and run, two versions in turn, unload; prints
# the lines the checks below read.
session() {
	env -i HOME="$W" PATH=/usr/bin:/bin LIBRARY_PATH=/keep/me bash -c "
		set -e
		$1
		show() { for v in $VARS; do eval \"printf '%s=%s|' \$v \\\"\\\${\$v-unset}\\\"\"; done; }
		before=\$(show)
		module load cudnn
		echo \"cudnn_path=\$CUDNN_PATH\"
		case \":\$LIBRARY_PATH:\" in *:/keep/me:*) ;; *) echo 'LIBRARY_PATH lost'; exit 1 ;; esac
		cc version.c -o version-mod -I'$CUDA/include' -lcudnn
		echo \"version=\$(./version-mod)\"
		module load cudnn/9.19.0-cuda13 2>&1 || true
		echo \"after_second=\$CUDNN_PATH\"
		echo \"loaded=\$(module list 2>&1 | grep -c 'cudnn/')\"
		module unload cudnn
		[ \"\$before\" = \"\$(show)\" ] && echo restored=yes || echo \"restored=no: \$before // \$(show)\"
	"
}
# Loading a second version: Lmod swaps (one name, one module); Environment Modules refuses
# it through the modulefiles' conflict. Either way one cuDNN is loaded.
check_session() { # OUTPUT-FILE TOOL DIR-AFTER-SECOND-LOAD
	assert_contains "$1" "cudnn_path=$P/cudnn-9.19.0.56-cuda13"
	assert_contains "$1" "version=91900"
	assert_contains "$1" "after_second=$P/$3"
	assert_contains "$1" "loaded=1"
	assert_contains "$1" "restored=yes"
	echo "ok $2"
}

note "Lmod: module load cudnn, a program prints cudnnGetVersion(), unload restores"
LMOD_INIT=/usr/share/lmod/lmod/init/bash
if [ -f "$LMOD_INIT" ]; then
	session ". $LMOD_INIT; module use '$R$MODS'" > lmod.out 2>&1 || { cat lmod.out; fail "Lmod session"; }
	check_session lmod.out Lmod cudnn-9.19.0-cuda13
else
	echo "SKIP Lmod: $LMOD_INIT not found (make deps installs lmod)"
fi

note "Environment Modules: modulecmd.tcl from the unpacked environment-modules .deb"
EM=$B/environment-modules
if [ ! -f "$EM/modulecmd.tcl" ]; then
	rm -rf "$EM.tmp" && mkdir -p "$EM.tmp"
	(cd "$EM.tmp" && apt-get download environment-modules >/dev/null 2>&1 && dpkg -x environment-modules_*.deb x &&
		cp "$(find x -name modulecmd.tcl | head -1)" modulecmd.tcl) && mv "$EM.tmp" "$EM" || rm -rf "$EM.tmp"
fi
if [ -f "$EM/modulecmd.tcl" ] && command -v tclsh >/dev/null; then
	session "module() { eval \"\$(tclsh '$EM/modulecmd.tcl' sh \"\$@\")\"; }; export MODULEPATH='$R$MODS'" > tcl.out 2>&1 || { cat tcl.out; fail "Tcl session"; }
	check_session tcl.out "Environment Modules" cudnn-9.19.0.56-cuda13
	assert_contains tcl.out "conflict"
else
	echo "SKIP Environment Modules: no modulecmd.tcl (apt-get download environment-modules failed) or no tclsh"
fi

note "pkg-config and CMake, found through the environment the install wrote (profile.d)"
# The install's profile.d names the system's paths; the link above makes them resolve here.
PROFILE=$R/etc/profile.d/cuferry-cudnn.sh
env -i PATH=/usr/bin:/bin sh -c "
	set -e
	. '$PROFILE'
	cc version.c -o version-pc -I'$CUDA/include' \$(pkg-config --cflags --libs cudnn)
	echo pc_version=\$(pkg-config --modversion cudnn)
	LD_LIBRARY_PATH=\$CUDNN_PATH/lib ./version-pc | sed 's/^/pc_run=/'
" > builders.out 2>&1 || { cat builders.out; fail "pkg-config build"; }
assert_contains builders.out "pc_version=9.19.0.56"
assert_contains builders.out "pc_run=91900"
mkdir cm && cp version.c cm/ && cat > cm/CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.13)
project(cudnn_version C)
find_package(CUDNN ${WANT} CONFIG REQUIRED)
add_executable(version-cmake version.c)
target_link_libraries(version-cmake PRIVATE CUDNN::cudnn CUDNN::cudnn_graph)
target_include_directories(version-cmake PRIVATE ${CUDA_INCLUDE})
message(STATUS "cuDNN ${CUDNN_VERSION} in ${CUDNN_ROOT_DIR}")
CM
if command -v cmake >/dev/null; then
	env -i PATH=/usr/bin:/bin sh -c "
		set -e
		. '$PROFILE'
		cmake -S cm -B cm/build -DWANT=9.1 -DCUDA_INCLUDE='$CUDA/include'
		cmake --build cm/build
		cm/build/version-cmake | sed 's/^/cmake_run=/'
	" > cmake.out 2>&1 || { cat cmake.out; fail "CMake build"; }
	assert_contains cmake.out "cuDNN 9.19.0.56 in $P/current"
	assert_contains cmake.out "cmake_run=91900"
	if env -i PATH=/usr/bin:/bin sh -c ". '$PROFILE'; cmake -S cm -B cm/build10 -DWANT=10 -DCUDA_INCLUDE=/x" > cmake10.out 2>&1; then
		fail "find_package(CUDNN 10) accepted cuDNN 9"
	fi
else
	echo "SKIP CMake: cmake not installed (make deps installs it)"
fi

note "a failed install takes its modulefiles back out and restores the default"
expect 0 "$UNPACKER" uninstall cudnn-9.19.0-cuda13 --root "$R" --prefix "$P"
[ ! -e "$M/9.19.0-cuda13.lua" ] && [ ! -e "$M/9.19.0-cuda13" ] || fail "uninstall left the modulefiles"
CUFERRY_FAULT=env expect 5 "$UNPACKER_SEAMS" "$FX/small.bundle" --root "$R" --prefix "$P" $T --modulefiles "$MODS" --allow-downgrade
[ ! -e "$M/9.19.0-cuda13.lua" ] || fail "a rolled-back install left its modulefile"
assert_contains "$M/.version" 'ModulesVersion "9.19.0.56-cuda13"'

note "uninstalling the current one removes its files and the default"
expect 0 "$UNPACKER" uninstall cudnn-9.19.0.56-cuda13 --root "$R" --prefix "$P" --force
[ -z "$(ls -A "$M")" ] || fail "left in $M: $(ls -A "$M")"

note "Lmod found on the system: the site's module path (etc/lmod/modulespath) as root"
R2=$W/root2
mkdir -p "$R2/etc/lmod"
printf '# comment\n/etc/lmod/modules/\n/usr/share/lmod/lmod/modulefiles\n' > "$R2/etc/lmod/modulespath"
expect 0 "$UNPACKER" "$FX/small.bundle" --root "$R2" $T --no-validate
[ -f "$R2/etc/lmod/modules/cudnn/9.19.0-cuda13.lua" ] || fail "not written to the site's module path"
R3=$W/root3
mkdir -p "$R3/etc/lmod" && cp "$R2/etc/lmod/modulespath" "$R3/etc/lmod/"
expect 0 "$UNPACKER" "$FX/small.bundle" --root "$R3" $T --no-validate --no-env
[ ! -e "$R3/etc/lmod/modules/cudnn" ] || fail "--no-env wrote modulefiles to the site path"

note "a module directory that is a symbolic link is refused (exit 4, as a linked prefix), before anything is written"
R4=$W/root4
mkdir -p "$R4/site" "$W/elsewhere" && ln -s "$W/elsewhere" "$R4/site/modules"
expect 4 "$UNPACKER" "$FX/small.bundle" --root "$R4" $T --no-validate --modulefiles /site/modules
assert_contains last.err "the modulefiles directory"
[ -z "$(ls -A "$W/elsewhere")" ] || fail "wrote through a link"
[ ! -e "$R4/opt/cudnn/current" ] || fail "the install was not refused before it began"
echo "all HPC checks passed"
