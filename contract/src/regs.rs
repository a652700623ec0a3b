//! The register map of BAR0.
//!
//! The register port is AXI4-Lite style with 32-bit registers at 4-byte
//! aligned offsets. A 64-bit register spans two slots, low half first; how
//! each one treats its halves is in its description. Reserved offsets read 0
//! and ignore writes; reserved bits of a register read 0 and must be written
//! as 0.
//!
//! Blocks, each with room to grow:
//!
//! | offsets | block |
//! |---|---|
//! | `0x0000..0x0040` | identification: magic, ABI version, features, build properties |
//! | `0x0040..0x0080` | control, status, events, scratch |
//! | `0x0080..0x0100` | interrupts |
//! | `0x0100..0x0180` | context tables in host memory, context commands |
//! | `0x0180..0x0200` | raw receive and transmit rings |
//! | `0x0200..0x0300` | counters |
//! | `0x1000..0x1008` | the doorbell, alone on its 4 KiB page so that page can be mapped by itself |

use crate::codes::{DoorbellKind, RxOutcome};
use crate::qp_modify::AdmitReason;
use crate::reg::{fields_mask, Field};
use crate::Error;

/// Bytes of BAR0 the register map occupies.
pub const BAR0_BYTES: u32 = 0x2000;

registers! {
    /// Identifies the device. Reads 0x524E4943, the ASCII bytes "RNIC" from
    /// the most significant down; a driver checks it before anything else.
    id_magic @ 0x0000: u32, Ro, reset 0x524E_4943 {
        /// "RNIC".
        MAGIC = bit 0, width 32;
    }

    /// Version of this contract the device implements (`ABI_VERSION`). A
    /// driver accepts a device with the same MAJOR and a MINOR at least its
    /// own; while MAJOR is 0, MINOR must match exactly.
    id_version @ 0x0004: u32, Ro, reset (crate::ABI_VERSION) {
        /// Changes when something compatible is added.
        MINOR = bit 0, width 16;
        /// Changes when a field, register or layout moves or changes meaning.
        MAJOR = bit 16, width 16;
    }

    /// What this build implements. A driver refuses work the device cannot do
    /// (a UD QP without UD, atomics without ATOMICS) instead of failing later.
    id_features @ 0x0008: u32, Ro, reset build {
        /// Reliable connected QPs.
        RC = bit 0, width 1;
        /// Unreliable connected QPs.
        UC = bit 1, width 1;
        /// Unreliable datagram QPs and the address handle table.
        UD = bit 2, width 1;
        /// IPv6 addresses (without it only IPv4-mapped addresses work).
        IPV6 = bit 3, width 1;
        /// 802.1Q tags on sent frames.
        VLAN = bit 4, width 1;
        /// Atomic compare-and-swap and fetch-and-add, as requester and responder.
        ATOMICS = bit 5, width 1;
        /// Inline data in send WQEs.
        INLINE = bit 6, width 1;
        /// The raw receive and transmit rings.
        RAW_RINGS = bit 7, width 1;
        /// Memory regions are enforced: the device checks every local SGE and
        /// incoming RDMA against the MPT, translates through the MTT, caches
        /// both and takes context commands on the MPT and MTT tables. Without
        /// it the device reads neither table and refuses those commands
        /// (`ctx_status.ERROR`); a driver fills the tables all the same and
        /// skips the commands.
        TRANSLATION = bit 8, width 1;
    }

    /// Width of the packet data path in bytes (64 for the 512-bit, 100 Gb/s
    /// build); with `id_clock` it gives the core's raw bandwidth.
    id_datapath @ 0x000C: u32, Ro, reset build {
        /// Bytes per beat.
        BYTES = bit 0, width 16;
    }

    /// Frequency of the core clock in MHz (250 for the 100 Gb/s build). Time
    /// fields in the contract are in microseconds; the device converts.
    id_clock @ 0x0010: u32, Ro, reset build {
        /// Core clock in MHz.
        MHZ = bit 0, width 16;
    }

    /// Largest tables and rings the build supports, as log2 of the entries.
    /// The driver sizes the context tables within these limits.
    id_limits @ 0x0014: u32, Ro, reset build {
        /// log2 of the largest QP number plus one (at most 24).
        LOG_MAX_QP = bit 0, width 8;
        /// log2 of the number of CQs.
        LOG_MAX_CQ = bit 8, width 8;
        /// log2 of the number of memory regions (at most 24: the key's index).
        LOG_MAX_MPT = bit 16, width 8;
        /// log2 of the deepest work queue or CQ ring (at most 15: ring indices
        /// are 16-bit and free-running).
        LOG_MAX_RING = bit 24, width 8;
    }

    /// The port's MAC address, low 32 bits: the address as a 48-bit
    /// big-endian number, so the last byte on the wire is bits 7:0: the
    /// core's `port_mac` input (a board strap, the simulator's configured
    /// address). The driver derives the port's default GID from it and puts
    /// it in every path's source MAC.
    id_mac_lo @ 0x0018: u32, Ro, reset build {
        /// MAC bits 31:0 (wire bytes 2..5).
        MAC = bit 0, width 32;
    }

    /// The port's MAC address, high 16 bits.
    id_mac_hi @ 0x001C: u32, Ro, reset build {
        /// MAC bits 47:32 (wire bytes 0 and 1, byte 0 in bits 15:8).
        MAC = bit 0, width 16;
    }

    /// Global control. Context table and raw ring registers may only change
    /// while ENABLE is 0.
    ctrl @ 0x0040: u32, Rw, reset 0 {
        /// Process doorbells and traffic. Clearing it stops fetching new work
        /// at the next packet boundary.
        ENABLE = bit 0, width 1;
        /// Write 1 to return every queue, cached context, counter and register
        /// but this one to its reset value; the device clears the bit when the
        /// reset is done.
        SOFT_RESET = bit 1, width 1;
    }

    /// Link and device state.
    status @ 0x0044: u32, Ro, reset 0 {
        /// The Ethernet link is up.
        LINK_UP = bit 0, width 1;
        /// The device finished clearing its on-chip tables after reset (the
        /// send scheduler's per-QP list, the caches' tags, the in-flight
        /// table: about 2^14 cycles). A doorbell rung earlier is not lost,
        /// only held until then; the driver's bring-up waits for this bit.
        READY = bit 1, width 1;
        /// Link speed in Gb/s while LINK_UP, otherwise 0.
        LINK_GBPS = bit 16, width 16;
    }

    /// Events that need the driver. The device sets bits; the driver clears
    /// them by writing 1. A set bit whose `events_enable` bit is set raises the
    /// MSI-X vector in `irq_events`.
    events @ 0x0048: u32, W1c, reset 0 {
        /// `status.LINK_UP` changed.
        LINK_CHANGE = bit 0, width 1;
        /// A doorbell named a queue beyond its table, QP 0 or 1, a CQ or QP not
        /// in a usable state, or a reserved KIND; it was dropped.
        DOORBELL_ERROR = bit 1, width 1;
        /// A DMA read or write failed (IOMMU fault, completion error).
        DMA_ERROR = bit 2, width 1;
        /// A CQ overran: the device had a completion and no free slot. The CQ's
        /// OVERRUN flag is set and it takes no more completions.
        CQ_OVERRUN = bit 3, width 1;
        /// A QP moved to the error state on a local error.
        QP_ERROR = bit 4, width 1;
    }

    /// Which `events` bits raise the events interrupt; same bit positions.
    events_enable @ 0x004C: u32, Rw, reset 0 {
        /// Enable for LINK_CHANGE.
        LINK_CHANGE = bit 0, width 1;
        /// Enable for DOORBELL_ERROR.
        DOORBELL_ERROR = bit 1, width 1;
        /// Enable for DMA_ERROR.
        DMA_ERROR = bit 2, width 1;
        /// Enable for CQ_OVERRUN.
        CQ_OVERRUN = bit 3, width 1;
        /// Enable for QP_ERROR.
        QP_ERROR = bit 4, width 1;
    }

    /// The queue behind the latest DOORBELL_ERROR, CQ_OVERRUN or QP_ERROR, so
    /// the driver need not scan every context. Several events between two
    /// reads leave only the last one here.
    events_queue @ 0x0050: u32, Ro, reset 0 {
        /// QP or CQ number.
        QUEUE = bit 0, width 24;
    }

    /// Read-write with no effect: the driver's first proof that writes reach
    /// the device.
    scratch @ 0x0054: u32, Rw, reset 0 {
        /// Anything.
        VALUE = bit 0, width 32;
    }

    /// MSI-X vectors the device implements. CQ contexts and the raw ring name
    /// vectors below COUNT.
    irq_vectors @ 0x0080: u32, Ro, reset build {
        /// Number of vectors.
        COUNT = bit 0, width 16;
    }

    /// Interrupt moderation for CQs whose context leaves MOD_COUNT or
    /// MOD_TIME_US at 0. An armed CQ interrupts once COUNT completions have
    /// arrived, or TIME_US after the first one, whichever is first. The reset
    /// value interrupts on every completion.
    irq_moderation @ 0x0084: u32, Rw, reset 0x0000_0001 {
        /// Completions per interrupt (0 acts as 1).
        COUNT = bit 0, width 16;
        /// Microseconds from the first completion to the interrupt; 0: no timer.
        TIME_US = bit 16, width 16;
    }

    /// The MSI-X vector of the `events` interrupt.
    irq_events @ 0x0088: u32, Rw, reset 0 {
        /// Vector number.
        VECTOR = bit 0, width 16;
    }

    /// QP context table (`qpc` entries, indexed by QPN), low half of its IOVA.
    qpc_base_lo @ 0x0100: u32, Rw, reset 0 {
        /// Bits 31:0 of the table's IOVA; 4 KiB aligned, so bits 11:0 are 0.
        ADDR = bit 0, width 32;
    }

    /// QP context table, high half of its IOVA.
    qpc_base_hi @ 0x0104: u32, Rw, reset 0 {
        /// Bits 63:32 of the table's IOVA.
        ADDR = bit 0, width 32;
    }

    /// QP context table size.
    qpc_log_entries @ 0x0108: u32, Rw, reset 0 {
        /// log2 of the entries, at most `id_limits.LOG_MAX_QP`.
        LOG2 = bit 0, width 5;
    }

    /// CQ context table (`cqc` entries, indexed by CQN), low half of its IOVA.
    cqc_base_lo @ 0x0110: u32, Rw, reset 0 {
        /// Bits 31:0 of the table's IOVA; 4 KiB aligned.
        ADDR = bit 0, width 32;
    }

    /// CQ context table, high half of its IOVA.
    cqc_base_hi @ 0x0114: u32, Rw, reset 0 {
        /// Bits 63:32 of the table's IOVA.
        ADDR = bit 0, width 32;
    }

    /// CQ context table size.
    cqc_log_entries @ 0x0118: u32, Rw, reset 0 {
        /// log2 of the entries, at most `id_limits.LOG_MAX_CQ`.
        LOG2 = bit 0, width 5;
    }

    /// Memory protection table (`mpt` entries, indexed by `mpt::key_index(key, T)`, the key's low T bits), low half
    /// of its IOVA.
    mpt_base_lo @ 0x0120: u32, Rw, reset 0 {
        /// Bits 31:0 of the table's IOVA; 4 KiB aligned.
        ADDR = bit 0, width 32;
    }

    /// Memory protection table, high half of its IOVA.
    mpt_base_hi @ 0x0124: u32, Rw, reset 0 {
        /// Bits 63:32 of the table's IOVA.
        ADDR = bit 0, width 32;
    }

    /// Memory protection table size.
    mpt_log_entries @ 0x0128: u32, Rw, reset 0 {
        /// log2 of the entries, at most `id_limits.LOG_MAX_MPT`.
        LOG2 = bit 0, width 5;
    }

    /// Memory translation table (`mtt` entries: page IOVAs, which memory
    /// regions index from their MTT_BASE), low half of its IOVA.
    mtt_base_lo @ 0x0130: u32, Rw, reset 0 {
        /// Bits 31:0 of the table's IOVA; 4 KiB aligned.
        ADDR = bit 0, width 32;
    }

    /// Memory translation table, high half of its IOVA.
    mtt_base_hi @ 0x0134: u32, Rw, reset 0 {
        /// Bits 63:32 of the table's IOVA.
        ADDR = bit 0, width 32;
    }

    /// Memory translation table size.
    mtt_log_entries @ 0x0138: u32, Rw, reset 0 {
        /// log2 of the entries.
        LOG2 = bit 0, width 5;
    }

    /// Address handle table (`ah` entries, named by UD send WQEs), low half of
    /// its IOVA.
    ah_base_lo @ 0x0140: u32, Rw, reset 0 {
        /// Bits 31:0 of the table's IOVA; 4 KiB aligned.
        ADDR = bit 0, width 32;
    }

    /// Address handle table, high half of its IOVA.
    ah_base_hi @ 0x0144: u32, Rw, reset 0 {
        /// Bits 63:32 of the table's IOVA.
        ADDR = bit 0, width 32;
    }

    /// Address handle table size.
    ah_log_entries @ 0x0148: u32, Rw, reset 0 {
        /// log2 of the entries.
        LOG2 = bit 0, width 5;
    }

    /// QP transport state table (`qps` entries, indexed by QPN; as many
    /// entries as `qpc_log_entries` says), low half of its IOVA. The device
    /// owns its entries while their QPs live.
    qps_base_lo @ 0x0150: u32, Rw, reset 0 {
        /// Bits 31:0 of the table's IOVA; 4 KiB aligned.
        ADDR = bit 0, width 32;
    }

    /// QP transport state table, high half of its IOVA.
    qps_base_hi @ 0x0154: u32, Rw, reset 0 {
        /// Bits 63:32 of the table's IOVA.
        ADDR = bit 0, width 32;
    }

    /// Replay table (`resource` entries, `resource::QP_BYTES` per QP indexed
    /// by QPN, as many QPs as `qpc_log_entries` says), low half of its IOVA.
    /// The responder keeps its executed READs and atomics there to answer
    /// duplicates; the device owns a QP's slots while the QP lives.
    replay_base_lo @ 0x0158: u32, Rw, reset 0 {
        /// Bits 31:0 of the table's IOVA; 4 KiB aligned.
        ADDR = bit 0, width 32;
    }

    /// Replay table, high half of its IOVA.
    replay_base_hi @ 0x015C: u32, Rw, reset 0 {
        /// Bits 63:32 of the table's IOVA.
        ADDR = bit 0, width 32;
    }

    /// A context command: the device may cache entries of every table, so the
    /// driver tells it when an entry changed in host memory and asks for its
    /// state back. Writing starts the command; wait for `ctx_status.BUSY` to
    /// be 0 before the next one.
    ctx_cmd @ 0x0160: u32, Wo, reset 0 {
        /// Entry index in the table.
        INDEX = bit 0, width 24;
        /// Which table (`ContextTable`).
        TABLE = bit 24, width 4;
        /// What to do (`ContextOp`); 0 does nothing.
        OP = bit 28, width 4;
    }

    /// Progress of the last context command.
    ctx_status @ 0x0164: u32, Ro, reset 0 {
        /// The command is running.
        BUSY = bit 0, width 1;
        /// It failed: index beyond the table, unknown table or op, or a DMA
        /// error. Cleared by the next command.
        ERROR = bit 1, width 1;
    }

    /// The span of the next MTT context command, in entries from
    /// `ctx_cmd.INDEX`; the command acts on every line of the device's MTT
    /// cache they fall in, about 8 cycles a line, so registering or
    /// deregistering a large region is one command. Taken with each
    /// `ctx_cmd` write (a later write of this register does not change a
    /// command already written); commands on other tables ignore it. A span
    /// that reaches past the table fails (`ctx_status.ERROR`) and drops
    /// nothing.
    ctx_count @ 0x0168: u32, Rw, reset 0 {
        /// MTT entries from `ctx_cmd.INDEX`; 0 and 1 both mean one.
        COUNT = bit 0, width 24;
    }

    /// Where a Store on the `Counters` table writes the counter window
    /// (`COUNTER_WINDOW`, 512 bytes), low half of its IOVA.
    counters_base_lo @ 0x0170: u32, Rw, reset 0 {
        /// Bits 31:0 of the IOVA; 512-byte aligned (bits 8:0 read 0).
        ADDR = bit 0, width 32;
    }

    /// Where the counter window is written, high half of its IOVA.
    counters_base_hi @ 0x0174: u32, Rw, reset 0 {
        /// Bits 63:32 of the IOVA.
        ADDR = bit 0, width 32;
    }

    /// Raw receive ring, low half of its IOVA: 2^LOG_SLOTS slots of
    /// 2^LOG_SLOT_BYTES bytes, each a `raw_header` and a frame. The device
    /// writes here every frame the parser classifies as raw: non-RoCE frames
    /// (ARP, other IP), whole, without FCS. RoCEv2 to QP1 (the GSI) is not
    /// raw: it is a UD QP's traffic.
    raw_rx_base_lo @ 0x0180: u32, Rw, reset 0 {
        /// Bits 31:0 of the ring's IOVA; 4 KiB aligned.
        ADDR = bit 0, width 32;
    }

    /// Raw receive ring, high half of its IOVA.
    raw_rx_base_hi @ 0x0184: u32, Rw, reset 0 {
        /// Bits 63:32 of the ring's IOVA.
        ADDR = bit 0, width 32;
    }

    /// Raw receive ring geometry. Frames that arrive while it is disabled or
    /// full, or that are longer than a slot holds, are dropped and counted in
    /// `cnt_raw_drop`.
    raw_rx_cfg @ 0x0188: u32, Rw, reset 0 {
        /// log2 of the slots (at most 15).
        LOG_SLOTS = bit 0, width 4;
        /// log2 of the bytes per slot, header included (e.g. 11 for 1500-byte
        /// frames, 14 for jumbo frames).
        LOG_SLOT_BYTES = bit 8, width 5;
        /// Deliver frames to the ring. Setting it puts `raw_rx_prod` and
        /// `raw_rx_cons` at 0, so the driver zeroes the ring first.
        ENABLE = bit 31, width 1;
    }

    /// Raw receive ring producer index, advanced by the device after a frame
    /// and its slot header are in memory.
    raw_rx_prod @ 0x018C: u32, Ro, reset 0 {
        /// Free-running 16-bit index.
        INDEX = bit 0, width 16;
    }

    /// Raw receive ring consumer index, advanced by the driver to free slots.
    raw_rx_cons @ 0x0190: u32, Rw, reset 0 {
        /// Free-running 16-bit index.
        INDEX = bit 0, width 16;
    }

    /// Raw receive interrupt: one-shot, like CQ arming.
    raw_rx_irq @ 0x0194: u32, Rw, reset 0 {
        /// MSI-X vector.
        VECTOR = bit 0, width 16;
        /// Write 1 to request an interrupt when the ring is not empty; the
        /// device clears it when it raises the interrupt.
        ARMED = bit 31, width 1;
    }

    /// Raw transmit ring, low half of its IOVA: slots as in the receive ring. The
    /// driver places whole frames without FCS (ARP replies, rdma_cm MADs with
    /// their ICRC), the device sends them as they are.
    raw_tx_base_lo @ 0x01A0: u32, Rw, reset 0 {
        /// Bits 31:0 of the ring's IOVA; 4 KiB aligned.
        ADDR = bit 0, width 32;
    }

    /// Raw transmit ring, high half of its IOVA.
    raw_tx_base_hi @ 0x01A4: u32, Rw, reset 0 {
        /// Bits 63:32 of the ring's IOVA.
        ADDR = bit 0, width 32;
    }

    /// Raw transmit ring geometry.
    raw_tx_cfg @ 0x01A8: u32, Rw, reset 0 {
        /// log2 of the slots (at most 15).
        LOG_SLOTS = bit 0, width 4;
        /// log2 of the bytes per slot, header included.
        LOG_SLOT_BYTES = bit 8, width 5;
        /// Send what the ring holds. Setting it puts `raw_tx_prod` and
        /// `raw_tx_cons` at 0.
        ENABLE = bit 31, width 1;
    }

    /// Raw transmit ring producer index: the driver writes it after filling
    /// slots, which is this ring's doorbell.
    raw_tx_prod @ 0x01AC: u32, Rw, reset 0 {
        /// Free-running 16-bit index.
        INDEX = bit 0, width 16;
    }

    /// Raw transmit ring consumer index, advanced by the device once a frame
    /// has been read and its slot may be reused.
    raw_tx_cons @ 0x01B0: u32, Ro, reset 0 {
        /// Free-running 16-bit index.
        INDEX = bit 0, width 16;
    }

    /// Received frames handed to the transport as RoCEv2 (`RxOutcome::Roce`).
    /// Like every frame and byte counter: 64 bits (at 148.8 M minimum-size
    /// frames a second it wraps after 3,900 years; 32 bits would wrap in 29 s),
    /// and only a reset clears it. Reading the low half latches the high half,
    /// so read low then high for a consistent value.
    cnt_roce @ 0x0200: u64, Ro, reset 0 {
        /// Frames.
        FRAMES = bit 0, width 64;
    }

    /// Received frames classified raw (`RxOutcome::Raw`), whether or not the
    /// raw ring took them.
    cnt_raw @ 0x0208: u64, Ro, reset 0 {
        /// Frames.
        FRAMES = bit 0, width 64;
    }

    /// Received frames dropped by a header check (`RxOutcome::Malformed`).
    cnt_malformed @ 0x0210: u64, Ro, reset 0 {
        /// Frames.
        FRAMES = bit 0, width 64;
    }

    /// Received frames dropped for a bad ICRC (`RxOutcome::Icrc`).
    cnt_icrc @ 0x0218: u64, Ro, reset 0 {
        /// Frames.
        FRAMES = bit 0, width 64;
    }

    /// Received frames dropped for a bad IPv4 header checksum
    /// (`RxOutcome::IpChecksum`).
    cnt_ip_csum @ 0x0220: u64, Ro, reset 0 {
        /// Frames.
        FRAMES = bit 0, width 64;
    }

    /// Received frames the MAC flagged as bad (`RxOutcome::MacError`).
    cnt_mac_err @ 0x0228: u64, Ro, reset 0 {
        /// Frames.
        FRAMES = bit 0, width 64;
    }

    /// Raw frames the raw receive ring did not take: disabled, full, or the
    /// frame longer than a slot.
    cnt_raw_drop @ 0x0230: u64, Ro, reset 0 {
        /// Frames.
        FRAMES = bit 0, width 64;
    }

    /// Received frames the MAC receive FIFO dropped whole because it was
    /// full: the receive path did not keep up (counted in the core clock).
    cnt_rx_fifo_drop @ 0x0238: u64, Ro, reset 0 {
        /// Frames.
        FRAMES = bit 0, width 64;
    }

    /// Frames sent, of every kind.
    cnt_tx_frames @ 0x0240: u64, Ro, reset 0 {
        /// Frames.
        FRAMES = bit 0, width 64;
    }

    /// Bytes sent (Ethernet header to ICRC, no FCS). 64-bit so it does not
    /// wrap in practice; reading the low half latches the high half, so read
    /// low then high for a consistent value.
    cnt_tx_bytes @ 0x0248: u64, Ro, reset 0 {
        /// Bytes.
        BYTES = bit 0, width 64;
    }

    /// RoCEv2 packets the receive lookup dropped because the QP's context
    /// could not be read (a DMA error, an index beyond the host table). The
    /// six registers after it count the packets dropped by each
    /// `AdmitReason` (`AdmitReason::counter_offset`), in code order.
    cnt_ctx_fail @ 0x0250: u64, Ro, reset 0 {
        /// Packets.
        PACKETS = bit 0, width 64;
    }

    /// Packets for a QP in RESET or INIT (`AdmitReason::QpNotReady`).
    cnt_qp_not_ready @ 0x0258: u64, Ro, reset 0 {
        /// Packets.
        PACKETS = bit 0, width 64;
    }

    /// Packets for a QP in ERR (`AdmitReason::QpError`).
    cnt_qp_error @ 0x0260: u64, Ro, reset 0 {
        /// Packets.
        PACKETS = bit 0, width 64;
    }

    /// Packets for no QP: beyond the table, or QP 0 (`AdmitReason::BadQpn`).
    cnt_bad_qpn @ 0x0268: u64, Ro, reset 0 {
        /// Packets.
        PACKETS = bit 0, width 64;
    }

    /// Packets whose opcode's transport is not the QP's type
    /// (`AdmitReason::WrongQpType`).
    cnt_wrong_qp_type @ 0x0270: u64, Ro, reset 0 {
        /// Packets.
        PACKETS = bit 0, width 64;
    }

    /// Responses for a QP whose requester is not running
    /// (`AdmitReason::ResponseNotExpected`).
    cnt_response_unexpected @ 0x0278: u64, Ro, reset 0 {
        /// Packets.
        PACKETS = bit 0, width 64;
    }

    /// Packets for a QP whose context holds an unknown state or type
    /// (`AdmitReason::BadContext`).
    cnt_bad_context @ 0x0280: u64, Ro, reset 0 {
        /// Packets.
        PACKETS = bit 0, width 64;
    }

    /// Duplicate requests: packets with a PSN the responder had executed. A
    /// SEND or WRITE is ACKed again; a READ or atomic is looked up in the
    /// replay table and, when found, answered again (a READ read again, an
    /// atomic's saved value resent); one not found is also a silent drop
    /// (`cnt_silent_drops`).
    cnt_dup_requests @ 0x0288: u64, Ro, reset 0 {
        /// Packets.
        PACKETS = bit 0, width 64;
    }

    /// Requests the responder dropped without a response (IBTA's silent
    /// drops: a PSN out of sequence while a NAK is outstanding, a request the
    /// QP cannot take after an error).
    cnt_silent_drops @ 0x0290: u64, Ro, reset 0 {
        /// Packets.
        PACKETS = bit 0, width 64;
    }

    /// RNR NAKs the responder sent (a SEND with no RECV posted).
    cnt_rnr_naks @ 0x0298: u64, Ro, reset 0 {
        /// Packets.
        PACKETS = bit 0, width 64;
    }

    /// NAKs the responder sent with the PSN sequence error code (AETH NAK
    /// code 0). The three registers after it count codes 1 to 3 (invalid
    /// request, remote access error, remote operational error), in code
    /// order.
    cnt_nak_psn_seq @ 0x02A0: u64, Ro, reset 0 {
        /// Packets.
        PACKETS = bit 0, width 64;
    }

    /// NAKs sent: invalid request (AETH NAK code 1).
    cnt_nak_invalid_request @ 0x02A8: u64, Ro, reset 0 {
        /// Packets.
        PACKETS = bit 0, width 64;
    }

    /// NAKs sent: remote access error (AETH NAK code 2).
    cnt_nak_remote_access @ 0x02B0: u64, Ro, reset 0 {
        /// Packets.
        PACKETS = bit 0, width 64;
    }

    /// NAKs sent: remote operational error (AETH NAK code 3).
    cnt_nak_remote_op @ 0x02B8: u64, Ro, reset 0 {
        /// Packets.
        PACKETS = bit 0, width 64;
    }

    /// Response packets the completer dropped as ghosts: a PSN not
    /// outstanding (a duplicate or late ACK, a response to nothing sent) or
    /// a reserved AETH syndrome.
    cnt_ghost_responses @ 0x02C0: u64, Ro, reset 0 {
        /// Packets.
        PACKETS = bit 0, width 64;
    }

    /// Response packets dropped because the QP's completer is in error.
    cnt_comp_error_drops @ 0x02C8: u64, Ro, reset 0 {
        /// Packets.
        PACKETS = bit 0, width 64;
    }

    /// RNR NAKs received for outstanding requests.
    cnt_rnr_naks_received @ 0x02D0: u64, Ro, reset 0 {
        /// Packets.
        PACKETS = bit 0, width 64;
    }

    /// PSN sequence error NAKs received for outstanding requests.
    cnt_nak_psn_seq_received @ 0x02D8: u64, Ro, reset 0 {
        /// Packets.
        PACKETS = bit 0, width 64;
    }

    /// Fatal NAKs received (invalid request, remote access error, remote
    /// operational error): the WQE completes in error, the QP with it.
    cnt_naks_fatal_received @ 0x02E0: u64, Ro, reset 0 {
        /// Packets.
        PACKETS = bit 0, width 64;
    }

    /// Go-back-N restarts the completer asked of the requester (a PSN
    /// sequence NAK, an implied NAK).
    cnt_go_back_n @ 0x02E8: u64, Ro, reset 0 {
        /// Restarts.
        RESTARTS = bit 0, width 64;
    }

    /// Send WQEs the completer's in-flight table refused because it was
    /// full (the requester's window keeps it from filling: must stay 0; a
    /// refused WQE would never complete).
    cnt_push_refused @ 0x02F0: u64, Ro, reset 0 {
        /// WQEs.
        WQES = bit 0, width 64;
    }

    /// Local ACK timeouts that resent (a QP's retransmit timer ran out with
    /// PSNs outstanding: go-back-N from the oldest unacknowledged PSN, or
    /// RETRY_EXC_ERR when its retries are spent).
    cnt_retry_timeouts @ 0x02F8: u64, Ro, reset 0 {
        /// Timeouts.
        TIMEOUTS = bit 0, width 64;
    }

    /// Packets dropped because their P_Key does not match the QP's
    /// (`AdmitReason::BadPkey`: IBTA's P_Key violation, silently dropped).
    cnt_bad_pkey @ 0x0300: u64, Ro, reset 0 {
        /// Packets.
        PACKETS = bit 0, width 64;
    }

    /// Pause requests the MAC receive FIFO made (rising edges of the core's
    /// `mac_rx_pause`: the FIFO reached half full and asked the link partner
    /// to pause until it is under a quarter; docs/mac.md, "Pause").
    cnt_rx_pause @ 0x0308: u64, Ro, reset 0 {
        /// Requests.
        REQUESTS = bit 0, width 64;
    }

    /// Received frames the MAC receive side's address filter refused: sent
    /// to an individual (unicast) MAC address other than the port's
    /// (`id_mac_lo`/`hi`), as a switch floods a frame to a station it has not
    /// learnt. They never reach the FIFO or the parser (docs/mac.md,
    /// "Address filter"). Group addresses (broadcast, multicast) pass.
    cnt_rx_not_mine @ 0x0310: u64, Ro, reset 0 {
        /// Frames.
        FRAMES = bit 0, width 64;
    }

    /// The doorbell: one register for every queue, so the map does not grow
    /// with the number of queues. Write it as one 64-bit store (the PCIe
    /// bridge delivers the low then the high half back to back); the device
    /// latches the low half and acts on the write of the high half. Software
    /// that can only store 32 bits writes low then high under a lock shared by
    /// everyone ringing this device. Bad doorbells are dropped and reported as
    /// `events.DOORBELL_ERROR`.
    doorbell @ 0x1000: u64, Wo, reset 0 {
        /// New producer index (SqProducer, RqProducer) or consumer index
        /// (CqConsumer, CqArm): free-running, 16 bits.
        INDEX = bit 0, width 16;
        /// CqArm only: interrupt only for a solicited or an error completion.
        SOLICITED = bit 16, width 1;
        /// QP number (SqProducer, RqProducer) or CQ number (CqConsumer, CqArm).
        QUEUE = bit 32, width 24;
        /// What is announced (`DoorbellKind`).
        KIND = bit 56, width 4;
    }
}

/// The counter register for each receive outcome. The offsets are
/// consecutive 64-bit registers in `RxOutcome` order, so the RTL can place the parser's
/// counters by `done_code` alone.
impl RxOutcome {
    /// Offset of the counter register for this outcome.
    pub const fn counter_offset(self) -> u32 {
        match self {
            RxOutcome::Roce => cnt_roce::OFFSET,
            RxOutcome::Raw => cnt_raw::OFFSET,
            RxOutcome::Malformed => cnt_malformed::OFFSET,
            RxOutcome::Icrc => cnt_icrc::OFFSET,
            RxOutcome::IpChecksum => cnt_ip_csum::OFFSET,
            RxOutcome::MacError => cnt_mac_err::OFFSET,
        }
    }
}

const _: () = {
    let mut i = 0;
    while i < RxOutcome::ALL.len() {
        let outcome = RxOutcome::ALL[i];
        assert!(
            outcome.counter_offset() == cnt_roce::OFFSET + 8 * outcome.raw() as u32,
            "receive counters are not consecutive 64-bit registers in RxOutcome order"
        );
        i += 1;
    }
};

/// The drop counter for each admission reason: consecutive 64-bit registers
/// in `AdmitReason` code order from `cnt_ctx_fail`, whose place is the code
/// of `Admit` (nothing is dropped for it; a failed context read is counted
/// there instead), up to `BadContext`; `BadPkey`, added later, has its
/// register after the others (`cnt_bad_pkey`).
impl AdmitReason {
    /// Offset of the counter register of packets dropped for this reason
    /// (`Admit`: `cnt_ctx_fail`).
    pub const fn counter_offset(self) -> u32 {
        match self {
            AdmitReason::Admit => cnt_ctx_fail::OFFSET,
            AdmitReason::QpNotReady => cnt_qp_not_ready::OFFSET,
            AdmitReason::QpError => cnt_qp_error::OFFSET,
            AdmitReason::BadQpn => cnt_bad_qpn::OFFSET,
            AdmitReason::WrongQpType => cnt_wrong_qp_type::OFFSET,
            AdmitReason::ResponseNotExpected => cnt_response_unexpected::OFFSET,
            AdmitReason::BadContext => cnt_bad_context::OFFSET,
            AdmitReason::BadPkey => cnt_bad_pkey::OFFSET,
        }
    }
}

const _: () = {
    let mut i = 0;
    while i < AdmitReason::ALL.len() {
        let r = AdmitReason::ALL[i];
        assert!(
            r.counter_offset() == cnt_ctx_fail::OFFSET + 8 * r.raw() as u32 || matches!(r, AdmitReason::BadPkey),
            "drop counters are not consecutive 64-bit registers in AdmitReason order"
        );
        i += 1;
    }
};

/// The pages of 64-bit counter registers, from `cnt_roce` up (0x200 bytes:
/// 64 registers): [`COUNTERS`] of them, then offsets reserved for more
/// counters (they read 0), so the device decodes the window, not each register.
pub const COUNTER_WINDOW: core::ops::Range<u32> = cnt_roce::OFFSET..cnt_roce::OFFSET + 0x200;
/// The counter registers defined, `cnt_roce` to `cnt_rx_not_mine`.
pub const COUNTERS: u32 = (cnt_rx_not_mine::OFFSET + 8 - cnt_roce::OFFSET) / 8;
/// The NAK counters sit in AETH NAK code order.
const _: () = assert!(
    cnt_nak_invalid_request::OFFSET == cnt_nak_psn_seq::OFFSET + 8
        && cnt_nak_remote_access::OFFSET == cnt_nak_psn_seq::OFFSET + 16
        && cnt_nak_remote_op::OFFSET == cnt_nak_psn_seq::OFFSET + 24
);
const _: () = assert!(
    COUNTER_WINDOW.start.is_multiple_of(COUNTER_WINDOW.end - COUNTER_WINDOW.start)
        && COUNTERS * 8 <= COUNTER_WINDOW.end - COUNTER_WINDOW.start
);

/// A decoded doorbell write.
///
/// ```
/// use rnic_contract::{codes::DoorbellKind, regs::Doorbell};
///
/// let ring = Doorbell { kind: DoorbellKind::SqProducer, queue: 0x12, index: 7, solicited: false };
/// let word = ring.encode().unwrap();
/// assert_eq!(word, 0x0000_0012_0000_0007);
/// assert_eq!(Doorbell::decode(word), Ok(ring));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Doorbell {
    /// What is announced.
    pub kind: DoorbellKind,
    /// QP or CQ number, below 2^24.
    pub queue: u32,
    /// New producer or consumer index.
    pub index: u16,
    /// CqArm only: interrupt only for a solicited or an error completion.
    pub solicited: bool,
}

/// Bits of the doorbell word outside every field.
const DOORBELL_RESERVED: u64 = !fields_mask(doorbell::FIELDS);

impl Doorbell {
    /// The 64-bit word to write to the doorbell register.
    pub const fn encode(self) -> Result<u64, Error> {
        let field = doorbell::QUEUE;
        if self.queue as u64 > crate::reg::low_mask(field.width) {
            return Err(Error::ValueTooWide { field: field.name, value: self.queue as u64, width: field.width });
        }
        if self.solicited && !matches!(self.kind, DoorbellKind::CqArm) {
            return Err(Error::ReservedBits { field: doorbell::SOLICITED.name, bits: doorbell::SOLICITED.mask() });
        }
        Ok(put(doorbell::INDEX, self.index as u64)
            | put(doorbell::SOLICITED, self.solicited as u64)
            | put(doorbell::QUEUE, self.queue as u64)
            | put(doorbell::KIND, self.kind as u64))
    }

    /// The word as (low, high) halves, for 32-bit stores: low first.
    pub const fn encode_halves(self) -> Result<(u32, u32), Error> {
        match self.encode() {
            Ok(word) => Ok((word as u32, (word >> 32) as u32)),
            Err(e) => Err(e),
        }
    }

    /// What the device makes of a doorbell word: unknown kinds, reserved bits
    /// and SOLICITED on anything but CqArm are errors.
    pub const fn decode(word: u64) -> Result<Doorbell, Error> {
        if word & DOORBELL_RESERVED != 0 {
            return Err(Error::ReservedBits { field: "doorbell", bits: word & DOORBELL_RESERVED });
        }
        let kind = match DoorbellKind::from_raw(doorbell::KIND.get(word)) {
            Some(kind) => kind,
            None => return Err(Error::UnknownCode { field: doorbell::KIND.name, value: doorbell::KIND.get(word) }),
        };
        let solicited = doorbell::SOLICITED.get(word) != 0;
        if solicited && !matches!(kind, DoorbellKind::CqArm) {
            return Err(Error::ReservedBits { field: doorbell::SOLICITED.name, bits: doorbell::SOLICITED.mask() });
        }
        Ok(Doorbell {
            kind,
            queue: doorbell::QUEUE.get(word) as u32,
            index: doorbell::INDEX.get(word) as u16,
            solicited,
        })
    }
}

/// `value` placed in `field`; callers have checked that it fits.
const fn put(field: Field<u64>, value: u64) -> u64 {
    (value << field.lsb) & field.mask()
}
