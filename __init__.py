"""wadgym: ViZDoom environments whose maps, ACS scripts and actors are all built from Python.

Importing the package registers its Gymnasium environments (``gym.make("DoomItems-v0")``).
"""

__version__ = "0.1.0"

from wadgym.envs import registration as _registration  # noqa: E402,F401  (registers the Gymnasium envs; light)
