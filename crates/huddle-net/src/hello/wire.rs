//! The hello and its encoding (little-endian; a string is a `u32` length
//! and UTF-8 bytes):
//!
//! ```text
//! "HUDDLE/" version:u8 party:u32                 (every version begins so)
//! parties:u32 session:str circuit:[u8; 32]
//! count:u32 { name:str form:u8 tag:u8 payload }  (the settings, in order)
//! ```
//!
//! Value tags: 0 absent, 1 bool (one byte, 0 or 1), 2 number (`u64`),
//! 3 text (str), 4 open, 5 least (`u64`). Forms: 0 option, 1 job, 2 lines,
//! 3 program.
//! Version 1 was the string hello, whose version byte was the digit `1`; a
//! peer of another version is named with its version and nothing else is read.
//! A setting's name is its wire name, chosen once where the setting is made;
//! a job file's key `k` travels as `job.k`.

use super::settings::{Form, Settings, Value};
use super::wording::short_hash;
use std::fmt;

/// The hello version this build speaks.
pub const VERSION: u8 = 2;

const MAGIC: &[u8; 7] = b"HUDDLE/";

/// The first message on every connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Hello {
    /// The sender's hello version; of another version than [`VERSION`],
    /// only `party` is known and the rest is empty.
    pub version: u8,
    pub party: u32,
    pub parties: u32,
    pub session: String,
    pub circuit: [u8; 32],
    pub settings: Settings,
}

impl fmt::Display for Hello {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "version {} party {} of {} session {:?} circuit {} {}",
            self.version,
            self.party,
            self.parties,
            self.session,
            short_hash(&self.circuit),
            self.settings
        )
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// The version as its byte on the wire: version 1's was the digit `1`.
fn version_byte(version: u8) -> u8 {
    if version == 1 {
        b'1'
    } else {
        version
    }
}

impl Hello {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(128 + 32 * self.settings.0.len());
        out.extend_from_slice(MAGIC);
        out.push(version_byte(self.version));
        out.extend_from_slice(&self.party.to_le_bytes());
        if self.version != VERSION {
            return out;
        }
        out.extend_from_slice(&self.parties.to_le_bytes());
        put_str(&mut out, &self.session);
        out.extend_from_slice(&self.circuit);
        out.extend_from_slice(&(self.settings.0.len() as u32).to_le_bytes());
        for s in &self.settings.0 {
            put_str(&mut out, &s.name);
            out.push(s.form as u8);
            match &s.value {
                Value::Absent => out.push(0),
                Value::Bool(b) => out.extend_from_slice(&[1, u8::from(*b)]),
                Value::Number(n) => {
                    out.push(2);
                    out.extend_from_slice(&n.to_le_bytes());
                }
                Value::Text(t) => {
                    out.push(3);
                    put_str(&mut out, t);
                }
                Value::Open => out.push(4),
                Value::Least(n) => {
                    out.push(5);
                    out.extend_from_slice(&n.to_le_bytes());
                }
            }
        }
        out
    }

    pub(crate) fn decode(bytes: &[u8]) -> Result<Hello, String> {
        let mut r = Reader(bytes);
        let bad = || "the peer does not speak the huddle protocol (bad hello)".to_string();
        if r.take(MAGIC.len()).ok_or_else(bad)? != MAGIC {
            return Err(bad());
        }
        let version = match r.u8().ok_or_else(bad)? {
            b'1' => 1,
            v => v,
        };
        let party = r.u32().ok_or_else(bad)?;
        let mut hello = Hello {
            version,
            party,
            parties: 0,
            session: String::new(),
            circuit: [0; 32],
            settings: Settings::new(),
        };
        if version != VERSION {
            return Ok(hello);
        }
        hello.parties = r.u32().ok_or_else(bad)?;
        hello.session = r.str().ok_or_else(bad)?;
        hello.circuit = r.take(32).ok_or_else(bad)?.try_into().map_err(|_| bad())?;
        let count = r.u32().ok_or_else(bad)?;
        for _ in 0..count {
            let name = r.str().ok_or_else(bad)?;
            let form = *Form::ALL
                .get(usize::from(r.u8().ok_or_else(bad)?))
                .ok_or_else(bad)?;
            let value = match r.u8().ok_or_else(bad)? {
                0 => Value::Absent,
                1 => match r.u8().ok_or_else(bad)? {
                    b @ (0 | 1) => Value::Bool(b == 1),
                    _ => return Err(bad()),
                },
                2 => Value::Number(r.u64().ok_or_else(bad)?),
                3 => Value::Text(r.str().ok_or_else(bad)?),
                4 => Value::Open,
                5 => Value::Least(r.u64().ok_or_else(bad)?),
                _ => return Err(bad()),
            };
            if hello.settings.get(&name).is_some() {
                return Err(bad());
            }
            hello.settings.set(name, form, value);
        }
        if !r.0.is_empty() {
            return Err(bad());
        }
        Ok(hello)
    }
}

/// Reads a hello's fields; `None` where the bytes run out.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (a, b) = self.0.split_at(n);
        self.0 = b;
        Some(a)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn str(&mut self) -> Option<String> {
        let len = usize::try_from(self.u32()?).ok()?;
        String::from_utf8(self.take(len)?.to_vec()).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hello::testing::{hello, settings};
    use proptest::prelude::*;

    /// The wire format of a fixed hello, byte for byte: a change of the
    /// encoding (or of a tag) fails here before it splits two releases.
    #[test]
    fn the_encoding_is_stable() {
        let h = Hello {
            version: VERSION,
            party: 1,
            parties: 3,
            session: "s".into(),
            circuit: [0xAB; 32],
            settings: settings(&[
                ("protocol", Form::Option, Value::Text("trio".into())),
                ("threads", Form::Option, Value::Least(2)),
                ("verify-every", Form::Option, Value::Absent),
                ("split-roles", Form::Option, Value::Bool(true)),
                ("batch", Form::Lines, Value::Number(40)),
                ("job.owners", Form::Job, Value::Open),
            ]),
        };
        let hex: String = h.encode().iter().map(|b| format!("{b:02x}")).collect();
        let want = concat!(
            "48554444 4c452f02 01000000",       // HUDDLE/ 2, party 1
            "03000000 01000000 73",             // 3 parties, session "s"
            "abababababababababababababababab", // circuit
            "abababababababababababababababab",
            "06000000",                                          // 6 settings
            "08000000 70726f746f636f6c 00 03 04000000 7472696f", // protocol trio
            "07000000 74687265616473 00 05 0200000000000000",    // threads min:2
            "0c000000 7665726966792d6576657279 00 00",           // verify-every absent
            "0b000000 73706c69742d726f6c6573 00 01 01",          // split-roles true
            "05000000 6261746368 02 02 2800000000000000",        // batch 40 (lines)
            "0a000000 6a6f622e6f776e657273 01 04",               // job.owners open
        )
        .replace(' ', "");
        assert_eq!(hex, want);
        assert_eq!(Hello::decode(&h.encode()), Ok(h));
    }

    #[test]
    fn malformed_hellos_are_refused() {
        let good = hello(1, settings(&[("x", Form::Option, Value::Bool(true))])).encode();
        // Cut anywhere past the party: refused (a cut before it is too).
        for cut in 0..good.len() {
            assert!(Hello::decode(&good[..cut]).is_err(), "cut at {cut}");
        }
        let mut trailing = good.clone();
        trailing.push(0);
        assert!(Hello::decode(&trailing).is_err());
        let mut bad_bool = good.clone();
        *bad_bool.last_mut().expect("byte") = 2;
        assert!(Hello::decode(&bad_bool).is_err());
        let twice = hello(
            1,
            settings(&[
                ("x", Form::Option, Value::Absent),
                ("y", Form::Option, Value::Absent),
            ]),
        )
        .encode();
        let renamed =
            String::from_utf8_lossy(&twice).replace("\x01\x00\x00\x00y", "\x01\x00\x00\x00x");
        assert!(
            Hello::decode(renamed.as_bytes()).is_err(),
            "a name given twice"
        );
    }

    fn value() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Absent),
            any::<bool>().prop_map(Value::Bool),
            any::<u64>().prop_map(Value::Number),
            ".{0,20}".prop_map(Value::Text),
            Just(Value::Open),
            any::<u64>().prop_map(Value::Least),
        ]
    }

    proptest! {
        #[test]
        fn hello_round_trips(
            party: u32,
            parties: u32,
            session in ".{0,40}",
            circuit: [u8; 32],
            list in proptest::collection::vec(("[a-z.-]{1,12}", 0..Form::ALL.len(), value()), 0..12),
        ) {
            let mut s = Settings::new();
            for (name, form, v) in list {
                s.set(name, Form::ALL[form], v);
            }
            let h = Hello { version: VERSION, party, parties, session, circuit, settings: s };
            prop_assert_eq!(Hello::decode(&h.encode()), Ok(h));
        }

        #[test]
        fn hello_decoding_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let _ = Hello::decode(&bytes);
            let mut with_magic = MAGIC.to_vec();
            with_magic.push(VERSION);
            with_magic.extend(&bytes);
            if let Ok(h) = Hello::decode(&with_magic) {
                prop_assert_eq!(Hello::decode(&h.encode()), Ok(h));
            }
        }
    }
}
