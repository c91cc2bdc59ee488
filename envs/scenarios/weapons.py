"""The weapons a family may arm its player with (the defend and corridor families' `weapon`), and their ammo.

The names are the engine's Doom 2 classes (vizdoom.pk3); the ACS templates give the weapon and exactly the
ammo asked for, which must not pass what the player can carry.
"""

from __future__ import annotations

# weapon -> (its ammo class, the most of it the player can carry)
WEAPONS: dict[str, tuple[str, int]] = {
    "Pistol": ("Clip", 200),
    "Chaingun": ("Clip", 200),
    "Shotgun": ("Shell", 50),
    "SuperShotgun": ("Shell", 50),
    "PlasmaRifle": ("Cell", 300),
}
