//! Establishing the links of a run: every pair of parties is joined by one
//! connection; the party with the lower id listens and the higher one dials,
//! retrying with back-off until the setup deadline. The first frames are
//! hellos (`crate::hello`); a run starts only if party ids, party count,
//! session, settings and circuit agree, and (with TLS) each certificate names
//! its party.
//!
//! A party that gives up at connect because it cannot run (its TLS set-up,
//! a peer that does not accept its certificate) or because another party
//! cannot (a refusal, an abort on a link already made) tells the parties it
//! has not met yet in a refusal round (see [`crate::refusal`]), and the
//! ones it has met through their link, so nobody waits out its deadline.

use crate::certs::DevPki;
use crate::config::{NetworkConfig, PartyConfig};
use crate::frame::{read_frame, write_abort, write_frame, FrameError};
use crate::halt::{give_up, passed_on, told_during_connect, Halt};
use crate::hello::{check_hello, settle, Hello, Settings, VERSION};
use crate::network::{stream_link, Alarm, LinkLimits, LinkParts, NetError, Network, Shared};
use crate::profile::NetProfile;
use crate::refusal::{round, Note, Sniffed, REFUSAL_GRACE};
use crate::sightings::Sightings;
use crate::tls::{check_peer_identity, party_named_in, split, Seen, TlsIdentity, Trust};
use crate::waits::Board;
use crate::PartyId;
use rustls::{Connection, ServerConnection, StreamOwned};
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How parties talk.
#[derive(Clone)]
pub enum Transport {
    /// Plain TCP: no confidentiality or authentication (benchmarks, trusted networks).
    Tcp,
    /// TLS 1.3 with mutual certificate authentication.
    Tls(TlsIdentity),
}

/// What every party of a run must agree on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Handshake {
    pub session: String,
    /// The protocol and its settings (see [`Settings`]): a setting left
    /// [`Value::Open`](crate::Value::Open) matches any value, and
    /// [`Network::settled`] gives the value the peers set.
    pub settings: Settings,
    /// A hash of the circuit (e.g. SHA-256 of its file).
    pub circuit: [u8; 32],
}

#[derive(Clone)]
pub struct ConnectOptions {
    pub transport: Transport,
    pub handshake: Handshake,
    /// How long to keep trying to reach and hear from every peer (the
    /// connect deadline; it bounds nothing after).
    pub setup_timeout: Duration,
    /// How long a receive waits on a peer that sends nothing, not even the
    /// liveness frames every link's writer sends while it has nothing else
    /// to send (see [`crate::liveness`]): only a stalled peer runs into it,
    /// never a busy one.
    pub idle_timeout: Duration,
    pub profile: NetProfile,
    /// Message size limit and buffer sizes of every link.
    pub limits: LinkLimits,
}

impl ConnectOptions {
    pub fn new(transport: Transport, handshake: Handshake) -> ConnectOptions {
        ConnectOptions {
            transport,
            handshake,
            setup_timeout: Duration::from_secs(60),
            idle_timeout: Duration::from_secs(10),
            profile: NetProfile::lan(),
            limits: LinkLimits::default(),
        }
    }
}

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
        listeners.push(Some(l));
    }
    let config = NetworkConfig {
        session,
        ca: None,
        parties: party_configs,
    };
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
            .iter_mut()
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
                let listener = listener.take().filter(|_| me + 1 < parties);
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

pub(crate) fn connect_with_listener(
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
    Ok(net)
}

fn remaining(deadline: Instant) -> Duration {
    deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(1))
}

/// Why dialing a peer failed; `mismatch`: it is one of ours, but its hello
/// differs from ours; `tell`: a party cannot run (this one, or one the
/// peer's refusal names), which the others are told.
struct DialError {
    error: NetError,
    mismatch: bool,
    tell: Option<Note>,
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

fn dial(
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
fn listen(
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
const STOP_GRACE: Duration = Duration::from_secs(2);

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

/// Setup I/O may not block past the deadline.
fn prepare(s: &TcpStream, deadline: Instant) -> io::Result<()> {
    s.set_nodelay(true)?;
    s.set_read_timeout(Some(remaining(deadline)))?;
    s.set_write_timeout(Some(remaining(deadline)))
}

/// The run itself blocks as long as it needs; `Network` applies its own receive timeout.
fn unprepare(s: &TcpStream) -> io::Result<()> {
    s.set_read_timeout(None)?;
    s.set_write_timeout(None)
}

/// The largest hello accepted (a job's settings can be long).
const HELLO_MAX: usize = 64 << 10;

/// Why the peer's hello did not come.
#[derive(Debug)]
enum NoHello {
    /// It stopped at connect because party `culprit`'s settings differ
    /// (from its own, or another party's): an abort frame without a reason.
    Stopped {
        culprit: u32,
    },
    /// It stopped at connect and said why (an abort frame with a reason).
    Told(String),
    /// TLS failed: certificates, keys, or bytes that are not TLS.
    Tls(String),
    Other(String),
}

impl NoHello {
    fn text(self) -> String {
        match self {
            NoHello::Stopped { culprit } => format!(
                "it stopped at connect: its settings and party {culprit}'s differ (their \
                 errors name the setting)"
            ),
            NoHello::Told(t) | NoHello::Tls(t) | NoHello::Other(t) => t,
        }
    }

    fn of_io(e: io::Error) -> NoHello {
        let tls = e.get_ref().is_some_and(|inner| inner.is::<rustls::Error>());
        match tls {
            true => NoHello::Tls(e.to_string()),
            false => NoHello::Other(e.to_string()),
        }
    }
}

fn read_hello(s: &mut impl Read) -> Result<Hello, NoHello> {
    match read_frame(s, HELLO_MAX) {
        Ok(bytes) => Hello::decode(&bytes).map_err(NoHello::Other),
        Err(FrameError::Abort { culprit, reason }) if reason.is_empty() => {
            Err(NoHello::Stopped { culprit })
        }
        Err(FrameError::Abort { reason, .. }) => {
            Err(NoHello::Told(format!("it stopped at connect: {reason}")))
        }
        Err(FrameError::Closed | FrameError::Truncated | FrameError::Goodbye) => Err(
            NoHello::Other("the peer closed the connection during the handshake".into()),
        ),
        Err(
            FrameError::Oversized(_) | FrameError::UnknownControl(_) | FrameError::BadControl(_),
        ) => Err(NoHello::Other(
            "the peer does not speak the huddle protocol (oversized hello)".into(),
        )),
        Err(FrameError::Io(e))
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            Err(NoHello::Other("the peer sent no hello in time".into()))
        }
        Err(FrameError::Io(e)) => Err(NoHello::of_io(e)),
    }
}

fn send_hello(s: &mut impl Write, ours: &Hello) -> Result<(), NoHello> {
    write_frame(s, &ours.encode())
        .and_then(|()| s.flush())
        .map_err(NoHello::of_io)
}

fn client_hello<S: Read + Write>(s: &mut S, ours: &Hello) -> Result<Hello, NoHello> {
    send_hello(s, ours)?;
    read_hello(s)
}

pub(crate) fn stream_parts(
    peer: PartyId,
    parties: usize,
    s: TcpStream,
    limits: LinkLimits,
    shared: Shared,
) -> io::Result<LinkParts> {
    unprepare(&s)?;
    let reader = s.try_clone()?;
    let shutdown = closer(&s)?;
    stream_link(peer, parties, reader, s, shutdown, shared, limits)
}

fn tls_parts(
    peer: PartyId,
    parties: usize,
    conn: Connection,
    s: TcpStream,
    limits: LinkLimits,
    shared: Shared,
) -> io::Result<LinkParts> {
    unprepare(&s)?;
    let shutdown = closer(&s)?;
    let (reader, writer) = split(conn, s)?;
    stream_link(peer, parties, reader, writer, shutdown, shared, limits)
}

fn closer(s: &TcpStream) -> io::Result<crate::network::Shutdown> {
    let socket = s.try_clone()?;
    Ok(std::sync::Arc::new(move || {
        drop(socket.shutdown(Shutdown::Both))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certs::PartyCredentials;
    use std::sync::Arc;

    fn handshake() -> Handshake {
        Handshake {
            session: "s".into(),
            settings: protocol("p"),
            circuit: [1; 32],
        }
    }

    fn protocol(name: &str) -> Settings {
        let mut s = Settings::new();
        s.option("protocol", crate::Value::Text(name.into()));
        s
    }

    /// A hello as party `party` of 2 with [`handshake`]'s run.
    fn hello_of(party: u32) -> Hello {
        Hello {
            version: VERSION,
            party,
            parties: 2,
            session: "s".into(),
            circuit: [1; 32],
            settings: protocol("p"),
        }
    }

    /// Loopback listeners and a configuration for `n` parties.
    fn setup(n: usize) -> (NetworkConfig, Vec<Option<TcpListener>>) {
        let listeners: Vec<TcpListener> = (0..n)
            .map(|_| TcpListener::bind("127.0.0.1:0").expect("bind"))
            .collect();
        let parties = listeners
            .iter()
            .enumerate()
            .map(|(id, l)| PartyConfig {
                id,
                host: "127.0.0.1".into(),
                port: l.local_addr().expect("addr").port(),
                cert: None,
                key: None,
            })
            .collect();
        (
            NetworkConfig {
                session: "s".into(),
                ca: None,
                parties,
            },
            listeners.into_iter().map(Some).collect(),
        )
    }

    fn identity(pki: &DevPki, creds: &PartyCredentials) -> TlsIdentity {
        TlsIdentity {
            trust: Trust::Ca(pki.ca_cert_der.clone()),
            cert_der: creds.cert_der.clone(),
            key_der: creds.key_der.clone(),
        }
    }

    fn options(transport: Transport) -> ConnectOptions {
        ConnectOptions {
            setup_timeout: Duration::from_secs(3),
            idle_timeout: Duration::from_secs(5),
            ..ConnectOptions::new(transport, handshake())
        }
    }

    /// Connects every party with its own options; returns each party's result as text.
    fn connect_all(
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
                    s.spawn(move || {
                        connect_with_listener(config, me, l, &o).map_err(|e| e.to_string())
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("thread"))
                .collect()
        })
    }

    fn err_of(r: &Result<Network, String>) -> &str {
        match r {
            Ok(_) => panic!("connected although it must not"),
            Err(e) => e,
        }
    }

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

    /// Party 0 is real; the test plays party 1 by hand.
    fn rogue_peer(play: impl FnOnce(TcpStream) + Send + 'static) -> Result<Vec<u8>, NetError> {
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

    fn rogue_hello(s: &mut TcpStream) {
        assert!(client_hello(s, &hello_of(1)).is_ok(), "party 0 answers");
    }

    #[test]
    fn an_oversized_frame_is_an_error_naming_the_peer() {
        let r = rogue_peer(|mut s| {
            rogue_hello(&mut s);
            s.write_all(&0xF000_0000u32.to_le_bytes()).expect("write");
            std::thread::sleep(Duration::from_millis(100));
        });
        assert!(
            matches!(
                r,
                Err(NetError::Oversized {
                    peer: 1,
                    len: 0xF000_0000,
                    ..
                })
            ),
            "{r:?}"
        );
    }

    /// Party 0 is real (with `limits`) and runs `party0`; the test plays party 1.
    fn rogue_session<T>(
        limits: LinkLimits,
        play: impl FnOnce(TcpStream) + Send + 'static,
        party0: impl FnOnce(Network) -> T,
    ) -> Result<T, NetError> {
        let (config, mut listeners) = setup(2);
        let port = config.parties[0].port;
        let l0 = listeners[0].take();
        let rogue = std::thread::spawn(move || {
            let s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
            play(s)
        });
        let o = ConnectOptions {
            limits,
            ..options(Transport::Tcp)
        };
        let result = connect_with_listener(&config, 0, l0, &o).map(party0);
        rogue.join().expect("rogue thread");
        result
    }

    /// A message as the network sends it: payload, phase, round stamp.
    fn stamped(payload: &[u8], phase: u8, stamp: u32) -> Vec<u8> {
        let mut m = payload.to_vec();
        m.push(phase);
        m.extend_from_slice(&stamp.to_le_bytes());
        m.extend_from_slice(&0u16.to_le_bytes()); // lane
        m
    }

    #[test]
    fn an_abort_naming_no_party_of_the_run_is_blamed_on_its_sender() {
        let r = rogue_peer(|mut s| {
            rogue_hello(&mut s);
            s.write_all(&(u32::MAX - 1).to_le_bytes())
                .expect("abort frame");
            s.write_all(&999u32.to_le_bytes()).expect("culprit");
            s.write_all(&[0]).expect("no reason");
            std::thread::sleep(Duration::from_millis(100));
        });
        match r {
            Err(e @ NetError::Link { peer: 1, .. }) => {
                assert!(e.to_string().contains("party 999"), "{e}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_fabricated_round_stamp_is_refused() {
        let r = rogue_peer(|mut s| {
            rogue_hello(&mut s);
            write_frame(&mut s, &stamped(&[0; 16], 2, u32::MAX)).expect("frame");
            std::thread::sleep(Duration::from_millis(100));
        });
        match r {
            Err(e @ NetError::Link { peer: 1, .. }) => {
                assert!(e.to_string().contains("round stamp"), "{e}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_flooding_peer_is_held_back_at_the_inbox_budget() {
        const FRAMES: usize = 48;
        const SIZE: usize = 1 << 20;
        let limits = LinkLimits {
            inbox_bytes: 4 << 20,
            max_message: 2 << 20,
            ..LinkLimits::default()
        };
        let r = rogue_session(
            limits,
            |mut s| {
                rogue_hello(&mut s);
                for i in 0..FRAMES {
                    if write_frame(&mut s, &stamped(&vec![i as u8; SIZE], 2, 1)).is_err() {
                        return;
                    }
                }
                let _ = s.flush();
                // Stay connected until party 0 has read everything and
                // closes (its liveness frames meanwhile are dropped).
                let _ = io::copy(&mut s, &mut io::sink());
            },
            |mut net| {
                // Party 0 takes nothing for a while: whatever the peer pushes,
                // at most the budget plus one message is held.
                let mut most = 0;
                for _ in 0..30 {
                    std::thread::sleep(Duration::from_millis(10));
                    most = most.max(net.queued_bytes(1));
                }
                assert!(
                    most <= (4 << 20) + SIZE + crate::STAMP_BYTES,
                    "{most} bytes queued"
                );
                // Nothing is lost: every message arrives, in order.
                for i in 0..FRAMES {
                    assert_eq!(net.recv(1, SIZE).expect("message"), vec![i as u8; SIZE]);
                }
                most
            },
        );
        r.expect("run");
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
    fn a_cut_message_is_an_error_naming_the_peer() {
        let r = rogue_peer(|mut s| {
            rogue_hello(&mut s);
            s.write_all(&16u32.to_le_bytes()).expect("write");
            s.write_all(&[0; 5]).expect("write");
        });
        assert_eq!(r, Err(NetError::Truncated { peer: 1 }));
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

    #[test]
    fn tampering_with_tls_traffic_is_detected() {
        let pki = DevPki::generate(2).expect("pki");
        let (mut config, listeners) = setup(2);
        // A proxy in front of party 0 flips one byte once 20 kB have passed.
        let proxy = TcpListener::bind("127.0.0.1:0").expect("bind");
        let target = config.parties[0].port;
        config.parties[0].port = proxy.local_addr().expect("addr").port();
        std::thread::spawn(move || {
            let (client, _) = proxy.accept().expect("accept");
            let server = TcpStream::connect(("127.0.0.1", target)).expect("connect");
            let (mut c2, mut s2) = (
                client.try_clone().expect("clone"),
                server.try_clone().expect("clone"),
            );
            std::thread::spawn(move || drop(io::copy(&mut s2, &mut c2)));
            let (mut c, mut s) = (client, server);
            let mut buf = [0u8; 4096];
            let mut passed = 0usize;
            while let Ok(n) = c.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if passed < 20_000 && passed + n >= 20_000 {
                    buf[20_000 - passed] ^= 0x40;
                }
                passed += n;
                if s.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
        });
        // Party 0 keeps its pre-bound listener; party 1 dials the proxy's port.
        let r = std::thread::scope(|s| {
            let mut ls = listeners.into_iter();
            let (l0, l1) = (ls.next().flatten(), ls.next().flatten());
            let o0 = options(Transport::Tls(identity(&pki, &pki.parties[0])));
            let o1 = options(Transport::Tls(identity(&pki, &pki.parties[1])));
            let config = &config;
            let a = s.spawn(move || {
                connect_with_listener(config, 0, l0, &o0).and_then(|mut n| n.recv(1, 100_000))
            });
            let b = s.spawn(move || {
                let mut net = connect_with_listener(config, 1, l1, &o1)?;
                net.send(0, vec![0xAB; 100_000])?;
                std::thread::sleep(Duration::from_millis(300));
                Ok::<_, NetError>(())
            });
            (a.join().expect("a"), b.join().expect("b"))
        });
        match r.0 {
            Err(NetError::Link { peer: 1, cause }) => assert!(cause.contains("TLS"), "{cause}"),
            other => panic!("tampering went unnoticed: {other:?}"),
        }
    }
}
