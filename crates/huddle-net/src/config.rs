//! The party configuration file (TOML) of a multi-host run.
//!
//! ```toml
//! session = "acme-2026-11"          # every party must use the same session id
//!
//! [tls]
//! ca = "certs/ca.pem"               # the CA that signed every party's certificate
//!
//! [[party]]
//! id = 0
//! host = "10.0.0.1"
//! port = 7000
//! cert = "certs/party0.pem"         # needed by this party only
//! key = "certs/party0.key"
//! ```
//!
//! Relative paths are taken from the configuration file's folder. Without a
//! `[tls] ca`, every party's `cert` must be listed and is pinned: a peer is
//! accepted only with exactly the certificate listed for its id.

use crate::PartyId;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// One party's address and (own) credentials.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartyConfig {
    /// The party's id; equals its index in [`NetworkConfig::parties`].
    pub id: PartyId,
    /// Host name or IP address the party listens on.
    pub host: String,
    /// TCP port the party listens on (never 0).
    pub port: u16,
    /// The party's certificate (PEM), absolute; every party's is needed
    /// when there is no CA (they are pinned).
    pub cert: Option<PathBuf>,
    /// The party's private key (PEM), absolute; needed by that party only.
    pub key: Option<PathBuf>,
}

/// A validated configuration: parties 0..n-1, each once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetworkConfig {
    /// The session id every party must agree on (1 to 200 characters).
    pub session: String,
    /// The CA certificate (PEM) that signed every party's certificate,
    /// absolute; without one, peers' certificates are pinned.
    pub ca: Option<PathBuf>,
    /// Every party, at least 2, indexed by id.
    pub parties: Vec<PartyConfig>,
}

/// Why a configuration is unusable.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("{path}: {cause}")]
    Read {
        /// The configuration file.
        path: String,
        /// The I/O error.
        cause: String,
    },
    /// The file was read but is not a valid configuration.
    #[error("{path}: {cause}")]
    Invalid {
        /// The configuration file.
        path: String,
        /// What is wrong with it.
        cause: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawParty {
    id: PartyId,
    host: String,
    port: u16,
    cert: Option<PathBuf>,
    key: Option<PathBuf>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTls {
    ca: Option<PathBuf>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    session: String,
    tls: Option<RawTls>,
    #[serde(default)]
    party: Vec<RawParty>,
}

impl NetworkConfig {
    /// Reads, parses and validates the file at `path`; relative paths in it
    /// are taken from its folder.
    pub fn from_file(path: &Path) -> Result<NetworkConfig, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Read {
            path: path.display().to_string(),
            cause: e.to_string(),
        })?;
        let base = path.parent().unwrap_or(Path::new("."));
        NetworkConfig::from_toml(&text, base).map_err(|cause| ConfigError::Invalid {
            path: path.display().to_string(),
            cause,
        })
    }

    /// Parses and validates; relative paths are joined to `base`.
    pub fn from_toml(text: &str, base: &Path) -> Result<NetworkConfig, String> {
        let raw: RawConfig = toml::from_str(text).map_err(|e| e.to_string())?;
        if raw.session.is_empty() || raw.session.len() > 200 {
            return Err("session must be 1 to 200 characters".into());
        }
        let n = raw.party.len();
        if n < 2 {
            return Err(format!(
                "a run needs at least 2 parties, the file lists {n}"
            ));
        }
        let mut slots: Vec<Option<PartyConfig>> = vec![None; n];
        for p in raw.party {
            if p.id >= n {
                return Err(format!(
                    "party id {} is out of range: ids must be 0..{} for {n} parties",
                    p.id,
                    n - 1
                ));
            }
            if slots[p.id].is_some() {
                return Err(format!("party {} is listed twice", p.id));
            }
            if p.host.is_empty() {
                return Err(format!("party {} has an empty host", p.id));
            }
            if p.port == 0 {
                return Err(format!("party {} has port 0", p.id));
            }
            let abs =
                |q: Option<PathBuf>| q.map(|q| if q.is_absolute() { q } else { base.join(q) });
            slots[p.id] = Some(PartyConfig {
                id: p.id,
                host: p.host,
                port: p.port,
                cert: abs(p.cert),
                key: abs(p.key),
            });
        }
        let parties = slots
            .into_iter()
            .map(|p| p.ok_or_else(|| "unreachable: ids checked".to_string()))
            .collect::<Result<_, _>>()?;
        let ca = raw
            .tls
            .and_then(|t| t.ca)
            .map(|c| if c.is_absolute() { c } else { base.join(c) });
        Ok(NetworkConfig {
            session: raw.session,
            ca,
            parties,
        })
    }

    /// The number of parties in the run.
    pub fn parties(&self) -> usize {
        self.parties.len()
    }

    /// Parties on the host of party `id` (by the host names written; 1 for
    /// an unknown id).
    pub fn parties_sharing_host(&self, id: PartyId) -> usize {
        self.parties.get(id).map_or(1, |me| {
            self.parties.iter().filter(|p| p.host == me.host).count()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(body: &str) -> Result<NetworkConfig, String> {
        NetworkConfig::from_toml(body, Path::new("/etc/huddle"))
    }

    const GOOD: &str = "session = \"s\"\n[tls]\nca = \"ca.pem\"\n[[party]]\nid = 1\nhost = \"b\"\nport = 2\n[[party]]\nid = 0\nhost = \"a\"\nport = 1\ncert = \"p0.pem\"\nkey = \"/k/p0.key\"\n";

    #[test]
    fn parses_and_orders_parties() {
        let c = cfg(GOOD).expect("valid");
        assert_eq!(c.parties(), 2);
        assert_eq!(c.parties[0].host, "a");
        assert_eq!(
            c.parties[0].cert.as_deref(),
            Some(Path::new("/etc/huddle/p0.pem"))
        );
        assert_eq!(c.parties[0].key.as_deref(), Some(Path::new("/k/p0.key")));
        assert_eq!(c.ca.as_deref(), Some(Path::new("/etc/huddle/ca.pem")));
        assert_eq!(
            (c.parties_sharing_host(0), c.parties_sharing_host(9)),
            (1, 1)
        );
        let same = cfg(&GOOD.replace("host = \"b\"", "host = \"a\"")).expect("valid");
        assert_eq!(same.parties_sharing_host(1), 2);
    }

    #[test]
    fn rejects_bad_configs_with_the_cause() {
        let cases = [
            (GOOD.replace("id = 1", "id = 0"), "party 0 is listed twice"),
            (
                GOOD.replace("id = 1", "id = 5"),
                "party id 5 is out of range",
            ),
            (GOOD.replace("port = 2", "port = 0"), "party 1 has port 0"),
            (GOOD.replace("port = 2", "port = 70000"), "port"),
            (GOOD.replace("host = \"b\"", "host = \"\""), "empty host"),
            (GOOD.replace("session = \"s\"", "session = \"\""), "session"),
            (GOOD.replace("[tls]", "[tlz]"), "tlz"),
            (
                "session = \"s\"\n[[party]]\nid = 0\nhost = \"a\"\nport = 1\n".to_string(),
                "at least 2 parties",
            ),
        ];
        for (text, needle) in cases {
            let e = cfg(&text).expect_err(needle);
            assert!(e.contains(needle), "`{e}` lacks `{needle}`");
        }
    }
}
