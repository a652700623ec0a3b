//! `PathHdr`: a QP's path (the QP context's `PATH`, laid out as a contract
//! `layouts::ah` entry) as the path fields of a transmit header
//! (`wire::TX_HDR_FIELDS`). Shared by every block that heads packets to a
//! QP's peer: the requester's packet generator (`ReqGen`), the ACK
//! generator (`AckGen`), later the responder's READ responses.
//!
//! Combinational, no state: byte reordering (addresses are byte strings in
//! wire order in the entry, numbers with the first wire byte most
//! significant in the header), one 96-bit compare and the gating below.
//!
//! | header field | from the `ah` entry |
//! |---|---|
//! | `eth_dst`, `eth_src` | DEST_MAC, SRC_MAC |
//! | `vlan` | VLAN |
//! | `vlan_tci` | VLAN_PCP << 13 \| VLAN_ID (DEI 0); 0 without VLAN |
//! | `v6` | DEST_IP is not IPv4-mapped (`::ffff:a.b.c.d`) |
//! | `dscp`, `ecn` | TRAFFIC_CLASS bits 7..2 and 1..0 |
//! | `ttl` | HOP_LIMIT (IPv4 TTL or IPv6 hop limit) |
//! | `flow_label` | FLOW_LABEL with IPv6; 0 with IPv4 |
//! | `ip_dst`, `ip_src` | DEST_IP, SRC_IP; with IPv4 their last 4 bytes in the low 32 bits, the rest 0 |
//!
//! The UDP source port is not a header field: `TxBuild` derives it from
//! `src_qp`.

use crate::consts::{
    AH_DEST_IP, AH_DEST_MAC, AH_FLOW_LABEL, AH_HOP_LIMIT, AH_SRC_IP, AH_SRC_MAC, AH_TRAFFIC_CLASS, AH_VLAN, AH_VLAN_ID,
    AH_VLAN_PCP,
};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// Bits of a path (`layouts::ah`, the QP context's PATH).
pub const PATH_BITS: usize = rnic_contract::layouts::ah::SIZE * 8;
const _: () = assert!(PATH_BITS == 512);

#[derive(LogicBlock)]
pub struct PathHdr {
    pub path: Signal<In, Bits<PATH_BITS>>,
    pub eth_dst: Signal<Out, Bits<48>>,
    pub eth_src: Signal<Out, Bits<48>>,
    pub vlan: Signal<Out, Bit>,
    pub vlan_tci: Signal<Out, Bits<16>>,
    pub v6: Signal<Out, Bit>,
    pub dscp: Signal<Out, Bits<6>>,
    pub ecn: Signal<Out, Bits<2>>,
    pub ttl: Signal<Out, Bits<8>>,
    pub flow_label: Signal<Out, Bits<20>>,
    pub ip_src: Signal<Out, Bits<128>>,
    pub ip_dst: Signal<Out, Bits<128>>,
    /// The first 12 bytes of an IPv4-mapped address (`::ffff:`), bytes in
    /// entry order (byte 0 in bits 7..0).
    v4_prefix: Constant<Bits<96>>,
    dst_mac: Signal<Local, Bits<48>>,
    src_mac: Signal<Local, Bits<48>>,
    dst_ip: Signal<Local, Bits<128>>,
    src_ip: Signal<Local, Bits<128>>,
    tc: Signal<Local, Bits<8>>,
    is6: Signal<Local, Bit>,
    kind: TypeTag<Self>,
}

impl Default for PathHdr {
    fn default() -> Self {
        let mut prefix = Bits::<96>::default();
        for i in 80..96 {
            prefix = prefix.replace_bit(i, true);
        }
        Self {
            path: Default::default(),
            eth_dst: Default::default(),
            eth_src: Default::default(),
            vlan: Default::default(),
            vlan_tci: Default::default(),
            v6: Default::default(),
            dscp: Default::default(),
            ecn: Default::default(),
            ttl: Default::default(),
            flow_label: Default::default(),
            ip_src: Default::default(),
            ip_dst: Default::default(),
            v4_prefix: Constant::new(prefix),
            dst_mac: Default::default(),
            src_mac: Default::default(),
            dst_ip: Default::default(),
            src_ip: Default::default(),
            tc: Default::default(),
            is6: Default::default(),
            kind: Default::default(),
        }
    }
}

impl Logic for PathHdr {
    #[hdl_gen]
    fn update(&mut self) {
        // wire order: the entry's first byte is the number's most significant
        self.dst_mac.next = (bit_cast::<48, 8>(self.path.val().get_bits::<8>(AH_DEST_MAC)) << 40)
            | (bit_cast::<48, 8>(self.path.val().get_bits::<8>(AH_DEST_MAC + 8)) << 32)
            | (bit_cast::<48, 8>(self.path.val().get_bits::<8>(AH_DEST_MAC + 16)) << 24)
            | (bit_cast::<48, 8>(self.path.val().get_bits::<8>(AH_DEST_MAC + 24)) << 16)
            | (bit_cast::<48, 8>(self.path.val().get_bits::<8>(AH_DEST_MAC + 32)) << 8)
            | bit_cast::<48, 8>(self.path.val().get_bits::<8>(AH_DEST_MAC + 40));
        self.src_mac.next = (bit_cast::<48, 8>(self.path.val().get_bits::<8>(AH_SRC_MAC)) << 40)
            | (bit_cast::<48, 8>(self.path.val().get_bits::<8>(AH_SRC_MAC + 8)) << 32)
            | (bit_cast::<48, 8>(self.path.val().get_bits::<8>(AH_SRC_MAC + 16)) << 24)
            | (bit_cast::<48, 8>(self.path.val().get_bits::<8>(AH_SRC_MAC + 24)) << 16)
            | (bit_cast::<48, 8>(self.path.val().get_bits::<8>(AH_SRC_MAC + 32)) << 8)
            | bit_cast::<48, 8>(self.path.val().get_bits::<8>(AH_SRC_MAC + 40));
        self.dst_ip.next = (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_DEST_IP)) << 120)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_DEST_IP + 8)) << 112)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_DEST_IP + 16)) << 104)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_DEST_IP + 24)) << 96)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_DEST_IP + 32)) << 88)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_DEST_IP + 40)) << 80)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_DEST_IP + 48)) << 72)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_DEST_IP + 56)) << 64)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_DEST_IP + 64)) << 56)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_DEST_IP + 72)) << 48)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_DEST_IP + 80)) << 40)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_DEST_IP + 88)) << 32)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_DEST_IP + 96)) << 24)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_DEST_IP + 104)) << 16)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_DEST_IP + 112)) << 8)
            | bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_DEST_IP + 120));
        self.src_ip.next = (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_SRC_IP)) << 120)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_SRC_IP + 8)) << 112)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_SRC_IP + 16)) << 104)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_SRC_IP + 24)) << 96)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_SRC_IP + 32)) << 88)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_SRC_IP + 40)) << 80)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_SRC_IP + 48)) << 72)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_SRC_IP + 56)) << 64)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_SRC_IP + 64)) << 56)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_SRC_IP + 72)) << 48)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_SRC_IP + 80)) << 40)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_SRC_IP + 88)) << 32)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_SRC_IP + 96)) << 24)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_SRC_IP + 104)) << 16)
            | (bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_SRC_IP + 112)) << 8)
            | bit_cast::<128, 8>(self.path.val().get_bits::<8>(AH_SRC_IP + 120));
        self.is6.next = self.path.val().get_bits::<96>(AH_DEST_IP) != self.v4_prefix.val();
        self.v6.next = self.is6.val();
        self.eth_dst.next = self.dst_mac.val();
        self.eth_src.next = self.src_mac.val();
        self.vlan.next = self.path.val().get_bit(AH_VLAN);
        self.vlan_tci.next = 0.into();
        if self.path.val().get_bit(AH_VLAN) {
            self.vlan_tci.next = (bit_cast::<16, 3>(self.path.val().get_bits::<3>(AH_VLAN_PCP)) << 13)
                | bit_cast::<16, 12>(self.path.val().get_bits::<12>(AH_VLAN_ID));
        }
        self.tc.next = self.path.val().get_bits::<8>(AH_TRAFFIC_CLASS);
        self.dscp.next = self.tc.val().get_bits::<6>(2);
        self.ecn.next = self.tc.val().get_bits::<2>(0);
        self.ttl.next = self.path.val().get_bits::<8>(AH_HOP_LIMIT);
        self.flow_label.next = 0.into();
        self.ip_dst.next = bit_cast::<128, 32>(self.dst_ip.val().get_bits::<32>(0));
        self.ip_src.next = bit_cast::<128, 32>(self.src_ip.val().get_bits::<32>(0));
        if self.is6.val() {
            self.flow_label.next = self.path.val().get_bits::<20>(AH_FLOW_LABEL);
            self.ip_dst.next = self.dst_ip.val();
            self.ip_src.next = self.src_ip.val();
        }
    }
}
