//! `rnic-devinfo`: what `ibv_devinfo` prints (rdma-core
//! `libibverbs/examples/devinfo.c`, its printf formats and tabs), from the
//! driver's queries.

use rnic_contract::codes::Mtu;
use rnic_contract::regs::id_version;
use rnic_driver::{DeviceAttr, PortAttr, PortState};

/// The device has one port.
pub const PHYS_PORT_CNT: u32 = 1;

/// `ibv_mtu` in bytes.
pub fn mtu_bytes(mtu: Mtu) -> u32 {
    128 << mtu.raw()
}

/// A GUID from a MAC (EUI-64, as rxe derives its node GUID), printed
/// `xxxx:xxxx:xxxx:xxxx`.
pub fn guid_from_mac(mac: [u8; 6]) -> String {
    let g = [mac[0] ^ 2, mac[1], mac[2], 0xff, 0xfe, mac[3], mac[4], mac[5]];
    g.chunks(2).map(|c| format!("{:02x}{:02x}", c[0], c[1])).collect::<Vec<_>>().join(":")
}

/// The text `ibv_devinfo` prints for one device with one port. `fw_ver`
/// is the contract version the device implements (`major.minor`), `hw_ver`
/// its major; the active MTU is the port's largest (no netdev limits it).
/// `vendor_id` (`0x%04x`) and `vendor_part_id` (`%d`) are the PCI
/// function's Vendor and Device ID as the backend read them from config
/// space (VFIO); the simulator has no PCI function and the contract
/// declares no PCI identity, so there they print 0.
pub fn devinfo(hca_id: &str, attr: &DeviceAttr, port: &PortAttr) -> String {
    let major = id_version::MAJOR.get(attr.abi_version);
    let minor = id_version::MINOR.get(attr.abi_version);
    let guid = guid_from_mac(attr.mac);
    let (state, state_code) = match port.state {
        PortState::Down => ("PORT_DOWN", 1),
        PortState::Active => ("PORT_ACTIVE", 4),
    };
    let mtu = format!("{} ({})", mtu_bytes(port.max_mtu), port.max_mtu.raw());
    let mut s = String::new();
    s.push_str(&format!("hca_id:\t{hca_id}\n"));
    s.push_str("\ttransport:\t\t\tInfiniBand (0)\n");
    s.push_str(&format!("\tfw_ver:\t\t\t\t{major}.{minor}\n"));
    s.push_str(&format!("\tnode_guid:\t\t\t{guid}\n"));
    s.push_str(&format!("\tsys_image_guid:\t\t\t{guid}\n"));
    s.push_str(&format!("\tvendor_id:\t\t\t0x{:04x}\n", attr.vendor_id));
    s.push_str(&format!("\tvendor_part_id:\t\t\t{}\n", attr.vendor_part_id));
    s.push_str(&format!("\thw_ver:\t\t\t\t0x{major:X}\n"));
    s.push_str(&format!("\tphys_port_cnt:\t\t\t{PHYS_PORT_CNT}\n"));
    s.push_str("\t\tport:\t1\n");
    s.push_str(&format!("\t\t\tstate:\t\t\t{state} ({state_code})\n"));
    s.push_str(&format!("\t\t\tmax_mtu:\t\t{mtu}\n"));
    s.push_str(&format!("\t\t\tactive_mtu:\t\t{mtu}\n"));
    s.push_str("\t\t\tsm_lid:\t\t\t0\n");
    s.push_str("\t\t\tport_lid:\t\t0\n");
    s.push_str("\t\t\tport_lmc:\t\t0x00\n");
    s.push_str("\t\t\tlink_layer:\t\tEthernet\n\n");
    s
}
