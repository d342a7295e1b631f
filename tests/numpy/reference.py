"""What agreement.py and fuzz.py share: f32's unit roundoff and smallest
normal, the γ_k factor of the error bounds (README.md, the paragraph after
"Layout"), and the float64 windows of a padded image that the convolution
references sum over."""

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

U = 2.0 ** -24
MIN_NORMAL = 2.0 ** -126


def gamma(k):
    return k * U / (1 - k * U)


def windows(x, w_shape, pad_mode):
    """Every window of `x` under a centred odd filter of shape `w_shape`,
    float64, after padding with numpy's `pad_mode` ("constant": zeros,
    "edge": the clamp rule): shape x.shape + w_shape."""
    ry, rx = w_shape[0] // 2, w_shape[1] // 2
    padded = np.pad(x.astype(np.float64), ((ry, ry), (rx, rx)), mode=pad_mode)
    return sliding_window_view(padded, w_shape)
