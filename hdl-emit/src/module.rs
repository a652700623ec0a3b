//! One SystemVerilog module per distinct block: declarations, child
//! instances, `join`/`link` connections and the combinational body.

use crate::collect::{AtomInfo, AtomRole, Node};
use crate::error::EmitError;
use crate::expr::{enum_param_name, parse_literal, sanitize, sized_literal, Scope, Sym, SymKind};
use crate::tag::module_base_name;
use rust_hdl_core::ast::Verilog;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A module body before names are final: `@@SELF@@` stands for its own name,
/// `@@MOD<n>@@` for the name of distinct module `n`.
pub struct Pending {
    pub text: String,
    pub base: String,
    pub suffix: String,
}

pub enum ModRef {
    Module(usize),
    Blackbox(String),
}

#[derive(Default)]
pub struct Registry {
    pub modules: Vec<Pending>,
    index: HashMap<String, usize>,
    pub cores: Vec<String>,
    /// Module names of black boxes (written by hand, declared elsewhere).
    pub blackboxes: BTreeSet<String>,
    /// Named constants (see [`crate::emit_with_consts`]).
    pub consts: BTreeMap<String, u64>,
}

impl Registry {
    fn intern(&mut self, p: Pending) -> usize {
        if let Some(&i) = self.index.get(&p.text) {
            return i;
        }
        let i = self.modules.len();
        self.index.insert(p.text.clone(), i);
        self.modules.push(p);
        i
    }
    fn add_core(&mut self, c: &str) {
        if !c.trim().is_empty() && !self.cores.iter().any(|x| x == c) {
            self.cores.push(c.to_string());
        }
    }
}

fn range(w: usize) -> String {
    if w == 1 {
        String::new()
    } else {
        format!("[{}:0] ", w - 1)
    }
}

fn logic(a: &AtomInfo) -> String {
    format!("logic {}{}", if a.signed { "signed " } else { "" }, range(a.width))
}

/// Rename `a$b` identifiers inside hand-written Verilog the same way the
/// emitter renames signals (system tasks like `$signed` are left alone).
fn fix_custom(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let chars: Vec<char> = code.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let word = |ch: char| ch.is_ascii_alphanumeric() || ch == '_';
        if c == '$' && i > 0 && word(chars[i - 1]) && i + 1 < chars.len() && word(chars[i + 1]) {
            out.push('_');
        } else {
            out.push(c);
        }
    }
    out
}

/// Build the module for `node` (children first) and return its reference.
pub fn build(node: &Node, parent_base: &str, reg: &mut Registry, is_top: bool) -> Result<ModRef, EmitError> {
    if let Verilog::Blackbox(b) = &node.code {
        reg.add_core(&b.code);
        reg.blackboxes.insert(b.name.clone());
        return Ok(ModRef::Blackbox(b.name.clone()));
    }
    let (base, suffix) = match &node.type_name {
        Some(t) => module_base_name(t),
        // Project RTL is written with `#[hdl_gen]`, and its module is named
        // after its type; only rust-hdl's own hand-written parts (DFF and
        // friends, whose body is Verilog text) may come without a tag.
        None if !is_top && matches!(node.code, Verilog::Combinatorial(_)) => {
            return Err(EmitError::Unsupported {
                module: node.inst.replace('$', "."),
                detail: "a block with an #[hdl_gen] body has no `kind: TypeTag<Self>` field, so its module \
                         cannot be named after its type"
                    .into(),
            })
        }
        None => {
            // untagged library block: name it after its field in the parent
            let field = node.inst.split('$').find(|s| !s.is_empty()).unwrap_or("block");
            (format!("{parent_base}_{field}"), String::new())
        }
    };
    let mut children = vec![];
    for c in &node.children {
        children.push(build(c, &base, reg, false)?);
    }
    let module_label = format!("{} ({})", node.inst, node.type_name.as_deref().unwrap_or("untagged"));

    // ---- symbols visible in this module
    let mut syms: BTreeMap<String, Sym> = BTreeMap::new();
    let mut enums: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let add_enums = |a: &AtomInfo, enums: &mut BTreeMap<String, (usize, usize)>| {
        for (label, v) in &a.enum_labels {
            enums.insert(label.replace("::", "$"), (a.width, *v));
        }
    };
    for a in &node.atoms {
        syms.insert(
            a.name.clone(),
            Sym { width: a.width, signed: a.signed, is_clock: a.is_clock, child_input: false, kind: SymKind::Signal },
        );
        add_enums(a, &mut enums);
    }
    for c in &node.children {
        for a in c.atoms.iter().filter(|a| matches!(a.role, AtomRole::Input | AtomRole::Output)) {
            let n = format!("{}${}", c.inst, a.name);
            let child_input = a.role == AtomRole::Input;
            syms.insert(
                n,
                Sym { width: a.width, signed: a.signed, is_clock: a.is_clock, child_input, kind: SymKind::Signal },
            );
            add_enums(a, &mut enums);
        }
    }
    for (label, (w, v)) in &enums {
        syms.entry(label.clone()).or_insert(Sym {
            width: *w,
            signed: false,
            is_clock: false,
            child_input: false,
            kind: SymKind::EnumConst(*v),
        });
    }
    // two Rust names must not become one Verilog name
    let mut seen = BTreeSet::new();
    for k in syms.keys() {
        let v = match syms[k].kind {
            SymKind::EnumConst(_) => enum_param_name(k),
            _ => sanitize(k),
        };
        if !seen.insert(v.clone()) {
            return Err(EmitError::NameClash { module: module_label.clone(), name: v });
        }
    }
    // nor a signal and a child instance (`f$d` of child `f` against child `f_d`)
    for c in &node.children {
        let v = sanitize(&c.inst);
        if !seen.insert(v.clone()) {
            return Err(EmitError::NameClash { module: module_label.clone(), name: v });
        }
    }

    // ---- header
    let mut t = String::new();
    let ports: Vec<&AtomInfo> =
        node.atoms.iter().filter(|a| matches!(a.role, AtomRole::Input | AtomRole::Output)).collect();
    if ports.is_empty() {
        t.push_str("module @@SELF@@;\n");
    } else {
        t.push_str("module @@SELF@@ (\n");
        for (i, a) in ports.iter().enumerate() {
            let dir = if a.role == AtomRole::Input { "input " } else { "output" };
            let comma = if i + 1 < ports.len() { "," } else { "" };
            t.push_str(&format!("    {dir} {}{}{comma}\n", logic(a), sanitize(&a.name)));
        }
        t.push_str(");\n");
    }
    for a in node.atoms.iter().filter(|a| a.role == AtomRole::Constant) {
        let (_, v) = parse_literal(&a.value).ok_or_else(|| EmitError::Unsupported {
            module: module_label.clone(),
            detail: format!("constant {} has value {}", a.name, a.value),
        })?;
        t.push_str(&format!(
            "    localparam {}{} = {};\n",
            logic(a),
            sanitize(&a.name),
            sized_literal(a.width, &v, a.signed)
        ));
    }
    let wrapper = matches!(node.code, Verilog::Wrapper(_));
    if !wrapper {
        for (label, (w, v)) in &enums {
            t.push_str(&format!(
                "    localparam logic {}{} = {};\n",
                range(*w),
                enum_param_name(label),
                sized_literal(*w, &(*v).into(), false)
            ));
        }
        for a in node.atoms.iter().filter(|a| a.role == AtomRole::Local) {
            t.push_str(&format!("    {}{};\n", logic(a), sanitize(&a.name)));
        }
    }
    for (c, r) in node.children.iter().zip(&children) {
        let cports: Vec<&AtomInfo> =
            c.atoms.iter().filter(|a| matches!(a.role, AtomRole::Input | AtomRole::Output)).collect();
        for a in &cports {
            t.push_str(&format!("    {}{};\n", logic(a), sanitize(&format!("{}${}", c.inst, a.name))));
        }
        let mname = match r {
            ModRef::Module(i) => format!("@@MOD{i}@@"),
            ModRef::Blackbox(n) => n.clone(),
        };
        let conns: Vec<String> = cports
            .iter()
            .map(|a| format!("        .{}({})", sanitize(&a.name), sanitize(&format!("{}${}", c.inst, a.name))))
            .collect();
        t.push_str(&format!("    {mname} {} (\n{}\n    );\n", sanitize(&c.inst), conns.join(",\n")));
    }

    // ---- body
    match &node.code {
        Verilog::Combinatorial(block) => {
            let mut scope = Scope::new(&syms, &module_label, &reg.consts);
            let body = scope.body(block)?;
            for a in body.links.iter().chain(&body.clock_assigns) {
                t.push_str(&format!("    assign {} = {};\n", a.dst, a.src));
            }
            for g in &body.groups {
                t.push_str("    always_comb begin\n");
                for l in g {
                    t.push_str(l);
                    t.push('\n');
                }
                t.push_str("    end\n");
            }
        }
        Verilog::Custom(code) => {
            for l in fix_custom(code).lines() {
                if l.trim().is_empty() {
                    continue;
                }
                t.push_str(&format!("    {}\n", l.trim_end()));
            }
        }
        Verilog::Wrapper(w) => {
            for l in fix_custom(&w.code).lines().filter(|l| !l.trim().is_empty()) {
                t.push_str(&format!("    {}\n", l.trim_end()));
            }
            reg.add_core(&w.cores);
        }
        Verilog::Empty | Verilog::Blackbox(_) => {}
    }
    t.push_str("endmodule\n");

    let p = Pending { text: t, base, suffix };
    if is_top {
        reg.modules.push(p);
        Ok(ModRef::Module(reg.modules.len() - 1))
    } else {
        Ok(ModRef::Module(reg.intern(p)))
    }
}

/// Final module names: the type's base name, its generic arguments when two
/// variants of one type differ, and a counter only if that still collides.
pub fn assign_names(reg: &Registry, top: usize, top_name: &str) -> Vec<String> {
    let mut variants: BTreeMap<&str, usize> = BTreeMap::new();
    for (i, m) in reg.modules.iter().enumerate() {
        if i != top {
            *variants.entry(m.base.as_str()).or_default() += 1;
        }
    }
    let mut taken: BTreeSet<String> = BTreeSet::new();
    taken.insert(top_name.to_string());
    let mut names = vec![String::new(); reg.modules.len()];
    names[top] = top_name.to_string();
    for (i, m) in reg.modules.iter().enumerate() {
        if i == top {
            continue;
        }
        let mut n = if variants[m.base.as_str()] > 1 && !m.suffix.is_empty() {
            format!("{}_{}", m.base, m.suffix)
        } else {
            m.base.clone()
        };
        if crate::expr::is_reserved(&n) {
            n = if m.suffix.is_empty() { format!("{n}_") } else { format!("{}_{}", m.base, m.suffix) };
        }
        if taken.contains(&n) {
            let mut k = 2;
            while taken.contains(&format!("{n}_v{k}")) {
                k += 1;
            }
            n = format!("{n}_v{k}");
        }
        taken.insert(n.clone());
        names[i] = n;
    }
    names
}
