// Behavioural stand-in for `cmac_qsfp0`, the AMD 100G Ethernet subsystem
// (cmac_usplus, PG203) that firmware/<board>/ip.tcl creates: CAUI-4, RS-FEC,
// 512-bit AXI4-Stream, GTs inside the IP. The ports the board tops connect,
// named as in the IP's instantiation template (cmac_usplus_0.veo as found in
// liaoyunkun/Jingzhao: per-lane gtN_rxp_in / gtN_txp_out); the real IP has further
// outputs (stat_*, rx_preambleout, gt_ref_clk_out, ...) left open. Outputs are
// idle: never aligned, nothing received, transmit always ready; the user
// clock is the reference clock.
/* verilator lint_off UNUSEDSIGNAL */
module cmac_qsfp0 (
    input  logic         gt_ref_clk_p,
    input  logic         gt_ref_clk_n,
    input  logic         gt0_rxp_in,
    input  logic         gt0_rxn_in,
    input  logic         gt1_rxp_in,
    input  logic         gt1_rxn_in,
    input  logic         gt2_rxp_in,
    input  logic         gt2_rxn_in,
    input  logic         gt3_rxp_in,
    input  logic         gt3_rxn_in,
    output logic         gt0_txp_out,
    output logic         gt0_txn_out,
    output logic         gt1_txp_out,
    output logic         gt1_txn_out,
    output logic         gt2_txp_out,
    output logic         gt2_txn_out,
    output logic         gt3_txp_out,
    output logic         gt3_txn_out,
    input  logic         init_clk,
    input  logic         sys_reset,
    output logic         gt_txusrclk2,
    input  logic         rx_clk,
    output logic         usr_tx_reset,
    output logic         usr_rx_reset,
    input  logic         core_tx_reset,
    input  logic         core_rx_reset,
    input  logic         core_drp_reset,
    input  logic         gtwiz_reset_tx_datapath,
    input  logic         gtwiz_reset_rx_datapath,
    input  logic [11:0]  gt_loopback_in,
    output logic [3:0]   gt_powergoodout,
    input  logic         drp_clk,
    input  logic [9:0]   drp_addr,
    input  logic [15:0]  drp_di,
    input  logic         drp_en,
    input  logic         drp_we,
    output logic [15:0]  drp_do,
    output logic         drp_rdy,
    input  logic         ctl_rx_rsfec_enable,
    input  logic         ctl_rx_rsfec_enable_correction,
    input  logic         ctl_rx_rsfec_enable_indication,
    input  logic         ctl_tx_rsfec_enable,
    input  logic         ctl_rsfec_ieee_error_indication_mode,
    input  logic         ctl_rx_enable,
    input  logic         ctl_tx_enable,
    input  logic         ctl_tx_send_idle,
    input  logic         ctl_tx_send_rfi,
    input  logic         ctl_tx_send_lfi,
    input  logic         ctl_rx_force_resync,
    input  logic         ctl_rx_test_pattern,
    input  logic         ctl_tx_test_pattern,
    output logic         stat_rx_aligned,
    output logic         rx_axis_tvalid,
    output logic [511:0] rx_axis_tdata,
    output logic [63:0]  rx_axis_tkeep,
    output logic         rx_axis_tlast,
    output logic         rx_axis_tuser,
    input  logic         tx_axis_tvalid,
    output logic         tx_axis_tready,
    input  logic [511:0] tx_axis_tdata,
    input  logic [63:0]  tx_axis_tkeep,
    input  logic         tx_axis_tlast,
    input  logic         tx_axis_tuser,
    input  logic [55:0]  tx_preamblein,
    output logic         tx_ovfout,
    output logic         tx_unfout
);
    assign {gt0_txp_out, gt1_txp_out, gt2_txp_out, gt3_txp_out} = '0;
    assign {gt0_txn_out, gt1_txn_out, gt2_txn_out, gt3_txn_out} = '0;
    assign gt_txusrclk2 = gt_ref_clk_p;
    assign usr_tx_reset = sys_reset;
    assign usr_rx_reset = sys_reset;
    assign gt_powergoodout = '0;
    assign drp_do = '0;
    assign drp_rdy = 1'b0;
    assign stat_rx_aligned = 1'b0;
    assign {rx_axis_tvalid, rx_axis_tdata, rx_axis_tkeep, rx_axis_tlast, rx_axis_tuser} = '0;
    assign tx_axis_tready = 1'b1;
    assign tx_ovfout = 1'b0;
    assign tx_unfout = 1'b0;
endmodule
