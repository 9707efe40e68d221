//! The message types of each malicious secret-sharing protocol: the
//! targets of fault injection ([`crate::fault`]) and the tags its views and
//! verdicts go under. Each list is indexed by the constants beside it, which
//! the protocol's module sends its messages with. Its row of the protocol
//! table ([`crate::protocol::Descriptor::messages`]) names its list; the
//! lists live apart from the protocols so that Quad and Quad-Het share
//! theirs, and this file depends on no protocol.

use crate::fault::{message, MessageType};

/// Quad and Quad-Het (the same indices in both lists).
pub(crate) mod quad {
    use super::{message, MessageType};

    pub(crate) const KEY_COMMITMENT: usize = 0;
    pub(crate) const KEY_OPENING: usize = 1;
    pub(crate) const INPUT: usize = 2;
    pub(crate) const M0: usize = 3;
    pub(crate) const M3: usize = 4;
    pub(crate) const M1: usize = 5;
    pub(crate) const M20: usize = 6;
    pub(crate) const M21: usize = 7;
    pub(crate) const M22: usize = 8;
    pub(crate) const DIGEST: usize = 9;
    pub(crate) const REVEAL: usize = 10;
    pub(crate) const REVEAL_DIGEST: usize = 11;
    pub(crate) const VERDICT: usize = 12;
    pub(crate) const CONVERT_M0: usize = 13;
    pub(crate) const CONVERT_M2: usize = 14;

    /// Quad's messages.
    pub(crate) static QUAD: [MessageType; 15] = [
        message("key-commitment", &[0, 1, 2, 3], false),
        message("key-opening", &[0, 1, 2, 3], false),
        message("input", &[0, 1, 2, 3], false),
        message("m0", &[0], false),
        message("m3", &[3], false),
        message("m1", &[1], false),
        message("m20", &[2], false),
        message("m21", &[2], false),
        message("m22", &[], false),
        message("digest", &[0, 1, 2, 3], true),
        message("reveal", &[0, 1, 2, 3], false),
        message("reveal-digest", &[0, 1, 2, 3], true),
        message("verdict", &[0, 1, 2, 3], false),
        message("conversion-m0", &[0], false),
        message("conversion-m2", &[2], false),
    ];

    /// Quad-Het's: P3 sends no m3, and P2 sends m22.
    pub(crate) static HET: [MessageType; 15] = [
        message("key-commitment", &[0, 1, 2, 3], false),
        message("key-opening", &[0, 1, 2, 3], false),
        message("input", &[0, 1, 2, 3], false),
        message("m0", &[0], false),
        message("m3", &[], false),
        message("m1", &[1], false),
        message("m20", &[2], false),
        message("m21", &[2], false),
        message("m22", &[2], false),
        message("digest", &[0, 1, 2, 3], true),
        message("reveal", &[0, 1, 2, 3], false),
        message("reveal-digest", &[0, 1, 2, 3], true),
        message("verdict", &[0, 1, 2, 3], false),
        message("conversion-m0", &[0], false),
        message("conversion-m2", &[2], false),
    ];
}

/// Fantastic Four.
pub(crate) mod fantastic4 {
    use super::{message, MessageType};

    pub(crate) const KEY_COMMITMENT: usize = 0;
    pub(crate) const KEY_OPENING: usize = 1;
    pub(crate) const INPUT: usize = 2;
    /// m1..m6 are M + 0..M + 5.
    pub(crate) const M: usize = 3;
    pub(crate) const DIGEST: usize = 9;
    pub(crate) const REVEAL: usize = 10;
    pub(crate) const REVEAL_DIGEST: usize = 11;
    pub(crate) const VERDICT: usize = 12;
    /// The conversion terms' shares, t0 then t1.
    pub(crate) const CONVERT: usize = 13;
    /// A truncated product's terms' shares, t0 then t1.
    pub(crate) const TRUNCATE: usize = 15;

    pub(crate) static ALL: [MessageType; 17] = [
        message("key-commitment", &[0, 1, 2, 3], false),
        message("key-opening", &[0, 1, 2, 3], false),
        message("input", &[0, 1, 2, 3], false),
        message("m1", &[0], false),
        message("m2", &[1], false),
        message("m3", &[2], false),
        message("m4", &[3], false),
        message("m5", &[0], false),
        message("m6", &[1], false),
        message("digest", &[0, 1, 2, 3], true),
        message("reveal", &[0, 1, 2, 3], false),
        message("reveal-digest", &[0, 1, 2, 3], true),
        message("verdict", &[0, 1, 2, 3], false),
        message("conversion-t0", &[2], false),
        message("conversion-t1", &[0], false),
        message("truncation-t0", &[2], false),
        message("truncation-t1", &[0], false),
    ];
}

/// Tetrad.
pub(crate) mod tetrad {
    use super::{message, MessageType};

    pub(crate) const KEY_COMMITMENT: usize = 0;
    pub(crate) const KEY_OPENING: usize = 1;
    pub(crate) const INPUT: usize = 2;
    pub(crate) const T1: usize = 3;
    pub(crate) const T2: usize = 4;
    pub(crate) const T3: usize = 5;
    pub(crate) const T4: usize = 6;
    pub(crate) const T5: usize = 7;
    pub(crate) const DIGEST: usize = 8;
    pub(crate) const REVEAL: usize = 9;
    pub(crate) const REVEAL_DIGEST: usize = 10;
    pub(crate) const VERDICT: usize = 11;
    pub(crate) const CONVERT_M: usize = 12;
    pub(crate) const CONVERT_MASK: usize = 13;

    pub(crate) static ALL: [MessageType; 14] = [
        message("key-commitment", &[0, 1, 2, 3], false),
        message("key-opening", &[0, 1, 2, 3], false),
        message("input", &[0, 1, 2, 3], false),
        message("t1", &[3], false),
        message("t2", &[3], false),
        message("t3", &[1], false),
        message("t4", &[2], false),
        message("t5", &[2], false),
        message("digest", &[0, 1, 2, 3], true),
        message("reveal", &[0, 3], false),
        message("reveal-digest", &[0, 1], true),
        message("verdict", &[0, 1, 2, 3], false),
        message("conversion-m", &[0], false),
        message("conversion-mask", &[3], false),
    ];
}
