//! Walks a rust-hdl hierarchy with a `Probe` and records, per block instance,
//! its atoms (ports, locals, constants), its children and its HDL body.

use crate::tag::TAG_PREFIX;
use rust_hdl_core::ast::Verilog;
use rust_hdl_core::atom::{is_atom_signed, Atom, AtomKind};
use rust_hdl_core::prelude::*;
use rust_hdl_core::type_descriptor::{TypeDescriptor, TypeKind};

#[derive(Clone, Debug, PartialEq)]
pub enum AtomRole {
    Input,
    Output,
    Local,
    Constant,
}

#[derive(Clone, Debug)]
pub struct AtomInfo {
    /// Raw rust-hdl name, namespaces joined with `$` (e.g. `rx$tdata`).
    pub name: String,
    pub role: AtomRole,
    pub width: usize,
    pub signed: bool,
    pub is_clock: bool,
    /// `(label, value)` pairs when the atom's type is a `LogicState` enum.
    pub enum_labels: Vec<(String, usize)>,
    /// Value of a constant (or the initial value for other atoms), as a
    /// rust-hdl literal string like `8'h0a`.
    pub value: String,
}

pub struct Node {
    /// Instance name in the parent (`stages$0`), `top` for the root.
    pub inst: String,
    pub type_name: Option<String>,
    pub atoms: Vec<AtomInfo>,
    pub children: Vec<Node>,
    pub code: Verilog,
    ns: Vec<String>,
    skip_ns: usize,
}

#[derive(Default)]
pub struct Collector {
    stack: Vec<Node>,
    pub root: Option<Node>,
    /// Constructs the emitter refuses (reported after the walk: a `Probe` cannot fail).
    pub errors: Vec<String>,
}

fn enum_labels(d: &TypeDescriptor) -> Vec<(String, usize)> {
    match &d.kind {
        TypeKind::Enum(labels) => labels.iter().cloned().enumerate().map(|(i, l)| (l, i)).collect(),
        _ => vec![],
    }
}

impl Probe for Collector {
    fn visit_start_scope(&mut self, name: &str, node: &dyn Block) {
        self.stack.push(Node {
            inst: name.to_string(),
            type_name: None,
            atoms: vec![],
            children: vec![],
            code: node.hdl(),
            ns: vec![],
            skip_ns: 0,
        });
    }

    fn visit_start_namespace(&mut self, name: &str, _node: &dyn Block) {
        let top = self.stack.last_mut().expect("namespace outside a scope");
        if let Some(t) = name.strip_prefix(TAG_PREFIX) {
            if top.ns.is_empty() && top.type_name.is_none() {
                top.type_name = Some(t.to_string());
            }
            top.skip_ns += 1;
        } else {
            top.ns.push(name.to_string());
        }
    }

    fn visit_atom(&mut self, name: &str, signal: &dyn Atom) {
        let top = self.stack.last_mut().expect("atom outside a scope");
        let mut full = top.ns.clone();
        full.push(name.to_string());
        let role = match signal.kind() {
            AtomKind::InputParameter => AtomRole::Input,
            AtomKind::OutputParameter | AtomKind::OutputPassthrough => AtomRole::Output,
            AtomKind::Constant => AtomRole::Constant,
            AtomKind::LocalSignal => AtomRole::Local,
            // tri-states (InOut) have no place inside the core; vendor IP wrappers handle pads
            other => {
                let path: Vec<&str> = self.stack.iter().map(|n| n.inst.as_str()).collect();
                self.errors.push(format!("{}: signal `{name}` of kind {other:?} is not supported", path.join(".")));
                return;
            }
        };
        let d = signal.descriptor();
        top.atoms.push(AtomInfo {
            name: full.join("$"),
            role,
            width: signal.bits(),
            signed: is_atom_signed(signal),
            is_clock: d.name == "clock",
            enum_labels: enum_labels(&d),
            value: signal.verilog().to_string(),
        });
    }

    fn visit_end_namespace(&mut self, name: &str, _node: &dyn Block) {
        let top = self.stack.last_mut().expect("namespace outside a scope");
        if name.starts_with(TAG_PREFIX) {
            top.skip_ns -= 1;
        } else {
            top.ns.pop();
        }
    }

    fn visit_end_scope(&mut self, _name: &str, _node: &dyn Block) {
        let node = self.stack.pop().expect("unbalanced scopes");
        match self.stack.last_mut() {
            Some(parent) => parent.children.push(node),
            None => self.root = Some(node),
        }
    }
}

pub fn collect(top: &dyn Block) -> Result<Node, crate::EmitError> {
    let mut c = Collector::default();
    top.accept("top", &mut c);
    if !c.errors.is_empty() {
        return Err(crate::EmitError::Unsupported { module: "top".into(), detail: c.errors.join("; ") });
    }
    c.root.ok_or_else(|| crate::EmitError::Unsupported {
        module: "top".into(),
        detail: "the top block did not visit itself (is it a #[derive(LogicBlock)]?)".into(),
    })
}
