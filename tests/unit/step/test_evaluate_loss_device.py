"""`evaluate_loader` (what `tw.evaluate`, fit's validation and `trainwell eval` share) moves a
loss module's buffers to the evaluation device, as `fit()` does for training (CPU run: the
move is observed; tests/gpu runs the real case)."""

import torch
from torch import nn

import trainwell as tw


class RecordingLoss(nn.CrossEntropyLoss):
    """A class-weighted loss that records the devices it is moved to."""

    def __init__(self):
        super().__init__(weight=torch.tensor([1.0, 2.0, 3.0]))
        self.moved_to = []

    def to(self, *args, **kwargs):
        self.moved_to.append(torch.device(args[0] if args else kwargs["device"]))
        return super().to(*args, **kwargs)


def test_evaluate_moves_the_loss_module_to_its_device():
    loss = RecordingLoss()
    x, y = torch.randn(16, 4), torch.randint(0, 3, (16,))
    result = tw.evaluate(nn.Linear(4, 3), (x, y), loss=loss, device="cpu")
    assert loss.moved_to == [torch.device("cpu")]
    assert result["loss"] > 0
