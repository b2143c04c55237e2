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
