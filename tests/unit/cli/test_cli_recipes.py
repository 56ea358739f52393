"""Your own recipe (``module:function``): its contract and its errors, through ``main([...])``."""

import pytest

from trainwell.cli.app import main


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("    return {'model': torch.nn.Linear(4, 2)}", "returned a dict"),
        ("    return None", "returned None"),
        ("    return Job(model='linear', train_data=(x, y))", "model must be a torch.nn.Module"),
        ("    return Job(model=torch.nn.Linear(4, 2), train_data=None)", "train_data"),
    ],
)
def test_a_recipe_that_returns_the_wrong_thing_exits_2_saying_what_it_must_return(
    tmp_path, monkeypatch, capsys, body, message
):
    name = f"wrongrecipe{abs(hash(body))}"
    (tmp_path / f"{name}.py").write_text(
        "import torch\nfrom trainwell.recipes import Job\n"
        "def build(config):\n    x, y = torch.randn(8, 4), torch.zeros(8).long()\n" + body + "\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    code = main(["train", "--recipe", f"{name}:build", "--run-dir", str(tmp_path / "r"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert message in err and "Job(" in err
