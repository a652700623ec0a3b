//! `rtlgen [--out DIR] [NAME...]`: emit catalog blocks as SystemVerilog,
//! one `<name>.sv` per block (all blocks when no name is given, and then
//! any other `.sv` file in DIR is removed).

use rnic_hw::catalog::{catalog, CatalogEntry};
use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let mut out = PathBuf::from("build/verilog");
    let mut names = vec![];
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--out" => out = PathBuf::from(args.next().expect("--out needs a directory")),
            "--list" => {
                for e in catalog() {
                    println!("{}", e.name);
                }
                return ExitCode::SUCCESS;
            }
            _ => names.push(a),
        }
    }
    let entries: Vec<CatalogEntry> =
        catalog().into_iter().filter(|e| names.is_empty() || names.iter().any(|n| n == e.name)).collect();
    if entries.is_empty() {
        eprintln!("rtlgen: no catalog block matches {names:?}");
        return ExitCode::FAILURE;
    }
    std::fs::create_dir_all(&out).expect("cannot create output directory");
    if names.is_empty() {
        // a block taken out of the catalog leaves no stale design for lint and synth
        let known: Vec<String> = catalog().iter().map(|e| format!("{}.sv", e.name)).collect();
        for f in std::fs::read_dir(&out).expect("cannot read output directory").flatten() {
            let name = f.file_name().to_string_lossy().into_owned();
            if name.ends_with(".sv") && !known.contains(&name) {
                std::fs::remove_file(f.path()).expect("cannot remove a stale design");
                println!("{name:<20} removed: no longer in the catalog");
            }
        }
    }
    for e in entries {
        match rnic_hw::catalog::emit(&e) {
            Ok(d) => {
                let path = out.join(format!("{}.sv", e.name));
                let text = d.to_sv();
                std::fs::write(&path, &text).expect("cannot write Verilog");
                println!("{:<20} {:>4} modules {:>7} bytes  {}", e.name, d.modules.len(), text.len(), path.display());
            }
            Err(err) => {
                eprintln!("rtlgen: {}: {err}", e.name);
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}
