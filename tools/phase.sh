#!/usr/bin/env bash
# Times one phase of `make test`: tools/phase.sh NAME CMD... runs CMD, appends
# "NAME<TAB>seconds<TAB>status" to build/phases.tsv (even when CMD fails) and
# exits with CMD's status (printing the table so far when it failed). tools/phase.sh --report prints the table, with the
# slowest test binaries from build/test.log.
set -uo pipefail
out=${RNIC_PHASES:-build/phases.tsv}
if [ "${1:-}" = --report ]; then
    [ -f "$out" ] || exit 0
    echo
    echo "phase          seconds  status"
    awk -F'\t' '{printf "%-14s %7d  %s\n", $1, $2, $3; t += $2} END {printf "%-14s %7d\n", "total", t}' "$out"
    if [ -n "${RNIC_T0:-}" ]; then printf '%-14s %7d\n' "wall" "$(($(date +%s) - RNIC_T0))"; fi
    if [ -f build/test.log ]; then
        echo
        if grep -q ' Summary \[' build/test.log; then
            echo "slowest tests (seconds, from build/test.log):"
            awk '$1 == "PASS" || $1 == "FAIL" {s = $0; sub(/^[^[]*\[ */, "", s); sub(/s\].*/, "", s); printf "%8.2f  %s %s\n", s, $(NF - 1), $NF}' build/test.log |
                sort -rn | head -10
        else
            echo "slowest test binaries (seconds of run time, from build/test.log):"
            awk '/^ *Running / {name = $NF; gsub(/^\(|\)$/, "", name); sub(/.*\//, "", name); sub(/-[0-9a-f]+$/, "", name); name = name " (" $2 ")"}
                 /^ *Doc-tests / {name = "doc-tests " $2}
                 /^test result:/ {for (i = 1; i <= NF; i++) if ($i == "in") {s = $(i + 1); sub(/s$/, "", s); printf "%8.2f  %s\n", s, name}}' build/test.log |
                sort -rn | head -10
        fi
    fi
    exit 0
fi
name=$1
shift
mkdir -p "$(dirname "$out")"
t0=$(date +%s)
"$@"
rc=$?
printf '%s\t%d\t%s\n' "$name" "$(($(date +%s) - t0))" "$([ $rc = 0 ] && echo ok || echo "FAILED ($rc)")" >>"$out"
if [ $rc != 0 ]; then
    echo "make test: phase $name failed" >&2
    bash "$0" --report
fi
exit $rc
