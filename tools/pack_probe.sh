#!/usr/bin/env bash
# How Verilator evaluates the emitter's packing of fields into a wide word.
# `ack_hold`'s FIFO word is built as an OR of `983'({Z'd0, field} << K)`
# terms (the emitter's form of `bit_cast::<W, N>(x) << K`); this script
# takes that expression from build/verilog/ack_hold.sv, writes it once as
# emitted and once with each term as a concatenation `{H'd0, field, K'd0}`,
# verilates both with a small timing loop and prints the nanoseconds per
# cycle of each (docs/ci.md, "Session 40: the packing shifts").
# Usage: tools/pack_probe.sh   (after `make verilog`; about a minute)
set -euo pipefail
src=${1:-build/verilog/ack_hold.sv}
[ -f "$src" ] || { echo "pack_probe: no $src (make verilog)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$src" "$work" <<'PY'
import re, sys
src, work = sys.argv[1], sys.argv[2]
text = open(src).read()
expr = re.search(r"word = (\(+.*?\));\n", text).group(1)
W = int(re.search(r"(\d+)'\(\{\d+'d0, \w+\} << \d+\)", expr).group(1))
fields = [(n, W - int(z)) for z, n, _ in re.findall(r"\{(\d+)'d0, (\w+)\}(?: << (\d+))?", expr)]
def concat(m):
    z, name, k = int(m.group(2)), m.group(3), int(m.group(4))
    hi = W - (W - z) - k
    return "{" + (f"{hi}'d0, " if hi else "") + f"{name}, {k}'d0" + "}"
forms = {"emitted": expr, "concat": re.sub(r"(\d+)'\(\{(\d+)'d0, (\w+)\} << (\d+)\)", concat, expr)}
ports = "\n".join(f"    input logic [{w - 1}:0] {n}," for n, w in fields)
for form, e in forms.items():
    open(f"{work}/top_{form}.sv", "w").write(
        f"module top_{form}(\n    input logic clock,\n{ports}\n    output logic [{W - 1}:0] q\n);\n"
        f"  logic [{W - 1}:0] word;\n  always_comb word = {e};\n"
        f"  always_ff @(posedge clock) q <= word;\nendmodule\n")
    # (inputs masked to their width: Verilator leaves bits above a port's width undefined)
    mask = lambda w: (1 << w) - 1
    inputs = "".join(f"    m->{n} = (x >> {i % 7}) & {mask(w):#x}ull;\n" if w <= 64
                     else f"    m->{n}[i % {(w + 31) // 32}] = (uint32_t)x;\n"
                     for i, (n, w) in enumerate(fields))
    open(f"{work}/main_{form}.cpp", "w").write(f"""#include <chrono>
#include <cstdio>
#include "Vtop_{form}.h"
int main() {{
  auto* m = new Vtop_{form};
  unsigned long long x = 1, acc = 0;
  const long N = 1000000;
  auto t = std::chrono::steady_clock::now();
  for (long i = 0; i < N; i++) {{
    x ^= x << 13; x ^= x >> 7; x ^= x << 17;
{inputs}    m->clock = 1; m->eval(); m->clock = 0; m->eval();
    acc += m->q[i % {(W + 31) // 32}];
  }}
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  printf("%-8s %8.1f ns per cycle (check %llu)\\n", "{form}", s * 1e9 / N, acc);
}}
""")
PY
for form in emitted concat; do
    verilator --cc --exe --build -O3 -Wno-fatal -Wno-WIDTH --top-module "top_$form" \
        "$work/top_$form.sv" "$work/main_$form.cpp" -CFLAGS -O2 -Mdir "$work/obj_$form" >/dev/null
    "$work/obj_$form/Vtop_$form"
done
