//! `rnic-devinfo [-d sim|0000:xx:yy.z]`: what ibv_devinfo prints.

use rnic_perf::options::{is_pci_address, DeviceSel};
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sel = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        [] | ["-d", "sim"] => DeviceSel::Sim,
        ["-d", bdf] if is_pci_address(bdf) => DeviceSel::Pci(bdf.to_string()),
        _ => {
            eprintln!("Usage: rnic-devinfo [-d sim|0000:xx:yy.z]");
            return ExitCode::from(2);
        }
    };
    let dev = match rnic_perf::device::open(&sel) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("rnic-devinfo: cannot open the device: {e}");
            return ExitCode::FAILURE;
        }
    };
    match dev.ctx.query_port(1) {
        Ok(port) => {
            print!("{}", rnic_perf::devinfo::devinfo(&dev.name, &dev.ctx.query_device(), &port));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("rnic-devinfo: query_port: {e:?}");
            ExitCode::FAILURE
        }
    }
}
