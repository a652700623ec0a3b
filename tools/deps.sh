#!/usr/bin/env bash
# Installs the tools the build needs, pinned, without prompts (versions in
# tools/versions.env): Verilator and yosys (Debian bookworm packages), tshark
# (Debian bookworm), and scapy in build/venv (the independent packet checkers).
# A tool found at another version stops the build with a clear message
# (set RNIC_ALLOW_OTHER_TOOLS=1 to go on anyway; the tests that assert a
# tool's output still refuse another version of that tool).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=versions.env
. "$here/tools/versions.env"
missing=()

python_deps() {
    local venv="$here/build/venv"
    if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import scapy, sys; sys.exit(scapy.VERSION != '$SCAPY_VERSION')" 2>/dev/null; then
        return 0
    fi
    echo "deps: installing scapy $SCAPY_VERSION into build/venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "scapy==$SCAPY_VERSION"
}

version_line() { # cmd: the first line of `cmd --version`
    "$1" --version 2>/dev/null | head -1
}

check() { # name cmd pattern want
    local name=$1 cmd=$2 pattern=$3 want=$4
    if command -v "$cmd" >/dev/null 2>&1; then
        local got
        got=$(version_line "$cmd")
        if ! grep -qF -- "$pattern" <<<"$got"; then
            if [ "${RNIC_ALLOW_OTHER_TOOLS:-0}" = 1 ]; then
                echo "deps: warning: $name is '$got', the project pins $want (RNIC_ALLOW_OTHER_TOOLS=1: going on)" >&2
            else
                echo "deps: error: $name is '$got' but this project is pinned to $name $want (tools/versions.env)." >&2
                echo "deps:        Remove it or put $name $want first on PATH (or set RNIC_ALLOW_OTHER_TOOLS=1)." >&2
                exit 1
            fi
        fi
    else
        missing+=("$name")
    fi
}

check_all() {
    check verilator verilator "Verilator $VERILATOR_VERSION " "$VERILATOR_VERSION"
    check yosys yosys "Yosys $YOSYS_VERSION " "$YOSYS_VERSION"
    # `TShark (Wireshark) 4.0.17 (Git v4.0.17 packaged as 4.0.17-0+deb12u3)`
    check tshark tshark "TShark (Wireshark) $TSHARK_VERSION " "$TSHARK_VERSION"
    # tclsh: tools/boards_check.sh tests the bitstream flow's timing-report reader (any 8.6)
    command -v tclsh >/dev/null 2>&1 || missing+=("tclsh")
}

check_all
if [ ${#missing[@]} -eq 0 ]; then
    python_deps
    exit 0
fi

echo "deps: installing ${missing[*]} (Debian packages, pinned)"
SUDO=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
        echo "deps: error: need root to install ${missing[*]}; run: apt-get install verilator=$VERILATOR_DEB yosys=$YOSYS_DEB tshark tcl8.6 (Debian bookworm: $TSHARK_VERSION)" >&2
        exit 1
    fi
fi
export DEBIAN_FRONTEND=noninteractive
pkgs=()
for m in "${missing[@]}"; do
    case $m in
        verilator) pkgs+=("verilator=$VERILATOR_DEB") ;;
        yosys) pkgs+=("yosys=$YOSYS_DEB") ;;
        # bookworm ships 4.0.x only; the Debian revision moves with security
        # updates, so the upstream version is what is checked below
        tshark) pkgs+=("tshark") ;;
        tclsh) pkgs+=("tcl8.6") ;;
    esac
done
echo "wireshark-common wireshark-common/install-setuid boolean false" | $SUDO debconf-set-selections 2>/dev/null || true
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${pkgs[@]}" g++ make >/dev/null
missing=()
check_all
[ ${#missing[@]} -eq 0 ] || { echo "deps: error: ${missing[*]} did not install" >&2; exit 1; }
python_deps
echo "deps: $(version_line verilator); $(yosys -V); $(version_line tshark)"
