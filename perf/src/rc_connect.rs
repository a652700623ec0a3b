//! Bringing an RC QP from RESET to RTS against a peer whose endpoint came
//! over the out-of-band exchange: the one sequence `rnic-perf`,
//! `rnic-verify` and `rnic-pingpong` share, with the values perftest's
//! `ctx_modify_qp_to_rtr/rts` and rc_pingpong's `pp_connect_ctx` use.

use crate::run::PerfError;
use rnic_contract::codes::{Mtu, QpState};
use rnic_driver::connect::QpEndpoint;
use rnic_driver::neigh::{gid_ip, NeighTable};
use rnic_driver::{AccessFlags, AhAttr, Gid, QpAttr, QueuePair};

/// `min_rnr_timer` at RTR (perftest and rc_pingpong: 12, 0.64 ms).
pub const MIN_RNR_TIMER: u8 = 12;
/// Transport and RNR retries at RTS (`DEF_RETRY_COUNT`, rc_pingpong's 7).
pub const RETRY_COUNT: u8 = 7;

/// The MAC of the peer that `gid` names: `dest_mac` (`-E`) if given, else
/// the link-local GID's own or the kernel's neighbour table's
/// ([`NeighTable`]); none is [`PerfError::NoMac`].
pub fn peer_mac(dest_mac: Option<[u8; 6]>, gid: &Gid) -> Result<[u8; 6], PerfError> {
    let no_mac = |why| PerfError::NoMac { gid: *gid, why };
    let mut table = NeighTable::new();
    if let Some(mac) = dest_mac {
        table.insert_static(gid_ip(gid), mac);
    }
    match table.resolve(gid) {
        Err(rnic_driver::neigh::NeighError::NotFound { .. }) => NeighTable::read_proc().and_then(|mut t| {
            if let Some(mac) = dest_mac {
                t.insert_static(gid_ip(gid), mac);
            }
            t.resolve(gid)
        }),
        r => r,
    }
    .map_err(no_mac)
}

/// Where and how this side's QP reaches the peer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RcPath {
    /// The port (`-i`, `--ib-port`).
    pub port: u8,
    /// The source GID's index (`-x`, `-g`).
    pub gid_index: u32,
    /// The path MTU, as agreed.
    pub mtu: Mtu,
    /// `-E`: the peer's MAC, else resolved from its GID.
    pub dest_mac: Option<[u8; 6]>,
    /// READs and atomics outstanding, both ways (`max_rd_atomic`, `max_dest_rd_atomic`).
    pub rd_atomic: u8,
    /// The local ACK timeout's exponent.
    pub timeout: u8,
}

/// RESET to INIT with the remote access `access` grants.
pub fn to_init(qp: &mut QueuePair, port: u8, access: AccessFlags) -> Result<(), PerfError> {
    qp.modify(&QpAttr::new().state(QpState::Init).pkey_index(0).port(port).access_flags(access))?;
    Ok(())
}

/// INIT to RTR to RTS: the peer's QPN and PSN, this side's `my_psn`.
pub fn to_rts(qp: &mut QueuePair, path: &RcPath, my_psn: u32, remote: &QpEndpoint) -> Result<(), PerfError> {
    let mut av = AhAttr::new(remote.gid, peer_mac(path.dest_mac, &remote.gid)?);
    av.sgid_index = path.gid_index;
    qp.modify(
        &QpAttr::new()
            .state(QpState::ReadyToReceive)
            .av(av)
            .path_mtu(path.mtu)
            .dest_qpn(remote.qpn)
            .rq_psn(remote.psn)
            .max_dest_rd_atomic(path.rd_atomic)
            .min_rnr_timer(MIN_RNR_TIMER),
    )?;
    qp.modify(
        &QpAttr::new()
            .state(QpState::ReadyToSend)
            .sq_psn(my_psn)
            .timeout(path.timeout)
            .retry_cnt(RETRY_COUNT)
            .rnr_retry(RETRY_COUNT)
            .max_rd_atomic(path.rd_atomic),
    )?;
    Ok(())
}
