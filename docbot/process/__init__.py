"""The docbot process itself: how a command stops when it is told to (SIGTERM), wherever it is.

A room of the foundation: the writers (:mod:`docbot.updating`) and the report run their event loops through
:func:`docbot.process.terminate.run`, and the CLI installs the handler (:func:`docbot.process.terminate.catch_sigterm`).
"""
