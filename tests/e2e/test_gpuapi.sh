#!/bin/sh
# gpuapi.h declares the cuDNN, NCCL, cuSPARSELt and CUDA constants validation passes to the libraries, as the
# unpacker links nothing from CUDA: each must be the number NVIDIA's own headers give it (this
# machine's real cuDNN and CUDA toolkit). A wrong one would send cuDNN a different descriptor
# or attribute than the check means.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
CUDA=$(cat "$FX/cuda_dir")
[ -f "$CUDA/include/cudnn.h" ] || fail "no cudnn.h under $CUDA/include"

# check_source GPUAPI_H: a C program asserting each NAME = VALUE of the header's enums against
# NVIDIA's headers (the CUDA driver's only where cuda.h is there too)
check_source() {
	echo '#include <stdio.h>'
	[ -f "$CUDA/include/cuda.h" ] && echo '#include <cuda.h>'
	[ -f "$CUDA/include/nccl.h" ] && echo '#include <nccl.h>'
	# cuSPARSELt's status, operation, order and data type numbers are cuSPARSE's and CUDA's;
	# its own (cusparseLt.h) are checked only where a copy of that header is there
	if [ -f "$CUDA/include/cusparse.h" ]; then
		echo '#define DISABLE_CUSPARSE_DEPRECATED'
		echo '#include <library_types.h>'
		echo '#include <cusparse.h>'
	fi
	[ -f "$CUDA/include/cusparseLt.h" ] && echo '#include <cusparseLt.h>'
	cat <<'END'
#include <cudnn.h>
#define CHECK(name, value) do { n++; if ((long)(name) != (value)) { bad = 1; \
	printf("%s is %ld in NVIDIA's headers, %ld in gpuapi.h\n", #name, (long)(name), (long)(value)); } } while (0)
int main(void)
{
	int bad = 0, n = 0;
END
	sed -n 's/^[[:space:]]*\(\(CU\|NCCL_\)[A-Z0-9_]*\)[[:space:]]*=[[:space:]]*\([0-9][0-9]*\),.*/\1 \3/p' "$1" |
	while read -r name value; do
		case $name in
		CU_*) [ -f "$CUDA/include/cuda.h" ] || continue ;;
		# libraryPropertyType's MAJOR_VERSION, MINOR_VERSION, PATCH_LEVEL
		CUSPARSELT_PROPERTY_*) [ -f "$CUDA/include/cusparse.h" ] || continue
			case $name in
			*MAJOR) name=MAJOR_VERSION ;; *MINOR) name=MINOR_VERSION ;; *) name=PATCH_LEVEL ;;
			esac ;;
		CUSPARSELT_*|CUSPARSE_COMPUTE_*) [ -f "$CUDA/include/cusparseLt.h" ] || continue ;;
		CUSPARSE_*|CUDA_R_*) [ -f "$CUDA/include/cusparse.h" ] || continue ;;
		# nccl.h's names: NCCL_FLOAT32 is its ncclFloat32
		NCCL_*) [ -f "$CUDA/include/nccl.h" ] || continue
			rest=$(echo "${name#NCCL_}" | tr 'A-Z' 'a-z')
			name=nccl$(echo "$rest" | cut -c1 | tr 'a-z' 'A-Z')$(echo "$rest" | cut -c2-) ;;
		esac
		echo "	CHECK($name, $value);"
	done
	printf '\tprintf("%%d constants checked\\n", n);\n\treturn bad;\n}\n'
}

note "every constant of gpuapi.h is NVIDIA's"
check_source "$TOP/unpacker/validate/gpuapi.h" > check.c
[ "$(grep -c 'CHECK(CUDNN_' check.c)" -ge 40 ] || fail "too few constants found in gpuapi.h"
cc -I"$CUDA/include" -o check check.c || fail "NVIDIA's headers lack a name gpuapi.h uses"
./check > out.txt || { cat out.txt >&2; fail "gpuapi.h differs from NVIDIA's headers"; }
cat out.txt
if [ -f "$CUDA/include/nccl.h" ]; then
	grep -q 'CHECK(ncclFloat32, 7)' check.c || fail "NCCL's constants not checked"
fi
if [ -f "$CUDA/include/cusparse.h" ]; then
	grep -q 'CHECK(CUSPARSE_ORDER_ROW, 2)' check.c && grep -q 'CHECK(PATCH_LEVEL, 2)' check.c ||
		fail "cuSPARSELt's cuSPARSE and CUDA constants not checked"
fi

note "a value changed in a copy of the header is found and named"
sed 's/CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE = 1305,/CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE = 1306,/' \
	"$TOP/unpacker/validate/gpuapi.h" > wrong.h
check_source wrong.h > wrong.c
cc -I"$CUDA/include" -o wrong wrong.c
expect 1 ./wrong
assert_contains "$W/last.out" "CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE is 1305 in NVIDIA's headers, 1306 in gpuapi.h"
echo "ok"
