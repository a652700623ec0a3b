//! The core's top level, as far as it is built.
//!
//! Today it holds the stream infrastructure every later stage plugs into: a
//! receive FIFO from the MAC side and a pipeline of skid buffers back to the
//! transmit side. The packet parser, builder and transport replace the
//! loopback as their issues land.

use crate::axis::{AxisFifo, AxisIn, AxisOut, AxisSkidBuffer, DATA_BITS as D, KEEP_BITS as K};
use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

/// `N` skid buffers in a row: the throughput and simulation-speed benchmark
/// design (20 stages of 512-bit beats are about 23k flip-flops).
#[derive(LogicBlock)]
pub struct AxisPipeline<const N: usize> {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis: AxisIn<D, K, 1>,
    pub m_axis: AxisOut<D, K, 1>,
    stages: [AxisSkidBuffer<D, K, 1>; N],
    kind: TypeTag<Self>,
}

impl<const N: usize> Default for AxisPipeline<N> {
    fn default() -> Self {
        Self {
            clock: Default::default(),
            reset: Default::default(),
            s_axis: Default::default(),
            m_axis: Default::default(),
            stages: std::array::from_fn(|_| Default::default()),
            kind: Default::default(),
        }
    }
}

impl<const N: usize> Logic for AxisPipeline<N> {
    #[hdl_gen]
    fn update(&mut self) {
        for i in 0..N {
            self.stages[i].clock.next = self.clock.val();
            self.stages[i].reset.next = self.reset.val();
        }
        AxisIn::<D, K, 1>::link(&mut self.s_axis, &mut self.stages[0].s_axis);
        for i in 0..(N - 1) {
            AxisOut::<D, K, 1>::join(&mut self.stages[i].m_axis, &mut self.stages[i + 1].s_axis);
        }
        for i in (N - 1)..N {
            AxisOut::<D, K, 1>::link(&mut self.m_axis, &mut self.stages[i].m_axis);
        }
    }
}

/// The RNIC core. Ports toward the MAC: `s_axis_rx` (frames from the wire),
/// `m_axis_tx` (frames to the wire); `tuser[0]` marks a bad frame.
#[derive(LogicBlock, Default)]
pub struct RnicCore {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub s_axis_rx: AxisIn<D, K, 1>,
    pub m_axis_tx: AxisOut<D, K, 1>,
    rx_fifo: AxisFifo<D, K, 1, 5>,
    tx_pipe: AxisPipeline<4>,
    kind: TypeTag<Self>,
}

impl Logic for RnicCore {
    #[hdl_gen]
    fn update(&mut self) {
        self.rx_fifo.clock.next = self.clock.val();
        self.rx_fifo.reset.next = self.reset.val();
        self.tx_pipe.clock.next = self.clock.val();
        self.tx_pipe.reset.next = self.reset.val();
        AxisIn::<D, K, 1>::link(&mut self.s_axis_rx, &mut self.rx_fifo.s_axis);
        AxisOut::<D, K, 1>::join(&mut self.rx_fifo.m_axis, &mut self.tx_pipe.s_axis);
        AxisOut::<D, K, 1>::link(&mut self.m_axis_tx, &mut self.tx_pipe.m_axis);
    }
}
