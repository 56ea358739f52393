"""Nothing a guard installs enters a state_dict, a pickle or a deep copy of the user's objects."""

import copy
import gc
import io
import pickle
import types
import warnings

import pytest
import torch
from tests.fixtures import Net, batches
from torch import nn
from torch.optim import lr_scheduler as S
from torch.optim.swa_utils import AveragedModel

import trainwell as tw
from trainwell.guards import GuardWarning, watch

from .helpers import codes

pytestmark = (
    pytest.mark.cpu_only
)  # asserts CPU semantics (exact parity with CPU tensors, fp32, CPU probes): CUDA hidden

_TRAINING_TYPES = (torch.optim.Optimizer, torch.amp.GradScaler)


def _reaches_a_guard(root, training_objects=True, limit=200_000):
    """True if an object of trainwell.guards (a watch, guard, context, reporter, hook) is
    reachable from ``root``, or (``training_objects``) an optimizer or GradScaler.

    Walks object references, but not through modules, classes or a function's globals (those
    reach everything in the process, the originals included).
    """
    seen, todo = set(), [root]
    while todo and len(seen) < limit:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, type | types.ModuleType):
            continue
        seen.add(id(obj))
        if type(obj).__module__.startswith("trainwell.guards"):
            return True
        if training_objects and isinstance(obj, _TRAINING_TYPES):
            return True
        if isinstance(obj, types.FunctionType):
            todo.extend(c.cell_contents for c in obj.__closure__ or () if _filled(c))
            todo.extend(obj.__defaults__ or ())
            continue
        todo.extend(gc.get_referents(obj))
    return False


def _filled(cell):
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:
        return False
    return True


def _hook_values(module):
    hooks = []
    for m in module.modules():
        hooks += [*m._forward_hooks.values(), *m._forward_pre_hooks.values()]
    return hooks


def _step(model, opt, crit, x, y):
    opt.zero_grad()
    crit(model(x), y).backward()
    opt.step()


def test_scheduler_state_dict_saves_and_keeps_its_keys_under_watch():
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched = S.StepLR(opt, 2)
    keys = set(sched.state_dict())
    with watch(model, opt, scheduler=sched):
        assert set(sched.state_dict()) == keys  # nothing of the guard's among them
        buffer = io.BytesIO()
        torch.save(sched.state_dict(), buffer)
        buffer.seek(0)
        assert torch.load(buffer, weights_only=True)["step_size"] == 2
        assert not _reaches_a_guard(pickle.loads(pickle.dumps(sched)), training_objects=False)
        assert not _reaches_a_guard(copy.deepcopy(sched), training_objects=False)


@pytest.mark.filterwarnings(
    "ignore:Detected call of `lr_scheduler.step\\(\\)`:UserWarning"
)  # torch's
def test_scheduler_stepping_is_still_checked_and_unwatched_schedulers_are_untouched():
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sched, other = S.StepLR(opt, 50), S.StepLR(torch.optim.SGD(Net().parameters(), lr=0.1), 50)
    with (
        pytest.warns(GuardWarning, match="scheduler-without-step"),
        watch(model, opt, scheduler=sched) as guards,
    ):
        other.step()  # another scheduler of the same class: not this watch's
        sched.step()  # planted: before the first optimizer step
    assert codes(guards) == ["scheduler-without-step"]
    assert "step" not in vars(sched)


def test_gradscaler_pickles_and_copies_under_watch():
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu")
    with watch(model, opt, scaler=scaler):
        assert not _reaches_a_guard(pickle.loads(pickle.dumps(scaler)), training_objects=False)
        assert not _reaches_a_guard(copy.deepcopy(scaler), training_objects=False)
        assert "update" not in vars(scaler)


def test_whole_model_saves_and_loads_under_watch():
    model = Net(batchnorm=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    x, y = batches(1)[0]
    with watch(model, opt, loss_fn=crit):
        _step(model, opt, crit, x, y)
        buffer = io.BytesIO()
        torch.save(model, buffer)
        torch.save(crit, io.BytesIO())
        buffer.seek(0)
        loaded = torch.load(buffer, weights_only=False)
    assert not _reaches_a_guard(loaded)
    model.eval(), loaded.eval()
    with torch.no_grad():
        assert torch.equal(loaded(x), model(x))


def test_model_pickles_under_watch():
    model = Net(batchnorm=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with watch(model, opt, loss_fn=nn.CrossEntropyLoss()):
        data = pickle.dumps(model)
    assert b"Watch" not in data and b"watcher" not in data and b"Optimizer" not in data
    loaded = pickle.loads(data)
    assert not _reaches_a_guard(loaded)
    assert all(hook(None, None, None) is None for hook in _hook_values(loaded))  # inert


def test_a_deep_copy_carries_no_watch_optimizer_or_live_hook():
    model = Net(batchnorm=True, dropout=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    x, y = batches(1)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("error", GuardWarning)  # a copy's forward must report nothing
        with watch(model, opt, loss_fn=crit) as guards:
            _step(model, opt, crit, x, y)
            best = copy.deepcopy(model)  # e.g. a best-model copy, or an EMA
            best_crit = copy.deepcopy(crit)
            assert not _reaches_a_guard(best) and not _reaches_a_guard(best_crit)
            with torch.no_grad():
                best(x)  # in train mode, without grad: would be "validation in train mode"
            _step(model, opt, crit, x, y)
        with torch.no_grad():
            best(x)  # after the watch: nothing of it left to fire
        best_crit(best(x), y).backward()
    assert guards.findings == []
    assert all(not _reaches_a_guard(h) for h in _hook_values(best))


def test_averaged_model_under_watch_is_neither_watched_nor_holding_the_watch():
    model = Net(batchnorm=True)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    with watch(model, opt, loss_fn=crit) as guards:
        swa = AveragedModel(model)
        for x, y in batches(4):
            _step(model, opt, crit, x, y)
            swa.update_parameters(model)
        with torch.no_grad():  # update_bn-style pass: train mode, no grad, on the copy
            for x, _ in batches(2, seed=1):
                swa(x)
    assert guards.findings == []
    assert not _reaches_a_guard(swa.module)


@pytest.mark.filterwarnings("ignore:resuming .* with a different config:UserWarning")  # epochs 2->3
def test_fit_with_a_torch_scheduler_and_a_run_dir_saves_and_resumes(tmp_path):
    x, y = torch.randn(64, 4), torch.randint(0, 3, (64,))

    def run(epochs, resume=None):
        torch.manual_seed(0)
        model = Net()
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        sched = S.StepLR(opt, step_size=1, gamma=0.5)
        cfg = {
            "run": {"quiet": True, "dir": str(tmp_path)},
            "data": {"batch_size": 16},
            "train": {"max_epochs": epochs},
            "checkpoint": {"resume": resume},
        }
        schedule = tw.TorchSchedule(sched, interval="epoch")
        result = tw.fit(model, (x, y), config=cfg, optimizer=opt, schedule=schedule)
        return result, sched

    first, sched = run(2)
    assert first.epochs == 2 and sched.last_epoch == 2 and "step" not in vars(sched)
    state = tw.load_checkpoint(tmp_path / "checkpoints" / "last.pt")
    assert set(state["state"]["schedule"]) == set(S.StepLR(_optimizer(), 1).state_dict())
    resumed, sched = run(3, resume="auto")
    assert resumed.epochs == 3 and sched.last_epoch == 3
    assert sched.get_last_lr() == [0.1 * 0.5**3]


def _optimizer():
    return torch.optim.SGD(Net().parameters(), lr=0.1)


def _hook_dicts(module):
    """Every hook registry of a module tree and its parameters, non-empty ones only."""
    found = []
    for name, sub in module.named_modules():
        for attr, value in vars(sub).items():
            if attr.endswith("_hooks") and value:
                found.append(f"{name or 'model'}.{attr}")
    for name, p in module.named_parameters():
        if getattr(p, "_post_accumulate_grad_hooks", None) or p._backward_hooks:
            found.append(name)
    return found


def test_nothing_is_left_behind_after_a_watched_loop_or_fit():
    """After watch() exits and after fit() returns: no hook, attribute or wrapper remains; the
    model, optimizer and scheduler pickle and deep-copy as if never watched."""
    import pickle

    import trainwell as tw

    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 3))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.StepLR(opt, 2)
    crit = nn.CrossEntropyLoss()
    x0, y0 = batches(1, seed=3)[0]  # one plain step first: torch's own lazy attributes
    crit(model(x0), y0).backward()
    opt.step()
    opt.zero_grad()
    before = {id(o): set(vars(o)) for o in (model, opt, sched, crit)}
    class_dicts = {cls: set(vars(cls)) for cls in (type(sched), type(opt), type(crit))}
    with watch(model, opt, loss_fn=crit, scheduler=sched, steps_per_epoch=4):
        for _ in range(3):
            for x, y in batches(4):
                opt.zero_grad()
                crit(model(x), y).backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
            sched.step()
    x, y = torch.randn(64, 4), torch.randint(0, 3, (64,))
    tw.fit(
        model,
        (x, y),
        loss=crit,
        optimizer=opt,
        schedule=tw.TorchSchedule(sched),
        config={"run": {"quiet": True}, "train": {"max_epochs": 2}},
    )
    for obj in (model, opt, sched, crit):
        assert set(vars(obj)) == before[id(obj)], type(obj).__name__
    for cls, names in class_dicts.items():
        assert set(vars(cls)) == names, cls.__name__
    assert _hook_dicts(model) == [] and _hook_dicts(crit) == []
    assert not opt._optimizer_step_pre_hooks and not opt._optimizer_step_post_hooks
    copy.deepcopy((model, opt, sched))
    model2, opt2, sched2 = pickle.loads(pickle.dumps((model, opt, sched)))
    assert _hook_dicts(model2) == [] and sched2.optimizer is opt2
    assert b"trainwell" not in pickle.dumps((model, opt, sched))  # nothing of ours inside
