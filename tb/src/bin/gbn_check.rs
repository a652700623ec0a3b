//! `gbn_check FILE [--pair QPN0:QPN1]...`: the go-back-N invariants of
//! issue 12 (item 4) over a capture of RC traffic between two endpoints
//! (`rnic_tb::gbn_check::check_capture`): a requester sends new PSNs in
//! order and resends only from the first PSN, one past an ACK or a NAK'd
//! PSN; ACKs never go backwards; one PSN sequence NAK per loss episode,
//! naming the first PSN missing. The connections are inferred from the
//! capture unless given (hexadecimal QPNs, side 0 first: the endpoint of the
//! capture's first frame). Exits 1 at the first violation, 2 on bad input.

use rnic_tb::gbn_check::check_capture;

fn usage() -> ! {
    eprintln!("usage: gbn_check FILE.pcap [--pair QPN0:QPN1]...");
    std::process::exit(2)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else { usage() };
    let mut pairs = vec![];
    while let Some(a) = args.next() {
        let (Some(v), "--pair") = (args.next(), a.as_str()) else { usage() };
        let qpn = |s: &str| u32::from_str_radix(s.trim_start_matches("0x"), 16).unwrap_or_else(|_| usage());
        let Some((x, y)) = v.split_once(':') else { usage() };
        pairs.push((qpn(x), qpn(y)));
    }
    let file = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("gbn_check: {path}: {e}");
        std::process::exit(2)
    });
    match check_capture(&file, (!pairs.is_empty()).then_some(pairs.as_slice())) {
        Ok((st, pairs)) => {
            let conns: Vec<String> = pairs.iter().map(|p| format!("{:#x}:{:#x}", p.0, p.1)).collect();
            println!(
                "{path}: the go-back-N invariants hold over {} connections ({}): {} requests, {} resent in {} resends, {} ACKs, {} NAKs",
                pairs.len(),
                conns.join(" "),
                st.requests,
                st.resent,
                st.resends,
                st.acks,
                st.naks
            );
        }
        Err(e) => {
            println!("{path}: {e}");
            std::process::exit(1)
        }
    }
}
