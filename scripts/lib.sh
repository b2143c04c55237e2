# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
# Shared helpers of the project's scripts: step logging with timing, the
# cache directory, root through sudo, and the supported kernels.

export SRPT_ROOT
SRPT_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Long builds (KUnit's UML kernel, the VM initramfs) live outside the repo.
SRPT_CACHE=${SRPT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/srpt}
mkdir -p "$SRPT_CACHE"

# What runs a command as root: nothing when root already.
# shellcheck disable=SC2034 # for the scripts that source this file
SUDO=$([ "$(id -u)" = 0 ] || echo sudo)

_srpt_t0=$(date +%s)

# step "what is happening": one line per step, with the elapsed time.
step() {
	printf '[%4ds] %s\n' $(( $(date +%s) - _srpt_t0 )) "$*"
}

die() {
	printf 'error: %s\n' "$*" >&2
	exit 1
}

# The last line of every test tier, summed by scripts/check.
tier_result() { # name passed failed
	printf 'TIER-RESULT: %s %d %d\n' "$1" "$2" "$3"
}

# Newest kernel release of a series ("5.10", "6.1", "6.12", "7"):
# installed, or fetched into the cache by scripts/kernels.
kernel_release() {
	local series=$1 k d best=
	for d in /lib/modules/* "$SRPT_CACHE"/kernels/*; do
		k=${d##*/}
		case "$k" in
		"$series".*-amd64) ;;
		*) continue ;;
		esac
		if [ "$d" = "/lib/modules/$k" ]; then
			if [ ! -e "/boot/vmlinuz-$k" ] || [ ! -e "/lib/modules/$k/build/Makefile" ]; then
				continue
			fi
		else
			[ -s "$d/env" ] || continue
		fi
		best=$(printf '%s\n%s\n' "$best" "$k" | sed '/^$/d' | sort -V | tail -n1)
	done
	[ -n "$best" ] || return 1
	printf '%s\n' "$best"
}

# The debug kernel of `make check-debug` (scripts/debug-kernel): defconfig
# plus this fragment, cached under a hash of the fragment's settings
# (comments aside: editing one rebuilds nothing).
SRPT_DEBUG_FRAGMENT=$SRPT_ROOT/tests/debug/kernel.config
debug_kernel_dir() {
	printf '%s/debug-kernel/%s\n' "$SRPT_CACHE" \
		"$(grep -E '^CONFIG_|^# CONFIG_.* is not set$' "$SRPT_DEBUG_FRAGMENT" |
			sha1sum | cut -c1-12)"
}

# The release of the cached debug kernel; fails if it is not built.
debug_kernel_release() {
	local d
	d=$(debug_kernel_dir)
	[ -s "$d/release" ] && [ -s "$d/build/arch/x86/boot/bzImage" ] || return 1
	cat "$d/release"
}

# What DKMS needs to build the module: `make dkms` copies it to
# /usr/src/ib_srpt-<version>, and so does the Debian package (debian/rules
# names the same files).
# shellcheck disable=SC2034 # for the scripts that source this file
SRPT_DKMS_FILES=(Kbuild dkms.conf src include scripts/cxx.kbuild scripts/check-cxx-object)

# The module version, SRPT_VERSION of include/srpt/version.h, which
# dkms.conf's PACKAGE_VERSION must be too (DKMS and the package use it).
srpt_version() {
	local ver conf_ver
	ver=$(sed -n 's/^#define SRPT_VERSION "\(.*\)"/\1/p' "$SRPT_ROOT/include/srpt/version.h")
	conf_ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$SRPT_ROOT/dkms.conf")
	[ "$ver" = "$conf_ver" ] || die "dkms.conf has version $conf_ver, include/srpt/version.h $ver"
	printf '%s\n' "$ver"
}

# signing_key DIR CN: a throw-away module signing key (DIR/key.pem) and
# its self-signed certificate (DIR/cert.der, DER as mokutil takes it), with
# the extensions of the kernel's own certs/default_x509.genkey plus
# codeSigning: what `make install SIGN_KEY=... SIGN_CERT=...` is tested
# with (docs/packaging.md: Signing, with the same settings).
signing_key() {
	mkdir -p "$1"
	cat >"$1/x509.genkey" <<-GENKEY
		[ req ]
		default_bits = 2048
		distinguished_name = req_distinguished_name
		prompt = no
		string_mask = utf8only
		x509_extensions = myexts

		[ req_distinguished_name ]
		CN = $2

		[ myexts ]
		basicConstraints = critical,CA:FALSE
		keyUsage = digitalSignature
		extendedKeyUsage = codeSigning
		subjectKeyIdentifier = hash
		authorityKeyIdentifier = keyid
	GENKEY
	openssl req -new -nodes -utf8 -sha256 -days 36500 -batch -x509 \
		-config "$1/x509.genkey" -outform DER -out "$1/cert.der" \
		-keyout "$1/key.pem" 2>/dev/null
}

# module_sig_verify MODULE CERT: MODULE (.ko, or .ko.xz/.ko.zst/.ko.gz)
# ends in a module signature (a PKCS#7 blob, struct module_signature and
# the magic string, as sign-file appends them) that verifies against CERT
# over exactly the module's uncompressed bytes before it.
module_sig_verify() {
	local module=$1 cert=$2 tmp size siglen rc=0
	local magic='~Module signature appended~'
	tmp=$(mktemp -d)
	case $module in
	*.xz) xz -dc "$module" >"$tmp/m" ;;
	*.zst) zstd -dcq "$module" >"$tmp/m" ;;
	*.gz) gzip -dc "$module" >"$tmp/m" ;;
	*) cp "$module" "$tmp/m" ;;
	esac
	size=$(stat -c %s "$tmp/m")
	if ! tail -c 28 "$tmp/m" | cmp -s - <(printf '%s\n' "$magic"); then
		echo "$module: no module signature"
		rm -rf "$tmp"
		return 1
	fi
	# sig_len: the big-endian u32 that ends struct module_signature (12 bytes).
	siglen=$(tail -c 32 "$tmp/m" | head -c 4 | od -An -tu1 |
		awk '{ print (($1 * 256 + $2) * 256 + $3) * 256 + $4 }')
	head -c $((size - 40 - siglen)) "$tmp/m" >"$tmp/content"
	tail -c $((siglen + 40)) "$tmp/m" | head -c "$siglen" >"$tmp/sig.p7"
	openssl x509 -inform DER -in "$cert" -out "$tmp/cert.pem" 2>/dev/null ||
		cp "$cert" "$tmp/cert.pem"
	# -noverify: the certificate is self-signed and trusted by no one; the
	# signature itself is checked against it.
	openssl cms -verify -binary -inform DER -in "$tmp/sig.p7" -content "$tmp/content" \
		-certfile "$tmp/cert.pem" -nointern -noverify -out /dev/null 2>"$tmp/err" || {
		cat "$tmp/err"
		rc=1
	}
	rm -rf "$tmp"
	return "$rc"
}

# The certificate DKMS signs the modules it builds with: mok_certificate
# of /etc/dkms/framework.conf (and framework.conf.d), /var/lib/dkms/mok.pub
# by default (DKMS makes it, with mok.key, the first time it signs).
dkms_mok_cert() {
	local f cert=/var/lib/dkms/mok.pub line
	for f in /etc/dkms/framework.conf /etc/dkms/framework.conf.d/*.conf; do
		[ -r "$f" ] || continue
		line=$(sed -n 's/^[[:space:]]*mok_certificate=//p' "$f" | tail -n1)
		line=${line%\"}
		line=${line#\"}
		[ -z "$line" ] || cert=$line
	done
	printf '%s\n' "$cert"
}

# apt_for NAME CMD ARGS...: apt-get or apt-cache on the private sources
# and lists of scripts/kernels in the cache (NAME: bullseye, sid), apart
# from the machine's own.
apt_for() { # name cmd args...
	local dir=$SRPT_CACHE/apt/$1
	shift
	"$@" -o Dir::Etc::SourceList="$dir/sources.list" -o Dir::Etc::SourceParts=/nonexistent \
		-o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir" \
		-o Dir::Cache::archives="$dir/archives" -o Debug::NoLocking=1 \
		-o APT::Sandbox::User=root
}
