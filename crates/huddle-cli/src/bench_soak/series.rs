//! A configuration's memory after each run, in a fixed amount of memory:
//! a soak of hours keeps no more than one of seconds, so its own records
//! never grow the memory it measures (a value per run would, by 8 bytes
//! per run and series).

/// Buckets held at most; reserved up front. Even, so that merging pairs
/// leaves no bucket alone.
const BUCKETS: usize = 1024;

/// Values in buckets of `width` consecutive values each (the last may hold
/// fewer): when all buckets are full, neighbours merge and each holds
/// twice as many.
#[derive(Clone, Debug)]
pub struct Series {
    sums: Vec<u128>,
    width: usize,
    /// Values in the last bucket.
    last: usize,
    len: usize,
}

impl Default for Series {
    fn default() -> Series {
        Series {
            sums: Vec::with_capacity(BUCKETS),
            width: 1,
            last: 0,
            len: 0,
        }
    }
}

impl Series {
    pub fn push(&mut self, value: u64) {
        if self.sums.is_empty() || self.last == self.width {
            if self.sums.len() == BUCKETS {
                // Every bucket is full: pairs merge into full buckets of
                // twice the width.
                for i in 0..BUCKETS / 2 {
                    self.sums[i] = self.sums[2 * i] + self.sums[2 * i + 1];
                }
                self.sums.truncate(BUCKETS / 2);
                self.width *= 2;
            }
            self.sums.push(0);
            self.last = 0;
        }
        if let Some(s) = self.sums.last_mut() {
            *s += u128::from(value);
        }
        self.last += 1;
        self.len += 1;
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Values in bucket `i`.
    fn count(&self, i: usize) -> usize {
        if i + 1 == self.sums.len() {
            self.last
        } else {
            self.width
        }
    }

    /// The mean of the first `n` values (`from_end`: the last `n`), a
    /// bucket cut by the bound counted at its mean.
    pub fn mean(&self, n: usize, from_end: bool) -> f64 {
        let (mut sum, mut left) = (0.0, n.min(self.len));
        let order: Box<dyn Iterator<Item = usize>> = if from_end {
            Box::new((0..self.sums.len()).rev())
        } else {
            Box::new(0..self.sums.len())
        };
        for i in order {
            let take = left.min(self.count(i));
            sum += self.sums[i] as f64 * take as f64 / self.count(i) as f64;
            left -= take;
            if left == 0 {
                break;
            }
        }
        sum / n.min(self.len).max(1) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(values: impl IntoIterator<Item = u64>) -> Series {
        let mut s = Series::default();
        values.into_iter().for_each(|v| s.push(v));
        s
    }

    #[test]
    fn few_values_are_kept_exactly() {
        let s = of([10, 20, 30, 40]);
        assert_eq!(s.len(), 4);
        assert_eq!(s.mean(1, false), 10.0);
        assert_eq!(s.mean(2, true), 35.0);
        assert_eq!(s.mean(9, false), 25.0);
        assert!(of([]).is_empty());
    }

    #[test]
    fn many_values_take_no_more_room_and_keep_their_tenths() {
        let n = 100_000u64;
        let s = of(0..n);
        assert_eq!(s.len(), n as usize);
        assert!(s.sums.len() <= BUCKETS && s.sums.capacity() == BUCKETS);
        let tenth = (n / 10) as usize;
        // Exact means: 4999.5 and 94999.5; a cut bucket is off by less
        // than its width.
        assert!(
            (s.mean(tenth, false) - 4999.5).abs() < s.width as f64,
            "{}",
            s.mean(tenth, false)
        );
        assert!(
            (s.mean(tenth, true) - 94999.5).abs() < s.width as f64,
            "{}",
            s.mean(tenth, true)
        );
        let flat = of(std::iter::repeat_n(7, 5000));
        assert_eq!((flat.mean(500, false), flat.mean(500, true)), (7.0, 7.0));
    }
}
