//! `TypeTag<T>`: a zero-size field that tells the emitter a block's Rust type,
//! so that modules are named after block types rather than instance paths.
//!
//! rust-hdl's `Probe` only hands out `&dyn Block`, which has no type name. A
//! block that carries `kind: TypeTag<Self>` announces `type_name::<Self>()`
//! through an empty namespace visit, which every other probe ignores.

use rust_hdl_core::prelude::*;
use std::marker::PhantomData;

/// Prefix of the namespace name a [`TypeTag`] announces itself with.
pub const TAG_PREFIX: &str = "__rnic_type__";

/// Put `kind: TypeTag<Self>` in a `#[derive(LogicBlock)]` struct to name its module.
pub struct TypeTag<T: ?Sized>(PhantomData<fn() -> Box<T>>);

impl<T: ?Sized> Default for TypeTag<T> {
    fn default() -> Self {
        TypeTag(PhantomData)
    }
}

impl<T: ?Sized> Clone for TypeTag<T> {
    fn clone(&self) -> Self {
        TypeTag(PhantomData)
    }
}

impl<T: ?Sized> Logic for TypeTag<T> {
    fn update(&mut self) {}
}

impl<T: ?Sized> Block for TypeTag<T> {
    fn connect_all(&mut self) {}
    fn update_all(&mut self) {}
    fn has_changed(&self) -> bool {
        false
    }
    fn accept(&self, _name: &str, probe: &mut dyn Probe) {
        let name = format!("{TAG_PREFIX}{}", std::any::type_name::<T>());
        probe.visit_start_namespace(&name, self);
        probe.visit_end_namespace(&name, self);
    }
}

/// `rnic_hw::axis::AxisFifo<512, 64, 5>` -> (`axis_fifo`, `512_64_5`).
pub fn module_base_name(type_name: &str) -> (String, String) {
    let (path, generics) = match type_name.find('<') {
        Some(i) => (&type_name[..i], &type_name[i + 1..type_name.len() - 1]),
        None => (type_name, ""),
    };
    let base = path.rsplit("::").next().unwrap_or(path);
    let mut snake = String::new();
    let chars: Vec<char> = base.chars().collect();
    for (i, c) in chars.iter().enumerate() {
        if c.is_uppercase() {
            let prev_lower = i > 0 && (chars[i - 1].is_lowercase() || chars[i - 1].is_ascii_digit());
            let next_lower = i + 1 < chars.len() && chars[i + 1].is_lowercase();
            if i > 0 && (prev_lower || (next_lower && chars[i - 1].is_uppercase())) {
                snake.push('_');
            }
            snake.extend(c.to_lowercase());
        } else {
            snake.push(*c);
        }
    }
    let mut suffix = String::new();
    for part in generics.split(',') {
        // keep the last path segment of type arguments: `rust_hdl_core::bits::Bits<8>` -> bits8
        let last = part.trim().rsplit("::").next().unwrap_or("");
        let cleaned: String = last.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
        if !cleaned.is_empty() {
            if !suffix.is_empty() {
                suffix.push('_');
            }
            suffix.push_str(&cleaned.to_lowercase());
        }
    }
    (snake, suffix)
}

#[cfg(test)]
mod tests {
    use super::module_base_name;
    #[test]
    fn names_from_types() {
        assert_eq!(module_base_name("rnic_hw::axis::AxisFifo<512, 64, 5>"), ("axis_fifo".into(), "512_64_5".into()));
        assert_eq!(module_base_name("a::QPContextCache"), ("qp_context_cache".into(), "".into()));
        assert_eq!(module_base_name("x::Reg<rust_hdl_core::bits::Bits<8>>"), ("reg".into(), "bits8".into()));
    }
}
