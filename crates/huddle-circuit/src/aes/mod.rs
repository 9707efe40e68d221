//! AES-128/192/256 encryption circuits (key schedule inside, or the expanded
//! key as input) whose S-boxes have AND-depth 4, 3 or 2.
//!
//! Only the S-box is non-linear. It is synthesized here from the tower view
//! of GF(2^8) used by Canright and by Boyar–Peralta: x = h·y + l with h, l in
//! GF(2^4) and y^2 = y + ν, so that
//!
//! ```text
//! d = ν·h^2 + h·l + l^2          (GF(2^4); only h·l is non-linear: 9 ANDs)
//! e = d^-1 = d^14                (degree 3 in the bits of d)
//! x^-1 = (h·e)·y + ((h + l)·e)   (two GF(2^4) products sharing e: 18 ANDs)
//! ```
//!
//! GF(2^4) products use the two-level Karatsuba forms (9 ANDs each). The
//! depths differ in how the inversion is done; all three searches below
//! work on truth tables of functions of the 4 bits of d, modulo affine
//! functions (which are free):
//! - depth 4 (2-input ANDs): a two-layer inversion whose second-layer
//!   inputs may XOR in first-layer results; the search finds 6 ANDs, so
//!   9 + 6 + 18 = 33 ANDs (Boyar–Peralta's depth-16 circuit has 34);
//! - depth 3 (≤ 3-input ANDs): one layer of products of up to three affine
//!   functions of d spanning e modulo affine functions: 5 ANDs, so 32 in all;
//! - depth 2 (≤ 4-input ANDs): e is never formed. Each Karatsuba form of e
//!   is written as its cheapest sum of products of at most three affine
//!   functions of d (one linear, one quadratic, one cubic term), and each
//!   product is multiplied in one AND with the other operand's form: 61 ANDs
//!   (25 of 2 inputs, 18 of 3, 18 of 4) against the paper's 66 (22 each).
//!
//! The field representation (GF(2^4) modulus, ν, the image of the AES
//! generator, and for depth 2 a constant c with h·e = (c^-1·h)·(c·e))
//! changes the counts, so every choice is tried once per process and the
//! cheapest kept by MFI-3PC communication (a k-input AND costs 2^k - k - 1
//! elements), then ANDs, then gates. Tests check every S-box on all 256
//! inputs.
//!
//! The parts, each file using only those listed before it:
//! - `depth.rs`: [`SboxDepth`], which every other part reads;
//! - `gf2.rs`: GF(2) vectors (solving, echelon bases) for the searches;
//! - `field.rs`: GF(2^8) and GF(2^4) arithmetic, the S-box by definition
//!   ([`sbox_value`]), the tower representations and Karatsuba forms;
//! - `affine.rs`: functions of the bits of d modulo affine functions, and
//!   their cheapest sums of products of affine functions;
//! - `linear.rs`: XOR networks sharing partial sums (Paar's heuristic);
//! - `inversion.rs`: the depth-4 and depth-3 inversion searches and circuit;
//! - `depth2.rs`: the depth-2 output layer's plan and cost;
//! - `sbox.rs`: S-box synthesis per representation, and the choice of the
//!   cheapest ([`sbox()`]);
//! - `cipher.rs`: AES on the S-box: key expansion, rounds, [`aes`].

mod affine;
mod cipher;
mod depth;
mod depth2;
mod field;
mod gf2;
mod inversion;
mod linear;
mod sbox;

pub use cipher::aes;
pub use depth::SboxDepth;
pub use field::{gf256_mul, sbox_value};
pub use sbox::sbox;
