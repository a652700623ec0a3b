//! Writing frames as a classic pcap (Ethernet link type), for tshark and scapy.

pub fn pcap_bytes(frames: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for v in [0xa1b2_c3d4u32, 0x0004_0002, 0, 0, 65535, 1] {
        // magic, version 2.4 (as two u16), thiszone, sigfigs, snaplen, Ethernet
        out.extend_from_slice(&v.to_le_bytes());
    }
    // the version words are u16 + u16: rewrite them in order
    out[4..8].copy_from_slice(&[2, 0, 4, 0]);
    for (i, f) in frames.iter().enumerate() {
        for v in [i as u32, 0, f.len() as u32, f.len() as u32] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(f);
    }
    out
}
