"""Deliberate one-line bugs, one at a time, in a copy of the package: do the tests notice?

    python benchmarks/mutations.py                  # every mutation, a few minutes on 2 cores
    python benchmarks/mutations.py --only NAME      # one of them (repeatable)
    python benchmarks/mutations.py --list           # names, files and tests, nothing run

The repository is copied to a temporary directory once. Each mutation replaces one exact
piece of text, which must occur exactly once in its file, runs the test files that should
catch it with ``python -m pytest -x -q`` from the copy's root (the copy first on
PYTHONPATH, so the copy is what gets imported, which is checked before anything runs), and
puts the file back. A mutation is caught when those tests fail. A mutation whose text no
longer occurs, or occurs more than once, is reported as stale and not run: update its text
to the code as it is now. The same test files are first run on the unmodified copy, since a
failure there would make every mutation look caught.

A rule, option or metric should come with a test that fails when it is broken; add a
mutation here to show it. The script exits with status 1 unless every mutation is caught.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 600  # seconds for one pytest run


@dataclass(frozen=True)
class Mutation:
    name: str
    file: str  # relative to the repository root
    old: str  # exact text, present exactly once in the file
    new: str
    tests: tuple[str, ...]  # test files to run, relative to tests/


MUTATIONS = [
    # The explore command
    Mutation("explore-default-turn-minus-7", "explore_sim/analysis/explore.py",
             "turn = max(1, drawn - 6) if turn is None",
             "turn = max(1, drawn - 7) if turn is None",
             ("test_reference_agreement.py", "test_cli.py")),
    Mutation("known-lands-ignored", "explore_sim/analysis/explore.py",
             "known_lands = int(features.is_land[known_ids].sum()) if known_ids.size else 0",
             "known_lands = 0",
             ("test_reference_agreement.py",)),
    Mutation("targeted-explore-of-gone-explorer-happens", "explore_sim/analysis/explore.py",
             "active = ~gone if targeted else np.ones(trials, dtype=bool)",
             "active = np.ones(trials, dtype=bool)",
             ("test_rules.py", "test_reference_agreement.py")),
    # The explore rule and the shuffle
    Mutation("no-counter-for-an-empty-library", "explore_sim/engine/rules.py",
             "counter = (is_nonland | is_empty) & explorer_present",
             "counter = is_nonland & explorer_present",
             ("test_rules.py",)),
    Mutation("milled-card-stays-on-top", "explore_sim/engine/rules.py",
             "leaves_library = events.land_to_hand | events.milled",
             "leaves_library = events.land_to_hand",
             ("test_closed_forms.py",)),
    Mutation("partial-shuffle-one-position-short", "explore_sim/engine/state.py",
             "for position in range(min(depth, size - 1)):",
             "for position in range(min(depth, size - 1) - 1):",
             ("test_reference_agreement.py",)),
    # Mulligans
    Mutation("karsten-six-needs-four-spells", "explore_sim/engine/mulligan.py",
             "spell_bottoms = (spells >= 3).astype(int)",
             "spell_bottoms = (spells >= 4).astype(int)",
             ("test_mulligan.py", "test_reference_games.py")),
    Mutation("karsten-keeps-seven-with-six-lands", "explore_sim/engine/mulligan.py",
             "most = 5 if hand_size >= HAND_SIZE else 4",
             "most = 6 if hand_size >= HAND_SIZE else 4",
             ("test_mulligan.py",)),
    Mutation("spell-land-cards-not-lands-for-mulligans", "explore_sim/engine/mulligan.py",
             "counts_as_land = features.is_land | features.is_land_like",
             "counts_as_land = features.is_land",
             ("test_mulligan.py",)),
    Mutation("free-mulligan-bottoms-a-card", "explore_sim/engine/mulligan.py",
             "return max(0, mulligans - (1 if self.free_first and mulligans > 0 else 0))",
             "return max(0, mulligans)",
             ("test_mulligan.py",)),
    Mutation("bottom-the-land-kind-held-least", "explore_sim/engine/mulligan.py",
             "np.where(counts_as_land & (hand > 0), hand, -1)",
             "np.where(counts_as_land & (hand > 0), -hand, -99)",
             ("test_mulligan.py", "test_reference_games.py")),
    # Policies
    Mutation("forge-digs-below-need-lands-only", "explore_sim/engine/policies.py",
             "lands_in_play <= {self.need_lands} ",
             "lands_in_play < {self.need_lands} ",
             ("test_policies.py",)),
    Mutation("forge-mills-strictly-too-expensive", "explore_sim/engine/policies.py",
             "or mana_value >= predicted_mana + ",
             "or mana_value > predicted_mana + ",
             ("test_policies.py",)),
    Mutation("predicted-mana-without-lands-in-hand", "explore_sim/engine/observations.py",
             "lambda: observation.mana_sources + observation.lands_in_hand",
             "lambda: observation.mana_sources",
             ("test_policies.py", "test_reference_agreement.py")),
    # Goldfish games
    Mutation("draw-on-turn-one-on-the-play", "explore_sim/engine/goldfish.py",
             "if state.turn > 1 or not self.config.on_play or self.tables.is_commander:",
             "if state.turn > 0 or not self.config.on_play or self.tables.is_commander:",
             ("test_goldfish.py",)),
    Mutation("fizzled-spell-still-grants-a-land-drop", "explore_sim/engine/abilities/entering.py",
             "gets = event.rows[event.resolved]",
             "gets = event.rows",
             ("test_commander.py",)),
    Mutation("removal-makes-the-older-copy-sick", "explore_sim/engine/zones.py",
             "sick = here[new & (state.sick[here, kind] > 0)]",
             "sick = here[new & (state.sick[here, kind] > 99)]",
             ("test_commander.py",)),
    # Colours and mana
    Mutation("mana-creature-taps-the-turn-it-enters", "explore_sim/engine/paying.py",
             "            count -= of_rows(state.sick, rows, kind)\n",
             "            pass\n",
             ("test_mana.py",)),
    Mutation("fast-land-untapped-as-the-fourth-land", "explore_sim/engine/lands.py",
             "untapped |= (rule == _FAST) & (lands <= 2)",
             "untapped |= (rule == _FAST) & (lands <= 3)",
             ("test_mana.py",)),
    Mutation("slow-land-untapped-as-the-second-land", "explore_sim/engine/lands.py",
             "untapped |= (rule == _SLOW) & (lands >= 2)",
             "untapped |= (rule == _SLOW) & (lands >= 1)",
             ("test_mana.py",)),
    Mutation("check-land-ignores-the-land-types", "explore_sim/engine/lands.py",
             "untapped |= (rule == _UNLESS) & ((types & arg) != 0)",
             "untapped |= (rule == _UNLESS)",
             ("test_mana.py",)),
    Mutation("shock-land-always-pays-life", "explore_sim/engine/lands.py",
             "untapped |= (rule == _LIFE) & life_paid",
             "untapped |= (rule == _LIFE)",
             ("test_mana.py",)),
    Mutation("pain-land-mana-is-free", "explore_sim/engine/paying.py",
             "                    life[todo] += 1\n",
             "                    pass\n",
             ("test_mana.py",)),
    Mutation("bounce-land-played-with-nothing-to-return", "explore_sim/engine/lands.py",
             "held &= ~(options.is_bounce[None, :] & no_land[:, None])",
             "held &= ~(options.is_bounce[None, :] & no_land[:, None] & False)",
             ("test_mana.py",)),
    # Commander
    Mutation("command-tower-makes-no-commander-colour", "explore_sim/cards/costs.py",
             "units.append(commander_colours)",
             "units.append(commander_colours & 1)",
             ("test_commander.py",)),
    Mutation("mana-lookup-cap-one-short", "explore_sim/engine/paying.py",
             "self.cap = int(self.total.max(initial=0))",
             "self.cap = int(self.total.max(initial=0)) - 1",
             ("test_mana.py",)),
    Mutation("mana-lookup-classes-reversed", "explore_sim/engine/paying.py",
             "units = grid[::-1].T.astype(np.int32)",
             "units = grid.T.astype(np.int32)",
             ("test_mana.py",)),
    Mutation("casting-pass-lookup-ignores-colours", "explore_sim/engine/casting.py",
             "candidate &= castable_columns(play, unit_sets, casting.pass_lookup)",
             "candidate &= casting.cheapest[cols] <= available",
             ("test_mana.py",)),
    # Not mutated: X >= 1 in castable_in_hand (the land choice's step 1) changes no land
    # played. It matters only with exactly the mana of {X}{G} less X, where every untapped
    # land that makes mana lets Jadelight Spelunker be cast, and step 2 then plays an
    # untapped land anyway (the Spelunker costs no more than the mana plus one); steps 3-5
    # prefer a land that makes mana over one that does not. The casting pass's X >= 1:
    Mutation("casting-pass-x-zero", "explore_sim/engine/casting.py",
             "available >= t.cost[cols[casting.pass_x]] + 1",
             "available >= t.cost[cols[casting.pass_x]]",
             ("test_goldfish.py",)),
    Mutation("colour-screwed-lookup-inverted", "explore_sim/engine/castability.py",
             "screwed = row_any(affordable & ~castable_columns(play, unit_sets, "
             "casting.cast_lookup))",
             "screwed = row_any(affordable & castable_columns(play, unit_sets, "
             "casting.cast_lookup))",
             ("test_mana.py",)),
    Mutation("mana-allocation-table-of-one-unit-each", "explore_sim/engine/paying.py",
             "units = self.key_units.copy()",
             "units = np.minimum(self.key_units, 1)",
             ("test_mana.py",)),
    Mutation("mana-left-over-by-tapping-forgotten", "explore_sim/engine/paying.py",
             "if state.pool_in_use or pool.any():",
             "if state.pool_in_use:",
             ("test_mana.py", "test_reference_agreement.py")),
    Mutation("pool-of-a-bounced-land-unread", "explore_sim/engine/lands.py",
             "            state.pool_in_use = True\n",
             "",
             ("test_mana.py", "test_reference_agreement.py")),
    Mutation("pool-of-a-filter-unread", "explore_sim/engine/paying.py",
             "self.source_units[s].astype(state.pool.dtype)\n"
             "                state.pool_in_use = True",
             "self.source_units[s].astype(state.pool.dtype)",
             ("test_mana.py", "test_reference_agreement.py")),
    Mutation("narrow-row-all-is-any", "explore_sim/engine/rowwise.py",
             "else columns.all(axis=0)",
             "else columns.any(axis=0)",
             ("test_rowwise.py",)),
    Mutation("accumulated-squares-from-the-counts-off-by-one", "explore_sim/analysis/stats.py",
             "self.total_sq[name] += int(chunk @ (value * value))",
             "self.total_sq[name] += int(chunk @ (value * (value + 1)))",
             ("test_runner.py",)),
    Mutation("casting-order-ties-to-the-higher-id", "explore_sim/engine/tables.py",
             "ranked[np.lexsort((ranked, -priority[ranked]))]",
             "ranked[np.lexsort((-ranked, -priority[ranked]))]",
             ("test_reference_agreement.py", "test_goldfish.py")),
    Mutation("casting-order-lowest-priority-first", "explore_sim/engine/tables.py",
             "ranked[np.lexsort((ranked, -priority[ranked]))]",
             "ranked[np.lexsort((ranked, priority[ranked]))]",
             ("test_reference_agreement.py", "test_goldfish.py")),
    Mutation("commander-tax-one-per-cast", "explore_sim/engine/paying.py",
             "generic=mode.generic + 2 * casts",
             "generic=mode.generic + casts",
             ("test_commander.py",)),
    Mutation("removed-commander-goes-to-the-graveyard", "explore_sim/engine/zones.py",
             "            state.command[here, kind] += 1\n",
             "                state.graveyard[here] += 1\n",
             ("test_commander.py",)),
    Mutation("commander-first-mulligan-costs-a-card", "explore_sim/analysis/game_setup.py",
             "return dataclasses.replace(rule, free_first=True)",
             "return rule",
             ("test_commander.py",)),
    Mutation("commander-game-skips-the-first-draw", "explore_sim/engine/goldfish.py",
             "or not self.config.on_play or self.tables.is_commander:",
             "or not self.config.on_play:",
             ("test_commander.py",)),
    Mutation("land-choice-ignores-the-command-zone", "explore_sim/engine/lands.py",
             "counts += (state.command[rows, kind, None] > 0) * needs.commander_profiles[j]",
             "counts += 0 * needs.commander_profiles[j]",
             ("test_commander.py",)),
    Mutation("land-choice-counts-the-pips-raw", "explore_sim/engine/lands.py",
             "key[:, o] += np.minimum(gain, 255).astype(np.int64) << 41",
             "key[:, o] += 0 * gain",
             ("test_mana.py",)),
    Mutation("colour-deficit-ignores-the-sources-in-play", "explore_sim/engine/lands.py",
             "after = colour_deficits(play, covered + option_units @ mana.intersects)",
             "after = colour_deficits(play, option_units @ mana.intersects + 0 * covered)",
             ("test_mana.py",)),
    Mutation("fetch-land-played-as-an-untapped-land", "explore_sim/engine/lands.py",
             "options.is_passage[None, :] & (lands >= 3), untapped)",
             "True, untapped)",
             ("test_mana.py",)),
    Mutation("fetched-tapped-land-not-counted", "explore_sim/engine/lands.py",
             'state.totals["tapped_lands_played"][tapped] += 1',
             'state.totals["tapped_lands_played"][tapped] += 0',
             ("test_mana.py",)),
    Mutation("generic-mana-in-a-fixed-colour-order", "explore_sim/engine/paying.py",
             "if self.has_generic_ties and self.modes[mode].generic and not take_all:",
             "if False:",
             ("test_mana.py",)),
    Mutation("mana-source-not-cast-first-at-equal-cost", "explore_sim/engine/tables.py",
             "score[i] += 0.5 * bool(features.is_source[i])",
             "score[i] += 0.0 * bool(features.is_source[i])",
             ("test_line_order.py",)),
    Mutation("decklist-kept-in-line-order", "explore_sim/cards/decklist.py",
             "object.__setattr__(self, section, tuple(sorted(entries, key=_by_name)))",
             "object.__setattr__(self, section, entries)",
             ("test_line_order.py",)),
    Mutation("bottoming-ignores-mana-sources", "explore_sim/engine/mulligan.py",
             "2 * features.mana_value.astype(np.int32) + ~features.is_source\n",
             "2 * features.mana_value.astype(np.int32) + 0 * features.is_source\n",
             ("test_line_order.py",)),
    Mutation("hakbal-land-chosen-without-its-mana", "explore_sim/engine/lands.py",
             "may_use=land_drop or not tapped)",
             "may_use=land_drop)",
             ("test_commander.py",)),
    Mutation("castable-card-not-counted-as-held-for-mana", "explore_sim/engine/castability.py",
             "used = row_any(holds & cheap) | (t.castable_cheapest <= total + 1)",
             "used = row_any(holds & cheap)",
             ("test_curve.py",)),
    Mutation("commander-not-in-land-choice-step-1", "explore_sim/engine/lands.py",
             "                if commanders:\n",
             "                if False:\n",
             ("test_commander_land_choice.py",)),
    Mutation("kernel-commander-not-in-land-choice-step-1", "explore_sim/engine/kernel/lands.py",
             "(K.dims[Dim.N_COMMANDERS] and not commander_before",
             "(False and not commander_before",
             ("test_commander_land_choice.py",)),
    Mutation("commander-not-counted-as-mana-used", "explore_sim/engine/castability.py",
             "used |= (state.command[rows, kind] > 0) & (taxed <= total + 1)",
             "used |= (state.command[rows, kind] > 0) & (taxed <= total - 9)",
             ("test_commander_land_choice.py",)),
    Mutation("commander-not-read-from-a-list-without-sections", "explore_sim/cards/commanders.py",
             "elif _unmarked(sections, text) and _singleton_of_commander_size(main):",
             "elif False:",
             ("test_commander_lists.py",)),
    Mutation("commander-also-in-the-deck-accepted", "explore_sim/cards/commanders.py",
             "        _refuse_commander_in_deck(main, commanders, entries, catalog, source)",
             "        pass",
             ("test_commander_lists.py",)),
    Mutation("spell-with-an-opponents-target-cast", "explore_sim/engine/abilities/__init__.py",
             'if card.target == "opponent":\n        return OPPONENTS_TARGET',
             'if False:\n        return OPPONENTS_TARGET',
             ("test_targets.py",)),
    Mutation("harmful-aura-read-as-helpful", "explore_sim/cards/oracle.py",
             'return "opponent" if _HARMFUL_AURA.search(rest) else "creature"',
             'return "creature"',
             ("test_targets.py",)),
    Mutation("hakbal-never-draws", "explore_sim/engine/abilities/combat.py",
             "draw(play, state, attacking[~put])",
             "draw(play, state, attacking[:0])",
             ("test_commander.py",)),
    Mutation("on-curve-needs-a-land-more", "explore_sim/engine/goldfish.py",
             'out["on_curve"] = (lands_in_play >= state.turn)',
             'out["on_curve"] = (lands_in_play > state.turn)',
             ("test_simulate.py",)),
    Mutation("paired-differences-reversed", "explore_sim/analysis/stats.py",
             "name: (other.total[name] - base.total[name],",
             "name: (base.total[name] - other.total[name],",
             ("test_simulate.py",)),
    # Statistics and plots
    Mutation("standard-error-divides-by-n", "explore_sim/analysis/stats.py",
             "variance = (n * total_sq - total * total) / (n * (n - 1))",
             "variance = (n * total_sq - total * total) / (n * n)",
             ("test_runner.py", "test_simulate.py")),
    Mutation("wilson-interval-centred-on-p", "explore_sim/analysis/stats.py",
             "centre = (p + z * z / (2 * n)) / denominator",
             "centre = p",
             ("test_runner.py", "test_simulate.py")),
    Mutation("result-figure-ignores-the-metrics", "explore_sim/plotting/figures.py",
             'return plot_metrics(result, metrics, figure=Figure(layout="constrained"))',
             'return plot_metrics(result, None, figure=Figure(layout="constrained"))',
             ("test_plotting.py",)),
    Mutation("result-figure-of-a-value-without-its-estimates", "explore_sim/plotting/figures.py",
             "result.curve(), result.land_equivalents(), ax=figure.subplots())",
             "result.curve(), ax=figure.subplots())",
             ("test_plotting.py",)),
    Mutation("result-figure-ignores-the-distribution", "explore_sim/plotting/figures.py",
             'metric = distribution or "counters"',
             'metric = "counters"',
             ("test_plotting.py",)),
    # The web page
    Mutation("web-figure-ignores-the-metrics", "explore_sim/web/analyses.py",
             'return result_figure(result, options["metrics"])',
             "return result_figure(result)",
             ("test_web.py",)),
    Mutation("web-trials-cap-ignored", "explore_sim/web/app.py",
             "if trials is not None and trials > self.settings.max_trials:",
             "if False:",
             ("test_web.py",)),
    Mutation("web-body-cap-tenfold", "explore_sim/web/middleware.py",
             "self.app, self.max_body = app, max_body",
             "self.app, self.max_body = app, 10 * max_body",
             ("test_web.py",)),
    Mutation("web-oversized-body-not-drained", "explore_sim/web/middleware.py",
             "            await self._drain(receive)\n",
             "",
             ("test_web.py",)),
    Mutation("web-templates-not-escaped", "explore_sim/web/app.py",
             "autoescape=True",
             "autoescape=False",
             ("test_web.py",)),
    Mutation("web-permalink-without-seed", "explore_sim/web/app.py",
             'values["seed"] = seed',
             'values["seed"] = None',
             ("test_web.py",)),
    Mutation("web-cancel-ignored-by-the-run", "explore_sim/web/jobs.py",
             "        if job.cancel_reason:\n            raise RunCancelled(job.cancel_reason)\n",
             "",
             ("test_web.py",)),
    Mutation("web-closed-page-keeps-running", "explore_sim/web/jobs.py",
             "        if job.closed and unwatched > self.reopen_seconds:",
             "        if False:",
             ("test_web.py",)),
    Mutation("web-unwatched-run-never-cancelled", "explore_sim/web/jobs.py",
             "        if unwatched > self.orphan_seconds:",
             "        if False:",
             ("test_web.py",)),
    Mutation("web-queue-unbounded", "explore_sim/web/jobs.py",
             "if len(active) >= self.max_runs + self.max_queued:",
             "if False:",
             ("test_web.py",)),
    Mutation("web-deck-problems-keep-the-command-line-fix", "explore_sim/web/decks.py",
             'items = _COMMAND_LINE_FIX.sub("", unknown.group("items"))',
             'items = unknown.group("items")',
             ("test_web.py",)),
    Mutation("web-deck-problem-loses-its-line", "explore_sim/web/decks.py",
             'return [DeckProblem(number, line_text(number), at_line.group("message"))]',
             "return [DeckProblem(None, \"\", message)]",
             ("test_web.py",)),
    Mutation("web-value-ignores-max-lands", "explore_sim/web/analyses.py",
             'max_lands=options["max_lands"],',
             "",
             ("test_web.py",)),
    Mutation("web-value-cards-not-checked", "explore_sim/web/analyses.py",
             'chosen_cards(decks[0], joined_card_lists(options.get("card")) or None)',
             "pass",
             ("test_web.py",)),
    Mutation("web-advise-ignores-explores-left", "explore_sim/web/analyses.py",
             'explores_left=options["explores_left"],',
             "explores_left=1,",
             ("test_web.py",)),
    Mutation("web-advise-position-not-checked", "explore_sim/web/analyses.py",
             "position(decks[0], **_position_options(options))",
             "pass",
             ("test_web.py",)),
    Mutation("web-error-of-no-field-not-shown", "explore_sim/web/app.py",
             "stray = [text for key, text in state.errors.items() if key not in placed]",
             "stray = []",
             ("test_web.py",)),
    Mutation("web-switch-carries-every-option", "explore_sim/web/form_state.py",
             "kept.update({name: value for name, value in saved.items() if name in fields})",
             "kept.update({name: data[name] for name in fields if name in data})",
             ("test_web.py",)),
    Mutation("web-headers-inside-the-error-layer", "explore_sim/web/app.py",
             "return SecurityHeaders(super().build_middleware_stack())",
             "return super().build_middleware_stack()",
             ("test_web_safety.py",)),
    Mutation("web-server-answers-without-headers", "explore_sim/web/connections.py",
             "self.transport.write(_MALFORMED)",
             'self.transport.write(b"HTTP/1.1 400 Bad Request\\r\\nconnection: close\\r\\n\\r\\n")',
             ("test_web_safety.py",)),
    Mutation("web-other-sites-may-post", "explore_sim/web/middleware.py",
             "        if other is None:\n",
             "        if True:\n",
             ("test_web_safety.py",)),
    Mutation("web-any-link-runs-its-permalink", "explore_sim/web/middleware.py",
             'return headers.get("sec-fetch-site", "").strip().lower() in {"same-origin", "none"}',
             "return True",
             ("test_web_safety.py",)),
    Mutation("web-game-turn-cap-ignored", "explore_sim/analysis/run_costs.py",
             "if cost.total > caps.game_turns:",
             "if False:",
             ("test_web_limits.py", "test_run_costs.py")),
    Mutation("web-at-once-cap-ignored", "explore_sim/analysis/run_costs.py",
             "if cost.at_once > caps.at_once:",
             "if False:",
             ("test_web_limits.py", "test_run_costs.py")),
    Mutation("paired-sums-cap-ignored", "explore_sim/analysis/run_costs.py",
             "if cost.paired_sums > caps.paired_sums:",
             "if False:",
             ("test_run_costs.py",)),
    Mutation("sweep-grid-values-read-whole", "explore_sim/analysis/sweep.py",
             "list(itertools.islice(values, MAX_GRID_VALUES + 1))",
             "list(itertools.islice(values, MAX_GRID_VALUES + 2))",
             ("test_run_costs.py",)),
    Mutation("results-file-text-column-unbounded", "explore_sim/analysis/results_file_checks.py",
             "        if size > most:\n            raise not_whole(path, f\"its {name!r} column",
             "        if False:\n            raise not_whole(path, f\"its {name!r} column",
             ("test_hostile_results_files.py",)),
    Mutation("results-file-long-cell-read", "explore_sim/analysis/results_file_checks.py",
             "longer = np.flatnonzero(lengths > most)",
             "longer = np.flatnonzero(lengths < 0)",
             ("test_hostile_results_files.py",)),
    Mutation("kernel-cache-not-keyed-on-sources", "explore_sim/engine/compile_cache.py",
             'folder = base / f"{self.name}-{self.digest[:20]}"',
             'folder = base / self.name',
             ("test_compile_cache.py",)),
    Mutation("kernel-cache-damaged-entry-raises", "explore_sim/engine/compile_cache.py",
             "                self._owner.discard(self, error)\n                return None",
             "                raise",
             ("test_compile_cache.py",)),
    Mutation("kernel-linked-functions-left-weak", "explore_sim/engine/kernel/optimise.py",
             "                _internalise(self._final_module, entry)\n",
             "",
             ("test_kernel_parts.py",)),
    Mutation("kernel-counted-value-one-low", "explore_sim/engine/kernel/game.py",
             "            hist[turn, k, value] += 1",
             "            hist[turn, k, max(value - 1, 0)] += 1",
             ("test_counted_games.py",)),
    Mutation("kernel-spilled-values-not-added", "explore_sim/analysis/games.py",
             "        stats.by_turn[turn].add_counts(by_value, trials, apart.get(turn))",
             "        stats.by_turn[turn].add_counts(by_value, trials)",
             ("test_counted_games.py",)),
    Mutation("kernel-land-choice-ties-not-keyed", "explore_sim/engine/kernel/lands.py",
             "    if n_top == 1:\n        return last\n",
             "    if n_top >= 1:\n        return last\n",
             ("test_kernel.py", "test_commander_land_choice.py", "test_mana.py")),
    Mutation("kernel-waiting-spells-not-counted", "explore_sim/engine/kernel/zones.py",
             "        S.slots[Slot.HAND_WAITING] += n\n",
             "        pass\n",
             ("test_screw_flood_metrics.py", "test_targets.py")),
    Mutation("kernel-legend-rule-ignored", "explore_sim/engine/kernel/spells.py",
             "        if K.card[kind, CardCol.IS_LEGENDARY] and S.zones[Zone.BF, kind] > 0:\n",
             "        if False:\n",
             ("test_kernel.py",)),
    Mutation("kernel-life-paid-colours-aside", "explore_sim/engine/kernel/decisions.py",
             "    return (sums >> target) & 1 == 1\n",
             "    return will_use_mana(K, S, target - 1)\n",
             ("test_life_lands.py",)),
    Mutation("kernel-life-paid-without-x", "explore_sim/engine/kernel/decisions.py",
             "            if target >= K.card[kind, CardCol.COST] + 1:\n",
             "            if False:\n",
             ("test_life_lands.py",)),
    Mutation("kernel-life-paid-for-one-card-only", "explore_sim/engine/kernel/decisions.py",
             "            sums = with_sums(sums, cost, copies)\n",
             "            sums = with_sums(sums, cost, 1) if cost == target else sums\n",
             ("test_life_lands.py",)),
    Mutation("kernel-life-paid-by-the-sum-only", "explore_sim/engine/kernel/decisions.py",
             "                return True  # paid only with the land\n",
             "                pass\n",
             ("test_life_lands.py",)),
    Mutation("life-paid-by-the-sum-only", "explore_sim/engine/castability.py",
             "        spent[here] |= (cost >= 0) & ~paid_before  # paid only with the land\n",
             "",
             ("test_life_lands.py",)),
    Mutation("kernel-life-paid-for-a-spell-waiting-for-a-creature",
             "explore_sim/engine/kernel/decisions.py",
             "            copies = 0  # it waits for a creature you control\n",
             "            pass\n",
             ("test_life_lands.py",)),
    Mutation("kernel-life-paid-for-a-second-legend", "explore_sim/engine/kernel/decisions.py",
             "            copies = 0 if S.zones[Zone.BF, kind] > 0 else 1\n",
             "            pass\n",
             ("test_life_lands.py",)),
    Mutation("life-paid-for-a-spell-waiting-for-a-creature", "explore_sim/engine/castability.py",
             "            copies[no_creature] = 0  # it waits for a creature you control\n",
             "            pass\n",
             ("test_life_lands.py",)),
    Mutation("life-paid-for-a-second-legend", "explore_sim/engine/castability.py",
             "            copies = np.where(state.battlefield[rows, kind] > 0, 0, "
             "np.minimum(copies, 1))\n",
             "            pass\n",
             ("test_life_lands.py",)),
    Mutation("kernel-land-paying-life-not-last", "explore_sim/engine/kernel/lands.py",
             "            keys[o] += NO_LIFE_TIEBREAK\n",
             "            pass\n",
             ("test_life_lands.py",)),
    Mutation("land-paying-life-not-last", "explore_sim/engine/lands.py",
             "    key += np.where(life_paid, 0, NO_LIFE_TIEBREAK)  # step 5: no life paid first\n",
             "",
             ("test_life_lands.py",)),
    Mutation("kernel-nicanzil-takes-the-land-drops-land", "explore_sim/engine/kernel/explore.py",
             '            break  # "you may": each land in hand can still be a land drop, '
             'untapped\n',
             "            pass\n",
             ("test_goldfish.py",)),
    Mutation("generic-spares-colours-for-never-cast-cards", "explore_sim/engine/paying.py",
             "        self.cast_pips[list(never_cast)] = 0\n", "",
             ("test_mana.py",)),
    Mutation("kernel-generic-spares-colours-for-never-cast-cards",
             "explore_sim/engine/kernel/zones.py",
             "    else:  # the pips generic mana spares: a card never cast asks for none\n"
             "        for k in range(5):",
             "    for k in range(5):\n        if True:",
             ("test_kernel.py",)),
    Mutation("kernel-log-leaves-out-mana-life", "explore_sim/engine/kernel/spells.py",
             "        note(S, Trace.LIFE_PAID, 0, life, 0)\n", "        pass\n",
             ("test_replay.py",)),
    Mutation("kernel-log-leaves-out-a-basic-searched-into-hand",
             "explore_sim/engine/kernel/search.py",
             "            note(S, Trace.SEARCHED, second, 0, 0)\n", "",
             ("test_replay.py",)),
    Mutation("explore-payoffs-cast-after-explorers", "explore_sim/engine/tables.py",
             "        elif card.explore_trigger in PAYOFF_TRIGGERS:\n",
             "        elif False:\n",
             ("test_goldfish.py",)),
    Mutation("commander-cast-in-the-spells-order", "explore_sim/engine/tables.py",
             "        if i in commanders:\n            score[i] += _COMMANDERS\n",
             "        if False:\n            pass\n",
             ("test_commander.py",)),
    Mutation("payoff-gives-way-to-a-spell-it-precedes-anyway", "explore_sim/engine/casting.py",
             "    switch = has_other & before & ~both\n", "    switch = has_other & ~both\n",
             ("test_goldfish.py",)),
    Mutation("payoff-first-when-the-mana-pays-one-only", "explore_sim/engine/casting.py",
             "    switch = has_other & before & ~both\n", "    switch = has_other & False\n",
             ("test_goldfish.py",)),
    Mutation("kernel-payoff-first-when-the-mana-pays-one-only",
             "explore_sim/engine/kernel/spells.py",
             "                            or available >= K.card[payoff, CardCol.CHEAPEST]\n"
             "                            + K.card[kind, CardCol.CHEAPEST]):",
             "                            or True):",
             ("test_kernel.py",)),
    Mutation("never-cast-spell-kept-past-the-bottom-rule", "explore_sim/engine/mulligan.py",
             "+ NEVER_CAST_FIRST * held)", "+ 0 * held)",
             ("test_mulligan.py",)),
    Mutation("kernel-never-cast-spell-kept-past-the-bottom-rule",
             "explore_sim/engine/kernel/game.py",
             "(NEVER_CAST_FIRST if K.card[", "(0 if K.card[",
             ("test_kernel_parts.py",)),
    Mutation("a-mana-creature-targeted-first", "explore_sim/engine/zones.py",
             "        attackers = present & ~f.is_source\n", "        attackers = present\n",
             ("test_goldfish.py",)),
    Mutation("kernel-a-mana-creature-targeted-first", "explore_sim/engine/kernel/zones.py",
             "next_common(on, K.id_sets[IdSet.ATTACKER_IDS], 1)",
             "next_common(on, K.id_sets[IdSet.CREATURE_IDS], 1)",
             ("test_kernel.py",)),
    Mutation("nicanzil-takes-the-land-drops-land",
             "explore_sim/engine/abilities/explore_triggers.py",
             "(k < land_triggers) & (state.hand_lands[rows] > state.land_drops[rows])",
             "(k < land_triggers)",
             ("test_goldfish.py",)),
    Mutation("life-paid-colours-aside", "explore_sim/engine/castability.py",
             "    return spent | (~beyond & (bit == 1))\n",
             "    return will_use_mana(play, state, rows, target - 1)\n",
             ("test_life_lands.py",)),
    Mutation("life-paid-without-x", "explore_sim/engine/castability.py",
             "        if kind in t.x_ids:  # X >= 1 takes the mana left\n",
             "        if False:\n",
             ("test_life_lands.py",)),
    Mutation("mana-creature-a-source-on-its-own-turn", "explore_sim/cards/karsten.py",
             "        if turn is not None and nonland and (card.mana_value or 0) >= turn:\n",
             "        if turn is not None and nonland and (card.mana_value or 0) > turn:\n",
             ("test_curve.py",)),
    Mutation("advise-map-tokens-ignored", "explore_sim/analysis/advise_position.py",
             "        state.maps[:] = self.maps  # Map tokens you control (M1)\n",
             "",
             ("test_advise.py",)),
    Mutation("map-rows-shown-without-maps", "explore_sim/analysis/simulate.py",
             '        if self.stats.by_turn[self.meta["turns"]].total.get("maps_created") == 0:\n',
             "        if False:\n",
             ("test_simulate.py",)),
    Mutation("web-memory-kept-after-a-run", "explore_sim/web/jobs.py",
             "        release_memory()\n",
             "",
             ("test_web_limits.py",)),
    Mutation("web-idle-connection-kept", "explore_sim/web/connections.py",
             '        super().connection_made(transport)\n'
             '        self._expect("headers", self.header_seconds)\n',
             "        super().connection_made(transport)\n",
             ("test_web_limits.py",)),
    Mutation("web-trickling-body-kept", "explore_sim/web/connections.py",
             'self._expect("body", self.body_seconds)',
             "pass",
             ("test_web_limits.py",)),
    Mutation("web-explorer-not-checked", "explore_sim/web/analyses.py",
             '**explore_errors(options, decks[0])}',
             "}",
             ("test_web_checks.py",)),
    Mutation("web-cast-first-not-checked", "explore_sim/web/checks.py",
             'names = options.get("cast_first") or []',
             "names = []",
             ("test_web_checks.py",)),
    Mutation("web-paths-not-shortened", "explore_sim/web/app.py",
             "return short_paths(text, self._directories)",
             "return text",
             ("test_web_checks.py",)),
    Mutation("fifo-beside-a-deck-skipped", "explore_sim/cards/decklist.py",
             'return [check_regular_file(companion, "card file", CardError)]',
             "return [companion] if companion.is_file() else []",
             ("test_card_template.py", "test_web_checks.py")),
    Mutation("confidence-band-drawn-to-the-mean", "explore_sim/plotting/axes_plots.py",
             'ax.fill_between(group["turn"], group["ci_low"], group["ci_high"],',
             'ax.fill_between(group["turn"], group["ci_low"], group["mean"],',
             ("test_plotting.py",)),
    Mutation("differences-reuse-the-baseline-colour", "explore_sim/plotting/axes_plots.py",
             'hue_order = [baselines[0], *levels(rows, "variant")]',
             'hue_order = levels(rows, "variant")',
             ("test_plotting.py",)),
    Mutation("csv-prints-seventeen-digits", "explore_sim/analysis/report.py",
             "return repr(float(value))",
             'return "%.17g" % value',
             ("test_cli.py",)),
    # Decks, card files and options
    Mutation("unknown-sideboard-card-is-an-error", "explore_sim/cards/decklist.py",
             '_REQUIRED_SECTIONS = ("main", "commander")',
             '_REQUIRED_SECTIONS = ("main", "commander", "sideboard", "companion")',
             ("test_card_template.py",)),
    Mutation("unfilled-mana-cost-loads-as-a-free-spell", "explore_sim/cards/card_files.py",
             'if "mana_cost" in table and not table["mana_cost"].strip() and not card.is_land:',
             "if False:",
             ("test_card_template.py",)),
    Mutation("explorer-outside-the-deck-accepted", "explore_sim/analysis/explore.py",
             "if not outside and in_deck.find(name) is None:",
             "if False:",
             ("test_cli.py",)),
    # Card names: lists with commas in names, near misses
    Mutation("card-lists-split-every-comma", "explore_sim/cards/name_lists.py",
             "    if len(runs) <= 1:\n        return 1\n",
             "    return 1\n",
             ("test_card_name_lists.py",)),
    Mutation("card-lists-later-source-merges-deck-cards", "explore_sim/cards/name_lists.py",
             "range(len(runs), 0 if number == 0 else 1, -1)",
             "range(len(runs), 1, -1)",
             ("test_card_name_lists.py",)),
    Mutation("card-lists-lines-run-together", "explore_sim/cards/name_lists.py",
             'return "\\n".join(lists or ())',
             'return ", ".join(lists or ())',
             ("test_card_name_lists.py",)),
    Mutation("suggestions-of-any-distance", "explore_sim/cards/catalog.py",
             "        limit = near_miss_limit(key)\n",
             "        limit = len(key)\n",
             ("test_near_misses.py",)),
    Mutation("swap-counts-as-two-edits", "explore_sim/cards/spelling.py",
             "best = min(best, before[j - 2] + 1)",
             "best = min(best, before[j - 2] + 2)",
             ("test_near_misses.py",)),
    Mutation("pasted-deck-named-after-the-shipped-deck-chosen", "explore_sim/web/decks.py",
             "name=deck.shipped or pasted)",
             "name=deck.base or pasted)",
             ("test_web.py",)),
    # value: stand-ins and land-equivalents
    Mutation("stand-in-keeps-its-explores", "explore_sim/analysis/stand_ins.py",
             'card, name=" // ".join(faces), explores=0, explores_x=False, explores_when="",\n'
             '        explore_targets=False,',
             'card, name=" // ".join(faces),',
             ("test_value.py",)),
    Mutation("land-equivalent-from-the-wrong-end", "explore_sim/analysis/stand_ins.py",
             "estimate = a - gaps[a] / slope",
             "estimate = b - gaps[a] / slope",
             ("test_value.py",)),
    Mutation("delta-method-without-the-covariance", "explore_sim/analysis/stand_ins.py",
             "+ 2 * ga * gb * cov(a, b) +",
             "+",
             ("test_value.py",)),
    Mutation("added-lands-out-of-line", "explore_sim/analysis/stand_ins.py",
             "order += [ids[card] for card in reversed(added)]",
             "order += [ids[card] for card in added]",
             ("test_value.py",)),
    Mutation("added-lands-ignore-the-colours", "explore_sim/analysis/stand_ins.py",
             "colour = int(np.argmax(weights * j / total - assigned - (weights == 0) * 1e9))",
             "colour = int(np.argmax(weights))",
             ("test_value.py",)),
    Mutation("lined-up-order-ignored", "explore_sim/analysis/games.py",
             "deck.card_ids() if card_ids is None else card_ids",
             "deck.card_ids()",
             ("test_value.py",)),
    Mutation("land-equivalent-drawn-without-its-interval", "explore_sim/plotting/axes_plots.py",
             "xerr=[[estimate.mean - estimate.ci_low],",
             "xerr=[[0],",
             ("test_plotting.py",)),
    # advise: positions and branches
    Mutation("first-choice-ignored", "explore_sim/analysis/advise.py",
             "return np.full(obs.trials, self.mill, dtype=bool)",
             "return self.then(obs, rng)",
             ("test_advise.py",)),
    Mutation("branches-on-different-libraries", "explore_sim/analysis/advise.py",
             "play_branch(self.pos, self.config, self.policy, mill, library, child,",
             "play_branch(self.pos, self.config, self.policy, mill, self.pos.libraries(size, "
             "np.random.default_rng(child_seed(child, 9 + mill))), child,",
             ("test_advise.py",)),
    Mutation("known-cards-left-in-the-library", "explore_sim/analysis/advise_position.py",
             "        remaining[card] -= count\n",
             "        remaining[card] -= 0\n",
             ("test_advise.py",)),
    Mutation("turn-land-drop-always-left", "explore_sim/analysis/advise_position.py",
             "land_drops=0 if lands >= self.turn else 1,",
             "land_drops=1,",
             ("test_advise.py",)),
    Mutation("explorer-cost-not-paid", "explore_sim/analysis/advise_position.py",
             "            game.pay(state, rows, game.kind_modes[explorer])\n",
             "",
             ("test_advise.py",)),
    Mutation("spells-without-effect-cast", "explore_sim/engine/abilities/__init__.py",
             '    return (not card.is_land and not card.is_permanent and card.target != "opponent"',
             '    return False and (not card.is_land and not card.is_permanent',
             ("test_targets.py", "test_lands.py")),
    Mutation("page-closed-cancels-at-once", "explore_sim/web/jobs.py",
             "        if job.closed and unwatched > self.reopen_seconds:",
             "        if job.closed and unwatched >= 0:",
             ("test_web.py",)),
    Mutation("mana-used-not-paid", "explore_sim/analysis/advise_position.py",
             "        for _ in range(self.mana_used):  # a Map's",
             "        for _ in range(0):  # a Map's",
             ("test_advise.py",)),
    Mutation("verdict-on-a-zero-interval", "explore_sim/analysis/advise.py",
             'if found["ci_low"] > 0:',
             'if found["ci_low"] >= 0:',
             ("test_advise.py",)),
    Mutation("position-library-lands-uncounted", "explore_sim/engine/state.py",
             "library_lands=features.is_land[cards].sum(axis=1, dtype=np.int32),",
             "library_lands=np.zeros(trials, dtype=np.int32),",
             ("test_advise.py",)),
    # tune and objectives
    Mutation("racing-keeps-the-worst", "explore_sim/analysis/tune.py",
             "for index in sorted(alive, key=lambda i: (-self.sign * self.mean(i), i)):",
             "for index in sorted(alive, key=lambda i: (self.sign * self.mean(i), i)):",
             ("test_tune.py",)),
    Mutation("twins-never-found", "explore_sim/analysis/tune.py",
             "return bool(self.apart[i, j] <= 1e-9",
             "return bool(self.apart[i, j] < -1",
             ("test_tune.py",)),
    Mutation("fresh-evaluation-replays-racing-games", "explore_sim/analysis/tune.py",
             "final, final_games, child_seed(seed_seq, 1),",
             "final, final_games, child_seed(racing_seed, 0),",
             ("test_tune.py",)),
    Mutation("worse-than-forge-still-recommended", "explore_sim/analysis/tune.py",
             "    if worse:",
             "    if False:",
             ("test_tune.py",)),
    Mutation("at-binds-to-the-whole-product", "explore_sim/engine/policy_expressions.py",
             "if isinstance(left, ast.BinOp) and isinstance(left.op, _SAME_AS_AT):",
             "if False:",
             ("test_objectives.py",)),
    Mutation("paired-objective-difference-adds-the-product", "explore_sim/analysis/objectives.py",
             "- 2 * self.products[index, base])",
             "+ 2 * self.products[index, base])",
             ("test_objectives.py",)),
    # Where chunks run: results in chunk order, a results file of other settings refused.
    Mutation("chunk-results-out-of-order", "explore_sim/analysis/executors.py",
             "future = pending.popleft()",
             "future = pending.pop()",
             ("test_executors.py",)),
    Mutation("results-file-of-other-settings-reused", "explore_sim/analysis/results_files.py",
             "                if stored.get(key) != current.get(key)\n",
             "                if False\n",
             ("test_sweep_file.py",)),
    Mutation("tune-groups-read-in-another-order", "explore_sim/analysis/tune.py",
             "part.add([values for _ in tasks for values in next(results)])",
             "part.add([values for _ in tasks for values in next(results)][::-1])",
             ("test_tune.py",)),
    # The metrics catalogue: the engine's tables and the metrics page are read from it.
    Mutation("metrics-catalogue-mana-available-an-event", "explore_sim/engine/metrics.py",
             '_m("mana_available", "turn", "state", "mana",',
             '_m("mana_available", "turn", "event", "mana",',
             ("test_metrics.py",)),
    Mutation("metrics-table-without-units", "explore_sim/cli/metrics.py",
             "| {row.kind} | {row.unit} | {row.meaning} |",
             "| {row.kind} | {row.meaning} |",
             ("test_metrics.py",)),
    # The compiled kernel: each planted bug must make it play other games than the NumPy
    # engine on the same deals (each one recompiles the kernel in the copy, about a minute).
    Mutation("kernel-explored-land-stays-on-top", "explore_sim/engine/kernel/explore.py",
             "leave_library(K, S, card)\n            to_hand(K, S, card, ONE)",
             "pass",
             ("test_kernel.py",)),
    Mutation("kernel-milled-card-stays-on-top", "explore_sim/engine/kernel/explore.py",
             "leave_library(K, S, card)\n                s[Slot.GRAVEYARD] += 1",
             "s[Slot.GRAVEYARD] += 1",
             ("test_kernel.py",)),
    Mutation("kernel-land-drops-never-used-up", "explore_sim/engine/kernel/lands.py",
             "s[Slot.LAND_DROPS] -= 1\n    s[Slot.PLAYED_LAND] = 1",
             "s[Slot.PLAYED_LAND] = 1",
             ("test_kernel.py",)),
    Mutation("kernel-maps-never-used-up", "explore_sim/engine/kernel/actions.py",
             "s[Slot.MAPS] -= 1\n    pay_one(K, S, mode, NO, NONE, ZERO)",
             "pay_one(K, S, mode, NO, NONE, ZERO)",
             ("test_kernel.py",)),
    Mutation("kernel-mana-creatures-never-sick", "explore_sim/engine/kernel/zones.py",
             "n -= S.zones[Zone.SICK, kind]",
             "n -= 0",
             ("test_kernel.py",)),
    Mutation("kernel-and-chain-stopped-as-true", "explore_sim/engine/kernel/decisions.py",
             "stack[top - 1] = 0.0\n                i = code[i + 1]",
             "stack[top - 1] = 1.0\n                i = code[i + 1]",
             ("test_kernel.py",)),
    Mutation("kernel-colour-deficit-of-one-ignored", "explore_sim/engine/kernel/colours.py",
             "            if deficit > 0:\n                some[n_short] = some[i]",
             "            if deficit > 1:\n                some[n_short] = some[i]",
             ("test_kernel.py",)),
    Mutation("kernel-search-shuffle-leaves-the-top-dealt", "explore_sim/engine/kernel/search.py",
             "s[Slot.TOP], s[Slot.END], s[Slot.DEALT] = start, start + n, start\n",
             "s[Slot.TOP], s[Slot.END], s[Slot.DEALT] = start, start + n, start + 1\n",
             ("test_kernel_parts.py",)),
    Mutation("kernel-castable-key-total-cap-one-short", "explore_sim/engine/kernel/mana.py",
             "    return key + min(total, K.dims[Dim.TOTAL_KEY_CAP]) * "
             "K.dims[Dim.TOTAL_KEY_STRIDE]",
             "    return key + min(total, K.dims[Dim.TOTAL_KEY_CAP] - 1) * "
             "K.dims[Dim.TOTAL_KEY_STRIDE]",
             ("test_kernel_parts.py",)),
    Mutation("kernel-castability-ignores-filters", "explore_sim/engine/kernel/mana.py",
             "        out[w] = row[w] | other[w]",
             "        out[w] = row[w]",
             ("test_kernel.py",)),
    Mutation("kernel-lossy-filter-mana-not-checked", "explore_sim/engine/kernel/spells.py",
             "        elif not K.dims[Dim.USE_LOOKUP] and "
             "K.card[kind, CardCol.CHEAPEST] > available:",
             "        elif False and K.card[kind, CardCol.CHEAPEST] > available:",
             ("test_kernel.py",)),
    Mutation("kernel-spell-by-spell-test-skipped", "explore_sim/engine/kernel/spells.py",
             "        elif not fast and not castable_kind(K, plain, filtered, n_sets, kind, NO):",
             "        elif False:",
             ("test_kernel.py",)),
    Mutation("kernel-tapped-source-still-ready", "explore_sim/engine/kernel/mana.py",
             "            ready[c] -= produced",
             "            ready[c] -= 0",
             ("test_kernel.py",)),
    Mutation("kernel-commander-tax-not-counted", "explore_sim/engine/kernel/spells.py",
             "totals[Event.COMMANDER_TAX_PAID] += 2 * S.zones[Zone.CASTS, kind]",
             "totals[Event.COMMANDER_TAX_PAID] += 0 * S.zones[Zone.CASTS, kind]",
             ("test_kernel.py",)),
    # Screw, flood, compounded mana and the land-count answer
    Mutation("flooded-with-as-many-lands-as-turns", "explore_sim/engine/goldfish.py",
             "(lands_in_play + lands_in_hand > state.turn)",
             "(lands_in_play + lands_in_hand >= state.turn)",
             ("test_screw_flood_metrics.py",)),
    Mutation("kernel-screwed-ahead-on-lands", "explore_sim/engine/kernel/turn.py",
             "s[Slot.PLAYED_LAND] == 0 and lands < s[Slot.TURN]",
             "s[Slot.PLAYED_LAND] == 0 and lands <= s[Slot.TURN]",
             ("test_screw_flood_metrics.py",)),
    Mutation("compounded-mana-counts-abilities", "explore_sim/engine/goldfish.py",
             'state.totals["compounded_mana"] += state.totals["spell_mana"]',
             'state.totals["compounded_mana"] += state.totals["mana_spent"]',
             ("test_screw_flood_metrics.py",)),
    Mutation("kernel-spell-mana-keeps-commander-tax", "explore_sim/engine/kernel/spells.py",
             "- (totals[Event.COMMANDER_TAX_PAID] - taxed))",
             "- 0)",
             ("test_kernel.py",)),
    Mutation("lands-best-is-the-lowest", "explore_sim/analysis/lands.py",
             "best = int(np.argmin(means) if lower_is_better else np.argmax(means))",
             "best = int(np.argmax(means) if lower_is_better else np.argmin(means))",
             ("test_lands.py",)),
    Mutation("lands-tied-is-one-sided", "explore_sim/analysis/lands.py",
             'if diff["ci_low"] <= 0 <= diff["ci_high"]:',
             'if diff["ci_low"] <= 0:',
             ("test_lands.py",)),
    Mutation("lands-counts-not-lined-up", "explore_sim/analysis/land_counts.py",
             "order += [ids[card] for card in reversed(lands)]",
             "order += [ids[card] for card in lands]",
             ("test_lands.py",)),
    Mutation("value-basis-at-the-casting-turn", "explore_sim/analysis/value.py",
             "return min(max(card.mana_value + 1, 3), 50)",
             "return min(max(card.mana_value, 3), 50)",
             ("test_value.py",)),
]


def copy_repository(target: Path) -> Path:
    """Copy the working tree (not .git, virtual environments or caches) to ``target/repo``."""
    ignore = shutil.ignore_patterns(".git", ".venv", "venv", "*.egg-info", "__pycache__",
                                    ".pytest_cache", ".ipynb_checkpoints", "*.pyc")
    repo = target / "repo"
    shutil.copytree(ROOT, repo, ignore=ignore)
    return repo


def environment(repo: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(repo), *filter(None, [env.get("PYTHONPATH")])])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.setdefault("MPLBACKEND", "Agg")
    return env


def check_the_copy_is_imported(repo: Path) -> None:
    out = subprocess.run([sys.executable, "-c", "import explore_sim; print(explore_sim.__file__)"],
                         cwd=repo, env=environment(repo), capture_output=True, text=True,
                         timeout=120)
    where = Path(out.stdout.strip() or ".").resolve()
    if out.returncode != 0 or repo.resolve() not in where.parents:
        sys.exit(f"mutations: the copy is not what Python imports ({where}); {out.stderr.strip()}")


def run_tests(repo: Path, tests: tuple[str, ...]) -> tuple[int, str]:
    """(pytest's exit status, or -1 on a timeout; the last line of its output)."""
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-n", "0", "-p", "no:cacheprovider",
               *(f"tests/{name}" for name in tests)]
    try:
        out = subprocess.run(command, cwd=repo, env=environment(repo), capture_output=True,
                             text=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return -1, f"timed out after {TIMEOUT} s"
    lines = [line for line in out.stdout.splitlines() if line.strip()]
    return out.returncode, lines[-1] if lines else out.stderr.strip()[-200:]


def verdict(status: int) -> str:
    if status == 1:
        return "caught"
    if status == 0:
        return "SURVIVED"
    if status == -1:
        return "timeout"
    return f"error (pytest status {status})"


def apply(repo: Path, mutation: Mutation) -> tuple[str, str | None]:
    """Mutate the copy: ``(verdict, the original text to restore or None)``."""
    path = repo / mutation.file
    if not path.exists():
        return "stale (no such file)", None
    text = path.read_text()
    count = text.count(mutation.old)
    if count != 1:
        return f"stale (text found {count} times)", None
    path.write_text(text.replace(mutation.old, mutation.new))
    return "", text


def table(rows: list[tuple[str, str, str, str]]) -> str:
    header = ("mutation", "file", "tests run", "caught?")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]
    line = lambda r: " | ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip()  # noqa: E731
    return "\n".join([line(header), "-+-".join("-" * w for w in widths), *map(line, rows)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", metavar="NAME",
                        help="run only this mutation (repeatable)")
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    parser.add_argument("--no-baseline", action="store_true",
                        help="skip the run of the test files on the unmodified copy")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print pytest's last line for every mutation")
    args = parser.parse_args(argv)
    names = [m.name for m in MUTATIONS]
    if len(set(names)) != len(names):
        sys.exit("mutations: duplicate names")
    chosen = MUTATIONS
    if args.only:
        unknown = [name for name in args.only if name not in names]
        if unknown:
            sys.exit(f"mutations: unknown {', '.join(unknown)}; known: {', '.join(names)}")
        chosen = [m for m in MUTATIONS if m.name in args.only]
    if args.list:
        print(table([(m.name, m.file, " ".join(m.tests), "") for m in chosen]))
        return 0

    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="explore-sim-mutations-") as tmp:
        repo = copy_repository(Path(tmp))
        check_the_copy_is_imported(repo)
        if not args.no_baseline:
            files = tuple(dict.fromkeys(name for m in chosen for name in m.tests))
            status, last = run_tests(repo, files)
            if status != 0:
                print(f"the unmodified copy fails its tests ({last}); fix that first",
                      file=sys.stderr)
                return 2
            print(f"unmodified: {len(files)} test files pass ({last})", file=sys.stderr)
        rows, outcomes = [], []
        for mutation in chosen:
            outcome, original = apply(repo, mutation)
            if original is not None:
                try:
                    status, last = run_tests(repo, mutation.tests)
                finally:
                    (repo / mutation.file).write_text(original)
                outcome = verdict(status)
                if args.verbose or outcome != "caught":
                    print(f"{mutation.name}: {last}", file=sys.stderr)
            outcomes.append(outcome)
            rows.append((mutation.name, mutation.file.removeprefix("explore_sim/"),
                         " ".join(t.removeprefix("test_").removesuffix(".py")
                                  for t in mutation.tests), outcome))
            print(f"  {mutation.name}: {outcome}", file=sys.stderr, flush=True)
    elapsed = time.perf_counter() - start
    print(table(rows))
    caught = outcomes.count("caught")
    stale = sum(o.startswith("stale") for o in outcomes)
    print(f"\n{len(outcomes)} mutations: {caught} caught, {outcomes.count('SURVIVED')} survived, "
          f"{stale} stale, {len(outcomes) - caught - outcomes.count('SURVIVED') - stale} "
          f"errors or timeouts; {elapsed:.0f} s")
    return 0 if caught == len(outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
