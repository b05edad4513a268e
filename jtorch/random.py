"""`jtorch.Generator` and the default CPU generator (torch/random.py, CPUGeneratorImpl).

A Generator owns a NumPy `Generator(PCG64)` seeded from its 64-bit seed: the same seed gives the same
numbers (the stream is jtorch's own, not PyTorch's mt19937/Philox). A Generator is a dispatcher
argument like a tensor (`Generator?` in schemas): it contributes its device's backend key.
"""
from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from . import dtypes as _dt
from .device import _BACKEND_KEY, CPU, as_device, device
from .keyset import DispatchKeySet
from .storage import CPUStorage
from .tensor import Tensor

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed", "get_rng_state",
           "set_rng_state", "fork_rng"]

DEFAULT_RNG_SEED = 67280421310721  # c10::default_rng_seed_val
_STATE_SIZE = 48  # seed, PCG64 state and increment, the cached 32-bit half


def _unpack_uint64(seed: Any) -> int:
    """unpack_uint64: a uint64, or an int64 reinterpreted (negative seeds wrap)."""
    s = int(seed)
    if 0 <= s < 2 ** 64:
        return s
    if -(2 ** 63) <= s < 0:
        return s + 2 ** 64
    raise ValueError("Overflow when unpacking long long")


class Generator:
    """`jtorch.Generator(device='cpu')`: a random number generator with its own seed and state."""

    __slots__ = ("device", "_key_set", "_seed", "_rng", "_offset", "__weakref__")
    _is_generator = True  # what the bindings and the schema checks recognise

    def __init__(self, device: str | device = "cpu") -> None:
        dev = as_device(device)
        if dev.type == "meta":
            raise RuntimeError("META device type not an accelerator.")
        if dev.type == "cuda":
            from .backends import lazy_init

            lazy_init("cuda")
        self.device = dev
        # CPUGeneratorImpl's key set is its backend key alone (no autograd keys)
        self._key_set = int(DispatchKeySet(_BACKEND_KEY[dev._backend]))
        self._set_seed(DEFAULT_RNG_SEED)

    def _set_seed(self, s: int) -> None:
        self._seed = s
        self._offset = 0  # counter-based generators (CUDA): how many values were drawn since seeding
        self._rng = np.random.Generator(np.random.PCG64(s))

    def manual_seed(self, seed: int) -> Generator:
        """Seed the generator; returns it."""
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        self._set_seed(_unpack_uint64(seed))
        return self

    def seed(self) -> int:
        """Seed from a non-deterministic source; returns the seed."""
        s = secrets.randbits(64)
        self._set_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> Tensor:
        """The generator state as a uint8 CPU tensor (restorable with set_state)."""
        st = self._rng.bit_generator.state
        raw = (self._seed.to_bytes(8, "little") + st["state"]["state"].to_bytes(16, "little")
               + st["state"]["inc"].to_bytes(16, "little") + int(st["has_uint32"]).to_bytes(4, "little")
               + int(st["uinteger"]).to_bytes(4, "little"))
        data = np.frombuffer(raw, dtype=np.uint8).copy()
        return Tensor._make(CPUStorage(data), (_STATE_SIZE,), (1,), 0, _dt.uint8, CPU)

    def set_state(self, new_state: Any) -> Generator:
        if not isinstance(new_state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(new_state).__name__}")
        if new_state.dtype is not _dt.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        n = new_state.numel()
        if n != _STATE_SIZE:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but found the input RNG "
                               f"state size to be {n}")
        raw = bytes(new_state.reshape(-1).tolist())  # any device, any layout
        s = int.from_bytes(raw[0:8], "little")
        self._set_seed(s)
        self._rng.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {"state": int.from_bytes(raw[8:24], "little"), "inc": int.from_bytes(raw[24:40], "little")},
            "has_uint32": int.from_bytes(raw[40:44], "little"),
            "uinteger": int.from_bytes(raw[44:48], "little"),
        }
        return self

    def __reduce__(self):
        return (_rebuild_generator, (str(self.device), self._seed, self._rng.bit_generator.state))


def _rebuild_generator(dev: str, seed: int, state: dict) -> Generator:
    g = Generator(dev)
    g._set_seed(seed)
    g._rng.bit_generator.state = state
    return g


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Seed the default generator (negative seeds wrap to uint64), and the CUDA one as torch does
    (now, or when CUDA is first used); returns the CPU generator."""
    g = default_generator.manual_seed(int(seed))
    _cuda_seed[0] = g._seed
    if _cuda_default[0] is not None:
        _cuda_default[0]._set_seed(g._seed)
    return g


_cuda_default: list = [None]
_cuda_seed = [DEFAULT_RNG_SEED]


def cuda_default_generator() -> Generator:
    """torch.cuda.default_generators[0], made on first use (after CUDA's lazy initialisation)."""
    g = _cuda_default[0]
    if g is None:
        g = Generator("cuda")
        g._set_seed(_cuda_seed[0])
        _cuda_default[0] = g
    return g


def seed() -> int:
    """Seed the default generator non-deterministically; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Any:
    return default_generator.get_state()


def set_rng_state(new_state: Any) -> None:
    default_generator.set_state(new_state)


def generator_rng(generator: Generator | None) -> np.random.Generator:
    """The NumPy generator a CPU kernel draws from (`generator` or the default one)."""
    return (generator if generator is not None else default_generator)._rng


@contextlib.contextmanager
def fork_rng(devices: Iterable[Any] | None = None, enabled: bool = True, _caller: str = "fork_rng",
             _devices_kw: str = "devices", device_type: str = "cuda") -> Iterator[None]:
    """Run the block with the random states forked: the CPU generator's state, and the CUDA default
    generator's (jtorch has one CUDA device), are restored when it exits."""
    if device_type == "meta":
        yield
        return
    if device_type != "cuda":
        raise RuntimeError(f"torch has no module of `{device_type}`, you should register a module by "
                           "`torch._register_device_module`.")
    if not enabled:
        yield
        return
    cpu_state = default_generator.get_state()
    cuda_seed = _cuda_seed[0]
    cuda_gen = _cuda_default[0]
    cuda_state = None if cuda_gen is None else (cuda_gen._seed, cuda_gen._offset)
    try:
        yield
    finally:
        default_generator.set_state(cpu_state)
        _cuda_seed[0] = cuda_seed
        g = _cuda_default[0]
        if g is not None:  # made inside the block: back to the seed it would have been made with
            seed_, offset = cuda_state if cuda_state is not None else (cuda_seed, 0)
            g._set_seed(seed_)
            g._offset = offset
