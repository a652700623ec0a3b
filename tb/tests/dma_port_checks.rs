//! The checks `DmaPort` makes on the device's side of the DMA contract
//! (docs/host.md, docs/harness.md): each fires on a deliberately broken
//! device and names the violation; a well-behaved device raises none and
//! gets its bytes. The device is a fake `Model` whose outputs the test sets
//! by hand, so every violation can be produced on purpose.

use rnic_host::{HostSpace, Iommu, PcieConfig, Perms};
use rnic_hw::host::DMA_RD_TAGS;
use rnic_sim::dma_port::{aligned_beats, aligned_keep, DmaPort};
use rnic_sim::{Model, PortDir, PortInfo};
use std::panic::{catch_unwind, AssertUnwindSafe};

const fn port(name: &'static str, width: usize) -> PortInfo {
    // the direction does not matter to the fake: every port is storage
    PortInfo { name, rust_path: name, width, dir: PortDir::Out, is_clock: false }
}

static PORTS: [PortInfo; 22] = [
    port("m_dma_rd_req.addr", 64),
    port("m_dma_rd_req.len", 13),
    port("m_dma_rd_req.tag", 8),
    port("m_dma_rd_req.valid", 1),
    port("m_dma_rd_req.ready", 1),
    port("s_dma_rd_data.tdata", 512),
    port("s_dma_rd_data.tag", 8),
    port("s_dma_rd_data.tlast", 1),
    port("s_dma_rd_data.err", 1),
    port("s_dma_rd_data.tvalid", 1),
    port("s_dma_rd_data.tready", 1),
    port("m_dma_wr.tdata", 512),
    port("m_dma_wr.tkeep", 64),
    port("m_dma_wr.tlast", 1),
    port("m_dma_wr.addr", 64),
    port("m_dma_wr.len", 13),
    port("m_dma_wr.tag", 8),
    port("m_dma_wr.tvalid", 1),
    port("m_dma_wr.tready", 1),
    port("s_dma_wr_cpl.tag", 8),
    port("s_dma_wr_cpl.err", 1),
    port("s_dma_wr_cpl.valid", 1),
];

/// A device whose every port is a register the test writes.
struct Fake {
    v: Vec<Vec<u32>>,
}

impl Fake {
    fn new() -> Self {
        Fake { v: PORTS.iter().map(|p| vec![0; p.words()]).collect() }
    }
}

impl Model for Fake {
    fn ports(&self) -> &'static [PortInfo] {
        &PORTS
    }
    fn eval(&mut self) {}
    fn set_words(&mut self, idx: usize, w: &[u32]) {
        let n = self.v[idx].len();
        for (i, x) in self.v[idx].iter_mut().enumerate() {
            *x = w.get(i).copied().unwrap_or(0);
        }
        // mask to the port's width, as a Verilated port would hold it
        let width = PORTS[idx].width;
        if !width.is_multiple_of(32) {
            self.v[idx][n - 1] &= (1u32 << (width % 32)) - 1;
        }
    }
    fn get_words(&self, idx: usize, w: &mut [u32]) {
        for (i, x) in w.iter_mut().enumerate() {
            *x = self.v[idx].get(i).copied().unwrap_or(0);
        }
    }
}

const BASE: u64 = 0x10_0000;
const MAPPED: u64 = 0x4_0000;

struct Rig {
    dut: Fake,
    port: DmaPort,
    now: u64,
    /// Write completions seen, `(tag, err)`.
    cpls: Vec<(u64, bool)>,
}

impl Rig {
    fn new() -> Self {
        Self::with(HostSpace::new())
    }
    fn with(mut host: HostSpace) -> Self {
        let dut = Fake::new();
        host.iommu.map(BASE, MAPPED, 0x8000_0000, Perms::RW).unwrap();
        let mut port = DmaPort::new(&dut, host, PcieConfig::gen3_x16(), 1);
        port.ready_pct = 100;
        let mut r = Rig { dut, port, now: 0, cpls: vec![] };
        r.dut.set("s_dma_rd_data.tready", 1);
        r
    }
    /// One cycle: the port drives, the device's outputs (already set) are
    /// sampled, then the one-cycle strobes drop.
    fn cycle(&mut self) {
        self.port.drive(&mut self.dut);
        if self.dut.get("s_dma_wr_cpl.valid") == 1 {
            self.cpls.push((self.dut.get("s_dma_wr_cpl.tag"), self.dut.get("s_dma_wr_cpl.err") == 1));
        }
        self.port.sample(&self.dut, self.now);
        self.now += 1;
        self.dut.set("m_dma_rd_req.valid", 0);
        self.dut.set("m_dma_wr.tvalid", 0);
    }
    fn read(&mut self, addr: u64, len: u64, tag: u64) {
        self.dut.set("m_dma_rd_req.addr", addr);
        self.dut.set("m_dma_rd_req.len", len);
        self.dut.set("m_dma_rd_req.tag", tag);
        self.dut.set("m_dma_rd_req.valid", 1);
        self.cycle();
    }
    /// One write beat with the given header, keep and last.
    fn beat(&mut self, addr: u64, len: u64, tag: u64, data: &[u8; 64], keep: u64, last: bool) {
        let words: Vec<u32> = data.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect();
        let i = self.dut.port("m_dma_wr.tdata");
        self.dut.set_words(i, &words);
        self.dut.set("m_dma_wr.addr", addr);
        self.dut.set("m_dma_wr.len", len);
        self.dut.set("m_dma_wr.tag", tag);
        self.dut.set("m_dma_wr.tkeep", keep);
        self.dut.set("m_dma_wr.tlast", last as u64);
        self.dut.set("m_dma_wr.tvalid", 1);
        self.cycle();
    }
    /// A correct write of `bytes` at `addr`: address-aligned beats.
    fn write(&mut self, addr: u64, bytes: &[u8], tag: u64) {
        let n = aligned_beats(addr, bytes.len());
        let mut at = 0;
        for k in 0..n {
            let keep = aligned_keep(addr, bytes.len(), k);
            let mut data = [0u8; 64];
            for (lane, slot) in data.iter_mut().enumerate() {
                if keep >> lane & 1 == 1 {
                    *slot = bytes[at];
                    at += 1;
                }
            }
            self.beat(addr, bytes.len() as u64, tag, &data, keep, k + 1 == n);
        }
    }
}

/// Runs `f` on a fresh rig and returns its panic message; fails if it does not panic.
fn violation(f: impl FnOnce(&mut Rig)) -> String {
    let mut rig = Rig::new();
    let r = catch_unwind(AssertUnwindSafe(|| f(&mut rig)));
    let e = r.expect_err("the port accepted a contract violation");
    e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string())).unwrap()
}

fn assert_names(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "message {msg:?} does not name {p:?}");
    }
}

#[test]
fn read_of_zero_bytes_is_refused() {
    let m = violation(|r| r.read(BASE, 0, 3));
    assert_names(&m, &["DMA read tag 3", "length 0"]);
}

#[test]
fn read_over_4096_bytes_is_refused() {
    let m = violation(|r| r.read(BASE, 4097, 4));
    assert_names(&m, &["DMA read tag 4", "length 4097"]);
}

#[test]
fn read_crossing_4k_is_refused() {
    // 4096 bytes are allowed, but not from an unaligned start
    let m = violation(|r| r.read(BASE + 0x40, 4096, 5));
    assert_names(&m, &["DMA read tag 5", "crosses 4 KiB"]);
    let m = violation(|r| r.read(BASE + 0xFFF, 2, 6));
    assert_names(&m, &["DMA read tag 6", "crosses 4 KiB"]);
}

#[test]
fn read_tag_reused_in_flight_is_refused() {
    let m = violation(|r| {
        r.read(BASE, 64, 7);
        r.read(BASE + 0x1000, 64, 7);
    });
    assert_names(&m, &["DMA read tag 7", "reused while in flight"]);
}

#[test]
fn write_of_zero_or_too_many_bytes_is_refused() {
    let m = violation(|r| r.beat(BASE, 0, 1, &[0; 64], 0, true));
    assert_names(&m, &["DMA write tag 1", "length 0"]);
    let m = violation(|r| r.beat(BASE, 4097, 2, &[0; 64], u64::MAX, false));
    assert_names(&m, &["DMA write tag 2", "length 4097"]);
}

#[test]
fn write_crossing_4k_is_refused() {
    let m = violation(|r| r.write(BASE + 0xFC0, &[1; 128], 3));
    assert_names(&m, &["DMA write tag 3", "crosses 4 KiB"]);
}

#[test]
fn write_byte_enables_must_match_addr_and_len() {
    // 100 bytes at offset 8: the first beat enables lanes 8..63
    let addr = BASE + 8;
    let good = aligned_keep(addr, 100, 0);
    assert_eq!(good, u64::MAX << 8);
    let m = violation(|r| r.beat(addr, 100, 9, &[0; 64], u64::MAX, false));
    assert_names(&m, &["DMA write tag 9", "beat 0", "tkeep 0xffffffffffffffff", &format!("expected {good:#018x}")]);
    // a wrong last beat: one lane too many
    let m = violation(|r| {
        r.beat(addr, 100, 9, &[0; 64], good, false);
        let last = aligned_keep(addr, 100, 1);
        r.beat(addr, 100, 9, &[0; 64], last << 1 | 1, true);
    });
    assert_names(&m, &["DMA write tag 9", "beat 1", "tkeep"]);
}

#[test]
fn write_tlast_must_be_on_the_last_beat() {
    // 100 bytes at offset 8 take two beats: tlast early ...
    let addr = BASE + 8;
    let m = violation(|r| r.beat(addr, 100, 10, &[0; 64], aligned_keep(addr, 100, 0), true));
    assert_names(&m, &["DMA write tag 10", "tlast on beat 0 of 2"]);
    // ... or missing on the last
    let m = violation(|r| {
        r.beat(addr, 100, 10, &[0; 64], aligned_keep(addr, 100, 0), false);
        r.beat(addr, 100, 10, &[0; 64], aligned_keep(addr, 100, 1), false);
    });
    assert_names(&m, &["DMA write tag 10", "tlast on beat 1 of 2"]);
}

#[test]
fn write_header_must_hold_across_beats() {
    let addr = BASE + 8;
    let m = violation(|r| {
        r.beat(addr, 100, 11, &[0; 64], aligned_keep(addr, 100, 0), false);
        r.beat(addr, 100, 12, &[0; 64], aligned_keep(addr, 100, 1), true);
    });
    assert_names(&m, &["header changed within a write"]);
}

#[test]
fn iommu_fault_panics_in_strict_mode() {
    let m = violation(|r| {
        r.read(BASE + MAPPED, 64, 1);
        for _ in 0..10_000 {
            r.cycle();
        }
    });
    assert_names(&m, &["DMA fault", "read of 64 bytes", &format!("{:#x}", BASE + MAPPED)]);
}

/// In counting mode the same fault is no panic but one beat with `err` and
/// `tlast` on the request's tag (docs/host.md), and the IOMMU records it.
#[test]
fn iommu_fault_is_an_error_beat_in_counting_mode() {
    let mut r = Rig::with(HostSpace { iommu: Iommu::counting(), ..HostSpace::new() });
    r.read(BASE + MAPPED, 64, 9);
    let mut beats = vec![];
    for _ in 0..10_000 {
        r.cycle();
        if r.dut.get("s_dma_rd_data.tvalid") == 1 {
            beats.push((
                r.dut.get("s_dma_rd_data.tag"),
                r.dut.get("s_dma_rd_data.err"),
                r.dut.get("s_dma_rd_data.tlast"),
            ));
        }
        if r.port.idle() {
            break;
        }
    }
    assert_eq!(beats, vec![(9, 1, 1)], "one error beat with tlast, on tag 9");
    assert_eq!(r.port.host.iommu.fault_count(), 1);
}

#[test]
fn read_tag_out_of_range_is_refused() {
    let m = violation(|r| r.read(BASE, 64, DMA_RD_TAGS as u64));
    assert_names(&m, &[&format!("DMA read tag {DMA_RD_TAGS}"), "tag out of range"]);
    // the last legal tag is fine
    let mut r = Rig::new();
    r.read(BASE, 64, DMA_RD_TAGS as u64 - 1);
}

/// A well-behaved device: reads of every legal shape (1 byte, unaligned,
/// exactly one 4 KiB page, many tags in flight at once) and writes of every
/// legal shape pass without a panic; the bytes read are host memory's, the
/// bytes written land, and every write completes once, with its tag.
#[test]
fn a_well_behaved_device_raises_nothing() {
    let mut r = Rig::new();
    let pattern: Vec<u8> = (0..MAPPED).map(|i| (i * 7 + i / 251) as u8).collect();
    r.port.host.dma_write(BASE, &pattern).unwrap();
    let reads: Vec<(u64, u64)> = vec![(0, 1), (0x13, 300), (0x1000, 4096), (0x2FC0, 64), (0x3001, 4095), (0x5FFF, 1)];
    for (tag, &(off, len)) in reads.iter().enumerate() {
        r.read(BASE + off, len, tag as u64);
    }
    let mut got: Vec<Vec<u8>> = vec![vec![]; reads.len()];
    let mut done = vec![false; reads.len()];
    let mut cycles = 0;
    while !done.iter().all(|d| *d) {
        r.cycle();
        cycles += 1;
        assert!(cycles < 100_000, "reads complete");
        if r.dut.get("s_dma_rd_data.tvalid") == 1 {
            let tag = r.dut.get("s_dma_rd_data.tag") as usize;
            assert_eq!(r.dut.get("s_dma_rd_data.err"), 0, "no read fails");
            let mut w = [0u32; 16];
            let i = r.dut.port("s_dma_rd_data.tdata");
            r.dut.get_words(i, &mut w);
            let (off, len) = reads[tag];
            let addr = BASE + off + got[tag].len() as u64;
            let lane = (addr % 64) as usize;
            let bytes: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
            let take = (64 - lane).min(len as usize - got[tag].len());
            got[tag].extend_from_slice(&bytes[lane..lane + take]);
            if r.dut.get("s_dma_rd_data.tlast") == 1 {
                done[tag] = true;
            }
        }
    }
    for (tag, &(off, len)) in reads.iter().enumerate() {
        assert_eq!(got[tag], pattern[off as usize..(off + len) as usize], "read tag {tag}");
    }
    // a tag may be reused once its read completed
    r.read(BASE, 64, 0);
    // writes
    let writes: Vec<(u64, usize)> = vec![(0x8000, 1), (0x8013, 300), (0x9000, 4096), (0xA03F, 65), (0xB001, 4095)];
    for (tag, &(off, len)) in writes.iter().enumerate() {
        let bytes: Vec<u8> = (0..len).map(|i| (i as u8) ^ (tag as u8 + 0x55)).collect();
        r.write(BASE + off, &bytes, 32 + tag as u64);
    }
    for _ in 0..100_000 {
        if r.port.idle() {
            break;
        }
        r.cycle();
    }
    assert!(r.port.idle(), "everything drained");
    let want: Vec<(u64, bool)> = (32..32 + writes.len() as u64).map(|t| (t, false)).collect();
    assert_eq!(r.cpls, want, "one completion per write, in order, none failed");
    for (tag, &(off, len)) in writes.iter().enumerate() {
        let want: Vec<u8> = (0..len).map(|i| (i as u8) ^ (tag as u8 + 0x55)).collect();
        let mut have = vec![0u8; len];
        r.port.host.dma_read(BASE + off, &mut have).unwrap();
        assert_eq!(have, want, "write tag {}", 32 + tag);
    }
    assert_eq!(r.port.stats.read_requests, reads.len() as u64 + 1);
    assert_eq!(r.port.stats.write_requests, writes.len() as u64);
    assert_eq!(r.port.stats.write_bytes, writes.iter().map(|w| w.1 as u64).sum::<u64>());
}
