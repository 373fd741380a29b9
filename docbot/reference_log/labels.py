"""Labels: questions paired with the section that answers them, or with "not covered" (:mod:`docbot.labels`)."""

from __future__ import annotations

import time
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from sqlalchemy import ColumnElement, Row, bindparam, delete, select, true, update

from docbot.labels import Label, LabelSource, StoredLabel
from docbot.reference_log.engine import Store
from docbot.reference_log.schema import labels


def _row(label: Label, now: float) -> dict[str, Any]:
    return {"site": label.site, "question": label.question, "url": label.url, "polarity": label.polarity,
            "source": str(label.source), "user_id": label.user_id, "channel": label.channel,
            "answer_id": label.answer_id, "weight": label.weight, "curator": label.curator,
            "created_at": label.created_at or now}


def _stored(row: Row[Any]) -> StoredLabel:
    return StoredLabel(int(row.id), Label(
        site=row.site, question=row.question, url=row.url, polarity=int(row.polarity), source=LabelSource(row.source),
        user_id=row.user_id, channel=row.channel, answer_id=row.answer_id, weight=float(row.weight),
        curator=bool(row.curator), created_at=float(row.created_at)))


def _selected(site: str | None, users: Sequence[str] | None, ids: Sequence[int] | None = None) -> ColumnElement[bool]:
    """The labels of ``site``, of ``users`` and with ``ids``: each given filter narrows; none given selects all."""
    where: ColumnElement[bool] = true()
    if site is not None:
        where = where & (labels.c.site == site)
    if users is not None:
        where = where & labels.c.user_id.in_(list(users))
    if ids is not None:
        where = where & labels.c.id.in_(list(ids))
    return where


def _follow(url: str, renamed: Mapping[str, str]) -> str:
    """Where ``url`` ended up through a chain of renames (a cycle stops where it began again)."""
    seen = {url}
    while url in renamed and renamed[url] not in seen:
        url = renamed[url]
        seen.add(url)
    return url


class LabelStore(Store):
    """Adding, reading, removing labels, and carrying them through a refresh that renamed or removed sections."""

    def add_labels(self, given: Sequence[Label]) -> list[int]:
        """Store these labels, all or none, in one transaction; returns their ids in the same order."""
        if not given:
            return []
        now = time.time()
        with self._write() as conn:
            inserted = conn.execute(labels.insert().returning(labels.c.id, sort_by_parameter_order=True),
                                    [_row(label, now) for label in given])
            return [int(i) for i in inserted.scalars()]

    def labels(self, site: str | None = None, users: Sequence[str] | None = None,
               since: float | None = None) -> list[StoredLabel]:
        """The labels of ``site`` (every site when None), given by ``users`` (anyone when None), at or after
        ``since``, oldest first."""
        where = _selected(site, users)
        if since is not None:
            where = where & (labels.c.created_at >= since)
        with self._read() as conn:
            rows = conn.execute(select(labels).where(where).order_by(labels.c.created_at, labels.c.id)).all()
        return [_stored(row) for row in rows]

    def remove_labels(self, site: str | None = None, users: Sequence[str] | None = None,
                      ids: Sequence[int] | None = None) -> int:
        """Delete the labels every given filter selects (all labels when none is given); returns how many."""
        with self._write() as conn:
            return int(conn.execute(delete(labels).where(_selected(site, users, ids))).rowcount)

    def relabel(self, site: str, renamed: Mapping[str, str], gone: Collection[str]) -> tuple[int, int]:
        """After a refresh of ``site``: point labels at the deep URLs their sections were renamed to (old → new,
        followed through chains) and delete the labels of sections that are ``gone``; returns (rewritten, dropped)."""
        gone = set(gone)
        with self._write() as conn:
            rows = conn.execute(select(labels.c.id, labels.c.url)
                                .where(labels.c.site == site, labels.c.url.is_not(None))).all()
            moves, drops = [], []
            for row in rows:
                now = _follow(row.url, renamed)
                if now in gone:
                    drops.append(int(row.id))
                elif now != row.url:
                    moves.append({"label": int(row.id), "new_url": now})
            if moves:
                conn.execute(update(labels).where(labels.c.id == bindparam("label"))
                             .values(url=bindparam("new_url")), moves)
            if drops:
                conn.execute(delete(labels).where(labels.c.id.in_(drops)))
        return len(moves), len(drops)
