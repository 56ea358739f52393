"""Quoted numbers: one rule for a config file and ``--set`` (a quoted number is read as the
number its key takes, int or float), and a refused quoted value names where it came from."""

import pytest

import trainwell as tw


@pytest.mark.parametrize("source", ["file", "set"])
def test_quoted_ints_and_floats_are_read_as_numbers_from_a_file_and_from_set(tmp_path, source):
    values = {
        "train.max_epochs": '"7"',
        "data.num_workers": '"2"',
        "schedule.milestones": '["3", 5]',
        "optim.lr": '"0.25"',
    }
    if source == "file":
        path = tmp_path / "c.yaml"
        path.write_text(
            'train:\n  max_epochs: "7"\ndata:\n  num_workers: "2"\n'
            'schedule:\n  milestones: ["3", 5]\noptim:\n  lr: "0.25"\n'
        )
        cfg = tw.load_config([path])
    else:
        cfg = tw.load_config([], [f"{key}={value}" for key, value in values.items()])
    assert cfg.train.max_epochs == 7 and isinstance(cfg.train.max_epochs, int)
    assert cfg.data.num_workers == 2
    assert cfg.schedule.milestones == (3, 5) or list(cfg.schedule.milestones) == [3, 5]
    assert cfg.optim.lr == 0.25


def test_a_refused_quoted_value_from_set_names_set_not_a_file():
    with pytest.raises(tw.ConfigError) as info:
        tw.load_config([], ['run.progress="false"'])
    message = str(info.value)
    assert "is a quoted string (in --set)" in message
    assert "file" not in message
    assert "write false without quotes" in message
    with pytest.raises(tw.ConfigError, match="train.max_epochs='ten' must be a whole number"):
        tw.build_config(overrides=['train.max_epochs="ten"'])  # a quoted non-number still fails


def test_a_refused_quoted_value_names_the_file_it_came_from(tmp_path):
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text("train:\n  max_epochs: 3\n")
    second.write_text('run:\n  progress: "false"\n')
    with pytest.raises(tw.ConfigError) as info:
        tw.load_config([first, second])
    assert f"(in config file {second})" in str(info.value)
