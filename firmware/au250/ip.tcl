# Vendor IP for the Alveo U250 image (firmware/au250/au250_top.sv): the board's
# values for firmware/common/ip.tcl.
#   PCIe x16 on GTY quads 224..227 (constraints/au250.xdc);
#   QSFP0 on GTY quad 231, channels X1Y48..X1Y51 (Corundum fpga_au200.xdc).
set rnic_board(pcie_blk)  {X1Y2}
set rnic_board(cmac_gt)   {X1Y48~X1Y51}
set rnic_board(cmac_site) {}
source [file join [file dirname [info script]] .. common ip.tcl]
rnic_create_ip
