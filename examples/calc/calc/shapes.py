"""Area helpers."""


def rectangle(width, height):
    """Area of a rectangle."""
    return width * height


def parallelogram(width, height):
    """Area of a parallelogram."""
    return width * height
