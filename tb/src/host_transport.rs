//! The transport's side of `HostIf`, played by the host bench: send work
//! taken from `m_work`, requests on the context caches' user ports, the
//! translation port, and the payload and WQE DMA clients. Each port takes
//! its requests from a queue, one at a time, and records what comes back
//! with the cycle.

use rnic_sim::Model;
use std::collections::VecDeque;

/// A context cache request (`op`: `rnic_hw::host::CACHE_OP_*`).
#[derive(Clone, Debug)]
pub struct CacheReq {
    pub op: u64,
    pub index: u32,
    /// Byte enables, one per entry byte.
    pub mask: Vec<bool>,
    pub data: Vec<u8>,
    pub id: u8,
}

/// An answer on a cache user port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheAnswer {
    pub id: u8,
    pub data: Vec<u8>,
    pub err: bool,
    pub cycle: u64,
}

/// A translation request (`s_xreq`) and its answers (`m_xresp`).
#[derive(Clone, Debug)]
pub struct XReq {
    pub key: u32,
    pub pd: u32,
    pub va: u64,
    pub len: u32,
    pub access: u8,
    pub id: u8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XAnswer {
    pub id: u8,
    pub verdict: u64,
    pub iova: u64,
    pub len: u32,
    pub last: bool,
}

/// A DMA read command's data as its client received it.
#[derive(Clone, Debug)]
pub struct ReadDone {
    pub addr: u64,
    pub bytes: Vec<u8>,
    pub err: bool,
}

/// One cache user port: `prefix` "s_qpc.0" answers on "m_qpc.0".
pub struct CachePort {
    req: String,
    resp: String,
    bytes: usize,
    pub queue: VecDeque<CacheReq>,
    on: bool,
    pub answers: Vec<CacheAnswer>,
}

impl CachePort {
    fn new(cache: &str, user: usize, bytes: usize) -> Self {
        CachePort {
            req: format!("s_{cache}.{user}"),
            resp: format!("m_{cache}.{user}"),
            bytes,
            queue: VecDeque::new(),
            on: false,
            answers: vec![],
        }
    }
}

/// One DMA read client (`s_<name>` / `m_<name>`).
pub struct ReadPort {
    name: &'static str,
    pub queue: VecDeque<(u64, u64)>,
    on: bool,
    issued: VecDeque<u64>,
    cur: Vec<u8>,
    cur_err: bool,
    pub done: Vec<ReadDone>,
}

/// One DMA write client (`s_<name>`, completions on `<name>_done`, failures on `<name>_err`).
pub struct WritePort {
    name: &'static str,
    done_port: String,
    err_port: String,
    pub queue: VecDeque<(u64, Vec<u8>)>,
    beat: usize,
    pub completions: u64,
    /// Completion pulses with the error flag.
    pub errors: u64,
}

pub struct Transport {
    /// Percent of cycles `m_work` is taken.
    pub work_ready_pct: u64,
    /// QPNs taken from `m_work`, with the cycle.
    pub work: Vec<(u32, u64)>,
    /// `qpc` users 0, 1; `qps` users 0, 1, 2.
    pub qpc: [CachePort; 2],
    pub qps: [CachePort; 3],
    pub xreqs: VecDeque<XReq>,
    x_on: bool,
    pub xanswers: Vec<XAnswer>,
    /// `wqe_rd`, `recv_rd`, `pay_rd`, `resp_rd`, `sq_rd`, `replay_rd`.
    pub reads: [ReadPort; 6],
    /// `pay_wr`, `comp_wr`, `replay_wr`.
    pub writes: [WritePort; 3],
}

fn bytes_to_words(b: &[u8]) -> Vec<u32> {
    b.chunks(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn mask_words(m: &[bool]) -> Vec<u32> {
    m.chunks(32).map(|c| c.iter().enumerate().fold(0u32, |w, (i, &b)| w | (b as u32) << i)).collect()
}

fn get_bytes<M: Model + ?Sized>(d: &M, name: &str, n: usize) -> Vec<u8> {
    let i = d.port(name);
    let mut w = vec![0u32; n / 4];
    d.get_words(i, &mut w);
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

impl Default for Transport {
    fn default() -> Self {
        Self::new()
    }
}

impl Transport {
    pub fn new() -> Self {
        let rd = |name| ReadPort {
            name,
            queue: VecDeque::new(),
            on: false,
            issued: VecDeque::new(),
            cur: vec![],
            cur_err: false,
            done: vec![],
        };
        let wr = |name: &'static str| WritePort {
            name,
            done_port: format!("{name}_done"),
            err_port: format!("{name}_err"),
            queue: VecDeque::new(),
            beat: 0,
            completions: 0,
            errors: 0,
        };
        Transport {
            work_ready_pct: 100,
            work: vec![],
            qpc: [CachePort::new("qpc", 0, 128), CachePort::new("qpc", 1, 128)],
            qps: [CachePort::new("qps", 0, 64), CachePort::new("qps", 1, 64), CachePort::new("qps", 2, 64)],
            xreqs: VecDeque::new(),
            x_on: false,
            xanswers: vec![],
            reads: [rd("wqe_rd"), rd("recv_rd"), rd("pay_rd"), rd("resp_rd"), rd("sq_rd"), rd("replay_rd")],
            writes: [wr("pay_wr"), wr("comp_wr"), wr("replay_wr")],
        }
    }

    /// Read port by client name.
    pub fn read_port(&mut self, name: &str) -> &mut ReadPort {
        self.reads.iter_mut().find(|p| p.name == name).expect("a read client")
    }

    pub fn write_port(&mut self, name: &str) -> &mut WritePort {
        self.writes.iter_mut().find(|p| p.name == name).expect("a write client")
    }

    /// Write port by client name, to look at (completions, errors).
    pub fn write_port_ref(&self, name: &str) -> &WritePort {
        self.writes.iter().find(|p| p.name == name).expect("a write client")
    }

    /// Nothing queued or in flight on any port.
    pub fn idle(&self) -> bool {
        self.qpc.iter().chain(self.qps.iter()).all(|p| p.queue.is_empty() && !p.on)
            && self.xreqs.is_empty()
            && !self.x_on
            && self.reads.iter().all(|p| p.queue.is_empty() && !p.on && p.issued.is_empty())
            && self.writes.iter().all(|p| p.queue.is_empty())
    }

    /// Inputs for this cycle (before `eval`).
    pub fn drive<M: Model + ?Sized>(&mut self, d: &mut M, rng: &mut rnic_sim::axis::Rng) {
        d.set("m_work.ready", rng.chance(self.work_ready_pct) as u64);
        for p in self.qpc.iter_mut().chain(self.qps.iter_mut()) {
            if !p.on {
                if let Some(r) = p.queue.front() {
                    d.set(&format!("{}.op", p.req), r.op);
                    d.set(&format!("{}.index", p.req), r.index as u64);
                    d.set(&format!("{}.id", p.req), r.id as u64);
                    let i = d.port(&format!("{}.mask", p.req));
                    d.set_words(i, &mask_words(&r.mask));
                    let i = d.port(&format!("{}.data", p.req));
                    d.set_words(i, &bytes_to_words(&r.data));
                    p.on = true;
                }
            }
            d.set(&format!("{}.valid", p.req), p.on as u64);
            d.set(&format!("{}.ready", p.resp), 1);
        }
        if !self.x_on {
            if let Some(x) = self.xreqs.front() {
                d.set("s_xreq.key", x.key as u64);
                d.set("s_xreq.pd", x.pd as u64);
                d.set("s_xreq.va", x.va);
                d.set("s_xreq.len", x.len as u64);
                d.set("s_xreq.access", x.access as u64);
                d.set("s_xreq.id", x.id as u64);
                self.x_on = true;
            }
        }
        d.set("s_xreq.valid", self.x_on as u64);
        d.set("m_xresp.ready", 1);
        for p in self.reads.iter_mut() {
            if !p.on {
                if let Some(&(addr, len)) = p.queue.front() {
                    d.set(&format!("s_{}.addr", p.name), addr);
                    d.set(&format!("s_{}.len", p.name), len);
                    p.on = true;
                }
            }
            d.set(&format!("s_{}.valid", p.name), p.on as u64);
            d.set(&format!("m_{}.tready", p.name), 1);
        }
        for p in self.writes.iter_mut() {
            let on = !p.queue.is_empty();
            if let Some((addr, data)) = p.queue.front() {
                let (words, keep, last) = write_beat(*addr, data, p.beat);
                let i = d.port(&format!("s_{}.tdata", p.name));
                d.set_words(i, &words);
                let i = d.port(&format!("s_{}.tkeep", p.name));
                d.set_words(i, &[keep as u32, (keep >> 32) as u32]);
                d.set(&format!("s_{}.tlast", p.name), last as u64);
                d.set(&format!("s_{}.addr", p.name), *addr);
                d.set(&format!("s_{}.len", p.name), data.len() as u64);
            }
            d.set(&format!("s_{}.tvalid", p.name), on as u64);
        }
    }

    /// What moved this cycle (after `eval`).
    pub fn sample<M: Model + ?Sized>(&mut self, d: &M, now: u64) {
        if d.get("m_work.valid") == 1 && d.get("m_work.ready") == 1 {
            self.work.push((d.get("m_work.qpn") as u32, now));
        }
        for p in self.qpc.iter_mut().chain(self.qps.iter_mut()) {
            if p.on && d.get(&format!("{}.ready", p.req)) == 1 {
                p.on = false;
                p.queue.pop_front();
            }
            if d.get(&format!("{}.valid", p.resp)) == 1 {
                p.answers.push(CacheAnswer {
                    id: d.get(&format!("{}.id", p.resp)) as u8,
                    data: get_bytes(d, &format!("{}.data", p.resp), p.bytes),
                    err: d.get(&format!("{}.err", p.resp)) == 1,
                    cycle: now,
                });
            }
        }
        if self.x_on && d.get("s_xreq.ready") == 1 {
            self.x_on = false;
            self.xreqs.pop_front();
        }
        if d.get("m_xresp.valid") == 1 {
            self.xanswers.push(XAnswer {
                id: d.get("m_xresp.id") as u8,
                verdict: d.get("m_xresp.verdict"),
                iova: d.get("m_xresp.iova"),
                len: d.get("m_xresp.len") as u32,
                last: d.get("m_xresp.last") == 1,
            });
        }
        for p in self.reads.iter_mut() {
            if p.on && d.get(&format!("s_{}.ready", p.name)) == 1 {
                p.on = false;
                let (addr, _) = p.queue.pop_front().unwrap();
                p.issued.push_back(addr);
            }
            if d.get(&format!("m_{}.tvalid", p.name)) == 1 {
                p.cur.extend(get_bytes(d, &format!("m_{}.tdata", p.name), 64));
                p.cur_err |= d.get(&format!("m_{}.tuser", p.name)) & 1 == 1;
                if d.get(&format!("m_{}.tlast", p.name)) == 1 {
                    let addr = p.issued.pop_front().expect("data for a command issued");
                    p.done.push(ReadDone { addr, bytes: std::mem::take(&mut p.cur), err: p.cur_err });
                    p.cur_err = false;
                }
            }
        }
        for p in self.writes.iter_mut() {
            if !p.queue.is_empty() && d.get(&format!("s_{}.tready", p.name)) == 1 {
                let (addr, data) = p.queue.front().unwrap();
                p.beat += 1;
                if p.beat == aligned_beats(*addr, data.len()) {
                    p.queue.pop_front();
                    p.beat = 0;
                }
            }
            p.completions += d.get(&p.done_port) & 1;
            p.errors += d.get(&p.err_port) & 1;
        }
    }
}

/// Beats of an address-aligned transfer of `len` bytes at `addr`.
pub fn aligned_beats(addr: u64, len: usize) -> usize {
    ((addr % 64) as usize + len).div_ceil(64)
}

/// Beat `k` of writing `data` at `addr`: its words, keep, last.
pub fn write_beat(addr: u64, data: &[u8], k: usize) -> (Vec<u32>, u64, bool) {
    let mut b = [0u8; 64];
    let mut keep = 0u64;
    let start = (addr % 64) as usize;
    for (lane, byte) in b.iter_mut().enumerate() {
        let pos = (64 * k + lane) as isize - start as isize;
        if pos >= 0 && (pos as usize) < data.len() {
            *byte = data[pos as usize];
            keep |= 1 << lane;
        }
    }
    (bytes_to_words(&b), keep, k + 1 == aligned_beats(addr, data.len()))
}

/// The `len` bytes at `addr` out of a read's address-aligned beats.
pub fn read_bytes(r: &ReadDone, len: usize) -> Vec<u8> {
    let start = (r.addr % 64) as usize;
    r.bytes[start..start + len].to_vec()
}
