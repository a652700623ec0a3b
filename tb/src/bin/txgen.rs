//! `txgen DESCRIPTION OUT.pcap`: packets described one per line (see
//! `rnic_tb::txdesc`) become frames through the Verilated transmit builder.

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: txgen DESCRIPTION OUT.pcap   (or: make txgen DESC=... OUT=...)");
        return std::process::ExitCode::FAILURE;
    }
    let text = match std::fs::read_to_string(&args[1]) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("txgen: {}: {e}", args[1]);
            return std::process::ExitCode::FAILURE;
        }
    };
    let frames = match rnic_tb::txdesc::build(&text) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("txgen: {}: {e}", args[1]);
            return std::process::ExitCode::FAILURE;
        }
    };
    if let Err(e) = std::fs::write(&args[2], rnic_tb::pcap_out::pcap_bytes(&frames)) {
        eprintln!("txgen: {}: {e}", args[2]);
        return std::process::ExitCode::FAILURE;
    }
    println!("txgen: {} frames -> {}", frames.len(), args[2]);
    std::process::ExitCode::SUCCESS
}
