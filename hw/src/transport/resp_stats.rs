//! `RespStats`: the responder's counters the contract names (child of
//! `Responder`): duplicate requests and silent drops by `RespCheck`'s
//! verdict on each record `RespExec` takes, RNR NAKs and NAKs by AETH code
//! on each ACK/NAK request `AckGen` takes (a NAK is never coalesced, so each
//! request is one NAK on the wire). The counting is the shared
//! [`EventCount8`]; this block decodes the events.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `dec_fire`, `verdict` | in | a record taken by `RespExec`, its verdict (`RESP_*`) |
//! | `ack_fire`, `ack_kind`, `ack_code` | in | an ACK/NAK request taken by `AckGen`: AETH kind and code |
//! | `dup`, `drop`, `rnr`, `nak[c]` | out | the counts (64 bits, registers): `RESP_DUP_*` verdicts, `RESP_DROP` verdicts, RNR NAKs, NAKs of code `c` (0..3) |
//!
//! The counts lag their event by [`EVENT_COUNT_LATENCY`](super::EVENT_COUNT_LATENCY) cycles.

use super::EventCount8;
use crate::consts::*;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// NAK codes counted (`nak[c]`, the AETH NAK codes 0..3).
pub const RESP_NAK_CODES: usize = 4;
const _: () = assert!(AETH_NAK_PSN_SEQ == 0 && AETH_NAK_REMOTE_OP == 3 && RESP_NAK_CODES == 4);
const _: () = assert!(RESP_DUP_SEND == 5 && RESP_DUP_ATOMIC == 8 && RESP_DROP == 0);
const _: () = assert!(AETH_KIND_NAK == 3 && AETH_KIND_RNR_NAK == 1, "the literals of update");

#[derive(LogicBlock, Default)]
pub struct RespStats {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub dec_fire: Signal<In, Bit>,
    pub verdict: Signal<In, Bits<4>>,
    /// A duplicate READ or atomic with nothing to replay (`RespExec::rp_miss`):
    /// a silent drop. Never in a cycle with `dec_fire` of a `RESP_DROP`: the
    /// miss comes while its record is held.
    pub rp_miss: Signal<In, Bit>,
    pub ack_fire: Signal<In, Bit>,
    pub ack_kind: Signal<In, Bits<2>>,
    pub ack_code: Signal<In, Bits<5>>,
    pub dup: Signal<Out, Bits<64>>,
    pub drop: Signal<Out, Bits<64>>,
    pub rnr: Signal<Out, Bits<64>>,
    pub nak: [Signal<Out, Bits<64>>; RESP_NAK_CODES],
    counts: EventCount8,
    is_nak: Signal<Local, Bit>,
    ev: Signal<Local, Bits<8>>,
    kind: TypeTag<Self>,
}

impl Logic for RespStats {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, counts);
        self.counts.reset.next = self.reset.val();
        // events: 0 a DUP_* verdict (5..8), 1 DROP, 2 an RNR NAK, 3 + c a NAK of code c
        self.is_nak.next = self.ack_fire.val() & (self.ack_kind.val() == 3); // AETH_KIND_NAK
        self.ev.next = 0.into();
        if self.dec_fire.val() & (self.verdict.val() >= RESP_DUP_SEND) & (self.verdict.val() <= RESP_DUP_ATOMIC) {
            self.ev.next = self.ev.val() | 1;
        }
        if (self.dec_fire.val() & (self.verdict.val() == RESP_DROP)) | self.rp_miss.val() {
            self.ev.next = self.ev.val() | 2;
        }
        if self.ack_fire.val() & (self.ack_kind.val() == 1) {
            // AETH_KIND_RNR_NAK
            self.ev.next = self.ev.val() | 4;
        }
        if self.is_nak.val() & (self.ack_code.val() == 0) {
            self.ev.next = self.ev.val() | 8;
        }
        if self.is_nak.val() & (self.ack_code.val() == 1) {
            self.ev.next = self.ev.val() | 16;
        }
        if self.is_nak.val() & (self.ack_code.val() == 2) {
            self.ev.next = self.ev.val() | 32;
        }
        if self.is_nak.val() & (self.ack_code.val() == 3) {
            self.ev.next = self.ev.val() | 64;
        }
        self.counts.ev.next = self.ev.val();
        self.dup.next = self.counts.count[0].val();
        self.drop.next = self.counts.count[1].val();
        self.rnr.next = self.counts.count[2].val();
        self.nak[0].next = self.counts.count[3].val();
        self.nak[1].next = self.counts.count[4].val();
        self.nak[2].next = self.counts.count[5].val();
        self.nak[3].next = self.counts.count[6].val();
    }
}
