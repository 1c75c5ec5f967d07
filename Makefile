# Thin wrapper: deps -> CMake build -> run / test / bench. See README.md.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
ACCSUM = $(BUILD)/bin/accsum

.PHONY: all deps configure build run test bench verify plots clean

all: build

deps:
	./scripts/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release $(CMAKE_FLAGS)

build: configure
	cmake --build $(BUILD) -j$(JOBS)

# The default benchmark: every algorithm on the best backend present, n = 2^24, beside its baseline.
run: build
	$(ACCSUM) bench

test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

bench: build
	$(ACCSUM) bench --algo=all --backend=all --json=$(BUILD)/bench.json

verify: build
	$(ACCSUM) verify

# Figures from the committed GPU JSON (results/README.md says where each came from).
plots: deps
	python3 scripts/plot_superacc.py results/superacc_cuda_sum_n.json --range 1 --out results/superacc_cuda_sum
	python3 scripts/plot_superacc.py results/superacc_cuda_sum_ranges.json --params adaptive=0 --out results/superacc_cuda_sum
	python3 scripts/plot_superacc.py results/superacc_cuda_dot_ranges.json --params adaptive=0 --out results/superacc_cuda_dot
	python3 scripts/plot_dpsumk.py results/dpsumk_sum_sweep.json results/dpsumk_dot_sweep.json -o results/dpsumk_throughput.png
	python3 scripts/plot_gemm.py $(wildcard results/gemm_*.json) -o results/gemm_front.png

clean:
	rm -rf $(BUILD)
