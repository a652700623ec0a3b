//! `CtxPortMux<W, K, N>`: `N` (at most [`CTX_MUX_MAX_USERS`]) users of one
//! context cache (`CtxCache<W, K, _>`) on its one request port
//! (docs/core.md, "Shared resources and their users").
//!
//! Ports: `s_req[i]` / `m_resp[i]` (user i: the cache's request and
//! response interfaces), `m_req` / `s_resp` toward the cache.
//!
//! * **Requests.** Round robin among the users offering one (the first user
//!   after the one served last; one-hot grant, the "after" mask a register),
//!   one request per cycle, through a skid buffer whose registers drive
//!   `m_req` (the entry in `tdata`, the byte mask in `tkeep`, op, index and
//!   id in `tuser`); the users see its registered `tready`. The user's
//!   number goes into the id's top [`CTX_MUX_USER_BITS`] bits: a user's own
//!   ids are [`CTX_MUX_ID_BITS`] wide (its top bits are replaced).
//! * **Responses.** The cache answers in any order; the id's top bits say
//!   whose an answer is. Users take responses at once (each reserves room
//!   for what it asked, as `req_fetch` and `LookupRob` do), so `s_resp.ready`
//!   is 1 and the answer is registered once and offered to its user with the
//!   user's own id bits. An answer its user does not take in that cycle is
//!   lost and counted in `resp_lost` (a user breaking the rule; the benches
//!   assert it stays 0).
//!
//! Latency: a request taken at cycle t is offered to the cache at t + 1; an
//! answer taken at t is offered to its user at t + 1. Rate: a request and an
//! answer every cycle.

use super::{CacheReqIn, CacheReqOut, CacheRespIn, CacheRespOut, RrOneHot, RR_MAX};
use crate::axis::AxisSkidBuffer;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// The most users a mux serves.
pub const CTX_MUX_MAX_USERS: usize = 4;
/// The id bits that name the user (the top of the cache's 8-bit id).
pub const CTX_MUX_USER_BITS: usize = 2;
/// The id bits a user has for itself.
pub const CTX_MUX_ID_BITS: usize = 6;
const _: () = assert!(CTX_MUX_USER_BITS + CTX_MUX_ID_BITS == super::CTX_CACHE_ID_BITS);
const _: () = assert!(1 << CTX_MUX_USER_BITS == CTX_MUX_MAX_USERS && CTX_MUX_MAX_USERS <= RR_MAX);
// literals in the logic: the request's tuser = op (33:32), index (31:8), id (7:0)
const _: () = assert!(super::CTX_CACHE_ID_BITS == 8);

#[derive(LogicBlock)]
pub struct CtxPortMux<const W: usize, const K: usize, const N: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_req: [CacheReqIn<W, K>; N],
    pub m_resp: [CacheRespOut<W>; N],
    pub m_req: CacheReqOut<W, K>,
    pub s_resp: CacheRespIn<W>,
    /// Answers offered to a user that did not take them (a broken rule).
    pub resp_lost: Signal<Out, Bits<16>>,

    // ---- requests: the round robin and the skid buffer
    rr: RrOneHot,
    req: Signal<Local, Bits<RR_MAX>>,
    grant: Signal<Local, Bits<RR_MAX>>,
    user: Signal<Local, Bits<CTX_MUX_USER_BITS>>,
    user_of: [Constant<Bits<CTX_MUX_USER_BITS>>; N],
    sel_op: Signal<Local, Bits<2>>,
    sel_index: Signal<Local, Bits<24>>,
    sel_id: Signal<Local, Bits<8>>,
    reqs: AxisSkidBuffer<W, K, 34>,
    // ---- answers: one register
    rv: Reg<Bit>,
    r_data: Reg<Bits<W>>,
    r_id: Reg<Bits<8>>,
    r_err: Reg<Bit>,
    lost: Reg<Bits<16>>,
    taken: Signal<Local, Bit>,
    own_id: Signal<Local, Bits<8>>,
    kind: TypeTag<Self>,
}

impl<const W: usize, const K: usize, const N: usize> Default for CtxPortMux<W, K, N> {
    fn default() -> Self {
        let () = Self::FITS;
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_req: std::array::from_fn(|_| Default::default()),
            m_resp: std::array::from_fn(|_| Default::default()),
            m_req: Default::default(),
            s_resp: Default::default(),
            resp_lost: Default::default(),
            rr: Default::default(),
            req: Default::default(),
            grant: Default::default(),
            user: Default::default(),
            user_of: std::array::from_fn(|i| Constant::new((i as u64).into())),
            sel_op: Default::default(),
            sel_index: Default::default(),
            sel_id: Default::default(),
            reqs: Default::default(),
            rv: Default::default(),
            r_data: Default::default(),
            r_id: Default::default(),
            r_err: Default::default(),
            lost: Default::default(),
            taken: Default::default(),
            own_id: Default::default(),
            kind: Default::default(),
        }
    }
}

impl<const W: usize, const K: usize, const N: usize> CtxPortMux<W, K, N> {
    const FITS: () = assert!(N >= 1 && N <= CTX_MUX_MAX_USERS);
    /// Cycles from a request taken to it offered to the cache.
    pub const REQ_LATENCY: u64 = 1;
    /// Cycles from an answer taken from the cache to it offered to its user.
    pub const RESP_LATENCY: u64 = 1;
}

impl<const W: usize, const K: usize, const N: usize> Logic for CtxPortMux<W, K, N> {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, rv, r_data, r_id, r_err, lost);
        clock!(self, clock, reqs, rr);
        self.reqs.reset.next = self.reset.val();
        self.rr.reset.next = self.reset.val();

        // ---- requests: the first user offering one after the last served, else the first
        self.req.next = 0.into();
        for i in 0..N {
            self.req.next = self.req.val().replace_bit(i, self.s_req[i].valid.val());
        }
        self.rr.req.next = self.req.val();
        self.grant.next = self.rr.grant.val();
        self.reqs.s_axis.tdata.next = 0.into();
        self.reqs.s_axis.tkeep.next = 0.into();
        self.sel_op.next = 0.into();
        self.sel_index.next = 0.into();
        self.sel_id.next = 0.into();
        self.user.next = 0.into();
        for i in 0..N {
            self.s_req[i].ready.next = self.grant.val().get_bit(i) & self.reqs.s_axis.tready.val();
            if self.grant.val().get_bit(i) {
                self.reqs.s_axis.tdata.next = self.s_req[i].data.val();
                self.reqs.s_axis.tkeep.next = self.s_req[i].mask.val();
                self.sel_op.next = self.s_req[i].op.val();
                self.sel_index.next = self.s_req[i].index.val();
                self.sel_id.next = self.s_req[i].id.val();
                self.user.next = self.user_of[i].val();
            }
        }
        self.reqs.s_axis.tuser.next = (bit_cast::<34, 2>(self.sel_op.val()) << 32)
            | (bit_cast::<34, 24>(self.sel_index.val()) << 8)
            | (bit_cast::<34, 2>(self.user.val()) << 6)
            | bit_cast::<34, 6>(self.sel_id.val().get_bits::<6>(0));
        self.reqs.s_axis.tlast.next = true;
        self.reqs.s_axis.tvalid.next = self.req.val().any();
        self.rr.advance.next = self.reqs.s_axis.tready.val();
        self.m_req.data.next = self.reqs.m_axis.tdata.val();
        self.m_req.mask.next = self.reqs.m_axis.tkeep.val();
        self.m_req.op.next = self.reqs.m_axis.tuser.val().get_bits::<2>(32);
        self.m_req.index.next = self.reqs.m_axis.tuser.val().get_bits::<24>(8);
        self.m_req.id.next = self.reqs.m_axis.tuser.val().get_bits::<8>(0);
        self.m_req.valid.next = self.reqs.m_axis.tvalid.val();
        self.reqs.m_axis.tready.next = self.m_req.ready.val();

        // ---- answers: registered, to the user the id names
        self.s_resp.ready.next = true;
        self.rv.d.next = self.s_resp.valid.val();
        if self.s_resp.valid.val() {
            self.r_data.d.next = self.s_resp.data.val();
            self.r_id.d.next = self.s_resp.id.val();
            self.r_err.d.next = self.s_resp.err.val();
        }
        self.own_id.next = bit_cast::<8, 6>(self.r_id.q.val().get_bits::<6>(0));
        self.taken.next = false;
        for i in 0..N {
            self.m_resp[i].data.next = self.r_data.q.val();
            self.m_resp[i].id.next = self.own_id.val();
            self.m_resp[i].err.next = self.r_err.q.val();
            self.m_resp[i].valid.next = self.rv.q.val() & (self.r_id.q.val().get_bits::<2>(6) == self.user_of[i].val());
            if self.r_id.q.val().get_bits::<2>(6) == self.user_of[i].val() {
                self.taken.next = self.m_resp[i].ready.val();
            }
        }
        if self.rv.q.val() & !self.taken.val() {
            self.lost.d.next = self.lost.q.val() + 1;
        }
        self.resp_lost.next = self.lost.q.val();

        if self.reset.val() {
            self.rv.d.next = false;
            self.lost.d.next = 0.into();
        }
    }
}
