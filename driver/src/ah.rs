//! Address handles (`ibv_create_ah`) and the address vector RC and UC QPs
//! carry in their context (`ibv_ah_attr` in `ibv_modify_qp` with `AV`).
//!
//! Both are laid out as the contract's `ah` entry: destination and source IP
//! (the source from the GID table), MACs, VLAN, traffic class, hop limit and
//! flow label. The driver does not resolve MACs: the caller gives the next
//! hop's, as rdma_cm would after ARP.

use crate::device::{Gid, Shared};
use crate::error::{Error, Result};
use crate::pd::{PdInner, ProtectionDomain};
use rnic_contract::codes::{ContextOp, ContextTable};
use rnic_contract::layouts::ah;
use rnic_contract::regs::id_features;
use std::fmt;
use std::rc::Rc;

/// An 802.1Q tag.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Vlan {
    /// VLAN identifier (12 bits).
    pub id: u16,
    /// Priority (3 bits).
    pub pcp: u8,
}

/// Where packets go (`ibv_ah_attr` with its `ibv_global_route`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AhAttr {
    /// Destination GID: IPv6, or IPv4 as `::ffff:a.b.c.d`.
    pub dest_gid: Gid,
    /// Index of the source GID in the port's table.
    pub sgid_index: u32,
    /// The next hop's MAC.
    pub dest_mac: [u8; 6],
    /// An 802.1Q tag, if any.
    pub vlan: Option<Vlan>,
    /// Traffic class (DSCP and ECN).
    pub traffic_class: u8,
    /// Hop limit / TTL.
    pub hop_limit: u8,
    /// IPv6 flow label (20 bits).
    pub flow_label: u32,
}

impl AhAttr {
    /// To `dest_gid` at `dest_mac` from GID 0, TTL 64, no VLAN.
    pub fn new(dest_gid: Gid, dest_mac: [u8; 6]) -> AhAttr {
        AhAttr { dest_gid, sgid_index: 0, dest_mac, vlan: None, traffic_class: 0, hop_limit: 64, flow_label: 0 }
    }
}

fn is_ipv4_mapped(g: &Gid) -> bool {
    g[..10].iter().all(|b| *b == 0) && g[10] == 0xff && g[11] == 0xff
}

/// The `ah` entry for `attr` on this context.
pub(crate) fn encode(ctx: &Shared, attr: &AhAttr) -> Result<[u8; ah::SIZE]> {
    let src = ctx.gid(attr.sgid_index)?;
    if (!is_ipv4_mapped(&attr.dest_gid) || !is_ipv4_mapped(&src)) && !ctx.attr.has(id_features::IPV6) {
        return Err(Error::Unsupported { feature: "IPV6" });
    }
    if is_ipv4_mapped(&attr.dest_gid) != is_ipv4_mapped(&src) {
        return Err(Error::BadAttribute {
            attr: "sgid_index",
            value: attr.sgid_index.into(),
            reason: "source and destination GIDs of different IP versions",
        });
    }
    let mut e = [0u8; ah::SIZE];
    ah::DEST_IP.set_bytes(&mut e, &attr.dest_gid)?;
    ah::SRC_IP.set_bytes(&mut e, &src)?;
    ah::DEST_MAC.set_bytes(&mut e, &attr.dest_mac)?;
    ah::SRC_MAC.set_bytes(&mut e, &ctx.attr.mac)?;
    if let Some(v) = attr.vlan {
        if !ctx.attr.has(id_features::VLAN) {
            return Err(Error::Unsupported { feature: "VLAN" });
        }
        ah::VLAN.set(&mut e, true)?;
        ah::VLAN_ID.set(&mut e, v.id).map_err(|_| Error::BadAttribute {
            attr: "vlan.id",
            value: v.id.into(),
            reason: "above 4095",
        })?;
        ah::VLAN_PCP.set(&mut e, v.pcp).map_err(|_| Error::BadAttribute {
            attr: "vlan.pcp",
            value: v.pcp.into(),
            reason: "above 7",
        })?;
    }
    ah::TRAFFIC_CLASS.set(&mut e, attr.traffic_class)?;
    ah::HOP_LIMIT.set(&mut e, attr.hop_limit)?;
    ah::FLOW_LABEL.set(&mut e, attr.flow_label).map_err(|_| Error::BadAttribute {
        attr: "flow_label",
        value: attr.flow_label.into(),
        reason: "above 2^20",
    })?;
    Ok(e)
}

/// An address handle for UD sends: an entry of the device's AH table.
///
/// ```
/// use rnic_driver::{hw::fake::{FakeConfig, FakeHw}, ipv4_gid, AhAttr, Device};
///
/// let ctx = Device::from_hw(FakeHw::new(FakeConfig::default())).open()?;
/// ctx.set_gid(1, ipv4_gid([10, 0, 0, 1]))?;
/// let pd = ctx.alloc_pd()?;
/// let mut attr = AhAttr::new(ipv4_gid([10, 0, 0, 2]), [2, 0, 0, 0, 0, 2]);
/// attr.sgid_index = 1;
/// let ah = pd.create_ah(&attr)?;
/// assert_eq!(ah.attr(), attr);
/// // GID 0 is link-local IPv6: not a source for an IPv4 destination.
/// attr.sgid_index = 0;
/// assert!(pd.create_ah(&attr).is_err());
/// # Ok::<(), rnic_driver::Error>(())
/// ```
pub struct AddressHandle {
    pd: Rc<PdInner>,
    index: u32,
    attr: AhAttr,
}

impl fmt::Debug for AddressHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AddressHandle").field("index", &self.index).field("attr", &self.attr).finish()
    }
}

impl ProtectionDomain {
    /// Creates an address handle.
    pub fn create_ah(&self, attr: &AhAttr) -> Result<AddressHandle> {
        let ctx = &self.inner.ctx;
        let entry = encode(ctx, attr)?;
        let index = ctx.alloc.borrow_mut().ah.take()?;
        if let Err(e) = ctx.write_entry(&ctx.tables.ah, index, &entry) {
            ctx.alloc.borrow_mut().ah.give(index);
            return Err(e);
        }
        Ok(AddressHandle { pd: self.inner.clone(), index, attr: *attr })
    }
}

impl AddressHandle {
    /// The AH table entry UD WQEs name.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// What it was created with.
    pub fn attr(&self) -> AhAttr {
        self.attr
    }

    pub(crate) fn pdn(&self) -> u32 {
        self.pd.pdn
    }
}

impl Drop for AddressHandle {
    fn drop(&mut self) {
        let ctx = &self.pd.ctx;
        // The device reads AH entries on demand and caches them only with UD.
        if ctx.attr.has(id_features::UD) {
            if let Err(e) = ctx.ctx_cmd(ContextOp::Invalidate, ContextTable::Ah, self.index) {
                ctx.teardown_failed(e);
                return;
            }
        }
        if let Ok(mut a) = ctx.alloc.try_borrow_mut() {
            a.ah.give(self.index);
        }
    }
}
