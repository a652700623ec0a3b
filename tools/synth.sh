#!/usr/bin/env bash
# yosys synth_xilinx (UltraScale+) of generated designs: fails on any latch,
# prints LUT / FF / LUTRAM / BRAM / DSP counts and the longest combinational
# path in cells between flops and ports (LUTs, MUXF7/8, CARRY8 and LUTRAM
# read ports each count one level).
# Usage: tools/synth.sh [DIR] [NAME...]
set -euo pipefail
dir=${1:-build/verilog}
shift || true
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
    for f in "$dir"/*.sv; do names+=("$(basename "$f" .sv)"); done
fi
printf '%-18s %8s %8s %7s %6s %5s %7s %6s\n' design LUT FF LUTRAM BRAM DSP levels secs
fail=0
for top in "${names[@]}"; do
    log="$dir/$top.synth.log"
    t0=$(date +%s)
    if ! yosys -q -l "$log" -p "read_verilog -sv $dir/$top.sv; synth_xilinx -family xcup -top $top -flatten; tee -o $dir/$top.stat.txt stat; delete t:FD* t:IBUF t:OBUF t:BUFG* t:DSP48E2 t:RAMB*; tee -o $dir/$top.ltp.txt ltp -noff" >/dev/null 2>&1; then
        echo "synth FAIL $top (see $log)"; tail -20 "$log" | sed 's/^/    /'; fail=1; continue
    fi
    t1=$(date +%s)
    stat="$dir/$top.stat.txt"
    cnt() { { grep -E "^\s+($1)\s+[0-9]+" "$stat" || true; } | awk '{s+=$2} END {print s+0}'; }
    lut=$(cnt 'LUT[1-6]')
    ff=$(cnt 'FD[RSCP]E')
    lutram=$(cnt 'RAM(32|64|128|256)[A-Z0-9]*')
    bram=$(cnt 'RAMB(18|36)E2')
    dsp=$(cnt 'DSP48E2')
    latches=$(cnt 'LD[CP]E|\$_DLATCH[A-Z_]*')
    inferred=$(grep -c "Latch inferred" "$log" || true)
    levels=$({ grep -oE "Longest topological path in .* \(length=[0-9]+\)" "$dir/$top.ltp.txt" || true; } | grep -oE "length=[0-9]+" | cut -d= -f2 || true)
    printf '%-18s %8s %8s %7s %6s %5s %7s %6s\n' "$top" "$lut" "$ff" "$lutram" "$bram" "$dsp" "${levels:-?}" "$((t1 - t0))"
    if [ "$latches" != 0 ] || [ "$inferred" != 0 ]; then
        echo "synth FAIL $top: latch inferred ($latches latch cells, $inferred 'Latch inferred' messages)"
        grep "Latch inferred" "$log" | head -5 | sed 's/^/    /'
        fail=1
    fi
done
exit $fail
