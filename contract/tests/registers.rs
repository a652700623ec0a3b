//! The register map: field accessors on every field of every register, the
//! identification block, the doorbell encoding, the counters' placement and
//! the compile-time checks' own logic.

use rnic_contract::codes::{DoorbellKind, RxOutcome};
use rnic_contract::reg::{map_is_sound, register_is_sound, Access, Field, RegFieldInfo, RegInfo, Reset};
use rnic_contract::regs::{self, Doorbell, BAR0_BYTES, REGISTERS};
use rnic_contract::{abi_compatible, Error, ABI_MAJOR, ABI_MINOR, ABI_VERSION};

/// xorshift64: reproducible pseudo-random words without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn low_mask(width: u32) -> u64 {
    if width == 64 {
        u64::MAX
    } else {
        (1 << width) - 1
    }
}

#[test]
fn every_register_field_round_trips_and_leaves_its_neighbours_alone() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut checked = 0;
    for reg in REGISTERS {
        for f in reg.fields {
            for _ in 0..64 {
                let value = rng.next() & low_mask(f.width);
                if reg.bits == 32 {
                    let field = Field::<u32>::new(f.name, f.lsb, f.width, f.doc);
                    let before = rng.next() as u32;
                    let after = field.set(before, value as u32).unwrap();
                    assert_eq!(field.get(after), value as u32, "{}.{}", reg.name, f.name);
                    assert_eq!((after ^ before) & !field.mask(), 0, "{}.{} touched other bits", reg.name, f.name);
                    assert_eq!(field.encode(value as u32), Ok((value as u32) << f.lsb));
                } else {
                    let field = Field::<u64>::new(f.name, f.lsb, f.width, f.doc);
                    let before = rng.next();
                    let after = field.set(before, value).unwrap();
                    assert_eq!(field.get(after), value, "{}.{}", reg.name, f.name);
                    assert_eq!((after ^ before) & !field.mask(), 0, "{}.{} touched other bits", reg.name, f.name);
                }
            }
            checked += 1;
        }
    }
    assert!(checked > 60, "only {checked} fields");
}

#[test]
fn a_value_wider_than_its_field_is_refused() {
    assert_eq!(regs::ctrl::ENABLE.set(0, 2), Err(Error::ValueTooWide { field: "ENABLE", value: 2, width: 1 }));
    assert_eq!(
        regs::doorbell::QUEUE.set(0, 1 << 24),
        Err(Error::ValueTooWide { field: "QUEUE", value: 1 << 24, width: 24 })
    );
    // A full-width field takes everything.
    assert_eq!(regs::scratch::VALUE.set(0, u32::MAX), Ok(u32::MAX));
}

#[test]
fn typed_fields_read_where_the_table_says() {
    let word = regs::id_limits::LOG_MAX_MPT.encode(20).unwrap() | regs::id_limits::LOG_MAX_RING.encode(15).unwrap();
    assert_eq!(word, 0x0F14_0000);
    assert_eq!(regs::events::CQ_OVERRUN.mask(), 1 << 3, "W1C: write the mask to clear the bit");
    assert_eq!(regs::raw_rx_cfg::ENABLE.mask(), 0x8000_0000);
    assert_eq!(regs::doorbell::KIND.mask(), 0x0F00_0000_0000_0000);
    assert_eq!(regs::ctx_cmd::OP.msb(), 31);
}

#[test]
fn the_id_magic_reads_rnic() {
    assert_eq!(regs::id_magic::OFFSET, 0);
    assert_eq!(regs::id_magic::RESET, 0x524E_4943);
    assert_eq!(&regs::id_magic::RESET.to_be_bytes(), b"RNIC");
    assert_eq!(regs::id_magic::ACCESS, Access::Ro);
    assert_eq!(REGISTERS[0].name, "id_magic");
}

#[test]
fn the_version_register_carries_the_abi_version() {
    assert_eq!(regs::id_version::RESET, ABI_VERSION);
    assert_eq!(regs::id_version::MAJOR.get(ABI_VERSION), u32::from(ABI_MAJOR));
    assert_eq!(regs::id_version::MINOR.get(ABI_VERSION), u32::from(ABI_MINOR));
    assert!(abi_compatible(ABI_VERSION));
    assert!(!abi_compatible(ABI_VERSION + (1 << 16)), "another major");
    // While the major is 0 the minor must match exactly.
    assert_eq!(ABI_MAJOR, 0);
    assert!(!abi_compatible(ABI_VERSION + 1));
    assert!(!abi_compatible(ABI_VERSION - 1));
}

#[test]
fn build_properties_have_no_fixed_reset() {
    for name in ["id_features", "id_datapath", "id_clock", "id_limits", "irq_vectors"] {
        let reg = REGISTERS.iter().find(|r| r.name == name).unwrap();
        assert_eq!(reg.reset, Reset::Build, "{name}");
        assert_eq!(reg.access, Access::Ro, "{name}");
    }
}

#[test]
fn the_map_keeps_the_doorbell_alone_on_its_page() {
    assert_eq!(regs::doorbell::OFFSET, 0x1000);
    assert_eq!(regs::doorbell::OFFSET % 0x1000, 0);
    for reg in REGISTERS.iter().filter(|r| r.name != "doorbell") {
        assert!(reg.offset + reg.bytes() <= 0x1000, "{} shares the doorbell page", reg.name);
    }
    assert!(map_is_sound(REGISTERS, BAR0_BYTES));
    let last = REGISTERS.last().unwrap();
    assert!(last.offset + last.bytes() <= BAR0_BYTES);
}

#[test]
fn rx_counters_sit_in_outcome_order() {
    let expected = [
        (RxOutcome::Roce, regs::cnt_roce::OFFSET, 0x200),
        (RxOutcome::Raw, regs::cnt_raw::OFFSET, 0x208),
        (RxOutcome::Malformed, regs::cnt_malformed::OFFSET, 0x210),
        (RxOutcome::Icrc, regs::cnt_icrc::OFFSET, 0x218),
        (RxOutcome::IpChecksum, regs::cnt_ip_csum::OFFSET, 0x220),
        (RxOutcome::MacError, regs::cnt_mac_err::OFFSET, 0x228),
    ];
    for (outcome, offset, literal) in expected {
        assert_eq!(outcome.counter_offset(), offset);
        assert_eq!(offset, literal);
        assert_eq!(offset, regs::cnt_roce::OFFSET + 8 * u32::from(outcome.raw()));
    }
    assert_eq!(RxOutcome::ALL.len(), expected.len());
}

#[test]
fn doorbell_words_have_the_documented_layout() {
    let arm = Doorbell { kind: DoorbellKind::CqArm, queue: 0xAB_CDEF, index: 0x1234, solicited: true };
    assert_eq!(arm.encode(), Ok(0x03AB_CDEF_0001_1234));
    assert_eq!(arm.encode_halves(), Ok((0x0001_1234, 0x03AB_CDEF)));
    let rq = Doorbell { kind: DoorbellKind::RqProducer, queue: 2, index: 0xFFFF, solicited: false };
    assert_eq!(rq.encode(), Ok(0x0100_0002_0000_FFFF));
}

#[test]
fn doorbells_round_trip_for_every_kind_and_extreme() {
    for &kind in DoorbellKind::ALL {
        for queue in [0, 1, 2, 0x1000, 0xFF_FFFF] {
            for index in [0, 1, 0x7FFF, 0x8000, 0xFFFF] {
                for solicited in [false, true] {
                    let ring = Doorbell { kind, queue, index, solicited };
                    match ring.encode() {
                        Ok(word) => {
                            assert_eq!(Doorbell::decode(word), Ok(ring));
                            assert_eq!(regs::doorbell::KIND.get(word), u64::from(kind.raw()));
                            assert_eq!(regs::doorbell::QUEUE.get(word), u64::from(queue));
                            assert_eq!(regs::doorbell::INDEX.get(word), u64::from(index));
                        }
                        Err(e) => {
                            assert!(solicited && kind != DoorbellKind::CqArm, "{ring:?}: {e}");
                            assert!(matches!(e, Error::ReservedBits { field: "SOLICITED", .. }));
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn bad_doorbells_are_refused() {
    let too_far = Doorbell { kind: DoorbellKind::SqProducer, queue: 1 << 24, index: 0, solicited: false };
    assert_eq!(too_far.encode(), Err(Error::ValueTooWide { field: "QUEUE", value: 1 << 24, width: 24 }));
    for kind in 4..16u64 {
        assert_eq!(Doorbell::decode(kind << 56), Err(Error::UnknownCode { field: "KIND", value: kind }));
    }
    for bit in [17, 31, 56 + 4, 63] {
        assert_eq!(
            Doorbell::decode(1 << bit),
            Err(Error::ReservedBits { field: "doorbell", bits: 1 << bit }),
            "bit {bit}"
        );
    }
    let solicited_send = regs::doorbell::SOLICITED.mask();
    assert!(matches!(Doorbell::decode(solicited_send), Err(Error::ReservedBits { field: "SOLICITED", .. })));
}

const FIELD_A: RegFieldInfo = RegFieldInfo { name: "A", lsb: 0, width: 8, doc: "" };
const FIELD_B: RegFieldInfo = RegFieldInfo { name: "B", lsb: 4, width: 8, doc: "" };
const FIELD_TOP: RegFieldInfo = RegFieldInfo { name: "TOP", lsb: 28, width: 8, doc: "" };

fn reg(offset: u32, bits: u32, reset: Reset, fields: &'static [RegFieldInfo]) -> RegInfo {
    RegInfo { name: "test", offset, bits, access: Access::Rw, reset, doc: "", fields }
}

#[test]
fn the_register_checks_catch_bad_declarations() {
    assert!(register_is_sound(&reg(0x10, 32, Reset::Value(0xFF), &[FIELD_A])));
    assert!(!register_is_sound(&reg(0x10, 32, Reset::Value(0), &[FIELD_A, FIELD_B])), "overlap");
    assert!(!register_is_sound(&reg(0x10, 32, Reset::Value(0), &[FIELD_B, FIELD_A])), "out of order");
    assert!(!register_is_sound(&reg(0x10, 32, Reset::Value(0), &[FIELD_TOP])), "outside the word");
    assert!(register_is_sound(&reg(0x10, 64, Reset::Value(0), &[FIELD_TOP])));
    assert!(!register_is_sound(&reg(0x14, 64, Reset::Value(0), &[FIELD_A])), "misaligned 64-bit");
    assert!(!register_is_sound(&reg(0x12, 32, Reset::Value(0), &[FIELD_A])), "misaligned 32-bit");
    assert!(!register_is_sound(&reg(0x10, 32, Reset::Value(0x100), &[FIELD_A])), "reset outside fields");
    assert!(register_is_sound(&reg(0x10, 32, Reset::Build, &[FIELD_A])));

    let a = reg(0x10, 32, Reset::Value(0), &[FIELD_A]);
    let wide = reg(0x10, 64, Reset::Value(0), &[FIELD_A]);
    let b = reg(0x14, 32, Reset::Value(0), &[FIELD_A]);
    assert!(map_is_sound(&[a, b], 0x20));
    assert!(!map_is_sound(&[b, a], 0x20), "out of order");
    assert!(!map_is_sound(&[wide, b], 0x20), "overlap");
    assert!(!map_is_sound(&[a, b], 0x14), "outside the BAR");
}
