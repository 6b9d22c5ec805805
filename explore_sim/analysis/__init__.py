"""Questions over many games: the analyses, their seeded chunked runner and their reports.

- :mod:`.explore`: one explore sequence over many shuffles;
- :mod:`.simulate`: whole goldfish games (:func:`simulate`) and paired comparisons
  (:func:`compare`);
- :mod:`.sweep`: a grid of deck variants and policies;
- :mod:`.runner`: seeded chunks (one ``SeedSequence`` child each) and worker processes;
- :mod:`.stats`: exact streaming statistics, standard errors and intervals;
- :mod:`.report`: tables, CSV and JSON with metadata.

This wing uses :mod:`explore_sim.cards` and :mod:`explore_sim.engine`; the faces (command
line, plots) use it. The public functions are re-exported by :mod:`explore_sim` itself
(``explore_sim.simulate``, ...), so the module names here stay free for the modules.
"""
