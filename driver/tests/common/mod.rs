//! What more than one test file needs: a counter window whose every slot
//! holds a value of its own, and the [`Counters`] such a window reads as,
//! spelled field by field from the contract's register names (not through
//! the driver's own table), so a field read from another register, or with
//! its halves swapped, shows.

use rnic_contract::regs::{self, COUNTER_WINDOW};
use rnic_driver::Counters;

/// Bytes of one beat of a counter dump: 8 counters (`ctx_engine`).
pub const DUMP_BEAT: usize = 64;

/// A value for the 64-bit slot of the counter window at `offset`: both
/// halves non-zero and unlike every other slot's halves; `epoch` makes a
/// later dump differ from an earlier one in every slot.
pub fn window_value(offset: u32, epoch: u32) -> u64 {
    let k = (offset - COUNTER_WINDOW.start) / 8;
    let hi = 0xC000 + 0x100 * epoch + k;
    let lo = 0x5A00_0000 + 0x1_0000 * epoch + 0x101 * (k + 1);
    u64::from(hi) << 32 | u64::from(lo)
}

/// The window's image in host memory as the device writes it: each slot's
/// value, low half first.
pub fn window_image(value: impl Fn(u32) -> u64) -> Vec<u8> {
    COUNTER_WINDOW.step_by(8).flat_map(|o| value(o).to_le_bytes()).collect()
}

/// The counters of a window whose register at `offset` holds `value(offset)`.
pub fn counters_of(value: impl Fn(u32) -> u64) -> Counters {
    use regs::*;
    Counters {
        rx_roce: value(cnt_roce::OFFSET),
        rx_raw: value(cnt_raw::OFFSET),
        rx_malformed: value(cnt_malformed::OFFSET),
        rx_icrc: value(cnt_icrc::OFFSET),
        rx_ip_csum: value(cnt_ip_csum::OFFSET),
        rx_mac_err: value(cnt_mac_err::OFFSET),
        rx_raw_drop: value(cnt_raw_drop::OFFSET),
        rx_fifo_drop: value(cnt_rx_fifo_drop::OFFSET),
        tx_frames: value(cnt_tx_frames::OFFSET),
        tx_bytes: value(cnt_tx_bytes::OFFSET),
        drop_ctx_fail: value(cnt_ctx_fail::OFFSET),
        drop_qp_not_ready: value(cnt_qp_not_ready::OFFSET),
        drop_qp_error: value(cnt_qp_error::OFFSET),
        drop_bad_qpn: value(cnt_bad_qpn::OFFSET),
        drop_wrong_qp_type: value(cnt_wrong_qp_type::OFFSET),
        drop_response_unexpected: value(cnt_response_unexpected::OFFSET),
        drop_bad_context: value(cnt_bad_context::OFFSET),
        dup_requests: value(cnt_dup_requests::OFFSET),
        silent_drops: value(cnt_silent_drops::OFFSET),
        rnr_naks: value(cnt_rnr_naks::OFFSET),
        naks: [
            value(cnt_nak_psn_seq::OFFSET),
            value(cnt_nak_invalid_request::OFFSET),
            value(cnt_nak_remote_access::OFFSET),
            value(cnt_nak_remote_op::OFFSET),
        ],
        ghost_responses: value(cnt_ghost_responses::OFFSET),
        comp_error_drops: value(cnt_comp_error_drops::OFFSET),
        rnr_naks_received: value(cnt_rnr_naks_received::OFFSET),
        nak_psn_seq_received: value(cnt_nak_psn_seq_received::OFFSET),
        naks_fatal_received: value(cnt_naks_fatal_received::OFFSET),
        go_back_n: value(cnt_go_back_n::OFFSET),
        push_refused: value(cnt_push_refused::OFFSET),
        retry_timeouts: value(cnt_retry_timeouts::OFFSET),
        drop_bad_pkey: value(cnt_bad_pkey::OFFSET),
        rx_pause: value(cnt_rx_pause::OFFSET),
    }
}
