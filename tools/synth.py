#!/usr/bin/env python3
"""yosys synth_xilinx (UltraScale+) of generated designs: resources, logic depth, no latches.

Usage: tools/synth.py DIR [NAME...]   (all DIR/*.sv when no name is given)
Environment: SYNTH_JOBS (parallel yosys runs, default 2), RNIC_CACHE_DIR
(default build/cache), RNIC_NO_CACHE=1 (ignore the cache), RNIC_SYNTH_FLAT=1
(synthesize every design whole, children included: the old figures).

For every design it prints LUT / FF / LUTRAM / BRAM / DSP counts and the
longest combinational path in cells between flops and ports (LUTs, MUXF7/8,
CARRY8 and LUTRAM read ports each count one level), and fails on any latch.

Two things keep it fast as the design grows:

* Results are cached in build/cache/synth/, keyed by the sha256 of the
  design's Verilog, `yosys -V`, this script and the set of black boxes (below).
  An unchanged design is not synthesized again; its cached figures (and a
  cached failure, which still fails) are printed as if it had just run.

* Hierarchy. A design that instantiates another catalog design (host_if has
  dma_engine, desc_fetch, cq_engine, ctx_engine, reg_file; rx_parse has
  icrc_check and rx_header_decode) is synthesized with those children as
  yosys black boxes: only its own logic is mapped, and its figures are its own
  plus its children's figures (from their own synthesis, or the cache) times
  the number of instances. A module is black-boxed only when it is the same
  design as the catalog one: the same Verilog once module names are replaced
  by a hash of their own content (the emitter names a child module after its
  parameters in one file and plainly in another), recursively. The logic
  depth of such a parent is the largest of its own and its children's; its own
  is measured with the children's ports as path ends, i.e. as if every block
  boundary were registered (the project's rule: block outputs come from
  flops). Totals are sums of separately optimized blocks, so no optimization
  across a block boundary (constant inputs, unused outputs) is counted.
"""

import concurrent.futures
import hashlib
import json
import os
import pathlib
import re
import subprocess
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
MODULE_RE = re.compile(r"^module\s+([A-Za-z_][A-Za-z0-9_$]*)\b.*?^endmodule\b", re.S | re.M)
COLS = ("lut", "ff", "lutram", "bram", "dsp")
CELLS = {
    "lut": r"LUT[1-6]",
    "ff": r"FD[RSCP]E",
    "lutram": r"RAM(32|64|128|256)[A-Z0-9]*",
    "bram": r"RAMB(18|36)E2",
    "dsp": r"DSP48E2",
    "latch": r"LD[CP]E|\$_DLATCH[A-Z_]*",
}


def sha(*parts):
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode() if isinstance(p, str) else p)
        h.update(b"\0")
    return h.hexdigest()


class Design:
    """One generated file: its modules, their instances, their structural hashes."""

    def __init__(self, name, path):
        self.name = name
        self.path = path
        self.text = path.read_text()
        self.modules = {m.group(1): m.group(0) for m in MODULE_RE.finditer(self.text)}
        if name not in self.modules:
            raise SystemExit(f"synth: {path} defines no module {name}")
        self.instances = {}  # module -> {child module: count}
        for m, body in self.modules.items():
            counts = {}
            for line in body.splitlines()[1:]:
                mm = re.match(r"\s+([A-Za-z_][A-Za-z0-9_$]*)\s+(?:#\(.*?\)\s*)?[A-Za-z_][A-Za-z0-9_$]*\s*\(", line)
                if mm and mm.group(1) in self.modules:
                    counts[mm.group(1)] = counts.get(mm.group(1), 0) + 1
            self.instances[m] = counts
        self._shape = {}

    def shape(self, module, stack=()):
        """A hash of the module's Verilog with every module name replaced by the shape of that module."""
        if module in self._shape:
            return self._shape[module]
        if module in stack:
            raise SystemExit(f"synth: {self.path}: recursive instance of {module}")
        body = self.modules[module]
        subs = {c: self.shape(c, stack + (module,)) for c in self.instances[module]}
        body = re.sub(r"^module\s+" + re.escape(module) + r"\b", "module SELF", body, count=1)
        if subs:
            pat = re.compile(r"\b(" + "|".join(re.escape(c) for c in sorted(subs, key=len, reverse=True)) + r")\b")
            body = pat.sub(lambda m: "M" + subs[m.group(1)], body)
        self._shape[module] = sha(body)
        return self._shape[module]


def black_boxes(design, catalog, usable=lambda name: True):
    """{module in `design`: (catalog design it is, instances)}: the outermost modules of
    `design` that are another catalog design for which `usable` holds, with how many
    times the rest of `design` instantiates them."""
    by_shape = {d.shape(d.name): d.name for d in catalog.values() if d.name != design.name}
    boxes = {}

    def walk(module, mult):
        for child, n in design.instances[module].items():
            other = by_shape.get(design.shape(child))
            if other is not None and usable(other):
                prev = boxes.get(child, (other, 0))
                boxes[child] = (other, prev[1] + mult * n)
            else:
                walk(child, mult * n)

    walk(design.name, 1)
    return boxes


def contained(design, catalog):
    """Every other catalog design that is one of `design`'s modules, at any depth."""
    by_shape = {d.shape(d.name): d.name for d in catalog.values() if d.name != design.name}
    return sorted({by_shape[design.shape(m)] for m in design.modules if m != design.name and design.shape(m) in by_shape})


def count(stat, pattern):
    total = 0
    for line in stat.splitlines():
        m = re.match(r"^\s+(\S+)\s+([0-9]+)\s*$", line)
        if m and re.fullmatch(pattern, m.group(1)):
            total += int(m.group(2))
    return total


def synthesize(design, boxes, outdir):
    """Runs yosys on one design (children in `boxes` as black boxes); returns the result dict."""
    top = design.name
    log = outdir / f"{top}.synth.log"
    stat_f, ltp_f, io_f = outdir / f"{top}.stat.txt", outdir / f"{top}.ltp.txt", outdir / f"{top}.io.txt"
    bb = sorted(boxes)
    script = f"read_verilog -sv {design.path}; "
    if bb:
        script += f"blackbox {' '.join(bb)}; "
    script += (
        f"hierarchy -top {top}; synth_xilinx -family xcup -top {top} -flatten; tee -o {stat_f} stat; "
        f"delete t:FD* t:BUFG* t:DSP48E2 t:RAM* {' '.join('t:' + b for b in bb)}; "
        f"tee -o {io_f} select -list i:* %co* o:* %i; "
        f"delete t:IBUF t:OBUF; tee -o {ltp_f} ltp -noff"
    )
    t0 = time.time()
    p = subprocess.run(["yosys", "-q", "-l", str(log), "-p", script], capture_output=True, text=True)
    secs = round(time.time() - t0)
    logtext = log.read_text(errors="replace") if log.exists() else p.stdout + p.stderr
    if p.returncode != 0:
        tail = "\n".join(logtext.splitlines()[-20:])
        return {"ok": False, "secs": secs, "error": f"yosys failed (see {log})\n{tail}"}
    stat = stat_f.read_text()
    r = {c: count(stat, CELLS[c]) for c in COLS}
    r["secs"] = secs
    m = re.findall(r"Longest topological path in .* \(length=([0-9]+)\)", ltp_f.read_text())
    r["levels"] = int(m[0]) if m else None
    # outputs with a combinational path from an input: such a block is not
    # black-boxed in a parent (its boundary is not registered)
    r["comb_outputs"] = sorted(l.split("/", 1)[-1] for l in io_f.read_text().split() if l.strip())
    latches = count(stat, CELLS["latch"])
    inferred = logtext.count("Latch inferred")
    # the black-box instances yosys kept must be the ones this script expected
    for b, (_, n) in boxes.items():
        got = count(stat, re.escape(b))
        if got != n:
            r.update(ok=False, error=f"expected {n} instance(s) of black box {b}, yosys kept {got}")
            return r
    if latches or inferred:
        lines = [l for l in logtext.splitlines() if "Latch inferred" in l][:5]
        r.update(ok=False, error=f"latch inferred ({latches} latch cells, {inferred} 'Latch inferred' messages)\n" + "\n".join(lines))
        return r
    r["ok"] = True
    return r


def main():
    args = sys.argv[1:]
    if not args:
        raise SystemExit(__doc__)
    srcdir = pathlib.Path(args[0])
    files = sorted(srcdir.glob("*.sv"))
    catalog = {f.stem: Design(f.stem, f) for f in files}
    wanted = args[1:] or sorted(catalog)
    for w in wanted:
        if w not in catalog:
            raise SystemExit(f"synth: no design {w} in {srcdir}")
    flat = os.environ.get("RNIC_SYNTH_FLAT") == "1"
    cands = {}  # name -> the catalog designs it contains (synthesized first)

    def need(name):
        if name in cands:
            return
        cands[name] = [] if flat else contained(catalog[name], catalog)
        for child in cands[name]:
            need(child)

    for w in wanted:
        need(w)

    tool = subprocess.run(["yosys", "-V"], capture_output=True, text=True, check=True).stdout.strip()
    me = sha(pathlib.Path(__file__).read_bytes())
    cachedir = pathlib.Path(os.environ.get("RNIC_CACHE_DIR", "build/cache")) / "synth"
    cachedir.mkdir(parents=True, exist_ok=True)
    use_cache = os.environ.get("RNIC_NO_CACHE") != "1"
    results, origin = {}, {}
    plan = {}  # name -> the black boxes it was synthesized with

    def registered(name):
        r = results[name]
        return r.get("ok") and not r.get("comb_outputs")

    def key(name):
        boxes = plan[name]
        bb = ",".join(f"{m}={catalog[name].shape(m)}x{n}" for m, (_, n) in sorted(boxes.items()))
        return sha(catalog[name].text, tool, me, bb, "flat" if flat else "hier")

    def run(name):
        plan[name] = {} if flat else black_boxes(catalog[name], catalog, registered)
        entry = cachedir / f"{key(name)}.json"
        if use_cache and entry.exists():
            return name, json.loads(entry.read_text()), "cached"
        r = synthesize(catalog[name], plan[name], srcdir)
        tmp = entry.with_suffix(".tmp")
        tmp.write_text(json.dumps(r))
        tmp.replace(entry)
        return name, r, "run"

    # children first: a design runs once every design it black-boxes is done
    pending = dict(cands)
    jobs = int(os.environ.get("SYNTH_JOBS", "2"))
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        running = {}
        while pending or running:
            ready = [n for n in sorted(pending) if all(c in results for c in cands[n])]
            for n in ready:
                running[pool.submit(run, n)] = n
                del pending[n]
            if not running:
                raise SystemExit(f"synth: cannot order {sorted(pending)}")
            done, _ = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
            for fut in done:
                name, r, how = fut.result()
                results[name], origin[name] = r, how
                del running[fut]

    totals = {}

    def total(name):
        if name in totals:
            return totals[name]
        r = results[name]
        t = dict(r)
        if r.get("ok"):
            for _, (child, n) in plan[name].items():
                c = total(child)
                if not c.get("ok"):
                    t = {"ok": False, "error": f"child design {child} failed", "secs": r.get("secs", 0)}
                    break
                for col in COLS:
                    t[col] += n * c[col]
                if c["levels"] is None or t["levels"] is None:
                    t["levels"] = None
                else:
                    t["levels"] = max(t["levels"], c["levels"])
        totals[name] = t
        return t

    status = 0
    fmt = "{:<18} {:>8} {:>8} {:>7} {:>6} {:>5} {:>7} {:>6}  {}"
    print(fmt.format("design", "LUT", "FF", "LUTRAM", "BRAM", "DSP", "levels", "secs", "children (black boxes, figures included)"))
    shown = [n for n in sorted(cands) if n in wanted] + [n for n in sorted(cands) if n not in wanted]
    for name in shown:
        t = total(name)
        secs = "cached" if origin[name] == "cached" else str(results[name].get("secs", "?"))
        if not t.get("ok"):
            print(f"synth FAIL {name}{' (cached)' if origin[name] == 'cached' else ''}: " + t.get("error", "?").replace("\n", "\n    "))
            status = 1
            continue
        kids = ", ".join(f"{c}" + (f" x{n}" if n > 1 else "") for _, (c, n) in sorted(plan[name].items()))
        if kids:
            own = results[name]
            kids += f" (own: {own['lut']} LUT, {own['ff']} FF)"
        boxed = {c for _, (c, _) in plan[name].items()}
        outer = {c for _, (c, _) in black_boxes(catalog[name], catalog).items()} if not flat else set()
        inline = sorted(outer - boxed)
        if inline:
            kids = (kids + "; " if kids else "") + "synthesized inside (combinational ports): " + ", ".join(inline)
        if name not in wanted:
            kids = (kids + "; " if kids else "") + "needed by another design"
        levels = "?" if t["levels"] is None else t["levels"]
        print(fmt.format(name, t["lut"], t["ff"], t["lutram"], t["bram"], t["dsp"], levels, secs, kids).rstrip())
    ran = sum(1 for n in plan if origin[n] == "run")
    print(f"synth: {len(plan)} designs, {ran} synthesized, {len(plan) - ran} from the cache ({cachedir})")
    return status


if __name__ == "__main__":
    sys.exit(main())
