//! The responder model against real Linux rxe: every RC request of the
//! captures in `vectors/rxe` is fed (decoded with proto, in capture order)
//! to a responder model per (responder address, QPN), with a memory that
//! accepts any rkey, and the responses the model produces must be the ones
//! rxe sent in the capture: same opcode, PSN, AckReq bit, AETH syndrome and
//! MSN, and payload length. Every captured response must be predicted and
//! every predicted response captured.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::net::Ipv4Addr;

use rnic_proto::pcap::read_capture;
use rnic_proto::rc::requester::{Requester, RequesterConfig, SendOp, SendWqe};
use rnic_proto::rc::responder::{RecvWqe, Responder, ResponderConfig};
use rnic_proto::rc::{is_response_opcode, Access, KeyError, MemFault, Memory, RcPacket, Remote, Sge, WcStatus};
use rnic_proto::vectors::rxe_file;
use rnic_proto::{decode_frame, HeaderLayout, IpHeader, Opcode, Pmtu, Position, RnrTimer};

/// rxe on a 1500-byte link: path MTU 1024 (vectors/rxe/README.md).
const CAPTURE_PMTU: Pmtu = Pmtu::Mtu1024;

/// Memory that grants every key and reads zeros: the capture does not
/// carry the peers' memory, so payload bytes and atomic results are not compared.
struct AnyKey;

impl Memory for AnyKey {
    fn check(&self, _pd: u32, _key: u32, _va: u64, _len: u64, _access: Access) -> Result<(), KeyError> {
        Ok(())
    }
    fn read(&self, _va: u64, out: &mut [u8]) -> Result<(), MemFault> {
        out.fill(0);
        Ok(())
    }
    fn write(&mut self, _va: u64, _data: &[u8]) -> Result<(), MemFault> {
        Ok(())
    }
}

/// What is compared of a response.
#[derive(Debug, PartialEq, Eq)]
struct Summary {
    opcode: Opcode,
    psn: u32,
    ack_req: bool,
    syndrome: Option<u8>,
    msn: Option<u32>,
    payload_len: usize,
}

fn summary(packet: &RcPacket) -> Summary {
    Summary {
        opcode: packet.opcode(),
        psn: packet.psn().value(),
        ack_req: packet.bth.ack_req,
        syndrome: packet.ext.aeth().map(|a| a.syndrome),
        msn: packet.ext.aeth().map(|a| a.msn),
        payload_len: packet.payload.len(),
    }
}

fn addrs(ip: &IpHeader) -> (Ipv4Addr, Ipv4Addr) {
    match ip {
        IpHeader::V4(h) => (h.src, h.dst),
        IpHeader::V6(_) => panic!("the rxe captures are IPv4"),
    }
}

struct Report {
    requests: usize,
    responses: usize,
    by_opcode: BTreeMap<&'static str, usize>,
    /// Matched responses by AETH syndrome.
    by_syndrome: BTreeMap<u8, usize>,
}

/// Replays one capture through responder models; panics on any difference.
fn replay(name: &str) -> Report {
    let file = fs::read(rxe_file(name)).unwrap();
    let frames = read_capture(&file).unwrap();
    // Responder models by (responder IP, QPN), and the requester QPN each answers.
    let mut responders: HashMap<(Ipv4Addr, u32), Responder> = HashMap::new();
    let mut answer_qpn: HashMap<(Ipv4Addr, Ipv4Addr), Vec<u32>> = HashMap::new();
    // Predicted responses by (responder IP, requester IP, PSN).
    let mut predicted: HashMap<(Ipv4Addr, Ipv4Addr, u32), (usize, RcPacket)> = HashMap::new();
    let mut report = Report { requests: 0, responses: 0, by_opcode: BTreeMap::new(), by_syndrome: BTreeMap::new() };
    let mut memory = AnyKey;
    for (index, frame) in frames.iter().enumerate() {
        let number = index + 1;
        let decoded = decode_frame(&frame.data).unwrap_or_else(|e| panic!("{name} frame {number}: {e}"));
        let Some(packet) = RcPacket::from_roce(&decoded) else {
            continue; // UD
        };
        let (src, dst) = addrs(&decoded.ip);
        if packet.is_request() {
            // The QP's first PSN (rq_psn, agreed at connection time) is the
            // PSN of its first request on the wire, even if that one is corrupted.
            let responder = responders.entry((dst, packet.bth.dest_qp)).or_insert_with(|| {
                Responder::new(ResponderConfig {
                    dest_qp: 0, // learnt from the capture's responses
                    pmtu: CAPTURE_PMTU,
                    start_psn: packet.psn(),
                    max_dest_rd_atomic: 16,
                    min_rnr_timer: RnrTimer::new(12).unwrap(),
                    pd: 0,
                    max_recv_sge: 1,
                    access: rnic_proto::rc::responder::QpAccess::ALL,
                })
            });
            if !decoded.icrc_ok {
                continue; // dropped before the transport (the capture's corrupted frames)
            }
            report.requests += 1;
            if responder.posted_recvs() == 0 {
                // Every SEND finds a RECV (perftest pre-posts them).
                responder.post_recv(RecvWqe { wr_id: 0, sges: vec![Sge { addr: 0, len: 1 << 20, lkey: 0 }] });
            }
            for response in responder.receive(&packet, &mut memory) {
                let key = (dst, src, response.psn().value());
                let previous = predicted.insert(key, (number, response));
                assert!(previous.is_none(), "{name} frame {number}: two predicted responses for {key:?}");
            }
        } else {
            assert!(is_response_opcode(packet.opcode()), "{name} frame {number}: {}", packet.opcode());
            assert!(decoded.icrc_ok, "{name} frame {number}: only requests were corrupted");
            report.responses += 1;
            *report.by_opcode.entry(packet.opcode().name()).or_default() += 1;
            let key = (src, dst, packet.psn().value());
            let (request, model) = predicted.remove(&key).unwrap_or_else(|| {
                panic!("{name} frame {number}: rxe sent {:?}, the model predicted nothing", summary(&packet))
            });
            assert_eq!(
                summary(&model),
                summary(&packet),
                "{name} frame {number} (request frame {request}): model left, rxe right"
            );
            if let Some(aeth) = packet.ext.aeth() {
                *report.by_syndrome.entry(aeth.syndrome).or_default() += 1;
            }
            let qpns = answer_qpn.entry((src, dst)).or_default();
            if !qpns.contains(&packet.bth.dest_qp) {
                qpns.push(packet.bth.dest_qp);
            }
        }
    }
    let mut left: Vec<_> = predicted.into_iter().map(|(k, (n, p))| (n, k, summary(&p))).collect();
    left.sort_by_key(|l| l.0);
    assert!(left.is_empty(), "{name}: responses the model predicted and rxe did not send: {left:?}");
    println!(
        "{name}: {} requests, {} responses matched: {:?}, syndromes {:?}",
        report.requests, report.responses, report.by_opcode, report.by_syndrome
    );
    report
}

#[test]
fn responder_model_answers_as_rxe_did() {
    let report = replay("rxe_rc_ud_perftest.pcap");
    // Every RC response kind in the capture was predicted.
    for opcode in [
        "RC_ACKNOWLEDGE",
        "RC_ATOMIC_ACKNOWLEDGE",
        "RC_RDMA_READ_RESPONSE_FIRST",
        "RC_RDMA_READ_RESPONSE_MIDDLE",
        "RC_RDMA_READ_RESPONSE_LAST",
        "RC_RDMA_READ_RESPONSE_ONLY",
    ] {
        assert!(report.by_opcode.get(opcode).copied().unwrap_or(0) > 0, "{opcode} not exercised");
    }
    assert!(report.requests > 200 && report.responses > 150);
}

#[test]
fn responder_model_recovers_as_rxe_did_after_bad_icrc() {
    // Three requests were corrupted (frames 5, 50, 120): rxe dropped them,
    // sent one PSN sequence NAK each, and the requester went back N.
    let report = replay("rxe_with_3_bad_icrc.pcap");
    assert!(report.responses > 50);
    assert_eq!(report.by_syndrome.get(&0x60), Some(&3), "one PSN sequence NAK per corrupted request");
}

// ------------------------------------------------------------ requester side

/// The transport part of a request, compared byte for byte with rxe's.
fn request_fields(packet: &RcPacket) -> (Opcode, u32, bool, u32, rnic_proto::ExtHeaders, Vec<u8>) {
    (packet.opcode(), packet.psn().value(), packet.bth.ack_req, packet.bth.dest_qp, packet.ext, packet.payload.clone())
}

/// Rebuilds the WQE whose first packet is `first` from the first copy of
/// each PSN of its message in the capture.
fn wqe_from_capture(first: &RcPacket, by_psn: &HashMap<u32, RcPacket>, wr_id: u64) -> SendWqe {
    let mut payload = Vec::new();
    let mut imm = None;
    let mut psn = first.psn();
    loop {
        let packet = &by_psn[&psn.value()];
        payload.extend_from_slice(&packet.payload);
        imm = imm.or(packet.ext.imm_dt().map(|i| i.value));
        match packet.opcode().position() {
            Some(Position::Last | Position::Only) | None => break,
            _ => psn = psn.next(),
        }
    }
    let local = |len: u32| vec![Sge { addr: 0, len, lkey: 0 }];
    let op = match first.opcode() {
        Opcode::RcReadRequest => {
            let reth = first.ext.reth().unwrap();
            SendOp::Read {
                remote: Remote { va: reth.va, rkey: reth.rkey },
                len: reth.dma_len,
                local: local(reth.dma_len),
            }
        }
        Opcode::RcCompareSwap | Opcode::RcFetchAdd => {
            let a = first.ext.atomic_eth().unwrap();
            let remote = Remote { va: a.va, rkey: a.rkey };
            let local = Sge { addr: 0, len: 8, lkey: 0 };
            if first.opcode() == Opcode::RcCompareSwap {
                SendOp::CmpSwap { remote, compare: a.compare, swap: a.swap_add, local }
            } else {
                SendOp::FetchAdd { remote, add: a.swap_add, local }
            }
        }
        op if op.layout() == HeaderLayout::Reth || op.layout() == HeaderLayout::RethImmDt => {
            let reth = first.ext.reth().unwrap();
            assert_eq!(reth.dma_len as usize, payload.len());
            SendOp::Write { payload, remote: Remote { va: reth.va, rkey: reth.rkey }, imm }
        }
        _ => SendOp::Send { payload, imm },
    };
    SendWqe { wr_id, op, signaled: true, fence: false }
}

/// Drives a requester model per RC flow of a capture: a WQE is posted when
/// its message first appears, every request rxe sent (resends included)
/// must be the requester's next packet, and rxe's responses are fed to the
/// completer (which must ask for the resends rxe made).
fn replay_requesters(name: &str) -> (usize, usize) {
    let file = fs::read(rxe_file(name)).unwrap();
    let frames = read_capture(&file).unwrap();
    let mut decoded = Vec::new();
    for frame in &frames {
        let d = decode_frame(&frame.data).unwrap();
        if let Some(packet) = RcPacket::from_roce(&d) {
            decoded.push((addrs(&d.ip), packet));
        }
    }
    // Flow: (requester IP, responder IP, responder QPN); first copy of each PSN.
    type Flow = (Ipv4Addr, Ipv4Addr, u32);
    let mut first_copy: HashMap<Flow, HashMap<u32, RcPacket>> = HashMap::new();
    for ((src, dst), packet) in &decoded {
        if packet.is_request() {
            let flow = first_copy.entry((*src, *dst, packet.bth.dest_qp)).or_default();
            flow.entry(packet.psn().value()).or_insert_with(|| packet.clone());
        }
    }
    let mut requesters: HashMap<Flow, Requester> = HashMap::new();
    let mut memory = AnyKey;
    let (mut compared, mut completions) = (0, 0);
    for (index, ((src, dst), packet)) in decoded.iter().enumerate() {
        let at = format!("{name} frame index {index}");
        if packet.is_request() {
            let flow = (*src, *dst, packet.bth.dest_qp);
            let requester = requesters.entry(flow).or_insert_with(|| {
                Requester::new(RequesterConfig {
                    dest_qp: packet.bth.dest_qp,
                    pmtu: CAPTURE_PMTU,
                    start_psn: packet.psn(),
                    ack_req_every: RXE_MAX_PKT_PER_ACK,
                    max_rd_atomic: 16,
                    max_unacked_psns: RXE_MAX_UNACKED_PSNS,
                    pd: 0,
                    retry_cnt: 7,
                    rnr_retry: 7,
                })
            });
            if packet.psn() == requester.next_psn() {
                let wqe = wqe_from_capture(packet, &first_copy[&flow], index as u64);
                requester.post(wqe).unwrap();
            }
            let ours =
                requester.next_packet().unwrap_or_else(|| panic!("{at}: the requester model has nothing to send"));
            assert_eq!(request_fields(&ours), request_fields(packet), "{at}: model left, rxe right");
            compared += 1;
        } else {
            // The requester this response is for: same address pair, PSN outstanding.
            let mut candidates: Vec<_> = requesters
                .iter_mut()
                .filter(|((s, d, _), r)| {
                    (*s, *d) == (*dst, *src)
                        && r.oldest_unacked().distance_to(packet.psn()) < r.oldest_unacked().distance_to(r.next_psn())
                })
                .collect();
            assert!(candidates.len() <= 1, "{at}: ambiguous response");
            if let Some((_, requester)) = candidates.pop() {
                let _ = requester.on_response(packet, &mut memory);
                for c in requester.take_completions() {
                    assert_eq!(c.status, WcStatus::Success, "{at}");
                    completions += 1;
                }
            }
        }
    }
    println!("{name}: {compared} requests equal to rxe's, {completions} completions");
    (compared, completions)
}

/// rxe's `RXE_MAX_PKT_PER_ACK` (rxe_param.h).
const RXE_MAX_PKT_PER_ACK: u32 = 64;
/// rxe's `RXE_MAX_UNACKED_PSNS` (rxe_param.h).
const RXE_MAX_UNACKED_PSNS: u32 = 128;

#[test]
fn requester_model_sends_what_rxe_sent() {
    let (compared, completions) = replay_requesters("rxe_rc_ud_perftest.pcap");
    assert!(compared > 300 && completions > 200);
}

#[test]
fn requester_model_goes_back_n_as_rxe_did() {
    // The resends after each PSN sequence NAK are the requester's next packets.
    let (compared, completions) = replay_requesters("rxe_with_3_bad_icrc.pcap");
    assert!(compared > 200 && completions > 50);
}
