"""Logistic-regression inference in fixed point: one party's model on
another party's data.

Party 0 holds the model (weights and bias), party 1 the feature vectors of
its samples; party 2 helps compute. Everything is fixed point with 16
fractional bits in Z_2^64 (`huddle.fixed(16)`): the scores are one matrix
product (one truncation per score), the probability a "hard sigmoid"
clip(s/4 + 1/2, 0, 1) (a shift and two comparisons), the label s > 0.
Only party 1 learns them. The result is compared with numpy in float64,
within the error fixed point allows: inputs are rounded to 2^-17, a
product sum truncated by less than 2^-16.

Run: python python/examples/perceptron.py
"""

import numpy as np

import huddle

F = 16  # fractional bits
FEATURES, SAMPLES = 5, 8


def build():
    real = huddle.fixed(F)
    prog = huddle.Program(parties=3)
    with prog:
        w = huddle.input(party=0, type=real, shape=(FEATURES,), name="weights")
        b = huddle.input(party=0, type=real, name="bias")
        x = huddle.input(party=1, type=real, shape=(SAMPLES, FEATURES), name="features")
        scores = x @ w + b
        probability = huddle.min(huddle.max((scores >> 2) + 0.5, 0.0), 1.0)
        huddle.reveal(scores, to=1, name="scores")
        huddle.reveal(probability, to=1, name="probability")
        huddle.reveal(scores > 0, to=1, name="label")
    return prog


def main():
    rng = np.random.default_rng(2024)
    weights, bias = rng.uniform(-2, 2, FEATURES), 0.25
    features = rng.uniform(-3, 3, (SAMPLES, FEATURES))

    result = huddle.run_local(
        build(), "trio", inputs={"weights": weights, "bias": bias, "features": features}
    )
    scores = result.outputs["scores"][0]
    probability = result.outputs["probability"][0]
    label = result.outputs["label"][0]

    want_scores = features @ weights + bias
    want_probability = np.clip(want_scores / 4 + 0.5, 0, 1)
    # Encoding errors (<= 2^-17 per input) times the other factor, plus the truncation.
    unit = 2.0**-F
    bound = unit / 2 * (np.abs(features).sum(1) + np.abs(weights).sum() + FEATURES * unit + 1) + unit
    for i in range(SAMPLES):
        print(f"sample {i}: score {scores[i]:+.5f} (float {want_scores[i]:+.5f}), "
              f"probability {probability[i]:.5f}, label {int(label[i])}")
    error = np.abs(scores - want_scores)
    print(f"largest score error: {error.max():.2e} (bound {bound.min():.2e})")
    assert (error <= bound).all()
    assert (np.abs(probability - want_probability) <= bound / 4 + unit).all()
    assert (label == (want_scores > 0)).all()


if __name__ == "__main__":
    main()
