//! Bench for the whole host side (`HostIf`): a driver in Rust talks to the
//! generated Verilog through the AXI4-Lite register port, lays out contexts
//! and rings in host memory with `rnic-contract`'s accessors, and the host
//! model answers DMA and takes MSI-X interrupts. The transport's side is
//! played by the bench: it takes send work from `m_work` (under random
//! backpressure), posts CQEs, and uses the context caches', translation and
//! DMA ports through [`Transport`] queues.

use rnic_contract::codes::{ContextOp, ContextTable, DoorbellKind};
use rnic_contract::layouts::{cqc, cqe, qpc};
use rnic_contract::regs::{self, Doorbell};
use rnic_host::{HostSpace, MmioConfig, MsixDelivery, MsixTable, PcieConfig, Perms};
use rnic_sim::axis::Rng;
use rnic_sim::dma_port::DmaPort;
use rnic_sim::frames::{drive_beat, frame_beats, idle, Beat512};
use rnic_sim::models::host_if::Dut;
use rnic_sim::{Clocked, Model};
use std::collections::VecDeque;

pub use crate::host_transport::Transport;

/// IOVA layout the bench's driver uses; all of it mapped read-write.
pub const QPC_TABLE: u64 = 0x10_0000_0000;
pub const CQC_TABLE: u64 = 0x11_0000_0000;
pub const RINGS: u64 = 0x12_0000_0000;
pub const QPS_TABLE: u64 = 0x13_0000_0000;
pub const MPT_TABLE: u64 = 0x14_0000_0000;
pub const MTT_TABLE: u64 = 0x14_0010_0000;
/// The responder's replay table (`replay_base`).
pub const REPLAY_TABLE: u64 = 0x15_0000_0000;
const MAP_BYTES: u64 = 64 << 20;

/// A DMA write the device issued: its address, its bytes, and the cycle its
/// last beat was taken.
#[derive(Clone, Debug)]
pub struct IssuedWrite {
    pub addr: u64,
    pub bytes: Vec<u8>,
    pub cycle: u64,
}

/// A register access on its way to the device: it may start on the
/// AXI4-Lite port at `arrive` (accesses stay in order).
struct Pending {
    arrive: u64,
    write: Option<u32>,
    addr: u32,
}

/// A register access in progress on the AXI4-Lite port.
enum Axil {
    Idle,
    Write { addr: u32, data: u32, aw: bool, w: bool },
    WriteResp,
    Read { addr: u32, ar: bool },
}

/// Called at each MSI-X delivery (see [`HostBench::on_irq`]).
pub type IrqHook = Box<dyn FnMut(&HostSpace, &MsixDelivery)>;
/// Called at each interrupt request (see [`HostBench::on_irq_request`]).
pub type IrqRequestHook = Box<dyn FnMut(&HostSpace, u16, u64)>;

/// `D` is the Verilated design: `HostIf` (the default: the bench plays the
/// transport on its ports) or the whole core (`RnicCore`: the transport is
/// the core's own, and the bench plays the MAC instead, [`MacSide`]).
pub struct HostBench<D: Model = Dut> {
    pub sim: Clocked<D>,
    pub port: DmaPort,
    pub msix: MsixTable,
    rng: Rng,
    axil: Axil,
    /// Register latencies as the CPU sees them (posted writes, read round trips).
    pub mmio: MmioConfig,
    mmio_queue: VecDeque<Pending>,
    read_result: Option<u32>,
    /// The transport's side: send work, cache, translation and DMA ports.
    pub tp: Transport,
    cqes: VecDeque<(u32, [u8; 32], bool)>,
    cqe_presenting: bool,
    /// Interrupts delivered, with the cycle.
    pub irqs: Vec<MsixDelivery>,
    /// Cycle of each interrupt request the core made, by vector.
    pub irq_requests: Vec<(u16, u64)>,
    /// Called at each MSI-X delivery, to check what the driver would see then.
    pub on_irq: Option<IrqHook>,
    /// Every DMA write the device issued, in issue order.
    pub writes: Vec<IssuedWrite>,
    wr_cur: Vec<u8>,
    /// Write completions (`s_dma_wr_cpl`) the device received.
    pub write_completions: u64,
    /// The most DMA writes issued and not yet completed at any cycle.
    pub max_writes_in_flight: u64,
    /// Called at each interrupt request (`m_irq` valid and ready), with the
    /// vector and the cycle, before anything that cycle lands in memory.
    pub on_irq_request: Option<IrqRequestHook>,
    /// Cycle in which each CQE was taken on `s_cqe`, in order.
    pub cqe_taken: Vec<u64>,
    /// Cycles of `HostIf::qp_inval`'s pulses (a QP context dropped).
    pub qp_invals: Vec<u64>,
    /// Cycles a register write waited on `awready`/`wready` (backpressure).
    pub axil_write_stalls: u64,
    /// Every register write the device took: (offset, cycle its address and data were both taken).
    pub axil_writes: Vec<(u32, u64)>,
    /// The bench drives `HostIf`'s transport ports (`tp`, the CQE injection).
    plays_transport: bool,
    /// The core's MAC streams, when the design has them.
    pub mac: Option<MacSide>,
}

/// A 100 Gb/s link at the 250 MHz core clock: bits per cycle.
pub const LINK_BITS_PER_CYCLE: i64 = 400;
/// What a frame costs the link beyond its bytes (the core's frames carry
/// no FCS): preamble and SFD 8, FCS 4, inter-frame gap 12.
pub const FRAME_OVERHEAD_BYTES: i64 = 24;
/// The most a link's credit holds: one beat and one cycle's bits, so an
/// idle link starts a frame at once but never runs above line rate.
const LINK_CREDIT_MAX: i64 = 512 + LINK_BITS_PER_CYCLE;

/// The MAC's side of the core, at 100 Gb/s each way: frames to receive (a
/// 512-bit beat offered when the link has delivered its bits, so beats
/// come in bursts with gaps that average line rate with the per-frame
/// overhead; `s_axis_rx` cannot be stalled, as a MAC's) and the frames the
/// core sent (`m_axis_tx.tready` high when the link can take a beat), with
/// the cycle of their last beat.
pub struct MacSide {
    pub rx: VecDeque<Vec<u8>>,
    rx_beats: VecDeque<Beat512>,
    rx_credit: i64,
    rx_offered: bool,
    tx_cur: Vec<u8>,
    tx_credit: i64,
    /// `m_axis_tx.tready` as driven this cycle.
    tx_ready: bool,
    pub tx: Vec<(u64, Vec<u8>)>,
    /// The link partner asked for a pause (the world sets it, delayed by
    /// the wire): no new frame starts; the one under way finishes, as a MAC
    /// honouring PAUSE/PFC does.
    pub tx_paused: bool,
    /// Cycles a frame could have started but the pause held it.
    pub tx_paused_cycles: u64,
}

impl Default for MacSide {
    fn default() -> Self {
        MacSide {
            rx: VecDeque::new(),
            rx_beats: VecDeque::new(),
            rx_credit: LINK_CREDIT_MAX,
            rx_offered: false,
            tx_cur: vec![],
            tx_credit: LINK_CREDIT_MAX,
            tx_ready: false,
            tx: vec![],
            tx_paused: false,
            tx_paused_cycles: 0,
        }
    }
}

impl HostBench {
    pub fn new(pcie: PcieConfig, seed: u64) -> Self {
        Self::with_model(Dut::new(), pcie, seed)
    }

    /// The host-physical address behind an IOVA of the bench's layout.
    pub fn phys(iova: u64) -> u64 {
        phys(iova)
    }

    /// A CQE with recognisable contents (owner bit clear).
    pub fn make_cqe(wr_id: u64, qpn: u32, wqe_index: u16) -> [u8; 32] {
        let mut e = [0u8; 32];
        cqe::WR_ID.set(&mut e, wr_id).unwrap();
        cqe::QPN.set(&mut e, qpn).unwrap();
        cqe::WQE_INDEX.set(&mut e, wqe_index).unwrap();
        cqe::BYTE_LEN.set(&mut e, wr_id as u32).unwrap();
        e
    }
}

/// The host-physical address behind an IOVA of the bench's layout.
fn phys(iova: u64) -> u64 {
    let region = (iova - QPC_TABLE) >> 32;
    0x1_0000_0000 * (region + 1) + (iova & 0xFFFF_FFFF)
}

impl<D: Model> HostBench<D> {
    /// A bench around `dut`: `HostIf`'s transport ports played by the bench
    /// if it has them, the MAC side if it has MAC streams.
    pub fn with_model(dut: D, pcie: PcieConfig, seed: u64) -> Self {
        let has = |name: &str| dut.ports().iter().any(|p| p.rust_path == name);
        let plays_transport = has("s_cqe.valid");
        let mac = has("s_axis_rx.tvalid").then(MacSide::default);
        let mut host = HostSpace::new();
        for (i, base) in [QPC_TABLE, CQC_TABLE, RINGS, QPS_TABLE, MPT_TABLE, REPLAY_TABLE].into_iter().enumerate() {
            host.iommu.map(base, MAP_BYTES, 0x1_0000_0000 * (i as u64 + 1), Perms::RW).unwrap();
        }
        let port = DmaPort::new(&dut, host, pcie, seed);
        let mut msix = MsixTable::new(2048, 25);
        for v in 0..2048 {
            msix.program(v, 0xFEE0_0000, v.into()).unwrap();
            msix.unmask(v, 0).unwrap();
        }
        let mut sim = Clocked::new(dut);
        sim.dut.set("cfg_max_read", 2);
        sim.dut.set("cfg_max_payload", 1);
        sim.reset(2);
        HostBench {
            sim,
            port,
            msix,
            rng: Rng(seed | 1),
            axil: Axil::Idle,
            mmio: MmioConfig::typical(),
            mmio_queue: VecDeque::new(),
            read_result: None,
            tp: Transport::new(),
            cqes: VecDeque::new(),
            cqe_presenting: false,
            irqs: vec![],
            irq_requests: vec![],
            on_irq: None,
            writes: vec![],
            wr_cur: vec![],
            write_completions: 0,
            max_writes_in_flight: 0,
            on_irq_request: None,
            cqe_taken: vec![],
            qp_invals: vec![],
            axil_write_stalls: 0,
            axil_writes: vec![],
            plays_transport,
            mac,
        }
    }

    /// Straps the core's `port_mac` (wire order: `mac[0]` goes first), what
    /// `id_mac_*` reads back.
    pub fn set_port_mac(&mut self, mac: [u8; 6]) {
        self.sim.dut.set("port_mac", mac.iter().fold(0u64, |w, &b| w << 8 | u64::from(b)));
    }

    pub fn now(&self) -> u64 {
        self.sim.cycle()
    }

    /// One clock cycle of everything.
    pub fn step(&mut self) {
        let now = self.sim.cycle();
        if matches!(self.axil, Axil::Idle) && self.mmio_queue.front().is_some_and(|p| p.arrive <= now) {
            let p = self.mmio_queue.pop_front().unwrap();
            self.axil = match p.write {
                Some(data) => Axil::Write { addr: p.addr, data, aw: false, w: false },
                None => Axil::Read { addr: p.addr, ar: false },
            };
        }
        let d = &mut self.sim.dut;
        // register port
        let (mut aw, mut w, mut ar) = (false, false, false);
        match &self.axil {
            Axil::Write { addr, data, aw: a, w: ww } => {
                d.set("s_axil.awaddr", *addr as u64);
                d.set("s_axil.wdata", *data as u64);
                d.set("s_axil.wstrb", 0xF);
                aw = !*a;
                w = !*ww;
            }
            Axil::Read { addr, ar: a } => {
                d.set("s_axil.araddr", *addr as u64);
                ar = !*a;
            }
            _ => {}
        }
        d.set("s_axil.awvalid", aw as u64);
        d.set("s_axil.wvalid", w as u64);
        d.set("s_axil.arvalid", ar as u64);
        d.set("s_axil.bready", 1);
        d.set("s_axil.rready", 1);
        // transport side
        if self.plays_transport {
            self.drive_transport();
        }
        if let Some(mac) = self.mac.as_mut() {
            mac.drive(&mut self.sim.dut);
        }
        let d = &mut self.sim.dut;
        d.set("m_irq.ready", 1);
        self.port.drive(d);
        d.eval();

        // what moved
        match &mut self.axil {
            Axil::Write { addr, aw: a, w: ww, .. } => {
                if (aw && d.get("s_axil.awready") == 0) || (w && d.get("s_axil.wready") == 0) {
                    self.axil_write_stalls += 1;
                }
                if aw && d.get("s_axil.awready") == 1 {
                    *a = true;
                }
                if w && d.get("s_axil.wready") == 1 {
                    *ww = true;
                }
                if *a && *ww {
                    self.axil_writes.push((*addr, now));
                    self.axil = Axil::WriteResp;
                }
            }
            Axil::WriteResp => {
                if d.get("s_axil.bvalid") == 1 {
                    assert_eq!(d.get("s_axil.bresp"), 0, "write response OKAY");
                    self.axil = Axil::Idle;
                }
            }
            Axil::Read { ar: a, .. } => {
                if ar && d.get("s_axil.arready") == 1 {
                    *a = true;
                } else if *a && d.get("s_axil.rvalid") == 1 {
                    assert_eq!(d.get("s_axil.rresp"), 0, "read response OKAY");
                    self.read_result = Some(d.get("s_axil.rdata") as u32);
                    self.axil = Axil::Idle;
                }
            }
            Axil::Idle => {}
        }
        if self.plays_transport {
            self.tp.sample(d, now);
            if self.cqe_presenting && d.get("s_cqe.ready") == 1 {
                self.cqe_taken.push(now);
                self.cqe_presenting = false;
                self.cqes.pop_front();
            }
            if d.get("qp_inval") == 1 {
                self.qp_invals.push(now);
            }
        }
        if let Some(mac) = self.mac.as_mut() {
            mac.sample(d, now);
        }
        if d.get("s_dma_wr_cpl.valid") == 1 {
            self.write_completions += 1;
        }
        if d.get("m_irq.valid") == 1 {
            let v = d.get("m_irq.vector") as u16;
            self.irq_requests.push((v, now));
            self.msix.raise(v, now).expect("vector in the table");
            if let Some(f) = self.on_irq_request.as_mut() {
                f(&self.port.host, v, now);
            }
        }
        // a write issued this cycle is after any interrupt requested in it
        let d = &self.sim.dut;
        if d.get("m_dma_wr.tvalid") == 1 && d.get("m_dma_wr.tready") == 1 {
            let i = d.port("m_dma_wr.tdata");
            let mut words = [0u32; 16];
            d.get_words(i, &mut words);
            let keep = d.get("m_dma_wr.tkeep");
            for (lane, byte) in words.iter().flat_map(|w| w.to_le_bytes()).enumerate() {
                if keep >> lane & 1 == 1 {
                    self.wr_cur.push(byte);
                }
            }
            if d.get("m_dma_wr.tlast") == 1 {
                let addr = d.get("m_dma_wr.addr");
                self.writes.push(IssuedWrite { addr, bytes: std::mem::take(&mut self.wr_cur), cycle: now });
            }
        }
        let in_flight = self.writes.len() as u64 - self.write_completions;
        self.max_writes_in_flight = self.max_writes_in_flight.max(in_flight);
        self.port.sample(&self.sim.dut, now);
        for delivery in self.msix.poll(now) {
            if let Some(f) = self.on_irq.as_mut() {
                f(&self.port.host, &delivery);
            }
            self.irqs.push(delivery);
        }
        self.sim.tick();
    }

    /// `HostIf`'s transport ports: the bench's queues, and the CQE it posts.
    fn drive_transport(&mut self) {
        let d = &mut self.sim.dut;
        self.tp.drive(d, &mut self.rng);
        if !self.cqe_presenting {
            if let Some((cqn, bytes, sol)) = self.cqes.front() {
                let mut words = [0u32; 8];
                for (i, x) in words.iter_mut().enumerate() {
                    *x = u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap());
                }
                let i = d.port("s_cqe.data");
                d.set_words(i, &words);
                d.set("s_cqe.cqn", *cqn as u64);
                d.set("s_cqe.solicited", *sol as u64);
                self.cqe_presenting = true;
            }
        }
        d.set("s_cqe.valid", self.cqe_presenting as u64);
    }

    pub fn steps(&mut self, n: u64) {
        for _ in 0..n {
            self.step();
        }
    }

    /// Steps until `done` holds; panics after `limit` cycles.
    pub fn until(&mut self, limit: u64, what: &str, mut done: impl FnMut(&Self) -> bool) {
        let start = self.now();
        while !done(self) {
            assert!(self.now() - start < limit, "{what}: not done after {limit} cycles");
            self.step();
        }
    }

    fn post(&mut self, addr: u32, write: Option<u32>, latency: u64) {
        let after = self.mmio_queue.back().map_or(0, |p| p.arrive);
        self.mmio_queue.push_back(Pending { arrive: (self.now() + latency).max(after), write, addr });
    }

    /// A posted 32-bit register write: returns at once, as a CPU store does;
    /// the device sees it `mmio.write_latency` cycles later, after every
    /// earlier access.
    pub fn write32(&mut self, addr: u32, data: u32) {
        self.post(addr, Some(data), self.mmio.write_latency);
    }

    /// A 32-bit register read: the device sees it half a round trip after
    /// it is issued (and after every earlier access), the value is back
    /// half a round trip later.
    pub fn read32(&mut self, addr: u32) -> u32 {
        let back = self.issue_read(addr);
        self.until(100_000, "register read", |b| b.read_result.is_some());
        while self.now() < back {
            self.step();
        }
        self.read_result.unwrap()
    }

    /// [`HostBench::read32`] in parts, for a caller that steps the clock
    /// itself (several benches in one world): issues the read and returns
    /// the cycle its value is back at the CPU; [`HostBench::read_value`]
    /// has it once the device answered.
    pub fn issue_read(&mut self, addr: u32) -> u64 {
        self.read_result = None;
        let issued = self.now();
        self.post(addr, None, self.mmio.read_round_trip / 2);
        issued + self.mmio.read_round_trip
    }

    /// The value of the read [`HostBench::issue_read`] issued, once answered.
    pub fn read_value(&self) -> Option<u32> {
        self.read_result
    }

    /// Steps until every register access issued so far has reached the device.
    pub fn flush_mmio(&mut self) {
        self.until(100_000, "register writes", |b| b.mmio_queue.is_empty() && matches!(b.axil, Axil::Idle));
    }

    pub fn doorbell(&mut self, kind: DoorbellKind, queue: u32, index: u16, solicited: bool) {
        let (lo, hi) = Doorbell { kind, queue, index, solicited }.encode_halves().unwrap();
        self.write32(regs::doorbell::OFFSET, lo);
        self.write32(regs::doorbell::OFFSET + 4, hi);
    }

    /// Runs a context command to its end; returns `ctx_status.ERROR`.
    /// `ctx_count` stays as it was (0 after reset: one MTT entry).
    pub fn ctx_cmd(&mut self, op: ContextOp, table: ContextTable, index: u32) -> bool {
        let word = regs::ctx_cmd::OP.encode(op as u32).unwrap()
            | regs::ctx_cmd::TABLE.encode(table as u32).unwrap()
            | regs::ctx_cmd::INDEX.encode(index).unwrap();
        self.write32(regs::ctx_cmd::OFFSET, word);
        for _ in 0..100 {
            let s = self.read32(regs::ctx_status::OFFSET);
            if regs::ctx_status::BUSY.get(s) == 0 {
                return regs::ctx_status::ERROR.get(s) == 1;
            }
        }
        panic!("context command {op:?} {table:?} {index} still busy after 100 polls");
    }

    /// A context command over `count` MTT entries from `index` (`ctx_count`,
    /// then `ctx_cmd`); returns `ctx_status.ERROR`.
    pub fn ctx_span(&mut self, op: ContextOp, index: u32, count: u32) -> bool {
        self.write32(regs::ctx_count::OFFSET, count);
        self.ctx_cmd(op, ContextTable::Mtt, index)
    }

    /// Bring-up as the contract describes: identify, tables, enable.
    pub fn bring_up(&mut self) {
        assert_eq!(self.read32(regs::id_magic::OFFSET), regs::id_magic::RESET);
        assert!(rnic_contract::abi_compatible(self.read32(regs::id_version::OFFSET)));
        self.write32(regs::qpc_base_lo::OFFSET, QPC_TABLE as u32);
        self.write32(regs::qpc_base_hi::OFFSET, (QPC_TABLE >> 32) as u32);
        self.write32(regs::qpc_log_entries::OFFSET, 10);
        self.write32(regs::cqc_base_lo::OFFSET, CQC_TABLE as u32);
        self.write32(regs::cqc_base_hi::OFFSET, (CQC_TABLE >> 32) as u32);
        self.write32(regs::cqc_log_entries::OFFSET, 10);
        self.write32(regs::qps_base_lo::OFFSET, QPS_TABLE as u32);
        self.write32(regs::qps_base_hi::OFFSET, (QPS_TABLE >> 32) as u32);
        self.write32(regs::replay_base_lo::OFFSET, REPLAY_TABLE as u32);
        self.write32(regs::replay_base_hi::OFFSET, (REPLAY_TABLE >> 32) as u32);
        self.write32(regs::mpt_base_lo::OFFSET, MPT_TABLE as u32);
        self.write32(regs::mpt_base_hi::OFFSET, (MPT_TABLE >> 32) as u32);
        self.write32(regs::mpt_log_entries::OFFSET, 4);
        self.write32(regs::mtt_base_lo::OFFSET, MTT_TABLE as u32);
        self.write32(regs::mtt_base_hi::OFFSET, (MTT_TABLE >> 32) as u32);
        self.write32(regs::mtt_log_entries::OFFSET, 10);
        self.write32(regs::ctrl::OFFSET, regs::ctrl::ENABLE.encode(1).unwrap());
    }

    pub fn mem(&mut self) -> &mut rnic_host::HostMemory {
        &mut self.port.host.memory
    }

    pub fn write_host(&mut self, iova: u64, bytes: &[u8]) {
        self.port.host.memory.write(phys(iova), bytes);
    }

    pub fn read_host(&self, iova: u64, len: usize) -> Vec<u8> {
        self.port.host.memory.read_vec(phys(iova), len)
    }

    /// Creates QP `qpn` with its rings at `sq`/`rq` (2^log entries each) and
    /// loads it (the caches drop any line they hold of it).
    pub fn create_qp(&mut self, qpn: u32, sq: u64, sq_log: u8, rq: u64, rq_log: u8) {
        let mut e = [0u8; 128];
        qpc::SQ_BASE.set(&mut e, sq).unwrap();
        qpc::RQ_BASE.set(&mut e, rq).unwrap();
        qpc::SQ_LOG_SIZE.set(&mut e, sq_log).unwrap();
        qpc::RQ_LOG_SIZE.set(&mut e, rq_log).unwrap();
        self.write_host(QPC_TABLE + 128 * qpn as u64, &e);
        assert!(!self.ctx_cmd(ContextOp::Load, ContextTable::Qp, qpn), "Load QP {qpn}");
    }

    /// Creates CQ `cqn` with 2^log entries at `ring` and loads it.
    pub fn create_cq(&mut self, cqn: u32, ring: u64, log: u8, vector: u16, mod_count: u16, mod_time_us: u16) {
        let mut e = [0u8; 64];
        cqc::RING_BASE.set(&mut e, ring).unwrap();
        cqc::LOG_SIZE.set(&mut e, log).unwrap();
        cqc::MSIX_VECTOR.set(&mut e, vector).unwrap();
        cqc::MOD_COUNT.set(&mut e, mod_count).unwrap();
        cqc::MOD_TIME_US.set(&mut e, mod_time_us).unwrap();
        self.write_host(CQC_TABLE + 64 * cqn as u64, &e);
        self.write_host(ring, &vec![0; 32 << log]);
        assert!(!self.ctx_cmd(ContextOp::Load, ContextTable::Cq, cqn), "Load CQ {cqn}");
    }

    /// The transport posts a completion.
    pub fn post_cqe(&mut self, cqn: u32, entry: [u8; 32], solicited: bool) {
        self.cqes.push_back((cqn, entry, solicited));
    }

    pub fn cqes_pending(&self) -> usize {
        self.cqes.len() + self.cqe_presenting as usize
    }
}

impl MacSide {
    fn drive<M: Model + ?Sized>(&mut self, d: &mut M) {
        if self.rx_beats.is_empty() {
            if let Some(f) = self.rx.pop_front() {
                self.rx_beats.extend(frame_beats(&f));
            }
        }
        self.rx_offered = self.rx_credit >= 512 && !self.rx_beats.is_empty();
        match self.rx_beats.front().filter(|_| self.rx_offered) {
            Some(b) => drive_beat(d, "s_axis_rx", b),
            None => idle(d, "s_axis_rx"),
        }
        d.set("s_axis_rx.tuser", 0);
        let held = self.tx_paused && self.tx_cur.is_empty();
        self.tx_ready = self.tx_credit >= 512 && !held;
        if held && self.tx_credit >= 512 {
            self.tx_paused_cycles += 1;
        }
        d.set("m_axis_tx.tready", u64::from(self.tx_ready));
    }

    fn sample<M: Model + ?Sized>(&mut self, d: &M, now: u64) {
        // the MAC takes a beat every cycle it offers one
        if self.rx_offered {
            let b = self.rx_beats.pop_front().expect("an offered beat");
            self.rx_credit -= 8 * i64::from(b.keep.count_ones()) + if b.last { 8 * FRAME_OVERHEAD_BYTES } else { 0 };
        }
        self.rx_credit = (self.rx_credit + LINK_BITS_PER_CYCLE).min(LINK_CREDIT_MAX);
        if self.tx_ready && d.get("m_axis_tx.tvalid") == 1 {
            let mut words = [0u32; 16];
            d.get_words(d.port("m_axis_tx.tdata"), &mut words);
            let keep = d.get("m_axis_tx.tkeep");
            for (lane, byte) in words.iter().flat_map(|w| w.to_le_bytes()).enumerate() {
                if keep >> lane & 1 == 1 {
                    self.tx_cur.push(byte);
                }
            }
            self.tx_credit -= 8 * i64::from(keep.count_ones());
            if d.get("m_axis_tx.tlast") == 1 {
                self.tx_credit -= 8 * FRAME_OVERHEAD_BYTES;
                self.tx.push((now, std::mem::take(&mut self.tx_cur)));
            }
        }
        self.tx_credit = (self.tx_credit + LINK_BITS_PER_CYCLE).min(LINK_CREDIT_MAX);
    }

    /// Nothing left to receive.
    pub fn rx_idle(&self) -> bool {
        self.rx.is_empty() && self.rx_beats.is_empty()
    }
}
