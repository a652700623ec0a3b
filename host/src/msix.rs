//! MSI-X as the host sees it: a table of vectors the driver programs and
//! masks, pending bits for vectors raised while masked, and a log of
//! delivered interrupts a test or driver backend polls.

use std::collections::VecDeque;
use std::fmt;

/// One table entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MsixEntry {
    /// Message address the device writes.
    pub address: u64,
    /// Message data.
    pub data: u32,
    /// Whether the vector is masked.
    pub masked: bool,
}

/// An interrupt that reached the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MsixDelivery {
    /// The vector.
    pub vector: u16,
    /// Cycle it arrived.
    pub cycle: u64,
    /// Message address at the time it was sent.
    pub address: u64,
    /// Message data at the time it was sent.
    pub data: u32,
}

/// What raising a vector did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RaiseOutcome {
    /// The message was sent; it arrives at the given cycle.
    Sent {
        /// Arrival cycle.
        arrives: u64,
    },
    /// The vector is masked: its pending bit is set and it is sent on unmask.
    Pending,
}

/// A vector number outside the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MsixError {
    /// The vector asked for.
    pub vector: u16,
    /// Vectors in the table.
    pub table_size: u16,
}

impl fmt::Display for MsixError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MSI-X vector {} is outside the table of {} vectors", self.vector, self.table_size)
    }
}

impl std::error::Error for MsixError {}

/// The MSI-X table, pending bit array and delivery log.
#[derive(Debug, Clone)]
pub struct MsixTable {
    entries: Vec<MsixEntry>,
    pending: Vec<bool>,
    /// Cycles from the device raising a vector to the host seeing it (the
    /// message is a posted write).
    latency: u64,
    /// Sent messages not yet polled, in arrival order.
    in_flight: VecDeque<MsixDelivery>,
    delivered: u64,
}

impl MsixTable {
    /// `vectors` entries, all masked as after reset (so nothing fires before
    /// the driver programs an address), delivered `latency` cycles after
    /// being raised.
    pub fn new(vectors: u16, latency: u64) -> Self {
        Self {
            entries: vec![MsixEntry { address: 0, data: 0, masked: true }; vectors.into()],
            pending: vec![false; vectors.into()],
            latency,
            in_flight: VecDeque::new(),
            delivered: 0,
        }
    }

    fn index(&self, vector: u16) -> Result<usize, MsixError> {
        let i = usize::from(vector);
        if i < self.entries.len() {
            Ok(i)
        } else {
            Err(MsixError { vector, table_size: self.entries.len() as u16 })
        }
    }

    /// The entry for `vector`.
    pub fn entry(&self, vector: u16) -> Result<MsixEntry, MsixError> {
        Ok(self.entries[self.index(vector)?])
    }

    /// Sets a vector's message address and data (leaves its mask alone).
    pub fn program(&mut self, vector: u16, address: u64, data: u32) -> Result<(), MsixError> {
        let i = self.index(vector)?;
        self.entries[i].address = address;
        self.entries[i].data = data;
        Ok(())
    }

    /// Masks a vector: raises pend until unmasked.
    pub fn mask(&mut self, vector: u16) -> Result<(), MsixError> {
        let i = self.index(vector)?;
        self.entries[i].masked = true;
        Ok(())
    }

    /// Unmasks a vector at cycle `now`; a pending raise is sent now.
    pub fn unmask(&mut self, vector: u16, now: u64) -> Result<(), MsixError> {
        let i = self.index(vector)?;
        self.entries[i].masked = false;
        if std::mem::take(&mut self.pending[i]) {
            self.send(i, now);
        }
        Ok(())
    }

    /// Whether a vector's pending bit is set.
    pub fn is_pending(&self, vector: u16) -> Result<bool, MsixError> {
        Ok(self.pending[self.index(vector)?])
    }

    /// The device raises `vector` at cycle `now`. Raises while masked
    /// collapse into one pending bit, as in hardware.
    pub fn raise(&mut self, vector: u16, now: u64) -> Result<RaiseOutcome, MsixError> {
        let i = self.index(vector)?;
        if self.entries[i].masked {
            self.pending[i] = true;
            Ok(RaiseOutcome::Pending)
        } else {
            Ok(RaiseOutcome::Sent { arrives: self.send(i, now) })
        }
    }

    fn send(&mut self, i: usize, now: u64) -> u64 {
        let e = self.entries[i];
        let cycle = now + self.latency;
        // Arrival times never decrease (fixed latency), so pushing keeps order.
        self.in_flight.push_back(MsixDelivery { vector: i as u16, cycle, address: e.address, data: e.data });
        cycle
    }

    /// Takes every interrupt that has arrived by cycle `now`, oldest first.
    pub fn poll(&mut self, now: u64) -> Vec<MsixDelivery> {
        let n = self.in_flight.iter().take_while(|d| d.cycle <= now).count();
        self.delivered += n as u64;
        self.in_flight.drain(..n).collect()
    }

    /// The arrival cycle of the next interrupt on `vector` already sent,
    /// so a driver backend waiting on it knows how far to run the clock.
    pub fn next_arrival(&self, vector: u16) -> Option<u64> {
        self.in_flight.iter().find(|d| d.vector == vector).map(|d| d.cycle)
    }

    /// Interrupts taken by `poll` so far.
    pub fn delivered_count(&self) -> u64 {
        self.delivered
    }
}
