"""TW012 where a function runs in another thread or process: grad mode is thread-local, so
the caller's no_grad does not reach ``Process(target=...)``, a pool's workers, ``mp.spawn``
or a Ray actor.  A function of another file is said at the hand-over, where the script can
fix it; one of the same file at its forward (the examples beside the rule cover those)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from trainwell.doctor import check_paths
from trainwell.doctor.handover import handed_over, remote_functions

WORKER = """
import torch


def evaluate(opt, shared_model):
    local_model = ActorCritic(opt.num_states, opt.num_actions)
    local_model.eval()
    while True:
        local_model.load_state_dict(shared_model.state_dict())
        {forward}
        action = torch.argmax(logits).item()
        state = env.step(action)
"""

TRAIN = """
import torch
import torch.multiprocessing as mp
from worker import evaluate

model = ActorCritic(4, 2)
model.share_memory()
with torch.no_grad():
    process = mp.Process(target=evaluate, args=(opt, model))
process.start()
optimizer = torch.optim.Adam(model.parameters())
for batch in batches:
    optimizer.zero_grad()
    loss = model.loss(batch)
    loss.backward()
    optimizer.step()
"""


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(text.lstrip("\n"))
    return path


def findings(paths: list[Path]) -> set[tuple[str, int, str]]:
    return {(Path(f.path).name, f.line, f.code) for f in check_paths(paths)}


def test_another_files_function_handed_to_a_process_is_said_at_the_hand_over(
    tmp_path: Path,
) -> None:
    write(tmp_path, "worker.py", WORKER.format(forward="logits, value = local_model(state)"))
    script = write(tmp_path, "train.py", TRAIN)
    assert findings([script]) == {("train.py", 8, "TW012")}
    message = next(iter(check_paths([script]))).message
    assert "new thread or process" in message and "worker.py:9" in message


def test_another_files_process_that_turns_autograd_off(tmp_path: Path) -> None:
    guarded = "with torch.no_grad():\n            logits, value = local_model(state)"
    write(tmp_path, "worker.py", WORKER.format(forward=guarded))
    script = write(tmp_path, "train.py", TRAIN)
    assert findings([script]) == set()


def test_a_helper_called_in_the_same_thread_under_no_grad(tmp_path: Path) -> None:
    # the same helper called directly: the caller's no_grad covers it
    write(tmp_path, "worker.py", WORKER.format(forward="logits, value = local_model(state)"))
    direct = TRAIN.replace(
        "    process = mp.Process(target=evaluate, args=(opt, model))\nprocess.start()",
        "    evaluate(opt, model)",
    )
    script = write(tmp_path, "train.py", direct)
    assert findings([script]) == set()


def test_a_same_file_target_says_why_the_callers_no_grad_does_not_help(tmp_path: Path) -> None:
    script = write(
        tmp_path,
        "train.py",
        "import torch\n\n"
        "def evaluate(model, loader):\n"
        "    model.eval()\n"
        "    for x, y in loader:\n"
        "        print((model(x).argmax(1) == y).sum().item())\n\n"
        "with torch.no_grad():\n"
        "    mp.Process(target=evaluate, args=(model, loader)).start()\n",
    )
    (finding,) = check_paths([script])
    assert (finding.line, finding.code) == (6, "TW012")
    assert "evaluate() runs in another thread or process" in finding.message


def hand_over(source: str) -> str | None:
    call = ast.parse(source).body[0].value  # type: ignore[attr-defined]
    run = handed_over(call, None)
    return None if run is None else ast.unparse(run)


@pytest.mark.parametrize(
    ("source", "run"),
    [
        ("mp.Process(target=evaluate, args=(opt, model))", "evaluate(opt, model)"),
        ("threading.Thread(target=self.work, kwargs={'n': 2})", "self.work(n=2)"),
        ("mp.spawn(worker, args=(model, cfg), nprocs=4)", "worker(None, model, cfg)"),
        ("pool.map(partial(score, model), batches)", "score(model, None)"),
        ("pool2.starmap(extract, jobs)", "extract()"),
        ("executor.submit(predict, net, x, k=1)", "predict(net, x, k=1)"),
        ("pool.apply_async(predict, args=(net,), kwds={'k': 1})", "predict(net, k=1)"),
    ],
)
def test_what_a_hand_over_runs(source: str, run: str) -> None:
    assert hand_over(source) == run


@pytest.mark.parametrize(
    "source",
    [
        "map(score, batches)",  # the builtin runs in this thread
        "dataset.map(tokenize, batched=True)",
        "spawn(worker)",  # not multiprocessing's
        "mp.Process(target=lambda: model(x))",
        "Process(name='x')",
    ],
)
def test_calls_that_hand_nothing_over(source: str) -> None:
    assert hand_over(source) is None


def test_ray_remote_functions_and_actor_methods() -> None:
    tree = ast.parse(
        "@ray.remote(num_gpus=1)\nclass A:\n    def f(self): ...\n    def g(self): ...\n"
        "@ray.remote\ndef h(): ...\n"
        "class B:\n    def f(self): ...\n"
        "@other.remote\ndef k(): ...\n"
    )
    assert sorted(f.name for f in remote_functions(tree)) == ["f", "g", "h"]  # type: ignore[attr-defined]
