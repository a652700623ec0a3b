//! Queue pairs (`ibv_create_qp`, `ibv_modify_qp`, `ibv_post_send`,
//! `ibv_post_recv`, `ibv_destroy_qp` on drop).
//!
//! A QP is two rings in DMA memory (send WQEs of 128 bytes, receive WQEs of
//! 64) and a context (`qpc`) in the QP table. The driver keeps its copy of
//! the context; each modify checks the transition ([`crate::qp_state`]),
//! applies the attributes to the copy, asks the device for the state it owns
//! (a Store, once the QP is loaded), writes the copy back and issues a Load.
//! A move to RESET invalidates the device's copy and empties the rings.
//!
//! Posting writes WQEs in the contract's layouts at the producer index and
//! rings one doorbell for the whole list. A list is checked entirely before
//! anything is written: a bad work request or a full ring posts nothing.

use crate::ah::{self, AhAttr};
use crate::cq::{CompletionQueue, CqInner, QpLink};
use crate::device::{Shared, DEFAULT_PKEY};
use crate::error::{Error, Queue, Result};
use crate::hw::DmaRegion;
use crate::mr::AccessFlags;
use crate::pd::{PdInner, ProtectionDomain};
use crate::qp_state::{self, QpAttrMask};
use crate::wr::{encode_recv, encode_send, RecvWr, SendLimits, SendWr};
use rnic_contract::codes::{ContextOp, ContextTable, DoorbellKind, Mtu, QpState, QpType};
use rnic_contract::layout::{FieldValue, LayoutField};
use rnic_contract::layouts::{qpc, qps, recv_wqe, resource, send_wqe};
use rnic_contract::regs::id_features;
use rnic_contract::ring;
use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

/// The producer and consumer indices of a QP's rings, shared with its CQs,
/// which advance the consumers as WQEs complete.
#[derive(Debug)]
pub(crate) struct Rings {
    sq_log: u32,
    rq_log: u32,
    sq_prod: u16,
    sq_cons: u16,
    rq_prod: u16,
    rq_cons: u16,
}

impl Rings {
    /// WQE `index` of the send (or receive) queue completed: it and every
    /// earlier one are free.
    pub(crate) fn complete(&mut self, recv: bool, index: u16) {
        let (prod, cons) = if recv { (self.rq_prod, &mut self.rq_cons) } else { (self.sq_prod, &mut self.sq_cons) };
        let next = index.wrapping_add(1);
        // only forward, and never past the producer
        if ring::used(prod, next) < ring::used(prod, *cons) {
            *cons = next;
        }
    }

    fn reset(&mut self) {
        self.sq_prod = 0;
        self.sq_cons = 0;
        self.rq_prod = 0;
        self.rq_cons = 0;
    }
}

/// Capacities of a QP (`ibv_qp_cap`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct QpCap {
    /// Send queue entries.
    pub max_send_wr: u32,
    /// Receive queue entries.
    pub max_recv_wr: u32,
    /// SGEs per send work request.
    pub max_send_sge: u32,
    /// SGEs per receive work request.
    pub max_recv_sge: u32,
    /// Inline bytes per send work request.
    pub max_inline_data: u32,
}

/// Builds a QP (`ibv_qp_init_attr`); from [`ProtectionDomain::create_qp`].
///
/// ```
/// use rnic_driver::hw::fake::{FakeConfig, FakeHw};
/// use rnic_driver::{Device, Error, QpCap};
/// use rnic_contract::codes::{QpState, QpType};
///
/// let ctx = Device::from_hw(FakeHw::new(FakeConfig::default())).open()?;
/// let pd = ctx.alloc_pd()?;
/// let (scq, rcq) = (ctx.create_cq(256, None)?, ctx.create_cq(256, None)?);
/// let qp = pd.create_qp(QpType::Rc, &scq, &rcq)
///     .max_send_wr(100).max_recv_wr(50).max_send_sge(2).max_inline_data(32).build()?;
/// assert_eq!(qp.state(), QpState::Reset);
/// assert_eq!(qp.cap(), QpCap { max_send_wr: 128, max_recv_wr: 64, max_send_sge: 2, max_recv_sge: 1,
///                              max_inline_data: 32 });
///
/// // What the device cannot do is refused with the limit.
/// let e = pd.create_qp(QpType::Rc, &scq, &rcq).max_send_sge(5).build().unwrap_err();
/// assert_eq!(e, Error::TooLarge { what: "max_send_sge", requested: 5, max: 4 });
/// # Ok::<(), Error>(())
/// ```
#[derive(Debug)]
pub struct QpBuilder<'a> {
    pd: &'a ProtectionDomain,
    qp_type: QpType,
    send_cq: &'a CompletionQueue,
    recv_cq: &'a CompletionQueue,
    cap: QpCap,
    sq_sig_all: bool,
}

impl ProtectionDomain {
    /// Starts building a QP of `qp_type` completing into `send_cq` and
    /// `recv_cq` (which may be the same CQ). Capacities default to 16 work
    /// requests of one SGE each, no inline data.
    pub fn create_qp<'a>(
        &'a self,
        qp_type: QpType,
        send_cq: &'a CompletionQueue,
        recv_cq: &'a CompletionQueue,
    ) -> QpBuilder<'a> {
        QpBuilder {
            pd: self,
            qp_type,
            send_cq,
            recv_cq,
            cap: QpCap { max_send_wr: 16, max_recv_wr: 16, max_send_sge: 1, max_recv_sge: 1, max_inline_data: 0 },
            sq_sig_all: false,
        }
    }
}

impl QpBuilder<'_> {
    /// Send queue entries (rounded up to a power of two).
    pub fn max_send_wr(mut self, n: u32) -> Self {
        self.cap.max_send_wr = n;
        self
    }

    /// Receive queue entries (rounded up to a power of two).
    pub fn max_recv_wr(mut self, n: u32) -> Self {
        self.cap.max_recv_wr = n;
        self
    }

    /// SGEs per send work request.
    pub fn max_send_sge(mut self, n: u32) -> Self {
        self.cap.max_send_sge = n;
        self
    }

    /// SGEs per receive work request.
    pub fn max_recv_sge(mut self, n: u32) -> Self {
        self.cap.max_recv_sge = n;
        self
    }

    /// Inline bytes per send work request.
    pub fn max_inline_data(mut self, n: u32) -> Self {
        self.cap.max_inline_data = n;
        self
    }

    /// Every send work request completes, whatever its flags.
    pub fn sq_sig_all(mut self, all: bool) -> Self {
        self.sq_sig_all = all;
        self
    }

    fn check(&self, ctx: &Shared) -> Result<(u32, u32)> {
        let attr = &ctx.attr;
        match self.qp_type {
            QpType::Uc if !attr.has(id_features::UC) => return Err(Error::Unsupported { feature: "UC" }),
            QpType::Ud if !attr.has(id_features::UD) => return Err(Error::Unsupported { feature: "UD" }),
            _ => {}
        }
        for cq in [self.send_cq, self.recv_cq] {
            if !Rc::ptr_eq(&cq.inner.ctx, &self.pd.inner.ctx) {
                return Err(Error::Mismatch { what: "completion queue" });
            }
        }
        let c = &self.cap;
        for (what, n) in [("max_send_wr", c.max_send_wr), ("max_recv_wr", c.max_recv_wr)] {
            if n == 0 {
                return Err(Error::Zero { what });
            }
            if n > attr.max_qp_wr {
                return Err(Error::TooLarge { what, requested: n.into(), max: attr.max_qp_wr.into() });
            }
        }
        for (what, n, max) in
            [("max_send_sge", c.max_send_sge, attr.max_send_sge), ("max_recv_sge", c.max_recv_sge, attr.max_recv_sge)]
        {
            if n > max {
                return Err(Error::TooLarge { what, requested: n.into(), max: max.into() });
            }
        }
        if c.max_inline_data > 0 && !attr.has(id_features::INLINE) {
            return Err(Error::Unsupported { feature: "INLINE" });
        }
        if c.max_inline_data > attr.max_inline_data {
            return Err(Error::TooLarge {
                what: "max_inline_data",
                requested: c.max_inline_data.into(),
                max: attr.max_inline_data.into(),
            });
        }
        Ok((c.max_send_wr.next_power_of_two().trailing_zeros(), c.max_recv_wr.next_power_of_two().trailing_zeros()))
    }

    /// Creates the QP in RESET.
    pub fn build(self) -> Result<QueuePair> {
        let ctx = self.pd.inner.ctx.clone();
        let (sq_log, rq_log) = self.check(&ctx)?;
        let qpn = ctx.alloc.borrow_mut().qpn.take()?;
        let mut regions: Vec<DmaRegion> = Vec::new();
        let made = (|| -> Result<QueuePair> {
            for bytes in [send_wqe::SIZE << sq_log, recv_wqe::SIZE << rq_log] {
                let r = ctx.hw()?.alloc_dma(bytes)?;
                regions.push(r);
            }
            let (sq, rq) = (regions[0], regions[1]);
            let mut e = [0u8; qpc::SIZE];
            qpc::STATE.set(&mut e, QpState::Reset)?;
            qpc::QP_TYPE.set(&mut e, self.qp_type)?;
            qpc::PMTU.set(&mut e, Mtu::Mtu1024)?;
            qpc::PD.set(&mut e, self.pd.inner.pdn)?;
            qpc::PKEY.set(&mut e, DEFAULT_PKEY)?;
            qpc::SQ_LOG_SIZE.set(&mut e, sq_log as u8)?;
            qpc::RQ_LOG_SIZE.set(&mut e, rq_log as u8)?;
            qpc::SEND_CQ.set(&mut e, self.send_cq.inner.cqn)?;
            qpc::RECV_CQ.set(&mut e, self.recv_cq.inner.cqn)?;
            qpc::SQ_BASE.set(&mut e, sq.iova)?;
            qpc::RQ_BASE.set(&mut e, rq.iova)?;
            ctx.write_entry(&ctx.tables.qpc, qpn, &e)?;
            // The transport state starts at zero (docs/transport.md, "Per-QP transport state"),
            // and so do the QP's replay slots (`resource`), whatever a QP of that number left.
            ctx.write_entry(&ctx.tables.qps, qpn, &[0; qps::SIZE])?;
            ctx.write_entry(&ctx.tables.replay, qpn, &[0; resource::QP_BYTES])?;
            let rings = Rc::new(RefCell::new(Rings { sq_log, rq_log, sq_prod: 0, sq_cons: 0, rq_prod: 0, rq_cons: 0 }));
            let same = Rc::ptr_eq(&self.send_cq.inner, &self.recv_cq.inner);
            self.send_cq
                .inner
                .qps
                .borrow_mut()
                .insert(qpn, QpLink { rings: Rc::downgrade(&rings), send: true, recv: same });
            if !same {
                self.recv_cq
                    .inner
                    .qps
                    .borrow_mut()
                    .insert(qpn, QpLink { rings: Rc::downgrade(&rings), send: false, recv: true });
            }
            let cap = QpCap { max_send_wr: 1 << sq_log, max_recv_wr: 1 << rq_log, ..self.cap };
            Ok(QueuePair {
                ctx: ctx.clone(),
                pd: self.pd.inner.clone(),
                send_cq: self.send_cq.inner.clone(),
                recv_cq: self.recv_cq.inner.clone(),
                qpn,
                qp_type: self.qp_type,
                cap,
                sq_sig_all: self.sq_sig_all,
                sq,
                rq,
                rings,
                state: QpState::Reset,
                qpc: e,
                loaded: false,
            })
        })();
        if made.is_err() {
            if let Ok(mut hw) = ctx.hw() {
                for r in &regions {
                    let _ = hw.free_dma(r);
                }
            }
            ctx.alloc.borrow_mut().qpn.give(qpn);
        }
        made
    }
}

/// Attributes of a modify (`ibv_qp_attr`) with the mask of those given:
/// each setter sets its mask bit, as libibverbs' `attr_mask` would list it.
///
/// ```
/// use rnic_driver::{QpAttr, QpAttrMask};
/// use rnic_contract::codes::QpState;
///
/// let a = QpAttr::new().state(QpState::Init).port(1).pkey_index(0);
/// assert_eq!(a.mask(), QpAttrMask::STATE | QpAttrMask::PORT | QpAttrMask::PKEY_INDEX);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QpAttr {
    mask: QpAttrMask,
    /// `qp_state`.
    pub qp_state: QpState,
    /// `cur_qp_state`.
    pub cur_qp_state: QpState,
    /// `qp_access_flags`.
    pub access: AccessFlags,
    /// `pkey_index`.
    pub pkey_index: u16,
    /// `port_num`.
    pub port_num: u8,
    /// `qkey`.
    pub qkey: u32,
    /// `ah_attr`.
    pub ah_attr: Option<AhAttr>,
    /// `path_mtu`.
    pub path_mtu: Mtu,
    /// `timeout`.
    pub timeout: u8,
    /// `retry_cnt`.
    pub retry_cnt: u8,
    /// `rnr_retry`.
    pub rnr_retry: u8,
    /// `rq_psn`.
    pub rq_psn: u32,
    /// `sq_psn`.
    pub sq_psn: u32,
    /// `max_rd_atomic`.
    pub max_rd_atomic: u8,
    /// `max_dest_rd_atomic`.
    pub max_dest_rd_atomic: u8,
    /// `min_rnr_timer`.
    pub min_rnr_timer: u8,
    /// `dest_qp_num`.
    pub dest_qp_num: u32,
}

impl Default for QpAttr {
    fn default() -> Self {
        QpAttr {
            mask: QpAttrMask::NONE,
            qp_state: QpState::Reset,
            cur_qp_state: QpState::Reset,
            access: AccessFlags::NONE,
            pkey_index: 0,
            port_num: 1,
            qkey: 0,
            ah_attr: None,
            path_mtu: Mtu::Mtu1024,
            timeout: 0,
            retry_cnt: 0,
            rnr_retry: 0,
            rq_psn: 0,
            sq_psn: 0,
            max_rd_atomic: 0,
            max_dest_rd_atomic: 0,
            min_rnr_timer: 0,
            dest_qp_num: 0,
        }
    }
}

macro_rules! setters {
    ($($(#[doc = $d:literal])* $name:ident($field:ident: $ty:ty) => $bit:ident;)+) => {
        $(
            $(#[doc = $d])*
            pub fn $name(mut self, value: $ty) -> Self {
                self.$field = value.into();
                self.mask |= QpAttrMask::$bit;
                self
            }
        )+
    };
}

impl QpAttr {
    /// No attribute.
    pub fn new() -> Self {
        Self::default()
    }

    /// The mask of the attributes set.
    pub fn mask(&self) -> QpAttrMask {
        self.mask
    }

    /// Replaces the mask, for a verbs caller that fills the fields and the
    /// mask separately.
    pub fn with_mask(mut self, mask: QpAttrMask) -> Self {
        self.mask = mask;
        self
    }

    setters! {
        /// `IBV_QP_STATE`.
        state(qp_state: QpState) => STATE;
        /// `IBV_QP_CUR_STATE`.
        cur_state(cur_qp_state: QpState) => CUR_STATE;
        /// `IBV_QP_ACCESS_FLAGS`.
        access_flags(access: AccessFlags) => ACCESS_FLAGS;
        /// `IBV_QP_PKEY_INDEX`.
        pkey_index(pkey_index: u16) => PKEY_INDEX;
        /// `IBV_QP_PORT`.
        port(port_num: u8) => PORT;
        /// `IBV_QP_QKEY`.
        qkey(qkey: u32) => QKEY;
        /// `IBV_QP_AV`.
        av(ah_attr: AhAttr) => AV;
        /// `IBV_QP_PATH_MTU`.
        path_mtu(path_mtu: Mtu) => PATH_MTU;
        /// `IBV_QP_TIMEOUT`.
        timeout(timeout: u8) => TIMEOUT;
        /// `IBV_QP_RETRY_CNT`.
        retry_cnt(retry_cnt: u8) => RETRY_CNT;
        /// `IBV_QP_RNR_RETRY`.
        rnr_retry(rnr_retry: u8) => RNR_RETRY;
        /// `IBV_QP_RQ_PSN`.
        rq_psn(rq_psn: u32) => RQ_PSN;
        /// `IBV_QP_SQ_PSN`.
        sq_psn(sq_psn: u32) => SQ_PSN;
        /// `IBV_QP_MAX_QP_RD_ATOMIC`.
        max_rd_atomic(max_rd_atomic: u8) => MAX_QP_RD_ATOMIC;
        /// `IBV_QP_MAX_DEST_RD_ATOMIC`.
        max_dest_rd_atomic(max_dest_rd_atomic: u8) => MAX_DEST_RD_ATOMIC;
        /// `IBV_QP_MIN_RNR_TIMER`.
        min_rnr_timer(min_rnr_timer: u8) => MIN_RNR_TIMER;
        /// `IBV_QP_DEST_QPN`.
        dest_qpn(dest_qp_num: u32) => DEST_QPN;
    }
}

/// A queue pair. It holds its PD and CQs, so they live as long as it does;
/// posting takes `&mut self`, so one thread posts to a QP at a time.
///
/// ```
/// use rnic_driver::{hw::fake::{FakeConfig, FakeHw}, AccessFlags, AhAttr, Device, QpAttr, RecvWr, Sge};
/// use rnic_contract::codes::{Mtu, QpState, QpType};
///
/// let ctx = Device::from_hw(FakeHw::new(FakeConfig::default())).open()?;
/// let pd = ctx.alloc_pd()?;
/// let cq = ctx.create_cq(64, None)?;
/// let mut qp = pd.create_qp(QpType::Rc, &cq, &cq).max_send_wr(32).max_recv_wr(32).build()?;
/// qp.modify(&QpAttr::new().state(QpState::Init).pkey_index(0).port(1)
///     .access_flags(AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE))?;
/// let peer = AhAttr::new(ctx.query_gid(1, 0)?, [2, 0, 0, 0, 0, 9]);
/// qp.modify(&QpAttr::new().state(QpState::ReadyToReceive).av(peer).path_mtu(Mtu::Mtu4096)
///     .dest_qpn(0x33).rq_psn(100).max_dest_rd_atomic(4).min_rnr_timer(12))?;
/// qp.modify(&QpAttr::new().state(QpState::ReadyToSend).sq_psn(200).timeout(14).retry_cnt(7)
///     .rnr_retry(7).max_rd_atomic(4))?;
/// assert_eq!(qp.state(), QpState::ReadyToSend);
///
/// let buf = ctx.alloc_buffer(4096)?;
/// let mr = pd.reg_mr(&buf, 0, 4096, AccessFlags::LOCAL_WRITE)?;
/// qp.post_recv(&[RecvWr { wr_id: 1, sg_list: &[Sge::new(&mr, 0, 4096)?] }])?;
/// // A skipped transition is refused with what was wrong.
/// assert!(qp.modify(&QpAttr::new().state(QpState::Init)).is_err());
/// # Ok::<(), rnic_driver::Error>(())
/// ```
pub struct QueuePair {
    ctx: Rc<Shared>,
    pd: Rc<PdInner>,
    send_cq: Rc<CqInner>,
    recv_cq: Rc<CqInner>,
    qpn: u32,
    qp_type: QpType,
    cap: QpCap,
    sq_sig_all: bool,
    sq: DmaRegion,
    rq: DmaRegion,
    rings: Rc<RefCell<Rings>>,
    state: QpState,
    qpc: [u8; qpc::SIZE],
    loaded: bool,
}

impl fmt::Debug for QueuePair {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QueuePair")
            .field("qpn", &self.qpn)
            .field("type", &self.qp_type)
            .field("state", &self.state)
            .field("cap", &self.cap)
            .finish()
    }
}

/// Writes `value` into `field` of a context, or says which attribute did not fit.
fn put<T: FieldValue + Into<u64>>(e: &mut [u8], field: LayoutField<T>, value: T, attr: &'static str) -> Result<()> {
    field.set(e, value).map_err(|_| Error::BadAttribute {
        attr,
        value: value.into(),
        reason: "does not fit the context field",
    })
}

impl QueuePair {
    /// The QP number.
    pub fn qp_num(&self) -> u32 {
        self.qpn
    }

    /// The transport.
    pub fn qp_type(&self) -> QpType {
        self.qp_type
    }

    /// The state as the driver last set it.
    pub fn state(&self) -> QpState {
        self.state
    }

    /// The capacities it was created with (rings rounded up).
    pub fn cap(&self) -> QpCap {
        self.cap
    }

    /// The context as the driver last wrote it.
    pub fn context_entry(&self) -> [u8; qpc::SIZE] {
        self.qpc
    }

    /// IOVAs of the send and receive rings.
    pub fn ring_iovas(&self) -> (u64, u64) {
        (self.sq.iova, self.rq.iova)
    }

    /// Producer indices of the send and receive queues.
    pub fn producer_indices(&self) -> (u16, u16) {
        let r = self.rings.borrow();
        (r.sq_prod, r.rq_prod)
    }

    /// Modifies the QP (`ibv_modify_qp`): the attributes in `attr.mask()`.
    /// The transition and the mask are checked against the kernel's table
    /// first, then the values; nothing reaches the device if one is wrong.
    /// A move to ERR stops the QP: packets for it are dropped, and its send
    /// WQEs, outstanding or never sent, complete with `WrFlushErr` in
    /// order. The receive queue's WQEs are not flushed yet (docs/core.md,
    /// "Order of the remaining work", item 9).
    ///
    /// ```
    /// use rnic_driver::hw::fake::{FakeConfig, FakeHw};
    /// use rnic_driver::{AccessFlags, Device, Error, QpAttr};
    /// use rnic_contract::codes::{QpState, QpType};
    ///
    /// let ctx = Device::from_hw(FakeHw::new(FakeConfig::default())).open()?;
    /// let pd = ctx.alloc_pd()?;
    /// let cq = ctx.create_cq(16, None)?;
    /// let mut qp = pd.create_qp(QpType::Rc, &cq, &cq).build()?;
    /// // RESET -> INIT needs the access flags too.
    /// let partial = QpAttr::new().state(QpState::Init).pkey_index(0).port(1);
    /// assert_eq!(qp.modify(&partial).unwrap_err(),
    ///     Error::MissingAttribute { from: QpState::Reset, to: QpState::Init, attr: "ACCESS_FLAGS" });
    /// // Port 2 does not exist.
    /// let bad = partial.access_flags(AccessFlags::REMOTE_READ).port(2);
    /// assert!(matches!(qp.modify(&bad), Err(Error::BadAttribute { attr: "port_num", value: 2, .. })));
    /// qp.modify(&partial.access_flags(AccessFlags::REMOTE_READ))?;
    /// assert_eq!(qp.state(), QpState::Init);
    /// // INIT -> RTS skips RTR.
    /// assert_eq!(qp.modify(&QpAttr::new().state(QpState::ReadyToSend)).unwrap_err(),
    ///     Error::InvalidTransition { qp_type: QpType::Rc, from: QpState::Init, to: QpState::ReadyToSend });
    /// // Any state may go back to RESET.
    /// qp.modify(&QpAttr::new().state(QpState::Reset))?;
    /// # Ok::<(), Error>(())
    /// ```
    pub fn modify(&mut self, attr: &QpAttr) -> Result<()> {
        let mask = attr.mask;
        let from = self.state;
        let to = if mask.contains(QpAttrMask::STATE) { attr.qp_state } else { from };
        qp_state::check(self.qp_type, from, to, mask)?;
        let mut e = self.qpc;
        self.apply(&mut e, attr)?;
        qpc::STATE.set(&mut e, to)?;
        let ctx = self.ctx.clone();
        if to == QpState::Reset {
            if self.loaded {
                ctx.ctx_cmd(ContextOp::Invalidate, ContextTable::Qp, self.qpn)?;
                self.loaded = false;
            }
            self.rings.borrow_mut().reset();
            for f in [qpc::SQ_PROD, qpc::SQ_CONS, qpc::RQ_PROD, qpc::RQ_CONS] {
                f.set(&mut e, 0)?;
            }
            ctx.write_entry(&ctx.tables.qpc, self.qpn, &e)?;
            ctx.write_entry(&ctx.tables.qps, self.qpn, &[0; qps::SIZE])?;
            ctx.write_entry(&ctx.tables.replay, self.qpn, &[0; resource::QP_BYTES])?;
            let mut hw = ctx.hw()?;
            hw.dma_write(&self.sq, 0, &vec![0; self.sq.len])?;
            hw.dma_write(&self.rq, 0, &vec![0; self.rq.len])?;
        } else {
            if self.loaded {
                // Take back what the device owns: the ring indices, and the
                // PSNs unless this modify sets them.
                ctx.ctx_cmd(ContextOp::Store, ContextTable::Qp, self.qpn)?;
                let mut dev = [0u8; qpc::SIZE];
                ctx.read_entry(&ctx.tables.qpc, self.qpn, &mut dev)?;
                for f in [qpc::SQ_PROD, qpc::SQ_CONS, qpc::RQ_PROD, qpc::RQ_CONS] {
                    f.set(&mut e, f.get(&dev)?)?;
                }
                if !mask.contains(QpAttrMask::SQ_PSN) {
                    qpc::SQ_PSN.set(&mut e, qpc::SQ_PSN.get(&dev)?)?;
                }
                if !mask.contains(QpAttrMask::RQ_PSN) {
                    qpc::RQ_PSN.set(&mut e, qpc::RQ_PSN.get(&dev)?)?;
                }
            } else {
                let r = self.rings.borrow();
                qpc::SQ_PROD.set(&mut e, r.sq_prod)?;
                qpc::RQ_PROD.set(&mut e, r.rq_prod)?;
            }
            ctx.write_entry(&ctx.tables.qpc, self.qpn, &e)?;
            ctx.ctx_cmd(ContextOp::Load, ContextTable::Qp, self.qpn)?;
            self.loaded = true;
            if to == QpState::Error {
                // The send queue's doorbell again: the scheduler grants the
                // QP, whose grant in ERR asks the completer to flush what is
                // outstanding, and the grants after it flush the WQEs never
                // sent (WR_FLUSH_ERR; docs/transport_blocks.md); the last,
                // with nothing left to flush, flushes the receive queue.
                let prod = qpc::SQ_PROD.get(&e)?;
                ctx.doorbell(DoorbellKind::SqProducer, self.qpn, prod, false)?;
            }
        }
        self.qpc = e;
        self.state = to;
        Ok(())
    }

    fn apply(&self, e: &mut [u8; qpc::SIZE], a: &QpAttr) -> Result<()> {
        let m = a.mask;
        let ctx = &self.ctx;
        if m.contains(QpAttrMask::CUR_STATE) && a.cur_qp_state != self.state {
            return Err(Error::BadAttribute {
                attr: "cur_qp_state",
                value: a.cur_qp_state.raw().into(),
                reason: "not the QP's current state",
            });
        }
        for (bit, name) in [
            (QpAttrMask::ALT_PATH, "alternate paths (ALT_PATH)"),
            (QpAttrMask::PATH_MIG_STATE, "path migration (PATH_MIG_STATE)"),
            (QpAttrMask::EN_SQD_ASYNC_NOTIFY, "SQD events (EN_SQD_ASYNC_NOTIFY)"),
        ] {
            if m.contains(bit) {
                return Err(Error::Unsupported { feature: name });
            }
        }
        if m.contains(QpAttrMask::PORT) && a.port_num != 1 {
            return Err(Error::BadAttribute {
                attr: "port_num",
                value: a.port_num.into(),
                reason: "the device has port 1",
            });
        }
        if m.contains(QpAttrMask::PKEY_INDEX) && a.pkey_index != 0 {
            return Err(Error::BadAttribute {
                attr: "pkey_index",
                value: a.pkey_index.into(),
                reason: "the P_Key table has entry 0 only",
            });
        }
        if m.contains(QpAttrMask::ACCESS_FLAGS) {
            let f = a.access;
            if f.0 & !0xF != 0 {
                return Err(Error::BadAttribute { attr: "qp_access_flags", value: f.0.into(), reason: "unknown bits" });
            }
            if f.contains(AccessFlags::REMOTE_ATOMIC) && !ctx.attr.has(id_features::ATOMICS) {
                return Err(Error::Unsupported { feature: "ATOMICS" });
            }
            qpc::REMOTE_WRITE.set(e, f.contains(AccessFlags::REMOTE_WRITE))?;
            qpc::REMOTE_READ.set(e, f.contains(AccessFlags::REMOTE_READ))?;
            qpc::REMOTE_ATOMIC.set(e, f.contains(AccessFlags::REMOTE_ATOMIC))?;
        }
        if m.contains(QpAttrMask::QKEY) {
            qpc::QKEY.set(e, a.qkey)?;
        }
        if m.contains(QpAttrMask::AV) {
            let av = a.ah_attr.ok_or(Error::BadAttribute {
                attr: "ah_attr",
                value: 0,
                reason: "AV in the mask, no address",
            })?;
            qpc::PATH.set_bytes(e, &ah::encode(ctx, &av)?)?;
        }
        if m.contains(QpAttrMask::PATH_MTU) {
            qpc::PMTU.set(e, a.path_mtu)?;
        }
        if m.contains(QpAttrMask::TIMEOUT) {
            put(e, qpc::TIMEOUT, a.timeout, "timeout")?;
        }
        if m.contains(QpAttrMask::RETRY_CNT) {
            put(e, qpc::RETRY_CNT, a.retry_cnt, "retry_cnt")?;
        }
        if m.contains(QpAttrMask::RNR_RETRY) {
            put(e, qpc::RNR_RETRY, a.rnr_retry, "rnr_retry")?;
        }
        if m.contains(QpAttrMask::MIN_RNR_TIMER) {
            put(e, qpc::MIN_RNR_TIMER, a.min_rnr_timer, "min_rnr_timer")?;
        }
        if m.contains(QpAttrMask::RQ_PSN) {
            put(e, qpc::RQ_PSN, a.rq_psn, "rq_psn")?;
        }
        if m.contains(QpAttrMask::SQ_PSN) {
            put(e, qpc::SQ_PSN, a.sq_psn, "sq_psn")?;
        }
        if m.contains(QpAttrMask::MAX_QP_RD_ATOMIC) {
            put(e, qpc::MAX_RD_ATOMIC, a.max_rd_atomic, "max_rd_atomic")?;
        }
        if m.contains(QpAttrMask::MAX_DEST_RD_ATOMIC) {
            put(e, qpc::MAX_DEST_RD_ATOMIC, a.max_dest_rd_atomic, "max_dest_rd_atomic")?;
        }
        if m.contains(QpAttrMask::DEST_QPN) {
            put(e, qpc::DEST_QPN, a.dest_qp_num, "dest_qp_num")?;
        }
        Ok(())
    }

    /// Posts send work requests (`ibv_post_send`): all of them, or, on an
    /// error, none. In RTS or SQD; in ERR too, where the device completes
    /// them with `WrFlushErr` (IBTA 10.8.2, as rxe and mlx5 do).
    pub fn post_send(&mut self, wrs: &[SendWr<'_>]) -> Result<()> {
        if !matches!(self.state, QpState::ReadyToSend | QpState::SendQueueDrained | QpState::Error) {
            return Err(Error::WrongStateToPost { queue: Queue::Send, qpn: self.qpn, state: self.state });
        }
        let lim = SendLimits {
            qp_type: self.qp_type,
            max_sge: self.cap.max_send_sge as usize,
            max_inline: self.cap.max_inline_data as usize,
            atomics: self.ctx.attr.has(id_features::ATOMICS),
            sig_all: self.sq_sig_all,
            pdn: self.pd.pdn,
        };
        let (prod, cons, log) = {
            let r = self.rings.borrow();
            (r.sq_prod, r.sq_cons, r.sq_log)
        };
        let mut wqes = Vec::with_capacity(wrs.len());
        for (i, wr) in wrs.iter().enumerate() {
            if ring::is_full(prod.wrapping_add(i as u16), cons, log) {
                return Err(Error::QueueFull { queue: Queue::Send, qpn: self.qpn, wr: i, depth: 1 << log });
            }
            wqes.push(encode_send(i, wr, &lim)?);
        }
        self.write_wqes(false, prod, log, wqes.iter().map(|w| &w[..]))?;
        Ok(())
    }

    /// Posts receive work requests (`ibv_post_recv`): all of them, or, on
    /// an error, none. The QP must have left RESET. In ERR the device
    /// completes them with `WrFlushErr`: the send doorbell is rung after the
    /// receive doorbell, and the grant of a QP in error whose send queue is
    /// flushed makes the responder flush the receive queue.
    pub fn post_recv(&mut self, wrs: &[RecvWr<'_>]) -> Result<()> {
        if self.state == QpState::Reset {
            return Err(Error::WrongStateToPost { queue: Queue::Recv, qpn: self.qpn, state: self.state });
        }
        let (prod, cons, log) = {
            let r = self.rings.borrow();
            (r.rq_prod, r.rq_cons, r.rq_log)
        };
        let mut wqes = Vec::with_capacity(wrs.len());
        for (i, wr) in wrs.iter().enumerate() {
            if ring::is_full(prod.wrapping_add(i as u16), cons, log) {
                return Err(Error::QueueFull { queue: Queue::Recv, qpn: self.qpn, wr: i, depth: 1 << log });
            }
            wqes.push(encode_recv(i, wr, self.cap.max_recv_sge as usize)?);
        }
        self.write_wqes(true, prod, log, wqes.iter().map(|w| &w[..]))?;
        if self.state == QpState::Error && self.loaded {
            let sq_prod = self.rings.borrow().sq_prod;
            self.ctx.doorbell(DoorbellKind::SqProducer, self.qpn, sq_prod, false)?;
        }
        Ok(())
    }

    fn write_wqes<'w>(
        &mut self,
        recv: bool,
        prod: u16,
        log: u32,
        wqes: impl ExactSizeIterator<Item = &'w [u8]>,
    ) -> Result<()> {
        let n = wqes.len() as u16;
        if n == 0 {
            return Ok(());
        }
        let (region, size, kind) = if recv {
            (self.rq, recv_wqe::SIZE, DoorbellKind::RqProducer)
        } else {
            (self.sq, send_wqe::SIZE, DoorbellKind::SqProducer)
        };
        {
            let mut hw = self.ctx.hw()?;
            for (i, w) in wqes.enumerate() {
                hw.dma_write(&region, ring::slot(prod.wrapping_add(i as u16), log) * size, w)?;
            }
        }
        let new = prod.wrapping_add(n);
        {
            let mut r = self.rings.borrow_mut();
            if recv {
                r.rq_prod = new;
            } else {
                r.sq_prod = new;
            }
        }
        self.ctx.doorbell(kind, self.qpn, new, false)
    }

    fn teardown(&mut self) -> Result<()> {
        // The table entry goes back to RESET before the cached copy is
        // invalidated: a later packet for this QPN reloads it and is dropped
        // (QpNotReady), instead of finding the old context (RTS, the rings
        // about to be freed). Packets admitted before the Invalidate are not
        // covered (docs/driver.md, "Destroying a QP with packets in flight").
        let mut reset = [0u8; qpc::SIZE];
        qpc::STATE.set(&mut reset, QpState::Reset)?;
        qpc::QP_TYPE.set(&mut reset, self.qp_type)?;
        self.ctx.write_entry(&self.ctx.tables.qpc, self.qpn, &reset)?;
        if self.loaded {
            self.ctx.ctx_cmd(ContextOp::Invalidate, ContextTable::Qp, self.qpn)?;
            self.loaded = false;
        }
        let mut hw = self.ctx.hw()?;
        hw.free_dma(&self.sq)?;
        hw.free_dma(&self.rq)?;
        Ok(())
    }
}

impl Drop for QueuePair {
    fn drop(&mut self) {
        for cq in [&self.send_cq, &self.recv_cq] {
            cq.qps.borrow_mut().remove(&self.qpn);
        }
        match self.teardown() {
            Ok(()) => self.ctx.alloc.borrow_mut().qpn.give(self.qpn),
            Err(e) => self.ctx.teardown_failed(e),
        }
    }
}
