//! Establishing the links of a run: every pair of parties is joined by one
//! connection; the party with the lower id listens and the higher one dials,
//! retrying with back-off until the setup deadline. The first frames are
//! hellos (`crate::hello`); a run starts only if party ids, party count,
//! session, settings and circuit agree, and (with TLS) each certificate names
//! its party.

use crate::certs::DevPki;
use crate::config::{NetworkConfig, PartyConfig};
use crate::frame::{read_frame, write_abort, write_frame, FrameError};
use crate::hello::{check_hello, settle, Hello, Settings, VERSION};
use crate::network::{stream_link, Alarm, LinkLimits, LinkParts, NetError, Network};
use crate::profile::NetProfile;
use crate::tls::{check_peer_identity, split, TlsIdentity, Trust};
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
    /// How long to keep trying to reach and hear from every peer.
    pub setup_timeout: Duration,
    /// How long a receive waits before giving up on a silent peer.
    pub io_timeout: Duration,
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
            io_timeout: Duration::from_secs(60),
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
        let l = bind(own)?;
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
    io_timeout: Duration,
) -> Result<Vec<Network>, NetError> {
    local_networks_each(vec![handshake; parties], tls, profile, io_timeout)?
        .into_iter()
        .collect()
}

/// [`local_networks`] with each party's own handshake (to see what
/// parties that disagree are told): every party's own result.
pub fn local_networks_each(
    handshakes: Vec<Handshake>,
    tls: bool,
    profile: NetProfile,
    io_timeout: Duration,
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
                    io_timeout,
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
    let alarm = Arc::new(Alarm::default());
    let mut links: Vec<Option<LinkParts>> = (0..n).map(|_| None).collect();
    // Every peer's settings, to settle our open settings.
    let mut hellos: Vec<Option<Settings>> = vec![None; n];
    // After a peer's hello differs we stop, but still dial the other lower
    // parties briefly: they see the difference too and stop at once
    // instead of waiting for us until their timeout.
    let mut stopped: Option<(PartyId, NetError)> = None;
    for ((slot, hello), peer) in links.iter_mut().zip(&mut hellos).zip(&config.parties[..me]) {
        let limit = match stopped {
            Some(_) => deadline.min(Instant::now() + STOP_GRACE),
            None => deadline,
        };
        match (dial(peer, &ours, options, limit, &alarm), &stopped) {
            (Ok((parts, theirs)), None) => (*slot, *hello) = (Some(parts), Some(theirs)),
            (
                Err(DialError {
                    error,
                    mismatch: true,
                }),
                None,
            ) => stopped = Some((peer.id, error)),
            (Err(DialError { error, .. }), None) => return Err(error),
            // Stopping: links made now only close again.
            (_, Some(_)) => {}
        }
    }
    if me + 1 < n {
        let listener = listener
            .ok_or_else(|| NetError::Setup(format!("party {me} has no listening socket")))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| NetError::Setup(e.to_string()))?;
        // A stopping party answers its higher peers for a moment too,
        // telling them to stop (its own error is the dial's, below).
        let heard = listen(
            &listener,
            &ours,
            (&mut links, &mut hellos),
            options,
            deadline,
            &alarm,
            stopped.as_ref().map(|(peer, _)| *peer),
        );
        if stopped.is_none() {
            heard?;
        }
    }
    if let Some((_, error)) = stopped {
        return Err(error);
    }
    let settled = settle(&ours.settings, &hellos).map_err(NetError::Mismatch)?;
    let mut net = Network::from_links(me, links, &options.profile, options.io_timeout, alarm);
    net.set_settled(settled);
    Ok(net)
}

fn remaining(deadline: Instant) -> Duration {
    deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(1))
}

/// Why dialing a peer failed; `mismatch`: it is one of ours, but its hello
/// differs from ours.
struct DialError {
    error: NetError,
    mismatch: bool,
}

impl DialError {
    fn mismatch(error: NetError) -> DialError {
        DialError {
            error,
            mismatch: true,
        }
    }
}

impl From<NetError> for DialError {
    fn from(error: NetError) -> DialError {
        DialError {
            error,
            mismatch: false,
        }
    }
}

fn dial(
    peer: &PartyConfig,
    ours: &Hello,
    options: &ConnectOptions,
    deadline: Instant,
    alarm: &Arc<Alarm>,
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
    match &options.transport {
        Transport::Tcp => {
            let mut s = socket;
            let theirs = client_hello(&mut s, ours).map_err(|e| e.into_error(peer.id, fail))?;
            check_hello(&theirs, peer.id, ours)
                .map_err(|e| DialError::mismatch(NetError::Mismatch(e)))?;
            tracing::info!(party = me, peer = peer.id, "hello agreed (plain TCP)");
            stream_parts(
                peer.id,
                ours.parties as usize,
                s,
                options.limits,
                alarm.clone(),
            )
            .map(|parts| (parts, theirs.settings))
            .map_err(|e| fail(e.to_string()).into())
        }
        Transport::Tls(identity) => {
            let conn = identity.client(peer.id).map_err(fail)?;
            let mut tls = StreamOwned::new(conn, socket);
            let theirs = client_hello(&mut tls, ours).map_err(|e| {
                e.into_error(peer.id, |w| {
                    fail(format!("TLS handshake or hello failed: {w}"))
                })
            })?;
            check_hello(&theirs, peer.id, ours)
                .map_err(|e| DialError::mismatch(NetError::Mismatch(e)))?;
            tracing::info!(party = me, peer = peer.id, "TLS handshake and hello agreed");
            let StreamOwned { conn, sock } = tls;
            tls_parts(
                peer.id,
                ours.parties as usize,
                Connection::Client(conn),
                sock,
                options.limits,
                alarm.clone(),
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
    options: &ConnectOptions,
    deadline: Instant,
    alarm: &Arc<Alarm>,
    already: Option<PartyId>,
) -> Result<(), NetError> {
    let (me, n) = (ours.party as usize, links.len());
    let mut refused: Vec<String> = Vec::new();
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
    std::thread::scope(|scope| {
        let (done_tx, done) = std::sync::mpsc::channel::<(SocketAddr, Result<Accepted, Refusal>)>();
        let outcome = 'accepting: loop {
            while let Ok((addr, result)) = done.try_recv() {
                pending.retain(|(a, _)| *a != addr);
                match result {
                    Ok((peer, conn, theirs)) if links[peer].is_none() => {
                        let parts = match conn {
                            Handshaken::Tcp(s) => {
                                stream_parts(peer, n, s, options.limits, alarm.clone())
                            }
                            Handshaken::Tls(conn, s) => tls_parts(
                                peer,
                                n,
                                Connection::Server(*conn),
                                s,
                                options.limits,
                                alarm.clone(),
                            ),
                        };
                        match parts {
                            Ok(p) => (links[peer], hellos[peer]) = (Some(p), Some(theirs)),
                            Err(e) => refused.push(format!("{addr}: {e}")),
                        }
                    }
                    Ok((peer, _, _)) => refused.push(format!(
                        "{addr}: claims to be party {peer}, which is already connected"
                    )),
                    Err(Refusal::Stranger(why)) => {
                        tracing::warn!(party = me, %addr, "refused a connection: {why}");
                        refused.push(format!("{addr}: {why}"))
                    }
                    Err(Refusal::Mismatch(peer, why)) => {
                        told[peer] = true;
                        if stopping.is_none() {
                            stopping = begin_stopping(peer, why);
                        }
                    }
                    Err(Refusal::Told(peer)) => told[peer] = true,
                    Err(Refusal::Fatal(why)) => break 'accepting Err(NetError::Setup(why)),
                }
            }
            if let Some((until, why)) = &stopping {
                // Connected peers learn it when our links close.
                let all_know = (me + 1..n).all(|p| told[p] || links[p].is_some());
                if all_know || Instant::now() >= *until {
                    break Err(NetError::Mismatch(why.clone()));
                }
            } else if links[me + 1..].iter().all(Option::is_some) {
                break Ok(());
            }
            match listener.accept() {
                Ok((socket, addr)) if pending.len() >= MAX_PENDING => {
                    drop(socket);
                    refused.push(format!(
                        "{addr}: closed, {MAX_PENDING} handshakes already under way"
                    ));
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
                    Err(e) => refused.push(format!("{addr}: {e}")),
                },
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if Instant::now() >= deadline && stopping.is_none() {
                        let missing: Vec<String> = (me + 1..n)
                            .filter(|&p| links[p].is_none())
                            .map(|p| p.to_string())
                            .collect();
                        let mut msg = format!(
                            "party {me} timed out waiting for part{} {} to connect",
                            if missing.len() == 1 { "y" } else { "ies" },
                            missing.join(", ")
                        );
                        if !refused.is_empty() {
                            msg.push_str(&format!("; refused connections: {}", refused.join("; ")));
                        }
                        break Err(NetError::Setup(msg));
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
                Err(e) => break Err(NetError::Setup(format!("accepting connections: {e}"))),
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
/// one of the parties above `ours.party`.
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
    match &options.transport {
        Transport::Tcp => {
            let mut s = socket;
            let theirs = read_hello(&mut s).map_err(|e| Refusal::Stranger(e.to_string()))?;
            let peer = expected(&theirs)?;
            tell_to_stop(&mut s, stop, peer)?;
            send_hello(&mut s, ours).map_err(|e| Refusal::Stranger(e.to_string()))?;
            check_hello(&theirs, peer, ours).map_err(|e| Refusal::Mismatch(peer, e))?;
            tracing::info!(party = me, peer, "accepted; hello agreed (plain TCP)");
            Ok((peer, Handshaken::Tcp(s), theirs.settings))
        }
        Transport::Tls(identity) => {
            let conn: ServerConnection = identity.server().map_err(Refusal::Fatal)?;
            let mut tls = StreamOwned::new(conn, socket);
            let theirs = read_hello(&mut tls)
                .map_err(|e| Refusal::Stranger(format!("TLS handshake or hello failed: {e}")))?;
            let peer = expected(&theirs)?;
            check_peer_identity(&identity.trust, tls.conn.peer_certificates(), peer, n)
                .map_err(Refusal::Stranger)?;
            tell_to_stop(&mut tls, stop, peer)?;
            send_hello(&mut tls, ours).map_err(|e| Refusal::Stranger(e.to_string()))?;
            check_hello(&theirs, peer, ours).map_err(|e| Refusal::Mismatch(peer, e))?;
            tracing::info!(party = me, peer, "accepted; TLS handshake and hello agreed");
            let StreamOwned { conn, sock } = tls;
            Ok((peer, Handshaken::Tls(Box::new(conn), sock), theirs.settings))
        }
    }
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

/// Why a connection gave no hello.
enum NoHello {
    /// The peer stopped at connect because party `culprit`'s settings
    /// differ (from its own, or another party's).
    Stopped {
        culprit: u32,
    },
    Failed(String),
}

impl std::fmt::Display for NoHello {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NoHello::Stopped { culprit } => write!(
                f,
                "stopped at connect: its settings and party {culprit}'s differ (their \
                 errors name the setting)"
            ),
            NoHello::Failed(why) => f.write_str(why),
        }
    }
}

impl NoHello {
    /// The error of a dial to `peer` that got no hello: a peer that stopped
    /// because the settings differ is a mismatch of the run; anything else
    /// is what `fail` makes of it.
    fn into_error(self, peer: PartyId, fail: impl FnOnce(String) -> NetError) -> NetError {
        match self {
            NoHello::Stopped { .. } => NetError::Mismatch(format!("party {peer} {self}")),
            NoHello::Failed(why) => fail(why),
        }
    }
}

fn read_hello(s: &mut impl Read) -> Result<Hello, NoHello> {
    let failed = |why: &str| Err(NoHello::Failed(why.into()));
    match read_frame(s, HELLO_MAX) {
        Ok(bytes) => Hello::decode(&bytes).map_err(NoHello::Failed),
        Err(FrameError::Abort { culprit }) => Err(NoHello::Stopped { culprit }),
        Err(FrameError::Closed | FrameError::Truncated | FrameError::Goodbye) => {
            failed("the peer closed the connection during the handshake")
        }
        Err(FrameError::Oversized(_) | FrameError::UnknownControl(_)) => {
            failed("the peer does not speak the huddle protocol (oversized hello)")
        }
        Err(FrameError::Io(e))
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            failed("the peer sent no hello in time")
        }
        Err(FrameError::Io(e)) => Err(NoHello::Failed(e.to_string())),
    }
}

fn send_hello(s: &mut impl Write, ours: &Hello) -> Result<(), NoHello> {
    write_frame(s, &ours.encode())
        .and_then(|()| s.flush())
        .map_err(|e| NoHello::Failed(e.to_string()))
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
    alarm: Arc<Alarm>,
) -> io::Result<LinkParts> {
    unprepare(&s)?;
    let reader = s.try_clone()?;
    let shutdown = closer(&s)?;
    stream_link(peer, parties, reader, s, shutdown, alarm, limits)
}

fn tls_parts(
    peer: PartyId,
    parties: usize,
    conn: Connection,
    s: TcpStream,
    limits: LinkLimits,
    alarm: Arc<Alarm>,
) -> io::Result<LinkParts> {
    unprepare(&s)?;
    let shutdown = closer(&s)?;
    let (reader, writer) = split(conn, s)?;
    stream_link(peer, parties, reader, writer, shutdown, alarm, limits)
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
            io_timeout: Duration::from_secs(5),
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
        // Both CAs carry the same name, so the foreign signature is what fails.
        assert!(
            err_of(&r[0]).contains("refused connections")
                && err_of(&r[0]).contains("invalid peer certificate"),
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
            e.contains("refused connections") && e.contains("certificate"),
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
            err_of(&r[0]).contains("not the pinned certificate"),
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
                // Stay connected until party 0 has read everything.
                let mut buf = [0u8; 1];
                let _ = s.read(&mut buf);
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
