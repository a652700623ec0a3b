//! The numeric codes that fields and doorbells carry. Where verbs has the same
//! notion the number is libibverbs' (`ibv_wr_opcode`, `ibv_wc_status`,
//! `ibv_wc_opcode`, `ibv_qp_state`, `ibv_qp_type`, `ibv_mtu`), so a driver
//! passes it through unchanged and users can look errors up by number.

use crate::layout::{FieldKind, FieldType, FieldValue};

/// One code of an enum, as the doc generator sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CodeValue {
    /// The variant's name.
    pub name: &'static str,
    /// The number stored in memory or in a register.
    pub value: u64,
    /// What it means.
    pub doc: &'static str,
}

/// An enum of codes, as the doc generator sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct CodeInfo {
    /// The enum's name.
    pub name: &'static str,
    /// What it is for.
    pub doc: &'static str,
    /// Every code, in declaration order.
    pub values: &'static [CodeValue],
}

/// The largest value in `values` (0 for none).
pub const fn max_code(values: &[CodeValue]) -> u64 {
    let mut max = 0;
    let mut i = 0;
    while i < values.len() {
        if values[i].value > max {
            max = values[i].value;
        }
        i += 1;
    }
    max
}

/// Declares an enum of codes once: the Rust enum, `from_raw`, `raw`, `name`,
/// `ALL`, `INFO` for the docs and the traits that let layout fields hold it.
/// `CODES` lists every `INFO`.
macro_rules! codes {
    (
        $(
            $(#[doc = $doc:literal])*
            $name:ident: $repr:ident {
                $(
                    $(#[doc = $vdoc:literal])*
                    $variant:ident = $value:literal,
                )+
            }
        )+
    ) => {
        $(
            $(#[doc = $doc])*
            #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
            #[repr($repr)]
            pub enum $name {
                $(
                    $(#[doc = $vdoc])*
                    $variant = $value,
                )+
            }

            impl $name {
                /// Every code, in declaration order.
                pub const ALL: &'static [$name] = &[$($name::$variant),+];
                /// The enum as the doc generator sees it.
                pub const INFO: CodeInfo = CodeInfo {
                    name: stringify!($name),
                    doc: concat!($($doc, "\n"),*),
                    values: &[$(CodeValue {
                        name: stringify!($variant),
                        value: $value,
                        doc: concat!($($vdoc, "\n"),*),
                    }),+],
                };

                /// The code for a stored number, `None` if there is none.
                pub const fn from_raw(raw: u64) -> Option<$name> {
                    match raw {
                        $($value => Some($name::$variant),)+
                        _ => None,
                    }
                }

                /// The stored number.
                pub const fn raw(self) -> $repr {
                    self as $repr
                }

                /// The variant's name.
                pub const fn name(self) -> &'static str {
                    match self {
                        $($name::$variant => stringify!($variant),)+
                    }
                }
            }

            impl FieldType for $name {
                const TYPE_NAME: &'static str = stringify!($name);
                const BITS: u32 = <$repr>::BITS;
                const MAX_CODE: u64 = max_code($name::INFO.values);
                const KIND: FieldKind = FieldKind::Code;
            }

            impl FieldValue for $name {
                fn to_raw(self) -> u64 {
                    self as u64
                }
                fn from_raw(raw: u64) -> Option<Self> {
                    $name::from_raw(raw)
                }
            }
        )+

        /// Every enum of codes: the table the doc generator walks.
        pub const CODES: &[CodeInfo] = &[$($name::INFO),+];
    };
}

codes! {
    /// Operation of a send work queue entry (`ibv_wr_opcode`). Which ones a QP
    /// accepts depends on its type: UD only sends, UC adds writes, RC has all.
    SendOpcode: u8 {
        /// `IBV_WR_RDMA_WRITE`: local SGEs to remote memory.
        RdmaWrite = 0,
        /// `IBV_WR_RDMA_WRITE_WITH_IMM`: a write that also consumes a receive
        /// at the responder and delivers the immediate in its completion.
        RdmaWriteWithImm = 1,
        /// `IBV_WR_SEND`: local SGEs into the responder's next receive.
        Send = 2,
        /// `IBV_WR_SEND_WITH_IMM`: a send carrying a 32-bit immediate.
        SendWithImm = 3,
        /// `IBV_WR_RDMA_READ`: remote memory into the local SGEs.
        RdmaRead = 4,
        /// `IBV_WR_ATOMIC_CMP_AND_SWP`: 8-byte compare and swap; the original
        /// value lands in the first local SGE.
        AtomicCmpAndSwp = 5,
        /// `IBV_WR_ATOMIC_FETCH_AND_ADD`: 8-byte add; the original value lands
        /// in the first local SGE.
        AtomicFetchAndAdd = 6,
    }

    /// Completion status (`ibv_wc_status`). With any status but `Success` only
    /// the CQE's WR_ID, STATUS, QPN and VENDOR_ERR are meaningful.
    WcStatus: u8 {
        /// `IBV_WC_SUCCESS`.
        Success = 0,
        /// `IBV_WC_LOC_LEN_ERR`: a message longer than the receive buffers.
        LocLenErr = 1,
        /// `IBV_WC_LOC_QP_OP_ERR`: the work request is invalid for the QP.
        LocQpOpErr = 2,
        /// `IBV_WC_LOC_EEC_OP_ERR` (end-to-end contexts; never produced).
        LocEecOpErr = 3,
        /// `IBV_WC_LOC_PROT_ERR`: an SGE fails its memory region check.
        LocProtErr = 4,
        /// `IBV_WC_WR_FLUSH_ERR`: flushed because the QP is in error.
        WrFlushErr = 5,
        /// `IBV_WC_MW_BIND_ERR` (memory windows; never produced).
        MwBindErr = 6,
        /// `IBV_WC_BAD_RESP_ERR`: an unexpected response opcode.
        BadRespErr = 7,
        /// `IBV_WC_LOC_ACCESS_ERR`: a local protection error on incoming data.
        LocAccessErr = 8,
        /// `IBV_WC_REM_INV_REQ_ERR`: the responder found the request invalid.
        RemInvReqErr = 9,
        /// `IBV_WC_REM_ACCESS_ERR`: the responder's key or bounds check failed.
        RemAccessErr = 10,
        /// `IBV_WC_REM_OP_ERR`: the responder could not complete the operation.
        RemOpErr = 11,
        /// `IBV_WC_RETRY_EXC_ERR`: transport retries exhausted.
        RetryExcErr = 12,
        /// `IBV_WC_RNR_RETRY_EXC_ERR`: receiver-not-ready retries exhausted.
        RnrRetryExcErr = 13,
        /// `IBV_WC_LOC_RDD_VIOL_ERR` (reliable datagram domains; never produced).
        LocRddViolErr = 14,
        /// `IBV_WC_REM_INV_RD_REQ_ERR` (reliable datagrams; never produced).
        RemInvRdReqErr = 15,
        /// `IBV_WC_REM_ABORT_ERR`: the responder aborted the operation.
        RemAbortErr = 16,
        /// `IBV_WC_INV_EECN_ERR` (end-to-end contexts; never produced).
        InvEecnErr = 17,
        /// `IBV_WC_INV_EEC_STATE_ERR` (end-to-end contexts; never produced).
        InvEecStateErr = 18,
        /// `IBV_WC_FATAL_ERR`: the device hit an unrecoverable error.
        FatalErr = 19,
        /// `IBV_WC_RESP_TIMEOUT_ERR`: the response did not arrive.
        RespTimeoutErr = 20,
        /// `IBV_WC_GENERAL_ERR`: any other error; see VENDOR_ERR.
        GeneralErr = 21,
        /// `IBV_WC_TM_ERR` (tag matching; never produced).
        TmErr = 22,
        /// `IBV_WC_TM_RNDV_INCOMPLETE` (tag matching; never produced).
        TmRndvIncomplete = 23,
    }

    /// What a completion completes (`ibv_wc_opcode`). Receive completions have
    /// bit 7 set.
    WcOpcode: u8 {
        /// `IBV_WC_SEND`.
        Send = 0,
        /// `IBV_WC_RDMA_WRITE`.
        RdmaWrite = 1,
        /// `IBV_WC_RDMA_READ`.
        RdmaRead = 2,
        /// `IBV_WC_COMP_SWAP`.
        CompSwap = 3,
        /// `IBV_WC_FETCH_ADD`.
        FetchAdd = 4,
        /// `IBV_WC_RECV`: a receive consumed by a SEND or SEND with immediate.
        Recv = 128,
        /// `IBV_WC_RECV_RDMA_WITH_IMM`: a receive consumed by a WRITE with
        /// immediate; BYTE_LEN is the write's length.
        RecvRdmaWithImm = 129,
    }

    /// State of a queue pair (`ibv_qp_state`).
    QpState: u8 {
        /// `IBV_QPS_RESET`: no traffic, queues empty.
        Reset = 0,
        /// `IBV_QPS_INIT`: receives may be posted; nothing is processed.
        Init = 1,
        /// `IBV_QPS_RTR`: ready to receive.
        ReadyToReceive = 2,
        /// `IBV_QPS_RTS`: ready to send.
        ReadyToSend = 3,
        /// `IBV_QPS_SQD`: send queue drained.
        SendQueueDrained = 4,
        /// `IBV_QPS_SQE`: send queue error (UC, UD).
        SendQueueError = 5,
        /// `IBV_QPS_ERR`: every outstanding request completes flushed.
        Error = 6,
    }

    /// Transport of a queue pair (`ibv_qp_type`).
    QpType: u8 {
        /// `IBV_QPT_RC`: reliable connected.
        Rc = 2,
        /// `IBV_QPT_UC`: unreliable connected.
        Uc = 3,
        /// `IBV_QPT_UD`: unreliable datagram.
        Ud = 4,
    }

    /// Path MTU (`ibv_mtu`): payload bytes per packet.
    Mtu: u8 {
        /// `IBV_MTU_256`.
        Mtu256 = 1,
        /// `IBV_MTU_512`.
        Mtu512 = 2,
        /// `IBV_MTU_1024`.
        Mtu1024 = 3,
        /// `IBV_MTU_2048`.
        Mtu2048 = 4,
        /// `IBV_MTU_4096`.
        Mtu4096 = 5,
    }

    /// What a doorbell write announces (the doorbell's KIND field).
    DoorbellKind: u8 {
        /// New send WQEs: INDEX is the send queue's new producer index.
        SqProducer = 0,
        /// New receive WQEs: INDEX is the receive queue's new producer index.
        RqProducer = 1,
        /// CQEs consumed: INDEX is the CQ's new consumer index, which frees
        /// their slots (the device reports an overrun against it).
        CqConsumer = 2,
        /// Consumer index update plus a one-shot request for an interrupt on
        /// the next completion (on the next solicited or error completion when
        /// SOLICITED is set), as `ibv_req_notify_cq`.
        CqArm = 3,
    }

    /// Which context table a context command addresses.
    ContextTable: u8 {
        /// Queue pair contexts (`qpc`), indexed by QPN.
        Qp = 0,
        /// Completion queue contexts (`cqc`), indexed by CQN.
        Cq = 1,
        /// Memory protection entries (`mpt`), indexed by the key's low T bits (`mpt::key_index`).
        Mpt = 2,
        /// Memory translation entries (`mtt`).
        Mtt = 3,
        /// Address handles (`ah`) for UD sends.
        Ah = 4,
        /// The counters (`regs::COUNTER_WINDOW`), as one entry (index 0):
        /// Store writes the whole window, byte for byte as the registers
        /// read (512 bytes, the reserved registers 0), to host memory at
        /// `counters_base`, one MMIO command instead of two reads per
        /// counter. Counters keep counting while the window is written (a
        /// few hundred cycles), as between register reads. Load and
        /// Invalidate fail.
        Counters = 5,
    }

    /// What a context command does (`ctx_cmd.OP`). Zero is no operation, so a
    /// stray zero write does nothing.
    ContextOp: u8 {
        /// Read the entry from host memory, replacing any copy the device
        /// holds. Issued after the driver writes or changes an entry.
        Load = 1,
        /// Write the device's copy of the entry back to host memory, so the
        /// driver sees the state the device owns (PSNs, indices, QP state).
        Store = 2,
        /// Drop the device's copy without writing it back (before the driver
        /// reuses the entry). For MTT and AH entries, which the device reads
        /// on demand, this drops any cached translation or address.
        Invalidate = 3,
    }

    /// The fate of a received frame, as the receive parser reports it
    /// (`RxParse::done_code`). Each outcome has its own counter register.
    RxOutcome: u8 {
        /// A well-formed RoCEv2 packet for the transport (`cnt_roce`).
        Roce = 0,
        /// A frame for the raw receive queue: not RoCEv2 (ARP, other IP)
        /// (`cnt_raw`).
        Raw = 1,
        /// Dropped: a header check failed (`cnt_malformed`).
        Malformed = 2,
        /// Dropped: ICRC mismatch (`cnt_icrc`).
        Icrc = 3,
        /// Dropped: IPv4 header checksum mismatch (`cnt_ip_csum`).
        IpChecksum = 4,
        /// Dropped: the MAC flagged the frame (`cnt_mac_err`).
        MacError = 5,
    }
}

/// The two timers of an RC requester (IBTA 1.5, 9.7.6): the local ACK
/// timeout (`qpc::TIMEOUT`, 4.096 us x 2^code, code 0: no timer) and the RNR
/// timer, whose 5-bit code an RNR NAK carries (the responder's
/// `qpc::MIN_RNR_TIMER`; [`RNR_TIMER_MICROS`]). The retry timer block
/// (`hw::transport::RetryTimer`) takes the kind with each arming.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum TimerKind {
    /// The local ACK timeout: a request went unanswered.
    AckTimeout = 0,
    /// The RNR wait before a request is resent after an RNR NAK.
    Rnr = 1,
}

/// The unit of the local ACK timeout, in nanoseconds: 4.096 us.
pub const ACK_TIMEOUT_UNIT_NS: u64 = 4096;

/// The RNR timer in microseconds for each 5-bit code (IBTA 1.5 table 45;
/// Linux rxe `rnrnak_usec`): code 0 is the longest, 655.36 ms.
pub const RNR_TIMER_MICROS: [u32; 32] = [
    655_360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960, 1280, 1920, 2560, 3840, 5120, 7680, 10_240,
    15_360, 20_480, 30_720, 40_960, 61_440, 81_920, 122_880, 163_840, 245_760, 327_680, 491_520,
];

/// The local ACK timeout of `code` in nanoseconds (4.096 us x 2^code), or
/// `None` for code 0 (no timeout). Codes above 31 are taken modulo 32.
pub const fn ack_timeout_ns(code: u8) -> Option<u64> {
    match code & 0x1F {
        0 => None,
        c => Some(ACK_TIMEOUT_UNIT_NS << c),
    }
}

/// The RNR timer of `code` in nanoseconds. Codes above 31 are taken modulo 32.
pub const fn rnr_timer_ns(code: u8) -> u64 {
    RNR_TIMER_MICROS[(code & 0x1F) as usize] as u64 * 1000
}

/// The retry timer's tick in nanoseconds: the ACK timeout's unit, 4.096 us
/// (1024 cycles of the 250 MHz core clock).
pub const TIMER_TICK_NS: u64 = ACK_TIMEOUT_UNIT_NS;

/// Whole ticks ([`TIMER_TICK_NS`]) a timer of `kind` and `code` lasts,
/// rounded up, or `None` when it does not run (an ACK timeout of code 0).
/// The retry timer fires an arming after more than this many ticks.
pub const fn timer_ticks(kind: TimerKind, code: u8) -> Option<u64> {
    let ns = match kind {
        TimerKind::AckTimeout => match ack_timeout_ns(code) {
            Some(ns) => ns,
            None => return None,
        },
        TimerKind::Rnr => rnr_timer_ns(code),
    };
    Some(ns.div_ceil(TIMER_TICK_NS))
}

#[cfg(test)]
mod timer_tests {
    use super::*;

    #[test]
    fn timer_codes() {
        assert_eq!(ack_timeout_ns(0), None);
        assert_eq!(ack_timeout_ns(14), Some(67_108_864));
        assert_eq!(timer_ticks(TimerKind::AckTimeout, 31), Some(1 << 31));
        assert_eq!(timer_ticks(TimerKind::AckTimeout, 0), None);
        assert_eq!(rnr_timer_ns(0), 655_360_000);
        assert_eq!(rnr_timer_ns(12), 640_000); // ibv_rc_pingpong's min_rnr_timer
        assert_eq!(timer_ticks(TimerKind::Rnr, 1), Some(3)); // 10 us = 2.44 ticks
        assert_eq!(timer_ticks(TimerKind::Rnr, 0), Some(160_000)); // 655.36 ms exactly
        assert!(RNR_TIMER_MICROS[1..].windows(2).all(|w| w[0] < w[1]));
    }
}
