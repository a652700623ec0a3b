#!/usr/bin/env python3
"""Before/after table of issue 9 for docs/synth.md, from the docs' own
"before" tables (commit fa81721, measured with this model) and the current
`tools/synth.py --markdown` output.

Usage: tools/before_after.py DIR   (prints markdown; DIR = build/verilog)
"""
import pathlib
import subprocess
import sys

DOC = pathlib.Path(__file__).resolve().parent.parent / "docs" / "synth.md"
# the blocks a whole core is made of (rnic_core is still a loopback): the sum
# is what the core will cost once they are joined
CORE = ["rx_parse", "tx_build", "host_if", "mac_rx_fifo", "mac_tx_fifo"]


def table(lines, header_start):
    """Rows of the first markdown table whose header begins with `header_start`."""
    rows, on = [], False
    for l in lines:
        if l.startswith(header_start):
            on, head = True, [c.strip() for c in l.strip("|\n").split("|")]
            continue
        if on:
            if not l.startswith("|"):
                break
            if l.startswith("|---"):
                continue
            cells = [c.strip() for c in l.strip("|\n").split("|")]
            rows.append(dict(zip(head, cells)))
    return {r["design"]: r for r in rows}


def main():
    doc = DOC.read_text().splitlines()
    old = table(doc, "| design | LUT | FF | LUTRAM | BRAM | DSP | levels")
    weighted = table(doc, "| design | LUT (before) | LUT-eq (now)")
    out = subprocess.run([sys.executable, str(DOC.parent.parent / "tools" / "synth.py"), sys.argv[1], "--markdown"],
                         capture_output=True, text=True, check=True).stdout.splitlines()
    now = table(out, "| design | LUT | LUT1")
    names = sorted(set(now) | set(weighted))
    print("| design | LUT-eq before | LUT-eq after | FF before | FF after | BRAM before | BRAM after | levels before | levels after |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    sums = [0.0] * 6

    def num(x):
        try:
            return float(x)
        except (TypeError, ValueError):
            return None

    for n in names:
        if n.endswith("_patterns"):
            continue
        b, w, a = old.get(n, {}), weighted.get(n, {}), now.get(n, {})
        # BRAM before: RAMB18 counted as RAMB36 in the old table (dma_engine's 15 are RAMB18)
        bb = num(b.get("BRAM"))
        if bb is not None and n in ("dma_engine", "host_if"):
            bb = bb / 2
        cells = [w.get("LUT-eq (now)", "-"), a.get("LUT-eq", "-"), b.get("FF", "-"), a.get("FF", "-"),
                 "-" if bb is None else f"{bb:g}", a.get("BRAM", "-"), w.get("levels: weighted (now)", "-"),
                 a.get("levels", "-")]
        if n in CORE:
            for i, v in enumerate([cells[0], cells[1], cells[2], cells[3], cells[4], cells[5]]):
                sums[i] += num(v) or 0
        print(f"| {n} | " + " | ".join(cells) + " |")
    print("| **core blocks** (" + ", ".join(CORE) + ") | " + " | ".join(f"**{s:g}**" for s in sums) + " | | |")


if __name__ == "__main__":
    main()
