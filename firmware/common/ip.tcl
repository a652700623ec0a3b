# Vendor IP for the Alveo board images, shared by firmware/<board>/ip.tcl,
# which sets the board's values and calls rnic_create_ip. Run inside Vivado
# (firmware/common/build.tcl sources it in an in-memory project for the part).
#
#   pcie_dma    xdma (PG195): PCIe Gen3 x16, 512-bit AXI at 250 MHz (the core
#               clock), AXI memory-mapped, one H2C and one C2H channel in
#               descriptor bypass (docs/host.md "Mapping onto AMD QDMA / XDMA"),
#               AXI-Lite master on BAR0 (the register file; the contract's
#               BAR0 is 8 KiB, the BAR 16 MiB like Corundum's), 16 user
#               interrupts over MSI-X.
#   cmac_qsfp0  cmac_usplus (PG203): 100GBASE-R CAUI-4 on 4x25G GTY lanes, the
#               GTs inside the IP on the board's QSFP0 quad, RS-FEC included,
#               512-bit AXI4-Stream, no flow control, 161.1328125 MHz reference.
#
# Property names follow the IPs' product guides and Corundum's IP scripts
# (fpga/mqnic/Alveo/fpga_100g/ip/*.tcl); they have not been run through
# Vivado here (no Vivado on the build machine): docs/boards.md lists them as
# unverified.
#
# Board values (set by firmware/<board>/ip.tcl):
#   rnic_board(pcie_blk)   PCIe hard block site next to the edge connector's quads
#   rnic_board(cmac_gt)    QSFP0's GT channels, "XnYa~XnYb"
#   rnic_board(cmac_site)  CMAC hard block site next to that quad ("" = Vivado's default)

proc rnic_create_ip {} {
    global rnic_board rnic_ip_dir
    # build.tcl sets rnic_ip_dir (IP needs a directory in a non-project build)
    set dir [expr {[info exists rnic_ip_dir] ? [list -dir $rnic_ip_dir] : {}}]

    create_ip -name xdma -vendor xilinx.com -library ip -module_name pcie_dma {*}$dir
    set_property -dict [list \
        CONFIG.mode_selection {Advanced} \
        CONFIG.pcie_blk_locn $rnic_board(pcie_blk) \
        CONFIG.pl_link_cap_max_link_width {X16} \
        CONFIG.pl_link_cap_max_link_speed {8.0_GT/s} \
        CONFIG.axi_data_width {512_bit} \
        CONFIG.axisten_freq {250} \
        CONFIG.xdma_axi_intf_mm {AXI_Memory_Mapped} \
        CONFIG.axi_id_width {4} \
        CONFIG.xdma_rnum_chnl {1} \
        CONFIG.xdma_wnum_chnl {1} \
        CONFIG.dsc_bypass_rd {0001} \
        CONFIG.dsc_bypass_wr {0001} \
        CONFIG.axilite_master_en {true} \
        CONFIG.axilite_master_size {16} \
        CONFIG.axilite_master_scale {Megabytes} \
        CONFIG.xdma_num_usr_irq {16} \
        CONFIG.pf0_msi_enabled {false} \
        CONFIG.pf0_msix_enabled {true} \
        CONFIG.pf0_device_id {9038} \
        CONFIG.pf0_class_code_base {02} \
        CONFIG.pf0_class_code_sub {00} \
        CONFIG.pf0_base_class_menu {Network_controller} \
        CONFIG.cfg_mgmt_if {false} \
    ] [get_ips pcie_dma]

    create_ip -name cmac_usplus -vendor xilinx.com -library ip -module_name cmac_qsfp0 {*}$dir
    set props [list \
        CONFIG.CMAC_CAUI4_MODE {1} \
        CONFIG.NUM_LANES {4x25} \
        CONFIG.GT_REF_CLK_FREQ {161.1328125} \
        CONFIG.GT_DRP_CLK {100} \
        CONFIG.USER_INTERFACE {AXIS} \
        CONFIG.GT_LOCATION {1} \
        CONFIG.GT_GROUP_SELECT $rnic_board(cmac_gt) \
        CONFIG.INCLUDE_RS_FEC {1} \
        CONFIG.TX_FLOW_CONTROL {0} \
        CONFIG.RX_FLOW_CONTROL {0} \
        CONFIG.ENABLE_AXI_INTERFACE {0} \
        CONFIG.INCLUDE_STATISTICS_COUNTERS {0} \
    ]
    if {$rnic_board(cmac_site) ne ""} {
        lappend props CONFIG.CMAC_CORE_SELECT $rnic_board(cmac_site)
    }
    set_property -dict $props [get_ips cmac_qsfp0]

    generate_target {synthesis instantiation_template} [get_ips {pcie_dma cmac_qsfp0}]
}
