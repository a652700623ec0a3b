#!/usr/bin/env bash
# Installs the tools the build needs, pinned, without prompts:
#   Verilator 5.006 and yosys 0.23 (Debian bookworm packages), tshark (Debian),
#   and scapy 2.6.1 in build/venv (the independent packet checkers).
# A tool found at another version stops the build with a clear message
# (set RNIC_ALLOW_OTHER_TOOLS=1 to go on anyway).
set -euo pipefail

VERILATOR_WANT="5.006"
YOSYS_WANT="0.23"
missing=()
SCAPY_WANT="2.6.1"
here=$(cd "$(dirname "$0")/.." && pwd)

python_deps() {
    local venv="$here/build/venv"
    if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import scapy, sys; sys.exit(scapy.VERSION != '$SCAPY_WANT')" 2>/dev/null; then
        return 0
    fi
    echo "deps: installing scapy $SCAPY_WANT into build/venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "scapy==$SCAPY_WANT"
}

have_version() { # cmd pattern
    command -v "$1" >/dev/null 2>&1 && "$1" --version 2>/dev/null | grep -q "$2"
}

check() { # name cmd want
    local name=$1 cmd=$2 want=$3
    if command -v "$cmd" >/dev/null 2>&1; then
        if ! have_version "$cmd" "$want"; then
            local got
            got=$("$cmd" --version 2>/dev/null | head -1)
            if [ "${RNIC_ALLOW_OTHER_TOOLS:-0}" = 1 ]; then
                echo "deps: warning: $name is '$got', the project pins $want (RNIC_ALLOW_OTHER_TOOLS=1: going on)" >&2
            else
                echo "deps: error: $name is '$got' but this project is pinned to $name $want." >&2
                echo "deps:        Remove it or put $name $want first on PATH (or set RNIC_ALLOW_OTHER_TOOLS=1)." >&2
                exit 1
            fi
        fi
    else
        missing+=("$name")
    fi
}

check verilator verilator "Verilator $VERILATOR_WANT"
check yosys yosys "Yosys $YOSYS_WANT"
command -v tshark >/dev/null 2>&1 || missing+=(tshark)

if [ ${#missing[@]} -eq 0 ]; then
    python_deps
    exit 0
fi

echo "deps: installing ${missing[*]} (Debian packages, pinned)"
SUDO=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
        echo "deps: error: need root to install ${missing[*]}; run: apt-get install verilator=5.006-3 yosys=0.23-6" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
pkgs=()
for m in "${missing[@]}"; do
    case $m in
        verilator) pkgs+=("verilator=5.006-3") ;;
        yosys) pkgs+=("yosys=0.23-6") ;;
        tshark) pkgs+=("tshark") ;;
    esac
done
echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections 2>/dev/null || true
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${pkgs[@]}" g++ make >/dev/null
check verilator verilator "Verilator $VERILATOR_WANT"
check yosys yosys "Yosys $YOSYS_WANT"
command -v tshark >/dev/null || { echo "deps: error: tshark did not install" >&2; exit 1; }
python_deps
echo "deps: $(verilator --version | head -1); $(yosys -V); $(tshark --version | head -1)"
