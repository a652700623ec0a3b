//! The bad packet battery (issue 12, item 5): one simulated NIC, driven by
//! the real driver, receives crafted packets from a peer that does not
//! exist (`rnic_tb::bad_packets::Crafter`).
//!
//! * `every_class_of_bad_packet_gets_its_answer`: each class of invalid
//!   packet (the table in docs/transport.md, "Bad packets") goes to a QP of
//!   its own; the NIC's answer on the wire (nothing, or the IBTA-specified
//!   ACK/NAK with its PSN), the change of every counter register, the
//!   completions, and the host model's log of device writes (nothing
//!   written by a bad packet) are all asserted; then a good packet shows
//!   the QP still works (or, after a fatal NAK, which moves the QP into
//!   error, is dropped at admission; a RECV the bad packet did not take is
//!   flushed).
//! * `random_and_mutated_packets`: 10^5 valid packets mutated at random
//!   (`bad_packets::mutate`) into live QPs: every frame lands in exactly
//!   one receive counter, every device write lands in a buffer the remote
//!   side may write, every frame sent is a well-formed ACK, NAK or READ
//!   response, and the
//!   NIC still works afterwards (no hang). `make soak` runs 10^6.

use rnic_contract::codes::{Mtu, QpState, QpType, WcStatus};
use rnic_driver::*;
use rnic_proto::{decode_frame, ExtHeaders, Ieth, ImmDt, Opcode};
use rnic_sim::axis::Rng;
use rnic_sim::Model;
use rnic_tb::bad_packets::mutate;
use rnic_tb::bad_packets::{pattern, set_icrc, set_ip_checksum, Crafter, BTH_AT, EXT_AT, IP_AT, UDP_AT};
use rnic_tb::lone_nic::{idle, inject, open_nic, settle, tx_len, writes_len, Probe};
use rnic_tb::sim_net::{connect_rc, nic_ip};

/// The PSN every battery QP expects first.
const EPSN: u32 = 0x1000;
/// The (absent) peer's QP.
const PEER_QPN: u32 = 0x77;
/// PMTU of the battery's QPs (`Mtu::Mtu1024`).
const PMTU: usize = 1024;

/// The NIC's answer to a case, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Answer {
    Ack(u32),
    Rnr(u32),
    /// AETH NAK code, PSN.
    Nak(u8, u32),
}

/// The QP a case is sent to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Setup {
    /// Connected (RTS), no RECV posted.
    Rts,
    /// RTS with one RECV of this many bytes posted.
    Recv(u32),
    /// RTS with `max_dest_rd_atomic` 0.
    NoRdAtomic,
    /// RTS without the remote write right on the QP.
    NoRemoteWrite,
    /// RTS without the remote read right on the QP.
    NoRemoteRead,
    Reset,
    Init,
    Rtr,
    Error,
    /// Connected, then destroyed before the frames come.
    Destroyed,
    /// No QP: the frames name their own QPN.
    None,
}

/// What a good WRITE ONLY at the case's next PSN does afterwards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum After {
    /// Executed and ACKed: the QP works.
    Works(u32),
    /// Dropped at admission as `QpError`: the fatal NAK the responder sent
    /// moved the QP into error (its completer flushed, COMP_ERROR set; its
    /// posted RECVs flushed).
    Dead,
    /// Not tried.
    Skip,
}

/// The keys and addresses the cases use.
struct Keys {
    /// A region with every remote right, in the QPs' PD: VA and rkey.
    rw: (u64, u32),
    rw_len: u64,
    /// Remote read only.
    ro: (u64, u32),
    /// Every right, but in another PD.
    other_pd: (u64, u32),
    /// A region registered and then deregistered.
    dead: (u64, u32),
}

type Frames = Box<dyn Fn(&Crafter, &Keys, u32) -> Vec<Vec<u8>>>;
type Delta = fn(&mut Counters);

struct Case {
    name: &'static str,
    setup: Setup,
    frames: Frames,
    answers: Vec<Answer>,
    delta: Delta,
    /// Completions the case gives on the NIC's CQ.
    cqes: Vec<WcStatus>,
    /// Bytes good packets of the case write (before its bad one).
    good_bytes: usize,
    /// Its frame reaches the transport (`cnt_roce`) besides `delta`.
    rx_roce: bool,
    after: After,
}

fn case(name: &'static str, setup: Setup, frames: Frames, answers: Vec<Answer>, delta: Delta, after: After) -> Case {
    Case { name, setup, frames, answers, delta, cqes: vec![], good_bytes: 0, rx_roce: false, after }
}

/// A NAK invalid request at ePSN that leaves the QP's responder in error.
fn invalid(name: &'static str, setup: Setup, frames: Frames) -> Case {
    case(name, setup, frames, vec![Answer::Nak(1, EPSN)], |c| nak(c, 1), After::Dead)
}

/// A NAK remote access error at ePSN that leaves the QP's responder in error.
fn access(name: &'static str, setup: Setup, frames: Frames) -> Case {
    case(name, setup, frames, vec![Answer::Nak(2, EPSN)], |c| nak(c, 2), After::Dead)
}

/// A silent drop after the parser handed the frame on (`cnt_roce`), counted by `delta`.
fn admitted(name: &'static str, setup: Setup, frames: Frames, delta: Delta, after: After) -> Case {
    let mut k = case(name, setup, frames, vec![], delta, after);
    k.rx_roce = true;
    k
}

/// A frame the parser drops, counted by `delta` alone; the QP works on.
fn parsed(name: &'static str, frames: Frames, delta: Delta) -> Case {
    case(name, Setup::Rts, frames, vec![], delta, After::Works(EPSN))
}

/// Counter changes, by kind.
fn rx(c: &mut Counters) {
    c.rx_roce += 1;
}
fn nak(c: &mut Counters, code: usize) {
    c.rx_roce += 1;
    c.naks[code] += 1;
}

/// Flips a byte of a frame and makes its checksums right again.
fn poke(mut f: Vec<u8>, at: usize, f_: impl Fn(u8) -> u8) -> Vec<u8> {
    f[at] = f_(f[at]);
    set_ip_checksum(&mut f);
    set_icrc(&mut f);
    f
}

fn cases() -> Vec<Case> {
    use After::*;
    use Answer::*;
    use Opcode::*;
    use Setup::*;
    let wr = |c: &Crafter, k: &Keys, q: u32| c.write(q, RcWriteOnly, EPSN, k.rw.0 + 64, k.rw.1, 64, 64);
    let mut v = vec![
        // ---- the frame: silent drops counted by the parser
        parsed(
            "bad ICRC",
            Box::new(move |c, k, q| {
                let mut f = wr(c, k, q);
                let n = f.len();
                f[n - 5] ^= 0x20;
                vec![f]
            }),
            |c| c.rx_icrc += 1,
        ),
        parsed(
            "bad IPv4 header checksum",
            Box::new(move |c, k, q| {
                let mut f = wr(c, k, q);
                f[IP_AT + 10] ^= 0x01;
                vec![f]
            }),
            |c| c.rx_ip_csum += 1,
        ),
        // ---- the MAC's address filter: refused whole before the FIFO (the
        // Ethernet header is outside the ICRC: the frame is otherwise good)
        parsed(
            "another station's unicast MAC",
            Box::new(move |c, k, q| {
                let mut f = wr(c, k, q);
                f[5] ^= 0x01;
                vec![f]
            }),
            |c| c.rx_not_mine += 1,
        ),
        parsed("frame cut inside the BTH", Box::new(move |c, k, q| vec![wr(c, k, q)[..BTH_AT + 6].to_vec()]), |c| {
            c.rx_malformed += 1
        }),
        parsed("frame cut inside the RETH", Box::new(move |c, k, q| vec![wr(c, k, q)[..EXT_AT + 10].to_vec()]), |c| {
            c.rx_malformed += 1
        }),
        parsed(
            "IPv4 total length beyond the frame",
            Box::new(move |c, k, q| vec![poke(wr(c, k, q), IP_AT + 3, |b| b.wrapping_add(16))]),
            |c| c.rx_malformed += 1,
        ),
        parsed(
            "frame cut inside the payload",
            Box::new(move |c, k, q| {
                let f = wr(c, k, q);
                vec![f[..f.len() - 20].to_vec()]
            }),
            |c| c.rx_malformed += 1,
        ),
        parsed("IPv4 version 5", Box::new(move |c, k, q| vec![poke(wr(c, k, q), IP_AT, |b| (b & 0x0f) | 0x50)]), |c| {
            c.rx_malformed += 1
        }),
        parsed(
            "IPv4 header length 4 words",
            Box::new(move |c, k, q| vec![poke(wr(c, k, q), IP_AT, |b| (b & 0xf0) | 4)]),
            |c| c.rx_malformed += 1,
        ),
        parsed(
            "UDP length beyond the IP payload",
            Box::new(move |c, k, q| vec![poke(wr(c, k, q), UDP_AT + 5, |b| b.wrapping_add(8))]),
            |c| c.rx_malformed += 1,
        ),
        parsed(
            "BTH transport version 1",
            Box::new(move |c, k, q| vec![poke(wr(c, k, q), BTH_AT + 1, |b| b | 1)]),
            |c| c.rx_malformed += 1,
        ),
        parsed("reserved opcode 0x15", Box::new(move |c, k, q| vec![poke(wr(c, k, q), BTH_AT, |_| 0x15)]), |c| {
            c.rx_malformed += 1
        }),
        parsed(
            "pad count above the payload",
            Box::new(move |c, _, q| vec![poke(c.bare(q, RcWriteLast, EPSN, 0), BTH_AT + 1, |b| b | 0x30)]),
            |c| c.rx_malformed += 1,
        ),
        case(
            "UDP port 4792",
            Rts,
            Box::new(move |c, k, q| vec![poke(wr(c, k, q), UDP_AT + 3, |b| b + 1)]),
            vec![],
            |c| {
                c.rx_raw += 1;
                c.rx_raw_drop += 1
            },
            Works(EPSN),
        ),
        case(
            "IPv4 fragment",
            Rts,
            Box::new(move |c, k, q| vec![poke(wr(c, k, q), IP_AT + 6, |b| b | 0x20)]),
            vec![],
            |c| {
                c.rx_raw += 1;
                c.rx_raw_drop += 1
            },
            Works(EPSN),
        ),
        // ---- admission: the QP
        admitted(
            "QPN beyond the QP table",
            None,
            Box::new(move |c, k, _| vec![wr(c, k, 0xFF_FF00)]),
            |c| c.drop_bad_qpn += 1,
            Skip,
        ),
        admitted("QPN 0", None, Box::new(move |c, k, _| vec![wr(c, k, 0)]), |c| c.drop_bad_qpn += 1, Skip),
        admitted("QP in RESET", Reset, Box::new(move |c, k, q| vec![wr(c, k, q)]), |c| c.drop_qp_not_ready += 1, Skip),
        admitted("QP in INIT", Init, Box::new(move |c, k, q| vec![wr(c, k, q)]), |c| c.drop_qp_not_ready += 1, Skip),
        admitted("QP in ERR", Error, Box::new(move |c, k, q| vec![wr(c, k, q)]), |c| c.drop_qp_error += 1, Skip),
        admitted(
            "QP destroyed",
            Destroyed,
            Box::new(move |c, k, q| vec![wr(c, k, q)]),
            |c| c.drop_qp_not_ready += 1,
            Skip,
        ),
        admitted(
            "UD SEND to an RC QP",
            Rts,
            Box::new(move |c, _, q| {
                let d = rnic_proto::Deth { qkey: 0x1111_1111, reserved: 0, src_qp: PEER_QPN };
                vec![c.frame(q, UdSendOnly, EPSN, ExtHeaders::Deth(d), vec![1; 16])]
            }),
            |c| c.drop_wrong_qp_type += 1,
            Works(EPSN),
        ),
        admitted(
            "UC WRITE to an RC QP",
            Rts,
            Box::new(move |c, k, q| vec![c.write(q, UcWriteOnly, EPSN, k.rw.0, k.rw.1, 16, 16)]),
            |c| c.drop_wrong_qp_type += 1,
            Works(EPSN),
        ),
        admitted(
            "P_Key of another partition",
            Rts,
            Box::new(move |c, k, q| vec![with_pkey(c, k, q, 0xABCD)]),
            |c| c.drop_bad_pkey += 1,
            Works(EPSN),
        ),
        admitted(
            "P_Key of no partition (0x8000)",
            Rts,
            Box::new(move |c, k, q| vec![with_pkey(c, k, q, 0x8000)]),
            |c| c.drop_bad_pkey += 1,
            Works(EPSN),
        ),
        admitted(
            "ACK for a QP in RTR",
            Rtr,
            Box::new(move |c, _, q| vec![ack(c, q, 0x5000, 0x1f)]),
            |c| c.drop_response_unexpected += 1,
            Skip,
        ),
        admitted(
            "ACK of a PSN never sent",
            Rts,
            Box::new(move |c, _, q| vec![ack(c, q, 0x5000, 0x1f)]),
            |c| c.ghost_responses += 1,
            Works(EPSN),
        ),
        admitted(
            "NAK with a reserved code",
            Rts,
            Box::new(move |c, _, q| vec![ack(c, q, 0x4fff, 0x7d)]),
            |c| c.ghost_responses += 1,
            Works(EPSN),
        ),
        // ---- the responder: PSN
        case(
            "PSN ahead, twice",
            Rts,
            Box::new(move |c, k, q| {
                let f = |d: u32| c.write(q, RcWriteOnly, EPSN + d, k.rw.0, k.rw.1, 8, 8);
                vec![f(3), f(4)]
            }),
            vec![Nak(0, EPSN)],
            |c| {
                nak(c, 0);
                rx(c);
                c.silent_drops += 1
            },
            Works(EPSN),
        ),
        case(
            "PSN behind (a duplicate WRITE)",
            Rts,
            Box::new(move |c, k, q| vec![c.write(q, RcWriteOnly, EPSN - 1, k.rw.0, k.rw.1, 8, 8)]),
            vec![Ack(EPSN - 1)],
            |c| {
                rx(c);
                c.dup_requests += 1
            },
            Works(EPSN),
        ),
        case(
            "PSN 2^23 - 1 behind",
            Rts,
            Box::new(move |c, k, q| {
                vec![c.write(q, RcWriteOnly, EPSN.wrapping_sub(0x7f_ffff) & 0xff_ffff, k.rw.0, k.rw.1, 8, 8)]
            }),
            vec![Ack(EPSN - 1)],
            |c| {
                rx(c);
                c.dup_requests += 1
            },
            Works(EPSN),
        ),
        // ---- the responder: opcode sequence, support, lengths (NAK invalid request)
        invalid(
            "WRITE MIDDLE outside a message",
            Rts,
            Box::new(move |c, _, q| vec![c.bare(q, RcWriteMiddle, EPSN, PMTU)]),
        ),
        invalid("WRITE LAST outside a message", Rts, Box::new(move |c, _, q| vec![c.bare(q, RcWriteLast, EPSN, 8)])),
        case(
            "SEND LAST inside a WRITE",
            Rts,
            Box::new(move |c, k, q| {
                vec![
                    c.write(q, RcWriteFirst, EPSN, k.rw.0, k.rw.1, 2 * PMTU as u32, PMTU),
                    c.bare(q, RcSendLast, EPSN + 1, 8),
                ]
            }),
            vec![Ack(EPSN), Nak(1, EPSN + 1)],
            |c| {
                rx(c);
                nak(c, 1)
            },
            Dead,
        ),
        case(
            "WRITE FIRST inside a WRITE",
            Rts,
            Box::new(move |c, k, q| {
                let f = |psn: u32| c.write(q, RcWriteFirst, psn, k.rw.0, k.rw.1, 2 * PMTU as u32, PMTU);
                vec![f(EPSN), f(EPSN + 1)]
            }),
            vec![Ack(EPSN), Nak(1, EPSN + 1)],
            |c| {
                rx(c);
                nak(c, 1)
            },
            Dead,
        ),
        case(
            "SEND ONLY with invalidate",
            Recv(256),
            Box::new(move |c, k, q| {
                vec![c.frame(q, RcSendOnlyInv, EPSN, ExtHeaders::Ieth(Ieth { rkey: k.rw.1 }), vec![5; 8])]
            }),
            vec![Nak(1, EPSN)],
            |c| nak(c, 1),
            Dead,
        ),
        invalid(
            "payload above the PMTU",
            Rts,
            Box::new(move |c, k, q| vec![c.write(q, RcWriteOnly, EPSN, k.rw.0, k.rw.1, PMTU as u32 + 4, PMTU + 4)]),
        ),
        invalid(
            "WRITE FIRST shorter than the PMTU",
            Rts,
            Box::new(move |c, k, q| vec![c.write(q, RcWriteFirst, EPSN, k.rw.0, k.rw.1, 2 * PMTU as u32, 512)]),
        ),
        invalid(
            "RETH DMA length above 2^31",
            Rts,
            Box::new(move |c, k, q| vec![c.write(q, RcWriteOnly, EPSN, k.rw.0, k.rw.1, 0x8000_0010, 16)]),
        ),
        invalid(
            "WRITE ONLY shorter than its DMA length",
            Rts,
            Box::new(move |c, k, q| vec![c.write(q, RcWriteOnly, EPSN, k.rw.0, k.rw.1, 64, 32)]),
        ),
        case(
            "WRITE LAST past its DMA length",
            Rts,
            Box::new(move |c, k, q| {
                vec![
                    c.write(q, RcWriteFirst, EPSN, k.rw.0, k.rw.1, PMTU as u32 + 8, PMTU),
                    c.bare(q, RcWriteLast, EPSN + 1, 12),
                ]
            }),
            vec![Ack(EPSN), Nak(1, EPSN + 1)],
            |c| {
                rx(c);
                nak(c, 1)
            },
            Dead,
        ),
        invalid(
            "READ with no responder resources",
            NoRdAtomic,
            Box::new(move |c, k, q| vec![c.read(q, EPSN, k.rw.0, k.rw.1, 64)]),
        ),
        invalid(
            "atomic on a QP without the atomic right",
            Rts,
            Box::new(move |c, k, q| vec![c.fetch_add(q, EPSN, k.rw.0, k.rw.1)]),
        ),
        // ---- the responder: memory protection (NAK remote access error)
        access(
            "rkey with a wrong tag",
            Rts,
            Box::new(move |c, k, q| vec![c.write(q, RcWriteOnly, EPSN, k.rw.0, k.rw.1 ^ 0x8000_0000, 16, 16)]),
        ),
        access(
            "rkey of a deregistered region",
            Rts,
            Box::new(move |c, k, q| vec![c.write(q, RcWriteOnly, EPSN, k.dead.0, k.dead.1, 16, 16)]),
        ),
        access(
            "rkey of another PD's region",
            Rts,
            Box::new(move |c, k, q| vec![c.write(q, RcWriteOnly, EPSN, k.other_pd.0, k.other_pd.1, 16, 16)]),
        ),
        access(
            "one byte past the region",
            Rts,
            Box::new(move |c, k, q| vec![c.write(q, RcWriteOnly, EPSN, k.rw.0 + k.rw_len - 15, k.rw.1, 16, 16)]),
        ),
        access(
            "VA below the region",
            Rts,
            Box::new(move |c, k, q| vec![c.write(q, RcWriteOnly, EPSN, k.rw.0 - 8, k.rw.1, 16, 16)]),
        ),
        access(
            "VA + length wraps around",
            Rts,
            Box::new(move |c, k, q| vec![c.write(q, RcWriteOnly, EPSN, u64::MAX - 7, k.rw.1, 16, 16)]),
        ),
        access(
            "WRITE to a region without remote write",
            Rts,
            Box::new(move |c, k, q| vec![c.write(q, RcWriteOnly, EPSN, k.ro.0, k.ro.1, 16, 16)]),
        ),
        access(
            "READ with a wrong rkey",
            Rts,
            Box::new(move |c, k, q| vec![c.read(q, EPSN, k.rw.0, k.rw.1 ^ 0x8000_0000, 64)]),
        ),
        access(
            "READ past the region",
            Rts,
            Box::new(move |c, k, q| vec![c.read(q, EPSN, k.rw.0 + k.rw_len - 32, k.rw.1, 64)]),
        ),
        invalid("WRITE to a QP without remote write", NoRemoteWrite, Box::new(move |c, k, q| vec![wr(c, k, q)])),
        invalid(
            "READ on a QP without remote read",
            NoRemoteRead,
            Box::new(move |c, k, q| vec![c.read(q, EPSN, k.rw.0, k.rw.1, 64)]),
        ),
        // ---- the responder: receive queue
        case(
            "SEND with no RECV posted",
            Rts,
            Box::new(move |c, _, q| vec![c.bare(q, RcSendOnly, EPSN, 32)]),
            vec![Rnr(EPSN)],
            |c| {
                rx(c);
                c.rnr_naks += 1
            },
            Works(EPSN),
        ),
        case(
            "WRITE with immediate, no RECV posted",
            Rts,
            Box::new(move |c, k, q| {
                let r = rnic_proto::Reth { va: k.rw.0, rkey: k.rw.1, dma_len: 16 };
                vec![c.frame(q, RcWriteOnlyImm, EPSN, ExtHeaders::RethImmDt(r, ImmDt { value: 9 }), vec![3; 16])]
            }),
            vec![Rnr(EPSN)],
            |c| {
                rx(c);
                c.rnr_naks += 1
            },
            Works(EPSN),
        ),
    ];
    let mut long_send = case(
        "SEND longer than the RECV",
        Recv(64),
        Box::new(move |c, _, q| vec![c.bare(q, RcSendOnly, EPSN, 100)]),
        vec![Nak(1, EPSN)],
        |c| nak(c, 1),
        Dead,
    );
    long_send.cqes = vec![WcStatus::LocLenErr];
    v.push(long_send);
    // a RECV the failing packet did not take is flushed: the QP is in error
    for c in v.iter_mut() {
        if c.name == "SEND ONLY with invalidate" {
            c.cqes = vec![WcStatus::WrFlushErr];
        }
    }
    // the valid first packets of the two cases with a bad second one write their bytes
    for c in v.iter_mut() {
        if ["SEND LAST inside a WRITE", "WRITE LAST past its DMA length", "WRITE FIRST inside a WRITE"]
            .contains(&c.name)
        {
            c.good_bytes = PMTU;
        }
    }
    v
}

/// A good WRITE ONLY (64 bytes at ePSN) with BTH P_Key `pkey` (the QPs' is 0xFFFF).
fn with_pkey(c: &Crafter, k: &Keys, qpn: u32, pkey: u16) -> Vec<u8> {
    let r = rnic_proto::Reth { va: k.rw.0 + 64, rkey: k.rw.1, dma_len: 64 };
    let mut p = c.packet(qpn, Opcode::RcWriteOnly, EPSN, ExtHeaders::Reth(r), pattern(EPSN, 64));
    p.bth.pkey = pkey;
    rnic_proto::encode_frame(&p).unwrap()
}

/// An ACKNOWLEDGE with `syndrome` at `psn`.
fn ack(c: &Crafter, qpn: u32, psn: u32, syndrome: u8) -> Vec<u8> {
    let mut p = c.packet(qpn, Opcode::RcAck, psn, ExtHeaders::Aeth(rnic_proto::Aeth { syndrome, msn: 0 }), vec![]);
    p.bth.ack_req = false;
    rnic_proto::encode_frame(&p).unwrap()
}

/// An answer (from [`sent_to`]) as the battery names it.
fn answer_of(a: &(Opcode, u8, u32, u32)) -> Answer {
    assert_eq!(a.0, Opcode::RcAck, "the NIC answers requests with ACKNOWLEDGE only: {a:x?}");
    match a.1 >> 5 {
        0 => Answer::Ack(a.2),
        1 => Answer::Rnr(a.2),
        3 => Answer::Nak(a.1 & 0x1f, a.2),
        _ => panic!("reserved syndrome {:#x} sent", a.1),
    }
}

#[test]
fn every_class_of_bad_packet_gets_its_answer() {
    let (ctx, probe) = open_nic(0xBAD);
    let crafter = Crafter { mac: ctx.query_device().mac, src: nic_ip(0), dst: nic_ip(1) };
    let pd = ctx.alloc_pd().unwrap();
    let pd2 = ctx.alloc_pd().unwrap();
    let cq = ctx.create_cq(256, None).unwrap();
    const REGION: usize = 16384;
    let buf = ctx.alloc_buffer(4 * REGION).unwrap();
    let all = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ;
    let mr_rw = pd.reg_mr(&buf, 0, REGION, all).unwrap();
    let mr_ro = pd.reg_mr(&buf, REGION, REGION, AccessFlags::REMOTE_READ).unwrap();
    let mr_other = pd2.reg_mr(&buf, 2 * REGION, REGION, all).unwrap();
    let mr_dead = pd.reg_mr(&buf, 3 * REGION, REGION, all).unwrap();
    let keys = Keys {
        rw: (mr_rw.addr(), mr_rw.rkey()),
        rw_len: REGION as u64,
        ro: (mr_ro.addr(), mr_ro.rkey()),
        other_pd: (mr_other.addr(), mr_other.rkey()),
        dead: (mr_dead.addr(), mr_dead.rkey()),
    };
    mr_dead.deregister().unwrap();
    // buffers and rings the device may write: the RECV targets (in the rw region) and the CQ
    let buf_range = buf.iova()..buf.iova() + 4 * REGION as u64;

    let mut qps = vec![];
    let cases = cases();
    assert!(cases.len() >= 30, "at least 30 classes");
    for (i, k) in cases.iter().enumerate() {
        let mut qp = pd.create_qp(QpType::Rc, &cq, &cq).max_send_wr(16).max_recv_wr(16).build().unwrap();
        let qpn = qp.qp_num();
        match k.setup {
            Setup::Rts | Setup::Recv(_) => connect_rc(&mut qp, &ctx, 0, PEER_QPN, (0x5000, EPSN), Mtu::Mtu1024),
            Setup::NoRdAtomic | Setup::NoRemoteWrite | Setup::NoRemoteRead | Setup::Rtr => {
                let access = match k.setup {
                    Setup::NoRemoteWrite => AccessFlags::REMOTE_READ,
                    Setup::NoRemoteRead => AccessFlags::REMOTE_WRITE,
                    _ => AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ,
                };
                let init = QpAttr::new().state(QpState::Init).pkey_index(0).port(1).access_flags(access);
                qp.modify(&init).unwrap();
                let av = AhAttr { sgid_index: 1, ..AhAttr::new(ipv4_gid(nic_ip(0)), crafter.mac) };
                let rd = if k.setup == Setup::NoRdAtomic { 0 } else { 4 };
                let rtr = QpAttr::new()
                    .state(QpState::ReadyToReceive)
                    .av(av)
                    .path_mtu(Mtu::Mtu1024)
                    .dest_qpn(PEER_QPN)
                    .rq_psn(EPSN)
                    .max_dest_rd_atomic(rd)
                    .min_rnr_timer(12);
                qp.modify(&rtr).unwrap();
                if k.setup != Setup::Rtr {
                    let rts = QpAttr::new()
                        .state(QpState::ReadyToSend)
                        .sq_psn(0x5000)
                        .timeout(14)
                        .retry_cnt(7)
                        .rnr_retry(7)
                        .max_rd_atomic(4);
                    qp.modify(&rts).unwrap();
                }
            }
            Setup::Reset | Setup::None => {}
            Setup::Init => {
                qp.modify(
                    &QpAttr::new().state(QpState::Init).pkey_index(0).port(1).access_flags(AccessFlags::REMOTE_WRITE),
                )
                .unwrap();
            }
            Setup::Error => {
                connect_rc(&mut qp, &ctx, 0, PEER_QPN, (0x5000, EPSN), Mtu::Mtu1024);
                qp.modify(&QpAttr::new().state(QpState::Error)).unwrap();
            }
            Setup::Destroyed => connect_rc(&mut qp, &ctx, 0, PEER_QPN, (0x5000, EPSN), Mtu::Mtu1024),
        }
        // each case writes its RECV target in its own 128 bytes of the rw region's upper half
        let recv_at = REGION as u64 / 2 + 128 * i as u64;
        if let Setup::Recv(len) = k.setup {
            let sge = Sge::new(&mr_rw, recv_at, len).unwrap();
            qp.post_recv(&[RecvWr { wr_id: 0x1000 + i as u64, sg_list: &[sge] }]).unwrap();
        }
        // a destroyed QP: its number is not given again before the frames
        let qp = if k.setup == Setup::Destroyed {
            drop(qp);
            None
        } else {
            Some(qp)
        };
        idle(&probe, 200);
        let before = ctx.query_counters().unwrap();
        let (tx0, w0) = (tx_len(&probe), writes_len(&probe));
        inject(&probe, &(k.frames)(&crafter, &keys, qpn));
        settle(&probe, tx0 + k.answers.len());
        if k.after == After::Dead {
            // (the QP's move into error: the completer's flush, COMP_ERROR,
            // the RQ flush)
            idle(&probe, 1000);
        }
        let answers: Vec<Answer> = sent_to(&probe, tx0).iter().map(answer_of).collect();
        let writes: Vec<_> = probe.with(|h| h.writes[w0..].to_vec());
        let wcs: Vec<WcStatus> = cq.poll(16).unwrap().iter().map(|w| w.status).collect();
        let after = ctx.query_counters().unwrap();
        let mut want = before;
        (k.delta)(&mut want);
        if k.rx_roce {
            want.rx_roce += 1;
        }
        let out: Vec<u64> =
            probe.with(|h| h.mac.as_ref().unwrap().tx[tx0..].iter().map(|f| f.1.len() as u64).collect());
        want.tx_frames += out.len() as u64;
        want.tx_bytes += out.iter().sum::<u64>();
        let data: usize = writes.iter().filter(|w| buf_range.contains(&w.addr)).map(|w| w.bytes.len()).sum();
        let other = writes.iter().filter(|w| !buf_range.contains(&w.addr)).count();
        eprintln!("{:<42} {answers:x?} data bytes {data} CQEs {wcs:?}", k.name);
        assert_eq!(answers, k.answers, "{}: the answer on the wire", k.name);
        assert_eq!(after, want, "{}: the counters", k.name);
        assert_eq!(data, k.good_bytes, "{}: bytes written to the buffers (good packets only)", k.name);
        assert_eq!(wcs, k.cqes, "{}: completions", k.name);
        assert_eq!(other, k.cqes.len(), "{}: device writes besides data: its CQEs only", k.name);

        // then a good WRITE ONLY (AckReq) at the next PSN
        let at = 1024 + 64 * i as u64;
        let psn = match k.after {
            After::Works(psn) => psn,
            After::Dead => EPSN + 2,
            After::Skip => {
                qps.extend(qp);
                continue;
            }
        };
        let before = ctx.query_counters().unwrap();
        let (tx1, w1) = (tx_len(&probe), writes_len(&probe));
        inject(&probe, &[crafter.write(qpn, Opcode::RcWriteOnly, psn, keys.rw.0 + at, keys.rw.1, 64, 64)]);
        let works = matches!(k.after, After::Works(_));
        settle(&probe, tx1 + usize::from(works));
        let a: Vec<Answer> = sent_to(&probe, tx1).iter().map(answer_of).collect();
        let w: Vec<(u64, usize)> = probe.with(|h| h.writes[w1..].iter().map(|w| (w.addr, w.bytes.len())).collect());
        let after = ctx.query_counters().unwrap();
        let mut want = before;
        want.rx_roce += 1;
        if works {
            assert_eq!(a, [Answer::Ack(psn)], "{}: then a good WRITE is ACKed", k.name);
            assert_eq!(w, [(buf.iova() + at, 64)], "{}: and writes its 64 bytes", k.name);
            let got = probe.read_iova(buf.iova() + at, 64);
            assert_eq!(got, pattern(psn, 64), "{}: its bytes", k.name);
            want.tx_frames += 1;
            want.tx_bytes += probe.with(|h| h.mac.as_ref().unwrap().tx[tx1].1.len() as u64);
        } else {
            assert_eq!((a, w), (vec![], vec![]), "{}: then the QP is in error: a good WRITE is dropped", k.name);
            want.drop_qp_error += 1;
        }
        assert_eq!(after, want, "{}: the counters of the good WRITE after it", k.name);
        qps.extend(qp);
    }
    let total = ctx.query_counters().unwrap();
    eprintln!("{} classes: {total:?}", cases.len());
    drop(mr_rw);
    drop(mr_ro);
    drop(mr_other);
}

/// A valid request or response for QP `qpn` at PSN `psn`, of a random kind.
fn random_packet(rng: &mut Rng, c: &Crafter, keys: &Keys, qpn: u32, psn: u32) -> Vec<u8> {
    use Opcode::*;
    let len = (rng.next() % 65) as usize;
    let off = rng.next() % (keys.rw_len - 64);
    match rng.next() % 8 {
        0..=2 => c.write(qpn, RcWriteOnly, psn, keys.rw.0 + off, keys.rw.1, len as u32, len),
        3 => c.bare(qpn, RcSendOnly, psn, len),
        4 => c.read(qpn, psn, keys.rw.0 + off, keys.rw.1, len as u32),
        5 => {
            let r = rnic_proto::Reth { va: keys.rw.0 + off, rkey: keys.rw.1, dma_len: len as u32 };
            let p = rnic_tb::bad_packets::pattern(psn, len);
            c.frame(qpn, RcWriteOnlyImm, psn, ExtHeaders::RethImmDt(r, ImmDt { value: psn }), p)
        }
        6 => ack(c, qpn, rng.next() as u32 & 0xff_ffff, [0x1f, 0x60, 0x61, 0x20][(rng.next() % 4) as usize]),
        _ => c.write(qpn, RcWriteFirst, psn, keys.rw.0, keys.rw.1, 2 * PMTU as u32, PMTU),
    }
}

/// The random part of the battery: `n` valid packets of random kinds into
/// `QPS` live QPs, mutated at random (`bad_packets::mutate`), `RXQ` frames
/// queued at the MAC at most (line rate). A QP whose responder answers with
/// a fatal NAK is destroyed and replaced. Checked: every frame received is
/// in exactly one receive counter; every device write is inside the one
/// region the QPs may write or outside the test's buffer (CQEs, contexts);
/// every frame the NIC sends is a well-formed ACKNOWLEDGE or READ response
/// to one of the peer's QPs; the NIC still executes a good WRITE at the end
/// (no hang).
/// With `RNIC_FUZZ_SLOW` set, the accounting is checked after every packet
/// (slow: to find the one that escapes a counter).
fn random_and_mutated(n: usize, seed: u64) {
    const QPS: usize = 16;
    const RXQ: usize = 2;
    const RETIRED_MAX: usize = 256;
    // The widest gap between frames: the NIC took a small WRITE per ~50
    // cycles (`RespExec` executes one record at a time: docs/benchmarks.md),
    // other packets in a few; at 24 the MAC FIFO drops ~2 % of this mix.
    // (Since session 40 `XlateAhead` sends the translations ahead: 10^5
    // packets in 3.7 M cycles, 7.3 M before; the QPs' moves into error
    // and the RQ flushes now pace it.)
    const GAP_MAX: u64 = 24;
    // The cycles the peer waits after a fatal NAK: the QP's move into error
    // (the completer's flush, then the RQ flush's RECV reads and CQEs) holds
    // the responder; without it the MAC FIFO dropped 8.9 % of this mix
    // (3.0 % with it; 1.9 % before a responder's fatal NAK moved its QP
    // into error).
    const FLUSH_WAIT: u64 = 400;
    const REGION: usize = 16384;
    let (ctx, probe) = open_nic(seed);
    let crafter = Crafter { mac: ctx.query_device().mac, src: nic_ip(0), dst: nic_ip(1) };
    let pd = ctx.alloc_pd().unwrap();
    let pd2 = ctx.alloc_pd().unwrap();
    let cq = ctx.create_cq(4096, None).unwrap();
    let buf = ctx.alloc_buffer(3 * REGION).unwrap();
    let all = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ;
    let mr_rw = pd.reg_mr(&buf, 0, REGION, all).unwrap();
    let mr_ro = pd.reg_mr(&buf, REGION, REGION, AccessFlags::REMOTE_READ).unwrap();
    let mr_other = pd2.reg_mr(&buf, 2 * REGION, REGION, all).unwrap();
    let keys = Keys {
        rw: (mr_rw.addr(), mr_rw.rkey()),
        rw_len: REGION as u64,
        ro: (mr_ro.addr(), mr_ro.rkey()),
        other_pd: (mr_other.addr(), mr_other.rkey()),
        dead: (0, 0),
    };
    let writable = buf.iova()..buf.iova() + REGION as u64;
    let test_buf = buf.iova()..buf.iova() + 3 * REGION as u64;
    let mut rng = Rng(seed | 1);
    let new_qp = |rng: &mut Rng, i: usize| {
        let mut qp = pd.create_qp(QpType::Rc, &cq, &cq).max_send_wr(16).max_recv_wr(64).build().unwrap();
        let epsn = rng.next() as u32 & 0xff_ffff;
        connect_rc(&mut qp, &ctx, 0, 0x100 + i as u32, (0x5000, epsn), Mtu::Mtu1024);
        // RECVs for the first two SENDs (64 bytes each, in the writable region's upper half): RNR NAKs after
        let sge = Sge::new(&mr_rw, REGION as u64 / 2 + 64 * i as u64, 64).unwrap();
        let wrs: Vec<RecvWr> = (0..2).map(|k| RecvWr { wr_id: k, sg_list: std::slice::from_ref(&sge) }).collect();
        qp.post_recv(&wrs).unwrap();
        (qp, epsn)
    };
    let mut qps: Vec<_> = (0..QPS).map(|i| new_qp(&mut rng, i)).collect();
    let before = ctx.query_counters().unwrap();
    let (mut tx_seen, w0) = (tx_len(&probe), writes_len(&probe));
    let (mut mutations, mut replaced, mut cqes) = ([0usize; 6], 0, 0);
    let mut answers = [0usize; 4];
    let mut read_resps = 0usize;
    let (mut gap, mut last_drops) = (8u64, 0u64);
    let mut qp_cycles = 0;
    let mut retired = vec![];
    for k in 0..n {
        let i = (rng.next() % QPS as u64) as usize;
        let qpn = qps[i].0.qp_num();
        let mut f = random_packet(&mut rng, &crafter, &keys, qpn, qps[i].1);
        let m = mutate(&mut rng, &mut f);
        mutations[m as usize] += 1;
        // pace: a gap of `gap` cycles between frames, widened when the MAC
        // FIFO dropped one (the NIC fell behind), narrowed while it keeps up
        let drops = probe.with(|h| h.sim.dut.get("stat_rx_drops"));
        if drops > last_drops {
            gap = (gap + 8).min(GAP_MAX);
        } else if k % 32 == 0 {
            gap = gap.saturating_sub(1).max(2);
        }
        last_drops = drops;
        idle(&probe, gap);
        probe.run_until(100_000, "room at the MAC", |h| h.mac.as_ref().unwrap().rx.len() < RXQ);
        inject(&probe, &[f.clone()]);
        if std::env::var("RNIC_FUZZ_SLOW").is_ok() {
            probe.run_until(100_000, "in", |h| h.mac.as_ref().unwrap().rx_idle());
            idle(&probe, 300);
            let c = ctx.query_counters().unwrap();
            assert_eq!(
                received(&c) - received(&before),
                k as u64 + 1,
                "packet {k} ({m:?}, {} bytes) uncounted: {f:02x?}",
                f.len()
            );
        }
        // follow the answers: an ACK moves the QP's ePSN on, a PSN sequence
        // NAK names it, a fatal NAK ends the QP
        let mut dead = vec![];
        for (op, syn, psn, dest) in sent_to(&probe, tx_seen) {
            // READ responses (their AETH an ACK; a MIDDLE has none) move the ePSN on as ACKs do
            let read_resp = matches!(
                op,
                Opcode::RcReadResponseFirst
                    | Opcode::RcReadResponseMiddle
                    | Opcode::RcReadResponseLast
                    | Opcode::RcReadResponseOnly
            );
            assert!(
                op == Opcode::RcAck || read_resp && syn >> 5 == 0,
                "the NIC sends ACKNOWLEDGEs and READ responses only"
            );
            let j = (dest - 0x100) as usize;
            assert!(j < QPS, "an answer to a QP the peer does not have: {dest:#x}");
            read_resps += usize::from(read_resp);
            answers[(syn >> 5) as usize & 3] += 1;
            match syn >> 5 {
                0 => qps[j].1 = (psn + 1) & 0xff_ffff,
                3 if syn & 0x1f == 0 => qps[j].1 = psn,
                3 => dead.push(j),
                _ => {}
            }
        }
        tx_seen = tx_len(&probe);
        // A QP in error is retired (kept: packets for it may still be in the
        // NIC, which would read its rings: a QP is destroyed only when the
        // NIC is idle, see docs/driver.md) and replaced by a new one.
        // (a fatal NAK moves the QP into error: the NIC flushes its queues,
        // the two RECVs through the responder, which takes no frame
        // meanwhile: the peer waits for that as for its pacing)
        if !dead.is_empty() {
            idle(&probe, FLUSH_WAIT);
        }
        for j in dead {
            let t = probe.now();
            let (old, _) = std::mem::replace(&mut qps[j], new_qp(&mut rng, j));
            retired.push(old);
            replaced += 1;
            qp_cycles += probe.now() - t;
        }
        if retired.len() >= RETIRED_MAX {
            // let the NIC take every frame, then destroy the retired QPs
            drain(&ctx, &probe, &before, k as u64 + 1);
            retired.clear();
        }
        if k % 512 == 511 {
            cqes += cq.poll(256).unwrap().len();
        }
    }
    let c = drain(&ctx, &probe, &before, n as u64);
    drop(retired);
    cqes += cq.poll(256).unwrap().len();
    eprintln!(
        "{n} packets (mutations {mutations:?}: header bits, field, truncated, extended, any bit, none), \
         {replaced} QPs replaced after a fatal NAK ({qp_cycles} cycles), answers {answers:?} (ACK, RNR, -, NAK; \
         {read_resps} of the ACKs READ responses), \
         {cqes} CQEs, {} cycles, last gap {gap}; {c:?}",
        probe.now()
    );
    assert_eq!(received(&c) - received(&before), n as u64, "every frame lands in exactly one receive counter: {c:?}");
    assert!(c.rx_not_mine > before.rx_not_mine, "no mutated destination MAC reached the address filter");
    assert!(c.rx_fifo_drop * 20 <= n as u64, "the pacing keeps MAC FIFO drops under 5 %: {}", c.rx_fifo_drop);
    let writes: Vec<_> = probe.with(|h| h.writes[w0..].iter().map(|w| (w.addr, w.bytes.len() as u64)).collect());
    for &(a, len) in &writes {
        let inside = writable.contains(&a) && a + len <= writable.end;
        assert!(inside || !test_buf.contains(&a), "a device write at {a:#x} ({len} bytes) outside the writable region");
    }
    assert!(mutations.iter().all(|&m| m > 0) && replaced > 0, "every mutation, QPs replaced");
    assert!(answers[0] > 0 && answers[1] > 0 && answers[3] > 0, "ACKs, RNR NAKs and NAKs: {answers:?}");
    assert!(read_resps * 200 > n, "READs answered: {read_resps} READ responses");
    // no hang: a fresh QP takes a good WRITE
    let (qp, epsn) = new_qp(&mut rng, 0);
    let t = tx_len(&probe);
    let at = keys.rw.0 + 256;
    inject(&probe, &[crafter.write(qp.qp_num(), Opcode::RcWriteOnly, epsn, at, keys.rw.1, 64, 64)]);
    settle(&probe, t + 1);
    let last = sent_to(&probe, t);
    assert_eq!(last.iter().map(|a| (a.1 >> 5, a.2)).collect::<Vec<_>>(), [(0, epsn)], "the NIC still works");
    assert_eq!(probe.read_iova(buf.iova() + 256, 64), pattern(epsn, 64));
    drop(qp);
    drop(qps);
}

/// Frames received, over the receive counters (each frame lands in exactly
/// one): the MAC side's two (refused by the address filter: a mutated
/// destination MAC; dropped by the FIFO) and the parser's six.
fn received(c: &Counters) -> u64 {
    c.rx_not_mine + c.rx_fifo_drop + c.rx_roce + c.rx_raw + c.rx_malformed + c.rx_icrc + c.rx_ip_csum + c.rx_mac_err
}

/// Runs the clock until the NIC counted `n` frames received since `before`
/// (its MAC FIFO can hold a few hundred small frames), then 1000 cycles for
/// their answers and writes; the counters then.
fn drain(ctx: &Context, probe: &Probe, before: &Counters, n: u64) -> Counters {
    probe.run_until(1_000_000, "every frame at the MAC", |h| h.mac.as_ref().unwrap().rx_idle());
    let mut c = ctx.query_counters().unwrap();
    for _ in 0..200 {
        if received(&c) - received(before) >= n {
            break;
        }
        idle(probe, 500);
        c = ctx.query_counters().unwrap();
    }
    idle(probe, 1000);
    ctx.query_counters().unwrap()
}

/// The frames the NIC sent since `from`: (opcode, syndrome, PSN, destination QP).
fn sent_to(probe: &Probe, from: usize) -> Vec<(Opcode, u8, u32, u32)> {
    probe.with(|h| {
        h.mac.as_ref().unwrap().tx[from..]
            .iter()
            .map(|(_, b)| {
                let p = decode_frame(b).expect("the NIC sends well-formed frames");
                assert!(p.icrc_ok && p.ip_checksum_ok(), "the NIC's frames have good checksums");
                (p.bth.opcode, p.ext.aeth().map_or(0, |a| a.syndrome), p.bth.psn.value(), p.bth.dest_qp)
            })
            .collect()
    })
}

#[test]
fn random_and_mutated_packets() {
    let n = std::env::var("RNIC_FUZZ_PACKETS").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000);
    random_and_mutated(n, 0xF0F0);
}

/// `make soak`: 10^6 (`RNIC_SOAK_PACKETS`).
#[test]
#[ignore]
fn soak_random_and_mutated_packets() {
    let n = std::env::var("RNIC_SOAK_PACKETS").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000);
    random_and_mutated(n, 0x50AC);
}
