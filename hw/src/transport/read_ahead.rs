//! `ReadAhead`: the scatter lists of the READs and atomics in flight, kept
//! on chip from their send (child of [`ReadWalk`](super::ReadWalk); docs/
//! transport_blocks.md, "`read_ahead`"). The completer places a READ
//! response (or an atomic ACK's value) over its WQE's local SGEs; without
//! this block `ReadWalk` reads the WQE again from the send ring for every
//! READ's first response, a DMA round trip (about 250 cycles) with the
//! completer's walk held, and over many QPs the WQEs it held or prefetched
//! were of other QPs. `ReqGen` had the SGEs in hand when it sent the
//! request: it puts them here (`s_put`), and the walk of the READ's first
//! response looks them up (`look`) before it reads.
//!
//! | port | dir | what |
//! |---|---|---|
//! | `s_put` ([`ReadWqeIn`]) | in | a READ (of non-zero length) or atomic WQE sent for the first time: `qpn`, SQ `index`, `num` (NUM_SGE), `sges` (the SGES field, 512 bits); a pulse, no `ready`: dropped while the put before it is being placed ([`READ_AHEAD_PUT_GAP`] cycles) or when no slot is free, but even then every slot its tag matches is freed |
//! | `look` + `look_qpn`, `look_index` | in | a pulse: find WQE {`look_qpn`, `look_index`} |
//! | `found` + `f_hit`, `f_num`, `f_sges` | out | the answer, [`READ_AHEAD_LATENCY`] cycles after `look`, from registers: `f_hit` and the WQE's fields when a slot held it. A look frees every slot its tag matches |
//! | `inval` | in | a pulse: a QP context was loaded or invalidated; every slot is freed, a put or look under way forgotten (a look answers no hit) |
//!
//! **Slots.** [`READ_AHEAD_SLOTS`] short tags in registers with a valid
//! bit each (QPN[7:0] and index[7:0]: [`READ_AHEAD_TAG_BITS`], so the two
//! compares per slot cost 16 bits, not 40), the WQEs in one LUTRAM (32 x
//! 560 bits: the full tag {QPN, index}, NUM_SGE, SGES). A slot's short tag
//! "matches" a WQE's when equal; two WQEs may share one. A put takes the
//! lowest slot it matches, else the lowest free one, and frees every other
//! it matches: so no slot keeps a WQE of an earlier lap of the ring (the
//! WQE sent at that index since replaced it), nor any other WQE of its
//! short tag. A put at t is registered with its matches; at t + 1 its slot
//! is chosen (registered, one-hot and number); at t + 2 it is written. A
//! look at t registers its matches and full tag; at t + 1 the lowest match
//! is encoded and every match freed; at t + 2 the LUTRAM is read into the
//! answer registers, a hit only if the word's full tag is the look's:
//! `found` at t + 3. A short tag shared costs a miss, never a wrong WQE.
//!
//! **Why a slot stays valid.** A WQE stays in the send ring, unchanged,
//! until its completion, and a READ's or atomic's completes only after its
//! first response was placed, which is the look that frees its slot. A
//! slot whose WQE never gets its response (the QP went to error and its
//! WQEs were flushed) stays until the QP's context is loaded again
//! (`inval`: the driver's modify to RESET) or until a put of the same tag
//! replaces it. Every READ with data and every atomic is put, so a look
//! never finds another lap's WQE. Puts are at most one per job of
//! `ReqGen`, several cycles apart; a dropped put costs the read this block
//! saves, nothing else.

use crate::consts::*;
use crate::prim::{LutRam, Reg};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// log2 of the slots.
pub const READ_AHEAD_LOG: usize = 5;
/// WQEs held at most.
pub const READ_AHEAD_SLOTS: usize = 1 << READ_AHEAD_LOG;
/// Cycles from `look` to `found`.
pub const READ_AHEAD_LATENCY: u64 = 3;
/// Cycles after a put in which a put is dropped (its slot being chosen and written).
pub const READ_AHEAD_PUT_GAP: u64 = 2;
/// Bits of a slot's short tag: QPN[7:0], index[7:0].
pub const READ_AHEAD_TAG_BITS: usize = 16;
/// Bits of a slot's word: the full tag {QPN, index} (40), NUM_SGE (8), the SGES field (512).
const WORD: usize = 40 + 8 + 512;
const T: usize = READ_AHEAD_TAG_BITS;

/// A READ's or atomic's WQE as `ReqGen` sent it (`s_put` of [`ReadAhead`]).
#[derive(LogicInterface, Default)]
#[join = "ReadWqeIn"]
pub struct ReadWqeOut {
    pub qpn: Signal<Out, Bits<24>>,
    pub index: Signal<Out, Bits<16>>,
    pub num: Signal<Out, Bits<8>>,
    pub sges: Signal<Out, Bits<512>>,
    pub valid: Signal<Out, Bit>,
}

#[derive(LogicInterface, Default)]
#[join = "ReadWqeOut"]
pub struct ReadWqeIn {
    pub qpn: Signal<In, Bits<24>>,
    pub index: Signal<In, Bits<16>>,
    pub num: Signal<In, Bits<8>>,
    pub sges: Signal<In, Bits<512>>,
    pub valid: Signal<In, Bit>,
}

#[derive(LogicBlock, Default)]
pub struct ReadAhead {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_put: ReadWqeIn,
    pub look: Signal<In, Bit>,
    pub look_qpn: Signal<In, Bits<24>>,
    pub look_index: Signal<In, Bits<16>>,
    pub found: Signal<Out, Bit>,
    pub f_hit: Signal<Out, Bit>,
    pub f_num: Signal<Out, Bits<8>>,
    pub f_sges: Signal<Out, Bits<512>>,
    pub inval: Signal<In, Bit>,
    ram: LutRam<Bits<WORD>, READ_AHEAD_LOG>,
    tag: [Reg<Bits<T>>; READ_AHEAD_SLOTS],
    tagv: Reg<Bits<READ_AHEAD_SLOTS>>,
    // ---- the put: its word, short tag and matches; then its slot
    p_v: Reg<Bit>,
    p_tag: Reg<Bits<T>>,
    p_word: Reg<Bits<WORD>>,
    p_m: Reg<Bits<READ_AHEAD_SLOTS>>,
    /// `p_m` has a slot (registered with it: the slot's choice is one OR shorter).
    p_many: Reg<Bit>,
    /// A put dropped while busy: the slots it matched, freed.
    k_m: Reg<Bits<READ_AHEAD_SLOTS>>,
    w_v: Reg<Bit>,
    w_one: Reg<Bits<READ_AHEAD_SLOTS>>,
    w_slot: Reg<Bits<READ_AHEAD_LOG>>,
    w_clr: Reg<Bits<READ_AHEAD_SLOTS>>,
    // ---- the look: its matches, then the slot, then the answer
    l_v: Reg<Bit>,
    l_m: Reg<Bits<READ_AHEAD_SLOTS>>,
    l_full: Reg<Bits<40>>,
    s_v: Reg<Bit>,
    s_hit: Reg<Bit>,
    s_slot: Reg<Bits<READ_AHEAD_LOG>>,
    s_full: Reg<Bits<40>>,
    f_v: Reg<Bit>,
    f_h: Reg<Bit>,
    f_word: Reg<Bits<WORD>>,
    // ---- locals
    put_full: Signal<Local, Bits<40>>,
    look_full: Signal<Local, Bits<40>>,
    put_tag: Signal<Local, Bits<T>>,
    look_tag: Signal<Local, Bits<T>>,
    busy: Signal<Local, Bit>,
    pm: Signal<Local, Bits<READ_AHEAD_SLOTS>>,
    lm: Signal<Local, Bits<READ_AHEAD_SLOTS>>,
    free: Signal<Local, Bits<READ_AHEAD_SLOTS>>,
    cand: Signal<Local, Bits<READ_AHEAD_SLOTS>>,
    p_one: Signal<Local, Bits<READ_AHEAD_SLOTS>>,
    l_one: Signal<Local, Bits<READ_AHEAD_SLOTS>>,
    p_slot: Signal<Local, Bits<READ_AHEAD_LOG>>,
    p_go: Signal<Local, Bit>,
    tagv_n: Signal<Local, Bits<READ_AHEAD_SLOTS>>,
    kind: TypeTag<Self>,
}

impl Logic for ReadAhead {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, tagv, p_v, p_tag, p_word, p_m, p_many, k_m, w_v, w_one, w_slot, w_clr, l_v, l_m, l_full, s_v,
            s_hit, s_slot, s_full, f_v, f_h, f_word
        );
        clock!(self, clock, ram);
        for k in 0..READ_AHEAD_SLOTS {
            self.tag[k].clock.next = self.clock.val();
            self.tag[k].d.next = self.tag[k].q.val();
        }

        // ---- the slots a put and a look match (registered with them)
        self.put_full.next =
            bit_cast::<40, 24>(self.s_put.qpn.val()) | (bit_cast::<40, 16>(self.s_put.index.val()) << 24);
        self.look_full.next =
            bit_cast::<40, 24>(self.look_qpn.val()) | (bit_cast::<40, 16>(self.look_index.val()) << 24);
        self.put_tag.next = bit_cast::<T, 8>(self.s_put.qpn.val().get_bits::<8>(0))
            | (bit_cast::<T, 8>(self.s_put.index.val().get_bits::<8>(0)) << 8);
        self.look_tag.next = bit_cast::<T, 8>(self.look_qpn.val().get_bits::<8>(0))
            | (bit_cast::<T, 8>(self.look_index.val().get_bits::<8>(0)) << 8);
        self.pm.next = 0.into();
        self.lm.next = 0.into();
        for k in 0..READ_AHEAD_SLOTS {
            self.pm.next = self.pm.val().replace_bit(k, self.tag[k].q.val() == self.put_tag.val());
            self.lm.next = self.lm.val().replace_bit(k, self.tag[k].q.val() == self.look_tag.val());
        }
        // (busy: a put being placed; a put then is dropped, its matches freed)
        self.busy.next = self.p_v.q.val() | self.w_v.q.val();
        self.p_v.d.next = self.s_put.valid.val() & !self.busy.val() & !self.inval.val();
        if self.s_put.valid.val() & !self.busy.val() {
            self.p_tag.d.next = self.put_tag.val();
            self.p_word.d.next = bit_cast::<WORD, 40>(self.put_full.val())
                | (bit_cast::<WORD, 8>(self.s_put.num.val()) << 40)
                | (bit_cast::<WORD, 512>(self.s_put.sges.val()) << 48);
            self.p_m.d.next = self.pm.val() & self.tagv.q.val();
            self.p_many.d.next = (self.pm.val() & self.tagv.q.val()).any();
        }
        self.k_m.d.next = 0.into();
        if self.s_put.valid.val() & self.busy.val() {
            self.k_m.d.next = self.pm.val() & self.tagv.q.val();
        }
        self.l_v.d.next = self.look.val();
        self.l_m.d.next = self.lm.val() & self.tagv.q.val();
        self.l_full.d.next = self.look_full.val();

        // ---- the put's slot: the lowest it matches, else the lowest free (registered)
        self.free.next = !self.tagv.q.val();
        self.cand.next = self.free.val();
        if self.p_many.q.val() {
            self.cand.next = self.p_m.q.val();
        }
        self.p_one.next = self.cand.val() & (!self.cand.val() + 1);
        self.p_slot.next = bit_cast::<READ_AHEAD_LOG, 1>((self.p_one.val() & RA_ENC0).any().into())
            | (bit_cast::<READ_AHEAD_LOG, 1>((self.p_one.val() & RA_ENC1).any().into()) << 1)
            | (bit_cast::<READ_AHEAD_LOG, 1>((self.p_one.val() & RA_ENC2).any().into()) << 2)
            | (bit_cast::<READ_AHEAD_LOG, 1>((self.p_one.val() & RA_ENC3).any().into()) << 3)
            | (bit_cast::<READ_AHEAD_LOG, 1>((self.p_one.val() & RA_ENC4).any().into()) << 4);
        self.w_v.d.next = self.p_v.q.val() & self.cand.val().any() & !self.inval.val();
        self.w_one.d.next = self.p_one.val();
        self.w_slot.d.next = self.p_slot.val();
        // (the other slots it matches are freed with the write)
        self.w_clr.d.next = self.p_m.q.val() & !self.p_one.val();
        if !self.p_v.q.val() {
            self.w_clr.d.next = 0.into();
        }
        // ---- the put's write
        self.p_go.next = self.w_v.q.val() & !self.inval.val();
        self.ram.write_addr.next = self.w_slot.q.val();
        self.ram.write_data.next = self.p_word.q.val();
        self.ram.write_enable.next = self.p_go.val();
        for k in 0..READ_AHEAD_SLOTS {
            if self.p_go.val() & self.w_one.q.val().get_bit(k) {
                self.tag[k].d.next = self.p_tag.q.val();
            }
        }

        // ---- the look's slot: the lowest match; every match is freed
        self.l_one.next = self.l_m.q.val() & (!self.l_m.q.val() + 1);
        self.s_v.d.next = self.l_v.q.val();
        if self.l_v.q.val() {
            self.s_hit.d.next = self.l_m.q.val().any() & !self.inval.val();
            self.s_full.d.next = self.l_full.q.val();
            self.s_slot.d.next = bit_cast::<READ_AHEAD_LOG, 1>((self.l_one.val() & RA_ENC0).any().into())
                | (bit_cast::<READ_AHEAD_LOG, 1>((self.l_one.val() & RA_ENC1).any().into()) << 1)
                | (bit_cast::<READ_AHEAD_LOG, 1>((self.l_one.val() & RA_ENC2).any().into()) << 2)
                | (bit_cast::<READ_AHEAD_LOG, 1>((self.l_one.val() & RA_ENC3).any().into()) << 3)
                | (bit_cast::<READ_AHEAD_LOG, 1>((self.l_one.val() & RA_ENC4).any().into()) << 4);
        }
        self.tagv_n.next = self.tagv.q.val() & !self.k_m.q.val() & !self.w_clr.q.val();
        if self.l_v.q.val() {
            self.tagv_n.next = self.tagv_n.val() & !self.l_m.q.val();
        }
        if self.p_go.val() {
            self.tagv_n.next = self.tagv_n.val() | self.w_one.q.val();
        }
        self.tagv.d.next = self.tagv_n.val();
        if self.inval.val() {
            self.tagv.d.next = 0.into();
            self.l_m.d.next = 0.into();
        }

        // ---- the answer: the slot's word, from registers
        self.ram.read_addr.next = self.s_slot.q.val();
        self.f_v.d.next = self.s_v.q.val();
        if self.s_v.q.val() {
            // (a hit only when the word is the look's WQE: a short tag may be shared)
            self.f_h.d.next = self.s_hit.q.val()
                & !self.inval.val()
                & (self.ram.read_data.val().get_bits::<40>(0) == self.s_full.q.val());
            self.f_word.d.next = self.ram.read_data.val();
        }
        self.found.next = self.f_v.q.val();
        self.f_hit.next = self.f_h.q.val();
        self.f_num.next = self.f_word.q.val().get_bits::<8>(40);
        self.f_sges.next = self.f_word.q.val().get_bits::<512>(48);

        if self.reset.val() {
            self.tagv.d.next = 0.into();
            self.p_v.d.next = false;
            self.w_v.d.next = false;
            self.k_m.d.next = 0.into();
            self.w_clr.d.next = 0.into();
            self.l_v.d.next = false;
            self.s_v.d.next = false;
            self.f_v.d.next = false;
        }
    }
}
