//! Vectors over GF(2) packed in a `u32`: which of them sum to a target
//! ([`solve`]), an echelon basis that grows one vector at a time
//! ([`Echelon`]), and the set bits of a mask ([`bits_of`]). Shared by the
//! field, inversion and depth-2 searches.

/// Which of `vectors` (bit i = vector i) XOR to `target`, if any (GF(2)).
pub(super) fn solve(vectors: &[u32], target: u32) -> Option<u32> {
    // Echelon basis with distinct leading bits, highest first.
    let mut basis: Vec<(u32, u32)> = Vec::new();
    for (i, &v) in vectors.iter().enumerate() {
        let (v, combo) = reduce(&basis, v, 1 << i);
        if v != 0 {
            basis.push((v, combo));
            basis.sort_by_key(|&(b, _)| std::cmp::Reverse(b.leading_zeros() ^ 31));
        }
    }
    let (rest, combo) = reduce(&basis, target, 0);
    (rest == 0).then_some(combo)
}

fn reduce(basis: &[(u32, u32)], mut v: u32, mut combo: u32) -> (u32, u32) {
    for &(b, c) in basis {
        let lead = 31 - b.leading_zeros();
        if v >> lead & 1 == 1 {
            v ^= b;
            combo ^= c;
        }
    }
    (v, combo)
}

/// Echelon basis over GF(2) with distinct leading bits.
#[derive(Clone, Default)]
pub(super) struct Echelon {
    rows: Vec<u32>,
}

impl Echelon {
    pub(super) fn reduce(&self, mut v: u32) -> u32 {
        for &r in &self.rows {
            if v >> (31 - r.leading_zeros()) & 1 == 1 {
                v ^= r;
            }
        }
        v
    }

    /// Adds `v`; false if it was already in the span.
    pub(super) fn insert(&mut self, v: u32) -> bool {
        let v = self.reduce(v);
        if v == 0 {
            return false;
        }
        self.rows.push(v);
        self.rows
            .sort_by_key(|r| std::cmp::Reverse(31 - r.leading_zeros()));
        true
    }

    pub(super) fn dim(&self) -> usize {
        self.rows.len()
    }
}

pub(super) fn bits_of(mask: u32) -> impl Iterator<Item = usize> {
    (0..32).filter(move |i| mask >> i & 1 == 1)
}
