//! Protection domains (`ibv_alloc_pd`, `ibv_dealloc_pd` on drop).

use crate::device::{Context, Shared};
use crate::error::Result;
use std::fmt;
use std::rc::Rc;

pub(crate) struct PdInner {
    pub ctx: Rc<Shared>,
    pub pdn: u32,
}

impl Drop for PdInner {
    fn drop(&mut self) {
        if let Ok(mut a) = self.ctx.alloc.try_borrow_mut() {
            a.pd.give(self.pdn);
        }
    }
}

/// A protection domain: memory regions, QPs and address handles created in
/// it may be used together, and only together. Every object created from it
/// holds it, so it lives until the last of them is dropped.
///
/// ```
/// use rnic_driver::{hw::fake::{FakeConfig, FakeHw}, Device};
///
/// let ctx = Device::from_hw(FakeHw::new(FakeConfig::default())).open()?;
/// let (a, b) = (ctx.alloc_pd()?, ctx.alloc_pd()?);
/// assert_ne!(a.pdn(), b.pdn());
/// # Ok::<(), rnic_driver::Error>(())
/// ```
#[derive(Clone)]
pub struct ProtectionDomain {
    pub(crate) inner: Rc<PdInner>,
}

impl fmt::Debug for ProtectionDomain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ProtectionDomain").field("pdn", &self.inner.pdn).finish()
    }
}

impl Context {
    /// Allocates a protection domain.
    pub fn alloc_pd(&self) -> Result<ProtectionDomain> {
        let pdn = self.shared.alloc.borrow_mut().pd.take()?;
        Ok(ProtectionDomain { inner: Rc::new(PdInner { ctx: self.shared.clone(), pdn }) })
    }
}

impl ProtectionDomain {
    /// The number the device compares (`qpc.PD`, `mpt.PD`).
    pub fn pdn(&self) -> u32 {
        self.inner.pdn
    }

    /// The context it belongs to.
    pub fn context(&self) -> Context {
        Context { shared: self.inner.ctx.clone() }
    }
}
