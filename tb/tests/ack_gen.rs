//! The responder's acknowledgements (`AckGen`, catalog `ack_gen`) against
//! the protocol model (`rnic_tb::ack_gen`: every header word equal to the
//! model's ACK packet as the builder takes it, both streams stalled at
//! random, the merges predicted and checked against the merge rule), the
//! AETH constants against the model's table, the wire bytes after
//! `TxBuild`, latency and rate.

use rnic_hw::consts::*;
use rnic_hw::transport::ACK_GEN_LATENCY;
use rnic_proto::*;
use rnic_sim::axis::Rng;
use rnic_sim::models::ack_gen::Dut;
use rnic_tb::ack_gen::*;
use rnic_tb::tx::TxBench;

fn bench(seed: u64) -> AckGenBench<Dut> {
    AckGenBench::new(Dut::new(), seed)
}

#[test]
fn aeth_codes_are_the_models() {
    assert_eq!(BTH_RC_ACKNOWLEDGE, Opcode::RcAck.value() as u64);
    assert_eq!(AETH_CREDIT_UNLIMITED, AckCredit::UNLIMITED.code() as u64);
    let naks = [
        NakCode::PsnSequenceError,
        NakCode::InvalidRequest,
        NakCode::RemoteAccessError,
        NakCode::RemoteOperationalError,
    ];
    let mut kinds: Vec<AckKind> = (0..32u8).flat_map(|c| [AckKind::Ack(c), AckKind::RnrNak(c)]).collect();
    kinds.extend(naks.map(AckKind::Nak));
    for k in kinds {
        let (kind, code) = kind_code(k);
        let syndrome = aeth_kind(k).syndrome() as u64;
        assert_eq!((kind << AETH_KIND_LSB) | code, syndrome, "{k:?}");
        assert_eq!(AethKind::from_syndrome(syndrome as u8), aeth_kind(k), "{k:?}");
    }
    for n in naks {
        assert_eq!(kind_code(AckKind::Nak(n)).1, n.code() as u64, "{n:?}");
    }
    assert_eq!(AETH_NAK_REMOTE_ACCESS, rnic_contract::mr::NAK_REMOTE_ACCESS_ERROR as u64);
}

fn run_random(seed: u64, n: usize, qpns: &[u32], ack_pct: u64, req_pct: u64, out_pct: u64) -> AckGenBench<Dut> {
    let mut b = bench(seed);
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    for _ in 0..n {
        b.queue.push_back(random_req(&mut rng, qpns, ack_pct));
    }
    b.req_pct = req_pct;
    b.out_pct = out_pct;
    b.drain(100_000);
    assert_eq!(b.taken.len(), n);
    assert_eq!(b.out_idx.len() + b.merged.len(), n);
    b
}

#[test]
fn random_requests_under_random_stalls() {
    let b = run_random(1, 3000, &[3, 4000, 16383], 70, 70, 50);
    let naks = b.taken.iter().filter(|r| !r.is_ack()).count();
    let nak_out = b.out_idx.iter().filter(|&&i| !b.taken[i].is_ack()).count();
    assert_eq!(naks, nak_out, "every NAK, RNR NAK and atomic ACK answered");
    let atomics = b.out_idx.iter().filter(|&&i| b.taken[i].atomic.is_some()).count();
    assert!(atomics > 100, "{atomics} atomic ACKs");
    assert!(b.merged.len() > 100 && naks > 500, "merges {} NAKs {naks}", b.merged.len());
    eprintln!(
        "random: {} requests, {} headers, {} merged, {naks} NAKs, {} cycles",
        b.taken.len(),
        b.out_idx.len(),
        b.merged.len(),
        b.now()
    );
}

#[test]
fn each_stream_stalled_alone() {
    // the output stalled: long runs of one QP's ACKs merge
    let b = run_random(2, 600, &[9], 90, 100, 15);
    assert!(b.merged.len() > 300, "{}", b.merged.len());
    // the input stalled: the output always free, nothing merges
    let b = run_random(3, 600, &[9], 100, 20, 100);
    assert!(b.merged.is_empty());
    // many QPs, both stalled
    let qpns: Vec<u32> = (0..64).map(|i| i * 251).collect();
    run_random(4, 600, &qpns, 60, 60, 60);
}

fn acks(qpn: u32, kinds: &[AckKind]) -> Vec<AckReq> {
    let mut rng = Rng(5);
    kinds
        .iter()
        .enumerate()
        .map(|(i, &kind)| {
            let mut r = random_req(&mut rng, &[qpn], 100);
            r.kind = kind;
            r.atomic = None;
            r.psn = 100 + i as u32;
            r.msn = 7 + i as u32;
            r
        })
        .collect()
}

/// Requests offered back to back with the output stalled for `stall`
/// cycles, then free: the request indices answered.
fn stalled_then_free(reqs: Vec<AckReq>, stall: u64) -> Vec<usize> {
    let mut b = bench(6);
    b.queue.extend(reqs);
    for _ in 0..stall {
        b.step_with(Some(false));
    }
    b.drain(1000);
    b.out_idx
}

#[test]
fn stalled_output_merges_a_run_of_acks_but_no_nak() {
    let ack = AckKind::Ack(AETH_CREDIT_UNLIMITED as u8);
    // the first goes to the output register; the rest merge while it waits
    assert_eq!(stalled_then_free(acks(12, &[ack; 10]), 30), vec![0, 9]);
    // a NAK is not merged, nor merged into; the ACKs behind it wait in the skid register
    let nak = AckKind::Nak(NakCode::PsnSequenceError);
    assert_eq!(stalled_then_free(acks(12, &[ack, ack, ack, nak, ack, ack]), 30), vec![0, 2, 3, 4, 5]);
    let rnr = AckKind::RnrNak(12);
    assert_eq!(stalled_then_free(acks(12, &[ack, rnr, ack, ack]), 30), vec![0, 1, 2, 3]);
    // ACKs of two QPs alternating: nothing merges
    let mut two = acks(12, &[ack; 6]);
    for r in two.iter_mut().skip(1).step_by(2) {
        r.qpn = 13;
    }
    assert_eq!(stalled_then_free(two, 30), vec![0, 1, 2, 3, 4, 5]);
    // without a stall, a run of one QP's ACKs is answered one by one
    assert_eq!(stalled_then_free(acks(12, &[ack; 10]), 0), (0..10).collect::<Vec<_>>());
}

#[test]
fn stalled_output_takes_three_then_holds() {
    let mut b = bench(7);
    let qpns: Vec<u32> = (0..10).collect();
    let mut rng = Rng(8);
    for q in &qpns {
        b.queue.push_back(random_req(&mut rng, &[*q], 100));
    }
    for _ in 0..40 {
        b.step_with(Some(false));
    }
    assert_eq!(b.taken.len(), 3, "the header register, the pending and the skid register");
    b.drain(1000);
    assert_eq!(b.out_idx, (0..10).collect::<Vec<_>>());
}

#[test]
fn latency_and_full_rate() {
    let mut b = bench(9);
    let mut rng = Rng(10);
    let qpns: Vec<u32> = (0..50).collect();
    for _ in 0..1000 {
        b.queue.push_back(random_req(&mut rng, &qpns, 80));
    }
    b.drain(10_000);
    let t0 = b.take_cycles[0];
    for i in 0..1000 {
        assert_eq!(b.take_cycles[i], t0 + i as u64, "one request taken per cycle");
        assert_eq!(b.offer_cycles[i], b.take_cycles[i] + ACK_GEN_LATENCY, "request {i}: latency");
        assert_eq!(b.out_cycles[i], b.offer_cycles[i], "request {i}: taken when offered");
    }
}

#[test]
fn wire_bytes_through_tx_build() {
    let qpns: Vec<u32> = (0..4).collect();
    let b = run_random(12, 120, &qpns, 60, 70, 60);
    let mut tx = TxBench::new();
    let mut want = vec![];
    for (k, &i) in b.out_idx.iter().enumerate() {
        let (roce, words) = expected_packet(&b.taken[i]);
        assert_eq!(words, b.out_hdrs[k]);
        tx.queue(b.out_hdrs[k].clone(), &[]);
        want.push(encode_frame(&roce).unwrap());
    }
    let mut rng = Rng(13);
    tx.run(&mut rng, want.len(), 80, 80);
    for (k, (got, want)) in tx.frames.iter().zip(&want).enumerate() {
        assert_eq!(got, want, "frame {k}");
        let p = decode_frame(got).unwrap();
        let atomic = b.taken[b.out_idx[k]].atomic;
        assert_eq!(p.bth.opcode, if atomic.is_some() { Opcode::RcAtomicAck } else { Opcode::RcAck });
        assert_eq!(p.ext.atomic_ack_eth().map(|a| a.orig_remote_data), atomic, "frame {k}: AtomicAckETH");
    }
    assert_eq!(tx.frames.len(), want.len());
    let atomics = b.out_idx.iter().filter(|&&i| b.taken[i].atomic.is_some()).count();
    assert!(atomics >= 3, "{atomics} atomic ACKs on the wire");
}

/// Memory that grants every key and reads zeros (the responder's ACKs do
/// not depend on the bytes).
struct AnyKey;

impl rnic_proto::rc::Memory for AnyKey {
    fn check(&self, _: u32, _: u32, _: u64, _: u64, _: rnic_proto::rc::Access) -> Result<(), rnic_proto::rc::KeyError> {
        Ok(())
    }
    fn read(&self, _: u64, out: &mut [u8]) -> Result<(), rnic_proto::rc::MemFault> {
        out.fill(0);
        Ok(())
    }
    fn write(&mut self, _: u64, _: &[u8]) -> Result<(), rnic_proto::rc::MemFault> {
        Ok(())
    }
}

/// The responder model's own ACKs, NAKs and RNR NAKs (WRITEs in order with
/// and without AckReq, packets ahead of the expected PSN, duplicates,
/// SENDs without a RECV, coalesced ACKs flushed, and a WRITE whose length
/// is wrong at the end) become requests; the responder's packets, as the
/// builder takes them, are the bench's references, and the block's headers
/// must equal them.
#[test]
fn the_responder_models_acks() {
    use rnic_proto::rc::responder::{RecvWqe, Responder, ResponderConfig};
    use rnic_proto::rc::{RcPacket, Sge};
    let mut rng = Rng(14);
    let mut b = bench(15);
    let mut mem = AnyKey;
    let mut kinds = [0usize; 3];
    for qpn in [1u32, 700, 16000] {
        let cfg = ResponderConfig {
            dest_qp: (rng.next() as u32) & 0xff_ffff,
            pmtu: Pmtu::Mtu1024,
            start_psn: Psn::new(Psn::MASK - 40),
            max_dest_rd_atomic: 4,
            min_rnr_timer: RnrTimer::new((rng.next() % 32) as u8).unwrap(),
            pd: 3,
            max_recv_sge: 4,
            access: rnic_proto::rc::responder::QpAccess::ALL,
        };
        let (pkey, path) = (rng.next() as u16, random_path(&mut rng));
        let mut resp = Responder::new(cfg);
        for step in 0..160 {
            let e = resp.expected_psn();
            let write = |psn: Psn, ack_req: bool, len: u32| {
                let reth = Reth { va: 0x1000, rkey: 9, dma_len: len };
                RcPacket::new(Opcode::RcWriteOnly, 5, psn, ack_req, ExtHeaders::Reth(reth), vec![0; 64])
            };
            let out = match (step == 159, rng.next() % 10) {
                (true, _) => resp.receive(&write(e, true, 1000), &mut mem),
                (_, 0) => resp.receive(&write(e.add(1 + (rng.next() % 5) as u32), true, 64), &mut mem),
                (_, 1) => resp.receive(&write(e.sub(1 + (rng.next() % 3) as u32), false, 64), &mut mem),
                (_, 2) => {
                    let send = RcPacket::new(Opcode::RcSendOnly, 5, e, true, ExtHeaders::Bare, vec![1; 8]);
                    resp.receive(&send, &mut mem)
                }
                (_, 3) => {
                    resp.post_recv(RecvWqe { wr_id: step, sges: vec![Sge { addr: 0, len: 64, lkey: 1 }] });
                    vec![]
                }
                (_, 4) => resp.flush_ack().into_iter().collect(),
                _ => resp.receive(&write(e, rng.chance(50), 64), &mut mem),
            };
            for p in out.into_iter().filter(|p| p.opcode() == Opcode::RcAck) {
                let ExtHeaders::Aeth(aeth) = p.ext else { panic!("an ACK without an AETH") };
                let kind = match aeth.kind() {
                    AethKind::Ack(c) => AckKind::Ack(c.code()),
                    AethKind::RnrNak(t) => AckKind::RnrNak(t.code()),
                    AethKind::Nak(n) => AckKind::Nak(n),
                    other => panic!("the responder sent {other:?}"),
                };
                kinds[match kind {
                    AckKind::Ack(_) => 0,
                    AckKind::RnrNak(_) => 1,
                    AckKind::Nak(_) => 2,
                }] += 1;
                let (psn, msn) = (p.psn().value(), aeth.msn);
                let r = AckReq { qpn, dest_qpn: p.bth.dest_qp, pkey, path, psn, kind, msn, atomic: None };
                // the bench's reference is the responder's packet
                let mut pk = p.clone();
                pk.bth.pkey = pkey;
                let (eth, ip) = path_headers(&path);
                let mut roce = pk.into_roce(eth, ip, 0);
                assert_eq!(rnic_tb::tx::tx_header(&mut roce, qpn, 0), expected_header(&r), "{p:?}");
                b.queue.push_back(r);
            }
        }
        assert!(resp.is_error(), "the last WRITE's NAK put the QP in error");
    }
    let n = b.queue.len();
    b.req_pct = 80;
    b.out_pct = 60;
    b.drain(20_000);
    assert_eq!(b.taken.len(), n);
    eprintln!(
        "the responder's: {kinds:?} ACKs, RNR NAKs, NAKs; {} headers, {} merged",
        b.out_idx.len(),
        b.merged.len()
    );
    assert!(kinds.iter().all(|&k| k >= 3), "{kinds:?}");
}
