//! `make demo`: emit the core's Verilog, build its Verilator model, and run
//! two simulated NICs back to back doing RDMA WRITE and SEND through the
//! driver; then the wire side (a Linux rxe capture through the parser,
//! every opcode through the builder) and the host side alone.

use rnic_contract::codes::{Mtu, QpType, WcStatus};
use rnic_driver::{AccessFlags, RecvWr, RemoteAddr, SendFlags, SendOp, SendWr, Sge};
use rnic_sim::models::rnic_core;
use rnic_tb::sim_net::{connect_rc, poll_n, Nic, SimNet};
use std::time::Instant;

fn main() {
    let entry = rnic_hw::catalog::find("rnic_core").expect("rnic_core is in the catalog");
    // the core is built by value, deeper than the main thread's stack: on a
    // thread of `catalog::BUILD_STACK`, as `emit` does
    let flops = rnic_hw::catalog::with_stack(|| rnic_hw::prim::flop_count(&*(entry.make)()));
    let design = rnic_hw::catalog::emit(&entry).expect("the core emits");
    let path = std::path::Path::new("build/verilog/rnic_core.sv");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text = design.to_sv();
    std::fs::write(path, &text).unwrap();
    println!(
        "1. emitted the core: {} ({} modules, {} lines, {} flip-flops)",
        path.display(),
        design.modules.len(),
        text.lines().count(),
        flops
    );
    println!("2. Verilator model `rnic_core` ({} ports), built by cargo from the same Verilog", rnic_core::PORTS.len());
    two_nics();

    // the wire side: real Linux rxe traffic through the RTL receive parser
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let cap = rnic_proto::vectors::rxe_file("rxe_with_3_bad_icrc.pcap");
    match std::fs::read(&cap) {
        Ok(bytes) => {
            let frames: Vec<Vec<u8>> =
                rnic_proto::pcap::read_capture(&bytes).expect("capture").into_iter().map(|p| p.data).collect();
            let results = rnic_tb::replay::replay(&frames);
            let bad: Vec<usize> = results.iter().filter(|r| !r.icrc_ok()).map(|r| r.frame).collect();
            let roce = results.iter().filter(|r| r.code == rnic_tb::rx::ROCE).count();
            println!("4. RTL receive parser on a Linux rxe capture ({} frames): {roce} RoCEv2 accepted, ICRC failures at frames {bad:?}", frames.len());
            if let Some(r) = results.first() {
                println!("     first frame: {}", r.to_json());
            }
        }
        Err(e) => println!("4. (skipped the rxe capture: {}: {e})", cap.display()),
    }
    // every opcode through the RTL transmit builder, checked by the protocol model
    let desc =
        std::fs::read_to_string(root.join("docs/examples/all_opcodes.txt")).expect("docs/examples/all_opcodes.txt");
    let frames = rnic_tb::txdesc::build(&desc).expect("description");
    let ok = frames
        .iter()
        .filter(|f| rnic_proto::decode_frame(f).map(|p| p.icrc_ok && p.ip_checksum_ok()).unwrap_or(false))
        .count();
    println!("5. RTL transmit builder: {} frames (every opcode, IPv4/IPv6, VLAN); the protocol model verifies {ok} ICRCs and checksums", frames.len());
    assert_eq!(ok, frames.len(), "every built frame must verify");
    host_side();
    println!("demo: ok");
}

/// Two NICs, each a Verilated core behind its own host model, on one wire;
/// the driver on each side; a WRITE and a SEND, checked in B's memory.
fn two_nics() {
    let t = Instant::now();
    let net = SimNet::pair(2026);
    let (a, b) = (Nic::open(&net, 0), Nic::open(&net, 1));
    let (pd_a, pd_b) = (a.ctx.alloc_pd().unwrap(), b.ctx.alloc_pd().unwrap());
    let (cq_a, cq_b) = (a.ctx.create_cq(64, None).unwrap(), b.ctx.create_cq(64, None).unwrap());
    let mut qp_a = pd_a.create_qp(QpType::Rc, &cq_a, &cq_a).max_send_wr(16).build().unwrap();
    let mut qp_b = pd_b.create_qp(QpType::Rc, &cq_b, &cq_b).max_recv_wr(16).build().unwrap();
    connect_rc(&mut qp_a, &a.ctx, 1, qp_b.qp_num(), (0, 0x40), Mtu::Mtu4096);
    connect_rc(&mut qp_b, &b.ctx, 0, qp_a.qp_num(), (0x40, 0), Mtu::Mtu4096);
    const LEN: usize = 64 << 10;
    let (buf_a, buf_b) = (a.ctx.alloc_buffer(LEN).unwrap(), b.ctx.alloc_buffer(LEN).unwrap());
    let access = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE;
    let (mr_a, mr_b) = (pd_a.reg_mr(&buf_a, 0, LEN, access).unwrap(), pd_b.reg_mr(&buf_b, 0, LEN, access).unwrap());
    let data: Vec<u8> = (0..LEN).map(|i| (i * 131 + 7) as u8).collect();
    buf_a.write(0, &data).unwrap();
    let setup = a.probe.now();
    println!(
        "3. two NICs back to back (SimNet: two cores, two hosts, one wire), set up through the driver in {setup} cycles"
    );

    let sge = Sge::new(&mr_a, 0, LEN as u32).unwrap();
    let remote = RemoteAddr { addr: mr_b.addr(), rkey: mr_b.rkey() };
    let t0 = a.probe.now();
    qp_a.post_send(&[SendWr::new(1, SendOp::RdmaWrite { remote }, &[sge]).flags(SendFlags::SIGNALED)]).unwrap();
    let wc = poll_n(&cq_a, 1, 1_000_000, "WRITE completion");
    assert_eq!(wc[0].status, WcStatus::Success);
    let cycles = a.probe.now() - t0;
    let mut got = vec![0; LEN];
    buf_b.read(0, &mut got).unwrap();
    assert!(got == data, "B's memory holds the WRITE");
    let frames = net.borrow().log.iter().filter(|f| f.from == 0).count();
    println!(
        "     RDMA WRITE of {} KiB (MTU 4096, {frames} packets): completion polled {cycles} cycles after post_send, every byte in B's memory",
        LEN >> 10
    );

    let rsge = Sge::new(&mr_b, 0, 4096).unwrap();
    qp_b.post_recv(&[RecvWr { wr_id: 9, sg_list: &[rsge] }]).unwrap();
    let ssge = Sge::new(&mr_a, 100, 1000).unwrap();
    qp_a.post_send(&[SendWr::new(2, SendOp::Send, &[ssge]).flags(SendFlags::SIGNALED)]).unwrap();
    let wc = poll_n(&cq_b, 1, 100_000, "RECV completion");
    assert_eq!((wc[0].wr_id, wc[0].status, wc[0].byte_len), (9, WcStatus::Success, 1000));
    assert_eq!(poll_n(&cq_a, 1, 100_000, "SEND completion")[0].status, WcStatus::Success);
    let mut got = vec![0; 1000];
    buf_b.read(0, &mut got).unwrap();
    assert!(got == data[100..1100], "B's RECV buffer holds the SEND");
    let net = net.borrow();
    let bad = net.log.iter().filter(|f| !rnic_proto::decode_frame(&f.bytes).is_ok_and(|p| p.icrc_ok)).count();
    assert_eq!(bad, 0, "every frame on the wire decodes with a good ICRC");
    println!(
        "     SEND of 1000 bytes into B's posted RECV: RECV and SEND completions; {} frames on the wire, all with good ICRC",
        net.log.len()
    );
    println!(
        "     {} simulated cycles of two cores in {:.1} s: {:.0} cycles per second on this machine",
        net.now(),
        t.elapsed().as_secs_f64(),
        net.now() as f64 / t.elapsed().as_secs_f64()
    );
}

/// The host side as a driver uses it: bring-up over the register port, a QP
/// and a CQ loaded from host memory, a send doorbell into the cached QP
/// context (send work for the transport, the index in host memory after a
/// Store), and completions with an interrupt.
fn host_side() {
    use rnic_contract::codes::{ContextOp, ContextTable, DoorbellKind};
    use rnic_contract::layouts::{cqe, qpc};
    use rnic_tb::host_bench::{HostBench, RINGS};
    let mut b = HostBench::new(rnic_host::PcieConfig::gen3_x16(), 1);
    b.bring_up();
    b.create_qp(2, RINGS, 6, RINGS + 0x1_0000, 6);
    b.create_cq(1, RINGS + 0x2_0000, 6, 5, 8, 0);
    let reads0 = b.port.stats.read_requests;
    let t0 = b.now();
    b.doorbell(DoorbellKind::SqProducer, 2, 32, false);
    b.until(50_000, "send work", |b| !b.tp.work.is_empty());
    assert_eq!(b.tp.work[0].0, 2);
    let t_work = b.tp.work[0].1 - t0;
    assert!(!b.ctx_cmd(ContextOp::Store, ContextTable::Qp, 2));
    assert_eq!(qpc::SQ_PROD.get(&b.read_host(rnic_tb::host_bench::QPC_TABLE + 128 * 2, 128)).unwrap(), 32);
    println!(
        "6. host side (HostIf under the PCIe/IOMMU host model): one SqProducer doorbell -> send work for QP 2 {} cycles after the CPU's store, SQ_PROD 32 in the cached context ({} DMA read), in host memory after a Store",
        t_work,
        b.port.stats.read_requests - reads0
    );
    b.doorbell(DoorbellKind::CqArm, 1, 0, false);
    b.flush_mmio();
    let t1 = b.now();
    for i in 0..8u64 {
        b.post_cqe(1, HostBench::make_cqe(i, 2, i as u16), false);
    }
    b.until(50_000, "interrupt", |b| !b.irqs.is_empty());
    let e = b.read_host(RINGS + 0x2_0000 + 7 * 32, 32);
    assert_eq!(cqe::WR_ID.get(&e).unwrap(), 7);
    println!(
        "     8 CQEs posted on an armed CQ (moderation 8): MSI-X vector {} after {} cycles, all 8 CQEs in host memory first",
        b.irqs[0].vector,
        b.irqs[0].cycle - t1
    );
}
