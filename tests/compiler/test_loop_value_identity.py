"""A loop compiled on its own hands back the values it ends with; the surrounding trace's
lazy array stands in for a value only where that value is the very object the loop was
given (api/loop_sinks.ByIdentity). Keyed by id alone, a carried count the body replaced
was freed, the loop's final count could take its address, and the first iteration's
lazy count came back for it: monte_carlo_pi returned pi / 20 on some calls."""

import npcompile
from npcompile.api.loop_sinks import ByIdentity
from conftest import check
from test_native_loop import corpus_module
from test_trace_loops import compiled_without_fallback


def test_a_value_found_by_identity_is_held():
    value = 10 ** 12 + 7
    by = ByIdentity([(value, "lazy")])
    assert by.get(value) == "lazy"
    del value        # held by the map: its address cannot go to another object
    other = int("1000000000008")
    assert by.get(other) is None and by.get(other, other) is other


# the corpus's Monte Carlo pi: a count carried over batches drawn from a seeded generator
batches = corpus_module("monte_carlo_pi").run


def test_a_carried_count_is_the_loops_last_at_every_call():
    """Many calls, a jit of the same function beside it (the bench's order): each call's
    count is the sum over all batches."""
    exp = batches(7, 2000, 20)
    first = npcompile.jit(batches)
    for _ in range(12):
        assert first(7, 2000, 20) == exp
    again = npcompile.jit(batches, choose=False)
    for _ in range(40):
        batches(7, 2000, 20)
        assert again(7, 2000, 20) == exp
    check(batches, 3, 500, 16)
    compiled_without_fallback()
