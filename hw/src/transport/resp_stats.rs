//! `RespStats`: the responder's counters the contract names (child of
//! `Responder`): duplicate requests and silent drops by `RespCheck`'s
//! verdict on each record `RespExec` takes, RNR NAKs and NAKs by AETH code
//! on each ACK/NAK request `AckGen` takes (a NAK is never coalesced, so each
//! request is one NAK on the wire).
//!
//! | port | dir | what |
//! |---|---|---|
//! | `dec_fire`, `verdict` | in | a record taken by `RespExec`, its verdict (`RESP_*`) |
//! | `ack_fire`, `ack_kind`, `ack_code` | in | an ACK/NAK request taken by `AckGen`: AETH kind and code |
//! | `dup`, `drop`, `rnr`, `nak[c]` | out | the counts (64 bits, registers): `RESP_DUP_*` verdicts, `RESP_DROP` verdicts, RNR NAKs, NAKs of code `c` (0..3) |
//!
//! The inputs are registered first, so the counters' adders start at
//! registers; the counts lag their event by 2 cycles.

use crate::consts::*;
use crate::prim::Reg;
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
    pub ack_fire: Signal<In, Bit>,
    pub ack_kind: Signal<In, Bits<2>>,
    pub ack_code: Signal<In, Bits<5>>,
    pub dup: Signal<Out, Bits<64>>,
    pub drop: Signal<Out, Bits<64>>,
    pub rnr: Signal<Out, Bits<64>>,
    pub nak: [Signal<Out, Bits<64>>; RESP_NAK_CODES],
    // ---- the events, registered
    e_dup: Reg<Bit>,
    e_drop: Reg<Bit>,
    e_rnr: Reg<Bit>,
    e_nak: Reg<Bits<RESP_NAK_CODES>>,
    // ---- the counts
    n_dup: Reg<Bits<64>>,
    n_drop: Reg<Bits<64>>,
    n_rnr: Reg<Bits<64>>,
    n_nak0: Reg<Bits<64>>,
    n_nak1: Reg<Bits<64>>,
    n_nak2: Reg<Bits<64>>,
    n_nak3: Reg<Bits<64>>,
    is_nak: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for RespStats {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, e_dup, e_drop, e_rnr, e_nak, n_dup, n_drop, n_rnr, n_nak0, n_nak1, n_nak2, n_nak3);
        // ---- the events: a DUP_* verdict is 5..8
        self.e_dup.d.next =
            self.dec_fire.val() & (self.verdict.val() >= RESP_DUP_SEND) & (self.verdict.val() <= RESP_DUP_ATOMIC);
        self.e_drop.d.next = self.dec_fire.val() & (self.verdict.val() == RESP_DROP);
        self.e_rnr.d.next = self.ack_fire.val() & (self.ack_kind.val() == 1); // AETH_KIND_RNR_NAK
        self.is_nak.next = self.ack_fire.val() & (self.ack_kind.val() == 3); // AETH_KIND_NAK
        self.e_nak.d.next = 0.into();
        if self.is_nak.val() & (self.ack_code.val() == 0) {
            self.e_nak.d.next = 1.into();
        }
        if self.is_nak.val() & (self.ack_code.val() == 1) {
            self.e_nak.d.next = 2.into();
        }
        if self.is_nak.val() & (self.ack_code.val() == 2) {
            self.e_nak.d.next = 4.into();
        }
        if self.is_nak.val() & (self.ack_code.val() == 3) {
            self.e_nak.d.next = 8.into();
        }

        // ---- the counts
        if self.e_dup.q.val() {
            self.n_dup.d.next = self.n_dup.q.val() + 1;
        }
        if self.e_drop.q.val() {
            self.n_drop.d.next = self.n_drop.q.val() + 1;
        }
        if self.e_rnr.q.val() {
            self.n_rnr.d.next = self.n_rnr.q.val() + 1;
        }
        if self.e_nak.q.val().get_bit(0) {
            self.n_nak0.d.next = self.n_nak0.q.val() + 1;
        }
        if self.e_nak.q.val().get_bit(1) {
            self.n_nak1.d.next = self.n_nak1.q.val() + 1;
        }
        if self.e_nak.q.val().get_bit(2) {
            self.n_nak2.d.next = self.n_nak2.q.val() + 1;
        }
        if self.e_nak.q.val().get_bit(3) {
            self.n_nak3.d.next = self.n_nak3.q.val() + 1;
        }
        self.dup.next = self.n_dup.q.val();
        self.drop.next = self.n_drop.q.val();
        self.rnr.next = self.n_rnr.q.val();
        self.nak[0].next = self.n_nak0.q.val();
        self.nak[1].next = self.n_nak1.q.val();
        self.nak[2].next = self.n_nak2.q.val();
        self.nak[3].next = self.n_nak3.q.val();

        if self.reset.val() {
            self.e_dup.d.next = false;
            self.e_drop.d.next = false;
            self.e_rnr.d.next = false;
            self.e_nak.d.next = 0.into();
            self.n_dup.d.next = 0.into();
            self.n_drop.d.next = 0.into();
            self.n_rnr.d.next = 0.into();
            self.n_nak0.d.next = 0.into();
            self.n_nak1.d.next = 0.into();
            self.n_nak2.d.next = 0.into();
            self.n_nak3.d.next = 0.into();
        }
    }
}
