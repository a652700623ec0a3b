//! Two simulated NICs back to back (`SimNet`): each a Verilated `RnicCore`
//! with its own host, driven by the real driver through `SimHw`. RDMA
//! WRITE and SEND from one to the other, checked in the peer's memory and
//! in both CQs (issue 11, item 6, first steps).

use rnic_contract::codes::{Mtu, QpType, WcOpcode, WcStatus};
use rnic_driver::*;
use rnic_proto::{decode_frame, ROCE_V2_UDP_PORT};
use rnic_tb::sim_net::{connect_rc, poll_n, Nic, SimNet};

#[test]
fn rdma_write_and_send_between_two_nics() {
    let net = SimNet::pair(11);
    let a = Nic::open(&net, 0);
    let b = Nic::open(&net, 1);
    let (pd_a, pd_b) = (a.ctx.alloc_pd().unwrap(), b.ctx.alloc_pd().unwrap());
    let (cq_a, cq_b) = (a.ctx.create_cq(64, None).unwrap(), b.ctx.create_cq(64, None).unwrap());
    let mut qp_a = pd_a.create_qp(QpType::Rc, &cq_a, &cq_a).max_send_wr(16).max_recv_wr(16).build().unwrap();
    let mut qp_b = pd_b.create_qp(QpType::Rc, &cq_b, &cq_b).max_send_wr(16).max_recv_wr(16).build().unwrap();
    connect_rc(&mut qp_a, &a.ctx, 1, qp_b.qp_num(), (0x100, 0x900), Mtu::Mtu1024);
    connect_rc(&mut qp_b, &b.ctx, 0, qp_a.qp_num(), (0x900, 0x100), Mtu::Mtu1024);

    let buf_a = a.ctx.alloc_buffer(8192).unwrap();
    let buf_b = b.ctx.alloc_buffer(8192).unwrap();
    let all = AccessFlags::LOCAL_WRITE | AccessFlags::REMOTE_WRITE | AccessFlags::REMOTE_READ;
    let mr_a = pd_a.reg_mr(&buf_a, 0, 8192, all).unwrap();
    let mr_b = pd_b.reg_mr(&buf_b, 0, 8192, all).unwrap();
    let data: Vec<u8> = (0..3000u32).map(|i| (i * 7 + 3) as u8).collect();
    buf_a.write(0, &data).unwrap();

    // ---- RDMA WRITE: 3000 bytes (3 packets at MTU 1024) into B's buffer at 100
    let sge = Sge::new(&mr_a, 0, 3000).unwrap();
    let remote = RemoteAddr { addr: mr_b.addr() + 100, rkey: mr_b.rkey() };
    qp_a.post_send(&[SendWr::new(7, SendOp::RdmaWrite { remote }, &[sge]).flags(SendFlags::SIGNALED)]).unwrap();
    let wc = poll_n(&cq_a, 1, 20_000, "WRITE completion");
    assert_eq!((wc[0].wr_id, wc[0].status, wc[0].opcode), (7, WcStatus::Success, Some(WcOpcode::RdmaWrite)));
    let mut got = vec![0u8; 3000];
    buf_b.read(100, &mut got).unwrap();
    assert!(got == data, "B's buffer holds the WRITE's bytes");

    // ---- SEND: B posts a RECV, A sends 1500 bytes
    let rsge = Sge::new(&mr_b, 4096, 2048).unwrap();
    qp_b.post_recv(&[RecvWr { wr_id: 0x55, sg_list: &[rsge] }]).unwrap();
    let ssge = Sge::new(&mr_a, 1000, 1500).unwrap();
    qp_a.post_send(&[SendWr::new(8, SendOp::Send, &[ssge]).flags(SendFlags::SIGNALED)]).unwrap();
    let wc = poll_n(&cq_b, 1, 20_000, "RECV completion");
    assert_eq!((wc[0].wr_id, wc[0].status, wc[0].byte_len), (0x55, WcStatus::Success, 1500));
    let wc = poll_n(&cq_a, 1, 20_000, "SEND completion");
    assert_eq!((wc[0].wr_id, wc[0].status), (8, WcStatus::Success));
    let mut got = vec![0u8; 1500];
    buf_b.read(4096, &mut got).unwrap();
    assert!(got == data[1000..2500], "B's RECV buffer holds the SEND's bytes");

    // ---- the wire: every frame a good RoCEv2 packet, the expected ones
    let log = net.borrow().log.clone();
    let mut seen: Vec<(usize, String, u32)> = vec![];
    for f in &log {
        let p = decode_frame(&f.bytes).unwrap_or_else(|e| panic!("frame from NIC {} does not decode: {e:?}", f.from));
        assert!(p.icrc_ok && p.ip_checksum_ok(), "frame from NIC {}: ICRC and IPv4 checksum", f.from);
        assert_eq!(p.udp.dst_port, ROCE_V2_UDP_PORT);
        seen.push((f.from, p.bth.opcode.name().to_string(), p.bth.psn.value()));
    }
    let from_a: Vec<_> = seen.iter().filter(|s| s.0 == 0).map(|s| (s.1.as_str(), s.2)).collect();
    assert_eq!(
        from_a,
        [
            ("RC_RDMA_WRITE_FIRST", 0x100),
            ("RC_RDMA_WRITE_MIDDLE", 0x101),
            ("RC_RDMA_WRITE_LAST", 0x102),
            ("RC_SEND_FIRST", 0x103),
            ("RC_SEND_LAST", 0x104)
        ],
        "A's packets"
    );
    let from_b: Vec<_> = seen.iter().filter(|s| s.0 == 1).collect();
    assert!(!from_b.is_empty() && from_b.iter().all(|s| s.1 == "RC_ACKNOWLEDGE"), "B sends ACKs only: {from_b:?}");
    assert!(from_b.iter().any(|s| s.2 == 0x102) && from_b.iter().any(|s| s.2 == 0x104), "ACKs of both messages");
    eprintln!("wire: {} frames from A, {} from B; {} cycles", from_a.len(), from_b.len(), a.probe.now());
    assert_eq!(a.probe.now(), b.probe.now(), "one clock");
}
