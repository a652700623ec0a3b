//! `rnic-demo [DIR]`: `make demo`'s perftest part (`rnic_perf::demo`):
//! write_bw and read_bw between two simulated NICs through the driver,
//! perftest's tables on stdout, the run's pcap and a bandwidth plot in DIR
//! (default `build/demo`).

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "build/demo".to_string());
    let t = std::time::Instant::now();
    let mut out = std::io::stdout();
    match rnic_perf::demo::run(&mut out, std::path::Path::new(&dir)) {
        Ok((_, files)) => println!(
            "rnic-demo: the run's frames in {}, bandwidth against size in {} ({:.0} s here)",
            files.pcap.display(),
            files.plot.display(),
            t.elapsed().as_secs_f64()
        ),
        Err(e) => {
            eprintln!("rnic-demo: {dir}: {e}");
            std::process::exit(1);
        }
    }
}
