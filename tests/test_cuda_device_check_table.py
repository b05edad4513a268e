"""The table of torch's CUDA wrapper device checks (jtorch/native/cuda_device_check_table.py,
generated from torchgen's RegisterCUDA.cpp): it names arguments jtorch's schemas have, and it agrees
with native_functions.yaml (no NoCheck operator in it; out= tensors checked first, then the others in
schema order). The refusals themselves are tested under the CUDA simulator
(tests/cuda/test_cuda_device_mismatch.py)."""
from __future__ import annotations

import importlib.util
import os

import pytest

from jtorch.native import registry
from jtorch.native.cuda_device_check import CHECKED
from jtorch.schema import FunctionSchema


def test_checked_arguments_are_in_jtorchs_schemas() -> None:
    declared = [nf for nf in registry.declarations if nf.name in CHECKED]
    assert len(declared) > 150  # mm, cat, index_select, gather, the reductions' out= forms, ...
    for nf in declared:
        names = [a.name for a in nf.func.arguments]
        assert set(CHECKED[nf.name][1]) <= set(names), (nf.name, CHECKED[nf.name], names)


def _native_functions_yaml() -> str | None:
    spec = importlib.util.find_spec("torchgen")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = os.path.join(list(spec.submodule_search_locations)[0], "packaged", "ATen", "native",
                        "native_functions.yaml")
    return path if os.path.exists(path) else None


def test_table_agrees_with_native_functions_yaml() -> None:
    yaml = pytest.importorskip("yaml")
    path = _native_functions_yaml()
    if path is None:
        pytest.skip("torchgen's packaged native_functions.yaml is not installed")
    with open(path) as fh:
        entries = {str(FunctionSchema.parse(e["func"]).name): e for e in yaml.safe_load(fh)}
    for name in ("mm", "cat", "index_select", "gather", "searchsorted.Tensor", "addmm.out"):
        assert name in CHECKED, name
    for name in ("add.Tensor", "mul.Tensor", "where.self"):  # TensorIterator operators: NoCheck
        assert name not in CHECKED, name
    seen = 0
    for name, (wrapper, checked) in CHECKED.items():
        entry = entries.get(name)
        if entry is None:  # an overload torch generates (autogen), not written in the yaml
            continue
        seen += 1
        assert entry.get("device_check") != "NoCheck", name
        assert wrapper.startswith("wrapper_CUDA_"), wrapper
        args = FunctionSchema.parse(entry["func"]).arguments
        tensors = [a.name for a in args if a.type.tensor_kind(any_list=True) is not None]
        outs = [a.name for a in args if a.is_out]
        order = outs + [n for n in tensors if n not in outs]
        assert list(checked) == [n for n in order if n in checked], (name, checked, order)
    assert seen > 500
