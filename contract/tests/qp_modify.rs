//! The modify-QP facts against an independent transcription of the kernel's
//! rules: `qp_state_table` and `ib_modify_qp_is_ok` of
//! drivers/infiniband/core/verbs.c (torvalds/linux
//! f4d8f354d753ab21379060a5cf5553fa45a698b2), written here as the kernel
//! writes it (per-type masks of `IB_QP_*` numbers from verbs.h), not from the
//! contract's table. Also: the mailbox mirrors the context, the context write
//! touches only what it should, the admission rules, and docs/qp.md's
//! generated block.

use rnic_contract::codes::{Mtu, QpState, QpType};
use rnic_contract::layouts::qpc;
use rnic_contract::qp_modify::MAX_DEST_RD_ATOMIC as DEST_LIMIT;
use rnic_contract::qp_modify::*;

// enum ib_qp_attr_mask / ibv_qp_attr_mask, as numbers
const STATE: u32 = 1;
const CUR_STATE: u32 = 1 << 1;
const EN_SQD_ASYNC_NOTIFY: u32 = 1 << 2;
const ACCESS_FLAGS: u32 = 1 << 3;
const PKEY_INDEX: u32 = 1 << 4;
const PORT: u32 = 1 << 5;
const QKEY: u32 = 1 << 6;
const AV: u32 = 1 << 7;
const PATH_MTU: u32 = 1 << 8;
const TIMEOUT: u32 = 1 << 9;
const RETRY_CNT: u32 = 1 << 10;
const RNR_RETRY: u32 = 1 << 11;
const RQ_PSN: u32 = 1 << 12;
const MAX_QP_RD_ATOMIC: u32 = 1 << 13;
const ALT_PATH: u32 = 1 << 14;
const MIN_RNR_TIMER: u32 = 1 << 15;
const SQ_PSN: u32 = 1 << 16;
const MAX_DEST_RD_ATOMIC: u32 = 1 << 17;
const PATH_MIG_STATE: u32 = 1 << 18;
const CAP: u32 = 1 << 19;
const DEST_QPN: u32 = 1 << 20;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum S {
    Reset,
    Init,
    Rtr,
    Rts,
    Sqd,
    Sqe,
    Err,
}
const STATES: [S; 7] = [S::Reset, S::Init, S::Rtr, S::Rts, S::Sqd, S::Sqe, S::Err];

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum T {
    Rc,
    Uc,
    Ud,
}
const KTYPES: [T; 3] = [T::Rc, T::Uc, T::Ud];

/// (req, opt) of the kernel's table, `None` where `.valid` is 0.
fn kernel(cur: S, next: S, t: T) -> Option<(u32, u32)> {
    use S::*;
    let per = |rc: u32, uc: u32, ud: u32| match t {
        T::Rc => rc,
        T::Uc => uc,
        T::Ud => ud,
    };
    Some(match (cur, next) {
        (Reset, Reset) => (0, 0),
        (Reset, Init) => {
            (per(PKEY_INDEX | PORT | ACCESS_FLAGS, PKEY_INDEX | PORT | ACCESS_FLAGS, PKEY_INDEX | PORT | QKEY), 0)
        }
        (Init, Reset) | (Init, Err) => (0, 0),
        (Init, Init) => {
            (0, per(PKEY_INDEX | PORT | ACCESS_FLAGS, PKEY_INDEX | PORT | ACCESS_FLAGS, PKEY_INDEX | PORT | QKEY))
        }
        (Init, Rtr) => (
            per(
                AV | PATH_MTU | DEST_QPN | RQ_PSN | MAX_DEST_RD_ATOMIC | MIN_RNR_TIMER,
                AV | PATH_MTU | DEST_QPN | RQ_PSN,
                0,
            ),
            per(ALT_PATH | ACCESS_FLAGS | PKEY_INDEX, ALT_PATH | ACCESS_FLAGS | PKEY_INDEX, PKEY_INDEX | QKEY),
        ),
        (Rtr, Reset) | (Rtr, Err) => (0, 0),
        (Rtr, Rts) => (
            per(TIMEOUT | RETRY_CNT | RNR_RETRY | SQ_PSN | MAX_QP_RD_ATOMIC, SQ_PSN, SQ_PSN),
            per(
                CUR_STATE | ALT_PATH | ACCESS_FLAGS | MIN_RNR_TIMER | PATH_MIG_STATE,
                CUR_STATE | ALT_PATH | ACCESS_FLAGS | PATH_MIG_STATE,
                CUR_STATE | QKEY,
            ),
        ),
        (Rts, Reset) | (Rts, Err) => (0, 0),
        (Rts, Rts) => (
            0,
            per(
                CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE | MIN_RNR_TIMER,
                CUR_STATE | ACCESS_FLAGS | ALT_PATH | PATH_MIG_STATE,
                CUR_STATE | QKEY,
            ),
        ),
        (Rts, Sqd) => (0, EN_SQD_ASYNC_NOTIFY),
        (Sqd, Reset) | (Sqd, Err) => (0, 0),
        (Sqd, Rts) => (
            0,
            per(
                CUR_STATE | ALT_PATH | ACCESS_FLAGS | MIN_RNR_TIMER | PATH_MIG_STATE,
                CUR_STATE | ALT_PATH | ACCESS_FLAGS | PATH_MIG_STATE,
                CUR_STATE | QKEY,
            ),
        ),
        (Sqd, Sqd) => (
            0,
            per(
                PORT | AV
                    | TIMEOUT
                    | RETRY_CNT
                    | RNR_RETRY
                    | MAX_QP_RD_ATOMIC
                    | MAX_DEST_RD_ATOMIC
                    | ALT_PATH
                    | ACCESS_FLAGS
                    | PKEY_INDEX
                    | MIN_RNR_TIMER
                    | PATH_MIG_STATE,
                AV | ALT_PATH | ACCESS_FLAGS | PKEY_INDEX | PATH_MIG_STATE,
                PKEY_INDEX | QKEY,
            ),
        ),
        (Sqe, Reset) | (Sqe, Err) => (0, 0),
        (Sqe, Rts) => (0, per(0, CUR_STATE | ACCESS_FLAGS, CUR_STATE | QKEY)),
        (Err, Reset) | (Err, Err) => (0, 0),
        _ => return None,
    })
}

/// `ib_modify_qp_is_ok`, as the kernel writes it.
fn kernel_is_ok(cur: S, next: S, t: T, mask: u32) -> bool {
    if mask & CUR_STATE != 0 && ![S::Rtr, S::Rts, S::Sqd, S::Sqe].contains(&cur) {
        return false;
    }
    let Some((req, opt)) = kernel(cur, next, t) else { return false };
    if mask & req != req {
        return false;
    }
    mask & !(req | opt | STATE) == 0
}

fn qs(s: S) -> QpState {
    QpState::ALL[s as usize]
}

fn qt(t: T) -> QpType {
    match t {
        T::Rc => QpType::Rc,
        T::Uc => QpType::Uc,
        T::Ud => QpType::Ud,
    }
}

/// xorshift64
struct Rng(u64);

impl Rng {
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

/// A mailbox whose every attribute holds a value the device accepts, for a
/// QP in `cur` moving to `next`; the rest random.
fn good_mailbox(rng: &mut Rng, cur: S, next: S, mask: u32) -> [u8; 128] {
    let mut mb = [0u8; 128];
    for b in mb.iter_mut() {
        *b = rng.next() as u8;
    }
    modify_qp::QP_STATE.set(&mut mb, qs(next)).unwrap();
    modify_qp::CUR_QP_STATE.set(&mut mb, qs(cur)).unwrap();
    modify_qp::PATH_MTU.set(&mut mb, Mtu::ALL[rng.below(5) as usize]).unwrap();
    modify_qp::PATH_MIG_STATE.set(&mut mb, 0).unwrap();
    modify_qp::ACCESS_FLAGS.set(&mut mb, rng.below(16) as u8).unwrap();
    modify_qp::MAX_RD_ATOMIC.set(&mut mb, rng.below(17) as u8).unwrap();
    modify_qp::MAX_DEST_RD_ATOMIC.set(&mut mb, rng.below(17) as u8).unwrap();
    modify_qp::PKEY_INDEX.set(&mut mb, 0).unwrap();
    modify_qp::PORT_NUM.set(&mut mb, 1).unwrap();
    modify_qp::MASK.set(&mut mb, mask).unwrap();
    mb
}

/// The expected outcome from the kernel's table: the device refuses
/// ALT_PATH, reports the lowest missing bit before the lowest extra one.
fn expected(cur: S, next: S, t: T, mask: u32) -> Result<(), (ModifyStatus, u8)> {
    let Some((req, opt)) = kernel(cur, next, t) else {
        return Err((ModifyStatus::InvalidTransition, 0));
    };
    let missing = req & !mask;
    if missing != 0 {
        return Err((ModifyStatus::MissingAttribute, missing.trailing_zeros() as u8));
    }
    let mut extra = mask & !(req | opt | STATE);
    extra |= mask & ALT_PATH;
    if extra != 0 {
        return Err((ModifyStatus::UnsupportedAttribute, extra.trailing_zeros() as u8));
    }
    assert!(kernel_is_ok(cur, next, t, mask));
    Ok(())
}

#[test]
fn mask_bits_are_libibverbs() {
    let want = [
        STATE,
        CUR_STATE,
        EN_SQD_ASYNC_NOTIFY,
        ACCESS_FLAGS,
        PKEY_INDEX,
        PORT,
        QKEY,
        AV,
        PATH_MTU,
        TIMEOUT,
        RETRY_CNT,
        RNR_RETRY,
        RQ_PSN,
        MAX_QP_RD_ATOMIC,
        ALT_PATH,
        MIN_RNR_TIMER,
        SQ_PSN,
        MAX_DEST_RD_ATOMIC,
        PATH_MIG_STATE,
        CAP,
        DEST_QPN,
    ];
    assert_eq!(QpAttr::ALL.len(), want.len());
    for (a, w) in QpAttr::ALL.iter().zip(want) {
        assert_eq!(a.mask(), w, "{a:?}");
    }
}

#[test]
fn the_table_is_the_kernels() {
    for cur in STATES {
        for next in STATES {
            for t in KTYPES {
                let tr = transition(qs(cur), qs(next));
                match kernel(cur, next, t) {
                    None => {
                        assert!(!tr.valid, "{cur:?} -> {next:?}");
                        assert_eq!(allowed(qs(cur), qs(next), qt(t)), 0);
                    }
                    Some((req, opt)) => {
                        assert!(tr.valid, "{cur:?} -> {next:?}");
                        let i = type_index(qt(t));
                        assert_eq!((tr.req[i], tr.opt[i]), (req, opt), "{cur:?} -> {next:?} {t:?}");
                        assert_eq!(allowed(qs(cur), qs(next), qt(t)), (req | opt | STATE) & !ALT_PATH);
                    }
                }
            }
        }
    }
}

/// Every transition and type with the masks that matter: exactly the
/// required ones (with and without STATE where the state does not change),
/// each required one missing, each other attribute added.
#[test]
fn every_transition_with_every_mask_of_interest() {
    let mut rng = Rng(0x5eed_0001);
    let mut counts = [0u32; 6];
    for cur in STATES {
        for next in STATES {
            for t in KTYPES {
                let req = kernel(cur, next, t).map_or(0, |k| k.0);
                let mut masks = vec![req | STATE];
                if cur == next {
                    masks.push(req);
                }
                for b in 0..MASK_BITS {
                    let m = 1 << b;
                    if req & m != 0 {
                        masks.push((req | STATE) & !m);
                    } else if m != STATE {
                        masks.push(req | STATE | m);
                    }
                }
                for mask in masks {
                    let mb = good_mailbox(&mut rng, cur, next, mask);
                    let got = modify_check(qs(cur), qt(t), mask, &mb).map(|_| ());
                    // without STATE the QP stays where it is
                    let target = if mask & STATE != 0 { next } else { cur };
                    let want = expected(cur, target, t, mask);
                    assert_eq!(got, want, "{cur:?} -> {target:?} {t:?} mask {mask:#x}");
                    counts[got.err().map_or(0, |e| e.0 as usize)] += 1;
                }
            }
        }
    }
    // each outcome is reached
    for (i, n) in counts.iter().enumerate().take(4) {
        assert!(*n > 20, "status {i} reached {n} times");
    }
}

/// Random masks and states: accepted exactly when the kernel accepts (less
/// ALT_PATH), and then the status is the kernel-derived one.
#[test]
fn random_masks_agree_with_the_kernel() {
    let mut rng = Rng(0x5eed_0002);
    let mut oks = 0;
    for _ in 0..400_000 {
        let (cur, next, t) =
            (STATES[rng.below(7) as usize], STATES[rng.below(7) as usize], KTYPES[rng.below(3) as usize]);
        let req = kernel(cur, next, t).map_or(0, |k| k.0);
        // bias toward the interesting neighbourhood of the required set
        let mut mask = match rng.below(4) {
            0 => rng.next() as u32,
            1 => (rng.next() as u32) & 0x1F_FFFF,
            _ => req | STATE | (rng.next() as u32 & rng.next() as u32 & rng.next() as u32 & 0x1F_FFFF),
        };
        if rng.below(4) == 0 {
            mask &= !STATE;
        }
        let mb = good_mailbox(&mut rng, cur, next, mask);
        let target = if mask & STATE != 0 { next } else { cur };
        let got = modify_check(qs(cur), qt(t), mask, &mb);
        let kernel_ok = kernel_is_ok(cur, target, t, mask) && mask & ALT_PATH == 0;
        assert_eq!(got.is_ok(), kernel_ok, "{cur:?} -> {target:?} {t:?} mask {mask:#x}");
        assert_eq!(got.map(|_| ()), expected(cur, target, t, mask), "{cur:?} -> {target:?} {t:?} mask {mask:#x}");
        oks += kernel_ok as u32;
    }
    assert!(oks > 5_000, "{oks} accepted");
}

/// Each value check fires alone, reports its bit, and the lowest of several.
#[test]
fn bad_values_are_refused_with_their_bit() {
    let mut rng = Rng(0x5eed_0003);
    // SQD -> SQD on RC accepts most attributes
    let mask =
        STATE | PORT | ACCESS_FLAGS | PKEY_INDEX | MAX_QP_RD_ATOMIC | MAX_DEST_RD_ATOMIC | PATH_MIG_STATE | TIMEOUT;
    let ok = good_mailbox(&mut rng, S::Sqd, S::Sqd, mask);
    assert!(modify_check(QpState::SendQueueDrained, QpType::Rc, mask, &ok).is_ok());
    type Spoil = fn(&mut [u8]);
    let cases: [(u32, Spoil); 6] = [
        (PORT, |m| modify_qp::PORT_NUM.set(m, 2).unwrap()),
        (ACCESS_FLAGS, |m| modify_qp::ACCESS_FLAGS.set(m, 0x10).unwrap()),
        (PKEY_INDEX, |m| modify_qp::PKEY_INDEX.set(m, 1).unwrap()),
        (MAX_QP_RD_ATOMIC, |m| modify_qp::MAX_RD_ATOMIC.set(m, MAX_RD_ATOMIC + 1).unwrap()),
        (MAX_DEST_RD_ATOMIC, |m| modify_qp::MAX_DEST_RD_ATOMIC.set(m, DEST_LIMIT + 1).unwrap()),
        (PATH_MIG_STATE, |m| modify_qp::PATH_MIG_STATE.set(m, 1).unwrap()),
    ];
    let mut all = ok;
    for (bit, spoil) in cases {
        let mut mb = ok;
        spoil(&mut mb);
        spoil(&mut all);
        assert_eq!(
            modify_check(QpState::SendQueueDrained, QpType::Rc, mask, &mb),
            Err((ModifyStatus::BadValue, bit.trailing_zeros() as u8))
        );
        // absent from the mask, the value is not looked at
        assert!(modify_check(QpState::SendQueueDrained, QpType::Rc, mask & !bit, &mb).is_ok());
    }
    assert_eq!(
        modify_check(QpState::SendQueueDrained, QpType::Rc, mask, &all),
        Err((ModifyStatus::BadValue, ACCESS_FLAGS.trailing_zeros() as u8))
    );
    // an MTU code that is none, on INIT -> RTR
    let m = STATE | AV | PATH_MTU | DEST_QPN | RQ_PSN;
    let mut mb = good_mailbox(&mut rng, S::Init, S::Rtr, m);
    for bad in [0u64, 6, 7] {
        modify_qp::PATH_MTU.info().write_raw(&mut mb, bad).unwrap();
        assert_eq!(modify_check(QpState::Init, QpType::Uc, m, &mb), Err((ModifyStatus::BadValue, 8)));
    }
    // CUR_STATE that is not the QP's state
    let m = STATE | SQ_PSN | CUR_STATE;
    let mut mb = good_mailbox(&mut rng, S::Rtr, S::Rts, m);
    assert!(modify_check(QpState::ReadyToReceive, QpType::Ud, m, &mb).is_ok());
    modify_qp::CUR_QP_STATE.set(&mut mb, QpState::Init).unwrap();
    assert_eq!(modify_check(QpState::ReadyToReceive, QpType::Ud, m, &mb), Err((ModifyStatus::BadValue, 1)));
    // an unknown target state
    modify_qp::QP_STATE.info().write_raw(&mut mb, 7).unwrap();
    assert_eq!(modify_check(QpState::ReadyToReceive, QpType::Ud, m, &mb), Err((ModifyStatus::BadValue, 0)));
}

#[test]
fn the_context_write_touches_what_it_should() {
    let mut rng = Rng(0x5eed_0004);
    // RTR -> RTS on RC with every optional attribute the device takes
    let mask = STATE | TIMEOUT | RETRY_CNT | RNR_RETRY | SQ_PSN | MAX_QP_RD_ATOMIC | ACCESS_FLAGS | MIN_RNR_TIMER;
    let mb = good_mailbox(&mut rng, S::Rtr, S::Rts, mask);
    let mut ctx = [0u8; 128];
    for b in ctx.iter_mut() {
        *b = rng.next() as u8;
    }
    qpc::STATE.set(&mut ctx, QpState::ReadyToReceive).unwrap();
    qpc::QP_TYPE.set(&mut ctx, QpType::Rc).unwrap();
    let (status, bit, w) = modify_check_raw(&ctx[..CTX_HEAD_BYTES], &mb);
    assert_eq!((status, bit), (ModifyStatus::Ok, 0));
    let mut after = ctx;
    for (i, b) in after.iter_mut().enumerate() {
        if w.byte_mask >> i & 1 == 1 {
            *b = w.data[i];
        } else {
            assert_eq!(w.data[i], 0);
        }
    }
    assert_eq!(qpc::STATE.get(&after), Ok(QpState::ReadyToSend));
    assert_eq!(qpc::QP_TYPE.get(&after), Ok(QpType::Rc));
    for (f, src) in [
        (qpc::TIMEOUT.info(), modify_qp::TIMEOUT.info()),
        (qpc::RETRY_CNT.info(), modify_qp::RETRY_CNT.info()),
        (qpc::RNR_RETRY.info(), modify_qp::RNR_RETRY.info()),
        (qpc::SQ_PSN.info(), modify_qp::SQ_PSN.info()),
        (qpc::MAX_RD_ATOMIC.info(), modify_qp::MAX_RD_ATOMIC.info()),
        (qpc::MIN_RNR_TIMER.info(), modify_qp::MIN_RNR_TIMER.info()),
    ] {
        assert_eq!(f.read_raw(&after), src.read_raw(&mb), "{}", f.name);
    }
    let flags = modify_qp::ACCESS_FLAGS.get(&mb).unwrap();
    assert_eq!(qpc::REMOTE_WRITE.get(&after), Ok(flags & 2 != 0));
    assert_eq!(qpc::REMOTE_READ.get(&after), Ok(flags & 4 != 0));
    assert_eq!(qpc::REMOTE_ATOMIC.get(&after), Ok(flags & 8 != 0));
    // nothing else moved: every other field reads as before
    for f in qpc::FIELDS {
        if ["STATE", "TIMEOUT", "RETRY_CNT", "RNR_RETRY", "SQ_PSN", "MAX_RD_ATOMIC", "MIN_RNR_TIMER"].contains(&f.name)
            || f.name.starts_with("REMOTE_")
            || f.kind == rnic_contract::layout::FieldKind::Bytes
        {
            continue;
        }
        assert_eq!(f.read_raw(&after), f.read_raw(&ctx), "{}", f.name);
    }
    assert_eq!(qpc::PATH.bytes(&after), qpc::PATH.bytes(&ctx));

    // to RESET: the ring indices are cleared; a P_Key index stores the P_Key
    let mut ctx2 = ctx;
    qpc::STATE.set(&mut ctx2, QpState::Init).unwrap();
    let mb = good_mailbox(&mut rng, S::Init, S::Reset, STATE);
    let (s, _, w) = modify_check_raw(&ctx2[..CTX_HEAD_BYTES], &mb);
    assert_eq!(s, ModifyStatus::Ok);
    for f in RESET_CLEARS {
        for b in f.byte..f.byte + f.width as usize / 8 {
            assert!(w.byte_mask >> b & 1 == 1 && w.data[b] == 0);
        }
    }
    let mb = good_mailbox(&mut rng, S::Init, S::Init, PKEY_INDEX);
    let (s, _, w) = modify_check_raw(&ctx2[..CTX_HEAD_BYTES], &mb);
    assert_eq!(s, ModifyStatus::Ok);
    assert_eq!(qpc::PKEY.get(&w.data), Ok(PKEY_TABLE[0]));
    // an unknown state or type in the context
    let mut bad = ctx;
    qpc::STATE.info().write_raw(&mut bad, 9).unwrap();
    assert_eq!(modify_check_raw(&bad[..CTX_HEAD_BYTES], &mb).0, ModifyStatus::BadContext);
    let mut bad = ctx;
    qpc::QP_TYPE.info().write_raw(&mut bad, 8).unwrap();
    assert_eq!(modify_check_raw(&bad[..CTX_HEAD_BYTES], &mb).0, ModifyStatus::BadContext);
}

#[test]
fn the_rom_holds_the_table() {
    for i in 0..ROM_ENTRIES {
        let e = rom_entry(i);
        let (cur, next, ti) = (i >> 5, (i >> 2) & 7, i & 3);
        if cur >= 7 || next >= 7 || ti >= 3 {
            assert_eq!(e, 0);
            continue;
        }
        assert_eq!(rom_index(cur as u8, next as u8, ti), i);
        let (c, n, t) = (STATES[cur], STATES[next], KTYPES[ti]);
        match kernel(c, n, t) {
            None => assert_eq!(e, 0),
            Some((req, opt)) => assert_eq!(e, u64::from((req | opt | STATE) & !ALT_PATH) << 32 | u64::from(req)),
        }
    }
}

#[test]
fn admission_rules() {
    // RC SEND ONLY (0x04) and ACK (0x11), UC SEND ONLY (0x24), UD SEND ONLY (0x64)
    let rc_send = 0x04;
    let rc_ack = 0x11;
    assert!(is_response(rc_ack) && is_response(0x0D) && is_response(0x12));
    assert!(!is_response(rc_send) && !is_response(0x0C) && !is_response(0x13) && !is_response(0x31));
    use AdmitReason::*;
    let want_req = [QpNotReady, QpNotReady, Admit, Admit, Admit, Admit, QpError];
    let want_resp = [QpNotReady, QpNotReady, ResponseNotExpected, Admit, Admit, ResponseNotExpected, QpError];
    for (i, s) in QpState::ALL.iter().enumerate() {
        assert_eq!(admit(true, true, *s as u8, QpType::Rc as u8, rc_send, false, false), want_req[i], "{s:?}");
        assert_eq!(admit(true, true, *s as u8, QpType::Rc as u8, rc_ack, false, false), want_resp[i], "{s:?}");
        assert_eq!(admit(true, true, *s as u8, QpType::Ud as u8, 0x64, false, false), want_req[i], "{s:?}");
        assert_eq!(admit(true, true, *s as u8, QpType::Uc as u8, 0x24, false, false), want_req[i], "{s:?}");
        assert_eq!(admit(true, true, *s as u8, QpType::Uc as u8, rc_send, false, false), WrongQpType);
        assert_eq!(admit(true, true, *s as u8, QpType::Rc as u8, 0x64, false, false), WrongQpType);
        assert_eq!(admit(false, true, *s as u8, QpType::Rc as u8, rc_send, false, false), BadQpn);
        // the P_Key last: only a packet admitted otherwise is a P_Key violation
        let want = if want_req[i] == Admit { BadPkey } else { want_req[i] };
        assert_eq!(admit(true, false, *s as u8, QpType::Rc as u8, rc_send, false, false), want, "{s:?}");
        assert_eq!(admit(false, false, *s as u8, QpType::Rc as u8, rc_send, false, false), BadQpn);
        assert_eq!(admit(true, false, *s as u8, QpType::Uc as u8, rc_send, false, false), WrongQpType);
    }
    // a record made on chip (a timer's, a refused WQE's) passes in ERR, and
    // in RTR (a failed responder's poke); a request for a QP whose completer
    // is in error does not
    for (i, s) in QpState::ALL.iter().enumerate() {
        let on_chip = admit(true, true, *s as u8, QpType::Rc as u8, rc_ack, true, false);
        let poked = matches!(*s, QpState::Error | QpState::ReadyToReceive);
        assert_eq!(on_chip, if poked { Admit } else { want_resp[i] }, "{s:?}");
        let req = admit(true, true, *s as u8, QpType::Rc as u8, rc_send, false, true);
        assert_eq!(req, if want_req[i] == Admit { QpError } else { want_req[i] }, "{s:?}");
        let resp = admit(true, true, *s as u8, QpType::Rc as u8, rc_ack, false, true);
        assert_eq!(resp, want_resp[i], "{s:?}: responses still reach the completer in error");
        // an RQ flush (a request made on chip): only for a QP in error
        let flush = admit(true, true, *s as u8, QpType::Rc as u8, rc_send, true, false);
        let want = match (*s, want_req[i]) {
            (QpState::Error, _) => Admit,
            (_, Admit) => QpNotReady,
            (_, r) => r,
        };
        assert_eq!(flush, want, "{s:?}: an RQ flush of a QP not in error");
        let flush = admit(true, true, *s as u8, QpType::Rc as u8, rc_send, true, true);
        assert_eq!(flush, if want_req[i] == Admit || *s == QpState::Error { Admit } else { want_req[i] }, "{s:?}");
        // (the P_Key is not checked for a record made on chip: the caller's `pkey_ok`)
    }
    assert_eq!(admit(true, true, 7, QpType::Rc as u8, rc_send, false, false), BadContext);
    assert_eq!(admit(true, true, 3, 0, rc_send, false, false), BadContext);
    // P_Keys: the partition (low 15 bits) equal and not 0, one side a full member
    assert!(pkey_match(0xFFFF, 0xFFFF) && pkey_match(0x7FFF, 0xFFFF) && pkey_match(0xFFFF, 0x7FFF));
    assert!(!pkey_match(0x7FFF, 0x7FFF), "two limited members");
    assert!(!pkey_match(0xFFFE, 0xFFFF) && !pkey_match(0x8000, 0x8000) && !pkey_match(0, 0));
    assert!(pkey_match(0x8001, 0x0001) && !pkey_match(0x8001, 0x8002));
}

#[test]
fn docs_qp_md_tables_are_up_to_date() {
    const BEGIN: &str = "<!-- BEGIN generated by contract::doc::write_qp_tables: UPDATE_DOCS=1 cargo test -p rnic-contract --test qp_modify -->\n";
    const END: &str = "<!-- END generated -->\n";
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/qp.md");
    let text = std::fs::read_to_string(path).expect("docs/qp.md");
    let (head, rest) = text.split_once(BEGIN).expect("docs/qp.md lacks the BEGIN marker");
    let (block, tail) = rest.split_once(END).expect("docs/qp.md lacks the END marker");
    let mut fresh = String::new();
    rnic_contract::doc::write_qp_tables(&mut fresh).unwrap();
    if block != fresh {
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::write(path, format!("{head}{BEGIN}{fresh}{END}{tail}")).unwrap();
            return;
        }
        panic!(
            "docs/qp.md's generated tables are stale: run UPDATE_DOCS=1 cargo test -p rnic-contract --test qp_modify"
        );
    }
    assert!(fresh.contains("| RTR | RTS |") && fresh.contains("### `ModifyStatus`"));
}
