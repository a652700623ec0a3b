//! `replay CAPTURE.pcap`: one JSON line per frame, as the RTL parser saw it.

fn main() -> std::process::ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: replay CAPTURE.pcap|.pcapng   (or: make replay PCAP=...)");
        return std::process::ExitCode::FAILURE;
    };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("replay: {path}: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    let frames = match rnic_proto::pcap::read_capture(&bytes) {
        Ok(p) => p.into_iter().map(|p| p.data).collect::<Vec<_>>(),
        Err(e) => {
            eprintln!("replay: {path}: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    for r in rnic_tb::replay::replay(&frames) {
        println!("{}", r.to_json());
    }
    std::process::ExitCode::SUCCESS
}
