//! The ring convention: a device producing CQEs and a driver polling the
//! owner bit agree on every entry across ring wraps and the 16-bit index
//! wrap, and never take a stale entry for a new one.

use rnic_contract::layouts::cqe;
use rnic_contract::ring::{self, is_empty, is_full, owner_for, slot, used, MAX_LOG_SIZE};

/// A CQ in "host memory" with the device's producer and the driver's
/// consumer index.
struct Cq {
    log_size: u32,
    entries: Vec<[u8; cqe::SIZE]>,
    prod: u16,
    cons: u16,
}

impl Cq {
    /// A zeroed ring with both indices at 0, as the contract requires.
    fn new(log_size: u32) -> Self {
        Cq { log_size, entries: vec![[0; cqe::SIZE]; 1 << log_size], prod: 0, cons: 0 }
    }

    /// The device's side: write the next CQE unless the ring is full.
    fn produce(&mut self, wr_id: u64) -> bool {
        if is_full(self.prod, self.cons, self.log_size) {
            return false;
        }
        let entry = &mut self.entries[slot(self.prod, self.log_size)];
        cqe::WR_ID.set(entry, wr_id).unwrap();
        cqe::WQE_INDEX.set(entry, self.prod).unwrap();
        cqe::OWNER.set(entry, owner_for(self.prod, self.log_size)).unwrap();
        self.prod = self.prod.wrapping_add(1);
        true
    }

    /// The driver's side: take the next CQE if its owner bit says it is new.
    /// Looks only at memory, never at `prod`.
    fn poll(&mut self) -> Option<u64> {
        let entry = &self.entries[slot(self.cons, self.log_size)];
        if cqe::OWNER.get(entry).unwrap() != owner_for(self.cons, self.log_size) {
            return None;
        }
        assert_eq!(cqe::WQE_INDEX.get(entry), Ok(self.cons), "took an entry from another pass");
        self.cons = self.cons.wrapping_add(1);
        Some(cqe::WR_ID.get(entry).unwrap())
    }
}

#[test]
fn the_owner_bit_alternates_per_pass() {
    let log = 2;
    let owners: Vec<bool> = (0u16..16).map(|i| owner_for(i, log)).collect();
    let pass = |p: bool| [p; 4];
    let expected: Vec<bool> = [pass(true), pass(false), pass(true), pass(false)].concat();
    assert_eq!(owners, expected);
    // Across the 16-bit wrap the pass parity still alternates.
    for log in 0..=MAX_LOG_SIZE {
        assert_ne!(owner_for(u16::MAX, log), owner_for(0, log), "log {log}");
    }
}

#[test]
fn a_polling_driver_sees_each_cqe_once_across_ring_and_index_wraps() {
    for log in [0, 1, 2, 5, MAX_LOG_SIZE] {
        let mut cq = Cq::new(log);
        let size = 1usize << log;
        let mut next_id = 0u64;
        let mut seen = 0u64;
        // Uneven bursts until the 16-bit indices have wrapped and three more
        // passes have gone by.
        let total = (1u64 << 16) + 3 * size as u64;
        for burst in [1, size, 3, size, 2].iter().cycle() {
            if next_id >= total {
                break;
            }
            assert_eq!(cq.poll(), None, "an empty ring shows nothing new (log {log}, cons {:#x})", cq.cons);
            for _ in 0..(*burst).min(size) {
                assert!(cq.produce(next_id));
                next_id += 1;
            }
            while let Some(id) = cq.poll() {
                assert_eq!(id, seen);
                seen += 1;
            }
            assert_eq!(seen, next_id, "every CQE taken (log {log})");
            assert!(is_empty(cq.prod, cq.cons));
        }
        assert!(u64::from(cq.cons) < next_id, "the index wrapped (log {log})");
    }
}

#[test]
fn a_full_ring_refuses_the_next_entry_across_the_index_wrap() {
    let mut cq = Cq::new(2);
    while cq.cons != 0xFFFD {
        assert!(cq.produce(0));
        cq.poll().unwrap();
    }
    for id in 0..4 {
        assert!(cq.produce(id));
    }
    assert!(is_full(cq.prod, cq.cons, 2));
    assert_eq!(used(cq.prod, cq.cons), 4);
    assert!(!cq.produce(99), "overrun");
    assert_eq!(cq.poll(), Some(0));
    assert!(cq.produce(4));
    assert_eq!((1..=4).map(|_| cq.poll().unwrap()).collect::<Vec<_>>(), [1, 2, 3, 4]);
    assert_eq!(cq.poll(), None);
}

#[test]
fn the_deepest_ring_never_confuses_full_and_empty() {
    let log = ring::MAX_LOG_SIZE;
    let cons = 0xC000u16;
    let prod = cons.wrapping_add(1 << log);
    assert!(is_full(prod, cons, log));
    assert!(!is_empty(prod, cons));
    assert_eq!(slot(prod, log), slot(cons, log));
}
