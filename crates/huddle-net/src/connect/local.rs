//! All parties of one process over loopback: TCP, or TLS with throwaway
//! certificates (what `huddle local --transport` runs), each party a thread
//! that connects as a party of its own would.

use super::options::{ConnectOptions, Handshake, Transport};
use super::party::connect_with_listener;
use crate::certs::DevPki;
use crate::config::{NetworkConfig, PartyConfig};
use crate::network::{NetError, Network};
use crate::profile::NetProfile;
use crate::tls::{TlsIdentity, Trust};
use std::net::TcpListener;
use std::time::Duration;

/// In-process parties over loopback TCP (`tls = false`) or TLS with throwaway
/// certificates (`tls = true`): what `huddle local --transport` runs.
pub fn local_networks(
    parties: usize,
    tls: bool,
    handshake: Handshake,
    profile: NetProfile,
    idle_timeout: Duration,
) -> Result<Vec<Network>, NetError> {
    local_networks_each(vec![handshake; parties], tls, profile, idle_timeout)?
        .into_iter()
        .collect()
}

/// [`local_networks`] with each party's own handshake (to see what
/// parties that disagree are told): every party's own result.
pub fn local_networks_each(
    handshakes: Vec<Handshake>,
    tls: bool,
    profile: NetProfile,
    idle_timeout: Duration,
) -> Result<Vec<Result<Network, NetError>>, NetError> {
    let parties = handshakes.len();
    let session = handshakes
        .first()
        .map(|h| h.session.clone())
        .unwrap_or_default();
    let (config, listeners) = loopback_parties(&session, parties)?;
    let pki = if tls {
        Some(
            DevPki::generate(parties)
                .map_err(|e| NetError::Setup(format!("generating certificates: {e}")))?,
        )
    } else {
        None
    };
    let results: Vec<Result<Network, NetError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = listeners
            .into_iter()
            .enumerate()
            .map(|(me, listener)| {
                let transport = match &pki {
                    Some(p) => Transport::Tls(TlsIdentity {
                        trust: Trust::Ca(p.ca_cert_der.clone()),
                        cert_der: p.parties[me].cert_der.clone(),
                        key_der: p.parties[me].key_der.clone(),
                    }),
                    None => Transport::Tcp,
                };
                let options = ConnectOptions {
                    profile: profile.clone(),
                    idle_timeout,
                    setup_timeout: Duration::from_secs(20),
                    ..ConnectOptions::new(transport, handshakes[me].clone())
                };
                let listener = Some(listener).filter(|_| me + 1 < parties);
                let config = &config;
                scope.spawn(move || connect_with_listener(config, me, listener, &options))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(NetError::Setup("a party thread panicked".into())))
            })
            .collect()
    });
    Ok(results)
}

/// `parties` listeners on loopback ports the system picks, and the
/// configuration of session `session` that has party `i` listen on the
/// `i`th: bound before any party starts, so no party dials a port not yet
/// open and no port is guessed.
pub(crate) fn loopback_parties(
    session: &str,
    parties: usize,
) -> Result<(NetworkConfig, Vec<TcpListener>), NetError> {
    let mut listeners = Vec::with_capacity(parties);
    let mut party_configs = Vec::with_capacity(parties);
    for id in 0..parties {
        let l = TcpListener::bind("127.0.0.1:0")
            .map_err(|e| NetError::Setup(format!("cannot listen on loopback: {e}")))?;
        let port = l
            .local_addr()
            .map_err(|e| NetError::Setup(e.to_string()))?
            .port();
        party_configs.push(PartyConfig {
            id,
            host: "127.0.0.1".into(),
            port,
            cert: None,
            key: None,
        });
        listeners.push(l);
    }
    let config = NetworkConfig {
        session: session.to_string(),
        ca: None,
        parties: party_configs,
    };
    Ok((config, listeners))
}
