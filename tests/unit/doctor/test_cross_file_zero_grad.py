"""``graph.zero_grad()`` of a class of another file (ppq's ``TrainableGraph``, whose body
clears ``var.value._grad`` by hand) clears the gradients the optimizer steps on, as a
model's or an optimizer's ``zero_grad()`` does: no TW001 for the loop that calls it."""

from __future__ import annotations

from pathlib import Path

from trainwell.doctor import check_paths

GRAPHS = """
class TrainableGraph:
    def __init__(self, graph):
        self.graph = graph

    def parameters(self):
        return [v.value for v in self.graph.variables if v.is_parameter]

    def zero_grad(self):
        for var in self.graph.variables:
            if var.value._grad is not None:
                var.value._grad.zero_()
"""

TRAINER = """
import torch
from graphs import TrainableGraph


class Trainer:
    def __init__(self, graph):
        self._training_graph = TrainableGraph(graph)
        self._optimizer = torch.optim.SGD(self._training_graph.parameters(), lr=0.1)

    def epoch(self, loader, run):
        for data, label in loader:
            self.step(run, data, label)

    def step(self, run, data, label):
        loss = torch.nn.functional.cross_entropy(run(data), label)
        loss.backward()
        self._optimizer.step()
        self._training_graph.zero_grad()
"""


def found(tmp_path: Path, trainer: str) -> set[tuple[str, int, str]]:
    (tmp_path / "graphs.py").write_text(GRAPHS.lstrip("\n"))
    (tmp_path / "trainer.py").write_text(trainer.lstrip("\n"))
    return {(Path(f.path).name, f.line, f.code) for f in check_paths([tmp_path], select="TW001")}


def test_another_files_zero_grad_clears_the_stepped_gradients(tmp_path: Path) -> None:
    assert found(tmp_path, TRAINER) == set()


def test_without_it_the_gradients_accumulate(tmp_path: Path) -> None:
    trainer = TRAINER.replace("        self._training_graph.zero_grad()\n", "")
    assert found(tmp_path, trainer) == {("trainer.py", 17, "TW001")}
