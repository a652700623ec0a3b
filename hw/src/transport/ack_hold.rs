//! `AckHold`: the responder's ACK/NAK requests and RECV completions, held
//! until the data placed before them is written. IBTA lets an ACK (and a
//! CQE) go only once the data of its packet and of every earlier packet is
//! placed; `RespExec` used to wait for that itself, so the next record's
//! translation could not start while the last packet of a message was
//! still being written (about 120 cycles per message, the whole packet
//! time for 4 KiB WRITE ONLYs). Now `RespExec` pushes the record's ACK and
//! CQE here and takes the next record at once.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_ack` ([`RespReqIn`]: an ACK/NAK, or a READ to answer), `s_cqe` ([`RecvCqeIn`]) | in | one record's ACK/NAK request and/or RECV completion, offered together (either `valid` pushes one item; both `ready` are the FIFO's room, from flops). The QPN is stored once, from `s_cqe.qpn` (24 bits; `m_ack.qpn` is its low `ACK_QPN_BITS`), so the caller drives `s_cqe.qpn` also for an ACK alone; `s_ack.qpn` is not read |
//! | `placed` | in | a placed packet's `s_pkt` was taken by `PayloadScatter` this cycle (counted before a push in the same cycle) |
//! | `done` | in | `PayloadScatter::m_done`: one placed packet written |
//! | `quiet` | out | every placed packet counted is written (the two counts equal; from registers): an atomic may read host memory |
//! | `m_ack` ([`RespReqOut`]), `m_cqe` ([`RecvCqeOut`]) | out | the oldest item's, once every packet placed before it was written; from the FIFO's output register, `valid` ANDed with that compare |
//!
//! An item records `need`, the count of placed packets when it was pushed;
//! it is released when the count of written packets (`done`) reaches it
//! (both modulo 2^[`AH_NEED_BITS`], at most [`SCATTER_INFLIGHT`] apart), so
//! items leave in order and an item whose record placed nothing (an RNR
//! NAK, a duplicate's ACK) waits only for the writes before it. An item
//! leaves when its ACK and its CQE (those it has) are taken. Capacity
//! 2^[`ACK_HOLD_LOG`] + 1 items; when full, `RespExec` waits, as before.

use super::{RecvCqeIn, RecvCqeOut, RespReqIn, RespReqOut, ACK_QPN_BITS, PATH_BITS, SCATTER_INFLIGHT};
use crate::consts::*;
use crate::host::DmaFifo;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// log2 of the FIFO's places (LUTRAM: 16 deep costs what 4 do).
pub const ACK_HOLD_LOG: usize = 4;
/// Bits of one FIFO word.
pub const ACK_HOLD_BITS: usize = AH_PATH as usize + PATH_BITS;
const NB: usize = AH_NEED_BITS as usize;
// the literal 6 of `update`: the sign bit of the need compare
const _: () = assert!(ACK_HOLD_BITS == 983 && NB == 7 && (1 << (NB - 1)) > SCATTER_INFLIGHT);

#[derive(LogicBlock, Default)]
pub struct AckHold {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_ack: RespReqIn,
    pub s_cqe: RecvCqeIn,
    pub placed: Signal<In, Bit>,
    pub done: Signal<In, Bit>,
    pub m_ack: RespReqOut,
    pub m_cqe: RecvCqeOut,
    pub quiet: Signal<Out, Bit>,
    fifo: DmaFifo<ACK_HOLD_BITS, ACK_HOLD_LOG>,
    placed_n: Reg<Bits<NB>>,
    done_n: Reg<Bits<NB>>,
    ack_taken: Reg<Bit>,
    cqe_taken: Reg<Bit>,
    need: Signal<Local, Bits<NB>>,
    word: Signal<Local, Bits<ACK_HOLD_BITS>>,
    head: Signal<Local, Bits<ACK_HOLD_BITS>>,
    go: Signal<Local, Bit>,
    h_ack: Signal<Local, Bit>,
    h_cqe: Signal<Local, Bit>,
    ack_fire: Signal<Local, Bit>,
    cqe_fire: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for AckHold {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, placed_n, done_n, ack_taken, cqe_taken);
        clock!(self, clock, fifo);
        self.fifo.reset.next = self.reset.val();
        // ---- counts: placed packets, written packets
        self.need.next = self.placed_n.q.val();
        if self.placed.val() {
            self.need.next = self.placed_n.q.val() + 1;
        }
        self.placed_n.d.next = self.need.val();
        self.quiet.next = self.placed_n.q.val() == self.done_n.q.val();
        if self.done.val() {
            self.done_n.d.next = self.done_n.q.val() + 1;
        }
        // ---- push: the record's ACK and CQE in one word
        self.word.next = bit_cast::<ACK_HOLD_BITS, 24>(self.s_cqe.qpn.val())
            | (bit_cast::<ACK_HOLD_BITS, 24>(self.s_ack.dest_qpn.val()) << AH_DEST_QPN)
            | (bit_cast::<ACK_HOLD_BITS, 16>(self.s_ack.pkey.val()) << AH_PKEY)
            | (bit_cast::<ACK_HOLD_BITS, 24>(self.s_ack.psn.val()) << AH_PSN)
            | (bit_cast::<ACK_HOLD_BITS, 2>(self.s_ack.kind.val()) << AH_KIND)
            | (bit_cast::<ACK_HOLD_BITS, 5>(self.s_ack.code.val()) << AH_CODE)
            | (bit_cast::<ACK_HOLD_BITS, 24>(self.s_ack.msn.val()) << AH_MSN)
            | (bit_cast::<ACK_HOLD_BITS, 1>(self.s_ack.valid.val().into()) << AH_ACK)
            | (bit_cast::<ACK_HOLD_BITS, 1>(self.s_cqe.valid.val().into()) << AH_CQE)
            | (bit_cast::<ACK_HOLD_BITS, 24>(self.s_cqe.cq.val()) << AH_CQ)
            | (bit_cast::<ACK_HOLD_BITS, 64>(self.s_cqe.wr_id.val()) << AH_WR_ID)
            | (bit_cast::<ACK_HOLD_BITS, 8>(self.s_cqe.status.val()) << AH_STATUS)
            | (bit_cast::<ACK_HOLD_BITS, 8>(self.s_cqe.opcode.val()) << AH_OPCODE)
            | (bit_cast::<ACK_HOLD_BITS, 32>(self.s_cqe.byte_len.val()) << AH_LEN)
            | (bit_cast::<ACK_HOLD_BITS, 16>(self.s_cqe.wqe_index.val()) << AH_INDEX)
            | (bit_cast::<ACK_HOLD_BITS, 32>(self.s_cqe.imm.val()) << AH_IMM)
            | (bit_cast::<ACK_HOLD_BITS, 1>(self.s_cqe.with_imm.val().into()) << AH_WITH_IMM)
            | (bit_cast::<ACK_HOLD_BITS, 1>(self.s_cqe.solicited.val().into()) << AH_SOLICITED)
            | (bit_cast::<ACK_HOLD_BITS, NB>(self.need.val()) << AH_NEED)
            | (bit_cast::<ACK_HOLD_BITS, 1>(self.s_ack.read.val().into()) << AH_READ)
            | (bit_cast::<ACK_HOLD_BITS, 64>(self.s_ack.va.val()) << AH_RD_VA)
            | (bit_cast::<ACK_HOLD_BITS, 32>(self.s_ack.len.val()) << AH_RD_LEN)
            | (bit_cast::<ACK_HOLD_BITS, 32>(self.s_ack.rkey.val()) << AH_RD_RKEY)
            | (bit_cast::<ACK_HOLD_BITS, 24>(self.s_ack.pd.val()) << AH_RD_PD)
            | (bit_cast::<ACK_HOLD_BITS, 3>(self.s_ack.pmtu.val()) << AH_RD_PMTU)
            | (bit_cast::<ACK_HOLD_BITS, 1>(self.s_ack.atomic.val().into()) << AH_ATOMIC)
            | (bit_cast::<ACK_HOLD_BITS, PATH_BITS>(self.s_ack.path.val()) << AH_PATH);
        self.fifo.s_data.next = self.word.val();
        self.fifo.s_valid.next = self.s_ack.valid.val() | self.s_cqe.valid.val();
        self.s_ack.ready.next = self.fifo.s_ready.val();
        self.s_cqe.ready.next = self.fifo.s_ready.val();
        // ---- release: every packet placed before the item written
        self.head.next = self.fifo.m_data.val();
        self.go.next = self.fifo.m_valid.val()
            & !(self.done_n.q.val() - bit_cast::<NB, ACK_HOLD_BITS>(self.head.val() >> AH_NEED)).get_bit(6);
        self.h_ack.next = (self.head.val() >> AH_ACK).get_bit(0) & !self.ack_taken.q.val();
        self.h_cqe.next = (self.head.val() >> AH_CQE).get_bit(0) & !self.cqe_taken.q.val();
        self.m_ack.valid.next = self.go.val() & self.h_ack.val();
        self.m_cqe.valid.next = self.go.val() & self.h_cqe.val();
        self.ack_fire.next = self.m_ack.valid.val() & self.m_ack.ready.val();
        self.cqe_fire.next = self.m_cqe.valid.val() & self.m_cqe.ready.val();
        self.pop.next =
            self.go.val() & (!self.h_ack.val() | self.m_ack.ready.val()) & (!self.h_cqe.val() | self.m_cqe.ready.val());
        self.fifo.m_ready.next = self.pop.val();
        if self.ack_fire.val() {
            self.ack_taken.d.next = true;
        }
        if self.cqe_fire.val() {
            self.cqe_taken.d.next = true;
        }
        if self.pop.val() {
            self.ack_taken.d.next = false;
            self.cqe_taken.d.next = false;
        }
        self.m_ack.qpn.next = bit_cast::<ACK_QPN_BITS, ACK_HOLD_BITS>(self.head.val() >> AH_QPN);
        self.m_ack.dest_qpn.next = bit_cast::<24, ACK_HOLD_BITS>(self.head.val() >> AH_DEST_QPN);
        self.m_ack.pkey.next = bit_cast::<16, ACK_HOLD_BITS>(self.head.val() >> AH_PKEY);
        self.m_ack.psn.next = bit_cast::<24, ACK_HOLD_BITS>(self.head.val() >> AH_PSN);
        self.m_ack.kind.next = bit_cast::<2, ACK_HOLD_BITS>(self.head.val() >> AH_KIND);
        self.m_ack.code.next = bit_cast::<5, ACK_HOLD_BITS>(self.head.val() >> AH_CODE);
        self.m_ack.msn.next = bit_cast::<24, ACK_HOLD_BITS>(self.head.val() >> AH_MSN);
        self.m_ack.path.next = bit_cast::<PATH_BITS, ACK_HOLD_BITS>(self.head.val() >> AH_PATH);
        self.m_ack.read.next = (self.head.val() >> AH_READ).get_bit(0);
        self.m_ack.atomic.next = (self.head.val() >> AH_ATOMIC).get_bit(0);
        self.m_ack.va.next = bit_cast::<64, ACK_HOLD_BITS>(self.head.val() >> AH_RD_VA);
        self.m_ack.len.next = bit_cast::<32, ACK_HOLD_BITS>(self.head.val() >> AH_RD_LEN);
        self.m_ack.rkey.next = bit_cast::<32, ACK_HOLD_BITS>(self.head.val() >> AH_RD_RKEY);
        self.m_ack.pd.next = bit_cast::<24, ACK_HOLD_BITS>(self.head.val() >> AH_RD_PD);
        self.m_ack.pmtu.next = bit_cast::<3, ACK_HOLD_BITS>(self.head.val() >> AH_RD_PMTU);
        self.m_cqe.qpn.next = bit_cast::<24, ACK_HOLD_BITS>(self.head.val() >> AH_QPN);
        self.m_cqe.cq.next = bit_cast::<24, ACK_HOLD_BITS>(self.head.val() >> AH_CQ);
        self.m_cqe.wr_id.next = bit_cast::<64, ACK_HOLD_BITS>(self.head.val() >> AH_WR_ID);
        self.m_cqe.status.next = bit_cast::<8, ACK_HOLD_BITS>(self.head.val() >> AH_STATUS);
        self.m_cqe.opcode.next = bit_cast::<8, ACK_HOLD_BITS>(self.head.val() >> AH_OPCODE);
        self.m_cqe.byte_len.next = bit_cast::<32, ACK_HOLD_BITS>(self.head.val() >> AH_LEN);
        self.m_cqe.wqe_index.next = bit_cast::<16, ACK_HOLD_BITS>(self.head.val() >> AH_INDEX);
        self.m_cqe.imm.next = bit_cast::<32, ACK_HOLD_BITS>(self.head.val() >> AH_IMM);
        self.m_cqe.with_imm.next = (self.head.val() >> AH_WITH_IMM).get_bit(0);
        self.m_cqe.solicited.next = (self.head.val() >> AH_SOLICITED).get_bit(0);
        if self.reset.val() {
            self.placed_n.d.next = 0.into();
            self.done_n.d.next = 0.into();
            self.ack_taken.d.next = false;
            self.cqe_taken.d.next = false;
        }
    }
}
