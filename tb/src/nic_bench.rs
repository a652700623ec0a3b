//! Two simulated NICs measured through the driver (issue 11, item 7): RDMA
//! WRITE goodput by message size on one QP, the latency from `post_send`
//! to the first packet on the wire and to the completion, and the
//! simulation's own speed. Used by `make bench` (section `nic`, figures in
//! docs/benchmarks.md) and by `tb/tests/two_nics.rs`, which asserts the
//! cycle counts (deterministic: the same Verilog, seeds and host model give
//! the same cycles on every machine).

use crate::sim_net::{connect_rc, try_poll_n, Nic, SimNet};
use rnic_contract::codes::{Mtu, QpType, WcStatus};
use rnic_driver::{AccessFlags, RemoteAddr, SendFlags, SendOp, SendWr, Sge};
use std::time::Instant;

/// The core clock the cycle counts are turned into time with (MHz).
pub const CORE_MHZ: f64 = 250.0;

/// One run of back-to-back WRITEs of one size on one QP.
#[derive(Clone, Debug)]
pub struct WriteRun {
    /// Bytes per message.
    pub size: usize,
    /// Messages posted (all at once, each signaled).
    pub msgs: usize,
    /// Cycles from the first `post_send` to the last completion polled.
    pub cycles: u64,
    /// Cycles from `post_send` to the first request packet's last beat on the wire.
    pub to_wire: u64,
    /// Cycles from `post_send` to the last request packet's last beat on the wire.
    pub wire_done: u64,
    /// Request packets NIC A sent.
    pub packets: usize,
    /// Simulated cycles of the whole run (set-up included) and the seconds they took here.
    pub sim_cycles: u64,
    pub sim_secs: f64,
}

impl WriteRun {
    /// Payload bits per cycle, as Gb/s at [`CORE_MHZ`].
    pub fn goodput_gbps(&self) -> f64 {
        (self.size * self.msgs) as f64 * 8.0 / self.cycles as f64 * CORE_MHZ / 1000.0
    }
}

/// `msgs` RDMA WRITEs of `size` bytes from NIC A to NIC B on one RC QP with
/// path MTU `mtu`, posted at once; every byte checked in B's memory and
/// every completion successful.
pub fn write_run(size: usize, msgs: usize, mtu: Mtu) -> WriteRun {
    let t = Instant::now();
    let net = SimNet::pair(2026);
    let (a, b) = (Nic::open(&net, 0), Nic::open(&net, 1));
    let (pd_a, pd_b) = (a.ctx.alloc_pd().unwrap(), b.ctx.alloc_pd().unwrap());
    let (cq_a, cq_b) = (a.ctx.create_cq(256, None).unwrap(), b.ctx.create_cq(256, None).unwrap());
    let depth = msgs.next_power_of_two().max(16) as u32;
    let mut qp_a = pd_a.create_qp(QpType::Rc, &cq_a, &cq_a).max_send_wr(depth).build().unwrap();
    let mut qp_b = pd_b.create_qp(QpType::Rc, &cq_b, &cq_b).max_recv_wr(16).build().unwrap();
    connect_rc(&mut qp_a, &a.ctx, 1, qp_b.qp_num(), (0, 0x40), mtu);
    connect_rc(&mut qp_b, &b.ctx, 0, qp_a.qp_num(), (0x40, 0), mtu);
    let len = size * msgs;
    let (buf_a, buf_b) = (a.ctx.alloc_buffer(len).unwrap(), b.ctx.alloc_buffer(len).unwrap());
    let access = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE;
    let (mr_a, mr_b) = (pd_a.reg_mr(&buf_a, 0, len, access).unwrap(), pd_b.reg_mr(&buf_b, 0, len, access).unwrap());
    let data: Vec<u8> = (0..len).map(|i| (i * 131 + 7 + i / 4093) as u8).collect();
    buf_a.write(0, &data).unwrap();
    let sges: Vec<Sge> = (0..msgs).map(|m| Sge::new(&mr_a, (m * size) as u64, size as u32).unwrap()).collect();
    let wrs: Vec<SendWr> = (0..msgs)
        .map(|m| {
            let remote = RemoteAddr { addr: mr_b.addr() + (m * size) as u64, rkey: mr_b.rkey() };
            SendWr::new(m as u64, SendOp::RdmaWrite { remote }, std::slice::from_ref(&sges[m]))
                .flags(SendFlags::SIGNALED)
        })
        .collect();
    let sent_before = net.borrow().log.iter().filter(|f| f.from == 0).count();
    let t0 = a.probe.now();
    qp_a.post_send(&wrs).unwrap();
    // a poll runs the clock for the driver's relax (tens of cycles): polls
    // for 1 byte per cycle and a start-up of 20k cycles are plenty
    let wc = try_poll_n(&cq_a, msgs, len + 20_000);
    let drops = net.borrow().rx_drops(1);
    assert!(
        wc.len() == msgs,
        "{size} B x {msgs}: {} of {msgs} completions; frames B's MAC FIFO dropped: {drops} (no retransmission yet)",
        wc.len()
    );
    let cycles = a.probe.now() - t0;
    for (m, w) in wc.iter().enumerate() {
        assert_eq!((w.wr_id, w.status), (m as u64, WcStatus::Success), "completion {m}");
    }
    let mut got = vec![0; len];
    buf_b.read(0, &mut got).unwrap();
    assert!(got == data, "B's memory holds every WRITE");
    let net = net.borrow();
    assert_eq!(net.rx_drops(0) + net.rx_drops(1), 0, "no frame dropped at a MAC FIFO");
    let ours: Vec<_> = net.log.iter().filter(|f| f.from == 0).skip(sent_before).collect();
    WriteRun {
        size,
        msgs,
        cycles,
        to_wire: ours.first().map(|f| f.sent - t0).unwrap_or(0),
        wire_done: ours.last().map(|f| f.sent - t0).unwrap_or(0),
        packets: ours.len(),
        sim_cycles: net.now(),
        sim_secs: t.elapsed().as_secs_f64(),
    }
}
