#!/usr/bin/env bash
# The interop guest (issue 14): a Debian bookworm kernel and an initramfs
# holding rdma-core, the rxe provider, perftest, ibv_rc_pingpong and
# rnic_verify (built here from rnic_verify.c), built
# once and cached in build/interop/guest-<key> (the key hashes this script,
# guest_init.sh and the package list, so a change rebuilds it).
# Needs root (debootstrap) and the package registries; prints the guest
# directory on its last line.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
PACKAGES=rdma-core,ibverbs-providers,ibverbs-utils,perftest,iproute2,kmod
MODULES="virtio_pci virtio_net crc32_generic rdma_rxe ib_uverbs 9p 9pnet_virtio"
key=$( (cat "$here/image.sh" "$here/guest_init.sh" "$here/rnic_verify.c"; echo "$PACKAGES $MODULES") | sha256sum | cut -c1-12)
out=$root/build/interop/guest-$key
if [ -f "$out/initrd.img" ] && [ -f "$out/vmlinuz" ]; then
    echo "$out"
    exit 0
fi
sudo=
if [ "$(id -u)" != 0 ]; then
    sudo -n true 2>/dev/null || { echo "interop: building the guest needs root (debootstrap) or sudo without a password" >&2; exit 1; }
    sudo="sudo -n"
fi

need=()
for p in qemu-system-x86:qemu-system-x86_64 debootstrap:debootstrap cpio:cpio zstd:zstd gcc:gcc; do
    command -v "${p#*:}" >/dev/null || need+=("${p%%:*}")
done
# rnic_verify is built here against the host's libibverbs (bookworm's, as the guest's)
[ -f /usr/include/infiniband/verbs.h ] || need+=(libibverbs-dev)
if [ ${#need[@]} -gt 0 ]; then
    echo "interop: installing ${need[*]}" >&2
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/rnic_guest.XXXX")
trap '$sudo rm -rf "$work"' EXIT
echo "interop: building the guest in $work (a few minutes, once)" >&2
# the kernel: Debian's, taken from its package (not installed on this host)
kpkg=$(apt-cache depends linux-image-amd64 | awk '/Depends: linux-image-[0-9]/{print $2; exit}')
(cd "$work" && apt-get download -qq "$kpkg" >&2)
dpkg -x "$work"/"${kpkg}"_*.deb "$work/kernel"
# the user space
$sudo debootstrap --variant=minbase --include=$PACKAGES bookworm "$work/rootfs" "${MIRROR:-http://deb.debian.org/debian}" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; exit 1; }
st=$work/stage
mkdir -p "$st"
$sudo tar -C "$work/rootfs" --exclude=./usr/share/doc --exclude=./usr/share/man --exclude=./usr/share/locale \
    --exclude=./usr/share/info --exclude=./var/cache/apt --exclude=./var/lib/apt/lists \
    --exclude=./usr/share/i18n --exclude=./usr/share/zoneinfo -cf - . | tar -C "$st" -xf -
kver=$(ls "$work/kernel/lib/modules")
kmod=$work/rootfs/usr/bin/kmod
ln -sf "$kmod" "$work/depmod"
ln -sf "$kmod" "$work/modprobe"
"$work/depmod" -b "$work/kernel" "$kver"
mkdir -p "$st/lib/modules/$kver"
cp "$work/kernel/lib/modules/$kver"/modules.{order,builtin,builtin.modinfo} "$st/lib/modules/$kver/"
for m in $MODULES; do "$work/modprobe" -d "$work/kernel" -S "$kver" --show-depends "$m"; done |
    awk '$1=="insmod"{print $2}' | sort -u | while read -r f; do
        rel=lib/modules/${f#*/lib/modules/}
        mkdir -p "$st/$(dirname "$rel")"
        cp "$f" "$st/$rel"
    done
"$work/depmod" -b "$st" "$kver"
install -m755 "$here/guest_init.sh" "$st/init"
gcc -O2 -Wall -o "$work/rnic_verify" "$here/rnic_verify.c" -libverbs
$sudo install -D -m755 "$work/rnic_verify" "$st/usr/local/bin/rnic_verify"
mkdir -p "$out.tmp"
(cd "$st" && find . -print0 | cpio --null -o -H newc --quiet) | zstd -q -T0 -3 -o "$out.tmp/initrd.img"
cp "$work"/kernel/boot/vmlinuz-* "$out.tmp/vmlinuz"
echo "$kpkg" >"$out.tmp/kernel.txt"
rm -rf "$out"
mv "$out.tmp" "$out"
echo "interop: guest ready ($(du -sh "$out" | cut -f1), kernel $kpkg)" >&2
echo "$out"
