//! `CompStats`: the completer's counters the contract names (child of
//! `Completer`), from `CompAck`'s record of each response packet: ghost
//! responses (a PSN not outstanding, or a reserved AETH syndrome), responses
//! dropped because the QP's completer is in error, RNR NAKs, PSN sequence
//! NAKs and fatal NAKs received, the go-back-N restarts it asked for, and
//! the retransmit timeouts that found PSNs outstanding (a timer's record
//! is not counted as a ghost or a NAK).
//! The counting is the shared [`EventCount8`]; this block decodes.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `fire`, `verdict`, `action`, `timer` | in | a record taken (`m_dec` valid and ready), its `COMP_*` verdict and `CACT_*` action, and whether a timer's |
//! | `count[k]` | out | event `k`'s count (64 bits, registers): 0 ghosts, 1 dropped, 2 RNR NAKs, 3 PSN sequence NAKs, 4 fatal NAKs, 5 go-back-N restarts, 6 timeouts |

use super::{EventCount8, COMP_ACTION_BITS, COMP_VERDICT_BITS};
use crate::consts::*;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Events counted (`count[0..COMP_STATS]`).
pub const COMP_STATS: usize = 7;
const _: () = assert!(COMP_DROP == 0 && COMP_GHOST == 1 && COMP_RESERVED == 2 && COMP_RNR == 4);
const _: () = assert!(COMP_NAK_SEQ == 5 && COMP_NAK_FATAL == 6 && CACT_RESEND == 1, "the literals of update");

#[derive(LogicBlock, Default)]
pub struct CompStats {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub fire: Signal<In, Bit>,
    pub verdict: Signal<In, Bits<COMP_VERDICT_BITS>>,
    pub action: Signal<In, Bits<COMP_ACTION_BITS>>,
    /// The record is a retransmit timer's, not a packet's.
    pub timer: Signal<In, Bit>,
    /// ... the RNR timer's (not a local ACK timeout: not counted).
    pub rnr_timer: Signal<In, Bit>,
    pub count: [Signal<Out, Bits<64>>; COMP_STATS],
    counts: EventCount8,
    ev: Signal<Local, Bits<8>>,
    kind: TypeTag<Self>,
}

impl Logic for CompStats {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, counts);
        self.counts.reset.next = self.reset.val();
        self.ev.next = 0.into();
        if self.fire.val() & !self.timer.val() & ((self.verdict.val() == 1) | (self.verdict.val() == 2)) {
            // COMP_GHOST, COMP_RESERVED
            self.ev.next = self.ev.val() | 1;
        }
        if self.fire.val() & !self.timer.val() & (self.verdict.val() == 0) {
            // COMP_DROP
            self.ev.next = self.ev.val() | 2;
        }
        if self.fire.val() & (self.verdict.val() == 4) {
            // COMP_RNR
            self.ev.next = self.ev.val() | 4;
        }
        if self.fire.val() & !self.timer.val() & (self.verdict.val() == 5) {
            // COMP_NAK_SEQ
            self.ev.next = self.ev.val() | 8;
        }
        if self.fire.val()
            & self.timer.val()
            & !self.rnr_timer.val()
            & ((self.verdict.val() == 5) | (self.verdict.val() == 6))
        {
            // a timeout with PSNs outstanding: a resend (COMP_NAK_SEQ), or
            // its retries spent (COMP_NAK_FATAL: RETRY_EXC_ERR)
            self.ev.next = self.ev.val() | 64;
        }
        if self.fire.val() & !self.timer.val() & (self.verdict.val() == 6) {
            // COMP_NAK_FATAL
            self.ev.next = self.ev.val() | 16;
        }
        if self.fire.val() & (self.action.val() == 1) {
            // CACT_RESEND
            self.ev.next = self.ev.val() | 32;
        }
        self.counts.ev.next = self.ev.val();
        self.count[0].next = self.counts.count[0].val();
        self.count[1].next = self.counts.count[1].val();
        self.count[2].next = self.counts.count[2].val();
        self.count[3].next = self.counts.count[3].val();
        self.count[4].next = self.counts.count[4].val();
        self.count[5].next = self.counts.count[5].val();
        self.count[6].next = self.counts.count[6].val();
    }
}
