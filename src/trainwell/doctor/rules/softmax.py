"""What reaches a classification loss: TW007 (softmax into cross-entropy), TW008
(log_softmax into cross-entropy) and TW009 (softmax into NLLLoss).
"""

from __future__ import annotations

import ast

from .. import values as V
from ..analysis import ScopeWalker
from ..values import Value
from ._common import report
from ._registry import Example, Rule, loss_call_check

TW007 = Rule(
    "TW007",
    "softmax-into-cross-entropy",
    "error",
    "Softmax probabilities are passed to CrossEntropyLoss / F.cross_entropy, which "
    "expects raw logits.",
    "cross_entropy applies log_softmax itself. Feeding it probabilities applies softmax "
    "twice: the loss is squashed into a narrow range, gradients become tiny and training "
    "converges slowly to a worse model, with no error. This includes a model whose "
    "forward() ends in softmax or an nn.Sequential ending in nn.Softmax.",
    "probs = F.softmax(model(x), dim=1)\nloss = F.cross_entropy(probs, y)\n",
    "logits = model(x)\nloss = F.cross_entropy(logits, y)\n",
    examples=(
        Example(
            "softmax_into_ce",
            "def f(logits, y):\n    return F.cross_entropy(F.softmax(logits, dim=1), y)\n",
            [(2, "TW007")],
        ),
        Example(
            "softmax_sequential_into_ce",
            """\
            model = nn.Sequential(nn.Linear(4, 3), nn.Softmax(dim=1))
            criterion = nn.CrossEntropyLoss()
            loss = criterion(model(torch.randn(2, 4)), torch.tensor([0, 1]))
            loss.backward()
            """,
            [(3, "TW007")],
        ),
        Example(
            # a classifier head of 1x1 convolutions ending in Softmax2d (over the channels)
            "softmax2d_head_into_ce",
            """\
            class MobileNet(nn.Module):
                def __init__(self, num_classes):
                    super().__init__()
                    self.num_classes = num_classes
                    self.classifier = nn.Sequential(
                        nn.AvgPool2d(7), nn.Conv2d(1280, num_classes, 1), nn.Softmax2d()
                    )

                def forward(self, x):
                    return self.classifier(x).view(-1, self.num_classes)


            model = MobileNet(120)
            criterion = nn.CrossEntropyLoss()
            loss = criterion(model(images), labels)
            """,
            [(15, "TW007")],
        ),
        Example(
            "logits_into_ce",
            "def f(logits, y):\n    return F.cross_entropy(logits, y)\n",
            [],
        ),
        Example(
            # the model and the loss reach the step through two functions
            "softmax_model_handed_down_two_functions",
            """\
            class CNN(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(4, 3)
                    self.softmax = nn.Softmax(dim=1)

                def forward(self, x):
                    return self.softmax(self.fc(x))

            def train_one_epoch(model, loader, loss_fn, opt):
                for x, y in loader:
                    loss = loss_fn(model(x), y)
                    opt.zero_grad()
                    loss.backward()
                    opt.step()

            def train(model, loader, loss_fn, opt, epochs):
                for _ in range(epochs):
                    train_one_epoch(model, loader, loss_fn, opt)

            cnn = CNN()
            train(cnn, loader, nn.CrossEntropyLoss(), torch.optim.Adam(cnn.parameters()), 10)
            """,
            [(12, "TW007")],
        ),
    ),
)

TW008 = Rule(
    "TW008",
    "log-softmax-into-cross-entropy",
    "warning",
    "log_softmax output is passed to CrossEntropyLoss, which applies log_softmax again.",
    "log_softmax is idempotent, so the loss value is right, but the work is done twice "
    "and the intent is unclear: either pass logits to CrossEntropyLoss, or keep "
    "log_softmax and use NLLLoss.",
    "loss = F.cross_entropy(F.log_softmax(logits, dim=1), y)\n",
    "loss = F.nll_loss(F.log_softmax(logits, dim=1), y)\n# or simply: F.cross_entropy(logits, y)\n",
    examples=(
        Example(
            "log_softmax_into_ce",
            "def f(logits, y):\n    return nn.CrossEntropyLoss()(logits.log_softmax(1), y)\n",
            [(2, "TW008")],
        ),
        Example(
            "log_softmax_into_nll",
            "def f(logits, y):\n    return F.nll_loss(F.log_softmax(logits, dim=1), y)\n",
            [],
        ),
        Example(
            # the model's output trimmed in one arm: still the LogSoftmax module's output
            "log_softmax_module_output_trimmed_in_one_arm_into_ce",
            """\
            class Tokenizer(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.fc = nn.Linear(768, 100)
                    self.softmax = nn.LogSoftmax(dim=1)
                    self.lossfunc = nn.CrossEntropyLoss()

                def forward(self, x):
                    return self.softmax(self.fc(x))

                def train_step(self, x, y):
                    y_pred = self(x)
                    if len(y) < y_pred.shape[0]:
                        y_pred = y_pred[: len(y)]
                    loss = self.lossfunc(y_pred, y)
                    loss.backward()
            """,
            [(15, "TW008")],
        ),
        Example(
            # a recurrent model returns its log-probabilities first, with its hidden state
            "log_softmax_first_of_a_returned_tuple_into_ce",
            """\
            class LSTMText(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.lstm = nn.LSTM(8, 16)
                    self.logistic = nn.Linear(16, 2)

                def forward(self, x, hidden):
                    output, hidden = self.lstm(x, hidden)
                    return F.log_softmax(self.logistic(output[-1]), dim=-1), hidden

            def train(model, loader, optimizer):
                criterion = nn.CrossEntropyLoss()
                for x, label in loader:
                    target, hidden = model(x, None)
                    loss = criterion(target, label)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()

            model = LSTMText()
            train(model, loader, torch.optim.Adam(model.parameters()))
            """,
            [(15, "TW008")],
        ),
    ),
)

TW009 = Rule(
    "TW009",
    "softmax-into-nll-loss",
    "error",
    "Softmax probabilities are passed to NLLLoss / F.nll_loss, which expects log-probabilities.",
    "nll_loss returns -input[target]. With probabilities instead of log-probabilities "
    "that is -p: the loss is bounded in [-1, 0], its gradient vanishes for confident "
    "predictions, and the model trains badly without any error.",
    "loss = F.nll_loss(F.softmax(logits, dim=1), y)\n",
    "loss = F.nll_loss(F.log_softmax(logits, dim=1), y)\n",
    examples=(
        Example(
            "softmax_into_nll",
            "def f(logits, y):\n    return F.nll_loss(torch.softmax(logits, dim=1), y)\n",
            [(2, "TW009")],
        ),
        Example(
            "log_of_softmax_into_nll",
            "def f(logits, y):\n    return F.nll_loss(torch.log(F.softmax(logits, 1)), y)\n",
            [],
        ),
        Example(
            # -nll_loss(p, y) is p[y]: the probability of the target, gathered on purpose
            "negated_nll_gathers_the_target_probability",
            "def f(logits, y):\n"
            "    conf = torch.softmax(logits, dim=1)\n"
            "    return conf - (-F.nll_loss(conf, y, reduction='none')).view(-1, 1)\n",
            [],
        ),
    ),
)


@loss_call_check(TW007, TW008, TW009)
def check_softmax_into_loss(
    w: ScopeWalker, call: ast.Call, loss: str | None, logits: Value | None
) -> None:
    """TW007 / TW008 / TW009 at a criterion call."""
    if logits is None:
        return
    cross_entropy = loss in {"CrossEntropyLoss", "cross_entropy"}
    nll = loss in {"NLLLoss", "nll_loss"}
    if V.SOFTMAX in logits.flags:
        if cross_entropy:
            report(
                w,
                "TW007",
                call,
                "softmax output is passed to cross-entropy, which "
                "applies log_softmax itself: pass the raw logits",
            )
        elif nll and not _negated(w, call):
            report(
                w,
                "TW009",
                call,
                "softmax output is passed to NLLLoss, which expects "
                "log-probabilities: use log_softmax",
            )
    elif V.LOG_SOFTMAX in logits.flags and cross_entropy:
        report(
            w,
            "TW008",
            call,
            "log_softmax output is passed to cross-entropy, which "
            "applies log_softmax again: pass logits, or use NLLLoss",
        )


def _negated(w: ScopeWalker, call: ast.Call) -> bool:
    """``-F.nll_loss(p, y)``: the target's probability gathered (``p[y]``), not a loss."""
    scope = w.func if w.func is not None else w.fa.tree
    return any(
        isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and node.operand is call
        for node in ast.walk(scope)
    )
