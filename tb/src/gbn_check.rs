//! The go-back-N invariants over captured RC traffic (issue 12, item 4),
//! judged from the frames alone, in the order they were sent (a capture
//! of both NICs' transmit sides: `SimNet::log`, or a pcap of it). Per QP
//! and direction:
//!
//! * **Requests** (a requester's SEND/WRITE/READ/atomic packets, by
//!   destination QP): a new PSN is the next one after the highest sent;
//!   a PSN sent before starts a resend, which must begin where the
//!   requester can know the responder stands: the first PSN, one past a
//!   PSN the responder acknowledged, or a PSN it NAKed (go-back-N from the
//!   NAK'd PSN, or a replay from the oldest unacknowledged PSN after a
//!   timeout); a resend goes on in PSN order (skipping a READ's response
//!   PSNs). READ responses and atomic ACKs acknowledge too: a READ whose
//!   responses stopped part way is resent from the PSN after the last
//!   response seen (its address and length advanced), a request after an
//!   atomic from one past its ACK.
//! * **Acknowledgements** (a responder's ACKNOWLEDGE packets, by
//!   destination QP): ACKed PSNs never go backwards; a PSN sequence NAK
//!   names a PSN already sent, after the last ACKed one (the first one
//!   missing), and there is at most one per loss episode: NAKed PSNs
//!   strictly increase.
//!
//! PSNs compare in 24-bit serial arithmetic.

use rnic_proto::decode_frame;
use rnic_proto::opcode::Opcode;
use std::collections::{HashMap, HashSet};

// (the requester's QP is not in its requests: the caller names the pairs)

const HALF: u32 = 1 << 23;
const MASK: u32 = (1 << 24) - 1;

/// `a` is after `b` (24-bit serial).
fn after(a: u32, b: u32) -> bool {
    let d = a.wrapping_sub(b) & MASK;
    d != 0 && d < HALF
}

/// What a capture held.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct GbnStats {
    pub requests: u64,
    pub resent: u64,
    /// Resends started (a PSN sent before, not following the previous packet).
    pub resends: u64,
    pub acks: u64,
    pub naks: u64,
    /// READ response packets and atomic ACKs.
    pub responses: u64,
    /// Those of them for a PSN answered before (a duplicate READ or atomic
    /// answered again).
    pub responses_again: u64,
}

#[derive(Default)]
struct ReqStream {
    first: Option<u32>,
    max_sent: Option<u32>,
    last: Option<u32>,
    /// The highest PSN sent is a READ request's.
    read: bool,
    /// The last packet sent is a READ request (its PSNs cover its
    /// responses: the next packet's PSN may skip).
    last_read: bool,
}

#[derive(Default)]
struct AckStream {
    last_ack: Option<u32>,
    last_nak: Option<u32>,
    /// PSNs a resend may start from: the first, one past each ACK, READ
    /// response or atomic ACK, each NAK's.
    starts: HashSet<u32>,
    /// PSNs of the READ responses and atomic ACKs sent.
    answered: HashSet<u32>,
}

/// Checks the invariants over `frames` ((sender 0 or 1, frame bytes) in
/// the order they were sent) for the RC connections `pairs` (NIC 0's QPN,
/// NIC 1's QPN: a request from NIC n to QP d is answered to d's partner);
/// the first violation, with its frame's index, is the error.
pub fn check_go_back_n(frames: &[(usize, &[u8])], pairs: &[(u32, u32)]) -> Result<GbnStats, String> {
    let mut st = GbnStats::default();
    let partner = |from: usize, dest: u32| -> Option<u32> {
        pairs
            .iter()
            .find(|p| if from == 0 { p.1 == dest } else { p.0 == dest })
            .map(|p| if from == 0 { p.0 } else { p.1 })
    };
    // requests by (sender, destination QP); their answers by (responder, destination QP)
    let mut reqs: HashMap<(usize, u32), ReqStream> = HashMap::new();
    let mut acks: HashMap<(usize, u32), AckStream> = HashMap::new();
    for (i, (from, bytes)) in frames.iter().enumerate() {
        let p = decode_frame(bytes).map_err(|e| format!("frame {i}: does not decode: {e:?}"))?;
        let (op, qp, psn) = (p.bth.opcode, p.bth.dest_qp, p.bth.psn.value());
        if op == Opcode::RcAck {
            let a = acks.entry((*from, qp)).or_default();
            let syn = p.ext.aeth().map(|x| x.syndrome).unwrap_or(0);
            match syn >> 5 {
                0 => {
                    st.acks += 1;
                    if let Some(l) = a.last_ack {
                        if after(l, psn) {
                            return Err(format!("frame {i}: ACK of PSN {psn:#x} after ACK {l:#x}: backwards"));
                        }
                    }
                    a.last_ack = Some(psn);
                    a.starts.insert(psn.wrapping_add(1) & MASK);
                }
                3 if syn & 0x1f == 0 => {
                    st.naks += 1;
                    if let Some(l) = a.last_nak {
                        if !after(psn, l) {
                            return Err(format!(
                                "frame {i}: NAK of PSN {psn:#x} after NAK {l:#x}: a second NAK in one loss episode"
                            ));
                        }
                    }
                    if let Some(l) = a.last_ack {
                        if !after(psn, l) {
                            return Err(format!("frame {i}: NAK of PSN {psn:#x} at or before ACK {l:#x}"));
                        }
                    }
                    // the PSN it names was sent (it is missing, not from the future)
                    let sent = partner(1 - from, qp)
                        .and_then(|d| reqs.get(&(1 - from, d)))
                        .and_then(|r| r.max_sent)
                        .is_some_and(|m| !after(psn, m));
                    if !sent {
                        return Err(format!("frame {i}: NAK of PSN {psn:#x}, never sent to it"));
                    }
                    a.last_nak = Some(psn);
                    a.starts.insert(psn);
                }
                _ => {}
            }
            continue;
        }
        // READ responses (0x0d..=0x10) and atomic ACKs (0x12): not ordered
        // (a duplicate READ is answered again from its PSN), but each says
        // the responder stands past its PSN
        if (0x0d..=0x12).contains(&op.value()) {
            st.responses += 1;
            let a = acks.entry((*from, qp)).or_default();
            a.starts.insert(psn.wrapping_add(1) & MASK);
            if !a.answered.insert(psn) {
                st.responses_again += 1;
            }
            continue;
        }
        // RC requests: the rest of opcodes 0x00..0x1f
        if op.value() >= 0x20 {
            continue;
        }
        st.requests += 1;
        let key = (*from, qp);
        let answers = partner(*from, qp).map(|s| (1 - from, s));
        let r = reqs.entry(key).or_default();
        if r.first.is_none() {
            r.first = Some(psn);
        }
        let max = r.max_sent;
        match max {
            Some(m) if !after(psn, m) => {
                st.resent += 1;
                let follows = r.last.is_some_and(|l| psn == (l.wrapping_add(1) & MASK) || r.last_read && after(psn, l));
                if !follows {
                    st.resends += 1;
                    let ok_start = r.first == Some(psn)
                        || answers.and_then(|k| acks.get(&k)).is_some_and(|a| a.starts.contains(&psn));
                    if !ok_start {
                        return Err(format!(
                            "frame {i}: a resend to QP {qp:#x} starts at PSN {psn:#x}: neither the first PSN, \
                             one past an ACK nor a NAK'd PSN"
                        ));
                    }
                }
            }
            // (a READ request's PSNs cover its responses: the next request may skip)
            Some(m) if psn != (m.wrapping_add(1) & MASK) && !r.read => {
                return Err(format!("frame {i}: new PSN {psn:#x} to QP {qp:#x} after {m:#x}: out of order"));
            }
            _ => {}
        }
        if max.is_none_or(|m| after(psn, m)) {
            r.max_sent = Some(psn);
            r.read = op == Opcode::RcReadRequest;
        }
        r.last = Some(psn);
        r.last_read = op == Opcode::RcReadRequest;
    }
    Ok(st)
}

/// [`check_go_back_n`] over a capture file (pcap or pcapng, as written by
/// tcpdump, tshark or `pcap_out`): the sender of each RoCEv2 frame is the
/// endpoint its IP source names (side 0: the first source seen; other UDP
/// traffic is skipped), and the RC connections are `pairs` (side 0's QPN,
/// side 1's) when given, else inferred from the capture: each stream of
/// ACKs belongs to the stream of requests, in the other direction, holding
/// most of the PSNs it acknowledges. Returns the figures and the pairs.
pub fn check_capture(file: &[u8], pairs: Option<&[(u32, u32)]>) -> Result<(GbnStats, Vec<(u32, u32)>), String> {
    let packets = rnic_proto::pcap::read_capture(file).map_err(|e| format!("not a capture: {e:?}"))?;
    let mut sides: Vec<std::net::IpAddr> = vec![];
    let mut frames: Vec<(usize, Vec<u8>)> = vec![];
    for (i, pkt) in packets.iter().enumerate() {
        let Ok(p) = decode_frame(&pkt.data) else { continue };
        let src = match &p.ip {
            rnic_proto::IpHeader::V4(h) => std::net::IpAddr::V4(h.src),
            rnic_proto::IpHeader::V6(h) => std::net::IpAddr::V6(h.src),
        };
        let side = match sides.iter().position(|s| *s == src) {
            Some(k) => k,
            None if sides.len() < 2 => {
                sides.push(src);
                sides.len() - 1
            }
            None => return Err(format!("frame {i}: a third endpoint {src} (two are checked)")),
        };
        frames.push((side, pkt.data.clone()));
    }
    let pairs = match pairs {
        Some(p) => p.to_vec(),
        None => infer_pairs(&frames),
    };
    let refs: Vec<(usize, &[u8])> = frames.iter().map(|f| (f.0, f.1.as_slice())).collect();
    check_go_back_n(&refs, &pairs).map(|st| (st, pairs))
}

/// The RC connections of a capture ((side, frame) pairs), as
/// [`check_capture`] infers them.
fn infer_pairs(frames: &[(usize, Vec<u8>)]) -> Vec<(u32, u32)> {
    // PSNs of requests by (sender, destination QP); of acknowledgements by
    // (responder, destination QP): a capture of READs or atomics alone has
    // no ACK packet, but its responses pair the QPs as well
    let mut reqs: HashMap<(usize, u32), HashSet<u32>> = HashMap::new();
    let mut acks: HashMap<(usize, u32), Vec<u32>> = HashMap::new();
    for (side, bytes) in frames {
        let Ok(p) = decode_frame(bytes) else { continue };
        let (op, qp, psn) = (p.bth.opcode.value(), p.bth.dest_qp, p.bth.psn.value());
        // ACKs, READ responses and atomic ACKs all name the requester's QP
        if op == Opcode::RcAck.value() || (0x0d..=0x10).contains(&op) || op == 0x12 {
            acks.entry((*side, qp)).or_default().push(psn);
        } else if op < 0x20 && !(0x0d..=0x12).contains(&op) {
            reqs.entry((*side, qp)).or_default().insert(psn);
        }
    }
    let mut pairs = vec![];
    let mut keys: Vec<_> = acks.keys().copied().collect();
    keys.sort_unstable();
    for (side, to) in keys {
        let psns = &acks[&(side, to)];
        let best = reqs
            .iter()
            .filter(|((s, _), _)| *s != side)
            .map(|((_, d), sent)| (psns.iter().filter(|p| sent.contains(p)).count(), *d))
            .max();
        if let Some((hits, d)) = best.filter(|b| b.0 > 0) {
            let _ = hits;
            // an ACK from side 1 goes to side 0's requester QP `to`
            let pair = if side == 1 { (to, d) } else { (d, to) };
            if !pairs.contains(&pair) {
                pairs.push(pair);
            }
        }
    }
    pairs
}
