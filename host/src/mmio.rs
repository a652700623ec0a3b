//! Register access from the host with the latency a driver sees: a posted
//! write reaches the device some time after the CPU issues it, and a read
//! returns only after a full round trip. Accesses reach the device in the
//! order they were issued (reads do not pass writes), so a driver's
//! write-then-read-back works as on hardware.

use std::collections::{HashMap, VecDeque};
use std::fmt;

use rnic_contract::regs::BAR0_BYTES;

/// One access as the device sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MmioAccess {
    /// Read of the 32-bit register at `offset`.
    Read {
        /// BAR0 byte offset.
        offset: u32,
    },
    /// Write of `value` to the 32-bit register at `offset`.
    Write {
        /// BAR0 byte offset.
        offset: u32,
        /// Value written.
        value: u32,
    },
}

/// The device side of BAR0: the simulator's RTL wrapper, or a closure in
/// tests. Returns the value for reads; the return value of a write is ignored.
pub trait RegisterDevice {
    /// Performs one access at `cycle`.
    fn access(&mut self, access: MmioAccess, cycle: u64) -> u32;
}

impl<F: FnMut(MmioAccess, u64) -> u32> RegisterDevice for F {
    fn access(&mut self, access: MmioAccess, cycle: u64) -> u32 {
        self(access, cycle)
    }
}

/// Register access latencies in core cycles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MmioConfig {
    /// Cycles from issuing a posted write to the device seeing it.
    pub write_latency: u64,
    /// Cycles from issuing a read to the value being back at the CPU; the
    /// device sees the read halfway.
    pub read_round_trip: u64,
}

impl MmioConfig {
    /// Typical for a PCIe endpoint: about 100 ns for a posted write, about
    /// 1 µs for a read round trip.
    pub const fn typical() -> Self {
        Self { write_latency: crate::ns_to_cycles(100), read_round_trip: crate::ns_to_cycles(1000) }
    }
}

impl Default for MmioConfig {
    fn default() -> Self {
        Self::typical()
    }
}

/// An access the port refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MmioError {
    /// Not 4-byte aligned (for 64-bit accesses, 8-byte aligned).
    Misaligned {
        /// The offset.
        offset: u32,
    },
    /// Outside BAR0.
    OutOfRange {
        /// The offset.
        offset: u32,
    },
}

impl fmt::Display for MmioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            MmioError::Misaligned { offset } => write!(f, "misaligned register access at BAR0 offset {offset:#x}"),
            MmioError::OutOfRange { offset } => {
                write!(f, "register access at BAR0 offset {offset:#x} is outside BAR0 ({BAR0_BYTES:#x} bytes)")
            }
        }
    }
}

impl std::error::Error for MmioError {}

/// Names an outstanding read; redeem with [`MmioPort::take_read`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReadTicket {
    id: u64,
    /// Cycle the value is back at the CPU.
    pub ready_at: u64,
}

#[derive(Debug)]
struct Pending {
    /// Cycle the device sees it.
    reaches_device: u64,
    access: MmioAccess,
    /// For reads: the ticket, and when the value is back.
    read: Option<ReadTicket>,
}

/// The host's port to BAR0.
#[derive(Debug, Default)]
pub struct MmioPort {
    config: MmioConfig,
    queue: VecDeque<Pending>,
    /// Reads the device answered: ticket → value.
    answered: HashMap<u64, (ReadTicket, u32)>,
    /// When the latest queued access reaches the device, to keep order.
    last_arrival: u64,
    next_id: u64,
}

impl MmioPort {
    /// A port with `config` latencies.
    pub fn new(config: MmioConfig) -> Self {
        Self { config, ..Self::default() }
    }

    fn check(offset: u32, align: u32, bytes: u32) -> Result<(), MmioError> {
        if !offset.is_multiple_of(align) {
            return Err(MmioError::Misaligned { offset });
        }
        if offset.checked_add(bytes).is_none_or(|end| end > BAR0_BYTES) {
            return Err(MmioError::OutOfRange { offset });
        }
        Ok(())
    }

    fn enqueue(&mut self, earliest: u64, access: MmioAccess, read: Option<ReadTicket>) -> u64 {
        let reaches_device = earliest.max(self.last_arrival);
        self.last_arrival = reaches_device;
        self.queue.push_back(Pending { reaches_device, access, read });
        reaches_device
    }

    /// Issues a posted write at cycle `now`; returns when the device sees it.
    pub fn write32(&mut self, offset: u32, value: u32, now: u64) -> Result<u64, MmioError> {
        Self::check(offset, 4, 4)?;
        Ok(self.enqueue(now + self.config.write_latency, MmioAccess::Write { offset, value }, None))
    }

    /// Issues a 64-bit store (the doorbell) as the device sees it: low half
    /// then high half in the same cycle; returns when the device sees it.
    pub fn write64(&mut self, offset: u32, value: u64, now: u64) -> Result<u64, MmioError> {
        Self::check(offset, 8, 8)?;
        let at = now + self.config.write_latency;
        self.enqueue(at, MmioAccess::Write { offset, value: value as u32 }, None);
        Ok(self.enqueue(at, MmioAccess::Write { offset: offset + 4, value: (value >> 32) as u32 }, None))
    }

    /// Issues a read at cycle `now`.
    pub fn read32(&mut self, offset: u32, now: u64) -> Result<ReadTicket, MmioError> {
        Self::check(offset, 4, 4)?;
        let out = self.config.read_round_trip / 2;
        let back = self.config.read_round_trip - out;
        // The ticket's ready_at is fixed once the arrival is known.
        let reaches_device = (now + out).max(self.last_arrival);
        self.next_id += 1;
        let ticket = ReadTicket { id: self.next_id, ready_at: reaches_device + back };
        self.enqueue(reaches_device, MmioAccess::Read { offset }, Some(ticket));
        Ok(ticket)
    }

    /// Delivers every access that reaches the device by cycle `now`, in
    /// order, each at its own arrival cycle.
    pub fn tick(&mut self, now: u64, device: &mut impl RegisterDevice) {
        while self.queue.front().is_some_and(|p| p.reaches_device <= now) {
            let p = self.queue.pop_front().expect("front checked");
            let value = device.access(p.access, p.reaches_device);
            if let Some(ticket) = p.read {
                self.answered.insert(ticket.id, (ticket, value));
            }
        }
    }

    /// The value of a read once it is back at the CPU (cycle `now` at or
    /// past `ticket.ready_at`), else `None` and the ticket stays valid.
    pub fn take_read(&mut self, ticket: ReadTicket, now: u64) -> Option<u32> {
        if now < ticket.ready_at {
            return None;
        }
        self.answered.remove(&ticket.id).map(|(_, v)| v)
    }

    /// Accesses issued but not yet seen by the device.
    pub fn queued(&self) -> usize {
        self.queue.len()
    }
}
