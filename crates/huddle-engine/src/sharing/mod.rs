//! The secret-sharing engine: runs any circuit under any secret-sharing
//! protocol that implements [`Sharing`].
//!
//! The engine owns everything protocols have in common: compiling the circuit
//! into slots and rounds ([`program`]), the share arenas ([`Shares`]), the
//! local linear gates, turning input matrices into share words and revealed
//! words back into matrices, and the encoding of messages ([`Channel`]).
//! A protocol supplies only what is its own: key setup, input sharing, one
//! multiplication layer, reveal, and (optionally) function-dependent
//! preprocessing. Protocols never touch sockets or threads: they talk to a
//! [`Channel`], which wraps any [`Transport`]: a `huddle_net::Network`, a
//! lane of one (`RoleNet`, under `--threads` and `--split-roles`), or in
//! tests a wrapper around a `Network` that keeps or replaces messages
//! (`subset_keys`'s unit tests).
//!
//! Every party holds two or three share components per wire (`Shares::c`;
//! how many is the protocol's [`Sharing::components`]: two for the 3-party
//! protocols and Quad, three for Fantastic Four and Tetrad). Linear gates act
//! on every component alike; adding a public constant touches the component
//! named by the protocol's [`ConstantRule`].

pub mod arith;
pub mod astra;
pub mod client_aided;
pub mod convert;
pub mod fantastic4;
pub mod helper;
pub mod malicious;
pub mod mfi3;
pub mod pieces;
pub mod program;
pub mod quad;
pub mod replicated;
pub mod subset_keys;
pub mod tetrad;
pub mod trio;
pub mod verify;
pub mod wire;

/// Runs `$body` with `$R` the [`arith::Arith`] of ring words holding
/// `$lanes` elements each: 1 (one element mod 2^64), 2, 4 or 8 (packed
/// lanes; 8, the last arm, is the only other count `Program::pack_ring` sets).
macro_rules! with_ring {
    ($lanes:expr, $R:ident => $body:expr) => {
        match $lanes {
            1 => {
                type $R = $crate::sharing::arith::Ring;
                $body
            }
            2 => {
                type $R = $crate::sharing::arith::Packed<32>;
                $body
            }
            4 => {
                type $R = $crate::sharing::arith::Packed<16>;
                $body
            }
            _ => {
                type $R = $crate::sharing::arith::Packed<8>;
                $body
            }
        }
    };
}
pub(crate) use with_ring;

use crate::error::RunError;
use crate::inputs::learns;
use crate::inputs::OwnValue;
pub use crate::options::{FILLER_LANES, FILLER_MIN_SLICES};
use crate::transport::{Transport, REVEAL};
use arith::{Arith, Bits};
use convert::SplitJob;
use huddle_circuit::{BitMatrix, Circuit, Domain};
use huddle_core::arena::{binary, fill, fold, unary};
use huddle_net::{NetError, Network, PartyId, Phase};
use program::{Layer, Linear, Program, Step, Target};

/// Messages of share words: each word travels as `word_bytes` little-endian
/// bytes (8 for bitsliced Boolean words, k/8 for elements of Z_2^k).
///
/// It also keeps the large word buffers of past rounds for the next ones
/// (byte buffers go back to the transport's pool, see
/// [`huddle_net::recycle_buffer`]): a round's buffers are megabytes, and
/// fresh ones cost the kernel a page fault per 4 KiB.
pub struct Channel<'a> {
    net: &'a mut dyn Transport,
    encoding: wire::Encoding,
    /// Where fresh keys are drawn ([`Channel::fresh_prg`]): the source and
    /// this channel's next draw number.
    randomness: crate::Randomness,
    next_draw: u64,
    spare_words: Vec<Vec<u64>>,
    /// At a party corrupted on purpose: what it does to its messages.
    fault: Option<crate::fault::ActiveFault>,
    /// Whether `evaluate` counts its steps for the progress display (the
    /// main program's, not a conversion's recombining program).
    counts_progress: bool,
    /// The run's progress counters, where the steps are counted.
    progress: Option<crate::progress::Progress>,
}

/// Word buffers kept.
const SPARE: usize = 16;

impl<'a> Channel<'a> {
    /// A channel whose fresh keys come from `randomness`, numbered from
    /// `first_draw` (channels of one party take disjoint ranges).
    pub fn new(
        net: &'a mut dyn Transport,
        encoding: wire::Encoding,
        randomness: crate::Randomness,
        first_draw: u64,
    ) -> Self {
        Channel {
            net,
            encoding,
            randomness,
            next_draw: first_draw,
            spare_words: Vec::new(),
            fault: None,
            counts_progress: false,
            progress: None,
        }
    }

    /// Makes this party deviate as `fault` says (see [`crate::fault`]).
    pub(crate) fn set_fault(&mut self, fault: crate::fault::ActiveFault) {
        self.fault = Some(fault);
    }

    /// Sends a message of the protocol's message type `tag` (a corrupted
    /// party's fault applies here; see [`crate::fault`]).
    pub fn send_tagged(&mut self, tag: usize, to: PartyId, words: &[u64]) -> Result<(), RunError> {
        use crate::fault::Action;
        let Some(fault) = self.fault.as_mut() else {
            return self.send(to, words);
        };
        let mut changed = words.to_vec();
        match fault.apply(tag, to, &mut changed, self.encoding) {
            Action::Send => self.send(to, &changed),
            Action::Drop => Ok(()),
            Action::Twice => {
                self.send(to, &changed)?;
                self.send(to, &changed)
            }
        }
    }

    /// [`send_tagged`](Self::send_tagged) under `phase`, then back to the current phase.
    pub fn send_tagged_in(
        &mut self,
        phase: Phase,
        tag: usize,
        to: PartyId,
        words: &[u64],
    ) -> Result<(), RunError> {
        self.in_phase(phase, |ch| ch.send_tagged(tag, to, words))
    }

    /// A message of `n` words with unspecified contents (the bytes of past
    /// messages), for the caller to overwrite whole and then send with
    /// [`send_message`](Self::send_message): where words travel as they lie
    /// in memory it is the very buffer that goes out, so sending copies
    /// nothing (a round's messages are megabytes).
    pub fn message(&mut self, n: usize) -> wire::Words {
        if n > 0 && self.encoding.whole_words() {
            match wire::Words::in_place(huddle_net::scratch_message(n * 8)) {
                Ok(words) => return words,
                Err(bytes) => huddle_net::recycle_buffer(bytes),
            }
        }
        self.buffer(n).into()
    }

    /// Sends `m` (from [`message`](Self::message), or a received message
    /// overwritten whole) and gives up its memory: a message whose bytes are
    /// its words goes to the transport as it is.
    pub fn send_message(&mut self, to: PartyId, m: wire::Words) -> Result<(), RunError> {
        match m.into_buffer() {
            Err(bytes) => Ok(self.net.send(to, bytes)?),
            Ok(words) => {
                let sent = self.send(to, &words);
                self.recycle(words);
                sent
            }
        }
    }

    /// [`send_message`](Self::send_message) of the message type `tag` (a
    /// corrupted party's fault applies, as in [`send_tagged`](Self::send_tagged)).
    pub fn send_message_tagged(
        &mut self,
        tag: usize,
        to: PartyId,
        m: wire::Words,
    ) -> Result<(), RunError> {
        if self.fault.is_none() {
            return self.send_message(to, m);
        }
        let sent = self.send_tagged(tag, to, &m);
        self.recycle(m);
        sent
    }

    /// Runs `f` with traffic counted under `phase`, then returns to the
    /// current phase (switching restarts the phase clock, so only if they differ).
    pub fn in_phase<T>(&mut self, phase: Phase, f: impl FnOnce(&mut Self) -> T) -> T {
        let now = self.net.phase();
        if now == phase {
            return f(self);
        }
        self.net.set_phase(phase);
        let out = f(self);
        self.net.set_phase(now);
        out
    }

    /// A buffer of `n` words with unspecified contents, for the caller to overwrite.
    pub fn buffer(&mut self, n: usize) -> Vec<u64> {
        // An empty one (a message a role does not send) takes no spare: cut
        // to nothing, a spare's written words would be zeroed again later.
        if n == 0 {
            return Vec::new();
        }
        // The one with the most words written already: only the rest up to
        // n are zeroed (a round's buffers are megabytes).
        let at = (0..self.spare_words.len())
            .filter(|&i| self.spare_words[i].capacity() >= n)
            .max_by_key(|&i| self.spare_words[i].len().min(n));
        let mut v = match at {
            Some(i) => self.spare_words.swap_remove(i),
            None => self.spare_words.pop().unwrap_or_default(),
        };
        v.truncate(n);
        v.resize(n, 0);
        v
    }

    /// Gives a buffer (of words, or a received message's) back for later rounds.
    pub fn recycle(&mut self, v: impl Into<wire::Words>) {
        match v.into().into_buffer() {
            Ok(v) if v.capacity() > 0 && self.spare_words.len() < SPARE => self.spare_words.push(v),
            Ok(_) => {}
            Err(message) => huddle_net::recycle_buffer(message),
        }
    }

    /// The next `n` words of `prg`.
    pub fn draw(&mut self, prg: &mut huddle_core::Prg, n: usize) -> Vec<u64> {
        let mut v = self.buffer(n);
        prg.fill_u64(&mut v);
        v
    }

    /// A generator of fresh randomness: this party's next draw.
    pub(crate) fn fresh_prg(&mut self) -> Result<huddle_core::Prg, RunError> {
        let prg = self.randomness.draw(self.party(), self.next_draw)?;
        self.next_draw += 1;
        Ok(prg)
    }

    pub fn party(&self) -> PartyId {
        self.net.party()
    }

    /// How share words travel now.
    pub fn encoding(&self) -> wire::Encoding {
        self.encoding
    }

    /// Messages from now on carry words of `encoding` (the domain and slice
    /// of the step at hand; the engine sets it before every step of a mixed
    /// program).
    pub fn set_encoding(&mut self, encoding: wire::Encoding) {
        self.encoding = encoding;
    }

    pub fn set_phase(&mut self, phase: Phase) {
        self.net.set_phase(phase);
    }

    pub fn phase(&self) -> Phase {
        self.net.phase()
    }

    /// As [`Transport::announce`].
    pub fn announce(&self, step: &str) {
        self.net.announce(step);
    }

    /// Sends `words` (the transport drops an empty message; both sides know its size).
    pub fn send(&mut self, to: PartyId, words: &[u64]) -> Result<(), RunError> {
        let mut bytes = huddle_net::message_buffer(self.encoding.wire_len(words.len()));
        self.encoding.encode(words, &mut bytes);
        Ok(self.net.send(to, bytes)?)
    }

    /// Sends `words` under `phase`, then returns to the current phase.
    pub fn send_in(&mut self, phase: Phase, to: PartyId, words: &[u64]) -> Result<(), RunError> {
        self.in_phase(phase, |ch| ch.send(to, words))
    }

    /// Receives exactly `count` words (where they arrived, if they travel
    /// as whole words; see [`wire::Words`]).
    pub fn recv(&mut self, from: PartyId, count: usize) -> Result<wire::Words, RunError> {
        let mut bytes = self.net.recv(from, self.encoding.wire_len(count))?;
        if self.encoding.whole_words() {
            match wire::Words::in_place(bytes) {
                Ok(words) => return Ok(words),
                Err(b) => bytes = b,
            }
        }
        let mut out = self.buffer(count);
        self.encoding.decode(&bytes, &mut out);
        huddle_net::recycle_buffer(bytes);
        Ok(out.into())
    }
}

/// Which share component a public constant is added to at this party.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstantRule {
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
pub struct Shares {
    pub c: [Vec<u64>; MAX_COMPONENTS],
    /// Words per slot: instances / 64 (rounded up) for Boolean circuits,
    /// instances for arithmetic ones.
    pub w: usize,
    slots: usize,
    components: usize,
}

/// The most share components a protocol here holds per wire.
pub const MAX_COMPONENTS: usize = 3;

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
    pub fn components(&self) -> usize {
        self.components
    }

    /// Slots in the arena.
    pub fn slots(&self) -> usize {
        self.slots
    }

    #[inline(always)]
    pub fn get(&self, component: usize, slot: u32) -> &[u64] {
        &self.c[component][slot as usize * self.w..][..self.w]
    }

    pub fn set(&mut self, component: usize, slot: u32, words: &[u64]) {
        let w = self.w;
        self.c[component][slot as usize * w..][..w].copy_from_slice(words);
    }

    /// Writes `words` (`w` words per slot, in the order of `slots`) into
    /// component `component` of `slots`.
    pub fn set_slots(&mut self, component: usize, slots: &[u32], words: &[u64]) {
        let w = self.w;
        for (j, &slot) in slots.iter().enumerate() {
            self.set(component, slot, &words[j * w..(j + 1) * w]);
        }
    }

    /// Sets component `component` of `slots` to zero.
    pub fn zero_slots(&mut self, component: usize, slots: &[u32]) {
        let w = self.w;
        for &slot in slots {
            self.c[component][slot as usize * w..][..w].fill(0);
        }
    }

    /// Writes both components of `slot`, word j from `f(j)`.
    #[inline(always)]
    pub fn write(&mut self, slot: u32, f: impl Fn(usize) -> (u64, u64)) {
        let at = slot as usize * self.w;
        let [c0, c1, _] = &mut self.c;
        let (c0, c1) = (&mut c0[at..at + self.w], &mut c1[at..at + self.w]);
        for (j, (a, b)) in c0.iter_mut().zip(c1.iter_mut()).enumerate() {
            (*a, *b) = f(j);
        }
    }

    /// Writes the three components of `slot`, word j from `f(j)`.
    #[inline(always)]
    pub fn write3(&mut self, slot: u32, f: impl Fn(usize) -> (u64, u64, u64)) {
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
    pub fn concat(&self, component: usize, slots: &[u32]) -> Vec<u64> {
        let mut v = Vec::with_capacity(slots.len() * self.w);
        for &s in slots {
            v.extend_from_slice(self.get(component, s));
        }
        v
    }

    /// Slices of component `component` for many slots, gathered for a layer.
    pub fn gather(&self, component: usize, slots: &[u32]) -> Vec<&[u64]> {
        slots.iter().map(|&s| self.get(component, s)).collect()
    }

    /// Applies a run of linear steps to every component, with the fastest
    /// kernel the CPU offers; `rule` says where this party adds constants.
    fn apply_linear<R: Arith>(&mut self, steps: &[Linear], pool: &[u32], rule: ConstantRule) {
        #[cfg(target_arch = "x86_64")]
        {
            if huddle_core::simd::has_avx2() {
                // SAFETY: the CPU supports AVX2, checked just above.
                unsafe { self.apply_linear_avx2::<R>(steps, pool, rule) };
                return;
            }
        }
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
pub struct InputValues<'a> {
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
    pub fn dealt_by(&self, from: PartyId) -> Vec<u32> {
        (0..self.slots.len())
            .filter(|&i| self.owners[i] == from)
            .flat_map(|i| self.slots[i].iter().copied())
            .collect()
    }

    /// Writes `values` (one element per wire of every input value `from`
    /// deals, in input order) into component `component` of their slots.
    pub fn set_dealt(&self, from: PartyId, component: usize, s: &mut Shares, values: &[u64]) {
        s.set_slots(component, &self.dealt_by(from), values);
    }

    /// Receives from `from` one element per wire of every input value it
    /// deals, in input order, into component `component` of their slots;
    /// returns the words received (for the malicious protocols' views).
    pub fn receive(
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

/// What a secret-sharing protocol can do, read from its row of the
/// protocol table. Not methods of [`Sharing`], so that no implementation
/// can state them a second time (and disagree with the table).
pub trait Capabilities {
    /// The protocol's row of the table.
    fn descriptor(&self) -> &'static crate::protocol::Descriptor;
    /// The protocol's name in messages.
    fn name(&self) -> &'static str {
        self.descriptor().name
    }
    /// Parties the protocol needs.
    fn parties(&self) -> usize {
        self.descriptor().parties.default_count()
    }
    /// Widest multiplication done natively in one round; wider ones are split.
    fn max_fan_in(&self) -> usize {
        self.descriptor().max_fan_in.unwrap_or(2)
    }
    /// Whether `multiply` takes products truncated by [`program::MulGate::trunc`]
    /// bits (probabilistic truncation fused into the multiplication).
    fn fused_truncation(&self) -> bool {
        self.descriptor().fused_truncation
    }
    /// Whether the protocol implements [`Sharing::split`], so it runs
    /// mixed circuits (share conversions).
    fn converts(&self) -> bool {
        self.descriptor().conversions
    }
    /// A party that only deals correlated randomness (the last one): it
    /// owns no input and learns no output.
    fn dealer(&self) -> Option<PartyId> {
        self.descriptor().dealer
    }
}

impl<S: Sharing + ?Sized> Capabilities for S {
    fn descriptor(&self) -> &'static crate::protocol::Descriptor {
        self.protocol().descriptor()
    }
}

/// A secret-sharing protocol, free of I/O: everything it says goes through
/// the [`Channel`].
pub trait Sharing {
    /// The protocol this is. Its row of the protocol table
    /// ([`crate::protocol::Descriptor`]) states what it can do, and
    /// [`Capabilities`] reads it from there: no implementation restates it.
    fn protocol(&self) -> crate::protocol::Protocol;
    /// Widest product in the circuits that recombine conversion terms
    /// ([`program::ConversionKind`]) for a batch of `instances`: narrower
    /// than `max_fan_in` where a wide product costs much more than a round
    /// (MFI-3PC).
    fn conversion_fan_in(&self, _instances: usize) -> usize {
        self.max_fan_in().min(program::CONVERSION_FAN_IN)
    }
    fn constant_rule(&self) -> ConstantRule;
    /// Share components per wire at every party (at most [`MAX_COMPONENTS`]).
    fn components(&self) -> usize {
        2
    }
    /// Key agreement (phase `setup`).
    fn setup(&mut self, ch: &mut Channel) -> Result<(), RunError>;
    /// Called before each slice of the batch: forget per-slice state.
    fn begin_batch(&mut self) {}
    /// Function-dependent preprocessing before inputs (phase `offline`); may
    /// call [`evaluate`] for a party whose whole part is input-independent.
    /// `inputs` has the input values of each domain (`Domain as usize`).
    fn preprocess(
        &mut self,
        _ch: &mut Channel,
        _program: &Program,
        _inputs: &[InputValues; 2],
        _arenas: &mut Arenas,
    ) -> Result<(), RunError> {
        Ok(())
    }
    /// Whether `multiply` takes dot products (`MulGate::dot`) for the
    /// communication of one multiplication.
    fn native_dot(&self) -> bool {
        false
    }
    /// A conversion step (see [`convert`]): for every source slot in `src`
    /// (domain `F`), shares in `dst` (domain `T`) of two terms t0, t1 with
    /// value = t0 + t1 in `F`, at the slots `job.terms` (conversion g at
    /// words g·w.., w = `job.target_words()`). Called by every party for the
    /// same conversions in the same order.
    fn split<F: Arith, T: Arith>(
        &mut self,
        _ch: &mut Channel,
        _job: &SplitJob,
        _src: &Shares,
        _dst: &mut Shares,
    ) -> Result<(), RunError> {
        Err(RunError::Internal(format!(
            "{} has no share conversions",
            self.name()
        )))
    }
    /// Whether this party still evaluates the layers online (false for a
    /// helper that did its whole part in `preprocess`).
    fn evaluates_online(&self) -> bool {
        true
    }
    /// Whether in `program` some party may send a slice's messages ahead of
    /// the others' evaluation (it receives nothing for several steps), so
    /// that they wait in a peer's inbox and count in the slice's memory.
    fn may_run_ahead(&self, _program: &Program) -> bool {
        true
    }
    fn share_inputs<R: Arith>(
        &mut self,
        ch: &mut Channel,
        inputs: &InputValues,
        shares: &mut Shares,
    ) -> Result<(), RunError>;
    fn multiply<R: Arith>(
        &mut self,
        ch: &mut Channel,
        program: &Program,
        layer: &Layer,
        shares: &mut Shares,
    ) -> Result<(), RunError>;
    /// Opens `slots` to party `to` (None: every party): the clear words of
    /// each slot, concatenated, at the parties that learn them.
    fn reveal<R: Arith>(
        &mut self,
        ch: &mut Channel,
        slots: &[u32],
        shares: &Shares,
        to: Option<PartyId>,
    ) -> Result<Option<Vec<u64>>, RunError>;
    /// For the malicious protocols: compares views (phase `verify`) after
    /// the last layer and before `reveal` sends anything.
    fn verify(&mut self, _ch: &mut Channel) -> Result<(), RunError> {
        Ok(())
    }
    /// For the malicious protocols, between layers (`--verify-every`):
    /// compares the views so far and settles every party's verdict, so that
    /// a deviation stops the run here.
    fn checkpoint(&mut self, _ch: &mut Channel) -> Result<(), RunError> {
        Ok(())
    }
    /// For the malicious protocols: the types of message they send, which
    /// fault injection can target (see [`crate::fault`]).
    fn messages(&self) -> &'static [crate::fault::MessageType] {
        &[]
    }
}

/// A party's shares of one slice: one arena per domain (Boolean slots hold
/// instances/64 bitsliced words, ring slots one word per instance). A
/// circuit of one domain leaves the other arena without slots.
pub struct Arenas {
    pub bits: Shares,
    pub ring: Shares,
    /// Instances in the slice.
    pub instances: usize,
    /// Ring elements per word ([`Program::ring_lanes`]).
    ring_lanes: usize,
    /// The arenas of the last conversion step, kept for the next one
    /// (fresh memory costs a page fault per page, every round).
    side: Option<Box<Arenas>>,
}

impl Arenas {
    fn new(slots: [usize; 2], instances: usize, components: usize, ring_lanes: usize) -> Self {
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
    fn resize(&mut self, instances: usize) {
        self.bits.resize(instances.div_ceil(64));
        self.ring.resize(instances.div_ceil(self.ring_lanes));
        self.instances = instances;
    }

    pub fn domain(&self, domain: Domain) -> &Shares {
        match domain {
            Domain::Bit => &self.bits,
            Domain::Ring => &self.ring,
        }
    }

    pub fn domain_mut(&mut self, domain: Domain) -> &mut Shares {
        match domain {
            Domain::Bit => &mut self.bits,
            Domain::Ring => &mut self.ring,
        }
    }
}

/// Runs every step of `program` from the current shares: linear steps
/// locally, each layer through `multiply`, each conversion through `split`
/// and its recombining program.
/// With `verify_every` = Some(n), the protocol's checkpoint runs after
/// every n-th layer (not after the last: `verify` follows it anyway).
pub fn evaluate<P: Sharing>(
    protocol: &mut P,
    ch: &mut Channel,
    program: &Program,
    arenas: &mut Arenas,
    verify_every: Option<usize>,
) -> Result<(), RunError> {
    let rule = protocol.constant_rule();
    let mut done = 0;
    for step in &program.steps {
        match step {
            Step::Linear(Domain::Bit, run) => {
                arenas.bits.apply_linear::<Bits>(run, &program.pool, rule)
            }
            Step::Linear(Domain::Ring, run) => with_ring!(program.ring_lanes, R => {
                arenas.ring.apply_linear::<R>(run, &program.pool, rule)
            }),
            Step::Layer(i) => {
                let layer = &program.layers[*i];
                ch.set_encoding(program.encoding(layer.domain, arenas.instances));
                match layer.domain {
                    Domain::Bit => {
                        multiply_layer::<P, Bits>(protocol, ch, program, layer, &mut arenas.bits)?
                    }
                    Domain::Ring => with_ring!(program.ring_lanes, R => {
                        multiply_layer::<P, R>(protocol, ch, program, layer, &mut arenas.ring)?
                    }),
                }
                done += 1;
                let due = verify_every.is_some_and(|n| done % n == 0);
                if due && done < program.layers.len() {
                    protocol.checkpoint(ch)?;
                }
            }
            Step::Convert(i) => {
                let counts = std::mem::replace(&mut ch.counts_progress, false);
                convert::run(protocol, ch, program, &program.conversions[*i], arenas)?;
                ch.counts_progress = counts;
            }
        }
        if let (true, Some(p)) = (ch.counts_progress, &ch.progress) {
            p.step(ch.party());
        }
    }
    Ok(())
}

/// One multiplication layer, where the CPU has AVX2 in a frame compiled for
/// it: a protocol whose `multiply` and the kernels under it are
/// `#[inline(always)]` gets 256-bit loops there, while the binary stays
/// baseline x86-64 (no `target-cpu` needed to run it anywhere).
#[inline(always)]
fn multiply_layer<P: Sharing, R: Arith>(
    protocol: &mut P,
    ch: &mut Channel,
    program: &Program,
    layer: &Layer,
    s: &mut Shares,
) -> Result<(), RunError> {
    #[cfg(target_arch = "x86_64")]
    if huddle_core::simd::has_avx2() {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { multiply_layer_avx2::<P, R>(protocol, ch, program, layer, s) };
    }
    protocol.multiply::<R>(ch, program, layer, s)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn multiply_layer_avx2<P: Sharing, R: Arith>(
    protocol: &mut P,
    ch: &mut Channel,
    program: &Program,
    layer: &Layer,
    s: &mut Shares,
) -> Result<(), RunError> {
    protocol.multiply::<R>(ch, program, layer, s)
}

/// Runs one party of the protocol `make` builds for a role (one instance
/// per lane) on `instances` instances of `circuit`, with `options.threads`
/// lanes, or one per assignment of roles with `options.split_roles`. The
/// shares a party keeps at once are bounded by `options.share_memory`: a
/// larger batch is evaluated slice by slice (same setup, more rounds), so
/// memory stays flat however large the batch.
/// `own_inputs` holds the values this party owns (see [`crate::ttp::run`]);
/// each is dropped once converted to share words, so that a large batch's
/// inputs are held once, not twice.
pub fn run<P: Sharing, F: Fn(PartyId) -> P + Sync>(
    make: F,
    net: &mut Network,
    circuit: std::borrow::Cow<'_, Circuit>,
    instances: usize,
    own_inputs: Vec<(usize, OwnValue)>,
    options: crate::RunOptions,
    progress: &crate::progress::Progress,
) -> Result<Vec<BitMatrix>, RunError> {
    let probe = make(net.party());
    if net.parties() != probe.parties() {
        return Err(RunError::Input(format!(
            "{} is a {}-party protocol, the run has {} parties",
            probe.name(),
            probe.parties(),
            net.parties()
        )));
    }
    let parties = probe.parties();
    // Round-robin owners skip a dealer (the last party).
    let input_parties = parties - usize::from(probe.dealer().is_some());
    crate::inputs::check_own_values(net.party(), input_parties, &circuit, instances, &own_inputs)?;
    // --max-fan-in caps the circuit's products and sets the conversions'.
    let cap = options.max_fan_in.unwrap_or(usize::MAX);
    let conversion_fan_in = options
        .max_fan_in
        .unwrap_or(probe.conversion_fan_in(instances));
    // An owned circuit goes to the compiler, which drops it once scheduled;
    // from then on only the values' shapes are needed (its interface).
    let interface = match &circuit {
        std::borrow::Cow::Owned(c) => std::borrow::Cow::Owned(c.interface()),
        std::borrow::Cow::Borrowed(c) => std::borrow::Cow::Borrowed(*c),
    };
    let mut program = Program::compile(
        circuit,
        Target {
            name: probe.name(),
            max_fan_in: probe.max_fan_in().min(cap),
            conversion_fan_in: conversion_fan_in.min(probe.max_fan_in()),
            converts: probe.converts(),
            native_dot: probe.native_dot(),
            fused_truncation: probe.fused_truncation()
                && options.truncation == crate::Truncation::Probabilistic,
        },
    )?;
    program.pack_ring();
    let circuit: &Circuit = &interface;
    // The batch is cut into units that keep words whole: 64 instances when
    // the program has Boolean wires, else a ring word's elements.
    let unit = if program.uses(Domain::Bit) {
        64
    } else {
        program.ring_lanes
    };
    let units = instances.div_ceil(unit);
    let per_unit = |d: Domain| program.words(d, unit) as u128;
    let slot_bytes = probe.components() as u128 * 8;
    // Share bytes per unit: both arenas, and the widest conversion's terms.
    let conversion_bytes = program
        .conversions
        .iter()
        .map(|c| {
            let to = c.kind.target();
            c.gates() as u128
                * program.recombining(c.kind).slots[to as usize] as u128
                * per_unit(to)
        })
        .max()
        .unwrap_or(0);
    // Sharing a slice's inputs holds several copies of their words at once
    // (a dealer's rows, their words, two masks, two messages), which for
    // input-heavy circuits (AES with an expanded key) outweigh the shares.
    let input_bytes: u128 = program
        .inputs
        .iter()
        .map(|(d, slots)| slots.len() as u128 * per_unit(*d) * 8)
        .sum();
    // A peer that needs nothing from this party during a slice (Trio's
    // helper while it prepares) sends the slice's messages ahead, which wait
    // in this party's inbox: about one element per multiplication, in deep
    // circuits many times the slice's live shares.
    let ahead_bytes: u128 = if probe.may_run_ahead(&program) {
        program
            .layers
            .iter()
            .map(|l| l.gates.len() as u128 * per_unit(l.domain) * 8)
            .sum()
    } else {
        0
    };
    let unit_bytes = slot_bytes
        * (program.slots[0] as u128 * per_unit(Domain::Bit)
            + program.slots[1] as u128 * per_unit(Domain::Ring)
            + conversion_bytes)
        + INPUT_COPIES * input_bytes
        + ahead_bytes;
    let slice = ((options.share_memory as u128 / unit_bytes.max(1)) as usize).max(1);
    let (threads, slice) = lanes_and_slice(&options, units, slice);
    // Who plays which role in each lane: the protocol's own assignment,
    // or with split roles one lane per assignment (as many as the batch has
    // units for; every party computes the same count).
    let roles: Vec<Vec<PartyId>> = if options.split_roles {
        let all = permutations(parties);
        let n = all.len().min(units.max(1)).min(slice);
        all.into_iter().take(n).collect()
    } else {
        let lanes = threads.clamp(1, units.max(1).min(slice));
        vec![(0..parties).collect(); lanes]
    };
    let lanes = roles.len();
    // Inputs held whole (random ones are drawn slice by slice; given ones
    // in up to three copies while converted) and the outputs (one matrix
    // per value, a row of whole words per instance) at a party that learns.
    let input_bits: usize = own_inputs
        .iter()
        .filter(|(_, v)| matches!(v, OwnValue::Rows(_)))
        .map(|(_, v)| v.bits())
        .sum();
    let learner = learns(net.party(), options.reveal_to) && probe.dealer() != Some(net.party());
    let output_words: usize = if learner {
        (0..circuit.outputs().len())
            .map(|o| circuit.output_bits(o).div_ceil(64))
            .sum()
    } else {
        0
    };
    // A protocol secure against malicious parties evaluates the batch as
    // one joint evaluation: every slice's output shares are held until all
    // slices and lanes have their inputs and passed verification.
    let hold_outputs = !probe.messages().is_empty();
    let held_bytes: u128 = if hold_outputs {
        slot_bytes
            * [Domain::Bit, Domain::Ring]
                .into_iter()
                .filter(|&d| program.reveals(d))
                .map(|d| program.output_slots(d).len() as u128 * per_unit(d))
                .sum::<u128>()
            * units as u128
    } else {
        0
    };
    crate::check_memory(
        &format!("{} on {instances} instances of this circuit", probe.name()),
        unit_bytes * units.min(slice) as u128
            + held_bytes
            + (input_bits as u128 * 3 / 8 + output_words as u128 * 8) * instances as u128,
    )?;
    // Slices of the batch (in instances), each split among the lanes.
    let slices: Vec<std::ops::Range<usize>> = (0..units.div_ceil(slice))
        .map(|s| s * slice..((s + 1) * slice).min(units))
        .collect();
    let lane_ranges = |lane: usize| -> Vec<std::ops::Range<usize>> {
        slices
            .iter()
            .map(|r| {
                let n = r.len();
                let (a, b) = (r.start + n * lane / lanes, r.start + n * (lane + 1) / lanes);
                a * unit..(b * unit).min(instances)
            })
            // A short last slice leaves some lanes nothing (the same at
            // every party).
            .filter(|r| !r.is_empty())
            .collect()
    };
    let mut own_words: Vec<Option<OwnWords>> = (0..circuit.inputs().len()).map(|_| None).collect();
    for (i, v) in own_inputs {
        own_words[i] = Some(match v {
            OwnValue::Rows(m) => OwnWords::Whole(to_wire_words(circuit, i, m, program.ring_lanes)),
            OwnValue::Random(r) => OwnWords::Drawn(i, r),
        });
    }
    let mut values = |d: Domain| -> DomainValues {
        let indices: Vec<usize> = (0..program.inputs.len())
            .filter(|&i| program.inputs[i].0 == d)
            .collect();
        DomainValues {
            slots: indices
                .iter()
                .map(|&i| program.inputs[i].1.clone())
                .collect(),
            owners: indices
                .iter()
                .map(|&i| circuit.owner(i, input_parties))
                .collect(),
            own: indices.iter().map(|&i| own_words[i].take()).collect(),
            total: program.words(d, instances),
        }
    };
    // A party that learns the outputs gets each slice's as its lane
    // finishes it, written into the result at once.
    let sink = learner.then(|| OutputSink::new(circuit, &program, instances));
    let gate = (hold_outputs && lanes > 1).then(|| RevealGate::new(lanes));
    let job = Lane {
        circuit,
        program: &program,
        outputs: sink.as_ref(),
        values: [values(Domain::Bit), values(Domain::Ring)],
        reveal_to: options.reveal_to,
        randomness: options.randomness,
        fault: options.fault,
        verify_every: options.verify_every,
        share_memory: options.share_memory,
        hold_outputs,
        reveal_gate: gate.as_ref(),
        progress,
    };
    crate::inputs::check_reveal_to(options.reveal_to, parties)?;
    let malicious = hold_outputs;
    drop(probe);
    progress.start(
        net.party(),
        instances as u64,
        (slices.len() * lanes * program.steps.len()) as u64,
    );
    progress.set_lanes(lanes);
    if let Err(e) = run_lanes(&job, &make, net, &roles, &lane_ranges) {
        if let RunError::Abort {
            culprit: Some(c), ..
        } = e
        {
            net.blame(c);
        }
        return Err(e);
    }
    if malicious {
        // Nothing may follow the last message (a duplicate would go unread).
        net.finish()?;
    }
    net.stop_clock();
    Ok(sink.map_or_else(Vec::new, OutputSink::into_matrices))
}

/// The outputs of a party that learns them: one matrix per output value
/// (rows = instances), filled slice by slice as the lanes open them, so a
/// slice's words are dropped at once and the whole batch's outputs are held
/// once, not gathered and converted in further copies.
struct OutputSink<'a> {
    circuit: &'a Circuit,
    program: &'a Program,
    matrices: std::sync::Mutex<Vec<BitMatrix>>,
}

impl<'a> OutputSink<'a> {
    fn new(circuit: &'a Circuit, program: &'a Program, instances: usize) -> Self {
        OutputSink {
            circuit,
            program,
            matrices: std::sync::Mutex::new(
                (0..circuit.outputs().len())
                    .map(|o| BitMatrix::zeros(instances, circuit.output_bits(o)))
                    .collect(),
            ),
        }
    }

    /// Writes the opened words of the instances `range` (per domain, every
    /// output wire's words over the range, wires in the order of the values).
    fn add(&self, range: &std::ops::Range<usize>, opened: &[Vec<u64>; 2]) {
        // A lane that panicked holding the lock fails the run anyway.
        let mut matrices = self.matrices.lock().unwrap_or_else(|e| e.into_inner());
        let mut wire = [0usize; 2];
        for (v, m) in self.circuit.outputs().iter().zip(matrices.iter_mut()) {
            let (d, wires) = (v.domain as usize, v.wires.len());
            let n = domain_range(self.program.lanes(v.domain), range).len();
            let words = &opened[d][wire[d] * n..(wire[d] + wires) * n];
            wire[d] += wires;
            match (v.domain, self.circuit.ring()) {
                (Domain::Ring, Some(r)) => {
                    let (k, lanes) = (r.bits(), self.program.ring_lanes);
                    for j in 0..wires {
                        let (word, shift) = (j * k as usize / 64, j * k as usize % 64);
                        for (at, inst) in range.clone().enumerate() {
                            let e = arith::lane(words[j * n + at / lanes], k, at % lanes);
                            m.row_mut(inst)[word] |= (e & r.mask()) << shift;
                        }
                    }
                }
                _ => {
                    // Bitsliced: word t of a wire holds instances
                    // range.start + 64t.., so 64x64 blocks transpose into rows.
                    let mut block = [0u64; 64];
                    for b in 0..wires.div_ceil(64) {
                        let live = (wires - 64 * b).min(64);
                        for t in 0..n {
                            for (i, slot) in block.iter_mut().enumerate() {
                                *slot = if i < live {
                                    words[(64 * b + i) * n + t]
                                } else {
                                    0
                                };
                            }
                            huddle_core::bits::transpose_64x64(&mut block);
                            let row = range.start + 64 * t;
                            for (i, &w) in block.iter().enumerate().take(range.end - row) {
                                m.row_mut(row + i)[b] = w;
                            }
                        }
                    }
                }
            }
        }
    }

    fn into_matrices(self) -> Vec<BitMatrix> {
        self.matrices
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
    }
}

/// The words of `lanes` instances each that hold the instances `range`
/// (whose start is a multiple of `lanes`).
fn domain_range(lanes: usize, range: &std::ops::Range<usize>) -> std::ops::Range<usize> {
    range.start / lanes..range.end.div_ceil(lanes)
}

/// The lane count and the slice (in units of the batch, all lanes
/// together) for a batch of `units` units whose share memory holds `slice`
/// units at once. Only auto's one core per party chooses: a short batch
/// runs as one lane of the width each of two lanes would have, so the
/// memory touched halves; a long one as two lanes.
fn lanes_and_slice(options: &crate::RunOptions, units: usize, slice: usize) -> (usize, usize) {
    if !options.one_core_auto() {
        return (options.threads, slice);
    }
    if units.div_ceil(slice.max(1)) >= FILLER_MIN_SLICES {
        (FILLER_LANES, slice)
    } else {
        (1, (slice / FILLER_LANES).max(1))
    }
}

/// Copies of a slice's input words a party may hold while sharing them
/// (counted in the slice size, so `share_memory` bounds them too).
const INPUT_COPIES: u128 = 6;

/// Every order of `0..n`, lexicographic (the identity first).
fn permutations(n: usize) -> Vec<Vec<PartyId>> {
    let mut all = Vec::new();
    let mut p: Vec<PartyId> = (0..n).collect();
    loop {
        all.push(p.clone());
        // The next permutation in lexicographic order, if any.
        let Some(i) = (1..n).rev().find(|&i| p[i - 1] < p[i]) else {
            return all;
        };
        let j = (i..n).rev().find(|&j| p[j] > p[i - 1]).unwrap_or(i);
        p.swap(i - 1, j);
        p[i..].reverse();
    }
}

/// Runs `job` on one lane per entry of `roles`, lane l on the instance
/// ranges `lane_ranges(l)` with role r played by party `roles[l][r]`. More
/// than one lane: one thread each, all at once over this endpoint split
/// into lanes ([`Network::split`]). Lanes are independent runs, so one
/// lane's wait for a message leaves the core to another; with split roles
/// each party plays every role and each link carries every role pair's
/// traffic, each on its share of the batch.
fn run_lanes<P: Sharing, F: Fn(PartyId) -> P + Sync>(
    job: &Lane,
    make: &F,
    net: &mut Network,
    roles: &[Vec<PartyId>],
    lane_ranges: &(dyn Fn(usize) -> Vec<std::ops::Range<usize>> + Sync),
) -> Result<(), RunError> {
    let me = net.party();
    if let [only] = roles {
        return job
            .run(make(role_of(only, me)), net, 0, &lane_ranges(0), only)
            .map_err(|e| in_parties(e, 0, only));
    }
    // Lanes drift apart by at most about a slice: what a peer's lanes can
    // send before ours ask for it.
    let lane_nets = net.split(roles.len(), job.share_memory.saturating_mul(2))?;
    let done: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = lane_nets
            .into_iter()
            .zip(roles)
            .enumerate()
            .map(|(lane, (lane_net, roles))| {
                let ranges = lane_ranges(lane);
                s.spawn(move || {
                    let role = role_of(roles, me);
                    let mut t = RoleNet {
                        net: lane_net,
                        roles,
                        role,
                    };
                    let r = job
                        .run(make(role), &mut t, lane, &ranges, roles)
                        .map_err(|e| in_parties(e, lane, roles));
                    if let Err(e) = &r {
                        // The other lanes stop too, and the peers learn who.
                        let culprit = match e {
                            RunError::Abort {
                                culprit: Some(c), ..
                            } => *c,
                            RunError::Net(n) => n.culprit().unwrap_or(me),
                            _ => me,
                        };
                        t.net.fail(culprit);
                    }
                    (t.net, r)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .map_err(|_| RunError::Internal("a role lane's thread panicked".into()))
            })
            .collect()
    });
    let mut lane_nets = Vec::new();
    let (mut first_abort, mut first_error) = (None, None);
    for d in done {
        match d {
            Ok((lane_net, Ok(()))) => lane_nets.push(lane_net),
            Ok((lane_net, Err(e))) => {
                lane_nets.push(lane_net);
                if matches!(e, RunError::Abort { .. }) {
                    first_abort = first_abort.or(Some(e));
                } else {
                    first_error = first_error.or(Some(e));
                }
            }
            Err(e) => first_error = first_error.or(Some(e)),
        }
    }
    // A failed check is the root cause: the other lanes' errors (and the
    // join's) are what stopping for it did to them.
    let joined = net.join(lane_nets);
    if let Some(e) = first_abort.or(first_error) {
        return Err(e);
    }
    joined?;
    Ok(())
}

/// The role `party` plays where role r is played by `roles[r]`.
fn role_of(roles: &[PartyId], party: PartyId) -> PartyId {
    roles.iter().position(|&p| p == party).unwrap_or(party)
}

/// A lane's error in terms of parties rather than its roles (where the
/// lane's roles are not the protocol's own).
fn in_parties(e: RunError, lane: usize, roles: &[PartyId]) -> RunError {
    if roles.iter().enumerate().all(|(r, &p)| r == p) {
        return e;
    }
    match e {
        RunError::Abort { check, culprit } => RunError::Abort {
            check: format!(
                "{check} (role lane {lane}: roles P0..P{} are parties {roles:?})",
                roles.len() - 1
            ),
            culprit: culprit.map(|c| roles.get(c).copied().unwrap_or(c)),
        },
        e => e,
    }
}

/// One lane of a split-roles run: the protocol speaks in roles, the lane's
/// endpoint in parties.
struct RoleNet<'a> {
    net: huddle_net::LaneNet,
    roles: &'a [PartyId],
    role: PartyId,
}

impl RoleNet<'_> {
    fn party_of(&self, role: PartyId) -> Result<PartyId, NetError> {
        self.roles.get(role).copied().ok_or(NetError::UnknownPeer {
            peer: role,
            me: self.role,
            parties: self.roles.len(),
        })
    }
}

impl Transport for RoleNet<'_> {
    fn party(&self) -> PartyId {
        self.role
    }
    fn parties(&self) -> usize {
        self.roles.len()
    }
    /// As [`Network`]'s: an empty message is not sent.
    fn send(&mut self, to: PartyId, data: Vec<u8>) -> Result<(), NetError> {
        if data.is_empty() {
            return Ok(());
        }
        let to = self.party_of(to)?;
        self.net.send(to, data)
    }
    fn recv(&mut self, from: PartyId, len: usize) -> Result<Vec<u8>, NetError> {
        if len == 0 {
            return Ok(Vec::new());
        }
        let from = self.party_of(from)?;
        self.net.recv(from, len)
    }
    fn set_phase(&mut self, phase: Phase) {
        self.net.set_phase(phase)
    }
    fn phase(&self) -> Phase {
        self.net.phase()
    }
    fn stop_clock(&mut self) {
        self.net.stop_clock()
    }
    fn announce(&self, step: &str) {
        self.net.announce(step)
    }
}

/// The input values of one domain, as every lane sees them.
struct DomainValues {
    /// Per value of this domain (in input order), the slot of each wire.
    slots: Vec<Vec<u32>>,
    owners: Vec<PartyId>,
    /// This party's values.
    own: Vec<Option<OwnWords>>,
    /// Words per wire of the whole batch.
    total: usize,
}

/// One of this party's input values as share-domain words.
enum OwnWords {
    /// Over the whole batch, wire-major (`total` words per wire).
    Whole(Vec<u64>),
    /// Input value `.0`, drawn for each slice when it is shared.
    Drawn(usize, crate::inputs::RandomRows),
}

/// What every lane of a party evaluates.
struct Lane<'a> {
    circuit: &'a Circuit,
    program: &'a Program,
    /// Where the opened outputs go, at a party that learns them.
    outputs: Option<&'a OutputSink<'a>>,
    /// Input values by domain (`Domain as usize`).
    values: [DomainValues; 2],
    reveal_to: Option<PartyId>,
    randomness: crate::Randomness,
    fault: Option<crate::fault::Fault>,
    verify_every: Option<usize>,
    /// Bytes of shares a party holds at once (all lanes).
    share_memory: usize,
    /// Whether each slice's output shares are held until every slice and
    /// lane has been evaluated and verified (see [`HeldSlice`]).
    hold_outputs: bool,
    /// Where this party's lanes meet before opening held outputs (more
    /// than one lane).
    reveal_gate: Option<&'a RevealGate>,
    progress: &'a crate::progress::Progress,
}

impl Lane<'_> {
    /// Setup, then every slice in `ranges` (instance ranges of the batch),
    /// each slice's opened outputs into `outputs`.
    /// `roles[r]` is the party that plays role r in this lane (`net`
    /// speaks in roles): input owners and the output party are parties.
    fn run<P: Sharing>(
        &self,
        mut protocol: P,
        net: &mut dyn Transport,
        lane: usize,
        ranges: &[std::ops::Range<usize>],
        roles: &[PartyId],
    ) -> Result<(), RunError> {
        let first_draw = crate::options::draws::SHARING_KEYS + ((lane as u64) << 16);
        let me = net.party();
        let main = self.program.main_domain();
        let mut ch = Channel::new(
            net,
            self.program
                .encoding(main, ranges.first().map_or(0, |r| r.len())),
            self.randomness,
            first_draw,
        );
        ch.progress = Some(self.progress.clone());
        if let Some(fault) = self.fault.filter(|f| f.party == me) {
            ch.set_fault(crate::fault::ActiveFault::new(
                fault,
                protocol.messages(),
                lane,
            ));
        }
        // Held outputs wait at the gate; leaving early (an error) opens it.
        let mut gate = GateGuard {
            gate: self.reveal_gate,
            arrived: false,
        };
        let mut held: Vec<HeldSlice> = Vec::new();
        let to = self.reveal_to.map(|p| role_of(roles, p));
        ch.set_phase(Phase::Setup);
        protocol.setup(&mut ch)?;
        // One allocation for every slice: fresh memory costs a page fault per page.
        let widest = ranges.iter().map(|r| r.len()).max().unwrap_or(0);
        let mut arenas = Arenas::new(
            self.program.slots,
            widest,
            protocol.components(),
            self.program.ring_lanes,
        );
        for range in ranges {
            protocol.begin_batch();
            let inputs = [Domain::Bit, Domain::Ring].map(|d| {
                let v = &self.values[d as usize];
                let r = domain_range(self.program.lanes(d), range);
                InputValues {
                    owners: v.owners.iter().map(|&p| role_of(roles, p)).collect(),
                    slots: &v.slots,
                    own: v
                        .own
                        .iter()
                        .map(|own| {
                            own.as_ref().map(|own| match own {
                                OwnWords::Whole(words) if r.start == 0 && r.end == v.total => {
                                    std::borrow::Cow::Borrowed(words.as_slice())
                                }
                                OwnWords::Whole(words) => words
                                    .chunks_exact(v.total.max(1))
                                    .flat_map(|wire| wire[r.clone()].iter().copied())
                                    .collect(),
                                // Boolean words are drawn bitsliced, as they are.
                                OwnWords::Drawn(i, rows)
                                    if packed_ring(self.circuit, *i).is_none()
                                        && range.start.is_multiple_of(64) =>
                                {
                                    std::borrow::Cow::Owned(rows.columns(range.clone()))
                                }
                                OwnWords::Drawn(i, rows) => std::borrow::Cow::Owned(to_wire_words(
                                    self.circuit,
                                    *i,
                                    rows.rows(range.clone()),
                                    self.program.ring_lanes,
                                )),
                            })
                        })
                        .collect(),
                    reveal_to: self.reveal_to.map(|p| role_of(roles, p)),
                }
            });
            arenas.resize(range.len());
            evaluate_slice(
                &mut protocol,
                &mut ch,
                self.program,
                &inputs,
                &mut arenas,
                self.verify_every,
            )?;
            if self.hold_outputs {
                held.push(HeldSlice::take(self.program, &arenas, range.clone()));
                continue;
            }
            let all = |d: Domain| self.program.output_slots(d);
            let (bits, ring) = (all(Domain::Bit), all(Domain::Ring));
            let source = [(&arenas.bits, &bits[..]), (&arenas.ring, &ring[..])];
            let opened = reveal_outputs(
                &mut protocol,
                &mut ch,
                self.program,
                range.len(),
                source,
                to,
            )?;
            self.collect(range, opened)?;
        }
        if !gate.pass() {
            // Another lane failed: its error is the run's; open nothing.
            return Ok(());
        }
        drop(arenas);
        // Opening held shares counts as online; with none held the phase
        // stays as it is, so that the phase log ends at the reveal.
        if !held.is_empty() {
            ch.set_phase(Phase::Online);
        }
        for h in held {
            let slots: Vec<Vec<u32>> = h
                .shares
                .iter()
                .map(|s| (0..s.slots() as u32).collect())
                .collect();
            let source = [(&h.shares[0], &slots[0][..]), (&h.shares[1], &slots[1][..])];
            let opened = reveal_outputs(
                &mut protocol,
                &mut ch,
                self.program,
                h.range.len(),
                source,
                to,
            )?;
            self.collect(&h.range, opened)?;
        }
        Ok(())
    }

    /// Writes a slice's opened outputs into the sink, at a party that learns them.
    fn collect(
        &self,
        range: &std::ops::Range<usize>,
        opened: Option<[Vec<u64>; 2]>,
    ) -> Result<(), RunError> {
        match (self.outputs, opened) {
            (Some(sink), Some(opened)) => sink.add(range, &opened),
            (Some(_), None) => return Err(RunError::Internal("an output slice is missing".into())),
            (None, _) => {}
        }
        Ok(())
    }
}

/// Preprocessing, the inputs, the layers and the verification of one
/// slice. Inputs are shared domain by domain: the circuit's main domain
/// always (even without values, so single-domain runs are as before), the
/// other one where it has values.
fn evaluate_slice<P: Sharing>(
    protocol: &mut P,
    ch: &mut Channel,
    program: &Program,
    inputs: &[InputValues; 2],
    arenas: &mut Arenas,
    verify_every: Option<usize>,
) -> Result<(), RunError> {
    let main = program.main_domain();
    ch.set_phase(Phase::Offline);
    protocol.preprocess(ch, program, inputs, arenas)?;
    ch.set_phase(Phase::Online);
    for d in [Domain::Bit, Domain::Ring] {
        if !program.shares_inputs(d) {
            continue;
        }
        ch.set_encoding(program.encoding(d, arenas.instances));
        match d {
            Domain::Bit => protocol.share_inputs::<Bits>(ch, &inputs[0], &mut arenas.bits)?,
            Domain::Ring => with_ring!(program.ring_lanes, R => {
                protocol.share_inputs::<R>(ch, &inputs[1], &mut arenas.ring)?
            }),
        }
    }
    if protocol.evaluates_online() {
        ch.counts_progress = true;
        evaluate(protocol, ch, program, arenas, verify_every)?;
        ch.counts_progress = false;
    }
    ch.set_encoding(program.encoding(main, arenas.instances));
    protocol.verify(ch)
}

/// Where a slice's outputs are opened from, per domain: the shares and the
/// slots of the output wires in them (the slice's arenas, or its held
/// output shares).
type OutputSource<'a> = [(&'a Shares, &'a [u32]); 2];

/// Opens a slice's outputs (of `instances` instances) to `to` (a role;
/// None: every party), domain by domain where the program reveals one: the
/// opened words per domain at a party that learns them.
fn reveal_outputs<P: Sharing>(
    protocol: &mut P,
    ch: &mut Channel,
    program: &Program,
    instances: usize,
    source: OutputSource,
    to: Option<PartyId>,
) -> Result<Option<[Vec<u64>; 2]>, RunError> {
    ch.announce(REVEAL);
    let mut opened: [Vec<u64>; 2] = Default::default();
    let mut learned = false;
    for d in [Domain::Bit, Domain::Ring] {
        if !program.reveals(d) {
            continue;
        }
        let (shares, slots) = source[d as usize];
        ch.set_encoding(program.encoding(d, instances));
        let got = match d {
            Domain::Bit => protocol.reveal::<Bits>(ch, slots, shares, to)?,
            Domain::Ring => with_ring!(program.ring_lanes, R => {
                protocol.reveal::<R>(ch, slots, shares, to)?
            }),
        };
        if let Some(words) = got {
            opened[d as usize] = words;
            learned = true;
        }
    }
    Ok(learned.then_some(opened))
}

/// A slice's output shares, held until every slice and every lane of the
/// batch has shared its inputs and passed verification (the protocols that
/// claim security against malicious parties): only then may any output be
/// opened, so that a cheating party sees no output of the batch before it
/// has committed to all its inputs (a batch is one joint evaluation).
struct HeldSlice {
    range: std::ops::Range<usize>,
    /// Per domain, every share component of the output wires' slots, in
    /// the order of [`Program::output_slots`] (slot k: output wire k).
    shares: [Shares; 2],
}

impl HeldSlice {
    fn take(program: &Program, arenas: &Arenas, range: std::ops::Range<usize>) -> HeldSlice {
        let shares = [Domain::Bit, Domain::Ring].map(|d| {
            let from = arenas.domain(d);
            let slots = if program.reveals(d) {
                program.output_slots(d)
            } else {
                Vec::new()
            };
            let mut held = Shares::new(slots.len(), from.w, from.components());
            for c in 0..from.components() {
                for (k, &slot) in slots.iter().enumerate() {
                    held.set(c, k as u32, from.get(c, slot));
                }
            }
            held
        });
        HeldSlice { range, shares }
    }
}

/// Where the lanes of a party that hold their outputs wait until every lane
/// has evaluated and verified all its slices; a lane that fails (or panics)
/// opens it for the others, which then reveal nothing.
struct RevealGate {
    lanes: usize,
    state: std::sync::Mutex<GateState>,
    changed: std::sync::Condvar,
}

#[derive(Default)]
struct GateState {
    arrived: usize,
    failed: bool,
}

impl RevealGate {
    fn new(lanes: usize) -> RevealGate {
        RevealGate {
            lanes,
            state: std::sync::Mutex::new(GateState::default()),
            changed: std::sync::Condvar::new(),
        }
    }

    /// Waits until every lane has arrived (true) or one has failed (false).
    fn arrive_and_wait(&self) -> bool {
        let Ok(mut state) = self.state.lock() else {
            return false;
        };
        state.arrived += 1;
        self.changed.notify_all();
        while state.arrived < self.lanes && !state.failed {
            state = match self.changed.wait(state) {
                Ok(s) => s,
                Err(_) => return false,
            };
        }
        !state.failed
    }

    fn fail(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.failed = true;
        }
        self.changed.notify_all();
    }
}

/// Fails the gate when dropped before the lane arrived at it (an error
/// returned early, or a panic), so no other lane waits for it forever.
struct GateGuard<'a> {
    gate: Option<&'a RevealGate>,
    arrived: bool,
}

impl GateGuard<'_> {
    /// Arrives; true when every lane has evaluated its slices.
    fn pass(&mut self) -> bool {
        self.arrived = true;
        self.gate.is_none_or(RevealGate::arrive_and_wait)
    }
}

impl Drop for GateGuard<'_> {
    fn drop(&mut self) {
        if let (Some(gate), false) = (self.gate, self.arrived) {
            gate.fail();
        }
    }
}

/// The ring whose elements input value `i`'s words pack, if they do (else
/// they are its rows transposed: a word per wire and 64 instances).
fn packed_ring(circuit: &Circuit, i: usize) -> Option<huddle_core::RingWidth> {
    circuit
        .ring()
        .filter(|_| circuit.inputs()[i].domain == Domain::Ring)
}

/// Input value `i` (rows = instances) as share-domain words, wire-major:
/// Boolean wires as bitsliced rows, ring wires as `lanes` elements per word
/// (padding lanes zero).
fn to_wire_words(circuit: &Circuit, i: usize, m: BitMatrix, lanes: usize) -> Vec<u64> {
    let wires = circuit.inputs()[i].wires as usize;
    match packed_ring(circuit, i) {
        Some(r) => {
            let k = r.bits() as usize;
            let w = m.rows().div_ceil(lanes);
            let mut out = vec![0u64; wires * w];
            for (j, wire) in out.chunks_exact_mut(w.max(1)).enumerate().take(wires) {
                let (word, shift) = (j * k / 64, j * k % 64);
                for inst in 0..m.rows() {
                    let e = (m.row(inst)[word] >> shift) & r.mask();
                    wire[inst / lanes] |= e << (k * (inst % lanes) % 64);
                }
            }
            out
        }
        None => {
            let t = m.transpose();
            drop(m);
            t.into_words()
        }
    }
}

/// Draws `n` words from a PRG stream (off the hot path; rounds use `Channel::draw`).
pub(crate) fn draw(prg: &mut huddle_core::Prg, n: usize) -> Vec<u64> {
    let mut v = vec![0u64; n];
    prg.fill_u64(&mut v);
    v
}

/// A 128-bit key: one party samples it and sends it to the other.
pub(crate) fn agree_key(
    ch: &mut Channel,
    peer: PartyId,
    i_choose: bool,
) -> Result<huddle_core::Prg, RunError> {
    let me = ch.party();
    let (chooser, other) = if i_choose { (me, peer) } else { (peer, me) };
    // Untagged: the semi-honest protocols have no message types to fault.
    Ok(share_key(ch, 0, chooser, &[chooser, other])?.0)
}

/// Keys, digests and verdicts travel as full 64-bit words whatever the share
/// domain; sent as a message of type `tag` (see [`Channel::send_tagged`]).
pub(crate) fn send_raw_tagged(
    ch: &mut Channel,
    tag: usize,
    to: PartyId,
    words: &[u64],
) -> Result<(), RunError> {
    let saved = std::mem::replace(&mut ch.encoding, wire::Encoding::RAW);
    let r = ch.send_tagged(tag, to, words);
    ch.encoding = saved;
    r
}

pub(crate) fn recv_raw(ch: &mut Channel, from: PartyId, n: usize) -> Result<wire::Words, RunError> {
    let saved = std::mem::replace(&mut ch.encoding, wire::Encoding::RAW);
    let r = ch.recv(from, n);
    ch.encoding = saved;
    r
}

/// A 128-bit key for the parties `holders`: `chooser` samples it and sends
/// it (as message type `tag`) to the others. Returns the key's stream and
/// the key as it travels, two words (for a consistency check among the
/// receivers).
pub(crate) fn share_key(
    ch: &mut Channel,
    tag: usize,
    chooser: PartyId,
    holders: &[PartyId],
) -> Result<(huddle_core::Prg, [u64; 2]), RunError> {
    let me = ch.party();
    let words = if me == chooser {
        let key = ch.fresh_prg()?.next_seed();
        let words = [
            u64::from_le_bytes(key[..8].try_into().expect("8 bytes")),
            u64::from_le_bytes(key[8..].try_into().expect("8 bytes")),
        ];
        for &p in holders.iter().filter(|&&p| p != me) {
            send_raw_tagged(ch, tag, p, &words)?;
        }
        words
    } else {
        let received = recv_raw(ch, chooser, 2)?;
        [received[0], received[1]]
    };
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&words[0].to_le_bytes());
    key[8..].copy_from_slice(&words[1].to_le_bytes());
    Ok((huddle_core::Prg::from_seed(key), words))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// Only `--threads auto` on one core per party chooses the lanes: two
    /// for a batch of at least FILLER_MIN_SLICES slices, else one of half
    /// the slice; a count given, or auto's several cores, run as given.
    #[test]
    fn auto_on_one_core_chooses_lanes_by_the_batch() {
        let auto = crate::RunOptions {
            threads: 1,
            threads_auto: true,
            ..crate::RunOptions::default()
        };
        let long = FILLER_MIN_SLICES * 10;
        assert_eq!(lanes_and_slice(&auto, long, 10), (FILLER_LANES, 10));
        // 71 units are 8 slices of 10 (the last short), 70 are 7.
        let (short, at_least) = (long - 10, long - 9);
        assert_eq!(lanes_and_slice(&auto, at_least, 10), (FILLER_LANES, 10));
        assert_eq!(lanes_and_slice(&auto, short, 10), (1, 5));
        assert_eq!(lanes_and_slice(&auto, 3, 10), (1, 5));
        assert_eq!(
            lanes_and_slice(&auto, 3, 1),
            (1, 1),
            "a slice stays a unit at least"
        );
        for options in [
            crate::RunOptions {
                threads: 1,
                threads_auto: false,
                ..auto
            },
            crate::RunOptions {
                threads: 3,
                threads_auto: false,
                ..auto
            },
            crate::RunOptions {
                threads: 3,
                threads_auto: true,
                ..auto
            },
        ] {
            for units in [3, long] {
                assert_eq!(lanes_and_slice(&options, units, 10), (options.threads, 10));
            }
        }
        assert_eq!(auto.worker_threads(), FILLER_LANES);
        assert_eq!(crate::RunOptions { threads: 3, ..auto }.worker_threads(), 3);
    }

    /// A message built with `Channel::message` is the buffer that arrives
    /// (in memory, links pass the buffer itself): sending copies nothing,
    /// and every word written is what the receiver reads.
    #[test]
    fn a_message_goes_out_in_the_buffer_it_was_written_in() {
        let mut nets =
            huddle_net::memory_networks(2, &huddle_net::NetProfile::lan(), Duration::from_secs(10));
        let (mut b, mut a) = (nets.pop().expect("two"), nets.pop().expect("two"));
        let n = 9000;
        let want: Vec<u64> = (0..n as u64).map(|k| k.wrapping_mul(0x9e37_79b9)).collect();
        let mut sender = Channel::new(&mut a, wire::Encoding::RAW, crate::Randomness::Os, 0);
        for round in 0..3 {
            let mut m = sender.message(n);
            m.copy_from_slice(&want);
            m[round] ^= 1;
            let at = m.as_ptr();
            sender.send_message(1, m).expect("sent");
            let mut receiver = Channel::new(&mut b, wire::Encoding::RAW, crate::Randomness::Os, 0);
            let got = receiver.recv(0, n).expect("received");
            assert_eq!(got.as_ptr(), at, "the written buffer itself travels");
            let mut expected = want.clone();
            expected[round] ^= 1;
            assert_eq!(&got[..], &expected[..]);
            // Back to the pool: the next message may reuse it, old bytes and all.
            receiver.recycle(got);
        }
        // Words that do not travel whole (16-bit elements) are encoded, not aliased.
        let mut narrow = Channel::new(
            &mut a,
            wire::Encoding::elements_of(2),
            crate::Randomness::Os,
            0,
        );
        let mut m = narrow.message(4);
        m.copy_from_slice(&[1, 2, 0xffff, 7]);
        narrow.send_message(1, m).expect("sent");
        let mut receiver = Channel::new(
            &mut b,
            wire::Encoding::elements_of(2),
            crate::Randomness::Os,
            0,
        );
        assert_eq!(
            &receiver.recv(0, 4).expect("received")[..],
            &[1, 2, 0xffff, 7]
        );
    }
}
