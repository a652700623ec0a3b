# Vendor IP for the Alveo U200 and U250 images (firmware/au2x0/au2x0_top.sv):
# the boards' values for firmware/common/ip.tcl (the same card, pin for pin).
#   PCIe x16 on GTY quads 224..227 (constraints/au2x0.xdc);
#   QSFP0 on GTY quad 231, channels X1Y48..X1Y51 (Corundum fpga_au200.xdc).
set rnic_board(pcie_blk)  {X1Y2}
set rnic_board(cmac_gt)   {X1Y48~X1Y51}
set rnic_board(cmac_site) {}
source [file join [file dirname [info script]] .. common ip.tcl]
rnic_create_ip
