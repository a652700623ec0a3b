#!/usr/bin/env bash
# `make bitstream BOARD=au250`: one Alveo board image with Vivado in
# non-project mode (firmware/common/build.tcl). Output in build/boards/BOARD/:
# the bitstream, checkpoints, timing summary, utilization, DRC, vivado.log.
# Without `vivado` on PATH it says what is missing and exits 1 before
# building anything. Before Vivado runs, the core is emitted and the board
# top is elaborated against the stubs (tools/boards_check.sh), so a broken
# port map fails in seconds rather than after synthesis.
# Usage: tools/bitstream.sh BOARD [VERILOG_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
board=${1:-}
BOARD_UC=$(echo "$board" | tr a-z A-Z)
vdir=${2:-build/verilog}
# the board table (board, part, layout): firmware/boards.txt
row=$(awk -v b="$board" '$1 !~ /^#/ && $1 == b' firmware/boards.txt)
if [ -z "$board" ] || [ -z "$row" ]; then
    echo "bitstream: BOARD must be one of $(awk '$1 !~ /^#/ {printf "%s ", $1}' firmware/boards.txt)(got '${board}'); e.g. make bitstream BOARD=au250" >&2
    exit 2
fi
part=$(echo "$row" | awk '{print $2}')
if ! command -v vivado >/dev/null 2>&1; then
    cat >&2 <<MSG
bitstream: vivado is not on PATH, so no $board image can be built here.
  Needed: AMD Vivado (ML Standard or Enterprise), with
    - the device support for the Alveo ${BOARD_UC#A} part ($part),
    - the IP cores xdma (DMA/Bridge Subsystem for PCIe, part of Vivado) and
      cmac_usplus (UltraScale+ 100G Ethernet Subsystem, a no-charge licence from AMD),
  then e.g. 'source /tools/Xilinx/Vivado/<version>/settings64.sh' and run again.
  What can be checked without Vivado: bash tools/boards_check.sh (the board tops
  elaborate with stubs of the IP under Verilator and yosys; also part of make test).
MSG
    exit 1
fi
out=build/boards/$board
mkdir -p "$out"
echo "bitstream: emitting rnic_core into $vdir"
${CARGO:-cargo} run -q -p rnic-hw --bin rtlgen -- --out "$vdir" rnic_core
bash tools/boards_check.sh "$vdir" "$board"
echo "bitstream: vivado (log in $out/vivado.log); this takes hours"
vivado -mode batch -nojournal -log "$out/vivado.log" \
    -source firmware/common/build.tcl -tclargs "$board" "$vdir" "$out"
echo "bitstream: $out/${board}_rnic.bit (timing summary $out/timing_summary.rpt, utilization $out/utilization.rpt)"
