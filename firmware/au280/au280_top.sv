// au280_top: the RNIC board image for the Alveo U280 (part xcu280-fsvh2892-2L-e).
// Pins: constraints/au280.xdc. Vendor IP: firmware/au280/ip.tcl. Build: make bitstream BOARD=au280.
//
// Board parts here: the 100 MHz reference (BJ43/BJ44) as the CMAC's init
// clock and the power-on reset; QSFP0's SI546 enabled at 161.1328125 MHz
// (refclk_fs = 1); QSFP1's SI546 disabled (no MAC on that cage yet); the HBM
// over-temperature output held low (no HBM used). The U280 has no user LEDs
// on FPGA pins, so the status goes nowhere. All else is rnic_board
// (firmware/common/rnic_board.sv).

module au280_top (
    input  logic        clk_100mhz_p,
    input  logic        clk_100mhz_n,
    output logic        hbm_cattrip,
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
    output logic        qsfp0_refclk_oe_b,
    output logic        qsfp0_refclk_fs,
    // QSFP1 reference clock control only
    output logic        qsfp1_refclk_oe_b,
    output logic        qsfp1_refclk_fs
);
    logic clk_100mhz, init_clk, init_rst;
    IBUFDS clk_100mhz_buf (.I(clk_100mhz_p), .IB(clk_100mhz_n), .O(clk_100mhz));
    BUFG init_clk_buf (.I(clk_100mhz), .O(init_clk));
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

    assign qsfp0_refclk_oe_b = 1'b0;  // SI546 output on
    assign qsfp0_refclk_fs   = 1'b1;  // 161.1328125 MHz
    assign qsfp1_refclk_oe_b = 1'b1;  // off
    assign qsfp1_refclk_fs   = 1'b1;
    assign hbm_cattrip       = 1'b0;
endmodule
