# tclsh firmware/common/test/timing_check_test.tcl: the timing-summary reader
# on a met and a failed sample report; exits non-zero on a wrong verdict.
set here [file dirname [info script]]
source [file join $here .. timing.tcl]
set ok 1
set met [rnic_timing_check [file join $here timing_met.rpt]]
if {$met ne ""} { puts "timing_check: met sample refused: $met"; set ok 0 }
set s [rnic_timing_summary [file join $here timing_met.rpt]]
if {[dict get $s wns] != 0.112 || [dict get $s whs] != 0.010 || [dict get $s wpws] != 0.264} {
    puts "timing_check: met sample read wrong: $s"; set ok 0
}
set failed [rnic_timing_check [file join $here timing_failed.rpt]]
if {![string match "setup slack -0.231 ns (total -12.874 ns)" $failed]} {
    puts "timing_check: failed sample verdict wrong: '$failed'"; set ok 0
}
if {![catch {rnic_timing_summary [file join $here timing_check_test.tcl]}]} {
    puts "timing_check: a file without the table was read"; set ok 0
}
if {$ok} { puts "timing_check ok (met sample passes, -0.231 ns setup refused)" }
exit [expr {!$ok}]
