//! `regmap-doc [PATH]`: renders docs/regmap.md from the contract, into PATH
//! or to standard output. `make docs` runs it.

use std::process::ExitCode;

fn main() -> ExitCode {
    let mut text = String::new();
    rnic_contract::doc::write_regmap(&mut text).expect("writing to a String cannot fail");
    match std::env::args_os().nth(1) {
        Some(path) => {
            if let Err(e) = std::fs::write(&path, text) {
                eprintln!("regmap-doc: {}: {e}", path.to_string_lossy());
                return ExitCode::FAILURE;
            }
        }
        None => print!("{text}"),
    }
    ExitCode::SUCCESS
}
