//! Foundation types shared by every huddle layer: ring widths for Z_2^k,
//! bit matrices with a fast transpose (the bridge between "one value per
//! instance" and "one bitsliced word per wire"), and the AES-CTR
//! pseudorandom generator that all correlated randomness is expanded from.
//!
//! Nothing here does I/O or knows about circuits or protocols.

pub mod arena;
pub mod bits;
pub mod gf128;
pub mod prg;
pub mod ring;
pub mod simd;
pub mod wide_aes;

pub use bits::BitMatrix;
pub use gf128::Gf128;
pub use prg::Prg;
pub use ring::RingWidth;
