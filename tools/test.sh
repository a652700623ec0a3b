#!/usr/bin/env bash
# `make test`: the gates and every test, each phase timed by tools/phase.sh
# into build/phases.tsv (docs/ci.md). Stops at the first failure.
#
# The order: fmt (fast), then verilog (compiles rnic-hw, which clippy and
# the tests reuse: docs/ci.md), lint and synthesis, clippy, the test build,
# the tests. Synthesis in the background beside clippy and the test build was
# tried and measured slower (the Rust build keeps both cores busy; docs/ci.md).
set -uo pipefail
cd "$(dirname "$0")/.."
CARGO=${CARGO:-cargo}
MAKE=${MAKE:-make}
VERILOG_DIR=${VERILOG_DIR:-build/verilog}
PHASE="bash tools/phase.sh"

export RNIC_T0=$(date +%s)
mkdir -p build && : >build/phases.tsv && rm -f build/test.log

fail() {
    exit 1
}

$PHASE deps "$MAKE" --no-print-directory deps || fail
$PHASE fmt "$CARGO" fmt --all --check || fail
$PHASE verilog "$CARGO" run -q -p rnic-hw --bin rtlgen -- --out "$VERILOG_DIR" || fail
$PHASE lint bash tools/lint.sh "$VERILOG_DIR" || fail
$PHASE synth-model python3 tools/test_synth.py || fail
$PHASE synth bash tools/synth.sh "$VERILOG_DIR" || fail
$PHASE clippy "$CARGO" clippy --workspace --all-targets -- -D warnings || fail
$PHASE test-build "$CARGO" test --workspace --no-run || fail
$PHASE test-run "$CARGO" test --workspace 2>&1 | tee build/test.log
[ "${PIPESTATUS[0]}" = 0 ] || exit 1
awk '/^test result:/ {p+=$4; f+=$6} END {printf "\ncargo-test: %d passed, %d failed\n", p, f; if (p == 0) exit 1}' build/test.log || exit 1
$PHASE --report
