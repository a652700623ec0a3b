#!/usr/bin/env bash
# Verilator -Wall lint of every generated design. Only DECLFILENAME and the
# UNUSED* family are waived; WIDTH* and LATCH are errors.
#
# Results are cached in build/cache/lint/, keyed by the sha256 of the design's
# Verilog, `verilator --version`, the flags and this script: an unchanged
# design is not linted again; its cached verdict and log are printed and
# enforced as if it had just run (a cached failure still fails).
# Usage: tools/lint.sh [DIR] [NAME...]   (RNIC_NO_CACHE=1 to ignore the cache)
set -euo pipefail
dir=${1:-build/verilog}
shift || true
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    for f in "$dir"/*.sv; do [ -e "$f" ] && names+=("$(basename "$f" .sv)"); done
fi
[ ${#names[@]} -gt 0 ] || { echo "lint: no designs in $dir"; exit 1; }

here=$(cd "$(dirname "$0")" && pwd)
cache=${RNIC_CACHE_DIR:-build/cache}/lint
mkdir -p "$cache"
flags=(--lint-only -Wall -Wno-DECLFILENAME -Wno-UNUSED)
tool=$(verilator --version)
script=$(sha256sum "$here/lint.sh" | cut -d' ' -f1)

fail=0 fresh=0 cached=0
for top in "${names[@]}"; do
    f="$dir/$top.sv"
    [ -f "$f" ] || { echo "lint FAIL  $top (no $f)"; fail=1; continue; }
    key=$({ sha256sum <"$f"; echo "$tool"; echo "${flags[*]} --top-module $top"; echo "$script"; } | sha256sum | cut -d' ' -f1)
    entry="$cache/$key"
    if [ "${RNIC_NO_CACHE:-0}" != 1 ] && [ -f "$entry.status" ] && [ -f "$entry.log" ]; then
        status=$(cat "$entry.status")
        cp "$entry.log" "$dir/$top.lint.log"
        note=" (cached)"
        cached=$((cached + 1))
    else
        if verilator "${flags[@]}" --top-module "$top" "$f" >"$dir/$top.lint.log" 2>&1; then status=ok; else status=FAIL; fi
        cp "$dir/$top.lint.log" "$entry.log.tmp" && mv "$entry.log.tmp" "$entry.log"
        echo "$status" >"$entry.status"
        note=""
        fresh=$((fresh + 1))
    fi
    if [ "$status" = ok ]; then
        echo "lint ok    $top$note"
    else
        echo "lint FAIL  $top$note"
        sed 's/^/    /' "$dir/$top.lint.log" | head -40
        fail=1
    fi
done
echo "lint: ${#names[@]} designs, $fresh linted, $cached from the cache ($cache)"
exit $fail
