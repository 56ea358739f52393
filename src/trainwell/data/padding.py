"""Variable-length batches: pad to the longest sequence, with a mask and a count of real tokens.

``num_tokens`` is what token-weighted losses need, and a batch that carries it is weighted by it
(``train.weight_by`` or not): micro-batches of a window are weighted by their share of the window's real tokens, so
token-mean losses add up to the token mean of the whole window, however the padding falls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import default_collate

from trainwell.errors import DataError

MASK_KEY = "attention_mask"
COUNT_KEY = "num_tokens"


class PadCollate:
    """A collate function for sequences of different lengths (see `pad_collate`)."""

    def __init__(
        self,
        pad_value: float | Mapping[str, float] = 0,
        keys: Sequence[str] | None = None,
        *,
        pad_to_multiple_of: int | None = None,
    ) -> None:
        self.pad_value = pad_value
        self.keys = tuple(keys) if keys is not None else None
        self.pad_to_multiple_of = pad_to_multiple_of

    def __call__(self, samples: Sequence[Any]) -> dict[str, torch.Tensor]:
        samples = [_as_dict(s) for s in samples]
        if not samples:
            raise DataError("pad_collate got an empty batch")
        keys = [
            k
            for k in (self.keys or [k for k, v in samples[0].items() if _is_sequence(v)])
            if k != MASK_KEY
        ]
        if not keys:
            raise DataError(
                "pad_collate found no sequence (tensor with >= 1 dimension) to pad; name them "
                "with keys=[...]"
            )
        batch: dict[str, Any] = {}
        for key in keys:
            batch[key] = self._pad(key, [_field(s, key) for s in samples])
        if MASK_KEY in samples[0]:  # the samples bring their own mask: pad it with zeros
            batch[MASK_KEY] = self._pad(MASK_KEY, [s[MASK_KEY] for s in samples], value=0)
        else:
            lengths = torch.tensor([len(_field(s, keys[0])) for s in samples])
            width = batch[keys[0]].shape[1]
            batch[MASK_KEY] = (torch.arange(width) < lengths[:, None]).long()
        for key in samples[0]:
            if key not in batch:
                batch[key] = default_collate([s[key] for s in samples])
        batch[COUNT_KEY] = batch[MASK_KEY].sum()  # 0-d: real (non-padding) tokens in the batch
        return batch

    def _pad(
        self, key: str, values: list[torch.Tensor], value: float | None = None
    ) -> torch.Tensor:
        if value is None:
            value = (
                self.pad_value.get(key, 0)
                if isinstance(self.pad_value, Mapping)
                else self.pad_value
            )
        padded = pad_sequence(
            [torch.as_tensor(v) for v in values], batch_first=True, padding_value=value
        )
        multiple = self.pad_to_multiple_of
        if multiple and padded.shape[1] % multiple:
            extra = multiple - padded.shape[1] % multiple
            filler = padded.new_full((padded.shape[0], extra, *padded.shape[2:]), value)
            padded = torch.cat([padded, filler], dim=1)
        return padded


def pad_collate(
    pad_value: float | Mapping[str, float] = 0,
    keys: Sequence[str] | None = None,
    *,
    pad_to_multiple_of: int | None = None,
) -> PadCollate:
    """A collate for samples with sequences of different lengths; returns dict batches.

    Samples are dicts (``{"input_ids": LongTensor[L], "labels": LongTensor[L], ...}``) or bare
    1-d tensors (returned under ``input_ids``). The ``keys`` (default: every tensor with at least
    one dimension) are right-padded to the longest in the batch (to a multiple of
    ``pad_to_multiple_of`` if given) with ``pad_value``, which may be a mapping per key (e.g.
    ``{"labels": -100}``; missing keys get 0). Other keys are collated as usual. Adds:

    - ``attention_mask``: (B, L) long, 1 on real tokens (taken from the first key's lengths,
      or padded from the samples' own ``attention_mask``);
    - ``num_tokens``: a 0-d tensor, the count of real tokens, for ``train.weight_by=num_tokens``.

    The returned object is picklable, so it works in DataLoader workers.
    """
    return PadCollate(pad_value, keys, pad_to_multiple_of=pad_to_multiple_of)


def _as_dict(sample: Any) -> dict[str, Any]:
    if isinstance(sample, Mapping):
        return dict(sample)
    if isinstance(sample, torch.Tensor):
        return {"input_ids": sample}
    raise DataError(
        f"pad_collate takes dict samples (or bare 1-d tensors); got a {type(sample).__name__}. "
        "Return e.g. {'input_ids': ids, 'labels': labels} from __getitem__"
    )


def _field(sample: dict[str, Any], key: str) -> Any:
    if key not in sample:
        raise DataError(f"pad_collate: a sample has no key {key!r} (it has {list(sample)})")
    return sample[key]


def _is_sequence(value: Any) -> bool:
    return isinstance(value, torch.Tensor) and value.dim() >= 1
