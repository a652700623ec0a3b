# constraints/au2x0.xdc: pins, I/O standards and clocks of the Alveo U200 and U250 for firmware/au2x0/au2x0_top.sv
# parts: xcu200-fsgd2104-2-e, xcu250-figd2104-2-e (firmware/boards.txt)
#
# Sources of the pin facts (facts taken over, text written here):
#   corundum/corundum fpga/mqnic/Alveo/fpga_100g/fpga_au200.xdc (commit 7914445a; identical pins at cd7ec5d5 fpga/mqnic/AU200/fpga_100g/fpga.xdc), summarised in /work/shared/reference/spec_ecosystem.md part 3.
#   The U200 and U250 are the same card (same package pinout, fsgd2104 / figd2104); Corundum builds both
#   from that one file (fpga_AU250's Makefile sets FPGA_PART xcu250-figd2104-2-e).
#   Quad / channel sites: the same Corundum file's per-pin comments (GTYE4_CHANNEL/COMMON sites).
# Port names are this project's (firmware/au2x0/au2x0_top.sv); tools/boards_check.sh checks that every
# port named here is a port of the top.

# ---- configuration (Alveo U200/U250: CFGBVS GND, 1.8 V config bank, SPIx4 flash; Corundum au200 file) ----
set_property CFGBVS GND                                [current_design]
set_property CONFIG_VOLTAGE 1.8                        [current_design]
set_property BITSTREAM.GENERAL.COMPRESS TRUE           [current_design]
set_property BITSTREAM.CONFIG.CONFIGFALLBACK ENABLE    [current_design]
set_property BITSTREAM.CONFIG.EXTMASTERCCLK_EN DISABLE [current_design]
set_property BITSTREAM.CONFIG.CONFIGRATE 63.8          [current_design]
set_property BITSTREAM.CONFIG.SPI_32BIT_ADDR YES       [current_design]
set_property BITSTREAM.CONFIG.SPI_BUSWIDTH 4           [current_design]
set_property BITSTREAM.CONFIG.SPI_FALL_EDGE YES        [current_design]
set_property BITSTREAM.CONFIG.UNUSEDPIN PULLUP         [current_design]
set_property BITSTREAM.CONFIG.OVERTEMPSHUTDOWN Enable  [current_design]
set_operating_conditions -design_power_budget 160

# ---- free-running clock: 300 MHz LVDS (DDR4 channel 0 reference, AY37/AY38); divided to 100 MHz for the
# CMAC's init/DRP clock in the top (BUFGCE_DIV /3). The other 300 MHz inputs (AW20/AW19, F32/E32, J16/H16)
# are unused.
set_property -dict {PACKAGE_PIN AY37 IOSTANDARD LVDS} [get_ports clk_300mhz_p]
set_property -dict {PACKAGE_PIN AY38 IOSTANDARD LVDS} [get_ports clk_300mhz_n]
create_clock -period 3.333 -name clk_300mhz [get_ports clk_300mhz_p]

# ---- LEDs (LVCMOS12): led[0] QSFP0 link (CMAC RX aligned), led[1] PCIe link up, led[2] core clock heartbeat
set_property -dict {PACKAGE_PIN BC21 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[0]}]
set_property -dict {PACKAGE_PIN BB21 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[1]}]
set_property -dict {PACKAGE_PIN BA20 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {led[2]}]
set_false_path -to [get_ports {led[*]}]
set_output_delay 0 [get_ports {led[*]}]

# ---- QSFP0: GTY quad 231 (GTYE4_CHANNEL_X1Y48..X1Y51, COMMON_X1Y12), CMAC 100G CAUI-4 with RS-FEC
set_property PACKAGE_PIN N4    [get_ports {qsfp0_rx_p[0]}] ;# MGTYRXP0_231 GTYE4_CHANNEL_X1Y48 / GTYE4_COMMON_X1Y12
set_property PACKAGE_PIN N3    [get_ports {qsfp0_rx_n[0]}]
set_property PACKAGE_PIN N9    [get_ports {qsfp0_tx_p[0]}] ;# MGTYTXP0_231
set_property PACKAGE_PIN N8    [get_ports {qsfp0_tx_n[0]}]
set_property PACKAGE_PIN M2    [get_ports {qsfp0_rx_p[1]}] ;# MGTYRXP1_231 GTYE4_CHANNEL_X1Y49 / GTYE4_COMMON_X1Y12
set_property PACKAGE_PIN M1    [get_ports {qsfp0_rx_n[1]}]
set_property PACKAGE_PIN M7    [get_ports {qsfp0_tx_p[1]}] ;# MGTYTXP1_231
set_property PACKAGE_PIN M6    [get_ports {qsfp0_tx_n[1]}]
set_property PACKAGE_PIN L4    [get_ports {qsfp0_rx_p[2]}] ;# MGTYRXP2_231 GTYE4_CHANNEL_X1Y50 / GTYE4_COMMON_X1Y12
set_property PACKAGE_PIN L3    [get_ports {qsfp0_rx_n[2]}]
set_property PACKAGE_PIN L9    [get_ports {qsfp0_tx_p[2]}] ;# MGTYTXP2_231
set_property PACKAGE_PIN L8    [get_ports {qsfp0_tx_n[2]}]
set_property PACKAGE_PIN K2    [get_ports {qsfp0_rx_p[3]}] ;# MGTYRXP3_231 GTYE4_CHANNEL_X1Y51 / GTYE4_COMMON_X1Y12
set_property PACKAGE_PIN K1    [get_ports {qsfp0_rx_n[3]}]
set_property PACKAGE_PIN K7    [get_ports {qsfp0_tx_p[3]}] ;# MGTYTXP3_231
set_property PACKAGE_PIN K6    [get_ports {qsfp0_tx_n[3]}]
# reference clock: MGTREFCLK1_231 from the SI5335 (U9); FS = 0b10 selects 161.1328125 MHz (0b01 156.25 MHz).
# (MGTREFCLK0_231 M11/M10 is the SI570 path, 156.25 MHz, unused.)
set_property PACKAGE_PIN K11 [get_ports qsfp0_refclk_p] ;# MGTREFCLK1P_231
set_property PACKAGE_PIN K10 [get_ports qsfp0_refclk_n] ;# MGTREFCLK1N_231
create_clock -period 6.206 -name qsfp0_refclk [get_ports qsfp0_refclk_p]
# sideband (LVCMOS12)
set_property -dict {PACKAGE_PIN BE16 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports qsfp0_modsell]
set_property -dict {PACKAGE_PIN BE17 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports qsfp0_resetl]
set_property -dict {PACKAGE_PIN BE20 IOSTANDARD LVCMOS12 PULLUP true}       [get_ports qsfp0_modprsl]
set_property -dict {PACKAGE_PIN BE21 IOSTANDARD LVCMOS12 PULLUP true}       [get_ports qsfp0_intl]
set_property -dict {PACKAGE_PIN BD18 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports qsfp0_lpmode]
set_property -dict {PACKAGE_PIN AT22 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports qsfp0_refclk_reset]
set_property -dict {PACKAGE_PIN AT20 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {qsfp0_fs[0]}]
set_property -dict {PACKAGE_PIN AU22 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {qsfp0_fs[1]}]

# ---- QSFP1: GTY quad 230 (GTYE4_CHANNEL_X1Y44..X1Y47, COMMON_X1Y11). No MAC on this cage yet: its GT pins
# and reference clock are recorded here, commented out, for the second CMAC; its sideband is driven (module
# held in reset and low power).
# set_property PACKAGE_PIN U4    [get_ports {qsfp1_rx_p[0]}] ;# MGTYRXP0_230 GTYE4_CHANNEL_X1Y44 / GTYE4_COMMON_X1Y11
# set_property PACKAGE_PIN U3    [get_ports {qsfp1_rx_n[0]}]
# set_property PACKAGE_PIN U9    [get_ports {qsfp1_tx_p[0]}] ;# MGTYTXP0_230
# set_property PACKAGE_PIN U8    [get_ports {qsfp1_tx_n[0]}]
# set_property PACKAGE_PIN T2    [get_ports {qsfp1_rx_p[1]}] ;# MGTYRXP1_230 GTYE4_CHANNEL_X1Y45 / GTYE4_COMMON_X1Y11
# set_property PACKAGE_PIN T1    [get_ports {qsfp1_rx_n[1]}]
# set_property PACKAGE_PIN T7    [get_ports {qsfp1_tx_p[1]}] ;# MGTYTXP1_230
# set_property PACKAGE_PIN T6    [get_ports {qsfp1_tx_n[1]}]
# set_property PACKAGE_PIN R4    [get_ports {qsfp1_rx_p[2]}] ;# MGTYRXP2_230 GTYE4_CHANNEL_X1Y46 / GTYE4_COMMON_X1Y11
# set_property PACKAGE_PIN R3    [get_ports {qsfp1_rx_n[2]}]
# set_property PACKAGE_PIN R9    [get_ports {qsfp1_tx_p[2]}] ;# MGTYTXP2_230
# set_property PACKAGE_PIN R8    [get_ports {qsfp1_tx_n[2]}]
# set_property PACKAGE_PIN P2    [get_ports {qsfp1_rx_p[3]}] ;# MGTYRXP3_230 GTYE4_CHANNEL_X1Y47 / GTYE4_COMMON_X1Y11
# set_property PACKAGE_PIN P1    [get_ports {qsfp1_rx_n[3]}]
# set_property PACKAGE_PIN P7    [get_ports {qsfp1_tx_p[3]}] ;# MGTYTXP3_230
# set_property PACKAGE_PIN P6    [get_ports {qsfp1_tx_n[3]}]
# set_property PACKAGE_PIN P11 [get_ports qsfp1_refclk_p] ;# MGTREFCLK1P_230 from the SI5335 (U12)
# set_property PACKAGE_PIN P10 [get_ports qsfp1_refclk_n] ;# MGTREFCLK1N_230 (MGTREFCLK0_230 T11/T10: SI570 path)
# create_clock -period 6.206 -name qsfp1_refclk [get_ports qsfp1_refclk_p]
set_property -dict {PACKAGE_PIN AY20 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports qsfp1_modsell]
set_property -dict {PACKAGE_PIN BC18 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports qsfp1_resetl]
set_property -dict {PACKAGE_PIN BC19 IOSTANDARD LVCMOS12 PULLUP true}       [get_ports qsfp1_modprsl]
set_property -dict {PACKAGE_PIN AV21 IOSTANDARD LVCMOS12 PULLUP true}       [get_ports qsfp1_intl]
set_property -dict {PACKAGE_PIN AV22 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports qsfp1_lpmode]
set_property -dict {PACKAGE_PIN AR21 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports qsfp1_refclk_reset]
set_property -dict {PACKAGE_PIN AR22 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {qsfp1_fs[0]}]
set_property -dict {PACKAGE_PIN AU20 IOSTANDARD LVCMOS12 SLEW SLOW DRIVE 8} [get_ports {qsfp1_fs[1]}]

set_false_path -to [get_ports {qsfp0_modsell qsfp0_resetl qsfp0_lpmode qsfp0_refclk_reset qsfp0_fs[*] qsfp1_modsell qsfp1_resetl qsfp1_lpmode qsfp1_refclk_reset qsfp1_fs[*]}]
set_output_delay 0 [get_ports {qsfp0_modsell qsfp0_resetl qsfp0_lpmode qsfp0_refclk_reset qsfp0_fs[*] qsfp1_modsell qsfp1_resetl qsfp1_lpmode qsfp1_refclk_reset qsfp1_fs[*]}]
set_false_path -from [get_ports {qsfp0_modprsl qsfp0_intl qsfp1_modprsl qsfp1_intl}]
set_input_delay 0 [get_ports {qsfp0_modprsl qsfp0_intl qsfp1_modprsl qsfp1_intl}]

# ---- PCIe Gen3 x16: GTY quads 227..224 (GTYE4_CHANNEL_X1Y35..X1Y20); lane 0 is quad 227 channel 3
set_property PACKAGE_PIN AF2   [get_ports {pcie_rx_p[0]}] ;# MGTYRXP3_227 GTYE4_CHANNEL_X1Y35 / GTYE4_COMMON_X1Y8
set_property PACKAGE_PIN AF1   [get_ports {pcie_rx_n[0]}]
set_property PACKAGE_PIN AF7   [get_ports {pcie_tx_p[0]}] ;# MGTYTXP3_227
set_property PACKAGE_PIN AF6   [get_ports {pcie_tx_n[0]}]
set_property PACKAGE_PIN AG4   [get_ports {pcie_rx_p[1]}] ;# MGTYRXP2_227 GTYE4_CHANNEL_X1Y34 / GTYE4_COMMON_X1Y8
set_property PACKAGE_PIN AG3   [get_ports {pcie_rx_n[1]}]
set_property PACKAGE_PIN AG9   [get_ports {pcie_tx_p[1]}] ;# MGTYTXP2_227
set_property PACKAGE_PIN AG8   [get_ports {pcie_tx_n[1]}]
set_property PACKAGE_PIN AH2   [get_ports {pcie_rx_p[2]}] ;# MGTYRXP1_227 GTYE4_CHANNEL_X1Y33 / GTYE4_COMMON_X1Y8
set_property PACKAGE_PIN AH1   [get_ports {pcie_rx_n[2]}]
set_property PACKAGE_PIN AH7   [get_ports {pcie_tx_p[2]}] ;# MGTYTXP1_227
set_property PACKAGE_PIN AH6   [get_ports {pcie_tx_n[2]}]
set_property PACKAGE_PIN AJ4   [get_ports {pcie_rx_p[3]}] ;# MGTYRXP0_227 GTYE4_CHANNEL_X1Y32 / GTYE4_COMMON_X1Y8
set_property PACKAGE_PIN AJ3   [get_ports {pcie_rx_n[3]}]
set_property PACKAGE_PIN AJ9   [get_ports {pcie_tx_p[3]}] ;# MGTYTXP0_227
set_property PACKAGE_PIN AJ8   [get_ports {pcie_tx_n[3]}]
set_property PACKAGE_PIN AK2   [get_ports {pcie_rx_p[4]}] ;# MGTYRXP3_226 GTYE4_CHANNEL_X1Y31 / GTYE4_COMMON_X1Y7
set_property PACKAGE_PIN AK1   [get_ports {pcie_rx_n[4]}]
set_property PACKAGE_PIN AK7   [get_ports {pcie_tx_p[4]}] ;# MGTYTXP3_226
set_property PACKAGE_PIN AK6   [get_ports {pcie_tx_n[4]}]
set_property PACKAGE_PIN AL4   [get_ports {pcie_rx_p[5]}] ;# MGTYRXP2_226 GTYE4_CHANNEL_X1Y30 / GTYE4_COMMON_X1Y7
set_property PACKAGE_PIN AL3   [get_ports {pcie_rx_n[5]}]
set_property PACKAGE_PIN AL9   [get_ports {pcie_tx_p[5]}] ;# MGTYTXP2_226
set_property PACKAGE_PIN AL8   [get_ports {pcie_tx_n[5]}]
set_property PACKAGE_PIN AM2   [get_ports {pcie_rx_p[6]}] ;# MGTYRXP1_226 GTYE4_CHANNEL_X1Y29 / GTYE4_COMMON_X1Y7
set_property PACKAGE_PIN AM1   [get_ports {pcie_rx_n[6]}]
set_property PACKAGE_PIN AM7   [get_ports {pcie_tx_p[6]}] ;# MGTYTXP1_226
set_property PACKAGE_PIN AM6   [get_ports {pcie_tx_n[6]}]
set_property PACKAGE_PIN AN4   [get_ports {pcie_rx_p[7]}] ;# MGTYRXP0_226 GTYE4_CHANNEL_X1Y28 / GTYE4_COMMON_X1Y7
set_property PACKAGE_PIN AN3   [get_ports {pcie_rx_n[7]}]
set_property PACKAGE_PIN AN9   [get_ports {pcie_tx_p[7]}] ;# MGTYTXP0_226
set_property PACKAGE_PIN AN8   [get_ports {pcie_tx_n[7]}]
set_property PACKAGE_PIN AP2   [get_ports {pcie_rx_p[8]}] ;# MGTYRXP3_225 GTYE4_CHANNEL_X1Y27 / GTYE4_COMMON_X1Y6
set_property PACKAGE_PIN AP1   [get_ports {pcie_rx_n[8]}]
set_property PACKAGE_PIN AP7   [get_ports {pcie_tx_p[8]}] ;# MGTYTXP3_225
set_property PACKAGE_PIN AP6   [get_ports {pcie_tx_n[8]}]
set_property PACKAGE_PIN AR4   [get_ports {pcie_rx_p[9]}] ;# MGTYRXP2_225 GTYE4_CHANNEL_X1Y26 / GTYE4_COMMON_X1Y6
set_property PACKAGE_PIN AR3   [get_ports {pcie_rx_n[9]}]
set_property PACKAGE_PIN AR9   [get_ports {pcie_tx_p[9]}] ;# MGTYTXP2_225
set_property PACKAGE_PIN AR8   [get_ports {pcie_tx_n[9]}]
set_property PACKAGE_PIN AT2   [get_ports {pcie_rx_p[10]}] ;# MGTYRXP1_225 GTYE4_CHANNEL_X1Y25 / GTYE4_COMMON_X1Y6
set_property PACKAGE_PIN AT1   [get_ports {pcie_rx_n[10]}]
set_property PACKAGE_PIN AT7   [get_ports {pcie_tx_p[10]}] ;# MGTYTXP1_225
set_property PACKAGE_PIN AT6   [get_ports {pcie_tx_n[10]}]
set_property PACKAGE_PIN AU4   [get_ports {pcie_rx_p[11]}] ;# MGTYRXP0_225 GTYE4_CHANNEL_X1Y24 / GTYE4_COMMON_X1Y6
set_property PACKAGE_PIN AU3   [get_ports {pcie_rx_n[11]}]
set_property PACKAGE_PIN AU9   [get_ports {pcie_tx_p[11]}] ;# MGTYTXP0_225
set_property PACKAGE_PIN AU8   [get_ports {pcie_tx_n[11]}]
set_property PACKAGE_PIN AV2   [get_ports {pcie_rx_p[12]}] ;# MGTYRXP3_224 GTYE4_CHANNEL_X1Y23 / GTYE4_COMMON_X1Y5
set_property PACKAGE_PIN AV1   [get_ports {pcie_rx_n[12]}]
set_property PACKAGE_PIN AV7   [get_ports {pcie_tx_p[12]}] ;# MGTYTXP3_224
set_property PACKAGE_PIN AV6   [get_ports {pcie_tx_n[12]}]
set_property PACKAGE_PIN AW4   [get_ports {pcie_rx_p[13]}] ;# MGTYRXP2_224 GTYE4_CHANNEL_X1Y22 / GTYE4_COMMON_X1Y5
set_property PACKAGE_PIN AW3   [get_ports {pcie_rx_n[13]}]
set_property PACKAGE_PIN BB5   [get_ports {pcie_tx_p[13]}] ;# MGTYTXP2_224
set_property PACKAGE_PIN BB4   [get_ports {pcie_tx_n[13]}]
set_property PACKAGE_PIN BA2   [get_ports {pcie_rx_p[14]}] ;# MGTYRXP1_224 GTYE4_CHANNEL_X1Y21 / GTYE4_COMMON_X1Y5
set_property PACKAGE_PIN BA1   [get_ports {pcie_rx_n[14]}]
set_property PACKAGE_PIN BD5   [get_ports {pcie_tx_p[14]}] ;# MGTYTXP1_224
set_property PACKAGE_PIN BD4   [get_ports {pcie_tx_n[14]}]
set_property PACKAGE_PIN BC2   [get_ports {pcie_rx_p[15]}] ;# MGTYRXP0_224 GTYE4_CHANNEL_X1Y20 / GTYE4_COMMON_X1Y5
set_property PACKAGE_PIN BC1   [get_ports {pcie_rx_n[15]}]
set_property PACKAGE_PIN BF5   [get_ports {pcie_tx_p[15]}] ;# MGTYTXP0_224
set_property PACKAGE_PIN BF4   [get_ports {pcie_tx_n[15]}]
# reference clock: MGTREFCLK0_226, 100 MHz from the edge connector
set_property PACKAGE_PIN AM11 [get_ports pcie_refclk_p] ;# MGTREFCLK0P_226
set_property PACKAGE_PIN AM10 [get_ports pcie_refclk_n] ;# MGTREFCLK0N_226
create_clock -period 10.000 -name pcie_refclk [get_ports pcie_refclk_p]
# PERST# from the edge connector
set_property -dict {PACKAGE_PIN BD21 IOSTANDARD LVCMOS12 PULLUP true} [get_ports pcie_perst_n]
set_false_path -from [get_ports pcie_perst_n]
set_input_delay 0 [get_ports pcie_perst_n]
