#!/bin/bash
# /init of the interop guest (tools/interop/image.sh packs it): Linux with
# rdma_rxe on eth0, the link to the simulated NIC, and eth1, QEMU's user
# network to the host for the tools' TCP exchange. Runs /host/run.sh from
# the host's 9p share, leaves its exit code in /host/rc and powers off.
# Kernel command line: rnic.ip=A.B.C.D/N rnic.peer=A.B.C.D rnic.peer_mac=M
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mkdir -p /dev/pts /dev/shm /host
mount -t devpts devpts /dev/pts
mount -t tmpfs tmp /tmp
mount -t tmpfs run /run
IP=10.99.0.1/24 PEER=10.99.0.2 PEER_MAC=
for x in $(cat /proc/cmdline); do
    case $x in
    rnic.ip=*) IP=${x#rnic.ip=} ;;
    rnic.peer=*) PEER=${x#rnic.peer=} ;;
    rnic.peer_mac=*) PEER_MAC=${x#rnic.peer_mac=} ;;
    esac
done
export IP PEER PEER_MAC
hostname guest
for m in virtio_pci virtio_net crc32_generic rdma_rxe ib_uverbs 9pnet_virtio 9p; do
    modprobe $m || echo "guest: modprobe $m failed"
done
ip link set lo up
ip link set eth0 up
ip addr add "$IP" dev eth0
# the simulated NIC answers no ARP: its MAC is given
[ -n "$PEER_MAC" ] && ip neigh replace "$PEER" lladdr "$PEER_MAC" dev eth0 nud permanent
ip link set eth1 up
ip addr add 10.0.2.15/24 dev eth1
rdma link add rxe0 type rxe netdev eth0
mount -t 9p -o trans=virtio,version=9p2000.L host /host || echo "guest: no host share"
# IPv6 duplicate address detection ends before the GID table is complete
for _ in $(seq 50); do ip -6 addr show dev eth0 | grep -q tentative || break; sleep 0.1; done
echo "GUEST-READY uptime $(cut -d' ' -f1 /proc/uptime)"
rc=127
if [ -x /host/run.sh ]; then
    /host/run.sh
    rc=$?
fi
echo $rc >/host/rc
echo "GUEST-DONE rc=$rc uptime $(cut -d' ' -f1 /proc/uptime)"
sync
echo o >/proc/sysrq-trigger
sleep 10
