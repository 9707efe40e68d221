//! [`Program`]: declaring inputs, public parameters and constants, and
//! naming outputs; the operators live in the sibling files, compiling in
//! `compile.rs`.

use super::error::{shape_error, usage_error, value_error, ErrorKind, ProgramError, Result};
use super::interface::{InputSpec, OutputSpec, PublicSpec};
use super::types::{Number, Shape, Type};
use super::value::{Operand, Receiver, Value};
use crate::builder::Builder;
use crate::model::{Domain, WireId, MAX_FAN_IN};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Most wires one value may hold: far beyond any circuit a run can hold,
/// small enough that wire numbers never overflow.
const MAX_VALUE_WIRES: usize = 1 << 28;

/// The name of the output that says whether the parties gave the same
/// public parameters (see [`Program::public`]).
pub const PUBLIC_OK: &str = "public_ok";

/// Tells programs apart, so a value is never used in another program.
static NEXT_ID: AtomicU64 = AtomicU64::new(0);

/// A secret computation under construction. See the module documentation.
pub struct Program {
    pub(super) id: u64,
    pub(super) parties: usize,
    pub(super) builder: Builder,
    /// What fixed the ring, for messages.
    pub(super) ring_origin: Option<String>,
    /// The owner of every circuit input value, in order.
    pub(super) owners: Vec<usize>,
    pub(super) inputs: Vec<InputSpec>,
    pub(super) publics: Vec<PublicSpec>,
    /// Per public parameter: every party's copy (party 0's is the one used).
    pub(super) public_copies: Vec<Vec<Value>>,
    pub(super) outputs: Vec<(OutputSpec, Vec<WireId>)>,
    pub(super) names: BTreeSet<String>,
}

/// A variable-length input: `values` holds the declared maximum of rows,
/// `valid` (bits, one per row) says which rows the party gave; the rows
/// after them are zeros. The row count stays secret: only what the program
/// computes from `valid` reveals anything of it.
#[derive(Clone, Debug)]
pub struct Rows {
    /// The rows: shape (max,) or (max, columns).
    pub values: Value,
    /// One bit per row, 1 for a row the party gave.
    pub valid: Value,
}

impl Program {
    /// An empty program for `parties` parties (party ids 0..parties), whose
    /// ANDs take two inputs (raise the fan-in with [`Program::with_fan_in`]
    /// or the optimizer after compiling).
    pub fn new(parties: usize) -> Result<Program> {
        if parties == 0 {
            return usage_error("a program needs at least one party");
        }
        Ok(Program {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            parties,
            builder: Builder::boolean(2),
            ring_origin: None,
            owners: Vec::new(),
            inputs: Vec::new(),
            publics: Vec::new(),
            public_copies: Vec::new(),
            outputs: Vec::new(),
            names: BTreeSet::new(),
        })
    }

    /// The same program with ANDs of up to `fan_in` inputs (2..=16) in the
    /// trees it builds (equality, comparisons, adders); before any value.
    pub fn with_fan_in(mut self, fan_in: usize) -> Result<Program> {
        if !(2..=MAX_FAN_IN).contains(&fan_in) {
            return value_error(format!(
                "the AND fan-in must be 2 to {MAX_FAN_IN}, not {fan_in}"
            ));
        }
        if !self.names.is_empty() {
            return usage_error("set the fan-in before declaring any value");
        }
        self.builder = Builder::boolean(fan_in);
        Ok(self)
    }

    /// The number of parties.
    pub fn parties(&self) -> usize {
        self.parties
    }

    /// A secret input of `party`: a value of `ty` and `shape` it gives at
    /// run time.
    pub fn input(&mut self, party: usize, ty: Type, shape: Shape, name: &str) -> Result<Value> {
        let op = format!("input {name:?}");
        self.check_party(&op, party)?;
        self.claim(&op, name)?;
        let v = self.declare(&op, party, ty, shape, name)?;
        self.inputs.push(InputSpec {
            name: name.into(),
            party,
            ty,
            shape,
            max_rows: None,
            values: vec![self.owners.len() - 1],
        });
        Ok(v)
    }

    /// A variable-length input of `party`: up to `max_rows` rows of
    /// `row_shape` (a scalar or a vector of columns) and their validity
    /// bits. It becomes two circuit input values, the rows then the bits
    /// (the layout of the CLI's whole-table inputs, docs/circuit-format.md).
    pub fn input_rows(
        &mut self,
        party: usize,
        ty: Type,
        row_shape: Shape,
        max_rows: usize,
        name: &str,
    ) -> Result<Rows> {
        let op = format!("input {name:?}");
        self.check_party(&op, party)?;
        let shape = match row_shape {
            Shape::Scalar => Shape::Vector(max_rows),
            Shape::Vector(c) => Shape::Matrix(max_rows, c),
            Shape::Matrix(..) => {
                return shape_error(format!(
                    "{op}: rows are scalars or vectors, not matrices {row_shape}"
                ))
            }
        };
        if max_rows == 0 {
            return value_error(format!("{op}: the maximum number of rows must be positive"));
        }
        self.claim(&op, name)?;
        let values = self.declare(&op, party, ty, shape, name)?;
        let valid = self.declare(&op, party, Type::Bit, Shape::Vector(max_rows), name)?;
        let n = self.owners.len();
        self.inputs.push(InputSpec {
            name: name.into(),
            party,
            ty,
            shape,
            max_rows: Some(max_rows),
            values: vec![n - 2, n - 1],
        });
        Ok(Rows { values, valid })
    }

    /// A public parameter given at run time: every party gives its copy
    /// (its own input value), the program computes with party 0's, and
    /// compiling adds the output [`PUBLIC_OK`], 1 if all copies agree, and
    /// makes every output 0 unless they do. So no party alone chooses a
    /// public parameter: one that gives a different value than the others
    /// learns nothing but the disagreement. The copies are secret-shared
    /// like any input, so the protocols gain nothing from knowing them;
    /// what the circuit's shape depends on (shift amounts, lengths) must be
    /// known when the program is built.
    pub fn public(&mut self, name: &str, ty: Type, shape: Shape) -> Result<Value> {
        let op = format!("public {name:?}");
        self.claim(&op, name)?;
        let mut copies = Vec::with_capacity(self.parties);
        let mut values = Vec::with_capacity(self.parties);
        for party in 0..self.parties {
            copies.push(self.declare(&op, party, ty, shape, name)?);
            values.push(self.owners.len() - 1);
        }
        self.publics.push(PublicSpec {
            name: name.into(),
            ty,
            shape,
            values,
        });
        let used = copies[0].clone();
        self.public_copies.push(copies);
        Ok(used)
    }

    /// A public constant of `ty` and `shape`: `numbers` holds one number
    /// per element (row after row), or one for all.
    pub fn constant(&mut self, ty: Type, shape: Shape, numbers: &[Number]) -> Result<Value> {
        let op = format!("constant of {ty} {shape}");
        let ty = self.use_type(&op, ty)?;
        self.check_size(&op, ty, shape)?;
        if numbers.len() != shape.len() && numbers.len() != 1 {
            return shape_error(format!(
                "{op}: {} numbers given for {} elements",
                numbers.len(),
                shape.len()
            ));
        }
        let mut wires = Vec::with_capacity(shape.len() * ty.wires());
        for i in 0..shape.len() {
            let n = numbers[if numbers.len() == 1 { 0 } else { i }];
            let raw = ty
                .encode(n)
                .or_else(|e| value_error(format!("{op}: {e}")))?;
            self.constant_element(ty, raw, &mut wires);
        }
        Ok(self.value(ty, shape, wires))
    }

    /// Reveals `value` to `to` under `name` (names are unique among outputs).
    pub fn reveal(&mut self, value: &Value, to: Receiver, name: &str) -> Result<()> {
        let op = format!("reveal {name:?}");
        self.own(&op, value)?;
        check_name(&op, name)?;
        if let Receiver::Party(p) = to {
            self.check_party(&op, p)?;
        }
        if name == PUBLIC_OK || self.outputs.iter().any(|(o, _)| o.name == name) {
            return value_error(format!("{op}: an output is already named {name:?}"));
        }
        if value.shape.is_empty() {
            return shape_error(format!("{op}: the value has no elements"));
        }
        let spec = OutputSpec {
            name: name.into(),
            to,
            ty: value.ty,
            shape: value.shape,
            value: self.outputs.len(),
            mask: None,
        };
        self.outputs.push((spec, value.wires.to_vec()));
        Ok(())
    }

    /// The value a literal stands for next to `other`: a scalar constant of
    /// its type.
    pub(super) fn operand(&mut self, op: &str, x: Operand, other: Option<Type>) -> Result<Value> {
        match (x, other) {
            (Operand::Value(v), _) => {
                self.own(op, v)?;
                Ok(v.clone())
            }
            (Operand::Literal(n), Some(ty)) => {
                let raw = ty
                    .encode(n)
                    .or_else(|e| value_error(format!("{op}: {e}")))?;
                let mut wires = Vec::with_capacity(ty.wires());
                self.constant_element(ty, raw, &mut wires);
                Ok(self.value(ty, Shape::Scalar, wires))
            }
            (Operand::Literal(_), None) => {
                usage_error(format!("{op}: at least one operand must be a secret value"))
            }
        }
    }

    /// Appends the wires of the constant element `raw` of `ty`.
    fn constant_element(&mut self, ty: Type, raw: u64, wires: &mut Vec<WireId>) {
        match ty.domain() {
            Domain::Bit => {
                for j in 0..ty.bits() {
                    wires.push(self.builder.constant((raw >> j) & 1 == 1));
                }
            }
            Domain::Ring => wires.push(super::ring::constant(&mut self.builder, raw)),
        }
    }

    /// Declares one circuit input value of `party`.
    pub(super) fn declare(
        &mut self,
        op: &str,
        party: usize,
        ty: Type,
        shape: Shape,
        name: &str,
    ) -> Result<Value> {
        let ty = self.use_type(op, ty)?;
        self.check_size(op, ty, shape)?;
        let n = (shape.len() * ty.wires()) as u32;
        let wires = match ty.domain() {
            Domain::Bit => self.builder.input(name, n),
            Domain::Ring => self.builder.ring_input(name, n),
        };
        self.owners.push(party);
        Ok(self.value(ty, shape, wires))
    }

    /// A value of this program over `wires`.
    pub(super) fn value(&self, ty: Type, shape: Shape, wires: Vec<WireId>) -> Value {
        debug_assert_eq!(wires.len(), shape.len() * ty.wires());
        Value {
            program: self.id,
            ty,
            shape,
            wires: Arc::from(wires),
        }
    }

    /// Checks `ty` and that it fits the program's one ring (fixing the ring
    /// if it is the first ring type).
    pub(super) fn use_type(&mut self, op: &str, ty: Type) -> Result<Type> {
        let ty = ty.check().or_else(|e| value_error(format!("{op}: {e}")))?;
        if let Some(ring) = ty.ring() {
            match (self.builder.ring(), &self.ring_origin) {
                (Some(have), Some(origin)) if have != ring => {
                    return Err(ProgramError::new(
                        ErrorKind::Ring,
                        format!(
                            "{op}: {ty} computes in Z_2^{}, but this program's ring is Z_2^{} \
                             (since {origin}); a program has one ring width",
                            ring.bits(),
                            have.bits()
                        ),
                    ));
                }
                (Some(_), _) => {}
                (None, _) => {
                    self.builder.set_ring(ring);
                    self.ring_origin = Some(format!("{op}, of type {ty}"));
                }
            }
        }
        Ok(ty)
    }

    /// Refuses a value of another program.
    pub(super) fn own(&self, op: &str, v: &Value) -> Result<()> {
        if v.program != self.id {
            return usage_error(format!(
                "{op}: the value {} belongs to another program",
                v.describe()
            ));
        }
        Ok(())
    }

    fn check_size(&self, op: &str, ty: Type, shape: Shape) -> Result<()> {
        let dims = shape.dims();
        let elements = dims.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
        match elements.and_then(|e| e.checked_mul(ty.wires())) {
            Some(w) if w <= MAX_VALUE_WIRES => Ok(()),
            _ => shape_error(format!(
                "{op}: a value of {ty} {shape} is too large (at most {MAX_VALUE_WIRES} wires)"
            )),
        }
    }

    fn check_party(&self, op: &str, party: usize) -> Result<()> {
        if party >= self.parties {
            return usage_error(format!(
                "{op}: party {party} does not exist; the program has parties 0 to {}",
                self.parties - 1
            ));
        }
        Ok(())
    }

    /// Takes `name` for an input or public parameter.
    fn claim(&mut self, op: &str, name: &str) -> Result<()> {
        check_name(op, name)?;
        if !self.names.insert(name.to_string()) {
            return value_error(format!(
                "{op}: an input or public parameter is already named {name:?}"
            ));
        }
        Ok(())
    }
}

/// Names are 1 to 64 ASCII letters, digits, `_` and `-`, so every file
/// format and interface can carry them as they are.
fn check_name(op: &str, name: &str) -> Result<()> {
    let fine = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if name.is_empty() || name.len() > 64 || !name.chars().all(fine) {
        return value_error(format!(
            "{op}: a name is 1 to 64 ASCII letters, digits, '_' and '-'"
        ));
    }
    Ok(())
}
