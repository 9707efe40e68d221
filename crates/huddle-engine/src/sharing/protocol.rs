//! What a secret-sharing protocol is to the engine: the [`Sharing`] trait
//! it implements, and its [`Capabilities`], read from its row of the
//! protocol table (the [`Descriptor`] its module states).

use super::arith::Arith;
use super::channel::Channel;
use super::convert::SplitJob;
use super::program::{self, Layer, Program};
use super::shares::{Arenas, ConstantRule, InputValues, Shares};
use crate::descriptor::Descriptor;
use crate::error::RunError;
use huddle_net::PartyId;

/// What a secret-sharing protocol can do, read from its row of the
/// protocol table ([`Sharing::descriptor`]). Not methods of [`Sharing`],
/// so that no implementation can state them a second time (and disagree
/// with its row).
pub(crate) trait Capabilities: Sharing {
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
    /// For the malicious protocols: the types of message they send, which
    /// fault injection can target (see [`crate::fault`]).
    fn messages(&self) -> &'static [crate::fault::MessageType] {
        self.descriptor().messages
    }
}

impl<S: Sharing + ?Sized> Capabilities for S {}

/// A secret-sharing protocol, free of I/O: everything it says goes through
/// the [`Channel`].
pub(crate) trait Sharing {
    /// The protocol's row of the protocol table, the constant its module
    /// states: what it can do, which [`Capabilities`] reads from there, so
    /// no implementation restates it.
    fn descriptor(&self) -> &'static Descriptor;
    /// Widest product in the circuits that recombine conversion terms
    /// ([`program::ConversionKind`]) for a batch of `instances`: narrower
    /// than `max_fan_in` where a wide product costs much more than a round
    /// (MFI-3PC).
    fn conversion_fan_in(&self, _instances: usize) -> usize {
        self.max_fan_in().min(program::CONVERSION_FAN_IN)
    }
    fn constant_rule(&self) -> ConstantRule;
    /// Share components per wire at every party (at most
    /// [`MAX_COMPONENTS`](super::MAX_COMPONENTS)).
    fn components(&self) -> usize {
        2
    }
    /// Key agreement (phase `setup`).
    fn setup(&mut self, ch: &mut Channel) -> Result<(), RunError>;
    /// Called before each slice of the batch: forget per-slice state.
    fn begin_batch(&mut self) {}
    /// Function-dependent preprocessing before inputs (phase `offline`); may
    /// call [`evaluate`](super::evaluate) for a party whose whole part is
    /// input-independent.
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
    /// A conversion step (see [`convert`](super::convert)): for every source slot in `src`
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
}
