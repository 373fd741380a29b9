"""`docbot slack`: run the Slack bot (Socket Mode when SLACK_APP_TOKEN is set, otherwise HTTP mode)."""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
from importlib.resources import files
from typing import Any

from docbot.commands.args import site_name
from docbot.config import Settings
from docbot.errors import ConfigError, IndexMissing, InvalidConfig

log = logging.getLogger(__name__)
PLACEHOLDER_URL = "https://docbot.example.com/slack/events"
WARM_UP_QUESTION = "getting started"


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = subparsers.add_parser(
        "slack",
        help="run the Slack bot",
        description="Answer /docs commands, @mentions and direct messages in Slack. Needs SLACK_BOT_TOKEN, and "
        "SLACK_APP_TOKEN (Socket Mode) or SLACK_SIGNING_SECRET (HTTP mode on --port at /slack/events). "
        "SLACK_API_URL overrides the Slack Web API base URL.",
    )
    p.add_argument("--port", type=int, default=None, help="HTTP mode port (default 3000, env PORT)")
    p.add_argument("--host", default=None, help="HTTP mode address to listen on (default 0.0.0.0)")
    p.add_argument("--command", default=None, help="slash command name (default /docs; docbot.toml [slack] command)")
    p.add_argument("--public", action="store_true", default=None,
                   help="post slash-command answers to the channel (default: only the asker sees them)")
    p.add_argument("--site", default=None, type=site_name, help="answer only from this site")
    p.add_argument("--http", action="store_true", help="HTTP mode even when SLACK_APP_TOKEN is set")
    p.add_argument("--chroma-url", help="use a Chroma server (env CHROMA_URL)")
    p.add_argument("--print-manifest", action="store_true",
                   help="print the Slack app manifest (with --command and --request-url) and exit")
    p.add_argument("--request-url", default=None, help="public URL of /slack/events, for --print-manifest")
    p.add_argument("--json", action="store_true", help="print the startup summary as one JSON object")
    p.set_defaults(func=run)


def manifest(command: str, request_url: str | None) -> str:
    """The app manifest, with the slash command and (for HTTP mode) the request URL filled in."""
    text = files("docbot.slack").joinpath("manifest.yaml").read_text(encoding="utf-8")
    text = text.replace("- command: /docs", f"- command: {command}")
    if request_url:
        text = text.replace(PLACEHOLDER_URL, request_url).replace("socket_mode_enabled: true", "socket_mode_enabled: false")
    return text


def slack_options(args: argparse.Namespace, settings: Settings) -> dict[str, Any]:
    """Command line > docbot.toml [slack] > defaults."""
    from docbot.slack.app import DEFAULT_COMMAND
    from docbot.slack.server import DEFAULT_HOST, DEFAULT_PORT, MAX_CONNECTIONS, REQUEST_TIMEOUT_S

    table = settings.slack  # validated on load: a bool is a bool, a port a whole number
    command = args.command or table.command or DEFAULT_COMMAND
    if not str(command).startswith("/") or " " in str(command):
        raise ConfigError(f"Slash command {command!r} must start with '/' and have no spaces, e.g. /docs")
    port, env_port = args.port, settings.port
    if port is None and env_port:
        try:
            port = int(env_port)
        except ValueError:
            raise InvalidConfig(f"PORT={env_port!r} is not a port number, e.g. PORT=3000") from None
    return {
        "command": str(command),
        "public": args.public if args.public is not None else bool(table.public),
        "site": args.site or table.site,
        "port": port if port is not None else (table.port if table.port is not None else DEFAULT_PORT),
        "host": args.host or table.host or DEFAULT_HOST,
        "max_connections": table.max_connections or MAX_CONNECTIONS,
        "request_timeout": table.request_timeout or REQUEST_TIMEOUT_S,
    }


def _check_token(client: Any, api_url: str | None) -> str:
    """The bot's user id; a clear error when Slack rejects the token or cannot be reached."""
    from slack_sdk.errors import SlackApiError

    try:
        response = client.auth_test()
    except SlackApiError as exc:
        raise ConfigError(f"Slack rejected SLACK_BOT_TOKEN ({exc.response.get('error', 'error')}) — copy the "
                          "Bot User OAuth Token (xoxb-…) from your app's OAuth & Permissions page") from None
    except OSError as exc:
        where = api_url or "slack.com"
        raise ConfigError(f"Cannot reach the Slack API at {where} ({exc}) — check the network or SLACK_API_URL") from None
    return str(response.get("user_id", ""))


def run(args: argparse.Namespace, settings: Settings) -> int:
    opts = slack_options(args, settings)
    if args.print_manifest:
        print(manifest(opts["command"], args.request_url), end="")
        return 0
    token = settings.slack_bot_token or ""
    app_token = "" if args.http else settings.slack_app_token or ""
    secret = settings.slack_signing_secret or ""
    api_url = settings.slack_api_url
    if not token:
        raise ConfigError("SLACK_BOT_TOKEN is not set — create the app from `docbot slack --print-manifest`, install "
                          "it to your workspace, and export its Bot User OAuth Token (xoxb-…)")
    if not app_token and not secret:
        raise ConfigError("Set SLACK_APP_TOKEN (xapp-…, Socket Mode: no public URL needed) or SLACK_SIGNING_SECRET "
                          "(HTTP mode: Slack posts to http://HOST:PORT/slack/events)")

    from docbot.commands.ask import unindexed_note
    from docbot.pipeline import Pipeline
    from docbot.reference_log import open_log
    from docbot.slack.app import DocbotSlack, SlackSettings, build_app, web_client
    from docbot.slack.server import EVENTS_PATH, make_http_server, start_socket_mode

    pipeline = Pipeline.from_settings(settings)
    indexed = pipeline.index.sites()
    if not indexed:
        raise IndexMissing(f"No index in {settings.data_dir}/ — run `docbot crawl URL --site NAME` and "
                           "`docbot index` before starting the bot")
    if opts["site"] is None and (note := unindexed_note(settings.site_names(), indexed)):
        print(f"docbot slack: {note}", file=sys.stderr)  # the bot answers from the indexed ones meanwhile
    reference_log = open_log(settings)  # before the model loads: an unreachable PostgreSQL fails at once
    pipeline.ask(WARM_UP_QUESTION)  # load the embedding model now, not on the first user's question

    client = web_client(token, api_url)
    bot_user = _check_token(client, api_url)
    bot = DocbotSlack(pipeline, reference_log,
                      SlackSettings(command=opts["command"], public=opts["public"], site=opts["site"]))
    app = build_app(bot, client, None if app_token else secret)
    mode = "socket" if app_token else "http"
    summary = {"mode": mode, "command": opts["command"], "sites": indexed, "bot_user_id": bot_user,
               "public": opts["public"], "reference_log": reference_log.where}
    if mode == "http":
        server = make_http_server(app, opts["host"], opts["port"], signing_secret=secret,
                                  max_connections=opts["max_connections"], request_timeout=opts["request_timeout"])
        summary["url"] = f"http://{opts['host']}:{server.server_port}{EVENTS_PATH}"

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    print(json.dumps(summary) if args.json else
          f"docbot slack: {mode} mode, {opts['command']} over {', '.join(indexed)}"
          + (f", listening on {summary['url']}" if mode == "http" else " (connected through Socket Mode)"),
          flush=True)
    try:
        if mode == "http":
            server.serve_forever(poll_interval=0.2)
        else:
            start_socket_mode(app, app_token)
    except KeyboardInterrupt:
        print("docbot slack: stopping; finishing the answers already queued", file=sys.stderr)
    finally:
        if mode == "http":
            server.server_close()
        bot.shutdown(wait=True)
        reference_log.close()
        close = getattr(pipeline.index, "close", None)  # the real Index owns a Chroma client; fakes need not
        if close is not None:
            close()
    return 0
