"""What a fresh interpreter imports: trainwell's fit() never imports torch._dynamo itself when
compile is off, and the guards' config imports without torch (each in a subprocess)."""

import subprocess
import sys
import textwrap


def test_trainwell_does_not_import_dynamo_when_compile_is_off():
    """torch's optimizers import torch._dynamo when they are built (``torch._disable_dynamo``
    on ``add_param_group``); the frame that first imports it must be torch's, never
    trainwell's."""
    script = textwrap.dedent(
        """
        import sys, traceback, importlib.abc
        stacks = []
        class Spy(importlib.abc.MetaPathFinder):
            def find_spec(self, name, path, target=None):
                if name == "torch._dynamo" and not stacks:
                    stacks.append("".join(traceback.format_stack()))
                return None
        sys.meta_path.insert(0, Spy())
        import torch
        import trainwell as tw
        x, y = torch.randn(64, 4), torch.randint(0, 3, (64,))
        model = torch.nn.Linear(4, 3)
        tw.fit(model, (x, y), (x, y), config={"run": {"quiet": True}, "train": {"max_epochs": 1}})
        frames = [
            line.strip() for line in (stacks[0] if stacks else "").splitlines()
            if line.strip().startswith("File")
        ]
        importing = [f for f in frames if "importlib" not in f and "<string>" not in f][-1:]
        trainwell_frames = [f for f in importing if "/torch/" not in f]
        print("IMPORTED" if stacks else "NOT-IMPORTED")
        print("FROM-TRAINWELL" if trainwell_frames else "FROM-TORCH")
        print(stacks[0] if stacks else "")
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    assert "FROM-TORCH" in out, out


def test_public_names_and_a_torch_free_config_import():
    import subprocess
    import sys

    import trainwell.guards as guards

    assert sorted(guards.__all__) == sorted(guards._EXPORTS)
    assert all(getattr(guards, name) is not None for name in guards.__all__)
    assert callable(guards.watch)  # the function, not a submodule of the same name
    code = "import sys, trainwell.config.guards; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
