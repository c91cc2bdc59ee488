"""Built-in names of ACS as ViZDoom 1.3 runs them: what `#include "zcommon.acs"` brings, and acc's internal functions.

Every name is keyed in lowercase (ACS identifiers are case-insensitive); each entry keeps its usual spelling
in ``.name`` for messages. The engine's source is the authority for what exists and how many arguments it
reads; acc 1.58 (zspecial.acs, zdefs.acs, symbol.c) for the ACS-side conventions, so that scripts written for
acc compile to the same bytes.

- ``SPECIALS``: line specials (zspecial.acs, positive numbers), called with LSPECn / LSPECnDIRECT(B).
  ``Special(name, number, min_args, max_args, acc_args)``. ``min_args`` is acc's (missing trailing arguments
  reach the engine as 0); ``max_args`` is the most the engine reads. ``acc_args`` is acc's (min, max) where it
  differs, so a message can say why an argument acc would take is refused. acc calls a special declared with
  0 arguments as if it took one constant 0.
- ``INTERNALS``: acc's internal functions, compiled to dedicated p-codes (symbol.c's table, always in scope,
  no include needed). ``Internal(name, stack_pcode, direct_pcode, arg_count, opt_mask, returns, latent)``:
  ``direct_pcode`` (None if there is none) takes constant arguments inline; bit i of ``opt_mask`` marks
  argument i optional (acc pushes 0 for it when omitted); latent functions (Delay, ScriptWait...) may not be
  used inside functions.
- ``CALLFUNCS``: functions called through CALLFUNC (zspecial.acs, negative numbers): ``CallFunc(name, index,
  min_args, max_args, acc_args)``; the arguments and their count reach the engine as given, except where
  ``CALLFUNC_FULL_ARGS`` says the engine reads more than may be given (SpawnForced): those are padded with 0.
- ``CONSTANTS``: ``Constant(name, value)``, everything zdefs.acs defines.
- ``UNSUPPORTED``: names acc knows that this engine does not implement (it would silently do nothing,
  return 0 or stop the script): ``Unsupported(name, category, number, reason)``; the compiler refuses them.
- ``PARSER_FORMS``: names with their own syntax, which the parser handles itself (Print, HudMessage, ...).

``resolve(key, headers)`` is how the compiler finds what a name means among these, given the headers
included so far (``BUILTIN_INCLUDES``: zcommon.acs brings zspecial.acs and zdefs.acs).

These module tables are the ``vizdoom`` target's. ``for_target(target)`` gives a target's ``Builtins``:
``VIZDOOM`` (these tables) or ``ZDOOM``, acc 1.58's full set for GZDoom and Zandronum: every special and
CALLFUNC function with acc's argument counts (the UNSUPPORTED ones included), every internal function of
acc's symbol.c, every zdefs.acs constant, and nothing refused.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import NamedTuple

from .pcodes import PCD, PCODES

ZSPECIAL = "zspecial.acs"
ZDEFS = "zdefs.acs"
# Files `#include` resolves to these built-in tables; zwvars.acs is empty in acc too.
BUILTIN_INCLUDES = {
    "zcommon.acs": (ZSPECIAL, ZDEFS),
    "zspecial.acs": (ZSPECIAL,),
    "zdefs.acs": (ZDEFS,),
    "zwvars.acs": (),
}


class Special(NamedTuple):
    name: str
    number: int
    min_args: int
    max_args: int
    acc_args: tuple[int, int] | None = None
    kind = "special"


class Internal(NamedTuple):
    name: str
    stack_pcode: PCD
    direct_pcode: PCD | None
    arg_count: int
    opt_mask: int
    returns: bool
    latent: bool
    kind = "internal"

    @property
    def min_args(self) -> int:
        """Arguments before the first optional one."""
        return next((i for i in range(self.arg_count) if self.opt_mask >> i & 1), self.arg_count)


class CallFunc(NamedTuple):
    name: str
    index: int
    min_args: int
    max_args: int
    acc_args: tuple[int, int] | None = None
    kind = "callfunc"


class Constant(NamedTuple):
    """A named value: one of zdefs.acs's, or a script's #define."""

    name: str
    value: int
    kind = "constant"


@dataclass(frozen=True)
class Unsupported:
    name: str
    category: str    # what acc takes it for: "special", "internal", "callfunc" or "constant"
    number: int      # special number, p-code, CALLFUNC index or constant value
    reason: str
    kind = "unsupported"

    @property
    def header(self) -> str | None:
        """The include that declares it in acc (None: always in scope)."""
        return {"special": ZSPECIAL, "callfunc": ZSPECIAL, "constant": ZDEFS}.get(self.category)

    @property
    def message(self) -> str:
        return f"'{self.name}' is not available in ViZDoom's engine: {self.reason}"


# number name min max [acc min max]: the engine's actionspecials.h numbers and argument reads, implemented
# (not LS_NOP) in p_lnspec.cpp; min from acc's zspecial.acs.
_SPECIAL_ROWS = """
  2 Polyobj_RotateLeft                 3 3
  3 Polyobj_RotateRight                3 3
  4 Polyobj_Move                       4 4
  6 Polyobj_MoveTimes8                 4 4
  7 Polyobj_DoorSwing                  4 4
  8 Polyobj_DoorSlide                  5 5
 10 Door_Close                         2 3
 11 Door_Open                          2 3
 12 Door_Raise                         3 4
 13 Door_LockedRaise                   4 5
 14 Door_Animated                      3 4
 15 Autosave                           0 0
 17 Thing_Raise                        1 1  acc 1 2
 18 StartConversation                  1 2
 19 Thing_Stop                         1 1
 20 Floor_LowerByValue                 3 3  acc 3 4
 21 Floor_LowerToLowest                2 2  acc 2 3
 22 Floor_LowerToNearest               2 2  acc 2 3
 23 Floor_RaiseByValue                 3 3  acc 3 5
 24 Floor_RaiseToHighest               2 2  acc 2 5
 25 Floor_RaiseToNearest               2 2  acc 2 4
 26 Stairs_BuildDown                   5 5
 27 Stairs_BuildUp                     5 5
 28 Floor_RaiseAndCrush                3 4
 29 Pillar_Build                       3 3
 30 Pillar_Open                        4 4
 31 Stairs_BuildDownSync               4 4
 32 Stairs_BuildUpSync                 4 4
 33 ForceField                         0 0
 34 ClearForceField                    1 1
 35 Floor_RaiseByValueTimes8           3 3  acc 3 5
 36 Floor_LowerByValueTimes8           3 3  acc 3 4
 37 Floor_MoveToValue                  3 4  acc 3 5
 38 Ceiling_Waggle                     5 5
 39 Teleport_ZombieChanger             2 2
 40 Ceiling_LowerByValue               3 3  acc 3 5
 41 Ceiling_RaiseByValue               3 3  acc 3 4
 42 Ceiling_CrushAndRaise              3 4
 43 Ceiling_LowerAndCrush              3 4
 44 Ceiling_CrushStop                  1 1  acc 1 2
 45 Ceiling_CrushRaiseAndStay          3 4
 46 Floor_CrushStop                    1 1
 47 Ceiling_MoveToValue                3 4  acc 3 5
 49 GlassBreak                         0 1  acc 0 2
 51 Sector_SetLink                     4 4
 52 Scroll_Wall                        5 5
 53 Line_SetTextureOffset              5 5
 54 Sector_ChangeFlags                 3 3
 55 Line_SetBlocking                   3 3
 56 Line_SetTextureScale               5 5
 59 Polyobj_OR_MoveToSpot              3 3
 60 Plat_PerpetualRaise                3 3
 61 Plat_Stop                          1 1  acc 1 2
 62 Plat_DownWaitUpStay                3 3
 63 Plat_DownByValue                   4 4
 64 Plat_UpWaitDownStay                3 3
 65 Plat_UpByValue                     4 4
 66 Floor_LowerInstant                 3 3  acc 3 4
 67 Floor_RaiseInstant                 3 3  acc 3 5
 68 Floor_MoveToValueTimes8            4 4  acc 4 5
 69 Ceiling_MoveToValueTimes8          4 4  acc 4 5
 70 Teleport                           1 3
 71 Teleport_NoFog                     1 4
 72 ThrustThing                        2 4
 73 DamageThing                        1 2
 74 Teleport_NewMap                    2 3
 75 Teleport_EndGame                   0 0
 76 TeleportOther                      3 3
 77 TeleportGroup                      5 5
 78 TeleportInSector                   4 5
 79 Thing_SetConversation              2 2
 80 ACS_Execute                        2 5
 81 ACS_Suspend                        2 2
 82 ACS_Terminate                      2 2
 83 ACS_LockedExecute                  5 5
 84 ACS_ExecuteWithResult              1 5
 85 ACS_LockedExecuteDoor              5 5
 86 Polyobj_MoveToSpot                 3 3
 87 Polyobj_Stop                       1 1
 88 Polyobj_MoveTo                     4 4
 89 Polyobj_OR_MoveTo                  4 4
 90 Polyobj_OR_RotateLeft              3 3
 91 Polyobj_OR_RotateRight             3 3
 92 Polyobj_OR_Move                    4 4
 93 Polyobj_OR_MoveTimes8              4 4
 94 Pillar_BuildAndCrush               4 5
 95 FloorAndCeiling_LowerByValue       3 3
 96 FloorAndCeiling_RaiseByValue       3 3
 97 Ceiling_LowerAndCrushDist          3 5
 98 Sector_SetTranslucent              3 4
 99 Floor_RaiseAndCrushDoom            3 4
104 Ceiling_CrushAndRaiseSilentDist    4 5
109 Light_ForceLightning               1 1
110 Light_RaiseByValue                 2 2
111 Light_LowerByValue                 2 2
112 Light_ChangeToValue                2 2
113 Light_Fade                         3 3
114 Light_Glow                         4 4
115 Light_Flicker                      3 3
116 Light_Strobe                       5 5
117 Light_Stop                         1 1
119 Thing_Damage                       2 3
120 Radius_Quake                       5 5
125 Thing_Move                         2 3
127 Thing_SetSpecial                   5 5
128 ThrustThingZ                       4 4
129 UsePuzzleItem                      2 5  acc 0 0
130 Thing_Activate                     1 1
131 Thing_Deactivate                   1 1
132 Thing_Remove                       1 1
133 Thing_Destroy                      1 3
134 Thing_Projectile                   5 5
135 Thing_Spawn                        3 4
136 Thing_ProjectileGravity            5 5
137 Thing_SpawnNoFog                   3 4
138 Floor_Waggle                       5 5
139 Thing_SpawnFacing                  2 4
140 Sector_ChangeSound                 2 2
154 Teleport_NoStop                    2 3
168 Ceiling_CrushAndRaiseDist          3 5
169 Generic_Crusher2                   5 5
170 Sector_SetCeilingScale2            3 3
171 Sector_SetFloorScale2              3 3
172 Plat_UpNearestWaitDownStay         3 3
173 NoiseAlert                         2 2
174 SendToCommunicator                 4 4
175 Thing_ProjectileIntercept          5 5
176 Thing_ChangeTID                    2 2
177 Thing_Hate                         2 3
178 Thing_ProjectileAimed              4 5
179 ChangeSkill                        1 1
180 Thing_SetTranslation               2 2
183 Line_AlignCeiling                  2 2
184 Line_AlignFloor                    2 2
185 Sector_SetRotation                 3 3
186 Sector_SetCeilingPanning           5 5
187 Sector_SetFloorPanning             5 5
188 Sector_SetCeilingScale             5 5
189 Sector_SetFloorScale               5 5
191 SetPlayerProperty                  3 3
192 Ceiling_LowerToHighestFloor        2 2  acc 2 5
193 Ceiling_LowerInstant               3 3  acc 3 5
194 Ceiling_RaiseInstant               3 3  acc 3 4
195 Ceiling_CrushRaiseAndStayA         4 5
196 Ceiling_CrushAndRaiseA             4 5
197 Ceiling_CrushAndRaiseSilentA       4 5
198 Ceiling_RaiseByValueTimes8         3 3  acc 3 4
199 Ceiling_LowerByValueTimes8         3 3  acc 3 5
200 Generic_Floor                      5 5
201 Generic_Ceiling                    5 5
202 Generic_Door                       5 5
203 Generic_Lift                       5 5
204 Generic_Stairs                     5 5
205 Generic_Crusher                    5 5
206 Plat_DownWaitUpStayLip             4 5
207 Plat_PerpetualRaiseLip             4 4
208 TranslucentLine                    2 3
212 Sector_SetColor                    4 5
213 Sector_SetFade                     4 4
214 Sector_SetDamage                   3 5
215 Teleport_Line                      2 3
216 Sector_SetGravity                  3 3
217 Stairs_BuildUpDoom                 5 5
218 Sector_SetWind                     4 4
219 Sector_SetFriction                 2 2
220 Sector_SetCurrent                  4 4
221 Scroll_Texture_Both                5 5
223 Scroll_Floor                       4 4
224 Scroll_Ceiling                     4 4
226 ACS_ExecuteAlways                  2 5
228 Plat_RaiseAndStayTx0               2 3
229 Thing_SetGoal                      3 4
230 Plat_UpByValueStayTx               3 3
231 Plat_ToggleCeiling                 1 1
232 Light_StrobeDoom                   3 3
233 Light_MinNeighbor                  1 1
234 Light_MaxNeighbor                  1 1
235 Floor_TransferTrigger              1 1
236 Floor_TransferNumeric              1 1
237 ChangeCamera                       3 3
238 Floor_RaiseToLowestCeiling         2 2  acc 2 5
239 Floor_RaiseByValueTxTy             3 3
240 Floor_RaiseByTexture               2 2  acc 2 4
241 Floor_LowerToLowestTxTy            2 2
242 Floor_LowerToHighest               3 4
243 Exit_Normal                        1 1
244 Exit_Secret                        1 1
245 Elevator_RaiseToNearest            2 2
246 Elevator_MoveToFloor               2 2
247 Elevator_LowerToNearest            2 2
248 HealThing                          1 2
249 Door_CloseWaitOpen                 3 4
250 Floor_Donut                        3 3
251 FloorAndCeiling_LowerRaise         3 4
252 Ceiling_RaiseToNearest             2 2  acc 2 3
253 Ceiling_LowerToLowest              2 2  acc 2 4
254 Ceiling_LowerToFloor               2 2  acc 2 5
255 Ceiling_CrushRaiseAndStaySilA      4 5
"""

# name stack-pcode direct-pcode(- none) argc opt-mask flags(R returns, L latent, - neither):
# acc 1.58 symbol.c's InternalFunctions, minus those the engine cannot run (see UNSUPPORTED).
_INTERNAL_ROWS = """
TagWait                   TAGWAIT                   TAGWAITDIRECT          1   0 L
PolyWait                  POLYWAIT                  POLYWAITDIRECT         1   0 L
ScriptWait                SCRIPTWAIT                SCRIPTWAITDIRECT       1   0 L
NamedScriptWait           SCRIPTWAITNAMED           -                      1   0 L
Delay                     DELAY                     DELAYDIRECT            1   0 L
Random                    RANDOM                    RANDOMDIRECT           2   0 R
ThingCount                THINGCOUNT                THINGCOUNTDIRECT       2   0 R
ThingCountName            THINGCOUNTNAME            -                      2   0 R
ChangeFloor               CHANGEFLOOR               CHANGEFLOORDIRECT      2   0 -
ChangeCeiling             CHANGECEILING             CHANGECEILINGDIRECT    2   0 -
LineSide                  LINESIDE                  -                      0   0 R
ClearLineSpecial          CLEARLINESPECIAL          -                      0   0 -
PlayerCount               PLAYERCOUNT               -                      0   0 R
GameType                  GAMETYPE                  -                      0   0 R
GameSkill                 GAMESKILL                 -                      0   0 R
Timer                     TIMER                     -                      0   0 R
SectorSound               SECTORSOUND               -                      2   0 -
AmbientSound              AMBIENTSOUND              -                      2   0 -
SoundSequence             SOUNDSEQUENCE             -                      1   0 -
SetLineTexture            SETLINETEXTURE            -                      4   0 -
SetLineBlocking           SETLINEBLOCKING           -                      2   0 -
SetLineSpecial            SETLINESPECIAL            -                      7 124 -
ThingSound                THINGSOUND                -                      3   0 -
ActivatorSound            ACTIVATORSOUND            -                      2   0 -
LocalAmbientSound         LOCALAMBIENTSOUND         -                      2   0 -
SetLineMonsterBlocking    SETLINEMONSTERBLOCKING    -                      2   0 -
FixedMul                  FIXEDMUL                  -                      2   0 R
FixedDiv                  FIXEDDIV                  -                      2   0 R
PlayerFrags               PLAYERFRAGS               -                      0   0 R
PlayerHealth              PLAYERHEALTH              -                      0   0 R
PlayerArmorPoints         PLAYERARMORPOINTS         -                      0   0 R
Music_Change              MUSICCHANGE               -                      2   0 -
SinglePlayer              SINGLEPLAYER              -                      0   0 R
SetGravity                SETGRAVITY                SETGRAVITYDIRECT       1   0 -
SetAirControl             SETAIRCONTROL             SETAIRCONTROLDIRECT    1   0 -
ClearInventory            CLEARINVENTORY            -                      0   0 -
GiveInventory             GIVEINVENTORY             GIVEINVENTORYDIRECT    2   0 -
TakeInventory             TAKEINVENTORY             TAKEINVENTORYDIRECT    2   0 -
CheckInventory            CHECKINVENTORY            CHECKINVENTORYDIRECT   1   0 R
ClearActorInventory       CLEARACTORINVENTORY       -                      1   0 -
GiveActorInventory        GIVEACTORINVENTORY        -                      3   0 -
TakeActorInventory        TAKEACTORINVENTORY        -                      3   0 -
CheckActorInventory       CHECKACTORINVENTORY       -                      2   0 R
Spawn                     SPAWN                     SPAWNDIRECT            6  48 R
SpawnSpot                 SPAWNSPOT                 SPAWNSPOTDIRECT        4  12 R
SpawnSpotFacing           SPAWNSPOTFACING           -                      3   4 R
SetMusic                  SETMUSIC                  SETMUSICDIRECT         3   6 -
LocalSetMusic             LOCALSETMUSIC             LOCALSETMUSICDIRECT    3   6 -
SetFont                   SETFONT                   SETFONTDIRECT          1   0 -
SetThingSpecial           SETTHINGSPECIAL           -                      7 124 -
FadeTo                    FADETO                    -                      5   0 -
FadeRange                 FADERANGE                 -                      9   0 -
CancelFade                CANCELFADE                -                      0   0 -
PlayMovie                 PLAYMOVIE                 -                      1   0 R
SetFloorTrigger           SETFLOORTRIGGER           -                      8 248 -
SetCeilingTrigger         SETCEILINGTRIGGER         -                      8 248 -
SetActorPosition          SETACTORPOSITION          -                      5   0 R
GetActorX                 GETACTORX                 -                      1   0 R
GetActorY                 GETACTORY                 -                      1   0 R
GetActorZ                 GETACTORZ                 -                      1   0 R
GetActorFloorZ            GETACTORFLOORZ            -                      1   0 R
GetActorCeilingZ          GETACTORCEILINGZ          -                      1   0 R
GetActorAngle             GETACTORANGLE             -                      1   0 R
Sin                       SIN                       -                      1   0 R
Cos                       COS                       -                      1   0 R
VectorAngle               VECTORANGLE               -                      2   0 R
CheckWeapon               CHECKWEAPON               -                      1   0 R
SetWeapon                 SETWEAPON                 -                      1   0 R
SetMarineWeapon           SETMARINEWEAPON           -                      2   0 -
SetActorProperty          SETACTORPROPERTY          -                      3   0 -
GetActorProperty          GETACTORPROPERTY          -                      2   0 R
PlayerNumber              PLAYERNUMBER              -                      0   0 R
ActivatorTID              ACTIVATORTID              -                      0   0 R
SetMarineSprite           SETMARINESPRITE           -                      2   0 -
GetScreenWidth            GETSCREENWIDTH            -                      0   0 R
GetScreenHeight           GETSCREENHEIGHT           -                      0   0 R
Thing_Projectile2         THING_PROJECTILE2         -                      7   0 -
StrLen                    STRLEN                    -                      1   0 R
SetHudSize                SETHUDSIZE                -                      3   0 -
GetCvar                   GETCVAR                   -                      1   0 R
SetResultValue            SETRESULTVALUE            -                      1   0 -
GetLineRowOffset          GETLINEROWOFFSET          -                      0   0 R
GetSectorFloorZ           GETSECTORFLOORZ           -                      3   0 R
GetSectorCeilingZ         GETSECTORCEILINGZ         -                      3   0 R
GetSigilPieces            GETSIGILPIECES            -                      0   0 R
GetLevelInfo              GETLEVELINFO              -                      1   0 R
ChangeSky                 CHANGESKY                 -                      2   0 -
PlayerInGame              PLAYERINGAME              -                      1   0 R
PlayerIsBot               PLAYERISBOT               -                      1   0 R
SetCameraToTexture        SETCAMERATOTEXTURE        -                      3   0 -
GetAmmoCapacity           GETAMMOCAPACITY           -                      1   0 R
SetAmmoCapacity           SETAMMOCAPACITY           -                      2   0 -
SetActorAngle             SETACTORANGLE             -                      2   0 -
SpawnProjectile           SPAWNPROJECTILE           -                      7   0 -
GetSectorLightLevel       GETSECTORLIGHTLEVEL       -                      1   0 R
PlayerClass               PLAYERCLASS               -                      1   0 R
GetPlayerInfo             GETPLAYERINFO             -                      2   0 R
ChangeLevel               CHANGELEVEL               -                      4   8 -
SectorDamage              SECTORDAMAGE              -                      5   0 -
ReplaceTextures           REPLACETEXTURES           -                      3   4 -
GetActorPitch             GETACTORPITCH             -                      1   0 R
SetActorPitch             SETACTORPITCH             -                      2   0 -
SetActorState             SETACTORSTATE             -                      3   4 R
Thing_Damage2             THINGDAMAGE2              -                      3   0 R
UseInventory              USEINVENTORY              -                      1   0 R
UseActorInventory         USEACTORINVENTORY         -                      2   0 R
CheckActorCeilingTexture  CHECKACTORCEILINGTEXTURE  -                      2   0 R
CheckActorFloorTexture    CHECKACTORFLOORTEXTURE    -                      2   0 R
GetActorLightLevel        GETACTORLIGHTLEVEL        -                      1   0 R
SetMugShotState           SETMUGSHOTSTATE           -                      1   0 -
ThingCountSector          THINGCOUNTSECTOR          -                      3   0 R
ThingCountNameSector      THINGCOUNTNAMESECTOR      -                      3   0 R
CheckPlayerCamera         CHECKPLAYERCAMERA         -                      1   0 R
UnMorphActor              UNMORPHACTOR              -                      2   2 R
GetPlayerInput            GETPLAYERINPUT            -                      2   0 R
ClassifyActor             CLASSIFYACTOR             -                      1   0 R
"""

# index name min max [acc min max]: zspecial.acs's negative numbers that p_acs.cpp's CallFunction handles;
# max is what the engine reads where acc allows more.
_CALLFUNC_ROWS = """
    1 GetLineUDMFInt               2 2
    2 GetLineUDMFFixed             2 2
    5 GetSectorUDMFInt             2 2
    6 GetSectorUDMFFixed           2 2
    7 GetSideUDMFInt               3 3
    8 GetSideUDMFFixed             3 3
    9 GetActorVelX                 1 1
   10 GetActorVelY                 1 1
   11 GetActorVelZ                 1 1
   12 SetActivator                 1 2
   13 SetActivatorToTarget         1 1
   14 GetActorViewHeight           1 1
   15 GetChar                      2 2
   16 GetAirSupply                 1 1
   17 SetAirSupply                 2 2
   18 SetSkyScrollSpeed            2 2
   19 GetArmorType                 2 2
   20 SpawnSpotForced              4 4
   21 SpawnSpotFacingForced        3 3
   22 CheckActorProperty           3 3
   23 SetActorVelocity             6 6
   24 SetUserVariable              3 3
   25 GetUserVariable              2 2
   26 Radius_Quake2                6 6
   27 CheckActorClass              2 2
   28 SetUserArray                 4 4
   29 GetUserArray                 3 3
   30 SoundSequenceOnActor         2 2
   31 SoundSequenceOnSector        3 3
   32 SoundSequenceOnPolyobj       2 2
   33 GetPolyobjX                  1 1
   34 GetPolyobjY                  1 1
   35 CheckSight                   3 3
   36 SpawnForced                  4 6
   38 SetPointer                   2 4
   39 ACS_NamedExecute             2 5
   40 ACS_NamedSuspend             2 2
   41 ACS_NamedTerminate           2 2
   42 ACS_NamedLockedExecute       5 5
   43 ACS_NamedLockedExecuteDoor   5 5
   44 ACS_NamedExecuteWithResult   1 5
   45 ACS_NamedExecuteAlways       2 5
   46 UniqueTID                    0 2
   47 IsTIDUsed                    1 1
   48 Sqrt                         1 1
   49 FixedSqrt                    1 1
   50 VectorLength                 2 2
   51 SetHUDClipRect               4 6
   52 SetHUDWrapWidth              1 1
   53 SetCVar                      2 2
   54 GetUserCVar                  2 2
   55 SetUserCVar                  3 3
   56 GetCVarString                1 1
   57 SetCVarString                2 2
   58 GetUserCVarString            2 2
   59 SetUserCVarString            3 3
   60 LineAttack                   4 9
   61 PlaySound                    2 6  acc 2 7
   62 StopSound                    1 2
   63 strcmp                       2 3
   64 stricmp                      2 3
   64 strcasecmp                   2 3
   65 StrLeft                      2 2
   66 StrRight                     2 2
   67 StrMid                       3 3
   68 GetActorClass                1 1
   69 GetWeapon                    0 0
   70 SoundVolume                  3 3
   71 PlayActorSound               2 6
   72 SpawnDecal                   2 6
   73 CheckFont                    1 1
   74 DropItem                     2 4
   75 CheckFlag                    2 2
   76 SetLineActivation            2 2
   77 GetLineActivation            1 1
   78 GetActorPowerupTics          2 2
   79 ChangeActorAngle             2 3
   80 ChangeActorPitch             2 3
   81 GetArmorInfo                 1 1
   82 DropInventory                2 2
   83 PickActor                    5 8
   84 IsPointerEqual               2 4
   85 CanRaiseActor                1 1
   86 SetActorTeleFog              3 3
   87 SwapActorTeleFog             1 1
   88 SetActorRoll                 2 2
   89 ChangeActorRoll              2 3
   90 GetActorRoll                 1 1
   91 QuakeEx                      8 12  acc 8 16
   92 Warp                         6 11
   93 GetMaxInventory              2 2
   94 SetSectorDamage              2 5
   95 SetSectorTerrain             3 3
   96 SpawnParticle                1 15  acc 1 16
"""

# CALLFUNC index -> the argument count the engine reads however many it is given (p_acs.cpp's CallFunction;
# every other function checks argCount before it reads an optional argument). The compiler pushes 0 for each
# one left out, so the engine never reads a stale stack slot: SpawnForced's tid and angle default to 0.
CALLFUNC_FULL_ARGS = {36: 6}

# NAME=value, everything zdefs.acs defines (fixed-point values already scaled by 65536; hex is a u32 bit
# pattern). Values checked against the engine's enums where it names them (APROP_, BT_, LEVELINFO_, ...).
_CONSTANT_ROWS = """
TRUE=1 FALSE=0 ON=1 OFF=0 YES=1 NO=0 SCROLL=0 CARRY=1

LINE_FRONT=0 LINE_BACK=1

SIDE_FRONT=0 SIDE_BACK=1

TEXTURE_TOP=0 TEXTURE_MIDDLE=1 TEXTURE_BOTTOM=2

TEXFLAG_TOP=1 TEXFLAG_MIDDLE=2 TEXFLAG_BOTTOM=4 TEXFLAG_ADDOFFSET=8

GAME_SINGLE_PLAYER=0 GAME_NET_COOPERATIVE=1 GAME_NET_DEATHMATCH=2 GAME_TITLE_MAP=3

CLASS_FIGHTER=0 CLASS_CLERIC=1 CLASS_MAGE=2

SKILL_VERY_EASY=0 SKILL_EASY=1 SKILL_NORMAL=2 SKILL_HARD=3 SKILL_VERY_HARD=4

BLOCK_NOTHING=0 BLOCK_CREATURES=1 BLOCK_EVERYTHING=2 BLOCK_RAILING=3 BLOCK_PLAYERS=4

SCROLL_AND_CARRY=2

MOD_UNKNOWN=0 MOD_ROCKET=5 MOD_R_SPLASH=6 MOD_PLASMARIFLE=7 MOD_BFG_BOOM=8 MOD_BFG_SPLASH=9
MOD_CHAINSAW=10 MOD_SSHOTGUN=11 MOD_WATER=12 MOD_SLIME=13 MOD_LAVA=14 MOD_CRUSH=15 MOD_TELEFRAG=16
MOD_FALLING=17 MOD_SUICIDE=18 MOD_BARREL=19 MOD_EXIT=20 MOD_SPLASH=21 MOD_HIT=22 MOD_RAILGUN=23
MOD_ICE=24 MOD_DISINTEGRATE=25 MOD_POISON=26 MOD_ELECTRIC=27

MOVIE_Played=0 MOVIE_Played_NoVideo=1 MOVIE_Played_Aborted=2 MOVIE_Failed=-1

PROP_FROZEN=0 PROP_NOTARGET=1 PROP_INSTANTWEAPONSWITCH=2 PROP_FLY=3 PROP_TOTALLYFROZEN=4
PROP_BUDDHA=16 PROP_INVULNERABILITY=5 PROP_STRENGTH=6 PROP_INVISIBILITY=7 PROP_RADIATIONSUIT=8
PROP_ALLMAP=9 PROP_INFRARED=10 PROP_WEAPONLEVEL2=11 PROP_FLIGHT=12 PROP_SPEED=15

INPUT_OLDBUTTONS=0 INPUT_BUTTONS=1 INPUT_PITCH=2 INPUT_YAW=3 INPUT_ROLL=4 INPUT_FORWARDMOVE=5
INPUT_SIDEMOVE=6 INPUT_UPMOVE=7

MODINPUT_OLDBUTTONS=8 MODINPUT_BUTTONS=9 MODINPUT_PITCH=10 MODINPUT_YAW=11 MODINPUT_ROLL=12
MODINPUT_FORWARDMOVE=13 MODINPUT_SIDEMOVE=14 MODINPUT_UPMOVE=15

BT_ATTACK=1 BT_USE=2 BT_JUMP=4 BT_CROUCH=8 BT_TURN180=16 BT_ALTATTACK=32 BT_RELOAD=64 BT_ZOOM=128
BT_SPEED=256 BT_STRAFE=512 BT_MOVERIGHT=1024 BT_MOVELEFT=2048 BT_BACK=4096 BT_FORWARD=8192
BT_RIGHT=16384 BT_LEFT=32768 BT_LOOKUP=65536 BT_LOOKDOWN=131072 BT_MOVEUP=262144
BT_MOVEDOWN=524288 BT_SHOWSCORES=1048576 BT_USER1=2097152 BT_USER2=4194304 BT_USER3=8388608
BT_USER4=16777216

CR_UNTRANSLATED=-1 CR_BRICK=0 CR_TAN=1 CR_GRAY=2 CR_GREY=2 CR_GREEN=3 CR_BROWN=4 CR_GOLD=5
CR_RED=6 CR_BLUE=7 CR_ORANGE=8 CR_WHITE=9 CR_YELLOW=10 CR_BLACK=12 CR_LIGHTBLUE=13 CR_CREAM=14
CR_OLIVE=15 CR_DARKGREEN=16 CR_DARKRED=17 CR_DARKBROWN=18 CR_PURPLE=19 CR_DARKGRAY=20
CR_DARKGREY=20 CR_CYAN=21 CR_ICE=22 CR_FIRE=23 CR_SAPPHIRE=24 CR_TEAL=25

HUDMSG_PLAIN=0 HUDMSG_FADEOUT=1 HUDMSG_TYPEON=2 HUDMSG_FADEINOUT=3 HUDMSG_LOG=-0x80000000
HUDMSG_COLORSTRING=0x40000000 HUDMSG_ADDBLEND=0x20000000 HUDMSG_ALPHA=0x10000000
HUDMSG_NOWRAP=0x8000000 HUDMSG_LAYER_OVERHUD=0x0 HUDMSG_LAYER_UNDERHUD=0x1000
HUDMSG_LAYER_OVERMAP=0x2000 HUDMSG_NOTWITH3DVIEW=0x10000 HUDMSG_NOTWITHFULLMAP=0x20000
HUDMSG_NOTWITHOVERLAYMAP=0x40000

MARINEWEAPON_Dummy=0 MARINEWEAPON_Fist=1 MARINEWEAPON_BerserkFist=2 MARINEWEAPON_Chainsaw=3
MARINEWEAPON_Pistol=4 MARINEWEAPON_Shotgun=5 MARINEWEAPON_SuperShotgun=6 MARINEWEAPON_Chaingun=7
MARINEWEAPON_RocketLauncher=8 MARINEWEAPON_PlasmaRifle=9 MARINEWEAPON_Railgun=10
MARINEWEAPON_BFG=11

APROP_Health=0 APROP_Speed=1 APROP_Damage=2 APROP_Alpha=3 APROP_RenderStyle=4 APROP_SeeSound=5
APROP_AttackSound=6 APROP_PainSound=7 APROP_DeathSound=8 APROP_ActiveSound=9 APROP_Ambush=10
APROP_Invulnerable=11 APROP_JumpZ=12 APROP_ChaseGoal=13 APROP_Frightened=14 APROP_Gravity=15
APROP_Friendly=16 APROP_SpawnHealth=17 APROP_Dropped=18 APROP_Notarget=19 APROP_Species=20
APROP_Nametag=21 APROP_Score=22 APROP_Notrigger=23 APROP_DamageFactor=24 APROP_MasterTID=25
APROP_TargetTID=26 APROP_TracerTID=27 APROP_Waterlevel=28 APROP_ScaleX=29 APROP_ScaleY=30
APROP_Dormant=31 APROP_Mass=32 APROP_Accuracy=33 APROP_Stamina=34 APROP_Height=35 APROP_Radius=36
APROP_Reactiontime=37 APROP_MeleeRange=38 APROP_ViewHeight=39 APROP_AttackZOffset=40
APROP_StencilColor=41 APROP_Friction=42 APROP_DamageMultiplier=43 APROP_MaxStepHeight=44
APROP_MaxDropOffHeight=45 APROP_DamageType=46 APROP_Counter0=100 APROP_Counter1=101
APROP_Counter2=102 APROP_Counter3=103 APROP_Counter4=104 APROP_Counter5=105 APROP_Counter6=106
APROP_Counter7=107

STYLE_None=0 STYLE_Normal=1 STYLE_Fuzzy=2 STYLE_SoulTrans=3 STYLE_OptFuzzy=4 STYLE_Stencil=5
STYLE_AddStencil=6 STYLE_AddShaded=7 STYLE_Translucent=64 STYLE_Add=65 STYLE_Shaded=66
STYLE_TranslucentStencil=67 STYLE_Shadow=68 STYLE_Subtract=69

LEVELINFO_PAR_TIME=0 LEVELINFO_CLUSTERNUM=1 LEVELINFO_LEVELNUM=2 LEVELINFO_TOTAL_SECRETS=3
LEVELINFO_FOUND_SECRETS=4 LEVELINFO_TOTAL_ITEMS=5 LEVELINFO_FOUND_ITEMS=6
LEVELINFO_TOTAL_MONSTERS=7 LEVELINFO_KILLED_MONSTERS=8 LEVELINFO_SUCK_TIME=9

PLAYERINFO_TEAM=0 PLAYERINFO_AIMDIST=1 PLAYERINFO_COLOR=2 PLAYERINFO_GENDER=3
PLAYERINFO_NEVERSWITCH=4 PLAYERINFO_MOVEBOB=5 PLAYERINFO_STILLBOB=6 PLAYERINFO_PLAYERCLASS=7
PLAYERINFO_FOV=8 PLAYERINFO_DESIREDFOV=9

NOT_BOTTOM=1 NOT_MIDDLE=2 NOT_TOP=4 NOT_FLOOR=8 NOT_CEILING=16

DAMAGE_PLAYERS=1 DAMAGE_NONPLAYERS=2 DAMAGE_IN_AIR=4 DAMAGE_SUBCLASSES_PROTECT=8
DAMAGE_NO_ARMOR=16

MRF_OLDEFFECTS=0x0 MRF_ADDSTAMINA=0x1 MRF_FULLHEALTH=0x2 MRF_UNDOBYTOMEOFPOWER=0x4
MRF_UNDOBYCHAOSDEVICE=0x8 MRF_FAILNOTELEFRAG=0x10 MRF_FAILNOLAUGH=0x20 MRF_WHENINVULNERABLE=0x40
MRF_LOSEACTUALWEAPON=0x80 MRF_NEWTIDBEHAVIOUR=0x100 MRF_UNDOBYDEATH=0x200
MRF_UNDOBYDEATHFORCED=0x400 MRF_UNDOBYDEATHSAVES=0x800 MRF_UNDOALWAYS=0x1000
MRF_TRANSFERTRANSLATION=0x2000

T_ROCK1=41 T_ROCK2=42 T_ROCK3=43 T_DIRT1=44 T_DIRT2=45 T_DIRT3=46 T_DIRT4=47 T_DIRT5=48 T_DIRT6=49
T_STAINEDGLASS1=54 T_STAINEDGLASS2=55 T_STAINEDGLASS3=56 T_STAINEDGLASS4=57 T_STAINEDGLASS5=58
T_STAINEDGLASS6=59 T_STAINEDGLASS7=60 T_STAINEDGLASS8=61 T_STAINEDGLASS9=62 T_STAINEDGLASS0=63
T_NONE=0 T_SHOTGUY=1 T_CHAINGUY=2 T_BARON=3 T_ZOMBIE=4 T_IMP=5 T_ARACHNOTRON=6
T_SPIDERMASTERMIND=7 T_DEMON=8 T_SPECTRE=9 T_IMPFIREBALL=10 T_CLIP=11 T_SHELLS=12 T_CACODEMON=19
T_REVENANT=20 T_BRIDGE=21 T_ARMORBONUS=22 T_STIMPACK=23 T_MEDKIT=24 T_SOULSPHERE=25 T_SHOTGUN=27
T_CHAINGUN=28 T_ROCKETLAUNCHER=29 T_PLASMAGUN=30 T_BFG=31 T_CHAINSAW=32 T_SUPERSHOTGUN=33
T_PLASMABOLT=51 T_TRACER=53 T_GREENARMOR=68 T_BLUEARMOR=69 T_CELL=75 T_BLUEKEYCARD=85
T_REDKEYCARD=86 T_YELLOWKEYCARD=87 T_YELLOWSKULLKEY=88 T_REDSKULLKEY=89 T_BLUESKULLKEY=90
T_TEMPLARGEFLAME=98 T_STEALTHBARON=100 T_STEALTHKNIGHT=101 T_STEALTHZOMBIE=102
T_STEALTHSHOTGUY=103 T_LOSTSOUL=110 T_VILE=111 T_MANCUBUS=112 T_HELLKNIGHT=113 T_CYBERDEMON=114
T_PAINELEMENTAL=115 T_WOLFSS=116 T_STEALTHARACHNOTRON=117 T_STEALTHVILE=118 T_STEALTHCACODEMON=119
T_STEALTHCHAINGUY=120 T_STEALTHSERGEANT=121 T_STEALTHIMP=122 T_STEALTHMANCUBUS=123
T_STEALTHREVENANT=124 T_BARREL=125 T_CACODEMONSHOT=126 T_ROCKET=127 T_BFGSHOT=128
T_ARACHNOTRONPLASMA=129 T_BLOOD=130 T_PUFF=131 T_MEGASPHERE=132 T_INVULNERABILITY=133
T_BERSERK=134 T_INVISIBILITY=135 T_IRONFEET=136 T_COMPUTERMAP=137 T_LIGHTAMP=138 T_AMMOBOX=139
T_ROCKETAMMO=140 T_ROCKETBOX=141 T_BATTERY=142 T_SHELLBOX=143 T_BACKPACK=144 T_GUTS=145
T_BLOODPOOL=146 T_BLOODPOOL1=147 T_BLOODPOOL2=148 T_FLAMINGBARREL=149 T_BRAINS=150
T_SCRIPTEDMARINE=151 T_HEALTHBONUS=152 T_MANCUBUSSHOT=153 T_BARONBALL=154 T_CLINK=1
T_MUMMYLEADER=2 T_BEAST=3 T_MUMMY=4 T_KNIGHT=6 T_IMPLEADER=7 T_MUMMYGHOST=8 T_MUMMYLEADERGHOST=9
T_WIMPYWANDAMMO=11 T_HEFTYWANDAMMO=12 T_ITEMEGG=14 T_ITEMFLIGHT=15 T_ITEMTELEPORT=18 T_WIZARD=19
T_IRONLICH=20 T_ITEMHEALTHPOTION=23 T_ITEMHEALTHFLASH=24 T_ITEMHEALTHFLASK=24 T_ITEMHEALTHFULL=25
T_CROSSBOW=27 T_BLASTER=28 T_PHOENIXROD=29 T_SKULLROD=30 T_MACE=31 T_GAUNTLETS=32
T_WIMPYCROSSBOWAMMO=33 T_HEFTYCROSSBOWAMMO=34 T_WIMPYMACEAMMO=35 T_HEFTYMACEAMMO=36
T_WIMPYBLASTERAMMO=37 T_HEFTYBLASTERAMMO=38 T_MORPHBLAST=40 T_SHIELD1=68 T_SHIELD2=69
T_ITEMTIMEBOMB=72 T_ITEMTORCH=73 T_BLUEKEY=85 T_GREENKEY=86 T_YELLOWKEY=87 T_SOUND_WIND=110
T_SOUND_WATERFALL=111 T_BEASTBALL=120 T_FEATHER=121 T_CHICKEN=122 T_VOLCANOBALL=123
T_TINYVOLCANOBALL=124 T_POD=125 T_PODGENERATOR=126 T_KNIGHTAXE=127 T_KNIGHTBLOODAXE=128
T_KNIGHTGHOST=129 T_MUMMYHEAD=131 T_SNAKE=132 T_ITEMINVULNERABILITY=133 T_ITEMTOME=134
T_ITEMINVISIBILITY=135 T_ITEMBAGOFHOLDING=136 T_ITEMALLMAP=137 T_SNAKEPROJECTILE=138
T_SNAKEPROJECTILEBIG=139 T_WIZARDSHOT=140 T_DSPARILTELEPORTDEST=141 T_DSPARILONSERPENT=142
T_DSPARILALONE=143 T_SERPENTFIREBALL=144 T_DSPARILBLUESHOT=145 T_DSPARILWIZARDSPAWNER=146
T_CROSSBOWMAINBLAST=147 T_CROSSBOWMINIBLAST=148 T_CROSSBOWPOWERBLAST=149 T_VOLCANO=150
T_POWERWANDMINIBLAST=151 T_POWERWANDBIGGERBLAST=152 T_DEATHBALL=153 T_NOGRAVITYMACEBALL=154
T_BOUNCYMACEBALL=155 T_HEAVYMACEBALL=156 T_RIPPER=157 T_WIMPYSKULLRODAMMO=158
T_HEFTYSKULLRODAMMO=159 T_SKULLRODBLAST=160 T_WIMPYPHOENIXRODAMMO=161 T_HEFTYPHOENIXRODAMMO=162
T_PHOENIXSHOT=163 T_IRONLICHBLUESHOT=164 T_WHIRLWIND=165 T_REDTELEGLITTER=166
T_BLUETELEGLITTER=167 T_CENTAUR=1 T_CENTAURLEADER=2 T_DEMON1=3 T_ETTIN=4 T_FIREGARGOYLE=5
T_WATERLURKER=6 T_WATERLURKERLEADER=7 T_WRAITH=8 T_WRAITHBURIED=9 T_FIREBALL1=10 T_MANA1=11
T_MANA2=12 T_ITEMBOOTS=13 T_ITEMPORK=14 T_ITEMSUMMON=16 T_ITEMTPORTOTHER=17 T_BISHOP=19
T_ICEGOLEM=20 T_DRAGONSKINBRACERS=22 T_ITEMBOOSTMANA=26 T_FIGHTERAXE=27 T_FIGHTERHAMMER=28
T_FIGHTERSWORD1=29 T_FIGHTERSWORD2=30 T_FIGHTERSWORD3=31 T_CLERICSTAFF=32 T_CLERICHOLY1=33
T_CLERICHOLY2=34 T_CLERICHOLY3=35 T_MAGESHARDS=36 T_MAGESTAFF1=37 T_MAGESTAFF2=38 T_MAGESTAFF3=39
T_ARROW=50 T_DART=51 T_POISONDART=52 T_RIPPERBALL=53 T_BLADE=64 T_ICESHARD=65 T_FLAME_SMALL=66
T_FLAME_LARGE=67 T_MESHARMOR=68 T_FALCONSHIELD=69 T_PLATINUMHELM=70 T_AMULETOFWARDING=71
T_ITEMFLECHETTE=72 T_ITEMREPULSION=74 T_MANA3=75 T_PUZZSKULL=76 T_PUZZGEMBIG=77 T_PUZZGEMRED=78
T_PUZZGEMGREEN1=79 T_PUZZGEMGREEN2=80 T_PUZZGEMBLUE1=81 T_PUZZGEMBLUE2=82 T_PUZZBOOK1=83
T_PUZZBOOK2=84 T_METALKEY=85 T_SMALLMETALKEY=86 T_AXEKEY=87 T_FIREKEY=88 T_EMERALDKEY=89
T_MACEKEY=90 T_SILVERKEY=91 T_RUSTYKEY=92 T_HORNKEY=93 T_SERPENTKEY=94 T_WATERDRIP=95
T_TEMPSMALLFLAME=96 T_PERMSMALLFLAME=97 T_PERMLARGEFLAME=99 T_DEMON_MASH=100 T_DEMON2_MASH=101
T_ETTIN_MASH=102 T_CENTAUR_MASH=103 T_THRUSTSPIKEUP=104 T_THRUSTSPIKEDOWN=105 T_FLESH_DRIP1=106
T_FLESH_DRIP2=107 T_SPARK_DRIP=108 T_GRENADE=216 T_BFG10KSHOT=217 T_DARKIMPFIREBALL=218
T_CACOLANTERNSHOT=219 T_ABADDONSHOT=221 T_DARKIMP=155 T_BLOODDEMON=156 T_SSGGUY=157 T_HECTEBUS=158
T_CACOLANTERN=159 T_BELPHEGOR=215 T_ABADDON=220 T_PISTOL=162 T_GRENADELAUNCHER=163 T_RAILGUN=164
T_BFG10000=165 T_MINIGUN=214 T_MAXHEALTHBONUS=166 T_MAXARMORBONUS=167 T_REDARMOR=168
T_TURBOSPHERE=169 T_ANTIGRAVBELT=170 T_TIMEFREEZER=171 T_INFRAGOGGLES=172 T_INFRATRACKER=173
T_TRANSLUCENCY=174 T_DOOMSPHERE=175 T_RANDOMPOWERUP=176 T_BLUEFLAG=177 T_REDFLAG=178
T_WHITEFLAG=179 T_STRENGTH=180 T_RAGE=181 T_DRAIN=182 T_SPREAD=183 T_RESISTANCE=184
T_REGENERATION=185 T_PROSPERITY=186 T_REFLECTION=187 T_HIGHJUMP=188 T_HASTE=189

ACTOR_NONE=0 ACTOR_WORLD=1 ACTOR_PLAYER=2 ACTOR_BOT=4 ACTOR_VOODOODOLL=8 ACTOR_MONSTER=16
ACTOR_ALIVE=32 ACTOR_DEAD=64 ACTOR_MISSILE=128 ACTOR_GENERIC=256

SECSEQ_FLOOR=1 SECSEQ_CEILING=2 SECSEQ_FULLHEIGHT=3 SECSEQ_INTERIOR=4

CHAN_AUTO=0 CHAN_WEAPON=1 CHAN_VOICE=2 CHAN_ITEM=3 CHAN_BODY=4 CHAN_5=5 CHAN_6=6 CHAN_7=7
CHAN_LISTENERZ=8 CHAN_MAYBE_LOCAL=16 CHAN_UI=32 CHAN_NOPAUSE=64

ATTN_NONE=0 ATTN_NORM=65536 ATTN_IDLE=65601 ATTN_STATIC=196608

SOUND_See=0 SOUND_Attack=1 SOUND_Pain=2 SOUND_Death=3 SOUND_Active=4 SOUND_Use=5 SOUND_Bounce=6
SOUND_WallBounce=7 SOUND_CrushPain=8 SOUND_Howl=9

SDF_ABSANGLE=1 SDF_PERMANENT=2

AAPTR_DEFAULT=0 AAPTR_NULL=0x1 AAPTR_TARGET=0x2 AAPTR_MASTER=0x4 AAPTR_TRACER=0x8
AAPTR_PLAYER_GETTARGET=0x10 AAPTR_PLAYER_GETCONVERSATION=0x20 AAPTR_PLAYER1=0x40
AAPTR_PLAYER2=0x80 AAPTR_PLAYER3=0x100 AAPTR_PLAYER4=0x200 AAPTR_PLAYER5=0x400 AAPTR_PLAYER6=0x800
AAPTR_PLAYER7=0x1000 AAPTR_PLAYER8=0x2000 AAPTR_FRIENDPLAYER=0x4000 AAPTR_GET_LINETARGET=0x8000

PTROP_UNSAFETARGET=1 PTROP_UNSAFEMASTER=2 PTROP_NOSAFEGUARDS=3

SPAC_Cross=1 SPAC_Use=2 SPAC_MCross=4 SPAC_Impact=8 SPAC_Push=16 SPAC_PCross=32 SPAC_UseThrough=64
SPAC_AnyCross=128 SPAC_MUse=256 SPAC_MPush=512 SPAC_UseBack=1024 SPAC_None=0

ARMORINFO_CLASSNAME=0 ARMORINFO_SAVEAMOUNT=1 ARMORINFO_SAVEPERCENT=2 ARMORINFO_MAXABSORB=3
ARMORINFO_MAXFULLABSORB=4 ARMORINFO_ACTUALSAVEAMOUNT=5

TEAM_BLUE=0 TEAM_RED=1

NO_TEAM=2 NO_CHANGE=2147418112

TPROP_Name=0 TPROP_Score=1 TPROP_IsValid=2 TPROP_NumPlayers=3 TPROP_NumLivePlayers=4
TPROP_TextColor=5 TPROP_PlayerStartNum=6 TPROP_Spread=7 TPROP_Carrier=8 TPROP_Assister=9
TPROP_FragCount=10 TPROP_DeathCount=11 TPROP_WinCount=12 TPROP_PointCount=13 TPROP_ReturnTics=14
TPROP_TeamItem=15 TPROP_WinnerTheme=16 TPROP_LoserTheme=17

IS_WAITINGFORPLAYERS=0 IS_FIRSTCOUNTDOWN=1 IS_INPROGRESS=2 IS_BOSSFIGHT=3 IS_WAVECOMPLETE=4
IS_COUNTDOWN=5

DB_ORDER_ASC=0 DB_ORDER_DESC=1

EV_KeyDown=1 EV_KeyRepeat=2 EV_KeyUp=3 EV_Char=4 EV_MouseMove=5 EV_LButtonDown=6 EV_LButtonUp=7
EV_LButtonDblClick=8 EV_MButtonDown=9 EV_MButtonUp=10 EV_MButtonDblClick=11 EV_RButtonDown=12
EV_RButtonUp=13 EV_RButtonDblClick=14 EV_WheelDown=15 EV_WheelUp=16

GKM_SHIFT=256 GKM_CTRL=512 GKM_ALT=1024 GKM_LBUTTON=2048 GKM_MBUTTON=4096 GKM_RBUTTON=8192

GK_PGDN=1 GK_PGUP=2 GK_HOME=3 GK_END=4 GK_LEFT=5 GK_RIGHT=6 GK_ALERT=7 GK_BACKSPACE=8 GK_TAB=9
GK_LINEFEED=10 GK_DOWN=10 GK_VTAB=11 GK_UP=11 GK_FORMFEED=12 GK_RETURN=13 GK_F1=14 GK_F2=15
GK_F3=16 GK_F4=17 GK_F5=18 GK_F6=19 GK_F7=20 GK_F8=21 GK_F9=22 GK_F10=23 GK_F11=24 GK_F12=25
GK_DEL=26 GK_ESCAPE=27 GK_FREE1=28 GK_FREE2=29 GK_FREE3=30 GK_CESCAPE=31

CHANGELEVEL_KEEPFACING=1 CHANGELEVEL_RESETINVENTORY=2 CHANGELEVEL_NOMONSTERS=4
CHANGELEVEL_CHANGESKILL=8 CHANGELEVEL_NOINTERMISSION=16 CHANGELEVEL_RESETHEALTH=32
CHANGELEVEL_PRERAISEWEAPON=64

SECF_SILENT=1 SECF_NOFALLINGDAMAGE=2 SECF_FLOORDROP=4 SECF_NORESPAWN=8 SECF_FRICTION=16
SECF_PUSH=32 SECF_SILENTMOVE=64 SECF_DMGTERRAINFX=128 SECF_DMGENDGODMODE=256 SECF_DMGENDLEVEL=512
SECF_DMGHAZARD=1024

BLOCKF_CREATURES=1 BLOCKF_MONSTERS=2 BLOCKF_PLAYERS=4 BLOCKF_FLOATERS=8 BLOCKF_PROJECTILES=16
BLOCKF_EVERYTHING=32 BLOCKF_RAILING=64 BLOCKF_USE=128 BLOCKF_SIGHT=256 BLOCKF_HITSCAN=512
BLOCKF_SOUND=1024

FOGP_DENSITY=0 FOGP_OUTSIDEDENSITY=1 FOGP_SKYFOG=2

PRINTNAME_LEVELNAME=-1 PRINTNAME_LEVEL=-2 PRINTNAME_SKILL=-3 PRINTNAME_NEXTLEVEL=-4
PRINTNAME_NEXTSECRET=-5

CSF_NOFAKEFLOORS=1 CSF_NOBLOCKALL=2

FHF_NORANDOMPUFFZ=1 FHF_NOIMPACTDECAL=2

PICKAF_FORCETID=1 PICKAF_RETURNTID=2

TRANSLATION_ICE=0x100007

MF_SPECIAL=0x1 MF_SOLID=0x2 MF_SHOOTABLE=0x4 MF_NOSECTOR=0x8 MF_NOBLOCKMAP=0x10 MF_AMBUSH=0x20
MF_JUSTHIT=0x40 MF_JUSTATTACKED=0x80 MF_SPAWNCEILING=0x100 MF_NOGRAVITY=0x200 MF_DROPOFF=0x400
MF_PICKUP=0x800 MF_NOCLIP=0x1000 MF_INCHASE=0x2000 MF_FLOAT=0x4000 MF_TELEPORT=0x8000
MF_MISSILE=0x10000 MF_DROPPED=0x20000 MF_SHADOW=0x40000 MF_NOBLOOD=0x80000 MF_CORPSE=0x100000
MF_INFLOAT=0x200000 MF_INBOUNCE=0x200000 MF_COUNTKILL=0x400000 MF_COUNTITEM=0x800000
MF_SKULLFLY=0x1000000 MF_NOTDMATCH=0x2000000 MF_SPAWNSOUNDSOURCE=0x4000000 MF_FRIENDLY=0x8000000
MF_UNMORPHED=0x10000000 MF_NOLIFTDROP=0x20000000 MF_STEALTH=0x40000000 MF_ICECORPSE=-0x80000000

ML_BLOCKING=0x1 ML_BLOCKMONSTERS=0x2 ML_TWOSIDED=0x4 ML_DONTPEGTOP=0x8 ML_DONTPEGBOTTOM=0x10
ML_SECRET=0x20 ML_SOUNDBLOCK=0x40 ML_DONTDRAW=0x80 ML_MAPPED=0x100 ML_REPEAT_SPECIAL=0x200
ML_ADDTRANS=0x400 ML_MONSTERSCANACTIVATE=0x2000 ML_BLOCK_PLAYERS=0x4000 ML_BLOCKEVERYTHING=0x8000
ML_ZONEBOUNDARY=0x10000 ML_RAILING=0x20000 ML_BLOCK_FLOATERS=0x40000 ML_CLIP_MIDTEX=0x80000
ML_WRAP_MIDTEX=0x100000 ML_3DMIDTEX=0x200000 ML_CHECKSWITCHRANGE=0x400000
ML_FIRSTSIDEONLY=0x800000 ML_BLOCKPROJECTILE=0x1000000 ML_BLOCKUSE=0x2000000
ML_BLOCKSIGHT=0x4000000 ML_BLOCKHITSCAN=0x8000000

QF_RELATIVE=1 QF_SCALEDOWN=0x2 QF_SCALEUP=0x4 QF_MAX=0x8 QF_FULLINTENSITY=0x10 QF_WAVE=0x20

WARPF_ABSOLUTEOFFSET=0x1 WARPF_ABSOLUTEANGLE=0x2 WARPF_USECALLERANGLE=0x4
WARPF_NOCHECKPOSITION=0x8 WARPF_INTERPOLATE=0x10 WARPF_WARPINTERPOLATION=0x20
WARPF_COPYINTERPOLATION=0x40 WARPF_STOP=0x80 WARPF_TOFLOOR=0x100 WARPF_TESTONLY=0x200
WARPF_ABSOLUTEPOSITION=0x400 WARPF_BOB=0x800 WARPF_MOVEPTR=0x1000 WARPF_USEPTR=0x2000
WARPF_COPYVELOCITY=0x4000 WARPF_COPYPITCH=0x8000

CPXF_ANCESTOR=0x1 CPXF_LESSOREQUAL=0x2 CPXF_NOZ=0x4 CPXF_COUNTDEAD=0x8 CPXF_DEADONLY=0x10
CPXF_EXACT=0x20 CPXF_SETTARGET=0x40 CPXF_SETMASTER=0x80 CPXF_SETTRACER=0x100 CPXF_FARTHEST=0x200
CPXF_CLOSEST=0x400 CPXF_SETONPTR=0x800 CPXF_CHECKSIGHT=0x1000

SECPART_Floor=0 SECPART_Ceiling=1 SECPART_3D=2

AMLF_Secret=0x1 AMLF_DontDraw=0x2 AMLF_Mapped=0x4 AMLF_Revealed=0x8

AMLS_Default=0 AMLS_OneSided=1 AMLS_TwoSided=2 AMLS_FloorDiff=3 AMLS_CeilingDiff=4
AMLS_ExtraFloor=5 AMLS_Special=6 AMLS_Secret=7 AMLS_NotSeen=8 AMLS_Locked=9 AMLS_IntraTeleport=10
AMLS_InterTeleport=11 AMLS_UnexploredSecret=12 AMLS_Portal=13
"""

# Names acc declares that the engine lacks, as "number name min max why" (acc's argument counts, which the zdoom
# target uses); _WHY turns ``why`` into the reason the vizdoom target gives.
_UNSUPPORTED_SPECIALS = """
    9 Line_Horizon                 0 0  ignored
  157 SetGlobalFogParameter        2 2  ignored
  158 FS_Execute                   1 4  ignored
  159 Sector_SetPlaneReflection    3 3  ignored
  182 Line_Mirror                  0 0  ignored
  105 Door_WaitRaise               4 5  newer ZDoom/GZDoom
  106 Door_WaitClose               3 4  newer ZDoom/GZDoom
  107 Line_SetPortalTarget         2 2  newer ZDoom/GZDoom
  143 Player_RemoveItem            2 2  newer ZDoom/GZDoom
  144 Player_GiveItem              2 2  newer ZDoom/GZDoom
  145 Player_SetTeam               1 1  newer ZDoom/GZDoom
  150 Line_SetHealth               2 2  newer ZDoom/GZDoom
  151 Sector_SetHealth             3 3  newer ZDoom/GZDoom
  152 Team_Score                   2 2  newer ZDoom/GZDoom
  153 Team_GivePoints              3 3  newer ZDoom/GZDoom
  256 Floor_LowerToHighestEE       2 3  newer ZDoom/GZDoom
  257 Floor_RaiseToLowest          2 3  newer ZDoom/GZDoom
  258 Floor_LowerToLowestCeiling   2 3  newer ZDoom/GZDoom
  259 Floor_RaiseToCeiling         2 5  newer ZDoom/GZDoom
  260 Floor_ToCeilingInstant       1 4  newer ZDoom/GZDoom
  261 Floor_LowerByTexture         2 3  newer ZDoom/GZDoom
  262 Ceiling_RaiseToHighest       2 3  newer ZDoom/GZDoom
  263 Ceiling_ToHighestInstant     1 3  newer ZDoom/GZDoom
  264 Ceiling_LowerToNearest       2 4  newer ZDoom/GZDoom
  265 Ceiling_RaiseToLowest        2 3  newer ZDoom/GZDoom
  266 Ceiling_RaiseToHighestFloor  2 3  newer ZDoom/GZDoom
  267 Ceiling_ToFloorInstant       1 4  newer ZDoom/GZDoom
  268 Ceiling_RaiseByTexture       2 3  newer ZDoom/GZDoom
  269 Ceiling_LowerByTexture       2 4  newer ZDoom/GZDoom
  270 Stairs_BuildDownDoom         5 5  newer ZDoom/GZDoom
  271 Stairs_BuildUpDoomSync       4 4  newer ZDoom/GZDoom
  272 Stairs_BuildDownDoomSync     4 4  newer ZDoom/GZDoom
  273 Stairs_BuildUpDoomCrush      5 5  newer ZDoom/GZDoom
  274 Door_AnimatedClose           2 2  newer ZDoom/GZDoom
  275 Floor_Stop                   1 1  newer ZDoom/GZDoom
  276 Ceiling_Stop                 1 1  newer ZDoom/GZDoom
  277 Sector_SetFloorGlow          5 5  newer ZDoom/GZDoom
  278 Sector_SetCeilingGlow        5 5  newer ZDoom/GZDoom
  279 Floor_MoveToValueAndCrush    4 5  newer ZDoom/GZDoom
  280 Ceiling_MoveToValueAndCrush  4 5  newer ZDoom/GZDoom
  281 Line_SetAutomapFlags         3 3  newer ZDoom/GZDoom
  282 Line_SetAutomapStyle         2 2  newer ZDoom/GZDoom
"""

_UNSUPPORTED_CALLFUNCS = """
    3 GetThingUDMFInt              2 2  stub
    4 GetThingUDMFFixed            2 2  stub
   37 AnnouncerSound               2 2  Skulltag
   97 SetMusicVolume               1 1  newer ZDoom/GZDoom
   98 CheckProximity               3 6  newer ZDoom/GZDoom
   99 CheckActorState              2 3  newer ZDoom/GZDoom
  100 ResetMap                     0 0  Zandronum
  101 PlayerIsSpectator            1 1  Zandronum
  102 ConsolePlayerNumber          0 0  Zandronum
  103 GetTeamProperty              2 2  Zandronum
  104 GetPlayerLivesLeft           1 1  Zandronum
  105 SetPlayerLivesLeft           2 2  Zandronum
  106 KickFromGame                 2 2  Zandronum
  107 GetGamemodeState             0 0  Zandronum
  108 SetDBEntry                   3 3  Zandronum
  109 GetDBEntry                   2 2  Zandronum
  110 SetDBEntryString             3 3  Zandronum
  111 GetDBEntryString             2 2  Zandronum
  112 IncrementDBEntry             3 3  Zandronum
  113 PlayerIsLoggedIn             1 1  Zandronum
  114 GetPlayerAccountName         1 1  Zandronum
  115 SortDBEntries                4 4  Zandronum
  116 CountDBResults               1 1  Zandronum
  117 FreeDBResults                1 1  Zandronum
  118 GetDBResultKeyString         2 2  Zandronum
  119 GetDBResultValueString       2 2  Zandronum
  120 GetDBResultValue             2 2  Zandronum
  121 GetDBEntryRank               3 3  Zandronum
  122 RequestScriptPuke            4 4  Zandronum
  123 BeginDBTransaction           0 0  Zandronum
  124 EndDBTransaction             0 0  Zandronum
  125 GetDBEntries                 1 1  Zandronum
  200 CheckClass                   1 1  newer ZDoom/GZDoom
  201 DamageActor                  6 6  newer ZDoom/GZDoom
  202 SetActorFlag                 3 3  newer ZDoom/GZDoom
  203 SetTranslation               2 2  newer ZDoom/GZDoom
  204 GetActorFloorTexture         1 1  newer ZDoom/GZDoom
  205 GetActorFloorTerrain         1 1  newer ZDoom/GZDoom
  206 StrArg                       1 1  newer ZDoom/GZDoom
  207 Floor                        1 1  newer ZDoom/GZDoom
  208 Round                        1 1  newer ZDoom/GZDoom
  209 Ceil                         1 1  newer ZDoom/GZDoom
  210 ScriptCall                   2 100  newer ZDoom/GZDoom
  211 StartSlideshow               1 1  newer ZDoom/GZDoom
  212 GetSectorHealth              2 2  newer ZDoom/GZDoom
  213 GetLineHealth                1 1  newer ZDoom/GZDoom
  300 GetLineX                     3 3  Eternity
  301 GetLineY                     3 3  Eternity
  302 SetAirFriction               1 1  Eternity
  400 SetSectorGlow                6 6  GZDoom (OpenGL)
  401 SetFogDensity                2 2  GZDoom (OpenGL)
19620 GetTeamScore                 1 1  ZDaemon
19621 SetTeamScore                 2 2  ZDaemon
"""

# Internal functions by p-code number: an unhandled one prints "Unknown P-Code" and ends the script. Their
# signatures, for the zdoom target, are in _ACC_ONLY_INTERNAL_ROWS.
_UNHANDLED_INTERNALS = """
  105 PlayerBlueSkull              unhandled
  106 PlayerRedSkull               unhandled
  107 PlayerYellowSkull            unhandled
  109 PlayerBlueCard               unhandled
  110 PlayerRedCard                unhandled
  111 PlayerYellowCard             unhandled
  118 IsNetworkGame                unhandled
  119 PlayerTeam                   unhandled
  123 PlayerExpert                 unhandled
  124 BlueCount                    unhandled
  125 RedCount                     unhandled
  126 BlueScore                    unhandled
  127 RedScore                     unhandled
  128 IsOneFlagCTF                 unhandled
  129 GetInvasionWave              unhandled
  130 GetInvasionState             unhandled
  134 ConsoleCommand               refused
  163 SetStyle                     unhandled
  218 WriteToIni                   unhandled
  219 GetFromIni                   unhandled
  277 GrabInput                    unhandled
  278 SetMousePointer              unhandled
  279 MoveMousePointer             unhandled
"""

# acc 1.58 symbol.c's InternalFunctions that ViZDoom's engine cannot run (as _INTERNAL_ROWS): the zdoom target
# compiles them as acc does.
_ACC_ONLY_INTERNAL_ROWS = """
PlayerBlueSkull           PLAYERBLUESKULL           -                      0   0 R
PlayerRedSkull            PLAYERREDSKULL            -                      0   0 R
PlayerYellowSkull         PLAYERYELLOWSKULL         -                      0   0 R
PlayerBlueCard            PLAYERBLUECARD            -                      0   0 R
PlayerRedCard             PLAYERREDCARD             -                      0   0 R
PlayerYellowCard          PLAYERYELLOWCARD          -                      0   0 R
IsNetworkGame             ISNETWORKGAME             -                      0   0 R
PlayerTeam                PLAYERTEAM                -                      0   0 R
PlayerExpert              PLAYEREXPERT              -                      0   0 R
BlueCount                 BLUETEAMCOUNT             -                      0   0 R
RedCount                  REDTEAMCOUNT              -                      0   0 R
BlueScore                 BLUETEAMSCORE             -                      0   0 R
RedScore                  REDTEAMSCORE              -                      0   0 R
IsOneFlagCTF              ISONEFLAGCTF              -                      0   0 R
GetInvasionWave           GETINVASIONWAVE           -                      0   0 R
GetInvasionState          GETINVASIONSTATE          -                      0   0 R
ConsoleCommand            CONSOLECOMMAND            CONSOLECOMMANDDIRECT   3   6 -
SetStyle                  SETSTYLE                  SETSTYLEDIRECT         1   0 -
WriteToIni                WRITETOINI                -                      3   0 -
GetFromIni                GETFROMINI                -                      3   0 R
GrabInput                 GRABINPUT                 -                      2   0 -
SetMousePointer           SETMOUSEPOINTER           -                      3   0 -
MoveMousePointer          MOVEMOUSEPOINTER          -                      2   0 -
"""

# Why each category of _UNSUPPORTED_* is refused: by keyword, else (None) ``why`` names where it comes from.
_WHY = {
    "special": {
        "ignored": "the engine defines line special {number} but does nothing when a script runs it",
        None: "line special {number} comes from {why}; this engine has no such special",
    },
    "callfunc": {
        "stub": "the engine accepts the call but always returns 0 (not implemented)",
        None: "CALLFUNC {number} is from {why}; the engine would return 0 and do nothing",
    },
    "internal": {
        "unhandled": "p-code {number} ({pcode}) is not in the engine's interpreter; the script would stop there",
        "refused": "the engine refuses console commands from scripts (it prints a warning and does nothing)",
    },
}

# Constants naming actor properties and print names the engine ignores.
_APROP_RANGE = "SetActorProperty/GetActorProperty know properties 0..43 only"
_PRINTNAMES = "the n: print specifier knows PRINTNAME_LEVELNAME, _LEVEL and _SKILL only"
_UNSUPPORTED_CONSTANTS = {
    **{name: _APROP_RANGE for name in ("APROP_MaxStepHeight", "APROP_MaxDropOffHeight", "APROP_DamageType")},
    **{f"APROP_Counter{i}": _APROP_RANGE for i in range(8)},
    "PRINTNAME_NEXTLEVEL": _PRINTNAMES,
    "PRINTNAME_NEXTSECRET": _PRINTNAMES,
}

# Names the parser compiles itself, each with its own syntax; listed so no table shadows them.
PARSER_FORMS = {
    "print": "Print(specifier:value, ...): BEGINPRINT, PRINT*, ENDPRINT",
    "printbold": "PrintBold(...): as Print, ending with ENDPRINTBOLD",
    "log": "Log(...): as Print, ending with ENDLOG",
    "hudmessage": "HudMessage(specifiers; type, id, color, x, y, hold[, optional...]): MOREHUDMESSAGE, "
                  "OPTHUDMESSAGE, ENDHUDMESSAGE",
    "hudmessagebold": "HudMessageBold(...): as HudMessage, ending with ENDHUDMESSAGEBOLD",
    "strparam": "StrParam(specifiers): as Print, ending with SAVESTRING (returns a string)",
    "strcpy": "StrCpy(a:array, ...): STRCPYTO*CHRANGE",
    "createtranslation": "CreateTranslation(tid, ranges...): STARTTRANSLATION, TRANSLATIONRANGE1..3 (and, for "
                         "the zdoom target, acc's # and @ forms: TRANSLATIONRANGE4/5), ENDTRANSLATION",
    "morphactor": "MorphActor(tid[, class, ...7 args]): MORPHACTOR with omitted arguments pushed as 0/\"\"",
    "acs_executewait": "ACS_ExecuteWait(script, ...): ACS_Execute then SCRIPTWAIT on the same script",
    "acs_namedexecutewait": "ACS_NamedExecuteWait(name, ...): ACS_NamedExecute then SCRIPTWAITNAMED",
}


def _rows(text: str):
    for line in text.strip().splitlines():
        if line.strip():
            yield line.split()


def _load_calls(rows: str, cls) -> dict:
    """Special or CallFunc entries from rows of ``number name min max [acc min max]``."""
    table = {}
    for number, name, low, high, *acc in _rows(rows):
        acc_args = (int(acc[1]), int(acc[2])) if acc else None
        table[name.lower()] = cls(name, int(number), int(low), int(high), acc_args)
    return table


def _load_internals(rows: str) -> dict[str, Internal]:
    table = {}
    for name, stack, direct, argc, opt, flags in _rows(rows):
        table[name.lower()] = Internal(name, PCD[stack], None if direct == "-" else PCD[direct], int(argc),
                                       int(opt), "R" in flags, "L" in flags)
    return table


def _load_constants() -> dict[str, Constant]:
    table = {}
    for row in _rows(_CONSTANT_ROWS):
        for item in row:
            name, value = item.split("=")
            bits = int(value, 0) & 0xFFFFFFFF
            table[name.lower()] = Constant(name, bits - (1 << 32) if bits >= 1 << 31 else bits)
    return table


def _load_unsupported(constants: dict[str, Constant]) -> dict[str, Unsupported]:
    table = {}
    for text, category in ((_UNSUPPORTED_SPECIALS, "special"), (_UNSUPPORTED_CALLFUNCS, "callfunc"),
                           (_UNHANDLED_INTERNALS, "internal")):
        reasons = _WHY[category]
        for line in text.strip().splitlines():
            if category == "internal":
                number, name, why = line.split(None, 2)
            else:
                number, name, _low, _high, why = line.split(None, 4)
            reason = reasons.get(why, reasons.get(None))
            pcode = PCODES[int(number)].name if category == "internal" else None
            table[name.lower()] = Unsupported(name, category, int(number),
                                              reason.format(number=number, why=why, pcode=pcode))
    for name, reason in _UNSUPPORTED_CONSTANTS.items():
        table[name.lower()] = Unsupported(name, "constant", constants[name.lower()].value, reason)
    return table


def _acc_calls(rows: str, table: dict, cls) -> dict:
    """acc's view of ``table`` (its argument counts) plus the names of ``rows`` ("number name min max why")."""
    merged = {key: cls(e.name, e[1], *(e.acc_args or (e.min_args, e.max_args))) for key, e in table.items()}
    for line in rows.strip().splitlines():
        number, name, low, high, _why = line.split(None, 4)
        merged[name.lower()] = cls(name, int(number), int(low), int(high))
    return merged


SPECIALS: dict[str, Special] = _load_calls(_SPECIAL_ROWS, Special)
CALLFUNCS: dict[str, CallFunc] = _load_calls(_CALLFUNC_ROWS, CallFunc)
INTERNALS = _load_internals(_INTERNAL_ROWS)
_ALL_CONSTANTS = _load_constants()
UNSUPPORTED = _load_unsupported(_ALL_CONSTANTS)
CONSTANTS = {key: entry for key, entry in _ALL_CONSTANTS.items() if key not in UNSUPPORTED}


@dataclass(frozen=True)
class Builtins:
    """The built-in names one engine target knows (see TARGETS)."""

    target: str
    specials: dict
    callfuncs: dict
    internals: dict
    constants: dict
    unsupported: dict      # names acc knows that this target refuses, with the reason
    full_args: dict        # CALLFUNC index -> arguments always pushed (see CALLFUNC_FULL_ARGS)

    def resolve(self, key: str, headers: Collection[str]):
        """What the lowercase name ``key`` means once ``headers`` are included (ZSPECIAL, ZDEFS), in acc's
        order: internal functions, then zspecial.acs, then zdefs.acs. Unsupported names are not found."""
        entry = self.internals.get(key)
        if entry is None and ZSPECIAL in headers:
            entry = self.specials.get(key) or self.callfuncs.get(key)
        if entry is None and ZDEFS in headers:
            entry = self.constants.get(key)
        return entry

    def names(self, headers: Collection[str]) -> dict:
        """Every built-in name in scope once ``headers`` are included, as one table (what resolve would find;
        the tables share no name). The caller may change the copy it gets."""
        key = (self.target, frozenset(headers))
        table = _NAMES_BY_HEADERS.get(key)
        if table is None:
            table = dict(self.internals)
            if ZSPECIAL in headers:
                table.update(self.specials)
                table.update(self.callfuncs)
            if ZDEFS in headers:
                table.update(self.constants)
            _NAMES_BY_HEADERS[key] = table
        return dict(table)

    def header_of(self, key: str) -> str | None:
        """The acc header that declares the built-in ``key`` (None: not from a header)."""
        if key in self.specials or key in self.callfuncs:
            return ZSPECIAL
        if key in self.constants:
            return ZDEFS
        return None


_NAMES_BY_HEADERS: dict[tuple, dict] = {}

# The engines a compile can target. "vizdoom": ViZDoom 1.3's engine, which refuses what it cannot run;
# "zdoom": everything acc 1.58 compiles with its stock headers, for mods that target GZDoom or Zandronum.
TARGETS = ("vizdoom", "zdoom")
VIZDOOM = Builtins("vizdoom", SPECIALS, CALLFUNCS, INTERNALS, CONSTANTS, UNSUPPORTED, CALLFUNC_FULL_ARGS)
ZDOOM = Builtins("zdoom", _acc_calls(_UNSUPPORTED_SPECIALS, SPECIALS, Special),
                 _acc_calls(_UNSUPPORTED_CALLFUNCS, CALLFUNCS, CallFunc),
                 {**INTERNALS, **_load_internals(_ACC_ONLY_INTERNAL_ROWS)}, _ALL_CONSTANTS, {}, {})


def for_target(target: str) -> Builtins:
    """The built-ins of ``target`` (one of TARGETS); ValueError naming the valid ones otherwise."""
    if target == "vizdoom":
        return VIZDOOM
    if target == "zdoom":
        return ZDOOM
    raise ValueError(f"unknown target {target!r} (valid: {', '.join(TARGETS)})")


def resolve(key: str, headers: Collection[str]) -> Internal | Special | CallFunc | Constant | None:
    """VIZDOOM.resolve: what ``key`` means for the vizdoom target."""
    return VIZDOOM.resolve(key, headers)


def builtin_names(headers: Collection[str]) -> dict:
    """VIZDOOM.names: the built-in names in scope for the vizdoom target."""
    return VIZDOOM.names(headers)


def all_names() -> list[str]:
    """Every built-in name in its usual spelling, refused ones included."""
    tables = (SPECIALS, CALLFUNCS, INTERNALS, UNSUPPORTED, CONSTANTS)
    return list({entry.name: None for table in tables for entry in table.values()})


def _check_tables() -> None:
    """Catch an edit that breaks an invariant the compiler relies on."""
    for entry in INTERNALS.values():
        for pcode in (entry.stack_pcode, entry.direct_pcode):
            if pcode is not None and not PCODES[pcode].handled:
                raise AssertionError(f"{entry.name} uses p-code {pcode.name}, which the engine lacks")
    for entry in (*SPECIALS.values(), *CALLFUNCS.values()):
        if not 0 <= entry.min_args <= entry.max_args:
            raise AssertionError(f"{entry.name}: bad argument range")
    if set(ZDOOM.internals) - set(INTERNALS) != {k for k, e in UNSUPPORTED.items() if e.category == "internal"}:
        raise AssertionError("_ACC_ONLY_INTERNAL_ROWS and _UNHANDLED_INTERNALS must name the same functions")
    tables = (SPECIALS, CALLFUNCS, INTERNALS, UNSUPPORTED, CONSTANTS, PARSER_FORMS)
    clashes = [key for i, table in enumerate(tables) for key in table if any(key in t for t in tables[i + 1:])]
    if clashes:
        raise AssertionError(f"built-in names defined twice: {sorted(clashes)}")


_check_tables()
