//! `rnic-perf <test> [options] [server]`: perftest's tests over the rnic.

use rnic_perf::options::{parse, OptError};
use std::process::ExitCode;

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().collect();
    let opts = match parse(&argv) {
        Ok(o) => o,
        Err(OptError::Help) => {
            print!("{}", rnic_perf::options::usage());
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("rnic-perf: {e}");
            return ExitCode::from(2);
        }
    };
    match rnic_perf::run::run(&opts, &mut std::io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rnic-perf {}: {e}", opts.test.name());
            ExitCode::FAILURE
        }
    }
}
