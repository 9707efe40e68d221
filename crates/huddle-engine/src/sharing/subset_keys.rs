//! Keys for subsets of the parties, drawn jointly by their holders (the
//! maliciously secure 4-party protocols): no holder chooses a key, and no
//! other party learns it.
//!
//! Every holder of a key draws a fresh 128-bit contribution
//! (`Channel::fresh_prg`, so seeded runs replay), then
//! 1. sends every other holder its **commitment**: SHA-256 of the domain,
//!    the key's index and holders, the holder's number and the contribution;
//! 2. **opens** it (sends the contribution), and with the opening the digest
//!    of the key's view, every holder's commitment in holder order;
//! 3. every party's verdict settles the setup ([`verify::settle`]).
//!
//! Each holder checks every opening against its commitment; a mismatch is a
//! failure of the key's check naming the opener. The key is the first 16
//! bytes of SHA-256 of another domain, the key's index and holders and every
//! holder's contribution in holder order.
//!
//! Why commitments: a holder that saw the others' contributions before
//! choosing its own could steer the key; committed first, its contribution
//! is fixed before it sees any other (the commitment hides a contribution:
//! 128 random bits under a hash). Why the digests: a holder could commit to
//! different contributions towards different holders; equal commitments at
//! every holder and openings that match them mean one set of contributions,
//! hence one key at every holder, before any key is used. The model is
//! bgw2-mal's PRSS setup (`garble::linear::Prss::begin_setup`), which hashes
//! contributions the same way.
//!
//! Traffic: per key and ordered pair of its holders, 32 bytes of commitment
//! and 16 of opening, and 32 of digest (phase `setup`, two rounds), then one
//! verdict word per directed link (phase `verify`).

use super::malicious::{Tags, PARTIES};
use super::verify::{self, DigestWords, ViewSpec, Views};
use super::wire::Encoding;
use super::{recv_raw, send_raw_tagged, Channel};
use crate::error::{FailedCheck, RunError};
use huddle_core::Prg;
use huddle_net::PartyId;
use sha2::{Digest, Sha256};

mod cost;
pub(crate) use cost::agree_cost;

/// A holder's share of the randomness of a key, as it travels.
type Contribution = [u64; 2];

/// A key: the seed of its holders' common generator.
type Key = [u8; 16];

/// Agrees every key of `keys` this party holds: key k is held by the
/// members of `keys[k]`, the check that compares its holders' commitments.
/// Returns the keys by index (None where this party is no holder).
pub(crate) fn agree(
    ch: &mut Channel,
    keys: &'static [ViewSpec],
    tags: &Tags,
) -> Result<Vec<Option<Prg>>, RunError> {
    Ok(agree_keys(ch, keys, tags)?
        .into_iter()
        .map(|k| k.map(Prg::from_seed))
        .collect())
}

/// [`agree`], the keys as they are drawn.
fn agree_keys(
    ch: &mut Channel,
    keys: &'static [ViewSpec],
    tags: &Tags,
) -> Result<Vec<Option<Key>>, RunError> {
    let me = ch.party();
    let holds = |k: usize, p: PartyId| keys[k].members.contains(&p);
    let mine: Vec<usize> = (0..keys.len()).filter(|&k| holds(k, me)).collect();
    // The keys this party shares with `p`, in order: what travels between them.
    let shared =
        |p: PartyId| -> Vec<usize> { mine.iter().copied().filter(|&k| holds(k, p)).collect() };
    let peers: Vec<PartyId> = (0..PARTIES)
        .filter(|&p| p != me && !shared(p).is_empty())
        .collect();
    // Per key and holder: its contribution and commitment as this party has
    // them (the entries of holders of this party's keys only).
    let mut contributions = vec![[Contribution::default(); PARTIES]; keys.len()];
    let mut commitments = vec![[DigestWords::default(); PARTIES]; keys.len()];
    for &k in &mine {
        let mut fresh = ch.fresh_prg()?;
        let own = [fresh.next_u64(), fresh.next_u64()];
        contributions[k][me] = own;
        commitments[k][me] = commitment(k, keys[k].members, me, &own);
    }

    // Round 1: commitments.
    for &p in &peers {
        let words: Vec<u64> = shared(p).iter().flat_map(|&k| commitments[k][me]).collect();
        send_raw_tagged(ch, tags.key_commitment, p, &words)?;
    }
    for &p in &peers {
        let theirs = recv_raw(ch, p, 4 * shared(p).len())?;
        for (i, k) in shared(p).into_iter().enumerate() {
            commitments[k][p].copy_from_slice(&theirs[4 * i..4 * i + 4]);
        }
    }
    let mut check = Views::new(me, Encoding::RAW, keys);
    for &k in &mine {
        for &h in keys[k].members {
            check.absorb(k, &commitments[k][h]);
        }
    }

    // Round 2: openings, with the digests of the commitments.
    for &p in &peers {
        let words: Vec<u64> = shared(p)
            .iter()
            .flat_map(|&k| contributions[k][me])
            .collect();
        send_raw_tagged(ch, tags.key_opening, p, &words)?;
    }
    let sent = check.send_digests(ch, tags.digest)?;
    // The first opening that does not match its commitment: (key, opener).
    let mut broken = None;
    for &p in &peers {
        let theirs = recv_raw(ch, p, 2 * shared(p).len())?;
        for (i, k) in shared(p).into_iter().enumerate() {
            let opened = [theirs[2 * i], theirs[2 * i + 1]];
            if commitment(k, keys[k].members, p, &opened) != commitments[k][p] && broken.is_none() {
                broken = Some((k, p));
                check.fail(k, p);
            }
            contributions[k][p] = opened;
        }
    }
    check.receive_digests(ch, sent)?;

    let told = verify::tell(ch, &check, PARTIES, tags.verdict);
    let heard = verify::hear(ch, &check, PARTIES);
    if let Some((k, p)) = broken {
        // This party knows the culprit (the others heard its verdict).
        return Err(RunError::abort(
            FailedCheck::KeyOpening {
                key: keys[k].check,
                opener: p,
            },
            Some(p),
        ));
    }
    heard?;
    told?;
    Ok((0..keys.len())
        .map(|k| holds(k, me).then(|| derive_key(k, keys[k].members, &contributions[k])))
        .collect())
}

/// What a key's index and holders add to a hash (both are in every
/// commitment and every key: a commitment or a contribution is good for
/// one key only).
fn bind(h: &mut Sha256, key: usize, holders: &[PartyId]) {
    h.update((key as u64).to_le_bytes());
    h.update((holders.len() as u64).to_le_bytes());
    for &p in holders {
        h.update((p as u64).to_le_bytes());
    }
}

/// Holder `party`'s commitment to its `contribution` to key `key`.
fn commitment(
    key: usize,
    holders: &[PartyId],
    party: PartyId,
    contribution: &Contribution,
) -> DigestWords {
    let mut h = Sha256::new();
    h.update(b"huddle subset key commitment\0");
    bind(&mut h, key, holders);
    h.update((party as u64).to_le_bytes());
    for w in contribution {
        h.update(w.to_le_bytes());
    }
    verify::to_words(&h.finalize())
}

/// Key `key` from its holders' contributions (indexed by party).
fn derive_key(key: usize, holders: &[PartyId], contributions: &[Contribution; PARTIES]) -> Key {
    let mut h = Sha256::new();
    h.update(b"huddle subset key\0");
    bind(&mut h, key, holders);
    for &p in holders {
        for w in contributions[p] {
            h.update(w.to_le_bytes());
        }
    }
    let mut k = [0u8; 16];
    k.copy_from_slice(&h.finalize()[..16]);
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fault::message;
    use crate::fault::{ActiveFault, Fault, FaultKind, MessageType};
    use crate::transport::Transport;
    use crate::Randomness;
    use huddle_net::{NetError, Network, Phase};
    use std::time::Duration;

    /// Quad's and Tetrad's keys.
    static KEYS: [ViewSpec; 3] = [
        ViewSpec {
            check: "K013",
            members: &[0, 1, 3],
        },
        ViewSpec {
            check: "K023",
            members: &[0, 2, 3],
        },
        ViewSpec {
            check: "K123",
            members: &[1, 2, 3],
        },
    ];

    const TAGS: Tags = Tags {
        key_commitment: 0,
        key_opening: 1,
        digest: 2,
        reveal: 3,
        reveal_digest: 4,
        verdict: 5,
    };

    static MESSAGES: [MessageType; 6] = [
        message("key-commitment", &[0, 1, 2, 3], false),
        message("key-opening", &[0, 1, 2, 3], false),
        message("digest", &[0, 1, 2, 3], true),
        message("reveal", &[], false),
        message("reveal-digest", &[], true),
        message("verdict", &[0, 1, 2, 3], false),
    ];

    /// The draw number of a party's first key.
    const FIRST_DRAW: u64 = 7;

    /// A party's network that keeps every byte it receives, and sends
    /// `victim` the messages of `to_victim` in place of its own, in turn.
    struct Tap {
        net: Network,
        received: Vec<u8>,
        victim: PartyId,
        to_victim: std::collections::VecDeque<Vec<u8>>,
    }

    impl Transport for Tap {
        fn party(&self) -> PartyId {
            self.net.party()
        }
        fn parties(&self) -> usize {
            self.net.parties()
        }
        fn send(&mut self, to: PartyId, data: Vec<u8>) -> Result<(), NetError> {
            let data = match self.to_victim.pop_front() {
                Some(other) if to == self.victim => other,
                Some(unused) => {
                    self.to_victim.push_front(unused);
                    data
                }
                None => data,
            };
            self.net.send(to, data)
        }
        fn recv(&mut self, from: PartyId, len: usize) -> Result<Vec<u8>, NetError> {
            let data = self.net.recv(from, len)?;
            self.received.extend_from_slice(&data);
            Ok(data)
        }
        fn set_phase(&mut self, phase: Phase) {
            self.net.set_phase(phase)
        }
        fn phase(&self) -> Phase {
            self.net.phase()
        }
    }

    /// One party of a test run.
    #[derive(Clone, Default)]
    struct Party {
        seed: [u8; 16],
        fault: Option<(FaultKind, usize)>,
        /// (victim, messages sent it instead of this party's own).
        replaces: Option<(PartyId, Vec<Vec<u8>>)>,
    }

    /// What one party ends with: its keys, and every byte it received.
    type Ending = (Result<Vec<Option<Key>>, RunError>, Vec<u8>);

    /// Four parties agree `KEYS`.
    fn agree_among(parties: [Party; PARTIES]) -> Vec<Ending> {
        let nets = huddle_net::memory_networks(
            PARTIES,
            &huddle_net::NetProfile::lan(),
            Duration::from_secs(30),
        );
        std::thread::scope(|s| {
            let handles: Vec<_> = nets
                .into_iter()
                .zip(parties)
                .map(|(net, party)| {
                    s.spawn(move || {
                        let me = net.party();
                        let (victim, to_victim) = party.replaces.unwrap_or((me, Vec::new()));
                        let mut tap = Tap {
                            net,
                            received: Vec::new(),
                            victim,
                            to_victim: to_victim.into(),
                        };
                        let seeded = Randomness::Seeded(party.seed);
                        let mut ch = Channel::new(&mut tap, Encoding::RAW, seeded, FIRST_DRAW);
                        if let Some((kind, tag)) = party.fault {
                            let fault = Fault {
                                party: me,
                                kind,
                                message: Some(tag),
                                seed: 5,
                            };
                            ch.set_fault(ActiveFault::new(fault, &MESSAGES, 0));
                        }
                        let keys = agree_keys(&mut ch, &KEYS, &TAGS);
                        (keys, tap.received)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("party"))
                .collect()
        })
    }

    /// Every party honest, party p drawing from `seeds[p]`: the keys
    /// (asserted agreed by every holder).
    fn keys_of(seeds: [[u8; 16]; PARTIES]) -> Vec<Key> {
        let endings = agree_among(seeds.map(|seed| Party {
            seed,
            ..Party::default()
        }));
        (0..KEYS.len())
            .map(|k| {
                let holders = KEYS[k].members;
                let key = endings[holders[0]].0.as_ref().expect("agreed")[k].expect("held");
                for (p, (keys, _)) in endings.iter().enumerate() {
                    let keys = keys.as_ref().expect("agreed");
                    let want = holders.contains(&p).then_some(key);
                    assert_eq!(keys[k], want, "{} at P{p}", KEYS[k].check);
                }
                key
            })
            .collect()
    }

    fn seeds(run: u8) -> [[u8; 16]; PARTIES] {
        std::array::from_fn(|p| [run.wrapping_mul(16) + p as u8; 16])
    }

    /// Holder `h`'s contribution to key `k` under `seed` (its keys are
    /// drawn in order, from `FIRST_DRAW` on).
    fn contribution(seed: [u8; 16], h: PartyId, k: usize) -> [u8; 16] {
        let nth = (0..k).filter(|&j| KEYS[j].members.contains(&h)).count() as u64;
        let mut g = Randomness::Seeded(seed)
            .draw(h, FIRST_DRAW + nth)
            .expect("seeded");
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&g.next_u64().to_le_bytes());
        out[8..].copy_from_slice(&g.next_u64().to_le_bytes());
        out
    }

    fn contains(haystack: &[u8], needle: &[u8]) -> bool {
        haystack.windows(needle.len()).any(|w| w == needle)
    }

    #[test]
    fn holders_agree_and_a_non_holder_receives_nothing_of_a_key() {
        let seeds = seeds(1);
        let endings = agree_among(seeds.map(|seed| Party {
            seed,
            ..Party::default()
        }));
        let keys = keys_of(seeds);
        assert_eq!(keys, keys_of(seeds), "seeded runs replay");
        assert!(keys[0] != keys[1] && keys[1] != keys[2] && keys[0] != keys[2]);
        for (k, spec) in KEYS.iter().enumerate() {
            for (p, (_, received)) in endings.iter().enumerate() {
                for &h in spec.members.iter().filter(|&&h| h != p) {
                    // The key is a hash of its holders' contributions: every
                    // other holder's reaches a holder, none a non-holder.
                    let seen = contains(received, &contribution(seeds[h], h, k));
                    assert_eq!(
                        seen,
                        spec.members.contains(&p),
                        "{} P{h} at P{p}",
                        spec.check
                    );
                }
                assert!(!contains(received, &keys[k]), "{} at P{p}", spec.check);
            }
        }
    }

    #[test]
    fn every_holders_contribution_changes_the_key_and_nobody_elses_does() {
        let base = keys_of(seeds(1));
        for p in 0..PARTIES {
            let mut changed = seeds(1);
            changed[p] = [0xee; 16];
            let keys = keys_of(changed);
            for (k, spec) in KEYS.iter().enumerate() {
                let holds = spec.members.contains(&p);
                assert_eq!(keys[k] != base[k], holds, "{}: P{p}'s draw", spec.check);
            }
        }
    }

    #[test]
    fn a_holder_that_fixes_its_contribution_does_not_fix_the_key() {
        // P0 chose K013 and K023 outright before; now its draws are a
        // constant (as a corrupted P0 may make them), and the others'
        // draws still make every key new in every run.
        let runs: Vec<Vec<Key>> = (1..=6)
            .map(|run| {
                let mut s = seeds(run);
                s[0] = [0; 16];
                keys_of(s)
            })
            .collect();
        for k in 0..KEYS.len() {
            let mut seen: Vec<Key> = runs.iter().map(|keys| keys[k]).collect();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), runs.len(), "{}", KEYS[k].check);
        }
    }

    /// Every honest party's abort: (failed check, culprit).
    fn aborts(endings: &[Ending], corrupt: PartyId) -> Vec<(FailedCheck, Option<PartyId>)> {
        (0..PARTIES)
            .filter(|&p| p != corrupt)
            .map(|p| match &endings[p].0 {
                Err(RunError::Abort { check, culprit, .. }) => (check.clone(), *culprit),
                other => panic!("P{p}: {:?}", other.as_ref().map(|_| "keys")),
            })
            .collect()
    }

    #[test]
    fn an_opening_that_does_not_match_its_commitment_stops_everyone_naming_the_opener() {
        // P1 holds K013 and K123: every other party holds one with it, so
        // every honest party checks one of its openings.
        for tag in [TAGS.key_commitment, TAGS.key_opening] {
            let mut parties: [Party; PARTIES] = seeds(2).map(|seed| Party {
                seed,
                ..Party::default()
            });
            parties[1].fault = Some((FaultKind::AddError, tag));
            for (check, culprit) in aborts(&agree_among(parties), 1) {
                assert_eq!(culprit, Some(1), "{check}");
                assert!(
                    matches!(check, FailedCheck::KeyOpening { opener: 1, .. }),
                    "{check}"
                );
            }
        }
    }

    #[test]
    fn a_wrong_opening_for_one_holder_stops_every_honest_party() {
        // Only the first receiver of P1's openings sees the mismatch; it
        // names P1, and the others stop on its verdict (or see it too).
        for tag in [TAGS.key_commitment, TAGS.key_opening] {
            let mut parties: [Party; PARTIES] = seeds(3).map(|seed| Party {
                seed,
                ..Party::default()
            });
            parties[1].fault = Some((FaultKind::Inconsistent, tag));
            let aborts = aborts(&agree_among(parties), 1);
            assert!(aborts.iter().any(|(_, culprit)| *culprit == Some(1)));
        }
    }

    #[test]
    fn a_holder_that_commits_to_different_contributions_is_caught_by_the_others() {
        // P0 gives P1 a contribution to K013 other than P3's, with a
        // commitment that matches it: each opening checks out, and P1 and
        // P3, both honest, find that their commitments differ.
        let other = [9u64, 9];
        let to_p1 =
            |words: &[u64]| -> Vec<u8> { words.iter().flat_map(|w| w.to_le_bytes()).collect() };
        let mut parties: [Party; PARTIES] = seeds(4).map(|seed| Party {
            seed,
            ..Party::default()
        });
        parties[0].replaces = Some((
            1,
            vec![
                to_p1(&commitment(0, KEYS[0].members, 0, &other)),
                to_p1(&other),
            ],
        ));
        let endings = agree_among(parties);
        let aborts = aborts(&endings, 0);
        let own = FailedCheck::CompareView {
            view: "K013",
            peer: 1,
            me: 3,
        };
        assert!(aborts.contains(&(own, None)), "{aborts:?}");
        // The keys P1 and P3 would have derived differ.
        assert!(endings.iter().all(|(keys, _)| keys.is_err()));
    }
}
