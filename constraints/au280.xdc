# constraints/au280.xdc: pins, I/O standards and clocks of the Alveo U280 for firmware/au280/au280_top.sv
# part: xcu280-fsvh2892-2L-e
#
# Sources of the pin facts (facts taken over, text written here):
#   corundum/corundum fpga/mqnic/Alveo/fpga_100g/fpga_au280.xdc (commit 38a8a258), summarised in
#   /work/shared/reference/spec_ecosystem.md part 3; quad / channel sites from that file's per-pin comments.
#   The U280 has no user LEDs on FPGA pins in that file: this top drives none.
# Port names are this project's (firmware/au280/au280_top.sv); tools/boards_check.sh checks that every
# port named here is a port of the top.

# ---- configuration (Alveo U280: CFGBVS GND, 1.8 V, SPIx4; Corundum au280 file) ----
set_property CFGBVS GND                                [current_design]
set_property CONFIG_VOLTAGE 1.8                        [current_design]
set_property BITSTREAM.GENERAL.COMPRESS TRUE           [current_design]
set_property BITSTREAM.CONFIG.CONFIGFALLBACK ENABLE    [current_design]
set_property CONFIG_MODE SPIx4                         [current_design]
set_property BITSTREAM.CONFIG.SPI_BUSWIDTH 4           [current_design]
set_property BITSTREAM.CONFIG.CONFIGRATE 85.0          [current_design]
set_property BITSTREAM.CONFIG.EXTMASTERCCLK_EN DISABLE [current_design]
set_property BITSTREAM.CONFIG.SPI_FALL_EDGE YES        [current_design]
set_property BITSTREAM.CONFIG.UNUSEDPIN PULLUP         [current_design]
set_property BITSTREAM.CONFIG.SPI_32BIT_ADDR YES       [current_design]
set_property BITSTREAM.CONFIG.OVERTEMPSHUTDOWN Enable  [current_design]
set_operating_conditions -design_power_budget 160

# ---- free-running clock: 100 MHz LVDS (DDR4 reference 0, BJ43/BJ44): the CMAC's init/DRP clock.
# (clk_100mhz_1 BH6/BJ6 unused.)
set_property -dict {PACKAGE_PIN BJ43 IOSTANDARD LVDS} [get_ports clk_100mhz_p]
set_property -dict {PACKAGE_PIN BJ44 IOSTANDARD LVDS} [get_ports clk_100mhz_n]
create_clock -period 10.000 -name clk_100mhz [get_ports clk_100mhz_p]

# ---- HBM over-temperature output (D32): held low (no HBM used); the card's controller watches it.
set_property -dict {PACKAGE_PIN D32 IOSTANDARD LVCMOS18} [get_ports hbm_cattrip]
set_false_path -to [get_ports hbm_cattrip]
set_output_delay 0 [get_ports hbm_cattrip]

# ---- QSFP0: GTY quad 134 (GTYE4_CHANNEL_X0Y40..X0Y43, COMMON_X0Y10), CMAC 100G CAUI-4 with RS-FEC
set_property PACKAGE_PIN L53   [get_ports {qsfp0_rx_p[0]}] ;# MGTYRXP0_134 GTYE4_CHANNEL_X0Y40 / GTYE4_COMMON_X0Y10
set_property PACKAGE_PIN L54   [get_ports {qsfp0_rx_n[0]}]
set_property PACKAGE_PIN L48   [get_ports {qsfp0_tx_p[0]}] ;# MGTYTXP0_134
set_property PACKAGE_PIN L49   [get_ports {qsfp0_tx_n[0]}]
set_property PACKAGE_PIN K51   [get_ports {qsfp0_rx_p[1]}] ;# MGTYRXP1_134 GTYE4_CHANNEL_X0Y41 / GTYE4_COMMON_X0Y10
set_property PACKAGE_PIN K52   [get_ports {qsfp0_rx_n[1]}]
set_property PACKAGE_PIN L44   [get_ports {qsfp0_tx_p[1]}] ;# MGTYTXP1_134
set_property PACKAGE_PIN L45   [get_ports {qsfp0_tx_n[1]}]
set_property PACKAGE_PIN J53   [get_ports {qsfp0_rx_p[2]}] ;# MGTYRXP2_134 GTYE4_CHANNEL_X0Y42 / GTYE4_COMMON_X0Y10
set_property PACKAGE_PIN J54   [get_ports {qsfp0_rx_n[2]}]
set_property PACKAGE_PIN K46   [get_ports {qsfp0_tx_p[2]}] ;# MGTYTXP2_134
set_property PACKAGE_PIN K47   [get_ports {qsfp0_tx_n[2]}]
set_property PACKAGE_PIN H51   [get_ports {qsfp0_rx_p[3]}] ;# MGTYRXP3_134 GTYE4_CHANNEL_X0Y43 / GTYE4_COMMON_X0Y10
set_property PACKAGE_PIN H52   [get_ports {qsfp0_rx_n[3]}]
set_property PACKAGE_PIN J48   [get_ports {qsfp0_tx_p[3]}] ;# MGTYTXP3_134
set_property PACKAGE_PIN J49   [get_ports {qsfp0_tx_n[3]}]
# reference clock: MGTREFCLK1_134 from the SI546; refclk_fs = 1 selects 161.1328125 MHz (0: 156.25 MHz).
# (MGTREFCLK0_134 T42/T43 is the SI570 path, unused.)
set_property PACKAGE_PIN R40 [get_ports qsfp0_refclk_p] ;# MGTREFCLK1P_134
set_property PACKAGE_PIN R41 [get_ports qsfp0_refclk_n] ;# MGTREFCLK1N_134
create_clock -period 6.206 -name qsfp0_refclk [get_ports qsfp0_refclk_p]
set_property -dict {PACKAGE_PIN H32 IOSTANDARD LVCMOS18 SLEW SLOW DRIVE 8} [get_ports qsfp0_refclk_oe_b]
set_property -dict {PACKAGE_PIN G32 IOSTANDARD LVCMOS18 SLEW SLOW DRIVE 8} [get_ports qsfp0_refclk_fs]

# ---- QSFP1: GTY quad 135 (GTYE4_CHANNEL_X0Y44..X0Y47, COMMON_X0Y11). No MAC on this cage yet: GT pins and
# reference clock recorded, commented out, for the second CMAC; its SI546 is left disabled (oe_b high).
# set_property PACKAGE_PIN G53   [get_ports {qsfp1_rx_p[0]}] ;# MGTYRXP0_135 GTYE4_CHANNEL_X0Y44 / GTYE4_COMMON_X0Y11
# set_property PACKAGE_PIN G54   [get_ports {qsfp1_rx_n[0]}]
# set_property PACKAGE_PIN G48   [get_ports {qsfp1_tx_p[0]}] ;# MGTYTXP0_135
# set_property PACKAGE_PIN G49   [get_ports {qsfp1_tx_n[0]}]
# set_property PACKAGE_PIN F51   [get_ports {qsfp1_rx_p[1]}] ;# MGTYRXP1_135 GTYE4_CHANNEL_X0Y45 / GTYE4_COMMON_X0Y11
# set_property PACKAGE_PIN F52   [get_ports {qsfp1_rx_n[1]}]
# set_property PACKAGE_PIN E48   [get_ports {qsfp1_tx_p[1]}] ;# MGTYTXP1_135
# set_property PACKAGE_PIN E49   [get_ports {qsfp1_tx_n[1]}]
# set_property PACKAGE_PIN E53   [get_ports {qsfp1_rx_p[2]}] ;# MGTYRXP2_135 GTYE4_CHANNEL_X0Y46 / GTYE4_COMMON_X0Y11
# set_property PACKAGE_PIN E54   [get_ports {qsfp1_rx_n[2]}]
# set_property PACKAGE_PIN C48   [get_ports {qsfp1_tx_p[2]}] ;# MGTYTXP2_135
# set_property PACKAGE_PIN C49   [get_ports {qsfp1_tx_n[2]}]
# set_property PACKAGE_PIN D51   [get_ports {qsfp1_rx_p[3]}] ;# MGTYRXP3_135 GTYE4_CHANNEL_X0Y47 / GTYE4_COMMON_X0Y11
# set_property PACKAGE_PIN D52   [get_ports {qsfp1_rx_n[3]}]
# set_property PACKAGE_PIN A49   [get_ports {qsfp1_tx_p[3]}] ;# MGTYTXP3_135
# set_property PACKAGE_PIN A50   [get_ports {qsfp1_tx_n[3]}]
# set_property PACKAGE_PIN M42 [get_ports qsfp1_refclk_p] ;# MGTREFCLK1P_135 from the SI546
# set_property PACKAGE_PIN M43 [get_ports qsfp1_refclk_n] ;# MGTREFCLK1N_135 (MGTREFCLK0_135 P42/P43: SI570 path)
# create_clock -period 6.206 -name qsfp1_refclk [get_ports qsfp1_refclk_p]
set_property -dict {PACKAGE_PIN H30 IOSTANDARD LVCMOS18 SLEW SLOW DRIVE 8} [get_ports qsfp1_refclk_oe_b]
set_property -dict {PACKAGE_PIN G33 IOSTANDARD LVCMOS18 SLEW SLOW DRIVE 8} [get_ports qsfp1_refclk_fs]

set_false_path -to [get_ports {qsfp0_refclk_oe_b qsfp0_refclk_fs qsfp1_refclk_oe_b qsfp1_refclk_fs}]
set_output_delay 0 [get_ports {qsfp0_refclk_oe_b qsfp0_refclk_fs qsfp1_refclk_oe_b qsfp1_refclk_fs}]

# ---- PCIe Gen3 x16: GTY quads 227..224 (GTYE4_CHANNEL_X1Y15..X1Y0); lane 0 is quad 227 channel 3
set_property PACKAGE_PIN AL2   [get_ports {pcie_rx_p[0]}] ;# MGTYRXP3_227 GTYE4_CHANNEL_X1Y15 / GTYE4_COMMON_X1Y3
set_property PACKAGE_PIN AL1   [get_ports {pcie_rx_n[0]}]
set_property PACKAGE_PIN AL11  [get_ports {pcie_tx_p[0]}] ;# MGTYTXP3_227
set_property PACKAGE_PIN AL10  [get_ports {pcie_tx_n[0]}]
set_property PACKAGE_PIN AM4   [get_ports {pcie_rx_p[1]}] ;# MGTYRXP2_227 GTYE4_CHANNEL_X1Y14 / GTYE4_COMMON_X1Y3
set_property PACKAGE_PIN AM3   [get_ports {pcie_rx_n[1]}]
set_property PACKAGE_PIN AM9   [get_ports {pcie_tx_p[1]}] ;# MGTYTXP2_227
set_property PACKAGE_PIN AM8   [get_ports {pcie_tx_n[1]}]
set_property PACKAGE_PIN AN6   [get_ports {pcie_rx_p[2]}] ;# MGTYRXP1_227 GTYE4_CHANNEL_X1Y13 / GTYE4_COMMON_X1Y3
set_property PACKAGE_PIN AN5   [get_ports {pcie_rx_n[2]}]
set_property PACKAGE_PIN AN11  [get_ports {pcie_tx_p[2]}] ;# MGTYTXP1_227
set_property PACKAGE_PIN AN10  [get_ports {pcie_tx_n[2]}]
set_property PACKAGE_PIN AN2   [get_ports {pcie_rx_p[3]}] ;# MGTYRXP0_227 GTYE4_CHANNEL_X1Y12 / GTYE4_COMMON_X1Y3
set_property PACKAGE_PIN AN1   [get_ports {pcie_rx_n[3]}]
set_property PACKAGE_PIN AP9   [get_ports {pcie_tx_p[3]}] ;# MGTYTXP0_227
set_property PACKAGE_PIN AP8   [get_ports {pcie_tx_n[3]}]
set_property PACKAGE_PIN AP4   [get_ports {pcie_rx_p[4]}] ;# MGTYRXP3_226 GTYE4_CHANNEL_X1Y11 / GTYE4_COMMON_X1Y2
set_property PACKAGE_PIN AP3   [get_ports {pcie_rx_n[4]}]
set_property PACKAGE_PIN AR11  [get_ports {pcie_tx_p[4]}] ;# MGTYTXP3_226
set_property PACKAGE_PIN AR10  [get_ports {pcie_tx_n[4]}]
set_property PACKAGE_PIN AR2   [get_ports {pcie_rx_p[5]}] ;# MGTYRXP2_226 GTYE4_CHANNEL_X1Y10 / GTYE4_COMMON_X1Y2
set_property PACKAGE_PIN AR1   [get_ports {pcie_rx_n[5]}]
set_property PACKAGE_PIN AR7   [get_ports {pcie_tx_p[5]}] ;# MGTYTXP2_226
set_property PACKAGE_PIN AR6   [get_ports {pcie_tx_n[5]}]
set_property PACKAGE_PIN AT4   [get_ports {pcie_rx_p[6]}] ;# MGTYRXP1_226 GTYE4_CHANNEL_X1Y9 / GTYE4_COMMON_X1Y2
set_property PACKAGE_PIN AT3   [get_ports {pcie_rx_n[6]}]
set_property PACKAGE_PIN AT9   [get_ports {pcie_tx_p[6]}] ;# MGTYTXP1_226
set_property PACKAGE_PIN AT8   [get_ports {pcie_tx_n[6]}]
set_property PACKAGE_PIN AU2   [get_ports {pcie_rx_p[7]}] ;# MGTYRXP0_226 GTYE4_CHANNEL_X1Y8 / GTYE4_COMMON_X1Y2
set_property PACKAGE_PIN AU1   [get_ports {pcie_rx_n[7]}]
set_property PACKAGE_PIN AU11  [get_ports {pcie_tx_p[7]}] ;# MGTYTXP0_226
set_property PACKAGE_PIN AU10  [get_ports {pcie_tx_n[7]}]
set_property PACKAGE_PIN AV4   [get_ports {pcie_rx_p[8]}] ;# MGTYRXP3_225 GTYE4_CHANNEL_X1Y7 / GTYE4_COMMON_X1Y1
set_property PACKAGE_PIN AV3   [get_ports {pcie_rx_n[8]}]
set_property PACKAGE_PIN AU7   [get_ports {pcie_tx_p[8]}] ;# MGTYTXP3_225
set_property PACKAGE_PIN AU6   [get_ports {pcie_tx_n[8]}]
set_property PACKAGE_PIN AW6   [get_ports {pcie_rx_p[9]}] ;# MGTYRXP2_225 GTYE4_CHANNEL_X1Y6 / GTYE4_COMMON_X1Y1
set_property PACKAGE_PIN AW5   [get_ports {pcie_rx_n[9]}]
set_property PACKAGE_PIN AV9   [get_ports {pcie_tx_p[9]}] ;# MGTYTXP2_225
set_property PACKAGE_PIN AV8   [get_ports {pcie_tx_n[9]}]
set_property PACKAGE_PIN AW2   [get_ports {pcie_rx_p[10]}] ;# MGTYRXP1_225 GTYE4_CHANNEL_X1Y5 / GTYE4_COMMON_X1Y1
set_property PACKAGE_PIN AW1   [get_ports {pcie_rx_n[10]}]
set_property PACKAGE_PIN AW11  [get_ports {pcie_tx_p[10]}] ;# MGTYTXP1_225
set_property PACKAGE_PIN AW10  [get_ports {pcie_tx_n[10]}]
set_property PACKAGE_PIN AY4   [get_ports {pcie_rx_p[11]}] ;# MGTYRXP0_225 GTYE4_CHANNEL_X1Y4 / GTYE4_COMMON_X1Y1
set_property PACKAGE_PIN AY3   [get_ports {pcie_rx_n[11]}]
set_property PACKAGE_PIN AY9   [get_ports {pcie_tx_p[11]}] ;# MGTYTXP0_225
set_property PACKAGE_PIN AY8   [get_ports {pcie_tx_n[11]}]
set_property PACKAGE_PIN BA6   [get_ports {pcie_rx_p[12]}] ;# MGTYRXP3_224 GTYE4_CHANNEL_X1Y3 / GTYE4_COMMON_X1Y0
set_property PACKAGE_PIN BA5   [get_ports {pcie_rx_n[12]}]
set_property PACKAGE_PIN BA11  [get_ports {pcie_tx_p[12]}] ;# MGTYTXP3_224
set_property PACKAGE_PIN BA10  [get_ports {pcie_tx_n[12]}]
set_property PACKAGE_PIN BA2   [get_ports {pcie_rx_p[13]}] ;# MGTYRXP2_224 GTYE4_CHANNEL_X1Y2 / GTYE4_COMMON_X1Y0
set_property PACKAGE_PIN BA1   [get_ports {pcie_rx_n[13]}]
set_property PACKAGE_PIN BB9   [get_ports {pcie_tx_p[13]}] ;# MGTYTXP2_224
set_property PACKAGE_PIN BB8   [get_ports {pcie_tx_n[13]}]
set_property PACKAGE_PIN BB4   [get_ports {pcie_rx_p[14]}] ;# MGTYRXP1_224 GTYE4_CHANNEL_X1Y1 / GTYE4_COMMON_X1Y0
set_property PACKAGE_PIN BB3   [get_ports {pcie_rx_n[14]}]
set_property PACKAGE_PIN BC11  [get_ports {pcie_tx_p[14]}] ;# MGTYTXP1_224
set_property PACKAGE_PIN BC10  [get_ports {pcie_tx_n[14]}]
set_property PACKAGE_PIN BC2   [get_ports {pcie_rx_p[15]}] ;# MGTYRXP0_224 GTYE4_CHANNEL_X1Y0 / GTYE4_COMMON_X1Y0
set_property PACKAGE_PIN BC1   [get_ports {pcie_rx_n[15]}]
set_property PACKAGE_PIN BC7   [get_ports {pcie_tx_p[15]}] ;# MGTYTXP0_224
set_property PACKAGE_PIN BC6   [get_ports {pcie_tx_n[15]}]
# reference clock for x16: MGTREFCLK0_225, 100 MHz. (Bifurcated-x8 alternatives: AL15/AL14 MGTREFCLK0_227,
# AK13/AK12 MGTREFCLK1_227, AP13/AP12 MGTREFCLK1_225.)
set_property PACKAGE_PIN AR15 [get_ports pcie_refclk_p] ;# MGTREFCLK0P_225
set_property PACKAGE_PIN AR14 [get_ports pcie_refclk_n] ;# MGTREFCLK0N_225
create_clock -period 10.000 -name pcie_refclk [get_ports pcie_refclk_p]
set_property -dict {PACKAGE_PIN BH26 IOSTANDARD LVCMOS18 PULLUP true} [get_ports pcie_perst_n]
set_false_path -from [get_ports pcie_perst_n]
set_input_delay 0 [get_ports pcie_perst_n]
