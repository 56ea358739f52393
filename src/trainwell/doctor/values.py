"""Abstract values tracked per name, and the tables that recognise PyTorch objects.

The analysis does not execute anything; it only needs to know *what kind of thing* a name
holds (an optimizer, a scheduler of some class, a loss tensor ...).  Everything unknown is
simply absent from the environment, which makes every rule fall silent.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from ._astutil import argument, dotted, keyword, last_part, names_in

OPTIMIZER = "optimizer"
SCHEDULER = "scheduler"
SCALER = "scaler"
MODEL = "model"
CRITERION = "criterion"
LOSS = "loss"
TENSOR = "tensor"
LOADER = "loader"
OUTPUT = "output"  # result of calling a model: may hold .loss / .logits
BATCH = "batch"  # a whole batch from a loader: type unknown (tuple, dict, BatchEncoding ...)
NUMBER = "number"  # python number / detached scalar (loss.item())
PARAMS = "params"  # model.parameters()
CLIPPER = "clipper"  # trainwell.Clipping(...): calling it clips gradients like clip_grad_norm_
OBJECT = "object"  # an instance of a plain class of this file (an agent, a trainer, a solver)
FUNCTION = "function"  # a function or bound method passed as a value (``agent.get_action``)

# Flags carried by values.
SOFTMAX = "softmax"  # probabilities
LOG_SOFTMAX = "log_softmax"  # log-probabilities
# a model whose methods take input gradients (torch.autograd.grad): a Hamiltonian net's
# time_derivative(), a PINN's residual; its inference needs autograd on
NEEDS_GRAD = "needs_grad"
SCALED = "scaled"  # loss divided / multiplied by something
UNSCALED = "unscaled"  # loss known to come straight from a criterion
WEIGHTED = "weighted"  # loss multiplied by a literal number: a term's weight in a sum
AMP = "amp"  # loss wrapped by scaler.scale(...)
EPOCH_BASED = "epoch_based"  # scheduler configured in epochs
PER_STEP = "per_step"  # scheduler configured in optimizer steps
FROM_LOADER = "from_loader"  # tensor unpacked from a DataLoader batch
FP16 = "fp16"  # a trainwell.Precision known to scale the loss (mode "fp16"): a GradScaler
NO_GRAPH = "no_graph"  # a model's output computed under torch.no_grad(): no graph to keep
SUBMODULE = "submodule"  # an element of an nn.ModuleList / Sequential / ModuleDict
WEIGHTLESS = "weightless"  # an nn.Sequential of layers without weights (feature transforms)
ENUMERATED = "enumerated"  # loader wrapped in enumerate(): yields (index, batch)
NO_GRAD_WHEN = "no_grad_when:"  # a model flag: the parameter and literal (repr) with which
# its forward() turns autograd off itself (``forward(batch, is_eval=True)``)
OVER_INPUTS = "over_inputs"  # optimizer over plain tensors (an attack's delta, an image)
# a model every caller hands over in eval() (``teacher.eval(); train_kd(student, teacher)``)
EVAL_WHEN_PASSED = "eval_when_passed"
# a model whose call is a whole training step, forward, backward and the optimizer's step
# (Graphcore's ``poptorch.trainingModel(net, optimizer=opt)``)
TRAINS_ON_CALL = "trains_on_call"


@dataclass(frozen=True)
class Value:
    """What the analysis knows about the object bound to a name."""

    kind: str
    cls: str | None = None
    alias: str | None = None  # models: the underlying model name; optimizers: params' model
    flags: frozenset[str] = frozenset()
    node: ast.AST | None = field(default=None, compare=False)

    def plus(self, *flags: str) -> Value:
        return Value(self.kind, self.cls, self.alias, self.flags | set(flags), self.node)

    def minus(self, *flags: str) -> Value:
        return Value(self.kind, self.cls, self.alias, self.flags - set(flags), self.node)

    def as_kind(self, kind: str) -> Value:
        return Value(kind, self.cls, self.alias, self.flags, self.node)


def merge(a: Value | None, b: Value | None) -> Value | None:
    """Join of two branches: keep only what both agree on."""
    if a is None or b is None:
        return None
    if a == b:
        return a
    if a.kind == b.kind:  # vgg16(...) in one branch, resnet(...) in the other: a model
        cls = a.cls if a.cls == b.cls else _either_class(a, b)
        # (an attack in one branch, the identity in the other: input gradients may be taken)
        flags = (a.flags & b.flags) | ((a.flags | b.flags) & {NEEDS_GRAD})
        return Value(a.kind, cls, a.alias if a.alias == b.alias else None, flags)
    if {a.kind, b.kind} == {OUTPUT, TENSOR}:
        # y_pred = model(x), then in one arm y_pred = y_pred[:-k]: a tensor of the output
        return Value(TENSOR, flags=a.flags & b.flags)
    return None


CLASS_CHOICE = "|"  # ``PPO|SAC``: an object of one of these classes, chosen at run time


def _either_class(a: Value, b: Value) -> str | None:
    """``if algo == "ppo": agent = PPO(...) elif ...: agent = SAC(...)``: an agent of one of
    the classes. Only a method call reads it (:func:`class_choices`); everything that
    looks a class up by name finds none, as it found none before."""
    if a.kind not in {MODEL, OBJECT} or not a.cls or not b.cls:
        return None
    choices = dict.fromkeys([*class_choices(a.cls), *class_choices(b.cls)])
    return CLASS_CHOICE.join(choices)


def class_choices(cls: str | None) -> tuple[str, ...]:
    """The classes an object may be of: one, or those of branches that built it."""
    return tuple(cls.split(CLASS_CHOICE)) if cls else ()


def merge_binding(a: Value | None, b: Value | None) -> Value | None:
    """Join of two bindings of one name (two branches, two assignments of an attribute):
    as :func:`merge`, but a model on one side and something the analysis cannot tell on
    the other (``self.dnn = DNN()`` or ``self.dnn = torch.load(path).dnn``) is a model of
    no known class, and an object of a class of the file stays that object."""
    joined = merge(a, b)
    if joined is None and (a is None) != (b is None):
        known = a if a is not None else b
        if known is not None and known.kind == MODEL:
            # the class is unknown; a forward that turns autograd off itself still does, and
            # layers without weights (``self.augment = None`` unless augmenting) still are
            return Value(
                MODEL,
                flags=frozenset(
                    f for f in known.flags if f.startswith(NO_GRAD_WHEN) or f == WEIGHTLESS
                ),
            )
        if known is not None and known.kind == OBJECT and known.cls:
            return known  # if val_set: self.stopper = EarlyStopping(): the stopper, if any
    return joined


OPTIMIZER_CLASSES = {
    "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam", "RAdam",
    "LBFGS", "SparseAdam", "ASGD", "Rprop", "Adafactor", "Lion", "Lamb", "LAMB", "AdamW8bit",
    "Adam8bit", "PagedAdamW", "PagedAdamW8bit", "FusedAdam", "FusedLAMB", "Muon", "Shampoo",
    "ZeroRedundancyOptimizer",
}  # fmt: skip
EPOCH_SCHEDULERS = {
    "StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR", "CosineAnnealingWarmRestarts",
}  # fmt: skip
STEP_SCHEDULERS = {"OneCycleLR", "CyclicLR"}
OTHER_SCHEDULERS = {
    "LambdaLR", "MultiplicativeLR", "LinearLR", "ConstantLR", "PolynomialLR", "SequentialLR",
    "ChainedScheduler", "ReduceLROnPlateau",
}  # fmt: skip
SCHEDULER_CLASSES = EPOCH_SCHEDULERS | STEP_SCHEDULERS | OTHER_SCHEDULERS
WARMUP_SCHEDULE = re.compile(r"^get_\w*schedule\w*$")
TENSOR_FACTORIES = {
    "tensor", "randn", "rand", "zeros", "ones", "empty", "arange", "randint", "full",
    "from_numpy", "as_tensor", "stack", "cat", "linspace", "eye", "randn_like", "rand_like",
    "zeros_like", "ones_like", "full_like", "empty_like", "randperm", "normal",
}  # fmt: skip
# a project's own wrapper of the model (CustomDataParallel(model), CPUWrapperASR(model))
WRAPPER_CLASS = re.compile(r"DataParallel$|^[A-Z]\w*Wrapper")
MODEL_WRAPPERS = {
    "DataParallel", "DistributedDataParallel", "DDP", "FSDP", "FullyShardedDataParallel",
    "compile", "convert_sync_batchnorm",
}  # fmt: skip
FUNCTIONAL_LOSSES = {
    "cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "ctc_loss",
    "poisson_nll_loss", "gaussian_nll_loss", "margin_ranking_loss", "hinge_embedding_loss",
    "soft_margin_loss", "multilabel_soft_margin_loss", "cosine_embedding_loss",
    "triplet_margin_loss", "multi_margin_loss", "multilabel_margin_loss",
}  # fmt: skip
# Tensor methods that return a view/copy still attached to the autograd graph.
GRAPH_PRESERVING = {
    "mean", "sum", "float", "double", "half", "view", "reshape", "squeeze", "unsqueeze", "to",
    "cuda", "cpu", "clone", "contiguous", "permute", "transpose", "flatten", "view_as", "abs",
    "mul", "div", "add", "sub", "type", "t", "expand", "repeat", "masked_fill", "bfloat16",
}  # fmt: skip
# Tensor methods that only change the shape, dtype or device: softmax probabilities stay
# probabilities (``probs.view(1, -1)`` into CrossEntropyLoss is still softmax output).
SHAPE_METHODS = {
    "view", "reshape", "resize", "resize_", "squeeze", "unsqueeze", "view_as", "reshape_as",
    "flatten", "contiguous", "permute", "transpose", "t", "to", "cuda", "cpu", "float",
    "double", "half", "bfloat16", "type",
}  # fmt: skip
# Methods/functions that cut the graph or turn a tensor into a Python number.
GRAPH_CUTTING = {"item", "detach", "tolist", "numpy", "data", "detach_", "cpu_numpy"}
# layers without weights: run on data that carries no graph, they record none
PARAMETERLESS_LAYERS = {
    "Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d", "Identity", "Flatten",
    "Unflatten", "ReLU", "LeakyReLU", "GELU", "SiLU", "Tanh", "Sigmoid", "Softmax", "Softmax2d",
    "LogSoftmax", "Dropout", "Dropout2d", "MaxPool1d", "MaxPool2d", "MaxPool3d",
    "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3d", "AdaptiveMaxPool2d", "PixelShuffle", "PixelUnshuffle",
}  # fmt: skip
# torchaudio's and torchvision's transforms are modules without weights (a spectrogram, a
# normalisation): an nn.Sequential of them is a feature transform, not a model
TRANSFORM_MODULES = ("torchaudio.transforms.", "torchvision.transforms.")
# Other frameworks: what their calls return is not a torch module, however it is named
# (``net = cv2.dnn.readNet(...)``, ``model = tf.keras.models.load_model(...)``).
OTHER_FRAMEWORKS = frozenset({
    "tensorflow", "keras", "tf_keras", "jax", "flax", "haiku", "optax", "paddle", "mxnet",
    "cv2", "sklearn", "xgboost", "lightgbm", "catboost", "onnxruntime", "openvino", "tensorrt",
    "tflite_runtime", "caffe", "chainer", "theano", "lasagne", "mindspore", "oneflow",
    "megengine", "cntk", "dynet", "statsmodels",
})  # fmt: skip


def from_other_framework(qual: str | None) -> bool:
    """``cv2.dnn.readNet``, ``tensorflow.keras.Sequential``: a call of another framework."""
    return bool(qual) and qual.partition(".")[0] in OTHER_FRAMEWORKS


# Modules that only hold others: iterating over one yields its submodules.
MODULE_CONTAINERS = {"ModuleList", "Sequential", "ModuleDict"}
# Methods of nn.Module that return the module itself.
MODULE_SELF_METHODS = {
    "to", "cuda", "cpu", "half", "float", "double", "bfloat16", "train", "eval",
    "requires_grad_", "type", "to_empty", "apply", "share_memory",
}  # fmt: skip

_FACTORY = re.compile(
    r"(make|build|create|get|load|init|new|setup|prepare|construct|define|unwrap|wrap|save|restore|copy|clone|freeze|export|reset|update|sync|average|print|log)_",
    re.I,
)
_NAME_HEURISTICS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^(optimi[sz]er|optim|opt)(_?[a-z0-9]+)?$|optimi[sz]er$|_opt$", re.I), OPTIMIZER),
    (re.compile(r"^(lr_)?sched(uler)?(_?[a-z0-9]+)?$|_scheduler$", re.I), SCHEDULER),
    (re.compile(r"^(grad_|amp_)?scaler$"), SCALER),
    (
        re.compile(
            r"^(model|net|network|generator|discriminator|classifier|encoder|decoder|student"
            r"|teacher|backbone)(_?[a-z0-9]+)?$|_(model|net)$|^net[A-Z]\w*$"
            r"|^(policy|actor|critic)(_?(net|network|model|old|new|target|\d+))?$",
            re.I,
        ),
        MODEL,
    ),
    (
        re.compile(r"^(criterion|loss_fn|loss_func|loss_function|lossfn)(_?\w+)?$|_criterion$"),
        CRITERION,
    ),
    (re.compile(r"loader$|^dl$|_dl$|(data|batch)_?gen(erator)?$"), LOADER),  # steppy datagen
]


# trainwell's own parts, understood as the torch calls they replace: a Precision is a
# GradScaler (scaler.kind, its backward/step/unscale_ methods), a Clipping is clip_grad_norm_.
TRAINWELL_PRECISION = {
    "trainwell.Precision",
    "trainwell.parts.Precision",
    "trainwell.parts.precision.Precision",
    "trainwell.precision.Precision",  # its path before the sub-packages
}
TRAINWELL_CLIPPING = {
    "trainwell.Clipping",
    "trainwell.parts.Clipping",
    "trainwell.parts.clipping.Clipping",
    "trainwell.clipping.Clipping",  # its path before the sub-packages
}


def trainwell_precision(call: ast.Call) -> Value:
    """SCALER value for ``Precision(mode, device)``; FP16 when the mode is literally fp16."""
    mode = argument(call, 0, "mode")
    fp16 = isinstance(mode, ast.Constant) and mode.value == "fp16"
    return Value(SCALER, cls="Precision", flags=frozenset({FP16}) if fp16 else frozenset())


_METER_READINGS = {"avg", "global_avg", "val", "sum", "count"}


def meter_reading(attr: str) -> Value | None:
    """``meter.avg`` of an object the analysis cannot see: an average meter's number,
    whatever the name it is bound to (``cur_loss = current_log.avg``)."""
    return Value(NUMBER) if attr in _METER_READINGS else None


_ACTION_METHOD = re.compile(
    r"^(get|select|choose|compute|sample|take|pick|draw)_|^(act|predict|sample|policy_fn)$"
)


def names_a_function(node: ast.expr) -> bool:
    """``agent.get_action``, ``select_action``, ``lambda obs: ...``: a function handed over
    as a value (a policy's ``act``), not a model: calling it is code of its own, out of
    sight (it may well run under no_grad)."""
    if isinstance(node, ast.Lambda):
        return True
    return isinstance(node, (ast.Name, ast.Attribute)) and is_function_name(dotted(node))


def is_function_name(name: str | None) -> bool:
    """``agent.get_action``, ``select_action``: named as a function, not a model."""
    return bool(_ACTION_METHOD.search(last_part(name or "") or ""))


def value_from_name(name: str) -> Value | None:
    """Guess a value from a conventional variable name (used only for unbound names)."""
    base = last_part(name)
    if not base or base[0].isupper():
        return None  # CapWords are classes, not instances
    if _FACTORY.match(base):
        return None  # make_model, build_optimizer: what they return, not what they are
    for pattern, kind in _NAME_HEURISTICS:
        if pattern.search(base):
            if kind in {MODEL, OPTIMIZER, SCHEDULER} and _NOT_THE_OBJECT.search(base):
                return None  # model_fn, model_cls, optimizer_name: about one, not one
            return Value(kind)
    return None


_NOT_THE_OBJECT = re.compile(
    r"_(fn|fns|func|function|fun|cls|class|type|name|names|path|paths|dir|file|cfg|config|"
    r"conf|args|kwargs|params|parameters|state|state_dict|ckpt|checkpoint|kind|id|ids)$",
    re.I,
)


_EPOCH_WORD = re.compile(r"epoch", re.I)
_STEP_WORD = re.compile(r"step|iter|batch|len|sample", re.I)
_MILESTONE_NAME = re.compile(r"(^|\.)(lr_?|sch(ed(uler)?)?_?)?(decay_?)?steps?$", re.I)
_PER_EPOCH = re.compile(r"per_?epoch|^(steps|iters|iterations|batches)_?(in|of)_?epoch", re.I)
_SCHEDULER_STEP = re.compile(
    r"(lr|sch|sched|scheduler)_?(decay_?)?step(_?size)?$|(^|_)step_?size$|^decay_?steps?$", re.I
)
# A LambdaLR whose lambda mentions a count of steps/iterations is a per-step schedule.
_TOTAL_STEPS = re.compile(r"steps|iters|iterations", re.I)


def _int_literal(node: ast.AST) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return node.value
    return None


def expr_unit(node: ast.AST | None) -> str | None:
    """Classify a schedule-length expression as counted in ``"epoch"`` or ``"step"`` units.

    Literal small integers and names mentioning epochs are epochs; anything mentioning
    steps/iterations/len(...) is steps; everything else is unknown (``None``).
    """
    if node is None:
        return None
    if isinstance(node, (ast.List, ast.Tuple)):
        units = {expr_unit(elt) for elt in node.elts}
        return units.pop() if len(units) == 1 else None
    literal = _int_literal(node)
    if literal is not None:
        return "epoch" if literal < 1000 else None
    divided = isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.FloorDiv))
    if divided and expr_unit(node.right) == "step":  # type: ignore[attr-defined]
        return None  # decay_each // len(train_data): steps turned into epochs, or not

    words = names_in(node)
    if any(_SCHEDULER_STEP.search(w) for w in words):
        return None  # opt.lr_scheduler_step, args.lr_step: the schedule's own step, any unit
    mixed = [w for w in words if _STEP_WORD.search(w) and _EPOCH_WORD.search(w)]
    if any(not _PER_EPOCH.search(w) for w in mixed):
        return None  # epoch_iter: the number of epochs, or the iterations of one? unknown
    if any(_STEP_WORD.search(w) for w in words):
        return "step"
    if words and any(_EPOCH_WORD.search(w) for w in words):
        return "epoch"
    return None


def scheduler_unit_flags(cls: str, call: ast.Call, lambda_names: set[str]) -> set[str]:
    """EPOCH_BASED / PER_STEP flags for a scheduler constructor call (empty when unsure)."""
    if cls in EPOCH_SCHEDULERS:
        if cls == "ExponentialLR":
            gamma = argument(call, 1, "gamma")
            if isinstance(gamma, ast.Constant) and isinstance(gamma.value, float):
                return {EPOCH_BASED} if gamma.value <= 0.99 else set()
            return set()
        key = {
            "StepLR": (1, "step_size"),
            "MultiStepLR": (1, "milestones"),
            "CosineAnnealingLR": (1, "T_max"),
            "CosineAnnealingWarmRestarts": (1, "T_0"),
        }[cls]
        length = argument(call, *key)
        if cls == "MultiStepLR" and _MILESTONE_NAME.search(dotted(length) or ""):
            return set()  # milestones=steps: the decay "steps" of the schedule, any unit
        unit = expr_unit(length)
        # the same class counts in whatever unit its length is given in: T_0=len(train_set)
        # or step_size=len(loader) * 30 is a count of batches, stepped per batch
        return {EPOCH_BASED} if unit == "epoch" else {PER_STEP} if unit == "step" else set()
    if cls == "OneCycleLR":
        total = argument(call, 2, "total_steps")
        if total is not None and expr_unit(total) == "epoch":
            return set()
        if total is not None or keyword(call, "steps_per_epoch") is not None:
            return {PER_STEP}
        return set()
    if cls == "CyclicLR":
        return {PER_STEP}
    if cls == "LambdaLR" and any(_TOTAL_STEPS.search(n) for n in lambda_names):
        return {PER_STEP}
    return set()


def receiver_of(call: ast.Call) -> ast.expr | None:
    """``obj`` in ``obj.method(...)``."""
    return call.func.value if isinstance(call.func, ast.Attribute) else None


def method_name(call: ast.Call) -> str | None:
    return call.func.attr if isinstance(call.func, ast.Attribute) else None


def as_attribute(value: Value | None) -> Value | None:
    """A model kept as ``self.netG = model.cuda()``: in the class's other methods it is
    ``self.netG``, not ``__init__``'s local ``model``."""
    if value is None or value.kind != MODEL or not value.alias or "." in value.alias:
        return value
    return Value(value.kind, value.cls, None, value.flags, value.node)


def normalize_receiver(name: str | None) -> str | None:
    """``model.module`` (DDP/DataParallel unwrapping) is the same model as ``model``."""
    if name and name.endswith(".module"):
        return name[: -len(".module")]
    return name


__all__ = [
    "Value",
    "merge",
    "meter_reading",
    "value_from_name",
    "expr_unit",
    "scheduler_unit_flags",
    "dotted",
]


def unscaled_loss(value: Value | None) -> bool:
    """A loss straight from its criterion: divided or multiplied by nothing."""
    return (
        value is not None
        and value.kind == LOSS
        and UNSCALED in value.flags
        and SCALED not in value.flags
    )


def binop_value(op: ast.operator, left: Value | None, right: Value | None) -> Value | None:
    """The value of ``left <op> right``: a loss stays a loss (``/`` and ``*`` mark it scaled);
    anything else is unknown."""
    losses = [v for v in (left, right) if v is not None and v.kind == LOSS]
    if losses:
        if len(losses) == 1 and isinstance(op, (ast.Div, ast.Mult)):
            flags = (losses[0].flags - {UNSCALED}) | {SCALED}
            if isinstance(op, ast.Mult) and _is_number(left, right):
                flags |= {WEIGHTED}  # 0.4 * aux_loss: a term's weight
            return Value(LOSS, flags=flags)
        if len(losses) == 2 and isinstance(op, (ast.Add, ast.Sub)) and _unscaled_sum(*losses):
            # loss + 0.4 * aux_loss: a weighted sum of criteria is no division by k
            return Value(LOSS, flags=frozenset({UNSCALED}))
        flags = losses[0].flags if len(losses) == 1 or losses[0] == losses[1] else frozenset()
        if len(losses) == 1 and isinstance(op, (ast.Add, ast.Sub)):
            flags = flags - {UNSCALED} if not _is_number(left, right) else flags
        return Value(LOSS, flags=frozenset(flags) - {AMP})
    tensors = [v for v in (left, right) if v is not None and v.kind == TENSOR]
    if tensors and isinstance(op, (ast.Div, ast.Mult)) and tensors[0].flags & {SOFTMAX}:
        return None
    return None


def _unscaled_sum(a: Value, b: Value) -> bool:
    """Two criteria's losses summed, each straight from its criterion or weighted by a
    literal, at least one unweighted."""
    plain = {UNSCALED, WEIGHTED}
    return bool((a.flags | b.flags) & {UNSCALED}) and all(v.flags & plain for v in (a, b))


def _is_number(left: Value | None, right: Value | None) -> bool:
    return any(v is not None and v.kind == NUMBER for v in (left, right))


def subscript_value(base: Value | None) -> Value | None:
    if base is None:
        return None
    if base.kind == BATCH:
        return Value(TENSOR, flags=frozenset({FROM_LOADER}))
    if base.kind == TENSOR:
        return base
    if base.kind == OUTPUT:
        return Value(TENSOR, flags=base.flags)
    if base.kind == LOSS:
        return base
    return None


_LOSS_NAME = re.compile(r"(\w+_)?loss", re.I)
_CUT_CALLS = {"item", "tolist", "numpy", "detach", "cpu", "float", "int"}


def hand_written_loss(name: str, node: ast.expr | None, lookup) -> bool:
    """``loss = -torch.mean(torch.log(prob) * target)``: named a loss, computed from a
    model's output (``prob = model(x)``) by arithmetic and torch calls, nothing cut."""
    if node is None or "." in name or not _LOSS_NAME.fullmatch(name):
        return False
    if not isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Call)):
        return False
    if any(
        isinstance(n, ast.Attribute) and (n.attr in _CUT_CALLS or n.attr == "data")
        for n in ast.walk(node)
    ):
        return False
    outputs = [n for n in ast.walk(node) if isinstance(n, ast.Name) and n.id != name]
    return any((v := lookup(n.id)) is not None and v.kind == OUTPUT for n in outputs)


def added_to(name: str, node: ast.expr | None) -> ast.expr | None:
    """The name added in ``name = name + other`` (``other`` a plain name or attribute),
    also as a running mean: ``err = err * i / (i + 1) + loss / (i + 1)``,
    ``avg = 0.9 * avg + 0.1 * loss``, or one position of a tuple running mean:
    ``avg = (avg[0] * 0.99 + loss, avg[1] * 0.99 + 1.0)``."""
    if isinstance(node, (ast.Tuple, ast.List)):
        return next(filter(None, (added_to(name, elt) for elt in node.elts)), None)
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)):
        return None
    for mine, other in ((node.left, node.right), (node.right, node.left)):
        if name in _scaled_names(mine):
            others = [n for n in _scaled_names(other) if n != name]
            if len(others) == 1:
                return ast.parse(others[0], mode="eval").body
    return None


def _scaled_names(node: ast.expr) -> list[str]:
    """``loss`` of ``loss``, ``loss / (i + 1)``, ``0.1 * loss``, ``err * i / n``, ``avg[0]``."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        node = node.value  # avg[0] of a tuple kept as (sum, count)
    plain = dotted(node) if isinstance(node, (ast.Name, ast.Attribute)) else None
    if plain is not None:
        return [plain]
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        if isinstance(node.op, ast.Div):
            return _scaled_names(node.left)
        return _scaled_names(node.left) + _scaled_names(node.right)
    return []
