#!/usr/bin/env python3
"""yosys synth_xilinx (UltraScale+) of generated designs: resources, weighted
logic depth, budgets (issue 9), no latches.

Usage: tools/synth.py [--markdown | --doc=FILE] DIR [NAME...]   (all DIR/*.sv when no name is given)
Environment: SYNTH_JOBS (parallel yosys runs, default 2), RNIC_CACHE_DIR
(default build/cache), RNIC_NO_CACHE=1 (ignore the cache), RNIC_SYNTH_FLAT=1
(synthesize every design whole, children included: the old figures),
RNIC_BUDGETS (default tools/budgets.toml), RNIC_SYNTH_RECORD (default
docs/synth.json), RNIC_SYNTH_CHECK_RECORD=1 (fail when a design's results
are not in the record: `make test`).

For every design it reports LUTs (LUT1 and INV apart), LUTRAM and SRLs in
LUT-equivalents, their sum (LUT-eq), FFs, BRAM (RAMB36 = 1, RAMB18 = 0.5),
URAM and DSP; the weighted longest path between registers (a static timing
analysis of the mapped netlist, tools/netlist_sta.py, weights in
tools/budgets.toml, model in docs/timing_model.md) with its cell chain, the
worst path from an input port to an output port, and the largest fan-out.
The full paths go to DIR/<name>.timing.txt. It fails on any latch, and on any
budget of tools/budgets.toml exceeded by a design not waived there.
`--markdown` prints the table as Markdown; `--doc=docs/synth.md` writes it into
that file between its `<!-- synth.py --doc: begin/end -->` markers.

Two things keep it fast as the design grows:

* The record, docs/synth.json: `--doc` writes every design's results
  there under its two keys (below) beside the table in docs/synth.md, and a
  run takes a design's results from it when both keys match, before the
  cache. So a fresh clone whose Verilog is that of the record synthesizes
  nothing; with RNIC_SYNTH_CHECK_RECORD=1 (`make test`) a design whose
  results did not come from the record fails the run once it has been
  synthesized and checked: the figures in docs/ are those of the Verilog
  under test (docs/ci.md, "The synthesis record").
* Two caches in build/cache/synth/. The yosys run is keyed by the sha256 of
  the design's Verilog, `yosys -V`, the yosys script (RECIPE) and the set of
  black boxes (below); it stores the mapped netlist (.net.json.gz) and the
  memory and latch findings. The netlist analysis is keyed by that key, the
  source of tools/netlist_sta.py and the weights. So changing a weight
  re-runs only the analysis, and changing a limit or a waiver re-runs
  nothing: budgets are applied to the (cached) figures afterwards. A cached
  failure still fails.

* Hierarchy. A design that instantiates another catalog design (host_if has
  dma_engine, desc_fetch, cq_engine, ctx_engine, reg_file; rx_parse has
  icrc_check and rx_header_decode) is synthesized with those children as
  yosys black boxes: only its own logic is mapped, and its resources are its
  own plus its children's (from their own synthesis, or the cache) times the
  number of instances. A module is black-boxed only when it is the same
  design as the catalog one: the same Verilog once module names are replaced
  by a hash of their own content (the emitter names a child module after its
  parameters in one file and plainly in another), recursively, and only when
  that child has no combinational path from an input to an output (else it
  is synthesized inside its parent). The levels of a design are those of its
  own logic, with the black boxes' ports as path ends and starts, i.e. as if
  every block boundary were registered (the project's rule: block outputs
  come from flops); each child has its own row and its own budget. A parent
  named in budgets.toml's [hierarchy] box_all boxes every child, those with
  combinational ports too (the core: its children's valid-to-ready paths
  are not traced through it; each child's own are). Totals are
  sums of separately optimized blocks, so no optimization across a block
  boundary (constant inputs, unused outputs) is counted.
"""

import concurrent.futures
import fnmatch
import gzip
import hashlib
import json
import os
import pathlib
import re
import subprocess
import sys
import time
import tomllib

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import netlist_sta as sta  # noqa: E402

MODULE_RE = re.compile(r"^module\s+([A-Za-z_][A-Za-z0-9_$]*)\b.*?^endmodule\b", re.S | re.M)
SYNTH = "synth_xilinx -family xcup -top {top} -flatten -noiopad -noclkbuf"
# The yosys script; {mem} receives the memories before they are mapped (their
# depth), the log says where each went. Changing it re-synthesizes everything.
RECIPE = (
    "read_verilog -sv {src}; {blackbox}hierarchy -top {top}; "
    + SYNTH
    + " -run :map_memory; tee -q -o {mem} dump t:$mem_v2; "
    + SYNTH
    + " -run map_memory:; tee -q -o {stat} stat; write_json {net}"
)
RECIPE_VERSION = "2"  # bump when synthesize() reads the yosys output differently
# the cell parameters the analysis reads (the rest, INIT strings mostly, is dropped)
KEEP_PARAMS = {"CARRY_TYPE", "DOA_REG", "DOB_REG", "OREG_A", "OREG_B", "AREG", "BREG", "MREG", "PREG"}
NUMERIC = ("lut", "lut1", "lutram", "srl", "luteq", "ff", "latch", "bram", "uram", "dsp", "muxf", "carry8")


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


def load_budgets(path):
    """tools/budgets.toml, checked: every weight present, every waiver naming its issue."""
    with open(path, "rb") as f:
        b = tomllib.load(f)
    for k in sta.WEIGHT_KEYS:
        if not isinstance(b.get("weights", {}).get(k), (int, float)):
            raise SystemExit(f"synth: {path}: [weights] {k} missing")
    for k in ("limit", "goal"):
        if not isinstance(b.get("levels", {}).get(k), (int, float)):
            raise SystemExit(f"synth: {path}: [levels] {k} missing")
    if not isinstance(b.get("lutram", {}).get("max_depth"), int):
        raise SystemExit(f"synth: {path}: [lutram] max_depth missing")
    luteq = {}
    for name, v in b.get("luteq", {}).items():
        v = {"limit": v} if isinstance(v, (int, float)) else v
        if not isinstance(v.get("limit"), (int, float)):
            raise SystemExit(f"synth: {path}: [luteq] {name} has no limit")
        luteq[name] = {"limit": v["limit"], "without": list(v.get("without", []))}
    b["luteq"] = luteq
    for name, reason in b.get("waivers", {}).items():
        if not isinstance(reason, str) or not re.search(r"\bissue \d+", reason):
            raise SystemExit(f"synth: {path}: the waiver of {name} must give its reason and the issue that removes it ('issue N')")
    b.setdefault("waivers", {})
    hs = b.setdefault("handshake", {}).setdefault("exempt", {})
    for name, reason in hs.items():
        if not isinstance(reason, str) or not reason.strip():
            raise SystemExit(f"synth: {path}: [handshake] exempt {name} must give its reason")
    b["levels"].setdefault("exempt", [])
    box_all = b.setdefault("hierarchy", {}).setdefault("box_all", {})
    for name, reason in box_all.items():
        if not isinstance(reason, str) or not reason.strip():
            raise SystemExit(f"synth: {path}: [hierarchy] box_all {name} must give its reason")
    return b


def parse_memories(dump, log, top):
    """The memories of a design before mapping (from `dump t:$mem_v2`) and what each became."""
    mems = []
    for block in re.split(r"^\s*cell \$mem_v2 ", dump, flags=re.M)[1:]:
        name = block.split("\n", 1)[0].strip().lstrip("\\")
        params = dict(re.findall(r"^\s*parameter \\(\w+) (\S+)", block, re.M))
        mems.append({"name": name, "size": int(params.get("SIZE", "0")), "width": int(params.get("WIDTH", "0")), "rd_ports": int(params.get("RD_PORTS", "0"))})
    via = dict(re.findall(r"^mapping memory " + re.escape(top) + r"\.(\S+) via (\S+)", log, re.M))
    for m in mems:
        kind = via.get(m["name"], "")
        m["as"] = "lutram" if "LUTRAM" in kind else "bram" if "BLOCKRAM" in kind else "uram" if "URAM" in kind else "logic"
    return mems


def compact(netlist, top):
    """The top module of a yosys JSON netlist with only what the analysis reads."""
    m = netlist["modules"][top]
    cells = {}
    for name, c in m["cells"].items():
        cells[name] = {
            "type": c["type"],
            "parameters": {k: v for k, v in c.get("parameters", {}).items() if k in KEEP_PARAMS},
            "port_directions": c.get("port_directions", {}),
            "connections": c["connections"],
        }
    nets = {n: {"bits": v["bits"], "hide_name": v.get("hide_name", 0)} for n, v in m.get("netnames", {}).items()}
    return {"ports": m.get("ports", {}), "cells": cells, "netnames": nets}


def synthesize(design, boxes, outdir, netfile):
    """Runs yosys on one design (children in `boxes` as black boxes); writes the compact
    netlist to `netfile`; returns the memories and latch findings."""
    top = design.name
    log = outdir / f"{top}.synth.log"
    mem_f, stat_f, net_f = outdir / f"{top}.mem.il", outdir / f"{top}.stat.txt", outdir / f"{top}.net.json"
    bb = sorted(boxes)
    script = RECIPE.format(src=design.path, blackbox=f"blackbox {' '.join(bb)}; " if bb else "", top=top, mem=mem_f, stat=stat_f, net=net_f)
    t0 = time.time()
    p = subprocess.run(["yosys", "-q", "-l", str(log), "-p", script], capture_output=True, text=True)
    secs = round(time.time() - t0)
    logtext = log.read_text(errors="replace") if log.exists() else p.stdout + p.stderr
    if p.returncode != 0:
        tail = "\n".join(logtext.splitlines()[-20:])
        return {"ok": False, "secs": secs, "error": f"yosys failed (see {log})\n{tail}"}
    net = compact(json.loads(net_f.read_text()), top)
    net_f.unlink()
    tmp = netfile.with_suffix(".tmp")
    with gzip.open(tmp, "wt") as f:
        json.dump(net, f)
    tmp.replace(netfile)
    r = {"ok": True, "secs": secs, "memories": parse_memories(mem_f.read_text(), logtext, top)}
    r["inferred_latches"] = [line for line in logtext.splitlines() if "Latch inferred" in line][:5]
    r["inferred_count"] = logtext.count("Latch inferred")
    return r


def check_own(name, r, boxes):
    """Failures of one synthesis that no budget or waiver covers: latches, black boxes."""
    for b, (_, n) in boxes.items():
        got = r["box_counts"].get(b, 0)
        if got != n:
            return f"expected {n} instance(s) of black box {b}, yosys kept {got}"
    if r["res"]["latch"] or r["inferred_count"]:
        return f"latch inferred ({r['res']['latch']} latch cells, {r['inferred_count']} 'Latch inferred' messages)\n" + "\n".join(r["inferred_latches"])
    return None


def over_budget(name, levels, luteq, memories, cells, budgets, ready_paths=()):
    """(over budget: [str], warnings: [str]) of one design: its own weighted levels, its
    LUT-eq (value, label, "~" when estimated) or None, its memories, its own cell counts and
    its paths from a ready input to a handshake output."""
    over, warn = [], []
    if ready_paths and name not in budgets["handshake"]["exempt"]:
        over.append("ready to handshake path(s) through logic: " + ", ".join(ready_paths))
    lv = budgets["levels"]
    if any(fnmatch.fnmatch(name, pat) for pat in lv["exempt"]):
        pass
    elif levels > lv["limit"]:
        over.append(f"levels {levels:.2f} > {lv['limit']:g}")
    elif levels > lv["goal"]:
        warn.append(f"levels {levels:.2f} > goal {lv['goal']:g}")
    if luteq is not None:
        value, label, approx = luteq
        limit = budgets["luteq"][name]["limit"]
        if value > limit:
            over.append(f"{label} {approx}{fmt_num(value)} > {limit:g}")
    deep = budgets["lutram"]["max_depth"]
    tables = [m for m in memories if m["as"] == "lutram" and m["size"] > deep]
    for m in tables:
        over.append(f"LUTRAM table {m['name']} {m['size']}x{m['width']} deeper than {deep}")
    prims = sorted(c for c in cells if c in sta.LUTRAM and sta.LUTRAM[c][1] > deep)
    if prims and not tables:
        over.append(f"LUTRAM primitive(s) deeper than {deep}: {', '.join(prims)}")
    return over, warn


def fmt_num(v):
    return f"{v:g}" if isinstance(v, float) else str(v)


def main():
    args = sys.argv[1:]
    docs = [pathlib.Path(a.split("=", 1)[1]) for a in args if a.startswith("--doc=")]
    doc = docs[-1] if docs else None
    markdown = "--markdown" in args or doc is not None
    args = [a for a in args if a != "--markdown" and not a.startswith("--doc=")]
    if not args:
        raise SystemExit(__doc__)
    srcdir = pathlib.Path(args[0])
    files = sorted(srcdir.glob("*.sv"))
    catalog = {f.stem: Design(f.stem, f) for f in files}
    wanted = args[1:] or sorted(catalog)
    for w in wanted:
        if w not in catalog:
            raise SystemExit(f"synth: no design {w} in {srcdir}")
    budgets_path = pathlib.Path(os.environ.get("RNIC_BUDGETS", HERE / "budgets.toml"))
    budgets = load_budgets(budgets_path)
    weights = {k: float(budgets["weights"][k]) for k in sta.WEIGHT_KEYS}
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
    sta_src = (HERE / "netlist_sta.py").read_bytes()
    cachedir = pathlib.Path(os.environ.get("RNIC_CACHE_DIR", "build/cache")) / "synth"
    cachedir.mkdir(parents=True, exist_ok=True)
    use_cache = os.environ.get("RNIC_NO_CACHE") != "1"
    results, origin = {}, {}
    # the record (docs/synth.json, written with --doc): each design's results
    # under its keys, so a fresh clone's check synthesizes only what changed
    record_path = pathlib.Path(os.environ.get("RNIC_SYNTH_RECORD", "docs/synth.json"))
    record = json.loads(record_path.read_text()) if record_path.exists() else {}
    new_record = {}
    plan = {}  # name -> the black boxes it was synthesized with

    def registered(name):
        r = results[name]
        return r.get("ok") and not r.get("comb_outputs")

    def synth_key(name):
        boxes = plan[name]
        bb = ",".join(f"{m}={catalog[name].shape(m)}x{n}" for m, (_, n) in sorted(boxes.items()))
        return sha(catalog[name].text, tool, RECIPE, RECIPE_VERSION, bb, "flat" if flat else "hier")

    def load(path):
        if use_cache and path.exists():
            return json.loads(path.read_text())
        return None

    def store(path, r):
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(r))
        tmp.replace(path)

    def run(name):
        # a parent listed in [hierarchy] box_all boxes every child, combinational ports or not
        usable = (lambda n: results[n].get("ok")) if name in budgets["hierarchy"]["box_all"] else registered
        plan[name] = {} if flat else black_boxes(catalog[name], catalog, usable)
        skey = synth_key(name)
        ahash = sha(skey, sta_src, json.dumps(weights, sort_keys=True))
        rec = record.get(name) if use_cache else None
        if rec and rec["skey"] == skey and rec["akey"] == ahash:
            y, a, how = rec["yosys"], rec["sta"], "recorded"
            new_record[name] = rec
        else:
            y, a, how = None, None, "cached"
        ykey, netfile = cachedir / f"{skey}.yosys.json", cachedir / f"{skey}.net.json.gz"
        if y is None:
            y = load(ykey)
        if y is None or (a is None and y.get("ok") and not netfile.exists()):
            y = synthesize(catalog[name], plan[name], srcdir, netfile)
            store(ykey, y)
            how = "run"
        if not y.get("ok"):
            return name, y, how
        akey = cachedir / f"{ahash}.sta.json"
        if a is None:
            a = load(akey)
        if a is None:
            with gzip.open(netfile, "rt") as f:
                net = json.load(f)
            try:
                a = sta.analyze(net, weights, boxes=set(plan[name]))
                a["box_counts"] = {b: sum(1 for c in net["cells"].values() if c["type"].lstrip("\\") == b) for b in plan[name]}
            except ValueError as e:
                a = {"error": f"netlist analysis: {e}"}
            store(akey, a)
        # (not the run's seconds: the record changes only with the figures)
        new_record[name] = {"skey": skey, "akey": ahash, "yosys": {k: v for k, v in y.items() if k != "secs"}, "sta": a}
        r = dict(y)
        r.update(a)
        if "error" in a:
            r["ok"] = False
        else:
            err = check_own(name, r, plan[name])
            if err:
                r.update(ok=False, error=err)
        return name, r, how

    # children first: a design runs once every design it black-boxes is done.
    # Of the designs ready, the one heading the longest chain of work runs
    # first, and a design is handed to the pool only when a worker is free:
    # handing out every ready design at once left host_if, which waits for its
    # caches, queued behind the small designs, alone on one core at the end.
    # A design's own work is estimated by its Verilog's length less that of
    # the catalog designs it contains (which run on their own).
    def own_cost(name):
        return max(1, len(catalog[name].text) - sum(len(catalog[c].text) for c in cands[name]))

    parents = {n: [p for p in cands if n in cands[p]] for n in cands}
    chain = {}

    def chain_cost(name):
        if name not in chain:
            chain[name] = own_cost(name) + max((chain_cost(p) for p in parents[name]), default=0)
        return chain[name]

    pending = dict(cands)
    jobs = max(1, int(os.environ.get("SYNTH_JOBS", "2")))
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        running = {}
        while pending or running:
            ready = sorted((n for n in pending if all(c in results for c in cands[n])), key=lambda n: (-chain_cost(n), n))
            for n in ready[: jobs - len(running)]:
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
        """The design's resources with its black-box children's, and the deepest levels of all."""
        if name in totals:
            return totals[name]
        r = results[name]
        t = {"ok": r.get("ok"), "error": r.get("error"), "levels_all": r.get("levels"), "levels_children": 0.0}
        if r.get("ok"):
            t.update({k: r["res"][k] for k in NUMERIC})
            for _, (child, n) in plan[name].items():
                c = total(child)
                if not c.get("ok"):
                    t = {"ok": False, "error": f"child design {child} failed"}
                    break
                for k in NUMERIC:
                    t[k] += n * c[k]
                t["levels_all"] = max(t["levels_all"], c["levels_all"])
                t["levels_children"] = max(t["levels_children"], c["levels_all"])
        totals[name] = t
        return t

    def luteq_budgeted(name):
        """(LUT-eq the budget of `name` applies to, label) or None when it has no LUT-eq budget."""
        spec = budgets["luteq"].get(name)
        if not spec:
            return None
        value, approx = total(name)["luteq"], ""
        boxed = {c: n for _, (c, n) in plan[name].items()}
        for child in spec["without"]:
            if child in boxed:
                value -= boxed[child] * total(child)["luteq"]
            elif child in cands.get(name, []) and results.get(child, {}).get("ok"):
                value -= total(child)["luteq"]  # synthesized inside: its own figure, an estimate
                approx = "~"
        label = "LUT-eq" + (f" without {'+'.join(spec['without'])}" if spec["without"] else "")
        if flat and spec["without"]:
            label += " (flat run: children not subtracted)"
        return value, label, approx

    status = 0
    counts = {"ok": 0, "waived": 0, "fail": 0}
    head = ["design", "LUT", "LUT1", "LUTRAM", "SRL", "LUT-eq", "FF", "BRAM", "URAM", "DSP", "levels", "worst path", "fan-out", "in>out", "budget", "notes"]
    rows = []
    shown = [n for n in sorted(cands) if n in wanted] + [n for n in sorted(cands) if n not in wanted]
    for name in shown:
        t, r = total(name), results[name]
        if not t.get("ok"):
            rows.append(None)
            print(f"synth FAIL {name}{' (cached)' if origin[name] != 'run' else ''}: " + (t.get("error") or "?").replace("\n", "\n    "))
            status = 1
            counts["fail"] += 1
            continue
        report = [f"{name}: weighted levels of its own logic (docs/timing_model.md; weights in {budgets_path.name})", ""]
        report += sta.path_text(r["worst"], "worst path")
        report += [""] + sta.path_text(r["in_out"], "worst input-to-output path")
        if r["comb_outputs"]:
            report += ["outputs reached from an input through logic: " + ", ".join(r["comb_outputs"])]
        report += ["ready inputs reaching handshake outputs through logic (docs/streams.md): " + (", ".join(r.get("ready_paths", [])) or "none")]
        report += ["", "largest fan-out (clocks and the reset input excluded):"] + [f"  {f['loads']:6d}  {f['net']}" for f in r["fanout"]]
        report += ["", "memories (before mapping):"] + [f"  {m['name']}: {m['size']} x {m['width']}, {m['rd_ports']} read port(s), mapped to {m['as']}" for m in r.get("memories", [])] + ([] if r.get("memories") else ["  none"])
        report += ["", "cells of its own logic:"] + [f"  {c:<12} {n}" for c, n in r["res"]["cells"].items()]
        (srcdir / f"{name}.timing.txt").write_text("\n".join(report) + "\n")

        over, warn = over_budget(name, r["levels"], luteq_budgeted(name), r.get("memories", []), r["res"]["cells"], budgets, r.get("ready_paths", []))
        waiver = budgets["waivers"].get(name)
        if over and waiver:
            budget = f"WAIVED (over budget: {'; '.join(over)})"
            counts["waived"] += 1
        elif over:
            budget = f"FAIL (over budget: {'; '.join(over)})"
            counts["fail"] += 1
            status = 1
        else:
            budget = "ok" + (f" (warning: {'; '.join(warn)})" if warn else "")
            if waiver:
                budget += " (waiver no longer needed: remove it from budgets.toml)"
            if any(fnmatch.fnmatch(name, pat) for pat in budgets["levels"]["exempt"]):
                budget += " (levels exempt)"
            counts["ok"] += 1
        kids = ", ".join(f"{c}" + (f" x{n}" if n > 1 else "") for _, (c, n) in sorted(plan[name].items()))
        if kids:
            kids = f"children: {kids} (own: {fmt_num(r['res']['luteq'])} LUT-eq, {r['res']['ff']} FF; deepest child {t['levels_children']:.2f} levels)"
        boxed = {c for _, (c, _) in plan[name].items()}
        outer = {c for _, (c, _) in black_boxes(catalog[name], catalog).items()} if not flat else set()
        inline = sorted(outer - boxed)
        if inline:
            kids = (kids + "; " if kids else "") + "synthesized inside (combinational ports): " + ", ".join(inline)
        if name not in wanted:
            kids = (kids + "; " if kids else "") + "needed by another design"
        fan = r["fanout"][0] if r["fanout"] else None
        fan_s = f"{fan['loads']} {sta.short(fan['net'], 32)}" if fan else "-"
        io = f"{r['in_out']['levels']:.2f}" if r["in_out"] else "-"
        rows.append(
            [name, t["lut"], t["lut1"], t["lutram"], t["srl"], t["luteq"], t["ff"], t["bram"], t["uram"], t["dsp"], f"{r['levels']:.2f}", sta.path_summary(r["worst"]), fan_s, io, budget, kids]
        )
        secs = origin[name] if origin[name] != "run" else f"{r.get('secs', '?')} s"
        rows[-1].append(secs)

    good = [row for row in rows if row]
    if markdown:
        md = ["| " + " | ".join(head) + " |", "|---|" + "---:|" * 10 + "---|---|---:|---|---|"]
        for row in good:
            cells = [fmt_num(c) if not isinstance(c, str) else c for c in row[:-1]]
            md.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
        md.append("")
        md.append(f"{counts['ok']} designs within budget, {counts['waived']} waived, {counts['fail']} failing ({tool}).")
        if doc is None:
            print("\n".join(md))
        else:
            text = doc.read_text()
            begin, end = "<!-- synth.py --doc: begin -->", "<!-- synth.py --doc: end -->"
            if begin not in text or end not in text:
                raise SystemExit(f"synth: {doc} has no {begin} ... {end} section")
            a, rest = text.split(begin, 1)
            _, b = rest.split(end, 1)
            doc.write_text(a + begin + "\n" + "\n".join(md) + "\n" + end + b)
            print(f"synth: table written into {doc}", file=sys.stderr)
            if status == 0:
                record_path.write_text(json.dumps(dict(sorted(new_record.items())), indent=0, sort_keys=True) + "\n")
                print(f"synth: record written into {record_path}", file=sys.stderr)
    else:
        widths = [max(len(head[i]), *(len(fmt_num(row[i])) for row in good)) if good else len(head[i]) for i in range(len(head) - 2)]
        line = lambda cs: "  ".join(str(c).ljust(w) if i in (0, 11, 12) else str(c).rjust(w) for i, (c, w) in enumerate(zip(cs, widths)))  # noqa: E731
        print(line(head[:-2]) + "  secs")
        for row in good:
            print(line([fmt_num(c) for c in row[: len(widths)]]) + f"  {row[-1]}")
            print(f"    {row[14]}" + (f"; {row[15]}" if row[15] else ""))
    for name in sorted(set(budgets["luteq"]) | set(budgets["waivers"])):
        if name not in catalog:
            print(f"synth: note: budgets.toml names {name}, which is not a design in {srcdir}", file=sys.stderr if markdown else sys.stdout)
    ran = sum(1 for n in plan if origin[n] == "run")
    recorded = sum(1 for n in plan if origin[n] == "recorded")
    out = sys.stderr if markdown else sys.stdout
    print(
        f"synth: {len(plan)} designs, {ran} synthesized, {recorded} from the record ({record_path}), "
        f"{len(plan) - ran - recorded} from the cache ({cachedir}); paths in {srcdir}/<name>.timing.txt",
        file=out,
    )
    stale = sorted(n for n in plan if origin[n] != "recorded")
    if os.environ.get("RNIC_SYNTH_CHECK_RECORD") == "1" and stale:
        # the figures in docs/ must be those of the Verilog under test
        print(f"synth FAIL: {record_path} and docs/synth.md are not those of this Verilog for {', '.join(stale)}: run `make synth-doc`", file=out)
        status = 1
    print(f"synth: {counts['ok']} designs within budget, {counts['waived']} waived, {counts['fail']} failing ({budgets_path})", file=out)
    return status


if __name__ == "__main__":
    sys.exit(main())
