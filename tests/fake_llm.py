"""A small OpenAI-compatible chat-completions server on 127.0.0.1 for the llm tests: deterministic answers and failure modes."""

from __future__ import annotations

import json
import re
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# What the model "says" (answer modes) and how the HTTP exchange goes (http modes).
ANSWER_MODES = ("ok", "long", "offsets", "garbage", "plain", "empty", "think", "not-json", "impossible")
HTTP_MODES = ("ok", "429", "500", "slow", "bad-body", "echo-key")

LONG_SENTENCE = ("This sentence is deliberately long and wordy so that the context or summary it belongs to runs far "
                 "past any reasonable token budget, which forces chunkctl to shorten it at sentence and word ends.")


def _between(text: str, a: str, b: str) -> str:
    i = text.find(a)
    j = text.find(b, i + len(a))
    return text[i + len(a):j] if i >= 0 and j >= 0 else ""


class FakeLLM:
    """The server and what it saw.

    Attributes:
        answers: answer mode (see ANSWER_MODES).
        http: http mode (see HTTP_MODES).
        fail_first: with http "429"/"500": only the first N requests fail (None: all).
        delay: seconds the "slow" mode waits before answering.
        requests: every request received: {"auth": Authorization header, "body": parsed JSON, "task": ...}.
        max_in_flight: the most requests handled at once.
    """

    def __init__(self) -> None:
        self.answers = "ok"
        self.http = "ok"
        self.fail_first: int | None = None
        self.delay = 1.0
        self.requests: list[dict] = []
        self.max_in_flight = 0
        self._in_flight = 0
        self._lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                fake._handle(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def count(self, task: str | None = None) -> int:
        """Requests received (of one task: "context", "sections", "summary", "questions", "echo")."""
        with self._lock:
            return sum(1 for r in self.requests if task is None or r["task"] == task)

    def reset(self) -> None:
        with self._lock:
            self.requests.clear()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    # ------------------------------------------------------------------ serving
    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        raw = h.rfile.read(int(h.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw)
            prompt = body["messages"][-1]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            return self._send(h, 400, {"error": {"message": "bad request"}})
        task = ("questions" if "<source>" in prompt else "context" if "<passage>" in prompt
                else "sections" if "<excerpt>" in prompt
                else "summary" if "<section>" in prompt else "echo")
        with self._lock:
            self.requests.append({"auth": h.headers.get("Authorization"), "body": body, "task": task})
            n = len(self.requests)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            failing = self.fail_first is None or n <= self.fail_first
            if self.http == "429" and failing:
                return self._send(h, 429, {"error": {"message": "rate limited"}}, {"Retry-After": "0"})
            if self.http == "500" and failing:
                return self._send(h, 500, {"error": {"message": "the model crashed"}})
            if self.http == "echo-key":
                return self._send(h, 401, {"error": {"message": f"Incorrect API key: {h.headers.get('Authorization')}"}})
            if self.http == "slow":
                time.sleep(self.delay)
            if self.http == "bad-body":
                return self._send_raw(h, 200, b'{"choices": [ this is not json')
            if task == "echo":
                time.sleep(0.002 * (len(prompt) % 7))  # answers finish out of order
            content = self._answer(task, prompt)
            return self._send(h, 200, {"id": f"fake-{n}", "object": "chat.completion", "model": body.get("model"),
                                       "choices": [{"index": 0, "finish_reason": "stop",
                                                    "message": {"role": "assistant", "content": content}}]})
        finally:
            with self._lock:
                self._in_flight -= 1

    @staticmethod
    def _questions(source: str, mode: str) -> str:
        """`chunkctl eval generate`: per passage, one good question (its first sentence, verbatim), a near-duplicate
        of it, one with a hallucinated excerpt, one with an excerpt too short and one with a number as excerpt."""
        if mode == "garbage":
            return "Sure! Here are some questions: what, who and why."
        first = re.split(r"(?<=[.!?])\s", source.strip(), maxsplit=1)[0]
        topic = " ".join(first.split()[:6])
        items = [
            {"question": f"What does the text say about {topic}?", "excerpts": [first]},
            {"question": f"What does the text say about {topic}", "excerpts": [first]},
            {"question": f"Where do unicorns near {topic} migrate?",
             "excerpts": ["Unicorns migrate south every winter in large herds across the valley."]},
            {"question": f"Which word is {topic}?", "excerpts": ["the"]},
            {"question": f"How many {topic}?", "excerpts": [42]},
        ]
        return "```json\n" + json.dumps(items) + "\n```"

    def _send(self, h: BaseHTTPRequestHandler, status: int, payload: dict, headers: dict | None = None) -> None:
        self._send_raw(h, status, json.dumps(payload).encode(), headers)

    @staticmethod
    def _send_raw(h: BaseHTTPRequestHandler, status: int, data: bytes, headers: dict | None = None) -> None:
        try:
            h.send_response(status)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                h.send_header(k, v)
            h.end_headers()
            h.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
            pass

    def _answer(self, task: str, prompt: str) -> str:
        mode = self.answers
        if task == "echo":
            return "echo: " + prompt
        if mode == "empty":
            return ""
        if mode == "not-json":
            return "{not json at all"
        if task == "questions":
            return self._questions(_between(prompt, "<source>\n", "\n</source>"), mode)
        if task == "context":
            passage = _between(prompt, "<passage>\n", "\n</passage>")
            first = " ".join(passage.split()[:4])
            if mode == "long":
                return " ".join([LONG_SENTENCE] * 8)
            text = f"This passage comes from the gardening guide. It begins with the words {first}."
            return f"<think>the passage is about {first}</think>\n{text}" if mode == "think" else text
        if task == "summary":
            section = _between(prompt, "<section>\n", "\n</section>")
            first = " ".join(section.split()[:5])
            if mode == "long":
                return "Summary: " + " ".join([LONG_SENTENCE] * 60)
            return f"Summary: the section that opens with {first} explains its topic. It has several paragraphs."
        excerpt = _between(prompt, "<excerpt>\n", "\n</excerpt>")
        topics = [m.start() for m in re.finditer(r"(?m)^Topic ", excerpt)]
        quotes = [" ".join(excerpt[t:].split()[:8]) for t in topics]
        if mode in ("ok", "think", "long"):
            return "```json\n" + json.dumps({"sections": quotes}) + "\n```"
        if mode == "offsets":
            items: list = [-3, 10 ** 9, len(excerpt) + 5, "zzz nonsense words that appear nowhere at all", 2.5,
                           True, {"offset": "x"}, None]
            items += topics + topics  # the right offsets, each twice
            return json.dumps(items)
        if mode == "impossible":  # well-formed JSON, but no start it names is in the excerpt
            return json.dumps({"sections": [len(excerpt) + 7, -1, "words that appear nowhere in this excerpt"]})
        if mode == "plain":
            return "Here are the sections:\n" + "\n".join(f'{i + 1}. "{q}"' for i, q in enumerate(quotes))
        return '}{ [[ "sections": maybe here, maybe there ]'
