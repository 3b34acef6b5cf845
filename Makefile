# panlab: the two commands a new user types are `make run` and `make test`.
# Both install missing Debian packages first (scripts/install-deps.sh).

SHELL := /bin/bash
BACKEND ?= phone
WORKLOAD ?= asynctask
COMPONENTS := replay workloads analyzer emu

.PHONY: all deps build run test bench difftest fuzz clean
all: build

deps:
	@scripts/install-deps.sh

# The guest kernel is rebuilt only when its inputs change (see
# guest-kernel/Makefile), so a second `make run` skips it. Each component
# says what it builds and builds quietly; V=1 shows every command.
QUIET := $(if $(filter 1,$(V)),,-s)
build: deps
	@$(MAKE) --no-print-directory -C guest-kernel all tests $(if $(QUIET),Q=@)
	@for d in $(COMPONENTS); do echo "build: $$d"; \
		$(MAKE) --no-print-directory $(QUIET) -C $$d all || exit 1; done
	@scripts/guest-debs.sh
	@scripts/mkinitramfs.sh

# WORKLOAD=all runs the whole suite (scripts/run-suite.sh, out/suite.json).
run: build
ifeq ($(WORKLOAD),all)
	@scripts/run-suite.sh --backend $(BACKEND) --snapshot
else
	@scripts/run-experiment.sh --backend $(BACKEND) --workload $(WORKLOAD)
endif

test: build
	@tests/run-all.sh

# Every folder with a `bench` target takes part; each writes out/bench/*.json.
BENCH_DIRS := guest-kernel workloads analyzer emu
bench: build
	@for d in $(BENCH_DIRS); do \
		$(MAKE) --no-print-directory -q -C $$d bench >/dev/null 2>&1; \
		[ $$? = 2 ] && { echo "bench: $$d has no benchmarks yet"; continue; }; \
		echo "=== bench: $$d"; $(MAKE) --no-print-directory -C $$d bench || exit 1; \
	done

# libFuzzer on the trace and ground-truth readers and the replay script
# parser; FUZZ_SECONDS per target (default 60).
fuzz: deps
	@$(MAKE) --no-print-directory -C analyzer fuzz
	@$(MAKE) --no-print-directory -C replay fuzz

difftest: build
	@$(MAKE) --no-print-directory -C emu difftest

clean:
	rm -rf build out
