#!/usr/bin/env bash
# yosys synth_xilinx (UltraScale+) of generated designs: resources in
# LUT-equivalents, weighted logic levels (docs/timing_model.md), the budgets
# of tools/budgets.toml; fails on latches and on a budget exceeded without a
# waiver. Cached by Verilog hash, parents reuse their children's figures.
# See tools/synth.py for what it does and why.
# Usage: tools/synth.sh [DIR] [NAME...]   (SYNTH_JOBS=n for parallelism)
set -euo pipefail
exec python3 "$(dirname "$0")/synth.py" "${1:-build/verilog}" "${@:2}"
