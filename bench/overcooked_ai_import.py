"""Imports HumanCompatibleAI/overcooked_ai's rules (overcooked_ai_py) from a source checkout with only
numpy installed. Shared by the benchmark peer and the conformance-data generator; never used by
PaperLab itself.

overcooked_ai_py's package __init__ registers a gymnasium env, and its planner module imports
OvercookedEnv's module, which imports cv2, gymnasium, pygame, tqdm, IPython and dill for rendering,
logging and pickling. Those are replaced by empty stand-ins (nothing they provide runs in the rules,
the featurizations or the greedy agents).
"""
import importlib.machinery
import os
import sys
import types


class _Stub(types.ModuleType):
    """Stand-in module: any attribute is another stub; capitalised attributes are classes."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name[:1].isupper():
            return type(name, (), {"__init__": lambda self, *a, **k: None})
        return _Stub(name)

    def __call__(self, *a, **k):
        return _Stub("call")


def load(src):
    """Puts overcooked_ai_py from src (a checkout's src/ folder) on the path, stubs the rest."""
    if not os.path.isfile(os.path.join(src, "overcooked_ai_py", "mdp", "overcooked_mdp.py")):
        sys.exit(f"no overcooked_ai source at {src}")
    sys.path.insert(0, src)
    for m in ("cv2", "gymnasium", "pygame", "pygame.locals", "tqdm", "IPython", "IPython.display",
              "ipywidgets", "dill"):
        stub = _Stub(m)
        # A spec without origin, as a built-in module has: torch 2.x's dynamo (imported by its
        # optimizers) looks up tqdm's spec and refuses a module whose __spec__ is None.
        stub.__spec__ = importlib.machinery.ModuleSpec(m, None)
        sys.modules.setdefault(m, stub)
    pkg = types.ModuleType("overcooked_ai_py")
    pkg.__path__ = [os.path.join(src, "overcooked_ai_py")]
    sys.modules["overcooked_ai_py"] = pkg


THREE_ONIONS = [{"ingredients": ["onion", "onion", "onion"]}]
