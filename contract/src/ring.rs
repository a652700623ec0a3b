//! The one ring convention every queue shares: send and receive queues, CQs
//! and the raw rings.
//!
//! A ring has `2^log_size` entries, `log_size <= MAX_LOG_SIZE`. Producer and
//! consumer indices are free-running 16-bit counters that wrap at 2^16, never
//! at the ring size: entry `index` lives in slot `index mod 2^log_size`, the
//! ring holds `prod - cons` (mod 2^16) entries, and it is full when that is
//! `2^log_size`. Because the ring is at most half the index space, empty and
//! full are never confused.
//!
//! Entries the device produces for software to poll (CQEs, raw receive slot
//! headers) carry an owner bit. The ring starts zeroed with both indices at
//! 0; the device writes entry `index` with owner [`owner_for`]`(index)`: 1 on
//! the first pass, 0 on the second, and so on. An entry is new when its owner
//! bit equals `owner_for(cons)` for the consumer's index; an entry left from
//! the previous pass, or a zeroed one before the first, holds the other value.
//! (Starting at another index would need the ring filled with
//! `!owner_for(start)` instead of zeros, so the contract fixes the start at 0.)

/// Deepest ring: 2^15 entries, half the 16-bit index space.
pub const MAX_LOG_SIZE: u32 = 15;

/// Slot of entry `index`.
pub const fn slot(index: u16, log_size: u32) -> usize {
    (index as usize) & ((1usize << log_size) - 1)
}

/// Entries between `cons` and `prod`.
pub const fn used(prod: u16, cons: u16) -> u16 {
    prod.wrapping_sub(cons)
}

/// The ring holds nothing.
pub const fn is_empty(prod: u16, cons: u16) -> bool {
    prod == cons
}

/// The ring has no free slot.
pub const fn is_full(prod: u16, cons: u16, log_size: u32) -> bool {
    used(prod, cons) as u32 >= 1 << log_size
}

/// The owner bit the device writes into entry `index` (true on even passes
/// over the ring, counting from 0), and so the value a consumer at `index`
/// waits for.
pub const fn owner_for(index: u16, log_size: u32) -> bool {
    (index >> log_size) & 1 == 0
}
