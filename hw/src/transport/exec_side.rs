//! `ExecSide`: what `RespExec` takes beside each of `RespCheck`'s decisions
//! (its `s_side`, [`ExecSideIn`]), kept in step with them. `RespCheck`
//! decides from the packet's header and context lines but passes on only
//! the decision; `RespExec` also needs the QP's `PD`, `DEST_QPN`, `PKEY`,
//! `PATH`, `RQ_BASE`, `RQ_LOG_SIZE`, `RQ_PROD`, `RECV_CQ`, `PMTU` (qpc) and the packet's
//! payload length, first lane, immediate data, BTH.SE and an atomic's
//! operation and AtomicETH data (header). `RespCheck`
//! gives exactly one decision per packet, in order, so these fields wait in
//! a FIFO from the packet's entry into `RespCheck` to its decision's entry
//! into `RespExec`: cheaper than carrying 871 bits through `RespCheck`'s
//! pipeline registers.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_hdr`, `s_qpc` | in | the packet entering `RespCheck` (`rx_lookup`'s `m_req` record) |
//! | `s_push` / `s_room` | in / out | that packet taken by `RespCheck`: its fields queued. `s_room` (from flops): a place is free; the parent gates `m_req`'s handshake with it |
//! | `m_side` ([`ExecSideOut`]), `m_valid` | out | the oldest packet's fields, from the FIFO's output register; the parent offers a decision to `RespExec` only with `m_valid` |
//! | `m_pop` | in | `RespExec` took the decision: the fields go with it |
//! | `m_xpd`, `m_xplen`, `m_xrq_base`, `m_xrq_log`, `m_xvalid` / `m_xpop` | out / in | the packet's PD and payload length again, and its QP's RQ ring (session 42: the RECV entry's hint to `RqAhead`), from a second FIFO popped when `XlateAhead` takes the decision (`m_xpop`): its translation requests go out before `RespExec` takes the record |
//!
//! Capacity 2^`EXEC_SIDE_LOG` + 1 (the FIFO and its output register), above
//! the packets `RespCheck` holds (its skid register and two stages), so
//! `s_room` does not limit the rate. A packet's fields reach `m_side` two
//! cycles after `s_push`, no later than `RespCheck`'s decision.

use super::ExecSideOut;
use crate::consts::*;
use crate::host::DmaFifo;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// log2 of the FIFO's places: above the records `XlateAhead` queues and
/// `RespCheck` holds (LUTRAM: 32 deep costs what 4 do).
pub const EXEC_SIDE_LOG: usize = 5;
/// Bits of one FIFO word (`ES_PATH` + the path).
pub const EXEC_SIDE_BITS: usize = ES_PATH as usize + super::PATH_BITS;
const _: () = assert!(EXEC_SIDE_BITS == 872 && super::PATH_BITS == 512);
/// Bits of a second-FIFO word: {`RQ_LOG_SIZE`, `RQ_BASE`, payload length, `PD`}.
const XFIFO_BITS: usize = 24 + 16 + 64 + 4;

#[derive(LogicBlock, Default)]
pub struct ExecSide {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_hdr: Signal<In, Bits<1024>>,
    pub s_qpc: Signal<In, Bits<1024>>,
    pub s_push: Signal<In, Bit>,
    pub s_room: Signal<Out, Bit>,
    pub m_side: ExecSideOut,
    pub m_valid: Signal<Out, Bit>,
    pub m_pop: Signal<In, Bit>,
    pub m_xpd: Signal<Out, Bits<24>>,
    pub m_xplen: Signal<Out, Bits<16>>,
    pub m_xrq_base: Signal<Out, Bits<64>>,
    pub m_xrq_log: Signal<Out, Bits<4>>,
    pub m_xvalid: Signal<Out, Bit>,
    pub m_xpop: Signal<In, Bit>,
    fifo: DmaFifo<EXEC_SIDE_BITS, EXEC_SIDE_LOG>,
    xfifo: DmaFifo<XFIFO_BITS, EXEC_SIDE_LOG>,
    word: Signal<Local, Bits<EXEC_SIDE_BITS>>,
    head: Signal<Local, Bits<EXEC_SIDE_BITS>>,
    fadd: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for ExecSide {
    #[hdl_gen]
    fn update(&mut self) {
        clock!(self, clock, fifo, xfifo);
        self.fifo.reset.next = self.reset.val();
        self.xfifo.reset.next = self.reset.val();
        self.fadd.next = self.s_hdr.val().get_bits::<8>(RXF_OPCODE) == BTH_RC_FETCH_ADD;
        self.word.next = bit_cast::<EXEC_SIDE_BITS, 24>(self.s_qpc.val().get_bits::<24>(QPC_PD))
            | (bit_cast::<EXEC_SIDE_BITS, 24>(self.s_qpc.val().get_bits::<24>(QPC_DEST_QPN)) << ES_DEST_QPN)
            | (bit_cast::<EXEC_SIDE_BITS, 16>(self.s_qpc.val().get_bits::<16>(QPC_PKEY)) << ES_PKEY)
            | (bit_cast::<EXEC_SIDE_BITS, 16>(self.s_hdr.val().get_bits::<16>(RXF_PAYLOAD_LEN)) << ES_PLEN)
            | (bit_cast::<EXEC_SIDE_BITS, 6>(self.s_hdr.val().get_bits::<6>(RXF_PAYLOAD_LANE)) << ES_LANE)
            | (bit_cast::<EXEC_SIDE_BITS, 64>(self.s_qpc.val().get_bits::<64>(QPC_RQ_BASE)) << ES_RQ_BASE)
            | (bit_cast::<EXEC_SIDE_BITS, 4>(self.s_qpc.val().get_bits::<4>(QPC_RQ_LOG)) << ES_RQ_LOG)
            | (bit_cast::<EXEC_SIDE_BITS, 24>(self.s_qpc.val().get_bits::<24>(QPC_RECV_CQ)) << ES_RECV_CQ)
            | (bit_cast::<EXEC_SIDE_BITS, 32>(self.s_hdr.val().get_bits::<32>(RXF_IMMDT)) << ES_IMM)
            | (bit_cast::<EXEC_SIDE_BITS, 1>(self.s_hdr.val().get_bits::<1>(RXF_HAS_IMMDT)) << ES_IMM_VALID)
            | (bit_cast::<EXEC_SIDE_BITS, 16>(self.s_qpc.val().get_bits::<16>(QPC_RQ_PROD)) << ES_RQ_PROD)
            | (bit_cast::<EXEC_SIDE_BITS, 3>(self.s_qpc.val().get_bits::<3>(QPC_PMTU)) << ES_PMTU)
            | (bit_cast::<EXEC_SIDE_BITS, 1>(self.s_hdr.val().get_bits::<1>(RXF_SE)) << ES_SE)
            | (bit_cast::<EXEC_SIDE_BITS, 1>(self.fadd.val().into()) << ES_FADD)
            | (bit_cast::<EXEC_SIDE_BITS, 64>(self.s_hdr.val().get_bits::<64>(RXF_ATOMIC_CMP)) << ES_CMP)
            | (bit_cast::<EXEC_SIDE_BITS, 64>(self.s_hdr.val().get_bits::<64>(RXF_ATOMIC_SWAP)) << ES_SWAP)
            | (bit_cast::<EXEC_SIDE_BITS, 512>(self.s_qpc.val().get_bits::<512>(QPC_PATH)) << ES_PATH);
        self.fifo.s_data.next = self.word.val();
        self.fifo.s_valid.next = self.s_push.val();
        self.s_room.next = self.fifo.s_ready.val() & self.xfifo.s_ready.val();
        // the PD and payload length again, for the requests issued ahead, and
        // the RQ ring, for the RECV entry read ahead
        self.xfifo.s_data.next = bit_cast::<XFIFO_BITS, 24>(self.s_qpc.val().get_bits::<24>(QPC_PD))
            | (bit_cast::<XFIFO_BITS, 16>(self.s_hdr.val().get_bits::<16>(RXF_PAYLOAD_LEN)) << 24)
            | (bit_cast::<XFIFO_BITS, 64>(self.s_qpc.val().get_bits::<64>(QPC_RQ_BASE)) << 40)
            | (bit_cast::<XFIFO_BITS, 4>(self.s_qpc.val().get_bits::<4>(QPC_RQ_LOG)) << 104);
        self.xfifo.s_valid.next = self.s_push.val();
        self.xfifo.m_ready.next = self.m_xpop.val();
        self.m_xvalid.next = self.xfifo.m_valid.val();
        self.m_xpd.next = self.xfifo.m_data.val().get_bits::<24>(0);
        self.m_xplen.next = self.xfifo.m_data.val().get_bits::<16>(24);
        self.m_xrq_base.next = self.xfifo.m_data.val().get_bits::<64>(40);
        self.m_xrq_log.next = self.xfifo.m_data.val().get_bits::<4>(104);
        self.fifo.m_ready.next = self.m_pop.val();
        self.m_valid.next = self.fifo.m_valid.val();
        self.head.next = self.fifo.m_data.val();
        self.m_side.pd.next = bit_cast::<24, EXEC_SIDE_BITS>(self.head.val() >> ES_PD);
        self.m_side.dest_qpn.next = bit_cast::<24, EXEC_SIDE_BITS>(self.head.val() >> ES_DEST_QPN);
        self.m_side.pkey.next = bit_cast::<16, EXEC_SIDE_BITS>(self.head.val() >> ES_PKEY);
        self.m_side.plen.next = bit_cast::<16, EXEC_SIDE_BITS>(self.head.val() >> ES_PLEN);
        self.m_side.lane.next = bit_cast::<6, EXEC_SIDE_BITS>(self.head.val() >> ES_LANE);
        self.m_side.rq_base.next = bit_cast::<64, EXEC_SIDE_BITS>(self.head.val() >> ES_RQ_BASE);
        self.m_side.rq_log.next = bit_cast::<4, EXEC_SIDE_BITS>(self.head.val() >> ES_RQ_LOG);
        self.m_side.rq_prod.next = bit_cast::<16, EXEC_SIDE_BITS>(self.head.val() >> ES_RQ_PROD);
        self.m_side.recv_cq.next = bit_cast::<24, EXEC_SIDE_BITS>(self.head.val() >> ES_RECV_CQ);
        self.m_side.imm.next = bit_cast::<32, EXEC_SIDE_BITS>(self.head.val() >> ES_IMM);
        self.m_side.imm_valid.next = (self.head.val() >> ES_IMM_VALID).get_bit(0);
        self.m_side.pmtu.next = bit_cast::<3, EXEC_SIDE_BITS>(self.head.val() >> ES_PMTU);
        self.m_side.se.next = (self.head.val() >> ES_SE).get_bit(0);
        self.m_side.fadd.next = (self.head.val() >> ES_FADD).get_bit(0);
        self.m_side.cmp.next = bit_cast::<64, EXEC_SIDE_BITS>(self.head.val() >> ES_CMP);
        self.m_side.swap_add.next = bit_cast::<64, EXEC_SIDE_BITS>(self.head.val() >> ES_SWAP);
        self.m_side.path.next = bit_cast::<512, EXEC_SIDE_BITS>(self.head.val() >> ES_PATH);
    }
}
