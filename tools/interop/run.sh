#!/usr/bin/env bash
# The interop run (issue 14): the Verilated NIC, driven by rnic-perf,
# rnic-verify or rnic-pingpong through the driver, against Linux rxe in one
# QEMU guest, case after case (tools/interop/cases.txt, or the file given).
# The wire: the NIC's Unix datagram socket and QEMU's `-netdev dgram`, a
# frame per datagram; the tools' TCP exchange: QEMU's user network (the
# guest 10.0.2.15, the host 10.0.2.2). Each case's files land in
# build/interop/run/: NAME.ours.txt (our tool's output), NAME.guest.txt (the
# guest tool's), and the run's wire.pcap (QEMU's filter-dump of the guest's
# RoCE link), cases.tsv (each case's start and end, epoch seconds:
# tools/interop/check.sh splits the capture by them) and guest.log.
#   run.sh [CASES] [NAME_FILTER]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cases=${1:-$here/cases.txt}
filter=${2:-}
guest=$("$here/image.sh" | tail -1)
run=$root/build/interop/run
rm -rf "$run"
mkdir -p "$run/share"
bins=${RNIC_BIN_DIR:-$root/target/debug}
for b in rnic-perf rnic-verify rnic-pingpong; do
    [ -x "$bins/$b" ] || { echo "interop: no $bins/$b (cargo build -p rnic-perf --bins)" >&2; exit 1; }
done
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# fwd: QEMU forwards it to the guest's tool (ours the client); port: where
# rnic-perf listens (ours the server), the guest reaching it at 10.0.2.2
fwd=$(free_port)
port=$(free_port)
while [ "$port" = "$fwd" ]; do port=$(free_port); done
GUEST_MAC=52:54:00:00:00:01 NIC_MAC=02:00:00:00:00:02 GUEST_IP=10.99.0.1 NIC_IP=10.99.0.2
# for check.sh: who is who on the wire
printf 'GUEST_MAC=%s\nNIC_MAC=%s\nGUEST_IP=%s\nNIC_IP=%s\n' $GUEST_MAC $NIC_MAC $GUEST_IP $NIC_IP >"$run/addresses.env"
case_timeout=${INTEROP_CASE_TIMEOUT:-180}

trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; echo "${s%"${s##*[![:space:]]}"}"; }
names=() ours=() guest_cmds=() our_args=()
while IFS='|' read -r n o g a; do
    n=$(trim "$n")
    { [ -z "$n" ] || [ "${n:0:1}" = "#" ]; } && continue
    [ -n "$filter" ] && [[ $n != *$filter* ]] && continue
    names+=("$n") ours+=("$(trim "$o")") guest_cmds+=("$(trim "$g")") our_args+=("$(trim "$a")")
done <"$cases"
[ ${#names[@]} -gt 0 ] || { echo "interop: no case matches '$filter'" >&2; exit 1; }

# The guest's side of every case, in order, handshaking through the share:
# listening.N (its server is up) or go.N (ours is), then done.N (its exit).
{
    echo '#!/bin/bash'
    echo 'cd /host'
    for i in "${!names[@]}"; do
        n=${names[$i]}
        if [ "${ours[$i]}" = client ]; then
            echo "${guest_cmds[$i]} -p 18515 > $n.guest.txt 2>&1 &"
            echo 'tool=$!'
            echo 'for _ in $(seq 600); do ss -ltn | grep -q ":18515 " && break; sleep 0.1; done'
            echo "touch listening.$i"
            echo "wait \$tool; echo \$? > done.tmp; mv done.tmp done.$i"
        else
            echo "while [ ! -e go.$i ]; do sleep 0.1; done"
            # rnic-perf listens once its NIC is up: try again while refused
            echo "for _ in \$(seq 100); do"
            echo "    ${guest_cmds[$i]} -p $port 10.0.2.2 > $n.guest.txt 2>&1; rc=\$?"
            echo "    grep -q \"Couldn't connect to\\|cannot connect to\" $n.guest.txt || break; sleep 0.5"
            echo "done"
            echo "echo \$rc > done.tmp; mv done.tmp done.$i"
        fi
    done
    echo 'grep -H . /sys/class/infiniband/rxe0/ports/1/hw_counters/* | sed "s|.*/||" > rxe_counters.txt'
    echo 'exit 0'
} >"$run/share/run.sh"
chmod +x "$run/share/run.sh"

# TCG: KVM inside a VM (this project's CI machines) can hang at boot;
# INTEROP_ACCEL=kvm where it works
timeout $((case_timeout * (${#names[@]} + 1))) qemu-system-x86_64 -accel "${INTEROP_ACCEL:-tcg}" -cpu max -m 1024 -smp 1 \
    -nographic -no-reboot -kernel "$guest/vmlinuz" -initrd "$guest/initrd.img" \
    -append "console=ttyS0 quiet panic=-1 rnic.ip=$GUEST_IP/24 rnic.peer=$NIC_IP rnic.peer_mac=$NIC_MAC" \
    -netdev dgram,id=roce,local.type=unix,local.path="$run/vm.sock",remote.type=unix,remote.path="$run/nic.sock" \
    -device virtio-net-pci,netdev=roce,mac=$GUEST_MAC \
    -object filter-dump,id=dump,netdev=roce,file="$run/wire.pcap" \
    -netdev user,id=oob,hostfwd=tcp:127.0.0.1:$fwd-10.0.2.15:18515 \
    -device virtio-net-pci,netdev=oob,mac=52:54:00:00:01:01 \
    -virtfs local,path="$run/share",mount_tag=host,security_model=none \
    >"$run/guest.log" 2>&1 &
qemu=$!
trap 'kill $qemu 2>/dev/null || true' EXIT

wait_for() { # file what: waits for the guest to create file
    local t0=$SECONDS
    until [ -e "$1" ]; do
        kill -0 $qemu 2>/dev/null || { echo "interop: the guest stopped while $2" >&2; tail -30 "$run/guest.log" >&2; return 1; }
        [ $((SECONDS - t0)) -lt "$case_timeout" ] || { echo "interop: timeout while $2" >&2; return 1; }
        sleep 0.1
    done
}

fails=0
wire="$run/nic.sock,$run/vm.sock,$NIC_IP,$NIC_MAC"
for i in "${!names[@]}"; do
    n=${names[$i]}
    t0=$SECONDS
    from=$(date +%s.%N)
    rc=0
    # shellcheck disable=SC2206
    args=(${our_args[$i]} -d sim --sim_wire "$wire" -E $GUEST_MAC)
    perf=$bins/${args[0]}
    args=("${args[@]:1}")
    if [ "${ours[$i]}" = client ]; then
        wait_for "$run/share/listening.$i" "case $n waited for the guest's server" || exit 1
        timeout "$case_timeout" "$perf" "${args[@]}" -p "$fwd" 127.0.0.1 >"$run/$n.ours.txt" 2>"$run/$n.ours.err" || rc=$?
    else
        timeout "$case_timeout" "$perf" "${args[@]}" -p "$port" >"$run/$n.ours.txt" 2>"$run/$n.ours.err" &
        p=$!
        for _ in $(seq 600); do ss -ltn | grep -q ":$port " && break; sleep 0.1; done
        touch "$run/share/go.$i"
        wait $p || rc=$?
    fi
    wait_for "$run/share/done.$i" "case $n waited for the guest's tool" || exit 1
    grc=$(cat "$run/share/done.$i")
    printf '%s\t%s\t%s\n' "$n" "$from" "$(date +%s.%N)" >>"$run/cases.tsv"
    mv "$run/share/$n.guest.txt" "$run/$n.guest.txt"
    echo "interop $n: ours exit $rc, the guest's tool exit $grc, $((SECONDS - t0)) s"
    if [ "$rc" != 0 ] || [ "$grc" != 0 ]; then
        fails=$((fails + 1))
        echo "--- ours:"; cat "$run/$n.ours.txt" "$run/$n.ours.err"
        echo "--- the guest's tool:"; cat "$run/$n.guest.txt"
    fi
done
wait $qemu || true
trap - EXIT
echo "interop: ${#names[@]} cases, $fails failed; rxe's counters:"
grep -v ':0$' "$run/share/rxe_counters.txt" 2>/dev/null | sed 's/^/  /' || true
[ $fails = 0 ]
