//! Wire format: every message is a frame `u32 little-endian length || payload`.
//! The first frame on a connection is a hello (`crate::hello`).

use std::io::{self, BufRead, BufReader, IoSlice, Read, Write};

pub(crate) fn write_frame(w: &mut impl Write, payload: &[u8]) -> io::Result<()> {
    w.write_all(&frame_header(payload)?)?;
    w.write_all(payload)
}

fn frame_header(payload: &[u8]) -> io::Result<[u8; 4]> {
    let len = u32::try_from(payload.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "message larger than 4 GiB"))?;
    Ok(len.to_le_bytes())
}

/// Payloads at least this long travel straight from their message buffer
/// (and arrive straight into one) instead of through a link's buffer: a
/// round's messages are megabytes, and a copy of each is as much work as
/// a protocol's arithmetic on it.
pub(crate) const DIRECT_BYTES: usize = 64 << 10;

/// The writing end of a link: small frames are gathered and leave together
/// (a round's messages in one write); a large payload leaves from its own
/// buffer in one vectored write with whatever was gathered before it.
pub(crate) struct FrameWriter<W: Write> {
    inner: W,
    gathered: Vec<u8>,
    capacity: usize,
}

impl<W: Write> FrameWriter<W> {
    /// Gathers up to `capacity` bytes of small frames before writing.
    pub(crate) fn new(inner: W, capacity: usize) -> Self {
        FrameWriter {
            inner,
            gathered: Vec::with_capacity(capacity.min(DIRECT_BYTES)),
            capacity,
        }
    }

    /// Queues one frame; it has left once [`flush`](Self::flush) returns.
    pub(crate) fn frame(&mut self, payload: &[u8]) -> io::Result<()> {
        let header = frame_header(payload)?;
        if payload.len() < DIRECT_BYTES {
            if self.gathered.len() + 4 + payload.len() > self.capacity {
                self.write_gathered()?;
            }
            self.gathered.extend_from_slice(&header);
            self.gathered.extend_from_slice(payload);
            return Ok(());
        }
        let mut parts = [
            IoSlice::new(&self.gathered),
            IoSlice::new(&header),
            IoSlice::new(payload),
        ];
        write_all_vectored(&mut self.inner, &mut parts)?;
        self.gathered.clear();
        Ok(())
    }

    /// Queues a control frame (goodbye, abort).
    pub(crate) fn control(&mut self, bytes: &[u8]) {
        self.gathered.extend_from_slice(bytes);
    }

    fn write_gathered(&mut self) -> io::Result<()> {
        self.inner.write_all(&self.gathered)?;
        self.gathered.clear();
        Ok(())
    }

    /// Writes everything queued.
    pub(crate) fn flush(&mut self) -> io::Result<()> {
        self.write_gathered()?;
        self.inner.flush()
    }
}

/// A sink that can also take bytes without blocking. What a protocol
/// thread writes itself (see `Outbound::deliver`) must never wait on a peer
/// that is not reading: whatever the sink does not take at once is left to
/// the link's writer thread.
pub(crate) trait WriteNow: Write + Send {
    /// Writes what the sink takes at once from `buf`, without blocking on
    /// the peer or on another thread: the bytes taken (0 where it would
    /// block), and whether all of them have left (not held back until a
    /// blocking flush).
    fn write_now(&mut self, buf: &[u8]) -> io::Result<(usize, bool)>;
}

impl<W: WriteNow> FrameWriter<W> {
    /// Writes whatever was gathered and one small frame (below
    /// [`DIRECT_BYTES`]) without blocking; whether all of it left. What did
    /// not leave stays queued in order until [`flush`](Self::flush).
    pub(crate) fn frame_now(&mut self, payload: &[u8]) -> io::Result<bool> {
        let header = frame_header(payload)?;
        self.gathered.extend_from_slice(&header);
        self.gathered.extend_from_slice(payload);
        let (taken, left) = self.inner.write_now(&self.gathered)?;
        self.gathered.drain(..taken);
        Ok(self.gathered.is_empty() && left)
    }
}

impl WriteNow for Box<dyn WriteNow> {
    fn write_now(&mut self, buf: &[u8]) -> io::Result<(usize, bool)> {
        (**self).write_now(buf)
    }
}

/// Sends what the kernel takes at once from `buf` on `socket`, without
/// blocking (the socket itself stays blocking for the link's threads).
pub(crate) fn send_now(socket: &std::net::TcpStream, buf: &[u8]) -> io::Result<usize> {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        loop {
            // SAFETY: `buf` is valid for `buf.len()` bytes for the whole
            // call, and the descriptor is the socket's, open while it lives.
            let sent = unsafe {
                libc::send(
                    socket.as_raw_fd(),
                    buf.as_ptr().cast(),
                    buf.len(),
                    libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL,
                )
            };
            if let Ok(n) = usize::try_from(sent) {
                return Ok(n);
            }
            let e = io::Error::last_os_error();
            match e.kind() {
                io::ErrorKind::WouldBlock => return Ok(0),
                io::ErrorKind::Interrupted => continue,
                _ => return Err(e),
            }
        }
    }
    #[cfg(not(unix))]
    {
        // No non-blocking send here: everything goes through the writer thread.
        let _ = (socket, buf);
        Ok(0)
    }
}

impl WriteNow for std::net::TcpStream {
    fn write_now(&mut self, buf: &[u8]) -> io::Result<(usize, bool)> {
        Ok((send_now(self, buf)?, true))
    }
}

/// `Write::write_all_vectored`, which is not stable yet.
fn write_all_vectored(w: &mut impl Write, mut parts: &mut [IoSlice<'_>]) -> io::Result<()> {
    IoSlice::advance_slices(&mut parts, 0);
    while !parts.is_empty() {
        match w.write_vectored(parts) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => IoSlice::advance_slices(&mut parts, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Lengths at the top of the range are control frames, never messages
/// (messages are at most 1 GiB by default and always below 4 GiB − 256).
/// Goodbye: the sender finished normally and closes.
const GOODBYE: u32 = u32::MAX;
/// Abort: the sender stops because of a failure. 4 bytes follow, naming the
/// party whose failure started it (so every party reports the root cause),
/// then a one-byte length and that many bytes of UTF-8: why, as the sender
/// puts it (empty where it has nothing to say). The reason is the peer's
/// text: it is bounded, cleaned of control characters and only printed.
const ABORT: u32 = u32::MAX - 1;
/// Liveness: a 2-byte length and that many bytes follow, the sender's
/// waits (see [`crate::waits`]). A link's writer sends one whenever it has
/// had nothing to write for [`crate::liveness::LIVENESS_EVERY`], so that a
/// peer waiting on this party can tell a long computation from a stall.
const LIVE: u32 = u32::MAX - 2;
/// A refusal before any handshake (see [`crate::refusal`]): it takes the
/// place of a hello or a TLS ClientHello, and its first byte (0xFC) is
/// neither a TLS record type nor the low byte of a hello's length followed
/// by the hello's zero high bytes. Never valid on an established link.
pub(crate) const REFUSED: u32 = u32::MAX - 3;
const FIRST_CONTROL: u32 = u32::MAX - 255;

/// The longest reason an abort or a refusal carries, in bytes.
pub(crate) const MAX_REASON: usize = 200;

pub(crate) fn goodbye_frame() -> [u8; 4] {
    GOODBYE.to_le_bytes()
}

/// A liveness frame carrying `body` (at most [`crate::waits::MAX_REPORT`] bytes).
pub(crate) fn live_frame(body: &[u8]) -> Vec<u8> {
    let mut f = Vec::with_capacity(6 + body.len());
    f.extend_from_slice(&LIVE.to_le_bytes());
    f.extend_from_slice(&(body.len() as u16).to_le_bytes());
    f.extend_from_slice(body);
    f
}

pub(crate) fn abort_frame(culprit: u32, reason: &str) -> Vec<u8> {
    let reason = bounded(reason);
    let mut f = Vec::with_capacity(9 + reason.len());
    f.extend_from_slice(&ABORT.to_le_bytes());
    f.extend_from_slice(&culprit.to_le_bytes());
    f.push(reason.len() as u8);
    f.extend_from_slice(reason.as_bytes());
    f
}

pub(crate) fn write_abort(w: &mut impl Write, culprit: u32) -> io::Result<()> {
    w.write_all(&abort_frame(culprit, ""))
}

/// `text` cut to at most [`MAX_REASON`] bytes, at a character boundary.
pub(crate) fn bounded(text: &str) -> &str {
    let mut end = text.len().min(MAX_REASON);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// A peer's text as it may be printed: valid UTF-8 (invalid sequences
/// replaced), no control characters (they could drive a terminal).
pub(crate) fn printable(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes)
        .chars()
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect()
}

/// Reads a one-byte length and that many bytes of peer text (at most
/// [`MAX_REASON`]), printable.
pub(crate) fn read_text(r: &mut impl Read) -> Result<String, FrameError> {
    let mut len = [0u8; 1];
    r.read_exact(&mut len).map_err(|_| FrameError::Truncated)?;
    let len = usize::from(len[0]);
    if len > MAX_REASON {
        return Err(FrameError::BadControl(format!(
            "a {len}-byte reason, above the limit of {MAX_REASON}"
        )));
    }
    let mut text = vec![0u8; len];
    r.read_exact(&mut text).map_err(|_| FrameError::Truncated)?;
    Ok(printable(&text))
}

/// Why a frame could not be read.
#[derive(Debug)]
pub(crate) enum FrameError {
    /// The peer said goodbye: it finished normally.
    Goodbye,
    /// The peer aborted because party `culprit` failed, for `reason`.
    Abort {
        culprit: u32,
        reason: String,
    },
    /// A control frame this version does not know.
    UnknownControl(u32),
    /// A control frame whose contents break the rules.
    BadControl(String),
    /// The stream ended between frames without a goodbye.
    Closed,
    /// The stream ended inside a frame.
    Truncated,
    Oversized(u64),
    Io(io::Error),
}

pub(crate) fn read_frame(r: &mut impl Read, max: usize) -> Result<Vec<u8>, FrameError> {
    let len = read_length(r, &mut |_| {})?;
    let payload = payload_buffer(len, max)?;
    read_payload(r, len, payload)
}

/// [`read_frame`] from a link's buffered reader: a large payload is read
/// straight from the stream into its message buffer, past the link's buffer
/// (which then holds at most its own size of the payload's start).
/// Liveness frames on the way go to `on_live`.
pub(crate) fn read_frame_direct<R: Read>(
    r: &mut BufReader<R>,
    max: usize,
    on_live: &mut dyn FnMut(&[u8]),
) -> Result<Vec<u8>, FrameError> {
    let len = read_length(r, on_live)?;
    let mut payload = payload_buffer(len, max)?;
    if len < DIRECT_BYTES {
        return read_payload(r, len, payload);
    }
    let buffered = r.buffer().len().min(len);
    payload.extend_from_slice(&r.buffer()[..buffered]);
    r.consume(buffered);
    let rest = len - buffered;
    read_payload(r.get_mut(), rest, payload)
}

/// A frame's length, or the control frame it is; liveness frames are
/// handed to `on_live` and skipped (their bytes were counted as they
/// arrived, see [`crate::liveness::Heard`]).
fn read_length(r: &mut impl Read, on_live: &mut dyn FnMut(&[u8])) -> Result<usize, FrameError> {
    loop {
        match read_header(r)? {
            LIVE => on_live(&read_live_body(r)?),
            len => return control_or_length(r, len),
        }
    }
}

fn read_live_body(r: &mut impl Read) -> Result<Vec<u8>, FrameError> {
    let mut len = [0u8; 2];
    r.read_exact(&mut len).map_err(|_| FrameError::Truncated)?;
    let len = usize::from(u16::from_le_bytes(len));
    if len > crate::waits::MAX_REPORT {
        return Err(FrameError::BadControl(format!(
            "a {len}-byte liveness frame, above the limit of {}",
            crate::waits::MAX_REPORT
        )));
    }
    let mut body = vec![0u8; len];
    r.read_exact(&mut body).map_err(|_| FrameError::Truncated)?;
    Ok(body)
}

/// The next 4-byte frame header.
fn read_header(r: &mut impl Read) -> Result<u32, FrameError> {
    let mut len = [0u8; 4];
    let mut got = 0;
    while got < 4 {
        match r.read(&mut len[got..]) {
            Ok(0) if got == 0 => return Err(FrameError::Closed),
            Ok(0) => return Err(FrameError::Truncated),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof && got == 0 => {
                return Err(FrameError::Closed)
            }
            Err(e) => return Err(FrameError::Io(e)),
        }
    }
    Ok(u32::from_le_bytes(len))
}

/// The control frame `len` is (its contents read from `r`), or a length.
fn control_or_length(r: &mut impl Read, len: u32) -> Result<usize, FrameError> {
    match len {
        GOODBYE => Err(FrameError::Goodbye),
        ABORT => {
            let mut culprit = [0u8; 4];
            r.read_exact(&mut culprit)
                .map_err(|_| FrameError::Truncated)?;
            Err(FrameError::Abort {
                culprit: u32::from_le_bytes(culprit),
                reason: read_text(r)?,
            })
        }
        FIRST_CONTROL.. => Err(FrameError::UnknownControl(len)),
        _ => Ok(len as usize),
    }
}

/// Where a payload of `len` bytes is read to.
fn payload_buffer(len: usize, max: usize) -> Result<Vec<u8>, FrameError> {
    if len > max {
        return Err(FrameError::Oversized(len as u64));
    }
    // The length is the peer's claim: before the first chunk has arrived we
    // reserve no more than that chunk, so a lying peer cannot make us
    // allocate up to `max` for nothing. Once it has arrived, the claim is
    // backed by real bytes and the buffer grows once to the exact length
    // (doubling would copy the message again and touch fresh pages twice).
    // A buffer of past messages costs nothing whatever the claim.
    Ok(crate::pool::take(len).unwrap_or_else(|| Vec::with_capacity(len.min(FIRST_CHUNK))))
}

/// Appends `len` bytes of payload to `payload` (a pool buffer, or one
/// with room for the first chunk; it may hold the payload's start already).
fn read_payload(
    r: &mut impl Read,
    len: usize,
    mut payload: Vec<u8>,
) -> Result<Vec<u8>, FrameError> {
    let room = payload.capacity() - payload.len();
    let first = len.min(room.max(FIRST_CHUNK));
    read_appending(r, &mut payload, first)?;
    if len > first {
        payload.reserve_exact(len - first);
        read_appending(r, &mut payload, len - first)?;
    }
    Ok(payload)
}

/// Appends exactly `n` bytes from `r` to `out` (its capacity already fits).
fn read_appending(r: &mut impl Read, out: &mut Vec<u8>, n: usize) -> Result<(), FrameError> {
    let got = r.take(n as u64).read_to_end(out).map_err(FrameError::Io)?;
    if got < n {
        return Err(FrameError::Truncated);
    }
    Ok(())
}

/// What a frame's length may make us allocate before its bytes arrive.
const FIRST_CHUNK: usize = 16 << 20;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn frames_round_trip_and_reject_bad_input() {
        let mut buf = Vec::new();
        write_frame(&mut buf, b"abc").expect("write");
        write_frame(&mut buf, b"").expect("write");
        let mut r = buf.as_slice();
        assert_eq!(read_frame(&mut r, 10).expect("frame"), b"abc");
        assert_eq!(read_frame(&mut r, 10).expect("frame"), b"");
        assert!(matches!(read_frame(&mut r, 10), Err(FrameError::Closed)));
        assert!(matches!(
            read_frame(&mut &buf[..5], 10),
            Err(FrameError::Truncated)
        ));
        assert!(matches!(
            read_frame(&mut &buf[..2], 10),
            Err(FrameError::Truncated)
        ));
        assert!(matches!(
            read_frame(&mut buf.as_slice(), 2),
            Err(FrameError::Oversized(3))
        ));
    }

    #[test]
    fn a_frame_past_the_first_chunk_grows_once_to_its_exact_length() {
        let len = FIRST_CHUNK + 12_345;
        let message: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
        let mut buf = Vec::new();
        write_frame(&mut buf, &message).expect("write");
        assert!(read_frame(&mut buf.as_slice(), 2 * len).expect("frame") == message);
        // Without a pool buffer: exact, not doubled (no second copy of the
        // message, no untouched tail of fresh pages).
        let fresh = Vec::with_capacity(FIRST_CHUNK);
        let got = read_payload(&mut &buf[4..], len, fresh).expect("payload");
        assert!(got == message, "payload differs");
        assert_eq!(got.capacity(), len);
        assert!(matches!(
            read_frame(&mut &buf[..buf.len() - 1], 2 * len),
            Err(FrameError::Truncated)
        ));
        assert!(matches!(
            read_frame(&mut &buf[..FIRST_CHUNK], 2 * len),
            Err(FrameError::Truncated)
        ));
    }

    /// A stream that takes at most `step` bytes per write and keeps
    /// them, counting its writes.
    struct Trickle {
        written: Vec<u8>,
        step: usize,
        writes: usize,
    }

    impl Write for Trickle {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            let n = buf.len().min(self.step);
            self.written.extend_from_slice(&buf[..n]);
            self.writes += 1;
            Ok(n)
        }
        fn write_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
            let mut n = 0;
            for b in bufs {
                let take = b.len().min(self.step - n);
                self.written.extend_from_slice(&b[..take]);
                n += take;
            }
            self.writes += 1;
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Reads at most `step` bytes per call from `bytes`.
    struct Chunks<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Chunks<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = buf.len().min(self.step).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    fn payload(len: usize, seed: u8) -> Vec<u8> {
        (0..len).map(|i| (i % 251) as u8 ^ seed).collect()
    }

    #[test]
    fn small_frames_leave_together_and_a_large_one_in_one_vectored_write() {
        let mut w = FrameWriter::new(
            Trickle {
                written: Vec::new(),
                step: usize::MAX,
                writes: 0,
            },
            1 << 20,
        );
        let (small, large) = (payload(100, 1), payload(DIRECT_BYTES, 2));
        w.frame(&small).expect("frame");
        w.frame(&small).expect("frame");
        assert_eq!(w.inner.writes, 0, "small frames wait for the flush");
        w.frame(&large).expect("frame");
        assert_eq!(
            w.inner.writes, 1,
            "gathered frames leave with the large one"
        );
        w.frame(&small).expect("frame");
        w.control(&goodbye_frame());
        w.flush().expect("flush");
        assert_eq!(w.inner.writes, 2);
        let mut expected = Vec::new();
        for p in [&small, &small, &large, &small] {
            write_frame(&mut expected, p).expect("frame");
        }
        expected.extend_from_slice(&goodbye_frame());
        assert!(w.inner.written == expected, "the stream differs");
    }

    proptest! {
        #[test]
        fn frames_of_every_size_survive_partial_writes_and_short_reads(
            sizes in proptest::collection::vec(
                prop_oneof![0..200usize, DIRECT_BYTES - 5..DIRECT_BYTES + 5, 100_000..300_000usize],
                1..8,
            ),
            write_step in 1_000..200_000usize,
            read_step in 1_000..200_000usize,
            gather in 16..300_000usize,
            buffer in 4..100_000usize,
        ) {
            let frames: Vec<Vec<u8>> =
                sizes.iter().enumerate().map(|(i, &n)| payload(n, i as u8)).collect();
            let mut w = FrameWriter::new(
                Trickle { written: Vec::new(), step: write_step, writes: 0 },
                gather,
            );
            // Liveness frames anywhere between messages are skipped.
            for f in &frames {
                w.control(&live_frame(&[]));
                w.frame(f).expect("frame");
            }
            w.control(&live_frame(&[1, 0, 0]));
            w.control(&abort_frame(7, "why\u{1b}[2J"));
            w.flush().expect("flush");
            let mut r = BufReader::with_capacity(
                buffer,
                Chunks { bytes: &w.inner.written, step: read_step },
            );
            for f in &frames {
                let got = read_frame_direct(&mut r, 1 << 20, &mut |_| {}).expect("frame");
                prop_assert!(&got == f, "a frame of {} bytes differs", f.len());
            }
            let mut lives = Vec::new();
            let end = read_frame_direct(&mut r, 1 << 20, &mut |b| lives.push(b.to_vec()));
            prop_assert_eq!(lives, vec![vec![1u8, 0, 0]]);
            prop_assert!(
                matches!(&end, Err(FrameError::Abort { culprit: 7, reason }) if reason == "why\u{fffd}[2J"),
                "the stream did not end in the abort frame"
            );
        }
    }
}
