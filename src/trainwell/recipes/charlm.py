"""A small GPT-style character language model, trained on Python's own standard library source.

The text is the standard library's top-level ``*.py`` files, which every Python install has:
read in sorted order as UTF-8 (``errors="replace"``) and cut at ``model.max_chars``, so the
data is the same on every run of one Python version and nothing is downloaded. Characters
become ids through a vocabulary built from that text (its sorted set of characters); the
first ``1 - val_fraction`` of the text is for training, the rest for validation, each cut
into non-overlapping windows of ``block_size`` characters whose targets are the inputs
shifted by one.

The model is a pre-norm decoder-only transformer: token + learned position embeddings, a
stack of blocks (``model.blocks``, an ``nn.ModuleList``, so other code can checkpoint or shard
per block), a final LayerNorm and a head tied to the token embedding. `sample` generates text
from a trained model with the vocabulary the recipe hands back in ``Job.extra["vocab"]``.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from trainwell.config.sections import (
    Config,
    DataConfig,
    MonitorConfig,
    OptimConfig,
    ScheduleConfig,
    TrainConfig,
)
from trainwell.errors import ConfigError
from trainwell.recipes.job import Job

DESCRIPTION = "GPT-style character LM on Python's own standard library source (~300k chars)"


@dataclass(frozen=True)
class ModelConfig:
    block_size: int = 64  # context length in characters (and the length of each window)
    n_layer: int = 2  # transformer blocks
    n_head: int = 4  # attention heads per block (n_embd must be divisible by it)
    n_embd: int = 128  # width of the residual stream
    dropout: float = 0.0  # dropout on attention and residual branches (0: off; the run is short)
    max_chars: int = 300_000  # characters of standard library source to train and validate on
    val_fraction: float = 0.1  # the last share of the text, held out for validation


CONFIG = Config(
    data=DataConfig(batch_size=32),
    train=TrainConfig(max_epochs=2, clip_norm=1.0),
    # beta2=0.99: the usual choice for small, short LM runs (Adam's second moment adapts faster)
    optim=OptimConfig(lr=3e-3, weight_decay=0.1, betas=(0.9, 0.99)),
    schedule=ScheduleConfig(name="warmup_cosine", warmup_ratio=0.05, min_lr_ratio=0.1),
    monitor=MonitorConfig(metric="val_loss", mode="min"),
    model=ModelConfig(),
)


# --------------------------------------------------------------------------- data


def stdlib_dir() -> Path:
    """The directory of the standard library's pure-Python modules (where ``os.py`` lives)."""
    return Path(os.__file__).resolve().parent


def load_stdlib_text(max_chars: int, directory: Path | None = None) -> str:
    """The first ``max_chars`` characters of the top-level ``*.py`` files of ``directory``
    (default: the standard library), in sorted file-name order, one newline between files."""
    directory = directory or stdlib_dir()
    files = sorted((p for p in directory.glob("*.py") if p.is_file()), key=lambda p: p.name)
    parts: list[str] = []
    total = 0
    for path in files:  # read lazily: the default needs only the first few dozen files
        if total >= max_chars:
            break
        text = path.read_text(encoding="utf-8", errors="replace") + "\n"
        parts.append(text)
        total += len(text)
    return "".join(parts)[:max_chars]


def build_vocab(text: str) -> str:
    """The vocabulary: the sorted set of characters of ``text``; a character's id is its index."""
    return "".join(sorted(set(text)))


def encode(text: str, vocab: str) -> torch.Tensor:
    """The ids (int64) of ``text``'s characters; every character must be in ``vocab``."""
    index = {ch: i for i, ch in enumerate(vocab)}
    missing = sorted(set(text) - index.keys())
    if missing:
        raise ValueError(f"characters not in the vocabulary: {''.join(missing)!r}")
    return torch.tensor([index[ch] for ch in text], dtype=torch.long)


def decode(ids: torch.Tensor | list[int], vocab: str) -> str:
    """The text of a sequence of ids."""
    return "".join(vocab[i] for i in torch.as_tensor(ids).tolist())


def split_ids(ids: torch.Tensor, val_fraction: float) -> tuple[torch.Tensor, torch.Tensor]:
    """(train, val): the text before and after the cut, so no window of one overlaps the other
    (and validation is later text, not characters shuffled in between training windows)."""
    cut = int(len(ids) * (1.0 - val_fraction))
    return ids[:cut], ids[cut:]


def make_windows(ids: torch.Tensor, block_size: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(X, Y), both (N, block_size): non-overlapping windows of ``ids`` and, for each position,
    the next character (Y is X shifted left by one). A short tail that fills no window is
    dropped."""
    n = (len(ids) - 1) // block_size  # each window needs block_size + 1 characters
    x = ids[: n * block_size].view(n, block_size)
    y = ids[1 : n * block_size + 1].view(n, block_size)
    return x, y


def make_data(
    text: str, block_size: int, val_fraction: float
) -> tuple[tuple[torch.Tensor, torch.Tensor], tuple[torch.Tensor, torch.Tensor], str]:
    """Training windows, validation windows and the vocabulary of ``text``."""
    vocab = build_vocab(text)
    train_ids, val_ids = split_ids(encode(text, vocab), val_fraction)
    for name, part in (("training", train_ids), ("validation", val_ids)):
        if len(part) <= block_size:
            raise ConfigError(
                f"the {name} text has {len(part)} characters, fewer than one window of "
                f"model.block_size={block_size} + 1; raise model.max_chars or change "
                "model.val_fraction"
            )
    return make_windows(train_ids, block_size), make_windows(val_ids, block_size), vocab


# --------------------------------------------------------------------------- model


class CausalSelfAttention(nn.Module):
    """Multi-head self-attention in which each position sees only itself and earlier ones."""

    def __init__(self, n_embd: int, n_head: int, dropout: float) -> None:
        super().__init__()
        self.n_head = n_head
        self.dropout = dropout
        self.qkv = nn.Linear(n_embd, 3 * n_embd)  # one matmul for queries, keys and values
        self.proj = nn.Linear(n_embd, n_embd)
        self.resid_dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        # (B, T, 3C) -> three (B, heads, T, C / heads)
        q, k, v = self.qkv(x).view(b, t, 3, self.n_head, c // self.n_head).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(
            q, k, v, is_causal=True, dropout_p=self.dropout if self.training else 0.0
        )
        y = y.transpose(1, 2).reshape(b, t, c)  # heads back side by side
        return self.resid_dropout(self.proj(y))


class MLP(nn.Module):
    """The position-wise feed-forward layer: 4x wider, GELU, back to the residual width."""

    def __init__(self, n_embd: int, dropout: float) -> None:
        super().__init__()
        self.fc = nn.Linear(n_embd, 4 * n_embd)
        self.proj = nn.Linear(4 * n_embd, n_embd)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.dropout(self.proj(F.gelu(self.fc(x))))


class Block(nn.Module):
    """One pre-norm transformer block: x + attn(ln(x)), then x + mlp(ln(x))."""

    def __init__(self, n_embd: int, n_head: int, dropout: float) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head, dropout)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = MLP(n_embd, dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class CharGPT(nn.Module):
    """``forward(ids)``: (B, T) character ids -> (B, T, vocab_size) next-character logits."""

    def __init__(
        self,
        vocab_size: int,
        block_size: int = 64,
        n_layer: int = 2,
        n_head: int = 4,
        n_embd: int = 128,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        if n_embd % n_head:
            raise ConfigError(f"model.n_embd={n_embd} must be divisible by model.n_head={n_head}")
        self.block_size = block_size
        self.tok_emb = nn.Embedding(vocab_size, n_embd)
        self.pos_emb = nn.Embedding(block_size, n_embd)
        self.dropout = nn.Dropout(dropout)
        self.blocks = nn.ModuleList(Block(n_embd, n_head, dropout) for _ in range(n_layer))
        self.ln_f = nn.LayerNorm(n_embd)
        self.head = nn.Linear(n_embd, vocab_size, bias=False)
        self.head.weight = self.tok_emb.weight  # weight tying: one matrix reads and writes chars
        self._init_weights(n_layer)

    def _init_weights(self, n_layer: int) -> None:
        # GPT-2's init: small weights so the first logits are near uniform (loss ~ ln(vocab));
        # PyTorch's N(0, 1) embeddings, read back through the tied head, would start far above.
        for module in self.modules():
            if isinstance(module, nn.Linear | nn.Embedding):
                nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if isinstance(module, nn.Linear) and module.bias is not None:
                nn.init.zeros_(module.bias)
        # Projections that add into the residual stream are scaled down by depth, so the
        # stream's variance does not grow with the number of blocks.
        for block in self.blocks:
            for proj in (block.attn.proj, block.mlp.proj):
                nn.init.normal_(proj.weight, mean=0.0, std=0.02 / math.sqrt(2 * n_layer))

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        t = ids.shape[1]
        if t > self.block_size:
            raise ValueError(
                f"sequence of {t} characters is longer than block_size={self.block_size}"
            )
        positions = torch.arange(t, device=ids.device)
        x = self.dropout(self.tok_emb(ids) + self.pos_emb(positions))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))


def sequence_cross_entropy(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Mean cross-entropy over every position of (B, T, V) logits and (B, T) targets.

    A plain function, not an ``nn.CrossEntropyLoss``: the loop checks a CrossEntropyLoss's
    labels against ``logits.shape[1]`` (classes second), which here is T, not V. Every window
    has the same length, so the loop's per-sample weighting of batch means is exact.
    """
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))


# --------------------------------------------------------------------------- generation


def sample(
    model: CharGPT,
    vocab: str,
    prompt: str,
    n_chars: int,
    temperature: float = 1.0,
    generator: torch.Generator | None = None,
) -> str:
    """``n_chars`` characters generated after ``prompt`` (the prompt itself is not returned).

    Each step feeds the last ``model.block_size`` characters and draws the next one from the
    softmax of the logits divided by ``temperature`` (0: always the most likely character).
    ``generator`` makes the draw reproducible. An empty prompt starts from a newline (or the
    vocabulary's first character, if it has no newline). The model's train/eval mode is
    restored afterwards.
    """
    if temperature < 0:
        raise ValueError(f"temperature={temperature} must be >= 0")
    device = next(model.parameters()).device
    ids = encode(prompt or ("\n" if "\n" in vocab else vocab[0]), vocab).to(device)
    was_training = model.training
    model.eval()
    out: list[int] = []
    try:
        with torch.inference_mode():
            for _ in range(n_chars):
                logits = model(ids[-model.block_size :].unsqueeze(0))[0, -1].float()
                next_id = _draw(logits, temperature, generator)
                out.append(next_id)
                ids = torch.cat([ids, torch.tensor([next_id], device=device)])
    finally:
        model.train(was_training)
    return decode(out, vocab)


def _draw(logits: torch.Tensor, temperature: float, generator: torch.Generator | None) -> int:
    """One id from ``logits``: greedy at temperature 0, else sampled."""
    if temperature == 0:
        return int(logits.argmax())
    probs = torch.softmax(logits / temperature, dim=-1)
    if generator is not None:
        probs = probs.to(generator.device)  # multinomial needs both on one device
    return int(torch.multinomial(probs, 1, generator=generator))


# --------------------------------------------------------------------------- recipe


def build(config: Config) -> Job:
    m: ModelConfig = config.model
    if not 0.0 < m.val_fraction < 1.0:
        raise ConfigError(f"model.val_fraction={m.val_fraction} must be in (0, 1)")
    if m.block_size < 1 or m.max_chars < 1:
        raise ConfigError("model.block_size and model.max_chars must be > 0")
    train, val, vocab = make_data(load_stdlib_text(m.max_chars), m.block_size, m.val_fraction)
    model = CharGPT(len(vocab), m.block_size, m.n_layer, m.n_head, m.n_embd, m.dropout)
    return Job(
        model=model,
        train_data=train,
        val_data=val,
        loss=sequence_cross_entropy,
        metrics=["accuracy"],  # next-character accuracy over every position (val_accuracy)
        extra={"vocab": vocab},
    )
