//! Compare-view verification (Π_CV, Harth-Kitzerow–Carle Figure 3) for the
//! maliciously secure protocols: parties that must hold the same values hash
//! them as they go and compare digests before anything is revealed.
//!
//! A *view* is a named check and its members, declared once by the protocol
//! in the same order at every party. Each member absorbs the values of the
//! view, in the same order, into a running hash (the exact encoding that
//! travels: k/8 bytes per ring element, reduced mod 2^k; 8 per Boolean word):
//! SHA-256 in two lanes (`TwoLaneSha256`), so that SHA-NI works on two
//! blocks at once.
//! [`Views::exchange`] sends every member's digest to every other member (one
//! message per pair of parties), compares, and starts a new epoch.
//!
//! A failed check must stop *every* honest party, not only the two that see
//! it, or a cheater could make one honest party abort while others output.
//! So every party tells every other one its verdict ([`settle`]): a party
//! outputs only if all parties, itself included, report success. (A
//! malicious party can still lie in its own verdict to some parties only;
//! without broadcast that is inherent, see the protocol table.)

use super::wire::Encoding;
use super::{recv_raw, send_raw_tagged, Channel};
use crate::error::{FailedCheck, RunError};
use huddle_net::{PartyId, Phase};
use sha2::digest::generic_array::GenericArray;
use sha2::{Digest, Sha256};

mod cost;
pub(crate) use cost::{
    exchange_cost, hear_cost, receive_digests_cost, send_digests_cost, settle_cost, tell_cost,
};

/// A SHA-256 digest as four little-endian words (how it travels).
pub(crate) type DigestWords = [u64; 4];

/// One declared check.
pub(crate) struct ViewSpec {
    /// What is compared, named in the abort.
    pub check: &'static str,
    /// The parties that check it: those that compare digests of its values,
    /// or the one party that checks a value it receives against a digest
    /// (a reveal). Only they can report it failed (see [`hear`]).
    pub members: &'static [PartyId],
}

struct View {
    hasher: TwoLaneSha256,
    /// Words absorbed since the encoding was set: a packed word's wire
    /// length depends on its place in its slot, and parties absorb the same
    /// words in pieces of different sizes.
    words: usize,
}

/// Where a view failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Mismatch {
    /// Index of the view in the declared list.
    pub view: usize,
    /// The member whose digest differed from ours.
    pub peer: PartyId,
}

/// The digests of an exchange's first half, awaiting the members' (see
/// [`Views::send_digests`]).
#[must_use = "the digests are compared by `Views::receive_digests`"]
pub(crate) struct SentDigests(Vec<Option<DigestWords>>);

/// The views of one party (a non-member keeps no state for a view).
pub(crate) struct Views {
    me: PartyId,
    encoding: Encoding,
    specs: &'static [ViewSpec],
    views: Vec<Option<View>>,
    epoch: u64,
    /// The first failed check, kept until settled.
    failed: Option<Mismatch>,
    /// Where values are encoded before they are hashed, kept between calls
    /// (Quad absorbs piece by piece).
    scratch: Vec<u8>,
}

impl Views {
    /// The views `specs` as seen by party `me`; values are hashed as
    /// `encoding` sends them.
    pub(crate) fn new(me: PartyId, encoding: Encoding, specs: &'static [ViewSpec]) -> Views {
        let mut v = Views {
            me,
            encoding,
            specs,
            views: Vec::new(),
            epoch: 0,
            failed: None,
            scratch: Vec::new(),
        };
        v.views = (0..specs.len()).map(|i| v.fresh(i)).collect();
        v
    }

    fn fresh(&self, i: usize) -> Option<View> {
        let spec = &self.specs[i];
        spec.members.contains(&self.me).then(|| {
            let mut hasher = TwoLaneSha256::new();
            // Domain separation: which check, which epoch.
            hasher.update(spec.check.as_bytes());
            hasher.update([0]);
            hasher.update(self.epoch.to_le_bytes());
            View { hasher, words: 0 }
        })
    }

    /// Encodes values absorbed from now on as `encoding` sends them: a
    /// mixed circuit's steps alternate between its ring (k/8 bytes) and
    /// Boolean words (8), and each is hashed as it travels.
    pub(crate) fn set_encoding(&mut self, encoding: Encoding) {
        self.encoding = encoding;
        for v in self.views.iter_mut().flatten() {
            v.words = 0;
        }
    }

    /// Whether this party takes part in view `view`.
    pub(crate) fn is_member(&self, view: usize) -> bool {
        self.views[view].is_some()
    }

    /// Adds `words` to view `view` (nothing for a non-member).
    #[inline(always)]
    pub(crate) fn absorb(&mut self, view: usize, words: &[u64]) {
        #[cfg(target_endian = "little")]
        if self.encoding.whole_words() {
            // Whole words travel as their memory: hashed in place.
            if let Some(v) = self.views[view].as_mut() {
                v.hasher.update(super::wire::as_bytes(words));
                v.words += words.len();
            }
            return;
        }
        self.absorb_with(view, words.len(), |k| words[k]);
    }

    /// Adds the words `f(0..n)` to view `view`.
    #[inline(always)]
    pub(crate) fn absorb_with(&mut self, view: usize, n: usize, f: impl Fn(usize) -> u64) {
        let Some(v) = self.views[view].as_mut() else {
            return;
        };
        let at = v.words;
        hash_words(&mut v.hasher, &mut self.scratch, at, n, self.encoding, f);
        v.words += n;
    }

    /// Exchanges every view's digest with its other members and compares.
    /// A mismatch is remembered (see [`Views::failed`]) rather than returned
    /// as an error, so that the party can still tell everyone ([`settle`]).
    /// Starts a new epoch: values absorbed from now on are compared next time.
    /// Digest messages go out as message type `tag`.
    pub(crate) fn exchange(&mut self, ch: &mut Channel, tag: usize) -> Result<(), RunError> {
        let sent = self.send_digests(ch, tag)?;
        self.receive_digests(ch, sent)
    }

    /// The first half of [`Views::exchange`]: sends every view's digest to
    /// its other members and starts a new epoch (other messages of the same
    /// round may follow before [`Views::receive_digests`]).
    pub(crate) fn send_digests(
        &mut self,
        ch: &mut Channel,
        tag: usize,
    ) -> Result<SentDigests, RunError> {
        let digests: Vec<Option<DigestWords>> = self
            .views
            .iter_mut()
            .map(|v| v.as_mut().map(|v| to_words(&v.hasher.finalize())))
            .collect();
        for p in self.peers() {
            let words: Vec<u64> = self
                .shared_with(p)
                .flat_map(|i| digests[i].expect("member"))
                .collect();
            send_raw_tagged(ch, tag, p, &words)?;
        }
        self.epoch += 1;
        for i in 0..self.views.len() {
            self.views[i] = self.fresh(i);
        }
        Ok(SentDigests(digests))
    }

    /// The second half of [`Views::exchange`]: every member's digests,
    /// compared with those this party sent.
    pub(crate) fn receive_digests(
        &mut self,
        ch: &mut Channel,
        sent: SentDigests,
    ) -> Result<(), RunError> {
        let SentDigests(digests) = sent;
        for p in self.peers() {
            let shared: Vec<usize> = self.shared_with(p).collect();
            let theirs = recv_raw(ch, p, shared.len() * 4)?;
            for (k, &i) in shared.iter().enumerate() {
                if theirs[k * 4..k * 4 + 4] != digests[i].expect("member")[..] {
                    self.fail(i, p);
                }
            }
        }
        Ok(())
    }

    /// The first check that failed at this party, if any.
    pub(crate) fn failed(&self) -> Option<Mismatch> {
        self.failed
    }

    /// Records a failed check found outside the views (e.g. a value received
    /// at reveal against a verifier's digest).
    pub(crate) fn fail(&mut self, view: usize, peer: PartyId) {
        if self.failed.is_none() {
            self.failed = Some(Mismatch { view, peer });
        }
    }

    /// The abort for a mismatch at this party.
    pub(crate) fn abort(&self, m: Mismatch) -> RunError {
        RunError::abort(
            FailedCheck::CompareView {
                view: self.specs[m.view].check,
                peer: m.peer,
                me: self.me,
            },
            None,
        )
    }

    /// The other parties this one shares at least one view with.
    fn peers(&self) -> Vec<PartyId> {
        peers(self.specs, self.me)
    }

    /// Indices of the views both this party and `peer` are members of.
    fn shared_with(&self, peer: PartyId) -> impl Iterator<Item = usize> + '_ {
        shared(self.specs, self.me, peer)
    }

    /// The name of view `view` (for messages).
    pub(crate) fn check(&self, view: usize) -> &'static str {
        self.specs[view].check
    }

    pub(crate) fn specs(&self) -> &'static [ViewSpec] {
        self.specs
    }
}

/// The parties other than `me` that share at least one of `specs` with it,
/// ascending: whom an exchange of digests goes to.
fn peers(specs: &[ViewSpec], me: PartyId) -> Vec<PartyId> {
    let mut peers: Vec<PartyId> = specs
        .iter()
        .filter(|v| v.members.contains(&me))
        .flat_map(|v| v.members.iter().copied())
        .filter(|&p| p != me)
        .collect();
    peers.sort_unstable();
    peers.dedup();
    peers
}

/// Indices of the views of `specs` both `me` and `peer` are members of.
fn shared(specs: &[ViewSpec], me: PartyId, peer: PartyId) -> impl Iterator<Item = usize> + '_ {
    specs
        .iter()
        .enumerate()
        .filter(move |(_, v)| v.members.contains(&me) && v.members.contains(&peer))
        .map(|(i, _)| i)
}

/// SHA-256 in two lanes: the stream's 64-byte blocks go alternately to two
/// SHA-256 computations (blocks 0, 2, 4, ... and 1, 3, 5, ...), and the
/// digest is SHA-256(SHA-256(even blocks) || SHA-256(odd blocks)).
///
/// Why: the compare-view hash is a fifth of Quad's CPU, and one SHA-256
/// stream runs at the latency of SHA-NI's round instruction; two independent
/// lanes, one block each in turn through `sha2`'s block function, overlap
/// in the CPU (docs/perf/2026-11-27-two-lane-sha256.md). Collisions cost as much
/// as SHA-256's: the split of a stream into its two lanes is injective
/// (given the lanes, the stream is their blocks interleaved), and each lane
/// is an ordinary SHA-256 with its own padding.
pub(crate) struct TwoLaneSha256 {
    lanes: [[u32; 8]; 2],
    /// Bytes of the next pair of blocks (even, odd) not yet compressed.
    pending: [u8; 128],
    filled: usize,
    /// Pairs of blocks compressed so far.
    pairs: u64,
}

impl TwoLaneSha256 {
    pub(crate) fn new() -> Self {
        let iv = huddle_circuit::sha256::initial_state();
        TwoLaneSha256 {
            lanes: [iv; 2],
            pending: [0; 128],
            filled: 0,
            pairs: 0,
        }
    }

    #[inline(always)]
    fn compress_pair(lanes: &mut [[u32; 8]; 2], pair: &[u8]) {
        let [even, odd] = lanes;
        compress_block(even, &pair[..64]);
        compress_block(odd, &pair[64..]);
    }

    pub(crate) fn update(&mut self, data: impl AsRef<[u8]>) {
        let mut data = data.as_ref();
        if self.filled > 0 {
            let take = (128 - self.filled).min(data.len());
            self.pending[self.filled..self.filled + take].copy_from_slice(&data[..take]);
            self.filled += take;
            data = &data[take..];
            if self.filled < 128 {
                return;
            }
            Self::compress_pair(&mut self.lanes, &self.pending);
            self.pairs += 1;
            self.filled = 0;
        }
        let mut pairs = data.chunks_exact(128);
        for pair in &mut pairs {
            Self::compress_pair(&mut self.lanes, pair);
        }
        self.pairs += (data.len() / 128) as u64;
        let rest = pairs.remainder();
        self.pending[..rest.len()].copy_from_slice(rest);
        self.filled = rest.len();
    }

    /// The digest (see the type); the hasher starts over.
    pub(crate) fn finalize(&mut self) -> [u8; 32] {
        let tail = &self.pending[..self.filled];
        let (even, odd) = tail.split_at(tail.len().min(64));
        let [mut e, mut o] = self.lanes;
        let mut outer = Sha256::new();
        outer.update(finish_lane(&mut e, self.pairs, even));
        outer.update(finish_lane(&mut o, self.pairs, odd));
        *self = TwoLaneSha256::new();
        outer.finalize().into()
    }
}

/// One 64-byte block into a SHA-256 state (`sha2`'s block function).
#[inline(always)]
fn compress_block(state: &mut [u32; 8], block: &[u8]) {
    sha2::compress256(state, std::slice::from_ref(GenericArray::from_slice(block)));
}

/// SHA-256's last blocks of a lane of `blocks` whole blocks and `tail`
/// (at most 64 bytes): padding and the length in bits (FIPS 180-4, 5.1.1).
fn finish_lane(state: &mut [u32; 8], blocks: u64, tail: &[u8]) -> [u8; 32] {
    let bits = (blocks * 64 + tail.len() as u64) * 8;
    let mut last = [0u8; 128];
    last[..tail.len()].copy_from_slice(tail);
    last[tail.len()] = 0x80;
    let end = if tail.len() < 56 { 64 } else { 128 };
    last[end - 8..end].copy_from_slice(&bits.to_be_bytes());
    for block in last[..end].chunks_exact(64) {
        compress_block(state, block);
    }
    let mut out = [0u8; 32];
    for (o, w) in out.chunks_exact_mut(4).zip(state.iter()) {
        o.copy_from_slice(&w.to_be_bytes());
    }
    out
}

/// Words encoded per call of the hash: the encoding stays in the L1 cache
/// instead of making a second copy of a layer's megabytes.
const CHUNK_WORDS: usize = 2048;

/// Hashes the words `f(0..n)` as they travel, the first at place `at` of
/// its message.
#[inline(always)]
fn hash_words(
    hasher: &mut TwoLaneSha256,
    buf: &mut Vec<u8>,
    at: usize,
    n: usize,
    encoding: Encoding,
    f: impl Fn(usize) -> u64,
) {
    for start in (0..n).step_by(CHUNK_WORDS) {
        buf.clear();
        let end = (start + CHUNK_WORDS).min(n);
        encoding.encode_with(at + start..at + end, |k| f(k - at), buf);
        hasher.update(&buf[..]);
    }
}

/// The digest of `words` as they travel.
pub(crate) fn digest(words: &[u64], encoding: Encoding, label: &str) -> DigestWords {
    let mut h = TwoLaneSha256::new();
    h.update(label.as_bytes());
    h.update([0]);
    let mut buf = Vec::with_capacity(CHUNK_WORDS.min(words.len()) * 8);
    hash_words(&mut h, &mut buf, 0, words.len(), encoding, |k| words[k]);
    to_words(&h.finalize())
}

pub(super) fn to_words(d: &[u8]) -> DigestWords {
    std::array::from_fn(|i| u64::from_le_bytes(d[i * 8..i * 8 + 8].try_into().expect("8 bytes")))
}

/// A party's verdict as it travels: 0 for success, else 1 + the failed
/// view's index.
fn verdict_word(m: Option<Mismatch>) -> u64 {
    m.map_or(0, |m| 1 + m.view as u64)
}

/// Every party tells every other one whether all its checks passed; returns
/// an abort if any did not (its own failure first, else the first peer's
/// report). With `parties` parties, one word per directed link.
pub(crate) fn settle(
    ch: &mut Channel,
    views: &Views,
    parties: usize,
    tag: usize,
) -> Result<(), RunError> {
    let told = tell(ch, views, parties, tag);
    hear(ch, views, parties)?;
    told
}

/// The first half of [`settle`]: this party's verdict to every other party
/// (other messages of the same round may follow before [`hear`]).
///
/// A peer may already have stopped (it heard a failure and left): a send
/// that fails does not stop the others, and the caller reports it only
/// after [`hear`], whose verdicts in the inbox name the root cause.
/// Verdicts are verification traffic, accounted (and seen) in phase
/// `verify` whatever phase the caller is in.
pub(crate) fn tell(
    ch: &mut Channel,
    views: &Views,
    parties: usize,
    tag: usize,
) -> Result<(), RunError> {
    let me = ch.party();
    let verdict = verdict_word(views.failed());
    let now = ch.phase();
    ch.set_phase(Phase::Verify);
    let mut told = Ok(());
    for p in (0..parties).filter(|&p| p != me) {
        let sent = send_raw_tagged(ch, tag, p, &[verdict]);
        told = told.and(sent);
    }
    ch.set_phase(now);
    told
}

/// The second half of [`settle`]: every other party's verdict.
pub(crate) fn hear(ch: &mut Channel, views: &Views, parties: usize) -> Result<(), RunError> {
    let me = ch.party();
    let now = ch.phase();
    ch.set_phase(Phase::Verify);
    let mut reports = Vec::new();
    for p in (0..parties).filter(|&p| p != me) {
        reports.push((p, recv_raw(ch, p, 1)?[0])); // an error ends the run
    }
    ch.set_phase(now);
    if let Some(m) = views.failed() {
        return Err(views.abort(m));
    }
    for (p, word) in reports {
        if word != 0 {
            // The culprit named to peers is the reporter: either it saw a
            // real failure or it lies; both end the run.
            return Err(RunError::abort(report(views.specs(), p, word), Some(p)));
        }
    }
    Ok(())
}

/// What party `p`'s failure verdict `word` (non-zero) says: a failed check,
/// or a forgery if it names no check or one that `p` does not take part in
/// (and so could not have seen fail).
fn report(specs: &[ViewSpec], p: PartyId, word: u64) -> FailedCheck {
    let named = usize::try_from(word - 1).ok().and_then(|i| specs.get(i));
    match named {
        None => FailedCheck::ForgedVerdict {
            reporter: p,
            view: None,
        },
        Some(s) if !s.members.contains(&p) => FailedCheck::ForgedVerdict {
            reporter: p,
            view: Some(s.check),
        },
        Some(s) => FailedCheck::ReportedFailure {
            reporter: p,
            view: s.check,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static SPECS: [ViewSpec; 3] = [
        ViewSpec {
            check: "a",
            members: &[0, 1],
        },
        ViewSpec {
            check: "b",
            members: &[0, 1, 2],
        },
        ViewSpec {
            check: "c",
            members: &[2, 3],
        },
    ];

    /// Party `liar` sends `word` as its verdict, every other party reports
    /// success and hears the verdicts: what each of them concludes.
    fn hear_a_verdict(liar: PartyId, word: u64) -> Vec<RunError> {
        let nets = huddle_net::memory_networks(
            4,
            &huddle_net::NetProfile::lan(),
            std::time::Duration::from_secs(30),
        );
        std::thread::scope(|s| {
            let handles: Vec<_> = nets
                .into_iter()
                .map(|mut net| {
                    s.spawn(move || {
                        let me = net.party();
                        let mut ch =
                            Channel::new(&mut net, Encoding::RAW, crate::Randomness::Os, 0);
                        let views = Views::new(me, Encoding::RAW, &SPECS);
                        if me == liar {
                            for p in (0..4).filter(|&p| p != me) {
                                send_raw_tagged(&mut ch, 0, p, &[word]).expect("send");
                            }
                            for p in (0..4).filter(|&p| p != me) {
                                recv_raw(&mut ch, p, 1).expect("a verdict");
                            }
                            return None;
                        }
                        tell(&mut ch, &views, 4, 0).expect("tell");
                        Some(hear(&mut ch, &views, 4).expect_err("a failure verdict"))
                    })
                })
                .collect();
            handles
                .into_iter()
                .filter_map(|h| h.join().expect("party"))
                .collect()
        })
    }

    /// Every honest party blames the reporter, names the check it
    /// reported as `check`, and says `says`.
    fn assert_every_party_says(errors: &[RunError], liar: PartyId, check: FailedCheck, says: &str) {
        assert_eq!(errors.len(), 3);
        for e in errors {
            match e {
                RunError::Abort {
                    check: seen,
                    culprit,
                    lane: None,
                } => {
                    assert_eq!(*seen, check);
                    assert_eq!(seen.to_string(), says);
                    assert_eq!(*culprit, Some(liar));
                }
                other => panic!("not an abort: {other}"),
            }
        }
    }

    #[test]
    fn a_verdict_naming_no_check_is_a_forgery() {
        for word in [4, 5, 1 << 40, u64::MAX] {
            assert_every_party_says(
                &hear_a_verdict(2, word),
                2,
                FailedCheck::ForgedVerdict {
                    reporter: 2,
                    view: None,
                },
                "party 2 sent a forged verdict: it names no check",
            );
        }
    }

    #[test]
    fn a_verdict_naming_a_check_of_others_is_a_forgery() {
        // Check `a` is P0's and P1's: P2 cannot have seen it fail.
        assert_every_party_says(
            &hear_a_verdict(2, 1),
            2,
            FailedCheck::ForgedVerdict {
                reporter: 2,
                view: Some("a"),
            },
            "party 2 sent a forged verdict: it names check `a`, which it does not take part in",
        );
        // Check `c` is P2's and P3's: P0 cannot have seen it fail.
        assert_every_party_says(
            &hear_a_verdict(0, 3),
            0,
            FailedCheck::ForgedVerdict {
                reporter: 0,
                view: Some("c"),
            },
            "party 0 sent a forged verdict: it names check `c`, which it does not take part in",
        );
    }

    #[test]
    fn a_member_reporting_its_check_failed_is_believed_as_far_as_it_goes() {
        // P2 takes part in `b`: a failure it reports is a failure (or its
        // lie, which ends the run alike), named as its report.
        assert_every_party_says(
            &hear_a_verdict(2, 2),
            2,
            FailedCheck::ReportedFailure {
                reporter: 2,
                view: "b",
            },
            "party 2 reports that compare-view check `b` failed",
        );
    }

    /// The two-lane hash by its definition, with `sha2`'s whole SHA-256.
    fn two_lanes_by_definition(data: &[u8]) -> [u8; 32] {
        let (mut even, mut odd) = (Vec::new(), Vec::new());
        for (i, block) in data.chunks(64).enumerate() {
            if i % 2 == 0 { &mut even } else { &mut odd }.extend_from_slice(block);
        }
        let mut outer = Sha256::new();
        outer.update(Sha256::digest(&even));
        outer.update(Sha256::digest(&odd));
        outer.finalize().into()
    }

    #[test]
    fn two_lane_sha256_known_answers() {
        // FIPS 180-4 vectors as lanes: "abc" is all of the even lane, and an
        // empty lane is SHA-256 of nothing.
        let hex = |s: &str| -> Vec<u8> {
            (0..s.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
                .collect()
        };
        let abc = hex("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        let empty = hex("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        let mut h = TwoLaneSha256::new();
        h.update(b"abc");
        let want: [u8; 32] = Sha256::new()
            .chain_update(&abc)
            .chain_update(&empty)
            .finalize()
            .into();
        assert_eq!(h.finalize(), want);
        // The hasher starts over after a digest.
        assert_eq!(
            h.finalize(),
            <[u8; 32]>::from(
                Sha256::new()
                    .chain_update(&empty)
                    .chain_update(&empty)
                    .finalize()
            )
        );
        // Lane lengths at and around the padding's edges (55, 56, 64 bytes).
        for len in [
            0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 129, 184, 191, 192, 256, 1000,
        ] {
            let data: Vec<u8> = (0..len).map(|i| (i * 31 + 7) as u8).collect();
            let mut h = TwoLaneSha256::new();
            h.update(&data);
            assert_eq!(h.finalize(), two_lanes_by_definition(&data), "{len} bytes");
        }
    }

    proptest::proptest! {
        /// However a stream is cut into updates, the digest is the two-lane
        /// hash of the whole stream, and a changed byte changes it.
        #[test]
        fn two_lane_sha256_is_the_same_over_any_updates(
            data in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..700),
            cuts in proptest::collection::vec(0usize..700, 0..6),
            flip in 0usize..700,
        ) {
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(data.len())).collect();
            cuts.sort_unstable();
            let mut h = TwoLaneSha256::new();
            let mut from = 0;
            for c in cuts.into_iter().chain([data.len()]) {
                h.update(&data[from..c]);
                from = c;
            }
            let digest = h.finalize();
            proptest::prop_assert_eq!(digest, two_lanes_by_definition(&data));
            if !data.is_empty() {
                let mut other = data.clone();
                other[flip % data.len()] ^= 1;
                let mut h = TwoLaneSha256::new();
                h.update(&other);
                proptest::prop_assert_ne!(h.finalize(), digest);
            }
        }
    }

    #[test]
    fn members_share_views_and_encodings_follow_the_wire() {
        let v0 = Views::new(0, Encoding::elements_of(4), &SPECS);
        assert!(v0.is_member(0) && v0.is_member(1) && !v0.is_member(2));
        assert_eq!(v0.peers(), vec![1, 2]);
        assert_eq!(v0.shared_with(1).collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(v0.shared_with(2).collect::<Vec<_>>(), vec![1]);
        // Values equal mod 2^32 hash alike with 4-byte elements, and not with 8.
        let (e4, e8) = (Encoding::elements_of(4), Encoding::elements_of(8));
        assert_eq!(digest(&[1 << 40 | 7], e4, "x"), digest(&[7], e4, "x"));
        assert_ne!(digest(&[1 << 40 | 7], e8, "x"), digest(&[7], e8, "x"));
        assert_ne!(digest(&[7], e4, "x"), digest(&[7], e4, "y"));
        // Packed words: a slot's padding lanes are not hashed.
        let packed = Encoding::new(4, 2, 3);
        assert_eq!(
            digest(&[1, 5 << 32 | 2], packed, "x"),
            digest(&[1, 2], packed, "x")
        );
        assert_ne!(digest(&[1, 2], packed, "x"), digest(&[1, 3], packed, "x"));
    }

    #[test]
    fn absorbing_a_slice_or_a_function_of_it_gives_one_digest() {
        let words: Vec<u64> = (0..5000u64)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        for encoding in [
            Encoding::RAW,
            Encoding::elements_of(4),
            Encoding::new(2, 4, 7),
        ] {
            let (mut a, mut b) = (
                Views::new(0, encoding, &SPECS),
                Views::new(1, encoding, &SPECS),
            );
            // Different piece sizes at the two members, as parties absorb.
            for piece in words.chunks(1000) {
                a.absorb(0, piece);
            }
            for piece in words.chunks(333) {
                b.absorb_with(0, piece.len(), |k| piece[k]);
            }
            let digest =
                |v: &mut Views| to_words(&v.views[0].as_mut().expect("member").hasher.finalize());
            assert_eq!(digest(&mut a), digest(&mut b), "{encoding:?}");
        }
    }

    #[test]
    fn digests_hash_exactly_the_bytes_on_the_wire_across_chunks() {
        let words: Vec<u64> = (0..3 * CHUNK_WORDS as u64 + 5)
            .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
            .collect();
        for (b, encoding) in [
            (1usize, Encoding::elements_of(1)),
            (2, Encoding::elements_of(2)),
            (4, Encoding::elements_of(4)),
            (8, Encoding::RAW),
            (8, Encoding::new(2, 4, 4)),
        ] {
            let mut wire = Vec::new();
            for w in &words {
                wire.extend_from_slice(&w.to_le_bytes()[..b]);
            }
            let mut h = TwoLaneSha256::new();
            h.update(b"label\0");
            h.update(&wire);
            assert_eq!(
                digest(&words, encoding, "label"),
                to_words(&h.finalize()),
                "{b} bytes"
            );
        }
    }
}
