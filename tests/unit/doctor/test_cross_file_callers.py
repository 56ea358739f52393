"""A helpers module's function that only another checked file calls (``main.py``'s
``apply.apply_to_file(model, wav)``): the inference it runs, through a helper of its own
file, is said at that call in ``main.py``, not a second time inside the helpers module."""

from __future__ import annotations

from pathlib import Path

from trainwell.doctor import check_paths

APPLY = """
import torch


def apply_to_wav(model, waveform):
    model.eval()
    res = model(waveform.unsqueeze(0))
    return torch.softmax(res, -1).cpu().detach().numpy()


def apply_to_file(model, wav_file):
    waveform = torch.load(wav_file, weights_only=True)
    return apply_to_wav(model, waveform)
"""

MAIN = """
import apply

model = build_model()
print(apply.apply_to_file(model, "a.wav"))
"""


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text.lstrip("\n"))
    return path


def found(paths: list[Path]) -> set[tuple[str, int, str]]:
    return {(Path(f.path).name, f.line, f.code) for f in check_paths(paths, select="TW012")}


def test_said_at_the_other_files_call_only(tmp_path: Path) -> None:
    paths = [write(tmp_path, "apply.py", APPLY), write(tmp_path, "main.py", MAIN)]
    assert found(paths) == {("main.py", 4, "TW012")}


def test_said_inside_when_no_file_calls_it(tmp_path: Path) -> None:
    # alone, the helpers module is all there is: its own call chain is the evidence
    assert found([write(tmp_path, "apply.py", APPLY)]) == {("apply.py", 6, "TW012")}


def test_said_inside_when_this_file_also_runs_it(tmp_path: Path) -> None:
    runs_it = APPLY + "\n\nprint(apply_to_file(build_model(), 'a.pt'))\n"
    paths = [write(tmp_path, "apply.py", runs_it), write(tmp_path, "main.py", MAIN)]
    assert ("apply.py", 6, "TW012") in found(paths)


def test_said_at_the_call_of_a_name_imported_from_it(tmp_path: Path) -> None:
    main = 'from apply import apply_to_file\n\nprint(apply_to_file(build_model(), "a.wav"))\n'
    paths = [write(tmp_path, "apply.py", APPLY), write(tmp_path, "main.py", main)]
    assert found(paths) == {("main.py", 3, "TW012")}


def test_a_caller_beside_it_counts_when_the_module_is_checked_alone(tmp_path: Path) -> None:
    # doctor apply.py, with main.py beside it: the finding is main.py's, where it is said
    apply = write(tmp_path, "apply.py", APPLY)
    write(tmp_path, "main.py", MAIN)
    assert found([apply]) == set()


TRAINER = """
import torch


def evaluate(model, x):
    model.eval()
    score = model(x).argmax(1)
    model.train()
    return score


def train(model, loader, optimizer, verbose=True):
    for x, y in loader:
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
        if verbose:  # (a call under an if on a parameter: still a function that trains)
            print(evaluate(model, x))
"""


def test_a_training_function_called_elsewhere_keeps_its_helpers_finding(tmp_path: Path) -> None:
    # nobody runs a training step under no_grad: its evaluation helper is said inside
    trainer = write(tmp_path, "trainer.py", TRAINER)
    write(tmp_path, "main.py", "import trainer\n\ntrainer.train(net, loader, opt)\n")
    assert found([trainer]) == {("trainer.py", 6, "TW012")}
