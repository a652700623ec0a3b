//! The memory layouts: every field of every layout round trips without
//! touching another bit, typed accessors refuse short buffers, wide values
//! and unknown codes, the overlap check works, and the helpers agree with
//! the layouts.

use rnic_contract::codes::{Mtu, QpState, QpType, SendOpcode, WcOpcode, WcStatus};
use rnic_contract::layout::{layout_is_sound, FieldKind, LayoutFieldInfo, LayoutInfo};
use rnic_contract::layouts::{ah, cqe, mpt, qpc, recv_wqe, send_wqe, sge, LAYOUTS};
use rnic_contract::Error;

/// xorshift64: reproducible pseudo-random bytes without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn fill(&mut self, buf: &mut [u8]) {
        for b in buf {
            *b = self.next() as u8;
        }
    }
}

fn bit(buf: &[u8], pos: usize) -> bool {
    buf[pos / 8] >> (pos % 8) & 1 == 1
}

#[test]
fn every_layout_field_round_trips_and_leaves_every_other_bit_alone() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut checked = 0;
    for layout in LAYOUTS {
        for f in layout.fields.iter().filter(|f| f.kind != FieldKind::Bytes) {
            for _ in 0..32 {
                let mut entry = vec![0u8; layout.size];
                rng.fill(&mut entry);
                let before = entry.clone();
                let value = rng.next() & if f.width == 64 { u64::MAX } else { (1 << f.width) - 1 };
                f.write_raw(&mut entry, value).unwrap();
                assert_eq!(f.read_raw(&entry), Ok(value), "{}.{}", layout.name, f.name);
                for pos in 0..layout.size * 8 {
                    let inside = pos >= f.pos() && pos < f.pos() + f.width as usize;
                    if !inside {
                        assert_eq!(bit(&entry, pos), bit(&before, pos), "{}.{} touched bit {pos}", layout.name, f.name);
                    }
                }
            }
            checked += 1;
        }
    }
    assert!(checked > 80, "only {checked} fields");
}

#[test]
fn fields_are_stored_little_endian_at_their_position() {
    let mut entry = [0u8; qpc::SIZE];
    qpc::SQ_PSN.set(&mut entry, 0xAB_CDEF).unwrap();
    assert_eq!(entry[8..12], [0xEF, 0xCD, 0xAB, 0x00]);
    qpc::QP_TYPE.set(&mut entry, QpType::Ud).unwrap();
    qpc::STATE.set(&mut entry, QpState::ReadyToSend).unwrap();
    assert_eq!(entry[0], 0x43);
    let mut av = [0u8; ah::SIZE];
    ah::VLAN_ID.set(&mut av, 0xABC).unwrap();
    ah::VLAN.set(&mut av, true).unwrap();
    ah::VLAN_PCP.set(&mut av, 5).unwrap();
    assert_eq!(u16::from_le_bytes([av[44], av[45]]), 0xBABC);
    let mut c = [0u8; cqe::SIZE];
    cqe::OWNER.set(&mut c, true).unwrap();
    assert_eq!(c[31], 0x80, "the owner bit is the entry's last bit");
}

#[test]
fn send_flags_and_access_flags_match_verbs_bit_values() {
    let mut wqe = [0u8; send_wqe::SIZE];
    send_wqe::SIGNALED.set(&mut wqe, true).unwrap();
    send_wqe::INLINE.set(&mut wqe, true).unwrap();
    assert_eq!(wqe[9], 2 | 8, "IBV_SEND_SIGNALED | IBV_SEND_INLINE");
    let mut mr = [0u8; mpt::SIZE];
    mpt::LOCAL_WRITE.set(&mut mr, true).unwrap();
    mpt::REMOTE_READ.set(&mut mr, true).unwrap();
    assert_eq!(mr[24], 1 | 4, "IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ");
    let mut c = [0u8; cqe::SIZE];
    cqe::WITH_IMM.set(&mut c, true).unwrap();
    assert_eq!(c[24], 2, "IBV_WC_WITH_IMM");
}

#[test]
fn codes_keep_the_verbs_numbers() {
    assert_eq!(SendOpcode::RdmaWrite.raw(), 0);
    assert_eq!(SendOpcode::SendWithImm.raw(), 3);
    assert_eq!(SendOpcode::AtomicFetchAndAdd.raw(), 6);
    assert_eq!(WcStatus::WrFlushErr.raw(), 5);
    assert_eq!(WcStatus::RetryExcErr.raw(), 12);
    assert_eq!(WcStatus::RnrRetryExcErr.raw(), 13);
    assert_eq!(WcStatus::ALL.len(), 24);
    for (i, s) in WcStatus::ALL.iter().enumerate() {
        assert_eq!(usize::from(s.raw()), i, "{}", s.name());
    }
    assert_eq!(WcOpcode::Recv.raw(), 128);
    assert_eq!(WcOpcode::RecvRdmaWithImm.raw(), 129);
    assert_eq!(QpType::Rc.raw(), 2);
    assert_eq!(QpState::Error.raw(), 6);
    assert_eq!(Mtu::Mtu4096.raw(), 5);
}

#[test]
fn typed_accessors_carry_codes() {
    let mut wqe = [0u8; send_wqe::SIZE];
    for &op in SendOpcode::ALL {
        send_wqe::OPCODE.set(&mut wqe, op).unwrap();
        assert_eq!(send_wqe::OPCODE.get(&wqe), Ok(op));
    }
    wqe[8] = 7;
    assert_eq!(send_wqe::OPCODE.get(&wqe), Err(Error::UnknownCode { field: "OPCODE", value: 7 }));
    let mut c = [0u8; cqe::SIZE];
    cqe::STATUS.set(&mut c, WcStatus::RemAccessErr).unwrap();
    cqe::OPCODE.set(&mut c, WcOpcode::RecvRdmaWithImm).unwrap();
    assert_eq!(cqe::STATUS.get(&c), Ok(WcStatus::RemAccessErr));
    assert_eq!(cqe::OPCODE.get(&c), Ok(WcOpcode::RecvRdmaWithImm));
    let mut q = [0u8; qpc::SIZE];
    q[1] = 6;
    assert_eq!(qpc::PMTU.get(&q), Err(Error::UnknownCode { field: "PMTU", value: 6 }));
}

#[test]
fn short_buffers_are_errors_not_panics() {
    for layout in LAYOUTS {
        for f in layout.fields {
            let needed = f.byte + (f.bit as usize + f.width as usize).div_ceil(8);
            let short = vec![0u8; needed - 1];
            let mut short_mut = short.clone();
            let expected = Error::ShortBuffer { field: f.name, needed, len: needed - 1 };
            if f.kind == FieldKind::Bytes {
                assert_eq!(f.read_raw(&short), Err(Error::NotNumeric { field: f.name }));
            } else {
                assert_eq!(f.read_raw(&short), Err(expected), "{}.{}", layout.name, f.name);
                assert_eq!(f.write_raw(&mut short_mut, 0), Err(expected), "{}.{}", layout.name, f.name);
                assert_eq!(short_mut, short, "a refused write changes nothing");
            }
        }
    }
    assert_eq!(cqe::WR_ID.get(&[0u8; 7]), Err(Error::ShortBuffer { field: "WR_ID", needed: 8, len: 7 }));
    assert_eq!(cqe::OWNER.get(&[0u8; 31]), Err(Error::ShortBuffer { field: "OWNER", needed: 32, len: 31 }));
    assert_eq!(send_wqe::SGES.bytes(&[0u8; 100]), Err(Error::ShortBuffer { field: "SGES", needed: 128, len: 100 }));
    assert!(cqe::WR_ID.get(&[]).is_err());
}

#[test]
fn values_wider_than_their_field_are_refused() {
    let mut q = [0u8; qpc::SIZE];
    assert_eq!(
        qpc::SQ_PSN.set(&mut q, 1 << 24),
        Err(Error::ValueTooWide { field: "SQ_PSN", value: 1 << 24, width: 24 })
    );
    assert_eq!(q, [0u8; qpc::SIZE]);
    assert!(qpc::SQ_LOG_SIZE.set(&mut q, 16).is_err(), "rings are at most 2^15 entries");
    assert!(qpc::SQ_LOG_SIZE.set(&mut q, 15).is_ok());
}

#[test]
fn byte_string_fields_hold_addresses_and_sub_entries() {
    let mut av = [0u8; ah::SIZE];
    let ip = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 10, 99, 0, 2];
    ah::DEST_IP.set_bytes(&mut av, &ip).unwrap();
    ah::DEST_MAC.set_bytes(&mut av, &[0x52, 0x54, 0, 0, 0, 2]).unwrap();
    assert_eq!(ah::DEST_IP.bytes(&av), Ok(&ip[..]));
    assert_eq!(av[32..38], [0x52, 0x54, 0, 0, 0, 2]);
    assert_eq!(
        ah::DEST_MAC.set_bytes(&mut av, &[1, 2, 3]),
        Err(Error::WrongLength { field: "DEST_MAC", expected: 6, got: 3 })
    );

    // A QP's path is an address handle inside the context.
    let mut q = [0u8; qpc::SIZE];
    let path = qpc::PATH.bytes_mut(&mut q).unwrap();
    assert_eq!(path.len(), ah::SIZE);
    ah::HOP_LIMIT.set(path, 1).unwrap();
    assert_eq!(q[qpc::PATH.byte + ah::HOP_LIMIT.byte], 1);
}

#[test]
fn sge_lists_fill_the_wqe_tails() {
    assert_eq!(send_wqe::MAX_SGE, 4);
    assert_eq!(send_wqe::MAX_INLINE, 64);
    assert_eq!(recv_wqe::MAX_SGE, 3);
    assert_eq!(send_wqe::sge_range(0), 64..80);
    assert_eq!(send_wqe::sge_range(send_wqe::MAX_SGE - 1).end, send_wqe::SIZE);
    assert_eq!(recv_wqe::sge_range(recv_wqe::MAX_SGE - 1).end, recv_wqe::SIZE);

    let mut wqe = [0u8; recv_wqe::SIZE];
    for i in 0..recv_wqe::MAX_SGE {
        let s = &mut wqe[recv_wqe::sge_range(i)];
        sge::ADDR.set(s, 0x1000 * (i as u64 + 1)).unwrap();
        sge::LEN.set(s, 100 + i as u32).unwrap();
        sge::LKEY.set(s, 0x4200 + i as u32).unwrap();
    }
    for i in 0..recv_wqe::MAX_SGE {
        let s = &wqe[recv_wqe::sge_range(i)];
        assert_eq!(sge::ADDR.get(s), Ok(0x1000 * (i as u64 + 1)));
        assert_eq!(sge::LEN.get(s), Ok(100 + i as u32));
        assert_eq!(sge::LKEY.get(s), Ok(0x4200 + i as u32));
    }
    assert_eq!(recv_wqe::WR_ID.get(&wqe), Ok(0), "the SGEs stay out of the header");
}

#[test]
fn memory_region_keys_and_translation() {
    let key = mpt::key(0x12_3456, 0x9A, 24);
    assert_eq!(key, 0x9A12_3456);
    assert_eq!(mpt::key_index(key, 24), 0x12_3456);
    // A region starting 0x100 into a 4 KiB page: its first page is MTT_BASE.
    assert_eq!(mpt::locate(0x7000_0100, 0x7000_0100, 12), Some((0, 0x100)));
    assert_eq!(mpt::locate(0x7000_0FFF, 0x7000_0100, 12), Some((0, 0xFFF)));
    assert_eq!(mpt::locate(0x7000_1000, 0x7000_0100, 12), Some((1, 0)));
    assert_eq!(mpt::locate(0x7020_0005, 0x7000_0100, 21), Some((1, 5)));
    assert_eq!(mpt::locate(0x7000_00FF, 0x7000_0100, 12), None);
    assert!(mpt::contains(0x1000, 0x100, 0x1000, 0x100));
    assert!(!mpt::contains(0x1001, 0x100, 0x1000, 0x100));
    assert!(!mpt::contains(0xFFF, 1, 0x1000, 0x100));
    assert!(!mpt::contains(0x1000, 0x101, 0x1000, 0x100));
    assert!(mpt::contains(u64::MAX, 1, u64::MAX - 1, 2), "no overflow at the top of the address space");
}

#[test]
fn every_declared_layout_passes_the_checks() {
    for layout in LAYOUTS {
        assert!(layout_is_sound(layout), "{}", layout.name);
        assert!(layout.size % 8 == 0, "{}", layout.name);
    }
    let sizes: Vec<(&str, usize)> = LAYOUTS.iter().map(|l| (l.name, l.size)).collect();
    assert_eq!(
        sizes,
        [
            ("sge", 16),
            ("send_wqe", 128),
            ("recv_wqe", 64),
            ("cqe", 32),
            ("qpc", 128),
            ("qps", 64),
            ("resource", 32),
            ("cqc", 64),
            ("mpt", 64),
            ("mtt", 8),
            ("ah", 64),
            ("raw_header", 64),
        ]
    );
}

const fn field(name: &'static str, byte: usize, bit: u32, width: u32) -> LayoutFieldInfo {
    LayoutFieldInfo { name, byte, bit, width, type_name: "u32", kind: FieldKind::Uint, doc: "" }
}

fn layout(size: usize, fields: &'static [LayoutFieldInfo]) -> LayoutInfo {
    LayoutInfo { name: "test", size, doc: "", fields }
}

#[test]
fn the_layout_check_catches_overlaps_and_overflows() {
    static TOUCHING: [LayoutFieldInfo; 2] = [field("A", 0, 0, 12), field("B", 1, 4, 4)];
    static OVERLAP: [LayoutFieldInfo; 2] = [field("A", 0, 0, 12), field("B", 1, 3, 4)];
    static REVERSED: [LayoutFieldInfo; 2] = [field("B", 1, 4, 4), field("A", 0, 0, 12)];
    static PAST_END: [LayoutFieldInfo; 1] = [field("A", 6, 0, 24)];
    static AT_END: [LayoutFieldInfo; 1] = [field("A", 6, 0, 16)];
    assert!(layout_is_sound(&layout(8, &TOUCHING)));
    assert!(!layout_is_sound(&layout(8, &OVERLAP)));
    assert!(!layout_is_sound(&layout(8, &REVERSED)));
    assert!(!layout_is_sound(&layout(8, &PAST_END)));
    assert!(layout_is_sound(&layout(8, &AT_END)));
    assert!(!layout_is_sound(&layout(12, &AT_END)), "sizes are powers of two");
    assert!(!layout_is_sound(&layout(0, &[])));
}

#[test]
fn qps_fields_sit_in_their_owners_bytes() {
    use rnic_contract::layouts::qps;
    // Bits per owner, as docs/transport.md ("Hardware plan") counts them.
    let mut bits = [0u32; 3];
    for f in qps::FIELDS {
        let (lo, hi) = (f.pos(), f.pos() + f.width as usize);
        let owner = [qps::REQUESTER_BYTES, qps::COMPLETER_BYTES, qps::RESPONDER_BYTES]
            .iter()
            .position(|r| lo >= r.start * 8 && hi <= r.end * 8)
            .unwrap_or_else(|| panic!("{} crosses an owner's bytes", f.name));
        bits[owner] += f.width;
    }
    assert_eq!(bits, [94, 104, 305]);
    // A write of one owner's bytes leaves every other owner's field as it was.
    let mut e = [0xA5u8; qps::SIZE];
    for b in &mut e[qps::COMPLETER_BYTES] {
        *b = 0;
    }
    assert_eq!(qps::NEXT_PSN.get(&e).unwrap(), 0xA5A5A5);
    assert_eq!(qps::UNA.get(&e).unwrap(), 0);
    assert_eq!(qps::EPSN.get(&e).unwrap(), 0xA5A5A5);
}

#[test]
fn the_replay_table_holds_sixteen_resources_a_qp() {
    use rnic_contract::layouts::{qps, resource};
    assert_eq!((resource::SIZE, resource::SLOTS, resource::QP_BYTES), (32, 16, 512));
    assert_eq!(resource::SLOTS, usize::from(rnic_contract::qp_modify::MAX_DEST_RD_ATOMIC));
    assert_eq!(1 << qps::REPLAY_HEAD.width, resource::SLOTS, "HEAD names a slot");
    assert_eq!(qps::REPLAY_COUNT.width, 5, "COUNT reaches SLOTS");
    assert!(layout_is_sound(&resource::INFO), "no overlap, inside the entry");
    let at: Vec<(&str, usize, usize)> = resource::FIELDS.iter().map(|f| (f.name, f.pos(), f.width as usize)).collect();
    assert_eq!(
        at,
        [
            ("FIRST_PSN", 0, 24),
            ("VALID", 24, 1),
            ("ATOMIC", 25, 1),
            ("LAST_PSN", 32, 24),
            ("VA", 64, 64),
            ("RKEY", 128, 32),
            ("LEN", 160, 32),
        ]
    );
    // Every field at its largest leaves bytes 24..32 (reserved) and the
    // bits between fields at 0.
    let mut e = [0u8; resource::SIZE];
    for f in resource::FIELDS {
        assert!(f.bytes_needed() <= 24, "{} past byte 24", f.name);
        f.write_raw(&mut e, if f.width == 64 { u64::MAX } else { (1 << f.width) - 1 }).unwrap();
    }
    assert_eq!(e[24..], [0; 8]);
    assert_eq!((e[3], e[7]), (0b11, 0), "VALID and ATOMIC in byte 3; byte 7 free");
    let set = e.iter().map(|b| b.count_ones()).sum::<u32>();
    assert_eq!(set, resource::FIELDS.iter().map(|f| f.width).sum::<u32>(), "no two fields share a bit");
    // An entry as the responder writes it, read back.
    let mut r = [0u8; resource::SIZE];
    resource::FIRST_PSN.set(&mut r, 0xFF_FFFE).unwrap();
    resource::VALID.set(&mut r, true).unwrap();
    resource::LAST_PSN.set(&mut r, 0x00_0003).unwrap();
    resource::VA.set(&mut r, 0x1234_5678_9ABC_DEF0).unwrap();
    resource::RKEY.set(&mut r, 0xCAFE_0001).unwrap();
    resource::LEN.set(&mut r, 5 * 1024).unwrap();
    assert_eq!(r[..8], [0xFE, 0xFF, 0xFF, 0x01, 0x03, 0x00, 0x00, 0x00]);
    assert_eq!(resource::ATOMIC.get(&r), Ok(false));
    assert_eq!(resource::LEN.get(&r), Ok(5120));
    // Slot s of QP q, from the table's base.
    let slot = |q: usize, s: usize| q * resource::QP_BYTES + s * resource::SIZE;
    assert_eq!((slot(0, 15), slot(1, 0), slot(3, 2)), (480, 512, 1600));
}
