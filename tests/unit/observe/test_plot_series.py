"""What ``trainwell plot`` draws: every numeric series of metrics.jsonl (tw.log values and
train_* epoch values too), plain tick labels, unreadable lines skipped and counted, and a PNG
that cannot be written is a WriteFailedError with no temporary file left."""

from __future__ import annotations

import errno
import json
import os

import pytest

pytest.importorskip("matplotlib")

from trainwell.errors import UserError, WriteFailedError  # noqa: E402
from trainwell.observe.log import AppendedFile  # noqa: E402
from trainwell.observe.plots import (  # noqa: E402
    figures,
    plot_runs,
    read_run,
    save_figure,
    tick_label,
)

# what the gan recipe logs: d_loss/g_loss with tw.log, their epoch means as train_*
GAN_RECORDS = [
    {"kind": "epoch", "epoch": 1, "step": 32, "train_loss": 1.98, "train_d_loss": 1.21,
     "train_g_loss": 0.77, "best": False, "lr": 0.001, "time_s": 0.31},
    {"kind": "step", "step": 50, "epoch": 2, "loss": 2.064, "d_loss": 1.22, "g_loss": 0.84,
     "grad_norm": 0.37, "lr": 0.001, "samples_per_s": 16418.4, "data_wait": 0.013,
     "interval_s": 0.39, "tflops": 0.0017, "mfu": 0.014},
    {"kind": "epoch", "epoch": 2, "step": 64, "train_loss": 2.085, "train_d_loss": 1.33,
     "train_g_loss": 0.91, "best": False, "lr": 0.001, "time_s": 0.09},
]  # fmt: skip


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")


def write_run(directory, records, extra=b""):
    directory.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(r) + "\n" for r in records).encode()
    (directory / "metrics.jsonl").write_bytes(text + extra)
    return directory


def drawn_series(pictures):
    """{file: {panel title: [line labels]}} of the figures."""
    return {
        name: {ax.get_title(): [line.get_label() for line in ax.get_lines()] for ax in fig.axes}
        for name, fig in pictures
    }


def test_every_numeric_series_is_plotted_and_the_losses_together(tmp_path):
    run = read_run(write_run(tmp_path / "gan", GAN_RECORDS))
    shown = drawn_series(figures([run]))
    assert shown["loss.png"] == {
        "Loss": ["loss", "d_loss", "g_loss", "train_d_loss", "train_g_loss", "train_loss"]
    }
    everything = {
        label.split(" (")[0] for panels in shown.values() for lines in panels.values()
        for label in lines
    }  # fmt: skip
    numeric = {
        k for r in GAN_RECORDS for k, v in r.items()
        if k not in ("kind", "step", "epoch") and not isinstance(v, bool)
    }  # fmt: skip
    assert everything == numeric  # every series, none invented
    assert shown["lr.png"] == {"Learning rate": ["lr (step)", "lr (epoch)"]}
    for title, lines in shown["throughput.png"].items():  # the speed of the run, a panel each
        assert lines == (["samples_per_s"] if title == "Throughput" else [title])


def test_other_metrics_get_a_panel_each_val_first(tmp_path):
    records = [
        {"kind": "step", "step": 10, "loss": 1.0, "accuracy": 0.5, "tokens_seen": 640},
        {"kind": "epoch", "step": 10, "val_loss": 0.9, "val_accuracy": 0.6, "train_acc": 0.55,
         "perplexity": 3.2},
    ]  # fmt: skip
    shown = drawn_series(figures([read_run(write_run(tmp_path / "a", records))]))
    assert list(shown["metrics.png"]) == [
        "val_accuracy", "train_acc", "accuracy", "perplexity", "tokens_seen",
    ]  # fmt: skip
    assert shown["loss.png"] == {"Loss": ["loss", "val_loss"]}


def test_tick_labels_are_plain_numbers():
    assert tick_label(2.085) == "2.085"
    assert tick_label(2.0) == "2"
    assert tick_label(0.2) == "0.2"
    assert tick_label(0.001) == "0.001"
    assert tick_label(14490.87) == "14491"
    assert tick_label(0) == "0"
    assert tick_label(-0.5) == "-0.5"
    assert tick_label(1e-5) == "1e-05"  # out of the ordinary range: e-notation, still no ×10ⁿ


@pytest.mark.parametrize(
    "losses",
    [[2.085, 2.07], [0.15, 1.8], [0.01, 2.5], [1000.0, 1000.5]],
    ids=["two-close-points", "one-decade", "log-scale", "large-offset"],
)
def test_no_axis_shows_times_ten_or_an_offset(tmp_path, losses):
    records = [
        {"kind": "step", "step": 10 * (i + 1), "loss": v, "grad_norm": v, "lr": 3e-4}
        for i, v in enumerate(losses)
    ]
    for _, fig in figures([read_run(write_run(tmp_path / "a", records))]):
        fig.canvas.draw()
        for ax in fig.axes:
            labels = [t.get_text() for t in ax.get_yticklabels(which="both") if t.get_text()]
            assert labels, ax.get_title()
            for label in labels:
                assert "×" not in label and "10^" not in label and "mathdefault" not in label
                assert "e" not in label.replace("e−", "e-") or label.startswith("1e-")
            assert ax.yaxis.get_offset_text().get_text() == "", ax.get_title()


def test_a_loss_spanning_ten_times_is_on_a_log_scale_a_narrow_one_is_not(tmp_path):
    def scale(losses):
        records = [{"kind": "step", "step": i + 1, "loss": v} for i, v in enumerate(losses)]
        (_, fig), *_ = figures([read_run(write_run(tmp_path / str(losses[0]), records))])
        return fig.axes[0].get_yscale()

    assert scale([2.085, 2.07]) == "linear"
    assert scale([5.0, 0.05]) == "log"


def test_unreadable_lines_are_skipped_and_counted(tmp_path):
    garbage = b'\x00\xff\xfe binary\n[1, 2]\n{"kind": "step", "step": 99, "loss": 0.'
    run = read_run(write_run(tmp_path / "a", GAN_RECORDS, extra=garbage))
    assert run.skipped == 3
    assert run.steps["d_loss"] == ([50], [1.22])
    told = []
    plot_runs([tmp_path / "a"], tmp_path / "plots", lambda path, n: told.append((path, n)))
    assert told == [(tmp_path / "a" / "metrics.jsonl", 3)]


def test_a_metrics_file_with_nothing_readable_is_refused(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "metrics.jsonl").write_bytes(os.urandom(2000).replace(b"\n", b"") + b"\n")
    with pytest.raises(UserError, match=r"metrics\.jsonl holds no readable record"):
        read_run(tmp_path / "a")


def test_a_png_that_cannot_be_written_leaves_the_old_one_and_no_temp_file(tmp_path, monkeypatch):
    run = read_run(write_run(tmp_path / "a", GAN_RECORDS))
    (_, fig), *_ = figures([run])
    target = tmp_path / "plots" / "loss.png"
    save_figure(fig, target)
    before = target.read_bytes()

    def full(fd):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(WriteFailedError, match=r"loss\.png: No space left on device") as caught:
        save_figure(fig, target)
    assert caught.value.exit_code == 4
    assert target.read_bytes() == before
    assert sorted(p.name for p in target.parent.iterdir()) == ["loss.png"]


def test_an_append_after_a_cut_line_starts_on_a_new_line(tmp_path):
    path = tmp_path / "metrics.jsonl"
    path.write_bytes(b'{"kind": "epoch", "step": 1}\n{"kind": "step", "step": 2, "loss": 0.')
    log = AppendedFile(path)
    log.open()
    log.write(json.dumps({"kind": "step", "step": 3}) + "\n")
    log.close()
    assert [json.loads(line)["step"] for line in path.read_text().splitlines()] == [1, 3]
    path.write_bytes(b'{"kind": "step", "step": 2, "lo')  # the only line, cut
    log.open()
    log.write('{"step": 4}\n')
    log.close()
    assert path.read_text() == '{"step": 4}\n'


def test_a_read_only_plots_directory_is_a_write_failure_naming_it(tmp_path, monkeypatch):
    import trainwell.state.atomic as atomic

    write_run(tmp_path / "a", GAN_RECORDS)

    def denied(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(atomic.tempfile, "mkstemp", denied)  # as root chmod cannot show it
    with pytest.raises(WriteFailedError, match=r"plots/loss\.png: Permission denied \(check"):
        plot_runs([tmp_path / "a"], tmp_path / "plots")
