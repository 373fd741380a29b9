"""Index: Chroma round-trip, BM25, incremental re-indexing, model mismatch, missing index."""

from __future__ import annotations

import json
from pathlib import Path

import chromadb
import pytest
from chromadb.config import Settings as ChromaSettings

from crawlers.model import AnchorMap, Page, SectionText
from docbot.errors import EmbeddingMismatch, IndexMissing
from docbot.indexing.embed import HashEmbedder
from docbot.indexing.generations import Generations
from docbot.indexing.index import Index
from docbot.text.words import tokenize
from docbot.updating import index_texts

BASE = "http://127.0.0.1:8000/"


def site_fixture(extra_page: bool = True, cookie_text: str = "Only send the session cookie over HTTPS.") -> tuple[list[SectionText], AnchorMap]:
    config, api, tut = BASE + "config.html", BASE + "api.html", BASE + "tutorial.html"
    pages = {
        config: Page(config, "Configuration", anchors=("builtin-values", "SESSION_COOKIE_SECURE", "TESTING")),
        api: Page(api, "API", "API reference", anchors=("flask.Flask.route",)),
    }
    sections = [
        SectionText("demo", config, "builtin-values", "Builtin Values", 1, ("Configuration", "Builtin Values"), "Guides",
                    "Flask reads these configuration values."),
        SectionText("demo", config, "SESSION_COOKIE_SECURE", "SESSION_COOKIE_SECURE", 2,
                    ("Configuration", "Builtin Values", "SESSION_COOKIE_SECURE"), "Guides", cookie_text, "api"),
        SectionText("demo", config, "TESTING", "TESTING", 2, ("Configuration", "Builtin Values", "TESTING"), "Guides",
                    "Enable testing mode so exceptions propagate.", "api"),
        SectionText("demo", api, "flask.Flask.route", "route", 1, ("API", "flask.Flask.route"), "API reference",
                    "A decorator that registers a view function for a URL rule.", "api"),
    ]
    if extra_page:
        pages[tut] = Page(tut, "Tutorial", "Tutorials", anchors=("templates",))
        sections.append(SectionText("demo", tut, "templates", "Templates", 1, ("Tutorial", "Templates"), "Tutorials",
                                    "Render Jinja templates with render_template."))
    return sections, AnchorMap("demo", BASE, pages=pages)


def current_manifest(data_dir: Path) -> bytes:
    """The chunk manifest of the site's current generation."""
    current = Generations(data_dir, "demo").current()
    assert current is not None
    return current.chunks_file.read_bytes()


def client(tmp_path: Path) -> chromadb.ClientAPI:
    return chromadb.PersistentClient(path=str(tmp_path / "chroma"), settings=ChromaSettings(anonymized_telemetry=False))


def test_round_trip_dense_and_lexical(tmp_path: Path) -> None:
    embedder = HashEmbedder()
    index = Index.open(tmp_path, embedder, client=client(tmp_path))
    sections, amap = site_fixture()
    stats = index_texts(index, "demo", sections, amap)
    assert stats.to_json()["chunks"] == 5 and stats.embedded == 5 and stats.deleted == 0
    assert set(stats.to_json()) == {"site", "generation", "chunks", "embedded", "reused", "deleted", "seconds"}
    assert index.sites() == ["demo"]

    top, score = index.dense("SESSION_COOKIE_SECURE cookie HTTPS", k=3)[0]
    assert top.deep_url == BASE + "config.html#SESSION_COOKIE_SECURE" and 0 < score <= 1.0001
    lex = index.lexical("SESSION_COOKIE_SECURE", k=3)
    assert lex[0][0].anchor == "SESSION_COOKIE_SECURE"
    assert index.lexical("Flask.route")[0][0].anchor == "flask.Flask.route"
    assert index.lexical("Configuration TESTING")[0][0].title == "TESTING"  # parent title is searchable
    assert index.lexical("zzzz unknown") == []
    assert index.get(top.id) == top and index.get("nope") is None
    assert len(index.chunks("demo")) == 5

    # A question is embedded once, however many retrievals (and compression) ask for its vector.
    asked: list[str] = []

    class Counting(HashEmbedder):
        def embed_query(self, text: str) -> list[float]:
            asked.append(text)
            return super().embed_query(text)

    counting = Index.open(tmp_path, Counting(), client=client(tmp_path))
    assert counting.dense("SESSION_COOKIE_SECURE cookie HTTPS", k=3)[0][0] == top
    assert counting.dense("SESSION_COOKIE_SECURE cookie HTTPS", k=1)[0][0] == top
    assert counting.query_vector("SESSION_COOKIE_SECURE cookie HTTPS") == embedder.embed_query("SESSION_COOKIE_SECURE cookie HTTPS")
    assert asked == ["SESSION_COOKIE_SECURE cookie HTTPS"]

    # A fresh Index over the same data dir serves the same results (persistence).
    again = Index.open(tmp_path, embedder, client=client(tmp_path))
    assert again.dense("SESSION_COOKIE_SECURE cookie HTTPS", k=1)[0][0].id == top.id
    assert again.lexical("render_template")[0][0].title == "Templates"


def test_incremental_reindex(tmp_path: Path) -> None:
    embedder = HashEmbedder()
    index = Index.open(tmp_path, embedder, client=client(tmp_path))
    sections, amap = site_fixture()
    index_texts(index, "demo", sections, amap)

    unchanged = index_texts(index, "demo", sections, amap)
    assert (unchanged.embedded, unchanged.reused, unchanged.deleted) == (0, 5, 0)

    edited, amap2 = site_fixture(cookie_text="Send the cookie only over HTTPS connections.")
    calls = embedder.calls
    stats = index_texts(index, "demo", edited, amap2)
    assert (stats.embedded, stats.deleted) == (1, 0) and embedder.calls == calls + 1
    assert "HTTPS connections" in index.lexical("connections")[0][0].text

    fewer, amap3 = site_fixture(extra_page=False, cookie_text="Send the cookie only over HTTPS connections.")
    removed = index_texts(index, "demo", fewer, amap3)
    assert (removed.chunks, removed.embedded, removed.reused, removed.deleted) == (4, 0, 4, 1)
    assert all("tutorial" not in c.url for c, _ in index.dense("templates", k=10))
    assert index.lexical("render_template") == []
    # Each generation has its collection; the current one and the one before it are kept (a reader may be on it).
    assert client(tmp_path).get_collection(f"docbot_demo_g{removed.generation}").count() == 4
    names = sorted(str(getattr(c, "name", c)) for c in client(tmp_path).list_collections())
    assert names == [f"docbot_demo_g{stats.generation}", f"docbot_demo_g{removed.generation}"]


def test_interrupted_run_keeps_previous_manifest(tmp_path: Path) -> None:
    class Boom(HashEmbedder):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            raise KeyboardInterrupt

    sections, amap = site_fixture()
    index_texts(Index.open(tmp_path, HashEmbedder(), client=client(tmp_path)), "demo", sections, amap)
    before = current_manifest(tmp_path)
    edited, amap2 = site_fixture(cookie_text="changed text")
    with pytest.raises(KeyboardInterrupt):
        index_texts(Index.open(tmp_path, Boom(), client=client(tmp_path)), "demo", edited, amap2)
    assert current_manifest(tmp_path) == before
    assert len(client(tmp_path).list_collections()) == 1  # the failed generation's collection is gone
    index = Index.open(tmp_path, HashEmbedder(), client=client(tmp_path))
    assert index.lexical("SESSION_COOKIE_SECURE")[0][0].anchor == "SESSION_COOKIE_SECURE"
    assert index_texts(index, "demo", edited, amap2).embedded == 1


def test_model_mismatch_says_rebuild(tmp_path: Path) -> None:
    sections, amap = site_fixture()
    index_texts(Index.open(tmp_path, HashEmbedder(name="model-a"), client=client(tmp_path)), "demo", sections, amap)
    other = Index.open(tmp_path, HashEmbedder(name="model-b"), client=client(tmp_path))
    with pytest.raises(EmbeddingMismatch, match=r"docbot index --site demo --rebuild"):
        other.dense("cookie")
    with pytest.raises(EmbeddingMismatch):
        index_texts(other, "demo", sections, amap)
    stats = index_texts(other, "demo", sections, amap, rebuild=True)
    assert stats.embedded == 5
    assert json.loads(current_manifest(tmp_path))["embedding_model"] == "model-b"
    assert other.dense("cookie HTTPS", k=1)


def test_missing_site_names_the_command(tmp_path: Path) -> None:
    index = Index.open(tmp_path, HashEmbedder(), client=client(tmp_path))
    with pytest.raises(IndexMissing, match=r"run `docbot index --site flask`"):
        index.dense("x", sites=["flask"])
    with pytest.raises(IndexMissing):
        index.chunks("flask")
    assert index.dense("x") == [] and index.sites() == []


def test_ephemeral_client_round_trip(tmp_path: Path) -> None:
    index = Index.open(tmp_path, HashEmbedder(), client=chromadb.EphemeralClient(settings=ChromaSettings(anonymized_telemetry=False)))
    sections, amap = site_fixture()
    index_texts(index, "eph", [SectionText("eph", *_rest(s)) for s in sections], amap, rebuild=True)
    assert index.dense("templates render", k=1, sites=["eph"])[0][0].site == "eph"


def _rest(s: SectionText) -> tuple:
    return (s.url, s.anchor, s.title, s.level, s.path, s.source_type, s.text, s.kind)


def test_tokenizer_keeps_api_names_whole() -> None:
    tokens = tokenize("Use flask.Flask.route() and SESSION_COOKIE_SECURE in the config.")
    assert {"flask.flask.route", "flask.route", "session_cookie_secure"} <= set(tokens)
    assert set(tokenize("session cookie secure")) <= set(tokens)  # the words of a name, stemmed like any word
    assert "the" not in tokens and "in" not in tokens


def test_tokenizer_meets_the_docs_words_in_other_forms() -> None:
    for asked, written in (("ignored", "ignore"), ("negation", "negates"), ("retrying", "retries"),
                           ("tracked files", "tracking file")):
        assert set(tokenize(asked)) == set(tokenize(written)), (asked, written)
    assert tokenize("HTTP2 utf8") == ["http2", "utf8"]  # words with digits stay as written


def test_tokenizer_keeps_command_line_options_whole() -> None:
    # "What does the -x flag do?" was refused on pytest's docs: its words were "x" and "flag"
    assert "-x" in tokenize("What does the -x flag do?")
    assert "-x" in tokenize("  -x, --exitfirst   exit instantly on first error") and "--exitfirst" in tokenize("-x, --exitfirst")
    assert "--force-with-lease" in tokenize("git push --force-with-lease")
    assert "-X" in tokenize("git clean -X") and "-x" not in tokenize("git clean -X")  # two different options
    # not inside a hyphenated word, a number or a Markdown list
    assert not [t for t in tokenize("a well-known e-mail, -1, x-forwarded-for - item -- end") if t.startswith("-")]


def test_a_bm25_index_built_by_another_tokenizer_is_rebuilt(tmp_path: Path) -> None:
    import json

    from docbot.indexing.bm25 import META_FILE, Lexical

    Lexical.build(["a"], ["session cookie"], "h").save(tmp_path / "bm25")
    assert Lexical.load(tmp_path / "bm25") is not None
    meta = json.loads((tmp_path / "bm25" / META_FILE).read_text())
    (tmp_path / "bm25" / META_FILE).write_text(json.dumps({**meta, "tokenizer": "words/1"}))
    assert Lexical.load(tmp_path / "bm25") is None  # the index then rebuilds it from the manifest


def test_progress_and_collection_records_model(tmp_path: Path) -> None:
    seen: list[tuple[int, int]] = []
    index = Index.open(tmp_path, HashEmbedder(name="model-x"), client=client(tmp_path))
    sections, amap = site_fixture()
    index_texts(index, "demo", sections, amap, progress=lambda done, total: seen.append((done, total)))
    assert seen[0] == (0, 5) and seen[-1] == (5, 5)
    col = client(tmp_path).get_collection("docbot_demo_g1")
    assert col.metadata["embedding_model"] == "model-x" and col.metadata["dim"] == 512
    held = col.get(include=["metadatas"])
    assert {m["deep_url"] for m in held["metadatas"]} == {c.deep_url for c in index.chunks("demo")}


def test_batches_are_stored_while_the_next_is_embedded_and_a_failed_write_commits_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import docbot.indexing.index as index_module

    monkeypatch.setattr(index_module, "EMBED_BATCH", 2)  # five chunks: three batches, two of them overlapped
    seen: list[tuple[int, int]] = []
    sections, amap = site_fixture()
    index = Index.open(tmp_path, HashEmbedder(), client=client(tmp_path))
    index_texts(index, "demo", sections, amap, progress=lambda done, total: seen.append((done, total)))
    assert seen == [(0, 5), (2, 5), (4, 5), (5, 5)]
    assert client(tmp_path).get_collection("docbot_demo_g1").count() == 5
    before = current_manifest(tmp_path)

    failing = client(tmp_path)
    real_create = failing.create_collection

    def collection_whose_writes_fail(*args: object, **kwargs: object) -> object:
        col = real_create(*args, **kwargs)

        def upsert(**_: object) -> None:
            raise OSError(28, "No space left on device")

        col.upsert = upsert  # type: ignore[method-assign]
        return col

    monkeypatch.setattr(failing, "create_collection", collection_whose_writes_fail)
    edited, amap2 = site_fixture(cookie_text="changed text")
    with pytest.raises(OSError, match="No space left"):
        index_texts(Index.open(tmp_path, HashEmbedder(), client=failing), "demo", edited, amap2)
    assert current_manifest(tmp_path) == before
    assert sorted(p.name for p in (tmp_path / "sites" / "demo" / "generations").iterdir()) == ["1"]  # nothing staged
    assert index_texts(Index.open(tmp_path, HashEmbedder(), client=client(tmp_path)), "demo", edited, amap2).embedded == 1


def test_document_frequencies_come_from_the_bm25_index_and_match_counting(tmp_path: Path) -> None:
    from docbot.retrieval.hybrid import count_doc_freq

    index = Index.open(tmp_path, HashEmbedder(), client=client(tmp_path))
    sections, amap = site_fixture()
    index_texts(index, "demo", sections, amap)
    assert index.doc_freq("demo") == count_doc_freq(index.chunks("demo"))
    assert index.doc_freq("demo")[1] == len(index.chunks("demo"))


def test_a_data_dir_from_before_generations_is_adopted_without_embedding_again(tmp_path: Path) -> None:
    """The layout before generations (index/<site>.json, bm25/<site>/, sites/<site>/sections.jsonl, one collection
    per site keyed by chunk id) becomes generation 1 on the next `docbot index`; its vectors are copied."""
    from crawlers.texts import write_section_texts
    from docbot.config import Settings
    from docbot.indexing.chunk import chunk_sections
    from docbot.updating import index_site

    sections, amap = site_fixture()
    chunks = chunk_sections(sections, amap)
    embedder = HashEmbedder()
    legacy = client(tmp_path).create_collection("docbot_demo", configuration={"hnsw": {"space": "cosine"}},
                                                embedding_function=None)
    legacy.upsert(ids=[c.id for c in chunks], embeddings=embedder.embed_documents([c.embed_text for c in chunks]))
    (tmp_path / "index").mkdir()
    (tmp_path / "index" / "demo.json").write_text(json.dumps({
        "format_version": 1, "site": "demo", "embedding_model": embedder.name, "dim": embedder.dim,
        "collection": "docbot_demo", "chunks": [c.to_json() for c in chunks]}), encoding="utf-8")
    write_section_texts(tmp_path / "sites" / "demo" / "sections.jsonl", sections)
    amap.save(tmp_path / "maps" / "demo.json")

    counting = HashEmbedder()
    index = Index.open(tmp_path, counting, client=client(tmp_path))
    with Generations(tmp_path, "demo").writing("index") as writer:
        stats = index_site(Settings(data_dir=tmp_path, anchor_maps=tmp_path / "maps"), index, writer)
    assert (stats.generation, stats.reused, stats.embedded) == (1, 5, 0)
    assert counting.calls == len({c.path for c in chunks})  # only the title paths the ranker reads, never a chunk
    assert index.dense("SESSION_COOKIE_SECURE cookie HTTPS", k=1)[0][0].anchor == "SESSION_COOKIE_SECURE"
    assert not (tmp_path / "index" / "demo.json").exists() and not (tmp_path / "sites" / "demo" / "sections.jsonl").exists()
    names = [str(getattr(c, "name", c)) for c in client(tmp_path).list_collections()]
    assert names == ["docbot_demo_g1"]  # the old collection went once nothing named it
