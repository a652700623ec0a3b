//! The memory layouts: work queue entries, completions and the contexts the
//! device reads from host memory. Every field is little-endian at the
//! position given (see [`crate::layout`]); bytes not covered by a field are
//! reserved, written as 0 and ignored.
//!
//! Addresses: ring and table bases and MTT entries are IOVAs, the addresses
//! the device uses on PCIe (what VFIO maps). SGE addresses and remote VAs are
//! virtual addresses inside a memory region, which the device translates
//! through the region's MPT and MTT entries.
//!
//! Numbers that are big-endian on the wire (immediate data, keys, Q_Keys) are
//! stored here as numbers, little-endian like every field: a driver converts
//! verbs' `__be32 imm_data` with `u32::from_be`. Addresses (IP, MAC) are byte
//! strings in wire order.

use crate::codes::{Mtu, QpState, QpType, SendOpcode, WcOpcode, WcStatus};
use crate::layout::Bytes;

layouts! {
    /// A scatter/gather element (`ibv_sge`): one piece of local memory. Send
    /// and receive WQEs hold lists of them.
    sge, 16 bytes {
        /// Virtual address in the memory region LKEY names.
        ADDR: u64 = byte 0, bit 0, width 64;
        /// Length in bytes.
        LEN: u32 = byte 8, bit 0, width 32;
        /// Local key of the memory region.
        LKEY: u32 = byte 12, bit 0, width 32;
    }

    /// A send work queue entry (`ibv_send_wr`), written by the driver into the
    /// send queue ring and announced by a SqProducer doorbell. The device reads
    /// entries between the QP's SQ_CONS and SQ_PROD.
    send_wqe, 128 bytes {
        /// The caller's identifier, returned in the completion.
        WR_ID: u64 = byte 0, bit 0, width 64;
        /// The operation.
        OPCODE: SendOpcode = byte 8, bit 0, width 8;
        /// Wait for earlier RDMA READs and atomics to complete first
        /// (`IBV_SEND_FENCE`; byte 9 is verbs' `send_flags`).
        FENCE: bool = byte 9, bit 0, width 1;
        /// Write a completion for this WQE (`IBV_SEND_SIGNALED`); errors
        /// complete regardless.
        SIGNALED: bool = byte 9, bit 1, width 1;
        /// Set the solicited-event bit on the last packet (`IBV_SEND_SOLICITED`).
        SOLICITED: bool = byte 9, bit 2, width 1;
        /// The payload is in the WQE itself, not in SGEs (`IBV_SEND_INLINE`).
        INLINE: bool = byte 9, bit 3, width 1;
        /// SGEs in use, at most 4 (`MAX_SGE`).
        NUM_SGE: u8 = byte 10, bit 0, width 8;
        /// Immediate data (SendWithImm, RdmaWriteWithImm).
        IMM: u32 = byte 12, bit 0, width 32;
        /// RDMA and atomics: the remote virtual address (8-byte aligned for
        /// atomics).
        REMOTE_VA: u64 = byte 16, bit 0, width 64;
        /// RDMA and atomics: the remote key.
        RKEY: u32 = byte 24, bit 0, width 32;
        /// INLINE: payload bytes at SGES, at most 64 (`MAX_INLINE`).
        INLINE_LEN: u16 = byte 28, bit 0, width 16;
        /// AtomicCmpAndSwp: the value compared; AtomicFetchAndAdd: the value added.
        COMPARE_ADD: u64 = byte 32, bit 0, width 64;
        /// AtomicCmpAndSwp: the value stored if the comparison holds.
        SWAP: u64 = byte 40, bit 0, width 64;
        /// UD: index of the destination's entry in the address handle table.
        AH: u32 = byte 48, bit 0, width 24;
        /// UD: destination QP number.
        REMOTE_QPN: u32 = byte 52, bit 0, width 24;
        /// UD: destination Q_Key. With bit 31 set the QP's own QKEY is sent
        /// instead, as IBA specifies.
        REMOTE_QKEY: u32 = byte 56, bit 0, width 32;
        /// NUM_SGE `sge` entries, or with INLINE the payload itself.
        SGES: Bytes = byte 64, bit 0, width 512;
    } {
        /// Most SGEs a send WQE holds.
        pub const MAX_SGE: usize = 4;
        /// Most inline payload bytes a send WQE holds.
        pub const MAX_INLINE: usize = SGES.width as usize / 8;
        const _: () = assert!(MAX_SGE * sge::SIZE == MAX_INLINE);

        /// Byte range of SGE `i` within the WQE.
        pub const fn sge_range(i: usize) -> core::ops::Range<usize> {
            SGES.byte + i * sge::SIZE..SGES.byte + (i + 1) * sge::SIZE
        }
    }

    /// A receive work queue entry (`ibv_recv_wr`), written by the driver into
    /// the receive queue ring and announced by a RqProducer doorbell.
    recv_wqe, 64 bytes {
        /// The caller's identifier, returned in the completion.
        WR_ID: u64 = byte 0, bit 0, width 64;
        /// SGEs in use, at most 3 (`MAX_SGE`).
        NUM_SGE: u8 = byte 8, bit 0, width 8;
        /// NUM_SGE `sge` entries.
        SGES: Bytes = byte 16, bit 0, width 384;
    } {
        /// Most SGEs a receive WQE holds.
        pub const MAX_SGE: usize = SGES.width as usize / 8 / sge::SIZE;

        /// Byte range of SGE `i` within the WQE.
        pub const fn sge_range(i: usize) -> core::ops::Range<usize> {
            SGES.byte + i * sge::SIZE..SGES.byte + (i + 1) * sge::SIZE
        }
    }

    /// A completion queue entry (`ibv_wc`), written by the device into a CQ
    /// ring. The driver polls OWNER (`ring::owner_for`), in the entry's last
    /// byte so it lands with or after the rest; the device advances the CQ's
    /// PROD after the write.
    cqe, 32 bytes {
        /// WR_ID of the completed WQE.
        WR_ID: u64 = byte 0, bit 0, width 64;
        /// Bytes received (receive completions; for RecvRdmaWithImm the
        /// write's length) or transferred.
        BYTE_LEN: u32 = byte 8, bit 0, width 32;
        /// Immediate data, when WITH_IMM.
        IMM: u32 = byte 12, bit 0, width 32;
        /// The QP the WQE belongs to.
        QPN: u32 = byte 16, bit 0, width 24;
        /// Outcome.
        STATUS: WcStatus = byte 19, bit 0, width 8;
        /// UD receive: the sender's QP number.
        SRC_QP: u32 = byte 20, bit 0, width 24;
        /// What completed. With an error status verbs leaves the opcode
        /// undefined, but the device writes the WQE's kind here on every
        /// completion, so bit 7 (a receive) names the queue the driver
        /// frees up to WQE_INDEX (a QP whose queues share one CQ).
        OPCODE: WcOpcode = byte 23, bit 0, width 8;
        /// UD receive: the first 40 bytes of the buffer hold the packet's IP
        /// header (IPv6, or 20 zero bytes then IPv4), as verbs expects
        /// (`IBV_WC_GRH`; byte 24 is verbs' `wc_flags`).
        GRH: bool = byte 24, bit 0, width 1;
        /// IMM is valid (`IBV_WC_WITH_IMM`).
        WITH_IMM: bool = byte 24, bit 1, width 1;
        /// Device-specific detail of an error status.
        VENDOR_ERR: u8 = byte 25, bit 0, width 8;
        /// Index of the completed WQE in its queue (free-running): the driver
        /// frees that queue's slots up to it.
        WQE_INDEX: u16 = byte 26, bit 0, width 16;
        /// Owner bit: `ring::owner_for(index)` of this entry when valid.
        OWNER: bool = byte 31, bit 7, width 1;
    }

    /// Queue pair context, entry QPN of the QP table. The driver writes it and
    /// issues a Load command; the device owns the PSNs, the producer and
    /// consumer indices and the state while the QP runs, and writes them back
    /// on a Store command. QP 0 has no entry in use. QP1 (the GSI, rdma_cm
    /// MADs) is a UD QP like any other: its frames are parsed, ICRC-checked
    /// and received through its receive queue.
    qpc, 128 bytes {
        /// State.
        STATE: QpState = byte 0, bit 0, width 4;
        /// Transport.
        QP_TYPE: QpType = byte 0, bit 4, width 4;
        /// Path MTU.
        PMTU: Mtu = byte 1, bit 0, width 3;
        /// Incoming RDMA WRITE allowed (`IBV_ACCESS_REMOTE_WRITE`; byte 2 is
        /// verbs' `qp_access_flags`).
        REMOTE_WRITE: bool = byte 2, bit 1, width 1;
        /// Incoming RDMA READ allowed (`IBV_ACCESS_REMOTE_READ`).
        REMOTE_READ: bool = byte 2, bit 2, width 1;
        /// Incoming atomics allowed (`IBV_ACCESS_REMOTE_ATOMIC`).
        REMOTE_ATOMIC: bool = byte 2, bit 3, width 1;
        /// RC: retransmissions after a timeout or NAK before the WQE fails.
        RETRY_CNT: u8 = byte 3, bit 0, width 3;
        /// RC: retries after RNR NAKs before the WQE fails; 7 means without limit.
        RNR_RETRY: u8 = byte 3, bit 4, width 3;
        /// RC: ACK timeout, 4.096 us * 2^TIMEOUT; 0 means none.
        TIMEOUT: u8 = byte 4, bit 0, width 5;
        /// RC: the RNR delay this responder asks for, in the IBA's 5-bit code.
        MIN_RNR_TIMER: u8 = byte 5, bit 0, width 5;
        /// RC: RDMA READs and atomics this QP may have outstanding as requester.
        MAX_RD_ATOMIC: u8 = byte 6, bit 0, width 8;
        /// RC: RDMA READs and atomics it accepts outstanding as responder.
        MAX_DEST_RD_ATOMIC: u8 = byte 7, bit 0, width 8;
        /// Next PSN to send.
        SQ_PSN: u32 = byte 8, bit 0, width 24;
        /// Next PSN expected.
        RQ_PSN: u32 = byte 12, bit 0, width 24;
        /// RC, UC: the remote QP number.
        DEST_QPN: u32 = byte 16, bit 0, width 24;
        /// Protection domain: memory regions used by this QP must carry it.
        PD: u32 = byte 20, bit 0, width 24;
        /// UD: Q_Key incoming datagrams must carry, and the one sent when a
        /// WQE's REMOTE_QKEY has bit 31 set.
        QKEY: u32 = byte 24, bit 0, width 32;
        /// Partition key sent in the BTH (0xFFFF: the default partition).
        PKEY: u16 = byte 28, bit 0, width 16;
        /// log2 of the send queue's entries.
        SQ_LOG_SIZE: u8 = byte 30, bit 0, width 4;
        /// log2 of the receive queue's entries.
        RQ_LOG_SIZE: u8 = byte 31, bit 0, width 4;
        /// CQ for send completions.
        SEND_CQ: u32 = byte 32, bit 0, width 24;
        /// CQ for receive completions.
        RECV_CQ: u32 = byte 36, bit 0, width 24;
        /// IOVA of the send queue ring (`send_wqe` entries), 4 KiB aligned.
        SQ_BASE: u64 = byte 40, bit 0, width 64;
        /// IOVA of the receive queue ring (`recv_wqe` entries), 4 KiB aligned.
        RQ_BASE: u64 = byte 48, bit 0, width 64;
        /// Send queue producer index: the last SqProducer doorbell.
        SQ_PROD: u16 = byte 56, bit 0, width 16;
        /// Send queue consumer index: WQEs the device has completed.
        SQ_CONS: u16 = byte 58, bit 0, width 16;
        /// Receive queue producer index: the last RqProducer doorbell.
        RQ_PROD: u16 = byte 60, bit 0, width 16;
        /// Receive queue consumer index: WQEs the device has consumed.
        RQ_CONS: u16 = byte 62, bit 0, width 16;
        /// RC, UC: the path to the remote QP, laid out as an `ah` entry. UD
        /// ignores it (each WQE names an address handle).
        PATH: Bytes = byte 64, bit 0, width 512;
    }

    /// QP transport state, entry QPN of the QPS table (beside `qpc`, as many
    /// entries): what the RC transport changes while the QP runs
    /// (docs/transport.md, "Per-QP transport state"). The driver zeroes an
    /// entry before the modify to INIT and never writes it while the QP
    /// lives; the device keeps it behind a write-back cache. Each field has
    /// one owner, the block that writes it: requester (bytes
    /// `REQUESTER_BYTES`), completer (`COMPLETER_BYTES`), responder
    /// (`RESPONDER_BYTES`); a block writes its own bytes only. PSNs and the
    /// MSN are 24 bits; indices are send/receive queue positions (16 bits,
    /// wrapping as SQ_PROD does).
    qps, 64 bytes {
        /// Requester: the PSN fields below are valid (set on first use after
        /// RTS, when they are taken from `qpc.SQ_PSN`).
        REQ_STARTED: bool = byte 0, bit 0, width 1;
        /// Requester: READ and atomic WQEs started, modulo 32 (the outstanding
        /// count is this minus `RD_ATOMIC_DONE`, modulo 32; at most 16).
        RD_ATOMIC_STARTED: u8 = byte 0, bit 1, width 5;
        /// Requester: a WQE was refused or flushed (a local error): every
        /// later WQE is flushed (WR_FLUSH_ERR), none sent.
        REQ_REFUSED: bool = byte 0, bit 6, width 1;
        /// Requester: the PSN of the next new packet.
        NEXT_PSN: u32 = byte 1, bit 0, width 24;
        /// Requester: the highest PSN sent, plus one (a resend stops here).
        SENT_END: u32 = byte 4, bit 0, width 24;
        /// Requester: send cursor, the SQ index of the WQE being sent.
        CURSOR_WQE: u16 = byte 7, bit 0, width 16;
        /// Requester: send cursor, the packet inside that WQE.
        CURSOR_PKT: u32 = byte 9, bit 0, width 23;
        /// Completer: the fields below are valid (set on first use after RTS).
        COMP_STARTED: bool = byte 12, bit 0, width 1;
        /// Completer: inside a READ response (after FIRST, before LAST).
        IN_READ_RESP: bool = byte 12, bit 1, width 1;
        /// Completer: `RETRY_PSN` holds a resend's start.
        RETRY_VALID: bool = byte 12, bit 2, width 1;
        /// Completer: retries left before RETRY_EXC_ERR (from `qpc.RETRY_CNT`).
        RETRIES_LEFT: u8 = byte 12, bit 3, width 3;
        /// Completer: a fatal NAK completed the head WQE in error; every later
        /// response of the QP is dropped (before its STATE reaches ERR).
        COMP_ERROR: bool = byte 12, bit 6, width 1;
        /// Completer: an RNR NAK stopped the requester until the QP's RNR
        /// timer runs out (or UNA moves).
        RNR_WAIT: bool = byte 12, bit 7, width 1;
        /// Completer: READ and atomic WQEs completed, modulo 32.
        RD_ATOMIC_DONE: u8 = byte 13, bit 0, width 5;
        /// Completer: RNR retries left (from `qpc.RNR_RETRY`; 7: without limit).
        RNR_RETRIES_LEFT: u8 = byte 13, bit 5, width 3;
        /// Completer: the first PSN of the oldest uncompleted WQE.
        HEAD_FIRST_PSN: u32 = byte 14, bit 0, width 24;
        /// Completer: the oldest unacknowledged PSN.
        UNA: u32 = byte 17, bit 0, width 24;
        /// Completer: the PSN the last resend started from (damps repeats).
        RETRY_PSN: u32 = byte 20, bit 0, width 24;
        /// Completer: the SQ index of the oldest uncompleted WQE.
        HEAD_WQE: u16 = byte 23, bit 0, width 16;
        /// Responder: the fields below are valid (set on first use after RTR,
        /// when `EPSN` is taken from `qpc.RQ_PSN`).
        RESP_STARTED: bool = byte 25, bit 0, width 1;
        /// Responder: a NAK was sent and the expected PSN has not arrived since.
        NAK_SENT: bool = byte 25, bit 1, width 1;
        /// Responder: an ACK for `EPSN - 1` is owed (coalesced).
        ACK_PENDING: bool = byte 25, bit 2, width 1;
        /// Responder: the message in progress (`IN_PROGRESS_*`).
        IN_PROGRESS: u8 = byte 25, bit 3, width 2;
        /// Responder: `RECV_WQE` holds the RECV WQE being filled.
        RECV_VALID: bool = byte 25, bit 5, width 1;
        /// Responder: the SGE of that WQE being filled.
        RECV_SGE: u8 = byte 25, bit 6, width 2;
        /// Responder: the expected PSN.
        EPSN: u32 = byte 26, bit 0, width 24;
        /// Responder: the message sequence number.
        MSN: u32 = byte 29, bit 0, width 24;
        /// Responder: the RQ index of the RECV WQE being filled.
        RECV_WQE: u16 = byte 32, bit 0, width 16;
        /// Responder: bytes placed in that WQE so far.
        RECV_PLACED: u32 = byte 34, bit 0, width 32;
        /// Responder: bytes placed in its SGE `RECV_SGE` so far.
        RECV_SGE_OFFSET: u32 = byte 38, bit 0, width 32;
        /// Responder: the WRITE in progress, the VA of its next byte.
        WRITE_VA: u64 = byte 42, bit 0, width 64;
        /// Responder: the WRITE in progress, its rkey.
        WRITE_RKEY: u32 = byte 50, bit 0, width 32;
        /// Responder: the WRITE in progress, bytes still to come.
        WRITE_REMAINING: u32 = byte 54, bit 0, width 32;
        /// Responder: the WRITE in progress, its total length (a WRITE with
        /// immediate's completion reports it).
        WRITE_LEN: u32 = byte 58, bit 0, width 32;
        /// Responder: the oldest of the QP's live slots in the replay table
        /// (`resource`): the live slots are the window `[REPLAY_HEAD,
        /// REPLAY_HEAD + REPLAY_COUNT)`, modulo `resource::SLOTS` (16). An
        /// executed READ or atomic takes slot `REPLAY_HEAD + REPLAY_COUNT`,
        /// or recycles `REPLAY_HEAD` (which then advances) when
        /// `REPLAY_COUNT` has reached `qpc.MAX_DEST_RD_ATOMIC`.
        REPLAY_HEAD: u8 = byte 62, bit 0, width 4;
        /// Responder: the live slots in the replay table (`resource`) from
        /// `REPLAY_HEAD` on, at most `qpc.MAX_DEST_RD_ATOMIC` (16).
        REPLAY_COUNT: u8 = byte 62, bit 4, width 5;
    } {
        /// Bytes the requester writes.
        pub const REQUESTER_BYTES: core::ops::Range<usize> = 0..12;
        /// Bytes the completer writes.
        pub const COMPLETER_BYTES: core::ops::Range<usize> = 12..25;
        /// Bytes the responder writes.
        pub const RESPONDER_BYTES: core::ops::Range<usize> = 25..64;
        /// `IN_PROGRESS`: no message.
        pub const IN_PROGRESS_NONE: u8 = 0;
        /// `IN_PROGRESS`: a SEND (FIRST received, LAST not yet).
        pub const IN_PROGRESS_SEND: u8 = 1;
        /// `IN_PROGRESS`: an RDMA WRITE.
        pub const IN_PROGRESS_WRITE: u8 = 2;
        /// `IN_PROGRESS`: the responder sent a fatal NAK (invalid request,
        /// remote access or operational error) and drops every later
        /// request, so a QP stops at once, before its STATE reaches ERR.
        pub const IN_PROGRESS_ERROR: u8 = 3;

        /// The owner ranges are adjacent and cover the entry, and every field
        /// lies inside one of them.
        const fn within(f: crate::layout::LayoutFieldInfo, r: core::ops::Range<usize>) -> bool {
            f.pos() >= r.start * 8 && f.pos() + f.width as usize <= r.end * 8
        }
        const fn owned(f: crate::layout::LayoutFieldInfo) -> bool {
            within(f, REQUESTER_BYTES) || within(f, COMPLETER_BYTES) || within(f, RESPONDER_BYTES)
        }
        const _: () = {
            assert!(REQUESTER_BYTES.start == 0 && REQUESTER_BYTES.end == COMPLETER_BYTES.start);
            assert!(COMPLETER_BYTES.end == RESPONDER_BYTES.start && RESPONDER_BYTES.end == SIZE);
            let mut i = 0;
            while i < INFO.fields.len() {
                assert!(owned(INFO.fields[i]), "a qps field crosses its owner's bytes");
                i += 1;
            }
        };
    }

    /// A responder resource, one slot of the replay table: an RDMA READ or
    /// an atomic the RC responder executed, kept so that a duplicate of it
    /// is answered as the first was (a READ's responses again from the
    /// duplicate's PSN, an atomic's saved original value;
    /// docs/replay_plan.md). Each QP has `SLOTS` slots; slot `s` of QP `q`
    /// is at `replay_base + q * QP_BYTES + s * SIZE` (`replay_base_lo/hi`).
    /// The responder writes a slot for every READ or atomic it executes
    /// (the slot `qps.REPLAY_HEAD` and `REPLAY_COUNT` name) and reads the QP's
    /// `QP_BYTES` to answer a duplicate; only slots inside the QP's window
    /// `[REPLAY_HEAD, REPLAY_HEAD + REPLAY_COUNT)` are live. The driver
    /// zeroes a QP's slots at create and at RESET and never writes them
    /// while the QP lives.
    resource, 32 bytes {
        /// A READ's first response PSN (the request's PSN); an atomic's PSN.
        FIRST_PSN: u32 = byte 0, bit 0, width 24;
        /// The slot holds a resource (a second check beside the window).
        VALID: bool = byte 3, bit 0, width 1;
        /// An atomic (else a READ).
        ATOMIC: bool = byte 3, bit 1, width 1;
        /// A READ's last response PSN; an atomic: `FIRST_PSN`.
        LAST_PSN: u32 = byte 4, bit 0, width 24;
        /// READ: the RETH's virtual address. Atomic: the original value
        /// (ORIG) it returned, sent again to a duplicate.
        VA: u64 = byte 8, bit 0, width 64;
        /// READ: the RETH's rkey (a duplicate replays only with the same
        /// one). Not compared for an atomic.
        RKEY: u32 = byte 16, bit 0, width 32;
        /// READ: the RETH's DMA length in bytes. Not compared for an atomic.
        LEN: u32 = byte 20, bit 0, width 32;
    } {
        /// Slots a QP has: the most READs and atomics a responder keeps
        /// (`qp_modify::MAX_DEST_RD_ATOMIC`).
        pub const SLOTS: usize = 16;
        /// Bytes of one QP's slots: the replay table holds as many QPs as
        /// `qpc_log_entries` says.
        pub const QP_BYTES: usize = SLOTS * SIZE;
        const _: () = {
            assert!(SLOTS == crate::qp_modify::MAX_DEST_RD_ATOMIC as usize);
            assert!(1 << super::qps::REPLAY_HEAD.width == SLOTS);
            assert!(1 << super::qps::REPLAY_COUNT.width > SLOTS, "REPLAY_COUNT holds SLOTS");
        };
    }

    /// Completion queue context, entry CQN of the CQ table. The driver zeroes
    /// the ring, writes the context with PROD and CONS at 0 and issues a Load
    /// command; the device owns PROD, CONS, ARMED and OVERRUN while the CQ
    /// runs.
    cqc, 64 bytes {
        /// IOVA of the ring (`cqe` entries), 4 KiB aligned.
        RING_BASE: u64 = byte 0, bit 0, width 64;
        /// Producer index: CQEs written. The owner bit of the next CQE is
        /// `ring::owner_for(PROD)`, so no separate phase bit is kept.
        PROD: u16 = byte 8, bit 0, width 16;
        /// Consumer index from the last CqConsumer or CqArm doorbell.
        CONS: u16 = byte 10, bit 0, width 16;
        /// log2 of the ring's entries.
        LOG_SIZE: u8 = byte 12, bit 0, width 4;
        /// An interrupt is requested (CqArm); cleared when it is raised.
        ARMED: bool = byte 13, bit 0, width 1;
        /// Armed for solicited and error completions only.
        SOLICITED: bool = byte 13, bit 1, width 1;
        /// The ring was full when a completion arrived; the CQ is in error
        /// and takes no more completions.
        OVERRUN: bool = byte 13, bit 2, width 1;
        /// MSI-X vector raised for this CQ.
        MSIX_VECTOR: u16 = byte 14, bit 0, width 16;
        /// Completions per interrupt; 0: `irq_moderation.COUNT`.
        MOD_COUNT: u16 = byte 16, bit 0, width 16;
        /// Microseconds from the first completion to the interrupt; 0:
        /// `irq_moderation.TIME_US`.
        MOD_TIME_US: u16 = byte 18, bit 0, width 16;
    }

    /// Memory protection entry of a memory region (`ibv_reg_mr`), entry
    /// `key_index(KEY, T)` of the MPT table of 2^T entries (T:
    /// `mpt_log_entries`). The device checks every local SGE and every
    /// incoming RDMA or atomic against it, then translates through the
    /// region's MTT entries (`rnic_contract::mr`, docs/memory.md).
    mpt, 64 bytes {
        /// First virtual address of the region.
        VA_BASE: u64 = byte 0, bit 0, width 64;
        /// Length in bytes: addresses in [VA_BASE, VA_BASE + LENGTH) are
        /// valid. The driver keeps VA_BASE + LENGTH at most 2^64.
        LENGTH: u64 = byte 8, bit 0, width 64;
        /// The region's key, both lkey and rkey, compared in full (all 32
        /// bits) with the key of every access: the entry's index in bits
        /// T-1:0, a random tag in bits 31:T (`key`, `mr::draw_key`).
        KEY: u32 = byte 16, bit 0, width 32;
        /// Protection domain: only QPs of the same PD may use the region.
        PD: u32 = byte 20, bit 0, width 24;
        /// The entry describes a registered region.
        VALID: bool = byte 23, bit 0, width 1;
        /// The device may write it for local operations
        /// (`IBV_ACCESS_LOCAL_WRITE`; byte 24 is verbs' access flags).
        LOCAL_WRITE: bool = byte 24, bit 0, width 1;
        /// Peers may RDMA WRITE it (`IBV_ACCESS_REMOTE_WRITE`).
        REMOTE_WRITE: bool = byte 24, bit 1, width 1;
        /// Peers may RDMA READ it (`IBV_ACCESS_REMOTE_READ`).
        REMOTE_READ: bool = byte 24, bit 2, width 1;
        /// Peers may use atomics on it (`IBV_ACCESS_REMOTE_ATOMIC`).
        REMOTE_ATOMIC: bool = byte 24, bit 3, width 1;
        /// log2 of the page size the MTT entries map: one of
        /// `LOG_PAGE_SIZES` (12: 4 KiB, 21: 2 MiB, 30: 1 GiB); an entry with
        /// another value is treated as invalid.
        LOG_PAGE_SIZE: u8 = byte 25, bit 0, width 6;
        /// MTT entry of the region's first page (the page holding VA_BASE);
        /// later pages follow.
        MTT_BASE: u32 = byte 28, bit 0, width 32;
    } {
        /// The page sizes the device translates, as log2: 4 KiB, 2 MiB, 1 GiB.
        pub const LOG_PAGE_SIZES: [u32; 3] = [12, 21, 30];

        /// Largest `mpt_log_entries`: the tag keeps at least 8 bits.
        pub const MAX_LOG_ENTRIES: u32 = 24;

        /// The key of entry `index` of a table of 2^`log_entries` entries,
        /// with `tag` (below 2^(32 - log_entries)) in the bits above the index.
        pub const fn key(index: u32, tag: u32, log_entries: u32) -> u32 {
            ((tag as u64) << log_entries | (index as u64 & index_mask(log_entries) as u64)) as u32
        }

        /// The table entry a key names: its low `log_entries` bits.
        pub const fn key_index(key: u32, log_entries: u32) -> u32 {
            key & index_mask(log_entries)
        }

        /// The tag of a key: the bits above the index.
        pub const fn key_tag(key: u32, log_entries: u32) -> u32 {
            ((key as u64) >> log_entries) as u32
        }

        /// The index bits of a key in a table of 2^`log_entries` entries.
        pub const fn index_mask(log_entries: u32) -> u32 {
            ((1u64 << log_entries) - 1) as u32
        }

        /// Where virtual address `va` of a region lives: the page of the
        /// region, counted from the page holding VA_BASE (so MTT entry
        /// `MTT_BASE + page`), and the byte offset in that page. `None` below
        /// VA_BASE.
        pub const fn locate(va: u64, va_base: u64, log_page_size: u32) -> Option<(u64, u64)> {
            if va < va_base {
                return None;
            }
            Some(((va >> log_page_size) - (va_base >> log_page_size), va & ((1 << log_page_size) - 1)))
        }

        /// `len` bytes from `va` lie inside the region. Computed without
        /// sums, so no VA or length wraps around 2^64 into the region.
        pub const fn contains(va: u64, len: u64, va_base: u64, length: u64) -> bool {
            va >= va_base && len <= length && va - va_base <= length - len
        }
    }

    /// Memory translation entry: the IOVA of one page of a memory region.
    mtt, 8 bytes {
        /// IOVA of the page, aligned to the region's page size (the device
        /// ignores the bits below it); IOVAs are below 2^63.
        ADDR: u64 = byte 0, bit 0, width 63;
        /// The entry maps its page. An access that reaches an entry without
        /// VALID fails (`MrError::MttInvalid`): the device translates none of
        /// its pages from that one on.
        VALID: bool = byte 7, bit 7, width 1;
    }

    /// Address handle (`ibv_ah`): where a packet goes and how it is headed. UD
    /// send WQEs name an entry of the AH table; RC and UC QPs carry one in
    /// their context's PATH.
    ah, 64 bytes {
        /// Destination IP address in wire order; IPv4 as IPv4-mapped IPv6
        /// (`::ffff:a.b.c.d`), which selects an IPv4 header.
        DEST_IP: Bytes = byte 0, bit 0, width 128;
        /// Source IP address (the GID the QP uses), same form.
        SRC_IP: Bytes = byte 16, bit 0, width 128;
        /// Destination MAC, in wire order.
        DEST_MAC: Bytes = byte 32, bit 0, width 48;
        /// Source MAC, in wire order.
        SRC_MAC: Bytes = byte 38, bit 0, width 48;
        /// 802.1Q VLAN identifier.
        VLAN_ID: u16 = byte 44, bit 0, width 12;
        /// Insert an 802.1Q tag.
        VLAN: bool = byte 45, bit 4, width 1;
        /// 802.1Q priority.
        VLAN_PCP: u8 = byte 45, bit 5, width 3;
        /// IPv4 TOS or IPv6 traffic class: DSCP and ECN.
        TRAFFIC_CLASS: u8 = byte 46, bit 0, width 8;
        /// IPv4 TTL or IPv6 hop limit.
        HOP_LIMIT: u8 = byte 47, bit 0, width 8;
        /// IPv6 flow label.
        FLOW_LABEL: u32 = byte 48, bit 0, width 20;
    }

    /// Header of every raw ring slot; the frame follows at byte 64
    /// (`FRAME_OFFSET`, one data-path beat), up to the slot's end. The device writes a receive
    /// slot's header after its frame, then advances `raw_rx_prod`.
    raw_header, 64 bytes {
        /// Frame length in bytes, without FCS.
        LEN: u16 = byte 0, bit 0, width 16;
        /// Receive ring: owner bit, `ring::owner_for(index)` when valid.
        /// Transmit ring: ignored.
        OWNER: bool = byte 63, bit 7, width 1;
    } {
        /// Offset of the frame within its slot.
        pub const FRAME_OFFSET: usize = SIZE;
    }
}
