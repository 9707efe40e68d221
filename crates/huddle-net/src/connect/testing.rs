//! What the connect tests share: loopback parties, each party's options,
//! a connect of every party at once, and a party 1 played by hand.

use super::local::loopback_parties;
use super::party::connect_with_listener;
use super::{ConnectOptions, Handshake, Transport};
use crate::certs::{DevPki, PartyCredentials};
use crate::config::NetworkConfig;
use crate::hello::{Hello, Settings, VERSION};
use crate::network::{NetError, Network};
use crate::tls::{TlsIdentity, Trust};
use std::net::{TcpListener, TcpStream};
use std::time::Duration;

fn handshake() -> Handshake {
    Handshake {
        session: "s".into(),
        settings: protocol("p"),
        circuit: [1; 32],
    }
}

pub(super) fn protocol(name: &str) -> Settings {
    let mut s = Settings::new();
    s.option("protocol", crate::Value::Text(name.into()));
    s
}

/// A hello as party `party` of 2 with [`handshake`]'s run.
pub(super) fn hello_of(party: u32) -> Hello {
    Hello {
        version: VERSION,
        party,
        parties: 2,
        session: "s".into(),
        circuit: [1; 32],
        settings: protocol("p"),
    }
}

/// Loopback listeners and a configuration for `n` parties (session `s`).
pub(super) fn setup(n: usize) -> (NetworkConfig, Vec<Option<TcpListener>>) {
    let (config, listeners) = loopback_parties("s", n).expect("loopback listeners");
    (config, listeners.into_iter().map(Some).collect())
}

pub(super) fn identity(pki: &DevPki, creds: &PartyCredentials) -> TlsIdentity {
    TlsIdentity {
        trust: Trust::Ca(pki.ca_cert_der.clone()),
        cert_der: creds.cert_der.clone(),
        key_der: creds.key_der.clone(),
    }
}

pub(super) fn options(transport: Transport) -> ConnectOptions {
    ConnectOptions {
        setup_timeout: Duration::from_secs(3),
        idle_timeout: Duration::from_secs(5),
        ..ConnectOptions::new(transport, handshake())
    }
}

/// Connects every party with its own options; returns each party's result as text.
pub(super) fn connect_all(
    config: &NetworkConfig,
    listeners: Vec<Option<TcpListener>>,
    opts: Vec<ConnectOptions>,
) -> Vec<Result<Network, String>> {
    std::thread::scope(|s| {
        let handles: Vec<_> = listeners
            .into_iter()
            .zip(opts)
            .enumerate()
            .map(|(me, (l, o))| {
                s.spawn(move || connect_with_listener(config, me, l, &o).map_err(|e| e.to_string()))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("thread"))
            .collect()
    })
}

pub(super) fn err_of(r: &Result<Network, String>) -> &str {
    match r {
        Ok(_) => panic!("connected although it must not"),
        Err(e) => e,
    }
}

/// Party 0 is real; the test plays party 1 by hand.
pub(super) fn rogue_peer(
    play: impl FnOnce(TcpStream) + Send + 'static,
) -> Result<Vec<u8>, NetError> {
    let (config, mut listeners) = setup(2);
    let port = config.parties[0].port;
    let l0 = listeners[0].take();
    let rogue = std::thread::spawn(move || {
        let s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        play(s)
    });
    let result = connect_with_listener(&config, 0, l0, &options(Transport::Tcp))
        .and_then(|mut net| net.recv(1, 16));
    rogue.join().expect("rogue thread");
    result
}
