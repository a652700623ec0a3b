//! `OpcodeInfo`: what an RC, UC, UD or CNP opcode carries after its BTH,
//! shared by the receive decoder and the transmit builder.

use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock, Default)]
pub struct OpcodeInfo {
    pub opcode: Signal<In, Bits<8>>,
    /// A RoCEv2 opcode this NIC knows (RC, UC, UD send, CNP).
    pub known: Signal<Out, Bit>,
    pub carries_payload: Signal<Out, Bit>,
    pub has_reth: Signal<Out, Bit>,
    pub has_aeth: Signal<Out, Bit>,
    pub has_atomic: Signal<Out, Bit>,
    pub has_atomicack: Signal<Out, Bit>,
    pub has_imm: Signal<Out, Bit>,
    pub has_ieth: Signal<Out, Bit>,
    pub has_deth: Signal<Out, Bit>,
    pub has_cnp: Signal<Out, Bit>,
    /// Bytes of extended headers after the BTH.
    pub ext_len: Signal<Out, Bits<6>>,
    op: Signal<Local, Bits<5>>,
    rc: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Logic for OpcodeInfo {
    #[hdl_gen]
    fn update(&mut self) {
        self.op.next = self.opcode.val().get_bits::<5>(0);
        self.rc.next = self.opcode.val().get_bits::<3>(5) == 0;
        self.known.next = false;
        self.carries_payload.next = false;
        self.has_reth.next = false;
        self.has_aeth.next = false;
        self.has_atomic.next = false;
        self.has_atomicack.next = false;
        self.has_imm.next = false;
        self.has_ieth.next = false;
        self.has_deth.next = false;
        self.has_cnp.next = false;
        // RC (0x00..) and UC (0x20..): the same low five bits mean the same operation
        if self.rc.val() | (self.opcode.val().get_bits::<3>(5) == 1) {
            self.known.next = (self.op.val() <= 0x0b)
                | (self.rc.val() & ((self.op.val() <= 0x14) | (self.op.val() == 0x16) | (self.op.val() == 0x17)));
            self.has_reth.next =
                (self.op.val() == 0x06) | (self.op.val() == 0x0a) | (self.op.val() == 0x0b) | (self.op.val() == 0x0c);
            self.has_imm.next =
                (self.op.val() == 0x03) | (self.op.val() == 0x05) | (self.op.val() == 0x09) | (self.op.val() == 0x0b);
            self.has_aeth.next = (self.op.val() == 0x0d)
                | (self.op.val() == 0x0f)
                | (self.op.val() == 0x10)
                | (self.op.val() == 0x11)
                | (self.op.val() == 0x12);
            self.has_atomicack.next = self.op.val() == 0x12;
            self.has_atomic.next = (self.op.val() == 0x13) | (self.op.val() == 0x14);
            self.has_ieth.next = (self.op.val() == 0x16) | (self.op.val() == 0x17);
            self.carries_payload.next = (self.op.val() <= 0x0b)
                | (self.op.val() == 0x0d)
                | (self.op.val() == 0x0e)
                | (self.op.val() == 0x0f)
                | (self.op.val() == 0x10)
                | (self.op.val() == 0x16)
                | (self.op.val() == 0x17);
        }
        if (self.opcode.val() == 0x64) | (self.opcode.val() == 0x65) {
            self.known.next = true;
            self.has_deth.next = true;
            self.has_imm.next = self.opcode.val() == 0x65;
            self.carries_payload.next = true;
        }
        if self.opcode.val() == 0x81 {
            self.known.next = true;
            self.has_cnp.next = true;
        }
        self.ext_len.next = 0.into();
        if self.has_reth.val() | self.has_cnp.val() {
            self.ext_len.next = 16.into();
        }
        if self.has_aeth.val() | self.has_ieth.val() {
            self.ext_len.next = 4.into();
        }
        if self.has_atomicack.val() | self.has_deth.val() {
            self.ext_len.next = self.ext_len.val() + 8;
        }
        if self.has_atomic.val() {
            self.ext_len.next = 28.into();
        }
        if self.has_imm.val() {
            self.ext_len.next = self.ext_len.val() + 4;
        }
    }
}
