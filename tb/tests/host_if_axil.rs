//! The register port's handshakes, seen cycle by cycle on the generated
//! Verilog of `HostIf` (docs/host.md, `s_axil`): one write and one read
//! outstanding, and doorbells that find the previous one still waiting push
//! back on `awready`/`wready` instead of being dropped.

use rnic_contract::codes::DoorbellKind;
use rnic_contract::regs::{self, Doorbell};
use rnic_host::PcieConfig;
use rnic_sim::Model;
use rnic_tb::host_bench::*;

/// What the port showed in one cycle, after the inputs were driven.
#[derive(Clone, Copy, Debug, Default)]
struct Seen {
    awready: bool,
    wready: bool,
    arready: bool,
    bvalid: bool,
    rvalid: bool,
    rdata: u32,
    /// Vector of an interrupt request taken this cycle.
    irq: Option<u32>,
}

/// Inputs of the register port for one cycle.
#[derive(Clone, Copy, Default)]
struct Drive {
    write: Option<(u32, u32)>,
    read: Option<u32>,
    bready: bool,
    rready: bool,
    work_ready: bool,
    irq_ready: bool,
}

/// One cycle driven by hand (the bench's own register driver stays idle):
/// the host model keeps answering DMA.
fn cycle(b: &mut HostBench, i: Drive) -> Seen {
    let now = b.sim.cycle();
    let d = &mut b.sim.dut;
    let (wa, wd) = i.write.unwrap_or((0, 0));
    d.set("s_axil.awaddr", wa as u64);
    d.set("s_axil.wdata", wd as u64);
    d.set("s_axil.wstrb", 0xF);
    d.set("s_axil.awvalid", i.write.is_some() as u64);
    d.set("s_axil.wvalid", i.write.is_some() as u64);
    d.set("s_axil.araddr", i.read.unwrap_or(0) as u64);
    d.set("s_axil.arvalid", i.read.is_some() as u64);
    d.set("s_axil.bready", i.bready as u64);
    d.set("s_axil.rready", i.rready as u64);
    d.set("m_work.ready", i.work_ready as u64);
    d.set("m_irq.ready", i.irq_ready as u64);
    b.port.drive(d);
    d.eval();
    let s = Seen {
        awready: d.get("s_axil.awready") == 1,
        wready: d.get("s_axil.wready") == 1,
        arready: d.get("s_axil.arready") == 1,
        bvalid: d.get("s_axil.bvalid") == 1,
        rvalid: d.get("s_axil.rvalid") == 1,
        rdata: d.get("s_axil.rdata") as u32,
        irq: (d.get("m_irq.valid") == 1 && i.irq_ready).then(|| d.get("m_irq.vector") as u32),
    };
    b.port.sample(&b.sim.dut, now);
    b.sim.tick();
    s
}

fn ready_bench() -> HostBench {
    let mut b = HostBench::new(PcieConfig::gen3_x16(), 21);
    b.bring_up();
    b.flush_mmio();
    b.steps(4);
    b
}

/// Presents a write until both halves are taken; returns the cycles it waited.
fn write_through(b: &mut HostBench, addr: u32, data: u32, bready: bool) -> u64 {
    for waited in 0..100 {
        let s = cycle(
            b,
            Drive { write: Some((addr, data)), bready, work_ready: true, irq_ready: true, ..Drive::default() },
        );
        assert_eq!(s.awready, s.wready, "address and data are taken together");
        if s.awready {
            return waited;
        }
    }
    panic!("write {addr:#x} not taken in 100 cycles");
}

/// One write outstanding: while the response of a write is not taken
/// (`bready` low), `bvalid` holds and a second write sees `awready` and
/// `wready` low; once the response goes, the second write is taken and
/// lands.
#[test]
fn one_write_outstanding() {
    let mut b = ready_bench();
    let scratch = regs::scratch::OFFSET;
    assert_eq!(write_through(&mut b, scratch, 0x1111_1111, false), 0, "an idle port takes a write at once");
    const HOLD: usize = 40;
    for k in 0..HOLD {
        let s = cycle(&mut b, Drive { write: Some((scratch, 0x2222_2222)), irq_ready: true, ..Drive::default() });
        if k > 0 {
            assert!(s.bvalid, "cycle {k}: the first write's response is held until taken");
        }
        assert!(!s.awready && !s.wready, "cycle {k}: a second write is not taken while a response is pending");
    }
    // the response goes, then the second write is taken
    let s =
        cycle(&mut b, Drive { write: Some((scratch, 0x2222_2222)), bready: true, irq_ready: true, ..Drive::default() });
    assert!(s.bvalid && !s.awready, "the response is taken in this cycle, the second write not yet");
    let waited = write_through(&mut b, scratch, 0x2222_2222, true);
    assert!(waited <= 1, "the second write is taken right after the response ({waited} cycles)");
    for _ in 0..4 {
        cycle(&mut b, Drive { bready: true, work_ready: true, irq_ready: true, ..Drive::default() });
    }
    assert_eq!(b.read32(scratch), 0x2222_2222, "the held write landed, after the first");
}

/// One read outstanding: while read data is not taken (`rready` low),
/// `rvalid` and `rdata` hold and a second read sees `arready` low; once the
/// data goes, the second read is taken and answers its own register.
#[test]
fn one_read_outstanding() {
    let mut b = ready_bench();
    b.write32(regs::scratch::OFFSET, 0x5A5A_0001);
    b.flush_mmio();
    b.steps(4);
    let s = cycle(&mut b, Drive { read: Some(regs::scratch::OFFSET), irq_ready: true, ..Drive::default() });
    assert!(s.arready, "an idle port takes a read at once");
    const HOLD: usize = 40;
    for k in 0..HOLD {
        let s = cycle(&mut b, Drive { read: Some(regs::id_magic::OFFSET), irq_ready: true, ..Drive::default() });
        assert!(s.rvalid, "cycle {k}: the first read's data is held until taken");
        assert_eq!(s.rdata, 0x5A5A_0001, "cycle {k}: and stays the first read's");
        assert!(!s.arready, "cycle {k}: a second read is not taken while data is pending");
    }
    let s =
        cycle(&mut b, Drive { read: Some(regs::id_magic::OFFSET), rready: true, irq_ready: true, ..Drive::default() });
    assert!(s.rvalid && !s.arready && s.rdata == 0x5A5A_0001, "the first data taken, the second read not yet");
    let mut got = None;
    for _ in 0..10 {
        let s = cycle(
            &mut b,
            Drive {
                read: got.is_none().then_some(regs::id_magic::OFFSET),
                rready: true,
                irq_ready: true,
                ..Drive::default()
            },
        );
        if s.arready && got.is_none() {
            got = Some(0);
        } else if got == Some(0) && s.rvalid {
            got = Some(s.rdata);
            break;
        }
    }
    assert_eq!(got, Some(regs::id_magic::RESET), "the second read answers its own register");
}

/// Doorbells back to back while the interrupt they cause is not taken:
/// each CqArm doorbell on a CQ with an unpolled completion requests an
/// interrupt; with `m_irq.ready` low the interrupt queue fills, the next
/// doorbell waits in the register file, and the doorbell after it finds
/// the previous one still waiting: `awready`/`wready` stay low for as long
/// as the interrupts are held. When they are taken again, every doorbell
/// has its interrupt, exactly once. (SQ/RQ producer doorbells cannot be
/// made to wait this way: the fetch side's FIFO of queues with work holds
/// every queue, so it takes one per cycle whatever the transport does.)
#[test]
fn doorbells_push_back_and_none_is_dropped() {
    let mut b = ready_bench();
    let cqns: Vec<u32> = (100..132).collect();
    for (i, &c) in cqns.iter().enumerate() {
        b.create_cq(c, RINGS + 0x300_0000 + 0x1000 * i as u64, 4, c as u16, 1, 0);
        b.post_cqe(c, HostBench::make_cqe(c as u64, 1, 0), false);
    }
    b.until(10_000, "CQEs taken", |b| b.cqes_pending() == 0);
    b.steps(500);
    assert!(b.irq_requests.is_empty(), "no interrupt before arming");
    const STALL: u64 = 3000;
    let mut irqs: Vec<u32> = vec![];
    let mut stalled_hi = vec![0u64; cqns.len()];
    let mut stalled_lo = 0u64;
    let start = b.now();
    let mut pending_b = false;
    for (i, &c) in cqns.iter().enumerate() {
        let (lo, hi) =
            Doorbell { kind: DoorbellKind::CqArm, queue: c, index: 0, solicited: false }.encode_halves().unwrap();
        for (half, addr, data) in [(0, regs::doorbell::OFFSET, lo), (1, regs::doorbell::OFFSET + 4, hi)] {
            // wait for the previous response: one write outstanding
            while pending_b {
                let irq_ready = b.now() - start >= STALL;
                let s = cycle(&mut b, Drive { bready: true, irq_ready, ..Drive::default() });
                irqs.extend(s.irq);
                pending_b = !s.bvalid;
            }
            loop {
                let irq_ready = b.now() - start >= STALL;
                let s = cycle(&mut b, Drive { write: Some((addr, data)), bready: true, irq_ready, ..Drive::default() });
                irqs.extend(s.irq);
                assert_eq!(s.awready, s.wready);
                if s.awready {
                    break;
                }
                assert!(b.now() - start < 100_000, "doorbell {c} half {half} never taken");
                if half == 1 {
                    stalled_hi[i] += 1;
                } else {
                    stalled_lo += 1;
                }
            }
            pending_b = true;
        }
    }
    let taken_all = b.now() - start;
    for _ in 0..2000 {
        let s = cycle(&mut b, Drive { bready: true, irq_ready: true, ..Drive::default() });
        irqs.extend(s.irq);
    }
    let held: u64 = stalled_hi.iter().sum();
    let longest = *stalled_hi.iter().max().unwrap();
    let first_held = stalled_hi.iter().position(|&n| n > 0);
    eprintln!(
        "{} CqArm doorbells, interrupts held {STALL} cycles: {held} cycles of backpressure on the high halves \
         (longest {longest}, first at doorbell {first_held:?}), {stalled_lo} on the low halves, \
         all taken after {taken_all} cycles",
        cqns.len()
    );
    assert!(held > 0, "a doorbell that found the previous one waiting was held");
    assert!(longest >= STALL / 2, "held for as long as the interrupts were (longest {longest})");
    assert_eq!(stalled_lo, 0, "the low half is only latched: it never waits");
    assert!(taken_all >= STALL, "no doorbell was swallowed while the interrupts were held");
    irqs.sort();
    assert_eq!(irqs, cqns, "every doorbell raised its CQ's interrupt, exactly once");
    assert_eq!(b.read32(regs::events::OFFSET), 0, "no doorbell error");
}
