//! The sockets of a connect: set-up I/O bounded by the connect deadline,
//! and, once a connection's handshake is done, the link it becomes (its
//! deadlines lifted, its reader and writer threads started).

use crate::network::{stream_link, LinkLimits, LinkParts, Shared};
use crate::tls::split;
use crate::PartyId;
use rustls::Connection;
use std::io;
use std::net::{Shutdown, TcpStream};
use std::time::{Duration, Instant};

pub(super) fn remaining(deadline: Instant) -> Duration {
    deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(1))
}

/// Setup I/O may not block past the deadline.
pub(super) fn prepare(s: &TcpStream, deadline: Instant) -> io::Result<()> {
    s.set_nodelay(true)?;
    s.set_read_timeout(Some(remaining(deadline)))?;
    s.set_write_timeout(Some(remaining(deadline)))
}

/// The run itself blocks as long as it needs; `Network` applies its own receive timeout.
fn unprepare(s: &TcpStream) -> io::Result<()> {
    s.set_read_timeout(None)?;
    s.set_write_timeout(None)
}

pub(crate) fn stream_parts(
    peer: PartyId,
    parties: usize,
    s: TcpStream,
    limits: LinkLimits,
    shared: Shared,
) -> io::Result<LinkParts> {
    unprepare(&s)?;
    let reader = s.try_clone()?;
    let shutdown = closer(&s)?;
    stream_link(peer, parties, reader, s, shutdown, shared, limits)
}

pub(super) fn tls_parts(
    peer: PartyId,
    parties: usize,
    conn: Connection,
    s: TcpStream,
    limits: LinkLimits,
    shared: Shared,
) -> io::Result<LinkParts> {
    unprepare(&s)?;
    let shutdown = closer(&s)?;
    let (reader, writer) = split(conn, s)?;
    stream_link(peer, parties, reader, writer, shutdown, shared, limits)
}

fn closer(s: &TcpStream) -> io::Result<crate::network::Shutdown> {
    let socket = s.try_clone()?;
    Ok(std::sync::Arc::new(move || {
        drop(socket.shutdown(Shutdown::Both))
    }))
}

#[cfg(test)]
mod tests {
    //! Links made by a real connect, fed by a hand-played peer.

    use crate::certs::DevPki;
    use crate::connect::greeting::client_hello;
    use crate::connect::party::connect_with_listener;
    use crate::connect::testing::{hello_of, identity, options, rogue_peer, setup};
    use crate::connect::{ConnectOptions, Transport};
    use crate::frame::write_frame;
    use crate::network::{LinkLimits, NetError, Network};
    use std::io::{self, Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::time::Duration;

    fn rogue_hello(s: &mut TcpStream) {
        assert!(client_hello(s, &hello_of(1)).is_ok(), "party 0 answers");
    }

    #[test]
    fn an_oversized_frame_is_an_error_naming_the_peer() {
        let r = rogue_peer(|mut s| {
            rogue_hello(&mut s);
            s.write_all(&0xF000_0000u32.to_le_bytes()).expect("write");
            std::thread::sleep(Duration::from_millis(100));
        });
        assert!(
            matches!(
                r,
                Err(NetError::Oversized {
                    peer: 1,
                    len: 0xF000_0000,
                    ..
                })
            ),
            "{r:?}"
        );
    }

    /// Party 0 is real (with `limits`) and runs `party0`; the test plays party 1.
    fn rogue_session<T>(
        limits: LinkLimits,
        play: impl FnOnce(TcpStream) + Send + 'static,
        party0: impl FnOnce(Network) -> T,
    ) -> Result<T, NetError> {
        let (config, mut listeners) = setup(2);
        let port = config.parties[0].port;
        let l0 = listeners[0].take();
        let rogue = std::thread::spawn(move || {
            let s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
            play(s)
        });
        let o = ConnectOptions {
            limits,
            ..options(Transport::Tcp)
        };
        let result = connect_with_listener(&config, 0, l0, &o).map(party0);
        rogue.join().expect("rogue thread");
        result
    }

    /// A message as the network sends it: payload, phase, round stamp.
    fn stamped(payload: &[u8], phase: u8, stamp: u32) -> Vec<u8> {
        let mut m = payload.to_vec();
        m.push(phase);
        m.extend_from_slice(&stamp.to_le_bytes());
        m.extend_from_slice(&0u16.to_le_bytes()); // lane
        m
    }

    #[test]
    fn an_abort_naming_no_party_of_the_run_is_blamed_on_its_sender() {
        let r = rogue_peer(|mut s| {
            rogue_hello(&mut s);
            s.write_all(&(u32::MAX - 1).to_le_bytes())
                .expect("abort frame");
            s.write_all(&999u32.to_le_bytes()).expect("culprit");
            s.write_all(&[0]).expect("no reason");
            std::thread::sleep(Duration::from_millis(100));
        });
        match r {
            Err(e @ NetError::Link { peer: 1, .. }) => {
                assert!(e.to_string().contains("party 999"), "{e}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_fabricated_round_stamp_is_refused() {
        let r = rogue_peer(|mut s| {
            rogue_hello(&mut s);
            write_frame(&mut s, &stamped(&[0; 16], 2, u32::MAX)).expect("frame");
            std::thread::sleep(Duration::from_millis(100));
        });
        match r {
            Err(e @ NetError::Link { peer: 1, .. }) => {
                assert!(e.to_string().contains("round stamp"), "{e}")
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_flooding_peer_is_held_back_at_the_inbox_budget() {
        const FRAMES: usize = 48;
        const SIZE: usize = 1 << 20;
        let limits = LinkLimits {
            inbox_bytes: 4 << 20,
            max_message: 2 << 20,
            ..LinkLimits::default()
        };
        let r = rogue_session(
            limits,
            |mut s| {
                rogue_hello(&mut s);
                for i in 0..FRAMES {
                    if write_frame(&mut s, &stamped(&vec![i as u8; SIZE], 2, 1)).is_err() {
                        return;
                    }
                }
                let _ = s.flush();
                // Stay connected until party 0 has read everything and
                // closes (its liveness frames meanwhile are dropped).
                let _ = io::copy(&mut s, &mut io::sink());
            },
            |mut net| {
                // Party 0 takes nothing for a while: whatever the peer pushes,
                // at most the budget plus one message is held.
                let mut most = 0;
                for _ in 0..30 {
                    std::thread::sleep(Duration::from_millis(10));
                    most = most.max(net.queued_bytes(1));
                }
                assert!(
                    most <= (4 << 20) + SIZE + crate::STAMP_BYTES,
                    "{most} bytes queued"
                );
                // Nothing is lost: every message arrives, in order.
                for i in 0..FRAMES {
                    assert_eq!(net.recv(1, SIZE).expect("message"), vec![i as u8; SIZE]);
                }
                most
            },
        );
        r.expect("run");
    }

    #[test]
    fn a_cut_message_is_an_error_naming_the_peer() {
        let r = rogue_peer(|mut s| {
            rogue_hello(&mut s);
            s.write_all(&16u32.to_le_bytes()).expect("write");
            s.write_all(&[0; 5]).expect("write");
        });
        assert_eq!(r, Err(NetError::Truncated { peer: 1 }));
    }

    #[test]
    fn tampering_with_tls_traffic_is_detected() {
        let pki = DevPki::generate(2).expect("pki");
        let (mut config, listeners) = setup(2);
        // A proxy in front of party 0 flips one byte once 20 kB have passed.
        let proxy = TcpListener::bind("127.0.0.1:0").expect("bind");
        let target = config.parties[0].port;
        config.parties[0].port = proxy.local_addr().expect("addr").port();
        std::thread::spawn(move || {
            let (client, _) = proxy.accept().expect("accept");
            let server = TcpStream::connect(("127.0.0.1", target)).expect("connect");
            let (mut c2, mut s2) = (
                client.try_clone().expect("clone"),
                server.try_clone().expect("clone"),
            );
            std::thread::spawn(move || drop(io::copy(&mut s2, &mut c2)));
            let (mut c, mut s) = (client, server);
            let mut buf = [0u8; 4096];
            let mut passed = 0usize;
            while let Ok(n) = c.read(&mut buf) {
                if n == 0 {
                    break;
                }
                if passed < 20_000 && passed + n >= 20_000 {
                    buf[20_000 - passed] ^= 0x40;
                }
                passed += n;
                if s.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
        });
        // Party 0 keeps its pre-bound listener; party 1 dials the proxy's port.
        let r = std::thread::scope(|s| {
            let mut ls = listeners.into_iter();
            let (l0, l1) = (ls.next().flatten(), ls.next().flatten());
            let o0 = options(Transport::Tls(identity(&pki, &pki.parties[0])));
            let o1 = options(Transport::Tls(identity(&pki, &pki.parties[1])));
            let config = &config;
            let a = s.spawn(move || {
                connect_with_listener(config, 0, l0, &o0).and_then(|mut n| n.recv(1, 100_000))
            });
            let b = s.spawn(move || {
                let mut net = connect_with_listener(config, 1, l1, &o1)?;
                net.send(0, vec![0xAB; 100_000])?;
                std::thread::sleep(Duration::from_millis(300));
                Ok::<_, NetError>(())
            });
            (a.join().expect("a"), b.join().expect("b"))
        });
        match r.0 {
            Err(NetError::Link { peer: 1, cause }) => assert!(cause.contains("TLS"), "{cause}"),
            other => panic!("tampering went unnoticed: {other:?}"),
        }
    }
}
