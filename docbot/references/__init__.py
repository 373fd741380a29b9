"""References: the ReferenceValidator that keeps, repairs or drops every URL and fragment, and grouping by type.

Pure over plain data (answer text, numbered sources, anchor maps). May import ``docbot.text``, the
foundation modules (``docbot.errors``, ``docbot.answer``) and ``crawlers``; never an index, the network or Slack.
"""
