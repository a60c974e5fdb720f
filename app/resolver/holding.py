"""Holding (docs/rules.md: Holding and groups): a held first action never resolves before, nor with, the first action of
the combatant it waits for (X); when the usual order would have it do so, it moves to a tick of its own
right after X's.

The placed ticks make a tree: each hangs under the tick it is placed after, a tick of the usual order at
its root. A placed tick is named by where it hangs and by the score as rolled and initiative as entered
that its actions share (those equal in both are simultaneous), so every holder's place is known without
first gathering the others placed beside it. The round's order is then the usual ticks, each followed
by what hangs under it, depth first, siblings in the usual order.
"""

from __future__ import annotations

from collections.abc import Mapping

from .initiative import Scheduled, order_into_ticks, resolution_order

# A tick: ("usual", score, initiative) for one of the usual order; ("placed", parent, score as rolled,
# initiative) for one a hold made.
Tick = tuple[object, ...]


class Placement:
    """Where the first actions go: their tick, the usual tick it goes back to, the score they report."""

    __slots__ = ("first", "holds", "tick", "root", "score", "moved")

    def __init__(self, first: Mapping[str, Scheduled], holds: Mapping[str, str]) -> None:
        self.first = first
        self.holds = holds
        self.tick: dict[str, Tick] = {}
        self.root: dict[str, tuple[int, int]] = {}  # the usual tick's order key (-score, -initiative)
        self.score: dict[str, int] = {}  # as the entry reports it
        self.moved: list[Scheduled] = []

    def place(self, actor: str) -> None:
        """Place `actor`'s first action, after the first action of its X when that one is held too."""
        if actor in self.tick:
            return
        action = self.first[actor]
        x = self.holds.get(actor)
        if x is not None and x in self.first:  # X without an action this round: the hold changes nothing
            self.place(x)  # holds form no cycle (validated), so this ends
            own = (-action.score, -action.initiative)
            if own <= self.root[x]:  # in the tick X's goes back to, or an earlier one: moved
                self.tick[actor] = ("placed", self.tick[x], action.score, action.initiative)
                self.root[actor] = self.root[x]
                self.score[actor] = self.score[x]
                self.moved.append(action)
                return
        self.tick[actor] = ("usual", action.score, action.initiative)
        self.root[actor] = (-action.score, -action.initiative)
        self.score[actor] = action.score


def place_holds(actions: list[Scheduled], holds: Mapping[str, str]) -> list[list[Scheduled]]:
    """Every action of the round in ticks, in the final order (docs/rules.md: Holding and groups)."""
    first = {a.actor: a for a in actions if a.seq == 1}
    placement = Placement(first, holds)
    for actor in holds:
        if actor in first:
            placement.place(actor)
    if not placement.moved:
        return order_into_ticks(actions)

    # Hang each moved first action under the tick it is placed after, keeping its score as rolled for the
    # order among its siblings; then give it X's score, and its later attacks follow from that score.
    under: dict[object, list[tuple[tuple[int, int, str, int], Scheduled]]] = {}
    shift: dict[str, int] = {}
    for action in placement.moved:
        tick = placement.tick[action.actor]
        under.setdefault(tick[1], []).append((resolution_order(action), action))  # tick[1]: where it hangs
        shift[action.actor] = placement.score[action.actor] - action.score
        action.score = placement.score[action.actor]
        action.held = True
    usual = []
    for action in actions:
        if action.held:
            continue
        if action.actor in shift:  # a later attack of a moved first action
            action.score += shift[action.actor]
        usual.append(action)

    ordered: list[list[Scheduled]] = []

    def hang(parent: object) -> None:
        siblings = under.get(parent)
        if not siblings:
            return
        siblings.sort(key=lambda pair: pair[0])
        start = 0
        while start < len(siblings):
            moment = siblings[start][0][:2]  # (-score as rolled, -initiative): equal in both, simultaneous
            end = start + 1
            while end < len(siblings) and siblings[end][0][:2] == moment:
                end += 1
            ordered.append([action for _, action in siblings[start:end]])
            hang(("placed", parent, -moment[0], -moment[1]))
            start = end

    for usual_tick in order_into_ticks(usual):
        ordered.append(usual_tick)
        hang(("usual", usual_tick[0].score, usual_tick[0].initiative))
    return ordered
