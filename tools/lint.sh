#!/usr/bin/env bash
# Verilator -Wall lint of every generated design. Only DECLFILENAME and the
# UNUSED* family are waived; WIDTH* and LATCH are errors.
set -euo pipefail
dir=${1:-build/verilog}
fail=0
n=0
for f in "$dir"/*.sv; do
    top=$(basename "$f" .sv)
    n=$((n + 1))
    if verilator --lint-only -Wall -Wno-DECLFILENAME -Wno-UNUSED --top-module "$top" "$f" >"$dir/$top.lint.log" 2>&1; then
        echo "lint ok    $top"
    else
        echo "lint FAIL  $top"
        sed 's/^/    /' "$dir/$top.lint.log" | head -40
        fail=1
    fi
done
[ "$n" -gt 0 ] || { echo "lint: no designs in $dir"; exit 1; }
exit $fail
