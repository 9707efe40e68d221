//! The dialing side: a party reaches each lower party, retrying with
//! back-off until the deadline, and runs the handshake as the client (TLS,
//! then hellos). A failure says whether the peer differs from this party
//! (a mismatch) and whether a party cannot run (to be passed on).

use super::greeting::{client_hello, NoHello};
use super::options::{ConnectOptions, Transport};
use super::socket::{prepare, remaining, stream_parts, tls_parts};
use crate::config::PartyConfig;
use crate::halt::{passed_on, told_during_connect};
use crate::hello::{check_hello, Hello, Settings};
use crate::network::{LinkParts, NetError, Shared};
use crate::refusal::{Note, Sniffed};
use crate::PartyId;
use rustls::{Connection, StreamOwned};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// Why dialing a peer failed; `mismatch`: it is one of ours, but its hello
/// differs from ours; `tell`: a party cannot run (this one, or one the
/// peer's refusal names), which the others are told.
pub(super) struct DialError {
    pub(super) error: NetError,
    pub(super) mismatch: bool,
    pub(super) tell: Option<Note>,
}

impl DialError {
    fn mismatch(error: NetError) -> DialError {
        DialError {
            error,
            mismatch: true,
            tell: None,
        }
    }
}

impl From<NetError> for DialError {
    fn from(error: NetError) -> DialError {
        DialError {
            error,
            mismatch: false,
            tell: None,
        }
    }
}

/// The dialing side's handshake failed on `socket` with `why`: a refusal
/// the peer sent instead (checked against the run), our TLS handshake
/// (this party cannot run: its peers are told), or anything else.
fn dial_failure(
    socket: &mut Sniffed,
    why: NoHello,
    ours: &Hello,
    peer: PartyId,
    fail: impl Fn(String) -> NetError,
) -> DialError {
    let (me, n) = (ours.party as usize, ours.parties as usize);
    if let Some(received) = socket.refusal() {
        return match Note::check(received, me, n, &ours.session) {
            Ok(note) => DialError {
                error: NetError::Refused {
                    peer: note.party,
                    reporter: note.reporter,
                    reason: note.reason.clone(),
                    seen: String::new(),
                },
                mismatch: false,
                tell: Some(note),
            },
            Err(e) => fail(e).into(),
        };
    }
    match why {
        NoHello::Tls(e) => DialError {
            error: fail(format!("TLS handshake or hello failed: {e}")),
            mismatch: false,
            tell: Some(Note {
                party: me,
                reporter: me,
                reason: format!("its TLS handshake with party {peer} failed: {e}"),
            }),
        },
        NoHello::Stopped { culprit } => NetError::Mismatch(format!(
            "party {peer} stopped at connect: its settings and party {culprit}'s differ (their \
             errors name the setting)"
        ))
        .into(),
        NoHello::Told(e) | NoHello::Other(e) => fail(e).into(),
    }
}

pub(super) fn dial(
    peer: &PartyConfig,
    ours: &Hello,
    options: &ConnectOptions,
    deadline: Instant,
    shared: &Shared,
) -> Result<(LinkParts, Settings), DialError> {
    let me = ours.party;
    let addrs: Vec<SocketAddr> = (peer.host.as_str(), peer.port)
        .to_socket_addrs()
        .map_err(|e| {
            NetError::Setup(format!(
                "cannot resolve party {} at {}:{}: {e}",
                peer.id, peer.host, peer.port
            ))
        })?
        .collect();
    // Parties start at about the same time, so a refused dial usually means
    // the peer is still reading its circuit: retry soon (1 ms, doubling), as
    // every millisecond waited past its listening delays the whole run.
    let mut backoff = Duration::from_millis(1);
    let mut attempt = 0u32;
    let socket = loop {
        let mut last = String::from("no address");
        let mut connected = None;
        attempt += 1;
        // A link already made reports that a party failed: give up now.
        if let Some(e) = told_during_connect(&shared.0) {
            let tell = passed_on(&e, me as PartyId);
            return Err(DialError {
                error: e,
                mismatch: false,
                tell,
            });
        }
        for a in &addrs {
            match TcpStream::connect_timeout(a, remaining(deadline).min(Duration::from_secs(2))) {
                Ok(s) => {
                    connected = Some(s);
                    break;
                }
                Err(e) => {
                    tracing::debug!(party = me, peer = peer.id, addr = %a, attempt, error = %e, "dial failed, retrying");
                    last = e.to_string();
                }
            }
        }
        if let Some(s) = connected {
            tracing::info!(party = me, peer = peer.id, host = %peer.host, port = peer.port, attempt, "connected");
            break s;
        }
        if Instant::now() >= deadline {
            return Err(NetError::Setup(format!(
                "party {me} could not reach party {} at {}:{}: {last}",
                peer.id, peer.host, peer.port
            ))
            .into());
        }
        std::thread::sleep(backoff.min(remaining(deadline)));
        backoff = (backoff * 2).min(Duration::from_millis(250));
    };
    let fail = |what: String| {
        NetError::Setup(format!(
            "with party {} at {}:{}: {what}",
            peer.id, peer.host, peer.port
        ))
    };
    prepare(&socket, deadline).map_err(|e| fail(e.to_string()))?;
    let socket = Sniffed::new(socket);
    match &options.transport {
        Transport::Tcp => {
            let mut s = socket;
            let theirs = client_hello(&mut s, ours)
                .map_err(|e| dial_failure(&mut s, e, ours, peer.id, fail))?;
            check_hello(&theirs, peer.id, ours)
                .map_err(|e| DialError::mismatch(NetError::Mismatch(e)))?;
            tracing::info!(party = me, peer = peer.id, "hello agreed (plain TCP)");
            let s = s.into_inner().map_err(|e| fail(e.to_string()))?;
            stream_parts(
                peer.id,
                ours.parties as usize,
                s,
                options.limits,
                shared.clone(),
            )
            .map(|parts| (parts, theirs.settings))
            .map_err(|e| fail(e.to_string()).into())
        }
        Transport::Tls(identity) => {
            let conn = identity.client(peer.id).map_err(|e| {
                // Our own credentials are unusable: this party cannot run.
                let mut d = DialError::from(fail(e.clone()));
                d.tell = Some(Note {
                    party: me as PartyId,
                    reporter: me as PartyId,
                    reason: format!("its TLS set-up is unusable: {e}"),
                });
                d
            })?;
            let mut tls = StreamOwned::new(conn, socket);
            let theirs = client_hello(&mut tls, ours)
                .map_err(|e| dial_failure(&mut tls.sock, e, ours, peer.id, fail))?;
            check_hello(&theirs, peer.id, ours)
                .map_err(|e| DialError::mismatch(NetError::Mismatch(e)))?;
            tracing::info!(party = me, peer = peer.id, "TLS handshake and hello agreed");
            let StreamOwned { conn, sock } = tls;
            let sock = sock.into_inner().map_err(|e| fail(e.to_string()))?;
            tls_parts(
                peer.id,
                ours.parties as usize,
                Connection::Client(conn),
                sock,
                options.limits,
                shared.clone(),
            )
            .map(|parts| (parts, theirs.settings))
            .map_err(|e| fail(e.to_string()).into())
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::certs::DevPki;
    use crate::connect::testing::{connect_all, err_of, identity, options, setup};
    use crate::connect::Transport;
    use crate::tls::{TlsIdentity, Trust};

    #[test]
    fn tls_rejects_a_certificate_from_another_ca() {
        let (pki, other) = (
            DevPki::generate(2).expect("pki"),
            DevPki::generate(2).expect("pki"),
        );
        let (config, listeners) = setup(2);
        // Party 1 trusts the right CA but presents a certificate from another one.
        let rogue = TlsIdentity {
            trust: Trust::Ca(pki.ca_cert_der.clone()),
            ..identity(&other, &other.parties[1])
        };
        let r = connect_all(
            &config,
            listeners,
            vec![
                options(Transport::Tls(identity(&pki, &pki.parties[0]))),
                options(Transport::Tls(rogue)),
            ],
        );
        assert!(
            err_of(&r[1]).contains("with party 0") && err_of(&r[1]).contains("TLS"),
            "{}",
            err_of(&r[1])
        );
        // Party 1 cannot run and says so; party 0 saw why: both CAs carry
        // the same name, so the foreign signature is what fails.
        assert!(
            err_of(&r[0]).contains("party 1 cannot run")
                && err_of(&r[0]).contains("invalid peer certificate: BadSignature"),
            "{}",
            err_of(&r[0])
        );
    }

    #[test]
    fn tls_rejects_a_server_certificate_for_another_party() {
        let pki = DevPki::generate(2).expect("pki");
        let (config, listeners) = setup(2);
        // Party 0 (the listener) presents party 1's certificate.
        let opts = vec![
            options(Transport::Tls(identity(&pki, &pki.parties[1]))),
            options(Transport::Tls(identity(&pki, &pki.parties[1]))),
        ];
        let r = connect_all(&config, listeners, opts);
        assert!(
            err_of(&r[1]).contains("with party 0")
                && err_of(&r[1]).contains("not valid for name \"party-0.huddle\""),
            "{}",
            err_of(&r[1])
        );
    }
}
