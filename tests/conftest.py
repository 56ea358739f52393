import struct
import zipfile

import pytest
import torch


@pytest.fixture(autouse=True)
def _cpu_only(request, monkeypatch):
    """A test marked ``cpu_only`` asserts CPU semantics (bitwise parity with a CPU hand loop,
    fp32 numerics where ``precision=auto`` would pick bf16 on CUDA, the CPU FLOP probe): it
    still runs on a GPU machine, with CUDA hidden so that ``run.device=auto`` picks the CPU,
    in this process and in the ``trainwell`` subprocesses it starts."""
    if request.node.get_closest_marker("cpu_only") is None:
        yield
        return
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)
    mps = getattr(torch.backends, "mps", None)
    if mps is not None:
        monkeypatch.setattr(mps, "is_available", lambda: False)
    yield


@pytest.fixture(autouse=True)
def _restore_torch_globals():
    """Tests that flip global torch switches must not leak them into other tests."""
    deterministic = torch.are_deterministic_algorithms_enabled()
    threads = torch.get_num_threads()
    yield
    torch.use_deterministic_algorithms(deterministic)
    torch.set_num_threads(threads)


@pytest.fixture
def flip_tensor_bytes():
    """A function that flips bytes inside a checkpoint's first tensor: the file still loads,
    with wrong weights (only the SHA-256 in the sidecar can tell)."""

    def flip(path):
        with zipfile.ZipFile(path) as archive:
            info = next(i for i in archive.infolist() if "/data/" in i.filename)
        data = bytearray(path.read_bytes())
        header = data[info.header_offset + 26 : info.header_offset + 30]
        name_len, extra_len = struct.unpack("<HH", header)
        start = info.header_offset + 30 + name_len + extra_len
        for i in range(start, start + 4):
            data[i] ^= 0xFF
        path.write_bytes(bytes(data))

    return flip
