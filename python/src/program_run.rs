//! Running a compiled program: its inputs and public parameters from the
//! forms Python gives them in (docs/python.md, "Programs"), encoded per
//! party by the program layer ([`Interface::party_inputs`]); its outputs
//! unmasked with the parties' one-time pads and decoded by name and type
//! ([`Pads::decode`]); who the engine reveals to; and what the hello adds
//! (the interface's digest).

use crate::errors::input;
use crate::program_data::{fixed, rows, to_numpy, Given};
use crate::report::Outputs;
use huddle_circuit::program::{ErrorKind, Interface, Pads, ProgramError};
use huddle_circuit::BitMatrix;
use huddle_net::{Form, Settings, Value as Setting};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::collections::BTreeMap;

/// Per party, its values by name (inputs and its copies of the publics).
type ByParty<'py> = Vec<BTreeMap<String, Bound<'py, PyAny>>>;

/// Parties' circuit input values (each party's in circuit order) and the batch.
struct Encoded {
    per_party: Vec<Vec<BitMatrix>>,
    /// The parties' one-time pads, drawn as their values were finished.
    pads: Vec<Pads>,
    batch: usize,
}

/// One party's circuit input values by index, and the batch they give
/// (None: no values, the batch is the others').
pub(crate) struct OwnInputs {
    pub(crate) values: Vec<(usize, BitMatrix)>,
    pub(crate) batch: Option<usize>,
    /// Its one-time pads (None: it owns no value, so none is masked for it).
    pub(crate) pads: Option<Pads>,
}

/// A program layer's refusal of given values: an InputError; the one
/// failure that is not the caller's (no randomness for the pads) is not.
fn program_input(e: ProgramError) -> PyErr {
    match e.kind {
        ErrorKind::Entropy => crate::errors::InternalError::new_err(e.message),
        _ => input(e.message),
    }
}

/// The party count and the receiver of a run of the program: its own. A
/// caller's other choice is refused (a program's receivers are its
/// reveal()s').
pub(crate) fn choices(
    interface: &Interface,
    parties: Option<usize>,
    reveal_to: Option<usize>,
) -> PyResult<(Option<usize>, Option<usize>)> {
    if let Some(n) = parties.filter(|&n| n != interface.parties) {
        return Err(input(format!(
            "the program is for {} parties, not {n}",
            interface.parties
        )));
    }
    if reveal_to.is_some() {
        return Err(input(
            "a program's outputs go to the parties its reveal(to=...) names; reveal_to is for circuits",
        ));
    }
    Ok((Some(interface.parties), engine_reveal_to(interface)?))
}

/// The party the engine reveals every output to (None: every party; the
/// outputs for single parties are then masked with their pads).
fn engine_reveal_to(interface: &Interface) -> PyResult<Option<usize>> {
    interface.reveal_to().map_err(program_input)
}

/// The hello's settings after the engine's: the interface's digest, so
/// that hosts running one circuit with different interfaces (names,
/// types, receivers) stop at connect naming it.
pub(crate) fn hello_settings(interface: &Interface) -> (Settings, Settings) {
    let digest = interface.digest()[..16].to_string();
    let mut last = Settings::new();
    last.set("program.interface", Form::Program, Setting::Text(digest));
    (Settings::new(), last)
}

/// Every party's values from run_local's or evaluate's `inputs` and
/// `publics`, as the circuit's input values in order, the batch and every
/// party's pads.
pub(crate) fn all_inputs(
    interface: &Interface,
    inputs: Option<&Bound<'_, PyAny>>,
    publics: Option<&Bound<'_, PyAny>>,
    batch: Option<usize>,
) -> PyResult<(Vec<BitMatrix>, usize, Pads)> {
    let mut by_party: ByParty<'_> = vec![BTreeMap::new(); interface.parties];
    if let Some(given) = inputs.filter(|g| !g.is_none()) {
        sort_inputs(interface, given, &mut by_party)?;
    }
    if let Some(given) = publics.filter(|g| !g.is_none()) {
        sort_publics(interface, given, &mut by_party)?;
    }
    let parties: Vec<usize> = (0..interface.parties).collect();
    let encoded = encode(interface, by_party, batch, &parties)?;
    let merged = interface.merge(encoded.per_party).map_err(program_input)?;
    let pads = Pads::join(encoded.pads).map_err(program_input)?;
    Ok((merged, encoded.batch, pads))
}

/// One party's values (Party.run): `inputs` a dict by name, or the value of
/// its one input; `publics` a dict by name.
pub(crate) fn own_inputs(
    interface: &Interface,
    me: usize,
    inputs: Option<&Bound<'_, PyAny>>,
    publics: Option<&Bound<'_, PyAny>>,
    batch: Option<usize>,
) -> PyResult<OwnInputs> {
    let mut by_party: ByParty<'_> = vec![BTreeMap::new(); interface.parties];
    let Some(mine) = by_party.get_mut(me) else {
        return Err(input(format!(
            "party {me} is not a party of this program ({} parties)",
            interface.parties
        )));
    };
    if let Some(given) = inputs.filter(|g| !g.is_none()) {
        party_values(interface, me, given, mine)?;
    }
    if let Some(given) = publics.filter(|g| !g.is_none()) {
        for (name, value) in named(given, "publics")? {
            public_name(interface, &name)?;
            mine.insert(name, value);
        }
    }
    let owned = interface.owned_by(me);
    if owned.is_empty() {
        return Ok(OwnInputs {
            values: Vec::new(),
            batch,
            pads: None,
        });
    }
    let mut encoded = encode(interface, by_party, batch, &[me])?;
    let values = encoded.per_party.remove(0);
    Ok(OwnInputs {
        values: owned.into_iter().zip(values).collect(),
        batch: Some(encoded.batch),
        pads: encoded.pads.pop(),
    })
}

/// `inputs` of run_local/evaluate: {party: {name: value}}, {party: value}
/// (a party with one input) or {name: value}.
fn sort_inputs<'py>(
    interface: &Interface,
    given: &Bound<'py, PyAny>,
    by_party: &mut ByParty<'py>,
) -> PyResult<()> {
    let dict = given.cast::<PyDict>().map_err(|_| {
        input("a program's inputs are a dict: {party: {name: array}}, {party: array} or {name: array}")
    })?;
    for (key, value) in dict.iter() {
        if let Ok(name) = key.extract::<String>() {
            let spec = interface
                .input(&name)
                .ok_or_else(|| unknown_input(interface, &name))?;
            put(&mut by_party[spec.party], name, value)?;
            continue;
        }
        let party: usize = key
            .extract()
            .map_err(|_| input("inputs are keyed by party (int) or input name (str)"))?;
        let slot = by_party.get_mut(party).ok_or_else(|| {
            input(format!(
                "inputs of party {party}: the program has parties 0 to {}",
                interface.parties - 1
            ))
        })?;
        party_values(interface, party, &value, slot)?;
    }
    Ok(())
}

/// A party's inputs: a dict by name, or the value of its one input.
fn party_values<'py>(
    interface: &Interface,
    party: usize,
    given: &Bound<'py, PyAny>,
    slot: &mut BTreeMap<String, Bound<'py, PyAny>>,
) -> PyResult<()> {
    let own: Vec<&str> = interface
        .inputs
        .iter()
        .filter(|s| s.party == party)
        .map(|s| s.name.as_str())
        .collect();
    if given.is_instance_of::<PyDict>() {
        for (name, value) in named(given, "inputs")? {
            if !own.contains(&name.as_str()) {
                return Err(match interface.input(&name) {
                    Some(s) => input(format!(
                        "input {name:?} belongs to party {}, not party {party}",
                        s.party
                    )),
                    None => unknown_input(interface, &name),
                });
            }
            put(slot, name, value)?;
        }
        return Ok(());
    }
    match own.as_slice() {
        [name] => put(slot, name.to_string(), given.clone()),
        [] => Err(input(format!("party {party} has no input in this program"))),
        names => Err(input(format!(
            "party {party} has {} inputs ({}): give a dict by name",
            names.len(),
            names.join(", ")
        ))),
    }
}

/// `publics`: {name: value} (every party the same copy) or {party: {name:
/// value}} (each party its own).
fn sort_publics<'py>(
    interface: &Interface,
    given: &Bound<'py, PyAny>,
    by_party: &mut ByParty<'py>,
) -> PyResult<()> {
    let dict = given.cast::<PyDict>().map_err(|_| {
        input("publics are a dict: {name: value}, or {party: {name: value}} for each party's copy")
    })?;
    for (key, value) in dict.iter() {
        if let Ok(name) = key.extract::<String>() {
            public_name(interface, &name)?;
            for slot in by_party.iter_mut() {
                put(slot, name.clone(), value.clone())?;
            }
            continue;
        }
        let party: usize = key
            .extract()
            .map_err(|_| input("publics are keyed by name (str) or party (int)"))?;
        let slot = by_party.get_mut(party).ok_or_else(|| {
            input(format!(
                "publics of party {party}: the program has parties 0 to {}",
                interface.parties - 1
            ))
        })?;
        for (name, v) in named(&value, "publics")? {
            public_name(interface, &name)?;
            put(slot, name, v)?;
        }
    }
    Ok(())
}

fn public_name(interface: &Interface, name: &str) -> PyResult<()> {
    if interface.public(name).is_some() {
        return Ok(());
    }
    let list: Vec<&str> = interface.publics.iter().map(|p| p.name.as_str()).collect();
    Err(input(format!(
        "the program has no public parameter {name:?} (it has: {})",
        if list.is_empty() {
            "none".into()
        } else {
            list.join(", ")
        }
    )))
}

fn unknown_input(interface: &Interface, name: &str) -> PyErr {
    if interface.public(name).is_some() {
        return input(format!(
            "{name:?} is a public parameter: give it in publics="
        ));
    }
    let list: Vec<&str> = interface.inputs.iter().map(|i| i.name.as_str()).collect();
    input(format!(
        "the program has no input {name:?} (it has: {})",
        list.join(", ")
    ))
}

/// The (name, value) pairs of a dict keyed by name.
fn named<'py>(given: &Bound<'py, PyAny>, what: &str) -> PyResult<Vec<(String, Bound<'py, PyAny>)>> {
    let dict = given
        .cast::<PyDict>()
        .map_err(|_| input(format!("{what} of a party are a dict by name")))?;
    dict.iter()
        .map(|(k, v)| {
            let name: String = k
                .extract()
                .map_err(|_| input(format!("{what} of a party are keyed by name (str)")))?;
            Ok((name, v))
        })
        .collect()
}

fn put<'py>(
    slot: &mut BTreeMap<String, Bound<'py, PyAny>>,
    name: String,
    value: Bound<'py, PyAny>,
) -> PyResult<()> {
    if slot.contains_key(&name) {
        return Err(input(format!("{name:?} is given twice")));
    }
    slot.insert(name, value);
    Ok(())
}

/// The values of `parties` read, brought to one batch (the given one, else
/// the most instances any value gives) and encoded party by party.
fn encode(
    interface: &Interface,
    by_party: ByParty<'_>,
    batch: Option<usize>,
    parties: &[usize],
) -> PyResult<Encoded> {
    let mut read: Vec<Vec<(String, String, Given)>> = Vec::with_capacity(by_party.len());
    for (party, values) in by_party.into_iter().enumerate() {
        let mut list = Vec::with_capacity(values.len());
        for (name, value) in values {
            let (what, given) = read_value(interface, party, &name, &value)?;
            list.push((name, what, given));
        }
        read.push(list);
    }
    let batch = batch.unwrap_or_else(|| {
        read.iter()
            .flatten()
            .map(|(_, _, g)| g.instances)
            .max()
            .unwrap_or(1)
    });
    let mut per_party = Vec::with_capacity(parties.len());
    let mut pads = Vec::with_capacity(parties.len());
    for &party in parties {
        let mut values = interface.party_inputs(party, batch);
        for (name, what, given) in std::mem::take(&mut read[party]) {
            let given = given.for_batch(batch, &what)?;
            match &given.rows {
                Some(rows) => values.set_rows_each(&name, &given.data, rows),
                None => values.set(&name, &given.data),
            }
            .map_err(program_input)?;
        }
        let (rows, drawn) = values.finish().map_err(program_input)?;
        per_party.push(rows);
        pads.push(drawn);
    }
    Ok(Encoded {
        per_party,
        pads,
        batch,
    })
}

/// One value of `party` as numbers: `what` names it in errors.
fn read_value(
    interface: &Interface,
    party: usize,
    name: &str,
    value: &Bound<'_, PyAny>,
) -> PyResult<(String, Given)> {
    if let Some(p) = interface.public(name) {
        let what = format!("public {name:?} ({} {}) of party {party}", p.ty, p.shape);
        let given = fixed(value, p.shape, &what)?;
        return Ok((what, given));
    }
    let spec = interface
        .input(name)
        .ok_or_else(|| unknown_input(interface, name))?;
    let what = format!("input {name:?} ({} {})", spec.ty, spec.shape);
    let given = match spec.max_rows {
        None => fixed(value, spec.shape, &what)?,
        Some(_) => rows(value, &spec.shape.dims()[1..], &what)?,
    };
    Ok((what, given))
}

/// The outputs the holders of `pads` learn, unmasked and decoded, as typed
/// numpy arrays by name (the pads are spent: they decode this run only).
pub(crate) fn outputs(
    py: Python<'_>,
    interface: &Interface,
    matrices: &[BitMatrix],
    pads: Pads,
) -> PyResult<Outputs> {
    let batch = matrices.first().map_or(0, BitMatrix::rows);
    let learned = pads
        .decode(interface, matrices)
        .map_err(|e| crate::errors::InternalError::new_err(format!("decoding the outputs: {e}")))?;
    let mut names = Vec::new();
    let mut arrays = Vec::new();
    for (name, data) in learned.into_learned() {
        let shape = interface
            .output(&name)
            .map(|o| o.shape)
            .ok_or_else(|| crate::errors::InternalError::new_err(format!("no output {name:?}")))?;
        arrays.push(to_numpy(py, data, batch, shape)?.unbind());
        names.push(name);
    }
    Ok(Outputs::typed(names, arrays))
}

/// The pads of a party that owns no input value: none masked for it, for
/// the `batch` its run had.
pub(crate) fn no_pads(interface: &Interface, party: usize, batch: usize) -> PyResult<Pads> {
    let (_, pads) = interface
        .party_inputs(party, batch)
        .finish()
        .map_err(program_input)?;
    Ok(pads)
}
