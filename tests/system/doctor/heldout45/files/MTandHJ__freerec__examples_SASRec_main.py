from typing import Dict, Tuple, Union

import torch
import torch.nn as nn

import freerec

freerec.declare(version="1.0.1")

cfg = freerec.parser.Parser()
cfg.add_argument("--maxlen", type=int, default=50)
cfg.add_argument("--num-heads", type=int, default=1)
cfg.add_argument("--num-blocks", type=int, default=2)
cfg.add_argument("--embedding-dim", type=int, default=64)
cfg.add_argument("--dropout-rate", type=float, default=0.2)
cfg.add_argument("--loss", type=str, choices=("BPR", "BCE", "CE"), default="BCE")

cfg.set_defaults(
    description="SASRec",
    root="../../data",
    dataset="Amazon2014Beauty_550_LOU",
    epochs=200,
    batch_size=256,
    optimizer="adam",
    lr=1e-3,
    weight_decay=0.0,
    seed=1,
)
cfg.compile()


class PointWiseFeedForward(nn.Module):
    def __init__(self, hidden_size: int, dropout_rate: int):
        super(PointWiseFeedForward, self).__init__()

        self.conv1 = nn.Conv1d(hidden_size, hidden_size, kernel_size=1)
        self.dropout1 = nn.Dropout(p=dropout_rate)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv1d(hidden_size, hidden_size, kernel_size=1)
        self.dropout2 = nn.Dropout(p=dropout_rate)

    def forward(self, inputs: torch.Tensor) -> torch.Tensor:
        # inputs: (B, S, D)
        outputs = self.dropout2(
            self.conv2(self.relu(self.dropout1(self.conv1(inputs.transpose(-1, -2)))))
        )  # -> (B, D, S)
        outputs = outputs.transpose(-1, -2)  # -> (B, S, D)
        outputs += inputs
        return outputs


class SASRec(freerec.models.SeqRecArch):
    def __init__(
        self,
        dataset: freerec.data.datasets.RecDataSet,
        maxlen: int = 50,
        embedding_dim: int = 64,
        dropout_rate: float = 0.2,
        num_blocks: int = 1,
        num_heads: int = 2,
    ) -> None:
        super().__init__(dataset)

        self.embedding_dim = embedding_dim
        self.num_blocks = num_blocks

        self.Item.add_module(
            "embeddings",
            nn.Embedding(
                num_embeddings=self.Item.count + self.NUM_PADS,
                embedding_dim=embedding_dim,
                padding_idx=self.PADDING_VALUE,
            ),
        )

        self.Position = nn.Embedding(maxlen, embedding_dim)
        self.embdDropout = nn.Dropout(p=dropout_rate)
        self.register_buffer(
            "positions", torch.tensor(range(0, maxlen), dtype=torch.long).unsqueeze(0)
        )

        self.attnLNs = nn.ModuleList()  # to be Q for self-attention
        self.attnLayers = nn.ModuleList()
        self.fwdLNs = nn.ModuleList()
        self.fwdLayers = nn.ModuleList()

        self.lastLN = nn.LayerNorm(embedding_dim, eps=1e-8)

        for _ in range(num_blocks):
            self.attnLNs.append(nn.LayerNorm(embedding_dim, eps=1e-8))

            self.attnLayers.append(
                nn.MultiheadAttention(
                    embed_dim=embedding_dim,
                    num_heads=num_heads,
                    dropout=dropout_rate,
                    batch_first=True,  # !!!
                )
            )

            self.fwdLNs.append(nn.LayerNorm(embedding_dim, eps=1e-8))

            self.fwdLayers.append(PointWiseFeedForward(embedding_dim, dropout_rate))

        # False True  True ...
        # False False True ...
        # False False False ...
        # ....
        # True indices that the corresponding position is not allowed to attend !
        self.register_buffer(
            "attnMask", torch.ones((maxlen, maxlen), dtype=torch.bool).triu(diagonal=1)
        )

        if cfg.loss == "BCE":
            self.criterion = freerec.criterions.BCELoss4Logits(reduction="mean")
        elif cfg.loss == "BPR":
            self.criterion = freerec.criterions.BPRLoss(reduction="mean")
        elif cfg.loss == "CE":
            self.criterion = freerec.criterions.CrossEntropy4Logits(reduction="mean")

        self.reset_parameters()

    def reset_parameters(self):
        """Initializes the module parameters."""
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.xavier_normal_(m.weight)
                if m.bias is not None:
                    nn.init.constant_(m.bias, 0.0)
            elif isinstance(m, nn.Embedding):
                nn.init.xavier_normal_(m.weight)
            elif isinstance(m, (nn.BatchNorm1d, nn.BatchNorm2d)):
                nn.init.constant_(m.weight, 1.0)
                nn.init.constant_(m.bias, 0.0)

    def sure_trainpipe(self, maxlen: int, batch_size: int):
        return (
            self.dataset.train()
            .shuffled_seqs_source(maxlen=maxlen)
            .seq_train_yielding_pos_(start_idx_for_target=1, end_idx_for_input=-1)
            .seq_train_sampling_neg_(num_negatives=1)
            .add_(offset=self.NUM_PADS, modified_fields=(self.ISeq,))
            .lpad_(
                maxlen,
                modified_fields=(self.ISeq, self.IPos, self.INeg),
                padding_value=self.PADDING_VALUE,
            )
            .batch_(batch_size)
            .tensor_()
        )

    def mark_position(self, seqs: torch.Tensor):
        positions = self.Position(self.positions)  # (1, maxlen, D)
        return seqs + positions

    def after_one_block(self, seqs: torch.Tensor, padding_mask: torch.Tensor, l: int):
        # inputs: (B, S, D)
        Q = self.attnLNs[l](seqs)
        seqs = (
            self.attnLayers[l](Q, seqs, seqs, attn_mask=self.attnMask, need_weights=False)[0] + seqs
        )

        seqs = self.fwdLNs[l](seqs)
        seqs = self.fwdLayers[l](seqs)

        return seqs.masked_fill(padding_mask, 0.0)

    def encode(
        self, data: Dict[freerec.data.fields.Field, torch.Tensor]
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        seqs = data[self.ISeq]
        padding_mask = (seqs == self.PADDING_VALUE).unsqueeze(-1)
        seqs = self.Item.embeddings(seqs)  # (B, S) -> (B, S, D)
        seqs *= self.embedding_dim**0.5
        seqs = self.embdDropout(self.mark_position(seqs))
        seqs = seqs.masked_fill(padding_mask, 0.0)

        for l in range(self.num_blocks):
            seqs = self.after_one_block(seqs, padding_mask, l)

        userEmbds = self.lastLN(seqs)  # (B, S, D)

        return userEmbds, self.Item.embeddings.weight[self.NUM_PADS :]

    def fit(
        self, data: Dict[freerec.data.fields.Field, torch.Tensor]
    ) -> Union[torch.Tensor, Tuple[torch.Tensor]]:
        userEmbds, itemEmbds = self.encode(data)
        indices = data[self.ISeq] != self.PADDING_VALUE
        userEmbds = userEmbds[indices]  # (M, D)

        if cfg.loss in ("BCE", "BPR"):
            posEmbds = itemEmbds[data[self.IPos][indices]]  # (M, D)
            negEmbds = itemEmbds[data[self.INeg][indices]]  # (M, D)
            posLogits = torch.einsum("MD,MD->M", userEmbds, posEmbds)  # (M,)
            negLogits = torch.einsum("MD,MD->M", userEmbds, negEmbds)  # (M,)

            if cfg.loss == "BCE":
                posLabels = torch.ones_like(posLogits)
                negLabels = torch.zeros_like(negLogits)
                rec_loss = self.criterion(posLogits, posLabels) + self.criterion(
                    negLogits, negLabels
                )
            elif cfg.loss == "BPR":
                rec_loss = self.criterion(posLogits, negLogits)
        elif cfg.loss == "CE":
            logits = torch.einsum("MD,ND->MN", userEmbds, itemEmbds)  # (M, N)
            labels = data[self.IPos][indices]  # (M,)
            rec_loss = self.criterion(logits, labels)

        return rec_loss

    def recommend_from_full(
        self, data: Dict[freerec.data.fields.Field, torch.Tensor]
    ) -> torch.Tensor:
        userEmbds, itemEmbds = self.encode(data)
        userEmbds = userEmbds[:, -1, :]  # (B, D)
        return torch.einsum("BD,ND->BN", userEmbds, itemEmbds)

    def recommend_from_pool(
        self, data: Dict[freerec.data.fields.Field, torch.Tensor]
    ) -> torch.Tensor:
        userEmbds, itemEmbds = self.encode(data)
        userEmbds = userEmbds[:, -1, :]  # (B, D)
        itemEmbds = itemEmbds[data[self.IUnseen]]  # (B, K, D)
        return torch.einsum("BD,BKD->BK", userEmbds, itemEmbds)


class CoachForSASRec(freerec.launcher.Coach):
    def train_per_epoch(self, epoch: int):
        for data in self.dataloader:
            data = self.dict_to_device(data)
            loss = self.model(data)

            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()

            self.monitor(
                loss.item(),
                n=len(data[self.User]),
                reduction="mean",
                mode="train",
                pool=["LOSS"],
            )


def main():

    dataset: freerec.data.datasets.RecDataSet
    try:
        dataset = getattr(freerec.data.datasets, cfg.dataset)(root=cfg.root)
    except AttributeError:
        dataset = freerec.data.datasets.RecDataSet(cfg.root, cfg.dataset, tasktag=cfg.tasktag)

    model = SASRec(
        dataset,
        maxlen=cfg.maxlen,
        embedding_dim=cfg.embedding_dim,
        dropout_rate=cfg.dropout_rate,
        num_blocks=cfg.num_blocks,
        num_heads=cfg.num_heads,
    )

    # datapipe
    trainpipe = model.sure_trainpipe(cfg.maxlen, cfg.batch_size)
    validpipe = model.sure_validpipe(cfg.maxlen, ranking=cfg.ranking)
    testpipe = model.sure_testpipe(cfg.maxlen, ranking=cfg.ranking)

    coach = CoachForSASRec(
        dataset=dataset,
        trainpipe=trainpipe,
        validpipe=validpipe,
        testpipe=testpipe,
        model=model,
        cfg=cfg,
    )
    coach.fit()


if __name__ == "__main__":
    main()
