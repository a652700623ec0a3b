// Behavioural stand-in for XPM's xpm_fifo_axis (UG974): the ports and
// parameters the board tops use; a wire from s_axis to m_axis (no storage, no
// clock crossing). For elaboration only (tools/boards_check.sh); Vivado uses
// the XPM library's own.
/* verilator lint_off UNUSEDPARAM */
/* verilator lint_off UNUSEDSIGNAL */
module xpm_fifo_axis #(
    parameter        CLOCKING_MODE = "common_clock",
    parameter int    FIFO_DEPTH = 2048,
    parameter        FIFO_MEMORY_TYPE = "auto",
    parameter        PACKET_FIFO = "false",
    parameter int    TDATA_WIDTH = 32,
    parameter int    TUSER_WIDTH = 1,
    parameter int    CDC_SYNC_STAGES = 2
) (
    input  logic                     s_aclk,
    input  logic                     s_aresetn,
    input  logic                     m_aclk,
    input  logic                     s_axis_tvalid,
    output logic                     s_axis_tready,
    input  logic [TDATA_WIDTH-1:0]   s_axis_tdata,
    input  logic [TDATA_WIDTH/8-1:0] s_axis_tkeep,
    input  logic                     s_axis_tlast,
    input  logic [TUSER_WIDTH-1:0]   s_axis_tuser,
    output logic                     m_axis_tvalid,
    input  logic                     m_axis_tready,
    output logic [TDATA_WIDTH-1:0]   m_axis_tdata,
    output logic [TDATA_WIDTH/8-1:0] m_axis_tkeep,
    output logic                     m_axis_tlast,
    output logic [TUSER_WIDTH-1:0]   m_axis_tuser
);
    assign m_axis_tvalid = s_axis_tvalid && s_aresetn;
    assign s_axis_tready = m_axis_tready && s_aresetn;
    assign m_axis_tdata  = s_axis_tdata;
    assign m_axis_tkeep  = s_axis_tkeep;
    assign m_axis_tlast  = s_axis_tlast;
    assign m_axis_tuser  = s_axis_tuser;
endmodule
