//! The hello: the first frame on every connection. It names the sender's
//! party id, the party count, the session, the circuit's hash and the run's
//! settings as typed entries, so that parties that would not compute the same
//! thing refuse to start, and say why in the user's terms.
//!
//! Encoding (little-endian; a string is a `u32` length and UTF-8 bytes):
//!
//! ```text
//! "HUDDLE/" version:u8 party:u32                 (every version begins so)
//! parties:u32 session:str circuit:[u8; 32]
//! count:u32 { name:str form:u8 tag:u8 payload }  (the settings, in order)
//! ```
//!
//! Value tags: 0 absent, 1 bool (one byte, 0 or 1), 2 number (`u64`),
//! 3 text (str), 4 open, 5 least (`u64`). Forms: 0 option, 1 job, 2 lines.
//! Version 1 was the string hello, whose version byte was the digit `1`; a
//! peer of another version is named with its version and nothing else is read.
//! A setting's name is its wire name, chosen once where the setting is made;
//! a job file's key `k` travels as `job.k`.

use crate::PartyId;
use std::fmt;

/// The hello version this build speaks.
pub const VERSION: u8 = 2;

const MAGIC: &[u8; 7] = b"HUDDLE/";

/// How a setting's value was given, which is how a message names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// A command-line option, `--name`.
    Option,
    /// A key of the job file (`--job`); its name is `job.<key>`.
    Job,
    /// The number of lines of this party's input file.
    Lines,
}

impl Form {
    const ALL: [Form; 3] = [Form::Option, Form::Job, Form::Lines];
}

/// A setting's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// Not given (e.g. no `--verify-every`).
    Absent,
    Bool(bool),
    Number(u64),
    Text(String),
    /// Left open: matches any value, and [`Network::settled`] gives the one
    /// the peers set (e.g. the batch of a party that owns no input).
    ///
    /// [`Network::settled`]: crate::Network::settled
    Open,
    /// An automatic choice that offers at most this many: it matches any
    /// other offer, and every party settles on the least one offered.
    Least(u64),
}

/// One setting of a run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    /// The wire name: stable, chosen once where the setting is made.
    pub name: String,
    pub form: Form,
    pub value: Value,
}

/// The settings every party of a run must agree on, in order (the first
/// that differs is the one a mismatch names). Names are unique.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings(Vec<Setting>);

impl Settings {
    pub fn new() -> Settings {
        Settings::default()
    }

    /// Adds a setting, or replaces the one of the same name in place.
    pub fn set(&mut self, name: impl Into<String>, form: Form, value: Value) -> &mut Settings {
        let name = name.into();
        match self.0.iter_mut().find(|s| s.name == name) {
            Some(s) => (s.form, s.value) = (form, value),
            None => self.0.push(Setting { name, form, value }),
        }
        self
    }

    /// Adds a command-line option's setting (see [`Settings::set`]).
    pub fn option(&mut self, name: impl Into<String>, value: Value) -> &mut Settings {
        self.set(name, Form::Option, value)
    }

    /// Appends every setting of `other` (replacing those of the same name).
    pub fn extend(&mut self, other: Settings) -> &mut Settings {
        for s in other.0 {
            self.set(s.name, s.form, s.value);
        }
        self
    }

    pub fn get(&self, name: &str) -> Option<&Setting> {
        self.0.iter().find(|s| s.name == name)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Setting> {
        self.0.iter()
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Absent => f.write_str("-"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Number(n) => write!(f, "{n}"),
            Value::Text(t) => write!(f, "{t:?}"),
            Value::Open => f.write_str("?"),
            Value::Least(n) => write!(f, "min:{n}"),
        }
    }
}

/// Every setting as `name=value`, for logs (`-v`).
impl fmt::Display for Settings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, s) in self.0.iter().enumerate() {
            let sep = if i == 0 { "" } else { " " };
            write!(f, "{sep}{}={}", s.name, s.value)?;
        }
        Ok(())
    }
}

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

/// Compares a peer's hello with ours: the error names the first difference
/// in the user's terms, in a line (the whole hellos go to the log at `-v`).
pub(crate) fn check_hello(theirs: &Hello, peer: PartyId, ours: &Hello) -> Result<(), String> {
    let result = first_difference(theirs, peer, ours);
    if result.is_err() {
        tracing::info!(
            party = ours.party,
            peer,
            "hellos differ; ours: {ours}; theirs: {theirs}"
        );
    }
    result
}

fn first_difference(theirs: &Hello, peer: PartyId, ours: &Hello) -> Result<(), String> {
    let me = ours.party;
    if theirs.version != ours.version {
        return Err(format!(
            "party {peer} speaks hello version {}, this huddle {}: run the same huddle release everywhere",
            theirs.version, ours.version
        ));
    }
    if theirs.party as usize != peer {
        return Err(format!(
            "the peer says it is party {}, but party {peer} was expected there",
            theirs.party
        ));
    }
    if theirs.parties != ours.parties {
        return Err(format!(
            "party {peer} runs with {} parties, this party ({me}) with {}",
            theirs.parties, ours.parties
        ));
    }
    if theirs.session != ours.session {
        return Err(format!(
            "party {peer} is in session `{}`, this party ({me}) in session `{}`",
            clip(&theirs.session),
            clip(&ours.session)
        ));
    }
    let names = ours.settings.iter().map(|s| &s.name).chain(
        theirs
            .settings
            .iter()
            .map(|s| &s.name)
            .filter(|n| ours.settings.get(n).is_none()),
    );
    for name in names {
        let (o, t) = (ours.settings.get(name), theirs.settings.get(name));
        let (o, t) = (side(o, t), side(t, o));
        if !matches(&o.1, &t.1) {
            let us = Party {
                id: me as usize,
                us: true,
            };
            let them = Party {
                id: peer,
                us: false,
            };
            return Err(describe(name, (them, t), (us, o)));
        }
    }
    if theirs.circuit != ours.circuit {
        return Err(format!(
            "party {peer} evaluates a different circuit (hash {}, this party ({me}) has {})",
            short_hash(&theirs.circuit),
            short_hash(&ours.circuit)
        ));
    }
    Ok(())
}

/// A setting's form and value at one party; one it lacks is absent, in the
/// form the other party gave it.
fn side(s: Option<&Setting>, other: Option<&Setting>) -> (Form, Value) {
    match (s, other) {
        (Some(s), _) => (s.form, s.value.clone()),
        (None, Some(o)) => (o.form, Value::Absent),
        (None, None) => (Form::Option, Value::Absent),
    }
}

/// Whether two values of a setting let a run start: equal, one left open,
/// or both offers of a most.
fn matches(a: &Value, b: &Value) -> bool {
    a == b
        || matches!(a, Value::Open)
        || matches!(b, Value::Open)
        || matches!((a, b), (Value::Least(_), Value::Least(_)))
}

/// Our open settings with the value the peers give them: every peer that
/// sets one must give the same value, and at least one must set it. Our
/// offers of a most settle on the least any party offers.
pub(crate) fn settle(
    ours: &Settings,
    hellos: &[Option<Settings>],
) -> Result<Vec<(String, Value)>, String> {
    let mut settled = Vec::new();
    for s in ours.iter() {
        let theirs = hellos
            .iter()
            .enumerate()
            .filter_map(|(p, h)| Some((p, h.as_ref()?.get(&s.name)?)));
        match s.value {
            Value::Least(mine) => {
                let least = theirs
                    .filter_map(|(_, t)| match t.value {
                        Value::Least(n) => Some(n),
                        _ => None,
                    })
                    .fold(mine, u64::min);
                settled.push((s.name.clone(), Value::Number(least)));
            }
            Value::Open => {
                let mut first: Option<(PartyId, &Setting)> = None;
                for (p, t) in theirs.filter(|(_, t)| t.value != Value::Open) {
                    match first {
                        None => first = Some((p, t)),
                        Some((q, seen)) if seen.value != t.value => {
                            let a = Party { id: q, us: false };
                            let b = Party { id: p, us: false };
                            return Err(describe(
                                &s.name,
                                (a, (seen.form, seen.value.clone())),
                                (b, (t.form, t.value.clone())),
                            ));
                        }
                        Some(_) => {}
                    }
                }
                let Some((_, t)) = first else {
                    return Err(format!(
                        "no party sets {}: give it to at least one party",
                        user_name(&s.name, s.form)
                    ));
                };
                settled.push((s.name.clone(), t.value.clone()));
            }
            _ => {}
        }
    }
    Ok(settled)
}

/// A party a message speaks of.
#[derive(Clone, Copy)]
struct Party {
    id: PartyId,
    /// This party.
    us: bool,
}

impl Party {
    fn subject(self) -> String {
        match self.us {
            true => format!("this party ({})", self.id),
            false => format!("party {}", self.id),
        }
    }

    fn possessive(self) -> String {
        match self.us {
            true => "this party's".into(),
            false => format!("party {}'s", self.id),
        }
    }
}

/// How the user names a setting.
fn user_name(name: &str, form: Form) -> String {
    match form {
        Form::Option => format!("--{name}"),
        Form::Job => format!("`{}` in the job file", job_key(name)),
        Form::Lines => format!("the {name}"),
    }
}

fn job_key(name: &str) -> &str {
    name.strip_prefix("job.").unwrap_or(name)
}

/// A value as a message shows it (long ones cut).
fn shown(v: &Value) -> String {
    match v {
        Value::Absent => "nothing".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::Text(t) => clip(t),
        Value::Open => "left open".into(),
        Value::Least(n) => format!("auto (at most {n})"),
    }
}

/// `text` cut to a length that keeps a message on one line.
fn clip(text: &str) -> String {
    const MOST: usize = 40;
    match text.char_indices().nth(MOST) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

fn short_hash(h: &[u8; 32]) -> String {
    let hex: String = h[..6].iter().map(|b| format!("{b:02x}")).collect();
    format!("{hex}…")
}

/// What a run with option `--name` at value `v` is run "with": `named`:
/// the option was named before in the sentence.
fn with_option(name: &str, v: &Value, named: bool) -> String {
    match v {
        Value::Absent | Value::Bool(false) if named => "without it".into(),
        Value::Absent | Value::Bool(false) => format!("without --{name}"),
        Value::Bool(true) => format!("with --{name}"),
        other => format!("with --{name} {}", shown(other)),
    }
}

/// What a party's own source of a setting says: "input file has 2 lines",
/// or, `again` (the same form was just described), only "has 2".
fn source_says(name: &str, form: Form, v: &Value, again: bool) -> String {
    match (form, v, again) {
        (Form::Lines, Value::Number(n), false) => {
            format!("input file has {n} line{}", if *n == 1 { "" } else { "s" })
        }
        (Form::Lines | Form::Job, _, true) => format!("has {}", shown(v)),
        (Form::Lines, _, false) => format!("input file gives {}", shown(v)),
        (Form::Option, _, true) => format!("is {}", shown(v)),
        (Form::Option, _, false) => format!("--{name} is {}", shown(v)),
        (Form::Job, _, false) => format!("job file has {} = {}", job_key(name), shown(v)),
    }
}

/// The message for a setting `name` on which `a` and `b` differ.
fn describe(name: &str, a: (Party, (Form, Value)), b: (Party, (Form, Value))) -> String {
    let (pa, (fa, va)) = a;
    let (pb, (fb, vb)) = b;
    match (fa, fb) {
        (Form::Option, Form::Option) => format!(
            "{} runs {}, {} {}",
            pa.subject(),
            with_option(name, &va, false),
            pb.subject(),
            with_option(name, &vb, true)
        ),
        (Form::Job, Form::Job) => {
            let at = |p: Party| match p.us {
                true => "here".to_string(),
                false => format!("at party {}", p.id),
            };
            // This party's value first, where it is one of the two (`b`).
            let ((p1, v1), (p2, v2)) = if pb.us {
                ((pb, vb), (pa, va))
            } else {
                ((pa, va), (pb, vb))
            };
            format!(
                "the job files differ in `{}`: {} {}, {} {}",
                job_key(name),
                shown(&v1),
                at(p1),
                shown(&v2),
                at(p2)
            )
        }
        _ => {
            let ((p1, f1, v1), (p2, f2, v2)) = if pb.us {
                ((pb, fb, vb), (pa, fa, va))
            } else {
                ((pa, fa, va), (pb, fb, vb))
            };
            let label = match (f1, f2) {
                (Form::Job, Form::Job) => job_key(name).to_string(),
                _ => name.to_string(),
            };
            format!(
                "the {label} differs: {} {}, {} {}",
                p1.possessive(),
                source_says(name, f1, &v1, false),
                p2.possessive(),
                source_says(name, f2, &v2, f1 == f2)
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn hello(party: u32, settings: Settings) -> Hello {
        Hello {
            version: VERSION,
            party,
            parties: 3,
            session: "s".into(),
            circuit: [1; 32],
            settings,
        }
    }

    fn settings(list: &[(&str, Form, Value)]) -> Settings {
        let mut s = Settings::new();
        for (name, form, value) in list {
            s.set(*name, *form, value.clone());
        }
        s
    }

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
    fn a_peer_of_another_version_is_named_with_its_version() {
        // The string hello of version 1, as it began.
        let mut old = b"HUDDLE/1".to_vec();
        old.extend_from_slice(&2u32.to_le_bytes());
        old.extend_from_slice(b"\x03\x00\x00\x00 anything after");
        let theirs = Hello::decode(&old).expect("the version and party are read");
        assert_eq!((theirs.version, theirs.party), (1, 2));
        let e = check_hello(&theirs, 2, &hello(0, Settings::new())).expect_err("version");
        assert!(
            e.starts_with("party 2 speaks hello version 1, this huddle 2"),
            "{e}"
        );
        assert_eq!(Hello::decode(&theirs.encode()), Ok(theirs));
        // A later version, likewise.
        let mut later = b"HUDDLE/".to_vec();
        later.push(VERSION + 1);
        later.extend_from_slice(&1u32.to_le_bytes());
        let theirs = Hello::decode(&later).expect("read");
        let e = check_hello(&theirs, 1, &hello(0, Settings::new())).expect_err("version");
        assert!(
            e.contains("party 1 speaks hello version 3, this huddle 2"),
            "{e}"
        );
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

    fn check(ours: &[(&str, Form, Value)], theirs: &[(&str, Form, Value)]) -> Result<(), String> {
        check_hello(&hello(2, settings(theirs)), 2, &hello(0, settings(ours)))
    }

    #[test]
    fn a_difference_is_named_in_the_users_terms() {
        use Form::*;
        type List = Vec<(&'static str, Form, Value)>;
        let cases: Vec<(List, List, &str)> = vec![
            (
                vec![("verify-every", Option, Value::Absent)],
                vec![("verify-every", Option, Value::Number(3))],
                "party 2 runs with --verify-every 3, this party (0) without it",
            ),
            (
                vec![("split-roles", Option, Value::Bool(true))],
                vec![("split-roles", Option, Value::Bool(false))],
                "party 2 runs without --split-roles, this party (0) with --split-roles",
            ),
            (
                vec![("threads", Option, Value::Least(1))],
                vec![("threads", Option, Value::Number(2))],
                "party 2 runs with --threads 2, this party (0) with --threads auto (at most 1)",
            ),
            (
                vec![("batch", Lines, Value::Number(2))],
                vec![("batch", Lines, Value::Number(1))],
                "the batch differs: this party's input file has 2 lines, party 2's has 1",
            ),
            (
                vec![("batch", Lines, Value::Number(2))],
                vec![("batch", Option, Value::Number(1))],
                "the batch differs: this party's input file has 2 lines, party 2's --batch is 1",
            ),
            (
                vec![("job.owners", Job, Value::Text("[1,0]".into()))],
                vec![("job.owners", Job, Value::Text("[0,1]".into()))],
                "the job files differ in `owners`: [1,0] here, [0,1] at party 2",
            ),
            (
                vec![],
                vec![("corrupt", Option, Value::Number(1))],
                "party 2 runs with --corrupt 1, this party (0) without it",
            ),
        ];
        for (ours, theirs, want) in cases {
            assert_eq!(check(&ours, &theirs), Err(want.to_string()));
        }
        // Long values are cut: the line stays short.
        let long = Value::Text("x".repeat(5000));
        let e =
            check(&[("opt", Option, long)], &[("opt", Option, Value::Absent)]).expect_err("long");
        assert!(
            e.chars().count() <= 200,
            "{} characters: {e}",
            e.chars().count()
        );
    }

    #[test]
    fn open_settings_and_offers_match_and_settle() {
        use Form::Option;
        let open = [
            ("batch", Option, Value::Open),
            ("x", Option, Value::Number(1)),
        ];
        let set = [
            ("batch", Option, Value::Number(40)),
            ("x", Option, Value::Number(1)),
        ];
        check(&open, &set).expect("open matches a value");
        check(&set, &open).expect("and the other way round");
        let e = check(
            &open,
            &[
                ("batch", Option, Value::Number(40)),
                ("x", Option, Value::Number(2)),
            ],
        )
        .expect_err("x differs");
        assert!(e.contains("with --x 2"), "{e}");
        // Offers of a most match each other, not a fixed value.
        check(
            &[("threads", Option, Value::Least(2))],
            &[("threads", Option, Value::Least(4))],
        )
        .expect("offers match");
        assert!(check(
            &[("threads", Option, Value::Least(2))],
            &[("threads", Option, Value::Number(2))]
        )
        .is_err());
        let peers = |a: &[(&str, Form, Value)], b: &[(&str, Form, Value)]| {
            vec![Some(settings(a)), Some(settings(b)), None]
        };
        assert_eq!(
            settle(&settings(&open), &peers(&set, &open)),
            Ok(vec![("batch".to_string(), Value::Number(40))])
        );
        // Offers of a most settle on the least, ours included.
        let offer = |n| [("threads", Option, Value::Least(n))];
        assert_eq!(
            settle(&settings(&offer(4)), &peers(&offer(2), &offer(8))),
            Ok(vec![("threads".to_string(), Value::Number(2))])
        );
        assert_eq!(
            settle(&settings(&offer(1)), &peers(&offer(3), &offer(3))),
            Ok(vec![("threads".to_string(), Value::Number(1))])
        );
        let e = settle(
            &settings(&open),
            &peers(
                &[("batch", Form::Lines, Value::Number(40))],
                &[("batch", Option, Value::Number(41))],
            ),
        )
        .expect_err("peers disagree");
        assert_eq!(
            e,
            "the batch differs: party 0's input file has 40 lines, party 1's --batch is 41"
        );
        let e = settle(&settings(&open), &peers(&open, &open)).expect_err("nobody sets it");
        assert!(e.contains("no party sets --batch"), "{e}");
        assert_eq!(settle(&settings(&set), &peers(&[], &[])), Ok(vec![]));
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
            list in proptest::collection::vec(("[a-z.-]{1,12}", 0..3usize, value()), 0..12),
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
