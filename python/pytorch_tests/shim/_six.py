"""torch._six: the two constants PyTorch's tests still import from it."""
import math

inf = math.inf
nan = math.nan
string_classes = (str, bytes)
