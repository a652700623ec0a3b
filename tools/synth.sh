#!/usr/bin/env bash
# yosys synth_xilinx (UltraScale+) of generated designs, two at a time: fails
# on any latch; prints LUT / FF / LUTRAM / BRAM / DSP counts and the longest
# combinational path in cells between flops and ports (LUTs, MUXF7/8,
# CARRY8 and LUTRAM read ports each count one level).
# Usage: tools/synth.sh [DIR] [NAME...]   (SYNTH_JOBS=n for parallelism)
set -euo pipefail
dir=${1:-build/verilog}
shift || true
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    for f in "$dir"/*.sv; do names+=("$(basename "$f" .sv)"); done
fi

one() { # synthesise one design; writes $dir/$top.row and exits non-zero on failure
    local dir=$1 top=$2 log="$1/$2.synth.log" t0 t1
    t0=$(date +%s)
    if ! yosys -q -l "$log" -p "read_verilog -sv $dir/$top.sv; synth_xilinx -family xcup -top $top -flatten; tee -o $dir/$top.stat.txt stat; delete t:FD* t:IBUF t:OBUF t:BUFG* t:DSP48E2 t:RAM*; tee -o $dir/$top.ltp.txt ltp -noff" >/dev/null 2>&1; then
        { echo "synth FAIL $top (see $log)"; tail -20 "$log" | sed 's/^/    /'; } > "$dir/$top.row"
        return 1
    fi
    t1=$(date +%s)
    local stat="$dir/$top.stat.txt"
    cnt() { { grep -E "^\s+($1)\s+[0-9]+" "$stat" || true; } | awk '{s+=$2} END {print s+0}'; }
    local lut ff lutram bram dsp latches inferred levels
    lut=$(cnt 'LUT[1-6]')
    ff=$(cnt 'FD[RSCP]E')
    lutram=$(cnt 'RAM(32|64|128|256)[A-Z0-9]*')
    bram=$(cnt 'RAMB(18|36)E2')
    dsp=$(cnt 'DSP48E2')
    latches=$(cnt 'LD[CP]E|\$_DLATCH[A-Z_]*')
    inferred=$(grep -c "Latch inferred" "$log" || true)
    levels=$({ grep -oE "Longest topological path in .* \(length=[0-9]+\)" "$dir/$top.ltp.txt" || true; } | grep -oE "length=[0-9]+" | cut -d= -f2 || true)
    printf '%-18s %8s %8s %7s %6s %5s %7s %6s\n' "$top" "$lut" "$ff" "$lutram" "$bram" "$dsp" "${levels:-?}" "$((t1 - t0))" > "$dir/$top.row"
    if [ "$latches" != 0 ] || [ "$inferred" != 0 ]; then
        { echo "synth FAIL $top: latch inferred ($latches latch cells, $inferred 'Latch inferred' messages)"; grep "Latch inferred" "$log" | head -5 | sed 's/^/    /'; } >> "$dir/$top.row"
        return 1
    fi
}
export -f one

status=0
printf '%s\n' "${names[@]}" | xargs -P "${SYNTH_JOBS:-2}" -I{} bash -c 'one "$0" "$1"' "$dir" {} || status=1
printf '%-18s %8s %8s %7s %6s %5s %7s %6s\n' design LUT FF LUTRAM BRAM DSP levels secs
for top in "${names[@]}"; do
    cat "$dir/$top.row" 2>/dev/null || { echo "synth FAIL $top (no result)"; status=1; }
done
exit $status
