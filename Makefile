# The RNIC build. `make demo` and `make test` install what they need first.
SHELL := /bin/bash
CARGO ?= cargo
VERILOG_DIR := build/verilog

.PHONY: all deps verilog lint synth test demo bench replay txgen docs clean

all: test

deps:
	@command -v $(CARGO) >/dev/null || { echo "error: cargo (Rust toolchain) is required"; exit 1; }
	@bash tools/deps.sh

## Emit every catalog block as SystemVerilog into build/verilog/
verilog: deps
	$(CARGO) run -q -p rnic-hw --bin rtlgen -- --out $(VERILOG_DIR)

## verilator -Wall on every generated design (WIDTH and LATCH are errors)
lint: verilog
	bash tools/lint.sh $(VERILOG_DIR)

## yosys synth_xilinx -family xcup: resources and logic depth; fails on latches.
## SYNTH="name ..." restricts it to some designs.
synth: verilog
	bash tools/synth.sh $(VERILOG_DIR) $(SYNTH)

## The emitted core, its Verilator model and a smoke simulation
demo: deps
	$(CARGO) run -q -p rnic-tb --bin demo

## Lint and synthesis gates, then every Rust test (unit, property, differential, testbenches)
test: deps
	$(MAKE) --no-print-directory lint
	$(MAKE) --no-print-directory synth
	@mkdir -p build
	set -o pipefail; $(CARGO) test --workspace 2>&1 | tee build/test.log
	@awk '/^test result:/ {p+=$$4; f+=$$6} END {printf "\ncargo-test: %d passed, %d failed\n", p, f; if (p == 0) exit 1}' build/test.log

## A capture through the Verilated receive parser: one JSON line per frame
replay: deps
	@test -n "$(PCAP)" || { echo "usage: make replay PCAP=capture.pcap"; exit 1; }
	$(CARGO) run -q -p rnic-tb --bin replay -- "$(abspath $(PCAP))"

## Packets described one per line (docs/examples/all_opcodes.txt) through the Verilated transmit builder into a pcap
txgen: deps
	@test -n "$(DESC)" -a -n "$(OUT)" || { echo "usage: make txgen DESC=packets.txt OUT=frames.pcap"; exit 1; }
	$(CARGO) run -q -p rnic-tb --bin txgen -- "$(abspath $(DESC))" "$(abspath $(OUT))"

## Every benchmark; figures are recorded in docs/benchmarks.md
bench: deps
	$(CARGO) run -q --release -p rnic-tb --bin bench

## Regenerate docs/regmap.md from the contract crate (a test fails when it is stale)
docs:
	$(CARGO) run -q -p rnic-contract --bin regmap-doc -- docs/regmap.md

clean:
	rm -rf build
	$(CARGO) clean
