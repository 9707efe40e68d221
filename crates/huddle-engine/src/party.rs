//! One party of a run whose other parties are elsewhere: what it brings
//! ([`PartyPlan`]: its id, the input values it owns, how it knows the batch,
//! dealt material), the hello that says what it runs ([`Run::handshake`]),
//! connecting to the peers of a parties file ([`Run::connect`], over
//! [`PartyLinks`]) and the run over the connected network ([`Run::party`]).

use crate::builder::Run;
use crate::error::RunError;
use crate::inputs::check_batch;
use crate::inputs::OwnValue;
use crate::report::{Finished, RunReport};
use huddle_circuit::Circuit;
use huddle_net::tls::TlsIdentity;
use huddle_net::{
    ConnectOptions, Form, Handshake, NetError, NetProfile, Network, NetworkConfig, PartyId,
    Settings, Transport, Value,
};
use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The hello's name of the batch (instances evaluated at once).
pub const BATCH: &str = "batch";

/// How a party knows the batch, as its hello says it: parties that disagree
/// stop at connect, naming the difference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Batch {
    /// A number it was given.
    Given(usize),
    /// The instances of its input data (e.g. the lines of a file).
    Counted(usize),
    /// Whatever the other parties say (a party that owns no input value).
    Open,
}

/// One party's part of a run: who it is, the input values it owns and how
/// it knows the batch, and what else its hello says.
#[non_exhaustive]
pub struct PartyPlan {
    /// This party's id.
    pub id: PartyId,
    /// How this party knows the batch.
    pub batch: Batch,
    /// The input values it owns, by index, each for every instance of the
    /// batch ([`OwnValue::Random`]: drawn as needed).
    pub inputs: Vec<(usize, OwnValue)>,
    /// bgw2-mal with a trusted dealer on another host: this party's dealt
    /// material (one-time: the caller makes sure it is never used twice).
    pub dealt: Option<Vec<u8>>,
    /// Settings the hello says before the run's own (e.g. a job file's).
    pub first_settings: Settings,
    /// Settings the hello says after all others (e.g. a job file's hash).
    pub last_settings: Settings,
}

/// Names the input values and says whether material was dealt; prints no
/// value (they are secret).
impl std::fmt::Debug for PartyPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let values: Vec<usize> = self.inputs.iter().map(|(i, _)| *i).collect();
        f.debug_struct("PartyPlan")
            .field("id", &self.id)
            .field("batch", &self.batch)
            .field("inputs", &values)
            .field("dealt", &self.dealt.is_some())
            .finish_non_exhaustive()
    }
}

impl PartyPlan {
    /// Party `id`, knowing the batch as `batch`, no inputs yet.
    pub fn new(id: PartyId, batch: Batch) -> PartyPlan {
        PartyPlan {
            id,
            batch,
            inputs: Vec::new(),
            dealt: None,
            first_settings: Settings::new(),
            last_settings: Settings::new(),
        }
    }

    /// With input value `index` (one this party owns) as `value`.
    #[must_use]
    pub fn with_input(mut self, index: usize, value: OwnValue) -> PartyPlan {
        self.inputs.push((index, value));
        self
    }

    /// With this dealt material (see the field).
    #[must_use]
    pub fn with_dealt(mut self, dealt: Vec<u8>) -> PartyPlan {
        self.dealt = Some(dealt);
        self
    }

    /// With settings the hello says before and after the run's own.
    #[must_use]
    pub fn with_hello_settings(mut self, first: Settings, last: Settings) -> PartyPlan {
        self.first_settings = first;
        self.last_settings = last;
        self
    }
}

/// How a party reaches its peers: the transport, the deadlines and an
/// emulated network profile.
#[derive(Clone)]
#[non_exhaustive]
pub struct PartyLinks {
    /// TLS with this party's identity, or plain TCP (no authentication,
    /// no encryption).
    pub transport: Transport,
    /// How long to keep trying to reach and hear from every peer.
    pub setup_timeout: Duration,
    /// How long a wait goes on a peer that sends nothing at all, not even
    /// the liveness frames of a busy peer (after connecting).
    pub idle_timeout: Duration,
    /// Latency and bandwidth every link emulates.
    pub profile: NetProfile,
}

impl PartyLinks {
    /// Over `transport`: 60 seconds to connect, 10 of a silent peer, LAN.
    pub fn new(transport: Transport) -> PartyLinks {
        PartyLinks {
            transport,
            setup_timeout: Duration::from_secs(60),
            idle_timeout: Duration::from_secs(10),
            profile: NetProfile::lan(),
        }
    }

    /// TLS as a parties file sets it up for party `id`: its certificate
    /// and key, and the CA (or, without one, every party's certificate,
    /// pinned). `name` names the file in errors.
    pub fn tls_from_config(
        config: &NetworkConfig,
        name: &str,
        id: PartyId,
    ) -> Result<PartyLinks, RunError> {
        let own = config.parties.get(id).ok_or_else(|| {
            RunError::Input(format!(
                "{name}: no party {id} (ids 0..{})",
                config.parties().saturating_sub(1)
            ))
        })?;
        let cert = own
            .cert
            .as_ref()
            .ok_or_else(|| RunError::Input(format!("{name}: party {id} has no cert")))?;
        let key = own
            .key
            .as_ref()
            .ok_or_else(|| RunError::Input(format!("{name}: party {id} has no key")))?;
        let identity = match &config.ca {
            Some(ca) => TlsIdentity::from_pem_files(ca, cert, key),
            // Without a CA, every party's certificate is pinned.
            None => {
                let certs = config
                    .parties
                    .iter()
                    .map(|p| {
                        p.cert.clone().ok_or_else(|| {
                            RunError::Input(format!(
                                "{name}: no [tls] ca, so every party needs a cert to pin; \
                                 party {} has none",
                                p.id
                            ))
                        })
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                TlsIdentity::pinned_from_pem_files(&certs, cert, key)
            }
        }
        .map_err(RunError::Input)?;
        Ok(PartyLinks::new(Transport::Tls(identity)))
    }

    /// With these deadlines (see the fields).
    #[must_use]
    pub fn with_timeouts(self, setup: Duration, idle: Duration) -> PartyLinks {
        PartyLinks {
            setup_timeout: setup,
            idle_timeout: idle,
            ..self
        }
    }

    /// With this network profile.
    #[must_use]
    pub fn with_profile(self, profile: NetProfile) -> PartyLinks {
        PartyLinks { profile, ..self }
    }
}

impl Run {
    /// The hello party `plan.id` sends in `session`: the plan's first
    /// settings, the run's ([`crate::RunRequest::settings`]), the batch,
    /// the deal it replays, the plan's last settings; and the circuit's
    /// hash. Peers whose hellos differ stop at connect, naming the
    /// first difference.
    pub fn handshake(&self, session: &str, plan: &PartyPlan) -> Result<Handshake, RunError> {
        handshake_with(self.request.settings(), &self.circuit, session, plan)
    }

    /// Connects party `plan.id` of `config` to every other party over
    /// `links`, saying [`Run::handshake`] in the config's session. A
    /// cancel stops the run from its first wait on (connecting itself
    /// ends by its deadline).
    pub fn connect(
        &self,
        config: &NetworkConfig,
        plan: &PartyPlan,
        links: &PartyLinks,
    ) -> Result<Network, RunError> {
        connect_undecided(self.request.settings(), &self.circuit, config, plan, links)
    }

    /// Runs party `plan.id` over `net`, connected to its peers (by
    /// [`Run::connect`], or by the caller with the same hello). A failure
    /// of this party tells the peers its kind (never its text); a cancel
    /// sends them the abort with its cause. Consumes the run, so that the
    /// circuit's gates, if no clone holds them, are dropped once compiled.
    pub fn party(self, net: &mut Network, plan: PartyPlan) -> Result<RunReport, RunError> {
        let _watch = self.cancel.watch(net);
        let stopping = |net: &mut Network, e: RunError| {
            net.stop(e.exit().told_to_peers());
            e
        };
        if net.party() != plan.id {
            let e = RunError::Input(format!(
                "the plan is party {}'s, the network party {}'s",
                plan.id,
                net.party()
            ));
            return Err(stopping(net, e));
        }
        let batch = match settled_batch(net, plan.batch) {
            Ok(b) => b,
            Err(e) => return Err(stopping(net, e)),
        };
        // `--threads auto`: the least count any party offered.
        let request = match self.request.settled(net) {
            Ok(r) => r,
            Err(e) => return Err(stopping(net, e)),
        };
        let supply = plan.dealt.map(crate::garble::LinearSupply::Dealt);
        let gates = self.circuit.gates().len();
        let shared;
        let circuit = match Arc::try_unwrap(self.circuit) {
            Ok(c) => Cow::Owned(c),
            Err(arc) => {
                shared = arc;
                Cow::Borrowed(&*shared)
            }
        };
        let start = Instant::now();
        let outputs = crate::run::run_party_with(
            &request,
            net,
            circuit,
            batch,
            plan.inputs,
            supply,
            &self.progress,
        )
        .map_err(|e| stopping(net, e))?;
        let wall_seconds = start.elapsed().as_secs_f64();
        // The phase log's last step: the protocol is over (`bench chaos`
        // tells a party stopped after its run from one stopped in the reveal).
        net.announce(huddle_net::FINISHED);
        Ok(RunReport::new(
            &request,
            Finished {
                party: Some(plan.id),
                batch,
                gates,
                outputs,
                party_outputs: Vec::new(),
                party_accounting: Vec::new(),
                accounting: net.accounting().clone(),
                wall_seconds,
                lanes: self.progress.lanes(),
            },
        ))
    }
}

/// The hello of party `plan.id` in `session`: the plan's first settings,
/// `run` (what it runs: a request's settings, or what `--protocol auto`
/// asks for), the batch, the deal it replays, the plan's last settings;
/// and the circuit's hash.
fn handshake_with(
    run: Settings,
    circuit: &Circuit,
    session: &str,
    plan: &PartyPlan,
) -> Result<Handshake, RunError> {
    let mut s = plan.first_settings.clone();
    s.extend(run);
    let (form, value) = match plan.batch {
        Batch::Open => (Form::Option, Value::Open),
        Batch::Counted(n) => (Form::Lines, Value::Number(n as u64)),
        Batch::Given(n) => (Form::Option, Value::Number(n as u64)),
    };
    s.set(BATCH, form, value);
    let deal = match &plan.dealt {
        Some(bytes) => {
            let id = crate::garble::linear::deal_id(bytes)?;
            Value::Text(id.iter().map(|b| format!("{b:02x}")).collect())
        }
        None => Value::Absent,
    };
    s.option("dealt", deal);
    s.extend(plan.last_settings.clone());
    Ok(Handshake {
        session: session.to_string(),
        settings: s,
        circuit: crate::circuit_hash(circuit),
    })
}

/// Connects party `plan.id` of `config` as [`Run::connect`] does, for a
/// run decided only once connected (`--protocol auto`: the hosts' rates
/// travel in the hello): the hello says `settings` where a run's request
/// would be, and compares `circuit`, the batch and the plan's settings.
pub fn connect_undecided(
    settings: Settings,
    circuit: &Circuit,
    config: &NetworkConfig,
    plan: &PartyPlan,
    links: &PartyLinks,
) -> Result<Network, RunError> {
    let options = ConnectOptions {
        setup_timeout: links.setup_timeout,
        idle_timeout: links.idle_timeout,
        profile: links.profile.clone(),
        ..ConnectOptions::new(
            links.transport.clone(),
            handshake_with(settings, circuit, &config.session, plan)?,
        )
    };
    Ok(huddle_net::connect(config, plan.id, &options)?)
}

/// The batch of a connected party that knew it as `batch`: its own, or
/// the one the peers settled where it left it open; checked.
pub fn settled_batch(net: &Network, batch: Batch) -> Result<usize, RunError> {
    let batch = match (net.settled(BATCH), batch) {
        (Some(&Value::Number(b)), _) => usize::try_from(b).unwrap_or(usize::MAX),
        (Some(other), _) => {
            return Err(NetError::Mismatch(format!(
                "the other parties' batch {other} is not a number"
            ))
            .into())
        }
        (None, Batch::Given(n) | Batch::Counted(n)) => n,
        (None, Batch::Open) => {
            return Err(RunError::Input(
                "the batch is open, and the network settled none".into(),
            ))
        }
    };
    check_batch(batch).map_err(|e| NetError::Mismatch(format!("the other parties' batch: {e}")))?;
    Ok(batch)
}
