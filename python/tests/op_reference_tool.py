"""tools/op_reference.py, imported by path (tools/ is not a package): the op reference's generator,
whose parsers of the C++ headers the binding test shares."""
import importlib.util
import os

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "op_reference.py")
_spec = importlib.util.spec_from_file_location("op_reference", _PATH)
op_reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(op_reference)
