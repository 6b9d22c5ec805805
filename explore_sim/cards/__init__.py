"""What a card is and where it comes from.

- :mod:`.card`: the :class:`Card` record and the rules that classify a card (E10);
- :mod:`.catalog`: the built-in :class:`Catalog`, :class:`CardSources` searched in order,
  the catalog's CSV format; :mod:`.spelling`: which unknown names are near misses of known
  ones (the "did you mean" rule);
- :mod:`.name_lists`: card lists typed as text, a name's own commas kept;
- :mod:`.features`: per-card NumPy feature arrays (:class:`FeatureTable`), what the engine
  reads;
- :mod:`.files`: opening user files safely (regular files only, bounded bytes and lines);
- :mod:`.card_files`: user card files (TOML / CSV);
- :mod:`.index`, :mod:`.jsonstream`, :mod:`.oracle`, :mod:`.update`: the Scryfall / MTGJSON
  card index, its streaming reader, oracle-text templates and the one network command;
- :mod:`.decklist`: decklists in every common format, read into a :class:`Deck`;
- :mod:`.template`: a card file skeleton for the cards of a decklist no source knows.

This wing uses nothing of :mod:`explore_sim.engine` or :mod:`explore_sim.analysis`.
"""

from .card import Card, classify_types, mana_value_of, normalize_name
from .card_index import card_sources
from .catalog import CardSources, Catalog
from .decklist import Deck, deck_from_counts, load_deck, parse_deck
from .features import EMPTY, FeatureTable
from .template import card_template, unknown_cards

__all__ = [
    "Card",
    "Catalog",
    "CardSources",
    "FeatureTable",
    "EMPTY",
    "Deck",
    "load_deck",
    "parse_deck",
    "deck_from_counts",
    "card_sources",
    "card_template",
    "unknown_cards",
    "classify_types",
    "mana_value_of",
    "normalize_name",
]
