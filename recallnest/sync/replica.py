"""One machine's side of sync: turn local changes into events, read every other machine's log,
merge, write the merged memories into the store, compact and publish this machine's log.

A sync round (`Replica.sync`):
1. Export: memories whose synced fields differ from what was last reconciled become events
   (a new memory an upsert, a change the changed fields, a deletion a forget), text redacted
   again, stamped by the clock.
2. Pull, per remote: fetch, read the files whose version changed, open and check each line
   (a bad line is rejected and reported; the rest of the file is applied), merge.
3. Apply: every memory whose register changed is written (or deleted) as the register says.
4. Publish, per remote: this machine's events for the touched memories are compacted against
   the merged registers; the buckets that changed are rewritten and sent. A remote that cannot
   be reached keeps them pending for the next round; nothing is lost.
"""

from __future__ import annotations

import json
import logging
import shutil
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from recallnest.core import redact
from recallnest.core.errors import RecallnestError
from recallnest.core.models import Memory
from recallnest.store.types import Batch
from recallnest.sync.clock import Clock
from recallnest.sync.codec import BadEvent, decode, encode, read_key
from recallnest.sync.config import Remote, SyncConfig
from recallnest.sync.host import SyncHost
from recallnest.sync.identity import Identities
from recallnest.sync.merge import FORGET, Event, Register, changed_fields, compact, kind_of
from recallnest.sync.resolutions import incoming, outgoing, split
from recallnest.sync.transport import (
    FolderTransport,
    GitTransport,
    Transport,
    TransportError,
    owner_of,
)

log = logging.getLogger(__name__)

# Files per machine and remote: a change rewrites its memory's file, 1/4096 of the log (with
# 256, 100 new memories among 100k rewrote, re-sent and re-read 40% of it: 17 s a round).
BUCKETS = 4096
APPLY_CHUNK = 5_000
MAX_ERRORS = 20
_CLOCK = ""  # sync_meta's remote for machine-wide values


def bucket_of(memory_id: str) -> int:
    return int(memory_id[:3], 16) % BUCKETS


def bucket_path(machine: str, bucket: int) -> str:
    return f"machines/{machine}/{bucket:03x}.jsonl"


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.astimezone(UTC).isoformat()


def _when(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def fields_of(memory: Memory, ids: Identities) -> dict[str, Any]:
    """The synced fields of a memory as they travel: its scope portable, its text redacted
    again before it leaves. Local-only state stays: evidence (turn ids: turns never leave),
    access counts."""
    return {
        "scope": ids.portable(memory.scope),
        "category": memory.category,
        "text": redact.redact(memory.text)[0],
        "importance": float(memory.importance),
        "confidence": float(memory.confidence),
        "tier": memory.tier,
        "status": memory.status,
        "created_at": _iso(memory.created_at),
        "updated_at": _iso(memory.updated_at),
        "source": memory.source,
        "rule": memory.rule,
        "superseded_by": memory.superseded_by,
        "subject": memory.subject,
        "pinned": bool(memory.pinned),
        "valid_until": _iso(memory.valid_until),
    }


def memory_of(
    memory_id: str, fields: Mapping[str, Any], local: Memory | None, ids: Identities
) -> Memory:
    """The local row of merged fields: a portable scope becomes this machine's project."""
    base = local or Memory(id=memory_id, scope="global", category="events", text="")
    scope = fields.get("scope")
    return replace(
        base,
        scope=base.scope if scope is None else ids.local(str(scope)),
        category=str(fields.get("category", base.category)),
        text=str(fields.get("text", base.text)),
        importance=float(fields.get("importance", base.importance)),
        confidence=float(fields.get("confidence", base.confidence)),
        tier=str(fields.get("tier", base.tier)),
        status=str(fields.get("status", base.status)),
        created_at=_when(fields.get("created_at")) or base.created_at,
        updated_at=_when(fields.get("updated_at")) or base.updated_at,
        source=str(fields.get("source", base.source)),
        rule=fields.get("rule", base.rule),
        superseded_by=fields.get("superseded_by", base.superseded_by),
        subject=fields.get("subject", base.subject),
        pinned=bool(fields.get("pinned", base.pinned)),
        valid_until=_when(fields.get("valid_until")),
    )


def _event_json(event: Event) -> str:
    return json.dumps(
        {
            "s": event.stamp,
            "m": event.memory_id,
            "k": event.kind,
            "f": dict(event.fields),
            "w": event.machine,
            "u": event.user,
            "h": event.host,
        }
    )


def _event_from_json(text: str) -> Event:
    d = json.loads(text)
    return Event(d["s"], d["m"], d["k"], d["f"], d["w"], d["u"], d["h"])


def transport_for(home: Path, remote: Remote) -> Transport:
    if remote.kind == "folder":
        return FolderTransport(Path(remote.url))
    return GitTransport(remote.url, home / "sync" / f"{remote.name}.git")


class Replica:
    """This machine's sync, over its host's store. One round at a time (a lock)."""

    def __init__(self, host: SyncHost) -> None:
        self.host = host
        self.store = host.store
        self.home = host.settings.home
        self._lock = threading.Lock()
        self._registers: dict[str, Register] = {}
        self._ids = Identities(())
        self._forgot = False  # a forget was merged this round: republish with no history
        self._resolved: dict[str, dict[str, str]] = {}  # this store's resolutions, as fields

    @property
    def config(self) -> SyncConfig | None:
        return SyncConfig.load(self.home)

    def _config(self) -> SyncConfig:
        config = self.config
        if config is None or not config.remotes:
            raise RecallnestError("sync is not set up: run `recallnest sync init <remote>`")
        return config

    # ---- registers -------------------------------------------------------------------------

    def _load(self, ids: Iterable[str]) -> dict[str, Register]:
        missing = [i for i in ids if i not in self._registers]
        if missing:
            found = self.store.sync_registers(missing)
            for mem_id in missing:
                state = found.get(mem_id)
                self._registers[mem_id] = (
                    Register.from_json(json.loads(state)) if state else Register()
                )
        return self._registers

    def _merge(self, events: Iterable[Event], changed: set[str]) -> None:
        events = list(events)
        registers = self._load({e.memory_id for e in events})
        for event in events:
            if registers[event.memory_id].merge(event):
                changed.add(event.memory_id)
                self._forgot = self._forgot or event.kind == FORGET

    # ---- a round ----------------------------------------------------------------------------

    def sync(self, remotes: Sequence[str] | None = None) -> dict[str, Any]:
        """One round with every remote (or those named); a report of what moved."""
        config = self._config()
        chosen = [r for r in config.remotes if remotes is None or r.name in remotes]
        with self._lock:
            started = time.perf_counter()
            self._registers = {}
            self._forgot = False
            self._ids = self._identities(config)
            chosen = [self._portable_remote(r) for r in chosen]
            self._rescope()
            meta = self.store.sync_meta(_CLOCK)
            clock = Clock(config.machine, meta.get("clock"))
            own, changed = self._export(config, clock)
            pulled: dict[str, dict[str, Any]] = {}
            for remote in chosen:
                pulled[remote.name] = self._pull(config, remote, clock, changed)
            applied = self._apply(changed)
            touched = changed | {e.memory_id for e in own}
            report: dict[str, Any] = {"exported": len(own), "applied": applied, "remotes": {}}
            self.store.sync_put_registers(
                {i: json.dumps(self._registers[i].to_json()) for i in touched}
            )
            self.store.sync_set_meta(_CLOCK, {"clock": clock.last})
            for remote in chosen:
                status = pulled[remote.name]
                status.update(self._publish(config, remote, own, touched, status))
                report["remotes"][remote.name] = status
            self._drop_old_copies(chosen, report["remotes"])
            report["seconds"] = round(time.perf_counter() - started, 3)
            return report

    def _drop_old_copies(
        self, remotes: Sequence[Remote], statuses: Mapping[str, Mapping[str, Any]]
    ) -> None:
        """A local git mirror keeps the old versions of every log file it fetched or pushed,
        and an old version may hold lines of a memory forgotten since (sealed, but the key
        sits next to it): after a round that moved files, drop them, so this machine keeps
        no copy."""
        for remote in remotes:
            status = statuses[remote.name]
            moved = sum(status.get(k, 0) for k in ("pulled_files", "gone_files", "pushed_files"))
            if not moved:
                continue
            try:
                transport_for(self.home, remote).collect()
            except RecallnestError as exc:
                log.warning("sync: cannot collect the old objects of %s: %s", remote.name, exc)

    def _identities(self, config: SyncConfig) -> Identities:
        """This machine's projects (scopes of its memories, projects it worked in, projects
        bound to a team remote) and their portable ids."""
        bound = [p for r in config.remotes for p in r.projects]
        return Identities([*self.store.sync_local_scopes(), *bound], config.names)

    def _portable_remote(self, remote: Remote) -> Remote:
        """The remote with its bound projects as portable ids (what events carry)."""
        return replace(remote, projects=tuple(self._ids.portable(p) for p in remote.projects))

    def _rescope(self) -> None:
        """Memories kept under a portable id no project here had: once this machine has a
        project with that id (cloned since, or named), they move to it."""
        for scope in self.store.sync_local_scopes(portable_only=True):
            local = self._ids.local(scope)
            if local == scope:
                continue
            rows = self.store.memories(self.store.sync_scope_ids(scope))
            self.host.apply(Batch(memories=[replace(m, scope=local) for m in rows]))

    def _export(self, config: SyncConfig, clock: Clock) -> tuple[list[Event], set[str]]:
        changed_ids, gone = self.store.sync_changes()
        changed_ids = self._with_resolutions(changed_ids)
        shadow = self.store.sync_shadow([*changed_ids, *gone])
        events: list[Event] = []
        reconciled: dict[str, Mapping[str, Any] | None] = {}
        for start in range(0, len(changed_ids), APPLY_CHUNK):
            for memory in self.store.memories(changed_ids[start : start + APPLY_CHUNK]):
                after = fields_of(memory, self._ids) | self._resolved.get(memory.id, {})
                before = shadow.get(memory.id)
                changes = changed_fields(before, after)
                reconciled[memory.id] = after
                if changes:
                    kind = kind_of(before, changes)
                    events.append(self._event(config, clock, memory.id, kind, changes))
        for mem_id in gone:
            events.append(self._event(config, clock, mem_id, FORGET, {}))
            reconciled[mem_id] = None
        changed: set[str] = set()
        self._merge(events, changed)
        self.store.sync_reconciled(reconciled)
        return events, changed

    def _with_resolutions(self, changed: list[str]) -> list[str]:
        """`changed` plus the memories whose register carries a conflict resolution made here
        since they were last reconciled (a resolution changes no memory row)."""
        self._resolved = outgoing(self.store.sync_resolved_conflicts())
        ids = set(changed)
        shadow = self.store.sync_shadow([i for i in self._resolved if i not in ids])
        for mem_id, held in shadow.items():
            if any(held.get(k) != v for k, v in self._resolved[mem_id].items()):
                ids.add(mem_id)
        return sorted(ids)

    @staticmethod
    def _event(
        config: SyncConfig, clock: Clock, mem_id: str, kind: str, fields: Mapping[str, Any]
    ) -> Event:
        return Event(clock.now(), mem_id, kind, fields, config.machine, config.user, config.host)

    def _pull(
        self, config: SyncConfig, remote: Remote, clock: Clock, changed: set[str]
    ) -> dict[str, Any]:
        status: dict[str, Any] = {"pulled_files": 0, "pulled_events": 0, "rejected": []}
        try:
            key = read_key(SyncConfig.key_path(self.home, remote.name))
            transport = transport_for(self.home, remote)
            transport.fetch()
            listing = transport.listing()
        except (TransportError, RecallnestError) as exc:
            status["error"] = str(exc)
            return status
        cursors = self.store.sync_cursors(remote.name)
        todo = {
            p: v
            for p, v in listing.items()
            if owner_of(p) not in (None, config.machine) and cursors.get(p) != v
        }
        status["machines"] = len({owner_of(p) for p in listing})
        status["behind"] = len(todo)
        try:
            blobs = transport.read(todo)
        except TransportError as exc:
            status["error"] = str(exc)
            return status
        events: list[Event] = []  # merged at once: one register load for every file
        for path, blob in sorted(blobs.items()):
            writer = owner_of(path) or ""
            for n, line in enumerate(blob.decode("utf-8", errors="replace").splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    event = decode(line, key, writer)
                    self._admit(remote, event)
                except BadEvent as exc:
                    status["rejected"].append(f"{path}:{n}: {exc}")
                    continue
                clock.observe(event.stamp)
                events.append(event)
        self._merge(events, changed)
        status["pulled_events"] += len(events)
        status["pulled_files"] = len(blobs)
        gone = {p: None for p in cursors if p not in listing}
        status["gone_files"] = len(gone)
        self.store.sync_set_cursors(remote.name, {**{p: todo[p] for p in blobs}, **gone})
        return status

    def _admit(self, remote: Remote, event: Event) -> None:
        """A team remote may only change memories of the projects bound to it."""
        if not remote.team:
            return
        scope = event.fields.get("scope")
        if scope is None:
            scope = self._load([event.memory_id])[event.memory_id].fields.get("scope", (0, None))[1]
        if scope is not None and not remote.carries(scope):
            raise BadEvent(f"team remote {remote.name} may not change a memory of scope {scope!r}")

    def _apply(self, ids: set[str]) -> int:
        """Write the merged state of `ids` into the store; how many rows changed."""
        ordered = sorted(ids)
        written = 0
        for start in range(0, len(ordered), APPLY_CHUNK):
            chunk = ordered[start : start + APPLY_CHUNK]
            local = {m.id: m for m in self.store.memories(chunk)}
            rows: list[Memory] = []
            deleted: list[str] = []
            resolutions: list[tuple[str, str, str]] = []
            reconciled: dict[str, Mapping[str, Any] | None] = {}
            for mem_id in chunk:
                live = self._registers[mem_id].live()
                have = local.get(mem_id)
                reconciled[mem_id] = live
                if live is None:
                    if have is not None:
                        deleted.append(mem_id)
                    continue
                own, resolved = split(live)
                if have is None or fields_of(have, self._ids) != own:
                    rows.append(memory_of(mem_id, own, have, self._ids))
                here = self._resolved.get(mem_id, {})
                new = {k: v for k, v in resolved.items() if here.get(k) != v}
                resolutions += incoming(mem_id, new)
            if rows or deleted:
                self.host.apply(Batch(memories=rows, deleted_memory_ids=deleted))
                written += len(rows) + len(deleted)
            if resolutions:
                written += self.store.sync_put_resolutions(resolutions, datetime.now(UTC))
            self.store.sync_reconciled(reconciled)
        return written

    def _publish(
        self,
        config: SyncConfig,
        remote: Remote,
        own: Sequence[Event],
        touched: set[str],
        status: Mapping[str, Any],
    ) -> dict[str, Any]:
        name = remote.name
        meta = self.store.sync_meta(name)
        pending = set(json.loads(meta.get("pending", "[]")))
        try:
            key = read_key(SyncConfig.key_path(self.home, name))
        except RecallnestError as exc:
            return {"error": str(exc)}
        pending |= self._rewrite_log(remote, key, own, touched)
        out: dict[str, Any] = {"log_lines": self.store.sync_log_size(name)}
        values = {"last_attempt": datetime.now(UTC).isoformat()}
        rejected = list(json.loads(meta.get("rejected", "[]"))) + list(status["rejected"])
        values["rejected"] = json.dumps(rejected[-MAX_ERRORS:])
        error = status.get("error")
        if (pending or (self._forgot and remote.kind == "git")) and error is None:
            lines = self.store.sync_bucket_lines(name, pending)
            files: dict[str, bytes | None] = {
                bucket_path(config.machine, b): ("\n".join(ls) + "\n").encode() if ls else None
                for b, ls in lines.items()
            }
            try:
                transport = transport_for(self.home, remote)
                transport.publish(config.machine, files, fresh=self._forgot)
                out["pushed_files"] = len(files)
                pending = set()
            except (TransportError, RecallnestError) as exc:
                error = str(exc)
        values["pending"] = json.dumps(sorted(pending))
        values["error"] = error or ""
        if error is None:
            values["last_sync"] = values["last_attempt"]
        self.store.sync_set_meta(name, values)
        out["ahead"] = len(pending)
        if error:
            out["error"] = error
        return out

    def _rewrite_log(
        self, remote: Remote, key: bytes, own: Sequence[Event], touched: set[str]
    ) -> set[int]:
        """Compact this machine's log for `remote` over the touched memories, adding the new
        events it carries; the buckets whose lines changed."""
        if not touched:
            return set()
        ids = sorted(touched)
        rows = self.store.sync_log_events(remote.name, ids)
        before: dict[str, list[str]] = {}
        old: dict[str, list[tuple[Event, str]]] = {}
        for mem_id, event_json, line in rows:
            before.setdefault(mem_id, []).append(line)
            old.setdefault(mem_id, []).append((_event_from_json(event_json), line))
        fresh = [e for e in own if self._carries(remote, e)]
        lines: dict[str, str] = {}
        for pairs in old.values():
            for event, line in pairs:
                lines[_event_json(event)] = line
        candidates = [e for pairs in old.values() for e, _ in pairs] + fresh
        kept = compact(candidates, self._registers)
        new_rows: list[tuple[int, str, str, str, str]] = []
        after: dict[str, list[str]] = {}
        for event in kept:
            text = _event_json(event)
            line = lines.get(text) or encode(event, key)
            new_rows.append((bucket_of(event.memory_id), event.memory_id, event.stamp, text, line))
            after.setdefault(event.memory_id, []).append(line)
        self.store.sync_log_replace(remote.name, ids, new_rows)
        return {bucket_of(i) for i in ids if before.get(i, []) != after.get(i, [])}

    def _carries(self, remote: Remote, event: Event) -> bool:
        if not remote.team:
            return True
        scope = event.fields.get("scope")
        if scope is None:
            scope = self._registers[event.memory_id].fields.get("scope", ("", None))[1]
        return remote.carries(scope)

    # ---- status -----------------------------------------------------------------------------

    def remove(self, name: str) -> dict[str, Any]:
        """Unbind remote `name`: drop it from the config, this machine's log and cursors for
        it, its key and its local git mirror. Memories stay; the remote itself is untouched."""
        with self._lock:
            config = self._config()
            remote = config.remote(name)
            config.remotes.remove(remote)
            config.save(self.home)
            lines = self.store.sync_log_size(name)
            self.store.sync_forget_remote(name)
            SyncConfig.key_path(self.home, name).unlink(missing_ok=True)
            mirror = self.home / "sync" / f"{name}.git"
            if remote.kind == "git" and mirror.is_dir():
                shutil.rmtree(mirror)
            return {"removed": name, "url": remote.url, "log_lines": lines}

    def status(self) -> dict[str, Any]:
        config = self.config
        if config is None:
            return {"configured": False}
        out: dict[str, Any] = {
            "configured": True,
            "machine": config.machine,
            "host": config.host,
            "user": config.user,
            "remotes": {},
        }
        for remote in config.remotes:
            meta = self.store.sync_meta(remote.name)
            out["remotes"][remote.name] = {
                "url": remote.url,
                "kind": remote.kind,
                "team": remote.team,
                "projects": list(remote.projects),
                "last_sync": meta.get("last_sync"),
                "last_attempt": meta.get("last_attempt"),
                "error": meta.get("error") or None,
                "ahead": len(json.loads(meta.get("pending", "[]"))),
                "rejected": json.loads(meta.get("rejected", "[]")),
                "log_lines": self.store.sync_log_size(remote.name),
            }
        return out
