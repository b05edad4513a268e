"""Dropout1d/2d/3d, AlphaDropout and FeatureAlphaDropout (modules and functions): torch's rank errors and
warnings, channel-wise masks, the alpha forms' preserved statistics, gradients, in-place forms, eval mode."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from _torch_oracle import oracle_torch

import jtorch
import jtorch.nn.functional as JF

torch = oracle_torch()
TF = torch.nn.functional


def _outcome(fn):
    """(exception type and text or None, the warnings' texts)."""
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        try:
            fn()
            err = None
        except Exception as e:  # noqa: BLE001
            err = (type(e).__name__, str(e).replace("jtorch", "torch"))
    return err, [str(w.message) for w in rec]


_CASES = {
    "1d 4-D": lambda T, F: F.dropout1d(T.ones(2, 2, 2, 2)),
    "1d 1-D": lambda T, F: F.dropout1d(T.ones(3)),
    "2d 5-D": lambda T, F: F.dropout2d(T.ones(1, 2, 2, 2, 2)),
    "2d 3-D": lambda T, F: F.dropout2d(T.ones(2, 2, 2)),
    "2d 2-D": lambda T, F: F.dropout2d(T.ones(2, 2)),
    "3d 3-D": lambda T, F: F.dropout3d(T.ones(2, 2, 2)),
    "3d 6-D": lambda T, F: F.dropout3d(T.ones(1, 1, 1, 1, 1, 2)),
    "p": lambda T, F: F.dropout2d(T.ones(2, 2, 2, 2), p=1.5),
    "alpha p": lambda T, F: F.alpha_dropout(T.ones(2), p=-0.1),
    "feature alpha 1-D": lambda T, F: F.feature_alpha_dropout(T.ones(3), 0.5, True),
    "module p": lambda T, F: T.nn.Dropout3d(2.0),
    "alpha module p": lambda T, F: T.nn.AlphaDropout(-1),
}


@pytest.mark.parametrize("case", sorted(_CASES))
def test_errors_and_warnings_match_torch(case):
    assert _outcome(lambda: _CASES[case](jtorch, JF)) == _outcome(lambda: _CASES[case](torch, TF))


@pytest.mark.parametrize("name", ["Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"])
def test_module_repr_and_eval_identity(name):
    assert repr(getattr(jtorch.nn, name)(0.3, inplace=True)) == repr(getattr(torch.nn, name)(0.3, inplace=True))
    m = getattr(jtorch.nn, name)(0.4).eval()
    x = jtorch.randn(2, 3, 4, 5, 6)[..., 0] if name != "Dropout3d" else jtorch.randn(2, 3, 4, 5, 6)
    if name == "Dropout1d":
        x = x[..., 0]
    assert m(x) is x


# lead: how many leading dims name one channel ((N, C) batched, (C,) unbatched; dropout2d reads 3-D as (N, C, L))
@pytest.mark.parametrize("fn,shape,lead", [(JF.dropout1d, (4, 6, 50), 2), (JF.dropout1d, (6, 50), 1),
                                           (JF.dropout2d, (4, 6, 5, 9), 2), (JF.dropout2d, (4, 6, 9), 2),
                                           (JF.dropout3d, (3, 5, 2, 3, 4), 2), (JF.dropout3d, (5, 2, 3, 4), 1)])
def test_channel_masks_scale_and_gradient(fn, shape, lead):
    jtorch.manual_seed(0)
    x = jtorch.rand(*shape).add_(0.5).requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = fn(x, 0.25, True)
    ratio = (y / x).detach().numpy()
    flat = ratio.reshape(int(np.prod(shape[:lead])), -1)
    for row in flat:  # one decision per channel: all zero or all 1 / (1 - p)
        assert np.allclose(row, 0) or np.allclose(row, 1 / 0.75)
    kept = np.mean([not np.allclose(r, 0) for r in flat])
    assert 0.3 < kept <= 1.0
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), ratio, rtol=1e-6)


def test_inplace_forms_return_their_input():
    jtorch.manual_seed(1)
    for fn, shape in ((JF.dropout1d, (2, 3, 4)), (JF.dropout1d, (3, 4)), (JF.dropout2d, (2, 3, 4, 4)),
                      (JF.dropout3d, (2, 3, 2, 2, 2)), (JF.dropout3d, (3, 2, 2, 2))):
        x = jtorch.ones(*shape)
        y = fn(x, 0.5, True, inplace=True)
        assert y.data_ptr() == x.data_ptr() and tuple(y.shape) == shape
        assert set(np.unique(x.numpy())) <= {0.0, 2.0}


def test_alpha_dropout_keeps_mean_and_variance():
    jtorch.manual_seed(2)
    x = jtorch.randn(200000)
    y = jtorch.nn.AlphaDropout(0.3).train()(x).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02
    # each element is either a*x + b (kept) or the saturated value a*(-alpha) + b
    alpha = 1.7580993408473766
    a = 1 / np.sqrt((alpha * alpha * 0.3 + 1) * 0.7)
    dropped = np.isclose(y, -alpha * a + alpha * a * 0.3, atol=1e-6)
    assert 0.27 < dropped.mean() < 0.33


def test_feature_alpha_dropout_is_channelwise_with_gradient():
    jtorch.manual_seed(3)
    x = jtorch.randn(8, 6, 10).requires_grad_()
    y = jtorch.nn.FeatureAlphaDropout(0.5).train()(x)
    y.sum().backward()
    g = x.grad.numpy()  # the multiplier a (kept) or 0 (dropped), one per channel
    for row in g.reshape(48, 10):
        assert np.allclose(row, row[0]) and (np.isclose(row[0], 0) or row[0] > 0)
    assert 0 < np.isclose(g[:, :, 0], 0).mean() < 1
