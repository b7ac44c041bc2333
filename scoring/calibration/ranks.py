"""Spearman's rank correlation, for the calibration report (scoring/calibration) and the
score's targets (scoring/calibration/targets.py): a few lines of statistics, not worth a
dependency."""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def _ranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(xs: Sequence[float], ys: Sequence[float]) -> float:
    """Given two equally long sequences (at least 2 items, neither constant), return their
    Spearman rank correlation in [-1, 1] (ties get their mean rank)."""
    return statistics.correlation(_ranks(xs), _ranks(ys))
