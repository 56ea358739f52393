"""The first step's cost (device init, autotune, compile) is shown apart from epoch 1's time."""

import time

import torch
from tests.fixtures import mlp, quiet_config, random_data

import trainwell as tw


def test_a_slow_first_step_is_reported_in_the_summary_and_the_line() -> None:
    calls = []

    def step_fn(model, batch):
        if not calls:  # a warm-up only the first step pays (a compile, cuDNN autotune)
            time.sleep(0.3)
        calls.append(1)
        x, y = batch
        return torch.nn.functional.cross_entropy(model(x), y)

    result = tw.fit(
        mlp(),
        random_data(64),
        config=quiet_config(max_epochs=2, run={"device": "cpu"}, data={"batch_size": 16}),
        step_fn=step_fn,
    )
    first = result.throughput["first_step_s"]
    assert 0.3 <= first < 0.3 + result.history[0]["time_s"]  # inside epoch 1, and shown apart
    assert result.summary()["throughput"]["first_step_s"] == first
    assert f"first step: {first:.2f}s" in result.describe()
