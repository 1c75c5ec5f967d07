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

plots:
	python3 scripts/plot_superacc.py results/ && python3 scripts/plot_dpsumk.py results/

clean:
	rm -rf $(BUILD)
