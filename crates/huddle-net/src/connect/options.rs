//! What a caller of [`connect`](super::connect) chooses: the transport, the
//! handshake every party must agree on, and the connect's timeouts and
//! link limits.

use crate::hello::Settings;
use crate::network::LinkLimits;
use crate::profile::NetProfile;
use crate::tls::TlsIdentity;
use std::time::Duration;

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
    /// The session id (the configuration file's `session`): a peer of
    /// another session is refused, so two runs on the same hosts cannot mix.
    pub session: String,
    /// The protocol and its settings (see [`Settings`]): a setting left
    /// [`Value::Open`](crate::Value::Open) matches any value, and
    /// [`Network::settled`](crate::Network::settled) gives the value the peers set.
    pub settings: Settings,
    /// A hash of the circuit (e.g. SHA-256 of its file).
    pub circuit: [u8; 32],
}

/// Everything [`connect`](super::connect) needs besides the party
/// configuration; [`ConnectOptions::new`] fills in the defaults.
#[derive(Clone)]
pub struct ConnectOptions {
    /// How the parties talk.
    pub transport: Transport,
    /// What the parties must agree on before the first protocol message.
    pub handshake: Handshake,
    /// How long to keep trying to reach and hear from every peer (the
    /// connect deadline; it bounds nothing after).
    pub setup_timeout: Duration,
    /// How long a receive waits on a peer that sends nothing, not even the
    /// liveness frames every link's writer sends while it has nothing else
    /// to send (see [`crate::liveness`]): only a stalled peer runs into it,
    /// never a busy one.
    pub idle_timeout: Duration,
    /// The link emulation (latency, bandwidth) applied to every link.
    pub profile: NetProfile,
    /// Message size limit and buffer sizes of every link.
    pub limits: LinkLimits,
}

impl ConnectOptions {
    /// Options with the defaults: a 60 s setup timeout, a 10 s idle
    /// timeout, no link emulation ([`NetProfile::lan`]) and the default
    /// [`LinkLimits`].
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
