use hdl_emit::TypeTag;
use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Sem {
    pub a: Signal<In, Bits<8>>,
    pub b: Signal<In, Bits<8>>,
    pub c: Signal<In, Bits<8>>,
    pub wrap_eq: Signal<Out, Bit>,
    pub sum9: Signal<Out, Bits<9>>,
    pub shl: Signal<Out, Bits<16>>,
    pub diff_lt: Signal<Out, Bit>,
    pub prec: Signal<Out, Bit>,
    pub sl: Signal<Out, Bits<4>>,
    d8: Signal<Local, Bits<8>>,
    ten: Constant<Bits<8>>,
    kind: TypeTag<Self>,
}
impl Default for Sem {
    fn default() -> Self {
        Self {
            a: Default::default(),
            b: Default::default(),
            c: Default::default(),
            wrap_eq: Default::default(),
            sum9: Default::default(),
            shl: Default::default(),
            diff_lt: Default::default(),
            prec: Default::default(),
            sl: Default::default(),
            d8: Default::default(),
            ten: Constant::new(10u64.into()),
            kind: Default::default(),
        }
    }
}
impl Logic for Sem {
    #[hdl_gen]
    fn update(&mut self) {
        self.wrap_eq.next = (self.a.val() + 1) == 0;
        self.sum9.next = bit_cast::<9, 8>(self.a.val() + self.b.val());
        self.shl.next = bit_cast::<16, 8>((self.a.val() << 4) >> 4);
        self.diff_lt.next = (self.a.val() - self.b.val()) < 10;
        self.d8.next = self.a.val() - self.b.val();
        self.prec.next = self.a.val() & self.b.val() == self.c.val();
        self.sl.next = self.a.val().get_bits::<4>(self.b.val().get_bits::<3>(0).index());
        if self.d8.val() < self.ten.val() {
            self.sl.next = 3.into();
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, LogicState)]
pub enum St {
    Idle,
    Run,
    Done,
}

#[derive(LogicBlock, Default)]
pub struct Fsm {
    pub clock: Signal<In, Clock>,
    pub reset: Signal<In, Bit>,
    pub go: Signal<In, Bit>,
    pub busy: Signal<Out, Bit>,
    state: DFF<St>,
    sem: Sem,
    kind: TypeTag<Self>,
}
impl Logic for Fsm {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, state);
        self.sem.a.next = 1.into();
        self.sem.b.next = 2.into();
        self.sem.c.next = 3.into();
        match self.state.q.val() {
            St::Idle => {
                if self.go.val() {
                    self.state.d.next = St::Run;
                }
            }
            St::Run => {
                self.state.d.next = St::Done;
            }
            _ => {
                self.state.d.next = St::Idle;
            }
        }
        if self.reset.val() {
            self.state.d.next = St::Idle;
        }
        self.busy.next = (self.state.q.val() == St::Run) & self.sem.wrap_eq.val();
    }
}

fn main() {
    let mut f = Fsm::default();
    f.connect_all();
    let d = hdl_emit::emit(&f, std::env::args().nth(1).as_deref().unwrap_or("fsm_top")).unwrap();
    print!("{}", d.to_sv());
}
