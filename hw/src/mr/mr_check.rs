//! `MrCheck`: the memory region check and translation of every access
//! (`rnic_contract::mr::mr_check` is its reference; docs/memory.md).
//!
//! ```text
//!  s_req ─► request FIFO ─► m_mpt (read entry key & index_mask)
//!              │                       s_mpt (entries, in order)
//!              └──────────────► C1 ─► C2 ─► C3 ─► C4 ─┬─► issue FIFO ─► issuer ─► m_mtt (lines)
//!                                                     └─► job FIFO ───► emitter ◄─ line buffer ◄─ s_mtt
//!                                                                          └─► m_resp
//! ```
//!
//! * C1 registers the entry and the request; C2 compares (key, PD, valid,
//!   page size, access) and subtracts (VA - VA_BASE, LENGTH - len, VA and
//!   VA_BASE in pages); C3 finishes the bounds check and the page counts;
//!   C4 gives the verdict and the first MTT entry; then each job enters
//!   two FIFOs at once: one for the issuer, which reads the MTT lines the
//!   job's pages need, one for the emitter, which turns lines into pieces.
//! * Prefetch: a job that starts a line (its first page is an entry's slot
//!   0, or it spans lines) hints the line after its last one on `m_pf`,
//!   if the region still has a whole line's pages after the job (so the
//!   hinted line holds entries of the same region, which is live: no line
//!   of a deregistered region is fetched). A sequential stream of accesses
//!   so finds each line cached, the hint having gone out 7 pages earlier.
//!   One hint per line (the last hinted line is remembered); a hint the
//!   port does not take at once is dropped.
//! * A failed check (or a zero-length access) has no line read and no piece:
//!   one response beat with its verdict.
//! * An MTT entry without VALID (bit 63) ends the translation: the emitter
//!   walks the rest of the job's pages without a beat (popping their lines)
//!   and ends the job with one beat of `MttInvalid`, `last`.
//! * Flow control is by credits, so every handshake output is a register:
//!   `s_req.ready` while the request FIFO has room, `s_mpt.ready` while the
//!   job FIFOs have room for everything in C1..C4, and MTT lines are read
//!   only while the line buffer has room for them (`s_mtt.ready` is 1).

use super::*;
use crate::consts::*;
use crate::prim::{LutRam, Reg};
use hdl_emit::TypeTag;
use rnic_contract::layouts::mtt;
use rnic_contract::mr::MrError;
use rust_hdl::prelude::*;

const FIFO_LOG: usize = MR_FIFO_LOG;
/// Requests between `s_req` and C1, and jobs between C1 and the issuer or
/// the emitter, at most.
pub const MR_FIFO_DEPTH: usize = 1 << FIFO_LOG;
const LINE_LOG: usize = MR_LINE_LOG;
/// MTT lines read and not yet used up, at most.
pub const MR_LINE_BUFFER: usize = 1 << LINE_LOG;

// The request word: key, pd, va, len, access, id.
const RQ_BITS: usize = 32 + 24 + 64 + 32 + MR_ACCESS_BITS + MR_ID_BITS;
// The issuer's job word: has lines, first line, lines - 1, id, prefetch.
const JI_BITS: usize = 1 + MTT_LINE_BITS + 19 + MR_ID_BITS + 1;
// The emitter's job word: has pieces, verdict, slot, offset, room, len, page size, id.
const JE_BITS: usize = 1 + MR_VERDICT_BITS + 3 + 30 + 31 + 32 + 2 + MR_ID_BITS;
const _: () = assert!(RQ_BITS == 163 && JI_BITS == 58 && JE_BITS == 110 && MTT_LINE_BITS == 29);
const _: () = assert!(PAGE_SHIFT_C <= 30, "offsets are 30 bits");
const _: () = assert!(FIFO_LOG == 4 && LINE_LOG == 4, "pointers and counters are 5 bits");
/// VALID of an MTT entry: its top bit, above ADDR (the literal 63 in
/// `update`: a named constant would have to join `consts::NAMED`).
const MTT_VALID_POS: usize = 63;
/// The verdict of an access that reached an MTT entry without VALID (the
/// literal 6 in `update`).
const MR_MTT_INVALID: u64 = 6;
const _: () = assert!(
    mtt::VALID.pos() == MTT_VALID_POS && mtt::ADDR.width as usize == MTT_VALID_POS,
    "an entry's VALID is its top bit, above ADDR"
);
const _: () = assert!(MrError::MttInvalid as u64 == MR_MTT_INVALID);
const _: () = assert!(MPT_INDEX_BITS == 24 && MR_VERDICT_BITS == 3 && MR_ACCESS_BITS == 3 && MR_ID_BITS == 8);

#[derive(LogicBlock, Default)]
pub struct MrCheck {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    /// log2 of the MPT's entries (`mpt_log_entries`): a key's index is its
    /// low bits. Static while requests run.
    pub mpt_log: Signal<In, Bits<5>>,
    pub s_req: MrReqIn,
    pub m_resp: MrRespOut,
    pub m_mpt: LookupReqOut<MPT_INDEX_BITS>,
    pub s_mpt: LookupRespIn,
    pub m_mtt: LookupReqOut<MTT_LINE_BITS>,
    pub s_mtt: LookupRespIn,
    /// Prefetch hints: an MTT line a sequential stream will read next.
    pub m_pf: HintOut<MTT_LINE_BITS>,

    // ---- requests: one FIFO, read at two places (MPT read, C1)
    rq: LutRam<Bits<RQ_BITS>, FIFO_LOG>,
    mq: LutRam<Bits<40>, FIFO_LOG>,
    rq_wr: Reg<Bits<5>>,
    rq_rd: Reg<Bits<5>>,
    mq_rd: Reg<Bits<5>>,
    rq_cnt: Reg<Bits<5>>,
    in_rdy: Reg<Bit>,
    mask: Reg<Bits<24>>,
    ones24: Signal<Local, Bits<24>>,
    mv: Reg<Bit>,
    m_index: Reg<Bits<24>>,
    m_id: Reg<Bits<8>>,
    mpt_rdy: Reg<Bit>,
    occ_i: Reg<Bits<5>>,
    occ_e: Reg<Bits<5>>,
    accept: Signal<Local, Bit>,
    mq_load: Signal<Local, Bit>,
    take: Signal<Local, Bit>,
    rq_cnt_next: Signal<Local, Bits<5>>,
    occ_i_next: Signal<Local, Bits<5>>,
    occ_e_next: Signal<Local, Bits<5>>,
    occ_i_take: Signal<Local, Bits<5>>,
    occ_e_take: Signal<Local, Bits<5>>,
    rq_word: Signal<Local, Bits<RQ_BITS>>,
    // ---- C1: the request and its entry
    c1_v: Reg<Bit>,
    c1_key: Reg<Bits<32>>,
    c1_pd: Reg<Bits<24>>,
    c1_va: Reg<Bits<64>>,
    c1_len: Reg<Bits<32>>,
    c1_acc: Reg<Bits<3>>,
    c1_id: Reg<Bits<8>>,
    c1_base: Reg<Bits<64>>,
    c1_length: Reg<Bits<64>>,
    c1_mkey: Reg<Bits<32>>,
    c1_mpd: Reg<Bits<24>>,
    c1_valid: Reg<Bit>,
    c1_lw: Reg<Bit>,
    c1_rw: Reg<Bit>,
    c1_rr: Reg<Bit>,
    c1_ra: Reg<Bit>,
    c1_lps: Reg<Bits<6>>,
    c1_mtt: Reg<Bits<32>>,
    sel1: Signal<Local, Bits<2>>,
    // ---- C2: compares and differences
    c2_v: Reg<Bit>,
    c2_zero: Reg<Bit>,
    c2_valid_ok: Reg<Bit>,
    c2_key_ok: Reg<Bit>,
    c2_pd_ok: Reg<Bit>,
    c2_acc_ok: Reg<Bit>,
    c2_d1: Reg<Bits<65>>,
    c2_d2: Reg<Bits<65>>,
    c2_vapg: Reg<Bits<32>>,
    c2_bpg: Reg<Bits<32>>,
    c2_off: Reg<Bits<30>>,
    c2_lm1: Reg<Bits<32>>,
    c2_sel: Reg<Bits<2>>,
    c2_mtt: Reg<Bits<32>>,
    c2_len: Reg<Bits<32>>,
    c2_id: Reg<Bits<8>>,
    t2: Signal<Local, Bits<33>>,
    // ---- C3: bounds, pages
    c3_v: Reg<Bit>,
    c3_pre: Reg<Bits<3>>,
    c3_inb: Reg<Bit>,
    c3_zero: Reg<Bit>,
    c3_p0: Reg<Bits<32>>,
    c3_nm1: Reg<Bits<21>>,
    c3_room0: Reg<Bits<31>>,
    c3_off: Reg<Bits<30>>,
    c3_sel: Reg<Bits<2>>,
    c3_mtt: Reg<Bits<32>>,
    c3_len: Reg<Bits<32>>,
    c3_id: Reg<Bits<8>>,
    /// Bytes of the region after the access.
    c3_rem: Reg<Bits<64>>,
    // ---- C4: verdict, first MTT entry
    c4_v: Reg<Bit>,
    c4_verdict: Reg<Bits<3>>,
    c4_has: Reg<Bit>,
    c4_e0: Reg<Bits<32>>,
    c4_nm1: Reg<Bits<21>>,
    c4_room0: Reg<Bits<31>>,
    c4_off: Reg<Bits<30>>,
    c4_sel: Reg<Bits<2>>,
    c4_len: Reg<Bits<32>>,
    c4_id: Reg<Bits<8>>,
    /// The region has a whole MTT line's pages after the access.
    c4_far: Reg<Bit>,
    lines4: Signal<Local, Bits<22>>,
    // ---- job FIFOs
    ji: LutRam<Bits<JI_BITS>, FIFO_LOG>,
    ji_wr: Reg<Bits<5>>,
    ji_rd: Reg<Bits<5>>,
    je: LutRam<Bits<JE_BITS>, FIFO_LOG>,
    je_wr: Reg<Bits<5>>,
    je_rd: Reg<Bits<5>>,
    // ---- issuer: MTT line reads
    i_busy: Reg<Bit>,
    i_line: Reg<Bits<MTT_LINE_BITS>>,
    i_left: Reg<Bits<19>>,
    i_id: Reg<Bits<8>>,
    i_pf: Reg<Bit>,
    tv: Reg<Bit>,
    t_index: Reg<Bits<MTT_LINE_BITS>>,
    t_id: Reg<Bits<8>>,
    lb_out: Reg<Bits<5>>,
    issue: Signal<Local, Bit>,
    ji_load: Signal<Local, Bit>,
    // ---- prefetch hints: the candidate (the line after a job's last), the port's register
    h_v: Reg<Bit>,
    h_line: Reg<Bits<MTT_LINE_BITS>>,
    pv: Reg<Bit>,
    p_index: Reg<Bits<MTT_LINE_BITS>>,
    pf_last: Reg<Bits<MTT_LINE_BITS>>,
    h_new: Signal<Local, Bit>,
    // ---- line buffer
    lb: LutRam<Bits<512>, LINE_LOG>,
    lb_wr: Reg<Bits<5>>,
    lb_rd: Reg<Bits<5>>,
    lb_pop: Signal<Local, Bit>,
    // ---- emitter: pieces
    e_act: Reg<Bit>,
    e_rem: Reg<Bits<32>>,
    e_room: Reg<Bits<31>>,
    e_off: Reg<Bits<30>>,
    e_slot: Reg<Bits<3>>,
    e_id: Reg<Bits<8>>,
    e_sel: Reg<Bits<2>>,
    /// The job met an MTT entry without VALID: no more pieces, its error at the end.
    e_bad: Reg<Bit>,
    ov: Reg<Bit>,
    o_id: Reg<Bits<8>>,
    o_verdict: Reg<Bits<3>>,
    o_iova: Reg<Bits<64>>,
    o_len: Reg<Bits<32>>,
    o_last: Reg<Bit>,
    free: Signal<Local, Bit>,
    piece: Signal<Local, Bit>,
    last_now: Signal<Local, Bit>,
    bad_now: Signal<Local, Bit>,
    je_load: Signal<Local, Bit>,
    ent: Signal<Local, Bits<64>>,
    page_addr: Signal<Local, Bits<64>>,
    page_bytes: Signal<Local, Bits<31>>,
    kind: TypeTag<Self>,
}

impl Logic for MrCheck {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            rq_wr,
            rq_rd,
            mq_rd,
            rq_cnt,
            in_rdy,
            mask,
            mv,
            m_index,
            m_id,
            mpt_rdy,
            occ_i,
            occ_e,
            c1_v,
            c1_key,
            c1_pd,
            c1_va,
            c1_len,
            c1_acc,
            c1_id,
            c1_base,
            c1_length,
            c1_mkey,
            c1_mpd,
            c1_valid,
            c1_lw,
            c1_rw,
            c1_rr,
            c1_ra,
            c1_lps,
            c1_mtt,
            c2_v,
            c2_zero,
            c2_valid_ok,
            c2_key_ok,
            c2_pd_ok,
            c2_acc_ok,
            c2_d1,
            c2_d2,
            c2_vapg,
            c2_bpg,
            c2_off,
            c2_lm1,
            c2_sel,
            c2_mtt,
            c2_len,
            c2_id,
            c3_v,
            c3_pre,
            c3_inb,
            c3_zero,
            c3_p0,
            c3_nm1,
            c3_room0,
            c3_off,
            c3_sel,
            c3_mtt,
            c3_len,
            c3_id,
            c3_rem,
            c4_v,
            c4_verdict,
            c4_has,
            c4_e0,
            c4_nm1,
            c4_room0,
            c4_off,
            c4_sel,
            c4_len,
            c4_id,
            c4_far,
            ji_wr,
            ji_rd,
            je_wr,
            je_rd,
            i_busy,
            i_line,
            i_left,
            i_id,
            i_pf,
            h_v,
            h_line,
            pv,
            p_index,
            pf_last,
            tv,
            t_index,
            t_id,
            lb_out,
            lb_wr,
            lb_rd,
            e_act,
            e_rem,
            e_room,
            e_off,
            e_slot,
            e_id,
            e_sel,
            e_bad,
            ov,
            o_id,
            o_verdict,
            o_iova,
            o_len,
            o_last
        );
        clock!(self, clock, rq, mq, ji, je, lb);

        // ================================================ requests in, MPT reads out
        self.ones24.next = 0xFF_FFFF.into();
        self.mask.d.next = !(self.ones24.val() << self.mpt_log.val());
        self.s_req.ready.next = self.in_rdy.q.val();
        self.accept.next = self.s_req.valid.val() & self.in_rdy.q.val();
        self.rq_word.next = bit_cast::<RQ_BITS, 32>(self.s_req.key.val())
            | (bit_cast::<RQ_BITS, 24>(self.s_req.pd.val()) << 32)
            | (bit_cast::<RQ_BITS, 64>(self.s_req.va.val()) << 56)
            | (bit_cast::<RQ_BITS, 32>(self.s_req.len.val()) << 120)
            | (bit_cast::<RQ_BITS, 3>(self.s_req.access.val()) << 152)
            | (bit_cast::<RQ_BITS, 8>(self.s_req.id.val()) << 155);
        self.rq.write_addr.next = self.rq_wr.q.val().get_bits::<FIFO_LOG>(0);
        self.rq.write_data.next = self.rq_word.val();
        self.rq.write_enable.next = self.accept.val();
        self.mq.write_addr.next = self.rq_wr.q.val().get_bits::<FIFO_LOG>(0);
        self.mq.write_data.next =
            bit_cast::<40, 32>(self.s_req.key.val()) | (bit_cast::<40, 8>(self.s_req.id.val()) << 32);
        self.mq.write_enable.next = self.accept.val();
        self.rq.read_addr.next = self.rq_rd.q.val().get_bits::<FIFO_LOG>(0);
        self.mq.read_addr.next = self.mq_rd.q.val().get_bits::<FIFO_LOG>(0);
        if self.accept.val() {
            self.rq_wr.d.next = self.rq_wr.q.val() + 1;
        }

        self.m_mpt.valid.next = self.mv.q.val();
        self.m_mpt.index.next = self.m_index.q.val();
        self.m_mpt.id.next = self.m_id.q.val();
        self.mq_load.next = (self.rq_wr.q.val() != self.mq_rd.q.val()) & (!self.mv.q.val() | self.m_mpt.ready.val());
        if self.mq_load.val() {
            self.mv.d.next = true;
            self.m_index.d.next = self.mq.read_data.val().get_bits::<24>(0) & self.mask.q.val();
            self.m_id.d.next = self.mq.read_data.val().get_bits::<8>(32);
            self.mq_rd.d.next = self.mq_rd.q.val() + 1;
        } else if self.m_mpt.ready.val() {
            self.mv.d.next = false;
        }

        // an entry comes back: C1 takes it with its request
        self.s_mpt.ready.next = self.mpt_rdy.q.val();
        self.take.next = self.s_mpt.valid.val() & self.mpt_rdy.q.val();
        self.c1_v.d.next = self.take.val();
        if self.take.val() {
            self.rq_rd.d.next = self.rq_rd.q.val() + 1;
        }
        self.c1_key.d.next = self.rq.read_data.val().get_bits::<32>(0);
        self.c1_pd.d.next = self.rq.read_data.val().get_bits::<24>(32);
        self.c1_va.d.next = self.rq.read_data.val().get_bits::<64>(56);
        self.c1_len.d.next = self.rq.read_data.val().get_bits::<32>(120);
        self.c1_acc.d.next = self.rq.read_data.val().get_bits::<3>(152);
        self.c1_id.d.next = self.rq.read_data.val().get_bits::<8>(155);
        self.c1_base.d.next = self.s_mpt.data.val().get_bits::<64>(MPT_VA_BASE);
        self.c1_length.d.next = self.s_mpt.data.val().get_bits::<64>(MPT_LENGTH);
        self.c1_mkey.d.next = self.s_mpt.data.val().get_bits::<32>(MPT_KEY);
        self.c1_mpd.d.next = self.s_mpt.data.val().get_bits::<24>(MPT_PD);
        self.c1_valid.d.next = self.s_mpt.data.val().get_bit(MPT_VALID);
        self.c1_lw.d.next = self.s_mpt.data.val().get_bit(MPT_LOCAL_WRITE);
        self.c1_rw.d.next = self.s_mpt.data.val().get_bit(MPT_REMOTE_WRITE);
        self.c1_rr.d.next = self.s_mpt.data.val().get_bit(MPT_REMOTE_READ);
        self.c1_ra.d.next = self.s_mpt.data.val().get_bit(MPT_REMOTE_ATOMIC);
        self.c1_lps.d.next = self.s_mpt.data.val().get_bits::<6>(MPT_LOG_PAGE);
        self.c1_mtt.d.next = self.s_mpt.data.val().get_bits::<32>(MPT_MTT_BASE);

        // requests: +accept -take; jobs in C1..C4 and each job FIFO: +take -pop
        self.rq_cnt_next.next =
            self.rq_cnt.q.val() + bit_cast::<5, 1>(self.accept.val().into()) - bit_cast::<5, 1>(self.take.val().into());
        self.rq_cnt.d.next = self.rq_cnt_next.val();
        self.in_rdy.d.next = !self.rq_cnt_next.val().get_bit(MR_FIFO_LOG);
        // ================================================ C1 -> C2
        self.sel1.next = 3.into();
        if self.c1_lps.q.val() == PAGE_LOG_A {
            self.sel1.next = 0.into();
        }
        if self.c1_lps.q.val() == PAGE_LOG_B {
            self.sel1.next = 1.into();
        }
        if self.c1_lps.q.val() == PAGE_LOG_C {
            self.sel1.next = 2.into();
        }
        self.c2_v.d.next = self.c1_v.q.val();
        self.c2_zero.d.next = self.c1_len.q.val() == 0;
        self.c2_valid_ok.d.next = self.c1_valid.q.val() & (self.sel1.val() != 3);
        self.c2_key_ok.d.next = self.c1_key.q.val() == self.c1_mkey.q.val();
        self.c2_pd_ok.d.next = self.c1_pd.q.val() == self.c1_mpd.q.val();
        self.c2_acc_ok.d.next = false;
        if self.c1_acc.q.val() == ACC_LOCAL_READ {
            self.c2_acc_ok.d.next = true;
        }
        if self.c1_acc.q.val() == ACC_LOCAL_WRITE {
            self.c2_acc_ok.d.next = self.c1_lw.q.val();
        }
        if self.c1_acc.q.val() == ACC_REMOTE_READ {
            self.c2_acc_ok.d.next = self.c1_rr.q.val();
        }
        if self.c1_acc.q.val() == ACC_REMOTE_WRITE {
            self.c2_acc_ok.d.next = self.c1_rw.q.val();
        }
        if self.c1_acc.q.val() == ACC_REMOTE_ATOMIC {
            self.c2_acc_ok.d.next = self.c1_ra.q.val();
        }
        // borrows in bit 64: VA below VA_BASE, len above LENGTH
        self.c2_d1.d.next = bit_cast::<65, 64>(self.c1_va.q.val()) - bit_cast::<65, 64>(self.c1_base.q.val());
        self.c2_d2.d.next = bit_cast::<65, 64>(self.c1_length.q.val()) - bit_cast::<65, 32>(self.c1_len.q.val());
        match self.sel1.val().index() {
            0 => {
                self.c2_vapg.d.next = self.c1_va.q.val().get_bits::<32>(PAGE_SHIFT_A);
                self.c2_bpg.d.next = self.c1_base.q.val().get_bits::<32>(PAGE_SHIFT_A);
                self.c2_off.d.next = self.c1_va.q.val().get_bits::<30>(0) & PAGE_OFF_A;
            }
            1 => {
                self.c2_vapg.d.next = self.c1_va.q.val().get_bits::<32>(PAGE_SHIFT_B);
                self.c2_bpg.d.next = self.c1_base.q.val().get_bits::<32>(PAGE_SHIFT_B);
                self.c2_off.d.next = self.c1_va.q.val().get_bits::<30>(0) & PAGE_OFF_B;
            }
            _ => {
                self.c2_vapg.d.next = self.c1_va.q.val().get_bits::<32>(PAGE_SHIFT_C);
                self.c2_bpg.d.next = self.c1_base.q.val().get_bits::<32>(PAGE_SHIFT_C);
                self.c2_off.d.next = self.c1_va.q.val().get_bits::<30>(0) & PAGE_OFF_C;
            }
        }
        self.c2_lm1.d.next = self.c1_len.q.val() - 1;
        self.c2_sel.d.next = self.sel1.val();
        self.c2_mtt.d.next = self.c1_mtt.q.val();
        self.c2_len.d.next = self.c1_len.q.val();
        self.c2_id.d.next = self.c1_id.q.val();

        // ================================================ C2 -> C3
        self.c3_v.d.next = self.c2_v.q.val();
        self.c3_pre.d.next = 0.into();
        if !self.c2_acc_ok.q.val() {
            self.c3_pre.d.next = MR_ACCESS_DENIED.into();
        }
        if !self.c2_pd_ok.q.val() {
            self.c3_pre.d.next = MR_PD_MISMATCH.into();
        }
        if !self.c2_key_ok.q.val() {
            self.c3_pre.d.next = MR_KEY_MISMATCH.into();
        }
        if !self.c2_valid_ok.q.val() {
            self.c3_pre.d.next = MR_INVALID.into();
        }
        self.c3_inb.d.next = !self.c2_d1.q.val().get_bit(64)
            & !self.c2_d2.q.val().get_bit(64)
            & (self.c2_d1.q.val().get_bits::<64>(0) <= self.c2_d2.q.val().get_bits::<64>(0));
        self.c3_zero.d.next = self.c2_zero.q.val();
        self.c3_p0.d.next = self.c2_vapg.q.val() - self.c2_bpg.q.val();
        // pages after the first: (offset + len - 1) >> page shift
        self.t2.next = bit_cast::<33, 30>(self.c2_off.q.val()) + bit_cast::<33, 32>(self.c2_lm1.q.val());
        match self.c2_sel.q.val().index() {
            0 => {
                self.c3_nm1.d.next = self.t2.val().get_bits::<21>(PAGE_SHIFT_A);
                self.c3_room0.d.next = bits::<31>(PAGE_BYTES_A) - bit_cast::<31, 30>(self.c2_off.q.val());
            }
            1 => {
                self.c3_nm1.d.next = self.t2.val().get_bits::<21>(PAGE_SHIFT_B);
                self.c3_room0.d.next = bits::<31>(PAGE_BYTES_B) - bit_cast::<31, 30>(self.c2_off.q.val());
            }
            _ => {
                self.c3_nm1.d.next = self.t2.val().get_bits::<21>(PAGE_SHIFT_C);
                self.c3_room0.d.next = bits::<31>(PAGE_BYTES_C) - bit_cast::<31, 30>(self.c2_off.q.val());
            }
        }
        self.c3_off.d.next = self.c2_off.q.val();
        self.c3_sel.d.next = self.c2_sel.q.val();
        self.c3_mtt.d.next = self.c2_mtt.q.val();
        self.c3_len.d.next = self.c2_len.q.val();
        self.c3_id.d.next = self.c2_id.q.val();
        // (LENGTH - len) - (VA - VA_BASE): meaningful once in bounds
        self.c3_rem.d.next = self.c2_d2.q.val().get_bits::<64>(0) - self.c2_d1.q.val().get_bits::<64>(0);

        // ================================================ C3 -> C4
        self.c4_v.d.next = self.c3_v.q.val();
        self.c4_verdict.d.next = self.c3_pre.q.val();
        if (self.c3_pre.q.val() == 0) & !self.c3_inb.q.val() {
            self.c4_verdict.d.next = MR_OUT_OF_BOUNDS.into();
        }
        if self.c3_zero.q.val() {
            self.c4_verdict.d.next = 0.into();
        }
        self.c4_has.d.next = !self.c3_zero.q.val() & (self.c3_pre.q.val() == 0) & self.c3_inb.q.val();
        self.c4_e0.d.next = self.c3_mtt.q.val() + self.c3_p0.q.val();
        self.c4_nm1.d.next = self.c3_nm1.q.val();
        self.c4_room0.d.next = self.c3_room0.q.val();
        self.c4_off.d.next = self.c3_off.q.val();
        self.c4_sel.d.next = self.c3_sel.q.val();
        self.c4_len.d.next = self.c3_len.q.val();
        self.c4_id.d.next = self.c3_id.q.val();
        // a whole line's pages after the access's last page: the next line is the region's
        match self.c3_sel.q.val().index() {
            0 => self.c4_far.d.next = self.c3_rem.q.val() >= bits::<64>(LINE_SPAN_A),
            1 => self.c4_far.d.next = self.c3_rem.q.val() >= bits::<64>(LINE_SPAN_B),
            _ => self.c4_far.d.next = self.c3_rem.q.val() >= bits::<64>(LINE_SPAN_C),
        }

        // ================================================ C4 -> the job FIFOs
        // lines the pages span: (slot of the first entry + pages - 1) / 8 + 1
        self.lines4.next =
            bit_cast::<22, 3>(self.c4_e0.q.val().get_bits::<3>(0)) + bit_cast::<22, 21>(self.c4_nm1.q.val());
        self.ji.write_addr.next = self.ji_wr.q.val().get_bits::<FIFO_LOG>(0);
        self.ji.write_enable.next = self.c4_v.q.val();
        self.ji.write_data.next = bit_cast::<JI_BITS, 1>(self.c4_has.q.val().into())
            | (bit_cast::<JI_BITS, 29>(self.c4_e0.q.val().get_bits::<29>(MTT_LINE_SHIFT)) << 1)
            | (bit_cast::<JI_BITS, 19>(self.lines4.val().get_bits::<19>(MTT_LINE_SHIFT)) << 30)
            | (bit_cast::<JI_BITS, 8>(self.c4_id.q.val()) << 49)
            | (bit_cast::<JI_BITS, 1>(
                (self.c4_far.q.val()
                    & ((self.c4_e0.q.val().get_bits::<3>(0) == 0)
                        | self.lines4.val().get_bits::<19>(MTT_LINE_SHIFT).any()))
                .into(),
            ) << 57);
        self.je.write_addr.next = self.je_wr.q.val().get_bits::<FIFO_LOG>(0);
        self.je.write_enable.next = self.c4_v.q.val();
        self.je.write_data.next = bit_cast::<JE_BITS, 1>(self.c4_has.q.val().into())
            | (bit_cast::<JE_BITS, 3>(self.c4_verdict.q.val()) << 1)
            | (bit_cast::<JE_BITS, 3>(self.c4_e0.q.val().get_bits::<3>(0)) << 4)
            | (bit_cast::<JE_BITS, 30>(self.c4_off.q.val()) << 7)
            | (bit_cast::<JE_BITS, 31>(self.c4_room0.q.val()) << 37)
            | (bit_cast::<JE_BITS, 32>(self.c4_len.q.val()) << 68)
            | (bit_cast::<JE_BITS, 2>(self.c4_sel.q.val()) << 100)
            | (bit_cast::<JE_BITS, 8>(self.c4_id.q.val()) << 102);
        if self.c4_v.q.val() {
            self.ji_wr.d.next = self.ji_wr.q.val() + 1;
            self.je_wr.d.next = self.je_wr.q.val() + 1;
        }
        self.ji.read_addr.next = self.ji_rd.q.val().get_bits::<FIFO_LOG>(0);
        self.je.read_addr.next = self.je_rd.q.val().get_bits::<FIFO_LOG>(0);

        // ================================================ issuer: MTT line reads
        self.m_mtt.valid.next = self.tv.q.val();
        self.m_mtt.index.next = self.t_index.q.val();
        self.m_mtt.id.next = self.t_id.q.val();
        self.issue.next = self.i_busy.q.val()
            & (!self.tv.q.val() | self.m_mtt.ready.val())
            & !self.lb_out.q.val().get_bit(MR_LINE_LOG);
        // the next job loads as the current one issues its last line
        self.ji_load.next = (self.ji_wr.q.val() != self.ji_rd.q.val())
            & (!self.i_busy.q.val() | (self.issue.val() & (self.i_left.q.val() == 0)));
        self.h_v.d.next = false;
        self.h_line.d.next = self.i_line.q.val() + 1;
        if self.issue.val() {
            self.tv.d.next = true;
            self.t_index.d.next = self.i_line.q.val();
            self.t_id.d.next = self.i_id.q.val();
            self.i_line.d.next = self.i_line.q.val() + 1;
            self.i_left.d.next = self.i_left.q.val() - 1;
            if self.i_left.q.val() == 0 {
                self.i_busy.d.next = false;
                self.h_v.d.next = self.i_pf.q.val();
            }
        } else if self.m_mtt.ready.val() {
            self.tv.d.next = false;
        }
        if self.ji_load.val() {
            self.ji_rd.d.next = self.ji_rd.q.val() + 1;
            self.i_busy.d.next = self.ji.read_data.val().get_bit(0);
            self.i_line.d.next = self.ji.read_data.val().get_bits::<29>(1);
            self.i_left.d.next = self.ji.read_data.val().get_bits::<19>(30);
            self.i_id.d.next = self.ji.read_data.val().get_bits::<8>(49);
            self.i_pf.d.next = self.ji.read_data.val().get_bit(57);
        }
        // the hint: once per line, if the port's register is free
        self.m_pf.valid.next = self.pv.q.val();
        self.m_pf.index.next = self.p_index.q.val();
        self.h_new.next = self.h_v.q.val() & (self.h_line.q.val() != self.pf_last.q.val());
        if self.m_pf.ready.val() {
            self.pv.d.next = false;
        }
        if self.h_new.val() & (!self.pv.q.val() | self.m_pf.ready.val()) {
            self.pv.d.next = true;
            self.p_index.d.next = self.h_line.q.val();
            self.pf_last.d.next = self.h_line.q.val();
        }

        // ================================================ line buffer (room reserved by lb_out)
        self.s_mtt.ready.next = true;
        self.lb.write_addr.next = self.lb_wr.q.val().get_bits::<LINE_LOG>(0);
        self.lb.write_data.next = self.s_mtt.data.val();
        self.lb.write_enable.next = self.s_mtt.valid.val();
        self.lb.read_addr.next = self.lb_rd.q.val().get_bits::<LINE_LOG>(0);
        if self.s_mtt.valid.val() {
            self.lb_wr.d.next = self.lb_wr.q.val() + 1;
        }

        // ================================================ emitter: pieces
        self.m_resp.valid.next = self.ov.q.val();
        self.m_resp.id.next = self.o_id.q.val();
        self.m_resp.verdict.next = self.o_verdict.q.val();
        self.m_resp.iova.next = self.o_iova.q.val();
        self.m_resp.len.next = self.o_len.q.val();
        self.m_resp.last.next = self.o_last.q.val();
        self.free.next = !self.ov.q.val() | self.m_resp.ready.val();
        self.piece.next = self.e_act.q.val() & (self.lb_wr.q.val() != self.lb_rd.q.val()) & self.free.val();
        self.last_now.next = self.e_rem.q.val() <= bit_cast::<32, 31>(self.e_room.q.val());
        // the next job loads as the current one sends its last piece, if it has pieces too
        self.je_load.next = (self.je_wr.q.val() != self.je_rd.q.val())
            & self.free.val()
            & (!self.e_act.q.val() | (self.piece.val() & self.last_now.val() & self.je.read_data.val().get_bit(0)));
        self.ent.next = self.lb.read_data.val().get_bits::<64>(0);
        match self.e_slot.q.val().index() {
            1 => self.ent.next = self.lb.read_data.val().get_bits::<64>(64),
            2 => self.ent.next = self.lb.read_data.val().get_bits::<64>(128),
            3 => self.ent.next = self.lb.read_data.val().get_bits::<64>(192),
            4 => self.ent.next = self.lb.read_data.val().get_bits::<64>(256),
            5 => self.ent.next = self.lb.read_data.val().get_bits::<64>(320),
            6 => self.ent.next = self.lb.read_data.val().get_bits::<64>(384),
            7 => self.ent.next = self.lb.read_data.val().get_bits::<64>(448),
            _ => {}
        }
        match self.e_sel.q.val().index() {
            0 => {
                self.page_addr.next = PAGE_ADDR_A.into();
                self.page_bytes.next = bits::<31>(PAGE_BYTES_A);
            }
            1 => {
                self.page_addr.next = PAGE_ADDR_B.into();
                self.page_bytes.next = bits::<31>(PAGE_BYTES_B);
            }
            _ => {
                self.page_addr.next = PAGE_ADDR_C.into();
                self.page_bytes.next = bits::<31>(PAGE_BYTES_C);
            }
        }
        // an entry without VALID ends the translation: this piece and the
        // rest of the job's pages are walked without a beat, then its error
        self.bad_now.next = self.e_bad.q.val() | !self.ent.val().get_bit(63);
        self.lb_pop.next = self.piece.val() & ((self.e_slot.q.val() == 7) | self.last_now.val());
        if self.lb_pop.val() {
            self.lb_rd.d.next = self.lb_rd.q.val() + 1;
        }
        if self.m_resp.ready.val() {
            self.ov.d.next = false;
        }
        if self.piece.val() {
            self.ov.d.next = !self.bad_now.val();
            self.o_id.d.next = self.e_id.q.val();
            self.o_verdict.d.next = 0.into();
            self.o_iova.d.next = (bit_cast::<64, MTT_VALID_POS>(self.ent.val().get_bits::<MTT_VALID_POS>(0))
                & self.page_addr.val())
                | bit_cast::<64, 30>(self.e_off.q.val());
            self.o_len.d.next = bit_cast::<32, 31>(self.e_room.q.val());
            if self.last_now.val() {
                self.o_len.d.next = self.e_rem.q.val();
                self.e_act.d.next = false;
                if self.bad_now.val() {
                    self.ov.d.next = true;
                    self.o_verdict.d.next = 6.into();
                    self.o_iova.d.next = 0.into();
                    self.o_len.d.next = 0.into();
                }
            }
            self.e_bad.d.next = self.bad_now.val();
            self.o_last.d.next = self.last_now.val();
            self.e_rem.d.next = self.e_rem.q.val() - bit_cast::<32, 31>(self.e_room.q.val());
            self.e_room.d.next = self.page_bytes.val();
            self.e_off.d.next = 0.into();
            self.e_slot.d.next = self.e_slot.q.val() + 1;
        }
        if self.je_load.val() {
            self.je_rd.d.next = self.je_rd.q.val() + 1;
            if self.je.read_data.val().get_bit(0) {
                self.e_act.d.next = true;
                self.e_slot.d.next = self.je.read_data.val().get_bits::<3>(4);
                self.e_off.d.next = self.je.read_data.val().get_bits::<30>(7);
                self.e_room.d.next = self.je.read_data.val().get_bits::<31>(37);
                self.e_rem.d.next = self.je.read_data.val().get_bits::<32>(68);
                self.e_sel.d.next = self.je.read_data.val().get_bits::<2>(100);
                self.e_id.d.next = self.je.read_data.val().get_bits::<8>(102);
                self.e_bad.d.next = false;
            } else {
                self.ov.d.next = true;
                self.o_id.d.next = self.je.read_data.val().get_bits::<8>(102);
                self.o_verdict.d.next = self.je.read_data.val().get_bits::<3>(1);
                self.o_iova.d.next = 0.into();
                self.o_len.d.next = 0.into();
                self.o_last.d.next = true;
            }
        }

        // ================================================ credits
        self.occ_i_next.next =
            self.occ_i.q.val() + bit_cast::<5, 1>(self.take.val().into()) - bit_cast::<5, 1>(self.ji_load.val().into());
        self.occ_e_next.next =
            self.occ_e.q.val() + bit_cast::<5, 1>(self.take.val().into()) - bit_cast::<5, 1>(self.je_load.val().into());
        self.occ_i.d.next = self.occ_i_next.val();
        self.occ_e.d.next = self.occ_e_next.val();
        // without this cycle's pops (they only free room): the pops' logic stays off this path
        self.occ_i_take.next = self.occ_i.q.val() + bit_cast::<5, 1>(self.take.val().into());
        self.occ_e_take.next = self.occ_e.q.val() + bit_cast::<5, 1>(self.take.val().into());
        self.mpt_rdy.d.next = !self.occ_i_take.val().get_bit(MR_FIFO_LOG) & !self.occ_e_take.val().get_bit(MR_FIFO_LOG);

        self.lb_out.d.next = self.lb_out.q.val() + bit_cast::<5, 1>(self.issue.val().into())
            - bit_cast::<5, 1>(self.lb_pop.val().into());

        if self.reset.val() {
            self.rq_wr.d.next = 0.into();
            self.rq_rd.d.next = 0.into();
            self.mq_rd.d.next = 0.into();
            self.rq_cnt.d.next = 0.into();
            self.in_rdy.d.next = false;
            self.mv.d.next = false;
            self.mpt_rdy.d.next = false;
            self.occ_i.d.next = 0.into();
            self.occ_e.d.next = 0.into();
            self.c1_v.d.next = false;
            self.c2_v.d.next = false;
            self.c3_v.d.next = false;
            self.c4_v.d.next = false;
            self.ji_wr.d.next = 0.into();
            self.ji_rd.d.next = 0.into();
            self.je_wr.d.next = 0.into();
            self.je_rd.d.next = 0.into();
            self.i_busy.d.next = false;
            self.tv.d.next = false;
            self.h_v.d.next = false;
            self.pv.d.next = false;
            self.pf_last.d.next = 0x1FFF_FFFF.into(); // no line hinted yet
            self.lb_out.d.next = 0.into();
            self.lb_wr.d.next = 0.into();
            self.lb_rd.d.next = 0.into();
            self.e_act.d.next = false;
            self.ov.d.next = false;
        }
    }
}
