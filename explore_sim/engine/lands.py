"""Lands: which land to play, how it enters, and basic-land searches; vectorised over trials.

**Which land to play** (a land drop, or a land put onto the battlefield by an effect). The
options are the land cards in hand, each face of a Pathway, and the land face of a spell //
land modal double-faced card (by :attr:`GameConfig.land_faces`: ``when-needed``, the
default, plays it only when no land card is in hand; ``always`` treats it as a land; ``never``
never plays it); a bounce land is not an option while you control no other land (it would
return itself). Among the options, in this order:

1. one that lets a spell in hand, a commander in the command zone (with its tax) or a card
   named by ``castable`` (counted as held) be cast this turn that could not be cast without
   it;
2. untapped over tapped when mana will be used this turn (a spell in hand, a commander in
   the command zone with its tax, or a ``castable`` card can be paid now, or could be with
   one of the untapped lands held: step 1's test, colours counted), tapped first when it
   will not; a fetch land counts as tapped (the land it finds enters tapped; Fabled Passage's is
   untapped from the fourth land on);
3. the one that closes most of the *remaining colour deficit* of the wanted cards: the
   spells in hand the casting order casts, a commander in the command zone and the cards
   named by ``castable`` (each distinct card once). A card's deficit is the number of its
   pips (every symbol but generic mana, ``{C}`` and ``{S}`` included) that the mana sources
   you control (tapped or not; Signet-style filters aside) cannot pay, each pip by a
   distinct unit (the deficiency of the matching of pips to units,
   :func:`colour_deficits`); a fetch land closes what the best basic land kind of the deck
   would;
4. the one making the colour with the largest remaining deficit (per colour W U B R G: each
   wanted card's pips of that colour beyond the sources of that colour), then the colour
   most demanded by the pips of the spells left in the library;
5. one that pays no life to enter untapped first (a Hinterland Harbor before a Breeding
   Pool that would pay 2 life), more colours, a land card before a spell's land face, then
   the lower id (by name).

A fetch land stands for every basic land kind of the deck (left in the library or not): the
best of them in step 3, all their colours in steps 4 and 5.

A land put onto the battlefield by an effect is a land card (no spell's land face): as its own
text says (Hakbal's attack trigger), it is chosen like a land drop (steps 1-5: its mana can be
spent in the second main phase); put tapped (Nicanzil), a land that would enter tapped anyway
comes first (step 2 as on a turn whose mana is not used), then steps 3-5.

With one wanted card and basic lands, step 3 is the best choice: a land drop that lowers the
deficit is played whenever one is held, so by turn T the lands played pay the card exactly
when the lands seen by then could (the proof is in docs/mana.md).

**How it enters** (``enters_tapped``): always tapped; check lands untapped if you control a
land of one of the named basic land types; fast lands with two or fewer other lands; slow
lands with two or more; shock lands (and "pay 3 life" faces) untapped, paying the life, only
when the mana they add can be spent this turn (:func:`land_mana_spent`: with it, a wanted
card is paid that could not be without it, or an X spell, or some wanted cards cost exactly
all the mana). Temples scry 1 (by the scry policy); bounce lands return a land you control
to hand, tapping it for mana first (the least flexible, tapped ones first, else the bounce
land itself).

**Searches** (Evolving Wilds, Fabled Passage, Myriad Landscape, Rampant Growth, Cultivate,
Kodama's Reach, District Guide): the basic land is chosen by steps 3-5 above among the basics
left in the library, taken out of it, and the library is shuffled: a card kept on top by
explore is no longer known to be on top (E2 still holds for the explore itself). A fetch land
played as the land drop whose basic enters tapped counts in ``tapped_lands_played``. A
spell's search for a land card of named land types (Nature's Lore, Three Visits: a Forest
card; Farseek: a Plains, Island, Swamp or Mountain card; :func:`search_lands`) may find any
land card of the deck with one of those types (Breeding Pool is a Forest card), chosen among
those left in the library: for one put onto the battlefield untapped, a land that never
enters untapped by its own text last; then steps 3-4, more colours first, then the lower id.
The land enters as its own text says (a shock land found untapped asks for its 2 life when
its mana can be spent this turn), tapped where the spell says so.
"""

from __future__ import annotations

import numpy as np

from ..cards import EMPTY
from ..cards.features import (
    FETCH_BASIC,
    FETCH_CODES,
    FETCH_WHEN_CODES,
    LAND_ENTERS_CODES,
    TAPPED_RULES,
)
from .castability import (
    castable_commander,
    castable_in_hand,
    castable_target,
    held_spells,
    land_mana_spent,
)
from .config import LAND_FACES
from .context import Play
from .explore_effects import scry
from .rowwise import row_any, row_max, row_sum
from .state import GameState, from_hand, kinds_in, of_rows, to_hand
from .tables import COLOUR_BITS as _COLOUR_BITS, NO_LIFE_TIEBREAK
from .zones import (
    basics_in_library,
    count,
    enters,
    kinds_in_library,
    land_types,
    return_to_hand,
    sacrifice,
)

__all__ = ["LAND_FACES", "play_land", "put_land", "land_enters", "choose_land",
           "search_basics", "search_lands", "searchable_lands", "shuffle_libraries",
           "wanted_cards", "sources_in_play", "colour_deficits"]

_YES, _UNLESS, _FAST, _SLOW, _LIFE = (TAPPED_RULES.index(k) for k in
                                       ("yes", "unless", "fast", "slow", "life"))
_SCRY, _BOUNCE = LAND_ENTERS_CODES.index("scry"), LAND_ENTERS_CODES.index("bounce")
_SACRIFICE = FETCH_WHEN_CODES.index("sacrifice")
_PASSAGE = FETCH_CODES.index("basic_passage")
_TYPE_MASK = 31  # the basic land types' colour bits of ``fetch_types``


# --------------------------------------------------------------------------------------
# Choosing


def wanted_cards(play: Play, state: GameState, rows: np.ndarray) -> np.ndarray:
    """Distinct wanted cards of each :class:`~explore_sim.engine.tables.ColourNeeds` profile
    in each row: the spells in hand the casting order casts, the commanders in the command
    zone and the ``castable`` cards, shape (rows, n_profiles)."""
    needs, t = play.tables.colour_needs, play.tables
    held = (of_rows(state.hand, rows)[:, t.casting.cast_ids] > 0).astype(np.int32)
    counts = held @ needs.hand_profiles + needs.castable_profiles
    for j, kind in enumerate(t.commander_ids.tolist()):
        counts += (state.command[rows, kind, None] > 0) * needs.commander_profiles[j]
    return counts


def sources_in_play(play: Play, state: GameState, rows: np.ndarray) -> np.ndarray:
    """Units of every plain mana source you control, tapped or not, (rows, n_classes)."""
    mana = play.mana
    plain = mana.source_cost == 0
    counts = of_rows(state.battlefield, rows)[:, mana.source_ids[plain]].astype(np.int32)
    return counts @ mana.source_units[plain]


def colour_deficits(play: Play, covered: np.ndarray) -> np.ndarray:
    """Each profile's colour deficit for the units summarised by ``covered``
    (:meth:`~explore_sim.engine.paying.ManaTables.covered`, (rows, n_masks)): the fewest pips,
    over its ways to pay, that no distinct unit can pay. By Hall's theorem with deficiency,
    the largest matching of pips to units leaves ``max(0, max_M (pips inside M - units
    meeting M))`` pips unpaid, over the masks M of the exact test. Shape (rows, n_profiles).
    """
    needs = play.tables.colour_needs
    out = np.zeros((covered.shape[0], needs.n_profiles), dtype=np.int32)
    for p, modes in enumerate(needs.profile_modes):
        best = None
        for m in modes:
            short = row_max(play.mana.req[m][None, :] - covered)
            best = short if best is None else np.minimum(best, short)
        assert best is not None  # every profile has a way to pay
        out[:, p] = np.maximum(best, 0)
    return out


def _option_demand(demand: np.ndarray, colours: np.ndarray) -> np.ndarray:
    """For each row and option, the largest ``demand`` (rows, 5) among the option's colours,
    (rows, options)."""
    best = np.zeros((demand.shape[0], colours.shape[0]), dtype=np.int64)
    for o, mask in enumerate(colours.tolist()):  # option by option, its colours only
        for i, bit in enumerate(_COLOUR_BITS):
            if mask & bit:
                np.maximum(best[:, o], demand[:, i], out=best[:, o])
    return best


def _enters_untapped(play: Play, state: GameState, rows: np.ndarray, rule: np.ndarray,
                     arg: np.ndarray, life_paid: np.ndarray) -> np.ndarray:
    """Whether lands with these tapped rules (rows, options) would enter untapped now;
    ``life_paid`` (rows, options): where a land asking for life would pay it."""
    untapped = np.broadcast_to(rule == 0, (len(rows), rule.shape[1])).copy()
    if (rule == _UNLESS).any():
        types = land_types(play, state, rows)[:, None]
        untapped |= (rule == _UNLESS) & ((types & arg) != 0)
    if ((rule == _FAST) | (rule == _SLOW)).any():
        lands = count(play, state, "land", rows)[:, None]
        untapped |= (rule == _FAST) & (lands <= 2)
        untapped |= (rule == _SLOW) & (lands >= 2)
    untapped |= (rule == _LIFE) & life_paid
    return untapped


def choose_land(play: Play, state: GameState, rows: np.ndarray, land_drop: bool,
                tapped: bool = False) -> np.ndarray:
    """The option (index into :class:`LandOptions`) to play in each row, -1 if none.

    ``land_drop``: a land drop (steps 1-5 of the module docstring). Otherwise an effect puts
    a land card (spell faces excluded) onto the battlefield: tapped (Nicanzil, ``tapped``),
    a land that would enter tapped anyway first, then steps 3-5; as its own text says
    (Hakbal), chosen like a land drop, since its mana can be spent in the second main phase.
    """
    options = play.tables.lands
    choice = np.full(len(rows), -1, dtype=np.intp)
    if not options.card.size or not rows.size:
        return choice
    held = of_rows(state.hand, rows)[:, options.card] > 0
    if land_drop:
        if play.config.land_faces == "when-needed":
            has_land = row_any(held & options.is_land_card)
            held &= ~(options.is_spell_face[None, :] & has_land[:, None])
    else:
        held &= options.is_land_card
    if options.is_bounce.any():  # step 0: a bounce land needs another land to return
        no_land = count(play, state, "land", rows) == 0
        held &= ~(options.is_bounce[None, :] & no_land[:, None])
    options_held = row_sum(held)
    single = options_held == 1
    choice[single] = np.argmax(held[single], axis=1)
    several = np.flatnonzero(options_held > 1)
    if several.size:
        choice[several] = _best(play, state, rows[several], held[several],
                                may_use=land_drop or not tapped)
    return choice


def _best(play: Play, state: GameState, rows: np.ndarray, held: np.ndarray,
          may_use: bool) -> np.ndarray:
    """Steps 1-5 where the land's mana may be used this turn (``may_use``); else, for a land
    put onto the battlefield tapped, step 2 as on a turn whose mana is not used (a land that
    would enter tapped anyway first), then steps 3-5."""
    options = play.tables.lands
    n = len(options.card)
    key = np.zeros((len(rows), n), dtype=np.int64)
    if may_use:
        unit_sets = play.mana.unit_sets(state, rows)
        # Step 2: mana will be used this turn when a wanted card can be paid now (colours
        # counted); one that an untapped land held would let be paid is step 1's.
        spells = held_spells(play, state, rows)
        before = castable_in_hand(play, state, rows, unit_sets, spells)
        wanted = play.tables.castable_card_modes
        target_before = castable_target(play, unit_sets) if wanted else before
        commanders = play.tables.commander_ids.size > 0
        commander_before = (castable_commander(play, state, rows, unit_sets) if commanders
                            else before)
        will_use = before | target_before | commander_before
    else:
        will_use = np.zeros(len(rows), dtype=bool)
    life_paid = np.zeros((len(rows), n), dtype=bool)  # a land asking for life pays it
    for o in np.flatnonzero(options.tapped_rule == _LIFE).tolist() if may_use else ():
        here = np.flatnonzero(held[:, o])  # when its mana can be spent this turn
        life_paid[here, o] = land_mana_spent(play, state, rows[here],
                                             [u[here] for u in unit_sets], options.units[o])
    untapped = _enters_untapped(play, state, rows, options.tapped_rule[None, :],
                                options.tapped_arg[None, :], life_paid)
    if options.is_fetch.any():  # the land a fetch finds enters tapped (a Passage's not,
        lands = count(play, state, "land", rows)[:, None]  # from the fourth land on)
        untapped = np.where(options.is_fetch[None, :],
                            options.is_passage[None, :] & (lands >= 3), untapped)
    if may_use:  # step 1: a spell in hand, a commander in the command zone, or a card
        # named by castable, castable this turn with the land and not without it
        enables = np.zeros((len(rows), n), dtype=bool)
        for o in range(n):
            trying = held[:, o] & untapped[:, o] & ~(before & target_before & commander_before)
            if trying.any():
                more = [units[trying] + options.units[o] for units in unit_sets]
                enabled = ~before[trying] & castable_in_hand(play, state, rows[trying], more,
                                                             spells[trying])
                if wanted:
                    enabled |= ~target_before[trying] & castable_target(play, more)
                if commanders:
                    enabled |= ~commander_before[trying] & castable_commander(
                        play, state, rows[trying], more)
                enables[trying, o] = enabled
        key += enables.astype(np.int64) << 50
    key += (untapped == will_use[:, None]).astype(np.int64) << 49
    key += _colour_key(play, state, rows, options.units, options.colours, options.is_fetch)
    key += np.where(life_paid, 0, NO_LIFE_TIEBREAK)  # step 5: no life paid first
    key += options.tiebreak[None, :] + (1 << 20)
    return np.argmax(np.where(held, key, -1), axis=1)


def _colour_key(play: Play, state: GameState, rows: np.ndarray, units: np.ndarray,
                colours: np.ndarray, is_fetch: np.ndarray | None = None) -> np.ndarray:
    """Steps 3 and 4 as one integer key per (row, option) for options making ``units``
    (options, n_classes) of ``colours`` (options,); a fetch option (``is_fetch``) is worth
    the best basic land of the deck."""
    needs = play.tables.colour_needs
    mana = play.mana
    in_play = sources_in_play(play, state, rows)
    key = np.zeros((len(rows), len(colours)), dtype=np.int64)
    if needs.n_profiles:
        wanted = wanted_cards(play, state, rows)
        covered = mana.covered(in_play)
        before = colour_deficits(play, covered)

        def closed(option_units: np.ndarray) -> np.ndarray:
            after = colour_deficits(play, covered + option_units @ mana.intersects)
            return row_sum(wanted * (before - after))

        basics = play.tables.lands.basic_units if is_fetch is not None and is_fetch.any() \
            else np.zeros((0, mana.n_classes), dtype=np.int32)
        for o in range(len(colours)):
            if is_fetch is not None and is_fetch[o]:
                gain = np.zeros(len(rows), dtype=np.int64)
                for basic in basics:
                    gain = np.maximum(gain, closed(basic))
            else:
                gain = closed(units[o])
            key[:, o] += np.minimum(gain, 255).astype(np.int64) << 41
        short = np.maximum(needs.pips[None, :, :] - (in_play @ needs.colour_units)[:, None, :], 0)
        demand = np.einsum("rp,rpc->rc", wanted, short)
        key += np.minimum(_option_demand(demand, colours), 255) << 33
    library = np.minimum(_option_demand(of_rows(state.library_pips, rows), colours), 4095)
    return key + (library << 21)


# --------------------------------------------------------------------------------------
# Playing and entering


def play_land(play: Play, state: GameState, rows: np.ndarray) -> np.ndarray:
    """Play a land where a land drop is left and a land can be played; the mask of rows that
    did."""
    with_drop = state.land_drops[rows] > 0
    option = np.full(len(rows), -1, dtype=np.intp)
    option[with_drop] = choose_land(play, state, rows[with_drop], land_drop=True)
    playing = option >= 0
    if playing.any():
        players = rows[playing]
        state.land_drops[players] -= 1
        state.played_land[players] = True
        enter_options(play, state, players, option[playing], land_drop=True)
    return playing


def put_land(play: Play, state: GameState, rows: np.ndarray,
             tapped: bool = True) -> np.ndarray:
    """Put a land card from hand onto the battlefield (not a land drop): tapped (Nicanzil),
    or as its own text says (Hakbal's attack trigger); the rows that did."""
    option = choose_land(play, state, rows, land_drop=False, tapped=tapped)
    putting = option >= 0
    if putting.any():
        enter_options(play, state, rows[putting], option[putting], land_drop=False,
                      tapped=tapped)
    return putting


def enter_options(play: Play, state: GameState, rows: np.ndarray, option: np.ndarray,
                  land_drop: bool, tapped: bool = False) -> None:
    """The cards of the chosen options leave the hand and their lands enter (``tapped``: by
    the effect that puts them there)."""
    options = play.tables.lands
    for o in kinds_in(option):
        here = rows[option == o]
        from_hand(state, here, options.card[o])
        land_enters(play, state, here, int(options.kind[o]), tapped=tapped,
                    land_drop=land_drop)


def land_enters(play: Play, state: GameState, rows: np.ndarray, kind: int, tapped: bool,
                land_drop: bool = False) -> None:
    """Land ``kind`` enters the battlefield in each of ``rows`` (its card already left the
    hand or library): tapped by the effect (``tapped``) or by its own rule; then its enter
    abilities (scry, bounce, a sacrifice-to-search) and the permanent's enter triggers."""
    f = play.tables.features
    rule, arg = int(f.tapped_rule[kind]), int(f.tapped_arg[kind])
    if tapped or rule == _YES:
        enters_tapped = np.ones(len(rows), dtype=bool)
    elif rule == 0:
        enters_tapped = np.zeros(len(rows), dtype=bool)
    else:
        life_paid = np.zeros((len(rows), 1), dtype=bool)
        if rule == _LIFE:  # only when its mana can be spent this turn
            life_paid[:, 0] = land_mana_spent(play, state, rows, play.mana.unit_sets(state, rows),
                                              f.source_units[kind].astype(np.int32))
        untapped = _enters_untapped(play, state, rows, np.array([[rule]]), np.array([[arg]]),
                                    life_paid)[:, 0]
        enters_tapped = ~untapped
        if rule == _LIFE:  # paid the life to have it untapped
            state.totals["life_paid"][rows[untapped]] += arg
    if not land_drop:
        state.totals["lands_put"][rows] += 1
    enters(play, state, rows, kind, tapped=enters_tapped)
    if land_drop:
        state.totals["tapped_lands_played"][rows[enters_tapped]] += 1
    effect = int(f.land_enters[kind])
    if effect == _SCRY:
        _scry(play, state, rows)
    elif effect == _BOUNCE:
        _bounce(play, state, rows, kind)
    if int(f.fetch_when[kind]) == _SACRIFICE:
        _sacrifice_to_search(play, state, rows, kind, land_drop)


def _scry(play: Play, state: GameState, rows: np.ndarray) -> None:
    zeros = np.zeros(len(rows), dtype=np.int32)
    scry(play, state, rows, zeros, zeros, np.ones(len(rows), dtype=bool))


def _bounce(play: Play, state: GameState, rows: np.ndarray, bounce_land: int) -> None:
    """Return a land you control to hand: the least flexible other land, tapped ones first,
    tapped for mana beforehand if it is untapped; else the bounce land itself."""
    lands = play.tables.land_ids
    own = (lands == bounce_land).astype(np.int32)  # the bounce land itself, just entered tapped
    present = of_rows(state.battlefield, rows)[:, lands].astype(np.int32) - own
    tapped = (of_rows(state.tapped, rows)[:, lands] - own > 0).astype(np.int64)
    colours = np.array([bin(int(c)).count("1") for c in play.tables.land_colours[lands]])
    # Tapped ones first, then the fewest colours, then deck order.
    score = ((tapped << 20) + ((8 - colours) << 12)[None, :]
             + (4095 - np.arange(len(lands)))[None, :])
    score = np.where(present > 0, score, -1)
    pick = np.argmax(score, axis=1)
    has_other = score[np.arange(len(rows)), pick] >= 0
    chosen = np.where(has_other, lands[pick], bounce_land)
    for kind in kinds_in(chosen):
        here = rows[chosen == kind]
        if play.mana.is_plain(kind):  # tap it for mana first; the mana stays in the pool
            using = here[play.mana.usable(state, here, kind) > 0]
            with play.mana.track(state, using, kind):
                state.tapped[using, kind] += 1
            state.pool[using] += play.tables.features.source_units[kind].astype(state.pool.dtype)
            state.pool_in_use = True
        # a tapped copy returns: tapped for mana just now, or chosen for being tapped
        return_to_hand(play, state, here, kind, tapped=True)


def _sacrifice_to_search(play: Play, state: GameState, rows: np.ndarray, kind: int,
                         land_drop: bool) -> None:
    """A land's "{T}, Sacrifice this land: search ..." used at once, where it is untapped
    and the library holds a basic land; played as the land drop, a basic that enters tapped
    is a tapped land played."""
    untapped = state.battlefield[rows, kind] - state.tapped[rows, kind] > 0
    has_basic = row_sum(basics_in_library(play, state, rows)) > 0
    using = rows[untapped & has_basic]
    if not using.size:
        return
    sacrifice(play, state, using, kind)
    how = FETCH_CODES[int(play.tables.features.fetch[kind])]
    search_basics(play, state, using, how)
    if land_drop:
        tapped = using
        if how == "basic_passage":  # untapped with four or more lands
            tapped = using[count(play, state, "land", using) < 4]
        state.totals["tapped_lands_played"][tapped] += 1


# --------------------------------------------------------------------------------------
# Searching the library


def search_basics(play: Play, state: GameState, rows: np.ndarray, how: str) -> None:
    """Search each library in ``rows`` for basic lands as ``how`` says (a code of
    :data:`~explore_sim.cards.card.FETCHES`), then shuffle it."""
    if how in {"basic_tapped", "basic_passage"}:
        found = _take_basic(play, state, rows)
        untap = None
        if how == "basic_passage":  # untapped if you control four or more lands
            untap = count(play, state, "land", rows) + 1 >= 4
        _enter_found(play, state, rows, found, untap)
    elif how == "basic_hand":
        found = _take_basic(play, state, rows)
        ok = found != EMPTY
        to_hand(state, rows[ok], found[ok])
    elif how == "basic_tapped_and_hand":
        first = _take_basic(play, state, rows)
        second = _take_basic(play, state, rows)
        _enter_found(play, state, rows, first, None)
        ok = second != EMPTY
        to_hand(state, rows[ok], second[ok])
    elif how == "two_basics_tapped":
        first = _take_basic(play, state, rows)
        second = _take_basic(play, state, rows, same_type_as=first)
        _enter_found(play, state, rows, first, None)
        _enter_found(play, state, rows, second, None)
    shuffle_libraries(play, state, rows)


def searchable_lands(play: Play, types: int) -> np.ndarray:
    """The deck's land kinds a typed search for ``types`` finds
    (:attr:`~explore_sim.cards.features.FeatureTable.fetch_types`: land types as colour
    bits, :data:`~explore_sim.cards.features.FETCH_BASIC` for a basic land card)."""
    f, lands = play.tables.features, play.tables.land_ids
    lands = lands[lands <= f.n_deck]  # a land face is never in the library
    found = (f.basic_types[lands].astype(np.int64) & (types & _TYPE_MASK)) != 0
    if types & FETCH_BASIC:
        found |= f.is_basic[lands]
    return lands[found]


def search_lands(play: Play, state: GameState, rows: np.ndarray, how: str,
                 types: int) -> None:
    """A spell's search for a land card of the named types (Nature's Lore, Three Visits,
    Farseek): ``how`` is ``land_untapped``, ``land_tapped`` or ``land_hand``
    (:data:`~explore_sim.cards.card.TYPED_FETCHES`), ``types`` what it finds
    (:func:`searchable_lands`); then the library is shuffled."""
    kinds = searchable_lands(play, types)
    found = _take_land(play, state, rows, kinds, how == "land_untapped")
    ok = found != EMPTY
    if how == "land_hand":
        to_hand(state, rows[ok], found[ok])
    else:
        for kind in kinds_in(found[ok]):
            land_enters(play, state, rows[found == kind], kind, tapped=how == "land_tapped")
    shuffle_libraries(play, state, rows)


def _take_land(play: Play, state: GameState, rows: np.ndarray, kinds: np.ndarray,
               untapped: bool) -> np.ndarray:
    """Choose one of the land ``kinds`` in each library (for one put onto the battlefield
    untapped, a land that always enters tapped last; then steps 3-4, more colours first,
    then the lower id) and take it out of the library; its card id, ``EMPTY`` where there
    is none."""
    f = play.tables.features
    counts = kinds_in_library(state, rows, kinds)
    held = counts > 0
    colours = play.tables.land_colours[kinds]
    key = _colour_key(play, state, rows, f.source_units[kinds].astype(np.int32), colours)
    ranks = (np.array([bin(int(c)).count("1") for c in colours], dtype=np.int64) << 16) \
        + 4095 - np.arange(len(kinds))
    if untapped:
        ranks += (f.tapped_rule[kinds] != _YES).astype(np.int64) << 55
    key += ranks[None, :]
    pick = np.argmax(np.where(held, key, -1), axis=1) if kinds.size else \
        np.zeros(len(rows), dtype=np.intp)
    found = np.where(row_any(held), kinds[pick] if kinds.size else EMPTY, EMPTY).astype(np.intp)
    taking = found != EMPTY
    _remove_from_library(state, rows[taking], found[taking])
    return found


def _enter_found(play: Play, state: GameState, rows: np.ndarray, found: np.ndarray,
                 untap: np.ndarray | None) -> None:
    for kind in kinds_in(found[found != EMPTY]):
        here = found == kind
        land_enters(play, state, rows[here], kind, tapped=True)
        if untap is not None:
            freed = rows[here & untap]
            with play.mana.track(state, freed, kind):
                state.tapped[freed, kind] -= 1


def _take_basic(play: Play, state: GameState, rows: np.ndarray,
                same_type_as: np.ndarray | None = None) -> np.ndarray:
    """Choose a basic land in each library (steps 3-5 of the land choice), take it out of
    the library; its card id, ``EMPTY`` where there is none."""
    basics = play.tables.basic_ids
    counts = basics_in_library(play, state, rows)
    held = counts > 0
    if same_type_as is not None:
        wanted = play.tables.features.basic_types[same_type_as][:, None]
        held &= (play.tables.features.basic_types[basics][None, :] & wanted) != 0
    key = _colour_key(play, state, rows, play.tables.features.source_units[basics].astype(np.int32),
                      play.tables.land_colours[basics])
    key += (1 << 20) - np.arange(len(basics))[None, :]
    pick = np.argmax(np.where(held, key, -1), axis=1)
    found = np.where(row_any(held), basics[pick], EMPTY).astype(np.intp)
    taking = found != EMPTY
    _remove_from_library(state, rows[taking], found[taking])
    return found


def _library_window(state: GameState, rows: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row's library read from its top around the ring.

    Returns
    -------
    positions : ndarray, shape (len(rows), width)
        Column of the library array at each depth (top first).
    cards : ndarray, shape (len(rows), width)
        The card at each depth.
    live : ndarray of bool, shape (len(rows), width)
        Depths still in the library (before ``end``).
    """
    width = state.library.shape[1]
    offsets = np.arange(width)
    top, end = state.top[rows], state.end[rows]
    positions = (top[:, None] + offsets[None, :]) % width
    cards = state.library[rows[:, None], positions]
    return positions, cards, offsets[None, :] < (end - top)[:, None]


def _remove_from_library(state: GameState, rows: np.ndarray, card: np.ndarray) -> None:
    """Take one copy of ``card`` (aligned with rows) out of each library: it swaps places
    with the top card, which stays in the library."""
    if not rows.size:
        return
    positions, cards, live = _library_window(state, rows)
    where = np.argmax((cards == card[:, None]) & live, axis=1)
    first = positions[:, 0]
    found = positions[np.arange(len(rows)), where]
    state.library[rows, found] = state.library[rows, first]
    state.library[rows, first] = card
    state.top[rows] += 1
    state.library_lands[rows] -= 1


def shuffle_libraries(play: Play, state: GameState, rows: np.ndarray) -> None:
    """Shuffle each library in ``rows`` (the cards from ``top`` to ``end``), drawing the
    random order from the game's ``"search"`` stream."""
    if not rows.size:
        return
    positions, cards, live = _library_window(state, rows)
    keys = np.asarray(play.rngs["search"].random(cards.shape), dtype=np.float64)
    keys = np.where(live, keys, np.inf)
    order = np.argsort(keys, axis=1, kind="stable")
    state.library[rows[:, None], positions] = np.take_along_axis(cards, order, axis=1)
