"""Golden games: short games on given libraries, recorded turn by turn, that both engines
must play exactly as recorded.

Each game of :data:`GAMES` is a small deck, game options and a policy, and the registry
entries it covers (``metric:NAME``, ``option:NAME``, ``ability:NAME``). Its record,
``tests/golden/NAME.txt``, holds the library it is played on (top first; the first seven
cards are the opening hand, no mulligan), every metric that is not 0 on each turn, and the
compiled game's log. ``tests/test_golden_games.py`` plays every record on the vectorised NumPy
engine and on the compiled kernel and compares both with it, and checks that every entry of
the registries that the kernel plays is covered by a record that exercises it: a metric that
is not 0 on some turn, an option whose value changes the game (the same library with the
option's default plays otherwise), an ability whose card is cast or played. A rule change
then reads as a diff of a game.

Regenerate the records after a deliberate rule change (then read the diff)::

    python tests/golden_games.py            # every game
    python tests/golden_games.py explore    # the games named

A game's library is the first deal (of the deck's shuffles from seed 0, 1, 2, ...) that
exercises everything the game covers.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script from anywhere
    sys.path.insert(0, str(ROOT))

from explore_sim.analysis.replay import log_text  # noqa: E402
from explore_sim.cards.decklist import Deck, load_deck  # noqa: E402
from explore_sim.engine.config import GameConfig  # noqa: E402
from explore_sim.engine.goldfish import GameState, Goldfish, deck_tables  # noqa: E402
from explore_sim.engine.policies import as_policy  # noqa: E402
from explore_sim.engine.state import OpeningHands  # noqa: E402

#: Where the records are.
RECORDS = ROOT / "tests" / "golden"
#: Card files the games' decks may use (cards the built-in catalog does not hold; made-up
#: cards for abilities no catalog card has).
CARD_FILES = (ROOT / "tests" / "fixtures" / "cards" / "mana_cards.toml",
              ROOT / "tests" / "golden" / "cards.toml")
#: Cards in the opening hand.
HAND = 7


@dataclasses.dataclass(frozen=True)
class GoldenGame:
    """One golden game: what is played and what it covers.

    Attributes
    ----------
    name : str
        The record's name (``tests/golden/NAME.txt``).
    deck : tuple of (str, int)
        The deck's cards and counts.
    options : tuple of (str, object)
        Game options other than the defaults (``turns`` included).
    covers : tuple of str
        Registry entries the game exercises: ``metric:NAME``, ``option:NAME``,
        ``ability:NAME``.
    policy : str
        The keep-or-mill policy.
    commander : str
        The deck's commander ("": none).
    """

    name: str
    deck: tuple[tuple[str, int], ...]
    options: tuple[tuple[str, Any], ...]
    covers: tuple[str, ...]
    policy: str = "forge"
    commander: str = ""

    def load(self) -> Deck:
        """The deck."""
        text = "\n".join(f"{count} {card}" for card, count in self.deck)
        if self.commander:
            text = f"Commander\n1 {self.commander}\n\nDeck\n{text}"
        return load_deck(text + "\n", cards=[str(path) for path in CARD_FILES])

    def setup(self, deck: Deck, **changes: Any) -> Setup:
        """How the game is played (its options with ``changes``: ``scry_policy`` apart,
        each a field of :class:`GameConfig`, cards named by ``castable`` resolved). The
        game's own coins must be certain; a change (an option's default, played on the NumPy
        engine alone to see that the option matters) need not be."""
        options = dict(self.options, **changes)
        scry = options.pop("scry_policy", None)
        if "castable" in options:
            named = {card.name: card for card in deck.cards}
            options["castable"] = tuple(named[name] for name in options["castable"])
        for coin in ("removal", "opponent_land_fraction"):
            if coin not in changes and options.get(coin, 0.0) not in (0.0, 1.0):
                raise ValueError(f"{self.name}: {coin} of a golden game is 0 or 1 (both engines "
                                 "then play the same coins)")
        return Setup(GameConfig(**options), as_policy(self.policy),
                     as_policy(scry) if scry is not None else None)


@dataclasses.dataclass(frozen=True)
class Setup:
    """A golden game's options and policies, as the engines take them."""

    config: GameConfig
    policy: Any
    scry: Any = None


def _g(name: str, deck: dict[str, int], covers: str, policy: str = "forge",
       commander: str = "", **options: Any) -> GoldenGame:
    return GoldenGame(name, tuple(deck.items()), tuple(options.items()), tuple(covers.split()),
                      policy, commander)


#: Every golden game.
GAMES: tuple[GoldenGame, ...] = (
    _g("vanilla", {"Forest": 24, "Grizzly Bears": 36},
       "metric:lands_played metric:on_curve metric:land_drop metric:creatures "
       "metric:hand_size metric:cards_cast metric:mana_spent metric:damage "
       "metric:opponent_dead metric:mana_available metric:spell_mana metric:compounded_mana "
       "option:life option:turns",
       turns=5, life=6),
    _g("screw", {"Forest": 16, "Grizzly Bears": 44}, "metric:screwed", turns=5),
    _g("flood", {"Forest": 40, "Grizzly Bears": 20}, "metric:flooded", turns=6),
    _g("explore", {"Forest": 14, "Island": 10, "Jadelight Ranger": 12, "Wildgrowth Walker": 8,
                   "Merfolk Cave-Diver": 8, "Grizzly Bears": 8},
       "metric:explores metric:explore_counters metric:trigger_counters metric:counters "
       "metric:explore_lands metric:milled metric:life_gained metric:cave_diver_pumps "
       "ability:explores_on_enter ability:walker ability:cave_diver", policy="mill", turns=6),
    _g("tracker", {"Forest": 24, "Topography Tracker": 12, "Jadelight Ranger": 12,
                   "Twists and Turns // Mycoid Maze": 12},
       "ability:tracker ability:twists ability:target_explores_on_enter metric:scries "
       "option:replacement_order option:scry_policy",
       turns=6, replacement_order="twists-first", scry_policy="mill"),
    _g("maps", {"Island": 24, "Spyglass Siren": 12, "Worldwalker Helm": 8,
                "Sentinel of the Nameless City": 8, "Forest": 8},
       "metric:maps_created metric:maps_used ability:maps_on_enter ability:attack_map "
       "ability:helm ability:maps", turns=6),
    _g("no_maps", {"Island": 24, "Spyglass Siren": 16, "Merfolk Branchwalker": 20},
       "option:use_maps", turns=5, use_maps=False),
    _g("removal", {"Forest": 24, "Jadelight Ranger": 16, "Merfolk Branchwalker": 20},
       "metric:explorers_removed option:removal", turns=5, removal=1.0),
    _g("parley", {"Island": 24, "Storm Fleet Negotiator": 36},
       "ability:parley option:opponent_land_fraction", turns=6, opponent_land_fraction=0.0),
    _g("combat", {"Forest": 12, "Island": 12, "Deepfathom Echo": 8, "Emperor's Vanguard": 8,
                  "Glowcap Lantern": 6, "Subterranean Schooner": 6, "Grizzly Bears": 8},
       "ability:combat_explorer ability:damage_explorer ability:lantern "
       "ability:lantern_explores ability:schooner ability:crewer_explores", turns=7),
    _g("triggers", {"Forest": 12, "Swamp": 6, "Island": 6, "Lurking Chupacabra": 8,
                    "Shadowed Caravel": 8, "Golden Trail Raider": 8,
                    "Nicanzil, Current Conductor": 6, "Jadelight Ranger": 6},
       "ability:chupacabra ability:caravel ability:attack_explorer ability:nicanzil "
       "metric:chupacabra_triggers metric:nicanzil_lands", turns=7),
    _g("land_drops", {"Forest": 24, "Captain Kathryn Janeway": 8, "Enter the Unknown": 8,
                      "Path of Discovery": 8, "Explore": 6, "Grizzly Bears": 6},
       "ability:each_turn_land ability:each_turn_land_on_enter ability:extra_land_this_turn "
       "ability:spell_explores ability:enters_explorer ability:draws "
       "metric:extra_land_drops", turns=6),
    _g("draws", {"Forest": 24, "Elvish Visionary": 12, "Harmonize": 8, "Grizzly Bears": 16},
       "ability:draws_on_enter ability:draws metric:hand_size metric:cards_drawn", turns=6),
    _g("ramp", {"Forest": 14, "Island": 4, "Evolving Wilds": 4, "Rampant Growth": 8,
                "District Guide": 8, "Myriad Landscape": 4, "Grizzly Bears": 18},
       "ability:ramp ability:basic_to_hand_on_enter ability:activated_search metric:lands_put",
       turns=6),
    _g("pool_maps", {"Forest": 16, "Golgari Rot Farm": 8, "Sentinel of the Nameless City": 16,
                     "Grizzly Bears": 20},
       "ability:pool_maps", turns=6),
    _g("land_search", {"Forest": 6, "Island": 6, "Breeding Pool": 4, "Nature's Lore": 8,
                       "Three Visits": 4, "Farseek": 8, "Lotus Petal": 8, "Grizzly Bears": 16},
       "ability:land_search ability:sacrifice_for_mana", turns=5),
    _g("seeker", {"Forest": 12, "Island": 8, "Restless Anchorage": 4, "Seeker of Sunlight": 12,
                  "Grizzly Bears": 24},
       "ability:seeker ability:anchorage", turns=7),
    _g("mana", {"Forest": 10, "Island": 6, "Breeding Pool": 4, "Simic Guildgate": 4,
                "Llanowar Elves": 6, "Jadelight Ranger": 10, "Deepfathom Echo": 10,
                "Grizzly Bears": 10},
       "metric:life_paid metric:tapped_lands_played metric:colour_screwed option:cast_order "
       "option:castable option:castable_lands", turns=5,
       cast_order=("Grizzly Bears",), castable=("Deepfathom Echo",), castable_lands=True),
    _g("faces", {"Forest": 16, "Turntimber Symbiosis // Turntimber, Serpentine Wood": 12,
                 "Grizzly Bears": 32},
       "option:land_faces", turns=5, land_faces="always"),
    _g("small_hand", {"Forest": 20, "Grizzly Bears": 10, "Jadelight Ranger": 10},
       "option:hand_limit option:on_play", turns=4, hand_limit=3, on_play=False),
    _g("decked", {"Forest": 6, "Grizzly Bears": 4},
       "metric:decked", turns=5),
    _g("commander", {"Forest": 20, "Island": 20, "Merfolk Branchwalker": 30,
                     "River Herald Scout": 29},
       "ability:hakbal ability:attack_land metric:commander_cast",
       commander="Hakbal of the Surging Soul", turns=7),
    _g("commander_tax", {"Forest": 20, "Island": 20, "Merfolk Branchwalker": 30,
                         "River Herald Scout": 29},
       "metric:commander_tax_paid", commander="Hakbal of the Surging Soul", turns=8,
       removal=1.0),
    _g("not_commander", {"Forest": 20, "Island": 20, "Merfolk Branchwalker": 30,
                         "River Herald Scout": 29},
       "option:game", commander="Hakbal of the Surging Soul", turns=6, game="normal"),
)


def by_name(name: str) -> GoldenGame:
    """The golden game called ``name``."""
    for game in GAMES:
        if game.name == name:
            return game
    raise KeyError(name)


def opening_of(deck: Deck, libraries: list[list[int]]) -> OpeningHands:
    """Games' opening hands and libraries from library orders (card ids, top first): the
    first seven cards of each in hand, no mulligan."""
    size = len(libraries[0])
    buffer = np.zeros((len(libraries), size + 1), dtype=np.int16)
    hand = np.zeros((len(libraries), len(deck.features())), dtype=np.int16)
    for row, library in enumerate(libraries):
        buffer[row, :size] = library
        for card in library[:HAND]:
            hand[row, card] += 1
    trials = len(libraries)
    return OpeningHands(buffer, np.full(trials, min(HAND, size), np.int32),
                        np.full(trials, size, np.int32), hand, np.zeros(trials, np.int32))


class ReversingShuffle:
    """The search stream of a given library: sort keys that reverse it (the compiled game
    reverses a given library where a search shuffles it)."""

    def random(self, shape):
        return np.broadcast_to(-np.arange(shape[1], dtype=float), shape)


def play_numpy(deck: Deck, setup: Setup, opening: OpeningHands
               ) -> dict[int, dict[str, np.ndarray]]:
    """The NumPy engine's games from ``opening``: every metric by turn, as arrays of games.

    A golden game's removal and parley coins are certain (0 or 1), so that both engines,
    which draw their coins from streams of their own, play the same games."""
    features = deck.features()
    state = GameState.from_opening_hands(opening, features)
    rngs = {"policy": np.random.default_rng(0), "removal": np.random.default_rng(1),
            "parley": np.random.default_rng(2), "search": ReversingShuffle()}
    game = Goldfish(features, setup.config, setup.policy, setup.scry, rngs)
    out = {0: {"mulligans": opening.mulligans,
               "hand_size": opening.hand.sum(axis=1, dtype=np.int32),
               "opening_lands": opening.hand[:, game.land_ids].sum(axis=1, dtype=np.int32)}}
    for turn in range(1, setup.config.turns + 1):
        game.play_turn(state)
        out[turn] = game.turn_metrics(state)
    return out


def play_kernel(deck: Deck, setup: Setup, opening: OpeningHands
                ) -> tuple[dict[int, dict[str, np.ndarray]], str]:
    """The compiled kernel's game from ``opening`` (one game): its metrics by turn and its
    log as text."""
    from explore_sim.engine.kernel import play_opening_log

    tables = deck_tables(deck.features(), setup.config)
    metrics, trace = play_opening_log(tables, setup.config, setup.policy, opening,
                                      deck.card_ids(), setup.scry)
    return metrics, log_text(trace, deck.features().cards)


def nonzero(metrics: dict[int, dict[str, np.ndarray]], game: int = 0
            ) -> dict[int, dict[str, int]]:
    """Game ``game``'s metrics that are not 0, by turn."""
    return {turn: {name: int(values[game]) for name, values in row.items() if values[game]}
            for turn, row in metrics.items()}


# --- records --------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Record:
    """A golden game's record: the library it is played on, its metrics and its log."""

    library: list[str]
    metrics: dict[int, dict[str, int]]
    log: str

    def text(self, game: GoldenGame) -> str:
        """The record file's text."""
        lines = [f"# golden game {game.name}: regenerate with `python tests/golden_games.py "
                 f"{game.name}`",
                 f"covers: {' '.join(game.covers)}",
                 f"policy: {game.policy}",
                 "options: " + ", ".join(f"{k}={v!r}" for k, v in game.options),
                 "deck: " + ", ".join(f"{n} {card}" for card, n in game.deck)
                 + (f"; commander: {game.commander}" if game.commander else ""),
                 "", "library (top first; the first seven are the opening hand):"]
        lines += [f"  {card}" for card in self.library]
        lines += ["", "metrics (those not 0):"]
        for turn, row in self.metrics.items():
            lines.append(f"  turn {turn}: " + ", ".join(f"{k}={v}" for k, v in row.items()))
        lines += ["", "log:", self.log.rstrip("\n"), ""]
        return "\n".join(lines)

    @classmethod
    def parse(cls, text: str) -> Record:
        """A record from its file's text."""
        library, metrics, log_lines = [], {}, []
        part = None
        for line in text.split("\n"):
            if line.startswith("library"):
                part = "library"
            elif line.startswith("metrics"):
                part = "metrics"
            elif line == "log:":
                part = "log"
            elif part == "library" and line.startswith("  "):
                library.append(line.strip())
            elif part == "metrics" and line.startswith("  turn "):
                head, _, values = line.strip().partition(": ")
                metrics[int(head.split()[1])] = {
                    k: int(v) for k, v in (item.split("=") for item in values.split(", ")
                                            if item)}
            elif part == "log":
                log_lines.append(line)
        return cls(library, metrics, "\n".join(log_lines).rstrip("\n") + "\n")


def record_path(game: GoldenGame) -> Path:
    return RECORDS / f"{game.name}.txt"


def load_record(game: GoldenGame) -> Record:
    """The stored record of ``game``."""
    return Record.parse(record_path(game).read_text(encoding="utf-8"))


def library_ids(deck: Deck, names: list[str]) -> list[int]:
    """Card ids of a library written by name."""
    ids = {card.name: i + 1 for i, card in enumerate(deck.features().cards)}
    return [ids[name] for name in names]


# --- what a game exercises ----------------------------------------------------------------

def exercised(game: GoldenGame, deck: Deck, metrics: dict[int, dict[str, np.ndarray]],
              defaults: dict[str, dict[int, dict[str, np.ndarray]]], logs: list[str] | None,
              trial: int) -> list[str]:
    """The entries of ``game.covers`` that game ``trial`` does not exercise: a metric that
    is 0 every turn, an option whose default (``defaults[name]``, the same games played
    with it) plays the same game, an ability none of whose cards is cast or played
    (``logs[trial]``; None: not checked)."""
    from explore_sim.engine.abilities import ABILITIES
    from explore_sim.engine.goldfish import deck_tables as tables_of

    missing = []
    for entry in game.covers:
        kind, name = entry.split(":")
        if kind == "metric":
            if not any(int(row[key][trial]) for row in metrics.values()
                       for key in row if key == name or key.startswith(name + ":")):
                missing.append(entry)
        elif kind == "option" and name == "turns":
            continue  # the record has that many turns
        elif kind == "option" and name in OPTION_METRICS:
            if not any(int(row[key][trial]) for row in metrics.values() for key in row
                       if key.startswith(OPTION_METRICS[name])):
                missing.append(entry)
        elif kind == "option":
            other = defaults[name]
            if all(int(other[t][m][trial]) == int(metrics[t][m][trial])
                   for t in metrics for m in other[t] if m in metrics[t]):
                missing.append(entry)
        elif kind == "ability" and logs is not None:
            if not _ability_seen(game, deck, name, logs[trial], ABILITIES, tables_of):
                missing.append(entry)
    return missing


#: Options whose effect is a metric of their own: the metric's name or family.
OPTION_METRICS = {"castable": "castable:", "castable_lands": "castable_lands:"}


#: Steps of other abilities, with what their log shows.
_STEP_SIGNS = {"maps": "map used", "pool_maps": "paid with mana left in the pool",
               "crewer_explores": "Subterranean Schooner makes",
               "lantern_explores": "Glowcap Lantern makes"}
#: Abilities whose card being cast is not enough: what their log must show besides (every
#: pattern): a search put a land untapped and one tapped, a one-shot source paid for a spell.
_EFFECT_SIGNS = {"land_search": (r"cast (Nature's Lore|Three Visits) \(",
                                 r"cast Farseek \(", r"land put [^\n]* \(untapped\)",
                                 r"land put [^\n]* \(tapped\)"),
                 "sacrifice_for_mana": (r"sacrificed [^\n]* \(for its mana\)",)}


def _ability_seen(game, deck, name, log, abilities, tables_of) -> bool:
    import re

    if name in _STEP_SIGNS:
        return _STEP_SIGNS[name] in log
    if not all(re.search(sign, log) for sign in _EFFECT_SIGNS.get(name, ())):
        return False
    members = [card.name for card in deck.features().cards
               if next(a for a in abilities if a.name == name).pattern(card)]
    return any(f"cast {member} (" in log or f"land {member} (" in log
               or f"land put {member} (" in log or f"{member} explores" in log
               for member in members)


# --- regeneration --------------------------------------------------------------------------

#: Deals tried per batch when a library is looked for.
BATCH = 512


def find_record(game: GoldenGame) -> Record:
    """The first deal (seed 0, 1, ...) on which ``game`` exercises everything it covers."""
    from explore_sim.engine.state import shuffled_libraries

    deck = game.load()
    setup = game.setup(deck)
    ids = deck.card_ids()
    for seed in range(200):
        rows = shuffled_libraries(ids, BATCH, np.random.default_rng(seed))
        libraries = [row[:len(ids)].tolist() for row in rows]
        opening = opening_of(deck, libraries)
        metrics = play_numpy(deck, setup, opening)
        defaults = {}
        for entry in game.covers:
            kind, name = entry.split(":")
            if kind == "option" and name != "turns" and name not in OPTION_METRICS:
                default = _default_of(name)
                defaults[name] = play_numpy(deck, game.setup(deck, **{name: default}),
                                            opening_of(deck, libraries))
        for trial in range(BATCH):
            if exercised(game, deck, metrics, defaults, None, trial):
                continue
            one = opening_of(deck, [libraries[trial]])
            kernel_metrics, log = play_kernel(deck, setup, one)
            if exercised(game, deck, metrics, defaults, [log] * BATCH, trial):
                continue
            names = [deck.features().cards[card - 1].name for card in libraries[trial]]
            return Record(names, nonzero(kernel_metrics), log)
    raise RuntimeError(f"{game.name}: no deal of 200 x {BATCH} exercises all it covers")


def _default_of(name: str) -> Any:
    from explore_sim.engine.options import option

    return option(name).default


def main(names: list[str]) -> None:
    games = [by_name(name) for name in names] if names else list(GAMES)
    RECORDS.mkdir(exist_ok=True)
    for game in games:
        record = find_record(game)
        record_path(game).write_text(record.text(game), encoding="utf-8")
        print(f"{game.name}: {len(record.library)} cards, {len(record.metrics)} turns")


if __name__ == "__main__":
    main(sys.argv[1:])
