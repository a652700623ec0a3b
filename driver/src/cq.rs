//! Completion queues and completion channels (`ibv_create_cq`,
//! `ibv_poll_cq`, `ibv_req_notify_cq`, `ibv_create_comp_channel`,
//! `ibv_get_cq_event`).
//!
//! A CQ is a ring of `cqe` entries in DMA memory and its context (`cqc`),
//! loaded into the device. The device writes entry `i` with the owner bit
//! `ring::owner_for(i)`; [`CompletionQueue::poll`] takes entries while their
//! owner bit is the one its consumer index expects, then rings a CqConsumer
//! doorbell so the device may reuse the slots. Completions also free the
//! send or receive queue slots of their QP up to the completed WQE.
//!
//! Arming ([`CompletionQueue::req_notify`]) rings a CqArm doorbell; the
//! device then raises the MSI-X vector of the CQ's completion channel on
//! the next completion, and [`CompletionChannel::get_event`] waits for it.

use crate::device::{Context, Shared};
use crate::error::{Error, Queue, Result};
use crate::hw::DmaRegion;
use crate::qp::Rings;
use rnic_contract::codes::{ContextOp, ContextTable, DoorbellKind, WcOpcode, WcStatus};
use rnic_contract::layouts::{cqc, cqe};
use rnic_contract::ring;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fmt;
use std::rc::{Rc, Weak};
use std::sync::atomic::{fence, Ordering};
use std::time::Duration;

pub(crate) struct ChanInner {
    ctx: Rc<Shared>,
    vector: u16,
}

impl Drop for ChanInner {
    fn drop(&mut self) {
        if let Ok(mut a) = self.ctx.alloc.try_borrow_mut() {
            a.vectors.give(self.vector.into());
        }
    }
}

/// A completion channel: an MSI-X vector of its own, which the CQs created
/// with it raise when armed. CQs sharing a channel share the vector, so an
/// event says "one of them has completions"; poll them all.
///
/// ```
/// use rnic_driver::{hw::fake::{FakeConfig, FakeHw}, Device};
/// use rnic_contract::layouts::cqe;
/// use std::time::Duration;
///
/// let hw = FakeHw::new(FakeConfig::default());
/// let device = hw.handle();
/// let ctx = Device::from_hw(hw).open()?;
/// let channel = ctx.create_comp_channel()?;
/// let cq = ctx.create_cq(16, Some(&channel))?;
/// cq.req_notify(false)?;
/// assert!(channel.get_event(Duration::from_micros(10)).is_err(), "nothing yet");
/// let mut entry = [0u8; cqe::SIZE];
/// cqe::WR_ID.set(&mut entry, 7).unwrap();
/// assert!(device.complete(cq.cqn(), entry));
/// channel.get_event(Duration::from_micros(10))?;
/// assert_eq!(cq.poll(4)?[0].wr_id, 7);
/// # Ok::<(), rnic_driver::Error>(())
/// ```
#[derive(Clone)]
pub struct CompletionChannel {
    inner: Rc<ChanInner>,
}

impl fmt::Debug for CompletionChannel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompletionChannel").field("vector", &self.inner.vector).finish()
    }
}

impl CompletionChannel {
    /// The MSI-X vector.
    pub fn vector(&self) -> u16 {
        self.inner.vector
    }

    /// Waits for the vector to fire, at most `timeout`
    /// ([`Error::Timeout`] then). Each interrupt is one event.
    pub fn get_event(&self, timeout: Duration) -> Result<()> {
        if self.inner.ctx.hw()?.wait_irq(self.inner.vector, timeout)? {
            Ok(())
        } else {
            Err(Error::Timeout { what: "completion event" })
        }
    }
}

/// What the CQ knows of a QP using it.
pub(crate) struct QpLink {
    pub rings: Weak<RefCell<Rings>>,
    pub send: bool,
    pub recv: bool,
}

pub(crate) struct CqInner {
    pub ctx: Rc<Shared>,
    pub cqn: u32,
    ring: DmaRegion,
    log: u32,
    cons: Cell<u16>,
    channel: Option<Rc<ChanInner>>,
    pub qps: RefCell<HashMap<u32, QpLink>>,
}

impl CqInner {
    fn teardown(&self) -> Result<()> {
        self.ctx.ctx_cmd(ContextOp::Invalidate, ContextTable::Cq, self.cqn)?;
        self.ctx.hw()?.free_dma(&self.ring)?;
        self.ctx.alloc.borrow_mut().cqn.give(self.cqn);
        Ok(())
    }
}

impl Drop for CqInner {
    fn drop(&mut self) {
        if let Err(e) = self.teardown() {
            self.ctx.teardown_failed(e);
        }
    }
}

/// One completion (`ibv_wc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkCompletion {
    /// The work request's `wr_id`.
    pub wr_id: u64,
    /// Outcome.
    pub status: WcStatus,
    /// What completed; `None` with an error status, where the contract
    /// leaves the field meaningless.
    pub opcode: Option<WcOpcode>,
    /// Device detail of an error.
    pub vendor_err: u8,
    /// Bytes received or transferred.
    pub byte_len: u32,
    /// Immediate data, when the completion carries it.
    pub imm_data: Option<u32>,
    /// The QP.
    pub qp_num: u32,
    /// UD receive: the sender's QP.
    pub src_qp: u32,
    /// UD receive: the buffer starts with the packet's IP header.
    pub grh: bool,
    /// Index of the completed WQE in its queue.
    pub wqe_index: u16,
    /// The queue of the completed WQE, from the OPCODE's kind, which the
    /// device writes on error completions too (`None`: an error completion
    /// whose OPCODE is not a code; its slots are then freed only when the
    /// QP's queues have CQs of their own).
    pub queue: Option<Queue>,
}

impl WorkCompletion {
    fn decode(e: &[u8; cqe::SIZE]) -> std::result::Result<WorkCompletion, rnic_contract::Error> {
        let status = cqe::STATUS.get(e)?;
        let kind = cqe::OPCODE.get(e);
        // the kind names the queue even on an error (the contract's OPCODE)
        let queue = kind.as_ref().ok().map(|o| if o.raw() & 0x80 != 0 { Queue::Recv } else { Queue::Send });
        let opcode = if status == WcStatus::Success { Some(kind?) } else { None };
        Ok(WorkCompletion {
            wr_id: cqe::WR_ID.get(e)?,
            status,
            opcode,
            vendor_err: cqe::VENDOR_ERR.get(e)?,
            byte_len: cqe::BYTE_LEN.get(e)?,
            imm_data: if cqe::WITH_IMM.get(e)? { Some(cqe::IMM.get(e)?) } else { None },
            qp_num: cqe::QPN.get(e)?,
            src_qp: cqe::SRC_QP.get(e)?,
            grh: cqe::GRH.get(e)?,
            wqe_index: cqe::WQE_INDEX.get(e)?,
            queue,
        })
    }

    /// Whether it completes a receive (`IBV_WC_RECV`, `IBV_WC_RECV_RDMA_WITH_IMM`).
    pub fn is_recv(&self) -> Option<bool> {
        self.opcode.map(|o| o.raw() & 0x80 != 0)
    }
}

/// A completion queue. QPs using it hold it, so it lives until the last of
/// them is dropped.
///
/// ```
/// use rnic_driver::hw::fake::{FakeConfig, FakeHw};
/// use rnic_driver::{Device, Error};
/// use rnic_contract::codes::WcStatus;
/// use rnic_contract::layouts::cqe;
///
/// let hw = FakeHw::new(FakeConfig::default());
/// let device = hw.handle();
/// let ctx = Device::from_hw(hw).open()?;
/// let cq = ctx.create_cq(100, None)?;
/// assert_eq!(cq.capacity(), 128, "rounded up to a power of two");
/// assert!(cq.poll(8)?.is_empty());
///
/// // The fake, playing the device, writes two entries.
/// for wr_id in [1, 2] {
///     let mut entry = [0u8; cqe::SIZE];
///     cqe::WR_ID.set(&mut entry, wr_id).unwrap();
///     assert!(device.complete(cq.cqn(), entry));
/// }
/// let wcs = cq.poll(8)?;
/// assert_eq!(wcs.iter().map(|wc| (wc.wr_id, wc.status)).collect::<Vec<_>>(),
///            [(1, WcStatus::Success), (2, WcStatus::Success)]);
///
/// // Arming needs a completion channel; sizes are checked.
/// assert_eq!(cq.req_notify(false), Err(Error::NoChannel { cqn: cq.cqn() }));
/// assert_eq!(ctx.create_cq(0, None).unwrap_err(), Error::Zero { what: "cqe" });
/// # Ok::<(), Error>(())
/// ```
#[derive(Clone)]
pub struct CompletionQueue {
    pub(crate) inner: Rc<CqInner>,
}

impl fmt::Debug for CompletionQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompletionQueue")
            .field("cqn", &self.inner.cqn)
            .field("entries", &(1u32 << self.inner.log))
            .finish()
    }
}

impl Context {
    /// Creates a completion channel with an MSI-X vector of its own.
    pub fn create_comp_channel(&self) -> Result<CompletionChannel> {
        let vector = self.shared.alloc.borrow_mut().vectors.take()? as u16;
        Ok(CompletionChannel { inner: Rc::new(ChanInner { ctx: self.shared.clone(), vector }) })
    }

    /// Creates a CQ of at least `cqe` entries (rounded up to a power of
    /// two), raising `channel`'s vector when armed.
    pub fn create_cq(&self, cqe: u32, channel: Option<&CompletionChannel>) -> Result<CompletionQueue> {
        let ctx = &self.shared;
        if cqe == 0 {
            return Err(Error::Zero { what: "cqe" });
        }
        if cqe > ctx.attr.max_qp_wr {
            return Err(Error::TooLarge { what: "cqe", requested: cqe.into(), max: ctx.attr.max_qp_wr.into() });
        }
        if let Some(ch) = channel {
            if !Rc::ptr_eq(&ch.inner.ctx, ctx) {
                return Err(Error::Mismatch { what: "completion channel" });
            }
        }
        let log = cqe.next_power_of_two().trailing_zeros();
        let cqn = ctx.alloc.borrow_mut().cqn.take()?;
        let ring = match ctx.hw().and_then(|mut hw| hw.alloc_dma(cqe::SIZE << log).map_err(Error::from)) {
            Ok(r) => r,
            Err(e) => {
                ctx.alloc.borrow_mut().cqn.give(cqn);
                return Err(e);
            }
        };
        let vector = channel.map_or(0, |c| c.inner.vector);
        let setup = || -> Result<()> {
            let mut e = [0u8; cqc::SIZE];
            cqc::RING_BASE.set(&mut e, ring.iova)?;
            cqc::LOG_SIZE.set(&mut e, log as u8)?;
            cqc::MSIX_VECTOR.set(&mut e, vector)?;
            ctx.write_entry(&ctx.tables.cqc, cqn, &e)?;
            ctx.ctx_cmd(ContextOp::Load, ContextTable::Cq, cqn)
        };
        if let Err(e) = setup() {
            // A Load still BUSY may yet complete: the device would then own
            // the CQ and write into its ring, so both stay reserved (until
            // the context closes), as a refused MR command keeps its slot.
            if !matches!(e, Error::ContextTimeout { .. }) {
                let _ = ctx.hw().map(|mut hw| hw.free_dma(&ring));
                ctx.alloc.borrow_mut().cqn.give(cqn);
            }
            return Err(e);
        }
        Ok(CompletionQueue {
            inner: Rc::new(CqInner {
                ctx: ctx.clone(),
                cqn,
                ring,
                log,
                cons: Cell::new(0),
                channel: channel.map(|c| c.inner.clone()),
                qps: RefCell::new(HashMap::new()),
            }),
        })
    }
}

impl CompletionQueue {
    /// The CQ number.
    pub fn cqn(&self) -> u32 {
        self.inner.cqn
    }

    /// Entries of the ring.
    pub fn capacity(&self) -> u32 {
        1 << self.inner.log
    }

    /// Takes up to `max` completions, oldest first. An empty result is not
    /// an error; it lets a simulated device's clock run a little. A CQE that
    /// does not decode is [`Error::BadCqe`] (it is consumed, so the next
    /// poll goes on past it).
    pub fn poll(&self, max: usize) -> Result<Vec<WorkCompletion>> {
        let cq = &*self.inner;
        let ctx = &cq.ctx;
        let mut out = Vec::new();
        let mut cons = cq.cons.get();
        let mut bad = None;
        {
            let mut hw = ctx.hw()?;
            while out.len() < max {
                let off = ring::slot(cons, cq.log) * cqe::SIZE;
                let mut probe = [0u8; cqe::SIZE];
                let owner_byte = cqe::OWNER.byte;
                hw.dma_read(&cq.ring, off + owner_byte, &mut probe[owner_byte..=owner_byte])?;
                if cqe::OWNER.get(&probe)? != ring::owner_for(cons, cq.log) {
                    break;
                }
                // The owner bit is the entry's last byte: the rest is in
                // memory once it is, and is read after it.
                fence(Ordering::Acquire);
                let mut e = [0u8; cqe::SIZE];
                hw.dma_read(&cq.ring, off, &mut e)?;
                match WorkCompletion::decode(&e) {
                    Ok(wc) => out.push(wc),
                    Err(error) if out.is_empty() => {
                        bad = Some(Error::BadCqe { cqn: cq.cqn, index: cons, error });
                        cons = cons.wrapping_add(1);
                        break;
                    }
                    Err(_) => break,
                }
                cons = cons.wrapping_add(1);
            }
            if cons == cq.cons.get() {
                hw.relax();
                return Ok(out);
            }
        }
        cq.cons.set(cons);
        ctx.doorbell(DoorbellKind::CqConsumer, cq.cqn, cons, false)?;
        self.free_wqes(&out);
        match bad {
            Some(e) => Err(e),
            None => Ok(out),
        }
    }

    /// Frees the queue slots up to each completed WQE.
    fn free_wqes(&self, wcs: &[WorkCompletion]) {
        let qps = self.inner.qps.borrow();
        for wc in wcs {
            let Some(link) = qps.get(&wc.qp_num) else { continue };
            let Some(rings) = link.rings.upgrade() else { continue };
            let recv = match (wc.queue, link.send, link.recv) {
                (Some(q), _, _) => q == Queue::Recv,
                (None, true, false) => false,
                (None, false, true) => true,
                // an error completion without a kind on a CQ both queues share: unknown queue
                _ => continue,
            };
            rings.borrow_mut().complete(recv, wc.wqe_index);
        }
    }

    /// Asks for an interrupt on the next completion (only a solicited or an
    /// error one with `solicited_only`), as `ibv_req_notify_cq`. Needs a
    /// completion channel. Completions already in the ring and not polled
    /// interrupt at once.
    pub fn req_notify(&self, solicited_only: bool) -> Result<()> {
        if self.inner.channel.is_none() {
            return Err(Error::NoChannel { cqn: self.inner.cqn });
        }
        self.inner.ctx.doorbell(DoorbellKind::CqArm, self.inner.cqn, self.inner.cons.get(), solicited_only)
    }

    /// The consumer index: completions taken so far (free-running).
    pub fn consumer_index(&self) -> u16 {
        self.inner.cons.get()
    }
}
