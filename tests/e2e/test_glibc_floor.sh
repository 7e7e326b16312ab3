#!/bin/sh
# The release unpackers (x86_64 and aarch64) against DESIGN §1: no glibc symbol version above
# GLIBC_2.17, only the C library's own parts as shared libraries, and no signing, key-writing,
# TLS or random-generator code linked in. A control binary built without the floor must be
# caught, so the check itself can fail.
. "$CUFERRY_TOP/tests/e2e/lib.sh"
skip_if_sanitizer "the sanitizer build has no glibc floor (make test checks the release unpackers)"
FLOOR=2.17
SBSA=$B/linux-sbsa/unpacker
[ -x "$SBSA" ] || fail "$SBSA missing (make builds it)"

# newest_glibc BINARY: the highest GLIBC_x.y[.z] version the binary asks for
newest_glibc() {
	readelf -W --dyn-syms --version-info "$1" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' |
		sort -t. -k1,1n -k2,2n -k3,3n | tail -1
}
# above_floor BINARY: every symbol whose version is newer than the floor, one per line
above_floor() {
	readelf -W --dyn-syms "$1" | awk -v floor="$FLOOR" '
		function key(v,  a, n) { n = split(v, a, "."); return a[1] * 1000000 + a[2] * 1000 + (n > 2 ? a[3] : 0) }
		match($0, /@GLIBC_[0-9][0-9.]*/) {
			v = substr($0, RSTART + 7, RLENGTH - 7)
			if (key(v) > key(floor)) print $NF
		}'
}

note "control: a program built without the floor asks for GLIBC_2.33 (stat) and is caught"
printf '#include <sys/stat.h>\nint main(int c, char **v) { struct stat s; return stat(v[0], &s); }\n' > ctl.c
cc -O2 ctl.c -o ctl
[ -n "$(above_floor ctl)" ] || fail "the check does not see the control's GLIBC_2.33 stat"

for bin in "$UNPACKER" "$SBSA"; do
	note "$bin: newest GLIBC version $(newest_glibc "$bin")"
	bad=$(above_floor "$bin")
	[ -z "$bad" ] || fail "$bin needs glibc symbols above $FLOOR: $(echo $bad)"
	[ -n "$(newest_glibc "$bin")" ] || fail "$bin: no GLIBC version at all (not dynamically linked to glibc?)"
	needed=$(readelf -d "$bin" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | LC_ALL=C sort | tr '\n' ' ')
	[ "$needed" = "libc.so.6 libdl.so.2 libpthread.so.0 " ] ||
		fail "$bin: shared libraries other than the C library's: $needed"
	note "$bin: no signing, key-writing, TLS or RNG code (nm)"
	nm "$bin" > syms || fail "nm $bin"
	grep -q ' mbedtls_ecdsa_verify$' syms || fail "$bin: nm shows no mbedtls_ecdsa_verify (stripped?)"
	forbidden=$(grep -E ' (mbedtls_ecdsa_sign|mbedtls_ecdsa_write_signature|mbedtls_ecdsa_genkey|mbedtls_ecp_gen_key|mbedtls_pk_write|mbedtls_pk_sign|mbedtls_ssl_|mbedtls_x509|mbedtls_ctr_drbg|mbedtls_hmac_drbg|mbedtls_entropy|psa_sign|psa_generate|psa_export_key)' syms || true)
	[ -z "$forbidden" ] || fail "$bin links: $(echo "$forbidden" | awk '{print $NF}' | tr '\n' ' ')"
done

note "the aarch64 binary is aarch64, the x86_64 one x86_64"
readelf -h "$SBSA" | grep -q 'AArch64' || fail "$SBSA is not an AArch64 binary"
readelf -h "$UNPACKER" | grep -q 'X86-64' || fail "$UNPACKER is not an x86-64 binary"
echo "ok"
