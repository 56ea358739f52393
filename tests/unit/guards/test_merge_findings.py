"""Findings of several ranks, reported once at the end of a distributed run."""

from trainwell.guards.finding import Finding, merge_findings


def _finding(rank, code="grad-not-zeroed", where="model", source="train.py:12"):
    return Finding(
        code=code,
        name="gradients never zeroed",
        message="seen",
        where=where,
        step=3,
        source=source,
        why="why",
        fix="fix",
        switch="zero_grad",
        rank=rank,
    )


def test_the_same_bug_on_two_ranks_is_one_finding_naming_both():
    merged = merge_findings([[_finding(0)], [_finding(1)]])
    assert len(merged) == 1
    assert merged[0].rank == 0 and merged[0].also_on == (1,)
    assert str(merged[0]).startswith("rank 0 (also 1): [grad-not-zeroed]")


def test_a_bug_only_one_rank_saw_is_kept_with_its_rank():
    only_rank_1 = _finding(1, code="nonfinite", where="fc.weight")
    merged = merge_findings([[_finding(0)], [_finding(1), only_rank_1]])
    assert [(f.code, f.rank, f.also_on) for f in merged] == [
        ("grad-not-zeroed", 0, (1,)),
        ("nonfinite", 1, ()),
    ]


def test_different_places_stay_apart():
    merged = merge_findings([[_finding(0, where="a")], [_finding(1, where="b")]])
    assert [(f.where, f.rank) for f in merged] == [("a", 0), ("b", 1)]
