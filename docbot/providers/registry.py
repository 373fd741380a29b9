"""The registry machinery: a spec parsed into prefix and name, and the providers of one kind of model by prefix."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from docbot.config import Settings
from docbot.errors import ConfigError

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Spec:
    """A parsed spec: ``prefix`` chose the provider, ``name`` is what follows the first ``:`` (may be empty)."""

    prefix: str
    name: str
    text: str  # the spec as written, for messages and for providers that take it whole (a folder, a model name)


@dataclass(frozen=True, slots=True)
class Provider(Generic[T]):
    prefix: str
    usage: str  # how a spec for it is written, e.g. "openai:<model>"
    factory: Callable[[Spec, Settings], T]


def parse(spec: str) -> Spec:
    text = spec.strip()
    prefix, _, name = text.partition(":")
    return Spec(prefix, name, text)


class Registry(Generic[T]):
    """The providers of one kind of model, by prefix. ``fallback`` names the provider for a spec whose prefix
    none registered (the chat model's bare model name, a re-ranker's folder); without one such a spec is an
    error listing the known prefixes."""

    def __init__(self, kind: str, setting: str, fallback: str | None = None) -> None:
        self.kind = kind
        self.setting = setting  # where the spec is set, for messages
        self.fallback = fallback
        self._providers: dict[str, Provider[T]] = {}
        self._aliases: dict[str, str] = {}

    def register(self, prefix: str, usage: str, aliases: tuple[str, ...] = ()
                 ) -> Callable[[Callable[[Spec, Settings], T]], Callable[[Spec, Settings], T]]:
        """Decorator: the factory builds this kind of model for specs starting ``prefix`` (or equal to an alias).
        Registering a prefix again replaces its provider."""

        def add(factory: Callable[[Spec, Settings], T]) -> Callable[[Spec, Settings], T]:
            self._providers[prefix] = Provider(prefix, usage, factory)
            self._aliases.update((alias, prefix) for alias in aliases)
            return factory

        return add

    def unregister(self, prefix: str) -> None:
        self._providers.pop(prefix, None)
        self._aliases = {alias: p for alias, p in self._aliases.items() if p != prefix}

    def prefixes(self) -> list[str]:
        return sorted(self._providers)

    def usages(self) -> list[str]:
        return [self._providers[p].usage for p in self.prefixes()]

    def provider(self, spec: str) -> tuple[Provider[T], Spec]:
        """The provider a spec names, and the spec as that provider reads it; :class:`ConfigError` when none."""
        parsed = parse(spec)
        if parsed.text in self._aliases:
            parsed = Spec(self._aliases[parsed.text], "", parsed.text)
        found = self._providers.get(parsed.prefix)
        if found is None and self.fallback in self._providers:
            found, parsed = self._providers[self.fallback], Spec(self.fallback, parsed.text, parsed.text)
        if found is None:
            raise ConfigError(self.unknown(parsed.text))
        return found, parsed

    def create(self, spec: str, settings: Settings) -> T:
        found, parsed = self.provider(spec)
        return found.factory(parsed, settings)

    def unknown(self, spec: str) -> str:
        known = ", ".join(repr(u) for u in self.usages()) or "none registered"
        return (f"Unknown {self.kind} {spec!r}: set {self.setting} to one of {known} — or register a provider "
                f"for it in docbot.providers")
