//! The listening side: a party accepts its higher parties, each connection
//! in its own handshake thread (as the server: TLS, then hellos), so that
//! strangers cannot hold up the real peers. A party that stops because a
//! peer differs answers the others for a short grace, telling them to stop.

use super::greeting::{read_hello, send_hello};
use super::options::{ConnectOptions, Transport};
use super::socket::{prepare, remaining, stream_parts, tls_parts};
use crate::config::NetworkConfig;
use crate::frame::write_abort;
use crate::halt::{passed_on, told_during_connect, Halt};
use crate::hello::{check_hello, Hello, Settings};
use crate::network::{LinkParts, NetError, Shared};
use crate::refusal::{Note, Sniffed};
use crate::sightings::Sightings;
use crate::tls::{check_peer_identity, party_named_in, Seen, Trust};
use crate::PartyId;
use rustls::{Connection, ServerConnection, StreamOwned};
use std::io::{self, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::time::{Duration, Instant};

/// Why an incoming connection was turned away.
enum Refusal {
    /// Not one of ours (wrong id, bad hello, failed TLS): keep waiting for the real peer.
    Stranger(String),
    /// A failed TLS handshake whose certificate names party `party`: not
    /// proven to be it, but what we know of that party if it never comes.
    Unproven { party: PartyId, why: String },
    /// A refusal: party `note.party` cannot run. Stop, and pass it on.
    Refused(Note),
    /// One of ours, but the run does not match: stop.
    Mismatch(PartyId, String),
    /// One of ours, told to stop: we stop because of another party.
    Told(PartyId),
    /// Our own set-up is broken: stop at once.
    Fatal(String),
}

/// Connections whose handshake is under way at once; more are closed at
/// once (a crowd of strangers cannot exhaust threads or memory).
const MAX_PENDING: usize = 32;

/// How long a connection may take to present a hello (and, with TLS, a
/// certificate) before it is dropped as a stranger. Handshakes run
/// concurrently, so a silent stranger delays nobody else.
const HELLO_ALLOWANCE: Duration = Duration::from_secs(10);

/// A connection that has passed the handshake as party `peer`.
enum Handshaken {
    Tcp(TcpStream),
    // Boxed: a TLS session state is a kilobyte, the TCP variant a handle.
    Tls(Box<ServerConnection>, TcpStream),
}

/// Accepts the higher-numbered parties: every connection gets its own
/// handshake thread (at most `MAX_PENDING` at once), so strangers that
/// connect and say nothing cannot hold up the real peers.
pub(super) fn listen(
    listener: &TcpListener,
    ours: &Hello,
    (links, hellos): (&mut [Option<LinkParts>], &mut [Option<Settings>]),
    (options, config): (&ConnectOptions, &NetworkConfig),
    deadline: Instant,
    shared: &Shared,
    already: Option<PartyId>,
) -> Result<(), Halt> {
    let (me, n) = (ours.party as usize, links.len());
    let mut seen = Sightings::new(n);
    // Sockets still in their handshake, closed when we are done so that
    // their threads end at once.
    let mut pending: Vec<(SocketAddr, TcpStream)> = Vec::new();
    // Once a peer's hello differs, we stop; for a short grace we still
    // answer the other peers, with an abort naming that peer, so that they
    // stop at once instead of dialing us until their timeout. 0: running;
    // else the culprit + 1.
    let stop = std::sync::atomic::AtomicU32::new(0);
    let mut stopping: Option<(Instant, String)> = None;
    let mut told = vec![false; n];
    let begin_stopping = |culprit: PartyId, why: String| {
        stop.store(culprit as u32 + 1, std::sync::atomic::Ordering::SeqCst);
        Some(((Instant::now() + STOP_GRACE).min(deadline), why))
    };
    if let Some(peer) = already {
        stopping = begin_stopping(peer, format!("stopped: party {peer}'s hello differs"));
    }
    let quiet = |error: NetError| Halt { error, tell: None };
    std::thread::scope(|scope| {
        let (done_tx, done) = std::sync::mpsc::channel::<(SocketAddr, Result<Accepted, Refusal>)>();
        let outcome = 'accepting: loop {
            while let Ok((addr, result)) = done.try_recv() {
                pending.retain(|(a, _)| *a != addr);
                match result {
                    Ok((peer, conn, theirs)) if links[peer].is_none() => {
                        let parts = match conn {
                            Handshaken::Tcp(s) => {
                                stream_parts(peer, n, s, options.limits, shared.clone())
                            }
                            Handshaken::Tls(conn, s) => tls_parts(
                                peer,
                                n,
                                Connection::Server(*conn),
                                s,
                                options.limits,
                                shared.clone(),
                            ),
                        };
                        match parts {
                            Ok(p) => (links[peer], hellos[peer]) = (Some(p), Some(theirs)),
                            Err(e) => seen.stranger(addr, e.to_string()),
                        }
                    }
                    Ok((peer, _, _)) => seen.stranger(
                        addr,
                        format!("claims to be party {peer}, which is already connected"),
                    ),
                    Err(Refusal::Stranger(why)) => {
                        tracing::warn!(party = me, %addr, "refused a connection: {why}");
                        seen.stranger(addr, why)
                    }
                    Err(Refusal::Unproven { party, why }) => {
                        tracing::warn!(party = me, %addr, claimed = party, "refused a connection: {why}");
                        seen.party(party, addr, why)
                    }
                    Err(Refusal::Refused(note)) if stopping.is_none() => {
                        tracing::info!(party = me, %addr, culprit = note.party, "a refusal: {}", note.reason);
                        break 'accepting Err(Halt {
                            error: NetError::Refused {
                                peer: note.party,
                                reporter: note.reporter,
                                reason: note.reason.clone(),
                                seen: seen.of(note.party),
                            },
                            tell: Some(note),
                        });
                    }
                    Err(Refusal::Refused(_)) => {}
                    Err(Refusal::Mismatch(peer, why)) => {
                        told[peer] = true;
                        if stopping.is_none() {
                            stopping = begin_stopping(peer, why);
                        }
                    }
                    Err(Refusal::Told(peer)) => told[peer] = true,
                    Err(Refusal::Fatal(why)) => {
                        break 'accepting Err(Halt {
                            tell: Some(Note {
                                party: me,
                                reporter: me,
                                reason: format!("its TLS set-up is unusable: {why}"),
                            }),
                            error: NetError::Setup(why),
                        })
                    }
                }
            }
            if let Some((until, why)) = &stopping {
                // Connected peers learn it when our links close.
                let all_know = (me + 1..n).all(|p| told[p] || links[p].is_some());
                if all_know || Instant::now() >= *until {
                    break Err(quiet(NetError::Mismatch(why.clone())));
                }
            } else if links[me + 1..].iter().all(Option::is_some) {
                break Ok(());
            } else if let Some(e) = told_during_connect(&shared.0) {
                // A link already made reports that a party failed.
                let tell = passed_on(&e, me);
                break Err(Halt { error: e, tell });
            }
            match listener.accept() {
                Ok((socket, addr)) if pending.len() >= MAX_PENDING => {
                    drop(socket);
                    seen.stranger(
                        addr,
                        format!("closed, {MAX_PENDING} handshakes already under way"),
                    );
                }
                Ok((socket, addr)) => match socket.try_clone() {
                    Ok(handle) => {
                        pending.push((addr, handle));
                        let tx = done_tx.clone();
                        let stop = &stop;
                        scope.spawn(move || {
                            let result =
                                handshake_incoming(socket, ours, n, options, deadline, stop);
                            let _ = tx.send((addr, result));
                        });
                    }
                    Err(e) => seen.stranger(addr, e.to_string()),
                },
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if Instant::now() >= deadline && stopping.is_none() {
                        let missing: Vec<PartyId> =
                            (me + 1..n).filter(|&p| links[p].is_none()).collect();
                        let msg = seen.timeout_message(me, &missing, config);
                        break Err(quiet(NetError::Setup(msg)));
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
                Err(e) => {
                    break Err(quiet(NetError::Setup(format!(
                        "accepting connections: {e}"
                    ))))
                }
            }
        };
        for (_, s) in &pending {
            let _ = s.shutdown(Shutdown::Both);
        }
        outcome
    })
}

/// A connection accepted as a party: its id, the connection, its settings.
type Accepted = (PartyId, Handshaken, Settings);

/// The listening side's handshake with one connection, which claims to be
/// one of the parties above `ours.party`; or brings a refusal.
fn handshake_incoming(
    socket: TcpStream,
    ours: &Hello,
    n: usize,
    options: &ConnectOptions,
    deadline: Instant,
    stop: &std::sync::atomic::AtomicU32,
) -> Result<Accepted, Refusal> {
    let me = ours.party as usize;
    socket
        .set_nonblocking(false)
        .map_err(|e| Refusal::Stranger(e.to_string()))?;
    prepare(
        &socket,
        Instant::now() + remaining(deadline).min(HELLO_ALLOWANCE),
    )
    .map_err(|e| Refusal::Stranger(e.to_string()))?;
    let expected = |h: &Hello| -> Result<PartyId, Refusal> {
        let p = h.party as usize;
        if p <= me || p >= n {
            return Err(Refusal::Stranger(format!(
                "claims to be party {p}, but only parties {}..{} connect to party {me}",
                me + 1,
                n - 1
            )));
        }
        Ok(p)
    };
    // A refusal where the hello (or the TLS ClientHello) should be.
    let refused = |s: &mut Sniffed| {
        s.refusal()
            .map(|r| match Note::check(r, me, n, &ours.session) {
                Ok(note) => Refusal::Refused(note),
                Err(why) => Refusal::Stranger(why),
            })
    };
    let socket = Sniffed::new(socket);
    match &options.transport {
        Transport::Tcp => {
            let mut s = socket;
            let theirs = read_hello(&mut s)
                .map_err(|e| refused(&mut s).unwrap_or(Refusal::Stranger(e.text())))?;
            let peer = expected(&theirs)?;
            tell_to_stop(&mut s, stop, peer)?;
            send_hello(&mut s, ours).map_err(|e| Refusal::Stranger(e.text()))?;
            check_hello(&theirs, peer, ours).map_err(|e| Refusal::Mismatch(peer, e))?;
            tracing::info!(party = me, peer, "accepted; hello agreed (plain TCP)");
            let s = s
                .into_inner()
                .map_err(|e| Refusal::Stranger(e.to_string()))?;
            Ok((peer, Handshaken::Tcp(s), theirs.settings))
        }
        Transport::Tls(identity) => {
            let certificate = Seen::default();
            let conn: ServerConnection = identity.server(&certificate).map_err(Refusal::Fatal)?;
            let mut tls = StreamOwned::new(conn, socket);
            let theirs = read_hello(&mut tls).map_err(|e| {
                refused(&mut tls.sock).unwrap_or_else(|| {
                    let why = format!("TLS handshake or hello failed: {}", e.text());
                    unproven(&identity.trust, &certificate, n, why)
                })
            })?;
            let peer = expected(&theirs)?;
            check_peer_identity(&identity.trust, tls.conn.peer_certificates(), peer, n)
                .map_err(Refusal::Stranger)?;
            tell_to_stop(&mut tls, stop, peer)?;
            send_hello(&mut tls, ours).map_err(|e| Refusal::Stranger(e.text()))?;
            check_hello(&theirs, peer, ours).map_err(|e| Refusal::Mismatch(peer, e))?;
            tracing::info!(party = me, peer, "accepted; TLS handshake and hello agreed");
            let StreamOwned { conn, sock } = tls;
            let sock = sock
                .into_inner()
                .map_err(|e| Refusal::Stranger(e.to_string()))?;
            Ok((peer, Handshaken::Tls(Box::new(conn), sock), theirs.settings))
        }
    }
}

/// A failed TLS handshake, put down to the party the presented certificate
/// names where it names one (by name only: it was not accepted).
fn unproven(trust: &Trust, certificate: &Seen, parties: usize, why: String) -> Refusal {
    let presented = certificate.lock().ok().and_then(|c| c.clone());
    let Some((cert, party)) = presented.and_then(|c| party_named_in(&c, parties).map(|p| (c, p)))
    else {
        return Refusal::Stranger(why);
    };
    let why = match trust {
        Trust::Pinned(pins) if pins.get(party).is_some_and(|p| *p != cert) => format!(
            "its certificate is not the one parties.toml pins for party {party} \
             (a regenerated key, or an old party{party}.pem here)"
        ),
        _ => why,
    };
    Refusal::Unproven { party, why }
}

/// How long a party that stops at connect (a peer's hello differs) still
/// answers its other peers, telling them to stop too.
pub(super) const STOP_GRACE: Duration = Duration::from_secs(2);

/// If we are stopping, tells `peer` (whose hello we read) with an abort
/// naming the party whose hello differed.
fn tell_to_stop(
    s: &mut impl Write,
    stop: &std::sync::atomic::AtomicU32,
    peer: PartyId,
) -> Result<(), Refusal> {
    match stop.load(std::sync::atomic::Ordering::SeqCst) {
        0 => Ok(()),
        culprit => {
            let _ = write_abort(s, culprit - 1).and_then(|()| s.flush());
            Err(Refusal::Told(peer))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::HELLO_ALLOWANCE;
    use crate::certs::DevPki;
    use crate::connect::greeting::client_hello;
    use crate::connect::party::connect_with_listener;
    use crate::connect::testing::{
        connect_all, err_of, hello_of, identity, options, rogue_peer, setup,
    };
    use crate::connect::{ConnectOptions, Transport};
    use crate::network::NetError;
    use rustls::StreamOwned;
    use std::io::Write;
    use std::net::TcpStream;
    use std::sync::Arc;
    use std::time::Duration;

    #[test]
    fn tls_rejects_a_client_certificate_for_another_party() {
        let pki = DevPki::generate(3).expect("pki");
        let (config, listeners) = setup(3);
        // Party 2 uses party 1's credentials.
        let opts = vec![
            options(Transport::Tls(identity(&pki, &pki.parties[0]))),
            options(Transport::Tls(identity(&pki, &pki.parties[1]))),
            options(Transport::Tls(identity(&pki, &pki.parties[1]))),
        ];
        let r = connect_all(&config, listeners, opts);
        assert!(
            err_of(&r[0]).contains("claims to be party 2 but its certificate is for party 1"),
            "{}",
            err_of(&r[0])
        );
        assert!(err_of(&r[2]).contains("with party 0"), "{}", err_of(&r[2]));
    }

    #[test]
    fn tls_rejects_a_client_without_a_certificate() {
        let pki = DevPki::generate(2).expect("pki");
        let (config, mut listeners) = setup(2);
        let port = config.parties[0].port;
        let l0 = listeners[0].take();
        let opts0 = options(Transport::Tls(identity(&pki, &pki.parties[0])));
        let server = std::thread::spawn({
            let config = config.clone();
            move || {
                connect_with_listener(&config, 0, l0, &opts0)
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            }
        });
        let mut roots = rustls::RootCertStore::empty();
        roots
            .add(rustls::pki_types::CertificateDer::from(
                pki.ca_cert_der.clone(),
            ))
            .expect("root");
        let client_config = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_protocol_versions(&[&rustls::version::TLS13])
        .expect("tls13")
        .with_root_certificates(roots)
        .with_no_client_auth();
        let name =
            rustls::pki_types::ServerName::try_from(crate::certs::party_name(0)).expect("name");
        let conn = rustls::ClientConnection::new(Arc::new(client_config), name).expect("client");
        let mut tls = StreamOwned::new(
            conn,
            TcpStream::connect(("127.0.0.1", port)).expect("connect"),
        );
        let answered = client_hello(&mut tls, &hello_of(1));
        assert!(
            answered.is_err(),
            "a client without a certificate got an answer"
        );
        let e = server
            .join()
            .expect("server thread")
            .expect_err("must time out");
        assert!(
            e.contains("party 1's host") && e.contains("peer sent no certificates"),
            "{e}"
        );
    }

    #[test]
    fn idle_strangers_do_not_hold_up_the_real_peers() {
        // Eight connections that never say a word arrive first. Handled one
        // at a time with HELLO_ALLOWANCE each they would outlast the setup
        // deadline; handled concurrently, the real party gets through.
        let (config, mut listeners) = setup(2);
        let port = config.parties[0].port;
        let idle: Vec<TcpStream> = (0..8)
            .map(|_| TcpStream::connect(("127.0.0.1", port)).expect("connect"))
            .collect();
        let o = ConnectOptions {
            setup_timeout: HELLO_ALLOWANCE * 4,
            ..options(Transport::Tcp)
        };
        let l0 = listeners[0].take();
        let r = std::thread::scope(|s| {
            let a = s.spawn(|| connect_with_listener(&config, 0, l0, &o));
            let b = s.spawn(|| connect_with_listener(&config, 1, None, &o));
            (a.join().expect("party 0"), b.join().expect("party 1"))
        });
        assert!(r.0.is_ok() && r.1.is_ok(), "{:?}", r.0.err());
        drop(idle);
    }

    #[test]
    fn a_stranger_is_refused_and_named_at_the_deadline() {
        let r = rogue_peer(|mut s| {
            s.write_all(b"GET / HTTP/1.1\r\n\r\n").expect("write");
            std::thread::sleep(Duration::from_millis(200));
        });
        match r {
            Err(NetError::Setup(e)) => assert!(
                e.contains("waiting for party 1")
                    && e.contains("does not speak the huddle protocol"),
                "{e}"
            ),
            other => panic!("{other:?}"),
        }
    }
}
