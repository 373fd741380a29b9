"""An API's operation named in another generator's form: Swagger UI's element id (``operations-pet-addPet``) or
route (``/pet/addPet``) on a Redoc page, Redoc's (``tag/pet/operation/addPet``) on a Swagger UI page. A user pastes
what their browser's address bar showed on another rendering of the same API; the validator sends the reader to
the operation, not to the top of a page of a hundred."""

from __future__ import annotations

import pytest

from crawlers.model import AnchorMap, Page, Section
from docbot.references.validator import ReferenceValidator

BASE = "http://api.test/"
OPS = {"pet": ("addPet", "updatePet", "getPetById"), "store": ("getInventory", "placeOrder"),
       "user": ("createUser", "getUserByName"), "Session (experimental)": ("Session",)}


def redoc() -> Page:
    anchors, sections = [], []
    for tag, ops in OPS.items():
        anchors.append(f"tag/{tag.replace(' ', '-')}")
        sections.append(Section(anchors[-1], tag, 1, (tag,)))
        for op in ops:
            anchors += [f"operation/{op}", f"tag/{tag.replace(' ', '-')}/operation/{op}"]
            sections.append(Section(anchors[-1], op, 2, (tag, op), kind="api"))
    anchors += ["section/Authentication", "section/Errors"]
    return Page(url=BASE + "redoc.html", title="Petstore", anchors=tuple(anchors), sections=tuple(sections))


def swagger() -> Page:
    anchors, sections = [], []
    for tag, ops in OPS.items():
        anchors.append(f"/{tag}")
        sections.append(Section(anchors[-1], tag, 1, (tag,)))
        for op in ops:
            anchors.append(f"/{tag}/{op}")
            sections.append(Section(anchors[-1], op, 2, (tag, op), kind="api"))
    return Page(url=BASE + "swagger.html", title="Petstore", anchors=tuple(anchors), sections=tuple(sections),
                routes="#/<tag>/<operationId> and #/<tag> (deepLinking: true): routes, not element ids")


def sphinx() -> Page:
    titles = {"install": "Install", "install-from-source": "Install from source", "usage": "Usage"}
    return Page(url=BASE + "guide.html", title="Guide", anchors=tuple(titles),
                sections=tuple(Section(a, t, 2, (t,)) for a, t in titles.items()))


def check(url: str) -> tuple[str, str | None]:
    pages = {p.url: p for p in (redoc(), swagger(), sphinx())}
    outcome = ReferenceValidator({"api": AnchorMap("api", BASE, pages=pages)}).check_url(url, site="api")
    return str(outcome.action), outcome.output


@pytest.mark.parametrize(("fragment", "landed"), [
    ("operations-pet-addPet", "/pet/addPet"),  # Swagger UI's element id of the operation
    ("operation/getInventory", "/store/getInventory"),  # Redoc's short form
    ("tag/user/operation/createUser", "/user/createUser"),  # Redoc's full form
    ("tag/store", "/store"),
    ("operations-Session_(experimental)-Session", "/Session%20%28experimental%29/Session"),
])
def test_redoc_forms_and_element_ids_land_on_swagger_uis_route(fragment: str, landed: str) -> None:
    assert check(f"{BASE}swagger.html#{fragment}") == ("rewritten", f"{BASE}swagger.html#{landed}")


@pytest.mark.parametrize(("fragment", "landed"), [
    ("/pet/updatePet", "tag/pet/operation/updatePet"),  # Swagger UI's route: the full form, which names its tag
    ("operations-user-getUserByName", "tag/user/operation/getUserByName"),
    ("/Session%20(experimental)/Session", "tag/Session-%28experimental%29/operation/Session"),
])
def test_swagger_uis_forms_land_on_redocs_operation(fragment: str, landed: str) -> None:
    assert check(f"{BASE}redoc.html#{fragment}") == ("rewritten", f"{BASE}redoc.html#{landed}")


def test_an_id_no_form_of_the_page_holds_is_not_guessed() -> None:
    assert check(f"{BASE}swagger.html#operations-pet-deletePet")[1] != f"{BASE}swagger.html#/pet/addPet"
    assert check(f"{BASE}redoc.html#/pet/deletePet") == ("kept", f"{BASE}redoc.html")  # a route: the page itself
    # the tag and the operation disagree: which one was meant is not known
    assert check(f"{BASE}swagger.html#tag/store/operation/addPet")[1] != f"{BASE}swagger.html#/pet/addPet"
    assert check(f"{BASE}redoc.html#/store/addPet") == ("kept", f"{BASE}redoc.html")
    # a hyphen before a bare word is a heading's slug, not an API id: "-usage" is not the operation "usage"
    assert check(f"{BASE}guide.html#install-from-source") == ("kept", f"{BASE}guide.html#install-from-source")


def test_a_pages_own_ids_are_kept_as_they_are() -> None:
    assert check(f"{BASE}redoc.html#operation/addPet") == ("kept", f"{BASE}redoc.html#operation/addPet")
    assert check(f"{BASE}swagger.html#/pet/addPet") == ("kept", f"{BASE}swagger.html#/pet/addPet")
