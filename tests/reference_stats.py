"""An independent chi-square tail for the luck tests: the closed forms for whole degrees
of freedom (Abramowitz & Stegun 26.4.4 and 26.4.5), with nothing but `math`, so the
reference shares no code with the scipy function the product calls."""

from __future__ import annotations

import math


def chi_square_tail(df: int, x: float) -> float:
    """P(X >= x) for X chi-square with `df` (a positive whole number) degrees of freedom."""
    if df % 2 == 0:  # e^(-x/2) * sum_{r < df/2} (x/2)^r / r!
        term = total = 1.0
        for r in range(1, df // 2):
            term *= (x / 2) / r
            total += term
        return math.exp(-x / 2) * total
    root = math.sqrt(x)  # 2 * Q(sqrt x) + 2 * phi(sqrt x) * sum_{r=1}^{(df-1)/2} x^(r-1/2) / (1*3*...*(2r-1))
    total, term = 0.0, 1.0 / root if root else 0.0
    for r in range(1, (df - 1) // 2 + 1):
        term *= x / (2 * r - 1)
        total += term
    density = math.exp(-x / 2) / math.sqrt(2 * math.pi)
    return math.erfc(root / math.sqrt(2)) + 2 * density * total
