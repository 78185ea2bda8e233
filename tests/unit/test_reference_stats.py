"""The test oracle itself: the closed-form chi-square tail gives the published critical
values (the 5% and 1% points of the usual tables) and the exact tails of 1 and 2 df."""

from __future__ import annotations

import math

import pytest

from tests.reference_stats import chi_square_tail

CRITICAL = [  # (df, x, tail): points printed in every chi-square table
    (1, 3.841458820694124, 0.05),
    (2, 5.991464547107979, 0.05),
    (5, 11.070497693516351, 0.05),
    (5, 15.08627246938899, 0.01),
    (19, 30.14352720564616, 0.05),
    (19, 36.19086912927004, 0.01),
    (20, 31.410432844230918, 0.05),
    (35, 49.80184956820188, 0.05),
]


@pytest.mark.parametrize(("df", "x", "tail"), CRITICAL)
def test_published_critical_values(df, x, tail):
    assert chi_square_tail(df, x) == pytest.approx(tail, rel=1e-9)


@pytest.mark.parametrize("x", [0.0, 0.5, 2.0, 9.0, 40.0])
def test_one_and_two_degrees_of_freedom_in_closed_form(x):
    assert chi_square_tail(1, x) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-12)
    assert chi_square_tail(2, x) == pytest.approx(math.exp(-x / 2), rel=1e-12)
