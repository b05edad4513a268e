"""On-disk home of generated kernels and of Numba's compiled code for them.

Layout: ``<cache root>/<GEN_DIR>/<module>.py`` holds a generated kernel module; Numba writes
its index (.nbi) and data (.nbc) files into ``__pycache__`` beside it.  The cache root is
``$JTORCH_CACHE_DIR``, else ``$XDG_CACHE_HOME/jtorch``, else ``~/.cache/jtorch``.

Failure policy: an unwritable directory or a corrupt Numba cache never crashes a kernel.  It
costs ONE ``KernelCacheWarning`` per process, after which the affected kernels compile in
memory (sources go to a temporary directory, Numba caching off or ignored).
"""
from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import sys
import tempfile
import threading
import warnings
from collections.abc import Callable
from types import ModuleType

from numba.core.caching import CompileResultCacheImpl, FunctionCache, InTreeCacheLocator

# Bump when the layout of generated modules changes in a way the hash cannot see.
GEN_DIR = "kernels-v1"


class KernelCacheWarning(RuntimeWarning):
    """The kernel cache cannot be used; kernels compile in memory for this process."""


_lock = threading.RLock()
_warned = False
_gen_dir: str | None = None  # where generated modules are written, resolved once
_disk_cache = True           # False once we fell back to a temporary directory


def warn_once(message: str) -> None:
    """Issue the single per-process cache warning; later problems stay silent."""
    global _warned
    with _lock:
        if _warned:
            return
        _warned = True
    warnings.warn(message, KernelCacheWarning, stacklevel=3)


def cache_root() -> str:
    """The configured cache root (not necessarily existing or writable)."""
    root = os.environ.get("JTORCH_CACHE_DIR")
    if root:
        return os.path.abspath(os.path.expanduser(root))
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(xdg, "jtorch")


def _probe_writable(path: str) -> None:
    """Raise OSError unless `path` exists (or can be made) and accepts new files."""
    os.makedirs(path, exist_ok=True)
    pyc = os.path.join(path, "__pycache__")  # Numba's files go here: it must be writable too
    os.makedirs(pyc, exist_ok=True)
    for d in (path, pyc):
        tempfile.TemporaryFile(dir=d).close()


def generated_dir() -> str:
    """Directory for generated modules; falls back to a temporary one (with a warning)."""
    global _gen_dir, _disk_cache
    if _gen_dir is not None:
        return _gen_dir
    with _lock:
        if _gen_dir is None:
            path = os.path.join(cache_root(), GEN_DIR)
            try:
                _probe_writable(path)
            except OSError as e:
                warn_once(f"jtorch kernel cache directory {path!r} is not writable ({e}); "
                          "compiling kernels in memory for this process")
                path = tempfile.mkdtemp(prefix="jtorch-kernels-")
                atexit.register(shutil.rmtree, path, True)
                _disk_cache = False
            _gen_dir = path
    return _gen_dir


def disk_cache_enabled() -> bool:
    generated_dir()
    return _disk_cache


def write_source(filename: str, source: str) -> str:
    """Write `source` to `filename` in the generated directory unless identical content exists.

    Rewriting only on change keeps the file's stamp stable, so Numba's index stays valid.
    The write is atomic (temp file + rename) because other processes may race on it.
    """
    path = os.path.join(generated_dir(), filename)
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == source:
                return path
    except (OSError, UnicodeDecodeError):
        pass
    tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(source)
    os.replace(tmp, path)
    return path


def import_file(modname: str, path: str) -> ModuleType:
    """Import a generated file as a real module (Numba's cache needs a real file)."""
    mod = sys.modules.get(modname)
    if mod is not None:
        return mod
    spec = importlib.util.spec_from_file_location(modname, path)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[modname] = mod  # Numba rebuilds cached environments through sys.modules
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules[modname]
        raise
    return mod


class _BesideSourceImpl(CompileResultCacheImpl):
    # Only "next to the source file": never NUMBA_CACHE_DIR or ~/.cache/numba.
    _locator_classes = [InTreeCacheLocator]


class GuardedFunctionCache(FunctionCache):
    """Numba's FunctionCache, except that unreadable or corrupt files degrade to compiling."""

    _impl_class = CompileResultCacheImpl  # Numba's locators: beside the file, else ~/.cache

    def load_overload(self, sig, target_context):  # type: ignore[override]  # Numba's untyped cache hook
        try:
            return super().load_overload(sig, target_context)
        except Exception as e:  # garbage .nbi/.nbc: unpickling raises almost anything
            self.disable()
            warn_once(f"jtorch kernel cache at {self.cache_path!r} is unreadable or corrupt "
                      f"({type(e).__name__}: {e}); compiling kernels in memory")
            return None

    def save_overload(self, sig, data):  # type: ignore[override]  # Numba's untyped cache hook
        try:
            super().save_overload(sig, data)
        except Exception as e:
            self.disable()
            warn_once(f"jtorch kernel cache at {self.cache_path!r} cannot be written "
                      f"({type(e).__name__}: {e}); compiling kernels in memory")


class _GeneratedFunctionCache(GuardedFunctionCache):
    """Loading a cached generated kernel starts only what its object code links against.

    Numba's FunctionCache.load_overload first runs the CPU target's full start (`refresh()`:
    some 250 modules of implementations, and with SciPy installed an import of scipy.linalg to
    probe for BLAS), 150-350 ms of a fresh process's first operator call. Rebuilding cached code
    needs none of it, only the LLVM symbols the object code references: Numba's C helpers and
    math (there once its CPU context exists), the NRT, and where the object code names them, the
    threading layer's and the hash secret's. A compilation still starts the target in full
    (Numba's CompilerBase does)."""

    _impl_class = _BesideSourceImpl

    def load_overload(self, sig, target_context):  # type: ignore[override]  # Numba's untyped cache hook
        try:
            if not self._enabled:
                return None
            from numba.core.runtime import rtsys

            rtsys.initialize(target_context)
            with self._guard_against_spurious_io_errors():
                data = self._cache_file.load(self._index_key(sig, target_context.codegen()))
                if data is None:
                    return None
                _register_symbols(data)
                return self._impl.rebuild(target_context, data)
        except Exception:  # anything unexpected: Numba's own way, full start and all
            return super().load_overload(sig, target_context)


# Symbols registered on demand by Numba modules that its full start imports (the rest: above).
_THREADING_SYMBOLS = (b"numba_parallel_for", b"do_scheduling", b"allocate_sched", b"get_num_threads",
                      b"set_num_threads", b"get_thread_id", b"parallel_chunksize", b"get_sched_size")


def _register_symbols(data: tuple) -> None:
    """Make the symbols that cached code (CompileResult._reduce's payload) links against known."""
    try:
        obj = data[0][2][0]  # libdata = (name, "object", (object code, bitcode))
        assert isinstance(obj, bytes)
    except Exception:
        obj = b"".join(_THREADING_SYMBOLS) + b"_numba_hashsecret_"  # unknown layout: register all
    if any(s in obj for s in _THREADING_SYMBOLS):
        from numba.np.ufunc.parallel import _launch_threads

        _launch_threads()
    if b"_numba_hashsecret_" in obj:
        import numba.cpython.hashing  # noqa: F401  (registers the hash secret at import)


def _attach(dispatcher, cache_class):
    try:
        dispatcher._cache = cache_class(dispatcher.py_func)
    except Exception as e:  # no usable locator: the directory went read-only, etc.
        warn_once(f"jtorch kernel cache unusable for {dispatcher.py_func.__qualname__} "
                  f"({type(e).__name__}: {e}); compiling kernels in memory")
    return dispatcher


def enable_cache(dispatcher):
    """Attach the guarded disk cache, beside the source, to a generated kernel's dispatcher."""
    if disk_cache_enabled():
        _attach(dispatcher, _GeneratedFunctionCache)
    return dispatcher


class _PackageFunctionCache(GuardedFunctionCache):
    """The guarded cache of a hand-written kernel, keyed also by the source of the other jtorch
    modules whose functions it calls (kernels/common's row bodies, order keys...): Numba notices
    changes to the kernel's own file only (numba#1833), and by its module's CACHE_SALT, a string
    naming what the module chose from the environment when it compiled (SciPy's BLAS or plain loops:
    code compiled against one must not be loaded where it is missing)."""

    def _index_key(self, sig, codegen):  # type: ignore[override]  # Numba's untyped cache hook
        salt = str(self._py_func.__globals__.get("CACHE_SALT", ""))
        return super()._index_key(sig, codegen) + (_callees_digest(self._py_func), salt)


def _callees_digest(py_func: Callable) -> str:
    from ..frontend import module_digest

    own = py_func.__module__
    mods = set()
    for name in py_func.__code__.co_names:
        value = py_func.__globals__.get(name)
        mod = value.__name__ if isinstance(value, ModuleType) else getattr(value, "__module__", None)
        if isinstance(mod, str) and mod.startswith("jtorch.") and mod != own:
            mods.add(mod)
    return "|".join(module_digest(m) for m in sorted(mods))


def enable_package_cache(dispatcher):
    """Guarded disk cache for a hand-written kernel in jtorch's own files (Numba's locators)."""
    return _attach(dispatcher, _PackageFunctionCache)


_generated: dict = {}  # key -> imported generated module (this process)


def generated_module(key: object, make_source: Callable[[], tuple[str, str]]) -> ModuleType:
    """The kernel module for `key`, generated by `make_source() -> (file stem, source)` on first
    use, written to the cache directory and imported; later calls are one dict lookup. The one
    home of "generate once per process" for the map, reduce and scan generators."""
    mod = _generated.get(key)
    if mod is None:
        with _lock:
            mod = _generated.get(key)
            if mod is None:
                stem, src = make_source()
                path = write_source(stem + ".py", src)
                mod = _generated[key] = import_file("jtorch_kernels_generated." + stem, path)
    return mod
