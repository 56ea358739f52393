import struct
import zipfile

import pytest
import torch


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
