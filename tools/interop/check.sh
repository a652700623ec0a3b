#!/usr/bin/env bash
# Checks an interop run's capture (build/interop/run/wire.pcap, QEMU's dump
# of the guest's RoCE link), case by case (the windows in cases.tsv; each
# case's frames in NAME.pcap), with tools that are not ours: tshark decodes
# every RoCEv2 frame as InfiniBand (none malformed) and finds every frame
# between its sender's and its receiver's MAC (run.sh's addresses.env),
# scapy recomputes every ICRC (tools/scapy_icrc.py); then rnic-tb's
# gbn_check holds both ends to the go-back-N invariants of issue 12. Per
# case, not over the whole run: every tool process is a new NIC whose first
# QP is QP 2 again, and a request names only its destination QP.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
run=${1:-$root/build/interop/run}
py=$root/build/venv/bin/python
[ -x "$py" ] || py=python3
gbn=${GBN_CHECK:-$root/target/debug/gbn_check}
# shellcheck disable=SC1091
. "$run/addresses.env"
fails=0
while IFS=$'\t' read -r name from to; do
    pcap=$run/$name.pcap
    editcap -A "$from" -B "$to" "$run/wire.pcap" "$run/$name.all.pcap" >/dev/null
    tshark -r "$run/$name.all.pcap" -Y 'udp.dstport == 4791' -w "$pcap" 2>/dev/null
    rm -f "$run/$name.all.pcap"
    n=$(tshark -r "$pcap" 2>/dev/null | wc -l)
    ib=$(tshark -r "$pcap" -Y 'infiniband.bth' 2>/dev/null | wc -l)
    bad=$(tshark -r "$pcap" -Y '_ws.malformed || _ws.expert.severity >= 6' 2>/dev/null | wc -l)
    ops=$(tshark -r "$pcap" -T fields -e ip.src -e infiniband.bth.opcode 2>/dev/null | sort | uniq -c |
        awk -v guest="$GUEST_IP" '{printf "%s%s:%s x%d", (NR>1?", ":""), ($2==guest?"rxe":"ours"), $3, $1}')
    # the NIC's frames from its port_mac to the guest's, the guest's the other way
    misaddressed=$(tshark -r "$pcap" -Y "(ip.src == $NIC_IP && (eth.src != $NIC_MAC || eth.dst != $GUEST_MAC)) ||
        (ip.src == $GUEST_IP && (eth.src != $GUEST_MAC || eth.dst != $NIC_MAC))" 2>/dev/null | wc -l)
    echo "interop check $name: $n RoCEv2 frames ($ops)"
    if [ "$n" = 0 ] || [ "$ib" != "$n" ] || [ "$bad" != 0 ] || [ "$misaddressed" != 0 ]; then
        echo "  tshark: $ib of $n decoded as InfiniBand, $bad malformed, $misaddressed with a wrong MAC" >&2
        fails=$((fails + 1))
        continue
    fi
    "$py" "$root/tools/scapy_icrc.py" "$pcap" | sed 's/^/  /' || fails=$((fails + 1))
    "$gbn" "$pcap" | sed "s|^$run/||; s/^/  /" || fails=$((fails + 1))
done <"$run/cases.tsv"
[ "$fails" = 0 ] || { echo "interop check: $fails failed" >&2; exit 1; }
