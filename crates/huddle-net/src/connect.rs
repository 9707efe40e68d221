//! Establishing the links of a run: every pair of parties is joined by one
//! connection; the party with the lower id listens and the higher one dials,
//! retrying with back-off until the setup deadline. The first frames are
//! `Hello`s; a run starts only if party ids, party count, session, protocol
//! and circuit agree, and (with TLS) each certificate names its party.

use crate::certs::DevPki;
use crate::config::{NetworkConfig, PartyConfig};
use crate::frame::{read_frame, write_frame, FrameError, Hello};
use crate::network::{stream_link, LinkParts, NetError, Network, DEFAULT_MAX_MESSAGE};
use crate::profile::NetProfile;
use crate::tls::{check_peer_identity, split, TlsIdentity};
use crate::PartyId;
use rustls::{Connection, ServerConnection, StreamOwned};
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
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
    pub protocol: String,
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
    pub max_message: usize,
}

impl ConnectOptions {
    pub fn new(transport: Transport, handshake: Handshake) -> ConnectOptions {
        ConnectOptions {
            transport,
            handshake,
            setup_timeout: Duration::from_secs(60),
            io_timeout: Duration::from_secs(60),
            profile: NetProfile::lan(),
            max_message: DEFAULT_MAX_MESSAGE,
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
        Some(bind(own)?)
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
        session: handshake.session.clone(),
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
                        ca_der: p.ca_cert_der.clone(),
                        cert_der: p.parties[me].cert_der.clone(),
                        key_der: p.parties[me].key_der.clone(),
                    }),
                    None => Transport::Tcp,
                };
                let options = ConnectOptions {
                    profile: profile.clone(),
                    io_timeout,
                    setup_timeout: Duration::from_secs(20),
                    ..ConnectOptions::new(transport, handshake.clone())
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
    results.into_iter().collect()
}

/// Why an incoming connection was turned away.
enum Refusal {
    /// Not one of ours (wrong id, bad hello, failed TLS): keep waiting for the real peer.
    Stranger(String),
    /// One of ours, but the run does not match: stop.
    Mismatch(String),
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
        party: me as u32,
        parties: n as u32,
        session: options.handshake.session.clone(),
        protocol: options.handshake.protocol.clone(),
        circuit: options.handshake.circuit,
    };
    let mut links: Vec<Option<LinkParts>> = (0..n).map(|_| None).collect();
    for (slot, peer) in links.iter_mut().zip(&config.parties[..me]) {
        *slot = Some(dial(peer, &ours, options, deadline)?);
    }
    if me + 1 < n {
        let listener = listener
            .ok_or_else(|| NetError::Setup(format!("party {me} has no listening socket")))?;
        listener
            .set_nonblocking(true)
            .map_err(|e| NetError::Setup(e.to_string()))?;
        let mut refused: Vec<String> = Vec::new();
        while links[me + 1..].iter().any(Option::is_none) {
            match listener.accept() {
                Ok((socket, addr)) => match accept(socket, &ours, &links, options, deadline) {
                    Ok((peer, parts)) => links[peer] = Some(parts),
                    Err(Refusal::Stranger(why)) => refused.push(format!("{addr}: {why}")),
                    Err(Refusal::Mismatch(why)) => return Err(NetError::Setup(why)),
                },
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if Instant::now() >= deadline {
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
                        return Err(NetError::Setup(msg));
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
                Err(e) => return Err(NetError::Setup(format!("accepting connections: {e}"))),
            }
        }
    }
    Ok(Network::from_links(
        me,
        links,
        &options.profile,
        options.io_timeout,
    ))
}

fn remaining(deadline: Instant) -> Duration {
    deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(1))
}

fn dial(
    peer: &PartyConfig,
    ours: &Hello,
    options: &ConnectOptions,
    deadline: Instant,
) -> Result<LinkParts, NetError> {
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
    let mut backoff = Duration::from_millis(5);
    let socket = loop {
        let mut last = String::from("no address");
        let mut connected = None;
        for a in &addrs {
            match TcpStream::connect_timeout(a, remaining(deadline).min(Duration::from_secs(2))) {
                Ok(s) => {
                    connected = Some(s);
                    break;
                }
                Err(e) => last = e.to_string(),
            }
        }
        if let Some(s) = connected {
            break s;
        }
        if Instant::now() >= deadline {
            return Err(NetError::Setup(format!(
                "party {me} could not reach party {} at {}:{}: {last}",
                peer.id, peer.host, peer.port
            )));
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
            let theirs = client_hello(&mut s, ours).map_err(fail)?;
            check_hello(&theirs, peer.id, ours).map_err(fail)?;
            stream_parts(peer.id, s, options.max_message).map_err(|e| fail(e.to_string()))
        }
        Transport::Tls(identity) => {
            let conn = identity.client(peer.id).map_err(fail)?;
            let mut tls = StreamOwned::new(conn, socket);
            let theirs = client_hello(&mut tls, ours)
                .map_err(|e| fail(format!("TLS handshake or hello failed: {e}")))?;
            check_hello(&theirs, peer.id, ours).map_err(fail)?;
            let StreamOwned { conn, sock } = tls;
            tls_parts(peer.id, Connection::Client(conn), sock, options.max_message)
                .map_err(|e| fail(e.to_string()))
        }
    }
}

fn accept(
    socket: TcpStream,
    ours: &Hello,
    links: &[Option<LinkParts>],
    options: &ConnectOptions,
    deadline: Instant,
) -> Result<(PartyId, LinkParts), Refusal> {
    let me = ours.party as usize;
    let n = links.len();
    socket
        .set_nonblocking(false)
        .map_err(|e| Refusal::Stranger(e.to_string()))?;
    // A stranger that connects and says nothing must not hold up the run.
    prepare(
        &socket,
        Instant::now() + remaining(deadline).min(Duration::from_secs(10)),
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
        if links[p].is_some() {
            return Err(Refusal::Stranger(format!(
                "claims to be party {p}, which is already connected"
            )));
        }
        Ok(p)
    };
    match &options.transport {
        Transport::Tcp => {
            let mut s = socket;
            let theirs = server_hello_read(&mut s).map_err(Refusal::Stranger)?;
            let peer = expected(&theirs)?;
            server_hello_reply(&mut s, ours).map_err(Refusal::Stranger)?;
            check_hello(&theirs, peer, ours).map_err(Refusal::Mismatch)?;
            Ok((
                peer,
                stream_parts(peer, s, options.max_message)
                    .map_err(|e| Refusal::Stranger(e.to_string()))?,
            ))
        }
        Transport::Tls(identity) => {
            let conn: ServerConnection = identity.server().map_err(Refusal::Mismatch)?;
            let mut tls = StreamOwned::new(conn, socket);
            let theirs = server_hello_read(&mut tls)
                .map_err(|e| Refusal::Stranger(format!("TLS handshake or hello failed: {e}")))?;
            let peer = expected(&theirs)?;
            check_peer_identity(tls.conn.peer_certificates(), peer, n)
                .map_err(Refusal::Stranger)?;
            server_hello_reply(&mut tls, ours).map_err(Refusal::Stranger)?;
            check_hello(&theirs, peer, ours).map_err(Refusal::Mismatch)?;
            let StreamOwned { conn, sock } = tls;
            Ok((
                peer,
                tls_parts(peer, Connection::Server(conn), sock, options.max_message)
                    .map_err(|e| Refusal::Stranger(e.to_string()))?,
            ))
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

const HELLO_MAX: usize = 4096;

fn read_hello(s: &mut impl Read) -> Result<Hello, String> {
    match read_frame(s, HELLO_MAX) {
        Ok(bytes) => Hello::decode(&bytes),
        Err(FrameError::Closed) | Err(FrameError::Truncated) => {
            Err("the peer closed the connection during the handshake".into())
        }
        Err(FrameError::Oversized(_)) => {
            Err("the peer does not speak the huddle protocol (oversized hello)".into())
        }
        Err(FrameError::Io(e))
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            Err("the peer sent no hello in time".into())
        }
        Err(FrameError::Io(e)) => Err(e.to_string()),
    }
}

fn send_hello(s: &mut impl Write, ours: &Hello) -> Result<(), String> {
    write_frame(s, &ours.encode())
        .and_then(|()| s.flush())
        .map_err(|e| e.to_string())
}

fn client_hello<S: Read + Write>(s: &mut S, ours: &Hello) -> Result<Hello, String> {
    send_hello(s, ours)?;
    read_hello(s)
}

fn server_hello_read<S: Read + Write>(s: &mut S) -> Result<Hello, String> {
    read_hello(s)
}

fn server_hello_reply<S: Read + Write>(s: &mut S, ours: &Hello) -> Result<(), String> {
    send_hello(s, ours)
}

/// Compares the peer's hello with ours; the message names the first difference.
fn check_hello(theirs: &Hello, peer: PartyId, ours: &Hello) -> Result<(), String> {
    if theirs.party as usize != peer {
        return Err(format!(
            "the peer says it is party {}, but party {peer} was expected there",
            theirs.party
        ));
    }
    if theirs.parties != ours.parties {
        return Err(format!(
            "party {peer} runs with {} parties, party {} with {}",
            theirs.parties, ours.party, ours.parties
        ));
    }
    if theirs.session != ours.session {
        return Err(format!(
            "party {peer} is in session `{}`, party {} in session `{}`",
            theirs.session, ours.party, ours.session
        ));
    }
    if theirs.protocol != ours.protocol {
        return Err(format!(
            "party {peer} runs protocol `{}`, party {} runs `{}`",
            theirs.protocol, ours.party, ours.protocol
        ));
    }
    if theirs.circuit != ours.circuit {
        let short = |h: &[u8; 32]| {
            h[..6]
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        };
        return Err(format!(
            "party {peer} evaluates a different circuit (hash {}…, party {} has {}…)",
            short(&theirs.circuit),
            ours.party,
            short(&ours.circuit)
        ));
    }
    Ok(())
}

fn stream_parts(peer: PartyId, s: TcpStream, max_message: usize) -> io::Result<LinkParts> {
    unprepare(&s)?;
    let reader = s.try_clone()?;
    let shutdown = closer(&s)?;
    Ok(stream_link(peer, reader, s, shutdown, max_message))
}

fn tls_parts(
    peer: PartyId,
    conn: Connection,
    s: TcpStream,
    max_message: usize,
) -> io::Result<LinkParts> {
    unprepare(&s)?;
    let shutdown = closer(&s)?;
    let (reader, writer) = split(conn, s)?;
    Ok(stream_link(peer, reader, writer, shutdown, max_message))
}

fn closer(s: &TcpStream) -> io::Result<crate::network::Shutdown> {
    let socket = s.try_clone()?;
    Ok(std::sync::Arc::new(move || {
        drop(socket.shutdown(Shutdown::Both))
    }))
}
