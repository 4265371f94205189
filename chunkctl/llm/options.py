"""LLMOptions: the model-assisted options, read from `ChunkConfig.extras` and checked; no network, no files."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chunkctl.config import MAX_BUDGET, RUN_ONLY_EXTRAS
from chunkctl.errors import ConfigError, MissingExtraError

if TYPE_CHECKING:
    from chunkctl.config import ChunkConfig

DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

# extras key -> (LLMOptions attribute, type, CLI flag named in error messages)
_KEYS: dict[str, tuple[str, type, str]] = {
    "llm_base_url": ("base_url", str, "--llm-base-url"),
    "llm_model": ("model", str, "--llm-model"),
    "llm_api_key_env": ("api_key_env", str, "--llm-api-key-env"),
    "llm_concurrency": ("concurrency", int, "--llm-concurrency"),
    "llm_timeout": ("timeout", float, "--llm-timeout"),
    "llm_retries": ("retries", int, "llm_retries"),
    "llm_backoff": ("backoff", float, "llm_backoff"),
    "llm_http2": ("http2", bool, "llm_http2"),
    "llm_max_input_tokens": ("max_input_tokens", int, "llm_max_input_tokens"),
    "llm_context_tokens": ("context_tokens", int, "llm_context_tokens"),
    "llm_required": ("required", bool, "--llm-required"),
    "llm_dry_run": ("dry_run", bool, "--llm-dry-run"),
    "llm_cache": ("cache", bool, "llm_cache"),
    "cache_dir": ("cache_dir", str, "--cache"),
    "contextualize": ("contextualize", bool, "--contextualize"),
    "summaries": ("summaries", bool, "--summaries"),
    "summary_min_tokens": ("summary_min_tokens", int, "--summary-min-tokens"),
}

# Keys that change how a run talks to the model, never what the records say.
RUN_ONLY_KEYS = RUN_ONLY_EXTRAS


@dataclass(frozen=True)
class LLMOptions:
    """Options of model-assisted chunking (`--contextualize`, `--summaries`, `--strategy llm`).

    Built by `from_config` from `ChunkConfig.extras` (the keys in parentheses). Sizes
    are in tokens of the run's tokenizer, times in seconds.

    Attributes:
        base_url: the OpenAI-compatible endpoint, e.g. "http://localhost:8080/v1" (`llm_base_url`).
        model: the model name sent with every request (`llm_model`).
        api_key_env: NAME of the environment variable holding the API key (`llm_api_key_env`,
            default OPENAI_API_KEY); the key itself is never an option.
        concurrency: requests in flight at once, per process (`llm_concurrency`, default 4).
        timeout: seconds per request attempt (`llm_timeout`, default 60).
        retries: extra attempts after a 408/409/429/5xx answer, a timeout or a broken
            connection (`llm_retries`, default 4).
        backoff: first retry delay in seconds, doubled per attempt, jittered (`llm_backoff`, default 0.5).
        http2: speak HTTP/2 (needs the h2 package; `llm_http2`, default off: HTTP/1.1).
        max_input_tokens: most document tokens put in one prompt (`llm_max_input_tokens`,
            default 8000): longer documents are sent as their outline plus the chunk's
            section (contexts), in windows (section starts), or cut (summaries).
        context_tokens: tokens kept free for the context in each chunk when chunking with
            `llm_chunk_config` (`llm_context_tokens`, default 100; at most a quarter of the chunk size).
        required: any failed model call fails the document (`llm_required`).
        dry_run: send nothing; answers come only from the cache (`llm_dry_run`).
        cache: keep answers on disk (`llm_cache`, default on).
        cache_dir: where (`cache_dir`; default $XDG_CACHE_HOME/chunkctl/llm or ~/.cache/chunkctl/llm).
        contextualize: write a context before each chunk (`contextualize`).
        summaries: add a summary record per long section (`summaries`).
        summary_min_tokens: a section gets a summary when longer than this (`summary_min_tokens`,
            default: the chunk size).
        segment: the run's strategy is `llm` (from `ChunkConfig.strategy`).
        chunk_size: the run's chunk size (tokens).
    """

    base_url: str | None = None
    model: str | None = None
    api_key_env: str = DEFAULT_API_KEY_ENV
    concurrency: int = 4
    timeout: float = 60.0
    retries: int = 4
    backoff: float = 0.5
    http2: bool = False
    max_input_tokens: int = 8000
    context_tokens: int = 100
    required: bool = False
    dry_run: bool = False
    cache: bool = True
    cache_dir: str | None = None
    contextualize: bool = False
    summaries: bool = False
    summary_min_tokens: int | None = None
    segment: bool = False
    chunk_size: int = 512

    @classmethod
    def from_config(cls, config: ChunkConfig) -> LLMOptions:
        """Read and check the options in `config.extras`.

        Raises:
            ConfigError: an unknown `llm_*` key, a value of the wrong type or range, a
                base URL that is not http(s), an API-key variable name that is not a name.
        """
        values: dict[str, Any] = {"segment": config.strategy == "llm", "chunk_size": config.chunk_size}
        for key, raw in (config.extras or {}).items():
            if key not in _KEYS:
                if key.startswith("llm_"):
                    known = ", ".join(k for k in _KEYS if k.startswith("llm_"))
                    raise ConfigError(f"unknown option {key!r}; the llm options are: {known}")
                continue
            attr, typ, flag = _KEYS[key]
            value = None if raw is None else _coerce(raw, typ, flag)
            if value is not None:
                values[attr] = value
        opts = cls(**values)
        opts._validate()
        return opts

    def _validate(self) -> None:
        if self.base_url is not None and not re.match(r"https?://[^/\s]+", self.base_url):
            raise ConfigError("--llm-base-url must be an http:// or https:// URL, e.g. http://localhost:8080/v1")
        if not _ENV_NAME.match(self.api_key_env):
            # Never echo the value: a user may have passed the key itself here.
            raise ConfigError("--llm-api-key-env takes the NAME of an environment variable (letters, digits, _), "
                              "e.g. OPENAI_API_KEY; put the key itself in that variable")
        for name, low in (("concurrency", 1), ("max_input_tokens", 256)):
            if getattr(self, name) < low:
                raise ConfigError(f"{_flag(name)} must be at least {low}")
        for name in ("retries", "context_tokens"):
            if getattr(self, name) < 0:
                raise ConfigError(f"{_flag(name)} must not be negative")
        if not self.timeout > 0:
            raise ConfigError("--llm-timeout must be a positive number of seconds")
        if self.backoff < 0:
            raise ConfigError(f"{_flag('backoff')} must not be negative")
        if self.summary_min_tokens is not None and self.summary_min_tokens < 0:
            raise ConfigError(f"{_flag('summary_min_tokens')} must not be negative")
        for name in ("concurrency", "max_input_tokens", "retries", "context_tokens", "summary_min_tokens"):
            value = getattr(self, name)
            if isinstance(value, int) and value > MAX_BUDGET:  # (a larger one failed each file: helper-117)
                raise ConfigError(f"{_flag(name)} {value} is too large: at most {MAX_BUDGET:,}")

    @property
    def active(self) -> bool:
        """True when the run asks a model anything."""
        return self.contextualize or self.summaries or self.segment

    @property
    def summary_threshold(self) -> int:
        """Sections longer than this many tokens get a summary."""
        return self.chunk_size if self.summary_min_tokens is None else self.summary_min_tokens

    @property
    def context_reserve(self) -> int:
        """Tokens kept free for the context when chunking with `llm_chunk_config` (0 without --contextualize)."""
        if not self.contextualize:
            return 0
        return max(0, min(self.context_tokens, self.chunk_size // 4))

    def cache_path(self) -> Path | None:
        """The answer cache folder, or None when caching is off."""
        if not self.cache:
            return None
        if self.cache_dir:
            return Path(self.cache_dir).expanduser()
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        return Path(base) / "chunkctl" / "llm"

    def require_endpoint(self, feature: str) -> None:
        """Raise a one-line ConfigError naming the options to set when no endpoint is configured."""
        missing = [flag for flag, value in (("--llm-base-url URL", self.base_url), ("--llm-model NAME", self.model))
                   if not value]
        if missing:
            raise ConfigError(f"{feature} needs an OpenAI-compatible model endpoint: set {' and '.join(missing)} "
                              f"(the API key, if any, is read from ${self.api_key_env})")


EXTRAS_DEFAULTS: dict[str, Any] = {key: LLMOptions.__dataclass_fields__[attr].default
                                   for key, (attr, _typ, _flag) in _KEYS.items()}
"""Every `ChunkConfig.extras` key the model-assisted options read, with the value it has when not given."""


def check_llm(config: ChunkConfig) -> LLMOptions:
    """Check the model options of a run before any file is read (the CLI calls this once).

    Returns:
        the options.

    Raises:
        ConfigError: bad options, or a model feature asked for without `llm_base_url`/`llm_model`.
        MissingExtraError: httpx is not installed and calls would be sent (`pip install 'chunkctl[llm]'`).
    """
    opts = LLMOptions.from_config(config)
    if not opts.active:
        return opts
    feature = ("--strategy llm" if opts.segment else "--contextualize" if opts.contextualize else "--summaries")
    opts.require_endpoint(feature)
    if not opts.dry_run:
        try:
            import httpx  # noqa: F401
        except ImportError:
            raise MissingExtraError(feature, "llm", "httpx") from None
        if opts.http2:
            try:
                import h2  # noqa: F401
            except ImportError:
                raise MissingExtraError("llm_http2", "llm", "h2") from None
    return opts


def llm_chunk_config(config: ChunkConfig) -> ChunkConfig:
    """The config to chunk with when contextualizing: the leaf budget lowered to leave room for the context.

    Contextual retrieval adds text before a body that was packed to the budget; packed
    to the full budget, most contexts would have to be cut. Chunk with this config,
    then give `apply_llm` the original one: it restores each chunk's budget (and so
    `meta.chunk_size`) to the run's, and the context fills the room. Without
    `contextualize` the config is returned as it is.

    Returns:
        a ChunkConfig whose chunk size (and smallest level) is `context_reserve` tokens smaller.
    """
    reserve = LLMOptions.from_config(config).context_reserve
    if reserve <= 0:
        return config
    size = config.chunk_size - reserve
    changes: dict[str, Any] = {"chunk_size": size, "min_chunk_tokens": min(config.min_chunk_tokens, size)}
    if config.levels:
        changes["levels"] = (*config.levels[:-1], size)
    elif config.parent_chunk_size is None:
        changes["parent_chunk_size"] = 4 * config.chunk_size  # hierarchical parents keep their default budget
    return config.replace(**changes)


def _flag(attr: str) -> str:
    for _key, (a, _t, flag) in _KEYS.items():
        if a == attr:
            return flag
    return attr


def _coerce(raw: Any, typ: type, flag: str) -> Any:
    """Turn an extras value into `typ`, or raise a ConfigError naming `flag`."""
    if typ is bool:
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, str) and raw.strip().lower() in ("1", "true", "yes", "on", "0", "false", "no", "off"):
            return raw.strip().lower() in ("1", "true", "yes", "on")
        raise ConfigError(f"{flag} takes true or false, got {raw!r}")
    if typ is str:
        if not isinstance(raw, (str, os.PathLike)):
            raise ConfigError(f"{flag} takes text, got {type(raw).__name__}")
        value = os.fspath(raw).strip()
        return value or None
    if isinstance(raw, bool):
        raise ConfigError(f"{flag} takes a number, got {raw!r}")
    try:
        return typ(raw)
    except (TypeError, ValueError):
        raise ConfigError(f"{flag} takes a number, got {raw!r}") from None


__all__ = ["LLMOptions", "check_llm", "llm_chunk_config", "RUN_ONLY_KEYS", "DEFAULT_API_KEY_ENV", "EXTRAS_DEFAULTS"]
