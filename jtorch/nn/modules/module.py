"""`Module` (torch/nn/modules/module.py): the base class of every layer and model.

Parameters, buffers and submodules live in three ordered dicts that `__setattr__` fills by the
type of the assigned value; everything else (state dicts, `to`, `train`, the model's printout)
walks those dicts recursively, in registration order, exactly as torch does.
"""
from __future__ import annotations

import functools
import itertools
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Iterator
from typing import Any

import jtorch

from ...autograd.api import zero_grads
from ...autograd.node import RemovableHandle, add_hook
from ...tensor import Tensor
from ..parameter import Buffer, Parameter

__all__ = ["Module"]


def _typename(obj: Any) -> str:
    """torch.typename: 'torch.FloatTensor' for a tensor, the qualified class name otherwise."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    qualname = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    if not isinstance(obj, type):
        module = type(obj).__module__ or ""
        qualname = type(obj).__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _addindent(s_: str, num_spaces: int) -> str:
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    s = [(num_spaces * " ") + line for line in s]
    return first + "\n" + "\n".join(s)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _forward_unimplemented(self: Module, *input: Any) -> None:
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


def _check_new_name(module: Module, kind: str, name: Any, registered: dict) -> None:
    """register_buffer's and register_parameter's checks of `name`, in torch's order ("buffer" or
    "parameter" as `kind`): a string, no ".", not empty, not another attribute of the module."""
    if not isinstance(name, str):
        raise TypeError(f"{kind} name should be a string. Got {_typename(name)}")
    if "." in name:
        raise KeyError(f'{kind} name can\'t contain "."')
    if name == "":
        raise KeyError(f'{kind} name can\'t be empty string ""')
    if hasattr(module, name) and name not in registered:
        raise KeyError(f"attribute '{name}' already exists")


def _submodule_attribute(module: Module, target: str) -> tuple[Module, str, Any]:
    """get_parameter's and get_buffer's lookup of "path.to.name": (its submodule, name, the attribute)."""
    module_path, _, name = target.rpartition(".")
    mod = module.get_submodule(module_path)
    if not hasattr(mod, name):
        raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
    return mod, name, getattr(mod, name)


class Module:
    """Base class for all neural network modules (torch.nn.Module)."""

    training: bool
    # made in __init__ through __dict__ (the module's own __setattr__ needs them first)
    _parameters: dict[str, Parameter | None]
    _buffers: dict[str, Tensor | None]
    _modules: dict[str, Module]  # add_module(name, None) stores a None (torch's Optional[Module]); typed as read
    _non_persistent_buffers_set: set[str]
    _version: int = 1
    dump_patches: bool = False
    call_super_init: bool = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if self.call_super_init is False and bool(kwargs):
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if self.call_super_init is False and bool(args):
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} were"
                            " given")
        # object.__setattr__: our own __setattr__ needs these dicts to exist first
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = {}
        d["_buffers"] = {}
        d["_non_persistent_buffers_set"] = set()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_hooks"] = OrderedDict()
        d["_forward_hooks_with_kwargs"] = {}
        d["_forward_pre_hooks_with_kwargs"] = {}
        d["_forward_hooks_always_called"] = {}
        d["_state_dict_hooks"] = OrderedDict()
        d["_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_pre_hooks"] = OrderedDict()
        d["_load_state_dict_post_hooks"] = OrderedDict()
        d["_modules"] = {}

    forward: Callable[..., Any] = _forward_unimplemented

    # ---- registration -------------------------------------------------------------------------
    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        _check_new_name(self, "buffer", name, self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        if isinstance(tensor, Buffer):
            persistent = tensor.persistent
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        _check_new_name(self, "parameter", name, self._parameters)
        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(jtorch.nn.Parameter or None required)")
        elif param.grad_fn:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created explicitly. "
                f"To express '{name}' as a function of another Tensor, compute the value in the forward() method.")
        else:
            self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module  # type: ignore[assignment]  # None allowed here, see _modules

    def register_module(self, name: str, module: Module | None) -> None:
        self.add_module(name, module)

    def get_submodule(self, target: str) -> Module:
        if target == "":
            return self
        mod: Module = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target: str) -> Parameter:
        _, param_name, param = _submodule_attribute(self, target)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        mod, buffer_name, buffer = _submodule_attribute(self, target)
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return buffer

    # ---- attribute protocol -------------------------------------------------------------------
    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        d = self.__dict__

        def remove_from(*dicts_or_sets: Any) -> None:
            for s in dicts_or_sets:
                if name in s:
                    if isinstance(s, dict):
                        del s[name]
                    else:
                        s.discard(name)

        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(jtorch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = d.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                    "(jtorch.nn.Module or None expected)")
                modules[name] = value
            else:
                buffers = d.get("_buffers")
                if isinstance(value, Buffer) or (buffers is not None and name in buffers):
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                        "(jtorch.nn.Buffer, jtorch.Tensor or None expected)")
                    persistent = (value.persistent if isinstance(value, Buffer)
                                  else name not in self._non_persistent_buffers_set)
                    self.register_buffer(name, value, persistent)
                else:
                    object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        module_attrs = dir(self.__class__)
        attrs = list(self.__dict__.keys())
        keys = module_attrs + attrs + list(self._parameters) + list(self._modules) + list(self._buffers)
        keys = [key for key in keys if not key[0].isdigit()]  # Sequential's '0' is no attribute name
        return sorted(keys)

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    # ---- iteration ----------------------------------------------------------------------------
    def _named_members(self, get_members_fn: Callable, prefix: str = "", recurse: bool = True,
                       remove_duplicate: bool = True) -> Iterator[tuple[str, Any]]:
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                name = module_prefix + ("." if module_prefix else "") + k
                yield name, v

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _name, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        yield from self._named_members(lambda m: m._parameters.items(), prefix=prefix, recurse=recurse,
                                       remove_duplicate=remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        yield from self._named_members(lambda m: m._buffers.items(), prefix=prefix, recurse=recurse,
                                       remove_duplicate=remove_duplicate)

    def children(self) -> Iterator[Module]:
        for _name, module in self.named_children():
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self) -> Iterator[Module]:
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        if memo is None:
            memo = set()
        if self not in memo:
            if remove_duplicate:
                memo.add(self)
            yield prefix, self
            for name, module in self._modules.items():
                if module is None:
                    continue
                submodule_prefix = prefix + ("." if prefix else "") + name
                yield from module.named_modules(memo, submodule_prefix, remove_duplicate)

    # ---- modes and conversions ----------------------------------------------------------------
    def train(self, mode: bool = True) -> Module:
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> Module:
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        zero_grads(self.parameters(), set_to_none)

    def apply(self, fn: Callable[[Module], None]) -> Module:
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, fn: Callable[[Tensor], Tensor], recurse: bool = True) -> Module:
        """Convert every parameter and buffer with fn, keeping the Parameter objects (torch's
        default: `param.data = fn(param)`, so optimizers holding them see the new values)."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        for param in self._parameters.values():
            if param is None:
                continue
            with jtorch.no_grad():
                param_applied = fn(param)
            param.data = param_applied
            if param.grad is not None:
                with jtorch.no_grad():
                    grad_applied = fn(param.grad)
                param.grad.data = grad_applied
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        from ...native.python_methods import parse_to

        device, dtype, non_blocking, _copy, memory_format = parse_to(args, kwargs)
        if dtype is not None and not (dtype.is_floating_point or dtype.is_complex):
            raise TypeError("nn.Module.to only accepts floating point or complex "
                            f"dtypes, but got desired dtype={dtype}")

        def convert(t: Tensor) -> Tensor:
            # integer buffers (BatchNorm's num_batches_tracked) keep their dtype, as in torch
            dt = dtype if (dtype is not None and (t.is_floating_point() or t.is_complex())) else None
            if memory_format is not None and t.dim() in (4, 5):
                return t.to(device, dt, non_blocking, memory_format=memory_format)
            return t.to(device, dt, non_blocking)

        try:
            return self._apply(convert)
        except NotImplementedError as e:
            if str(e) == "Cannot copy out of meta tensor; no data!":
                raise NotImplementedError(f"{e} Please use jtorch.nn.Module.to_empty() instead of "
                                          "jtorch.nn.Module.to() when moving module from meta to a different "
                                          "device.") from None
            raise

    def to_empty(self, *, device: Any, recurse: bool = True) -> Module:
        """Move to device with uninitialised memory (the way off the meta device)."""
        return self._apply(lambda t: jtorch.empty_like(t, device=device), recurse=recurse)

    def cuda(self, device: Any = None) -> Module:
        return self._apply(lambda t: t.cuda(device))

    def cpu(self) -> Module:
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type: Any) -> Module:
        return self._apply(lambda t: t.type(dst_type))

    def float(self) -> Module:
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self) -> Module:
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self) -> Module:
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self) -> Module:
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    # ---- hooks and calling --------------------------------------------------------------------
    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        handle = add_hook(self._forward_pre_hooks, hook)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        if prepend:
            self._forward_pre_hooks.move_to_end(handle.id, last=False)
        return handle

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        handle = add_hook(self._forward_hooks, hook)
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
        if prepend:
            self._forward_hooks.move_to_end(handle.id, last=False)
        return handle

    def _call_impl(self, *args: Any, **kwargs: Any) -> Any:
        if not (self._forward_hooks or self._forward_pre_hooks):
            return self.forward(*args, **kwargs)
        for hook_id, hook in list(self._forward_pre_hooks.items()):
            if hook_id in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if isinstance(result, tuple) and len(result) == 2:
                        args, kwargs = result
                    else:
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {result}.")
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        result = self.forward(*args, **kwargs)
        for hook_id, hook in list(self._forward_hooks.items()):
            if hook_id in self._forward_hooks_with_kwargs:
                hook_result = hook(self, args, kwargs, result)
            else:
                hook_result = hook(self, args, result)
            if hook_result is not None:
                result = hook_result
        return result

    __call__: Callable[..., Any] = _call_impl

    # ---- state dicts --------------------------------------------------------------------------
    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()

    def state_dict(self, *args: Any, destination: dict | None = None, prefix: str = "",
                   keep_vars: bool = False) -> dict:
        if args:  # torch's deprecated positional form (destination, prefix, keep_vars)
            names = ("destination", "prefix", "keep_vars")
            vals = dict(zip(names, args))
            destination = vals.get("destination", destination)
            prefix = vals.get("prefix", prefix)
            keep_vars = vals.get("keep_vars", keep_vars)
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()  # type: ignore[attr-defined]  # torch's state_dict carries one
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            hook_result = hook(self, destination, prefix, local_metadata)
            if hook_result is not None:
                destination = hook_result
        return destination

    def _load_from_state_dict(self, state_dict: dict, prefix: str, local_metadata: dict, strict: bool,
                              missing_keys: list, unexpected_keys: list, error_msgs: list) -> None:
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        persistent_buffers = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(), persistent_buffers.items())
                       if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            input_param = state_dict[key]
            if not isinstance(input_param, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected jtorch.Tensor or Tensor-like '
                                  f"object from checkpoint but received {type(input_param)}")
                continue
            if len(param.shape) == 0 and len(input_param.shape) == 1 and input_param.shape[0] == 1:
                input_param = input_param[0]  # a 1-element 1-d tensor from torch 0.3 loads into a 0-dim one
            if input_param.shape != param.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {input_param.shape} from "
                                  f"checkpoint, the shape in current model is {param.shape}.")
                continue
            try:
                with jtorch.no_grad():
                    if assign:
                        if isinstance(param, Parameter):
                            new = input_param if isinstance(input_param, Parameter) else \
                                Parameter(input_param, requires_grad=param.requires_grad)
                            setattr(self, name, new)
                        else:
                            setattr(self, name, input_param)
                    else:
                        param.copy_(input_param)
            except Exception as ex:
                action = "swapping" if assign else "copying"
                error_msgs.append(f'While {action} the parameter named "{key}", whose dimensions in the model are '
                                  f"{param.size()} and whose dimensions in the checkpoint are {input_param.size()}, "
                                  f"an exception occurred : {ex.args}.")
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix):
                    input_name = key[len(prefix):].split(".", 1)
                    if input_name[0] not in self._modules and input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict: dict, strict: bool = True, assign: bool = False) -> _IncompatibleKeys:
        if not isinstance(state_dict, dict):  # torch checks Mapping; OrderedDict and dict are the cases
            from collections.abc import Mapping

            if not isinstance(state_dict, Mapping):
                raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys: list[str] = []
        unexpected_keys: list[str] = []
        error_msgs: list[str] = []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata  # type: ignore[attr-defined]  # as above

        def load(module: Module, local_state_dict: dict, prefix: str = "") -> None:
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing_keys,
                                         unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state_dict = {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)}
                    load(child, child_state_dict, child_prefix)
            incompatible_keys = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, incompatible_keys) is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not expected to return "
                        "new values, if incompatible_keys need to be modified, it should be done inplace.")

        load(self, state_dict)
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self.__class__.__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    def register_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        return add_hook(self._state_dict_hooks, hook)

    def register_load_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        return add_hook(self._load_state_dict_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """hook(module, prefix, keep_vars), called before this module's state_dict is made."""
        return add_hook(self._state_dict_pre_hooks, hook)

    def _register_load_state_dict_pre_hook(self, hook: Callable, with_module: bool = False) -> RemovableHandle:
        """hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs),
        with the module first when with_module (what modules use to rename old checkpoint keys)."""
        return add_hook(self._load_state_dict_pre_hooks,
                        functools.partial(hook, self) if with_module else hook)

    def register_load_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    # ---- printing -----------------------------------------------------------------------------
    def _get_name(self) -> str:
        return self.__class__.__name__

    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        extra_lines = []
        extra_repr = self.extra_repr()
        if extra_repr:
            extra_lines = extra_repr.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = _addindent(repr(module), 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines
        main_str = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        main_str += ")"
        return main_str

