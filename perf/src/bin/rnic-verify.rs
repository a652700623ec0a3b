//! `rnic-verify requester|responder [options] [HOST]`: every RC opcode
//! once with its bytes checked on both sides (rnic_perf::verify).

use std::process::ExitCode;

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().collect();
    let o = match rnic_perf::verify::parse(&argv) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("rnic-verify: {e}");
            return ExitCode::from(2);
        }
    };
    match rnic_perf::verify::run(&o, &mut std::io::stdout().lock()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("rnic-verify: {e}");
            ExitCode::FAILURE
        }
    }
}
