//! PCIe timing: latency, bandwidth, ordering, faults.

use std::collections::BTreeMap;

use rnic_host::{Completion, HostMemory, HostSpace, Iommu, PcieConfig, PcieError, PcieModel, Perms, ReadChunk};

const IOVA: u64 = 0x1_0000_0000;
const PHYS: u64 = 0x40_0000;

fn host_with(bytes: u64) -> HostSpace {
    let mut host = HostSpace::new();
    host.iommu.map(IOVA, bytes, PHYS, Perms::RW).unwrap();
    let data: Vec<u8> = (0..bytes).map(|i| (i * 7 + i / 251) as u8).collect();
    host.memory.write(PHYS, &data);
    host
}

fn reads(done: Vec<Completion>) -> Vec<ReadChunk> {
    done.into_iter()
        .map(|c| match c {
            Completion::Read(chunk) => chunk,
            other => panic!("unexpected {other:?}"),
        })
        .collect()
}

#[test]
fn gen3_x16_defaults() {
    let c = PcieConfig::gen3_x16();
    assert_eq!(
        (c.read_round_trip, c.write_latency, c.read_bytes_per_cycle, c.write_bytes_per_cycle),
        (225, 50, 52, 52)
    );
    assert_eq!(PcieConfig::default(), c);
    let bad = PcieConfig { read_bytes_per_cycle: 0, ..c };
    assert!(matches!(PcieModel::new(bad), Err(PcieError::BadConfig(_))));
}

#[test]
fn single_read_completes_exactly_one_round_trip_later() {
    let mut host = host_with(0x1000);
    let mut link = PcieModel::new(PcieConfig::gen3_x16()).unwrap();
    link.submit_read(3, IOVA + 0x40, 64, 10).unwrap();
    for cycle in 10..235 {
        assert!(link.tick(cycle, &mut host).is_empty(), "nothing before cycle 235, got something at {cycle}");
    }
    let got = reads(link.tick(235, &mut host));
    assert_eq!(got.len(), 1);
    assert_eq!((got[0].tag, got[0].offset, got[0].last, got[0].cycle), (3, 0, true, 235));
    assert_eq!(got[0].data, host.memory.read_vec(PHYS + 0x40, 64));
    assert_eq!(link.reads_in_flight(), 0);
    assert!(link.is_idle());
}

#[test]
fn tags_cannot_be_reused_while_outstanding() {
    let mut link = PcieModel::new(PcieConfig::gen3_x16()).unwrap();
    link.submit_read(1, IOVA, 64, 0).unwrap();
    assert_eq!(link.submit_read(1, IOVA, 64, 0), Err(PcieError::TagInUse(1)));
    assert_eq!(link.submit_read(2, IOVA, 0, 0), Err(PcieError::Empty { iova: IOVA }));
}

/// Streams `total` bytes in `request`-byte reads keeping up to `tags` in
/// flight; returns the data in order and the link.
fn stream(config: PcieConfig, total: u32, request: u32, tags: u16) -> (Vec<u8>, PcieModel, HostSpace) {
    let mut host = host_with(u64::from(total));
    let mut link = PcieModel::new(config).unwrap();
    let mut out = vec![0u8; total as usize];
    let mut free: Vec<u16> = (0..tags).rev().collect();
    let mut base_of = BTreeMap::new();
    let mut next = 0u32;
    let mut received = 0u32;
    let mut cycle = 0;
    while received < total {
        while next < total {
            let Some(tag) = free.pop() else { break };
            link.submit_read(tag, IOVA + u64::from(next), request, cycle).unwrap();
            base_of.insert(tag, next);
            next += request;
        }
        for chunk in reads(link.tick(cycle, &mut host)) {
            let at = (base_of[&chunk.tag] + chunk.offset) as usize;
            out[at..at + chunk.data.len()].copy_from_slice(&chunk.data);
            received += chunk.data.len() as u32;
            if chunk.last {
                free.push(chunk.tag);
            }
        }
        cycle += 1;
        assert!(cycle < 1_000_000, "stream stalled");
    }
    (out, link, host)
}

#[test]
fn read_stream_with_enough_tags_reaches_95_percent_of_bandwidth() {
    let config = PcieConfig::gen3_x16();
    let (data, link, host) = stream(config, 64 * 1024, 512, 32);
    assert_eq!(data, host.memory.read_vec(PHYS, 64 * 1024));
    let c = link.counters();
    assert_eq!((c.read_bytes, c.read_requests), (64 * 1024, 128));
    let achieved = c.read_bandwidth();
    let configured = f64::from(config.read_bytes_per_cycle);
    assert!(achieved >= 0.95 * configured, "{achieved:.2} B/cycle of {configured}");
    assert!(achieved <= configured);
    assert!(c.read_busy_cycles * u64::from(config.read_bytes_per_cycle) >= c.read_bytes);
}

#[test]
fn read_stream_with_one_tag_is_latency_bound() {
    let config = PcieConfig::gen3_x16();
    let (data, link, host) = stream(config, 16 * 1024, 512, 1);
    assert_eq!(data, host.memory.read_vec(PHYS, 16 * 1024));
    let achieved = link.counters().read_bandwidth();
    // One 512-byte read per round trip: about 2.2 bytes per cycle.
    assert!(achieved < 3.0, "{achieved:.2} B/cycle");
}

/// Submits eight 1 KiB reads at cycle 0 and returns the chunks in arrival order.
fn eight_reads(config: PcieConfig) -> (Vec<ReadChunk>, HostSpace) {
    let mut host = host_with(8 * 1024);
    let mut link = PcieModel::new(config).unwrap();
    for tag in 0..8u16 {
        link.submit_read(tag, IOVA + u64::from(tag) * 1024, 1024, 0).unwrap();
    }
    let mut chunks = Vec::new();
    for cycle in 0..2000 {
        chunks.extend(reads(link.tick(cycle, &mut host)));
    }
    assert!(link.is_idle());
    (chunks, host)
}

fn check_per_tag_order(chunks: &[ReadChunk], host: &HostSpace) {
    assert_eq!(chunks.len(), 8 * 4, "1 KiB splits into four 256-byte completions");
    let mut expected_offset = [0u32; 8];
    for c in chunks {
        let t = usize::from(c.tag);
        assert_eq!(c.offset, expected_offset[t], "tag {} out of order", c.tag);
        assert_eq!(c.data, host.memory.read_vec(PHYS + t as u64 * 1024 + u64::from(c.offset), c.data.len()));
        expected_offset[t] += c.data.len() as u32;
        assert_eq!(c.last, expected_offset[t] == 1024);
    }
}

#[test]
fn completions_in_order_by_default_and_reordered_across_tags_with_a_seed() {
    let (in_order, host) = eight_reads(PcieConfig::gen3_x16());
    check_per_tag_order(&in_order, &host);
    let tags: Vec<u16> = in_order.iter().map(|c| c.tag).collect();
    let mut sorted = tags.clone();
    sorted.sort();
    assert_eq!(tags, sorted, "without a seed, reads come back in submission order");

    let (shuffled, host) = eight_reads(PcieConfig::gen3_x16().with_reorder(7));
    check_per_tag_order(&shuffled, &host);
    let shuffled_tags: Vec<u16> = shuffled.iter().map(|c| c.tag).collect();
    assert_ne!(shuffled_tags, tags, "a seed interleaves tags");
    let (again, _) = eight_reads(PcieConfig::gen3_x16().with_reorder(7));
    assert_eq!(again, shuffled, "the same seed gives the same order");
}

#[test]
fn unaligned_reads_split_at_completion_boundaries() {
    let mut host = host_with(0x1000);
    let mut link = PcieModel::new(PcieConfig::gen3_x16()).unwrap();
    link.submit_read(0, IOVA + 0xf0, 0x220, 0).unwrap();
    let mut chunks = Vec::new();
    for cycle in 0..400 {
        chunks.extend(reads(link.tick(cycle, &mut host)));
    }
    let sizes: Vec<usize> = chunks.iter().map(|c| c.data.len()).collect();
    assert_eq!(sizes, [0x10, 0x100, 0x100, 0x10]);
}

#[test]
fn writes_reach_memory_after_their_latency() {
    let mut host = host_with(0x1000);
    let mut link = PcieModel::new(PcieConfig::gen3_x16()).unwrap();
    let data = vec![0xa5u8; 100];
    link.submit_write(IOVA + 0x10, &data, 5).unwrap();
    let before = host.memory.read_vec(PHYS + 0x10, 100);
    for cycle in 5..55 {
        assert!(link.tick(cycle, &mut host).is_empty());
        assert_eq!(host.memory.read_vec(PHYS + 0x10, 100), before, "landed early at {cycle}");
    }
    assert_eq!(link.tick(55, &mut host), [Completion::WriteApplied { iova: IOVA + 0x10, len: 100, cycle: 55 }]);
    assert_eq!(host.memory.read_vec(PHYS + 0x10, 100), data);
    assert_eq!(link.counters().write_bytes, 100);
}

#[test]
fn write_stream_is_bandwidth_limited() {
    let mut host = host_with(64 * 1024);
    let mut link = PcieModel::new(PcieConfig::gen3_x16()).unwrap();
    let data: Vec<u8> = (0..64 * 1024).map(|i| (i % 253) as u8).collect();
    link.submit_write(IOVA, &data, 0).unwrap();
    let mut last = 0;
    for cycle in 0..3000 {
        for c in link.tick(cycle, &mut host) {
            assert!(matches!(c, Completion::WriteApplied { .. }));
            last = cycle;
        }
    }
    assert_eq!(host.memory.read_vec(PHYS, data.len()), data);
    // 65536 bytes at 52 per cycle take 1261 cycles after the first lands.
    assert!((1300..1320).contains(&last), "last write landed at {last}");
    let bw = link.counters().write_bandwidth();
    assert!(bw > 0.99 * 52.0 && bw <= 52.0, "{bw}");
}

#[test]
fn faulting_dma_in_counting_mode_is_reported_and_dropped() {
    let mut host = HostSpace { memory: HostMemory::new(), iommu: Iommu::counting() };
    host.iommu.map(IOVA, 0x1000, PHYS, Perms::R).unwrap();
    let mut link = PcieModel::new(PcieConfig::gen3_x16()).unwrap();
    link.submit_write(IOVA, &[1; 8], 0).unwrap();
    link.submit_read(9, IOVA + 0xf00, 0x200, 0).unwrap();
    let mut done = Vec::new();
    for cycle in 0..500 {
        done.extend(link.tick(cycle, &mut host));
    }
    assert!(matches!(&done[0], Completion::WriteFailed { fault, .. } if fault.write && fault.iova == IOVA));
    assert!(matches!(&done[1], Completion::Read(c) if c.tag == 9 && c.data.len() == 0x100));
    assert!(matches!(&done[2], Completion::ReadFailed { tag: 9, fault, .. } if fault.iova == IOVA + 0x1000));
    assert_eq!(done.len(), 3);
    assert_eq!(host.iommu.fault_count(), 2);
    assert!(link.is_idle());
}

#[test]
// The write splits at the 256-byte payload boundary; the second TLP faults.
#[should_panic(expected = "write of 16 bytes at IOVA 0x100001000: IOVA 0x100001000 is not mapped")]
fn faulting_dma_in_strict_mode_fails_the_test() {
    let mut host = host_with(0x1000);
    let mut link = PcieModel::new(PcieConfig::gen3_x16()).unwrap();
    link.submit_write(IOVA + 0xff0, &[0; 32], 0).unwrap();
    for cycle in 0..100 {
        link.tick(cycle, &mut host);
    }
}
