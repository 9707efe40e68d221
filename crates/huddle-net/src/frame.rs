//! Wire format: every message is a frame `u32 little-endian length || payload`.
//! The first frame on a connection is a `Hello` naming the sender's party id,
//! the session, the protocol and the circuit, so mismatched runs refuse to start.

use std::io::{self, Read, Write};

pub(crate) fn write_frame(w: &mut impl Write, payload: &[u8]) -> io::Result<()> {
    let len = u32::try_from(payload.len())
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "message larger than 4 GiB"))?;
    w.write_all(&len.to_le_bytes())?;
    w.write_all(payload)
}

/// Lengths at the top of the range are control frames, never messages
/// (messages are at most 1 GiB by default and always below 4 GiB − 256).
/// Goodbye: the sender finished normally and closes.
const GOODBYE: u32 = u32::MAX;
/// Abort: the sender stops because of a failure; 4 bytes follow, naming the
/// party whose failure started it (so every party reports the root cause).
const ABORT: u32 = u32::MAX - 1;
const FIRST_CONTROL: u32 = u32::MAX - 255;

pub(crate) fn write_goodbye(w: &mut impl Write) -> io::Result<()> {
    w.write_all(&GOODBYE.to_le_bytes())
}

pub(crate) fn write_abort(w: &mut impl Write, culprit: u32) -> io::Result<()> {
    w.write_all(&ABORT.to_le_bytes())?;
    w.write_all(&culprit.to_le_bytes())
}

/// Why a frame could not be read.
#[derive(Debug)]
pub(crate) enum FrameError {
    /// The peer said goodbye: it finished normally.
    Goodbye,
    /// The peer aborted because party `culprit` failed.
    Abort {
        culprit: u32,
    },
    /// A control frame this version does not know.
    UnknownControl(u32),
    /// The stream ended between frames without a goodbye.
    Closed,
    /// The stream ended inside a frame.
    Truncated,
    Oversized(u64),
    Io(io::Error),
}

pub(crate) fn read_frame(r: &mut impl Read, max: usize) -> Result<Vec<u8>, FrameError> {
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
    let len = u32::from_le_bytes(len);
    match len {
        GOODBYE => return Err(FrameError::Goodbye),
        ABORT => {
            let mut culprit = [0u8; 4];
            r.read_exact(&mut culprit)
                .map_err(|_| FrameError::Truncated)?;
            return Err(FrameError::Abort {
                culprit: u32::from_le_bytes(culprit),
            });
        }
        FIRST_CONTROL.. => return Err(FrameError::UnknownControl(len)),
        _ => {}
    }
    let len = len as usize;
    if len > max {
        return Err(FrameError::Oversized(len as u64));
    }
    // The length is the peer's claim: before the first chunk has arrived we
    // reserve no more than that chunk, so a lying peer cannot make us
    // allocate up to `max` for nothing. Once it has arrived, the claim is
    // backed by real bytes and the buffer grows once to the exact length
    // (doubling would copy the message again and touch fresh pages twice).
    // A buffer of past messages costs nothing whatever the claim.
    let payload =
        crate::pool::take(len).unwrap_or_else(|| Vec::with_capacity(len.min(FIRST_CHUNK)));
    read_payload(r, len, payload)
}

/// Reads a `len`-byte payload into `payload` (empty; a pool buffer, or one
/// with room for the first chunk).
fn read_payload(
    r: &mut impl Read,
    len: usize,
    mut payload: Vec<u8>,
) -> Result<Vec<u8>, FrameError> {
    let first = len.min(payload.capacity().max(FIRST_CHUNK));
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

const MAGIC: &[u8; 8] = b"HUDDLE/1";

/// The first message on every connection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Hello {
    pub party: u32,
    pub parties: u32,
    pub session: String,
    pub protocol: String,
    pub circuit: [u8; 32],
}

impl Hello {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(64 + self.session.len() + self.protocol.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.party.to_le_bytes());
        out.extend_from_slice(&self.parties.to_le_bytes());
        for s in [&self.session, &self.protocol] {
            out.extend_from_slice(&(s.len() as u16).to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        out.extend_from_slice(&self.circuit);
        out
    }

    pub(crate) fn decode(bytes: &[u8]) -> Result<Hello, String> {
        let not_huddle = || "the peer does not speak the huddle protocol (bad hello)".to_string();
        let rest = bytes
            .strip_prefix(MAGIC.as_slice())
            .ok_or_else(not_huddle)?;
        let take = |rest: &mut &[u8], n: usize| -> Result<Vec<u8>, String> {
            if rest.len() < n {
                return Err(not_huddle());
            }
            let (a, b) = rest.split_at(n);
            *rest = b;
            Ok(a.to_vec())
        };
        let mut rest = rest;
        let u32_of = |v: Vec<u8>| u32::from_le_bytes([v[0], v[1], v[2], v[3]]);
        let party = u32_of(take(&mut rest, 4)?);
        let parties = u32_of(take(&mut rest, 4)?);
        let mut strings = Vec::new();
        for _ in 0..2 {
            let len = take(&mut rest, 2)?;
            let len = u16::from_le_bytes([len[0], len[1]]) as usize;
            strings.push(String::from_utf8(take(&mut rest, len)?).map_err(|_| not_huddle())?);
        }
        let circuit: [u8; 32] = take(&mut rest, 32)?.try_into().map_err(|_| not_huddle())?;
        if !rest.is_empty() {
            return Err(not_huddle());
        }
        let protocol = strings.pop().unwrap_or_default();
        let session = strings.pop().unwrap_or_default();
        Ok(Hello {
            party,
            parties,
            session,
            protocol,
            circuit,
        })
    }
}

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

    proptest! {
        #[test]
        fn hello_round_trips(party: u32, parties: u32, session in ".{0,40}", protocol in "[a-z0-9]{0,10}", circuit: [u8; 32]) {
            let h = Hello { party, parties, session, protocol, circuit };
            prop_assert_eq!(Hello::decode(&h.encode()), Ok(h));
        }

        #[test]
        fn hello_decoding_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..100)) {
            let _ = Hello::decode(&bytes);
            let mut with_magic = MAGIC.to_vec();
            with_magic.extend(&bytes);
            let _ = Hello::decode(&with_magic);
        }
    }
}
