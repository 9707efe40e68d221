//! The network as both engines see it: what a protocol may ask of a
//! network ([`Transport`]), implemented by [`Network`] and, in the
//! secret-sharing engine, by each lane of a run split by roles.
//! Internal, except to the engine's own tests (feature `testing`).
// Without `testing` the trait is the engine's own.
#![cfg_attr(not(feature = "testing"), allow(unreachable_pub))]

use huddle_net::{NetError, Network, PartyId, Phase};

/// What protocols need from a network.
pub trait Transport {
    /// This party's id.
    fn party(&self) -> PartyId;
    /// The number of parties.
    fn parties(&self) -> usize;
    /// Sends `data` to `to` (an empty message is not sent: both sides know
    /// its size).
    fn send(&mut self, to: PartyId, data: Vec<u8>) -> Result<(), NetError>;
    /// Receives the next message from `from`, of exactly `len` bytes.
    fn recv(&mut self, from: PartyId, len: usize) -> Result<Vec<u8>, NetError>;
    /// Counts traffic and time under `phase` from now on.
    fn set_phase(&mut self, phase: Phase);
    /// The phase traffic is counted under now.
    fn phase(&self) -> Phase;
    /// Ends the current phase's time.
    fn stop_clock(&mut self) {}
    /// Logs that this party enters `step` of its run (`reveal`), a part
    /// the phases do not separate ([`huddle_net::PHASE_LOG`]).
    fn announce(&self, _step: &str) {}
}

/// The step a party's phase log ([`huddle_net::PHASE_LOG`]) names when it
/// starts opening the outputs, a part of the run the phases do not
/// separate (`huddle bench chaos` aims at it).
pub const REVEAL: &str = "reveal";

impl Transport for Network {
    fn party(&self) -> PartyId {
        Network::party(self)
    }
    fn parties(&self) -> usize {
        Network::parties(self)
    }
    /// An empty message is not sent at all: both sides know its size.
    fn send(&mut self, to: PartyId, data: Vec<u8>) -> Result<(), NetError> {
        if data.is_empty() {
            return Ok(());
        }
        Network::send(self, to, data)
    }
    fn recv(&mut self, from: PartyId, len: usize) -> Result<Vec<u8>, NetError> {
        if len == 0 {
            return Ok(Vec::new());
        }
        Network::recv(self, from, len)
    }
    fn set_phase(&mut self, phase: Phase) {
        Network::set_phase(self, phase)
    }
    fn phase(&self) -> Phase {
        Network::phase(self)
    }
    fn stop_clock(&mut self) {
        Network::stop_clock(self)
    }
    fn announce(&self, step: &str) {
        Network::announce(self, step)
    }
}
