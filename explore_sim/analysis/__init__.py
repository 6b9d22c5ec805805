"""Questions over many games: the analyses, their seeded chunked runner and their reports.

- :mod:`.explore`: one explore sequence over many shuffles;
- :mod:`.simulate`: whole goldfish games with one deck (:func:`simulate`);
- :mod:`.kill_turn`: the damage clock (on which turn the opponent is dead);
- :mod:`.compare`: paired comparisons of decks and policies (:func:`compare`);
- :mod:`.game_setup`: game options (the schema of :mod:`explore_sim.engine.options`) to a
  game, and their metadata; :mod:`.games`: games in seeded chunks, sums by turn;
  :mod:`.metric_checks`: which metrics exist and are shown;
- :mod:`.replay`: one game of a simulate run played again, with its log;
- :mod:`.sweep`: a grid of deck variants and policies (:mod:`.results_files`: its Parquet
  file);
- :mod:`.value`, :mod:`.advise`, :mod:`.tune`: what explore is worth, what to do now, which
  keep-or-mill rule suits a deck;
- :mod:`.results`: what every result shares (metadata, summary, text, reprs);
- :mod:`.runner`: seeded chunks (one ``SeedSequence`` child each) and worker processes;
- :mod:`.stats`: exact streaming statistics, standard errors and intervals;
- :mod:`.report`: tables, CSV and JSON with metadata.

This wing uses :mod:`explore_sim.cards` and :mod:`explore_sim.engine`; the faces (command
line, plots) use it. The public functions are re-exported by :mod:`explore_sim` itself
(``explore_sim.simulate``, ...), so the module names here stay free for the modules.
"""
