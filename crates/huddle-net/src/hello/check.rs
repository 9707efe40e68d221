//! Whether a peer's hello lets the run start: the first difference named
//! in the user's terms (a value left open matches any, offers of a most
//! match each other), and what the settings left open or offered as a most
//! settle on once every peer's hello is in.

use super::settings::{Form, Setting, Settings, Value};
use super::wire::Hello;
use super::wording::{clip, describe, short_hash, user_name, Party};
use crate::PartyId;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hello::testing::{hello, settings};
    use crate::hello::VERSION;

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
                vec![("program.interface", Program, Value::Text("1a2b".into()))],
                vec![("program.interface", Program, Value::Text("3c4d".into()))],
                "the programs differ in their interface: 1a2b here, 3c4d at party 2",
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
}
