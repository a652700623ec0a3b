#!/usr/bin/env python3
"""Unit tests of the netlist timing analysis (tools/netlist_sta.py) and of the budget
logic of tools/synth.py, on tiny handwritten netlists in yosys' JSON form.

Run: python3 tools/test_synth.py   (make test runs it in its synth phase)
"""

import os
import pathlib
import subprocess
import sys
import tempfile
import unittest

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import netlist_sta as sta  # noqa: E402
import synth  # noqa: E402

W = {"lut": 1.0, "muxf": 0.25, "carry8": 0.3, "lutram_read": 1.0, "bram_out": 1.0, "dsp_out": 2.5, "dsp_comb": 5.0}
PINS = {
    "FDRE": ({"C": "input", "CE": "input", "D": "input", "R": "input", "Q": "output"}),
    "MUXF7": {"I0": "input", "I1": "input", "S": "input", "O": "output"},
    "CARRY4": {"CI": "input", "CYINIT": "input", "DI": "input", "S": "input", "O": "output", "CO": "output"},
    "SRLC32E": {"A": "input", "CE": "input", "CLK": "input", "D": "input", "Q": "output", "Q31": "output"},
    "RAM64M": {
        **{f"ADDR{x}": "input" for x in "ABCD"},
        **{f"DI{x}": "input" for x in "ABCD"},
        **{f"DO{x}": "output" for x in "ABCD"},
        "WCLK": "input",
        "WE": "input",
    },
    "RAM64M8": {
        **{f"ADDR{x}": "input" for x in "ABCDEFGH"},
        **{f"DI{x}": "input" for x in "ABCDEFGH"},
        **{f"DO{x}": "output" for x in "ABCDEFGH"},
        "WCLK": "input",
        "WE": "input",
    },
    "RAM128X1D": {"A": "input", "DPRA": "input", "D": "input", "WCLK": "input", "WE": "input", "SPO": "output", "DPO": "output"},
    "RAMB18E2": {"CLKARDCLK": "input", "ADDRARDADDR": "input", "DOUTADOUT": "output", "DOUTBDOUT": "output"},
    "child": {"clock": "input", "x": "input", "y": "output"},
}
for n in range(1, 7):
    PINS[f"LUT{n}"] = {**{f"I{i}": "input" for i in range(n)}, "O": "output"}
CLK, RST = 2, 3


class Net:
    """A handwritten netlist: top ports `clock` (bit 2) and `reset` (bit 3), then cells."""

    def __init__(self):
        self.m = {"ports": {"clock": {"direction": "input", "bits": [CLK]}, "reset": {"direction": "input", "bits": [RST]}}, "cells": {}, "netnames": {}}
        self.next = 10

    def bit(self, name=None):
        b = self.next
        self.next += 1
        if name:
            self.m["netnames"][name] = {"bits": [b], "hide_name": 0}
        return b

    def port(self, name, direction, bits):
        self.m["ports"][name] = {"direction": direction, "bits": bits}

    def cell(self, ctype, name=None, params=None, **conns):
        name = name or f"c{len(self.m['cells'])}"
        dirs = PINS[ctype]
        conns = {p: (v if isinstance(v, list) else [v]) for p, v in conns.items()}
        self.m["cells"][name] = {"type": ctype, "parameters": params or {}, "port_directions": {p: dirs[p] for p in conns}, "connections": conns}
        return name

    def ff(self, d, q, name=None):
        return self.cell("FDRE", name, C=CLK, CE="1", R=RST, D=d, Q=q)

    def lut(self, ins, out):
        ins = ins if isinstance(ins, list) else [ins]
        return self.cell(f"LUT{len(ins)}", **{f"I{i}": b for i, b in enumerate(ins)}, O=out)

    def run(self, boxes=()):
        return sta.analyze(self.m, W, boxes)


def types(path):
    return [s["cell"] for s in path["steps"]]


class Timing(unittest.TestCase):
    def test_luts_between_flops(self):
        n = Net()
        q, a, b = n.bit("q"), n.bit(), n.bit()
        n.ff(b, q)
        n.lut([q], a)
        n.lut([a, q], b)
        r = n.run()
        self.assertEqual(r["levels"], 2.0)
        self.assertEqual(types(r["worst"]), ["LUT1", "LUT2"])
        self.assertEqual(r["worst"]["start"]["cell"], "FDRE")
        self.assertEqual(r["worst"]["end"]["cell"], "FDRE")
        self.assertIsNone(r["in_out"])
        self.assertEqual(sta.path_summary(r["worst"]), "FDRE>2 LUT>FDRE")

    def test_muxf_is_a_fraction(self):
        n = Net()
        q, a, o = n.bit("q"), n.bit(), n.bit()
        n.ff(o, q)
        n.lut([q], a)
        n.cell("MUXF7", I0=a, I1=q, S=q, O=o)
        self.assertEqual(n.run()["levels"], 1.25)

    def test_carry_chain_per_bit(self):
        n = Net()
        q = n.bit("q")
        s = [n.bit() for _ in range(4)]
        co1 = [n.bit() for _ in range(4)]
        o1 = [n.bit() for _ in range(4)]
        co2 = [n.bit() for _ in range(4)]
        o2 = [n.bit() for _ in range(4)]
        n.ff(o2[1], q, "f_hi")
        n.lut([q], s[0])
        n.cell("CARRY4", CI="0", CYINIT="0", DI=["0"] * 4, S=s, O=o1, CO=co1)
        n.cell("CARRY4", CI=co1[3], CYINIT="0", DI=["0"] * 4, S=[q] * 4, O=o2, CO=co2)
        # S[3] of the first CARRY4 reaches O[3] but not O[0]
        n.ff(o1[0], n.bit(), "f_lo")
        n.lut([q], s[3])
        r = n.run()
        self.assertAlmostEqual(r["levels"], 1.0 + 2 * 0.15)  # a CARRY4 is half a CARRY8
        self.assertEqual(types(r["worst"]), ["LUT1", "CARRY4", "CARRY4"])
        # a 64-bit adder: one LUT and 8 CARRY8 = 16 CARRY4
        n = Net()
        q = n.bit("q")
        prev = "0"
        first = n.bit()
        n.lut([q], first)
        for i in range(16):
            co, o = [n.bit() for _ in range(4)], [n.bit() for _ in range(4)]
            n.cell("CARRY4", CI=prev, CYINIT="0", DI=["0"] * 4, S=[first if i == 0 else q] + [q] * 3, O=o, CO=co)
            prev = co[3]
        n.ff(o[3], q)
        self.assertAlmostEqual(n.run()["levels"], 1.0 + 8 * 0.3)

    def test_lutram_read_is_a_level_and_write_port_an_end(self):
        n = Net()
        q, addr, do, d, w1, w2, w3 = n.bit("q"), n.bit("addr"), n.bit("do"), n.bit("d"), n.bit(), n.bit(), n.bit()
        n.ff(d, q)
        n.lut([q], addr)
        n.cell("RAM64M", ADDRA=[addr] * 6, ADDRB=["0"] * 6, ADDRC=["0"] * 6, ADDRD=["0"] * 6, DIA=w3, DIB="0", DIC="0", DID="0", DOA=do, WCLK=CLK, WE=q)
        n.lut([do], d)
        # three LUTs into the write data: a path that ends at DIA, not through the RAM
        n.lut([q], w1)
        n.lut([w1], w2)
        n.lut([w2], w3)
        r = n.run()
        self.assertEqual(r["levels"], 3.0)
        ends = {types(r["worst"])[-1], r["worst"]["end"]["cell"]}
        # either LUT -> RAM64M read -> LUT -> FDRE or LUT -> LUT -> LUT -> RAM64M DIA: both 3.0
        self.assertTrue(ends in ({"LUT1", "FDRE"}, {"LUT1", "RAM64M"}), ends)
        read = Net()
        q, addr, do, d = read.bit("q"), read.bit(), read.bit(), read.bit()
        read.ff(d, q)
        read.lut([q], addr)
        read.cell("RAM64M", ADDRA=[addr] * 6, ADDRD=["0"] * 6, DIA="0", DOA=do, WCLK=CLK, WE="0")
        read.lut([do], d)
        r = read.run()
        self.assertEqual(r["levels"], 3.0)
        self.assertEqual(types(r["worst"]), ["LUT1", "RAM64M", "LUT1"])
        self.assertEqual(r["worst"]["steps"][1]["in"], "ADDRA[0]")

    def test_lutram_output_is_a_start_and_deep_lutram_costs_its_muxes(self):
        n = Net()
        q, spo, dpo, a, b = n.bit("q"), n.bit(), n.bit(), n.bit(), n.bit()
        n.cell("RAM128X1D", A=["0"] * 7, DPRA=[q] * 7, D="0", WE="0", WCLK=CLK, SPO=spo, DPO=dpo)
        n.ff(a, q)
        n.lut([spo], a)  # from the write clock: SPO's address is constant, so SPO starts at 0
        n.ff(b, n.bit())
        n.lut([dpo], b)
        r = n.run()
        self.assertAlmostEqual(r["levels"], 1.0 + 1.0 + 0.25)  # FF -> 128-deep read (LUT + MUXF7) -> LUT
        self.assertEqual(r["res"]["lutram"], 4)

    def test_srl_output_starts_a_path_and_its_address_is_an_arc(self):
        n = Net()
        q, sq, o = n.bit("q"), n.bit(), n.bit()
        n.cell("SRLC32E", A=["1", "0", "0", "0", "0"], CE="1", CLK=CLK, D=q, Q=sq)
        n.lut([sq], o)
        n.ff(o, q)
        r = n.run()
        self.assertEqual(r["levels"], 1.0)
        self.assertEqual(r["worst"]["start"]["cell"], "SRLC32E")
        n = Net()
        q, a, sq = n.bit("q"), n.bit(), n.bit()
        n.lut([q], a)
        n.cell("SRLC32E", A=[a] * 5, CE="1", CLK=CLK, D=q, Q=sq)
        n.ff(sq, q)
        self.assertEqual(n.run()["levels"], 2.0)

    def test_bram_without_output_register_starts_late(self):
        n = Net()
        do, o = n.bit(), n.bit()
        n.cell("RAMB18E2", params={"DOA_REG": "00000000000000000000000000000000"}, CLKARDCLK=CLK, ADDRARDADDR=["0"], DOUTADOUT=[do], DOUTBDOUT=[])
        n.lut([do], o)
        n.ff(o, n.bit())
        r = n.run()
        self.assertEqual(r["levels"], 2.0)
        self.assertEqual(r["res"]["bram"], 0.5)
        n.m["cells"]["c0"]["parameters"]["DOA_REG"] = "00000000000000000000000000000001"
        self.assertEqual(n.run()["levels"], 1.0)

    def test_input_to_output_path_is_reported(self):
        n = Net()
        i, m, o = n.bit("i"), n.bit(), n.bit("o")
        n.port("i", "input", [i])
        n.port("o", "output", [o])
        n.lut([i], m)
        n.lut([m], o)
        r = n.run()
        self.assertEqual(r["in_out"]["levels"], 2.0)
        self.assertEqual(r["comb_outputs"], ["o"])
        self.assertEqual(r["levels"], 2.0)  # ports are a start and an end as well
        # a register in between: no input-to-output path
        n = Net()
        i, m, q, o = n.bit("i"), n.bit(), n.bit(), n.bit("o")
        n.port("i", "input", [i])
        n.port("o", "output", [o])
        n.lut([i], m)
        n.ff(m, q)
        n.lut([q], o)
        r = n.run()
        self.assertIsNone(r["in_out"])
        self.assertEqual(r["comb_outputs"], [])

    def test_ready_to_handshake_paths(self):
        # m_axis_tready through a LUT into s_axis_tready: the rule's violation
        n = Net()
        mr, sr, sv, mv, q = n.bit("m_axis_tready"), n.bit("s_axis_tready"), n.bit("s_axis_tvalid"), n.bit("m_axis_tvalid"), n.bit("q")
        for name, d, b in [("m_axis_tready", "input", mr), ("s_axis_tvalid", "input", sv), ("s_axis_tready", "output", sr), ("m_axis_tvalid", "output", mv)]:
            n.port(name, d, [b])
        n.lut([mr, q], sr)
        n.ff(sv, q)
        n.lut([q], mv)
        self.assertEqual(n.run()["ready_paths"], ["m_axis_tready>s_axis_tready"])
        # a wire straight through counts too; a valid input reaching an output does not
        n = Net()
        mr, sv, o = n.bit("m_tready"), n.bit("s_valid"), n.bit("x_valid")
        n.port("m_tready", "input", [mr])
        n.port("s_ready", "output", [mr])
        n.port("s_valid", "input", [sv])
        n.port("x_valid", "output", [o])
        n.lut([sv], o)
        self.assertEqual(n.run()["ready_paths"], ["m_tready>s_ready"])
        # a register in between: none
        n = Net()
        mr, d, sr = n.bit("m_axis_tready"), n.bit(), n.bit("s_axis_tready")
        n.port("m_axis_tready", "input", [mr])
        n.port("s_axis_tready", "output", [sr])
        n.lut([mr], d)
        n.ff(d, sr)
        self.assertEqual(n.run()["ready_paths"], [])

    def test_black_box_ports_are_ends_and_starts(self):
        n = Net()
        q, a, y, b = n.bit("q"), n.bit(), n.bit(), n.bit()
        n.ff(b, q)
        n.lut([q], a)
        n.cell("child", "u_child", x=a, y=y)
        n.lut([y], b)
        r = n.run(boxes={"child"})
        self.assertEqual(r["levels"], 1.0)
        with self.assertRaises(ValueError):
            n.run()  # not a known cell without being a black box

    def test_loop_and_unknown_cell_are_refused(self):
        n = Net()
        a, b = n.bit(), n.bit()
        n.lut([a], b)
        n.lut([b], a)
        with self.assertRaisesRegex(ValueError, "combinational loop"):
            n.run()
        n = Net()
        n.m["cells"]["x"] = {"type": "XORCY", "port_directions": {}, "connections": {}}
        with self.assertRaisesRegex(ValueError, "XORCY"):
            n.run()

    def test_resources_and_fanout(self):
        n = Net()
        q, a, b, c, s = n.bit("q"), n.bit("a"), n.bit(), n.bit(), n.bit()
        n.ff(b, q)
        n.lut([q, q], a)
        n.lut([a], b)
        n.lut([a, a, a], c)
        n.cell("RAM64M8", ADDRA=[a] * 6, WCLK=CLK, WE=q, DOA=n.bit())
        n.cell("SRLC32E", A=["0"] * 5, CE=RST, CLK=CLK, D=c, Q=s)
        r = n.run()
        res = r["res"]
        self.assertEqual((res["lut"], res["lut1"], res["lutram"], res["srl"], res["ff"]), (2, 1, 8, 1, 1))
        self.assertEqual(res["luteq"], 2 + 1 + 8 + 1)
        # `a` drives 1 + 3 LUT pins and 6 address pins; the clock and the reset input are skipped
        self.assertEqual(r["fanout"][0], {"loads": 10, "net": "a"})
        self.assertNotIn("clock", [f["net"] for f in r["fanout"]])
        self.assertNotIn("reset", [f["net"] for f in r["fanout"]])

    def test_fanout_skips_the_clock_into_black_boxes(self):
        n = Net()
        a, b, c = n.bit("a"), n.bit(), n.bit()
        n.port("a", "input", [a])
        for i in range(3):
            n.cell("child", f"u{i}", clock=CLK, x=c, y=n.bit())
        n.lut([a], b)
        n.lut([a, b], c)
        r = n.run(boxes={"child"})
        self.assertEqual(r["fanout"][0], {"loads": 3, "net": "(LUT2 of a)"})
        self.assertEqual(r["fanout"][1], {"loads": 2, "net": "a"})


BUDGETS = """
[weights]
lut = 1.0
muxf = 0.25
carry8 = 0.3
lutram_read = 1.0
bram_out = 1.0
dsp_out = 2.5
dsp_comb = 5.0
[levels]
limit = 8.0
goal = 6.0
exempt = ["*_patterns"]
[lutram]
max_depth = 64
[luteq]
small = 100
parser = { limit = 6000, without = ["crc"] }
[waivers]
"""


def budgets(extra=""):
    with tempfile.NamedTemporaryFile("w", suffix=".toml", delete=False) as f:
        f.write(BUDGETS + extra)
    return synth.load_budgets(f.name)


class Budgets(unittest.TestCase):
    def test_levels_limit_goal_and_exempt_patterns(self):
        b = budgets()
        self.assertEqual(synth.over_budget("x", 8.0, None, [], {}, b), ([], ["levels 8.00 > goal 6"]))
        self.assertEqual(synth.over_budget("x", 8.25, None, [], {}, b)[0], ["levels 8.25 > 8"])
        self.assertEqual(synth.over_budget("x", 5.0, None, [], {}, b), ([], []))
        self.assertEqual(synth.over_budget("wide_patterns", 12.0, None, [], {}, b), ([], []))

    def test_luteq_and_deep_lutram(self):
        b = budgets()
        self.assertEqual(synth.over_budget("small", 1.0, (101, "LUT-eq", ""), [], {}, b)[0], ["LUT-eq 101 > 100"])
        self.assertEqual(synth.over_budget("small", 1.0, (100, "LUT-eq", ""), [], {}, b)[0], [])
        deep = {"name": "t", "size": 128, "width": 8, "as": "lutram"}
        self.assertEqual(synth.over_budget("y", 1.0, None, [deep], {}, b)[0], ["LUTRAM table t 128x8 deeper than 64"])
        self.assertEqual(synth.over_budget("y", 1.0, None, [dict(deep, **{"as": "bram"})], {}, b)[0], [])
        self.assertEqual(synth.over_budget("y", 1.0, None, [dict(deep, size=64)], {}, b)[0], [])
        self.assertEqual(synth.over_budget("y", 1.0, None, [], {"RAM256X1D": 2}, b)[0], ["LUTRAM primitive(s) deeper than 64: RAM256X1D"])

    def test_handshake_rule_and_its_exemptions(self):
        b = budgets()
        self.assertEqual(synth.over_budget("x", 1.0, None, [], {}, b, ["m_tready>s_tready"])[0], ["ready to handshake path(s) through logic: m_tready>s_tready"])
        b = budgets('[handshake]\nexempt = { x = "a stage inside blocks" }\n')
        self.assertEqual(synth.over_budget("x", 1.0, None, [], {}, b, ["m_tready>s_tready"])[0], [])
        with self.assertRaises(SystemExit):
            budgets('[handshake]\nexempt = { x = "" }\n')

    def test_waiver_needs_its_issue(self):
        self.assertIn("tx", budgets('tx = "issue 9: being rewritten"')["waivers"])
        with self.assertRaises(SystemExit):
            budgets('tx = "later"')

    def test_memories_from_the_dump_and_the_log(self):
        dump = (
            "  cell $mem_v2 \\table_.mem\n    parameter \\SIZE 1024\n    parameter \\WIDTH 152\n    parameter \\RD_PORTS 1\n  end\n"
            "  cell $mem_v2 \\small.mem\n    parameter \\SIZE 16\n    parameter \\WIDTH 8\n    parameter \\RD_PORTS 2\n  end\n"
        )
        log = "mapping memory top.table_.mem via $__XILINX_LUTRAM_SDP_\nmapping memory top.small.mem via $__XILINX_BLOCKRAM_TDP_\n"
        mems = synth.parse_memories(dump, log, "top")
        self.assertEqual(mems[0], {"name": "table_.mem", "size": 1024, "width": 152, "rd_ports": 1, "as": "lutram"})
        self.assertEqual((mems[1]["size"], mems[1]["as"]), (16, "bram"))

    def test_the_project_budgets_load(self):
        b = synth.load_budgets(HERE / "budgets.toml")
        self.assertEqual(b["levels"]["limit"], 8.0)
        self.assertIn("icrc_check", b["luteq"])


class WithYosys(unittest.TestCase):
    """The whole chain on tiny Verilog: yosys' mapping, the netlist, the analysis.
    Needs yosys (tools/deps.sh installs it; make synth and make test run deps first)."""

    def synth(self, top, verilog):
        d = pathlib.Path(tempfile.mkdtemp())
        src = d / f"{top}.sv"
        src.write_text(verilog)
        net = d / "net.json.gz"
        y = synth.synthesize(synth.Design(top, src), {}, d, net)
        self.assertTrue(y["ok"], y.get("error"))
        import gzip
        import json

        with gzip.open(net, "rt") as f:
            return y, sta.analyze(json.load(f), W)

    def test_a_64_bit_adder_is_one_lut_and_its_carry_chain(self):
        y, r = self.synth(
            "add64",
            "module add64(input clock, input [63:0] a, input [63:0] b, output reg [63:0] s);\n"
            "reg [63:0] ra, rb;\nalways @(posedge clock) begin ra <= a; rb <= b; s <= ra + rb; end\nendmodule\n",
        )
        self.assertEqual(r["res"]["carry8"], 8)
        self.assertAlmostEqual(r["levels"], 1.0 + 8 * 0.3)
        self.assertIsNone(r["in_out"])

    def test_a_lutram_read_between_registers_and_a_deep_table(self):
        y, r = self.synth(
            "tab",
            "module tab(input clock, input we, input [6:0] wa, input [6:0] ra, input [7:0] d, output reg [7:0] q);\n"
            "reg [7:0] mem [0:127];\nreg [6:0] ra_q;\n"
            "always @(posedge clock) begin if (we) mem[wa] <= d; ra_q <= ra; q <= mem[ra_q]; end\nendmodule\n",
        )
        self.assertEqual([(m["size"], m["width"], m["as"]) for m in y["memories"]], [(128, 8, "lutram")])
        self.assertGreater(r["res"]["lutram"], 0)
        # FF -> the read (with its 128-deep mux) -> FF, no LUT in between
        self.assertLessEqual(r["levels"], 1.0 + 2 * 0.25 + 1.0)
        self.assertTrue(any(s["cell"].startswith("RAM") for s in r["worst"]["steps"]), r["worst"])
        over, _ = synth.over_budget("tab", r["levels"], None, y["memories"], r["res"]["cells"], budgets())
        self.assertEqual(over, ["LUTRAM table mem 128x8 deeper than 64"])

    def test_a_latch_is_found(self):
        d = pathlib.Path(tempfile.mkdtemp())
        src = d / "lat.sv"
        src.write_text("module lat(input en, input d, output reg q);\nalways @* if (en) q = d;\nendmodule\n")
        y = synth.synthesize(synth.Design("lat", src), {}, d, d / "net.json.gz")
        self.assertGreater(y["inferred_count"], 0)

    def test_the_record_stands_for_a_synthesis_of_the_same_verilog(self):
        d = pathlib.Path(tempfile.mkdtemp())
        (d / "v").mkdir()
        src = d / "v" / "reg8.sv"
        src.write_text("module reg8(input clock, input [7:0] a, output reg [7:0] q);\nalways @(posedge clock) q <= a + 8'd1;\nendmodule\n")
        doc = d / "synth.md"
        doc.write_text("<!-- synth.py --doc: begin -->\n<!-- synth.py --doc: end -->\n")
        env = dict(os.environ, RNIC_SYNTH_RECORD=str(d / "synth.json"), RNIC_BUDGETS=str(HERE / "budgets.toml"))

        def run(cache, *args, check=True):
            e = dict(env, RNIC_CACHE_DIR=str(d / cache), RNIC_SYNTH_CHECK_RECORD="1" if check else "0")
            return subprocess.run([sys.executable, str(HERE / "synth.py"), *args, str(d / "v")], env=e, capture_output=True, text=True)

        # no record yet: synthesized, and the check fails
        p = run("c1")
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("1 synthesized, 0 from the record", p.stdout)
        self.assertIn("not those of this Verilog for reg8", p.stdout)
        # --doc writes the table and the record
        p = run("c1", f"--doc={doc}", check=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("| reg8 |", doc.read_text())
        # an empty cache: the figures come from the record, nothing is synthesized
        p = run("c2")
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn("0 synthesized, 1 from the record", p.stdout)
        # the Verilog changed: synthesized again, the record is stale
        src.write_text(src.read_text().replace("8'd1", "8'd3"))
        p = run("c3")
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("1 synthesized, 0 from the record", p.stdout)


if __name__ == "__main__":
    unittest.main()
