//! `ReqSetup`: the per-job arithmetic of `ReqGen` (hw/src/transport/req_gen.rs),
//! a chain of registers over the job's fields as `ReqGen` holds them: every
//! output is a register, valid [`REQ_SETUP_PHASES`] cycles after the inputs
//! last changed (each phase's registers are recomputed every cycle from the
//! previous phase's). Each phase is at most a 36-bit add or compare, or a
//! 64-bit add, and a mux; the PMTU is one of five fixed shifts (a 5-way mux).
//!
//! 1. PMTU, SGE lengths (zero past NUM_SGE), partial sums, the resume offset
//!    `k << log2(pmtu)`, the kind, the next non-zero SGE after each SGE.
//! 2. The message length (`len`); where SGE 3 starts.
//! 3. len + pmtu - 1; the offset against the SGE boundaries; a READ's
//!    resumed RETH (`rva_at`, `rlen`); the last packet's length.
//! 4. The packet count (`npkts`), the starting SGE (`sge`), the verdict (`err`).
//! 5. The offset in the starting SGE, packets left (`left`), the end PSN.
//! 6. The walk's start (`sge_rem`, `va`, `next_sge`), the last PSN, the
//!    "one/two left" flags of the packet count and the budget.

use super::{REQ_ATOMIC_LEN, REQ_MAX_MESSAGE_LEN, REQ_PKT_BITS, REQ_PSN_BITS, REQ_SETUP_PHASES};
use crate::consts::*;
use crate::prim::Reg;
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Bits of the message-length arithmetic: four 32-bit SGE lengths summed,
/// and `pkt_index << 12`.
pub const LW: usize = 36;
const _: () = assert!(REQ_PKT_BITS + 12 == LW && REQ_SETUP_PHASES == 6);

#[derive(LogicBlock)]
pub struct ReqSetup {
    pub clock: Signal<In, Clock>,
    pub pmtu: Signal<In, Bits<3>>,
    pub opcode: Signal<In, Bits<8>>,
    pub is_inline: Signal<In, Bit>,
    pub num_sge: Signal<In, Bits<8>>,
    pub sges: Signal<In, Bits<512>>,
    pub psn: Signal<In, Bits<REQ_PSN_BITS>>,
    pub k: Signal<In, Bits<REQ_PKT_BITS>>,
    pub budget: Signal<In, Bits<REQ_PKT_BITS>>,
    pub rva: Signal<In, Bits<64>>,
    pub pmtu_bytes: Signal<Out, Bits<13>>,
    pub send: Signal<Out, Bit>,
    pub write: Signal<Out, Bit>,
    pub read: Signal<Out, Bit>,
    pub cas: Signal<Out, Bit>,
    pub faa: Signal<Out, Bit>,
    pub imm: Signal<Out, Bit>,
    pub first: Signal<Out, Bit>,
    pub nxt: Signal<Out, Bits<8>>,
    pub len: Signal<Out, Bits<LW>>,
    pub rlen: Signal<Out, Bits<32>>,
    pub rva_at: Signal<Out, Bits<64>>,
    pub zero: Signal<Out, Bit>,
    pub err: Signal<Out, Bits<2>>,
    pub npkts: Signal<Out, Bits<REQ_PKT_BITS>>,
    pub sge: Signal<Out, Bits<2>>,
    pub tail: Signal<Out, Bits<13>>,
    pub end_psn: Signal<Out, Bits<REQ_PSN_BITS>>,
    pub left: Signal<Out, Bits<REQ_PKT_BITS>>,
    pub budget1: Signal<Out, Bit>,
    pub budget2: Signal<Out, Bit>,
    pub last_psn: Signal<Out, Bits<REQ_PSN_BITS>>,
    pub left1: Signal<Out, Bit>,
    pub left2: Signal<Out, Bit>,
    pub next_sge: Signal<Out, Bits<2>>,
    pub sge_rem: Signal<Out, Bits<32>>,
    pub va: Signal<Out, Bits<64>>,
    u_pmtu: Reg<Bits<13>>,
    u_mask: Reg<Bits<LW>>,
    u_l0: Reg<Bits<LW>>,
    u_l1: Reg<Bits<LW>>,
    u_l2: Reg<Bits<LW>>,
    u_s01: Reg<Bits<LW>>,
    u_s23: Reg<Bits<LW>>,
    u_off: Reg<Bits<LW>>,
    u_first_psn: Reg<Bits<REQ_PSN_BITS>>,
    u_send: Reg<Bit>,
    u_write: Reg<Bit>,
    u_read: Reg<Bit>,
    u_cas: Reg<Bit>,
    u_faa: Reg<Bit>,
    u_imm: Reg<Bit>,
    u_bad: Reg<Bit>,
    u_first: Reg<Bit>,
    u_nxt: Reg<Bits<8>>,
    v_tot: Reg<Bits<LW>>,
    v_c3: Reg<Bits<LW>>,
    w_tsum: Reg<Bits<LW>>,
    w_ge1: Reg<Bit>,
    w_ge2: Reg<Bit>,
    w_ge3: Reg<Bit>,
    w_too_long: Reg<Bit>,
    w_tail: Reg<Bits<13>>,
    w_zero: Reg<Bit>,
    w_rva: Reg<Bits<64>>,
    w_rlen: Reg<Bits<32>>,
    x_np: Reg<Bits<REQ_PKT_BITS>>,
    x_sel: Reg<Bits<2>>,
    x_csel: Reg<Bits<LW>>,
    x_tail: Reg<Bits<13>>,
    x_err: Reg<Bits<2>>,
    y_offin: Reg<Bits<LW>>,
    y_left: Reg<Bits<REQ_PKT_BITS>>,
    y_end: Reg<Bits<REQ_PSN_BITS>>,
    z_rem: Reg<Bits<32>>,
    z_va: Reg<Bits<64>>,
    z_last_psn: Reg<Bits<REQ_PSN_BITS>>,
    z_left1: Reg<Bit>,
    z_left2: Reg<Bit>,
    z_b1: Reg<Bit>,
    z_b2: Reg<Bit>,
    z_nx: Reg<Bits<2>>,
    max_len: Constant<Bits<LW>>,
    atomic_len: Constant<Bits<32>>,
    one_pkt: Constant<Bits<REQ_PKT_BITS>>,
    two_pkts: Constant<Bits<REQ_PKT_BITS>>,
    all3: Constant<Bits<4>>,
    kx: Signal<Local, Bits<LW>>,
    atomic_ok: Signal<Local, Bit>,
    pmtu_ok: Signal<Local, Bit>,
    rd_len: Signal<Local, Bits<LW>>,
    sel_len: Signal<Local, Bits<32>>,
    sel_addr: Signal<Local, Bits<64>>,
    pmtu_b: Signal<Local, Bits<13>>,
    mask: Signal<Local, Bits<13>>,
    nxt0: Signal<Local, Bits<2>>,
    nxt1: Signal<Local, Bits<2>>,
    l0: Signal<Local, Bits<LW>>,
    l1: Signal<Local, Bits<LW>>,
    l2: Signal<Local, Bits<LW>>,
    len3: Signal<Local, Bits<LW>>,
    kind: TypeTag<Self>,
}

impl Default for ReqSetup {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            pmtu: Default::default(),
            opcode: Default::default(),
            is_inline: Default::default(),
            num_sge: Default::default(),
            sges: Default::default(),
            psn: Default::default(),
            k: Default::default(),
            budget: Default::default(),
            rva: Default::default(),
            pmtu_bytes: Default::default(),
            send: Default::default(),
            write: Default::default(),
            read: Default::default(),
            cas: Default::default(),
            faa: Default::default(),
            imm: Default::default(),
            first: Default::default(),
            nxt: Default::default(),
            len: Default::default(),
            rlen: Default::default(),
            rva_at: Default::default(),
            zero: Default::default(),
            err: Default::default(),
            npkts: Default::default(),
            sge: Default::default(),
            tail: Default::default(),
            end_psn: Default::default(),
            left: Default::default(),
            budget1: Default::default(),
            budget2: Default::default(),
            last_psn: Default::default(),
            left1: Default::default(),
            left2: Default::default(),
            next_sge: Default::default(),
            sge_rem: Default::default(),
            va: Default::default(),
            u_pmtu: Default::default(),
            u_mask: Default::default(),
            u_l0: Default::default(),
            u_l1: Default::default(),
            u_l2: Default::default(),
            u_s01: Default::default(),
            u_s23: Default::default(),
            u_off: Default::default(),
            u_first_psn: Default::default(),
            u_send: Default::default(),
            u_write: Default::default(),
            u_read: Default::default(),
            u_cas: Default::default(),
            u_faa: Default::default(),
            u_imm: Default::default(),
            u_bad: Default::default(),
            u_first: Default::default(),
            u_nxt: Default::default(),
            v_tot: Default::default(),
            v_c3: Default::default(),
            w_tsum: Default::default(),
            w_ge1: Default::default(),
            w_ge2: Default::default(),
            w_ge3: Default::default(),
            w_too_long: Default::default(),
            w_tail: Default::default(),
            w_zero: Default::default(),
            w_rva: Default::default(),
            w_rlen: Default::default(),
            x_np: Default::default(),
            x_sel: Default::default(),
            x_csel: Default::default(),
            x_tail: Default::default(),
            x_err: Default::default(),
            y_offin: Default::default(),
            y_left: Default::default(),
            y_end: Default::default(),
            z_rem: Default::default(),
            z_va: Default::default(),
            z_last_psn: Default::default(),
            z_left1: Default::default(),
            z_left2: Default::default(),
            z_b1: Default::default(),
            z_b2: Default::default(),
            z_nx: Default::default(),
            max_len: Constant::new(REQ_MAX_MESSAGE_LEN.into()),
            atomic_len: Constant::new(REQ_ATOMIC_LEN.into()),
            one_pkt: Constant::new(1u64.into()),
            two_pkts: Constant::new(2u64.into()),
            all3: Constant::new(15u64.into()),
            kx: Default::default(),
            atomic_ok: Default::default(),
            pmtu_ok: Default::default(),
            rd_len: Default::default(),
            sel_len: Default::default(),
            sel_addr: Default::default(),
            pmtu_b: Default::default(),
            mask: Default::default(),
            nxt0: Default::default(),
            nxt1: Default::default(),
            l0: Default::default(),
            l1: Default::default(),
            l2: Default::default(),
            len3: Default::default(),
            kind: Default::default(),
        }
    }
}

impl Logic for ReqSetup {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self,
            clock,
            u_pmtu,
            u_mask,
            u_l0,
            u_l1,
            u_l2,
            u_s01,
            u_s23,
            u_off,
            u_first_psn,
            u_send,
            u_write,
            u_read,
            u_cas,
            u_faa,
            u_imm,
            u_bad,
            u_first,
            u_nxt,
            v_tot,
            v_c3,
            w_tsum,
            w_ge1,
            w_ge2,
            w_ge3,
            w_too_long,
            w_tail,
            w_zero,
            w_rva,
            w_rlen,
            x_np,
            x_sel,
            x_csel,
            x_tail,
            x_err,
            y_offin,
            y_left,
            y_end,
            z_rem,
            z_va,
            z_last_psn,
            z_left1,
            z_left2,
            z_b1,
            z_b2,
            z_nx
        );

        // ---- phase 1: PMTU, SGE lengths (zero past NUM_SGE), partial sums, the resume offset, the kind
        self.kx.next = bit_cast::<LW, REQ_PKT_BITS>(self.k.val());
        self.pmtu_ok.next = true;
        self.pmtu_b.next = 256.into();
        self.u_off.d.next = self.kx.val() << 8;
        if self.pmtu.val() == MTU_512 {
            self.pmtu_b.next = 512.into();
            self.u_off.d.next = self.kx.val() << 9;
        } else if self.pmtu.val() == MTU_1024 {
            self.pmtu_b.next = 1024.into();
            self.u_off.d.next = self.kx.val() << 10;
        } else if self.pmtu.val() == MTU_2048 {
            self.pmtu_b.next = 2048.into();
            self.u_off.d.next = self.kx.val() << 11;
        } else if self.pmtu.val() == MTU_4096 {
            self.pmtu_b.next = 4096.into();
            self.u_off.d.next = self.kx.val() << 12;
        } else if self.pmtu.val() != MTU_256 {
            self.pmtu_ok.next = false;
        }
        self.u_pmtu.d.next = self.pmtu_b.val();
        self.mask.next = self.pmtu_b.val() - 1;
        self.u_mask.d.next = bit_cast::<LW, 13>(self.mask.val());
        self.l0.next = 0.into();
        self.l1.next = 0.into();
        self.l2.next = 0.into();
        self.len3.next = 0.into();
        if self.num_sge.val() > 0 {
            self.l0.next = bit_cast::<LW, 32>(self.sges.val().get_bits::<32>(SGE_LEN));
        }
        if self.num_sge.val() > 1 {
            self.l1.next = bit_cast::<LW, 32>(self.sges.val().get_bits::<32>(SGE_LEN + SGE_BITS));
        }
        if self.num_sge.val() > 2 {
            self.l2.next = bit_cast::<LW, 32>(self.sges.val().get_bits::<32>(SGE_LEN + 2 * SGE_BITS));
        }
        if self.num_sge.val() > 3 {
            self.len3.next = bit_cast::<LW, 32>(self.sges.val().get_bits::<32>(SGE_LEN + 3 * SGE_BITS));
        }
        self.u_l0.d.next = self.l0.val();
        self.u_l1.d.next = self.l1.val();
        self.u_l2.d.next = self.l2.val();
        self.u_s01.d.next = self.l0.val() + self.l1.val();
        self.u_s23.d.next = self.l2.val() + self.len3.val();
        // the next non-zero SGE after SGE i, in bits 2i+1..2i (3 when none)
        self.nxt0.next = 3.into();
        if self.l1.val().any() {
            self.nxt0.next = 1.into();
        } else if self.l2.val().any() {
            self.nxt0.next = 2.into();
        }
        self.nxt1.next = 3.into();
        if self.l2.val().any() {
            self.nxt1.next = 2.into();
        }
        self.u_nxt.d.next = (bit_cast::<8, 4>(self.all3.val()) << 4)
            | (bit_cast::<8, 2>(self.nxt1.val()) << 2)
            | bit_cast::<8, 2>(self.nxt0.val());
        self.u_first_psn.d.next = self.psn.val() - bit_cast::<REQ_PSN_BITS, REQ_PKT_BITS>(self.k.val());
        self.u_first.d.next = !self.k.val().any();
        self.u_send.d.next = (self.opcode.val() == SOP_SEND) | (self.opcode.val() == SOP_SEND_IMM);
        self.u_write.d.next = (self.opcode.val() == SOP_RDMA_WRITE) | (self.opcode.val() == SOP_RDMA_WRITE_IMM);
        self.u_read.d.next = self.opcode.val() == SOP_RDMA_READ;
        self.u_cas.d.next = self.opcode.val() == SOP_CMP_SWAP;
        self.u_faa.d.next = self.opcode.val() == SOP_FETCH_ADD;
        self.u_imm.d.next = (self.opcode.val() == SOP_SEND_IMM) | (self.opcode.val() == SOP_RDMA_WRITE_IMM);
        self.atomic_ok.next =
            (self.num_sge.val() == 1) & (self.sges.val().get_bits::<32>(SGE_LEN) == self.atomic_len.val());
        self.u_bad.d.next = (self.opcode.val() > SOP_FETCH_ADD)
            | (self.num_sge.val() > 4)
            | !self.pmtu_ok.val()
            | (((self.opcode.val() == SOP_CMP_SWAP) | (self.opcode.val() == SOP_FETCH_ADD)) & !self.atomic_ok.val());

        // ---- phase 2: the message length; where SGE 3 starts
        self.v_tot.d.next = self.u_s01.q.val() + self.u_s23.q.val();
        self.v_c3.d.next = self.u_s01.q.val() + self.u_l2.q.val();

        // ---- phase 3: rounded up for the packet count; the SGE a resume starts in; the last packet's
        // length; a READ's resumed RETH
        self.w_tsum.d.next = self.v_tot.q.val() + self.u_mask.q.val();
        self.w_ge1.d.next = self.u_off.q.val() >= self.u_l0.q.val();
        self.w_ge2.d.next = self.u_off.q.val() >= self.u_s01.q.val();
        self.w_ge3.d.next = self.u_off.q.val() >= self.v_c3.q.val();
        self.w_too_long.d.next = self.v_tot.q.val() > self.max_len.val();
        self.w_tail.d.next = self.v_tot.q.val().get_bits::<13>(0) & self.u_mask.q.val().get_bits::<13>(0);
        self.w_zero.d.next = !self.v_tot.q.val().any();
        self.w_rva.d.next = self.rva.val() + self.u_off.q.val().get_bits::<64>(0);
        self.rd_len.next = self.v_tot.q.val() - self.u_off.q.val();
        self.w_rlen.d.next = self.rd_len.val().get_bits::<32>(0);

        // ---- phase 4: packets, the starting SGE, the last packet's length, the verdict
        self.x_np.d.next = self.w_tsum.q.val().get_bits::<24>(8);
        if self.u_pmtu.q.val() == 512 {
            self.x_np.d.next = self.w_tsum.q.val().get_bits::<24>(9);
        } else if self.u_pmtu.q.val() == 1024 {
            self.x_np.d.next = self.w_tsum.q.val().get_bits::<24>(10);
        } else if self.u_pmtu.q.val() == 2048 {
            self.x_np.d.next = self.w_tsum.q.val().get_bits::<24>(11);
        } else if self.u_pmtu.q.val() == 4096 {
            self.x_np.d.next = self.w_tsum.q.val().get_bits::<24>(12);
        }
        if self.w_zero.q.val() | self.u_cas.q.val() | self.u_faa.q.val() {
            self.x_np.d.next = 1.into();
        }
        self.x_sel.d.next = 0.into();
        self.x_csel.d.next = 0.into();
        if self.w_ge3.q.val() {
            self.x_sel.d.next = 3.into();
            self.x_csel.d.next = self.v_c3.q.val();
        } else if self.w_ge2.q.val() {
            self.x_sel.d.next = 2.into();
            self.x_csel.d.next = self.u_s01.q.val();
        } else if self.w_ge1.q.val() {
            self.x_sel.d.next = 1.into();
            self.x_csel.d.next = self.u_l0.q.val();
        }
        self.x_tail.d.next = self.w_tail.q.val();
        if !self.w_tail.q.val().any() {
            self.x_tail.d.next = self.u_pmtu.q.val();
        }
        self.x_err.d.next = REQ_ERR_NONE.into();
        if self.is_inline.val() {
            self.x_err.d.next = REQ_ERR_INLINE.into();
        } else if self.u_bad.q.val() {
            self.x_err.d.next = REQ_ERR_BAD_WQE.into();
        } else if self.w_too_long.q.val() & !self.u_cas.q.val() & !self.u_faa.q.val() {
            self.x_err.d.next = REQ_ERR_TOO_LONG.into();
        }

        // ---- phase 5: the offset in the starting SGE, packets left, the end PSN
        self.y_offin.d.next = self.u_off.q.val() - self.x_csel.q.val();
        self.y_left.d.next = self.x_np.q.val() - self.k.val();
        self.y_end.d.next = self.u_first_psn.q.val() + bit_cast::<REQ_PSN_BITS, REQ_PKT_BITS>(self.x_np.q.val());

        // ---- phase 6: the walk's start, the last PSN, the count flags
        self.sel_len.next = self.sges.val().get_bits::<32>(SGE_LEN);
        self.sel_addr.next = self.sges.val().get_bits::<64>(SGE_ADDR);
        self.z_nx.d.next = self.u_nxt.q.val().get_bits::<2>(0);
        if self.x_sel.q.val() == 1 {
            self.sel_len.next = self.sges.val().get_bits::<32>(SGE_LEN + SGE_BITS);
            self.sel_addr.next = self.sges.val().get_bits::<64>(SGE_ADDR + SGE_BITS);
            self.z_nx.d.next = self.u_nxt.q.val().get_bits::<2>(2);
        } else if self.x_sel.q.val() == 2 {
            self.sel_len.next = self.sges.val().get_bits::<32>(SGE_LEN + 2 * SGE_BITS);
            self.sel_addr.next = self.sges.val().get_bits::<64>(SGE_ADDR + 2 * SGE_BITS);
            self.z_nx.d.next = self.u_nxt.q.val().get_bits::<2>(4);
        } else if self.x_sel.q.val() == 3 {
            self.sel_len.next = self.sges.val().get_bits::<32>(SGE_LEN + 3 * SGE_BITS);
            self.sel_addr.next = self.sges.val().get_bits::<64>(SGE_ADDR + 3 * SGE_BITS);
            self.z_nx.d.next = self.u_nxt.q.val().get_bits::<2>(6);
        }
        self.z_rem.d.next = self.sel_len.val() - self.y_offin.q.val().get_bits::<32>(0);
        self.z_va.d.next = self.sel_addr.val() + bit_cast::<64, LW>(self.y_offin.q.val());
        self.z_last_psn.d.next = self.y_end.q.val() - 1;
        self.z_left1.d.next = self.y_left.q.val() == self.one_pkt.val();
        self.z_left2.d.next = self.y_left.q.val() == self.two_pkts.val();
        self.z_b1.d.next = self.budget.val() <= self.one_pkt.val();
        self.z_b2.d.next = self.budget.val() == self.two_pkts.val();

        self.pmtu_bytes.next = self.u_pmtu.q.val();
        self.send.next = self.u_send.q.val();
        self.write.next = self.u_write.q.val();
        self.read.next = self.u_read.q.val();
        self.cas.next = self.u_cas.q.val();
        self.faa.next = self.u_faa.q.val();
        self.imm.next = self.u_imm.q.val();
        self.first.next = self.u_first.q.val();
        self.nxt.next = self.u_nxt.q.val();
        self.len.next = self.v_tot.q.val();
        self.rlen.next = self.w_rlen.q.val();
        self.rva_at.next = self.w_rva.q.val();
        self.zero.next = self.w_zero.q.val();
        self.err.next = self.x_err.q.val();
        self.npkts.next = self.x_np.q.val();
        self.sge.next = self.x_sel.q.val();
        self.tail.next = self.x_tail.q.val();
        self.end_psn.next = self.y_end.q.val();
        self.left.next = self.y_left.q.val();
        self.budget1.next = self.z_b1.q.val();
        self.budget2.next = self.z_b2.q.val();
        self.last_psn.next = self.z_last_psn.q.val();
        self.left1.next = self.z_left1.q.val();
        self.left2.next = self.z_left2.q.val();
        self.next_sge.next = self.z_nx.q.val();
        self.sge_rem.next = self.z_rem.q.val();
        self.va.next = self.z_va.q.val();
    }
}
