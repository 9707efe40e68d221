//! Quad's tables: its keys and their holders, the compare views of each
//! variant (indices `V_*`), the vouched conversion messages, the reveal's
//! routes and the message tags of its checks.

use crate::sharing::malicious::{Route, Tags, Vouched};
use crate::sharing::messages::quad as msg;
use crate::sharing::verify::ViewSpec;
use huddle_net::{PartyId, Phase};

/// The three keys, by the parties that hold them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Key {
    K013 = 0,
    K023 = 1,
    K123 = 2,
}

/// The keys, each as the check of its holders' commitments (its members:
/// the holders; see [`subset_keys`](crate::sharing::subset_keys)).
pub(super) static KEYS: [ViewSpec; 3] = [
    ViewSpec {
        check: "contributions to key K013 (P0, P1, P3)",
        members: &[0, 1, 3],
    },
    ViewSpec {
        check: "contributions to key K023 (P0, P2, P3)",
        members: &[0, 2, 3],
    },
    ViewSpec {
        check: "contributions to key K123 (P1, P2, P3)",
        members: &[1, 2, 3],
    },
];

// Indices into QUAD_VIEWS / HET_VIEWS; the same for both where shared.
pub(super) const V_INPUT: usize = 0;
pub(super) const V_M0: usize = 1;
pub(super) const V_M21: usize = 2;
/// Quad: ab + z0 + w at P0, P1, P2. Quad-Het: v3 at P0 and P3.
pub(super) const V_PRODUCT: usize = 3;
/// Reveal checks (no running digest: the verifier's digest comes with the value).
const V_REVEAL: [usize; 4] = [4, 5, 6, 7];
/// Conversions: the share of -x0 P0 sends P2 (P3 vouches), and a + x0
/// masked that P2 sends P0 (P1 vouches).
pub(super) const CONVERT_M0: Vouched = Vouched {
    sender: 0,
    to: 2,
    phase: Phase::Offline,
    tag: msg::CONVERT_M0,
    view: 8,
};
pub(super) const CONVERT_M2: Vouched = Vouched {
    sender: 2,
    to: 0,
    phase: Phase::Online,
    tag: msg::CONVERT_M2,
    view: 9,
};

pub(super) static QUAD_VIEWS: [ViewSpec; 10] = [
    ViewSpec {
        check: "input a + u + x0 (P0, P1, P2)",
        members: &[0, 1, 2],
    },
    ViewSpec {
        check: "m0 from P0 (P2, P3)",
        members: &[2, 3],
    },
    ViewSpec {
        check: "m21 from P2 (P0, P1)",
        members: &[0, 1],
    },
    ViewSpec {
        check: "product ab + z0 + w, covering m1, m20 and m3 (P0, P1, P2)",
        members: &[0, 1, 2],
    },
    ViewSpec {
        check: "output a + x0 from P1 to P0, digest from P2",
        members: &[0],
    },
    ViewSpec {
        check: "output x0 from P0 to P1, digest from P3",
        members: &[1],
    },
    ViewSpec {
        check: "output x0 from P3 to P2, digest from P0",
        members: &[2],
    },
    ViewSpec {
        check: "output a + x0 from P2 to P3, digest from P1",
        members: &[3],
    },
    ViewSpec {
        check: "conversion: share of -x0 from P0 (P2, P3)",
        members: &[2, 3],
    },
    ViewSpec {
        check: "conversion: a + x0 + r123 from P2 (P0, P1)",
        members: &[0, 1],
    },
];

pub(super) static HET_VIEWS: [ViewSpec; 10] = [
    ViewSpec {
        check: "input a + u + x0 (P0, P1, P2)",
        members: &[0, 1, 2],
    },
    ViewSpec {
        check: "m0 from P0 (P2, P3)",
        members: &[2, 3],
    },
    ViewSpec {
        check: "m21 and m22 from P2 (P0, P1)",
        members: &[0, 1],
    },
    ViewSpec {
        check: "v3, covering m1 and m20 (P0, P3)",
        members: &[0, 3],
    },
    ViewSpec {
        check: "output a + x0 from P1 to P0, digest from P2",
        members: &[0],
    },
    ViewSpec {
        check: "output x0 from P0 to P1, digest from P3",
        members: &[1],
    },
    ViewSpec {
        check: "output x0 from P3 to P2, digest from P0",
        members: &[2],
    },
    ViewSpec {
        check: "output a + x0 from P2 to P3, digest from P1",
        members: &[3],
    },
    ViewSpec {
        check: "conversion: share of -x0 from P0 (P2, P3)",
        members: &[2, 3],
    },
    ViewSpec {
        check: "conversion: a + x0 + r123 from P2 (P0, P1)",
        members: &[0, 1],
    },
];

/// For each receiver of a reveal: the sender, the verifier and the
/// component both hold it at. Component 0 is a + x0 (at P1, P2), component
/// 1 is x0 (at P0, P3).
pub(super) static ROUTES: [Route; 4] = [
    route(0, 1, 2, 0),
    route(1, 0, 3, 1),
    route(2, 3, 0, 1),
    route(3, 2, 1, 0),
];

const fn route(receiver: usize, sender: PartyId, verifier: PartyId, component: usize) -> Route {
    Route {
        sender,
        sent: component,
        verifier,
        vouched: component,
        check: V_REVEAL[receiver],
    }
}

pub(super) const TAGS: Tags = Tags {
    key_commitment: msg::KEY_COMMITMENT,
    key_opening: msg::KEY_OPENING,
    digest: msg::DIGEST,
    reveal: msg::REVEAL,
    reveal_digest: msg::REVEAL_DIGEST,
    verdict: msg::VERDICT,
};
