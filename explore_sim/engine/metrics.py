"""The per-turn metrics of a goldfish game: names, meanings and which are probabilities."""

from __future__ import annotations

__all__ = ["TURN_METRICS", "OPENING_METRICS", "STATE_METRICS", "EVENT_METRICS",
           "MAIN_PHASE_METRICS", "CASTABLE_PREFIX"]

#: Per-turn metrics recorded at the end of every turn; True marks 0/1 indicators.
TURN_METRICS: dict[str, bool] = {
    "lands_played": False,  # lands on the battlefield
    "on_curve": True,  # lands on the battlefield >= turn number
    "land_drop": True,  # a land was played this turn
    "counters": False,  # +1/+1 counters put on your permanents by explore and its triggers
    "explore_counters": False,  # ... by explore itself (E2, E4)
    "trigger_counters": False,  # ... by Wildgrowth Walker, Shadowed Caravel, Nicanzil
    "explores": False,  # explores that happened (E3, E4 included; E9 not)
    "explore_lands": False,  # lands put into hand by explore (E1)
    "milled": False,  # nonland cards put into the graveyard by explore
    "scries": False,  # scry 1 from Twists and Turns (R2)
    "maps_created": False,
    "maps_used": False,
    "mana_spent": False,
    "cards_cast": False,
    "creatures": False,  # creatures on the battlefield
    "hand_size": False,
    "life_gained": False,  # Wildgrowth Walker
    "cave_diver_pumps": False,  # Merfolk Cave-Diver +1/+0 triggers
    "chupacabra_triggers": False,  # Lurking Chupacabra -2/-2 triggers (no target in a goldfish)
    "nicanzil_lands": False,  # lands put onto the battlefield by Nicanzil
    "lands_put": False,  # lands put onto the battlefield other than by a land drop (Nicanzil,
    #                      Hakbal, land searches: ramp spells, fetch lands)
    "explorers_removed": False,  # explorers removed in response to their explore (removal=)
    "extra_land_drops": False,  # land drops beyond one a turn (Enter the Unknown, Janeway, ...)
    "decked": True,  # tried to draw from an empty library (the game would be lost)
    "mana_available": False,  # mana your untapped sources can make in the first main phase
    #                           after the land drop, before casting
    "colour_screwed": True,  # then, a spell in hand costs no more than mana_available but
    #                          cannot be paid for lack of colours
    "life_paid": False,  # life paid for mana: shock lands, pain lands, Phyrexian mana
    "tapped_lands_played": False,  # land drops that entered tapped
    "commander_cast": False,  # casts of a commander from the command zone
    "commander_tax_paid": False,  # mana paid as commander tax ({2} per earlier cast)
}
#: Metrics of the opening hand (reported as turn 0).
OPENING_METRICS: dict[str, bool] = {
    "mulligans": False,
    "hand_size": False,
    "opening_lands": False,
}
#: Metrics that describe the state at the end of a turn; every other turn metric is an
#: event count, cumulative from the start of the game.
STATE_METRICS = ("lands_played", "on_curve", "land_drop", "creatures", "hand_size",
                 "mana_available", "colour_screwed")
#: Metrics taken in the first main phase after the land drop, before casting (with
#: ``castable:CARD`` for every card asked about).
MAIN_PHASE_METRICS = ("mana_available", "colour_screwed")
#: Prefix of the metric "the sources in play after the land drop could pay CARD's cost".
CASTABLE_PREFIX = "castable:"
#: Per-trial event counters kept in :attr:`GameState.totals`.
EVENT_METRICS = tuple(name for name in TURN_METRICS if name not in STATE_METRICS)
