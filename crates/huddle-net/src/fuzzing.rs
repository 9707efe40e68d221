//! What a peer's bytes go through before any protocol sees them, for the
//! fuzz targets (`fuzz/`); not an API.

/// Reads frames from `bytes` until the first error, as a link's reader
/// does; on each message, the hello decoder and the stamp check.
/// Returns how many frames were read.
pub fn peer_stream(bytes: &[u8], max_message: usize) -> usize {
    let mut r = bytes;
    let mut frames = 0;
    while let Ok(mut data) = crate::frame::read_frame(&mut r, max_message) {
        assert!(
            data.len() <= max_message,
            "a frame above the limit was accepted"
        );
        if let Ok(h) = crate::hello::Hello::decode(&data) {
            assert_eq!(crate::hello::Hello::decode(&h.encode()), Ok(h));
        }
        if let Ok(s) = crate::network::split_stamp(&mut data) {
            assert!(s.stamp <= 1 << 31);
        }
        frames += 1;
    }
    frames
}

/// Party 0 of a two-party run whose link to party 1 is `stream`, as
/// after a successful handshake: a live party whose peer's bytes are
/// whatever the fuzzer writes to the other end.
pub fn party_zero_over(
    stream: std::net::TcpStream,
    timeout: std::time::Duration,
) -> std::io::Result<crate::Network> {
    let alarm = std::sync::Arc::new(crate::network::Alarm::default());
    let board = crate::waits::Board::new(0, 2);
    let link = crate::connect::stream_parts(
        1,
        2,
        stream,
        crate::LinkLimits::default(),
        (alarm.clone(), board.clone()),
    )?;
    Ok(crate::Network::from_links(
        0,
        vec![None, Some(link)],
        &crate::NetProfile::lan(),
        timeout,
        (alarm, Some(board)),
    ))
}
