"""One measurement of ``peers.py``: one contender on one workload, in a fresh process.

Prints one line ``PEERS_RESULT {json}`` with the measurements (everything else it prints,
the frameworks' own logs included, is ignored). Each workload but ``startup`` also times the
paired in-process reference, the ``hand`` loop, on the same data in the same process,
alternating with the contender (ABBA across rounds and repeats), so a ratio of the two cancels
whatever the machine was doing while this process ran.

    python benchmarks/peers_run.py --contender trainwell --workload mlp [--epochs 10] [--inner 2]
"""

from __future__ import annotations

import time

# The first statement that runs in this file: the start-up workload's "interpreter is up".
T_TOP = time.clock_gettime(time.CLOCK_MONOTONIC)

import argparse  # noqa: E402  (after the timestamp on purpose)
import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402

RESULT_TAG = "PEERS_RESULT "


def now() -> float:
    """CLOCK_MONOTONIC: one system-wide clock, so the parent's spawn time can be compared."""
    return time.clock_gettime(time.CLOCK_MONOTONIC)


def digits_mlp():
    from torch import nn

    return nn.Sequential(
        nn.Flatten(),
        nn.Linear(64, 128),
        nn.ReLU(),
        nn.Linear(128, 128),
        nn.ReLU(),
        nn.Linear(128, 10),
    )


def digits(cache: str | None):
    """The digits split of overhead.py; cached in the parent's ``cache`` directory as a .pt
    file so that only the first process pays for importing scikit-learn."""
    import torch

    path = os.path.join(cache, "digits.pt") if cache else None
    if path and os.path.exists(path):
        return torch.load(path, weights_only=True)
    from trainwell.recipes.digits import load_digits_tensors

    data = load_digits_tensors(0.2, seed=0)
    if path:
        torch.save(data, path + f".{os.getpid()}.tmp")
        os.replace(path + f".{os.getpid()}.tmp", path)
    return data


def timed(runner, work) -> float:
    """Wall seconds of one whole run (setup, training, validation), in a fresh directory."""
    work.tmp = tempfile.mkdtemp(prefix="tw-peers-")
    try:
        start = time.perf_counter()
        runner(work)
        return time.perf_counter() - start
    finally:
        shutil.rmtree(work.tmp, ignore_errors=True)


def pairs(args, reference, contender):
    """(reference, contender) results over ``args.inner`` rounds, in ABBA order."""
    ref_out, run_out = [], []
    for i in range(args.inner):
        if (args.repeat + i) % 2 == 0:
            ref_out.append(reference())
            run_out.append(contender())
        else:
            run_out.append(contender())
            ref_out.append(reference())
    return ref_out, run_out


# --------------------------------------------------------------------------- workloads


def workload_mlp(args) -> dict:
    """The digits MLP, whole runs of ``--epochs`` epochs (setup + training + validation per
    epoch): the framework's own overhead on the smallest step."""
    from peers_contenders import RUNNERS, Work
    from torch import nn

    train, val = digits(args.cache)
    info: dict = {}

    def work(epochs: int) -> Work:
        return Work(
            make_model=digits_mlp,
            train=train,
            val=val,
            loss=nn.CrossEntropyLoss(),
            batch=64,
            epochs=epochs,
            lr=3e-3,
            weight_decay=0.01,
            min_lr_ratio=0.01,
            info=info,
        )

    ref, run = RUNNERS["hand"], RUNNERS[args.contender]
    timed(ref, work(1))  # warm-up: first-call costs (lazy imports, allocator, caches)
    timed(run, work(1))
    ref_s, run_s = pairs(
        args, lambda: timed(ref, work(args.epochs)), lambda: timed(run, work(args.epochs))
    )
    steps = work(args.epochs).total_steps
    return {"steps": steps, "ref_s": ref_s, "run_s": run_s, "info": info}


def charlm_setup(args):
    from peers_contenders import Work

    from trainwell.recipes.charlm import (
        CharGPT,
        load_stdlib_text,
        make_data,
        sequence_cross_entropy,
    )

    (train, _val, vocab) = make_data(load_stdlib_text(args.max_chars), args.block, 0.1)
    steps = args.warm_steps + args.steps

    def make_model():
        return CharGPT(len(vocab), args.block, args.n_layer, args.n_head, args.n_embd, 0.0)

    def work(compiled: bool, on_step=None, info=None) -> Work:
        w = Work(
            make_model=make_model,
            train=train,
            val=None,
            loss=sequence_cross_entropy,
            batch=args.batch,
            epochs=1,
            lr=3e-3,
            weight_decay=0.1,
            betas=(0.9, 0.99),
            min_lr_ratio=0.1,
            max_steps=steps,
            compile=compiled,
            on_step=on_step,
            info=info if info is not None else {},
        )
        w.epochs = -(-steps // w.steps_per_epoch)
        return w

    return work, make_model


def workload_charlm(args, compiled: bool) -> dict:
    """The charlm GPT: tokens/s from the median time of the ``--steps`` steps after
    ``--warm-steps`` (steady state: set-up and, compiled, the compilation are outside the
    window), and from the window's mean."""
    from peers_contenders import RUNNERS

    work, _ = charlm_setup(args)
    info: dict = {}
    tokens = args.steps * args.batch * args.block

    def measure(runner):
        stamps: list[float] = []
        w = work(compiled, on_step=lambda: stamps.append(time.perf_counter()), info=info)
        start = time.perf_counter()
        timed(runner, w)
        first, last = args.warm_steps - 1, args.warm_steps + args.steps - 1
        steps = [b - a for a, b in zip(stamps[first:last], stamps[first + 1 : last + 1])]
        return {
            # the median step: robust to the moments a busy machine takes the core away
            "tokens_per_s": args.batch * args.block / statistics.median(steps),
            "tokens_per_s_mean": tokens / (stamps[last] - stamps[first]),  # the whole window
            "first_step_s": stamps[0] - start,
        }

    ref, run = RUNNERS["hand"], RUNNERS[args.contender]
    ref_out, run_out = pairs(args, lambda: measure(ref), lambda: measure(run))
    return {
        "tokens": tokens,
        "ref_tokens_per_s": [r["tokens_per_s"] for r in ref_out],
        "run_tokens_per_s": [r["tokens_per_s"] for r in run_out],
        "ref_tokens_per_s_mean": [r["tokens_per_s_mean"] for r in ref_out],
        "run_tokens_per_s_mean": [r["tokens_per_s_mean"] for r in run_out],
        "ref_first_step_s": [r["first_step_s"] for r in ref_out],
        "run_first_step_s": [r["first_step_s"] for r in run_out],
        "info": info,
    }


def workload_startup(args) -> dict:
    """Process start to the end of the first optimizer step: import torch and the framework,
    make the data and model, set up, one step. No in-process reference can exist here; the
    parent interleaves the processes instead."""
    import torch

    torch.set_num_threads(args.threads)
    t_torch = now()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu_torch = usage.ru_utime + usage.ru_stime
    from peers_contenders import RUNNERS, Work
    from torch import nn

    g = torch.Generator().manual_seed(0)  # digits-shaped data; its values do not matter here
    x, y = torch.randn(1437, 64, generator=g), torch.randint(0, 10, (1437,), generator=g)
    first: list[tuple[float, float]] = []

    def stamp() -> None:
        if not first:
            usage = resource.getrusage(resource.RUSAGE_SELF)
            first.append((now(), usage.ru_utime + usage.ru_stime))

    work = Work(
        make_model=digits_mlp,
        train=(x, y),
        val=None,
        loss=nn.CrossEntropyLoss(),
        batch=64,
        epochs=1,
        max_steps=1,
        lr=3e-3,
        weight_decay=0.01,
        on_step=stamp,
    )
    timed(RUNNERS[args.contender], work)
    spawn, (first_t, first_cpu) = args.spawn_t, first[0]
    return {
        "first_step_s": first_t - spawn,
        "first_step_cpu_s": first_cpu,  # user + system CPU seconds of this process until then
        "interpreter_s": T_TOP - spawn,
        "torch_import_s": t_torch - T_TOP,
        "framework_to_first_step_s": first_t - t_torch,
        "framework_to_first_step_cpu_s": first_cpu - cpu_torch,
        "info": work.info,
    }


def workload_checkpoint(args) -> dict:
    """Seconds the loop is blocked by one save of the charlm model + AdamW state, alternating
    with the hand save (torch.save + fsync) in the same process; the first pair is a warm-up."""
    import torch
    from peers_contenders import SAVERS, _adamw, hand_saver, lightning_checkpoint

    work, make_model = charlm_setup(args)
    directory = tempfile.mkdtemp(prefix="tw-peers-ckpt-")
    ref_dir, run_dir = os.path.join(directory, "ref"), os.path.join(directory, "run")
    os.makedirs(ref_dir)
    os.makedirs(run_dir)
    saves = args.saves + 1
    try:
        if args.contender == "lightning":  # its saves happen inside Trainer.fit, between steps
            w = work(False)
            w.tmp = run_dir
            run_s, ref_s = lightning_checkpoint(w, saves, ref_dir)
        else:
            torch.manual_seed(0)
            model = make_model()
            optimizer = _adamw(model, work(False))
            x, y = work(False).train
            loss = torch.nn.functional.cross_entropy(model(x[:32]).flatten(0, 1), y[:32].flatten())
            loss.backward()
            optimizer.step()  # the optimizer's state exists
            ref = hand_saver(model, optimizer, ref_dir)
            run = SAVERS[args.contender](model, optimizer, run_dir)
            ref_s, run_s = [], []
            for k in range(saves):
                if (args.repeat + k) % 2 == 0:
                    ref_s.append(ref(k))
                    run_s.append(run(k))
                else:
                    run_s.append(run(k))
                    ref_s.append(ref(k))
            if hasattr(run, "close"):
                run.close()
        size = os.path.getsize(os.path.join(ref_dir, "hand-0.pt"))
    finally:
        shutil.rmtree(directory, ignore_errors=True)
    return {"ref_s": ref_s[1:], "run_s": run_s[1:], "bytes": size, "info": {}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contender", required=True)
    parser.add_argument(
        "--workload",
        required=True,
        choices=["mlp", "charlm", "charlm-compiled", "startup", "checkpoint"],
    )
    parser.add_argument("--cache", default=None, help="a directory for the digits data")
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    parser.add_argument("--repeat", type=int, default=0, help="the parent's repeat (ABBA order)")
    parser.add_argument("--inner", type=int, default=2, help="paired rounds in this process")
    parser.add_argument("--spawn-t", type=float, default=None, help="parent's CLOCK_MONOTONIC")
    parser.add_argument("--epochs", type=int, default=10, help="mlp: epochs per run")
    parser.add_argument("--steps", type=int, default=60, help="charlm: measured steps")
    parser.add_argument("--warm-steps", type=int, default=10, help="charlm: steps before them")
    parser.add_argument("--saves", type=int, default=5, help="checkpoint: saves per contender")
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--block", type=int, default=64)
    parser.add_argument("--n-layer", type=int, default=2)
    parser.add_argument("--n-head", type=int, default=4)
    parser.add_argument("--n-embd", type=int, default=128)
    parser.add_argument("--max-chars", type=int, default=300_000)
    args = parser.parse_args()
    if args.workload == "startup":
        result = workload_startup(args)
    else:
        import torch

        torch.set_num_threads(args.threads)
        if args.workload == "mlp":
            result = workload_mlp(args)
        elif args.workload.startswith("charlm"):
            result = workload_charlm(args, compiled=args.workload == "charlm-compiled")
        else:
            result = workload_checkpoint(args)
    import torch

    result["threads_after"] = torch.get_num_threads()
    print(RESULT_TAG + json.dumps(result), flush=True)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
