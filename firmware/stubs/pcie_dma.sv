// Behavioural stand-in for `pcie_dma`, the AMD XDMA instance that
// firmware/<board>/ip.tcl creates (PG195): the ports the board tops connect,
// with the widths of that configuration (Gen3 x16, 512-bit AXI-MM, 4-bit AXI
// IDs, 64-bit addresses, AXI-Lite master, channel 0 descriptor bypass, 16 user
// interrupts). Port names as in the IP's instantiation template. Outputs are
// idle: the link never comes up, axi_aclk is sys_clk and axi_aresetn follows
// PERST#. The real IP has further ports (cfg_mgmt, status) left open.
/* verilator lint_off UNUSEDSIGNAL */
module pcie_dma (
    input  logic         sys_clk,
    input  logic         sys_clk_gt,
    input  logic         sys_rst_n,
    input  logic [15:0]  pci_exp_rxp,
    input  logic [15:0]  pci_exp_rxn,
    output logic [15:0]  pci_exp_txp,
    output logic [15:0]  pci_exp_txn,
    output logic         user_lnk_up,
    output logic         axi_aclk,
    output logic         axi_aresetn,
    input  logic [15:0]  usr_irq_req,
    output logic [15:0]  usr_irq_ack,
    output logic         msi_enable,
    output logic         msix_enable,
    // AXI4-Lite master (BAR)
    output logic [31:0]  m_axil_awaddr,
    output logic [2:0]   m_axil_awprot,
    output logic         m_axil_awvalid,
    input  logic         m_axil_awready,
    output logic [31:0]  m_axil_wdata,
    output logic [3:0]   m_axil_wstrb,
    output logic         m_axil_wvalid,
    input  logic         m_axil_wready,
    input  logic         m_axil_bvalid,
    input  logic [1:0]   m_axil_bresp,
    output logic         m_axil_bready,
    output logic [31:0]  m_axil_araddr,
    output logic [2:0]   m_axil_arprot,
    output logic         m_axil_arvalid,
    input  logic         m_axil_arready,
    input  logic [31:0]  m_axil_rdata,
    input  logic [1:0]   m_axil_rresp,
    input  logic         m_axil_rvalid,
    output logic         m_axil_rready,
    // AXI4 master (DMA data)
    output logic [3:0]   m_axi_awid,
    output logic [63:0]  m_axi_awaddr,
    output logic [7:0]   m_axi_awlen,
    output logic [2:0]   m_axi_awsize,
    output logic [1:0]   m_axi_awburst,
    output logic [2:0]   m_axi_awprot,
    output logic         m_axi_awvalid,
    input  logic         m_axi_awready,
    output logic         m_axi_awlock,
    output logic [3:0]   m_axi_awcache,
    output logic [511:0] m_axi_wdata,
    output logic [63:0]  m_axi_wstrb,
    output logic         m_axi_wlast,
    output logic         m_axi_wvalid,
    input  logic         m_axi_wready,
    input  logic [3:0]   m_axi_bid,
    input  logic [1:0]   m_axi_bresp,
    input  logic         m_axi_bvalid,
    output logic         m_axi_bready,
    output logic [3:0]   m_axi_arid,
    output logic [63:0]  m_axi_araddr,
    output logic [7:0]   m_axi_arlen,
    output logic [2:0]   m_axi_arsize,
    output logic [1:0]   m_axi_arburst,
    output logic [2:0]   m_axi_arprot,
    output logic         m_axi_arvalid,
    input  logic         m_axi_arready,
    output logic         m_axi_arlock,
    output logic [3:0]   m_axi_arcache,
    input  logic [3:0]   m_axi_rid,
    input  logic [511:0] m_axi_rdata,
    input  logic [1:0]   m_axi_rresp,
    input  logic         m_axi_rlast,
    input  logic         m_axi_rvalid,
    output logic         m_axi_rready,
    // descriptor bypass, channel 0
    output logic         h2c_dsc_byp_ready_0,
    input  logic [63:0]  h2c_dsc_byp_src_addr_0,
    input  logic [63:0]  h2c_dsc_byp_dst_addr_0,
    input  logic [27:0]  h2c_dsc_byp_len_0,
    input  logic [15:0]  h2c_dsc_byp_ctl_0,
    input  logic         h2c_dsc_byp_load_0,
    output logic         c2h_dsc_byp_ready_0,
    input  logic [63:0]  c2h_dsc_byp_src_addr_0,
    input  logic [63:0]  c2h_dsc_byp_dst_addr_0,
    input  logic [27:0]  c2h_dsc_byp_len_0,
    input  logic [15:0]  c2h_dsc_byp_ctl_0,
    input  logic         c2h_dsc_byp_load_0
);
    assign pci_exp_txp = '0;
    assign pci_exp_txn = '0;
    assign user_lnk_up = 1'b0;
    assign axi_aclk = sys_clk;
    assign axi_aresetn = sys_rst_n;
    assign usr_irq_ack = '0;
    assign msi_enable = 1'b0;
    assign msix_enable = 1'b0;
    assign {m_axil_awaddr, m_axil_awprot, m_axil_awvalid, m_axil_wdata, m_axil_wstrb, m_axil_wvalid} = '0;
    assign {m_axil_bready, m_axil_araddr, m_axil_arprot, m_axil_arvalid, m_axil_rready} = '0;
    assign {m_axi_awid, m_axi_awaddr, m_axi_awlen, m_axi_awsize, m_axi_awburst, m_axi_awprot} = '0;
    assign {m_axi_awvalid, m_axi_awlock, m_axi_awcache, m_axi_wdata, m_axi_wstrb, m_axi_wlast} = '0;
    assign {m_axi_wvalid, m_axi_bready, m_axi_arid, m_axi_araddr, m_axi_arlen, m_axi_arsize} = '0;
    assign {m_axi_arburst, m_axi_arprot, m_axi_arvalid, m_axi_arlock, m_axi_arcache, m_axi_rready} = '0;
    assign h2c_dsc_byp_ready_0 = 1'b0;
    assign c2h_dsc_byp_ready_0 = 1'b0;
endmodule
