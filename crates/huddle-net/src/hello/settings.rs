//! The settings of a run as the hello carries them: typed values under
//! stable wire names, each with the form the user gave it in (an option, a
//! job file key, an input file's lines), which is how a message names it.

use std::fmt;

/// How a setting's value was given, which is how a message names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// A command-line option, `--name`.
    Option,
    /// A key of the job file (`--job`); its name is `job.<key>`.
    Job,
    /// The number of lines of this party's input file.
    Lines,
    /// A property of the program a library front end (the Python
    /// package) built and runs; its name is `program.<property>`.
    Program,
}

impl Form {
    pub(super) const ALL: [Form; 4] = [Form::Option, Form::Job, Form::Lines, Form::Program];
}

/// A setting's value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// Not given (e.g. no `--verify-every`).
    Absent,
    /// A flag; matches only the same flag.
    Bool(bool),
    /// A count or size; matches only the same number.
    Number(u64),
    /// A word or name (e.g. a protocol's); matches only the same text.
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
    /// How the user gave it, so a mismatch names it as the user knows it.
    pub form: Form,
    /// What this party offers.
    pub value: Value,
}

/// The settings every party of a run must agree on, in order (the first
/// that differs is the one a mismatch names). Names are unique.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings(pub(super) Vec<Setting>);

impl Settings {
    /// No settings yet.
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

    /// The setting called `name`, if there is one.
    pub fn get(&self, name: &str) -> Option<&Setting> {
        self.0.iter().find(|s| s.name == name)
    }

    /// Every setting, in the order they were first set.
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
