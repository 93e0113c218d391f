"""The Model Context Protocol server: the knowledge base for AI assistants (MCP Python SDK).

`build_server(service)` makes one `MCPServer` over a loaded service:
- tools (`api.mcp_tools.TOOLS`): one per service method, arguments validated by the routes'
  models, results typed by the routes' response models (the tool's output schema) and given both
  as structured content and as the JSON text the CLI prints. A bad argument or an unknown id is
  a tool error naming the argument (the server keeps serving); anything else is logged and
  reported as a failed call.
- resources: each document (`ygo://document/<id>`: its exact text, which every citation's offsets
  index) and any node by id (`ygo://node/<id>`: its text, span and facts, as GET /id/<id>), so an
  assistant can quote.

Two transports: stdio (`serve_stdio`, the `ygo-rulings mcp` command a desktop assistant launches)
and streamable HTTP at `/mcp` on the API (`api.mcp_http`, which imports this module only when the
app starts). The HTTP endpoint is stateless and answers in
JSON (no sessions, no streams): any worker or replica answers any request, and the API's edge
(body limit, time budget, request log, metrics) applies to it as to every route.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any, TypeVar

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.server.mcpserver.resources import FunctionResource
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase, FuncMetadata
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, ValidationError

from api.contract import constraints, resolve
from api.mcp_tools import TOOLS, ToolSpec
from api.routes.web import document_meta, resolve_document
from api.safe_strings import escaped, string_problem, unsafe_json_strings
from kb.errors import KBError, NotFound
from kb.service import RulingsService

A = TypeVar("A", bound=BaseModel)
NAME = "ygo-rulings"
# Root-level combinators: several assistants' tool-use APIs refuse an input schema that has them
# (DeckRequest's "exactly one of deck and decks"); the service enforces it and says so.
ROOT_COMBINATORS = ("anyOf", "oneOf", "allOf")
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
# The training tools add records (answers, sessions) and change none: not destructive.
RECORDS = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


def build_server(service: RulingsService) -> MCPServer[Any]:
    """The MCP server over one loaded service: its tools and resources."""
    values = constraints(service)
    tools = [tool(spec, service, input_schema(spec.args, values)) for spec in TOOLS]
    with logging_left_alone():
        server: MCPServer[Any] = MCPServer(
            NAME,
            title="Yu-Gi-Oh! rulings knowledge base",
            instructions=instructions(service),
            version=str(service.artifact.manifest.get("build_id") or ""),
            tools=tools,
            log_level="WARNING",
        )
    add_resources(server, service)
    return server


@contextmanager
def logging_left_alone() -> Iterator[None]:
    """MCPServer() calls logging.basicConfig (a rich handler on the root logger) when the root
    has no handler; the API and the CLI configure logging themselves, so give it one meanwhile."""
    root = logging.getLogger()
    guard = logging.NullHandler()
    root.addHandler(guard)
    try:
        yield
    finally:
        root.removeHandler(guard)


def instructions(service: RulingsService) -> str:
    """What the server knows and does not know, from the loaded KB."""
    docs = [document_meta(service, d) for d in sorted(service.artifact.documents)]
    covered = [f"{s.id} ({s.label_en})" for s in service.formats.specs if s.documents]
    named = [s.id for s in service.formats.specs if not s.documents]
    return (
        "Yu-Gi-Oh! rulings from these documents only: "
        + "; ".join(f"{d['id']}: {d['title_en'] or d['title']}" for d in docs)
        + f". Formats they cover: {', '.join(covered)}."
        + (f" Formats known by name only (no document): {', '.join(named)}." if named else "")
        + " Every answer cites exact spans (document id, character offsets, text) of these "
        "documents: quote them. A null verdict or an empty result means the documents do not "
        "decide or do not say; the server never invents a ruling, so neither should you."
    )


# --- tools --------------------------------------------------------------------------------------


def input_schema(
    args: type[BaseModel], values: dict[str, Callable[[], dict[str, Any]]]
) -> dict[str, Any]:
    """The JSON Schema of a tool's arguments, its constraint markers filled in from this KB."""
    schema = args.model_json_schema(by_alias=True)
    resolve(schema, values)
    for key in ROOT_COMBINATORS:
        schema.pop(key, None)
    return schema


class RawArguments(ArgModelBase):
    """What the SDK hands a tool: the arguments as sent (`validated` checks them)."""

    model_config = ConfigDict(extra="allow")

    def model_dump_one_level(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


def tool(spec: ToolSpec[Any], service: RulingsService, schema: dict[str, Any]) -> Tool:
    """The SDK tool of one spec: its arguments validated by `spec.args`, its output typed by
    `spec.result` (the output schema the SDK publishes and checks each result against)."""
    parsing = FuncMetadata(arg_model=spec.args)

    def call(**arguments: Any) -> CallToolResult:
        return run(spec, service, validated(spec.args, parsing.pre_parse_json(arguments)))

    return Tool(
        fn=call,
        name=spec.name,
        title=spec.title,
        description=spec.description,
        parameters=schema,
        fn_metadata=FuncMetadata(arg_model=RawArguments, output_model=spec.result),
        is_async=False,  # the SDK runs it in a worker thread: the service is CPU-bound
        context_kwarg=None,
        annotations=READ_ONLY if spec.read_only else RECORDS,
    )


def validated(model: type[A], arguments: dict[str, Any]) -> A:
    """The arguments as `model`, or a tool error naming each bad one ("k: …; format: …"): first
    any string the HTTP edge would refuse (a control character, NUL, lone surrogate)."""
    for loc, text in unsafe_json_strings(arguments):
        problem = string_problem(text)
        if problem is not None:  # the name escaped: it may hold the very code point refused
            raise ToolError(f"{escaped(_dotted(loc))}: {problem}")
    try:
        return model.model_validate(arguments)
    except ValidationError as exc:
        raise ToolError(
            "; ".join(f"{_dotted(e['loc'])}: {e['msg']}" for e in exc.errors())
        ) from exc


def _dotted(loc: tuple[str | int, ...]) -> str:
    return ".".join(str(part) for part in loc) or "arguments"


def run(spec: ToolSpec[Any], service: RulingsService, args: BaseModel) -> CallToolResult:
    """One call: the service's JSON as text (as the CLI prints it) and as structured content
    (checked against the result model by the SDK); a KB error is the tool's error."""
    try:
        data = spec.call(service, args)
    except NotFound as exc:
        raise ToolError(f"{spec.key}: {exc}") from exc
    except KBError as exc:
        raise ToolError(str(exc)) from exc
    text = json.dumps(data, ensure_ascii=False)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


# --- resources ----------------------------------------------------------------------------------


def add_resources(server: MCPServer[Any], service: RulingsService) -> None:
    """Every document as a listed resource; any document or node by id through a template."""
    for doc in sorted(service.artifact.documents):
        meta = document_meta(service, doc)
        server.add_resource(
            FunctionResource.from_function(
                partial(document_json, service, doc),
                uri=f"ygo://document/{doc}",
                name=doc,
                title=meta["title"],
                description=f"{meta['title_en'] or meta['title']}: the exact text citations "
                f"index ({meta['length']} characters; format {meta['format']}).",
                mime_type="application/json",
            )
        )

    @server.resource(
        "ygo://document/{doc}",
        name="document",
        title="A rule document",
        description="A document's exact text (id, title, format, length, text): every "
        "citation's start and end are offsets into this text.",
        mime_type="application/json",
    )
    def document(doc: str) -> str:
        return guarded_read(lambda: document_json(service, doc))

    @server.resource(
        "ygo://node/{+id}",
        name="node",
        title="A node of the rule graph",
        description="A node by id (a passage, rule, statement, card, concept …): its exact text "
        "and span (document, start, end), its facts with their sources, its children.",
        mime_type="application/json",
    )
    def node(id: str) -> str:
        return guarded_read(lambda: json.dumps(service.show(id), ensure_ascii=False))


def document_json(service: RulingsService, doc: str) -> str:
    """A document as GET /documents/{doc} serves it."""
    found = resolve_document(service, doc)
    body = {**document_meta(service, found), "text": service.artifact.documents[found]}
    return json.dumps(body, ensure_ascii=False)


def guarded_read(read: Callable[[], str]) -> str:
    """A resource read whose KB errors are resource errors (an unknown id: not found)."""
    try:
        return read()
    except NotFound as exc:
        raise ResourceNotFoundError(str(exc)) from exc
    except KBError as exc:
        raise ResourceError(str(exc)) from exc


# --- transports ---------------------------------------------------------------------------------


def serve_stdio(server: MCPServer[Any]) -> None:
    """Serve over this process's stdin and stdout until the client closes them."""
    anyio.run(server.run_stdio_async)
