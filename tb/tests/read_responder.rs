//! READ responses from one simulated NIC (`rnic_core` driven by the real
//! driver; the requester is played by the test with crafted frames,
//! `rnic_tb::bad_packets::Crafter`). The reference is the protocol model's
//! responder (`rnic_proto::rc::responder::Responder`) over the same bytes:
//! every frame the NIC sends (READ RESPONSE FIRST/MIDDLE/LAST/ONLY, and the
//! ACKs of WRITEs between the READs) is decoded and compared with the
//! model's packet: opcode, destination QP, PSN, AETH, payload; in the
//! model's order, so an ACK never overtakes a READ's responses. A READ
//! writes nothing to host memory; the checksums and ICRC of every frame are
//! good. Then the goodput of a long READ. Atomics the same way: COMPARE_SWAP
//! (matching and not) and FETCH_ADD between WRITEs and READs of the same
//! words, each ATOMIC ACKNOWLEDGE's original value the model's and the
//! region's bytes afterwards the model's. Duplicates of READs and atomics
//! as the model answers them (replayed from the replay table in host
//! memory, or dropped), the counters the model's.

use rnic_contract::codes::{Mtu, QpType};
use rnic_driver::*;
use rnic_proto::rc::responder::{QpAccess, Responder, ResponderConfig};
use rnic_proto::rc::{Access, KeyError, MemFault, Memory, RcPacket};
use rnic_proto::{decode_frame, AtomicEth, Opcode, Pmtu, Psn, RnrTimer};
use rnic_tb::bad_packets::{pattern, Crafter};
use rnic_tb::lone_nic::{idle, inject, open_nic, settle, tx_len, writes_len, Probe};
use rnic_tb::sim_net::{connect_rc_access, nic_ip, RcTimers, RC_MAX_DEST_RD_ATOMIC};

/// The (absent) peer's QP.
const PEER_QPN: u32 = 0x77;
/// The region's bytes.
const REGION: usize = 1 << 17;

/// The region as the model sees it: one key, every remote right.
struct Region {
    base: u64,
    rkey: u32,
    pd: u32,
    data: Vec<u8>,
}

impl Memory for Region {
    fn check(&self, pd: u32, key: u32, va: u64, len: u64, _: Access) -> std::result::Result<(), KeyError> {
        if key != self.rkey {
            return Err(KeyError::UnknownKey);
        }
        if pd != self.pd {
            return Err(KeyError::WrongPd);
        }
        let end = va.checked_add(len).ok_or(KeyError::OutOfBounds)?;
        if va < self.base || end > self.base + self.data.len() as u64 {
            return Err(KeyError::OutOfBounds);
        }
        Ok(())
    }
    fn read(&self, va: u64, out: &mut [u8]) -> std::result::Result<(), MemFault> {
        let at = (va - self.base) as usize;
        out.copy_from_slice(&self.data[at..at + out.len()]);
        Ok(())
    }
    fn write(&mut self, va: u64, data: &[u8]) -> std::result::Result<(), MemFault> {
        let at = (va - self.base) as usize;
        self.data[at..at + data.len()].copy_from_slice(data);
        Ok(())
    }
}

/// A connected QP on the lone NIC with a registered region of known bytes,
/// and the model of its responder over the same bytes.
struct Target {
    ctx: Context,
    probe: Probe,
    crafter: Crafter,
    qpn: u32,
    region: Region,
    model: Responder,
    buf: DmaBuffer,
    _keep: (QueuePair, MemoryRegion, CompletionQueue, ProtectionDomain),
}

fn target(seed: u64, mtu: Mtu, epsn: u32) -> Target {
    target_with(seed, mtu, epsn, false)
}

/// The target, its QP and region with the atomic right when `atomic`.
fn target_with(seed: u64, mtu: Mtu, epsn: u32, atomic: bool) -> Target {
    let (ctx, probe) = open_nic(seed);
    let crafter = Crafter { mac: ctx.query_device().mac, src: nic_ip(0), dst: nic_ip(1) };
    let pd = ctx.alloc_pd().unwrap();
    let cq = ctx.create_cq(64, None).unwrap();
    let buf = ctx.alloc_buffer(REGION).unwrap();
    let data = pattern(seed as u32, REGION);
    buf.write(0, &data).unwrap();
    let mut rights = AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ;
    if atomic {
        rights = rights | AccessFlags::REMOTE_ATOMIC;
    }
    let mr = pd.reg_mr(&buf, 0, REGION, rights | AccessFlags::LOCAL_WRITE).unwrap();
    let mut qp = pd.create_qp(QpType::Rc, &cq, &cq).max_send_wr(16).max_recv_wr(16).build().unwrap();
    connect_rc_access(&mut qp, &ctx, 0, PEER_QPN, (0x5000, epsn), mtu, RcTimers::default(), rights);
    let pmtu = Pmtu::from_ibv(mtu as u8).unwrap();
    let cfg = ResponderConfig {
        dest_qp: PEER_QPN,
        pmtu,
        start_psn: Psn::new(epsn),
        max_dest_rd_atomic: RC_MAX_DEST_RD_ATOMIC.into(),
        min_rnr_timer: RnrTimer::new(12).unwrap(),
        pd: 0,
        max_recv_sge: 4,
        access: QpAccess { remote_write: true, remote_read: true, remote_atomic: atomic },
    };
    let region = Region { base: mr.addr(), rkey: mr.rkey(), pd: 0, data };
    let qpn = qp.qp_num();
    idle(&probe, 200);
    Target { ctx, probe, crafter, qpn, region, model: Responder::new(cfg), buf, _keep: (qp, mr, cq, pd) }
}

/// A request of the test's sequence.
#[derive(Clone, Debug)]
enum Req {
    /// A READ of `len` bytes at this offset in the region.
    Read(u64, u32),
    /// A 64-byte WRITE ONLY with AckReq at this offset.
    Write(u64),
    /// A COMPARE_SWAP at this offset: compare with the word there (when
    /// `true`, so it swaps) or with another value, and the swap value.
    CmpSwap(u64, bool, u64),
    /// A FETCH_ADD at this offset.
    FetchAdd(u64, u64),
    /// The request again at this PSN (a duplicate: the expected PSN stays).
    Dup(u32, Box<Req>),
}

impl Req {
    /// An original READ or atomic: the responder remembers it (one 32-byte
    /// write into the replay table).
    fn remembered(&self) -> bool {
        matches!(self, Req::Read(..) | Req::CmpSwap(..) | Req::FetchAdd(..))
    }
}

impl Target {
    /// Sends `reqs` back to back from PSN `psn`; returns the frames the NIC
    /// sent for them after checking each against the model's packet.
    fn run(&mut self, psn: u32, reqs: &[Req]) -> Vec<(u64, Vec<u8>)> {
        let (mut frames, mut want) = (vec![], vec![]);
        assert_eq!(Psn::new(psn), self.model.expected_psn(), "the sequence starts at the expected PSN");
        for r in reqs {
            let (r, psn) = match r {
                Req::Dup(p, r) => (&**r, Psn::new(*p)),
                r => (r, self.model.expected_psn()),
            };
            let f = match *r {
                Req::Read(off, len) => {
                    self.crafter.read(self.qpn, psn.value(), self.region.base + off, self.region.rkey, len)
                }
                Req::Write(off) => {
                    let va = self.region.base + off;
                    self.crafter.write(self.qpn, Opcode::RcWriteOnly, psn.value(), va, self.region.rkey, 64, 64)
                }
                Req::CmpSwap(off, hit, swap) => {
                    let at = off as usize;
                    let word = u64::from_le_bytes(self.region.data[at..at + 8].try_into().unwrap());
                    let compare = if hit { word } else { !word };
                    let e = AtomicEth { va: self.region.base + off, rkey: self.region.rkey, swap_add: swap, compare };
                    self.crafter.atomic(self.qpn, Opcode::RcCompareSwap, psn.value(), e)
                }
                Req::FetchAdd(off, add) => {
                    let e = AtomicEth { va: self.region.base + off, rkey: self.region.rkey, swap_add: add, compare: 0 };
                    self.crafter.atomic(self.qpn, Opcode::RcFetchAdd, psn.value(), e)
                }
                Req::Dup(..) => unreachable!("a duplicate of a duplicate"),
            };
            let p = RcPacket::from_roce(&decode_frame(&f).unwrap()).unwrap();
            let out = self.model.receive(&p, &mut self.region);
            want.extend(out);
            frames.push(f);
        }
        let (tx0, w0) = (tx_len(&self.probe), writes_len(&self.probe));
        inject(&self.probe, &frames);
        settle(&self.probe, tx0 + want.len());
        let sent: Vec<(u64, Vec<u8>)> = self.probe.with(|h| h.mac.as_ref().unwrap().tx[tx0..].to_vec());
        assert_eq!(sent.len(), want.len(), "one frame per model packet: {:?}", summary(&sent));
        for (k, ((_, f), w)) in sent.iter().zip(&want).enumerate() {
            let d = decode_frame(f).expect("a well-formed frame");
            assert!(d.icrc_ok && d.ip_checksum_ok(), "frame {k}: checksums");
            assert_eq!(
                (d.bth.opcode, d.bth.dest_qp, d.bth.psn, d.ext, d.bth.ack_req),
                (w.bth.opcode, w.bth.dest_qp, w.bth.psn, w.ext, false),
                "frame {k}: the model's packet"
            );
            assert!(d.payload == w.payload, "frame {k} ({:?}): payload bytes", d.bth.opcode);
        }
        // only the WRITEs and the atomics that change a word write the
        // region (a READ writes nothing, a compare that fails neither, a
        // duplicate nothing); each original READ or atomic writes its 32-byte
        // resource into the replay table, outside the region
        let writes: Vec<(u64, usize)> =
            self.probe.with(|h| h.writes[w0..].iter().map(|w| (w.addr, w.bytes.len())).collect());
        let (base, end) = (self.buf.iova(), self.buf.iova() + REGION as u64);
        let inside = |a: u64| a >= base && a < end;
        let wrote: usize = writes.iter().filter(|w| inside(w.0)).map(|w| w.1).sum();
        let n_writes = reqs.iter().filter(|r| matches!(r, Req::Write(_))).count();
        let n_atomic = reqs.iter().filter(|r| matches!(r, Req::CmpSwap(_, true, _) | Req::FetchAdd(..))).count();
        assert_eq!(wrote, 64 * n_writes + 8 * n_atomic, "device writes into the region: {writes:x?}");
        let kept: Vec<usize> = writes.iter().filter(|w| !inside(w.0)).map(|w| w.1).collect();
        let n_kept = reqs.iter().filter(|r| r.remembered()).count();
        assert_eq!(kept, vec![32; n_kept], "one 32-byte resource write per READ or atomic: {writes:x?}");
        // the region's bytes: the model's
        let mut now = vec![0u8; REGION];
        self.buf.read(0, &mut now).unwrap();
        assert!(now == self.region.data, "the region's bytes differ from the model's");
        sent
    }
}

fn summary(frames: &[(u64, Vec<u8>)]) -> Vec<(Opcode, u32)> {
    frames.iter().map(|(_, f)| decode_frame(f).map(|d| (d.bth.opcode, d.bth.psn.value())).unwrap()).collect()
}

#[test]
fn reads_are_answered_as_the_model_answers_them() {
    use Req::*;
    for (seed, mtu, epsn) in [(1, Mtu::Mtu1024, 0x1000), (2, Mtu::Mtu4096, 0xff_fffe), (3, Mtu::Mtu256, 0x20)] {
        let mut t = target(seed, mtu, epsn);
        let b = t.model.config().pmtu.bytes() as u32;
        let reqs = [
            Read(0, 0),
            Read(7, 1),
            Write(REGION as u64 - 64),
            Read(100, b),
            Read(3, b + 1),
            Write(REGION as u64 - 128),
            Read(4096 - 17, 3 * b - 5),
            Read(0, 4 * b),
            Read(12345, 9000),
            Write(REGION as u64 - 256),
        ];
        let sent = t.run(epsn, &reqs);
        let reads: usize = summary(&sent).iter().filter(|s| s.0 != Opcode::RcAck).count();
        eprintln!("PMTU {b}: {} frames ({reads} READ responses) {:x?}", sent.len(), summary(&sent));
        assert!(reads >= 12, "{reads} READ responses");
        let c = t.ctx.query_counters().unwrap();
        assert_eq!((c.naks, c.silent_drops, c.dup_requests), ([0; 4], 0, 0), "{c:?}");
    }
}

#[test]
fn a_long_read_streams_at_line_rate() {
    // 64 KiB at PMTU 4096: 16 responses; the time from the first frame's
    // end to the last's is the payload path's rate (DMA reads through client
    // 3, the gather, the builder, the MAC)
    let mut t = target(4, Mtu::Mtu4096, 0x400);
    let t0 = t.probe.now();
    let sent = t.run(0x400, &[Req::Read(0, 65536)]);
    assert_eq!(sent.len(), 16);
    let (first, last) = (sent[0].0, sent[15].0);
    let bytes: usize = sent[1..].iter().map(|f| f.1.len()).sum();
    // the core clock is 250 MHz: bits per cycle x 0.25 = Gb/s
    let gbps = bytes as f64 * 8.0 / (last - first) as f64 * 0.25;
    eprintln!(
        "64 KiB READ: first response {} cycles after injection (caches cold), wire rate {gbps:.1} Gb/s",
        first - t0
    );
    assert!(gbps > 90.0, "READ responses at {gbps:.1} Gb/s");
    // a small READ with the QP's context and the region's MPT/MTT lines
    // cached: the time from its request put on the MAC to its response's
    // last beat sent (the receive path, the key check, the payload's
    // translation and DMA read with the host model's Gen3 x16 latency)
    let t1 = t.probe.now();
    let sent = t.run(0x410, &[Req::Read(64, 64)]);
    let warm = sent[0].0 - t1;
    eprintln!("64 B READ, caches warm: response {warm} cycles after injection");
    // deterministic: the figure docs/transport_blocks.md gives (about 225
    // of it the host model's PCIe read latency for the payload)
    // (362 since session 38: the MAC's address filter, one MAC cycle; 364
    // since session 40: the READ's key check answers pass `xlate_ahead`'s
    // answer FIFO, two cycles)
    assert_eq!(warm, 364, "a warm READ's response");
}

#[test]
fn atomics_are_executed_as_the_model_executes_them() {
    use Req::*;
    let mut t = target_with(5, Mtu::Mtu1024, 0x800, true);
    let reqs = [
        FetchAdd(0, 1),
        FetchAdd(0, u64::MAX),
        CmpSwap(8, true, 0x1122_3344_5566_7788),
        CmpSwap(8, false, 7),
        Read(0, 16),
        Write(64),
        FetchAdd(64, 0x10_0000_0001),
        Read(64, 8),
        CmpSwap(4096 - 8, true, 0),
        FetchAdd(REGION as u64 - 8, 3),
        CmpSwap(64, true, 9),
        Read(0, 4096),
    ];
    let sent = t.run(0x800, &reqs);
    let acks = summary(&sent).iter().filter(|s| s.0 == Opcode::RcAtomicAck).count();
    eprintln!("atomics: {} frames {:x?}", sent.len(), summary(&sent));
    assert_eq!(acks, 8, "one ATOMIC ACKNOWLEDGE per atomic");
    let c = t.ctx.query_counters().unwrap();
    assert_eq!((c.naks, c.silent_drops, c.dup_requests), ([0; 4], 0, 0), "{c:?}");
}

/// Duplicate READs and atomics, as the model answers them: a READ again
/// from its first PSN and from a later one (the tail of its buffer), an
/// atomic's saved value without running it again; a READ that asks other
/// bytes and READs at an atomic's PSN (past the last READ's range) are
/// dropped; after 17 more READs the newest one recycled is dropped,
/// the oldest one kept still replayed. Every frame is the model's, the region's
/// bytes too (the atomic's word written once), and the counters count the
/// model's duplicates and drops.
#[test]
fn duplicates_are_replayed_as_the_model_replays_them() {
    use Req::*;
    let dup = |psn: u32, r: Req| Dup(psn & 0xff_ffff, Box::new(r));
    for (seed, mtu, epsn) in [(6, Mtu::Mtu1024, 0x1000), (7, Mtu::Mtu256, 0xff_fffd), (8, Mtu::Mtu4096, 0x10)] {
        let mut t = target_with(seed, mtu, epsn, true);
        let b = t.model.config().pmtu.bytes() as u64;
        let p = |k: u32| epsn + k;
        // PSNs: a READ of 4 packets at p(0), FETCH_ADD p(4), READ p(5), COMPARE_SWAP p(6)
        let long = Read(0, (3 * b + 5) as u32);
        let short = Read(1000, 10);
        t.run(epsn, &[long.clone(), FetchAdd(64, 5), short.clone(), CmpSwap(8, true, 7)]);
        let next = t.model.expected_psn().value();
        let sent = t.run(
            next,
            &[
                dup(p(0), long),
                dup(p(2), Read(2 * b, (b + 5) as u32)),
                dup(p(1), Read(1, (2 * b + 5) as u32)),
                dup(p(4), FetchAdd(64, 5)),
                dup(p(4), short.clone()),
                dup(p(6), short.clone()),
                dup(p(5), short),
                Write(256),
            ],
        );
        let ops = summary(&sent);
        eprintln!("PMTU {b}: duplicates answered {ops:x?}");
        let c = t.model.counters();
        assert_eq!((c.read_replays, c.atomic_replays, c.dropped), (3, 1, 3), "the model: {c:?}");
        assert!(ops.iter().any(|o| o.0 == Opcode::RcAtomicAck), "the atomic's saved value");
        // 17 READs recycle every slot
        let first = t.model.expected_psn().value();
        let reads: Vec<Req> = (0..17).map(|k| Read(8 * k, 8)).collect();
        t.run(first, &reads);
        // the QP keeps RC_MAX_DEST_RD_ATOMIC: READ k - 1 was recycled, READ k is kept
        let k = 17 - u32::from(RC_MAX_DEST_RD_ATOMIC);
        let (r0, r1) = (Read(8 * u64::from(k - 1), 8), Read(8 * u64::from(k), 8));
        let next = t.model.expected_psn().value();
        let sent = t.run(next, &[dup(first + k - 1, r0), dup(first + k, r1)]);
        assert_eq!(sent.len(), 1, "the recycled READ dropped, the next replayed");
        let m = t.model.counters();
        assert_eq!((m.read_replays, m.dropped), (4, 4), "the model: {m:?}");
        let c = t.ctx.query_counters().unwrap();
        assert_eq!((c.dup_requests, c.silent_drops), (m.duplicates, m.dropped), "{c:?} against {m:?}");
        assert_eq!(c.naks, [0; 4], "{c:?}");
    }
}
