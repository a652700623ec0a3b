#!/usr/bin/env bash
# clippy with warnings as errors, every target of the workspace (`make check`,
# `make test`). A workspace crate compiled for a build script (rnic-hw and its
# workspace dependencies, for sim/build.rs) goes through clippy-driver, and
# cargo keeps such artifacts apart from the normal build's: compiled
# optimised, that was a second two-minute compile of rnic-hw per run, while
# all the script needs is to emit the Verilog once (docs/ci.md). So they are
# compiled unoptimised here.
set -euo pipefail
cd "$(dirname "$0")/.."
unopt=()
for p in rnic-hw hdl-emit rnic-host rnic-contract; do unopt+=(--config "profile.dev.package.$p.opt-level=0"); done
exec "${CARGO:-cargo}" clippy --workspace --all-targets "${unopt[@]}" "$@" -- -D warnings
