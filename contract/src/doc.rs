//! Renders `docs/regmap.md` from the contract's tables. The output depends
//! only on the declarations, so it is byte-for-byte reproducible and a test
//! can compare it with the committed file. Written against
//! [`core::fmt::Write`], so the library stays `no_std`; the `regmap-doc`
//! binary and the tests collect it into a `String`.

use core::fmt::{self, Write};

use crate::codes::{CodeInfo, CODES};
use crate::layout::{FieldKind, LayoutFieldInfo, LayoutInfo};
use crate::layouts::LAYOUTS;
use crate::qp_modify;
use crate::reg::{RegInfo, Reset};
use crate::regs::{BAR0_BYTES, REGISTERS};
use crate::{ABI_MAJOR, ABI_MINOR, ABI_VERSION};

/// The rules that hold for every register and layout, rendered before the
/// tables.
const CONVENTIONS: &str = "\
- **Register port.** BAR0, AXI4-Lite style: 32-bit registers at 4-byte aligned offsets; a 64-bit register spans two \
slots, low half first. Reserved offsets read 0 and ignore writes; reserved bits read 0 and are written as 0. Access: \
RO read-only, RW read-write, WO write-only (reads 0), W1C set by the device and cleared by writing 1. A reset value \
of `build` is a property of the build (data-path width, clock, limits), driven from the RTL's parameters.
- **Addresses.** Ring and table bases and MTT entries are IOVAs: the addresses the device uses on PCIe, as mapped \
through VFIO. SGE addresses and remote VAs are virtual addresses inside a memory region, which the device checks \
against the region's `mpt` entry and translates through its `mtt` pages.
- **Memory layouts.** Fixed-size entries, little-endian. A field at byte B, bit b, of width w holds bits \
8B+b .. 8B+b+w-1 of the entry, where bit i of byte j is bit 8j+i; a field starting at bit 0 of a byte is stored \
like a little-endian integer. Bytes no field covers are reserved: written as 0, ignored. Numbers that are \
big-endian on the wire (immediates, keys) are stored as numbers; addresses (IP, MAC) as bytes in wire order.
- **Rings.** Every queue has 2^n entries (n at most 15) and free-running 16-bit producer and consumer indices: \
entry i sits in slot i mod 2^n, the ring holds prod - cons (mod 2^16) entries and is full at 2^n. Entries the \
device writes for software to poll (CQEs, raw receive slot headers) carry an owner bit: the ring starts zeroed with \
both indices at 0, the device writes 1 on the first pass, 0 on the second and so on (`ring::owner_for`), and an entry \
is new when its owner bit is the value for the consumer's index.
- **Doorbell.** One 64-bit register for every queue: KIND, a 24-bit QUEUE and a 16-bit INDEX. It is written as one \
64-bit store; the device acts on the high half.
- **Contexts.** The QP, CQ, MPT, MTT and AH tables live in host memory at the bases in the table registers, which \
change only while `ctrl.ENABLE` is 0. The device may cache entries: after writing an entry the driver issues a \
`ctx_cmd` Load; Store writes the state the device owns back to memory; Invalidate drops the device's copy.
- **Interrupts.** MSI-X. A CQ raises `cqc.MSIX_VECTOR` once per CqArm doorbell, moderated by count and time; \
`events` raises the vector in `irq_events`; the raw receive ring arms like a CQ (`raw_rx_irq`).
- **Bring-up.** Check `id_magic` and `id_version`, write and read back `scratch`, set `ctrl.SOFT_RESET` and wait \
for it to clear, program the table and raw ring registers, set `ctrl.ENABLE`; then Load each context as QPs, CQs \
and memory regions are created.
- **Versions.** `id_version` reads ABI_MAJOR << 16 | ABI_MINOR. MAJOR changes when anything moves or changes \
meaning, MINOR when something is added in reserved space; while MAJOR is 0 a driver requires the exact MINOR.
";

/// Writes the whole of `docs/regmap.md`.
pub fn write_regmap<W: Write>(out: &mut W) -> fmt::Result {
    writeln!(out, "# Register map and memory layouts")?;
    writeln!(out)?;
    writeln!(
        out,
        "<!-- Generated from contract/ (crate rnic-contract) by `make docs`. Do not edit: \
         a test fails when this file differs from what the crate generates. -->"
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "ABI version {ABI_MAJOR}.{ABI_MINOR} (`id_version` reads `0x{ABI_VERSION:08X}`). \
         BAR0 is 0x{BAR0_BYTES:X} bytes."
    )?;
    writeln!(out)?;
    writeln!(out, "## Conventions")?;
    writeln!(out)?;
    out.write_str(CONVENTIONS)?;
    write_registers(out)?;
    write_layouts(out)?;
    write_codes(out)
}

fn write_registers<W: Write>(out: &mut W) -> fmt::Result {
    writeln!(out)?;
    writeln!(out, "## Registers")?;
    writeln!(out)?;
    writeln!(out, "| offset | register | access | reset | purpose |")?;
    writeln!(out, "|---|---|---|---|---|")?;
    for reg in REGISTERS {
        writeln!(
            out,
            "| `0x{:04X}` | `{}` | {} | {} | {} |",
            reg.offset,
            reg.name,
            reg.access.as_str(),
            ResetText(reg),
            Prose { text: reg.doc, first_sentence: true },
        )?;
    }
    for reg in REGISTERS {
        writeln!(out)?;
        writeln!(out, "### `{}`", reg.name)?;
        writeln!(out)?;
        writeln!(
            out,
            "Offset `0x{:04X}`, {} bits, {}, reset {}.",
            reg.offset,
            reg.bits,
            reg.access.as_str(),
            ResetText(reg)
        )?;
        writeln!(out)?;
        writeln!(out, "{}", Prose { text: reg.doc, first_sentence: false })?;
        writeln!(out)?;
        writeln!(out, "| bits | field | meaning |")?;
        writeln!(out, "|---|---|---|")?;
        for f in reg.fields {
            writeln!(
                out,
                "| {} | `{}` | {} |",
                BitRange { lsb: f.lsb, width: f.width },
                f.name,
                Prose { text: f.doc, first_sentence: false }
            )?;
        }
    }
    Ok(())
}

fn write_layouts<W: Write>(out: &mut W) -> fmt::Result {
    writeln!(out)?;
    writeln!(out, "## Memory layouts")?;
    writeln!(out)?;
    writeln!(out, "| layout | bytes | purpose |")?;
    writeln!(out, "|---|---|---|")?;
    for layout in LAYOUTS.iter().chain(qp_modify::LAYOUTS) {
        writeln!(
            out,
            "| `{}` | {} | {} |",
            layout.name,
            layout.size,
            Prose { text: layout.doc, first_sentence: true }
        )?;
    }
    for layout in LAYOUTS.iter().chain(qp_modify::LAYOUTS) {
        write_layout(out, layout)?;
    }
    Ok(())
}

fn write_layout<W: Write>(out: &mut W, layout: &LayoutInfo) -> fmt::Result {
    writeln!(out)?;
    writeln!(out, "### `{}`", layout.name)?;
    writeln!(out)?;
    writeln!(out, "{} bytes. {}", layout.size, Prose { text: layout.doc, first_sentence: false })?;
    writeln!(out)?;
    writeln!(out, "| byte | bits | field | type | meaning |")?;
    writeln!(out, "|---|---|---|---|---|")?;
    for f in layout.fields {
        writeln!(
            out,
            "| {} | {} | `{}` | {} | {} |",
            f.byte,
            LayoutBits(f),
            f.name,
            TypeText(f),
            Prose { text: f.doc, first_sentence: false }
        )?;
    }
    Ok(())
}

fn write_codes<W: Write>(out: &mut W) -> fmt::Result {
    writeln!(out)?;
    writeln!(out, "## Codes")?;
    for code in CODES.iter().chain(qp_modify::CODES) {
        write_code(out, code)?;
    }
    Ok(())
}

fn write_code<W: Write>(out: &mut W, code: &CodeInfo) -> fmt::Result {
    writeln!(out)?;
    write_code_body(out, code)
}

/// A doc comment as one line of Markdown: words joined by single spaces,
/// `|` escaped for tables; optionally only up to the end of the first
/// sentence.
struct Prose {
    text: &'static str,
    first_sentence: bool,
}

impl fmt::Display for Prose {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, word) in self.text.split_whitespace().enumerate() {
            if i > 0 {
                f.write_char(' ')?;
            }
            for (j, part) in word.split('|').enumerate() {
                if j > 0 {
                    f.write_str("\\|")?;
                }
                f.write_str(part)?;
            }
            if self.first_sentence && word.ends_with('.') {
                break;
            }
        }
        Ok(())
    }
}

/// A register's reset value at its width, or `build`.
struct ResetText<'a>(&'a RegInfo);

impl fmt::Display for ResetText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.reset {
            Reset::Value(v) => write!(f, "`0x{:0w$X}`", v, w = self.0.bits as usize / 4),
            Reset::Build => f.write_str("build"),
        }
    }
}

/// `msb:lsb`, or the bit alone for a one-bit field.
struct BitRange {
    lsb: u32,
    width: u32,
}

impl fmt::Display for BitRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.width == 1 {
            write!(f, "{}", self.lsb)
        } else {
            write!(f, "{}:{}", self.lsb + self.width - 1, self.lsb)
        }
    }
}

/// The bits of a layout field counted from bit 0 of its byte; empty for a
/// byte string.
struct LayoutBits<'a>(&'a LayoutFieldInfo);

impl fmt::Display for LayoutBits<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.kind {
            FieldKind::Bytes => Ok(()),
            _ => BitRange { lsb: self.0.bit, width: self.0.width }.fmt(f),
        }
    }
}

/// The type column: the Rust type, or `bytes[n]`.
struct TypeText<'a>(&'a LayoutFieldInfo);

impl fmt::Display for TypeText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.kind {
            FieldKind::Bytes => write!(f, "bytes[{}]", self.0.width / 8),
            _ => write!(f, "`{}`", self.0.type_name),
        }
    }
}

/// The generated part of `docs/qp.md`: the transition table, the attribute
/// bits with where each goes, the status codes, the admission rules and the
/// drop reasons, all from [`crate::qp_modify`]. A test compares it with the
/// text between the markers in that file.
pub fn write_qp_tables<W: Write>(out: &mut W) -> fmt::Result {
    use crate::codes::QpState;
    use qp_modify::{
        allowed, required, source, transition, type_index, QpAttr, DEVICE_UNSUPPORTED, PKEY_TABLE, RESET_CLEARS,
        STORES, TYPES,
    };

    writeln!(out, "### Transitions")?;
    writeln!(out)?;
    writeln!(
        out,
        "Allowed transitions and the attributes each requires (req) and accepts (opt) per QP type, besides \
         `STATE`: the kernel's `qp_state_table`. Attributes in *italics* are in the kernel's table but refused \
         by this device (UnsupportedAttribute)."
    )?;
    writeln!(out)?;
    write!(out, "| from | to |")?;
    for ty in TYPES {
        write!(out, " {} req | {} opt |", Upper(ty.name()), Upper(ty.name()))?;
    }
    writeln!(out)?;
    writeln!(out, "|---|---|---|---|---|---|---|---|")?;
    for cur in QpState::ALL {
        for next in QpState::ALL {
            let tr = transition(*cur, *next);
            if !tr.valid {
                continue;
            }
            write!(out, "| {} | {} |", StateName(*cur), StateName(*next))?;
            for ty in TYPES {
                let req = required(*cur, *next, ty);
                let opt = tr.opt[type_index(ty)];
                debug_assert_eq!(allowed(*cur, *next, ty), (req | opt | QpAttr::State.mask()) & !DEVICE_UNSUPPORTED);
                write!(out, " {} | {} |", AttrList(req), AttrList(opt))?;
            }
            writeln!(out)?;
        }
    }
    writeln!(out)?;
    writeln!(out, "### Attributes")?;
    writeln!(out)?;
    writeln!(
        out,
        "Mask bit (`IBV_QP_*`, as libibverbs), the `modify_qp` mailbox field holding the value, and the `qpc` \
         field it is stored in."
    )?;
    writeln!(out)?;
    writeln!(out, "| bit | attribute | mailbox field | stored in |")?;
    writeln!(out, "|---|---|---|---|")?;
    for a in QpAttr::ALL {
        let src = source(*a).map_or("", |f| f.name);
        write!(out, "| {} | `{}` | ", *a as u8, AttrName(*a))?;
        if !src.is_empty() {
            write!(out, "`{src}`")?;
        }
        write!(out, " | ")?;
        let mut first = true;
        for s in STORES.iter().filter(|s| s.attr == *a) {
            write!(out, "{}`{}`", if first { "" } else { ", " }, s.field.name)?;
            first = false;
        }
        match a {
            QpAttr::State => write!(out, "`STATE`")?,
            QpAttr::PkeyIndex => write!(out, "`PKEY` (table entry: 0x{:04X})", PKEY_TABLE[0])?,
            _ if first => write!(out, "not stored")?,
            _ => {}
        }
        writeln!(out, " |")?;
    }
    writeln!(out)?;
    write!(out, "A move to RESET also clears")?;
    for (i, f) in RESET_CLEARS.iter().enumerate() {
        write!(out, "{} `{}`", if i == 0 { "" } else { "," }, f.name)?;
    }
    writeln!(out, ".")?;
    writeln!(out)?;
    writeln!(out, "### Admission of received packets")?;
    writeln!(out)?;
    writeln!(
        out,
        "After the QPN (`BadQpn`), the context (`BadContext`) and the opcode's transport against the QP's type \
         (`WrongQpType`): by state, for requests (to the responder) and responses (RDMA READ responses, ACKs, \
         atomic ACKs, to the requester)."
    )?;
    writeln!(out)?;
    writeln!(out, "| state | request | response |")?;
    writeln!(out, "|---|---|---|")?;
    for s in QpState::ALL {
        writeln!(
            out,
            "| {} | {} | {} |",
            StateName(*s),
            qp_modify::state_admits(*s, false).name(),
            qp_modify::state_admits(*s, true).name()
        )?;
    }
    writeln!(out)?;
    writeln!(
        out,
        "Beside the state (`record_admits`): a request for a QP whose completer is in error (`qps.COMP_ERROR`) \
         is dropped as `{}`; a response made on chip (a retransmit timer's expiry, a send WQE refused or \
         flushed) is admitted in ERR, so the completer flushes what is outstanding after a modify to ERR, and in RTR, \
         so a QP whose responder failed before it sent anything goes to error as well; a \
         request made on chip (an RQ flush) is admitted only for a QP in error (ERR, or its completer in \
         error), elsewhere dropped as the state's reason or `{}`, so the responder completes the posted \
         RECVs with WR_FLUSH_ERR only once the QP is in error.",
        qp_modify::AdmitReason::QpError.name(),
        qp_modify::AdmitReason::QpNotReady.name()
    )?;
    for code in qp_modify::CODES {
        write_code(out, code)?;
    }
    Ok(())
}

/// ASCII text in capitals.
struct Upper(&'static str);

impl fmt::Display for Upper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.chars().try_for_each(|c| f.write_char(c.to_ascii_uppercase()))
    }
}

fn write_code_body<W: Write>(out: &mut W, code: &CodeInfo) -> fmt::Result {
    writeln!(out, "### `{}`", code.name)?;
    writeln!(out)?;
    writeln!(out, "{}", Prose { text: code.doc, first_sentence: false })?;
    writeln!(out)?;
    writeln!(out, "| value | name | meaning |")?;
    writeln!(out, "|---|---|---|")?;
    for v in code.values {
        writeln!(out, "| {} | `{}` | {} |", v.value, v.name, Prose { text: v.doc, first_sentence: false })?;
    }
    Ok(())
}

/// A state as verbs abbreviates it (`IBV_QPS_RTR` -> RTR), from its doc.
struct StateName(crate::codes::QpState);

impl fmt::Display for StateName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let doc = crate::codes::QpState::INFO.values[self.0 as usize].doc;
        let name = doc.split('`').nth(1).and_then(|s| s.strip_prefix("IBV_QPS_")).unwrap_or(self.0.name());
        f.write_str(name)
    }
}

/// An attribute as verbs spells its flag without the prefix (`PATH_MTU`).
struct AttrName(qp_modify::QpAttr);

impl fmt::Display for AttrName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.0.name().chars().enumerate() {
            if c.is_ascii_uppercase() && i > 0 {
                f.write_char('_')?;
            }
            f.write_char(c.to_ascii_uppercase())?;
        }
        Ok(())
    }
}

/// The attributes of a mask, lowest bit first; device-refused ones in italics.
struct AttrList(u32);

impl fmt::Display for AttrList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for a in qp_modify::QpAttr::ALL {
            if self.0 & a.mask() == 0 {
                continue;
            }
            if !first {
                f.write_str(", ")?;
            }
            first = false;
            if qp_modify::DEVICE_UNSUPPORTED & a.mask() != 0 {
                write!(f, "*{}*", AttrName(*a))?;
            } else {
                write!(f, "{}", AttrName(*a))?;
            }
        }
        if first {
            f.write_str("-")?;
        }
        Ok(())
    }
}
