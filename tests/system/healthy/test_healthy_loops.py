"""Healthy advanced training loops under `watch()`: no finding, no GuardWarning.

Each test is a loop experienced people write every day (GANs, actor-critic, adversarial
training, MAML, R-Drop, SAM, EMA/SWA, frozen BatchNorm, accumulation, AMP, every torch
scheduler on its right interval), trained for a few epochs on small generated data. The
planted-bug tests next to this file are the other half of the contract: a real bug is still
found.
"""

from __future__ import annotations

import contextlib
import copy
import math
import warnings

import pytest
import torch
import torch.nn.functional as F
from torch import nn
from torch.func import functional_call
from torch.optim import lr_scheduler as S
from torch.optim.swa_utils import SWALR, AveragedModel, update_bn
from torch.utils.data import DataLoader, TensorDataset

from trainwell.guards import GuardWarning, watch

# ----------------------------------------------------------------------------- helpers


@pytest.fixture(autouse=True, scope="module")
def _one_thread():
    # Tiny models: one thread is as fast, and does not crawl when the cores are shared.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@contextlib.contextmanager
def healthy():
    """Records every warning inside; fails on any GuardWarning."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    found = [str(w.message) for w in caught if issubclass(w.category, GuardWarning)]
    assert found == [], "\n\n".join(found)


def assert_silent(*watches):
    for w in watches:
        assert w.findings == [], "\n\n".join(str(f) for f in w.findings)


def blobs(n, dim=8, classes=3, seed=0):
    g = torch.Generator().manual_seed(seed)
    centers = 2.0 * torch.randn(classes, dim, generator=g)
    y = torch.randint(0, classes, (n,), generator=g)
    return centers[y] + torch.randn(n, dim, generator=g), y


def loaders(n_train=800, batch=32, seed=0, drop_last=True):
    """25 shuffled training batches of 32 (with the defaults) and a 256-sample validation set."""
    x, y = blobs(n_train + 256, seed=seed)
    g = torch.Generator().manual_seed(seed)
    train = DataLoader(
        TensorDataset(x[:n_train], y[:n_train]),
        batch_size=batch,
        shuffle=True,
        drop_last=drop_last,
        generator=g,
    )
    val = DataLoader(TensorDataset(x[n_train:], y[n_train:]), batch_size=128)
    return train, val


class MLP(nn.Module):
    def __init__(self, dim=8, hidden=64, classes=3, dropout=0.1, batchnorm=True):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(dim, hidden),
            nn.BatchNorm1d(hidden) if batchnorm else nn.Identity(),
            nn.ReLU(),
            nn.Dropout(dropout),
            nn.Linear(hidden, hidden),
            nn.ReLU(),
        )
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        return self.head(self.body(x))


def evaluate(model, loader, criterion, context=torch.no_grad):
    """Mean validation loss and accuracy, in eval mode without a graph; back to train mode."""
    model.eval()
    total, correct, count = 0.0, 0, 0
    with context():
        for x, y in loader:
            logits = model(x)
            total += criterion(logits, y).item() * len(y)
            correct += (logits.argmax(1) == y).sum().item()
            count += len(y)
    model.train()
    return total / count, correct / count


# ----------------------------------------------------------------------------- GANs


def ring(n=800, seed=0):
    """Points on a ring of 8 Gaussians: the toy GAN target."""
    g = torch.Generator().manual_seed(seed)
    angle = torch.randint(0, 8, (n,), generator=g).float() * (2 * math.pi / 8)
    centers = torch.stack([angle.cos(), angle.sin()], 1) * 2.0
    return centers + 0.05 * torch.randn(n, 2, generator=g)


def gan_models(batchnorm=True):
    generator = nn.Sequential(
        nn.Linear(8, 64),
        nn.BatchNorm1d(64) if batchnorm else nn.Identity(),
        nn.ReLU(),
        nn.Linear(64, 64),
        nn.ReLU(),
        nn.Linear(64, 2),
    )
    discriminator = nn.Sequential(
        nn.Linear(2, 64), nn.LeakyReLU(0.2), nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1)
    )
    return generator, discriminator


@pytest.mark.parametrize("detach", [True, False], ids=["fake-detached", "retain-graph"])
def test_dcgan_style_gan_with_two_optimizers(detach):
    netG, netD = gan_models()
    opt_g = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    criterion = nn.BCEWithLogitsLoss()
    loader = DataLoader(TensorDataset(ring()), batch_size=32, shuffle=True, drop_last=True)
    with (
        healthy(),
        watch(netG, opt_g, loss_fn=criterion) as g_watch,
        watch(netD, opt_d, loss_fn=criterion) as d_watch,
    ):
        for _epoch in range(3):
            for (real,) in loader:
                batch = real.shape[0]
                ones, zeros = torch.ones(batch, 1), torch.zeros(batch, 1)
                fake = netG(torch.randn(batch, 8))
                # (1) discriminator: maximise log D(x) + log(1 - D(G(z)))
                opt_d.zero_grad()
                if detach:
                    d_loss = criterion(netD(real), ones) + criterion(netD(fake.detach()), zeros)
                    d_loss.backward()
                else:  # the D loss also fills G's grads; opt_g.zero_grad() clears them below
                    d_loss = criterion(netD(real), ones) + criterion(netD(fake), zeros)
                    d_loss.backward(retain_graph=True)
                opt_d.step()
                # (2) generator: maximise log D(G(z)); its backward flows through D and fills
                # D's grads, which D's next zero_grad() clears
                opt_g.zero_grad()
                g_loss = criterion(netD(fake), ones)
                g_loss.backward()
                opt_g.step()
    assert_silent(g_watch, d_watch)
    assert math.isfinite(d_loss.item() + g_loss.item())


def test_wgan_gp_with_gradient_penalty_and_five_critic_steps():
    netG, critic = gan_models(batchnorm=False)
    opt_g = torch.optim.Adam(netG.parameters(), lr=1e-4, betas=(0.5, 0.9))
    opt_c = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.5, 0.9))
    loader = DataLoader(TensorDataset(ring()), batch_size=32, shuffle=True, drop_last=True)
    n_critic, lambda_gp = 5, 10.0
    with (
        healthy(),
        watch(netG, opt_g) as g_watch,
        watch(critic, opt_c) as c_watch,
    ):
        for _epoch in range(3):
            for i, (real,) in enumerate(loader):
                batch = real.shape[0]
                fake = netG(torch.randn(batch, 8)).detach()
                opt_c.zero_grad()
                eps = torch.rand(batch, 1)
                mixed = (eps * real + (1 - eps) * fake).requires_grad_(True)
                (grad,) = torch.autograd.grad(
                    critic(mixed).sum(), mixed, create_graph=True
                )  # fills no .grad; its graph is part of the critic loss
                penalty = ((grad.norm(2, dim=1) - 1) ** 2).mean()
                c_loss = critic(fake).mean() - critic(real).mean() + lambda_gp * penalty
                c_loss.backward()
                opt_c.step()
                if i % n_critic == 0:
                    critic.requires_grad_(False)  # G's backward reaches no critic parameter
                    opt_g.zero_grad()
                    g_loss = -critic(netG(torch.randn(batch, 8))).mean()
                    g_loss.backward()
                    opt_g.step()
                    critic.requires_grad_(True)
    assert_silent(g_watch, c_watch)
    assert math.isfinite(c_loss.item() + g_loss.item())


# ----------------------------------------------------------------------------- actor-critic


def test_ddpg_style_actor_critic_with_target_networks():
    g = torch.Generator().manual_seed(0)
    states = torch.randn(800, 4, generator=g)
    actions = torch.rand(800, 2, generator=g) * 2 - 1
    rewards = -(states[:, :2] - actions).pow(2).sum(1, keepdim=True)
    next_states = states + 0.1 * torch.randn(800, 4, generator=g)
    replay = DataLoader(
        TensorDataset(states, actions, rewards, next_states), batch_size=32, shuffle=True
    )
    actor = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 2), nn.Tanh())
    critic = nn.Sequential(nn.Linear(6, 64), nn.ReLU(), nn.Linear(64, 1))
    actor_target, critic_target = copy.deepcopy(actor), copy.deepcopy(critic)
    opt_a = torch.optim.Adam(actor.parameters(), lr=1e-3)
    opt_c = torch.optim.Adam(critic.parameters(), lr=1e-3)
    gamma, tau = 0.99, 0.01
    with (
        healthy(),
        watch(actor, opt_a) as a_watch,
        watch(critic, opt_c, loss_fn=nn.MSELoss()) as c_watch,
    ):
        for _epoch in range(3):
            for s, a, r, s2 in replay:
                with torch.no_grad():
                    target = r + gamma * critic_target(torch.cat([s2, actor_target(s2)], 1))
                opt_c.zero_grad()
                critic_loss = F.mse_loss(critic(torch.cat([s, a], 1)), target)
                critic_loss.backward()
                opt_c.step()
                # the actor's loss flows through the critic (filling the critic's grads,
                # cleared by the critic's next zero_grad)
                opt_a.zero_grad()
                actor_loss = -critic(torch.cat([s, actor(s)], 1)).mean()
                actor_loss.backward()
                opt_a.step()
                with torch.no_grad():
                    for net, tgt in ((actor, actor_target), (critic, critic_target)):
                        for p, tp in zip(net.parameters(), tgt.parameters()):
                            tp.lerp_(p, tau)
    assert_silent(a_watch, c_watch)


def test_a2c_style_actor_critic_one_backward_two_optimizers():
    g = torch.Generator().manual_seed(0)
    obs = torch.randn(960, 6, generator=g)
    best = obs[:, :3].argmax(1)  # the action that pays
    actor = nn.Sequential(nn.Linear(6, 64), nn.Tanh(), nn.Linear(64, 3))
    critic = nn.Sequential(nn.Linear(6, 64), nn.Tanh(), nn.Linear(64, 1))
    opt_a = torch.optim.Adam(actor.parameters(), lr=3e-3)
    opt_c = torch.optim.Adam(critic.parameters(), lr=1e-2)
    with healthy(), watch(actor, opt_a) as a_watch, watch(critic, opt_c) as c_watch:
        for _epoch in range(4):
            for start in range(0, len(obs), 32):
                s = obs[start : start + 32]
                dist = torch.distributions.Categorical(logits=actor(s))
                action = dist.sample()
                reward = (action == best[start : start + 32]).float()
                value = critic(s).squeeze(1)
                advantage = reward - value.detach()
                actor_loss = -(dist.log_prob(action) * advantage).mean()
                actor_loss = actor_loss - 0.01 * dist.entropy().mean()
                critic_loss = F.mse_loss(value, reward)
                opt_a.zero_grad()
                opt_c.zero_grad()
                (actor_loss + 0.5 * critic_loss).backward()
                nn.utils.clip_grad_norm_(actor.parameters(), 0.5)
                nn.utils.clip_grad_norm_(critic.parameters(), 0.5)
                opt_a.step()
                opt_c.step()
    assert_silent(a_watch, c_watch)


# ----------------------------------------------------------------------------- autograd.grad


@pytest.mark.parametrize("attack", ["fgsm", "pgd", "pgd-backward"])
def test_adversarial_training_with_the_attack_in_eval_mode(attack):
    model = MLP(dropout=0.2)
    train, val = loaders()
    criterion = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=5e-4)
    epsilon, alpha, iters = 0.3, 0.1, 1 if attack == "fgsm" else 4
    with healthy(), watch(model, opt, loss_fn=criterion) as guards:
        for _epoch in range(3):
            model.train()
            for x, y in train:
                # the attack: eval mode, gradients w.r.t. the input only
                model.eval()
                if attack == "fgsm":
                    x_adv = x.clone()
                else:  # PGD: random start in the eps-ball
                    x_adv = x + torch.empty_like(x).uniform_(-epsilon, epsilon)
                for _ in range(iters):
                    x_adv.requires_grad_(True)
                    loss = criterion(model(x_adv), y)
                    if attack == "pgd-backward":  # also fills the params' .grad, cleared below
                        loss.backward()
                        grad = x_adv.grad
                    else:
                        (grad,) = torch.autograd.grad(loss, x_adv)
                    step = epsilon if attack == "fgsm" else alpha
                    x_adv = x_adv.detach() + step * grad.sign()
                    x_adv = (x + (x_adv - x).clamp(-epsilon, epsilon)).detach()
                # the training step on the adversarial batch, in train mode
                model.train()
                opt.zero_grad()
                loss = criterion(model(x_adv), y)
                loss.backward()
                opt.step()
            val_loss, accuracy = evaluate(model, val, criterion)
    assert_silent(guards)
    assert accuracy > 0.5


def test_maml_with_functional_call_second_order():
    model = nn.Sequential(
        nn.Linear(1, 40), nn.ReLU(), nn.Linear(40, 40), nn.ReLU(), nn.Linear(40, 1)
    )
    meta_opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(0)
    tasks_per_batch, inner_steps, inner_lr = 4, 2, 0.01

    def sample_task():
        amplitude = torch.rand((), generator=g) * 4.9 + 0.1
        phase = torch.rand((), generator=g) * math.pi
        x = torch.rand(20, 1, generator=g) * 10 - 5
        y = amplitude * torch.sin(x + phase)
        return x[:10], y[:10], x[10:], y[10:]

    with healthy(), watch(model, meta_opt, accumulate_steps=tasks_per_batch) as guards:
        for _meta_step in range(60):
            meta_opt.zero_grad()
            for _ in range(tasks_per_batch):
                xs, ys, xq, yq = sample_task()
                params = dict(model.named_parameters())
                for _ in range(inner_steps):
                    support_loss = F.mse_loss(functional_call(model, params, (xs,)), ys)
                    grads = torch.autograd.grad(
                        support_loss, list(params.values()), create_graph=True
                    )
                    params = {
                        name: p - inner_lr * grad for (name, p), grad in zip(params.items(), grads)
                    }
                query_loss = F.mse_loss(functional_call(model, params, (xq,)), yq)
                (query_loss / tasks_per_batch).backward()
            meta_opt.step()
    assert_silent(guards)


# ----------------------------------------------------------------------------- one batch, twice


def test_r_drop_two_dropout_forwards_of_one_batch():
    model = MLP(dropout=0.3, batchnorm=False)
    train, val = loaders()
    criterion = nn.CrossEntropyLoss()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    alpha = 1.0
    with healthy(), watch(model, opt, loss_fn=criterion) as guards:
        for _epoch in range(4):
            model.train()
            for x, y in train:
                opt.zero_grad()
                logits1, logits2 = model(x), model(x)  # two dropout masks
                ce = 0.5 * (criterion(logits1, y) + criterion(logits2, y))
                logp1, logp2 = F.log_softmax(logits1, -1), F.log_softmax(logits2, -1)
                kl = 0.5 * (
                    F.kl_div(logp1, logp2, reduction="batchmean", log_target=True)
                    + F.kl_div(logp2, logp1, reduction="batchmean", log_target=True)
                )
                (ce + alpha * kl).backward()
                opt.step()
            val_loss, accuracy = evaluate(model, val, criterion)
    assert_silent(guards)
    assert accuracy > 0.5


def test_consistency_regularisation_with_two_augmentations():
    """Pi-model style: labelled CE plus MSE between two augmented views of an unlabelled batch.
    The augmentation is batch-level (one random shift for the whole batch, as GPU
    augmentation often is), so the two views are sometimes identical."""
    model = MLP(dim=16, dropout=0.2)
    g = torch.Generator().manual_seed(0)
    xl, yl = blobs(800, dim=16, seed=1)
    xu, _ = blobs(800, dim=16, seed=2)
    labelled = DataLoader(TensorDataset(xl, yl), batch_size=32, shuffle=True, drop_last=True)
    unlabelled = DataLoader(TensorDataset(xu), batch_size=32, shuffle=True, drop_last=True)
    criterion = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.03, momentum=0.9, nesterov=True)

    def augment(x):
        shift = int(torch.randint(-1, 2, (), generator=g))
        return torch.roll(x, shifts=shift, dims=1)

    with healthy(), watch(model, opt, loss_fn=criterion, every=5) as guards:
        for epoch in range(4):
            model.train()
            ramp = min(1.0, (epoch + 1) / 3)
            for (x, y), (u,) in zip(labelled, unlabelled):
                opt.zero_grad()
                sup = criterion(model(x), y)
                p1 = model(augment(u)).softmax(1)
                p2 = model(augment(u)).softmax(1)
                loss = sup + 10.0 * ramp * F.mse_loss(p1, p2.detach())
                loss.backward()
                opt.step()
    assert_silent(guards)


def test_sam_two_forward_backward_passes_per_step():
    model = MLP(dropout=0.1)
    train, val = loaders()
    criterion = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    sched = S.CosineAnnealingLR(opt, T_max=4)
    rho = 0.05
    with healthy(), watch(model, opt, loss_fn=criterion, scheduler=sched) as guards:
        for _epoch in range(4):
            model.train()
            for x, y in train:
                # first pass: the gradient at w
                opt.zero_grad()
                criterion(model(x), y).backward()
                params = [p for p in model.parameters() if p.grad is not None]
                with torch.no_grad():
                    norm = torch.norm(torch.stack([p.grad.norm(2) for p in params]), 2)
                    perturbation = [rho * p.grad / (norm + 1e-12) for p in params]
                    for p, e in zip(params, perturbation):
                        p.add_(e)  # climb to w + e
                # second pass: the gradient at w + e, applied at w
                opt.zero_grad()
                criterion(model(x), y).backward()
                with torch.no_grad():
                    for p, e in zip(params, perturbation):
                        p.sub_(e)
                opt.step()
            sched.step()
            val_loss, accuracy = evaluate(model, val, criterion)
    assert_silent(guards)
    assert accuracy > 0.5


# ----------------------------------------------------------------------------- copies


def test_ema_best_copy_and_whole_model_save_mid_training(tmp_path):
    model = MLP(dropout=0.2)
    train, val = loaders()
    criterion = nn.CrossEntropyLoss()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    sched = S.StepLR(opt, step_size=2, gamma=0.5)
    ema = copy.deepcopy(model).eval()
    for p in ema.parameters():
        p.requires_grad_(False)
    best_loss, best_model, decay = float("inf"), None, 0.99
    with healthy(), watch(model, opt, loss_fn=criterion, scheduler=sched) as guards:
        for epoch in range(5):
            model.train()
            for x, y in train:
                opt.zero_grad(set_to_none=True)
                loss = criterion(model(x), y)
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
                opt.step()
                with torch.no_grad():
                    for e, p in zip(ema.parameters(), model.parameters()):
                        e.lerp_(p, 1 - decay)
                    for e, b in zip(ema.buffers(), model.buffers()):
                        e.copy_(b)
            sched.step()
            val_loss, _ = evaluate(model, val, criterion)
            ema_loss, _ = evaluate(ema, val, criterion)
            ema.eval()
            if val_loss < best_loss:
                best_loss, best_model = val_loss, copy.deepcopy(model)
            if epoch == 2:
                torch.save(model, tmp_path / "model.pt")
                torch.save(
                    {"model": model.state_dict(), "opt": opt.state_dict()}, tmp_path / "c.pt"
                )
    assert_silent(guards)
    loaded = torch.load(tmp_path / "model.pt", weights_only=False).eval()
    with torch.no_grad():
        loaded(torch.randn(4, 8))
    assert best_model is not None and math.isfinite(ema_loss)


def test_swa_with_averaged_model_swalr_and_update_bn():
    model = MLP(dropout=0.1)
    train, val = loaders()
    criterion = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    epochs, swa_start = 8, 4
    scheduler = S.CosineAnnealingLR(opt, T_max=swa_start)
    swa_model = AveragedModel(model)
    swa_scheduler = SWALR(opt, swa_lr=0.05, anneal_epochs=2)
    with healthy(), watch(model, opt, loss_fn=criterion, scheduler=scheduler) as guards:
        for epoch in range(epochs):
            model.train()
            for x, y in train:
                opt.zero_grad()
                criterion(model(x), y).backward()
                opt.step()
            if epoch >= swa_start:
                swa_model.update_parameters(model)
                swa_scheduler.step()
            else:
                scheduler.step()
            evaluate(model, val, criterion)
        update_bn(train, swa_model)
        swa_loss, accuracy = evaluate(swa_model, val, criterion)
    assert_silent(guards)
    assert accuracy > 0.5


# ----------------------------------------------------------------------------- more steps


def test_retain_graph_for_two_losses_of_one_forward():
    class TwoHeads(nn.Module):
        def __init__(self):
            super().__init__()
            self.trunk = nn.Sequential(nn.Linear(8, 64), nn.BatchNorm1d(64), nn.ReLU())
            self.cls = nn.Linear(64, 3)
            self.reg = nn.Linear(64, 1)

        def forward(self, x):
            h = self.trunk(x)
            return self.cls(h), self.reg(h).squeeze(1)

    model = TwoHeads()
    train, _ = loaders()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    with healthy(), watch(model, opt) as guards:
        for _epoch in range(3):
            for x, y in train:
                opt.zero_grad()
                logits, value = model(x)
                cls_loss = F.cross_entropy(logits, y)
                reg_loss = F.smooth_l1_loss(value, x.sum(1))
                cls_loss.backward(retain_graph=True)  # the second loss needs the graph
                (0.1 * reg_loss).backward()
                nn.utils.clip_grad_norm_(model.parameters(), 5.0)
                opt.step()
    assert_silent(guards)


def test_fine_tuning_with_frozen_batchnorm():
    class Backbone(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(
                nn.Linear(8, 64), nn.BatchNorm1d(64), nn.ReLU(),
                nn.Linear(64, 64), nn.BatchNorm1d(64), nn.ReLU(),
            )  # fmt: skip
            self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(64, 3))

        def forward(self, x):
            return self.classifier(self.features(x))

        def train(self, mode=True):
            super().train(mode)
            for m in self.modules():  # BatchNorm stays frozen: pretrained statistics
                if isinstance(m, nn.BatchNorm1d):
                    m.eval()
            return self

    model = Backbone()
    with torch.no_grad():  # "pretrained" statistics
        for m in model.modules():
            if isinstance(m, nn.BatchNorm1d):
                m.running_mean.normal_(0, 0.1)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.requires_grad_(False)
                m.bias.requires_grad_(False)
    train, val = loaders(drop_last=False)  # BatchNorm is frozen: a short batch is fine
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.SGD(params, lr=0.01, momentum=0.9)
    with healthy(), watch(model, opt, loss_fn=criterion) as guards:
        for _epoch in range(3):
            model.train()
            for x, y in train:
                opt.zero_grad()
                criterion(model(x), y).backward()
                opt.step()
            evaluate(model, val, criterion)
    assert_silent(guards)


def test_gradient_accumulation_with_a_short_last_window():
    model = MLP(dropout=0.1)
    train, val = loaders(n_train=30 * 16, batch=16)  # 30 micro-batches: 7 windows of 4, 1 of 2
    criterion = nn.CrossEntropyLoss()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    accumulate, epochs = 4, 4
    steps_per_epoch = math.ceil(len(train) / accumulate)
    sched = S.OneCycleLR(opt, max_lr=3e-3, total_steps=epochs * steps_per_epoch)
    with (
        healthy(),
        watch(
            model, opt, loss_fn=criterion, scheduler=sched, accumulate_steps=accumulate
        ) as guards,
    ):
        for _epoch in range(epochs):
            model.train()
            opt.zero_grad()
            for i, (x, y) in enumerate(train):
                window = min(accumulate, len(train) - (i // accumulate) * accumulate)
                (criterion(model(x), y) / window).backward()
                if (i + 1) % accumulate == 0 or i + 1 == len(train):
                    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                    opt.step()
                    sched.step()
                    opt.zero_grad()
            evaluate(model, val, criterion)
    assert_silent(guards)


def test_bf16_autocast_with_a_grad_scaler_on_cpu():
    model = MLP(dropout=0.1)
    train, val = loaders()
    criterion = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    epochs = 3
    sched = S.OneCycleLR(opt, max_lr=0.05, total_steps=epochs * len(train))
    scaler = torch.amp.GradScaler("cpu")
    with (
        healthy(),
        watch(model, opt, loss_fn=criterion, scheduler=sched, scaler=scaler) as guards,
    ):
        for _epoch in range(epochs):
            model.train()
            for x, y in train:
                opt.zero_grad(set_to_none=True)
                with torch.autocast("cpu", dtype=torch.bfloat16):
                    loss = criterion(model(x), y)
                scaler.scale(loss).backward()
                scaler.unscale_(opt)
                nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                scale = scaler.get_scale()
                scaler.step(opt)
                scaler.update()
                if scaler.get_scale() >= scale:  # the step was not skipped
                    sched.step()
            with torch.autocast("cpu", dtype=torch.bfloat16):
                evaluate(model, val, criterion)
    assert_silent(guards)


@pytest.mark.parametrize("context", [torch.no_grad, torch.inference_mode])
def test_classifier_with_validation_and_early_stopping(context):
    model = MLP(dropout=0.3)
    train, val = loaders()
    criterion = nn.CrossEntropyLoss()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    best, patience, bad = float("inf"), 3, 0
    with healthy(), watch(model, opt, loss_fn=criterion) as guards:
        for _epoch in range(6):
            model.train()
            running = 0.0
            for x, y in train:
                opt.zero_grad()
                loss = criterion(model(x), y)
                loss.backward()
                opt.step()
                running += loss.item()
            model.eval()
            with context():
                val_loss = sum(criterion(model(x), y).item() for x, y in val) / len(val)
            if val_loss < best - 1e-4:
                best, bad, state = val_loss, 0, copy.deepcopy(model.state_dict())
            else:
                bad += 1
                if bad >= patience:
                    break
        model.load_state_dict(state)
    assert_silent(guards)


# ----------------------------------------------------------------------------- schedulers

EPOCHS, STEPS = 6, 25  # 25 optimizer steps per epoch
TOTAL = EPOCHS * STEPS

SCHEDULERS = {
    # per epoch
    "StepLR": ("epoch", lambda o: S.StepLR(o, step_size=2, gamma=0.5)),
    "MultiStepLR": ("epoch", lambda o: S.MultiStepLR(o, milestones=[3, 5], gamma=0.1)),
    "ExponentialLR": ("epoch", lambda o: S.ExponentialLR(o, gamma=0.8)),
    "CosineAnnealingLR": ("epoch", lambda o: S.CosineAnnealingLR(o, T_max=EPOCHS)),
    "PolynomialLR-epochs": ("epoch", lambda o: S.PolynomialLR(o, total_iters=EPOCHS, power=2)),
    "LinearLR-warmup-epochs": ("epoch", lambda o: S.LinearLR(o, start_factor=0.25, total_iters=3)),
    "LambdaLR-decay-epochs": ("epoch", lambda o: S.LambdaLR(o, lambda epoch: 0.98**epoch)),
    "ChainedScheduler": (
        "epoch",
        lambda o: S.ChainedScheduler(
            [S.ConstantLR(o, factor=0.5, total_iters=2), S.ExponentialLR(o, gamma=0.9)]
        ),
    ),
    "CosineAnnealingWarmRestarts-epochs": (
        "epoch",
        lambda o: S.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=2),
    ),
    "ReduceLROnPlateau": ("plateau", lambda o: S.ReduceLROnPlateau(o, factor=0.5, patience=1)),
    # per optimizer step
    "OneCycleLR": ("step", lambda o: S.OneCycleLR(o, max_lr=0.1, total_steps=TOTAL)),
    "OneCycleLR-epochs": (
        "step",
        lambda o: S.OneCycleLR(o, max_lr=0.1, epochs=EPOCHS, steps_per_epoch=STEPS),
    ),
    "CyclicLR": ("step", lambda o: S.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=50)),
    "CosineAnnealingLR-steps": ("step", lambda o: S.CosineAnnealingLR(o, T_max=TOTAL)),
    "PolynomialLR-steps": ("step", lambda o: S.PolynomialLR(o, total_iters=TOTAL, power=0.9)),
    "SequentialLR-warmup-cosine": (
        "step",
        lambda o: S.SequentialLR(
            o,
            [
                S.LinearLR(o, start_factor=0.01, total_iters=30),
                S.CosineAnnealingLR(o, T_max=TOTAL - 30),
            ],
            milestones=[30],
        ),
    ),
    "LambdaLR-warmup-constant": (
        "step",
        lambda o: S.LambdaLR(o, lambda s: min(1.0, (s + 1) / 100)),
    ),
    "LambdaLR-warmup-inverse-sqrt": (
        "step",
        lambda o: S.LambdaLR(o, lambda s: min((s + 1) / 100, (100 / (s + 1)) ** 0.5)),
    ),
    "ExponentialLR-steps": ("step", lambda o: S.ExponentialLR(o, gamma=0.999)),
    "CosineAnnealingWarmRestarts-fractional": (
        "fractional",
        lambda o: S.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=2),
    ),
}


@pytest.mark.parametrize("name", list(SCHEDULERS))
def test_every_torch_scheduler_on_its_right_interval(name):
    interval, make = SCHEDULERS[name]
    model = MLP(dropout=0.1)
    train, val = loaders(n_train=STEPS * 32)
    criterion = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    sched = make(opt)
    lrs = []
    with healthy(), watch(model, opt, loss_fn=criterion, scheduler=sched) as guards:
        for epoch in range(EPOCHS):
            model.train()
            for i, (x, y) in enumerate(train):
                opt.zero_grad()
                criterion(model(x), y).backward()
                opt.step()
                if interval == "step":
                    sched.step()
                elif interval == "fractional":
                    sched.step(epoch + i / len(train))
            val_loss, _ = evaluate(model, val, criterion)
            if interval == "epoch":
                sched.step()
            elif interval == "plateau":
                sched.step(val_loss)
            lrs.append(opt.param_groups[0]["lr"])
    assert_silent(guards)
    assert all(math.isfinite(lr) and lr >= 0 for lr in lrs)
