"""pad_collate: padded dict batches with a mask and a token count; token-weighted accumulation."""

import copy

import pytest
import torch
from torch import nn
from torch.utils.data import Dataset

import trainwell as tw
from trainwell.data import make_loader, pad_collate


def test_pads_to_the_longest_with_mask_and_token_count():
    samples = [
        {"input_ids": torch.tensor([5, 6, 7]), "labels": torch.tensor([1, 2, 3]), "id": 0},
        {"input_ids": torch.tensor([8]), "labels": torch.tensor([4]), "id": 1},
    ]
    batch = pad_collate(pad_value={"labels": -100})(samples)
    assert batch["input_ids"].tolist() == [[5, 6, 7], [8, 0, 0]]
    assert batch["labels"].tolist() == [[1, 2, 3], [4, -100, -100]]
    assert batch["attention_mask"].tolist() == [[1, 1, 1], [1, 0, 0]]
    assert batch["num_tokens"].dim() == 0 and batch["num_tokens"].item() == 4
    assert batch["id"].tolist() == [0, 1]  # other keys collate as usual


def test_bare_tensors_multiple_of_and_own_masks():
    batch = pad_collate(pad_value=9, pad_to_multiple_of=4)([torch.ones(5), torch.ones(2)])
    assert batch["input_ids"].shape == (2, 8)
    assert batch["input_ids"][1].tolist() == [1, 1, 9, 9, 9, 9, 9, 9]
    assert batch["attention_mask"].sum(1).tolist() == [5, 2]
    own = pad_collate()(
        [
            {"x": torch.ones(3, 2), "attention_mask": torch.tensor([1, 1, 0])},
            {"x": torch.ones(1, 2), "attention_mask": torch.tensor([1])},
        ]
    )
    assert own["x"].shape == (2, 3, 2)
    assert own["attention_mask"].tolist() == [[1, 1, 0], [1, 0, 0]]
    assert own["num_tokens"].item() == 3


def test_unusable_samples_are_data_errors():
    with pytest.raises(tw.DataError, match="dict samples"):
        pad_collate()([(torch.ones(2), 1)])
    with pytest.raises(tw.DataError, match="no key 'labels'"):
        pad_collate(keys=["labels"])([{"input_ids": torch.ones(2)}])


class Sequences(Dataset):
    """Token sequences of lengths 1..8; each token's label is a fixed function of it."""

    def __init__(self, n=16):
        g = torch.Generator().manual_seed(0)
        self.items = []
        for i in range(n):
            ids = torch.randint(0, 10, (1 + (i * 5) % 8,), generator=g)
            self.items.append({"input_ids": ids, "labels": (ids * 3 + 1) % 10})

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def token_mean_loss(model, batch):
    logits = model(batch["input_ids"])
    # ignore_index drops the padding: the mean is over this batch's real tokens
    return nn.functional.cross_entropy(logits.transpose(1, 2), batch["labels"], ignore_index=-100)


def train(model, batch_size, accumulate, weight_by, drop_count=False):
    cfg = tw.build_config(
        {
            "run": {"quiet": True, "seed": 0},
            "data": {"batch_size": batch_size},
            "train": {
                "max_epochs": 2,
                "accumulate_steps": accumulate,
                "weight_by": weight_by,
                "clip_norm": None,
            },
            "optim": {"name": "sgd", "lr": 0.5, "momentum": 0.0, "weight_decay": 0.0},
            "schedule": {"name": "constant"},
        }
    )
    collate = pad_collate({"labels": -100})
    if drop_count:  # batches without num_tokens: nothing to weight by

        def collate(samples, pad=collate):
            return {k: v for k, v in pad(samples).items() if k != "num_tokens"}

    loader = make_loader(Sequences(), batch_size=batch_size, seed=0, collate_fn=collate)
    return tw.fit(model, loader, config=cfg, step_fn=token_mean_loss)


@pytest.mark.cpu_only  # fp32 numerics: precision=auto picks bf16 on CUDA
def test_token_weighted_accumulation_equals_the_big_batch_token_mean():
    torch.manual_seed(0)
    big = nn.Sequential(nn.Embedding(10, 8), nn.Linear(8, 10))
    weighted, implicit, unweighted = copy.deepcopy(big), copy.deepcopy(big), copy.deepcopy(big)
    assert train(big, 8, 1, None).steps == 4
    assert train(weighted, 2, 4, "num_tokens").steps == 4
    train(implicit, 2, 4, None)  # num_tokens in the batch weighs without train.weight_by
    train(unweighted, 2, 4, None, drop_count=True)
    for model in (weighted, implicit):
        for a, b in zip(big.parameters(), model.parameters()):
            torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)
    # a plain 1/k mean of per-batch token means is a different gradient: the test can fail
    assert any(
        not torch.allclose(a, b, rtol=1e-4, atol=1e-5)
        for a, b in zip(big.parameters(), unweighted.parameters())
    )
