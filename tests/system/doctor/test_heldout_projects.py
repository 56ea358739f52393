"""The doctor on the held-out corpora checked as projects (heldout9 to heldout176).

Each of these corpora stores, beside its scored scripts, the modules of the same repository
that they import (``context/``), so ``real/score.py --projects`` checks every script inside
its repository as its users run the doctor. Each corpus was labelled and committed before the
doctor first ran on it; its README gives that first run (the held-out figure) and what the
cases it showed changed. The floors below are the figures after those changes, rounded down:
they must not fall. Where a corpus keeps few labels at 2.6 (heldout12: 4), one script moves
its 2.6 figures by a large step. The scripts themselves are third-party code kept outside the
repository, in the corpus store (``real/README.md``, "Where the scripts are"): a corpus the
store does not hold on this machine is skipped, with the reason.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from tests.system.doctor.store import score, skip_unless_stored

HERE = Path(__file__).resolve().parent
SCORE = HERE / "real" / "score.py"

# corpus: (scripts, {target: (precision floor, recall floor)}), the figures after its round
FLOORS: dict[str, tuple[int, dict[str, tuple[float, float]]]] = {
    "heldout9": (46, {"2.5": (0.97, 0.84), "2.6": (0.90, 0.58)}),
    "heldout10": (45, {"2.5": (0.99, 0.96), "2.6": (0.99, 0.87)}),
    "heldout11": (49, {"2.5": (0.99, 0.84), "2.6": (0.99, 0.66)}),
    "heldout12": (49, {"2.5": (0.99, 0.97), "2.6": (0.99, 0.75)}),
    "heldout13": (48, {"2.5": (0.98, 0.84), "2.6": (0.92, 0.65)}),
    # (0.97: TALENT's num_enc_process, reached since package-root imports resolve, runs
    # an encoder of an unseen class on NumPy data; its name says model, it has no weights)
    "heldout14": (45, {"2.5": (0.97, 0.97), "2.6": (0.94, 0.94)}),
    "heldout15": (44, {"2.5": (0.98, 0.77), "2.6": (0.91, 0.44)}),
    "heldout16": (46, {"2.5": (0.98, 0.93), "2.6": (0.93, 0.73)}),
    "heldout17": (44, {"2.5": (0.99, 0.78), "2.6": (0.99, 0.50)}),
    "heldout18": (25, {"2.5": (0.96, 0.82), "2.6": (0.88, 0.61)}),
    "heldout19": (40, {"2.5": (0.99, 0.97), "2.6": (0.99, 0.92)}),
    "heldout20": (26, {"2.5": (0.99, 0.92), "2.6": (0.99, 0.88)}),
    "heldout21": (47, {"2.5": (0.99, 0.93), "2.6": (0.99, 0.62)}),
    "heldout22": (42, {"2.5": (0.95, 0.95), "2.6": (0.81, 0.81)}),
    "heldout23": (43, {"2.5": (0.93, 0.85), "2.6": (0.81, 0.64)}),
    # (0.96: core/pretrain.py is read since a package folder without __init__.py stands for
    # its module; eval_src() is then said at main.py's call, where its label is at the helper)
    "heldout24": (44, {"2.5": (0.96, 0.89), "2.6": (0.92, 0.80)}),
    "heldout25": (21, {"2.5": (0.99, 0.93), "2.6": (0.99, 0.75)}),
    "heldout26": (40, {"2.5": (0.97, 0.94), "2.6": (0.90, 0.81)}),
    "heldout27": (40, {"2.5": (0.99, 0.84), "2.6": (0.99, 0.60)}),
    "heldout28": (42, {"2.5": (0.99, 0.90), "2.6": (0.99, 0.76)}),
    "heldout29": (20, {"2.5": (0.99, 0.82), "2.6": (0.99, 0.20)}),
    "heldout30": (35, {"2.5": (0.97, 0.85), "2.6": (0.90, 0.56)}),
    "heldout31": (18, {"2.5": (0.99, 0.90), "2.6": (0.99, 0.83)}),
    "heldout32": (36, {"2.5": (0.94, 0.91), "2.6": (0.93, 0.82)}),
    "heldout33": (46, {"2.5": (0.97, 0.90), "2.6": (0.91, 0.75)}),
    "heldout34": (44, {"2.5": (0.98, 0.87), "2.6": (0.95, 0.71)}),
    "heldout35": (45, {"2.5": (0.96, 0.81), "2.6": (0.93, 0.70)}),
    "heldout36": (42, {"2.5": (0.97, 0.78), "2.6": (0.88, 0.44)}),
    "heldout37": (42, {"2.5": (0.93, 0.85), "2.6": (0.75, 0.56)}),
    "heldout38": (39, {"2.5": (0.97, 0.87), "2.6": (0.90, 0.64)}),
    "heldout39": (43, {"2.5": (0.97, 0.90), "2.6": (0.85, 0.60)}),
    "heldout40": (39, {"2.5": (0.99, 0.84), "2.6": (0.99, 0.62)}),
    "heldout41": (36, {"2.5": (0.99, 0.94), "2.6": (0.99, 0.84)}),
    "heldout42": (35, {"2.5": (0.96, 0.92), "2.6": (0.75, 0.60)}),
    "heldout43": (38, {"2.5": (0.99, 0.96), "2.6": (0.99, 0.88)}),
    "heldout44": (40, {"2.5": (0.99, 0.91), "2.6": (0.99, 0.82)}),
    "heldout45": (37, {"2.5": (0.99, 0.88), "2.6": (0.99, 0.81)}),
    # (0.76 / 0.60 since round 15: its labels count the test call in each arm of an if
    # apart, where the convention settled in round 14 and the doctor count one evaluation)
    "heldout46": (24, {"2.5": (0.99, 0.76), "2.6": (0.99, 0.60)}),
    "heldout47": (33, {"2.5": (0.99, 0.96), "2.6": (0.99, 0.92)}),
    # (0.81: glow's `graph` comes out of a builder's dict, so its forward(reverse=True),
    # which samples under no_grad, is not known; AutoAttack's helper is called only by a
    # method another file runs under no_grad)
    "heldout48": (33, {"2.5": (0.81, 0.61), "2.6": (0.72, 0.50)}),
    "heldout49": (34, {"2.5": (0.99, 0.83), "2.6": (0.99, 0.60)}),
    # (0.97: TDAN's align_gen, which nothing calls, is labelled nowhere by this corpus's
    # never-called convention; earlier corpora label such helpers)
    "heldout50": (35, {"2.5": (0.97, 0.97), "2.6": (0.93, 0.93)}),
    # (0.86: AutoGAN's and sylvester-flows' grad-mode evaluations are labelled at the forward
    # inside their scored helper; each script checked alone has them said at its calls)
    "heldout51": (33, {"2.5": (0.86, 0.88), "2.6": (0.81, 0.84)}),
    # (0.90: space_time_pde's evaluation needs autograd for its physics residual, a
    # judgement call this corpus leaves unlabelled)
    "heldout52": (32, {"2.5": (0.90, 0.95), "2.6": (0.75, 0.85)}),
    "heldout53": (30, {"2.5": (0.99, 0.97), "2.6": (0.99, 0.94)}),
    # (0.80 / 0.30: fsgan's losses summed by a logger's meters two calls deep, a notebook
    # that alone calls tiramisu's test helpers, elektronn3's optional SWA and trace paths)
    "heldout54": (31, {"2.5": (0.99, 0.80), "2.6": (0.99, 0.30)}),
    # (0.97: one sampling region labelled at the forward every mode reaches, said at the
    # first forward; 0.88: measurement and sanity-check forwards, an RL rollout)
    "heldout55": (39, {"2.5": (0.97, 0.88), "2.6": (0.95, 0.76)}),
    # (0.81 / 0.50: Ray actors' evaluations under their callers' no_grad, branch-per-forward
    # labels, a helper called only from an unscored file)
    "heldout56": (26, {"2.5": (0.99, 0.81), "2.6": (0.99, 0.50)}),
    # (0.87 / 0.50: losses kept by meters and a loss dict of other files, a train=True
    # default on an evaluation path)
    "heldout58": (33, {"2.5": (0.99, 0.87), "2.6": (0.99, 0.50)}),
    # (0.87 / 0.81: an ExponentialLR(gamma=0.99) stepped per batch the labels call unknown
    # units, an encoder and a decoder of one VAE labelled as one model; 0.91 / 0.88:
    # generators written as functions over raw tensors)
    "heldout59": (32, {"2.5": (0.87, 0.91), "2.6": (0.81, 0.88)}),
    "heldout60": (29, {"2.5": (0.99, 0.99), "2.6": (0.99, 0.99)}),
    # (0.96 / 0.80: a loss list copied into a dict of another method's outputs)
    "heldout57": (31, {"2.5": (0.99, 0.96), "2.6": (0.99, 0.80)}),
    # (0.92 / 0.80: a TTS model's inference() method whose submodules are out of sight)
    "heldout61": (34, {"2.5": (0.99, 0.92), "2.6": (0.99, 0.80)}),
    "heldout62": (35, {"2.5": (0.99, 0.96), "2.6": (0.99, 0.88)}),
    # (0.53 / 0.25: RL agents whose act() or predict() runs the policy two or three files
    # away, a framework's abstract methods implemented elsewhere)
    "heldout63": (34, {"2.5": (0.95, 0.53), "2.6": (0.87, 0.25)}),
    # (0.90 / 0.77: phase functions said at the evaluation's call where the labels put the
    # forward, apex's backward arm counted first, milestones=[300, 600] read as epochs;
    # 0.76 / 0.53: helpers called only from other files, model_forward() of an unseen class)
    "heldout64": (31, {"2.5": (0.90, 0.76), "2.6": (0.77, 0.53)}),
    # (0.81 / 0.37: a summariser's prediction path through tuples of encoder states, a
    # dict of loss terms summed for logging, gradients accumulated by hand in a dict)
    "heldout65": (35, {"2.5": (0.99, 0.81), "2.6": (0.99, 0.37)}),
    # (0.92 / 0.71: helpers shared by training and evaluation said at the evaluation's call
    # where the labels put their forward, a second metric summed beside the loss; 0.88 /
    # 0.62: loss averages summed from a discriminator's outputs)
    "heldout66": (35, {"2.5": (0.92, 0.88), "2.6": (0.71, 0.62)}),
    # (0.63 / 0.32: a library's RL loops (MushroomRL), a model's inference methods only
    # other files call, methods picked by getattr(); 0.96 / 0.88: a VAE's own
    # reconstruct_img() said at its call where the label puts the forward)
    "heldout67": (33, {"2.5": (0.96, 0.63), "2.6": (0.88, 0.32)}),
    # (0.83 / 0.70: a training function a parameter switches off, a library's Lightning
    # callbacks and solvers)
    "heldout68": (37, {"2.5": (0.99, 0.83), "2.6": (0.99, 0.70)}),
    # (0.65 / 0.30: helpers run only by other files of their project (a trainer's validate(),
    # an evaluator's methods), a model handed to a test function under a name the analysis
    # does not take for a model)
    "heldout69": (26, {"2.5": (0.99, 0.65), "2.6": (0.99, 0.30)}),
    # (0.94 / 0.85: an evaluation helper's forward said at a module-level call where the
    # label puts it at the helper's call)
    "heldout70": (21, {"2.5": (0.94, 0.99), "2.6": (0.85, 0.99)}),
    # (0.68 / 0.44: policies run inside Ray actors and cross-file action selectors, a
    # network's methods run only by another file)
    "heldout71": (34, {"2.5": (0.99, 0.68), "2.6": (0.99, 0.44)}),
    # (0.92 / 0.79: a MAML meta-batch summed without dividing, an evaluation said at the
    # second of two calls; 0.86 / 0.66: helpers run only by other files of their project)
    "heldout72": (28, {"2.5": (0.92, 0.86), "2.6": (0.79, 0.66)}),
    # (0.94 / 0.49: a scheduler stepped by a library's callback registered on an event, the
    # label at the registration; 2 labels at 2.6)
    "heldout73": (17, {"2.5": (0.99, 0.94), "2.6": (0.99, 0.49)}),
    # (0.83 / 0.79: an evaluator's methods run, through in-file public methods, only by
    # another file under no_grad; a score tensor detached in place on the object)
    "heldout75": (15, {"2.5": (0.83, 0.90), "2.6": (0.79, 0.88)}),
    "heldout76": (18, {"2.5": (0.99, 0.99), "2.6": (0.99, 0.99)}),
    "heldout74": (25, {"2.5": (0.99, 0.96), "2.6": (0.99, 0.93)}),
    # (0.72 / 0.52: helpers of other files reached through objects and callables, a
    # Lightning module's step outputs kept in a list attribute)
    "heldout77": (28, {"2.5": (0.99, 0.72), "2.6": (0.99, 0.52)}),
    # (0.78 / 0.63: evaluation helpers passed in as arguments or run through a callable)
    "heldout78": (28, {"2.5": (0.97, 0.78), "2.6": (0.95, 0.63)}),
    # (0.92 / 0.70: test-time fine-tuning forwards after eval(), unlabelled by the MAML
    # precedent, one of them since round 31 said at main.py's call of the fine-tuning
    # function of another file; 8 labels at 2.6)
    "heldout79": (31, {"2.5": (0.92, 0.97), "2.6": (0.70, 0.87)}),
    # (0.87 / 0.70: two helpers of another file on one model in one evaluation region
    # reported twice, where the label counts one)
    "heldout80": (26, {"2.5": (0.94, 0.84), "2.6": (0.87, 0.70)}),
    "heldout81": (17, {"2.5": (0.99, 0.85), "2.6": (0.99, 0.72)}),
    "heldout82": (15, {"2.5": (0.93, 0.93), "2.6": (0.83, 0.83)}),
    "heldout83": (14, {"2.5": (0.99, 0.96), "2.6": (0.99, 0.93)}),
    "heldout84": (17, {"2.5": (0.80, 0.85), "2.6": (0.62, 0.71)}),
    "heldout85": (18, {"2.5": (0.99, 0.99), "2.6": (0.99, 0.99)}),
    "heldout86": (25, {"2.5": (0.99, 0.91), "2.6": (0.99, 0.71)}),
    "heldout87": (17, {"2.5": (0.94, 0.90), "2.6": (0.90, 0.83)}),
    "heldout88": (29, {"2.5": (0.90, 0.85), "2.6": (0.66, 0.57)}),
    "heldout89": (18, {"2.5": (0.99, 0.99), "2.6": (0.99, 0.99)}),
    # (0.96 / 0.93: test() and predictions() of another file on one model in one epoch,
    # labelled as one evaluation; heldout33/37/67 label such pairs as two)
    "heldout90": (17, {"2.5": (0.96, 0.99), "2.6": (0.93, 0.99)}),
    "heldout91": (25, {"2.5": (0.99, 0.87), "2.6": (0.99, 0.82)}),
    "heldout92": (29, {"2.5": (0.99, 0.91), "2.6": (0.99, 0.76)}),
    "heldout93": (19, {"2.5": (0.99, 0.89), "2.6": (0.99, 0.69)}),
    "heldout94": (20, {"2.5": (0.99, 0.96), "2.6": (0.99, 0.99)}),
    "heldout95": (27, {"2.5": (0.94, 0.91), "2.6": (0.80, 0.72)}),
    # (2.6 keeps 10 labels, 9 of them misses: robotics code whose inference runs in other
    # processes, through a trainer's volatile switch or a replay buffer's re-encoding)
    "heldout96": (24, {"2.5": (0.84, 0.64), "2.6": (0.25, 0.10)}),
    "heldout97": (21, {"2.5": (0.99, 0.94), "2.6": (0.99, 0.83)}),
    "heldout98": (15, {"2.5": (0.99, 0.86), "2.6": (0.99, 0.78)}),
    "heldout99": (20, {"2.5": (0.99, 0.99), "2.6": (0.99, 0.99)}),
    "heldout100": (19, {"2.5": (0.99, 0.99), "2.6": (0.99, 0.99)}),
    "heldout101": (21, {"2.5": (0.99, 0.99), "2.6": (0.99, 0.99)}),
    "heldout102": (26, {"2.5": (0.97, 0.94), "2.6": (0.87, 0.77)}),
    # (TRPO's line search and diagnostics after the update: the labeller counts them as the
    # update's, four false findings)
    "heldout103": (17, {"2.5": (0.75, 0.85), "2.6": (0.69, 0.81)}),
    "heldout104": (17, {"2.5": (0.99, 0.97), "2.6": (0.99, 0.96)}),
    "heldout105": (10, {"2.5": (0.83, 0.62), "2.6": (0.80, 0.57)}),
    # (2.6 keeps 8 labels; the 4 misses are judgement calls its README lists)
    "heldout106": (25, {"2.5": (0.99, 0.87), "2.6": (0.99, 0.50)}),
    "heldout107": (17, {"2.5": (0.99, 0.99), "2.6": (0.99, 0.99)}),
    "heldout108": (17, {"2.5": (0.99, 0.99), "2.6": (0.99, 0.99)}),
    "heldout109": (19, {"2.5": (0.99, 0.82), "2.6": (0.99, 0.71)}),
    "heldout110": (20, {"2.5": (0.94, 0.85), "2.6": (0.66, 0.40)}),
    "heldout111": (21, {"2.5": (0.99, 0.99), "2.6": (0.99, 0.99)}),
    "heldout112": (17, {"2.5": (0.99, 0.94), "2.6": (0.99, 0.88)}),
    "heldout113": (13, {"2.5": (0.99, 0.93), "2.6": (0.99, 0.90)}),
    "heldout114": (17, {"2.5": (0.99, 0.64), "2.6": (0.99, 0.53)}),
    "heldout115": (20, {"2.5": (0.99, 0.82), "2.6": (0.99, 0.40)}),
    "heldout116": (17, {"2.5": (0.99, 0.80), "2.6": (0.99, 0.50)}),
    "heldout117": (18, {"2.5": (0.99, 0.75), "2.6": (0.99, 0.50)}),
    "heldout118": (17, {"2.5": (0.99, 0.80), "2.6": (0.99, 0.63)}),
    "heldout119": (17, {"2.5": (0.92, 0.81), "2.6": (0.88, 0.72)}),
    "heldout120": (11, {"2.5": (0.99, 0.83), "2.6": (0.99, 0.81)}),
    "heldout121": (10, {"2.5": (0.99, 0.93), "2.6": (0.99, 0.91)}),
    "heldout122": (19, {"2.5": (0.99, 0.77), "2.6": (0.99, 0.33)}),
    "heldout123": (18, {"2.5": (0.99, 0.84), "2.6": (0.99, 0.50)}),
    "heldout124": (4, {"2.5": (0.99, 0.62), "2.6": (0.99, 0.50)}),
    "heldout125": (10, {"2.5": (0.99, 0.99), "2.6": (0.99, 0.99)}),
    "heldout126": (12, {"2.5": (0.99, 0.88), "2.6": (0.99, 0.50)}),
    "heldout127": (9, {"2.5": (0.99, 0.75), "2.6": (0.99, 0.50)}),
    "heldout128": (12, {"2.5": (0.99, 0.83), "2.6": (0.99, 0.66)}),
    "heldout129": (13, {"2.5": (0.99, 0.99), "2.6": (0.99, 0.99)}),
    "heldout130": (12, {"2.5": (0.99, 0.83), "2.6": (0.99, 0.60)}),
    "heldout131": (16, {"2.5": (0.99, 0.89), "2.6": (0.99, 0.75)}),
    "heldout132": (17, {"2.5": (0.99, 0.66), "2.6": (0.99, 0.25)}),
    "heldout133": (15, {"2.5": (0.99, 0.90), "2.6": (0.99, 0.75)}),
    "heldout134": (9, {"2.5": (0.99, 0.83), "2.6": (0.99, 0.66)}),
    "heldout135": (22, {"2.5": (0.99, 0.52), "2.6": (0.99, 0.40)}),
    "heldout136": (23, {"2.5": (0.99, 0.81), "2.6": (0.99, 0.50)}),
    # (2.5 only: at 2.6 its two labels are missed and nothing is found, no precision)
    "heldout137": (16, {"2.5": (0.99, 0.85)}),
    "heldout138": (18, {"2.5": (0.99, 0.99), "2.6": (0.99, 0.99)}),
    "heldout139": (21, {"2.5": (0.99, 0.99), "2.6": (0.99, 0.99)}),
    "heldout140": (23, {"2.5": (0.94, 0.72), "2.6": (0.90, 0.58)}),
    "heldout141": (24, {"2.5": (0.99, 0.83), "2.6": (0.99, 0.64)}),
    "heldout142": (15, {"2.5": (0.99, 0.99), "2.6": (0.99, 0.99)}),
    "heldout143": (12, {"2.5": (0.99, 0.95), "2.6": (0.99, 0.90)}),
    "heldout144": (15, {"2.5": (0.99, 0.83), "2.6": (0.99, 0.71)}),
    # (round 30; 0.60 / 0.46: rollout and test-episode forwards of an agent's policy_old
    # and acting helpers whose inference the labels count, omnisafe's learners run by
    # other files; 0.92: open_spiel's DQN target forward)
    "heldout145": (26, {"2.5": (0.92, 0.60), "2.6": (0.87, 0.46)}),
    # (0.82 / 0.66: tner's evaluation through methods of its own model class, labelled at
    # other lines than the doctor's; ABSA's _predict implemented in other files' subclasses)
    "heldout146": (18, {"2.5": (0.82, 0.66), "2.6": (0.66, 0.46)}),
    "heldout147": (22, {"2.5": (0.99, 0.83), "2.6": (0.99, 0.60)}),
    "heldout148": (27, {"2.5": (0.99, 0.83), "2.6": (0.99, 0.44)}),
    "heldout149": (18, {"2.5": (0.99, 0.80), "2.6": (0.99, 0.68)}),
    "heldout150": (21, {"2.5": (0.99, 0.67), "2.6": (0.99, 0.43)}),
    "heldout151": (25, {"2.5": (0.97, 0.95), "2.6": (0.96, 0.92)}),
    # (2.5 only: at 2.6 its eight labels are missed and nothing is found, no precision)
    "heldout152": (27, {"2.5": (0.99, 0.75)}),
    # (round 31; 0.50 at 2.6: of its 2 labels, LPIPS evaluated through trainer.forward handed
    # to a scoring function of another file is missed)
    "heldout153": (21, {"2.5": (0.99, 0.93), "2.6": (0.99, 0.50)}),
    "heldout154": (21, {"2.5": (0.99, 0.82), "2.6": (0.99, 0.71)}),
    "heldout155": (21, {"2.5": (0.99, 0.99), "2.6": (0.99, 0.99)}),
    # (0.71: stable-ssl's schedulers stepped without a metric, labelled in case one is
    # ReduceLROnPlateau)
    "heldout156": (19, {"2.5": (0.99, 0.71), "2.6": (0.99, 0.71)}),
    # (0.92 / 0.75 recall: a volatile=True evaluation of torch 0.3; ChatRWKV's forward,
    # behind a sys.path entry and wholly under no_grad, is understood since round 32)
    "heldout157": (18, {"2.5": (0.99, 0.92), "2.6": (0.99, 0.75)}),
    "heldout158": (23, {"2.5": (0.93, 0.96), "2.6": (0.83, 0.90)}),
    "heldout159": (20, {"2.5": (0.99, 0.99), "2.6": (0.99, 0.99)}),
    # (0.90 / 0.75, 0.66 / 0.40: few-shot test loops through a model method of another
    # file, La-MAML's evaluation said at the caller where the label is at the forward)
    "heldout160": (28, {"2.5": (0.90, 0.75), "2.6": (0.66, 0.40)}),
    # (round 32; 0.94 / 0.81: a forward after the update for a KL early stop through a
    # method of another file, a rollout generator, GAE values the corpus counts as targets)
    "heldout161": (27, {"2.5": (0.94, 0.81), "2.6": (0.87, 0.63)}),
    "heldout162": (24, {"2.5": (0.99, 0.99), "2.6": (0.99, 0.99)}),
    "heldout163": (21, {"2.5": (0.99, 0.88), "2.6": (0.99, 0.75)}),
    "heldout164": (22, {"2.5": (0.99, 0.99), "2.6": (0.99, 0.99)}),
    # (0.77 / 0.60 precision: Fedot's predict helpers, reached from public predict methods
    # nothing in the corpus calls, which the corpus leaves unlabelled)
    "heldout165": (17, {"2.5": (0.77, 0.87), "2.6": (0.60, 0.75)}),
    "heldout166": (19, {"2.5": (0.99, 0.75), "2.6": (0.99, 0.50)}),
    "heldout167": (21, {"2.5": (0.94, 0.94), "2.6": (0.83, 0.83)}),
    "heldout168": (23, {"2.5": (0.93, 0.93), "2.6": (0.83, 0.83)}),
    # (round 33)
    "heldout169": (23, {"2.5": (0.99, 0.99), "2.6": (0.99, 0.99)}),
    "heldout170": (28, {"2.5": (0.99, 0.99), "2.6": (0.99, 0.99)}),
    "heldout171": (22, {"2.5": (0.99, 0.99), "2.6": (0.99, 0.99)}),
    # (0.84 / 0.85: a default-free torch.load(**kwargs) and a logging helper's eval() of a
    # model method of another file)
    "heldout172": (20, {"2.5": (0.99, 0.84), "2.6": (0.99, 0.85)}),
    "heldout173": (23, {"2.5": (0.99, 0.99), "2.6": (0.99, 0.99)}),
    "heldout174": (24, {"2.5": (0.99, 0.99), "2.6": (0.99, 0.99)}),
    # (0.45 / 0.33: PINN libraries' monitors, solvers and post-processing run their networks
    # through their own APIs, which the doctor does not take for forwards)
    "heldout175": (18, {"2.5": (0.99, 0.45), "2.6": (0.99, 0.33)}),
    "heldout176": (18, {"2.5": (0.99, 0.90), "2.6": (0.99, 0.83)}),
}


@pytest.mark.slow
@pytest.mark.parametrize("corpus", sorted(FLOORS))
def test_heldout_corpus_checked_as_projects_stays_above_its_floors(
    corpus: str, tmp_path: Path
) -> None:
    skip_unless_stored(corpus)
    scripts, floors = FLOORS[corpus]
    out = tmp_path / f"{corpus}.json"
    args = ["--corpus", corpus, "--projects", "--quiet", "--json", str(out)]
    for target in floors:
        args += ["--target", target]
    done = subprocess.run(
        [sys.executable, str(SCORE), *args], capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    results = {r["target_torch"]: r for r in json.loads(out.read_text(encoding="utf-8"))}
    assert set(results) == set(floors)
    for target, (precision_floor, recall_floor) in floors.items():
        result = results[target]
        assert result["corpus"] == corpus and result["mode"] == "projects"
        assert result["scripts"] == scripts and not result["skipped_missing"]
        overall = result["overall"]
        assert overall["precision"] >= precision_floor, (target, overall, result["false_positives"])
        assert overall["recall"] >= recall_floor, (target, overall, result["false_negatives"])


def test_projects_are_laid_out_per_repository_and_commit(tmp_path: Path) -> None:
    # two versions of one repository stay apart; a scored script wins over a context copy
    corpus = tmp_path / "corpus"
    (corpus / "files").mkdir(parents=True)
    (corpus / "context" / "o__r" / "lib").mkdir(parents=True)
    (corpus / "files" / "a.py").write_text("A = 1\n")
    (corpus / "files" / "b.py").write_text("B = 2\n")
    (corpus / "files" / "c.py").write_text("import lib.util\n")
    (corpus / "context" / "o__r" / "lib" / "util.py").write_text("U = 3\n")
    (corpus / "context" / "o__r" / "train.py").write_text("stale = True\n")
    entry = {"repo": "o/r", "stored": True}
    manifest = [
        {**entry, "id": "a", "commit": "1" * 40, "path": "train.py", "file": "a.py"},
        {**entry, "id": "b", "commit": "2" * 40, "path": "train.py", "file": "b.py"},
        {
            **entry,
            "id": "c",
            "commit": "1" * 40,
            "path": "main.py",
            "file": "c.py",
            "context": ["lib/util.py", "train.py"],
        },
    ]
    placed = score.lay_out_projects(manifest, corpus, tmp_path / "out")
    assert placed["a"].read_text() == "A = 1\n" and placed["b"].read_text() == "B = 2\n"
    assert placed["a"].parent != placed["b"].parent
    assert placed["c"].parent == placed["a"].parent
    assert (placed["c"].parent / "lib" / "util.py").read_text() == "U = 3\n"
    assert (placed["a"].parent / "train.py").read_text() == "A = 1\n"
