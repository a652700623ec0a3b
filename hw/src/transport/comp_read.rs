//! `CompRead`: the requester's placement of READ response data (the
//! model's `scatter` in `Requester::on_read_response`): for one READ
//! response with data, which `CompWalk` has checked and holds in its
//! `Place` state, it walks the packet's bytes over the READ WQE's local
//! SGEs ([`ReadWalk`], which reads the send WQE again by DMA), translates
//! each SGE piece with LOCAL_WRITE under the QP's PD, and writes the
//! resulting IOVA pieces into a [`PieceHold`]. Every piece translated: the
//! pieces are committed (they reach `PayloadScatter` in order, for the
//! packet's payload) and the verdict is `ok`; any translation refused, the
//! payload past the SGEs, or a WQE that cannot be walked: the pieces are
//! discarded and the verdict is not `ok` (the completer completes the READ
//! with LOC_PROT_ERR and flushes, as the model's `fail`). No byte is
//! written before the verdict: the data waits in the payload stream.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_place` | in | a placement {`qpn`, `index` (SQ index), `fresh` (FIRST/ONLY), `offset`, `plen`, `sq_base`, `sq_log`, `pd`}; `ready` a register (one at a time) |
//! | `s_hint` ([`ReadHintIn`]) | in | a READ WQE to read ahead while idle (`ReadWalk`'s `prefetch`); dropped when busy |
//! | `m_verdict` | out | a pulse from registers per placement, `ok` as above |
//! | `inval` | in | a QP context was dropped: the WQE held is forgotten |
//! | `s_put` ([`ReadWqeIn`](super::ReadWqeIn)) | in | the requester's READ and atomic WQEs as sent (`ReqGen::m_rwqe`), kept by `ReadWalk`'s `ReadAhead` for their first responses |
//! | `m_rd` / `s_rd` | out / in | the WQE's DMA read (`ReadWalk`) |
//! | `m_xreq` / `s_xresp` | out / in | translation requests (LOCAL_WRITE) and their answers |
//! | `m_piece` | out | committed pieces, `last` on a packet's last one (`PieceHold`'s register) |
//!
//! Latency: the verdict the cycle after the last answer beat of the
//! packet's last translation is taken (the verdict register); the
//! translation's requests 2 cycles after `s_place` with the WQE held
//! (`ReadWalk`), [`READ_WALK_READ_EXTRA`](super::READ_WALK_READ_EXTRA)
//! plus the DMA latency more when it is read (the first packet of each
//! READ message).

use super::{PieceHold, PieceOut, ReadWalk, ReadWqeIn, PIECE_LEN_BITS};
use crate::axis::AxisIn;
use crate::consts::*;
use crate::host::RdCmdOut;
use crate::mr::{MrReqOut, MrRespIn};
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// A READ response's placement, asked by `CompAck` (module doc).
#[derive(LogicInterface, Default)]
#[join = "PlaceReqIn"]
pub struct PlaceReqOut {
    pub qpn: Signal<Out, Bits<24>>,
    pub index: Signal<Out, Bits<16>>,
    pub fresh: Signal<Out, Bit>,
    pub offset: Signal<Out, Bits<32>>,
    pub plen: Signal<Out, Bits<16>>,
    pub sq_base: Signal<Out, Bits<64>>,
    pub sq_log: Signal<Out, Bits<4>>,
    pub pd: Signal<Out, Bits<24>>,
    pub valid: Signal<Out, Bit>,
    pub ready: Signal<In, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "PlaceReqOut"]
pub struct PlaceReqIn {
    pub qpn: Signal<In, Bits<24>>,
    pub index: Signal<In, Bits<16>>,
    pub fresh: Signal<In, Bit>,
    pub offset: Signal<In, Bits<32>>,
    pub plen: Signal<In, Bits<16>>,
    pub sq_base: Signal<In, Bits<64>>,
    pub sq_log: Signal<In, Bits<4>>,
    pub pd: Signal<In, Bits<24>>,
    pub valid: Signal<In, Bit>,
    pub ready: Signal<Out, Bit>,
}

/// The verdict on a placement: a pulse (the asker waits for it).
#[derive(LogicInterface, Default)]
#[join = "PlaceAnsIn"]
pub struct PlaceAnsOut {
    pub ok: Signal<Out, Bit>,
    pub valid: Signal<Out, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "PlaceAnsOut"]
pub struct PlaceAnsIn {
    pub ok: Signal<In, Bit>,
    pub valid: Signal<In, Bit>,
}

/// A READ WQE to read ahead (`CompAck`'s hint: a READ or atomic of the QP
/// completed and more WQEs of it are in flight, so WQE `index` was posted
/// and stays until its own responses came). No `ready`: a hint that finds
/// the block busy is dropped.
#[derive(LogicInterface, Default)]
#[join = "ReadHintIn"]
pub struct ReadHintOut {
    pub qpn: Signal<Out, Bits<24>>,
    pub index: Signal<Out, Bits<16>>,
    pub sq_base: Signal<Out, Bits<64>>,
    pub sq_log: Signal<Out, Bits<4>>,
    pub valid: Signal<Out, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "ReadHintOut"]
pub struct ReadHintIn {
    pub qpn: Signal<In, Bits<24>>,
    pub index: Signal<In, Bits<16>>,
    pub sq_base: Signal<In, Bits<64>>,
    pub sq_log: Signal<In, Bits<4>>,
    pub valid: Signal<In, Bit>,
}

#[derive(LogicBlock, Default)]
pub struct CompRead {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_place: PlaceReqIn,
    pub s_hint: ReadHintIn,
    pub m_verdict: PlaceAnsOut,
    pub inval: Signal<In, Bit>,
    pub s_put: ReadWqeIn,
    pub m_rd: RdCmdOut,
    pub s_rd: AxisIn<512, 64, 1>,
    pub m_xreq: MrReqOut,
    pub s_xresp: MrRespIn,
    pub m_piece: PieceOut,
    walk: ReadWalk,
    hold: PieceHold,
    busy: Reg<Bit>,
    pd: Reg<Bits<24>>,
    fail: Reg<Bit>,
    left: Reg<Bits<4>>,
    x_valid: Reg<Bit>,
    x_va: Reg<Bits<64>>,
    x_len: Reg<Bits<32>>,
    x_key: Reg<Bits<32>>,
    x_id: Reg<Bits<8>>,
    v_valid: Reg<Bit>,
    v_ok: Reg<Bit>,
    take: Signal<Local, Bit>,
    pre: Signal<Local, Bit>,
    x_free: Signal<Local, Bit>,
    x_take: Signal<Local, Bit>,
    w_take: Signal<Local, Bit>,
    fire: Signal<Local, Bit>,
    fail_now: Signal<Local, Bit>,
    fin: Signal<Local, Bit>,
    ok: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for CompRead {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, busy, pd, fail, left, x_valid, x_va, x_len, x_key, x_id, v_valid, v_ok);
        clock!(self, clock, walk, hold);
        self.walk.reset.next = self.reset.val();
        self.hold.reset.next = self.reset.val();

        // ---- a placement: the walk over the READ WQE's SGEs (child)
        // (none while a prefetch's read is under way)
        self.s_place.ready.next = !self.busy.q.val() & !self.walk.pre_busy.val();
        self.take.next = self.s_place.valid.val() & !self.busy.q.val() & !self.walk.pre_busy.val();
        // a hint read ahead only while idle and nothing asked
        self.pre.next =
            self.s_hint.valid.val() & !self.s_place.valid.val() & !self.busy.q.val() & !self.walk.pre_busy.val();
        self.walk.start.next = self.take.val();
        self.walk.prefetch.next = self.pre.val();
        self.walk.qpn.next = self.s_place.qpn.val();
        self.walk.index.next = self.s_place.index.val();
        self.walk.sq_base.next = self.s_place.sq_base.val();
        self.walk.sq_log.next = self.s_place.sq_log.val();
        if self.pre.val() {
            self.walk.qpn.next = self.s_hint.qpn.val();
            self.walk.index.next = self.s_hint.index.val();
            self.walk.sq_base.next = self.s_hint.sq_base.val();
            self.walk.sq_log.next = self.s_hint.sq_log.val();
        }
        self.walk.fresh.next = self.s_place.fresh.val();
        self.walk.offset.next = self.s_place.offset.val();
        self.walk.plen.next = self.s_place.plen.val();
        self.walk.inval.next = self.inval.val();
        ReadWqeIn::link(&mut self.s_put, &mut self.walk.s_put);
        RdCmdOut::link(&mut self.m_rd, &mut self.walk.m_rd);
        AxisIn::<512, 64, 1>::link(&mut self.s_rd, &mut self.walk.s_rd);
        if self.take.val() {
            self.busy.d.next = true;
            self.pd.d.next = self.s_place.pd.val();
            self.fail.d.next = false;
        }

        // ---- the request register: the walk's pieces, LOCAL_WRITE
        self.x_free.next = !self.x_valid.q.val() | self.m_xreq.ready.val();
        self.x_take.next = self.x_valid.q.val() & self.m_xreq.ready.val();
        self.walk.q.ready.next = self.x_free.val();
        self.w_take.next = self.walk.q.valid.val() & self.x_free.val();
        if self.x_take.val() {
            self.x_valid.d.next = false;
        }
        if self.w_take.val() {
            self.x_valid.d.next = true;
            self.x_va.d.next = self.walk.q.va.val();
            self.x_len.d.next = self.walk.q.len.val();
            self.x_key.d.next = self.walk.q.key.val();
            self.x_id.d.next = 0.into();
            if self.walk.q.last.val() {
                self.x_id.d.next = COMP_READ_XID_LAST.into();
            }
        }
        self.m_xreq.key.next = self.x_key.q.val();
        self.m_xreq.pd.next = self.pd.q.val();
        self.m_xreq.va.next = self.x_va.q.val();
        self.m_xreq.len.next = self.x_len.q.val();
        self.m_xreq.access.next = ACC_LOCAL_WRITE.into();
        self.m_xreq.id.next = self.x_id.q.val();
        self.m_xreq.valid.next = self.x_valid.q.val();

        // ---- answers: pieces into the hold while none failed
        self.s_xresp.ready.next = self.busy.q.val() & self.hold.room.val();
        self.fire.next = self.s_xresp.valid.val() & self.busy.q.val() & self.hold.room.val();
        self.fail_now.next = self.fail.q.val() | (self.fire.val() & self.s_xresp.verdict.val().any());
        self.hold.w_valid.next = self.fire.val() & !self.fail_now.val() & self.s_xresp.len.val().any();
        self.hold.w_iova.next = self.s_xresp.iova.val();
        self.hold.w_len.next = self.s_xresp.len.val().get_bits::<PIECE_LEN_BITS>(0);
        self.hold.w_last.next = self.s_xresp.last.val() & (self.s_xresp.id.val() == COMP_READ_XID_LAST);
        if self.fire.val() & self.s_xresp.verdict.val().any() {
            self.fail.d.next = true;
        }
        if self.x_take.val() & !(self.fire.val() & self.s_xresp.last.val()) {
            self.left.d.next = self.left.q.val() + 1;
        }
        if !self.x_take.val() & self.fire.val() & self.s_xresp.last.val() {
            self.left.d.next = self.left.q.val() - 1;
        }

        // ---- the end: the walk over (every request taken), every answer in
        self.fin.next = self.busy.q.val()
            & self.walk.done.val()
            & !self.x_valid.q.val()
            & (!self.left.q.val().any() | ((self.left.q.val() == 1) & self.fire.val() & self.s_xresp.last.val()));
        self.ok.next = !self.fail_now.val() & !self.walk.len_err.val() & !self.walk.bad.val();
        self.hold.commit.next = self.fin.val() & self.ok.val();
        self.hold.discard.next = self.fin.val() & !self.ok.val();
        self.v_valid.d.next = self.fin.val();
        self.v_ok.d.next = self.ok.val();
        if self.fin.val() {
            self.busy.d.next = false;
        }
        self.m_verdict.valid.next = self.v_valid.q.val();
        self.m_verdict.ok.next = self.v_ok.q.val();
        PieceOut::link(&mut self.m_piece, &mut self.hold.m_piece);

        if self.reset.val() {
            self.busy.d.next = false;
            self.x_valid.d.next = false;
            self.v_valid.d.next = false;
            self.left.d.next = 0.into();
        }
    }
}
