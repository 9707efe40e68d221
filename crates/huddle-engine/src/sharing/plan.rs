//! How a batch is cut before a secret-sharing run ([`Plan::new`]): the
//! circuit compiled for the protocol, the unit that keeps share words
//! whole, the slice that fits the share memory, the lanes and who plays
//! which role in each. The run ([`super::run`]) and its cost model
//! ([`super::cost`]) cut a batch here, the same way.

use super::lanes::{lanes_and_slice, permutations};
use super::program::{Program, Target};
use super::protocol::{Capabilities, Sharing};
use crate::error::RunError;
use huddle_circuit::{Circuit, Domain};
use huddle_net::PartyId;
use std::ops::Range;

/// A batch of a secret-sharing run, cut into slices and lanes.
pub(super) struct Plan {
    /// The circuit compiled for the protocol (ring words packed where they can be).
    pub(super) program: Program,
    /// Instances per unit of the batch: 64 with Boolean wires, else a ring
    /// word's elements.
    pub(super) unit: usize,
    /// Units in the batch.
    pub(super) units: usize,
    /// Share bytes a party holds per unit of a slice (see [`Plan::new`]).
    pub(super) unit_bytes: u128,
    /// Units per slice, all lanes together.
    pub(super) slice: usize,
    /// Per lane, the party that plays each role: the protocol's own
    /// assignment, or with split roles one lane per assignment.
    pub(super) roles: Vec<Vec<PartyId>>,
    /// Slices of the batch, in units.
    slices: Vec<Range<usize>>,
    instances: usize,
}

impl Plan {
    /// The plan for `instances` instances of `circuit` under the protocol
    /// `probe` is an instance of, with `options`.
    pub(super) fn new<P: Sharing>(
        probe: &P,
        circuit: std::borrow::Cow<'_, Circuit>,
        instances: usize,
        options: &crate::RunOptions,
    ) -> Result<Plan, RunError> {
        // --max-fan-in caps the circuit's products and sets the conversions'.
        let cap = options.max_fan_in.unwrap_or(usize::MAX);
        let conversion_fan_in = options
            .max_fan_in
            .unwrap_or(probe.conversion_fan_in(instances));
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
        let (threads, slice) = lanes_and_slice(options, units, slice);
        // Who plays which role in each lane: the protocol's own assignment,
        // or with split roles one lane per assignment (as many as the batch has
        // units for; every party computes the same count).
        let parties = probe.parties();
        let roles: Vec<Vec<PartyId>> = if options.split_roles {
            let all = permutations(parties);
            let n = all.len().min(units.max(1)).min(slice);
            all.into_iter().take(n).collect()
        } else {
            let lanes = threads.clamp(1, units.max(1).min(slice));
            vec![(0..parties).collect(); lanes]
        };
        let slices: Vec<Range<usize>> = (0..units.div_ceil(slice))
            .map(|s| s * slice..((s + 1) * slice).min(units))
            .collect();
        Ok(Plan {
            program,
            unit,
            units,
            unit_bytes,
            slice,
            roles,
            slices,
            instances,
        })
    }

    /// Lanes of the run.
    pub(super) fn lanes(&self) -> usize {
        self.roles.len()
    }

    /// Slices of the batch.
    pub(super) fn slices(&self) -> usize {
        self.slices.len()
    }

    /// The instance ranges lane `lane` evaluates, slice after slice: its
    /// share of each slice (a short last slice may leave a lane nothing).
    pub(super) fn lane_ranges(&self, lane: usize) -> Vec<Range<usize>> {
        let lanes = self.lanes();
        self.slices
            .iter()
            .map(|r| {
                let n = r.len();
                let (a, b) = (r.start + n * lane / lanes, r.start + n * (lane + 1) / lanes);
                a * self.unit..(b * self.unit).min(self.instances)
            })
            // A short last slice leaves some lanes nothing (the same at
            // every party).
            .filter(|r| !r.is_empty())
            .collect()
    }
}

/// Copies of a slice's input words a party may hold while sharing them
/// (counted in the slice size, so `share_memory` bounds them too).
const INPUT_COPIES: u128 = 6;
