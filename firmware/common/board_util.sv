// Board-level reset helpers shared by the Alveo tops (firmware/<board>/).
//
// rnic_rst_sync: an asynchronously asserted, synchronously released reset for
//   the clock `clk` (STAGES flip-flops, ASYNC_REG so Vivado places them
//   together and treats the first as a synchroniser).
// rnic_por: a power-on reset for a free-running clock: `rst` is high for
//   2^BITS cycles after configuration, then low for good.

module rnic_rst_sync #(
    parameter int STAGES = 3
) (
    input  logic clk,
    input  logic rst_in,   // asynchronous, active high
    output logic rst_out   // synchronous to clk, active high
);
    (* ASYNC_REG = "TRUE" *) logic [STAGES-1:0] sync = '1;
    always_ff @(posedge clk or posedge rst_in) begin
        if (rst_in) sync <= '1;
        else sync <= {sync[STAGES-2:0], 1'b0};
    end
    assign rst_out = sync[STAGES-1];
endmodule

module rnic_por #(
    parameter int BITS = 12
) (
    input  logic clk,
    output logic rst
);
    logic [BITS:0] count = '0;
    always_ff @(posedge clk) begin
        if (!count[BITS]) count <= count + 1'b1;
    end
    assign rst = !count[BITS];
endmodule
