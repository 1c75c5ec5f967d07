# Thin wrapper: deps -> CMake build -> run / test / bench. See README.md.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
ACCSUM = $(BUILD)/bin/accsum

.PHONY: all deps configure build install run test bench verify plots docs clean asan test-asan fuzz

all: build

deps:
	./scripts/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD) -j$(JOBS)

# The tool, libaccsum, include/accsum/ and the CMake and pkg-config packages (docs/library.md);
# PREFIX=... installs elsewhere than CMake's default (/usr/local).
install: build
	cmake --install $(BUILD) $(if $(PREFIX),--prefix $(PREFIX))

# The default benchmark: every algorithm on the best backend present at its family's default size, beside its baseline.
run: build
	$(ACCSUM) bench

test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

# The whole suite under AddressSanitizer + UBSan, and the libFuzzer targets, in a second build
# directory built with clang (README "Fuzzing and sanitizers"); .ci/run runs both after `test`.
ASAN_BUILD ?= build-asan
# Tests that start MPI (or every backend) get full malloc stacks so the OpenMPI suppressions match
# (tests/sanitizers/lsan.supp); the rest keep ASan's fast unwinder (full stacks make them 4x slower).
SAN_OPTS = detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0
SAN_ENV = LSAN_OPTIONS=suppressions=$(CURDIR)/tests/sanitizers/lsan.supp:print_suppressions=0 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
SAN_MPI_TESTS = ^(Mpi|mpi_np|IeeeRule|EveryEntry\.|FirstScreen\.NoColumnContradicts|Moddot\.|Cli\.GenerateByIndex|SuperaccOpenCL\.MpiInner)
# Five tests drive PoCL's threads and MPI (four of them every backend) in one process, and LSan's
# tracer crashes (signal 11) at their exit under the slow unwinder: they run with ASan + UBSan but
# without the leak check.
SAN_NO_LEAK_TESTS = ^(Moddot\.EveryAlgorithmMatchesGmpOnEveryGeneratorAndPrime|IeeeRule\.EveryRegisteredAlgorithm|EveryEntry\.KeepsItsPromiseOnTheEdgeCasesOfItsFamily|SuperaccOpenCL\.MpiInnerOpenclMatchesOracle|FirstScreen\.NoColumnContradictsAnotherOnAnyRow)$$
# Tests that sweep OpenCL kernel variants (build options, work-group sizes, batch boundaries) exercise
# code PoCL compiles at run time, which ASan does not instrument; the host paths they use are the ones
# the remaining OpenCL tests run. They are left out of the sanitizer run, not out of `make test`.
# mpi_np4 runs the MPI tests of mpi_np2 on four ranks (the same code paths); four whole-CLI tests replay
# committed tables, issue-sized benches or a whole verify through paths the remaining CLI tests already
# cover; the two all-configuration sweeps of the cpu superaccumulator run the code that
# SuperaccCpu.EveryRangeAroundBlockAndChunkEdges runs in every configuration.
SAN_SKIP_TESTS = ^(mpi_np4|GemmCli\.BenchFromTheIssueRuns|Cli\.CommittedAccuracyTablesAreReproduced|FpeCli\.CommittedAccuracyTableIsReproduced|FpeCli\.VerifyPasses|SuperaccCpu\.Generated(Sums|Dots)AllDistributionsAllConfigs|SuperaccOpenCLBatches\.SizesAroundBatchesMatchOracle|SuperaccOpenCL\.(SweptVariantsMatchOracle|WorkGroupSizesGiveIdenticalBits|RepeatedRunsOfOneKernelAgree|PrivateAccumulatorFallback|LargerInputsMatchOracleAndCpu)|DpSumKOpenCL\.(MultiLaunchSizes|WithinBoundIllConditioned|SameBitsAsSerialOnEveryDistribution))$$
asan: deps
	CC=clang CXX=clang++ cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS=-gline-tables-only \
	  -DACCSUM_CUDA=OFF -DACCSUM_SANITIZE=ON -DACCSUM_FUZZ=ON $(CMAKE_FLAGS)
	cmake --build $(ASAN_BUILD) -j$(JOBS)

test-asan: asan
	cd $(ASAN_BUILD) && $(SAN_ENV) ASAN_OPTIONS=$(SAN_OPTS) ctest --output-on-failure -j$(JOBS) -E '$(SAN_MPI_TESTS)|$(SAN_SKIP_TESTS)'
	cd $(ASAN_BUILD) && $(SAN_ENV) ASAN_OPTIONS=$(SAN_OPTS):fast_unwind_on_malloc=0 ctest --output-on-failure -j$(JOBS) -R '$(SAN_MPI_TESTS)' -E '$(SAN_NO_LEAK_TESTS)|$(SAN_SKIP_TESTS)'
	cd $(ASAN_BUILD) && $(SAN_ENV) ASAN_OPTIONS=$(subst detect_leaks=1,detect_leaks=0,$(SAN_OPTS)) ctest --output-on-failure -j$(JOBS) -R '$(SAN_NO_LEAK_TESTS)'

fuzz: asan
	BUILD=$(ASAN_BUILD) ./scripts/fuzz.sh

bench: build
	$(ACCSUM) bench --algo=all --backend=all --json=$(BUILD)/bench.json

verify: build
	$(ACCSUM) verify

# Every figure the docs show, redrawn from the committed reports under results/ (results/README.md
# says where each came from). `make docs` regenerates the measured tables, docs/cli.md and the index.
plots: deps
	python3 scripts/plot_superacc.py results/superacc_cuda_sum_n.json --range 1 --only n --out results/superacc_cuda_sum
	python3 scripts/plot_superacc.py results/superacc_cuda_sum_ranges.json --params adaptive=0 --only range --out results/superacc_cuda_sum
	python3 scripts/plot_superacc.py results/superacc_cuda_dot_ranges.json --params adaptive=0 --only range --out results/superacc_cuda_dot
	python3 scripts/plot_ratio_n.py results/superacc_n_sum_h200.json results/superacc_n_dot_h200.json --range 1 -o results/superacc_n_ratio.png
	python3 scripts/plot_dpsumk.py results/dpsumk_sum_sweep.json results/dpsumk_dot_sweep.json -o results/dpsumk_throughput.png
	python3 scripts/plot_moddot.py results/moddot_table_cpu_time.json -o results/moddot_cpu_time.png
	python3 scripts/plot_moddot.py results/moddot_table_cuda_h200.json -o results/moddot_cuda_time_h200.png
	python3 scripts/plot_fpe.py results/fpe_table_cpu.json -o results/fpe_tables_cpu.png
	python3 scripts/plot_fpe.py results/fpe_tables_cuda.json -o results/fpe_tables_cuda.png
	python3 scripts/plot_ratio_n.py results/sum_speed_h100.json --bench superacc_n_sum,superacc_n_dot --range 1e50 --title "superacc on CUDA vs CUB Sum / cuBLAS ddot (H100, range 1e50)" -o results/superacc_n_ratio_h100.png --md results/superacc_n_ratios_h100.md
	python3 scripts/plot_ratio_n.py results/superacc_policy_h100.json --params fpe=0,bounded=auto --spread --targets 20:0.80,22:0.85,24:0.93 --title "superacc default (bounded=auto) on the H100: worst and best over the data" -o results/superacc_policy_ratio_h100.png --md results/superacc_policy_ratios_h100.md
	python3 scripts/plot_ratio_n.py results/superacc_policy_h200.json --params fpe=0,bounded=auto --spread --targets 20:0.80,22:0.85,24:0.93 --title "superacc default (bounded=auto) on the H200: worst and best over the data" -o results/superacc_policy_ratio_h200.png --md results/superacc_policy_ratios_h200.md
	python3 scripts/plot_gemm.py results/gemm_front_auto_h200.json results/ozaki_packed_uniform_n8192_h200.json results/ozaki13_uniform_n16384_h200.json -o results/gemm_front.png

docs: build
	python3 scripts/gen_docs.py --accsum $(ACCSUM)

clean:
	rm -rf $(BUILD)
