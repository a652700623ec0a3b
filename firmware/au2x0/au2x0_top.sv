// au2x0_top: the RNIC board image for the Alveo U200 and U250 (parts
// xcu200-fsgd2104-2-e and xcu250-figd2104-2-e: firmware/boards.txt). The two
// are the same card with the same package pinout, so one top, one XDC and one
// IP script serve both; only the part differs.
// Pins: constraints/au2x0.xdc. Vendor IP: firmware/au2x0/ip.tcl. Build: make bitstream BOARD=au200 (or au250).
//
// Board parts here: the 300 MHz reference (AY37/AY38) divided to 100 MHz for
// the CMAC's init clock and the power-on reset; QSFP0 enabled (module out of
// reset, high power, its SI5335 reference at 161.1328125 MHz: FS = 0b10);
// QSFP1 held in reset and low power (no MAC on it yet); the three LEDs. All
// else is rnic_board (firmware/common/rnic_board.sv).

module au2x0_top (
    input  logic        clk_300mhz_p,
    input  logic        clk_300mhz_n,
    output logic [2:0]  led,
    // PCIe Gen3 x16
    input  logic        pcie_refclk_p,
    input  logic        pcie_refclk_n,
    input  logic        pcie_perst_n,
    input  logic [15:0] pcie_rx_p,
    input  logic [15:0] pcie_rx_n,
    output logic [15:0] pcie_tx_p,
    output logic [15:0] pcie_tx_n,
    // QSFP0
    input  logic        qsfp0_refclk_p,
    input  logic        qsfp0_refclk_n,
    input  logic [3:0]  qsfp0_rx_p,
    input  logic [3:0]  qsfp0_rx_n,
    output logic [3:0]  qsfp0_tx_p,
    output logic [3:0]  qsfp0_tx_n,
    output logic        qsfp0_modsell,
    output logic        qsfp0_resetl,
    input  logic        qsfp0_modprsl,
    input  logic        qsfp0_intl,
    output logic        qsfp0_lpmode,
    output logic        qsfp0_refclk_reset,
    output logic [1:0]  qsfp0_fs,
    // QSFP1 sideband only (no MAC on this cage yet)
    output logic        qsfp1_modsell,
    output logic        qsfp1_resetl,
    input  logic        qsfp1_modprsl,
    input  logic        qsfp1_intl,
    output logic        qsfp1_lpmode,
    output logic        qsfp1_refclk_reset,
    output logic [1:0]  qsfp1_fs
);
    // 300 MHz -> 100 MHz free-running init clock
    logic clk_300mhz, init_clk, init_rst;
    IBUFDS clk_300mhz_buf (.I(clk_300mhz_p), .IB(clk_300mhz_n), .O(clk_300mhz));
    BUFGCE_DIV #(.BUFGCE_DIVIDE(3)) init_clk_div (.I(clk_300mhz), .CE(1'b1), .CLR(1'b0), .O(init_clk));
    rnic_por por (.clk(init_clk), .rst(init_rst));

    logic qsfp0_link, pcie_link, heartbeat;
    rnic_board board (
        .init_clk(init_clk), .init_rst(init_rst),
        .pcie_refclk_p(pcie_refclk_p), .pcie_refclk_n(pcie_refclk_n), .pcie_perst_n(pcie_perst_n),
        .pcie_rx_p(pcie_rx_p), .pcie_rx_n(pcie_rx_n), .pcie_tx_p(pcie_tx_p), .pcie_tx_n(pcie_tx_n),
        .qsfp0_refclk_p(qsfp0_refclk_p), .qsfp0_refclk_n(qsfp0_refclk_n),
        .qsfp0_rx_p(qsfp0_rx_p), .qsfp0_rx_n(qsfp0_rx_n), .qsfp0_tx_p(qsfp0_tx_p), .qsfp0_tx_n(qsfp0_tx_n),
        .qsfp0_link(qsfp0_link), .pcie_link(pcie_link), .heartbeat(heartbeat)
    );

    // QSFP0: selected (ModSelL low), out of reset after power-on, high power, 161.13 MHz reference
    assign qsfp0_modsell      = 1'b0;
    assign qsfp0_resetl       = !init_rst;
    assign qsfp0_lpmode       = 1'b0;
    assign qsfp0_refclk_reset = 1'b0;
    assign qsfp0_fs           = 2'b10;
    // QSFP1: deselected, in reset, low power, its reference clock generator held in reset
    assign qsfp1_modsell      = 1'b1;
    assign qsfp1_resetl       = 1'b0;
    assign qsfp1_lpmode       = 1'b1;
    assign qsfp1_refclk_reset = 1'b1;
    assign qsfp1_fs           = 2'b10;

    assign led = {heartbeat, pcie_link, qsfp0_link};
endmodule
