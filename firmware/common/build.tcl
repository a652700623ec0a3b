# Vivado non-project build of one Alveo board image (issue 15, item 3).
#   vivado -mode batch -source firmware/common/build.tcl -tclargs BOARD VERILOG_DIR OUT_DIR
# (`make bitstream BOARD=au250` runs it.) Steps: the board's vendor IP
# (firmware/<layout>/ip.tcl, the layout from firmware/boards.txt) generated and synthesised out of context; the
# sources read (the emitted rnic_core, firmware/common, the board top) and
# the board's constraints; synth_design, opt, place, phys_opt, route; timing
# summary, utilization, clock-interaction and DRC reports into OUT_DIR; the
# timing summary read back (firmware/common/timing.tcl) and the build stopped
# without a bitstream when setup, hold or pulse-width slack is negative;
# then write_bitstream (JTAG image; no flash image: docs/boards.md).

if {[llength $argv] != 3} {
    puts stderr "usage: vivado -mode batch -source build.tcl -tclargs BOARD VERILOG_DIR OUT_DIR"
    exit 2
}
lassign $argv board vdir out
set fw [file normalize [file join [file dirname [info script]] ..]]
# the board table: board -> {part layout}
set boards {}
set f [open [file join $fw boards.txt]]
foreach line [split [read $f] "\n"] {
    if {[regexp {^\s*#} $line] || [llength $line] != 3} continue
    dict set boards [lindex $line 0] [lrange $line 1 2]
}
close $f
if {![dict exists $boards $board]} {
    puts stderr "build.tcl: unknown board '$board' (one of: [dict keys $boards])"
    exit 2
}
lassign [dict get $boards $board] part layout
set root [file normalize [file join $fw ..]]
set vdir [file normalize $vdir]
set out [file normalize $out]
file mkdir $out
source [file join $fw common timing.tcl]

puts "== $board: part $part, output in $out"
create_project -in_memory -part $part
set_property target_language Verilog [current_project]

# vendor IP, out of context, in $out/ip
set rnic_ip_dir [file join $out ip]
file mkdir $rnic_ip_dir
source [file join $fw $layout ip.tcl]
foreach ip [get_ips] { synth_ip $ip }

# sources: the emitted core, the shared board glue, the board top (never firmware/stubs)
read_verilog -sv [file join $vdir rnic_core.sv]
read_verilog -sv [glob [file join $fw common *.sv]]
read_verilog -sv [file join $fw $layout ${layout}_top.sv]
read_xdc [file join $root constraints $layout.xdc]

synth_design -top ${layout}_top -part $part
write_checkpoint -force [file join $out post_synth.dcp]
report_utilization -file [file join $out utilization_synth.rpt]
opt_design
place_design
phys_opt_design
route_design
write_checkpoint -force [file join $out post_route.dcp]

set summary [file join $out timing_summary.rpt]
report_timing_summary -max_paths 20 -report_unconstrained -file $summary
report_utilization -file [file join $out utilization.rpt]
report_utilization -hierarchical -file [file join $out utilization_hier.rpt]
report_clock_interaction -file [file join $out clock_interaction.rpt]
report_drc -file [file join $out drc.rpt]

set verdict [rnic_timing_check $summary]
if {$verdict ne ""} {
    puts stderr "build.tcl: $board FAILS timing: $verdict (see $summary); no bitstream written"
    exit 1
}
puts "== $board: timing met ([rnic_timing_summary $summary])"

write_bitstream -force [file join $out ${board}_rnic.bit]
puts "== $board: [file join $out ${board}_rnic.bit]"
exit 0
