//! TLS 1.3 with mutual authentication (rustls), and a split of one TLS
//! connection into a reading half and a writing half for two threads.
//!
//! rustls is sans-I/O: a `Connection` turns ciphertext into plaintext and back
//! without touching the socket. Both halves share the connection behind a
//! mutex held only for that CPU work, never across a blocking socket call, so
//! a thread blocked reading never stops the other from writing. TLS records
//! are written to the socket under a second lock taken before the first is
//! released, which keeps records in the order the connection produced them.

use crate::certs::party_name;
use crate::PartyId;
use rustls::client::danger::HandshakeSignatureValid;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer, ServerName, UnixTime};
use rustls::server::danger::ClientCertVerifier;
use rustls::server::WebPkiClientVerifier;
use rustls::{
    ClientConfig, ClientConnection, Connection, RootCertStore, ServerConfig, ServerConnection,
};
use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};

/// A party's TLS credentials: what to trust, its certificate and key (DER).
#[derive(Clone)]
pub struct TlsIdentity {
    /// How this party judges its peers' certificates.
    pub trust: Trust,
    /// This party's certificate, DER-encoded; it must name the party as
    /// [`party_name`] says.
    pub cert_der: Vec<u8>,
    /// This party's private key, PKCS#8 DER-encoded.
    pub key_der: Vec<u8>,
}

/// How peers' certificates are judged.
#[derive(Clone)]
pub enum Trust {
    /// Any certificate the CA signed for the name `party-<id>.huddle`.
    Ca(Vec<u8>),
    /// Exactly these certificates, one per party id (no CA needed).
    Pinned(Vec<Vec<u8>>),
}

impl TlsIdentity {
    /// Loads the CA certificate (`ca`), this party's certificate and its
    /// PKCS#8 key from PEM files; peers are trusted if the CA signed them.
    pub fn from_pem_files(
        ca: &std::path::Path,
        cert: &std::path::Path,
        key: &std::path::Path,
    ) -> Result<TlsIdentity, String> {
        use rustls::pki_types::pem::PemObject;
        let key_der = match PrivateKeyDer::from_pem_file(key)
            .map_err(|e| pem_error(key, "private key", e))?
        {
            PrivateKeyDer::Pkcs8(k) => k.secret_pkcs8_der().to_vec(),
            _ => return Err(format!("{}: the key must be in PKCS#8 form (`BEGIN PRIVATE KEY`), as `huddle certs` writes it", key.display())),
        };
        Ok(TlsIdentity {
            trust: Trust::Ca(read_cert(ca)?),
            cert_der: read_cert(cert)?,
            key_der,
        })
    }

    fn provider() -> Arc<rustls::crypto::CryptoProvider> {
        Arc::new(rustls::crypto::ring::default_provider())
    }

    fn roots(ca_der: &[u8]) -> Result<Arc<RootCertStore>, String> {
        let mut roots = RootCertStore::empty();
        roots
            .add(CertificateDer::from(ca_der.to_vec()))
            .map_err(|e| format!("the CA certificate is unusable: {e}"))?;
        Ok(Arc::new(roots))
    }

    fn chain_and_key(&self) -> (Vec<CertificateDer<'static>>, PrivateKeyDer<'static>) {
        (
            vec![CertificateDer::from(self.cert_der.clone())],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(self.key_der.clone())),
        )
    }

    pub(crate) fn client(&self, peer: PartyId) -> Result<ClientConnection, String> {
        let (chain, key) = self.chain_and_key();
        let builder = ClientConfig::builder_with_provider(Self::provider())
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(|e| e.to_string())?;
        let builder = match &self.trust {
            Trust::Ca(ca) => builder.with_root_certificates(Self::roots(ca)?),
            Trust::Pinned(pins) => {
                let pin = pins
                    .get(peer)
                    .ok_or_else(|| format!("no pinned certificate for party {peer}"))?;
                builder
                    .dangerous()
                    .with_custom_certificate_verifier(Arc::new(Pinned {
                        pins: vec![pin.clone()],
                        provider: Self::provider(),
                    }))
            }
        };
        let config = builder
            .with_client_auth_cert(chain, key)
            .map_err(|e| format!("our certificate or key is unusable: {e}"))?;
        let name = ServerName::try_from(party_name(peer)).map_err(|e| e.to_string())?;
        ClientConnection::new(Arc::new(config), name).map_err(|e| e.to_string())
    }

    /// The listening side of one connection; the client's certificate, if
    /// it presents one, is kept in `seen` (accepted or not), so that a
    /// failed handshake can be put down to the party it names.
    pub(crate) fn server(&self, seen: &Seen) -> Result<ServerConnection, String> {
        let (chain, key) = self.chain_and_key();
        let verifier: Arc<dyn ClientCertVerifier> = match &self.trust {
            Trust::Ca(ca) => {
                WebPkiClientVerifier::builder_with_provider(Self::roots(ca)?, Self::provider())
                    .build()
                    .map_err(|e| e.to_string())?
            }
            Trust::Pinned(pins) => Arc::new(Pinned {
                pins: pins.clone(),
                provider: Self::provider(),
            }),
        };
        let verifier = Arc::new(Seeing {
            inner: verifier,
            seen: seen.clone(),
        });
        let mut config = ServerConfig::builder_with_provider(Self::provider())
            .with_protocol_versions(&[&rustls::version::TLS13])
            .map_err(|e| e.to_string())?
            .with_client_cert_verifier(verifier)
            .with_single_cert(chain, key)
            .map_err(|e| format!("our certificate or key is unusable: {e}"))?;
        // No session resumption between parties: no tickets to send after the handshake.
        config.send_tls13_tickets = 0;
        ServerConnection::new(Arc::new(config)).map_err(|e| e.to_string())
    }
}

impl TlsIdentity {
    /// Loads this party's PEM credentials and pins every party's certificate
    /// (`certs[i]` is party i's).
    pub fn pinned_from_pem_files(
        certs: &[std::path::PathBuf],
        cert: &std::path::Path,
        key: &std::path::Path,
    ) -> Result<TlsIdentity, String> {
        // Reuse the loader for our own certificate and key; the CA slot is replaced below.
        let own = TlsIdentity::from_pem_files(cert, cert, key)?;
        let pins = certs
            .iter()
            .map(|p| read_cert(p))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(TlsIdentity {
            trust: Trust::Pinned(pins),
            ..own
        })
    }
}

/// Reads a PEM certificate file.
fn read_cert(p: &std::path::Path) -> Result<Vec<u8>, String> {
    use rustls::pki_types::pem::PemObject;
    CertificateDer::from_pem_file(p)
        .map(|c| c.to_vec())
        .map_err(|e| pem_error(p, "certificate", e))
}

/// Why a PEM file could not be read, in the user's terms: a missing file
/// is "no such file", not a malformed key.
fn pem_error(p: &std::path::Path, what: &str, e: rustls::pki_types::pem::Error) -> String {
    use rustls::pki_types::pem::Error;
    match e {
        Error::Io(io) if io.kind() == std::io::ErrorKind::NotFound => {
            format!("{}: no such file", p.display())
        }
        Error::Io(io) => format!("{}: {io}", p.display()),
        e => format!("{}: not a PEM {what} ({e})", p.display()),
    }
}

/// Checks that the authenticated peer certificate belongs to party `claimed`.
pub(crate) fn check_peer_identity(
    trust: &Trust,
    certs: Option<&[CertificateDer<'_>]>,
    claimed: PartyId,
    parties: usize,
) -> Result<(), String> {
    let cert = certs
        .and_then(|c| c.first())
        .ok_or("the peer presented no certificate")?;
    if let Trust::Pinned(pins) = trust {
        if pins
            .get(claimed)
            .is_some_and(|p| p.as_slice() == cert.as_ref())
        {
            return Ok(());
        }
        return Err(match pins.iter().position(|p| p.as_slice() == cert.as_ref()) {
            Some(actual) => format!("the peer claims to be party {claimed} but presents the certificate pinned for party {actual}"),
            None => format!("the peer claims to be party {claimed} but presents a certificate pinned for no party"),
        });
    }
    let ee = webpki::EndEntityCert::try_from(cert)
        .map_err(|e| format!("the peer certificate is unreadable: {e}"))?;
    if names_party(&ee, claimed) {
        return Ok(());
    }
    match (0..parties).find(|&id| names_party(&ee, id)) {
        Some(actual) => Err(format!(
            "the peer claims to be party {claimed} but its certificate is for party {actual}"
        )),
        None => Err(format!(
            "the peer claims to be party {claimed} but its certificate names no party of this run"
        )),
    }
}

fn names_party(ee: &webpki::EndEntityCert<'_>, id: PartyId) -> bool {
    ServerName::try_from(party_name(id))
        .map(|n| ee.verify_is_valid_for_subject_name(&n).is_ok())
        .unwrap_or(false)
}

/// The party of a run of `parties` whose name a certificate carries (by
/// its name only: whether it is trusted is another matter).
pub(crate) fn party_named_in(cert_der: &[u8], parties: usize) -> Option<PartyId> {
    let cert = CertificateDer::from(cert_der);
    let ee = webpki::EndEntityCert::try_from(&cert).ok()?;
    (0..parties).find(|&id| names_party(&ee, id))
}

/// Where a listener keeps the certificate a client presented.
pub(crate) type Seen = Arc<Mutex<Option<Vec<u8>>>>;

/// A client-certificate verifier that keeps what it was shown.
#[derive(Debug)]
struct Seeing {
    inner: Arc<dyn ClientCertVerifier>,
    seen: Seen,
}

impl ClientCertVerifier for Seeing {
    fn offer_client_auth(&self) -> bool {
        self.inner.offer_client_auth()
    }
    fn client_auth_mandatory(&self) -> bool {
        self.inner.client_auth_mandatory()
    }
    fn root_hint_subjects(&self) -> &[rustls::DistinguishedName] {
        self.inner.root_hint_subjects()
    }
    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        now: UnixTime,
    ) -> Result<rustls::server::danger::ClientCertVerified, rustls::Error> {
        if let Ok(mut seen) = self.seen.lock() {
            *seen = Some(end_entity.to_vec());
        }
        self.inner
            .verify_client_cert(end_entity, intermediates, now)
    }
    fn verify_tls12_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &rustls::DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(m, c, d)
    }
    fn verify_tls13_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &rustls::DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(m, c, d)
    }
    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

/// Trusts exactly the pinned certificates, still checking every handshake
/// signature with the provider's algorithms.
#[derive(Debug)]
struct Pinned {
    pins: Vec<Vec<u8>>,
    provider: Arc<rustls::crypto::CryptoProvider>,
}

impl Pinned {
    fn check(&self, end_entity: &CertificateDer<'_>) -> Result<(), rustls::Error> {
        if self
            .pins
            .iter()
            .any(|p| p.as_slice() == end_entity.as_ref())
        {
            Ok(())
        } else {
            Err(rustls::Error::General(
                "certificate is not the pinned certificate of a party".into(),
            ))
        }
    }

    fn tls12(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &rustls::DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            m,
            c,
            d,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn tls13(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &rustls::DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            m,
            c,
            d,
            &self.provider.signature_verification_algorithms,
        )
    }
}

impl rustls::client::danger::ServerCertVerifier for Pinned {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        self.check(end_entity)
            .map(|()| rustls::client::danger::ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &rustls::DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.tls12(m, c, d)
    }
    fn verify_tls13_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &rustls::DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.tls13(m, c, d)
    }
    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

impl rustls::server::danger::ClientCertVerifier for Pinned {
    fn root_hint_subjects(&self) -> &[rustls::DistinguishedName] {
        &[]
    }
    fn verify_client_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<rustls::server::danger::ClientCertVerified, rustls::Error> {
        self.check(end_entity)
            .map(|()| rustls::server::danger::ClientCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &rustls::DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.tls12(m, c, d)
    }
    fn verify_tls13_signature(
        &self,
        m: &[u8],
        c: &CertificateDer<'_>,
        d: &rustls::DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.tls13(m, c, d)
    }
    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

struct Shared {
    conn: Mutex<Connection>,
    wire: Mutex<Wire>,
}

/// The socket's writing side: records leave in the order the connection
/// made them (their sequence numbers), so records a non-blocking write left
/// behind go first.
struct Wire {
    socket: TcpStream,
    unsent: Vec<u8>,
}

fn poisoned<T>(_: T) -> io::Error {
    io::Error::other("TLS state poisoned by a panic on another thread")
}

/// The records the connection has made and not yet handed out, into `scratch`.
fn take_records(conn: &mut Connection, scratch: &mut Vec<u8>) -> io::Result<()> {
    scratch.clear();
    while conn.wants_write() {
        conn.write_tls(scratch)?;
    }
    Ok(())
}

impl Shared {
    /// Sends whatever TLS records the connection has queued (after those a
    /// non-blocking write left behind), blocking until they left. Called
    /// with the connection locked; takes the socket lock before releasing
    /// it, so records leave in the order they were made.
    fn send_queued(
        &self,
        mut conn: std::sync::MutexGuard<'_, Connection>,
        scratch: &mut Vec<u8>,
    ) -> io::Result<()> {
        take_records(&mut conn, scratch)?;
        if scratch.is_empty() {
            // Nothing new: the reader must not wait on a writer's long write.
            return Ok(());
        }
        let mut wire = self.wire.lock().map_err(poisoned)?;
        drop(conn);
        let Wire { socket, unsent } = &mut *wire;
        if !unsent.is_empty() {
            socket.write_all(unsent)?;
            unsent.clear();
        }
        socket.write_all(scratch)
    }
}

/// The reading half.
pub(crate) struct TlsReader {
    shared: Arc<Shared>,
    socket: TcpStream,
    raw: Vec<u8>,
    start: usize,
    end: usize,
    eof: bool,
    scratch: Vec<u8>,
}

/// The writing half.
pub(crate) struct TlsWriter {
    shared: Arc<Shared>,
    scratch: Vec<u8>,
}

/// Splits an established connection (handshake done) over `socket`.
pub(crate) fn split(mut conn: Connection, socket: TcpStream) -> io::Result<(TlsReader, TlsWriter)> {
    conn.set_buffer_limit(Some(4 << 20));
    let shared = Arc::new(Shared {
        conn: Mutex::new(conn),
        wire: Mutex::new(Wire {
            socket: socket.try_clone()?,
            unsent: Vec::new(),
        }),
    });
    let reader = TlsReader {
        shared: shared.clone(),
        socket,
        raw: vec![0; 1 << 16],
        start: 0,
        end: 0,
        eof: false,
        scratch: Vec::new(),
    };
    Ok((
        reader,
        TlsWriter {
            shared,
            scratch: Vec::new(),
        },
    ))
}

impl Read for TlsReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let mut conn = self.shared.conn.lock().map_err(poisoned)?;
            // Plaintext first: rustls refuses more ciphertext while its
            // plaintext buffer is full.
            match conn.reader().read(buf) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(e) => return Err(e),
            }
            if self.start < self.end {
                let n = conn.read_tls(&mut &self.raw[self.start..self.end])?;
                self.start += n;
                conn.process_new_packets()
                    .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("TLS: {e}")))?;
                // E.g. the answer to a key update the peer asked for.
                self.shared.send_queued(conn, &mut self.scratch)?;
                continue;
            }
            if self.eof {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the peer closed the connection",
                ));
            }
            drop(conn);
            // Need more ciphertext; read without holding any lock.
            let n = self.socket.read(&mut self.raw)?;
            (self.start, self.end) = (0, n);
            if n == 0 {
                self.eof = true;
                let mut conn = self.shared.conn.lock().map_err(poisoned)?;
                conn.read_tls(&mut &[][..])?;
                conn.process_new_packets()
                    .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, format!("TLS: {e}")))?;
            }
        }
    }
}

impl Write for TlsWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut conn = self.shared.conn.lock().map_err(poisoned)?;
        let n = conn.writer().write(buf)?;
        self.shared.send_queued(conn, &mut self.scratch)?;
        Ok(n)
    }

    /// All parts into the same records: a frame's header and its payload,
    /// written from their own buffers, must not cost a record each.
    fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
        let mut conn = self.shared.conn.lock().map_err(poisoned)?;
        let n = conn.writer().write_vectored(bufs)?;
        self.shared.send_queued(conn, &mut self.scratch)?;
        Ok(n)
    }

    /// Sends the records a non-blocking write left behind.
    fn flush(&mut self) -> io::Result<()> {
        let mut wire = self.shared.wire.lock().map_err(poisoned)?;
        let Wire { socket, unsent } = &mut *wire;
        socket.write_all(unsent)?;
        unsent.clear();
        Ok(())
    }
}

impl crate::frame::WriteNow for TlsWriter {
    /// Takes nothing while the reader or the writer thread holds the
    /// connection or the socket (e.g. a long blocking write): the records
    /// must reach the socket in order, and the protocol thread must not
    /// wait on either.
    fn write_now(&mut self, buf: &[u8]) -> io::Result<(usize, bool)> {
        let Ok(mut conn) = self.shared.conn.try_lock() else {
            return Ok((0, true));
        };
        let Ok(mut wire) = self.shared.wire.try_lock() else {
            return Ok((0, true));
        };
        let taken = conn.writer().write(buf)?;
        take_records(&mut conn, &mut self.scratch)?;
        drop(conn);
        let Wire { socket, unsent } = &mut *wire;
        unsent.extend_from_slice(&self.scratch);
        let sent = crate::frame::send_now(socket, unsent)?;
        unsent.drain(..sent);
        Ok((taken, unsent.is_empty()))
    }
}

impl Drop for TlsWriter {
    /// Tells the peer we are done, so it sees a clean end rather than a
    /// cut, as far as that goes without blocking: the last owner may be the
    /// protocol thread, which a peer that does not read must never hold.
    fn drop(&mut self) {
        let notified = match self.shared.conn.try_lock() {
            Ok(mut conn) => {
                conn.send_close_notify();
                true
            }
            Err(_) => false,
        };
        if notified {
            let _ = crate::frame::WriteNow::write_now(self, &[]);
        }
    }
}
