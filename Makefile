# SPDX-License-Identifier: GPL-2.0
#
# fare: the kernel module (kbuild, out of tree) and the userspace tools.
#
#   make                 module + userspace
#   make KDIR=DIR        build the module against another kernel build dir
#   make deps            install every Debian package the project needs
#   make check           userspace unit tests (no kernel needed)
#   make test            every test: unit, KUnit and labs in QEMU guests
#   make demo            the skeleton lab: a 3:1 split over two planes

KDIR ?= /lib/modules/$(shell uname -r)/build
ifeq ($(wildcard $(KDIR)/Makefile),)
# The host may run a kernel without headers (a container, a CI VM):
# fall back to Debian's default headers package.
KDIR := $(firstword $(wildcard /usr/src/linux-headers-*-amd64) $(KDIR))
endif

COMPAT_H := kmod/compat/gen/compat-generated.h
# kbuild's own clean would also delete the modules kept in out/.
KBUILD_OUTPUT_FILES = $(wildcard *.o *.ko *.mod *.mod.c .*.cmd kmod/*.o \
	kmod/*.mod kmod/.*.cmd Module.symvers modules.order)
KDIR_STAMP := kmod/compat/gen/kdir

.PHONY: all module userspace tools compat clean check test demo deps \
	checkpatch print-krel

all: module userspace tools

tools: tests/tools/fare-udp tests/genl-fuzz/genl-fuzz

tests/tools/fare-udp: tests/tools/fare-udp.c
	$(CC) -O2 -g -Wall -Wextra -Werror -o $@ $<

# The generic netlink fuzzer (tests/lab/genl-fuzz.sh, tests/lab/stress.sh).
tests/genl-fuzz/genl-fuzz: tests/genl-fuzz/genl-fuzz.c uapi/linux/fare.h
	$(CC) -O2 -g -Wall -Wextra -Werror -Iuapi -o $@ $<

print-krel:
	@echo $(KREL)

# Objects built for one kernel must not leak into a build for another.
compat:
	@mkdir -p kmod/compat/gen
	@if [ "$$(cat $(KDIR_STAMP) 2>/dev/null)" != "$(KDIR)" ]; then \
		$(RM) $(KBUILD_OUTPUT_FILES); \
		echo "$(KDIR)" > $(KDIR_STAMP); \
	fi
	@kmod/compat/probe.sh $(KDIR) $(COMPAT_H)

KREL = $(shell sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)

# Each kernel's modules land in out/<release>/, where the guest finds them.
module: compat
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules
	@mkdir -p out/$(KREL)
	@cp fare.ko out/$(KREL)/
	@if [ -f fare_kunit.ko ]; then cp fare_kunit.ko out/$(KREL)/; fi
	@echo "modules for $(KREL) in out/$(KREL)/"

userspace:
	$(MAKE) -C userspace

check: userspace tests/unit/select_test
	tests/unit/select_test
	$(MAKE) -C userspace check

# The module's selection core, built for userspace with the type shim.
tests/unit/select_test: tests/unit/select_test.c kmod/select.c kmod/select.h \
		kmod/buckets_check.h kmod/lpm.h kmod/fare_shim.h
	$(CC) -O2 -g -Wall -Wextra -Werror -Ikmod -o $@ tests/unit/select_test.c kmod/select.c

test:
	tests/run-all

demo:
	tests/lab/demo

deps:
	tests/deps.sh

checkpatch:
	tests/checkpatch.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf kmod/compat/gen out
	-$(MAKE) -C userspace clean
	rm -f tests/tools/fare-udp tests/genl-fuzz/genl-fuzz tests/unit/select_test
