# SPDX-License-Identifier: GPL-2.0-only
#
# ib_srpt: an SRP target for Linux with a C++ core.
#
#   make                 build ib_srpt.ko for KDIR
#   make check           run every test tier (host, KUnit, VM, two hosts); see docs/testing.md
#   make check-stress    the stress scenarios at full counts, both kernels
#   make check-debug     the VM scenarios on a KASAN/lockdep/kmemleak kernel
#   make demo            boot a VM, serve a LUN over soft-RoCE, run fio
#   make install         install into /lib/modules/<kver>/updates and depmod,
#                        and scripts/srpt-stat into $(PREFIX)/sbin
#                        (SIGN_KEY=... SIGN_CERT=...: signed for Secure Boot)
#   make dkms            register with DKMS: rebuilt for every kernel
#   make deb             build/deb/ib-srpt-dkms_<version>_all.deb (DKMS package)

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
ifeq ($(wildcard $(KDIR)/Makefile),)
  # No headers for the running kernel (e.g. a container host): use the
  # newest installed Debian headers instead, and say so.
  KDIR_FALLBACK := $(lastword $(sort $(wildcard /lib/modules/*/build/Makefile)))
  ifneq ($(KDIR_FALLBACK),)
    $(info KDIR $(KDIR) has no kernel headers; using $(dir $(KDIR_FALLBACK)))
    override KDIR := $(patsubst %/,%,$(dir $(KDIR_FALLBACK)))
  endif
endif

# The module is built out of tree, in build/<kernel release>: the sources
# stay clean and several kernels can be built side by side.
# UTS_RELEASE: Debian's headers report another release to "make kernelrelease".
KRELEASE = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h)
BUILD = $(CURDIR)/build/$(KRELEASE)

# srpt-stat, the live view of the statistics, goes to $(DESTDIR)$(PREFIX)/sbin;
# staging the module with INSTALL_MOD_PATH stages it too.
PREFIX ?= /usr/local
DESTDIR ?= $(INSTALL_MOD_PATH)
SBINDIR = $(DESTDIR)$(PREFIX)/sbin

.PHONY: all modules clean install uninstall check check-stress check-debug demo \
	bench host-test \
	fuzz fuzz-long kunit kunit-coverage vm-test bed-test build-all checkpatch deps dkms deb

all: modules

modules:
	scripts/build-module --kdir $(KDIR)

clean:
	rm -rf build

# Secure Boot: SIGN_KEY (a PEM private key or a pkcs11: URI) and SIGN_CERT
# (its X.509 certificate, PEM or DER) sign the installed module with the
# kernel's sign-file (docs/packaging.md: Signing); without SIGN_KEY it stays unsigned.
# The build output itself is never signed: the kernel's own key
# (CONFIG_MODULE_SIG_ALL) is not in Debian's headers.
SIGN_FILE ?= $(KDIR)/scripts/sign-file
SIGN_HASH ?= $(or $(shell sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"/\1/p' $(KDIR)/.config 2>/dev/null),sha256)
ifneq ($(SIGN_KEY),)
  ifeq ($(SIGN_CERT),)
    $(error SIGN_KEY=$(SIGN_KEY) needs SIGN_CERT, its certificate)
  endif
endif

# updates/ takes precedence over the in-tree module for modprobe.
install: modules
	$(MAKE) -C $(KDIR) M=$(BUILD) INSTALL_MOD_DIR=updates CONFIG_MODULE_SIG_ALL= modules_install
	$(if $(SIGN_KEY),scripts/sign-module $(SIGN_FILE) $(SIGN_HASH) $(SIGN_KEY) $(SIGN_CERT) \
		$(INSTALL_MOD_PATH)/lib/modules/$(KRELEASE)/updates/ib_srpt.ko*)
	depmod -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(KRELEASE)
	install -D -m 0755 scripts/srpt-stat $(SBINDIR)/srpt-stat

uninstall:
	rm -f $(INSTALL_MOD_PATH)/lib/modules/$(KRELEASE)/updates/ib_srpt.ko*
	depmod -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) $(KRELEASE)
	rm -f $(SBINDIR)/srpt-stat

# DKMS: rebuild for every installed kernel (see dkms.conf).
dkms:
	scripts/dkms-install

# The Debian package of the DKMS sources (debian/): build/deb/*.deb.
deb:
	scripts/deb

# Every test tier; prints "N passed, N failed" last.
check:
	scripts/check

# The stress scenarios (tests/vm/4?-*.sh) at their full counts on both
# kernels; make check runs them at a fifth.
check-stress:
	SRPT_STRESS_SCALE=1 SRPT_VM_KERNELS="$${SRPT_VM_KERNELS:-6.1 6.12}" scripts/vm-test '4[0-9]'

# The VM scenarios on a KASAN/lockdep/kmemleak kernel (built once, cached).
check-debug:
	scripts/check-debug

deps:
	scripts/deps

host-test:
	scripts/host-test

fuzz:
	scripts/fuzz

# Long fuzzing, on demand: 10^8 inputs or an hour per target, merged into
# the seed corpus in tests/fuzz/corpus/.
fuzz-long:
	FUZZ_RUNS=100000000 FUZZ_SECONDS=3600 FUZZ_MERGE=1 scripts/fuzz

kunit:
	scripts/kunit

# On demand: a gcov build of the KUnit kernel; which lines of the data
# path shims ran, in build/kunit-coverage/summary.txt.
kunit-coverage:
	scripts/kunit --coverage

vm-test:
	scripts/vm-test

bed-test:
	scripts/bed-test

demo:
	scripts/demo

bench:
	scripts/bench --hosts 2

# Build for every supported kernel with warnings counted.
build-all:
	scripts/build-all

checkpatch:
	SRPT_TIERS=build scripts/check
