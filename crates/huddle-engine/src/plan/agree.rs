//! How the hosts of a `--protocol auto` run arrive at one choice. Every
//! input of [`Auto::pick`] is agreed in the hello: the circuit (its hash),
//! the batch, the requirements, `--roles` and the link profile are
//! compared ([`hello_settings`]); each host's compute rates travel in its
//! hello, and every host plans with the slowest of each rate over all
//! hosts ([`slowest`], [`agreed_rates`]): the time model prices every
//! party at one set of rates, and a run goes at the pace of its slowest
//! party. Then each host tells every other the choice it computed and
//! compares ([`confirm`]): a difference (hosts of different huddle builds)
//! stops every party, naming it. [`decide`] does all of it once connected.

use super::auto::{roles_text, Auto, Picked};
use super::{Choice, FanIn};
use crate::cost::Work;
use crate::error::RunError;
use crate::garble::linear::LinearChoice;
use crate::options::Preprocess;
use crate::party::{settled_batch, Batch};
use crate::protocol::Protocol;
use crate::time::{Rates, TransportRates};
use huddle_circuit::Circuit;
use huddle_net::{NetError, NetProfile, Network, PartyId, Settings, Value};

/// The hello's name of host `host`'s rates.
fn rates_name(host: PartyId) -> String {
    format!("rates.{host}")
}

/// What host `me` of `parties` says in the hello for `auto` over `net`
/// at its `rates`: the requirements, the roles and the profile, which
/// every host must share, and its rates, which each host gives for itself
/// (left open for the others').
pub fn hello_settings(
    auto: &Auto,
    (me, parties): (PartyId, usize),
    net: &NetProfile,
    rates: &Rates,
) -> Settings {
    let req = &auto.requirements;
    let mut s = Settings::new();
    s.option("protocol", Value::Text("auto".into()));
    s.option("security", Value::Text(req.guarantee.name().into()));
    s.option("corruptions", Value::Number(req.corruptions as u64));
    s.option("allow-dealer", Value::Bool(req.allow_dealer));
    s.option("objective", Value::Text(auto.objective.name().into()));
    s.option(
        "roles",
        auto.roles
            .as_deref()
            .map_or(Value::Absent, |r| Value::Text(roles_text(r))),
    );
    s.option("net", Value::Text(profile_text(net)));
    for host in 0..parties {
        let value = match host == me {
            true => Value::Text(rates.to_toml()),
            false => Value::Open,
        };
        s.option(rates_name(host), value);
    }
    s
}

/// A profile's links as the hello compares them: the default shape and
/// every listed pair (not its name: hosts may name one file differently).
fn profile_text(net: &NetProfile) -> String {
    let shape = |s: &huddle_net::LinkShape| {
        format!(
            "{}ns/{}",
            s.latency.as_nanos(),
            s.bandwidth_bps
                .map_or("unlimited".to_string(), |b| format!("{b}bps"))
        )
    };
    let mut text = format!("default {}", shape(&net.default));
    for ((a, b), s) in &net.links {
        text.push_str(&format!("; {a}-{b} {}", shape(s)));
    }
    text
}

/// The rates every host plans with: the slowest of each over `own` and
/// the rates every peer gave in its hello.
pub fn agreed_rates(network: &Network, own: &Rates) -> Result<Rates, RunError> {
    let mut hosts = vec![own.clone()];
    for host in (0..network.parties()).filter(|&h| h != network.party()) {
        let name = rates_name(host);
        let Some(Value::Text(text)) = network.settled(&name) else {
            return Err(NetError::Mismatch(format!("party {host} gave no compute rates")).into());
        };
        let rates = Rates::from_toml(&format!("party {host}'s rates"), text)
            .map_err(|e| NetError::Mismatch(e.to_string()))?;
        hosts.push(rates);
    }
    Ok(slowest(&hosts))
}

/// The slowest of each rate of `hosts` (seconds per unit: the most), each
/// protocol's own rates included, and the fewest cores.
pub fn slowest(hosts: &[Rates]) -> Rates {
    let Some((first, rest)) = hosts.split_first() else {
        return Rates::default();
    };
    let mut out = first.clone();
    for h in rest {
        out.cores = out.cores.min(h.cores);
        for w in Work::ALL {
            let a = out.work.of_mut(w);
            *a = a.max(h.work.of(w));
        }
        let (t, u) = (&mut out.transport, &h.transport);
        for (a, b) in [
            (&mut t.memory, u.memory),
            (&mut t.tcp, u.tcp),
            (&mut t.tls, u.tls),
        ] {
            *a = TransportRates {
                message: a.message.max(b.message),
                byte: a.byte.max(b.byte),
                wake: a.wake.max(b.wake),
            };
        }
    }
    // A protocol's own rate where any host has one: the slowest host's
    // rate for that protocol (its own, or its general one).
    for p in Protocol::ALL {
        for w in Work::ALL {
            let own = |r: &Rates| {
                r.protocol
                    .get(p.name())
                    .is_some_and(|m| m.contains_key(w.name()))
            };
            if hosts.iter().any(own) {
                let most = hosts.iter().map(|r| r.seconds_of(p, w)).fold(0.0, f64::max);
                out.set_seconds_of(p, w, most);
            }
        }
    }
    out
}

/// The choice's fields as [`confirm`] sends and compares them.
fn fields(choice: &Choice) -> Vec<(&'static str, String)> {
    let (fan_in, rewritten) = match choice.fan_in {
        FanIn::Limit { max, rewritten } => (max.to_string(), rewritten),
        FanIn::Any => ("any".into(), false),
    };
    vec![
        ("protocol", choice.protocol.name().to_string()),
        ("parties", choice.parties.to_string()),
        ("fan-in", fan_in),
        ("rewritten circuit", rewritten.to_string()),
        ("roles", roles_text(&choice.roles)),
        ("preprocessing", choice.preprocess.name().to_string()),
        ("split roles", choice.split_roles.to_string()),
        ("threads", choice.threads.to_string()),
        (
            "linear preprocessing",
            choice.linear.map_or("-", LinearChoice::name).to_string(),
        ),
    ]
}

/// Bytes of a choice on the wire for `parties` parties.
fn wire_len(parties: usize) -> usize {
    12 + 2 * parties
}

/// A choice in [`wire_len`] bytes: protocol (its place in the table),
/// parties, fan-in (0: any), rewritten, preprocessing, split roles,
/// linear preprocessing (0: none, 1: prss, 2: dealer, 3: auto), threads
/// (u32), each role's host (u16), little-endian.
fn encode(choice: &Choice) -> Vec<u8> {
    let small = |n: usize| u8::try_from(n).unwrap_or(u8::MAX);
    let mut out = vec![
        small(
            Protocol::ALL
                .iter()
                .position(|&p| p == choice.protocol)
                .unwrap_or(255),
        ),
        0,
        match choice.fan_in {
            FanIn::Limit { max, .. } => small(max),
            FanIn::Any => 0,
        },
        u8::from(matches!(
            choice.fan_in,
            FanIn::Limit {
                rewritten: true,
                ..
            }
        )),
        u8::from(choice.preprocess == Preprocess::Separate),
        u8::from(choice.split_roles),
        match choice.linear {
            None => 0,
            Some(LinearChoice::Prss) => 1,
            Some(LinearChoice::TrustedDealer) => 2,
            Some(LinearChoice::Auto) => 3,
        },
        0,
    ];
    out[1] = small(choice.parties.min(255));
    out.extend_from_slice(
        &u32::try_from(choice.threads)
            .unwrap_or(u32::MAX)
            .to_le_bytes(),
    );
    for &h in &choice.roles {
        out.extend_from_slice(&u16::try_from(h).unwrap_or(u16::MAX).to_le_bytes());
    }
    out
}

/// Tells every peer the choice this host computed and compares theirs
/// (one round of the setup phase): a difference stops this party with an
/// error naming the first field that differs, and (through its
/// departure) every peer.
pub fn confirm(network: &mut Network, choice: &Choice) -> Result<(), RunError> {
    let (me, n) = (network.party(), network.parties());
    let ours = encode(choice);
    if ours.len() != wire_len(n) {
        return Err(RunError::Internal(format!(
            "auto's choice is for {} parties, the network has {n}",
            choice.roles.len()
        )));
    }
    let peers: Vec<PartyId> = (0..n).filter(|&p| p != me).collect();
    let outgoing = peers.iter().map(|&p| (p, ours.clone())).collect();
    let incoming: Vec<(PartyId, usize)> = peers.iter().map(|&p| (p, wire_len(n))).collect();
    let theirs = network.exchange(outgoing, &incoming)?;
    for (&peer, bytes) in peers.iter().zip(&theirs) {
        if *bytes != ours {
            return Err(NetError::Mismatch(difference(peer, me, bytes, choice)).into());
        }
    }
    Ok(())
}

/// After connecting with [`hello_settings`] (at `own` rates): the rates
/// agreed, the batch settled (this party knew it as `batch`), the choice
/// made over `profile` (threads tried up to the agreed rates' cores, the
/// fewest of any host's) and [`confirm`]ed with every peer. A failure stops
/// this party, telling the peers its kind.
pub fn decide(
    auto: &Auto,
    circuit: &Circuit,
    profile: &NetProfile,
    (batch, own): (Batch, &Rates),
    network: &mut Network,
) -> Result<(Picked, usize), RunError> {
    let mut steps = || {
        let rates = agreed_rates(network, own)?;
        let batch = settled_batch(network, batch)?;
        // Threads tried up to the agreed cores, not this host's own.
        let mut auto = auto.clone();
        auto.requirements.max_threads = rates.cores.max(1);
        let picked = auto.pick(circuit, profile, batch, &rates)?;
        confirm(network, &picked.candidate.choice)?;
        Ok((picked, batch))
    };
    let result: Result<(Picked, usize), RunError> = steps();
    if let Err(e) = &result {
        network.stop(e.exit().told_to_peers());
    }
    result
}

/// What differs between a peer's choice (as sent) and ours.
fn difference(peer: PartyId, me: PartyId, theirs: &[u8], ours: &Choice) -> String {
    let named = decode(theirs).map(|c| fields(&c));
    let field = match &named {
        Some(their_fields) => fields(ours)
            .into_iter()
            .zip(their_fields)
            .find(|(a, b)| a.1 != b.1)
            .map(|((name, mine), (_, other))| format!("{name} {other}, this party ({me}) {mine}")),
        None => None,
    };
    format!(
        "--protocol auto: party {peer} chose {}: every host plans from the same hello, so \
         run the same huddle build on every host",
        field.unwrap_or_else(|| format!("differently (this party ({me}) chose {})", ours.protocol))
    )
}

/// A choice as [`encode`] wrote it (None: not one).
fn decode(b: &[u8]) -> Option<Choice> {
    let protocol = *Protocol::ALL.get(usize::from(*b.first()?))?;
    let parties = usize::from(*b.get(1)?);
    let fan_in = match *b.get(2)? {
        0 => FanIn::Any,
        max => FanIn::Limit {
            max: usize::from(max),
            rewritten: *b.get(3)? == 1,
        },
    };
    let preprocess = match *b.get(4)? {
        1 => Preprocess::Separate,
        _ => Preprocess::Interleaved,
    };
    let linear = match *b.get(6)? {
        1 => Some(LinearChoice::Prss),
        2 => Some(LinearChoice::TrustedDealer),
        3 => Some(LinearChoice::Auto),
        _ => None,
    };
    let threads = u32::from_le_bytes(b.get(8..12)?.try_into().ok()?) as usize;
    let roles = b
        .get(12..)?
        .chunks_exact(2)
        .map(|c| usize::from(u16::from_le_bytes([c[0], c[1]])))
        .collect();
    Some(Choice {
        protocol,
        parties,
        tolerated: super::tolerated(protocol, parties),
        fan_in,
        roles,
        preprocess,
        split_roles: *b.get(5)? == 1,
        threads,
        linear,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choice() -> Choice {
        Choice {
            protocol: Protocol::Trio,
            parties: 3,
            tolerated: 1,
            fan_in: FanIn::Limit {
                max: 3,
                rewritten: true,
            },
            roles: vec![2, 0, 1],
            preprocess: Preprocess::Separate,
            split_roles: false,
            threads: 2,
            linear: None,
        }
    }

    #[test]
    fn a_choice_reads_back_as_sent() {
        let c = choice();
        let bytes = encode(&c);
        assert_eq!(bytes.len(), wire_len(3));
        assert_eq!(decode(&bytes), Some(c));
    }

    #[test]
    fn a_different_choice_is_named_by_its_first_field() {
        let other = Choice {
            threads: 1,
            ..choice()
        };
        let text = difference(2, 0, &encode(&other), &choice());
        assert!(
            text.contains("party 2 chose threads 1, this party (0) 2"),
            "{text}"
        );
    }

    /// Each rate the most of any host's, cores the fewest; a protocol's
    /// own rate taken where one host has it and the other a slower general one.
    #[test]
    fn the_slowest_of_each_rate() {
        let a = Rates::default();
        let mut b = Rates {
            cores: 1,
            ..Rates::default()
        };
        b.work.linear_word *= 3.0;
        b.transport.tcp.byte *= 2.0;
        b.protocol.clear();
        b.work.bit_gate_word = 1.0;
        let s = slowest(&[a.clone(), b.clone()]);
        assert_eq!(s.cores, 1);
        assert_eq!(s.work.linear_word, b.work.linear_word);
        assert_eq!(s.transport.tcp.byte, b.transport.tcp.byte);
        assert_eq!(s.transport.tls, a.transport.tls);
        assert_eq!(s.seconds_of(Protocol::Trio, Work::BitGateWord), 1.0);
        assert_eq!(slowest(&[b.clone(), a.clone()]), s);
    }
}
