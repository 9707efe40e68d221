//! Every choice the requirements admit for a circuit ([`Choices::new`]),
//! checked as a run is, and its exact cost at a batch
//! ([`Choices::candidates`]). The choices do not depend on the batch, so
//! the circuit is rewritten once per fan-in however many batches are
//! costed (a chart of time against batch size costs dozens).

use super::roles::{played_by, role_classes};
use super::{tolerated, Candidate, Choice, FanIn, Requirements};
use crate::builder::Run;
use crate::cost::Cost;
use crate::descriptor::{Family, PartyRule, Security};
use crate::error::RunError;
use crate::garble::linear::LinearChoice;
use crate::options::{Preprocess, RunOptions};
use crate::protocol::{Protocol, MAX_PARTIES, MAX_SPLIT_PARTIES};
use crate::time::Rates;
use huddle_circuit::Circuit;
use huddle_net::{NetProfile, PartyId};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A protocol left out of a plan, and why (the requirements, the circuit
/// or the batch).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// The protocol.
    pub protocol: Protocol,
    /// Why, as the user reads it.
    pub reason: String,
}

impl Refused {
    /// Why no protocol is left, one protocol after another (what a plan
    /// without candidates says).
    pub fn summary(refused: &[Refused]) -> String {
        let why: Vec<String> = refused
            .iter()
            .map(|r| format!("{}: {}", r.protocol, r.reason))
            .collect();
        format!(
            "no protocol can run this circuit under these requirements ({})",
            why.join("; ")
        )
    }
}

/// One way to run, roles aside: they change no byte, only which hosts'
/// links carry it.
#[derive(Clone, Debug)]
struct Configured {
    choice: Choice,
    run: Run,
    /// The assignments of hosts to roles worth telling apart.
    roles: Arc<Vec<Vec<PartyId>>>,
}

/// Every choice the requirements admit for a circuit on a network.
#[derive(Clone, Debug)]
pub struct Choices {
    configured: Vec<Configured>,
    refused: Vec<Refused>,
}

impl Choices {
    /// Every protocol the requirements admit, with every fan-in it takes
    /// (the circuit as given and, for Boolean circuits, rewritten to a
    /// lower AND-depth), preprocessing schedule, split roles or threads,
    /// and role assignment `net` tells apart; each checked as a run is.
    /// The protocols left out are [`refused`](Self::refused), with why.
    pub fn new(circuit: &Circuit, net: &NetProfile, req: &Requirements) -> Choices {
        let mut rewrites = Rewrites::new(circuit);
        let mut configured = Vec::new();
        let mut refused = Vec::new();
        for protocol in Protocol::ALL {
            let parties = match admit(protocol, req) {
                Ok(n) => n,
                Err(reason) => {
                    refused.push(Refused { protocol, reason });
                    continue;
                }
            };
            let roles = Arc::new(role_classes(parties, net));
            let before = configured.len();
            let mut first_error = None;
            for (fan_in, circuit) in fan_ins(protocol, req, &mut rewrites) {
                for (choice, options) in settings(protocol, parties, fan_in, req) {
                    match Run::builder(protocol)
                        .parties(parties)
                        .options(options)
                        .circuit(circuit.clone())
                        .build()
                    {
                        Ok(run) => configured.push(Configured {
                            choice,
                            run,
                            roles: roles.clone(),
                        }),
                        Err(e) => {
                            first_error.get_or_insert(e.to_string());
                        }
                    }
                }
            }
            if configured.len() == before {
                let reason = first_error.unwrap_or_else(|| match &req.fan_ins {
                    Some(list) => format!(
                        "it multiplies at most {} operands in one round, and none of the \
                         fan-ins asked for ({list:?}) is one of 2..={}",
                        protocol.descriptor().max_fan_in.unwrap_or(2),
                        protocol.descriptor().max_fan_in.unwrap_or(2)
                    ),
                    None => "no choice of its options runs this circuit".into(),
                });
                refused.push(Refused { protocol, reason });
            }
        }
        Choices {
            configured,
            refused,
        }
    }

    /// The protocols left out, and why.
    pub fn refused(&self) -> &[Refused] {
        &self.refused
    }

    /// The protocols with at least one choice, in the table's order.
    pub fn protocols(&self) -> Vec<Protocol> {
        let mut out: Vec<Protocol> = self.configured.iter().map(|c| c.choice.protocol).collect();
        out.dedup();
        out
    }

    /// Every choice with its exact cost and predicted time on `batch`
    /// instances over `net` (as each role assignment sees it) at `rates`,
    /// each party on its own host ([`Run::predict`]), in the order of the
    /// protocol table (unranked), one per role assignment;
    /// choices that cost the same as an earlier one of the same protocol
    /// on the same circuit (a fan-in limit the circuit never reaches)
    /// left out. Also the protocols no choice of which runs this batch,
    /// and why. Refused for a batch out of range.
    pub fn candidates(
        &self,
        batch: usize,
        net: &NetProfile,
        rates: &Rates,
    ) -> Result<(Vec<Candidate>, Vec<Refused>), RunError> {
        self.candidates_as(batch, net, rates, None)
    }

    /// [`Choices::candidates`], with every role assignment `roles` (role r
    /// played by host `roles[r]`) where given: the choices of as many
    /// parties, none that splits roles (it plays every assignment at once)
    /// unless `roles` is the identity.
    pub fn candidates_as(
        &self,
        batch: usize,
        net: &NetProfile,
        rates: &Rates,
        roles: Option<&[PartyId]>,
    ) -> Result<(Vec<Candidate>, Vec<Refused>), RunError> {
        crate::inputs::check_batch(batch)?;
        let fixed: Option<Vec<Vec<PartyId>>> = roles.map(|r| vec![r.to_vec()]);
        let mut out: Vec<Candidate> = Vec::new();
        let mut kept: Vec<(&Configured, Cost)> = Vec::new();
        let mut errors: BTreeMap<Protocol, String> = BTreeMap::new();
        'configured: for c in &self.configured {
            let identity = vec![c.choice.roles.clone()];
            let classes = match &fixed {
                Some(f) if f[0].len() != c.choice.parties => continue,
                Some(f) if c.choice.split_roles && f[0] != c.choice.roles => continue,
                Some(f) => f,
                None if c.choice.split_roles => &identity,
                None => &*c.roles,
            };
            let mut these: Vec<Candidate> = Vec::with_capacity(classes.len());
            for roles in classes {
                let prediction = match c.run.predict(batch, &played_by(net, roles), rates) {
                    Ok(p) => p,
                    Err(e) => {
                        errors.entry(c.choice.protocol).or_insert(e.to_string());
                        continue 'configured;
                    }
                };
                if these.is_empty()
                    && kept
                        .iter()
                        .any(|(k, cost)| same_but_fan_in(k, c) && *cost == prediction.cost)
                {
                    continue 'configured;
                }
                these.push(Candidate {
                    choice: Choice {
                        roles: roles.clone(),
                        ..c.choice.clone()
                    },
                    run: c.run.clone(),
                    prediction,
                });
            }
            if let Some(first) = these.first() {
                kept.push((c, first.prediction.cost.clone()));
            }
            out.extend(these);
        }
        let refused = errors
            .into_iter()
            .filter(|(p, _)| !out.iter().any(|c| c.choice.protocol == *p))
            .map(|(protocol, reason)| Refused { protocol, reason })
            .collect();
        Ok((out, refused))
    }
}

/// Whether `a` and `b` are the same protocol, circuit and options but for
/// the fan-in limit.
fn same_but_fan_in(a: &Configured, b: &Configured) -> bool {
    let (x, y) = (&a.choice, &b.choice);
    x.protocol == y.protocol
        && Arc::ptr_eq(&a.run.circuit, &b.run.circuit)
        && x.preprocess == y.preprocess
        && x.split_roles == y.split_roles
        && x.threads == y.threads
        && x.linear == y.linear
}

/// The parties `protocol` runs with under `req`, or why it is left out.
fn admit(protocol: Protocol, req: &Requirements) -> Result<usize, String> {
    let d = protocol.descriptor();
    if d.security == Security::None {
        return Err("a baseline that sees every input in the clear, never chosen".into());
    }
    if !req.guarantee.admits(d.security) {
        return Err(format!(
            "{} only, and {} security is asked for",
            d.security.label(),
            req.guarantee.name()
        ));
    }
    if let (Some(dealer), false) = (d.dealer, req.allow_dealer) {
        return Err(format!(
            "it trusts a dealer (party {dealer}) with correlated randomness, and no dealer \
             is allowed"
        ));
    }
    let parties = match (req.parties, d.parties) {
        (Some(n), PartyRule::Exactly(k)) if n != k => {
            return Err(format!(
                "a {k}-party protocol, and the plan is for {n} parties"
            ))
        }
        (Some(n), PartyRule::AtLeast(k)) if n < k => {
            return Err(format!("it needs at least {k} parties, not {n}"))
        }
        (Some(n), _) => n,
        (None, PartyRule::Exactly(k)) => k,
        (None, PartyRule::AtLeast(k)) => (k..=MAX_PARTIES)
            .find(|&n| tolerated(protocol, n) >= req.corruptions)
            .unwrap_or(k),
    };
    let t = tolerated(protocol, parties);
    if t < req.corruptions {
        return Err(format!(
            "it tolerates {t} corrupted part{} of {parties}, fewer than the {} asked for",
            if t == 1 { "y" } else { "ies" },
            req.corruptions
        ));
    }
    Ok(parties)
}

/// The fan-ins to try for `protocol`, each with its circuit.
fn fan_ins(
    protocol: Protocol,
    req: &Requirements,
    rewrites: &mut Rewrites,
) -> Vec<(FanIn, Arc<Circuit>)> {
    let Some(most) = protocol.descriptor().max_fan_in else {
        return vec![(FanIn::Any, rewrites.given.clone())];
    };
    let mut out = Vec::new();
    for max in 2..=most {
        if req
            .fan_ins
            .as_ref()
            .is_some_and(|list| !list.contains(&max))
        {
            continue;
        }
        let rewritten = false;
        out.push((FanIn::Limit { max, rewritten }, rewrites.given.clone()));
        if let Some(c) = rewrites.at(max) {
            let rewritten = true;
            out.push((FanIn::Limit { max, rewritten }, c));
        }
    }
    out
}

/// Every setting of `protocol`'s options worth trying, roles aside.
fn settings(
    protocol: Protocol,
    parties: usize,
    fan_in: FanIn,
    req: &Requirements,
) -> Vec<(Choice, RunOptions)> {
    let d = protocol.descriptor();
    let preprocess: &[Preprocess] = if d.separate_preprocessing {
        &[Preprocess::Interleaved, Preprocess::Separate]
    } else {
        &[Preprocess::Interleaved]
    };
    let splits: &[bool] =
        if d.family == Family::Sharing && d.dealer.is_none() && parties <= MAX_SPLIT_PARTIES {
            &[false, true]
        } else {
            &[false]
        };
    let linear: Vec<Option<LinearChoice>> = match protocol.garbling() {
        Some(v) if v.is_malicious() && req.allow_dealer => {
            vec![Some(LinearChoice::Prss), Some(LinearChoice::TrustedDealer)]
        }
        Some(v) if v.is_malicious() => vec![Some(LinearChoice::Prss)],
        _ => vec![None],
    };
    let threads: Vec<usize> = std::iter::successors(Some(1usize), |t| t.checked_mul(2))
        .take_while(|&t| t <= req.max_threads.max(1))
        .collect();
    let mut out = Vec::new();
    for &preprocess in preprocess {
        for &split_roles in splits {
            let threads: &[usize] = if split_roles { &[1] } else { &threads };
            for &threads in threads {
                for &linear in &linear {
                    let mut options = RunOptions::for_protocol(protocol)
                        .with_preprocess(preprocess)
                        .with_split_roles(split_roles)
                        .with_threads(threads)
                        .with_threads_auto(false);
                    if let FanIn::Limit { max, .. } = fan_in {
                        options = options.with_max_fan_in(Some(max));
                    }
                    if let Some(l) = linear {
                        options = options.with_linear(l);
                    }
                    let choice = Choice {
                        protocol,
                        parties,
                        tolerated: tolerated(protocol, parties),
                        fan_in,
                        roles: (0..parties).collect(),
                        preprocess,
                        split_roles,
                        threads,
                        linear,
                    };
                    out.push((choice, options));
                }
            }
        }
    }
    out
}

/// The circuit as given and, once per fan-in, rewritten to a lower
/// AND-depth (Boolean circuits).
struct Rewrites {
    given: Arc<Circuit>,
    /// Per fan-in: the rewritten circuit, or None where the rewrite finds
    /// no lower depth (the engine's own split of wide gates is then the
    /// same circuit).
    at: BTreeMap<usize, Option<Arc<Circuit>>>,
}

impl Rewrites {
    fn new(circuit: &Circuit) -> Rewrites {
        Rewrites {
            given: Arc::new(circuit.clone()),
            at: BTreeMap::new(),
        }
    }

    fn at(&mut self, max: usize) -> Option<Arc<Circuit>> {
        if !self.given.is_boolean() {
            return None;
        }
        let given = &self.given;
        self.at
            .entry(max)
            .or_insert_with(|| {
                let limited = huddle_circuit::rewrite::limit_fan_in(given, max);
                let rewritten = huddle_circuit::optimize::optimize(given, max, None).ok()?;
                (crate::circuit_hash(&rewritten) != crate::circuit_hash(&limited))
                    .then(|| Arc::new(rewritten))
            })
            .clone()
    }
}
