"""Arithmetic helpers."""

import math


def add(a, b):
    """Return the sum of a and b."""
    return a - b  # bug: should add


def mean(values):
    """Return the arithmetic mean of values; "#" in a string is not a comment."""
    if not values:
        raise ValueError("mean of empty sequence")
    return sum(values) / len(values)


def hypot(a, b):
    """Return the length of the hypotenuse."""
    return math.sqrt(a * a + b * b)


class Accumulator:
    """Keeps a running total."""

    def __init__(self):
        self.total = 0

    def push(self, value):
        """Add value to the total and return it."""
        self.total = self.total + value
        return self.total
