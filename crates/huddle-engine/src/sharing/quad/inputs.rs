//! Quad's input sharing (see the module documentation of [`super`]): each
//! dealer's masks read slot by slot from the keys it holds (zero where it
//! lacks one), the masked values sent to P0, P1, P2 and compared.

use super::tables::{Key, V_INPUT};
use super::{key, Quad};
use crate::error::RunError;
use crate::sharing::arith::Arith;
use crate::sharing::messages::quad as msg;
use crate::sharing::pieces::LayerDraws;
use crate::sharing::{Channel, InputValues, Shares};
use huddle_core::Prg;

/// Where one mask of an input value comes from, at one party.
enum InputMask {
    /// The dealer is not among the key's holders: the mask is 0.
    Zero,
    /// Drawn from this key, at these positions of its stream.
    Drawn(Key, LayerDraws),
    /// Drawn from a key this party does not hold (it never reads it).
    Lacking,
}

impl Quad {
    pub(super) fn input_sharing<R: Arith>(
        &mut self,
        ch: &mut Channel,
        inputs: &InputValues,
        s: &mut Shares,
    ) -> Result<(), RunError> {
        // Values are hashed as this domain's words travel.
        self.views().set_encoding(ch.encoding());
        let me = self.me;
        let w = s.w;
        // Per input value: where its masks x1, x2, u lie in their keys'
        // streams (None where this party lacks the key). Read back slot by
        // slot, so no whole-input mask is ever held.
        let mut masks: Vec<[InputMask; 3]> = Vec::new();
        for (idx, slots) in inputs.slots.iter().enumerate() {
            let n = slots.len() * w;
            let keys = Self::input_keys(inputs.owners[idx]);
            masks.push(keys.map(|k| match k {
                None => InputMask::Zero,
                Some(k) => match self.keys[k as usize].as_mut() {
                    Some(prg) => InputMask::Drawn(k, LayerDraws::reserve(prg, n, 1)),
                    None => InputMask::Lacking,
                },
            }));
        }
        let lacks = |what: &str| RunError::Internal(format!("party {me} lacks {what}"));
        // A mask's words for slot j of an input value (`m`: 0 x1, 1 x2, 2 u).
        let read = |keys: &[Option<Prg>],
                    masks: &[InputMask; 3],
                    m: usize,
                    j: usize,
                    out: &mut [u64]|
         -> Result<(), RunError> {
            match &masks[m] {
                InputMask::Zero => out.fill(0),
                InputMask::Drawn(k, draws) => draws.read(key(keys, *k), 0, j * w..(j + 1) * w, out),
                InputMask::Lacking => return Err(lacks(["x1", "x2", "u"][m])),
            }
            Ok(())
        };
        // Components known without the masked value: P0 x0, P1 x1, P2 x2,
        // P3 (u, x0); at a dealer also a + u + x0 of its values, in input order.
        let own_words: usize = (0..inputs.slots.len())
            .filter(|&i| inputs.owners[i] == me)
            .map(|i| inputs.slots[i].len() * w)
            .sum();
        let mut masked_out = ch.buffer(own_words);
        let (mut x1, mut x2, mut u) = (vec![0; w], vec![0; w], vec![0; w]);
        let mut at = 0;
        for (idx, slots) in inputs.slots.iter().enumerate() {
            let dealer = inputs.owners[idx];
            for (j, &slot) in slots.iter().enumerate() {
                let [c0, c1, _] = &mut s.c;
                let (c0, c1) = (
                    &mut c0[slot as usize * w..][..w],
                    &mut c1[slot as usize * w..][..w],
                );
                let mine = &masks[idx];
                match me {
                    1 => read(&self.keys, mine, 0, j, c1)?,
                    2 => read(&self.keys, mine, 1, j, c1)?,
                    _ => {
                        read(&self.keys, mine, 0, j, &mut x1)?;
                        read(&self.keys, mine, 1, j, &mut x2)?;
                        for k in 0..w {
                            c1[k] = R::add(x1[k], x2[k]);
                        }
                        if me == 3 {
                            read(&self.keys, mine, 2, j, c0)?;
                        }
                    }
                }
                if dealer == me {
                    let v = inputs.own[idx]
                        .as_deref()
                        .ok_or_else(|| RunError::Internal("the owner has no values".into()))?;
                    let v = &v[j * w..(j + 1) * w];
                    // x0 is component 1 at P0 and P3, u component 0 at P3.
                    if me == 1 || me == 2 {
                        read(&self.keys, mine, 0, j, &mut x1)?;
                        read(&self.keys, mine, 1, j, &mut x2)?;
                        for k in 0..w {
                            x1[k] = R::add(x1[k], x2[k]);
                        }
                    }
                    let x0: &[u64] = if me == 1 || me == 2 { &x1 } else { c1 };
                    let u: &[u64] = if me == 3 {
                        c0
                    } else {
                        read(&self.keys, mine, 2, j, &mut u)?;
                        &u
                    };
                    for (k, out) in masked_out[at..at + w].iter_mut().enumerate() {
                        *out = R::add(R::add(v[k], u[k]), x0[k]);
                    }
                    at += w;
                }
            }
        }
        for to in (0..3).filter(|&p| p != me) {
            ch.send_tagged(msg::INPUT, to, &masked_out)?;
        }
        if me == 3 {
            ch.recycle(masked_out);
            return Ok(());
        }
        for dealer in 0..4 {
            let values: Vec<usize> = (0..inputs.slots.len())
                .filter(|&i| inputs.owners[i] == dealer)
                .collect();
            let count: usize = values.iter().map(|&i| inputs.slots[i].len()).sum();
            if count == 0 {
                continue;
            }
            let masked = if dealer == me {
                std::mem::take(&mut masked_out).into()
            } else {
                ch.recv(dealer, count * w)?
            };
            self.views().absorb(V_INPUT, &masked);
            // P0 takes off x0 (its component 1), P1 and P2 take off u.
            let mut at = 0;
            for &i in &values {
                for (j, &slot) in inputs.slots[i].iter().enumerate() {
                    let m = &masked[at..at + w];
                    at += w;
                    let [c0, c1, _] = &mut s.c;
                    let c0 = &mut c0[slot as usize * w..][..w];
                    let off = if me == 0 {
                        &c1[slot as usize * w..][..w]
                    } else {
                        read(&self.keys, &masks[i], 2, j, &mut u)?;
                        &u[..]
                    };
                    for k in 0..w {
                        c0[k] = R::sub(m[k], off[k]);
                    }
                }
            }
            ch.recycle(masked);
        }
        Ok(())
    }
}
