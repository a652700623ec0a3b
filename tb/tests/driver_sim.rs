//! The real driver on the simulator backend: `rnic-driver`'s verbs over the
//! Verilated host side (`HostIf`) behind the host model. The bench plays
//! the transport: it takes the send work the doorbells give and injects
//! CQEs.
//!
//! What it shows: bring-up from the registers; CQ, QP and MR creation
//! through context commands the RTL accepts; post_recv and post_send
//! produce exactly the WQEs the contract lays out in the rings, and their
//! doorbells put the producer indices into the device's cached QP context
//! (a Store shows them) and give send work once per send doorbell;
//! CQEs written by the RTL are polled with their fields; arm + wait returns
//! on the MSI-X interrupt; reg/dereg write and invalidate the MPT entry;
//! dropping objects invalidates their contexts and frees their memory.

use rnic_contract::codes::{
    ContextOp, ContextTable, DoorbellKind, Mtu, QpState, QpType, SendOpcode, WcOpcode, WcStatus,
};
use rnic_contract::layouts::{cqe, mpt, mtt, qpc, recv_wqe, send_wqe, sge};
use rnic_contract::regs::{self, Doorbell};
use rnic_driver::hw::PAGE_SIZE;
use rnic_driver::*;
use rnic_tb::driver_hw::{SimHw, SimProbe};
use std::time::Duration;

/// Context commands the driver issued: (op, table, index).
fn ctx_commands(probe: &SimProbe) -> Vec<(ContextOp, ContextTable, u32)> {
    probe
        .register_writes()
        .iter()
        .filter(|(off, _, _)| *off == regs::ctx_cmd::OFFSET)
        .map(|&(_, w, _)| {
            (
                ContextOp::from_raw(regs::ctx_cmd::OP.get(w).into()).unwrap(),
                ContextTable::from_raw(regs::ctx_cmd::TABLE.get(w).into()).unwrap(),
                regs::ctx_cmd::INDEX.get(w),
            )
        })
        .collect()
}

/// Context commands with their span: (op, table, index, count), count the
/// last `ctx_count` written before an MTT command (0 read as 1), 1 for the
/// other tables.
fn ctx_spans(probe: &SimProbe) -> Vec<(ContextOp, ContextTable, u32, u32)> {
    let mut count = 0;
    let mut out = vec![];
    for &(off, w, _) in probe.register_writes().iter() {
        if off == regs::ctx_count::OFFSET {
            count = regs::ctx_count::COUNT.get(w);
        } else if off == regs::ctx_cmd::OFFSET {
            let table = ContextTable::from_raw(regs::ctx_cmd::TABLE.get(w).into()).unwrap();
            let n = if table == ContextTable::Mtt { count.max(1) } else { 1 };
            out.push((
                ContextOp::from_raw(regs::ctx_cmd::OP.get(w).into()).unwrap(),
                table,
                regs::ctx_cmd::INDEX.get(w),
                n,
            ));
        }
    }
    out
}

/// Doorbells the driver rang, decoded from the register writes (low half,
/// then high half).
fn doorbells(probe: &SimProbe) -> Vec<Doorbell> {
    let w = probe.register_writes();
    let mut out = Vec::new();
    for pair in w.windows(2) {
        if pair[0].0 == regs::doorbell::OFFSET && pair[1].0 == regs::doorbell::OFFSET + 4 {
            let word = u64::from(pair[1].1) << 32 | u64::from(pair[0].1);
            out.push(Doorbell::decode(word).unwrap());
        }
    }
    out
}

fn sge_bytes(s: &Sge) -> [u8; sge::SIZE] {
    let mut e = [0u8; sge::SIZE];
    sge::ADDR.set(&mut e, s.addr).unwrap();
    sge::LEN.set(&mut e, s.length).unwrap();
    sge::LKEY.set(&mut e, s.lkey).unwrap();
    e
}

#[test]
fn the_driver_runs_the_simulated_host_side() {
    let (hw, probe) = SimHw::new(5);
    let ctx = Device::from_hw(hw).open().expect("bring-up");

    // ---- queries, from what the RTL's registers say
    let attr = ctx.query_device();
    assert_eq!(attr.abi_version, rnic_contract::ABI_VERSION);
    assert_eq!((attr.datapath_bytes, attr.clock_mhz), (64, 250));
    assert_eq!((attr.max_qp, attr.max_cq), (1022, 1024), "1024 QPs less QP 0 and 1, 1024 CQs");
    assert_eq!(attr.max_qp_wr, 1 << 15);
    assert_eq!(attr.irq_vectors, 2048);
    // Today's RTL announces RC, atomics and translation (the MPT/MTT
    // context commands; no UC, UD, inline, raw rings), drives no MPT limit
    // and no MAC.
    use rnic_contract::regs::id_features::{ATOMICS, RC, TRANSLATION};
    assert_eq!(attr.features, RC.mask() | ATOMICS.mask() | TRANSLATION.mask());
    assert_eq!(
        attr.max_mr,
        1 << ContextConfig::default().log_mrs,
        "the MPT in host memory: as many as the driver asks"
    );
    assert_eq!(attr.max_inline_data, 0);
    assert_eq!(ctx.query_port(1).unwrap().state, PortState::Down, "no MAC, no link yet");
    assert_eq!(ctx.query_gid(1, 0).unwrap(), link_local_gid([0; 6]));
    assert_eq!(ctx.query_port(2), Err(Error::BadPort { port: 2 }));

    let pd = ctx.alloc_pd().unwrap();
    let channel = ctx.create_comp_channel().unwrap();
    let cq = ctx.create_cq(16, Some(&channel)).unwrap();
    assert_eq!(cq.capacity(), 16);
    let rcq = ctx.create_cq(8, None).unwrap();

    // ---- memory region: the MPT entry and MTT entries in host memory
    let buf = ctx.alloc_buffer(3 * PAGE_SIZE).unwrap();
    let access = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ;
    let mr = pd.reg_mr(&buf, 100, 2 * PAGE_SIZE, access).unwrap();
    let (mpt_base, mpt_log) = ctx.table_base(ContextTable::Mpt);
    assert_eq!(mpt_log, ContextConfig::default().log_mrs, "LOG_MAX_MPT reads 24: the table the driver asks for");
    let (mtt_base, _) = ctx.table_base(ContextTable::Mtt);
    let entry = probe.read_iova(mpt_base + (mpt::SIZE as u64) * u64::from(mr.mpt_index()), mpt::SIZE);
    assert_eq!(mpt::KEY.get(&entry), Ok(mr.lkey()));
    assert_eq!(mpt::key_index(mr.lkey(), mpt_log), mr.mpt_index());
    assert_eq!(mpt::VA_BASE.get(&entry), Ok(buf.va() + 100));
    assert_eq!(mpt::LENGTH.get(&entry), Ok(2 * PAGE_SIZE as u64));
    assert_eq!(mpt::PD.get(&entry), Ok(pd.pdn()));
    assert_eq!(mpt::VALID.get(&entry), Ok(true));
    assert_eq!(mpt::LOCAL_WRITE.get(&entry), Ok(true));
    assert_eq!(mpt::REMOTE_WRITE.get(&entry), Ok(true));
    assert_eq!(mpt::REMOTE_READ.get(&entry), Ok(true));
    assert_eq!(mpt::REMOTE_ATOMIC.get(&entry), Ok(false));
    assert_eq!(mpt::LOG_PAGE_SIZE.get(&entry), Ok(12));
    // 100 .. 100 + 8192 touches three pages
    let first = mpt::MTT_BASE.get(&entry).unwrap() as u64;
    for page in 0..3u64 {
        let e = probe.read_iova(mtt_base + (first + page) * mtt::SIZE as u64, mtt::SIZE);
        assert_eq!(mtt::ADDR.get(&e), Ok(buf.iova() + page * PAGE_SIZE as u64), "MTT entry {page}");
        assert_eq!(mtt::VALID.get(&e), Ok(true), "MTT entry {page} valid");
    }
    // A second region takes another slot, with a key of its own.
    let mr2 = pd.reg_mr(&buf, 0, 64, AccessFlags::LOCAL_WRITE).unwrap();
    assert_ne!(mr2.mpt_index(), mr.mpt_index());
    assert_eq!(ctx.in_use(Resource::Mpt), 2);
    drop(mr2);

    // ---- QP: create, RESET -> INIT -> RTR -> RTS, each a Load the RTL accepts
    assert_eq!(
        pd.create_qp(QpType::Rc, &cq, &rcq).max_inline_data(16).build().unwrap_err(),
        Error::Unsupported { feature: "INLINE" }
    );
    assert_eq!(pd.create_qp(QpType::Ud, &cq, &rcq).build().unwrap_err(), Error::Unsupported { feature: "UD" });
    let mut qp = pd
        .create_qp(QpType::Rc, &cq, &rcq)
        .max_send_wr(8)
        .max_recv_wr(8)
        .max_send_sge(3)
        .max_recv_sge(2)
        .build()
        .unwrap();
    let qpn = qp.qp_num();
    qp.modify(&QpAttr::new().state(QpState::Init).pkey_index(0).port(1).access_flags(AccessFlags::REMOTE_WRITE))
        .unwrap();
    // GID 0 is link-local IPv6, which the build lacks: the path goes over IPv4.
    let link_local = AhAttr::new(ctx.query_gid(1, 0).unwrap(), [2, 0, 0, 0, 0, 2]);
    let rtr_v6 = QpAttr::new()
        .state(QpState::ReadyToReceive)
        .av(link_local)
        .path_mtu(Mtu::Mtu4096)
        .dest_qpn(0x42)
        .rq_psn(0x100)
        .max_dest_rd_atomic(4)
        .min_rnr_timer(12);
    assert_eq!(qp.modify(&rtr_v6).unwrap_err(), Error::Unsupported { feature: "IPV6" });
    ctx.set_gid(1, ipv4_gid([10, 0, 0, 1])).unwrap();
    let peer = AhAttr { sgid_index: 1, ..AhAttr::new(ipv4_gid([10, 0, 0, 2]), [2, 0, 0, 0, 0, 2]) };
    qp.modify(
        &QpAttr::new()
            .state(QpState::ReadyToReceive)
            .av(peer)
            .path_mtu(Mtu::Mtu4096)
            .dest_qpn(0x42)
            .rq_psn(0x100)
            .max_dest_rd_atomic(4)
            .min_rnr_timer(12),
    )
    .unwrap();
    qp.modify(
        &QpAttr::new().state(QpState::ReadyToSend).sq_psn(0x200).timeout(14).retry_cnt(7).rnr_retry(7).max_rd_atomic(4),
    )
    .unwrap();
    let (qpc_base, _) = ctx.table_base(ContextTable::Qp);
    let e = probe.read_iova(qpc_base + (qpc::SIZE as u64) * u64::from(qpn), qpc::SIZE);
    assert_eq!(qpc::STATE.get(&e), Ok(QpState::ReadyToSend));
    assert_eq!(qpc::DEST_QPN.get(&e), Ok(0x42));
    assert_eq!(qpc::SQ_PSN.get(&e), Ok(0x200));
    assert_eq!(qpc::RQ_PSN.get(&e), Ok(0x100));
    assert_eq!(qpc::PMTU.get(&e), Ok(Mtu::Mtu4096));
    assert_eq!(qpc::SEND_CQ.get(&e), Ok(cq.cqn()));
    assert_eq!(qpc::RECV_CQ.get(&e), Ok(rcq.cqn()));
    let path = qpc::PATH.bytes(&e).unwrap();
    assert_eq!(rnic_contract::layouts::ah::DEST_IP.bytes(path).unwrap(), ipv4_gid([10, 0, 0, 2]));
    assert_eq!(rnic_contract::layouts::ah::SRC_IP.bytes(path).unwrap(), ipv4_gid([10, 0, 0, 1]));
    assert_eq!(
        ctx_commands(&probe).iter().filter(|c| c.1 == ContextTable::Qp).copied().collect::<Vec<_>>(),
        [
            (ContextOp::Load, ContextTable::Qp, qpn),
            (ContextOp::Store, ContextTable::Qp, qpn),
            (ContextOp::Load, ContextTable::Qp, qpn),
            (ContextOp::Store, ContextTable::Qp, qpn),
            (ContextOp::Load, ContextTable::Qp, qpn),
        ]
    );
    // A skipped transition, refused by the driver's table.
    assert_eq!(
        qp.modify(&QpAttr::new().state(QpState::ReadyToReceive)).unwrap_err(),
        Error::InvalidTransition { qp_type: QpType::Rc, from: QpState::ReadyToSend, to: QpState::ReadyToReceive }
    );

    // ---- post_recv, post_send: the WQEs the RTL fetches are the contract's bytes
    let s = |off: u64, len: u32| Sge::new(&mr, off, len).unwrap();
    let recv_sges = [[s(0, 512), s(512, 256)], [s(1024, 1024), s(4096, 64)]];
    qp.post_recv(&[
        RecvWr { wr_id: 0x100, sg_list: &recv_sges[0] },
        RecvWr { wr_id: 0x101, sg_list: &recv_sges[1][..1] },
    ])
    .unwrap();
    let send_sges = [s(2048, 100), s(3000, 200), s(8000, 192)];
    let remote = RemoteAddr { addr: 0xABCD_0000, rkey: 0x0055_6677 };
    let wrs = [
        SendWr::new(0x200, SendOp::Send, &send_sges[..1]),
        SendWr::new(0x201, SendOp::RdmaWriteWithImm { remote, imm: 0xFEED }, &send_sges)
            .flags(SendFlags::SIGNALED | SendFlags::SOLICITED),
        SendWr::new(0x202, SendOp::RdmaRead { remote }, &send_sges[1..2]).flags(SendFlags::FENCE | SendFlags::SIGNALED),
    ];
    qp.post_send(&wrs).unwrap();
    assert_eq!(qp.producer_indices(), (3, 2));
    probe.run_until(20_000, "send work", |b| !b.tp.work.is_empty());
    probe.with(|b| b.steps(300));
    assert_eq!(
        probe.with(|b| b.tp.work.clone()).iter().map(|w| w.0).collect::<Vec<_>>(),
        [qpn],
        "one send doorbell, one m_work"
    );
    // The device's cached context holds the producer indices: a Store (behind
    // the driver's back) shows them, and the rings hold the WQEs.
    assert!(!probe.with(|b| b.ctx_cmd(ContextOp::Store, ContextTable::Qp, qpn)));
    let e = probe.read_iova(qpc_base + (qpc::SIZE as u64) * u64::from(qpn), qpc::SIZE);
    assert_eq!((qpc::SQ_PROD.get(&e), qpc::RQ_PROD.get(&e)), (Ok(3), Ok(2)));
    let ring = |rq: bool, n: u16| -> Vec<(u16, Vec<u8>)> {
        let (base, size) = if rq {
            (qpc::RQ_BASE.get(&e).unwrap(), recv_wqe::SIZE)
        } else {
            (qpc::SQ_BASE.get(&e).unwrap(), send_wqe::SIZE)
        };
        (0..n).map(|i| (i, probe.read_iova(base + (size as u64) * u64::from(i), size))).collect()
    };

    let mut expect_recv = Vec::new();
    for (i, (id, list)) in [(0x100u64, &recv_sges[0][..]), (0x101, &recv_sges[1][..1])].into_iter().enumerate() {
        let mut e = vec![0u8; recv_wqe::SIZE];
        recv_wqe::WR_ID.set(&mut e, id).unwrap();
        recv_wqe::NUM_SGE.set(&mut e, list.len() as u8).unwrap();
        for (k, g) in list.iter().enumerate() {
            e[recv_wqe::sge_range(k)].copy_from_slice(&sge_bytes(g));
        }
        expect_recv.push((i as u16, e));
    }
    let mut expect_send = Vec::new();
    for (i, (id, op, list, fence, sol, imm)) in [
        (0x200u64, SendOpcode::Send, &send_sges[..1], false, false, None),
        (0x201, SendOpcode::RdmaWriteWithImm, &send_sges[..], false, true, Some(0xFEEDu32)),
        (0x202, SendOpcode::RdmaRead, &send_sges[1..2], true, false, None),
    ]
    .into_iter()
    .enumerate()
    {
        let mut e = vec![0u8; send_wqe::SIZE];
        send_wqe::WR_ID.set(&mut e, id).unwrap();
        send_wqe::OPCODE.set(&mut e, op).unwrap();
        send_wqe::FENCE.set(&mut e, fence).unwrap();
        send_wqe::SIGNALED.set(&mut e, true).unwrap();
        send_wqe::SOLICITED.set(&mut e, sol).unwrap();
        send_wqe::NUM_SGE.set(&mut e, list.len() as u8).unwrap();
        if let Some(imm) = imm {
            send_wqe::IMM.set(&mut e, imm).unwrap();
        }
        if op != SendOpcode::Send {
            send_wqe::REMOTE_VA.set(&mut e, remote.addr).unwrap();
            send_wqe::RKEY.set(&mut e, remote.rkey).unwrap();
        }
        for (k, g) in list.iter().enumerate() {
            e[send_wqe::sge_range(k)].copy_from_slice(&sge_bytes(g));
        }
        expect_send.push((i as u16, e));
    }
    assert_eq!(ring(true, 2), expect_recv, "receive WQEs, byte for byte");
    assert_eq!(ring(false, 3), expect_send, "send WQEs, byte for byte");

    // ---- CQEs from the transport side, polled with their fields
    let cqe_bytes = |wr_id: u64, op: WcOpcode, status: WcStatus, index: u16, len: u32, imm: Option<u32>| {
        let mut e = [0u8; cqe::SIZE];
        cqe::WR_ID.set(&mut e, wr_id).unwrap();
        cqe::OPCODE.set(&mut e, op).unwrap();
        cqe::STATUS.set(&mut e, status).unwrap();
        cqe::QPN.set(&mut e, qpn).unwrap();
        cqe::WQE_INDEX.set(&mut e, index).unwrap();
        cqe::BYTE_LEN.set(&mut e, len).unwrap();
        if let Some(imm) = imm {
            cqe::IMM.set(&mut e, imm).unwrap();
            cqe::WITH_IMM.set(&mut e, true).unwrap();
        }
        e
    };
    assert!(cq.poll(8).unwrap().is_empty());
    probe.with(|b| {
        b.post_cqe(cq.cqn(), cqe_bytes(0x200, WcOpcode::Send, WcStatus::Success, 0, 100, None), false);
        b.post_cqe(cq.cqn(), cqe_bytes(0x201, WcOpcode::RdmaWrite, WcStatus::Success, 1, 492, None), false);
        b.post_cqe(
            rcq.cqn(),
            cqe_bytes(0x100, WcOpcode::RecvRdmaWithImm, WcStatus::Success, 0, 700, Some(0xBEEF)),
            false,
        );
    });
    let mut wcs = Vec::new();
    for _ in 0..2000 {
        wcs.extend(cq.poll(8).unwrap());
        if wcs.len() == 2 {
            break;
        }
    }
    assert_eq!(wcs.len(), 2, "two send completions polled");
    assert_eq!((wcs[0].wr_id, wcs[0].opcode, wcs[0].byte_len, wcs[0].wqe_index), (0x200, Some(WcOpcode::Send), 100, 0));
    assert_eq!(
        (wcs[1].wr_id, wcs[1].opcode, wcs[1].byte_len, wcs[1].qp_num),
        (0x201, Some(WcOpcode::RdmaWrite), 492, qpn)
    );
    assert!(wcs.iter().all(|w| w.status == WcStatus::Success && w.imm_data.is_none()));
    let mut rwc = Vec::new();
    for _ in 0..2000 {
        rwc.extend(rcq.poll(8).unwrap());
        if !rwc.is_empty() {
            break;
        }
    }
    assert_eq!(rwc.len(), 1);
    assert_eq!((rwc[0].wr_id, rwc[0].opcode, rwc[0].byte_len), (0x100, Some(WcOpcode::RecvRdmaWithImm), 700));
    assert_eq!(rwc[0].imm_data, Some(0xBEEF));
    assert_eq!(rwc[0].is_recv(), Some(true));
    // Consumer doorbells told the device.
    let dbs = doorbells(&probe);
    assert!(dbs.contains(&Doorbell { kind: DoorbellKind::CqConsumer, queue: cq.cqn(), index: 2, solicited: false }));
    assert!(dbs.contains(&Doorbell { kind: DoorbellKind::CqConsumer, queue: rcq.cqn(), index: 1, solicited: false }));

    // ---- arm + wait: the channel returns on the MSI-X interrupt
    assert_eq!(rcq.req_notify(false), Err(Error::NoChannel { cqn: rcq.cqn() }));
    cq.req_notify(false).unwrap();
    assert_eq!(channel.get_event(Duration::from_micros(2)), Err(Error::Timeout { what: "completion event" }));
    let before = probe.with(|b| b.irqs.len());
    probe.with(|b| b.post_cqe(cq.cqn(), cqe_bytes(0x202, WcOpcode::RdmaRead, WcStatus::Success, 2, 200, None), false));
    let t0 = probe.now();
    channel.get_event(Duration::from_micros(100)).expect("interrupt");
    let irqs = probe.with(|b| b.irqs[before..].to_vec());
    assert_eq!(irqs.len(), 1, "one interrupt");
    assert_eq!(irqs[0].vector, channel.vector());
    assert!(probe.now() - t0 < 2_000, "woken within 8 us of the CQE, at {} cycles", probe.now() - t0);
    let wc = cq.poll(8).unwrap();
    assert_eq!((wc.len(), wc[0].wr_id, wc[0].opcode), (1, 0x202, Some(WcOpcode::RdmaRead)));
    // Error completions decode with their status.
    probe.with(|b| b.post_cqe(cq.cqn(), cqe_bytes(0x203, WcOpcode::Send, WcStatus::RemAccessErr, 3, 0, None), false));
    let mut err = Vec::new();
    for _ in 0..2000 {
        err.extend(cq.poll(8).unwrap());
        if !err.is_empty() {
            break;
        }
    }
    assert_eq!((err[0].wr_id, err[0].status, err[0].opcode), (0x203, WcStatus::RemAccessErr, None));

    // The send queue freed its slots: 8 more fit (3 posted, all completed),
    // a ninth does not, and nothing of that list is posted.
    let more: Vec<SendWr> = (0..9).map(|i| SendWr::new(0x300 + i, SendOp::Send, &send_sges[..1])).collect();
    assert_eq!(qp.post_send(&more).unwrap_err(), Error::QueueFull { queue: Queue::Send, qpn, wr: 8, depth: 8 });
    assert_eq!(qp.producer_indices().0, 3);
    qp.post_send(&more[..8]).unwrap();
    probe.run_until(20_000, "more send work", |b| b.tp.work.len() == 2);

    // ---- deregistration clears the entry; a new region has a new key
    // With TRANSLATION the device caches MPT entries and MTT lines: the
    // registration loaded the region's MTT lines and its entry, the
    // deregistration invalidates both (the region spans three pages: 100
    // bytes into the buffer), each command waited for (a command the device
    // refused, `ctx_status.ERROR`, fails the call).
    let (key, slot) = (mr.lkey(), mr.mpt_index());
    let mr_cmds = |probe: &SimProbe| -> Vec<(ContextOp, ContextTable, u32, u32)> {
        ctx_spans(probe).into_iter().filter(|c| c.1 == ContextTable::Mpt || c.1 == ContextTable::Mtt).collect()
    };
    let before = mr_cmds(&probe);
    mr.deregister().unwrap();
    let entry = probe.read_iova(mpt_base + (mpt::SIZE as u64) * u64::from(slot), mpt::SIZE);
    assert_eq!(mpt::VALID.get(&entry), Ok(false));
    // one MTT command spans its three entries (the device acts on each line)
    let first = mpt::MTT_BASE.get(&entry).unwrap();
    let want_reg = [(ContextOp::Load, ContextTable::Mtt, first, 3), (ContextOp::Load, ContextTable::Mpt, slot, 1)];
    assert_eq!(before[..2], want_reg[..], "registration: the MTT entries, then the MPT entry");
    let cmds = mr_cmds(&probe)[before.len()..].to_vec();
    let want =
        [(ContextOp::Invalidate, ContextTable::Mpt, slot, 1), (ContextOp::Invalidate, ContextTable::Mtt, first, 3)];
    assert_eq!(cmds, want, "deregistration: the MPT entry, then the MTT entries");
    let mr2 = pd.reg_mr(&buf, 0, 64, AccessFlags::LOCAL_WRITE).unwrap();
    assert_ne!(mr2.lkey(), key, "the old key is not given again");
    drop(mr2);

    // ---- teardown: contexts invalidated, memory freed, nothing went wrong
    let regions_before = probe.regions();
    drop(qp);
    drop(cq);
    drop(rcq);
    let cmds = ctx_commands(&probe);
    assert!(cmds.contains(&(ContextOp::Invalidate, ContextTable::Qp, qpn)));
    assert_eq!(cmds.iter().filter(|c| c.0 == ContextOp::Invalidate && c.1 == ContextTable::Cq).count(), 2);
    assert_eq!(probe.regions(), regions_before - 4, "two rings of the QP, two CQ rings");
    assert_eq!((ctx.in_use(Resource::Qp), ctx.in_use(Resource::Cq), ctx.in_use(Resource::Mpt)), (0, 0, 0));
    assert_eq!(ctx.take_teardown_errors(), vec![]);
    let (events, _) = ctx.take_events().unwrap();
    assert_eq!(events, 0, "no doorbell, DMA or overrun error on the device");
    assert_eq!(probe.with(|b| b.port.host.iommu.fault_count()), 0);
    eprintln!(
        "driver_sim: {} cycles, {} send work, {} interrupts",
        probe.now(),
        probe.with(|b| b.tp.work.len()),
        probe.with(|b| b.irqs.len())
    );
}

/// Modifies between posts take the device's indices back (Store) before
/// loading the new context, so the producer index the doorbells wrote into
/// the cached context is kept; a trip through RESET starts the rings over
/// at index 0.
#[test]
fn modify_between_posts_keeps_the_device_indices() {
    let (hw, probe) = SimHw::new(9);
    let ctx = Device::from_hw(hw).open().unwrap();
    ctx.set_gid(1, ipv4_gid([10, 0, 0, 1])).unwrap();
    let pd = ctx.alloc_pd().unwrap();
    let cq = ctx.create_cq(16, None).unwrap();
    let buf = ctx.alloc_buffer(PAGE_SIZE).unwrap();
    let mr = pd.reg_mr(&buf, 0, PAGE_SIZE, AccessFlags::LOCAL_WRITE).unwrap();
    let sge = [Sge::new(&mr, 0, 64).unwrap()];
    let recv = |id: u64| RecvWr { wr_id: id, sg_list: &sge };
    let mut qp = pd.create_qp(QpType::Rc, &cq, &cq).max_recv_wr(8).build().unwrap();
    let qpn = qp.qp_num();
    let init = QpAttr::new().state(QpState::Init).pkey_index(0).port(1).access_flags(AccessFlags::NONE);
    let peer = AhAttr { sgid_index: 1, ..AhAttr::new(ipv4_gid([10, 0, 0, 2]), [2, 0, 0, 0, 0, 2]) };
    let rtr = QpAttr::new()
        .state(QpState::ReadyToReceive)
        .av(peer)
        .path_mtu(Mtu::Mtu1024)
        .dest_qpn(3)
        .rq_psn(0)
        .max_dest_rd_atomic(1)
        .min_rnr_timer(1);
    let (qpc_base, _) = ctx.table_base(ContextTable::Qp);
    // the device's producer and consumer indices, by a Store behind the driver's back
    let device_rq = |probe: &SimProbe| {
        assert!(!probe.with(|b| b.ctx_cmd(ContextOp::Store, ContextTable::Qp, qpn)));
        let e = probe.read_iova(qpc_base + (qpc::SIZE as u64) * u64::from(qpn), qpc::SIZE);
        (qpc::RQ_PROD.get(&e).unwrap(), qpc::RQ_CONS.get(&e).unwrap(), qpc::RQ_BASE.get(&e).unwrap())
    };
    qp.modify(&init).unwrap();
    qp.post_recv(&[recv(0), recv(1), recv(2)]).unwrap();
    probe.with(|b| b.steps(500));
    qp.modify(&rtr).unwrap();
    // The Store brought the device's indices: three posted, none consumed
    // (no responder in this build consumes receive WQEs).
    let e = qp.context_entry();
    assert_eq!((qpc::RQ_PROD.get(&e), qpc::RQ_CONS.get(&e)), (Ok(3), Ok(0)));
    qp.post_recv(&[recv(3), recv(4)]).unwrap();
    probe.with(|b| b.steps(500));
    let (prod, cons, rq_base) = device_rq(&probe);
    assert_eq!((prod, cons), (5, 0), "the doorbells' index in the device's context");
    for i in 0..5u64 {
        let w = probe.read_iova(rq_base + (recv_wqe::SIZE as u64) * i, recv_wqe::SIZE);
        assert_eq!(recv_wqe::WR_ID.get(&w), Ok(i));
    }
    assert!(probe.with(|b| b.tp.work.is_empty()), "receive doorbells give no send work");
    // Through RESET: the device forgets the QP, the rings start over.
    qp.modify(&QpAttr::new().state(QpState::Reset)).unwrap();
    assert_eq!(qp.producer_indices(), (0, 0));
    qp.modify(&init).unwrap();
    qp.post_recv(&[recv(10)]).unwrap();
    probe.with(|b| b.steps(500));
    let (prod, _, rq_base) = device_rq(&probe);
    assert_eq!(prod, 1, "counting from 0 again");
    let w = probe.read_iova(rq_base, recv_wqe::SIZE);
    assert_eq!(recv_wqe::WR_ID.get(&w), Ok(10));
    assert_eq!(ctx.take_events().unwrap().0, 0);
}
