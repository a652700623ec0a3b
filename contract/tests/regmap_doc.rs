//! docs/regmap.md is what the contract generates, so the document never
//! drifts from the constants the RTL and the driver use.

use rnic_contract::codes::CODES;
use rnic_contract::doc::write_regmap;
use rnic_contract::layouts::LAYOUTS;
use rnic_contract::regs::REGISTERS;

fn generate() -> String {
    let mut text = String::new();
    write_regmap(&mut text).unwrap();
    text
}

#[test]
fn docs_regmap_md_is_up_to_date() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/regmap.md");
    let generated = generate();
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    if committed != generated {
        let (mut file, mut fresh) = (committed.lines(), generated.lines());
        for n in 1.. {
            let (old, new) = (file.next(), fresh.next());
            if old != new {
                eprintln!("first difference at line {n}:\n  file:      {old:?}\n  generated: {new:?}");
                break;
            }
        }
        panic!("docs/regmap.md is stale: run `make docs`");
    }
}

#[test]
fn the_document_is_deterministic_and_complete() {
    let text = generate();
    assert_eq!(text, generate());
    assert!(text.ends_with('\n'));
    for reg in REGISTERS {
        assert!(text.contains(&format!("### `{}`", reg.name)), "{}", reg.name);
    }
    for layout in LAYOUTS {
        assert!(text.contains(&format!("### `{}`", layout.name)), "{}", layout.name);
        for f in layout.fields {
            assert!(text.contains(&format!("| `{}` |", f.name)), "{}.{}", layout.name, f.name);
        }
    }
    for code in CODES {
        assert!(text.contains(&format!("### `{}`", code.name)), "{}", code.name);
    }
}
