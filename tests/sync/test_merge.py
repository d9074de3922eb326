"""The merge converges: three replicas making random changes, syncing in random orders through
a remote that loses pushes, end with the same memories, equal to merging every event ever made
(compaction included). Pure functions, no git."""

from __future__ import annotations

from dataclasses import dataclass, field

from hypothesis import given, settings
from hypothesis import strategies as st
from support.examples import examples

from recallnest.sync.clock import Clock, parse_stamp
from recallnest.sync.merge import (
    FORGET,
    UPSERT,
    Event,
    Register,
    changed_fields,
    compact,
    kind_of,
    merge_all,
)

MACHINES = ("a" * 8, "b" * 8, "c" * 8)
IDS = ("m1", "m2", "m3")


@dataclass
class Replica:
    machine: str
    wall: list[int]
    registers: dict[str, Register] = field(default_factory=dict)
    own: list[Event] = field(default_factory=list)
    clock: Clock = field(init=False)

    def __post_init__(self) -> None:
        self.clock = Clock(self.machine, wall=lambda: self.wall[0])

    def view(self) -> dict[str, dict[str, object]]:
        return {k: v for k, r in self.registers.items() if (v := r.live()) is not None}

    def change(self, memory: str, op: str, value: int, made: list[Event]) -> None:
        before = self.view().get(memory)
        if op == "forget":
            if before is None:
                return
            event = Event(self.clock.now(), memory, FORGET, {}, self.machine)
        else:
            after = dict(before or {"text": f"t{value}", "tier": "working", "pinned": False})
            if op == "edit":
                after["text"] = f"t{value}"
            elif op == "pin":
                after["pinned"] = not after["pinned"]
            elif op == "tier":
                after["tier"] = ("core", "working", "peripheral")[value % 3]
            elif op == "rewrite" and before is not None:  # every field changed, still an edit
                after = {"text": f"r{value}", "tier": "core", "pinned": not after["pinned"]}
            changes = changed_fields(before, after)
            if not changes:
                return
            event = Event(self.clock.now(), memory, kind_of(before, changes), changes, self.machine)
        made.append(event)
        self.own.append(event)
        merge_all(self.registers, [event])

    def pull(self, remote: dict[str, list[Event]]) -> None:
        for machine, events in remote.items():
            if machine != self.machine:
                for event in events:
                    self.clock.observe(event.stamp)
                merge_all(self.registers, events)

    def push(self, remote: dict[str, list[Event]], lost: bool) -> None:
        self.own = compact(self.own, self.registers)
        if not lost:
            remote[self.machine] = list(self.own)


step = st.tuples(
    st.integers(0, 2),  # replica
    st.sampled_from(("change", "change", "sync", "sync_lost", "tick")),
    st.sampled_from(IDS),
    st.sampled_from(("create", "edit", "pin", "tier", "rewrite", "forget")),
    st.integers(0, 5),
)


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(step, max_size=60), st.lists(st.integers(0, 3), min_size=3, max_size=3))
def test_three_replicas_converge(
    steps: list[tuple[int, str, str, str, int]], skew: list[int]
) -> None:
    # Skewed wall clocks: each replica's clock runs at its own offset and only moves on "tick".
    walls = [[1_700_000_000_000 + s * 1000] for s in skew]
    replicas = [Replica(m, walls[i]) for i, m in enumerate(MACHINES)]
    remote: dict[str, list[Event]] = {}
    made: list[Event] = []
    for who, action, memory, op, value in steps:
        replica = replicas[who]
        if action == "change":
            replica.change(memory, op, value, made)
        elif action == "tick":
            walls[who][0] += value
        else:
            replica.pull(remote)
            replica.push(remote, lost=action == "sync_lost")
    for _ in range(2):  # everyone back online: two rounds reach everyone
        for replica in replicas:
            replica.pull(remote)
            replica.push(remote, lost=False)
    oracle: dict[str, Register] = {}
    merge_all(oracle, made)
    expected = {k: v for k, r in oracle.items() if (v := r.live()) is not None}
    for replica in replicas:
        assert replica.view() == expected
    # The compacted logs alone rebuild the same state (what a new machine would read).
    fresh: dict[str, Register] = {}
    for events in remote.values():
        merge_all(fresh, events)
    rebuilt = {k: v for k, r in fresh.items() if (v := r.live()) is not None}
    assert rebuilt == expected


@given(st.permutations(list(range(6))))
def test_merge_order_and_repetition_do_not_matter(order: list[int]) -> None:
    events = [
        Event("1700000000000.000000.aaaaaaaa", "m", UPSERT, {"text": "a", "pinned": False}),
        Event("1700000000001.000000.bbbbbbbb", "m", "edit", {"text": "b"}),
        Event("1700000000001.000001.aaaaaaaa", "m", "pin", {"pinned": True}),
        Event("1700000000002.000000.cccccccc", "m", FORGET),
        Event("1700000000003.000000.bbbbbbbb", "m", UPSERT, {"text": "c", "pinned": False}),
        Event("1700000000001.000000.bbbbbbbb", "m", "edit", {"text": "b"}),  # a retry
    ]
    registers: dict[str, Register] = {}
    merge_all(registers, [events[i] for i in order])
    assert registers["m"].live() == {"text": "c", "pinned": False}


def test_forget_drops_the_text_and_beats_a_concurrent_edit() -> None:
    register = Register()
    register.merge(Event("1700000000000.000000.aaaaaaaa", "m", UPSERT, {"text": "secret"}))
    register.merge(Event("1700000000005.000000.aaaaaaaa", "m", FORGET))
    # An edit made on another machine before it saw the forget arrives late: still forgotten.
    register.merge(Event("1700000000003.000000.bbbbbbbb", "m", "edit", {"text": "secret2"}))
    assert register.live() is None
    assert "secret" not in str(register.to_json())


def test_clock_moves_past_what_it_observes_and_never_back() -> None:
    wall = [1_700_000_000_000]
    clock = Clock("aaaaaaaa", wall=lambda: wall[0])
    first = clock.now()
    clock.observe("1700000009999.000004.bbbbbbbb")
    after = clock.now()
    assert after > "1700000009999.000004.bbbbbbbb" > first
    wall[0] -= 5000  # the wall clock steps back
    assert clock.now() > after
    assert parse_stamp(after).machine == "aaaaaaaa"
