"""Data samples in prose: a JSON or YAML sample (an API reference's response) is code, never a sentence.

Pure. A page may show a sample outside ``<pre>`` (in an index crawled before ``<code>`` laid out in elements was read
as a block of code, or in plain ``<div>`` elements), so it reaches answering as paragraphs whose "sentences"
(``"Status": "Up 2 hours"``) look like facts. :func:`is_sample` tells such a paragraph or sentence from prose that
quotes a little JSON ("in the form [{"Path": "device_path", "Rate": rate}]."); :func:`fence_samples` makes each run
of sample paragraphs one code block, as :mod:`docbot.answering.units` reads code.
"""

from __future__ import annotations

import json
import re

MIN_KEYS = 2  # quoted keys ("Id": …) in a run of text that is a sample rather than a sentence about one
MAX_BARE_WORDS = 2  # words outside quotes (true, false, null aside) a sample may hold: "Example response: {…}"
_KEY = re.compile(r'"[^"\n]{1,80}"\s*:')
_QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_WORD = re.compile(r"[^\W\d_]{2,}")
_LITERALS = frozenset({"true", "false", "null"})
_VALUE = r'(?:"(?:[^"\\\n]|\\.)*"|-?\d[\d.eE+-]*|true|false|null|[\[{](?:\s*[\]}])?)'
# one member of a JSON object laid out a line a member: "Status": "Up 2 hours",
_MEMBER = re.compile(rf'"[^"\n]{{1,80}}"\s*:\s*{_VALUE}\s*,?')
# a line that goes on with a sample, but starts none: one that only opens or closes ("}," or "]"), an array's element
_GOES_ON = re.compile(rf"[\[\]{{}},\s]+|{_VALUE}\s*,?")
# YAML: a mapping's entry ("Id: 8dfafdbc3a40", "Names:") or a sequence's item ("- /boring_feynman")
_YAML_ENTRY = re.compile(r"(?P<indent>\s*)(?:[\w.\-/]+|\"[^\"\n]+\"|'[^'\n]+'):(?:\s+(?P<value>\S.*))?")
_YAML_ITEM = re.compile(r"(?P<indent>\s*)-\s+\S.*")
MAX_YAML_VALUE_WORDS = 4  # longer values are prose ("Default: the user's home directory, or / when unset.")


def _json(text: str) -> bool:
    if text[:1] not in "[{":
        return False
    try:
        return isinstance(json.loads(text), (dict, list)) and bool(_KEY.search(text))  # not a footnote's "[1]"
    except ValueError:
        return False


def _json_run(flat: str) -> bool:
    """Keys and values with next to no words outside quotes: a sample, whole or cut off ("…", a sentence split)."""
    if len(_KEY.findall(flat)) < MIN_KEYS:
        return False
    bare = [w for w in _WORD.findall(_QUOTED.sub(" ", flat)) if w.lower() not in _LITERALS]
    return len(bare) <= MAX_BARE_WORDS


def _yaml(block: str) -> bool:
    """Lines of a YAML mapping, nested at least once ("NetworkSettings:" over indented entries); a list of prose
    (the crawler writes items as "- …" at the margin) or "label: value" lines at the margin are not."""
    lines = [line.rstrip() for line in block.splitlines() if line.strip()]
    first = _YAML_ENTRY.fullmatch(lines[0]) if len(lines) >= 2 else None
    if first is None or first["indent"]:
        return False
    for line in lines:
        entry = _YAML_ENTRY.fullmatch(line) or _YAML_ITEM.fullmatch(line)
        value = entry.groupdict().get("value") if entry else None
        if entry is None or (value and (len(value.split()) > MAX_YAML_VALUE_WORDS or value.endswith("."))):
            return False
    return any(line[:1].isspace() for line in lines)


def is_sample(text: str) -> bool:
    """Whether ``text`` (a paragraph or a sentence) is a JSON or YAML sample rather than prose."""
    flat = " ".join(text.split())
    if not flat:
        return False
    if _json(flat) or _json_run(flat) or _yaml(text):
        return True
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return any(_MEMBER.fullmatch(line) for line in lines) and all(
        _MEMBER.fullmatch(line) or _GOES_ON.fullmatch(line) for line in lines)


def as_code(block: str) -> str:
    """The sample fenced as a code block; JSON without indents (flattened to a line, or a line a paragraph) laid out
    again, a line a member."""
    text = block.strip("\n")
    if not any(line[:1].isspace() for line in text.splitlines()) and _json(text.strip()):
        text = json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    return f"```\n{text}\n```"


def fence_samples(blocks: list[str]) -> list[str]:
    """The blocks with each run of sample paragraphs (a sample laid out a paragraph a line, its lone brackets and
    array elements included) fenced as one code block; fenced blocks and prose as they were."""
    out: list[str] = []
    run: list[str] = []
    sampled = False  # the run holds a sample, not only brackets and array elements

    def close() -> None:
        nonlocal sampled
        if sampled:
            out.append(as_code("\n".join(run)))
        else:
            out.extend(run)
        run.clear()
        sampled = False

    for block in blocks:
        fenced = block.lstrip().startswith(("```", "~~~"))
        sample = not fenced and is_sample(block)
        if sample or (not fenced and _GOES_ON.fullmatch(block.strip())):
            run.append(block)
            sampled = sampled or sample
            continue
        close()
        out.append(block)
    close()
    return out
