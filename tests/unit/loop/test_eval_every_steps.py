"""``train.eval_every_steps``: validation every N optimizer steps instead of at epoch ends
(and at the run's end); best tracking, the best checkpoint and early stopping follow these
evaluations, logged as ``kind: eval`` records keyed by step; a resume keeps the cadence."""

import json

import pytest
import torch
from tests.fixtures import blobs, mlp, quiet_config

import trainwell as tw
from trainwell.loop import stops

DATA, VAL = blobs(240), blobs(60, seed=1)


def _fit(run_dir=None, *, epochs=3, resume=None, model=None, **sections):
    model = model or mlp()
    sections.setdefault("train", {}).setdefault("eval_every_steps", 5)
    sections.setdefault("run", {}).update(device="cpu", dir=str(run_dir) if run_dir else None)
    cfg = quiet_config(
        max_epochs=epochs,
        data={"batch_size": 32},  # 8 steps per epoch
        checkpoint={"resume": resume},
        **sections,
    )
    return model, tw.fit(model, DATA, VAL, metrics=["accuracy"], config=cfg)


def _evaluations(records):
    return [r for r in records if "val_loss" in r]


def test_validation_every_n_steps_and_at_the_end_only(tmp_path):
    _, result = _fit(tmp_path)  # 24 steps: evaluations at 5, 10, 15, 20, and the end (24)
    assert [r["step"] for r in _evaluations(result.history)] == [5, 10, 15, 20, 24]
    assert [r.get("kind") for r in _evaluations(result.history)] == [*["eval"] * 4, None]
    lines = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    logged = [(r["kind"], r["step"]) for r in lines if "val_loss" in r]
    assert logged == [("eval", 5), ("eval", 10), ("eval", 15), ("eval", 20), ("epoch", 24)]
    epochs = [r for r in lines if r["kind"] == "epoch"]
    assert [("val_loss" in r) for r in epochs] == [False, False, True]  # not at epoch ends
    header = (tmp_path / "metrics.csv").read_text().splitlines()[0].split(",")
    assert "val_accuracy" in header


def test_the_best_evaluation_is_tracked_saved_and_restored_by_step(tmp_path):
    model, result = _fit(tmp_path, epochs=4, monitor={"metric": "val_accuracy", "mode": "max"})
    evaluations = _evaluations(result.history)
    values = [r["val_accuracy"] for r in evaluations]
    best = evaluations[values.index(max(values))]
    assert (result.best, result.best_step) == (max(values), best["step"])
    assert json.loads((tmp_path / "checkpoints" / "best.json").read_text())["step"] == best["step"]
    again = tw.evaluate(model, VAL, metrics=["accuracy"], device="cpu")
    assert again["accuracy"] == pytest.approx(result.best)  # the model holds that step's weights


def test_patience_counts_evaluations_not_epochs():
    model = mlp()
    _, result = _fit(
        epochs=50,
        model=model,
        train={"eval_every_steps": 2},
        optim={"lr": 0.5},  # noisy: the validation loss stops improving soon
        early_stop={"patience": 3},
    )
    evaluations = _evaluations(result.history)
    assert result.stop_reason.startswith("stopped early: val_loss has not improved for 3")
    assert result.stop_reason.endswith(f"at epoch {result.best_epoch}, step {result.best_step})")
    assert result.steps == evaluations[-1]["step"] and result.steps % 2 == 0
    assert result.steps < 50 * 8
    since_best = [r for r in evaluations if r["step"] > result.best_step]
    assert len(since_best) == 3 and not any(r["best"] for r in since_best)


class TickingClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


def test_a_resume_mid_way_keeps_the_cadence_and_is_exact(tmp_path, monkeypatch):
    straight_model, straight = _fit(tmp_path / "straight", monitor={"restore_best": False})
    monkeypatch.setattr(stops, "_now", TickingClock())  # cut after step 12 (not a multiple of 5)
    _, cut = _fit(tmp_path / "cut", train={"max_time": 13}, monitor={"restore_best": False})
    assert cut.steps % 5 != 0 and cut.stop_reason.startswith("time limit reached")
    monkeypatch.setattr(stops, "_now", stops.time.monotonic)
    resumed_model, resumed = _fit(
        tmp_path / "cut", resume="auto", train={"max_time": 13}, monitor={"restore_best": False}
    )
    keys = ("step", "val_loss", "val_accuracy", "best")
    assert [[r[k] for k in keys] for r in _evaluations(resumed.history)] == [
        [r[k] for k in keys] for r in _evaluations(straight.history)
    ]
    for a, b in zip(straight_model.parameters(), resumed_model.parameters(), strict=True):
        assert torch.equal(a, b)


@pytest.mark.parametrize("value", [0, -3])
def test_a_bad_interval_is_a_config_error(value):
    with pytest.raises(tw.ConfigError, match=r"train.eval_every_steps=.* must be > 0"):
        tw.build_config({"train": {"eval_every_steps": value}})


def test_eval_every_and_eval_every_steps_together_are_refused():
    with pytest.raises(tw.ConfigError, match="keep one"):
        tw.build_config({"train": {"eval_every": 2, "eval_every_steps": 100}})


def test_progress_prints_each_evaluation_between_epochs_with_its_step():
    import io

    from trainwell.observe.progress import Progress

    out = io.StringIO()
    progress = Progress(bar=False, file=out)
    record = {"kind": "eval", "epoch": 2, "step": 40, "val_loss": 0.25, "best": True, "lr": 0.1}
    progress.on_eval_end(record, step=40, epoch=2)
    progress.on_eval_end({"epoch": 2, "step": 48, "val_loss": 0.2}, step=48, epoch=2)
    assert out.getvalue().splitlines() == ["step     40 (epoch 2)  val_loss 0.25  *best*"]
