# The RNIC build. `make demo` and `make test` install what they need first.
SHELL := /bin/bash
CARGO ?= cargo
VERILOG_DIR := build/verilog

.PHONY: all deps verilog lint synth synth-doc check test msrv demo bench soak replay txgen gbn interop docs bitstream clean

all: test

deps:
	@command -v $(CARGO) >/dev/null || { echo "error: cargo (Rust toolchain) is required"; exit 1; }
	@bash tools/deps.sh

## Emit every catalog block as SystemVerilog into build/verilog/
verilog: deps
	$(CARGO) run -q -p rnic-hw --bin rtlgen -- --out $(VERILOG_DIR)

## verilator -Wall on every generated design (WIDTH and LATCH are errors);
## cached by each design's Verilog hash in build/cache/lint
lint: verilog
	bash tools/lint.sh $(VERILOG_DIR)

## yosys synth_xilinx -family xcup per design: LUT, LUTRAM/SRL as LUT-equivalents,
## FF, BRAM/URAM, DSP and the weighted levels between registers (a timing analysis
## of the netlist, docs/timing_model.md; paths in build/verilog/<name>.timing.txt).
## Fails on latches and on any budget of tools/budgets.toml (issue 9) that a design
## exceeds without a waiver there. Cached by each design's Verilog hash in
## build/cache/synth and by docs/synth.json (the record `make synth-doc` writes);
## a parent reuses its children's figures. SYNTH="name ..." restricts it to some
## designs; tools/synth.py --markdown prints the docs/synth.md table.
synth: verilog
	python3 tools/test_synth.py
	bash tools/synth.sh $(VERILOG_DIR) $(SYNTH)

## Every design synthesized as `make synth` does, its table written into
## docs/synth.md and its figures into docs/synth.json, which `make test` checks
## against the Verilog (docs/ci.md, "The synthesis record")
synth-doc: verilog
	python3 tools/synth.py --doc=docs/synth.md $(VERILOG_DIR)

## Style gates: rustfmt (rustfmt.toml) and clippy with warnings as errors, every target
check:
	$(CARGO) fmt --all --check
	CARGO=$(CARGO) bash tools/clippy.sh

## The workspace at its declared minimum Rust (rust-version in Cargo.toml); needs rustup
MSRV := $(shell sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
msrv:
	rustup toolchain install $(MSRV) --profile minimal
	$(CARGO) +$(MSRV) check --workspace --all-targets --target-dir build/msrv

## The emitted core, its Verilator model and a smoke simulation; then
## write_bw and read_bw between two simulated NICs with perftest's tables,
## the run's pcap and a bandwidth plot in build/demo (rnic_perf::demo)
demo: deps
	$(CARGO) run -q -p rnic-tb --bin demo
	$(CARGO) run -q -p rnic-perf --bin rnic-demo -- build/demo

## Style, lint and synthesis gates, then every Rust test (unit, property,
## differential, testbenches); each phase timed (build/phases.tsv, docs/ci.md; tools/test.sh)
test:
	@MAKE="$(MAKE)" CARGO="$(CARGO)" VERILOG_DIR="$(VERILOG_DIR)" bash tools/test.sh

## A capture through the Verilated receive parser: one JSON line per frame
replay: deps
	@test -n "$(PCAP)" || { echo "usage: make replay PCAP=capture.pcap"; exit 1; }
	$(CARGO) run -q -p rnic-tb --bin replay -- "$(abspath $(PCAP))"

## Packets described one per line (docs/examples/all_opcodes.txt) through the Verilated transmit builder into a pcap
txgen: deps
	@test -n "$(DESC)" -a -n "$(OUT)" || { echo "usage: make txgen DESC=packets.txt OUT=frames.pcap"; exit 1; }
	$(CARGO) run -q -p rnic-tb --bin txgen -- "$(abspath $(DESC))" "$(abspath $(OUT))"

## The go-back-N invariants of issue 12 over a capture of RC traffic between two endpoints
## (connections inferred; exit 1 at the first violation): make gbn PCAP=capture.pcap
gbn: deps
	@test -n "$(PCAP)" || { echo "usage: make gbn PCAP=capture.pcap"; exit 1; }
	$(CARGO) run -q -p rnic-tb --bin gbn_check -- "$(abspath $(PCAP))"

## Issue 14: the simulated NIC (rnic-perf, rnic-verify, rnic-pingpong through
## the driver, its wire a socket) against Linux rxe in a QEMU guest,
## perftest's tools and ibv_rc_pingpong both ways;
## the guest is built once into build/interop (needs root and the package
## registries); the capture checked by tshark, scapy's ICRC and gbn_check.
## CASES=file and ONLY=substring pick cases (docs/interop.md). The build is
## make test's own, so after it nothing is compiled again
## (CARGO_INCREMENTAL as make test sets it under CI, from .ci/run)
interop: deps
	$(CARGO) build -q --workspace --lib --bins --tests --examples
	bash tools/interop/run.sh $(or $(CASES),tools/interop/cases.txt) $(ONLY)
	bash tools/interop/check.sh build/interop/run

## Every benchmark (or SECTIONS="harness dma cache nic loss"); figures are recorded in docs/benchmarks.md
bench: deps
	$(CARGO) run -q --release -p rnic-tb --bin bench -- $(SECTIONS)

## The long runs of issue 12: RNIC_SOAK_MSGS random messages (default 10^7) between two
## simulated NICs over a lossy and faulty wire, in rounds of 10^4, each round's figures printed;
## then RNIC_SOAK_PACKETS random and mutated packets (default 10^6) into one NIC
soak: deps
	$(CARGO) test -q --release -p rnic-tb --test two_nics soak -- --ignored --nocapture
	$(CARGO) test -q --release -p rnic-tb --test bad_packets soak -- --ignored --nocapture

## An Alveo board image: BOARD=au200|au250|au280 (docs/boards.md). Vivado non-project
## flow (firmware/common/build.tcl): IP, synthesis, place, route, timing and utilization
## reports, bitstream in build/boards/$(BOARD)/; fails on negative slack. Without
## vivado on PATH it says what is missing and fails.
BOARD ?= au250
bitstream:
	@CARGO="$(CARGO)" bash tools/bitstream.sh $(BOARD) $(VERILOG_DIR)

## Regenerate docs/regmap.md from the contract crate (a test fails when it is stale)
docs:
	$(CARGO) run -q -p rnic-contract --bin regmap-doc -- docs/regmap.md

clean:
	rm -rf build
	$(CARGO) clean
