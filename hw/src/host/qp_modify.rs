//! `QpModify`: checks a modify-QP command against the QP's context and says
//! what to write into it, exactly as `rnic_contract::qp_modify::modify_check_raw`.
//!
//! In: the command's `modify_qp` mailbox (128 bytes, mask included) and the
//! first `CTX_HEAD_BYTES` bytes of the QP's context (state, type and the
//! bytes a write may touch in part). Out: the status, the lowest offending
//! attribute bit, the QPN, and on success a masked write of the 128-byte
//! context, `byte_mask` (bit i: byte i) and `data`, the form
//! `ctx_cache.write(index, byte_mask, data)` takes; both 0 on a refusal.
//!
//! Every table comes from the contract at construction: the transition ROM
//! (`rom_entry`: 256 rows of required and allowed attributes by current
//! state, next state and type), the valid states, types and MTUs, the value
//! limits, and the bit masks of the context fields each stored attribute
//! sets (the mailbox holds each at the position of its `qpc` field, so a
//! store is `mailbox & mask`).
//!
//! Four cycles per command (`LATENCY`), registered throughout. The request
//! holds its inputs until `req_ready` (the handshake ends in the fourth
//! cycle, when the write is formed from the still-held mailbox);
//! `out_valid` pulses the cycle after, with no backpressure (the command
//! path runs one command at a time). Cycle 1 decodes the mask, the states
//! and the value checks; cycle 2 reads the ROM and forms the missing and
//! unsupported attributes; cycle 3 picks the status and isolates the lowest
//! offending bit (two's complement); cycle 4 numbers it (an OR tree) and
//! forms the write.

use crate::prim::Reg;
use hdl_emit::TypeTag;
use rnic_contract::codes::{Mtu, QpState, QpType};
use rnic_contract::layout::LayoutFieldInfo;
use rnic_contract::layouts::qpc;
use rnic_contract::qp_modify::{
    self as qpm, modify_qp, ModifyStatus, QpAttr, CTX_HEAD_BYTES, MASK_BITS, PKEY_TABLE, RESET_CLEARS, ROM_ENTRIES,
    STORES,
};
use rust_hdl::prelude::*;

/// Bits of the mailbox and of the context.
pub const QPC_BITS: usize = modify_qp::BITS;
/// Bits of the context head the block reads.
pub const QPC_HEAD_BITS: usize = CTX_HEAD_BYTES * 8;
/// Bits of a context's byte mask.
pub const QPC_BYTES: usize = qpc::SIZE;
/// Bits of the reported attribute number.
pub const ATTR_BITS: usize = MASK_BITS.trailing_zeros() as usize;
/// Bits of a QPN.
pub const QPN_BITS: usize = modify_qp::QPN.width as usize;
const MASK_W: usize = MASK_BITS as usize;
const ROM_BITS: usize = ROM_ENTRIES * 64;
const STORES_N: usize = STORES.len();

// What the logic below assumes of the contract's facts.
const _: () = {
    // (the loops below step through packed constants by these literals)
    assert!(modify_qp::SIZE == qpc::SIZE && QPC_BITS == 1024 && MASK_W == 32 && ROM_ENTRIES == 256);
    assert!(modify_qp::QP_STATE.width == 4 && modify_qp::CUR_QP_STATE.width == 4);
    assert!(qpc::STATE.width == 4 && qpc::QP_TYPE.width == 4);
    assert!(modify_qp::PATH_MTU.width == 3 && modify_qp::PATH_MIG_STATE.width == 2);
    assert!(modify_qp::ACCESS_FLAGS.width == 8 && modify_qp::PORT_NUM.width == 8);
    assert!(modify_qp::MAX_RD_ATOMIC.width == 8 && modify_qp::MAX_DEST_RD_ATOMIC.width == 8);
    assert!(modify_qp::PKEY_INDEX.width == 16 && modify_qp::MASK.width == 32 && QPN_BITS == 24);
    // one P_Key: a good index is 0 and stores the one entry
    assert!(PKEY_TABLE.len() == 1);
};

fn k<const N: usize>(v: u64) -> Constant<Bits<N>> {
    Constant::new(v.into())
}

fn pos(f: LayoutFieldInfo) -> Constant<Bits<10>> {
    k(f.pos() as u64)
}

fn one(a: QpAttr) -> Constant<Bits<32>> {
    k(a.mask() as u64)
}

fn bits_of<const N: usize>(set: impl Fn(usize) -> bool) -> Constant<Bits<N>> {
    let mut b = Bits::<N>::default();
    for i in 0..N {
        if set(i) {
            b = b.replace_bit(i, true);
        }
    }
    Constant::new(b)
}

fn in_field(f: &LayoutFieldInfo, bit: usize) -> bool {
    bit >= f.pos() && bit < f.pos() + f.width as usize
}

#[derive(LogicBlock)]
pub struct QpModify {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// A command: `cmd` (the mailbox) and `ctx_head` held until `req_ready`.
    pub req_valid: Signal<In, Bit>,
    pub req_ready: Signal<Out, Bit>,
    pub cmd: Signal<In, Bits<QPC_BITS>>,
    pub ctx_head: Signal<In, Bits<QPC_HEAD_BITS>>,
    /// The result, one cycle (`ModifyStatus` code, attribute bit, QPN, write).
    pub out_valid: Signal<Out, Bit>,
    pub status: Signal<Out, Bits<8>>,
    pub attr: Signal<Out, Bits<ATTR_BITS>>,
    pub qpn: Signal<Out, Bits<QPN_BITS>>,
    pub byte_mask: Signal<Out, Bits<QPC_BYTES>>,
    pub data: Signal<Out, Bits<QPC_BITS>>,

    // ---- constants from the contract
    p_qp_state: Constant<Bits<10>>,
    p_cur_state: Constant<Bits<10>>,
    p_mtu: Constant<Bits<10>>,
    p_mig: Constant<Bits<10>>,
    p_access: Constant<Bits<10>>,
    p_max_rd: Constant<Bits<10>>,
    p_max_dest: Constant<Bits<10>>,
    p_pkey_index: Constant<Bits<10>>,
    p_port: Constant<Bits<10>>,
    p_mask: Constant<Bits<10>>,
    p_qpn: Constant<Bits<10>>,
    p_ctx_state: Constant<Bits<10>>,
    p_ctx_type: Constant<Bits<10>>,
    state_one: Constant<Bits<{ QPC_BITS * 4 }>>,
    a_state: Constant<Bits<32>>,
    a_cur: Constant<Bits<32>>,
    a_mtu: Constant<Bits<32>>,
    a_mig: Constant<Bits<32>>,
    a_access: Constant<Bits<32>>,
    a_max_rd: Constant<Bits<32>>,
    a_max_dest: Constant<Bits<32>>,
    a_pkey: Constant<Bits<32>>,
    a_port: Constant<Bits<32>>,
    state_ok: Constant<Bits<16>>,
    type_ok: Constant<Bits<16>>,
    type_idx: Constant<Bits<32>>,
    mtu_ok: Constant<Bits<8>>,
    access_bad: Constant<Bits<8>>,
    max_rd: Constant<Bits<8>>,
    max_dest: Constant<Bits<8>>,
    port_num: Constant<Bits<8>>,
    mig_ok: Constant<Bits<2>>,
    pkey_ok: Constant<Bits<16>>,
    // The transition ROM by column (the 64 bits of a row are 64 columns of
    // ROM_ENTRIES bits): a row is read as 64 one-bit lookups of 256 bits each.
    // One 64-bit part-select at `addr * 64` of the 16384-bit ROM made yosys
    // build a 16384-bit shifter first (five minutes of synthesis, docs/ci.md).
    rom_cols: Constant<Bits<ROM_BITS>>,
    rom_col: Signal<Local, Bits<ROM_ENTRIES>>,
    store_sel: Constant<Bits<{ 32 * STORES_N }>>,
    store_bits: Constant<Bits<{ QPC_BITS * STORES_N }>>,
    state_bits: Constant<Bits<QPC_BITS>>,
    pkey_bits: Constant<Bits<QPC_BITS>>,
    pkey_val: Constant<Bits<QPC_BITS>>,
    reset_bits: Constant<Bits<QPC_BITS>>,
    reset_code: Constant<Bits<4>>,
    idx_bits: Constant<Bits<{ 32 * ATTR_BITS }>>,
    byte_top: Constant<Bits<QPC_HEAD_BITS>>,
    st_ok: Constant<Bits<8>>,
    st_invalid: Constant<Bits<8>>,
    st_missing: Constant<Bits<8>>,
    st_unsupported: Constant<Bits<8>>,
    st_bad_value: Constant<Bits<8>>,
    st_bad_context: Constant<Bits<8>>,

    // ---- control: 0 idle, 1 and 2 the command's second and third cycles
    phase: Reg<Bits<2>>,
    // ---- cycle 1 -> 2
    s1_mask: Reg<Bits<32>>,
    s1_next: Reg<Bits<4>>,
    s1_addr: Reg<Bits<8>>,
    s1_bad_ctx: Reg<Bit>,
    s1_bad_next: Reg<Bit>,
    s1_bad: Reg<Bits<32>>,
    // ---- cycle 2 -> 3
    s2_zero: Reg<Bit>,
    s2_zero_code: Reg<Bits<8>>,
    s2_missing: Reg<Bits<32>>,
    s2_unsup: Reg<Bits<32>>,
    s2_bad: Reg<Bits<32>>,
    s2_any_missing: Reg<Bit>,
    s2_any_unsup: Reg<Bit>,
    s2_any_bad: Reg<Bit>,
    // ---- cycle 3 -> 4
    s3_low: Reg<Bits<32>>,
    s3_ok: Reg<Bit>,
    s3_status: Reg<Bits<8>>,
    // ---- outputs
    r_valid: Reg<Bit>,
    r_status: Reg<Bits<8>>,
    r_attr: Reg<Bits<ATTR_BITS>>,
    r_qpn: Reg<Bits<QPN_BITS>>,
    r_byte_mask: Reg<Bits<QPC_BYTES>>,
    r_data: Reg<Bits<QPC_BITS>>,

    // ---- cycle 1 locals
    mask: Signal<Local, Bits<32>>,
    cur: Signal<Local, Bits<4>>,
    ty: Signal<Local, Bits<4>>,
    want: Signal<Local, Bits<4>>,
    next: Signal<Local, Bits<4>>,
    tidx: Signal<Local, Bits<2>>,
    f_cur: Signal<Local, Bits<4>>,
    f_mtu: Signal<Local, Bits<3>>,
    f_mig: Signal<Local, Bits<2>>,
    f_access: Signal<Local, Bits<8>>,
    f_max_rd: Signal<Local, Bits<8>>,
    f_max_dest: Signal<Local, Bits<8>>,
    f_pkey: Signal<Local, Bits<16>>,
    f_port: Signal<Local, Bits<8>>,
    bad: Signal<Local, Bits<32>>,
    // ---- cycle 2 locals
    entry: Signal<Local, Bits<64>>,
    req: Signal<Local, Bits<32>>,
    allowed: Signal<Local, Bits<32>>,
    missing: Signal<Local, Bits<32>>,
    unsup: Signal<Local, Bits<32>>,
    // ---- cycle 3 locals
    v: Signal<Local, Bits<32>>,
    idx: Signal<Local, Bits<ATTR_BITS>>,
    wbits: Signal<Local, Bits<QPC_BITS>>,
    wdata: Signal<Local, Bits<QPC_BITS>>,
    wfinal: Signal<Local, Bits<QPC_BITS>>,
    clear: Signal<Local, Bits<QPC_BITS>>,
    head_bytes: Signal<Local, Bits<QPC_HEAD_BITS>>,
    bm: Signal<Local, Bits<QPC_BYTES>>,
    kind: TypeTag<Self>,
}

impl QpModify {
    /// Cycles from `req_valid` (first seen) to `out_valid`; also the cycles
    /// per command.
    pub const LATENCY: usize = 4;
}

impl Default for QpModify {
    fn default() -> Self {
        use modify_qp as mb;
        // column-major: bit `c * ROM_ENTRIES + row` is bit c of row `row`
        let rom_cols = bits_of::<ROM_BITS>(|i| qpm::rom_entry(i % ROM_ENTRIES) >> (i / ROM_ENTRIES) & 1 == 1);
        let store_sel = bits_of::<{ 32 * STORES_N }>(|i| STORES[i / 32].attr.mask() >> (i % 32) & 1 == 1);
        let store_bits = bits_of::<{ QPC_BITS * STORES_N }>(|i| in_field(&STORES[i / QPC_BITS].field, i % QPC_BITS));
        let pkey = qpc::PKEY.info();
        Self {
            clock: Default::default(),
            reset: Default::default(),
            req_valid: Default::default(),
            req_ready: Default::default(),
            cmd: Default::default(),
            ctx_head: Default::default(),
            out_valid: Default::default(),
            status: Default::default(),
            attr: Default::default(),
            qpn: Default::default(),
            byte_mask: Default::default(),
            data: Default::default(),
            p_qp_state: pos(mb::QP_STATE.info()),
            p_cur_state: pos(mb::CUR_QP_STATE.info()),
            p_mtu: pos(mb::PATH_MTU.info()),
            p_mig: pos(mb::PATH_MIG_STATE.info()),
            p_access: pos(mb::ACCESS_FLAGS.info()),
            p_max_rd: pos(mb::MAX_RD_ATOMIC.info()),
            p_max_dest: pos(mb::MAX_DEST_RD_ATOMIC.info()),
            p_pkey_index: pos(mb::PKEY_INDEX.info()),
            p_port: pos(mb::PORT_NUM.info()),
            p_mask: pos(mb::MASK.info()),
            p_qpn: pos(mb::QPN.info()),
            p_ctx_state: pos(qpc::STATE.info()),
            p_ctx_type: pos(qpc::QP_TYPE.info()),
            state_one: bits_of(|i| i % QPC_BITS == qpc::STATE.pos() + i / QPC_BITS),
            a_state: one(QpAttr::State),
            a_cur: one(QpAttr::CurState),
            a_mtu: one(QpAttr::PathMtu),
            a_mig: one(QpAttr::PathMigState),
            a_access: one(QpAttr::AccessFlags),
            a_max_rd: one(QpAttr::MaxQpRdAtomic),
            a_max_dest: one(QpAttr::MaxDestRdAtomic),
            a_pkey: one(QpAttr::PkeyIndex),
            a_port: one(QpAttr::Port),
            state_ok: bits_of(|i| QpState::from_raw(i as u64).is_some()),
            type_ok: bits_of(|i| QpType::from_raw(i as u64).is_some()),
            type_idx: bits_of(|i| {
                QpType::from_raw((i / 2) as u64).is_some_and(|t| qpm::type_index(t) >> (i % 2) & 1 == 1)
            }),
            mtu_ok: bits_of(|i| Mtu::from_raw(i as u64).is_some()),
            access_bad: k(!(qpm::ACCESS_LOCAL_WRITE as u64 | qpm::access_stored()) & 0xFF),
            max_rd: k(qpm::MAX_RD_ATOMIC as u64),
            max_dest: k(qpm::MAX_DEST_RD_ATOMIC as u64),
            port_num: k(qpm::PORT_NUM as u64),
            mig_ok: k(qpm::MIG_MIGRATED as u64),
            pkey_ok: k(PKEY_TABLE.len() as u64),
            rom_cols,
            rom_col: Default::default(),
            store_sel,
            store_bits,
            state_bits: bits_of(|i| in_field(&qpc::STATE.info(), i)),
            pkey_bits: bits_of(|i| in_field(&pkey, i)),
            pkey_val: bits_of(|i| in_field(&pkey, i) && PKEY_TABLE[0] >> (i - pkey.pos()) & 1 == 1),
            reset_bits: bits_of(|i| RESET_CLEARS.iter().any(|f| in_field(f, i))),
            reset_code: k(QpState::Reset as u64),
            idx_bits: bits_of(|i| (i % 32) >> (i / 32) & 1 == 1),
            byte_top: k(0xFF << (QPC_HEAD_BITS - 8)),
            st_ok: k(ModifyStatus::Ok as u64),
            st_invalid: k(ModifyStatus::InvalidTransition as u64),
            st_missing: k(ModifyStatus::MissingAttribute as u64),
            st_unsupported: k(ModifyStatus::UnsupportedAttribute as u64),
            st_bad_value: k(ModifyStatus::BadValue as u64),
            st_bad_context: k(ModifyStatus::BadContext as u64),
            phase: Default::default(),
            s1_mask: Default::default(),
            s1_next: Default::default(),
            s1_addr: Default::default(),
            s1_bad_ctx: Default::default(),
            s1_bad_next: Default::default(),
            s1_bad: Default::default(),
            s2_zero: Default::default(),
            s2_zero_code: Default::default(),
            s2_missing: Default::default(),
            s2_unsup: Default::default(),
            s2_bad: Default::default(),
            s2_any_missing: Default::default(),
            s2_any_unsup: Default::default(),
            s2_any_bad: Default::default(),
            s3_low: Default::default(),
            s3_ok: Default::default(),
            s3_status: Default::default(),
            r_valid: Default::default(),
            r_status: Default::default(),
            r_attr: Default::default(),
            r_qpn: Default::default(),
            r_byte_mask: Default::default(),
            r_data: Default::default(),
            mask: Default::default(),
            cur: Default::default(),
            ty: Default::default(),
            want: Default::default(),
            next: Default::default(),
            tidx: Default::default(),
            f_cur: Default::default(),
            f_mtu: Default::default(),
            f_mig: Default::default(),
            f_access: Default::default(),
            f_max_rd: Default::default(),
            f_max_dest: Default::default(),
            f_pkey: Default::default(),
            f_port: Default::default(),
            bad: Default::default(),
            entry: Default::default(),
            req: Default::default(),
            allowed: Default::default(),
            missing: Default::default(),
            unsup: Default::default(),
            v: Default::default(),
            idx: Default::default(),
            wbits: Default::default(),
            wdata: Default::default(),
            wfinal: Default::default(),
            clear: Default::default(),
            head_bytes: Default::default(),
            bm: Default::default(),
            kind: Default::default(),
        }
    }
}

impl Logic for QpModify {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            phase,
            s1_mask,
            s1_next,
            s1_addr,
            s1_bad_ctx,
            s1_bad_next,
            s1_bad,
            s2_zero,
            s2_zero_code,
            s2_missing,
            s2_unsup,
            s2_bad,
            s2_any_missing,
            s2_any_unsup,
            s2_any_bad,
            s3_low,
            s3_ok,
            s3_status,
            r_valid,
            r_status,
            r_attr,
            r_qpn,
            r_byte_mask,
            r_data
        );
        self.req_ready.next = self.phase.q.val() == 3;
        self.out_valid.next = self.r_valid.q.val();
        self.status.next = self.r_status.q.val();
        self.attr.next = self.r_attr.q.val();
        self.qpn.next = self.r_qpn.q.val();
        self.byte_mask.next = self.r_byte_mask.q.val();
        self.data.next = self.r_data.q.val();
        self.r_valid.d.next = false;

        // ---- cycle 1: decode the command against the context
        self.mask.next = self.cmd.val().get_bits::<32>(self.p_mask.val().index());
        self.cur.next = self.ctx_head.val().get_bits::<4>(self.p_ctx_state.val().index());
        self.ty.next = self.ctx_head.val().get_bits::<4>(self.p_ctx_type.val().index());
        self.want.next = self.cmd.val().get_bits::<4>(self.p_qp_state.val().index());
        self.f_cur.next = self.cmd.val().get_bits::<4>(self.p_cur_state.val().index());
        self.f_mtu.next = self.cmd.val().get_bits::<3>(self.p_mtu.val().index());
        self.f_mig.next = self.cmd.val().get_bits::<2>(self.p_mig.val().index());
        self.f_access.next = self.cmd.val().get_bits::<8>(self.p_access.val().index());
        self.f_max_rd.next = self.cmd.val().get_bits::<8>(self.p_max_rd.val().index());
        self.f_max_dest.next = self.cmd.val().get_bits::<8>(self.p_max_dest.val().index());
        self.f_pkey.next = self.cmd.val().get_bits::<16>(self.p_pkey_index.val().index());
        self.f_port.next = self.cmd.val().get_bits::<8>(self.p_port.val().index());
        self.next.next = self.cur.val();
        if (self.mask.val() & self.a_state.val()).any() {
            self.next.next = self.want.val();
        }
        self.tidx.next = self.type_idx.val().get_bits::<2>(self.ty.val().index() << 1);
        // values the device refuses, for the attributes the mask names
        self.bad.next = 0.into();
        if self.f_cur.val() != self.cur.val() {
            self.bad.next = self.bad.val() | self.a_cur.val();
        }
        if !self.mtu_ok.val().get_bit(self.f_mtu.val().index()) {
            self.bad.next = self.bad.val() | self.a_mtu.val();
        }
        if self.f_mig.val() != self.mig_ok.val() {
            self.bad.next = self.bad.val() | self.a_mig.val();
        }
        if (self.f_access.val() & self.access_bad.val()).any() {
            self.bad.next = self.bad.val() | self.a_access.val();
        }
        if self.f_max_rd.val() > self.max_rd.val() {
            self.bad.next = self.bad.val() | self.a_max_rd.val();
        }
        if self.f_max_dest.val() > self.max_dest.val() {
            self.bad.next = self.bad.val() | self.a_max_dest.val();
        }
        if self.f_pkey.val() >= self.pkey_ok.val() {
            self.bad.next = self.bad.val() | self.a_pkey.val();
        }
        if self.f_port.val() != self.port_num.val() {
            self.bad.next = self.bad.val() | self.a_port.val();
        }
        self.s1_mask.d.next = self.mask.val();
        self.s1_next.d.next = self.next.val();
        self.s1_addr.d.next = (bit_cast::<8, 3>(self.cur.val().get_bits::<3>(0)) << 5)
            | (bit_cast::<8, 3>(self.next.val().get_bits::<3>(0)) << 2)
            | bit_cast::<8, 2>(self.tidx.val());
        self.s1_bad_ctx.d.next =
            !self.state_ok.val().get_bit(self.cur.val().index()) | !self.type_ok.val().get_bit(self.ty.val().index());
        self.s1_bad_next.d.next =
            (self.mask.val() & self.a_state.val()).any() & !self.state_ok.val().get_bit(self.want.val().index());
        self.s1_bad.d.next = self.bad.val() & self.mask.val();

        // ---- cycle 2: the transition's required and allowed attributes
        self.entry.next = 0.into();
        for c in 0..64 {
            self.rom_col.next = self.rom_cols.val().get_bits::<ROM_ENTRIES>(256 * c);
            self.entry.next = self.entry.val().replace_bit(c, self.rom_col.val().get_bit(self.s1_addr.q.val().index()));
        }
        self.req.next = self.entry.val().get_bits::<32>(0);
        self.allowed.next = self.entry.val().get_bits::<32>(32);
        self.missing.next = self.req.val() & !self.s1_mask.q.val();
        self.unsup.next = self.s1_mask.q.val() & !self.allowed.val();
        self.s2_zero.d.next = self.s1_bad_ctx.q.val() | self.s1_bad_next.q.val() | !self.allowed.val().any();
        self.s2_zero_code.d.next = self.st_invalid.val();
        if self.s1_bad_next.q.val() {
            self.s2_zero_code.d.next = self.st_bad_value.val();
        }
        if self.s1_bad_ctx.q.val() {
            self.s2_zero_code.d.next = self.st_bad_context.val();
        }
        self.s2_missing.d.next = self.missing.val();
        self.s2_unsup.d.next = self.unsup.val();
        self.s2_bad.d.next = self.s1_bad.q.val();
        self.s2_any_missing.d.next = self.missing.val().any();
        self.s2_any_unsup.d.next = self.unsup.val().any();
        self.s2_any_bad.d.next = self.s1_bad.q.val().any();

        // ---- cycle 3: status, the offending attributes' lowest bit isolated
        self.v.next = self.s2_bad.q.val();
        if self.s2_any_unsup.q.val() {
            self.v.next = self.s2_unsup.q.val();
        }
        if self.s2_any_missing.q.val() {
            self.v.next = self.s2_missing.q.val();
        }
        if self.s2_zero.q.val() {
            self.v.next = 0.into();
        }
        self.s3_low.d.next = self.v.val() & ((!self.v.val()) + 1);
        self.s3_ok.d.next =
            !(self.s2_zero.q.val() | self.s2_any_missing.q.val() | self.s2_any_unsup.q.val() | self.s2_any_bad.q.val());
        self.s3_status.d.next = self.st_ok.val();
        if self.s2_any_bad.q.val() {
            self.s3_status.d.next = self.st_bad_value.val();
        }
        if self.s2_any_unsup.q.val() {
            self.s3_status.d.next = self.st_unsupported.val();
        }
        if self.s2_any_missing.q.val() {
            self.s3_status.d.next = self.st_missing.val();
        }
        if self.s2_zero.q.val() {
            self.s3_status.d.next = self.s2_zero_code.q.val();
        }

        // ---- cycle 4: the bit's number, the context write
        self.idx.next = 0.into();
        for i in 0..ATTR_BITS {
            self.idx.next =
                self.idx.val().replace_bit(i, (self.s3_low.q.val() & self.idx_bits.val().get_bits::<32>(32 * i)).any());
        }
        // bits written: the state, the stored attributes the mask names, the P_Key
        self.wbits.next = self.state_bits.val();
        for i in 0..STORES_N {
            if (self.s1_mask.q.val() & self.store_sel.val().get_bits::<32>(32 * i)).any() {
                self.wbits.next = self.wbits.val() | self.store_bits.val().get_bits::<QPC_BITS>(1024 * i);
            }
        }
        self.wdata.next = self.cmd.val() & self.wbits.val() & !self.state_bits.val();
        // the new state, bit by bit into `qpc.STATE` (rust-hdl cannot shift 1024 bits by a vector)
        for j in 0..4 {
            if self.s1_next.q.val().get_bit(j) {
                self.wdata.next = self.wdata.val() | self.state_one.val().get_bits::<QPC_BITS>(1024 * j);
            }
        }
        if (self.s1_mask.q.val() & self.a_pkey.val()).any() {
            self.wbits.next = self.wbits.val() | self.pkey_bits.val();
            self.wdata.next = self.wdata.val() | self.pkey_val.val();
        }
        self.clear.next = 0.into();
        if self.s1_next.q.val() == self.reset_code.val() {
            self.clear.next = self.reset_bits.val();
        }
        // bytes written; in the head, the bits of a written byte outside the
        // written fields keep the context's value
        self.bm.next = 0.into();
        for i in 0..QPC_BYTES {
            self.bm.next =
                self.bm.val().replace_bit(i, ((self.wbits.val() | self.clear.val()).get_bits::<8>(8 * i)).any());
        }
        self.head_bytes.next = 0.into();
        for i in 0..CTX_HEAD_BYTES {
            self.head_bytes.next = self.head_bytes.val() >> 8;
            if self.bm.val().get_bit(i) {
                self.head_bytes.next = self.head_bytes.val() | self.byte_top.val();
            }
        }
        self.wfinal.next = self.wdata.val()
            | (bit_cast::<QPC_BITS, QPC_HEAD_BITS>(self.ctx_head.val() & self.head_bytes.val()) & !self.wbits.val());

        // ---- control and outputs
        if self.phase.q.val() == 0 && self.req_valid.val() {
            self.phase.d.next = 1.into();
        }
        if self.phase.q.val() == 1 {
            self.phase.d.next = 2.into();
        }
        if self.phase.q.val() == 2 {
            self.phase.d.next = 3.into();
        }
        if self.phase.q.val() == 3 {
            self.phase.d.next = 0.into();
            self.r_valid.d.next = true;
            self.r_qpn.d.next = self.cmd.val().get_bits::<QPN_BITS>(self.p_qpn.val().index());
            self.r_attr.d.next = self.idx.val();
            self.r_status.d.next = self.s3_status.q.val();
            self.r_byte_mask.d.next = 0.into();
            self.r_data.d.next = 0.into();
            if self.s3_ok.q.val() {
                self.r_byte_mask.d.next = self.bm.val();
                self.r_data.d.next = self.wfinal.val();
            }
        }
        if self.reset.val() {
            self.phase.d.next = 0.into();
            self.r_valid.d.next = false;
        }
    }
}
