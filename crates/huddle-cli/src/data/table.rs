//! `--as vector`: a whole file is one instance whose input values are its
//! columns. The values a file gives (a party's own, in order) must be a
//! table input (docs/circuit-format.md): one or more columns of N rows (a
//! ring value of N elements, or a Boolean value of N·b bits, row i in bits
//! i·b..i·b+b−1), then a Boolean value of N bits, the validity: bit i is 1
//! for a row of the file, 0 for padding. Line i of the file fills row i of
//! every column; the rows after the file's last are zeros with validity 0,
//! so the circuit learns nothing of the row count but what it computes.

use super::field::{codec, put_bits, Codec};
use super::records::Records;
use super::style::Style;
use huddle_circuit::{BitMatrix, Circuit, Domain};
use std::io::BufRead;

/// How a table's columns sit in the values of a file.
pub struct Layout {
    /// The columns' value widths in bits and their fields' codecs.
    columns: Vec<(usize, Codec)>,
    /// The columns' names, for errors.
    names: String,
    /// N: the most rows, public.
    rows: usize,
}

impl Layout {
    /// The table of input values `values` of `circuit`, or why they are not one.
    pub fn of(circuit: &Circuit, values: &[usize], style: Style) -> Result<Layout, String> {
        let named = |i: usize| {
            let name = &circuit.inputs()[i].name;
            if name.is_empty() || *name == format!("input{i}") {
                format!("input value {i}")
            } else {
                format!("input value {i} ({name})")
            }
        };
        let not_a_table = |why: String| {
            let list: Vec<String> = values.iter().map(|v| v.to_string()).collect();
            format!(
                "--as vector: the input values this file gives ({}) are not a table input: {why} \
                 (a table is one or more columns of N rows, then N validity bits; \
                 docs/circuit-format.md)",
                list.join(", ")
            )
        };
        let (&valid, columns) = values
            .split_last()
            .filter(|(_, c)| !c.is_empty())
            .ok_or_else(|| {
                not_a_table("it takes at least a column and the validity bits".into())
            })?;
        if circuit.inputs()[valid].domain != Domain::Bit {
            return Err(not_a_table(format!(
                "the last, {}, is a ring value, not validity bits",
                named(valid)
            )));
        }
        let rows = circuit.input_bits(valid);
        if rows == 0 {
            return Err(not_a_table(format!("{} has no bits", named(valid))));
        }
        let columns = columns
            .iter()
            .map(|&i| {
                let (domain, bits) = (circuit.inputs()[i].domain, circuit.input_bits(i));
                let codec = codec(circuit, domain, bits / rows, style);
                let per_row = match domain {
                    Domain::Ring => codec.bits,
                    Domain::Bit => bits / rows,
                };
                if bits != rows * per_row || per_row == 0 {
                    return Err(not_a_table(format!(
                        "{} has {bits} bits, not {rows} rows ({} has {rows} validity bits)",
                        named(i),
                        named(valid)
                    )));
                }
                Ok((bits, codec))
            })
            .collect::<Result<_, _>>()?;
        let names: Vec<String> = values[..values.len() - 1]
            .iter()
            .map(|&i| named(i))
            .collect();
        Ok(Layout {
            columns,
            rows,
            names: names.join(", "),
        })
    }

    /// The one instance of `records`: a matrix of one row per column, then
    /// the validity bits. More lines than the table's rows are refused,
    /// naming both counts.
    pub fn read(
        &self,
        mut records: Records<impl BufRead>,
        style: Style,
    ) -> Result<Vec<BitMatrix>, String> {
        let mut columns: Vec<BitMatrix> = self
            .columns
            .iter()
            .map(|&(bits, _)| BitMatrix::zeros(1, bits))
            .collect();
        let mut valid = BitMatrix::zeros(1, self.rows);
        let (mut row, mut header_skipped) = (0usize, !style.header);
        while let Some(line) = records.next_line()? {
            if !header_skipped {
                header_skipped = true;
                continue;
            }
            if row >= self.rows {
                // Counted to the end, so that the error names the file's size.
                let mut more = 1;
                while records.next_line()?.is_some() {
                    more += 1;
                }
                return Err(format!(
                    "the file has {} rows, but the circuit's table takes at most {} (its public maximum): \
                     generate the circuit for more rows, or split the file",
                    self.rows + more,
                    self.rows
                ));
            }
            if line.count() != self.columns.len() {
                let what = format!("one per column of the table: {}", self.names);
                return Err(line.wrong_count(self.columns.len(), &what));
            }
            for (c, text) in line.fields().enumerate() {
                let codec = self.columns[c].1;
                let words = text
                    .and_then(|t| codec.parse(t))
                    .map_err(|e| format!("line {} column {}: {e}", line.number, c + 1))?;
                put_bits(columns[c].row_mut(0), row * codec.bits, &words, codec.bits);
            }
            valid.row_mut(0)[row / 64] |= 1 << (row % 64);
            row += 1;
        }
        columns.push(valid);
        Ok(columns)
    }
}
