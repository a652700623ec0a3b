//! One simulated NIC whose wire is a Unix datagram socket: every Ethernet
//! frame (no FCS; the ICRC is the frame's last 4 bytes) one datagram each
//! way, as QEMU's `-netdev dgram` exchanges them (issue 14: a Linux guest
//! with `rdma_rxe` on the other end), or another process's `SockNet`
//! (issue 13: two `rnic-perf` processes, each with its own NIC).
//!
//! The simulation's clock and the peer's are not in lockstep: the NIC runs
//! only while its driver waits on it (or [`SockNet::idle`] runs it), at the
//! simulator's speed, far below 250 MHz. Seen from the NIC the peer
//! therefore answers within a few hundred cycles, so the NIC's retransmit
//! timers (milliseconds of device time) do not fire for a live peer; seen
//! from the peer the NIC is hundreds of times slower than a board, which
//! the peer's own timers must allow for (docs/interop.md measures it).
//!
//! A frame the peer's socket cannot take (the peer not up yet, gone, or
//! its queue full past [`SEND_PATIENCE`]) is lost as on a wire and counted
//! in [`SockStats::lost`].

use crate::driver_hw::SimWorld;
use crate::host_bench::HostBench;
use crate::sim_net::WireFrame;
use rnic_host::PcieConfig;
use rnic_sim::models::rnic_core::Dut;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::io;
use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::{Duration, Instant};

/// Cycles between two looks at the socket for frames from the peer (a
/// system call per cycle would dominate the simulation; 64 cycles are
/// 256 ns of device time).
pub const RX_POLL_CYCLES: u64 = 64;
/// How long a send waits for room in the peer's socket queue before the
/// frame counts as lost.
pub const SEND_PATIENCE: Duration = Duration::from_secs(2);
/// Largest datagram taken from the peer (a jumbo frame and then some).
const MAX_DATAGRAM: usize = 16384;

/// Frames across the socket.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SockStats {
    /// Frames the NIC sent that reached the peer's socket.
    pub sent: u64,
    /// Frames the NIC sent that the peer's socket did not take.
    pub lost: u64,
    /// Frames from the peer handed to the NIC's MAC.
    pub received: u64,
    /// Cycles the NIC's pause request held the peer's frames back.
    pub paused_cycles: u64,
}

/// The NIC and its socket.
pub struct SockNet {
    pub nic: HostBench<Dut>,
    sock: UnixDatagram,
    local: PathBuf,
    peer: PathBuf,
    seen: usize,
    next_poll: u64,
    buf: Vec<u8>,
    /// Frames from the peer not yet handed to the MAC.
    pending: VecDeque<Vec<u8>>,
    /// Every frame either way, in order: `from` 0 is this NIC, 1 the peer;
    /// `sent` the cycle the NIC sent it or the peer's frame reached the MAC.
    pub log: Vec<WireFrame>,
    pub stats: SockStats,
}

impl SockNet {
    /// A NIC behind a Gen3 x16 host, out of reset, its wire a datagram
    /// socket bound at `local` (an old socket file there is replaced)
    /// sending to `peer`, its MAC `mac` (`port_mac`, so the driver puts it
    /// in every frame's source address).
    pub fn bind(local: &Path, peer: &Path, mac: [u8; 6], seed: u64) -> io::Result<Rc<RefCell<SockNet>>> {
        match std::fs::remove_file(local) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let sock = UnixDatagram::bind(local)?;
        sock.set_nonblocking(true)?;
        let mut nic = HostBench::with_model(Dut::new(), PcieConfig::gen3_x16(), seed);
        nic.set_port_mac(mac);
        Ok(Rc::new(RefCell::new(SockNet {
            nic,
            sock,
            local: local.to_path_buf(),
            peer: peer.to_path_buf(),
            seen: 0,
            next_poll: 0,
            buf: vec![0; MAX_DATAGRAM],
            pending: VecDeque::new(),
            log: vec![],
            stats: SockStats::default(),
        })))
    }

    /// The NIC's cycle.
    pub fn now(&self) -> u64 {
        self.nic.now()
    }

    /// Runs the NIC `cycles` cycles with nobody driving it: what a process
    /// does while it waits on something else (the tools' TCP exchange), so
    /// the NIC keeps answering the peer.
    pub fn idle(&mut self, cycles: u64) {
        for _ in 0..cycles {
            self.step();
        }
    }

    /// The frames of the log, for a pcap.
    pub fn frames(&self) -> Vec<Vec<u8>> {
        self.log.iter().map(|f| f.bytes.clone()).collect()
    }

    fn send(&mut self, bytes: &[u8]) {
        let start = Instant::now();
        loop {
            match self.sock.send_to(bytes, &self.peer) {
                Ok(_) => {
                    self.stats.sent += 1;
                    return;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock && start.elapsed() < SEND_PATIENCE => {
                    std::thread::sleep(Duration::from_micros(50));
                }
                Err(_) => {
                    self.stats.lost += 1;
                    return;
                }
            }
        }
    }

    fn receive(&mut self) {
        while let Ok(n) = self.sock.recv(&mut self.buf) {
            self.pending.push_back(self.buf[..n].to_vec());
        }
    }

    /// The peer's frames enter the MAC one at a time, none while the NIC
    /// asks for a pause: the socket is a link whose partner honours PAUSE
    /// (PFC), as RoCE fabrics are run, and the peer's bursts, which arrive
    /// all at once in the simulation's slow time, wait in the socket
    /// instead of overrunning the MAC's FIFO.
    fn admit(&mut self) {
        use rnic_sim::Model;
        let now = self.nic.now();
        let paused = self.nic.sim.dut.get("mac_rx_pause") == 1;
        let mac = self.nic.mac.as_mut().expect("a core has MAC streams");
        if paused {
            if !self.pending.is_empty() {
                self.stats.paused_cycles += 1;
            }
            return;
        }
        if mac.rx.is_empty() {
            if let Some(bytes) = self.pending.pop_front() {
                self.log.push(WireFrame { sent: now, from: 1, bytes: bytes.clone() });
                mac.rx.push_back(bytes);
                self.stats.received += 1;
            }
        }
    }

    /// Frames the NIC's MAC FIFO dropped whole (`stat_rx_drops`).
    pub fn rx_drops(&self) -> u64 {
        use rnic_sim::Model;
        self.nic.sim.dut.get("stat_rx_drops")
    }

    /// One line for a tool's diagnostics.
    pub fn summary(&self) -> String {
        let s = self.stats;
        format!(
            "{} frames sent ({} lost at the peer's socket), {} received, {} dropped by the MAC FIFO, \
             {} cycles paused, {} cycles run",
            s.sent,
            s.lost,
            s.received,
            self.rx_drops(),
            s.paused_cycles,
            self.nic.now()
        )
    }
}

impl Drop for SockNet {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.local);
    }
}

impl SimWorld for SockNet {
    type Dut = Dut;
    fn bench(&mut self, nic: usize) -> &mut HostBench<Dut> {
        assert_eq!(nic, 0, "a socket wire has one NIC");
        &mut self.nic
    }
    fn bench_ref(&self, nic: usize) -> &HostBench<Dut> {
        assert_eq!(nic, 0, "a socket wire has one NIC");
        &self.nic
    }
    fn step(&mut self) {
        self.nic.step();
        let mac = self.nic.mac.as_ref().expect("a core has MAC streams");
        if mac.tx.len() > self.seen {
            let new: Vec<(u64, Vec<u8>)> = mac.tx[self.seen..].to_vec();
            self.seen = mac.tx.len();
            for (sent, bytes) in new {
                self.send(&bytes);
                self.log.push(WireFrame { sent, from: 0, bytes });
            }
        }
        if self.nic.now() >= self.next_poll {
            self.next_poll = self.nic.now() + RX_POLL_CYCLES;
            self.receive();
        }
        self.admit();
    }
}
