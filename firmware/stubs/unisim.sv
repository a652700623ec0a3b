// Behavioural stand-ins for the UNISIM primitives the board tops use, for
// elaboration without Vivado (tools/boards_check.sh). Ports and parameters as
// in AMD's UltraScale+ libraries guide (UG974); behaviour reduced to a wire
// (BUFGCE_DIV does not divide here). Never read by Vivado (build.tcl reads
// firmware/common and firmware/<board> only).
/* verilator lint_off UNUSEDPARAM */
/* verilator lint_off UNUSEDSIGNAL */

module IBUF (input logic I, output logic O);
    assign O = I;
endmodule

module IBUFDS (input logic I, input logic IB, output logic O);
    assign O = I;
endmodule

module BUFG (input logic I, output logic O);
    assign O = I;
endmodule

module BUFGCE_DIV #(parameter int BUFGCE_DIVIDE = 1) (
    input logic I, input logic CE, input logic CLR, output logic O
);
    assign O = I;
endmodule

module BUFG_GT (
    input logic I, input logic CE, input logic CEMASK, input logic CLR, input logic CLRMASK,
    input logic [2:0] DIV, output logic O
);
    assign O = I;
endmodule

module IBUFDS_GTE4 #(
    parameter logic [1:0] REFCLK_HROW_CK_SEL = 2'b00,
    parameter logic       REFCLK_EN_TX_PATH = 1'b0,
    parameter logic [1:0] REFCLK_ICNTL_RX = 2'b00
) (
    input logic I, input logic IB, input logic CEB, output logic O, output logic ODIV2
);
    assign O = I;
    assign ODIV2 = I;
endmodule
