//! Quad's conversions (HK-C Figures 15 and 17 in this sharing; see the
//! module documentation of [`super`]): the two terms' shares in the target
//! domain.

use super::tables::{Key, CONVERT_M0, CONVERT_M2};
use super::{key_mut, Quad};
use crate::error::RunError;
use crate::sharing::arith::Arith;
use crate::sharing::convert::SplitJob;
use crate::sharing::{draw, Channel, Shares};

impl Quad {
    /// HK-C Figure 15 (and 17) in this sharing; see the module documentation.
    pub(super) fn split_terms<F: Arith, T: Arith>(
        &mut self,
        ch: &mut Channel,
        job: &SplitJob,
        src: &Shares,
        dst: &mut Shares,
    ) -> Result<(), RunError> {
        let me = self.me;
        let [t0, t1] = job.terms;
        let n = job.term_words();
        self.views().set_encoding(ch.encoding());
        let views = self.views.as_mut().expect("setup runs first");
        let mut r123 = Vec::new();
        if me != 0 {
            r123 = draw(key_mut(&mut self.keys, Key::K123), n);
        }
        if me == 0 || me == 3 {
            // t1 = -x0 (component 1): P0 (t1, -t1), P3 (0, -t1); P1 and P2
            // hold (0, x1') and (0, x2') with x1' from K013 and
            // x2' = -t1 - x1' from P0 (P3 computes it too).
            let t = job.term(ch, 1, |slot, out| {
                for (o, &x) in out.iter_mut().zip(src.get(1, slot)) {
                    *o = F::neg(x);
                }
            });
            let x1 = draw(key_mut(&mut self.keys, Key::K013), n);
            let x2: Vec<u64> = t
                .iter()
                .zip(&x1)
                .map(|(&t, &x)| T::sub(T::neg(t), x))
                .collect();
            let neg: Vec<u64> = t.iter().map(|&t| T::neg(t)).collect();
            CONVERT_M0.send(ch, views, &x2)?;
            if me == 0 {
                dst.set_slots(0, t1, &t);
            } else {
                dst.zero_slots(0, t1);
            }
            dst.set_slots(1, t1, &neg);
            // t0 = a + x0: P0 (t0 + r123, 0) from P2, P3 (r123, 0).
            if me == 0 {
                let m2 = CONVERT_M2.receive(ch, views, n)?;
                dst.set_slots(0, t0, &m2);
            } else {
                dst.set_slots(0, t0, &r123);
            }
            dst.zero_slots(1, t0);
        } else {
            // t0 = a + x0 (component 0): P1 and P2 hold (t0, 0); P2 sends
            // P0 t0 + r123 (P1 computes it too).
            let t = job.term(ch, 0, |slot, out| {
                for (o, &x) in out.iter_mut().zip(src.get(0, slot)) {
                    *o = x;
                }
            });
            let m2: Vec<u64> = t.iter().zip(&r123).map(|(&t, &r)| T::add(t, r)).collect();
            CONVERT_M2.send(ch, views, &m2)?;
            dst.set_slots(0, t0, &t);
            dst.zero_slots(1, t0);
            dst.zero_slots(0, t1);
            if me == 1 {
                let x1 = draw(key_mut(&mut self.keys, Key::K013), n);
                dst.set_slots(1, t1, &x1);
            } else {
                let x2 = CONVERT_M0.receive(ch, views, n)?;
                dst.set_slots(1, t1, &x2);
            }
        }
        Ok(())
    }
}
