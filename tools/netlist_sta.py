"""Resources and a weighted static timing analysis of a yosys UltraScale+ netlist.

Input: one module of yosys' `write_json` after `synth_xilinx -family xcup
-flatten -noiopad -noclkbuf` (its "ports", "cells" with "port_directions",
and "netnames"). Output: a plain dict (JSON-able) with the resource counts,
the weighted longest path between path starts and path ends with its cell
chain, the worst path from a top input to a top output, and the largest
fan-out. The model (weights, starts, ends, limits) is described in
docs/timing_model.md; the weights come from tools/budgets.toml.

Per cell type:
* LUT1..LUT6, INV: every input to O, weight `lut`.
* MUXF7/MUXF8/MUXF9: I0, I1, S to O, weight `muxf`.
* CARRY8 (weight `carry8`) and CARRY4 (yosys 0.23 maps adders to CARRY4 even
  for UltraScale+; Vivado packs two into one CARRY8, so it weighs half):
  S[k] and DI[k] reach O[j] and CO[j] for j >= k, CI (CYINIT, and CI_TOP for
  the upper half of a DUAL_CY4 CARRY8) reaches every output.
* Flip-flops (FD*E): Q is a path start; D, CE and the set/reset pins are ends.
* SRL16E/SRLC16E/SRLC32E: Q and Q15/Q31 are starts; D and CE are ends; the
  tap address A reaches Q like a LUT input (weight `lut`).
* LUTRAM (RAM32M, RAM64M, RAM32M16, RAM64M8, RAMnX1S, RAMnX1D, ...): the
  asynchronous read is an arc from each read address to its data output,
  weight `lutram_read` plus `muxf` per doubling of depth beyond 64 (the
  primitive's own MUXF7/F8/F9); the data outputs are also starts (the write
  clock to out); WE, the data inputs and the write address are ends.
* Block RAM and UltraRAM: outputs are starts at `bram_out` levels when the
  port's output register is off (clock to out of the array), 0 when on;
  every input but the clocks is an end.
* DSP48E2: inputs are ends; P (and the cascade outputs) a start at 0 with
  PREG=1, at `dsp_out` without it; with AREG=BREG=MREG=PREG=0 the block is
  combinational and its data inputs reach its outputs with weight `dsp_comb`.
* A black box (another catalog design, synthesized on its own): inputs are
  ends, outputs starts (block boundaries are registered, the project's rule).
* Top-level inputs are starts and outputs are ends.
* GND/VCC drive constants (no path); BUFG and IBUF/OBUF are wires.
"""

import re
from collections import defaultdict

# LUT-equivalents of a LUTRAM primitive on UltraScale+ (LUTs of a SLICEM it
# occupies), and its read depth.
LUTRAM = {
    "RAM32X1S": (1, 32),
    "RAM32X1D": (2, 32),
    "RAM32M": (4, 32),
    "RAM32M16": (8, 32),
    "RAM64X1S": (1, 64),
    "RAM64X1D": (2, 64),
    "RAM64M": (4, 64),
    "RAM64M8": (8, 64),
    "RAM128X1S": (2, 128),
    "RAM128X1D": (4, 128),
    "RAM256X1S": (4, 256),
    "RAM256X1D": (8, 256),
    "RAM512X1S": (8, 512),
    "RAM32X16DR8": (8, 64),
    "RAM64X8SW": (8, 64),
}
SRL = {"SRL16E", "SRLC16E", "SRLC32E", "SRL16", "SRLC16"}
FF_RE = re.compile(r"FD[RSCP]{1,2}E(_1)?$")
LATCH_RE = re.compile(r"LD[CP]{1,2}E$")
LUT_RE = re.compile(r"LUT([1-6])$")
# The handshake rule (docs/streams.md): no path through logic from an input
# `ready`/`tready` port to an output `ready`/`tready`/`valid`/`tvalid` port.
READY_IN_RE = re.compile(r"(^|_)t?ready$")
HANDSHAKE_OUT_RE = re.compile(r"(^|_)t?(ready|valid)$")
MUXF = {"MUXF7", "MUXF8", "MUXF9"}
CARRY = {"CARRY4": 4, "CARRY8": 8}
BRAM = {"RAMB18E2": 0.5, "RAMB36E2": 1.0, "FIFO18E2": 0.5, "FIFO36E2": 1.0}
URAM = {"URAM288", "URAM288_BASE"}
WIRES = {"BUFG", "BUFGCE", "IBUF", "OBUF", "BUFG_GT"}
CONSTS = {"GND", "VCC"}
CLOCK_PINS = {"C", "CLK", "WCLK", "CLKARDCLK", "CLKBWRCLK", "G"}
RESET_PINS = {"R", "S", "CLR", "PRE"}
CLOCK_RESET_PORT = re.compile(r"(clk|clock|rst|reset)(_\w*)?(\[\d+\])?$", re.I)
WEIGHT_KEYS = ("lut", "muxf", "carry8", "lutram_read", "bram_out", "dsp_comb", "dsp_out")


def param_int(v, default=0):
    """A yosys JSON parameter (an int, or a string of binary digits, or a quoted string) as an int."""
    if v is None:
        return default
    if isinstance(v, int):
        return v
    if re.fullmatch(r"[01]+", v):
        return int(v, 2)
    try:
        return int(v)
    except ValueError:
        return default


class Model:
    """The timing view of one cell: arcs (input bits -> output bits, weight), starts, ends."""

    def __init__(self):
        self.arcs = []  # (src [(pin, bit)], dst [(pin, bit)], weight)
        self.starts = []  # (pin, bit, arrival)
        self.ends = []  # (pin, bit)
        self.clocks = []  # bits
        self.resets = []  # bits


def pins(conns, names):
    """[(label, bit)] of the given pins' bits (constants dropped)."""
    out = []
    for p in names:
        bits = conns.get(p, [])
        for i, b in enumerate(bits):
            if isinstance(b, int):
                out.append((f"{p}[{i}]" if len(bits) > 1 else p, b))
    return out


def cell_model(ctype, cell, weights, boxes):
    """The Model of a cell, or None for a constant driver. Raises KeyError on an unknown type."""
    conns = cell.get("connections", {})
    dirs = cell.get("port_directions", {})
    params = cell.get("parameters", {})
    ins = [p for p in conns if dirs.get(p) == "input"]
    outs = [p for p in conns if dirs.get(p) == "output"]
    m = Model()
    w = weights
    if ctype in CONSTS:
        return None
    if LUT_RE.match(ctype) or ctype == "INV":
        m.arcs.append((pins(conns, ins), pins(conns, outs), w["lut"]))
    elif ctype in MUXF:
        m.arcs.append((pins(conns, ins), pins(conns, outs), w["muxf"]))
    elif ctype in CARRY:
        n = CARRY[ctype]
        weight = w["carry8"] * n / 8
        dual = ctype == "CARRY8" and str(params.get("CARRY_TYPE", "")).strip() == "DUAL_CY4"

        def bit(pin, k):
            bits = conns.get(pin, [])
            return [(f"{pin}[{k}]", bits[k])] if k < len(bits) and isinstance(bits[k], int) else []

        for k in range(n):
            src = bit("S", k) + bit("DI", k)
            dst = [x for j in range(k, n) for x in bit("O", j) + bit("CO", j)]
            m.arcs.append((src, dst, weight))
        every = [x for j in range(n) for x in bit("O", j) + bit("CO", j)]
        m.arcs.append((pins(conns, ["CI", "CYINIT"]), every, weight))
        if dual:
            upper = [x for j in range(4, n) for x in bit("O", j) + bit("CO", j)]
            m.arcs.append((pins(conns, ["CI_TOP"]), upper, weight))
    elif FF_RE.match(ctype) or LATCH_RE.match(ctype):
        m.starts += [(p, b, 0.0) for p, b in pins(conns, outs)]
        m.ends += pins(conns, [p for p in ins if p not in CLOCK_PINS])
        m.clocks += [b for _, b in pins(conns, [p for p in ins if p in CLOCK_PINS])]
        m.resets += [b for _, b in pins(conns, [p for p in ins if p in RESET_PINS])]
    elif ctype in SRL:
        m.starts += [(p, b, 0.0) for p, b in pins(conns, outs)]
        addr = [p for p in ins if re.fullmatch(r"A[0-9]*", p)]
        m.arcs.append((pins(conns, addr), pins(conns, [p for p in outs if p == "Q"]), w["lut"]))
        m.ends += pins(conns, [p for p in ins if p not in CLOCK_PINS and p not in addr])
        m.clocks += [b for _, b in pins(conns, [p for p in ins if p in CLOCK_PINS])]
    elif ctype in LUTRAM:
        depth = LUTRAM[ctype][1]
        extra = max(0, depth.bit_length() - (64).bit_length())  # MUXF stages past 64 entries
        weight = w["lutram_read"] + extra * w["muxf"]
        addr_pins = [p for p in ins if re.fullmatch(r"(ADDR[A-H]|A[0-9]*|DPRA[0-9]*)", p)]
        multi = [p for p in addr_pins if p.startswith("ADDR")]
        for o in outs:
            mm = re.fullmatch(r"DO([A-H])", o)
            if mm:
                src = [f"ADDR{mm.group(1)}"]
            elif o == "DPO":
                src = [p for p in addr_pins if p.startswith("DPRA")]
            else:  # O, SPO, O0..: the read/write address
                src = [p for p in addr_pins if re.fullmatch(r"A[0-9]*", p)]
            m.arcs.append((pins(conns, src), pins(conns, [o]), weight))
            m.starts += [(p, b, 0.0) for p, b in pins(conns, [o])]
        if multi:
            write_addr = [max(multi)]  # ADDRD of RAM32M/RAM64M, ADDRH of the 8-port ones
        else:
            write_addr = [p for p in addr_pins if re.fullmatch(r"A[0-9]*", p)]
        write = [p for p in ins if p == "WE" or p.startswith("D") and not p.startswith("DPRA") or p == "WSEL"]
        m.ends += pins(conns, write + write_addr)
        m.clocks += [b for _, b in pins(conns, [p for p in ins if p in CLOCK_PINS])]
    elif ctype in BRAM or ctype in URAM:
        clocks = [p for p in ins if p.startswith("CLK")]
        m.clocks += [b for _, b in pins(conns, clocks)]
        m.ends += pins(conns, [p for p in ins if p not in clocks])
        for o in outs:
            if ctype in URAM:
                reg = param_int(params.get("OREG_B" if o.endswith("_B") else "OREG_A"), 1)
            else:
                port_b = "DOUTB" in o or "DOUTPB" in o or o.startswith("DOB") or o.startswith("DOPB")
                reg = param_int(params.get("DOB_REG" if port_b else "DOA_REG"), 0)
            m.starts += [(p, b, 0.0 if reg else w["bram_out"]) for p, b in pins(conns, [o])]
    elif ctype == "DSP48E2":
        clocks = [p for p in ins if p == "CLK"]
        m.clocks += [b for _, b in pins(conns, clocks)]
        data = [p for p in ins if p not in clocks]
        m.ends += pins(conns, data)
        regs = {k: param_int(params.get(k), 1) for k in ("AREG", "BREG", "MREG", "PREG")}
        arrival = 0.0 if regs["PREG"] else w["dsp_out"]
        m.starts += [(p, b, arrival) for p, b in pins(conns, outs)]
        if not any(regs.values()):
            src = [p for p in data if p in ("A", "B", "C", "D", "CARRYIN", "PCIN", "ACIN", "BCIN", "CARRYCASCIN")]
            m.arcs.append((pins(conns, src), pins(conns, outs), w["dsp_comb"]))
    elif ctype in WIRES:
        m.arcs.append((pins(conns, ins), pins(conns, outs), 0.0))
    elif ctype in boxes:
        m.starts += [(p, b, 0.0) for p, b in pins(conns, outs)]
        m.ends += pins(conns, ins)
    else:
        raise KeyError(ctype)
    return m


def resources(cells, boxes):
    """Resource counts of the cells (a list of types), LUTRAM and SRLs in LUT-equivalents."""
    r = defaultdict(float)
    by_type = defaultdict(int)
    for t in cells:
        by_type[t] += 1
        mm = LUT_RE.match(t)
        if mm:
            r["lut1" if mm.group(1) == "1" else "lut"] += 1
        elif t == "INV":
            r["lut1"] += 1
        elif t in LUTRAM:
            r["lutram"] += LUTRAM[t][0]
        elif t in SRL:
            r["srl"] += 1
        elif FF_RE.match(t):
            r["ff"] += 1
        elif LATCH_RE.match(t):
            r["latch"] += 1
        elif t in BRAM:
            r["bram"] += BRAM[t]
        elif t in URAM:
            r["uram"] += 1
        elif t == "DSP48E2":
            r["dsp"] += 1
        elif t in MUXF:
            r["muxf"] += 1
        elif t in CARRY:
            r["carry8"] += CARRY[t] / 8
    out = {k: r.get(k, 0) for k in ("lut", "lut1", "lutram", "srl", "ff", "latch", "bram", "uram", "dsp", "muxf", "carry8")}
    for k in out:
        if float(out[k]).is_integer():
            out[k] = int(out[k])
    out["luteq"] = out["lut"] + out["lut1"] + out["lutram"] + out["srl"]
    out["cells"] = {t: n for t, n in sorted(by_type.items()) if t not in boxes}
    return out


def net_names(module):
    """bit -> a readable name (public names first, then the shortest)."""
    best = {}
    for name, n in module.get("netnames", {}).items():
        bits = n.get("bits", [])
        hidden = n.get("hide_name", 0)
        for i, b in enumerate(bits):
            if not isinstance(b, int):
                continue
            label = name if len(bits) == 1 else f"{name}[{i}]"
            rank = (hidden, len(label))
            if b not in best or rank < best[b][0]:
                best[b] = (rank, label)
    return {b: lab for b, (_, lab) in best.items()}


def short(name, n=60):
    name = name.lstrip("\\")
    return name if len(name) <= n else "..." + name[-(n - 3):]


SHORT_TYPE = {"MUXF7": "F7", "MUXF8": "F8", "MUXF9": "F9", "CARRY4": "CY4", "CARRY8": "CY8"}


def analyze(module, weights, boxes=()):
    """Resources, the weighted longest path, the worst input-to-output path and the
    largest fan-out of one yosys JSON module. `boxes`: cell types that are black-box
    child designs. Raises ValueError on an unknown cell type or a combinational loop."""
    boxes = set(boxes)
    for k in WEIGHT_KEYS:
        if k not in weights:
            raise ValueError(f"weights: missing {k}")
    cells = module.get("cells", {})
    ports = module.get("ports", {})
    names = net_names(module)

    arcs_from = defaultdict(list)  # src bit -> [(dst bit, weight, cell, src pin, dst pin)]
    indeg = defaultdict(int)
    start_at = {}  # bit -> (arrival, description)
    ends = []  # (bit, description)
    clock_bits, reset_bits = set(), set()
    loads = defaultdict(int)
    driver = {}  # bit -> the type of the cell that drives it
    driver_cell = {}  # bit -> the name of that cell
    unknown = set()
    ctypes = []
    for cname, cell in cells.items():
        ctype = cell["type"].lstrip("\\")
        ctypes.append(ctype)
        try:
            m = cell_model(ctype, cell, weights, boxes)
        except KeyError:
            unknown.add(ctype)
            continue
        if m is None:
            continue
        dirs = cell.get("port_directions", {})
        for p, bits in cell.get("connections", {}).items():
            for b in bits:
                if not isinstance(b, int):
                    continue
                if dirs.get(p) == "input" and p not in CLOCK_PINS and not p.startswith("CLK"):
                    loads[b] += 1
                elif dirs.get(p) == "output":
                    driver[b] = ctype
                    driver_cell[b] = cname
        for src, dst, w in m.arcs:
            for sp, sb in src:
                for dp, db in dst:
                    arcs_from[sb].append((db, w, cname, ctype, sp, dp))
                    indeg[db] += 1
        for p, b, a in m.starts:
            if b not in start_at or a > start_at[b][0]:
                start_at[b] = (a, (ctype, cname, p))
        ends += [(b, (ctype, cname, p)) for p, b in m.ends]
        clock_bits.update(m.clocks)
        reset_bits.update(m.resets)
    if unknown:
        raise ValueError("no timing model for cell type(s) " + ", ".join(sorted(unknown)))

    top_in = {}
    for pname, port in ports.items():
        for i, b in enumerate(port.get("bits", [])):
            if not isinstance(b, int):
                continue
            label = pname if len(port["bits"]) == 1 else f"{pname}[{i}]"
            if port["direction"] == "input":
                top_in[b] = label
            elif port["direction"] == "output":
                ends.append((b, ("port", pname, label)))
                loads[b] += 1

    # topological order over the bits that the arcs connect (Kahn)
    order = []
    deg = dict(indeg)
    queue = [b for b in set(arcs_from) if deg.get(b, 0) == 0]
    while queue:
        b = queue.pop()
        order.append(b)
        for db, *_ in arcs_from[b]:
            deg[db] -= 1
            if deg[db] == 0:
                queue.append(db)
    stuck = [b for b, d in deg.items() if d > 0]
    if stuck:
        sample = ", ".join(short(names.get(b, str(b)), 40) for b in stuck[:5])
        raise ValueError(f"combinational loop through {len(stuck)} net bit(s), e.g. {sample}")

    def propagate(starts):
        arr, pred = dict(starts), {}
        for b in order:
            if b not in arr:
                continue
            a = arr[b]
            for db, w, cname, ctype, sp, dp in arcs_from[b]:
                if a + w > arr.get(db, -1.0):
                    arr[db] = a + w
                    pred[db] = (b, cname, ctype, sp, dp)
        return arr, pred

    def public(b):
        """A net's name, or "-" for yosys' internal names, which say nothing."""
        n = names.get(b, "")
        return "-" if not n or n.startswith("$") else short(n)

    def end_name(desc):
        """An end cell by the name of its output net (a flip-flop's Q says more than its cell name)."""
        ctype, cname, _ = desc
        if ctype == "port":
            return cname
        outs = [b for p, bits in cells[cname]["connections"].items() if cells[cname].get("port_directions", {}).get(p) == "output" for b in bits if isinstance(b, int)]
        named = [public(b) for b in outs if public(b) != "-"]
        return named[0] if len(outs) == 1 and named else short(cname)

    def chain(arr, pred, end_bit, end_desc, start_desc):
        steps = []
        b = end_bit
        while b in pred:
            sb, cname, ctype, sp, dp = pred[b]
            steps.append({"cell": ctype, "name": short(cname), "in": sp, "out": dp, "net": public(b), "at": round(arr[b], 3)})
            b = sb
        steps.reverse()
        first = start_desc(b)
        return {
            "levels": round(arr[end_bit], 3),
            "start": first,
            "start_net": public(b),
            "steps": steps,
            "end": {"cell": end_desc[0], "name": end_name(end_desc), "pin": end_desc[2]},
        }

    all_starts = {b: a for b, (a, _) in start_at.items()}
    for b in top_in:
        all_starts[b] = max(all_starts.get(b, 0.0), 0.0)
    arr, pred = propagate(all_starts)

    def describe(b):
        if b in top_in and (b not in start_at or start_at[b][0] <= 0):
            return {"cell": "port", "name": top_in[b], "pin": "", "at": 0.0}
        if b in start_at:
            a, (ctype, cname, p) = start_at[b]
            return {"cell": ctype, "name": end_name((ctype, cname, p)), "pin": p, "at": a}
        return {"cell": "?", "name": names.get(b, str(b)), "pin": "", "at": 0.0}

    timed = [(arr[b], b, d) for b, d in ends if b in arr]
    worst = None
    if timed:
        _, b, d = max(timed, key=lambda t: t[0])
        worst = chain(arr, pred, b, d, describe)

    arr_in, pred_in = propagate({b: 0.0 for b in top_in})
    io = [(arr_in[b], b, d) for b, d in ends if d[0] == "port" and b in arr_in]
    in_out = None
    if io:
        _, b, d = max(io, key=lambda t: t[0])
        in_out = chain(arr_in, pred_in, b, d, describe)
    comb_outputs = sorted({d[1] for _, b, d in io})

    # the handshake rule: which handshake outputs each ready input reaches through logic
    out_port = defaultdict(list)
    for b, d in ends:
        if d[0] == "port":
            out_port[b].append(d[1])
    ready_paths = set()
    for b, label in top_in.items():
        pname = label.split("[", 1)[0]
        if not READY_IN_RE.search(pname):
            continue
        seen, stack = {b}, [b]
        while stack:
            x = stack.pop()
            for o in out_port.get(x, ()):
                if HANDSHAKE_OUT_RE.search(o):  # a wire straight through counts too
                    ready_paths.add((pname, o))
            for db, *_ in arcs_from.get(x, ()):
                if db not in seen:
                    seen.add(db)
                    stack.append(db)

    # fan-out: every net but the clocks and the reset input (the nets on clock pins,
    # the top inputs on flip-flop set/reset pins, and the ports named clock or reset,
    # which reach only black boxes in a parent of registered children)
    skip = set(clock_bits) | {b for b in reset_bits if b in top_in}
    skip |= {b for b, label in top_in.items() if CLOCK_RESET_PORT.match(label)}
    fan = sorted(((n, b) for b, n in loads.items() if b not in skip), key=lambda t: (-t[0], t[1]))[:5]

    def near(b):
        """An internal net by its driver and the nearest named net it is computed from."""
        seen, frontier = {b}, [b]
        for _ in range(4):
            nxt = []
            for x in frontier:
                cname = driver_cell.get(x)
                if cname is None:
                    continue
                c = cells[cname]
                for p, bits in c.get("connections", {}).items():
                    if c.get("port_directions", {}).get(p) == "input":
                        nxt += [y for y in bits if isinstance(y, int) and y not in seen and y not in skip]
            for y in nxt:
                if public(y) != "-":
                    return f"({driver.get(b, '?')} of {public(y)})"
            seen.update(nxt)
            frontier = nxt
        return f"({driver.get(b, '?')} output)"

    fanout = [{"loads": n, "net": public(b) if public(b) != "-" else near(b)} for n, b in fan]

    res = resources(ctypes, boxes)
    return {
        "res": res,
        "levels": worst["levels"] if worst else 0.0,
        "worst": worst,
        "in_out": in_out,
        "comb_outputs": comb_outputs,
        "ready_paths": sorted(f"{a}>{o}" for a, o in ready_paths),
        "fanout": fanout,
        "ends": len(ends),
        "starts": len(all_starts),
    }


def path_summary(path):
    """A short form of a path: start type, the counts of each cell type in order of appearance, end type."""
    if not path:
        return "-"
    counts = {}
    for s in path["steps"]:
        t = s["cell"]
        t = "LUT" if LUT_RE.match(t) or t == "INV" else SHORT_TYPE.get(t, t)
        counts[t] = counts.get(t, 0) + 1
    mid = "+".join(f"{n} {t}" if n > 1 else t for t, n in counts.items())
    return ">".join([path["start"]["cell"]] + ([mid] if mid else []) + [path["end"]["cell"]])


def path_text(path, title):
    """A path as lines of text (for the per-design .timing.txt report)."""
    if not path:
        return [f"{title}: none"]
    s = path["start"]
    lines = [f"{title}: {path['levels']:.2f} weighted levels, {len(path['steps'])} cells ({path_summary(path)})"]
    pin = f" {s['pin']}" if s["pin"] else ""
    lines.append(f"  {s['at']:6.2f}  start {s['cell']}{pin} ({s['name']})  net {path['start_net']}")
    for st in path["steps"]:
        named = st["cell"] not in SHORT_TYPE and not LUT_RE.match(st["cell"]) and st["cell"] not in MUXF and st["cell"] != "INV"
        cell = f"  ({st['name']})" if named else ""
        lines.append(f"  {st['at']:6.2f}  {st['cell']:<9} {st['in']:>6}->{st['out']:<6} net {st['net']}{cell}")
    e = path["end"]
    pin = f" {e['pin']}" if e["cell"] != "port" else ""
    lines.append(f"  {path['levels']:6.2f}  end   {e['cell']}{pin} ({e['name']})")
    return lines
