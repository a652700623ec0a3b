#!/usr/bin/env bash
# `make test`: the gates and every test, each phase timed by tools/phase.sh
# into build/phases.tsv (docs/ci.md). Stops at the first failure.
#
# Synthesis runs beside the Rust build: yosys needs only the emitted Verilog,
# and a cargo build leaves a core idle for long stretches (one large crate
# compiling, linking), so `synth-model` and `synth` start in the background
# (niced, so the build's critical path keeps its core) once `verilog` and
# `lint` are done, while `clippy` and `test-build` run in front. Their output
# goes to build/synth.log and is printed when they are waited for, before
# `test-run`. A failure on either side fails the run; the other side is
# stopped.
set -uo pipefail
cd "$(dirname "$0")/.."
CARGO=${CARGO:-cargo}
MAKE=${MAKE:-make}
VERILOG_DIR=${VERILOG_DIR:-build/verilog}
PHASE="bash tools/phase.sh"

export RNIC_T0=$(date +%s)
mkdir -p build && : >build/phases.tsv && rm -f build/test.log build/synth.log

bg=
stop_bg() {
    if [ -n "$bg" ] && kill -0 "$bg" 2>/dev/null; then
        kill -- -"$bg" 2>/dev/null || kill "$bg" 2>/dev/null
        wait "$bg" 2>/dev/null
    fi
}
trap stop_bg EXIT
fail() {
    stop_bg
    bg=
    exit 1
}

$PHASE deps "$MAKE" --no-print-directory deps || fail
$PHASE fmt "$CARGO" fmt --all --check || fail
$PHASE verilog "$CARGO" run -q -p rnic-hw --bin rtlgen -- --out "$VERILOG_DIR" || fail
$PHASE lint bash tools/lint.sh "$VERILOG_DIR" || fail

# the background side, in its own process group so a failure here can stop it whole
set -m
(
    nice -n 10 $PHASE synth-model python3 tools/test_synth.py &&
        nice -n 10 $PHASE synth bash tools/synth.sh "$VERILOG_DIR"
) >build/synth.log 2>&1 &
bg=$!
set +m

$PHASE clippy "$CARGO" clippy --workspace --all-targets -- -D warnings || fail
$PHASE test-build "$CARGO" test --workspace --no-run || fail

t0=$(date +%s)
wait "$bg"
rc=$?
bg=
cat build/synth.log
printf 'synth-wait\t%d\t%s\n' "$(($(date +%s) - t0))" "$([ $rc = 0 ] && echo ok || echo "FAILED ($rc)")" >>build/phases.tsv
if [ $rc != 0 ]; then
    echo "make test: synthesis failed (build/synth.log)" >&2
    $PHASE --report
    exit 1
fi

$PHASE test-run "$CARGO" test --workspace 2>&1 | tee build/test.log
[ "${PIPESTATUS[0]}" = 0 ] || exit 1
awk '/^test result:/ {p+=$4; f+=$6} END {printf "\ncargo-test: %d passed, %d failed\n", p, f; if (p == 0) exit 1}' build/test.log || exit 1
$PHASE --report
