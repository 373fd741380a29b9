"""A JSON or YAML sample beside prose (an API reference's response sample) is code in the answer, never a sentence
stated as fact; prose that quotes a little JSON stays prose. Texts as Redoc's Docker Engine API reads."""

from __future__ import annotations

import re

import pytest

from docbot.answering.compress import compress
from docbot.answering.extractive import ExtractiveGenerator
from docbot.answering.generate import Passage
from docbot.answering.samples import is_sample
from docbot.answering.units import answerable, units

QUESTION = "how do I list running containers"
LIST = Passage(1, "List containers", ("Docker Engine API (1.33)", "List containers"), (
    "Returns a list of containers. For details on the format, see the inspect endpoint.\n\n"
    "Note that it uses a different, smaller representation of a container than inspecting a single container. "
    "For example, the list of linked containers is not propagated ."))
PARAMETERS = Passage(2, "query Parameters", ("Docker Engine API (1.33)", "List containers", "query Parameters"), (
    "all\n\nboolean\n\nDefault: false\n\n"
    "Return all containers. By default, only running containers are shown.\n\n"
    "filters\n\nstring\n\n"
    'Filters to process on the container list, encoded as JSON (a map[string][]string). For example, '
    '{"status": ["paused"]} will only return paused containers.'))
# The response sample as an index crawled before <code> laid out in elements was a block holds it: one line of prose.
FLAT = ('[{"Command": "echo 1","Created": 1367854155,"HostConfig": {"NetworkMode": "default"},"Id": "8dfafdbc3a40",'
        '"Image": "ubuntu:latest","Labels": {"com.example.vendor": "Acme","com.example.version": "1.0"},'
        '"Names": ["/boring_feynman"],"Ports": [{"PrivatePort": 2222,"PublicPort": 3333,"Type": "tcp"}],'
        '"State": "running","Status": "Up 2 hours. Healthy"},{"Command": "echo 222222","Id": "9cd87474be90",'
        '"Names": ["/coolName"],"State": "running","Status": "Up 5 minutes"}]')
# The same sample laid out in plain <div>s, a member a paragraph, and cut off as a page may show it.
DIVS = '{\n\n"Id": "8dfafdbc3a40",\n\n"Names": [\n\n"/boring_feynman"\n\n],\n\n"State": "running",\n\n' \
       '"Status": "Up 2 hours",\n\n"Command": "echo running containers are listed here"\n\n}'
YAML = ("Id: 8dfafdbc3a40\nNames:\n  - /boring_feynman\nState: running\nStatus: Up 2 hours\n"
        "NetworkSettings:\n  Networks:\n    bridge:\n      IPAddress: 172.17.0.2")


def samples(sample: str) -> Passage:
    return Passage(3, "Response samples", ("Docker Engine API (1.33)", "List containers", "Response samples"),
                   f"- 200\n- 400\n- 500\n\nContent type\n\napplication/json\n\n{sample}")


def prose(answer: str) -> str:
    """The answer without its code blocks."""
    return re.sub(r"```.*?```", "", answer, flags=re.S)


@pytest.mark.parametrize("sample", [FLAT, DIVS, YAML], ids=["one-line", "a-member-a-paragraph", "yaml"])
def test_a_response_sample_is_never_stated_as_a_fact(sample: str) -> None:
    answer = ExtractiveGenerator().generate(QUESTION, [LIST, PARAMETERS, samples(sample)])
    assert "Returns a list of containers. [1]" in answer
    assert "only running containers are shown" in answer
    said = prose(answer)
    for value in ("8dfafdbc3a40", "Up 2 hours", "boring_feynman", '"State"', "State: running"):
        assert value not in said, answer
    for fact in compress(QUESTION, [LIST, PARAMETERS, samples(sample)]):
        assert fact.code or not is_sample(fact.text), fact


def test_a_sample_is_one_code_block_laid_out_a_line_a_member() -> None:
    blocks = [text for text, code, _ in units(samples(FLAT).text) if code]
    assert len(blocks) == 1 and blocks[0].startswith('```\n[\n  {\n    "Command": "echo 1",\n')
    assert '    "Status": "Up 2 hours. Healthy"\n' in blocks[0]  # a sample's sentence end splits no sentence
    (paragraphs,) = [text for text, code, _ in units(samples(DIVS).text) if code]
    assert paragraphs.splitlines()[1:5] == ["{", '  "Id": "8dfafdbc3a40",', '  "Names": [', '    "/boring_feynman"']
    assert [text for text, code, _ in units(samples(DIVS).text) if not code][-1] == "application/json"


def test_a_sample_inside_a_sentence_is_no_fact_but_prose_quoting_json_is() -> None:
    example = 'Example response: {"Id": "8dfafdbc3a40", "Names": ["/boring_feynman"], "Status": "Up 2 hours"}'
    assert not answerable(example, LIST)
    for text in ('Limit read rate (bytes per second) from a device, in the form [{"Path": "device_path", "Rate": rate}].',
                 'For example, {"status": ["paused"]} will only return paused containers.',
                 'Set "debug": true in the settings file to log every request.',
                 "Source code: Lib/json/__init__.py",
                 "[1]"):
        assert not is_sample(text), text
    assert answerable(
        'Limit read rate (bytes per second) from a device, in the form [{"Path": "device_path", "Rate": rate}].', LIST)


def test_prose_lists_and_labels_are_not_yaml() -> None:
    assert not is_sample("- Options:\n  - verbose: prints more\n  - quiet: prints less")
    assert not is_sample("Default: None\nType: str")
    assert not is_sample("Timeout:\n  Seconds to wait for the server before giving up on the request.")
    assert is_sample(YAML)
