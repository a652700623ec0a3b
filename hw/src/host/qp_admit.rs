//! `QpAdmit`: whether the receive path delivers a packet to its QP, as
//! `rnic_contract::qp_modify::admit`: from whether the QPN names a QP, the
//! QP's state and type (raw, from its context) and the packet's BTH opcode,
//! `admit` and the `AdmitReason` code. Requests are admitted in RTR, RTS,
//! SQD and SQE, responses (READ responses, ACKs) in RTS and SQD; RESET and
//! INIT give QpNotReady, ERR QpError (but a record made on chip, `on_chip`,
//! is admitted in ERR, and a request for a QP whose completer is in error,
//! `comp_error`, is QpError: `record_admits`); an opcode of another transport
//! WrongQpType; a packet admitted otherwise whose P_Key does not match the
//! QP's (`pkey_ok` low, computed by the caller) BadPkey.
//!
//! Three small tables built from the contract at construction: the opcode's
//! response flag (256 bits), the type check by (type, opcode transport) (128
//! entries of 2 bits) and the state rule by (state, response, on chip,
//! completer in error) (128 entries of 4 bits). One result per cycle, registered: `out_*` follow `in_valid` by
//! one cycle. Counting drops by reason is left to the receive path's
//! integration (one counter per reason).

use crate::prim::Reg;
use hdl_emit::TypeTag;
use rnic_contract::codes::{QpState, QpType};
use rnic_contract::qp_modify::{is_response, opcode_service, record_admits, service_of, AdmitReason};
use rust_hdl::prelude::*;

// type check outcomes in `type_tbl`
const TYPE_OK: u64 = 0;
const TYPE_WRONG: u64 = 1;
const TYPE_BAD: u64 = 2;

#[derive(LogicBlock)]
pub struct QpAdmit {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub in_valid: Signal<In, Bit>,
    /// The QPN names a QP (within the table, not QP 0).
    pub qpn_ok: Signal<In, Bit>,
    /// The context's STATE and QP_TYPE fields.
    pub state: Signal<In, Bits<4>>,
    pub qp_type: Signal<In, Bits<4>>,
    /// The packet's BTH opcode.
    pub opcode: Signal<In, Bits<8>>,
    /// The packet's P_Key matches the QP's (`qp_modify::pkey_match`).
    pub pkey_ok: Signal<In, Bit>,
    /// The record was made on chip (a timer's expiry, a refused or flushed
    /// send WQE): admitted in ERR.
    pub on_chip: Signal<In, Bit>,
    /// The QP's completer is in error (`qps.COMP_ERROR`): requests are QpError.
    pub comp_error: Signal<In, Bit>,
    pub out_valid: Signal<Out, Bit>,
    pub admit: Signal<Out, Bit>,
    /// `AdmitReason` code.
    pub reason: Signal<Out, Bits<8>>,
    resp_tbl: Constant<Bits<256>>,
    type_tbl: Constant<Bits<256>>,
    state_tbl: Constant<Bits<512>>,
    c_type_wrong: Constant<Bits<2>>,
    c_type_bad: Constant<Bits<2>>,
    c_admit: Constant<Bits<8>>,
    c_bad_qpn: Constant<Bits<8>>,
    c_bad_context: Constant<Bits<8>>,
    c_wrong_type: Constant<Bits<8>>,
    c_bad_pkey: Constant<Bits<8>>,
    resp: Signal<Local, Bits<1>>,
    tcheck: Signal<Local, Bits<2>>,
    sidx: Signal<Local, Bits<7>>,
    srule: Signal<Local, Bits<4>>,
    why: Signal<Local, Bits<8>>,
    r_valid: Reg<Bit>,
    r_admit: Reg<Bit>,
    r_reason: Reg<Bits<8>>,
    kind: TypeTag<Self>,
}

fn table<const N: usize>(entries: usize, width: usize, f: impl Fn(usize) -> u64) -> Constant<Bits<N>> {
    assert!(entries * width <= N);
    let mut b = Bits::<N>::default();
    for e in 0..entries {
        let v = f(e);
        assert!(v < 1 << width);
        for j in 0..width {
            b = b.replace_bit(e * width + j, v >> j & 1 == 1);
        }
    }
    Constant::new(b)
}

impl Default for QpAdmit {
    fn default() -> Self {
        // index: type in bits 6:3, opcode transport in bits 2:0
        let type_tbl = table(128, 2, |i| match QpType::from_raw((i >> 3) as u64) {
            None => TYPE_BAD,
            Some(t) if service_of(t) != (i & 7) as u8 => TYPE_WRONG,
            Some(_) => TYPE_OK,
        });
        const _: () = assert!(opcode_service(0xFF) == 7);
        // index: state in bits 6:3, completer in error in bit 2, on chip in
        // bit 1, response in bit 0
        let state_tbl = table(128, 4, |i| match QpState::from_raw((i >> 3) as u64) {
            None => AdmitReason::BadContext as u64,
            Some(s) => record_admits(s, i & 1 == 1, i & 2 != 0, i & 4 != 0) as u64,
        });
        Self {
            clock: Default::default(),
            reset: Default::default(),
            in_valid: Default::default(),
            qpn_ok: Default::default(),
            state: Default::default(),
            qp_type: Default::default(),
            opcode: Default::default(),
            pkey_ok: Default::default(),
            on_chip: Default::default(),
            comp_error: Default::default(),
            out_valid: Default::default(),
            admit: Default::default(),
            reason: Default::default(),
            resp_tbl: table(256, 1, |op| is_response(op as u8) as u64),
            type_tbl,
            state_tbl,
            c_type_wrong: Constant::new(TYPE_WRONG.into()),
            c_type_bad: Constant::new(TYPE_BAD.into()),
            c_admit: Constant::new((AdmitReason::Admit as u64).into()),
            c_bad_qpn: Constant::new((AdmitReason::BadQpn as u64).into()),
            c_bad_context: Constant::new((AdmitReason::BadContext as u64).into()),
            c_wrong_type: Constant::new((AdmitReason::WrongQpType as u64).into()),
            c_bad_pkey: Constant::new((AdmitReason::BadPkey as u64).into()),
            resp: Default::default(),
            tcheck: Default::default(),
            sidx: Default::default(),
            srule: Default::default(),
            why: Default::default(),
            r_valid: Default::default(),
            r_admit: Default::default(),
            r_reason: Default::default(),
            kind: Default::default(),
        }
    }
}

impl Logic for QpAdmit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r_valid, r_admit, r_reason);
        self.resp.next = self.resp_tbl.val().get_bits::<1>(self.opcode.val().index());
        self.tcheck.next = self
            .type_tbl
            .val()
            .get_bits::<2>(((self.qp_type.val().index() << 3) | self.opcode.val().get_bits::<3>(5).index()) << 1);
        self.sidx.next = (bit_cast::<7, 4>(self.state.val()) << 3)
            | (bit_cast::<7, 1>(self.comp_error.val().into()) << 2)
            | (bit_cast::<7, 1>(self.on_chip.val().into()) << 1)
            | bit_cast::<7, 1>(self.resp.val());
        self.srule.next = self.state_tbl.val().get_bits::<4>(self.sidx.val().index() << 2);
        self.why.next = bit_cast::<8, 4>(self.srule.val());
        if (bit_cast::<8, 4>(self.srule.val()) == self.c_admit.val()) & !self.pkey_ok.val() {
            self.why.next = self.c_bad_pkey.val();
        }
        if self.tcheck.val() == self.c_type_wrong.val() {
            self.why.next = self.c_wrong_type.val();
        }
        if (self.tcheck.val() == self.c_type_bad.val())
            | (bit_cast::<8, 4>(self.srule.val()) == self.c_bad_context.val())
        {
            self.why.next = self.c_bad_context.val();
        }
        if !self.qpn_ok.val() {
            self.why.next = self.c_bad_qpn.val();
        }
        self.r_valid.d.next = self.in_valid.val();
        self.r_reason.d.next = self.why.val();
        self.r_admit.d.next = self.why.val() == self.c_admit.val();
        if self.reset.val() {
            self.r_valid.d.next = false;
        }
        self.out_valid.next = self.r_valid.q.val();
        self.admit.next = self.r_admit.q.val();
        self.reason.next = self.r_reason.q.val();
    }
}
