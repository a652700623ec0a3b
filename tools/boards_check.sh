#!/usr/bin/env bash
# Elaborates every Alveo board top (firmware/<layout>/<layout>_top.sv, the layout from firmware/boards.txt) with the
# emitted rnic_core and the behavioural stubs of the vendor IP
# (firmware/stubs/), without Vivado (issue 15, item 4), and checks the
# board's constraints against the top's ports:
#   1. verilator --lint-only -Wall (the project's lint waivers): a port name
#      that does not exist (PINNOTFOUND), a port left out (PINMISSING), a
#      width mismatch (WIDTH) all fail;
#   2. yosys: read_verilog -sv; hierarchy -check -top <layout>_top; proc;
#      check -assert (missing modules or ports, multiple drivers, loops);
#   3. constraints/<layout>.xdc: every port named in an active line is a port
#      (bit) of the top, and every bit of every top port has a PACKAGE_PIN.
# The core enters as a shell: its emitted port list with no body (the core
# itself is linted and synthesized in its own phases; elaborating its
# 90k-LUT body again per board took three minutes and checked nothing the
# board glue adds).
# Then (--self-test, run by `make test`) it shows that it can fail: a copy
# with one port name broken in the board glue, one in an XDC, must be refused
# by the check that should catch it; and the bitstream flow's timing gate
# (firmware/common/timing.tcl) must pass a met and refuse a failed sample
# report (tclsh).
# Usage: tools/boards_check.sh [VERILOG_DIR] [--self-test] [BOARD...]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build/verilog
if [ $# -gt 0 ] && [ "${1#--}" = "$1" ] && [ -d "$1" ]; then dir=$1; shift; fi
self_test=0
if [ "${1:-}" = --self-test ]; then self_test=1; shift; fi
boards=("$@")
# every board of the table (firmware/boards.txt: board, part, layout)
[ ${#boards[@]} -gt 0 ] || mapfile -t boards < <(awk '$1 !~ /^#/ && NF == 3 {print $1}' firmware/boards.txt)
layout_of() { awk -v b="$1" '$1 !~ /^#/ && $1 == b {print $3}' firmware/boards.txt; }
core=$dir/rnic_core.sv
[ -f "$core" ] || { echo "boards: no $core (emit it: rtlgen --out $dir rnic_core)"; exit 1; }
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
# the core's shell: `module rnic_core (` ... `);` from the emitted file, then endmodule
shell=$log/rnic_core_shell.sv
{
    echo '/* verilator lint_off UNDRIVEN */'
    echo '(* blackbox *)'
    awk '/^module rnic_core \(/ {p = 1} p {print} p && /^\);/ {exit}' "$core"
    echo 'endmodule'
    echo '/* verilator lint_on UNDRIVEN */'
} >"$shell"
grep -q '^module rnic_core (' "$shell" && grep -q '^);' "$shell" || { echo "boards: no rnic_core port list in $core"; exit 1; }
core=$shell

# check ROOT BOARD [quiet]: 0 when the board elaborates and its XDC matches
check() {
    local root=$1 b=$2 l
    l=$(layout_of "$b")
    [ -n "$l" ] || { echo "boards FAIL $b: not in firmware/boards.txt"; return 1; }
    local top=${l}_top
    local files=("$root"/firmware/stubs/*.sv "$root"/firmware/common/*.sv "$root/firmware/$l/$top.sv" "$core")
    if ! verilator --lint-only -Wall -Wno-DECLFILENAME -Wno-UNUSED --top-module "$top" "${files[@]}" >"$log/$b.lint" 2>&1; then
        echo "boards FAIL $b: verilator"; sed 's/^/    /' "$log/$b.lint" | head -20; return 1
    fi
    if ! yosys -q -p "read_verilog -sv ${files[*]}; hierarchy -check -top $top; proc; check -assert; tee -q -o $log/$b.ports portlist $top" >"$log/$b.yosys" 2>&1; then
        echo "boards FAIL $b: yosys"; sed 's/^/    /' "$log/$b.yosys" | head -20; return 1
    fi
    if ! python3 - "$log/$b.ports" "$root/constraints/$l.xdc" <<'PY'
import re, sys
ports, xdc = sys.argv[1], sys.argv[2]
bits = {}
for line in open(ports):
    m = re.match(r"(input|output|inout) \[(\d+):(\d+)\] (\S+)", line)
    if m:
        hi, lo, name = int(m[2]), int(m[3]), m[4]
        bits[name] = set(range(lo, hi + 1))
named, pinned, bad = set(), set(), []
for n, line in enumerate(open(xdc), 1):
    line = line.split("#", 1)[0] if line.lstrip().startswith("#") else line.split(";#", 1)[0]
    for group in re.findall(r"get_ports\s+(\{[^}]*\}|\S+)", line):
        group = group[1:-1] if group.startswith("{") else group.removesuffix("]")
        for p in group.split():
            m = re.fullmatch(r"([A-Za-z_]\w*)(?:\[(\d+|\*)\])?", p)
            if not m or m[1] not in bits:
                bad.append(f"{xdc}:{n}: {p} is not a port of the top"); continue
            if m[2] == "*":
                idx = bits[m[1]]
            elif m[2] is None:
                idx = bits[m[1]] if len(bits[m[1]]) == 1 else None
            else:
                idx = {int(m[2])}
            if idx is None:
                bad.append(f"{xdc}:{n}: {p} names a bus without an index"); continue
            if not idx <= bits[m[1]]:
                bad.append(f"{xdc}:{n}: {p} is outside {m[1]}"); continue
            named |= {(m[1], i) for i in idx}
            if "PACKAGE_PIN" in line:
                pinned |= {(m[1], i) for i in idx}
for name, bs in sorted(bits.items()):
    for i in sorted(bs):
        if (name, i) not in pinned:
            bad.append(f"{xdc}: {name}[{i}] has no PACKAGE_PIN")
for b in bad[:20]:
    print("    " + b)
sys.exit(1 if bad else 0)
PY
    then echo "boards FAIL $b: constraints/$l.xdc does not match ${top}'s ports"; return 1; fi
    return 0
}

fail=0
for b in "${boards[@]}"; do
    if check . "$b"; then echo "boards ok   $b"; else fail=1; fi
done
[ $fail = 0 ] || exit 1

if [ $self_test = 1 ]; then
    # a broken port map must fail: rename one port connection of the core and one XDC port
    b=${boards[0]}
    copy=$log/mutant
    mkdir -p "$copy" && cp -r firmware constraints "$copy"/
    sed -i 's/\.m_axis_tx_tready(core_tx_tready)/.m_axis_tx_ready(core_tx_tready)/' "$copy/firmware/common/rnic_board.sv"
    grep -q 'm_axis_tx_ready(' "$copy/firmware/common/rnic_board.sv" || { echo "boards self-test: mutation did not apply"; exit 1; }
    if check "$copy" "$b" >"$log/mutant1" 2>&1; then echo "boards self-test FAIL: a wrong core port name elaborated"; exit 1; fi
    grep -q "boards FAIL $b: verilator" "$log/mutant1" || { echo "boards self-test FAIL: not caught by verilator"; cat "$log/mutant1"; exit 1; }
    cp firmware/common/rnic_board.sv "$copy/firmware/common/rnic_board.sv"
    sed -i 's/get_ports pcie_perst_n\]/get_ports pcie_perst_l]/' "$copy/constraints/$(layout_of "$b").xdc"
    if check "$copy" "$b" >"$log/mutant2" 2>&1; then echo "boards self-test FAIL: a wrong XDC port name passed"; exit 1; fi
    grep -q "pcie_perst_l is not a port" "$log/mutant2" || { echo "boards self-test FAIL: XDC mutation not reported"; cat "$log/mutant2"; exit 1; }
    echo "boards ok   self-test (a wrong core port name and a wrong XDC port name are both refused)"
    # the bitstream flow's timing gate (firmware/common/timing.tcl) on sample reports
    command -v tclsh >/dev/null || { echo "boards FAIL: no tclsh (tools/deps.sh installs tcl8.6)"; exit 1; }
    tclsh firmware/common/test/timing_check_test.tcl
fi
