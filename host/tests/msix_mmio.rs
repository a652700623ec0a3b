//! MSI-X delivery and register access latency.

use rnic_contract::regs;
use rnic_host::{MmioAccess, MmioConfig, MmioError, MmioPort, MsixDelivery, MsixError, MsixTable, RaiseOutcome};

#[test]
fn vectors_start_masked_and_pend_until_unmasked() {
    let mut msix = MsixTable::new(4, 50);
    assert_eq!(msix.raise(1, 10), Ok(RaiseOutcome::Pending));
    assert_eq!(msix.raise(1, 20), Ok(RaiseOutcome::Pending), "raises while masked collapse");
    assert_eq!(msix.is_pending(1), Ok(true));
    assert!(msix.poll(1000).is_empty());

    msix.program(1, 0xfee0_0000, 0x41).unwrap();
    msix.unmask(1, 100).unwrap();
    assert_eq!(msix.is_pending(1), Ok(false));
    assert_eq!(msix.next_arrival(1), Some(150));
    assert!(msix.poll(149).is_empty());
    assert_eq!(msix.poll(150), [MsixDelivery { vector: 1, cycle: 150, address: 0xfee0_0000, data: 0x41 }]);
    assert_eq!(msix.delivered_count(), 1);

    assert_eq!(msix.raise(1, 200), Ok(RaiseOutcome::Sent { arrives: 250 }));
    msix.mask(1).unwrap();
    assert_eq!(msix.raise(1, 210), Ok(RaiseOutcome::Pending));
    assert_eq!(msix.poll(300).len(), 1, "a message already sent still arrives");
    assert_eq!(msix.raise(4, 0), Err(MsixError { vector: 4, table_size: 4 }));
    assert!(MsixError { vector: 4, table_size: 4 }.to_string().contains("vector 4"));
}

/// A fake device: the ID registers from the contract and a scratch register.
fn fake_device(scratch: &mut u32, log: &mut Vec<(MmioAccess, u64)>, access: MmioAccess, cycle: u64) -> u32 {
    log.push((access, cycle));
    match access {
        MmioAccess::Read { offset } if offset == regs::id_magic::OFFSET => regs::id_magic::RESET,
        MmioAccess::Read { offset } if offset == regs::scratch::OFFSET => *scratch,
        MmioAccess::Write { offset, value } if offset == regs::scratch::OFFSET => {
            *scratch = value;
            0
        }
        _ => 0,
    }
}

#[test]
fn register_reads_take_a_round_trip_and_see_earlier_writes() {
    let (mut scratch, mut log) = (0u32, Vec::new());
    let mut dev = |a, c| fake_device(&mut scratch, &mut log, a, c);
    let config = MmioConfig::typical();
    assert_eq!((config.write_latency, config.read_round_trip), (25, 250));
    let mut port = MmioPort::new(config);

    let magic = port.read32(regs::id_magic::OFFSET, 0).unwrap();
    assert_eq!(magic.ready_at, 250);
    assert_eq!(
        port.write32(regs::scratch::OFFSET, 0x1234_5678, 1).unwrap(),
        125,
        "a write does not pass an earlier read"
    );
    let scratch_back = port.read32(regs::scratch::OFFSET, 2).unwrap();
    assert_eq!(scratch_back.ready_at, 252);

    for cycle in 0..=252 {
        port.tick(cycle, &mut dev);
        if cycle < 250 {
            assert_eq!(port.take_read(magic, cycle), None);
        }
    }
    assert_eq!(port.take_read(magic, 250), Some(regs::id_magic::RESET));
    assert_eq!(port.take_read(scratch_back, 252), Some(0x1234_5678));
    assert_eq!(port.take_read(magic, 300), None, "a ticket is redeemed once");
    assert_eq!(port.queued(), 0);
    assert_eq!(log.iter().map(|(_, c)| *c).collect::<Vec<_>>(), [125, 125, 127]);
}

#[test]
fn posted_writes_arrive_after_their_latency_and_doorbells_in_halves() {
    let mut seen = Vec::new();
    let mut dev = |a, c| {
        seen.push((a, c));
        0
    };
    let mut port = MmioPort::new(MmioConfig::typical());
    assert_eq!(port.write64(regs::doorbell::OFFSET, 0xaabb_ccdd_0011_2233, 10).unwrap(), 35);
    port.tick(34, &mut dev);
    port.tick(35, &mut dev);
    assert_eq!(
        seen,
        [
            (MmioAccess::Write { offset: regs::doorbell::OFFSET, value: 0x0011_2233 }, 35),
            (MmioAccess::Write { offset: regs::doorbell::OFFSET + 4, value: 0xaabb_ccdd }, 35),
        ]
    );
    assert_eq!(port.write32(2, 0, 0), Err(MmioError::Misaligned { offset: 2 }));
    assert_eq!(port.read32(regs::BAR0_BYTES, 0), Err(MmioError::OutOfRange { offset: regs::BAR0_BYTES }));
}
