"""Parsing one fetched page: bytes in, anchors, links, sections, texts and mentions out. Pure; nothing here fetches.

- :mod:`crawlers.parse.extract`: :func:`~crawlers.parse.extract.extract`, the one parse of a page, and
  ``EXTRACTOR_VERSION``; :func:`~crawlers.parse.extract.extract_anchors` is what the ReferenceValidator reuses.
- :mod:`crawlers.parse.html`: bytes into an lxml tree, and the words every parser here reads a tree with.
- :mod:`crawlers.parse.chrome`: where the content is, and what around it is navigation.
- :mod:`crawlers.parse.sections`: the section walk, with :mod:`~crawlers.parse.heading_anchors` (which id lands on
  a heading), :mod:`~crawlers.parse.api_entries` (API entries and their names), :mod:`~crawlers.parse.anchor_sections`
  (sections at the anchors the page links to) and :mod:`~crawlers.parse.section_text` (a section's text).
- :mod:`crawlers.parse.visible_text`: the page's text as find-in-page reads it; :mod:`crawlers.parse.mentions`: what
  each link says about its target.
"""
