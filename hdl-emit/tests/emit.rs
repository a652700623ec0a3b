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
    assert_eq!(sv.matches("inc_8 first (").count() + sv.matches("inc_8 second (").count() + sv.matches("inc_8 third (").count(), 3);
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

#[test]
fn name_clash_is_reported_not_merged() {
    let mut c = ClashTop::default();
    c.connect_all();
    // `inner_a` (a port) and `inner$a` (the child's port) both become `inner_a`
    assert_eq!(emit(&c, "t").err(), Some(EmitError::NameClash { module: "top (untagged)".into(), name: "inner_a".into() }));
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
    assert!(second.contains("tmp = a;") && second.contains("tmp = b;") && second.contains("acc = (acc ^ tmp);"), "{sv}");
}
