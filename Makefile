# panlab: the two commands a new user types are `make run` and `make test`.
# Both install missing Debian packages first (scripts/install-deps.sh).

SHELL := /bin/bash
BACKEND ?= phone
WORKLOAD ?= asynctask
# The machine: cores online (1 or 2), and on the phone the cpufreq governor or a fixed frequency.
CORES ?= 2
MACHINE := --cores $(CORES) $(if $(GOVERNOR),--governor $(GOVERNOR)) $(if $(FREQ_MHZ),--freq-mhz $(FREQ_MHZ))
COMPONENTS := replay stats workloads analyzer emu

.PHONY: all help deps build compile run experiment labs labs-check test lint bench repro-check difftest fuzz section6 clean
all: build

# A variable given empty on the command line (`make run CORES=`) is a usage error: one line naming
# it, exit 2 (make's status for an error).
OPTION_VARS := BACKEND WORKLOAD CORES GOVERNOR FREQ_MHZ SPEC EXECUTOR JOBS LINT_BASE FUZZ_SECONDS
$(foreach v,$(OPTION_VARS),$(if $(filter command line,$(origin $(v))),$(if $(strip $($(v))),,\
	$(error $(v)= is empty, expected a value; 'make help' lists the options))))

# The suite runs on the phone or qemu; libvirt runs one workload at a time.
ifeq ($(WORKLOAD)/$(BACKEND),all/libvirt)
$(if $(filter run,$(MAKECMDGOALS)),$(error WORKLOAD=all runs on BACKEND=phone or qemu, not libvirt; give one workload))
endif

help:
	@echo 'usage: make [TARGET] [VARIABLE=value ...]'
	@echo 'targets:'
	@echo '  run          build, then run WORKLOAD on BACKEND and print its report (the default experiment)'
	@echo '  test         build, then every unit test and integration suite (tests/run-all.sh)'
	@echo '  build        the guest kernel, guest image, emulator, analyzer and replay tools'
	@echo '  deps         install the Debian packages make run needs; ALL=1: also Slurm, libvirt, Chromium'
	@echo '  experiment   a matrix of runs: SPEC=file EXECUTOR=local|slurm JOBS=N (scripts/README.md)'
	@echo '  section6     Panappticon section 6 on the phone: EXECUTOR=local|slurm'
	@echo '  labs         the lab handbook: every lab run as written, its key checked, both editions'
	@echo '  labs-check   the lab handbook keys against this build (workloads/labs/)'
	@echo '  bench        the benchmarks, into out/bench/*.json'
	@echo '  lint         the formatting of what changed since LINT_BASE (default main)'
	@echo '  difftest     emu/ against QEMU, instruction by instruction'
	@echo '  fuzz         libFuzzer on the readers and the replay parser, FUZZ_SECONDS each'
	@echo '  repro-check  rebuild the guest kernel elsewhere; it must hash the same'
	@echo '  clean        remove build/ and out/'
	@echo 'variables (make run): WORKLOAD=name|all (asynctask), BACKEND=phone|qemu|libvirt (phone),'
	@echo '  CORES=1|2 (2), GOVERNOR=name, FREQ_MHZ=350|700|920|1200 (phone only); V=1 shows commands'
	@echo 'exit status: 0 ok, 1 a run or check failed, 2 a usage or input error (make: also its own errors)'

# The optional components (scripts/install-deps.sh) come with what uses them: libvirt with
# BACKEND=libvirt, Slurm with EXECUTOR=slurm, all of them for the tests and benchmarks, or ALL=1.
DEPS := $(if $(filter 1,$(ALL))$(filter test bench,$(MAKECMDGOALS)),--all,\
	$(if $(filter libvirt,$(BACKEND)),libvirt) $(if $(filter slurm,$(EXECUTOR)),slurm))
deps:
	@scripts/install-deps.sh $(DEPS)

# The guest kernel is rebuilt only when its inputs change (see
# guest-kernel/Makefile), so a second `make run` skips it. Each component
# says what it builds and builds quietly; V=1 shows every command.
QUIET := $(if $(filter 1,$(V)),,-s)
# Two builds at once in one checkout (two terminals' make run) would compile and link the same
# files together: they compile one at a time (the second finds the work done); the images are
# packed privately and renamed into place (mkinitramfs.sh), so those need no lock.
build: deps
	@mkdir -p build && flock build/.compile.lock $(MAKE) --no-print-directory compile
	@scripts/guest-debs.sh
	@scripts/mkinitramfs.sh

compile:
	@$(MAKE) --no-print-directory -C guest-kernel all tests $(if $(QUIET),Q=@)
	@for d in $(COMPONENTS); do echo "build: $$d"; \
		$(MAKE) --no-print-directory $(QUIET) -C $$d all || exit 1; done
	@$(MAKE) --no-print-directory $(QUIET) build/guest_abi.sh build/guest/model-constants.tsv

# The guest ABI's values for the shell (include/panlab/guest_abi.h): the scripts and the guest's
# /init source this file rather than spelling the values again.
build/guest_abi.sh: scripts/guest-abi-sh.c include/panlab/guest_abi.h include/panlab/error.h
	@mkdir -p build
	gcc -std=c11 -Wall -Wextra -Werror -Iinclude -o build/guest-abi-sh $<
	build/guest-abi-sh > $@.tmp && mv $@.tmp $@

# The guest's boot configuration (writeback, governor tunables), for section 6's findings.
build/guest/model-constants.tsv: scripts/guest/model-constants.tsv
	@mkdir -p build/guest
	cp $< $@

# WORKLOAD=all runs the whole suite: the experiment scripts/experiments/suite.spec (phone) or
# suite-qemu.spec, into out/SUITE/results.sqlite and out/SUITE/report.html, then `panlab-analyze
# verdict`: a line per workload, out/SUITE.json, and failure when a workload misses a target. A
# machine setting (CORES=1, GOVERNOR=, FREQ_MHZ=) adds those axes to the spec, as its own
# experiment (out/SUITE.spec, e.g. SUITE = suite-c1-fondemand).
SUITE_SPEC := suite$(if $(filter qemu,$(BACKEND)),-qemu)
SUITE_FREQ := $(GOVERNOR)$(FREQ_MHZ)
SUITE := $(SUITE_SPEC)$(if $(filter-out 2,$(CORES))$(SUITE_FREQ),-c$(CORES)$(if $(SUITE_FREQ),-f$(SUITE_FREQ)))
run: build
ifeq ($(WORKLOAD),all)
	@mkdir -p out && { grep -v '^name' scripts/experiments/$(SUITE_SPEC).spec; echo "name $(SUITE)"; \
	   $(if $(filter-out 2,$(CORES)),echo "cores $(CORES)";) \
	   $(if $(SUITE_FREQ),echo "frequency $(SUITE_FREQ)";) } > out/$(SUITE).spec
	@scripts/experiment.sh out/$(SUITE).spec || [ $$? = 1 ]
	@build/analyzer/panlab-analyze verdict --db out/$(SUITE)/results.sqlite --experiment $(SUITE) \
		--runs-dir out --out out/$(SUITE).json
else
	@scripts/run-experiment.sh --backend $(BACKEND) --workload $(WORKLOAD) $(MACHINE)
endif

# An experiment matrix (scripts/README.md "Experiments"): SPEC=file, EXECUTOR=local|slurm,
# JOBS=runs at once (default: what cores and memory allow).
SPEC ?= scripts/experiments/small.spec
EXECUTOR ?= local
experiment: build
	@scripts/experiment.sh $(SPEC) --executor $(EXECUTOR) $(if $(JOBS),--jobs $(JOBS))

# The lab handbook (workloads/labs/): every lab's commands run as written and its key checked,
# then the student and teacher editions in out/labs/ (Markdown and one HTML page each).
labs: build
	@workloads/labs/labs.sh
labs-check: build
	@tests/integration/test_labs.sh

test: build
	@tests/run-all.sh

# The formatting of what changed since LINT_BASE (a branch or commit, default main), in each
# folder's declared dialect (README.md, "Code style"; scripts/lint.sh).
LINT_BASE ?= main
lint: deps
	@scripts/lint.sh $(LINT_BASE)

# Every folder with a `bench` target takes part; each writes out/bench/*.json.
BENCH_DIRS := guest-kernel workloads analyzer emu
bench: build
	@for d in $(BENCH_DIRS); do \
		$(MAKE) --no-print-directory -q -C $$d bench >/dev/null 2>&1; \
		[ $$? = 2 ] && { echo "bench: $$d has no benchmarks yet"; continue; }; \
		echo "=== bench: $$d"; $(MAKE) --no-print-directory -C $$d bench || exit 1; \
	done
	@echo "=== bench: experiments"; scripts/experiment-bench.sh

# The guest kernel built again from scratch in another directory must match build/kernel bit
# for bit (guest-kernel/repro-check.sh; a whole kernel build, so not in `make test`; JOBS=N).
repro-check: build
	@guest-kernel/repro-check.sh

# libFuzzer on the trace and ground-truth readers and the replay script
# parser; FUZZ_SECONDS per target (default 60).
fuzz: deps
	@$(MAKE) --no-print-directory -C analyzer fuzz
	@$(MAKE) --no-print-directory -C replay fuzz

# Panappticon section 6: scripts/experiments/section6.spec (four configurations, two at a time,
# EXECUTOR=local|slurm), a repeat of c1-on, then the findings from out/section6/results.sqlite
# into out/section6/ and out/bench/section6.json (scripts/section6.sh).
section6: build
	@scripts/section6.sh --executor $(EXECUTOR)

difftest: build
	@$(MAKE) --no-print-directory -C emu difftest

clean:
	rm -rf build out
