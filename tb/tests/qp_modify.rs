//! The Verilated `qp_modify` and `qp_admit` against the contract's
//! reference functions (`rnic_contract::qp_modify::modify_check_raw` and
//! `admit`), exactly: status, attribute bit, QPN, byte mask and data of the
//! context write; admission and reason.
//!
//! `qp_modify`: every (current state, next state, type) with every mask of
//! interest (the required attributes, each one missing, each other bit of
//! the 32 added, with and without STATE), good values; then random masks,
//! random values (bad ones included) and contexts with unknown states and
//! types; the handshake and the latency (`QpModify::LATENCY`, one command per
//! `LATENCY` cycles back to back). `qp_admit`: its whole truth table (QPN
//! valid or not, every 4-bit state and type, every opcode), one per cycle.

use rnic_contract::codes::{Mtu, QpState, QpType};
use rnic_contract::layouts::qpc;
use rnic_contract::qp_modify::*;
use rnic_hw::host::QpModify;
use rnic_sim::models::{qp_admit, qp_modify};
use rnic_sim::Clocked;

type Sim = Clocked<qp_modify::Dut>;

/// xorshift64
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Rng(seed)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

struct Out {
    status: u8,
    attr: u8,
    qpn: u32,
    byte_mask: u128,
    data: [u8; 128],
}

fn words<const N: usize>(b: &[u8]) -> [u32; N] {
    std::array::from_fn(|i| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap()))
}

fn bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// One command through the handshake: inputs held until `req_ready`, which
/// must come `LATENCY - 1` cycles after `req_valid`; the result the cycle
/// after, for one cycle.
fn command(sim: &mut Sim, rng: &mut Rng, head: &[u8], mb: &[u8; 128]) -> Out {
    let d = &mut sim.dut;
    d.set_cmd(&words::<32>(mb));
    d.set_ctx_head(u64::from_le_bytes(head[..8].try_into().unwrap()));
    d.set_req_valid(1);
    sim.settle();
    for c in 0..QpModify::LATENCY - 1 {
        assert_eq!(sim.dut.req_ready(), 0, "req_ready early at cycle {c}");
        sim.tick();
    }
    assert_eq!(sim.dut.req_ready(), 1, "req_ready after {} cycles", QpModify::LATENCY - 1);
    assert_eq!(sim.dut.out_valid(), 0);
    sim.tick();
    // taken: the inputs may change now
    let d = &mut sim.dut;
    d.set_req_valid(0);
    let noise: [u32; 32] = std::array::from_fn(|_| rng.next() as u32);
    d.set_cmd(&noise);
    d.set_ctx_head(rng.next());
    sim.settle();
    let d = &sim.dut;
    assert_eq!(d.out_valid(), 1, "out_valid {} cycles after req_valid", QpModify::LATENCY);
    assert_eq!(d.req_ready(), 0);
    let bm = bytes(&d.byte_mask());
    let out = Out {
        status: d.status() as u8,
        attr: d.attr() as u8,
        qpn: d.qpn() as u32,
        byte_mask: u128::from_le_bytes(bm.try_into().unwrap()),
        data: bytes(&d.data()).try_into().unwrap(),
    };
    sim.tick();
    assert_eq!(sim.dut.out_valid(), 0, "out_valid is one cycle");
    out
}

fn check(sim: &mut Sim, rng: &mut Rng, head: &[u8], mb: &[u8; 128], what: &str) -> ModifyStatus {
    let (status, attr, write) = modify_check_raw(head, mb);
    let got = command(sim, rng, head, mb);
    assert_eq!(got.status, status as u8, "{what}: status (want {status:?} bit {attr})");
    assert_eq!(got.attr, attr, "{what}: attribute bit ({status:?})");
    assert_eq!(got.qpn as u64, modify_qp::QPN.info().read_raw(mb).unwrap(), "{what}: qpn");
    assert_eq!(got.byte_mask, write.byte_mask, "{what}: byte mask");
    assert_eq!(got.data, write.data, "{what}: data");
    status
}

fn head(rng: &mut Rng, state: u8, ty: u8) -> [u8; 8] {
    let mut h = rng.next().to_le_bytes();
    qpc::STATE.info().write_raw(&mut h, state as u64).unwrap();
    qpc::QP_TYPE.info().write_raw(&mut h, ty as u64).unwrap();
    h
}

/// Random bytes with every checked value good for `cur` -> `next`.
fn good_mailbox(rng: &mut Rng, cur: u8, next: u8, mask: u32) -> [u8; 128] {
    let mut mb = [0u8; 128];
    mb.iter_mut().for_each(|b| *b = rng.next() as u8);
    let w = |mb: &mut [u8; 128], f: rnic_contract::layout::LayoutFieldInfo, v: u64| f.write_raw(mb, v).unwrap();
    w(&mut mb, modify_qp::QP_STATE.info(), next as u64);
    w(&mut mb, modify_qp::CUR_QP_STATE.info(), cur as u64);
    w(&mut mb, modify_qp::PATH_MTU.info(), Mtu::ALL[rng.below(5) as usize] as u64);
    w(&mut mb, modify_qp::PATH_MIG_STATE.info(), MIG_MIGRATED as u64);
    w(&mut mb, modify_qp::ACCESS_FLAGS.info(), rng.below(16));
    w(&mut mb, modify_qp::MAX_RD_ATOMIC.info(), rng.below(MAX_RD_ATOMIC as u64 + 1));
    w(&mut mb, modify_qp::MAX_DEST_RD_ATOMIC.info(), rng.below(MAX_DEST_RD_ATOMIC as u64 + 1));
    w(&mut mb, modify_qp::PKEY_INDEX.info(), 0);
    w(&mut mb, modify_qp::PORT_NUM.info(), PORT_NUM as u64);
    w(&mut mb, modify_qp::MASK.info(), mask as u64);
    mb
}

#[test]
fn every_transition_with_every_mask_of_interest() {
    let mut sim = Clocked::new(qp_modify::Dut::new());
    sim.reset(2);
    let mut rng = Rng::new(0x9b_0001);
    let mut seen = std::collections::BTreeMap::new();
    let mut n = 0;
    for cur in QpState::ALL {
        for next in QpState::ALL {
            for ty in TYPES {
                let req = required(*cur, *next, ty);
                let mut masks = vec![req | QpAttr::State.mask()];
                if cur == next {
                    masks.push(req);
                }
                for b in 0..MASK_BITS {
                    let m = 1u32 << b;
                    if req & m != 0 {
                        masks.push((req | QpAttr::State.mask()) & !m);
                    } else if m != QpAttr::State.mask() {
                        masks.push(req | QpAttr::State.mask() | m);
                    }
                }
                for mask in masks {
                    let h = head(&mut rng, *cur as u8, ty as u8);
                    let mb = good_mailbox(&mut rng, *cur as u8, *next as u8, mask);
                    let what = format!("{cur:?} -> {next:?} {ty:?} mask {mask:#x}");
                    let s = check(&mut sim, &mut rng, &h, &mb, &what);
                    *seen.entry(s as u8).or_insert(0) += 1;
                    n += 1;
                }
            }
        }
    }
    eprintln!("{n} commands; by status: {seen:?}");
    // good values only: BadValue is the random test's
    assert_eq!(seen.get(&(ModifyStatus::BadValue as u8)), None);
    for s in [
        ModifyStatus::Ok,
        ModifyStatus::InvalidTransition,
        ModifyStatus::MissingAttribute,
        ModifyStatus::UnsupportedAttribute,
    ] {
        assert!(seen.get(&(s as u8)).copied().unwrap_or(0) >= 20, "{s:?} reached too rarely: {seen:?}");
    }
}

#[test]
fn random_masks_values_and_contexts() {
    let mut sim = Clocked::new(qp_modify::Dut::new());
    sim.reset(2);
    let mut rng = Rng::new(0x9b_0002);
    let mut seen = std::collections::BTreeMap::new();
    for i in 0..20_000 {
        // mostly known states and types, sometimes not
        let cur = if rng.below(20) == 0 { rng.below(16) as u8 } else { rng.below(7) as u8 };
        let ty = if rng.below(20) == 0 { rng.below(16) as u8 } else { TYPES[rng.below(3) as usize] as u8 };
        let next = if rng.below(20) == 0 { rng.below(16) as u8 } else { rng.below(7) as u8 };
        let base = match (QpState::from_raw(cur as u64), QpState::from_raw(next as u64), QpType::from_raw(ty as u64)) {
            (Some(c), Some(n), Some(t)) => required(c, n, t) | QpAttr::State.mask(),
            _ => QpAttr::State.mask(),
        };
        let mask = match rng.below(3) {
            0 => rng.next() as u32,
            1 => base | (rng.next() as u32 & rng.next() as u32 & 0x1F_FFFF),
            _ => base & !(1 << rng.below(21)),
        };
        let h = head(&mut rng, cur, ty);
        let mut mb = good_mailbox(&mut rng, cur, next, mask);
        // spoil a value now and then
        if rng.below(3) == 0 {
            let f = [
                modify_qp::CUR_QP_STATE.info(),
                modify_qp::PATH_MTU.info(),
                modify_qp::PATH_MIG_STATE.info(),
                modify_qp::ACCESS_FLAGS.info(),
                modify_qp::MAX_RD_ATOMIC.info(),
                modify_qp::MAX_DEST_RD_ATOMIC.info(),
                modify_qp::PKEY_INDEX.info(),
                modify_qp::PORT_NUM.info(),
            ][rng.below(8) as usize];
            f.write_raw(&mut mb, rng.next() & ((1 << f.width) - 1)).unwrap();
        }
        let s = check(&mut sim, &mut rng, &h, &mb, &format!("random command {i}"));
        *seen.entry(s as u8).or_insert(0) += 1;
    }
    eprintln!("by status: {seen:?}");
    for s in ModifyStatus::ALL {
        assert!(seen.get(&(*s as u8)).copied().unwrap_or(0) >= 50, "{s:?} reached too rarely: {seen:?}");
    }
}

/// A command whose inputs change before `req_ready` would be wrong; one
/// held the whole time is right even with `req_valid` high back to back:
/// one command per `LATENCY` cycles.
#[test]
fn back_to_back_commands_take_latency_cycles_each() {
    let mut sim = Clocked::new(qp_modify::Dut::new());
    sim.reset(2);
    let mut rng = Rng::new(0x9b_0003);
    let cmds: Vec<([u8; 8], [u8; 128])> = (0..50)
        .map(|_| {
            let m = required(QpState::Init, QpState::ReadyToReceive, QpType::Rc) | QpAttr::State.mask();
            (
                head(&mut rng, QpState::Init as u8, QpType::Rc as u8),
                good_mailbox(&mut rng, QpState::Init as u8, QpState::ReadyToReceive as u8, m),
            )
        })
        .collect();
    let mut k = 0;
    let mut got = 0;
    let start = sim.cycle();
    while got < cmds.len() {
        if k < cmds.len() {
            let (h, mb) = &cmds[k];
            sim.dut.set_cmd(&words::<32>(mb));
            sim.dut.set_ctx_head(u64::from_le_bytes(*h));
            sim.dut.set_req_valid(1);
        } else {
            sim.dut.set_req_valid(0);
        }
        sim.settle();
        let taken = sim.dut.req_ready() == 1 && k < cmds.len();
        sim.tick();
        if taken {
            k += 1;
        }
        if sim.dut.out_valid() == 1 {
            let (h, mb) = &cmds[got];
            let (status, _, w) = modify_check_raw(h, mb);
            assert_eq!(status, ModifyStatus::Ok);
            assert_eq!(sim.dut.status() as u8, status as u8);
            assert_eq!(bytes(&sim.dut.data()), w.data.to_vec(), "command {got}");
            got += 1;
        }
    }
    let cycles = sim.cycle() - start;
    assert_eq!(cycles as usize, cmds.len() * QpModify::LATENCY, "back to back");
}

#[test]
fn qp_admit_truth_table() {
    let mut sim = Clocked::new(qp_admit::Dut::new());
    sim.reset(2);
    let mut rng = Rng::new(0x9b_0004);
    let mut prev: Option<AdmitReason> = None;
    let mut counts = [0u32; 8];
    let mut exceptions = [0u32; 3];
    let mut n = 0u64;
    let flags = [(false, true), (true, true), (true, false)].into_iter();
    let flags = flags.flat_map(|q| [(false, false), (true, false), (false, true), (true, true)].map(move |f| (q, f)));
    for ((qpn_ok, pkey_ok), (on_chip, comp_error)) in flags {
        for state in 0..16u8 {
            for ty in 0..16u8 {
                for op in 0..=255u8 {
                    let valid = rng.below(8) != 0;
                    let d = &mut sim.dut;
                    d.set_in_valid(valid as u64);
                    d.set_qpn_ok(qpn_ok as u64);
                    d.set_pkey_ok(pkey_ok as u64);
                    d.set_state(state as u64);
                    d.set_qp_type(ty as u64);
                    d.set_opcode(op as u64);
                    d.set_on_chip(on_chip as u64);
                    d.set_comp_error(comp_error as u64);
                    sim.tick();
                    let d = &sim.dut;
                    assert_eq!(d.out_valid() == 1, valid, "out_valid follows in_valid");
                    let want = admit(qpn_ok, pkey_ok, state, ty, op, on_chip, comp_error);
                    assert_eq!(
                        (d.admit() == 1, d.reason() as u8),
                        (want == AdmitReason::Admit, want as u8),
                        "qpn_ok {qpn_ok} pkey_ok {pkey_ok} on_chip {on_chip} comp_error {comp_error} state {state} \
                         type {ty} opcode {op:#04x}"
                    );
                    counts[want as usize] += 1;
                    // the two exceptions to the wire's state rule, seen
                    let wire = admit(qpn_ok, pkey_ok, state, ty, op, false, false);
                    exceptions[0] += (on_chip && wire == AdmitReason::QpError && want == AdmitReason::Admit) as u32;
                    exceptions[1] += (comp_error && wire == AdmitReason::Admit && want == AdmitReason::QpError) as u32;
                    // an RQ flush (a request made on chip) of a QP that works is not admitted
                    exceptions[2] += (on_chip && !comp_error && wire == AdmitReason::Admit && want != wire) as u32;
                    prev = Some(want);
                    n += 1;
                }
            }
        }
    }
    assert_eq!(n, 12 * 16 * 16 * 256);
    assert!(
        exceptions.iter().all(|&e| e > 0),
        "a timer's record in ERR, a request in error, an RQ flush not in error: {exceptions:?}"
    );
    assert!(prev.is_some());
    for r in AdmitReason::ALL {
        assert!(counts[*r as usize] > 0, "{r:?} never produced");
    }
}
