# rosetta — quick start: `make run` (report) and `make test` (the whole suite).
#
# FEATURES: the GPU backends compiled in (cpu is always there; `cli` builds
#   the binary).
# ROSETTA_REQUIRE: APIs that must find a device and pass (CI: every API the
#   software drivers provide; cuda is tested on the GPU machine).

FEATURES ?= wgpu,vulkan,opencl,cuda
ROSETTA_REQUIRE ?= cpu,wgpu,vulkan,opencl
export ROSETTA_REQUIRE
# Mesa's EGL complains on stderr when wgpu probes GL without this (set
# here also when the environment has it empty).
ifeq ($(strip $(XDG_RUNTIME_DIR)),)
XDG_RUNTIME_DIR := /tmp/rosetta-runtime-$(shell id -u)
endif
export XDG_RUNTIME_DIR

# The fuzz cases' seed (`make test FUZZ_SEED=...` for other random cases).
FUZZ_SEED ?= 20261123
# The conformance suite's random group seed (`make test RANDOM_SEED=...`
# draws other variants, shapes and values; 1 when unset, as `rosetta
# conform`).
RANDOM_SEED ?= 1
export ROSETTA_RANDOM_SEED := $(RANDOM_SEED)
CARGO ?= cargo
PYTHON ?= /usr/bin/python3
BIN := target/release/rosetta
ALL := --features cli,$(FEATURES)
EXAMPLES := select_devices device_chain user_kernel
comma := ,
SELECTORS := $(subst $(comma), ,$(ROSETTA_REQUIRE))

.PHONY: setup build run test lint conform examples package bench clean

setup:
	@scripts/setup.sh
	@mkdir -p -m 0700 $(XDG_RUNTIME_DIR)

build: setup
	$(CARGO) build --release $(ALL)

# The main job: devices, the conformance matrix (quick cases of every group)
# and a quick benchmark, written to rosetta-report/index.html and
# rosetta-report/results.json.
run: build
	$(BIN)

# fmt, clippy, no import cycles between modules, an honest rust-version,
# documentation without warnings.
lint:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --release --workspace --all-targets $(ALL) -- -D warnings
	$(PYTHON) scripts/module_cycles.py
	$(PYTHON) scripts/msrv.py
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --release --no-deps --workspace $(ALL)

# Unit and contract tests of every crate; the conformance suite on every
# required API (quick cases of every group plus the whole limits group); the
# CLI contract; the Vulkan run under the Khronos validation layer; numpy
# agreement and random shapes against numpy; every example on every required API; packaging of every crate.
test: build lint
	ROSETTA_CONFORM=ci $(CARGO) test --release --workspace $(ALL)
	ROSETTA_VULKAN_VALIDATION=1 $(BIN) conform --backend vulkan --quick --seed $(RANDOM_SEED)
	$(PYTHON) tests/numpy/agreement.py $(BIN) $(ROSETTA_REQUIRE)
	$(PYTHON) tests/numpy/fuzz.py $(BIN) $(ROSETTA_REQUIRE) --cases 40 --small --seed $(FUZZ_SEED)
	$(MAKE) --no-print-directory examples
	$(MAKE) --no-print-directory package

examples:
	$(CARGO) build --release --examples $(ALL)
	for ex in $(EXAMPLES); do target/release/examples/$$ex $(SELECTORS) || exit 1; done
	target/release/examples/npy_files

package:
	$(CARGO) package --workspace --no-verify --allow-dirty

# Every case of the suite on every device (minutes on a 2-core machine).
conform: build
	$(BIN) conform --backend all

bench: build
	$(BIN) bench --size large --json rosetta-bench.json --html rosetta-bench

clean:
	$(CARGO) clean
	rm -rf rosetta-report rosetta-bench rosetta-bench.json
