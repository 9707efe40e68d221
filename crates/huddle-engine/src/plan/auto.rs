//! `--protocol auto`: the winner of the plan under the user's requirements
//! ([`Auto::pick`]), and the run it is ([`Picked::run`]: its protocol,
//! rewritten circuit, fan-in, preprocessing, split roles, threads and
//! linear preprocessing over the user's other options). The requirements
//! are the plan's, so auto never runs a protocol that promises less than
//! asked, tolerates fewer corrupted parties or trusts a dealer not
//! allowed, and never the TTP; [`Auto::pick`] checks its winner against
//! them once more ([`satisfies`]).

use super::rank::{rank, why_first};
use super::{tolerated, Candidate, Choice, Choices, FanIn, Objective, Refused, Requirements};
use crate::builder::Run;
use crate::descriptor::Security;
use crate::error::RunError;
use crate::options::RunOptions;
use crate::time::Rates;
use huddle_circuit::Circuit;
use huddle_net::{NetProfile, PartyId};

/// What `--protocol auto` is asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Auto {
    /// What every choice must satisfy.
    pub requirements: Requirements,
    /// What the winner has least of.
    pub objective: Objective,
    /// Role r played by host `roles[r]`, where the user set it (`--roles`);
    /// else the planner's best assignment.
    pub roles: Option<Vec<PartyId>>,
    /// Whether a dealer outside the parties can serve the run (bgw2-mal's
    /// dealt linear preprocessing, where a dealer is allowed): inside the
    /// process of `huddle local`; across hosts only from `huddle deal`'s
    /// files, which auto does not take.
    pub outside_dealer: bool,
}

/// The choice auto runs, and why.
#[derive(Clone, Debug)]
pub struct Picked {
    /// The winner, with its checked run and predicted time.
    pub candidate: Candidate,
    /// Why it wins (see [`why_first`]).
    pub why: String,
}

impl Auto {
    /// The plan's winner for `circuit` on `net` at `batch` instances and
    /// `rates`; refused (naming every protocol's reason, as a plan without
    /// candidates does) when no choice satisfies the requirements.
    pub fn pick(
        &self,
        circuit: &Circuit,
        net: &NetProfile,
        batch: usize,
        rates: &Rates,
    ) -> Result<Picked, RunError> {
        let mut req = self.requirements.clone();
        if let Some(roles) = &self.roles {
            check_roles(roles, req.parties)?;
            req.parties = Some(roles.len());
        }
        let choices = Choices::new(circuit, net, &req);
        let (mut candidates, at_batch) =
            choices.candidates_as(batch, net, rates, self.roles.as_deref())?;
        let dealt = Some(crate::garble::linear::LinearChoice::TrustedDealer);
        candidates.retain(|c| {
            satisfies(&req, &c.choice) && (self.outside_dealer || c.choice.linear != dealt)
        });
        if candidates.is_empty() {
            let mut refused = choices.refused().to_vec();
            refused.extend(at_batch);
            refused.sort_by_key(|r| r.protocol);
            return Err(RunError::Input(format!(
                "--protocol auto: {}",
                Refused::summary(&refused)
            )));
        }
        rank(&mut candidates, self.objective);
        let why = why_first(&candidates, self.objective).unwrap_or_default();
        let candidate = candidates.swap_remove(0);
        Ok(Picked { candidate, why })
    }
}

/// Whether `choice` keeps every promise of `req`: at least its guarantee,
/// as many tolerated corruptions, no dealer unless allowed, never the TTP.
pub fn satisfies(req: &Requirements, choice: &Choice) -> bool {
    let d = choice.protocol.descriptor();
    let dealer = d.dealer.is_some()
        || choice.linear == Some(crate::garble::linear::LinearChoice::TrustedDealer);
    d.security != Security::None
        && req.guarantee.admits(d.security)
        && tolerated(choice.protocol, choice.parties) >= req.corruptions
        && (req.allow_dealer || !dealer)
        && req.parties.is_none_or(|n| n == choice.parties)
}

/// Refuses `--roles` that is not a permutation of the run's parties.
pub fn check_roles(roles: &[PartyId], parties: Option<usize>) -> Result<(), RunError> {
    let n = roles.len();
    if let Some(p) = parties.filter(|&p| p != n) {
        return Err(RunError::Input(format!(
            "--roles names {n} hosts, but the run has {p} parties"
        )));
    }
    let mut seen = vec![false; n];
    for &h in roles {
        match seen.get_mut(h) {
            Some(s) if !*s => *s = true,
            _ => {
                return Err(RunError::Input(format!(
                "--roles {}: give every host 0..{} once (role r is played by the r-th host listed)",
                roles_text(roles),
                n.saturating_sub(1)
            )))
            }
        }
    }
    Ok(())
}

/// Roles as `--roles` spells them: `1,0,2`.
pub fn roles_text(roles: &[PartyId]) -> String {
    roles
        .iter()
        .map(|h| h.to_string())
        .collect::<Vec<_>>()
        .join(",")
}

impl Picked {
    /// The run of this choice: `base` (the user's options that do not
    /// choose among runs: who learns the outputs, memory, truncation,
    /// garbling's optimizations) with the choice's preprocessing, split
    /// roles, threads, fan-in and linear preprocessing, on the choice's
    /// (possibly rewritten) circuit.
    pub fn run(&self, base: RunOptions) -> Result<Run, RunError> {
        let ch = &self.candidate.choice;
        let mut options = base
            .with_preprocess(ch.preprocess)
            .with_split_roles(ch.split_roles)
            .with_threads(ch.threads)
            .with_threads_auto(false)
            .with_max_fan_in(match ch.fan_in {
                FanIn::Limit { max, .. } => Some(max),
                FanIn::Any => None,
            });
        if let Some(linear) = ch.linear {
            options = options.with_linear(linear);
        }
        Run::builder(ch.protocol)
            .parties(ch.parties)
            .options(options)
            .circuit(self.candidate.run.circuit.clone())
            .build()
    }

    /// The choice in a line: protocol, fan-in, roles, preprocessing,
    /// threads, its guarantee and the predicted seconds.
    pub fn summary(&self) -> String {
        let ch = &self.candidate.choice;
        let p = &self.candidate.prediction;
        let d = ch.protocol.descriptor();
        let mut parts = vec![format!("fan-in {}", ch.fan_in)];
        if !ch.identity_roles() {
            parts.push(format!("roles {}", roles_text(&ch.roles)));
        }
        if d.separate_preprocessing {
            parts.push(format!("preprocessing {}", ch.preprocess.name()));
        }
        parts.push(match ch.split_roles {
            true => "split roles".into(),
            false => format!(
                "{} thread{}",
                ch.threads,
                if ch.threads == 1 { "" } else { "s" }
            ),
        });
        if let Some(l) = ch.linear {
            parts.push(format!("linear {}", l.name()));
        }
        format!(
            "{} ({}): {}, tolerates {} corrupted of {} parties{}; predicted {} ({} offline, {} online)",
            ch.protocol,
            parts.join(", "),
            d.security.label(),
            ch.tolerated,
            ch.parties,
            match d.dealer {
                Some(_) => ", a trusted dealer",
                None => "",
            },
            super::rank::seconds(p.total_seconds),
            super::rank::seconds(p.offline_seconds),
            super::rank::seconds(p.online_seconds),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::Guarantee;
    use crate::Protocol;
    use huddle_circuit::gen;

    fn adder() -> Circuit {
        gen::adder_ripple(8)
    }

    fn auto(req: Requirements) -> Auto {
        Auto {
            requirements: req,
            objective: Objective::Total,
            roles: None,
            outside_dealer: true,
        }
    }

    /// Every winner under every requirement keeps its promises; with no
    /// dealer allowed neither ca2pc nor bgw2-mal's dealer is ever picked,
    /// and the TTP never.
    #[test]
    fn the_winner_keeps_every_promise_asked_for() {
        let circuit = adder();
        let rates = Rates::default();
        for net in [NetProfile::lan(), NetProfile::wan(), NetProfile::aws3()] {
            for guarantee in [Guarantee::SemiHonest, Guarantee::Malicious] {
                for allow_dealer in [false, true] {
                    for corruptions in [1, 2] {
                        let req = Requirements {
                            guarantee,
                            allow_dealer,
                            corruptions,
                            ..Requirements::default()
                        };
                        let Ok(p) = auto(req.clone()).pick(&circuit, &net, 4, &rates) else {
                            continue;
                        };
                        let ch = &p.candidate.choice;
                        assert!(satisfies(&req, ch), "{req:?} picked {ch:?}");
                        assert_ne!(ch.protocol, Protocol::Ttp);
                        if !allow_dealer {
                            assert_ne!(ch.protocol, Protocol::Ca2pc);
                        }
                        if guarantee == Guarantee::Malicious {
                            assert_eq!(
                                ch.protocol.descriptor().security,
                                Security::MaliciousSelectiveAbort,
                                "{ch:?}"
                            );
                        }
                        assert!(ch.tolerated >= corruptions);
                    }
                }
            }
        }
    }

    /// Two parties: only the TTP would run, and it is never chosen; the
    /// error says why for each protocol, with the input exit code.
    #[test]
    fn two_parties_leave_nothing_not_even_the_ttp() {
        let req = Requirements {
            parties: Some(2),
            allow_dealer: true,
            ..Requirements::default()
        };
        let e = auto(req)
            .pick(&adder(), &NetProfile::lan(), 1, &Rates::default())
            .expect_err("nothing admissible for two parties");
        assert_eq!(e.exit(), crate::exit::Exit::Input);
        let text = e.to_string();
        assert!(text.contains("ttp: a baseline"), "{text}");
        assert!(text.contains("bgw3: it needs at least 3 parties"), "{text}");
    }

    /// ca2pc's dealer is refused unless allowed, with the reason; allowed
    /// and alone in the running (semi-honest, 3 parties, the others' rates
    /// made slow), it wins.
    #[test]
    fn ca2pc_only_with_a_dealer_allowed() {
        let req = Requirements {
            parties: Some(3),
            ..Requirements::default()
        };
        let choices = Choices::new(&adder(), &NetProfile::lan(), &req);
        let why = choices
            .refused()
            .iter()
            .find(|r| r.protocol == Protocol::Ca2pc)
            .expect("ca2pc refused");
        assert!(why.reason.contains("trusts a dealer"), "{}", why.reason);
        let mut rates = Rates::default();
        for p in Protocol::ALL.into_iter().filter(|&p| p != Protocol::Ca2pc) {
            for w in crate::cost::Work::ALL {
                rates.set_seconds_of(p, w, 1.0);
            }
        }
        let slow_others = |allow_dealer| {
            auto(Requirements {
                allow_dealer,
                ..req.clone()
            })
            .pick(&adder(), &NetProfile::lan(), 64, &rates)
            .expect("pick")
            .candidate
            .choice
            .protocol
        };
        assert_eq!(slow_others(true), Protocol::Ca2pc);
        assert_ne!(slow_others(false), Protocol::Ca2pc);
    }

    /// Three corruptions of a 4-party run: no protocol tolerates them.
    #[test]
    fn more_corruptions_than_any_protocol_tolerates_are_refused() {
        let req = Requirements {
            parties: Some(4),
            corruptions: 2,
            guarantee: Guarantee::Malicious,
            ..Requirements::default()
        };
        let e = auto(req)
            .pick(&adder(), &NetProfile::lan(), 1, &Rates::default())
            .expect_err("none");
        assert!(e.to_string().contains("fewer than the 2 asked for"), "{e}");
    }

    /// The winner is the first of the plan's ranking.
    #[test]
    fn the_pick_is_the_plans_winner() {
        let circuit = adder();
        let (net, rates, req) = (NetProfile::wan(), Rates::default(), Requirements::default());
        let choices = Choices::new(&circuit, &net, &req);
        let (mut all, _) = choices.candidates(16, &net, &rates).expect("candidates");
        rank(&mut all, Objective::Total);
        let p = auto(req).pick(&circuit, &net, 16, &rates).expect("pick");
        assert_eq!(p.candidate.choice, all[0].choice);
    }

    /// --roles fixes the assignment, and must be a permutation.
    #[test]
    fn roles_given_are_the_roles_run() {
        let a = Auto {
            roles: Some(vec![2, 0, 1]),
            ..auto(Requirements::default())
        };
        let p = a
            .pick(&adder(), &NetProfile::aws3(), 1, &Rates::default())
            .expect("pick");
        assert_eq!(p.candidate.choice.roles, [2, 0, 1]);
        assert!(!p.candidate.choice.split_roles);
        for bad in [vec![0, 0, 1], vec![0, 1, 3]] {
            let e = check_roles(&bad, None).expect_err("not a permutation");
            assert!(e.to_string().contains("give every host 0..2 once"), "{e}");
        }
        let e = check_roles(&[1, 0, 2], Some(4)).expect_err("count");
        assert!(e.to_string().contains("the run has 4 parties"), "{e}");
    }
}
