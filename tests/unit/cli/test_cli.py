"""The trainwell command in-process (``main([...])``): exit codes and messages of user
mistakes, the listings, usage, and a profiled run."""

import pytest

from trainwell.cli.app import main

pytestmark = (
    pytest.mark.cpu_only
)  # asserts CPU semantics (exact parity with CPU tensors, fp32, CPU probes): CUDA hidden


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["train", "--set", "optim.lrr=0.1"], "did you mean optim.lr?"),
        (
            ["train", "--set", "train.max_epochs=ten"],
            "train.max_epochs='ten' must be a whole number",
        ),
        (["train", "--set", "train.precision=fp17"], "did you mean 'fp16'?"),
        (["train", "--recipe", "digit"], "did you mean 'digits'?"),
        (["train", "--config", "missing.yaml"], "config file missing.yaml does not exist"),
        (["train", "--resume", "nowhere/last.pt", "--set", "train.max_epochs=1"], "does not exist"),
        (["resume", "not-a-run"], "not a run directory"),
    ],
)
def test_user_mistakes_exit_2_with_a_message_and_no_traceback(args, message, tmp_path, capsys):
    code = main([*args, "--run-dir", str(tmp_path / "r")] if args[0] == "train" else args)
    err = capsys.readouterr().err
    assert code == 2
    assert message in err
    assert "Traceback" not in err


def test_recipes_lists_builtins(capsys):
    assert main(["recipes"]) == 0
    out = capsys.readouterr().out
    assert "digits" in out and "(default)" in out and "spiral" in out


def test_help_lists_config_keys(capsys):
    assert main(["train", "--help"]) == 0
    out = capsys.readouterr().out
    assert "optim.lr=" in out and "peak learning rate" in out


def test_no_command_prints_usage_and_exits_2(capsys):
    assert main([]) == 2
    assert "usage" in capsys.readouterr().out


def test_train_profile_records_a_window_into_the_run_directory(tmp_path, capsys):
    run = tmp_path / "run"
    code = main(
        ["train", "--recipe", "spiral", "--run-dir", str(run), "--profile", "--quiet"]
        + ["--set", "train.max_epochs=1", "--set", "model.num_points=300"]
        + ["--set", "profile.wait=1", "--set", "profile.warmup=1", "--set", "profile.active=2"]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "profiler: 2 steps recorded" in out and "top ops by self CPU time" in out
    traces = list((run / "profile").glob("trace-step*.json"))
    assert len(traces) == 1 and "aten::" in traces[0].read_text()
    assert "Self CPU" in (run / "profile" / "profile.txt").read_text()


def test_profile_window_values_are_checked(capsys):
    code = main(["train", "--recipe", "spiral", "--set", "profile.active=0", "--quiet"])
    assert code == 2
    assert "profile.active=0 must be >= 1" in capsys.readouterr().err


def test_resume_of_a_multi_process_run_in_one_process_falls_back_to_single(monkeypatch, capsys):
    from pathlib import Path

    import trainwell as tw
    from trainwell.cli.train import _alone_as_single

    monkeypatch.delenv("WORLD_SIZE", raising=False)
    for recorded in ("fsdp", "ddp"):
        config = tw.build_config({"run": {"strategy": recorded}})
        alone = _alone_as_single(config, ["train.max_epochs=3"], Path("runs/a"))
        assert alone.run.strategy == "single"
        err = capsys.readouterr().err
        assert err.count("trainwell: note:") == 1 and err[-1] == "\n" and err.count("\n") == 1
        assert f"run.strategy={recorded} over several processes" in err
    fsdp = tw.build_config({"run": {"strategy": "fsdp"}})
    asked = _alone_as_single(fsdp, ["run.strategy=fsdp"], Path("runs/a"))  # yours stands
    assert asked.run.strategy == "fsdp"
    assert _alone_as_single(tw.build_config({}), [], Path("a")).run.strategy == "auto"
    monkeypatch.setenv("WORLD_SIZE", "2")  # under torchrun: the recorded strategy
    assert _alone_as_single(fsdp, [], Path("runs/a")).run.strategy == "fsdp"
    assert capsys.readouterr().err == ""
