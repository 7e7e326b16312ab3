# cuferry - non-recursive Makefile. `make help` lists the targets.
#
# Build outputs go to $(B) (build/ by default; build-san/ for the sanitizer build).

B        ?= build
CC       ?= cc
SAN      ?= 0
OPT      ?= -O2
CFLAGS   ?= $(OPT) -g
WARN      = -Wall -Wextra -Wformat=2 -Wshadow -Wno-unused-parameter -Wmissing-prototypes \
            -Wstrict-prototypes
# CI (CI=true in its environment) builds with -Werror: a new warning fails the run there.
ifeq ($(CI),true)
WARN     += -Werror
endif
CPPFLAGS += -std=c11 -D_GNU_SOURCE -I. -I$(B)
DEPFLAGS  = -MMD -MP
# Quiet rules: each compile or link prints one short line ("CC bundler/main.c"); V=1 prints
# the full command lines instead.
V ?= 0
ifeq ($(V),1)
Q    :=
say   =
else
Q    := @
say   = printf '  %-6s %s\n' '$(1)' '$(2)';
endif

# Pinned static libraries built from Debian source packages by tools/deps.sh, cached outside
# the checkout (docs/security-model.md, "What the programs are built from"). Every build
# compiles against their headers (mbedTLS 3.6 for everything); the release unpackers link
# them statically.
DEPS     := $(shell sh tools/deps.sh --dir linux-x86_64)
DEPS_SBSA:= $(shell sh tools/deps.sh --dir linux-sbsa)
CPPFLAGS += -I$(DEPS)/include

# Keys compiled into the unpacker: make TRUSTED_KEYS=a.pub,b.pub; the number of distinct
# trusted signatures a bundle needs: make TRUSTED_THRESHOLD=N (1 to 8; a trust directory's
# threshold file may raise it, never lower it); the signatures a trust statement needs for
# anything but revoking its own signers: make TRUSTED_STATEMENT_THRESHOLD=N (the same rule;
# empty or not given: every trusted key when at most three, else T + 1). All are the build's
# configuration, kept in $(B)/trusted-keys/ (the key bytes): a later make without them keeps
# them; TRUSTED_KEYS= (empty) removes the keys; make clean removes the configuration
# (tools/trusted-keys.sh).
TRUSTED_KEYS_GIVEN      := $(if $(filter undefined,$(origin TRUSTED_KEYS)),0,1)
TRUSTED_THRESHOLD_GIVEN := $(if $(filter undefined,$(origin TRUSTED_THRESHOLD)),0,1)
TRUSTED_STATEMENT_THRESHOLD_GIVEN := $(if $(filter undefined,$(origin TRUSTED_STATEMENT_THRESHOLD)),0,1)

ifeq ($(FUZZ),1)
# libFuzzer build (make fuzz): clang, ASan and UBSan, shared libraries.
CC       = clang
CFLAGS  += -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
LDFLAGS += -fsanitize=address,undefined
SAN      = 1
endif

ifeq ($(SAN),1)
CFLAGS  += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS += -fsanitize=address,undefined
# ASan cannot be combined with a static link: the sanitizer unpacker links shared libraries.
# The crypto path stays mbedTLS 3.6 (the full build; the verify-only one is not instrumented).
UNPACKER_LIBS = -larchive -lzstd $(DEPS)/lib/libmbedcrypto.a -ljansson -ldl -lpthread
# ASan's dlopen makes glibc search a name as if libasan had asked, not the library that did
# (its RUNPATH $ORIGIN lost): tests/tools/sandlopen.c, exported first, searches for the caller.
ifneq ($(FUZZ),1)
UNPACKER_SAN_OBJ = $(B)/obj/tests/tools/sandlopen.o
UNPACKER_LIBS += -Wl,--export-dynamic-symbol=dlopen
endif
else
# glibc floor 2.17 (unpacker/target/glibcfloor.h): every object pinned by the generated header,
# the few newer entry points replaced, libdl and libpthread named as files so that old
# glibcs, where dlopen and pthread_create live there, load them (2.34+ keeps empty stubs).
FLOOR_CFLAGS   = -include $(DEPS)/include/cuferry-glibc-floor.h -DCUFERRY_GLIBC_FLOOR \
                 -ffunction-sections -fdata-sections
CFLAGS        += $(FLOOR_CFLAGS)
FLOOR_LDLIBS   = -Wl,--gc-sections -Wl,--no-as-needed -l:libdl.so.2 -l:libpthread.so.0 -Wl,--as-needed
UNPACKER_LIBS  = $(addprefix $(DEPS)/lib/,libarchive.a libzstd.a libmbedcrypto-verify.a libjansson.a) \
                 $(FLOOR_LDLIBS)
UNPACKER_FLOOR_OBJ = $(B)/obj/unpacker/target/glibcfloor.o
endif
BUNDLER_LIBS = -larchive -lzstd $(DEPS)/lib/libmbedcrypto.a -ljansson -lcurl -lpthread
TEST_LIBS    = -lcmocka -larchive -lzstd $(DEPS)/lib/libmbedcrypto.a -ljansson -lpthread -ldl

# Debian packages. BUILD_PACKAGES: what a plain `make` needs (the compilers, the headers, and
# tools/deps.sh's apt-get source, dscverify, cmake and qemu for the pinned libraries);
# DEB_PACKAGES: those and what the tests, the lint, the man pages and the demo need.
# `make deps` installs what is missing (apt-get, as root); every other target only checks
# and stops with one line that says to run it.
BUILD_PACKAGES = gcc make libarchive-dev libzstd-dev libjansson-dev libcurl4-openssl-dev \
               xz-utils gcc-aarch64-linux-gnu qemu-user binutils cmake dpkg-dev devscripts \
               debian-keyring
DEB_PACKAGES = $(BUILD_PACKAGES) pkg-config libacl1-dev libcmocka-dev zstd openssl python3 \
               tar file time clang cppcheck qemu-user-static bzip2 debootstrap \
               scdoc man-db bash-completion
# test_sfx: the PE stub for a windows-x86_64 .exe, and xxd for the OpenSSL-signed stub digest
DEB_PACKAGES += gcc-mingw-w64-x86-64 xxd
# The kit's tests: FAT32 images made and read without mounting, and through a FUSE driver.
DEB_PACKAGES += dosfstools mtools fusefat
# The fleet and HPC tests: Ansible (with its collections: community.general, containers.podman,
# ansible.windows), targets (debootstrap, podman, runc), Lmod, Tcl, CMake and pkg-config.
DEB_PACKAGES += ansible ansible-core ansible-lint debootstrap podman runc lmod tcl cmake pkgconf
# The Windows tests: Wine 8 runs the mingw-w64 builds (make windows-unit, tests/e2e/test_windows_*).
DEB_PACKAGES += wine wine64
# test_everyday_unpacker: the --json report checked against docs/unpacker-report.schema.json.
DEB_PACKAGES += python3-jsonschema
# test_provenance: the README's offline re-check of a bundle's provenance (sha256sum, jq, zstd, tar).
DEB_PACKAGES += jq

# The sources, by folder: the folders are the layers of tools/include-graph.py
# (docs/ARCHITECTURE.md), and a new file in one is built without a line here.
# src_in FOLDER...: the .c files directly in those folders, sorted
src_in = $(sort $(foreach d,$(1),$(wildcard $(d)/*.c)))
# The platform layer: the POSIX side here (the Windows build takes common/platform_win*.c).
PLATFORM_SRC  = $(sort $(wildcard common/platform_posix*.c common/platform_linux*.c)) common/platform_dir.c
# common/fault.c is the unpacker's test seam (install steps, trust, safe paths, validation):
# the unpacker links it, the bundler has seams of its own.
COMMON_SRC    = $(filter-out common/platform_% common/fault.c,$(call src_in,common common/bundle)) \
                $(PLATFORM_SRC)
MANIFESTS_SRC = $(call src_in,manifests)
VERIFY_SRC    = signing/verify.c
SIGN_SRC      = signing/sign.c
BUNDLER_SRC   = $(call src_in,bundler)
# The unpacker's layers but its main (the fuzz targets link the rest) and the glibc floor's
# glue (linked only where the floor is on: UNPACKER_FLOOR_OBJ, the sbsa build).
UNPACKER_DIRS = unpacker/target unpacker/environment unpacker/install unpacker/validate unpacker/cli
UNPACKER_SRC  = $(filter-out unpacker/cli/main.c unpacker/target/glibcfloor.c,$(call src_in,$(UNPACKER_DIRS))) \
                common/fault.c

obj = $(patsubst %.c,$(B)/obj/%.o,$(1))

LIB_OBJ      = $(call obj,$(COMMON_SRC) $(MANIFESTS_SRC) $(VERIFY_SRC)) $(B)/obj/compat_data.o
BUNDLER_OBJ  = $(LIB_OBJ) $(call obj,$(SIGN_SRC) $(BUNDLER_SRC))
UNPACKER_OBJ = $(LIB_OBJ) $(call obj,$(UNPACKER_SRC)) $(B)/obj/trusted_keys.o

UNIT_TESTS = $(patsubst tests/unit/%.c,$(B)/tests/%,$(wildcard tests/unit/test_*.c))

.PHONY: all man deps test sanitize bench install clean demo help lint fuzz fuzz-build security-doc check-arm

FUZZ_TARGETS  = frame manifest pathrule redist unpack probe_report
FUZZ_TARGETS += pefile
FUZZ_SECONDS ?= 60
.DEFAULT_GOAL := all

## all: build bundler and unpacker (never installs anything: a missing package stops it with
##      one line that says to run `make deps`)
all: $(B)/.deps $(B)/bundler $(B)/unpacker $(B)/linux-sbsa/unpacker
	@sh tools/trusted-keys.sh show $(B)/trusted-keys
	@echo "built $(B)/bundler, $(B)/unpacker and $(B)/linux-sbsa/unpacker$(if $(Q), (V=1 shows the commands))"

## trusted-keys: say which keys the unpackers of $(B) trust (fingerprints) and the thresholds,
##               after applying a TRUSTED_KEYS=, TRUSTED_THRESHOLD= or
##               TRUSTED_STATEMENT_THRESHOLD= given (kept for later builds); every build ends with this
.PHONY: trusted-keys
trusted-keys: $(B)/trusted_keys.c
	@sh tools/trusted-keys.sh show $(B)/trusted-keys

## deps: install exactly the Debian packages the project needs (apt-get, as root)
deps:
	@missing=$$(sh tools/packages.sh missing $(DEB_PACKAGES)); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		case " $$missing " in *:arm64*) dpkg --print-foreign-architectures | grep -qx arm64 || \
			$$SUDO dpkg --add-architecture arm64 ;; esac; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	fi

# Checked, not installed: $(B)/.deps says the build's packages are there (and the pinned
# libraries built), $(B)/.deps-all that everything the tests and tools use is there too.
$(B)/.deps: Makefile tools/packages.sh $(DEPS)/.complete
	@sh tools/packages.sh check $(BUILD_PACKAGES)
	@mkdir -p $(B) && touch $@
$(B)/.deps-all: Makefile tools/packages.sh | $(B)/.deps
	@sh tools/packages.sh check $(DEB_PACKAGES)
	@touch $@

# The static libraries: built once per target and version set (about 2 minutes for
# linux-x86_64 and 3 for linux-sbsa on 2 cores), then reused from the cache.
$(DEPS)/.complete:
	@sh tools/packages.sh check $(BUILD_PACKAGES)
	sh tools/deps.sh linux-x86_64
$(DEPS_SBSA)/.complete:
	@sh tools/packages.sh check $(BUILD_PACKAGES)
	sh tools/deps.sh linux-sbsa

# compile_rules DIR,CC,FLAGS,LABEL,PREREQS: how one toolchain compiles, written once; each
# toolchain (native, sbsa, windows) is one $(eval $(call compile_rules,...)) line beside its
# settings, so a new one is one more line. Its objects:
#   DIR/obj/X.o        from X.c, with the warnings and a .d file (a header change rebuilds it);
#   DIR/obj/X.o        from $(B)/X.c, the generated sources (compat_data.c, trusted_keys.c):
#                      no warnings (they are awk's and the key embedder's output) and no .d;
#   DIR/obj-seams/X.o  from X.c with the test seams compiled in (-DCUFERRY_TEST_SEAMS): only
#                      the tests' programs link these, the shipped ones never do.
# DIR/flags holds the command line: a change (the glibc floor, another CC, CI's -Werror)
# rebuilds the objects, which timestamps alone would not. PREREQS: what every object waits
# for besides (the toolchain's pinned libraries; "| $(B)/.deps" where the package check goes
# first); it comes last, so that it may hold an order-only part.
define compile_rules
$(1)/flags: FORCE
	@mkdir -p $$(dir $$@)
	@echo '$(2) $(3) $$(WARN)' > $$@.tmp
	@cmp -s $$@.tmp $$@ 2>/dev/null && rm -f $$@.tmp || mv $$@.tmp $$@
$(1)/obj/%.o: %.c $(1)/flags $(5)
	@mkdir -p $$(dir $$@)
	$$(Q)$$(call say,$(4),$$<)$(2) $(3) $$(WARN) $$(DEPFLAGS) -c $$< -o $$@
$(1)/obj/%.o: $(B)/%.c $(1)/flags $(5)
	@mkdir -p $$(dir $$@)
	$$(Q)$$(call say,$(4),$$<)$(2) $(3) -c $$< -o $$@
$(1)/obj-seams/%.o: %.c $(1)/flags $(5)
	@mkdir -p $$(dir $$@)
	$$(Q)$$(call say,$(4),$$< (seams))$(2) $(3) -DCUFERRY_TEST_SEAMS $$(WARN) $$(DEPFLAGS) -c $$< -o $$@
# --version's commit (common/version.c includes it when it is there)
$(1)/obj/common/version.o: $(B)/commit.h
-include $$(shell find $(1)/obj $(1)/obj-seams -name '*.d' 2>/dev/null)
endef

$(eval $(call compile_rules,$(B),$$(CC),$$(CPPFLAGS) $$(CFLAGS),CC,$(DEPS)/.complete | $(B)/.deps))

# The compatibility data travels inside the programs as one C string: the CUDA toolkit's rows
# (compat.tsv), then each product's (compat_<product>.tsv, the descriptor's compat_kind), each
# file's header line but the first left out.
COMPAT_TSV = manifests/compat.tsv $(sort $(wildcard manifests/compat_*.tsv))
$(B)/compat_data.c: $(COMPAT_TSV)
	@mkdir -p $(B)
	$(Q)$(call say,GEN,$@)awk 'BEGIN { print "/* generated from $(COMPAT_TSV) */"; print "const char compat_tsv[] =" } \
	     FNR == 1 && NR > 1 { next } \
	     { gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); print "\"" $$0 "\\n\"" } END { print ";" }' $(COMPAT_TSV) > $@

# Trusted keys compiled in: the kept PEM files turned into a C table (empty when none).
$(B)/trusted_keys.c: FORCE
	@mkdir -p $(B)
	@sh tools/trusted-keys.sh save $(B)/trusted-keys $(TRUSTED_KEYS_GIVEN) "$(TRUSTED_KEYS)" \
		$(TRUSTED_THRESHOLD_GIVEN) "$(TRUSTED_THRESHOLD)" \
		$(TRUSTED_STATEMENT_THRESHOLD_GIVEN) "$(TRUSTED_STATEMENT_THRESHOLD)"
	@sh tests/tools/embed-keys.sh "$$(sh tools/trusted-keys.sh files $(B)/trusted-keys)" \
		"$$(sh tools/trusted-keys.sh threshold $(B)/trusted-keys)" \
		"$$(sh tools/trusted-keys.sh statement-threshold $(B)/trusted-keys)" > $@.tmp
	@cmp -s $@.tmp $@ 2>/dev/null && rm -f $@.tmp || mv $@.tmp $@

FORCE:

# The git commit `--version` prints, rewritten only when it changes.
$(B)/commit.h: FORCE
	@mkdir -p $(B)
	@c=$$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown); \
	 git diff --quiet HEAD 2>/dev/null || c="$$c-dirty"; \
	 echo "#define CUFERRY_COMMIT \"$$c\"" > $@.tmp
	@cmp -s $@.tmp $@ 2>/dev/null && rm -f $@.tmp || mv $@.tmp $@

$(B)/bundler: $(BUNDLER_OBJ)
	$(Q)$(call say,LINK,$@)$(CC) $(LDFLAGS) $^ -o $@ $(BUNDLER_LIBS)

$(B)/unpacker: $(UNPACKER_OBJ) $(B)/obj/unpacker/cli/main.o $(UNPACKER_FLOOR_OBJ) $(UNPACKER_SAN_OBJ)
	$(Q)$(call say,LINK,$@)$(CC) $(LDFLAGS) $^ -o $@ $(UNPACKER_LIBS)

# The tests' unpacker: the same objects, but common/fault.c with its test seams (CUFERRY_FAULT).
# build/unpacker, the one shipped, has none.

$(B)/test-bin/unpacker: $(filter-out $(B)/obj/common/fault.o,$(UNPACKER_OBJ)) $(B)/obj-seams/common/fault.o $(B)/obj/unpacker/cli/main.o $(UNPACKER_FLOOR_OBJ) $(UNPACKER_SAN_OBJ)
	@mkdir -p $(dir $@)
	$(Q)$(call say,LINK,$@)$(CC) $(LDFLAGS) $^ -o $@ $(UNPACKER_LIBS)

# The read-back tests flip a byte between write and verify (kit.c: the kit's files, output.c:
# the bundle before create's self-check), pack.c fails zstd: a bundler with the test seams
# compiled in, for the tests only ($(B)/bundler never has them).
BUNDLER_SEAM_OBJ = $(patsubst %,$(B)/obj-seams/bundler/%.o,kit output pack fetch)

$(B)/bundler-test-seams: $(filter-out $(patsubst $(B)/obj-seams/%,$(B)/obj/%,$(BUNDLER_SEAM_OBJ)),$(BUNDLER_OBJ)) $(BUNDLER_SEAM_OBJ)
	$(Q)$(call say,LINK,$@)$(CC) $(LDFLAGS) $^ -o $@ $(BUNDLER_LIBS)

## aarch64: the linux-sbsa unpacker, build/linux-sbsa/unpacker: cross-built (gcc-aarch64-linux-gnu)
##          with the same glibc floor, against the aarch64 libraries of tools/deps.sh
SBSA_CC  ?= aarch64-linux-gnu-gcc
SBSA      = $(B)/linux-sbsa
SBSA_OBJ  = $(patsubst %.c,$(SBSA)/obj/%.o,$(COMMON_SRC) $(MANIFESTS_SRC) $(VERIFY_SRC) \
            $(UNPACKER_SRC) unpacker/cli/main.c unpacker/target/glibcfloor.c) \
            $(SBSA)/obj/compat_data.o $(SBSA)/obj/trusted_keys.o
SBSA_CFLAGS = -std=c11 -D_GNU_SOURCE -I. -I$(B) -I$(DEPS_SBSA)/include $(OPT) -g \
            -include $(DEPS_SBSA)/include/cuferry-glibc-floor.h -DCUFERRY_GLIBC_FLOOR \
            -ffunction-sections -fdata-sections
SBSA_LIBS = $(addprefix $(DEPS_SBSA)/lib/,libarchive.a libzstd.a libmbedcrypto-verify.a libjansson.a) \
            -Wl,--gc-sections -Wl,--no-as-needed -l:libdl.so.2 -l:libpthread.so.0 -Wl,--as-needed
.PHONY: aarch64
aarch64: $(SBSA)/unpacker

$(eval $(call compile_rules,$(SBSA),$$(SBSA_CC),$$(SBSA_CFLAGS),CC-ARM,$(DEPS_SBSA)/.complete | $(B)/.deps))

$(SBSA)/unpacker: $(SBSA_OBJ)
	$(Q)$(call say,LINK,$@)$(SBSA_CC) $^ -o $@ $(SBSA_LIBS)

# Unit tests: one cmocka binary per module, linked with only the module it tests and what
# that module needs, derived from the #includes: tests/unit/test_X.c links the .c files its
# includes reach (tools/include-graph.py --objects: a header brings its own .c, and
# common/platform.h the POSIX platform layer), the generated compatibility table where
# manifests/compat.c is among them, and $(TEST_LIBS_test_X) besides the shared libraries, of
# which it keeps only those it uses (--as-needed). Neither program's main, nor libcurl unless
# the module downloads; a new test needs no line here.
unit_src = $(shell python3 tools/include-graph.py --objects $(1) $(PLATFORM_SRC))
unit_obj = $(call obj,$(1)) $(if $(filter manifests/compat.c,$(1)),$(B)/obj/compat_data.o)
# The kit builds bundles itself: bundler/fetch.c with it, and libcurl.
TEST_LIBS_test_kit     = -lcurl
# The reader's opens go through the test's own platform_open, which swaps the name first.
TEST_LIBS_test_reader  = -Wl,--wrap=platform_open
# The fixed data the unit tests read (tests/data/), by absolute path: a test runs from any
# directory.
TEST_DATA_FLAGS = -DCUFERRY_TEST_DATA='"$(CURDIR)/tests/data/"'
.SECONDEXPANSION:
$(B)/tests/test_%: tests/unit/test_%.c $$(call unit_obj,$$(call unit_src,tests/unit/test_$$*.c))
	@mkdir -p $(dir $@)
	$(Q)$(call say,LINK,$@)$(CC) $(CPPFLAGS) $(TEST_DATA_FLAGS) $(CFLAGS) $(WARN) $(LDFLAGS) $^ -o $@ -Wl,--as-needed $(TEST_LIBS) $(TEST_LIBS_test_$*)

## windows-unit: the Windows pieces cross-built with mingw-w64 (portable modules' unit tests,
##               the Windows platform test, the fake NVIDIA DLLs) and run under Wine
WIN        = $(B)/windows
WIN_CC    ?= x86_64-w64-mingw32-gcc
DEPS_WIN  := $(shell sh tools/deps.sh --dir windows-x86_64)
WIN_FLAGS  = -std=c11 -I. -I$(DEPS_WIN)/include -O2 -g -D_WIN32_WINNT=0x0601 -DUNICODE -D_UNICODE
WIN_LIBS   = -static $(DEPS_WIN)/lib/libcmocka.a -lpsapi -ladvapi32 -luser32
# The Windows side of common/platform.h, in place of common/platform_posix*.c and platform_linux*.c.
WIN_PLATFORM = $(sort $(wildcard common/platform_win*.c)) common/platform_dir.c
WIN_PLATFORM_H = common/platform.h common/platform_win.h common/platform_win_internal.h
# Portable tests run twice: natively (UNIT_TESTS) and as .exe under Wine, with what they test.
WIN_UNIT   = $(WIN)/tests/test_winpath.exe $(WIN)/tests/test_pefile.exe $(WIN)/tests/test_platform_win.exe \
             $(WIN)/tests/test_platform_win_env.exe $(WIN)/tests/test_platform_win_child.exe \
             $(WIN)/tests/test_platforms.exe
WIN_FAKES  = $(addprefix $(WIN)/fakes/,nvcuda.dll cudnn_graph64_9.dll cudnn64_9.dll \
             cudnn_ops_infer64_8.dll cudnn64_8.dll wrong/cudnn64_9.dll stale/cudnn64_8.dll \
             zlib/zlibwapi.dll zlib/cudnn64_8.dll) $(WIN)/fakes/loadfakes.exe
# fake drivers for unpacker.exe install DIR (test_windows_choose): nvcuda.dll with the version
# resource of a 531.79 driver (CUDA 12) and of a 472.50 one (CUDA 11 at most)
WIN_FAKES += $(WIN)/fakes/driver531/nvcuda.dll $(WIN)/fakes/driver472/nvcuda.dll
.PHONY: windows-unit windows-fakes
windows-fakes: $(WIN_FAKES)
windows-unit: $(WIN_UNIT) $(WIN_FAKES)
	@CUFERRY_BUILD=$(abspath $(B)) CUFERRY_TOP=$(CURDIR) CUFERRY_FIXTURES=$(abspath $(B))/test-fixtures \
		sh tests/e2e/test_windows_unit.sh

$(DEPS_WIN)/.complete:
	@sh tools/packages.sh check $(BUILD_PACKAGES)
	sh tools/deps.sh windows-x86_64

# A Windows test (tests/unit/X.c, run twice, or tests/windows/X.c) links what its #includes
# reach, with the Windows platform layer (tools/include-graph.py --objects).
win_test_src = $(firstword $(wildcard tests/unit/$(1).c tests/windows/$(1).c))
win_unit_src = $(shell python3 tools/include-graph.py --objects $(1) $(WIN_PLATFORM))
$(WIN)/tests/%.exe: $$(call win_test_src,$$*) $$(call win_unit_src,$$(call win_test_src,$$*)) \
		$(WIN_PLATFORM_H) $(DEPS_WIN)/.complete
	@mkdir -p $(dir $@)
	$(Q)$(call say,CC-WIN,$@)$(WIN_CC) $(WIN_FLAGS) $(WARN) $(filter %.c,$^) -o $@ $(WIN_LIBS)

## windows: build/windows/unpacker.exe, one static PE (mingw-w64) from the unpacker's sources
##          with common/platform_win*.c in place of common/platform_{posix,linux}*.c; it imports only
##          Windows' KnownDLLs (tools/windows-known-dlls.txt; objdump -p checks both builds).
WIN_UNPACKER_SRC = $(filter-out common/platform_posix%.c common/platform_linux%.c,$(COMMON_SRC) $(MANIFESTS_SRC) $(VERIFY_SRC) \
                   $(UNPACKER_SRC)) unpacker/cli/main.c $(WIN_PLATFORM)
WIN_UNPACKER_OBJ = $(patsubst %.c,$(WIN)/obj/%.o,$(WIN_UNPACKER_SRC)) $(WIN)/obj/compat_data.o \
                   $(WIN)/obj/trusted_keys.o
# libarchive's headers declare its functions dllimport unless told the library is static;
# printf is mingw's C99 one (%zu); `retain` (on the .run stub marker) means nothing in a PE.
WIN_CPPFLAGS = -I$(B) -DLIBARCHIVE_STATIC -D_GNU_SOURCE -D__USE_MINGW_ANSI_STDIO=1 -Wno-attributes
# Windows' KnownDLLs only (tools/windows-known-dlls.txt): the C runtime (msvcrt), KERNEL32,
# ADVAPI32 (registry, tokens, ACLs), PSAPI (EnumProcessModules); winpthreads (the bundle
# reader's threads) links in statically. version.dll (a DLL's version resource) is not a
# KnownDLL, and USER32 (WM_SETTINGCHANGE) imports more on Wine: both are loaded from System32
# at run time (common/platform_win_sysdll.c). None of them, nor bcrypt.dll, is linked, so that
# a new use fails here instead of importing it.
WIN_UNPACKER_LIBS = -static $(addprefix $(DEPS_WIN)/lib/,libarchive.a libzstd.a libmbedcrypto-verify.a \
                    libjansson.a) -lpthread -lpsapi -ladvapi32
# The DLLs unpacker.exe may import, in one place: any other is looked for beside the program.
WIN_KNOWN_DLLS = $(shell grep -v '^\#' tools/windows-known-dlls.txt)
# win_check_imports: the PE just linked ($@) imports KnownDLLs only (objdump -p); else removed.
define win_check_imports
	@bad=$$(x86_64-w64-mingw32-objdump -p $@ | sed -n 's/^\tDLL Name: //p' | \
		grep -v -i -x $(foreach d,$(WIN_KNOWN_DLLS),-e '$(d)')); \
	if [ -n "$$bad" ]; then echo "windows: $@ imports DLLs that are not KnownDLLs" \
		"(tools/windows-known-dlls.txt), looked for beside the program: $$bad"; rm -f $@; exit 1; fi
endef

.PHONY: windows
windows: $(WIN)/unpacker.exe
	@sh tools/trusted-keys.sh show $(B)/trusted-keys
	@echo "built $(WIN)/unpacker.exe"
$(WIN)/unpacker.exe: $(WIN_UNPACKER_OBJ) tools/windows-known-dlls.txt
	$(Q)$(call say,LINK,$@)$(WIN_CC) $(filter %.o,$^) -o $@ $(WIN_UNPACKER_LIBS)
	$(win_check_imports)
$(eval $(call compile_rules,$(WIN),$$(WIN_CC),$$(WIN_FLAGS) $$(WIN_CPPFLAGS),CC-WIN,$(DEPS_WIN)/.complete))

# The tests' unpacker.exe, as $(B)/test-bin/unpacker: common/fault.c with its test seams
# (CUFERRY_FAULT=env fails an install after the registry was written; no-acl lets Wine, which
# reads every file as the user's, install as an Administrator). The shipped one has none.
$(WIN)/test-bin/unpacker.exe: $(filter-out $(WIN)/obj/common/fault.o,$(WIN_UNPACKER_OBJ)) \
		$(WIN)/obj-seams/common/fault.o tools/windows-known-dlls.txt
	@mkdir -p $(dir $@)
	$(Q)$(call say,LINK,$@)$(WIN_CC) $(filter %.o,$^) -o $@ $(WIN_UNPACKER_LIBS)
	$(win_check_imports)

# The fakes of tests/tools as Windows DLLs, named as NVIDIA names them: cuDNN 9 with its graph
# sub-library, cuDNN 8 with ops_infer, a wrong cuDNN 9 and an older cuDNN 8 (the stale copy a
# System32 or an earlier PATH entry holds).
FAKE_WIN = $(WIN_CC) -std=c11 -I. -O1 -shared
WIN_WINDRES ?= x86_64-w64-mingw32-windres
comma := ,
# fake_cudnn VERSION DEFINES IMPORTLIB: a fake cuDNN DLL with NVIDIA's kind of version resource
fake_cudnn = $(WIN_WINDRES) -DFAKE_V=$(subst .,$(comma),$(1)) '-DFAKE_VS=\"$(1)\"' \
	tests/tools/fakeversion.rc -O coff -o $@.res.o && \
	$(FAKE_WIN) $(2) -o $@ tests/tools/fakecudnn.c unpacker/validate/convref.c $@.res.o $(3) && rm -f $@.res.o
FAKE_CUDNN_SRC = tests/tools/fakecudnn.c tests/tools/fakeconf.h unpacker/validate/convref.c tests/tools/fakeversion.rc
# nvcuda.dll with a driver's version resource: 32.0.15.8180 is driver 581.80.
$(WIN)/fakes/nvcuda.dll: tests/tools/fakecuda.c tests/tools/fakeconf.h tests/tools/fakeversion.rc
	$(call fake_nvcuda,32.0.15.8180)
$(WIN)/fakes/cudnn_graph64_9.dll $(WIN)/fakes/cudnn_ops_infer64_8.dll: tests/tools/fakegraph.c
	@mkdir -p $(dir $@)
	$(Q)$(call say,CC-WIN,$@)$(FAKE_WIN) -o $@ $< -Wl,--out-implib,$@.a
$(WIN)/fakes/cudnn64_9.dll: $(FAKE_CUDNN_SRC) $(WIN)/fakes/cudnn_graph64_9.dll
	$(call fake_cudnn,9.19.0.56,,$(WIN)/fakes/cudnn_graph64_9.dll.a)
$(WIN)/fakes/wrong/cudnn64_9.dll: $(FAKE_CUDNN_SRC) $(WIN)/fakes/cudnn_graph64_9.dll
	@mkdir -p $(dir $@)
	$(call fake_cudnn,9.19.0.56,-DFAKE_WRONG,$(WIN)/fakes/cudnn_graph64_9.dll.a)
$(WIN)/fakes/cudnn64_8.dll: $(FAKE_CUDNN_SRC) $(WIN)/fakes/cudnn_ops_infer64_8.dll
	$(call fake_cudnn,8.9.7.29,-DFAKE_VERSION=8907 -DFAKE_CUDART=12000,$(WIN)/fakes/cudnn_ops_infer64_8.dll.a)
$(WIN)/fakes/stale/cudnn64_8.dll: $(FAKE_CUDNN_SRC) $(WIN)/fakes/cudnn_ops_infer64_8.dll
	@mkdir -p $(dir $@)
	$(call fake_cudnn,8.2.2.26,-DFAKE_VERSION=8202 -DFAKE_CUDART=12000,$(WIN)/fakes/cudnn_ops_infer64_8.dll.a)
# cuDNN 8 importing zlibwapi.dll, as NVIDIA's Windows builds of 8.x do, and that tiny DLL.
$(WIN)/fakes/zlib/zlibwapi.dll: tests/tools/fakezlib.c
	@mkdir -p $(dir $@)
	$(Q)$(call say,CC-WIN,$@)$(FAKE_WIN) -o $@ $< -Wl,--out-implib,$@.a
$(WIN)/fakes/zlib/cudnn64_8.dll: $(FAKE_CUDNN_SRC) $(WIN)/fakes/cudnn_ops_infer64_8.dll $(WIN)/fakes/zlib/zlibwapi.dll
	$(call fake_cudnn,8.9.7.29,-DFAKE_VERSION=8907 -DFAKE_CUDART=12000 -DFAKE_ZLIB,$(WIN)/fakes/cudnn_ops_infer64_8.dll.a $(WIN)/fakes/zlib/zlibwapi.dll.a)
# fake_nvcuda FILEVERSION: the fake driver DLL with that version resource (Windows' driver
# numbering: 31.0.15.3179 is driver 531.79)
fake_nvcuda = @mkdir -p $(dir $@) && $(WIN_WINDRES) -DFAKE_V=$(subst .,$(comma),$(1)) '-DFAKE_VS=\"$(1)\"' \
	tests/tools/fakeversion.rc -O coff -o $@.res.o && $(FAKE_WIN) -o $@ $< $@.res.o && rm -f $@.res.o
$(WIN)/fakes/driver472/nvcuda.dll: tests/tools/fakecuda.c tests/tools/fakeconf.h tests/tools/fakeversion.rc
	$(call fake_nvcuda,30.0.14.7250)
$(WIN)/fakes/driver531/nvcuda.dll: tests/tools/fakecuda.c tests/tools/fakeconf.h tests/tools/fakeversion.rc
	$(call fake_nvcuda,31.0.15.3179)
$(WIN)/fakes/loadfakes.exe: tests/windows/loadfakes.c $(DEPS_WIN)/.complete
	@mkdir -p $(dir $@)
	$(Q)$(call say,CC-WIN,$@)$(WIN_CC) $(WIN_FLAGS) $(WARN) $< -o $@ -static

## man: the manual pages bundler(1) and unpacker(1), from docs/man/*.scd (scdoc)
MAN_PAGES = $(B)/man/bundler.1 $(B)/man/unpacker.1
man: $(MAN_PAGES)
$(B)/man/%.1: docs/man/%.1.scd | $(B)/.deps-all
	@mkdir -p $(dir $@)
	$(Q)$(call say,SCDOC,$@)scdoc < $< > $@

## test: unit tests (cmocka), end-to-end tests on the real cuDNN of this machine, threat
##       tests, and a short run of each fuzz target; T=PATTERN runs only the tests it names
##       (make test T=test_trust, T='test_windows_*'), without the fuzz run
T ?=
test: $(B)/.deps-all all man $(UNIT_TESTS) $(B)/sha256_check-arm64 $(B)/test-bin/unpacker $(B)/bundler-test-seams \
      $(WIN_UNIT) $(WIN_FAKES) $(WIN)/unpacker.exe $(WIN)/test-bin/unpacker.exe
	@[ -n "$(T)" ] || $(MAKE) --no-print-directory B=build-fuzz FUZZ=1 OPT=-O1 fuzz-build
	@sh tests/run.sh $(B) $(T)

# libFuzzer targets: the library objects built with fuzzer-no-link, the harness with fuzzer.
$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(LIB_OBJ) $(call obj,$(SIGN_SRC) $(UNPACKER_SRC)) $(B)/obj/trusted_keys.o
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fsanitize=fuzzer $(LDFLAGS) $^ -o $@ -larchive -lzstd $(DEPS)/lib/libmbedcrypto.a -ljansson -lpthread -ldl

fuzz-build: $(patsubst %,$(B)/fuzz/fuzz_%,$(FUZZ_TARGETS))

## fuzz: build the libFuzzer targets and run each for FUZZ_SECONDS (default 60); the record
##       of every run goes to build-fuzz/fuzz-record.tsv
fuzz:
	@$(MAKE) --no-print-directory B=build-fuzz FUZZ=1 OPT=-O1 fuzz-build
	@sh tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS)

# The ARMv8 SHA-256 path, cross-built (static) and run under qemu-user by tests/run.sh and
# make check-arm; it links the aarch64 mbedTLS 3.6 of tools/deps.sh for the fallback it checks.
ARM_CC ?= aarch64-linux-gnu-gcc
$(B)/sha256_check-arm64: tests/tools/sha256_check.c common/sha256.c common/sha256.h common/platform_posix_fs.c $(DEPS_SBSA)/.complete | $(B)/.deps
	$(ARM_CC) -std=c11 -D_GNU_SOURCE -O2 -static -I. -I$(DEPS_SBSA)/include tests/tools/sha256_check.c \
		common/sha256.c common/platform_posix_fs.c -o $@ $(DEPS_SBSA)/lib/libmbedcrypto.a

## check-arm: the ARMv8 SHA-256 path and its fallback, under qemu-user on three CPU models
check-arm: $(B)/sha256_check-arm64
	@for cpu in max cortex-a57 cortex-a53; do qemu-aarch64 -cpu $$cpu $< | sed "s/^/arm64 $$cpu: /" || exit 1; done

## sanitize: the whole test suite built with ASan and UBSan
sanitize:
	@$(MAKE) --no-print-directory B=build-san SAN=1 OPT=-O1 test

## demo: the main job end to end: deps (installs the Debian packages, as root), build,
##       bundle this machine's cuDNN, install it into a sandbox root, show the result
demo:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory all
	@sh tests/tools/demo.sh $(B)

## bench: speed and size against tar/xz/zstd baselines on the real cuDNN payload; parallel vs
##        one-thread decode and install peak RSS at 1 and 64 MiB chunks (BENCH_ONLY=decode: those alone)
bench: all $(B)/sha256_speed $(B)/test-bin/unpacker $(B)/bundler-test-seams
	@python3 tests/tools/bench.py $(B)

$(B)/sha256_speed: tests/tools/sha256_speed.c $(B)/obj/common/sha256.o $(B)/obj/common/platform_posix_fs.o
	$(CC) $(CPPFLAGS) $(CFLAGS) $^ -o $@ $(DEPS)/lib/libmbedcrypto.a

## check-portable: every unpacker-side source but common/platform_{posix,linux}*.c compiles for Windows
##       (mingw-w64 -fsyntax-only, the Windows dependency headers of tools/deps.sh): no OS call
##       outside common/platform.h.
# Unpacker side: what the unpacker links (bundler/ and signing/sign.c are connected-host only),
# the subfolders too, and the generated sources. unpacker/target/glibcfloor.c is Linux build glue
# (the glibc 2.17 floor) but compiles to nothing elsewhere, so it is checked like the rest.
PORTABLE_SRC = $(filter-out common/platform_posix%.c common/platform_linux%.c,$(sort $(wildcard common/*.c common/*/*.c \
               manifests/*.c unpacker/*.c unpacker/*/*.c))) signing/verify.c \
               $(B)/compat_data.c $(B)/trusted_keys.c
PORTABLE_CC    ?= x86_64-w64-mingw32-gcc
# An implicit declaration is a function Windows does not have: an error here, not a warning.
# -Wno-attributes: `retain` (ELF's SHF_GNU_RETAIN, on the .run stub marker) means nothing in a
# PE, where `used` beside it keeps the marker.
PORTABLE_FLAGS  = -std=c11 -D_GNU_SOURCE -fsyntax-only -Werror=implicit-function-declaration \
                  -Werror=int-conversion -Wno-attributes -I. -I$(B)
.PHONY: check-portable
check-portable: $(B)/commit.h $(B)/compat_data.c $(B)/trusted_keys.c
	@deps=$$(sh tools/deps.sh --dir windows-x86_64); \
	[ -f "$$deps/.complete" ] || sh tools/deps.sh windows-x86_64 || exit 1; \
	fail=0; n=0; for f in $(PORTABLE_SRC); do n=$$((n + 1)); \
		$(PORTABLE_CC) $(PORTABLE_FLAGS) -I$$deps/include $$f || { echo "check-portable: $$f does not compile for Windows"; fail=1; }; done; \
	if [ $$fail = 0 ]; then echo "check-portable: $$n files compile for Windows"; else exit 1; fi

## lint: check-portable and check-includes, then static analysis: gcc -fanalyzer on every source, then cppcheck;
##       any finding fails. Warnings that are kept are suppressed in place, with the reason
##       beside them.
LINT_SRC = $(COMMON_SRC) $(MANIFESTS_SRC) $(VERIFY_SRC) $(SIGN_SRC) $(BUNDLER_SRC) $(UNPACKER_SRC) unpacker/cli/main.c
lint: $(B)/.deps-all check-portable check-includes
	@fail=0; for f in $(LINT_SRC); do \
		out=$$(gcc $(CPPFLAGS) -O1 -fanalyzer -c $$f -o /dev/null 2>&1); \
		if [ -n "$$out" ]; then echo "$$out"; fail=1; fi; done; \
	cppcheck --quiet --std=c11 -I. --enable=warning,portability,performance --inline-suppr \
		--error-exitcode=1 -D_GNU_SOURCE -D__x86_64__ common manifests signing bundler unpacker || fail=1; \
	if [ $$fail = 0 ]; then echo "lint: clean (gcc -fanalyzer on $(words $(LINT_SRC)) files, cppcheck)"; else exit 1; fi

## check-includes: the tree's two structural rules, from its #includes (tools/include-graph.py):
##       every .c and .h lies in a layer and includes only from its own or a lower one (the
##       order is its LAYERS table; docs/ARCHITECTURE.md), and no include cycle between
##       modules (x.c with x.h is one); known ones are allow-listed there
.PHONY: check-includes
check-includes:
	@python3 tools/include-graph.py

## security-doc: write docs/SECURITY.md from the last threat, fuzz and lint runs
security-doc:
	@python3 tests/threats/security_md.py $(B) build-fuzz > docs/SECURITY.md.tmp && mv docs/SECURITY.md.tmp docs/SECURITY.md
	@echo "wrote docs/SECURITY.md"

PREFIX ?= /usr/local
## install: copy bundler and unpacker to $(PREFIX)/bin, the aarch64 unpacker to
##          $(PREFIX)/lib/cuferry/linux-sbsa/unpacker, the man pages and bash completion
install: all man
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 0755 $(B)/bundler $(B)/unpacker $(DESTDIR)$(PREFIX)/bin/
	install -d $(DESTDIR)$(PREFIX)/lib/cuferry/linux-sbsa
	install -m 0755 $(B)/linux-sbsa/unpacker $(DESTDIR)$(PREFIX)/lib/cuferry/linux-sbsa/
	install -m 0644 $(MAN_PAGES) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 docs/completion/cuferry.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/bundler
	install -m 0644 docs/completion/cuferry.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/unpacker

## clean: remove build outputs, and with them the build's configuration (the flags, the
##        trusted keys kept from TRUSTED_KEYS, TRUSTED_THRESHOLD and TRUSTED_STATEMENT_THRESHOLD)
clean:
	rm -rf build build-san build-fuzz

## help: this list
help:
	@grep -A 1 '^## ' Makefile | sed -n 's/^## //p'
