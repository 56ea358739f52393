"""An input-bound run says so: the data-wait share is in every epoch record (and the summary),
and a run too short for the log-interval rule is judged by its epochs."""

import json
import time
import warnings

import torch
from torch import nn

import trainwell as tw
from trainwell.observe.input_bound import InputBoundWarning


class SlowSamples(torch.utils.data.Dataset):
    """A workload: each sample takes ``delay`` seconds to read (a slow disk, a decode)."""

    def __init__(self, n=256, delay=0.005):
        g = torch.Generator().manual_seed(0)
        self.x = torch.randn(n, 4, generator=g)
        self.y = (self.x[:, 0] > 0).long()
        self.delay = delay

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        if self.delay:
            time.sleep(self.delay)
        return self.x[i], self.y[i]


def _fit(tmp_path, data, **train):
    torch.manual_seed(0)
    config = {
        "run": {"device": "cpu", "quiet": True, "dir": str(tmp_path / "run")},
        "data": {"batch_size": 16},
        "train": {"max_epochs": 1, **train},
    }  # the default run.log_every=50: 16 steps never reach a log interval
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = tw.fit(nn.Linear(4, 2), data, config=config)
    return result, [w for w in caught if issubclass(w.category, InputBoundWarning)]


def _epochs(tmp_path):
    lines = (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["kind"] == "epoch"]


def test_a_slow_dataset_warns_and_logs_its_data_wait_in_a_short_run(tmp_path):
    # 16 x 5 ms: 80 ms per batch fetch, 1.3 s in all, against well under 1 ms of compute
    # (a loaded machine can make a step ~50 ms: still far above data.input_bound_threshold)
    result, warned = _fit(tmp_path, SlowSamples())
    assert len(warned) == 1
    assert "waiting for data" in str(warned[0].message) and "epoch 1" in str(warned[0].message)
    epochs = _epochs(tmp_path)
    assert len(epochs) == 1 and epochs[0]["data_wait"] > 0.3
    assert result.throughput["data_wait"] > 0.3
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["throughput"]["data_wait"] == result.throughput["data_wait"]


def test_in_memory_data_logs_a_small_wait_and_no_warning(tmp_path):
    data = SlowSamples(delay=0.0)  # the same samples, in memory
    result, warned = _fit(tmp_path, (data.x, data.y))
    assert warned == []
    assert all(0.0 <= e["data_wait"] < 0.2 for e in _epochs(tmp_path))


class SlowFirstCall(nn.Module):
    """A model whose first forward costs ``delay`` seconds (CUDA start-up, autotuning or a
    compile in real runs)."""

    def __init__(self, delay=1.0):
        super().__init__()
        self.net, self.delay, self.calls = nn.Linear(4, 2), delay, 0

    def forward(self, x):
        self.calls += 1
        if self.calls == 1:
            time.sleep(self.delay)
        return self.net(x)


def test_the_first_steps_cost_is_shown_on_its_own_and_left_out_of_the_rate(tmp_path):
    torch.manual_seed(0)
    config = {
        "run": {"device": "cpu", "quiet": True, "log_every": 8},
        "data": {"batch_size": 16},
        "train": {"max_epochs": 1},
        "guards": {"enabled": False},
    }
    samples = SlowSamples(n=512, delay=0)
    result = tw.fit(SlowFirstCall(), (samples.x, samples.y), val_data=None, config=config)
    rates = result.throughput
    assert rates["first_step_s"] >= 1.0
    # 512 samples: had the first second been counted, the rate could not pass 512/s
    assert rates["samples_per_s"] > 512 / 1.0
    assert "(the first step, 1." in result.describe()
    logs = [r for r in result.history if "samples_per_s" in r]
    assert not logs or "first_step_s" not in logs[0]  # epoch records carry no new timing
