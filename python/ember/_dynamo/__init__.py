"""torch._dynamo, as far as ember has it: explain(), the report of what a compile captured."""
from .._compile import OptimizedModule, _Compiled

__all__ = ["explain", "OptimizedModule"]


class ExplainOutput:
    """torch._dynamo.backends.debugging.ExplainOutput's fields: graph_count, graph_break_count,
    break_reasons and op_count; str() is ember's report (engine/compile/compiled_function.h)."""

    def __init__(self, compiled):
        stats = compiled._compiled.stats
        self.break_reasons = list(stats["break_reasons"])
        self.graph_break_count = len(self.break_reasons)
        self.graph_count = self.graph_break_count + 1
        self.op_count = stats["op_count"]
        self.kernel_count = stats["kernels"]
        self._text = compiled.explain()

    def __str__(self):
        return self._text


def explain(f):
    """explain(f)(*args): runs f once under a capture and reports what it found."""
    def inner(*args, **kwargs):
        compiled = _Compiled(f)
        compiled(*args, **kwargs)
        return ExplainOutput(compiled)
    return inner
