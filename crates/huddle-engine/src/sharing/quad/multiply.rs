//! Quad's multiplication (see the module documentation of [`super`]), each
//! party's part piece by piece, fused truncation included.

use super::tables::{Key, V_M0, V_M21, V_PRODUCT};
use super::{key, key_mut, Quad};
use crate::error::RunError;
use crate::sharing::arith::Arith;
use crate::sharing::messages::quad as msg;
use crate::sharing::pieces::{dot_terms, pieces, LayerDraws, LayerGates, PIECE_WORDS};
use crate::sharing::{Channel, Shares};
use huddle_net::Phase;
use std::ops::Range;

/// A multiplication's working pieces, kept from layer to layer: a fresh
/// set on the stack is zeroed at every layer, which took about 1 % of a
/// party's time. Every piece is written before it is read.
pub(super) struct Scratch {
    words: Vec<Piece>,
    trunc: Box<[u8; PIECE_WORDS]>,
}

impl Scratch {
    const PIECES: usize = 7;

    pub(super) fn new() -> Self {
        Scratch {
            words: vec![[0; PIECE_WORDS]; Self::PIECES],
            trunc: Box::new([0; PIECE_WORDS]),
        }
    }

    /// `K` pieces (K at most 7) and a piece's truncations, holding what the
    /// last layer left in them.
    fn pieces<const K: usize>(&mut self) -> ([&mut Piece; K], &mut [u8; PIECE_WORDS]) {
        let mut words = self.words.iter_mut();
        let pieces = std::array::from_fn(|_| words.next().expect("at most Scratch::PIECES"));
        (pieces, &mut self.trunc)
    }
}

/// The products of a gate's operand components that the parties combine:
/// for operands a (components a0, a1) and b (b0, b1) of any party, a0 b0,
/// a1 b1, and the cross term a0 b1 + b0 a1 (at P0 a_u y0 + b_v x0, at P1
/// a0 y1 + b0 x1, at P2 a0 y2 + b0 x2, at P3 u y0 + v x0).
#[derive(Clone, Copy, Default)]
struct Products {
    first: u64,
    second: u64,
    cross: u64,
}

/// The products of word j of a (`x`) and b (`y`).
#[inline(always)]
fn products<R: Arith>(x: [&[u64]; 2], y: [&[u64]; 2], j: usize) -> Products {
    Products {
        first: R::mul(x[0][j], y[0][j]),
        second: R::mul(x[1][j], y[1][j]),
        cross: R::add(R::mul(x[0][j], y[1][j]), R::mul(y[0][j], x[1][j])),
    }
}

/// Calls `f(i, products)` for word i of the piece `piece` of the layer; a
/// dot product's are the sums over its pairs (every one is bilinear).
/// Inlined, so the products a caller does not use are never computed.
#[inline(always)]
fn each_word_in<R: Arith>(
    s: &Shares,
    layer: &LayerGates,
    piece: Range<usize>,
    mut f: impl FnMut(usize, Products),
) {
    let mut buffer = Vec::new();
    for seg in layer.segments(piece) {
        let words = seg.words;
        let slices = |slot: u32| {
            [
                &s.get(0, slot)[words.clone()],
                &s.get(1, slot)[words.clone()],
            ]
        };
        if seg.more.is_empty() {
            let (x, y) = (slices(seg.a), slices(seg.b));
            for j in 0..x[0].len() {
                f(seg.at + j, products::<R>(x, y, j));
            }
            continue;
        }
        let sums = dot_terms(
            (seg.a, seg.b),
            seg.more,
            &mut buffer,
            words.len(),
            |a, b, acc: &mut [Products]| {
                let (x, y) = (slices(a), slices(b));
                for (j, t) in acc.iter_mut().enumerate() {
                    let p = products::<R>(x, y, j);
                    t.first = R::add(t.first, p.first);
                    t.second = R::add(t.second, p.second);
                    t.cross = R::add(t.cross, p.cross);
                }
            },
        );
        for (j, &p) in sums.iter().enumerate() {
            f(seg.at + j, p);
        }
    }
}

/// A piece's worth of words, on the stack.
type Piece = [u64; PIECE_WORDS];

/// At P1 and P2, after the exchange: c0 = a0 b0 - m1 - m20 = ab + z0 over
/// the provisional a0 b0 in the output slots, and into `c` for the views.
/// A truncating gate's c0 is ab + e, and its output is (ab + e)^t (`tr`:
/// the piece's truncations, when the layer has any). `sent` is this party's
/// own message (m1 or m20) where the outputs still hold a0 b0; a plain
/// layer's outputs hold a0 b0 minus it already (the message was sent
/// without a copy), and `sent` is None.
#[inline(always)]
fn finish_c0<R: Arith>(
    layer: &LayerGates,
    s: &mut Shares,
    piece: Range<usize>,
    sent: Option<&[u64]>,
    got: &[u64],
    c: &mut Piece,
    tr: Option<&[u8; PIECE_WORDS]>,
) {
    let got = &got[piece.clone()];
    match (tr, sent) {
        (None, None) => layer.map_output(s, piece, 0, 0, |i, partial| {
            c[i] = R::sub(partial, got[i]);
            c[i]
        }),
        (None, Some(sent)) => {
            let sent = &sent[piece.clone()];
            layer.map_output(s, piece, 0, 0, |i, a0b0| {
                c[i] = R::sub(R::sub(a0b0, sent[i]), got[i]);
                c[i]
            })
        }
        (Some(tr), sent) => {
            let sent = sent.map(|m| &m[piece.clone()]);
            layer.map_output(s, piece, 0, 0, |i, a0b0| {
                let partial = sent.map_or(a0b0, |m| R::sub(a0b0, m[i]));
                c[i] = R::sub(partial, got[i]);
                truncated::<R>(c[i], layer.mask, tr[i])
            })
        }
    }
}

/// z0 = e^t of a truncating gate, e = -(x0 y0 + r013 + r023), as P0 and P3
/// both compute it.
#[inline(always)]
fn truncated_e<R: Arith>(x0y0: u64, r013: u64, r023: u64, mask: u64, f: u8) -> u64 {
    R::shift_masked(R::neg(R::add(R::add(x0y0, r013), r023)), mask, f)
}

/// x shifted as fused truncation does, or x where `f` is 0.
#[inline(always)]
fn truncated<R: Arith>(x: u64, mask: u64, f: u8) -> u64 {
    if f > 0 {
        R::shift_masked(x, mask, f)
    } else {
        x
    }
}

// Each party's multiplication runs piece by piece (see `pieces`): masks are
// read from the keys' streams where whole-layer draws would have put them
// (K013: z1 then r013; K023: z2; K123: w then r123), provisional outputs are
// written before the messages arrive, and every view absorbs its values in
// the same order as at its other members.
impl Quad {
    /// P0: m0 in preprocessing; its share from m21 and (Quad) m3 or
    /// (Quad-Het) m21 = c0 + w, with m22 for the v3 check.
    #[inline(always)]
    pub(super) fn multiply_p0<R: Arith>(
        &mut self,
        ch: &mut Channel,
        layer: &LayerGates,
        s: &mut Shares,
    ) -> Result<(), RunError> {
        let n = layer.words();
        let (k013, k023) = (key(&self.keys, Key::K013), key(&self.keys, Key::K023));
        let (d013, d023) = (LayerDraws::new(k013, n, 2), LayerDraws::new(k023, n, 1));
        let mut m0 = ch.message(n);
        let ([z0, z2, r, own], tr) = self.scratch.pieces();
        for piece in pieces(n) {
            d013.read(k013, 0, piece.clone(), z0); // z1 for now
            d023.read(k023, 0, piece.clone(), z2); // r023 for a truncating gate
            d013.read(k013, 1, piece.clone(), r);
            let m0 = &mut m0[piece.clone()];
            if layer.truncates {
                layer.truncation(piece.clone(), tr);
                let mask = layer.mask;
                each_word_in::<R>(s, layer, piece.clone(), |i, p| {
                    if tr[i] > 0 {
                        // c0 = ab + e at P1 and P2 with e = -(x0 y0 + r013
                        // + r023); z0 = e^t and m0 = z0 - z1 (P3 checks it).
                        let t = truncated_e::<R>(p.second, r[i], z2[i], mask, tr[i]);
                        m0[i] = R::sub(t, z0[i]);
                        z0[i] = t;
                    } else {
                        z0[i] = R::add(z0[i], z2[i]);
                        m0[i] = R::add(R::add(z0[i], p.second), r[i]);
                    }
                });
            } else {
                for i in 0..piece.len() {
                    z0[i] = R::add(z0[i], z2[i]);
                }
                // m0 = z0 + x0 y0 + r013 (P3 checks it).
                each_word_in::<R>(s, layer, piece.clone(), |i, p| {
                    m0[i] = R::add(R::add(z0[i], p.second), r[i]);
                });
            }
            layer.map_output(s, piece, 1, 1, |i, _| z0[i]);
        }
        d013.finish(key_mut(&mut self.keys, Key::K013));
        d023.finish(key_mut(&mut self.keys, Key::K023));
        ch.in_phase(Phase::Offline, |ch| ch.send_message_tagged(msg::M0, 2, m0))?;
        let views = self.views.as_mut().expect("setup runs first");
        // `own`: v3 (Quad-Het) or cw (Quad).
        if self.het {
            let m21 = ch.recv(2, n)?;
            let m22 = ch.recv(2, n)?;
            views.absorb(V_M21, &m21);
            for piece in pieces(n) {
                // v3 = m22 - (a_u y0 + b_v x0), compared with P3's.
                let (m21, m22) = (&m21[piece.clone()], &m22[piece.clone()]);
                each_word_in::<R>(s, layer, piece.clone(), |i, p| {
                    own[i] = R::sub(m22[i], p.cross);
                });
                views.absorb(V_M21, m22);
                views.absorb(V_PRODUCT, &own[..piece.len()]);
                layer.map_output(s, piece, 1, 0, |i, z0| R::sub(m21[i], z0));
            }
            for v in [m21, m22] {
                ch.recycle(v);
            }
        } else {
            let mut m3 = ch.recv(3, n)?;
            if !layer.truncates {
                // a_u y0 + b_v x0 + m3 while m21 is on its way.
                for piece in pieces(n) {
                    let m3 = &mut m3[piece.clone()];
                    each_word_in::<R>(s, layer, piece.clone(), |i, p| {
                        m3[i] = R::add(p.cross, m3[i]);
                    });
                }
            }
            let m21 = ch.recv(2, n)?;
            for piece in pieces(n) {
                // cw = m21 - (a_u y0 + b_v x0 + m3) = ab + w. A truncating
                // gate: m21 = (ab + e)^t + w, so cw = m21 - z0, and the
                // check is a_u y0 + b_v x0 + m3 = m1 + m20 + r123.
                let (m3, m21) = (&m3[piece.clone()], &m21[piece.clone()]);
                views.absorb(V_M21, m21);
                // Word-level branches only in layers that truncate: plain
                // layers keep their loops branch-free (vectorized).
                if layer.truncates {
                    layer.truncation(piece.clone(), tr);
                    each_word_in::<R>(s, layer, piece.clone(), |i, p| {
                        own[i] = if tr[i] > 0 {
                            R::add(p.cross, m3[i])
                        } else {
                            R::sub(m21[i], R::add(p.cross, m3[i]))
                        };
                    });
                    layer.map_output(s, piece.clone(), 1, 0, |i, z0| {
                        if tr[i] > 0 {
                            return R::sub(m21[i], z0);
                        }
                        let cw = own[i];
                        own[i] = R::add(cw, z0);
                        cw
                    });
                } else {
                    layer.map_output(s, piece.clone(), 1, 0, |i, z0| {
                        let cw = R::sub(m21[i], m3[i]);
                        own[i] = R::add(cw, z0);
                        cw
                    });
                }
                views.absorb(V_PRODUCT, &own[..piece.len()]);
            }
            for v in [m3, m21] {
                ch.recycle(v);
            }
        }
        Ok(())
    }

    /// P1: m1 to P2, m20 from it; c0 = a0 b0 - m1 - m20 = ab + z0.
    #[inline(always)]
    pub(super) fn multiply_p1<R: Arith>(
        &mut self,
        ch: &mut Channel,
        layer: &LayerGates,
        s: &mut Shares,
    ) -> Result<(), RunError> {
        let (n, het) = (layer.words(), self.het);
        let (k013, k123) = (key(&self.keys, Key::K013), key(&self.keys, Key::K123));
        let (d013, d123) = (LayerDraws::new(k013, n, 2), LayerDraws::new(k123, n, 2));
        let views = self.views.as_mut().expect("setup runs first");
        // A plain Quad layer reads m1 only as a0 b0 - m1, which the
        // outputs keep until m20 arrives: m1 is sent without a copy.
        let plain = !het && !layer.truncates;
        let mut m1 = ch.message(n);
        let ([z1, r, c, wm], tr) = self.scratch.pieces();
        for piece in pieces(n) {
            d013.read(k013, 0, piece.clone(), z1);
            d013.read(k013, 1, piece.clone(), r);
            let m1 = &mut m1[piece.clone()];
            each_word_in::<R>(s, layer, piece.clone(), |i, p| {
                m1[i] = R::add(p.cross, r[i]);
                c[i] = p.first;
            });
            if plain {
                // Quad's m21 = a0 b0 + r123, as P2 sends it to P0.
                d123.read(k123, 1, piece.clone(), r);
                views.absorb_with(V_M21, piece.len(), |i| R::add(c[i], r[i]));
                layer.update_outputs(s, piece, |i, _, _| (R::sub(c[i], m1[i]), z1[i]));
            } else {
                layer.update_outputs(s, piece, |i, _, _| (c[i], z1[i]));
            }
        }
        let m1 = if plain {
            ch.send_message_tagged(msg::M1, 2, m1)?;
            None
        } else {
            ch.send_tagged(msg::M1, 2, &m1)?;
            Some(m1)
        };
        let m20 = ch.recv(2, n)?;
        let mask = layer.mask;
        for piece in pieces(n) {
            if layer.truncates {
                layer.truncation(piece.clone(), tr);
            }
            let trunc = layer.truncates.then_some(&*tr);
            finish_c0::<R>(layer, s, piece.clone(), m1.as_deref(), &m20, c, trunc);
            d123.read(k123, 0, piece.clone(), wm);
            if plain {
                // Quad: the product ab + z0 + w.
                views.absorb_with(V_PRODUCT, piece.len(), |i| R::add(c[i], wm[i]));
                continue;
            }
            let m1 = m1.as_deref().expect("kept where the layer is not plain");
            let (m1p, m20p) = (&m1[piece.clone()], &m20[piece.clone()]);
            if het {
                // m21 = c0 + w ((ab + e)^t + w if truncating), as P2 sends it to P0.
                if layer.truncates {
                    views.absorb_with(V_M21, piece.len(), |i| {
                        R::add(truncated::<R>(c[i], mask, tr[i]), wm[i])
                    });
                } else {
                    views.absorb_with(V_M21, piece.len(), |i| R::add(c[i], wm[i]));
                }
            } else {
                // m21, sent after the exchange: a0 b0 + r123 = c0 + m1 +
                // m20 + r123, or (ab + e)^t + w; the product check: ab +
                // z0 + w, or m1 + m20 + r123.
                d123.read(k123, 1, piece.clone(), r);
                views.absorb_with(V_M21, piece.len(), |i| {
                    if tr[i] > 0 {
                        R::add(R::shift_masked(c[i], mask, tr[i]), wm[i])
                    } else {
                        R::add(R::add(R::add(c[i], m1p[i]), m20p[i]), r[i])
                    }
                });
                views.absorb_with(V_PRODUCT, piece.len(), |i| {
                    if tr[i] > 0 {
                        R::add(R::add(m1p[i], m20p[i]), r[i])
                    } else {
                        R::add(c[i], wm[i])
                    }
                });
            }
        }
        if let (true, Some(m1)) = (het, m1.as_deref()) {
            // m22 = m1 + m20 + r123, as P2 sends it to P0 after all of m21.
            for piece in pieces(n) {
                d123.read(k123, 1, piece.clone(), r);
                let (m1, m20) = (&m1[piece.clone()], &m20[piece.clone()]);
                views.absorb_with(V_M21, piece.len(), |i| R::add(R::add(m1[i], m20[i]), r[i]));
            }
        }
        d013.finish(key_mut(&mut self.keys, Key::K013));
        d123.finish(key_mut(&mut self.keys, Key::K123));
        if let Some(m1) = m1 {
            ch.recycle(m1);
        }
        ch.recycle(m20);
        Ok(())
    }

    /// P2: m0 from P0, m20 to P1, m1 from it; c0 = ab + z0; then to P0 m21
    /// (Quad: a0 b0 + r123, before the exchange; Quad-Het: c0 + w and m22).
    #[inline(always)]
    pub(super) fn multiply_p2<R: Arith>(
        &mut self,
        ch: &mut Channel,
        layer: &LayerGates,
        s: &mut Shares,
    ) -> Result<(), RunError> {
        let (n, het) = (layer.words(), self.het);
        let (k023, k123) = (key(&self.keys, Key::K023), key(&self.keys, Key::K123));
        let (d023, d123) = (LayerDraws::new(k023, n, 1), LayerDraws::new(k123, n, 2));
        let views = self.views.as_mut().expect("setup runs first");
        // A plain Quad layer (`early`) sends m21 = a0 b0 + r123 before m0
        // arrives, as it needs none of it: P0 finishes the layer meanwhile.
        // Its products wait in m20 for m0; m20 then goes out without a copy
        // (the outputs keep a0 b0 - m20 until m1 arrives). A layer that
        // truncates (its m21 needs (ab + e)^t) and Quad-Het send m21 after
        // the exchange.
        let early = !het && !layer.truncates;
        let ([z2, r, c, own, wm], tr) = self.scratch.pieces();
        let mask = layer.mask;
        let m20 = if early {
            let (mut m20, mut m21) = (ch.message(n), ch.message(n));
            for piece in pieces(n) {
                let (m20, m21) = (&mut m20[piece.clone()], &mut m21[piece.clone()]);
                d023.read(k023, 0, piece.clone(), z2);
                d123.read(k123, 1, piece.clone(), r);
                each_word_in::<R>(s, layer, piece.clone(), |i, p| {
                    m20[i] = p.cross;
                    m21[i] = R::add(p.first, r[i]);
                    c[i] = p.first;
                });
                layer.update_outputs(s, piece, |i, _, _| (c[i], z2[i]));
            }
            ch.send_message_tagged(msg::M21, 0, m21)?;
            // m20 = a0 y2 + b0 x2 - m0; m0 is hashed once m20 is on its way.
            let m0 = ch.recv(0, n)?;
            for piece in pieces(n) {
                let (m0, m20) = (&m0[piece.clone()], &mut m20[piece.clone()]);
                for (m, &m0) in m20.iter_mut().zip(m0) {
                    *m = R::sub(*m, m0);
                }
                layer.map_output(s, piece, 0, 0, |i, a0b0| R::sub(a0b0, m20[i]));
            }
            ch.send_message_tagged(msg::M20, 1, m20)?;
            views.absorb(V_M0, &m0);
            ch.recycle(m0);
            None
        } else {
            let mut m20 = ch.recv(0, n)?; // m0, then m20
            for piece in pieces(n) {
                let m20 = &mut m20[piece.clone()];
                views.absorb(V_M0, m20);
                // r023 for a truncating gate: m20 = a0 y2 + b0 x2 - m0; a
                // truncating gate's is a0 y2 + b0 x2 + r023, and its
                // m0 = e^t - z1 is P2's new mask.
                d023.read(k023, 0, piece.clone(), z2);
                if layer.truncates {
                    layer.truncation(piece.clone(), tr);
                    each_word_in::<R>(s, layer, piece.clone(), |i, p| {
                        if tr[i] > 0 {
                            own[i] = m20[i];
                            m20[i] = R::add(p.cross, z2[i]);
                        } else {
                            own[i] = z2[i];
                            m20[i] = R::sub(p.cross, m20[i]);
                        }
                        c[i] = p.first;
                    });
                } else {
                    each_word_in::<R>(s, layer, piece.clone(), |i, p| {
                        m20[i] = R::sub(p.cross, m20[i]);
                        c[i] = p.first;
                    });
                    own[..piece.len()].copy_from_slice(&z2[..piece.len()]);
                }
                layer.update_outputs(s, piece, |i, _, _| (c[i], own[i]));
            }
            ch.send_tagged(msg::M20, 1, &m20)?;
            Some(m20)
        };
        let m1 = ch.recv(1, n)?;
        let mut m22 = ch.message(if het { n } else { 0 });
        let mut m21 = ch.message(if early { 0 } else { n });
        for piece in pieces(n) {
            if layer.truncates {
                layer.truncation(piece.clone(), tr);
            }
            let trunc = layer.truncates.then_some(&*tr);
            finish_c0::<R>(layer, s, piece.clone(), m20.as_deref(), &m1, c, trunc);
            d123.read(k123, 0, piece.clone(), wm);
            if early {
                views.absorb_with(V_PRODUCT, piece.len(), |i| R::add(c[i], wm[i]));
                continue;
            }
            let m20 = m20.as_deref().expect("kept where the layer is not plain");
            let (m1, m20p) = (&m1[piece.clone()], &m20[piece.clone()]);
            if het {
                // m21 = c0 + w ((ab + e)^t + w) and m22 = m1 + m20 + r123.
                d123.read(k123, 1, piece.clone(), r);
                let (m21, m22) = (&mut m21[piece.clone()], &mut m22[piece.clone()]);
                if layer.truncates {
                    for i in 0..piece.len() {
                        m21[i] = R::add(truncated::<R>(c[i], mask, tr[i]), wm[i]);
                    }
                } else {
                    for i in 0..piece.len() {
                        m21[i] = R::add(c[i], wm[i]);
                    }
                }
                for i in 0..piece.len() {
                    m22[i] = R::add(R::add(m1[i], m20p[i]), r[i]);
                }
            } else if layer.truncates {
                // m21 after the exchange (a0 b0 + r123 = c0 + m1 + m20 +
                // r123, or (ab + e)^t + w) and the product check (ab + z0 +
                // w, or m1 + m20 + r123).
                d123.read(k123, 1, piece.clone(), r);
                let m21 = &mut m21[piece.clone()];
                for i in 0..piece.len() {
                    let sum = R::add(R::add(m1[i], m20p[i]), r[i]);
                    if tr[i] > 0 {
                        m21[i] = R::add(R::shift_masked(c[i], mask, tr[i]), wm[i]);
                        own[i] = sum;
                    } else {
                        m21[i] = R::add(c[i], sum);
                        own[i] = R::add(c[i], wm[i]);
                    }
                }
                views.absorb(V_PRODUCT, &own[..piece.len()]);
            }
        }
        d023.finish(key_mut(&mut self.keys, Key::K023));
        d123.finish(key_mut(&mut self.keys, Key::K123));
        if early {
            ch.recycle(m21);
        } else {
            ch.send_message_tagged(msg::M21, 0, m21)?;
        }
        if het {
            ch.send_message_tagged(msg::M22, 0, m22)?;
        } else {
            ch.recycle(m22);
        }
        if let Some(m20) = m20 {
            ch.recycle(m20);
        }
        ch.recycle(m1);
        Ok(())
    }

    /// P3: checks m0; Quad: m3 = x0 (y0 - v) - y0 u - w + r123 to P0;
    /// Quad-Het: v3 = x0 (y0 - v) - y0 u - z0 + r123, compared with P0's.
    #[inline(always)]
    pub(super) fn multiply_p3<R: Arith>(
        &mut self,
        ch: &mut Channel,
        layer: &LayerGates,
        s: &mut Shares,
    ) -> Result<(), RunError> {
        let (n, het) = (layer.words(), self.het);
        let (k013, k023, k123) = (
            key(&self.keys, Key::K013),
            key(&self.keys, Key::K023),
            key(&self.keys, Key::K123),
        );
        let (d013, d023, d123) = (
            LayerDraws::new(k013, n, 2),
            LayerDraws::new(k023, n, 1),
            LayerDraws::new(k123, n, 2),
        );
        let views = self.views.as_mut().expect("setup runs first");
        let mut m3 = ch.message(if het { 0 } else { n });
        let ([z0, z2, r013, wm, r123, m0, v3], tr) = self.scratch.pieces();
        let mask = layer.mask;
        for piece in pieces(n) {
            d013.read(k013, 0, piece.clone(), z0); // z1 for now
            d023.read(k023, 0, piece.clone(), z2); // r023 for a truncating gate
            d013.read(k013, 1, piece.clone(), r013);
            d123.read(k123, 0, piece.clone(), wm);
            d123.read(k123, 1, piece.clone(), r123);
            if layer.truncates {
                layer.truncation(piece.clone(), tr);
            }
            let t = if het {
                &mut v3[..]
            } else {
                &mut m3[piece.clone()]
            };
            // x0 (y0 - v) - y0 u = x0 y0 - (u y0 + v x0). A truncating gate:
            // z0 = e^t with e = -(x0 y0 + r013 + r023), m0 = z0 - z1, and
            // m3 (Quad) or v3 (Quad-Het) = 2 x0 y0 - (u y0 + v x0) + r013 +
            // r023 + r123, which makes P0's a_u y0 + b_v x0 + m3 equal
            // m1 + m20 + r123.
            if layer.truncates {
                each_word_in::<R>(s, layer, piece.clone(), |i, p| {
                    if tr[i] > 0 {
                        let z = truncated_e::<R>(p.second, r013[i], z2[i], mask, tr[i]);
                        m0[i] = R::sub(z, z0[i]);
                        z0[i] = z;
                        let r = R::add(R::add(r013[i], z2[i]), r123[i]);
                        t[i] = R::add(R::sub(R::add(p.second, p.second), p.cross), r);
                    } else {
                        z0[i] = R::add(z0[i], z2[i]);
                        m0[i] = R::add(R::add(z0[i], p.second), r013[i]);
                        let less = if het { z0[i] } else { wm[i] };
                        t[i] = R::add(R::sub(R::sub(p.second, p.cross), less), r123[i]);
                    }
                });
            } else {
                for i in 0..piece.len() {
                    z0[i] = R::add(z0[i], z2[i]);
                }
                let less = if het { &z0 } else { &wm };
                each_word_in::<R>(s, layer, piece.clone(), |i, p| {
                    m0[i] = R::add(R::add(z0[i], p.second), r013[i]);
                    t[i] = R::add(R::sub(R::sub(p.second, p.cross), less[i]), r123[i]);
                });
            }
            views.absorb(V_M0, &m0[..piece.len()]);
            if het {
                views.absorb(V_PRODUCT, &v3[..piece.len()]);
            }
            layer.update_outputs(s, piece, |i, _, _| (wm[i], z0[i]));
        }
        d013.finish(key_mut(&mut self.keys, Key::K013));
        d023.finish(key_mut(&mut self.keys, Key::K023));
        d123.finish(key_mut(&mut self.keys, Key::K123));
        if het {
            ch.recycle(m3);
        } else {
            ch.in_phase(Phase::Offline, |ch| ch.send_message_tagged(msg::M3, 0, m3))?;
        }
        Ok(())
    }
}
