//! The rnic's userspace driver: a verbs API shaped like libibverbs over a
//! hardware layer with two backends, VFIO for boards and the Verilated NIC
//! for simulation (in `rnic-tb`), so the code CI tests is the code that
//! drives a board.
//!
//! Layers, bottom up:
//!
//! * [`hw`]: the [`hw::Hw`] trait (BAR0 registers, DMA memory, MSI-X waits,
//!   time) and its backends; every `unsafe` block of the crate is there;
//! * the contract (`rnic-contract`): register fields, WQE/CQE/context
//!   layouts and codes, used for every byte the driver writes or reads;
//! * the verbs, one module per object as in libibverbs: [`device`]
//!   (device list, open, queries), [`pd`], [`buffer`] (DMA buffers),
//!   [`mr`], [`cq`] (CQs and completion channels), [`qp`] (with
//!   [`qp_state`] and the work requests of [`wr`]), [`ah`] (with the
//!   peer's MAC from [`neigh`], the neighbour table);
//! * [`connect`]: the out-of-band exchange (perftest's and rc_pingpong's).
//!
//! Ownership: every object holds its parents through `Rc` (a QP its PD and
//! CQs, a memory region its PD and buffer, everything the device context),
//! so no object can outlive what it was made from, and dropping one runs
//! its `ibv_destroy_*` in dependency order. Objects are not `Send`: one
//! thread drives a context (the simulator's models are single-threaded).
//! Destructors cannot return errors; failures are collected and returned
//! by [`Context::take_teardown_errors`], and every explicit call returns
//! an [`Error`] that says what was wrong.
//!
//! The canonical path, against the in-crate fake device:
//!
//! ```
//! use rnic_driver::hw::fake::{FakeConfig, FakeHw};
//! use rnic_driver::*;
//! use rnic_contract::codes::{Mtu, QpState, QpType, WcStatus};
//! use rnic_contract::layouts::cqe;
//! use std::time::Duration;
//!
//! let hw = FakeHw::new(FakeConfig::default());
//! let device = hw.handle(); // the test's view of the device
//! let ctx = Device::from_hw(hw).open()?;
//! let pd = ctx.alloc_pd()?;
//! let channel = ctx.create_comp_channel()?;
//! let cq = ctx.create_cq(64, Some(&channel))?;
//! let mut qp = pd.create_qp(QpType::Rc, &cq, &cq).max_send_wr(16).max_send_sge(2).build()?;
//!
//! let buf = ctx.alloc_buffer(4096)?;
//! buf.write(0, b"hello, rdma")?;
//! let mr = pd.reg_mr(&buf, 0, 4096, AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE)?;
//!
//! qp.modify(&QpAttr::new().state(QpState::Init).pkey_index(0).port(1)
//!     .access_flags(AccessFlags::REMOTE_WRITE))?;
//! let peer = AhAttr::new(ctx.query_gid(1, 0)?, [2, 0, 0, 0, 0, 2]);
//! qp.modify(&QpAttr::new().state(QpState::ReadyToReceive).av(peer).path_mtu(Mtu::Mtu4096)
//!     .dest_qpn(7).rq_psn(0).max_dest_rd_atomic(1).min_rnr_timer(12))?;
//! qp.modify(&QpAttr::new().state(QpState::ReadyToSend).sq_psn(0).timeout(14).retry_cnt(7)
//!     .rnr_retry(7).max_rd_atomic(1))?;
//!
//! let sge = Sge::new(&mr, 0, 11)?;
//! let write = SendOp::RdmaWrite { remote: RemoteAddr { addr: 0x1000, rkey: 0x1234 } };
//! qp.post_send(&[SendWr::new(42, write, &[sge])])?;
//!
//! // The device (here the fake, playing the transport) completes it.
//! cq.req_notify(false)?;
//! let mut entry = [0u8; cqe::SIZE];
//! cqe::WR_ID.set(&mut entry, 42).unwrap();
//! cqe::QPN.set(&mut entry, qp.qp_num()).unwrap();
//! assert!(device.complete(cq.cqn(), entry));
//! channel.get_event(Duration::from_millis(1))?;
//! let wc = cq.poll(16)?;
//! assert_eq!((wc[0].wr_id, wc[0].status), (42, WcStatus::Success));
//! # Ok::<(), rnic_driver::Error>(())
//! ```
//!
//! Children cannot outlive their parents; the borrow checker does not even
//! let a QP builder outlive the CQ it names:
//!
//! ```compile_fail
//! use rnic_driver::{hw::fake::{FakeConfig, FakeHw}, Device};
//! use rnic_contract::codes::QpType;
//! let ctx = Device::from_hw(FakeHw::new(FakeConfig::default())).open().unwrap();
//! let pd = ctx.alloc_pd().unwrap();
//! let builder = {
//!     let cq = ctx.create_cq(8, None).unwrap();
//!     pd.create_qp(QpType::Rc, &cq, &cq)
//! };
//! builder.build().unwrap();
//! ```

#![deny(missing_docs)]

pub mod ah;
mod alloc;
pub mod buffer;
pub mod connect;
pub mod cq;
pub mod device;
mod error;
pub mod hw;
pub mod mr;
pub mod neigh;
pub mod pd;
pub mod qp;
pub mod qp_state;
pub mod wr;

pub use ah::{AddressHandle, AhAttr, Vlan};
pub use buffer::DmaBuffer;
pub use cq::{CompletionChannel, CompletionQueue, WorkCompletion};
pub use device::{
    device_list, ipv4_gid, link_local_gid, Context, ContextConfig, Counters, Device, DeviceAttr, Gid, PortAttr,
    PortState,
};
pub use error::{Error, Queue, Resource, Result};
pub use mr::{AccessFlags, MemoryRegion};
pub use pd::ProtectionDomain;
pub use qp::{QpAttr, QpBuilder, QpCap, QueuePair};
pub use qp_state::QpAttrMask;
pub use wr::{Payload, RecvWr, RemoteAddr, SendFlags, SendOp, SendWr, Sge, UdDest};
