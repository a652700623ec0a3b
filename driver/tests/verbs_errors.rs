//! Every verbs call's error paths, against the in-crate fake device: each
//! failure is the typed error that says what was wrong, nothing is half
//! done (a refused list posts nothing, a failed create gives its entries
//! back), and what the driver tells the device is in the contract's form.

use rnic_contract::codes::{
    ContextOp, ContextTable, DoorbellKind, Mtu, QpState, QpType, SendOpcode, WcOpcode, WcStatus,
};
use rnic_contract::layouts::{cqe, send_wqe};
use rnic_contract::regs::{self, id_features};
use rnic_driver::device::CTX_POLLS;
use rnic_driver::hw::fake::{CtxCommand, FakeConfig, FakeHandle, FakeHw};
use rnic_driver::hw::{DmaRegion, Hw, HwError, PAGE_SIZE};
use rnic_driver::*;
use std::time::Duration;

mod common;
use common::{counters_of, window_image, window_value, Hooked, HwHooks, DUMP_BEAT};

fn open(config: FakeConfig) -> (Context, FakeHandle) {
    open_with(config, ContextConfig::default())
}

fn open_with(config: FakeConfig, cc: ContextConfig) -> (Context, FakeHandle) {
    let hw = FakeHw::new(config);
    let h = hw.handle();
    (Device::from_hw(hw).open_with(cc).unwrap(), h)
}

fn without(features: &[rnic_contract::reg::Field<u32>]) -> FakeConfig {
    let mut c = FakeConfig::default();
    for f in features {
        c.features &= !f.mask();
    }
    c
}

fn to_rts(qp: &mut QueuePair, ctx: &Context) {
    qp.modify(&QpAttr::new().state(QpState::Init).pkey_index(0).port(1).access_flags(AccessFlags::NONE)).unwrap();
    qp.modify(
        &QpAttr::new()
            .state(QpState::ReadyToReceive)
            .av(AhAttr::new(ctx.query_gid(1, 0).unwrap(), [2, 0, 0, 0, 0, 1]))
            .path_mtu(Mtu::Mtu1024)
            .dest_qpn(9)
            .rq_psn(0)
            .max_dest_rd_atomic(1)
            .min_rnr_timer(1),
    )
    .unwrap();
    qp.modify(
        &QpAttr::new().state(QpState::ReadyToSend).sq_psn(0).timeout(1).retry_cnt(1).rnr_retry(1).max_rd_atomic(1),
    )
    .unwrap();
}

#[test]
fn open_refuses_another_device_and_gives_memory_back() {
    let hw = FakeHw::new(FakeConfig { magic: 0xDEAD_BEEF, ..FakeConfig::default() });
    assert_eq!(Device::from_hw(hw).open().unwrap_err(), Error::NotRnic { magic: 0xDEAD_BEEF });
    let hw = FakeHw::new(FakeConfig { version: rnic_contract::ABI_VERSION + 1, ..FakeConfig::default() });
    assert_eq!(
        Device::from_hw(hw).open().unwrap_err(),
        Error::AbiMismatch { device: rnic_contract::ABI_VERSION + 1, driver: rnic_contract::ABI_VERSION }
    );
    // A device that never finishes its reset-time clearing.
    let hw = FakeHw::new(FakeConfig { status: 0, ..FakeConfig::default() });
    let h = hw.handle();
    match Device::from_hw(hw).open().unwrap_err() {
        Error::NotReady { waited } => assert!(waited > rnic_driver::device::READY_TIMEOUT, "{waited:?}"),
        e => panic!("{e}"),
    }
    assert_eq!(h.regions(), 0, "the tables are freed");
    assert_eq!(h.register_writes().last(), Some(&(regs::ctrl::OFFSET, 0)), "and the device stopped");
    // Room for the QP context and state tables (192 KiB), not the rest (the replay table's 512 KiB comes next).
    let hw = FakeHw::new(FakeConfig { dma_bytes: 200 << 10, ..FakeConfig::default() });
    let h = hw.handle();
    assert!(matches!(Device::from_hw(hw).open().unwrap_err(), Error::Hw(HwError::NoMemory { .. })));
    assert_eq!(h.regions(), 0, "the tables allocated before the failure are freed");
    // Bring-up order: stop, tables, enable.
    let (ctx, h) = open(FakeConfig::default());
    let w = h.register_writes();
    assert_eq!(w.first(), Some(&(regs::ctrl::OFFSET, 0)));
    assert_eq!(w.last(), Some(&(regs::ctrl::OFFSET, regs::ctrl::ENABLE.mask())));
    let (qpc, log) = ctx.table_base(ContextTable::Qp);
    assert!(w.contains(&(regs::qpc_base_lo::OFFSET, qpc as u32)) && w.contains(&(regs::qpc_log_entries::OFFSET, log)));
    drop(ctx);
    assert_eq!(h.regions(), 0, "closing the last handle frees the tables");
    assert_eq!(h.register_writes().last(), Some(&(regs::ctrl::OFFSET, 0)), "and stops the device");
}

#[test]
fn queries_and_the_gid_table() {
    let (ctx, _) = open(FakeConfig { status: regs::status::READY.mask(), ..FakeConfig::default() });
    assert_eq!(
        ctx.query_port(1).unwrap(),
        PortAttr { state: PortState::Down, speed_gbps: 0, max_mtu: Mtu::Mtu4096, gid_tbl_len: 16, pkey_tbl_len: 1 }
    );
    assert_eq!(ctx.query_port(0), Err(Error::BadPort { port: 0 }));
    assert_eq!(ctx.query_gid(2, 0), Err(Error::BadPort { port: 2 }));
    assert_eq!(ctx.query_gid(1, 3), Err(Error::NoGid { index: 3 }));
    assert_eq!(ctx.query_gid(1, 99), Err(Error::NoGid { index: 99 }));
    let mac = FakeConfig::default().mac;
    assert_eq!(ctx.query_gid(1, 0).unwrap(), link_local_gid(mac));
    assert_eq!(ctx.query_device().mac, mac);
    assert!(matches!(ctx.set_gid(0, [0; 16]), Err(Error::TooLarge { what: "settable GID index", .. })));
    assert!(matches!(ctx.set_gid(16, [0; 16]), Err(Error::TooLarge { .. })));
    ctx.set_gid(3, ipv4_gid([192, 168, 1, 1])).unwrap();
    assert_eq!(ctx.query_gid(1, 3).unwrap()[12..], [192, 168, 1, 1]);
    // Calls from inside with_hw are refused, not a panic.
    assert_eq!(ctx.with_hw(|_| ctx.query_port(1)).unwrap(), Err(Error::Reentrant));
}

#[test]
fn buffers_check_their_bounds() {
    let (ctx, _) = open(FakeConfig::default());
    assert_eq!(ctx.alloc_buffer(0).unwrap_err(), Error::Zero { what: "buffer length" });
    let b = ctx.alloc_buffer(10).unwrap();
    assert_eq!(b.write(4090, &[0; 7]), Err(Error::OutOfRange { what: "buffer", offset: 4090, len: 7, size: 4096 }));
    assert!(b.read(usize::MAX, &mut [0; 2]).is_err(), "no overflow");
}

#[test]
fn memory_regions() {
    let (ctx, h) =
        open_with(FakeConfig::default(), ContextConfig { log_mrs: 1, log_mtt: 3, ..ContextConfig::default() });
    let pd = ctx.alloc_pd().unwrap();
    let buf = ctx.alloc_buffer(16 * PAGE_SIZE).unwrap();
    let lw = AccessFlags::LOCAL_WRITE;
    assert_eq!(pd.reg_mr(&buf, 0, 0, lw).unwrap_err(), Error::Zero { what: "memory region length" });
    assert_eq!(
        pd.reg_mr(&buf, 16 * PAGE_SIZE - 1, 2, lw).unwrap_err(),
        Error::OutOfRange { what: "buffer", offset: 16 * PAGE_SIZE as u64 - 1, len: 2, size: 16 * PAGE_SIZE as u64 }
    );
    for a in [AccessFlags::REMOTE_WRITE, AccessFlags::REMOTE_ATOMIC] {
        assert!(matches!(pd.reg_mr(&buf, 0, 8, a), Err(Error::BadAttribute { attr: "access", .. })));
    }
    assert!(matches!(
        pd.reg_mr(&buf, 0, 8, AccessFlags(0x100)),
        Err(Error::BadAttribute { reason: "unknown access bits", .. })
    ));
    // 8 MTT entries: 9 pages do not fit.
    assert_eq!(
        pd.reg_mr(&buf, 0, 9 * PAGE_SIZE, lw).unwrap_err(),
        Error::TooLarge { what: "memory region pages", requested: 9, max: 8 }
    );
    // A buffer of another context.
    let (other, _) = open(FakeConfig::default());
    let foreign = other.alloc_buffer(64).unwrap();
    assert_eq!(pd.reg_mr(&foreign, 0, 8, lw).unwrap_err(), Error::Mismatch { what: "buffer" });

    // Register: MTT entries, one Load spanning them, the MPT entry, then a
    // Load of it (TRANSLATION).
    let a = pd.reg_mr(&buf, 0, 5 * PAGE_SIZE, lw).unwrap();
    assert_eq!(
        h.commands(),
        [
            CtxCommand { op: ContextOp::Load, table: ContextTable::Mtt, index: 0, count: 5, failed: false },
            CtxCommand { op: ContextOp::Load, table: ContextTable::Mpt, index: a.mpt_index(), count: 1, failed: false }
        ]
    );
    // 5 of 8 pages used: 4 more do not fit, 3 do.
    assert_eq!(
        pd.reg_mr(&buf, 0, 4 * PAGE_SIZE, lw).unwrap_err(),
        Error::Exhausted { resource: Resource::Mtt, capacity: 8 }
    );
    assert_eq!(ctx.in_use(Resource::Mpt), 1, "a failed registration gives its slot back");
    let b = pd.reg_mr(&buf, 0, 3 * PAGE_SIZE, lw).unwrap();
    assert_eq!(pd.reg_mr(&buf, 0, 1, lw).unwrap_err(), Error::Exhausted { resource: Resource::Mpt, capacity: 2 });
    assert_eq!(ctx.in_use(Resource::Mtt), 8);
    drop(b);
    let c = pd.reg_mr(&buf, 0, 1, lw).unwrap();
    assert_eq!(pd.reg_mr(&buf, 0, 1, lw).unwrap_err(), Error::Exhausted { resource: Resource::Mpt, capacity: 2 });

    // Deregister: Invalidate of the MPT entry, then one spanning the
    // region's 5 MTT entries.
    let n = h.commands().len();
    let (slot, key) = (a.mpt_index(), a.lkey());
    a.deregister().unwrap();
    let cmds: Vec<_> = h.commands()[n..].iter().map(|c| (c.op, c.table, c.index, c.count)).collect();
    assert_eq!(
        cmds,
        [(ContextOp::Invalidate, ContextTable::Mpt, slot, 1), (ContextOp::Invalidate, ContextTable::Mtt, 0, 5)]
    );
    let again = pd.reg_mr(&buf, 0, 1, lw).unwrap();
    assert_eq!(again.mpt_index(), slot);
    assert_ne!(again.lkey(), key, "a fresh tag");

    // A refused Load (the first: of the region's MTT line) fails the
    // registration and frees the slot.
    drop(again);
    h.fail_next_ctx();
    let e = pd.reg_mr(&buf, 0, 1, lw).unwrap_err();
    assert!(matches!(e, Error::ContextCommand { op: ContextOp::Load, table: ContextTable::Mtt, .. }), "{e:?}");
    assert_eq!(ctx.in_use(Resource::Mpt), 1, "only c");
    // A refused Invalidate keeps the slot reserved: the device may hold it.
    h.fail_next_ctx();
    assert!(matches!(c.deregister(), Err(Error::ContextCommand { op: ContextOp::Invalidate, .. })));
    assert_eq!(ctx.in_use(Resource::Mpt), 1);
    // A command that stays busy times out.
    h.busy_for(CTX_POLLS + 5);
    assert!(matches!(pd.reg_mr(&buf, 0, 1, lw), Err(Error::ContextTimeout { polls: CTX_POLLS, .. })));
}

#[test]
fn memory_regions_without_translation_skip_the_commands() {
    let (ctx, h) = open(without(&[id_features::TRANSLATION]));
    let pd = ctx.alloc_pd().unwrap();
    let buf = ctx.alloc_buffer(64).unwrap();
    let mr = pd.reg_mr(&buf, 0, 64, AccessFlags::NONE).unwrap();
    mr.deregister().unwrap();
    assert!(h.commands().is_empty());
}

#[test]
fn completion_queues_and_channels() {
    let (ctx, h) = open_with(
        FakeConfig { irq_vectors: 3, ..FakeConfig::default() },
        ContextConfig { log_cqs: 1, ..ContextConfig::default() },
    );
    assert_eq!(ctx.create_cq(0, None).unwrap_err(), Error::Zero { what: "cqe" });
    assert_eq!(
        ctx.create_cq(1 << 16, None).unwrap_err(),
        Error::TooLarge { what: "cqe", requested: 1 << 16, max: 1 << 15 }
    );
    // vectors 1 and 2 (0 is the events vector)
    let ch = ctx.create_comp_channel().unwrap();
    let _ch2 = ctx.create_comp_channel().unwrap();
    assert_eq!(ctx.create_comp_channel().unwrap_err(), Error::Exhausted { resource: Resource::Vector, capacity: 2 });
    let (other, _) = open(FakeConfig::default());
    let foreign = other.create_comp_channel().unwrap();
    assert_eq!(ctx.create_cq(4, Some(&foreign)).unwrap_err(), Error::Mismatch { what: "completion channel" });
    h.fail_next_ctx();
    assert!(matches!(
        ctx.create_cq(4, None),
        Err(Error::ContextCommand { op: ContextOp::Load, table: ContextTable::Cq, .. })
    ));
    assert_eq!(ctx.in_use(Resource::Cq), 0);
    let cq = ctx.create_cq(3, Some(&ch)).unwrap();
    assert_eq!(cq.capacity(), 4);
    let plain = ctx.create_cq(4, None).unwrap();
    assert_eq!(ctx.create_cq(4, None).unwrap_err(), Error::Exhausted { resource: Resource::Cq, capacity: 2 });
    assert_eq!(plain.req_notify(false), Err(Error::NoChannel { cqn: plain.cqn() }));
    assert_eq!(ch.get_event(Duration::from_micros(5)), Err(Error::Timeout { what: "completion event" }));

    // Polling: owner bits across a wrap of the 4-entry ring, consumer doorbells.
    for round in 0..3u64 {
        for i in 0..3u64 {
            let mut e = [0u8; cqe::SIZE];
            cqe::WR_ID.set(&mut e, round * 10 + i).unwrap();
            assert!(h.complete(cq.cqn(), e));
        }
        let wcs = cq.poll(2).unwrap();
        assert_eq!(wcs.iter().map(|w| w.wr_id).collect::<Vec<_>>(), [round * 10, round * 10 + 1], "at most max");
        assert_eq!(cq.poll(8).unwrap()[0].wr_id, round * 10 + 2);
        assert!(cq.poll(8).unwrap().is_empty());
    }
    assert_eq!(cq.consumer_index(), 9);
    let last = h.doorbells().into_iter().rev().find(|d| d.kind == DoorbellKind::CqConsumer).unwrap();
    assert_eq!((last.queue, last.index), (cq.cqn(), 9));
    // Arm with solicited only: the doorbell carries it.
    cq.req_notify(true).unwrap();
    let d = *h.doorbells().last().unwrap();
    assert_eq!((d.kind, d.index, d.solicited), (DoorbellKind::CqArm, 9, true));

    // A CQE that does not decode is an error, consumed; polling goes on.
    let mut bad = [0u8; cqe::SIZE];
    bad[cqe::STATUS.byte] = 0xEE;
    assert!(h.complete(cq.cqn(), bad));
    let mut good = [0u8; cqe::SIZE];
    cqe::WR_ID.set(&mut good, 77).unwrap();
    cqe::STATUS.set(&mut good, WcStatus::WrFlushErr).unwrap();
    assert!(h.complete(cq.cqn(), good));
    let e = cq.poll(8).unwrap_err();
    assert!(
        matches!(
            e,
            Error::BadCqe { index: 9, error: rnic_contract::Error::UnknownCode { field: "STATUS", value: 0xEE }, .. }
        ),
        "{e:?}"
    );
    let w = cq.poll(8).unwrap();
    assert_eq!((w[0].wr_id, w[0].status, w[0].opcode), (77, WcStatus::WrFlushErr, None));
    // its OPCODE (0: SEND) still names its queue
    assert_eq!(w[0].queue, Some(Queue::Send));
}

/// Error completions on a CQ a QP's two queues share free the right queue's
/// slots: the device writes each WQE's kind in OPCODE on errors too (its
/// receive bit names the queue), so a QP flushed in ERR can be posted to
/// again and again (found by session 32's 10^4-message run: a send queue
/// full with nothing outstanding after its flush).
#[test]
fn error_completions_on_a_shared_cq_free_their_queue_by_the_opcode_kind() {
    let (ctx, h) = open(FakeConfig::default());
    let pd = ctx.alloc_pd().unwrap();
    let cq = ctx.create_cq(64, None).unwrap();
    let mut qp = pd.create_qp(QpType::Rc, &cq, &cq).max_send_wr(4).max_recv_wr(4).build().unwrap();
    qp.modify(&QpAttr::new().state(QpState::Init).pkey_index(0).port(1).access_flags(AccessFlags::NONE)).unwrap();
    qp.modify(&QpAttr::new().state(QpState::Error)).unwrap();
    let mr_buf = ctx.alloc_buffer(4096).unwrap();
    let mr = pd.reg_mr(&mr_buf, 0, 4096, AccessFlags::LOCAL_WRITE).unwrap();
    let sge = [Sge::new(&mr, 0, 8).unwrap()];
    let qpn = qp.qp_num();
    let flush = |index: u16, kind: WcOpcode, wr_id: u64| {
        let mut e = [0u8; cqe::SIZE];
        cqe::WR_ID.set(&mut e, wr_id).unwrap();
        cqe::STATUS.set(&mut e, WcStatus::WrFlushErr).unwrap();
        cqe::OPCODE.set(&mut e, kind).unwrap();
        cqe::QPN.set(&mut e, qpn).unwrap();
        cqe::WQE_INDEX.set(&mut e, index).unwrap();
        assert!(h.complete(cq.cqn(), e));
    };
    // three rounds of four sends and four receives, each flushed by the device
    for round in 0..3u16 {
        let sends: Vec<SendWr> = (0..4).map(|k| SendWr::new(k, SendOp::Send, &sge)).collect();
        qp.post_send(&sends).unwrap();
        let recvs: Vec<RecvWr> = (0..4).map(|k| RecvWr { wr_id: 100 + k, sg_list: &sge }).collect();
        qp.post_recv(&recvs).unwrap();
        assert!(matches!(
            qp.post_send(&[SendWr::new(9, SendOp::Send, &sge)]),
            Err(Error::QueueFull { queue: Queue::Send, .. })
        ));
        for k in 0..4u16 {
            flush(4 * round + k, WcOpcode::RdmaWrite, k as u64);
            flush(4 * round + k, WcOpcode::Recv, 100 + k as u64);
        }
        let w = cq.poll(16).unwrap();
        assert_eq!(w.len(), 8);
        assert!(w.iter().all(|c| c.status == WcStatus::WrFlushErr && c.opcode.is_none()));
        let queues: Vec<Option<Queue>> = w.iter().map(|c| c.queue).collect();
        assert_eq!(queues, [Some(Queue::Send), Some(Queue::Recv)].repeat(4), "round {round}");
    }
}

#[test]
fn queue_pair_creation() {
    let (ctx, h) = open_with(
        without(&[id_features::UC, id_features::UD]),
        ContextConfig { log_qps: 2, ..ContextConfig::default() },
    );
    let pd = ctx.alloc_pd().unwrap();
    let cq = ctx.create_cq(8, None).unwrap();
    assert_eq!(pd.create_qp(QpType::Uc, &cq, &cq).build().unwrap_err(), Error::Unsupported { feature: "UC" });
    assert_eq!(pd.create_qp(QpType::Ud, &cq, &cq).build().unwrap_err(), Error::Unsupported { feature: "UD" });
    let rc = || pd.create_qp(QpType::Rc, &cq, &cq);
    assert_eq!(rc().max_send_wr(0).build().unwrap_err(), Error::Zero { what: "max_send_wr" });
    assert_eq!(rc().max_recv_wr(0).build().unwrap_err(), Error::Zero { what: "max_recv_wr" });
    assert_eq!(
        rc().max_recv_wr(40000).build().unwrap_err(),
        Error::TooLarge { what: "max_recv_wr", requested: 40000, max: 1 << 15 }
    );
    assert_eq!(
        rc().max_send_sge(5).build().unwrap_err(),
        Error::TooLarge { what: "max_send_sge", requested: 5, max: 4 }
    );
    assert_eq!(
        rc().max_recv_sge(4).build().unwrap_err(),
        Error::TooLarge { what: "max_recv_sge", requested: 4, max: 3 }
    );
    assert_eq!(
        rc().max_inline_data(65).build().unwrap_err(),
        Error::TooLarge { what: "max_inline_data", requested: 65, max: 64 }
    );
    let (other, _) = open(FakeConfig::default());
    let foreign = other.create_cq(4, None).unwrap();
    assert_eq!(
        pd.create_qp(QpType::Rc, &cq, &foreign).build().unwrap_err(),
        Error::Mismatch { what: "completion queue" }
    );
    let regions = h.regions();
    let a = rc().max_send_wr(5).build().unwrap();
    assert_eq!(a.cap().max_send_wr, 8, "rounded up");
    assert_eq!(a.qp_num(), 2, "QP 0 and 1 are reserved");
    let _b = rc().build().unwrap();
    assert_eq!(rc().build().unwrap_err(), Error::Exhausted { resource: Resource::Qp, capacity: 2 });
    assert_eq!(h.regions(), regions + 4, "a failed create leaves no ring behind");
    drop(a);
    assert_eq!(h.regions(), regions + 2);
    assert!(rc().build().is_ok());
    let (ctx2, _) = open(without(&[id_features::INLINE]));
    let pd2 = ctx2.alloc_pd().unwrap();
    let cq2 = ctx2.create_cq(8, None).unwrap();
    assert_eq!(
        pd2.create_qp(QpType::Rc, &cq2, &cq2).max_inline_data(1).build().unwrap_err(),
        Error::Unsupported { feature: "INLINE" }
    );
    assert_eq!(ctx2.query_device().max_inline_data, 0);
}

#[test]
fn modify_checks_transitions_attributes_and_values() {
    let (ctx, h) = open(without(&[id_features::ATOMICS]));
    let pd = ctx.alloc_pd().unwrap();
    let cq = ctx.create_cq(8, None).unwrap();
    let mut qp = pd.create_qp(QpType::Rc, &cq, &cq).build().unwrap();
    use QpState::{Init, ReadyToReceive, ReadyToSend, Reset};
    assert_eq!(
        qp.modify(&QpAttr::new().state(ReadyToSend)).unwrap_err(),
        Error::InvalidTransition { qp_type: QpType::Rc, from: Reset, to: ReadyToSend }
    );
    assert_eq!(
        qp.modify(&QpAttr::new().state(Init).port(1).pkey_index(0)).unwrap_err(),
        Error::MissingAttribute { from: Reset, to: Init, attr: "ACCESS_FLAGS" }
    );
    let init = QpAttr::new().state(Init).port(1).pkey_index(0).access_flags(AccessFlags::NONE);
    assert_eq!(
        qp.modify(&init.qkey(5)).unwrap_err(),
        Error::AttributeNotAllowed { from: Reset, to: Init, attr: "QKEY" }
    );
    assert!(matches!(qp.modify(&init.port(2)), Err(Error::BadAttribute { attr: "port_num", value: 2, .. })));
    assert!(matches!(qp.modify(&init.pkey_index(1)), Err(Error::BadAttribute { attr: "pkey_index", .. })));
    assert!(matches!(
        qp.modify(&init.access_flags(AccessFlags(0x40))),
        Err(Error::BadAttribute { attr: "qp_access_flags", .. })
    ));
    assert_eq!(
        qp.modify(&init.access_flags(AccessFlags::REMOTE_ATOMIC)).unwrap_err(),
        Error::Unsupported { feature: "ATOMICS" }
    );
    assert!(matches!(qp.modify(&init.cur_state(Init)), Err(Error::AttributeNotAllowed { attr: "CUR_STATE", .. })));
    assert_eq!(qp.state(), Reset, "nothing changed");
    assert!(h.commands().iter().all(|c| c.table != ContextTable::Qp), "nothing sent to the device");
    // A refused Load leaves the QP where it was.
    h.fail_next_ctx();
    assert!(matches!(
        qp.modify(&init),
        Err(Error::ContextCommand { op: ContextOp::Load, table: ContextTable::Qp, .. })
    ));
    assert_eq!(qp.state(), Reset);
    qp.modify(&init).unwrap();
    // INIT -> RTR with bad values, each named.
    let av = AhAttr::new(ctx.query_gid(1, 0).unwrap(), [2, 0, 0, 0, 0, 1]);
    let rtr = QpAttr::new()
        .state(ReadyToReceive)
        .av(av)
        .path_mtu(Mtu::Mtu4096)
        .dest_qpn(3)
        .rq_psn(0)
        .max_dest_rd_atomic(1)
        .min_rnr_timer(0);
    assert!(matches!(
        qp.modify(&rtr.rq_psn(1 << 24)),
        Err(Error::BadAttribute { attr: "rq_psn", value: 0x100_0000, .. })
    ));
    assert!(matches!(qp.modify(&rtr.dest_qpn(1 << 24)), Err(Error::BadAttribute { attr: "dest_qp_num", .. })));
    assert!(matches!(qp.modify(&rtr.min_rnr_timer(32)), Err(Error::BadAttribute { attr: "min_rnr_timer", .. })));
    let mut no_gid = av;
    no_gid.sgid_index = 5;
    assert_eq!(qp.modify(&rtr.av(no_gid)).unwrap_err(), Error::NoGid { index: 5 });
    let alt = rtr.with_mask(rtr.mask() | QpAttrMask::ALT_PATH);
    assert_eq!(qp.modify(&alt).unwrap_err(), Error::Unsupported { feature: "alternate paths (ALT_PATH)" });
    qp.modify(&rtr).unwrap();
    let rts = QpAttr::new().state(ReadyToSend).sq_psn(0).timeout(0).retry_cnt(0).rnr_retry(0).max_rd_atomic(0);
    assert!(matches!(qp.modify(&rts.retry_cnt(8)), Err(Error::BadAttribute { attr: "retry_cnt", value: 8, .. })));
    assert!(matches!(qp.modify(&rts.timeout(32)), Err(Error::BadAttribute { attr: "timeout", .. })));
    assert!(matches!(qp.modify(&rts.cur_state(Init)), Err(Error::BadAttribute { attr: "cur_qp_state", .. })));
    qp.modify(&rts.cur_state(ReadyToReceive)).unwrap();
    // Each modify after the first took the device's state back first.
    let qp_cmds: Vec<ContextOp> =
        h.commands().iter().filter(|c| c.table == ContextTable::Qp && !c.failed).map(|c| c.op).collect();
    assert_eq!(qp_cmds, [ContextOp::Load, ContextOp::Store, ContextOp::Load, ContextOp::Store, ContextOp::Load]);
    // Back to RESET: the device forgets the QP.
    qp.modify(&QpAttr::new().state(Reset)).unwrap();
    assert_eq!(h.commands().last().map(|c| (c.op, c.table)), Some((ContextOp::Invalidate, ContextTable::Qp)));
    assert_eq!(qp.producer_indices(), (0, 0));
}

#[test]
fn posting_checks_every_request_and_posts_all_or_nothing() {
    let (ctx, h) = open(without(&[id_features::ATOMICS]));
    let pd = ctx.alloc_pd().unwrap();
    let cq = ctx.create_cq(8, None).unwrap();
    let buf = ctx.alloc_buffer(PAGE_SIZE).unwrap();
    let mr = pd.reg_mr(&buf, 0, 1024, AccessFlags::LOCAL_WRITE).unwrap();
    assert_eq!(
        Sge::new(&mr, 1000, 25),
        Err(Error::OutOfRange { what: "memory region", offset: 1000, len: 25, size: 1024 })
    );
    let sge = Sge::new(&mr, 0, 8).unwrap();
    let mut qp = pd
        .create_qp(QpType::Rc, &cq, &cq)
        .max_send_wr(4)
        .max_recv_wr(2)
        .max_send_sge(2)
        .max_recv_sge(1)
        .max_inline_data(16)
        .build()
        .unwrap();
    let send = SendWr::new(1, SendOp::Send, std::slice::from_ref(&sge));
    let recv = RecvWr { wr_id: 1, sg_list: std::slice::from_ref(&sge) };
    assert_eq!(
        qp.post_recv(&[recv]).unwrap_err(),
        Error::WrongStateToPost { queue: Queue::Recv, qpn: qp.qp_num(), state: QpState::Reset }
    );
    qp.modify(&QpAttr::new().state(QpState::Init).port(1).pkey_index(0).access_flags(AccessFlags::NONE)).unwrap();
    assert_eq!(
        qp.post_send(&[send]).unwrap_err(),
        Error::WrongStateToPost { queue: Queue::Send, qpn: qp.qp_num(), state: QpState::Init }
    );
    let two = [sge, sge];
    assert_eq!(
        qp.post_recv(&[recv, RecvWr { wr_id: 2, sg_list: &two }]).unwrap_err(),
        Error::TooManySges { queue: Queue::Recv, wr: 1, given: 2, max: 1 }
    );
    assert_eq!(qp.producer_indices(), (0, 0), "nothing of a refused list is posted");
    assert_eq!(
        qp.post_recv(&[recv, recv, recv]).unwrap_err(),
        Error::QueueFull { queue: Queue::Recv, qpn: qp.qp_num(), wr: 2, depth: 2 }
    );
    qp.post_recv(&[recv, recv]).unwrap();
    assert_eq!(h.doorbells().last().map(|d| (d.kind, d.index)), Some((DoorbellKind::RqProducer, 2)));
    qp.modify(
        &QpAttr::new()
            .state(QpState::ReadyToReceive)
            .av(AhAttr::new(ctx.query_gid(1, 0).unwrap(), [0; 6]))
            .path_mtu(Mtu::Mtu256)
            .dest_qpn(5)
            .rq_psn(0)
            .max_dest_rd_atomic(0)
            .min_rnr_timer(0),
    )
    .unwrap();
    qp.modify(
        &QpAttr::new().state(QpState::ReadyToSend).sq_psn(0).timeout(0).retry_cnt(0).rnr_retry(0).max_rd_atomic(0),
    )
    .unwrap();

    let three = [sge, sge, sge];
    let remote = RemoteAddr { addr: 0x1000, rkey: 7 };
    let cases: Vec<(SendWr, Error)> = vec![
        (SendWr::new(1, SendOp::Send, &three), Error::TooManySges { queue: Queue::Send, wr: 1, given: 3, max: 2 }),
        (SendWr::inline(1, SendOp::Send, &[0; 17]), Error::InlineTooLong { wr: 1, len: 17, max: 16 }),
        (
            SendWr::inline(1, SendOp::RdmaRead { remote }, &[0; 4]),
            Error::BadWorkRequest { wr: 1, reason: "inline data on an operation that reads into local memory" },
        ),
        (
            SendWr::new(1, SendOp::AtomicFetchAndAdd { remote, add: 1 }, std::slice::from_ref(&sge)),
            Error::Unsupported { feature: "ATOMICS" },
        ),
        (send.flags(SendFlags(0x80)), Error::BadWorkRequest { wr: 1, reason: "unknown send flags" }),
    ];
    for (wr, err) in cases {
        assert_eq!(qp.post_send(&[send, wr]).unwrap_err(), err);
        assert_eq!(qp.producer_indices().0, 0);
    }
    assert_eq!(
        qp.post_send(&[send; 5]).unwrap_err(),
        Error::QueueFull { queue: Queue::Send, qpn: qp.qp_num(), wr: 4, depth: 4 }
    );
    // Inline data lands in the WQE.
    qp.post_send(&[SendWr::inline(9, SendOp::Send, b"inline!").flags(SendFlags::NONE)]).unwrap();
    let (sq, _) = qp.ring_iovas();
    let wqe = h.read_iova(sq, send_wqe::SIZE).unwrap();
    assert_eq!(send_wqe::INLINE.get(&wqe), Ok(true));
    assert_eq!(send_wqe::INLINE_LEN.get(&wqe), Ok(7));
    assert_eq!(send_wqe::SIGNALED.get(&wqe), Ok(false));
    assert_eq!(send_wqe::OPCODE.get(&wqe), Ok(SendOpcode::Send));
    assert_eq!(&wqe[send_wqe::SGES.byte..send_wqe::SGES.byte + 7], b"inline!");
    assert_eq!(
        h.doorbells().last().map(|d| (d.kind, d.queue, d.index)),
        Some((DoorbellKind::SqProducer, qp.qp_num(), 1))
    );
    assert_eq!(h.bad_doorbells(), 0);
}

#[test]
fn operations_follow_the_qp_type() {
    let (ctx, _) = open(FakeConfig::default());
    let pd = ctx.alloc_pd().unwrap();
    let cq = ctx.create_cq(8, None).unwrap();
    let buf = ctx.alloc_buffer(PAGE_SIZE).unwrap();
    let mr = pd.reg_mr(&buf, 0, 64, AccessFlags::LOCAL_WRITE).unwrap();
    let s8 = Sge::new(&mr, 0, 8).unwrap();
    let s4 = Sge::new(&mr, 0, 4).unwrap();
    let remote = RemoteAddr { addr: 0x1000, rkey: 7 };
    let mut rc = pd.create_qp(QpType::Rc, &cq, &cq).build().unwrap();
    to_rts(&mut rc, &ctx);
    let misaligned = RemoteAddr { addr: 0x1004, rkey: 7 };
    assert_eq!(
        rc.post_send(&[SendWr::new(1, SendOp::AtomicCmpAndSwp { remote: misaligned, compare: 0, swap: 1 }, &[s8])])
            .unwrap_err(),
        Error::BadWorkRequest { wr: 0, reason: "atomic remote address not 8-byte aligned" }
    );
    assert_eq!(
        rc.post_send(&[SendWr::new(1, SendOp::AtomicFetchAndAdd { remote, add: 1 }, &[s4])]).unwrap_err(),
        Error::BadWorkRequest { wr: 0, reason: "an atomic takes exactly one 8-byte SGE" }
    );
    rc.post_send(&[SendWr::new(1, SendOp::AtomicFetchAndAdd { remote, add: 1 }, &[s8])]).unwrap();

    let mut uc = pd.create_qp(QpType::Uc, &cq, &cq).build().unwrap();
    uc.modify(&QpAttr::new().state(QpState::Init).port(1).pkey_index(0).access_flags(AccessFlags::NONE)).unwrap();
    uc.modify(
        &QpAttr::new()
            .state(QpState::ReadyToReceive)
            .av(AhAttr::new(ctx.query_gid(1, 0).unwrap(), [0; 6]))
            .path_mtu(Mtu::Mtu256)
            .dest_qpn(5)
            .rq_psn(0),
    )
    .unwrap();
    uc.modify(&QpAttr::new().state(QpState::ReadyToSend).sq_psn(0)).unwrap();
    assert_eq!(
        uc.post_send(&[SendWr::new(1, SendOp::RdmaRead { remote }, &[s8])]).unwrap_err(),
        Error::OpcodeNotForQpType { wr: 0, opcode: "RdmaRead", qp_type: QpType::Uc }
    );

    let mut ud = pd.create_qp(QpType::Ud, &cq, &cq).build().unwrap();
    ud.modify(&QpAttr::new().state(QpState::Init).port(1).pkey_index(0).qkey(0x1111)).unwrap();
    ud.modify(&QpAttr::new().state(QpState::ReadyToReceive)).unwrap();
    ud.modify(&QpAttr::new().state(QpState::ReadyToSend).sq_psn(0)).unwrap();
    assert_eq!(
        ud.post_send(&[SendWr::new(1, SendOp::Send, &[s8])]).unwrap_err(),
        Error::BadWorkRequest { wr: 0, reason: "a UD send needs a destination" }
    );
    let ah = pd.create_ah(&AhAttr::new(ctx.query_gid(1, 0).unwrap(), [2, 0, 0, 0, 0, 3])).unwrap();
    let dest = UdDest { ah: &ah, remote_qpn: 0x77, remote_qkey: 0x1111 };
    assert_eq!(
        rc.post_send(&[SendWr::new(1, SendOp::Send, &[s8]).to(dest)]).unwrap_err(),
        Error::BadWorkRequest { wr: 0, reason: "a UD destination on a connected QP" }
    );
    let other_pd = ctx.alloc_pd().unwrap();
    let foreign_ah = other_pd.create_ah(&AhAttr::new(ctx.query_gid(1, 0).unwrap(), [0; 6])).unwrap();
    assert_eq!(
        ud.post_send(&[SendWr::new(1, SendOp::Send, &[s8]).to(UdDest { ah: &foreign_ah, ..dest })]).unwrap_err(),
        Error::Mismatch { what: "address handle" }
    );
    assert!(matches!(
        ud.post_send(&[SendWr::new(1, SendOp::Send, &[s8]).to(UdDest { remote_qpn: 1 << 24, ..dest })]),
        Err(Error::BadAttribute { attr: "remote_qpn", .. })
    ));
    ud.post_send(&[SendWr::new(5, SendOp::SendWithImm { imm: 0xAB }, &[s8]).to(dest)]).unwrap();
    assert_eq!(
        ud.post_send(&[SendWr::new(1, SendOp::RdmaWrite { remote }, &[s8]).to(dest)]).unwrap_err(),
        Error::OpcodeNotForQpType { wr: 0, opcode: "RdmaWrite", qp_type: QpType::Ud }
    );
}

#[test]
fn address_handles() {
    let (ctx, _) = open(without(&[id_features::IPV6, id_features::VLAN]));
    ctx.set_gid(1, ipv4_gid([10, 0, 0, 1])).unwrap();
    let pd = ctx.alloc_pd().unwrap();
    let v4 = AhAttr { sgid_index: 1, ..AhAttr::new(ipv4_gid([10, 0, 0, 2]), [0; 6]) };
    assert!(pd.create_ah(&v4).is_ok());
    assert_eq!(pd.create_ah(&AhAttr { sgid_index: 0, ..v4 }).unwrap_err(), Error::Unsupported { feature: "IPV6" });
    assert_eq!(pd.create_ah(&AhAttr { sgid_index: 9, ..v4 }).unwrap_err(), Error::NoGid { index: 9 });
    assert_eq!(
        pd.create_ah(&AhAttr { vlan: Some(Vlan { id: 5, pcp: 0 }), ..v4 }).unwrap_err(),
        Error::Unsupported { feature: "VLAN" }
    );
    let (ctx, _) = open(FakeConfig::default());
    ctx.set_gid(1, ipv4_gid([10, 0, 0, 1])).unwrap();
    let pd = ctx.alloc_pd().unwrap();
    assert!(matches!(
        pd.create_ah(&AhAttr { sgid_index: 0, ..v4 }),
        Err(Error::BadAttribute { reason: "source and destination GIDs of different IP versions", .. })
    ));
    assert!(matches!(
        pd.create_ah(&AhAttr { vlan: Some(Vlan { id: 4096, pcp: 0 }), ..v4 }),
        Err(Error::BadAttribute { attr: "vlan.id", .. })
    ));
    assert!(matches!(
        pd.create_ah(&AhAttr { flow_label: 1 << 20, ..v4 }),
        Err(Error::BadAttribute { attr: "flow_label", .. })
    ));
    let (ctx, _) = open_with(FakeConfig::default(), ContextConfig { log_ahs: 0, ..ContextConfig::default() });
    let pd = ctx.alloc_pd().unwrap();
    let g = ctx.query_gid(1, 0).unwrap();
    let a = pd.create_ah(&AhAttr::new(g, [0; 6])).unwrap();
    assert_eq!(
        pd.create_ah(&AhAttr::new(g, [0; 6])).unwrap_err(),
        Error::Exhausted { resource: Resource::Ah, capacity: 1 }
    );
    drop(a);
    assert!(pd.create_ah(&AhAttr::new(g, [0; 6])).is_ok());
}

#[test]
fn destructor_failures_are_kept_for_the_caller() {
    let (ctx, h) = open(FakeConfig::default());
    let pd = ctx.alloc_pd().unwrap();
    let cq = ctx.create_cq(8, None).unwrap();
    let mut qp = pd.create_qp(QpType::Rc, &cq, &cq).build().unwrap();
    qp.modify(&QpAttr::new().state(QpState::Init).port(1).pkey_index(0).access_flags(AccessFlags::NONE)).unwrap();
    let qpn = qp.qp_num();
    h.fail_next_ctx();
    drop(qp);
    assert_eq!(
        ctx.take_teardown_errors(),
        [Error::ContextCommand { op: ContextOp::Invalidate, table: ContextTable::Qp, index: qpn }]
    );
    assert!(ctx.take_teardown_errors().is_empty(), "taken once");
    assert_eq!(ctx.in_use(Resource::Qp), 1, "a QP the device may still hold keeps its number");
    // The CQ outlives every QP on it; dropping the last handle invalidates it.
    drop(cq);
    assert_eq!(h.commands().last().map(|c| (c.op, c.table)), Some((ContextOp::Invalidate, ContextTable::Cq)));
}

#[test]
fn errors_say_what_was_wrong() {
    let text = Error::QueueFull { queue: Queue::Send, qpn: 7, wr: 3, depth: 8 }.to_string();
    assert_eq!(text, "QP 7 Send queue full (8 entries) at work request 3; nothing posted");
    assert_eq!(
        Error::MissingAttribute { from: QpState::Init, to: QpState::ReadyToReceive, attr: "PATH_MTU" }.to_string(),
        "Init -> ReadyToReceive needs PATH_MTU"
    );
    assert_eq!(
        Error::Hw(HwError::Os { op: "VFIO_IOMMU_MAP_DMA".into(), errno: libc::ENOMEM }).to_string(),
        format!(
            "hardware: VFIO_IOMMU_MAP_DMA: OS error {} ({})",
            libc::ENOMEM,
            std::io::Error::from_raw_os_error(libc::ENOMEM)
        )
    );
}

/// A backend that fails the next call of one kind, to reach every verbs
/// call's `Error::Hw` path (the fake itself never fails a register access).
struct Flaky {
    arm: std::rc::Rc<std::cell::Cell<Option<&'static str>>>,
}

impl Flaky {
    fn check(&self, call: &'static str) -> std::result::Result<(), HwError> {
        if self.arm.get() == Some(call) {
            self.arm.set(None);
            return Err(HwError::Os { op: call.into(), errno: libc::EIO });
        }
        Ok(())
    }
}

impl HwHooks for Flaky {
    fn read32(&mut self, inner: &mut FakeHw, offset: u32) -> std::result::Result<u32, HwError> {
        self.check("read32")?;
        inner.read32(offset)
    }
    fn write32(&mut self, inner: &mut FakeHw, offset: u32, value: u32) -> std::result::Result<(), HwError> {
        self.check("write32")?;
        inner.write32(offset, value)
    }
    fn write64(&mut self, inner: &mut FakeHw, offset: u32, value: u64) -> std::result::Result<(), HwError> {
        self.check("write64")?;
        inner.write64(offset, value)
    }
    fn alloc_dma(&mut self, inner: &mut FakeHw, len: usize) -> std::result::Result<DmaRegion, HwError> {
        self.check("alloc_dma")?;
        inner.alloc_dma(len)
    }
    fn free_dma(&mut self, inner: &mut FakeHw, region: &DmaRegion) -> std::result::Result<(), HwError> {
        self.check("free_dma")?;
        inner.free_dma(region)
    }
    fn dma_write(
        &mut self,
        inner: &mut FakeHw,
        region: &DmaRegion,
        offset: usize,
        data: &[u8],
    ) -> std::result::Result<(), HwError> {
        self.check("dma_write")?;
        inner.dma_write(region, offset, data)
    }
    fn dma_read(
        &mut self,
        inner: &mut FakeHw,
        region: &DmaRegion,
        offset: usize,
        buf: &mut [u8],
    ) -> std::result::Result<(), HwError> {
        self.check("dma_read")?;
        inner.dma_read(region, offset, buf)
    }
    fn wait_irq(&mut self, inner: &mut FakeHw, vector: u16, timeout: Duration) -> std::result::Result<bool, HwError> {
        self.check("wait_irq")?;
        inner.wait_irq(vector, timeout)
    }
}

#[test]
fn a_backend_failure_in_each_verbs_call_is_a_typed_hw_error() {
    use std::cell::Cell;
    use std::rc::Rc;
    let arm = Rc::new(Cell::new(None));
    let hw_err = |call: &str| Error::Hw(HwError::Os { op: call.into(), errno: libc::EIO });

    // Device::open: the first identification read.
    let flaky = Hooked { inner: FakeHw::new(FakeConfig::default()), hooks: Flaky { arm: arm.clone() } };
    arm.set(Some("read32"));
    assert_eq!(Device::from_hw(flaky).open().unwrap_err(), hw_err("read32"));

    let inner = FakeHw::new(FakeConfig::default());
    let device = inner.handle();
    let ctx = Device::from_hw(Hooked { inner, hooks: Flaky { arm: arm.clone() } }).open().unwrap();
    let fail = |call: &'static str| arm.set(Some(call));

    fail("read32");
    assert_eq!(ctx.query_port(1).unwrap_err(), hw_err("read32"));
    fail("read32");
    assert_eq!(ctx.take_events().unwrap_err(), hw_err("read32"));
    fail("alloc_dma");
    assert_eq!(ctx.alloc_buffer(64).unwrap_err(), hw_err("alloc_dma"));
    let buf = ctx.alloc_buffer(2 * PAGE_SIZE).unwrap();
    fail("dma_write");
    assert_eq!(buf.write(0, &[1]), Err(hw_err("dma_write")));
    fail("dma_read");
    assert_eq!(buf.read(0, &mut [0]), Err(hw_err("dma_read")));

    let pd = ctx.alloc_pd().unwrap();
    let (mrs, mtt) = (ctx.in_use(Resource::Mpt), ctx.in_use(Resource::Mtt));
    fail("dma_write");
    assert_eq!(pd.reg_mr(&buf, 0, 64, AccessFlags::LOCAL_WRITE).unwrap_err(), hw_err("dma_write"));
    assert_eq!((ctx.in_use(Resource::Mpt), ctx.in_use(Resource::Mtt)), (mrs, mtt), "a failed reg_mr keeps nothing");
    let mr = pd.reg_mr(&buf, 0, 64, AccessFlags::LOCAL_WRITE).unwrap();
    fail("dma_write");
    assert_eq!(mr.deregister().unwrap_err(), hw_err("dma_write"));

    let cqs = ctx.in_use(Resource::Cq);
    fail("alloc_dma");
    assert_eq!(ctx.create_cq(8, None).unwrap_err(), hw_err("alloc_dma"));
    assert_eq!(ctx.in_use(Resource::Cq), cqs, "a failed create_cq gives its CQN back");
    let ch = ctx.create_comp_channel().unwrap();
    let cq = ctx.create_cq(8, Some(&ch)).unwrap();
    fail("dma_read");
    assert_eq!(cq.poll(4).unwrap_err(), hw_err("dma_read"));
    fail("write64");
    assert_eq!(cq.req_notify(false), Err(hw_err("write64")));
    fail("wait_irq");
    assert_eq!(ch.get_event(Duration::from_micros(1)), Err(hw_err("wait_irq")));

    let qps = ctx.in_use(Resource::Qp);
    fail("alloc_dma");
    assert_eq!(pd.create_qp(QpType::Rc, &cq, &cq).build().unwrap_err(), hw_err("alloc_dma"));
    assert_eq!(ctx.in_use(Resource::Qp), qps, "a failed build gives its QPN back");
    let mut qp = pd.create_qp(QpType::Rc, &cq, &cq).build().unwrap();
    let init = QpAttr::new().state(QpState::Init).pkey_index(0).port(1).access_flags(AccessFlags::NONE);
    fail("write32");
    assert_eq!(qp.modify(&init), Err(hw_err("write32")));
    assert_eq!(qp.state(), QpState::Reset, "a failed modify leaves the state");
    to_rts(&mut qp, &ctx);
    let mr = pd.reg_mr(&buf, 0, 64, AccessFlags::LOCAL_WRITE).unwrap();
    let sge = [Sge::new(&mr, 0, 8).unwrap()];
    let before = device.doorbells().len();
    fail("write64");
    assert_eq!(qp.post_send(&[SendWr::new(1, SendOp::Send, &sge)]), Err(hw_err("write64")));
    fail("dma_write");
    assert_eq!(qp.post_recv(&[RecvWr { wr_id: 2, sg_list: &sge }]), Err(hw_err("dma_write")));
    assert_eq!(device.doorbells().len(), before, "no doorbell for a failed post");

    let ahs = ctx.in_use(Resource::Ah);
    fail("dma_write");
    let av = AhAttr::new(ctx.query_gid(1, 0).unwrap(), [2, 0, 0, 0, 0, 3]);
    assert_eq!(pd.create_ah(&av).unwrap_err(), hw_err("dma_write"));
    assert_eq!(ctx.in_use(Resource::Ah), ahs, "a failed create_ah gives its slot back");
    assert_eq!(arm.get(), None, "every armed failure was hit");
}

#[test]
fn calls_inside_with_hw_are_refused_as_reentrant() {
    let (ctx, _) = open(FakeConfig::default());
    let pd = ctx.alloc_pd().unwrap();
    let cq = ctx.create_cq(4, None).unwrap();
    let buf = ctx.alloc_buffer(64).unwrap();
    // Inside with_hw the backend is borrowed: every call that needs it says so.
    let errors = ctx
        .with_hw(|_| {
            [
                ctx.create_cq(4, None).unwrap_err(),
                ctx.take_events().unwrap_err(),
                ctx.alloc_buffer(64).unwrap_err(),
                buf.write(0, &[1]).unwrap_err(),
                cq.poll(1).unwrap_err(),
                pd.create_qp(QpType::Rc, &cq, &cq).build().unwrap_err(),
                ctx.with_hw(|_| ()).unwrap_err(),
            ]
        })
        .unwrap();
    assert_eq!(errors, [(); 7].map(|_| Error::Reentrant));
    assert_eq!(ctx.in_use(Resource::Qp), 0, "the refused build kept no QPN");
}

#[test]
fn the_remaining_modify_cq_and_ah_error_paths() {
    let (ctx, h) = open(FakeConfig::default());
    let pd = ctx.alloc_pd().unwrap();
    // create_cq: a Load that stays BUSY.
    let (cqs, regions) = (ctx.in_use(Resource::Cq), h.regions());
    h.busy_for(CTX_POLLS);
    assert!(matches!(
        ctx.create_cq(8, None),
        Err(Error::ContextTimeout { op: ContextOp::Load, table: ContextTable::Cq, polls: CTX_POLLS, .. })
    ));
    // The device may still finish that Load and write into the ring.
    assert_eq!(ctx.in_use(Resource::Cq), cqs + 1, "a CQ the device may still hold keeps its number");
    assert_eq!(h.regions(), regions + 1, "and its ring");
    // A refused Load (ERROR) gives both back.
    h.fail_next_ctx();
    assert!(matches!(ctx.create_cq(8, None), Err(Error::ContextCommand { op: ContextOp::Load, .. })));
    assert_eq!((ctx.in_use(Resource::Cq), h.regions()), (cqs + 1, regions + 1));
    let cq = ctx.create_cq(8, None).unwrap();
    let mut qp = pd.create_qp(QpType::Rc, &cq, &cq).build().unwrap();
    use QpState::{Init, ReadyToReceive, ReadyToSend, Reset};
    let init = QpAttr::new().state(Init).port(1).pkey_index(0).access_flags(AccessFlags::NONE);
    // A Load that stays BUSY: the QP stays in RESET.
    h.busy_for(CTX_POLLS);
    assert!(matches!(
        qp.modify(&init),
        Err(Error::ContextTimeout { op: ContextOp::Load, table: ContextTable::Qp, .. })
    ));
    assert_eq!(qp.state(), Reset);
    qp.modify(&init).unwrap();
    let av = AhAttr::new(ctx.query_gid(1, 0).unwrap(), [2, 0, 0, 0, 0, 1]);
    let rtr = QpAttr::new()
        .state(ReadyToReceive)
        .av(av)
        .path_mtu(Mtu::Mtu4096)
        .dest_qpn(3)
        .rq_psn(0)
        .max_dest_rd_atomic(1)
        .min_rnr_timer(0);
    // AV in the mask without an address.
    let no_av = QpAttr::new()
        .state(ReadyToReceive)
        .path_mtu(Mtu::Mtu4096)
        .dest_qpn(3)
        .rq_psn(0)
        .max_dest_rd_atomic(1)
        .min_rnr_timer(0);
    assert!(matches!(
        qp.modify(&no_av.with_mask(no_av.mask() | QpAttrMask::AV)),
        Err(Error::BadAttribute { attr: "ah_attr", .. })
    ));
    // The Store before the next Load refused: still INIT.
    h.fail_next_ctx();
    assert!(matches!(
        qp.modify(&rtr),
        Err(Error::ContextCommand { op: ContextOp::Store, table: ContextTable::Qp, .. })
    ));
    assert_eq!(qp.state(), Init);
    qp.modify(&rtr).unwrap();
    let rts = QpAttr::new().state(ReadyToSend).sq_psn(0).timeout(0).retry_cnt(0).rnr_retry(0).max_rd_atomic(0);
    assert!(matches!(qp.modify(&rts.rnr_retry(8)), Err(Error::BadAttribute { attr: "rnr_retry", value: 8, .. })));
    assert!(matches!(
        qp.modify(&rts.sq_psn(1 << 24)),
        Err(Error::BadAttribute { attr: "sq_psn", value: 0x100_0000, .. })
    ));
    // The kernel's table allows PATH_MIG_STATE on RTR -> RTS; this device has no path migration.
    assert_eq!(
        qp.modify(&rts.with_mask(rts.mask() | QpAttrMask::PATH_MIG_STATE)).unwrap_err(),
        Error::Unsupported { feature: "path migration (PATH_MIG_STATE)" }
    );
    assert_eq!(qp.state(), ReadyToReceive);
    qp.modify(&rts).unwrap();
    // RTS -> SQD may ask for the SQ-drained event; this device has none.
    let sqd = QpAttr::new().state(QpState::SendQueueDrained);
    assert_eq!(
        qp.modify(&sqd.with_mask(sqd.mask() | QpAttrMask::EN_SQD_ASYNC_NOTIFY)).unwrap_err(),
        Error::Unsupported { feature: "SQD events (EN_SQD_ASYNC_NOTIFY)" }
    );
    assert_eq!(qp.state(), ReadyToSend);
    // create_ah: a priority above 7.
    let ahs = ctx.in_use(Resource::Ah);
    assert!(matches!(
        pd.create_ah(&AhAttr { vlan: Some(Vlan { id: 5, pcp: 8 }), ..av }),
        Err(Error::BadAttribute { attr: "vlan.pcp", value: 8, .. })
    ));
    assert_eq!(ctx.in_use(Resource::Ah), ahs);
}

#[test]
fn the_qps_table_is_programmed_and_each_qp_starts_from_zero_state() {
    use rnic_contract::layouts::qps;
    let (ctx, h) = open(FakeConfig::default());
    let w = h.register_writes();
    let reg = |off: u32| w.iter().rev().find(|(o, _)| *o == off).map(|&(_, v)| u64::from(v)).unwrap();
    let base = reg(regs::qps_base_hi::OFFSET) << 32 | reg(regs::qps_base_lo::OFFSET);
    let (qpc_base, log) = ctx.table_base(ContextTable::Qp);
    assert_ne!(base, qpc_base);
    // As many entries as the QP table: the whole table is there to be written.
    let entries = 1usize << log;
    assert!(h.write_iova(base, &vec![0xEE; entries * qps::SIZE]));
    let pd = ctx.alloc_pd().unwrap();
    let cq = ctx.create_cq(8, None).unwrap();
    let mut qp = pd.create_qp(QpType::Rc, &cq, &cq).build().unwrap();
    let at = |qpn: u32| base + u64::from(qpn) * qps::SIZE as u64;
    assert_eq!(h.read_iova(at(qp.qp_num()), qps::SIZE).unwrap(), vec![0; qps::SIZE], "zeroed at create");
    assert_eq!(h.read_iova(at(qp.qp_num() + 1), qps::SIZE).unwrap(), vec![0xEE; qps::SIZE], "its neighbour untouched");
    to_rts(&mut qp, &ctx);
    // What the device left in the entry is cleared when the QP goes back to RESET.
    assert!(h.write_iova(at(qp.qp_num()), &[0x5A; qps::SIZE]));
    qp.modify(&QpAttr::new().state(QpState::Reset)).unwrap();
    assert_eq!(h.read_iova(at(qp.qp_num()), qps::SIZE).unwrap(), vec![0; qps::SIZE], "zeroed at RESET");
}

#[test]
fn the_replay_table_is_programmed_and_each_qp_starts_with_empty_slots() {
    use rnic_contract::layouts::{qps, resource};
    let (ctx, h) = open(FakeConfig::default());
    let w = h.register_writes();
    let reg = |off: u32| w.iter().rev().find(|(o, _)| *o == off).map(|&(_, v)| u64::from(v)).unwrap();
    let base = reg(regs::replay_base_hi::OFFSET) << 32 | reg(regs::replay_base_lo::OFFSET);
    let qps_base = reg(regs::qps_base_hi::OFFSET) << 32 | reg(regs::qps_base_lo::OFFSET);
    let (qpc_base, log) = ctx.table_base(ContextTable::Qp);
    assert!(base != qpc_base && base != qps_base, "a table of its own");
    assert_eq!(base % PAGE_SIZE as u64, 0, "4 KiB aligned");
    // QP_BYTES (16 slots of 32 bytes) for each of the QP table's entries, and no more.
    let bytes = resource::QP_BYTES << log;
    assert_eq!(bytes, 512 << 10, "the default 2^10 QPs");
    assert!(h.write_iova(base, &vec![0xEE; bytes]), "the whole table is allocated");
    assert!(!h.write_iova(base + bytes as u64, &[0]), "it ends there");
    let pd = ctx.alloc_pd().unwrap();
    let cq = ctx.create_cq(8, None).unwrap();
    let mut qp = pd.create_qp(QpType::Rc, &cq, &cq).build().unwrap();
    let slots = |qpn: u32| h.read_iova(base + u64::from(qpn) * resource::QP_BYTES as u64, resource::QP_BYTES).unwrap();
    let dirty =
        |qpn: u32, b: u8| h.write_iova(base + u64::from(qpn) * resource::QP_BYTES as u64, &[b; resource::QP_BYTES]);
    let qpn = qp.qp_num();
    assert_eq!(slots(qpn), vec![0; resource::QP_BYTES], "zeroed at create");
    assert_eq!(slots(qpn - 1), vec![0xEE; resource::QP_BYTES], "its neighbours untouched");
    assert_eq!(slots(qpn + 1), vec![0xEE; resource::QP_BYTES]);
    to_rts(&mut qp, &ctx);
    // What the device left in the slots (and its window in `qps`) is
    // cleared when the QP goes back to RESET.
    assert!(dirty(qpn, 0x5A));
    assert!(h.write_iova(qps_base + u64::from(qpn) * qps::SIZE as u64, &[0x5A; qps::SIZE]));
    qp.modify(&QpAttr::new().state(QpState::Reset)).unwrap();
    assert_eq!(slots(qpn), vec![0; resource::QP_BYTES], "zeroed at RESET");
    let e = h.read_iova(qps_base + u64::from(qpn) * qps::SIZE as u64, qps::SIZE).unwrap();
    assert_eq!((qps::REPLAY_HEAD.get(&e), qps::REPLAY_COUNT.get(&e)), (Ok(0), Ok(0)), "an empty window");
    assert_eq!(slots(qpn + 1), vec![0xEE; resource::QP_BYTES]);
    // A QP created on a number a destroyed one left dirty starts empty too.
    drop(qp);
    assert!(dirty(qpn, 0x77));
    let again = pd.create_qp(QpType::Rc, &cq, &cq).build().unwrap();
    assert_eq!(again.qp_num(), qpn, "the number is reused");
    assert_eq!(slots(qpn), vec![0; resource::QP_BYTES]);
}

/// Sets every 64-bit register of the fake's counter window to
/// `window_value(offset, epoch)`.
fn set_counter_registers(ctx: &Context, epoch: u32) {
    ctx.with_hw(|hw| {
        for o in regs::COUNTER_WINDOW.step_by(8) {
            let v = window_value(o, epoch);
            hw.write32(o, v as u32).unwrap();
            hw.write32(o + 4, (v >> 32) as u32).unwrap();
        }
    })
    .unwrap();
}

#[test]
fn query_counters_dumps_the_window_with_one_store_and_reads_each_register_into_its_own_field() {
    let (ctx, h) = open(FakeConfig::default());
    // The page the window is dumped to: its own table, programmed at bring-up, 512-byte aligned.
    let (page, log) = ctx.table_base(ContextTable::Counters);
    let w = h.register_writes();
    let reg = |off: u32| w.iter().rev().find(|(o, _)| *o == off).map(|&(_, v)| u64::from(v)).unwrap();
    assert_eq!(reg(regs::counters_base_hi::OFFSET) << 32 | reg(regs::counters_base_lo::OFFSET), page);
    assert_eq!((log, page % 512), (0, 0));
    assert_eq!(ctx.query_counters().unwrap(), Counters::default(), "a device just out of reset");

    set_counter_registers(&ctx, 1);
    let n = h.commands().len();
    assert_eq!(ctx.query_counters().unwrap(), counters_of(|o| window_value(o, 1)));
    assert_eq!(
        h.commands()[n..],
        [CtxCommand { op: ContextOp::Store, table: ContextTable::Counters, index: 0, count: 1, failed: false }],
        "one Store on the counter table"
    );
    assert_eq!(h.read_iova(page, 512).unwrap(), window_image(|o| window_value(o, 1)), "the window went to the page");
    // Each call dumps again: a counter that moved is read as it is now.
    ctx.with_hw(|hw| hw.write32(regs::cnt_tx_bytes::OFFSET, 7).unwrap()).unwrap();
    let moved = |o: u32| match o {
        regs::cnt_tx_bytes::OFFSET => window_value(o, 1) & !0xFFFF_FFFF | 7,
        _ => window_value(o, 1),
    };
    assert_eq!(ctx.query_counters().unwrap(), counters_of(moved));
}

/// A device whose next counter dump stops at a beat, as the RTL ends one
/// at a failed DMA write (`rnic_hw::host::ctx_engine`): the beats before it
/// reach host memory, the rest of the page keeps what the last dump left,
/// and `ctx_status.ERROR` is set.
struct DumpFault {
    fail_at_beat: std::rc::Rc<std::cell::Cell<Option<usize>>>,
}

impl HwHooks for DumpFault {
    fn write32(&mut self, inner: &mut FakeHw, offset: u32, value: u32) -> std::result::Result<(), HwError> {
        let dump = offset == regs::ctx_cmd::OFFSET
            && regs::ctx_cmd::TABLE.get(value) == u32::from(ContextTable::Counters.raw());
        let Some(beat) = self.fail_at_beat.get().filter(|_| dump) else {
            return inner.write32(offset, value);
        };
        self.fail_at_beat.set(None);
        let image: Vec<u8> = regs::COUNTER_WINDOW
            .step_by(4)
            .map(|o| inner.read32(o).map(u32::to_le_bytes))
            .collect::<std::result::Result<Vec<_>, _>>()?
            .concat();
        let lo = inner.read32(regs::counters_base_lo::OFFSET)?;
        let base = u64::from(inner.read32(regs::counters_base_hi::OFFSET)?) << 32 | u64::from(lo);
        let h = inner.handle();
        h.fail_next_ctx();
        inner.write32(offset, value)?;
        assert!(h.write_iova(base, &image[..beat * DUMP_BEAT]), "the beats before the failed one");
        Ok(())
    }
}

#[test]
fn a_counter_dump_that_fails_midway_is_a_typed_error_and_never_partial_counters() {
    use std::cell::Cell;
    use std::rc::Rc;
    let dump_error = Error::ContextCommand { op: ContextOp::Store, table: ContextTable::Counters, index: 0 };

    // The device's DMA write fails at the fourth of the dump's 8 beats.
    let inner = FakeHw::new(FakeConfig::default());
    let h = inner.handle();
    let fail_at_beat = Rc::new(Cell::new(None));
    let ctx =
        Device::from_hw(Hooked { inner, hooks: DumpFault { fail_at_beat: fail_at_beat.clone() } }).open().unwrap();
    let (page, _) = ctx.table_base(ContextTable::Counters);
    set_counter_registers(&ctx, 1);
    assert_eq!(ctx.query_counters().unwrap(), counters_of(|o| window_value(o, 1)));
    set_counter_registers(&ctx, 2);
    fail_at_beat.set(Some(3));
    assert_eq!(ctx.query_counters(), Err(dump_error.clone()));
    assert_eq!(fail_at_beat.get(), None, "the fault was hit");
    // What the driver declined to read: three beats of this dump, five of the last.
    let mut torn = window_image(|o| window_value(o, 2));
    torn[3 * DUMP_BEAT..].copy_from_slice(&window_image(|o| window_value(o, 1))[3 * DUMP_BEAT..]);
    assert_eq!(h.read_iova(page, 512).unwrap(), torn);
    // The next dump is whole again.
    assert_eq!(ctx.query_counters().unwrap(), counters_of(|o| window_value(o, 2)));
    // A fault at the first beat: nothing of this dump reached memory.
    fail_at_beat.set(Some(0));
    set_counter_registers(&ctx, 3);
    assert_eq!(ctx.query_counters(), Err(dump_error));
    // A dump that never ends.
    h.busy_for(CTX_POLLS);
    assert_eq!(
        ctx.query_counters(),
        Err(Error::ContextTimeout { op: ContextOp::Store, table: ContextTable::Counters, index: 0, polls: CTX_POLLS })
    );
    assert_eq!(ctx.query_counters().unwrap(), counters_of(|o| window_value(o, 3)));

    // The backend fails: issuing the Store, polling its status, reading the page.
    let arm = Rc::new(Cell::new(None));
    let ctx = Device::from_hw(Hooked { inner: FakeHw::new(FakeConfig::default()), hooks: Flaky { arm: arm.clone() } })
        .open()
        .unwrap();
    set_counter_registers(&ctx, 4);
    for call in ["write32", "read32", "dma_read"] {
        arm.set(Some(call));
        assert_eq!(
            ctx.query_counters(),
            Err(Error::Hw(HwError::Os { op: call.into(), errno: libc::EIO })),
            "failing {call}"
        );
        assert_eq!(arm.get(), None, "{call} was reached");
    }
    assert_eq!(ctx.query_counters().unwrap(), counters_of(|o| window_value(o, 4)));
}

/// A backend whose DMA allocations of a GiB and more are address space
/// only (no memory behind them; a CPU access to one fails), so a buffer of
/// 2^24 pages (64 GiB) can back a registration the driver must refuse
/// before it writes anything; everything else is the fake.
struct Sparse {
    next: u64,
}

impl Sparse {
    const FIRST_IOVA: u64 = 1 << 52;
    const FROM_BYTES: usize = 1 << 30;

    fn is_sparse(region: &DmaRegion) -> bool {
        region.iova >= Self::FIRST_IOVA
    }

    fn no_memory(region: &DmaRegion, offset: usize, len: usize) -> HwError {
        HwError::OutOfRange { region: region.id, offset, len }
    }
}

impl HwHooks for Sparse {
    fn alloc_dma(&mut self, inner: &mut FakeHw, len: usize) -> std::result::Result<DmaRegion, HwError> {
        if len < Self::FROM_BYTES {
            return inner.alloc_dma(len);
        }
        let len = len.next_multiple_of(PAGE_SIZE);
        let iova = Self::FIRST_IOVA + self.next;
        self.next += (len + PAGE_SIZE) as u64;
        Ok(DmaRegion { id: iova, iova, va: iova, len })
    }
    fn free_dma(&mut self, inner: &mut FakeHw, region: &DmaRegion) -> std::result::Result<(), HwError> {
        if Self::is_sparse(region) {
            return Ok(());
        }
        inner.free_dma(region)
    }
    fn dma_write(
        &mut self,
        inner: &mut FakeHw,
        region: &DmaRegion,
        offset: usize,
        data: &[u8],
    ) -> std::result::Result<(), HwError> {
        if Self::is_sparse(region) {
            return Err(Self::no_memory(region, offset, data.len()));
        }
        inner.dma_write(region, offset, data)
    }
    fn dma_read(
        &mut self,
        inner: &mut FakeHw,
        region: &DmaRegion,
        offset: usize,
        buf: &mut [u8],
    ) -> std::result::Result<(), HwError> {
        if Self::is_sparse(region) {
            return Err(Self::no_memory(region, offset, buf.len()));
        }
        inner.dma_read(region, offset, buf)
    }
}

#[test]
fn a_region_spanning_2_pow_24_pages_is_refused_because_one_mtt_command_spans_at_most_2_pow_24_minus_1() {
    let inner = FakeHw::new(FakeConfig::default());
    let h = inner.handle();
    // As large an MTT as the driver takes: capped at the commands' 24-bit index.
    let config = ContextConfig { log_mtt: 30, ..ContextConfig::default() };
    let ctx = Device::from_hw(Hooked { inner, hooks: Sparse { next: 0 } }).open_with(config).unwrap();
    assert_eq!(ctx.query_device().max_mtt, 1 << 24);
    let pd = ctx.alloc_pd().unwrap();
    let lw = AccessFlags::LOCAL_WRITE;
    let span_max = regs::ctx_count::COUNT.mask();
    assert_eq!(span_max, (1 << 24) - 1);
    let too_large =
        |pages: u64| Error::TooLarge { what: "memory region pages", requested: pages, max: span_max.into() };
    let buf = ctx.alloc_buffer(((1 << 24) + 1) * PAGE_SIZE).unwrap();
    let n = h.commands().len();
    // 2^24 pages: the MTT has the room, ctx_count.COUNT does not.
    assert_eq!(pd.reg_mr(&buf, 0, (1 << 24) * PAGE_SIZE, lw).unwrap_err(), too_large(1 << 24));
    // 2^24 - 1 pages of bytes, one byte into a page: 2^24 pages touched.
    assert_eq!(pd.reg_mr(&buf, 1, ((1 << 24) - 1) * PAGE_SIZE, lw).unwrap_err(), too_large(1 << 24));
    // 2^32 + 1 pages: refused as such, not taken for the 1 page its low 32 bits say.
    let huge = ctx.alloc_buffer(((1 << 32) + 1) * PAGE_SIZE).unwrap();
    assert_eq!(pd.reg_mr(&huge, 0, huge.len(), lw).unwrap_err(), too_large((1 << 32) + 1));
    assert_eq!(h.commands().len(), n, "no command issued");
    assert_eq!((ctx.in_use(Resource::Mpt), ctx.in_use(Resource::Mtt)), (0, 0), "nothing kept");
    // 2^24 - 1 pages fit: one Load spans them all (128 MiB of MTT entries written).
    let mr = pd.reg_mr(&buf, 0, ((1 << 24) - 1) * PAGE_SIZE, lw).unwrap();
    assert_eq!(
        h.commands()[n],
        CtxCommand { op: ContextOp::Load, table: ContextTable::Mtt, index: 0, count: span_max, failed: false }
    );
    assert_eq!(ctx.in_use(Resource::Mtt), span_max);
    mr.deregister().unwrap();
}
