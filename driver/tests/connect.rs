//! The out-of-band exchange: exact bytes as perftest and ibv_rc_pingpong
//! print them, round trips, malformed input, and real exchanges over
//! localhost between two threads.

use rnic_contract::codes::Mtu;
use rnic_driver::connect::*;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread;
use std::time::Duration;

const T: Duration = Duration::from_secs(5);

fn endpoint() -> QpEndpoint {
    QpEndpoint {
        lid: 0,
        out_reads: 16,
        qpn: 0x000123,
        psn: 0xabcdef,
        rkey: 0x0102_0304,
        vaddr: 0x7f12_3456_7000,
        srqn: 0,
        gid: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 1, 1],
    }
}

#[test]
fn key_gid_message_is_perftests_bytes() {
    // sprintf(msg, KEY_PRINT_FMT_GID, lid, out_reads, qpn, psn, rkey, vaddr,
    //         gid.raw[0..16], srqn), written with its NUL (sizeof msg = 108).
    let mut expected = b"0000:0010:000123:abcdef:01020304:00007f1234567000:".to_vec();
    expected.extend_from_slice(b"00:00:00:00:00:00:00:00:00:00:ff:ff:c0:a8:01:01:");
    expected.extend_from_slice(b"00000000:\0");
    assert_eq!(expected.len(), KEY_MSG_SIZE_GID);
    assert_eq!(endpoint().encode_key_gid().to_vec(), expected);
    assert_eq!(QpEndpoint::parse_key_gid(&expected).unwrap(), endpoint());
}

#[test]
fn key_message_without_gid() {
    let expected = b"0000:0010:000123:abcdef:01020304:00007f1234567000:00000000\0";
    assert_eq!(expected.len(), KEY_MSG_SIZE);
    assert_eq!(&endpoint().encode_key()[..], &expected[..]);
    let parsed = QpEndpoint::parse_key(expected).unwrap();
    assert_eq!(parsed, QpEndpoint { gid: [0; 16], ..endpoint() });
}

#[test]
fn pingpong_message_is_rc_pingpongs_bytes() {
    // sprintf(msg, "%04x:%06x:%06x:%s", lid, qpn, psn, wgid), 52 bytes with NUL.
    let expected = b"0000:000123:abcdef:00000000000000000000ffffc0a80101\0";
    assert_eq!(expected.len(), PINGPONG_MSG_SIZE);
    assert_eq!(&endpoint().encode_pingpong()[..], &expected[..]);
    let parsed = QpEndpoint::parse_pingpong(expected).unwrap();
    assert_eq!((parsed.qpn, parsed.psn, parsed.gid), (0x123, 0xabcdef, endpoint().gid));
}

#[test]
fn round_trips() {
    for qpn in [0u32, 1, 0x12345, 0xff_ffff] {
        let mut e = QpEndpoint::new(qpn, [0xa5; 16]).rdma(u32::MAX, u64::MAX);
        e.srqn = 0xdead_beef;
        e.out_reads = 0xffff;
        assert!(e.psn <= PSN_MASK);
        assert_eq!(QpEndpoint::parse_key_gid(&e.encode_key_gid()).unwrap(), e);
        assert_eq!(QpEndpoint::parse_key(&e.encode_key()).unwrap(), QpEndpoint { gid: [0; 16], ..e });
        let p = QpEndpoint::parse_pingpong(&e.encode_pingpong()).unwrap();
        assert_eq!((p.qpn, p.psn, p.gid), (e.qpn, e.psn, e.gid));
    }
    for mtu in Mtu::ALL {
        assert_eq!(parse_mtu(encode_mtu(*mtu)), Some(*mtu));
    }
    assert_eq!(encode_mtu(Mtu::Mtu1024), *b"3\0");
    assert_eq!(parse_mtu(*b"9\0"), None);
    assert_eq!(&encode_version("6.27")[..], b"6.27\0\0\0\0\0\0\0\0\0\0\0\0");
    assert_eq!(parse_version(&encode_version("6.29")).unwrap().value, 6.29);
}

#[test]
fn random_psns_differ_and_fit() {
    let psns: Vec<u32> = (0..8).map(|_| random_psn()).collect();
    assert!(psns.iter().all(|p| *p <= PSN_MASK));
    assert!(psns.windows(2).any(|w| w[0] != w[1]), "{psns:x?}");
}

fn assert_malformed(r: Result<QpEndpoint, ConnectError>, needle: &str) {
    match r {
        Err(ConnectError::Malformed { reason, .. }) => assert!(reason.contains(needle), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn malformed_messages() {
    let good = endpoint().encode_key_gid();
    assert_malformed(QpEndpoint::parse_key_gid(&good[..107]), "107 bytes");
    let mut m = good;
    m[107] = b'x';
    assert_malformed(QpEndpoint::parse_key_gid(&m), "NUL");
    let mut m = good;
    m[5] = b'g';
    assert_malformed(QpEndpoint::parse_key_gid(&m), "field 1");
    let mut m = good;
    m[4] = b'-';
    assert_malformed(QpEndpoint::parse_key_gid(&m), "fields");
    let mut m = good;
    m[106] = b'0';
    assert_malformed(QpEndpoint::parse_key_gid(&m), "':'");
    let mut m = endpoint().encode_pingpong();
    m[20] = b'z';
    assert_malformed(QpEndpoint::parse_pingpong(&m), "field 3");
    assert_malformed(QpEndpoint::parse_key(&[0xff; KEY_MSG_SIZE]), "NUL");
    assert!(
        matches!(parse_version(b"5.60\0\0\0\0\0\0\0\0\0\0\0\0"), Err(ConnectError::VersionTooOld { peer }) if peer == "5.60")
    );
    assert!(matches!(parse_version(b"banana\0\0\0\0\0\0\0\0\0\0"), Err(ConnectError::Malformed { .. })));
    assert!(matches!(parse_version(b"6.2999999999999999"), Err(ConnectError::Malformed { .. })));
    assert_eq!(parse_version(b"5.70\0\0\0\0\0\0\0\0\0\0\0\0").unwrap().text, "5.70");
}

fn pair() -> (TcpListener, std::net::SocketAddr) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let a = l.local_addr().unwrap();
    (l, a)
}

/// A perftest session, both sides, as write_bw runs it: versions, system
/// data, MTU, keys of two QPs, the barrier, the report.
#[test]
fn two_threads_run_perftests_exchange() {
    let (listener, addr) = pair();
    let server_qps = [QpEndpoint::new(0x40, [1; 16]).rdma(0x11, 0x1000), QpEndpoint::new(0x41, [1; 16])];
    let client_qps = [QpEndpoint::new(0x80, [2; 16]).rdma(0x22, 0x2000), QpEndpoint::new(0x81, [2; 16])];
    let sq = server_qps;
    let server = thread::spawn(move || {
        let mut s = Session::open(Peer::Accept(listener), T)?;
        assert_eq!(s.role(), Role::Server);
        let v = s.exchange_versions()?;
        let sys = s.exchange_sys_data(SysData { cycle_buffer: 8192, cache_line_size: 64 })?;
        let mtu = s.exchange_mtu(Mtu::Mtu4096)?;
        let keys = s.exchange_keys(&sq)?;
        s.sync(&sq[0])?;
        let rep = s.exchange_bw_report(&BwReport { size: 1, iters: 2, bw_peak: 3.0, bw_avg: 4.0, msg_rate: 5.0 })?;
        Ok::<_, ConnectError>((v, sys, mtu, keys, rep))
    });
    let mut c = Session::open(Peer::Connect(addr), T).unwrap();
    assert_eq!(c.exchange_versions().unwrap().text, ADVERTISED_VERSION);
    let sys = c.exchange_sys_data(SysData { cycle_buffer: 4096, cache_line_size: 128 }).unwrap();
    assert_eq!(sys, SysData { cycle_buffer: 8192, cache_line_size: 128 });
    assert_eq!(c.exchange_mtu(Mtu::Mtu1024).unwrap(), Mtu::Mtu1024);
    assert_eq!(c.exchange_keys(&client_qps).unwrap(), server_qps.to_vec());
    c.sync(&client_qps[0]).unwrap();
    let mine = BwReport { size: 65536, iters: 5000, bw_peak: 11_000.5, bw_avg: 10_999.25, msg_rate: 0.175988 };
    let rep = c.exchange_bw_report(&mine).unwrap();
    assert_eq!(rep, BwReport { size: 1, iters: 2, bw_peak: 3.0, bw_avg: 4.0, msg_rate: 5.0 });
    let (v, sys, mtu, keys, srep) = server.join().unwrap().unwrap();
    assert_eq!(v.value, 6.27);
    assert_eq!(sys, SysData { cycle_buffer: 8192, cache_line_size: 128 });
    assert_eq!(mtu, Mtu::Mtu1024);
    assert_eq!(keys, client_qps.to_vec());
    assert_eq!(srep, mine);
}

/// The server's side against a hand-played perftest client, byte for byte:
/// what ib_write_bw 6.29 would write, in its order.
#[test]
fn server_against_scripted_perftest_client() {
    let (listener, addr) = pair();
    let me = endpoint();
    let server = thread::spawn(move || {
        let mut s = Session::open(Peer::Accept(listener), T)?;
        let v = s.exchange_versions()?;
        s.exchange_sys_data(SysData::default())?;
        let mtu = s.exchange_mtu(Mtu::Mtu4096)?;
        let k = s.exchange_keys(&[me])?;
        Ok::<_, ConnectError>((v, mtu, k))
    });
    let mut c = TcpStream::connect(addr).unwrap();
    let mut buf = [0u8; 256];
    let mut xchg = |c: &mut TcpStream, mine: &[u8], n: usize| -> Vec<u8> {
        c.write_all(mine).unwrap();
        c.read_exact(&mut buf[..n]).unwrap();
        buf[..n].to_vec()
    };
    let mut version = b"6.29".to_vec();
    version.resize(16, 0);
    assert_eq!(xchg(&mut c, &version, 16), b"6.27\0\0\0\0\0\0\0\0\0\0\0\0");
    assert_eq!(xchg(&mut c, &4096i32.to_be_bytes(), 4), 4096u32.to_be_bytes());
    assert_eq!(xchg(&mut c, &64i32.to_be_bytes(), 4), 64u32.to_be_bytes());
    assert_eq!(xchg(&mut c, b"3\0", 2), b"5\0");
    let peer_key = b"0000:0001:000099:000042:00001234:0000000000010000:fe:80:00:00:00:00:00:00:02:00:00:ff:fe:00:00:02:00000000:\0";
    assert_eq!(xchg(&mut c, peer_key, KEY_MSG_SIZE_GID), endpoint().encode_key_gid().to_vec());
    let (v, mtu, keys) = server.join().unwrap().unwrap();
    assert_eq!(v.text, "6.29");
    assert_eq!(mtu, Mtu::Mtu1024);
    assert_eq!((keys[0].qpn, keys[0].psn, keys[0].rkey, keys[0].vaddr), (0x99, 0x42, 0x1234, 0x10000));
    assert_eq!(keys[0].gid, [0xfe, 0x80, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0xff, 0xfe, 0, 0, 2]);
}

#[test]
fn pingpong_both_sides() {
    let (listener, addr) = pair();
    let server_ep = QpEndpoint::new(0x10, [3; 16]);
    let client_ep = QpEndpoint::new(0x20, [4; 16]);
    let server = thread::spawn(move || {
        let mut s = Session::open(Peer::Accept(listener), T)?;
        s.pingpong(&server_ep, |r| {
            assert_eq!(r.qpn, 0x20);
            Ok::<_, ConnectError>(())
        })
    });
    let mut c = Session::open(Peer::Connect(addr), T).unwrap();
    let remote = c.pingpong(&client_ep, |_| Ok::<_, ConnectError>(())).unwrap();
    assert_eq!((remote.qpn, remote.psn, remote.gid), (0x10, server_ep.psn, [3; 16]));
    let r = server.join().unwrap().unwrap();
    assert_eq!((r.qpn, r.psn, r.gid), (0x20, client_ep.psn, [4; 16]));
}

#[test]
fn peer_closed_timeout_and_old_version() {
    // The peer closes in the middle of the version message.
    let (listener, addr) = pair();
    let t = thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        s.write_all(b"6.2").unwrap();
    });
    let mut c = Session::open(Peer::Connect(addr), T).unwrap();
    assert_eq!(
        c.exchange_versions().unwrap_err(),
        ConnectError::PeerClosed { step: Step::Version, got: 3, expected: VERSION_LEN }
    );
    t.join().unwrap();

    // The peer says nothing.
    let (listener, addr) = pair();
    let quiet = Duration::from_millis(100);
    let t = thread::spawn(move || {
        let (s, _) = listener.accept().unwrap();
        thread::sleep(Duration::from_millis(400));
        drop(s);
    });
    let mut s = Session::open(Peer::Connect(addr), quiet).unwrap();
    assert_eq!(s.exchange_keys(&[endpoint()]).unwrap_err(), ConnectError::Timeout { step: Step::Keys, after: quiet });
    t.join().unwrap();

    // Nobody connects.
    let (listener, _) = pair();
    assert_eq!(
        Session::open(Peer::Accept(listener), quiet).unwrap_err(),
        ConnectError::Timeout { step: Step::Accept, after: quiet }
    );

    // An old perftest.
    let (listener, addr) = pair();
    let t = thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut v = [0u8; 16];
        s.read_exact(&mut v).unwrap();
        s.write_all(b"5.60\0\0\0\0\0\0\0\0\0\0\0\0").unwrap();
    });
    let mut c = Session::open(Peer::Connect(addr), T).unwrap();
    assert_eq!(c.exchange_versions().unwrap_err(), ConnectError::VersionTooOld { peer: "5.60".into() });
    t.join().unwrap();
}

#[test]
fn malformed_key_from_peer_names_the_step() {
    let (listener, addr) = pair();
    let t = thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut k = [0u8; KEY_MSG_SIZE_GID];
        s.read_exact(&mut k).unwrap();
        s.write_all(&[b'x'; KEY_MSG_SIZE_GID]).unwrap();
    });
    let mut c = Session::open(Peer::Connect(addr), T).unwrap();
    match c.sync(&endpoint()).unwrap_err() {
        ConnectError::Malformed { step: Step::Sync, reason, .. } => assert!(reason.contains("NUL"), "{reason}"),
        e => panic!("{e:?}"),
    }
    t.join().unwrap();
}

/// A session with a `while_waiting` hook runs it while a read waits (a
/// simulated NIC keeps answering its peer while the tool sits at a
/// barrier), still fails at its timeout, and `close` ends with a barrier
/// and perftest's "done".
#[test]
fn waiting_reads_run_the_idle_hook_and_close_sends_done() {
    use std::cell::Cell;
    use std::rc::Rc;
    let (listener, addr) = pair();
    let ep = QpEndpoint::new(0x40, [1; 16]);
    let peer = thread::spawn(move || {
        let (mut sock, _) = listener.accept().unwrap();
        // perftest's client would write its key first: hold it back
        thread::sleep(Duration::from_millis(60));
        let mut key = [0u8; KEY_MSG_SIZE_GID];
        sock.write_all(&QpEndpoint::new(0x80, [2; 16]).encode_key_gid()).unwrap();
        sock.read_exact(&mut key).unwrap();
        // the close: a barrier, then "done" with its NUL
        sock.write_all(&QpEndpoint::new(0x80, [2; 16]).encode_key_gid()).unwrap();
        sock.read_exact(&mut key).unwrap();
        let mut done = [0u8; 5];
        sock.read_exact(&mut done).unwrap();
        let mut rest = vec![];
        sock.read_to_end(&mut rest).unwrap();
        (QpEndpoint::parse_key_gid(&key).unwrap(), done, rest.len())
    });
    let stream = TcpStream::connect(addr).unwrap();
    let mut s = Session::from_stream(stream, Role::Server, T).unwrap();
    let calls = Rc::new(Cell::new(0u32));
    let c = calls.clone();
    s.while_waiting(move || c.set(c.get() + 1)).unwrap();
    s.sync(&ep).unwrap();
    assert!(calls.get() >= 10, "the hook ran while the peer held back 60 ms: {} calls", calls.get());
    s.close(&ep).unwrap();
    let (key, done, rest) = peer.join().unwrap();
    assert_eq!(key.qpn, 0x40);
    assert_eq!(&done, b"done\0");
    assert_eq!(rest, 0, "the socket closed after \"done\"");

    // the timeout still bounds a read with a hook
    let (listener, addr) = pair();
    let silent = thread::spawn(move || {
        let (s, _) = listener.accept().unwrap();
        thread::sleep(Duration::from_millis(400));
        drop(s);
    });
    let mut s =
        Session::from_stream(TcpStream::connect(addr).unwrap(), Role::Server, Duration::from_millis(100)).unwrap();
    s.while_waiting(|| {}).unwrap();
    assert!(matches!(s.sync(&ep), Err(ConnectError::Timeout { .. })));
    silent.join().unwrap();
}
