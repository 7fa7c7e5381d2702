# fleetsim - GNU make.  Knobs: PREFIX, DESTDIR, CC, CFLAGS, SANITIZE
# (e.g. SANITIZE=address,undefined), WERROR=1 (warnings are errors; CI sets it),
# MPI=1 (fleetsim sweep over MPI ranks: built with mpicc into build-mpi/).

PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
DATADIR  ?= $(PREFIX)/share/fleetsim
INCLUDEDIR ?= $(PREFIX)/include
MANDIR   ?= $(PREFIX)/share/man
DOCDIR   ?= $(PREFIX)/share/doc/fleetsim
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
CC       ?= cc
CFLAGS   ?= -O2 -g
PKGS     := gsl libcjson cunit libmicrohttpd

WARN := -Wall -Wextra -Wshadow -Wconversion -Wno-sign-conversion \
        -Wstrict-prototypes -Wmissing-prototypes -Wpointer-arith \
        -Wformat=2 -Wundef -Wvla
ifeq ($(WERROR),1)
WARN += -Werror
endif

# MPI=1: the same sources built with Open MPI's mpicc and -DFS_MPI into a
# folder of their own (run/exec_mpi.c is the only code that uses MPI).
ifeq ($(MPI),1)
BUILD    ?= build-mpi
CC       := mpicc
MPIFLAGS := -DFS_MPI
endif

ifneq ($(SANITIZE),)
BUILD    ?= build-san
SANFLAGS := -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
else
BUILD    ?= build
endif

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)
ALL_CFLAGS  = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -MMD -MP -pthread \
              $(WARN) $(CFLAGS) $(SANFLAGS) $(MPIFLAGS) $(PKG_CFLAGS)
ALL_LDFLAGS = $(LDFLAGS) $(SANFLAGS)
# GLPK (the allocation LPs, sched/alloc.c) ships no pkg-config file.
LIBS        = $(PKG_LIBS) -lglpk -ldl -lm -pthread

LIB_SRC   := $(wildcard base/*.c models/*.c sched/*.c sched/policies/*.c io/*.c sim/*.c reports/*.c run/*.c study/*.c serve/*.c)
TOOL_SRC  := $(wildcard tools/*.c)
TEST_SRC  := $(wildcard tests/test_*.c)
TEST_UTIL := $(filter-out tests/test_%.c,$(wildcard tests/*.c))

LIB_OBJ   := $(LIB_SRC:%.c=$(BUILD)/%.o)
TOOL_OBJ  := $(TOOL_SRC:%.c=$(BUILD)/%.o)
UTIL_OBJ  := $(TEST_UTIL:%.c=$(BUILD)/%.o)
TESTS     := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
FLEETSIM  := $(BUILD)/fleetsim
# fleetsim with one test-only row in the metric table (tests/metric/run.sh).
METRIC_FS := $(BUILD)/metric-test/fleetsim

.PHONY: docs-update results backfill-figures all man completion check demo deps install install-headers uninstall clean unit-tests validate compare browser-test regress regress-false-alarm ablation bench bench-parallel bench-gavel bench-scale fuzz fuzz-build sweep-mpi-check valgrind
all: $(FLEETSIM) $(TESTS) $(METRIC_FS) man completion

# The man pages, from the --help texts (tools/mkman.sh), and the shell
# completion scripts, from the command and option tables (fleetsim
# completion): made from the built binary, so they cannot drift from it.
MAN_STAMP := $(BUILD)/man/fleetsim.1
COMPLETION := $(BUILD)/completion/fleetsim.bash $(BUILD)/completion/_fleetsim
man: $(MAN_STAMP)
completion: $(COMPLETION)
$(MAN_STAMP): $(FLEETSIM) tools/mkman.sh
	rm -rf $(BUILD)/man
	tools/mkman.sh $(FLEETSIM) $(BUILD)/man
$(BUILD)/completion/fleetsim.bash: $(FLEETSIM)
	@mkdir -p $(dir $@)
	$(FLEETSIM) completion bash >$@
$(BUILD)/completion/_fleetsim: $(FLEETSIM)
	@mkdir -p $(dir $@)
	$(FLEETSIM) completion zsh >$@

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# The commit every output records (base/version.h): version.o is rebuilt
# when it changes ($(BUILD)/commit holds the last one built).
COMMIT := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
$(BUILD)/commit: FORCE
	@mkdir -p $(dir $@)
	@[ "$$(cat $@ 2>/dev/null)" = "$(COMMIT)" ] || echo "$(COMMIT)" >$@
$(BUILD)/base/version.o: base/version.c $(BUILD)/commit
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DFLEETSIM_COMMIT='"$(COMMIT)"' -c $< -o $@
FORCE:

$(BUILD)/libfleetsim.a: $(LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(FLEETSIM): $(TOOL_OBJ) $(BUILD)/libfleetsim.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/metric-test/metric.o: reports/metric.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -DFS_METRIC_TEST_ROW -c $< -o $@

$(METRIC_FS): $(TOOL_OBJ) $(filter-out $(BUILD)/reports/metric.o,$(LIB_OBJ)) $(BUILD)/metric-test/metric.o
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(UTIL_OBJ) $(BUILD)/libfleetsim.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

# deps installs missing Debian packages (tools/install-deps.sh); demo and
# check call it first, then re-enter make so pkg-config sees the result.
deps:
	@{ pkg-config --exists $(PKGS) && [ -r /usr/include/glpk.h ]; } || tools/install-deps.sh

demo: deps
	@$(MAKE) --no-print-directory run-demo

run-demo: $(FLEETSIM)
	$(FLEETSIM) run scenarios/default.json -o out/demo

check: deps
	@$(MAKE) --no-print-directory run-check

run-check: $(FLEETSIM) $(TESTS) $(METRIC_FS) $(MAN_STAMP) $(COMPLETION)
	@fail=0; for t in $(TESTS); do echo "== $$t"; $$t || fail=1; done; \
	tests/layers/run.sh || fail=1; \
	FLEETSIM=$(FLEETSIM) tests/bad-input/run.sh || fail=1; \
	FLEETSIM=$(FLEETSIM) tests/golden/run.sh || fail=1; \
	FLEETSIM=$(FLEETSIM) tests/regress/run.sh || fail=1; \
	FLEETSIM=$(FLEETSIM) tests/signal/run.sh || fail=1; \
	FLEETSIM=$(FLEETSIM) tests/output/run.sh || fail=1; \
	FLEETSIM=$(FLEETSIM) tests/property/run.sh || fail=1; \
	FLEETSIM=$(FLEETSIM) tests/gen/run.sh || fail=1; \
	FLEETSIM=$(FLEETSIM) tests/plan/run.sh || fail=1; \
	FLEETSIM=$(FLEETSIM) tests/roadmap/run.sh || fail=1; \
	FLEETSIM=$(FLEETSIM) tests/sweep/run.sh || fail=1; \
	FLEETSIM=$(FLEETSIM) tests/pdf/run.sh || fail=1; \
	FLEETSIM=$(FLEETSIM) METRIC_FLEETSIM=$(METRIC_FS) tests/metric/run.sh || fail=1; \
	FLEETSIM=$(FLEETSIM) tests/serve/run.sh || fail=1; \
	FLEETSIM=$(FLEETSIM) tests/exec/run.sh || fail=1; \
	FLEETSIM=$(FLEETSIM) tests/backfill/run.sh || fail=1; \
	FLEETSIM=$(FLEETSIM) tests/latency/run.sh || fail=1; \
	FLEETSIM=$(FLEETSIM) MAN_BUILD_DIR=$(BUILD)/man COMPLETION_BUILD_DIR=$(BUILD)/completion tests/cli/run.sh || fail=1; \
	FLEETSIM=$(FLEETSIM) tests/cli/docs.sh || fail=1; \
	FLEETSIM=$(FLEETSIM) tests/plugin/run.sh || fail=1; \
	if [ $$fail = 0 ]; then echo "make check: all suites passed"; else echo "make check: FAILED"; fi; \
	exit $$fail

# The outputs the docs show under their examples (docs/cli.md's --help
# copies among them) rewritten from what the commands print now
# (tests/cli/docs.sh --update); review the diff before committing it.
docs-update: $(FLEETSIM)
	@FLEETSIM=$(FLEETSIM) tests/cli/docs.sh --update

# docs/results/: the figures the docs quote, regenerated and stamped with
# the commit (tools/results.sh; about a minute, more with ../shared/traces
# for the backfill figures).  Not in make check.
results: $(FLEETSIM)
	@FLEETSIM=$(FLEETSIM) tools/results.sh

# The shipped comparisons (scenarios/README.md): the Philly-like sample on
# hourly cloud H100s under fifo vs a leased mixed fleet, the default
# scenario under every policy, and the whole Philly trace when
# ../shared/traces holds it.
compare: $(FLEETSIM)
	$(FLEETSIM) compare scenarios/compare/philly-cloud.json scenarios/compare/philly-leased.json -o out/compare-philly
	$(FLEETSIM) compare scenarios/compare/burst-leased.json scenarios/compare/burst-elastic.json -o out/compare-burst
	$(FLEETSIM) compare scenarios/default.json --policies all -o out/compare-policies
	@if [ -r ../shared/traces/philly/philly.csv ]; then \
	  $(FLEETSIM) compare scenarios/compare/philly-full-cloud.json scenarios/compare/philly-full-leased.json -o out/compare-philly-full; \
	else echo "compare: skipping the full Philly comparison: ../shared/traces/philly/philly.csv is absent"; fi

# The flux ablation (README "Choosing a policy"): every policy that matters
# and flux with each feature off, on the default scenario, the inference
# scenario (its Azure-trace form when ../shared/traces holds it), a fleet
# with failed PSUs, the preemption case and the failover case.
ABLATION := fifo,best-fit,hetero,hetero-watt,flux,flux-no-route,flux-no-pack,flux-no-power,flux-no-consolidate,flux-no-preempt,flux-no-failover
ablation: $(FLEETSIM)
	$(FLEETSIM) compare -q scenarios/default.json --policies $(ABLATION) -o out/ablation-default
	@if [ -r ../shared/traces/azure-llm-2023/AzureLLMInferenceTrace_conv.csv ]; then \
	  $(FLEETSIM) compare -q scenarios/inference-azure.json --policies $(ABLATION) -o out/ablation-inference; \
	else $(FLEETSIM) compare -q scenarios/inference.json --policies $(ABLATION) -o out/ablation-inference; fi
	$(FLEETSIM) compare -q scenarios/psu-degraded.json --policies $(ABLATION) -o out/ablation-psu
	$(FLEETSIM) compare -q scenarios/preempt-demo.json --policies $(ABLATION) -o out/ablation-preempt
	$(FLEETSIM) compare -q scenarios/failover.json --policies $(ABLATION) -o out/ablation-failover
	@for d in default inference psu preempt failover; do echo "== out/ablation-$$d/report.md"; \
	  sed -n '/^| Run | GPUs/,/^$$/p' out/ablation-$$d/report.md; done

# The scheduler-quality gate: the suite against its baseline (exit 1 when a
# metric got worse).  After an intended change: make regress UPDATE=1.
regress: $(FLEETSIM)
	$(FLEETSIM) regress scenarios/suite --baseline scenarios/regress-baseline.json $(if $(UPDATE),--update)

# The gate's false-alarm rate on 20 unchanged reruns with fresh seeds, and
# how often it catches fifo for best-fit (docs/regress.md; many minutes).
regress-false-alarm: $(FLEETSIM)
	FLEETSIM=$(FLEETSIM) tests/regress/false-alarm.sh

# The reports opened in headless Chromium: every chart decodes and is not
# blank (tests/browser/run.sh; skips when Chromium is absent).
browser-test: $(FLEETSIM)
	@FLEETSIM=$(FLEETSIM) tests/browser/run.sh

# fleetsim sweep and regress under mpirun (tests/sweep/mpi.sh,
# tests/regress/mpi.sh): the MPI build
# (MPI=1, build-mpi/) on 2 and 4 ranks writes the bytes -j 1 writes.
# Needs Open MPI: tools/install-deps.sh --with-mpi.
sweep-mpi-check:
	@command -v mpicc >/dev/null && command -v mpirun >/dev/null || \
	  { echo "sweep-mpi-check: needs mpicc and mpirun (tools/install-deps.sh --with-mpi)"; exit 1; }
	@$(MAKE) --no-print-directory MPI=1 BUILD=build-mpi build-mpi/fleetsim
	FLEETSIM=build-mpi/fleetsim tests/sweep/mpi.sh
	FLEETSIM=build-mpi/fleetsim tests/regress/mpi.sh

# fleetsim serve behind the FGD authors' kube-scheduler simulator, side by
# side with its own FGD plugins and fleetsim fill (tests/live/run.sh; skips,
# saying so, without Go, pandas, the peer or the traces: install them with
# tools/install-deps.sh --with-live).  Builds the peer in $(BUILD)/live.
live-check: $(FLEETSIM)
	@FLEETSIM=$(FLEETSIM) tests/live/run.sh $(BUILD)/live

# The unit tests and every command on small inputs under valgrind's
# memcheck (tests/valgrind/run.sh; each case at most VG_TIMEOUT s).  Needs
# valgrind: tools/install-deps.sh --with-valgrind.  A CI step (.ci/run);
# what it covers and leaves out is listed in tests/valgrind/run.sh.
valgrind: $(FLEETSIM) $(TESTS)
	@FLEETSIM=$(FLEETSIM) TESTS="$(TESTS)" tests/valgrind/run.sh

# docs/backfill.md's table: the HPC2N and NASA SWF logs under fifo and
# backfill (about a minute; skipped without ../shared/traces).
backfill-figures: $(FLEETSIM)
	@FLEETSIM=$(FLEETSIM) tests/backfill/figures.sh

# Published results reproduced from ../shared/traces (skipped when absent).
validate: $(FLEETSIM)
	@FLEETSIM=$(FLEETSIM) tests/validate/fgd.sh
	@FLEETSIM=$(FLEETSIM) tests/validate/gavel.sh

# The program, its data and schema, the example scenarios (DATADIR/scenarios),
# the man pages, the completion scripts, the documentation (DOCDIR) and the
# plugin header (install-headers).
install: $(FLEETSIM) $(MAN_STAMP) $(COMPLETION) install-headers
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(DATADIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(DOCDIR)/docs \
	  $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 755 $(FLEETSIM) $(DESTDIR)$(BINDIR)/fleetsim
	install -m 644 models/data/*.json schema/scenario.schema.json $(DESTDIR)$(DATADIR)/
	find scenarios -type f | while read -r f; do \
	  install -D -m 644 "$$f" "$(DESTDIR)$(DATADIR)/$$f" || exit 1; done
	install -m 644 $(BUILD)/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(BUILD)/completion/fleetsim.bash $(DESTDIR)$(BASHCOMPDIR)/fleetsim
	install -m 644 $(BUILD)/completion/_fleetsim $(DESTDIR)$(ZSHCOMPDIR)/_fleetsim
	install -m 644 README.md $(DESTDIR)$(DOCDIR)/
	find docs -type f | while read -r f; do \
	  install -D -m 644 "$$f" "$(DESTDIR)$(DOCDIR)/$$f" || exit 1; done

# The policy plugin ABI (docs/policy-plugins.md), what a plugin builds against.
install-headers:
	install -d $(DESTDIR)$(INCLUDEDIR)/fleetsim
	install -m 644 include/fleetsim/policy.h $(DESTDIR)$(INCLUDEDIR)/fleetsim/

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/fleetsim $(DESTDIR)$(MANDIR)/man1/fleetsim.1 $(DESTDIR)$(MANDIR)/man1/fleetsim-*.1 \
	  $(DESTDIR)$(BASHCOMPDIR)/fleetsim $(DESTDIR)$(ZSHCOMPDIR)/_fleetsim
	rm -rf $(DESTDIR)$(DATADIR) $(DESTDIR)$(DOCDIR) $(DESTDIR)$(INCLUDEDIR)/fleetsim

clean:
	rm -rf build build-san build-mpi out

# Throughput figures (bench/README.md): the event queue alone, synthetic
# replays up to 1M jobs on 100k GPUs, the openb fill grid and the Philly
# replay.  Several minutes; BENCH_RUNS and BENCH_MAX_JOBS trim it.
BENCH_EVQ := $(BUILD)/bench/evq_bench

$(BENCH_EVQ): $(BUILD)/bench/evq_bench.o $(BUILD)/libfleetsim.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

# fleetsim serve's decision latency at 1,213 nodes (bench/serve_bench.c;
# reads ../shared/traces/alibaba-openb).
.PHONY: serve-bench live-check
SERVE_BENCH_CALLS ?= 3000
BENCH_SERVE := $(BUILD)/bench/serve_bench
OPENB := ../shared/traces/alibaba-openb

$(BENCH_SERVE): $(BUILD)/bench/serve_bench.o $(BUILD)/libfleetsim.a
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

serve-bench: $(BENCH_SERVE)
	@if [ -r $(OPENB)/openb_node_list_gpu_node.csv ]; then \
	  $(BENCH_SERVE) $(OPENB)/openb_node_list_gpu_node.csv $(OPENB)/openb_pod_list_default.csv $(SERVE_BENCH_CALLS); \
	else echo "serve-bench: skipped: $(OPENB) is absent"; fi

bench: $(FLEETSIM) $(BENCH_EVQ)
	FLEETSIM=$(FLEETSIM) EVQ_BENCH=$(BENCH_EVQ) bench/run.sh

# compare and plan at -j 1 and -j N (BENCH_JOBS, default 2): median wall
# times, the speed-up and the same bytes (bench/parallel.sh).
bench-parallel: $(FLEETSIM)
	FLEETSIM=$(FLEETSIM) bench/parallel.sh

# Gavel's Figure 8 job list under each round-based policy (docs/gavel.md).
bench-gavel: $(FLEETSIM)
	FLEETSIM=$(FLEETSIM) bench/gavel.sh

# Overload and scale against their targets (bench/scale.sh, docs/benchmarks.md).
bench-scale: $(FLEETSIM)
	FLEETSIM=$(FLEETSIM) bench/scale.sh

# Fuzzing (tests/fuzz/run.sh): libFuzzer targets built with clang, ASan and
# UBSan into $(BUILD)/fuzz/ from library objects of their own (never mixed
# with cc's), each run FUZZ_SECONDS on a copy of its seed corpus.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 60
FUZZ_DIR     := $(BUILD)/fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_CFLAGS   = -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -MMD -MP -g -O1 \
                $(filter-out -Werror,$(WARN)) $(FUZZ_SAN) $(PKG_CFLAGS)
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_DIR)/obj/%.o)
# name:FUZZ_FORMAT (tests/fuzz/fuzz_reader.c); corpora in tests/fuzz/corpus/NAME
FUZZ_READERS := native:1 openb:2 openb_nodes:3 philly:4 swf:5 azure:6
FUZZ_TARGETS := $(FUZZ_DIR)/fuzz_scenario $(FUZZ_DIR)/fuzz_extender $(FUZZ_DIR)/fuzz_cli $(foreach r,$(FUZZ_READERS),$(FUZZ_DIR)/fuzz_$(firstword $(subst :, ,$(r))))

$(FUZZ_DIR)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_DIR)/libfleetsim.a: $(FUZZ_LIB_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_DIR)/fuzz_scenario: $(FUZZ_DIR)/obj/tests/fuzz/fuzz_scenario.o $(FUZZ_DIR)/obj/tests/fuzz/fuzz_util.o $(FUZZ_DIR)/libfleetsim.a
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(LIBS)

# fuzz_cli runs the commands in-process: tools/ built with main renamed.
FUZZ_TOOL_OBJ := $(filter-out %/fleetsim.o,$(TOOL_SRC:%.c=$(FUZZ_DIR)/obj/%.o)) $(FUZZ_DIR)/obj/tools/fleetsim_main.o

$(FUZZ_DIR)/obj/tools/fleetsim_main.o: tools/fleetsim.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -Dmain=fleetsim_main -c $< -o $@

$(FUZZ_DIR)/fuzz_cli: $(FUZZ_DIR)/obj/tests/fuzz/fuzz_cli.o $(FUZZ_DIR)/obj/tests/fuzz/fuzz_util.o $(FUZZ_TOOL_OBJ) $(FUZZ_DIR)/libfleetsim.a
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(LIBS)

$(FUZZ_DIR)/fuzz_extender: $(FUZZ_DIR)/obj/tests/fuzz/fuzz_extender.o $(FUZZ_DIR)/libfleetsim.a
	$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ $^ $(LIBS)

define FUZZ_READER_RULE
$(FUZZ_DIR)/obj/tests/fuzz/fuzz_$(1).o: tests/fuzz/fuzz_reader.c
	@mkdir -p $$(dir $$@)
	$$(FUZZ_CC) $$(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -DFUZZ_FORMAT=$(2) -c $$< -o $$@

$(FUZZ_DIR)/fuzz_$(1): $(FUZZ_DIR)/obj/tests/fuzz/fuzz_$(1).o $(FUZZ_DIR)/obj/tests/fuzz/fuzz_util.o $(FUZZ_DIR)/libfleetsim.a
	$$(FUZZ_CC) $$(FUZZ_SAN) -fsanitize=fuzzer -o $$@ $$^ $$(LIBS)
endef
$(foreach r,$(FUZZ_READERS),$(eval $(call FUZZ_READER_RULE,$(firstword $(subst :, ,$(r))),$(lastword $(subst :, ,$(r))))))

fuzz-build: deps
	@$(MAKE) --no-print-directory $(FUZZ_TARGETS)

fuzz: fuzz-build
	@FUZZ_BIN=$(FUZZ_DIR) FUZZ_SECONDS=$(FUZZ_SECONDS) tests/fuzz/run.sh

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
