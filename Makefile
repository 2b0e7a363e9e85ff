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
#   make install         fare.ko for KDIR, fared, farectl, man pages, bash
#                        completion, systemd units, the YNL spec and an
#                        example /etc/fare/fared.conf (DESTDIR, PREFIX);
#                        Documentation/install.md lists every file
#   make uninstall       removes them (fared.conf only if unchanged)
#   make install-dkms    the module's source into /usr/src/fare-VERSION
#   make intree KSRC=DIR the module into a kernel tree, as drivers/net/fare

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

.PHONY: all module userspace tools compat clean check check-run bench-build test demo deps \
	checkpatch print-krel print-version install install-module \
	install-userspace install-dkms intree uninstall uninstall-module \
	uninstall-userspace systemd-units module-clean FORCE

all: module userspace tools

tools: tests/tools/fare-udp tests/tools/ctl-request tests/tools/snmp-watch tests/genl-fuzz/genl-fuzz

tests/tools/fare-udp: tests/tools/fare-udp.c
	$(CC) -O2 -g -Wall -Wextra -Werror -o $@ $<

tests/tools/ctl-request: tests/tools/ctl-request.c
	$(CC) -O2 -g -Wall -Wextra -Werror -o $@ $<

tests/tools/snmp-watch: tests/tools/snmp-watch.c
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
	+@kmod/compat/probe.sh $(KDIR) $(COMPAT_H)
	@echo "compat: $(KDIR):" $$(sed -n 's/^#define \(FARE_HAVE_[A-Z0-9_]*\).*/\1/p' $(COMPAT_H))

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

# Every harness's counts, summed at the end by tests/unit/summary (which
# also fails CI on a skip or on a harness that did not run under valgrind).
check: userspace tests/unit/select_test bench-build
	tests/unit/summary $(MAKE) check-run

# The benches' programs, built as their scripts build them, so that an
# interface they use cannot change without them (none of them runs here).
BENCH_OUT = out/bench-build
bench-build: userspace
	@mkdir -p $(BENCH_OUT)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -o $(BENCH_OUT)/fib_watch \
		bench/fib_watch.c $$(pkg-config --libs libmnl)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror \
		-o $(BENCH_OUT)/plane_route_cost bench/plane_route_cost.c \
		$$(pkg-config --libs libmnl)
	$(CC) -O2 -Wall -Wextra -Werror -o $(BENCH_OUT)/collective \
		bench/collective.c
	$(CC) -O2 -mpopcnt -Wall -Wextra -Werror -Ikmod -Iuapi \
		-o $(BENCH_OUT)/lpm_select_bench bench/lpm_select_bench.c \
		kmod/select.c
	$(CC) -std=gnu11 -O2 -Wall -Wextra -Werror -Iuserspace/fared \
		-Iuserspace/fared/bgp -Iuserspace/lib -Iuapi \
		-o $(BENCH_OUT)/rib_bench bench/rib_bench.c \
		userspace/fared/build/libfared.a -lm

check-run:
	tests/unit/record select_test tests/unit/select_test
	$(MAKE) -C userspace check

# The module's selection core, built for userspace with the type shim.
tests/unit/select_test: tests/unit/select_test.c kmod/select.c kmod/select.h \
		kmod/buckets_check.h kmod/lpm.h kmod/fare_shim.h kmod/visibility.h
	$(CC) -O2 -g -Wall -Wextra -Werror -Ikmod -o $@ tests/unit/select_test.c kmod/select.c

test:
	tests/run-all

demo:
	tests/lab/demo

deps:
	tests/deps.sh

checkpatch:
	tests/checkpatch.sh

# --- installation (Documentation/install.md) -------------------------------
#
# PREFIX is where fared, farectl and their documents go (default
# /usr/local; the Debian packages use /usr). The module goes where
# modprobe looks, /lib/modules/KREL/updates; the configuration lives in
# /etc whatever the PREFIX, because that is where fared looks for it.
VERSION := $(shell cat $(CURDIR)/VERSION)
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
SYSCONFDIR ?= /etc
UNITDIR ?= $(PREFIX)/lib/systemd/system
MODULESLOADDIR ?= $(PREFIX)/lib/modules-load.d
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
MODDIR = /lib/modules/$(KREL)/updates
DKMSDIR ?= /usr/src/fare-$(VERSION)
INSTALL ?= install
UNITS := systemd/fared.service systemd/fared@.service
export PREFIX SBINDIR MANDIR BASHCOMPDIR

print-version:
	@echo $(VERSION)

install: install-module install-userspace

install-module: module
	@[ -n "$(KREL)" ] || { echo "no kernel release in $(KDIR)" >&2; exit 1; }
	$(INSTALL) -D -m 0644 fare.ko $(DESTDIR)$(MODDIR)/fare.ko
	$(INSTALL) -D -m 0644 systemd/modules-load.conf \
		$(DESTDIR)$(MODULESLOADDIR)/fare.conf
ifeq ($(DESTDIR),)
	depmod -a $(KREL)
endif

# The units name the installed fared and fared.conf: made anew each time,
# since SBINDIR and SYSCONFDIR may differ from the last run.
systemd/%.service: systemd/%.service.in FORCE
	sed -e 's|@SBINDIR@|$(SBINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
		$< >$@

systemd-units: $(UNITS)

install-userspace: userspace $(UNITS)
	$(MAKE) -C userspace install
	$(INSTALL) -D -m 0644 systemd/fared.service \
		$(DESTDIR)$(UNITDIR)/fared.service
	$(INSTALL) -D -m 0644 systemd/fared@.service \
		$(DESTDIR)$(UNITDIR)/fared@.service
	$(INSTALL) -D -m 0644 systemd/sysusers.conf \
		$(DESTDIR)$(SYSUSERSDIR)/fare.conf
ifeq ($(DESTDIR),)
	@# The units run fared as the user fared with the group fare.
	-command -v systemd-sysusers >/dev/null && \
		systemd-sysusers $(SYSUSERSDIR)/fare.conf
endif
	$(INSTALL) -D -m 0644 Documentation/netlink/specs/fare.yaml \
		$(DESTDIR)$(DATADIR)/fare/fare.yaml
	@# An operator's configuration is never overwritten.
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/fare/fared.conf ]; then \
		echo "keeping $(DESTDIR)$(SYSCONFDIR)/fare/fared.conf"; \
	else \
		echo $(INSTALL) -D -m 0644 userspace/fared/fared.conf.example \
			$(DESTDIR)$(SYSCONFDIR)/fare/fared.conf; \
		$(INSTALL) -D -m 0644 userspace/fared/fared.conf.example \
			$(DESTDIR)$(SYSCONFDIR)/fare/fared.conf; \
	fi

# What DKMS builds from: the module's sources and this Makefile, with the
# version in dkms.conf (dkms add/build/install fare/$(VERSION)).
DKMS_SRCS := Makefile Kbuild VERSION kmod/Makefile $(wildcard kmod/*.c kmod/*.h) \
	kmod/compat/compat.h kmod/compat/probe.sh \
	$(wildcard kmod/compat/probes/*.c) uapi/linux/fare.h

install-dkms:
	@for f in $(DKMS_SRCS); do \
		m=0644; [ -x $$f ] && m=0755; \
		$(INSTALL) -D -m $$m $$f $(DESTDIR)$(DKMSDIR)/$$f || exit 1; \
	done
	sed 's/#MODULE_VERSION#/$(VERSION)/' dkms.conf \
		>$(DESTDIR)$(DKMSDIR)/dkms.conf
	@echo "now: dkms install fare/$(VERSION)"

uninstall: uninstall-module uninstall-userspace

uninstall-module:
	rm -f $(DESTDIR)$(MODDIR)/fare.ko \
		$(DESTDIR)$(MODULESLOADDIR)/fare.conf
ifeq ($(DESTDIR),)
	@if [ -n "$(KREL)" ]; then depmod -a $(KREL); fi
endif

uninstall-userspace:
	$(MAKE) -C userspace uninstall
	rm -f $(DESTDIR)$(UNITDIR)/fared.service \
		$(DESTDIR)$(UNITDIR)/fared@.service \
		$(DESTDIR)$(SYSUSERSDIR)/fare.conf \
		$(DESTDIR)$(DATADIR)/fare/fare.yaml
	-rmdir $(DESTDIR)$(DATADIR)/fare 2>/dev/null
	@if cmp -s userspace/fared/fared.conf.example \
		$(DESTDIR)$(SYSCONFDIR)/fare/fared.conf; then \
		rm -f $(DESTDIR)$(SYSCONFDIR)/fare/fared.conf; \
		rmdir $(DESTDIR)$(SYSCONFDIR)/fare 2>/dev/null || true; \
	elif [ -e $(DESTDIR)$(SYSCONFDIR)/fare/fared.conf ]; then \
		echo "keeping the edited $(DESTDIR)$(SYSCONFDIR)/fare/fared.conf"; \
	fi

# The module in a kernel source tree, as a netdev submission would have it:
# kmod/ as drivers/net/fare, the uapi header in include/uapi/linux, and
# drivers/net's Kconfig and Makefile pointing at them (fare.rst, "Building
# in tree"). Then CONFIG_FARE and CONFIG_FARE_KUNIT_TEST are ordinary
# options and kmod/.kunitconfig serves kunit.py.
INTREE_SRCS := kmod/Kconfig kmod/Makefile kmod/.kunitconfig \
	$(filter-out kmod/fare_shim.h,$(wildcard kmod/*.c kmod/*.h)) \
	kmod/compat/compat.h \
	$(wildcard kmod/compat/probes/*.c)

intree:
	@[ -f "$(KSRC)/drivers/net/Kconfig" ] || \
		{ echo "usage: make intree KSRC=<kernel source tree>" >&2; exit 1; }
	rm -rf $(KSRC)/drivers/net/fare
	@for f in $(INTREE_SRCS); do \
		$(INSTALL) -D -m 0644 $$f $(KSRC)/drivers/net/fare/$${f#kmod/} || exit 1; \
	done
	$(INSTALL) -m 0644 uapi/linux/fare.h $(KSRC)/include/uapi/linux/fare.h
	grep -q '^source "drivers/net/fare/Kconfig"' $(KSRC)/drivers/net/Kconfig || \
		sed -i '/^source "drivers\/net\/team\/Kconfig"/i source "drivers/net/fare/Kconfig"\n' \
			$(KSRC)/drivers/net/Kconfig
	grep -q '^obj-$$(CONFIG_FARE) ' $(KSRC)/drivers/net/Makefile || \
		sed -i '/^obj-$$(CONFIG_WIREGUARD) /a obj-$$(CONFIG_FARE) += fare/' \
			$(KSRC)/drivers/net/Makefile
	@echo "fare is in $(KSRC)/drivers/net/fare (CONFIG_FARE, CONFIG_FARE_KUNIT_TEST)"

# What DKMS runs to clean: the module's objects only.
module-clean:
	$(RM) $(KBUILD_OUTPUT_FILES)
	rm -rf kmod/compat/gen out

FORCE:

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf kmod/compat/gen out
	-$(MAKE) -C userspace clean
	rm -f tests/tools/fare-udp tests/tools/ctl-request tests/tools/snmp-watch tests/genl-fuzz/genl-fuzz tests/unit/select_test $(UNITS)
