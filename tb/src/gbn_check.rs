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
//!   timeout); a resend goes on in PSN order.
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
}

#[derive(Default)]
struct ReqStream {
    first: Option<u32>,
    max_sent: Option<u32>,
    last: Option<u32>,
    /// The highest PSN sent is a READ request's.
    read: bool,
}

#[derive(Default)]
struct AckStream {
    last_ack: Option<u32>,
    last_nak: Option<u32>,
    /// PSNs a resend may start from: the first, one past each ACK, each NAK's.
    starts: HashSet<u32>,
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
        // RC requests: opcodes 0x00..0x1f but the responses 0x0d..=0x12
        if op.value() >= 0x20 || (0x0d..=0x12).contains(&op.value()) {
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
                let follows = r.last.is_some_and(|l| psn == (l.wrapping_add(1) & MASK));
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
    }
    Ok(st)
}
