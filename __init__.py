"""wadgym: ViZDoom environments whose maps, ACS scripts and actors are all built from Python.

`import wadgym` registers the Gymnasium environments (``gym.make("DoomItems-v0")``), and
``gym.make("wadgym:DoomItems-v0")`` works without the import. Registration waits for gymnasium to be
imported, so the ACS compiler and the map builder (`wadgym.acs`, `wadgym.wads`) start without it.
"""

import importlib.util
import sys

__version__ = "0.1.0"


def _register_envs() -> None:
    from wadgym.envs import registration  # noqa: F401  (registers the envs on import)


class _RegisterWhenGymnasiumLoads:
    """An import hook that registers wadgym's envs right after gymnasium's own module has run."""

    def find_spec(self, name, path=None, target=None):
        if name != "gymnasium":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.loader is not None:
            exec_module = spec.loader.exec_module

            def exec_then_register(module):
                exec_module(module)
                _register_envs()

            spec.loader.exec_module = exec_then_register
        return spec


if "gymnasium" in sys.modules:
    _register_envs()
elif not any(isinstance(finder, _RegisterWhenGymnasiumLoads) for finder in sys.meta_path):
    sys.meta_path.insert(0, _RegisterWhenGymnasiumLoads())
