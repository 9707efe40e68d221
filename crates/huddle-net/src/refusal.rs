//! Refusals: a party that cannot run tells its peers why, before any
//! handshake, so that they stop at once instead of waiting out their connect
//! deadline.
//!
//! A party that fails before it can complete a handshake (bad local input,
//! a missing key, a wrong id, a certificate its peers do not accept) runs a
//! short *refusal round*: it dials its lower peers and answers its higher
//! ones (the roles of the handshake) for a few seconds, each time sending a
//! refusal in place of a hello: the party that cannot run, the party that
//! sends the refusal, the session and a short reason. A party that stops at
//! connect because of one passes it on in a round of its own.
//!
//! A refusal is not authenticated (it comes before TLS): it only ends the
//! receiver's wait for its peers, and every message that shows it says it
//! is unverified. It is read with the handshake's own time allowance and
//! bounds (a few hundred bytes), so a stranger cannot make a party wait or
//! allocate with one. The reason must hold nothing secret: it travels in
//! the clear.

use crate::config::NetworkConfig;
#[cfg(test)]
use crate::frame::MAX_REASON;
use crate::frame::{bounded, read_text, FrameError, REFUSED};
use crate::PartyId;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// How long a refusal round lasts at most.
pub(crate) const REFUSAL_GRACE: Duration = Duration::from_secs(2);

/// Connections a refusal round answers at once.
const MAX_ANSWERING: usize = 32;

/// That party `party` cannot run, and why; sent by `reporter`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Note {
    pub(crate) party: PartyId,
    pub(crate) reporter: PartyId,
    pub(crate) reason: String,
}

impl Note {
    /// The refusal's bytes: header, party, reporter, session, reason.
    fn encode(&self, session: &str) -> Vec<u8> {
        let (session, reason) = (bounded(session), bounded(&self.reason));
        let mut out = Vec::with_capacity(14 + session.len() + reason.len());
        out.extend_from_slice(&REFUSED.to_le_bytes());
        out.extend_from_slice(&(self.party as u32).to_le_bytes());
        out.extend_from_slice(&(self.reporter as u32).to_le_bytes());
        for text in [session, reason] {
            out.push(text.len() as u8);
            out.extend_from_slice(text.as_bytes());
        }
        out
    }

    /// Reads what follows the header; returns the note and its session.
    fn decode_body(r: &mut impl Read) -> Result<(Note, String), String> {
        let mut ids = [0u8; 8];
        r.read_exact(&mut ids)
            .map_err(|e| format!("a cut refusal ({e})"))?;
        let id = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize;
        fn text(r: &mut impl Read) -> Result<String, String> {
            read_text(r).map_err(|e| match e {
                FrameError::BadControl(why) => format!("a bad refusal: {why}"),
                _ => "a cut refusal".to_string(),
            })
        }
        let session = text(r)?;
        let reason = text(r)?;
        Ok((
            Note {
                party: id(&ids[..4]),
                reporter: id(&ids[4..]),
                reason,
            },
            session,
        ))
    }

    /// Checks a note received by party `me` of a run of `parties` in
    /// `session`: a refusal of another run, or naming no party of this one,
    /// is a stranger's. One naming `me` is kept: another process claims
    /// this party's id (a wrong `--id` somewhere), which this party must
    /// hear of too.
    pub(crate) fn check(
        received: (Note, String),
        me: PartyId,
        parties: usize,
        session: &str,
    ) -> Result<Note, String> {
        let (note, theirs) = received;
        if theirs != session {
            return Err(format!(
                "a refusal of session `{theirs}`, not of this run's `{session}`"
            ));
        }
        if note.party >= parties || note.reporter >= parties || note.reporter == me {
            return Err(format!(
                "a refusal naming party {} (from party {}), not in a run of {parties} with party {me}",
                note.party, note.reporter
            ));
        }
        Ok(note)
    }
}

/// A handshake's socket that recognises a refusal where the peer's first
/// bytes (a hello, a TLS ClientHello or ServerHello) belong: it keeps the
/// refusal for [`Sniffed::refusal`] and fails the read; any other bytes
/// pass through unchanged.
pub(crate) struct Sniffed {
    inner: TcpStream,
    checked: bool,
    /// The first bytes, read to tell a refusal apart, for the caller.
    head: Vec<u8>,
    refusal: Option<(Note, String)>,
}

impl Sniffed {
    pub(crate) fn new(inner: TcpStream) -> Sniffed {
        Sniffed {
            inner,
            checked: false,
            head: Vec::new(),
            refusal: None,
        }
    }

    /// The refusal the peer sent instead of a handshake, if it did.
    pub(crate) fn refusal(&mut self) -> Option<(Note, String)> {
        self.refusal.take()
    }

    /// The socket, once the handshake read everything read from it.
    pub(crate) fn into_inner(self) -> io::Result<TcpStream> {
        if !self.head.is_empty() {
            return Err(io::Error::other("handshake bytes left unread"));
        }
        Ok(self.inner)
    }

    /// Reads the peer's first 4 bytes (fewer at the end of the stream).
    fn sniff(&mut self) -> io::Result<()> {
        self.checked = true;
        let mut head = [0u8; 4];
        let mut got = 0;
        while got < 4 {
            match self.inner.read(&mut head[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if head == REFUSED.to_le_bytes() {
            let body = Note::decode_body(&mut self.inner).map_err(io::Error::other)?;
            let why = format!(
                "party {} cannot run: {} (a refusal)",
                body.0.party, body.0.reason
            );
            self.refusal = Some(body);
            return Err(io::Error::other(why));
        }
        self.head = head[..got].to_vec();
        Ok(())
    }
}

impl Read for Sniffed {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if !self.checked {
            self.sniff()?;
        }
        if self.refusal.is_some() {
            return Err(io::Error::other("the peer refused"));
        }
        if !self.head.is_empty() {
            let n = buf.len().min(self.head.len());
            buf[..n].copy_from_slice(&self.head[..n]);
            self.head.drain(..n);
            return Ok(n);
        }
        self.inner.read(buf)
    }
}

impl Write for Sniffed {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Party `me` of `config` cannot run, for `reason` (at most 200 bytes are
/// sent, in the clear: nothing secret): tells its peers, best effort, for a
/// few seconds at most. Dials every lower party and answers the higher
/// ones on its own port (if it is free), as the handshake would; returns
/// how many peers were told.
pub fn refuse(config: &NetworkConfig, me: PartyId, reason: &str) -> usize {
    let Some(own) = config.parties.get(me) else {
        return 0;
    };
    let n = config.parties();
    let listener = (me + 1 < n)
        .then(|| TcpListener::bind((own.host.as_str(), own.port)).ok())
        .flatten();
    let note = Note {
        party: me,
        reporter: me,
        reason: reason.to_string(),
    };
    let told = round(
        config,
        &note,
        &(0..me).collect::<Vec<_>>(),
        listener.as_ref().map(|l| (l, n - 1 - me)),
        Instant::now() + REFUSAL_GRACE,
    );
    tracing::info!(party = me, told, "told peers that this party cannot run");
    told
}

/// Sends `note` to every party of `dial` (dialing it) and to the first
/// `answer.1` connections on `answer.0`, until `deadline`; how many got it.
pub(crate) fn round(
    config: &NetworkConfig,
    note: &Note,
    dial: &[PartyId],
    answer: Option<(&TcpListener, usize)>,
    deadline: Instant,
) -> usize {
    let bytes = note.encode(&config.session);
    let told = std::sync::atomic::AtomicUsize::new(0);
    let answering = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for &peer in dial {
            let Some(p) = config.parties.get(peer) else {
                continue;
            };
            let (bytes, told) = (&bytes, &told);
            scope.spawn(move || {
                if dial_and_tell(&p.host, p.port, bytes, deadline) {
                    told.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            });
        }
        let Some((listener, wanted)) = answer else {
            return;
        };
        if listener.set_nonblocking(true).is_err() {
            return;
        }
        let mut answered = 0;
        while answered < wanted && Instant::now() < deadline {
            match listener.accept() {
                Ok((socket, _))
                    if answering.load(std::sync::atomic::Ordering::Relaxed) < MAX_ANSWERING =>
                {
                    answered += 1;
                    answering.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let (bytes, told, answering) = (&bytes, &told, &answering);
                    scope.spawn(move || {
                        if tell(socket, bytes, deadline).is_ok() {
                            told.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                        answering.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
                    });
                }
                Ok(_) => {} // too many at once: closed
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    std::thread::sleep(Duration::from_millis(5))
                }
                Err(_) => break,
            }
        }
    });
    told.into_inner()
}

/// Dials `host:port` until `deadline` and sends the refusal; whether it went.
fn dial_and_tell(host: &str, port: u16, bytes: &[u8], deadline: Instant) -> bool {
    let Ok(addrs) = (host, port).to_socket_addrs() else {
        return false;
    };
    let addrs: Vec<SocketAddr> = addrs.collect();
    let mut backoff = Duration::from_millis(5);
    while Instant::now() < deadline {
        for a in &addrs {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            if let Ok(s) = TcpStream::connect_timeout(a, left.min(Duration::from_secs(1))) {
                return tell(s, bytes, deadline).is_ok();
            }
        }
        std::thread::sleep(backoff.min(deadline.saturating_duration_since(Instant::now())));
        backoff = (backoff * 2).min(Duration::from_millis(250));
    }
    false
}

/// Sends the refusal on `s`, then reads (and drops) whatever the peer sent
/// until it closes: closing with its hello unread would reset the
/// connection, and the refusal with it, before the peer has read it.
fn tell(mut s: TcpStream, bytes: &[u8], deadline: Instant) -> io::Result<()> {
    let left = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(100));
    s.set_nonblocking(false)?;
    s.set_write_timeout(Some(left))?;
    s.set_read_timeout(Some(left))?;
    s.write_all(bytes)?;
    s.shutdown(Shutdown::Write)?;
    let mut sink = [0u8; 4096];
    // A peer reads our refusal with its hello's allowance and closes.
    let mut drained = 0usize;
    while drained < 1 << 20 {
        match s.read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(n) => drained += n,
        }
    }
    Ok(())
}

/// The longest refusal on the wire.
#[cfg(test)]
const MAX_REFUSAL: usize = 14 + 2 * MAX_REASON;

#[cfg(test)]
mod tests {
    use super::*;

    fn note() -> Note {
        Note {
            party: 2,
            reporter: 1,
            reason: "its input file is invalid".into(),
        }
    }

    #[test]
    fn a_refusal_round_trips_and_is_checked_against_the_run() {
        let bytes = note().encode("s");
        assert_eq!(&bytes[..4], &REFUSED.to_le_bytes());
        let got = Note::decode_body(&mut &bytes[4..]).expect("decode");
        assert_eq!(got, (note(), "s".to_string()));
        assert_eq!(Note::check(got.clone(), 0, 3, "s"), Ok(note()));
        assert!(Note::check(got.clone(), 0, 3, "other").is_err());
        assert_eq!(Note::check(got.clone(), 2, 3, "s"), Ok(note()), "names us");
        assert!(Note::check(got.clone(), 1, 3, "s").is_err(), "sent by us");
        assert!(Note::check(got, 0, 2, "s").is_err(), "not in the run");
        // Cut anywhere, it is refused without a panic.
        for cut in 4..bytes.len() {
            assert!(Note::decode_body(&mut &bytes[4..cut]).is_err(), "{cut}");
        }
    }

    #[test]
    fn long_reasons_are_cut_and_control_characters_never_printed() {
        let long = Note {
            reason: "é".repeat(300) + "\u{1b}[2J",
            ..note()
        };
        let bytes = long.encode(&"s".repeat(300));
        assert!(bytes.len() <= MAX_REFUSAL);
        let (got, session) = Note::decode_body(&mut &bytes[4..]).expect("decode");
        assert_eq!(session.len(), MAX_REASON);
        assert_eq!(got.reason, "é".repeat(100));
        let evil = Note {
            reason: "a\u{1b}[2Jb\nc".into(),
            ..note()
        };
        let (got, _) = Note::decode_body(&mut &evil.encode("s")[4..]).expect("decode");
        assert_eq!(got.reason, "a\u{fffd}[2Jb\u{fffd}c");
    }

    #[test]
    fn a_sniffed_stream_passes_other_bytes_through_and_keeps_a_refusal() {
        let pair = || {
            let l = TcpListener::bind("127.0.0.1:0").expect("bind");
            let a = TcpStream::connect(l.local_addr().expect("addr")).expect("connect");
            let (b, _) = l.accept().expect("accept");
            (a, b)
        };
        // A hello of 252 bytes starts with the refusal header's first byte.
        let (mut a, b) = pair();
        let mut hello = vec![0xFC, 0, 0, 0];
        hello.extend(vec![7u8; 252]);
        a.write_all(&hello).expect("write");
        let mut s = Sniffed::new(b);
        let mut got = vec![0u8; hello.len()];
        s.read_exact(&mut got).expect("read");
        assert_eq!(got, hello);
        assert!(s.refusal().is_none());
        s.into_inner().expect("all read");
        // A refusal.
        let (mut a, b) = pair();
        a.write_all(&note().encode("s")).expect("write");
        let mut s = Sniffed::new(b);
        let e = s.read(&mut [0u8; 16]).expect_err("refused");
        assert!(e.to_string().contains("party 2 cannot run"), "{e}");
        assert_eq!(s.refusal(), Some((note(), "s".to_string())));
    }

    #[test]
    fn a_round_tells_the_lower_parties_and_answers_the_higher_ones() {
        let (config, listeners) = crate::connect::loopback_parties("s", 3).expect("loopback");
        let mut ls = listeners.into_iter();
        let (l0, l1, _) = (
            ls.next().expect("l0"),
            ls.next().expect("l1"),
            ls.next().expect("l2"),
        );
        let p1 = config.parties[1].port;
        let deadline = Instant::now() + Duration::from_secs(30);
        let told = std::thread::scope(|s| {
            let lower = s.spawn(move || {
                let (sock, _) = l0.accept().expect("party 1 dials party 0");
                let mut sniffed = Sniffed::new(sock);
                assert!(sniffed.read(&mut [0u8; 4]).is_err());
                sniffed.refusal().expect("a refusal")
            });
            let higher = s.spawn(move || {
                let mut sock = TcpStream::connect(("127.0.0.1", p1)).expect("party 2 dials 1");
                sock.write_all(b"a hello").expect("hello");
                let mut sniffed = Sniffed::new(sock);
                assert!(sniffed.read(&mut [0u8; 4]).is_err());
                sniffed.refusal().expect("a refusal")
            });
            let note = Note {
                party: 1,
                reporter: 1,
                reason: "no key".into(),
            };
            let told = round(&config, &note, &[0], Some((&l1, 1)), deadline);
            for got in [lower.join().expect("lower"), higher.join().expect("higher")] {
                assert_eq!(got, (note.clone(), "s".to_string()));
            }
            told
        });
        assert_eq!(told, 2);
    }
}
