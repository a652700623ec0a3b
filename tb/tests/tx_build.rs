//! The transmit builder against the protocol model's encoder: every frame
//! is byte-for-byte what the model builds (IPv4 checksum, lengths, pad,
//! ICRC included), for every opcode, IPv4/IPv6, VLAN or not, under random
//! stalls; and back-to-back frames leave at one beat per cycle.

use rnic_proto::*;
use rnic_sim::axis::Rng;
use rnic_tb::random_packet;
use rnic_tb::tx::{tx_header, TxBench};

fn packets(rng: &mut Rng, n: usize) -> Vec<RocePacket> {
    (0..n)
        .map(|i| {
            let mut p = random_packet(rng, Opcode::ALL[i % Opcode::ALL.len()]);
            if let IpHeader::V4(h) = &mut p.ip {
                h.options.clear();
            }
            if i % 7 == 3 && p.bth.opcode.carries_payload() {
                p.payload = (0..4096).map(|k| (k * 7 + i) as u8).collect();
            }
            p
        })
        .collect()
}

#[test]
fn frames_equal_the_model_encoder() {
    let mut rng = Rng(11);
    let mut pkts = packets(&mut rng, 400);
    let mut tb = TxBench::new();
    let mut expected = vec![];
    for (i, p) in pkts.iter_mut().enumerate() {
        let h = tx_header(p, (rng.next() & 0xff_ffff) as u32, i as u16);
        expected.push(encode_frame(p).unwrap());
        tb.queue(h, &p.payload);
    }
    tb.run(&mut rng, pkts.len(), 70, 70);
    for (i, (got, want)) in tb.frames.iter().zip(&expected).enumerate() {
        assert_eq!(got.len(), want.len(), "frame {i} ({:?}): length", pkts[i].bth.opcode);
        assert_eq!(got, want, "frame {i} ({:?})", pkts[i].bth.opcode);
        let d = decode_frame(got).unwrap();
        assert!(d.icrc_ok && d.ip_checksum_ok(), "frame {i}");
    }
    eprintln!("{} frames byte-identical to the model's, every opcode, ICRC and checksums verified", tb.frames.len());
}

#[test]
fn line_rate_back_to_back() {
    let mut rng = Rng(12);
    for (name, op, len) in [
        ("RC ACK (smallest)", Opcode::RcAck, 0usize),
        ("SEND ONLY 1 B", Opcode::RcSendOnly, 1),
        ("SEND ONLY 64 B", Opcode::RcSendOnly, 64),
        ("WRITE ONLY 1000 B", Opcode::RcWriteOnly, 1000),
        ("WRITE ONLY 4096 B", Opcode::RcWriteOnly, 4096),
        ("UD SEND 1024 B", Opcode::UdSendOnly, 1024),
    ] {
        let mut tb = TxBench::new();
        let n = 30;
        let mut beats = 0;
        for i in 0..n {
            let mut p = random_packet(&mut rng, op);
            p.payload = (0..len).map(|k| k as u8).collect();
            if let IpHeader::V4(h) = &mut p.ip {
                h.options.clear();
            }
            let h = tx_header(&mut p, i, i as u16);
            beats += encode_frame(&p).unwrap().len().div_ceil(64);
            tb.queue(h, &p.payload);
        }
        tb.run(&mut rng, n as usize, 100, 100);
        let c = &tb.out_cycles;
        assert_eq!(c.len(), beats);
        let span = c[c.len() - 1] - c[0] + 1;
        let gaps: Vec<(usize, u64)> = c.windows(2).enumerate().filter(|(_, w)| w[1] != w[0] + 1).map(|(i, w)| (i, w[1] - w[0])).collect();
        if !gaps.is_empty() {
            eprintln!("{name}: gaps after output beat (index, distance): {gaps:?}; frame lengths {:?}", tb.frames.iter().map(|f| f.len()).collect::<Vec<_>>());
        }
        assert_eq!(span, beats as u64, "{name}: {beats} beats must leave in {beats} consecutive cycles");
        eprintln!("{name:<20}: {beats} beats in {span} cycles; first beat out {} cycles after reset", c[0]);
    }
}
