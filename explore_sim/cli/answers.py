"""``value``, ``advise`` and ``tune``: what explore is worth, what to do now, and which
keep-or-mill rule suits a deck."""

from __future__ import annotations

import argparse

from ..analysis.advise import advise
from ..analysis.metric_checks import check_metrics
from ..analysis.tune import tune
from ..analysis.value import BY_TURN, value
from ..cards.name_lists import joined_card_lists
from ..errors import OptionError
from . import shared
from .arguments import add_seed_and_format, count, deck_help, whole
from .game_options import add_game_options
from .metrics import names_help
from .output import Output

__all__ = ["add_parsers", "run_value", "run_advise", "run_tune"]

#: What ``advise --engine`` does (the NumPy engine plays on from a position).
_ADVISE_ENGINE = ("auto or numpy (default auto): the numpy engine plays on from the position; "
                  "kernel is refused (it plays whole games from the deal)")


def add_parsers(commands: argparse._SubParsersAction, parents: list,
                plot: argparse.ArgumentParser) -> None:
    """Add ``value``, ``advise`` and ``tune`` to the command line.

    Parameters
    ----------
    commands : argparse subparsers
    parents : list of argparse.ArgumentParser
        The card-source, decklist-format and output options.
    plot : argparse.ArgumentParser
        ``--plot``, which only ``value`` takes (advise and tune draw no figure).
    """
    _add_value_parser(commands, [*parents, plot])
    _add_advise_parser(commands, parents)
    _add_tune_parser(commands, parents)


def _add_value_parser(commands: argparse._SubParsersAction, parents: list) -> None:
    """``value``: what each explore card adds, and its land-equivalent."""
    text = ("what each explore or Map card adds against a vanilla stand-in, and how many "
            "lands it is worth (land-equivalent), on the same shuffles")
    run = commands.add_parser("value", parents=parents, help=text, description=text)
    run.add_argument("deck", help=deck_help())
    run.add_argument("--card", action="append", dest="value_cards", default=None, metavar="NAME",
                     help="a card of the main deck to value (repeatable, or names separated "
                          "by commas; default: every explore or Map card)")
    run.add_argument("--metric", default="on_curve",
                     help="the per-turn metric the land-equivalent matches (default "
                          "on_curve): " + names_help("turn", castable=False))
    run.add_argument("--turn", type=whole, default=None,
                     help="the turn it is matched at (default: per card, the turn after it "
                          "can first be cast, its mana value + 1, turn 3 at the earliest)")
    run.add_argument("--turns", type=whole, default=None,
                     help="turns to play (1-50; default 6, or the latest card's turn if later)")
    run.add_argument("--metrics", default=None,
                     help="comma-separated metrics of the differences by turn (default: a "
                          "selection); see --metric")
    run.add_argument("--max-lands", type=whole, default=8,
                     help="the most stand-ins replaced by lands (default 8)")
    run.add_argument("--full-curve", action="store_true",
                     help="play the vanilla deck with every count of lands up to the card's "
                          "copies, at most --max-lands (the whole curve, for --plot), not only "
                          "as far as the first that reaches the explorer deck; the "
                          "land-equivalent is the same")
    run.add_argument("--policy", default="forge",
                     help="keep-or-mill policy of every deck (default forge)")
    add_game_options(run, ["on_play", "mulligan", "game", "engine"])
    run.add_argument("--trials", type=whole, default=100_000,
                     help="games per deck variant (default 100000)")
    add_seed_and_format(run)


def _add_advise_parser(commands: argparse._SubParsersAction, parents: list) -> None:
    """``advise``: keep or mill the card an explore just revealed, from a position."""
    text = ("keep or mill the card an explore just revealed: both choices played on from "
            "your position, on the same libraries, with paired differences")
    run = commands.add_parser("advise", parents=parents, help=text, description=text)
    run.add_argument("deck", help=deck_help())
    run.add_argument("--turn", type=whole, required=True, help="the turn being played")
    add_game_options(run, ["on_play"], help={"on_play": "you are on the draw"})
    run.add_argument("--hand", action="append", default=[], metavar="CARDS",
                     help='cards in hand, e.g. "Forest, 2 Swamp" (repeatable; a name with '
                          "commas is read whole)")
    run.add_argument("--battlefield", action="append", default=[], metavar="CARDS",
                     help="permanents you control (lands included; repeatable)")
    run.add_argument("--graveyard", action="append", default=[], metavar="CARDS",
                     help="cards in your graveyard (repeatable)")
    run.add_argument("--explorer", default=None,
                     help="the exploring permanent (default: the only explore card on the "
                          "battlefield; added to it if not listed)")
    run.add_argument("--explorer-in-play", action="store_true",
                     help="the explorer was not cast this turn (a Map, an attack, a spell "
                          "made it explore): nothing is paid for it, it is not summoning sick")
    run.add_argument("--mana-used", type=whole, default=0, metavar="N",
                     help="mana paid from your sources (lands, mana creatures) this turn "
                          "besides the explorer's cost (a Map's {1}, a spell cast before the "
                          "explore), as generic mana (default 0)")
    run.add_argument("--maps", type=whole, default=0, metavar="N",
                     help="Map tokens you control now, besides any used for this explore "
                          "(default 0): the game uses them as it uses its own")
    run.add_argument("--revealed", required=True, help="the nonland card revealed")
    run.add_argument("--explores-left", type=whole, default=1,
                     help="explores left in this sequence, this one included (default 1)")
    run.add_argument("--phase", choices=["main1", "main2"], default="main1",
                     help="where in the turn the explore happens (default main1)")
    run.add_argument("--objective", default=None,
                     help="comma-separated objectives such as on_curve@5,mana_spent@6 "
                          "(default: on_curve next turn, mana_spent three turns on)")
    run.add_argument("--policy", default="forge",
                     help="later keep-or-mill decisions (default forge)")
    add_game_options(run, ["game", "engine"], help={"engine": _ADVISE_ENGINE})
    run.add_argument("--trials", type=whole, default=100_000,
                     help="libraries played by both choices (default 100000)")
    add_seed_and_format(run)


def _add_tune_parser(commands: argparse._SubParsersAction, parents: list) -> None:
    """``tune``: search keep-or-mill rules for the best one for a deck."""
    text = ("search keep-or-mill rules (Forge's grid, thresholds and their conjunctions) for "
            "the one that maximises an objective, by racing on the same shuffles")
    run = commands.add_parser("tune", parents=parents, help=text, description=text)
    run.add_argument("deck", help=deck_help())
    run.add_argument("--objective", default="on_curve@4",
                     help='what to maximise, such as mana_spent@6 or '
                          '"on_curve@4 + 0.1*counters@6" (default on_curve@4)')
    run.add_argument("--budget", type=count, default=400_000,
                     help="games to play in all (default 400000)")
    run.add_argument("--top", type=count, default=5, help="finalists reported (default 5)")
    add_game_options(run, ["on_play", "mulligan", "game", "engine"])
    add_seed_and_format(run)


def run_value(args: argparse.Namespace) -> Output:
    """Run ``value``.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    Output
    """
    metrics = shared.metric_list(args.metrics, "--metrics", by_turn=BY_TURN)
    if args.metric.split("@")[0].strip() == "kill_turn":
        raise OptionError("--metric: the land-equivalent cannot match kill_turn (lower is "
                          "better, and lands in place of creatures only kill later); use "
                          "compare --kill-turn, or --metric opponent_dead")
    (metric,) = check_metrics([args.metric], label="--metric", by_turn=BY_TURN)
    shared.check_plot_path(args)
    deck = shared.deck(args, args.deck)
    bar = shared.progress(args, "value")
    with shared.scheduler(args) as scheduler:
        cards = None if args.value_cards is None else joined_card_lists(args.value_cards)
        result = value(deck, cards, metric=metric, turn=args.turn, turns=args.turns,
                       metrics=metrics, policy=args.policy, on_play=args.on_play,
                       mulligan=args.mulligan, trials=args.trials, seed=args.seed,
                       game=args.game, max_lands=args.max_lands,
                       full_curve=args.full_curve, engine=args.engine, progress=bar,
                       workers=1 if scheduler else args.workers, scheduler=scheduler)
    bar.close()
    plot = shared.plot_later(args.plot, result) if args.plot else None
    return Output(result.render(args.format), plot)


def run_advise(args: argparse.Namespace) -> Output:
    """Run ``advise``.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    Output
    """
    deck = shared.deck(args, args.deck)
    bar = shared.progress(args, "advise")
    with shared.scheduler(args) as scheduler:
        result = advise(deck, turn=args.turn, revealed=args.revealed,
                        hand=joined_card_lists(args.hand),
                        battlefield=joined_card_lists(args.battlefield),
                        graveyard=joined_card_lists(args.graveyard),
                        explorer=args.explorer, explores_left=args.explores_left,
                        objectives=args.objective, policy=args.policy,
                        on_play=args.on_play, explorer_cast=not args.explorer_in_play,
                        mana_used=args.mana_used, maps=args.maps, phase=args.phase,
                        trials=args.trials,
                        seed=args.seed, game=args.game,
                        engine=args.engine, progress=bar,
                        workers=1 if scheduler else args.workers, scheduler=scheduler)
    bar.close()
    return Output(result.render(args.format))


def run_tune(args: argparse.Namespace) -> Output:
    """Run ``tune``.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    Output
    """
    deck = shared.deck(args, args.deck)
    bar = shared.progress(args, "tune")
    with shared.scheduler(args) as scheduler:
        result = tune(deck, args.objective, budget=args.budget, top=args.top,
                      on_play=args.on_play, mulligan=args.mulligan, seed=args.seed,
                      game=args.game, engine=args.engine, progress=bar,
                      workers=1 if scheduler else args.workers, scheduler=scheduler)
    bar.close()
    return Output(result.render(args.format))
