//! `rnic-pingpong [options] [HOST]`: ibv_rc_pingpong on the rnic
//! (rnic_perf::pingpong); exits 1 when a message's bytes were wrong.

use std::process::ExitCode;

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().collect();
    let o = match rnic_perf::pingpong::parse(&argv) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("rnic-pingpong: {e}");
            return ExitCode::from(2);
        }
    };
    match rnic_perf::pingpong::run(&o, &mut std::io::stdout().lock()) {
        Ok(s) if s.bad == 0 => ExitCode::SUCCESS,
        Ok(_) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("rnic-pingpong: {e}");
            ExitCode::FAILURE
        }
    }
}
