# SPDX-License-Identifier: GPL-2.0-only
#
# ib_srpt: an SRP target for Linux with a C++ core.
#
#   make                 build ib_srpt.ko for KDIR
#   make check           run every test tier (host, KUnit, VM); see README.md
#   make demo            boot a VM, serve a LUN over soft-RoCE, run fio
#   make install         install into /lib/modules/<kver>/updates and depmod

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

PWD := $(CURDIR)

.PHONY: all modules clean install uninstall check demo bench host-test fuzz kunit \
	vm-test build-all checkpatch sparse deps

all: modules

modules:
	$(MAKE) -C $(KDIR) M=$(PWD) modules

clean:
	$(MAKE) -C $(KDIR) M=$(PWD) clean
	rm -rf build

install: modules
	$(MAKE) -C $(KDIR) M=$(PWD) INSTALL_MOD_DIR=updates modules_install
	depmod -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) \
		$(shell $(MAKE) -s -C $(KDIR) kernelrelease 2>/dev/null)

uninstall:
	rm -f $(INSTALL_MOD_PATH)/lib/modules/$(shell $(MAKE) -s -C $(KDIR) kernelrelease 2>/dev/null)/updates/ib_srpt.ko*
	depmod -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) \
		$(shell $(MAKE) -s -C $(KDIR) kernelrelease 2>/dev/null)

# Every test tier; prints "N passed, N failed" last.
check:
	scripts/check

deps:
	scripts/deps

host-test:
	scripts/host-test

fuzz:
	scripts/fuzz

kunit:
	scripts/kunit

vm-test:
	scripts/vm-test

demo:
	scripts/demo

bench:
	scripts/bench

# Build for every supported kernel with warnings counted.
build-all:
	scripts/build-all

checkpatch:
	scripts/checkpatch

sparse:
	$(MAKE) -C $(KDIR) M=$(PWD) C=2 modules
