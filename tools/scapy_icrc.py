#!/usr/bin/env python3
"""Check every RoCEv2 frame of a pcap with scapy's own ICRC (scapy.contrib.roce).

Prints one line per disagreement and a summary; exits 1 if any frame's ICRC
differs from scapy's or a frame is not RoCEv2.
"""
import pathlib
import sys

import scapy
from scapy.all import rdpcap, UDP  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402


def pinned_scapy():
    """SCAPY_VERSION from tools/versions.env (where tools/deps.sh takes it)."""
    env = pathlib.Path(__file__).with_name("versions.env").read_text()
    for line in env.splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "SCAPY_VERSION":
            return value.strip()
    raise SystemExit("tools/versions.env has no SCAPY_VERSION")


def main(path):
    want = pinned_scapy()
    if scapy.VERSION != want:
        print(f"scapy is {scapy.VERSION} but the tests assert scapy {want}'s ICRC (tools/versions.env); run `make deps`")
        return 2
    frames = rdpcap(path)
    bad = 0
    for n, pkt in enumerate(frames, 1):
        if BTH not in pkt or UDP not in pkt:
            print(f"frame {n}: not RoCEv2 to scapy")
            bad += 1
            continue
        carried = bytes(pkt)[-4:]
        computed = pkt[BTH].compute_icrc(b"")
        if carried != computed:
            print(f"frame {n}: ICRC {carried.hex()} but scapy computes {computed.hex()}")
            bad += 1
    print(f"scapy: {len(frames)} frames, {len(frames) - bad} ICRCs agree, {bad} disagree")
    return 1 if bad or not frames else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
