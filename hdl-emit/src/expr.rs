//! Expressions and statements of rust-hdl's AST, written as SystemVerilog
//! whose value is the Rust value.
//!
//! Rust evaluates `a + b` on `Bits<8>` at 8 bits; Verilog evaluates it at the
//! width of the surrounding context, so a carry or a shifted-out bit survives.
//! Every emitted sub-expression is therefore *pinned*: its self-determined
//! width is exactly its Rust width, and embedding it in a wider context cannot
//! change its value. Arithmetic, shifts and inversion get a size cast
//! (`8'(a + b)`); bitwise operators and comparisons get parentheses; literals
//! are sized to the operand they meet, as rust-hdl's `From<u64>` does.

use crate::error::EmitError;
use num_bigint::BigUint;
use num_traits::{One, ToPrimitive, Zero};
use rust_hdl_core::ast::{
    VerilogBlock, VerilogBlockOrConditional, VerilogExpression as E, VerilogLink, VerilogOp as Op,
    VerilogOpUnary as Un, VerilogStatement as S,
};
use std::collections::BTreeMap;

#[derive(Clone, Debug)]
pub enum SymKind {
    Signal,
    /// A `LogicState` variant, with its value (declared as a localparam).
    EnumConst(#[allow(dead_code)] usize),
}

#[derive(Clone, Debug)]
pub struct Sym {
    pub width: usize,
    pub signed: bool,
    pub is_clock: bool,
    /// An input port of a child block: rust-hdl's `Signal<In>::val()` reads
    /// its settled value, never a value written earlier in the same pass.
    pub child_input: bool,
    pub kind: SymKind,
}

/// The Rust type of an expression: a fixed-width vector, or a literal that
/// takes its width from the operand it meets.
#[derive(Clone, Debug)]
enum Ty {
    Fixed { w: usize, signed: bool },
    Lit(BigUint),
}

/// A read or a write of a signal by a statement.
#[derive(Clone, Debug)]
struct Access {
    write: bool,
    name: String,
    /// `(offset, width)` of a constant slice; `None` for the whole signal.
    bits: Option<(usize, usize)>,
    /// For the summary at the end of a statement: the bits every path of it
    /// writes (the accesses themselves leave this `None`).
    definite: Option<BigUint>,
}

/// A directed connection `dst = src` coming from `join`/`link`.
pub struct Assign {
    pub dst: String,
    pub src: String,
}

pub struct BodyOut {
    pub comb: Vec<String>,
    pub clock_assigns: Vec<Assign>,
    pub links: Vec<Assign>,
    /// The body split into independent `always_comb` blocks: statements that
    /// write a common signal stay together, in order. Separate processes let
    /// a simulator see true dependencies (one block per module would make a
    /// FIFO's `tready` look as if it depended on `tvalid`). Every read sees
    /// the settled value either way, as in rust-hdl's simulation.
    pub groups: Vec<Vec<String>>,
}

pub struct Scope<'a> {
    pub syms: &'a BTreeMap<String, Sym>,
    pub module: &'a str,
    /// Named constants the Rust code uses by name (`const` items), which
    /// rust-hdl hands over as bare identifiers.
    pub consts: &'a BTreeMap<String, u64>,
    loops: Vec<(String, i64)>,
    /// Assignments per target, from a first pass over the body.
    /// Signals written and read by the statement being emitted.
    writes: Vec<String>,
    reads: std::cell::RefCell<Vec<String>>,
    /// Reads and writes of the statement being emitted, in text order, with
    /// the bits they touch (`None`: all of them).
    events: std::cell::RefCell<Vec<Access>>,
}

pub fn sanitize(raw: &str) -> String {
    let s = raw.replace('$', "_");
    if is_reserved(&s) {
        format!("{s}_")
    } else {
        s
    }
}

/// A SystemVerilog keyword, a name of SystemVerilog's built-in `std`
/// package, or a C++ keyword (Verilator turns ports into C++ members).
pub fn is_reserved(s: &str) -> bool {
    SV_KEYWORDS.contains(&s) || SV_BUILTIN_NAMES.contains(&s) || CXX_KEYWORDS.contains(&s)
}

/// Not keywords, but the names of IEEE 1800-2017's built-in package `std`
/// (26.7) and its classes `process` (9.7), `semaphore` (15.3) and
/// `mailbox` (15.4):
/// a signal of the same name shadows the class in tools that import `std`
/// implicitly, so the emitter renames it as it renames a keyword.
const SV_BUILTIN_NAMES: &[&str] = &["mailbox", "process", "semaphore", "std"];

const CXX_KEYWORDS: &[&str] = &[
    "alignas",
    "alignof",
    "and_eq",
    "asm",
    "auto",
    "bitand",
    "bitor",
    "bool",
    "catch",
    "char",
    "compl",
    "concept",
    "constexpr",
    "continue",
    "decltype",
    "delete",
    "double",
    "dynamic_cast",
    "explicit",
    "export",
    "extern",
    "false",
    "float",
    "friend",
    "goto",
    "inline",
    "long",
    "mutable",
    "namespace",
    "new",
    "noexcept",
    "not_eq",
    "nullptr",
    "operator",
    "or_eq",
    "private",
    "protected",
    "public",
    "register",
    "short",
    "sizeof",
    "static",
    "switch",
    "template",
    "this",
    "throw",
    "true",
    "try",
    "typedef",
    "typeid",
    "typename",
    "using",
    "virtual",
    "volatile",
    "xor_eq",
];

/// IEEE 1800-2017 reserved words.
const SV_KEYWORDS: &[&str] = &[
    "accept_on",
    "alias",
    "always",
    "always_comb",
    "always_ff",
    "always_latch",
    "and",
    "assert",
    "assign",
    "assume",
    "automatic",
    "before",
    "begin",
    "bind",
    "bins",
    "binsof",
    "bit",
    "break",
    "buf",
    "bufif0",
    "bufif1",
    "byte",
    "case",
    "casex",
    "casez",
    "cell",
    "chandle",
    "checker",
    "class",
    "clocking",
    "cmos",
    "config",
    "const",
    "constraint",
    "context",
    "continue",
    "cover",
    "covergroup",
    "coverpoint",
    "cross",
    "deassign",
    "default",
    "defparam",
    "design",
    "disable",
    "dist",
    "do",
    "edge",
    "else",
    "end",
    "endcase",
    "endchecker",
    "endclass",
    "endclocking",
    "endconfig",
    "endfunction",
    "endgenerate",
    "endgroup",
    "endinterface",
    "endmodule",
    "endpackage",
    "endprimitive",
    "endprogram",
    "endproperty",
    "endspecify",
    "endsequence",
    "endtable",
    "endtask",
    "enum",
    "event",
    "eventually",
    "expect",
    "export",
    "extends",
    "extern",
    "final",
    "first_match",
    "for",
    "force",
    "foreach",
    "forever",
    "fork",
    "forkjoin",
    "function",
    "generate",
    "genvar",
    "global",
    "highz0",
    "highz1",
    "if",
    "iff",
    "ifnone",
    "ignore_bins",
    "illegal_bins",
    "implements",
    "implies",
    "import",
    "incdir",
    "include",
    "initial",
    "inout",
    "input",
    "inside",
    "instance",
    "int",
    "integer",
    "interconnect",
    "interface",
    "intersect",
    "join",
    "join_any",
    "join_none",
    "large",
    "let",
    "liblist",
    "library",
    "local",
    "localparam",
    "logic",
    "longint",
    "macromodule",
    "matches",
    "medium",
    "modport",
    "module",
    "nand",
    "negedge",
    "nettype",
    "new",
    "nexttime",
    "nmos",
    "nor",
    "noshowcancelled",
    "not",
    "notif0",
    "notif1",
    "null",
    "or",
    "output",
    "package",
    "packed",
    "parameter",
    "pmos",
    "posedge",
    "primitive",
    "priority",
    "program",
    "property",
    "protected",
    "pull0",
    "pull1",
    "pulldown",
    "pullup",
    "pulsestyle_ondetect",
    "pulsestyle_onevent",
    "pure",
    "rand",
    "randc",
    "randcase",
    "randsequence",
    "rcmos",
    "real",
    "realtime",
    "ref",
    "reg",
    "reject_on",
    "release",
    "repeat",
    "restrict",
    "return",
    "rnmos",
    "rpmos",
    "rtran",
    "rtranif0",
    "rtranif1",
    "s_always",
    "s_eventually",
    "s_nexttime",
    "s_until",
    "s_until_with",
    "scalared",
    "sequence",
    "shortint",
    "shortreal",
    "showcancelled",
    "signed",
    "small",
    "soft",
    "solve",
    "specify",
    "specparam",
    "static",
    "string",
    "strong",
    "strong0",
    "strong1",
    "struct",
    "super",
    "supply0",
    "supply1",
    "sync_accept_on",
    "sync_reject_on",
    "table",
    "tagged",
    "task",
    "this",
    "throughout",
    "time",
    "timeprecision",
    "timeunit",
    "tran",
    "tranif0",
    "tranif1",
    "tri",
    "tri0",
    "tri1",
    "triand",
    "trior",
    "trireg",
    "type",
    "typedef",
    "union",
    "unique",
    "unique0",
    "unsigned",
    "until",
    "until_with",
    "untyped",
    "use",
    "uwire",
    "var",
    "vectored",
    "virtual",
    "void",
    "wait",
    "wait_order",
    "wand",
    "weak",
    "weak0",
    "weak1",
    "while",
    "wildcard",
    "wire",
    "with",
    "within",
    "wor",
    "xnor",
    "xor",
];

/// Parse rust-hdl's literal rendering (`8'h0a`, `5'b101`).
pub fn parse_literal(s: &str) -> Option<(usize, BigUint)> {
    let (w, rest) = s.split_once('\'')?;
    let w: usize = w.trim().parse().ok()?;
    let rest = rest.trim_start_matches('s');
    let (radix, digits) = match rest.chars().next()? {
        'h' => (16, &rest[1..]),
        'b' => (2, &rest[1..]),
        'd' => (10, &rest[1..]),
        _ => return None,
    };
    let v = BigUint::parse_bytes(digits.replace('_', "").as_bytes(), radix)?;
    Some((w, v))
}

fn parse_rust_int(s: &str) -> Option<BigUint> {
    let mut t = s.replace('_', "");
    for suffix in ["usize", "isize", "u128", "i128", "u64", "i64", "u32", "i32", "u16", "i16", "u8", "i8"] {
        if let Some(x) = t.strip_suffix(suffix) {
            t = x.to_string();
            break;
        }
    }
    if let Some(h) = t.strip_prefix("0x") {
        BigUint::parse_bytes(h.as_bytes(), 16)
    } else if let Some(b) = t.strip_prefix("0b") {
        BigUint::parse_bytes(b.as_bytes(), 2)
    } else if let Some(o) = t.strip_prefix("0o") {
        BigUint::parse_bytes(o.as_bytes(), 8)
    } else {
        BigUint::parse_bytes(t.as_bytes(), 10)
    }
}

pub fn sized_literal(w: usize, v: &BigUint, signed: bool) -> String {
    let s = if signed { "s" } else { "" };
    if w <= 8 && w & 3 != 0 {
        format!("{w}'{s}b{}", v.to_str_radix(2))
    } else if v.bits() <= 32 && w <= 32 {
        format!("{w}'{s}d{v}")
    } else {
        format!("{w}'{s}h{}", v.to_str_radix(16))
    }
}

/// Width of Rust's `usize` (what `index()` returns) on the 64-bit hosts
/// rust-hdl's simulation runs on.
const USIZE: usize = 64;

/// Bits needed to index an `n`-bit vector.
fn clog2(n: usize) -> usize {
    (usize::BITS - n.saturating_sub(1).leading_zeros()) as usize
}

/// A Rust-like rendering of an expression, for error messages.
pub fn show(e: &E) -> String {
    match e {
        E::Signal(s) => s.trim().trim_start_matches('.').replace('$', ".").to_string(),
        E::Literal(l) => l.to_string(),
        E::Cast(x, w) => format!("bit_cast::<{w}>({})", show(x)),
        E::Signed(x) => format!("signed_cast({})", show(x)),
        E::Unsigned(x) => format!("unsigned_cast({})", show(x)),
        E::Paren(x) => format!("({})", show(x)),
        E::Binary(l, op, r) => format!("{} {} {}", show(l), op_symbol(op), show(r)),
        E::Unary(op, x) => match op {
            Un::Not => format!("!{}", show(x)),
            Un::Neg => format!("-{}", show(x)),
            Un::All => format!("{}.all()", show(x)),
            Un::Any => format!("{}.any()", show(x)),
            Un::Xor => format!("{}.xor()", show(x)),
        },
        E::Index(x, i) => format!("{}.get_bit({})", show(x), show(i)),
        E::Slice(x, w, o) => format!("{}.get_bits::<{w}>({})", show(x), show(o)),
        E::IndexReplace(x, i, v) => format!("{}.replace_bit({}, {})", show(x), show(i), show(v)),
    }
}

fn lit_bits(v: &BigUint) -> usize {
    (v.bits() as usize).max(1)
}

fn mask(w: usize) -> BigUint {
    (BigUint::one() << w) - BigUint::one()
}

impl<'a> Scope<'a> {
    pub fn new(syms: &'a BTreeMap<String, Sym>, module: &'a str, consts: &'a BTreeMap<String, u64>) -> Self {
        Scope {
            syms,
            module,
            consts,
            loops: vec![],
            writes: vec![],
            reads: Default::default(),
            events: Default::default(),
        }
    }

    fn err(&self, msg: impl Into<String>) -> EmitError {
        EmitError::Unsupported { module: self.module.to_string(), detail: msg.into() }
    }

    /// rust-hdl's identifier fix-up (`.x.y` -> `x$y`, `$next` dropped), with
    /// array indices evaluated under the current loop variables.
    fn fix_name(&self, raw: &str) -> Result<String, EmitError> {
        let mut x = raw.trim().to_string();
        if let Some((_, v)) = self.loops.iter().rev().find(|(n, _)| *n == x) {
            return Ok(v.to_string());
        }
        if x.starts_with('.') {
            x.remove(0);
        }
        x = x.replace("::", "$").replace('.', "$");
        if let Some(s) = x.strip_suffix("$next") {
            x = s.to_string();
        }
        while let Some(open) = x.find('[') {
            let close = x[open..].find(']').ok_or_else(|| self.err(format!("bad index in {raw}")))? + open;
            let v = self.eval_index(&x[open + 1..close]).ok_or_else(|| {
                self.err(format!(
                    "array index `{}` in `{raw}` must be a literal or loop variable expression",
                    &x[open + 1..close]
                ))
            })?;
            x = format!("{}${}{}", &x[..open], v, &x[close + 1..]);
        }
        Ok(x)
    }

    /// Tiny evaluator for index expressions: integers, loop variables, + - * / and parentheses.
    fn eval_index(&self, s: &str) -> Option<i64> {
        let toks: Vec<char> = s.chars().filter(|c| !c.is_whitespace()).collect();
        let mut pos = 0;
        let v = self.ix_sum(&toks, &mut pos)?;
        (pos == toks.len()).then_some(v)
    }
    fn ix_sum(&self, t: &[char], p: &mut usize) -> Option<i64> {
        let mut v = self.ix_prod(t, p)?;
        while *p < t.len() && (t[*p] == '+' || t[*p] == '-') {
            let op = t[*p];
            *p += 1;
            let r = self.ix_prod(t, p)?;
            v = if op == '+' { v + r } else { v - r };
        }
        Some(v)
    }
    fn ix_prod(&self, t: &[char], p: &mut usize) -> Option<i64> {
        let mut v = self.ix_atom(t, p)?;
        while *p < t.len() && (t[*p] == '*' || t[*p] == '/') {
            let op = t[*p];
            *p += 1;
            let r = self.ix_atom(t, p)?;
            v = if op == '*' { v * r } else { v.checked_div(r)? };
        }
        Some(v)
    }
    fn ix_atom(&self, t: &[char], p: &mut usize) -> Option<i64> {
        if *p < t.len() && t[*p] == '(' {
            *p += 1;
            let v = self.ix_sum(t, p)?;
            if *p < t.len() && t[*p] == ')' {
                *p += 1;
                return Some(v);
            }
            return None;
        }
        let start = *p;
        while *p < t.len() && (t[*p].is_alphanumeric() || t[*p] == '_') {
            *p += 1;
        }
        let word: String = t[start..*p].iter().collect();
        if word.is_empty() {
            return None;
        }
        if let Ok(v) = word.parse::<i64>() {
            return Some(v);
        }
        self.loops.iter().rev().find(|(n, _)| *n == word).map(|(_, v)| *v)
    }

    fn lookup(&self, raw: &str) -> Result<(String, Option<&Sym>, Option<BigUint>), EmitError> {
        let name = self.fix_name(raw)?;
        if let Some(v) = parse_rust_int(&name).filter(|_| name.starts_with(|c: char| c.is_ascii_digit())) {
            return Ok((name, None, Some(v)));
        }
        match self.syms.get(&name) {
            Some(s) => Ok((name, Some(s), None)),
            None => match self.consts.get(raw.trim()) {
                Some(v) => Ok((name, None, Some(BigUint::from(*v)))),
                None => Err(self.err(format!("unknown signal `{name}` (from `{raw}`)"))),
            },
        }
    }

    fn ty(&self, e: &E) -> Result<Ty, EmitError> {
        Ok(match e {
            E::Signal(s) => match self.lookup(s)? {
                (_, _, Some(v)) => Ty::Lit(v),
                (_, Some(sym), _) => Ty::Fixed { w: sym.width, signed: sym.signed },
                _ => unreachable!(),
            },
            E::Literal(l) => {
                let (_, v) = parse_literal(&l.to_string()).ok_or_else(|| self.err(format!("literal {l}")))?;
                Ty::Lit(v)
            }
            // a `Cast` of a signed operand is `signed_bit_cast` (sign-extending)
            E::Cast(x, w) => Ty::Fixed { w: *w, signed: matches!(self.ty(x)?, Ty::Fixed { signed: true, .. }) },
            E::Signed(x) => Ty::Fixed { w: self.width_of(x)?, signed: true },
            E::Unsigned(x) => Ty::Fixed { w: self.width_of(x)?, signed: false },
            E::Paren(x) => self.ty(x)?,
            E::Binary(l, op, r) => self.binop_ty(l, op, r)?,
            E::Unary(op, x) => match op {
                Un::Not | Un::Neg => match self.ty(x)? {
                    Ty::Lit(_) => return Err(self.err("unary operator on a bare literal")),
                    t => t,
                },
                Un::All | Un::Any | Un::Xor => Ty::Fixed { w: 1, signed: false },
            },
            E::Index(_, _) => Ty::Fixed { w: 1, signed: false },
            // `Signed<N>::get_bits` is a `Signed<M>`
            E::Slice(x, w, _) => Ty::Fixed { w: *w, signed: matches!(self.ty(x)?, Ty::Fixed { signed: true, .. }) },
            E::IndexReplace(x, _, _) => Ty::Fixed { w: self.width_of(x)?, signed: false },
        })
    }

    fn width_of(&self, e: &E) -> Result<usize, EmitError> {
        match self.ty(e)? {
            Ty::Fixed { w, .. } => Ok(w),
            Ty::Lit(_) => Err(self.err("a literal needs a width from its context here")),
        }
    }

    fn binop_ty(&self, l: &E, op: &Op, r: &E) -> Result<Ty, EmitError> {
        let (tl, tr) = (self.ty(l)?, self.ty(r)?);
        Ok(match op {
            Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge | Op::LogicalAnd | Op::LogicalOr => {
                Ty::Fixed { w: 1, signed: false }
            }
            Op::Shl | Op::Shr => match (tl, tr) {
                (Ty::Fixed { w, signed }, _) => Ty::Fixed { w, signed },
                (Ty::Lit(a), Ty::Lit(b)) => Ty::Lit(fold(op, &a, &b).ok_or_else(|| self.err("shift fold"))?),
                // `u64 << Bits<N>` is a Bits<64> in rust-hdl
                (Ty::Lit(_), Ty::Fixed { .. }) => Ty::Fixed { w: 64, signed: false },
            },
            Op::Mul => match (tl, tr) {
                // rust-hdl multiplies only 16 x 16 -> 32 (`Bits` and `Signed`)
                (Ty::Fixed { w: 16, signed }, Ty::Fixed { w: 16, .. }) => Ty::Fixed { w: 32, signed },
                // `usize` arithmetic (`i.index() * 8`)
                (Ty::Fixed { w: USIZE, signed: false }, Ty::Fixed { w: USIZE, signed: false })
                | (Ty::Fixed { w: USIZE, signed: false }, Ty::Lit(_))
                | (Ty::Lit(_), Ty::Fixed { w: USIZE, signed: false }) => Ty::Fixed { w: USIZE, signed: false },
                (Ty::Lit(a), Ty::Lit(b)) => {
                    Ty::Lit(fold(op, &a, &b).ok_or_else(|| self.err("literal product overflows u64"))?)
                }
                (Ty::Fixed { w: a, .. }, Ty::Fixed { w: b, .. }) => {
                    return Err(self.err(format!(
                        "multiplication of {a}-bit by {b}-bit values (rust-hdl has Bits<16> * Bits<16> only)"
                    )))
                }
                (Ty::Fixed { w, .. }, Ty::Lit(_)) | (Ty::Lit(_), Ty::Fixed { w, .. }) => {
                    return Err(self.err(format!(
                        "multiplication of a {w}-bit value by a literal (rust-hdl has Bits<16> * Bits<16> only)"
                    )))
                }
            },
            Op::Add | Op::Sub | Op::BitAnd | Op::BitOr | Op::BitXor => match (tl, tr) {
                (Ty::Fixed { w: a, signed }, Ty::Fixed { w: b, .. }) => {
                    if a != b && !(matches!(op, Op::Add) && b == 1) {
                        return Err(self.err(format!("operands of {op:?} have widths {a} and {b}")));
                    }
                    Ty::Fixed { w: a, signed }
                }
                (Ty::Fixed { w, signed }, Ty::Lit(_)) | (Ty::Lit(_), Ty::Fixed { w, signed }) => {
                    Ty::Fixed { w, signed }
                }
                (Ty::Lit(a), Ty::Lit(b)) => Ty::Lit(fold(op, &a, &b).ok_or_else(|| self.err("literal fold"))?),
            },
        })
    }

    /// Emit `e` so that its self-determined width and value are the Rust ones.
    /// `want` sizes a bare literal (with its signedness).
    pub fn expr(&self, e: &E, want: Option<(usize, bool)>) -> Result<String, EmitError> {
        let t = self.ty(e)?;
        if let Ty::Lit(v) = &t {
            let (w, signed) = want.unwrap_or((lit_bits(v), false));
            if v.bits() as usize > w {
                return Err(self.err(format!("literal {v} does not fit in {w} bits")));
            }
            return Ok(sized_literal(w, v, signed));
        }
        let Ty::Fixed { w, signed } = t else { unreachable!() };
        Ok(match e {
            E::Signal(s) => {
                let (name, sym, _) = self.lookup(s)?;
                match sym.map(|s| &s.kind) {
                    Some(SymKind::EnumConst(_)) => enum_param_name(&name),
                    _ => {
                        self.reads.borrow_mut().push(name.clone());
                        self.events.borrow_mut().push(Access {
                            write: false,
                            name: name.clone(),
                            bits: None,
                            definite: None,
                        });
                        sanitize(&name)
                    }
                }
            }
            E::Literal(_) => unreachable!(),
            E::Paren(x) => self.expr(x, want)?,
            E::Cast(x, m) => match self.ty(x)? {
                Ty::Lit(v) => {
                    if v.bits() as usize > *m {
                        return Err(self.err(format!("literal {v} does not fit in {m} bits")));
                    }
                    sized_literal(*m, &v, false)
                }
                Ty::Fixed { w: xw, signed: true } => {
                    // `signed_bit_cast`: a size cast of a signed operand sign-extends
                    // (or truncates), and stays signed
                    let inner = self.expr(x, None)?;
                    if xw == *m {
                        inner
                    } else {
                        format!("{m}'({inner})")
                    }
                }
                Ty::Fixed { w: xw, signed: false } => {
                    let inner = self.expr(x, None)?;
                    if xw == *m {
                        inner
                    } else if xw > *m {
                        format!("{m}'({inner})")
                    } else {
                        // zero-extend (bit_cast never sign-extends); a concatenation
                        // keeps the operand self-determined, so no width context leaks in
                        zero_extend(&inner, xw, *m)
                    }
                }
            },
            E::Signed(x) => format!("$signed({})", self.expr(x, None)?),
            E::Unsigned(x) => format!("$unsigned({})", self.expr(x, None)?),
            E::Unary(op, x) => {
                // yosys 0.23 reads `~1'(x)` as a cast of size `~1`: parenthesise sized operands
                let guard = |s: String| if s.starts_with(|c: char| c.is_ascii_digit()) { format!("({s})") } else { s };
                let inner = guard(self.expr(x, Some((w, signed)))?);
                match op {
                    Un::Not => format!("{w}'(~{inner})"),
                    Un::Neg => format!("{w}'(-{inner})"),
                    Un::All => format!("(&{})", guard(self.expr(x, None)?)),
                    Un::Any => format!("(|{})", guard(self.expr(x, None)?)),
                    Un::Xor => format!("(^{})", guard(self.expr(x, None)?)),
                }
            }
            E::Binary(l, op, r) => self.binop(l, op, r, w, signed)?,
            E::Index(x, i) => {
                let xw = self.width_of(x)?;
                if let Ty::Lit(k) = self.ty(i)? {
                    // rust-hdl's `get_bit` panics beyond the top
                    if k >= BigUint::from(xw) {
                        return Err(self.err(format!("bit index {k} out of range for {xw} bits in `{}`", show(e))));
                    }
                }
                let base = self.expr(x, None)?;
                if xw == 1 {
                    // the only index `get_bit` accepts on one bit is 0
                    return Ok(unsigned_of(&base, self.is_signed(x)?));
                }
                match unparen(x) {
                    E::Signal(_) => format!("{base}[{}]", self.select_index(i, xw)?),
                    _ => format!("1'({} >> {})", unsigned_of(&base, self.is_signed(x)?), self.index_expr(i)?),
                }
            }
            E::Slice(x, m, off) => self.slice(x, *m, off)?,
            E::IndexReplace(x, i, v) => {
                let base = self.expr(x, None)?;
                let idx = self.index_expr(i)?;
                let val = self.expr(v, Some((1, false)))?;
                // the new bit is self-determined (1 bit) before it is widened:
                // `w'(~b)` would invert the extension bits too
                let bit = if w == 1 { format!("1'({val})") } else { format!("{{{}'d0, 1'({val})}}", w - 1) };
                format!("{w}'(({base} & {w}'(~({w}'(1) << {idx}))) | ({bit} << {idx}))")
            }
        })
    }

    fn is_signed(&self, e: &E) -> Result<bool, EmitError> {
        Ok(matches!(self.ty(e)?, Ty::Fixed { signed: true, .. }))
    }

    /// A shift amount or offset at its full value: a constant folds to a
    /// decimal number, anything else is emitted as it is.
    fn index_expr(&self, i: &E) -> Result<String, EmitError> {
        let i = self.narrowest(i);
        match self.ty(i)? {
            Ty::Lit(v) => Ok(v.to_string()),
            Ty::Fixed { signed, .. } => Ok(unsigned_of(&self.expr(i, None)?, signed)),
        }
    }

    /// The index of a bit- or part-select of an `xw`-bit vector, at exactly
    /// the width Verilog wants for it (`clog2(xw)` bits). Callers only use a
    /// select where every index value Rust accepts fits that width, so
    /// narrowing never changes a value Rust can see.
    fn select_index(&self, i: &E, xw: usize) -> Result<String, EmitError> {
        let need = clog2(xw).max(1);
        let i = self.narrowest(i);
        match self.ty(i)? {
            Ty::Lit(v) => Ok(v.to_string()),
            Ty::Fixed { w, signed } => {
                let s = unsigned_of(&self.expr(i, None)?, signed);
                Ok(match w.cmp(&need) {
                    std::cmp::Ordering::Equal => s,
                    std::cmp::Ordering::Less => zero_extend(&s, w, need),
                    std::cmp::Ordering::Greater => format!("{need}'({s})"),
                })
            }
        }
    }

    /// `e` without zero-extensions that cannot change its value (the
    /// `usize` of `index()` around a narrow vector).
    fn narrowest<'e>(&self, e: &'e E) -> &'e E {
        match e {
            E::Paren(x) => self.narrowest(x),
            E::Cast(x, m) => match self.ty(x) {
                Ok(Ty::Fixed { w, signed: false }) if w <= *m => self.narrowest(x),
                _ => e,
            },
            _ => e,
        }
    }

    /// An upper bound of an unsigned expression's value.
    fn max_value(&self, e: &E) -> Result<BigUint, EmitError> {
        let t = self.ty(e)?;
        let Ty::Fixed { w, signed } = t else {
            let Ty::Lit(v) = t else { unreachable!() };
            return Ok(v);
        };
        let top = mask(w);
        if signed {
            return Ok(top);
        }
        Ok(match e {
            E::Paren(x) => self.max_value(x)?,
            E::Cast(x, _) => self.max_value(x)?.min(top),
            E::Binary(l, Op::Shl, r) => match self.ty(r)? {
                Ty::Lit(k) => {
                    let k = k.to_usize().unwrap_or(usize::MAX).min(w);
                    (self.max_value(l)? << k).min(top)
                }
                _ => top,
            },
            E::Binary(l, Op::Shr, _) => self.max_value(l)?,
            E::Binary(l, Op::Add, r) => (self.max_value(l)? + self.max_value(r)?).min(top),
            E::Binary(l, Op::Mul, r) => (self.max_value(l)? * self.max_value(r)?).min(top),
            E::Binary(l, Op::BitAnd, r) => self.max_value(l)?.min(self.max_value(r)?),
            _ => top,
        })
    }

    fn slice(&self, x: &E, m: usize, off: &E) -> Result<String, EmitError> {
        let xw = self.width_of(x)?;
        let signed = self.is_signed(x)?;
        let base = self.expr(x, None)?;
        let is_ident = matches!(unparen(x), E::Signal(_));
        if let (true, Ty::Lit(o)) = (is_ident, self.ty(off)?) {
            // a field of a struct (or any constant slice) reads only its bits
            if let (Some(o), Some(last)) = (o.to_usize(), self.events.borrow_mut().last_mut()) {
                last.bits = Some((o, m.min(xw.saturating_sub(o))));
            }
        }
        let ubase = unsigned_of(&base, signed);
        // rust-hdl fills bits above the source with zeros
        let shifted = |o: &str| -> String {
            if m <= xw {
                format!("{m}'({ubase} >> {o})")
            } else {
                zero_extend(&format!("{xw}'({ubase} >> {o})"), xw, m)
            }
        };
        let unsigned = match self.ty(off)? {
            Ty::Lit(v) => {
                let o = v.to_usize().filter(|o| *o <= xw).ok_or_else(|| {
                    self.err(format!("get_bits offset {v} beyond width {xw} (rust-hdl panics) in `{}`", show(off)))
                })?;
                if o == 0 && m == xw {
                    return Ok(base);
                } else if o + m <= xw && is_ident {
                    if m == 1 {
                        format!("{base}[{o}]")
                    } else {
                        format!("{base}[{}:{o}]", o + m - 1)
                    }
                } else if o >= xw {
                    sized_literal(m, &BigUint::zero(), false)
                } else if o == 0 && m > xw {
                    zero_extend(&ubase, xw, m)
                } else {
                    shifted(&o.to_string())
                }
            }
            Ty::Fixed { .. } => {
                let max_off = self.max_value(off)?;
                if is_ident && max_off + BigUint::from(m) <= BigUint::from(xw) {
                    format!("{base}[{} +: {m}]", self.select_index(off, xw)?)
                } else {
                    shifted(&self.index_expr(off)?)
                }
            }
        };
        Ok(if signed { format!("$signed({unsigned})") } else { unsigned })
    }

    fn binop(&self, l: &E, op: &Op, r: &E, w: usize, signed: bool) -> Result<String, EmitError> {
        let sym = op_symbol(op);
        match op {
            Op::Add | Op::Sub => {
                let a = self.operand(l, w, signed)?;
                let b = self.operand(r, w, signed)?;
                Ok(format!("{w}'({a} {sym} {b})"))
            }
            Op::BitAnd | Op::BitOr | Op::BitXor => {
                let a = self.expr(l, Some((w, signed)))?;
                let b = self.expr(r, Some((w, signed)))?;
                Ok(format!("({a} {sym} {b})"))
            }
            Op::Mul => {
                let a = self.operand(l, w, signed)?;
                let b = self.operand(r, w, signed)?;
                Ok(format!("{w}'({a} * {b})"))
            }
            Op::Shl | Op::Shr => {
                if let Ty::Lit(k) = self.ty(r)? {
                    // every bit shifted out (and a literal Verilator would refuse)
                    if k >= BigUint::from(w) {
                        return Ok(sized_literal(w, &BigUint::zero(), signed));
                    }
                }
                let a = self.expr(l, Some((w, signed)))?;
                let b = self.index_expr(r)?;
                Ok(format!("{w}'({a} {sym} {b})"))
            }
            Op::LogicalAnd | Op::LogicalOr => {
                let a = self.expr(l, Some((1, false)))?;
                let b = self.expr(r, Some((1, false)))?;
                Ok(format!("({a} {sym} {b})"))
            }
            Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge => {
                let (tl, tr) = (self.ty(l)?, self.ty(r)?);
                let (m, sg) = match (&tl, &tr) {
                    (Ty::Fixed { w: a, signed: sa }, Ty::Fixed { w: b, signed: sb }) => {
                        // Rust compares equal types only (`usize` from `index()` is 64 bits)
                        if a != b {
                            return Err(self.err(format!(
                                "comparison of {a}-bit and {b}-bit values in `{}`",
                                show(&E::Binary(Box::new(l.clone()), op.clone(), Box::new(r.clone())))
                            )));
                        }
                        (*a, *sa && *sb)
                    }
                    (Ty::Fixed { w: a, signed: s }, Ty::Lit(v)) | (Ty::Lit(v), Ty::Fixed { w: a, signed: s }) => {
                        // rust-hdl converts the literal to the vector's type: it panics
                        // (up to 32 bits) or silently truncates (above) when it does not fit
                        if lit_bits(v) > *a {
                            return Err(self.err(format!(
                                "literal {v:#x} compared with a {a}-bit value does not fit it (rust-hdl would \
                                 truncate or panic) in `{}`",
                                show(&E::Binary(Box::new(l.clone()), op.clone(), Box::new(r.clone())))
                            )));
                        }
                        (*a, *s)
                    }
                    (Ty::Lit(a), Ty::Lit(b)) => {
                        let m = lit_bits(a).max(lit_bits(b));
                        (m, false)
                    }
                };
                let a = self.operand(l, m, sg)?;
                let b = self.operand(r, m, sg)?;
                Ok(format!("({a} {sym} {b})"))
            }
        }
    }

    /// An operand evaluated at exactly `w` bits (zero-extended when narrower,
    /// as `usize` comparisons and `Bits + bool` are in Rust).
    fn operand(&self, e: &E, w: usize, signed: bool) -> Result<String, EmitError> {
        match self.ty(e)? {
            Ty::Lit(_) => self.expr(e, Some((w, signed))),
            Ty::Fixed { w: ew, signed: es } => {
                let s = self.expr(e, None)?;
                if ew == w {
                    Ok(s)
                } else if ew < w {
                    if es && signed {
                        Ok(format!("{w}'({s})"))
                    } else {
                        Ok(zero_extend(&unsigned_of(&s, es), ew, w))
                    }
                } else {
                    Err(self.err(format!("operand of width {ew} where {w} bits are expected")))
                }
            }
        }
    }

    // ---------------------------------------------------------------- statements

    pub fn body(&mut self, block: &VerilogBlock) -> Result<BodyOut, EmitError> {
        let mut out = BodyOut { comb: vec![], clock_assigns: vec![], links: vec![], groups: vec![] };
        let mut chunks: Vec<(Vec<String>, Vec<String>, Vec<String>)> = vec![];
        let mut events: Vec<Vec<Access>> = vec![];
        self.top_level(block, &mut out, &mut chunks, &mut events)?;
        // union-find over chunks that write a common signal
        let mut parent: Vec<usize> = (0..chunks.len()).collect();
        fn root(p: &mut [usize], mut i: usize) -> usize {
            while p[i] != i {
                p[i] = p[p[i]];
                i = p[i];
            }
            i
        }
        let mut writers: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, (_, writes, _)) in chunks.iter().enumerate() {
            for w in writes {
                writers.entry(w.as_str()).or_default().push(i);
            }
        }
        let join = |p: &mut Vec<usize>, i: usize, j: usize| {
            let (a, b) = (root(p, i), root(p, j));
            p[a.max(b)] = a.min(b);
        };
        for (v, ws) in &writers {
            for &w in &ws[1..] {
                join(&mut parent, ws[0], w);
            }
            // a child's input is read at its settled value (checked below)
            if self.syms.get(*v).is_some_and(|s| s.child_input) {
                continue;
            }
            // a read between two writes sees an intermediate value: same block
            let (first, last) = (ws[0], *ws.last().unwrap());
            for (r, (_, _, reads)) in chunks.iter().enumerate().take(last).skip(first + 1) {
                if reads.iter().any(|x| x == v) {
                    join(&mut parent, r, first);
                }
            }
        }
        // rust-hdl's `Signal<In>::val()` is the settled value even right after
        // a write in the same pass; Verilog would read what the process wrote
        // so far. A child input read in the process that writes it is refused.
        let mut group_writes: BTreeMap<usize, Vec<&str>> = BTreeMap::new();
        for (i, (_, writes, _)) in chunks.iter().enumerate() {
            let g = root(&mut parent, i);
            group_writes.entry(g).or_default().extend(writes.iter().map(|w| w.as_str()));
        }
        for (i, (_, _, reads)) in chunks.iter().enumerate() {
            let g = root(&mut parent, i);
            let written = group_writes.get(&g).map(|v| v.as_slice()).unwrap_or(&[]);
            for r in reads {
                if written.contains(&r.as_str()) && self.syms.get(r).is_some_and(|s| s.child_input) {
                    return Err(self.err(format!(
                        "`{}` (an input of a child block) is read in the statements that write it; rust-hdl reads \
                         a child's input at its settled value, so read it in a statement of its own",
                        r.replace('$', ".")
                    )));
                }
            }
        }
        // Within one process a read must come after the writes of the bits it
        // reads: rust-hdl reads the value of the previous pass there (its
        // settled value), Verilog the value of the process's previous run
        // (and Verilator warns ALWCOMBORDER). Such reads are refused.
        let mut order: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for i in 0..chunks.len() {
            order.entry(root(&mut parent, i)).or_default().push(i);
        }
        for (g, members) in &order {
            let written = &group_writes[g];
            let mut done: BTreeMap<&str, BigUint> = BTreeMap::new();
            for &i in members {
                for ev in &events[i] {
                    if ev.definite.is_some() {
                        continue;
                    }
                    let Some(sym) = self.syms.get(&ev.name) else { continue };
                    let bits = match ev.bits {
                        Some((o, w)) => mask(w) << o,
                        None => mask(sym.width),
                    };
                    if ev.write {
                        *done.entry(ev.name.as_str()).or_default() |= bits;
                    } else if written.contains(&ev.name.as_str()) && !sym.child_input {
                        let have = done.get(ev.name.as_str()).cloned().unwrap_or_default();
                        if &have & &bits != bits {
                            return Err(self.err(format!(
                                "`{}` is read before the statements that write it (in one process) have written the \
                                 bits read; rust-hdl reads the previous pass's value there: write it first, or read \
                                 it in a statement that shares nothing with its writers",
                                ev.name.replace('$', ".")
                            )));
                        }
                    }
                }
            }
        }
        // A signal the process writes on some paths only keeps its previous
        // value on the others: in rust-hdl that is the last pass's (or the
        // last cycle's) value, in hardware a latch. Refused.
        for (g, members) in &order {
            let mut always: BTreeMap<&str, BigUint> = BTreeMap::new();
            for &i in members {
                for ev in events[i].iter().filter(|e| e.definite.is_some()) {
                    *always.entry(ev.name.as_str()).or_default() |= ev.definite.as_ref().unwrap();
                }
            }
            for w in &group_writes[g] {
                let Some(sym) = self.syms.get(*w) else { continue };
                if sym.is_clock {
                    continue;
                }
                let full = mask(sym.width);
                if always.get(w).map(|b| b & &full) != Some(full.clone()) {
                    return Err(self.err(format!(
                        "`{}` is not written on every path of the update: it would keep its previous value \
                         (a latch); give it a value first (a default) or in every branch",
                        w.replace('$', ".")
                    )));
                }
            }
        }
        let mut groups: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        let mut pending: Vec<String> = vec![];
        for (i, (lines, writes, _)) in chunks.into_iter().enumerate() {
            if writes.is_empty() {
                // comments travel with the next statement
                pending.extend(lines);
                continue;
            }
            let g = groups.entry(root(&mut parent, i)).or_default();
            g.append(&mut pending);
            g.extend(lines);
        }
        out.groups = groups.into_values().collect();
        Ok(out)
    }

    /// Statements at the top of the body (loops unrolled, macros inlined),
    /// each with the signals it writes.
    fn top_level(
        &mut self,
        b: &VerilogBlock,
        out: &mut BodyOut,
        chunks: &mut Vec<(Vec<String>, Vec<String>, Vec<String>)>,
        events: &mut Vec<Vec<Access>>,
    ) -> Result<(), EmitError> {
        for s in b {
            match s {
                S::Loop(l) => {
                    let (from, to) = (l.from.as_usize() as i64, l.to.as_usize() as i64);
                    for i in from..to {
                        self.loops.push((l.index.clone(), i));
                        let r = self.top_level(&l.block, out, chunks, events);
                        self.loops.pop();
                        r?;
                    }
                }
                S::Macro(m) => self.top_level(m, out, chunks, events)?,
                _ => {
                    let start = out.comb.len();
                    self.writes.clear();
                    self.reads.borrow_mut().clear();
                    self.events.borrow_mut().clear();
                    self.stmt(s, 2, true, out)?;
                    let lines = out.comb.split_off(start);
                    let reads = std::mem::take(&mut *self.reads.borrow_mut());
                    let mut evs = std::mem::take(&mut *self.events.borrow_mut());
                    // what every path of the statement writes, as pseudo-events at its end
                    for (name, bits) in self.definite(std::slice::from_ref(s))? {
                        evs.push(Access { write: true, name, bits: None, definite: Some(bits) });
                    }
                    events.push(evs);
                    chunks.push((lines, std::mem::take(&mut self.writes), reads));
                }
            }
        }
        Ok(())
    }

    /// The bits of each signal that every path through `b` writes.
    fn definite(&mut self, b: &[S]) -> Result<BTreeMap<String, BigUint>, EmitError> {
        let mut acc: BTreeMap<String, BigUint> = BTreeMap::new();
        let merge = |acc: &mut BTreeMap<String, BigUint>, m: BTreeMap<String, BigUint>| {
            for (k, v) in m {
                *acc.entry(k).or_default() |= v;
            }
        };
        let meet = |a: BTreeMap<String, BigUint>, b: &BTreeMap<String, BigUint>| -> BTreeMap<String, BigUint> {
            a.into_iter().filter_map(|(k, v)| b.get(&k).map(|w| (k, v & w)).filter(|(_, x)| !x.is_zero())).collect()
        };
        for st in b {
            match st {
                S::Assignment(E::Signal(raw), _) => {
                    if let (name, Some(sym), _) = self.lookup(raw)? {
                        let full = mask(sym.width);
                        merge(&mut acc, BTreeMap::from([(name, full)]));
                    }
                }
                S::SliceAssignment { base: E::Signal(raw), width, offset, .. } => {
                    if let (Ty::Lit(o), (name, Some(_), _)) = (self.ty(offset)?, self.lookup(raw)?) {
                        if let Some(o) = o.to_usize() {
                            merge(&mut acc, BTreeMap::from([(name, mask(*width) << o)]));
                        }
                    }
                }
                S::If(c) => {
                    let then = self.definite(&c.then)?;
                    let other = match &c.otherwise {
                        VerilogBlockOrConditional::None => BTreeMap::new(),
                        VerilogBlockOrConditional::Block(b) => self.definite(b)?,
                        VerilogBlockOrConditional::Conditional(s) => self.definite(std::slice::from_ref(&**s))?,
                    };
                    merge(&mut acc, meet(then, &other));
                }
                S::Match(m) => {
                    // every match is complete once emitted (see `stmt`)
                    let mut all: Option<BTreeMap<String, BigUint>> = None;
                    for case in &m.cases {
                        let d = self.definite(&case.block)?;
                        all = Some(match all {
                            None => d,
                            Some(a) => meet(a, &d),
                        });
                    }
                    merge(&mut acc, all.unwrap_or_default());
                }
                S::Loop(l) => {
                    let (from, to) = (l.from.as_usize() as i64, l.to.as_usize() as i64);
                    for i in from..to {
                        self.loops.push((l.index.clone(), i));
                        let r = self.definite(&l.block);
                        self.loops.pop();
                        merge(&mut acc, r?);
                    }
                }
                S::Macro(m) => {
                    let d = self.definite(m)?;
                    merge(&mut acc, d);
                }
                _ => {}
            }
        }
        Ok(acc)
    }

    fn block(&mut self, b: &VerilogBlock, ind: usize, top: bool, out: &mut BodyOut) -> Result<(), EmitError> {
        for s in b {
            self.stmt(s, ind, top, out)?;
        }
        Ok(())
    }

    fn stmt(&mut self, s: &S, ind: usize, top: bool, out: &mut BodyOut) -> Result<(), EmitError> {
        let pad = "    ".repeat(ind);
        match s {
            S::Assignment(lhs, rhs) => {
                let E::Signal(raw) = lhs else { return Err(self.err("assignment to a non-signal")) };
                let (name, sym, _) = self.lookup(raw)?;
                let sym = sym.ok_or_else(|| self.err(format!("cannot assign to `{name}`")))?.clone();
                if top && sym.is_clock {
                    if let E::Signal(src) = unparen(rhs) {
                        let (sname, ssym, _) = self.lookup(src)?;
                        if ssym.is_some_and(|s| s.is_clock) {
                            out.clock_assigns.push(Assign { dst: sanitize(&name), src: sanitize(&sname) });
                            return Ok(());
                        }
                    }
                }
                let v = self.assign_value(rhs, sym.width, sym.signed)?;
                self.writes.push(name.clone());
                self.events.borrow_mut().push(Access { write: true, name: name.clone(), bits: None, definite: None });
                out.comb.push(format!("{pad}{} = {v};", sanitize(&name)));
            }
            S::SliceAssignment { base, width, offset, replacement } => {
                let E::Signal(raw) = base else { return Err(self.err("slice assignment to a non-signal")) };
                let (name, sym, _) = self.lookup(raw)?;
                let sym = sym.ok_or_else(|| self.err(format!("cannot assign to `{name}`")))?.clone();
                let what = || format!("{}[{} +: {width}]", show(base), show(offset));
                if let Ty::Lit(o) = self.ty(offset)? {
                    // rust-hdl's set_bit/set_bits panic on a write beyond the top
                    if o + BigUint::from(*width) > BigUint::from(sym.width) {
                        return Err(self.err(format!("slice write `{}` beyond the {}-bit signal", what(), sym.width)));
                    }
                } else if *width > sym.width {
                    return Err(self.err(format!("slice write `{}` wider than the {}-bit signal", what(), sym.width)));
                }
                self.writes.push(name.clone());
                let v = self.assign_value(replacement, *width, false)?;
                let bits = match self.ty(offset)? {
                    Ty::Lit(o) => o.to_usize().map(|o| (o, *width)),
                    _ => Some((0, 0)), // somewhere: counts as writing no known bit
                };
                self.events.borrow_mut().push(Access { write: true, name: name.clone(), bits, definite: None });
                let target = sanitize(&name);
                let lhs = if *width == sym.width {
                    target
                } else {
                    match self.ty(offset)? {
                        Ty::Lit(o) if *width == 1 => format!("{target}[{o}]"),
                        Ty::Lit(o) => format!("{target}[{}:{o}]", &o + BigUint::from(*width - 1)),
                        _ => format!("{target}[{} +: {width}]", self.select_index(offset, sym.width)?),
                    }
                };
                out.comb.push(format!("{pad}{lhs} = {v};"));
            }
            S::If(c) => {
                self.conditional(c, ind, out, false)?;
            }
            S::Match(m) => {
                let tw = self.width_of(&m.test)?;
                out.comb.push(format!("{pad}case ({})", self.expr(&m.test, None)?));
                let mut labels = vec![];
                for case in &m.cases {
                    let label = self.case_label(&case.condition, tw)?;
                    if labels.contains(&label) {
                        return Err(self.err(format!("match arm `{}` appears twice", case.condition.trim())));
                    }
                    labels.push(label);
                }
                // A match on an enum is exhaustive in Rust without covering
                // every encoding of its bits. Those encodings never occur; the
                // last arm takes them (`default`), so every path assigns what
                // the arms assign: no CASEINCOMPLETE, and no latch (an empty
                // default would leave the arms' signals unassigned there).
                let covers_all = tw < usize::BITS as usize && labels.len() >= 1usize << tw;
                if !labels.iter().any(|l| l == "default") && !covers_all {
                    if let Some(last) = labels.last_mut() {
                        *last = "default".into();
                    }
                }
                for (case, label) in m.cases.iter().zip(&labels) {
                    out.comb.push(format!("{pad}    {label}: begin"));
                    self.block(&case.block, ind + 2, false, out)?;
                    out.comb.push(format!("{pad}    end"));
                }
                out.comb.push(format!("{pad}endcase"));
            }
            S::Loop(l) => {
                let (from, to) = (l.from.as_usize() as i64, l.to.as_usize() as i64);
                for i in from..to {
                    self.loops.push((l.index.clone(), i));
                    let r = self.block(&l.block, ind, top, out);
                    self.loops.pop();
                    r?;
                }
            }
            S::Comment(c) => out.comb.push(format!("{pad}// {c}")),
            S::Link(links) => {
                for link in links {
                    let (d, dst_is_owner) = match link {
                        VerilogLink::Forward(d) => (d, false),
                        VerilogLink::Backward(d) => (d, true),
                        VerilogLink::Bidirectional(_) => {
                            return Err(self.err("bidirectional (InOut) links are not supported"))
                        }
                    };
                    let my = self.fix_name(&d.my_name)?;
                    let owner = self.fix_name(&d.owner_name)?;
                    let other = self.fix_name(&d.other_name)?;
                    let (o, t) = (format!("{owner}${my}"), format!("{other}${my}"));
                    for n in [&o, &t] {
                        if !self.syms.contains_key(n.as_str()) {
                            return Err(self.err(format!("link names unknown signal `{n}`")));
                        }
                    }
                    let (dst, src) = if dst_is_owner { (o, t) } else { (t, o) };
                    out.links.push(Assign { dst: sanitize(&dst), src: sanitize(&src) });
                }
            }
            S::Macro(b) => self.block(b, ind, top, out)?,
        }
        Ok(())
    }

    fn conditional(
        &mut self,
        c: &rust_hdl_core::ast::VerilogConditional,
        ind: usize,
        out: &mut BodyOut,
        is_else_if: bool,
    ) -> Result<(), EmitError> {
        let pad = "    ".repeat(ind);
        if self.width_of(&c.test)? != 1 {
            return Err(self.err("an `if` condition must be one bit"));
        }
        let test = self.expr(&c.test, None)?;
        if is_else_if {
            let last = out.comb.pop().unwrap_or_default();
            out.comb.push(format!("{last} else if ({test}) begin"));
        } else {
            out.comb.push(format!("{pad}if ({test}) begin"));
        }
        self.block(&c.then, ind + 1, false, out)?;
        out.comb.push(format!("{pad}end"));
        match &c.otherwise {
            VerilogBlockOrConditional::None => {}
            VerilogBlockOrConditional::Block(b) => {
                let last = out.comb.pop().unwrap_or_default();
                out.comb.push(format!("{last} else begin"));
                self.block(b, ind + 1, false, out)?;
                out.comb.push(format!("{pad}end"));
            }
            VerilogBlockOrConditional::Conditional(s) => match &**s {
                S::If(c2) => self.conditional(c2, ind, out, true)?,
                _ => return Err(self.err("unexpected else branch")),
            },
        }
        Ok(())
    }

    fn assign_value(&self, rhs: &E, w: usize, signed: bool) -> Result<String, EmitError> {
        match self.ty(rhs)? {
            Ty::Lit(_) => self.expr(rhs, Some((w, signed))),
            Ty::Fixed { w: rw, .. } if rw == w => self.expr(rhs, None),
            Ty::Fixed { w: rw, .. } => {
                Err(self
                    .err(format!("assigning a {rw}-bit value to a {w}-bit signal; use bit_cast to say what is meant")))
            }
        }
    }

    fn case_label(&self, cond: &str, w: usize) -> Result<String, EmitError> {
        let c = cond.trim();
        if c == "default" || c == "_" {
            return Ok("default".into());
        }
        if c.starts_with(|ch: char| ch.is_ascii_digit()) {
            let v = parse_rust_int(c).ok_or_else(|| self.err(format!("case label `{c}`")))?;
            if v.bits() as usize > w {
                return Err(self.err(format!("case label {c} does not fit {w} bits")));
            }
            return Ok(sized_literal(w, &v, false));
        }
        let name = self.fix_name(c)?;
        match self.syms.get(&name) {
            Some(Sym { kind: SymKind::EnumConst(_), .. }) => Ok(enum_param_name(&name)),
            Some(_) => Ok(sanitize(&name)),
            None => Err(self.err(format!("unknown case label `{c}`"))),
        }
    }
}

pub fn enum_param_name(raw: &str) -> String {
    raw.replace('$', "_")
}

fn zero_extend(s: &str, from: usize, to: usize) -> String {
    format!("{{{}'d0, {s}}}", to - from)
}

fn unsigned_of(s: &str, signed: bool) -> String {
    if signed {
        format!("$unsigned({s})")
    } else {
        s.to_string()
    }
}

fn unparen(e: &E) -> &E {
    match e {
        E::Paren(x) => unparen(x),
        x => x,
    }
}

fn op_symbol(op: &Op) -> &'static str {
    match op {
        Op::Add => "+",
        Op::Sub => "-",
        Op::Mul => "*",
        Op::LogicalAnd => "&&",
        Op::LogicalOr => "||",
        Op::BitXor => "^",
        Op::BitAnd => "&",
        Op::BitOr => "|",
        Op::Shl => "<<",
        Op::Shr => ">>",
        Op::Eq => "==",
        Op::Lt => "<",
        Op::Le => "<=",
        Op::Ne => "!=",
        Op::Ge => ">=",
        Op::Gt => ">",
    }
}

/// Constant folding with Rust's u64 semantics (literals are u64 in rust-hdl).
fn fold(op: &Op, a: &BigUint, b: &BigUint) -> Option<BigUint> {
    let m = mask(64);
    let (x, y) = (a.to_u64()?, b.to_u64()?);
    let r = match op {
        Op::Add => x.checked_add(y)?,
        Op::Sub => x.checked_sub(y)?,
        Op::Mul => x.checked_mul(y)?,
        Op::BitAnd => x & y,
        Op::BitOr => x | y,
        Op::BitXor => x ^ y,
        Op::Shl => x.checked_shl(u32::try_from(y).ok()?)?,
        Op::Shr => x.checked_shr(u32::try_from(y).ok()?)?,
        _ => return None,
    };
    Some(BigUint::from(r) & m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_class_names_and_every_keyword_are_renamed() {
        for name in ["mailbox", "semaphore", "process", "std"] {
            assert!(is_reserved(name), "{name}");
            assert_eq!(sanitize(name), format!("{name}_"));
        }
        // IEEE 1800-2017 Annex B (Table B.1) lists 248 keywords: all here,
        // once each, so a word missing from the list shows as a count.
        let mut words = SV_KEYWORDS.to_vec();
        words.sort_unstable();
        words.dedup();
        assert_eq!((SV_KEYWORDS.len(), words.len()), (248, 248));
        for w in ["interconnect", "nettype", "implements", "soft", "untyped", "s_until_with", "unique0", "expect"] {
            assert_eq!(sanitize(w), format!("{w}_"), "{w}");
        }
        // Names that are neither stay as they are; `$` becomes `_`.
        assert_eq!(sanitize("mailbox_depth"), "mailbox_depth");
        assert_eq!(sanitize("a$b"), "a_b");
    }
}
