//! Field tables of packed header records: (name, width) pairs packed most
//! significant first, ending at bit 0. One walk serves the receive and the
//! transmit header tables.

/// Sum of the widths of `fields`.
pub const fn packed_bits(fields: &[(&str, usize)]) -> usize {
    let mut n = 0;
    let mut i = 0;
    while i < fields.len() {
        n += fields[i].1;
        i += 1;
    }
    n
}

/// The lowest bit of field `name` in a record packed from `fields`; `None`
/// when there is no such field (the callers turn that into a compile-time
/// error naming their table).
pub const fn packed_field_lsb(fields: &[(&str, usize)], name: &str) -> Option<usize> {
    let mut top = packed_bits(fields);
    let mut i = 0;
    while i < fields.len() {
        top -= fields[i].1;
        if str_eq(fields[i].0, name) {
            return Some(top);
        }
        i += 1;
    }
    None
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut k = 0;
    while k < a.len() {
        if a[k] != b[k] {
            return false;
        }
        k += 1;
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: &[(&str, usize)] = &[("a", 3), ("bb", 5), ("c", 2)];

    #[test]
    fn fields_pack_most_significant_first() {
        assert_eq!(packed_bits(T), 10);
        assert_eq!(packed_field_lsb(T, "a"), Some(7));
        assert_eq!(packed_field_lsb(T, "bb"), Some(2));
        assert_eq!(packed_field_lsb(T, "c"), Some(0));
        assert_eq!(packed_field_lsb(T, "b"), None);
        assert_eq!(packed_field_lsb(T, "bbb"), None);
    }
}
