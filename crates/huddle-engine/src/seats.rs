//! A run whose protocol roles are played by other hosts than their ids
//! (`--roles`, or `--protocol auto`'s choice for the links): host h stays
//! party h of the parties file, with its own links, certificate and data,
//! and plays role r = the position of h in `roles`. Its network speaks
//! roles to the protocol ([`huddle_net::Network::play_roles`]); the run
//! itself is relabelled here ([`Run::as_roles`]): what host h owns, role r
//! owns, and outputs for host h go to role r.

use crate::builder::Run;
use crate::error::RunError;
use huddle_circuit::InputOwners;
use huddle_net::PartyId;

impl Run {
    /// This run with role r played by host `roles[r]`: each input value
    /// owned by the role its owner plays, the outputs of `--reveal-to h`
    /// revealed to the role h plays. The identity gives the same run.
    pub fn as_roles(&self, roles: &[PartyId]) -> Result<Run, RunError> {
        let n = self.request.parties();
        crate::plan::check_roles(roles, Some(n))?;
        let role_of = |h: PartyId| roles.iter().position(|&x| x == h).unwrap_or(h);
        let owners = (0..self.circuit.inputs().len())
            .map(|i| role_of(self.owner(i)))
            .collect();
        let mut circuit = (*self.circuit).clone();
        circuit
            .set_owners(InputOwners::Explicit(owners))
            .map_err(|e| RunError::Input(format!("--roles: {e}")))?;
        let options = self.request.options();
        let options = options.with_reveal_to(options.reveal_to.map(role_of));
        Run::builder(self.request.protocol())
            .parties(n)
            .options(options)
            .circuit(circuit)
            .progress(&self.progress)
            .cancel(&self.cancel)
            .build()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Protocol, RunOptions};

    /// Roles 2,0,1: host 0 plays role 1, so what host 0 owned role 1 owns,
    /// and --reveal-to 0 reveals to role 1.
    #[test]
    fn what_a_host_owns_and_learns_its_role_does() {
        let circuit = huddle_circuit::gen::adder_ripple(4);
        let run = Run::builder(Protocol::Trio)
            .parties(3)
            .options(RunOptions::for_protocol(Protocol::Trio).with_reveal_to(Some(0)))
            .circuit(circuit)
            .build()
            .expect("run");
        let seated = run.as_roles(&[2, 0, 1]).expect("roles");
        assert_eq!((run.owner(0), run.owner(1)), (0, 1));
        assert_eq!((seated.owner(0), seated.owner(1)), (1, 2));
        assert!(seated.learns(1) && !seated.learns(0) && !seated.learns(2));
        assert!(run.as_roles(&[0, 0, 1]).is_err());
    }
}
