//! Bench for the DMA engine: four read clients and four write clients
//! driven with random stalls, the host behind the DMA ports
//! ([`DmaPort`]), and every byte each client receives or writes checked.

use rnic_host::{HostSpace, Iommu, PcieConfig, Perms};
use rnic_sim::axis::Rng;
use rnic_sim::dma_port::{aligned_beats, aligned_keep, DmaPort};
use rnic_sim::models::dma_engine::Dut;
use rnic_sim::{Clocked, Model};
use std::collections::VecDeque;

/// Where the bench maps host memory: reads come from `READ_BASE`, writes go
/// to `WRITE_BASE`, each region `REGION` bytes; nothing else is mapped.
pub const READ_BASE: u64 = 0x1_0000_0000;
pub const WRITE_BASE: u64 = 0x2_0000_0000;
pub const REGION: u64 = 8 << 20;
/// An IOVA nothing maps.
pub const UNMAPPED: u64 = 0x7_0000_0000;

pub const CLIENTS: usize = 4;

#[derive(Clone, Debug)]
pub struct ReadCmd {
    pub addr: u64,
    pub len: u32,
    /// The bench expects every beat flagged as failed.
    pub expect_err: bool,
}

#[derive(Clone, Debug)]
pub struct WriteJob {
    pub addr: u64,
    pub data: Vec<u8>,
    pub expect_err: bool,
}

struct Ports {
    rd_addr: [usize; CLIENTS],
    rd_len: [usize; CLIENTS],
    rd_valid: [usize; CLIENTS],
    rd_ready: [usize; CLIENTS],
    d_data: [usize; CLIENTS],
    d_keep: [usize; CLIENTS],
    d_last: [usize; CLIENTS],
    d_user: [usize; CLIENTS],
    d_valid: [usize; CLIENTS],
    d_ready: [usize; CLIENTS],
    w_data: [usize; CLIENTS],
    w_keep: [usize; CLIENTS],
    w_last: [usize; CLIENTS],
    w_addr: [usize; CLIENTS],
    w_len: [usize; CLIENTS],
    w_valid: [usize; CLIENTS],
    w_ready: [usize; CLIENTS],
    wr_done: usize,
    wr_done_err: usize,
}

/// Stall probabilities, in percent.
#[derive(Clone, Copy, Debug)]
pub struct Stalls {
    /// A client offers its next read command.
    pub cmd_valid: u64,
    /// A client takes read data.
    pub data_ready: u64,
    /// A client offers its next write beat.
    pub wr_valid: u64,
    /// The PCIe side takes a request or write beat.
    pub link_ready: u64,
}

impl Stalls {
    pub const NONE: Stalls = Stalls { cmd_valid: 100, data_ready: 100, wr_valid: 100, link_ready: 100 };
}

pub struct DmaBench {
    pub sim: Clocked<Dut>,
    pub port: DmaPort,
    p: Ports,
    rng: Rng,
    pub stalls: Stalls,
    /// Per client, a percentage that overrides `stalls.data_ready`
    /// (`Some(0)`: the client takes no read data at all).
    pub data_ready: [Option<u64>; CLIENTS],
    rd_todo: [VecDeque<ReadCmd>; CLIENTS],
    rd_presenting: [bool; CLIENTS],
    rd_wait: [VecDeque<ReadCmd>; CLIENTS],
    rd_beat: [usize; CLIENTS],
    wr_todo: [VecDeque<WriteJob>; CLIENTS],
    wr_beat: [usize; CLIENTS],
    wr_presenting: [bool; CLIENTS],
    wr_wait: [VecDeque<WriteJob>; CLIENTS],
    /// Read commands fully delivered, per client, and the cycle of each.
    pub rd_done: [Vec<u64>; CLIENTS],
    /// Read bytes delivered, per client.
    pub rd_bytes: [u64; CLIENTS],
    /// Writes completed, per client, and the cycle of each.
    pub wr_done: [Vec<u64>; CLIENTS],
    /// Cycle each read command was accepted, per client.
    pub rd_accepted: [Vec<u64>; CLIENTS],
    /// The PCIe encodings set by [`DmaBench::configure`].
    cfg: (u64, u64),
    /// Read tags issued whose last data beat has not come back, by tag.
    tags_out: u64,
    /// Read requests issued whose last data beat has not come back.
    pub tags_in_flight: u64,
    /// The most read tags ever in flight at once.
    pub max_tags_in_flight: u64,
    /// A write is in progress on `m_dma_wr` (its first beat was taken).
    link_wr_open: bool,
}

impl DmaBench {
    /// A fresh engine after reset, behind a host with both regions mapped
    /// (the read region filled with random bytes) and `pcie` timing.
    pub fn new(pcie: PcieConfig, iommu: Iommu, seed: u64) -> Self {
        let dut = Dut::new();
        let pi = |f: &str| -> [usize; CLIENTS] { std::array::from_fn(|i| dut.port(&f.replace('#', &i.to_string()))) };
        let p = Ports {
            rd_addr: pi("s_rd.#.addr"),
            rd_len: pi("s_rd.#.len"),
            rd_valid: pi("s_rd.#.valid"),
            rd_ready: pi("s_rd.#.ready"),
            d_data: pi("m_rd.#.tdata"),
            d_keep: pi("m_rd.#.tkeep"),
            d_last: pi("m_rd.#.tlast"),
            d_user: pi("m_rd.#.tuser"),
            d_valid: pi("m_rd.#.tvalid"),
            d_ready: pi("m_rd.#.tready"),
            w_data: pi("s_wr.#.tdata"),
            w_keep: pi("s_wr.#.tkeep"),
            w_last: pi("s_wr.#.tlast"),
            w_addr: pi("s_wr.#.addr"),
            w_len: pi("s_wr.#.len"),
            w_valid: pi("s_wr.#.tvalid"),
            w_ready: pi("s_wr.#.tready"),
            wr_done: dut.port("wr_done"),
            wr_done_err: dut.port("wr_done_err"),
        };
        let mut host = HostSpace { iommu, ..HostSpace::default() };
        host.iommu.map(READ_BASE, REGION, 0x1000_0000, Perms::R).unwrap();
        host.iommu.map(WRITE_BASE, REGION, 0x2000_0000, Perms::W).unwrap();
        let mut rng = Rng(seed | 1);
        let mut fill = vec![0u8; REGION as usize];
        for c in fill.chunks_mut(8) {
            c.copy_from_slice(&rng.next().to_le_bytes());
        }
        host.memory.write(0x1000_0000, &fill);
        let port = DmaPort::new(&dut, host, pcie, seed ^ 0x5eed);
        let mut sim = Clocked::new(dut);
        sim.dut.set("cfg_max_read", 2);
        sim.dut.set("cfg_max_payload", 1);
        sim.reset(2);
        DmaBench {
            sim,
            port,
            p,
            rng,
            stalls: Stalls::NONE,
            rd_todo: Default::default(),
            rd_presenting: [false; CLIENTS],
            rd_wait: Default::default(),
            rd_beat: [0; CLIENTS],
            wr_todo: Default::default(),
            wr_beat: [0; CLIENTS],
            wr_presenting: [false; CLIENTS],
            wr_wait: Default::default(),
            rd_done: Default::default(),
            rd_bytes: [0; CLIENTS],
            wr_done: Default::default(),
            rd_accepted: Default::default(),
            cfg: (2, 1),
            tags_out: 0,
            data_ready: [None; CLIENTS],
            tags_in_flight: 0,
            max_tags_in_flight: 0,
            link_wr_open: false,
        }
    }

    /// Maximum read request and payload size, PCIe encoding (0: 128 B .. 5: 4 KiB).
    pub fn configure(&mut self, max_read: u64, max_payload: u64) {
        self.cfg = (max_read, max_payload);
        self.sim.dut.set("cfg_max_read", max_read);
        self.sim.dut.set("cfg_max_payload", max_payload);
    }

    pub fn read(&mut self, client: usize, cmd: ReadCmd) {
        self.rd_todo[client].push_back(cmd);
    }

    pub fn write(&mut self, client: usize, job: WriteJob) {
        self.wr_todo[client].push_back(job);
    }

    /// The bytes a read of the read region returns.
    pub fn host_bytes(&self, addr: u64, len: usize) -> Vec<u8> {
        self.port.host.memory.read_vec(addr - READ_BASE + 0x1000_0000, len)
    }

    /// What the write region holds.
    pub fn written(&self, addr: u64, len: usize) -> Vec<u8> {
        self.port.host.memory.read_vec(addr - WRITE_BASE + 0x2000_0000, len)
    }

    pub fn idle(&self) -> bool {
        (0..CLIENTS).all(|c| {
            self.rd_todo[c].is_empty()
                && self.rd_wait[c].is_empty()
                && self.wr_todo[c].is_empty()
                && self.wr_wait[c].is_empty()
        }) && self.port.idle()
    }

    /// One clock cycle. Panics, naming the client and byte, on any
    /// difference from what the host holds.
    pub fn step(&mut self) {
        let now = self.sim.cycle();
        let s = self.stalls;
        let d = &mut self.sim.dut;
        let p = &self.p;
        for c in 0..CLIENTS {
            // read command: once offered, held until taken
            if !self.rd_presenting[c] && !self.rd_todo[c].is_empty() && self.rng.chance(s.cmd_valid) {
                let cmd = self.rd_todo[c].front().unwrap();
                d.set_at(p.rd_addr[c], cmd.addr);
                d.set_at(p.rd_len[c], cmd.len.into());
                self.rd_presenting[c] = true;
            }
            d.set_at(p.rd_valid[c], self.rd_presenting[c] as u64);
            d.set_at(p.d_ready[c], self.rng.chance(self.data_ready[c].unwrap_or(s.data_ready)) as u64);
            // write beat
            if !self.wr_presenting[c] && !self.wr_todo[c].is_empty() && self.rng.chance(s.wr_valid) {
                let job = self.wr_todo[c].front().unwrap();
                let k = self.wr_beat[c];
                let keep = aligned_keep(job.addr, job.data.len(), k);
                let mut bytes = [0u8; 64];
                let base = job.addr - job.addr % 64 + 64 * k as u64;
                for (lane, b) in bytes.iter_mut().enumerate() {
                    if keep >> lane & 1 == 1 {
                        *b = job.data[(base + lane as u64 - job.addr) as usize];
                    } else {
                        *b = self.rng.next() as u8; // lanes off must not matter
                    }
                }
                let mut words = [0u32; 16];
                for (i, w) in words.iter_mut().enumerate() {
                    *w = u32::from_le_bytes(bytes[4 * i..4 * i + 4].try_into().unwrap());
                }
                d.set_words(p.w_data[c], &words);
                d.set_at(p.w_keep[c], keep);
                d.set_at(p.w_last[c], (k + 1 == aligned_beats(job.addr, job.data.len())) as u64);
                d.set_at(p.w_addr[c], job.addr);
                d.set_at(p.w_len[c], job.data.len() as u64);
                self.wr_presenting[c] = true;
            }
            d.set_at(p.w_valid[c], self.wr_presenting[c] as u64);
        }
        self.port.ready_pct = s.link_ready;
        self.port.drive(d);
        d.eval();
        self.check_link(now);
        let d = &mut self.sim.dut;
        let p = &self.p;

        for c in 0..CLIENTS {
            if self.rd_presenting[c] && d.bit_at(p.rd_ready[c]) {
                self.rd_presenting[c] = false;
                let cmd = self.rd_todo[c].pop_front().unwrap();
                self.rd_wait[c].push_back(cmd);
                self.rd_accepted[c].push(now);
            }
            if d.bit_at(p.d_valid[c]) && d.bit_at(p.d_ready[c]) {
                let cmd = self.rd_wait[c]
                    .front()
                    .unwrap_or_else(|| panic!("cycle {now}: client {c} got read data with no command outstanding"))
                    .clone();
                let k = self.rd_beat[c];
                let n = aligned_beats(cmd.addr, cmd.len as usize);
                let keep = d.get_at(p.d_keep[c]);
                let want_keep = aligned_keep(cmd.addr, cmd.len as usize, k);
                assert_eq!(keep, want_keep, "cycle {now}: client {c} read {cmd:x?} beat {k}: tkeep");
                assert_eq!(
                    d.bit_at(p.d_last[c]),
                    k + 1 == n,
                    "cycle {now}: client {c} read {cmd:x?} beat {k} of {n}: tlast"
                );
                assert_eq!(
                    d.bit_at(p.d_user[c]),
                    cmd.expect_err,
                    "cycle {now}: client {c} read {cmd:x?} beat {k}: error flag"
                );
                if !cmd.expect_err {
                    let mut words = [0u32; 16];
                    d.get_words(p.d_data[c], &mut words);
                    let base = cmd.addr - cmd.addr % 64 + 64 * k as u64;
                    let lo = cmd.addr.max(base);
                    let hi = (cmd.addr + u64::from(cmd.len)).min(base + 64);
                    let want = self.port.host.memory.read_vec(lo - READ_BASE + 0x1000_0000, (hi - lo) as usize);
                    for (i, w) in want.iter().enumerate() {
                        let lane = (lo - base) as usize + i;
                        let got = (words[lane / 4] >> (8 * (lane % 4))) as u8;
                        assert_eq!(got, *w, "cycle {now}: client {c} read {cmd:x?}: byte at IOVA {:#x}", lo + i as u64);
                    }
                }
                self.rd_bytes[c] += keep.count_ones() as u64;
                if k + 1 == n {
                    self.rd_beat[c] = 0;
                    self.rd_wait[c].pop_front();
                    self.rd_done[c].push(now);
                } else {
                    self.rd_beat[c] = k + 1;
                }
            }
            if self.wr_presenting[c] && d.bit_at(p.w_ready[c]) {
                self.wr_presenting[c] = false;
                let job = self.wr_todo[c].front().unwrap();
                self.wr_beat[c] += 1;
                if self.wr_beat[c] == aligned_beats(job.addr, job.data.len()) {
                    self.wr_beat[c] = 0;
                    let job = self.wr_todo[c].pop_front().unwrap();
                    self.wr_wait[c].push_back(job);
                }
            }
        }
        let done = d.get_at(p.wr_done);
        let done_err = d.get_at(p.wr_done_err);
        for c in 0..CLIENTS {
            if done >> c & 1 == 1 {
                let job = self.wr_wait[c]
                    .pop_front()
                    .unwrap_or_else(|| panic!("cycle {now}: client {c} got wr_done with no write outstanding"));
                assert_eq!(
                    done_err >> c & 1 == 1,
                    job.expect_err,
                    "cycle {now}: client {c} write at {:#x}+{}: error flag",
                    job.addr,
                    job.data.len()
                );
                if !job.expect_err {
                    let got = self.written(job.addr, job.data.len());
                    if let Some(i) = (0..got.len()).find(|&i| got[i] != job.data[i]) {
                        panic!(
                            "cycle {now}: client {c} write at {:#x}+{}: byte at IOVA {:#x} is {:#04x}, wrote {:#04x}",
                            job.addr,
                            job.data.len(),
                            job.addr + i as u64,
                            got[i],
                            job.data[i]
                        );
                    }
                }
                self.wr_done[c].push(now);
            }
        }
        self.port.sample(&self.sim.dut, now);
        self.sim.tick();
    }

    /// The engine's side of the boundary (docs/host.md), beyond what the
    /// host model checks: `s_dma_rd_data.tready` always 1; read tags in 0..32,
    /// at most 32 in flight, none reused while in flight; reads within the maximum read request
    /// size (at most 512 B) and never across a multiple of it; writes within
    /// the maximum payload size and never across a multiple of it.
    fn check_link(&mut self, now: u64) {
        let d = &self.sim.dut;
        assert_eq!(d.get("s_dma_rd_data.tready"), 1, "cycle {now}: s_dma_rd_data.tready is always 1");
        if d.get("m_dma_rd_req.valid") == 1 && d.get("m_dma_rd_req.ready") == 1 {
            let (addr, len, tag) = (d.get("m_dma_rd_req.addr"), d.get("m_dma_rd_req.len"), d.get("m_dma_rd_req.tag"));
            assert!(tag < 32 && self.tags_out >> tag & 1 == 0, "cycle {now}: read tag {tag} reused while in flight");
            self.tags_out |= 1 << tag;
            let mrrs = (128u64 << self.cfg.0).min(512);
            assert!(
                len <= mrrs && addr / mrrs == (addr + len - 1) / mrrs,
                "cycle {now}: read {addr:#x}+{len} crosses a multiple of the {mrrs}-byte read request size"
            );
            self.tags_in_flight += 1;
            assert!(self.tags_in_flight <= 32, "cycle {now}: more than 32 read tags in flight");
            self.max_tags_in_flight = self.max_tags_in_flight.max(self.tags_in_flight);
        }
        if d.get("s_dma_rd_data.tvalid") == 1 && d.get("s_dma_rd_data.tlast") == 1 {
            self.tags_in_flight -= 1;
            self.tags_out &= !(1 << d.get("s_dma_rd_data.tag"));
        }
        if d.get("m_dma_wr.tvalid") == 1 && d.get("m_dma_wr.tready") == 1 {
            if !self.link_wr_open {
                let (addr, len) = (d.get("m_dma_wr.addr"), d.get("m_dma_wr.len"));
                let mps = 128u64 << self.cfg.1;
                assert!(
                    len <= mps && addr / mps == (addr + len - 1) / mps,
                    "cycle {now}: write {addr:#x}+{len} crosses a multiple of the {mps}-byte maximum payload size"
                );
            }
            self.link_wr_open = d.get("m_dma_wr.tlast") == 0;
        }
    }

    /// Steps until everything queued is done; panics after `limit` cycles.
    pub fn run(&mut self, limit: u64) -> u64 {
        let start = self.sim.cycle();
        while !self.idle() {
            assert!(self.sim.cycle() - start < limit, "DMA bench still busy after {limit} cycles");
            self.step();
        }
        // let the last write completions and counters settle
        for _ in 0..4 {
            self.step();
        }
        self.sim.cycle() - start
    }

    pub fn counter(&self, name: &str) -> u64 {
        self.sim.dut.get(name)
    }
}

/// What a bandwidth run measured.
#[derive(Debug, Clone, Copy)]
pub struct Bandwidth {
    pub bytes: u64,
    pub cycles: u64,
    /// Bytes per cycle over the link model's bytes per cycle.
    pub fraction: f64,
    /// The most read tags in flight at once.
    pub max_tags: u64,
}

/// Back-to-back transfers of `size` bytes, `total` bytes in all, on one
/// client with no stalls: reads on the payload-read client, writes on the
/// payload-write client, from the first command to the last byte delivered
/// (reads) or the last write completion (writes).
pub fn bandwidth(read: bool, size: u64, total: u64) -> Bandwidth {
    let mut b = DmaBench::new(PcieConfig::gen3_x16(), Iommu::strict(), 600);
    let n = (total / size).max(1);
    for k in 0..n {
        if read {
            b.read(1, ReadCmd { addr: READ_BASE + k * size, len: size as u32, expect_err: false });
        } else {
            b.write(0, WriteJob { addr: WRITE_BASE + k * size, data: vec![k as u8; size as usize], expect_err: false });
        }
    }
    let start = b.sim.cycle();
    b.run(10_000_000);
    let end = if read { *b.rd_done[1].last().unwrap() } else { *b.wr_done[0].last().unwrap() };
    let link =
        if read { PcieConfig::gen3_x16().read_bytes_per_cycle } else { PcieConfig::gen3_x16().write_bytes_per_cycle };
    let cycles = end + 1 - start;
    Bandwidth {
        bytes: n * size,
        cycles,
        fraction: (n * size) as f64 / cycles as f64 / link as f64,
        max_tags: b.max_tags_in_flight,
    }
}

/// Cycles from a read command being offered to its last byte delivered,
/// on an idle engine and link.
pub fn read_latency(len: u32) -> u64 {
    let mut b = DmaBench::new(PcieConfig::gen3_x16(), Iommu::strict(), 601);
    b.read(1, ReadCmd { addr: READ_BASE, len, expect_err: false });
    let start = b.sim.cycle();
    b.run(100_000);
    b.rd_done[1][0] + 1 - start
}
