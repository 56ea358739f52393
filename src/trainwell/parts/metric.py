"""Validation metrics: stateful accumulators, exact whatever the batch size.

A metric is updated with every batch on the device (``update(outputs, targets)``), read once
at the end of an evaluation (``compute()``), and cleared before the next one (``reset()``).
It keeps sufficient statistics, never a mean of per-batch means, so its value over a dataset
does not depend on how the dataset was cut into batches. Epoch-level metrics (F1 from a
confusion matrix, AUROC from every score) are therefore possible.

Write your own by subclassing `Metric`::

    class MeanAbsoluteError(tw.Metric):
        def reset(self):
            self.total, self.count = 0.0, 0
        def update(self, outputs, targets):
            self.total = self.total + (outputs - targets).abs().sum()   # stays on the device
            self.count += targets.numel()
        def compute(self):
            return self.total / max(self.count, 1)

A plain function ``fn(outputs, targets) -> batch mean`` is accepted too and treated as a mean
over samples (weighted by each batch's size); that is exact only for per-sample means.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

import torch

from trainwell.errors import ConfigError, ShapeError, warn_at_user

MetricFn = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]
IGNORE_INDEX = -100  # CrossEntropyLoss's default: targets equal to it are not counted


class Metric:
    """A value accumulated over a whole evaluation. Subclasses define the three methods.

    ``update`` must not sync with the host (no ``.item()``): keep sums as device tensors.
    ``compute`` returns a 0-d tensor (or a float); the loop reads all metrics in one sync.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        """Forget everything seen (called before every evaluation)."""
        raise NotImplementedError

    def update(self, outputs: torch.Tensor, targets: torch.Tensor) -> None:
        """Add one batch: the model's outputs (logits) and the targets."""
        raise NotImplementedError

    def compute(self) -> torch.Tensor | float:
        """The value over everything seen since `reset`."""
        raise NotImplementedError

    def __call__(self, outputs: torch.Tensor, targets: torch.Tensor) -> torch.Tensor | float:
        """One-shot: the metric of this single batch (resets the state)."""
        self.reset()
        self.update(outputs, targets)
        return self.compute()


# --------------------------------------------------------------------------- predictions


Task = Literal["binary", "multiclass"]


def classify(
    outputs: torch.Tensor, targets: torch.Tensor, ignore_index: int | None = IGNORE_INDEX
) -> tuple[Task, torch.Tensor, torch.Tensor, torch.Tensor]:
    """Read logits and targets as (task, scores, targets, mask), all flat over samples.

    - ``(N, C)`` logits with ``(N,)`` class indices, ``(B, L, C)`` with ``(B, L)`` (classes
      last) or ``(N, C, d...)`` with ``(N, d...)`` (classes second, CrossEntropyLoss's layout):
      multiclass; scores are ``(M, C)``;
    - ``(N,)``/``(N, 1)`` logits (or any output of the targets' shape) with 0/1 targets:
      binary (multi-label when wider); scores are the logits, thresholded at 0.

    ``mask`` marks the targets that count (not ``ignore_index``).
    """
    if outputs.dim() >= 2 and outputs.shape[-1] == 1 and outputs.shape[:-1] == targets.shape:
        outputs = outputs.squeeze(-1)  # (N, 1) binary logits with (N,) targets
    if outputs.shape == targets.shape:
        flat_targets = targets.reshape(-1)
        mask = _valid(flat_targets, ignore_index)
        return "binary", outputs.reshape(-1), flat_targets, mask
    if outputs.dim() == targets.dim() + 1:
        if outputs.shape[:-1] == targets.shape:  # classes last: (N, C), (B, L, V)
            scores = outputs.reshape(-1, outputs.shape[-1])
        elif outputs.shape[0] == targets.shape[0] and outputs.shape[2:] == targets.shape[1:]:
            scores = outputs.movedim(1, -1).reshape(-1, outputs.shape[1])  # (N, C, d...)
        else:
            scores = None
        if scores is not None:
            flat_targets = targets.reshape(-1)
            return "multiclass", scores, flat_targets, _valid(flat_targets, ignore_index)
    raise ShapeError(
        f"a classification metric cannot pair model outputs {tuple(outputs.shape)} with "
        f"targets {tuple(targets.shape)}: use (N, C) logits with (N,) class indices, "
        "(B, L, C) with (B, L), or binary logits shaped like the targets"
    )


def _valid(targets: torch.Tensor, ignore_index: int | None) -> torch.Tensor:
    if ignore_index is None or targets.is_floating_point():
        return torch.ones_like(targets, dtype=torch.bool)
    return targets != ignore_index


def _labels(
    task: Task, scores: torch.Tensor, targets: torch.Tensor, threshold: float
) -> tuple[torch.Tensor, torch.Tensor]:
    """Predicted and true class indices (long) of flat scores/targets (binary: score >
    ``threshold``)."""
    if task == "binary":
        predicted = (scores.float() > threshold).long()
        truth = (targets > 0.5).long() if targets.is_floating_point() else targets.long()
        return predicted, truth
    return scores.argmax(dim=-1), targets.long()


# --------------------------------------------------------------------------- built-ins


Outputs = Literal["logits", "probabilities"]

#: The binary decision threshold of each kind of model output.
THRESHOLDS: dict[str, float] = {"logits": 0.0, "probabilities": 0.5}


class ProbabilityOutputsWarning(UserWarning):
    """A binary metric thresholds at 0 (logits), but every output lies in [0, 1]."""


def outputs_of_loss(loss_fn: Any) -> Outputs | None:
    """What a loss takes from the model: ``"probabilities"`` (``BCELoss``), ``"logits"``
    (``BCEWithLogitsLoss``, ``CrossEntropyLoss``), or None when the loss does not say."""
    functional = torch.nn.functional
    if isinstance(loss_fn, torch.nn.BCELoss) or loss_fn is functional.binary_cross_entropy:
        return "probabilities"
    logit_losses = (torch.nn.BCEWithLogitsLoss, torch.nn.CrossEntropyLoss)
    if isinstance(loss_fn, logit_losses) or loss_fn in (
        functional.binary_cross_entropy_with_logits,
        functional.cross_entropy,
    ):
        return "logits"
    return None


class Thresholded(Metric):
    """A metric that thresholds binary outputs: at ``threshold`` when given, else at 0.5 for
    ``outputs="probabilities"`` and 0 for ``"logits"``; without either, the kind the run's loss
    takes (`follow_loss`: ``BCELoss`` means probabilities), else logits. The explicit argument
    wins. A logit threshold that meets outputs all in [0, 1] is warned about once."""

    def __init__(self, threshold: float | None = None, outputs: Outputs | None = None) -> None:
        if outputs not in (None, *THRESHOLDS):
            raise ConfigError(
                f"{type(self).__name__}(outputs={outputs!r}): choose 'logits' (threshold 0) "
                "or 'probabilities' (threshold 0.5)"
            )
        self.threshold, self.outputs = threshold, outputs
        self.loss_outputs: Outputs | None = None
        self._warned = False
        super().__init__()

    def follow_loss(self, loss_fn: Any) -> None:
        """Take the kind of outputs from the run's loss (an explicit argument still wins)."""
        self.loss_outputs = outputs_of_loss(loss_fn)

    @property
    def binary_threshold(self) -> float:
        """The threshold in effect for binary outputs."""
        if self.threshold is not None:
            return self.threshold
        return THRESHOLDS[self.outputs or self.loss_outputs or "logits"]

    def reset(self) -> None:
        self._in_unit: torch.Tensor | None = None  # all binary scores so far in [0, 1]

    def _labels(
        self, task: Task, scores: torch.Tensor, targets: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        if task == "binary" and self._may_be_probabilities() and scores.numel():
            in_unit = ((scores >= 0) & (scores <= 1)).all()  # on the device: read at compute
            self._in_unit = in_unit if self._in_unit is None else self._in_unit & in_unit
        return _labels(task, scores, targets, self.binary_threshold)

    def _may_be_probabilities(self) -> bool:
        # only a guessed logit threshold is checked: an explicit choice is the user's
        chosen = self.threshold is not None or self.outputs is not None
        return not (self._warned or chosen or self.loss_outputs == "probabilities")

    def _warn_if_probabilities(self) -> None:
        if self._in_unit is None or self._warned or not bool(self._in_unit):
            return
        self._warned = True
        name = type(self).__name__
        warn_at_user(
            f"{name} thresholds binary outputs at 0 (logits), but every output lies in [0, 1]: "
            f"they look like probabilities (a Sigmoid at the end of the model), so almost all "
            f"count as positive. Pass loss=nn.BCELoss(), or {name}(outputs='probabilities') "
            f"(threshold 0.5); or drop the Sigmoid and train with nn.BCEWithLogitsLoss()",
            ProbabilityOutputsWarning,
        )


class Accuracy(Thresholded):
    """Fraction of counted targets predicted right.

    Multiclass: arg-max of the class dimension (see `classify` for the layouts); binary:
    output > the threshold (see `Thresholded`: 0 for logits, 0.5 for probabilities, following
    the loss unless ``threshold``/``outputs`` is given). Targets equal to ``ignore_index``
    (padding in sequences) are not counted.
    """

    def __init__(
        self,
        ignore_index: int | None = IGNORE_INDEX,
        threshold: float | None = None,
        *,
        outputs: Outputs | None = None,
    ) -> None:
        self.ignore_index = ignore_index
        super().__init__(threshold, outputs)

    def reset(self) -> None:
        super().reset()
        self.correct: torch.Tensor | int = 0
        self.total: torch.Tensor | int = 0

    def update(self, outputs: torch.Tensor, targets: torch.Tensor) -> None:
        task, scores, flat_targets, mask = classify(outputs, targets, self.ignore_index)
        predicted, truth = self._labels(task, scores, flat_targets)
        right = predicted == truth
        # an arg-max is never negative: an ignored (negative) target is never "right" anyway
        if not (task == "multiclass" and (self.ignore_index is None or self.ignore_index < 0)):
            right = right & mask
        self.correct = self.correct + right.sum()
        self.total = self.total + mask.sum()

    def compute(self) -> torch.Tensor:
        self._warn_if_probabilities()
        return wide(torch.as_tensor(self.correct)) / max_tensor(self.total)


class ConfusionMatrix(Thresholded):
    """Counts of (true class, predicted class) pairs, summed on the device.

    The number of classes is read from the first batch (2 for binary outputs) unless given;
    binary outputs are thresholded as in `Thresholded`.
    """

    def __init__(
        self,
        num_classes: int | None = None,
        ignore_index: int | None = IGNORE_INDEX,
        threshold: float | None = None,
        *,
        outputs: Outputs | None = None,
    ) -> None:
        self.num_classes, self.ignore_index = num_classes, ignore_index
        super().__init__(threshold, outputs)

    def reset(self) -> None:
        super().reset()
        self.matrix: torch.Tensor | None = None
        self.task: Task | None = None

    def update(self, outputs: torch.Tensor, targets: torch.Tensor) -> None:
        task, scores, flat_targets, mask = classify(outputs, targets, self.ignore_index)
        predicted, truth = self._labels(task, scores, flat_targets)
        n = self.num_classes or (2 if task == "binary" else scores.shape[-1])
        pairs = (truth[mask].clamp(0, n - 1) * n + predicted[mask]).reshape(-1)
        counts = torch.bincount(pairs, minlength=n * n).reshape(n, n)
        self.matrix = counts if self.matrix is None else self.matrix + counts
        self.task = task

    def compute(self) -> torch.Tensor:
        if self.matrix is None:
            raise ShapeError("the confusion matrix saw no batch")
        self._warn_if_probabilities()
        return self.matrix


class F1(ConfusionMatrix):
    """F1 score from the confusion matrix of the whole evaluation.

    ``average``: ``"macro"`` (mean over the classes that occur in the targets or the
    predictions, as scikit-learn), ``"micro"``, ``"weighted"`` (by support), or ``"binary"``
    (the positive class). Default: ``"binary"`` for binary outputs, ``"macro"`` otherwise.
    Binary outputs are thresholded as in `Thresholded` (``threshold``/``outputs``, else the
    loss's kind).
    """

    def __init__(
        self,
        average: Literal["macro", "micro", "weighted", "binary"] | None = None,
        num_classes: int | None = None,
        ignore_index: int | None = IGNORE_INDEX,
        threshold: float | None = None,
        *,
        outputs: Outputs | None = None,
    ) -> None:
        if average not in (None, "macro", "micro", "weighted", "binary"):
            raise ConfigError(
                f"F1(average={average!r}): choose 'macro', 'micro', 'weighted' or 'binary'"
            )
        self.average = average
        super().__init__(num_classes, ignore_index, threshold, outputs=outputs)

    def compute(self) -> torch.Tensor:
        matrix = wide(super().compute())
        true_positive = matrix.diagonal()
        support, predicted = matrix.sum(dim=1), matrix.sum(dim=0)
        average = self.average or ("binary" if self.task == "binary" else "macro")
        if average == "micro":
            return 2 * true_positive.sum() / max_tensor(support.sum() + predicted.sum())
        per_class = 2 * true_positive / (support + predicted).clamp(min=1)
        if average == "binary":
            return per_class[1]
        if average == "weighted":
            return (per_class * support).sum() / max_tensor(support.sum())
        present = (support + predicted) > 0
        return per_class[present].sum() / max_tensor(present.sum())


class AUROC(Metric):
    """Area under the ROC curve over the whole evaluation (every score is kept).

    Binary logits: the usual AUROC. Multiclass logits: one-vs-rest on softmax scores,
    averaged over the classes present (scikit-learn's ``multi_class="ovr"``, macro). Ties
    count one half. NaN when a class has no positive or no negative example.
    """

    def __init__(self, ignore_index: int | None = IGNORE_INDEX) -> None:
        self.ignore_index = ignore_index
        super().__init__()

    def reset(self) -> None:
        self.scores: list[torch.Tensor] = []
        self.targets: list[torch.Tensor] = []
        self.task: Task | None = None

    def update(self, outputs: torch.Tensor, targets: torch.Tensor) -> None:
        task, scores, flat_targets, mask = classify(outputs, targets, self.ignore_index)
        self.task = task
        self.scores.append(wide(scores[mask].detach()))
        self.targets.append(flat_targets[mask].detach())

    def compute(self) -> torch.Tensor:
        if not self.scores:
            raise ShapeError("AUROC saw no batch")
        scores, targets = torch.cat(self.scores), torch.cat(self.targets)
        if self.task == "binary":
            positive = targets > 0.5 if targets.is_floating_point() else targets > 0
            return binary_auroc(scores, positive)
        probabilities = scores.softmax(dim=-1)
        per_class = [
            binary_auroc(probabilities[:, c], targets == c)
            for c in range(scores.shape[-1])
            if bool((targets == c).any())
        ]
        return torch.stack(per_class).mean()


def binary_auroc(scores: torch.Tensor, positive: torch.Tensor) -> torch.Tensor:
    """AUROC as the Mann-Whitney statistic: P(score of a positive > score of a negative)."""
    scores = wide(scores)
    _, inverse, counts = torch.unique(scores, return_inverse=True, return_counts=True)
    ends = wide(counts.cumsum(0))
    average_rank = ends - (wide(counts) - 1) / 2  # ties share their mean rank (1-based)
    ranks = average_rank[inverse]
    n_pos = wide(positive.sum())
    n_neg = positive.numel() - n_pos
    return (ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)


class BatchMean(Metric):
    """Wraps a plain ``fn(outputs, targets) -> batch mean`` as a mean over samples."""

    def __init__(self, fn: MetricFn) -> None:
        self.fn = fn
        super().__init__()

    def reset(self) -> None:
        self.total: torch.Tensor | float = 0.0
        self.count = 0

    def update(self, outputs: torch.Tensor, targets: torch.Tensor) -> None:
        n = outputs.shape[0] if outputs.dim() else 1
        self.total = self.total + wide(torch.as_tensor(self.fn(outputs, targets)).detach()) * n
        self.count += n

    def compute(self) -> torch.Tensor:
        return wide(torch.as_tensor(self.total)) / max(self.count, 1)


class LossSum(Metric):
    """The mean loss over samples (or tokens): sums ``loss x count`` and the counts.

    ``update(loss, count)``: ``loss`` is a batch's mean loss and ``count`` what it averaged
    over (samples, or real tokens), so the result is exact whatever the batch size.
    """

    def reset(self) -> None:
        # kept per batch and summed once in compute(): no device op per batch
        self.losses: list[torch.Tensor] = []
        self.counts: list[torch.Tensor | int] = []

    def update(self, outputs: torch.Tensor, targets: torch.Tensor | int) -> None:
        self.losses.append(outputs.detach())
        self.counts.append(targets)

    def compute(self) -> torch.Tensor:
        if not self.losses:
            return torch.zeros((), dtype=torch.float64)
        losses = wide(torch.stack([loss.reshape(()) for loss in self.losses]))
        if all(isinstance(c, int) for c in self.counts):
            counts = torch.tensor(self.counts, dtype=losses.dtype, device=losses.device)
        else:
            counts = wide(
                torch.stack([torch.as_tensor(c, device=losses.device) for c in self.counts])
            )
        return (losses * counts).sum() / max_tensor(counts.sum())


def max_tensor(count: torch.Tensor | float) -> torch.Tensor | float:
    """``count`` floored at 1 without a host sync (an empty evaluation gives 0, not NaN)."""
    if isinstance(count, torch.Tensor):
        return wide(count).clamp(min=1)
    return max(count, 1)


def accuracy(
    outputs: torch.Tensor, targets: torch.Tensor, ignore_index: int | None = IGNORE_INDEX
) -> torch.Tensor:
    """Accuracy of one batch (see `Accuracy` for the layouts it understands)."""
    return torch.as_tensor(Accuracy(ignore_index)(outputs, targets))


#: built-in metrics by name: a fresh instance per run
BUILTIN: dict[str, Callable[[], Metric]] = {
    "accuracy": Accuracy,
    "acc": Accuracy,
    "f1": F1,
    "macro_f1": lambda: F1("macro"),
    "auroc": AUROC,
}


def resolve_metrics(
    metrics: Mapping[str, Metric | MetricFn] | Iterable[str | Metric] | None,
    loss: Any = None,
) -> dict[str, Metric]:
    """Metrics by name: names of built-ins, `Metric` objects, or plain batch-mean functions.

    ``loss``: the loss the outputs are measured with; thresholded metrics take from it whether
    the outputs are logits or probabilities (`Thresholded.follow_loss`)."""
    if metrics is None:
        return {}
    resolved: dict[str, Metric] = {}
    if isinstance(metrics, Mapping):
        resolved = {name: as_metric(name, value) for name, value in metrics.items()}
    else:
        for entry in metrics:
            if isinstance(entry, Metric):
                resolved[type(entry).__name__.lower()] = entry
            else:
                resolved[entry] = as_metric(entry, entry)
    for metric in resolved.values():
        if isinstance(metric, Thresholded):
            metric.follow_loss(loss)
    return resolved


def as_metric(name: str, value: Any) -> Metric:
    """One metric from a built-in name, a `Metric`, or a plain function."""
    if isinstance(value, Metric):
        return value
    if isinstance(value, str):
        if value not in BUILTIN:
            raise ConfigError(
                f"unknown metric {value!r}; built-in metrics: {', '.join(BUILTIN)} "
                "(or pass a tw.Metric / a function fn(outputs, targets))"
            )
        return BUILTIN[value]()
    if callable(value):
        return BatchMean(value)
    raise ConfigError(
        f"metric {name!r} must be a built-in name, a tw.Metric or a function "
        f"fn(outputs, targets); got {type(value).__name__}"
    )


def compute_all(metrics: Mapping[str, Metric]) -> dict[str, Any]:
    """Every metric's value as Python numbers, read from the device in one sync.

    0-d results become floats; larger tensors (a confusion matrix) become nested lists.
    """
    values = {name: metric.compute() for name, metric in metrics.items()}
    scalars = {k: v for k, v in values.items() if isinstance(v, torch.Tensor) and v.dim() == 0}
    if scalars:
        device = next(iter(scalars.values())).device
        stacked = torch.stack([wide(v.to(device)) for v in scalars.values()]).tolist()
        values.update(zip(scalars, stacked, strict=True))
    return {
        name: value.tolist() if isinstance(value, torch.Tensor) else float(value)
        for name, value in values.items()
    }


def wide(value: torch.Tensor) -> torch.Tensor:
    """``value`` in float64 for exact sums (float32 on MPS, which has no float64)."""
    return value.to(torch.float32 if value.device.type == "mps" else torch.float64)
