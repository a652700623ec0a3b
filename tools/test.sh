#!/usr/bin/env bash
# `make test`: the gates and every test, each phase timed by tools/phase.sh
# into build/phases.tsv (docs/ci.md). Stops at the first failure.
#
# The order (docs/ci.md, "One compile of everything"): fmt (fast); build,
# which compiles every crate, test and binary once with the workspace's
# features and verilates every model; verilog, which runs the rtlgen binary
# that build made (`cargo run -p rnic-hw` would resolve rnic-hw's features
# alone and compile it again); lint and synthesis; clippy, whose build
# scripts' workspace dependencies are compiled through clippy-driver anyway
# (never shared with the build), so unoptimised; the tests, with nothing left
# to compile. Synthesis in the background beside the Rust build was tried and
# measured slower (the Rust build keeps both cores busy; docs/ci.md).
set -uo pipefail
cd "$(dirname "$0")/.."
CARGO=${CARGO:-cargo}
MAKE=${MAKE:-make}
VERILOG_DIR=${VERILOG_DIR:-build/verilog}
PHASE="bash tools/phase.sh"

export RNIC_T0=$(date +%s)
# On a fresh clone (CI) incremental compilation's caches only cost disk:
# about 2 GB of target/debug/incremental that nothing reuses (a CI machine
# ran out of space in clippy with them; docs/ci.md).
if [ -n "${CI:-}" ]; then export CARGO_INCREMENTAL=0; fi
mkdir -p build && : >build/phases.tsv && rm -f build/test.log

fail() {
    exit 1
}

$PHASE deps "$MAKE" --no-print-directory deps || fail
$PHASE fmt "$CARGO" fmt --all --check || fail
$PHASE build "$CARGO" build --workspace --lib --bins --tests --examples || fail
TARGET_DIR=$("$CARGO" metadata --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
$PHASE verilog "$TARGET_DIR/debug/rtlgen" --out "$VERILOG_DIR" || fail
$PHASE lint bash tools/lint.sh "$VERILOG_DIR" || fail
$PHASE boards bash tools/boards_check.sh "$VERILOG_DIR" --self-test || fail
$PHASE synth-model python3 tools/test_synth.py || fail
# every design's figures from docs/synth.json where its keys match; a design
# that changed is synthesized, and the record being stale fails the phase
$PHASE synth env RNIC_SYNTH_CHECK_RECORD=1 bash tools/synth.sh "$VERILOG_DIR" || fail
$PHASE clippy bash tools/clippy.sh || fail
# The tests: with cargo-nextest (on every machine of this kind; docs/ci.md)
# every test is a process and both cores stay busy across test binaries,
# slowest first (.config/nextest.toml); then the doc-tests, which nextest
# does not run. Without nextest, `cargo test` runs the binaries one by one.
if "$CARGO" nextest --version >/dev/null 2>&1; then
    $PHASE test-run bash -c '"$0" nextest run --workspace --no-fail-fast && "$0" test --workspace --doc' "$CARGO" 2>&1 | tee build/test.log
else
    $PHASE test-run "$CARGO" test --workspace 2>&1 | tee build/test.log
fi
[ "${PIPESTATUS[0]}" = 0 ] || exit 1
awk '/^test result:/ {p+=$4; f+=$6}
     / Summary \[/ {for (i = 1; i <= NF; i++) {if ($i ~ /^passed/) p += $(i - 1); if ($i ~ /^failed/) f += $(i - 1)}}
     END {printf "\ncargo-test: %d passed, %d failed\n", p, f; if (p == 0 || f > 0) exit 1}' build/test.log || exit 1
$PHASE --report
