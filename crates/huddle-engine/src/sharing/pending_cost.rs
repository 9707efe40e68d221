// TEMPORARY during development: replaced protocol by protocol.
use super::cost::{Dry, SharingCost};
use super::program::{Layer, Program};
use super::InputValues;
use huddle_circuit::Domain;
use huddle_net::PartyId;
macro_rules! pending { ($($t:ty),*) => { $(
impl SharingCost for $t {
    fn setup_cost(&mut self, _ch: &mut Dry) {}
    fn share_inputs_cost(&mut self, _ch: &mut Dry, _inputs: &InputValues, _w: usize) {}
    fn multiply_cost(&mut self, _ch: &mut Dry, _program: &Program, _layer: &Layer, _w: usize) {}
    fn reveal_cost(&mut self, _ch: &mut Dry, _d: Domain, _slots: usize, _w: usize, _to: Option<PartyId>) {}
}
)* } }
pending!(super::client_aided::ClientAided);
