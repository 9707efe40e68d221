//! The generated SHA-256 compression function: FIPS 180-4 constants, the
//! "abc" digest, random blocks and states against the `sha2` crate at every
//! fan-in, and agreement with the public `sha256.txt` on its vectors.

use huddle_circuit::sha256::{initial_state, round_constants, sha256};
use huddle_circuit::{gen, Layering, PlainEvaluator, Stats};
use huddle_core::Prg;

fn state_hex(state: &[u32; 8]) -> String {
    state.iter().map(|w| format!("{w:08x}")).collect()
}

fn block_hex(block: &[u8; 64]) -> String {
    block.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn constants_are_those_of_fips_180_4() {
    let k = round_constants();
    assert_eq!(
        (k[0], k[1], k[62], k[63]),
        (0x428a2f98, 0x71374491, 0xbef9a3f7, 0xc67178f2)
    );
    assert_eq!(
        state_hex(&initial_state()),
        "6a09e667bb67ae853c6ef372a54ff53a510e527f9b05688c1f83d9ab5be0cd19"
    );
}

#[test]
fn compression_matches_sha2_at_every_fan_in() {
    let mut prg = Prg::from_seed([3; 16]);
    let mut abc = [0u8; 64];
    abc[..4].copy_from_slice(&[0x61, 0x62, 0x63, 0x80]);
    abc[63] = 0x18;
    for fan_in in [2, 3, 4, 8] {
        let c = sha256(fan_in);
        let eval = PlainEvaluator::new(&c);
        let out = eval
            .evaluate_hex(&[&block_hex(&abc), &state_hex(&initial_state())])
            .expect("evaluate");
        assert_eq!(
            out[0],
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        for _ in 0..16 {
            let mut block = [0u8; 64];
            prg.fill_bytes(&mut block);
            let mut state: [u32; 8] = std::array::from_fn(|_| prg.next_u64() as u32);
            let input = state_hex(&state);
            sha2::compress256(&mut state, &[block.into()]);
            let out = eval
                .evaluate_hex(&[&block_hex(&block), &input])
                .expect("evaluate");
            assert_eq!(out[0], state_hex(&state), "fan-in {fan_in}");
        }
        let stats = Stats::of(&c);
        assert!(stats.and_by_fanin.keys().all(|&k| k <= fan_in));
        // The public circuit (ripple-carry adders) has AND-depth 1607.
        assert!(Layering::of(&c).depth < 500, "fan-in {fan_in}");
    }
}

#[test]
fn generated_sha256_agrees_with_the_public_circuit_on_its_vectors() {
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(dir) = huddle_circuit::corpus::locate_or_skip(here) else {
        return;
    };
    let corpus = huddle_circuit::corpus::load(&dir).expect("vectors.json");
    let (_, public) = corpus
        .iter()
        .find(|(_, c)| c.file == "sha256.txt")
        .expect("sha256.txt in the collection");
    let c = gen::generate("sha256", 32, 4).expect("generate");
    let eval = PlainEvaluator::new(&c);
    for v in &public.vectors {
        let ins: Vec<&str> = v.inputs.iter().map(String::as_str).collect();
        assert_eq!(
            eval.evaluate_hex(&ins).expect("evaluate"),
            v.outputs,
            "{}",
            v.note
        );
    }
}
