"""Context compression on real section text (tests/fixtures) and on odd text: a few attributed, answering facts."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from crawlers.parse.extract import extract
from docbot.answering.compress import MAX_FACTS, MIN_FACTS, compress
from docbot.answering.generate import Passage
from docbot.answering.units import answerable, lead, units

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def sections(name: str) -> dict[str, Passage]:
    """Title → section of a fixture page, as a passage numbered 1."""
    page = extract((FIXTURES / name).read_text(encoding="utf-8"), f"http://docs.test/{name}")
    return {s.title: Passage(1, s.title, (page.title or "", s.title), s.text) for s in page.sections}


def said(question: str, *passages: Passage, close: Callable[[Sequence[str]], list[float]] | None = None) -> str:
    """The facts compression gives for ``question``, in answer order, as one text."""
    return "\n".join(f.text for f in compress(question, passages, similarity=close))


def renumber(passage: Passage, n: int) -> Passage:
    return Passage(n, passage.title, passage.path, passage.text)


API = sections("sphinx_api.html")
REBASE = sections("asciidoc_git_rebase.html")
UPLOADS = Passage(1, "Improving Uploads", ("Uploading Files", "Improving Uploads"), (
    "So how exactly does Flask handle uploads? Well it will store them in the webserver's memory if the files are "
    "reasonably small, otherwise in a temporary location. But how do you specify the maximum file size after which "
    "an upload is aborted? By default Flask will happily accept file uploads with an unlimited amount of memory, but "
    "you can limit that by setting the MAX_CONTENT_LENGTH config key:\n\n```\napp.config['MAX_CONTENT_LENGTH'] = "
    "16 * 1000 * 1000\n```\n\nThe code above will limit the maximum allowed payload to 16 megabytes. If a larger file "
    "is transmitted, Flask will raise a RequestEntityTooLarge exception."))


def test_what_an_api_entry_does_starts_with_its_description_not_its_signature() -> None:
    facts = compress("What does Flask.route do?", [API["Flask.route()"], renumber(API["flask.Flask"], 2)])
    assert facts[0].n == 1 and facts[0].text.startswith("Decorate a view function")
    assert all(not f.text.startswith("route(rule") and f.text != "Parameters:" for f in facts)
    # a field's label is read with its paragraph, never given alone
    assert any(f.text == "Parameters: rule (str) – The URL rule string." for f in facts)


def test_a_field_s_label_opens_the_paragraph_after_it() -> None:
    # jsoup's Javadoc (Document.OutputSettings.prettyPrint()): <dt>Returns:</dt><dd>if pretty printing is enabled.</dd>;
    # without its label the answer's last fact read "if pretty printing is enabled. [1]"
    text = ("Get if pretty printing is enabled. Default is true. If disabled, the HTML output methods will not "
            "re-format the output.\n\nReturns:\n\nif pretty printing is enabled.")
    assert [t for t, _, _ in units(text)][-1] == "Returns: if pretty printing is enabled."
    assert units("Returns:\n\n```\nx = 1\n```")[0] == ("Returns:", False, False)  # code is introduced, not opened
    assert units("It would try to load these files:\n\nfoo.js is first.")[0][0] == "It would try to load these files:"


def test_a_question_in_the_docs_is_never_a_fact_and_an_introduction_brings_its_code() -> None:
    facts = compress("How can I limit the size of uploaded files?", [UPLOADS])
    texts = " ".join(f.text for f in facts)
    assert "?" not in texts.replace("\n", " ")
    intro = next(f for f in facts if "MAX_CONTENT_LENGTH config key:" in f.text)
    assert intro.code and "app.config['MAX_CONTENT_LENGTH'] = 16 * 1000 * 1000" in intro.text


def test_a_question_the_asker_quotes_may_be_a_fact() -> None:
    quoted = "But how do you specify the maximum file size after which an upload is aborted?"
    assert answerable(quoted, UPLOADS, f"The docs ask '{quoted}' What is the answer?")
    assert not answerable(quoted, UPLOADS, "How can I limit the size of uploaded files?")


@pytest.mark.parametrize("text", ["Improving Uploads", "Next topic", "« Previous | Next »", "Parameters:",
                                  "route(rule, **options)", "New in version 0.6.",
                                  "In simple setups, this is /, but it might also be something else, like "
                                  "https://example.com/myapp/."])
def test_headings_navigation_signatures_labels_version_notes_and_prose_urls_are_never_facts(text: str) -> None:
    assert not answerable(text, UPLOADS, "How can I limit the size of uploaded files?")


SCRYPT = Passage(1, "crypto.scryptSync(password, salt, keylen[, options])", ("Crypto",), (
    # Node.js 18's API docs: each entry opens with its version history, a table read as records
    "History\n\nVersion Changes\n\n- v15.0.0 — The password and salt arguments can also be ArrayBuffer instances.\n"
    "- v12.8.0, v10.17.0 — The maxmem value can now be any safe integer.\n- v10.5.0 — Added in: v10.5.0\n\n"
    "Provides a synchronous scrypt implementation. Scrypt is a password-based key derivation function that is designed "
    "to be expensive computationally and memory-wise.\n\nThe salt should be as unique as possible. It is recommended "
    "that a salt is random and at least 16 bytes long."))


def test_a_version_history_row_is_a_fact_only_when_the_question_asks_about_versions() -> None:
    # the row led the answer to "How do I hash a password with a salt?" ("v12.8.0, v10.17.0 — The maxmem value…")
    how = said("How do I hash a password with a salt?", SCRYPT)
    assert "salt is random" in how and "v15.0.0" not in how and "v12.8.0" not in how
    when = said("Since which version can the password and salt be ArrayBuffer instances?", SCRYPT)
    assert "v15.0.0 — The password and salt arguments can also be ArrayBuffer instances." in when


BORROWS = Passage(1, "Mutable References", ("References and Borrowing", "Mutable References"), (
    # the Rust book (mdBook): given alone, the list's first item read as a rule of its own in the answer to "Can I have
    # two mutable references to the same value?"
    "Mutable references have one big restriction: if you have a mutable reference to a value, you can have no other "
    "references to that value.\n\nThe restriction preventing multiple mutable references to the same data at the same "
    "time allows for mutation but in a very controlled fashion.\n\nA data race is similar to a race condition and "
    "happens when these three behaviors occur:\n\n- Two or more pointers access the same data at the same time.\n- At "
    "least one of the pointers is being used to write to the data.\n- There's no mechanism being used to synchronize "
    "access to the data.\n\nData races cause undefined behavior and can be difficult to diagnose and fix."))


def test_a_list_item_is_given_after_the_sentence_introducing_its_list() -> None:
    facts = compress("Can two pointers access the same data at the same time?", [BORROWS])
    texts = [f.text for f in facts]
    assert not any(t.startswith("Two or more pointers") for t in texts)
    assert any(t.startswith("A data race is similar to a race condition and happens when these three behaviors occur: "
                            "Two or more pointers access the same data at the same time.") for t in texts)


THROTTLING = Passage(1, "Throttling", ("Throttling",), (
    "HTTP/1.1 420 Enhance Your Calm\n\nTwitter API rate limiting response\n\nThrottling is similar to permissions, in "
    "that it determines if a request should be authorized. Throttles indicate a temporary state, and are used to "
    "control the rate of requests that clients can make to an API.\n\nFor example, you might want to limit a user "
    "to a maximum of 60 requests per minute, and 1000 requests per day."))


def test_an_epigraph_and_its_attribution_never_open_a_fact() -> None:
    # "Twitter API rate limiting response" has five words and no sentence's end: taken as a fact, it was paired
    # with the next sentence and read as its start ("Twitter API rate limiting response Throttling is similar…")
    facts = compress("How can I limit how many requests per minute a user can make to my API?", [THROTTLING])
    assert facts and all(not f.text.startswith(("Twitter", "HTTP/1.1")) for f in facts)
    assert all("response Throttling" not in f.text for f in facts)
    assert any("60 requests per minute" in f.text for f in facts)


FACTORY = Passage(1, "Register with the Application", ("Define and Access the Database", "Register with the Application"), (
    "Can close_db be registered on the app object directly? However, since you're using a factory function, that "
    "instance isn't available when writing the functions. Instead, write a function that takes an application and "
    "does the registration.\n\nThe init_app function registers close_db and init_db_command with the application "
    "the factory made.\n\nIn addition to the application factory, Flask offers the app context for code that needs "
    "the application while it is set up."))


def test_a_sentence_leaning_on_the_one_before_comes_only_after_it() -> None:
    # "However, since you're using a factory function, that instance isn't available…" alone says nothing: which
    # instance? It comes right after the sentence it answers, or not at all; here that one is a question, never a
    # fact (the flask-017 answer read "However, …" alone, from its fourth source)
    facts = compress("Why is the instance not available when writing the functions with a factory function?", [FACTORY])
    assert facts and all(not f.text.startswith(("However", "Instead")) for f in facts), facts
    assert any("init_app function registers close_db" in f.text for f in facts)
    # "In addition to the application factory, …" stands on its own: a comma after the connective is what leans back
    facts = compress("Besides the application factory, what does Flask offer for code run while the app is set up?",
                     [FACTORY])
    assert any(f.text.startswith("In addition to the application factory") for f in facts)


XFAIL = Passage(1, "XFail: mark test functions as expected to fail", ("Skip and xfail", "XFail: mark test functions as expected to fail"), (
    "You can use the xfail marker to indicate that you expect a test to fail:\n\n```\n@pytest.mark.xfail\ndef "
    "test_function():\n    ...\n```\n\nThis test will run but no traceback will be reported when it fails. Instead, "
    "terminal reporting will list it in the \"expected to fail\" (XFAIL) or \"unexpectedly passing\" (XPASS) "
    "sections.\n\nAlternatively, you can also mark a test as XFAIL from within the test or its setup function "
    "imperatively:\n\n```\ndef test_function():\n    if not valid_config():\n        pytest.xfail(\"failing "
    "configuration (but should work)\")\n```\n\n```\ndef test_function2():\n    import slow_module\n\n    if "
    "slow_module.slow_function():\n        pytest.xfail(\"slow_module taking too long\")\n```\n\nThese two examples "
    "illustrate situations where you don't want to check for a condition at the module level, which is when a "
    "condition would otherwise be evaluated for marks.\n\nThis will make test_function XFAIL. Note that no other code "
    "is executed after the pytest.xfail() call, differently from the marker. That's because it is implemented "
    "internally by raising a known exception."))
XFAIL_IF = Passage(2, "condition parameter", ("XFail: mark test functions as expected to fail", "condition parameter"), (
    "If a test is only expected to fail under a certain condition, you can pass that condition as the first "
    "parameter:\n\n```\n@pytest.mark.xfail(sys.platform == \"win32\", reason=\"bug in a 3rd party library\")\ndef "
    "test_function():\n    ...\n```\n\nNote that you have to pass a reason as well (see the parameter description at "
    "pytest.mark.xfail)."))


def test_a_sentence_pointing_at_the_code_before_it_comes_only_with_that_code() -> None:
    # pytest's docs answered "How do I mark a test as expected to fail?" with "These two examples illustrate
    # situations…" and "This will make test_function XFAIL." and neither example: which examples, which test? Here
    # the model finds those two sentences closest to the question (as MiniLM did), and the two code blocks the answer
    # may hold go to the marker's examples
    def close(texts: Sequence[str]) -> list[float]:
        return [0.9 if t.startswith(("These two examples", "This will make")) else 0.1 for t in texts]

    given = said("How do I mark a test as expected to fail?", XFAIL, XFAIL_IF, close=close)
    assert "@pytest.mark.xfail\ndef test_function()" in given and "pytest.xfail(" not in given, given
    assert "These two examples" not in given and "This will make" not in given, given
    # "This test will run…" points at the marker's example, which is given: it follows it
    assert "This test will run but no traceback" in given
    # the code given, what points at it follows it
    assert "\nThe code above will limit the maximum allowed payload" in said("How can I limit the size of uploaded files?",
                                                                           UPLOADS)


# The first 2,500 characters of pytest 7's "@pytest.mark.parametrize: parametrizing test functions" as docbot indexed it
PARAMETRIZE = Passage(1, "@pytest.mark.parametrize: parametrizing test functions",
                      ("How to parametrize fixtures and test functions",
                       "@pytest.mark.parametrize: parametrizing test functions"),
                      (FIXTURES / "pytest_parametrize_section.txt").read_text(encoding="utf-8"))


def test_a_sentence_pointing_at_code_brings_that_code_first() -> None:
    # pytest's answer to "How do I run the same test with several different inputs?" was "Here, the @parametrize
    # decorator defines three different tuples…:" and the test run's output, without the test it speaks of
    given = said("How do I run the same test with several different inputs?", PARAMETRIZE)
    assert "def test_eval(test_input, expected)" in given, given
    if "Here, the @parametrize decorator" in given:
        assert given.index("def test_eval") < given.index("Here, the @parametrize decorator")


FLAKY = Passage(1, "Plugins", ("Flaky tests", "Pytest features", "Plugins"), (
    "Rerunning any failed tests can mitigate the negative effects of flaky tests by giving them additional chances to "
    "pass, so that the overall build does not fail. Several pytest plugins support this:\n\n- flaky\n- "
    "pytest-flakefinder - blog post\n- pytest-rerunfailures\n- pytest-replay: This plugin helps to reproduce locally "
    "crashes or flaky tests observed during CI runs.\n\nPlugins to deliberately randomize tests can help expose tests "
    "with state problems:\n\n- pytest-random-order\n- pytest-randomly"))


def test_a_list_of_bare_names_comes_with_its_introduction_never_alone() -> None:
    # pytest's answer named pytest-replay (the one item that is a sentence) and not the plugins that rerun tests: a
    # list's bare names ("pytest-rerunfailures") were labels, never read
    given = said("Is there a way to automatically rerun flaky tests?", FLAKY)
    assert "Several pytest plugins support this: flaky; pytest-flakefinder - blog post; pytest-rerunfailures" in given
    assert not {"flaky", "pytest-rerunfailures", "pytest-randomly"} & set(given.splitlines()), given


def test_three_to_seven_facts_from_at_most_three_sources_primary_first_within_the_budget() -> None:
    titles = ["INTERACTIVE MODE", "SPLITTING COMMITS", "NOTES", "DESCRIPTION", "REBASING MERGES"]
    passages = [renumber(REBASE[t], n) for n, t in enumerate(titles, start=1)]
    facts = compress("How do I split a commit into two commits during an interactive rebase?", passages)
    assert MIN_FACTS <= len(facts) <= MAX_FACTS
    assert len({f.n for f in facts}) <= 3
    assert min(facts, key=lambda f: f.rank).n == 1  # the primary source carries the first fact
    assert sum(len(f.text) for f in facts) <= 900 * 4
    small = compress("How do I split a commit into two commits during an interactive rebase?", passages,
                     token_budget=60)
    assert len(small) == 1  # the first fact always; no more past the budget


def test_facts_cover_different_parts_of_a_two_part_question() -> None:
    facts = compress("How can I limit the upload size, and what happens when a larger file is sent?", [UPLOADS], max_facts=2)
    texts = " ".join(f.text for f in facts)
    assert "MAX_CONTENT_LENGTH" in texts and "RequestEntityTooLarge" in texts


def test_a_question_that_matches_nothing_still_gets_the_primary_lead() -> None:
    facts = compress("zzz qqq xyzzy", [API["Flask.route()"], renumber(API["flask.Flask"], 2)])
    assert facts and facts[0].n == 1 and "Decorate a view function" in facts[0].text


@pytest.mark.parametrize("passage", [
    REBASE["SYNOPSIS"],  # only code
    Passage(1, "Converters", ("API", "Converters"), "string | int | float\n\naccepts text | integers | floats"),
    Passage(1, "アップロード", ("ガイド", "アップロード"), "ファイルのサイズはMAX_CONTENT_LENGTHで制限できます。大きすぎると413が返ります。"),
    Passage(1, "Empty", ("Empty",), "   "),
])
def test_odd_text_falls_back_to_the_section_lead_never_an_error(passage: Passage) -> None:
    facts = compress("How do I limit the upload size?", [passage])
    if passage.text.strip():
        assert facts and facts[0].n == 1 and facts[0].text.split()[0] in lead(passage)
    else:
        assert facts == []


def test_a_code_block_given_once_is_not_repeated_from_another_source() -> None:
    code = "```\ndef perform_create(self, serializer):\n    serializer.save(owner=self.request.user)\n```"
    first = Passage(1, "Associating snippets with users", ("Tutorial", "Associating"),
                    f"To set the owner when saving, add the following perform_create method:\n\n{code}")
    second = Passage(2, "Release notes", ("Notes", "3.8"),
                     f"To keep the old owner behaviour, pass the owner to save() in perform_create:\n\n{code}")
    facts = compress("How do I set the owner in perform_create when saving?", [first, second])
    assert sum("serializer.save(owner=self.request.user)" in f.text for f in facts) == 1


POOL = Passage(1, "Disconnect Handling - Pessimistic", ("Connection Pooling", "Disconnect Handling - Pessimistic"), (
    "The pessimistic approach refers to emitting a test statement on the SQL connection at the start of each "
    "connection pool checkout, to test that the database connection is still viable. Typically, this is a simple "
    "statement like SELECT 1. If the database server was restarted while the application was idle, every pooled "
    "connection is stale and the first query after the restart fails. Pessimistic testing of connections upon "
    "checkout is achievable by using the pre_ping argument of create_engine():\n\n"
    "```\nengine = create_engine(\"mysql://user:pw@host/db\", pool_pre_ping=True)\n```\n\n"
    "The pre ping feature emits the test statement each time a connection is checked out from the pool."))


def test_a_sentence_that_introduces_code_never_ends_a_fact_without_it() -> None:
    question = "After the database server restarts, how do I make the pool test connections before using them?"
    for budget_words in (1, 40, 200):  # whatever else fits, a fact ending in ':' carries what it introduces
        facts = compress(question, [POOL], token_budget=budget_words * 2)
        for fact in facts:
            first_paragraph = fact.text.split("\n\n")[0]
            assert not first_paragraph.rstrip().endswith(":") or fact.code, fact.text


def test_a_sentence_the_code_after_it_finishes_comes_with_its_code() -> None:
    # git's user manual: "…to the last committed state with" and then the command, no colon between them
    fixing = Passage(1, "Fixing mistakes", ("Git User Manual", "Fixing mistakes"), (
        "If you have messed up the working tree, but have not yet committed your mistake, you can return the entire "
        "working tree to the last committed state with\n\n```\n$ git restore --staged --worktree :/\n```\n\n"
        "If you make a commit that you later wish you had not, there are two ways to fix the problem."))
    assert units(fixing.text)[0][0].endswith("last committed state with:")
    facts = compress("How do I throw away the changes in my working tree?", [fixing])
    said = "\n".join(f.text for f in facts)
    assert "committed state with:" in said and "git restore --staged --worktree" in said
    # a label before code, and a sentence that ends as a sentence does, stay as they are
    assert units("Example\n\n```\nx = 1\n```")[0] == ("Example", False, False)
    assert units("Run it like this.\n\n```\nx\n```")[0] == ("Run it like this.", False, False)


def test_with_no_room_for_more_code_an_introduction_to_code_is_not_a_fact() -> None:
    code = "\n\n```\nx = 1\n```\n\n"
    text = (f"First, turn the feature on like this:{code}Second, configure the timeout like this:{code}"
            f"Third, enable the pool pre ping like this:\n\n```\npool_pre_ping = True\n```\n\n"
            "The pool pre ping feature tests each connection on checkout.")
    facts = compress("How do I enable the feature, the timeout and the pool pre ping?", [Passage(1, "Setup", ("Setup",), text)])
    assert sum(f.code for f in facts) <= 2
    assert all(f.code or not f.text.rstrip().endswith(":") for f in facts)


def test_the_sentence_that_asks_outweighs_the_story_told_before_it() -> None:
    logs = Passage(1, "Logging", ("Operations", "Logging"),
                   "Nightly Docker builds fill the disk quickly on busy servers. Log files rotate automatically when "
                   "you set a maximum size in the configuration.")
    story = "Our nightly Docker builds fill the disk. How do I rotate the log files automatically?"
    assert compress(story, [logs], max_facts=1)[0].text.startswith("Log files rotate")
    # Asked in one sentence, the same words weigh alike: the sentence sharing more of them comes first.
    assert compress("Nightly Docker builds fill the disk, rotate logs?", [logs], max_facts=1)[0].text.startswith("Nightly")


def test_an_option_s_description_says_which_option_it_describes() -> None:
    # git-rebase(1)'s OPTIONS: "--onto <newbase>" is a paragraph of its own before its description.
    texts = [text for text, code, _ in units(REBASE["OPTIONS"].text) if not code]
    assert texts[0].startswith("--onto <newbase>: Starting point at which to create the new commits.")
    assert not any(text == "--keep-base" for text in texts)
    facts = compress("How do I pick the commit my branch is replayed onto?", [REBASE["OPTIONS"]])
    assert any(f.text.startswith("--onto <newbase>: ") for f in facts)


def test_a_parameter_whose_description_is_its_own_paragraph_is_named_in_it() -> None:
    # Sphinx's field list: <li><p><strong>options</strong> – </p><p>optional sequence …</p></li> (SQLAlchemy's
    # Session.merge()); cut off from "options", the description does not say what it describes.
    text = ("Parameters\n\n- instance – Instance to be merged.\n- load –\n\nBoolean, when False, merge() skips "
            "history events.\n\n- options –\n\noptional sequence of loader options applied when the merge loads.")
    assert [t for t, _, _ in units(text)] == [
        "Parameters", "instance – Instance to be merged.", "load: Boolean, when False, merge() skips history events.",
        "options: optional sequence of loader options applied when the merge loads."]
    # an item that ends in a dash but says more than a name stays an item of its own
    assert units("- a long description that ends with a dash –\n\nNext.")[0] == (
        "a long description that ends with a dash –", False, True)


def test_terms_before_code_and_signatures_stay_as_they_are() -> None:
    text = "Note\n\n```\nx = 1\n```\n\nroute(rule, **options)\n\nDecorate a view function."
    assert units(text) == [("Note", False, False), ("```\nx = 1\n```", True, False),
                           ("route(rule, **options)", False, False), ("Decorate a view function.", False, False)]
    # A table's cells (more short lines in a row than an option has names) and what a colon introduces stay apart.
    cells = "History\n\nVersion\n\nChanges\n\nv6.0.0\n\nPassing a non-string throws now."
    assert [t for t, _, _ in units(cells)][-1] == "Passing a non-string throws now."
    sourced = "Source code: Lib/asyncio/coroutines.py\n\nCoroutines are the preferred way."
    assert [t for t, _, _ in units(sourced)] == ["Source code: Lib/asyncio/coroutines.py", "Coroutines are the preferred way."]
    listed = "It would try to load:\n\n/usr/lib/node.js\n\nThen the next directory."
    assert [t for t, _, _ in units(listed)] == ["It would try to load:", "/usr/lib/node.js", "Then the next directory."]


SESSIONS = Passage(1, "Session Objects", ("Advanced Usage", "Session Objects"), (
    "The Session object allows you to persist certain parameters across requests. It also keeps a pool of "
    "connections to the same host. Method-level parameters are never kept across requests, even if using a "
    "session. A session can be used as a context manager."))


def test_a_sentence_close_in_meaning_is_chosen_though_it_shares_few_words() -> None:
    question = "I passed cookies= on one call of my Session, but the next call doesn't send them. Why?"
    meant = "Method-level parameters are never kept across requests, even if using a session."
    asked: list[list[str]] = []

    def similarity(texts):
        asked.append(list(texts))
        return [0.9 if text == meant else 0.1 for text in texts]

    by_words = compress(question, [SESSIONS], max_facts=1)
    assert not any(meant in f.text for f in by_words)
    by_meaning = compress(question, [SESSIONS], max_facts=1, similarity=similarity)
    assert meant in by_meaning[0].text
    assert asked and meant in asked[0]


def test_an_embedding_fault_leaves_the_words_to_decide() -> None:
    def broken(texts):
        raise RuntimeError("model unavailable")

    question = "I passed cookies= on one call of my Session, but the next call doesn't send them. Why?"
    assert compress(question, [SESSIONS], similarity=broken) == compress(question, [SESSIONS])


def test_list_items_that_end_their_own_sentences_are_not_joined_by_semicolons() -> None:
    # Python-Markdown's extension API (MkDocs): "… is the inherited constructor. You do not need to implement your
    # own.; pattern is the regular expression string …"
    page = extract(b"""<html><head><title>Writing Extensions</title></head><body>
    <h3 id="inlineprocessors">Inline Processors</h3>
    <p>Inline processors inherit from <code>InlineProcessor</code>, are initialized, and implement <code>handleMatch</code>:</p>
    <ul>
    <li>
    <p><code>__init__(self, pattern, md=None)</code> is the inherited constructor.  You do not need to implement your own.</p>
    <ul>
    <li><code>pattern</code> is the regular expression string that must match the code block in order for the <code>handleMatch</code> method
      to be called.</li>
    <li><code>md</code>, an optional parameter, is a pointer to the instance of <code>markdown.Markdown</code></li>
    </ul>
    </li>
    </ul></body></html>""", "http://docs.test/extensions/api.html")
    section = next(s for s in page.sections if s.anchor == "inlineprocessors")
    given = said("What must an inline processor implement?", Passage(1, section.title, section.path, section.text))
    assert "You do not need to implement your own. pattern is the regular expression string" in given, given
    assert "method to be called. md, an optional parameter" in given, given  # bare names keep "; " (FLAKY above)


def test_a_paragraph_without_a_sentence_s_end_does_not_run_into_the_next() -> None:
    # jsoup's Javadoc (Parser.parseXmlFragment): each parameter is a paragraph of its own, the first without a full
    # stop. Paired with a space, they read "… the fragment of XML to parse baseUri - base URI of document …".
    text = ("Parse a fragment of XML into a list of nodes.\n\nParameters:\n\nfragmentXml - the fragment of XML to parse"
            "\n\nbaseUri - base URI of document (i.e. original fetch location), for resolving relative URLs.\n\n"
            "Returns:\n\nlist of nodes parsed from the input XML.")
    passage = Passage(1, "parseXmlFragment(String, String)", ("Class Parser", "parseXmlFragment(String, String)"), text)
    given = said("What are the fragmentXml and baseUri parameters of parseXmlFragment?", passage)
    assert "fragmentXml - the fragment of XML to parse; baseUri - base URI of document" in given, given
    assert "parse baseUri" not in given, given
