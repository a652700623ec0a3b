//! The receive path's rate on small packets (issue 11's message rate, the
//! responder's side): one simulated NIC (`rnic_core` through the real
//! driver), the requester played by the test with crafted frames, which it
//! puts on the NIC's receive MAC as fast as the NIC takes them (a frame
//! when the MAC's queue is empty and the NIC asks for no pause). 64-byte
//! SEND ONLYs (each takes a RECV: `RqAhead` reads its entry, from a hint
//! since session 42) and WRITE ONLYs, AckReq on each, round robin over the
//! QPs. Checked: every packet ACKed in order (the last ACK's PSN per QP),
//! every SEND's RECV completed with its length and WR_ID, every payload in
//! place, no frame dropped; the cycles are deterministic and asserted.

use rnic_contract::codes::{Mtu, QpType, WcOpcode, WcStatus};
use rnic_driver::*;
use rnic_proto::{decode_frame, encode_frame, ExtHeaders, Opcode, Reth};
use rnic_sim::Model;
use rnic_tb::bad_packets::{pattern, Crafter};
use rnic_tb::lone_nic::{idle, inject, open_nic};
use rnic_tb::sim_net::{connect_rc, nic_ip, poll_n};

/// The peer's first PSN on every QP.
const PSN0: u32 = 0x100;

/// What a run measured: cycles until the last frame was in, and until the
/// last ACK left.
#[derive(Debug, PartialEq)]
struct Rate {
    taken: u64,
    acked: u64,
}

/// `n` packets of `len` bytes (SENDs with `send`, else WRITEs) over `qps`
/// QPs, round robin.
fn run(qps: usize, n: usize, len: usize, send: bool) -> Rate {
    let (ctx, probe) = open_nic(0x5e4d);
    let crafter = Crafter { mac: ctx.query_device().mac, src: nic_ip(0), dst: nic_ip(1) };
    let pd = ctx.alloc_pd().unwrap();
    let cq = ctx.create_cq(4096, None).unwrap();
    let region = (n * len).next_power_of_two().max(4096);
    let buf = ctx.alloc_buffer(region).unwrap();
    let mr = pd.reg_mr(&buf, 0, region, AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE).unwrap();
    let per_qp = n / qps;
    // packet k goes to QP k % qps, its bytes to `len * k`
    let at = |k: usize| (len * k) as u64;
    let mut q = vec![];
    for i in 0..qps {
        let mut qp = pd.create_qp(QpType::Rc, &cq, &cq).max_send_wr(16).max_recv_wr(per_qp as u32).build().unwrap();
        connect_rc(&mut qp, &ctx, 0, 0x100 + i as u32, (0x5000, PSN0), Mtu::Mtu4096);
        if send {
            let sges: Vec<Sge> = (0..per_qp).map(|m| Sge::new(&mr, at(m * qps + i), len as u32).unwrap()).collect();
            let wrs: Vec<RecvWr> = sges
                .iter()
                .enumerate()
                .map(|(m, s)| RecvWr { wr_id: (m * qps + i) as u64, sg_list: std::slice::from_ref(s) })
                .collect();
            qp.post_recv(&wrs).unwrap();
        }
        q.push(qp);
    }
    let frames: Vec<Vec<u8>> = (0..n)
        .map(|k| {
            let (qpn, psn) = (q[k % qps].qp_num(), PSN0 + (k / qps) as u32);
            let ext = if send {
                ExtHeaders::Bare
            } else {
                ExtHeaders::Reth(Reth { va: mr.addr() + at(k), rkey: mr.rkey(), dma_len: len as u32 })
            };
            let op = if send { Opcode::RcSendOnly } else { Opcode::RcWriteOnly };
            encode_frame(&crafter.packet(qpn, op, psn, ext, pattern(k as u32, len))).unwrap()
        })
        .collect();
    idle(&probe, 1000);
    let (t0, drops0, tx0) = probe.with(|h| (h.now(), h.sim.dut.get("stat_rx_drops"), h.mac.as_ref().unwrap().tx.len()));
    for f in frames {
        probe.run_until(100_000, "the NIC takes a frame", |h| {
            h.mac.as_ref().unwrap().rx.is_empty() && h.sim.dut.get("mac_rx_pause") == 0
        });
        inject(&probe, &[f]);
    }
    probe.run_until(100_000, "every frame in", |h| h.mac.as_ref().unwrap().rx_idle());
    let taken = probe.now() - t0;
    // every packet answered: each QP's last ACK names its last PSN
    let last = PSN0 + per_qp as u32 - 1;
    probe.run_until(100_000, "every packet ACKed", |h| {
        let tx = &h.mac.as_ref().unwrap().tx[tx0..];
        (0..qps).all(|i| {
            tx.iter().any(|(_, f)| {
                let p = decode_frame(f).unwrap();
                p.bth.dest_qp == 0x100 + i as u32 && p.bth.psn.value() == last
            })
        })
    });
    let (acked, drops, acks) = probe.with(|h| {
        let m = h.mac.as_ref().unwrap();
        (m.tx.last().unwrap().0 - t0, h.sim.dut.get("stat_rx_drops") - drops0, m.tx[tx0..].to_vec())
    });
    assert_eq!(drops, 0, "no frame dropped at the MAC FIFO");
    for (_, f) in &acks {
        let p = decode_frame(f).unwrap();
        assert_eq!(p.bth.opcode, Opcode::RcAck, "ACKs only");
        assert_eq!(p.ext.aeth().map(|a| a.syndrome >> 5), Some(0), "positive ACKs only: {p:?}");
    }
    assert_eq!(acks.len(), n, "one ACK per packet (AckReq on each)");
    if send {
        let wc = poll_n(&cq, n, 20_000, "RECV completions");
        assert_eq!(wc.len(), n);
        let mut ids: Vec<u64> = wc.iter().map(|w| w.wr_id).collect();
        ids.sort_unstable();
        assert!(ids.iter().enumerate().all(|(k, &id)| id == k as u64), "one completion per RECV");
        for w in &wc {
            assert_eq!((w.status, w.opcode, w.byte_len), (WcStatus::Success, Some(WcOpcode::Recv), len as u32));
        }
    }
    let mut got = vec![0u8; n * len];
    buf.read(0, &mut got).unwrap();
    for k in 0..n {
        assert_eq!(&got[len * k..len * (k + 1)], &pattern(k as u32, len)[..], "packet {k}'s bytes");
    }
    Rate { taken, acked }
}

/// 256 SENDs over 16 QPs: each RECV entry was read ahead from a hint, so no
/// packet waits for an RQ read (before session 42 each flushed the single
/// window and waited for its read: about 192 cycles a packet; now 61, the
/// SEND's translation round trip, which `XlateAhead` cannot issue ahead).
#[test]
fn small_sends_over_sixteen_qps() {
    let r = run(16, 256, 64, true);
    eprintln!("{r:?}");
    assert!(r.acked < 80 * 256, "{r:?}");
    assert_eq!(r, Rate { taken: 5128, acked: 15550 });
}

/// The same SENDs on one QP: the window reads its RECVs ahead.
#[test]
fn small_sends_on_one_qp() {
    let r = run(1, 256, 64, true);
    eprintln!("{r:?}");
    assert_eq!(r, Rate { taken: 9146, acked: 16060 });
}

/// 256 WRITEs over 16 QPs.
#[test]
fn small_writes_over_sixteen_qps() {
    let r = run(16, 256, 64, false);
    eprintln!("{r:?}");
    assert_eq!(r, Rate { taken: 1949, acked: 3201 });
}
