//! A party's shares: [`Shares`] (the share components of every slot of one
//! domain, and the local linear gates on them), [`Arenas`] (a slice's
//! Boolean and ring shares), [`ConstantRule`] (where a public constant goes)
//! and [`InputValues`] (an input-sharing request as a protocol sees it).

use super::arith::Arith;
use super::channel::Channel;
use super::convert;
use super::program::Linear;
use crate::error::RunError;
use huddle_circuit::Domain;
use huddle_core::arena::{binary, fill, fold, unary};
use huddle_net::PartyId;

/// Which share component a public constant is added to at this party.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ConstantRule {
    /// Constants do not change this party's shares.
    None,
    /// Component i gets + c.
    Add(usize),
    /// Component i gets - c.
    Sub(usize),
}

/// The share components of every slot: slot s of component i is
/// `c[i][s * w..(s + 1) * w]`. Only the first `components` arenas are used
/// (the others stay empty), so a 2-component protocol pays nothing for the third.
pub(crate) struct Shares {
    pub c: [Vec<u64>; MAX_COMPONENTS],
    /// Words per slot: instances / 64 (rounded up) for Boolean circuits,
    /// instances for arithmetic ones.
    pub w: usize,
    slots: usize,
    components: usize,
}

/// The most share components a protocol here holds per wire.
pub(crate) const MAX_COMPONENTS: usize = 3;

impl Shares {
    pub(crate) fn new(slots: usize, w: usize, components: usize) -> Self {
        let mut s = Shares {
            c: Default::default(),
            w: 0,
            slots,
            components: components.clamp(1, MAX_COMPONENTS),
        };
        s.resize(w);
        s
    }

    /// Reuses the arenas for `slots` slots of `w` words (contents unspecified).
    fn reshape(&mut self, slots: usize, w: usize) {
        self.slots = slots;
        self.resize(w);
    }

    /// Reuses the arenas for `w` words per slot (contents unspecified).
    fn resize(&mut self, w: usize) {
        let len = self.slots * w;
        for c in &mut self.c[..self.components] {
            if c.capacity() < len {
                // Zeroed memory fresh from the allocator: growing the vector
                // would write every zero again after the kernel has.
                *c = vec![0; len];
            } else {
                c.truncate(len);
                c.resize(len, 0);
            }
        }
        self.w = w;
    }

    /// Components in use.
    pub(crate) fn components(&self) -> usize {
        self.components
    }

    /// Slots in the arena.
    pub(crate) fn slots(&self) -> usize {
        self.slots
    }

    #[inline(always)]
    pub(crate) fn get(&self, component: usize, slot: u32) -> &[u64] {
        &self.c[component][slot as usize * self.w..][..self.w]
    }

    pub(crate) fn set(&mut self, component: usize, slot: u32, words: &[u64]) {
        let w = self.w;
        self.c[component][slot as usize * w..][..w].copy_from_slice(words);
    }

    /// Writes `words` (`w` words per slot, in the order of `slots`) into
    /// component `component` of `slots`.
    pub(crate) fn set_slots(&mut self, component: usize, slots: &[u32], words: &[u64]) {
        let w = self.w;
        for (j, &slot) in slots.iter().enumerate() {
            self.set(component, slot, &words[j * w..(j + 1) * w]);
        }
    }

    /// Sets component `component` of `slots` to zero.
    pub(crate) fn zero_slots(&mut self, component: usize, slots: &[u32]) {
        let w = self.w;
        for &slot in slots {
            self.c[component][slot as usize * w..][..w].fill(0);
        }
    }

    /// Writes both components of `slot`, word j from `f(j)`.
    #[inline(always)]
    pub(crate) fn write(&mut self, slot: u32, f: impl Fn(usize) -> (u64, u64)) {
        let at = slot as usize * self.w;
        let [c0, c1, _] = &mut self.c;
        let (c0, c1) = (&mut c0[at..at + self.w], &mut c1[at..at + self.w]);
        for (j, (a, b)) in c0.iter_mut().zip(c1.iter_mut()).enumerate() {
            (*a, *b) = f(j);
        }
    }

    /// Writes the three components of `slot`, word j from `f(j)`.
    #[inline(always)]
    pub(crate) fn write3(&mut self, slot: u32, f: impl Fn(usize) -> (u64, u64, u64)) {
        let (at, w) = (slot as usize * self.w, self.w);
        let [c0, c1, c2] = &mut self.c;
        let (c0, c1, c2) = (
            &mut c0[at..at + w],
            &mut c1[at..at + w],
            &mut c2[at..at + w],
        );
        for j in 0..w {
            (c0[j], c1[j], c2[j]) = f(j);
        }
    }

    /// Component `component` of `slots`, one after another.
    pub(crate) fn concat(&self, component: usize, slots: &[u32]) -> Vec<u64> {
        let mut v = Vec::with_capacity(slots.len() * self.w);
        for &s in slots {
            v.extend_from_slice(self.get(component, s));
        }
        v
    }

    /// Slices of component `component` for many slots, gathered for a layer.
    pub(crate) fn gather(&self, component: usize, slots: &[u32]) -> Vec<&[u64]> {
        slots.iter().map(|&s| self.get(component, s)).collect()
    }

    /// Applies a run of linear steps to every component, with the widest
    /// build of the kernel the process runs; `rule` says where this party
    /// adds constants.
    pub(super) fn apply_linear<R: Arith>(
        &mut self,
        steps: &[Linear],
        pool: &[u32],
        rule: ConstantRule,
    ) {
        #[cfg(target_arch = "x86_64")]
        {
            use huddle_core::simd::{kernels_in_use, Kernels};
            match kernels_in_use() {
                // SAFETY: `kernels_in_use` picks only a build the CPU supports.
                Kernels::Avx512 => {
                    return unsafe { self.apply_linear_avx512::<R>(steps, pool, rule) }
                }
                // SAFETY: as above.
                Kernels::Avx2 => return unsafe { self.apply_linear_avx2::<R>(steps, pool, rule) },
                Kernels::Baseline => {}
            }
        }
        self.apply_linear_kernel::<R>(steps, pool, rule)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn apply_linear_avx512<R: Arith>(
        &mut self,
        steps: &[Linear],
        pool: &[u32],
        rule: ConstantRule,
    ) {
        self.apply_linear_kernel::<R>(steps, pool, rule)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn apply_linear_avx2<R: Arith>(
        &mut self,
        steps: &[Linear],
        pool: &[u32],
        rule: ConstantRule,
    ) {
        self.apply_linear_kernel::<R>(steps, pool, rule)
    }

    /// The run goes window by window of every slot (`LINEAR_WINDOW` words),
    /// all its steps per window: a run reads the slots it wrote a few steps
    /// before, and at large batches whole slots would have left the cache by
    /// then (AES-128's linear layers, 30,480 XORs per block, were memory-bound).
    #[inline(always)]
    fn apply_linear_kernel<R: Arith>(
        &mut self,
        steps: &[Linear],
        pool: &[u32],
        rule: ConstantRule,
    ) {
        let w = self.w;
        for lo in (0..w).step_by(LINEAR_WINDOW) {
            let span = lo..(lo + LINEAR_WINDOW).min(w);
            for (i, comp) in self.c[..self.components].iter_mut().enumerate() {
                let constant = match rule {
                    ConstantRule::Add(j) if j == i => Some(false),
                    ConstantRule::Sub(j) if j == i => Some(true),
                    _ => None,
                };
                let shifted = |c: u64| match constant {
                    Some(false) => c,
                    Some(true) => R::neg(c),
                    None => 0,
                };
                for step in steps {
                    let s = span.clone();
                    match *step {
                        Linear::Add { a, b, out } => binary(comp, w, s, a, b, out, R::add),
                        Linear::Sum { first, len, out } => fold(
                            comp,
                            w,
                            s,
                            &pool[first as usize..][..len as usize],
                            out,
                            R::add,
                        ),
                        Linear::Sub { a, b, out } => binary(comp, w, s, a, b, out, R::sub),
                        Linear::Neg { a, out } => unary(comp, w, s, a, out, R::neg),
                        Linear::Copy { a, out } => unary(comp, w, s, a, out, |x| x),
                        Linear::AddConst { a, c, out } => {
                            let d = shifted(c);
                            unary(comp, w, s, a, out, |x| R::add(x, d))
                        }
                        Linear::MulConst { a, c, out } => {
                            unary(comp, w, s, a, out, |x| R::mul(x, c))
                        }
                        Linear::Const { c, out } => fill(comp, w, s, out, shifted(c)),
                    }
                }
            }
        }
    }
}

/// Words of each slot per pass of a run of linear steps: 2 KiB per slot, so
/// the slots a run touches (hundreds) stay in L2 between its steps.
const LINEAR_WINDOW: usize = 256;

/// Input sharing request: for every input value its owner, its slots and (at
/// the owner) its clear words per wire; and who receives the outputs.
pub(crate) struct InputValues<'a> {
    pub owners: Vec<PartyId>,
    pub slots: &'a [Vec<u32>],
    /// For each input value this party owns: words per wire, wire-major
    /// (borrowed where a slice is the whole batch).
    pub own: Vec<Option<std::borrow::Cow<'a, [u64]>>>,
    /// The one party that learns the outputs (None: every party).
    pub reveal_to: Option<PartyId>,
}

impl InputValues<'_> {
    /// The slots of every input value `from` deals, in input order.
    pub(crate) fn dealt_by(&self, from: PartyId) -> Vec<u32> {
        (0..self.slots.len())
            .filter(|&i| self.owners[i] == from)
            .flat_map(|i| self.slots[i].iter().copied())
            .collect()
    }

    /// Writes `values` (one element per wire of every input value `from`
    /// deals, in input order) into component `component` of their slots.
    pub(crate) fn set_dealt(
        &self,
        from: PartyId,
        component: usize,
        s: &mut Shares,
        values: &[u64],
    ) {
        s.set_slots(component, &self.dealt_by(from), values);
    }

    /// Receives from `from` one element per wire of every input value it
    /// deals, in input order, into component `component` of their slots;
    /// returns the words received (for the malicious protocols' views).
    pub(crate) fn receive(
        &self,
        ch: &mut Channel,
        from: PartyId,
        component: usize,
        s: &mut Shares,
    ) -> Result<Vec<u64>, RunError> {
        let count = self.dealt_by(from).len() * s.w;
        let values = ch.recv(from, count)?;
        self.set_dealt(from, component, s, &values);
        Ok(values.into_vec())
    }
}

/// A party's shares of one slice: one arena per domain (Boolean slots hold
/// instances/64 bitsliced words, ring slots one word per instance). A
/// circuit of one domain leaves the other arena without slots.
pub(crate) struct Arenas {
    pub bits: Shares,
    pub ring: Shares,
    /// Instances in the slice.
    pub instances: usize,
    /// Ring elements per word ([`Program::ring_lanes`](super::program::Program::ring_lanes)).
    ring_lanes: usize,
    /// The arenas of the last conversion step, kept for the next one
    /// (fresh memory costs a page fault per page, every round).
    side: Option<Box<Arenas>>,
}

impl Arenas {
    pub(super) fn new(
        slots: [usize; 2],
        instances: usize,
        components: usize,
        ring_lanes: usize,
    ) -> Self {
        let mut a = Arenas {
            bits: Shares::new(slots[0], 0, components),
            ring: Shares::new(slots[1], 0, components),
            instances: 0,
            ring_lanes,
            side: None,
        };
        a.resize(instances);
        a
    }

    /// Arenas where only `domain` has slots (`slots` of each domain's), `w`
    /// words each: a conversion's terms side by side (`instances` is the
    /// slice's). Reuses the previous step's memory; give them back with
    /// [`put_side`](Self::put_side).
    /// An arena for a conversion's recombining program: `slots` slots of
    /// `instances` instances, in `domain` only.
    pub(crate) fn take_side(
        &mut self,
        slots: [usize; 2],
        domain: Domain,
        instances: usize,
    ) -> Arenas {
        let w = convert::words(domain, instances);
        let components = self.bits.components();
        let mut side = self
            .side
            .take()
            .map(|b| *b)
            .unwrap_or_else(|| Arenas::new([0, 0], 0, components, 1));
        let width = |d: Domain| if d == domain { w } else { 0 };
        side.bits.reshape(slots[0], width(Domain::Bit));
        side.ring.reshape(slots[1], width(Domain::Ring));
        side.instances = instances;
        side
    }

    pub(crate) fn put_side(&mut self, side: Arenas) {
        self.side = Some(Box::new(side));
    }

    /// Reuses the arenas for `instances` instances (contents unspecified).
    pub(super) fn resize(&mut self, instances: usize) {
        self.bits.resize(instances.div_ceil(64));
        self.ring.resize(instances.div_ceil(self.ring_lanes));
        self.instances = instances;
    }

    pub(crate) fn domain(&self, domain: Domain) -> &Shares {
        match domain {
            Domain::Bit => &self.bits,
            Domain::Ring => &self.ring,
        }
    }

    pub(crate) fn domain_mut(&mut self, domain: Domain) -> &mut Shares {
        match domain {
            Domain::Bit => &mut self.bits,
            Domain::Ring => &mut self.ring,
        }
    }
}
