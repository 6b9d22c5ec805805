"""The game options, in one schema: what each is called, its type, default, bounds and help.

Every face reads the options from :data:`GAME_OPTIONS` instead of writing them out again:
:class:`~explore_sim.engine.config.GameConfig` checks its fields with
:meth:`GameOption.check`; :func:`explore_sim.simulate`, :func:`explore_sim.compare` and
:func:`explore_sim.sweep` take the options with a ``keyword`` as keyword arguments (checked
and turned into a game by :mod:`explore_sim.analysis.game_setup`, which also writes them into
a result's metadata under their ``meta`` name); the command line adds one ``flag`` per option
(:mod:`explore_sim.cli.game_options`) and the web page one form field (``web``,
:mod:`explore_sim.web.game_fields`). Adding an option is one :class:`GameOption` entry here, plus
the code that uses its value.

The schema is read when a face is built (a parser, a form, a result), never copied at import,
so an option added to :data:`GAME_OPTIONS` shows everywhere.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from ..cards import Card
from ..errors import OptionError, clip
from .mulligan import MULLIGAN_RULES

__all__ = ["GameOption", "GAME_OPTIONS", "KINDS", "GAMES", "LAND_FACES", "REPLACEMENT_ORDERS",
           "ENGINES", "option", "keyword_options", "config_options", "options_named", "as_flag"]

#: Settings of ``land_faces`` (spell // land cards played as lands).
LAND_FACES = ("when-needed", "always", "never")
#: Kinds of game: ``auto`` is a Commander game when the deck has a commander.
GAMES = ("auto", "normal", "commander")
#: Which of Topography Tracker's and Twists and Turns' replacements applies first.
REPLACEMENT_ORDERS = ("tracker-first", "twists-first")
#: The engines that play goldfish games: ``auto`` is the compiled kernel when it can play
#: them, else the vectorised NumPy engine (:mod:`explore_sim.analysis.engines`).
ENGINES = ("auto", "kernel", "numpy")

#: The kinds of value an option takes: a whole number, a probability (0 to 1), a yes/no, one of
#: ``choices``, a mulligan rule (a name of ``choices`` or a MulliganRule), a keep-or-mill policy
#: (None: not set), card names, cards (names resolved by the card sources), a Python callable.
KINDS = ("int", "probability", "bool", "choice", "mulligan", "policy", "names", "cards",
         "callable")


@dataclasses.dataclass(frozen=True)
class GameOption:
    """One game option and every face's name for it.

    Attributes
    ----------
    name : str
        The keyword of the Python functions, and the :class:`GameConfig` field when ``config``.
    kind : str
        One of :data:`KINDS`.
    default : object
        The value when the option is not given.
    help : str
        What it does, in one phrase (the command line's help; the web page's unless
        ``web_help`` says otherwise).
    doc : str
        The numpydoc type of the keyword (``"int"``, ``'{"a", "b"}'``).
    doc_help : str
        The Python docstring's description, where it differs from ``help``.
    low, high : float, optional
        Inclusive bounds of an ``int`` (a ``probability`` is 0 to 1).
    choices : tuple of str
        The values of a ``choice`` or ``mulligan``.
    config : bool
        A field of :class:`~explore_sim.engine.config.GameConfig`.
    keyword : bool
        A keyword of :func:`explore_sim.simulate`, :func:`explore_sim.compare` and
        :func:`explore_sim.sweep`.
    meta : str or None
        Its key in a result's metadata (None: not recorded on its own).
    flag : str or None
        The command line's option (None: Python only).
    negated : bool
        The flag and the web checkbox say the opposite of the option (``--on-draw`` sets
        ``on_play`` to False).
    metavar : str or None
        The command line's name for the value.
    web : str or None
        The web form's field (None: not on the page).
    web_label : str
        What the page calls it (default: ``web`` with spaces).
    web_help : str
        The page's help, where it differs from ``help`` (one per line, blank means).
    kernel : bool
        The compiled kernel plays every value of it (a Python callable aside, which only the
        NumPy engine can call). False: the kernel plays only its default, and a game with
        another value is played by the NumPy engine (``meta["engine_fallback"]`` says why),
        or refused by ``engine="kernel"``.
    """

    name: str
    kind: str
    default: Any
    help: str
    doc: str = ""
    doc_help: str = ""
    low: float | None = None
    high: float | None = None
    choices: tuple[str, ...] = ()
    config: bool = True
    keyword: bool = True
    meta: str | None = ""
    flag: str | None = None
    negated: bool = False
    metavar: str | None = None
    web: str | None = None
    web_label: str = ""
    web_help: str = ""
    kernel: bool = False

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"game option {self.name}: unknown kind {self.kind!r}")
        if self.kind == "choice" and self.default not in self.choices:
            raise ValueError(f"game option {self.name}: default {self.default!r} is not a choice")
        if self.meta == "":
            object.__setattr__(self, "meta", self.name)
        if self.web is not None and not self.web_label:
            object.__setattr__(self, "web_label", self.web.replace("_", " "))
        if not self.web_help:
            object.__setattr__(self, "web_help", self.help)

    def check(self, value: Any) -> None:
        """Refuse a value of the wrong type or out of bounds (kinds checked by value alone).

        Parameters
        ----------
        value : object

        Raises
        ------
        OptionError
            Naming the option, what it must be and the value given.
        """
        if self.kind == "int":
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise OptionError(f"{self.name} must be a whole number, got {clip(repr(value))}")
            low = -np.inf if self.low is None else self.low
            high = np.inf if self.high is None else self.high
            if not low <= value <= high:
                raise OptionError(f"{self.name} must be between {self.low:g} and {self.high:g}, "
                                  f"got {value}")
        elif self.kind == "bool":
            as_flag(self.name, value)
        elif self.kind == "probability":
            if (isinstance(value, bool) or not isinstance(value, (int, float))
                    or not 0 <= value <= 1):
                raise OptionError(f"{self.name} must be a probability between 0 and 1, got "
                                  f"{clip(repr(value))}")
        elif self.kind == "cards" and not all(isinstance(card, Card) for card in value):
            raise OptionError(f"{self.name} must be cards (resolve names with the card sources)")
        elif self.kind == "choice" and value not in self.choices:
            if len(self.choices) == 2:
                allowed = " or ".join(repr(choice) for choice in self.choices)
            else:
                allowed = "one of " + ", ".join(self.choices)
            raise OptionError(f"{self.name} must be {allowed}, got {clip(str(value))!r}")


def as_flag(name: str, value: Any) -> bool:
    """``value``, an option that is on or off, as a bool: only ``True`` or ``False`` (NumPy's
    too) are taken, so that ``"no"`` or ``None`` is refused rather than read as on or off.

    Parameters
    ----------
    name : str
        The option, as the error names it.
    value : object

    Returns
    -------
    bool

    Raises
    ------
    OptionError
        Any other value.
    """
    if not isinstance(value, (bool, np.bool_)):
        raise OptionError(f"{name} must be True or False, got {clip(repr(value))}")
    return bool(value)


def _schema() -> list[GameOption]:
    return [*_turn_options(), *_deck_options()]


def _turn_options() -> list[GameOption]:
    """The options of how a turn is played, in command-line order."""
    return [
        GameOption(
            "turns", "int", 6, "turns to play (default 6)", doc="int",
            doc_help="turns to play (1-50)", low=1, high=50, flag="--turns", web="turns",
            web_help="turns to play", kernel=True),
        GameOption(
            "on_play", "bool", True, "play on the draw", doc="bool",
            doc_help="on the play (no draw on turn 1) or on the draw",
            flag="--on-draw", negated=True, web="on_draw", web_label="on the draw",
            web_help="play on the draw (default: on the play)", kernel=True),
        GameOption(
            "mulligan", "mulligan", "london", "none, london or london-free (default london)",
            doc='{"london", "london-free", "none"} or MulliganRule',
            doc_help="mulligan rule (:mod:`explore_sim.engine.mulligan`); ``free_mulligan`` "
                     "and ``keep`` refine it",
            choices=MULLIGAN_RULES, config=False, flag="--mulligan", web="mulligan",
            web_help="none, London (Karsten's keep rule) or London with a free first "
                     "mulligan", kernel=True),
        GameOption(
            "removal", "probability", 0.0,
            "probability an explorer is removed in response to its explore", doc="float",
            doc_help="probability that an explorer leaves the battlefield in response to its "
                     "explore",
            flag="--removal", web="removal", kernel=True),
        GameOption(
            "scry_policy", "policy", None,
            "Twists and Turns scry: bottom where true (default: the policy)",
            doc="str or callable, optional",
            doc_help="Twists and Turns' scry: True puts a nonland on the bottom (default: the "
                     "keep-or-mill policy's decision)",
            config=False, flag="--scry-policy", web="scry_policy",
            web_help="Twists and Turns scry: bottom where true (blank: the keep-or-mill "
                     "policy)", kernel=True),
        GameOption(
            "use_maps", "bool", True, "never use Map tokens", doc="bool",
            doc_help="use Map tokens with spare mana (True) or never",
            flag="--no-maps", negated=True, web="no_maps", web_label="no Maps", kernel=True),
        GameOption(
            "replacement_order", "choice", "tracker-first",
            "which applies first when Topography Tracker (each explore twice) and Twists and "
            "Turns (a scry before each explore) both apply",
            doc='{"tracker-first", "twists-first"}',
            doc_help="Topography Tracker and Twists and Turns: which replacement applies first",
            choices=REPLACEMENT_ORDERS, flag="--replacement-order", web="replacement_order",
            kernel=True),
        GameOption(
            "opponent_land_fraction", "probability", 0.4,
            "land share of the opponent's library for parley (default 0.4)", doc="float",
            doc_help="land share of the opponent's library for parley (Storm Fleet Negotiator)",
            flag="--opponent-land-fraction", web="opponent_land_fraction",
            web_help="land share of the opponent's library for parley", kernel=True),
        GameOption(
            "life", "int", 0,
            "the goldfish opponent's starting life for opponent_dead (default 0: 20, 40 in "
            "Commander games)", doc="int",
            doc_help="the goldfish opponent's starting life, against which ``opponent_dead`` "
                     "compares the combat damage dealt (0, the default: 20, or 40 in a "
                     "Commander game)",
            low=0, high=100000, flag="--life", metavar="N", web="life",
            web_label="opponent's life",
            web_help="the goldfish opponent's starting life, for the damage and opponent_dead "
                     "metrics and the kill turn (0: 20, or 40 in a Commander game)", kernel=True),
    ]


def _deck_options() -> list[GameOption]:
    """The options of what is cast and counted, the kind of game and the engine, in
    command-line order."""
    return [
        GameOption(
            "cast_order", "names", (), "cast this card before others (repeat for an order)",
            doc="sequence of str", doc_help="cards to cast first, in this order",
            flag="--cast-first", metavar="CARD", web="cast_first",
            web_help="cards to cast before others, one per line, in order", kernel=True),
        GameOption(
            "castable", "cards", (),
            "add the metric castable:CARD: could the sources in play after the land drop pay "
            "CARD's cost (repeatable; any known card)",
            doc="sequence of str or Card",
            doc_help="cards (in the deck or not) whose per-turn metric ``castable:NAME`` is "
                     "taken: 1 where the sources in play after the turn's land drop, before "
                     "any spell is cast, could pay the card's cost, colours included",
            flag="--castable", metavar="CARD", web="castable",
            web_help="cards whose metric castable:CARD is taken (could the sources in play "
                     "pay it?), one per line", kernel=True),
        GameOption(
            "castable_lands", "bool", False,
            "also take main_lands and castable_lands:CARD for every castable card",
            doc="bool", keyword=False, meta=None, kernel=True),
        GameOption(
            "record", "names", (),
            "the per-turn metrics a game records (empty: every one): an analysis that reports "
            "a few metrics asks only for those, and the games cost less",
            doc="sequence of str", keyword=False, meta=None, kernel=True),
        GameOption(
            "game", "choice", "auto",
            "commander: Commander games (the commander cast from the command zone, 40 life, "
            "the first mulligan free, no skipped first draw); auto (default): when the deck "
            "has a Commander section",
            doc='{"auto", "normal", "commander"}',
            doc_help="a Commander game (the commander cast from the command zone with tax, 40 "
                     "life, the first mulligan free, no skipped first draw); ``auto``: when the "
                     "deck has a commander",
            choices=GAMES, flag="--game", web="game",
            web_help="commander: Commander games; auto: when the deck has a Commander section",
            kernel=True),
        GameOption(
            "land_faces", "choice", "when-needed",
            "play a spell // land card as its land face: when no land card can be played "
            "(default), always like a land, or never",
            doc='{"when-needed", "always", "never"}',
            doc_help="when a spell // land card is played as its land face (default: only when "
                     "no land card can be played)",
            choices=LAND_FACES, flag="--land-faces", web="land_faces",
            web_help="play a spell // land card as its land face when no land card can be "
                     "played, always, or never", kernel=True),
        GameOption(
            "engine", "choice", "auto",
            "which engine plays the games: auto (default): the compiled kernel when it can "
            "play them, else numpy; kernel; numpy (the same seed gives other, equally valid, "
            "numbers on each)",
            doc='{"auto", "kernel", "numpy"}',
            doc_help="the engine that plays the games: ``kernel`` (compiled with numba, whole "
                     "games one at a time), ``numpy`` (vectorised, every game of a chunk at "
                     "once) or ``auto``: the kernel when it can play them (preset or "
                     "expression policies, no callable keep rule, abilities it plays) and "
                     "numba imports, else numpy, the reason in ``meta['engine_fallback']``; "
                     "both play the same rules, but the same seed gives other (equally "
                     "valid) numbers on each",
            choices=ENGINES, config=False, meta=None, flag="--engine", web="engine",
            web_help="auto: the compiled kernel when it can play the games, else numpy; the "
                     "same seed gives other, equally valid, numbers on each engine", kernel=True),
        GameOption(
            "free_mulligan", "bool", False, "the first mulligan is free", doc="bool",
            config=False, meta=None, kernel=True),
        GameOption(
            "keep", "callable", None, "replaces the mulligan rule's keep test",
            doc="callable, optional", config=False, meta=None, kernel=True),
        GameOption(
            "hand_limit", "int", 7, "maximum hand size at cleanup", doc="int", low=0, high=100,
            keyword=False, kernel=True),
    ]


#: Every game option, in the order the command line and the web page list them.
GAME_OPTIONS: list[GameOption] = _schema()


def option(name: str) -> GameOption:
    """The option called ``name``.

    Parameters
    ----------
    name : str

    Returns
    -------
    GameOption

    Raises
    ------
    KeyError
        No such option.
    """
    for entry in GAME_OPTIONS:
        if entry.name == name:
            return entry
    raise KeyError(name)


def options_named(names: Iterable[str]) -> list[GameOption]:
    """The options called ``names``, in that order.

    Parameters
    ----------
    names : iterable of str

    Returns
    -------
    list of GameOption
    """
    return [option(name) for name in names]


def keyword_options() -> Iterator[GameOption]:
    """The options the game functions take as keywords, in schema order.

    Returns
    -------
    iterator of GameOption
    """
    return (entry for entry in GAME_OPTIONS if entry.keyword)


def config_options() -> Iterator[GameOption]:
    """The options that are :class:`~explore_sim.engine.config.GameConfig` fields.

    Returns
    -------
    iterator of GameOption
    """
    return (entry for entry in GAME_OPTIONS if entry.config)
