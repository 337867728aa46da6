"""Imports semitable/lb-foraging's environment (lbforaging.foraging.environment) from a source
checkout with only numpy installed. Shared by the LBF recorder and the speed peer; never used by
PaperLab itself.

The environment module imports gymnasium for its base class (gym.Env: np_random, reset(seed)),
its spaces (Tuple, Discrete, Box: only built and asserted on) and gymnasium.utils.seeding. Debian
does not package gymnasium, so these few names are replaced by stand-ins that behave as gymnasium
1.x's do where the rules depend on them: reset(seed=s) seeds np_random with
numpy.random.Generator(PCG64(SeedSequence(s))), gymnasium.utils.seeding.np_random's generator.
"""
import os
import sys
import types

import numpy as np


def _np_random(seed=None):
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
    return rng, seed


class _Env:
    _np_random = None

    @property
    def np_random(self):
        if self._np_random is None:
            self._np_random, _ = _np_random(None)
        return self._np_random

    def reset(self, *, seed=None, options=None):
        if seed is not None:
            self._np_random, _ = _np_random(seed)


class _Space:
    def __init__(self, *a, **k):
        self.args, self.kwargs = a, k
        self.shape = k.get("shape")

    def __getitem__(self, i):
        return self.args[0][i]

    def contains(self, x):
        return True


def load(src):
    """Puts lbforaging from src (a checkout) on the path with the gymnasium stand-ins."""
    gym = types.ModuleType("gymnasium")
    gym.Env = _Env
    spaces = types.ModuleType("gymnasium.spaces")
    spaces.Tuple = spaces.Discrete = spaces.Box = _Space
    gym.spaces = spaces
    gym.register = lambda *a, **k: None
    utils = types.ModuleType("gymnasium.utils")
    seeding = types.ModuleType("gymnasium.utils.seeding")
    seeding.np_random = _np_random
    utils.seeding = seeding
    gym.utils = utils
    sys.modules.update({"gymnasium": gym, "gymnasium.spaces": spaces, "gymnasium.utils": utils, "gymnasium.utils.seeding": seeding})
    sys.path.insert(0, os.path.abspath(src))
    from lbforaging.foraging import environment

    return environment
