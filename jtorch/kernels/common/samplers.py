"""Scalar samplers shared by the CPU (Numba) and CUDA kernels: Philox4x32-10 streams and ATen's
sampling algorithms (Distributions.h): Poisson, binomial, gamma, and gamma's reparameterized
gradient.

Plain Python functions: each back end makes them callable from its compiled code (the CPU through
Numba overloads, CUDA through overloads on its target; the CUDA simulator runs them as they are).
Integer arithmetic is done in uint64 with explicit masks so that it is exact everywhere.

Streams: element e of a launch draws block j of its stream as philox((e, j), key): a counter-based
generator gives every element its own independent stream, so parallel kernels are reproducible for
a key, whatever the number of threads. Each block gives two doubles with 53 random bits.
"""
from __future__ import annotations

import math

import numpy as np

M0 = np.uint64(0xD2511F53)
M1 = np.uint64(0xCD9E8D57)
W0 = np.uint64(0x9E3779B9)
W1 = np.uint64(0xBB67AE85)
MASK = np.uint64(0xFFFFFFFF)
S32 = np.uint64(32)
S11 = np.uint64(11)
INV53 = 1.1102230246251565e-16  # 2^-53
INT64_MIN_AS_FLOAT = -9.223372036854775808e18  # what ATen's casts make of a non-finite sample


def philox(c0, c1, c2, c3, k0, k1):
    """Philox4x32-10 of the counter (c0, c1, c2, c3) with key (k0, k1): four 32-bit words."""
    for r in range(10):
        if r:
            k0 = (k0 + W0) & MASK
            k1 = (k1 + W1) & MASK
        p0 = M0 * c0
        p1 = M1 * c2
        n0 = (p1 >> S32) ^ c1 ^ k0
        n2 = (p0 >> S32) ^ c3 ^ k1
        c1 = p1 & MASK
        c3 = p0 & MASK
        c0 = n0
        c2 = n2
    return c0, c1, c2, c3


def uniform2(k0, k1, e, j):
    """Block j of element e's stream as two doubles in [0, 1)."""
    w0, w1, w2, w3 = philox(e & MASK, e >> S32, np.uint64(j), np.uint64(0), k0, k1)
    a = np.float64(((w0 << S32) | w1) >> S11) * INV53
    b = np.float64(((w2 << S32) | w3) >> S11) * INV53
    return a, b


def standard_normal(u1, u2):
    """Box-Muller: a standard normal from two uniforms in [0, 1)."""
    return math.sqrt(-2.0 * math.log(1.0 - u1)) * math.cos(2.0 * math.pi * u2)


def ptrs_constants(lam):
    """The constants of Hormann's PTRS for a rate (a kernel reuses them while the rate repeats)."""
    slam = math.sqrt(lam)
    b = 0.931 + 2.53 * slam
    a = -0.059 + 0.02483 * b
    invalpha = 1.1239 + 1.1328 / (b - 3.4)
    vr = 0.9277 - 3.6224 / (b - 2.0)
    return math.log(lam), b, a, invalpha, vr


def poisson_ptrs(k0, k1, e, lam, loglam, b, a, invalpha, vr):
    """A Poisson sample for lambda >= 10 by transformed rejection (ATen's PTRS)."""
    j = 0
    while True:
        u, v = uniform2(k0, k1, e, j)
        j += 1
        u -= 0.5
        us = 0.5 - abs(u)
        k = math.floor((2.0 * a / us + b) * u + lam + 0.43)
        if us >= 0.07 and v <= vr:
            return k
        if k < 0.0 or (us < 0.013 and v > us):
            continue
        if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)
                <= -lam + k * loglam - math.lgamma(k + 1.0)):
            return k


def poisson(k0, k1, e, lam):
    """sample_poisson: transformed rejection (Hormann's PTRS) for lambda >= 10, as ATen; below,
    inversion of the CDF with one uniform (ATen multiplies lambda + 1 uniforms on average: the
    same distribution, drawn with fewer Philox blocks). A negative or NaN rate is refused before
    the kernel runs."""
    if lam >= 10.0:
        if lam == math.inf:
            return INT64_MIN_AS_FLOAT
        loglam, b, a, invalpha, vr = ptrs_constants(lam)
        return poisson_ptrs(k0, k1, e, lam, loglam, b, a, invalpha, vr)
    if lam == 0.0:
        return 0.0
    # inversion: one uniform, the first x whose CDF reaches it (exp(-lambda) >= 4.5e-5 here)
    u, _ = uniform2(k0, k1, e, 0)
    p = math.exp(-lam)
    cdf = p
    x = 0.0
    while u > cdf:
        x += 1.0
        p *= lam / x
        cdf += p
        if p == 0.0 and x > lam:  # the CDF rounded to just below u: the tail beyond is below 1e-16
            break
    return x


def stirling_tail(k):
    """log(k!) - Stirling's approximation of it: (k + 1/2) log(k + 1) - (k + 1) + log(2 pi) / 2."""
    if k <= 9.0:
        return math.lgamma(k + 1.0) - ((k + 0.5) * math.log(k + 1.0) - (k + 1.0) + 0.9189385332046727)
    kp1sq = (k + 1.0) * (k + 1.0)
    return (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1.0)


def _binomial_inversion(k0, k1, e, count, prob):
    logprob = math.log1p(-prob)
    geom_sum = 0.0
    num = 0.0
    j = 0
    while True:
        u, v = uniform2(k0, k1, e, j)
        j += 1
        geom_sum += math.ceil(math.log(u) / logprob)
        if geom_sum > count:
            return num
        num += 1.0
        geom_sum += math.ceil(math.log(v) / logprob)
        if geom_sum > count:
            return num
        num += 1.0


def _btrs(k0, k1, e, count, prob):
    """Hormann's BTRS, as ATen writes it."""
    stddev = math.sqrt(count * prob * (1.0 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1.0 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = math.floor((count + 1.0) * prob)
    j = 0
    while True:
        u, v = uniform2(k0, k1, e, j)
        j += 1
        u -= 0.5
        us = 0.5 - abs(u)
        k = math.floor((2.0 * a / us + b) * u + c)
        if k < 0.0 or k > count:
            continue
        if us >= 0.07 and v <= v_r:
            return k
        v = math.log(v * alpha / (a / (us * us) + b))
        upper = ((m + 0.5) * math.log((m + 1.0) / (r * (count - m + 1.0)))
                 + (count + 1.0) * math.log((count - m + 1.0) / (count - k + 1.0))
                 + (k + 0.5) * math.log(r * (count - k + 1.0) / (k + 1.0))
                 + stirling_tail(m) + stirling_tail(count - m) - stirling_tail(k) - stirling_tail(count - k))
        if v <= upper:
            return k


def binomial(k0, k1, e, count, prob):
    """sample_binomial: BTRS when count * min(p, 1 - p) >= 10, inversion below."""
    if count != count:  # NaN: no loop below would end
        return math.nan
    if count <= 0.0 or prob <= 0.0:
        return 0.0
    if prob >= 1.0:
        return count
    if prob <= 0.5:
        if count == math.inf:
            return math.nan
        if count * prob >= 10.0:
            return _btrs(k0, k1, e, count, prob)
        return _binomial_inversion(k0, k1, e, count, prob)
    if prob > 0.5:
        q = 1.0 - prob
        if count == math.inf:
            return math.nan
        if count * q >= 10.0:
            return count - _btrs(k0, k1, e, count, q)
        return count - _binomial_inversion(k0, k1, e, count, q)
    return math.nan


def gamma(k0, k1, e, alpha):
    """sample_gamma: Marsaglia and Tsang's method, alpha < 1 boosted by alpha + 1."""
    if not alpha > 0.0:  # zero, negative or NaN: clamped to the smallest normal by the caller
        return 0.0
    scale = 1.0
    j = 0
    if alpha < 1.0:
        if alpha == 0.0:
            return 0.0
        u, _ = uniform2(k0, k1, e, j)
        j += 1
        scale *= (1.0 - u) ** (1.0 / alpha)
        alpha += 1.0
    d = alpha - 1.0 / 3.0
    c = 1.0 / math.sqrt(9.0 * d)
    while True:
        x = 0.0
        y = 0.0
        while True:
            u1, u2 = uniform2(k0, k1, e, j)
            j += 1
            x = standard_normal(u1, u2)
            y = 1.0 + c * x
            if y > 0.0:
                break
        v = y * y * y
        u, _ = uniform2(k0, k1, e, j)
        j += 1
        u = 1.0 - u
        xx = x * x
        if u < 1.0 - 0.0331 * xx * xx:
            return scale * d * v
        if math.log(u) < 0.5 * xx + d * (1.0 - v + math.log(v)):
            return scale * d * v


def digamma(x):
    """The digamma function for x > 0 (recurrence up to 10, then the asymptotic series)."""
    if x == 0.0:
        return math.inf
    result = 0.0
    while x < 10.0:
        result -= 1.0 / x
        x += 1.0
    if x == 10.0:
        return result + 2.25175258906672110764
    y = 0.0
    if x < 1.0e17:
        z = 1.0 / (x * x)
        y = z * ((((((8.33333333333333333333e-2 * z - 2.10927960927960927961e-2) * z + 7.57575757575757575758e-3) * z
                     - 4.16666666666666666667e-3) * z + 3.96825396825396825397e-3) * z
                   - 8.33333333333333333333e-3) * z + 8.33333333333333333333e-2)
    return result + math.log(x) - 0.5 / x - y


def _rational(c0, c1, c2, u):
    return c0 + u * (c1 + u * c2)


def standard_gamma_grad(alpha, x):
    """d x / d alpha for x ~ Gamma(alpha) at fixed CDF: -(d cdf / d alpha) / pdf, approximated as
    ATen does (a Taylor series for small x, Rice's saddle point expansion for large alpha, a
    bivariate rational approximation between)."""
    if x < 0.8:
        numer = 1.0
        denom = alpha
        series1 = numer / denom
        series2 = numer / (denom * denom)
        for i in range(1, 6):
            numer *= -x / i
            denom += 1.0
            series1 += numer / denom
            series2 += numer / (denom * denom)
        pow_x_alpha = x ** alpha
        gamma_pdf = x ** (alpha - 1.0) * math.exp(-x)
        gamma_cdf = pow_x_alpha * series1
        gamma_cdf_alpha = (math.log(x) - digamma(alpha)) * gamma_cdf - pow_x_alpha * series2
        result = -gamma_cdf_alpha / gamma_pdf
        return 0.0 if result != result else result
    if alpha > 8.0:
        if 0.9 * alpha <= x <= 1.1 * alpha:
            numer_1 = 1.0 + 24.0 * alpha * (1.0 + 12.0 * alpha)
            numer_2 = (1440.0 * (alpha * alpha) + 6.0 * x * (53.0 - 120.0 * x) - 65.0 * x * x / alpha
                       + alpha * (107.0 + 3600.0 * x))
            return numer_1 * numer_2 / (1244160.0 * (alpha * alpha) * (alpha * alpha))
        denom = math.sqrt(8.0 * alpha)
        term2 = denom / (alpha - x)
        term3 = (x - alpha - alpha * math.log(x / alpha)) ** -1.5
        term23 = term2 - term3 if x < alpha else term2 + term3
        term1 = math.log(x / alpha) * term23 - math.sqrt(2.0 / alpha) * (alpha + x) / ((alpha - x) * (alpha - x))
        stirling = 1.0 + 1.0 / (12.0 * alpha) * (1.0 + 1.0 / (24.0 * alpha))
        return -stirling * x * term1 / denom
    u = math.log(x / alpha)
    v = math.log(alpha)
    c0 = _rational(0.16009398, 0.53487893, 0.040121004, u)
    c1 = _rational(-0.094634809, 0.1298071, -0.0065914022, u)
    c2 = _rational(0.025146376, 0.065735949, -0.0026286047, u)
    c3 = _rational(-0.0030648343, -0.0015649758, -0.0013441777, u)
    c4 = _rational(1.0, 0.16639465, 0.017050642, u)
    c5 = _rational(0.32668115, 0.020070113, -0.0021309326, u)
    c6 = _rational(0.10406089, -0.0035938915, 0.00085092367, u)
    c7 = _rational(0.0014179084, -0.00058392623, -1.5247877e-07, u)
    p = c0 + v * (c1 + v * (c2 + v * c3))
    q = c4 + v * (c5 + v * (c6 + v * c7))
    return math.exp(p / q)
