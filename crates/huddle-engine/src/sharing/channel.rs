//! The channel a protocol talks through ([`Channel`]): share words encoded
//! on the wire as the step's domain says, message buffers kept from round
//! to round, a corrupted party's faults applied to its tagged messages; and
//! the helpers for keys, digests and verdicts, which travel as raw 64-bit
//! words whatever the share domain.

use super::wire;
use crate::error::RunError;
use crate::transport::Transport;
use huddle_net::{PartyId, Phase};

/// Messages of share words: each word travels as `word_bytes` little-endian
/// bytes (8 for bitsliced Boolean words, k/8 for elements of Z_2^k).
///
/// It also keeps the large word buffers of past rounds for the next ones
/// (byte buffers go back to the transport's pool, see
/// [`huddle_net::recycle_buffer`]): a round's buffers are megabytes, and
/// fresh ones cost the kernel a page fault per 4 KiB.
pub(crate) struct Channel<'a> {
    net: &'a mut dyn Transport,
    encoding: wire::Encoding,
    /// Where fresh keys are drawn ([`Channel::fresh_prg`]): the source and
    /// this channel's next draw number.
    randomness: crate::Randomness,
    next_draw: u64,
    spare_words: Vec<Vec<u64>>,
    /// At a party corrupted on purpose: what it does to its messages.
    fault: Option<crate::fault::ActiveFault>,
    /// Whether `evaluate` counts its steps for the progress display (the
    /// main program's, not a conversion's recombining program).
    pub(super) counts_progress: bool,
    /// The run's progress counters, where the steps are counted.
    pub(super) progress: Option<crate::progress::Progress>,
}

/// Word buffers kept.
const SPARE: usize = 16;

impl<'a> Channel<'a> {
    /// A channel whose fresh keys come from `randomness`, numbered from
    /// `first_draw` (channels of one party take disjoint ranges).
    pub(crate) fn new(
        net: &'a mut dyn Transport,
        encoding: wire::Encoding,
        randomness: crate::Randomness,
        first_draw: u64,
    ) -> Self {
        Channel {
            net,
            encoding,
            randomness,
            next_draw: first_draw,
            spare_words: Vec::new(),
            fault: None,
            counts_progress: false,
            progress: None,
        }
    }

    /// Makes this party deviate as `fault` says (see [`crate::fault`]).
    pub(crate) fn set_fault(&mut self, fault: crate::fault::ActiveFault) {
        self.fault = Some(fault);
    }

    /// Sends a message of the protocol's message type `tag` (a corrupted
    /// party's fault applies here; see [`crate::fault`]).
    pub(crate) fn send_tagged(
        &mut self,
        tag: usize,
        to: PartyId,
        words: &[u64],
    ) -> Result<(), RunError> {
        use crate::fault::Action;
        let Some(fault) = self.fault.as_mut() else {
            return self.send(to, words);
        };
        let mut changed = words.to_vec();
        match fault.apply(tag, to, &mut changed, self.encoding) {
            Action::Send => self.send(to, &changed),
            Action::Drop => Ok(()),
            Action::Twice => {
                self.send(to, &changed)?;
                self.send(to, &changed)
            }
        }
    }

    /// [`send_tagged`](Self::send_tagged) under `phase`, then back to the current phase.
    pub(crate) fn send_tagged_in(
        &mut self,
        phase: Phase,
        tag: usize,
        to: PartyId,
        words: &[u64],
    ) -> Result<(), RunError> {
        self.in_phase(phase, |ch| ch.send_tagged(tag, to, words))
    }

    /// A message of `n` words with unspecified contents (the bytes of past
    /// messages), for the caller to overwrite whole and then send with
    /// [`send_message`](Self::send_message): where words travel as they lie
    /// in memory it is the very buffer that goes out, so sending copies
    /// nothing (a round's messages are megabytes).
    pub(crate) fn message(&mut self, n: usize) -> wire::Words {
        if n > 0 && self.encoding.whole_words() {
            match wire::Words::in_place(huddle_net::scratch_message(n * 8)) {
                Ok(words) => return words,
                Err(bytes) => huddle_net::recycle_buffer(bytes),
            }
        }
        self.buffer(n).into()
    }

    /// Sends `m` (from [`message`](Self::message), or a received message
    /// overwritten whole) and gives up its memory: a message whose bytes are
    /// its words goes to the transport as it is.
    pub(crate) fn send_message(&mut self, to: PartyId, m: wire::Words) -> Result<(), RunError> {
        match m.into_buffer() {
            Err(bytes) => Ok(self.net.send(to, bytes)?),
            Ok(words) => {
                let sent = self.send(to, &words);
                self.recycle(words);
                sent
            }
        }
    }

    /// [`send_message`](Self::send_message) of the message type `tag` (a
    /// corrupted party's fault applies, as in [`send_tagged`](Self::send_tagged)).
    pub(crate) fn send_message_tagged(
        &mut self,
        tag: usize,
        to: PartyId,
        m: wire::Words,
    ) -> Result<(), RunError> {
        if self.fault.is_none() {
            return self.send_message(to, m);
        }
        let sent = self.send_tagged(tag, to, &m);
        self.recycle(m);
        sent
    }

    /// Runs `f` with traffic counted under `phase`, then returns to the
    /// current phase (switching restarts the phase clock, so only if they differ).
    pub(crate) fn in_phase<T>(&mut self, phase: Phase, f: impl FnOnce(&mut Self) -> T) -> T {
        let now = self.net.phase();
        if now == phase {
            return f(self);
        }
        self.net.set_phase(phase);
        let out = f(self);
        self.net.set_phase(now);
        out
    }

    /// A buffer of `n` words with unspecified contents, for the caller to overwrite.
    pub(crate) fn buffer(&mut self, n: usize) -> Vec<u64> {
        // An empty one (a message a role does not send) takes no spare: cut
        // to nothing, a spare's written words would be zeroed again later.
        if n == 0 {
            return Vec::new();
        }
        // The one with the most words written already: only the rest up to
        // n are zeroed (a round's buffers are megabytes).
        let at = (0..self.spare_words.len())
            .filter(|&i| self.spare_words[i].capacity() >= n)
            .max_by_key(|&i| self.spare_words[i].len().min(n));
        let mut v = match at {
            Some(i) => self.spare_words.swap_remove(i),
            None => self.spare_words.pop().unwrap_or_default(),
        };
        v.truncate(n);
        v.resize(n, 0);
        v
    }

    /// Gives a buffer (of words, or a received message's) back for later rounds.
    pub(crate) fn recycle(&mut self, v: impl Into<wire::Words>) {
        match v.into().into_buffer() {
            Ok(v) if v.capacity() > 0 && self.spare_words.len() < SPARE => self.spare_words.push(v),
            Ok(_) => {}
            Err(message) => huddle_net::recycle_buffer(message),
        }
    }

    /// The next `n` words of `prg`.
    pub(crate) fn draw(&mut self, prg: &mut huddle_core::Prg, n: usize) -> Vec<u64> {
        let mut v = self.buffer(n);
        prg.fill_u64(&mut v);
        v
    }

    /// A generator of fresh randomness: this party's next draw.
    pub(crate) fn fresh_prg(&mut self) -> Result<huddle_core::Prg, RunError> {
        let prg = self.randomness.draw(self.party(), self.next_draw)?;
        self.next_draw += 1;
        Ok(prg)
    }

    pub(crate) fn party(&self) -> PartyId {
        self.net.party()
    }

    /// How share words travel now.
    pub(crate) fn encoding(&self) -> wire::Encoding {
        self.encoding
    }

    /// Messages from now on carry words of `encoding` (the domain and slice
    /// of the step at hand; the engine sets it before every step of a mixed
    /// program).
    pub(crate) fn set_encoding(&mut self, encoding: wire::Encoding) {
        self.encoding = encoding;
    }

    pub(crate) fn set_phase(&mut self, phase: Phase) {
        self.net.set_phase(phase);
    }

    pub(crate) fn phase(&self) -> Phase {
        self.net.phase()
    }

    /// As [`Transport::announce`].
    pub(crate) fn announce(&self, step: &str) {
        self.net.announce(step);
    }

    /// Sends `words` (the transport drops an empty message; both sides know its size).
    pub(crate) fn send(&mut self, to: PartyId, words: &[u64]) -> Result<(), RunError> {
        let mut bytes = huddle_net::message_buffer(self.encoding.wire_len(words.len()));
        self.encoding.encode(words, &mut bytes);
        Ok(self.net.send(to, bytes)?)
    }

    /// Sends `words` under `phase`, then returns to the current phase.
    pub(crate) fn send_in(
        &mut self,
        phase: Phase,
        to: PartyId,
        words: &[u64],
    ) -> Result<(), RunError> {
        self.in_phase(phase, |ch| ch.send(to, words))
    }

    /// Receives exactly `count` words (where they arrived, if they travel
    /// as whole words; see [`wire::Words`]).
    pub(crate) fn recv(&mut self, from: PartyId, count: usize) -> Result<wire::Words, RunError> {
        let mut bytes = self.net.recv(from, self.encoding.wire_len(count))?;
        if self.encoding.whole_words() {
            match wire::Words::in_place(bytes) {
                Ok(words) => return Ok(words),
                Err(b) => bytes = b,
            }
        }
        let mut out = self.buffer(count);
        self.encoding.decode(&bytes, &mut out);
        huddle_net::recycle_buffer(bytes);
        Ok(out.into())
    }
}

/// Draws `n` words from a PRG stream (off the hot path; rounds use `Channel::draw`).
pub(crate) fn draw(prg: &mut huddle_core::Prg, n: usize) -> Vec<u64> {
    let mut v = vec![0u64; n];
    prg.fill_u64(&mut v);
    v
}

/// A 128-bit key: one party samples it and sends it to the other.
pub(crate) fn agree_key(
    ch: &mut Channel,
    peer: PartyId,
    i_choose: bool,
) -> Result<huddle_core::Prg, RunError> {
    let me = ch.party();
    let (chooser, other) = if i_choose { (me, peer) } else { (peer, me) };
    // Untagged: the semi-honest protocols have no message types to fault.
    Ok(share_key(ch, 0, chooser, &[chooser, other])?.0)
}

/// Keys, digests and verdicts travel as full 64-bit words whatever the share
/// domain; sent as a message of type `tag` (see [`Channel::send_tagged`]).
pub(crate) fn send_raw_tagged(
    ch: &mut Channel,
    tag: usize,
    to: PartyId,
    words: &[u64],
) -> Result<(), RunError> {
    let saved = std::mem::replace(&mut ch.encoding, wire::Encoding::RAW);
    let r = ch.send_tagged(tag, to, words);
    ch.encoding = saved;
    r
}

pub(crate) fn recv_raw(ch: &mut Channel, from: PartyId, n: usize) -> Result<wire::Words, RunError> {
    let saved = std::mem::replace(&mut ch.encoding, wire::Encoding::RAW);
    let r = ch.recv(from, n);
    ch.encoding = saved;
    r
}

/// A 128-bit key for the parties `holders`: `chooser` samples it and sends
/// it (as message type `tag`) to the others. Returns the key's stream and
/// the key as it travels, two words (for a consistency check among the
/// receivers).
pub(crate) fn share_key(
    ch: &mut Channel,
    tag: usize,
    chooser: PartyId,
    holders: &[PartyId],
) -> Result<(huddle_core::Prg, [u64; 2]), RunError> {
    let me = ch.party();
    let words = if me == chooser {
        let key = ch.fresh_prg()?.next_seed();
        let words = [
            u64::from_le_bytes(key[..8].try_into().expect("8 bytes")),
            u64::from_le_bytes(key[8..].try_into().expect("8 bytes")),
        ];
        for &p in holders.iter().filter(|&&p| p != me) {
            send_raw_tagged(ch, tag, p, &words)?;
        }
        words
    } else {
        let received = recv_raw(ch, chooser, 2)?;
        [received[0], received[1]]
    };
    let mut key = [0u8; 16];
    key[..8].copy_from_slice(&words[0].to_le_bytes());
    key[8..].copy_from_slice(&words[1].to_le_bytes());
    Ok((huddle_core::Prg::from_seed(key), words))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A message built with `Channel::message` is the buffer that arrives
    /// (in memory, links pass the buffer itself): sending copies nothing,
    /// and every word written is what the receiver reads.
    #[test]
    fn a_message_goes_out_in_the_buffer_it_was_written_in() {
        let mut nets =
            huddle_net::memory_networks(2, &huddle_net::NetProfile::lan(), Duration::from_secs(10));
        let (mut b, mut a) = (nets.pop().expect("two"), nets.pop().expect("two"));
        let n = 9000;
        let want: Vec<u64> = (0..n as u64).map(|k| k.wrapping_mul(0x9e37_79b9)).collect();
        let mut sender = Channel::new(&mut a, wire::Encoding::RAW, crate::Randomness::Os, 0);
        for round in 0..3 {
            let mut m = sender.message(n);
            m.copy_from_slice(&want);
            m[round] ^= 1;
            let at = m.as_ptr();
            sender.send_message(1, m).expect("sent");
            let mut receiver = Channel::new(&mut b, wire::Encoding::RAW, crate::Randomness::Os, 0);
            let got = receiver.recv(0, n).expect("received");
            assert_eq!(got.as_ptr(), at, "the written buffer itself travels");
            let mut expected = want.clone();
            expected[round] ^= 1;
            assert_eq!(&got[..], &expected[..]);
            // Back to the pool: the next message may reuse it, old bytes and all.
            receiver.recycle(got);
        }
        // Words that do not travel whole (16-bit elements) are encoded, not aliased.
        let mut narrow = Channel::new(
            &mut a,
            wire::Encoding::elements_of(2),
            crate::Randomness::Os,
            0,
        );
        let mut m = narrow.message(4);
        m.copy_from_slice(&[1, 2, 0xffff, 7]);
        narrow.send_message(1, m).expect("sent");
        let mut receiver = Channel::new(
            &mut b,
            wire::Encoding::elements_of(2),
            crate::Randomness::Os,
            0,
        );
        assert_eq!(
            &receiver.recv(0, 4).expect("received")[..],
            &[1, 2, 0xffff, 7]
        );
    }
}
