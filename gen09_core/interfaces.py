"""The objects plugins hand to gen09 through its hooks (see ``gen09_core.hookspecs``).

Each is a ``typing.Protocol``: a plugin's object needs the attributes and methods listed
here, nothing more (no base class to inherit). The data a hook receives or returns
otherwise comes from ``gen09_core.models``.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from gen09_core.models import Entity


class Generator(Protocol):
    """What the ``gen09_generator`` hook returns: the only code that reaches a model.

    ``complete(body, endpoint)`` sends one chat-completions request body to ``endpoint`` and
    returns the response body as a dict, or raises ``gen09_core.llm.TransportError``. It must
    call ``gen09_core.llm.require_scope()`` first. Retries, metering and recording belong to
    ``gen09_core.llm.ModelClient``. An optional ``prepare(endpoint)`` does one-time setup
    (imports, clients) before the latency clock starts.
    """

    name: str

    def complete(self, body: dict, endpoint: Any) -> dict:
        """Send one request body, return the response body."""


class Mutator(Protocol):
    """One procedural modifier (what ``gen09_mutators`` returns a list of): a name, a one-line
    description, the entity kinds and properties it needs, a minimum complexity and a
    likelihood per site; ``features`` measures an entity, ``eligible`` decides from those
    features, ``mutate`` returns the whole file with the entity mutated (or None)."""

    name: str
    description: str
    min_complexity: int
    likelihood: float

    def features(self, path: str, text: str, entity: Entity) -> Any:
        """The entity's features (complexity, properties), or None."""

    def eligible(self, features: Any, entity: Entity) -> bool:
        """True when the entity meets this mutator's conditions."""

    def mutate(self, path: str, text: str, entity: Entity, rng: random.Random) -> str | None:
        """The whole file with the entity mutated, or None when there is nothing to change."""


class Recipe(Protocol):
    """A ``repo_mutate`` recipe (what ``gen09_recipes`` returns a list of): ``options`` is an
    attrs class structured strictly from ``[recipe.NAME]``; ``check`` raises ``BadInput`` for
    options it cannot honour; ``run`` takes the pipeline's context and returns the summary."""

    name: str
    version: str
    options: type
    description: str

    def check(self, options: Any, registry: Any) -> None:
        """Reject options the recipe cannot honour (``BadInput``)."""

    def run(self, ctx: Any) -> dict:
        """Run the recipe; return its summary."""


class Profile(Protocol):
    """A repository profile (what ``gen09_repo_profiles`` returns a list of): how a repository
    installs and runs its tests; ``gen09_core.mutate.profiles.Profile`` is the built-in shape,
    and ``with_spec`` lays a configuration file's ``[profiles.NAME]`` over it."""

    name: str
    language: str

    def with_spec(self, name: str, spec: Any) -> Profile:
        """This profile with the fields a configuration's profile table sets."""
