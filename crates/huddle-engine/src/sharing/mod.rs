//! The secret-sharing engine: runs any circuit under any secret-sharing
//! protocol that implements [`Sharing`].
//!
//! The engine owns everything protocols have in common: compiling the circuit
//! into slots and rounds ([`program`]), the share arenas ([`Shares`]), the
//! local linear gates, turning input matrices into share words and revealed
//! words back into matrices, and the encoding of messages ([`Channel`]).
//! A protocol supplies only what is its own: key setup, input sharing, one
//! multiplication layer, reveal, and (optionally) function-dependent
//! preprocessing. Protocols never touch sockets or threads: they talk to a
//! [`Channel`], which wraps any [`Transport`](crate::transport::Transport):
//! a `huddle_net::Network`, a lane of one (`RoleNet`, under `--threads` and
//! `--split-roles`), or in tests a wrapper around a `Network` that keeps or
//! replaces messages (`subset_keys`'s unit tests).
//!
//! Every party holds two or three share components per wire (`Shares::c`;
//! how many is the protocol's [`Sharing::components`]: two for the 3-party
//! protocols and Quad, three for Fantastic Four and Tetrad). Linear gates act
//! on every component alike; adding a public constant touches the component
//! named by the protocol's [`ConstantRule`].
//!
//! The engine's files: `channel.rs` (the [`Channel`], raw words for keys and
//! digests), `shares.rs` ([`Shares`], [`Arenas`], [`InputValues`]),
//! `protocol.rs` (the [`Sharing`] trait and [`Capabilities`]), `evaluate.rs`
//! (a program's steps, conversion steps included, and one slice),
//! `lanes.rs` (lanes and what each does), `input_words.rs` (a party's
//! inputs as share words), `outputs.rs` (opening, collecting and holding
//! outputs) and `run.rs` (the entry, [`run`]). The other modules are the
//! compiler ([`program`]), the share domains ([`arith`]), the wire encoding
//! ([`wire`]), conversions ([`convert`]) and the protocols.

pub(crate) mod arith;
pub(crate) mod astra;
mod channel;
pub(crate) mod client_aided;
pub(crate) mod convert;
pub(crate) mod cost;
mod evaluate;
pub(crate) mod fantastic4;
pub(crate) mod helper;
mod input_words;
mod lanes;
pub(crate) mod malicious;
pub(crate) mod messages;
pub(crate) mod mfi3;
mod outputs;
pub(crate) mod pieces;
mod plan;
pub(crate) mod program;
mod protocol;
pub(crate) mod quad;
pub(crate) mod replicated;
mod run;
mod shares;
pub(crate) mod subset_keys;
pub(crate) mod tetrad;
pub(crate) mod trio;
pub(crate) mod verify;
pub(crate) mod wire;

/// Runs `$body` with `$R` the [`arith::Arith`] of ring words holding
/// `$lanes` elements each: 1 (one element mod 2^64), 2, 4 or 8 (packed
/// lanes; 8, the last arm, is the only other count `Program::pack_ring` sets).
macro_rules! with_ring {
    ($lanes:expr, $R:ident => $body:expr) => {
        match $lanes {
            1 => {
                type $R = $crate::sharing::arith::Ring;
                $body
            }
            2 => {
                type $R = $crate::sharing::arith::Packed<32>;
                $body
            }
            4 => {
                type $R = $crate::sharing::arith::Packed<16>;
                $body
            }
            _ => {
                type $R = $crate::sharing::arith::Packed<8>;
                $body
            }
        }
    };
}
pub(crate) use with_ring;

pub(crate) use channel::Channel;
pub(crate) use channel::{agree_key, draw, recv_raw, send_raw_tagged};
pub(crate) use evaluate::evaluate;
pub(crate) use protocol::Sharing;
pub(crate) use run::run;
pub(crate) use shares::{Arenas, ConstantRule, InputValues, Shares};
