//! Structural properties of the emitter's output: naming, deduplication,
//! determinism, and typed errors for what it refuses.

use hdl_emit::{emit, EmitError, TypeTag};
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct Inc<const N: usize> {
    pub a: Signal<In, Bits<N>>,
    pub y: Signal<Out, Bits<N>>,
    kind: TypeTag<Self>,
}
impl<const N: usize> Logic for Inc<N> {
    #[hdl_gen]
    fn update(&mut self) {
        self.y.next = self.a.val() + 1;
    }
}

#[derive(LogicBlock, Default)]
pub struct Chain {
    pub a: Signal<In, Bits<8>>,
    pub w: Signal<In, Bits<16>>,
    pub y: Signal<Out, Bits<8>>,
    pub z: Signal<Out, Bits<16>>,
    first: Inc<8>,
    second: Inc<8>,
    third: Inc<8>,
    wide: Inc<16>,
    kind: TypeTag<Self>,
}
impl Logic for Chain {
    #[hdl_gen]
    fn update(&mut self) {
        self.first.a.next = self.a.val();
        self.second.a.next = self.first.y.val();
        self.third.a.next = self.second.y.val();
        self.y.next = self.third.y.val();
        self.wide.a.next = self.w.val();
        self.z.next = self.wide.y.val();
    }
}

fn chain() -> Chain {
    let mut c = Chain::default();
    c.connect_all();
    c
}

#[test]
fn modules_are_named_by_type_and_deduplicated() {
    let d = emit(&chain(), "chain_top").unwrap();
    let names: Vec<&str> = d.modules.iter().map(|(n, _)| n.as_str()).collect();
    // three identical Inc<8> are one module; Inc<16> differs, so both carry their generics
    assert_eq!(names, ["inc_8", "inc_16", "chain_top"]);
    let sv = d.to_sv();
    assert_eq!(sv.matches("module inc_8 (").count(), 1);
    assert_eq!(
        sv.matches("inc_8 first (").count()
            + sv.matches("inc_8 second (").count()
            + sv.matches("inc_8 third (").count(),
        3
    );
    assert!(!sv.contains('$'), "no `$` in identifiers");
    assert!(sv.contains("y = 8'(a + 8'd1);"), "the increment is evaluated at 8 bits:\n{sv}");
}

#[test]
fn output_is_deterministic() {
    let a = emit(&chain(), "t").unwrap().to_sv();
    let b = emit(&chain(), "t").unwrap().to_sv();
    assert_eq!(a, b);
}

#[test]
fn top_ports_are_listed_for_the_harness() {
    let d = emit(&chain(), "t").unwrap();
    let p: Vec<(&str, usize)> = d.ports.iter().map(|p| (p.name.as_str(), p.width)).collect();
    assert_eq!(p, [("a", 8), ("w", 16), ("y", 8), ("z", 16)]);
}

#[derive(LogicBlock, Default)]
pub struct BadWidth {
    pub a: Signal<In, Bits<8>>,
    pub y: Signal<Out, Bits<9>>,
}
impl Logic for BadWidth {
    fn update(&mut self) {}
    fn hdl(&self) -> Verilog {
        // what `self.y.next = self.a.val()` would be if Rust allowed it
        Verilog::Combinatorial(vec![ast::VerilogStatement::Assignment(
            ast::VerilogExpression::Signal("y".into()),
            ast::VerilogExpression::Signal("a".into()),
        )])
    }
}

#[test]
fn width_mismatch_is_a_typed_error() {
    let mut b = BadWidth::default();
    b.connect_all();
    b.y.connect();
    match emit(&b, "t") {
        Err(EmitError::Unsupported { detail, .. }) => assert!(detail.contains("8-bit value to a 9-bit"), "{detail}"),
        other => panic!("expected a width error, got {:?}", other.map(|d| d.to_sv())),
    }
}

#[derive(LogicBlock, Default)]
pub struct Clash {
    pub a_b: Signal<In, Bits<4>>,
    pub y: Signal<Out, Bits<4>>,
    inner: Inc<4>,
}
impl Logic for Clash {
    #[hdl_gen]
    fn update(&mut self) {
        self.inner.a.next = self.a_b.val();
        self.y.next = self.inner.y.val();
    }
}
#[derive(LogicBlock, Default)]
pub struct ClashTop {
    pub inner_a: Signal<In, Bits<4>>,
    pub y: Signal<Out, Bits<4>>,
    inner: Inc<4>,
}
impl Logic for ClashTop {
    #[hdl_gen]
    fn update(&mut self) {
        self.inner.a.next = self.inner_a.val();
        self.y.next = self.inner.y.val();
    }
}

/// A child `inner_a` beside a child `inner` with a port `a`: the instance
/// `inner_a` and the wire `inner_a` would share one Verilog name.
#[derive(LogicBlock, Default)]
struct InstanceClashTop {
    pub x: Signal<In, Bits<4>>,
    pub y: Signal<Out, Bits<4>>,
    inner: Inc<4>,
    inner_a: Inc<4>,
}
impl Logic for InstanceClashTop {
    #[hdl_gen]
    fn update(&mut self) {
        self.inner.a.next = self.x.val();
        self.inner_a.a.next = self.inner.y.val();
        self.y.next = self.inner_a.y.val();
    }
}

#[test]
fn instance_and_signal_name_clash_is_reported() {
    let mut c = InstanceClashTop::default();
    c.connect_all();
    assert!(matches!(emit(&c, "t"), Err(EmitError::NameClash { name, .. }) if name == "inner_a"));
}

#[test]
fn name_clash_is_reported_not_merged() {
    let mut c = ClashTop::default();
    c.connect_all();
    // `inner_a` (a port) and `inner$a` (the child's port) both become `inner_a`
    assert_eq!(
        emit(&c, "t").err(),
        Some(EmitError::NameClash { module: "top (untagged)".into(), name: "inner_a".into() })
    );
    let mut ok = Clash::default();
    ok.connect_all();
    assert!(emit(&ok, "t").is_ok());
}

#[derive(LogicBlock, Default)]
pub struct BigLiteral {
    pub a: Signal<In, Bits<4>>,
    pub y: Signal<Out, Bit>,
}
impl Logic for BigLiteral {
    fn update(&mut self) {}
    fn hdl(&self) -> Verilog {
        // `self.y.next = 300.into()` on a 1-bit signal panics in rust-hdl
        Verilog::Combinatorial(vec![ast::VerilogStatement::Assignment(
            ast::VerilogExpression::Signal("y".into()),
            ast::VerilogExpression::Literal(300u32.into()),
        )])
    }
}

#[test]
fn undriven_output_is_a_typed_check_error() {
    let mut b = BigLiteral::default();
    b.connect_all();
    assert!(matches!(emit(&b, "t"), Err(EmitError::Check(e)) if e.contains("OpenSignal")));
}

#[test]
fn literal_too_wide_is_a_typed_error() {
    let mut b = BigLiteral::default();
    b.connect_all();
    b.y.connect();
    match emit(&b, "t") {
        Err(EmitError::Unsupported { detail, .. }) => assert!(detail.contains("does not fit"), "{detail}"),
        other => panic!("expected an error, got {:?}", other.map(|d| d.to_sv())),
    }
}

#[derive(LogicBlock, Default)]
pub struct NotOfCast {
    pub a: Signal<In, Bits<8>>,
    pub b: Signal<In, Bits<8>>,
    pub y: Signal<Out, Bits<8>>,
    pub z: Signal<Out, Bit>,
}
impl Logic for NotOfCast {
    #[hdl_gen]
    fn update(&mut self) {
        self.y.next = !(self.a.val() + self.b.val());
        self.z.next = (self.a.val() - self.b.val()).any();
    }
}

/// yosys 0.23 parses `~8'(x)` as a cast of size `~8`; sized operands of
/// unary operators must be parenthesised.
#[test]
fn unary_operands_that_start_with_a_size_are_parenthesised() {
    let mut b = NotOfCast::default();
    b.connect_all();
    let sv = emit(&b, "t").unwrap().to_sv();
    assert!(sv.contains("y = 8'(~(8'(a + b)));"), "{sv}");
    assert!(sv.contains("z = (|(8'(a - b)));"), "{sv}");
}

#[derive(LogicBlock, Default)]
pub struct Groups {
    pub a: Signal<In, Bits<8>>,
    pub b: Signal<In, Bits<8>>,
    pub ready: Signal<Out, Bit>,
    pub acc: Signal<Out, Bits<8>>,
    tmp: Signal<Local, Bits<8>>,
}
impl Logic for Groups {
    #[hdl_gen]
    fn update(&mut self) {
        self.ready.next = self.a.val() == 0;
        self.acc.next = 0.into();
        self.tmp.next = self.a.val();
        self.acc.next = self.acc.val() ^ self.tmp.val();
        self.tmp.next = self.b.val();
        self.acc.next = self.acc.val() ^ self.tmp.val();
    }
}

/// Independent signals get their own `always_comb`; a temporary that is
/// rewritten and read in between stays in one block with its readers.
#[test]
fn combinational_body_is_split_by_dependence() {
    let mut g = Groups::default();
    g.connect_all();
    let sv = emit(&g, "t").unwrap().to_sv();
    assert_eq!(sv.matches("always_comb").count(), 2, "{sv}");
    let second = sv.split("always_comb").nth(2).unwrap();
    assert!(
        second.contains("tmp = a;") && second.contains("tmp = b;") && second.contains("acc = (acc ^ tmp);"),
        "{sv}"
    );
}

// ------------------------------------------------------------------ refusals
//
// Each block below is valid rust-hdl that the emitter cannot give its Rust
// meaning (or that rust-hdl itself would reject at run time); each must be
// refused with a typed error that names the module and the construct.

fn refusal(b: &mut dyn Block, what: &str) -> String {
    b.connect_all();
    match emit(b, "t") {
        Err(EmitError::Unsupported { module, detail }) => {
            assert!(detail.contains(what), "{module}: {detail}");
            format!("{module}: {detail}")
        }
        Err(e) => panic!("expected an Unsupported error naming `{what}`, got {e}"),
        Ok(d) => panic!("expected a refusal ({what}), got:\n{}", d.to_sv()),
    }
}

#[derive(LogicBlock, Default)]
pub struct WideLiteralCompare {
    pub w: Signal<In, Bits<40>>,
    pub y: Signal<Out, Bit>,
}
impl Logic for WideLiteralCompare {
    #[hdl_gen]
    fn update(&mut self) {
        // 41 bits: rust-hdl silently drops bit 40 before comparing
        self.y.next = self.w.val() == 0x100_0000_0001_u64;
    }
}

#[test]
fn a_literal_wider_than_the_vector_it_meets_is_refused() {
    let msg = refusal(&mut WideLiteralCompare::default(), "does not fit");
    assert!(msg.contains("w == "), "the expression is named: {msg}");
}

#[derive(LogicBlock, Default)]
pub struct ChildReadInWriter {
    pub x: Signal<In, Bits<8>>,
    pub sel: Signal<In, Bit>,
    pub y: Signal<Out, Bits<8>>,
    pub z: Signal<Out, Bits<8>>,
    inner: Inc<8>,
}
impl Logic for ChildReadInWriter {
    #[hdl_gen]
    fn update(&mut self) {
        self.y.next = 0.into();
        self.inner.a.next = self.x.val();
        if self.sel.val() {
            self.inner.a.next = self.x.val() + 1;
            // rust-hdl: the settled value of `inner.a`; Verilog: what was just written
            self.y.next = self.inner.a.val();
        }
        self.z.next = self.inner.y.val();
    }
}

#[test]
fn a_child_input_read_where_it_is_written_is_refused() {
    let msg = refusal(&mut ChildReadInWriter::default(), "input of a child");
    assert!(msg.contains("inner.a"), "{msg}");
}

#[derive(Copy, Clone, Debug, PartialEq, Default, LogicStruct)]
pub struct Pair {
    pub lo: Bits<4>,
    pub hi: Bits<4>,
}

#[derive(LogicBlock, Default)]
pub struct FieldReadBeforeWrite {
    pub a: Signal<In, Bits<4>>,
    pub y: Signal<Out, Bits<4>>,
    pub z: Signal<Out, Bits<8>>,
    s: Signal<Local, Pair>,
}
impl Logic for FieldReadBeforeWrite {
    #[hdl_gen]
    fn update(&mut self) {
        self.s.next.lo = self.a.val();
        // `hi` is read before this process writes it: the previous pass's value
        self.s.next.hi = self.s.val().hi + 1;
        self.y.next = self.s.val().lo;
        self.z.next = self.s.val().into();
    }
}

#[test]
fn a_field_read_before_its_write_is_refused() {
    let msg = refusal(&mut FieldReadBeforeWrite::default(), "read before");
    assert!(msg.contains("`s`"), "{msg}");
}

#[derive(LogicBlock, Default)]
pub struct SliceWriteBeyond {
    pub a: Signal<In, Bits<4>>,
    pub y: Signal<Out, Bits<8>>,
}
impl Logic for SliceWriteBeyond {
    fn update(&mut self) {}
    fn hdl(&self) -> Verilog {
        // a 4-bit field at offset 6 of an 8-bit signal (rust-hdl's set_bits panics)
        Verilog::Combinatorial(vec![
            ast::VerilogStatement::Assignment(
                ast::VerilogExpression::Signal("y".into()),
                ast::VerilogExpression::Literal(0u32.into()),
            ),
            ast::VerilogStatement::SliceAssignment {
                base: ast::VerilogExpression::Signal("y".into()),
                width: 4,
                offset: ast::VerilogExpression::Literal(6u32.into()),
                replacement: ast::VerilogExpression::Signal("a".into()),
            },
        ])
    }
}

#[test]
fn a_slice_write_out_of_range_is_refused() {
    let mut b = SliceWriteBeyond::default();
    b.y.connect();
    refusal(&mut b, "beyond the 8-bit signal");
}

#[derive(LogicBlock, Default)]
pub struct ConstIndexBeyond {
    pub a: Signal<In, Bits<8>>,
    pub y: Signal<Out, Bit>,
    pub z: Signal<Out, Bits<4>>,
}
impl Logic for ConstIndexBeyond {
    #[hdl_gen]
    fn update(&mut self) {
        self.y.next = self.a.val().get_bit(8);
        self.z.next = self.a.val().get_bits::<4>(2);
    }
}

#[test]
fn a_constant_bit_index_past_the_top_is_refused() {
    refusal(&mut ConstIndexBeyond::default(), "out of range for 8 bits");
}

/// A project block whose author forgot `kind: TypeTag<Self>`.
#[derive(LogicBlock, Default)]
pub struct Untagged {
    pub a: Signal<In, Bits<4>>,
    pub y: Signal<Out, Bits<4>>,
}
impl Logic for Untagged {
    #[hdl_gen]
    fn update(&mut self) {
        self.y.next = self.a.val() + 1;
    }
}

#[derive(LogicBlock, Default)]
pub struct HoldsUntagged {
    pub a: Signal<In, Bits<4>>,
    pub y: Signal<Out, Bits<4>>,
    part: Untagged,
}
impl Logic for HoldsUntagged {
    #[hdl_gen]
    fn update(&mut self) {
        self.part.a.next = self.a.val();
        self.y.next = self.part.y.val();
    }
}

#[test]
fn a_block_without_a_type_tag_is_refused() {
    let msg = refusal(&mut HoldsUntagged::default(), "TypeTag");
    assert!(msg.contains("part"), "the instance is named: {msg}");
}

/// A black box named like a module the emitter generates: the generated
/// module would silently stand in for it.
#[derive(LogicBlock, Default)]
pub struct IncBox {
    pub a: Signal<In, Bits<8>>,
    pub y: Signal<Out, Bits<8>>,
}
impl Logic for IncBox {
    fn update(&mut self) {}
    fn hdl(&self) -> Verilog {
        Verilog::Blackbox(ast::BlackBox { code: "// vendor core".into(), name: "inc".into() })
    }
}
#[derive(LogicBlock, Default)]
pub struct BoxBeside {
    pub a: Signal<In, Bits<8>>,
    pub y: Signal<Out, Bits<8>>,
    pub z: Signal<Out, Bits<8>>,
    vendor: IncBox,
    ours: Inc<8>,
    kind: TypeTag<Self>,
}
impl Logic for BoxBeside {
    #[hdl_gen]
    fn update(&mut self) {
        self.vendor.a.next = self.a.val();
        self.ours.a.next = self.a.val();
        self.y.next = self.vendor.y.val();
        self.z.next = self.ours.y.val();
    }
}

#[test]
fn a_black_box_named_like_a_generated_module_is_refused() {
    let mut b = BoxBeside::default();
    b.connect_all();
    b.vendor.y.connect(); // driven by the vendor core
    let r = emit(&b, "t").map(|d| d.modules.iter().map(|m| m.0.clone()).collect::<Vec<_>>());
    assert!(matches!(&r, Err(EmitError::NameClash { name, .. }) if name == "inc"), "{r:?}");
}

#[derive(LogicBlock, Default)]
pub struct IndexArith {
    pub i: Signal<In, Bits<3>>,
    pub x: Signal<In, Bits<64>>,
    pub y: Signal<Out, Bits<8>>,
    pub top: Signal<Out, Bit>,
}
impl Logic for IndexArith {
    #[hdl_gen]
    fn update(&mut self) {
        self.y.next = self.x.val().get_bits::<8>(self.i.val().index() << 3);
        self.top.next = self.i.val().index() + 1 == 8;
    }
}

/// `index()` is a `usize`: arithmetic on it is 64-bit, never the vector's width.
#[test]
fn index_arithmetic_is_usize_arithmetic() {
    let mut b = IndexArith::default();
    b.connect_all();
    let sv = emit(&b, "t").unwrap().to_sv();
    assert!(sv.contains("top = (64'({61'd0, i} + 64'h1) == 64'h8);"), "{sv}");
    assert!(sv.contains("y = x[6'(64'({61'd0, i} << 3)) +: 8];"), "{sv}");
}

/// Every `unsafe` block of the generated FFI wrapper has its own SAFETY
/// note on the line before it, and every store masks to the port width.
#[test]
fn generated_ffi_documents_every_unsafe_block_and_masks_stores() {
    let mut b = IndexArith::default();
    b.connect_all();
    let d = emit(&b, "t").unwrap();
    let rs = hdl_emit::shim::rust("t", &d.ports);
    let lines: Vec<&str> = rs.lines().collect();
    let mut n = 0;
    for (i, l) in lines.iter().enumerate() {
        if l.contains("unsafe {") {
            n += 1;
            assert!(i > 0 && lines[i - 1].trim_start().starts_with("// SAFETY:"), "no SAFETY note before:\n{l}");
        }
    }
    assert!(n >= 8, "expected the setters, getters, new, drop, eval and word accessors: {n}");
    let cpp = hdl_emit::shim::cpp("t", &d.ports, false);
    assert!(cpp.contains("m->top->i = w[0] & 0x7u;"), "a 3-bit store is masked:\n{cpp}");
    assert!(cpp.contains("m->top->x = (uint64_t)w[0] | ((uint64_t)(w[1] & 0xffffffffu) << 32);"), "{cpp}");
}

#[derive(LogicBlock, Default)]
pub struct WrittenOnSomePaths {
    pub a: Signal<In, Bits<8>>,
    pub c: Signal<In, Bit>,
    pub y: Signal<Out, Bits<8>>,
    t: Signal<Local, Bits<8>>,
}
impl Logic for WrittenOnSomePaths {
    #[hdl_gen]
    fn update(&mut self) {
        // no else: `t` keeps its last value when `c` is low (a latch)
        if self.c.val() {
            self.t.next = self.a.val();
        }
        self.y.next = self.t.val();
    }
}

#[test]
fn a_signal_written_on_some_paths_only_is_refused() {
    let msg = refusal(&mut WrittenOnSomePaths::default(), "not written on every path");
    assert!(msg.contains("`t`"), "{msg}");
}

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum Three {
    A,
    B,
    C,
}

#[derive(LogicBlock, Default)]
pub struct ArmsAssign {
    pub s: Signal<In, Bits<2>>,
    pub y: Signal<Out, Bits<4>>,
    st: Signal<Local, Three>,
}
impl Logic for ArmsAssign {
    #[hdl_gen]
    fn update(&mut self) {
        self.st.next = Three::A;
        if self.s.val() == 1 {
            self.st.next = Three::B;
        }
        if self.s.val() == 2 {
            self.st.next = Three::C;
        }
        match self.st.val() {
            Three::A => self.y.next = 1.into(),
            Three::B => self.y.next = 2.into(),
            Three::C => self.y.next = 3.into(),
        }
    }
}

/// An enum match that names every variant: the last arm becomes `default`
/// (the unused encoding goes there), so `y` is assigned on every path.
#[test]
fn an_exhaustive_enum_match_ends_in_its_last_arm_as_default() {
    let mut b = ArmsAssign::default();
    b.connect_all();
    let sv = emit(&b, "t").unwrap().to_sv();
    let default_arm = sv.split("default: begin").nth(1).expect("a default arm");
    assert!(default_arm.trim_start().starts_with("y = 4'd3;"), "the last arm is the default:\n{sv}");
    assert!(!sv.contains("Three_C: begin"), "{sv}");
    assert_eq!(sv.matches("default:").count(), 1, "{sv}");
}
