"""An OpenAI-compatible chat-completions client (httpx) with retries, bounded concurrency and a disk cache; knows nothing of chunks.

The API key is read from the environment variable the options name and goes only
into the Authorization header: never into a cache entry, a cache key, an error
message or a repr.
"""

from __future__ import annotations

import contextlib
import email.utils
import hashlib
import os
import random
import threading
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit, urlunsplit

import orjson

from chunkctl.atomic import remove_stale_shards, replace_atomically
from chunkctl.errors import ChunkctlError, MissingExtraError
from chunkctl.llm.options import LLMOptions

CACHE_VERSION = 1
MAX_BACKOFF = 30.0       # seconds: longest computed wait between two attempts
UNREACHABLE_AFTER = 6    # connection failures in a row after which the endpoint counts as down
MAX_RETRY_AFTER = 120.0  # seconds: longest server-requested wait (Retry-After) honoured
RETRY_STATUS = frozenset({408, 409, 429})  # plus every 5xx


class LLMError(ChunkctlError):
    """A model call that failed for good, or (with `llm_required`) a document that must fail because of one."""


class Request(Protocol):
    """What the client sends and caches: a JSON body for a model, and the hashes keying its answer."""

    def body(self, model: str) -> dict[str, Any]: ...

    def prompt_hash(self) -> str: ...

    def cache_key(self, model: str) -> str: ...


@dataclass(frozen=True)
class ChatRequest:
    """One chat-completions request, deterministic (temperature 0).

    Attributes:
        messages: (role, content) pairs in order.
        max_tokens: most tokens the answer may have (the model's tokens).
    """

    messages: tuple[tuple[str, str], ...]
    max_tokens: int

    def body(self, model: str) -> dict[str, Any]:
        """The JSON body sent to `/chat/completions`."""
        return {
            "model": model,
            "messages": [{"role": r, "content": c} for r, c in self.messages],
            "temperature": 0,
            "max_tokens": self.max_tokens,
            "stream": False,
        }

    def prompt_hash(self) -> str:
        """sha256 of everything but the model that decides the answer (messages, max_tokens, temperature)."""
        body = self.body("")
        del body["model"]
        return hashlib.sha256(orjson.dumps(body, option=orjson.OPT_SORT_KEYS)).hexdigest()

    def cache_key(self, model: str) -> str:
        """The cache key of this request for `model`: a hash of (model, prompt hash)."""
        return hashlib.sha256(f"{model}\n{self.prompt_hash()}".encode()).hexdigest()


@dataclass(frozen=True)
class Answer:
    """The outcome of one request.

    Attributes:
        text: the model's answer, or None when the call failed or was not sent (dry run).
        error: one line saying why it failed (None on success or when not sent).
        cached: the answer came from the disk cache.
    """

    text: str | None
    error: str | None = None
    cached: bool = False


class DiskCache:
    """Answers on disk, one JSON file per (scope, model, prompt hash): `<folder>/<key[:2]>/<key>.json`.

    Writes are atomic (a temporary file renamed into place), so concurrent runs never
    see half an entry, and the first write of a cache object removes the temporary files
    of writers killed before their rename (SIGKILL); an unreadable or malformed entry counts as a miss and is
    overwritten by the next answer. Entries hold the model name, the prompt hash and
    the answer, nothing else: the scope only enters the key (a hash).

    Args:
        folder: the cache folder (created on first write), or None to keep nothing.
        scope: what else an answer depends on, mixed into every key: the endpoint URL
            (without credentials) for chat answers, so that two servers serving the
            same model name never share answers. "" (the embeddings cache) keys by
            model and prompt alone. Entries written before chat keys had a scope sit
            under other keys: never read, they are asked again once.
    """

    def __init__(self, folder: Path | None, scope: str = ""):
        self.folder = folder
        self.scope = scope
        self._swept = False

    def _path(self, request: Request, model: str) -> Path | None:
        if self.folder is None:
            return None
        key = request.cache_key(model)
        if self.scope:
            key = hashlib.sha256(f"{self.scope}\n{key}".encode()).hexdigest()
        return self.folder / key[:2] / f"{key}.json"

    def get(self, request: Request, model: str) -> str | None:
        """The cached answer to `request` by `model`, or None."""
        path = self._path(request, model)
        if path is None:
            return None
        try:
            entry = orjson.loads(path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return None
        if (not isinstance(entry, dict) or entry.get("v") != CACHE_VERSION or entry.get("model") != model
                or entry.get("prompt") != request.prompt_hash() or not isinstance(entry.get("answer"), str)):
            return None
        return entry["answer"]

    def put(self, request: Request, model: str, answer: str) -> None:
        """Store an answer; a cache that cannot be written is skipped silently (it only saves calls)."""
        path = self._path(request, model)
        if path is None:
            return
        if not self._swept:  # temporary files of writers killed by SIGKILL, once per cache object
            self._swept = True
            remove_stale_shards(path.parent.parent)
        data = orjson.dumps({"v": CACHE_VERSION, "model": model, "prompt": request.prompt_hash(), "answer": answer})
        with contextlib.suppress(OSError):
            replace_atomically(path, data)

    def drop(self, request: Request, model: str) -> None:
        """Remove the answer to `request` by `model`, if any (an answer found unusable); errors are ignored."""
        path = self._path(request, model)
        if path is not None:
            with contextlib.suppress(OSError):
                path.unlink()


def _public_url(url: str) -> str:
    """`url` without user:password@ (for messages)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def endpoint_url(base_url: str) -> str:
    """The chat-completions URL of a base URL ("http://host:8080/v1" -> ".../v1/chat/completions")."""
    url = base_url.rstrip("/")
    return url if url.endswith("/chat/completions") else url + "/chat/completions"


def answer_cache(options: LLMOptions) -> DiskCache:
    """The chat answer cache of these options: their cache folder, scoped by their endpoint (as `ChatClient` uses it)."""
    return DiskCache(options.cache_path(), _public_url(endpoint_url(options.base_url or "")))


def retry_after(headers: Any) -> float | None:
    """Seconds a 429/503 answer asks us to wait: `retry-after-ms`, or `Retry-After` in seconds or as an HTTP date."""
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _content(payload: Any) -> str | None:
    """`choices[0].message.content` of a chat-completions answer (text parts joined), or None."""
    try:
        content = payload["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None
    if isinstance(content, list):  # content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else None


def _error_text(resp: Any) -> str:
    """A short reason from an error answer's body ({"error": {"message": ...}} or its first line)."""
    try:
        payload = resp.json()
        err = payload.get("error") if isinstance(payload, dict) else None
        msg = err.get("message") if isinstance(err, dict) else err
        if msg:
            return " ".join(str(msg).split())[:200]
    except Exception:
        pass
    text = " ".join(resp.text.split())
    return text[:200]


class ChatClient:
    """Sends chat-completions requests to one OpenAI-compatible endpoint.

    Every request is deterministic (temperature 0) and its answer is cached on disk
    under (endpoint URL, model, prompt hash), so a second run sends nothing and gets the same bytes.
    Failed attempts are retried with exponential backoff and jitter ("equal jitter",
    AWS Architecture Blog, "Exponential Backoff And Jitter", 2015), honouring a
    server's Retry-After; at most `concurrency` requests are in flight (a thread pool
    over one httpx connection pool). In dry-run mode nothing is sent and only cached
    answers are returned.

    Args:
        options: endpoint, model, key variable name, timeout, retries, concurrency, cache.
        transport: an httpx transport to use instead of the network (tests, proxies).

    Raises:
        MissingExtraError: httpx (or h2 for HTTP/2) is not installed when a request must be sent.
    """

    def __init__(self, options: LLMOptions, transport: Any = None):
        self.options = options
        self.model = options.model or ""
        self.url = self._endpoint(options.base_url or "")
        self.cache = DiskCache(options.cache_path(), _public_url(self.url))
        self.dry_run = options.dry_run
        self._transport = transport
        self._http: Any = None
        self._secret: str | None = None
        self._lock = threading.Lock()
        self._random = random.Random()
        # Requests in a row that never reached the server; past UNREACHABLE_AFTER the
        # endpoint counts as down for this client and requests fail at once, so a dead
        # server costs seconds, not retries times chunks.
        self._unreached = 0
        self._down_reason: str | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({_public_url(self.url)!r}, model={self.model!r})"

    # What a subclass for another OpenAI-compatible endpoint (embeddings) replaces:
    # the URL of a base URL, and how a 200 answer's JSON becomes the cached text.
    _not_parsed = "answer is not a chat completion (no choices[0].message.content)"

    @staticmethod
    def _endpoint(base_url: str) -> str:
        return endpoint_url(base_url)

    @staticmethod
    def _parse(payload: Any) -> str | None:
        return _content(payload)

    # ------------------------------------------------------------------ public
    def complete_many(self, requests: Sequence[Request]) -> list[Answer]:
        """Answer requests, cached ones from disk and the rest `concurrency` at a time.

        Returns:
            one Answer per request, in input order; failures are Answers with `error`
            set (this method does not raise for a failed call).
        """
        answers: list[Answer | None] = [None] * len(requests)
        todo: list[int] = []
        first: dict[str, int] = {}
        for i, req in enumerate(requests):
            hit = self.cache.get(req, self.model)
            if hit is not None:
                answers[i] = Answer(hit, cached=True)
                continue
            key = req.cache_key(self.model)
            if key in first:  # the same prompt twice in one batch: ask once
                continue
            first[key] = i
            todo.append(i)
        if todo and self.dry_run:
            for i in todo:
                answers[i] = Answer(None)
        elif todo:
            workers = min(self.options.concurrency, len(todo))
            if workers == 1:
                results = [self._send(requests[i]) for i in todo]
            else:
                with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="chunkctl-llm") as pool:
                    results = list(pool.map(lambda i: self._send(requests[i]), todo))
            for i, res in zip(todo, results):
                answers[i] = res
        for i, req in enumerate(requests):
            if answers[i] is None:
                answers[i] = answers[first[req.cache_key(self.model)]]
        return answers  # type: ignore[return-value]

    def complete(self, request: Request) -> Answer:
        """Answer one request (see `complete_many`)."""
        return self.complete_many([request])[0]

    def forget(self, request: Request) -> None:
        """Drop the cached answer to `request`: the caller found it unusable, so the next run asks again."""
        self.cache.drop(request, self.model)

    def close(self) -> None:
        """Close the connection pool (a new one is opened on the next request)."""
        with self._lock:
            if self._http is not None:
                self._http.close()
                self._http = None

    # ------------------------------------------------------------------ sending
    def _client(self) -> Any:
        with self._lock:
            if self._http is None:
                try:
                    import httpx
                except ImportError:
                    raise MissingExtraError("model-assisted chunking", "llm", "httpx") from None
                if self.options.http2:
                    try:
                        import h2  # noqa: F401
                    except ImportError:
                        raise MissingExtraError("llm_http2", "llm", "h2") from None
                headers = {"Content-Type": "application/json", "Accept": "application/json",
                           "User-Agent": "chunkctl"}
                key = os.environ.get(self.options.api_key_env, "").strip()
                if key:
                    headers["Authorization"] = f"Bearer {key}"
                    self._secret = key
                t = self.options.timeout
                self._http = httpx.Client(
                    headers=headers, http2=self.options.http2, transport=self._transport,
                    timeout=httpx.Timeout(t, connect=min(t, 10.0)),
                    limits=httpx.Limits(max_connections=self.options.concurrency,
                                        max_keepalive_connections=self.options.concurrency),
                )
            return self._http

    def _redact(self, text: str) -> str:
        if self._secret:
            text = text.replace(self._secret, "***")
        return text

    def _delay(self, attempt: int, asked: float | None) -> float:
        if asked is not None:
            return min(asked, MAX_RETRY_AFTER)
        cap = min(MAX_BACKOFF, self.options.backoff * (2 ** attempt))
        return cap / 2 + self._random.uniform(0, cap / 2)

    def _send(self, request: Request) -> Answer:
        """POST one request with retries; store a success in the cache."""
        http = self._client()  # first: it raises MissingExtraError when httpx is missing
        import httpx

        body = orjson.dumps(request.body(self.model))
        where = _public_url(self.url)
        tries = self.options.retries + 1
        reason = "no attempt made"
        if self._down_reason is not None:
            return Answer(None, self._redact(f"{self._down_reason}; not tried again in this run"))
        for attempt in range(tries):
            asked = None
            try:
                resp = http.post(self.url, content=body)
            except httpx.TimeoutException:
                reason = f"timed out after {self.options.timeout:g} s"
            except httpx.TransportError as exc:
                reason = f"cannot reach {where} ({exc.__class__.__name__})"
                if isinstance(exc, httpx.ConnectError):
                    with self._lock:
                        self._unreached += 1
                        if self._unreached >= UNREACHABLE_AFTER:
                            self._down_reason = reason
                    if self._down_reason is not None:
                        break
            else:
                with self._lock:
                    self._unreached = 0
                status = resp.status_code
                if status == 200:
                    try:
                        text = self._parse(resp.json())
                    except ValueError:
                        text = None
                    if text is not None:
                        self.cache.put(request, self.model, text)
                        return Answer(text)
                    reason = self._not_parsed
                elif status in RETRY_STATUS or status >= 500:
                    reason = f"HTTP {status}: {_error_text(resp)}".rstrip(": ")
                    asked = retry_after(resp.headers)
                else:
                    reason = f"HTTP {status} from {where}: {_error_text(resp)}".rstrip(": ")
                    return Answer(None, self._redact(reason))
            if attempt + 1 < tries:
                time.sleep(self._delay(attempt, asked))
        plural = "s" if tries > 1 else ""
        return Answer(None, self._redact(f"{reason} ({tries} attempt{plural})"))


_CLIENTS: dict[tuple, ChatClient] = {}
_CLIENTS_LOCK = threading.Lock()


def get_client(options: LLMOptions) -> ChatClient:
    """One shared client per set of options (and API key) in this process, so connections are reused."""
    key_hash = hashlib.sha256(os.environ.get(options.api_key_env, "").encode("utf-8")).hexdigest()
    with _CLIENTS_LOCK:
        client = _CLIENTS.get((options, key_hash))
        if client is None:
            client = ChatClient(options)
            _CLIENTS[(options, key_hash)] = client
        return client


def close_clients() -> None:
    """Close every shared client of this process."""
    with _CLIENTS_LOCK:
        for client in _CLIENTS.values():
            client.close()
        _CLIENTS.clear()
