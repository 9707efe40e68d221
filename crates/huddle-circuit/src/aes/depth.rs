//! [`SboxDepth`]: the S-box's AND-depth, which every other part of the
//! generator reads (the searches, the synthesis, the fan-in of the cipher's
//! builder). On its own so that it depends on nothing.

/// AND-depth of the S-box; it fixes the largest AND fan-in (2, 3 or 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SboxDepth {
    /// AND-depth 4, 2-input ANDs only.
    Four,
    /// AND-depth 3, ANDs of up to 3 inputs.
    Three,
    /// AND-depth 2, ANDs of up to 4 inputs.
    Two,
}

impl SboxDepth {
    /// The S-box a fan-in budget allows: 2 → depth 4, 3 → depth 3, ≥ 4 → depth 2.
    pub fn for_fan_in(fan_in: usize) -> SboxDepth {
        match fan_in {
            0..=2 => SboxDepth::Four,
            3 => SboxDepth::Three,
            _ => SboxDepth::Two,
        }
    }

    /// The S-box's AND-depth: 4, 3 or 2.
    pub fn and_depth(self) -> u32 {
        match self {
            SboxDepth::Four => 4,
            SboxDepth::Three => 3,
            SboxDepth::Two => 2,
        }
    }

    /// The largest AND fan-in the S-box uses: 2, 3 or 4.
    pub fn fan_in(self) -> usize {
        match self {
            SboxDepth::Four => 2,
            SboxDepth::Three => 3,
            SboxDepth::Two => 4,
        }
    }

    pub(super) fn index(self) -> usize {
        match self {
            SboxDepth::Four => 0,
            SboxDepth::Three => 1,
            SboxDepth::Two => 2,
        }
    }
}
