//! Every block the project emits, tests and benchmarks, by name.
//!
//! The Verilator harness builds one model per entry, the differential test
//! checks each one against rust-hdl's simulator, and `make lint`/`make synth`
//! gate each one. A new block joins all of that by being listed here.

use rust_hdl::prelude::Block;

pub struct CatalogEntry {
    /// Verilog top-module and model name.
    pub name: &'static str,
    /// Rust type, as written in this crate (`crate::` prefix).
    pub rust_type: &'static str,
    pub make: fn() -> Box<dyn Block>,
    /// Cycles the differential test runs per case (rust-hdl's simulator is slow on wide designs).
    pub diff_cycles: usize,
}

macro_rules! catalog {
    ($($name:ident => $ty:ty, $cycles:expr;)*) => {
        pub fn catalog() -> Vec<CatalogEntry> {
            vec![$(CatalogEntry {
                name: stringify!($name),
                rust_type: stringify!($ty),
                make: || {
                    let mut b = <$ty>::default();
                    b.connect_all();
                    Box::new(b)
                },
                diff_cycles: $cycles,
            }),*]
        }
    };
}

catalog! {
    sem_patterns => crate::sem::SemPatterns, 400;
    wide_patterns => crate::sem::WidePatterns, 60;
    index_patterns => crate::sem::IndexPatterns, 300;
    signed_patterns => crate::sem::SignedPatterns, 300;
    child_patterns => crate::sem::ChildPatterns, 300;
    struct_patterns => crate::sem::StructPatterns, 300;
    match_patterns => crate::sem::MatchPatterns, 300;
    axis_reg_slice => crate::axis::AxisRegSlice<512, 64, 1>, 200;
    axis_skid_buffer => crate::axis::AxisSkidBuffer<512, 64, 1>, 200;
    axis_fifo => crate::axis::AxisFifo<512, 64, 1, 4>, 200;
    pkt_reg_slice => crate::axis::PktRegSlice<256, 512, 64, 1>, 150;
    axis_realign => crate::axis::AxisRealign, 200;
    axis_pipeline => crate::core::AxisPipeline<20>, 20;
    rnic_core => crate::core::RnicCore, 10;
    crc_fold_part => crate::wire::CrcFoldPart, 40;
    crc_ahead64 => crate::wire::CrcAhead<64>, 200;
    icrc_residue => crate::wire::IcrcResidue, 200;
    icrc_check => crate::wire::IcrcCheck, 30;
    icrc_gen => crate::wire::IcrcGen, 30;
    rx_header_decode => crate::wire::RxHeaderDecode, 30;
    rx_parse => crate::wire::RxParse, 25;
    opcode_info => crate::wire::OpcodeInfo, 100;
    crc_back4 => crate::wire::CrcBack<4>, 50;
    tx_build => crate::wire::TxBuild, 25;
    rr_arb4 => crate::host::RrArb4, 300;
    dma_engine => crate::host::DmaEngine, 60;
    dma_rd_mux => crate::host::DmaRdMux<4>, 200;
    dma_wr_mux => crate::host::DmaWrMux<5>, 200;
    reg_file => crate::host::RegFile, 100;
    cq_engine => crate::host::CqEngine, 100;
    ctx_engine => crate::host::CtxEngine, 100;
    host_if => crate::host::HostIf, 40;
    mac_rx_fifo => crate::mac::MacRxFifo, 200;
    mac_addr_filter => crate::mac::MacAddrFilter, 300;
    mac_tx_fifo => crate::mac::MacTxFifo, 200;
    rx_pause => crate::mac::RxPause<6, 4>, 300;
    counter64 => crate::mac::Counter64, 300;
    mr_check => crate::mr::MrCheck, 200;
    qpc_cache => crate::host::CtxCache<1024, 128, 10>, 40;
    mtt_cache => crate::host::CtxCache<512, 64, 8>, 60;
    // host_if's transport-state cache: its own design, so host_if's synthesis boxes it as it does qpc_cache
    qps_cache => crate::host::CtxCache<512, 64, 10>, 60;
    ctx_port_mux => crate::host::CtxPortMux<512, 64, 3>, 200;
    qp_modify => crate::host::QpModify, 40;
    qp_admit => crate::host::QpAdmit, 300;
    mr_xlate => crate::mr::MrXlate, 20;
    axis_join => crate::transport::AxisJoin, 200;
    payload_gather => crate::transport::PayloadGather, 100;
    payload_scatter => crate::transport::PayloadScatter, 100;
    send_sched => crate::transport::SendSched<14, 15>, 300;
    work_merge => crate::transport::WorkMerge<14>, 300;
    tx_arb => crate::transport::TxArb, 100;
    rx_hold => crate::transport::RxHold, 100;
    inflight => crate::transport::InflightTable, 300;
    req_gen => crate::transport::ReqGen, 100;
    req_fetch => crate::transport::ReqFetch, 100;
    sq_window => crate::transport::SqWindow, 300;
    sq_ahead => crate::transport::SqAhead, 200;
    req_payload => crate::transport::ReqPayload, 100;
    req_tx => crate::transport::ReqTx, 20;
    retry_timer => crate::transport::RetryTimer<14, 15, 10>, 300;
    rewind_table => crate::transport::RewindTable<14>, 300;
    arm_merge => crate::transport::ArmMerge, 300;
    ack_gen => crate::transport::AckGen, 100;
    resp_gen => crate::transport::RespGen, 100;
    resp_tx => crate::transport::RespTx, 20;
    read_ahead => crate::transport::ReadAhead, 200;
    read_walk => crate::transport::ReadWalk, 200;
    resp_check => crate::transport::RespCheck, 200;
    resp_exec => crate::transport::RespExec, 200;
    exec_side => crate::transport::ExecSide, 200;
    xlate_ahead => crate::transport::XlateAhead, 200;
    ack_hold => crate::transport::AckHold, 200;
    atomic_exec => crate::transport::AtomicExec, 300;
    replay_table => crate::transport::ReplayTable, 300;
    comp_ack => crate::transport::CompAck, 200;
    comp_read => crate::transport::CompRead, 200;
    rx_lookup => crate::transport::RxLookup, 200;
    rx_pay_split => crate::transport::RxPaySplit, 200;
    xlate_mux => crate::mr::XlateMux<3>, 200;
    inflight_mux => crate::transport::InflightMux, 200;
    cqe_merge => crate::transport::CqeMerge, 200;
    completer => crate::transport::Completer, 60;
    responder => crate::transport::Responder, 60;
}

/// Look an entry up by name.
pub fn find(name: &str) -> Option<CatalogEntry> {
    catalog().into_iter().find(|e| e.name == name)
}

/// Emit a catalog block as SystemVerilog, with the contract's named
/// constants ([`crate::consts::NAMED`]) resolved.
///
/// Runs on a thread of its own with [`BUILD_STACK`]: a large design (the
/// core) is built by value, deeper than a main thread's stack.
pub fn emit(e: &CatalogEntry) -> Result<hdl_emit::Design, hdl_emit::EmitError> {
    with_stack(|| {
        let block = (e.make)();
        hdl_emit::emit_with_consts(&*block, e.name, crate::consts::NAMED)
    })
}

/// Stack for building and walking a catalog design (`rnic_core` needs more
/// than the default 8 MiB in a debug build).
pub const BUILD_STACK: usize = 1 << 30;

/// Runs `f` on a thread with [`BUILD_STACK`] bytes of stack.
pub fn with_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(BUILD_STACK)
            .spawn_scoped(s, f)
            .expect("cannot start a thread")
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
    })
}
