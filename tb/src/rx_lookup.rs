//! Bench of the receive lookup (`RxLookup`, catalog `rx_lookup`).
//!
//! [`LookupBench`] plays every neighbour: offers headers (random bits with
//! an opcode and a destination QP: requests, responses, QPNs that name no
//! QP), serves the `qpc` and `qps` ports from its tables as a context cache
//! does (requests taken under random stalls, a write applied and a read's
//! entry captured when taken, answers after random delays in any order),
//! takes the records under random stalls and plays the stages after them:
//! each record's write-back comes on `s_req_wb` / `s_comp_wb` in order,
//! a random number of cycles later, and increments that path's counter in
//! the QP's `qps` entry (bytes 0..3 for requests, 4..7 for responses; a
//! fifth of them write nothing). A record must carry its QP's counter as
//! every earlier record of its path left it: the hazard check's proof.
//! Half the writes ask for a wake (`wake`): on either path each must come
//! out on `m_wake`, in the order of its path's writes, only once its write
//! is in the `qps` table (the completer's wakes, and the responder's when
//! it moves its QP into error).
//! Expected per header: admission by `rnic_contract::qp_modify::admit`, the
//! record (header, the `qpc` entry) in order per path, and `m_dest`.
//!
//! Records made on chip, on the block's three inputs: timer expiries
//! (`s_expire`, [`LookupBench::push_expire`]), refused WQEs and pokes
//! (`s_local`, [`LookupBench::push_local`]) and RQ flushes (`s_rq_flush`,
//! [`LookupBench::push_flush`]), queued by the test or drawn at random
//! (`p_expire`, `p_local`, `p_flush` percent of the cycles while headers are
//! queued: mostly a QP of the tables, now and then 0 or a QPN above the
//! table), each offered in order on its port under random valid (held until
//! taken). Each becomes the record the block synthesizes, every bit not
//! named here 0: an expiry the ACKNOWLEDGE `TIMER_OPCODE` with AETH syndrome
//! `TIMER_SYNDROME`, the QPN, `RXF_TIMER`, and `RXF_TIMER_RNR` as the
//! port's `kind`; a refused WQE the same with `RXF_LOCAL_ERR` instead of
//! `RXF_TIMER_RNR`; a flush opcode `FLUSH_OPCODE`, the QPN, `RXF_TIMER` and
//! `RXF_RQ_FLUSH`. Admitted by `admit` as on-chip records (P_Key not
//! checked): expiries and refused WQEs are responses (in RTS, SQD and ERR),
//! flushes requests (only for a QP in error); each with its path's counter
//! and its write-back like any record of the path; no `m_dest`, no counted
//! drop.
//!
//! Their order: the bench mirrors the block's three registers (`e`, `l`,
//! `f`): a record taken on its port (valid and ready) is in its register
//! from the next cycle on, and the port's `ready` must then be low (else
//! the record was lost); a register whose `ready` rises again was taken
//! into the lookup in the cycle before. At most one register is taken per
//! cycle, and it must be the first of those holding a record in the
//! priority e > l > f (a record taken on a port in the same cycle does not
//! compete: it is not in its register yet); a `ready` low with no record
//! given fails. The record then joins its path's expected records at that
//! point: after every header taken up to that cycle, before any header
//! taken after it (the issue register is full in the cycle after a take).
//! Turns: while a register holds a record, a header may be taken only if
//! the last record taken was made on chip, and a register may not be taken
//! in a cycle a header was offered after such a record (the header's turn).
//! So a record lost, doubled, taken out of priority, out of place or out of
//! turn fails the bench.
//! The bench counts cycles by the number of full registers, takes of a
//! register past lower-priority ones waiting, and takes in the cycle
//! another register was loaded (the interplay the block's clear logic
//! must get right).

use crate::comp_ack::words_of;
use crate::req_fetch::{apply_masked, CachePort};
use rnic_contract::codes::{QpState, QpType};
use rnic_contract::layouts::{qpc, qps};
use rnic_contract::qp_modify::{admit, is_response, pkey_match, AdmitReason};
use rnic_hw::consts::*;
use rnic_hw::transport::RX_DROP_REASONS;
use rnic_sim::axis::Rng;
use rnic_sim::{Clocked, Model};
use std::collections::{HashMap, VecDeque};

/// The on-chip inputs, in the block's priority order: index of `s_expire`,
/// `s_local`, `s_rq_flush` in [`LookupBench::on_chip`] and the other
/// per-input arrays.
pub const EXPIRE: usize = 0;
pub const LOCAL: usize = 1;
pub const FLUSH: usize = 2;
/// The on-chip inputs' port names, in priority order.
pub const CHIP_PORTS: [&str; 3] = ["s_expire", "s_local", "s_rq_flush"];

/// The bench's `qpc_log_entries`.
pub const QPC_LOG: u32 = 10;

/// `RegFile::qpn_high` for `qpc_log_entries` = `log`: the QPN bits at and
/// above min(`log`, the build's `LOG_QPS`).
pub fn qpn_high(log: u32) -> u64 {
    let lim = log.min(rnic_hw::consts::LOG_QPS as u32);
    !((1u64 << lim) - 1) & 0xff_ffff
}

/// Whether QPN `qpn` names a QP of a table of 2^`log` entries in this build.
pub fn names_qp(qpn: u32, log: u32) -> bool {
    qpn != 0 && qpn as u64 & qpn_high(log) == 0
}
/// `qps` bytes the request path's counter and the response path's occupy.
const REQ_CTR: usize = 0;
const RESP_CTR: usize = 4;

fn get_bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn set_field(h: &mut [u8], lsb: usize, width: usize, v: u64) {
    for i in 0..width {
        let b = lsb + i;
        h[b / 8] = h[b / 8] & !(1 << (b % 8)) | (((v >> i) & 1) as u8) << (b % 8);
    }
}

/// A header offered, with what it must become.
#[derive(Clone, Debug)]
pub struct Hdr {
    pub bytes: Vec<u8>,
    pub qpn: u32,
    pub opcode: u8,
    pub reason: AdmitReason,
    /// A record made on chip, not a header: its input ([`EXPIRE`],
    /// [`LOCAL`], [`FLUSH`]).
    pub chip: Option<usize>,
    /// An expiry's `kind` (an RNR timer's).
    pub rnr: bool,
}

impl Hdr {
    pub fn is_resp(&self) -> bool {
        is_response(self.opcode)
    }
    pub fn dest(&self) -> u64 {
        match (self.reason, self.is_resp()) {
            (AdmitReason::Admit, false) => RX_DEST_REQ,
            (AdmitReason::Admit, true) => RX_DEST_RESP,
            _ => RX_DEST_DROP,
        }
    }
}

/// A record the downstream stage holds until its write-back.
struct Held {
    due: u64,
    qpn: u32,
    write: bool,
    wake: bool,
}

/// A write-back on its port: QPN, write, wake.
type WbItem = (u32, bool, bool);

/// One on-chip input and the bench's mirror of the block's register behind it.
struct Chip {
    /// Records still to offer, in order.
    queue: VecDeque<Hdr>,
    /// The front is offered (held valid until taken).
    offered: bool,
    /// The register's record as of the last cycle.
    reg: Option<Hdr>,
    /// The record taken on the port in the last cycle (in the register from now on).
    load: Option<Hdr>,
    /// qpn, valid, ready, kind (`s_expire` only).
    ports: [usize; 4],
}

pub struct LookupBench<M: Model> {
    pub sim: Clocked<M>,
    pub rng: Rng,
    /// Percent of cycles: a header offered, a cache request taken, a record taken, a write-back offered.
    pub p_hdr: u64,
    pub p_cache: u64,
    pub p_take: u64,
    pub p_wb: u64,
    /// Cache answers `lat_min..=lat_max` cycles after the request was taken.
    pub lat_min: u64,
    pub lat_max: u64,
    /// The stage after a record writes back `wb_min..=wb_max` cycles after taking it.
    pub wb_min: u64,
    pub wb_max: u64,
    /// Percent of write-backs that write (the others have mask 0).
    pub p_write: u64,
    /// Percent of QPs and headers with a P_Key drawn at random (else 0xFFFF).
    pub p_any_pkey: u64,
    /// Percent of QPs whose completer is in error (`qps.COMP_ERROR`).
    pub p_comp_error: u64,
    /// Requests expected dropped because their QP's completer is in error.
    pub comp_error_drops: u64,
    /// Percent of cycles, while headers are queued, that queue an RQ flush
    /// (an expiry, a refused WQE's record) of a random QPN (most of them a
    /// QP of the tables).
    pub p_flush: u64,
    pub p_expire: u64,
    pub p_local: u64,
    /// Percent of cycles an on-chip input's next record is first offered
    /// (then held valid until taken); `None`: `p_hdr`.
    pub p_chip_valid: Option<u64>,
    /// Per on-chip input ([`EXPIRE`], [`LOCAL`], [`FLUSH`]): records
    /// admitted (seen on `m_req` / `m_resp`) and dropped (taken into the
    /// lookup, admission refused as expected).
    pub on_chip: [[u64; 2]; 3],
    /// Per on-chip input: records queued, and those expected admitted
    /// (decided when queued).
    pub chip_pushed: [u64; 3],
    pub chip_admits: [u64; 3],
    /// Admitted flushes of QPs in ERR and of QPs whose completer is in
    /// error (not in ERR), as expected when taken.
    pub flush_admits: [u64; 2],
    /// QPNs of the tables, in the order they were added.
    qp_list: Vec<u32>,
    chip: [Chip; 3],
    /// Cycles by the number of on-chip registers holding a record (0..=3).
    pub full_cycles: [u64; 4],
    /// `[x][y]`: register `x` taken while `y` (lower priority) held a record.
    pub took_over: [[u64; 3]; 3],
    /// Headers taken while an on-chip record waited (their turn).
    pub hdr_past_chip: u64,
    /// The last record taken into the lookup was made on chip.
    chip_last: bool,
    /// A header was offered in the last cycle.
    hdr_offered_last: bool,
    /// `[x][y]`: register `x` taken in the cycle a record was taken on port `y`.
    pub take_load: [[u64; 3]; 3],
    pub qpc_tab: HashMap<u32, Vec<u8>>,
    pub qps_tab: HashMap<u32, Vec<u8>>,
    /// Per QP and path: the counter every record must carry.
    want_ctr: HashMap<(u32, bool), u32>,
    queue: VecDeque<Hdr>,
    /// Expected records per path (requests, responses), and all destinations.
    exp_rec: [VecDeque<Hdr>; 2],
    exp_dest: VecDeque<u64>,
    held: [VecDeque<Held>; 2],
    wb_cur: [Option<WbItem>; 2],
    /// Wakes due on `m_wake`: the QPN and the counter its write stored.
    exp_wake: [VecDeque<(u32, u32)>; 2],
    pub wakes: u64,
    /// Wakes by path (requests, responses).
    pub path_wakes: [u64; 2],
    qpc_port: CachePort,
    qps_port: CachePort,
    p: Ports,
    pub drops: [u64; RX_DROP_REASONS],
    /// Cycles: header taken, record offered (first), per path in order.
    pub taken_at: VecDeque<u64>,
    pub rec_at: Vec<(u64, u64)>,
    pub records: [u64; 2],
    pub dests: u64,
    pending_taken: VecDeque<(u64, bool, AdmitReason)>,
    offered: [bool; 3],
}

struct Ports {
    hdr: [usize; 3], // tdata tvalid tready
    rec: [[usize; 5]; 2],
    wb: [[usize; 6]; 2], // qpn mask data valid ready wake
    wake: [usize; 3],    // qpn valid ready
    dest: [usize; 3],
    cnt: [usize; RX_DROP_REASONS],
}

impl<M: Model> LookupBench<M> {
    pub fn new(dut: M, seed: u64) -> Self {
        let d = &dut;
        let rec = |m: &str| ["hdr", "qpc", "qps", "valid", "ready"].map(|f| d.port(&format!("{m}.{f}")));
        let wb = |m: &str| ["qpn", "mask", "data", "valid", "ready", "wake"].map(|f| d.port(&format!("{m}.{f}")));
        let p = Ports {
            hdr: ["tdata", "tvalid", "tready"].map(|f| d.port(&format!("s_hdr.{f}"))),
            rec: [rec("m_req"), rec("m_resp")],
            wb: [wb("s_req_wb"), wb("s_comp_wb")],
            dest: ["dest", "valid", "ready"].map(|f| d.port(&format!("m_dest.{f}"))),
            wake: ["qpn", "valid", "ready"].map(|f| d.port(&format!("m_wake.{f}"))),
            cnt: std::array::from_fn(|k| d.port(&format!("cnt_drop.{k}"))),
        };
        let chip = CHIP_PORTS.map(|n| Chip {
            queue: VecDeque::new(),
            offered: false,
            reg: None,
            load: None,
            ports: ["qpn", "valid", "ready", "kind"].map(|f| {
                if f == "kind" && n != "s_expire" {
                    usize::MAX
                } else {
                    d.port(&format!("{n}.{f}"))
                }
            }),
        });
        let qpc_port = CachePort::new(d, "m_qpc", "s_qpc");
        let qps_port = CachePort::new(d, "m_qps", "s_qps");
        let mut sim = Clocked::new(dut);
        sim.dut.set("qpn_high", qpn_high(QPC_LOG));
        for n in CHIP_PORTS {
            sim.dut.set(&format!("{n}.valid"), 0);
        }
        sim.reset(4);
        LookupBench {
            sim,
            rng: Rng(seed),
            p_hdr: 100,
            p_cache: 100,
            p_take: 100,
            p_wb: 100,
            lat_min: 3,
            lat_max: 3,
            wb_min: 1,
            wb_max: 1,
            p_write: 80,
            p_any_pkey: 5,
            p_comp_error: 10,
            comp_error_drops: 0,
            p_flush: 3,
            p_expire: 0,
            p_local: 0,
            p_chip_valid: None,
            on_chip: [[0; 2]; 3],
            chip_pushed: [0; 3],
            chip_admits: [0; 3],
            flush_admits: [0, 0],
            qp_list: vec![],
            chip,
            full_cycles: [0; 4],
            took_over: [[0; 3]; 3],
            hdr_past_chip: 0,
            chip_last: false,
            hdr_offered_last: false,
            take_load: [[0; 3]; 3],
            qpc_tab: HashMap::new(),
            qps_tab: HashMap::new(),
            want_ctr: HashMap::new(),
            queue: VecDeque::new(),
            exp_rec: [VecDeque::new(), VecDeque::new()],
            exp_dest: VecDeque::new(),
            held: [VecDeque::new(), VecDeque::new()],
            wb_cur: [None, None],
            exp_wake: [VecDeque::new(), VecDeque::new()],
            wakes: 0,
            path_wakes: [0; 2],
            qpc_port,
            qps_port,
            p,
            drops: [0; RX_DROP_REASONS],
            taken_at: VecDeque::new(),
            rec_at: vec![],
            records: [0, 0],
            dests: 0,
            pending_taken: VecDeque::new(),
            offered: [false; 3],
        }
    }

    /// A QP's tables: `qpc` with its state and type, `qps` with random counters.
    pub fn add_qp(&mut self, qpn: u32, state: u64, ty: u64) {
        let mut c: Vec<u8> = (0..qpc::SIZE).map(|_| self.rng.next() as u8).collect();
        qpc::STATE.info().write_raw(&mut c, state).unwrap();
        qpc::QP_TYPE.info().write_raw(&mut c, ty).unwrap();
        // the default P_Key mostly, else any (limited member, other partition)
        let pkey = if self.rng.chance(self.p_any_pkey) { self.rng.next() as u16 } else { 0xFFFF };
        qpc::PKEY.set(&mut c, pkey).unwrap();
        let mut s: Vec<u8> = (0..qps::SIZE).map(|_| self.rng.next() as u8).collect();
        // the completer in error now and then: the QP's requests are dropped
        let comp_error = self.rng.chance(self.p_comp_error);
        qps::COMP_ERROR.set(&mut s, comp_error).unwrap();
        let ctr = |o: usize| u32::from_le_bytes([s[o], s[o + 1], s[o + 2], s[o + 3]]);
        self.want_ctr.insert((qpn, false), ctr(REQ_CTR));
        self.want_ctr.insert((qpn, true), ctr(RESP_CTR));
        self.qpc_tab.insert(qpn, c);
        self.qps_tab.insert(qpn, s);
        if !self.qp_list.contains(&qpn) {
            self.qp_list.push(qpn);
        }
    }

    /// Sets (or clears) a QP's completer error: `qps.COMP_STARTED` and
    /// `qps.COMP_ERROR` both (before any header or flush of it is queued).
    pub fn set_comp_error(&mut self, qpn: u32, on: bool) {
        let s = self.qps_tab.get_mut(&qpn).unwrap_or_else(|| panic!("QP {qpn} has no tables"));
        qps::COMP_STARTED.set(s, on).unwrap();
        qps::COMP_ERROR.set(s, on).unwrap();
    }

    /// A QP's context state, type and P_Key as the lookup reads them (a
    /// QPN without tables: RESET).
    fn qp_ctx(&self, qpn: u32) -> (u8, u8, u16) {
        match self.qpc_tab.get(&qpn) {
            Some(c) => (
                qpc::STATE.info().read_raw(c).unwrap() as u8,
                qpc::QP_TYPE.info().read_raw(c).unwrap() as u8,
                qpc::PKEY.get(c).unwrap(),
            ),
            None => (QpState::Reset as u8, QpType::Rc as u8, 0xFFFF),
        }
    }

    /// Whether a QP's completer is in error (`COMP_STARTED` and
    /// `COMP_ERROR`; never written by the write-backs here).
    fn comp_error(&self, qpn: u32) -> bool {
        self.qps_tab.get(&qpn).is_some_and(|e| qps::COMP_STARTED.get(e).unwrap() && qps::COMP_ERROR.get(e).unwrap())
    }

    /// Queues an RQ flush of `qpn` for `s_rq_flush`, with the record the
    /// block must make of it and its admission.
    pub fn push_flush(&mut self, qpn: u32) {
        self.push_chip(FLUSH, qpn, false);
    }

    /// Queues a timer's expiry of `qpn` (an RNR timer's if `rnr`) for `s_expire`.
    pub fn push_expire(&mut self, qpn: u32, rnr: bool) {
        self.push_chip(EXPIRE, qpn, rnr);
    }

    /// Queues a refused WQE's record (or a poke) of `qpn` for `s_local`.
    pub fn push_local(&mut self, qpn: u32) {
        self.push_chip(LOCAL, qpn, false);
    }

    /// Queues a record of on-chip input `x` for `qpn`, with the record the
    /// block must make of it and its admission.
    fn push_chip(&mut self, x: usize, qpn: u32, rnr: bool) {
        assert_eq!(
            (TIMER_SH_FLAG, TIMER_SH_RNR, TIMER_SH_LOCAL, TIMER_SH_RQ_FLUSH),
            (RXF_TIMER as u64, RXF_TIMER_RNR as u64, RXF_LOCAL_ERR as u64, RXF_RQ_FLUSH as u64)
        );
        let opcode = if x == FLUSH { FLUSH_OPCODE } else { TIMER_OPCODE };
        let mut bytes = vec![0u8; 128];
        set_field(&mut bytes, TIMER_SH_OPCODE as usize, 8, opcode);
        set_field(&mut bytes, TIMER_SH_DESTQP as usize, 24, qpn as u64);
        set_field(&mut bytes, RXF_TIMER, 1, 1);
        match x {
            EXPIRE => {
                set_field(&mut bytes, TIMER_SH_SYNDROME as usize, 8, TIMER_SYNDROME);
                set_field(&mut bytes, RXF_TIMER_RNR, 1, rnr as u64);
            }
            LOCAL => {
                set_field(&mut bytes, TIMER_SH_SYNDROME as usize, 8, TIMER_SYNDROME);
                set_field(&mut bytes, RXF_LOCAL_ERR, 1, 1);
            }
            _ => set_field(&mut bytes, RXF_RQ_FLUSH, 1, 1),
        }
        let qpn_ok = names_qp(qpn, QPC_LOG);
        assert!(!qpn_ok || self.qpc_tab.contains_key(&qpn), "QP {qpn} has no tables");
        let (state, ty, _) = self.qp_ctx(qpn);
        let comp_error = self.comp_error(qpn);
        // an on-chip record: no P_Key to check
        let opcode = opcode as u8;
        let reason = admit(qpn_ok, true, state, ty, opcode, true, comp_error);
        self.chip_pushed[x] += 1;
        if reason == AdmitReason::Admit {
            self.chip_admits[x] += 1;
            if x == FLUSH {
                self.flush_admits[(state != QpState::Error as u8) as usize] += 1;
            }
        }
        self.chip[x].queue.push_back(Hdr { bytes, qpn, opcode, reason, chip: Some(x), rnr: x == EXPIRE && rnr });
    }

    /// A random QPN for an on-chip record: mostly a QP of the tables, now
    /// and then 0 or a QPN above the table.
    fn random_qpn(&mut self) -> u32 {
        match self.rng.next() % 20 {
            0 => 0,
            1 => (1 << QPC_LOG) + (self.rng.next() % 5000) as u32,
            _ if self.qp_list.is_empty() => 0,
            _ => self.qp_list[(self.rng.next() % self.qp_list.len() as u64) as usize],
        }
    }

    /// Queues a header for `qpn` with `opcode` (other bits random).
    pub fn push(&mut self, qpn: u32, opcode: u8) {
        let mut bytes: Vec<u8> = (0..128).map(|_| self.rng.next() as u8).collect();
        set_field(&mut bytes, RXF_OPCODE, 8, opcode as u64);
        set_field(&mut bytes, RXF_DESTQP, 24, qpn as u64);
        let pkey = if self.rng.chance(self.p_any_pkey) { self.rng.next() as u16 } else { 0xFFFF };
        set_field(&mut bytes, RXF_PKEY, 16, pkey as u64);
        // the parser never sets the bit of a timer's record
        set_field(&mut bytes, RXF_TIMER, 1, 0);
        let qpn_ok = names_qp(qpn, QPC_LOG);
        let (state, ty, qp_pkey) = self.qp_ctx(qpn);
        assert!(!qpn_ok || self.qpc_tab.contains_key(&qpn), "QP {qpn} has no tables");
        // the completer's error bits are never written here
        let comp_error = self.comp_error(qpn);
        let reason = admit(qpn_ok, pkey_match(pkey, qp_pkey), state, ty, opcode, false, comp_error);
        if comp_error && reason == AdmitReason::QpError && state != QpState::Error as u8 {
            self.comp_error_drops += 1;
        }
        let h = Hdr { bytes, qpn, opcode, reason, chip: None, rnr: false };
        // the header's record is expected when the block takes it (on-chip
        // records may come between); its destination in header order
        self.exp_dest.push_back(h.dest());
        self.queue.push_back(h);
    }

    fn cnt(&self, k: usize) -> u64 {
        self.sim.dut.get_at(self.p.cnt[k])
    }

    /// Every header through, every record written back.
    pub fn done(&self) -> bool {
        self.queue.is_empty()
            && self.chip.iter().all(|c| c.queue.is_empty() && c.reg.is_none() && c.load.is_none())
            && self.exp_rec.iter().all(|q| q.is_empty())
            && self.exp_dest.is_empty()
            && self.held.iter().all(|q| q.is_empty())
            && self.wb_cur.iter().all(|w| w.is_none())
            && self.exp_wake.iter().all(|w| w.is_empty())
            && self.qpc_port.idle()
            && self.qps_port.idle()
    }

    pub fn run(&mut self, limit: u64) {
        let start = self.sim.cycle();
        while !self.done() {
            assert!(
                self.sim.cycle() - start < limit,
                "stuck: {} headers and {:?} on-chip records left",
                self.queue.len(),
                self.chip
                    .iter()
                    .map(|c| c.queue.len() + c.reg.is_some() as usize + c.load.is_some() as usize)
                    .collect::<Vec<_>>()
            );
            self.step();
        }
        for _ in 0..4 {
            self.step();
        }
        for k in 0..RX_DROP_REASONS {
            assert_eq!(self.cnt(k), self.drops[k], "drop counter {k}");
        }
    }

    pub fn step(&mut self) {
        let now = self.sim.cycle();
        // on-chip records of random QPNs now and then while headers flow
        for x in [EXPIRE, LOCAL, FLUSH] {
            let p = [self.p_expire, self.p_local, self.p_flush][x];
            if p > 0 && !self.queue.is_empty() && self.rng.chance(p) {
                let qpn = self.random_qpn();
                let rnr = x == EXPIRE && self.rng.chance(50);
                self.push_chip(x, qpn, rnr);
            }
        }
        let p = &self.p;
        let d = &mut self.sim.dut;
        // ---- inputs
        let offer = !self.queue.is_empty() && (self.offered[0] || self.rng.chance(self.p_hdr));
        self.offered[0] = offer;
        if let Some(h) = self.queue.front() {
            d.set_words(p.hdr[0], &words_of(&h.bytes));
        }
        d.set_at(p.hdr[1], offer as u64);
        let p_valid = self.p_chip_valid.unwrap_or(self.p_hdr);
        for c in self.chip.iter_mut() {
            let offer = !c.queue.is_empty() && (c.offered || self.rng.chance(p_valid));
            c.offered = offer;
            d.set_at(c.ports[0], c.queue.front().map_or(0, |f| f.qpn as u64));
            d.set_at(c.ports[1], offer as u64);
            if c.ports[3] != usize::MAX {
                d.set_at(c.ports[3], c.queue.front().is_some_and(|f| f.rnr) as u64);
            }
        }
        let (rc, rs) = (self.rng.chance(self.p_cache), self.rng.chance(self.p_cache));
        self.qpc_port.drive(d, &mut self.rng, now, rc);
        self.qps_port.drive(d, &mut self.rng, now, rs);
        let take = [self.rng.chance(self.p_take), self.rng.chance(self.p_take)];
        for (i, t) in take.iter().enumerate() {
            d.set_at(p.rec[i][4], *t as u64);
        }
        d.set_at(p.dest[2], self.rng.chance(self.p_take) as u64);
        for i in 0..2 {
            if self.wb_cur[i].is_none() {
                if let Some(h) = self.held[i].front() {
                    if h.due <= now && self.rng.chance(self.p_wb) {
                        let h = self.held[i].pop_front().unwrap();
                        self.wb_cur[i] = Some((h.qpn, h.write, h.wake));
                    }
                }
            }
            let (qpn, write, wake) = self.wb_cur[i].unwrap_or((0, false, false));
            let o = if i == 0 { REQ_CTR } else { RESP_CTR };
            let mut data = vec![0u8; 64];
            let next = self.want_ctr.get(&(qpn, i == 1)).copied().unwrap_or(0).wrapping_add(1);
            data[o..o + 4].copy_from_slice(&next.to_le_bytes());
            d.set_at(p.wb[i][0], qpn as u64);
            d.set_at(p.wb[i][1], if write { 0xf << o } else { 0 });
            d.set_words(p.wb[i][2], &words_of(&data));
            d.set_at(p.wb[i][3], self.wb_cur[i].is_some() as u64);
            d.set_at(p.wb[i][5], wake as u64);
        }
        let wake_ready = self.rng.chance(self.p_take);
        d.set_at(p.wake[2], wake_ready as u64);
        d.eval();

        // ---- outputs, before the edge
        // the on-chip registers (each port's `ready` is its register's
        // emptiness): one that held a record and is empty now was taken into
        // the lookup in the last cycle, ahead of any header taken from now on
        let rdy: [bool; 3] = std::array::from_fn(|x| d.bit_at(self.chip[x].ports[2]));
        let taken: Vec<usize> = (0..3).filter(|&x| self.chip[x].reg.is_some() && rdy[x]).collect();
        assert!(taken.len() <= 1, "cycle {}: on-chip registers {taken:?} taken in one cycle", now - 1);
        if let Some(&x) = taken.first() {
            assert!(
                !(self.chip_last && self.hdr_offered_last),
                "cycle {}: {} taken after an on-chip record while a header waited (its turn)",
                now - 1,
                CHIP_PORTS[x]
            );
            self.chip_last = true;
            for (y, c) in self.chip.iter().enumerate() {
                if let Some(w) = c.reg.as_ref().filter(|_| y != x) {
                    assert!(
                        y > x,
                        "cycle {}: {} taken while {} (QP {}) waited",
                        now - 1,
                        CHIP_PORTS[x],
                        CHIP_PORTS[y],
                        w.qpn
                    );
                    self.took_over[x][y] += 1;
                }
                if c.load.is_some() {
                    self.take_load[x][y] += 1;
                }
            }
            let h = self.chip[x].reg.take().unwrap();
            // never counted, never a destination
            if h.reason == AdmitReason::Admit {
                self.exp_rec[h.is_resp() as usize].push_back(h);
            } else {
                self.on_chip[x][1] += 1;
            }
        }
        for (x, c) in self.chip.iter_mut().enumerate() {
            if c.reg.is_none() {
                if let Some(h) = c.load.take() {
                    assert!(!rdy[x], "cycle {}: {}'s record of QP {} was lost", now - 1, CHIP_PORTS[x], h.qpn);
                    c.reg = Some(h);
                } else {
                    assert!(rdy[x], "cycle {now}: {}'s register full with no record given", CHIP_PORTS[x]);
                }
            }
        }
        self.full_cycles[self.chip.iter().filter(|c| c.reg.is_some()).count()] += 1;
        for (x, c) in self.chip.iter_mut().enumerate() {
            if c.offered && rdy[x] {
                c.load = c.queue.pop_front();
                c.offered = false;
            }
        }
        // the headers in the order the block took them, among the records
        // above (while a register holds a record, only after one made on chip)
        self.hdr_offered_last = offer;
        if offer && d.bit_at(p.hdr[2]) {
            if self.chip.iter().any(|c| c.reg.is_some()) {
                assert!(self.chip_last, "cycle {now}: a header taken out of turn while an on-chip record waits");
                self.hdr_past_chip += 1;
            }
            self.chip_last = false;
            let h = self.queue.pop_front().unwrap();
            self.offered[0] = false;
            self.taken_at.push_back(now);
            self.pending_taken.push_back((now, h.is_resp(), h.reason));
            if h.reason != AdmitReason::Admit {
                self.drops[h.reason as usize] += 1;
            } else {
                self.exp_rec[h.is_resp() as usize].push_back(h);
            }
        }
        for (port, tab, width) in
            [(&mut self.qpc_port, &mut self.qpc_tab, 128), (&mut self.qps_port, &mut self.qps_tab, 64)]
        {
            if let Some((op, index, id, mask, data)) = port.request(d) {
                let e = tab.get_mut(&index).unwrap_or_else(|| panic!("a lookup of QP {index}, which names none"));
                match op {
                    0 => {}
                    1 => {
                        assert_eq!(width, 64, "writes only to qps");
                        assert_eq!(id as u64 & RXL_WRITE_ID, RXL_WRITE_ID, "a write's id");
                        apply_masked(e, mask, &data);
                    }
                    _ => panic!("op {op}"),
                }
                let lat = self.lat_min + self.rng.next() % (self.lat_max - self.lat_min + 1);
                port.answer(now + lat, id, e.clone());
            }
            port.answered(d);
        }
        for (i, &took) in take.iter().enumerate() {
            let v = d.bit_at(p.rec[i][3]);
            if v && !self.offered[1 + i] {
                self.rec_at.push((now, i as u64));
            }
            self.offered[1 + i] = v && !took;
            if v && took {
                let h = self.exp_rec[i].pop_front().unwrap_or_else(|| panic!("an unexpected record on path {i}"));
                let mut w = vec![0u32; 32];
                d.get_words(p.rec[i][0], &mut w);
                assert_eq!(get_bytes(&w), h.bytes, "path {i}: the header, in order");
                d.get_words(p.rec[i][1], &mut w);
                assert_eq!(get_bytes(&w), self.qpc_tab[&h.qpn], "path {i}: QP {} qpc", h.qpn);
                let mut s = vec![0u32; 16];
                d.get_words(p.rec[i][2], &mut s);
                let s = get_bytes(&s);
                let o = if i == 0 { REQ_CTR } else { RESP_CTR };
                let ctr = u32::from_le_bytes([s[o], s[o + 1], s[o + 2], s[o + 3]]);
                assert_eq!(
                    ctr,
                    self.want_ctr[&(h.qpn, i == 1)],
                    "path {i}: QP {}: the state of its earlier packets",
                    h.qpn
                );
                self.records[i] += 1;
                if let Some(x) = h.chip {
                    self.on_chip[x][0] += 1;
                }
                let write = self.rng.chance(self.p_write);
                let due = now + self.wb_min + self.rng.next() % (self.wb_max - self.wb_min + 1);
                let wake = write && self.rng.chance(50);
                self.held[i].push_back(Held { due, qpn: h.qpn, write, wake });
            }
            if self.wb_cur[i].is_some() && d.bit_at(p.wb[i][4]) {
                let (qpn, write, wake) = self.wb_cur[i].take().unwrap();
                if write {
                    let c = self.want_ctr.get_mut(&(qpn, i == 1)).unwrap();
                    *c = c.wrapping_add(1);
                    if wake {
                        self.exp_wake[i].push_back((qpn, *c));
                    }
                }
            }
        }
        if wake_ready && d.bit_at(p.wake[1]) {
            let qpn = d.get_at(p.wake[0]) as u32;
            // each path's wakes in the order of its writes (the two paths'
            // writes interleave as the block takes them): the oldest due
            // wake of a path, for this QP, whose write is in the table
            let e = &self.qps_tab[&qpn];
            let held = |o: usize| u32::from_le_bytes([e[o], e[o + 1], e[o + 2], e[o + 3]]);
            let i = (0..2)
                .find(|&i| {
                    let o = if i == 0 { REQ_CTR } else { RESP_CTR };
                    self.exp_wake[i].front().is_some_and(|&(q, c)| q == qpn && held(o).wrapping_sub(c) < 1 << 31)
                })
                .unwrap_or_else(|| {
                    panic!(
                        "cycle {now}: a wake for QP {qpn}, not the next of a path whose write is in the table: {:?} {:?}",
                        self.exp_wake[0].front(),
                        self.exp_wake[1].front()
                    )
                });
            self.exp_wake[i].pop_front();
            self.wakes += 1;
            self.path_wakes[i] += 1;
        }
        if d.bit_at(p.dest[1]) && d.bit_at(p.dest[2]) {
            let want = self.exp_dest.pop_front().expect("an unexpected destination");
            assert_eq!(d.get_at(p.dest[0]), want, "destination {}", self.dests);
            self.dests += 1;
        }
        self.sim.tick();
    }
}
