//! One party's connect: it dials every lower party, then listens for the
//! higher ones; the run starts only if every hello agreed, with the open
//! settings settled. A peer that differs stops this party (it still tells
//! the others for a moment); a party that cannot run stops it at once, and
//! the others are told (`crate::halt`).

use super::dial::{dial, DialError};
use super::listen::{listen, STOP_GRACE};
use super::options::ConnectOptions;
use crate::config::{NetworkConfig, PartyConfig};
use crate::halt::{give_up, Halt};
use crate::hello::{settle, Hello, Settings, VERSION};
use crate::network::{Alarm, LinkParts, NetError, Network, Shared};
use crate::refusal::{round, Note, REFUSAL_GRACE};
use crate::waits::Board;
use crate::PartyId;
use std::net::TcpListener;
use std::sync::Arc;
use std::time::Instant;

/// Connects party `me` of `config` to every other party.
pub fn connect(
    config: &NetworkConfig,
    me: PartyId,
    options: &ConnectOptions,
) -> Result<Network, NetError> {
    let own = config.parties.get(me).ok_or_else(|| {
        NetError::Setup(format!(
            "party {me} is not in the configuration ({} parties)",
            config.parties()
        ))
    })?;
    let listener = if me + 1 < config.parties() {
        let l = bind(own).inspect_err(|e| {
            // This party cannot run: its lower peers need not wait for it.
            let note = Note {
                party: me,
                reporter: me,
                reason: format!("it cannot listen on its port ({e})"),
            };
            let lower: Vec<PartyId> = (0..me).collect();
            round(config, &note, &lower, None, Instant::now() + REFUSAL_GRACE);
        })?;
        tracing::info!(party = me, host = %own.host, port = own.port, "listening for parties {}..{}", me + 1, config.parties() - 1);
        Some(l)
    } else {
        None
    };
    connect_with_listener(config, me, listener, options)
}

fn bind(own: &PartyConfig) -> Result<TcpListener, NetError> {
    TcpListener::bind((own.host.as_str(), own.port))
        .or_else(|_| TcpListener::bind(("0.0.0.0", own.port)))
        .map_err(|e| {
            NetError::Setup(format!(
                "cannot listen on {}:{} for party {}: {e}",
                own.host, own.port, own.id
            ))
        })
}

pub(super) fn connect_with_listener(
    config: &NetworkConfig,
    me: PartyId,
    listener: Option<TcpListener>,
    options: &ConnectOptions,
) -> Result<Network, NetError> {
    let n = config.parties();
    if me >= n {
        return Err(NetError::Setup(format!(
            "party {me} is not in the configuration ({n} parties)"
        )));
    }
    let deadline = Instant::now() + options.setup_timeout;
    let ours = Hello {
        version: VERSION,
        party: me as u32,
        parties: n as u32,
        session: options.handshake.session.clone(),
        circuit: options.handshake.circuit,
        settings: options.handshake.settings.clone(),
    };
    // What every link of this party shares: the alarm and the board of waits.
    let shared: Shared = (Arc::new(Alarm::default()), Board::new(me, n));
    let mut links: Vec<Option<LinkParts>> = (0..n).map(|_| None).collect();
    // Every peer's settings, to settle our open settings.
    let mut hellos: Vec<Option<Settings>> = vec![None; n];
    // After a peer's hello differs we stop, but still dial the other lower
    // parties briefly: they see the difference too and stop at once
    // instead of waiting for us until their timeout.
    let mut stopped: Option<(PartyId, NetError)> = None;
    // This party or another cannot run: we give up, telling the others.
    let mut halted: Option<Halt> = None;
    for ((slot, hello), peer) in links.iter_mut().zip(&mut hellos).zip(&config.parties[..me]) {
        let limit = match stopped {
            Some(_) => deadline.min(Instant::now() + STOP_GRACE),
            None => deadline,
        };
        match (dial(peer, &ours, options, limit, &shared), &stopped) {
            (Ok((parts, theirs)), None) => (*slot, *hello) = (Some(parts), Some(theirs)),
            (
                Err(DialError {
                    error,
                    mismatch: true,
                    ..
                }),
                None,
            ) => stopped = Some((peer.id, error)),
            (
                Err(DialError {
                    error,
                    tell: Some(note),
                    ..
                }),
                None,
            ) => {
                halted = Some(Halt {
                    error,
                    tell: Some(note),
                });
                break;
            }
            (Err(DialError { error, .. }), None) => return Err(error),
            // Stopping: links made now only close again.
            (_, Some(_)) => {}
        }
    }
    if me + 1 < n && halted.is_none() {
        let listener = listener
            .as_ref()
            .ok_or_else(|| NetError::Setup(format!("party {me} has no listening socket")))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| NetError::Setup(e.to_string()))?;
        // A stopping party answers its higher peers for a moment too,
        // telling them to stop (its own error is the dial's, below).
        let heard = listen(
            listener,
            &ours,
            (&mut links, &mut hellos),
            (options, config),
            deadline,
            &shared,
            stopped.as_ref().map(|(peer, _)| *peer),
        );
        match heard {
            Err(halt) if stopped.is_none() && halt.tell.is_some() => halted = Some(halt),
            Err(halt) if stopped.is_none() => return Err(halt.error),
            _ => {}
        }
    }
    if let Some(halt) = halted {
        return Err(give_up(
            config,
            me,
            halt,
            links,
            listener.as_ref(),
            shared,
            (&options.profile, options.idle_timeout),
        ));
    }
    if let Some((_, error)) = stopped {
        return Err(error);
    }
    let settled = settle(&ours.settings, &hellos).map_err(NetError::Mismatch)?;
    let (alarm, board) = shared;
    let mut net = Network::from_links(
        me,
        links,
        &options.profile,
        options.idle_timeout,
        (alarm, Some(board)),
    );
    net.set_settled(settled);
    net.share_host_with(parties_on_host(config, me));
    Ok(net)
}

/// How many parties of `config` run on party `me`'s host (itself counted):
/// the same host name, or loopback addresses both.
fn parties_on_host(config: &crate::config::NetworkConfig, me: PartyId) -> usize {
    let loopback =
        |h: &str| h == "localhost" || h.parse::<std::net::IpAddr>().is_ok_and(|a| a.is_loopback());
    let mine = config.parties[me].host.as_str();
    config
        .parties
        .iter()
        .filter(|p| p.host == mine || (loopback(&p.host) && loopback(mine)))
        .count()
}

#[cfg(test)]
mod tests {
    use super::connect_with_listener;
    use crate::certs::DevPki;
    use crate::config::PartyConfig;
    use crate::connect::testing::{connect_all, err_of, identity, options, protocol, setup};
    use crate::connect::{ConnectOptions, Transport};
    use crate::tls::{TlsIdentity, Trust};
    use std::time::Duration;

    #[test]
    fn parties_on_a_host_are_those_of_its_name_or_all_on_loopback() {
        let (mut config, _listeners) = setup(4);
        assert_eq!(super::parties_on_host(&config, 0), 4);
        let hosts = ["10.0.0.1", "10.0.0.1", "localhost", "::1"];
        for (p, h) in config.parties.iter_mut().zip(hosts) {
            p.host = h.into();
        }
        let counts: Vec<usize> = (0..4)
            .map(|me| super::parties_on_host(&config, me))
            .collect();
        assert_eq!(counts, [2, 2, 2, 2]);
        config.parties[1].host = "10.0.0.2".into();
        assert_eq!(super::parties_on_host(&config, 0), 1);
    }

    /// Options for a party that pins every certificate of `pki` and presents party `creds_of`'s.
    fn pinned(pki: &DevPki, creds_of: usize) -> ConnectOptions {
        let pins = pki.parties.iter().map(|p| p.cert_der.clone()).collect();
        let c = &pki.parties[creds_of];
        options(Transport::Tls(TlsIdentity {
            trust: Trust::Pinned(pins),
            cert_der: c.cert_der.clone(),
            key_der: c.key_der.clone(),
        }))
    }

    #[test]
    fn pinned_certificates_authenticate_without_a_ca() {
        let pki = DevPki::generate(3).expect("pki");
        let (config, listeners) = setup(3);
        let r = connect_all(
            &config,
            listeners,
            (0..3).map(|i| pinned(&pki, i)).collect(),
        );
        assert!(
            r.iter().all(Result::is_ok),
            "{:?}",
            r.iter().map(|x| x.as_ref().err()).collect::<Vec<_>>()
        );
        // A certificate pinned for another party is refused.
        let (config, listeners) = setup(3);
        let r = connect_all(
            &config,
            listeners,
            vec![pinned(&pki, 0), pinned(&pki, 1), pinned(&pki, 1)],
        );
        assert!(
            err_of(&r[0])
                .contains("claims to be party 2 but presents the certificate pinned for party 1"),
            "{}",
            err_of(&r[0])
        );
        // A certificate pinned for nobody is refused in the handshake.
        let other = DevPki::generate(2).expect("pki");
        let (config, listeners) = setup(2);
        let mut rogue = pinned(&pki, 1);
        if let Transport::Tls(id) = &mut rogue.transport {
            id.cert_der = other.parties[1].cert_der.clone();
            id.key_der = other.parties[1].key_der.clone();
        }
        let r = connect_all(&config, listeners, vec![pinned(&pki, 0), rogue]);
        assert!(
            err_of(&r[0]).contains("party 1 cannot run")
                && err_of(&r[0]).contains("not the one parties.toml pins for party 1"),
            "{}",
            err_of(&r[0])
        );
        assert!(err_of(&r[1]).contains("with party 0"), "{}", err_of(&r[1]));
    }

    #[test]
    fn mismatched_runs_refuse_to_start_and_say_why() {
        type Change = Box<dyn Fn(&mut ConnectOptions)>;
        let cases: Vec<(Change, &str)> = vec![
            (
                Box::new(|o| o.handshake.session = "other".into()),
                "party 1 is in session `other`, this party (0) in session `s`",
            ),
            (
                Box::new(|o| o.handshake.settings = protocol("trio")),
                "party 1 runs with --protocol trio, this party (0) with --protocol p",
            ),
            (
                Box::new(|o| o.handshake.circuit = [2; 32]),
                "party 1 evaluates a different circuit (hash 020202020202…, this party (0) has 010101010101…)",
            ),
        ];
        for transport in ["tcp", "tls"] {
            for (change, needle) in &cases {
                let pki = DevPki::generate(2).expect("pki");
                let t = |i: usize| {
                    if transport == "tls" {
                        Transport::Tls(identity(&pki, &pki.parties[i]))
                    } else {
                        Transport::Tcp
                    }
                };
                let (config, listeners) = setup(2);
                let mut o1 = options(t(1));
                change(&mut o1);
                let r = connect_all(&config, listeners, vec![options(t(0)), o1]);
                assert_eq!(err_of(&r[0]), *needle, "{transport}");
                assert!(
                    err_of(&r[1]).contains("party 0"),
                    "{transport}: {}",
                    err_of(&r[1])
                );
            }
        }
        // A different party count.
        let (config, listeners) = setup(2);
        let mut three = config.clone();
        three.parties.push(PartyConfig {
            id: 2,
            host: "127.0.0.1".into(),
            port: 9,
            cert: None,
            key: None,
        });
        let r = std::thread::scope(|s| {
            let mut ls = listeners.into_iter();
            let (l0, l1) = (ls.next().flatten(), ls.next().flatten());
            let a = s.spawn(|| {
                connect_with_listener(&config, 0, l0, &options(Transport::Tcp))
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            });
            let b = s.spawn(|| {
                connect_with_listener(&three, 1, l1, &options(Transport::Tcp))
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            });
            (a.join().expect("a"), b.join().expect("b"))
        });
        assert_eq!(
            r.0.expect_err("mismatch"),
            "party 1 runs with 3 parties, this party (0) with 2"
        );
    }

    /// One of three parties has other settings, at every position: every
    /// party stops at connect, and none by waiting out its (long) timeout:
    /// each error names the difference, or the party that has it.
    #[test]
    fn one_odd_party_stops_all_three_at_connect_naming_it() {
        for transport in ["tcp", "tls"] {
            for odd in 0..3 {
                let pki = DevPki::generate(3).expect("pki");
                let (config, listeners) = setup(3);
                let opts = (0..3)
                    .map(|i| {
                        let t = if transport == "tls" {
                            Transport::Tls(identity(&pki, &pki.parties[i]))
                        } else {
                            Transport::Tcp
                        };
                        let mut o = ConnectOptions {
                            setup_timeout: Duration::from_secs(120),
                            ..options(t)
                        };
                        if i == odd {
                            o.handshake.settings = protocol("other");
                        }
                        o
                    })
                    .collect();
                let r = connect_all(&config, listeners, opts);
                for (i, result) in r.iter().enumerate() {
                    let e = err_of(result);
                    // The odd party or a peer that differs from it.
                    let named = e.contains("--protocol other")
                        || e.contains(&format!("party {odd} stopped at connect"))
                        || e.contains(&format!("party {odd}'s differ"));
                    assert!(named, "{transport}, odd party {odd}: party {i}: {e}");
                }
            }
        }
    }
}
