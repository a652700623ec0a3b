// Placeholders for the host boundary while rnic_core has only its MAC streams.
// Each one goes away when rnic_core gets the matching HostIf port
// (docs/core.md, "Ports"; docs/host.md, "Mapping onto AMD QDMA / XDMA"):
//
// rnic_axil_tieoff: an AXI4-Lite slave for the DMA IP's BAR master. Every
//   write is taken and answered OKAY; every read answers OKAY with RDATA, so
//   the host sees a fixed pattern, never a hung BAR. Replaced by rnic_core's
//   `s_axil` (the register file).
// rnic_axi_tieoff: an AXI4 slave for the DMA IP's memory-mapped master (the
//   data side of H2C/C2H descriptors). Takes one burst at a time and answers
//   SLVERR: writes after their last beat, reads with ARLEN+1 zero beats.
//   Replaced by the descriptor-bypass adapter between the IP and rnic_core's
//   `m_dma_rd_req` / `s_dma_rd_data` / `m_dma_wr` / `s_dma_wr_cpl`.
// Every output is a register.

module rnic_axil_tieoff #(
    parameter logic [31:0] RDATA = 32'hFFFF_FFFF
) (
    input  logic        clk,
    input  logic        rst,
    input  logic [31:0] awaddr,
    input  logic        awvalid,
    output logic        awready,
    input  logic [31:0] wdata,
    input  logic [3:0]  wstrb,
    input  logic        wvalid,
    output logic        wready,
    output logic [1:0]  bresp,
    output logic        bvalid,
    input  logic        bready,
    input  logic [31:0] araddr,
    input  logic        arvalid,
    output logic        arready,
    output logic [31:0] rdata,
    output logic [1:0]  rresp,
    output logic        rvalid,
    input  logic        rready
);
    // A write is taken when address and data are both there and no response waits.
    always_ff @(posedge clk) begin
        if (rst) begin
            awready <= 1'b0;
            wready  <= 1'b0;
            bvalid  <= 1'b0;
            arready <= 1'b0;
            rvalid  <= 1'b0;
        end else begin
            awready <= 1'b0;
            wready  <= 1'b0;
            arready <= 1'b0;
            if (bvalid && bready) bvalid <= 1'b0;
            if (awvalid && wvalid && !awready && !bvalid) begin
                awready <= 1'b1;
                wready  <= 1'b1;
                bvalid  <= 1'b1;
            end
            if (rvalid && rready) rvalid <= 1'b0;
            if (arvalid && !arready && !rvalid) begin
                arready <= 1'b1;
                rvalid  <= 1'b1;
            end
        end
    end
    assign bresp = 2'b00;
    assign rresp = 2'b00;
    assign rdata = RDATA;
endmodule

module rnic_axi_tieoff #(
    parameter int DATA = 512,
    parameter int ID = 4,
    parameter int ADDR = 64
) (
    input  logic              clk,
    input  logic              rst,
    input  logic [ID-1:0]     awid,
    input  logic [ADDR-1:0]   awaddr,
    input  logic [7:0]        awlen,
    input  logic              awvalid,
    output logic              awready,
    input  logic [DATA-1:0]   wdata,
    input  logic [DATA/8-1:0] wstrb,
    input  logic              wlast,
    input  logic              wvalid,
    output logic              wready,
    output logic [ID-1:0]     bid,
    output logic [1:0]        bresp,
    output logic              bvalid,
    input  logic              bready,
    input  logic [ID-1:0]     arid,
    input  logic [ADDR-1:0]   araddr,
    input  logic [7:0]        arlen,
    input  logic              arvalid,
    output logic              arready,
    output logic [ID-1:0]     rid,
    output logic [DATA-1:0]   rdata,
    output logic [1:0]        rresp,
    output logic              rlast,
    output logic              rvalid,
    input  logic              rready
);
    logic       w_busy;      // a write burst's address taken, its data not all in
    logic       r_busy;      // a read burst being answered
    logic [7:0] r_left;      // beats after the current one
    always_ff @(posedge clk) begin
        if (rst) begin
            awready <= 1'b0;
            wready  <= 1'b0;
            bvalid  <= 1'b0;
            w_busy  <= 1'b0;
            bid     <= '0;
            arready <= 1'b0;
            rvalid  <= 1'b0;
            rlast   <= 1'b0;
            r_busy  <= 1'b0;
            r_left  <= '0;
            rid     <= '0;
        end else begin
            // writes: one burst at a time; B after the last beat
            awready <= !w_busy && !bvalid && awvalid && !awready;
            if (awvalid && awready) begin
                w_busy <= 1'b1;
                bid    <= awid;
                wready <= 1'b1;
            end
            if (wvalid && wready && wlast) begin
                wready <= 1'b0;
                w_busy <= 1'b0;
                bvalid <= 1'b1;
            end
            if (bvalid && bready) bvalid <= 1'b0;
            // reads: ARLEN+1 beats of zeros
            arready <= !r_busy && arvalid && !arready;
            if (arvalid && arready) begin
                r_busy <= 1'b1;
                rid    <= arid;
                r_left <= arlen;
                rvalid <= 1'b1;
                rlast  <= (arlen == 8'd0);
            end else if (rvalid && rready) begin
                if (rlast) begin
                    rvalid <= 1'b0;
                    rlast  <= 1'b0;
                    r_busy <= 1'b0;
                end else begin
                    r_left <= r_left - 8'd1;
                    rlast  <= (r_left == 8'd1);
                end
            end
        end
    end
    assign bresp = 2'b10;
    assign rresp = 2'b10;
    assign rdata = '0;
endmodule
