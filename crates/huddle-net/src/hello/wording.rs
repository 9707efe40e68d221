//! A difference between two parties' settings put in the user's terms, in
//! one line: options by their flag, job file keys by their key, an input
//! file by its lines; long values cut.

use super::settings::{Form, Value};
use crate::PartyId;

/// A party a message speaks of.
#[derive(Clone, Copy)]
pub(super) struct Party {
    pub(super) id: PartyId,
    /// This party.
    pub(super) us: bool,
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
pub(super) fn user_name(name: &str, form: Form) -> String {
    match form {
        Form::Option => format!("--{name}"),
        Form::Job => format!("`{}` in the job file", job_key(name)),
        Form::Lines => format!("the {name}"),
        Form::Program => format!("the program's {}", program_property(name)),
    }
}

fn job_key(name: &str) -> &str {
    name.strip_prefix("job.").unwrap_or(name)
}

fn program_property(name: &str) -> &str {
    name.strip_prefix("program.").unwrap_or(name)
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
pub(super) fn clip(text: &str) -> String {
    const MOST: usize = 40;
    match text.char_indices().nth(MOST) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

pub(super) fn short_hash(h: &[u8; 32]) -> String {
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
        (Form::Program, _, true) => format!("has {}", shown(v)),
        (Form::Program, _, false) => format!("program has {} {}", program_property(name), shown(v)),
    }
}

/// The message for a setting `name` on which `a` and `b` differ.
pub(super) fn describe(name: &str, a: (Party, (Form, Value)), b: (Party, (Form, Value))) -> String {
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
        (Form::Job, Form::Job) | (Form::Program, Form::Program) => {
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
            let what = match fa {
                Form::Job => format!("the job files differ in `{}`", job_key(name)),
                _ => format!("the programs differ in their {}", program_property(name)),
            };
            format!(
                "{what}: {} {}, {} {}",
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
