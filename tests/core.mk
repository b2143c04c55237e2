# SPDX-License-Identifier: GPL-2.0-only
#
# Building the C++ core for a userspace test program; included by
# tests/host/Makefile and tests/fuzz/Makefile.
#
# Inputs:  ROOT (the project), O (the output directory), CXX and
#          CORE_CXXFLAGS (how to compile a core source).
# Outputs: $(O)/srpt-core.o, every core object of src/objects.kbuild
#          and the tests' C entry points (tests/doubles/port_api.cpp)
#          linked into one relocatable object; $(O)/abi-coverage.ok, a
#          check that a fake defines every srpt_os_* function of the ABI.
#
# The core brings its own global operator new/delete (src/core/runtime.cpp,
# over srpt_os_alloc). In a test program they would replace the
# program's allocator, so that gtest and libFuzzer would allocate from
# the fake too. Instead the core's definitions and its references to
# them are renamed to srpt_host_* inside srpt-core.o: the core allocates
# through the fake, everything else through the C++ library. A reference
# the core makes to a form runtime.cpp does not define stays undefined
# and fails the link, as it would in the kernel.
#
# Link srpt-core.o before the test objects: an inline function emitted in
# both keeps the core's copy, which frees with the core's delete.

include $(ROOT)/src/objects.kbuild

CORE_SRCS := $(srpt_core_objs:%.o=$(ROOT)/%.cpp)
CORE_OBJS := $(srpt_core_objs:src/core/%.o=$(O)/core/%.o)

$(foreach f,$(CORE_SRCS),$(if $(wildcard $(f)),,$(error $(f) is listed in src/objects.kbuild but does not exist)))

$(O)/core/%.o: $(ROOT)/src/core/%.cpp $(MAKEFILE_LIST)
	@mkdir -p $(@D)
	@echo "  CXX     core/$*.o"
	$(Q)$(CXX) $(CORE_CXXFLAGS) -MMD -MP -c -o $@ $<

# Renames the core's operator new/delete in $@.raw into $@ (see above).
define srpt_host_allocator
	$(Q)nm $@.raw | awk '{ print $$NF }' | \
		grep -E '^(_Z(nw|na|dl|da)[a-zA-Z0-9_]*|__cxa_pure_virtual)$$' | sort -u | \
		awk '{ print $$1, "srpt_host" $$1 }' >$@.map
	$(Q)objcopy --redefine-syms=$@.map $@.raw $@
	$(Q)rm -f $@.raw
endef

# Built as the core is: it reaches inside, and allocates through it.
PORT_API_OBJ := $(O)/test-entry/port_api.o
$(PORT_API_OBJ): $(ROOT)/tests/doubles/port_api.cpp $(MAKEFILE_LIST)
	@mkdir -p $(@D)
	@echo "  CXX     test-entry/port_api.o"
	$(Q)$(CXX) $(CORE_CXXFLAGS) -MMD -MP -c -o $@ $<

$(O)/srpt-core.o: $(CORE_OBJS) $(PORT_API_OBJ) $(ROOT)/src/objects.kbuild
	@echo "  LD -r   srpt-core.o ($(words $(CORE_OBJS)) core objects)"
	$(Q)ld -r -o $@.raw $(CORE_OBJS) $(PORT_API_OBJ)
	$(srpt_host_allocator)

# The same from the core compiled as one unit (the cost harness's).
$(O)/srpt-core-unit.o: $(O)/core-unit/core_unit.o $(PORT_API_OBJ)
	$(Q)ld -r -o $@.raw $^
	$(srpt_host_allocator)

# Every srpt_os_* function the ABI declares must be defined by the fake
# (not only those the core calls today): the message names the missing ones.
ABI_HEADERS := $(ROOT)/include/srpt/abi.h $(ROOT)/include/ktl/platform.h
$(O)/abi-coverage.ok: $(ABI_HEADERS) $(FAKE_OBJS)
	$(Q)cat $(ABI_HEADERS) | grep -oE '(struct[[:space:]]+)?\bsrpt_os_[a-z0-9_]+[[:space:]]*\(' | \
		grep -v '^struct' | sed 's/[[:space:](]*$$//' | sort -u >$@.abi
	$(Q)nm -g --defined-only $(FAKE_OBJS) >$@.nm
	$(Q)awk '{ print $$3 }' $@.nm | sort -u >$@.fake
	$(Q)missing=$$(comm -23 $@.abi $@.fake); \
	if [ -n "$$missing" ]; then \
		echo "error: tests/host/fake_os.cpp (and fake_*.cpp) lack these srpt_os_* functions of abi.h and ktl/platform.h:" >&2; \
		echo "$$missing" | sed 's/^/    /' >&2; \
		exit 1; \
	fi
	$(Q)echo "  ABI     fake_os defines all $$(wc -l <$@.abi) srpt_os_* functions"
	$(Q)touch $@

# A file that changes only when the words it holds do: link rules depend
# on it so that removing a source relinks (make sees additions, not removals).
$(O)/%.list: FORCE
	@mkdir -p $(@D)
	@printf '%s\n' $(LIST_$*) | cmp -s - $@ || printf '%s\n' $(LIST_$*) >$@

.PHONY: FORCE
FORCE:

-include $(CORE_OBJS:.o=.d) $(PORT_API_OBJ:.o=.d)
