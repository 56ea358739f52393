"""Examples of TW012 (inference without no_grad) in code a framework runs: the hooks
Lightning's Trainer calls inside its fit loop with autograd on, which no call in the file
shows, and a LightningModule whose gradient penalty takes input gradients for its training
step only, and Graphcore's compiled models (poptorch), whose calls run on the IPU: a
training model's call is the whole step, an inference model's records no graph on the host.
Run as tests beside the rule."""

from __future__ import annotations

from ._registry import Example

FRAMEWORK_EXAMPLES = (
    Example(
        # Lightning's Trainer runs on_epoch_end inside its fit loop, with autograd on: the
        # sample grid it logs records a graph for nothing (no call in the file to report at)
        "a_lightning_hook_the_trainer_runs_with_autograd_on",
        """\
        import pytorch_lightning as pl
        from torchvision.utils import make_grid

        class GAN(pl.LightningModule):
            def __init__(self):
                super().__init__()
                self.generator = nn.Linear(8, 784)
                self.fixed_z = torch.randn(16, 8)

            def forward(self, z):
                return self.generator(z)

            def training_step(self, batch, batch_idx):
                return F.mse_loss(self(torch.randn(8, 8)), batch)

            def on_epoch_end(self):
                samples = self(self.fixed_z)
                self.logger.experiment.add_image("samples", make_grid(samples))
        """,
        [(17, "TW012")],
    ),
    Example(
        # a Lightning Callback's training hook is run by the Trainer the same way
        "a_lightning_callback_hook_with_autograd_on",
        """\
        from lightning.pytorch.callbacks import Callback

        class StoreValue(Callback):
            def __init__(self):
                self.store = []

            def on_train_epoch_start(self, trainer, pl_module):
                out = pl_module.model(probe).flatten().detach().cpu()
                self.store.append(out)
        """,
        [(8, "TW012")],
    ),
    Example(
        # the validation hooks run under Lightning's no_grad, and a hook wrapped in
        # no_grad by its author records nothing either
        "lightning_validation_hooks_and_guarded_hooks_are_silent",
        """\
        import pytorch_lightning as pl
        from torchvision.utils import make_grid

        class GAN(pl.LightningModule):
            def forward(self, z):
                return self.generator(z)

            def training_step(self, batch, batch_idx):
                return F.mse_loss(self(torch.randn(8, 8)), batch)

            def on_validation_epoch_end(self):
                self.logger.experiment.add_image("samples", make_grid(self(self.fixed_z)))

            @torch.no_grad()
            def on_train_epoch_end(self):
                self.logger.experiment.add_image("samples", make_grid(self(self.fixed_z)))
        """,
        [],
    ),
    Example(
        # a hook of the same name on a class that is not Lightning's: nothing runs it here
        "an_on_epoch_end_method_outside_lightning_is_not_run",
        """\
        class Sampler(nn.Module):
            def forward(self, z):
                return self.generator(z)

            def on_epoch_end(self):
                self.samples.append(self(self.fixed_z).detach().cpu())
        """,
        [],
    ),
    Example(
        # the input gradients of a WGAN-GP's penalty are taken for its training step only:
        # the samples its training hook logs need no autograd
        "a_gradient_penalty_for_training_does_not_make_sampling_need_grad",
        """\
        import pytorch_lightning as pl
        from torchvision.utils import make_grid

        class WGANGP(pl.LightningModule):
            def forward(self, z):
                return self.generator(z)

            def gradient_penalty(self, real, fake):
                mix = (0.5 * real + 0.5 * fake).requires_grad_(True)
                g = torch.autograd.grad(self.critic(mix).sum(), mix, create_graph=True)[0]
                return ((g.norm(2, dim=1) - 1) ** 2).mean()

            def training_step(self, batch, batch_idx):
                fake = self(torch.randn(8, 8))
                return self.critic(fake).mean() + self.gradient_penalty(batch, fake)

            def on_epoch_end(self):
                self.logger.experiment.add_image("samples", make_grid(self(self.fixed_z)))
        """,
        [(18, "TW012")],
    ),
    Example(
        "poptorch_training_and_inference_models_record_no_graph_on_the_host",
        """\
        import poptorch


        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = torch.nn.Linear(4, 2)
                self.loss_fn = torch.nn.CrossEntropyLoss()

            def forward(self, x, labels=None):
                out = self.fc(x)
                if labels is None:
                    return out
                return out, poptorch.identity_loss(self.loss_fn(out, labels), "none")


        net = Model()
        optimizer = poptorch.optim.Adam(net.parameters(), lr=0.001)
        training_model = poptorch.trainingModel(net, optimizer=optimizer)
        for epoch in range(2):
            for i, (data, labels) in enumerate(train_loader):
                output, loss = training_model(data, labels)
                if i % 250 == 0:
                    print((output.argmax(1) == labels).float().mean().item())
        inference_model = poptorch.inferenceModel(net)
        correct = 0
        for data, labels in test_loader:
            correct += (inference_model(data).argmax(1) == labels).sum().item()
        """,
        [],
    ),
    Example(
        # LightningModule.freeze(): every parameter frozen (and eval()): no graph is recorded
        "a_lightning_module_frozen_by_freeze_records_no_graph",
        """\
        from model import SurfaceEmbeddingModel

        model = SurfaceEmbeddingModel.load_from_checkpoint("last.ckpt").eval()
        model.freeze()
        scores = [model(x).argmax(1).item() for x in crops]
        """,
        [],
    ),
    Example(
        # a project's own LightningModule subclassed in a file that imports Lightning: the
        # Trainer runs its training hooks with autograd on
        "a_hook_of_a_subclass_of_the_projects_lightning_module",
        """\
        import pytorch_lightning
        from fs_grl.pl_modules.base import BaseModule

        class SimpleTarget(BaseModule):
            def on_train_batch_end(self, outputs, batch, batch_idx):
                self.model.eval()
                logits = self.model(batch.queries)
                self.log("query_acc", (logits.argmax(-1) == batch.y).float().mean())
        """,
        [(7, "TW012")],
    ),
    Example(
        "a_hook_of_a_torch_module_in_a_file_that_imports_lightning",
        """\
        import pytorch_lightning
        import torch.nn as nn

        class Sampler(nn.Module):
            def on_train_batch_end(self, outputs, batch, batch_idx):
                self.model.eval()
                self.samples.append(self.model(batch).detach().cpu())
        """,
        [],
    ),
)
