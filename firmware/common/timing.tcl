# Reading Vivado's report_timing_summary: the "Design Timing Summary" table.
# Plain Tcl (no Vivado commands), so tools/boards_check.sh tests it with tclsh
# on the samples in firmware/common/test/.
#
# rnic_timing_summary PATH -> dict {wns .. tns .. whs .. ths .. wpws .. tpws ..}
#   (numbers in ns; "NA" where Vivado prints NA); an error when the table is
#   not in the file.
# rnic_timing_check PATH -> "" when setup, hold and pulse-width slack are all
#   >= 0, else a sentence saying which is negative (or NA: no timed paths,
#   i.e. the clocks are not constrained).

proc rnic_timing_summary {path} {
    set f [open $path r]
    set lines [split [read $f] "\n"]
    close $f
    set n [llength $lines]
    for {set i 0} {$i < $n} {incr i} {
        if {[regexp {^\s*WNS\(ns\)\s+TNS\(ns\)} [lindex $lines $i]]} {
            # the header, a line of dashes, then the figures
            for {set j [expr {$i + 1}]} {$j < $n} {incr j} {
                set row [string trim [lindex $lines $j]]
                if {$row eq "" || [regexp {^-+(\s+-+)*$} $row]} { continue }
                set v [regexp -all -inline {\S+} $row]
                if {[llength $v] < 12} { error "$path: timing summary row has [llength $v] fields: $row" }
                return [dict create wns [lindex $v 0] tns [lindex $v 1] whs [lindex $v 4] \
                            ths [lindex $v 5] wpws [lindex $v 8] tpws [lindex $v 9]]
            }
        }
    }
    error "$path: no Design Timing Summary table (WNS(ns) header) found"
}

proc rnic_timing_check {path} {
    set s [rnic_timing_summary $path]
    set bad {}
    foreach {key tkey what} {wns tns setup whs ths hold wpws tpws pulse-width} {
        set v [dict get $s $key]
        if {$v eq "NA"} {
            lappend bad "$what slack NA (no timed paths: unconstrained clocks?)"
        } elseif {![string is double -strict $v]} {
            lappend bad "$what slack '$v' is not a number"
        } elseif {$v < 0} {
            lappend bad "$what slack $v ns (total [dict get $s $tkey] ns)"
        }
    }
    return [join $bad "; "]
}
