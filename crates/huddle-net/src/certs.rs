//! Certificates for a development set-up: one CA and one certificate per
//! party. A party's identity is the DNS name `party-<id>.huddle` in its
//! certificate's subject alternative names; TLS peers check it both ways.

use crate::PartyId;
use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
    KeyUsagePurpose,
};
use std::path::Path;
use std::time::{Duration, SystemTime};

/// The certificate name that identifies party `id`.
pub fn party_name(id: PartyId) -> String {
    format!("party-{id}.huddle")
}

/// A development PKI: one CA and, signed by it, one certificate and key per
/// party (DER for rustls, PEM for the files parties read).
#[derive(Clone)]
pub struct DevPki {
    /// The CA certificate, DER-encoded.
    pub ca_cert_der: Vec<u8>,
    /// The CA certificate, PEM-encoded (`ca.pem`).
    pub ca_cert_pem: String,
    ca_key_pem: String,
    /// Each party's credentials, indexed by party id.
    pub parties: Vec<PartyCredentials>,
}

/// One party's certificate (naming it as [`party_name`] says) and private
/// key, in both encodings.
#[derive(Clone)]
pub struct PartyCredentials {
    /// The certificate, DER-encoded.
    pub cert_der: Vec<u8>,
    /// The private key, PKCS#8 DER-encoded.
    pub key_der: Vec<u8>,
    /// The certificate, PEM-encoded (`party<id>.pem`).
    pub cert_pem: String,
    /// The private key, PEM-encoded (`party<id>.key`); never handed out.
    pub key_pem: String,
}

/// CA certificates last 5 years, party certificates 2 years.
const CA_DAYS: u64 = 5 * 365;
const PARTY_DAYS: u64 = 2 * 365;

fn validity(params: &mut CertificateParams, days: u64) {
    let now = SystemTime::now();
    // Allow for clocks that are a little behind.
    params.not_before = (now - Duration::from_secs(3600)).into();
    params.not_after = (now + Duration::from_secs(days * 86_400)).into();
}

/// A self-signed certificate for party `id` alone, for a set-up without a
/// CA: every party makes its own key, keeps it, and hands out only the
/// certificate, which the others pin (no one can sign for anyone else).
pub fn self_signed(id: PartyId) -> Result<PartyCredentials, rcgen::Error> {
    let key = KeyPair::generate()?;
    let cert = party_params(id)?.self_signed(&key)?;
    Ok(PartyCredentials {
        cert_der: cert.der().to_vec(),
        key_der: key.serialize_der(),
        cert_pem: cert.pem(),
        key_pem: key.serialize_pem(),
    })
}

/// The certificate fields of party `id`: its name, and TLS use both ways.
fn party_params(id: PartyId) -> Result<CertificateParams, rcgen::Error> {
    let mut p = CertificateParams::new(vec![party_name(id)])?;
    p.distinguished_name
        .push(DnType::CommonName, party_name(id));
    p.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    // Every party is a TLS server to some peers and a client to others.
    p.extended_key_usages = vec![
        ExtendedKeyUsagePurpose::ServerAuth,
        ExtendedKeyUsagePurpose::ClientAuth,
    ];
    validity(&mut p, PARTY_DAYS);
    Ok(p)
}

/// What writing credentials does to files that exist already.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Existing {
    /// Refuse before writing anything, naming every file that exists: a
    /// key written over no longer matches the certificate the other parties
    /// pinned (or the CA signed), so the run then fails at the handshake.
    Refuse,
    /// Write over them (`huddle certs --force`).
    Replace,
}

/// Refuses (as [`Existing::Refuse`] says) if any of `files` exists.
fn check_existing(files: &[std::path::PathBuf], existing: Existing) -> std::io::Result<()> {
    if existing == Existing::Replace {
        return Ok(());
    }
    let there: Vec<String> = files
        .iter()
        .filter(|f| f.exists())
        .map(|f| f.display().to_string())
        .collect();
    if there.is_empty() {
        return Ok(());
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::AlreadyExists,
        format!(
            "{} already exist{}: huddle never writes over a key or certificate (the other \
             parties hold the old certificate, so a new key would fail every handshake); \
             remove {} or give --force",
            there.join(", "),
            if there.len() == 1 { "s" } else { "" },
            if there.len() == 1 { "it" } else { "them" }
        ),
    ))
}

/// Writes party `id`'s own `party<id>.pem` and `party<id>.key` (the key
/// readable by the owner only) into `dir`.
pub fn write_own(
    dir: &Path,
    id: PartyId,
    c: &PartyCredentials,
    existing: Existing,
) -> std::io::Result<()> {
    let (pem, key) = (
        dir.join(format!("party{id}.pem")),
        dir.join(format!("party{id}.key")),
    );
    check_existing(&[pem.clone(), key.clone()], existing)?;
    std::fs::create_dir_all(dir)?;
    write_private(&key, &c.key_pem, existing)?;
    std::fs::write(pem, &c.cert_pem)
}

/// The port of each party in a parties file: `base_port` for the first
/// party on a host, one more for each further party on the same host (so
/// parties on different hosts share one port, and parties on one host
/// differ).
pub(crate) fn ports(parties: usize, base_port: u16, hosts: &[String]) -> Vec<u16> {
    let host = |i: usize| hosts.get(i).map_or("127.0.0.1", String::as_str);
    (0..parties)
        .map(|i| {
            let before = (0..i).filter(|&j| host(j) == host(i)).count();
            base_port.saturating_add(before as u16)
        })
        .collect()
}

impl DevPki {
    /// A fresh CA and certificates for parties 0..parties.
    pub fn generate(parties: usize) -> Result<DevPki, rcgen::Error> {
        let ca_key = KeyPair::generate()?;
        let mut ca_params = CertificateParams::new(Vec::<String>::new())?;
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(DnType::CommonName, "huddle development CA");
        ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
        validity(&mut ca_params, CA_DAYS);
        let ca = ca_params.self_signed(&ca_key)?;
        let mut out = Vec::with_capacity(parties);
        for id in 0..parties {
            let key = KeyPair::generate()?;
            let cert = party_params(id)?.signed_by(&key, &ca, &ca_key)?;
            out.push(PartyCredentials {
                cert_der: cert.der().to_vec(),
                key_der: key.serialize_der(),
                cert_pem: cert.pem(),
                key_pem: key.serialize_pem(),
            });
        }
        Ok(DevPki {
            ca_cert_der: ca.der().to_vec(),
            ca_cert_pem: ca.pem(),
            ca_key_pem: ca_key.serialize_pem(),
            parties: out,
        })
    }

    /// Writes `ca.pem`, `ca.key`, `party<i>.pem`, `party<i>.key` and a
    /// `parties.toml` for a run on localhost (ports `base_port + i`). Private
    /// keys are created readable by the owner only.
    pub fn write_to(&self, dir: &Path, base_port: u16, existing: Existing) -> std::io::Result<()> {
        self.write_for(dir, base_port, &[], "dev-session", existing)
    }

    /// [`write_to`](Self::write_to) with party i at `hosts[i]` (localhost
    /// where `hosts` is empty) in session `session`: the first party on a
    /// host gets `base_port`, each further party on the same host one more.
    pub fn write_for(
        &self,
        dir: &Path,
        base_port: u16,
        hosts: &[String],
        session: &str,
        existing: Existing,
    ) -> std::io::Result<()> {
        let mut files = vec![
            dir.join("ca.key"),
            dir.join("ca.pem"),
            dir.join("parties.toml"),
        ];
        for i in 0..self.parties.len() {
            files.push(dir.join(format!("party{i}.pem")));
            files.push(dir.join(format!("party{i}.key")));
        }
        check_existing(&files, existing)?;
        std::fs::create_dir_all(dir)?;
        write_private(&dir.join("ca.key"), &self.ca_key_pem, existing)?;
        std::fs::write(dir.join("ca.pem"), &self.ca_cert_pem)?;
        let ports = ports(self.parties.len(), base_port, hosts);
        let mut toml = if hosts.is_empty() {
            String::from(
                "# huddle parties for a local test run; edit host/port for real machines.\n",
            )
        } else {
            String::from("# huddle parties: party i listens on its host and port.\n")
        };
        toml.push_str(&format!(
            "# Give each party only its own key and the CA certificate.\nsession = \"{session}\"\n\n[tls]\nca = \"ca.pem\"\n"
        ));
        for (i, p) in self.parties.iter().enumerate() {
            std::fs::write(dir.join(format!("party{i}.pem")), &p.cert_pem)?;
            write_private(&dir.join(format!("party{i}.key")), &p.key_pem, existing)?;
            let port = ports[i];
            let host = hosts.get(i).map_or("127.0.0.1", String::as_str);
            toml.push_str(&format!(
                "\n[[party]]\nid = {i}\nhost = \"{host}\"\nport = {port}\ncert = \"party{i}.pem\"\nkey = \"party{i}.key\"\n"
            ));
        }
        std::fs::write(dir.join("parties.toml"), toml)
    }
}

/// Writes a file readable by its owner only; under [`Existing::Refuse`] it
/// must not exist (created exclusively, so a key that appeared since the
/// check is not written over either).
fn write_private(path: &Path, text: &str, existing: Existing) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    match existing {
        Existing::Refuse => options.write(true).create_new(true),
        Existing::Replace => options.write(true).create(true).truncate(true),
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut f = options.open(path)?;
    // A file written over keeps its mode on open: tighten it too.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        f.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    f.write_all(text.as_bytes())
}
