//! Foundation types shared by every huddle layer:
//!
//! - [`RingWidth`], the rings Z_2^k that arithmetic circuits compute in;
//! - [`BitMatrix`] and its fast transpose, the bridge between "one value per
//!   instance" and "one bitsliced word per wire";
//! - [`Prg`], the AES-CTR pseudorandom generator that all correlated
//!   randomness is expanded from, over [`wide_aes::WideAes`];
//! - [`Gf128`], the field of multiparty garbling's Shamir sharing;
//! - [`arena`], the slot arenas evaluators compute in, and [`simd`], which
//!   build of the run-time-selected kernels this process runs.
//!
//! Nothing here does I/O or knows about circuits or protocols.

#![warn(missing_docs, unreachable_pub)]

pub mod arena;
pub mod bits;
mod gf128;
pub mod prg;
mod ring;
pub mod simd;
pub mod wide_aes;

pub use bits::BitMatrix;
pub use gf128::Gf128;
pub use prg::Prg;
pub use ring::RingWidth;
