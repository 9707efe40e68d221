//! Message buffers kept for reuse across rounds.
//!
//! A round's messages are megabytes, and memory fresh from the kernel costs a
//! page fault and a zeroing per page: in a layer-by-layer protocol that is
//! as much work as the protocol's own arithmetic. So a buffer, once written
//! to a socket (or read by the protocol), comes back here, and the next
//! message (sent, or read from a socket) takes it. One pool per process,
//! shared by every endpoint and link thread, because buffers travel between
//! them: a party that receives more messages than it sends hands its surplus
//! to its link threads' next reads, and in-memory links pass the buffer itself
//! from one endpoint to the other.

use std::sync::Mutex;

/// Buffers held at most, and bytes held at most: enough for every message of
/// a round of a few parties in one process, and for the messages of a peer
/// that runs a slice ahead (Quad's P3 sends an m3 per layer), which otherwise
/// arrive in fresh memory slice after slice; bounded so that a long-lived
/// process does not keep a large batch's memory forever.
const KEEP_BUFFERS: usize = 128;
const KEEP_BYTES: usize = 512 << 20;
/// Smaller buffers are cheap to allocate (the allocator reuses them itself).
const SMALLEST_KEPT: usize = 64 << 10;

struct Pool {
    buffers: Vec<Vec<u8>>,
    bytes: usize,
}

impl Pool {
    const fn new() -> Pool {
        Pool {
            buffers: Vec::new(),
            bytes: 0,
        }
    }

    /// The smallest kept buffer with room for `capacity` bytes, with the
    /// bytes of the message it last held (its length says how many).
    fn take(&mut self, capacity: usize) -> Option<Vec<u8>> {
        if capacity < SMALLEST_KEPT {
            return None;
        }
        let at = self
            .buffers
            .iter()
            .enumerate()
            .filter(|(_, b)| b.capacity() >= capacity)
            .min_by_key(|(_, b)| b.capacity())
            .map(|(i, _)| i)?;
        let buffer = self.buffers.swap_remove(at);
        self.bytes -= buffer.capacity();
        Some(buffer)
    }

    fn put(&mut self, buffer: Vec<u8>) {
        let capacity = buffer.capacity();
        if capacity < SMALLEST_KEPT
            || self.buffers.len() >= KEEP_BUFFERS
            || self.bytes + capacity > KEEP_BYTES
        {
            return;
        }
        // Kept with its contents: a buffer to be overwritten whole (see
        // `scratch`) needs no zeroing of the bytes it already holds.
        self.bytes += capacity;
        self.buffers.push(buffer);
    }

    /// Drops every kept buffer; the bytes they held.
    fn release(&mut self) -> usize {
        self.buffers.clear();
        std::mem::take(&mut self.bytes)
    }
}

static POOL: Mutex<Pool> = Mutex::new(Pool::new());

/// An empty buffer with room for at least `capacity` bytes, if the pool has
/// one (the smallest that fits).
pub(crate) fn take(capacity: usize) -> Option<Vec<u8>> {
    let mut buffer = POOL.lock().ok()?.take(capacity)?;
    buffer.clear();
    Some(buffer)
}

/// A buffer of `len` bytes with room for `capacity`, for the caller to
/// overwrite whole: a kept one holds bytes of this process's earlier
/// messages (only what it lacks up to `len` is zeroed), else fresh zeros.
pub(crate) fn scratch(len: usize, capacity: usize) -> Vec<u8> {
    let capacity = capacity.max(len);
    let buffer = POOL
        .lock()
        .ok()
        .and_then(|mut pool| pool.take(capacity))
        .unwrap_or_else(|| Vec::with_capacity(capacity));
    to_length(buffer, len)
}

/// `buffer` cut or grown to `len` bytes; only the growth is zeroed.
fn to_length(mut buffer: Vec<u8>, len: usize) -> Vec<u8> {
    buffer.truncate(len);
    buffer.resize(len, 0);
    buffer
}

/// Drops every kept buffer and returns the bytes they held. What the pool
/// holds depends on the runs before (up to `KEEP_BYTES`), so a harness
/// that compares a long-lived process's memory between runs (`huddle bench
/// soak`) empties it first.
pub fn release_kept() -> usize {
    POOL.lock().map_or(0, |mut pool| pool.release())
}

/// Gives a message buffer back for later messages (its bytes are kept for
/// a `scratch` message that overwrites them; `take` hands it out empty).
pub fn recycle(buffer: Vec<u8>) {
    if let Ok(mut pool) = POOL.lock() {
        pool.put(buffer);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_buffer_is_taken_again_empty_smallest_first_within_the_bounds() {
        let mut pool = Pool::new();
        let sizes = [3 * SMALLEST_KEPT, 2 * SMALLEST_KEPT];
        let mut at = Vec::new();
        for n in sizes {
            let mut b = Vec::with_capacity(n);
            b.extend_from_slice(&[7u8; 100]);
            at.push(b.as_ptr());
            pool.put(b);
        }
        // The smallest that fits, with the bytes it held.
        let b = pool.take(SMALLEST_KEPT + 1).expect("a kept buffer");
        assert_eq!((b.as_ptr(), &b[..]), (at[1], &[7u8; 100][..]));
        assert!(pool.take(3 * SMALLEST_KEPT + 1).is_none());
        assert_eq!(
            pool.take(3 * SMALLEST_KEPT).map(|b| b.as_ptr()),
            Some(at[0])
        );
        assert_eq!(pool.bytes, 0);
        // Small buffers are not kept; the count and byte bounds hold.
        pool.put(Vec::with_capacity(SMALLEST_KEPT - 1));
        assert!(pool.buffers.is_empty());
        for _ in 0..KEEP_BUFFERS + 5 {
            pool.put(Vec::with_capacity(SMALLEST_KEPT));
        }
        assert_eq!(pool.buffers.len(), KEEP_BUFFERS);
        assert_eq!(pool.release(), KEEP_BUFFERS * SMALLEST_KEPT);
        assert!(pool.buffers.is_empty() && pool.bytes == 0);
        assert!(pool.take(SMALLEST_KEPT).is_none());
        let mut pool = Pool::new();
        pool.put(Vec::with_capacity(KEEP_BYTES)); // never touched: no memory used
        pool.put(Vec::with_capacity(SMALLEST_KEPT));
        assert_eq!((pool.buffers.len(), pool.bytes), (1, KEEP_BYTES));
    }

    #[test]
    fn a_scratch_buffer_keeps_what_it_held_and_zeroes_only_its_growth() {
        let held = vec![7u8; 100];
        let at = held.as_ptr();
        let cut = to_length(held, 60);
        assert_eq!((cut.as_ptr(), &cut[..]), (at, &[7u8; 60][..]));
        let grown = to_length(cut, 80);
        assert_eq!(&grown[..60], &[7u8; 60][..]);
        assert_eq!(&grown[60..], &[0u8; 20][..]);
        let fresh = scratch(10, 17);
        assert_eq!(fresh.len(), 10);
        assert!(fresh.capacity() >= 17);
    }
}
