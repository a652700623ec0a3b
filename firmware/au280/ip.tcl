# Vendor IP for the Alveo U280 image (firmware/au280/au280_top.sv): the
# board's values for firmware/common/ip.tcl.
#   PCIe x16 on GTY quads 224..227, channels X1Y0..X1Y15 (constraints/au280.xdc);
#   QSFP0 on GTY quad 134, channels X0Y40..X0Y43 (Corundum fpga_au280.xdc).
set rnic_board(pcie_blk)  {X1Y0}
set rnic_board(cmac_gt)   {X0Y40~X0Y43}
set rnic_board(cmac_site) {}
source [file join [file dirname [info script]] .. common ip.tcl]
rnic_create_ip
