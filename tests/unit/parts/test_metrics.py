"""Metrics are exact whatever the batch size: stateful accumulators, checked against sklearn."""

import pytest
import torch
from sklearn.metrics import f1_score, roc_auc_score
from torch import nn

import trainwell as tw
from trainwell.parts.metric import AUROC, F1, Accuracy, ConfusionMatrix


class Fixed(nn.Module):
    """A 'model' that returns precomputed logits for the sample indices it is given."""

    def __init__(self, logits):
        super().__init__()
        self.logits = nn.Parameter(logits, requires_grad=False)

    def forward(self, index):
        return self.logits[index]


def _imbalanced(n=203, classes=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    targets = torch.multinomial(torch.tensor([0.6, 0.25, 0.1, 0.05]), n, True, generator=g)
    logits = torch.randn(n, classes, generator=g) + 1.5 * nn.functional.one_hot(targets, classes)
    return logits, targets


@pytest.mark.parametrize("batch_size", [1, 7, 256])
def test_evaluate_is_the_same_at_every_batch_size_and_equals_one_shot(batch_size):
    logits, targets = _imbalanced()
    index = torch.arange(len(targets))
    values = tw.evaluate(
        Fixed(logits),
        (index, targets),
        metrics={"accuracy": "accuracy", "f1": F1(), "auroc": AUROC()},
        batch_size=batch_size,
    )
    predicted = logits.argmax(1)
    assert values["loss"] == pytest.approx(nn.functional.cross_entropy(logits, targets).item())
    assert values["accuracy"] == pytest.approx((predicted == targets).double().mean().item())
    assert values["f1"] == pytest.approx(f1_score(targets, predicted, average="macro"))
    scores = logits.softmax(1).numpy()
    assert values["auroc"] == pytest.approx(roc_auc_score(targets, scores, multi_class="ovr"))


def test_a_padded_sequence_loss_is_a_token_mean_whatever_the_batch():
    # Sequences of very different lengths, padded with -100: the token mean must not move.
    g = torch.Generator().manual_seed(1)
    lengths = [1, 9, 2, 8, 3, 7, 4, 6, 5, 5, 12]
    targets = torch.full((len(lengths), 12), -100)
    for row, length in enumerate(lengths):
        targets[row, :length] = torch.randint(0, 6, (length,), generator=g)
    logits = torch.randn(len(lengths), 12, 6, generator=g)

    def token_ce(output, target):
        return nn.functional.cross_entropy(output.flatten(0, 1), target.flatten())

    token_ce.ignore_index = -100  # a functional loss declares what it ignores
    expected = token_ce(logits, targets).item()
    valid = targets != -100
    expected_acc = (logits.argmax(-1) == targets)[valid].double().mean().item()
    index = torch.arange(len(lengths))
    for batch_size in (1, 3, 64):
        values = tw.evaluate(
            Fixed(logits),
            (index, targets),
            loss=token_ce,
            metrics=["accuracy"],
            batch_size=batch_size,
        )
        assert values["loss"] == pytest.approx(expected)
        assert values["accuracy"] == pytest.approx(expected_acc)


def test_a_token_count_in_the_batch_weights_the_loss():
    class Tokens(torch.utils.data.Dataset):
        rows = [torch.arange(n) + 1 for n in (1, 6, 2, 7, 3)]

        def __len__(self):
            return len(self.rows)

        def __getitem__(self, i):
            return {"input_ids": self.rows[i], "labels": self.rows[i]}

    class Identity(nn.Module):
        def forward(self, input_ids, attention_mask):  # no num_tokens: it is bookkeeping
            return input_ids.float()

    def token_mean(output, labels):  # a batch's loss: the mean over its real tokens
        real = labels >= 0
        return (output * real).sum() / real.sum()

    collate = tw.pad_collate(pad_value={"labels": -1})
    loader = torch.utils.data.DataLoader(Tokens(), batch_size=2, collate_fn=collate)
    all_tokens = torch.cat(Tokens.rows).double()
    expected = all_tokens.mean().item()
    counted = tw.evaluate(Identity(), loader, loss=token_mean, weight_by="num_tokens")
    assert counted["loss"] == pytest.approx(expected)
    implicit = tw.evaluate(Identity(), loader, loss=token_mean)  # num_tokens, without a key
    assert implicit["loss"] == pytest.approx(expected)
    uncounted = torch.utils.data.DataLoader(  # no count in the batch: weighted by samples
        Tokens(),
        batch_size=2,
        collate_fn=lambda s: {k: v for k, v in collate(s).items() if k != "num_tokens"},
    )
    per_sample = tw.evaluate(Identity(), uncounted, loss=token_mean)
    assert per_sample["loss"] != pytest.approx(expected)


@pytest.mark.parametrize(
    ("outputs", "targets", "expected"),
    [
        (torch.tensor([[2.0, 0.0], [0.0, 1.0], [3.0, 1.0]]), torch.tensor([0, 1, 1]), 2 / 3),
        (torch.tensor([1.5, -0.5, 0.2, -2.0]), torch.tensor([1, 0, 0, 0]), 3 / 4),  # (N,) logits
        (torch.tensor([[1.5], [-0.5], [0.2]]), torch.tensor([1.0, 1.0, 1.0]), 2 / 3),  # (N, 1)
        (torch.tensor([[1.5], [-0.5], [0.2]]), torch.tensor([[1.0], [0.0], [0.0]]), 2 / 3),
    ],
)
def test_accuracy_reads_multiclass_and_binary_logits(outputs, targets, expected):
    assert tw.accuracy(outputs, targets).item() == pytest.approx(expected)


def test_accuracy_of_sequences_ignores_padding_targets():
    logits = torch.zeros(2, 3, 4)
    logits[0, 0, 1] = logits[0, 1, 2] = logits[1, 0, 3] = 1.0  # predictions: 1, 2, 0 / 3, 0, 0
    targets = torch.tensor([[1, 0, -100], [3, -100, -100]])
    assert tw.accuracy(logits, targets).item() == pytest.approx(2 / 3)  # 3 real tokens


def test_binary_f1_and_auroc_match_sklearn_at_any_batching():
    g = torch.Generator().manual_seed(3)
    targets = (torch.rand(101, generator=g) < 0.3).long()
    logits = torch.randn(101, generator=g) + targets * 1.2
    logits[:10] = 0.25  # ties in the scores count one half
    f1, auroc = F1(), AUROC()
    for chunk in range(0, 101, 13):
        f1.update(logits[chunk : chunk + 13], targets[chunk : chunk + 13])
        auroc.update(logits[chunk : chunk + 13, None], targets[chunk : chunk + 13])
    assert f1.compute().item() == pytest.approx(f1_score(targets, (logits > 0).long()))
    assert auroc.compute().item() == pytest.approx(roc_auc_score(targets, logits))


def test_a_metric_resets_between_evaluations():
    metric = Accuracy()
    metric.update(torch.tensor([[1.0, 0.0]]), torch.tensor([1]))
    metric.reset()
    metric.update(torch.tensor([[1.0, 0.0]]), torch.tensor([0]))
    assert metric.compute().item() == 1.0


def test_confusion_matrix_counts_pairs_and_is_reported_as_lists():
    logits, targets = _imbalanced(n=50)
    values = tw.evaluate(
        Fixed(logits), (torch.arange(50), targets), metrics={"cm": ConfusionMatrix()}, batch_size=7
    )
    cm = torch.tensor(values["cm"])
    assert cm.sum() == 50
    for t in range(4):
        assert cm[t].sum() == (targets == t).sum()


def test_a_user_metric_subclass_is_updated_per_batch_and_computed_once():
    class MaxLogit(tw.Metric):
        def reset(self):
            self.value = torch.tensor(float("-inf"))
            self.computed = 0

        def update(self, outputs, targets):
            self.value = torch.maximum(self.value, outputs.max())

        def compute(self):
            self.computed += 1
            return self.value

    logits, targets = _imbalanced(n=30)
    metric = MaxLogit()
    values = tw.evaluate(Fixed(logits), (torch.arange(30), targets), metrics=[metric], batch_size=4)
    assert values["maxlogit"] == pytest.approx(logits.max().item())
    assert metric.computed == 1


def test_an_unknown_metric_name_lists_the_builtins():
    with pytest.raises(tw.ConfigError, match="built-in metrics: accuracy.*f1.*auroc"):
        tw.evaluate(nn.Linear(2, 2), (torch.randn(4, 2), torch.zeros(4).long()), metrics=["f2"])
