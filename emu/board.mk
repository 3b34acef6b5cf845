# emu/board.mk: the phone board (part 2), included by emu/Makefile.
# Builds $(BUILD)/panlab-phone on top of the CPU library and runs the
# board's CUnit tests (sanitized) as part of `make test`.

REPLAY_LIB := ../build/replay/host/libpanlab_replay.a
BOARD_SRCS := machine.c time.c dvfs.c fdt.c loader.c replay.c run.c console_watch.c ports.c \
              model_constants.c \
              handshake.c host/guest_clock.c \
              host/sdl_display.c host/screenshot.c host/gdbstub.c host/slirp_net.c \
              host/content_http.c host/content_udp.c \
              host/net_wire.c host/net_capture.c \
              host/snapshot.c \
              dev/gic.c dev/timer.c dev/pl011.c dev/psci.c dev/scmi.c \
              dev/virtio.c dev/virtio_console.c dev/virtio_gpu.c \
              dev/virtio_input.c dev/virtio_net.c dev/sdcard.c dev/pl181.c
BOARD_HDRS := $(wildcard *.h dev/*.h host/*.h) $(HDRS)
BOARD_LIBS := $(REPLAY_LIB) -lfdt -lz -lpng -lpcap $(shell pkg-config --libs slirp) \
              $(shell sdl2-config --libs)
BOARD_CFLAGS := -I../replay/include $(shell sdl2-config --cflags) \
                $(shell pkg-config --cflags slirp)
BOARD_OBJS := $(BOARD_SRCS:%.c=$(BUILD)/board/%.o)
BOARD_OBJS_SAN := $(BOARD_SRCS:%.c=$(BUILD)/board-san/%.o)
PHONE := $(BUILD)/panlab-phone
BOARD_TESTS := $(patsubst tests/%.c,$(BUILD)/%,$(wildcard tests/test_board*.c))

.PHONY: phone board-test
all: phone $(BUILD)/model-constants.tsv
test: board-test
phone: $(PHONE)

# Section 6's findings cite these (scripts/section6.sh reads build/*/model-constants.tsv).
$(BUILD)/model-constants.tsv: $(PHONE)
	$(PHONE) --model-constants > $@.tmp && mv $@.tmp $@

$(BUILD)/board/%.o: %.c $(BOARD_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(BOARD_CFLAGS) -c $< -o $@

$(BUILD)/board-san/%.o: %.c $(BOARD_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(BOARD_CFLAGS) $(SANFLAGS) -c $< -o $@

$(PHONE): $(BUILD)/board/main.o $(BOARD_OBJS) $(LIB) $(REPLAY_LIB)
	$(CC) $(CFLAGS) -o $@ $(BUILD)/board/main.o $(BOARD_OBJS) $(LIB) $(BOARD_LIBS)

# The replay library is replay/'s; build it if the top level has not.
$(REPLAY_LIB):
	$(MAKE) -C ../replay host

$(BOARD_TESTS): $(BUILD)/%: tests/%.c $(BOARD_OBJS_SAN) $(LIB_SAN) $(REPLAY_LIB) $(BOARD_HDRS) \
                tests/board_test.h tests/cpu_seconds.h
	$(CC) $(CFLAGS) $(BOARD_CFLAGS) $(SANFLAGS) -o $@ $< $(BOARD_OBJS_SAN) $(LIB_SAN) $(BOARD_LIBS) -lcunit

board-test: $(BOARD_TESTS) $(PHONE)
	@for t in $(BOARD_TESTS); do echo "== $$t"; $$t $(PHONE) || exit 1; done

# Guest-side test programs, packed as an extra initramfs to append to the
# panlab one (Linux unpacks concatenated archives):
#   cat build/initramfs.cpio.gz build/emu/guest-tests.cpio.gz > rd.gz
# then boot with panlab.test=panlab-parallel, panlab-hotplug, panlab-dvfs,
# panlab-governor, panlab-sdcard, panlab-pmu, or
# panlab-nettest (with --net user --content-dir DIR holding hello.txt);
# panlab-perf also needs build/emu/guest-perf.cpio.gz, the guest's perf
# (guest-kernel/Makefile), appended after them.
GUEST_TESTS_CPIO := $(BUILD)/guest-tests.cpio.gz
all: $(GUEST_TESTS_CPIO)
$(BUILD)/guest-tests/bin/panlab-parallel: tests/guest/parallel.c
	@mkdir -p $(dir $@)
	$(CROSS)gcc -std=c11 -Wall -Wextra -Werror -O2 -marm -static -pthread -o $@ $<

$(BUILD)/guest-tests/bin/panlab-governor: tests/guest/governor.c ../include/panlab/klog_uapi.h \
                                          ../include/panlab/trace_format.h
	@mkdir -p $(dir $@)
	$(CROSS)gcc -std=c11 -Wall -Wextra -Werror -O2 -marm -static -I../include -o $@ $<

$(BUILD)/guest-tests/bin/panlab-sdcard: tests/guest/sdcard.c
	@mkdir -p $(dir $@)
	$(CROSS)gcc -std=c11 -Wall -Wextra -Werror -O2 -marm -static -o $@ $<

$(BUILD)/guest-tests/bin/panlab-pmu: tests/guest/pmu.c
	@mkdir -p $(dir $@)
	$(CROSS)gcc -std=c11 -Wall -Wextra -Werror -O2 -marm -static -o $@ $<

# No libc: nothing but the loop's own instructions runs at PL0 (perf_loop.S).
$(BUILD)/guest-tests/bin/panlab-perf-loop: tests/guest/perf_loop.S
	@mkdir -p $(dir $@) $(BUILD)/guest
	$(CROSS)as -march=armv7-a -o $(BUILD)/guest/perf_loop.o $<
	$(CROSS)ld -static -o $@ $(BUILD)/guest/perf_loop.o

$(BUILD)/guest-tests/bin/panlab-%: tests/guest/%.sh
	@mkdir -p $(dir $@)
	install -m 755 $< $@

$(GUEST_TESTS_CPIO): $(BUILD)/guest-tests/bin/panlab-parallel \
                     $(BUILD)/guest-tests/bin/panlab-governor \
                     $(BUILD)/guest-tests/bin/panlab-sdcard \
                     $(BUILD)/guest-tests/bin/panlab-pmu \
                     $(BUILD)/guest-tests/bin/panlab-nettest \
                     $(BUILD)/guest-tests/bin/panlab-hotplug \
                     $(BUILD)/guest-tests/bin/panlab-dvfs \
                     $(BUILD)/guest-tests/bin/panlab-perf \
                     $(BUILD)/guest-tests/bin/panlab-perf-dvfs \
                     $(BUILD)/guest-tests/bin/panlab-perf-loop
	$(call pack_cpio,$(BUILD)/guest-tests)

# Packs the tree $(1) into $@ from a private copy with fixed times: the programs keep theirs,
# so make does not rebuild them every time, and two builds at once do not share a staging file.
define pack_cpio
	set -e; tmp=$$(mktemp -d $@.XXXXXX); trap 'rm -rf "$$tmp"' EXIT; \
	cp -a $(1) "$$tmp/root"; \
	find "$$tmp/root" -exec touch -h -d @0 {} +; \
	(cd "$$tmp/root" && find . | LC_ALL=C sort > ../list && \
	    cpio -o -H newc -R 0:0 --quiet < ../list > ../cpio) && \
	gzip -n -9 < "$$tmp/cpio" > "$$tmp/cpio.gz" && mv "$$tmp/cpio.gz" $@
endef

# The guest's perf in an archive of its own (several MB): only panlab-perf needs it.
GUEST_PERF_CPIO := $(BUILD)/guest-perf.cpio.gz
all: $(GUEST_PERF_CPIO)
# guest-kernel builds it (or restores it from its cache) when missing; `make build` keeps it
# up to date, before emu.
../build/perf/perf:
	$(MAKE) --no-print-directory -C ../guest-kernel perf
$(GUEST_PERF_CPIO): ../build/perf/perf
	@mkdir -p $(BUILD)/guest-perf/bin
	cp $< $(BUILD)/guest-perf/bin/perf
	$(call pack_cpio,$(BUILD)/guest-perf)

# `make bench`: the guest's PMU test joins the PMU's cost in out/bench/pmu.json.
.PHONY: pmu-bench
bench: pmu-bench
pmu-bench: cpu-bench $(PHONE) $(GUEST_TESTS_CPIO) $(GUEST_PERF_CPIO)
	tests/pmu_bench.sh $(abspath ..)

# `make bench`: boot-to-init, MIPS and the parallel-core ratio beside QEMU.
.PHONY: board-bench
bench: board-bench
board-bench: $(PHONE) $(GUEST_TESTS_CPIO)
	tests/board_bench.sh $(abspath ..)

# The CPU engines side by side on a stress workload; completes emu-cpu.json
# with the boot and memory figures of board-bench.
.PHONY: engine-bench
bench: engine-bench
engine-bench: cpu-bench board-bench $(PHONE)
	tests/engine_bench.sh $(abspath ..)

# `make -C emu profile`: perf record of the phone on the default run (README, "Profile").
.PHONY: profile
profile: $(PHONE)
	tests/profile.sh $(abspath ..)

# Jobs as work, DVFS and the tracer's overhead per workload: out/bench/dvfs.json.
.PHONY: dvfs-bench
bench: dvfs-bench
dvfs-bench: $(PHONE)
	tests/dvfs_bench.sh $(abspath ..)

# Two boots of the default experiment give byte-identical outputs. Not in
# `test`: each run boots Linux (minutes of host time).
.PHONY: board-determinism
board-determinism: $(PHONE)
	tests/board_determinism.sh $(abspath ..)
