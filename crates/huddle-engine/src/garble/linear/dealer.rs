//! The trusted dealer ([`TrustedDealer`]), a party outside the n parties
//! for party counts where PRSS needs too many keys, and each party's line
//! to it ([`DealerLine`]), which hands the party only its own shares.

use super::counter::{block_value, counter_block};
use super::LinearSource;
use crate::error::RunError;
use crate::garble::field::point;
use aes::cipher::{BlockEncrypt, KeyInit};
use huddle_core::Gf128;
use huddle_net::PartyId;
use std::sync::Arc;

/// A trusted dealer that is not one of the parties: it deals degree-t
/// Shamir sharings derived from its own secret key, and hands each party
/// only that party's shares (and to an owner its secrets): inside one
/// process (`huddle local`) through a [`DealerLine`] per party, or ahead of
/// a run across hosts (`huddle deal`) through a recording of each line.
pub(crate) struct TrustedDealer {
    cipher: aes::Aes128,
    t: usize,
}

impl TrustedDealer {
    pub(crate) fn new(
        t: usize,
        randomness: crate::Randomness,
    ) -> Result<Arc<TrustedDealer>, RunError> {
        let mut prg = randomness.draw(0, crate::options::draws::DEALER)?;
        Ok(Arc::new(TrustedDealer {
            cipher: aes::Aes128::new(&prg.next_seed().into()),
            t,
        }))
    }

    /// The dealer's line to party `me`.
    pub(crate) fn line(self: &Arc<Self>, me: PartyId) -> DealerLine {
        DealerLine {
            dealer: Arc::clone(self),
            me,
            call: 0,
        }
    }

    /// Party `me`'s shares of `count` secrets of call `call`: the secret
    /// and the t coefficients of each polynomial are AES blocks under the
    /// dealer's key. `kind` picks bits, elements or zeros.
    fn deal(
        &self,
        me: PartyId,
        call: u64,
        count: usize,
        kind: Kind,
        out: &mut Vec<Gf128>,
    ) -> Vec<u128> {
        let per = self.t + 1;
        let mut blocks: Vec<aes::Block> = (0..count as u64)
            .flat_map(|i| (0..per as u64).map(move |k| counter_block(call, i << 8 | k)))
            .collect();
        self.cipher.encrypt_blocks(&mut blocks);
        let x = point(me);
        let mut secrets = Vec::with_capacity(count);
        for poly in blocks.chunks_exact(per) {
            let secret = match kind {
                Kind::Bit => block_value(&poly[0]) & 1,
                Kind::Element => block_value(&poly[0]),
                Kind::Zero => 0,
            };
            let mut acc = Gf128::ZERO;
            for c in poly[1..].iter().rev() {
                acc = (acc + Gf128(block_value(c))) * x;
            }
            out.push(acc + Gf128(secret));
            secrets.push(secret);
        }
        secrets
    }
}

#[derive(Clone, Copy)]
enum Kind {
    Bit,
    Element,
    Zero,
}

/// What a party receives from the [`TrustedDealer`].
pub(crate) struct DealerLine {
    dealer: Arc<TrustedDealer>,
    me: PartyId,
    call: u64,
}

impl DealerLine {
    fn next_call(&mut self) -> u64 {
        self.call += 1;
        self.call
    }
}

impl LinearSource for DealerLine {
    fn bits(&mut self, count: usize, shares: &mut Vec<Gf128>) -> Result<(), RunError> {
        let call = self.next_call();
        self.dealer.deal(self.me, call, count, Kind::Bit, shares);
        Ok(())
    }

    fn owned_bits(
        &mut self,
        owner: PartyId,
        count: usize,
        shares: &mut Vec<Gf128>,
        secrets: &mut Vec<bool>,
    ) -> Result<(), RunError> {
        let call = self.next_call();
        let bits = self.dealer.deal(self.me, call, count, Kind::Bit, shares);
        if self.me == owner {
            secrets.extend(bits.iter().map(|&b| b == 1));
        }
        Ok(())
    }

    fn owned_element(&mut self, owner: PartyId) -> Result<(Gf128, Option<Gf128>), RunError> {
        let call = self.next_call();
        let mut share = Vec::with_capacity(1);
        let secret = self
            .dealer
            .deal(self.me, call, 1, Kind::Element, &mut share);
        Ok((share[0], (self.me == owner).then(|| Gf128(secret[0]))))
    }

    fn zeros(&mut self, count: usize, shares: &mut Vec<Gf128>) -> Result<(), RunError> {
        let call = self.next_call();
        self.dealer.deal(self.me, call, count, Kind::Zero, shares);
        Ok(())
    }
}
