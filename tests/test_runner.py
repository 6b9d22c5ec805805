"""Seeding, chunking and exact aggregation."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from conftest import DECKS, TESTS

import explore_sim
from explore_sim.analysis import stats as stats_module
from explore_sim.analysis.runner import CHUNK_TRIALS, chunk_streams, run_chunks, seed_sequence
from explore_sim.analysis.stats import Accumulator, PairedSums, wilson_interval
from explore_sim.errors import OptionError

DECK = explore_sim.load_deck(DECKS / "lci_merfolk_explore.txt")


def test_multi_chunk_runs_repeat_exactly():
    trials = 2 * CHUNK_TRIALS + 123
    first = explore_sim.explore(DECK, explores=2, policy="forge", trials=trials, seed=3)
    second = explore_sim.explore(DECK, explores=2, policy="forge", trials=trials, seed=3)
    pd.testing.assert_frame_equal(first.summary(), second.summary(), check_exact=True)
    assert first.stats.n == trials


def test_chunk_order_does_not_matter():
    """Chunks merged in any order (as workers finish) give the identical summary."""
    seed = seed_sequence(9)
    metrics = {"x": False, "hit": True}

    def chunk(size, rng):
        x = rng.integers(0, 5, size=size)
        return {"x": x, "hit": (x == 0).astype(int)}

    pieces = []
    for size, rng in chunk_streams(300_000, seed):
        acc = Accumulator(metrics)
        acc.add(chunk(size, rng))
        pieces.append(acc)
    forward, backward = Accumulator(metrics), Accumulator(metrics)
    for acc in pieces:
        forward.merge(acc)
    for acc in reversed(pieces):
        backward.merge(acc)
    serial = Accumulator(metrics)
    run_chunks(lambda size, child: chunk(size, np.random.default_rng(child)), serial.add,
               300_000, seed)
    for other in (backward, serial):
        pd.testing.assert_frame_equal(forward.summary(), other.summary(), check_exact=True)
        pd.testing.assert_frame_equal(forward.distribution("x"), other.distribution("x"),
                                      check_exact=True)


def test_chunks_are_bounded_and_streams_independent():
    sizes, firsts = [], []
    for size, rng in chunk_streams(3 * CHUNK_TRIALS + 5, seed_sequence(1)):
        sizes.append(size)
        firsts.append(rng.integers(0, 2**62))
    assert sizes == [CHUNK_TRIALS] * 3 + [5]
    assert len(set(firsts)) == 4


def test_seed_sequence_argument_is_not_consumed():
    seq = np.random.SeedSequence(42)
    first = explore_sim.explore(DECK, trials=5000, seed=seq).summary()
    second = explore_sim.explore(DECK, trials=5000, seed=seq).summary()
    pd.testing.assert_frame_equal(first, second, check_exact=True)


def test_fresh_entropy_is_recorded_and_reproduces():
    result = explore_sim.explore(DECK, explores=2, trials=5000, seed=None)
    again = explore_sim.explore(DECK, explores=2, trials=5000, seed=result.meta["seed"])
    pd.testing.assert_frame_equal(result.summary(), again.summary(), check_exact=True)


def test_generator_seed_is_accepted():
    result = explore_sim.explore(DECK, trials=1000, seed=np.random.default_rng(1))
    assert result.stats.n == 1000


@pytest.mark.parametrize("seed", [-1, 1.5, "7", True])
def test_bad_seeds(seed):
    with pytest.raises(OptionError):
        explore_sim.explore(DECK, trials=100, seed=seed)


@pytest.mark.parametrize("trials", [0, 1, -5, 2.5, 10**11])
def test_bad_trial_counts(trials):
    with pytest.raises(OptionError):
        explore_sim.explore(DECK, trials=trials, seed=1)


def test_accumulator_statistics_match_numpy():
    rng = np.random.default_rng(0)
    values = rng.integers(0, 7, size=10_001)
    acc = Accumulator({"v": False})
    acc.add({"v": values[:5000] % 3})  # a later chunk may reach values never seen before
    acc.add({"v": values[5000:]})
    acc.add({"v": values[:0]})
    values = np.concatenate([values[:5000] % 3, values[5000:]])
    assert acc.total["v"] == values.sum() and acc.total_sq["v"] == (values * values).sum()
    row = acc.summary().iloc[0]
    assert row["mean"] == pytest.approx(values.mean(), rel=1e-12)
    assert row["se"] == pytest.approx(values.std(ddof=1) / np.sqrt(values.size), rel=1e-12)
    assert row["ci_low"] == pytest.approx(row["mean"] - 1.959963984540054 * row["se"])
    dist = acc.distribution("v")
    assert dist["count"].sum() == values.size
    assert dist["probability"].tolist() == pytest.approx(np.bincount(values) / values.size)


@pytest.mark.parametrize("peak", [1, 11, 2**18, 2**40])
def test_paired_products_are_exact_in_floating_point_and_past_it(peak):
    """Sums of products come from floating-point dot products only while every partial sum
    is a whole number below 2**53 (peak 1 to 2**18 here); past that (2**40: products of
    2**80) from whole numbers: both equal Python's integer sums exactly."""
    rng = np.random.default_rng(peak)
    arrays = [rng.integers(0, peak + 1, size=5_003) for _ in range(3)]
    arrays[1][:3] = peak  # the peak is reached
    arrays[2] = -arrays[2]  # signed values too
    got = stats_module._products(arrays)
    for i, a in enumerate(arrays):
        for j, b in enumerate(arrays):
            assert int(got[i, j]) == sum(int(x) * int(y) for x, y in zip(a, b)), (i, j)
    sums = PairedSums(["v"], 3)
    sums.add([{"v": a} for a in arrays])
    assert sums.products[(0, 2)]["v"] == sum(int(x) * int(y) for x, y in zip(arrays[0],
                                                                              arrays[2]))


def test_sums_of_products_never_call_blas(monkeypatch):
    """The sums of products and squares are NumPy's own loops on this thread, never BLAS's
    dot product, whose threads make each call wait milliseconds while other work keeps the
    cores busy; they stay exact on chunks past BLAS's threading threshold (10,000)."""
    def no_blas(*args, **kwargs):
        raise AssertionError("np.dot called")

    rng = np.random.default_rng(3)
    arrays = [rng.integers(0, 9, size=65_536) for _ in range(2)]
    expected = [[int(np.sum(a.astype(object) * b)) for b in arrays] for a in arrays]
    monkeypatch.setattr(stats_module.np, "dot", no_blas)
    assert stats_module._products(arrays).tolist() == expected
    acc = Accumulator({"v": False}, histograms=False)
    acc.add({"v": arrays[0]})
    assert acc.total_sq["v"] == expected[0][0]


@pytest.mark.parametrize("values", [[], [0, 0, 0], [1, 1], [0, 1, 1, 0, 1], [2, 0, 2], [0, 2, 5, 5],
                                    [3]])
def test_a_chunks_counts_are_numpys_bincount(values):
    """Indicators (0s and 1s) are counted without ``np.bincount``: the same counts, down to
    a chunk of only 0s (one count) and an empty chunk (none)."""
    array = np.array(values, dtype=np.int32)
    assert stats_module._counts("v", array).tolist() == np.bincount(array).tolist()
    with pytest.raises(ValueError, match="metric 'v' has negative values"):
        stats_module._counts("v", np.array([1, -1, 0], dtype=np.int32))


def test_wilson_interval_stays_in_range():
    assert wilson_interval(0, 100) [0] == 0.0
    # none or all: the interval ends exactly at 0 or 1, not a rounding error away
    assert all(wilson_interval(0, n)[0] == 0.0 and wilson_interval(n, n)[1] == 1.0
               for n in (15, 43, 2000, 200_000))
    low, high = wilson_interval(100, 100)
    assert high == 1.0 and 0.95 < low < 1
    low, high = wilson_interval(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-4) and high == pytest.approx(0.5962, abs=1e-4)


def test_result_distribution_and_repr():
    result = explore_sim.explore(DECK, explores=2, trials=4000, seed=2)
    dist = result.distribution("lands_to_hand")
    assert list(dist.columns) == ["value", "count", "probability", "se", "ci_low", "ci_high"]
    assert dist["probability"].sum() == pytest.approx(1.0)
    assert repr(result) == ("ExploreResult(deck='Lost Caverns Merfolk Explore', policy='forge', "
                            "explores=2, drawn=8, trials=4000, seed=2)")
    with pytest.raises(explore_sim.OptionError, match="unknown metric .nope."):
        result.distribution("nope")


def test_progress_bar_draws_after_its_delay_and_ends_the_line():
    import io

    from explore_sim.progress import ProgressBar

    stream = io.StringIO()
    quiet = ProgressBar(stream, "simulate", delay=60)
    quiet(10, 100)
    quiet.close()
    assert stream.getvalue() == ""  # a quick run draws nothing
    bar = ProgressBar(stream, "simulate", unit="trials", delay=0)
    bar(50, 100)
    bar(100, 100)
    bar.close()
    text = stream.getvalue()
    # tqdm's bar: the share, the amount, the time elapsed < an estimate of the time left
    assert text.startswith("\rsimulate:   0%|          | 0.00/100 [00:00<?, ? trials/s]")
    assert re.search(r"\rsimulate: 100%\|#+\| 100/100 \[00:00<00:00, [\d.]+[kM]? trials/s\]\n$",
                     text), text


def test_progress_bar_times_the_work_from_when_it_was_made(monkeypatch):
    """A run of one chunk reports once, at its end: the time and rate shown count from the
    start of the run, not from that report."""
    import io

    from explore_sim import progress as progress_module

    clock = [100.0]
    monkeypatch.setattr(progress_module.time, "monotonic", lambda: clock[0])
    stream = io.StringIO()
    bar = progress_module.ProgressBar(stream, "value", unit="trials", delay=0)
    clock[0] += 2.0  # two seconds of play before the first report
    bar(40_000, 40_000)
    assert bar._bar.format_dict["elapsed"] >= 2.0
    bar.close()
    assert re.search(r"40\.0k/40\.0k \[00:02<00:00, 2\d\.\dk trials/s\]", stream.getvalue()), \
        stream.getvalue()


def test_progress_callback_sees_every_chunk():
    calls = []
    explore_sim.explore(DECK, trials=2 * CHUNK_TRIALS + 10, seed=1,
                        progress=lambda done, total: calls.append((done, total)))
    assert calls == [(CHUNK_TRIALS, 2 * CHUNK_TRIALS + 10),
                     (2 * CHUNK_TRIALS, 2 * CHUNK_TRIALS + 10),
                     (2 * CHUNK_TRIALS + 10, 2 * CHUNK_TRIALS + 10)]


@pytest.mark.slow
def test_two_workers_give_exactly_the_same_numbers():
    trials = 3 * CHUNK_TRIALS + 17
    one = explore_sim.explore(DECK, explores=2, policy="forge", trials=trials, seed=5)
    two = explore_sim.explore(DECK, explores=2, policy="forge", trials=trials, seed=5, workers=2)
    pd.testing.assert_frame_equal(one.summary(), two.summary(), check_exact=True)
    pd.testing.assert_frame_equal(one.distribution(), two.distribution(), check_exact=True)
    games_one = explore_sim.simulate(DECK, turns=3, trials=2 * CHUNK_TRIALS + 5, seed=6)
    games_two = explore_sim.simulate(DECK, turns=3, trials=2 * CHUNK_TRIALS + 5, seed=6, workers=2)
    pd.testing.assert_frame_equal(games_one.summary(), games_two.summary(), check_exact=True)


@pytest.mark.slow
def test_two_workers_compare_and_lambda_policies():
    policy = lambda obs, rng: obs.mana_value >= 3  # noqa: E731 - a closure crosses the fork
    kwargs = dict(turns=2, trials=CHUNK_TRIALS + 3, seed=7)
    one = explore_sim.compare(DECK, {"keep": "keep", "mv3": policy}, **kwargs)
    two = explore_sim.compare(DECK, {"keep": "keep", "mv3": policy}, workers=2, **kwargs)
    assert one.policies == ["keep", "mv3"]
    pd.testing.assert_frame_equal(one.paired_differences(), two.paired_differences(),
                                  check_exact=True)


@pytest.mark.parametrize("workers", [-1, 1.5, True])
def test_bad_worker_counts(workers):
    with pytest.raises(OptionError, match="workers"):
        explore_sim.explore(DECK, trials=100, seed=1, workers=workers)


def _stop_after(chunks: int):
    """A progress callback that stops a run once ``chunks`` chunks have finished."""
    def progress(done, total):
        if done >= chunks * CHUNK_TRIALS:
            raise explore_sim.StopRun
    return progress


def _frames(result) -> list[pd.DataFrame]:
    frames = [result.summary()]
    if hasattr(result, "paired_differences"):
        frames.append(result.paired_differences())
    return frames


#: Each analysis made of one run of chunks, with small options: a run it plays.
_ONE_RUN = {
    "explore": lambda trials, **kw: explore_sim.explore(DECK, explores=2, trials=trials, **kw),
    "simulate": lambda trials, **kw: explore_sim.simulate(DECK, turns=2, trials=trials, **kw),
    "compare": lambda trials, **kw: explore_sim.compare(DECK, ["keep", "mill"], turns=2,
                                                        trials=trials, **kw),
}


@pytest.mark.parametrize("name", list(_ONE_RUN))
@pytest.mark.slow
def test_a_run_stopped_early_is_the_run_of_the_chunks_it_finished(name):
    """StopRun from progress: the result of the first chunks, equal to a run of that many
    trials with the same seed, its metadata saying how many were asked for."""
    play = _ONE_RUN[name]
    stopped = play(3 * CHUNK_TRIALS + 5, seed=11, progress=_stop_after(1))
    shorter = play(CHUNK_TRIALS, seed=11)
    assert stopped.meta["trials"] == CHUNK_TRIALS
    assert stopped.meta["trials_asked"] == 3 * CHUNK_TRIALS + 5
    assert "trials_asked" not in shorter.meta
    assert {k: v for k, v in stopped.meta.items() if k != "trials_asked"} == shorter.meta
    for mine, theirs in zip(_frames(stopped), _frames(shorter)):
        pd.testing.assert_frame_equal(mine, theirs, check_exact=True)
    assert (stopped.summary()["se"] > 0).any()


def test_a_run_stopped_at_its_last_chunk_is_complete():
    result = explore_sim.explore(DECK, trials=CHUNK_TRIALS + 7, seed=2,
                                 progress=_stop_after(5))
    assert result.meta["trials"] == CHUNK_TRIALS + 7 and "trials_asked" not in result.meta


def test_stop_run_propagates_from_a_run_that_is_one_of_several():
    """run_chunks without stop_early (one run of several, as value plays them) lets StopRun
    through; with it, the run ends and says how many trials it finished."""
    merged = []

    def chunk(size, seed):
        return size

    def stop(done, total):
        raise explore_sim.StopRun

    with pytest.raises(explore_sim.StopRun):
        run_chunks(chunk, merged.append, 3 * CHUNK_TRIALS, seed_sequence(1), progress=stop)
    merged.clear()
    assert run_chunks(chunk, merged.append, 3 * CHUNK_TRIALS, seed_sequence(1), progress=stop,
                      stop_early=True) == CHUNK_TRIALS
    assert merged == [CHUNK_TRIALS]


@pytest.mark.slow
def test_a_stopped_advise_and_a_value_and_curve_that_propagate():
    """advise is one run; value and curve are several (of one seed), none complete."""
    sevens = TESTS / "fixtures" / "decks" / "scouts_and_sevens.txt"
    position = dict(turn=2, battlefield="2 Forest, Cenote Scout", hand="Grizzly Bears",
                    revealed="Platinum Angel", objectives="on_curve@3")
    advice = explore_sim.advise(sevens, **position, trials=2 * CHUNK_TRIALS, seed=3,
                                progress=_stop_after(1))
    pd.testing.assert_frame_equal(advice.summary(), explore_sim.advise(
        sevens, **position, trials=CHUNK_TRIALS, seed=3).summary(), check_exact=True)
    assert advice.meta["trials"] == CHUNK_TRIALS
    with pytest.raises(explore_sim.StopRun):
        explore_sim.value(DECK, ["Cenote Scout"], turns=2, turn=2, trials=2 * CHUNK_TRIALS,
                          seed=1, progress=_stop_after(1))
    with pytest.raises(explore_sim.StopRun):
        explore_sim.curve(DECK, turns=2, trials=2 * CHUNK_TRIALS, seed=4,
                          progress=_stop_after(1))


@pytest.mark.slow
def test_a_run_stopped_early_on_two_workers_is_the_same():
    stopped = explore_sim.explore(DECK, trials=4 * CHUNK_TRIALS, seed=8, workers=2,
                                  progress=_stop_after(2))
    shorter = explore_sim.explore(DECK, trials=2 * CHUNK_TRIALS, seed=8)
    pd.testing.assert_frame_equal(stopped.summary(), shorter.summary(), check_exact=True)


def test_an_analysis_shows_its_progress_and_the_kernel_compiling(monkeypatch, capsys):
    """On a terminal, a run shows tqdm's bar (after a second: here at once) and, while the
    compiled game compiles during it, the time the compilation has taken; the compile
    listener goes with the run; False shows nothing; a callable is called instead."""
    from explore_sim import progress as progress_module

    monkeypatch.setattr(progress_module, "front_end", lambda: "terminal")
    monkeypatch.setattr(progress_module, "DELAY", 0.0)
    # only this run's listeners (not a command line's, left by another test in this process)
    monkeypatch.setattr(progress_module, "_COMPILE_LISTENERS", [])

    @progress_module.shows_progress("simulate")
    def run(trials, progress=None):
        for listener in progress_module.compile_listeners():
            listener(2.0, False)
            listener(3.0, True)
        for done in range(0, trials + 1, 50):
            if progress is not None:
                progress(done, trials)
        return progress

    before = progress_module.compile_listeners()
    given = []
    assert run(100, progress=lambda done, total: given.append(done)) is not None
    assert given == [0, 50, 100] and capsys.readouterr().err == ""
    assert run(100, progress=False) is None and capsys.readouterr().err == ""
    assert isinstance(run(100), progress_module.ProgressBar)
    shown = capsys.readouterr().err
    assert "compiling the game kernel (once per installation, about half a minute): 2 s" in shown
    assert "the game kernel compiled in 3 s" in shown
    assert re.search(r"simulate: 100%\|[^|]+\| 100/100 \[00:00<00:00", shown), shown
    assert progress_module.compile_listeners() == before  # the run's listener is gone


def test_every_analysis_with_progress_shows_it_by_default():
    """Each public function taking ``progress`` shows a display by default and takes False
    for none (:func:`~explore_sim.progress.shows_progress`)."""
    import inspect

    taking = [name for name in explore_sim.__all__
              if callable(function := getattr(explore_sim, name)) and not inspect.isclass(function)
              and "progress" in inspect.signature(function).parameters]
    assert {"simulate", "compare", "lands", "value", "advise", "tune"} <= set(taking)
    assert [name for name in taking
            if not getattr(getattr(explore_sim, name), "progress_label", None)] == []
