//! The hello frames on a connection: ours sent, the peer's read (or why it
//! did not come: an abort, a failed TLS handshake, a stranger's bytes).
//! What a hello holds and how it is checked is `crate::hello`.

use crate::frame::{read_frame, write_frame, FrameError};
use crate::hello::Hello;
use std::io::{self, Read, Write};

/// The largest hello accepted (a job's settings can be long).
const HELLO_MAX: usize = 64 << 10;

/// Why the peer's hello did not come.
#[derive(Debug)]
pub(super) enum NoHello {
    /// It stopped at connect because party `culprit`'s settings differ
    /// (from its own, or another party's): an abort frame without a reason.
    Stopped {
        culprit: u32,
    },
    /// It stopped at connect and said why (an abort frame with a reason).
    Told(String),
    /// TLS failed: certificates, keys, or bytes that are not TLS.
    Tls(String),
    Other(String),
}

impl NoHello {
    pub(super) fn text(self) -> String {
        match self {
            NoHello::Stopped { culprit } => format!(
                "it stopped at connect: its settings and party {culprit}'s differ (their \
                 errors name the setting)"
            ),
            NoHello::Told(t) | NoHello::Tls(t) | NoHello::Other(t) => t,
        }
    }

    fn of_io(e: io::Error) -> NoHello {
        let tls = e.get_ref().is_some_and(|inner| inner.is::<rustls::Error>());
        match tls {
            true => NoHello::Tls(e.to_string()),
            false => NoHello::Other(e.to_string()),
        }
    }
}

pub(super) fn read_hello(s: &mut impl Read) -> Result<Hello, NoHello> {
    match read_frame(s, HELLO_MAX) {
        Ok(bytes) => Hello::decode(&bytes).map_err(NoHello::Other),
        Err(FrameError::Abort { culprit, reason }) if reason.is_empty() => {
            Err(NoHello::Stopped { culprit })
        }
        Err(FrameError::Abort { reason, .. }) => {
            Err(NoHello::Told(format!("it stopped at connect: {reason}")))
        }
        Err(FrameError::Closed | FrameError::Truncated | FrameError::Goodbye) => Err(
            NoHello::Other("the peer closed the connection during the handshake".into()),
        ),
        Err(
            FrameError::Oversized(_) | FrameError::UnknownControl(_) | FrameError::BadControl(_),
        ) => Err(NoHello::Other(
            "the peer does not speak the huddle protocol (oversized hello)".into(),
        )),
        Err(FrameError::Io(e))
            if matches!(
                e.kind(),
                io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
            ) =>
        {
            Err(NoHello::Other("the peer sent no hello in time".into()))
        }
        Err(FrameError::Io(e)) => Err(NoHello::of_io(e)),
    }
}

pub(super) fn send_hello(s: &mut impl Write, ours: &Hello) -> Result<(), NoHello> {
    write_frame(s, &ours.encode())
        .and_then(|()| s.flush())
        .map_err(NoHello::of_io)
}

pub(super) fn client_hello<S: Read + Write>(s: &mut S, ours: &Hello) -> Result<Hello, NoHello> {
    send_hello(s, ours)?;
    read_hello(s)
}
