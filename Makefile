# rosetta — quick start: `make run` (report) and `make test` (the whole suite).
#
# FEATURES: the GPU backends compiled in (cpu is always there).
# ROSETTA_REQUIRE: APIs that must find a device and pass (CI: every API the
#   software drivers provide; cuda is tested on the GPU machine).

FEATURES ?= wgpu,vulkan,opencl,cuda
ROSETTA_REQUIRE ?= cpu,wgpu,vulkan,opencl
export ROSETTA_REQUIRE

CARGO ?= cargo
PYTHON ?= /usr/bin/python3
BIN := target/release/rosetta

.PHONY: setup build run test lint bench clean

setup:
	@scripts/setup.sh

build: setup
	$(CARGO) build --release --features $(FEATURES)

# The main job: devices, conformance matrix and a quick benchmark, written to
# rosetta-report/index.html and rosetta-report/results.json.
run: build
	$(BIN)

lint:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --release --workspace --all-targets --features $(FEATURES) -- -D warnings

# Unit tests, the conformance suite on every required API, the CLI contract,
# the Vulkan run under the Khronos validation layer, and numpy agreement.
test: build lint
	$(CARGO) test --release --workspace --features $(FEATURES)
	ROSETTA_VULKAN_VALIDATION=1 $(BIN) conform --backend vulkan
	$(PYTHON) tests/numpy/agreement.py $(BIN) $(ROSETTA_REQUIRE)

bench: build
	$(BIN) bench --size large --json rosetta-bench.json --html rosetta-bench

clean:
	$(CARGO) clean
	rm -rf rosetta-report rosetta-bench rosetta-bench.json
