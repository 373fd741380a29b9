"""Swagger UI's expanded DOM composed into one document whose ids are its routes (crawlers.fetch.entries), read by
the extractor: a section per tag and per operation, anchored at the route a browser follows. The markup is Swagger
UI 5's, cut down (tests/crawlers/test_render_swagger.py runs the real package)."""

from __future__ import annotations

from crawlers.fetch.entries import compose_entries
from crawlers.fetch.shell import APP_ROOTS
from crawlers.parse.extract import extract

SWAGGER = next(r for r in APP_ROOTS if r.generator == "Swagger UI")

OPERATION = """
<div class="opblock opblock-get is-open" id="operations-{tag_id}-{op}"><div class="opblock-summary">
 <button aria-expanded="true" class="opblock-summary-control"><span class="opblock-summary-method">GET</span>
  <div class="opblock-summary-path-description-wrapper"><span class="opblock-summary-path" data-path="{path}">
   <a class="nostyle" href="#/{tag_href}/{op}"><span>{path}</span></a></span>
   <div class="opblock-summary-description">{summary}</div></div></button></div>
 <div class="no-margin"><div class="opblock-body"><div class="opblock-description-wrapper"><div class="renderedMarkdown">
  <p>{text}</p><h3>Stream format</h3><p>Frames.</p></div></div>
  <div class="opblock-section"><div class="tab-header"><h4 class="opblock-title"><span>Parameters</span></h4></div>
   <div class="try-out"><button class="btn try-out__btn">Try it out </button></div>
   <table class="parameters"><tr><td>all</td><td>Return all containers.<select><option>true</option></select></td></tr>
   </table></div></div></div></div>"""
PAGE = """<!DOCTYPE html><html><head><title>Docker Engine API</title></head><body><div id="swagger-ui">
<div class="information-container wrapper"><section class="block col-12"><div class="info">
 <hgroup class="main"><h2 class="title">Docker Engine API <span><small><pre class="version"> 1.33 </pre></small></span></h2>
 </hgroup><div class="description"><div class="renderedMarkdown"><h1>Errors</h1><p>The API uses standard codes.</p>
 </div></div></div></section></div>
<div class="opblock-tag-section is-open"><h3 class="opblock-tag" id="operations-tag-Container" data-tag="Container">
 <a class="nostyle" href="#/Container"><span>Container</span></a><small><div class="renderedMarkdown">
 <p>Create and manage containers.</p></div></small><button class="expand-operation"><svg></svg></button></h3>
 <div class="no-margin"><div class="operation-tag-content">{list}{create}</div></div></div>
<div class="opblock-tag-section is-open"><h3 class="opblock-tag" id="operations-tag-Session_\\(experimental\\)">
 <a class="nostyle" href="#/Session%20(experimental)"><span>Session (experimental)</span></a></h3>
 <div class="no-margin"><div class="operation-tag-content">{session}</div></div></div>
<section class="models is-open"><h4>Schemas</h4><div id="model-Volume" class="model-container">Volume</div></section>
</div></body></html>"""


def page() -> str:
    def op(tag: str, op: str, path: str, summary: str, text: str) -> str:
        return OPERATION.format(tag_id=tag.replace(" ", "_"), tag_href=tag.replace(" ", "%20"), op=op, path=path,
                                summary=summary, text=text)

    return PAGE.format(list=op("Container", "ContainerList", "/containers/json", "List containers",
                               "Returns a list of containers."),
                       create=op("Container", "ContainerCreate", "/containers/create", "", "Creates one."),
                       session=op("Session (experimental)", "Session", "/session", "Initialize interactive session",
                                  "Start a new interactive session."))


def test_every_tag_and_operation_is_a_section_anchored_at_its_route() -> None:
    assert SWAGGER.entries is not None
    ex = extract(compose_entries(page(), SWAGGER.entries), "http://docs.test/index.html")
    assert ex.title == "Docker Engine API"
    # the routes, and no element id of Swagger UI (operations-…, model-…): a browser lands on none of them
    assert sorted(ex.anchors) == ["/Container", "/Container/ContainerCreate", "/Container/ContainerList",
                                  "/Session (experimental)", "/Session (experimental)/Session"]
    by = {s.anchor: s for s in ex.sections if s.anchor}
    assert by["/Container/ContainerList"].title == "List containers"
    assert by["/Container/ContainerList"].path[-2:] == ("Container", "List containers")
    assert by["/Container/ContainerCreate"].title == "GET /containers/create"  # no summary: its signature
    assert by["/Session (experimental)/Session"].path[-2] == "Session (experimental)"
    text = by["/Container/ContainerList"].text
    assert text.startswith("GET /containers/json") and "Returns a list of containers." in text
    assert by["/Container"].text == "Create and manage containers."
    # Parameters and the description's own headings are parts of the operation, below it
    parts = [s for s in ex.sections if s.path[-2:-1] == ("List containers",)]
    assert [s.title for s in parts] == ["Stream format", "Parameters"] and all(s.anchor is None for s in parts)
    whole = " ".join(s.text for s in ex.sections)
    assert "Try it out" not in whole and "Return all containers." in whole
    # the intro's headings stay outside the tags
    assert next(s.path for s in ex.sections if s.title == "Errors") == ("Docker Engine API", "Errors")


def virtual_item(index: int, inner: str) -> str:
    return f'<div data-index="{index}" class="operations-virtual__item"><span>{inner}</span></div>'


def test_a_virtualized_list_read_item_by_item_is_composed_in_order() -> None:
    """Swagger UI's virtualized list is flat (a tag's heading, then its operations, each an item) and the page holds
    only the items mounted last: the items read while mounted stand for them, in order. An operationId with a "/"
    makes a route Swagger UI cannot follow: that operation is a section inside its tag's, with no anchor."""
    assert SWAGGER.entries is not None
    tag = ('<h3 class="opblock-tag" id="operations-tag-{t}" data-tag="{t}" data-is-open="true">'
           '<a class="nostyle" href="#/{t}"><span>{t}</span></a><small><div class="renderedMarkdown"><p>{d}</p></div>'
           '</small><button aria-expanded="true" class="expand-operation"></button></h3>')

    def op(t: str, name: str, path: str, summary: str) -> str:
        return OPERATION.format(tag_id=t, tag_href=t, op=name, path=path, summary=summary, text=f"{summary}, whole.")

    items = [tag.format(t="Tasks", d="Work to do."), op("Tasks", "getTask", "/tasks/{id}", "Get a task"),
             op("Tasks", "createTask", "/tasks", "Create a task"), tag.format(t="repos", d="Repositories."),
             op("repos", "repos/get", "/repos/{owner}/{repo}", "Get a repository")]
    mounted = "".join(virtual_item(i + 3, item) for i, item in enumerate(items[3:]))  # what the page still holds
    rendered = PAGE.split('<div class="opblock-tag-section')[0] + (
        f'<div class="operations-virtual"><div class="operations-virtual__list">{mounted}</div></div></div></body></html>')
    composed = compose_entries(rendered, SWAGGER.entries, [virtual_item(i, item) for i, item in enumerate(items)])
    ex = extract(composed, "http://docs.test/index.html")
    assert sorted(ex.anchors) == ["/Tasks", "/Tasks/createTask", "/Tasks/getTask", "/repos"]
    by = {s.title: s for s in ex.sections}
    assert by["Get a task"].path[-2:] == ("Tasks", "Get a task") and by["Get a task"].anchor == "/Tasks/getTask"
    assert "Get a task, whole." in by["Get a task"].text and by["Tasks"].text == "Work to do."
    assert by["Get a repository"].path[-2] == "repos" and by["Get a repository"].anchor is None
    assert "Get a repository, whole." in by["Get a repository"].text
    assert [s.title for s in ex.sections if s.path[-2:-1] == ("Docker Engine API",)][-3:] == ["Errors", "Tasks",
                                                                                                "repos"]
