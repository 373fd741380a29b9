"""One module a Slack listener: what each kind of request does, over the shared :class:`~docbot.slack.core.Work`."""
