//! Host memory and IOMMU behaviour.

use proptest::prelude::*;
use rnic_host::iommu::{FaultReason, Mapping};
use rnic_host::memory::PAGE_SIZE;
use rnic_host::{FaultMode, HostMemory, HostSpace, Iommu, MapError, Perms};

fn pattern(len: usize, seed: u8) -> Vec<u8> {
    (0..len).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect()
}

#[test]
fn odd_alignment_round_trips_across_page_boundaries() {
    let mut mem = HostMemory::new();
    for (addr, len) in
        [(0xfffu64, 2usize), (0x1_0000_0ffd, 7), (0x2003, 3 * PAGE_SIZE + 5), (0xffff_ffff_ffff_f000 - 3, 3)]
    {
        let data = pattern(len, addr as u8);
        mem.write(addr, &data);
        assert_eq!(mem.read_vec(addr, len), data, "at {addr:#x}");
        // The bytes around it are untouched.
        assert_eq!(mem.read_vec(addr - 1, 1), [0]);
        assert_eq!(mem.read_vec(addr + len as u64, 1), [0]);
    }
}

#[test]
fn untouched_memory_reads_zero_without_allocating() {
    let mem = HostMemory::new();
    assert_eq!(mem.read_vec(0x1234_5678_9abc, 3 * PAGE_SIZE), vec![0; 3 * PAGE_SIZE]);
    assert_eq!(mem.resident_pages(), 0);
}

#[test]
fn whole_page_writes_and_little_endian_words() {
    let mut mem = HostMemory::new();
    let page = pattern(PAGE_SIZE, 9);
    mem.write(0x5000, &page);
    assert_eq!(mem.read_vec(0x5000, PAGE_SIZE), page);
    assert_eq!(mem.resident_pages(), 1);
    mem.write_u64(0x5ffc, 0x1122_3344_5566_7788);
    assert_eq!(mem.read_u32(0x5ffc), 0x5566_7788);
    assert_eq!(mem.read_u32(0x6000), 0x1122_3344);
    assert_eq!(mem.read_u64(0x5ffc), 0x1122_3344_5566_7788);
}

#[test]
fn mappings_may_not_overlap() {
    let mut mmu = Iommu::strict();
    mmu.map(0x10_000, 0x2000, 0x80_000, Perms::RW).unwrap();
    let err = mmu.map(0x11_000, 0x2000, 0x90_000, Perms::R).unwrap_err();
    assert!(matches!(err, MapError::Overlap { existing: Mapping { iova: 0x10_000, .. }, .. }));
    assert!(err.to_string().contains("0x10000"), "{err}");
    assert!(matches!(mmu.map(0xf_000, 0x1001, 0, Perms::R), Err(MapError::Overlap { .. })));
    // Adjacent on both sides is fine.
    mmu.map(0xf_000, 0x1000, 0, Perms::R).unwrap();
    mmu.map(0x12_000, 0x1000, 0x1000, Perms::R).unwrap();
    assert_eq!(mmu.map(0x20_000, 0, 0, Perms::R), Err(MapError::Empty { iova: 0x20_000 }));
    assert_eq!(mmu.unmap(0x10_800), Err(MapError::NotMapped { iova: 0x10_800 }));
    assert_eq!(mmu.unmap(0x10_000).unwrap().phys, 0x80_000);
    mmu.map(0x11_000, 0x1000, 0, Perms::R).unwrap();
    assert_eq!(mmu.mappings().count(), 3);
}

#[test]
fn dma_translates_across_adjacent_mappings() {
    let mut host = HostSpace::new();
    host.iommu.map(0x1000, 0x1000, 0x40_0000, Perms::RW).unwrap();
    host.iommu.map(0x2000, 0x1000, 0x90_0000, Perms::RW).unwrap();
    let data = pattern(0x100, 1);
    host.dma_write(0x1f80, &data).unwrap();
    assert_eq!(host.memory.read_vec(0x40_0f80, 0x80), data[..0x80]);
    assert_eq!(host.memory.read_vec(0x90_0000, 0x80), data[0x80..]);
    let mut back = vec![0; 0x100];
    host.dma_read(0x1f80, &mut back).unwrap();
    assert_eq!(back, data);
}

#[test]
fn faults_name_the_address_and_are_counted() {
    let mut host = HostSpace { memory: HostMemory::new(), iommu: Iommu::counting() };
    host.iommu.map(0xdead_0000, 0x1000, 0x1000, Perms::R).unwrap();

    let f = host.dma_write(0xdead_0010, &[1, 2, 3]).unwrap_err();
    assert_eq!(f.reason, FaultReason::NotPermitted { at: 0xdead_0010 });
    assert!(f.to_string().contains("0xdead0010"), "{f}");
    assert_eq!(host.memory.read_vec(0x1010, 3), [0, 0, 0], "a faulting write changes nothing");

    let mut buf = [0; 0x20];
    let f = host.dma_read(0xdead_0ff0, &mut buf).unwrap_err();
    assert_eq!(f.reason, FaultReason::Unmapped { at: 0xdead_1000 });
    let msg = f.to_string();
    assert!(msg.contains("0xdead0ff0") && msg.contains("0xdead1000"), "{msg}");

    assert_eq!(host.iommu.fault_count(), 2);
    assert!(host.iommu.faults()[0].write);
}

#[test]
#[should_panic(expected = "DMA fault: device read of 64 bytes at IOVA 0xbad000")]
fn strict_mode_panics_with_the_address() {
    let mut host = HostSpace::new();
    assert_eq!(host.iommu.mode(), FaultMode::Strict);
    let mut buf = [0; 64];
    let _ = host.dma_read(0xbad000, &mut buf);
}

/// A memory operation for the model check.
#[derive(Debug, Clone)]
enum Op {
    Write(u64, Vec<u8>),
    Read(u64, usize),
}

const MODEL_BYTES: u64 = 5 * PAGE_SIZE as u64;
const BASE: u64 = 0x7fff_ffff_e000 - 3;

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (0..MODEL_BYTES, prop::collection::vec(any::<u8>(), 0..2 * PAGE_SIZE)).prop_map(|(off, data)| {
            let off = off.min(MODEL_BYTES - data.len() as u64);
            Op::Write(off, data)
        }),
        (0..MODEL_BYTES, 0..2 * PAGE_SIZE).prop_map(|(off, len)| Op::Read(off.min(MODEL_BYTES - len as u64), len)),
    ]
}

proptest! {
    #[test]
    fn sparse_memory_matches_a_flat_vector(ops in prop::collection::vec(op(), 1..24)) {
        let mut mem = HostMemory::new();
        let mut flat = vec![0u8; MODEL_BYTES as usize];
        for op in ops {
            match op {
                Op::Write(off, data) => {
                    mem.write(BASE + off, &data);
                    flat[off as usize..off as usize + data.len()].copy_from_slice(&data);
                }
                Op::Read(off, len) => {
                    prop_assert_eq!(mem.read_vec(BASE + off, len), &flat[off as usize..off as usize + len]);
                }
            }
        }
        prop_assert_eq!(mem.read_vec(BASE, MODEL_BYTES as usize), flat);
    }
}
