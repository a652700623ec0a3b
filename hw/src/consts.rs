//! Numbers the RTL takes from the HW/SW contract (`rnic-contract`), by name.
//!
//! rust-hdl passes a `const` item used in `update` through to the emitter as
//! a bare identifier; [`NAMED`] gives the emitter their values, so the
//! Verilog carries exactly what the contract says. Everything here is
//! computed from the contract crate: when a register or field moves there,
//! the RTL follows on the next build.

use rnic_contract::codes::{ContextOp, ContextTable, DoorbellKind, Mtu, QpState, SendOpcode, WcOpcode, WcStatus};
use rnic_contract::layouts::{ah, cqc, cqe, mpt, qpc, qps, recv_wqe, resource, send_wqe, sge};
use rnic_contract::mr::{Access, MrError, MTT_PER_LINE};
use rnic_contract::regs;

macro_rules! rtl_consts {
    ($($(#[$m:meta])* $name:ident: $ty:ident = $value:expr;)*) => {
        $($(#[$m])* pub const $name: $ty = $value as $ty;)*
        /// Every constant above, by name, for the emitter.
        pub const NAMED: &[(&str, u64)] = &[$((stringify!($name), $name as u64)),*];
    };
}

/// The slots (of [`SCHED_SLOTS`]) whose number has bit `b` set.
const fn slot_enc(b: usize) -> u64 {
    slot_enc_of(b, SCHED_SLOTS)
}
const _: () = assert!(SCHED_SLOT_BITS == 4, "req_slots encodes a slot number from SLOT_ENC0..3");
/// The slots (of `n`) whose number has bit `b` set.
const fn slot_enc_of(b: usize, n: usize) -> u64 {
    let mut m = 0;
    let mut k = 0;
    while k < n {
        if (k >> b) & 1 == 1 {
            m |= 1 << k;
        }
        k += 1;
    }
    m
}
const _: () = assert!(crate::transport::READ_AHEAD_LOG == 5, "read_ahead encodes a slot number from RA_ENC0..4");

rtl_consts! {
    // ---- register offsets (BAR0)
    REG_ID_MAGIC: u64 = regs::id_magic::OFFSET;
    REG_ID_VERSION: u64 = regs::id_version::OFFSET;
    REG_ID_FEATURES: u64 = regs::id_features::OFFSET;
    REG_ID_DATAPATH: u64 = regs::id_datapath::OFFSET;
    REG_ID_CLOCK: u64 = regs::id_clock::OFFSET;
    REG_ID_LIMITS: u64 = regs::id_limits::OFFSET;
    REG_ID_MAC_LO: u64 = regs::id_mac_lo::OFFSET;
    REG_ID_MAC_HI: u64 = regs::id_mac_hi::OFFSET;
    REG_CTRL: u64 = regs::ctrl::OFFSET;
    REG_STATUS: u64 = regs::status::OFFSET;
    REG_EVENTS: u64 = regs::events::OFFSET;
    REG_EVENTS_ENABLE: u64 = regs::events_enable::OFFSET;
    REG_EVENTS_QUEUE: u64 = regs::events_queue::OFFSET;
    REG_SCRATCH: u64 = regs::scratch::OFFSET;
    REG_IRQ_VECTORS: u64 = regs::irq_vectors::OFFSET;
    REG_IRQ_MODERATION: u64 = regs::irq_moderation::OFFSET;
    REG_IRQ_EVENTS: u64 = regs::irq_events::OFFSET;
    REG_QPC_BASE_LO: u64 = regs::qpc_base_lo::OFFSET;
    REG_QPC_BASE_HI: u64 = regs::qpc_base_hi::OFFSET;
    REG_QPC_LOG: u64 = regs::qpc_log_entries::OFFSET;
    REG_CQC_BASE_LO: u64 = regs::cqc_base_lo::OFFSET;
    REG_CQC_BASE_HI: u64 = regs::cqc_base_hi::OFFSET;
    REG_CQC_LOG: u64 = regs::cqc_log_entries::OFFSET;
    REG_MPT_BASE_LO: u64 = regs::mpt_base_lo::OFFSET;
    REG_MPT_BASE_HI: u64 = regs::mpt_base_hi::OFFSET;
    REG_MPT_LOG: u64 = regs::mpt_log_entries::OFFSET;
    REG_MTT_BASE_LO: u64 = regs::mtt_base_lo::OFFSET;
    REG_MTT_BASE_HI: u64 = regs::mtt_base_hi::OFFSET;
    REG_MTT_LOG: u64 = regs::mtt_log_entries::OFFSET;
    REG_QPS_BASE_LO: u64 = regs::qps_base_lo::OFFSET;
    REG_QPS_BASE_HI: u64 = regs::qps_base_hi::OFFSET;
    REG_REPLAY_BASE_LO: u64 = regs::replay_base_lo::OFFSET;
    REG_REPLAY_BASE_HI: u64 = regs::replay_base_hi::OFFSET;
    REG_CTX_CMD: u64 = regs::ctx_cmd::OFFSET;
    REG_CTX_STATUS: u64 = regs::ctx_status::OFFSET;
    REG_CTX_COUNT: u64 = regs::ctx_count::OFFSET;
    REG_COUNTERS_BASE_LO: u64 = regs::counters_base_lo::OFFSET;
    REG_COUNTERS_BASE_HI: u64 = regs::counters_base_hi::OFFSET;
    /// The window of 64-bit counter registers (`regs::COUNTER_WINDOW`, 512
    /// bytes: offset bits 15:9): a read there asks the core's counters,
    /// index = bits 8:3.
    CNT_PAGE: u64 = regs::COUNTER_WINDOW.start >> 9;
    REG_DOORBELL_LO: u64 = regs::doorbell::OFFSET;
    REG_DOORBELL_HI: u64 = regs::doorbell::OFFSET + 4;
    MAGIC: u64 = regs::id_magic::RESET;
    ABI_VERSION: u64 = rnic_contract::ABI_VERSION;
    // ---- register fields
    CTRL_ENABLE: usize = regs::ctrl::ENABLE.lsb;
    CTRL_SOFT_RESET: usize = regs::ctrl::SOFT_RESET.lsb;
    STATUS_READY: u64 = regs::status::READY.lsb;
    EV_DOORBELL_ERROR: u64 = regs::events::DOORBELL_ERROR.lsb;
    EV_DMA_ERROR: u64 = regs::events::DMA_ERROR.lsb;
    EV_CQ_OVERRUN: u64 = regs::events::CQ_OVERRUN.lsb;
    IRQ_MOD_TIME: usize = regs::irq_moderation::TIME_US.lsb;
    CTX_TABLE: usize = regs::ctx_cmd::TABLE.lsb;
    CTX_OP: usize = regs::ctx_cmd::OP.lsb;
    // the doorbell's high word (bits 63:32 of the register)
    DB_INDEX: usize = regs::doorbell::INDEX.lsb;
    DB_SOLICITED: usize = regs::doorbell::SOLICITED.lsb;
    DB_QUEUE_HI: usize = regs::doorbell::QUEUE.lsb - 32;
    DB_KIND_HI: usize = regs::doorbell::KIND.lsb - 32;
    // ---- codes
    KIND_SQ: u64 = DoorbellKind::SqProducer as u8;
    KIND_RQ: u64 = DoorbellKind::RqProducer as u8;
    KIND_CQ_CONSUMER: u64 = DoorbellKind::CqConsumer as u8;
    KIND_CQ_ARM: u64 = DoorbellKind::CqArm as u8;
    TABLE_QP: u64 = ContextTable::Qp as u8;
    TABLE_CQ: u64 = ContextTable::Cq as u8;
    TABLE_MPT: u64 = ContextTable::Mpt as u8;
    TABLE_MTT: u64 = ContextTable::Mtt as u8;
    TABLE_COUNTERS: u64 = ContextTable::Counters as u8;
    OP_LOAD: u64 = ContextOp::Load as u8;
    OP_STORE: u64 = ContextOp::Store as u8;
    OP_INVALIDATE: u64 = ContextOp::Invalidate as u8;
    // ---- layouts: bit positions in an entry
    QPC_BYTES: u64 = qpc::SIZE;
    QPC_SQ_LOG: usize = qpc::SQ_LOG_SIZE.pos();
    QPC_RQ_LOG: usize = qpc::RQ_LOG_SIZE.pos();
    QPC_SQ_BASE: usize = qpc::SQ_BASE.pos();
    QPC_RQ_BASE: usize = qpc::RQ_BASE.pos();
    QPC_SQ_PROD: usize = qpc::SQ_PROD.pos();
    QPC_SQ_CONS: usize = qpc::SQ_CONS.pos();
    QPC_RQ_PROD: usize = qpc::RQ_PROD.pos();
    QPC_RQ_CONS: usize = qpc::RQ_CONS.pos();
    /// Byte offsets of the producer indices a doorbell writes into the cached `qpc` line.
    QPC_SQ_PROD_BYTE: u64 = qpc::SQ_PROD.byte;
    QPC_RQ_PROD_BYTE: u64 = qpc::RQ_PROD.byte;
    QPC_SQ_PROD_BIT: u64 = qpc::SQ_PROD.pos();
    QPC_RQ_PROD_BIT: u64 = qpc::RQ_PROD.pos();
    /// Byte offset of the indices the device writes back on Store.
    QPC_INDICES_BYTE: u64 = qpc::SQ_PROD.byte;
    QPC_INDICES_BIT: u64 = 8 * qpc::SQ_PROD.byte;
    CQC_BYTES: u64 = cqc::SIZE;
    CQC_RING_BASE: usize = cqc::RING_BASE.pos();
    CQC_PROD: usize = cqc::PROD.pos();
    CQC_CONS: usize = cqc::CONS.pos();
    CQC_LOG: usize = cqc::LOG_SIZE.pos();
    CQC_ARMED: usize = cqc::ARMED.pos();
    CQC_SOLICITED: usize = cqc::SOLICITED.pos();
    CQC_OVERRUN: usize = cqc::OVERRUN.pos();
    CQC_VECTOR: usize = cqc::MSIX_VECTOR.pos();
    CQC_MOD_COUNT: usize = cqc::MOD_COUNT.pos();
    CQC_MOD_TIME: usize = cqc::MOD_TIME_US.pos();
    /// Byte offset of the state the device writes back on Store (PROD up to
    /// the flags byte).
    CQC_STATE_BYTE: u64 = cqc::PROD.byte;
    CQC_STATE_BIT: u64 = 8 * cqc::PROD.byte;
    CQE_BYTES: u64 = cqe::SIZE;
    CQE_OWNER: u64 = cqe::OWNER.pos();
    CQE_STATUS: usize = cqe::STATUS.pos();
    /// Field positions `cqe_merge` lays a CQE out by (`layouts::cqe`).
    CQE_WR_ID: u64 = cqe::WR_ID.pos();
    CQE_BYTE_LEN: u64 = cqe::BYTE_LEN.pos();
    CQE_IMM: u64 = cqe::IMM.pos();
    CQE_QPN: u64 = cqe::QPN.pos();
    CQE_STATUS_POS: u64 = cqe::STATUS.pos();
    CQE_OPCODE: u64 = cqe::OPCODE.pos();
    CQE_WITH_IMM: u64 = cqe::WITH_IMM.pos();
    CQE_WQE_INDEX: u64 = cqe::WQE_INDEX.pos();
    /// Flag positions in the state a CQ query returns (CQC bytes 8..14).
    CQS_ARMED: u64 = cqc::ARMED.pos() - 8 * cqc::PROD.byte;
    CQS_SOLICITED: u64 = cqc::SOLICITED.pos() - 8 * cqc::PROD.byte;
    CQS_OVERRUN: u64 = cqc::OVERRUN.pos() - 8 * cqc::PROD.byte;
    // ---- build properties (`id_*` registers)
    /// log2 of the QPs and CQs this build holds state for.
    LOG_QPS: usize = 10;
    LOG_CQS: usize = 10;
    /// `LOG_QPS` as a value the RTL compares with (`RegFile::qpn_high`).
    LOG_QPS_VALUE: u64 = LOG_QPS as u64;
    /// `LOG_CQS` as a shift the RTL makes (`CtxEngine::cq_high`).
    LOG_CQS_VALUE: u64 = LOG_CQS as u64;
    /// Core clock in MHz; the CQ moderation timer counts microseconds in it.
    CLOCK_MHZ: u64 = 250;
    /// MSI-X vectors the interrupt interface can name.
    IRQ_VECTORS: u64 = 2048;
    DATAPATH_BYTES: u64 = 64;
    /// `id_features`: what this build implements and a driver may use: RC
    /// (session 36: the transport of issues 11 and 12, run by `rnic-perf`
    /// against Linux rxe in docs/interop.md), atomics (session 23),
    /// TRANSLATION (session 29: `mr_xlate` caches MPT entries and MTT lines,
    /// so the driver must invalidate them when a region goes, or the old key
    /// and pages stay usable); not yet: UC, UD, IPv6 and VLAN paths through
    /// the driver, inline data, raw rings.
    FEATURES_WORD: u64 = (regs::id_features::RC.mask()
        | regs::id_features::ATOMICS.mask()
        | regs::id_features::TRANSLATION.mask()) as u64;
    /// `id_limits`: deepest ring 2^15, MPT entries (the key's index: up to
    /// 24 bits; the MPT lives in host memory behind its cache), CQs, QPs.
    LIMITS_WORD: u64 = (15 << 24) | ((mpt::MAX_LOG_ENTRIES as u64) << 16) | ((LOG_CQS as u64) << 8) | LOG_QPS as u64;
    // ---- memory regions (hw/src/mr): MPT field positions, page sizes, codes
    MPT_VA_BASE: usize = mpt::VA_BASE.pos();
    MPT_LENGTH: usize = mpt::LENGTH.pos();
    MPT_KEY: usize = mpt::KEY.pos();
    MPT_PD: usize = mpt::PD.pos();
    MPT_VALID: usize = mpt::VALID.pos();
    MPT_LOCAL_WRITE: usize = mpt::LOCAL_WRITE.pos();
    MPT_REMOTE_WRITE: usize = mpt::REMOTE_WRITE.pos();
    MPT_REMOTE_READ: usize = mpt::REMOTE_READ.pos();
    MPT_REMOTE_ATOMIC: usize = mpt::REMOTE_ATOMIC.pos();
    MPT_LOG_PAGE: usize = mpt::LOG_PAGE_SIZE.pos();
    MPT_MTT_BASE: usize = mpt::MTT_BASE.pos();
    /// The three page sizes (A < B < C) as shifts, bytes and address masks.
    PAGE_SHIFT_A: usize = mpt::LOG_PAGE_SIZES[0];
    PAGE_SHIFT_B: usize = mpt::LOG_PAGE_SIZES[1];
    PAGE_SHIFT_C: usize = mpt::LOG_PAGE_SIZES[2];
    /// The same, as values an MPT entry's LOG_PAGE_SIZE is compared with.
    PAGE_LOG_A: u64 = mpt::LOG_PAGE_SIZES[0];
    PAGE_LOG_B: u64 = mpt::LOG_PAGE_SIZES[1];
    PAGE_LOG_C: u64 = mpt::LOG_PAGE_SIZES[2];
    PAGE_BYTES_A: u64 = 1u64 << mpt::LOG_PAGE_SIZES[0];
    PAGE_BYTES_B: u64 = 1u64 << mpt::LOG_PAGE_SIZES[1];
    PAGE_BYTES_C: u64 = 1u64 << mpt::LOG_PAGE_SIZES[2];
    PAGE_OFF_A: u64 = (1u64 << mpt::LOG_PAGE_SIZES[0]) - 1;
    PAGE_OFF_B: u64 = (1u64 << mpt::LOG_PAGE_SIZES[1]) - 1;
    PAGE_OFF_C: u64 = (1u64 << mpt::LOG_PAGE_SIZES[2]) - 1;
    PAGE_ADDR_A: u64 = !((1u64 << mpt::LOG_PAGE_SIZES[0]) - 1);
    PAGE_ADDR_B: u64 = !((1u64 << mpt::LOG_PAGE_SIZES[1]) - 1);
    PAGE_ADDR_C: u64 = !((1u64 << mpt::LOG_PAGE_SIZES[2]) - 1);
    MTT_LINE_SHIFT: usize = MTT_PER_LINE.trailing_zeros();
    /// Bytes one MTT line maps at each page size (`MrCheck`'s prefetch).
    LINE_SPAN_A: u64 = (MTT_PER_LINE as u64) << mpt::LOG_PAGE_SIZES[0];
    LINE_SPAN_B: u64 = (MTT_PER_LINE as u64) << mpt::LOG_PAGE_SIZES[1];
    LINE_SPAN_C: u64 = (MTT_PER_LINE as u64) << mpt::LOG_PAGE_SIZES[2];
    /// `MrCheck`: log2 of its request and job FIFOs and of its MTT line buffer.
    MR_FIFO_LOG: usize = 4;
    MR_LINE_LOG: usize = 4;
    MR_INVALID: u64 = MrError::Invalid as u8;
    MR_KEY_MISMATCH: u64 = MrError::KeyMismatch as u8;
    MR_PD_MISMATCH: u64 = MrError::PdMismatch as u8;
    MR_ACCESS_DENIED: u64 = MrError::AccessDenied as u8;
    MR_OUT_OF_BOUNDS: u64 = MrError::OutOfBounds as u8;
    ACC_LOCAL_READ: u64 = Access::LocalRead as u8;
    ACC_LOCAL_WRITE: u64 = Access::LocalWrite as u8;
    ACC_REMOTE_READ: u64 = Access::RemoteRead as u8;
    ACC_REMOTE_WRITE: u64 = Access::RemoteWrite as u8;
    ACC_REMOTE_ATOMIC: u64 = Access::RemoteAtomic as u8;
    /// The lowest bit of `payload_len` in the transmit builder's header.
    TX_PAYLOAD_LEN_LSB: usize = crate::wire::tx_field_lsb("payload_len");
    /// The lowest bit of `src_qp` in the transmit builder's header (`req_payload` takes the QPN from it).
    TX_SRC_QP_LSB: usize = crate::wire::tx_field_lsb("src_qp");
    // ---- the inflight WQE table (hw/src/transport/inflight.rs): `s_cmd.op` codes
    /// Append an entry at the QP's tail.
    INFLIGHT_PUSH: u64 = 0;
    /// The QP's head entry.
    INFLIGHT_HEAD: u64 = 1;
    /// Remove the QP's head entry.
    INFLIGHT_POP: u64 = 2;
    /// An entry by index (any code not listed here reads too).
    INFLIGHT_READ: u64 = 3;
    /// Replace an entry's payload in place.
    INFLIGHT_WRITE: u64 = 4;
    // ---- the requester's packet generator (hw/src/transport/req_gen.rs)
    /// `m_done.err` codes (3 bits): none; an INLINE WQE (not supported); a malformed
    /// WQE (opcode, NUM_SGE, an atomic's SGE, the PMTU code); a message above 2^31 bytes.
    REQ_ERR_NONE: u64 = 0;
    REQ_ERR_INLINE: u64 = 1;
    REQ_ERR_BAD_WQE: u64 = 2;
    REQ_ERR_TOO_LONG: u64 = 3;
    /// A flush job's (the QP's requester or completer in error): WR_FLUSH_ERR.
    REQ_ERR_FLUSH: u64 = 4;
    /// `m_frag.id` bit marking a packet's last fragment (the bits below: the
    /// packet's PSN mod 2^7).
    REQ_FRAG_LAST: usize = crate::mr::MR_ID_BITS - 1;
    // ---- the requester's payload translation (hw/src/transport/req_payload.rs)
    /// log2 of `PieceHold`'s places (32: four packets of the most pieces one can have).
    PIECE_HOLD_LOG: usize = 5;
    /// Where `ReqPayload` finds the transmit header's opcode, VLAN and IPv6 flags (for the payload's start lane).
    TX_OPCODE_LSB: usize = crate::wire::tx_field_lsb("opcode");
    TX_VLAN_LSB: usize = crate::wire::tx_field_lsb("vlan");
    TX_V6_LSB: usize = crate::wire::tx_field_lsb("v6");
    /// A payload's start lane (`TxBuild::payload_lane`) without VLAN tag, over
    /// IPv4, with no extended header; a tag adds `REQ_LANE_VLAN`, IPv6
    /// `REQ_LANE_V6`, the opcode's extended headers their length (mod 64).
    REQ_LANE_BASE: u64 = crate::wire::TxBuild::payload_lane(false, false, 0);
    REQ_LANE_VLAN: u64 = crate::wire::VLAN_TAG_BYTES;
    REQ_LANE_V6: u64 = crate::wire::IPV6_BYTES - crate::wire::IPV4_BYTES;
    /// The start lane's place in `ReqPayload`'s tag (above the SQ index): as an index and as a shift.
    REQ_TAG_LANE_LSB: usize = crate::transport::REQ_INDEX_BITS;
    REQ_TAG_LANE_SHIFT: u64 = crate::transport::REQ_INDEX_BITS;
    /// Inflight record fields (`transport::ENTRY_*`): lowest bit.
    ENT_WQE_INDEX: u64 = crate::transport::ENTRY_WQE_INDEX;
    ENT_FIRST_PSN: u64 = crate::transport::ENTRY_FIRST_PSN;
    ENT_LAST_PSN: u64 = crate::transport::ENTRY_LAST_PSN;
    ENT_KIND: u64 = crate::transport::ENTRY_KIND;
    ENT_SIGNALED: u64 = crate::transport::ENTRY_SIGNALED;
    ENT_WR_ID: u64 = crate::transport::ENTRY_WR_ID;
    ENT_LEN: u64 = crate::transport::ENTRY_LEN;
    /// The kind of a refused WQE's entry (`ReqGen`'s errors; no send
    /// opcode has it): its completion status is in LEN.
    ENT_KIND_REFUSED: u64 = 15;
    /// Send opcodes (`SendOpcode`, a send WQE's OPCODE).
    SOP_RDMA_WRITE: u64 = SendOpcode::RdmaWrite as u8;
    SOP_RDMA_WRITE_IMM: u64 = SendOpcode::RdmaWriteWithImm as u8;
    SOP_SEND: u64 = SendOpcode::Send as u8;
    SOP_SEND_IMM: u64 = SendOpcode::SendWithImm as u8;
    SOP_RDMA_READ: u64 = SendOpcode::RdmaRead as u8;
    SOP_CMP_SWAP: u64 = SendOpcode::AtomicCmpAndSwp as u8;
    SOP_FETCH_ADD: u64 = SendOpcode::AtomicFetchAndAdd as u8;
    /// Path MTU codes (`Mtu`, the QP context's PMTU).
    MTU_256: u64 = Mtu::Mtu256 as u8;
    MTU_512: u64 = Mtu::Mtu512 as u8;
    MTU_1024: u64 = Mtu::Mtu1024 as u8;
    MTU_2048: u64 = Mtu::Mtu2048 as u8;
    MTU_4096: u64 = Mtu::Mtu4096 as u8;
    /// BTH opcodes of RC requests (IBTA table 38; `rnic_proto::Opcode` is
    /// checked against these in `tb/tests/req_gen.rs`). A SEND or WRITE
    /// message's opcode is its FIRST opcode plus the position's offset.
    BTH_RC_SEND_FIRST: u64 = 0x00;
    BTH_RC_WRITE_FIRST: u64 = 0x06;
    BTH_RC_READ_REQUEST: u64 = 0x0c;
    BTH_RC_COMPARE_SWAP: u64 = 0x13;
    BTH_RC_FETCH_ADD: u64 = 0x14;
    /// Bytes an atomic reads and writes (and its local SGE's length).
    ATOMIC_LEN: u64 = 8;
    /// BTH opcode of an RC ACKNOWLEDGE (the responder's ACK and NAK; checked
    /// against `rnic_proto::Opcode::RcAck` in `tb/tests/ack_gen.rs`).
    BTH_RC_ACKNOWLEDGE: u64 = 0x11;
    /// The AETH syndrome byte: bit 7 reserved (0), bits 6:5 the kind, bits
    /// 4:0 its value (an ACK's credit code, an RNR NAK's timer code, a NAK's
    /// code). `rnic_proto::AethKind::syndrome` is the table; these are checked
    /// against it in `tb/tests/ack_gen.rs` (`aeth_codes_are_the_models`).
    AETH_KIND_LSB: u64 = 5;
    AETH_KIND_ACK: u64 = 0;
    AETH_KIND_RNR_NAK: u64 = 1;
    AETH_KIND_NAK: u64 = 3;
    /// An ACK's credit code when credits are not tracked (rxe and the model send it).
    AETH_CREDIT_UNLIMITED: u64 = 0x1f;
    /// NAK codes.
    AETH_NAK_PSN_SEQ: u64 = 0;
    AETH_NAK_INVALID_REQ: u64 = 1;
    AETH_NAK_REMOTE_ACCESS: u64 = rnic_contract::mr::NAK_REMOTE_ACCESS_ERROR;
    AETH_NAK_REMOTE_OP: u64 = 3;
    BTH_POS_FIRST: u64 = 0;
    BTH_POS_MIDDLE: u64 = 1;
    BTH_POS_LAST: u64 = 2;
    BTH_POS_LAST_IMM: u64 = 3;
    BTH_POS_ONLY: u64 = 4;
    BTH_POS_ONLY_IMM: u64 = 5;
    /// Every RC request opcode by name (`resp_check` decodes them).
    BTH_RC_SEND_MIDDLE: u64 = BTH_RC_SEND_FIRST + BTH_POS_MIDDLE;
    BTH_RC_SEND_LAST: u64 = BTH_RC_SEND_FIRST + BTH_POS_LAST;
    BTH_RC_SEND_LAST_IMM: u64 = BTH_RC_SEND_FIRST + BTH_POS_LAST_IMM;
    BTH_RC_SEND_ONLY: u64 = BTH_RC_SEND_FIRST + BTH_POS_ONLY;
    BTH_RC_SEND_ONLY_IMM: u64 = BTH_RC_SEND_FIRST + BTH_POS_ONLY_IMM;
    BTH_RC_WRITE_MIDDLE: u64 = BTH_RC_WRITE_FIRST + BTH_POS_MIDDLE;
    BTH_RC_WRITE_LAST: u64 = BTH_RC_WRITE_FIRST + BTH_POS_LAST;
    BTH_RC_WRITE_LAST_IMM: u64 = BTH_RC_WRITE_FIRST + BTH_POS_LAST_IMM;
    BTH_RC_WRITE_ONLY: u64 = BTH_RC_WRITE_FIRST + BTH_POS_ONLY;
    BTH_RC_WRITE_ONLY_IMM: u64 = BTH_RC_WRITE_FIRST + BTH_POS_ONLY_IMM;
    BTH_RC_SEND_LAST_INV: u64 = 0x16;
    BTH_RC_SEND_ONLY_INV: u64 = 0x17;
    /// SGE fields (`layouts::sge`) in a send WQE's SGES (SGE `i` at bit `i * SGE_BITS`).
    SGE_BITS: usize = sge::SIZE * 8;
    SGE_ADDR: usize = sge::ADDR.pos();
    SGE_LEN: usize = sge::LEN.pos();
    SGE_LKEY: usize = sge::LKEY.pos();
    /// Address handle fields (`layouts::ah`, the QP context's PATH): lowest
    /// bit in the 512-bit entry (byte `b` in bits `8b+7..8b`).
    AH_DEST_IP: usize = ah::DEST_IP.pos();
    AH_SRC_IP: usize = ah::SRC_IP.pos();
    AH_DEST_MAC: usize = ah::DEST_MAC.pos();
    AH_SRC_MAC: usize = ah::SRC_MAC.pos();
    AH_VLAN_ID: usize = ah::VLAN_ID.pos();
    AH_VLAN: usize = ah::VLAN.pos();
    AH_VLAN_PCP: usize = ah::VLAN_PCP.pos();
    AH_TRAFFIC_CLASS: usize = ah::TRAFFIC_CLASS.pos();
    AH_HOP_LIMIT: usize = ah::HOP_LIMIT.pos();
    AH_FLOW_LABEL: usize = ah::FLOW_LABEL.pos();
    /// Transmit header fields (`wire::TX_HDR_FIELDS`): lowest bit.
    TXF_ETH_DST: u64 = crate::wire::tx_field_lsb("eth_dst");
    TXF_ETH_SRC: u64 = crate::wire::tx_field_lsb("eth_src");
    TXF_VLAN: u64 = crate::wire::tx_field_lsb("vlan");
    TXF_VLAN_TCI: u64 = crate::wire::tx_field_lsb("vlan_tci");
    TXF_V6: u64 = crate::wire::tx_field_lsb("v6");
    TXF_DSCP: u64 = crate::wire::tx_field_lsb("dscp");
    TXF_ECN: u64 = crate::wire::tx_field_lsb("ecn");
    TXF_TTL: u64 = crate::wire::tx_field_lsb("ttl");
    TXF_FLOW_LABEL: u64 = crate::wire::tx_field_lsb("flow_label");
    TXF_IP_SRC: u64 = crate::wire::tx_field_lsb("ip_src");
    TXF_IP_DST: u64 = crate::wire::tx_field_lsb("ip_dst");
    TXF_OPCODE: u64 = crate::wire::tx_field_lsb("opcode");
    TXF_SE: u64 = crate::wire::tx_field_lsb("se");
    TXF_PKEY: u64 = crate::wire::tx_field_lsb("pkey");
    TXF_DESTQP: u64 = crate::wire::tx_field_lsb("destqp");
    TXF_ACKREQ: u64 = crate::wire::tx_field_lsb("ackreq");
    TXF_PSN: u64 = crate::wire::tx_field_lsb("psn");
    TXF_SRC_QP: u64 = crate::wire::tx_field_lsb("src_qp");
    TXF_RETH_VA: u64 = crate::wire::tx_field_lsb("reth_va");
    TXF_RETH_RKEY: u64 = crate::wire::tx_field_lsb("reth_rkey");
    TXF_RETH_DMALEN: u64 = crate::wire::tx_field_lsb("reth_dmalen");
    TXF_AETH_SYNDROME: u64 = crate::wire::tx_field_lsb("aeth_syndrome");
    TXF_AETH_MSN: u64 = crate::wire::tx_field_lsb("aeth_msn");
    TXF_ATOMIC_VA: u64 = crate::wire::tx_field_lsb("atomic_va");
    TXF_ATOMIC_RKEY: u64 = crate::wire::tx_field_lsb("atomic_rkey");
    TXF_ATOMIC_SWAP: u64 = crate::wire::tx_field_lsb("atomic_swap");
    TXF_ATOMIC_CMP: u64 = crate::wire::tx_field_lsb("atomic_cmp");
    TXF_ATOMICACK: u64 = crate::wire::tx_field_lsb("atomicack");
    TXF_IMMDT: u64 = crate::wire::tx_field_lsb("immdt");
    TXF_PAYLOAD_LEN: u64 = crate::wire::tx_field_lsb("payload_len");
    // ---- the requester's fetch stage (hw/src/transport/req_fetch.rs)
    /// PSNs a QP may have sent and not had acknowledged (rxe's window).
    RF_MAX_UNACKED: u64 = 128;
    /// `qpc.STATE` of a QP that sends.
    QP_STATE_RTS: u64 = QpState::ReadyToSend as u8;
    /// `qpc.STATE` of a QP the driver moved to ERR: its queues are flushed.
    QP_STATE_ERR: u64 = QpState::Error as u8;
    /// The requester's bytes of a `qps` entry, as a byte mask.
    RF_QPS_REQ_MASK: u64 = ((1u64 << qps::REQUESTER_BYTES.end) - 1) & !((1u64 << qps::REQUESTER_BYTES.start) - 1);
    QPC_STATE: usize = qpc::STATE.pos();
    QPC_PMTU: usize = qpc::PMTU.pos();
    QPC_MAX_RD_ATOMIC: usize = qpc::MAX_RD_ATOMIC.pos();
    QPC_SQ_PSN: usize = qpc::SQ_PSN.pos();
    QPC_DEST_QPN: usize = qpc::DEST_QPN.pos();
    QPC_PD: usize = qpc::PD.pos();
    QPC_PKEY: usize = qpc::PKEY.pos();
    QPC_PATH: usize = qpc::PATH.pos();
    QPS_REQ_STARTED: usize = qps::REQ_STARTED.pos();
    QPS_REQ_REFUSED: usize = qps::REQ_REFUSED.pos();
    QPS_RD_STARTED: usize = qps::RD_ATOMIC_STARTED.pos();
    QPS_NEXT_PSN: usize = qps::NEXT_PSN.pos();
    QPS_SENT_END: usize = qps::SENT_END.pos();
    QPS_CURSOR_WQE: usize = qps::CURSOR_WQE.pos();
    QPS_CURSOR_PKT: usize = qps::CURSOR_PKT.pos();
    /// The same, as shift amounts (the write-back's data).
    QPSW_REQ_STARTED: u64 = qps::REQ_STARTED.pos();
    QPSW_REQ_REFUSED: u64 = qps::REQ_REFUSED.pos();
    QPSW_RD_STARTED: u64 = qps::RD_ATOMIC_STARTED.pos();
    QPSW_NEXT_PSN: u64 = qps::NEXT_PSN.pos();
    QPSW_SENT_END: u64 = qps::SENT_END.pos();
    QPSW_CURSOR_WQE: u64 = qps::CURSOR_WQE.pos();
    QPSW_CURSOR_PKT: u64 = qps::CURSOR_PKT.pos();
    QPS_COMP_STARTED: usize = qps::COMP_STARTED.pos();
    QPS_RD_DONE: usize = qps::RD_ATOMIC_DONE.pos();
    QPS_UNA: usize = qps::UNA.pos();
    /// The completer's head (a go-back-N restarts the cursor there).
    QPS_HEAD_WQE: usize = qps::HEAD_WQE.pos();
    QPS_HEAD_FIRST: usize = qps::HEAD_FIRST_PSN.pos();
    /// The completer's RNR wait: the requester sends nothing meanwhile.
    QPS_RNR_WAIT: usize = qps::RNR_WAIT.pos();
    /// The completer in error (a fatal NAK, a local error): the requester
    /// sends nothing more.
    QPS_COMP_ERROR: usize = qps::COMP_ERROR.pos();
    WQE_WR_ID: usize = send_wqe::WR_ID.pos();
    WQE_OPCODE: usize = send_wqe::OPCODE.pos();
    WQE_FENCE: usize = send_wqe::FENCE.pos();
    WQE_SIGNALED: usize = send_wqe::SIGNALED.pos();
    WQE_SOLICITED: usize = send_wqe::SOLICITED.pos();
    WQE_INLINE: usize = send_wqe::INLINE.pos();
    WQE_NUM_SGE: usize = send_wqe::NUM_SGE.pos();
    WQE_IMM: usize = send_wqe::IMM.pos();
    WQE_REMOTE_VA: usize = send_wqe::REMOTE_VA.pos();
    WQE_RKEY: usize = send_wqe::RKEY.pos();
    WQE_COMPARE_ADD: usize = send_wqe::COMPARE_ADD.pos();
    WQE_SWAP: usize = send_wqe::SWAP.pos();
    // ---- the responder's per-packet decision (hw/src/transport/resp_check.rs)
    /// Received header fields (`wire::RX_HDR_FIELDS`): lowest bit.
    RXF_OPCODE: usize = crate::wire::rx_field_lsb("bth.opcode");
    RXF_DESTQP: usize = crate::wire::rx_field_lsb("bth.destqp");
    RXF_PKEY: usize = crate::wire::rx_field_lsb("bth.p_key");
    RXF_ACKREQ: usize = crate::wire::rx_field_lsb("bth.a");
    RXF_PSN: usize = crate::wire::rx_field_lsb("bth.psn");
    RXF_HAS_RETH: usize = crate::wire::rx_field_lsb("has.reth");
    RXF_RETH_VA: usize = crate::wire::rx_field_lsb("reth.va");
    RXF_RETH_RKEY: usize = crate::wire::rx_field_lsb("reth.r_key");
    RXF_RETH_DMALEN: usize = crate::wire::rx_field_lsb("reth.dmalen");
    RXF_ATOMIC_VA: usize = crate::wire::rx_field_lsb("atomiceth.va");
    RXF_ATOMIC_RKEY: usize = crate::wire::rx_field_lsb("atomiceth.r_key");
    RXF_ATOMIC_SWAP: usize = crate::wire::rx_field_lsb("atomiceth.swapdt");
    RXF_ATOMIC_CMP: usize = crate::wire::rx_field_lsb("atomiceth.cmpdt");
    RXF_PAYLOAD_LEN: usize = crate::wire::rx_field_lsb("payload_len");
    /// QP context fields the responder reads (`layouts::qpc`): lowest bit.
    QPC_MIN_RNR: usize = qpc::MIN_RNR_TIMER.pos();
    QPC_MAX_DEST_RD: usize = qpc::MAX_DEST_RD_ATOMIC.pos();
    /// The QP's remote rights, WRITE, READ, atomic from bit 0 (`RespFields::acc`).
    QPC_REMOTE_ACC: usize = qpc::REMOTE_WRITE.pos();
    QPC_RQ_PSN: usize = qpc::RQ_PSN.pos();
    /// The responder's bytes of a `qps` entry (`RESPONDER_BYTES`) as one
    /// word: its lowest bit in the entry, and each field's lowest bit in the word.
    QPS_RESP_LSB: u64 = 8 * qps::RESPONDER_BYTES.start;
    QPSR_STARTED: u64 = qps::RESP_STARTED.pos() - 8 * qps::RESPONDER_BYTES.start;
    QPSR_NAK_SENT: u64 = qps::NAK_SENT.pos() - 8 * qps::RESPONDER_BYTES.start;
    QPSR_ACK_PENDING: u64 = qps::ACK_PENDING.pos() - 8 * qps::RESPONDER_BYTES.start;
    QPSR_IN_PROGRESS: u64 = qps::IN_PROGRESS.pos() - 8 * qps::RESPONDER_BYTES.start;
    QPSR_RECV_VALID: u64 = qps::RECV_VALID.pos() - 8 * qps::RESPONDER_BYTES.start;
    QPSR_EPSN: u64 = qps::EPSN.pos() - 8 * qps::RESPONDER_BYTES.start;
    QPSR_MSN: u64 = qps::MSN.pos() - 8 * qps::RESPONDER_BYTES.start;
    QPSR_RECV_WQE: u64 = qps::RECV_WQE.pos() - 8 * qps::RESPONDER_BYTES.start;
    QPSR_RECV_PLACED: u64 = qps::RECV_PLACED.pos() - 8 * qps::RESPONDER_BYTES.start;
    QPSR_WRITE_VA: u64 = qps::WRITE_VA.pos() - 8 * qps::RESPONDER_BYTES.start;
    QPSR_WRITE_RKEY: u64 = qps::WRITE_RKEY.pos() - 8 * qps::RESPONDER_BYTES.start;
    QPSR_WRITE_REMAINING: u64 = qps::WRITE_REMAINING.pos() - 8 * qps::RESPONDER_BYTES.start;
    QPSR_WRITE_LEN: u64 = qps::WRITE_LEN.pos() - 8 * qps::RESPONDER_BYTES.start;
    /// Fields `resp_check` passes through: RECV_SGE, RECV_SGE_OFFSET.
    QPSR_RECV_SGE: u64 = qps::RECV_SGE.pos() - 8 * qps::RESPONDER_BYTES.start;
    QPSR_SGE_OFFSET: u64 = qps::RECV_SGE_OFFSET.pos() - 8 * qps::RESPONDER_BYTES.start;
    /// The replay window (`resp_check` moves it on an executed READ or atomic).
    QPSR_REPLAY_HEAD: u64 = qps::REPLAY_HEAD.pos() - 8 * qps::RESPONDER_BYTES.start;
    QPSR_REPLAY_COUNT: u64 = qps::REPLAY_COUNT.pos() - 8 * qps::RESPONDER_BYTES.start;
    /// The replay slots a QP has (`resource::SLOTS`), and their bytes in
    /// the replay table (QPN << REPLAY_QP_SHIFT is a QP's offset).
    REPLAY_SLOTS: u64 = resource::SLOTS;
    REPLAY_QP_BYTES: u64 = resource::QP_BYTES;
    REPLAY_QP_SHIFT: u64 = resource::QP_BYTES.trailing_zeros();
    /// Bits of a replay table entry, and its fields' lowest bits (`layouts::resource`).
    REPLAY_ENTRY_BITS: usize = 8 * resource::SIZE;
    RP_FIRST_PSN: u64 = resource::FIRST_PSN.pos();
    RP_VALID: u64 = resource::VALID.pos();
    RP_ATOMIC: u64 = resource::ATOMIC.pos();
    RP_LAST_PSN: u64 = resource::LAST_PSN.pos();
    RP_VA: u64 = resource::VA.pos();
    RP_RKEY: u64 = resource::RKEY.pos();
    RP_LEN: u64 = resource::LEN.pos();
    /// `resp_check`'s `m_dec.wr_mask`: every responder byte (the replay
    /// window's bits included, which spill from byte 62 into 63).
    RESP_WR_MASK: u64 = !((1u64 << qps::RESPONDER_BYTES.start) - 1);
    /// `IN_PROGRESS` codes.
    IP_NONE: u64 = qps::IN_PROGRESS_NONE;
    IP_SEND: u64 = qps::IN_PROGRESS_SEND;
    IP_WRITE: u64 = qps::IN_PROGRESS_WRITE;
    IP_ERROR: u64 = qps::IN_PROGRESS_ERROR;
    /// `resp_check`'s verdicts (`m_dec.verdict`).
    RESP_DROP: u64 = 0;
    RESP_EXEC_SEND: u64 = 1;
    RESP_EXEC_WRITE: u64 = 2;
    RESP_EXEC_READ: u64 = 3;
    RESP_EXEC_ATOMIC: u64 = 4;
    RESP_DUP_SEND: u64 = 5;
    RESP_DUP_WRITE: u64 = 6;
    RESP_DUP_READ: u64 = 7;
    RESP_DUP_ATOMIC: u64 = 8;
    RESP_NAK_SEQ: u64 = 9;
    RESP_NAK_INV: u64 = 10;
    RESP_RNR: u64 = 11;
    /// An RQ flush record of a QP in error (`RXF_RQ_FLUSH`) that finds
    /// RECVs posted: `resp_exec` completes each with WR_FLUSH_ERR.
    RESP_EXEC_FLUSH: u64 = 12;
    /// An RQ flush record that finds no RECV posted: nothing to do but its
    /// write-back (not a silent drop: no counter, no payload to drop).
    RESP_FLUSH_NONE: u64 = 13;
    /// `resp_exec`'s translation request ids: the head (the payload, or the
    /// first byte), the tail (the last byte of a checked range), a SEND's
    /// SGE piece before its last (the last one is the head).
    RESP_XID_HEAD: u64 = 0;
    RESP_XID_TAIL: u64 = 1;
    RESP_XID_SGE: u64 = 2;
    /// `comp_read`'s translation request id of a packet's last SGE piece
    /// (its answer's `last` beat ends the packet's pieces).
    COMP_READ_XID_LAST: u64 = 1;
    // ---- resp_exec's RECV path (recv_walk.rs): the RQ entry (`layouts::recv_wqe`)
    /// Bytes of an RQ entry, its log2, the SGE limit.
    RW_BYTES: u64 = recv_wqe::SIZE;
    RW_SHIFT: u64 = recv_wqe::SIZE.trailing_zeros();
    RW_MAX_SGE: u64 = recv_wqe::MAX_SGE;
    /// Fields of an RQ entry (bit positions in its 512-bit beat).
    RW_WR_ID: usize = recv_wqe::WR_ID.pos();
    RW_NUM_SGE: usize = recv_wqe::NUM_SGE.pos();
    RW_ADDR0: usize = recv_wqe::sge_range(0).start * 8 + sge::ADDR.pos();
    RW_ADDR1: usize = recv_wqe::sge_range(1).start * 8 + sge::ADDR.pos();
    RW_ADDR2: usize = recv_wqe::sge_range(2).start * 8 + sge::ADDR.pos();
    RW_LEN0: usize = recv_wqe::sge_range(0).start * 8 + sge::LEN.pos();
    RW_LEN1: usize = recv_wqe::sge_range(1).start * 8 + sge::LEN.pos();
    RW_LEN2: usize = recv_wqe::sge_range(2).start * 8 + sge::LEN.pos();
    RW_KEY0: usize = recv_wqe::sge_range(0).start * 8 + sge::LKEY.pos();
    RW_KEY1: usize = recv_wqe::sge_range(1).start * 8 + sge::LKEY.pos();
    RW_KEY2: usize = recv_wqe::sge_range(2).start * 8 + sge::LKEY.pos();
    // ---- read_walk.rs: a send WQE's SGEs (`layouts::send_wqe::SGES`, the WQE's second beat)
    SW_MAX_SGE: u64 = send_wqe::MAX_SGE;
    SW_ADDR0: usize = send_wqe::sge_range(0).start * 8 - 512 + sge::ADDR.pos();
    SW_ADDR1: usize = send_wqe::sge_range(1).start * 8 - 512 + sge::ADDR.pos();
    SW_ADDR2: usize = send_wqe::sge_range(2).start * 8 - 512 + sge::ADDR.pos();
    SW_ADDR3: usize = send_wqe::sge_range(3).start * 8 - 512 + sge::ADDR.pos();
    SW_LEN0: usize = send_wqe::sge_range(0).start * 8 - 512 + sge::LEN.pos();
    SW_LEN1: usize = send_wqe::sge_range(1).start * 8 - 512 + sge::LEN.pos();
    SW_LEN2: usize = send_wqe::sge_range(2).start * 8 - 512 + sge::LEN.pos();
    SW_LEN3: usize = send_wqe::sge_range(3).start * 8 - 512 + sge::LEN.pos();
    SW_KEY0: usize = send_wqe::sge_range(0).start * 8 - 512 + sge::LKEY.pos();
    SW_KEY1: usize = send_wqe::sge_range(1).start * 8 - 512 + sge::LKEY.pos();
    SW_KEY2: usize = send_wqe::sge_range(2).start * 8 - 512 + sge::LKEY.pos();
    SW_KEY3: usize = send_wqe::sge_range(3).start * 8 - 512 + sge::LKEY.pos();
    /// `rq_ahead`: RQ entries held ahead (its LUTRAM's places) and the depth
    /// a new window starts with (the entry asked for and one more).
    RQ_AHEAD_SLOTS: u64 = 1u64 << crate::transport::RQ_AHEAD_LOG;
    RQ_AHEAD_START: u64 = 2;
    /// `rq_ahead`: RQ reads in flight at most (the window's, the hints', a miss's).
    RQ_AHEAD_ROOM: u64 = 24;
    /// `rq_ahead`: where the hint slots start in its entry memory.
    RQ_RAM_SLOTS_AT: u64 = 16;
    /// `send_sched` and `req_fetch`: QPs in service at once (the
    /// scheduler's service slots, `req_fetch`'s slots, `sq_ahead`'s reads
    /// outstanding), and the bits of a slot number.
    SCHED_SLOT_BITS: usize = 4;
    SCHED_SLOTS: usize = 1usize << SCHED_SLOT_BITS;
    /// `req_fetch`'s grant order word: the slot, the QPN above it, the
    /// rewind flag on top (the shifts as `u64`, the positions as `usize`).
    REQ_ORDER_BITS: usize = SCHED_SLOT_BITS + 14 + 1;
    REQ_ORDER_QPN_SHIFT: u64 = SCHED_SLOT_BITS;
    REQ_ORDER_REWIND: usize = SCHED_SLOT_BITS + 14;
    REQ_ORDER_REWIND_SHIFT: u64 = SCHED_SLOT_BITS + 14;
    /// Every slot's bit set (`req_slots`' free flags after reset).
    SCHED_ALL_SLOTS: u64 = (1u64 << SCHED_SLOTS) - 1;
    /// One-hot slot to slot number (`req_slots`): bit b of the number is
    /// set for the slots in `SLOT_ENC[b]`.
    SLOT_ENC0: u64 = slot_enc(0);
    SLOT_ENC1: u64 = slot_enc(1);
    SLOT_ENC2: u64 = slot_enc(2);
    SLOT_ENC3: u64 = slot_enc(3);
    /// One-hot to slot number for `read_ahead`'s 32 slots.
    RA_ENC0: u64 = slot_enc_of(0, crate::transport::READ_AHEAD_SLOTS);
    RA_ENC1: u64 = slot_enc_of(1, crate::transport::READ_AHEAD_SLOTS);
    RA_ENC2: u64 = slot_enc_of(2, crate::transport::READ_AHEAD_SLOTS);
    RA_ENC3: u64 = slot_enc_of(3, crate::transport::READ_AHEAD_SLOTS);
    RA_ENC4: u64 = slot_enc_of(4, crate::transport::READ_AHEAD_SLOTS);
    /// `sq_ahead`: send WQEs held from the last handed out on (its LUTRAM's
    /// places), the depth a new window starts with (the WQE asked for and
    /// one more), and the commands queued below which it reads ahead.
    SQ_AHEAD_PLACES: u64 = 1u64 << crate::transport::SQ_AHEAD_LOG;
    SQ_AHEAD_START: u64 = 2;
    SQ_AHEAD_WIN_CMDS: u64 = 40;
    /// Bytes of a send WQE (`sq_ahead`'s DMA reads).
    SW_BYTES: u64 = send_wqe::SIZE as u64;
    /// `qps.RECV_SGE` and `RECV_SGE_OFFSET` in a 512-bit `qps` line.
    QPS_RECV_SGE_POS: usize = qps::RECV_SGE.pos();
    QPS_SGE_OFFSET_POS: usize = qps::RECV_SGE_OFFSET.pos();
    QPS_SGE_OFFSET_SHIFT: u64 = qps::RECV_SGE_OFFSET.pos();
    /// Receive completion codes.
    WCS_LOC_LEN_ERR: u64 = WcStatus::LocLenErr as u8;
    WCS_LOC_PROT_ERR: u64 = WcStatus::LocProtErr as u8;
    WCS_LOC_QP_OP_ERR: u64 = WcStatus::LocQpOpErr as u8;
    WCO_RECV: u64 = WcOpcode::Recv as u8;
    WCO_RECV_RDMA_IMM: u64 = WcOpcode::RecvRdmaWithImm as u8;
    /// `IN_PROGRESS` in a 512-bit `qps` line; the AETH syndrome's kind field.
    QPS_IN_PROGRESS_POS: usize = qps::IN_PROGRESS.pos();
    /// `RESP_STARTED` in a 512-bit `qps` line (the responder in error:
    /// with `IN_PROGRESS` ERROR).
    QPS_RESP_STARTED_POS: usize = qps::RESP_STARTED.pos();
    /// `RECV_WQE` and `RECV_VALID` in a 512-bit `qps` line (a failure's write).
    QPS_RECV_WQE_POS: u64 = qps::RECV_WQE.pos();
    QPS_RECV_VALID_POS: usize = qps::RECV_VALID.pos();
    /// The replay window and the expected PSN in a `qps` entry (`resp_exec`'s puts and finds).
    QPS_REPLAY_HEAD_POS: usize = qps::REPLAY_HEAD.pos();
    QPS_REPLAY_COUNT_POS: usize = qps::REPLAY_COUNT.pos();
    QPS_EPSN_POS: usize = qps::EPSN.pos();
    AETH_KIND_POS: usize = AETH_KIND_LSB;
    // ---- the completer's ACK path (hw/src/transport/comp_ack.rs)
    /// The AETH syndrome of a received header, lowest bit.
    RXF_AETH_SYNDROME: usize = crate::wire::rx_field_lsb("aeth.syndrome");
    /// The syndrome's top three bits (bit 7 and the kind).
    RXF_AETH_KIND: usize = crate::wire::rx_field_lsb("aeth.syndrome") + 5;
    /// QP context fields the completer reads (`layouts::qpc`): lowest bit
    /// (and `QPC_SQ_PSN`, declared with the requester's).
    QPC_SEND_CQ: usize = qpc::SEND_CQ.pos();
    QPC_RETRY_CNT: usize = qpc::RETRY_CNT.pos();
    QPC_RNR_RETRY: usize = qpc::RNR_RETRY.pos();
    /// The local ACK timeout code (4.096 us x 2^code; 0: none).
    QPC_TIMEOUT: usize = qpc::TIMEOUT.pos();
    // ---- the receive lookup (hw/src/transport/rx_lookup.rs)
    /// The QP's type in its context, lowest bit.
    QPC_TYPE: usize = qpc::QP_TYPE.pos();
    /// The RC response opcodes (low five bits, RC transport): READ response
    /// first to ATOMIC ACKNOWLEDGE.
    RC_RESP_FIRST: u64 = *rnic_contract::qp_modify::RC_RESPONSES.start();
    RC_RESP_LAST: u64 = *rnic_contract::qp_modify::RC_RESPONSES.end();
    /// The id bit marking the receive side's `qps` writes (their answers
    /// are dropped); below it the ring slot.
    RXL_WRITE_ID: u64 = 0x20;
    /// The receive FIFO's pause marks, in beats of fill (`mac::RxPause`):
    /// half the FIFO asks the partner to pause, a quarter lets it go on.
    /// The half above XOFF (16 KiB) is the headroom for the frame the
    /// partner is sending, the wire both ways and the pause frame's own
    /// (docs/mac.md, "Pause").
    RX_PAUSE_XOFF_BEATS: u64 = crate::mac::RX_DEPTH / 2;
    RX_PAUSE_XON_BEATS: u64 = crate::mac::RX_DEPTH / 4;
    /// Where a received packet's payload goes (`RxLookup::m_dest`).
    RX_DEST_DROP: u64 = 0;
    RX_DEST_REQ: u64 = 1;
    RX_DEST_RESP: u64 = 2;
    /// A record on the receive path that is no packet: a QP's retransmit
    /// timer ran out (`RxLookup::s_expire`). Its bit in the header record,
    /// above the packed fields (the parser leaves it 0); the record is an
    /// ACKNOWLEDGE with a PSN sequence NAK syndrome for the QP, which
    /// `comp_ack` takes as a NAK at UNA that always resends (docs/transport_blocks.md).
    RXF_TIMER: usize = crate::wire::RX_HDR_BITS - 1;
    /// The synthetic record's opcode and AETH syndrome.
    TIMER_OPCODE: u64 = 0x11;
    TIMER_SYNDROME: u64 = 0x60;
    /// `comp_ack`'s syndrome for a record it makes fatal itself (a timer's
    /// record whose retries are spent, an RNR NAK with its RNR retries
    /// spent): a NAK (code 31, reserved on the wire) it takes as fatal,
    /// completing with the status it sets beside (RETRY_EXC_ERR,
    /// RNR_RETRY_EXC_ERR).
    TIMER_EXC_SYNDROME: u64 = 0x7f;
    /// Their places in the record (shift amounts).
    TIMER_SH_OPCODE: u64 = crate::wire::rx_field_lsb("bth.opcode");
    TIMER_SH_SYNDROME: u64 = crate::wire::rx_field_lsb("aeth.syndrome");
    TIMER_SH_DESTQP: u64 = crate::wire::rx_field_lsb("bth.destqp");
    TIMER_SH_FLAG: u64 = crate::wire::RX_HDR_BITS - 1;
    /// The record's kind (an RNR timer's), the bit below the flag.
    RXF_TIMER_RNR: usize = crate::wire::RX_HDR_BITS - 2;
    TIMER_SH_RNR: u64 = crate::wire::RX_HDR_BITS - 2;
    /// A record of a WQE the requester refused (`RxLookup::s_local`), the
    /// bit below: with the flag, `comp_ack` flushes the QP's list.
    RXF_LOCAL_ERR: usize = crate::wire::RX_HDR_BITS - 3;
    TIMER_SH_LOCAL: u64 = crate::wire::RX_HDR_BITS - 3;
    /// An RQ flush record (`RxLookup::s_rq_flush`), the bit below: with the
    /// flag, a request-path record (opcode `FLUSH_OPCODE`) that takes no
    /// payload; `resp_check` flushes the QP's posted RECVs when it is in error.
    RXF_RQ_FLUSH: usize = crate::wire::RX_HDR_BITS - 4;
    TIMER_SH_RQ_FLUSH: u64 = crate::wire::RX_HDR_BITS - 4;
    /// The RQ flush record's opcode: RC SEND ONLY (a request of the RC
    /// transport; `resp_check` decides it by `RXF_RQ_FLUSH`, not by it).
    FLUSH_OPCODE: u64 = BTH_RC_SEND_ONLY;
    /// The retransmit timer's tick (4.096 us at the 250 MHz core clock), in
    /// cycles, minus one: the core's `RetryTimer::tick_m1`.
    TIMER_TICK_M1: u64 = crate::transport::TIMER_TICK_CYCLES - 1;
    // the requester's `qps` fields the completer reads: QPS_REQ_STARTED and
    // QPS_SENT_END, declared with the requester's
    /// The completer's bytes of a `qps` entry (`COMPLETER_BYTES`) as one
    /// word: its lowest bit in the entry, and each field's lowest bit in the word.
    QPS_COMP_LSB: u64 = 8 * qps::COMPLETER_BYTES.start;
    QPSC_STARTED: u64 = qps::COMP_STARTED.pos() - 8 * qps::COMPLETER_BYTES.start;
    QPSC_IN_READ: u64 = qps::IN_READ_RESP.pos() - 8 * qps::COMPLETER_BYTES.start;
    QPSC_RETRY_VALID: u64 = qps::RETRY_VALID.pos() - 8 * qps::COMPLETER_BYTES.start;
    QPSC_RETRIES: u64 = qps::RETRIES_LEFT.pos() - 8 * qps::COMPLETER_BYTES.start;
    QPSC_ERROR: u64 = qps::COMP_ERROR.pos() - 8 * qps::COMPLETER_BYTES.start;
    QPSC_RNR_WAIT: u64 = qps::RNR_WAIT.pos() - 8 * qps::COMPLETER_BYTES.start;
    QPSC_RD_DONE: u64 = qps::RD_ATOMIC_DONE.pos() - 8 * qps::COMPLETER_BYTES.start;
    QPSC_RNR_RETRIES: u64 = qps::RNR_RETRIES_LEFT.pos() - 8 * qps::COMPLETER_BYTES.start;
    QPSC_HEAD_FIRST: u64 = qps::HEAD_FIRST_PSN.pos() - 8 * qps::COMPLETER_BYTES.start;
    QPSC_UNA: u64 = qps::UNA.pos() - 8 * qps::COMPLETER_BYTES.start;
    QPSC_RETRY_PSN: u64 = qps::RETRY_PSN.pos() - 8 * qps::COMPLETER_BYTES.start;
    QPSC_HEAD_WQE: u64 = qps::HEAD_WQE.pos() - 8 * qps::COMPLETER_BYTES.start;
    /// `comp_ack`'s `m_dec.wr_mask`: the completer's bytes.
    COMP_WR_MASK: u64 = ((1u64 << qps::COMPLETER_BYTES.end) - 1) & !((1u64 << qps::COMPLETER_BYTES.start) - 1);
    /// BTH opcodes of RC responses: READ RESPONSE FIRST (the first of the
    /// four READ response opcodes) and ATOMIC ACKNOWLEDGE.
    BTH_RC_READ_RESP_FIRST: u64 = 0x0d;
    BTH_RC_READ_RESP_MIDDLE: u64 = 0x0e;
    BTH_RC_READ_RESP_LAST: u64 = 0x0f;
    BTH_RC_READ_RESP_ONLY: u64 = 0x10;
    BTH_RC_ATOMIC_ACK: u64 = 0x12;
    /// Received header fields of READ responses and atomic ACKs: the
    /// payload's first lane, the atomic ACK's original remote value.
    RXF_PAYLOAD_LANE: usize = crate::wire::rx_field_lsb("payload_lane");
    RXF_ATOMIC_ORIG: usize = crate::wire::rx_field_lsb("atomicacketh.origremdt");
    /// `comp_ack`'s verdicts (`m_dec.verdict`): the QP is in error (dropped,
    /// not counted); PSN not outstanding (ghost or duplicate, counted);
    /// reserved AETH syndrome (counted as a ghost, as the model); ACK; RNR
    /// NAK; NAK PSN sequence error; fatal NAK (invalid request, remote
    /// access, remote operational or any other code); a READ response or
    /// atomic ACK with an outstanding PSN (the walk through PSN - 1, the
    /// head WQE's checks, the placement record: `m_dec.place`, `stale`).
    COMP_DROP: u64 = 0;
    COMP_GHOST: u64 = 1;
    COMP_RESERVED: u64 = 2;
    COMP_ACK: u64 = 3;
    COMP_RNR: u64 = 4;
    COMP_NAK_SEQ: u64 = 5;
    COMP_NAK_FATAL: u64 = 6;
    COMP_RD_RESP: u64 = 7;
    /// `comp_ack`'s actions (`m_dec.action`): none; go-back-N from
    /// `action_psn` (a command to the requester); RNR wait (`action_psn`,
    /// `timer`: for the retry timer); the QP goes to error (`status`).
    CACT_NONE: u64 = 0;
    CACT_RESEND: u64 = 1;
    CACT_RNR_WAIT: u64 = 2;
    CACT_ERROR: u64 = 3;
    /// Completion status and opcode codes (`codes::WcStatus`, `codes::WcOpcode`).
    WCS_SUCCESS: u64 = WcStatus::Success as u8;
    WCS_WR_FLUSH_ERR: u64 = WcStatus::WrFlushErr as u8;
    WCS_REM_INV_REQ_ERR: u64 = WcStatus::RemInvReqErr as u8;
    WCS_REM_ACCESS_ERR: u64 = WcStatus::RemAccessErr as u8;
    WCS_REM_OP_ERR: u64 = WcStatus::RemOpErr as u8;
    WCS_BAD_RESP_ERR: u64 = WcStatus::BadRespErr as u8;
    WCS_RETRY_EXC_ERR: u64 = WcStatus::RetryExcErr as u8;
    WCS_RNR_RETRY_EXC_ERR: u64 = WcStatus::RnrRetryExcErr as u8;
    WCO_SEND: u64 = WcOpcode::Send as u8;
    WCO_RDMA_WRITE: u64 = WcOpcode::RdmaWrite as u8;
    WCO_RDMA_READ: u64 = WcOpcode::RdmaRead as u8;
    WCO_COMP_SWAP: u64 = WcOpcode::CompSwap as u8;
    WCO_FETCH_ADD: u64 = WcOpcode::FetchAdd as u8;
    /// AETH syndromes (IBTA 9.7.5.1.2; `rnic_proto::AethKind` is checked
    /// against these in `tb/tests/resp_check.rs`): ACK with the credit field
    /// "unlimited", RNR NAK (| the 5-bit timer), NAK (| the code).
    AETH_ACK: u64 = 0x1f;
    AETH_RNR: u64 = 0x20;
    AETH_NAK_SEQ: u64 = 0x60;
    AETH_NAK_INV: u64 = 0x61;
    AETH_NAK_ACCESS: u64 = 0x62;
    AETH_NAK_OPERATIONAL: u64 = 0x63;
    /// `exec_side`: what `resp_exec` needs beside `resp_check`'s decision,
    /// from the packet's qpc line and header.
    QPC_RECV_CQ: usize = qpc::RECV_CQ.pos();
    RXF_IMMDT: usize = crate::wire::rx_field_lsb("immdt");
    RXF_HAS_IMMDT: usize = crate::wire::rx_field_lsb("has.immdt");
    /// BTH.SE, the solicited event (on a SEND's or WRITE with immediate's last packet).
    RXF_SE: usize = crate::wire::rx_field_lsb("bth.se");
    /// `exec_side`'s FIFO word: the fields of `ExecSideOut` packed from bit 0.
    ES_PD: u64 = 0;
    ES_DEST_QPN: u64 = ES_PD + 24;
    ES_PKEY: u64 = ES_DEST_QPN + 24;
    ES_PLEN: u64 = ES_PKEY + 16;
    ES_LANE: u64 = ES_PLEN + 16;
    ES_RQ_BASE: u64 = ES_LANE + 6;
    ES_RQ_LOG: u64 = ES_RQ_BASE + 64;
    ES_RECV_CQ: u64 = ES_RQ_LOG + 4;
    ES_IMM: u64 = ES_RECV_CQ + 24;
    ES_IMM_VALID: u64 = ES_IMM + 32;
    ES_RQ_PROD: u64 = ES_IMM_VALID + 1;
    ES_PMTU: u64 = ES_RQ_PROD + 16;
    ES_SE: u64 = ES_PMTU + 3;
    /// An atomic's operation (FETCH_ADD, else COMPARE_SWAP) and AtomicETH data.
    ES_FADD: u64 = ES_SE + 1;
    ES_CMP: u64 = ES_FADD + 1;
    ES_SWAP: u64 = ES_CMP + 64;
    ES_PATH: u64 = ES_SWAP + 64;
    /// `xlate_ahead`'s record word: `RespDecIn`'s fields packed from bit 0,
    /// then `pre` (the record's translation requests went out ahead).
    XA_QPN: u64 = 0;
    XA_PSN: u64 = XA_QPN + 24;
    XA_VERDICT: u64 = XA_PSN + 24;
    XA_ACK: u64 = XA_VERDICT + crate::transport::RESP_VERDICT_BITS as u64;
    XA_SYNDROME: u64 = XA_ACK + 1;
    XA_AETH_PSN: u64 = XA_SYNDROME + 8;
    XA_AETH_MSN: u64 = XA_AETH_PSN + 24;
    XA_MSN_BEFORE: u64 = XA_AETH_MSN + 24;
    XA_KEY_CHECK: u64 = XA_MSN_BEFORE + 24;
    XA_KEY_ACCESS: u64 = XA_KEY_CHECK + 1;
    XA_RKEY: u64 = XA_KEY_ACCESS + 3;
    XA_VA: u64 = XA_RKEY + 32;
    XA_LEN: u64 = XA_VA + 64;
    XA_RECV_NEW: u64 = XA_LEN + 32;
    XA_RECV_INDEX: u64 = XA_RECV_NEW + 1;
    XA_RECV_OFFSET: u64 = XA_RECV_INDEX + 16;
    XA_RECV_DONE: u64 = XA_RECV_OFFSET + 32;
    XA_CQE_LEN: u64 = XA_RECV_DONE + 1;
    XA_WRITE: u64 = XA_CQE_LEN + 32;
    XA_WR_MASK: u64 = XA_WRITE + 1;
    XA_WR_DATA: u64 = XA_WR_MASK + 64;
    XA_PRE: u64 = XA_WR_DATA + 512;
    /// `xlate_ahead`'s request word, one per record: a barrier (the record's
    /// requests come from `resp_exec` itself), the key check, the placement,
    /// and what its requests are made of.
    XQ_BAR: u64 = 0;
    XQ_CHK: u64 = XQ_BAR + 1;
    XQ_PLACE: u64 = XQ_CHK + 1;
    XQ_KEY: u64 = XQ_PLACE + 1;
    XQ_PD: u64 = XQ_KEY + 32;
    XQ_VA: u64 = XQ_PD + 24;
    /// The range's last byte (`va + len - 1`, the tail request's VA).
    XQ_TAIL: u64 = XQ_VA + 64;
    XQ_PLEN: u64 = XQ_TAIL + 64;
    XQ_ACCESS: u64 = XQ_PLEN + 16;
    /// `xlate_ahead`'s answer word: one beat of `MrRespIn`.
    XR_ID: u64 = 0;
    XR_VERDICT: u64 = XR_ID + crate::mr::MR_ID_BITS as u64;
    XR_IOVA: u64 = XR_VERDICT + crate::mr::MR_VERDICT_BITS as u64;
    XR_LEN: u64 = XR_IOVA + 64;
    XR_LAST: u64 = XR_LEN + 32;
    /// `ack_hold`'s FIFO word: a record's ACK/NAK request and RECV
    /// completion, packed from bit 0; `AH_NEED`: the placed packets that
    /// must be written first (a count modulo 2^`AH_NEED_BITS`).
    AH_QPN: u64 = 0;
    AH_DEST_QPN: u64 = AH_QPN + 24;
    AH_PKEY: u64 = AH_DEST_QPN + 24;
    AH_PSN: u64 = AH_PKEY + 16;
    AH_KIND: u64 = AH_PSN + 24;
    AH_CODE: u64 = AH_KIND + 2;
    AH_MSN: u64 = AH_CODE + 5;
    AH_ACK: u64 = AH_MSN + 24;
    AH_CQE: u64 = AH_ACK + 1;
    AH_CQ: u64 = AH_CQE + 1;
    AH_WR_ID: u64 = AH_CQ + 24;
    AH_STATUS: u64 = AH_WR_ID + 64;
    AH_OPCODE: u64 = AH_STATUS + 8;
    AH_LEN: u64 = AH_OPCODE + 8;
    AH_INDEX: u64 = AH_LEN + 32;
    AH_IMM: u64 = AH_INDEX + 16;
    AH_WITH_IMM: u64 = AH_IMM + 32;
    AH_SOLICITED: u64 = AH_WITH_IMM + 1;
    AH_NEED: u64 = AH_SOLICITED + 1;
    AH_NEED_BITS: u64 = 7;
    /// A READ to answer (`RespReqIn`'s READ fields).
    AH_READ: u64 = AH_NEED + AH_NEED_BITS;
    AH_RD_VA: u64 = AH_READ + 1;
    AH_RD_LEN: u64 = AH_RD_VA + 64;
    AH_RD_RKEY: u64 = AH_RD_LEN + 32;
    AH_RD_PD: u64 = AH_RD_RKEY + 32;
    AH_RD_PMTU: u64 = AH_RD_PD + 24;
    AH_ATOMIC: u64 = AH_RD_PMTU + 3;
    AH_PATH: u64 = AH_ATOMIC + 1;
}

// What the RTL assumes about the layouts beyond positions.
const _: () = {
    assert!(qpc::SQ_PROD.byte + 2 == qpc::SQ_CONS.byte);
    assert!(qpc::SQ_CONS.byte + 2 == qpc::RQ_PROD.byte);
    assert!(qpc::RQ_PROD.byte + 2 == qpc::RQ_CONS.byte);
    assert!(cqc::PROD.byte + 2 == cqc::CONS.byte && cqc::CONS.byte + 2 == cqc::LOG_SIZE.byte);
    assert!(cqc::LOG_SIZE.byte + 1 == cqc::ARMED.byte && cqc::ARMED.byte == cqc::OVERRUN.byte);
    assert!(qpc::SIZE == 128 && cqc::SIZE == 64 && cqe::SIZE == 32);
    assert!(rnic_contract::layouts::send_wqe::SIZE == 128 && rnic_contract::layouts::recv_wqe::SIZE == 64);
    // req_fetch: the decision reads qpc bytes 0..64 and qps bytes 0..25 (the requester's and completer's);
    // the WQE's first beat holds every field but SGES, the second SGES
    assert!(qpc::PATH.pos() == 512 && qpc::SQ_PROD.pos() + 16 <= 512 && qps::COMPLETER_BYTES.end == 25);
    assert!(RXF_RQ_FLUSH >= crate::wire::RX_HDR_PACKED_BITS, "the timer bits lie above the packed header");
    assert!(qps::RECV_WQE.width == 16 && RESP_FLUSH_NONE < 1 << crate::transport::RESP_VERDICT_BITS);
    assert!(send_wqe::SGES.pos() == 512 && send_wqe::SGES.width == 512);
    assert!(qps::CURSOR_PKT.width == 23 && qps::RD_ATOMIC_STARTED.width == 5 && qps::RD_ATOMIC_DONE.width == 5);
    assert!(qpc::SQ_LOG_SIZE.width == 4 && qpc::SQ_PROD.width == 16 && qps::CURSOR_WQE.width == 16);
    // `comp_ack` and `req_fetch` read the responder in error as RESP_STARTED
    // and both IN_PROGRESS bits set (ERROR is 3)
    assert!(qps::IN_PROGRESS.width == 2 && qps::IN_PROGRESS_ERROR == 3 && qps::RESP_STARTED.width == 1);
};
