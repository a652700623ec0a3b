//! `XlateMux<N>`: `N` (at most 4) users of one translation unit
//! (`MrXlate`'s request and answer ports), docs/core.md "Translation".
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_req[i]` / `m_resp[i]` | in / out | user i's requests and its answers (the user's own ids, unchanged) |
//! | `m_req` / `s_resp` | out / in | toward `MrXlate`: requests, and its answers in request order (beats, `last` on a request's final one) |
//!
//! * **Requests.** Round robin among the users offering one (`RrOneHot`),
//!   one per cycle, through a skid buffer whose registers drive `m_req`;
//!   the users see its registered `ready`, gated by room in the order FIFO.
//! * **Answers.** `MrXlate` answers in request order, so the user of each
//!   request taken goes into a FIFO ([`XLATE_MUX_ORDER_LOG`]: as many
//!   requests may be outstanding) and the answers' beats go to the user at
//!   its head, which leaves at a `last` beat. The answers pass a skid
//!   buffer, so `s_resp.ready` is a register and a user's `ready` reaches
//!   no other port.
//!
//! Latency: a request taken at t is offered to `MrXlate` at t + 1; an
//! answer beat taken at t is offered to its user at t + 1. Rate: a request
//! and an answer beat per cycle.

use super::{MrReqIn, MrReqOut, MrRespIn, MrRespOut, MR_ACCESS_BITS, MR_ID_BITS, MR_VERDICT_BITS};
use crate::axis::AxisSkidBuffer;
use crate::host::{RrOneHot, RR_MAX};
use crate::prim::{LutRam, Reg};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// The most users.
pub const XLATE_MUX_MAX_USERS: usize = 4;
/// log2 of the requests outstanding at `MrXlate` the mux can route answers for.
pub const XLATE_MUX_ORDER_LOG: usize = 5;
// literals in the logic: the packed request (key 0, pd 32, va 56, len 120,
// access 152, id 155: 163 bits) and answer (id 0, verdict 8, iova 11, len 75:
// 107 bits); the order FIFO's count (6 bits, room below 30)
const _: () = assert!(MR_ACCESS_BITS == 3 && MR_ID_BITS == 8 && MR_VERDICT_BITS == 3);
const _: () = assert!(XLATE_MUX_ORDER_LOG == 5 && XLATE_MUX_MAX_USERS <= RR_MAX);

#[derive(LogicBlock)]
pub struct XlateMux<const N: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_req: [MrReqIn; N],
    pub m_resp: [MrRespOut; N],
    pub m_req: MrReqOut,
    pub s_resp: MrRespIn,
    rr: RrOneHot,
    req: Signal<Local, Bits<RR_MAX>>,
    grant: Signal<Local, Bits<RR_MAX>>,
    user_of: [Constant<Bits<2>>; N],
    sel: Signal<Local, Bits<168>>,
    k_sel: Signal<Local, Bits<32>>,
    pd_sel: Signal<Local, Bits<24>>,
    va_sel: Signal<Local, Bits<64>>,
    len_sel: Signal<Local, Bits<32>>,
    acc_sel: Signal<Local, Bits<MR_ACCESS_BITS>>,
    id_sel: Signal<Local, Bits<MR_ID_BITS>>,
    user: Signal<Local, Bits<2>>,
    reqs: AxisSkidBuffer<168, 1, 2>,
    order: LutRam<Bits<2>, XLATE_MUX_ORDER_LOG>,
    ow: Reg<Bits<XLATE_MUX_ORDER_LOG>>,
    or: Reg<Bits<XLATE_MUX_ORDER_LOG>>,
    ocnt: Reg<Bits<6>>,
    room: Reg<Bit>,
    push: Signal<Local, Bit>,
    pop: Signal<Local, Bit>,
    ocnt_n: Signal<Local, Bits<6>>,
    resps: AxisSkidBuffer<112, 1, 1>,
    head: Signal<Local, Bits<2>>,
    kind: TypeTag<Self>,
}

impl<const N: usize> Default for XlateMux<N> {
    fn default() -> Self {
        let () = Self::FITS;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_req: std::array::from_fn(|_| Default::default()),
            m_resp: std::array::from_fn(|_| Default::default()),
            m_req: Default::default(),
            s_resp: Default::default(),
            rr: Default::default(),
            req: Default::default(),
            grant: Default::default(),
            user_of: std::array::from_fn(|i| Constant::new((i as u64).into())),
            sel: Default::default(),
            k_sel: Default::default(),
            pd_sel: Default::default(),
            va_sel: Default::default(),
            len_sel: Default::default(),
            acc_sel: Default::default(),
            id_sel: Default::default(),
            user: Default::default(),
            reqs: Default::default(),
            order: Default::default(),
            ow: Default::default(),
            or: Default::default(),
            ocnt: Default::default(),
            room: Default::default(),
            push: Default::default(),
            pop: Default::default(),
            ocnt_n: Default::default(),
            resps: Default::default(),
            head: Default::default(),
            kind: Default::default(),
        }
    }
}

impl<const N: usize> XlateMux<N> {
    const FITS: () = assert!(N >= 1 && N <= XLATE_MUX_MAX_USERS);
    /// Cycles from a request taken to it offered to `MrXlate`, and from an
    /// answer beat taken to it offered to its user.
    pub const LATENCY: u64 = 1;
}

impl<const N: usize> Logic for XlateMux<N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ow, or, ocnt, room);
        clock!(self, clock, rr, reqs, order, resps);
        self.rr.reset.next = self.reset.val();
        self.reqs.reset.next = self.reset.val();
        self.resps.reset.next = self.reset.val();

        // ---- requests: round robin into the skid buffer, while the order FIFO has room
        self.req.next = 0.into();
        for i in 0..N {
            self.req.next = self.req.val().replace_bit(i, self.s_req[i].valid.val() & self.room.q.val());
        }
        self.rr.req.next = self.req.val();
        self.grant.next = self.rr.grant.val();
        self.k_sel.next = 0.into();
        self.pd_sel.next = 0.into();
        self.va_sel.next = 0.into();
        self.len_sel.next = 0.into();
        self.acc_sel.next = 0.into();
        self.id_sel.next = 0.into();
        self.user.next = 0.into();
        for i in 0..N {
            self.s_req[i].ready.next = self.grant.val().get_bit(i) & self.reqs.s_axis.tready.val();
            if self.grant.val().get_bit(i) {
                self.k_sel.next = self.s_req[i].key.val();
                self.pd_sel.next = self.s_req[i].pd.val();
                self.va_sel.next = self.s_req[i].va.val();
                self.len_sel.next = self.s_req[i].len.val();
                self.acc_sel.next = self.s_req[i].access.val();
                self.id_sel.next = self.s_req[i].id.val();
                self.user.next = self.user_of[i].val();
            }
        }
        self.sel.next = bit_cast::<168, 32>(self.k_sel.val())
            | (bit_cast::<168, 24>(self.pd_sel.val()) << 32)
            | (bit_cast::<168, 64>(self.va_sel.val()) << 56)
            | (bit_cast::<168, 32>(self.len_sel.val()) << 120)
            | (bit_cast::<168, 3>(self.acc_sel.val()) << 152)
            | (bit_cast::<168, 8>(self.id_sel.val()) << 155);
        self.reqs.s_axis.tdata.next = self.sel.val();
        self.reqs.s_axis.tkeep.next = 1.into();
        self.reqs.s_axis.tuser.next = self.user.val();
        self.reqs.s_axis.tlast.next = true;
        self.reqs.s_axis.tvalid.next = self.req.val().any();
        self.rr.advance.next = self.reqs.s_axis.tready.val();
        self.m_req.key.next = self.reqs.m_axis.tdata.val().get_bits::<32>(0);
        self.m_req.pd.next = self.reqs.m_axis.tdata.val().get_bits::<24>(32);
        self.m_req.va.next = self.reqs.m_axis.tdata.val().get_bits::<64>(56);
        self.m_req.len.next = self.reqs.m_axis.tdata.val().get_bits::<32>(120);
        self.m_req.access.next = self.reqs.m_axis.tdata.val().get_bits::<3>(152);
        self.m_req.id.next = self.reqs.m_axis.tdata.val().get_bits::<8>(155);
        self.m_req.valid.next = self.reqs.m_axis.tvalid.val();
        self.reqs.m_axis.tready.next = self.m_req.ready.val();

        // ---- the order of the requests taken
        self.push.next = self.reqs.m_axis.tvalid.val() & self.m_req.ready.val();
        self.order.write_addr.next = self.ow.q.val();
        self.order.write_data.next = self.reqs.m_axis.tuser.val();
        self.order.write_enable.next = self.push.val();
        if self.push.val() {
            self.ow.d.next = self.ow.q.val() + 1;
        }
        self.order.read_addr.next = self.or.q.val();
        self.head.next = self.order.read_data.val();

        // ---- answers: through the skid buffer, to the user at the head
        self.resps.s_axis.tdata.next = bit_cast::<112, 8>(self.s_resp.id.val())
            | (bit_cast::<112, 3>(self.s_resp.verdict.val()) << 8)
            | (bit_cast::<112, 64>(self.s_resp.iova.val()) << 11)
            | (bit_cast::<112, 32>(self.s_resp.len.val()) << 75);
        self.resps.s_axis.tkeep.next = 1.into();
        self.resps.s_axis.tuser.next = 0.into();
        self.resps.s_axis.tlast.next = self.s_resp.last.val();
        self.resps.s_axis.tvalid.next = self.s_resp.valid.val();
        self.s_resp.ready.next = self.resps.s_axis.tready.val();
        self.resps.m_axis.tready.next = false;
        for i in 0..N {
            self.m_resp[i].id.next = self.resps.m_axis.tdata.val().get_bits::<8>(0);
            self.m_resp[i].verdict.next = self.resps.m_axis.tdata.val().get_bits::<3>(8);
            self.m_resp[i].iova.next = self.resps.m_axis.tdata.val().get_bits::<64>(11);
            self.m_resp[i].len.next = self.resps.m_axis.tdata.val().get_bits::<32>(75);
            self.m_resp[i].last.next = self.resps.m_axis.tlast.val();
            self.m_resp[i].valid.next = self.resps.m_axis.tvalid.val() & (self.head.val() == self.user_of[i].val());
            if self.head.val() == self.user_of[i].val() {
                self.resps.m_axis.tready.next = self.m_resp[i].ready.val();
            }
        }
        self.pop.next = self.resps.m_axis.tvalid.val() & self.resps.m_axis.tready.val() & self.resps.m_axis.tlast.val();
        if self.pop.val() {
            self.or.d.next = self.or.q.val() + 1;
        }
        self.ocnt_n.next =
            self.ocnt.q.val() + bit_cast::<6, 1>(self.push.val().into()) - bit_cast::<6, 1>(self.pop.val().into());
        self.ocnt.d.next = self.ocnt_n.val();
        // room for what the skid buffer holds (2) and a grant: fewer than 29 in the FIFO
        self.room.d.next = self.ocnt_n.val() < 29;
        if self.reset.val() {
            self.ow.d.next = 0.into();
            self.or.d.next = 0.into();
            self.ocnt.d.next = 0.into();
            self.room.d.next = false;
        }
    }
}
