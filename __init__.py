"""wadgym: ViZDoom environments whose maps, ACS scripts and actors are all built from Python.

`import wadgym` registers the Gymnasium environments (``gym.make("DoomItems-v1")``); so do
``gym.make("wadgym:DoomItems-v1")`` and ``gym.register_envs(wadgym)``.
"""

__version__ = "0.2.0"

# Registration needs gymnasium (a core dependency) and nothing else: no engine, no map is built. Done
# eagerly, because a deferred import hook can be bypassed (a find_spec probe, another meta-path finder).
from wadgym.envs import registration as _registration  # noqa: E402,F401
